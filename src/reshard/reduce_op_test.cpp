#include "reshard/reduce_op.h"

#include <doctest/doctest.h>

#include <array>

using namespace reshardctl;

TEST_CASE("reduce op: the identity leaves every reduction unchanged") {
  constexpr std::array<ReduceType, 6> kTypes = {ReduceType::Sum, ReduceType::Max, ReduceType::Min,
                                                ReduceType::Product, ReduceType::Any, ReduceType::All};
  for (DType dtype : {DType::F32, DType::I8, DType::U8, DType::Bool})
    for (ReduceType type : kTypes)
      for (double value : {0.0, 1.0}) {
        CAPTURE(dtypeName(dtype));
        CAPTURE(reduceTypeName(type));
        const double identity = reduceIdentity(type, dtype);
        CHECK(reduceValues(type, dtype, {identity, value, identity}) == value);
      }
}

TEST_CASE("reduce op: each type's reduction") {
  CHECK(reduceValues(ReduceType::Sum, DType::F32, {1, 2, 3}) == 6);
  CHECK(reduceValues(ReduceType::Avg, DType::F32, {1, 2, 6}) == 3);
  CHECK(reduceValues(ReduceType::Avg, DType::I32, {1, 2}) == 1);  // integer mean truncates
  CHECK(reduceValues(ReduceType::Product, DType::F32, {2, -3, 0.5}) == -3);
  CHECK(reduceValues(ReduceType::Max, DType::I32, {-4, 7, 2}) == 7);
  CHECK(reduceValues(ReduceType::Min, DType::I32, {-4, 7, 2}) == -4);
  CHECK(reduceValues(ReduceType::Any, DType::Bool, {0, 0, 1}) == 1);
  CHECK(reduceValues(ReduceType::All, DType::Bool, {1, 0, 1}) == 0);
  CHECK(reduceValues(ReduceType::Sum, DType::I8, {100, 100}) == -56);  // wraps like int8
}

TEST_CASE("reduce op: which reductions may swap order") {
  CHECK(reducesCommute(ReduceType::Sum, ReduceType::Sum));
  CHECK(reducesCommute(ReduceType::Max, ReduceType::Max));
  // AVG's division rounds: the order shows in the element type.
  CHECK_FALSE(reducesCommute(ReduceType::Sum, ReduceType::Avg));
  CHECK_FALSE(reducesCommute(ReduceType::Avg, ReduceType::Avg));
  // A grid of pieces reduced by AVG over rows then columns, or the other way.
  auto nested = [](DType dtype, const std::vector<std::vector<double>>& grid, bool rowsFirst) {
    const size_t rows = grid.size(), cols = grid[0].size();
    std::vector<double> partial;
    for (size_t i = 0; i < (rowsFirst ? rows : cols); ++i) {
      std::vector<double> line;
      for (size_t j = 0; j < (rowsFirst ? cols : rows); ++j) line.push_back(rowsFirst ? grid[i][j] : grid[j][i]);
      partial.push_back(reduceValues(ReduceType::Avg, dtype, line));
    }
    return reduceValues(ReduceType::Avg, dtype, partial);
  };
  const std::vector<std::vector<double>> integers = {{0, 0}, {0, 1}, {3, 2}};
  CHECK(nested(DType::I32, integers, true) == 0);  // avg(0, 0, 2) truncates to 0
  CHECK(nested(DType::I32, integers, false) == 1);  // avg(1, 1)
  const std::vector<std::vector<double>> floats = {{-5, -5}, {-5, -5}, {-5, -4}};
  CHECK(nested(DType::F32, floats, true) != nested(DType::F32, floats, false));  // -14.5/3 rounds two ways
  CHECK_FALSE(reducesCommute(ReduceType::Sum, ReduceType::Max));
  CHECK_FALSE(reducesCommute(ReduceType::Any, ReduceType::All));
}

TEST_CASE("reduce op: mixed types give order-dependent results, the reason for a fixed order") {
  // Max over one mesh dim of sums over the other differs from the reverse order.
  const double maxOfSums = reduceValues(ReduceType::Max, DType::F32,
                                        {reduceValues(ReduceType::Sum, DType::F32, {1, 5}),
                                         reduceValues(ReduceType::Sum, DType::F32, {4, 0})});
  const double sumOfMaxes = reduceValues(ReduceType::Sum, DType::F32,
                                         {reduceValues(ReduceType::Max, DType::F32, {1, 4}),
                                          reduceValues(ReduceType::Max, DType::F32, {5, 0})});
  CHECK(maxOfSums != sumOfMaxes);
}
