// The page's dataflow picture: a GraphLayout drawn as inline SVG, built by
// the tool itself (no script library, no network). Each op is a box (its
// name and results, or a reshard's placements and cost) with the op's brief
// line as tooltip; reshards are filled with their cost's heat colour, a
// reshard between meshes has a dashed border; box borders take their mesh's
// colour. Boxes carry data-op (the row id) and data-def (the values they
// define) for the page's search and links.
#pragma once

#include "view/brief_view.h"
#include "view/graph_layout.h"
#include "view/html_writer.h"
#include "view/view_context.h"

namespace reshardctl {

// Writes the picture into the page `out`.
void drawSvgGraph(HtmlWriter& out, ViewContext& view, const GraphLayout& layout, BriefFormatter& brief);

}  // namespace reshardctl
