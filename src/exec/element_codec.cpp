#include "exec/element_codec.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace reshardctl {

namespace {

template <typename Int>
Int saturate(double value) {
  constexpr double low = static_cast<double>(std::numeric_limits<Int>::lowest());
  // max() as a double rounds up to a power of two for 64-bit types, so compare
  // with >= and return max() itself.
  constexpr double high = static_cast<double>(std::numeric_limits<Int>::max());
  if (std::isnan(value)) return 0;
  if (value <= low) return std::numeric_limits<Int>::lowest();
  if (value >= high) return std::numeric_limits<Int>::max();
  return static_cast<Int>(value);
}

template <typename T>
void store(std::byte* out, size_t index, T value) {
  std::memcpy(out + index * sizeof(T), &value, sizeof(T));
}

template <typename T>
T load(const std::byte* in, size_t index) {
  T value;
  std::memcpy(&value, in + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

std::optional<DeviceType> deviceTypeOf(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::U8: return DeviceType::U8;
    case DType::I8: return DeviceType::I8;
    case DType::I32: return DeviceType::I32;
    case DType::U32: return DeviceType::U32;
    case DType::I64:
    case DType::Index: return DeviceType::I64;
    case DType::U64: return DeviceType::U64;
    case DType::F16: return DeviceType::F16;
    case DType::BF16: return DeviceType::BF16;
    case DType::F32: return DeviceType::F32;
    case DType::F64: return DeviceType::F64;
    default: return std::nullopt;
  }
}

int64_t deviceTypeSize(DeviceType type) {
  switch (type) {
    case DeviceType::U8:
    case DeviceType::I8: return 1;
    case DeviceType::F16:
    case DeviceType::BF16: return 2;
    case DeviceType::I32:
    case DeviceType::U32:
    case DeviceType::F32: return 4;
    case DeviceType::I64:
    case DeviceType::U64:
    case DeviceType::F64: return 8;
  }
  return 1;
}

std::string_view deviceTypeName(DeviceType type) {
  switch (type) {
    case DeviceType::U8: return "u8";
    case DeviceType::I8: return "i8";
    case DeviceType::I32: return "i32";
    case DeviceType::U32: return "u32";
    case DeviceType::I64: return "i64";
    case DeviceType::U64: return "u64";
    case DeviceType::F16: return "f16";
    case DeviceType::BF16: return "bf16";
    case DeviceType::F32: return "f32";
    case DeviceType::F64: return "f64";
  }
  return "?";
}

bool isDeviceFloat(DeviceType type) {
  return type == DeviceType::F16 || type == DeviceType::BF16 || type == DeviceType::F32 || type == DeviceType::F64;
}

uint16_t floatToHalfBits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) return static_cast<uint16_t>(sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (magnitude < 0x38800000u) {
    // Below 2^-14 the result is subnormal: a multiple of 2^-24. Scaling by 2^24
    // is exact in float, and nearbyint rounds to nearest even; 1024 lands on the
    // smallest normal, whose encoding is the same integer.
    const float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  const uint32_t exponent = (magnitude >> 23) - 127u + 15u;
  const uint32_t mantissa = magnitude & 0x7fffffu;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) ++half;  // a carry moves into the exponent
  return static_cast<uint16_t>(sign | half);
}

double halfBitsToDouble(uint16_t bits) {
  const double sign = (bits & 0x8000u) != 0 ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

uint16_t floatToBf16Bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

double bf16BitsToDouble(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

void encodeValues(DType dtype, const double* values, size_t count, std::byte* out) {
  const DeviceType type = *deviceTypeOf(dtype);
  for (size_t i = 0; i < count; ++i) {
    // Floats: roundToDType gives a value the type holds exactly, so the
    // narrowing below is exact. Integers: truncate toward zero like the
    // reference, then saturate (see the header).
    const double value = isFloating(dtype) ? roundToDType(values[i], dtype)
                         : dtype == DType::Bool ? (values[i] != 0.0 ? 1.0 : 0.0)
                                                : std::trunc(values[i]);
    switch (type) {
      case DeviceType::U8: store(out, i, saturate<uint8_t>(value)); break;
      case DeviceType::I8: store(out, i, saturate<int8_t>(value)); break;
      case DeviceType::I32: store(out, i, saturate<int32_t>(value)); break;
      case DeviceType::U32: store(out, i, saturate<uint32_t>(value)); break;
      case DeviceType::I64: store(out, i, saturate<int64_t>(value)); break;
      case DeviceType::U64: store(out, i, saturate<uint64_t>(value)); break;
      case DeviceType::F16: store(out, i, floatToHalfBits(static_cast<float>(value))); break;
      case DeviceType::BF16: store(out, i, floatToBf16Bits(static_cast<float>(value))); break;
      case DeviceType::F32: store(out, i, static_cast<float>(value)); break;
      case DeviceType::F64: store(out, i, value); break;
    }
  }
}

void decodeValues(DType dtype, const std::byte* in, size_t count, double* out) {
  const DeviceType type = *deviceTypeOf(dtype);
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
      case DeviceType::U8: out[i] = load<uint8_t>(in, i); break;
      case DeviceType::I8: out[i] = load<int8_t>(in, i); break;
      case DeviceType::I32: out[i] = load<int32_t>(in, i); break;
      case DeviceType::U32: out[i] = load<uint32_t>(in, i); break;
      case DeviceType::I64: out[i] = static_cast<double>(load<int64_t>(in, i)); break;
      case DeviceType::U64: out[i] = static_cast<double>(load<uint64_t>(in, i)); break;
      case DeviceType::F16: out[i] = halfBitsToDouble(load<uint16_t>(in, i)); break;
      case DeviceType::BF16: out[i] = bf16BitsToDouble(load<uint16_t>(in, i)); break;
      case DeviceType::F32: out[i] = load<float>(in, i); break;
      case DeviceType::F64: out[i] = load<double>(in, i); break;
    }
    if (dtype == DType::Bool) out[i] = out[i] != 0.0 ? 1.0 : 0.0;
  }
}

uint64_t encodeBits(DType dtype, double value) {
  std::byte bytes[8] = {};
  encodeValues(dtype, &value, 1, bytes);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, sizeof(bits));  // little-endian: the low bytes hold the value
  return bits;
}

}  // namespace reshardctl
