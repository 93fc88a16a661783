// The NCCL backend: one process drives every GPU of the node, one rank per GPU.
//
// - Ranks: the process ids passed to makeNcclBackend, sorted; the i-th gets GPU i
//   (GPU i % count with RESHARDCTL_ALLOW_SHARED_GPU=1, which needs NCCL >= 2.30
//   and NCCL_MULTI_RANK_GPU_ENABLE=1: NCCL 2.28 refuses two ranks on one GPU).
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
//   NCCL calls, as one thread driving several devices must. Everything runs on
//   one stream per rank, so no step waits on the host.
// - Waiting: the plan's end is polled (cudaStreamQuery) together with
//   ncclCommGetAsyncError of every communicator; an NCCL error or the timeout
//   (RESHARDCTL_NCCL_TIMEOUT_S, 60 s) aborts all communicators and throws
//   BackendError, and the backend refuses further work. Host calls that can block
//   (init, ncclGroupEnd) run under a watchdog that exits with code 2.
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
#include "exec/gpu/nccl_setup.h"
#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/piece_exchange.h"
#include "exec/multiprocess/process_group.h"
#include "exec/step_program.h"

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

class NcclBackend final : public ExecutionBackend {
 public:
  explicit NcclBackend(ProcessGroup* processes)
      : processes_(processes), timeout_(gpu::ncclTimeoutSeconds()), watchdog_(timeout_) {}

