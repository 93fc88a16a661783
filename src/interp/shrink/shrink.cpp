#include "interp/shrink/shrink.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "interp/shrink/dim_classes.h"
#include "ir/rewriter.h"
#include "ir/verifier.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

// One class: its extent, the mesh dims that split it, and its size once chosen.
struct DimClass {
  int64_t extent = 0;
  std::vector<int64_t> shards;
  int64_t least = 2;  // a shrink keeps at least this (or the extent, when smaller)
  std::optional<int64_t> size;
};

bool multiply(int64_t& product, int64_t factor) { return !__builtin_mul_overflow(product, factor, &product); }

std::vector<int64_t> divisorsDescending(int64_t n) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= n / d; ++d)
    if (n % d == 0) divisors.insert(divisors.end(), {d, n / d});
  std::sort(divisors.rbegin(), divisors.rend());
  divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
  return divisors;
}

// Chooses every class's size; the first relation that cannot be kept stops it.
class Sizer {
 public:
  Sizer(const DimClasses& dims, DimScale scale)
      : dims_(dims), scale_(scale), divisors_(divisorsDescending(std::max(scale.up, scale.down))),
        classes_(dims.slotCount()) {
    for (size_t s = 0; s < dims.slotCount(); ++s) classes_[root(static_cast<int32_t>(s))].extent = dims.extent(static_cast<int32_t>(s));
    for (const ShardNeed& need : dims.shardNeeds()) classes_[root(need.slot)].shards.push_back(need.count);
    for (const FloorNeed& need : dims.floors()) at(need.slot).least = std::max(at(need.slot).least, need.least);
    for (int32_t slot : dims.pinned()) at(slot).size = at(slot).extent;
    for (DimClass& c : classes_)
      if (c.extent <= 1) c.size = c.extent;  // 1 broadcasts, 0 is empty, -1 dynamic: kept
  }

  // Returns false (and says why in *result) at the first relation broken.
  bool run(ShrinkResult* result) {
    for (const DimRelation& relation : dims_.relations())
      if (!(relation.kind == DimRelation::Kind::Product ? product(relation) : sum(relation)))
        return fail(relation, result);
    for (DimClass& c : classes_)
      if (!c.size) c.size = defaultSize(c);
    for (const DimRelation& relation : dims_.relations())
      if (!holds(relation)) return fail(relation, result);
    return true;
  }

  int64_t sizeOf(int32_t slot) const { return *classes_[root(slot)].size; }
  bool isRoot(int32_t slot) const { return root(slot) == static_cast<size_t>(slot); }

 private:
  size_t root(int32_t slot) const { return static_cast<size_t>(dims_.find(slot)); }
  DimClass& at(int32_t slot) { return classes_[root(slot)]; }

  // A size a class may take: a shrink never grows a dim nor takes it below
  // 2 (a dim of 1 broadcasts), a growth never shrinks one; the mesh dims
  // that split it leave the remainder they left at full size.
  bool legal(const DimClass& c, int64_t n) const {
    if (n < 1) return false;
    if (scale_.down > 1 && (n > c.extent || n < std::min(c.extent, c.least))) return false;
    if (scale_.up > 1 && n < c.extent) return false;
    for (int64_t count : c.shards)
      if (count > 0 && n % count != c.extent % count) return false;
    return true;
  }

  int64_t defaultSize(const DimClass& c) const {
    for (int64_t d : divisors_) {
      if (scale_.down > 1) {
        if (c.extent % d == 0 && legal(c, c.extent / d)) return c.extent / d;
      } else if (int64_t n = c.extent; multiply(n, d) && legal(c, n)) {
        return n;
      }
    }
    return c.extent;
  }

  // The product of the sizes of `slots`' classes, those without one skipped.
  std::optional<int64_t> decidedProduct(const std::vector<int32_t>& slots) {
    int64_t p = 1;
    for (int32_t s : slots)
      if (at(s).size && !multiply(p, *at(s).size)) return std::nullopt;
    return p;
  }
  std::vector<size_t> undecided(const std::vector<int32_t>& slots) {
    std::vector<size_t> roots;
    for (int32_t s : slots)
      if (!at(s).size && std::find(roots.begin(), roots.end(), root(s)) == roots.end()) roots.push_back(root(s));
    return roots;
  }

