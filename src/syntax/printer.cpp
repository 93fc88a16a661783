#include "syntax/printer.h"

#include <charconv>
#include <limits>

#include <fmt/format.h>

namespace reshardctl {

namespace {

constexpr uint32_t kUnnumbered = std::numeric_limits<uint32_t>::max();
constexpr std::string_view kNullValue = "<<NULL VALUE>>";
constexpr std::string_view kNullType = "<<NULL TYPE>>";

// The counters Paddle's IrPrinter keeps: op results and block arguments are
// numbered apart, each the first time it is printed.
class Numbering {
 public:
  explicit Numbering(const Program& program) : numbers_(program.valueCount(), kUnnumbered) {}

  uint32_t numberOf(const Value* value) {
    uint32_t& number = numbers_[value->id];
    if (number == kUnnumbered) number = value->definingOp ? nextResult_++ : nextArgument_++;
    return number;
  }
  std::vector<uint32_t> take() { return std::move(numbers_); }

 private:
  std::vector<uint32_t> numbers_;
  uint32_t nextResult_ = 0;
  uint32_t nextArgument_ = 0;
};

class Printer {
 public:
  Printer(const Program& program, std::string& out, OutputBuffer* sink)
      : numbering_(program), out_(out), sink_(sink) {}

  void printProgram(const Program& program) {
    out_ += "{\n";
    printBlockContents(*program.body(), kStep);
    out_ += "}\n";
    drain();
  }

 private:
  static constexpr size_t kStep = 4;

  void drain() {
    if (sink_ && out_.size() >= (1u << 20)) {
      sink_->append(out_);
      out_.clear();
    }
  }

  void indent(size_t width) { out_.append(width, ' '); }

  void number(uint32_t n) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    (void)ec;
    out_.append(digits, end);
  }

  void value(const Value* v) {
    if (!v) {
      out_ += kNullValue;
      return;
    }
    if (!v->definingOp && !v->argName.empty()) {
      out_ += '%';
      out_ += v->argName;
      return;
    }
    out_ += v->definingOp ? "%" : "%arg_";
    number(numbering_.numberOf(v));
  }

  void type(const Type* t) { out_ += t ? t->text : kNullType; }

  // `"name"` and, in debug dumps, ` [id:N]` (IrPrinter's PrintOpName, PrintOpId).
  void quotedName(const Operation& op) {
    out_ += '"';
    out_ += op.name();
    out_ += '"';
    if (std::optional<uint32_t> id = op.debugId()) {
      out_ += " [id:";
      number(*id);
      out_ += ']';
    }
  }

  template <typename Items, typename Fn>
  void interleave(const Items& items, Fn&& fn) {
    bool first = true;
    for (const auto& item : items) {
      if (!first) out_ += ", ";
      first = false;
      fn(item);
    }
  }

