// FactIndexSorter: every index comes out in byte order of its keys, with the
// right value, however its entries are spread over blocks and spilled runs.
#include "engine/sst_sort.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/engine/test_util.h"

namespace chipkg::internal {
namespace {

using testing::TempDir;

std::string BE32(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 3; i >= 0; --i, v >>= 8) s[i] = static_cast<char>(v & 0xff);
  return s;
}
std::string BE64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) s[i] = static_cast<char>(v & 0xff);
  return s;
}

class CollectingSink final : public OrderedSink {
 public:
  Status Put(std::string_view key, std::string_view value) override {
    entries.emplace_back(std::string(key), std::string(value));
    return Status::OK();
  }
  std::vector<std::pair<std::string, std::string>> entries;
};

struct SortCase {
  const char* name;
  bool in_key_order;  // facts added subject by subject, each subject's predicates ascending
  size_t budget;
  size_t block_bytes;
};

class FactIndexSorterTest : public ::testing::TestWithParam<SortCase> {};

TEST_P(FactIndexSorterTest, IndexesComeOutInKeyOrder) {
  const SortCase& c = GetParam();
  TempDir dir;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255), coin(0, 9), len(0, 40);
  // Value keys: short ones held in the sort words, long ones agreeing on
  // their first bytes (so that the 24-byte words tie), and some that are a
  // prefix of another.
  const std::vector<std::string> stems = {"", "q", "qu", std::string(12, 'a'), std::string(19, 'a'),
                                          std::string(20, 'a'), std::string(30, 'a')};
  std::map<std::string, std::string> want[FactIndexSorter::kIndexCount];
  FactIndexSorter sorter(dir.path(), c.budget, c.block_bytes);
  constexpr int kFacts = 6000;
  for (int i = 0; i < kFacts; ++i) {
    const uint64_t fid = 1000 + static_cast<uint64_t>(i) * 3;  // ascending, with gaps
    const uint32_t subject = c.in_key_order ? static_cast<uint32_t>(i / 20) : static_cast<uint32_t>(rng() % 300);
    const uint32_t predicate = c.in_key_order ? static_cast<uint32_t>(i % 20) : static_cast<uint32_t>(rng() % 12);
    const uint32_t document = static_cast<uint32_t>(rng() % 50);
    const uint32_t version = 1 + static_cast<uint32_t>(rng() % 2);
    std::string value_key = stems[rng() % stems.size()];
    for (int k = coin(rng) < 5 ? 9 : len(rng) / 4; k > 0; --k) value_key += static_cast<char>(byte(rng));
    uint32_t entity = static_cast<uint32_t>(rng() % 100);
    const bool has_entity = coin(rng) < 3;
    std::string core = "core of " + std::to_string(fid) + std::string(static_cast<size_t>(len(rng)), 'x');
    const size_t header_size = 1 + static_cast<size_t>(coin(rng));

    ASSERT_TRUE(sorter.Add(fid, subject, predicate, value_key, document, version, has_entity ? &entity : nullptr,
                           core, header_size)
                    .ok());
    want[FactIndexSorter::kSpo][BE32(subject) + BE32(predicate) + BE64(fid)] = core;
    want[FactIndexSorter::kPos][BE32(predicate) + value_key + BE64(fid)] = core;
    want[FactIndexSorter::kDoc][BE32(document) + BE32(version) + BE64(fid)] = core;
    if (has_entity) want[FactIndexSorter::kRef][BE32(entity) + BE64(fid)] = core.substr(0, header_size);
  }
  if (c.budget < (1 << 20)) {
    EXPECT_GE(sorter.runs(), 8u);
  } else {
    EXPECT_EQ(sorter.runs(), 0u);
  }
  ASSERT_TRUE(sorter.PrepareDrain().ok());
  for (int i = 0; i < FactIndexSorter::kIndexCount; ++i) {
    const auto index = static_cast<FactIndexSorter::Index>(i);
    SCOPED_TRACE("index " + std::to_string(i));
    CollectingSink sink;
    ASSERT_TRUE(sorter.Drain(index, &sink).ok());
    EXPECT_EQ(sorter.entries(index), want[i].size());
    ASSERT_EQ(sink.entries.size(), want[i].size());
    size_t k = 0;
    for (const auto& [key, value] : want[i]) {
      ASSERT_EQ(sink.entries[k].first, key) << "entry " << k;
      ASSERT_EQ(sink.entries[k].second, value) << "entry " << k;
      ++k;
    }
  }
  sorter.Release();
}

// 1 KiB blocks hold 42 spo/doc/ref entries or 25 pos entries: 6,000 facts
// fill hundreds, merged as they are written.
INSTANTIATE_TEST_SUITE_P(
    Blocks, FactIndexSorterTest,
    ::testing::Values(SortCase{"ManySmallBlocks", false, size_t{64} << 20, 1024},
                      SortCase{"ManySmallBlocksInKeyOrder", true, size_t{64} << 20, 1024},
                      SortCase{"ManySmallBlocksSpilled", false, size_t{96} << 10, 1024},
                      SortCase{"DefaultBlocks", false, size_t{64} << 20, FactIndexSorter::kBlockBytes},
                      SortCase{"DefaultBlocksSpilled", false, size_t{96} << 10, FactIndexSorter::kBlockBytes}),
    [](const ::testing::TestParamInfo<SortCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace chipkg::internal
