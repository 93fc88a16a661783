#include "passes/program_diff.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "support/escape.h"
#include "support/sequence_alignment.h"
#include "support/text_hash_table.h"
#include "syntax/attribute_dictionary.h"

namespace reshardctl {

namespace {

uint64_t mix(uint64_t seed, uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

// What can be compared about one op on its own, ignored attributes left out.
struct OpKey {
  uint64_t local = 0;  // name, attributes, operand and result types, counts
  uint64_t cone = 0;   // local, combined with the cones of every producer
};

// An op with its key. A block being aligned is a list of pointers to these:
// the alignment's table asks for keys n·m times.
struct KeyedOp {
  const Operation* op;
  OpKey key;
};
using Ops = std::vector<const KeyedOp*>;

size_t countOps(const Program& program) {
  size_t count = 0;
  walkOps(*program.body(), [&](const Operation*) { ++count; });
  return count;
}

enum Side { kBefore = 0, kAfter = 1 };

class Differ {
 public:
  explicit Differ(const DiffOptions& options) : options_(options) {}

  ProgramDiff run(const Program& before, const Program& after) {
    ProgramDiff diff;
    diff.beforeOps = countOps(before);
    diff.afterOps = countOps(after);
    keys_.reserve(diff.beforeOps + diff.afterOps);
    valueCones_[kBefore].assign(before.valueCount(), 0);
    valueCones_[kAfter].assign(after.valueCount(), 0);
    valueMap_.assign(before.valueCount(), nullptr);
    computeKeys(*before.body(), kBefore);
    computeKeys(*after.body(), kAfter);
    std::sort(keys_.begin(), keys_.end(), [](const KeyedOp& x, const KeyedOp& y) { return x.op < y.op; });
    diffBlocks(*before.body(), *after.body());
    diff.changes = std::move(changes_);
    return diff;
  }

 private:
  bool ignored(std::string_view key) const {
    return std::find(options_.ignoredAttributes.begin(), options_.ignoredAttributes.end(), key) !=
           options_.ignoredAttributes.end();
  }

  uint64_t valueCone(const Value* value, Side side) const {
    if (!value) return 1;
    uint64_t cone = valueCones_[side][value->id];
    return cone == 0 ? 2 : cone;
  }

  // Types and attribute texts are interned: equal texts share one pointer,
  // so each distinct text is hashed once.
  uint64_t typeHash(const Type* type) {
    if (!type) return 0;
    auto [it, inserted] = typeHashes_.try_emplace(type, 0);
    if (inserted) it->second = hashText(type->text);
    return it->second;
  }

  uint64_t attributesHash(std::string_view attributes) {
    auto [it, inserted] = attributeHashes_.try_emplace(TextAt{attributes.data(), attributes.size()}, 0);
    if (!inserted) return it->second;
    uint64_t hash = 0;
    for (const AttributeEntry& entry : splitAttributes(attributes))
      if (!ignored(entry.key)) hash = mix(mix(hash, hashText(entry.key)), hashText(entry.value));
    return it->second = hash;
  }

  // Keys for every op of `block`, nested ones included, in definition order
  // (a producer's cone is known before its users need it).
  void computeKeys(const Block& block, Side side) {
    for (size_t i = 0; i < block.arguments().size(); ++i)
      valueCones_[side][block.arguments()[i]->id] = mix(3, i);
    for (const Operation* op : block) {
      uint64_t local = mix(hashText(op->name()), op->regions().size());
      local = mix(local, attributesHash(op->attributes()));
      uint64_t cone = 0;
      local = mix(local, op->numOperands());
      for (size_t i = 0; i < op->numOperands(); ++i) {
        const Value* value = op->operandValue(i);
        local = mix(local, typeHash(value ? value->type : nullptr));
        cone = mix(cone, valueCone(value, side));
      }
      local = mix(local, op->numResults());
      for (size_t i = 0; i < op->numResults(); ++i) local = mix(local, typeHash(op->result(i)->type));
      OpKey key{local, mix(local, cone)};
      for (size_t i = 0; i < op->numResults(); ++i) valueCones_[side][op->result(i)->id] = mix(key.cone, i) | 1;
      keys_.push_back({op, key});
      for (const Block* region : op->regions()) computeKeys(*region, side);
    }
  }

  // The ops of `block` with their keys: O(log ops) each.
  Ops opsOf(const Block& block) const {
    Ops ops;
    for (const Operation* op : block) {
      auto at = std::lower_bound(keys_.begin(), keys_.end(), op,
                                 [](const KeyedOp& keyed, const Operation* o) { return keyed.op < o; });
      ops.push_back(&*at);
    }
    return ops;
  }

  // 0: cannot be paired; else higher is a better pair.
  static int score(const KeyedOp* a, const KeyedOp* b) {
    if (a->op->name() != b->op->name() || a->op->regions().size() != b->op->regions().size()) return 0;
    return 1 + (a->key.local == b->key.local ? 2 : 0) + (a->key.cone == b->key.cone ? 4 : 0);
  }

  // Pairs of indices (i into a, j into b), increasing in both.
  using Pairs = std::vector<std::pair<size_t, size_t>>;

  Pairs align(const Ops& a, const Ops& b) const {
    Pairs pairs;
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && score(a[prefix], b[prefix]) == 7) {
      pairs.emplace_back(prefix, prefix);
      ++prefix;
    }
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           score(a[a.size() - 1 - suffix], b[b.size() - 1 - suffix]) >= 3)
      ++suffix;
    size_t n = a.size() - prefix - suffix;
    size_t m = b.size() - prefix - suffix;
    if (fitsTable(n, m)) alignBest(a, b, {prefix, prefix, n, m}, pairs);
    else alignLarge(a, b, {prefix, prefix, n, m}, pairs);
    for (size_t k = suffix; k > 0; --k) pairs.emplace_back(a.size() - k, b.size() - k);
    return pairs;
  }

