// What the parser's actions (parser.cpp) call while they read a dump: the
// state of one parse, names and their bindings, and turning what was read of
// an op line into an Operation. Internal to the syntax stage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/dist_attr_text.h"
#include "syntax/generation_detection.h"
#include "syntax/text_frame.h"
#include "syntax/type_text.h"

namespace reshardctl::parsing {

constexpr size_t kMaxNesting = 200;          // brackets and blocks; deeper input is rejected
// Bytes of input between page releases: at most this much of the input (and
// the kernel's read-ahead) is resident while parsing. 2 MiB held the varied
// 100k-op program's `apply` at 56.8 MB peak against 62.8 MB with 8 MiB (1 MiB:
// 56.4 MB), for a dozen more madvise calls per 100k ops.
constexpr size_t kReleaseEvery = 2u << 20;

// Ends the parse once the engine has reported as many errors as allowed.
struct ErrorLimitReached {};

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

// A result's name as the op line wrote it, with its number (numberOf) read
// once: both the numbering check and the definition ask for it.
struct ResultName {
  std::string_view name;
  Span where;
  std::optional<uint32_t> number;
};

// Everything read so far of one op line. Region ops nest, so these form a
// stack; the vectors keep their capacity from op to op.
struct PendingOp {
  size_t location = 0;
  std::vector<ResultName> resultNames;
  std::string_view name;
  HeaderSpelling spelling;
  Span nameSpan;
  std::vector<OperandRef> operands;
  DictionaryRead attributes;  // attribute_dictionary.h
  std::vector<TypeRef> operandTypes;
  std::vector<TypeRef> resultTypes;
  Span operandTypesOpen, resultTypesStart;
  bool hasSignature = false;
  RegionSyntax syntax = RegionSyntax::None;
  std::optional<uint32_t> debugId;
  std::string blankLines;  // whole lines of blanks before the op line (rare)
  std::string_view tabIndentation;  // the op line's indentation, when it holds a tab (rarer)
  size_t width = 0;        // the printer's indentation for this op (printer.cpp's `width`)
  Operation* created = nullptr;

