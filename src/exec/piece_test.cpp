#include "exec/piece.h"

#include <doctest/doctest.h>

using namespace reshardctl;

namespace {

// A piece over `box` whose values are 0, 1, 2, ... in row-major order.
Piece counting(const Box& box) {
  Piece piece = Piece::filled(box, 0.0);
  for (size_t i = 0; i < piece.values.size(); ++i) piece.values[i] = static_cast<double>(i);
  return piece;
}

}  // namespace

TEST_CASE("piece: rows are the runs along the last dim, in row-major order") {
  std::vector<std::pair<std::vector<int64_t>, size_t>> rows;
  forEachRow(Box{{1, 2, 3}, {3, 4, 7}}, [&](const std::vector<int64_t>& start, size_t length) {
    rows.push_back({start, length});
  });
  CHECK(rows == std::vector<std::pair<std::vector<int64_t>, size_t>>{
                    {{1, 2, 3}, 4}, {{1, 3, 3}, 4}, {{2, 2, 3}, 4}, {{2, 3, 3}, 4}});
  rows.clear();
  forEachRow(Box{{}, {}}, [&](const std::vector<int64_t>& start, size_t length) { rows.push_back({start, length}); });
  CHECK(rows.size() == 1);  // a 0-D box is one element
  CHECK(rows.front().second == 1);
  rows.clear();
  forEachRow(Box{{0, 2}, {3, 2}}, [&](const std::vector<int64_t>& start, size_t length) { rows.push_back({start, length}); });
  CHECK(rows.empty());
}

TEST_CASE("piece: extract and assemble agree with element-by-element copies") {
  const Piece whole = counting(Box{{0, 0, 0}, {4, 5, 6}});
  const Box inner{{1, 1, 2}, {3, 4, 5}};
  const Piece part = extractPiece(whole, inner);
  forEachIndex(inner, [&](const std::vector<int64_t>& index) { CHECK(part.at(index) == whole.at(index)); });
  CHECK_THROWS_AS(extractPiece(part, whole.box), ExecutionError);

  // Two halves along the last dim make the whole again; a half twice is refused.
  const Piece left = extractPiece(whole, Box{{0, 0, 0}, {4, 5, 3}});
  const Piece right = extractPiece(whole, Box{{0, 0, 3}, {4, 5, 6}});
  CHECK(assemblePiece(whole.box, {&left, &right}, -1.0, true).values == whole.values);
  CHECK_THROWS_AS(assemblePiece(whole.box, {&left, &left, &right}, -1.0, true), ExecutionError);
  CHECK_THROWS_AS(assemblePiece(whole.box, {&left}, -1.0, true), ExecutionError);
  // Without mustCover the elements no source holds keep the fill.
  const Piece halfFilled = assemblePiece(whole.box, {&left}, -1.0, false);
  CHECK(halfFilled.at({3, 4, 2}) == whole.at({3, 4, 2}));
  CHECK(halfFilled.at({3, 4, 3}) == -1.0);
}
