// Element types as device buffers hold them. The executors keep values as
// doubles on the host (piece.h); a GPU backend stores each dtype in its own width,
// so pieces are encoded on upload and decoded on download. Host-only code, so
// the conversions are unit-tested on machines without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/dtype.h"

namespace reshardctl {

// The storage types a device buffer can hold; each has an NCCL datatype.
enum class DeviceType : uint8_t { U8, I8, I32, U32, I64, U64, F16, BF16, F32, F64 };

// Bool is stored as one byte holding 0 or 1 (NCCL has no bool), Index as i64.
// nullopt for types NCCL cannot reduce or this backend does not carry (i16, u16,
// fp8, complex).
std::optional<DeviceType> deviceTypeOf(DType dtype);
int64_t deviceTypeSize(DeviceType type);
std::string_view deviceTypeName(DeviceType type);
bool isDeviceFloat(DeviceType type);

// Writes `count` values as `dtype` (deviceTypeOf(dtype) must exist). Values are
// first rounded like the reference executor rounds results; integers saturate
// instead of wrapping so that the MIN/MAX identities (±2^63 as doubles) stay the
// extreme values of the type.
void encodeValues(DType dtype, const double* values, size_t count, std::byte* out);
void decodeValues(DType dtype, const std::byte* in, size_t count, double* out);

// The bit pattern of one value, for fill kernels that work on raw bits.
uint64_t encodeBits(DType dtype, double value);

// IEEE binary16 and bfloat16 with round-to-nearest-even.
uint16_t floatToHalfBits(float value);
double halfBitsToDouble(uint16_t bits);
uint16_t floatToBf16Bits(float value);
double bf16BitsToDouble(uint16_t bits);

}  // namespace reshardctl
