// The GPU backend's lowering, run without a GPU: a host emulation interprets
// every rank's step program on byte buffers of the element type (NCCL's
// collectives emulated as their documentation defines them) and must end with
// exactly the pieces the reference executor produces, on random reshards with
// even, uneven and empty pieces.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>

#include "exec/cpu_executor.h"
#include "exec/element_codec.h"
#include "exec/gpu/selftest_plans.h"
#include "exec/reference_data.h"
#include "exec/step_program.h"
#include "reshard/planner.h"
#include "reshard/reduce_op.h"

using namespace reshardctl;

namespace {

using Bytes = std::vector<std::byte>;

struct HostRank {
  Box box;
  Bytes cur;
};

// The last element a copy touches on each side must lie inside its buffer.
void requireInside(const BoxCopy& copy, size_t srcBytes, size_t dstBytes) {
  if (copy.empty) return;
  int64_t srcLast = copy.srcOffset, dstLast = copy.dstOffset;
  for (int dim = 0; dim < copy.rank; ++dim) {
    srcLast += (copy.extent[dim] - 1) * copy.srcStride[dim];
    dstLast += (copy.extent[dim] - 1) * copy.dstStride[dim];
  }
  REQUIRE(copy.srcOffset >= 0);
  REQUIRE(copy.dstOffset >= 0);
  REQUIRE(static_cast<size_t>((srcLast + 1) * copy.unitBytes) <= srcBytes);
  REQUIRE(static_cast<size_t>((dstLast + 1) * copy.unitBytes) <= dstBytes);
}

class Emulator {
 public:
  Emulator(const DistTensor& tensor) : shape_(tensor.shape), dtype_(tensor.dtype) {
    elem_ = deviceTypeSize(*deviceTypeOf(dtype_));
    for (const auto& [id, piece] : tensor.pieces) {
      HostRank& rank = ranks_[id];
      rank.box = piece.box;
      rank.cur.resize(piece.values.size() * static_cast<size_t>(elem_));
      encodeValues(dtype_, piece.values.data(), piece.values.size(), rank.cur.data());
    }
  }

  int64_t bytesSent = 0;

  void run(const Step& step) {
    std::map<int64_t, Box> boxes;
    for (const auto& [id, rank] : ranks_) boxes[id] = rank.box;
    const StepProgram program = lowerStep(step, shape_, dtype_, boxes, elem_);
    bytesSent += program.communicationBytes(elem_);
    std::map<int64_t, std::map<Slot, Bytes>> slots;
    for (const RankProgram& rank : program.ranks) {
      auto& mine = slots[rank.id];
      if (rank.holdsBefore) mine[Slot::Cur] = ranks_.at(rank.id).cur;
      // Poison: the lowering must never read scratch it did not write, except
      // padding that is dropped again.
      mine[Slot::Next] = Bytes(static_cast<size_t>(rank.nextElems * elem_), std::byte{0x5a});
      mine[Slot::Send] = Bytes(static_cast<size_t>(rank.sendElems * elem_), std::byte{0x5a});
      mine[Slot::Recv] = Bytes(static_cast<size_t>(rank.recvElems * elem_), std::byte{0x5a});
    }
    for (const RankProgram& rank : program.ranks)
      for (const LocalOp& op : rank.pre) local(op, slots[rank.id]);
    communicate(program, slots);
    for (const RankProgram& rank : program.ranks)
      for (const LocalOp& op : rank.post) local(op, slots[rank.id]);
    for (const RankProgram& rank : program.ranks) {
      if (!rank.keeps) {
        ranks_.erase(rank.id);
        continue;
      }
      Bytes result = slots[rank.id][rank.result];
      REQUIRE(result.size() >= static_cast<size_t>(rank.after.volume() * elem_));
      result.resize(static_cast<size_t>(rank.after.volume() * elem_));
      ranks_[rank.id] = HostRank{rank.after, std::move(result)};
    }
  }

  std::map<int64_t, Piece> pieces() const {
    std::map<int64_t, Piece> result;
    for (const auto& [id, rank] : ranks_) {
      Piece piece = Piece::filled(rank.box, 0.0);
      decodeValues(dtype_, rank.cur.data(), piece.values.size(), piece.values.data());
      result[id] = std::move(piece);
    }
    return result;
  }

