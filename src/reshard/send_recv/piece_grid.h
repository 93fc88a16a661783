// A layout's pieces as a grid of blocks, so that a move between meshes finds
// the pieces a box meets by arithmetic on chunk indices instead of comparing
// every destination with every source (transition.h's meshChange). A tensor
// dim split over a mesh dim is cut into chunks (local_box.h); a piece is one
// combination of chunks, held by every process whose coordinates on the
// splitting mesh dims name that combination (its replicas).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "reshard/local_box.h"
#include "reshard/placement.h"

namespace reshardctl {

class PieceGrid {
 public:
  // O(processes + tensor rank); partial placements do not cut (local_box.h).
  PieceGrid(const std::vector<int64_t>& shape, const Layout& layout);

  // Pieces are numbered in the order of their first holder in the mesh's
  // row-major order: the splitting mesh dims ascending, the last fastest.
  int64_t pieceCount() const { return static_cast<int64_t>(firstHolder_.size()) - 1; }
  int64_t pieceAt(int64_t position) const { return pieceOf_[static_cast<size_t>(position)]; }
  Box box(int64_t piece) const;
  // The mesh positions holding `piece`, in mesh order.
  std::span<const int64_t> holders(int64_t piece) const;

  // How many pieces meet `box` with a non-empty part: the product of the
  // chunks each split dim's range meets. O(tensor rank); saturates at INT64_MAX.
  int64_t countMeeting(const Box& box) const;
  // Those pieces in ascending order, O(tensor rank) each.
  template <typename Visit>
  void forEachMeeting(const Box& box, Visit&& visit) const {
    std::vector<Range> ranges;
    if (!meetingRanges(box, ranges)) return;
    std::vector<int64_t> index(ranges.size());
    for (size_t axis = 0; axis < ranges.size(); ++axis) index[axis] = ranges[axis].first;
    do {
      int64_t piece = 0;
      for (size_t axis = 0; axis < ranges.size(); ++axis) piece = piece * axes_[axis].chunks + index[axis];
      visit(piece);
    } while (advance(ranges, index));
  }

 private:
  // A splitting mesh dim: the tensor dim it cuts into `chunks` chunks.
  struct Axis {
    int64_t meshDim = 0;
    int64_t tensorDim = 0;
    int64_t chunks = 1;
  };
  struct Range {
    int64_t first = 0;
    int64_t last = 0;  // inclusive
  };
  // Per axis, the chunks `box` meets; false when it meets no non-empty piece.
  bool meetingRanges(const Box& box, std::vector<Range>& ranges) const;
  // The next chunk combination within `ranges`, the last axis fastest; false after the last.
  static bool advance(const std::vector<Range>& ranges, std::vector<int64_t>& index);

  std::vector<int64_t> shape_;
  std::vector<Axis> axes_;
  std::vector<int64_t> pieceOf_;      // per mesh position
  std::vector<int64_t> firstHolder_;  // per piece, into holders_; one past the end last
  std::vector<int64_t> holders_;      // positions grouped by piece, each group in mesh order
};

}  // namespace reshardctl
