// The ops the partition pass visits, found on the run's threads. The pass
// reads every op but changes few (a fifth of the varied bench program's),
// and deciding that an op needs nothing (each operand's layout against its
// entry) was most of its time on one thread. The search only reads the
// graph; the pass's Rewriter then changes it on one thread, visiting the
// ops found in the order its walk would, so the output is the serial walk's.
#pragma once

#include <functional>
#include <vector>

#include "ir/ir.h"

namespace reshardctl {

// The ops of `program` for which `visit` holds, in the partition pass's walk
// order: a block's ops in order, an op's nested blocks before the op.
// `visit` is called on several threads at once and must only read.
std::vector<Operation*> opsToVisit(const Program& program, const std::function<bool(const Operation&)>& visit);

}  // namespace reshardctl
