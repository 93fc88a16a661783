#include "interp/shrink/dim_classes.h"

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <optional>
#include <utility>

#include "interp/op_attributes.h"
#include "interp/seeded_inputs.h"
#include "support/op_names.h"

namespace reshardctl {

std::vector<int64_t> flatDims(const Type* type) {
  if (type == nullptr) return {};
  if (type->isTensor()) return type->dims;
  std::vector<int64_t> dims;
  for (const Type* element : type->elements) {
    const std::vector<int64_t> inner = flatDims(element);
    dims.insert(dims.end(), inner.begin(), inner.end());
  }
  return dims;
}

int32_t DimClasses::find(int32_t slot) const {
  while (parent_[static_cast<size_t>(slot)] != slot) {
    int32_t& up = parent_[static_cast<size_t>(slot)];
    up = parent_[static_cast<size_t>(up)];  // path halving
    slot = up;
  }
  return slot;
}

int32_t DimClasses::valueBase(const Value* value) const {
  if (value == nullptr || value->id >= valueBase_.size()) return -1;
  return valueBase_[value->id];
}

// Builds the classes op by op; each rule below is one kind of shape relation.
class DimClassBuilder {
 public:
  explicit DimClassBuilder(DimClasses& classes) : c_(classes) {}

  void addValue(const Value* value) {
    if (value == nullptr) return;
    if (c_.valueBase_.size() <= value->id) c_.valueBase_.resize(value->id + 1, -1);
    const std::vector<int64_t> dims = flatDims(value->type);
    if (dims.empty()) return;
    c_.valueBase_[value->id] = newSlots(dims);
    addShardNeeds(value);
  }

  void addOp(const Operation* op) {
    const std::string_view name = op->name();
    if (name == "pd_op.matmul") matmul(op, false);
    else if (name == "pd_op.matmul_grad") matmul(op, true);
    else if (name == "pd_op.transpose") transpose(op, false);
    else if (name == "pd_op.transpose_grad") transpose(op, true);
    else if (name == "pd_op.reshape" || name == "pd_op.reshape_" || name == "pd_op.flatten" ||
             name == "pd_op.squeeze" || name == "pd_op.unsqueeze")
      reshape(op);
    else if (name == "pd_op.reshape_grad" || name == "pd_op.flatten_grad" || name == "pd_op.squeeze_grad" ||
             name == "pd_op.unsqueeze_grad")
      reshapeGrad(op);
    else if (name == "pd_op.concat") concat(op);
    else if (name == "pd_op.split" || name == "pd_op.split_with_num") split(op);
    else if (name == kCombineOp) combine(op);
    else if (name == "pd_op.slice") slice(op);
    else if (name == "pd_op.embedding" || name == "pd_op.embedding_grad") embedding(op);
    else if (name == "pd_op.layer_norm") layerNorm(op);
    else if (name == "pd_op.layer_norm_grad") shapedAsOperands(op, {{0, 0}, {0, 5}, {1, 1}, {2, 2}});
    else if (name == "pd_op.rms_norm_grad") shapedAsOperands(op, {{0, 0}, {0, 6}, {1, 3}, {2, 4}});
    else if (name == "pd_op.full_int_array" || name == "pd_op.shape") pinAll(op->result(0));
    else if (name == "pd_op.cross_entropy_with_softmax") classes(op);
    else if (name == kIfOp) ifOp(op);
    else if (name == kWhileOp) whileOp(op);
    else if (name != kYieldOp) broadcast(op);
    shapeAttribute(op, "shape", op->numResults() > 0 ? op->result(0) : nullptr);
  }

 private:
  int32_t newSlots(const std::vector<int64_t>& extents) {
    const auto base = static_cast<int32_t>(c_.extents_.size());
    for (int64_t extent : extents) {
      c_.parent_.push_back(static_cast<int32_t>(c_.extents_.size()));
      c_.extents_.push_back(extent);
    }
    return base;
  }

  void addShardNeeds(const Value* value) {
    if (value->dist == nullptr || !value->type || !value->type->isTensor()) return;
    const std::vector<int64_t>& mapping = value->dist->dimsMapping;
    const std::vector<int64_t>& mesh = value->dist->mesh.shape;
    for (size_t i = 0; i < mapping.size() && i < value->type->rank(); ++i)
      if (mapping[i] >= 0 && static_cast<size_t>(mapping[i]) < mesh.size())
        c_.shardNeeds_.push_back({slot(value, i), mesh[static_cast<size_t>(mapping[i])]});
  }

