// gpu_selftest: the GPU-only checks scripts/gpu-check.sh runs.
//   1. every CUDA kernel against its host reference on random cases (box copies
//      of every element width, widened and not; fills; the ANY/ALL and AVG
//      fix-ups for every device type);
//   2. the NCCL backend end to end on 1-rank meshes, each step kind built by
//      hand (the planner makes none for groups of one), so real 1-rank NCCL
//      collectives and the local kernels run, counted; then on 2 ranks when the
//      GPUs, or RESHARDCTL_ALLOW_SHARED_GPU=1 with NCCL >= 2.30, allow it; all
//      against the reference executor;
//   3. unless --quick: the kernels' and the 1-rank collectives' bandwidth next
//      to cudaMemcpy device-to-device (S/t, S the bytes copied).
// Options: --quick; --shared (2 ranks were asked for: not starting them is a
// failure, not a skip; also implied by RESHARDCTL_ALLOW_SHARED_GPU=1);
// --two-ranks (only the 2-rank backend check);
// --nccl-list (every libnccl.so.2 found, its version, which one is used; no GPU
// needed).
// Exit 0 all passed, 1 a failure, 77 no usable GPU (ctest counts it skipped): support/exit_code.h.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "exec/cpu_executor.h"

#include "exec/execution_backend.h"
#include "exec/gpu/cuda_kernels.h"
#include "exec/gpu/nccl_library.h"
#include "exec/gpu/nccl_setup.h"
#include "exec/gpu/selftest_plans.h"
#include "exec/reference_data.h"
#include "reshard/planner.h"
#include "support/exit_code.h"

using namespace reshardctl;
using reshardctl::gpu::singleRankPlans;
using reshardctl::gpu::twoRankPlans;

namespace {

int failures = 0;

void report(bool ok, const std::string& what) {
  if (!ok) ++failures;
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "gpu_selftest: CUDA error in %s: %s\n", what, cudaGetErrorString(status));
    std::exit(kExitBadInput);
  }
}

