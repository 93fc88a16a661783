#include "syntax/parser.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <tao/pegtl.hpp>

#include "grammar/pir_grammar.h"
#include "syntax/generation_detection.h"
#include "syntax/parse_errors.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace pegtl = tao::pegtl;
namespace g = grammar;

namespace {

constexpr size_t kMaxNesting = 200;          // brackets and blocks; deeper input is rejected
constexpr size_t kMaxErrors = 20;            // then the parse stops
constexpr size_t kReleaseEvery = 8u << 20;   // bytes of input between page releases

struct Span {
  size_t offset = 0;
  size_t length = 0;
};

// A name's binding. Names of values in a closed nested block stay in the
// table as invisible, so a later use gets a precise message.
struct Binding {
  Value* value = nullptr;
  size_t offset = 0;
  bool visible = true;
};

struct OperandRef {
  Value* value;
  Span where;
  bool resolved;  // false: an undefined name (already reported)
};

struct TypeRef {
  const Type* type;
  Span where;
};

// Everything read so far of one op line. Region ops nest, so these form a
// stack; the vectors keep their capacity from op to op.
struct PendingOp {
  size_t location = 0;
  std::vector<std::pair<std::string_view, Span>> resultNames;
  std::string_view name;
  bool legacyName = false;
  Span nameSpan;
  std::vector<OperandRef> operands;
  std::vector<std::pair<std::string_view, std::string_view>> attrEntries;  // key, whole entry
  std::string_view currentKey;
  std::string_view attributes;
  Span distSpan;
  std::string_view distText;
  std::vector<TypeRef> operandTypes;
  std::vector<TypeRef> resultTypes;
  Span operandTypesOpen, resultTypesStart;
  bool hasSignature = false;
  RegionSyntax syntax = RegionSyntax::None;
  std::optional<uint32_t> debugId;
  Operation* created = nullptr;

  void reset(size_t at) {
    location = at;
    resultNames.clear();
    operands.clear();
    attrEntries.clear();
    operandTypes.clear();
    resultTypes.clear();
    name = {};
    legacyName = false;
    attributes = {};
    distText = {};
    distSpan = {};
    hasSignature = false;
    syntax = RegionSyntax::None;
    debugId.reset();
    created = nullptr;
  }
};

struct UnresolvedUse {
  std::string name;
  Span where;
};

struct ParseState {
  SourceFile& source;
  DiagnosticEngine& diagnostics;
  std::unique_ptr<Program> program = std::make_unique<Program>();

  std::vector<Block*> blocks;  // innermost last
  std::vector<std::vector<std::string_view>> blockNames;  // names defined per open block
  std::vector<PendingOp> ops;  // ops[depth] is the op being read at that depth
  OpSpec spec;                 // the op being created, reused: no allocation per op
  size_t opDepth = 0;
  size_t nesting = 0;

  std::vector<Binding> numbered;  // %N
  std::unordered_map<std::string_view, Binding> named;  // %x, %arg_0, %kwarg_a
  std::vector<UnresolvedUse> unresolved;

  std::unordered_map<std::string_view, const OpDistAttr*> distCache;
  struct ResolvedKey {
    const Type* type;
    const ProcessMesh* mesh;
    bool operator==(const ResolvedKey&) const = default;
  };
  struct ResolvedHash {
    size_t operator()(const ResolvedKey& k) const {
      return std::hash<const void*>()(k.type) * 31 + std::hash<const void*>()(k.mesh);
    }
  };
  std::unordered_map<ResolvedKey, const TensorDistAttr*, ResolvedHash> resolvedCache;

  uint32_t nextResultNumber = 0;
  uint32_t nextArgNumber = 0;
  bool denselyNumbered = true;
  bool keywordArgs = false;
  size_t releasedUpTo = 0;

  // Generation detection (generation_detection.h).
  DistTextStyle opDistStyle;  // gathered from each distinct op_dist_attr text
  TypeTextEvidence typeEvidence;  // gathered from each distinct type text
  bool sawOpDistAttr = false;
  bool sawAttrPrefix = false;  // `(Int32)1`, `(pd_op.DataType)float32`: before generation E