  ~NcclBackend() override {
    // After an abort the streams may never drain; otherwise let them finish
    // before the communicators go.
    for (RankState& rank : ranks_) {
      if (broken_ || rank.stream == nullptr || cudaSetDevice(rank.device) != cudaSuccess) continue;
      static_cast<void>(cudaStreamSynchronize(rank.stream));
    }
    forEachComm([&](ncclComm_t comm) { static_cast<void>(broken_ ? ncclCommAbort(comm) : ncclCommDestroy(comm)); });
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
    std::string problem = ids_.empty() ? "the nccl backend needs at least one rank" : devicesProblem();
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
                            gpu::ncclVersionText(gpu::ncclRuntimeVersion()), error.what());
      // The others may be inside ncclCommInitRank, waiting for this process.
      if (processes_ != nullptr) processes_->abort(problem, 2);
    }
    return problem;
  }

  std::string_view name() const override { return "nccl"; }

  ExecutionStats execute(const Plan& plan, DistTensor& tensor) override {
    if (broken_) throw BackendError("the NCCL backend was aborted earlier: " + brokenReason_);
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
      runStep(program, held);
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
    const int version = gpu::ncclRuntimeVersion();
    if (version < 23000)
      return fmt::format("{} on {} GPU(s): RESHARDCTL_ALLOW_SHARED_GPU=1 needs NCCL >= 2.30 "
                         "(NCCL_MULTI_RANK_GPU_ENABLE), but this process loaded NCCL {}",
                         who, devices, gpu::ncclVersionText(version));
    setenv("NCCL_MULTI_RANK_GPU_ENABLE", "1", 0);  // read by NCCL at its first init, which follows
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
    // Keep freed pool memory: --iters then reuses it instead of paying the
    // driver again inside the timed steps.
    cudaMemPool_t pool = nullptr;
    RESHARDCTL_CUDA(cudaDeviceGetDefaultMemPool(&pool, mine.device));
    uint64_t keepAll = UINT64_MAX;
    RESHARDCTL_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll));
  }

  // One process, every rank: rank i on GPU i (i % count when shared).
  void startNode() {
    std::vector<int> deviceList;
    for (size_t i = 0; i < ids_.size(); ++i) {
      addRank(ids_[i], static_cast<int>(i % static_cast<size_t>(devices_)));
      deviceList.push_back(ranks_.back().device);
    }
    world_ = createComms(deviceList, "ncclCommInitAll (world)");
  }

  // One rank per process: world rank p drives ids_[p] on its node-local GPU.
  void startProcess() {
    if (processes_->size() != std::ssize(ids_))
      throw BackendError(processCountProblem(ids_, processes_->size()));
    addRank(rankOfProcess(ids_, processes_->rank()), processes_->localRank() % devices_);
    ncclUniqueId id{};
    if (processes_->rank() == 0) RESHARDCTL_NCCL(ncclGetUniqueId(&id));
    processes_->broadcast(std::as_writable_bytes(std::span(&id, 1)), 0);
    ncclComm_t comm = nullptr;
    gpu::Armed guard(watchdog_, "ncclCommInitRank (world)");
    RESHARDCTL_NCCL(ncclCommInitRank(&comm, processes_->size(), id, processes_->rank()));
    world_ = {comm};
  }

  bool drives(int64_t id) const { return index_.contains(id); }

  template <typename Visit>
  void forEachComm(Visit visit) {
    for (ncclComm_t comm : world_) visit(comm);
    for (auto& [group, comms] : groups_)
      for (ncclComm_t comm : comms) visit(comm);
    for (auto& [groups, comm] : splits_)
      if (comm != nullptr) visit(comm);
  }

  const RankState& rankOf(int64_t id) const {
    auto found = index_.find(id);
    if (found == index_.end())
      throw BackendError(fmt::format("process {} is not among the ranks the nccl backend was started with", id));
    return ranks_[found->second];
  }

  std::vector<ncclComm_t> createComms(const std::vector<int>& deviceList, const char* what) {
    std::vector<ncclComm_t> comms(deviceList.size(), nullptr);
    gpu::Armed guard(watchdog_, what);
    const ncclResult_t status = ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), deviceList.data());
    if (status == ncclInvalidUsage && hasDuplicates(deviceList))
      throw BackendError(fmt::format("NCCL {} refused two ranks on one GPU (needs NCCL >= 2.30 with "
                                     "NCCL_MULTI_RANK_GPU_ENABLE=1)",
                                     gpu::ncclVersionText(gpu::ncclRuntimeVersion())));
    if (status != ncclSuccess) gpu::throwNccl(status, what);
    return comms;
  }

  static bool hasDuplicates(std::vector<int> list) {
    std::sort(list.begin(), list.end());
    return std::adjacent_find(list.begin(), list.end()) != list.end();
  }

  // Communicators for every collective group of the plan, before timing starts.
  void prepareComms(const Plan& plan) {
    for (const Step& step : plan.steps) {
      if (step.kind == StepKind::SendRecv || step.kind == StepKind::Slice || step.kind == StepKind::PartialInit) continue;
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
    ncclComm_t comm = nullptr;
    RESHARDCTL_CUDA(cudaSetDevice(ranks_.front().device));
    gpu::Armed guard(watchdog_, "ncclCommSplit (mesh group)");
    RESHARDCTL_NCCL(ncclCommSplit(world_.front(), color, key, &comm, nullptr));
    splits_[groups] = comm;
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
      mine.buffer = DeviceBuffer(rank.device, rank.stream, bytes);
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

  void runLocal(const LocalOp& op, const RankState& rank, std::map<int64_t, Held>& held, Slots& slots) const {
    std::byte* dst = slotPointer(op.dst, rank.id, held, slots);
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
    }
  }

  void enqueueComm(const StepProgram& program, const RankProgram& rp, const CommOp& op, std::map<int64_t, Held>& held,
                   Slots& slots) {
    const RankState& rank = rankOf(rp.id);
    const ncclDataType_t dtype = gpu::ncclTypeOf(type_);
    const std::byte* send = slotPointer(op.send, rp.id, held, slots) + op.sendOffset * elemBytes_;
    std::byte* recv = slotPointer(op.recv, rp.id, held, slots) + op.recvOffset * elemBytes_;
    const auto count = static_cast<size_t>(op.count);
    if (op.kind == CommKind::Send) {
      RESHARDCTL_NCCL(ncclSend(send, count, dtype, worldRank(op.peer), worldComm(rp.id), rank.stream));
      return;
    }
    if (op.kind == CommKind::Recv) {
      RESHARDCTL_NCCL(ncclRecv(recv, count, dtype, worldRank(op.peer), worldComm(rp.id), rank.stream));
      return;
    }
    ncclComm_t comm = groupComm(program, op, rp.id);
    const ncclRedOp_t reduce = gpu::ncclOpOf(program.reduce.op);
    switch (op.kind) {
      case CommKind::AllReduce: RESHARDCTL_NCCL(ncclAllReduce(send, recv, count, dtype, reduce, comm, rank.stream)); return;
      case CommKind::ReduceScatter:
        RESHARDCTL_NCCL(ncclReduceScatter(send, recv, count, dtype, reduce, comm, rank.stream));
        return;
      case CommKind::AllGather: RESHARDCTL_NCCL(ncclAllGather(send, recv, count, dtype, comm, rank.stream)); return;
      case CommKind::AllToAll: {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
        RESHARDCTL_NCCL(ncclAlltoAll(send, recv, count, dtype, comm, rank.stream));
#else
        // Before 2.28 all-to-all is the documented send/recv pattern in a group.
        const size_t block = count * static_cast<size_t>(elemBytes_);
        for (size_t peer = 0; peer < program.groups.at(op.group).size(); ++peer) {
          RESHARDCTL_NCCL(ncclSend(send + peer * block, count, dtype, static_cast<int>(peer), comm, rank.stream));
          RESHARDCTL_NCCL(ncclRecv(recv + peer * block, count, dtype, static_cast<int>(peer), comm, rank.stream));
        }
#endif
        return;
      }
      case CommKind::Send:
      case CommKind::Recv: return;
    }
  }

  // A process id's rank in the world communicator: its place among all ranks.
  int worldRank(int64_t id) const {
    auto found = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (found == ids_.end() || *found != id)
      throw BackendError(fmt::format("process {} is not among the ranks the nccl backend was started with", id));
    return static_cast<int>(found - ids_.begin());
  }

  ncclComm_t worldComm(int64_t id) const { return world_[index_.at(id)]; }

  // The parts of `program` this process runs: every rank's, or its one rank's.
  std::vector<const RankProgram*> drivenPrograms(const StepProgram& program) const {
    std::vector<const RankProgram*> driven;
    for (const RankProgram& rp : program.ranks)
      if (drives(rp.id)) driven.push_back(&rp);
    return driven;
  }

  void runStep(const StepProgram& program, std::map<int64_t, Held>& held) {
    const std::vector<const RankProgram*> driven = drivenPrograms(program);
    std::map<int64_t, Slots> slots;
    for (const RankProgram* rpp : driven) {
      const RankProgram& rp = *rpp;
      const RankState& rank = rankOf(rp.id);
      Slots& mine = slots[rp.id];
      const auto bytes = [&](int64_t elements) { return static_cast<size_t>(elements * elemBytes_); };
      mine.next = DeviceBuffer(rank.device, rank.stream, bytes(rp.nextElems));
      mine.send = DeviceBuffer(rank.device, rank.stream, bytes(rp.sendElems));
      mine.recv = DeviceBuffer(rank.device, rank.stream, bytes(rp.recvElems));
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      for (const LocalOp& op : rp.pre) runLocal(op, rank, held, mine);
    }
    const bool communicates =
        std::any_of(driven.begin(), driven.end(), [](const RankProgram* rp) { return !rp->comm.empty(); });
    if (communicates) {
      RESHARDCTL_NCCL(ncclGroupStart());
      try {
        for (const RankProgram* rp : driven)
          for (const CommOp& op : rp->comm) enqueueComm(program, *rp, op, held, slots[rp->id]);
      } catch (...) {
        static_cast<void>(ncclGroupEnd());  // leave NCCL's group depth as it was
        throw;
      }
      gpu::Armed guard(watchdog_, "ncclGroupEnd");
      RESHARDCTL_NCCL(ncclGroupEnd());
    }
    for (const RankProgram* rp : driven) {
      const RankState& rank = rankOf(rp->id);
      RESHARDCTL_CUDA(cudaSetDevice(rank.device));
      for (const LocalOp& op : rp->post) runLocal(op, rank, held, slots[rp->id]);
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
          abortAll(fmt::format("CUDA error {} on GPU {}", cudaGetErrorString(status), rank.device));
        }
      }
      if (done) return;
      std::string problem;
      forEachComm([&](ncclComm_t comm) {
        ncclResult_t async = ncclSuccess;
        const ncclResult_t status = ncclCommGetAsyncError(comm, &async);
        if (problem.empty() && status != ncclSuccess) problem = ncclGetErrorString(status);
        if (problem.empty() && async != ncclSuccess && async != ncclInProgress)
          problem = fmt::format("{}: {}", ncclGetErrorString(async), ncclGetLastError(comm));
      });
      if (!problem.empty()) abortAll("NCCL reported an asynchronous error: " + problem);
      if (std::chrono::steady_clock::now() > deadline)
        abortAll(fmt::format("the plan did not finish within {:.0f} s (RESHARDCTL_NCCL_TIMEOUT_S)", timeout_));
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  [[noreturn]] void abortAll(const std::string& reason) {
    forEachComm([](ncclComm_t comm) { static_cast<void>(ncclCommAbort(comm)); });
    world_.clear();
    groups_.clear();
    splits_.clear();
    broken_ = true;
    brokenReason_ = reason;
    throw BackendError(reason + "; communicators aborted");
  }

  ProcessGroup* processes_;  // nullptr: this process drives every rank
  double timeout_;
  gpu::Watchdog watchdog_;
  std::vector<int64_t> ids_;  // every rank, sorted: the world communicator's order
  int devices_ = 0;
  std::vector<RankState> ranks_;
  std::map<int64_t, size_t> index_;
  std::vector<ncclComm_t> world_;
  std::map<std::vector<int64_t>, std::vector<ncclComm_t>> groups_;
  // Multi-process: this process's communicator per step group list (nullptr
  // where none of the groups holds its rank).
  std::map<std::vector<std::vector<int64_t>>, ncclComm_t> splits_;
  bool broken_ = false;
  std::string brokenReason_;
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
