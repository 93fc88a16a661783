#include <doctest/doctest.h>

#include "schedule/collective_data.h"

namespace reshardctl {

namespace {

Tensor tensor(Shape shape, std::vector<double> data) {
  Tensor t;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

CommCall call(CommKind kind, std::optional<ReduceType> reduce = std::nullopt, int64_t root = -1) {
  CommCall c;
  c.kind = kind;
  c.op = "pd_op.test";
  c.ring = 12;
  c.reduce = reduce;
  c.root = root;
  return c;
}

struct Ring {
  std::unique_ptr<ExecutionBackend> backend = makeCpuBackend();
  CostModel costs;
  ReshardRunner runner{*backend, costs};

  std::map<int64_t, Tensor> run(const CommCall& c, const std::map<int64_t, Tensor>& inputs) {
    std::vector<int64_t> members;
    std::map<int64_t, const Tensor*> pointers;
    for (const auto& [rank, t] : inputs) {
      members.push_back(rank);
      pointers[rank] = &t;
    }
    return runCollective(c, members, pointers, runner);
  }
};

}  // namespace

TEST_CASE("all_reduce reduces by its reduce type; every member gets the result") {
  Ring ring;
  const std::map<int64_t, Tensor> in{{0, tensor({2}, {1, 5})}, {1, tensor({2}, {3, 2})}};
  auto sum = ring.run(call(CommKind::AllReduce, ReduceType::Sum), in);
  CHECK(sum.at(0).data == std::vector<double>{4, 7});
  CHECK(sum.at(1).data == std::vector<double>{4, 7});
  auto max = ring.run(call(CommKind::AllReduce, ReduceType::Max), in);
  CHECK(max.at(1).data == std::vector<double>{3, 5});
}

TEST_CASE("all_gather stacks along dim 0 in rank order; reduce_scatter sums and cuts dim 0") {
  Ring ring;
  const std::map<int64_t, Tensor> in{{3, tensor({1, 2}, {1, 2})}, {5, tensor({1, 2}, {3, 4})}};
  auto gathered = ring.run(call(CommKind::AllGather), in);
  CHECK(gathered.at(5).shape == Shape{2, 2});
  CHECK(gathered.at(5).data == std::vector<double>{1, 2, 3, 4});
  const std::map<int64_t, Tensor> partial{{0, tensor({2, 1}, {1, 2})}, {1, tensor({2, 1}, {10, 20})}};
  auto scattered = ring.run(call(CommKind::ReduceScatter), partial);
  CHECK(scattered.at(0).data == std::vector<double>{11});
  CHECK(scattered.at(1).data == std::vector<double>{22});
}

TEST_CASE("all_to_all sends rank i's chunk j to rank j, which concatenates them along dim 0") {
  Ring ring;
  const std::map<int64_t, Tensor> in{{0, tensor({2, 1}, {0, 1})}, {1, tensor({2, 1}, {10, 11})}};
  auto out = ring.run(call(CommKind::AllToAll), in);
  CHECK(out.at(0).data == std::vector<double>{0, 10});
  CHECK(out.at(1).data == std::vector<double>{1, 11});
  CHECK(out.at(1).shape == Shape{2, 1});
}

TEST_CASE("broadcast copies the root's tensor; members that send different shapes are refused") {
  Ring ring;
  auto out = ring.run(call(CommKind::Broadcast, std::nullopt, 1), {{0, tensor({1}, {7})}, {4, tensor({1}, {9})}});
  CHECK(out.at(0).data == std::vector<double>{9});
  CHECK_THROWS_AS(ring.run(call(CommKind::AllGather), {{0, tensor({1}, {1})}, {1, tensor({2}, {1, 2})}}),
                  CollectiveError);
  CHECK_THROWS_AS(ring.run(call(CommKind::ReduceScatter), {{0, tensor({3}, {1, 2, 3})}, {1, tensor({3}, {1, 2, 3})}}),
                  CollectiveError);
}

}  // namespace reshardctl