  void reset(size_t at) {
    location = at;
    resultNames.clear();
    operands.clear();
    attributes.reset();
    operandTypes.clear();
    resultTypes.clear();
    name = {};
    spelling = {};
    blankLines.clear();
    tabIndentation = {};
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

// A chunk's operand whose name no op of the chunk defines: an op of an
// earlier chunk's, resolved and linked when the chunks are stitched
// (syntax/chunk_stitch.h), or an error the serial parse reports.
struct CrossChunkUse {
  Operation* op;
  uint32_t operand;
  uint32_t unresolved;  // index in ParseState::unresolved: the name and where
  const Type* declared;  // the signature's type for it (this chunk's table)
  bool typeChecked;      // the serial parse compares the value's type with `declared`
};

// What parsing one chunk of a program's top-level ops on its own
// (syntax/parallel_parse.h) keeps beside the usual state: the numbering it
// met, which the stitch checks continues the chunk before, and the uses it
// left to the stitch.
struct ChunkState {
  std::optional<uint32_t> firstResultNumber;  // the first %N an op of the chunk defines
  std::optional<uint32_t> firstArgNumber;     // the first %arg_N
  std::vector<CrossChunkUse> crossUses;       // in the order the serial parse links them
  size_t unresolvedTaken = 0;                 // unresolved names paired with an operand
  // Something the serial parse may read differently (a keyword argument
  // named by digits): the stitch gives up.
  bool unsure = false;
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

  std::vector<Binding> numbered;  // %N, numbered[0] being %numberBase
  uint32_t numberBase = 0;        // 0 but in a chunk (its first result's number)
  std::unordered_map<std::string_view, Binding> named;  // %x, %arg_0, %kwarg_a
  std::vector<UnresolvedUse> unresolved;

  AttributeMemo attributeMemo;
  // A result's type with the mesh its ids come from, keyed by the mesh's
  // contents (every field alike), not its address: each op's op_dist_attr is
  // its own copy, so keyed by address a program of stages that differ made
  // one resolved dist per result (an allocation and ~200 bytes per op).
  struct ResolvedKey {
    const Type* type;
    const ProcessMesh* mesh;
    bool operator==(const ResolvedKey& other) const {
      return type == other.type && mesh->shape == other.mesh->shape &&
             mesh->processIds == other.mesh->processIds && mesh->idsKnown == other.mesh->idsKnown &&
             mesh->dimNames == other.mesh->dimNames;
    }
  };
  struct ResolvedHash {
    size_t operator()(const ResolvedKey& k) const {
      size_t hash = std::hash<const void*>()(k.type);
      for (int64_t id : k.mesh->processIds) hash = hash * 31 + static_cast<size_t>(id);
      return hash * 31 + k.mesh->shape.size();
    }
  };
  std::unordered_map<ResolvedKey, const TensorDistAttr*, ResolvedHash> resolvedCache;

  uint32_t nextResultNumber = 0;
  uint32_t nextArgNumber = 0;
  bool denselyNumbered = true;
  bool keywordArgs = false;
  size_t releasedUpTo = 0;
  size_t chunkDroppedTo = 0;  // a chunk's pages before this are dropped (SourceFile::dropPages)

  // Generation detection (generation_detection.h).
  DistTextStyle opDistStyle;  // gathered from each distinct op_dist_attr text
  TypeTextEvidence typeEvidence;  // gathered from each distinct type text
  bool sawOpDistAttr = false;
  bool sawAttrPrefix = false;  // `(Int32)1`, `(pd_op.DataType)float32`: before generation E

  // Layout as read (grammar line_gap): the whitespace before the current
  // token, and whether the first top-level op told the indent style yet.
  std::string_view gap;
  bool sawTopLevelOp = false;
  Value* lastValue = nullptr;  // the value last named (block argument or operand)
  const UnframedText* unframed = nullptr;  // set when the slice had a frame
  bool fragment = false;          // reading op lines without braces (--fragment)
  const char* textStart = nullptr;  // the first byte parsed
  uint32_t nextKeptNumber = 0;    // a fragment keeps its %N: past the largest read
  ChunkState* chunk = nullptr;    // set when parsing one chunk (syntax/parallel_parse.h)

  ParseState(SourceFile& s, DiagnosticEngine& d, bool recogniseAttributes)
      : source(s), diagnostics(d), attributeMemo(recogniseAttributes) {}

  // The source offset of `p`, a pointer into the text being parsed: the
  // source itself, or a copy of the slice without its frame (text_frame.h).
  size_t at(const char* p) const {
    if (unframed) return unframed->sourceOffset(static_cast<size_t>(p - unframed->text().data()));
    return static_cast<size_t>(p - source.text().data());
  }
  PendingOp& op() { return ops[opDepth]; }

  void error(Span where, std::string message) {
    diagnostics.error(where.offset, where.length, std::move(message));
    if (diagnostics.limitReached()) throw ErrorLimitReached{};  // the engine said so (--max-errors)
  }
};


template <typename Input>
Span spanOf(const ParseState& st, const Input& in) {
  return Span{st.at(in.begin()), in.size()};
}

// ---- names ---------------------------------------------------------------------
// "%17" → 17; anything else ("%x", "%017") → nullopt.
std::optional<uint32_t> numberOf(std::string_view name);
Binding* findBinding(ParseState& st, std::string_view name);
Binding* findBinding(ParseState& st, std::string_view name, std::optional<uint32_t> number);  // number: numberOf(name)
// Binds `name` to `value`, reporting a redefinition.
void define(ParseState& st, std::string_view name, Span where, Value* value);
void define(ParseState& st, std::string_view name, std::optional<uint32_t> number, Span where, Value* value);
// The value `name` is bound to; an unknown name is kept for reportUnresolved.
Value* use(ParseState& st, std::string_view name, Span where, bool* resolved);
// Names used before any definition: "used before its definition" or undefined.
void reportUnresolved(ParseState& st);
// A dump not numbered as Paddle numbers (gaps, an edited dump): every value
// keeps the name it was read with, as a printer alias does, and the printer's
// counter starts past the largest number read (for the values a pass makes).
void keepNamesAsRead(ParseState& st);

// What the text read so far showed of its print generation (generation_detection.h).
GenerationEvidence generationEvidence(const ParseState& st);

// ---- building ops --------------------------------------------------------------
// Creates the op in the current block (once: region ops are created when their
// first block opens, so the ops inside can be placed in it).
Operation* createPendingOp(ParseState& st);
void defineResults(ParseState& st, PendingOp& op);
void enterNesting(ParseState& st, const char* at);

// ---- layout --------------------------------------------------------------------
// The whole lines of `gap` (whitespace between two tokens, and in a fragment
// elision lines), each with its newline; "" for almost every gap.
// `atTextStart`: the gap begins the text, so its first line is whole.
// `afterGenericRegionOp`: a first line that is empty is the printer's own
// (followsGenericRegionOp), not kept.
std::string wholeBlankLines(std::string_view gap, bool atTextStart = false, bool afterGenericRegionOp = false);
// Whether the last op of the innermost open block is one PrintGeneralOperation
// prints with its regions (an empty line follows it).
bool followsGenericRegionOp(const ParseState& st);
// Called at the first op of the top-level block: a single space before it is
// the 2023 layout (IndentStyle::LeadingSpace).
void noteTopLevelIndent(ParseState& st, std::string_view gapBeforeOp);
// Sets the op being read its printer width and, where its line's indentation
// (the end of `gapBeforeOp`) differs from what the printer writes, the shift.
void noteOpIndent(ParseState& st, std::string_view gapBeforeOp);
// The closing brace's shift of the innermost open block (the printer's column
// against the end of `gapBeforeBrace`).
void noteCloseIndent(ParseState& st, std::string_view gapBeforeBrace);

}  // namespace reshardctl::parsing
