// The NCCL backend: one process drives every GPU of the node, one rank per GPU.
//
// - NCCL: loaded at start (nccl_library.h: dlopen of libnccl.so.2); every call
//   goes through its table, and its version picks the features (ncclAlltoAll,
//   GPU sharing). Communicators and every NCCL call that can fail or hang live in
//   nccl_comms.h.
// - Ranks: the process ids passed to makeNcclBackend, sorted; the i-th gets GPU i
//   (GPU i % count with RESHARDCTL_ALLOW_SHARED_GPU=1, which needs NCCL >= 2.30:
//   NCCL 2.28 refuses two ranks on one GPU). Sharing sets NCCL_MULTI_RANK_GPU_ENABLE=1,
//   NCCL_MAX_CTAS and NCCL_NVLS_ENABLE=0 (unless set), and allows at most
//   NcclFeatures::maxRanksPerGpu ranks per GPU (RESHARDCTL_MAX_RANKS_PER_GPU raises it).
// - Communicators: a world communicator over all ranks (ncclCommInitAll) for
//   send_recv, whose peers may sit on two meshes; and one per collective group,
//   created with ncclCommInitAll over the group's GPUs in the group's order (so
//   NCCL rank = mesh coordinate, which fixes the block order of all_gather,
//   reduce_scatter and all_to_all), cached for the backend's lifetime. Init per
//   group was chosen over ncclCommSplit of the world: it is the call the single-
//   process pattern documents for several GPUs, needs no collective call on ranks
//   outside the group, and a group's communicator is reused across reshards.
//   All communicators a plan needs are made before its timing starts.
// - A step: its lowering (step_program.h) gives each rank local ops (kernels,
//   cuda_kernels.h) before and after one ncclGroupStart/End holding every rank's
//   NCCL calls, as one thread driving several devices must; the calls are all
//   resolved before the group starts (NcclComms::launchGroup). Everything runs on
//   one stream per rank, so no step waits on the host.
// - Memory: stream-ordered (device_buffer.h) from each device's default pool
//   where the device supports pools (else plain cudaMalloc), with the pools of
//   the GPUs in use opened to each other where peer access is possible: a
//   pool's memory is not covered by cudaDeviceEnablePeerAccess.
// - Waiting: the plan's end is polled (cudaStreamQuery) together with
//   ncclCommGetAsyncError of every communicator; an NCCL error or the timeout
//   (RESHARDCTL_NCCL_TIMEOUT_S, 60 s, for the whole execution of a plan, all its
//   steps) aborts all communicators and throws BackendError, and the backend
//   refuses further work. Host calls that can block (init, ncclGroupEnd, abort,
//   teardown) run under a watchdog that exits with code 2.
// - Timing: CUDA events around the steps on each rank's stream; the slowest rank.
//
// Multi-process (a ProcessGroup, under mpirun): process p drives only rank
// ids[p] on GPU `local rank`. Every process lowers each step for all ranks (the
// same plan and boxes everywhere), runs only its rank's part, and tracks every
// rank's box. World communicator: rank 0's ncclGetUniqueId, broadcast over MPI,
// ncclCommInitRank. Mesh groups: one ncclCommSplit of the world per distinct
// group list (color = the group holding this rank, key = its position), which
// every process calls in the same order because the plans are the same; the
// single-process ncclCommInitAll per group cannot span processes. Local
// problems (no GPU) are agreed on before any NCCL call, so all processes give up
// together; the destination pieces are exchanged (piece_exchange.h) so every
// process checks the whole result, and the time is the slowest process's.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <span>
#include <thread>

#include <fmt/format.h>

#include "exec/cpu_executor.h"
#include "exec/execution_backend.h"
#include "exec/gpu/cuda_kernels.h"
#include "exec/gpu/device_buffer.h"
#include "exec/gpu/nccl_comms.h"
#include "exec/gpu/nccl_library.h"
#include "exec/gpu/nccl_setup.h"
#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/piece_exchange.h"
#include "exec/multiprocess/process_group.h"
#include "exec/step_program.h"
#include "support/exit_code.h"

