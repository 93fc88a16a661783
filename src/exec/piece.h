// Tensor data in the CPU reference executor: a rank's piece is a box of the
// global tensor with its values in row-major order. Values are kept as double and
// rounded to the element type after every arithmetic step (dtype.h); complex
// tensors keep only their real part, which is enough to check data movement.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "ir/dtype.h"
#include "reshard/local_box.h"
#include "reshard/placement.h"

namespace reshardctl {

// Raised when pieces do not fit what an operation expects (a missing rank,
// ranks of one group with different boxes, a destination not fully covered):
// the plan or the input is wrong.
class ExecutionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Piece {
  Box box;
  std::vector<double> values;  // row-major over box

  static Piece filled(const Box& box, double value);
  double& at(const std::vector<int64_t>& globalIndex);
  double at(const std::vector<int64_t>& globalIndex) const;
  // Where the element at globalIndex sits in `values`.
  size_t offsetOf(const std::vector<int64_t>& globalIndex) const;
};

// The whole tensor, as one piece over the full box.
struct GlobalTensor {
  DType dtype = DType::F32;
  Piece data;
  const std::vector<int64_t>& shape() const { return data.box.end; }
};

// A tensor spread over the ranks of a mesh: one piece per process id.
struct DistTensor {
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  Layout layout;
  std::map<int64_t, Piece> pieces;
};

// Calls visit(globalIndex) for every index of `box`, in row-major order.
template <typename Visit>
void forEachIndex(const Box& box, Visit&& visit) {
  if (box.empty()) return;
  std::vector<int64_t> index = box.begin;
  while (true) {
    visit(static_cast<const std::vector<int64_t>&>(index));
    size_t dim = box.rank();
    while (dim > 0) {
      --dim;
      if (++index[dim] < box.end[dim]) break;
      index[dim] = box.begin[dim];
      if (dim == 0) return;
    }
    if (box.rank() == 0) return;  // a 0-D box has one index
  }
}

// Calls visit(rowStart, length) for every row of `box` (a run along its last
// dim, contiguous in any piece holding it), in row-major order; a 0-D box is
// one row of one element. Copies work a row at a time, not an index at a time.
template <typename Visit>
void forEachRow(const Box& box, Visit&& visit) {
  if (box.empty()) return;
  if (box.rank() == 0) {
    visit(static_cast<const std::vector<int64_t>&>(box.begin), size_t{1});
    return;
  }
  Box rowStarts = box;
  rowStarts.end.back() = box.begin.back() + 1;
  const auto length = static_cast<size_t>(box.extent(box.rank() - 1));
  forEachIndex(rowStarts, [&](const std::vector<int64_t>& start) { visit(start, length); });
}

// The values of `source` inside `box` (which must lie within source.box).
Piece extractPiece(const Piece& source, const Box& box);

// Builds a piece over `target` from the parts of `sources` that intersect it,
// starting from `fill`. With `mustCover`, every element must come from exactly
// one source; otherwise ExecutionError.
Piece assemblePiece(const Box& target, const std::vector<const Piece*>& sources, double fill, bool mustCover);

}  // namespace reshardctl
