#include "interp/kernel_table.h"

#include <algorithm>
#include <unordered_map>

#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

const std::unordered_map<std::string_view, Kernel>& table() {
  static const std::unordered_map<std::string_view, Kernel> kTable = [] {
    std::unordered_map<std::string_view, Kernel> rows;
    for (auto group : {creationKernels(), elementwiseKernels(), reductionKernels(), linalgKernels(), nnKernels(),
                       shapeKernels(), optimizerKernels()})
      for (const KernelRow& row : group) rows.emplace(row.name, row.kernel);
    return rows;
  }();
  return kTable;
}

}  // namespace

Kernel findKernel(std::string_view name) {
  auto found = table().find(name);
  if (found != table().end()) return found->second;
  if (name.ends_with('_')) {
    found = table().find(name.substr(0, name.size() - 1));
    if (found != table().end()) return found->second;
  }
  return nullptr;
}

std::vector<std::string_view> kernelNames() {
  std::vector<std::string_view> names;
  for (const auto& [name, kernel] : table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace reshardctl
