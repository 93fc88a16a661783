#include "lower/lowered_ops.h"

#include <fmt/format.h>

#include "ir/dtype.h"
#include "support/op_names.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/dist_attr_text.h"
#include "syntax/type_text.h"

namespace reshardctl {

std::string int32Text(int64_t value) { return fmt::format("(Int32){}", value); }

namespace {

std::string arrayText(const std::vector<int64_t>& values, std::string_view prefix) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += fmt::format("{}{}{}", i ? "," : "", prefix, values[i]);
  return text + "]";
}

std::string shapeText(const std::vector<int64_t>& dims, std::string_view dtype) {
  std::string text;
  for (int64_t dim : dims) text += fmt::format("{}x", dim);
  return text + std::string(dtype);
}

}  // namespace

size_t sourceLocation(const Operation& op) {
  const Operation* at = &op;
  for (size_t steps = 0; at->location() == 0 && steps < 64; ++steps) {  // a bounded walk down the uses
    const Operand* use = at->numResults() ? at->result(0)->firstUse : nullptr;
    if (!use) break;
    at = use->owner();
  }
  return at->location();
}

bool isLoweredCommunication(std::string_view name) {
  if (name.size() > 1 && name.back() == '_') name.remove_suffix(1);
  const auto same = [&](std::string_view op) {
    if (op.back() == '_') op.remove_suffix(1);
    return op == name;
  };
  for (std::string_view op : kCommunicationOps)
    if (same(op)) return true;
  for (std::string_view op : {kCAllReduceSumOp, kCAllGatherOp, kCReduceScatterOp, kCBroadcastOp})
    if (same(op)) return true;
  return false;
}

std::string dataType(const Type* type) {
  std::optional<DType> parsed = parseDType(type->dtype);
  return fmt::format("(pd_op.DataType){}", parsed ? dataTypeName(*parsed) : type->dtype);
}

std::string_view allGatherName(PaddleRelease release) {
  return release == PaddleRelease::V3_0Beta ? kCAllGatherOp : kAllGatherOp;
}

std::string_view reduceScatterName(PaddleRelease release) {
  return release == PaddleRelease::V3_0Beta ? kCReduceScatterOp : kReduceScatterOp;
}

AttributeList gatherAttributes(PaddleRelease release, int64_t nranks, int64_t ring) {
  AttributeList attributes = {{"nranks", int32Text(nranks)}, {"ring_id", int32Text(ring)}};
  if (release == PaddleRelease::V3_0Beta) attributes.emplace_back("use_calc_stream", "true");
  return attributes;
}

std::string int64ArrayText(const std::vector<int64_t>& values) { return arrayText(values, "(Int64)"); }
std::string int32ArrayText(const std::vector<int64_t>& values) { return arrayText(values, "(Int32)"); }
std::string boolArrayText(bool value) { return value ? "[true]" : "[false]"; }

LoweredOps::LoweredOps(Rewriter& rewriter, const Operation& reshard, KeptDistAttrs& kept, size_t location)
    : rewriter_(rewriter), kept_(kept) {
  opRole_ = findAttribute(reshard.attributes(), "op_role").value_or(std::string_view());
  if (reshard.distAttr()) chunkId_ = reshard.distAttr()->chunkId;
  location_ = static_cast<uint32_t>(location);
  rewriter_.setInsertionPoint(const_cast<Operation*>(&reshard));
}

bool LoweredOps::stopGradient(const Value* value) const {
  if (!value || !value->definingOp) return true;
  std::optional<std::string_view> array = findAttribute(value->definingOp->attributes(), "stop_gradient");
  return array ? boolArrayElement(*array, value->index).value_or(true) : true;
}

OpDistAttr LoweredOps::opDist(const ProcessMesh& mesh, std::vector<TensorDistAttr> operands,
                              std::vector<TensorDistAttr> results) {
  OpDistAttr attr;
  attr.mesh = mesh;
  for (TensorDistAttr& operand : operands) attr.operands.push_back({DistEntry::Kind::Tensor, std::move(operand), {}, 0});
  for (TensorDistAttr& result : results) attr.results.push_back({DistEntry::Kind::Tensor, std::move(result), {}, 0});
  if (program().generation() >= DistGeneration::D) attr.chunkId = chunkId_.value_or(-1);
  return attr;
}

