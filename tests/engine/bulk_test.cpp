// BulkWriter: SST-based loads must read back exactly like single writes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "engine/bulk_writer_impl.h"
#include "engine/codec.h"
#include "engine/store.h"
#include "engine/store_impl.h"
#include "tests/engine/test_util.h"

namespace chipkg {
namespace {

using testing::DocBuilder;
using testing::ExpectSameClaim;
using testing::OpenOrDie;
using testing::TempDir;

constexpr double kGB = 1e9;

// A generated corpus: `chips` chips, ten per document, about 15 claims each.
struct Corpus {
  std::vector<Entity> entities;
  std::vector<DocBuilder> docs;

  explicit Corpus(int chips, uint32_t seed = 1) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> mem(1, 24), tdp(50, 1000), year(2016, 2025), month(1, 12), coin(0, 9);
    for (int c = 0; c < chips; ++c) {
      if (c % 10 == 0) docs.emplace_back("doc-" + std::to_string(c / 10));
      DocBuilder& b = docs.back();
      const std::string chip = "chip:gen-" + std::to_string(c);
      entities.push_back({chip, "chip", "Generated Chip " + std::to_string(c), {"GC" + std::to_string(c)}});
      b.AddText("== " + chip + " ==");
      const double gb = 8.0 * mem(rng);
      b.Add(chip, "memory", Value::Quantity(gb * kGB, "bytes", std::to_string(int(gb)) + " GB"),
            chip + " memory " + std::to_string(int(gb)) + " GB");
      if (coin(rng) == 0) {  // a conflicting second claim
        b.Add(chip, "memory", Value::Quantity((gb + 8) * kGB, "bytes", std::to_string(int(gb + 8)) + " GB"),
              chip + " other memory " + std::to_string(int(gb + 8)) + " GB");
      }
      if (coin(rng) == 1) {
        b.Add(chip, "tdp", Value::NotPublished("not disclosed"), chip + " tdp not disclosed");
      } else {
        b.Add(chip, "tdp", Value::Quantity(tdp(rng), "watts", "W"), chip + " tdp W " + std::to_string(c));
      }
      for (const char* format : {"bf16", "fp8", "int8"}) {
        Fact& f = b.Add(chip, "peak_throughput", Value::Quantity(1e12 * tdp(rng), "ops_per_second", "TFLOPS"),
                        chip + " " + format + " throughput", {{"format", format}, {"sparsity", "dense"}});
        f.provenance.section = "throughput table";
        f.provenance.row = c;
        f.provenance.column = format;
      }
      Date released{year(rng), static_cast<uint8_t>(month(rng)), 0, DatePrecision::kMonth};
      Fact& r = b.Add(chip, "released", Value::OfDate(released, released.ToString()), chip + " released");
      r.valid_as_of = released;
      b.Add(chip, "foundry", Value::Entity(coin(rng) < 7 ? "organization:tsmc" : "organization:samsung", ""),
            chip + " foundry");
      b.Add(chip, "memory_type", Value::Text(coin(rng) < 5 ? "HBM3" : "HBM2e"), chip + " memory type");
      b.Add(chip, "safety_critical", Value::Bool(coin(rng) == 0, ""), chip + " safety");
      Fact& d = b.Add(chip, "perf_per_watt", Value::Quantity(0.5, "ops_per_watt", "0.5"), chip + " ppw",
                      {{"format", "bf16"}});
      d.provenance.derivation = Derivation::kStatedDerived;
      d.provenance.formula = "a / b";
      d.provenance.citations = {"https://example.com/" + std::to_string(c)};
      d.provenance.prefix = "pre";
      d.provenance.suffix = "suf";
      d.provenance.attribution = "attr";
      d.provenance.note = "note " + std::to_string(c);
    }
  }
  size_t fact_count() const {
    size_t n = 0;
    for (const auto& d : docs) n += d.facts().size();
    return n;
  }
  std::vector<Fact> AllFacts() const {
    std::vector<Fact> out;
    for (const auto& d : docs) out.insert(out.end(), d.facts().begin(), d.facts().end());
    return out;
  }
};

// Entities, then every document's version, then every fact.
Status AddCorpus(BulkWriter& w, const Corpus& corpus) {
  for (const auto& e : corpus.entities) CHIPKG_RETURN_IF_ERROR(w.AddEntity(e));
  for (const auto& d : corpus.docs) CHIPKG_RETURN_IF_ERROR(w.AddDocumentVersion(d.doc(), d.version()));
  for (const auto& d : corpus.docs) {
    for (const auto& f : d.facts()) CHIPKG_RETURN_IF_ERROR(w.AddFact(f));
  }
  return Status::OK();
}

Status LoadBulk(BulkWriter& w, const Corpus& corpus, const std::string& run_id, ImportStats* stats) {
  CHIPKG_RETURN_IF_ERROR(AddCorpus(w, corpus));
  auto r = w.Finish(run_id);
  if (!r.ok()) return r.status();
  *stats = *r;
  return Status::OK();
}

// Orders claims so generated and read-back lists line up.
void SortClaims(std::vector<Fact>* facts) {
  std::sort(facts->begin(), facts->end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.subject, a.provenance.document_id, a.provenance.span_begin) <
           std::tie(b.subject, b.provenance.document_id, b.provenance.span_begin);
  });
}