 private:
  std::vector<double> decode(const Bytes& bytes, int64_t offset, int64_t count) const {
    REQUIRE(offset >= 0);
    REQUIRE(static_cast<size_t>((offset + count) * elem_) <= bytes.size());
    std::vector<double> values(static_cast<size_t>(count));
    decodeValues(dtype_, bytes.data() + offset * elem_, values.size(), values.data());
    return values;
  }

  void encode(Bytes& bytes, int64_t offset, const std::vector<double>& values) const {
    REQUIRE(static_cast<size_t>((offset + static_cast<int64_t>(values.size())) * elem_) <= bytes.size());
    encodeValues(dtype_, values.data(), values.size(), bytes.data() + offset * elem_);
  }

  void local(const LocalOp& op, std::map<Slot, Bytes>& slots) const {
    Bytes& dst = slots[op.dst];
    switch (op.kind) {
      case LocalOp::Kind::Copy: {
        const Bytes& src = slots[op.src];
        requireInside(op.copy, src.size(), dst.size());
        copyBoxHost(op.copy, src.data(), dst.data());
        return;
      }
      case LocalOp::Kind::Fill:
        encode(dst, op.offset, std::vector<double>(static_cast<size_t>(op.count), op.value));
        return;
      case LocalOp::Kind::Logical: {
        std::vector<double> values = decode(dst, op.offset, op.count);
        for (double& value : values) value = value != 0.0 ? 1.0 : 0.0;
        encode(dst, op.offset, values);
        return;
      }
      case LocalOp::Kind::Divide: {
        std::vector<double> values = decode(dst, op.offset, op.count);
        for (double& value : values) value = roundToDType(value / static_cast<double>(op.divisor), dtype_);
        encode(dst, op.offset, values);
        return;
      }
      case LocalOp::Kind::Multiply: {
        std::vector<double> values = decode(dst, op.offset, op.count);
        for (double& value : values) value = roundToDType(value * static_cast<double>(op.divisor), dtype_);
        encode(dst, op.offset, values);
        return;
      }
      case LocalOp::Kind::Combine: {
        std::vector<double> values = decode(dst, op.offset, op.count);
        const std::vector<double> others = decode(slots[op.src], op.srcOffset, op.count);
        for (size_t i = 0; i < values.size(); ++i) values[i] = reduce(op.reduce, {values[i], others[i]});
        encode(dst, op.offset, values);
        return;
      }
    }
  }

  // NCCL's reduction of one element over the group, in rank order.
  double reduce(DeviceReduceOp op, const std::vector<double>& values) const {
    const double n = static_cast<double>(values.size());
    auto scaled = [&](double value) { return op == DeviceReduceOp::Avg ? roundToDType(value * (1.0 / n), dtype_) : value; };
    double result = scaled(values.front());
    for (size_t i = 1; i < values.size(); ++i) {
      const double value = scaled(values[i]);
      switch (op) {
        case DeviceReduceOp::Sum:
        case DeviceReduceOp::Avg: result = roundToDType(result + value, dtype_); break;
        case DeviceReduceOp::Prod: result = roundToDType(result * value, dtype_); break;
        case DeviceReduceOp::Max: result = std::max(result, value); break;
        case DeviceReduceOp::Min: result = std::min(result, value); break;
      }
    }
    return result;
  }

