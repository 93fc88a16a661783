// Element types of distributed tensors: the names PIR prints inside tensor types
// (`f32`, `bf16`, `b`, ...), their sizes in bytes, and the value range the CPU
// reference executor has to respect when it rounds a result to the element type.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace reshardctl {

enum class DType : uint8_t {
  Bool, I8, U8, I16, U16, I32, U32, I64, U64,
  F8E4M3, F8E5M2, BF16, F16, F32, F64, C64, C128, Index,
};

// Accepts PIR type spellings (`f32`, `b`, `c64`, `index`, `f8e4m3fn`) and Paddle
// DataType names (`float32`, `bool`, `bfloat16`), which appear in attributes.
std::optional<DType> parseDType(std::string_view name);
std::string_view dtypeName(DType type);  // the PIR spelling
std::string_view dataTypeName(DType type);  // Paddle's DataType name (`float32`), as attributes print it
int64_t dtypeSize(DType type);           // bytes per element

bool isFloating(DType type);  // real floating point, fp8 included
bool isComplex(DType type);
bool isUnsigned(DType type);  // unsigned integers; bool counts as unsigned

// The value a result of type `type` holds after an operation computed `value` in
// double: integers truncate toward zero and wrap, floats round to nearest even at
// their mantissa width, bool is `value != 0`. Complex types keep only the real part
// in the executor (documented there), rounded like their component type.
double roundToDType(double value, DType type);

// The smallest and largest values of the type (-inf and +inf for floats): the
// identities of MAX and MIN.
double dtypeLowest(DType type);
double dtypeHighest(DType type);

}  // namespace reshardctl
