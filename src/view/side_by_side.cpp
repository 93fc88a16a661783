#include "view/side_by_side.h"

#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "passes/program_diff.h"

namespace reshardctl {

Comparison compareSideBySide(const ViewContext& before, const ViewContext& after) {
  const ProgramDiff diff = diffPrograms(before.program, after.program, DiffOptions{});
  std::unordered_map<const Operation*, const OpChange*> changeOf;
  for (const OpChange& change : diff.changes) {
    if (change.before) changeOf.emplace(change.before, &change);
    if (change.after) changeOf.emplace(change.after, &change);
  }
  auto kindOf = [&](const Operation& op) -> std::optional<OpChange::Kind> {
    auto found = changeOf.find(&op);
    return found == changeOf.end() ? std::nullopt : std::optional(found->second->kind);
  };

  Comparison comparison;
  comparison.added = diff.count(OpChange::Kind::Added);
  comparison.removed = diff.count(OpChange::Kind::Removed);
  comparison.changed = diff.count(OpChange::Kind::Changed);
  size_t b = 0, a = 0;
  const size_t nb = before.ops.size(), na = after.ops.size();
  while (b < nb || a < na) {
    CompareRow row;
    if (b < nb && kindOf(before.ops.op(b)) == OpChange::Kind::Removed) {
      row = {CompareRow::Mark::Removed, b++, std::nullopt, ""};
    } else if (a < na && kindOf(after.ops.op(a)) == OpChange::Kind::Added) {
      row = {CompareRow::Mark::Added, std::nullopt, a++, ""};
    } else if (b < nb && a < na) {
      const auto found = changeOf.find(&after.ops.op(a));
      const bool changed = found != changeOf.end() && found->second->kind == OpChange::Kind::Changed;
      row = {changed ? CompareRow::Mark::Changed : CompareRow::Mark::Same, b++, a++,
             changed ? fmt::format("{}", fmt::join(found->second->differences, ", ")) : ""};
    } else if (b < nb) {
      row = {CompareRow::Mark::Removed, b++, std::nullopt, ""};
    } else {
      row = {CompareRow::Mark::Added, std::nullopt, a++, ""};
    }
    comparison.rows.push_back(std::move(row));
  }
  return comparison;
}

}  // namespace reshardctl
