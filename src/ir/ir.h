// The SSA graph: a Program holds a top-level Block; a Block holds a list of
// Operations; an Operation holds operands (uses of Values), results (Values)
// and, for region ops, nested Blocks. Every Value keeps the list of its uses,
// so "replace this use", "replace all uses" and "is it used?" are O(1)/O(uses)
// and always consistent (the layout of MLIR's use lists).
//
// Value numbers (%N) are not stored: the printer numbers values in one walk.
// Attribute text is kept verbatim; only op_dist_attr is interpreted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/arena.h"
#include "ir/dist_attr.h"
#include "ir/dist_generation.h"
#include "ir/string_pool.h"
#include "ir/type.h"

namespace reshardctl {

class Block;
class Operation;
struct Value;

// One use of a value by an operation: a node in the value's use list.
class Operand {
 public:
  Value* get() const { return value_; }
  Operation* owner() const { return owner_; }
  Operand* nextUse() const { return nextUse_; }
  void set(Value* value);  // unlinks from the old value's uses, links into the new

 private:
  friend class Operation;
  friend class Program;
  friend class ProgramCloner;
  friend class ProgramJoiner;
  void link();
  void unlink();

  Value* value_ = nullptr;  // nullptr: a null operand (<<NULL VALUE>>)
  Operation* owner_ = nullptr;
  Operand* nextUse_ = nullptr;
  Operand** prevNext_ = nullptr;  // the pointer that points at this node
};

// An op result or a block argument.
struct Value {
  const Type* type = nullptr;  // nullptr: <<NULL TYPE>>
  // The value's distribution: its type's, with process ids filled in from the
  // defining op's mesh where the type (generation A) omits them.
  const TensorDistAttr* dist = nullptr;
  Operand* firstUse = nullptr;
  Operation* definingOp = nullptr;  // nullptr for block arguments
  Block* ownerBlock = nullptr;      // block arguments only
  // The name printed without its '%', when it is not a number the printer
  // counts: a keyword block argument ("kwarg_x"), or an op result the dump
  // named by a printer alias ("stack_0": StackCreateOp::Print calls
  // IrPrinter::AddValueAlias); in a fragment, or a dump whose numbering is
  // not Paddle's (gaps, hand-edited), every name as read ("5", "arg_3").
  // "" = %N or %arg_N.
  std::string_view argName;
  uint32_t id = 0;     // creation order, a key for side tables (not a printed name)
  uint32_t index = 0;  // result number or argument number

  bool useEmpty() const { return firstUse == nullptr; }
  size_t useCount() const;
  void replaceAllUsesWith(Value* other);
};

// Which printer wrote a region op's header; kept so a dump prints back as it
// came (the syntax/printer.cpp functions cite Paddle's code for each).
enum class RegionSyntax : uint8_t {
  None,   // generic: the op line, then each block as `{ ... }` on the lines after it
  If,     // IfOp::Print: "pd_op.if" (%c) {attrs} -> T { ... } else { ... }
  Group,  // GroupOp::Print, FusionOp::Print: "cinn_op.group" (%x) -> T { ... } (no attribute dict)
  While,  // WhileOp::Print: "pd_op.while" (cond=%c, inputs=%a) { ^%arg_0 ... }
};

// Spellings of a custom-printed header that Paddle changed over the years,
// kept as read (a hand-written mix prints back as it came too).
struct HeaderSpelling {
  bool unquotedName = false;   // `= pd_op.if (` (IfOp::Print until May 2024), `= cinn_op.group (` (2023)
  bool braceAttached = false;  // `-> T{` (IfOp::Print until May 2024) instead of `-> T {`
  bool braceOnOwnLine = false;  // `-> T` then `{` alone on the next line (a hand-edited dump)
  bool parenAttached = false;  // `"pd_op.while"(cond=` (WhileOp::Print until May 2024)
  bool arrowBlankTaken = false;  // `->` ends the line: an editor took the blank of `-> ` (no results)
  bool whileBlankTaken = false;  // `) {` ends a while header: an editor took the blank of `{ `
  // Columns the op line sits past (or before) where the printer would put it,
  // as read (a hand-edited dump); 0 for an op made by a pass.
  int8_t indentShift = 0;
};

// What an op's line says of it besides its operands, results, regions and
// debug id: one struct, so createOp and a clone (ir/clone/program_clone.h)
// take it whole and a field added here reaches both.
struct OpHeader {
  std::string_view name;
  std::string_view attributes = "{}";  // "{k:v,...}", verbatim
  const OpDistAttr* distAttr = nullptr;
  uint32_t location = 0;          // byte offset of the op line
  uint32_t distAttrLocation = 0;  // where op_dist_attr's value starts
  RegionSyntax regionSyntax = RegionSyntax::None;
  HeaderSpelling spelling;
};

class Operation {
 public:
  std::string_view name() const { return header_.name; }
  std::string_view attributes() const { return header_.attributes; }  // "{k:v,...}", verbatim
  const OpDistAttr* distAttr() const { return header_.distAttr; }     // nullptr: none
  uint32_t location() const { return header_.location; }              // byte offset of the op line

