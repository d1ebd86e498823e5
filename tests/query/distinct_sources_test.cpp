// The distinct sources of an answer's citations (query/distinct_sources.h):
// each citation's index among the distinct (document, version) pairs, in
// order of first citation; two halves found apart and joined give what one
// pass over all the citations gives.

#include "query/distinct_sources.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace chipkg::query::internal {
namespace {

using Citations = std::vector<std::pair<std::string, uint32_t>>;

DistinctSources OnePass(const Citations& citations, size_t begin, size_t end) {
  DistinctSources sources;
  sources.Reserve(end - begin);
  for (size_t k = begin; k < end; ++k) sources.Add(citations[k].first, citations[k].second);
  return sources;
}

// Documents cited in several versions, versions shared by documents, the
// second half naming pairs in another order than the first and some the
// first never names, and enough pairs that each side's table grows.
Citations Mixed() {
  Citations c;
  for (int i = 0; i < 3000; ++i) c.emplace_back("doc-" + std::to_string(i % 40), static_cast<uint32_t>(1 + i % 3));
  for (int i = 0; i < 3000; ++i) {
    c.emplace_back("doc-" + std::to_string(59 - i % 60), static_cast<uint32_t>(1 + (i / 7) % 4));
  }
  c.emplace_back("", 0);  // a citation without a document
  c.emplace_back("doc-1", 0);
  return c;
}

TEST(DistinctSourcesTest, EachCitationGetsTheIndexOfItsOwnPairInOrderOfFirstCitation) {
  const Citations citations = Mixed();
  DistinctSources sources = OnePass(citations, 0, citations.size());
  ASSERT_EQ(sources.size(), citations.size());
  std::vector<std::pair<std::string, uint32_t>> seen;
  for (size_t k = 0; k < citations.size(); ++k) {
    const uint32_t index = sources.source_of()[k];
    ASSERT_LT(index, sources.distinct().size()) << k;
    EXPECT_EQ(sources.distinct()[index], citations[k]) << k;
    if (index == seen.size()) seen.push_back(citations[k]);  // first citation of a new pair
    ASSERT_LT(index, seen.size()) << k;
  }
  EXPECT_EQ(sources.distinct(), seen);
}

TEST(DistinctSourcesTest, TwoHalvesJoinedAreOnePass) {
  const Citations citations = Mixed();
  for (size_t half : {size_t{0}, size_t{1}, size_t{2999}, size_t{3000}, size_t{4500}, citations.size()}) {
    DistinctSources whole = OnePass(citations, 0, citations.size());
    DistinctSources first = OnePass(citations, 0, half);
    DistinctSources later = OnePass(citations, half, citations.size());
    first.Append(later);
    EXPECT_EQ(first.size(), citations.size()) << half;
    EXPECT_EQ(first.distinct(), whole.distinct()) << half;
    EXPECT_EQ(first.source_of(), whole.source_of()) << half;
  }
}

}  // namespace
}  // namespace chipkg::query::internal
