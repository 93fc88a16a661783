#include "syntax/printer.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "ir/parallel/op_ranges.h"
#include "support/ordered_chunks.h"
#include "support/parallel_jobs.h"
#include "syntax/text_frame.h"

namespace reshardctl {

namespace {

using namespace std::string_view_literals;  // appends without strlen

constexpr uint32_t kUnnumbered = std::numeric_limits<uint32_t>::max();
constexpr std::string_view kNullValue = "<<NULL VALUE>>";
constexpr std::string_view kNullType = "<<NULL TYPE>>";

// The counters Paddle's IrPrinter keeps: op results and block arguments are
// numbered apart, each the first time it is printed.
class Numbering {
 public:
  explicit Numbering(const Program& program)
      : numbers_(program.valueCount(), kUnnumbered), nextResult_(program.firstResultNumber()) {}

  uint32_t numberOf(const Value* value) {
    uint32_t& number = numbers_[value->id];
    if (number == kUnnumbered) number = value->definingOp ? nextResult_++ : nextArgument_++;
    return number;
  }
  // True the first time it is asked about `value`: PrintValue's alias miss,
  // after which a block argument's attributes are printed.
  bool firstPrint(const Value* value) {
    if (printed_.empty()) printed_.resize(numbers_.size(), false);
    if (printed_[value->id]) return false;
    printed_[value->id] = true;
    return true;
  }
  std::vector<uint32_t> take() { return std::move(numbers_); }

 private:
  std::vector<uint32_t> numbers_;
  std::vector<bool> printed_;  // by value id; empty until asked
  uint32_t nextResult_;
  uint32_t nextArgument_ = 0;
};

// What a print in pieces knows of each value before any piece is printed,
// found on the run's threads by two walks of the printer itself over the
// pieces (so the numbers are a serial print's, whatever the graph): the
// piece that prints a value first (the least piece that prints it), then
// in each piece the values first printed there, numbered from 0 in the
// order it prints them. A piece's first numbers are the counts of the
// pieces before it (prefix sums), so a value's number is its first piece's
// base plus its number there. Memory: two numbers a value, two a piece.
class PieceNumbers {
 public:
  PieceNumbers(const Program& program, size_t pieces)
      : firstPiece_(program.valueCount(), kUnnumbered), local_(program.valueCount(), kUnnumbered),
        counts_(pieces), firstResult_(program.firstResultNumber()) {}

  // The first walk, on every piece at once: `piece` prints `value`.
  void printedIn(const Value* value, uint32_t piece) {
    std::atomic_ref<uint32_t> first(firstPiece_[value->id]);
    uint32_t seen = first.load(std::memory_order_relaxed);
    while (piece < seen && !first.compare_exchange_weak(seen, piece, std::memory_order_relaxed)) {
    }
  }
  // How many results and arguments a piece numbers.
  struct Counts {
    uint32_t results = 0, arguments = 0;
    Counts operator+(const Counts& other) const { return {results + other.results, arguments + other.arguments}; }
  };
  // The second walk: only `piece` writes the numbers of the values it
  // printed first, so the pieces number at once. Each counts in `counts`,
  // its own (neighbouring pieces' counts share cache lines), then tells
  // them (countsOf).
  void numberIn(const Value* value, uint32_t piece, Counts& counts) {
    uint32_t& local = local_[value->id];
    if (firstPiece_[value->id] != piece || local != kUnnumbered) return;
    local = value->definingOp ? counts.results++ : counts.arguments++;
  }
  void countsOf(uint32_t piece, const Counts& counts) { counts_[piece] = counts; }
  // Once both walks are done: each piece's counts become its bases.
  void sumCounts() {
    Counts base{firstResult_, 0};
    for (Counts& counts : counts_) {
      const Counts count = counts;
      counts = base;
      base = base + count;
    }
  }

  uint32_t firstPiece(const Value* value) const { return firstPiece_[value->id]; }
  uint32_t numberOf(const Value* value) const {
    const Counts& base = counts_[firstPiece_[value->id]];
    return (value->definingOp ? base.results : base.arguments) + local_[value->id];
  }

