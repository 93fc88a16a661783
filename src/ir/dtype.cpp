#include "ir/dtype.h"

#include <array>
#include <cmath>
#include <limits>

namespace reshardctl {

namespace {

enum class Family : uint8_t { Bool, Signed, Unsigned, Float, Complex };

struct DTypeInfo {
  DType type;
  std::string_view pirName;
  std::string_view paddleName;
  int64_t size;
  Family family;
  // Floating formats: significand bits (with the implicit one), the smallest
  // normal exponent in frexp's convention, the largest finite value.
  int precision = 0;
  int minExponent = 0;
  double maxFinite = 0;
};

constexpr double kFloatMax = 3.4028234663852886e38;
constexpr double kBf16Max = 3.3895313892515355e38;

constexpr std::array<DTypeInfo, 18> kInfos = {{
    {DType::Bool, "b", "bool", 1, Family::Bool},
    {DType::I8, "i8", "int8", 1, Family::Signed},
    {DType::U8, "u8", "uint8", 1, Family::Unsigned},
    {DType::I16, "i16", "int16", 2, Family::Signed},
    {DType::U16, "u16", "uint16", 2, Family::Unsigned},
    {DType::I32, "i32", "int32", 4, Family::Signed},
    {DType::U32, "u32", "uint32", 4, Family::Unsigned},
    {DType::I64, "i64", "int64", 8, Family::Signed},
    {DType::U64, "u64", "uint64", 8, Family::Unsigned},
    {DType::F8E4M3, "f8e4m3fn", "float8_e4m3fn", 1, Family::Float, 4, -5, 448.0},
    {DType::F8E5M2, "f8e5m2", "float8_e5m2", 1, Family::Float, 3, -13, 57344.0},
    {DType::BF16, "bf16", "bfloat16", 2, Family::Float, 8, -125, kBf16Max},
    {DType::F16, "f16", "float16", 2, Family::Float, 11, -13, 65504.0},
    {DType::F32, "f32", "float32", 4, Family::Float, 24, -125, kFloatMax},
    {DType::F64, "f64", "float64", 8, Family::Float, 53, -1021,
     std::numeric_limits<double>::max()},
    {DType::C64, "c64", "complex64", 8, Family::Complex, 24, -125, kFloatMax},
    {DType::C128, "c128", "complex128", 16, Family::Complex, 53, -1021,
     std::numeric_limits<double>::max()},
    {DType::Index, "index", "index", 8, Family::Signed},
}};

const DTypeInfo& info(DType type) { return kInfos[static_cast<size_t>(type)]; }

double roundToPrecision(double value, const DTypeInfo& format) {
  if (!std::isfinite(value) || value == 0.0) return value;
  int exponent = 0;
  std::frexp(value, &exponent);
  // Below the normal range the spacing stays that of the smallest normal binade.
  const int scaleExponent = format.precision - std::max(exponent, format.minExponent);
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(value, scaleExponent)), -scaleExponent);
  if (std::fabs(rounded) > format.maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

double wrapInteger(double value, int64_t bytes, bool isSigned) {
  const double truncated = std::trunc(value);
  if (bytes >= 8 || !std::isfinite(truncated)) return truncated;  // beyond double's exact range
  const double modulus = std::ldexp(1.0, static_cast<int>(bytes * 8));
  double wrapped = std::fmod(truncated, modulus);
  if (wrapped < 0) wrapped += modulus;
  if (isSigned && wrapped >= modulus / 2) wrapped -= modulus;
  return wrapped;
}

}  // namespace

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo& entry : kInfos)
    if (entry.pirName == name || entry.paddleName == name) return entry.type;
  return std::nullopt;
}

std::string_view dtypeName(DType type) { return info(type).pirName; }
std::string_view dataTypeName(DType type) { return info(type).paddleName; }
int64_t dtypeSize(DType type) { return info(type).size; }
bool isFloating(DType type) { return info(type).family == Family::Float; }
bool isComplex(DType type) { return info(type).family == Family::Complex; }

bool isUnsigned(DType type) {
  const Family family = info(type).family;
  return family == Family::Unsigned || family == Family::Bool;
}

double roundToDType(double value, DType type) {
  const DTypeInfo& format = info(type);
  switch (format.family) {
    case Family::Bool: return value != 0.0 ? 1.0 : 0.0;
    case Family::Signed: return wrapInteger(value, format.size, true);
    case Family::Unsigned: return wrapInteger(value, format.size, false);
    case Family::Float:
    case Family::Complex: return roundToPrecision(value, format);
  }
  return value;
}

double dtypeLowest(DType type) {
  const DTypeInfo& format = info(type);
  switch (format.family) {
    case Family::Signed: return -std::ldexp(1.0, static_cast<int>(format.size * 8 - 1));
    case Family::Bool:
    case Family::Unsigned: return 0.0;
    case Family::Float:
    case Family::Complex: return -std::numeric_limits<double>::infinity();
  }
  return 0.0;
}

double dtypeHighest(DType type) {
  const DTypeInfo& format = info(type);
  switch (format.family) {
    case Family::Bool: return 1.0;
    case Family::Signed: return std::ldexp(1.0, static_cast<int>(format.size * 8 - 1)) - 1.0;
    case Family::Unsigned: return std::ldexp(1.0, static_cast<int>(format.size * 8)) - 1.0;
    case Family::Float:
    case Family::Complex: return std::numeric_limits<double>::infinity();
  }
  return 0.0;
}

}  // namespace reshardctl
