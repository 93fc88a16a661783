#include <cmath>
#include <limits>

#include <doctest/doctest.h>

#include "interp/tensor.h"

namespace reshardctl {

TEST_CASE("broadcasting follows numpy and refuses what does not fit") {
  CHECK(broadcastShapes({2, 1, 3}, {4, 1}) == Shape{2, 4, 3});
  CHECK_THROWS_AS(broadcastShapes({2, 3}, {4}), KernelError);
  CHECK(broadcastOffsets({3}, {2, 3}) == std::vector<int64_t>{0, 1, 2, 0, 1, 2});
  CHECK(broadcastOffsets({2, 1}, {2, 3}) == std::vector<int64_t>{0, 0, 0, 1, 1, 1});
  CHECK_THROWS_AS(broadcastOffsets({2, 3}, {3}), KernelError);
  CHECK_THROWS_AS(broadcastOffsets({8}, {4}), KernelError);
  Tensor grad = Tensor::filled({2, 3}, 1.0, DType::F32);
  CHECK(reduceToShape(grad, {3}).data == std::vector<double>{2, 2, 2});
  CHECK_THROWS_AS(reduceToShape(grad, {2}), KernelError);
}

TEST_CASE("tensors too large or of negative dims are refused, not allocated") {
  CHECK_THROWS_AS(Tensor::filled({-1, 4}, 0.0, DType::F32), KernelError);
  CHECK_THROWS_AS(Tensor::filled({100000, 100000}, 0.0, DType::F32), KernelError);
  CHECK(numelOf({int64_t{1} << 40, int64_t{1} << 40}) == std::numeric_limits<int64_t>::max());
  CHECK(numelOf({0, int64_t{1} << 62}) == 0);
  CHECK(Tensor::filled({}, 2.0, DType::F32).numel() == 1);
}

TEST_CASE("indices and ids must be whole numbers in range") {
  CHECK(toInteger(3.0, "id") == 3);
  CHECK(toInteger(-7.0, "id") == -7);
  CHECK_THROWS_AS(toInteger(2.5, "id"), KernelError);
  CHECK_THROWS_AS(toInteger(1e300, "id"), KernelError);
  CHECK_THROWS_AS(toInteger(std::nan(""), "id"), KernelError);
  CHECK(normalizeAxis(-1, 3) == 2);
  CHECK_THROWS_AS(normalizeAxis(3, 3), KernelError);
  CHECK_THROWS_AS(normalizeAxis(0, 0), KernelError);
}

}  // namespace reshardctl
