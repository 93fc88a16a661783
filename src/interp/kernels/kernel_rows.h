// The kernels, grouped by kind: each kernels/*.cpp ends with the rows that name
// its kernels, and interp/kernel_table.cpp joins the groups into the one table
// from op name to kernel. Adding an op is one function and one row.
#pragma once

#include <span>
#include <string_view>

#include "interp/kernel.h"

namespace reshardctl {

struct KernelRow {
  std::string_view name;  // "pd_op.relu"
  Kernel kernel;
};

std::span<const KernelRow> creationKernels();     // inputs, full*, assign, cast, scale, outputs
std::span<const KernelRow> elementwiseKernels();  // unary and broadcasting binary ops, their grads
std::span<const KernelRow> reductionKernels();    // sum/mean/max, softmax, their grads
std::span<const KernelRow> linalgKernels();       // matmul and its grad
std::span<const KernelRow> nnKernels();           // norms, cross entropy, embedding, dropout
std::span<const KernelRow> shapeKernels();        // reshape, transpose, concat, split, slice, gather, ...
std::span<const KernelRow> optimizerKernels();    // sgd_, momentum_, adam_, adamw_

}  // namespace reshardctl
