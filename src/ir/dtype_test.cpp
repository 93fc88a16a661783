#include "ir/dtype.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace reshardctl;

TEST_CASE("dtype: PIR and Paddle spellings parse to the same type") {
  CHECK(parseDType("f32") == DType::F32);
  CHECK(parseDType("float32") == DType::F32);
  CHECK(parseDType("b") == DType::Bool);
  CHECK(parseDType("bool") == DType::Bool);
  CHECK(parseDType("bf16") == DType::BF16);
  CHECK(parseDType("bfloat16") == DType::BF16);
  CHECK(parseDType("c128") == DType::C128);
  CHECK(parseDType("f8e4m3fn") == DType::F8E4M3);
  CHECK_FALSE(parseDType("f33").has_value());
  CHECK(dtypeName(*parseDType("int64")) == "i64");
}

TEST_CASE("dtype: element sizes") {
  CHECK(dtypeSize(DType::Bool) == 1);
  CHECK(dtypeSize(DType::F16) == 2);
  CHECK(dtypeSize(DType::BF16) == 2);
  CHECK(dtypeSize(DType::F32) == 4);
  CHECK(dtypeSize(DType::I64) == 8);
  CHECK(dtypeSize(DType::C64) == 8);
  CHECK(dtypeSize(DType::C128) == 16);
}

TEST_CASE("dtype: results round to the element type") {
  // f16 has 11 significant bits: 2049 lies halfway between 2048 and 2050 and
  // rounds to the even one; 2051 rounds up.
  CHECK(roundToDType(2049.0, DType::F16) == 2048.0);
  CHECK(roundToDType(2051.0, DType::F16) == 2052.0);
  CHECK(std::isinf(roundToDType(70000.0, DType::F16)));
  CHECK(roundToDType(257.0, DType::BF16) == 256.0);
  CHECK(roundToDType(1.0 + std::ldexp(1.0, -30), DType::F32) == 1.0);
  CHECK(roundToDType(130.0, DType::I8) == -126.0);
  CHECK(roundToDType(-1.0, DType::U8) == 255.0);
  CHECK(roundToDType(-7.5, DType::I32) == -7.0);
  CHECK(roundToDType(5.0, DType::Bool) == 1.0);
  CHECK(dtypeLowest(DType::I8) == -128.0);
  CHECK(dtypeHighest(DType::U8) == 255.0);
}
