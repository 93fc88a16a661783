// apply's before and after, row by row, for the page's comparison: ops the
// structural diff (passes/program_diff.h) matches share a row; an op only one
// side has (a reshard the pass inserted) gets a row with an empty other side.
// Both programs are walked in print order, so the rows are linear in size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "view/view_context.h"

namespace reshardctl {

struct CompareRow {
  enum class Mark { Same, Added, Removed, Changed };
  Mark mark = Mark::Same;
  std::optional<size_t> before;  // OpIndex of the before program
  std::optional<size_t> after;
  std::string differences;       // Changed: "operand 0, operand 0 type"
};

struct Comparison {
  std::vector<CompareRow> rows;
  size_t added = 0;
  size_t removed = 0;
  size_t changed = 0;
};

Comparison compareSideBySide(const ViewContext& before, const ViewContext& after);

}  // namespace reshardctl