  ParseState(SourceFile& s, DiagnosticEngine& d) : source(s), diagnostics(d) {}

  size_t at(const char* p) const { return static_cast<size_t>(p - source.text().data()); }
  PendingOp& op() { return ops[opDepth]; }

  void error(Span where, std::string message) {
    diagnostics.error(where.offset, where.length, std::move(message));
    if (diagnostics.errorCount() >= kMaxErrors)
      throw InputError{where.offset, where.length, "too many errors; stopping"};
  }
};

template <typename Input>
Span spanOf(const ParseState& st, const Input& in) {
  return Span{st.at(in.begin()), in.size()};
}

// ---- names -------------------------------------------------------------------

// "%17" → 17; anything else → nullopt.
std::optional<uint32_t> numberOf(std::string_view name) {
  // "%017" is a name of its own, not %17.
  if (name.size() < 2 || (name[1] == '0' && name.size() > 2)) return std::nullopt;
  uint32_t number = 0;
  auto [end, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), number);
  if (ec != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return number;
}

// Numbers near those seen so far go in the vector (Paddle numbers densely);
// a far larger one goes in the map, so `%4000000000` cannot make the vector huge.
constexpr size_t kDenseNumberSlack = 1 << 16;

Binding* findBinding(ParseState& st, std::string_view name) {
  if (auto number = numberOf(name); number && *number < st.numbered.size() && st.numbered[*number].value)
    return &st.numbered[*number];
  auto it = st.named.find(name);
  return it == st.named.end() ? nullptr : &it->second;
}

void define(ParseState& st, std::string_view name, Span where, Value* value) {
  if (Binding* previous = findBinding(st, name)) {
    Diagnostic& d = st.diagnostics.error(where.offset, where.length,
                                         fmt::format("redefinition of value '{}'", name));
    d.notes.push_back(Diagnostic{Severity::Note, previous->offset, name.size(),
                                 "previous definition is here", {}});
    return;
  }
  Binding binding{value, where.offset, true};
  std::optional<uint32_t> number = numberOf(name);
  if (number && *number < st.numbered.size() + kDenseNumberSlack) {
    if (*number >= st.numbered.size()) st.numbered.resize(std::max<size_t>(*number + 1, st.numbered.size() * 2));
    st.numbered[*number] = binding;
  } else {
    st.named.emplace(st.program->strings().intern(name), binding);
  }
  if (st.blocks.size() > 1) st.blockNames.back().push_back(st.program->strings().intern(name));
}

Value* use(ParseState& st, std::string_view name, Span where, bool* resolved) {
  Binding* binding = findBinding(st, name);
  *resolved = binding && binding->visible;
  if (!binding) {
    st.unresolved.push_back(UnresolvedUse{std::string(name), where});
    return nullptr;
  }
  if (!binding->visible) {
    Diagnostic& d = st.diagnostics.error(
        where.offset, where.length,
        fmt::format("value '{}' is defined inside a nested block and is not visible here", name));
    d.notes.push_back(Diagnostic{Severity::Note, binding->offset, name.size(), "defined here", {}});
    return nullptr;
  }
  return binding->value;
}

// Names used before any definition: now that every definition is known, a
// name defined later is "used before its definition", the rest undefined.
// They count towards the cap on errors like any other.
void reportUnresolved(ParseState& st) {
  for (const UnresolvedUse& use : st.unresolved) {
    if (st.diagnostics.errorCount() >= kMaxErrors) return;
    Binding* later = findBinding(st, use.name);
    if (later && later->offset > use.where.offset) {
      Diagnostic& d = st.diagnostics.error(
          use.where.offset, use.where.length,
          fmt::format("value '{}' is used before its definition", use.name));
      d.notes.push_back(Diagnostic{Severity::Note, later->offset, use.name.size(), "defined here", {}});
    } else {
      st.diagnostics.error(use.where.offset, use.where.length,
                           fmt::format("use of undefined value '{}'", use.name));
    }
  }
}

// ---- building ops --------------------------------------------------------------

// Paddle keeps an op's attributes in a std::map: each key once. `entries`
// are sorted by key (stably, so a repeat follows the first in the source too).
void reportDuplicateKeys(ParseState& st, const PendingOp& op) {
  const auto& entries = op.attrEntries;
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i].first != entries[i - 1].first) continue;
    Span repeat{st.at(entries[i].second.data()), entries[i].first.size()};
    Diagnostic& d = st.diagnostics.error(repeat.offset, repeat.length,
                                         fmt::format("attribute '{}' appears twice", entries[i].first));
    d.notes.push_back(Diagnostic{Severity::Note, st.at(entries[i - 1].second.data()),
                                 entries[i].first.size(), "first given here", {}});
  }
}

