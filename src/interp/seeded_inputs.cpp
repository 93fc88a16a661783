#include "interp/seeded_inputs.h"

#include <random>

namespace reshardctl {

static_assert(kIntegerInputValues == 4, "bits >> 62 gives 0..3");

namespace {

// FNV-1a: a stable hash of the name (std::hash may differ between builds).
uint64_t nameHash(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace

Tensor seededTensor(const Shape& shape, DType dtype, uint64_t seed, std::string_view name, bool logical) {
  std::mt19937_64 rng(nameHash(name) ^ (seed * 0x9E3779B97F4A7C15ull));
  Tensor t = Tensor::filled(shape, 0.0, dtype);
  const bool floating = isFloating(dtype) || isComplex(dtype);
  for (double& v : t.data) {
    const uint64_t bits = rng();
    if (dtype == DType::Bool || logical) v = static_cast<double>(bits >> 63);
    else if (!floating) v = static_cast<double>(bits >> 62);  // 0 .. kIntegerInputValues-1
    else v = static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;  // [-1, 1), exact in every float type's range
  }
  return t;
}

}  // namespace reshardctl
