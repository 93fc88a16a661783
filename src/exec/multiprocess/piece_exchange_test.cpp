#include <doctest/doctest.h>

#include "exec/multiprocess/piece_exchange.h"

using namespace reshardctl;

TEST_CASE("piece exchange: each process's values become every rank's piece") {
  // Ranks 0, 2 and 7 on processes 0, 1, 2; rank 2 holds no piece after the plan.
  const std::vector<int64_t> ranks{0, 2, 7};
  const std::map<int64_t, Box> boxes{{0, Box{{0, 0}, {1, 3}}}, {7, Box{{1, 0}, {3, 2}}}};
  CHECK(exchangeCounts(ranks, boxes) == std::vector<int64_t>{3, 0, 4});

  const std::vector<double> values{1, 2, 3, 10, 11, 12, 13};
  const std::map<int64_t, Piece> pieces = assemblePieces(ranks, boxes, values);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces.at(0).box == boxes.at(0));
  CHECK(pieces.at(0).values == std::vector<double>{1, 2, 3});
  CHECK(pieces.at(7).box == boxes.at(7));
  CHECK(pieces.at(7).values == std::vector<double>{10, 11, 12, 13});
  CHECK_FALSE(pieces.contains(2));
}

TEST_CASE("piece exchange: a scalar piece is one value, an empty box none") {
  const std::vector<int64_t> ranks{0, 1};
  const std::map<int64_t, Box> boxes{{0, Box{{}, {}}}, {1, Box{{2}, {2}}}};
  CHECK(exchangeCounts(ranks, boxes) == std::vector<int64_t>{1, 0});
  const auto pieces = assemblePieces(ranks, boxes, {5.0});
  CHECK(pieces.at(0).values == std::vector<double>{5.0});
  CHECK(pieces.at(1).values.empty());
}

TEST_CASE("piece exchange: values that do not fit the boxes are refused") {
  const std::vector<int64_t> ranks{0, 1};
  const std::map<int64_t, Box> boxes{{0, Box{{0}, {2}}}, {1, Box{{2}, {4}}}};
  CHECK_THROWS_AS(assemblePieces(ranks, boxes, {1, 2, 3}), ExecutionError);
  CHECK_THROWS_AS(assemblePieces(ranks, boxes, {1, 2, 3, 4, 5}), ExecutionError);
}
