#include "syntax/parser.h"

#include <charconv>
#include <string>

#include <fmt/format.h>
#include <tao/pegtl.hpp>

#include "grammar/pir_grammar.h"
#include "support/text.h"
#include "syntax/generation_detection.h"
#include "syntax/graph_builder.h"
#include "syntax/parallel/parallel_parse.h"
#include "syntax/parallel/parse_chunk.h"
#include "syntax/parse_errors.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace pegtl = tao::pegtl;
namespace g = grammar;

namespace {

using namespace parsing;

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
struct action<g::line_gap> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.gap = in.string_view();
  }
};

// Whether `at` ends a line (or the text).
template <typename Input>
bool atLineEnd(const char* at, const Input& in) {
  return at == in.input().end() || *at == '\n' || *at == '\r';
}

// The whitespace the last line_gap matched, if it ends right at `at`.
std::string_view gapBefore(const ParseState& st, const char* at) {
  return st.gap.data() + st.gap.size() == at ? st.gap : std::string_view();
}

template <>
struct action<g::op_begin> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    if (st.ops.size() <= st.opDepth) st.ops.resize(st.opDepth + 1);
    st.op().reset(st.at(in.begin()));
    std::string_view gap = gapBefore(st, in.begin());
    bool first = st.blocks.size() == 1 && !st.sawTopLevelOp;
    if (first) noteTopLevelIndent(st, gap);
    noteOpIndent(st, gap);
    st.op().blankLines =
        wholeBlankLines(gap, first && st.fragment && gap.data() == st.textStart, followsGenericRegionOp(st));
  }
};

template <>
struct action<g::result_def> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view name = in.string_view();
    st.op().resultNames.push_back({name, spanOf(st, in), numberOf(name)});
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
struct action<g::unquoted_op_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().name = in.string_view();
    st.op().spelling.unquotedName = true;
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
struct action<g::operand_value> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view text = in.string_view();
    st.lastValue = nullptr;
    if (text.front() != '%') {
      st.op().operands.push_back(OperandRef{nullptr, spanOf(st, in), true});
      return;
    }
    bool resolved = false;
    Value* value = use(st, text, spanOf(st, in), &resolved);
    st.op().operands.push_back(OperandRef{value, spanOf(st, in), resolved});
    st.lastValue = value;
  }
};

// ` {attrs}` after a value: Paddle prints it after block arguments only.
template <>
struct action<g::value_attrs> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    Value* value = st.lastValue;
    if (!value || value->definingOp) {
      st.error(spanOf(st, in), "only block arguments print attributes after their name");
      return;
    }
    if (value->ownerBlock->argumentAttributes(value->index).empty())
      st.program->setArgumentAttributes(value, st.program->strings().intern(in.string_view()));
  }
};

template <>
struct action<g::attr_key> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().attributes.key = in.string_view();
  }
};

// What follows in the input, from where the rule is about to match.
template <typename Input>
std::string_view restOf(const Input& in) {
  return std::string_view(in.current(), static_cast<size_t>(in.end() - in.current()));
}

// Text the attribute memo recognised (`length` bytes, 0: none) is taken whole,
// without running `Rule` and its actions; anything else is matched by the rule.
template <typename Rule, pegtl::apply_mode A, pegtl::rewind_mode M, template <typename...> class Action,
          template <typename...> class Control, typename Input>
bool matchUnlessRecalled(size_t length, Input& in, ParseState& st) {
  if (!length) return pegtl::match<Rule, A, M, Action, Control>(in, st);
  in.bump_in_this_line(length);
  return true;
}

template <>
struct action<g::attr_value> {
  // An op_dist_attr value lately read on an op of the same name (attribute_dictionary.h).
  template <typename Rule, pegtl::apply_mode A, pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename Input>
  static bool match(Input& in, ParseState& st) {
    PendingOp& op = st.op();
    bool mayRecall = A == pegtl::apply_mode::action && op.attributes.key == "op_dist_attr";
    size_t recalled = mayRecall ? st.attributeMemo.recallDist(op.name, restOf(in), op.attributes) : 0;
    return matchUnlessRecalled<Rule, A, M, Action, Control>(recalled, in, st);
  }

  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view text = in.string_view();
    if (!st.sawAttrPrefix && startsWithAttrKindPrefix(text)) st.sawAttrPrefix = true;
    if (st.op().attributes.key == "op_dist_attr") st.op().attributes.distText = text;
  }
};

