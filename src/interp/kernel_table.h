// The table from op name to kernel (kernels/kernel_rows.h holds the rows).
#pragma once

#include <string_view>
#include <vector>

#include "interp/kernel.h"

namespace reshardctl {

// The kernel of `name`, or nullptr. An in-place variant (`pd_op.relu_`) falls
// back to its op (`pd_op.relu`): in PIR it is a new value like any other.
Kernel findKernel(std::string_view name);

// Every op name with a kernel, sorted (for the README and the tests).
std::vector<std::string_view> kernelNames();

}  // namespace reshardctl