// Paddle prints `{k:v,...}` with keys sorted and no spaces between entries;
// an input written otherwise is brought to that form.
std::string_view canonicalAttributes(ParseState& st, PendingOp& op) {
  auto byKey = [](const auto& a, const auto& b) { return a.first < b.first; };
  auto notBefore = [](const auto& a, const auto& b) { return !(a.first < b.first); };
  size_t canonicalSize = op.attrEntries.empty() ? 2 : 1 + op.attrEntries.size();
  for (const auto& entry : op.attrEntries) canonicalSize += entry.second.size();
  bool sortedUnique =
      std::adjacent_find(op.attrEntries.begin(), op.attrEntries.end(), notBefore) == op.attrEntries.end();
  if (op.attributes.size() == canonicalSize && sortedUnique)
    return st.program->strings().intern(op.attributes);
  std::stable_sort(op.attrEntries.begin(), op.attrEntries.end(), byKey);
  reportDuplicateKeys(st, op);
  std::string text = "{";
  for (size_t i = 0; i < op.attrEntries.size(); ++i) {
    if (i) text += ',';
    text += op.attrEntries[i].second;
  }
  text += '}';
  return st.program->strings().intern(text);
}

const OpDistAttr* readDistAttr(ParseState& st, PendingOp& op, std::string_view attributes) {
  if (op.distText.empty()) return nullptr;
  if (auto it = st.distCache.find(op.distText); it != st.distCache.end()) return it->second;
  st.sawOpDistAttr = true;
  const OpDistAttr* attr = st.program->keepOpDistAttr(
      readOpDistAttr(op.distText, op.distSpan.offset, &st.opDistStyle));
  // Key the cache with text that outlives the input buffer.
  size_t keyAt = attributes.find(op.distText);
  std::string_view key = keyAt == std::string_view::npos ? st.program->strings().intern(op.distText)
                                                         : attributes.substr(keyAt, op.distText.size());
  st.distCache.emplace(key, attr);
  return attr;
}

// Generation A types omit process ids: take them from the defining op's mesh
// (its result entry's mesh, which is the op mesh unless the entry names its
// own mesh_shape) when the shapes agree.
const TensorDistAttr* resolveResultDist(ParseState& st, const Value& result, const OpDistAttr* attr) {
  const Type* type = result.type;
  if (!type || type == pendingType() || !type->isDist()) return nullptr;
  if (type->dist.mesh.idsKnown || !attr) return &type->dist;
  const ProcessMesh* mesh = &attr->mesh;
  if (result.index < attr->results.size() && attr->results[result.index].kind == DistEntry::Kind::Tensor)
    mesh = &attr->results[result.index].tensor.mesh;
  if (!mesh->idsKnown || mesh->shape != type->dist.mesh.shape) return &type->dist;
  auto [it, inserted] = st.resolvedCache.try_emplace(ParseState::ResolvedKey{type, mesh}, nullptr);
  if (inserted) {
    TensorDistAttr resolved = type->dist;
    resolved.mesh = *mesh;
    it->second = st.program->keepTensorDistAttr(std::move(resolved));
  }
  return it->second;
}

