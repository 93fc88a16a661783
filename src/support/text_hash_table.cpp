#include "support/text_hash_table.h"

#include <chrono>
#include <random>

namespace reshardctl::text_hash_detail {

uint64_t processSeed() {
  uint64_t seed = 0;
  try {
    std::random_device device;
    seed = (uint64_t{device()} << 32) ^ device();
  } catch (...) {
    // No random source: the clock still differs from run to run.
  }
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return fold(seed ^ kOdd1, static_cast<uint64_t>(now) ^ kOdd2);
}

}  // namespace reshardctl::text_hash_detail