namespace reshardctl {

namespace {

using gpu::DeviceBuffer;

struct RankState {
  int64_t id = -1;
  int device = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
};

// A rank's piece on its GPU.
struct Held {
  DeviceBuffer buffer;
  Box box;
};

bool envFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string_view(value) == "1";
}

// The cap on ranks per GPU: NCCL's documented 2 (with sharing), unless
// RESHARDCTL_MAX_RANKS_PER_GPU asks for more (for tuned NCCL_MAX_CTAS).
int maxRanksPerGpu(const gpu::NcclFeatures& features) {
  const char* text = std::getenv("RESHARDCTL_MAX_RANKS_PER_GPU");
  const int asked = text != nullptr ? std::atoi(text) : 0;
  return features.multiRankGpu && asked > 0 ? asked : features.maxRanksPerGpu;
}

class NcclBackend final : public ExecutionBackend {
 public:
  explicit NcclBackend(ProcessGroup* processes)
      : processes_(processes), timeout_(gpu::ncclTimeoutSeconds()), watchdog_(timeout_) {}

  ~NcclBackend() override {
    // After an abort the streams may never drain (close() then skips them);
    // otherwise they finish before the communicators go, under the watchdog.
    if (comms_)
      comms_->close([&] {
        for (RankState& rank : ranks_)
          if (rank.stream != nullptr && cudaSetDevice(rank.device) == cudaSuccess)
            static_cast<void>(cudaStreamSynchronize(rank.stream));
      });
    comms_.reset();
    for (RankState& rank : ranks_) {
      if (cudaSetDevice(rank.device) != cudaSuccess) continue;
      if (rank.start != nullptr) static_cast<void>(cudaEventDestroy(rank.start));
      if (rank.stop != nullptr) static_cast<void>(cudaEventDestroy(rank.stop));
      if (rank.stream != nullptr) static_cast<void>(cudaStreamDestroy(rank.stream));
    }
  }

  // Returns an empty string on success, else why the backend cannot run (the
  // same text on every process of a ProcessGroup).
  std::string init(const std::vector<int64_t>& requested) {
    ids_ = requested;
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    std::string problem = ids_.empty() ? "the nccl backend needs at least one rank" : ncclProblem();
    if (problem.empty()) problem = devicesProblem();
    // Before any NCCL call: a process that gave up alone would leave the others
    // waiting in ncclCommInitRank.
    if (processes_ != nullptr) problem = firstProblem(processes_->allGather(problem));
    if (!problem.empty()) return problem;
    try {
      if (processes_ == nullptr) {
        startNode();
      } else {
        startProcess();
      }
    } catch (const BackendError& error) {
      problem = fmt::format("cannot start NCCL on {} GPU(s) (NCCL {}): {}", ranks_.size(),
                            gpu::ncclVersionText(nccl_->version), error.what());
      // The others may be inside ncclCommInitRank, waiting for this process.
      if (processes_ != nullptr) processes_->abort(problem, kExitUsage);
    }
    return problem;
  }

  std::string_view name() const override { return "nccl"; }

  std::string description() const override {
    return fmt::format("nccl (NCCL {}, {})", gpu::ncclVersionText(nccl_->version), nccl_->path);
  }

