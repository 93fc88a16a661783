#include "interp/tolerance.h"

#include <cmath>

namespace reshardctl {

Tolerance toleranceFor(DType dtype, std::optional<double> rtol, std::optional<double> atol) {
  Tolerance t;
  switch (dtype) {
    case DType::F64:
    case DType::C128: t = {1e-9, 1e-12}; break;
    case DType::F32:
    case DType::C64: t = {1e-5, 1e-6}; break;
    case DType::F16: t = {1e-3, 1e-4}; break;
    case DType::BF16: t = {1e-2, 1e-3}; break;
    case DType::F8E4M3:
    case DType::F8E5M2: t = {1e-1, 1e-2}; break;
    default: t = {0, 0}; break;  // integers and bool are exact in double
  }
  if (rtol) t.rtol = *rtol;
  if (atol) t.atol = *atol;
  return t;
}

bool withinTolerance(double actual, double expected, const Tolerance& tolerance) {
  if (actual == expected) return true;  // equal infinities too
  if (std::isnan(actual) || std::isnan(expected)) return std::isnan(actual) && std::isnan(expected);
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

}  // namespace reshardctl
