#include "syntax/graph_builder.h"

#include <algorithm>
#include <climits>
#include <optional>

#include <fmt/format.h>

#include "support/text.h"
#include "syntax/dist_attr_text.h"
#include "syntax/type_text.h"

namespace reshardctl::parsing {

namespace {
// Numbers near those seen so far go in the vector (Paddle numbers densely);
// a far larger one goes in the map, so `%4000000000` cannot make the vector huge.
constexpr size_t kDenseNumberSlack = 1 << 16;
}  // namespace

// ---- names -------------------------------------------------------------------

// By hand rather than std::from_chars: it runs several times for every
// value name of a dump, and the names are short.
std::optional<uint32_t> numberOf(std::string_view name) {
  // "%017" is a name of its own, not %17; more than 10 digits overflow.
  if (name.size() < 2 || name.size() > 11 || (name[1] == '0' && name.size() > 2)) return std::nullopt;
  uint64_t number = 0;
  for (char c : name.substr(1)) {
    unsigned digit = static_cast<unsigned char>(c) - unsigned{'0'};
    if (digit > 9) return std::nullopt;
    number = number * 10 + digit;
  }
  if (number > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(number);
}

Binding* findBinding(ParseState& st, std::string_view name) { return findBinding(st, name, numberOf(name)); }

Binding* findBinding(ParseState& st, std::string_view name, std::optional<uint32_t> number) {
  if (number && *number - st.numberBase < st.numbered.size() && *number >= st.numberBase &&
      st.numbered[*number - st.numberBase].value)
    return &st.numbered[*number - st.numberBase];
  if (st.named.empty()) return nullptr;  // a dump numbered densely: no hashing per name
  auto it = st.named.find(name);
  return it == st.named.end() ? nullptr : &it->second;
}

void define(ParseState& st, std::string_view name, Span where, Value* value) {
  define(st, name, numberOf(name), where, value);
}

void define(ParseState& st, std::string_view name, std::optional<uint32_t> number, Span where, Value* value) {
  if (Binding* previous = findBinding(st, name, number)) {
    Diagnostic& d = st.diagnostics.error(where.offset, where.length,
                                         fmt::format("redefinition of value '{}'", name));
    d.notes.push_back(Diagnostic{Severity::Note, previous->offset, name.size(),
                                 "previous definition is here", {}});
    return;
  }
  Binding binding{value, where.offset, true};
  if (number && *number >= st.numberBase && *number - st.numberBase < st.numbered.size() + kDenseNumberSlack) {
    size_t index = *number - st.numberBase;
    if (index >= st.numbered.size()) st.numbered.resize(std::max<size_t>(index + 1, st.numbered.size() * 2));
    st.numbered[index] = binding;
  } else {
    st.named.emplace(st.program->strings().intern(name), binding);
  }
  if (st.blocks.size() > 1) st.blockNames.back().push_back(st.program->strings().intern(name));
}

// A fragment's value used and not defined: one of its external inputs, an
// argument of the body printed by its name, typed by its first use.
Value* externalInput(ParseState& st, std::string_view name, Span where) {
  Value* input = st.program->addBlockArgument(st.program->body(), st.program->strings().intern(name.substr(1)));
  define(st, name, where, input);
  if (st.blocks.size() > 1) st.blockNames.back().pop_back();  // visible after the block it was used in
  return input;
}

Value* use(ParseState& st, std::string_view name, Span where, bool* resolved) {
  Binding* binding = findBinding(st, name);
  if (!binding && st.fragment) {
    *resolved = true;
    return externalInput(st, name, where);
  }
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

// Now that every definition is known, a name defined later is "used before
// its definition", the rest undefined. They count towards the cap on errors.
void reportUnresolved(ParseState& st) {
  for (const UnresolvedUse& use : st.unresolved) {
    if (st.diagnostics.limitReached()) return;  // the engine stops at --max-errors
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

namespace {
// `value` prints as `name` (its '%' dropped); a number kept so moves the
// printer's counter past it, for the values a pass inserts.
void keepName(ParseState& st, Value* value, std::string_view name, std::optional<uint32_t> number) {
  value->argName = st.program->strings().intern(name.substr(1));
  if (number && *number >= st.nextKeptNumber) st.nextKeptNumber = *number + 1;
}
}  // namespace

void keepNamesAsRead(ParseState& st) {
  // One pass over the two name tables, after the parse: a dump numbered as
  // Paddle numbers (almost every one) never comes here and stores no name.
  auto keep = [&](std::string_view name, const Binding& binding) {
    if (!binding.value || !binding.value->argName.empty()) return;  // aliases, kwargs: named already
    keepName(st, binding.value, name, numberOf(name));
  };
  for (size_t n = 0; n < st.numbered.size(); ++n)
    if (st.numbered[n].value) keep(fmt::format("%{}", n + st.numberBase), st.numbered[n]);
  for (const auto& [name, binding] : st.named) keep(name, binding);
  st.program->setFirstResultNumber(st.nextKeptNumber);
}

GenerationEvidence generationEvidence(const ParseState& st) {
  GenerationEvidence evidence;
  evidence.dist = st.typeEvidence.dist;
  evidence.dist.merge(st.opDistStyle);
  evidence.sawOpDistAttr = st.sawOpDistAttr;
  evidence.sawAttrPrefix = st.sawAttrPrefix;
  evidence.sawBareTensor = st.typeEvidence.sawBareTensor;
  return evidence;
}

// ---- building ops --------------------------------------------------------------

// Paddle keeps an op's attributes in a std::map: each key once. `entries`
// are sorted by key once keptDictionary has run (stably, so a repeat follows
// the first in the source too); recognised and verbatim ones have no repeat.
void reportDuplicateKeys(ParseState& st, const DictionaryRead& read) {
  const auto& entries = read.entries;
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i].first != entries[i - 1].first) continue;
    Span repeat{st.at(entries[i].second.data()), entries[i].first.size()};
    Diagnostic& d = st.diagnostics.error(repeat.offset, repeat.length,
                                         fmt::format("attribute '{}' appears twice", entries[i].first));
    d.notes.push_back(Diagnostic{Severity::Note, st.at(entries[i - 1].second.data()),
                                 entries[i].first.size(), "first given here", {}});
  }
}

// What the op's op_dist_attr text reads as: recognised while reading, read
// by an earlier op from the same text, or read now.
const OpDistAttr* readDistAttr(ParseState& st, DictionaryRead& read) {
  if (read.distText.empty()) return nullptr;
  if (read.knownDist) return read.knownDist;
  if (const OpDistAttr* earlier = st.attributeMemo.distReadFrom(read)) return earlier;
  st.sawOpDistAttr = true;
  return st.program->keepOpDistAttr(readOpDistAttr(read.distText, st.at(read.distText.data()), &st.opDistStyle));
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
  if (op.syntax == RegionSyntax::While) return;  // no types
  if (op.resultTypes.size() != op.resultNames.size()) {
    Span where = op.resultTypesStart;
    st.error(where.length ? where : Span{op.location, 1},
             fmt::format("op has {} but {}", plural(op.resultNames.size(), "result"),
                         plural(op.resultTypes.size(), "result type")));
  }
  if (!op.hasSignature) return;  // if and group headers print no operand types
  if (op.operandTypes.size() != op.operands.size()) {
    st.error(op.operandTypesOpen,
             fmt::format("op has {} but {}", plural(op.operands.size(), "operand"),
                         plural(op.operandTypes.size(), "operand type")));
    return;
  }
  for (size_t i = 0; i < op.operands.size(); ++i)
    checkOperandType(st, i, op.operands[i], op.operandTypes[i]);
}

namespace {
// A result name that is not digits: IrPrinter::PrintValue prints an alias
// (IrPrinter::AddValueAlias, called by StackCreateOp::Print in
// paddle/pir/src/dialect/control_flow/ir/cf_op.cc) as it is and counts only
// the others. Digits that are not Paddle's numbering (`%017`, `%4000000000`)
// make the dump's names kept as read (keepNamesAsRead).
bool isAlias(std::string_view name) {
  // A loop, not find_first_not_of (a search of the digit set per byte): once per result.
  return !name.empty() && std::any_of(name.begin() + 1, name.end(), [](char c) { return c < '0' || c > '9'; });
}

// IrPrinter numbers an op's results when it prints the op's line, before
// the ops of its regions (PrintValue's counter): checked when the op is
// created, which for a region op is when its first block opens.
void checkResultNumbering(ParseState& st, const PendingOp& op) {
  if (st.fragment) return;
  for (const ResultName& result : op.resultNames) {
    if (!result.number && isAlias(result.name)) continue;
    // A chunk starts counting at its first number; the stitch checks it
    // continues the chunks before.
    if (st.chunk && !st.chunk->firstResultNumber)
      st.nextResultNumber = *(st.chunk->firstResultNumber = result.number.value_or(0));
    if (result.number != st.nextResultNumber) st.denselyNumbered = false;
    ++st.nextResultNumber;
  }
}
}  // namespace

namespace {
// The operands of `created` whose names the chunk does not define, each
// paired with its unresolved name (they were read in the same order).
void noteCrossChunkUses(ParseState& st, const PendingOp& op, Operation* created) {
  ChunkState& chunk = *st.chunk;
  bool typed = op.syntax != RegionSyntax::While && op.hasSignature && op.operandTypes.size() == op.operands.size();
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const OperandRef& operand = op.operands[i];
    if (operand.resolved || operand.value || chunk.unresolvedTaken == st.unresolved.size()) continue;
    if (st.unresolved[chunk.unresolvedTaken].where.offset != operand.where.offset) continue;  // an error reported
    chunk.crossUses.push_back(CrossChunkUse{created, static_cast<uint32_t>(i),
                                            static_cast<uint32_t>(chunk.unresolvedTaken++),
                                            typed ? op.operandTypes[i].type : nullptr, typed});
  }
}
}  // namespace

Operation* createPendingOp(ParseState& st) {
  PendingOp& op = st.op();
  if (op.created) return op.created;
  checkSignature(st, op);
  OpSpec& spec = st.spec;  // every field is set below; the vectors keep their capacity
  spec.operands.clear();
  spec.resultTypes.clear();
  spec.name = st.program->strings().intern(op.name);
  DictionaryRead& read = op.attributes;
  spec.attributes = keptDictionary(read, st.program->strings());
  reportDuplicateKeys(st, read);
  spec.distAttr = readDistAttr(st, read);
  st.attributeMemo.learn(spec.name, read, spec.attributes, spec.distAttr, st.program->strings());
  spec.location = static_cast<uint32_t>(op.location);
  spec.distAttrLocation = read.distText.empty() ? 0 : static_cast<uint32_t>(st.at(read.distText.data()));
  spec.regionSyntax = op.syntax;
  spec.spelling = op.spelling;
  spec.debugId = op.debugId;
  for (const OperandRef& operand : op.operands) spec.operands.push_back(operand.value);
  for (size_t i = 0; i < op.resultNames.size(); ++i)
    spec.resultTypes.push_back(i < op.resultTypes.size() ? op.resultTypes[i].type : pendingType());
  Operation* created = st.program->createOp(spec);
  if (st.chunk) noteCrossChunkUses(st, op, created);
  for (size_t i = 0; i < created->numResults(); ++i)
    created->result(i)->dist = resolveResultDist(st, *created->result(i), spec.distAttr);
  st.blocks.back()->insertBefore(nullptr, created);
  checkResultNumbering(st, op);
  if (!op.blankLines.empty()) st.program->setBlankLinesBefore(created, op.blankLines);
  if (!op.tabIndentation.empty()) st.program->setIndentation(created, op.tabIndentation);
  op.created = created;
  return created;
}

void defineResults(ParseState& st, PendingOp& op) {
  for (size_t i = 0; i < op.resultNames.size(); ++i) {
    auto [name, where, number] = op.resultNames[i];
    Value* result = op.created->result(i);
    // A printer alias (`%stack_0`): printed as read, it takes no number. A
    // name numberOf read is all digits, so only the others are looked at.
    if ((!number && isAlias(name)) || st.fragment) keepName(st, result, name, number);
    define(st, name, number, where, result);
  }
}

void enterNesting(ParseState& st, const char* at) {
  if (++st.nesting > kMaxNesting)
    throw InputError{st.at(at), 1, fmt::format("nesting deeper than {} levels", kMaxNesting)};
}


// ---- layout --------------------------------------------------------------------

std::string wholeBlankLines(std::string_view gap, bool atTextStart, bool afterGenericRegionOp) {
  if (atTextStart) return wholeBlankLines("\n" + std::string(gap), false, afterGenericRegionOp);  // its first line is whole too
  size_t first = gap.find('\n');
  size_t last = gap.rfind('\n');
  std::string lines;
  if (first == std::string_view::npos || first == last) return lines;
  // Between the newline that ends the line before and the one that ends the
  // last whole line, empty lines included (a person's, or a Markdown
  // editor's), but for the one the printer writes itself after a generic
  // region op.
  bool printersLine = afterGenericRegionOp;
  for (size_t start = first + 1; start <= last;) {
    size_t end = gap.find('\n', start);
    std::string_view line = gap.substr(start, end - start);  // without its newline
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // the printer writes "\n" alone
    if (!(line.empty() && printersLine)) lines.append(line).append(1, '\n');
    printersLine = false;
    start = end + 1;
  }
  return lines;
}

// IrPrinter::PrintGeneralOperation's op with regions ends in its last block's
// `}` and newline, and the enclosing block's newline then leaves an empty
// line (docs/format.md "Regions"): the printer writes it again.
bool followsGenericRegionOp(const ParseState& st) {
  const Operation* previous = st.blocks.back()->back();
  return previous && previous->regionSyntax() == RegionSyntax::None && !previous->regions().empty();
}

void noteTopLevelIndent(ParseState& st, std::string_view gapBeforeOp) {
  st.sawTopLevelOp = true;
  size_t newline = gapBeforeOp.rfind('\n');
  if (st.fragment) {
    st.program->setFragment(gapBeforeOp.size() - (newline == std::string_view::npos ? 0 : newline + 1));
    return;
  }
  if (newline != std::string_view::npos && gapBeforeOp.substr(newline + 1) == " ")
    st.program->setIndentStyle(IndentStyle::LeadingSpace);
}

namespace {

constexpr size_t kIndentStep = 4;  // IrPrinter::indentation(), as printer.cpp writes it

// The blanks ending `gap` after its last newline: a line's indentation, or
// nullopt when the gap holds no newline (the token does not start a line).
std::optional<size_t> lineIndent(std::string_view gap) {
  size_t newline = gap.rfind('\n');
  if (newline == std::string_view::npos) return std::nullopt;
  return gap.size() - newline - 1;
}

// The shift as read, if it fits the op's int8_t (printed + shift is then the
// column read, never negative); 0 for a token not at a line's start.
int8_t shiftOf(std::optional<size_t> read, size_t printed) {
  if (!read) return 0;
  long shift = static_cast<long>(*read) - static_cast<long>(printed);
  return shift < INT8_MIN || shift > INT8_MAX ? 0 : static_cast<int8_t>(shift);
}

// A group printed with name() bare (printer.cpp's bareGroupBody).
bool bareGroup(const ParseState& st, const PendingOp& op) {
  return op.syntax == RegionSyntax::Group &&
         (op.spelling.unquotedName || st.program->indentStyle() == IndentStyle::LeadingSpace);
}

}  // namespace

void noteOpIndent(ParseState& st, std::string_view gapBeforeOp) {
  bool leadingSpace = st.program->indentStyle() == IndentStyle::LeadingSpace;
  PendingOp& op = st.op();
  size_t lead = 0;  // what bareGroupBody writes before printOp
  if (st.opDepth == 0) {
    op.width = st.fragment ? st.program->fragmentIndent() : kIndentStep;
  } else {
    const PendingOp& owner = st.ops[st.opDepth - 1];
    bool bare = bareGroup(st, owner);
    op.width = bare ? owner.width : owner.width + kIndentStep;
    if (bare && !leadingSpace) lead = 2;
  }
  size_t printed = leadingSpace ? 1 : op.width;
  std::optional<size_t> read = lineIndent(gapBeforeOp);
  if (read && *read >= lead) op.spelling.indentShift = shiftOf(*read - lead, printed);
  // A tab is no number of columns: the indentation is kept as it is
  // (PFCCLab/Camp's weekly report: three blanks and a tab in a Markdown list).
  if (read && lead == 0 && gapBeforeOp.substr(gapBeforeOp.size() - *read).find('\t') != std::string_view::npos)
    op.tabIndentation = gapBeforeOp.substr(gapBeforeOp.size() - *read);
}

void noteCloseIndent(ParseState& st, std::string_view gapBeforeBrace) {
  bool leadingSpace = st.program->indentStyle() == IndentStyle::LeadingSpace;
  size_t printed = 0;  // the program's own `}`
  if (st.opDepth > 0) {
    const PendingOp& owner = st.ops[st.opDepth - 1];
    bool generic = owner.syntax == RegionSyntax::None;  // indentBrace, else indentOp
    printed = bareGroup(st, owner) ? 1 : leadingSpace ? (generic ? 0 : 1) : owner.width;
  }
  st.blocks.back()->setCloseShift(shiftOf(lineIndent(gapBeforeBrace), printed));
}

}  // namespace reshardctl::parsing