void ExpectStoreHoldsCorpus(const Store& store, const Corpus& corpus, TxId tx, const std::string& run_id) {
  auto all = corpus.AllFacts();
  std::map<std::string, std::vector<Fact>> by_subject;
  for (const auto& f : all) by_subject[f.subject].push_back(f);
  for (auto& [subject, want] : by_subject) {
    auto got = store.FactsAbout(subject);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want.size()) << subject;
    SortClaims(&want);
    SortClaims(&got.value());
    for (size_t i = 0; i < want.size(); ++i) {
      ExpectSameClaim(want[i], (*got)[i]);
      EXPECT_EQ((*got)[i].asserted_tx, tx);
      EXPECT_EQ((*got)[i].provenance.run_id, run_id);
      EXPECT_EQ((*got)[i].provenance.document_version, 1u);
    }
  }
  // memory >= 64 GB, in value order.
  std::vector<Fact> want_range;
  for (const auto& f : all) {
    if (f.predicate == "memory" && f.value.kind == ValueKind::kQuantity && f.value.number >= 64 * kGB) {
      want_range.push_back(f);
    }
  }
  ValueRange r;
  r.lower = Value::Quantity(64 * kGB, "bytes", "");
  auto got_range = store.FactsInRange("memory", r);
  ASSERT_TRUE(got_range.ok());
  ASSERT_EQ(got_range->size(), want_range.size());
  for (size_t i = 1; i < got_range->size(); ++i) {
    ASSERT_LE((*got_range)[i - 1].value.number, (*got_range)[i].value.number);
  }
  SortClaims(&want_range);
  SortClaims(&got_range.value());
  for (size_t i = 0; i < want_range.size(); ++i) ExpectSameClaim(want_range[i], (*got_range)[i]);

  for (const auto& d : corpus.docs) {
    auto got = store.FactsFromDocument(d.doc().id);
    ASSERT_TRUE(got.ok());
    std::vector<Fact> want = d.facts();
    ASSERT_EQ(got->size(), want.size());
    SortClaims(&want);
    SortClaims(&got.value());
    for (size_t i = 0; i < want.size(); ++i) ExpectSameClaim(want[i], (*got)[i]);
    auto v = store.LatestDocumentVersion(d.doc().id);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->text, d.text());
    EXPECT_EQ(v->content_hash, Sha256Hex(d.text()));
    EXPECT_EQ(v->tx, tx);
  }
  size_t tsmc = 0;
  for (const auto& f : all) tsmc += f.value.kind == ValueKind::kEntity && f.value.text == "organization:tsmc";
  EXPECT_EQ(store.FactsReferencing("organization:tsmc").value().size(), tsmc);
  EXPECT_EQ(store.FindEntity("gc7").value().id, "chip:gen-7");
}