const Type* LoweredOps::denseType(const std::vector<int64_t>& dims, std::string_view dtype) {
  return readType(program().types(), fmt::format("builtin.tensor<{}>", shapeText(dims, dtype)), 0);
}

const Type* LoweredOps::distType(const std::vector<int64_t>& dims, std::string_view dtype,
                                 const TensorDistAttr& dist) {
  return distTensorType(program().types(), denseType(dims, dtype), dist, program().distStyle());
}

Operation* LoweredOps::create(NewOp op) {
  Program& prog = program();
  AttributeList attributes = std::move(op.attributes);
  const OpDistAttr* kept = nullptr;
  if (op.dist) {
    std::string text = writeOpDistAttr(*op.dist, prog.distStyle());
    kept = kept_.keep(std::move(*op.dist), text);
    attributes.emplace_back("op_dist_attr", std::move(text));
  }
  if (!opRole_.empty()) attributes.emplace_back("op_role", std::string(opRole_));
  if (!op.resultTypes.empty()) {
    std::string stop = "[";
    for (size_t i = 0; i < op.resultTypes.size(); ++i) stop += i ? ",true" : "true";
    attributes.emplace_back("stop_gradient", op.stopGradient ? stop + "]" : boolArrayText(false));
  }
  OpSpec spec;
  spec.name = op.name;
  spec.attributes = prog.strings().intern(writeAttributes(std::move(attributes)));
  spec.distAttr = kept;
  spec.operands = std::move(op.operands);
  spec.resultTypes = std::move(op.resultTypes);
  spec.location = location_;
  Operation* created = rewriter_.create(spec);
  for (size_t i = 0; i < op.resultDists.size() && i < created->numResults(); ++i)
    rewriter_.setDist(created->result(i), kept_.keep(std::move(op.resultDists[i])));
  return created;
}

bool LoweredOps::relabel(Value* value, const Target& out) {
  Operation* op = value->definingOp;
  if (!op || !op->distAttr() || value->index >= op->distAttr()->results.size()) return false;
  OpDistAttr attr = *op->distAttr();
  attr.results[value->index] = DistEntry{DistEntry::Kind::Tensor, out.dist, {}, 0};
  const std::string distText = writeOpDistAttr(attr, program().distStyle());
  AttributeList entries;
  for (const AttributeEntry& entry : splitAttributes(op->attributes()))
    entries.emplace_back(entry.key, entry.key == "op_dist_attr" ? distText : std::string(entry.value));
  const std::string_view text = program().strings().intern(writeAttributes(std::move(entries)));
  rewriter_.setAttributes(op, text, kept_.keep(std::move(attr), distText));
  rewriter_.retype(value, out.type, &op->distAttr()->results[value->index].tensor);
  return true;
}

Value* LoweredOps::fullInt32(int64_t value) {
  NewOp op;
  op.name = "pd_op.full";
  op.attributes = {{"dtype", "(pd_op.DataType)int32"},
                   {"place", "(pd_op.Place)Place(cpu)"},
                   {"shape", "(pd_op.IntArray)[1]"},
                   {"value", fmt::format("(Float){}", value)}};
  op.resultTypes = {denseType({1}, "i32")};
  return createOne(std::move(op));
}

Value* LoweredOps::fullIntArray(const std::vector<int64_t>& values) {
  NewOp op;
  op.name = "pd_op.full_int_array";
  op.attributes = {{"dtype", "(pd_op.DataType)int64"},
                   {"place", "(pd_op.Place)Place(cpu)"},
                   {"value", int64ArrayText(values)}};
  op.resultTypes = {denseType({static_cast<int64_t>(values.size())}, "i64")};
  return createOne(std::move(op));
}

}  // namespace reshardctl