  // prod(lhs) == prod(rhs). When both sides have classes still open, one
  // side takes its default sizes and the other what they ask (the side with
  // fewer open classes first; if that fails, the other way round).
  bool product(const DimRelation& r) {
    const std::vector<size_t> openL = undecided(r.lhs), openR = undecided(r.rhs);
    if (openL.empty() && openR.empty()) return holds(r);
    if (openL.empty()) return solve(r.rhs, openR, r.lhs);
    if (openR.empty()) return solve(r.lhs, openL, r.rhs);
    const bool leftFirst = openL.size() <= openR.size();
    for (bool left : {leftFirst, !leftFirst}) {
      for (size_t c : left ? openL : openR) classes_[c].size = defaultSize(classes_[c]);
      if (solve(left ? r.rhs : r.lhs, left ? openR : openL, left ? r.lhs : r.rhs)) return true;
      for (size_t c : openL) classes_[c].size.reset();
      for (size_t c : openR) classes_[c].size.reset();
    }
    return false;
  }

  // Sizes for the open classes of `slots` whose product is the other side's.
  bool solve(const std::vector<int32_t>& slots, const std::vector<size_t>& open, const std::vector<int32_t>& other) {
    const std::optional<int64_t> want = decidedProduct(other);
    return want && distribute(*want, slots, open);
  }

  // Each open class at its default, then one of them (the largest first,
  // used once in the group) taking what remains; else all at full size.
  bool distribute(int64_t want, const std::vector<int32_t>& slots, std::vector<size_t> open) {
    std::sort(open.begin(), open.end(), [&](size_t a, size_t b) { return classes_[a].extent > classes_[b].extent; });
    for (size_t c : open) classes_[c].size = defaultSize(classes_[c]);
    if (decidedProduct(slots) == want) return true;
    for (size_t adjusting : open) {
      if (std::count_if(slots.begin(), slots.end(), [&](int32_t s) { return root(s) == adjusting; }) != 1) continue;
      const std::optional<int64_t> before = classes_[adjusting].size;
      classes_[adjusting].size.reset();
      const std::optional<int64_t> others = decidedProduct(slots);
      if (others && *others > 0 && want % *others == 0 && legal(classes_[adjusting], want / *others)) {
        classes_[adjusting].size = want / *others;
        return true;
      }
      classes_[adjusting].size = before;
    }
    for (size_t c : open) classes_[c].size = classes_[c].extent;
    if (decidedProduct(slots) == want) return true;
    for (size_t c : open) classes_[c].size.reset();
    return false;
  }

  // whole == sum(parts): open parts take their share of the whole in
  // proportion to their extents; open wholes the parts' sum.
  bool sum(const DimRelation& r) {
    DimClass& whole = at(r.lhs[0]);
    const std::vector<size_t> open = undecided(r.rhs);
    if (open.empty()) {
      int64_t total = 0;
      for (int32_t s : r.rhs) total += *at(s).size;
      if (!whole.size) whole.size = legal(whole, total) ? std::optional<int64_t>(total) : std::nullopt;
      return whole.size && *whole.size == total;
    }
    if (!whole.size) whole.size = defaultSize(whole);
    int64_t rest = *whole.size, openExtent = 0;
    for (int32_t s : r.rhs) {
      if (at(s).size) rest -= *at(s).size;
      else openExtent += at(s).extent;
    }
    for (size_t c : open) {
      int64_t share = classes_[c].extent;
      if (openExtent <= 0 || !multiply(share, rest) || share % openExtent != 0 || !legal(classes_[c], share / openExtent))
        return false;
      classes_[c].size = share / openExtent;
    }
    return holds(r);
  }