void checkOperandType(ParseState& st, size_t index, const OperandRef& operand, const TypeRef& declared) {
  if (!operand.resolved && operand.value == nullptr && !declared.type) return;
  if (!operand.value) {
    if (operand.resolved && declared.type)
      st.error(declared.where, fmt::format("operand {} is <<NULL VALUE>> but its type is '{}' "
                                           "(expected <<NULL TYPE>>)", index, declared.type->text));
    return;
  }
  Value* value = operand.value;
  if (value->type == pendingType()) {  // a block argument or while result: first use types it
    value->type = declared.type;
    value->dist = declared.type && declared.type->isDist() ? &declared.type->dist : nullptr;
    return;
  }
  if (value->type != declared.type) {
    auto typeText = [](const Type* t) { return t ? t->text : std::string_view("<<NULL TYPE>>"); };
    st.error(declared.where,
             fmt::format("operand {} is declared as '{}', but the value has type '{}'", index,
                         typeText(declared.type), typeText(value->type)));
  }
}

void checkSignature(ParseState& st, PendingOp& op) {
  if (op.syntax == RegionSyntax::While || op.syntax == RegionSyntax::LegacyWhile) return;  // no types
  if (op.resultTypes.size() != op.resultNames.size()) {
    Span where = op.resultTypesStart;
    st.error(where.length ? where : Span{op.location, 1},
             fmt::format("op has {} result{} but {} result type{}", op.resultNames.size(),
                         op.resultNames.size() == 1 ? "" : "s", op.resultTypes.size(),
                         op.resultTypes.size() == 1 ? "" : "s"));
  }
  if (!op.hasSignature) return;  // pd_op.if: operand types are not printed
  if (op.operandTypes.size() != op.operands.size()) {
    st.error(op.operandTypesOpen,
             fmt::format("op has {} operand{} but {} operand type{}", op.operands.size(),
                         op.operands.size() == 1 ? "" : "s", op.operandTypes.size(),
                         op.operandTypes.size() == 1 ? "" : "s"));
    return;
  }
  for (size_t i = 0; i < op.operands.size(); ++i)
    checkOperandType(st, i, op.operands[i], op.operandTypes[i]);
}

// Creates the op in the current block. Region ops are created when their
// first block opens, so the ops inside can be placed in it.
Operation* createPendingOp(ParseState& st) {
  PendingOp& op = st.op();
  if (op.created) return op.created;
  checkSignature(st, op);
  OpSpec& spec = st.spec;  // every field is set below; the vectors keep their capacity
  spec.operands.clear(), spec.resultTypes.clear();
  spec.name = st.program->strings().intern(op.name);
  spec.attributes = op.attributes.empty() ? std::string_view("{}") : canonicalAttributes(st, op);
  spec.distAttr = readDistAttr(st, op, spec.attributes);
  spec.location = static_cast<uint32_t>(op.location);
  spec.distAttrLocation = static_cast<uint32_t>(op.distSpan.offset);
  spec.regionSyntax = op.syntax;
  spec.debugId = op.debugId;
  for (const OperandRef& operand : op.operands) spec.operands.push_back(operand.value);
  for (size_t i = 0; i < op.resultNames.size(); ++i)
    spec.resultTypes.push_back(i < op.resultTypes.size() ? op.resultTypes[i].type : pendingType());
  Operation* created = st.program->createOp(spec);
  for (size_t i = 0; i < created->numResults(); ++i)
    created->result(i)->dist = resolveResultDist(st, *created->result(i), spec.distAttr);
  st.blocks.back()->insertBefore(nullptr, created);
  op.created = created;
  return created;
}

void defineResults(ParseState& st, PendingOp& op) {
  for (size_t i = 0; i < op.resultNames.size(); ++i) {
    auto [name, where] = op.resultNames[i];
    if (numberOf(name) != st.nextResultNumber) st.denselyNumbered = false;
    ++st.nextResultNumber;
    define(st, name, where, op.created->result(i));
  }
}

void enterNesting(ParseState& st, const char* at) {
  if (++st.nesting > kMaxNesting)
    throw InputError{st.at(at), 1, fmt::format("nesting deeper than {} levels", kMaxNesting)};
}

// ---- actions -----------------------------------------------------------------

template <typename Rule>
struct action : pegtl::nothing<Rule> {};

