// Numbers by fact id: an answer's citations in order of first use (Number),
// or numbers the caller chooses (Insert): open addressing with linear probing, grown at half full. An
// answer numbers up to hundreds of thousands of facts (Q5 of the peer
// benchmark at N=100,000: 578,000), and std::unordered_map allocated a node
// for each (the citations step 266 -> 225 ms with this). Number remembers
// the facts it numbered last, and Prefetch lets a caller overlap the
// misses of many lookups: a large answer's table is out of the caches.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace chipkg::query::internal {

class FactNumbers {
 public:
  explicit FactNumbers(size_t expected) { Resize(std::bit_ceil(std::max<size_t>(16, 2 * expected))); }
  // The number of `fact`, the next one if it had none; and whether it had none.
  std::pair<int, bool> Number(uint64_t fact) {
    Slot& seen = recent_[fact & (kRecent - 1)];
    if (seen.fact == fact && seen.number != 0) return {seen.number, false};
    if (2 * (count_ + 1) > slots_.size()) Resize(2 * slots_.size());
    size_t i = Hash(fact) & mask_;
    for (; slots_[i].number != 0; i = (i + 1) & mask_) {
      if (slots_[i].fact == fact) {
        seen = slots_[i];
        return {slots_[i].number, false};
      }
    }
    slots_[i] = Slot{fact, static_cast<int>(++count_)};
    seen = slots_[i];
    return {slots_[i].number, true};
  }
  // Asks for the slot `fact` has or would take to be brought into the
  // processor's caches, so that a caller about to number or find many facts
  // waits for their misses at once rather than one after another. (g++ 12
  // drops a prefetch it finds under a condition: keep this one plain.)
  void Prefetch(uint64_t fact) const { __builtin_prefetch(&slots_[Hash(fact) & mask_]); }
  // Gives `fact` the number `number` unless it has one; whether it had none.
  // For a table whose numbers the caller chooses (not Number's order of first
  // use): the two do not mix. 0 is no number and is refused.
  bool Insert(uint64_t fact, int number) {
    if (number == 0) return false;
    if (2 * (count_ + 1) > slots_.size()) Resize(2 * slots_.size());
    size_t i = Hash(fact) & mask_;
    for (; slots_[i].number != 0; i = (i + 1) & mask_) {
      if (slots_[i].fact == fact) return false;
    }
    slots_[i] = Slot{fact, number};
    ++count_;
    return true;
  }
  // 0 when `fact` has no number.
  int Find(uint64_t fact) const {
    for (size_t i = Hash(fact) & mask_; slots_[i].number != 0; i = (i + 1) & mask_) {
      if (slots_[i].fact == fact) return slots_[i].number;
    }
    return 0;
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t fact = 0;
    int number = 0;  // 0: empty
  };
  static size_t Hash(uint64_t x) {  // fact ids are dense: mixed so that neighbours spread
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
  }
  void Resize(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.number == 0) continue;
      size_t i = Hash(s.fact) & mask_;
      while (slots_[i].number != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  // The facts numbered last, by their low bits: a row cites the same facts
  // in its evidence cell and in its condition, and neighbouring rows share
  // many (Q3 of the peer benchmark at N=100,000: 820,000 citations of
  // 102,000 facts, all but 116,000 found here), while a large answer's table
  // is out of the processor's caches (8 MB for Q3's).
  static constexpr size_t kRecent = 64;
  std::array<Slot, kRecent> recent_{};
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace chipkg::query::internal
