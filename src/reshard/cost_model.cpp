#include "reshard/cost_model.h"

#include <algorithm>

namespace reshardctl {

namespace {

// bytes / (GB/s) in microseconds.
double transferUs(double bytes, double bandwidthGBs) { return bytes / (bandwidthGBs * 1e3); }

}  // namespace

double busBytes(StepKind kind, int64_t groupSize, int64_t bytesPerRank) {
  const double k = static_cast<double>(groupSize);
  const double bytes = static_cast<double>(bytesPerRank);
  switch (kind) {
    case StepKind::AllReduce: return groupSize > 1 ? bytes * 2 * (k - 1) / k : 0.0;
    case StepKind::AllGather: return groupSize > 1 ? bytes * (k - 1) : 0.0;
    case StepKind::ReduceScatter:
    case StepKind::AllToAll: return groupSize > 1 ? bytes * (k - 1) / k : 0.0;
    case StepKind::SendRecv: return bytes;
    case StepKind::Slice:
    case StepKind::PartialInit:
    case StepKind::Scale: return 0.0;
  }
  return 0.0;
}

LinkSpec CostModel::slowestLink(const std::vector<int64_t>& dims) const {
  LinkSpec spec = linkFor(dims.front());
  for (int64_t meshDim : dims) {
    spec.bandwidthGBs = std::min(spec.bandwidthGBs, linkFor(meshDim).bandwidthGBs);
    spec.latencyUs = std::max(spec.latencyUs, linkFor(meshDim).latencyUs);
  }
  return spec;
}

const LinkSpec& CostModel::linkFor(int64_t meshDim) const {
  if (meshDim >= 0 && static_cast<size_t>(meshDim) < meshDims.size())
    return meshDims[static_cast<size_t>(meshDim)];
  return link;
}

void CostModel::setMeshDimLinks(const std::vector<double>& bandwidthsGBs,
                                const std::vector<double>& latenciesUs) {
  const size_t dims = std::max(bandwidthsGBs.size(), latenciesUs.size());
  auto entry = [](const std::vector<double>& list, size_t i, double fallback) {
    if (list.empty()) return fallback;
    return i < list.size() ? list[i] : list.back();
  };
  meshDims.clear();
  for (size_t i = 0; i < dims; ++i)
    meshDims.push_back({entry(bandwidthsGBs, i, link.bandwidthGBs), entry(latenciesUs, i, link.latencyUs)});
  link = {entry(bandwidthsGBs, dims, link.bandwidthGBs), entry(latenciesUs, dims, link.latencyUs)};
}

double CostModel::collectiveUs(StepKind kind, int64_t groupSize, int64_t bytesPerRank,
                               int64_t meshDim) const {
  return collectiveUs(kind, groupSize, bytesPerRank, std::vector<int64_t>{meshDim});
}

double CostModel::collectiveUs(StepKind kind, int64_t groupSize, int64_t bytesPerRank,
                               const std::vector<int64_t>& flattenedDims) const {
  if (groupSize <= 1) return 0.0;
  if (isLocalStep(kind)) return localUs(bytesPerRank);
  if (kind == StepKind::SendRecv) return sendRecvUs(bytesPerRank);
  LinkSpec spec = slowestLink(flattenedDims);
  if (groupSize > processesPerNode) {  // more processes than a node holds: some pair crosses the network
    spec.bandwidthGBs = std::min(spec.bandwidthGBs, crossMesh.bandwidthGBs);
    spec.latencyUs = std::max(spec.latencyUs, crossMesh.latencyUs);
  }
  const double k = static_cast<double>(groupSize);
  const double hops = kind == StepKind::AllReduce ? 2 * (k - 1) : k - 1;
  return launchUs + hops * spec.latencyUs + transferUs(busBytes(kind, groupSize, bytesPerRank), spec.bandwidthGBs);
}

double CostModel::sendRecvUs(int64_t maxBytes) const {
  if (maxBytes <= 0) return 0.0;
  return launchUs + crossMesh.latencyUs +
         transferUs(static_cast<double>(maxBytes), crossMesh.bandwidthGBs);
}

bool CostModel::sameNode(int64_t processA, int64_t processB) const {
  if (processesPerNode <= 1) return processA == processB;
  return processA / processesPerNode == processB / processesPerNode;
}

double CostModel::pointToPointUs(int64_t maxBytes, const std::vector<int64_t>& crossedDims, int64_t peers) const {
  if (maxBytes <= 0 || crossedDims.empty()) return 0.0;
  return pairsUs(maxBytes, slowestLink(crossedDims), peers);
}

double CostModel::withinNodeUs(int64_t maxBytes, int64_t peers) const {
  if (maxBytes <= 0) return 0.0;
  return pairsUs(maxBytes, withinNode, peers);
}

double CostModel::pairsUs(int64_t maxBytes, const LinkSpec& spec, int64_t peers) const {
  return launchUs + static_cast<double>(peers) * spec.latencyUs +
         transferUs(static_cast<double>(maxBytes), spec.bandwidthGBs);
}

double CostModel::localUs(int64_t bytes) const {
  return localLaunchUs + transferUs(static_cast<double>(bytes), localBandwidthGBs);
}

}  // namespace reshardctl