template <typename Rule>
struct opens_nesting {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    enterNesting(st, in.begin());
  }
};
struct closes_nesting {
  template <typename Input>
  static void apply(const Input& /*in*/, ParseState& st) {
    --st.nesting;
  }
};
template <> struct action<g::bracket_open> : opens_nesting<g::bracket_open> {};
template <> struct action<g::brace_open> : opens_nesting<g::brace_open> {};
template <> struct action<g::paren_open> : opens_nesting<g::paren_open> {};
template <> struct action<g::angle_open> : opens_nesting<g::angle_open> {};
template <> struct action<g::vec_open> : opens_nesting<g::vec_open> {};
template <> struct action<g::bracket_close> : closes_nesting {};
template <> struct action<g::brace_close> : closes_nesting {};
template <> struct action<g::paren_close> : closes_nesting {};
template <> struct action<g::angle_close> : closes_nesting {};
template <> struct action<g::vec_close> : closes_nesting {};

template <>
struct action<g::op_begin> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    if (st.ops.size() <= st.opDepth) st.ops.resize(st.opDepth + 1);
    st.op().reset(st.at(in.begin()));
  }
};

template <>
struct action<g::result_def> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().resultNames.emplace_back(in.string_view(), spanOf(st, in));
  }
};

template <>
struct action<g::quoted_op_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view quoted = in.string_view();
    st.op().name = quoted.substr(1, quoted.size() - 2);
    st.op().nameSpan = spanOf(st, in);
  }
};

template <>
struct action<g::legacy_if_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().name = in.string_view();
    st.op().legacyName = true;
    st.op().nameSpan = spanOf(st, in);
  }
};

template <>
struct action<g::op_id_number> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    uint32_t id = 0;
    std::string_view digits = in.string_view();
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec != std::errc() || id == UINT32_MAX)
      throw InputError{st.at(in.begin()), in.size(), "op id out of range"};
    (void)end;
    st.op().debugId = id;
  }
};

template <>
struct action<g::op_id> {  // the while header's spacing is judged after the id
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().nameSpan.length = st.at(in.end()) - st.op().nameSpan.offset;
  }
};

template <>
struct action<g::operand> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view text = in.string_view();
    if (text.front() != '%') {
      st.op().operands.push_back(OperandRef{nullptr, spanOf(st, in), true});
      return;
    }
    bool resolved = false;
    Value* value = use(st, text, spanOf(st, in), &resolved);
    st.op().operands.push_back(OperandRef{value, spanOf(st, in), resolved});
  }
};

template <>
struct action<g::attr_key> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().currentKey = in.string_view();
  }
};

template <>
struct action<g::attr_value> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    if (!st.sawAttrPrefix && startsWithAttrKindPrefix(in.string_view())) st.sawAttrPrefix = true;
    if (st.op().currentKey == "op_dist_attr") {
      st.op().distText = in.string_view();
      st.op().distSpan = spanOf(st, in);
    }
  }
};

template <>
struct action<g::attr_entry> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().attrEntries.emplace_back(st.op().currentKey, in.string_view());
  }
};

template <>
struct action<g::attr_dict> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().attributes = in.string_view();
  }
};

template <>
struct action<g::operand_types_open> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().operandTypesOpen = spanOf(st, in);
    st.op().hasSignature = true;
  }
};

template <>
struct action<g::operand_type> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const Type* type = readType(st.program->types(), in.string_view(), st.at(in.begin()), &st.typeEvidence);
    st.op().operandTypes.push_back(TypeRef{type, spanOf(st, in)});
  }
};

template <>
struct action<g::result_type> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const Type* type = readType(st.program->types(), in.string_view(), st.at(in.begin()), &st.typeEvidence);
    if (st.op().resultTypes.empty()) st.op().resultTypesStart = spanOf(st, in);
    st.op().resultTypes.push_back(TypeRef{type, spanOf(st, in)});
  }
};

template <>
struct action<g::signature_arrow> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().resultTypesStart = spanOf(st, in);
  }
};

