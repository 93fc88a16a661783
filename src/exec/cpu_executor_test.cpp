#include "exec/cpu_executor.h"

#include <doctest/doctest.h>

#include <random>

#include "exec/reference_data.h"
#include "reshard/mesh_coords.h"

using namespace reshardctl;

namespace {

const ProcessMesh kMesh4{{4}, {0, 1, 2, 3}, true};

// A global tensor whose values are 0, 1, 2, ... in row-major order.
GlobalTensor counting(const std::vector<int64_t>& shape) {
  GlobalTensor global{DType::F32, Piece::filled(fullBox(shape), 0.0)};
  for (size_t i = 0; i < global.data.values.size(); ++i) global.data.values[i] = static_cast<double>(i);
  return global;
}

Step collective(StepKind kind, const Layout& from, const Layout& to, int64_t meshDim) {
  Step step;
  step.kind = kind;
  step.meshDim = meshDim;
  step.groups = groupsAlong(from.mesh, meshDim);
  step.from = from;
  step.to = to;
  return step;
}

Layout on4(Placement placement) { return {kMesh4, {placement}}; }

}  // namespace

TEST_CASE("cpu executor: all_gather concatenates uneven chunks, empty ones included") {
  std::mt19937_64 rng(7);
  const GlobalTensor global = counting({5, 2});
  DistTensor tensor = makeSourcePieces(global, on4(Placement::shard(0)), rng);
  CHECK(tensor.pieces.at(3).box.extent(0) == 0);  // 5 rows over 4 ranks: 2, 2, 1, 0
  Step step = collective(StepKind::AllGather, on4(Placement::shard(0)), on4(Placement::replicate()), 0);
  step.tensorDim = 0;
  executeStep(step, tensor);
  for (const auto& [id, piece] : tensor.pieces) CHECK(piece.values == global.data.values);
}

TEST_CASE("cpu executor: all_to_all trades the split dim") {
  std::mt19937_64 rng(7);
  const GlobalTensor global = counting({4, 6});
  DistTensor tensor = makeSourcePieces(global, on4(Placement::shard(0)), rng);
  Step step = collective(StepKind::AllToAll, on4(Placement::shard(0)), on4(Placement::shard(1)), 0);
  step.fromTensorDim = 0;
  step.tensorDim = 1;
  executeStep(step, tensor);
  // Rank 1 now holds columns [2,4) of every row.
  CHECK(tensor.pieces.at(1).values == std::vector<double>{2, 3, 8, 9, 14, 15, 20, 21});
  CHECK(tensor.pieces.at(3).box.extent(1) == 0);  // 6 columns over 4: 2, 2, 2, 0
}

TEST_CASE("cpu executor: reduce_scatter reduces, then keeps each rank's chunk") {
  DistTensor tensor{{4}, DType::I32, on4(Placement::partial(ReduceType::Max)), {}};
  for (int64_t id = 0; id < 4; ++id) {
    Piece piece = Piece::filled(fullBox({4}), 0.0);
    for (int64_t i = 0; i < 4; ++i) piece.values[static_cast<size_t>(i)] = static_cast<double>((id + i) % 4);
    tensor.pieces[id] = piece;
  }
  Step step = collective(StepKind::ReduceScatter, tensor.layout, on4(Placement::shard(0)), 0);
  step.reduce = ReduceType::Max;
  step.tensorDim = 0;
  executeStep(step, tensor);
  for (int64_t id = 0; id < 4; ++id) CHECK(tensor.pieces.at(id).values == std::vector<double>{3});
}

TEST_CASE("cpu executor: partial_init leaves one holder per element") {
  std::mt19937_64 rng(3);
  const GlobalTensor global = counting({5});
  DistTensor fromReplicated = makeSourcePieces(global, on4(Placement::replicate()), rng);
  Step init = collective(StepKind::PartialInit, on4(Placement::replicate()),
                         on4(Placement::partial(ReduceType::Product)), 0);
  init.reduce = ReduceType::Product;
  executeStep(init, fromReplicated);
  CHECK(fromReplicated.pieces.at(0).values == global.data.values);
  CHECK(fromReplicated.pieces.at(2).values == std::vector<double>(5, 1.0));

  DistTensor fromShard = makeSourcePieces(global, on4(Placement::shard(0)), rng);
  Step pad = collective(StepKind::PartialInit, on4(Placement::shard(0)), on4(Placement::partial(ReduceType::Sum)), 0);
  pad.reduce = ReduceType::Sum;
  pad.fromTensorDim = 0;
  executeStep(pad, fromShard);
  CHECK(fromShard.pieces.at(1).values == std::vector<double>{0, 0, 2, 3, 0});
  CHECK(checkDestinationPieces(fromShard, global).ok());
}

