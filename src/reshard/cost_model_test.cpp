#include "reshard/cost_model.h"

#include <doctest/doctest.h>

using namespace reshardctl;

TEST_CASE("cost model: alpha-beta time of each collective") {
  CostModel costs;
  costs.link = {100.0, 1.0};  // 100 GB/s = 1e5 bytes per microsecond
  costs.launchUs = 5.0;
  const int64_t bytes = 4'000'000;
  // all_reduce: 2(k-1) hops and 2(k-1)/k of the buffer on the bus.
  CHECK(costs.collectiveUs(StepKind::AllReduce, 4, bytes, 0) == doctest::Approx(5.0 + 6 * 1.0 + 1.5 * 40.0));
  // reduce_scatter and all-to-all: (k-1)/k of the input buffer.
  CHECK(costs.collectiveUs(StepKind::ReduceScatter, 4, bytes, 0) == doctest::Approx(5.0 + 3 + 0.75 * 40.0));
  CHECK(costs.collectiveUs(StepKind::AllToAll, 4, bytes, 0) == doctest::Approx(5.0 + 3 + 0.75 * 40.0));
  // all_gather: the send buffer is 1/k of the result, so (k-1) times it moves.
  CHECK(costs.collectiveUs(StepKind::AllGather, 4, bytes, 0) == doctest::Approx(5.0 + 3 + 3 * 40.0));
  CHECK(costs.collectiveUs(StepKind::AllReduce, 1, bytes, 0) == 0.0);
}

TEST_CASE("cost model: each mesh dim has its own link") {
  CostModel costs;
  costs.meshDims = {{100.0, 0.0}, {10.0, 0.0}};
  const double fast = costs.collectiveUs(StepKind::AllGather, 2, 1'000'000, 0);
  const double slow = costs.collectiveUs(StepKind::AllGather, 2, 1'000'000, 1);
  CHECK(slow - costs.launchUs == doctest::Approx(10 * (fast - costs.launchUs)));
  CHECK(&costs.linkFor(5) == &costs.link);  // dims past the list use the default link
}

TEST_CASE("cost model: moves between meshes and local steps") {
  CostModel costs;
  costs.crossMesh = {50.0, 2.0};
  costs.launchUs = 4.0;
  CHECK(costs.sendRecvUs(5'000'000) == doctest::Approx(4.0 + 2.0 + 100.0));
  CHECK(costs.sendRecvUs(0) == 0.0);  // everything stayed on its process
  costs.localBandwidthGBs = 1000.0;
  costs.localLaunchUs = 1.0;
  CHECK(costs.collectiveUs(StepKind::Slice, 4, 1'000'000, 0) == doctest::Approx(1.0 + 1.0));
}

TEST_CASE("cost model: defaults are an NVLink node with a slower link between meshes") {
  const CostModel costs;
  CHECK(costs.link.bandwidthGBs > costs.crossMesh.bandwidthGBs);
  CHECK(costs.localBandwidthGBs > costs.link.bandwidthGBs);
}

TEST_CASE("cost model: per-mesh-dim lists, the last entry repeating") {
  CostModel costs;
  costs.setMeshDimLinks({370.0, 25.0}, {0.5});
  REQUIRE(costs.meshDims.size() == 2);
  CHECK(costs.linkFor(0).bandwidthGBs == 370.0);
  CHECK(costs.linkFor(1).bandwidthGBs == 25.0);
  CHECK(costs.linkFor(3).bandwidthGBs == 25.0);
  CHECK(costs.linkFor(1).latencyUs == 0.5);
  CHECK(costs.linkFor(3).latencyUs == 0.5);
  const double defaultLatency = CostModel{}.link.latencyUs;
  costs = CostModel{};
  costs.setMeshDimLinks({100.0}, {});
  CHECK(costs.linkFor(2).latencyUs == defaultLatency);
  CHECK(costs.linkFor(2).bandwidthGBs == 100.0);
}

TEST_CASE("cost model: processes are numbered node by node; within a node a move between meshes is on NVLink") {
  CostModel costs;
  costs.processesPerNode = 4;
  CHECK(costs.sameNode(0, 3));
  CHECK_FALSE(costs.sameNode(3, 4));
  CHECK(costs.sameNode(5, 7));
  costs.withinNode = {100.0, 1.0};
  costs.launchUs = 4.0;
  // One hop's latency per peer, the busiest process's bytes over the node's link.
  CHECK(costs.withinNodeUs(1'000'000, 2) == doctest::Approx(4.0 + 2 * 1.0 + 10.0));
  CHECK(costs.withinNodeUs(0, 2) == 0.0);
  costs.processesPerNode = 1;  // every process a node of its own
  CHECK_FALSE(costs.sameNode(0, 1));
  CHECK(costs.sameNode(2, 2));
}
