// FactIndexSorter: every index comes out in byte order of its keys, with the
// right value, however its entries are spread over blocks and spilled runs.
#include "engine/sst_sort.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/codec.h"
#include "tests/engine/test_util.h"

namespace chipkg::internal {
namespace {

using testing::TempDir;

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
  std::uniform_int_distribution<int> coin(0, 9), len(0, 40), gb(1, 200);
  // Text values make long keys agreeing on their first bytes (so that the
  // 24-byte sort words tie), some of them a prefix of another; quantities,
  // dates and entities make short ones.
  const std::vector<std::string> stems = {"", "q", "qu", std::string(12, 'a'), std::string(19, 'a'),
                                          std::string(20, 'a'), std::string(30, 'a')};
  std::map<std::string, std::string> want[FactIndexSorter::kIndexCount];
  FactIndexSorter sorter(dir.path(), c.budget, c.block_bytes);
  constexpr int kFacts = 6000;
  std::vector<std::string> texts(kFacts);  // a CORE views its text
  for (int i = 0; i < kFacts; ++i) {
    const uint64_t fid = 1000 + static_cast<uint64_t>(i) * 3;  // ascending, with gaps
    codec::CoreRecord core;
    core.asserted_tx = 1 + static_cast<uint64_t>(coin(rng));
    if (coin(rng) < 2) core.valid_as_of = Date{2024, 5, 1, DatePrecision::kDay};
    core.subject = c.in_key_order ? static_cast<uint32_t>(i / 20) : static_cast<uint32_t>(rng() % 300);
    core.predicate = c.in_key_order ? static_cast<uint32_t>(i % 20) : static_cast<uint32_t>(rng() % 12);
    core.document = static_cast<uint32_t>(rng() % 50);
    core.document_version = 1 + static_cast<uint32_t>(rng() % 2);
    switch (coin(rng) % 4) {
      case 0:
        core.kind = ValueKind::kQuantity;
        core.number = gb(rng) * 1e9;
        core.dimension = 3;
        break;
      case 1:
        core.kind = ValueKind::kEntity;
        core.entity = static_cast<uint32_t>(rng() % 100);
        break;
      case 2:
        core.kind = ValueKind::kDate;
        core.date = Date{2000 + coin(rng), static_cast<uint8_t>(1 + coin(rng)), 1, DatePrecision::kDay};
        break;
      default:
        core.kind = ValueKind::kText;
        texts[i] = stems[rng() % stems.size()] + std::string(static_cast<size_t>(len(rng) / 8), 'b');
        core.text = texts[i];
        break;
    }
    std::string bytes, header;
    codec::EncodeCore(core, &bytes);
    codec::EncodeCoreHeader(core, &header);
    ASSERT_TRUE(sorter.Add(fid, bytes, header.size()).ok());

    std::string value_key;
    codec::AppendValueKey(core, &value_key);
    want[FactIndexSorter::kSpo][codec::SpoKey(core.subject, core.predicate, fid)] = bytes;
    want[FactIndexSorter::kPos][codec::PosKey(core.predicate, value_key, fid)] = bytes;
    want[FactIndexSorter::kDoc][codec::DocKey(core.document, core.document_version, fid)] = bytes;
    if (core.kind == ValueKind::kEntity) want[FactIndexSorter::kRef][codec::RefKey(core.entity, fid)] = header;
  }
  size_t long_keys = 0;
  for (const auto& [key, value] : want[FactIndexSorter::kPos]) long_keys += key.size() > 24;
  EXPECT_GT(long_keys, 300u);
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

TEST(FactIndexSorterTest, RefusesFactIdsThatDoNotAscend) {
  TempDir dir;
  FactIndexSorter sorter(dir.path(), size_t{1} << 20);
  codec::CoreRecord core;
  core.kind = ValueKind::kBool;
  std::string bytes, header;
  codec::EncodeCore(core, &bytes);
  codec::EncodeCoreHeader(core, &header);
  ASSERT_TRUE(sorter.Add(7, bytes, header.size()).ok());
  Status s = sorter.Add(7, bytes, header.size());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("must ascend"), std::string::npos) << s.ToString();
  EXPECT_TRUE(sorter.Add(8, bytes, header.size()).ok());
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