  bool holds(const DimRelation& r) {
    if (r.kind == DimRelation::Kind::Product) {
      const std::optional<int64_t> a = decidedProduct(r.lhs), b = decidedProduct(r.rhs);
      return a && b && *a == *b;
    }
    int64_t total = 0;
    for (int32_t s : r.rhs) total += *at(s).size;
    return *at(r.lhs[0]).size == total;
  }

  bool fail(const DimRelation& r, ShrinkResult* result) {
    auto extents = [&](const std::vector<int32_t>& slots, std::string_view joint) {
      std::vector<int64_t> e;
      for (int32_t s : slots) e.push_back(dims_.extent(s));
      return fmt::format("{}", fmt::join(e, joint));
    };
    result->failedAt = r.op;
    result->error = fmt::format("cannot keep {}'s {} {} = {} when every dim is scaled consistently; "
                                "try another --shrink factor",
                                r.op->name(), r.kind == DimRelation::Kind::Product ? "dims" : "sum",
                                extents(r.lhs, "×"), extents(r.rhs, r.kind == DimRelation::Kind::Product ? "×" : "+"));
    return false;
  }

  const DimClasses& dims_;
  DimScale scale_;
  std::vector<int64_t> divisors_;
  std::vector<DimClass> classes_;  // by root slot
};

// `type` with its dims (and its elements', for a list) taken from `sizes`.
const Type* resizedType(TypeTable& types, const Type* type, const std::vector<int64_t>& sizes, size_t& next) {
  if (type->kind == TypeKind::Vector) {
    std::vector<const Type*> elements;
    for (const Type* element : type->elements) elements.push_back(resizedType(types, element, sizes, next));
    return vectorType(types, elements);
  }
  if (!type->isTensor()) return type;
  std::vector<int64_t> dims(sizes.begin() + static_cast<std::ptrdiff_t>(next),
                            sizes.begin() + static_cast<std::ptrdiff_t>(next + type->rank()));
  next += type->rank();
  if (dims == type->dims) return type;
  const size_t shapeAt = static_cast<size_t>(type->shapeText.data() - type->text.data());
  size_t dtypeAt = 0;  // the dims are the shape text's first rank 'x'-ended fields
  for (size_t i = 0; i < type->rank(); ++i) dtypeAt = type->shapeText.find('x', dtypeAt) + 1;
  const std::string text = fmt::format("{}{}{}{}", type->text.substr(0, shapeAt), fmt::join(dims, "x"),
                                       type->rank() > 0 ? "x" : "", type->text.substr(shapeAt + dtypeAt));
  return readType(types, text, 0);
}

// `[2,4,16]` or `(pd_op.IntArray)[(Int64)2,...]` with elements replaced.
std::string resizedList(std::string_view list, const std::map<size_t, int64_t>& sizes) {
  const size_t open = list.find('[');
  std::string out(list.substr(0, open + 1));
  size_t element = 0, start = open + 1;
  while (start < list.size()) {
    size_t end = list.find_first_of(",]", start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    if (auto it = sizes.find(element); it != sizes.end()) {
      const size_t number = item.find(')') == std::string_view::npos ? 0 : item.find(')') + 1;
      out += fmt::format("{}{}", item.substr(0, number), it->second);
    } else {
      out += item;
    }
    if (end < list.size()) out += list[end];
    if (end >= list.size() || list[end] == ']') { out += list.substr(std::min(end + 1, list.size())); break; }
    start = end + 1;
    ++element;
  }
  return out;
}

void rewriteAttributes(Rewriter& rewriter, const DimClasses& dims, const Sizer& sizer) {
  std::map<const Operation*, std::map<std::string_view, std::map<size_t, int64_t>>> byOp;
  for (const AttributeSlot& a : dims.attributeSlots())
    if (sizer.sizeOf(a.slot) != dims.extent(a.slot)) byOp[a.op][a.key][a.element] = sizer.sizeOf(a.slot);
  for (const auto& [op, keys] : byOp) {
    std::string text(op->attributes());
    std::vector<std::pair<size_t, std::pair<size_t, std::string>>> splices;  // offset, (length, new value)
    for (const auto& [key, sizes] : keys) {
      const std::optional<std::string_view> value = findAttribute(op->attributes(), key);
      if (!value) continue;
      splices.push_back({static_cast<size_t>(value->data() - op->attributes().data()), {value->size(), resizedList(*value, sizes)}});
    }
    std::sort(splices.rbegin(), splices.rend());
    for (const auto& [offset, replacement] : splices) text.replace(offset, replacement.first, replacement.second);
    rewriter.setAttributes(const_cast<Operation*>(op), rewriter.program().strings().intern(text));
  }
}

void retypeValue(Rewriter& rewriter, Value* value, const DimClasses& dims, const Sizer& sizer) {
  const int32_t base = dims.valueBase(value);
  if (base < 0) return;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < flatDims(value->type).size(); ++i) sizes.push_back(sizer.sizeOf(base + static_cast<int32_t>(i)));
  size_t next = 0;
  const Type* type = resizedType(rewriter.program().types(), value->type, sizes, next);
  if (type != value->type) rewriter.retype(value, type, value->dist);
}

