// Qualifiers' containers (engine/flat_map.h, engine/small_vector.h): FlatStringMap answers as the
// std::map it replaced does, whatever sequence of changes it goes through; SmallVector keeps every
// element exactly once, in place or on the heap, through copies, moves, growth and erasure.
#include "engine/flat_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/small_vector.h"

namespace chipkg {
namespace {

using Reference = std::map<std::string, std::string, std::less<>>;

void ExpectSame(const Reference& want, const FlatStringMap& got) {
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got.empty(), want.empty());
  auto w = want.begin();
  for (const auto& [k, v] : got) {
    EXPECT_EQ(k, w->first);
    EXPECT_EQ(v, w->second);
    ++w;
  }
}

TEST(FlatStringMapTest, AnswersAsStdMapThroughRandomChanges) {
  std::mt19937 rng(7);
  const std::vector<std::string> keys = {"",      "chips", "format", "format2", "instance", "region",
                                         "scope", "sparsity", "term", "a-long-qualifier-name-on-the-heap"};
  auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  const std::vector<std::string> values = {"", "fp8", "bf16", "16", "server", "a value long enough to leave SSO"};
  for (int round = 0; round < 50; ++round) {
    Reference want;
    FlatStringMap got;
    std::vector<std::pair<Reference, FlatStringMap>> kept;  // earlier states, for comparisons
    for (int step = 0; step < 60; ++step) {
      const std::string k = pick(keys), v = pick(values);
      switch (rng() % 8) {
        case 0: {
          const bool inserted = want.emplace(k, v).second;
          const auto [it, got_inserted] = got.emplace(k, v);
          EXPECT_EQ(got_inserted, inserted);
          EXPECT_EQ(it->first, k);
          EXPECT_EQ(it->second, want.at(k));
          break;
        }
        case 1:
          want[k] = v;
          got[k] = v;
          break;
        case 2:
          EXPECT_EQ(got.erase(k), want.erase(k));
          break;
        case 3: {
          const auto w = want.insert_or_assign(k, v);
          const auto g = got.insert_or_assign(k, v);
          EXPECT_EQ(g.second, w.second);
          break;
        }
        case 4:  // pairs arriving in key order (the store's decoding), and out of it
          want.emplace_hint(want.end(), k, v);
          EXPECT_EQ(got.emplace_hint(got.end(), k, v)->first, k);
          break;
        case 5: {
          auto it = got.find(k);
          if (it != got.end()) {
            want.erase(k);
            got.erase(it);
          }
          break;
        }
        case 6:
          EXPECT_EQ(got.try_emplace(k, v).second, want.try_emplace(k, v).second);
          break;
        default:
          kept.emplace_back(want, got);
          break;
      }
      ExpectSame(want, got);
      for (const std::string& key : keys) {
        EXPECT_EQ(got.count(key), want.count(key));
        EXPECT_EQ(got.contains(key), want.contains(key));
        const auto it = got.find(std::string_view(key));
        ASSERT_EQ(it != got.end(), want.find(key) != want.end()) << key;
        if (it != got.end()) {
          EXPECT_EQ(got.at(key), want.at(key));
        }
        if (it == got.end()) {
          EXPECT_THROW(got.at(key), std::out_of_range);
        }
      }
    }
    // Ordered and compared as the maps are (claims are sorted and grouped by their qualifiers).
    kept.emplace_back(want, got);
    for (const auto& [wa, ga] : kept) {
      for (const auto& [wb, gb] : kept) {
        EXPECT_EQ(ga == gb, wa == wb);
        EXPECT_EQ(ga < gb, wa < wb);
      }
    }
  }
}

TEST(FlatStringMapTest, CopiesAndMovesKeepThePairs) {
  FlatStringMap one = {{"format", "fp8"}};
  FlatStringMap two = {{"scope", "server"}, {"chips", "16"}, {"format", "bf16"}, {"chips", "8"}};
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(two.at("chips"), "16");  // the first of a repeated key, as std::map's list constructor keeps
  EXPECT_EQ(two.begin()->first, "chips");
  FlatStringMap copy = two;
  FlatStringMap moved = std::move(copy);
  EXPECT_EQ(moved, two);
  one = moved;
  EXPECT_EQ(one, two);
  FlatStringMap small = {{"format", "fp8"}};
  one = std::move(small);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(one.at("format"), "fp8");
  const FlatStringMap none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none < one);
}

// Counts the live instances, so that a leak or a second destruction shows.
struct Counted {
  static int live;
  std::string text;
  explicit Counted(std::string t) : text(std::move(t)) { ++live; }
  Counted(const Counted& o) : text(o.text) { ++live; }
  Counted(Counted&& o) noexcept : text(std::move(o.text)) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
  bool operator==(const Counted& o) const { return text == o.text; }
};
int Counted::live = 0;

TEST(SmallVectorTest, EveryElementOnceInPlaceOrOnTheHeap) {
  {
    SmallVector<Counted, 2> v;
    v.emplace_back("a long string that is not held in SSO, first");
    v.emplace_back("b");
    EXPECT_EQ(v.capacity(), 2u);  // still in place
    SmallVector<Counted, 2> in_place_copy = v;
    v.emplace_back(v.front());  // past the place, from one of its own elements
    v.emplace_back("d");
    ASSERT_EQ(v.size(), 4u);
    EXPECT_EQ(v[2].text, v[0].text);
    EXPECT_EQ(Counted::live, 6);
    SmallVector<Counted, 2> heap_copy = v;
    SmallVector<Counted, 2> moved_heap = std::move(heap_copy);
    SmallVector<Counted, 2> moved_place = std::move(in_place_copy);
    EXPECT_TRUE(heap_copy.empty());
    EXPECT_TRUE(in_place_copy.empty());
    EXPECT_EQ(moved_heap, v);
    ASSERT_EQ(moved_place.size(), 2u);
    EXPECT_EQ(moved_place[1].text, "b");
    EXPECT_EQ(Counted::live, 10);
    v.erase(v.begin() + 1);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[1].text, v[0].text);
    EXPECT_EQ(v[2].text, "d");
    v.emplace(v.begin(), "z");
    EXPECT_EQ(v.front().text, "z");
    EXPECT_EQ(v.back().text, "d");
    moved_place = v;  // in place, assigned from the heap
    EXPECT_EQ(moved_place, v);
    v = std::move(moved_place);
    EXPECT_EQ(v.size(), 4u);
    v.clear();
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(Counted::live, 4);  // moved_heap's
  }
  EXPECT_EQ(Counted::live, 0);
}

}  // namespace
}  // namespace chipkg
