// The CUDA kernels' index arithmetic (kernel_index.h), run on the host: every
// (block, thread) of the launch the kernel would get, on a GPU of a few or of
// 132 multiprocessors, against box_copy.h's copyBoxHost.
#include "exec/gpu/kernel_index.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "ir/dtype.h"

using namespace reshardctl;
using namespace reshardctl::gpu;

namespace {

struct alignas(16) Unit16 {  // uint4's size and alignment, on the host
  uint32_t words[4];
};

// Runs the copy kernel launchBoxCopy would pick, block by block and thread by
// thread, on host buffers.
template <typename Unit>
void emulateCopy(const BoxCopy& copy, const std::byte* src, std::byte* dst, int sms) {
  const CopyArgs args = makeCopyArgs(copy);
  const int64_t blocks = copyGrid(args, sms);
  const auto* from = reinterpret_cast<const Unit*>(src);
  auto* to = reinterpret_cast<Unit*>(dst);
  for (int64_t block = 0; block < blocks; ++block)
    for (int thread = 0; thread < kThreads; ++thread) {
      if (args.tiled) copyTilesBody(args, from, to, block, blocks, thread);
      else copyElementsBody(args, from, to, block, blocks, thread);
    }
}

// launchBoxCopy's dispatch, on the host.
void emulateLaunchBoxCopy(const BoxCopy& plain, const std::byte* src, std::byte* dst, int sms) {
  if (plain.empty || plain.count() == 0) return;
  const BoxCopy copy = widestCopy(plain, src, dst);
  switch (copy.unitBytes) {
    case 1: return emulateCopy<uint8_t>(copy, src, dst, sms);
    case 2: return emulateCopy<uint16_t>(copy, src, dst, sms);
    case 4: return emulateCopy<uint32_t>(copy, src, dst, sms);
    case 8: return emulateCopy<uint64_t>(copy, src, dst, sms);
    case 16: return emulateCopy<Unit16>(copy, src, dst, sms);
    default: FAIL("no kernel for ", copy.unitBytes, "-byte units");
  }
}

// 16-byte aligned host memory with room for `bytes`.
struct Buffer {
  std::vector<Unit16> storage;
  explicit Buffer(size_t bytes) : storage(bytes / 16 + 1) {}
  std::byte* data() { return reinterpret_cast<std::byte*>(storage.data()); }
};

struct CopyCase {
  std::vector<int64_t> srcShape, srcOrigin, dstShape, dstOrigin, extent;
  int64_t srcBase = 0, dstBase = 0, elem = 4;
};

// Copies `c` with the emulated kernels and with copyBoxHost from the same
// random bytes; true when both destinations are equal byte for byte.
bool kernelsMatchReference(const CopyCase& c, int sms, std::mt19937_64& rng, bool* widened, bool* tiled) {
  const BoxCopy copy =
      makeBoxCopy(c.srcShape, c.srcOrigin, c.srcBase, c.dstShape, c.dstOrigin, c.dstBase, c.extent, c.elem);
  int64_t srcElems = c.srcBase + 1, dstElems = c.dstBase + 1;
  int64_t s = 1, t = 1;
  for (size_t d = 0; d < c.extent.size(); ++d) s *= c.srcShape[d], t *= c.dstShape[d];
  const auto srcBytes = static_cast<size_t>((srcElems + s) * c.elem);
  const auto dstBytes = static_cast<size_t>((dstElems + t) * c.elem);
  Buffer src(srcBytes), expected(dstBytes), got(dstBytes);
  for (size_t i = 0; i < srcBytes; ++i) src.data()[i] = static_cast<std::byte>(rng());
  for (size_t i = 0; i < dstBytes; ++i) expected.data()[i] = got.data()[i] = static_cast<std::byte>(rng());
  copyBoxHost(copy, src.data(), expected.data());
  emulateLaunchBoxCopy(copy, src.data(), got.data(), sms);
  *widened = widestCopy(copy, src.data(), got.data()).unitBytes > copy.unitBytes;
  *tiled = !copy.empty && copy.count() > 0 && makeCopyArgs(widestCopy(copy, src.data(), got.data())).tiled;
  return std::memcmp(expected.data(), got.data(), dstBytes) == 0;
}

}  // namespace

