#include "reshard/local_box.h"

#include <doctest/doctest.h>

using namespace reshardctl;

TEST_CASE("local box: chunks of ceil(n/k), the last ones shorter or empty") {
  using Range = std::pair<int64_t, int64_t>;
  CHECK(chunkRange(5, 4, 0) == Range{0, 2});
  CHECK(chunkRange(5, 4, 1) == Range{2, 4});
  CHECK(chunkRange(5, 4, 2) == Range{4, 5});
  CHECK(chunkRange(5, 4, 3) == Range{5, 5});
  CHECK(chunkRange(2, 4, 2) == Range{2, 2});  // more ranks than rows
  CHECK(chunkRange(8, 2, 1) == Range{4, 8});
  CHECK(chunkRange(0, 3, 0) == Range{0, 0});
}

TEST_CASE("local box: a rank's box on a 2-D mesh") {
  const Layout layout{ProcessMesh{{2, 3}, {0, 1, 2, 3, 4, 5}, true},
                      {Placement::shard(1), Placement::shard(0)}};
  const Box box = localBox({7, 5}, layout, {1, 2});
  // Tensor dim 0 (7) over mesh dim 1 (3): chunk 3, coordinate 2 -> [6,7).
  // Tensor dim 1 (5) over mesh dim 0 (2): chunk 3, coordinate 1 -> [3,5).
  CHECK(box.begin == std::vector<int64_t>{6, 3});
  CHECK(box.end == std::vector<int64_t>{7, 5});
  CHECK(paddedLocalShape({7, 5}, layout) == std::vector<int64_t>{3, 3});
}

TEST_CASE("local box: partial and replicated mesh dims keep the whole dim") {
  const Layout layout{ProcessMesh{{2, 2}, {0, 1, 2, 3}, true},
                      {Placement::partial(ReduceType::Sum), Placement::replicate()}};
  CHECK(localBox({4, 6}, layout, {1, 1}) == fullBox({4, 6}));
}

TEST_CASE("local box: intersections and containment") {
  const Box a{{0, 0}, {4, 4}};
  const Box b{{2, 3}, {6, 5}};
  CHECK(intersect(a, b) == Box{{2, 3}, {4, 4}});
  CHECK(intersect(a, Box{{5, 0}, {6, 4}}).empty());
  CHECK(contains(a, Box{{1, 1}, {2, 2}}));
  CHECK_FALSE(contains(a, b));
  CHECK(contains(a, Box{{9, 9}, {9, 9}}));  // empty boxes fit anywhere
  CHECK(Box{{}, {}}.volume() == 1);         // a 0-D tensor has one element
}