template <>
struct action<g::attr_entry> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    DictionaryRead& read = st.op().attributes;
    read.entries.emplace_back(read.key, in.string_view());
  }
};

template <>
struct action<g::attr_dict> {
  // A dictionary lately read on an op of the same name (attribute_dictionary.h): no
  // entry is scanned, split or interned again; what its entries would have
  // told (the op_dist_attr value) comes with it.
  template <typename Rule, pegtl::apply_mode A, pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename Input>
  static bool match(Input& in, ParseState& st) {
    PendingOp& op = st.op();
    size_t recalled =
        A == pegtl::apply_mode::action ? st.attributeMemo.recallDictionary(op.name, restOf(in), op.attributes) : 0;
    return matchUnlessRecalled<Rule, A, M, Action, Control>(recalled, in, st);
  }

  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().attributes.text = in.string_view();
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
    // PrintOpReturnType with no results leaves `-> ` at the line's end; text
    // pasted through an editor often lost that blank: kept as read.
    st.op().spelling.arrowBlankTaken = atLineEnd(in.end(), in);
  }
};

template <>
struct action<g::while_operands> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    PendingOp& op = st.op();
    // Until May 2024 the while header had no space before "(cond=".
    op.spelling.parenAttached = st.at(in.begin()) == op.nameSpan.offset + op.nameSpan.length;
    op.syntax = RegionSyntax::While;
  }
};

template <>
struct action<g::arrow> {  // only region ops' headers use a bare arrow (arrow_tail)
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.op().syntax = st.op().attributes.text.empty() ? RegionSyntax::Group : RegionSyntax::If;
    st.op().resultTypesStart = spanOf(st, in);
  }
};

// The printer writes " -> ", the types, then " {" or "{": with no result
// types the arrow's own space comes first (` ->  {` is spaced, `-> {` not).
template <>
struct action<g::brace_gap> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    PendingOp& op = st.op();
    op.spelling.braceOnOwnLine = in.string_view().find('\n') != std::string_view::npos;
    if (!op.resultTypes.empty()) {
      op.spelling.braceAttached = in.empty();
      return;
    }
    size_t afterArrow = op.resultTypesStart.offset + op.resultTypesStart.length;  // the arrow's span
    op.spelling.braceAttached = st.at(in.end()) - afterArrow < 2;
  }
};

template <>
struct action<g::block_open> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    enterNesting(st, in.begin());
    // WhileOp::Print ends its header in `{ `; an editor often took the blank.
    if (st.op().syntax == RegionSyntax::While) st.op().spelling.whileBlankTaken = atLineEnd(in.end(), in);
    Operation* op = createPendingOp(st);
    st.blocks.push_back(st.program->appendRegion(op));
    st.blockNames.emplace_back();
    ++st.opDepth;
  }
};

// Lines of blanks right before a block's closing brace.
template <typename Input>
void keepBlankLinesAtEnd(const Input& in, ParseState& st) {
  std::string lines = wholeBlankLines(gapBefore(st, in.begin()), false, followsGenericRegionOp(st));
  if (!lines.empty()) st.program->setBlankLinesAtEnd(st.blocks.back(), lines);
}

template <>
struct action<g::block_close> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    keepBlankLinesAtEnd(in, st);
    noteCloseIndent(st, gapBefore(st, in.begin()));
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

// "%arg_12" → 12; anything else → 0 (then not numbered as Paddle numbers).
uint32_t argumentNumberOf(std::string_view name) {
  constexpr std::string_view kPrefix = "%arg_";
  if (!name.starts_with(kPrefix)) return 0;
  return numberOf("%" + std::string(name.substr(kPrefix.size()))).value_or(0);
}

