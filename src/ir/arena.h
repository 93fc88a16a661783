// A bump allocator for the IR: ops, operands and values of a million-op
// program are allocated in large chunks and freed together with the Program.
// Nothing allocated here has a destructor that must run (trivially
// destructible objects, or objects whose members own nothing).
#pragma once

#include <cstddef>
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
      size_t size = bytes > kChunkSize ? bytes : kChunkSize;
      // Not zeroed: every object is constructed in place (make/makeArray),
      // and zeroing a 1 MiB chunk per Program dominated runs over many small
      // programs (the differential test).
      chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
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
  static constexpr size_t kChunkSize = 1 << 20;
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  size_t chunkSize_ = 0;
  size_t used_ = 0;
};

}  // namespace reshardctl