TEST(BulkTest, LoadReadsBackLikeTheInput) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  Corpus corpus(220);
  ASSERT_GT(corpus.fact_count(), 2000u);
  auto writer = store->StartBulk();
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  // Nothing else writes during the load, and nothing of it is visible yet.
  EXPECT_TRUE(store->PutMeta("x", "y").IsBusy());
  EXPECT_TRUE(store->StartBulk().status().IsBusy());
  for (const auto& e : corpus.entities) ASSERT_TRUE((*writer)->AddEntity(e).ok());
  for (const auto& d : corpus.docs) ASSERT_TRUE((*writer)->AddDocumentVersion(d.doc(), d.version()).ok());
  for (const auto& d : corpus.docs) {
    for (const auto& f : d.facts()) ASSERT_TRUE((*writer)->AddFact(f).ok());
  }
  EXPECT_TRUE(store->FactsAbout("chip:gen-1").value().empty());
  EXPECT_EQ(store->LastTx(), 0u);
  auto stats = (*writer)->Finish("bulk-run");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->facts, corpus.fact_count());
  EXPECT_EQ(stats->documents, corpus.docs.size());
  EXPECT_EQ(stats->entities, corpus.entities.size());
  writer->reset();

  EXPECT_EQ(store->LastTx(), 1u);
  auto txs = store->ListTransactions().value();
  ASSERT_EQ(txs.size(), 1u);
  EXPECT_EQ(txs[0].run_id, "bulk-run");
  ExpectStoreHoldsCorpus(*store, corpus, 1, "bulk-run");
  auto s = store->Statistics().value();
  EXPECT_EQ(s.facts, corpus.fact_count());
  EXPECT_EQ(s.live_facts, corpus.fact_count());
  EXPECT_EQ(s.documents, corpus.docs.size());
  EXPECT_EQ(s.document_versions, corpus.docs.size());
  EXPECT_EQ(s.entities, corpus.entities.size());
  EXPECT_EQ(s.transactions, 1u);
  size_t np = 0;
  for (const auto& f : corpus.AllFacts()) np += f.value.kind == ValueKind::kNotPublished;
  EXPECT_EQ(s.not_published_facts, np);

  // Ordinary writes continue on top: a changed version diffs against bulk-loaded facts.
  DocBuilder changed("doc-0");
  const Fact& keep = corpus.docs[0].facts()[0];
  changed.Add(keep.subject, keep.predicate, keep.value, keep.provenance.excerpt, keep.qualifiers);
  changed.facts()[0].provenance.rule = keep.provenance.rule;
  auto w = store->WriteDocumentVersion(changed.doc(), changed.version(), changed.facts(), "run-2");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->tx, 2u);
  EXPECT_EQ(w->version, 2u);
  EXPECT_EQ(w->facts_kept, 1u);
  EXPECT_EQ(w->facts_retracted, corpus.docs[0].facts().size() - 1);
  EXPECT_EQ(store->FactsFromDocument("doc-0").value().size(), 1u);

  // And the store reopens with all of it.
  store.reset();
  store = OpenOrDie(dir.Sub("s"));
  EXPECT_EQ(store->LastTx(), 2u);
  size_t last_chip_facts = 0;
  for (const auto& f : corpus.AllFacts()) last_chip_facts += f.subject == "chip:gen-219";
  EXPECT_EQ(store->FactsAbout("chip:gen-219").value().size(), last_chip_facts);
  EXPECT_EQ(store->Statistics().value().facts, corpus.fact_count());
  // No temporary files are left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.Sub("s"))) {
    EXPECT_EQ(entry.path().filename().string().find("bulk-tmp"), std::string::npos) << entry.path();
  }
}

