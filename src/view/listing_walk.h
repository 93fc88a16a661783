// The rows of a listing of the program, in print order: each shown op, a
// header row above each region of a region op, and a gap row where a focus
// left ops out. The brief text and the page's listing are both this walk.
#pragma once

#include <cstddef>
#include <functional>

#include "view/op_selection.h"
#include "view/view_context.h"

namespace reshardctl {

struct ListingRow {
  enum class Kind { Op, Region, Gap };
  Kind kind = Kind::Op;
  size_t depth = 0;    // indentation level: a region's header is one below its op, its ops two
  size_t opIndex = 0;  // Op: the op; Region: the region op
  size_t region = 0;   // Region
};

// Calls `row` for every row until it returns false.
void walkListing(const ViewContext& view, const OpSelection& selection,
                 const std::function<bool(const ListingRow&)>& row);

}  // namespace reshardctl