template <>
struct action<g::while_operands> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    PendingOp& op = st.op();
    // Until May 2024 the while header had no space before "(cond=".
    bool spaced = st.at(in.begin()) > op.nameSpan.offset + op.nameSpan.length;
    op.syntax = spaced ? RegionSyntax::While : RegionSyntax::LegacyWhile;
  }
};

template <>
struct action<g::arrow> {  // only the if/pylayer header uses a bare arrow
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().syntax = st.op().legacyName ? RegionSyntax::LegacyIf : RegionSyntax::If;
    st.op().resultTypesStart = spanOf(st, in);
  }
};

template <>
struct action<g::block_open> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    enterNesting(st, in.begin());
    Operation* op = createPendingOp(st);
    st.blocks.push_back(st.program->appendRegion(op));
    st.blockNames.emplace_back();
    ++st.opDepth;
  }
};

template <>
struct action<g::block_close> {
  template <typename Input>
  static void apply(const Input& /*in*/, ParseState& st) {
    --st.nesting;
    --st.opDepth;
    for (std::string_view name : st.blockNames.back()) {
      if (Binding* binding = findBinding(st, name)) binding->visible = false;
    }
    st.blockNames.pop_back();
    st.blocks.pop_back();
  }
};

template <>
struct action<g::kwargs_marker> {
  template <typename Input>
  static void apply(const Input& /*in*/, ParseState& st) {
    st.keywordArgs = true;
  }
};

template <>
struct action<g::block_arg> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view name = in.string_view();
    std::string_view keyword = st.keywordArgs ? st.program->strings().intern(name.substr(1)) : "";
    if (!st.keywordArgs && name != fmt::format("%arg_{}", st.nextArgNumber)) st.denselyNumbered = false;
    if (!st.keywordArgs) ++st.nextArgNumber;
    Value* arg = st.program->addBlockArgument(st.blocks.back(), keyword);
    define(st, name, spanOf(st, in), arg);
  }
};

template <>
struct action<g::block_args> {
  template <typename Input>
  static void apply(const Input& /*in*/, ParseState& st) {
    st.keywordArgs = false;
  }
};

template <>
struct action<g::op> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    PendingOp& op = st.op();
    createPendingOp(st);
    defineResults(st, op);
    size_t end = st.at(in.end());
    if (end - st.releasedUpTo > kReleaseEvery) {
      st.source.releaseBefore(op.location);
      st.releasedUpTo = end;
    }
  }
};

template <>
struct action<g::program_open> {
  template <typename Input>
  static void apply(const Input& /*in*/, ParseState& st) {
    st.blocks.push_back(st.program->body());
    st.blockNames.emplace_back();
  }
};

void reportSyntaxError(ParseState& st, const pegtl::parse_error& e) {
  size_t offset = e.positions().empty() ? 0 : e.positions().front().byte;
  std::string message(e.message());
  if (st.source.text().find_first_not_of(" \t\r\n") == std::string_view::npos)
    message = "empty input: expected a program starting with '{'";
  st.diagnostics.error(offset, 1, std::move(message));
}

}  // namespace

ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics) {
  ParseState st(source, diagnostics);
  std::string_view text = source.text();
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(), source.name());
  size_t errorsBefore = diagnostics.errorCount();
  try {
    pegtl::parse<g::program, action, error_control>(in, st);
    reportUnresolved(st);
    GenerationEvidence evidence;
    evidence.dist = st.typeEvidence.dist;
    evidence.dist.merge(st.opDistStyle);
    evidence.sawOpDistAttr = st.sawOpDistAttr;
    evidence.sawAttrPrefix = st.sawAttrPrefix;
    evidence.sawBareTensor = st.typeEvidence.sawBareTensor;
    st.program->setDistStyle(detectGeneration(evidence));
  } catch (const pegtl::parse_error& e) {
    reportSyntaxError(st, e);
  } catch (const InputError& e) {
    if (e.message != "too many errors; stopping") diagnostics.error(e.offset, e.length, e.message);
  }
  ParseResult result;
  result.denselyNumbered = st.denselyNumbered;
  if (diagnostics.errorCount() == errorsBefore) result.program = std::move(st.program);
  return result;
}

}  // namespace reshardctl
