// Numbering an answer's cited facts (query/fact_numbers.h): numbers in order
// of first use, stable however the table grows, and 0 for facts never numbered.

#include "query/fact_numbers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace chipkg::query::internal {
namespace {

// Numbers `ids` in turn (asking for each one's slot first with `prefetch`)
// and checks that each gets the number of its first use, then finds them all.
void ExpectNumbersOfFirstUse(FactNumbers& numbers, const std::vector<uint64_t>& ids, bool prefetch) {
  std::unordered_map<uint64_t, int> want;
  for (uint64_t id : ids) {
    if (prefetch) numbers.Prefetch(id);
    auto [number, first] = numbers.Number(id);
    auto [it, inserted] = want.emplace(id, static_cast<int>(want.size()) + 1);
    ASSERT_EQ(first, inserted) << id;
    ASSERT_EQ(number, it->second) << id;
  }
  EXPECT_EQ(numbers.size(), want.size());
  for (const auto& [id, number] : want) ASSERT_EQ(numbers.Find(id), number) << id;
}

TEST(FactNumbersTest, NumbersInOrderOfFirstUseThroughGrowth) {
  FactNumbers numbers(1);  // sized for one: grows many times below
  // Dense ids (as fact ids are), sparse ones, 0, the largest, and repeats.
  std::vector<uint64_t> ids;
  for (uint64_t i = 1; i <= 5000; ++i) ids.push_back(i);
  for (uint64_t i = 0; i < 3000; ++i) ids.push_back(i * 1000003 + 7);
  ids.push_back(0);
  ids.push_back(UINT64_MAX);
  for (uint64_t i = 1; i <= 5000; i += 7) ids.push_back(i);
  ExpectNumbersOfFirstUse(numbers, ids, /*prefetch=*/false);
  EXPECT_EQ(numbers.Find(123456789012), 0);
  EXPECT_EQ(FactNumbers(0).Find(0), 0);
}

// Numbering remembers the facts it numbered last by their low bits: facts
// that share them evict each other, and a fact met again just after, or
// long after, keeps its number whichever way it is found. Prefetching a
// slot changes nothing.
TEST(FactNumbersTest, FactsMetAgainKeepTheirNumbersWhateverTheyShareBits) {
  FactNumbers numbers(4);
  std::vector<uint64_t> ids;
  for (uint64_t row = 0; row < 3000; ++row) {
    const uint64_t same_low_bits = 1 + 64 * (row % 50);  // 50 facts, one remembered slot
    const uint64_t neighbour = 100000 + row / 3;        // shared by neighbouring rows
    for (uint64_t id : {same_low_bits, neighbour, uint64_t{0}, same_low_bits, 64 * row, neighbour}) ids.push_back(id);
  }
  ExpectNumbersOfFirstUse(numbers, ids, /*prefetch=*/true);
}

TEST(FactNumbersTest, InsertedNumbersAreKeptThroughGrowthAndNotReplaced) {
  FactNumbers numbers(0);
  std::unordered_map<uint64_t, int> want;
  for (uint64_t i = 0; i < 4000; ++i) {
    const uint64_t id = i % 3 == 0 ? i : i * 7919 + 11;  // dense and sparse ids
    const int number = static_cast<int>(10 * i + 3);    // numbers of the caller's choosing, not in order
    auto [it, inserted] = want.emplace(id, number);
    ASSERT_EQ(numbers.Insert(id, number), inserted) << id;
    if (i % 5 == 0) {
      ASSERT_FALSE(numbers.Insert(id, number + 1)) << id;  // known: kept as it is
    }
  }
  EXPECT_FALSE(numbers.Insert(424242, 0));  // 0 is no number
  EXPECT_EQ(numbers.Find(424242), 0);
  // A second insert of a known fact changes nothing.
  EXPECT_FALSE(numbers.Insert(0, 999999));
  EXPECT_EQ(numbers.size(), want.size());
  for (const auto& [id, number] : want) ASSERT_EQ(numbers.Find(id), number) << id;
  EXPECT_EQ(numbers.Find(1), 0);
}

}  // namespace
}  // namespace chipkg::query::internal