// Tiny budgets force sorted runs to spill to disk and be merged, and texts to
// leave the cache; the result must not change.
TEST(BulkTest, SpilledRunsMergeToTheSameStore) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  auto* impl = dynamic_cast<internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);
  Corpus corpus(220, 9);
  ASSERT_TRUE(impl->BeginBulk().ok());
  internal::BulkBudget tiny;
  tiny.index_bytes = 64 << 10;
  tiny.versions_bytes = 64 << 10;
  tiny.text_cache_bytes = 4 << 10;
  internal::BulkWriterImpl writer(impl, /*raw=*/false, tiny);
  ASSERT_TRUE(writer.Init().ok());
  ASSERT_TRUE(AddCorpus(writer, corpus).ok());
  EXPECT_GE(writer.spilled_runs(), 4u);
  auto finished = writer.Finish("spill-run");
  ASSERT_TRUE(finished.ok()) << finished.status().ToString();
  ImportStats stats = *finished;
  Status s;
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(stats.facts, corpus.fact_count());
  ExpectStoreHoldsCorpus(*store, corpus, 1, "spill-run");
}

// Every key and value of one column family, in order.
std::vector<std::pair<std::string, std::string>> ReadCf(internal::StoreImpl* impl, int cf) {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(impl->db()->NewIterator(rocksdb::ReadOptions(), impl->cf(cf)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key().ToString(), it->value().ToString());
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

// The `doc` index carries each fact's whole CORE; stores written before it
// did hold only HEADERs there. FactsFromDocument completes those from `facts`
// (here every other entry, as in an older store written to since) and reads
// the same facts either way; a new version of such a document still keeps and
// retracts exactly the diff.
TEST(BulkTest, HeaderOnlyDocEntriesOfOlderStoresReadTheSame) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  auto* impl = dynamic_cast<internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);
  Corpus corpus(40, 3);
  for (const auto& e : corpus.entities) ASSERT_TRUE(store->PutEntity(e).ok());
  for (const auto& d : corpus.docs) {
    ASSERT_TRUE(store->WriteDocumentVersion(d.doc(), d.version(), d.facts(), "run-1").ok());
  }
  std::map<std::string, std::vector<Fact>> before;
  for (const auto& d : corpus.docs) before[d.doc().id] = store->FactsFromDocument(d.doc().id).value();

  const auto entries = ReadCf(impl, codec::kDocCf);
  ASSERT_GT(entries.size(), 100u);
  rocksdb::WriteBatch batch;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, value] = entries[i];
    ASSERT_TRUE(codec::HoldsCore(value)) << "entry " << i << " of doc holds no CORE (" << value.size() << " bytes)";
    if (i % 2 == 1) continue;
    codec::CoreRecord core;
    ASSERT_TRUE(codec::DecodeCore(value, &core));
    std::string header;
    codec::EncodeCoreHeader(core, &header);
    ASSERT_FALSE(codec::HoldsCore(header));
    ASSERT_TRUE(batch.Put(impl->cf(codec::kDocCf), key, header).ok());
  }
  ASSERT_TRUE(impl->db()->Write(rocksdb::WriteOptions(), &batch).ok());

  for (const auto& d : corpus.docs) {
    const std::vector<Fact>& want = before[d.doc().id];
    auto got = store->FactsFromDocument(d.doc().id);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want.size()) << d.doc().id;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*got)[i].id, want[i].id);
      ExpectSameClaim(want[i], (*got)[i]);
      EXPECT_EQ((*got)[i].provenance.excerpt, want[i].provenance.excerpt);
    }
  }

  // Version 2 of the first document drops its last fact: one retraction, the rest kept.
  const DocBuilder& first = corpus.docs.front();
  std::vector<Fact> fewer = first.facts();
  fewer.pop_back();
  DocumentVersion v2 = first.version();
  v2.text += "\n(revised)";
  auto summary = store->WriteDocumentVersion(first.doc(), v2, fewer, "run-2");
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->facts_retracted, 1u);
  EXPECT_EQ(summary->facts_kept, fewer.size());
  EXPECT_EQ(summary->facts_added, 0u);
  EXPECT_EQ(store->FactsFromDocument(first.doc().id).value().size(), fewer.size());
}