struct DeviceBytes {
  void* data = nullptr;
  explicit DeviceBytes(size_t bytes) { check(cudaMalloc(&data, std::max<size_t>(bytes, 16)), "cudaMalloc"); }
  ~DeviceBytes() { cudaFree(data); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

std::vector<std::byte> randomBytes(size_t count, std::mt19937_64& rng) {
  std::vector<std::byte> bytes(count);
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng() & 0xff);
  return bytes;
}

// Random boxes in random arrays, at random element offsets into the buffers so
// that both the widened and the plain kernels run.
void testBoxCopies(std::mt19937_64& rng) {
  auto pick = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
  int passed = 0, total = 0, widened = 0;
  for (int round = 0; round < 300; ++round) {
    const int64_t elem = std::vector<int64_t>{1, 2, 4, 8}[static_cast<size_t>(pick(0, 3))];
    const auto rank = static_cast<size_t>(pick(0, 4));
    std::vector<int64_t> srcShape(rank), dstShape(rank), srcOrigin(rank), dstOrigin(rank), extent(rank);
    for (size_t d = 0; d < rank; ++d) {
      extent[d] = pick(0, 9) == 0 ? 0 : pick(1, d + 1 == rank ? 700 : 6);
      srcOrigin[d] = pick(0, 3);
      dstOrigin[d] = pick(0, 3);
      srcShape[d] = srcOrigin[d] + extent[d] + pick(0, 3);
      dstShape[d] = dstOrigin[d] + extent[d] + pick(0, 3);
      if (pick(0, 2) == 0) srcOrigin[d] = dstOrigin[d] = 0, srcShape[d] = dstShape[d] = extent[d];
    }
    const int64_t srcBase = pick(0, 1) == 0 ? 0 : pick(0, 64);
    const int64_t dstBase = pick(0, 1) == 0 ? 0 : pick(0, 64);
    const BoxCopy copy = makeBoxCopy(srcShape, srcOrigin, srcBase, dstShape, dstOrigin, dstBase, extent, elem);
    int64_t srcElems = srcBase + 1, dstElems = dstBase + 1;
    int64_t s = 1, t = 1;
    for (size_t d = 0; d < rank; ++d) s *= srcShape[d], t *= dstShape[d];
    srcElems += s;
    dstElems += t;
    const auto srcBytes = static_cast<size_t>(srcElems * elem), dstBytes = static_cast<size_t>(dstElems * elem);
    const std::vector<std::byte> src = randomBytes(srcBytes, rng);
    std::vector<std::byte> expected = randomBytes(dstBytes, rng);
    std::vector<std::byte> got(dstBytes);
    DeviceBytes dSrc(srcBytes), dDst(dstBytes);
    check(cudaMemcpy(dSrc.data, src.data(), srcBytes, cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(dDst.data, expected.data(), dstBytes, cudaMemcpyHostToDevice), "upload");
    if (widenBoxCopy(copy, 16, dSrc.data, dDst.data).unitBytes == 16) ++widened;
    copyBoxHost(copy, src.data(), expected.data());
    check(gpu::launchBoxCopy(copy, dSrc.data, dDst.data, nullptr), "launchBoxCopy");
    check(cudaDeviceSynchronize(), "box copy");
    check(cudaMemcpy(got.data(), dDst.data, dstBytes, cudaMemcpyDeviceToHost), "download");
    ++total;
    if (got == expected) ++passed;
  }
  report(passed == total, fmt::format("kernel box copy: {}/{} random cases equal the host reference ({} widened to 16 B)",
                                      passed, total, widened));
}

void testFill() {
  bool ok = true;
  for (const DType dtype : {DType::U8, DType::F16, DType::F32, DType::I64}) {
    const int64_t elem = dtypeSize(dtype), count = 1000;
    DeviceBytes buffer(static_cast<size_t>(count * elem));
    const uint64_t bits = encodeBits(dtype, dtype == DType::F16 ? -65504.0 : -3.0);
    check(gpu::launchFill(buffer.data, count, elem, bits, nullptr), "launchFill");
    std::vector<std::byte> got(static_cast<size_t>(count * elem));
    check(cudaMemcpy(got.data(), buffer.data, got.size(), cudaMemcpyDeviceToHost), "download");
    for (int64_t i = 0; i < count; ++i) ok = ok && std::memcmp(got.data() + i * elem, &bits, static_cast<size_t>(elem)) == 0;
  }
  report(ok, "kernel fill: identity patterns of 1, 2, 4 and 8 bytes");
}

void testElementwise(std::mt19937_64& rng) {
  const std::vector<DType> dtypes = {DType::U8,  DType::I8,  DType::I32, DType::U32, DType::I64,
                                     DType::U64, DType::F16, DType::BF16, DType::F32, DType::F64};
  for (const bool divide : {false, true}) {
    bool ok = true;
    std::string bad;
    for (const DType dtype : dtypes) {
      const DeviceType type = *deviceTypeOf(dtype);
      const size_t count = 4099;
      std::vector<double> values(count);
      std::uniform_int_distribution<int> small(isUnsigned(dtype) ? 0 : -100, 100);
      for (double& v : values) v = small(rng) % 4 == 0 ? 0.0 : small(rng);
      std::vector<std::byte> bytes(count * static_cast<size_t>(deviceTypeSize(type)));
      encodeValues(dtype, values.data(), count, bytes.data());
      DeviceBytes buffer(bytes.size());
      check(cudaMemcpy(buffer.data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), "upload");
      const int64_t divisor = 3;
      check(divide ? gpu::launchDivide(type, buffer.data, static_cast<int64_t>(count), divisor, nullptr)
                   : gpu::launchLogical(type, buffer.data, static_cast<int64_t>(count), nullptr),
            "elementwise");
      check(cudaMemcpy(bytes.data(), buffer.data, bytes.size(), cudaMemcpyDeviceToHost), "download");
      std::vector<double> got(count);
      decodeValues(dtype, bytes.data(), count, got.data());
      for (size_t i = 0; i < count; ++i) {
        const double want = divide ? roundToDType(values[i] / static_cast<double>(divisor), dtype) : (values[i] != 0.0 ? 1.0 : 0.0);
        if (got[i] != want) {
          ok = false;
          bad = fmt::format(" (first mismatch: {} {} gives {}, want {})", dtypeName(dtype), values[i], got[i], want);
          break;
        }
      }
    }
    report(ok, fmt::format("kernel {}: every device type{}", divide ? "divide (AVG as SUM then /n)" : "logical (ANY/ALL)", bad));
  }
}

// Runs `plan` on the NCCL backend and on the reference executor from the same
// source pieces; the pieces must be equal, box for box and bit for bit.
std::string compareWithReference(ExecutionBackend& backend, const Plan& plan, std::mt19937_64& rng,
                                 ExecutionStats& stats) {
  const bool logical = plan.src.placements[0].isPartial() && (plan.src.placements[0].reduce == ReduceType::Any ||
                                                             plan.src.placements[0].reduce == ReduceType::All);
  const GlobalTensor global = randomGlobalTensor(plan.shape, plan.dtype, logical, rng);
  const DistTensor source = makeSourcePieces(global, plan.src, rng);
  DistTensor reference = source, device = source;
  executePlan(plan, reference);
  try {
    stats = backend.execute(plan, device);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is not a wrong result
  } catch (const std::exception& e) {
    return e.what();
  }
  if (device.pieces.size() != reference.pieces.size()) return "a different set of ranks holds pieces";
  for (const auto& [id, piece] : reference.pieces) {
    const auto found = device.pieces.find(id);
    if (found == device.pieces.end()) return fmt::format("process {} holds no piece", id);
    if (!(found->second.box == piece.box)) return fmt::format("process {} holds another box", id);
    for (size_t i = 0; i < piece.values.size(); ++i)
      if (found->second.values[i] != piece.values[i])
        return fmt::format("process {} element {}: {} instead of {}", id, i, found->second.values[i], piece.values[i]);
  }
  return {};
}

bool isCollective(StepKind kind) {
  return !isLocalStep(kind) && kind != StepKind::SendRecv;
}

// `required`: not starting the backend is a failure (2 shared ranks asked for).
void testBackend(const std::vector<int64_t>& ids, const std::vector<Plan>& plans, std::mt19937_64& rng,
                 bool required) {
  std::string error;
  auto backend = makeNcclBackend(ids, &error);
  if (!backend) {
    if (required) report(false, fmt::format("nccl backend on {} rank(s) cannot start although asked for: {}", ids.size(), error));
    else std::printf("SKIP nccl backend on %zu rank(s): %s\n", ids.size(), error.c_str());
    return;
  }
  int passed = 0;
  int64_t calls = 0, kernels = 0;
  std::string firstFailure;
  for (const Plan& plan : plans) {
    ExecutionStats stats;
    std::string problem = compareWithReference(*backend, plan, rng, stats);
    // A plan whose step is a collective must have reached NCCL: else it
    // proves nothing about the NCCL path.
    const bool collective = !plan.steps.empty() && isCollective(plan.steps[0].kind);
    if (problem.empty() && collective && stats.ncclCalls == 0) problem = "no NCCL call was issued";
    calls += stats.ncclCalls;
    kernels += stats.kernels;
    if (problem.empty()) {
      ++passed;
    } else if (firstFailure.empty()) {
      const std::string kind = plan.steps.empty() ? std::string("no step") : std::string(stepKindName(plan.steps[0].kind));
      firstFailure = fmt::format("{} -> {} [{}] {} ({}...): {}", layoutText(plan.src), layoutText(plan.dst),
                                 fmt::join(plan.shape, "x"), dtypeName(plan.dtype), kind, problem);
    }
  }
  // And the suite as a whole must have run both NCCL calls and kernels.
  report(passed == static_cast<int>(plans.size()) && calls > 0 && kernels > 0,
         fmt::format("nccl backend, {} rank(s): {}/{} plans equal the reference executor bit for bit ({} NCCL calls, "
                     "{} kernels){}",
                     ids.size(), passed, plans.size(), calls, kernels,
                     firstFailure.empty() ? "" : "; first failure: " + firstFailure));
}

template <typename Body>
double timeIt(Body body, int iterations) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  body();  // warm-up
  check(cudaEventRecord(start), "record");
  for (int i = 0; i < iterations; ++i) body();
  check(cudaEventRecord(stop), "record");
  check(cudaEventSynchronize(stop), "sync");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 1e3 / iterations;
}

// The 1-rank plans' data moves through the backend at 64 MiB of f32: NCCL
// turns all_gather, reduce_scatter and all_to_all into a device copy
// (docs/nccl.md, "Ranks and GPUs"), send_recv to itself is a copy kernel, so S/t against
// cudaMemcpy's is the backend's overhead. (A 1-rank all_reduce is in place,
// nothing to copy; 1-rank local steps keep the piece as it is.) The mean of 5
// runs after a warm-up.
void benchmarkOneRankCollectives(double memcpyRate) {
  std::string error;
  auto backend = makeNcclBackend({0}, &error);
  if (!backend) return;  // testBackend has reported why
  std::mt19937_64 rng(7);
  const std::vector<int64_t> shape = {4096, 4096};
  for (Plan plan : singleRankPlans()) {
    if (plan.dtype != DType::F32 || plan.shape != std::vector<int64_t>{8, 6}) continue;
    const StepKind kind = plan.steps.at(0).kind;
    if (kind == StepKind::AllReduce || isLocalStep(kind)) continue;
    if (plan.src.placements[0].isPartial() && plan.src.placements[0].reduce != ReduceType::Sum) continue;
    plan.shape = shape;
    const GlobalTensor global = randomGlobalTensor(shape, plan.dtype, false, rng);
    const DistTensor source = makeSourcePieces(global, plan.src, rng);
    double seconds = 0;
    for (int run = 0; run < 6; ++run) {
      DistTensor tensor = source;
      const double taken = backend->execute(plan, tensor).seconds;
      if (run > 0) seconds += taken / 5;
    }
    const double bytes = static_cast<double>(elementCount(shape)) * 4;
    const double rate = bytes / seconds / 1e9;
    std::printf("BENCH nccl_1rank_%s_%s bytes=%.0f time_us=%.1f GBps=%.1f ratio=%.2f\n",
                std::string(stepKindName(plan.steps[0].kind)).c_str(), placementsText(plan.dst.placements).c_str(), bytes,
                seconds * 1e6, rate, rate / memcpyRate);
  }
}

// S/t for S bytes copied (each byte is read and written: HBM moves 2S).
void benchmark() {
  const int64_t rows = 16384, cols = 8192;  // 512 MiB of f32
  const auto bytes = static_cast<size_t>(rows * cols * 4);
  DeviceBytes a(bytes), b(bytes);
  check(cudaMemset(a.data, 1, bytes), "memset");
  const int iterations = 20;
  const double memcpyTime = timeIt([&] { check(cudaMemcpyAsync(b.data, a.data, bytes, cudaMemcpyDeviceToDevice), "memcpy"); }, iterations);
  const double memcpyRate = static_cast<double>(bytes) / memcpyTime / 1e9;
  std::printf("BENCH memcpy_d2d bytes=%zu time_us=%.1f GBps=%.1f ratio=1.00\n", bytes, memcpyTime * 1e6, memcpyRate);
  struct Shape {
    const char* name;
    BoxCopy copy;
  };
  const std::vector<Shape> shapes = {
      {"slice_rows_f32", makeBoxCopy({rows, cols}, {0, 0}, 0, {rows, cols}, {0, 0}, 0, {rows, cols}, 4)},
      {"slice_cols_f32", makeBoxCopy({rows, cols}, {0, cols / 2}, 0, {rows, cols / 2}, {0, 0}, 0, {rows, cols / 2}, 4)},
      {"pad_rows_f32", makeBoxCopy({rows - 1, cols}, {0, 0}, 0, {rows, cols}, {0, 0}, 0, {rows - 1, cols}, 4)},
      {"unpad_odd_cols_f32", makeBoxCopy({rows, cols}, {0, 0}, 0, {rows, cols - 3}, {0, 0}, 0, {rows, cols - 3}, 4)},
      {"slice_cols_bf16", makeBoxCopy({rows, 2 * cols}, {0, 0}, 0, {rows, cols}, {0, 0}, 0, {rows, cols}, 2)},
      {"narrow_rows_f32", makeBoxCopy({rows * 64, cols / 64}, {0, 0}, 0, {rows * 64, cols / 128}, {0, 0}, 0, {rows * 64, cols / 128}, 4)},
  };
  for (const Shape& shape : shapes) {
    const double seconds = timeIt([&] { check(gpu::launchBoxCopy(shape.copy, a.data, b.data, nullptr), shape.name); }, iterations);
    const double rate = static_cast<double>(shape.copy.bytes()) / seconds / 1e9;
    const BoxCopy wide = widenBoxCopy(shape.copy, 16, a.data, b.data);
    std::printf("BENCH %s bytes=%lld time_us=%.1f GBps=%.1f ratio=%.2f unit=%lldB\n", shape.name,
                static_cast<long long>(shape.copy.bytes()), seconds * 1e6, rate, rate / memcpyRate,
                static_cast<long long>(wide.unitBytes == 16 ? 16 : shape.copy.unitBytes));
  }
  const double fillTime = timeIt([&] { check(gpu::launchFill(b.data, rows * cols, 4, 0, nullptr), "fill"); }, iterations);
  std::printf("BENCH fill_f32 bytes=%zu time_us=%.1f GBps=%.1f (writes only)\n", bytes, fillTime * 1e6,
              static_cast<double>(bytes) / fillTime / 1e9);
  benchmarkOneRankCollectives(memcpyRate);
}


// --nccl-list: every candidate libnccl.so.2, its version, and the one loaded.
int listNccl() {
  for (const gpu::NcclProbe& probe : gpu::probeNcclCandidates())
    std::printf("NCCL %s %s (from %s)%s%s\n", probe.version > 0 ? gpu::ncclVersionText(probe.version).c_str() : "-",
                probe.candidate.path.c_str(), probe.candidate.from.c_str(), probe.error.empty() ? "" : ": ",
                probe.error.c_str());
  std::string error;
  const gpu::NcclApi* nccl = gpu::loadNccl(&error);
  if (nccl == nullptr) {
    std::printf("NCCL none usable: %s\n", error.c_str());
    return kExitUsage;
  }
  const gpu::NcclFeatures features = gpu::ncclFeatures(*nccl);
  std::printf("NCCL used %s %s alltoall=%d multi_rank_gpu=%d max_ranks_per_gpu=%d\n",
              gpu::ncclVersionText(nccl->version).c_str(), nccl->path.c_str(), features.alltoAll ? 1 : 0,
              features.multiRankGpu ? 1 : 0, features.maxRanksPerGpu);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, shared = false, twoRanksOnly = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") quick = true;
    else if (arg == "--shared") shared = true;
    else if (arg == "--two-ranks") twoRanksOnly = true;
    else if (arg == "--nccl-list") return listNccl();
    else {
      std::fprintf(stderr, "usage: gpu_selftest [--quick] [--shared] [--two-ranks] [--nccl-list]\n");
      return kExitUsage;
    }
  }
  const char* allow = std::getenv("RESHARDCTL_ALLOW_SHARED_GPU");
  shared = shared || (allow != nullptr && std::string(allow) == "1");
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("SKIP gpu_selftest: no usable GPU (%s)\n", status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
    // Asked for shared ranks, the caller wants a result: no GPU is a failure.
    return shared ? kExitBadInput : kExitSkipped;
  }
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  std::string ncclError;
  const gpu::NcclApi* nccl = gpu::loadNccl(&ncclError);
  std::printf("INFO %d GPU(s); GPU 0: %s, sm_%d%d, %d SMs, %.1f GiB; NCCL %s\n", devices, props.name, props.major,
              props.minor, props.multiProcessorCount, static_cast<double>(props.totalGlobalMem) / (1 << 30),
              nccl != nullptr ? fmt::format("{} ({})", gpu::ncclVersionText(nccl->version), nccl->path).c_str()
                              : "not loaded");
  std::mt19937_64 rng(90);
  if (!twoRanksOnly) {
    testBoxCopies(rng);
    testFill();
    testElementwise(rng);
    testBackend({0}, singleRankPlans(), rng, true);
  }
  testBackend({0, 1}, twoRankPlans(), rng, shared);
  if (!quick && !twoRanksOnly) benchmark();
  std::printf("%s: %d failure(s)\n", failures == 0 ? "gpu_selftest passed" : "gpu_selftest FAILED", failures);
  return failures == 0 ? kExitOk : kExitBadInput;
}