 private:
  std::vector<uint32_t> firstPiece_, local_;  // by value id
  std::vector<Counts> counts_;                // by piece: counts, then bases
  uint32_t firstResult_;
};

// The printer's numbering in the walks of PieceNumbers, which make no text
// (NullText). The first walk notes every value the printer numbers or asks
// about (a block argument is asked about at each print, named or not); the
// second numbers only what the printer numbers (a named argument takes no
// number).
enum class PieceWalk { FirstPieces, LocalNumbers };

template <PieceWalk kWalk>
class PieceWalker {
 public:
  PieceWalker(PieceNumbers& numbers, uint32_t piece) : numbers_(numbers), piece_(piece) {}
  ~PieceWalker() {
    if constexpr (kWalk == PieceWalk::LocalNumbers) numbers_.countsOf(piece_, counts_);
  }
  PieceWalker(const PieceWalker&) = delete;
  PieceWalker& operator=(const PieceWalker&) = delete;

  uint32_t numberOf(const Value* value) {
    if constexpr (kWalk == PieceWalk::FirstPieces) numbers_.printedIn(value, piece_);
    else numbers_.numberIn(value, piece_, counts_);
    return 0;
  }
  bool firstPrint(const Value* value) {
    if constexpr (kWalk == PieceWalk::FirstPieces) numbers_.printedIn(value, piece_);
    return false;
  }

 private:
  PieceNumbers& numbers_;
  uint32_t piece_;
  PieceNumbers::Counts counts_;  // the second walk's, told when the walk of its piece ends
};

// The numbers of one piece of a print in pieces, read from PieceNumbers (so
// pieces print at once); a block argument's first print is where the walks
// met it first, i.e. if in this piece, at its first print here.
class PieceNumbering {
 public:
  PieceNumbering(const PieceNumbers& numbers, uint32_t piece) : numbers_(numbers), piece_(piece) {}

  uint32_t numberOf(const Value* value) const { return numbers_.numberOf(value); }
  bool firstPrint(const Value* value) {
    return numbers_.firstPiece(value) == piece_ && printedHere_.insert(value->id).second;
  }

 private:
  const PieceNumbers& numbers_;
  uint32_t piece_;
  std::unordered_set<uint32_t> printedHere_;
};

// What the walks of PieceNumbers print into: nothing.
struct NullText {
  NullText& operator+=(std::string_view) { return *this; }
  NullText& operator+=(char) { return *this; }
  void append(size_t, char) {}
  void append(const char*, const char*) {}
};

// `Out` is an OutputSink, or NullText for the walks of PieceNumbers;
// `Numbers` a Numbering, a PieceNumbering of a print in pieces, or a walk's.
// Flattening is for the serial print's speed; under AddressSanitizer it only
// makes this file take many minutes and gigabytes to compile.
#if defined(__SANITIZE_ADDRESS__)
#define RESHARDCTL_FLATTEN
#else
#define RESHARDCTL_FLATTEN [[gnu::flatten]]
#endif

template <typename Out, typename Numbers>
class Printer {
 public:
  Printer(const Program& program, Out& out, Numbers& numbering)
      : program_(program), numbering_(numbering), out_(out),
        leadingSpace_(program.indentStyle() == IndentStyle::LeadingSpace) {}

  // PrintProgram → PrintBlock: head, each top-level op, tail. Only the
  // serial print calls it, so flattening it makes the serial path's walk one
  // body with its helpers inlined, whatever GCC decides for the other two
  // instantiations (the numbering pass, the pieces).
  RESHARDCTL_FLATTEN void printProgram() {
    head();
    for (const Operation* op : *program_.body()) topLevelOp(*op);
    tail();
  }

  // A module line first when the dump printed the module op itself
  // (PrintGeneralOperation: the line, "\n", the block), then the block's
  // brace and arguments. A fragment (its ops and elision lines as read,
  // without braces) has none: its external inputs (the body's arguments)
  // print only where they are used.
  void head() {
    if (program_.isFragment()) return;
    if (!program_.moduleHeader().empty()) {
      out_ += program_.moduleHeader();
      out_ += '\n';
    }
    out_ += "{\n"sv;
    blockArgumentsLine(*program_.body(), kStep);
  }
  void topLevelOp(const Operation& op) {
    blankLinesBefore(op);
    printOp(op, program_.isFragment() ? program_.fragmentIndent() : kStep);
    out_ += '\n';
  }
  void tail() {
    blankLinesAtEnd(*program_.body());
    if (program_.isFragment()) return;
    out_.append(static_cast<size_t>(program_.body()->closeShift()), ' ');  // the parser keeps it >= 0 here
    out_ += '}';
    if (!program_.endsWithoutNewline()) out_ += '\n';
  }

