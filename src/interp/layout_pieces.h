// Between a value's global tensor and its ranks' local pieces, under a layout:
// cutting a global tensor into a rank's piece (how program inputs reach the
// ranks), putting the pieces back together (concatenate shards, reduce
// partials by their reduce type, require replicas to agree), and comparing a
// tensor with the serial one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "interp/tensor.h"
#include "interp/tolerance.h"
#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
#include "reshard/placement.h"

namespace reshardctl {

// Where a rank's piece sits: its box (Paddle's ceil chunks, reshard/local_box.h).
Box pieceBox(const Shape& globalShape, const Layout& layout, const MeshCoord& coord);

// The rank at `coord`'s piece of `global`. On partial mesh dims one rank holds
// the value and the others the reduce identity: the rank holds the value when
// its coordinate is 0 on every partial dim (AVG dims excepted: there every rank
// holds the value), else the identity of the lowest partial dim where it is not.
Tensor pieceOf(const Tensor& global, const Layout& layout, const MeshCoord& coord);

// What assembling a value's pieces found.
struct Assembly {
  enum class Problem { None, MissingPiece, WrongShape, ReplicasDiffer };
  Problem problem = Problem::None;
  Tensor global;          // Problem::None: the value the pieces make
  int64_t rank = -1;      // the rank with the problem (ReplicasDiffer: the later of the two)
  int64_t otherRank = -1;  // ReplicasDiffer: the rank it disagrees with
  Shape held;              // WrongShape: the piece's shape
  Shape expected;          // WrongShape: what the layout gives that rank
  double maxDiff = 0;      // ReplicasDiffer: the largest difference between replicas
};

// The process's piece, or nullptr when it holds none.
using PieceLookup = std::function<const Tensor*(int64_t processId)>;

// Puts every rank's piece into place. Replicas (pieces of the same elements on
// ranks that differ only along replicated or sharding-irrelevant mesh dims)
// must agree within `tolerance`; partial pieces are reduced lowest partial
// mesh dim first, in double (reshard/reduce_op.h).
Assembly assemble(const Shape& globalShape, DType dtype, const Layout& layout, const PieceLookup& lookup,
                  const Tolerance& tolerance);

// Where `actual` differs from `expected` beyond tolerance: the element with the
// largest relative error (|a - e| / |e|, or |a - e| when e is 0).
struct Mismatch {
  bool differs = false;
  bool shapeDiffers = false;
  double maxRelErr = 0;
  double maxAbsErr = 0;
  Shape index;
};
Mismatch compareTensors(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance);

std::string indexText(const Shape& index);  // "[2,5]"

}  // namespace reshardctl
