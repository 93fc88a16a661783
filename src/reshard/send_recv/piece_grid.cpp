#include "reshard/send_recv/piece_grid.h"

#include <algorithm>

#include "reshard/mesh_coords.h"

namespace reshardctl {

PieceGrid::PieceGrid(const std::vector<int64_t>& shape, const Layout& layout) : shape_(shape) {
  // As localBox: where two mesh dims split one tensor dim the later one cuts it.
  std::vector<int64_t> cutBy(shape.size(), -1);
  for (size_t meshDim = 0; meshDim < layout.placements.size(); ++meshDim)
    if (layout.placements[meshDim].isShard())
      cutBy[static_cast<size_t>(layout.placements[meshDim].dim)] = static_cast<int64_t>(meshDim);
  for (size_t tensorDim = 0; tensorDim < cutBy.size(); ++tensorDim) {
    const int64_t meshDim = cutBy[tensorDim];
    if (meshDim >= 0)
      axes_.push_back({meshDim, static_cast<int64_t>(tensorDim), layout.mesh.shape[static_cast<size_t>(meshDim)]});
  }
  std::sort(axes_.begin(), axes_.end(), [](const Axis& a, const Axis& b) { return a.meshDim < b.meshDim; });

  int64_t pieces = 1;
  for (const Axis& axis : axes_) pieces *= axis.chunks;  // at most the mesh's size
  const int64_t size = layout.mesh.size();
  pieceOf_.resize(static_cast<size_t>(size));
  firstHolder_.assign(static_cast<size_t>(pieces) + 1, 0);
  for (int64_t position = 0; position < size; ++position) {
    const MeshCoord coord = meshCoord(layout.mesh, position);
    int64_t piece = 0;
    for (const Axis& axis : axes_) piece = piece * axis.chunks + coord[static_cast<size_t>(axis.meshDim)];
    pieceOf_[static_cast<size_t>(position)] = piece;
    ++firstHolder_[static_cast<size_t>(piece) + 1];
  }
  for (size_t piece = 1; piece < firstHolder_.size(); ++piece) firstHolder_[piece] += firstHolder_[piece - 1];
  holders_.resize(static_cast<size_t>(size));
  std::vector<int64_t> filled(firstHolder_.begin(), firstHolder_.end() - 1);
  for (int64_t position = 0; position < size; ++position)
    holders_[static_cast<size_t>(filled[static_cast<size_t>(pieceAt(position))]++)] = position;
}

std::span<const int64_t> PieceGrid::holders(int64_t piece) const {
  const auto first = static_cast<size_t>(firstHolder_[static_cast<size_t>(piece)]);
  const auto last = static_cast<size_t>(firstHolder_[static_cast<size_t>(piece) + 1]);
  return std::span<const int64_t>(holders_).subspan(first, last - first);
}

Box PieceGrid::box(int64_t piece) const {
  Box box = fullBox(shape_);
  for (size_t axis = axes_.size(); axis-- > 0;) {
    const auto [begin, end] = chunkRange(shape_[static_cast<size_t>(axes_[axis].tensorDim)], axes_[axis].chunks,
                                         piece % axes_[axis].chunks);
    box.begin[static_cast<size_t>(axes_[axis].tensorDim)] = begin;
    box.end[static_cast<size_t>(axes_[axis].tensorDim)] = end;
    piece /= axes_[axis].chunks;
  }
  return box;
}

bool PieceGrid::meetingRanges(const Box& box, std::vector<Range>& ranges) const {
  if (box.empty()) return false;
  for (size_t dim = 0; dim < shape_.size(); ++dim)
    if (std::max<int64_t>(box.begin[dim], 0) >= std::min(box.end[dim], shape_[dim])) return false;
  ranges.clear();
  for (const Axis& axis : axes_) {
    const size_t dim = static_cast<size_t>(axis.tensorDim);
    const int64_t chunk = chunkSize(shape_[dim], axis.chunks);
    const int64_t begin = std::max<int64_t>(box.begin[dim], 0);
    const int64_t end = std::min(box.end[dim], shape_[dim]);
    // Chunk i is [i*chunk, (i+1)*chunk) cut at the dim's end: the non-empty ones meeting [begin, end).
    ranges.push_back({begin / chunk, std::min(axis.chunks - 1, (end - 1) / chunk)});
  }
  return true;
}

bool PieceGrid::advance(const std::vector<Range>& ranges, std::vector<int64_t>& index) {
  for (size_t axis = ranges.size(); axis-- > 0;) {
    if (index[axis] < ranges[axis].last) {
      ++index[axis];
      return true;
    }
    index[axis] = ranges[axis].first;
  }
  return false;
}

int64_t PieceGrid::countMeeting(const Box& box) const {
  std::vector<Range> ranges;
  if (!meetingRanges(box, ranges)) return 0;
  int64_t count = 1;
  for (const Range& range : ranges)
    if (__builtin_mul_overflow(count, range.last - range.first + 1, &count)) return INT64_MAX;
  return count;
}

}  // namespace reshardctl