 private:
  static constexpr size_t kStep = 4;

  // IrPrinter::indentation(): 4 spaces a level. The 2023 printer had none:
  // PrintOpResult began each op line with " (", and PrintBlock wrote its
  // braces at column 1.
  // `shift`: the columns a hand-edited dump put its line off from ours, kept
  // as read (the parser keeps it only where the sum is a column).
  void indentOp(size_t width, int shift = 0) { out_.append((leadingSpace_ ? 1 : width) + shift, ' '); }
  void indentBrace(size_t width, int shift = 0) { out_.append((leadingSpace_ ? 0 : width) + shift, ' '); }

  void blankLinesBefore(const Operation& op) {
    if (program_.hasBlankLines()) out_ += program_.blankLinesBefore(&op);
  }
  void blankLinesAtEnd(const Block& block) {
    if (program_.hasBlankLines()) out_ += program_.blankLinesAtEnd(&block);
  }

  // Inlined, as the hot small functions here are: with the printer also
  // instantiated for pieces and for the numbering pass, GCC otherwise calls
  // them (+25% of the printer's instructions).
  [[gnu::always_inline]] void number(uint32_t n) {
    if constexpr (std::is_same_v<Out, NullText>) return;  // a walk's numbers are not printed
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    (void)ec;
    out_.append(digits, end);
  }

  // PrintValue: a block argument's first print carries its attributes.
  [[gnu::always_inline]] void value(const Value* v) {
    if (!v) {
      out_ += kNullValue;
      return;
    }
    if (v->definingOp) {  // an alias is printed as is and takes no number
      out_ += '%';
      if (v->argName.empty()) number(numbering_.numberOf(v)); else out_ += v->argName;
      return;
    }
    bool first = numbering_.firstPrint(v);
    if (!v->argName.empty()) {
      out_ += '%';
      out_ += v->argName;
    } else {
      out_ += "%arg_"sv;
      number(numbering_.numberOf(v));
    }
    std::string_view attributes = v->ownerBlock->argumentAttributes(v->index);
    if (first && !attributes.empty()) {
      out_ += ' ';
      out_ += attributes;
    }
  }

  [[gnu::always_inline]] void type(const Type* t) { out_ += t ? t->text : kNullType; }

  // `"name"` and, in debug dumps, ` [id:N]` (PrintOpName, PrintOpId). Custom
  // printers of 2023 (GroupOp) and until May 2024 (IfOp) wrote name() bare.
  [[gnu::always_inline]] void opName(const Operation& op) {
    bool quoted = !op.headerSpelling().unquotedName;
    if (quoted) out_ += '"';
    out_ += op.name();
    if (quoted) out_ += '"';
    if (std::optional<uint32_t> id = op.debugId()) {
      out_ += " [id:"sv;
      number(*id);
      out_ += ']';
    }
  }

  [[gnu::always_inline]] void results(const Operation& op) {
    out_ += '(';
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) out_ += ", "sv;
      value(op.result(i));
    }
    out_ += ')';
  }

  [[gnu::always_inline]] void operands(const Operation& op, size_t first = 0) {
    for (size_t i = first; i < op.numOperands(); ++i) {
      if (i > first) out_ += ", "sv;
      value(op.operandValue(i));
    }
  }

