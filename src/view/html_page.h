// `print --emit=html`: one self-contained page (inline CSS, script and SVG;
// nothing fetched) to attach to a pull request: the per-mesh summary
// (reshards, bytes, estimated time), the dataflow picture (svg_graph.h),
// every reshard with its plan steps and cost, with --compare the program
// before `apply` beside this one, and the listing: the brief view, one row
// per op, attributes folded under each row. A search box finds a value by
// name (its definition and uses, in the listing and the picture).
//
// Large programs: the listing, the reshard cards and the comparison inline
// at most `maxOps` rows each (the summary always counts everything), and the
// picture is drawn only up to kMaxGraphNodes ops; --focus cuts a
// neighbourhood that fits.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "view/op_selection.h"
#include "view/view_context.h"

namespace reshardctl {

inline constexpr size_t kMaxGraphNodes = 1500;

struct HtmlOptions {
  std::vector<std::string> shownAttributes;  // listed first among each op's attributes
  size_t maxOps = 5000;
  ViewContext* before = nullptr;  // --compare: the program before apply
};

std::string writeHtml(ViewContext& view, const OpSelection& selection, const HtmlOptions& options);

}  // namespace reshardctl
