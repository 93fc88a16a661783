// Ops that bring values in or out of the program, make new ones, or pass one
// through: program inputs, full / full_like / full_int_array, assign, the
// output ops, and dist_op.shard_tensor. `full` and `full_like` build the
// shape their result has here (ExecutionSite::resultShape), which is how a
// rank localises the global shape in their attributes.
#include <cmath>

#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

// Every result of a program input: seeded values named after the input, so
// the programs before and after the partition pass read the same data.
void programInput(KernelContext& c, std::string_view nameKey) {
  const std::string_view name = c.attrs().string(nameKey, "");
  for (size_t i = 0; i < c.numResults(); ++i) c.setOut(i, c.site().programInput(i, name));
}

void data(KernelContext& c) { programInput(c, "name"); }
void parameter(KernelContext& c) { programInput(c, "parameter_name"); }

// full(IntArray shape, Scalar value, DataType dtype, Place place)
void full(KernelContext& c) {
  const Shape shape = completeShape(c.resultShape(0), -1, c.site().dynamicDim());
  c.setOut(0, Tensor::filled(shape, c.attrs().number("value", 0.0), c.resultDType(0)));
}

// full_like(x, Scalar value, dtype, place): the value is an operand in dumps
// since 2024 (a pd_op.full), an attribute before.
void fullLike(KernelContext& c) {
  const Shape shape = c.site().serial() ? c.in(0).shape : c.resultShape(0);
  c.setOut(0, Tensor::filled(shape, c.scalar(1, "value", 0.0), c.resultDType(0)));
}

// full_int_array(int64_t[] value, dtype, place): a 1-D tensor of the values. Its
// values are axes or a global shape, never localised: ops that take a shape
// operand build their results in the shape their result type gives them.
void fullIntArray(KernelContext& c) {
  const std::vector<int64_t> values = c.attrs().integers("value");
  Tensor out = Tensor::filled({static_cast<int64_t>(values.size())}, 0.0, c.resultDType(0));
  for (size_t i = 0; i < values.size(); ++i) out.data[i] = static_cast<double>(values[i]);
  c.setOut(0, std::move(out));
}

// assign(x), fetch(x), share_data(x), memcpy_*(x), assign_out_(x, output): x.
void passThrough(KernelContext& c) { c.setOut(0, c.in(0)); }

// builtin.shadow_output / set_parameter: no result, nothing to compute.
void sink(KernelContext&) {}

// dist_op.shard_tensor(x): serially the identity; a rank keeps its piece of x
// under the result's dist type.
void shardTensor(KernelContext& c) { c.setOut(0, c.site().localPiece(c.in(0), 0)); }

constexpr KernelRow kRows[] = {
    {"pd_op.data", data},
    {"pd_op.feed", data},
    {"builtin.parameter", parameter},
    {"pd_op.full", full},
    {"pd_op.full_like", fullLike},
    {"pd_op.full_int_array", fullIntArray},
    {"pd_op.assign", passThrough},
    {"pd_op.assign_out_", passThrough},
    {"pd_op.fetch", passThrough},
    {"pd_op.share_data", passThrough},
    {"pd_op.share_data_", passThrough},
    {"pd_op.memcpy_h2d", passThrough},
    {"pd_op.memcpy_d2h", passThrough},
    {"builtin.shadow_output", sink},
    {"builtin.set_parameter", sink},
    {"dist_op.shard_tensor", shardTensor},
};

}  // namespace

std::span<const KernelRow> creationKernels() { return kRows; }

}  // namespace reshardctl