  size_t numOperands() const { return numOperands_; }
  Operand& operand(size_t i) { return operands_[i]; }
  const Operand& operand(size_t i) const { return operands_[i]; }
  Value* operandValue(size_t i) const { return operands_[i].get(); }
  void setOperand(size_t i, Value* value) { operands_[i].set(value); }

  size_t numResults() const { return numResults_; }
  Value* result(size_t i) const { return &results_[i]; }

  const std::vector<Block*>& regions() const;
  RegionSyntax regionSyntax() const { return header_.regionSyntax; }
  HeaderSpelling headerSpelling() const { return header_.spelling; }

  Block* parentBlock() const { return parent_; }
  Operation* next() const { return next_; }
  Operation* prev() const { return prev_; }

  // Where op_dist_attr's value starts in the source, for diagnostics.
  uint32_t distAttrLocation() const { return header_.distAttrLocation; }

  // The ` [id:N]` a debug print shows after the name, if the dump has it.
  std::optional<uint32_t> debugId() const {
    return debugId_ == kNoDebugId ? std::nullopt : std::optional<uint32_t>(debugId_);
  }

 private:
  friend class Block;
  friend class Program;
  friend class ProgramCloner;
  friend class ProgramJoiner;

  OpHeader header_;
  Operand* operands_ = nullptr;
  Value* results_ = nullptr;
  std::vector<Block*>* regions_ = nullptr;  // owned by the Program
  Block* parent_ = nullptr;
  Operation* prev_ = nullptr;
  Operation* next_ = nullptr;
  uint32_t numOperands_ = 0;
  uint32_t numResults_ = 0;
  static constexpr uint32_t kNoDebugId = UINT32_MAX;
  uint32_t debugId_ = kNoDebugId;
};

class Block {
 public:
  Operation* front() const { return first_; }
  Operation* back() const { return last_; }
  bool empty() const { return first_ == nullptr; }
  // How many ops the block holds (not its nested blocks'): kept as ops come
  // and go, so that cutting a block into ranges for threads
  // (ir/parallel/op_ranges.h) need not walk it to count.
  size_t size() const { return size_; }
  Operation* parentOp() const { return parentOp_; }

  const std::vector<Value*>& arguments() const { return arguments_; }
  bool argumentsAreKeywords() const { return keywordArguments_; }
  // Since late 2024 PrintBlock writes `^kw:` alone, then one argument a line.
  bool argumentsOnOwnLines() const { return argumentsOnOwnLines_; }
  void setArgumentsOnOwnLines(bool own) { argumentsOnOwnLines_ = own; }
  // Columns the block's closing `}` sits past (or before) where the printer
  // would put it, as read (a hand-edited dump); 0 normally.
  int8_t closeShift() const { return closeShift_; }
  void setCloseShift(int8_t shift) { closeShift_ = shift; }
  // The ` {attrs}` Paddle prints after a block argument the first time it
  // prints it (IrPrinter::PrintValue, 2025); "" when the dump had none.
  std::string_view argumentAttributes(size_t index) const {
    return index < argumentAttributes_.size() ? argumentAttributes_[index] : std::string_view();
  }

  void insertBefore(Operation* before, Operation* op);  // before == nullptr: at the end
  void remove(Operation* op);                           // unlinks; the op keeps its uses

  // Iteration: for (Operation* op : block) — the next op is read before the
  // body runs, so inserting before or removing the current op is safe.
  struct Iterator {
    Operation* op;
    Operation* nextOp;
    Operation* operator*() const { return op; }
    Iterator& operator++() {
      op = nextOp;
      nextOp = op ? op->next() : nullptr;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return op != other.op; }
  };
  Iterator begin() const { return {first_, first_ ? first_->next() : nullptr}; }
  Iterator end() const { return {nullptr, nullptr}; }

