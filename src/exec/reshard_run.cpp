#include "exec/reshard_run.h"

#include <algorithm>
#include <charconv>
#include <random>

#include <fmt/format.h>

#include "exec/cpu_executor.h"
#include "exec/multiprocess/process_group.h"
#include "exec/reference_data.h"
#include "reshard/cost_model.h"
#include "reshard/local_box.h"

namespace reshardctl {

namespace {

constexpr int64_t kUnknownDimSize = 4;  // what a dynamic (-1) dim becomes for a run
// The reference keeps every element as a double, several times over (the
// global tensor, source and destination pieces): 2^27 elements is gigabytes.
constexpr int64_t kMaxHostElements = int64_t{1} << 27;


bool needsLogicalValues(const ReshardRequest& request) {
  auto logical = [](const TensorDistAttr& attr) {
    return std::any_of(attr.partials.begin(), attr.partials.end(), [](const PartialDim& p) {
      return p.reduce == ReduceType::Any || p.reduce == ReduceType::All;
    });
  };
  return logical(request.src) || logical(request.dst);
}

// The part of `plan` from step `first` to before step `last`, as a plan of its own.
Plan subPlan(const Plan& plan, size_t first, size_t last) {
  Plan part = plan;
  part.steps.assign(plan.steps.begin() + static_cast<std::ptrdiff_t>(first),
                    plan.steps.begin() + static_cast<std::ptrdiff_t>(last));
  part.src = first == 0 ? plan.src : plan.steps[first - 1].to;
  part.dst = last == plan.steps.size() ? plan.dst : plan.steps[last - 1].to;
  return part;
}

void corrupt(DistTensor& tensor, Fault::Kind kind) {
  if (tensor.pieces.empty()) return;
  if (kind == Fault::Kind::DropRank) {
    tensor.pieces.erase(std::prev(tensor.pieces.end()));
    return;
  }
  // The lowest rank's piece is written one element further along its first dim.
  Piece& piece = tensor.pieces.begin()->second;
  if (piece.box.rank() == 0) {
    for (double& v : piece.values) v += 1;  // a scalar has no offset to get wrong
    return;
  }
  piece.box.begin[0] += 1;
  piece.box.end[0] += 1;
}

ExecutionStats executeWithFault(const Plan& plan, DistTensor& tensor, ExecutionBackend& backend,
                                const Fault* fault) {
  if (!fault) return backend.execute(plan, tensor);
  if (fault->step >= plan.steps.size())
    throw ExecutionError(fmt::format("cannot inject a fault after step {}: the plan has {} step(s)",
                                     fault->step, plan.steps.size()));
  ExecutionStats before = backend.execute(subPlan(plan, 0, fault->step + 1), tensor);
  corrupt(tensor, fault->kind);
  ExecutionStats after = backend.execute(subPlan(plan, fault->step + 1, plan.steps.size()), tensor);
  return ExecutionStats{before.seconds + after.seconds, before.bytesMoved + after.bytesMoved,
                        before.ncclCalls + after.ncclCalls, before.kernels + after.kernels};
}

}  // namespace

std::optional<Fault> parseFault(std::string_view text) {
  Fault fault;
  size_t first = text.find(':');
  size_t second = text.find(':', first == std::string_view::npos ? first : first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view digits, size_t& out) {
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && end == digits.data() + digits.size();
  };
  if (!number(text.substr(0, first), fault.reshard) || fault.reshard == 0) return std::nullopt;
  if (!number(text.substr(first + 1, second - first - 1), fault.step)) return std::nullopt;
  std::string_view kind = text.substr(second + 1);
  if (kind == "offset") fault.kind = Fault::Kind::WrongOffset;
  else if (kind == "drop") fault.kind = Fault::Kind::DropRank;
  else return std::nullopt;
  return fault;
}

double stepBusBytes(const Step& step) {
  const int64_t groupSize = step.groups.empty() ? 1 : std::ssize(step.groups.front());
  return busBytes(step.kind, groupSize, step.bytesPerRank);
}

ReshardRequest scaledRequest(const ReshardRequest& request, int64_t factor) {
  ReshardRequest scaled = request;
  for (int64_t& dim : scaled.shape)
    if (dim < 0) dim = kUnknownDimSize;
  if (scaled.shape.empty() || factor <= 1) return scaled;
  int64_t& largest = *std::max_element(scaled.shape.begin(), scaled.shape.end());
  if (__builtin_mul_overflow(largest, factor, &largest))
    throw PlanError(fmt::format("--scale {} makes the tensor's largest dim ({}) overflow 64 bits", factor,
                                *std::max_element(request.shape.begin(), request.shape.end())));
  return scaled;
}

std::string runFootprintProblem(const ReshardRequest& request, const Plan& plan, int iterations,
                                const FootprintLimits& limits) {
  const int64_t elements = elementCount(request.shape);
  if (elements > kMaxHostElements) return "";
  const PlanFootprint footprint = planFootprint(plan);
  // The global tensor and the source pieces stay while each run's copy is moved.
  const uint64_t beside = static_cast<uint64_t>(elements) * sizeof(double) + layoutBytes(plan.shape, plan.src);
  const uint64_t bytes = footprint.peakBytes + beside;  // each at most 2^62 (plan_footprint.h saturates)
  const uint64_t runs = static_cast<uint64_t>(std::max(iterations, 1));
  const uint64_t work = footprint.work > UINT64_MAX / runs ? UINT64_MAX : footprint.work * runs;
  return footprintProblem(footprint, plan.steps.size(), bytes, work, limits);
}

ReshardOutcome runReshard(const ReshardRequest& request, const Plan& plan, ExecutionBackend& backend,
                          const RunSettings& settings, size_t index, const Fault* fault) {
  ReshardOutcome outcome;
  if (int64_t elements = elementCount(request.shape); elements > kMaxHostElements) {
    outcome.problem = fmt::format("{} elements are too many to hold on the host (at most {}); lower --scale",
                                  elements, kMaxHostElements);
    return outcome;
  }
  std::mt19937_64 rng(settings.seed * 0x9E3779B97F4A7C15ull + index);
  // Every process of a shared run draws the whole global tensor (the reference) and cuts its own ranks' pieces.
  const GlobalTensor global = randomGlobalTensor(request.shape, request.dtype, needsLogicalValues(request), rng);
  KeptRanks own;
  if (settings.group != nullptr) own = [&](int64_t id) { return settings.ownerOf(id) == settings.group->rank(); };
  const DistTensor source = makeSourcePieces(global, plan.src, rng, own);

  for (const Step& step : plan.steps) outcome.busBytes += stepBusBytes(step);
  const int iterations = std::max(1, settings.iterations);
  double timed = 0;
  int timedRuns = 0;
  for (int i = 0; i < iterations; ++i) {
    DistTensor tensor = source;
    ExecutionStats stats;
    try {
      stats = settings.group != nullptr ? executeShared(plan, tensor, *settings.group, settings.ownerOf)
                                        : executeWithFault(plan, tensor, backend, fault);
    } catch (const ExecutionError& e) {
      outcome.problem = e.what();
      return outcome;
    }
    const PieceCheck check = settings.group != nullptr
                                 ? checkSharedPieces(tensor, global, *settings.group, settings.ownerOf)
                                 : checkDestinationPieces(tensor, global);
    outcome.maxError = std::max(outcome.maxError, check.maxError);
    if (!check.ok()) {
      outcome.problem = check.problem.empty() ? fmt::format("max error {:g}", check.maxError) : check.problem;
      return outcome;
    }
    outcome.bytesMoved = stats.bytesMoved;
    if (iterations == 1 || i > 0) {
      timed += stats.seconds;
      ++timedRuns;
    }
  }
  outcome.seconds = timed / timedRuns;
  outcome.passed = true;
  return outcome;
}

}  // namespace reshardctl
