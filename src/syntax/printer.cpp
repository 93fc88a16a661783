#include "syntax/printer.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include <fmt/format.h>

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
  std::vector<bool> printed_;
  uint32_t nextResult_;
  uint32_t nextArgument_ = 0;
};

// Graph → Paddle's dump text. Each function names the Paddle printer it follows
// (paddle/pir/src/core/ir_printer.cc unless said otherwise).
class Printer {
 public:
  Printer(const Program& program, OutputSink& out)
      : program_(program), numbering_(program), out_(out),
        leadingSpace_(program.indentStyle() == IndentStyle::LeadingSpace) {}

  // PrintProgram → PrintBlock; a module line first when the dump printed the
  // module op itself (PrintGeneralOperation: the line, "\n", the block).
  void printProgram() {
    if (program_.isFragment()) return printFragment();
    if (!program_.moduleHeader().empty()) {
      out_ += program_.moduleHeader();
      out_ += '\n';
    }
    out_ += "{\n"sv;
    printBlockContents(*program_.body(), kStep);
    blankLinesAtEnd(*program_.body());
    out_ += "}\n"sv;
  }

 private:
  static constexpr size_t kStep = 4;

  // A fragment: its ops and elision lines as read, without braces; its
  // external inputs (the body's arguments) print only where they are used.
  void printFragment() {
    printOps(*program_.body(), program_.fragmentIndent());
    blankLinesAtEnd(*program_.body());
  }

  // IrPrinter::indentation(): 4 spaces a level. The 2023 printer had none:
  // PrintOpResult began each op line with " (", and PrintBlock wrote its
  // braces at column 1.
  void indentOp(size_t width) { out_.append(leadingSpace_ ? 1 : width, ' '); }
  void indentBrace(size_t width) { out_.append(leadingSpace_ ? 0 : width, ' '); }

  void blankLinesBefore(const Operation& op) {
    if (program_.hasBlankLines()) out_ += program_.blankLinesBefore(&op);
  }
  void blankLinesAtEnd(const Block& block) {
    if (program_.hasBlankLines()) out_ += program_.blankLinesAtEnd(&block);
  }

  void number(uint32_t n) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    (void)ec;
    out_.append(digits, end);
  }

  // PrintValue: a block argument's first print carries its attributes.
  void value(const Value* v) {
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

  void type(const Type* t) { out_ += t ? t->text : kNullType; }

  // `"name"` and, in debug dumps, ` [id:N]` (PrintOpName, PrintOpId). Custom
  // printers of 2023 (GroupOp) and until May 2024 (IfOp) wrote name() bare.
  void opName(const Operation& op) {
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

  void results(const Operation& op) {
    out_ += '(';
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) out_ += ", "sv;
      value(op.result(i));
    }
    out_ += ')';
  }

  void operands(const Operation& op, size_t first = 0) {
    for (size_t i = first; i < op.numOperands(); ++i) {
      if (i > first) out_ += ", "sv;
      value(op.operandValue(i));
    }
  }

  void resultTypes(const Operation& op) {
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
  void genericLine(const Operation& op) {
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
    out_ += ") -> "sv;
    resultTypes(op);
  }

  // IfOp::Print and PyLayerOp::Print (paddle/fluid/pir/dialect/operator/ir/
  // control_flow_op.cc), GroupOp::Print and FusionOp::Print (paddle/cinn/hlir/
  // dialect/operator/ir/manual_op.cc): `(%r) = "name" (%c) {attrs} -> T {`,
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
    out_ += op.headerSpelling().braceAttached ? "{"sv : " {"sv;
    if (leadingSpace_ && op.regionSyntax() == RegionSyntax::Group) return leadingSpaceGroupBody(op);
    out_ += '\n';
    const auto& regions = op.regions();
    for (size_t r = 0; r < regions.size(); ++r) {
      if (r > 0) {
        indentOp(width);
        out_ += "} else {\n"sv;
      }
      printBlockContents(*regions[r], width + kStep);
      blankLinesAtEnd(*regions[r]);
    }
    indentOp(width);
    out_ += '}';
  }

  // The 2023 GroupOp::Print: `os << " {"`, then "\n" and each op, then
  // `os << " \n }"` (so the last op line gains a trailing space).
  void leadingSpaceGroupBody(const Operation& op) {
    for (const Block* block : op.regions()) {
      for (const Operation* inner : *block) {
        out_ += '\n';
        blankLinesBefore(*inner);
        printOp(*inner, 0);
      }
      out_ += " \n"sv;
      blankLinesAtEnd(*block);
      out_ += " }"sv;
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
    out_ += ") { \n"sv;
    const Block& body = *op.regions().front();
    indentOp(width);
    out_ += '^';
    blockArguments(body);
    out_ += '\n';
    printOps(body, width + kStep);
    blankLinesAtEnd(body);
    indentOp(width);
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
      indentBrace(width);
      out_ += "}\n"sv;
    }
  }

  // PrintOperation, without the newline the enclosing block writes.
  void printOp(const Operation& op, size_t width) {
    indentOp(width);
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
    printOps(block, width);
  }

  const Program& program_;
  Numbering numbering_;
  OutputSink& out_;
  bool leadingSpace_;
};

std::optional<FrameWriter> framerFor(const Program& program, const PrintFrameOptions& options) {
  if (program.linePrefixes().empty() && !program.crlfLines()) return std::nullopt;
  return FrameWriter(TextFrame{program.linePrefixes(), program.crlfLines()}, options.firstLinePrefix);
}

}  // namespace

bool printProgram(const Program& program, OutputSink& out, const PrintFrameOptions& options) {
  std::optional<FrameWriter> framer = framerFor(program, options);
  if (!framer) {
    Printer(program, out).printProgram();
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
    Printer(program, text).printProgram();
  }  // the destructor hands on the last buffer
  return out.flush();
}

std::string printProgramToString(const Program& program, const PrintFrameOptions& options) {
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
