// An independent reference of the partition pass's decision, written from
// docs/format.md ("Distribution") and docs/passes.md ("apply_partition_pass"),
// not from src/: which operands need a reshard, from what layout to what, on
// which op mesh, and the exact text the new reshard prints. It reads the
// ProgramModel, seeing each layout as a reader of the chosen generation's text
// would (generation A hides process ids the op mesh does not give).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "program_model.h"

namespace differential {

struct ExpectedReshard {
  int op = -1;         // the consumer
  size_t operand = 0;  // which of its operands
  int value = -1;      // the value resharded
  DistView src, dst;
  MeshView opMesh;
  bool buildable = true;  // the op mesh's process ids are known
  bool plannable = true;  // no ANY/ALL below another type in a non-bool destination
  std::string attributes;  // `{op_dist_attr:{..},...}` as it must print
  std::string resultType;
  std::string srcText, dstText;  // the type dist texts `apply --check` names
};

struct Expectation {
  std::vector<ExpectedReshard> reshards;  // in insertion order: nested blocks first, then operands in order
  bool applies() const;                   // every reshard can be built
};

Expectation referencePass(const ProgramModel& program, Gen gen);

// The layout of `value` as the generation's reader sees it; false when it is
// not distributed (dense or null).
bool visibleLayout(const ProgramModel& program, int value, Gen gen, DistView* out);

}  // namespace differential
