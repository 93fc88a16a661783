// `print --brief`: one short line per op in placement notation, nesting shown
// by indentation, attributes hidden unless asked for by name:
//
//   %6 = pd_op.matmul %5, %2  -> 4x16xf32 [S(1)]
//   %9 = dist_op.reshard %8  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us
//
// Values are named as `print` names them; reshard costs are plan's.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "support/output_sink.h"
#include "view/op_selection.h"
#include "view/view_context.h"

namespace reshardctl {

// The lines of the brief view, one op at a time (the page reuses them).
class BriefFormatter {
 public:
  // `shownAttributes`: attribute keys printed after the types, in this order.
  BriefFormatter(ViewContext& view, std::vector<std::string> shownAttributes);

  std::string opLine(size_t opIndex);
  // The line above region `region` of a region op: "then:", "else:",
  // "body(%arg_0, %arg_1):", "region 1:".
  std::string regionHeader(const Operation& op, size_t region);
  // The program's own arguments (`^kw:` in the dump), "" when it has none.
  std::string programArgumentsLine();

 private:
  void appendOperands(std::string& line, const Operation& op);
  void appendReshard(std::string& line, const Operation& op, const ReshardCost& report);
  void appendResultTypes(std::string& line, size_t opIndex);
  void appendAttributes(std::string& line, const Operation& op);

  ViewContext& view_;
  std::vector<std::string> shownAttributes_;
  bool severalMeshes_;
};

// The whole listing: two spaces per nesting level; with a focus, "..." marks
// ops left out.
std::string writeBrief(ViewContext& view, const OpSelection& selection,
                       const std::vector<std::string>& shownAttributes);
// The same written to `out` a line at a time (memory: a line, not the
// listing); `terminal`: each line escaped for a terminal (support/escape.h).
void writeBrief(ViewContext& view, const OpSelection& selection, const std::vector<std::string>& shownAttributes,
                OutputSink& out, bool terminal);

}  // namespace reshardctl
