// The two kinds of ExecutionSite (kernel.h): the serial program, on global
// tensors, and one rank, on its local pieces of the serial values' shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/kernel.h"
#include "interp/local_run.h"
#include "interp/value_store.h"

namespace reshardctl {

class SerialSite final : public ExecutionSite {
 public:
  // `inputCounter` numbers program inputs that carry no name, in program order.
  // `local`: the hooks of a program run on its own (local_run.h), or nullptr.
  SerialSite(const Operation& op, ValueStore& values, uint64_t seed, int64_t dynamicDim, size_t& inputCounter,
             const LocalRunHooks* local = nullptr)
      : op_(op), values_(values), seed_(seed), dynamicDim_(dynamicDim), inputCounter_(inputCounter), local_(local) {}

  bool serial() const override { return !(local_ && local_->onRank); }
  Shape resultShape(size_t i) const override;
  Tensor programInput(size_t i, std::string_view name) const override;
  Tensor localPiece(const Tensor& global, size_t) const override { return global; }
  Shape operandOffset(size_t i) const override;
  int64_t dynamicDim() const override { return dynamicDim_; }

 private:
  const Operation& op_;
  ValueStore& values_;
  uint64_t seed_;
  int64_t dynamicDim_;
  size_t& inputCounter_;
  const LocalRunHooks* local_;
};

class RankSite final : public ExecutionSite {
 public:
  // `serialResults`: the op's results as the serial program computed them.
  RankSite(const Operation& op, int64_t processId, const std::vector<std::optional<Tensor>>& serialResults,
           ValueStore& values, LayoutCache& layouts, int64_t dynamicDim)
      : op_(op), processId_(processId), serialResults_(serialResults), values_(values), layouts_(layouts),
        dynamicDim_(dynamicDim) {}

  bool serial() const override { return false; }
  Shape resultShape(size_t i) const override;
  Tensor programInput(size_t i, std::string_view name) const override;
  Tensor localPiece(const Tensor& global, size_t i) const override;
  Shape operandOffset(size_t i) const override;
  int64_t dynamicDim() const override { return dynamicDim_; }

 private:
  const Tensor& serialResult(size_t i) const;
  // The layout of a dist value and this rank's coordinate on its mesh.
  std::optional<std::pair<const Layout*, MeshCoord>> placementOf(const Value* value) const;

  const Operation& op_;
  int64_t processId_;
  const std::vector<std::optional<Tensor>>& serialResults_;
  ValueStore& values_;
  LayoutCache& layouts_;
  int64_t dynamicDim_;
};

}  // namespace reshardctl
