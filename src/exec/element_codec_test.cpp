#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "exec/element_codec.h"

using namespace reshardctl;

TEST_CASE("element codec: device types of the dtypes run supports") {
  CHECK(deviceTypeOf(DType::Bool) == DeviceType::U8);
  CHECK(deviceTypeOf(DType::F32) == DeviceType::F32);
  CHECK(deviceTypeOf(DType::BF16) == DeviceType::BF16);
  CHECK(deviceTypeOf(DType::Index) == DeviceType::I64);
  CHECK_FALSE(deviceTypeOf(DType::C64).has_value());
  CHECK_FALSE(deviceTypeOf(DType::I16).has_value());
  CHECK(deviceTypeSize(DeviceType::F16) == 2);
  CHECK(deviceTypeSize(DeviceType::I64) == 8);
}

TEST_CASE("element codec: half and bfloat16 round to nearest even") {
  CHECK(floatToHalfBits(1.0f) == 0x3c00);
  CHECK(floatToHalfBits(-2.0f) == 0xc000);
  CHECK(floatToHalfBits(65504.0f) == 0x7bff);
  CHECK(floatToHalfBits(65520.0f) == 0x7c00);        // rounds to infinity
  CHECK(floatToHalfBits(1.0f + 0x1p-11f) == 0x3c00);  // a tie goes to even
  CHECK(floatToHalfBits(1.0f + 0x1p-11f + 0x1p-20f) == 0x3c01);
  CHECK(floatToHalfBits(0x1p-24f) == 0x0001);         // smallest subnormal
  CHECK(floatToHalfBits(0x1p-25f) == 0x0000);         // a tie with zero goes to zero
  CHECK(halfBitsToDouble(0x0001) == std::ldexp(1.0, -24));
  CHECK(std::isinf(halfBitsToDouble(0xfc00)));
  CHECK(floatToBf16Bits(1.0f) == 0x3f80);
  CHECK(floatToBf16Bits(1.0f + 0x1p-8f) == 0x3f80);  // tie to even
  CHECK(floatToBf16Bits(1.0f + 0x1p-8f + 0x1p-9f) == 0x3f81);
  CHECK(bf16BitsToDouble(0xc040) == -3.0);
}

TEST_CASE("element codec: a round trip gives what the reference's rounding gives") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> value(-70000.0, 70000.0);
  for (const DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I32, DType::I64, DType::I8, DType::U8,
                            DType::Bool}) {
    CAPTURE(dtypeName(dtype));
    std::vector<double> values(500);
    for (double& v : values) v = dtype == DType::I8 ? std::trunc(value(rng) / 1000) : value(rng);
    if (dtype == DType::U8) for (double& v : values) v = std::trunc(std::abs(v) / 1000);
    std::vector<std::byte> bytes(values.size() * static_cast<size_t>(deviceTypeSize(*deviceTypeOf(dtype))));
    encodeValues(dtype, values.data(), values.size(), bytes.data());
    std::vector<double> back(values.size());
    decodeValues(dtype, bytes.data(), back.size(), back.data());
    for (size_t i = 0; i < values.size(); ++i) CHECK(back[i] == roundToDType(values[i], dtype));
  }
}

TEST_CASE("element codec: integer identities saturate instead of wrapping") {
  double lowest = dtypeLowest(DType::I64), highest = dtypeHighest(DType::I64);
  std::byte bytes[16];
  double both[2] = {lowest, highest};
  encodeValues(DType::I64, both, 2, bytes);
  double back[2];
  decodeValues(DType::I64, bytes, 2, back);
  CHECK(back[0] == lowest);
  CHECK(back[1] == highest);
  CHECK(encodeBits(DType::I32, dtypeHighest(DType::I32)) == 0x7fffffffu);
  CHECK(encodeBits(DType::F16, -std::numeric_limits<double>::infinity()) == 0xfc00u);
}