// The index CFs come out byte for byte the same whether the fact indexes fit
// in memory or spill many runs (several spills per index, a final partial run,
// entity references in some runs only).
TEST(BulkTest, IndexesAreTheSameWithOrWithoutSpilling) {
  TempDir dir;
  Corpus corpus(300, 5);
  auto load = [&](const std::string& name, internal::BulkBudget budget, size_t* runs) {
    auto store = OpenOrDie(dir.Sub(name));
    auto* impl = dynamic_cast<internal::StoreImpl*>(store.get());
    EXPECT_NE(impl, nullptr);
    EXPECT_TRUE(impl->BeginBulk().ok());
    internal::BulkWriterImpl writer(impl, /*raw=*/false, budget);
    EXPECT_TRUE(writer.Init().ok());
    EXPECT_TRUE(AddCorpus(writer, corpus).ok());
    *runs = writer.spilled_runs();
    auto finished = writer.Finish("same-run");
    EXPECT_TRUE(finished.ok()) << finished.status().ToString();
    return store;
  };
  internal::BulkBudget tiny;
  tiny.index_bytes = 64 << 10;  // the least a sorter takes
  size_t big_runs = 0, tiny_runs = 0;
  auto big = load("big", internal::BulkBudget{}, &big_runs);
  auto small = load("tiny", tiny, &tiny_runs);
  EXPECT_EQ(big_runs, 0u);
  EXPECT_GE(tiny_runs, 12u);
  auto* a = dynamic_cast<internal::StoreImpl*>(big.get());
  auto* b = dynamic_cast<internal::StoreImpl*>(small.get());
  for (int cf : {codec::kFactsCf, codec::kSpoCf, codec::kPosCf, codec::kDocCf, codec::kRefCf, codec::kVersionsCf,
                 codec::kContestedCf}) {
    auto x = ReadCf(a, cf), y = ReadCf(b, cf);
    EXPECT_FALSE(x.empty()) << codec::CfName(cf);
    EXPECT_TRUE(x == y) << codec::CfName(cf) << ": " << x.size() << " vs " << y.size() << " entries";
  }
  EXPECT_EQ(ReadCf(a, codec::kSpoCf).size(), corpus.fact_count());
  EXPECT_EQ(ReadCf(a, codec::kPosCf).size(), corpus.fact_count());
}

// Version texts stream into a file of their own while their keys ascend (new
// documents get growing ids); a new version of a document stored before, whose
// id lies among them, goes through the sorter instead. Both files hold keys of
// one key range and are ingested together; every text reads back.
TEST(BulkTest, VersionTextsOutOfKeyOrderAreSortedBesideTheStreamedOnes) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  auto* impl = dynamic_cast<internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);
  Corpus corpus(60, 3);
  // doc-1 and doc-3 are stored first: their ids are the lowest, doc-1's below doc-3's.
  for (int i : {1, 3}) {
    DocBuilder first("doc-" + std::to_string(i));
    first.AddText("first version of doc-" + std::to_string(i));
    ASSERT_TRUE(store->WriteDocumentVersion(first.doc(), first.version(), {}, "before").ok());
  }
  ASSERT_TRUE(impl->BeginBulk().ok());
  internal::BulkWriterImpl writer(impl, /*raw=*/false);
  ASSERT_TRUE(writer.Init().ok());
  for (const auto& e : corpus.entities) ASSERT_TRUE(writer.AddEntity(e).ok());
  // doc-1 (streamed), doc-0 and doc-2 (new ids above it: streamed), doc-3
  // (its id between doc-1's and doc-0's: sorted), the rest (streamed).
  std::vector<size_t> order = {1, 0, 2, 3};
  for (size_t i = 4; i < corpus.docs.size(); ++i) order.push_back(i);
  for (size_t i : order) {
    ASSERT_TRUE(writer.AddDocumentVersion(corpus.docs[i].doc(), corpus.docs[i].version()).ok()) << i;
  }
  for (const auto& d : corpus.docs) {
    for (Fact f : d.facts()) {
      f.provenance.document_version = 0;  // the latest: version 2 for doc-1 and doc-3
      ASSERT_TRUE(writer.AddFact(f).ok());
    }
  }
  EXPECT_EQ(writer.sorted_texts(), 1u);
  auto finished = writer.Finish("mixed-run");
  ASSERT_TRUE(finished.ok()) << finished.status().ToString();
  EXPECT_EQ(finished->facts, corpus.fact_count());

  for (int i : {1, 3}) {
    const std::string id = "doc-" + std::to_string(i);
    auto first = store->GetDocumentVersion(id, 1);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_EQ(first->text, "first version of " + id + "\n");
    auto latest = store->LatestDocumentVersion(id);
    ASSERT_TRUE(latest.ok());
    EXPECT_EQ(latest->version, 2u);
    EXPECT_EQ(latest->text, corpus.docs[i].text());
    EXPECT_EQ(store->FactsFromDocument(id, 2u).value().size(), corpus.docs[i].facts().size());
  }
  for (size_t i = 0; i < corpus.docs.size(); ++i) {
    auto v = store->LatestDocumentVersion(corpus.docs[i].doc().id);
    ASSERT_TRUE(v.ok()) << i;
    EXPECT_EQ(v->text, corpus.docs[i].text()) << i;
    EXPECT_EQ(v->content_hash, Sha256Hex(corpus.docs[i].text())) << i;
  }
  // The store reopens with the interleaved files.
  store.reset();
  store = OpenOrDie(dir.Sub("s"));
  EXPECT_EQ(store->LatestDocumentVersion("doc-3").value().text, corpus.docs[3].text());
  EXPECT_EQ(store->GetDocumentVersion("doc-3", 1).value().text, "first version of doc-3\n");
}