TEST_CASE("cpu executor: scale turns SUM pieces into AVG pieces of the same value, and back") {
  std::mt19937_64 rng(4);
  const GlobalTensor global = counting({6});
  const Layout sum = on4(Placement::partial(ReduceType::Sum));
  const Layout avg = on4(Placement::partial(ReduceType::Avg));
  DistTensor tensor = makeSourcePieces(global, sum, rng);
  const std::vector<double> before = tensor.pieces.at(2).values;
  Step toAvg = collective(StepKind::Scale, sum, avg, 0);
  toAvg.reduce = ReduceType::Avg;
  toAvg.scale = 4;
  executeStep(toAvg, tensor);
  CHECK(tensor.pieces.at(2).values[1] == before[1] * 4);
  CHECK(checkDestinationPieces(tensor, global).ok());
  Step toSum = collective(StepKind::Scale, avg, sum, 0);
  toSum.reduce = ReduceType::Sum;
  toSum.scale = 0.25;
  executeStep(toSum, tensor);
  CHECK(tensor.pieces.at(2).values == before);
  CHECK(checkDestinationPieces(tensor, global).ok());
}

TEST_CASE("cpu executor: send_recv assembles each destination from its pairs") {
  std::mt19937_64 rng(5);
  const GlobalTensor global = counting({4});
  const Layout from{ProcessMesh{{2}, {0, 1}, true}, {Placement::shard(0)}};
  const Layout to{ProcessMesh{{1}, {1}, true}, {Placement::replicate()}};
  DistTensor tensor = makeSourcePieces(global, from, rng);
  Step move;
  move.kind = StepKind::SendRecv;
  move.groups = {{0, 1}, {1, 1}};
  move.from = from;
  move.to = to;
  executeStep(move, tensor);
  REQUIRE(tensor.pieces.size() == 1);
  CHECK(tensor.pieces.at(1).values == global.data.values);

  DistTensor missing = makeSourcePieces(global, from, rng);
  move.groups = {{1, 1}};  // rows [0,2) never arrive
  CHECK_THROWS_AS(executeStep(move, missing), ExecutionError);
}

TEST_CASE("reference data: source pieces reduce to the global value for every type") {
  const Layout twoPartials{ProcessMesh{{2, 3}, {0, 1, 2, 3, 4, 5}, true},
                           {Placement::partial(ReduceType::Max), Placement::partial(ReduceType::Sum)}};
  for (ReduceType type : {ReduceType::Sum, ReduceType::Avg, ReduceType::Max, ReduceType::Min, ReduceType::Product,
                          ReduceType::Any, ReduceType::All})
    for (DType dtype : {DType::F32, DType::BF16, DType::I8, DType::U8, DType::Bool}) {
      CAPTURE(reduceTypeName(type));
      CAPTURE(dtypeName(dtype));
      std::mt19937_64 rng(11);
      const bool logical = type == ReduceType::Any || type == ReduceType::All;
      const GlobalTensor global = randomGlobalTensor({3, 4}, dtype, logical, rng);
      const Layout layout{kMesh4, {Placement::partial(type)}};
      CHECK(checkDestinationPieces(makeSourcePieces(global, layout, rng), global).ok());
      if (!logical) CHECK(checkDestinationPieces(makeSourcePieces(global, twoPartials, rng), global).ok());
    }
}

