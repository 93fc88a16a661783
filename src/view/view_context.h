// Everything the views share about one program, computed once in a few
// linear walks: the ops in print order, their meshes, the value labels and
// every reshard's plan and cost.
#pragma once

#include "ir/ir.h"
#include "ir/source.h"
#include "reshard/cost_model.h"
#include "view/mesh_table.h"
#include "view/op_index.h"
#include "view/reshard_costs.h"
#include "view/value_labels.h"

namespace reshardctl {

struct ViewContext {
  ViewContext(const Program& theProgram, const SourceFile& theSource, const CostModel& costs)
      : program(theProgram), source(theSource), ops(theProgram), meshes(ops), labels(theProgram),
        reshards(theProgram, theSource, costs) {}
  ViewContext(const ViewContext&) = delete;
  ViewContext& operator=(const ViewContext&) = delete;

  const Program& program;
  const SourceFile& source;
  OpIndex ops;
  MeshTable meshes;
  ValueLabels labels;
  ReshardCosts reshards;
};

}  // namespace reshardctl
