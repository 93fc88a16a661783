#include "program_generator.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <random>

namespace differential {

namespace {

constexpr std::array<const char*, 8> kComputeNames = {"pd_op.relu",  "pd_op.add",      "pd_op.matmul", "pd_op.tanh",
                                                      "pd_op.scale", "pd_op.multiply", "pd_op.assign", "pd_op.concat"};
constexpr std::array<const char*, 5> kDTypes = {"f32", "f16", "i32", "i64", "b"};
constexpr std::array<Reduce, 7> kReduces = {Reduce::Sum, Reduce::Max, Reduce::Min, Reduce::Product,
                                            Reduce::Avg, Reduce::Any, Reduce::All};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) { program_.seed = seed; }

  ProgramModel run() {
    makeMeshes();
    program_.debugIds = chance(15);
    program_.placements = chance(40);
    program_.blocks.emplace_back();
    std::vector<int> scope;
    if (chance(15)) keywordArguments(scope);
    fillBlock(0, scope, 0, static_cast<int>(pick(6, 18)));
    if (program_.debugIds) numberDebugIds();
    return std::move(program_);
  }

 private:
  // ---- randomness ----
  int64_t pick(int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng_); }
  bool chance(int percent) { return pick(0, 99) < percent; }
  template <typename List>
  auto oneOf(const List& list) {
    return list[static_cast<size_t>(pick(0, static_cast<int64_t>(std::size(list)) - 1))];
  }

  // ---- meshes ----
  void makeMeshes() {
    const int count = static_cast<int>(pick(1, 3));
    while (static_cast<int>(program_.meshes.size()) < count) {
      if (!program_.meshes.empty() && chance(40)) program_.meshes.push_back(relatedMesh(program_.meshes.back()));
      else program_.meshes.push_back(freshMesh());
    }
  }

  std::vector<int64_t> meshShape(int64_t size) {
    // A shape of 1-3 dims whose product is `size`, when one exists.
    std::vector<std::vector<int64_t>> shapes;
    for (int64_t a = 1; a <= size; ++a) {
      if (size % a != 0) continue;
      shapes.push_back({size});
      for (int64_t b = 1; b <= size / a; ++b)
        if ((size / a) % b == 0) shapes.push_back({a, size / a / b, b});
      shapes.push_back({a, size / a});
    }
    std::vector<int64_t> shape = oneOf(shapes);
    if (shape.size() == 3 && chance(50)) shape = {shape[0] * shape[1], shape[2]};
    return shape;
  }

  Mesh freshMesh() {
    const int64_t size = pick(1, 8);
    Mesh mesh{meshShape(size), std::vector<int64_t>(static_cast<size_t>(size)), false};
    std::iota(mesh.ids.begin(), mesh.ids.end(), pick(0, 4));
    if (chance(30)) std::shuffle(mesh.ids.begin(), mesh.ids.end(), rng_);
    return mesh;
  }

  // The same ids in another shape or order, or a sub-mesh of them.
  Mesh relatedMesh(const Mesh& base) {
    Mesh mesh = base;
    switch (pick(0, 3)) {
      case 0: mesh.shape = meshShape(static_cast<int64_t>(base.ids.size())); break;
      case 1: std::shuffle(mesh.ids.begin(), mesh.ids.end(), rng_); break;
      case 2:
        mesh.ids.resize(static_cast<size_t>(pick(1, static_cast<int64_t>(base.ids.size()))));
        mesh.shape = meshShape(static_cast<int64_t>(mesh.ids.size()));
        break;
      default: return freshMesh();
    }
    return mesh;
  }

  int userMesh() {
    std::vector<int> user;
    for (size_t i = 0; i < program_.meshes.size(); ++i)
      if (!program_.meshes[i].merged) user.push_back(static_cast<int>(i));
    return oneOf(user);
  }

  // ---- layouts and types ----
  Dist randomDist(int meshIndex, size_t rank) {
    const Mesh& mesh = program_.meshes[static_cast<size_t>(meshIndex)];
    Dist dist{meshIndex, std::vector<int64_t>(rank, -1), {}};
    std::vector<bool> used(mesh.shape.size(), false);
    for (int64_t& dim : dist.dims) {
      const int64_t meshDim = pick(0, static_cast<int64_t>(mesh.shape.size()) - 1);
      if (chance(40) && !used[static_cast<size_t>(meshDim)]) {
        dim = meshDim;
        used[static_cast<size_t>(meshDim)] = true;
      }
    }
    for (size_t meshDim = 0; meshDim < mesh.shape.size(); ++meshDim)
      if (!used[meshDim] && chance(35)) dist.partials.emplace_back(static_cast<int64_t>(meshDim), oneOf(kReduces));
    std::shuffle(dist.partials.begin(), dist.partials.end(), rng_);
    return dist;
  }

  // A destination layout: an ANY/ALL partial below another type cannot be made
  // for non-bool values, so keep such entries rare.
  Dist entryDist(int meshIndex, const TensorType& type) {
    Dist dist = randomDist(meshIndex, type.shape.size());
    if (type.dtype != "b" && logicalBelowOther(dist) && !chance(50)) dist.partials.clear();
    return dist;
  }

  static bool logicalBelowOther(const Dist& dist) {
    for (const auto& [low, lowType] : dist.partials)
      for (const auto& [high, highType] : dist.partials)
        if (isLogical(lowType) && low < high && highType != lowType) return true;
    return false;
  }

  TensorType randomType(bool distributed, int meshIndex) {
    TensorType type;
    type.shape.resize(static_cast<size_t>(chance(10) ? 0 : pick(1, 3)));
    for (int64_t& extent : type.shape) extent = chance(4) ? -1 : pick(1, 6);  // -1: a dynamic dim
    type.dtype = chance(60) ? "f32" : oneOf(kDTypes);
    if (distributed) type.dist = randomDist(meshIndex, type.shape.size());
    return type;
  }

  int newValue(TensorType type, ValueKind kind, int op, int index) {
    program_.values.push_back(ValueModel{std::move(type), kind, op, index});
    return static_cast<int>(program_.values.size()) - 1;
  }

  const TensorType& typeOf(int value) const { return program_.values[static_cast<size_t>(value)].type; }

  // `^kw:%kwarg_a, ...`: values with no defining op, typed by their first use.
  void keywordArguments(std::vector<int>& scope) {
    const int64_t count = pick(1, 2);
    for (int64_t i = 0; i < count; ++i) {
      const int value = newValue(randomType(chance(70), userMesh()), ValueKind::BlockArg, -1, static_cast<int>(i));
      program_.blocks[0].args.push_back(value);
      program_.keywordNames.push_back(i == 0 ? "lr" : "x");
      scope.push_back(value);
    }
  }

  // ---- ops ----
  int addOp(int block, OpModel op) {
    program_.ops.push_back(std::move(op));
    const int index = static_cast<int>(program_.ops.size()) - 1;
    program_.blocks[static_cast<size_t>(block)].ops.push_back(index);
    return index;
  }

  int addResult(int op, TensorType type) {
    OpModel& model = program_.ops[static_cast<size_t>(op)];
    const int value = newValue(std::move(type), ValueKind::OpResult, op, static_cast<int>(model.results.size()));
    program_.ops[static_cast<size_t>(op)].results.push_back(value);
    return value;
  }

  std::vector<bool> stopGradients(size_t results) {
    std::vector<bool> flags(results);
    for (size_t i = 0; i < results; ++i) flags[i] = chance(50);
    return flags;
  }

  // A value of scope, later ones likelier (multi-use comes from repeats).
  int pickValue(const std::vector<int>& scope) {
    const int64_t n = static_cast<int64_t>(scope.size());
    const int64_t back = std::min(pick(0, n - 1), pick(0, n - 1));
    return scope[static_cast<size_t>(n - 1 - back)];
  }

  void fillBlock(int block, std::vector<int>& scope, int depth, int budget) {
    for (int made = 0; made < budget; ++made) {
      const int64_t roll = pick(0, 99);
      if (scope.empty() || roll < 18) scope.push_back(dataOp(block));
      else if (roll < 22) scope.push_back(denseOp(block));
      else if (roll < 72) computeOp(block, scope);
      else if (roll < 78) reshardOp(block, scope);
      else if (roll < 84) shadowOutput(block, scope);
      else if (roll < 92 && depth < 2) ifOp(block, scope, depth);
      else if (depth < 2) whileOp(block, scope, depth);
    }
  }

  int dataOp(int block) {
    const int mesh = userMesh();
    OpModel op;
    op.name = "pd_op.data";
    op.dataName = "x" + std::to_string(program_.ops.size());
    op.stopGradient = {true};
    if (chance(30)) op.opRole = 0;
    TensorType type = randomType(true, mesh);
    op.dist = OpDist{mesh, {}, {Entry{false, *type.dist}}, chance(50) ? -1 : pick(0, 3)};
    const int index = addOp(block, std::move(op));
    return addResult(index, std::move(type));
  }

  int denseOp(int block) {
    OpModel op;
    op.name = "pd_op.full";
    op.stopGradient = {true};
    const int index = addOp(block, std::move(op));
    return addResult(index, randomType(false, 0));
  }

  // An entry for operand `value` on the op's mesh: mostly the value's own
  // layout (nothing to do), else another one, sometimes on another mesh.
  Entry operandEntry(int value, int opMesh) {
    if (chance(8)) return Entry{true, {}};
    const TensorType type = value >= 0 ? typeOf(value) : TensorType{{4}, "f32", std::nullopt};
    if (type.dist && chance(45)) return Entry{false, *type.dist};
    return Entry{false, entryDist(chance(80) ? opMesh : userMesh(), type)};
  }

  void computeOp(int block, std::vector<int>& scope) {
    OpModel op;
    op.name = oneOf(kComputeNames);
    const int64_t operands = pick(1, 3);
    for (int64_t i = 0; i < operands; ++i) op.operands.push_back(chance(5) ? -1 : pickValue(scope));
    const int first = op.operands.front();
    const bool hasDist = chance(90);
    int mesh = userMesh();
    if (first >= 0 && typeOf(first).dist && chance(60)) mesh = typeOf(first).dist->mesh;
    const int64_t results = chance(10) ? 2 : 1;
    if (hasDist) {
      op.dist = OpDist{mesh, {}, {}, chance(50) ? -1 : pick(0, 3)};
      int64_t entries = operands;
      if (chance(10)) entries = pick(0, operands - 1);
      else if (chance(5)) entries = operands + 1;
      for (int64_t i = 0; i < entries; ++i)
        op.dist->operands.push_back(operandEntry(i < operands ? op.operands[static_cast<size_t>(i)] : -1, mesh));
    }
    op.stopGradient = chance(80) ? stopGradients(static_cast<size_t>(results)) : std::vector<bool>{};
    if (chance(30)) op.opRole = static_cast<int>(pick(0, 2));
    const int index = addOp(block, std::move(op));
    for (int64_t r = 0; r < results; ++r) {
      TensorType type = randomType(true, mesh);
      if (first >= 0 && chance(70)) {
        type.shape = typeOf(first).shape;
        type.dtype = typeOf(first).dtype;
        type.dist = randomDist(mesh, type.shape.size());
      }
      OpModel& model = program_.ops[static_cast<size_t>(index)];
      if (model.dist) model.dist->results.push_back(chance(5) ? Entry{true, {}} : Entry{false, *type.dist});
      scope.push_back(addResult(index, std::move(type)));
    }
  }

  // A reshard already in the input, built as ReshardOp::Build would.
  void reshardOp(int block, std::vector<int>& scope) {
    std::vector<int> candidates;
    for (int value : scope)
      if (typeOf(value).dist) candidates.push_back(value);
    if (candidates.empty()) return;
    const int input = oneOf(candidates);
    const TensorType& from = typeOf(input);
    TensorType to = from;
    to.dist = entryDist(chance(60) ? from.dist->mesh : userMesh(), from);
    OpModel op;
    op.name = "dist_op.reshard";
    op.operands = {input};
    op.dist = OpDist{mergedMesh(from.dist->mesh, to.dist->mesh), {Entry{false, *from.dist}}, {Entry{false, *to.dist}},
                     -1};
    op.stopGradient = {chance(50)};
    const int index = addOp(block, std::move(op));
    scope.push_back(addResult(index, std::move(to)));
  }

  int mergedMesh(int a, int b) {
    const Mesh& first = program_.meshes[static_cast<size_t>(a)];
    const Mesh& second = program_.meshes[static_cast<size_t>(b)];
    if (first == second) return a;
    Mesh merged{{}, first.ids, true};
    merged.ids.insert(merged.ids.end(), second.ids.begin(), second.ids.end());
    std::sort(merged.ids.begin(), merged.ids.end());
    merged.ids.erase(std::unique(merged.ids.begin(), merged.ids.end()), merged.ids.end());
    merged.shape = {static_cast<int64_t>(merged.ids.size())};
    program_.meshes.push_back(merged);
    return static_cast<int>(program_.meshes.size()) - 1;
  }

  void shadowOutput(int block, const std::vector<int>& scope) {
    OpModel op;
    op.name = "builtin.shadow_output";
    op.operands = {pickValue(scope)};
    op.outputName = "out_" + std::to_string(program_.ops.size());
    const int mesh = userMesh();
    if (chance(80)) op.dist = OpDist{mesh, {operandEntry(op.operands.front(), mesh)}, {}, -1};
    addOp(block, std::move(op));
  }

  int boolValue(int block, std::vector<int>& scope) {
    for (auto it = scope.rbegin(); it != scope.rend(); ++it)
      if (typeOf(*it).dtype == "b" && chance(70)) return *it;
    const int mesh = userMesh();
    OpModel op;
    op.name = "pd_op.data";
    op.dataName = "flag" + std::to_string(program_.ops.size());
    op.stopGradient = {true};
    TensorType type{{1}, "b", Dist{mesh, {-1}, {}}};
    op.dist = OpDist{mesh, {}, {Entry{false, *type.dist}}, -1};
    const int index = addOp(block, std::move(op));
    const int value = addResult(index, std::move(type));
    scope.push_back(value);
    return value;
  }

  int newBlock() {
    program_.blocks.emplace_back();
    return static_cast<int>(program_.blocks.size()) - 1;
  }

  void yieldOp(int block, std::vector<int> operands) {
    OpModel op;
    op.name = "cf.yield";
    op.form = OpForm::Yield;
    op.operands = std::move(operands);
    addOp(block, std::move(op));
  }

  void ifOp(int block, std::vector<int>& scope, int depth) {
    const int cond = boolValue(block, scope);
    const int yielded = pickValue(scope);
    OpModel op;
    op.name = "pd_op.if";
    op.form = OpForm::If;
    op.operands = {cond};
    op.stopGradient = {true};
    const int index = addOp(block, std::move(op));
    for (int branch = 0; branch < 2; ++branch) {
      const int region = newBlock();
      program_.ops[static_cast<size_t>(index)].regions.push_back(region);
      std::vector<int> inner = scope;
      fillBlock(region, inner, depth + 1, static_cast<int>(pick(0, 4)));
      yieldOp(region, {yielded});
    }
    scope.push_back(addResult(index, typeOf(yielded)));
  }

  void whileOp(int block, std::vector<int>& scope, int depth) {
    const int cond = boolValue(block, scope);
    OpModel op;
    op.name = "pd_op.while";
    op.form = OpForm::While;
    op.operands = {cond};
    const int64_t inputs = pick(1, 2);
    for (int64_t i = 0; i < inputs; ++i) op.operands.push_back(pickValue(scope));
    const int index = addOp(block, std::move(op));
    const int body = newBlock();
    program_.ops[static_cast<size_t>(index)].regions.push_back(body);
    std::vector<int> inner = scope;
    std::vector<int> yielded{cond};
    const std::vector<int> operands = program_.ops[static_cast<size_t>(index)].operands;
    for (size_t i = 1; i < operands.size(); ++i) {
      const int arg = newValue(typeOf(operands[i]), ValueKind::BlockArg, index, static_cast<int>(i - 1));
      program_.blocks[static_cast<size_t>(body)].args.push_back(arg);
      inner.push_back(arg);
      yielded.push_back(arg);
    }
    fillBlock(body, inner, depth + 1, static_cast<int>(pick(1, 4)));
    yieldOp(body, yielded);
    for (size_t i = 1; i < operands.size(); ++i) scope.push_back(addResult(index, typeOf(operands[i])));
  }

  void numberDebugIds() {
    uint32_t next = static_cast<uint32_t>(pick(1, 900));
    for (int op : opsInPrintOrder(program_)) {
      program_.ops[static_cast<size_t>(op)].debugId = next;
      next += static_cast<uint32_t>(pick(1, 7));
    }
  }

  std::mt19937_64 rng_;
  ProgramModel program_;
};

}  // namespace

ProgramModel generateProgram(uint64_t seed) { return Generator(seed).run(); }

}  // namespace differential
