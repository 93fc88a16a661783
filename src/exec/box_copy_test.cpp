#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "exec/box_copy.h"

using namespace reshardctl;

namespace {

std::vector<std::byte> iota(size_t count) {
  std::vector<std::byte> bytes(count);
  for (size_t i = 0; i < count; ++i) bytes[i] = static_cast<std::byte>(i & 0xff);
  return bytes;
}

}  // namespace

TEST_CASE("box copy: contiguous dims merge into one run") {
  // Rows 2..4 of a 6x8 array into a 3x8 array: one run of 24 elements.
  const BoxCopy copy = makeBoxCopy({6, 8}, {2, 0}, 0, {3, 8}, {0, 0}, 0, {3, 8}, 4);
  CHECK(copy.rank == 1);
  CHECK(copy.contiguous());
  CHECK(copy.srcOffset == 16);
  CHECK(copy.count() == 24);
}

TEST_CASE("box copy: a column slice keeps its stride and matches the element-by-element reference") {
  const BoxCopy copy = makeBoxCopy({4, 6}, {1, 2}, 0, {3, 3}, {0, 0}, 0, {3, 3}, 1);
  CHECK(copy.rank == 2);
  CHECK_FALSE(copy.contiguous());
  const std::vector<std::byte> src = iota(24);
  std::vector<std::byte> dst(9);
  copyBoxHost(copy, src.data(), dst.data());
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) CHECK(dst[static_cast<size_t>(r * 3 + c)] == src[static_cast<size_t>((r + 1) * 6 + c + 2)]);
}

TEST_CASE("box copy: padding places a short piece at the start of its block") {
  // A 2x3 piece into block 1 of 3x3 blocks (base 9): rows 9..11 and 12..14.
  const BoxCopy copy = makeBoxCopy({2, 3}, {0, 0}, 0, {3, 3}, {0, 0}, 9, {2, 3}, 2);
  CHECK(copy.contiguous());
  CHECK(copy.dstOffset == 9);
  CHECK(copy.count() == 6);
}

TEST_CASE("box copy: dims of extent 1, empty boxes, 0-D tensors") {
  const BoxCopy column = makeBoxCopy({5, 1, 4}, {0, 0, 1}, 0, {5, 1, 1}, {0, 0, 0}, 0, {5, 1, 1}, 8);
  CHECK(column.rank == 1);
  CHECK(column.srcStride[0] == 4);
  CHECK(column.dstStride[0] == 1);
  CHECK(makeBoxCopy({4}, {4}, 0, {0}, {0}, 0, {0}, 4).empty);
  const BoxCopy scalar = makeBoxCopy({}, {}, 0, {}, {}, 3, {}, 4);
  CHECK(scalar.count() == 1);
  CHECK(scalar.dstOffset == 3);
  CHECK_THROWS_AS(makeBoxCopy({4}, {2}, 0, {4}, {0}, 0, {3}, 4), std::invalid_argument);
}

TEST_CASE("box copy: widening to 16-byte units needs aligned runs, strides and offsets") {
  alignas(16) static std::byte src[4096], dst[4096];
  const BoxCopy rows = makeBoxCopy({8, 16}, {2, 0}, 0, {4, 16}, {0, 0}, 0, {4, 16}, 4);
  const BoxCopy wide = widenBoxCopy(rows, 16, src, dst);
  CHECK(wide.unitBytes == 16);
  CHECK(wide.count() == 16);
  CHECK(wide.srcOffset == 8);
  const BoxCopy strided = makeBoxCopy({8, 16}, {0, 4}, 0, {8, 8}, {0, 0}, 0, {8, 8}, 4);
  const BoxCopy wideStrided = widenBoxCopy(strided, 16, src, dst);
  CHECK(wideStrided.unitBytes == 16);
  CHECK(wideStrided.extent[1] == 2);
  CHECK(wideStrided.srcStride[0] == 4);
  const BoxCopy odd = makeBoxCopy({8, 6}, {0, 1}, 0, {8, 4}, {0, 0}, 0, {8, 4}, 4);
  CHECK(widenBoxCopy(odd, 16, src, dst).unitBytes == 4);
  CHECK(widenBoxCopy(rows, 16, src + 4, dst).unitBytes == 4);
  // The widened copy moves the same bytes.
  std::vector<std::byte> a = iota(8 * 16 * 4), b(8 * 8 * 4), c(8 * 8 * 4);
  std::copy(a.begin(), a.end(), src);
  copyBoxHost(strided, src, b.data());
  copyBoxHost(wideStrided, src, dst);
  std::copy(dst, dst + c.size(), c.begin());
  CHECK(b == c);
}
