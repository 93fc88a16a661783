#include "lower/process_groups.h"

#include <doctest/doctest.h>

namespace reshardctl {

TEST_CASE("process groups: ids in first-made order, found again by the exact rank list") {
  ProcessGroups groups;
  CHECK(groups.ringOf({0, 1}) == 12);
  CHECK(groups.ringOf({0, 2}) == 13);
  CHECK(groups.ringOf({0, 1}) == 12);
  CHECK(groups.ringOf({1, 0}) == 14);  // p2p groups keep their order: [dst, src] is another group
  CHECK(groups.sizeOf(13) == 2);
  CHECK(groups.sizeOf(99) == 0);
  CHECK(groups.count() == 3);
}

}  // namespace reshardctl