  [[gnu::always_inline]] void resultTypes(const Operation& op) {
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) out_ += ", "sv;
      type(op.result(i)->type);
    }
  }

  void blockArguments(const Block& block) {
    for (size_t i = 0; i < block.arguments().size(); ++i) {
      if (i) out_ += ", "sv;
      value(block.arguments()[i]);
    }
  }

  // PrintOperationWithNoRegion: `(%r) = "name" (%a, %b) {attrs} : (Ta, Tb) -> Tr`
  RESHARDCTL_FLATTEN void genericLine(const Operation& op) {  // the line of most ops: all inlined
    results(op);
    out_ += " = "sv;
    opName(op);
    out_ += " ("sv;
    operands(op);
    out_ += ") "sv;
    out_ += op.attributes();
    out_ += " : ("sv;
    for (size_t i = 0; i < op.numOperands(); ++i) {
      if (i) out_ += ", "sv;
      const Value* v = op.operandValue(i);
      type(v ? v->type : nullptr);
    }
    out_ += op.headerSpelling().arrowBlankTaken && op.numResults() == 0 ? ") ->"sv : ") -> "sv;
    resultTypes(op);
  }

  // IfOp::Print and PyLayerOp::Print (paddle/fluid/pir/dialect/operator/ir/
  // control_flow_op.cc), GroupOp::Print and FusionOp::Print (paddle/cinn/hlir/
  // dialect/operator/ir/manual_op.cc, as at Paddle 02a5e4e0: `" {\n"`,
  // AddIndentation, the ops, `indentation() << "}"`): `(%r) = "name" (%c) {attrs} -> T {`,
  // where group ops print no attribute dict (and with no results ` ->  {`),
  // the blocks' ops one level in, `} else {` between blocks, then `}`.
  void arrowRegionOp(const Operation& op, size_t width) {
    results(op);
    out_ += " = "sv;
    opName(op);
    out_ += " ("sv;
    operands(op);
    out_ += ')';
    if (op.regionSyntax() == RegionSyntax::If) {
      out_ += ' ';
      out_ += op.attributes();
    }
    out_ += " -> "sv;
    resultTypes(op);
    openRegionBrace(op, width);
    if (op.regionSyntax() == RegionSyntax::Group && (leadingSpace_ || op.headerSpelling().unquotedName))
      return bareGroupBody(op, width);
    out_ += '\n';
    const auto& regions = op.regions();
    for (size_t r = 0; r < regions.size(); ++r) {
      if (r > 0) {
        indentOp(width, regions[r - 1]->closeShift());
        out_ += "} else {\n"sv;
      }
      printBlockContents(*regions[r], width + kStep);
      blankLinesAtEnd(*regions[r]);
    }
    indentOp(width, regions.back()->closeShift());
    out_ += '}';
  }

  // ` {` as the printers write it; `{` with no space before it (IfOp::Print
  // until May 2024), or alone on the next line at the op's column, as read.
  void openRegionBrace(const Operation& op, size_t width) {
    const HeaderSpelling spelling = op.headerSpelling();
    if (spelling.braceOnOwnLine) {
      out_ += '\n';
      indentOp(width, spelling.indentShift);
      out_ += '{';
    } else {
      out_ += spelling.braceAttached ? "{"sv : " {"sv;
    }
  }

  // The group printers that wrote name() bare (paddle/cinn/hlir/dialect/
  // operator/ir/manual_op.cc; docs/format.md): `os << " {"`, each op after a
  // newline, then `os << " \n }"` (the last op line gains a trailing space).
  // In 2023 the newline alone (PrintOpResult's " (" indents); FusionOp::Print
  // and GroupOp::Print of spring 2024 `os << "\n  "` before PrintOperation,
  // which writes the current indentation: two spaces past the group's own.
  // (2023 GroupOp::Print and spring-2024 PrintOperation checked against
  // source; the spring-2024 "\n  " only against dumps: docs/format.md.)
  // An editor that took the blank ending the last op's `-> ` took the
  // group's too: they end the same line.
  void bareGroupBody(const Operation& op, size_t width) {
    for (const Block* block : op.regions()) {
      bool blanksTaken = false;
      for (const Operation* inner : *block) {
        out_ += '\n';
        blankLinesBefore(*inner);
        if (leadingSpace_) {
          printOp(*inner, 0);
        } else {
          out_ += "  "sv;
          printOp(*inner, width);
        }
        blanksTaken = inner->headerSpelling().arrowBlankTaken && inner->numResults() == 0;
      }
      out_ += blanksTaken ? "\n"sv : " \n"sv;
      blankLinesAtEnd(*block);
      out_.append(1 + block->closeShift(), ' ');
      out_ += '}';
    }
  }

  // WhileOp::Print (control_flow_op.cc): `"pd_op.while" (cond=%c, inputs=%a,
  // %b) { ` (no space before "(" until May 2024), then `^%arg_0, ...` at the
  // while's own indent, the body one level in, `}`.
  void whileOp(const Operation& op, size_t width) {
    results(op);
    out_ += " = "sv;
    opName(op);
    out_ += op.headerSpelling().parenAttached ? "(cond="sv : " (cond="sv;
    value(op.numOperands() > 0 ? op.operandValue(0) : nullptr);
    out_ += ", inputs="sv;
    operands(op, 1);
    out_ += op.headerSpelling().whileBlankTaken ? ") {\n"sv : ") { \n"sv;
    const Block& body = *op.regions().front();
    indentOp(width);
    out_ += '^';
    blockArguments(body);
    out_ += '\n';
    printOps(body, width + kStep);
    blankLinesAtEnd(body);
    indentOp(width, body.closeShift());
    out_ += '}';
  }

  // PrintGeneralOperation with regions: the line, then each block through
  // PrintBlock (`{`, its ops, `}` and a newline); the enclosing block's
  // newline then leaves an empty line.
  void genericWithRegions(const Operation& op, size_t width) {
    genericLine(op);
    out_ += '\n';
    for (const Block* region : op.regions()) {
      indentBrace(width);
      out_ += "{\n"sv;
      printBlockContents(*region, width + kStep);
      blankLinesAtEnd(*region);
      indentBrace(width, region->closeShift());
      out_ += "}\n"sv;
    }
  }

  // PrintOperation, without the newline the enclosing block writes.
  void printOp(const Operation& op, size_t width) {
    if (program_.hasTabIndentation() && !program_.indentationOf(&op).empty())
      out_ += program_.indentationOf(&op);
    else
      indentOp(width, op.headerSpelling().indentShift);
    switch (op.regionSyntax()) {
      case RegionSyntax::If:
      case RegionSyntax::Group: arrowRegionOp(op, width); break;
      case RegionSyntax::While: whileOp(op, width); break;
      case RegionSyntax::None:
        if (op.regions().empty()) genericLine(op); else genericWithRegions(op, width);
        break;
    }
  }

  void printOps(const Block& block, size_t width) {
    for (const Operation* op : block) {
      blankLinesBefore(*op);
      printOp(*op, width);
      out_ += '\n';
    }
  }

  // PrintBlock's body: the arguments, then the ops. Keyword arguments print
  // as `^kw:%kwarg_a, %kwarg_b` (2024) or, since late 2024, `^kw:` alone and
  // each argument on its own line one level in.
  void printBlockContents(const Block& block, size_t width) {
    blockArgumentsLine(block, width);
    printOps(block, width);
  }
  void blockArgumentsLine(const Block& block, size_t width) {
    if (!block.arguments().empty()) {
      indentOp(width);
      out_ += block.argumentsAreKeywords() ? "^kw:"sv : "^"sv;
      if (block.argumentsOnOwnLines()) {
        for (const Value* arg : block.arguments()) {
          out_ += '\n';
          indentOp(width + kStep);
          value(arg);
        }
      } else {
        blockArguments(block);
      }
      out_ += '\n';
    }
  }

  const Program& program_;
  Numbers& numbering_;
  Out& out_;
  bool leadingSpace_;
};

