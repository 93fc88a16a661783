// One program run on its own, as one process runs it: each op's kernel once
// on the values at hand, no ranks, no comparison. `validate --lowered`
// (schedule/lowered_run.h) runs the serial dist program this way, and each
// rank's lowered dense program, whose types are the rank's local shapes.
// The hooks hold what differs from the serial program: where program inputs
// come from, where a piece sits in its global tensor, what a communication
// op does, and who sees each op's results. The interpreter's walk (control
// flow, releases, the work meter, what is not simulated) is validate's own.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "exec/execution_backend.h"
#include "interp/tensor.h"
#include "interp/validation.h"
#include "ir/ir.h"

namespace reshardctl {

using OpResults = std::vector<std::optional<Tensor>>;

struct LocalRunHooks {
  // The program is one rank's: its kernels see a rank (ExecutionSite::serial()
  // is false, so an id outside the rank's rows of a table is a zero row, as
  // in a vocabulary-parallel embedding).
  bool onRank = false;
  // Result `i` of a program input op (pd_op.data, ...); nullopt: seeded as validate seeds it.
  std::function<std::optional<Tensor>(const Operation& op, size_t i)> programInput;
  // The program body's block argument `k`; nullopt: seeded.
  std::function<std::optional<Tensor>(size_t k)> argument;
  // Block argument `k` as seeded, where `argument` gave none: the serial
  // run keeps it, so each rank's run can take its piece.
  std::function<void(size_t k, const Tensor& seeded)> seededArgument;
  // Where operand `i`'s piece starts in its global tensor; nullopt: at zero.
  std::function<std::optional<Shape>(const Operation& op, size_t i)> operandOffset;
  // A communication op's results; nullopt: `op` is not one (its kernel runs).
  // It may block (the other ranks run meanwhile) and may throw to end the run.
  std::function<std::optional<OpResults>(const Operation& op, const std::vector<const Tensor*>& operands)> communicate;
  // Each op's operands and results once it ran (a reshard: its input and itself).
  std::function<void(const Operation& op, const std::vector<const Tensor*>& operands, const OpResults& results)>
      observe;
};

// The outcome counts an op matched when it ran; `divergences` stays empty.
// Throws as validateProgram does, and what the hooks throw.
ValidationOutcome runLocal(const Program& program, ExecutionBackend& backend, const ValidateOptions& options,
                           const LocalRunHooks& hooks);

}  // namespace reshardctl