// Bulk files are written with direct I/O; where the file system refuses it,
// with ordinary writes, and the load is the same.
TEST(BulkTest, LoadFallsBackToBufferedWritesWhereDirectIoIsRefused) {
  TempDir dir;
  Corpus corpus(80, 4);
  // Whether this file system opens files for direct I/O at all.
  const std::string probe = dir.Sub("probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
  const bool direct_io_works = fd >= 0;
  if (fd >= 0) ::close(fd);
  for (bool refuse : {false, true}) {
    SCOPED_TRACE(refuse ? "direct writes refused" : "direct writes allowed");
    auto store = OpenOrDie(dir.Sub(refuse ? "refused" : "allowed"));
    auto* impl = dynamic_cast<internal::StoreImpl*>(store.get());
    ASSERT_NE(impl, nullptr);
    internal::RefuseDirectWritesForTesting(refuse);
    ASSERT_TRUE(impl->BeginBulk().ok());
    internal::BulkWriterImpl writer(impl, /*raw=*/false);
    ASSERT_TRUE(writer.Init().ok());
    ASSERT_TRUE(AddCorpus(writer, corpus).ok());
    auto finished = writer.Finish("direct-run");
    internal::RefuseDirectWritesForTesting(false);
    ASSERT_TRUE(finished.ok()) << finished.status().ToString();
    EXPECT_EQ(writer.direct_writes(), !refuse && direct_io_works);
    ExpectStoreHoldsCorpus(*store, corpus, 1, "direct-run");
  }
}

// A pos key of up to 24 bytes is sorted and written from the entry's own
// words; a longer one (a long text) from a record of its own. Texts that agree
// on their first 24 key bytes, or are prefixes of one another, must come out
// in the order (and with the bytes) that one write at a time gives the index,
// with or without spilling.
TEST(BulkTest, LongAndShortIndexKeysSortAsSingleWritesDo) {
  TempDir dir;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(0, 8), gb(1, 9);
  // A text's key is 15 bytes and its length: 8, 9 and 10 characters make keys
  // of 23, 24 and 25 bytes, either side of what the sort words hold.
  const std::vector<std::string> stems = {"",         "HBM",       "HBM3",       "CoWoS-S interposer",
                                          "CoWoS-S ", "CoWoS-S i", "CoWoS-S in", "CoWoS-S interposer, rev ",
                                          "CoWoS-S interposer, revision b of the package"};
  std::vector<DocBuilder> docs;
  for (int d = 0; d < 4; ++d) {
    docs.emplace_back("doc-" + std::to_string(d));
    for (int c = 0; c < 150; ++c) {
      const std::string chip = "chip:k" + std::to_string((c * 7 + d) % 90);
      std::string text = stems[pick(rng)];
      if (pick(rng) < 3) text += std::string(1, static_cast<char>('a' + pick(rng)));
      if (text.empty()) text = "x";
      docs.back().Add(chip, "package", Value::Text(text), chip + " package " + text);
      docs.back().Add(chip, "memory", Value::Quantity(gb(rng) * 8 * kGB, "bytes", "GB"), chip + " memory");
    }
  }
  // Each predicate's value keys in index order, by value kind (the two
  // stores number predicates and facts differently).
  auto pos_keys_without_ids = [](internal::StoreImpl* impl) {
    std::map<char, std::vector<std::string>> keys;
    for (auto& [k, v] : ReadCf(impl, codec::kPosCf)) keys[k[4]].push_back(k.substr(4, k.size() - 12));
    return keys;
  };
  auto single = OpenOrDie(dir.Sub("single"));
  for (const auto& d : docs) ASSERT_TRUE(single->WriteDocumentVersion(d.doc(), d.version(), d.facts(), "r").ok());
  const auto want = pos_keys_without_ids(dynamic_cast<internal::StoreImpl*>(single.get()));
  ASSERT_EQ(want.size(), 2u);
  size_t long_keys = 0;
  for (const auto& [kind, keys] : want) {
    EXPECT_EQ(keys.size(), 4u * 150);
    for (const auto& k : keys) long_keys += 4 + k.size() + 8 > 24;
  }
  ASSERT_GT(long_keys, 100u);

  for (size_t budget : {size_t{64} << 20, size_t{16} << 10}) {
    SCOPED_TRACE("index budget " + std::to_string(budget));
    auto store = OpenOrDie(dir.Sub("bulk-" + std::to_string(budget)));
    auto* impl = dynamic_cast<internal::StoreImpl*>(store.get());
    ASSERT_TRUE(impl->BeginBulk().ok());
    internal::BulkBudget b;
    b.index_bytes = budget;
    internal::BulkWriterImpl writer(impl, /*raw=*/false, b);
    ASSERT_TRUE(writer.Init().ok());
    for (const auto& d : docs) ASSERT_TRUE(writer.AddDocumentVersion(d.doc(), d.version()).ok());
    for (const auto& d : docs) {
      for (const auto& f : d.facts()) ASSERT_TRUE(writer.AddFact(f).ok());
    }
    if (budget < (1 << 20)) {
      EXPECT_GE(writer.spilled_runs(), 2u);
    }
    auto finished = writer.Finish("keys");
    ASSERT_TRUE(finished.ok()) << finished.status().ToString();
    EXPECT_EQ(pos_keys_without_ids(impl), want);
  }
}

TEST(BulkTest, FailedLoadLeavesNothing) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  ASSERT_TRUE(store->PutEntity({"chip:before", "chip", "Before", {}}).ok());
  Corpus corpus(30);
  {
    auto writer = store->StartBulk();
    ASSERT_TRUE(writer.ok());
    for (const auto& d : corpus.docs) ASSERT_TRUE((*writer)->AddDocumentVersion(d.doc(), d.version()).ok());
    for (const auto& e : corpus.entities) ASSERT_TRUE((*writer)->AddEntity(e).ok());
    Fact bad = corpus.docs[1].facts()[3];
    bad.provenance.excerpt = "not what the text says";
    for (size_t i = 0; i < 20; ++i) ASSERT_TRUE((*writer)->AddFact(corpus.docs[0].facts()[i]).ok());
    Status add = (*writer)->AddFact(bad);
    EXPECT_TRUE(add.IsInvalidArgument()) << add.ToString();
    Fact unknown_doc = corpus.docs[0].facts()[0];
    unknown_doc.provenance.document_id = "doc-never-added";
    EXPECT_FALSE((*writer)->AddFact(unknown_doc).ok());
    auto finish = (*writer)->Finish("failed-run");
    EXPECT_FALSE(finish.ok());
  }
  {
    // Abandoned without Finish.
    auto writer = store->StartBulk();
    ASSERT_TRUE(writer.ok());
    for (const auto& d : corpus.docs) ASSERT_TRUE((*writer)->AddDocumentVersion(d.doc(), d.version()).ok());
    for (const auto& f : corpus.docs[0].facts()) ASSERT_TRUE((*writer)->AddFact(f).ok());
  }
  EXPECT_EQ(store->LastTx(), 1u);
  EXPECT_TRUE(store->FactsAbout("chip:gen-1").value().empty());
  EXPECT_TRUE(store->ListDocuments().value().empty());
  EXPECT_EQ(store->ListEntities().value().size(), 1u);
  auto stats = store->Statistics().value();
  EXPECT_EQ(stats.facts, 0u);
  EXPECT_EQ(stats.documents, 0u);
  for (const auto& entry : std::filesystem::directory_iterator(dir.Sub("s"))) {
    EXPECT_EQ(entry.path().filename().string().find("bulk-tmp"), std::string::npos) << entry.path();
  }
  // A directory left by a process that died mid-load goes at the next open.
  store.reset();
  std::filesystem::create_directories(dir.Sub("s/bulk-tmp-99999-0"));
  std::ofstream(dir.Sub("s/bulk-tmp-99999-0/spo-run-0")) << "partial";
  store = OpenOrDie(dir.Sub("s"));
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("s/bulk-tmp-99999-0")));
  // The store is writable again, and a good load numbers on from the store.
  auto writer = store->StartBulk();
  ASSERT_TRUE(writer.ok());
  ImportStats ok_stats;
  Status s = LoadBulk(**writer, corpus, "good-run", &ok_stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(store->LastTx(), 2u);
  ExpectStoreHoldsCorpus(*store, corpus, 2, "good-run");
}