std::optional<FrameWriter> framerFor(const Program& program, const PrinterOptions& options) {
  if (program.linePrefixes().empty() && !program.crlfLines()) return std::nullopt;
  return FrameWriter(TextFrame{program.linePrefixes(), program.crlfLines()}, options.firstLinePrefix);
}

void printSerially(const Program& program, OutputSink& out) {
  Numbering numbering(program);
  Printer(program, out, numbering).printProgram();
}

// The top-level ops in pieces of kPieceOps (more where that would leave a
// thread few), each printed by one thread into a buffer of its own.
// kPieceOps ops are ~200 KB of the bench's text; the pieces in flight
// (jobs + 2, support/ordered_chunks.h) then hold about 1 MB, less than the
// parse held at its peak, so printing adds nothing to the run's peak RSS.
constexpr size_t kPieceOps = 512;
constexpr size_t kPiecesPerJob = 4;

std::vector<OpRange> cutPieces(const Program& program, unsigned jobs) {
  const size_t ops = program.body()->size();
  return cutOps(*program.body(), std::max((ops + kPieceOps - 1) / kPieceOps, size_t{jobs} * kPiecesPerJob));
}

// Piece 0 is the head (the body's arguments), piece k + 1 the ops of `ranges[k]`.
template <PieceWalk kWalk>
void walkPieces(const Program& program, const std::vector<OpRange>& ranges, unsigned jobs, PieceNumbers& numbers) {
  using Walk = PieceWalker<kWalk>;
  NullText nothing;
  Walk head(numbers, 0);
  Printer(program, nothing, head).head();
  runOnThreads(ranges.size(), jobs, [&](size_t k) {
    NullText text;
    Walk walk(numbers, static_cast<uint32_t>(k + 1));
    Printer printer(program, text, walk);
    for (const Operation* op = ranges[k].first; op != ranges[k].end; op = op->next()) printer.topLevelOp(*op);
  });
}

