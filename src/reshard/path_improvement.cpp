#include "reshard/path_improvement.h"

#include <numeric>

namespace reshardctl {

namespace {

constexpr double kEpsilonUs = 1e-9;

class PathImprover {
 public:
  PathImprover(const ProcessMesh& mesh, std::vector<Placements> waypoints, const TensorSpec& tensor,
               const CostModel& costs)
      : mesh_(mesh.shape, {}, false), waypoints_(std::move(waypoints)), tensor_(tensor), costs_(costs) {}

  std::vector<Placements> run() {
    for (int pass = 0; pass < kImprovementPasses; ++pass) {
      const bool shortened = shortcut();
      const bool swapped = swapAdjacent();
      if (!shortened && !swapped) break;
    }
    return std::move(waypoints_);
  }

 private:
  double hop(const Placements& a, const Placements& b) const { return hopCost(mesh_, a, b, tensor_, costs_); }

  double segmentCost(size_t from, size_t to) const {
    double sum = 0;
    for (size_t i = from; i < to; ++i) sum += hop(waypoints_[i], waypoints_[i + 1]);
    return sum;
  }

  bool shortcut() {
    bool improved = false;
    for (size_t i = 0; i + 2 < waypoints_.size(); ++i)
      for (size_t j = waypoints_.size() - 1; j >= i + 2; --j) {
        const double direct = hop(waypoints_[i], waypoints_[j]);
        if (direct < 0 || direct > segmentCost(i, j) + kEpsilonUs) continue;
        waypoints_.erase(waypoints_.begin() + static_cast<std::ptrdiff_t>(i + 1),
                         waypoints_.begin() + static_cast<std::ptrdiff_t>(j));
        improved = true;
        break;
      }
    return improved;
  }

  bool swapAdjacent() {
    bool improved = false;
    for (size_t i = 0; i + 2 < waypoints_.size(); ++i) {
      const Placements& a = waypoints_[i];
      const Placements& c = waypoints_[i + 2];
      const int64_t first = changedMeshDim(a, waypoints_[i + 1]);
      const int64_t second = changedMeshDim(waypoints_[i + 1], c);
      if (first < 0 || second < 0 || first == second) continue;
      Placements middle = a;
      middle[static_cast<size_t>(second)] = c[static_cast<size_t>(second)];
      const double there = hop(a, middle);
      const double back = hop(middle, c);
      if (there < 0 || back < 0 || there + back >= segmentCost(i, i + 2) - kEpsilonUs) continue;
      waypoints_[i + 1] = std::move(middle);
      improved = true;
    }
    return improved;
  }

  ProcessMesh mesh_;  // the shape only: costs do not depend on process ids
  std::vector<Placements> waypoints_;
  const TensorSpec& tensor_;
  const CostModel& costs_;
};

}  // namespace

int64_t changedMeshDim(const Placements& a, const Placements& b) {
  int64_t changed = -1;
  for (size_t dim = 0; dim < a.size() && dim < b.size(); ++dim) {
    if (a[dim] == b[dim]) continue;
    if (changed >= 0) return -2;
    changed = static_cast<int64_t>(dim);
  }
  return changed;
}

double hopCost(const ProcessMesh& mesh, const Placements& a, const Placements& b, const TensorSpec& tensor,
               const CostModel& costs) {
  const auto edge = placementChange({mesh, a}, b, tensor, costs, StepDetail::CostOnly);
  return edge ? edge->cost : -1.0;
}

std::vector<Placements> improvePath(const ProcessMesh& mesh, std::vector<Placements> waypoints,
                                    const TensorSpec& tensor, const CostModel& costs) {
  return PathImprover(mesh, std::move(waypoints), tensor, costs).run();
}

}  // namespace reshardctl