  size_t rankOf(const Value* value) const { return value && value->type ? flatDims(value->type).size() : 0; }
  int32_t slot(const Value* value, size_t dim) const {
    const int32_t base = c_.valueBase(value);
    return base < 0 ? -1 : base + static_cast<int32_t>(dim);
  }
  // Dim `dim` counted from the end (0: the last).
  int32_t fromEnd(const Value* value, size_t dim) const {
    const size_t rank = rankOf(value);
    return dim < rank ? slot(value, rank - 1 - dim) : -1;
  }

  void unite(int32_t a, int32_t b) {
    if (a < 0 || b < 0) return;
    const int64_t ea = c_.extent(a), eb = c_.extent(b);
    if (ea != eb || ea < 0) return;  // a broken or dynamic relation: the interpreter's to report
    const int32_t ra = c_.find(a), rb = c_.find(b);
    if (ra != rb) c_.parent_[static_cast<size_t>(std::max(ra, rb))] = std::min(ra, rb);
  }
  void uniteAll(const Value* a, const Value* b) {
    const size_t rank = rankOf(a);
    if (rank != rankOf(b)) return;
    for (size_t i = 0; i < rank; ++i) unite(slot(a, i), slot(b, i));
  }
  void pin(int32_t s) {
    if (s >= 0) c_.pinned_.push_back(s);
  }
  // A shape as a tensor: its length is a rank, not an extent.
  void pinAll(const Value* value) {
    for (size_t d = 0; d < rankOf(value); ++d) pin(slot(value, d));
  }

  // Elementwise and everything without a rule of its own: the operands and
  // results aligned from the last dim, as broadcasting aligns them; a dim
  // of 1 against a larger one is a broadcast, not the same dim.
  void broadcast(const Operation* op) {
    std::vector<const Value*> values;
    for (size_t i = 0; i < op->numOperands(); ++i) values.push_back(op->operandValue(i));
    for (size_t i = 0; i < op->numResults(); ++i) values.push_back(op->result(i));
    const Value* widest = nullptr;
    for (const Value* v : values)
      if (v && v->type && v->type->isTensor() && (!widest || v->type->rank() > widest->type->rank())) widest = v;
    if (!widest) return;
    for (const Value* v : values) {
      if (!v || v == widest || !v->type || !v->type->isTensor()) continue;
      for (size_t d = 0; d < v->type->rank(); ++d) unite(fromEnd(v, d), fromEnd(widest, d));
    }
  }

  // x [..., M, K] · y [..., K, N] → out [..., M, N] (Paddle's MatmulInferMeta,
  // paddle/phi/infermeta/binary.cc); the grad's results are shaped as x, y.
  void matmul(const Operation* op, bool grad) {
    if (op->numOperands() < 2 || op->numResults() < 1) return;
    const Value* x = op->operandValue(0);
    const Value* y = op->operandValue(1);
    const Value* out = grad ? (op->numOperands() > 2 ? op->operandValue(2) : nullptr) : op->result(0);
    if (rankOf(x) < 2 || rankOf(y) < 2) return broadcast(op);
    const OpAttributes attributes(op->attributes());
    const bool tx = attributes.boolean("transpose_x", false), ty = attributes.boolean("transpose_y", false);
    unite(fromEnd(x, tx ? 1 : 0), fromEnd(y, ty ? 0 : 1));  // K
    if (out && rankOf(out) >= 2) {
      unite(fromEnd(x, tx ? 0 : 1), fromEnd(out, 1));  // M
      unite(fromEnd(y, ty ? 1 : 0), fromEnd(out, 0));  // N
      for (size_t d = 2; d < rankOf(out); ++d) {       // batch dims, broadcast
        unite(fromEnd(x, d), fromEnd(out, d));
        unite(fromEnd(y, d), fromEnd(out, d));
      }
    }
    if (grad && op->numResults() >= 2) {
      uniteAll(op->result(0), x);
      uniteAll(op->result(1), y);
    }
  }

  // out[i] = in[perm[i]]; the grad (transpose_grad(out_grad, perm), Paddle's
  // backward.yaml) runs it backwards: x_grad[perm[i]] = out_grad[i].
  void transpose(const Operation* op, bool grad) {
    if (op->numOperands() < 1 || op->numResults() < 1) return;
    const std::vector<int64_t> perm = readIntegers(op, "perm");
    const Value* permuted = grad ? op->operandValue(0) : op->result(0);
    const Value* source = grad ? op->result(0) : op->operandValue(0);
    for (size_t i = 0; i < perm.size() && i < rankOf(permuted); ++i)
      if (perm[i] >= 0 && static_cast<size_t>(perm[i]) < rankOf(source))
        unite(slot(permuted, i), slot(source, static_cast<size_t>(perm[i])));
  }

