// A hash table keyed by text, for the tables a parse fills with every op:
// interned strings, types by their text, op_dist_attr values by their text.
// Open addressing in one flat array of (hash, key, value): a lookup reads one
// slot (two where slots collide) and compares the text only when the whole
// 64-bit hash agrees, where a node-based std::unordered_map reads a bucket, a
// node and the text, and allocates a node per entry. The hash (hashText)
// reads 16 bytes a step with one multiplication, where std::hash's Murmur
// reads 8 with two.
//
// Keys are views: the text must outlive the table (the callers key by
// interned or arena text). Nothing is ever erased. Memory: at most two slots
// of 24 bytes + sizeof(Value) (padded to 8) per entry (the table doubles at half full).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace reshardctl {

namespace text_hash_detail {

inline uint64_t load64(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}
inline uint64_t load32(const char* p) {
  uint32_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}
// The high and low halves of the 128-bit product folded: every bit of both
// factors reaches every bit of the result.
__extension__ typedef unsigned __int128 Wide;  // GCC and Clang on 64-bit targets
inline uint64_t fold(uint64_t a, uint64_t b) {
  const Wide product = static_cast<Wide>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}
constexpr uint64_t kOdd1 = 0x9e3779b97f4a7c15ull;  // odd constants with mixed bits
constexpr uint64_t kOdd2 = 0xc2b2ae3d27d4eb4full;
constexpr uint64_t kOdd3 = 0x165667b19e3779f9ull;

// This process's hash seed, drawn once from the system's random source.
// Input is untrusted: with a fixed hash, texts chosen to share a slot offline
// would make every lookup of a parse walk one long run (quadratic work); a
// seed unknown to the input's author leaves that to chance. Nothing the tool
// prints depends on the seed (no table's order reaches output).
uint64_t processSeed();

}  // namespace text_hash_detail

// A 64-bit hash of `text` (seeded per process: compare hashes only within
// one run): 16 bytes a step, the last 1..16 bytes read as two (overlapping)
// words, the length folded in.
inline uint64_t hashText(std::string_view text) {
  using namespace text_hash_detail;
  static const uint64_t seed = processSeed();
  const char* p = text.data();
  size_t n = text.size();
  uint64_t h = (kOdd3 ^ seed) ^ (n * kOdd1);
  while (n > 16) {
    h = fold(load64(p) ^ kOdd1, load64(p + 8) ^ h);
    p += 16;
    n -= 16;
  }
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = load64(p);
    b = load64(p + n - 8);
  } else if (n >= 4) {
    a = load32(p);
    b = load32(p + n - 4);
  } else if (n > 0) {
    a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
  }
  return fold(fold(a ^ kOdd2, b ^ h) ^ kOdd1, h ^ kOdd2);
}

template <typename Value>
class TextHashTable {
 public:
  // An entry: the key as stored, its value. hash 0 marks a free slot
  // (stored() never gives 0).
  struct Slot {
    uint64_t hash = 0;
    std::string_view key;
    Value value{};
    bool used() const { return hash != 0; }
  };

  // The entry for `key` (hash: hashText(key)), or nullptr.
  const Slot* findSlot(std::string_view key, uint64_t hash) const {
    if (slots_.empty()) return nullptr;
    hash = stored(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (!slot.used()) return nullptr;
      if (slot.hash == hash && slot.key == key) return &slot;
    }
  }
  // The value stored for `key`, or nullptr.
  const Value* find(std::string_view key) const { return find(key, hashText(key)); }
  const Value* find(std::string_view key, uint64_t hash) const {
    const Slot* slot = findSlot(key, hash);
    return slot ? &slot->value : nullptr;
  }

  // Adds `key` → `value` unless `key` is there; returns the stored key and
  // value (the earlier ones when it was) and whether it was added.
  struct Entry {
    std::string_view key;
    Value& value;
    bool added;
  };
  Entry insert(std::string_view key, Value value) { return insert(key, hashText(key), std::move(value)); }
  Entry insert(std::string_view key, uint64_t hash, Value value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    hash = stored(hash);
    size_t i = hash & mask_;
    for (; slots_[i].used(); i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.hash == hash && slot.key == key) return {slot.key, slot.value, false};
    }
    Slot& slot = slots_[i];
    slot = Slot{hash, key, std::move(value)};
    ++size_;
    return {slot.key, slot.value, true};
  }

  size_t size() const { return size_; }
  void reserve(size_t entries) {
    while (entries * 2 > slots_.size()) grow();
  }

  // Calls visit(key, value) for every entry, in no particular order.
  template <typename Visit>
  void forEach(Visit visit) const {
    for (const Slot& slot : slots_)
      if (slot.used()) visit(slot.key, slot.value);
  }

 private:
  static uint64_t stored(uint64_t hash) { return hash ? hash : 1; }

  void grow() {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.empty() ? 64 : slots_.size() * 2));
    mask_ = slots_.size() - 1;
    for (Slot& slot : old) {
      if (!slot.used()) continue;
      size_t i = slot.hash & mask_;
      while (slots_[i].used()) i = (i + 1) & mask_;
      slots_[i] = std::move(slot);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace reshardctl
