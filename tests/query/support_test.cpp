// Support expressions (query/result.h): the ways a support can hold.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "query/result.h"
#include "query/witness_lists.h"

namespace chipkg::query {
namespace {

using Sets = std::vector<std::vector<uint64_t>>;

// Built without the normalisation of Support::And and Support::Or, which
// would merge some of what these tests need to reach Witnesses.
Support Node(Support::Op op, std::vector<Support> args) {
  Support s;
  s.op = op;
  s.args = std::move(args);
  return s;
}

// An "or" over the facts 1..n, each alternative "x and `common`".
Support AlternativesWith(uint64_t n, uint64_t common) {
  std::vector<Support> alternatives;
  for (uint64_t x = 1; x <= n; ++x) alternatives.push_back(Support::And({Support::Fact(x), Support::Fact(common)}));
  return Support::Or(std::move(alternatives));
}

TEST(SupportTest, WitnessesAreTheSortedWaysToHoldInOrderOfFirstAppearance) {
  // (3 and 1) or (2 and 1): factored as 1 and (3 or 2).
  const Support s = Support::Or({Support::And({Support::Fact(3), Support::Fact(1)}),
                                 Support::And({Support::Fact(2), Support::Fact(1)})});
  bool truncated = false;
  EXPECT_EQ(s.Witnesses(10, &truncated), (Sets{{1, 3}, {1, 2}}));
  EXPECT_FALSE(truncated);
  EXPECT_EQ(Support::True().Witnesses(10, &truncated), (Sets{{}}));
}

TEST(SupportTest, AndKeepsDistinctClaimsAsGivenAndNormalisesTheRest) {
  EXPECT_EQ(Support::And({Support::Fact(7), Support::Fact(3)}).ToString(), "#7 and #3");
  EXPECT_EQ(Support::And({Support::Fact(7)}).ToString(), "#7");
  EXPECT_TRUE(Support::And({}).IsTrue());
  // A repeated claim, a claim needing nothing, a nested conjunction: each
  // takes the normalising path.
  EXPECT_EQ(Support::And({Support::Fact(7), Support::Fact(3), Support::Fact(7)}).ToString(), "#7 and #3");
  EXPECT_EQ(Support::And({Support::True(), Support::Fact(3)}).ToString(), "#3");
  EXPECT_EQ(Support::And({Support::Fact(1), Node(Support::Op::kAnd, {Support::Fact(2), Support::Fact(1)})}).ToString(),
            "#1 and #2");
  const Support mixed = Support::And({Support::Fact(5), Support::Or({Support::Fact(6), Support::Fact(8)})});
  EXPECT_EQ(mixed.ToString(), "#5 and (#6 or #8)");
}

TEST(SupportTest, OrKeepsDistinctClaimsAsGivenAndNormalisesTheRest) {
  EXPECT_EQ(Support::Or({Support::Fact(7), Support::Fact(3)}).ToString(), "#7 or #3");
  EXPECT_EQ(Support::Or({Support::Fact(7)}).ToString(), "#7");
  EXPECT_TRUE(Support::Or({}).IsTrue());
  EXPECT_EQ(Support::Or({Support::Fact(7), Support::Fact(3), Support::Fact(7)}).ToString(), "#7 or #3");
  EXPECT_TRUE(Support::Or({Support::Fact(7), Support::True()}).IsTrue());
  EXPECT_EQ(Support::Or({Support::Fact(1), Support::And({Support::Fact(1), Support::Fact(2)})}).ToString(), "#1");
  EXPECT_EQ(Support::Or({Support::And({Support::Fact(1), Support::Fact(2)}), Support::And({Support::Fact(1), Support::Fact(3)})})
                .ToString(),
            "#1 and (#2 or #3)");
}

TEST(SupportTest, AWayThatHoldsTwiceIsListedOnce) {
  // {1, 2} arises from (1 or 2) and (2 or 1) in two ways.
  const Support s = Node(Support::Op::kAnd, {Node(Support::Op::kOr, {Support::Fact(1), Support::Fact(2)}),
                                             Node(Support::Op::kOr, {Support::Fact(2), Support::Fact(1)})});
  bool truncated = false;
  EXPECT_EQ(s.Witnesses(10, &truncated), (Sets{{1, 2}, {1}, {2}}));
  EXPECT_FALSE(truncated);
}

TEST(SupportTest, ManyWaysAreDistinctPastTheScanAndTruncatedAtTheBound) {
  // 100 alternatives, each listed twice: duplicates are found by a scan up
  // to a few dozen kept, then by an index; both must drop them.
  std::vector<Support> twice;
  for (int round = 0; round < 2; ++round) {
    for (uint64_t x = 1; x <= 100; ++x) twice.push_back(Support::And({Support::Fact(x), Support::Fact(1000 + x)}));
  }
  const Support s = Node(Support::Op::kOr, std::move(twice));
  bool truncated = false;
  const Sets all = s.Witnesses(1000, &truncated);
  ASSERT_EQ(all.size(), 100u);
  EXPECT_FALSE(truncated);
  for (uint64_t x = 1; x <= 100; ++x) EXPECT_EQ(all[x - 1], (std::vector<uint64_t>{x, 1000 + x})) << x;

  const Sets first = AlternativesWith(100, 500).Witnesses(40, &truncated);
  EXPECT_EQ(first.size(), 40u);
  EXPECT_TRUE(truncated);
  EXPECT_EQ(first.back(), (std::vector<uint64_t>{40, 500}));
}

TEST(SupportTest, AProductOfDistinctClaimsIsListedInOrderWithEachWaySorted) {
  // (1 or 2) and 9 and (5 or 3 or 4): first factor outermost, each way's facts sorted.
  const Support s = Node(Support::Op::kAnd, {Node(Support::Op::kOr, {Support::Fact(1), Support::Fact(2)}),
                                             Support::Fact(9),
                                             Node(Support::Op::kOr, {Support::Fact(5), Support::Fact(3), Support::Fact(4)})});
  bool truncated = false;
  EXPECT_EQ(s.Witnesses(10, &truncated), (Sets{{1, 5, 9}, {1, 3, 9}, {1, 4, 9}, {2, 5, 9}, {2, 3, 9}, {2, 4, 9}}));
  EXPECT_FALSE(truncated);
  EXPECT_EQ(s.Witnesses(4, &truncated), (Sets{{1, 5, 9}, {1, 3, 9}, {1, 4, 9}, {2, 5, 9}}));
  EXPECT_TRUE(truncated);
  truncated = false;
  EXPECT_EQ(Node(Support::Op::kOr, {Support::Fact(8), Support::Fact(6)}).Witnesses(10, &truncated), (Sets{{8}, {6}}));
  EXPECT_EQ(Support::Fact(8).Witnesses(10, &truncated), (Sets{{8}}));
  EXPECT_FALSE(truncated);
}

// Supports of that shape, some with a claim in two factors, answer as the general
// case does: the same with one more factor that needs nothing, which only the general
// case takes (and which changes no way to hold).
TEST(SupportTest, ProductsAnswerAsTheGeneralCaseDoes) {
  uint64_t seed = 12345;
  auto next = [&seed](uint64_t below) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % below;
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<Support> factors;
    const uint64_t n = 1 + next(4);
    for (uint64_t f = 0; f < n; ++f) {
      const uint64_t choices = 1 + next(4);
      if (choices == 1) {
        factors.push_back(Support::Fact(1 + next(round % 2 == 0 ? 1000 : 8)));
        continue;
      }
      std::vector<Support> alternatives;
      for (uint64_t c = 0; c < choices; ++c) alternatives.push_back(Support::Fact(1 + next(round % 2 == 0 ? 1000 : 8)));
      factors.push_back(Node(Support::Op::kOr, std::move(alternatives)));
    }
    const Support s = Node(Support::Op::kAnd, factors);
    factors.push_back(Support::True());
    const Support general = Node(Support::Op::kAnd, std::move(factors));
    for (size_t max : {size_t{3}, size_t{100}}) {
      bool t1 = false, t2 = false;
      EXPECT_EQ(s.Witnesses(max, &t1), general.Witnesses(max, &t2)) << s.ToString() << " max " << max;
      EXPECT_EQ(t1, t2) << s.ToString() << " max " << max;
    }
  }
}

TEST(SupportTest, WitnessListsHoldEachSupportsWaysAsWitnessesGivesThem) {
  // Products of distinct claims (the flat path), repeated claims and nested
  // alternatives (the general one), a support needing nothing, one with no
  // way at all, and bounds that cut each kind: one list after another in
  // the same buffers, then again after Clear.
  const std::vector<Support> supports = {
      Node(Support::Op::kAnd, {Node(Support::Op::kOr, {Support::Fact(1), Support::Fact(2)}), Support::Fact(9),
                               Node(Support::Op::kOr, {Support::Fact(5), Support::Fact(3), Support::Fact(4)})}),
      Node(Support::Op::kAnd, {Node(Support::Op::kOr, {Support::Fact(1), Support::Fact(2)}),
                               Node(Support::Op::kOr, {Support::Fact(2), Support::Fact(1)})}),
      Support::True(),
      Node(Support::Op::kOr, {}),
      Support::Fact(8),
      Node(Support::Op::kOr, {Support::Fact(8), Support::Fact(6)}),
      AlternativesWith(100, 500),
      Node(Support::Op::kOr, {Node(Support::Op::kAnd, {Support::Fact(4), Support::Fact(2)}), Support::Fact(3)}),
  };
  internal::WitnessLists lists;
  for (int round = 0; round < 2; ++round) {
    for (size_t max : {size_t{1}, size_t{4}, size_t{40}, size_t{1000}}) {
      lists.Clear();
      size_t total = 0;
      for (const Support& s : supports) {
        bool expected_truncated = false;
        const Sets expected = s.Witnesses(max, &expected_truncated);
        EXPECT_EQ(lists.Append(s, max), expected_truncated) << s.ToString() << " max " << max;
        total += expected.size();
      }
      ASSERT_EQ(lists.lists(), supports.size());
      EXPECT_EQ(lists.total(), total);
      for (size_t k = 0; k < supports.size(); ++k) {
        bool truncated = false;
        const Sets expected = supports[k].Witnesses(max, &truncated);
        Sets listed;
        for (size_t i = 0; i < lists.size(k); ++i) listed.emplace_back(lists.at(k, i).begin(), lists.at(k, i).end());
        EXPECT_EQ(listed, expected) << supports[k].ToString() << " max " << max;
      }
    }
  }
  // Spot checks against ways written out, so that the comparison above
  // cannot pass with both sides wrong in the same way.
  lists.Clear();
  EXPECT_FALSE(lists.Append(supports[0], 10));
  EXPECT_TRUE(lists.Append(supports[0], 4));
  EXPECT_FALSE(lists.Append(supports[1], 10));
  ASSERT_EQ(lists.size(0), 6u);
  EXPECT_EQ(std::vector<uint64_t>(lists.at(0, 1).begin(), lists.at(0, 1).end()), (std::vector<uint64_t>{1, 3, 9}));
  EXPECT_EQ(std::vector<uint64_t>(lists.at(0, 5).begin(), lists.at(0, 5).end()), (std::vector<uint64_t>{2, 4, 9}));
  ASSERT_EQ(lists.size(1), 4u);
  EXPECT_EQ(std::vector<uint64_t>(lists.at(1, 3).begin(), lists.at(1, 3).end()), (std::vector<uint64_t>{2, 5, 9}));
  ASSERT_EQ(lists.size(2), 3u);
  EXPECT_EQ(std::vector<uint64_t>(lists.at(2, 2).begin(), lists.at(2, 2).end()), (std::vector<uint64_t>{2}));
  EXPECT_EQ(lists.total(), 13u);
}

}  // namespace
}  // namespace chipkg::query