  // a[aAt, aAt+n) against b[bAt, bAt+m).
  struct Span {
    size_t aAt, bAt, n, m;
  };

  bool fitsTable(size_t n, size_t m) const {
    return n == 0 || m <= options_.maxAlignmentCells / n;
  }

  // Blocks too large for the table: ops whose own text agrees (local keys)
  // are aligned by Myers' algorithm, linear when few differ; the ops left
  // between two such anchors are paired by the table when the gap is small
  // (an op whose attributes changed then shows as changed), greedily if not.
  void alignLarge(const Ops& a, const Ops& b, Span span, Pairs& pairs) const {
    std::vector<uint64_t> keysA, keysB;
    for (size_t i = 0; i < span.n; ++i) keysA.push_back(a[span.aAt + i]->key.local);
    for (size_t j = 0; j < span.m; ++j) keysB.push_back(b[span.bAt + j]->key.local);
    size_t i = 0, j = 0;
    auto gap = [&](size_t toI, size_t toJ) {
      Span between{span.aAt + i, span.bAt + j, toI - i, toJ - j};
      if (fitsTable(between.n, between.m)) alignBest(a, b, between, pairs);
      else alignGreedy(a, b, between, pairs);
    };
    for (auto [ai, bj] : alignSequences(keysA, keysB)) {
      gap(ai, bj);
      pairs.emplace_back(span.aAt + ai, span.bAt + bj);
      i = ai + 1;
      j = bj + 1;
    }
    gap(span.n, span.m);
  }