 private:
  friend class Program;
  friend class ProgramCloner;
  friend class ProgramJoiner;
  Operation* first_ = nullptr;
  Operation* last_ = nullptr;
  size_t size_ = 0;
  Operation* parentOp_ = nullptr;
  std::vector<Value*> arguments_;
  std::vector<std::string_view> argumentAttributes_;  // by argument index; often empty
  bool keywordArguments_ = false;
  bool argumentsOnOwnLines_ = false;
  int8_t closeShift_ = 0;
};

// What an op is made of; Program::createOp turns it into an Operation.
struct OpSpec : OpHeader {
  std::vector<Value*> operands;
  std::vector<const Type*> resultTypes;
  size_t numRegions = 0;
  std::optional<uint32_t> debugId;
};

// The type of a while result or block argument before its first use: the
// dump never prints it, the first use's signature tells it.
const Type* pendingType();

// How ops are indented. Since late 2023 IrPrinter indents 4 spaces per
// nesting level; before, PrintOpResult began every op line with " (" at any
// depth and blocks printed `{`/`}` at column 1 (2023 ir_printer.cc).
enum class IndentStyle : uint8_t { PerLevel, LeadingSpace };

// Owns the whole graph and the interned text, types and dist attrs it uses.
class Program {
 public:
  Program();
  ~Program();
  // A copy is a clone (ir/clone/program_clone.h): it shares what never changes.
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  Block* body() const { return body_; }
  DistGeneration generation() const { return written_.style.generation; }
  void setGeneration(DistGeneration generation) { written_.style.generation = generation; }
  // How new dist text is written: the input's generation and placements habit.
  const DistWriteStyle& distStyle() const { return written_.style; }
  void setDistStyle(const DistWriteStyle& style) { written_.style = style; }

  StringPool& strings() { return strings_; }
  TypeTable& types() { return types_; }
  const TypeTable& types() const { return types_; }

  // Creates an op, not yet in any block; its regions are new empty blocks.
  Operation* createOp(const OpSpec& spec);
  // Adds one more region (a new empty block) to `op`.
  Block* appendRegion(Operation* op);
  Block* createBlock(Operation* parentOp);
  Value* addBlockArgument(Block* block, std::string_view keywordName);
  // `text` ("{k:v,...}") must outlive the program (intern it).
  void setArgumentAttributes(Value* argument, std::string_view text);
  // Unlinks the op's operand uses and removes it from its block. Its results
  // must be unused.
  void eraseOp(Operation* op);
  // Replaces an op's attribute dictionary and its op_dist_attr (nullptr:
  // none); `text` must outlive the program (intern it).
  void setAttributes(Operation* op, std::string_view text, const OpDistAttr* distAttr);

  // Keeps a dist attr alive for the program's lifetime, so ops and values
  // can point at it (callers share one copy between equal attrs).
  const OpDistAttr* keepOpDistAttr(OpDistAttr attr);
  const TensorDistAttr* keepTensorDistAttr(TensorDistAttr attr);

  uint32_t valueCount() const { return nextValueId_; }

  // Debug dumps print ` [id:N]` on every op; ops a pass creates in such a
  // program get fresh ids above the largest read.
  bool usesDebugIds() const { return written_.usesDebugIds; }
  uint32_t newDebugId() { return ++written_.maxDebugId; }

