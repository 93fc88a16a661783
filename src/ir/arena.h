// A bump allocator for the IR: ops, operands and values of a million-op
// program are allocated in large chunks and freed together with the Program.
// Nothing allocated here has a destructor that must run (trivially
// destructible objects, or objects whose members own nothing).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace reshardctl {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(size_t bytes, size_t align) {
    size_t offset = (used_ + align - 1) & ~(align - 1);
    if (chunks_.empty() || offset + bytes > chunkSize_) {
      size_t size = std::max(bytes, nextChunkSize());
      chunks_.push_back(allocateChunk(size));
      chunkSize_ = size;
      offset = 0;
    }
    used_ = offset + bytes;
    return chunks_.back().get() + offset;
  }

  // Constructs `count` default-initialised T in place.
  template <typename T>
  T* makeArray(size_t count) {
    static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
    if (count == 0) return nullptr;
    T* items = static_cast<T*>(allocate(sizeof(T) * count, alignof(T)));
    for (size_t i = 0; i < count; ++i) new (items + i) T();
    return items;
  }

  template <typename T, typename... Args>
  T* make(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
    return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

 private:
  struct Free {
    void operator()(std::byte* chunk) const { std::free(chunk); }
  };
  using Chunk = std::unique_ptr<std::byte[], Free>;

  // Chunks double from 64 KiB to 32 MiB: a small program stays small, a
  // million-op one makes few chunks.
  static constexpr size_t kFirstChunk = size_t{1} << 16;
  static constexpr size_t kLargestChunk = size_t{1} << 25;
  static constexpr size_t kHugePage = size_t{1} << 21;

  size_t nextChunkSize() const {
    return chunks_.empty() ? kFirstChunk : std::min(kLargestChunk, chunkSize_ * 2);
  }

  // Uninitialised (the kernel's zero pages are touched once, by the first
  // write). Chunks of whole huge pages ask for them: a million-op program
  // then takes a few hundred page faults instead of ~100k.
  static Chunk allocateChunk(size_t size) {
    void* memory = nullptr;
    if (size % kHugePage == 0) {
      memory = std::aligned_alloc(kHugePage, size);
      if (memory) ::madvise(memory, size, MADV_HUGEPAGE);
    } else {
      memory = std::malloc(size);
    }
    if (!memory) throw std::bad_alloc();
    return Chunk(static_cast<std::byte*>(memory));
  }

  std::vector<Chunk> chunks_;
  size_t chunkSize_ = 0;
  size_t used_ = 0;
};

}  // namespace reshardctl