// In a chunk: the counter starts at the first argument's number (the stitch
// checks it continues the chunk before); a keyword argument named by digits
// (numbered like results) leaves it to the serial parse.
void noteChunkArgument(ParseState& st, std::string_view name) {
  if (st.keywordArgs && numberOf(name)) st.chunk->unsure = true;
  if (!st.keywordArgs && !st.chunk->firstArgNumber)
    st.nextArgNumber = *(st.chunk->firstArgNumber = argumentNumberOf(name));
}

template <>
struct action<g::block_arg> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    std::string_view name = in.string_view();
    if (st.chunk) noteChunkArgument(st, name);
    std::string_view keyword = st.keywordArgs ? st.program->strings().intern(name.substr(1)) : "";
    if (!st.keywordArgs && name != fmt::format("%arg_{}", st.nextArgNumber)) st.denselyNumbered = false;
    if (!st.keywordArgs) ++st.nextArgNumber;
    Value* arg = st.program->addBlockArgument(st.blocks.back(), keyword);
    define(st, name, spanOf(st, in), arg);
    st.lastValue = arg;
  }
};

template <>
struct action<g::block_args> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.keywordArgs = false;
    if (in.string_view().find('\n') != std::string_view::npos) st.blocks.back()->setArgumentsOnOwnLines(true);
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
      // A chunk drops only its own pages (other threads read the others),
      // which the kernel reads back if the serial parse reads them again.
      if (st.chunk) st.chunkDroppedTo = st.source.dropPages(st.chunkDroppedTo, op.location);
      else st.source.releaseBefore(op.location);
      st.releasedUpTo = end;
    }
  }
};

template <>
struct action<g::module_header> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.program->setModuleHeader(in.string_view());
  }
};

template <>
struct action<g::program_close> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    keepBlankLinesAtEnd(in, st);
    noteCloseIndent(st, gapBefore(st, in.begin()));
  }
};

// Elision lines are read in fragments only.
template <>
struct action<g::fragment_only> {
  template <typename Rule, pegtl::apply_mode A, pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename Input>
  static bool match(Input& /*in*/, ParseState& st) {
    return st.fragment;
  }
};

template <>
struct action<g::fragment_start> {
  template <typename Input>
  static void apply(const Input& /*in*/, ParseState& st) {
    st.blocks.push_back(st.program->body());
    st.blockNames.emplace_back();
  }
};

// The fragment's last lines (elisions) after its last op.
template <>
struct action<g::fragment_end> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    keepBlankLinesAtEnd(in, st);
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

// Op lines without the program's braces: the first line is an op line or an
// elision, not `{` nor the module op's line.
bool looksLikeFragment(std::string_view slice) {
  std::string_view text = trimStart(slice);
  return text.starts_with("...") || (text.starts_with("(") && !text.starts_with("() = \"builtin.module\""));
}

// Text cut off in the middle of an op line (a log truncated, a paste cut
// short): its last line is an op line without its newline.
bool endsInsideOpLine(std::string_view slice) {
  if (slice.empty() || slice.back() == '\n') return false;
  size_t lineStart = slice.rfind('\n');
  std::string_view last = trimStart(slice.substr(lineStart == std::string_view::npos ? 0 : lineStart + 1));
  return !last.empty() && last.front() == '(';
}

// `slice` is what was parsed; PEGTL counts positions from its start.
void reportSyntaxError(ParseState& st, const pegtl::parse_error& e, std::string_view slice) {
  size_t at = e.positions().empty() ? 0 : e.positions().front().byte;
  std::string message(e.message());
  if (slice.find_first_not_of(" \t\r\n") == std::string_view::npos)
    message = "empty input: expected a program starting with '{'";
  else if (!st.fragment && looksLikeFragment(slice) && message.starts_with(error_message<g::program_block>))
    message = "the text is op lines without a program's braces (a fragment): read it with --fragment";
  else if (slice.find_first_not_of(" \t\r\n", at) == std::string_view::npos && endsInsideOpLine(slice)) {
    message = "the text ends inside an op line (truncated?)";
    at = slice.size() - 1;  // its last byte: where it was cut
  }
  st.diagnostics.error(st.at(slice.data() + at), 1, std::move(message)).code = "syntax-error";
}

// No newline after the closing brace: the text ends on its line (a dump
// saved or pasted without one), and it prints back so.
bool endsWithoutNewline(std::string_view text) {
  size_t brace = text.rfind('}');
  return brace != std::string_view::npos && text.find('\n', brace) == std::string_view::npos;
}

