// Which ops a view shows: all of them, or the neighbourhood of one value
// (`--focus %N --depth K`): the ops within K dataflow steps of the op that
// defines it, found by a breadth-first search that touches only those ops and
// their uses. The region ops around a chosen op are shown too, as context.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "view/view_context.h"

namespace reshardctl {

class OpSelection {
 public:
  static OpSelection all(const OpIndex& ops);

  bool isAll() const { return all_; }
  bool chosen(size_t opIndex) const { return all_ || chosen_[opIndex]; }
  // Chosen, or a region op around a chosen op.
  bool shown(size_t opIndex) const { return all_ || shown_[opIndex]; }
  size_t shownCount() const { return shownCount_; }
  std::string_view focus() const { return focus_; }

 private:
  friend std::optional<OpSelection> selectNeighbourhood(ViewContext&, std::string_view, int, std::string*);
  bool all_ = true;
  std::vector<bool> chosen_;
  std::vector<bool> shown_;
  size_t shownCount_ = 0;
  std::string focus_;
};

// The ops within `depth` steps of the op defining `valueName` ("%9",
// "%arg_0", "%kwarg_x"; for a block argument, its users and its region op).
// A step goes from an op to the producers of its operands, to the users of
// its results, between a region op and each region's last op (the yield),
// and from a block argument to its region op. nullopt and `error` set when
// no value has that name.
std::optional<OpSelection> selectNeighbourhood(ViewContext& view, std::string_view valueName, int depth,
                                               std::string* error);

}  // namespace reshardctl