TEST_CASE("kernel index: box copies of random boxes equal copyBoxHost, tiled and not, widened and not") {
  std::mt19937_64 rng(12);
  auto pick = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
  int widened = 0, tiled = 0, plain = 0;
  for (int round = 0; round < 400; ++round) {
    CopyCase c;
    c.elem = std::vector<int64_t>{1, 2, 4, 8}[static_cast<size_t>(pick(0, 3))];
    const auto rank = static_cast<size_t>(pick(0, 4));
    c.srcShape.resize(rank), c.dstShape.resize(rank), c.srcOrigin.resize(rank), c.dstOrigin.resize(rank);
    c.extent.resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      c.extent[d] = pick(0, 12) == 0 ? 0 : pick(1, d + 1 == rank ? 1500 : 5);
      c.srcOrigin[d] = pick(0, 3);
      c.dstOrigin[d] = pick(0, 3);
      c.srcShape[d] = c.srcOrigin[d] + c.extent[d] + pick(0, 3);
      c.dstShape[d] = c.dstOrigin[d] + c.extent[d] + pick(0, 3);
      if (pick(0, 2) == 0) c.srcOrigin[d] = c.dstOrigin[d] = 0, c.srcShape[d] = c.dstShape[d] = c.extent[d];
    }
    c.srcBase = pick(0, 1) == 0 ? 0 : pick(0, 64);
    c.dstBase = pick(0, 1) == 0 ? 0 : pick(0, 64);
    const int sms = pick(0, 3) == 0 ? 132 : static_cast<int>(pick(1, 3));
    bool wide = false, tiles = false;
    const bool equal = kernelsMatchReference(c, sms, rng, &wide, &tiles);
    CHECK_MESSAGE(equal, "round ", round, ", ", c.elem, "-byte elements, ", sms, " SMs");
    widened += wide ? 1 : 0;
    tiled += tiles ? 1 : 0;
    plain += !wide && !tiles ? 1 : 0;
  }
  // Every path of the kernels ran.
  CHECK(widened > 20);
  CHECK(tiled > 20);
  CHECK(plain > 20);
}

TEST_CASE("kernel index: tile edges (rows of exactly, one under and one over a tile) and grids of one block") {
  std::mt19937_64 rng(5);
  for (const int64_t row : {kMinRowForTiles, kTile - 1, kTile, kTile + 1, 3 * kTile + 7})
    for (const int sms : {1, 2, 132}) {
      CopyCase c;
      c.elem = 4;
      c.extent = {5, row};
      c.srcShape = {7, row + 3};
      c.srcOrigin = {1, 2};
      c.dstShape = {5, row};
      c.dstOrigin = {0, 0};
      bool wide = false, tiles = false;
      CHECK_MESSAGE(kernelsMatchReference(c, sms, rng, &wide, &tiles), "row ", row, ", ", sms, " SMs");
      CHECK(tiles);
    }
}

TEST_CASE("kernel index: grids are capped, never empty, and grid-stride loops touch each element once") {
  CHECK(gridFor(0, kThreads, 132) == 1);
  CHECK(gridFor(1, kThreads, 132) == 1);
  CHECK(gridFor(kThreads + 1, kThreads, 132) == 2);
  CHECK(gridFor(int64_t{1} << 40, kThreads, 132) == 132 * kBlocksPerSm);
  CHECK(gridFor(100, 1, 0) == 16);  // no SM count read: one SM's worth
  for (const int64_t count : {int64_t{1}, int64_t{255}, int64_t{4099}, int64_t{70000}})
    for (const int sms : {1, 132}) {
      const int64_t blocks = gridFor(count, kThreads, sms);
      std::vector<int> visits(static_cast<size_t>(count), 0);
      for (int64_t block = 0; block < blocks; ++block)
        for (int thread = 0; thread < kThreads; ++thread)
          gridStride(count, block, blocks, thread, [&](int64_t e) { ++visits[static_cast<size_t>(e)]; });
      CHECK_MESSAGE(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }), count, " on ", sms);
    }
}

TEST_CASE("kernel index: the reduction fix-ups round like the reference for integer and IEEE types") {
  for (const double value : {-7.0, -1.0, 0.0, 1.0, 2.0, 7.0, 100.0}) {
    CHECK(quotientOf(static_cast<int32_t>(value), 3) == roundToDType(value / 3, DType::I32));
    CHECK(quotientOf(static_cast<int64_t>(value), 2) == roundToDType(value / 2, DType::I64));
    CHECK(static_cast<double>(quotientOf(static_cast<float>(value), 3)) == roundToDType(value / 3, DType::F32));
    CHECK(quotientOf(value, 3) == roundToDType(value / 3, DType::F64));
    CHECK(logicalOf(static_cast<int8_t>(value)) == (value != 0 ? 1 : 0));
    if (value >= 0) CHECK(quotientOf(static_cast<uint8_t>(value), 3) == roundToDType(value / 3, DType::U8));
  }
  CHECK(quotientOf(uint64_t{1} << 63, 2) == uint64_t{1} << 62);  // unsigned stays unsigned
}

TEST_CASE("kernel index: the elementwise kernel's operations apply their fix-up to every element once") {
  const std::vector<int32_t> input = {-7, -1, 0, 1, 2, 7, 100};
  auto applied = [&](auto op) {
    std::vector<int32_t> data = input;
    const auto count = static_cast<int64_t>(data.size());
    for (int thread = 0; thread < kThreads; ++thread)  // one block
      gridStride(count, 0, 1, thread, [&](int64_t e) { data[static_cast<size_t>(e)] = op(data[static_cast<size_t>(e)]); });
    return data;
  };
  CHECK(applied(Logical{}) == std::vector<int32_t>{1, 1, 0, 1, 1, 1, 1});
  CHECK(applied(DivideBy{3}) == std::vector<int32_t>{-2, 0, 0, 0, 0, 2, 33});
  CHECK(applied(MultiplyBy{4}) == std::vector<int32_t>{-28, -4, 0, 4, 8, 28, 400});
  CHECK(MultiplyBy{2}(0.75f) == 1.5f);
  CHECK(DivideBy{4}(1.0) == 0.25);
}
