#include "passes/reshard_parts.h"

#include <fmt/format.h>

#include "syntax/attribute_dictionary.h"
#include "syntax/dist_attr_text.h"
#include "syntax/type_text.h"

namespace reshardctl::partition {

namespace {

std::string meshText(const ProcessMesh& mesh) {
  return fmt::format("[{}]", fmt::join(mesh.shape, ","));
}

// A value's stop_gradient as pir::Value::attribute reads it: the defining
// op's `stop_gradient` array at the result's index; true when there is none
// (block arguments, ops that do not print it).
bool stopGradient(const Value* value) {
  if (!value || !value->definingOp) return true;
  std::optional<std::string_view> array =
      findAttribute(value->definingOp->attributes(), "stop_gradient");
  if (!array) return true;
  return boolArrayElement(*array, value->index).value_or(true);
}

// PassStopGradientsDefaultly (pir/src/core/operation_utils / builder): the
// outputs stop gradients unless some input does not.
std::string stopGradientText(bool stop) { return stop ? "[true]" : "[false]"; }

std::string passStopGradients(const std::vector<Value*>& inputs) {
  for (const Value* input : inputs)
    if (!stopGradient(input)) return stopGradientText(false);
  return stopGradientText(true);
}

}  // namespace

// Generation A never copies op_role, so its dumps skip the lookup.
std::string_view opRoleOf(const Program& program, const Operation& op) {
  if (program.generation() == DistGeneration::A) return {};
  return findAttribute(op.attributes(), "op_role").value_or(std::string_view());
}

// Generation A's reshard carries no stop_gradient (newOpAttributes): no need to look.
ReshardKey reshardKey(const Program& program, const Operation& consumer, const Value* input,
                      const TensorDistAttr& dst) {
  const bool stops = program.generation() != DistGeneration::A && stopGradient(input);
  return ReshardKey{input->dist, &dst, input->type, opRoleOf(program, consumer), stops};
}

// Generation A (silverling/paddle-paddle @2ce6c02 dist_op.cc ReShardOp::Build)
// gives a reshard only op_dist_attr. From the MergeMeshes version on, Build
// calls PassStopGradientsDefaultly, and the later passes copy op_role to
// inserted ops (docs/passes.md, "apply_partition_pass"), so C-E add
// `stop_gradient` and, when the consumer has one, its `op_role`.
// builtin.combine's Build has always called PassStopGradientsDefaultly.
std::string newOpAttributes(const Program& program, std::string opDistAttr, const Value* input,
                            const std::vector<Value*>& inputs, std::string_view opRole) {
  bool generationA = program.generation() == DistGeneration::A;
  std::vector<std::pair<std::string_view, std::string>> entries;
  if (!opDistAttr.empty()) entries.emplace_back("op_dist_attr", std::move(opDistAttr));
  if (generationA && input) return writeAttributes(std::move(entries));
  if (!generationA && !opRole.empty()) entries.emplace_back("op_role", std::string(opRole));
  entries.emplace_back("stop_gradient", input ? stopGradientText(stopGradient(input)) : passStopGradients(inputs));
  return writeAttributes(std::move(entries));
}

std::optional<ReshardText> writeReshard(const Program& program, const ReshardKey& key, const Value* input,
                                        const TensorDistAttr& dst) {
  const TensorDistAttr& src = *input->dist;
  ProcessMesh opMesh = mergeMeshes(src.mesh, dst.mesh);
  if (!opMesh.idsKnown) return std::nullopt;
  ReshardText text;
  text.distAttr.mesh = std::move(opMesh);
  text.distAttr.operands.push_back(DistEntry{DistEntry::Kind::Tensor, src, {}, 0});
  text.distAttr.results.push_back(DistEntry{DistEntry::Kind::Tensor, dst, {}, 0});
  text.attributes = newOpAttributes(program, writeOpDistAttr(text.distAttr, program.distStyle()), input, {}, key.opRole);
  text.resultType = distTensorTypeText(input->type, dst, program.distStyle());
  return text;
}

ReshardParts keepReshard(Program& program, ReshardText text) {
  ReshardParts parts;
  parts.attributes = program.strings().intern(text.attributes);
  parts.distAttr = program.keepOpDistAttr(std::move(text.distAttr));
  parts.resultType = readType(program.types(), text.resultType, 0);
  return parts;
}

std::optional<ReshardParts> reshardParts(Program& program, const ReshardKey& key, const Value* input,
                                         const TensorDistAttr& dst, size_t location, DiagnosticEngine& diagnostics) {
  std::optional<ReshardText> text = writeReshard(program, key, input, dst);
  if (!text) {
    diagnostics.error(location, 1,
                      fmt::format("cannot build the reshard: moving from mesh {} to mesh {} needs "
                                  "both meshes' process ids, and one is known only by its shape",
                                  meshText(input->dist->mesh), meshText(dst.mesh)));
    return std::nullopt;
  }
  return keepReshard(program, std::move(*text));
}

}  // namespace reshardctl::partition