// A print in pieces (`jobs` > 1): numbers first (PieceNumbers), then the
// top-level block's ops in pieces printed on `jobs` threads and written in
// order. The same bytes as a serial print: each piece's printer reads the
// numbers the walks found. Memory: two numbers a value, 24 bytes a piece,
// and jobs + 2 pieces of text in flight (a top-level op holding most of the
// program, a while, is in one piece).
void printInPieces(const Program& program, OutputSink& out, unsigned jobs) {
  const std::vector<OpRange> ranges = cutPieces(program, jobs);
  PieceNumbers numbers(program, ranges.size() + 1);
  walkPieces<PieceWalk::FirstPieces>(program, ranges, jobs, numbers);
  walkPieces<PieceWalk::LocalNumbers>(program, ranges, jobs, numbers);
  numbers.sumCounts();
  PieceNumbering headNumbers(numbers, 0);
  Printer(program, out, headNumbers).head();
  writePiecesInOrder(ranges.size(), jobs, out, [&](size_t k, OutputSink& text) {
    PieceNumbering pieceNumbers(numbers, static_cast<uint32_t>(k + 1));
    Printer printer(program, text, pieceNumbers);
    for (const Operation* op = ranges[k].first; op != ranges[k].end; op = op->next()) printer.topLevelOp(*op);
  });
  PieceNumbering tailNumbers(numbers, kUnnumbered);  // the tail prints no value
  Printer(program, out, tailNumbers).tail();
}

void printWithJobs(const Program& program, OutputSink& out, const PrinterOptions& options) {
  const unsigned jobs = options.jobs != 0 ? options.jobs : jobsFor(program.valueCount(), kParallelPrintValues);
  if (jobs > 1 && program.body()->front() != nullptr) printInPieces(program, out, jobs);
  else printSerially(program, out);
}

}  // namespace

bool printProgram(const Program& program, OutputSink& out, const PrinterOptions& options) {
  std::optional<FrameWriter> framer = framerFor(program, options);
  if (!framer) {
    printWithJobs(program, out, options);
    return out.flush();
  }
  // A program read with a frame: the printed text passes the frame writer a
  // buffer at a time (it keeps its place across buffers) on its way to `out`.
  std::string framed;
  {
    OutputSink text([&](std::string_view piece) {
      framed.clear();
      framer->write(piece, framed);
      out.write(framed);
    });
    printWithJobs(program, text, options);
  }  // the destructor hands on the last buffer
  return out.flush();
}

std::string printProgramToString(const Program& program, const PrinterOptions& options) {
  OutputSink text;
  printProgram(program, text, options);
  return text.take();
}

ValueNames::ValueNames(const Program& program) {
  // Same order as the printer: an op's results, then its regions' arguments
  // and ops (a while's arguments follow its operands, which are only uses).
  Numbering numbering(program);
  auto numberBlock = [&](const Block& block, auto&& self) -> void {
    for (const Value* arg : block.arguments())
      if (arg->argName.empty()) numbering.numberOf(arg);  // kwargs keep their names
    for (const Operation* op : block) {
      for (size_t i = 0; i < op->numResults(); ++i)
        if (op->result(i)->argName.empty()) numbering.numberOf(op->result(i));  // aliases keep their names
      for (const Block* region : op->regions()) self(*region, self);
    }
  };
  numberBlock(*program.body(), numberBlock);
  numbers_ = numbering.take();
}

std::string ValueNames::name(const Value* value) const {
  if (!value) return std::string(kNullValue);
  if (!value->argName.empty()) return fmt::format("%{}", value->argName);
  return fmt::format("{}{}", value->definingOp ? "%" : "%arg_", numbers_[value->id]);
}

}  // namespace reshardctl