  void communicate(const StepProgram& program, std::map<int64_t, std::map<Slot, Bytes>>& slots) const {
    // Collectives: every member of a group posts exactly one op for it.
    for (size_t g = 0; g < program.groups.size(); ++g) {
      const auto& group = program.groups[g];
      std::vector<const CommOp*> ops;
      for (const int64_t id : group) {
        const auto rank = std::find_if(program.ranks.begin(), program.ranks.end(), [&](const RankProgram& r) { return r.id == id; });
        REQUIRE(rank != program.ranks.end());
        const CommOp* mine = nullptr;
        for (const CommOp& op : rank->comm)
          if (op.group == g && op.kind != CommKind::Send && op.kind != CommKind::Recv) mine = &op;
        ops.push_back(mine);
      }
      if (ops.front() == nullptr) {  // an empty collective is skipped by every member alike
        for (const CommOp* op : ops) REQUIRE(op == nullptr);
        continue;
      }
      const auto n = static_cast<int64_t>(group.size());
      for (const CommOp* op : ops) {
        REQUIRE(op != nullptr);
        REQUIRE(op->kind == ops.front()->kind);
        REQUIRE(op->count == ops.front()->count);
      }
      const int64_t count = ops.front()->count;
      const int64_t sendCount = ops.front()->kind == CommKind::ReduceScatter || ops.front()->kind == CommKind::AllToAll ? n * count : count;
      std::vector<std::vector<double>> sent;
      for (size_t i = 0; i < group.size(); ++i) sent.push_back(decode(slots[group[i]][ops[i]->send], ops[i]->sendOffset, sendCount));
      for (size_t i = 0; i < group.size(); ++i) {
        std::vector<double> out;
        switch (ops.front()->kind) {
          case CommKind::AllReduce:
          case CommKind::ReduceScatter: {
            const int64_t base = ops.front()->kind == CommKind::ReduceScatter ? static_cast<int64_t>(i) * count : 0;
            for (int64_t e = 0; e < count; ++e) {
              std::vector<double> column;
              for (const auto& values : sent) column.push_back(values[static_cast<size_t>(base + e)]);
              out.push_back(reduce(program.reduce.op, column));
            }
            break;
          }
          case CommKind::AllGather:
            for (const auto& values : sent) out.insert(out.end(), values.begin(), values.end());
            break;
          case CommKind::AllToAll:
            for (const auto& values : sent)
              out.insert(out.end(), values.begin() + static_cast<int64_t>(i) * count, values.begin() + static_cast<int64_t>(i + 1) * count);
            break;
          default: FAIL("not a collective");
        }
        encode(slots[group[i]][ops[i]->recv], ops[i]->recvOffset, out);
      }
    }
    // Point to point: the k-th send from s to d meets the k-th receive on d from s.
    std::map<std::pair<int64_t, int64_t>, std::vector<std::vector<double>>> inFlight;
    for (const RankProgram& rank : program.ranks)
      for (const CommOp& op : rank.comm)
        if (op.kind == CommKind::Send) {
          REQUIRE(op.peer != rank.id);
          inFlight[{rank.id, op.peer}].push_back(decode(slots[rank.id][op.send], op.sendOffset, op.count));
        }
    for (const RankProgram& rank : program.ranks)
      for (const CommOp& op : rank.comm)
        if (op.kind == CommKind::Recv) {
          auto& queue = inFlight[{op.peer, rank.id}];
          REQUIRE_FALSE(queue.empty());
          REQUIRE(static_cast<int64_t>(queue.front().size()) == op.count);
          encode(slots[rank.id][op.recv], op.recvOffset, queue.front());
          queue.erase(queue.begin());
        }
    for (const auto& [pair, queue] : inFlight) CHECK(queue.empty());
  }

  std::vector<int64_t> shape_;
  DType dtype_;
  int64_t elem_ = 1;
  std::map<int64_t, HostRank> ranks_;
};

const std::vector<std::vector<int64_t>> kMeshes = {{1}, {2}, {3}, {4}, {1, 2}, {2, 2}, {2, 3}, {2, 1, 2}, {2, 2, 2}};
constexpr std::array<DType, 9> kDTypes = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32,
                                          DType::I64, DType::Bool, DType::I8,  DType::U8};
constexpr std::array<ReduceType, 5> kArithmetic = {ReduceType::Sum, ReduceType::Avg, ReduceType::Max, ReduceType::Min,
                                                   ReduceType::Product};