  ExecutionStats execute(const Plan& plan, DistTensor& tensor) override {
    if (comms_->broken()) throw BackendError("the NCCL backend was aborted earlier: " + comms_->brokenReason());
    const std::optional<DeviceType> type = deviceTypeOf(tensor.dtype);
    if (!type)
      throw BackendError(fmt::format("the nccl backend cannot hold {} tensors", dtypeName(tensor.dtype)));
    type_ = *type;
    tensorDType_ = tensor.dtype;
    elemBytes_ = deviceTypeSize(type_);
    prepareComms(plan);

    std::map<int64_t, Held> held = upload(tensor);
    std::map<int64_t, Box> boxes;  // every rank's, also those of other processes
    for (const auto& [id, piece] : tensor.pieces) boxes[id] = piece.box;
    for (const RankState& rank : ranks_) {
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      RESHARDCTL_CUDA(cudaEventRecord(rank.start, rank.stream));
    }
    ExecutionStats stats;
    for (const Step& step : plan.steps) {
      const StepProgram program = lowerStep(step, tensor.shape, tensor.dtype, boxes, elemBytes_);
      stats.bytesMoved += program.communicationBytes(elemBytes_);
      runStep(program, held, stats);
      for (const RankProgram& rp : program.ranks) {
        if (rp.keeps) boxes[rp.id] = rp.after;
        else boxes.erase(rp.id);
      }
    }
    for (const RankState& rank : ranks_) {
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      RESHARDCTL_CUDA(cudaEventRecord(rank.stop, rank.stream));
    }
    waitForAll();
    for (const RankState& rank : ranks_) {
      float ms = 0;
      RESHARDCTL_CUDA(cudaEventElapsedTime(&ms, rank.start, rank.stop));
      stats.seconds = std::max(stats.seconds, static_cast<double>(ms) / 1e3);
    }
    download(held, tensor);
    if (processes_ != nullptr) {
      stats.seconds = processes_->max(stats.seconds);
      exchangePieces(boxes, tensor);
    }
    tensor.layout = plan.dst;
    return stats;
  }

 private:
  // Loads NCCL (once per process); why it cannot be used, or "".
  std::string ncclProblem() {
    std::string error;
    nccl_ = gpu::loadNccl(&error);
    if (nccl_ == nullptr) return error;
    comms_ = std::make_unique<gpu::NcclComms>(*nccl_, watchdog_);
    return {};
  }

