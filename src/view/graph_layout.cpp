#include "view/graph_layout.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace reshardctl {

size_t GraphLayout::widestLayer() const {
  return layerSizes.empty() ? 0 : *std::max_element(layerSizes.begin(), layerSizes.end());
}

namespace {

class Layering {
 public:
  Layering(const ViewContext& view, const OpSelection& selection) : view_(view), selection_(selection) {}

  GraphLayout run() {
    block(*view_.program.body(), 0);
    lowerSources();
    order();
    return std::move(layout_);
  }

 private:
  // Lays out a block whose ops go no higher than `base`; returns the lowest
  // layer it used, nullopt when none of its ops is chosen.
  std::optional<size_t> block(const Block& block, size_t base) {
    std::optional<size_t> deepest;
    for (const Operation* op : block) {
      size_t layer = base;
      for (size_t i = 0; i < op->numOperands(); ++i)
        if (const size_t* from = nodeOf(op->operandValue(i))) layer = std::max(layer, layout_.nodes[*from].layer + 1);
      for (const Block* region : op->regions())
        if (const std::optional<size_t> inner = this->block(*region, layer)) layer = std::max(layer, *inner + 1);
      const size_t index = view_.ops.indexOf(*op);
      if (!selection_.chosen(index)) continue;
      addNode(*op, index, layer);
      deepest = std::max(deepest.value_or(0), layer);
    }
    return deepest;
  }

  const size_t* nodeOf(const Value* value) const {
    if (!value || !value->definingOp) return nullptr;
    auto found = nodeByOp_.find(value->definingOp);
    return found == nodeByOp_.end() ? nullptr : &found->second;
  }

  void addNode(const Operation& op, size_t index, size_t layer) {
    const size_t node = layout_.nodes.size();
    layout_.nodes.push_back({index, layer, 0});
    nodeByOp_.emplace(&op, node);
    for (size_t i = 0; i < op.numOperands(); ++i)
      if (const size_t* from = nodeOf(op.operandValue(i))) layout_.edges.push_back({*from, node, op.operandValue(i)});
  }

  // An op without inputs (data, parameters, constants) moves down to just
  // above its first user, so its arrows stay short.
  void lowerSources() {
    constexpr size_t kNone = static_cast<size_t>(-1);
    std::vector<bool> hasInput(layout_.nodes.size(), false);
    std::vector<size_t> firstUse(layout_.nodes.size(), kNone);
    for (const LayoutEdge& edge : layout_.edges) {
      hasInput[edge.to] = true;
      firstUse[edge.from] = std::min(firstUse[edge.from], layout_.nodes[edge.to].layer);
    }
    for (size_t node = 0; node < layout_.nodes.size(); ++node)
      if (!hasInput[node] && firstUse[node] != kNone && firstUse[node] > 0)
        layout_.nodes[node].layer = std::max(layout_.nodes[node].layer, firstUse[node] - 1);
  }

  // Positions in creation order, then one sweep from the top: each layer
  // sorted by the mean position of its nodes' producers (nodes without one
  // keep their place).
  void order() {
    for (LayoutNode& node : layout_.nodes) {
      if (layout_.layerSizes.size() <= node.layer) layout_.layerSizes.resize(node.layer + 1, 0);
      node.position = layout_.layerSizes[node.layer]++;
    }
    std::vector<std::vector<size_t>> inputs(layout_.nodes.size());
    for (const LayoutEdge& edge : layout_.edges) inputs[edge.to].push_back(edge.from);
    std::vector<std::vector<size_t>> layers(layout_.layerSizes.size());
    for (size_t node = 0; node < layout_.nodes.size(); ++node) layers[layout_.nodes[node].layer].push_back(node);
    std::vector<double> key(layout_.nodes.size(), 0);
    for (std::vector<size_t>& layer : layers) {
      for (size_t node : layer) {
        double sum = 0;
        for (size_t from : inputs[node]) sum += static_cast<double>(layout_.nodes[from].position);
        key[node] = inputs[node].empty() ? static_cast<double>(layout_.nodes[node].position)
                                         : sum / static_cast<double>(inputs[node].size());
      }
      std::stable_sort(layer.begin(), layer.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
      for (size_t i = 0; i < layer.size(); ++i) layout_.nodes[layer[i]].position = i;
    }
  }

  const ViewContext& view_;
  const OpSelection& selection_;
  GraphLayout layout_;
  std::unordered_map<const Operation*, size_t> nodeByOp_;
};

}  // namespace

GraphLayout layoutGraph(const ViewContext& view, const OpSelection& selection) {
  return Layering(view, selection).run();
}

}  // namespace reshardctl
