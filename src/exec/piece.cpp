#include "exec/piece.h"

#include <algorithm>

#include <fmt/format.h>

namespace reshardctl {

namespace {

size_t offsetIn(const Box& box, const std::vector<int64_t>& globalIndex) {
  int64_t offset = 0;
  for (size_t dim = 0; dim < box.rank(); ++dim)
    offset = offset * box.extent(dim) + (globalIndex[dim] - box.begin[dim]);
  return static_cast<size_t>(offset);
}

}  // namespace

Piece Piece::filled(const Box& box, double value) {
  return {box, std::vector<double>(static_cast<size_t>(box.volume()), value)};
}

double& Piece::at(const std::vector<int64_t>& globalIndex) { return values[offsetIn(box, globalIndex)]; }
double Piece::at(const std::vector<int64_t>& globalIndex) const { return values[offsetIn(box, globalIndex)]; }
size_t Piece::offsetOf(const std::vector<int64_t>& globalIndex) const { return offsetIn(box, globalIndex); }

Piece extractPiece(const Piece& source, const Box& box) {
  if (!contains(source.box, box)) throw ExecutionError("extracting a box outside the piece");
  Piece result = Piece::filled(box, 0.0);
  forEachRow(box, [&](const std::vector<int64_t>& start, size_t length) {
    std::copy_n(source.values.begin() + static_cast<ptrdiff_t>(source.offsetOf(start)), length,
                result.values.begin() + static_cast<ptrdiff_t>(result.offsetOf(start)));
  });
  return result;
}

Piece assemblePiece(const Box& target, const std::vector<const Piece*>& sources, double fill, bool mustCover) {
  Piece result = Piece::filled(target, fill);
  std::vector<uint32_t> writes(mustCover ? result.values.size() : 0, 0);  // sources per element
  for (const Piece* source : sources) {
    forEachRow(intersect(target, source->box), [&](const std::vector<int64_t>& start, size_t length) {
      const auto to = static_cast<ptrdiff_t>(result.offsetOf(start));
      std::copy_n(source->values.begin() + static_cast<ptrdiff_t>(source->offsetOf(start)), length,
                  result.values.begin() + to);
      if (mustCover) std::for_each_n(writes.begin() + to, length, [](uint32_t& count) { ++count; });
    });
  }
  for (uint32_t count : writes)
    if (count != 1)
      throw ExecutionError(fmt::format("an element of the new piece was received {} times", count));
  return result;
}

}  // namespace reshardctl
