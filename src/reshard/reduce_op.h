// What each Paddle ReduceType does to values, for the reference executor and for
// the planner's rule on which partial mesh dims may be reduced first.
//
// A value that is partial over several mesh dims means: reduce the pieces over
// the lowest partial mesh dim first, then the next one up (Paddle keeps partial
// dims in a hash map and never says; this fixes an order so that mixed reduce
// types have one meaning). Two reductions may swap places when they commute.
//
// AVG: the value is the mean of the partial pieces over the mesh dim.
// ANY / ALL: logical or / and of `piece != 0`; their values are 0 or 1.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ir/dist_attr.h"
#include "ir/dtype.h"

namespace reshardctl {

// The element that leaves a reduction unchanged: what `partial_init` writes on
// every rank but the one that keeps the value. AVG has none (its pieces must all
// hold the value), so it returns SUM's 0.
double reduceIdentity(ReduceType type, DType dtype);

// Reduces the pieces' values in order, rounding to `dtype` after every step the
// way the element type's arithmetic would; AVG sums, then divides by the count.
double reduceValues(ReduceType type, DType dtype, const std::vector<double>& values);

// The value that whole-tensor partial pieces stand for: `wholes` keyed by
// their holders' coordinates on the partial mesh dims (lowest dim first),
// reduced over those dims lowest first; `reduceTypes` has each partial dim's
// type, lowest first. Used by every check that puts partial pieces together.
std::vector<double> reducePartialWholes(std::map<std::vector<int64_t>, std::vector<double>> wholes,
                                        const std::vector<ReduceType>& reduceTypes, DType dtype);

// Whether reducing over two mesh dims gives the same result in either order,
// in the element type's arithmetic: equal types, but never AVG -- its division
// rounds (i32 pieces [[0,0],[0,1],[3,2]] average to 0 by rows first, to 1 by
// columns first; floats round at the last bit), so AVG is never reordered,
// even with SUM or another AVG, exact as those are in real numbers (the
// differential test, seeds 25333 and 25540).
bool reducesCommute(ReduceType a, ReduceType b);

}  // namespace reshardctl
