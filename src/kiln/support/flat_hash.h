// An open-addressing hash map for small, trivially copyable keys and values
// (linear probing, a power-of-two table, at most half full, each slot's key,
// value and mark together: one cache line per probe). Unlike
// std::unordered_map it allocates nothing per entry: the hash-consing of the
// dataflow graphs and the scheduling problems' dependence sets insert
// millions of entries, and their nodes' allocations were much of the time.
// No erase; clear() frees the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace kiln {

// Spreads a hash's bits over the whole word (the finalizer of splitmix64), so
// that the table may take its low bits.
inline uint64_t mix_hash(uint64_t h) {
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

template <class K, class V, class Hash, class Eq = std::equal_to<K>>
class FlatHashMap {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The heap bytes its slots take.
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

  // The value of `key`, or null.
  const V* find(const K& key) const {
    if (size_ == 0) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (Eq{}(s.key, key)) return &s.value;
    }
  }
  bool contains(const K& key) const { return find(key) != nullptr; }

  // The value of `key`, inserted as `value` when absent, and whether it was.
  // The pointer holds until the next insertion.
  std::pair<V*, bool> try_emplace(const K& key, const V& value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot_of(key);
    for (; slots_[i].used; i = (i + 1) & mask_)
      if (Eq{}(slots_[i].key, key)) return {&slots_[i].value, false};
    slots_[i] = {key, value, true};
    ++size_;
    return {&slots_[i].value, true};
  }

  // Room for `n` entries without growing.
  void reserve(std::size_t n) {
    std::size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    if (capacity > slots_.size()) rehash(capacity);
  }

  // Empties the map and frees its table.
  void clear() {
    std::vector<Slot>().swap(slots_);
    size_ = 0;
    mask_ = 0;
  }

 private:
  std::size_t slot_of(const K& key) const {
    return static_cast<std::size_t>(mix_hash(static_cast<uint64_t>(Hash{}(key)))) & mask_;
  }
  struct Slot {
    K key{};
    V value{};
    bool used = false;
  };
  void grow() { rehash(slots_.empty() ? 16 : 2 * slots_.size()); }
  void rehash(std::size_t capacity) {
    std::vector<Slot> slots(capacity);
    slots.swap(slots_);
    mask_ = capacity - 1;
    for (const Slot& s : slots) {
      if (!s.used) continue;
      std::size_t i = slot_of(s.key);
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace kiln