  // The highest-scoring alignment of a span (a table of n·m cells).
  void alignBest(const Ops& a, const Ops& b, Span span, Pairs& pairs) const {
    const size_t n = span.n, m = span.m;
    if (n == 0 || m == 0) return;
    auto at = [&](size_t i, size_t j) { return score(a[span.aAt + i], b[span.bAt + j]); };
    // best[i][j]: the best score aligning the span's a[i..] with b[j..].
    std::vector<uint32_t> best((n + 1) * (m + 1), 0);
    auto cell = [&](size_t i, size_t j) -> uint32_t& { return best[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;) {
        uint32_t skip = std::max(cell(i + 1, j), cell(i, j + 1));
        int s = at(i, j);
        cell(i, j) = s ? std::max(skip, cell(i + 1, j + 1) + static_cast<uint32_t>(s)) : skip;
      }
    size_t i = 0, j = 0;
    while (i < n && j < m) {
      int s = at(i, j);
      if (s && cell(i, j) == cell(i + 1, j + 1) + static_cast<uint32_t>(s)) {
        pairs.emplace_back(span.aAt + i++, span.bAt + j++);
      } else if (cell(i, j) == cell(i + 1, j)) {
        ++i;
      } else {
        ++j;
      }
    }
  }

  // For huge gaps, linear time: each op of b pairs with the next unpaired
  // op of a when they can pair at all (edits rarely reorder), else with the
  // first op a little further on that it can pair with, else it is added.
  void alignGreedy(const Ops& a, const Ops& b, Span span, Pairs& pairs) const {
    constexpr size_t kWindow = 64;
    const size_t aEnd = span.aAt + span.n;
    size_t nextA = span.aAt;
    for (size_t j = span.bAt; j < span.bAt + span.m; ++j) {
      size_t best = nextA;
      int bestScore = nextA < aEnd ? score(a[nextA], b[j]) : 0;
      for (size_t i = nextA + 1; bestScore == 0 && i < std::min(aEnd, nextA + kWindow); ++i)
        if (int s = score(a[i], b[j]); s > bestScore) {
          best = i;
          bestScore = s;
        }
      if (bestScore == 0) continue;
      pairs.emplace_back(best, j);
      nextA = best + 1;
    }
  }

  void diffBlocks(const Block& before, const Block& after) {
    const auto& argsA = before.arguments();
    const auto& argsB = after.arguments();
    for (size_t i = 0; i < std::min(argsA.size(), argsB.size()); ++i) valueMap_[argsA[i]->id] = argsB[i];
    Ops a = opsOf(before);
    Ops b = opsOf(after);
    size_t i = 0, j = 0;
    for (auto [pi, pj] : align(a, b)) {
      while (i < pi) reportAll(OpChange::Kind::Removed, a[i++]->op);
      while (j < pj) reportAll(OpChange::Kind::Added, b[j++]->op);
      diffPair(a[i++]->op, b[j++]->op);
    }
    while (i < a.size()) reportAll(OpChange::Kind::Removed, a[i++]->op);
    while (j < b.size()) reportAll(OpChange::Kind::Added, b[j++]->op);
  }

  // An added or removed op, with everything nested in it.
  void reportAll(OpChange::Kind kind, const Operation* op) {
    auto report = [&](const Operation* o) {
      OpChange change;
      change.kind = kind;
      (kind == OpChange::Kind::Added ? change.after : change.before) = o;
      changes_.push_back(std::move(change));
    };
    report(op);
    for (const Block* region : op->regions()) walkOps(*region, report);
  }

  void diffPair(const Operation* a, const Operation* b) {
    for (size_t i = 0; i < std::min(a->numResults(), b->numResults()); ++i)
      valueMap_[a->result(i)->id] = b->result(i);
    std::vector<std::string> differences = compare(*a, *b);
    if (!differences.empty())
      changes_.push_back({OpChange::Kind::Changed, a, b, std::move(differences)});
    for (size_t r = 0; r < a->regions().size(); ++r) diffBlocks(*a->regions()[r], *b->regions()[r]);
  }

  static std::string_view typeText(const Type* type) { return type ? type->text : "<<NULL TYPE>>"; }

  std::vector<std::string> compare(const Operation& a, const Operation& b) const {
    std::vector<std::string> out;
    if (a.attributes() != b.attributes()) compareAttributes(a.attributes(), b.attributes(), out);
    if (a.numOperands() != b.numOperands()) out.push_back("operand count");
    for (size_t i = 0; i < std::min(a.numOperands(), b.numOperands()); ++i) {
      const Value* va = a.operandValue(i);
      const Value* vb = b.operandValue(i);
      bool same = va == nullptr ? vb == nullptr : valueMap_[va->id] == vb;
      if (!same) out.push_back(fmt::format("operand {}", i));
      if (typeText(va ? va->type : nullptr) != typeText(vb ? vb->type : nullptr))
        out.push_back(fmt::format("operand {} type", i));
    }
    if (a.numResults() != b.numResults()) out.push_back("result count");
    for (size_t i = 0; i < std::min(a.numResults(), b.numResults()); ++i)
      if (typeText(a.result(i)->type) != typeText(b.result(i)->type))
        out.push_back(fmt::format("result {} type", i));
    for (size_t r = 0; r < a.regions().size(); ++r)
      if (a.regions()[r]->arguments().size() != b.regions()[r]->arguments().size())
        out.push_back(fmt::format("region {} arguments", r));
    return out;
  }

  // Attributes are compared by key (Paddle prints them sorted, but a hand
  // edit may not): one difference per key added, removed or changed.
  void compareAttributes(std::string_view textA, std::string_view textB, std::vector<std::string>& out) const {
    std::vector<AttributeEntry> a, b;
    for (const AttributeEntry& entry : splitAttributes(textA))
      if (!ignored(entry.key)) a.push_back(entry);
    for (const AttributeEntry& entry : splitAttributes(textB))
      if (!ignored(entry.key)) b.push_back(entry);
    auto find = [](const std::vector<AttributeEntry>& entries, std::string_view key) {
      return std::find_if(entries.begin(), entries.end(),
                          [&](const AttributeEntry& e) { return e.key == key; });
    };
    for (const AttributeEntry& entry : a) {
      auto other = find(b, entry.key);
      if (other == b.end()) out.push_back(fmt::format("attribute {} removed", entry.key));
      else if (other->value != entry.value) out.push_back(fmt::format("attribute {}", entry.key));
    }
    for (const AttributeEntry& entry : b)
      if (find(a, entry.key) == a.end()) out.push_back(fmt::format("attribute {} added", entry.key));
  }

  const DiffOptions& options_;
  // Every op's key, sorted by the op's address once all are known: 24 bytes
  // an op where a hash map's nodes took more than twice that.
  std::vector<KeyedOp> keys_;
  std::unordered_map<const Type*, uint64_t> typeHashes_;
  // Where a text is (not what it says): interned texts are equal iff they
  // are at the same place.
  struct TextAt {
    const char* data;
    size_t size;
    bool operator==(const TextAt&) const = default;
  };
  struct TextAtHash {
    size_t operator()(const TextAt& t) const { return std::hash<const char*>()(t.data) ^ t.size; }
  };
  std::unordered_map<TextAt, uint64_t, TextAtHash> attributeHashes_;
  std::vector<uint64_t> valueCones_[2];        // by Value::id, per side; 0: not yet defined
  std::vector<const Value*> valueMap_;          // before's Value::id → after's value
  std::vector<OpChange> changes_;
};

size_t lineOf(const SourceFile& source, const Operation* op) {
  return source.lineCol(op->location()).line;
}

}  // namespace

size_t ProgramDiff::count(OpChange::Kind kind) const {
  return static_cast<size_t>(std::count_if(changes.begin(), changes.end(),
                                           [&](const OpChange& c) { return c.kind == kind; }));
}

ProgramDiff diffPrograms(const Program& before, const Program& after, const DiffOptions& options) {
  return Differ(options).run(before, after);
}

void writeDiff(const ProgramDiff& diff, const SourceFile& before, const SourceFile& after,
               const std::function<void(std::string_view)>& write) {
  if (diff.equal()) return;
  write(fmt::format("old: {}\nnew: {}\n", terminalLine(before.name()), terminalLine(after.name())));
  std::string out;
  // The changes come in file order on both sides: the pages the listing has
  // passed leave memory (read back should one be quoted again), so quoting
  // every line of both files holds no more of them than a page or two.
  size_t droppedBefore = 0, droppedAfter = 0;
  for (const OpChange& change : diff.changes) {
    out.clear();
    const size_t oldLine = change.before ? lineOf(before, change.before) : 0;
    const size_t newLine = change.after ? lineOf(after, change.after) : 0;
    switch (change.kind) {
      case OpChange::Kind::Added: out += fmt::format("added {}\n", change.after->name()); break;
      case OpChange::Kind::Removed: out += fmt::format("removed {}\n", change.before->name()); break;
      case OpChange::Kind::Changed:
        out += fmt::format("changed {}: {}\n", change.before->name(), fmt::join(change.differences, ", "));
        break;
    }
    // The op's source lines under a gutter, as compilers quote source: never
    // a line a patch tool could read as a hunk.
    const size_t width = fmt::formatted_size("{}", std::max(oldLine, newLine));
    if (change.before)
      out += fmt::format("  old {:>{}} | {}\n", oldLine, width, before.lineAt(change.before->location()));
    if (change.after)
      out += fmt::format("  new {:>{}} | {}\n", newLine, width, after.lineAt(change.after->location()));
    escapeForTerminal(out);
    write(out);
    if (change.before) droppedBefore = before.dropPages(droppedBefore, change.before->location());
    if (change.after) droppedAfter = after.dropPages(droppedAfter, change.after->location());
  }
}

std::string formatDiff(const ProgramDiff& diff, const SourceFile& before, const SourceFile& after) {
  std::string out;
  writeDiff(diff, before, after, [&](std::string_view text) { out += text; });
  return out;
}

std::string formatDiffStat(const ProgramDiff& diff) {
  return fmt::format("{} ops added, {} removed, {} changed ({} ops -> {} ops)\n",
                     diff.count(OpChange::Kind::Added), diff.count(OpChange::Kind::Removed),
                     diff.count(OpChange::Kind::Changed), diff.beforeOps, diff.afterOps);
}

}  // namespace reshardctl
