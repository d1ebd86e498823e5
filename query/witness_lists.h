// The witnesses of many supports (Support::Witnesses) in one flat list, for
// the `with evidence` expansion of a large answer: Q3 of the peer benchmark
// at N=100,000 expands 205,144 witnesses of 60,000-odd rows, and the nested
// vectors Support::Witnesses returns were a sixth of the query's
// allocations. Once its buffers have grown, appending a support that is a
// product of distinct claims (nearly every row's) allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "query/result.h"

namespace chipkg::query::internal {

class WitnessLists {
 public:
  // Appends the witnesses of `s` as the next list: the sets Support::Witnesses
  // gives, in its order. Returns whether some were left out (more than
  // `max_witnesses`).
  bool Append(const Support& s, size_t max_witnesses);
  // Appends them only where `s` is claims, alternatives of claims, or a
  // conjunction of those, every claim in it distinct, at most
  // `max_witnesses` ways in all: false, nothing appended, otherwise.
  bool AppendProductOfDistinctClaims(const Support& s, size_t max_witnesses);
  void Clear();

  size_t lists() const { return list_end_.size(); }
  size_t total() const { return witness_end_.size(); }  // witnesses over every list
  // Witness `i` of list `list`: its fact ids, sorted.
  size_t size(size_t list) const { return list_end_[list] - ListBegin(list); }
  std::span<const uint64_t> at(size_t list, size_t i) const {
    const size_t w = ListBegin(list) + i;
    const size_t begin = w == 0 ? 0 : witness_end_[w - 1];
    return std::span<const uint64_t>(ids_).subspan(begin, witness_end_[w] - begin);
  }

 private:
  size_t ListBegin(size_t list) const { return list == 0 ? 0 : list_end_[list - 1]; }

  std::vector<uint64_t> ids_;          // every witness's ids, one after another
  std::vector<size_t> witness_end_;    // where each witness ends in ids_
  std::vector<size_t> list_end_;       // where each list ends in witness_end_
  // Reused by AppendProductOfDistinctClaims.
  std::vector<const Support*> factors_;
  std::vector<uint64_t> all_;
  std::vector<size_t> choice_;
  std::unique_ptr<WitnessLists> scratch_;  // for the operands of a support of another shape (Append)
};

}  // namespace chipkg::query::internal