  void results(const Operation& op) {
    out_ += '(';
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) out_ += ", ";
      value(op.result(i));
    }
    out_ += ')';
  }

  void operands(const Operation& op, size_t first = 0) {
    for (size_t i = first; i < op.numOperands(); ++i) {
      if (i > first) out_ += ", ";
      value(op.operandValue(i));
    }
  }

  void resultTypes(const Operation& op) {
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) out_ += ", ";
      type(op.result(i)->type);
    }
  }

  void blockArguments(const Block& block) {
    interleave(block.arguments(), [&](const Value* arg) { value(arg); });
  }

  // `(%r) = "name" (%a, %b) {attrs} : (Ta, Tb) -> Tr`
  void genericLine(const Operation& op) {
    results(op);
    out_ += " = ";
    quotedName(op);
    out_ += " (";
    operands(op);
    out_ += ") ";
    out_ += op.attributes();
    out_ += " : (";
    for (size_t i = 0; i < op.numOperands(); ++i) {
      if (i) out_ += ", ";
      const Value* v = op.operandValue(i);
      type(v ? v->type : nullptr);
    }
    out_ += ") -> ";
    resultTypes(op);
  }

  // IfOp::Print (control_flow_op.cc): no operand types; the header ends in
  // " {" since May 2024, in "{" before (and the name was unquoted then).
  void ifOp(const Operation& op, size_t width) {
    bool legacy = op.regionSyntax() == RegionSyntax::LegacyIf;
    results(op);
    out_ += " = ";
    if (legacy) out_ += op.name(); else quotedName(op);
    out_ += " (";
    operands(op);
    out_ += ") ";
    out_ += op.attributes();
    out_ += " -> ";
    resultTypes(op);
    out_ += legacy ? "{\n" : " {\n";
    const auto& regions = op.regions();
    for (size_t r = 0; r < regions.size(); ++r) {
      if (r > 0) {
        indent(width);
        out_ += "} else {\n";
      }
      printBlockContents(*regions[r], width + kStep);
    }
    indent(width);
    out_ += '}';
  }

  // WhileOp::Print: `"pd_op.while" (cond=%c, inputs=%a, %b) { ` (no space
  // before "(" until May 2024), then `^%arg_0, ...` at the while's own indent.
  void whileOp(const Operation& op, size_t width) {
    results(op);
    out_ += " = ";
    quotedName(op);
    out_ += op.regionSyntax() == RegionSyntax::LegacyWhile ? "(cond=" : " (cond=";
    value(op.numOperands() > 0 ? op.operandValue(0) : nullptr);
    out_ += ", inputs=";
    operands(op, 1);
    out_ += ") { \n";
    const Block& body = *op.regions().front();
    indent(width);
    out_ += '^';
    blockArguments(body);
    out_ += '\n';
    printOps(body, width + kStep);
    indent(width);
    out_ += '}';
  }

  // An op with regions and no custom printer: each block as `{ ... }` lines;
  // the enclosing block's newline then leaves an empty line.
  void genericWithRegions(const Operation& op, size_t width) {
    genericLine(op);
    out_ += '\n';
    for (const Block* region : op.regions()) {
      indent(width);
      out_ += "{\n";
      printBlockContents(*region, width + kStep);
      indent(width);
      out_ += "}\n";
    }
  }

  void printOp(const Operation& op, size_t width) {
    indent(width);
    switch (op.regionSyntax()) {
      case RegionSyntax::If:
      case RegionSyntax::LegacyIf: ifOp(op, width); break;
      case RegionSyntax::While:
      case RegionSyntax::LegacyWhile: whileOp(op, width); break;
      case RegionSyntax::None:
        if (op.regions().empty()) genericLine(op); else genericWithRegions(op, width);
        break;
    }
    out_ += '\n';
    drain();
  }

  void printOps(const Block& block, size_t width) {
    for (const Operation* op : block) printOp(*op, width);
  }

  // PrintBlock's body: the kwargs line (`^kw:%kwarg_a, ...`), then the ops.
  void printBlockContents(const Block& block, size_t width) {
    if (!block.arguments().empty()) {
      indent(width);
      out_ += block.argumentsAreKeywords() ? "^kw:" : "^";
      blockArguments(block);
      out_ += '\n';
    }
    printOps(block, width);
  }

  Numbering numbering_;
  std::string& out_;
  OutputBuffer* sink_;
};

}  // namespace

void OutputBuffer::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) failed_ = true;
}

void OutputBuffer::flush() {
  if (buffer_.empty()) return;
  write(buffer_);
  buffer_.clear();
}

bool printProgram(const Program& program, std::FILE* out) {
  OutputBuffer sink(out);
  std::string text;
  text.reserve(1 << 21);
  Printer(program, text, &sink).printProgram(program);
  sink.append(text);
  sink.flush();
  return !sink.failed() && std::fflush(out) == 0;
}

std::string printProgramToString(const Program& program) {
  std::string text;
  Printer(program, text, nullptr).printProgram(program);
  return text;
}

ValueNames::ValueNames(const Program& program) {
  // Same order as the printer: an op's results, then its regions' arguments
  // and ops (a while's arguments follow its operands, which are only uses).
  Numbering numbering(program);
  auto numberBlock = [&](const Block& block, auto&& self) -> void {
    for (const Value* arg : block.arguments())
      if (arg->argName.empty()) numbering.numberOf(arg);  // kwargs keep their names
    for (const Operation* op : block) {
      for (size_t i = 0; i < op->numResults(); ++i) numbering.numberOf(op->result(i));
      for (const Block* region : op->regions()) self(*region, self);
    }
  };
  numberBlock(*program.body(), numberBlock);
  numbers_ = numbering.take();
}

std::string ValueNames::name(const Value* value) const {
  if (!value) return std::string(kNullValue);
  if (!value->definingOp && !value->argName.empty()) return fmt::format("%{}", value->argName);
  return fmt::format("{}{}", value->definingOp ? "%" : "%arg_", numbers_[value->id]);
}

}  // namespace reshardctl
