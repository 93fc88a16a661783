#include "reshard/placement.h"

#include <doctest/doctest.h>

using namespace reshardctl;

namespace {
TensorDistAttr attrOn(ProcessMesh mesh, std::vector<int64_t> dims, std::vector<PartialDim> partials = {}) {
  TensorDistAttr attr;
  attr.mesh = std::move(mesh);
  attr.dimsMapping = std::move(dims);
  attr.partials = std::move(partials);
  return attr;
}
const ProcessMesh kMesh2x2{{2, 2}, {0, 1, 2, 3}, true};
}  // namespace

TEST_CASE("placement: dims_mapping and partials become one placement per mesh dim") {
  // Tensor dim 1 split over mesh dim 0, mesh dim 1 partial MAX.
  const Placements placements = toPlacements(attrOn(kMesh2x2, {-1, 0}, {{1, ReduceType::Max}}));
  REQUIRE(placements.size() == 2);
  CHECK(placements[0] == Placement::shard(1));
  CHECK(placements[1] == Placement::partial(ReduceType::Max));
  CHECK(placementsText(placements) == "[S(1),P(MAX)]");
}

TEST_CASE("placement: conversion back to a dist attr round-trips") {
  const TensorDistAttr original = attrOn(kMesh2x2, {1, -1, 0}, {});
  const TensorDistAttr back = toDistAttr(toLayout(original), 3);
  CHECK(back == original);
  const TensorDistAttr partial = attrOn(kMesh2x2, {-1, -1}, {{0, ReduceType::Avg}, {1, ReduceType::Sum}});
  CHECK(toDistAttr(toLayout(partial), 2) == partial);
}

TEST_CASE("placement: attrs no placement list can express are rejected") {
  CHECK_THROWS_AS(toPlacements(attrOn(kMesh2x2, {0, 0})), LayoutError);        // two tensor dims, one mesh dim
  CHECK_THROWS_AS(toPlacements(attrOn(kMesh2x2, {2, -1})), LayoutError);       // no mesh dim 2
  CHECK_THROWS_AS(toPlacements(attrOn(kMesh2x2, {0}, {{0, ReduceType::Sum}})), LayoutError);  // split and partial
}

TEST_CASE("placement: a strided or co-sharded Shard is refused, a plain placements text read as dims_mapping says") {
  TensorDistAttr attr = attrOn(kMesh2x2, {0, -1});
  attr.placements = "[Shard(dim=0), Replicate()]";
  CHECK(toPlacements(attr)[0] == Placement::shard(0));
  attr.placements = "[Shard(dim=0, split_factor=3), Replicate()]";
  CHECK_THROWS_WITH_AS(toPlacements(attr),
                       "its placements name a split_factor: a layout dims_mapping does not describe, not modelled",
                       LayoutError);
  attr.placements = "[Shard(dim=0, shard_order=0), Shard(dim=0, shard_order=1)]";
  CHECK_THROWS_AS(toPlacements(attr), LayoutError);
}

TEST_CASE("placement: representable layouts split each tensor dim at most once") {
  CHECK(isRepresentable({Placement::shard(0), Placement::shard(1)}, 2));
  CHECK_FALSE(isRepresentable({Placement::shard(0), Placement::shard(0)}, 2));
  CHECK_FALSE(isRepresentable({Placement::shard(2)}, 2));
  CHECK(isRepresentable({Placement::partial(ReduceType::Sum), Placement::replicate()}, 0));
}

TEST_CASE("placement: layout text names the mesh") {
  const Layout layout{kMesh2x2, {Placement::shard(0), Placement::replicate()}};
  CHECK(layoutText(layout) == "mesh[2,2](0,1,2,3) [S(0),R]");
  const Layout unknownIds{ProcessMesh{{2}, {}, false}, {Placement::partial(ReduceType::Sum)}};
  CHECK(layoutText(unknownIds) == "mesh[2] [P(SUM)]");
  CHECK(meshText(kMesh2x2) == "mesh[2,2](0,1,2,3)");
}