// Reads the chunk with the rule of its kind; false when it does not match.
template <typename Input>
bool parseChunkText(Input& in, ParseState& st, ChunkKind kind) {
  if (kind == ChunkKind::First) return pegtl::parse<g::first_chunk, action>(in, st);
  st.blocks.push_back(st.program->body());  // what program_open does
  st.blockNames.emplace_back();
  st.sawTopLevelOp = true;
  if (kind == ChunkKind::Middle) return pegtl::parse<g::middle_chunk, action>(in, st);
  return pegtl::parse<g::last_chunk, action>(in, st);
}

}  // namespace

std::unique_ptr<ParsedChunk> parsing::parseChunk(SourceFile& source, const ChunkSpec& spec) {
  auto parsed = std::make_unique<ParsedChunk>();
  parsed->diagnostics.setSource(&source);
  parsed->state = std::make_unique<ParseState>(source, parsed->diagnostics, spec.recogniseRepeatedAttributes);
  ParseState& st = *parsed->state;
  st.chunk = &parsed->chunk;
  st.numberBase = spec.numberHint;
  st.releasedUpTo = st.chunkDroppedTo = spec.begin;
  if (spec.kind != ChunkKind::First) st.program->setIndentStyle(spec.indent);
  std::string_view text = source.text().substr(spec.begin, spec.end - spec.begin);
  st.textStart = text.data();
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(), source.name());
  try {
    parsed->failed = !parseChunkText(in, st, spec.kind);
  } catch (const pegtl::parse_error&) {
    parsed->failed = true;
  } catch (const InputError&) {
    parsed->failed = true;
  } catch (const ErrorLimitReached&) {
    parsed->failed = true;
  }
  parsed->failed = parsed->failed || parsed->diagnostics.errorCount() || parsed->diagnostics.warningCount() ||
                   !parsed->diagnostics.diagnostics().empty() || parsed->chunk.unsure || !st.denselyNumbered;
  return parsed;
}

ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics) {
  return parseProgram(source, diagnostics, 0, source.text().size());
}

ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics, size_t begin, size_t end) {
  return parseProgram(source, diagnostics, begin, end, ParseOptions{});
}

ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics, size_t begin, size_t end,
                         const ParseOptions& options) {
  std::optional<UnframedText> unframed = UnframedText::of(source.text(), begin, end);
  std::string_view text = unframed ? unframed->text() : source.text().substr(begin, end - begin);
  if (!unframed) {
    if (std::optional<ParseResult> parallel = parseInParallel(source, begin, end, options)) {
      if (endsWithoutNewline(text)) parallel->program->setEndsWithoutNewline();
      return std::move(*parallel);
    }
  }
  ParseState st(source, diagnostics, options.recogniseRepeatedAttributes);
  if (unframed) st.unframed = &*unframed;
  st.textStart = text.data();
  st.fragment = options.fragment && looksLikeFragment(text);
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(), source.name());
  size_t errorsBefore = diagnostics.errorCount();
  try {
    if (st.fragment) pegtl::parse<g::fragment, action, error_control>(in, st);
    else pegtl::parse<g::program, action, error_control>(in, st);
    if (st.fragment) st.program->setFirstResultNumber(st.nextKeptNumber);
    else if (!st.denselyNumbered) keepNamesAsRead(st);
    if (!st.fragment && endsWithoutNewline(text)) st.program->setEndsWithoutNewline();
    reportUnresolved(st);
    st.program->setDistStyle(detectGeneration(generationEvidence(st)));
    if (unframed) st.program->setLineFrame(unframed->frame().prefixes, unframed->frame().crlf);
  } catch (const pegtl::parse_error& e) {
    reportSyntaxError(st, e, text);
  } catch (const InputError& e) {
    diagnostics.error(e.offset, e.length, e.message);
  } catch (const ErrorLimitReached&) {
  }
  ParseResult result;
  result.denselyNumbered = st.denselyNumbered;
  if (diagnostics.errorCount() == errorsBefore) result.program = std::move(st.program);
  return result;
}

}  // namespace reshardctl
