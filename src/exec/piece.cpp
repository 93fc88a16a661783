#include "exec/piece.h"

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

Piece extractPiece(const Piece& source, const Box& box) {
  if (!contains(source.box, box)) throw ExecutionError("extracting a box outside the piece");
  Piece result = Piece::filled(box, 0.0);
  forEachIndex(box, [&](const std::vector<int64_t>& index) { result.at(index) = source.at(index); });
  return result;
}

Piece assemblePiece(const Box& target, const std::vector<const Piece*>& sources, double fill, bool mustCover) {
  Piece result = Piece::filled(target, fill);
  Piece writes = Piece::filled(target, 0.0);
  for (const Piece* source : sources) {
    forEachIndex(intersect(target, source->box), [&](const std::vector<int64_t>& index) {
      result.at(index) = source->at(index);
      writes.at(index) += 1;
    });
  }
  if (!mustCover) return result;
  for (double count : writes.values)
    if (count != 1.0)
      throw ExecutionError(fmt::format("an element of the new piece was received {} times", count));
  return result;
}

}  // namespace reshardctl
