#include "support/ordered_chunks.h"

#include <doctest/doctest.h>

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace reshardctl {

namespace {

// Piece i: its number and as many letters as i % 7, made slower for some
// indexes so that pieces finish out of order.
void producePiece(size_t index, OutputSink& piece) {
  if (index % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  piece += std::to_string(index);
  piece.append(index % 7, static_cast<char>('a' + index % 26));
  piece += '\n';
}

std::string written(size_t count, unsigned jobs) {
  OutputSink out;
  writePiecesInOrder(count, jobs, out, producePiece);
  return out.take();
}

}  // namespace

TEST_CASE("ordered pieces: any number of threads writes the bytes one thread writes") {
  const std::string serial = written(500, 1);
  CHECK(serial.substr(0, 9) == "0\n1b\n2cc\n");
  for (unsigned jobs : {2u, 3u, 8u, 64u}) CHECK(written(500, jobs) == serial);
  CHECK(written(0, 4).empty());
  CHECK(written(1, 4) == "0\n");
}

TEST_CASE("ordered pieces: at most jobs + 2 pieces are in flight, each handed on whole") {
  std::atomic<size_t> delivered{0};  // pieces: each is as large as the sink's buffer
  OutputSink counting([&](std::string_view bytes) {
    CHECK(bytes.size() == size_t{2} << 20);
    ++delivered;
  });
  std::atomic<size_t> maxAhead{0};
  writePiecesInOrder(200, 3, counting, [&](size_t index, OutputSink& piece) {
    const size_t ahead = index - std::min(index, delivered.load());
    for (size_t seen = maxAhead; ahead > seen && !maxAhead.compare_exchange_weak(seen, ahead);) {}
    piece.append(size_t{2} << 20, 'x');
  });
  CHECK(delivered == 200);
  CHECK(maxAhead <= 4);  // piece i starts once piece i - 5 is written
}

TEST_CASE("ordered pieces: a producer's exception stops the work and reaches the caller") {
  OutputSink out;
  std::atomic<size_t> produced{0};
  auto failing = [&](size_t index, OutputSink& piece) {
    if (index == 40) throw std::runtime_error("piece 40");
    piece += 'x';
    ++produced;
  };
  CHECK_THROWS_WITH(writePiecesInOrder(100000, 4, out, failing), "piece 40");
  CHECK(produced < 100000);  // the others stopped
  CHECK(out.view().size() <= 40);  // nothing after the failed piece was written
}

TEST_CASE("ordered pieces: a failed write stops the work early") {
  OutputSink out(::open("/dev/full", O_WRONLY), "/dev/full", true);  // every write fails (ENOSPC)
  std::atomic<size_t> produced{0};
  writePiecesInOrder(100000, 4, out, [&](size_t, OutputSink& piece) {
    piece.append(size_t{2} << 20, 'x');
    ++produced;
  });
  CHECK(out.failed());
  CHECK(produced < 100);
}

}  // namespace reshardctl