struct Maker {
  std::mt19937_64 rng;
  int64_t pick(int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); }
  template <typename List>
  auto oneOf(const List& list) { return list[static_cast<size_t>(pick(0, static_cast<int64_t>(list.size()) - 1))]; }

  ProcessMesh mesh(int64_t firstId) {
    ProcessMesh result{oneOf(kMeshes), {}, true};
    for (int64_t i = 0; i < result.size(); ++i) result.processIds.push_back(firstId + i);
    if (pick(0, 3) == 0) std::shuffle(result.processIds.begin(), result.processIds.end(), rng);
    return result;
  }
  TensorDistAttr attr(const ProcessMesh& mesh, size_t rank, bool logical, ReduceType logicalType) {
    TensorDistAttr result;
    result.mesh = mesh;
    result.dimsMapping.assign(rank, -1);
    for (int64_t meshDim = 0; meshDim < mesh.ndim(); ++meshDim) {
      const int64_t roll = pick(0, 99);
      if (roll < 40 && rank > 0) {
        const size_t dim = static_cast<size_t>(pick(0, static_cast<int64_t>(rank) - 1));
        if (result.dimsMapping[dim] == -1) result.dimsMapping[dim] = meshDim;
      } else if (roll >= 70) {
        result.partials.push_back(PartialDim{meshDim, logical ? logicalType : oneOf(kArithmetic)});
      }
    }
    return result;
  }
};

// Runs `plan` step by step on the emulator and on the reference executor.
void checkPlan(const Plan& plan, bool logical, std::mt19937_64& rng) {
  const GlobalTensor global = randomGlobalTensor(plan.shape, plan.dtype, logical, rng);
  const DistTensor start = makeSourcePieces(global, plan.src, rng);
  DistTensor reference = start;
  Emulator device(start);
  for (const Step& step : plan.steps) {
    INFO(stepKindName(step.kind), " on mesh dim ", step.meshDim, " ", layoutText(step.from), " -> ", layoutText(step.to),
         " ", dtypeName(plan.dtype));
    executeStep(step, reference);
    device.run(step);
    const std::map<int64_t, Piece> got = device.pieces();
    REQUIRE(got.size() == reference.pieces.size());
    for (const auto& [id, piece] : reference.pieces) {
      CAPTURE(id);
      REQUIRE(got.contains(id));
      REQUIRE(got.at(id).box == piece.box);
      CHECK(got.at(id).values == piece.values);
    }
  }
  reference.pieces = device.pieces();
  reference.layout = plan.dst;
  const PieceCheck check = checkDestinationPieces(reference, global);
  CHECK_MESSAGE(check.ok(), check.problem);
}

void checkRandom(Maker& maker, bool crossMesh) {
  const ProcessMesh source = maker.mesh(0);
  const ProcessMesh destination = crossMesh ? maker.mesh(maker.oneOf(std::array<int64_t, 3>{{8, 2, 0}})) : source;
  std::vector<int64_t> shape(static_cast<size_t>(maker.pick(0, 3)));
  for (int64_t& extent : shape) extent = maker.pick(0, 9) == 0 ? 0 : maker.pick(1, 7);
  const bool logical = maker.pick(0, 4) == 0;
  const ReduceType logicalType = maker.pick(0, 1) == 0 ? ReduceType::Any : ReduceType::All;
  const ReshardRequest request{shape, maker.oneOf(kDTypes), maker.attr(source, shape.size(), logical, logicalType),
                               maker.attr(destination, shape.size(), logical, logicalType)};
  Plan plan;
  try {
    plan = planMinCost(request, CostModel{});
  } catch (const PlanError&) {
    return;
  }
  checkPlan(plan, logical, maker.rng);
}

bool logicalSource(const Plan& plan) {
  return std::any_of(plan.src.placements.begin(), plan.src.placements.end(), [](const Placement& p) {
    return p.isPartial() && (p.reduce == ReduceType::Any || p.reduce == ReduceType::All);
  });
}

}  // namespace

TEST_CASE("step programs: the host emulation of the NCCL path equals the reference executor on one mesh") {
  Maker maker{std::mt19937_64(7001)};
  for (int round = 0; round < 400; ++round) {
    CAPTURE(round);
    checkRandom(maker, false);
  }
}

TEST_CASE("step programs: the host emulation of the NCCL path equals the reference executor between meshes") {
  Maker maker{std::mt19937_64(7002)};
  for (int round = 0; round < 250; ++round) {
    CAPTURE(round);
    checkRandom(maker, true);
  }
}

