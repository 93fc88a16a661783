#include "reshard/cost_model.h"

#include <algorithm>

namespace reshardctl {

namespace {

// bytes / (GB/s) in microseconds.
double transferUs(double bytes, double bandwidthGBs) { return bytes / (bandwidthGBs * 1e3); }

}  // namespace

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
  if (groupSize <= 1) return 0.0;
  const LinkSpec& spec = linkFor(meshDim);
  const double k = static_cast<double>(groupSize);
  const double bytes = static_cast<double>(bytesPerRank);
  double hops = k - 1;
  double busBytes = bytes * (k - 1) / k;
  switch (kind) {
    case StepKind::AllReduce:
      hops = 2 * (k - 1);
      busBytes = bytes * 2 * (k - 1) / k;
      break;
    case StepKind::AllGather:  // the send buffer is 1/k of what every rank ends with
      busBytes = bytes * (k - 1);
      break;
    case StepKind::ReduceScatter:
    case StepKind::AllToAll: break;
    case StepKind::Slice:
    case StepKind::PartialInit: return localUs(bytesPerRank);
    case StepKind::SendRecv: return sendRecvUs(bytesPerRank);
  }
  return launchUs + hops * spec.latencyUs + transferUs(busBytes, spec.bandwidthGBs);
}

double CostModel::sendRecvUs(int64_t maxBytes) const {
  if (maxBytes <= 0) return 0.0;
  return launchUs + crossMesh.latencyUs +
         transferUs(static_cast<double>(maxBytes), crossMesh.bandwidthGBs);
}

double CostModel::localUs(int64_t bytes) const {
  return localLaunchUs + transferUs(static_cast<double>(bytes), localBandwidthGBs);
}

}  // namespace reshardctl