  // A reshape keeps the element count: its dims fall into groups whose
  // products are equal (prefix products meet); a group of one dim each side
  // is the same dim, a larger one a product relation. A shape the dims do
  // not tell (dynamic) pins them.
  void reshape(const Operation* op) {
    if (op->numOperands() < 1 || op->numResults() < 1) return;
    const Value* in = op->operandValue(0);
    const Value* out = op->result(0);
    if (op->numOperands() > 1) shapeOperand(op->operandValue(1), out);
    shapeAttribute(op, "shape", out);
    reshapeDims(op, in, out);
  }

  // reshape_grad(x or its old xshape, out_grad) -> x_grad: x_grad is shaped
  // as x, and out_grad reshaped back to it.
  void reshapeGrad(const Operation* op) {
    if (op->numOperands() < 2 || op->numResults() < 1) return;
    uniteAll(op->result(0), op->operandValue(0));
    reshapeDims(op, op->operandValue(1), op->result(0));
  }

  void reshapeDims(const Operation* op, const Value* in, const Value* out) {
    const std::vector<int64_t> a = in && in->type ? in->type->dims : std::vector<int64_t>{};
    const std::vector<int64_t> b = out->type ? out->type->dims : std::vector<int64_t>{};
    const bool dynamic = std::find(a.begin(), a.end(), -1) != a.end() || std::find(b.begin(), b.end(), -1) != b.end();
    const std::optional<int64_t> count = product(a);
    if (dynamic || !count || *count == 0 || count != product(b)) {
      for (size_t i = 0; i < a.size(); ++i) pin(slot(in, i));
      for (size_t i = 0; i < b.size(); ++i) pin(slot(out, i));
      return;
    }
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      std::vector<int32_t> lhs, rhs;
      int64_t pa = 1, pb = 1;
      do {  // grow the side with the smaller product until they meet
        if (j == b.size() || (i < a.size() && pa <= pb)) {
          pa *= a[i];
          if (a[i] != 1) lhs.push_back(slot(in, i));
          ++i;
        } else {
          pb *= b[j];
          if (b[j] != 1) rhs.push_back(slot(out, j));
          ++j;
        }
      } while ((pa != pb || lhs.empty() || rhs.empty()) && (i < a.size() || j < b.size()));
      if (lhs.size() == 1 && rhs.size() == 1) unite(lhs[0], rhs[0]);
      else if (!lhs.empty() && !rhs.empty()) c_.relations_.push_back({DimRelation::Kind::Product, op, lhs, rhs});
    }
  }

  static std::optional<int64_t> product(const std::vector<int64_t>& dims) {
    int64_t p = 1;
    for (int64_t d : dims)
      if (d < 0 || __builtin_mul_overflow(p, d, &p)) return std::nullopt;
    return p;
  }