TEST_CASE("step programs: even splits of the outermost dim need no packing") {
  // all_gather of S(0) on [2] -> R for a 4x3 f32 tensor: NCCL's blocks are the rows.
  ProcessMesh mesh{{2}, {0, 1}, true};
  Step step;
  step.kind = StepKind::AllGather;
  step.meshDim = 0;
  step.tensorDim = 0;
  step.groups = {{0, 1}};
  step.from = Layout{mesh, {Placement::shard(0)}};
  step.to = Layout{mesh, {Placement::replicate()}};
  const std::map<int64_t, Box> boxes = {{0, Box{{0, 0}, {2, 3}}}, {1, Box{{2, 0}, {4, 3}}}};
  const StepProgram program = lowerStep(step, {4, 3}, DType::F32, boxes, 4);
  REQUIRE(program.ranks.size() == 2);
  for (const RankProgram& rank : program.ranks) {
    CHECK(rank.pre.empty());
    CHECK(rank.post.empty());
    REQUIRE(rank.comm.size() == 1);
    CHECK(rank.comm[0].send == Slot::Cur);
    CHECK(rank.comm[0].count == 6);
    CHECK(rank.result == Slot::Recv);
  }
  CHECK(program.communicationBytes(4) == 2 * 6 * 4);

  // Uneven: 5 rows over 2 ranks are blocks of 3 rows; rank 1's 2 rows are padded.
  const std::map<int64_t, Box> uneven = {{0, Box{{0, 0}, {3, 3}}}, {1, Box{{3, 0}, {5, 3}}}};
  const StepProgram padded = lowerStep(step, {5, 3}, DType::F32, uneven, 4);
  CHECK(padded.ranks[0].comm[0].send == Slot::Cur);
  CHECK(padded.ranks[1].comm[0].send == Slot::Send);
  CHECK(padded.ranks[1].comm[0].count == 9);
  CHECK(padded.ranks[1].result == Slot::Recv);  // rows 0-4 of the 6 received are the tensor
}

TEST_CASE("step programs: the lowering rejects what the reference executor rejects") {
  ProcessMesh mesh{{2}, {0, 1}, true};
  Step step;
  step.kind = StepKind::AllReduce;
  step.meshDim = 0;
  step.reduce = ReduceType::Sum;
  step.groups = {{0, 1}};
  step.from = Layout{mesh, {Placement::partial(ReduceType::Sum)}};
  step.to = Layout{mesh, {Placement::replicate()}};
  CHECK_THROWS_AS(lowerStep(step, {4}, DType::F32, {{0, Box{{0}, {4}}}}, 4), ExecutionError);
  CHECK_THROWS_AS(lowerStep(step, {4}, DType::F32, {{0, Box{{0}, {4}}}, {1, Box{{0}, {2}}}}, 4), ExecutionError);
}

TEST_CASE("step programs: gpu_selftest's plans (hand-built 1-rank steps, 2-rank plans) pass the host emulation") {
  std::mt19937_64 rng(7003);
  for (const std::vector<Plan>& plans : {gpu::singleRankPlans(), gpu::twoRankPlans()})
    for (const Plan& plan : plans) {
      CAPTURE(layoutText(plan.src));
      CAPTURE(layoutText(plan.dst));
      CAPTURE(dtypeName(plan.dtype));
      checkPlan(plan, logicalSource(plan), rng);
    }
}