TEST_CASE("reference data: above an ANY/ALL partial dim the pieces are 0/1 parts (issue 16, B2)") {
  // The global value is the nested reduction, lowest mesh dim first: with an
  // ANY/ALL below, the pieces split over the higher dims must be 0/1.
  const ProcessMesh mesh2x3{{2, 3}, {0, 1, 2, 3, 4, 5}, true};
  for (ReduceType low : {ReduceType::Any, ReduceType::All})
    for (ReduceType high : {ReduceType::Sum, ReduceType::Avg, ReduceType::Max, ReduceType::Min, ReduceType::Product,
                            ReduceType::Any, ReduceType::All})
      for (DType dtype : {DType::F32, DType::BF16, DType::I8, DType::U8, DType::Bool}) {
        CAPTURE(reduceTypeName(low));
        CAPTURE(reduceTypeName(high));
        CAPTURE(dtypeName(dtype));
        std::mt19937_64 rng(17);
        const GlobalTensor global = randomGlobalTensor({3, 4}, dtype, true, rng);
        const Layout layout{mesh2x3, {Placement::partial(low), Placement::partial(high)}};
        CHECK(checkDestinationPieces(makeSourcePieces(global, layout, rng), global).ok());
      }
  const Layout three{ProcessMesh{{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, true},
                     {Placement::partial(ReduceType::Any), Placement::partial(ReduceType::Sum),
                      Placement::partial(ReduceType::Product)}};
  std::mt19937_64 rng(19);
  const GlobalTensor global = randomGlobalTensor({5}, DType::I32, true, rng);
  CHECK(checkDestinationPieces(makeSourcePieces(global, three, rng), global).ok());
}

TEST_CASE("reference data: the check catches wrong values, wrong boxes and diverging replicas") {
  std::mt19937_64 rng(13);
  const GlobalTensor global = counting({4, 2});
  const Layout layout{ProcessMesh{{2, 2}, {0, 1, 2, 3}, true}, {Placement::shard(0), Placement::replicate()}};
  const DistTensor good = makeSourcePieces(global, layout, rng);
  REQUIRE(checkDestinationPieces(good, global).ok());

  DistTensor replicaOff = good;
  replicaOff.pieces.at(1).values[0] += 1;  // process 1 replicates process 0
  CHECK_FALSE(checkDestinationPieces(replicaOff, global).ok());

  DistTensor bothOff = good;
  bothOff.pieces.at(0).values[0] += 2;
  bothOff.pieces.at(1).values[0] += 2;
  const PieceCheck valueCheck = checkDestinationPieces(bothOff, global);
  CHECK(valueCheck.maxError == 2.0);

  DistTensor wrongBox = good;
  wrongBox.pieces.at(2) = extractPiece(global.data, fullBox({4, 2}));
  CHECK_FALSE(checkDestinationPieces(wrongBox, global).problem.empty());

  DistTensor partialOff = makeSourcePieces(global, {layout.mesh, {Placement::partial(ReduceType::Sum),
                                                                  Placement::replicate()}}, rng);
  partialOff.pieces.at(0).values[3] += 1;
  partialOff.pieces.at(1).values[3] += 1;
  CHECK(checkDestinationPieces(partialOff, global).maxError == 1.0);
}

TEST_CASE("cpu executor: with kept ranks, a step gives the kept ranks what it gives them in full") {
  // 2x2 mesh, all_reduce along dim 1 (groups {0,1} and {2,3}): keeping rank 2
  // needs only its group's pieces, and leaves the other group alone.
  const ProcessMesh mesh{{2, 2}, {0, 1, 2, 3}, true};
  const Layout from{mesh, {Placement::shard(0), Placement::partial(ReduceType::Sum)}};
  const Layout to{mesh, {Placement::shard(0), Placement::replicate()}};
  std::mt19937_64 rng(3);
  const GlobalTensor global = counting({4, 3});
  DistTensor full = makeSourcePieces(global, from, rng);
  DistTensor shared = full;
  shared.pieces.erase(0);  // rank 0's group is not kept: its pieces need not be held
  shared.pieces.erase(1);
  const Step step = collective(StepKind::AllReduce, from, to, 1);
  executeStep(step, full);
  executeStep(step, shared, [](int64_t id) { return id == 2; });
  CHECK(shared.pieces.at(2).values == full.pieces.at(2).values);
  CHECK(shared.pieces.at(2).box == full.pieces.at(2).box);
  CHECK_FALSE(shared.pieces.contains(0));
}

TEST_CASE("cpu executor: makeSourcePieces with kept ranks cuts the same pieces for them alone") {
  const Layout layout{kMesh4, {Placement::partial(ReduceType::Sum)}};
  std::mt19937_64 allRng(11), keptRng(11);
  const GlobalTensor global = counting({3, 2});
  const DistTensor all = makeSourcePieces(global, layout, allRng);
  const DistTensor kept = makeSourcePieces(global, layout, keptRng, [](int64_t id) { return id == 1 || id == 3; });
  REQUIRE(kept.pieces.size() == 2);
  CHECK(kept.pieces.at(1).values == all.pieces.at(1).values);
  CHECK(kept.pieces.at(3).values == all.pieces.at(3).values);
}
