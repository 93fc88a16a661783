#include "reshard/plan.h"

#include <array>

namespace reshardctl {

std::string_view stepKindName(StepKind kind) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "slice", "partial_init", "send_recv", "scale"};
  return kNames[static_cast<size_t>(kind)];
}

bool isLocalStep(StepKind kind) {
  return kind == StepKind::Slice || kind == StepKind::PartialInit || kind == StepKind::Scale;
}

std::string_view searchKindName(SearchKind kind) {
  return kind == SearchKind::Exact ? "exact" : "dim_by_dim";
}

}  // namespace reshardctl
