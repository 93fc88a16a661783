// The MPI ProcessGroup (src/exec/multiprocess/mpi_world.cpp) under mpirun -np 3, without a
// GPU: the collectives `run --backend nccl` relies on, the all-to-all and point to point
// messages of the ranks shared out (validate, run --backend cpu), the destination-piece
// exchange end to end, and abort ending every process. Run by ctest
// (tests/mpi_tests.cmake):
//   mpi_world_check collectives   exit 0, process 0 prints "mpi_world_check: ok"
//   mpi_world_check abort         process 1 aborts while the others wait: exit 3
#include <cstdio>
#include <numeric>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/piece_exchange.h"
#include "exec/multiprocess/process_group.h"

using namespace reshardctl;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, int rank) {
  if (ok) return;
  std::fprintf(stderr, "mpi_world_check: process %d: FAIL %s\n", rank, what.c_str());
  ++failures;
}

// Ranks 0, 3, 5 on processes 0, 1, 2; rank 3 holds rows [1, 3) of a 3x4
// tensor whose element (r, c) is 10r + c, rank 0 row 0, rank 5 nothing.
void checkPieceExchange(ProcessGroup& group) {
  const std::vector<int64_t> ranks{0, 3, 5};
  const std::map<int64_t, Box> boxes{{0, Box{{0, 0}, {1, 4}}}, {3, Box{{1, 0}, {3, 4}}}};
  auto valuesOf = [](const Box& box) {
    std::vector<double> values;
    forEachIndex(box, [&](const std::vector<int64_t>& at) { values.push_back(static_cast<double>(10 * at[0] + at[1])); });
    return values;
  };
  const int64_t mine = rankOfProcess(ranks, group.rank());
  const std::vector<double> own = boxes.contains(mine) ? valuesOf(boxes.at(mine)) : std::vector<double>{};
  const auto pieces = assemblePieces(ranks, boxes, group.allGatherValues(own, exchangeCounts(ranks, boxes)));
  expect(pieces.size() == 2, "two pieces after the exchange", group.rank());
  for (const auto& [id, box] : boxes)
    expect(pieces.contains(id) && pieces.at(id).values == valuesOf(box), fmt::format("rank {}'s piece", id), group.rank());
}

void checkCollectives(ProcessGroup& group) {
  const int me = group.rank();
  expect(group.size() == 3, "three processes", me);
  expect(group.localRank() >= 0 && group.localRank() < group.size(), "a local rank", me);
  expect(group.allGather(me * 10) == std::vector<int>{0, 10, 20}, "allGather(int)", me);
  const std::vector<std::string> texts = group.allGather(me == 1 ? std::string("no GPU") : std::string());
  expect(texts == std::vector<std::string>{"", "no GPU", ""}, "allGather(text)", me);
  expect(firstProblem(texts) == "process 1: no GPU", "the agreed problem", me);
  std::vector<std::byte> id(128, std::byte{0});
  if (me == 1)
    for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::byte>(i * 7 % 256);
  group.broadcast(id, 1);
  expect(id[127] == static_cast<std::byte>(127 * 7 % 256) && id[5] == std::byte{35}, "broadcast from process 1", me);
  expect(group.max(me == 2 ? 0.5 : 0.25) == 0.5, "max", me);
  checkPieceExchange(group);
  // All to all: process p sends process q (q + 1) copies of 10p + q; process 1 sends 2 nothing.
  std::vector<std::vector<double>> toEach(3);
  for (int q = 0; q < 3; ++q)
    if (!(me == 1 && q == 2)) toEach[static_cast<size_t>(q)].assign(static_cast<size_t>(q + 1), 10.0 * me + q);
  const std::vector<std::vector<double>> fromEach = group.allToAll(toEach);
  expect(fromEach.size() == 3, "allToAll: one entry per process", me);
  for (int p = 0; p < 3 && fromEach.size() == 3; ++p) {
    const std::vector<double> wanted =
        p == 1 && me == 2 ? std::vector<double>{} : std::vector<double>(static_cast<size_t>(me + 1), 10.0 * p + me);
    expect(fromEach[static_cast<size_t>(p)] == wanted, fmt::format("allToAll: what process {} sent", p), me);
  }
  // Point to point: processes 1 and 2 each send two messages to 0, which
  // reads them by sender, in the order each sent them (the empty one too).
  if (me == 0) {
    expect(group.receive(2) == std::vector<double>{2.5}, "the first message from process 2", me);
    expect(group.receive(1) == std::vector<double>{1, 2, 3}, "the first message from process 1", me);
    expect(group.receive(1).empty(), "the empty message from process 1", me);
    expect(group.receive(2) == std::vector<double>(100000, 7.0), "the large message from process 2", me);
  } else if (me == 1) {
    group.send({1, 2, 3}, 0);
    group.send({}, 0);
  } else {
    group.send({2.5}, 0);
    group.send(std::vector<double>(100000, 7.0), 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "collectives";
  std::string error;
  std::unique_ptr<ProcessGroup> group = startProcessGroup(&error);
  if (!group) {
    std::fprintf(stderr, "mpi_world_check: %s\n", error.c_str());
    return 1;
  }
  if (mode == "abort") {
    // The others wait in a collective process 1 never joins: only abort ends them.
    if (group->rank() == 1) group->abort("abort test", 3);
    group->allGather(0);
    std::fprintf(stderr, "mpi_world_check: process %d: FAIL the collective returned\n", group->rank());
    return 1;
  }
  checkCollectives(*group);
  const std::vector<int> all = group->allGather(failures);
  const int failed = std::accumulate(all.begin(), all.end(), 0);
  if (group->rank() == 0 && failed == 0) std::fprintf(stderr, "mpi_world_check: ok\n");
  return failed == 0 ? 0 : 1;
}
