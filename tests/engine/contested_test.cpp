// The `contested` CF (engine/contested.h): the pairs it holds after every kind
// of write (per document, bulk into an empty store, bulk on top of stored
// facts), conflicts reads that answer from it as a read of every fact would,
// and the upgrade of a store of the format before it.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/codec.h"
#include "engine/store_impl.h"
#include "tests/engine/test_util.h"

namespace chipkg {
namespace {

using testing::DocBuilder;
using testing::OpenOrDie;
using testing::TempDir;

constexpr double kGB = 1e9;

bool SameStated(const Fact& a, const Fact& b) {
  return a.value.SameContent(b.value) && a.value.dimension == b.value.dimension && a.qualifiers == b.qualifiers;
}

// What ContestedFactsAboutEach must answer for `subject`, worked out from
// FactsAbout alone: the facts of each predicate whose visible facts (less the
// "not published" markers, when asked) do not all state the same content, in
// fact-id order.
std::vector<uint64_t> ContestedByHand(const Store& store, const EntityId& subject, const ReadView& view,
                                      bool without_not_published = false) {
  auto facts = store.FactsAbout(subject, view);
  EXPECT_TRUE(facts.ok()) << facts.status().ToString();
  std::map<std::string, std::vector<const Fact*>> by_predicate;
  for (const Fact& f : *facts) {
    if (!without_not_published || f.value.kind != ValueKind::kNotPublished) by_predicate[f.predicate].push_back(&f);
  }
  std::vector<uint64_t> ids;
  for (const auto& [predicate, group] : by_predicate) {
    const bool unanimous = std::all_of(group.begin(), group.end(), [&](const Fact* f) { return SameStated(*group[0], *f); });
    if (!unanimous) {
      for (const Fact* f : group) ids.push_back(f->id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Every pair ever contested (retracted facts count): the facts the CF must hold.
std::set<uint64_t> EverContested(const Store& store, const std::vector<EntityId>& subjects) {
  ReadView all;
  all.include_retracted = true;
  std::set<uint64_t> ids;
  for (const EntityId& s : subjects) {
    for (uint64_t id : ContestedByHand(store, s, all)) ids.insert(id);
  }
  return ids;
}

// The fact ids in the `contested` CF of an open store, and that each entry is
// the fact's spo entry, byte for byte.
std::set<uint64_t> IdsInContestedCf(const Store& store) {
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(&store);
  EXPECT_NE(impl, nullptr);
  std::set<uint64_t> ids;
  if (impl == nullptr || impl->cf(codec::kContestedCf) == nullptr) return ids;
  std::unique_ptr<rocksdb::Iterator> it(impl->db()->NewIterator(rocksdb::ReadOptions(), impl->cf(codec::kContestedCf)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string spo_value;
    EXPECT_TRUE(impl->db()->Get(rocksdb::ReadOptions(), impl->cf(codec::kSpoCf), it->key(), &spo_value).ok());
    EXPECT_EQ(spo_value, it->value().ToString());
    ids.insert(codec::FactIdOfIndexKey(std::string_view(it->key().data(), it->key().size())));
  }
  EXPECT_TRUE(it->status().ok());
  return ids;
}

// Under every view, with and without "not published" markers.
void ExpectReadsMatchByHand(const Store& store, const std::vector<EntityId>& subjects,
                            const std::vector<ReadView>& views) {
  for (size_t v = 0; v < views.size(); ++v) {
    for (bool without_not_published : {false, true}) {
      SCOPED_TRACE("view " + std::to_string(v) + (without_not_published ? ", without not published" : ""));
      auto each = store.ContestedFactsAboutEach(subjects, views[v], without_not_published);
      ASSERT_TRUE(each.ok()) << each.status().ToString();
      ASSERT_EQ(each->size(), subjects.size());
      for (size_t i = 0; i < subjects.size(); ++i) {
        std::vector<uint64_t> got;
        for (const Fact& f : (*each)[i]) got.push_back(f.id);
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, ContestedByHand(store, subjects[i], views[v], without_not_published)) << subjects[i];
      }
    }
  }
}

std::vector<ReadView> Views(TxId past) {
  std::vector<ReadView> views(3);
  views[1].include_retracted = true;
  views[2].as_of_tx = past;
  return views;
}

// Per-document writes: a pair becomes contested when a second document
// disagrees (its first fact joins the CF then), stays so when a revision
// retracts the disagreeing fact (history can still show the contest), and a
// pair whose facts always agreed, or a lone fact, never enters.
TEST(ContestedIndexTest, PerDocumentWritesKeepEveryPairEverContested) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder a("doc-a"), b("doc-b");
  a.Add("chip:x", "memory", Value::Quantity(80 * kGB, "bytes", "80 GB"), "x 80 GB");
  a.Add("chip:x", "tdp", Value::Quantity(500, "watts", "500 W"), "x 500 W");
  a.Add("chip:y", "memory", Value::Quantity(64 * kGB, "bytes", "64 GB"), "y 64 GB");
  a.Add("chip:y", "foundry", Value::NotPublished("not disclosed"), "y foundry undisclosed");
  a.Add("chip:z", "tdp", Value::Quantity(300, "watts", "300 W"), "z 300 W");
  auto first = store->WriteDocumentVersion(a.doc(), a.version(), a.facts(), "r1");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::vector<EntityId> subjects = {"chip:x", "chip:y", "chip:z", "chip:none"};
  EXPECT_TRUE(IdsInContestedCf(*store).empty());  // one document cannot contest itself here

  b.Add("chip:x", "memory", Value::Quantity(80 * kGB, "bytes", "80,000 MB"), "x 80,000 MB");  // agrees
  b.Add("chip:y", "memory", Value::Quantity(96 * kGB, "bytes", "96 GB"), "y 96 GB");           // disagrees
  b.Add("chip:y", "foundry", Value::Entity("organization:tsmc", "TSMC"), "y TSMC");            // vs not published
  b.Add("chip:z", "tdp", Value::Quantity(300, "watts", "300 W"), "z 300 W", {{"scope", "card"}});  // qualifiers
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1").ok());
  EXPECT_EQ(IdsInContestedCf(*store), EverContested(*store, subjects));
  EXPECT_EQ(IdsInContestedCf(*store).size(), 6u);

  // doc-b's revision drops chip:y's memory and changes chip:x's: the first
  // stays contested for history, the second becomes so.
  DocBuilder b2("doc-b");
  b2.Add("chip:x", "memory", Value::Quantity(94 * kGB, "bytes", "94 GB"), "x 94 GB");
  b2.Add("chip:y", "foundry", Value::Entity("organization:tsmc", "TSMC"), "y TSMC");
  b2.Add("chip:z", "tdp", Value::Quantity(300, "watts", "300 W"), "z 300 W", {{"scope", "card"}});
  ASSERT_TRUE(store->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r2").ok());
  const std::set<uint64_t> ever = EverContested(*store, subjects);
  EXPECT_EQ(IdsInContestedCf(*store), ever);
  EXPECT_EQ(ever.size(), 9u);  // x memory: 3 facts, y memory 2, y foundry 2, z tdp 2
  ExpectReadsMatchByHand(*store, subjects, Views(first->tx));
  // Without markers, chip:y's foundry (TSMC against "not published") is no
  // contest, and its memory no longer is (doc-b's 96 GB is retracted).
  auto with = store->ContestedFactsAboutEach({"chip:y"});
  auto without = store->ContestedFactsAboutEach({"chip:y"}, {}, /*without_not_published=*/true);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ((*with)[0].size(), 2u);
  EXPECT_TRUE((*without)[0].empty());

  // A reader answers from the CF as well.
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ExpectReadsMatchByHand(**reader, subjects, Views(first->tx));
}

// Bulk loads: into an empty store the CF comes out of the sorted spo stream;
// on top of stored facts a pair the load contests brings its stored facts in,
// and a pair already contested gets the load's facts added.
TEST(ContestedIndexTest, BulkLoadsFillItIntoAnEmptyStoreAndOnTopOfStoredFacts) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  std::vector<EntityId> subjects;
  auto load = [&](const std::string& doc_id, int from, int to, double shift) {
    DocBuilder d(doc_id);
    for (int i = from; i < to; ++i) {
      const std::string chip = "chip:b" + std::to_string(i);
      d.Add(chip, "memory", Value::Quantity((16 + (i % 4) * 16 + (i % 3 == 0 ? shift : 0)) * kGB, "bytes", "GB"),
            chip + " memory " + doc_id);
      d.Add(chip, "tdp", Value::Quantity(100 + i, "watts", "W"), chip + " tdp " + doc_id);
      if (i % 5 == 0) d.Add(chip, "foundry", Value::NotPublished("undisclosed"), chip + " foundry " + doc_id);
    }
    auto writer = store->StartBulk();
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AddDocumentVersion(d.doc(), d.version()).ok());
    for (const Fact& f : d.facts()) ASSERT_TRUE((*writer)->AddFact(f).ok());
    auto done = (*writer)->Finish("bulk-" + doc_id);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
  };
  for (int i = 0; i < 300; ++i) subjects.push_back("chip:b" + std::to_string(i));
  load("bulk-1", 0, 200, 0);  // no pair is contested: one fact each
  EXPECT_TRUE(IdsInContestedCf(*store).empty());
  load("bulk-2", 0, 300, 8);  // every third chip's memory disagrees with bulk-1's
  const TxId after_second = store->LastTx();
  auto ever = EverContested(*store, subjects);
  EXPECT_EQ(IdsInContestedCf(*store), ever);
  EXPECT_GT(ever.size(), 100u);
  // A per-document write and a third load on top: pairs already contested
  // get more facts, tdp (the same everywhere so far) becomes contested.
  DocBuilder extra("doc-extra");
  extra.Add("chip:b3", "memory", Value::Quantity(1 * kGB, "bytes", "1 GB"), "b3 1 GB");
  ASSERT_TRUE(store->WriteDocumentVersion(extra.doc(), extra.version(), extra.facts(), "r").ok());
  DocBuilder third("bulk-3");
  third.Add("chip:b3", "memory", Value::Quantity(2 * kGB, "bytes", "2 GB"), "b3 2 GB");
  third.Add("chip:b7", "tdp", Value::Quantity(1, "watts", "1 W"), "b7 1 W");
  {
    auto writer = store->StartBulk();
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AddDocumentVersion(third.doc(), third.version()).ok());
    for (const Fact& f : third.facts()) ASSERT_TRUE((*writer)->AddFact(f).ok());
    ASSERT_TRUE((*writer)->Finish("bulk-3").ok());
  }
  ever = EverContested(*store, subjects);
  EXPECT_EQ(IdsInContestedCf(*store), ever);
  ExpectReadsMatchByHand(*store, subjects, Views(after_second));
  auto b7 = store->ContestedFactsAboutEach({"chip:b7"});
  ASSERT_TRUE(b7.ok());
  size_t tdp = 0;
  for (const Fact& f : (*b7)[0]) tdp += f.predicate == "tdp";
  EXPECT_EQ(tdp, 3u);  // bulk-1's, bulk-2's and bulk-3's

  // An export (which leaves the CF out) imported into a new store: the same pairs, the same ids.
  std::stringstream exported;
  ASSERT_TRUE(store->Export(exported).ok());
  auto copy = OpenOrDie(dir.Sub("copy"));
  auto imported = copy->Import(exported);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(IdsInContestedCf(*copy), IdsInContestedCf(*store));
}

// Opens a closed store with RocksDB alone and makes it a store of the format
// before `contested`: the format record says so, and the CF is gone, or kept
// with entries that no longer match spo (an upgrade cut short, or facts
// written since by a chipkg of that format, which leaves the CF alone).
void MakeFormerFormat(const std::string& path, bool keep_stale_cf) {
  testing::RawStore raw(path);
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(raw.db()->Put(rocksdb::WriteOptions(), raw.handle("meta"), "format", "chipkg-store 1").ok());
  if (!keep_stale_cf) {
    raw.Drop("contested");
    return;
  }
  rocksdb::ColumnFamilyHandle* contested = raw.handle("contested");
  std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator(rocksdb::ReadOptions(), contested));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  ASSERT_TRUE(raw.db()->Delete(rocksdb::WriteOptions(), contested, it->key()).ok());
  ASSERT_TRUE(raw.db()->Put(rocksdb::WriteOptions(), contested, std::string(20, '\x01'), "stale").ok());
}

std::string FormatRecord(const Store& store) {
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(&store);
  std::string format;
  EXPECT_TRUE(impl->db()->Get(rocksdb::ReadOptions(), impl->cf(codec::kMetaCf), "format", &format).ok());
  return format;
}

// A store of the format before `contested` is read as it is (a conflicts
// read then reads every fact: the same answers), by readers opened before
// and after its upgrade; its first writer builds the CF and rewrites the
// format record, whatever a former CF held.
TEST(ContestedIndexTest, AStoreOfTheFormerFormatIsReadAsItIsAndUpgradedByItsFirstWriter) {
  for (bool stale : {false, true}) {
    SCOPED_TRACE(stale ? "a stale CF left" : "no CF");
    TempDir dir;
    const std::string path = dir.Sub("s");
    std::vector<EntityId> subjects;
    TxId first_tx = 0;
    {
      auto store = OpenOrDie(path);
      DocBuilder a("doc-a"), b("doc-b");
      for (int i = 0; i < 40; ++i) {
        const std::string chip = "chip:u" + std::to_string(i);
        subjects.push_back(chip);
        a.Add(chip, "memory", Value::Quantity((i % 3) * kGB, "bytes", "GB"), chip + " a");
        b.Add(chip, "memory", Value::Quantity((i % 2) * kGB, "bytes", "GB"), chip + " b");
        b.Add(chip, "tdp", Value::Quantity(i, "watts", "W"), chip + " tdp");
      }
      auto w = store->WriteDocumentVersion(a.doc(), a.version(), a.facts(), "r");
      ASSERT_TRUE(w.ok());
      first_tx = w->tx;
      ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
    }
    MakeFormerFormat(path, stale);

    auto before = Store::OpenReader(path);
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    EXPECT_EQ(FormatRecord(**before), "chipkg-store 1");
    ExpectReadsMatchByHand(**before, subjects, Views(first_tx));
    {
      auto writer = OpenOrDie(path);
      EXPECT_EQ(FormatRecord(*writer), codec::kFormatVersion);
      EXPECT_EQ(IdsInContestedCf(*writer), EverContested(*writer, subjects));
      EXPECT_FALSE(IdsInContestedCf(*writer).empty());
      ExpectReadsMatchByHand(*writer, subjects, Views(first_tx));
      DocBuilder c("doc-c");
      c.Add("chip:u1", "tdp", Value::Quantity(999, "watts", "999 W"), "u1 999 W");
      ASSERT_TRUE(writer->WriteDocumentVersion(c.doc(), c.version(), c.facts(), "r").ok());
      EXPECT_EQ(IdsInContestedCf(*writer), EverContested(*writer, subjects));
    }
    // The reader opened before the upgrade catches up with it.
    ASSERT_TRUE((*before)->CatchUp().ok());
    ExpectReadsMatchByHand(**before, subjects, Views(first_tx));
    auto after = Store::OpenReader(path);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    EXPECT_EQ(FormatRecord(**after), codec::kFormatVersion);
    ExpectReadsMatchByHand(**after, subjects, Views(first_tx));
  }
}

// A store of the former format whose open fails before its upgrade could
// add the CF (here a damaged counter) reports the failure, and a reader still
// opens it; nothing crashes on the missing CF.
TEST(ContestedIndexTest, AFailedUpgradeReportsItsError) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  { auto store = OpenOrDie(path); }
  MakeFormerFormat(path, /*keep_stale_cf=*/false);
  {
    testing::RawStore raw(path);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw.db()->Put(rocksdb::WriteOptions(), raw.handle("meta"), codec::CounterKey("facts"), "bad").ok());
  }
  auto writer = Store::Open(path);
  ASSERT_FALSE(writer.ok());
  EXPECT_TRUE(writer.status().IsCorruption()) << writer.status().ToString();
  EXPECT_NE(writer.status().message().find("counter facts"), std::string::npos) << writer.status().ToString();
}

}  // namespace
}  // namespace chipkg
