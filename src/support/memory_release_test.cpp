#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "support/memory_release.h"

namespace reshardctl {

namespace {

// Resident bytes of this process (/proc/self/statm's second field).
size_t residentBytes() {
  FILE* statm = std::fopen("/proc/self/statm", "r");
  REQUIRE(statm);
  unsigned long size = 0, resident = 0;
  REQUIRE(std::fscanf(statm, "%lu %lu", &size, &resident) == 2);
  std::fclose(statm);
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_CASE("memory release: many small blocks freed leave the process once released") {
#if defined(__GLIBC__)
  // 64 MiB in blocks below malloc's mmap threshold: freed, they stay in its
  // heap; released, their pages go back (a block kept between them, as a
  // graph's survivors are, does not hold the pages around it).
  constexpr size_t kBlocks = 16384, kBlock = 4096;
  std::vector<std::unique_ptr<char[]>> blocks(kBlocks);
  for (auto& block : blocks) {
    block.reset(new char[kBlock]);
    for (size_t i = 0; i < kBlock; i += 512) block[i] = 1;
  }
  for (size_t i = 0; i < kBlocks; ++i)
    if (i % 1024 != 0) blocks[i].reset();
  const size_t freed = residentBytes();
  releaseFreedMemory();
  CHECK(residentBytes() + (size_t{32} << 20) < freed);
#endif
}

}  // namespace reshardctl