void retypeBlock(Rewriter& rewriter, Block& block, const DimClasses& dims, const Sizer& sizer) {
  for (Value* argument : block.arguments()) retypeValue(rewriter, argument, dims, sizer);
  for (Operation* op : block) {
    for (size_t i = 0; i < op->numResults(); ++i) retypeValue(rewriter, op->result(i), dims, sizer);
    for (Block* region : op->regions()) retypeBlock(rewriter, *region, dims, sizer);
  }
}

std::vector<std::pair<int64_t, int64_t>> changesOf(const DimClasses& dims, const Sizer& sizer, size_t* classes) {
  std::set<std::pair<int64_t, int64_t>, std::greater<>> changes;
  *classes = 0;
  for (size_t s = 0; s < dims.slotCount(); ++s) {
    const auto slot = static_cast<int32_t>(s);
    if (!sizer.isRoot(slot) || sizer.sizeOf(slot) == dims.extent(slot)) continue;
    ++*classes;
    changes.insert({dims.extent(slot), sizer.sizeOf(slot)});
  }
  return {changes.begin(), changes.end()};
}

uint64_t elementsOf(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims)
    if (d > 0 && __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return UINT64_MAX;
  return n;
}

}  // namespace

ShrinkResult resizeProgram(Program& program, DimScale scale) {
  ShrinkResult result;
  const DimClasses dims = DimClasses::derive(program);
  Sizer sizer(dims, scale);
  if (!sizer.run(&result)) return result;
  Rewriter rewriter(program);
  retypeBlock(rewriter, *program.body(), dims, sizer);
  rewriteAttributes(rewriter, dims, sizer);
  result.changes = changesOf(dims, sizer, &result.classes);
  result.ok = true;
  return result;
}

uint64_t programElements(const Program& program) {
  uint64_t total = 0;
  walkOps(*program.body(), [&](const Operation* op) {
    for (size_t i = 0; i < op->numResults(); ++i)
      total = std::min<uint64_t>(UINT64_MAX / 2, total + elementsOf(flatDims(op->result(i)->type)));
  });
  return total;
}

namespace {

// A value's dims as `sizer` sizes them.
ValueDims sizedDims(const DimClasses& dims, const Sizer& sizer) {
  return [&dims, &sizer](const Value* value) {
    const int32_t base = dims.valueBase(value);
    std::vector<int64_t> sizes;
    for (size_t d = 0; base >= 0 && d < flatDims(value->type).size(); ++d)
      sizes.push_back(sizer.sizeOf(base + static_cast<int32_t>(d)));
    return sizes;
  };
}

uint64_t elementsSized(const Program& program, const ValueDims& dimsOf) {
  uint64_t total = 0;
  walkOps(*program.body(), [&](const Operation* op) {
    for (size_t i = 0; i < op->numResults(); ++i)
      total = std::min<uint64_t>(UINT64_MAX / 2, total + elementsOf(dimsOf(op->result(i))));
  });
  return total;
}

// Whether the program after a shrink of 1/factor fits both the element
// budget and `budget` (false when the shrink cannot keep some relation).
bool fitsAfter(const Program& program, const DimClasses& dims, int64_t factor, const AutoShrinkBudget& limits) {
  Sizer sizer(dims, {1, factor});
  ShrinkResult ignored;
  if (!sizer.run(&ignored)) return false;
  const ValueDims dimsOf = sizedDims(dims, sizer);
  return elementsSized(program, dimsOf) <= kShrinkBudgetElements &&
         withinBudget(programCost(program, limits.dynamicDim, limits.maxLoopTrips, dimsOf), limits.budget);
}

}  // namespace

