#include "reshard/send_recv/piece_grid.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "reshard/mesh_coords.h"

using namespace reshardctl;

namespace {

// The pieces meeting `box` the slow way: every position's box, distinct boxes
// in order of first appearance, those with a non-empty part.
std::vector<Box> meetingByEveryRank(const std::vector<int64_t>& shape, const Layout& layout, const Box& box) {
  std::vector<Box> seen, meeting;
  for (int64_t position = 0; position < layout.mesh.size(); ++position) {
    const Box piece = localBox(shape, layout, meshCoord(layout.mesh, position));
    if (std::find(seen.begin(), seen.end(), piece) != seen.end()) continue;
    seen.push_back(piece);
    if (!intersect(box, piece).empty()) meeting.push_back(piece);
  }
  return meeting;
}

std::vector<Box> meetingByGrid(const PieceGrid& grid, const Box& box) {
  std::vector<Box> meeting;
  grid.forEachMeeting(box, [&](int64_t piece) { meeting.push_back(grid.box(piece)); });
  CHECK(grid.countMeeting(box) == static_cast<int64_t>(meeting.size()));
  return meeting;
}

}  // namespace

TEST_CASE("piece grid: the pieces a box meets, in the order of their first holder, as every rank's box says") {
  const ProcessMesh mesh({2, 3, 2}, {5, 4, 3, 2, 1, 0, 11, 10, 9, 8, 7, 6});
  const std::vector<int64_t> shape{7, 5, 3};
  const std::vector<Placements> layouts{
      {Placement::shard(1), Placement::replicate(), Placement::shard(0)},
      {Placement::replicate(), Placement::shard(0), Placement::replicate()},
      {Placement::shard(2), Placement::shard(0), Placement::shard(1)},
      {Placement::replicate(), Placement::replicate(), Placement::replicate()},
      {Placement::partial(ReduceType::Sum), Placement::shard(2), Placement::replicate()}};
  const std::vector<Box> boxes{fullBox(shape), {{2, 1, 0}, {5, 4, 3}}, {{6, 0, 2}, {7, 5, 3}},
                               {{3, 3, 1}, {3, 5, 3}}, {{0, 4, 0}, {7, 5, 1}}};
  for (const Placements& placements : layouts) {
    const Layout layout{mesh, placements};
    const PieceGrid grid(shape, layout);
    for (const Box& box : boxes) CHECK(meetingByGrid(grid, box) == meetingByEveryRank(shape, layout, box));
  }
}

TEST_CASE("piece grid: each piece's holders, in mesh order; chunks past a short dim's end meet nothing") {
  // Tensor dim 0 (2 rows) over 4 ranks: chunks [0,1), [1,2), then two empty ones.
  const Layout layout{ProcessMesh({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), {Placement::shard(0), Placement::replicate()}};
  const PieceGrid grid({2, 6}, layout);
  CHECK(grid.pieceCount() == 4);
  CHECK(grid.pieceAt(5) == 2);
  const std::span<const int64_t> holders = grid.holders(1);
  CHECK(std::vector<int64_t>(holders.begin(), holders.end()) == std::vector<int64_t>{2, 3});
  CHECK(grid.countMeeting(fullBox({2, 6})) == 2);
  CHECK(grid.countMeeting({{1, 0}, {1, 6}}) == 0);  // an empty box
}