TEST(BulkTest, LoadOnTopReplacesEntitiesAndAddsVersions) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  ASSERT_TRUE(store->PutEntity({"chip:gen-0", "chip", "Old Name", {"Legacy Alias"}}).ok());
  Corpus corpus(20);
  Document old_doc = corpus.docs[0].doc();
  old_doc.title = "Old title";
  ASSERT_TRUE(store->WriteDocumentVersion(old_doc, corpus.docs[0].version(), {}, "r").ok());
  EXPECT_EQ(store->GetDocument("doc-0").value().title, "Old title");  // kept by the store from here
  EXPECT_EQ(store->GetEntity("chip:gen-0").value().name, "Old Name");
  const TxId gen0_tx = store->GetEntity("chip:gen-0").value().created_tx;
  ASSERT_NE(gen0_tx, 0u);
  auto writer = store->StartBulk();
  ASSERT_TRUE(writer.ok());
  ImportStats stats;
  Status s = LoadBulk(**writer, corpus, "top", &stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(store->FindEntity("legacy alias").status().IsNotFound());
  EXPECT_EQ(store->FindEntity("Generated Chip 0").value().id, "chip:gen-0");
  // doc-0 had version 1 already: the load added version 2 and its facts name it.
  EXPECT_EQ(store->LatestDocumentVersion("doc-0").value().version, 2u);
  EXPECT_EQ(store->GetDocument("doc-0").value().title, corpus.docs[0].doc().title);  // the load's record
  EXPECT_EQ(store->GetEntity("chip:gen-0").value().name, "Generated Chip 0");
  EXPECT_EQ(store->GetEntities({"chip:gen-0"}).value()[0]->name, "Generated Chip 0");
  // A replaced entity keeps the transaction that first stored it; a new one has the load's.
  EXPECT_EQ(store->GetEntity("chip:gen-0").value().created_tx, gen0_tx);
  EXPECT_EQ(store->GetEntity("chip:gen-1").value().created_tx, store->LastTx());
  auto facts = store->FactsFromDocument("doc-0", 2u);
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->size(), corpus.docs[0].facts().size());
  auto st = store->Statistics().value();
  EXPECT_EQ(st.entities, corpus.entities.size());
  EXPECT_EQ(st.documents, corpus.docs.size());
  EXPECT_EQ(st.document_versions, corpus.docs.size() + 1);
}

}  // namespace
}  // namespace chipkg
