#include "exec/multiprocess/shared_execution.h"

#include <doctest/doctest.h>

using namespace reshardctl;

TEST_CASE("shared execution: pieces survive packing, 0-D and empty ones included") {
  std::vector<double> stream;
  const Piece matrix{Box{{1, 0}, {3, 2}}, {1, 2, 3, 4.5}};
  const Piece scalar{Box{{}, {}}, {7}};
  const Piece empty{Box{{0}, {0}}, {}};
  packPiece(4, matrix, stream);
  packPiece(0, scalar, stream);
  packPiece(9, empty, stream);
  const std::map<int64_t, Piece> pieces = unpackPieces(stream);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces.at(4).box == matrix.box);
  CHECK(pieces.at(4).values == matrix.values);
  CHECK(pieces.at(0).values == std::vector<double>{7});
  CHECK(pieces.at(9).values.empty());
}

TEST_CASE("shared execution: a malformed stream is an error, not a crash") {
  std::vector<double> stream;
  packPiece(2, Piece{Box{{0}, {3}}, {1, 2, 3}}, stream);
  for (size_t cut = 1; cut < stream.size(); ++cut) {  // every truncation
    const std::vector<double> truncated(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(cut));
    CHECK_THROWS_AS(unpackPieces(truncated), ExecutionError);
  }
  CHECK_THROWS_AS(unpackPieces({-1}), ExecutionError);
  CHECK_THROWS_AS(unpackPieces({1, 1e30}), ExecutionError);
  CHECK_THROWS_AS(unpackPieces({1, 0.5}), ExecutionError);
}