  // Why this process's GPUs cannot hold its ranks, or an empty string.
  std::string devicesProblem() {
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess)
      return fmt::format("no usable GPU: {} ({} from cudaGetDeviceCount); the nccl backend needs an NVIDIA GPU "
                         "and a driver for CUDA {}.{}",
                         cudaGetErrorString(status), cudaGetErrorName(status), CUDART_VERSION / 1000,
                         CUDART_VERSION % 1000 / 10);
    if (devices == 0) return "no usable GPU: CUDA sees no device";
    devices_ = devices;
    // Ranks that need a GPU of this node: all of them, or those of processes
    // started before this one on the node (the local rank) and this one.
    const int64_t needed = processes_ == nullptr ? std::ssize(ids_) : processes_->localRank() + 1;
    if (needed <= devices) return {};
    const std::string who =
        processes_ == nullptr ? fmt::format("{} ranks", needed) : fmt::format("{} processes on this node", needed);
    if (!envFlag("RESHARDCTL_ALLOW_SHARED_GPU"))
      return fmt::format("{} need {} GPUs, but {} GPU(s) are visible: NCCL refuses two ranks on one GPU "
                         "(RESHARDCTL_ALLOW_SHARED_GPU=1 shares GPUs where NCCL >= 2.30 is loaded)",
                         who, needed, devices);
    const gpu::NcclFeatures& features = comms_->features();
    if (!features.multiRankGpu)
      return fmt::format("{} on {} GPU(s): RESHARDCTL_ALLOW_SHARED_GPU=1 needs NCCL >= 2.30 "
                         "(NCCL_MULTI_RANK_GPU_ENABLE), but this process loaded NCCL {} ({}); "
                         "RESHARDCTL_NCCL_LIB picks another libnccl.so.2",
                         who, devices, gpu::ncclVersionText(nccl_->version), nccl_->path);
    const auto perGpu = static_cast<int>((needed + devices - 1) / devices);
    if (perGpu > maxRanksPerGpu(features))
      return fmt::format("{} on {} GPU(s) put {} ranks on one GPU; NCCL {} documents at most {} with "
                         "NCCL_MULTI_RANK_GPU_ENABLE (RESHARDCTL_MAX_RANKS_PER_GPU raises the cap)",
                         who, devices, perGpu, gpu::ncclVersionText(nccl_->version), maxRanksPerGpu(features));
    // Read by NCCL at its first init, which follows; a user's own settings win.
    // Each sharing rank allocates its own channels: NCCL_MAX_CTAS bounds them so
    // all ranks' kernels fit on the GPU at once; NVLS cannot be shared.
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) sms = 1;
    setenv("NCCL_MULTI_RANK_GPU_ENABLE", "1", 0);
    setenv("NCCL_MAX_CTAS", std::to_string(gpu::sharedGpuMaxCtas(sms, perGpu)).c_str(), 0);
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    return {};
  }

  void addRank(int64_t id, int device) {
    RankState rank;
    rank.id = id;
    rank.device = device;
    index_[rank.id] = ranks_.size();
    ranks_.push_back(rank);  // before the calls that can throw: the destructor frees what they made
    RankState& mine = ranks_.back();
    RESHARDCTL_CUDA(cudaSetDevice(mine.device));
    RESHARDCTL_CUDA(cudaStreamCreateWithFlags(&mine.stream, cudaStreamNonBlocking));
    RESHARDCTL_CUDA(cudaEventCreate(&mine.start));
    RESHARDCTL_CUDA(cudaEventCreate(&mine.stop));
    int pools = 0;
    RESHARDCTL_CUDA(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, mine.device));
    if (pools == 0) {
      pooled_ = false;  // DeviceBuffer falls back to cudaMalloc/cudaFree
      return;
    }
    // Keep freed pool memory: --iters then reuses it instead of paying the
    // driver again inside the timed steps.
    cudaMemPool_t pool = nullptr;
    RESHARDCTL_CUDA(cudaDeviceGetDefaultMemPool(&pool, mine.device));
    uint64_t keepAll = UINT64_MAX;
    RESHARDCTL_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll));
  }

  // A pool's memory is reachable from another GPU only after
  // cudaMemPoolSetAccess (cudaDeviceEnablePeerAccess does not cover pools):
  // NCCL's peer-to-peer transports of ranks in one process may read and write
  // the user buffers of the peer GPU.
  void openPoolsToPeers() {
    if (!pooled_) return;
    std::vector<int> devices;
    for (const RankState& rank : ranks_) devices.push_back(rank.device);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    for (const int owner : devices) {
      cudaMemPool_t pool = nullptr;
      RESHARDCTL_CUDA(cudaDeviceGetDefaultMemPool(&pool, owner));
      for (const int peer : devices) {
        int reachable = 0;
        if (peer == owner || cudaDeviceCanAccessPeer(&reachable, peer, owner) != cudaSuccess || reachable == 0) continue;
        cudaMemAccessDesc access{};
        access.location.type = cudaMemLocationTypeDevice;
        access.location.id = peer;
        access.flags = cudaMemAccessFlagsProtReadWrite;
        RESHARDCTL_CUDA(cudaMemPoolSetAccess(pool, &access, 1));
      }
    }
  }

  // One process, every rank: rank i on GPU i (i % count when shared).
  void startNode() {
    std::vector<int> deviceList;
    for (size_t i = 0; i < ids_.size(); ++i) {
      addRank(ids_[i], static_cast<int>(i % static_cast<size_t>(devices_)));
      deviceList.push_back(ranks_.back().device);
    }
    openPoolsToPeers();
    world_ = createComms(deviceList, "ncclCommInitAll (world)");
  }

  // One rank per process: world rank p drives ids_[p] on its node-local GPU.
  void startProcess() {
    if (processes_->size() != std::ssize(ids_))
      throw BackendError(processCountProblem(ids_, processes_->size()));
    addRank(rankOfProcess(ids_, processes_->rank()), processes_->localRank() % devices_);
    ncclUniqueId id{};
    if (processes_->rank() == 0) comms_->check(nccl_->getUniqueId(&id), "ncclGetUniqueId");
    processes_->broadcast(std::as_writable_bytes(std::span(&id, 1)), 0);
    world_ = {comms_->initRank(processes_->size(), id, processes_->rank(), "ncclCommInitRank (world)")};
  }

  bool drives(int64_t id) const { return index_.contains(id); }

  const RankState& rankOf(int64_t id) const {
    auto found = index_.find(id);
    if (found == index_.end())
      throw BackendError(fmt::format("process {} is not among the ranks the nccl backend was started with", id));
    return ranks_[found->second];
  }

  std::vector<ncclComm_t> createComms(const std::vector<int>& deviceList, const char* what) {
    try {
      return comms_->initAll(deviceList, what);
    } catch (const BackendError& error) {
      if (!hasDuplicates(deviceList)) throw;
      throw BackendError(fmt::format("NCCL {} refused two ranks on one GPU (needs NCCL >= 2.30 with "
                                     "NCCL_MULTI_RANK_GPU_ENABLE=1): {}",
                                     gpu::ncclVersionText(nccl_->version), error.what()));
    }
  }

  static bool hasDuplicates(std::vector<int> list) {
    std::sort(list.begin(), list.end());
    return std::adjacent_find(list.begin(), list.end()) != list.end();
  }

  // Communicators for every collective group of the plan, before timing starts.
  void prepareComms(const Plan& plan) {
    for (const Step& step : plan.steps) {
      if (step.kind == StepKind::SendRecv || isLocalStep(step.kind)) continue;
      if (processes_ != nullptr) {
        splitWorld(step.groups);
        continue;
      }
      for (const std::vector<int64_t>& group : step.groups) {
        if (groups_.contains(group)) continue;
        std::vector<int> deviceList;
        for (const int64_t id : group) deviceList.push_back(rankOf(id).device);
        groups_[group] = createComms(deviceList, "ncclCommInitAll (mesh group)");
      }
    }
  }

  // This process's communicator for whichever of `groups` holds its rank (none
  // when no group does): one ncclCommSplit, which every process calls.
  void splitWorld(const std::vector<std::vector<int64_t>>& groups) {
    if (splits_.contains(groups)) return;
    const int64_t mine = ranks_.front().id;
    int color = NCCL_SPLIT_NOCOLOR;
    int key = 0;
    for (size_t index = 0; index < groups.size(); ++index) {
      auto at = std::find(groups[index].begin(), groups[index].end(), mine);
      if (at == groups[index].end()) continue;
      color = static_cast<int>(index);
      key = static_cast<int>(at - groups[index].begin());
    }
    RESHARDCTL_CUDA(cudaSetDevice(ranks_.front().device));
    splits_[groups] = comms_->split(world_.front(), color, key, "ncclCommSplit (mesh group)");
  }

  ncclComm_t groupComm(const StepProgram& program, const CommOp& op, int64_t id) const {
    if (processes_ != nullptr) return splits_.at(program.groups);
    const std::vector<int64_t>& group = program.groups.at(op.group);
    const auto member = static_cast<size_t>(std::find(group.begin(), group.end(), id) - group.begin());
    return groups_.at(group).at(member);
  }

  std::map<int64_t, Held> upload(const DistTensor& tensor) {
    std::map<int64_t, Held> held;
    std::vector<std::vector<std::byte>> staging;  // alive until the copies are done
    for (const auto& [id, piece] : tensor.pieces) {
      if (!drives(id)) continue;  // another process's rank
      const RankState& rank = rankOf(id);
      const size_t bytes = piece.values.size() * static_cast<size_t>(elemBytes_);
      Held& mine = held[id];
      mine.box = piece.box;
      mine.buffer = DeviceBuffer(rank.device, rank.stream, bytes, pooled_);
      if (bytes == 0) continue;
      staging.emplace_back(bytes);
      encodeValues(tensor.dtype, piece.values.data(), piece.values.size(), staging.back().data());
      RESHARDCTL_CUDA(cudaMemcpyAsync(mine.buffer.data(), staging.back().data(), bytes, cudaMemcpyHostToDevice, rank.stream));
    }
    for (const RankState& rank : ranks_) {
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      RESHARDCTL_CUDA(cudaStreamSynchronize(rank.stream));
    }
    return held;
  }

  void download(std::map<int64_t, Held>& held, DistTensor& tensor) {
    std::map<int64_t, Piece> pieces;
    std::vector<std::byte> staging;
    for (auto& [id, mine] : held) {
      const RankState& rank = rankOf(id);
      Piece piece = Piece::filled(mine.box, 0.0);
      const size_t bytes = piece.values.size() * static_cast<size_t>(elemBytes_);
      if (bytes > 0) {
        staging.resize(bytes);
        RESHARDCTL_CUDA(cudaSetDevice(rank.device));
        RESHARDCTL_CUDA(cudaMemcpyAsync(staging.data(), mine.buffer.data(), bytes, cudaMemcpyDeviceToHost, rank.stream));
        RESHARDCTL_CUDA(cudaStreamSynchronize(rank.stream));
        decodeValues(tensor.dtype, staging.data(), piece.values.size(), piece.values.data());
      }
      pieces[id] = std::move(piece);
    }
    tensor.pieces = std::move(pieces);
  }

  // Every rank's destination piece on every process, from each process's own.
  void exchangePieces(const std::map<int64_t, Box>& boxes, DistTensor& tensor) {
    std::vector<double> mine;
    if (auto own = tensor.pieces.find(ranks_.front().id); own != tensor.pieces.end()) mine = own->second.values;
    const std::vector<double> all = processes_->allGatherValues(mine, exchangeCounts(ids_, boxes));
    tensor.pieces = assemblePieces(ids_, boxes, all);
  }

  struct Slots {
    DeviceBuffer next, send, recv;
  };

  std::byte* slotPointer(Slot slot, int64_t id, std::map<int64_t, Held>& held, Slots& slots) const {
    switch (slot) {
      case Slot::Cur: {
        auto found = held.find(id);
        return found == held.end() ? nullptr : static_cast<std::byte*>(found->second.buffer.data());
      }
      case Slot::Next: return static_cast<std::byte*>(slots.next.data());
      case Slot::Send: return static_cast<std::byte*>(slots.send.data());
      case Slot::Recv: return static_cast<std::byte*>(slots.recv.data());
    }
    return nullptr;
  }

  static gpu::CombineOp combineOp(DeviceReduceOp op) {
    switch (op) {
      case DeviceReduceOp::Prod: return gpu::CombineOp::Prod;
      case DeviceReduceOp::Max: return gpu::CombineOp::Max;
      case DeviceReduceOp::Min: return gpu::CombineOp::Min;
      case DeviceReduceOp::Sum:
      case DeviceReduceOp::Avg: break;  // never combined: step_program.cpp refuses AVG on arrival
    }
    return gpu::CombineOp::Sum;
  }

  void runLocal(const LocalOp& op, const RankState& rank, std::map<int64_t, Held>& held, Slots& slots,
                ExecutionStats& stats) const {
    std::byte* dst = slotPointer(op.dst, rank.id, held, slots);
    ++stats.kernels;
    switch (op.kind) {
      case LocalOp::Kind::Copy:
        RESHARDCTL_CUDA(gpu::launchBoxCopy(op.copy, slotPointer(op.src, rank.id, held, slots), dst, rank.stream));
        return;
      case LocalOp::Kind::Fill:
        RESHARDCTL_CUDA(gpu::launchFill(dst + op.offset * elemBytes_, op.count, elemBytes_,
                                        encodeBits(tensorDType_, op.value), rank.stream));
        return;
      case LocalOp::Kind::Logical:
        RESHARDCTL_CUDA(gpu::launchLogical(type_, dst + op.offset * elemBytes_, op.count, rank.stream));
        return;
      case LocalOp::Kind::Divide:
        RESHARDCTL_CUDA(gpu::launchDivide(type_, dst + op.offset * elemBytes_, op.count, op.divisor, rank.stream));
        return;
      case LocalOp::Kind::Multiply:
        RESHARDCTL_CUDA(gpu::launchMultiply(type_, dst + op.offset * elemBytes_, op.count, op.divisor, rank.stream));
        return;
      case LocalOp::Kind::Combine:
        RESHARDCTL_CUDA(gpu::launchCombine(type_, combineOp(op.reduce), dst + op.offset * elemBytes_,
                                           slotPointer(op.src, rank.id, held, slots) + op.srcOffset * elemBytes_,
                                           op.count, rank.stream));
        return;
    }
  }

  // The NCCL call of `op` on rank rp.id, fully resolved (may throw: it runs
  // before the group starts).
  gpu::NcclCall makeCall(const StepProgram& program, const RankProgram& rp, const CommOp& op,
                         std::map<int64_t, Held>& held, Slots& slots) const {
    gpu::NcclCall call;
    call.kind = op.kind;
    call.stream = rankOf(rp.id).stream;
    call.type = gpu::ncclTypeOf(type_);
    call.elemBytes = static_cast<size_t>(elemBytes_);
    call.count = static_cast<size_t>(op.count);
    std::byte* send = slotPointer(op.send, rp.id, held, slots);
    std::byte* recv = slotPointer(op.recv, rp.id, held, slots);
    call.send = send == nullptr ? nullptr : send + op.sendOffset * elemBytes_;
    call.recv = recv == nullptr ? nullptr : recv + op.recvOffset * elemBytes_;
    if (op.kind == CommKind::Send || op.kind == CommKind::Recv) {
      call.peer = worldRank(op.peer);
      call.comm = worldComm(rp.id);
      return call;
    }
    call.comm = groupComm(program, op, rp.id);
    call.op = gpu::ncclOpOf(program.reduce.op);
    call.groupSize = static_cast<int>(program.groups.at(op.group).size());
    return call;
  }

  // A process id's rank in the world communicator: its place among all ranks.
  int worldRank(int64_t id) const {
    auto found = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (found == ids_.end() || *found != id)
      throw BackendError(fmt::format("process {} is not among the ranks the nccl backend was started with", id));
    return static_cast<int>(found - ids_.begin());
  }

  ncclComm_t worldComm(int64_t id) const { return processes_ != nullptr ? world_.front() : world_.at(index_.at(id)); }

  // The parts of `program` this process runs: every rank's, or its one rank's.
  std::vector<const RankProgram*> drivenPrograms(const StepProgram& program) const {
    std::vector<const RankProgram*> driven;
    for (const RankProgram& rp : program.ranks)
      if (drives(rp.id)) driven.push_back(&rp);
    return driven;
  }

  void runStep(const StepProgram& program, std::map<int64_t, Held>& held, ExecutionStats& stats) {
    const std::vector<const RankProgram*> driven = drivenPrograms(program);
    std::map<int64_t, Slots> slots;
    for (const RankProgram* rpp : driven) {
      const RankProgram& rp = *rpp;
      const RankState& rank = rankOf(rp.id);
      Slots& mine = slots[rp.id];
      const auto bytes = [&](int64_t elements) { return static_cast<size_t>(elements * elemBytes_); };
      mine.next = DeviceBuffer(rank.device, rank.stream, bytes(rp.nextElems), pooled_);
      mine.send = DeviceBuffer(rank.device, rank.stream, bytes(rp.sendElems), pooled_);
      mine.recv = DeviceBuffer(rank.device, rank.stream, bytes(rp.recvElems), pooled_);
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      for (const LocalOp& op : rp.pre) runLocal(op, rank, held, mine, stats);
    }
    // Every call is resolved before ncclGroupStart: an exception there (a
    // missing communicator or buffer) leaves NCCL untouched instead of letting
    // ncclGroupEnd launch part of the step.
    stats.ncclCalls += static_cast<int64_t>(comms_->launchGroup([&](std::vector<gpu::NcclCall>& calls) {
      for (const RankProgram* rp : driven)
        for (const CommOp& op : rp->comm) calls.push_back(makeCall(program, *rp, op, held, slots[rp->id]));
    }));
    for (const RankProgram* rp : driven) {
      const RankState& rank = rankOf(rp->id);
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      for (const LocalOp& op : rp->post) runLocal(op, rank, held, slots[rp->id], stats);
    }
    for (const RankProgram* rpp : driven) {
      const RankProgram& rp = *rpp;
      if (!rp.keeps) {
        held.erase(rp.id);
        continue;
      }
      Slots& mine = slots[rp.id];
      Held& result = held[rp.id];
      switch (rp.result) {
        case Slot::Cur: break;
        case Slot::Next: result.buffer = std::move(mine.next); break;
        case Slot::Send: result.buffer = std::move(mine.send); break;
        case Slot::Recv: result.buffer = std::move(mine.recv); break;
      }
      result.box = rp.after;
    }
  }

  // Polls every stream and communicator until the plan is done, an NCCL error
  // shows, or the timeout passes.
  void waitForAll() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
    while (true) {
      bool done = true;
      for (const RankState& rank : ranks_) {
        RESHARDCTL_CUDA(cudaSetDevice(rank.device));
        const cudaError_t status = cudaStreamQuery(rank.stream);
        if (status == cudaErrorNotReady) {
          done = false;
        } else if (status != cudaSuccess) {
          comms_->abortAll(fmt::format("CUDA error {} on GPU {}", cudaGetErrorString(status), rank.device));
        }
      }
      if (done) return;
      const std::string problem = comms_->asyncError();
      if (!problem.empty()) comms_->abortAll("NCCL reported an asynchronous error: " + problem);
      if (std::chrono::steady_clock::now() > deadline)
        comms_->abortAll(fmt::format("the plan did not finish within {:.0f} s, all its steps together "
                                     "(RESHARDCTL_NCCL_TIMEOUT_S)",
                                     timeout_));
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  ProcessGroup* processes_;  // nullptr: this process drives every rank
  double timeout_;
  gpu::Watchdog watchdog_;
  const gpu::NcclApi* nccl_ = nullptr;
  std::unique_ptr<gpu::NcclComms> comms_;  // owns every communicator below
  bool pooled_ = true;                     // stream-ordered allocation from the devices' pools
  std::vector<int64_t> ids_;  // every rank, sorted: the world communicator's order
  int devices_ = 0;
  std::vector<RankState> ranks_;
  std::map<int64_t, size_t> index_;
  std::vector<ncclComm_t> world_;
  std::map<std::vector<int64_t>, std::vector<ncclComm_t>> groups_;
  // Multi-process: this process's communicator per step group list (nullptr
  // where none of the groups holds its rank).
  std::map<std::vector<std::vector<int64_t>>, ncclComm_t> splits_;
  DeviceType type_ = DeviceType::F32;
  DType tensorDType_ = DType::F32;
  int64_t elemBytes_ = 4;
};

}  // namespace

std::unique_ptr<ExecutionBackend> makeNcclBackend(const std::vector<int64_t>& ranks, std::string* error,
                                                  ProcessGroup* processes) {
  auto backend = std::make_unique<NcclBackend>(processes);
  std::string problem = backend->init(ranks);
  if (!problem.empty()) {
    if (error != nullptr) *error = std::move(problem);
    return nullptr;
  }
  return backend;
}

bool ncclBackendBuilt() { return true; }

}  // namespace reshardctl
