#include "reshard/plan.h"

#include <array>

namespace reshardctl {

std::string_view stepKindName(StepKind kind) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "slice", "partial_init", "send_recv"};
  return kNames[static_cast<size_t>(kind)];
}

std::string_view searchKindName(SearchKind kind) {
  return kind == SearchKind::Exact ? "exact" : "dim_by_dim";
}

}  // namespace reshardctl
