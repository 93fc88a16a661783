// A layered layout of the chosen ops, for the page's own SVG picture (no
// Graphviz needed): an op's layer is one below the lowest of its producers;
// a region op sits below its blocks, whose ops start below the region op's
// producers. Within a layer, ops are ordered by the mean position of their
// producers (one barycenter sweep). Everything is linear in the ops and
// edges but the per-layer sort.
#pragma once

#include <cstddef>
#include <vector>

#include "view/op_selection.h"
#include "view/view_context.h"

namespace reshardctl {

struct LayoutNode {
  size_t op = 0;        // OpIndex
  size_t layer = 0;
  size_t position = 0;  // order within its layer
};

struct LayoutEdge {
  size_t from = 0;  // nodes[]
  size_t to = 0;
  const Value* value = nullptr;
};

struct GraphLayout {
  std::vector<LayoutNode> nodes;
  std::vector<LayoutEdge> edges;
  std::vector<size_t> layerSizes;  // ops per layer

  size_t widestLayer() const;
};

// Edges join chosen ops; a block argument's uses have no edge (the page's
// listing shows them).
GraphLayout layoutGraph(const ViewContext& view, const OpSelection& selection);

}  // namespace reshardctl