TEST_CASE("step programs: an all_reduce over the flattened group of several mesh dims runs as the reference does") {
  std::mt19937_64 rng(7003);
  const ProcessMesh mesh{{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, true};
  TensorDistAttr partial;
  partial.mesh = mesh;
  partial.dimsMapping = {-1, 1};
  partial.partials = {{0, ReduceType::Sum}, {2, ReduceType::Sum}};
  TensorDistAttr replicated = partial;
  replicated.partials.clear();
  const Plan plan = planMinCost({{6, 5}, DType::F32, partial, replicated}, CostModel{});
  REQUIRE(plan.steps.size() == 1);
  REQUIRE(plan.steps[0].meshDims == std::vector<int64_t>{0, 2});
  CHECK(plan.steps[0].groups == std::vector<std::vector<int64_t>>{{0, 1, 4, 5}, {2, 3, 6, 7}});
  checkPlan(plan, false, rng);
}

TEST_CASE("step programs: flattened all_gather and reduce_scatter, and a permutation of pieces, run as the reference does") {
  std::mt19937_64 rng(7004);
  const ProcessMesh mesh{{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, true};
  auto attr = [&](std::vector<int64_t> dims, std::vector<PartialDim> partials = {}) {
    TensorDistAttr result;
    result.mesh = mesh;
    result.dimsMapping = std::move(dims);
    result.partials = std::move(partials);
    return result;
  };
  const std::vector<std::pair<TensorDistAttr, TensorDistAttr>> cases = {
      {attr({0, 2, -1}), attr({-1, -1, -1})},                                                     // all_gather over 0+2
      {attr({-1, -1, -1}, {{0, ReduceType::Sum}, {1, ReduceType::Sum}}), attr({0, -1, 1})},       // reduce_scatter
      {attr({0, 1, 2}), attr({2, 0, 1})},                                                         // permutation
      {attr({0, -1, -1}), attr({1, -1, -1})},                                                     // permutation, replicas
  };
  for (const auto& [src, dst] : cases)
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{8, 6, 4}, std::vector<int64_t>{5, 3, 7}}) {
      const Plan plan = planMinCost({shape, DType::F32, src, dst}, CostModel{});
      CAPTURE(layoutText(plan.src));
      CAPTURE(layoutText(plan.dst));
      REQUIRE(plan.steps.size() == 1);
      CHECK((!plan.steps[0].meshDims.empty() || plan.steps[0].kind == StepKind::SendRecv));
      checkPlan(plan, false, rng);
    }
}

TEST_CASE("step programs: a scale between SUM and AVG partials runs as the reference does") {
  std::mt19937_64 rng(7005);
  const ProcessMesh mesh{{2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}, true};
  auto attr = [&](std::vector<int64_t> dims, ReduceType type) {
    TensorDistAttr result;
    result.mesh = mesh;
    result.dimsMapping = std::move(dims);
    result.partials = {{1, type}};
    return result;
  };
  for (const DType dtype : {DType::F32, DType::BF16, DType::F16, DType::F64})
    for (const auto& [from, to] : {std::pair{ReduceType::Sum, ReduceType::Avg}, std::pair{ReduceType::Avg, ReduceType::Sum}}) {
      const Plan plan = planMinCost({{6, 5}, dtype, attr({0, -1}, from), attr({0, -1}, to)}, CostModel{});
      CAPTURE(dtypeName(dtype));
      REQUIRE(plan.steps.size() == 1);
      CHECK(plan.steps[0].kind == StepKind::Scale);
      checkPlan(plan, false, rng);
    }
}

TEST_CASE("step programs: a send_recv that reduces on arrival runs as the reference does") {
  std::mt19937_64 rng(7006);
  const ProcessMesh stage0{{2}, {0, 1}, true};
  const ProcessMesh stage1{{2}, {2, 3}, true};
  for (const DType dtype : {DType::F32, DType::BF16, DType::I32})
    for (const ReduceType type : {ReduceType::Sum, ReduceType::Max, ReduceType::Min})
      for (const std::vector<int64_t>& dims : {std::vector<int64_t>{-1, -1}, std::vector<int64_t>{0, -1},
                                               std::vector<int64_t>{-1, 0}}) {
        const TensorDistAttr src{stage0, {-1, -1}, {{0, type}}, {}};
        const TensorDistAttr dst{stage1, dims, {}, {}};
        const Plan plan = planMinCost({{6, 5}, dtype, src, dst}, CostModel{});
        CAPTURE(dtypeName(dtype));
        CAPTURE(reduceTypeName(type));
        CAPTURE(layoutText(plan.dst));
        REQUIRE(!plan.steps.empty());
        CHECK(plan.steps[0].kind == StepKind::SendRecv);
        CHECK(plan.steps[0].reduce == type);
        checkPlan(plan, false, rng);
      }
}
