// The alpha-beta cost model the planner minimises: every collective pays a launch
// latency, a per-hop latency on its mesh dim's link, and its bus bytes over that
// link's bandwidth, with the ring factors nccl-tests uses to turn algorithm
// bandwidth into bus bandwidth (all_reduce 2(k-1)/k, the others (k-1)/k).
//
// Defaults describe one NVLink4 node of H100/H200 GPUs (docs/nccl.md, "Reference
// figures"): 370 GB/s bus bandwidth per direction, the NCCL ring figure for
// all_gather/reduce_scatter/all-to-all; 0.6 µs per hop and 6.6 µs per launch, as
// DTensor's model. A move between meshes is a pipeline hop: to another node it
// crosses the network, 50 GB/s (one 400 Gb/s NDR NIC per GPU) and 2.7 µs
// (DTensor's inter-host latency); within a node (8 GPUs, process ids numbered
// node by node as launchers number ranks) it stays on NVLink, 370 GB/s and
// 0.6 µs. Local steps copy in HBM: 2400 GB/s (4.8 TB/s read plus write) and
// 2 µs per kernel launch.
#pragma once

#include <cstdint>
#include <vector>

#include "reshard/plan.h"

namespace reshardctl {

// nccl-tests' bus bytes of one step (doc/PERFORMANCE.md there; docs/nccl.md, "Bandwidth"):
// the bytes a ring moves over the slowest link, from the step's per-rank buffer
// (Step::bytesPerRank). all_reduce: 2(k-1)/k of the buffer; reduce_scatter and
// all-to-all: (k-1)/k of the input (k blocks); all_gather: (k-1)/k of the
// gathered total, which is k send buffers, so (k-1) of them; send_recv: the
// busiest process's bytes; local steps and groups of one: nothing on a link.
// The cost model prices these bytes and `run` reports them over time as busbw.
double busBytes(StepKind kind, int64_t groupSize, int64_t bytesPerRank);

struct LinkSpec {
  double bandwidthGBs = 370.0;  // bus bandwidth, GB/s (1e9 bytes)
  double latencyUs = 0.6;       // per ring hop
};

struct CostModel {
  std::vector<LinkSpec> meshDims;  // per mesh dim; dims past the end use `link`
  LinkSpec link;
  LinkSpec crossMesh{50.0, 2.7};
  // The processes of one node are ids [k*n, (k+1)*n) for n = processesPerNode
  // (1: every process a node of its own); a move between meshes whose pairs all
  // stay within nodes takes `withinNode`, NVLink, rather than the network, as
  // DTensor's MeshTopoInfo.build_from_mesh (torch/distributed/tensor/
  // _collective_utils.py) prices mesh dims within a host on NVLink's figures.
  // [0,1] -> [2,3] is two pipeline stages of one node.
  int64_t processesPerNode = 8;
  LinkSpec withinNode{370.0, 0.6};
  double launchUs = 6.6;
  double localBandwidthGBs = 2400.0;
  double localLaunchUs = 2.0;

  const LinkSpec& linkFor(int64_t meshDim) const;
  // The least bandwidth and the most latency among the mesh dims `dims` (not empty): a
  // transfer across all of them is as slow as that.
  LinkSpec slowestLink(const std::vector<int64_t>& dims) const;
  // Links from per-mesh-dim lists (`--bandwidth 370,50 --latency 0.6`): entry i
  // describes mesh dim i, and the last entry of each list also every dim past it.
  // An empty list keeps the current default.
  void setMeshDimLinks(const std::vector<double>& bandwidthsGBs, const std::vector<double>& latenciesUs);

  // A collective on groups of `groupSize` ranks along `meshDim`, whose per-rank
  // buffer is `bytesPerRank` (see Step::bytesPerRank). Groups of one cost nothing.
  double collectiveUs(StepKind kind, int64_t groupSize, int64_t bytesPerRank, int64_t meshDim) const;
  // The same over the flattened group of several mesh dims, on the slowest of
  // their links (the least bandwidth, the most latency): a ring over them
  // crosses every one.
  double collectiveUs(StepKind kind, int64_t groupSize, int64_t bytesPerRank,
                      const std::vector<int64_t>& flattenedDims) const;
  bool sameNode(int64_t processA, int64_t processB) const;
  // A send_recv between meshes in which no process sends or receives more than
  // `maxBytes` across the network; moves that stay on one process are free.
  double sendRecvUs(int64_t maxBytes) const;
  // The same where every pair stays within a node: the node's link, one hop's
  // latency per peer of the process with the most peers, as pointToPointUs.
  double withinNodeUs(int64_t maxBytes, int64_t peers) const;
  // A send_recv among the processes of one mesh (a permutation of pieces): the
  // busiest process's bytes over the slowest link among the mesh dims its pairs
  // cross, and one hop's latency per peer of the process with the most peers
  // (so a send_recv that gathers from k-1 peers costs what a ring all_gather
  // does); nothing crossed costs nothing.
  double pointToPointUs(int64_t maxBytes, const std::vector<int64_t>& crossedDims, int64_t peers) const;
  // A local step writing `bytes` per rank.
  double localUs(int64_t bytes) const;

 private:
  // Point-to-point pairs in one group call: the busiest process's bytes over
  // `spec`, one hop's latency per peer.
  double pairsUs(int64_t maxBytes, const LinkSpec& spec, int64_t peers) const;
};

}  // namespace reshardctl
