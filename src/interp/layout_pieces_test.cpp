#include <cmath>
#include <limits>
#include <map>

#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"
#include "interp/layout_pieces.h"

namespace reshardctl {

using testing::checkValues;
using testing::tensor;

namespace {

ProcessMesh mesh1d(int64_t n) {
  ProcessMesh mesh{{n}, {}, true};
  for (int64_t i = 0; i < n; ++i) mesh.processIds.push_back(10 + i);  // ids differ from positions
  return mesh;
}

Layout layout(ProcessMesh mesh, Placements placements) { return {std::move(mesh), std::move(placements)}; }

// Every rank's piece of `global`, by process id.
std::map<int64_t, Tensor> split(const Tensor& global, const Layout& l) {
  std::map<int64_t, Tensor> pieces;
  for (int64_t p = 0; p < l.mesh.size(); ++p)
    pieces[processIdAt(l.mesh, p)] = pieceOf(global, l, meshCoord(l.mesh, p));
  return pieces;
}

Assembly assembleFrom(const std::map<int64_t, Tensor>& pieces, const Shape& shape, const Layout& l) {
  return assemble(shape, DType::F32, l, [&](int64_t id) -> const Tensor* {
    auto found = pieces.find(id);
    return found == pieces.end() ? nullptr : &found->second;
  }, toleranceFor(DType::F32));
}

const Tensor kGlobal = tensor({5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});

}  // namespace

TEST_CASE("shards follow Paddle's ceil chunks") {
  const Layout rows = layout(mesh1d(2), {Placement::shard(0)});
  auto pieces = split(kGlobal, rows);
  checkValues(pieces.at(10), {3, 2}, {1, 2, 3, 4, 5, 6});
  checkValues(pieces.at(11), {2, 2}, {7, 8, 9, 10});
  const Assembly a = assembleFrom(pieces, {5, 2}, rows);
  REQUIRE(a.problem == Assembly::Problem::None);
  CHECK(a.global.data == kGlobal.data);
  // 3 ranks over 2 columns: the last holds none.
  auto columns = split(kGlobal, layout(mesh1d(3), {Placement::shard(1)}));
  CHECK(columns.at(12).shape == Shape{5, 0});
}

TEST_CASE("a partial input: one rank holds the value, the others the identity") {
  const Tensor x = tensor({2}, {3, -1});
  checkValues(split(x, layout(mesh1d(2), {Placement::partial(ReduceType::Sum)})).at(11), {2}, {0, 0});
  checkValues(split(x, layout(mesh1d(2), {Placement::partial(ReduceType::Product)})).at(11), {2}, {1, 1});
  const Tensor maxIdentity = split(x, layout(mesh1d(2), {Placement::partial(ReduceType::Max)})).at(11);
  CHECK(maxIdentity.data[0] == -std::numeric_limits<double>::infinity());
  checkValues(split(x, layout(mesh1d(2), {Placement::partial(ReduceType::Avg)})).at(11), {2}, {3, -1});
  checkValues(split(x, layout(mesh1d(2), {Placement::partial(ReduceType::Sum)})).at(10), {2}, {3, -1});
}

TEST_CASE("partials of each reduce type assemble to their reduction") {
  const Shape shape{2};
  auto reduced = [&](ReduceType type, std::vector<double> a, std::vector<double> b) {
    const Layout l = layout(mesh1d(2), {Placement::partial(type)});
    const Assembly out = assembleFrom({{10, tensor(shape, a)}, {11, tensor(shape, b)}}, shape, l);
    REQUIRE(out.problem == Assembly::Problem::None);
    return out.global;
  };
  checkValues(reduced(ReduceType::Sum, {1, 2}, {3, -4}), shape, {4, -2});
  checkValues(reduced(ReduceType::Avg, {1, 2}, {3, -4}), shape, {2, -1});
  checkValues(reduced(ReduceType::Max, {1, 2}, {3, -4}), shape, {3, 2});
  checkValues(reduced(ReduceType::Min, {1, 2}, {3, -4}), shape, {1, -4});
  checkValues(reduced(ReduceType::Product, {1, 2}, {3, -4}), shape, {3, -8});
  checkValues(reduced(ReduceType::Any, {0, 1}, {0, 0}), shape, {0, 1});
  checkValues(reduced(ReduceType::All, {1, 1}, {0, 1}), shape, {0, 1});
}

TEST_CASE("a 2-D mesh: rows split on one mesh dim, partial on the other") {
  ProcessMesh mesh{{2, 2}, {0, 1, 2, 3}, true};
  const Layout l = layout(mesh, {Placement::shard(0), Placement::partial(ReduceType::Sum)});
  const Tensor global = tensor({4}, {1, 2, 3, 4});
  auto pieces = split(global, l);
  checkValues(pieces.at(0), {2}, {1, 2});
  checkValues(pieces.at(1), {2}, {0, 0});
  checkValues(pieces.at(2), {2}, {3, 4});
  pieces.at(1) = tensor({2}, {10, 10});
  pieces.at(0) = tensor({2}, {-9, -8});
  const Assembly a = assembleFrom(pieces, {4}, l);
  REQUIRE(a.problem == Assembly::Problem::None);
  checkValues(a.global, {4}, {1, 2, 3, 4});
}

TEST_CASE("replicas that disagree, a missing piece and a wrong shape are named") {
  const Layout replicated = layout(mesh1d(2), {Placement::replicate()});
  const Tensor x = tensor({2}, {1, 2});
  const Assembly differ = assembleFrom({{10, x}, {11, tensor({2}, {1, 2.5})}}, {2}, replicated);
  CHECK(differ.problem == Assembly::Problem::ReplicasDiffer);
  CHECK(differ.rank == 11);
  CHECK(differ.otherRank == 10);
  CHECK(differ.maxDiff == doctest::Approx(0.5));
  // Within f32 tolerance is agreement.
  CHECK(assembleFrom({{10, x}, {11, tensor({2}, {1, 2 + 1e-9})}}, {2}, replicated).problem == Assembly::Problem::None);
  const Assembly missing = assembleFrom({{10, x}}, {2}, replicated);
  CHECK(missing.problem == Assembly::Problem::MissingPiece);
  CHECK(missing.rank == 11);
  const Layout rows = layout(mesh1d(2), {Placement::shard(0)});
  const Assembly wrong = assembleFrom({{10, x}, {11, x}}, {2}, rows);
  CHECK(wrong.problem == Assembly::Problem::WrongShape);
  CHECK(wrong.held == Shape{2});
  CHECK(wrong.expected == Shape{1});
}

TEST_CASE("compareTensors reports the worst relative error and where") {
  const Tensor expected = tensor({2, 3}, {1, 2, 4, 8, 0, 1});
  const Mismatch none = compareTensors(expected, expected, toleranceFor(DType::F32));
  CHECK_FALSE(none.differs);
  const Mismatch m = compareTensors(tensor({2, 3}, {1, 2, 4, 4, 0, 1}), expected, toleranceFor(DType::F32));
  CHECK(m.differs);
  CHECK(m.maxRelErr == doctest::Approx(0.5));
  CHECK(indexText(m.index) == "[1,0]");
  CHECK(compareTensors(tensor({6}, {1, 2, 4, 8, 0, 1}), expected, {}).shapeDiffers);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(compareTensors(tensor({1}, {nan}), tensor({1}, {nan}), {}).differs);
  CHECK(compareTensors(tensor({1}, {nan}), tensor({1}, {1}), {}).differs);
}

TEST_CASE("tolerances follow the element type") {
  CHECK(withinTolerance(1.0 + 5e-6, 1.0, toleranceFor(DType::F32)));
  CHECK_FALSE(withinTolerance(1.0 + 5e-6, 1.0, toleranceFor(DType::F64)));
  CHECK(withinTolerance(1.004, 1.0, toleranceFor(DType::BF16)));
  CHECK_FALSE(withinTolerance(3.0, 2.0, toleranceFor(DType::I64)));
  CHECK(withinTolerance(1.5, 1.0, toleranceFor(DType::F32, 0.6)));
}

}  // namespace reshardctl
