#include "view/listing_walk.h"

namespace reshardctl {

namespace {

class ListingWalk {
 public:
  ListingWalk(const OpSelection& selection, const std::function<bool(const ListingRow&)>& row)
      : selection_(selection), row_(row) {}

  // Ops come in the OpIndex's order (the same walk), so `next_` is each op's
  // index. Returns false once the callback asked to stop.
  bool block(const Block& block, size_t depth) {
    bool skipped = false;
    for (const Operation* op : block) {
      const size_t index = next_++;
      if (!selection_.shown(index)) {
        skipped = true;
        skipNested(*op);
        continue;
      }
      if (skipped && !row_({ListingRow::Kind::Gap, depth, index, 0})) return false;
      skipped = false;
      if (!row_({ListingRow::Kind::Op, depth, index, 0})) return false;
      for (size_t r = 0; r < op->regions().size(); ++r) {
        if (!row_({ListingRow::Kind::Region, depth + 1, index, r})) return false;
        if (!this->block(*op->regions()[r], depth + 2)) return false;
      }
    }
    return !skipped || row_({ListingRow::Kind::Gap, depth, next_, 0});
  }

 private:
  // An op left out takes its nested ops with it (a shown op's region ops are
  // shown too, so none of them is).
  void skipNested(const Operation& op) {
    for (const Block* region : op.regions())
      for (const Operation* inner : *region) {
        ++next_;
        skipNested(*inner);
      }
  }

  const OpSelection& selection_;
  const std::function<bool(const ListingRow&)>& row_;
  size_t next_ = 0;
};

}  // namespace

void walkListing(const ViewContext& view, const OpSelection& selection,
                 const std::function<bool(const ListingRow&)>& row) {
  ListingWalk(selection, row).block(*view.program.body(), 0);
}

}  // namespace reshardctl
