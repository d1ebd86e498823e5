// The distinct sources of an answer's citations (query/evaluator.cpp,
// ResolveCitations): internal to the query layer, in a header of its own so
// that the tests can check it against a plain pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chipkg::query::internal {

// The distinct (document, version) pairs of an answer's citations, in order
// of first citation, and each citation's index among them. Open addressing
// over the pairs' hashes (an answer of 578,000 citations names 22,000
// documents: copying and sorting every citation's pair cost Q5 at N=100,000
// 0.2-0.3 s, and a node-based hash map ~8 ms for Q2's 82,000).
class DistinctSources {
 public:
  void Reserve(size_t citations) { source_of_.reserve(citations); }
  void Add(std::string_view document_id, uint32_t version) {
    if (2 * (distinct_.size() + 1) > slots_.size()) Rehash(std::max<size_t>(64, 2 * slots_.size()));
    const uint64_t hash = std::hash<std::string_view>()(document_id) ^ (version * 0x9E3779B97F4A7C15ull);
    size_t i = hash & (slots_.size() - 1);
    for (; slots_[i].index != kEmpty; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].hash != hash) continue;
      const auto& [known_id, known_version] = distinct_[slots_[i].index];
      if (known_version == version && known_id == document_id) {
        source_of_.push_back(slots_[i].index);
        return;
      }
    }
    slots_[i] = Slot{hash, static_cast<uint32_t>(distinct_.size())};
    source_of_.push_back(slots_[i].index);
    distinct_.emplace_back(std::string(document_id), version);
  }
  // Adds `later`'s citations after these, as if each had been added here.
  void Append(const DistinctSources& later) {
    std::vector<uint32_t> index_here(later.distinct_.size());
    for (size_t i = 0; i < later.distinct_.size(); ++i) {
      Add(later.distinct_[i].first, later.distinct_[i].second);
      index_here[i] = source_of_.back();
      source_of_.pop_back();
    }
    source_of_.reserve(source_of_.size() + later.source_of_.size());
    for (uint32_t s : later.source_of_) source_of_.push_back(index_here[s]);
  }
  size_t size() const { return source_of_.size(); }  // citations added
  std::vector<std::pair<std::string, uint32_t>>& distinct() { return distinct_; }
  std::vector<uint32_t>& source_of() { return source_of_; }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t hash = 0;
    uint32_t index = kEmpty;  // in distinct_
  };
  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    for (const Slot& s : old) {
      if (s.index == kEmpty) continue;
      size_t i = s.hash & (capacity - 1);
      while (slots_[i].index != kEmpty) i = (i + 1) & (capacity - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::vector<std::pair<std::string, uint32_t>> distinct_;
  std::vector<uint32_t> source_of_;
};

}  // namespace chipkg::query::internal
