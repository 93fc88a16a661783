#include "report/reshard_report.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/dtype.h"
#include "support/op_names.h"
#include "support/text.h"
#include "syntax/printer.h"

namespace reshardctl {

namespace {

// The dist attr of a value, or of the op's own entry when the value is gone
// (a <<NULL VALUE>> operand left by pruning).
TensorDistAttr layoutOf(const Value* value, const std::vector<DistEntry>* entries) {
  if (value && value->dist) return *value->dist;
  if (entries && !entries->empty() && entries->front().kind == DistEntry::Kind::Tensor)
    return entries->front().tensor;
  throw PlanError("the reshard's layout is unknown (no distributed type and no op_dist_attr entry)");
}

const Type* tensorTypeOf(const Operation& reshard) {
  for (const Value* value : {reshard.operandValue(0), reshard.result(0)})
    if (value && value->type && value->type != pendingType() && value->type->isTensor()) return value->type;
  throw PlanError("neither the reshard's input nor its result has a tensor type");
}

std::vector<int64_t> idsWithout(const ProcessMesh& all, const ProcessMesh& taken) {
  std::vector<int64_t> rest;
  for (int64_t id : all.processIds)
    if (std::find(taken.processIds.begin(), taken.processIds.end(), id) == taken.processIds.end())
      rest.push_back(id);
  return rest;
}

// Fills in the ids of `mesh` (known only by its shape) from the ops around it.
void resolveIds(ProcessMesh& mesh, const ProcessMesh& otherSide, const Operation& reshard, const Value* value) {
  if (mesh.idsKnown) return;
  for (const Operand* use = value ? value->firstUse : nullptr; use; use = use->nextUse()) {
    const OpDistAttr* attr = use->owner()->distAttr();
    if (attr && attr->mesh.idsKnown && attr->mesh.shape == mesh.shape) {
      mesh = attr->mesh;
      return;
    }
  }
  const ProcessMesh& opMesh = reshard.distAttr() ? reshard.distAttr()->mesh : otherSide;
  if (!opMesh.idsKnown) return;
  if (opMesh.shape == mesh.shape) {  // the op mesh is this mesh (equal meshes are not merged)
    mesh = opMesh;
    return;
  }
  std::vector<int64_t> rest = otherSide.idsKnown ? idsWithout(opMesh, otherSide) : std::vector<int64_t>{};
  if (static_cast<int64_t>(rest.size()) == mesh.size()) {
    mesh.processIds = std::move(rest);
    mesh.idsKnown = true;
  }
}

// Programs repeat the same reshard many times (every layer, forward and
// backward): each distinct request is planned once.
class PlanCache {
 public:
  explicit PlanCache(const CostModel& costs) : costs_(costs) {}

  std::shared_ptr<const Plan> planFor(const ReshardRequest& request) {
    const std::string key =
        fmt::format("{}|{}|{}|{}", fmt::join(request.shape, "x"), dtypeName(request.dtype),
                    layoutText(toLayout(request.src)), layoutText(toLayout(request.dst)));
    auto found = plans_.find(key);
    if (found == plans_.end())
      found = plans_.emplace(key, std::make_shared<const Plan>(planMinCost(request, costs_))).first;
    return found->second;
  }

 private:
  const CostModel& costs_;
  std::map<std::string, std::shared_ptr<const Plan>> plans_;
};

ReshardReport planOne(const Operation& reshard, const ValueNames& names, PlanCache& cache, const LineOf& lineOf) {
  ReshardReport report;
  report.op = &reshard;
  report.line = lineOf(reshard);
  report.result = names.name(reshard.result(0));
  report.input = names.name(reshard.operandValue(0));
  try {
    report.request = resolveReshardRequest(reshard);
    report.plan = cache.planFor(report.request);
  } catch (const PlanError& error) {
    report.error = error.what();
  } catch (const LayoutError& error) {
    report.error = error.what();
  }
  return report;
}

}  // namespace

LineOf sourceLines(const SourceFile& source) {
  return [&source](const Operation& op) { return source.lineCol(op.location()).line; };
}

namespace {

// Reads the printed program line by line as the printer writes it (a sink
// handing each buffer to scan()), so the text is never held whole: result names are
// unique in a printed program, so "(%N) = "dist_op.reshard"" finds the line.
class ReshardLineScanner {
 public:
  std::map<std::string, size_t> take() { return std::move(lines_); }