  // Layout the dump was read in, kept so it prints back as it came.
  IndentStyle indentStyle() const { return written_.indentStyle; }
  void setIndentStyle(IndentStyle style) { written_.indentStyle = style; }
  // The module op's own line when the dump printed the module op itself
  // (`() = "builtin.module" [id:N] () {program:0x..} : () -> `, then the
  // body on the next line): Operation::Print on the module, as pass
  // instrumentation does. "" for a plain Program::Print dump.
  std::string_view moduleHeader() const { return written_.moduleHeader; }
  void setModuleHeader(std::string_view line) { written_.moduleHeader = strings_.intern(line); }
  // How its lines sat in the host text (syntax/text_frame.h): the text before
  // each line (one entry when every line had the same) and CRLF line ends.
  // A fragment (read with --fragment): op lines without the program's braces,
  // the top-level ops at `fragmentIndent` columns; the values it uses but
  // does not define are the body's arguments, printed by their names alone.
  bool isFragment() const { return written_.fragment; }
  size_t fragmentIndent() const { return written_.fragmentIndent; }
  void setFragment(size_t indent) { written_.fragment = true, written_.fragmentIndent = indent; }
  // The closing brace ends the text without a newline (a dump cut or edited
  // so): it prints back so.
  bool endsWithoutNewline() const { return written_.endsWithoutNewline; }
  void setEndsWithoutNewline() { written_.endsWithoutNewline = true; }
  // Where the printer's %N counter starts: past the numbers a dump kept as
  // read (a fragment's, or a dump not numbered as Paddle numbers).
  uint32_t firstResultNumber() const { return written_.firstResultNumber; }
  void setFirstResultNumber(uint32_t n) { written_.firstResultNumber = n; }
  const std::vector<std::string_view>& linePrefixes() const { return written_.linePrefixes; }
  bool crlfLines() const { return written_.crlfLines; }
  void setLineFrame(const std::vector<std::string_view>& prefixes, bool crlf) {
    written_.linePrefixes.clear();
    for (std::string_view prefix : prefixes) written_.linePrefixes.push_back(strings_.intern(prefix));
    written_.crlfLines = crlf;
  }
  // Lines holding only blanks, verbatim with their newlines: the ones before
  // an op line, and the ones before a block's closing brace. Paddle's printer
  // writes such lines (an op whose printer wrote nothing); we keep them.
  std::string_view blankLinesBefore(const Operation* op) const { return lookup(blankLinesBeforeOp_, op); }
  std::string_view blankLinesAtEnd(const Block* block) const { return lookup(blankLinesAtEnd_, block); }
  bool hasBlankLines() const { return !blankLinesBeforeOp_.empty() || !blankLinesAtEnd_.empty(); }
  void setBlankLinesBefore(const Operation* op, std::string_view lines) {
    blankLinesBeforeOp_[op] = strings_.intern(lines);
  }
  void setBlankLinesAtEnd(const Block* block, std::string_view lines) {
    blankLinesAtEnd_[block] = strings_.intern(lines);
  }
  // An op line's indentation as read, when it holds a tab (a Markdown
  // editor's): the column shift (HeaderSpelling::indentShift) cannot say it.
  std::string_view indentationOf(const Operation* op) const { return lookup(tabIndentedOps_, op); }
  bool hasTabIndentation() const { return !tabIndentedOps_.empty(); }
  void setIndentation(const Operation* op, std::string_view indentation) {
    tabIndentedOps_[op] = strings_.intern(indentation);
  }

 private:
  friend class ProgramCloner;
  friend class ProgramJoiner;
  template <typename Key>
  static std::string_view lookup(const std::unordered_map<const Key*, std::string_view>& map, const Key* key) {
    if (map.empty()) return {};
    auto it = map.find(key);
    return it == map.end() ? std::string_view() : it->second;
  }

  Arena arena_;
  StringPool strings_;
  TypeTable types_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::unique_ptr<std::vector<Block*>>> regionLists_;
  std::vector<std::unique_ptr<OpDistAttr>> opDistAttrs_;
  std::vector<std::unique_ptr<TensorDistAttr>> tensorDistAttrs_;
  Block* body_ = nullptr;
  uint32_t nextValueId_ = 0;
  // How the dump was written, kept so it prints back as read: one struct, so
  // that a clone (ir/clone/program_clone.h) copies it whole and a field added
  // here is never forgotten there.
  struct WrittenForm {
    bool usesDebugIds = false;
    uint32_t maxDebugId = 0;
    DistWriteStyle style;
    IndentStyle indentStyle = IndentStyle::PerLevel;
    std::string_view moduleHeader;
    std::vector<std::string_view> linePrefixes;
    bool crlfLines = false;
    bool fragment = false;
    size_t fragmentIndent = 0;
    uint32_t firstResultNumber = 0;
    bool endsWithoutNewline = false;
  } written_;
  std::unordered_map<const Operation*, std::string_view> blankLinesBeforeOp_;
  std::unordered_map<const Block*, std::string_view> blankLinesAtEnd_;
  std::unordered_map<const Operation*, std::string_view> tabIndentedOps_;
  // A clone refers to its original's text, types and dist attrs: the
  // original counts its live clones and must outlive them (asserted).
  const Program* original_ = nullptr;
  mutable uint32_t liveClones_ = 0;
  // Programs parsed from later chunks of the same text whose ops were
  // appended to this one (ir/clone/program_join.h): they hold those ops' storage.
  std::vector<std::unique_ptr<Program>> parts_;
};

// Checks the graph's invariants (ninja's VerifyGraph): every operand is in
// its value's use list exactly once, every use list holds only operands that
// use that value, and ops point at the blocks that hold them. Returns "" when
// all hold, else a description of the first broken one.
std::string checkGraph(const Program& program);

// Calls fn(op) for every op, nested blocks included, in print order.
template <typename Fn>
void walkOps(const Block& block, Fn&& fn) {
  for (Operation* op : block) {
    fn(op);
    for (Block* region : op->regions()) walkOps(*region, fn);
  }
}

}  // namespace reshardctl