  // The reshape's target shape from a pd_op.full_int_array: its entries are
  // the result's dims (0 and -1 say "copy" and "infer", not extents).
  void shapeOperand(const Value* shape, const Value* out) {
    if (shape && shape->definingOp && shape->definingOp->name() == "pd_op.full_int_array")
      shapeAttribute(shape->definingOp, "value", out);
  }
  void shapeAttribute(const Operation* op, std::string_view key, const Value* out) {
    if (!out || !out->type || !out->type->isTensor()) return;
    const std::vector<int64_t> entries = readIntegers(op, key);
    if (entries.size() != out->type->rank()) return;
    for (const AttributeSlot& known : c_.attributeSlots_)  // an array feeding several reshapes: once
      if (known.op == op && known.key == key) return unite(known.slot, slot(out, known.element)), linkRest(op, key, out);
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i] != out->type->dims[i]) continue;
      const int32_t s = newSlots({entries[i]});
      c_.attributeSlots_.push_back({op, key, i, s});
      unite(s, slot(out, i));
    }
  }
  void linkRest(const Operation* op, std::string_view key, const Value* out) {
    for (const AttributeSlot& known : c_.attributeSlots_)
      if (known.op == op && known.key == key) unite(known.slot, slot(out, known.element));
  }

  static std::vector<int64_t> readIntegers(const Operation* op, std::string_view key) {
    try {
      return OpAttributes(op->attributes()).integers(key);
    } catch (const std::exception&) {  // not an integer list: holds no extents
      return {};
    }
  }

  // The axis of a concat or split: its `axis` operand made by pd_op.full.
  std::optional<size_t> axisOf(const Operation* op, size_t operand, size_t rank) const {
    if (op->numOperands() <= operand) return std::nullopt;
    const Value* axis = op->operandValue(operand);
    if (!axis || !axis->definingOp) return std::nullopt;
    int64_t value = 0;
    try {
      value = static_cast<int64_t>(OpAttributes(axis->definingOp->attributes()).number("value", -1e300));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (value < 0) value += static_cast<int64_t>(rank);
    if (value < 0 || static_cast<size_t>(value) >= rank) return std::nullopt;
    return static_cast<size_t>(value);
  }

  // Parts of a list along `axis`: the other dims are the whole's.
  void alongAxis(const Operation* op, const Value* whole, const Value* list) {
    const size_t rank = rankOf(whole);
    const std::optional<size_t> axis = axisOf(op, 1, rank);
    if (!list || !list->type || list->type->kind != TypeKind::Vector) return;
    DimRelation sum{DimRelation::Kind::Sum, op, {axis ? slot(whole, *axis) : -1}, {}};
    size_t base = 0;
    for (const Type* part : list->type->elements) {
      const size_t partRank = flatDims(part).size();
      for (size_t d = 0; d < partRank && partRank == rank; ++d) {
        const int32_t s = slot(list, base + d);
        if (axis && d == *axis) sum.rhs.push_back(s);
        else unite(s, slot(whole, d));
      }
      base += partRank;
    }
    if (!axis) {  // an axis we cannot read: keep every dim of the list
      for (size_t d = 0; d < base; ++d) pin(slot(list, d));
      for (size_t d = 0; d < rank; ++d) pin(slot(whole, d));
    } else if (sum.lhs[0] >= 0) {
      c_.relations_.push_back(std::move(sum));
    }
  }
  void concat(const Operation* op) {
    if (op->numOperands() >= 1 && op->numResults() >= 1) alongAxis(op, op->result(0), op->operandValue(0));
  }
  void split(const Operation* op) {
    if (op->numOperands() >= 1 && op->numResults() >= 1) alongAxis(op, op->operandValue(0), op->result(0));
  }

  // builtin.combine: the list's elements are its operands.
  void combine(const Operation* op) {
    const Value* list = op->result(0);
    size_t base = 0;
    for (size_t i = 0; i < op->numOperands(); ++i) {
      const Value* part = op->operandValue(i);
      const size_t rank = rankOf(part);
      for (size_t d = 0; d < rank; ++d) unite(slot(part, d), slot(list, base + d));
      base += rank;
    }
  }

  // Slice bounds are absolute: the sliced dims keep their size.
  void slice(const Operation* op) {
    if (op->numOperands() < 1 || op->numResults() < 1) return;
    const Value* in = op->operandValue(0);
    const Value* out = op->result(0);
    const std::vector<int64_t> axes = readIntegers(op, "axes");
    const size_t rank = rankOf(in);
    std::vector<bool> sliced(rank, false);
    for (int64_t axis : axes) {
      const int64_t a = axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
      if (a >= 0 && static_cast<size_t>(a) < rank) sliced[static_cast<size_t>(a)] = true;
    }
    const bool keepsRank = rankOf(out) == rank;
    for (size_t d = 0; d < rank; ++d) {
      if (sliced[d]) { pin(slot(in, d)); if (keepsRank) pin(slot(out, d)); }
      else if (keepsRank) unite(slot(in, d), slot(out, d));
    }
  }

  // ids [..] and table [V, H] → out [.., H]; the grad's result is the table's.
  void embedding(const Operation* op) {
    if (op->numOperands() < 2 || op->numResults() < 1) return;
    const Value* ids = op->operandValue(0);
    const Value* table = op->operandValue(1);
    const bool grad = op->name() == "pd_op.embedding_grad";
    const Value* out = grad ? (op->numOperands() > 2 ? op->operandValue(2) : nullptr) : op->result(0);
    if (grad) uniteAll(op->result(0), table);
    if (rankOf(table) == 2) c_.floors_.push_back({slot(table, 0), kIntegerInputValues});
    if (!out || rankOf(out) != rankOf(ids) + 1 || rankOf(table) != 2) return;
    for (size_t d = 0; d < rankOf(ids); ++d) unite(slot(ids, d), slot(out, d));
    unite(fromEnd(out, 0), slot(table, 1));
  }

  // x [d0.., n..] with begin_norm_axis k → y as x, mean and variance
  // [d0×..×d(k-1)], scale and bias [n×..] (Paddle's LayerNormInferMeta,
  // paddle/phi/infermeta/ternary.cc).
  void layerNorm(const Operation* op) {
    if (op->numOperands() < 1 || op->numResults() < 3) return;
    const Value* x = op->operandValue(0);
    const size_t rank = rankOf(x);
    int64_t axis = OpAttributes(op->attributes()).integer("begin_norm_axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    if (axis <= 0 || static_cast<size_t>(axis) >= rank) return broadcast(op);
    const auto k = static_cast<size_t>(axis);
    uniteAll(op->result(0), x);
    uniteAll(op->result(1), op->result(2));
    std::vector<int32_t> rows, columns;
    for (size_t d = 0; d < rank; ++d)
      if (c_.extent(slot(x, d)) != 1) (d < k ? rows : columns).push_back(slot(x, d));
    relate(op, rows, rankOf(op->result(1)) == 1 ? slot(op->result(1), 0) : -1);
    for (size_t i = 1; i < op->numOperands() && i < 3; ++i)
      relate(op, columns, rankOf(op->operandValue(i)) == 1 ? slot(op->operandValue(i), 0) : -1);
  }
  // A grad whose results are shaped as some of its operands ({result,
  // operand} pairs), as a norm's grads are as x, its weight and bias
  // (backward.yaml: layer_norm_grad(x, scale, bias, mean, variance, out_grad),
  // rms_norm_grad(x, bias, residual, norm_weight, norm_bias, inv_var,
  // out_grad)); its per-row statistics are the forward op's results, related
  // there. Result 0 paired with an operand means out_grad is shaped as x too.
  void shapedAsOperands(const Operation* op, std::initializer_list<std::pair<size_t, size_t>> pairs) {
    for (const auto& [result, operand] : pairs)
      if (result < op->numResults() && operand < op->numOperands())
        uniteAll(op->result(result), op->operandValue(operand));
  }

  // The dims `parts` multiply to `whole`'s extent: one dim is the same dim.
  void relate(const Operation* op, const std::vector<int32_t>& parts, int32_t whole) {
    if (whole < 0 || parts.empty()) return;
    std::vector<int64_t> extents;
    for (int32_t part : parts) extents.push_back(part < 0 ? -1 : c_.extent(part));
    if (product(extents) != c_.extent(whole)) return;  // not the shapes the rule expects: no relation
    if (parts.size() == 1) return unite(parts[0], whole);
    c_.relations_.push_back({DimRelation::Kind::Product, op, parts, {whole}});
  }

  // Labels index the logits' last dim; otherwise elementwise.
  void classes(const Operation* op) {
    broadcast(op);
    if (op->numOperands() >= 1 && rankOf(op->operandValue(0)) >= 1)
      c_.floors_.push_back({fromEnd(op->operandValue(0), 0), kIntegerInputValues});
  }

  // Each branch's cf.yield hands back the if's results.
  void ifOp(const Operation* op) {
    for (const Block* region : op->regions()) {
      const Operation* yield = region->back();
      if (!yield || yield->name() != kYieldOp) continue;
      for (size_t i = 0; i < op->numResults() && i < yield->numOperands(); ++i)
        uniteAll(op->result(i), yield->operandValue(i));
    }
  }

  // The loop's inputs (after cond), its block arguments, the body's yield
  // (after the next cond) and its results are the same values in turn.
  void whileOp(const Operation* op) {
    for (size_t i = 0; i < op->numResults() && i + 1 < op->numOperands(); ++i)
      uniteAll(op->result(i), op->operandValue(i + 1));
    for (const Block* region : op->regions()) {
      for (size_t i = 0; i < region->arguments().size() && i + 1 < op->numOperands(); ++i)
        uniteAll(region->arguments()[i], op->operandValue(i + 1));
      const Operation* yield = region->back();
      if (!yield || yield->name() != kYieldOp) continue;
      for (size_t i = 0; i + 1 < yield->numOperands() && i < op->numResults(); ++i)
        uniteAll(op->result(i), yield->operandValue(i + 1));
    }
  }

  DimClasses& c_;
};

namespace {

void addBlock(DimClassBuilder& builder, const Block& block) {
  for (const Value* argument : block.arguments()) builder.addValue(argument);
  for (const Operation* op : block) {
    for (size_t i = 0; i < op->numResults(); ++i) builder.addValue(op->result(i));
    for (const Block* region : op->regions()) addBlock(builder, *region);
    builder.addOp(op);  // after its regions: an if's rule reads its yields
  }
}

}  // namespace

DimClasses DimClasses::derive(const Program& program) {
  DimClasses classes;
  classes.valueBase_.assign(program.valueCount(), -1);
  DimClassBuilder builder(classes);
  addBlock(builder, *program.body());
  return classes;
}

}  // namespace reshardctl