  void scan(std::string_view chunk) {
    ReshardLineScanner& self = *this;
    for (size_t newline; (newline = chunk.find('\n')) != std::string_view::npos;) {
      if (self.partial_.empty()) {
        self.line(chunk.substr(0, newline));
      } else {
        self.partial_.append(chunk.substr(0, newline));
        self.line(self.partial_);
        self.partial_.clear();
      }
      chunk.remove_prefix(newline + 1);
    }
    self.partial_.append(chunk);
  }

 private:
  void line(std::string_view text) {
    ++number_;
    const size_t open = text.find("(%");
    const size_t marker = text.find(marker_);
    if (open != std::string_view::npos && marker != std::string_view::npos && open < marker)
      lines_[std::string(text.substr(open + 1, marker - open - 1))] = number_;
  }

  std::map<std::string, size_t> lines_;
  std::string partial_;
  size_t number_ = 0;
  const std::string marker_ = fmt::format(") = \"{}\"", kReshardOp);
};

}  // namespace

LineOf printedLines(const Program& program) {
  ReshardLineScanner scanner;
  {
    OutputSink printed([&](std::string_view chunk) { scanner.scan(chunk); });
    printProgram(program, printed);
  }
  auto linesByName = std::make_shared<std::map<std::string, size_t>>(scanner.take());
  auto names = std::make_shared<ValueNames>(program);
  return [linesByName, names](const Operation& op) {
    auto found = linesByName->find(names->name(op.result(0)));
    return found == linesByName->end() ? size_t{0} : found->second;
  };
}

ReshardRequest resolveReshardRequest(const Operation& reshard) {
  if (reshard.numOperands() != 1 || reshard.numResults() != 1)
    throw PlanError("a dist_op.reshard has one operand and one result");
  const OpDistAttr* attr = reshard.distAttr();
  ReshardRequest request;
  const Type* type = tensorTypeOf(reshard);
  request.shape = type->dims;
  const std::optional<DType> dtype = parseDType(type->dtype);
  if (!dtype) throw PlanError(fmt::format("unknown element type '{}'", type->dtype));
  request.dtype = *dtype;
  request.src = layoutOf(reshard.operandValue(0), attr ? &attr->operands : nullptr);
  request.dst = layoutOf(reshard.result(0), attr ? &attr->results : nullptr);
  // The destination first: the uses of the result may name its ids, and the
  // source's are then the op mesh's other ids (a merged mesh is their union).
  resolveIds(request.dst.mesh, request.src.mesh, reshard, reshard.result(0));
  resolveIds(request.src.mesh, request.dst.mesh, reshard, nullptr);
  return request;
}

void forEachPlannedReshard(const Program& program, const std::vector<Operation*>& ops, const CostModel& costs,
                           const LineOf& lineOf, const TakeReport& take) {
  const ValueNames names(program);
  PlanCache cache(costs);
  for (const Operation* op : ops) {
    ReshardReport report = planOne(*op, names, cache, lineOf);
    take(report);
  }
}

void PlanTotals::add(const ReshardReport& report) {
  ++reshards;
  if (!report.plan) {
    ++unplanned;
    return;
  }
  steps += report.plan->steps.size();
  estUs += report.plan->estUs;
}

std::string PlanTotals::text() const {
  return fmt::format("{}, {}, estimated {:.2f} us", plural(reshards, "reshard"), plural(steps, "step"), estUs);
}

PlanTotals planInsertedReshards(const Program& program, const PartitionResult& result, const CostModel& costs) {
  std::vector<const Operation*> inserted(result.inserted.begin(), result.inserted.end());
  std::sort(inserted.begin(), inserted.end());
  std::vector<Operation*> kept;
  walkOps(*program.body(), [&](Operation* op) {
    if (std::binary_search(inserted.begin(), inserted.end(), op)) kept.push_back(op);
  });
  PlanTotals sum;
  forEachPlannedReshard(program, kept, costs, [](const Operation&) { return size_t{0}; },
                        [&](const ReshardReport& report) { sum.add(report); });
  return sum;
}

std::vector<ReshardReport> planReshardOps(const Program& program, const std::vector<Operation*>& ops,
                                          const CostModel& costs, const LineOf& lineOf) {
  std::vector<ReshardReport> reports;
  reports.reserve(ops.size());
  forEachPlannedReshard(program, ops, costs, lineOf,
                        [&](ReshardReport& report) { reports.push_back(std::move(report)); });
  return reports;
}

namespace {

std::vector<Operation*> reshardOps(const Program& program) {
  std::vector<Operation*> reshards;
  walkOps(*program.body(), [&](Operation* op) {
    if (op->name() == kReshardOp) reshards.push_back(op);
  });
  return reshards;
}

}  // namespace

void forEachPlannedProgramReshard(const Program& program, const CostModel& costs, const LineOf& lineOf,
                                  const TakeReport& take) {
  forEachPlannedReshard(program, reshardOps(program), costs, lineOf, take);
}

std::vector<ReshardReport> planProgramReshards(const Program& program, const CostModel& costs,
                                               const LineOf& lineOf) {
  return planReshardOps(program, reshardOps(program), costs, lineOf);
}

namespace {

// Where to point a diagnostic about a reshard: its own line, or for one a pass
// inserted (it has no place in the input) the line of the op that uses it.
size_t diagnosticOffset(const Operation& reshard) {
  if (reshard.location() != 0) return reshard.location();
  const Operand* use = reshard.result(0)->firstUse;
  return use ? use->owner()->location() : 0;
}

// A reshard without a plan, diagnosed at its line; false for one.
bool reportUnplannable(const ReshardReport& report, DiagnosticEngine& diagnostics) {
  if (report.plan) return true;
  diagnostics.error(diagnosticOffset(*report.op), 1,
                    fmt::format("cannot plan the reshard of {}: {}", report.input, report.error));
  return false;
}

}  // namespace

namespace {

// "19:5": where in the input the op an inserted reshard is for sits (its
// first user, past reshards the pass chained), as apply --check names it; ""
// for a reshard the input had (it has a line of its own).
std::string consumerPlace(const Operation& reshard, const SourceFile& source) {
  if (reshard.location() != 0) return "";
  const Operation* op = &reshard;
  for (size_t hops = 0; op != nullptr && op->location() == 0 && hops < 8; ++hops) {
    const Operand* use = op->numResults() > 0 ? op->result(0)->firstUse : nullptr;
    op = use != nullptr ? use->owner() : nullptr;
  }
  if (op == nullptr) return "";
  const auto place = source.lineCol(op->location());
  return fmt::format("{}:{}", place.line, place.column);
}

}  // namespace

bool forEachLoadedReshard(Program& program, const SourceFile& source, const PartitionOptions* pass,
                          const CostModel& costs, DiagnosticEngine& diagnostics, const TakeReport& take) {
  LineOf lineOf = sourceLines(source);
  if (pass) {
    if (!applyPartitionPass(program, diagnostics, *pass).ok) return false;
    lineOf = printedLines(program);  // the reshards are new lines
  }
  bool ok = true;
  forEachPlannedReshard(program, reshardOps(program), costs, lineOf, [&](ReshardReport& report) {
    if (pass) report.consumer = consumerPlace(*report.op, source);
    ok = reportUnplannable(report, diagnostics) && ok;
    take(report);
  });
  return ok;
}

bool reportLoadedReshards(Program& program, const SourceFile& source, const PartitionOptions* pass,
                          const CostModel& costs, DiagnosticEngine& diagnostics,
                          std::vector<ReshardReport>* reports) {
  reports->clear();
  return forEachLoadedReshard(program, source, pass, costs, diagnostics,
                              [&](ReshardReport& report) { reports->push_back(std::move(report)); });
}

}  // namespace reshardctl