std::optional<uint64_t> elementsAfter(const Program& program, DimScale scale) {
  const DimClasses dims = DimClasses::derive(program);
  Sizer sizer(dims, scale);
  ShrinkResult ignored;
  if (!sizer.run(&ignored)) return std::nullopt;
  return elementsSized(program, sizedDims(dims, sizer));
}

int64_t autoShrinkFactor(const Program& program, const AutoShrinkBudget& limits) {
  if (programElements(program) <= kShrinkBudgetElements &&
      withinBudget(programCost(program, limits.dynamicDim, limits.maxLoopTrips), limits.budget))
    return 1;
  const DimClasses dims = DimClasses::derive(program);
  int64_t factor = 2;
  for (; factor < kMaxAutoFactor; factor *= 2)
    if (fitsAfter(program, dims, factor, limits)) break;
  return factor;
}

std::optional<ShrinkRequest> parseShrinkRequest(std::string_view text) {
  if (text.empty() || text == "auto") return ShrinkRequest{};
  if (text == "off") return ShrinkRequest{ShrinkRequest::Mode::Off, 1};
  int64_t factor = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || factor > kMaxShrinkFactor) return std::nullopt;
    factor = factor * 10 + (c - '0');
  }
  if (factor < 1 || factor > kMaxShrinkFactor) return std::nullopt;
  return ShrinkRequest{ShrinkRequest::Mode::Factor, factor};
}

ShrinkOutcome shrinkProgram(Program& program, const ShrinkRequest& request, DiagnosticEngine& diagnostics,
                            const AutoShrinkBudget& limits) {
  ShrinkOutcome outcome;
  if (request.mode == ShrinkRequest::Mode::Off) return outcome;
  outcome.factor = request.mode == ShrinkRequest::Mode::Auto ? autoShrinkFactor(program, limits) : request.factor;
  if (outcome.factor == 1) return outcome;
  const DimScale scale{1, outcome.factor};
  const ShrinkResult result = resizeProgram(program, scale);
  if (!result.ok) {
    const std::string message = fmt::format("cannot shrink the program 1/{}: {}{}", outcome.factor, result.error,
                                            request.mode == ShrinkRequest::Mode::Auto ? " (or --shrink=off)" : "");
    if (result.failedAt && result.failedAt->location() != 0) diagnostics.error(result.failedAt->location(), 1, message);
    else diagnostics.error(message);
    outcome.ok = false;
    return outcome;
  }
  if (const std::string broken = checkGraph(program); !broken.empty()) {
    diagnostics.error(fmt::format("the shrunk program is not a graph: {}", broken));
    outcome.ok = false;
  } else if (!verifyProgram(program, diagnostics)) {
    outcome.ok = false;
  }
  outcome.line = shrinkLine(result, scale);
  return outcome;
}

std::string shrinkLine(const ShrinkResult& result, DimScale scale) {
  std::vector<std::string> shown;
  for (const auto& [from, to] : result.changes) {
    if (shown.size() == 8) { shown.push_back("…"); break; }
    shown.push_back(fmt::format("{}→{}", from, to));
  }
  const std::string at = scale.down > 1 ? fmt::format("1/{}", scale.down) : fmt::format("{}×", scale.up);
  if (shown.empty()) return fmt::format("at {} scale: no dim could change", at);
  return fmt::format("at {} scale: {}", at, fmt::join(shown, ", "));
}

}  // namespace reshardctl
