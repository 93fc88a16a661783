#include "interp/result_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interp/layout_pieces.h"

namespace reshardctl {

namespace {

Divergence divergence(const Operation& op, size_t result, const ValidateOptions& options, std::string kind,
                      const std::string& problem) {
  Divergence d;
  d.op = &op;
  d.kind = std::move(kind);
  d.result = result;
  d.value = options.nameOf ? options.nameOf(op.result(result)) : "";
  d.message = fmt::format("{}: {}", resultLabel(op, result, options), problem);
  return d;
}

std::string layoutWords(const TensorDistAttr& dist) {
  std::string text = fmt::format("dims_mapping [{}]", fmt::join(dist.dimsMapping, ","));
  for (const PartialDim& p : dist.partials) text += fmt::format(", partial({},{})", p.meshDim, reduceTypeName(p.reduce));
  return text;
}

std::optional<Divergence> compareWithSerial(const Operation& op, size_t result, const Tensor& actual,
                                            const Tensor& serial, const Tolerance& tolerance,
                                            const ValidateOptions& options, std::string_view who) {
  const Mismatch m = compareTensors(actual, serial, tolerance);
  if (!m.differs) return std::nullopt;
  if (m.shapeDiffers)
    return divergence(op, result, options, "shape",
                      fmt::format("{} holds {} where the serial program has {}", who, shapeText(actual.shape),
                                  shapeText(serial.shape)));
  Divergence d = divergence(op, result, options, "serial",
                            fmt::format("{}differs from the serial program (max rel err {:.2g} at {})", who,
                                        m.maxRelErr, indexText(m.index)));
  d.maxAbsDiff = m.maxAbsErr;
  d.maxRelErr = m.maxRelErr;
  d.index = m.index;
  return d;
}

// A value with no dist type: every rank that ran the op holds it whole.
std::optional<Divergence> checkDense(const Operation& op, size_t result, const ValueState& state,
                                     const std::vector<size_t>& ranks, const Tolerance& tolerance,
                                     ResultCheckContext& context, const RankPieces& pieces) {
  for (size_t r : ranks) {
    const int64_t id = context.world.processId(r);
    const Tensor* piece = pieces(r);
    if (piece == nullptr)
      return divergence(op, result, context.options, "missing", fmt::format("rank {} holds no value", id));
    std::optional<Divergence> d = compareWithSerial(op, result, *piece, state.serial, tolerance,
                                                    context.options, fmt::format("rank {} ", id));
    if (d) {
      d->ranks = {id};
      return d;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string resultLabel(const Operation& op, size_t result, const ValidateOptions& options) {
  const std::string name = options.nameOf ? options.nameOf(op.result(result)) : "";
  return name.empty() ? fmt::format("{} result {}", op.name(), result)
                      : fmt::format("{} result {} ({})", op.name(), result, name);
}

std::vector<size_t> checkOrder(const Operation& op, size_t result, const std::vector<size_t>& ranks,
                               ResultCheckContext& context) {
  const Value* value = op.result(result);
  if (value->dist == nullptr) return ranks;
  std::vector<size_t> order;
  try {
    const Layout& layout = context.layouts.of(*value->dist);
    for (int64_t position = 0; position < layout.mesh.size(); ++position)
      if (const std::optional<size_t> r = context.world.indexOf(processIdAt(layout.mesh, position))) order.push_back(*r);
  } catch (const LayoutError&) {  // the check reads no piece
  }
  return order;
}

std::optional<Divergence> checkResult(const Operation& op, size_t result, const ValueState& state,
                                      const std::vector<size_t>& ranks, ResultCheckContext& context) {
  return checkResult(op, result, state, ranks, context,
                     [&state](size_t r) { return state.ranks[r] ? &*state.ranks[r] : nullptr; });
}

std::optional<Divergence> checkResult(const Operation& op, size_t result, const ValueState& state,
                                      const std::vector<size_t>& ranks, ResultCheckContext& context,
                                      const RankPieces& pieces) {
  const Value* value = op.result(result);
  const Tolerance tolerance = toleranceFor(state.serial.dtype, context.options.rtol, context.options.atol);
  if (value->dist == nullptr) return checkDense(op, result, state, ranks, tolerance, context, pieces);

  const Layout* layout = nullptr;
  try {
    layout = &context.layouts.of(*value->dist);
  } catch (const LayoutError& e) {
    return divergence(op, result, context.options, "layout", fmt::format("its layout cannot be used: {}", e.what()));
  }
  const Assembly a = assemble(state.serial.shape, state.serial.dtype, *layout,
                              [&](int64_t id) -> const Tensor* {
                                const std::optional<size_t> r = context.world.indexOf(id);
                                return r ? pieces(*r) : nullptr;
                              },
                              tolerance);
  Divergence d;
  switch (a.problem) {
    case Assembly::Problem::MissingPiece:
      d = divergence(op, result, context.options, "missing",
                     fmt::format("rank {} holds no piece of it, though its layout ({}) gives it one", a.rank,
                                 layoutWords(*value->dist)));
      d.ranks = {a.rank};
      return d;
    case Assembly::Problem::WrongShape:
      d = divergence(op, result, context.options, "shape",
                     fmt::format("rank {} holds a {} piece where its layout ({}) gives it {}", a.rank,
                                 shapeText(a.held), layoutWords(*value->dist), shapeText(a.expected)));
      d.ranks = {a.rank};
      return d;
    case Assembly::Problem::ReplicasDiffer:
      d = divergence(op, result, context.options, "replicas",
                     fmt::format("ranks {} and {} hold different replicas (max |diff| {:.2g})",
                                 std::min(a.rank, a.otherRank), std::max(a.rank, a.otherRank), a.maxDiff));
      d.ranks = {std::min(a.rank, a.otherRank), std::max(a.rank, a.otherRank)};
      d.maxAbsDiff = a.maxDiff;
      return d;
    case Assembly::Problem::None: break;
  }
  return compareWithSerial(op, result, a.global, state.serial, tolerance, context.options, "");
}

}  // namespace reshardctl
