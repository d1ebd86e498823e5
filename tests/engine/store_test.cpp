// Store behaviour through the public contract (engine/store.h), on real
// RocksDB stores in temporary directories.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "engine/store.h"
#include "engine/store_impl.h"
#include "tests/engine/test_util.h"

namespace chipkg {
namespace {

using testing::DocBuilder;
using testing::ExpectSameClaim;
using testing::OpenOrDie;
using testing::TempDir;
using testing::WriteThenDieBeforeAFlush;

constexpr double kGB = 1e9;

Date D(const char* iso) { return *Date::Parse(iso); }

// One document that states a fact of every value kind, with every provenance field set.
DocBuilder EveryKindDocument() {
  DocBuilder b("doc-every");
  b.AddText("AWS Trainium (Trn1) spec sheet");
  Fact& mem = b.Add("chip:aws-trainium", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory: 32 GB");
  mem.provenance.section = "4.Full spec table";
  mem.provenance.prefix = "sheet\n";
  mem.provenance.suffix = "\nBandwidth";
  mem.provenance.row = 3;
  mem.provenance.column = "Memory (bytes)";
  mem.provenance.attribution = "Straight from the vendor datasheet";
  mem.provenance.citations = {"https://aws.amazon.com/machine-learning/trainium/", "4"};
  mem.provenance.note = "per chip";
  mem.valid_as_of = D("2023-11");
  b.Add("chip:aws-trainium", "memory_bandwidth", Value::Quantity(820 * kGB, "bytes_per_second", "820 GB/s"),
        "Bandwidth: 820 GB/s");
  Fact& ppw = b.Add("chip:aws-trainium", "perf_per_watt", Value::Quantity(0.42e12, "ops_per_watt", "0.42 TFLOPS/W"),
                    "0.42 BF16 TFLOPS/W", {{"format", "bf16"}, {"sparsity", "dense"}});
  ppw.provenance.derivation = Derivation::kStatedDerived;
  ppw.provenance.formula = "210 TFLOPS ÷ 500 W";
  b.Add("chip:aws-trainium", "released", Value::OfDate(D("2022-10"), "October 2022"), "Released October 2022");
  b.Add("chip:aws-trainium", "foundry", Value::Entity("organization:tsmc", "TSMC"), "Fabricated by TSMC");
  b.Add("chip:aws-trainium", "memory_type", Value::Text("HBM2e"), "Memory type: HBM2e");
  b.Add("chip:aws-trainium", "safety_critical", Value::Bool(false, "no"), "Safety critical: no");
  b.Add("chip:aws-trainium", "die_size", Value::NotPublished("not published"), "Die size: not published");
  b.Add("chip:aws-trainium", "tdp", Value::Quantity(-0.0, "watts", "0 W"), "Idle: 0 W");
  return b;
}

const Fact* FindFact(const std::vector<Fact>& facts, const std::string& predicate) {
  for (const auto& f : facts) {
    if (f.predicate == predicate) return &f;
  }
  return nullptr;
}

TEST(StoreTest, RoundTripOfEveryValueKindAndProvenanceField) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b = EveryKindDocument();
  DocumentVersion v = b.version();
  v.as_of = D("2023-11-28");
  auto summary = store->WriteDocumentVersion(b.doc(), v, b.facts(), "run-1");
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_TRUE(summary->new_version);
  EXPECT_EQ(summary->version, 1u);
  EXPECT_EQ(summary->tx, 1u);
  EXPECT_EQ(summary->facts_added, b.facts().size());

  auto facts = store->FactsAbout("chip:aws-trainium");
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  ASSERT_EQ(facts->size(), b.facts().size());
  std::set<uint64_t> ids;
  for (const Fact& want : b.facts()) {
    const Fact* got = FindFact(*facts, want.predicate);
    ASSERT_NE(got, nullptr) << want.predicate;
    Fact expected = want;
    if (expected.value.kind == ValueKind::kQuantity && expected.value.number == 0) expected.value.number = 0.0;
    ExpectSameClaim(expected, *got);
    EXPECT_EQ(got->provenance.document_version, 1u);
    EXPECT_EQ(got->provenance.run_id, "run-1");
    EXPECT_EQ(got->asserted_tx, 1u);
    EXPECT_EQ(got->retracted_tx, 0u);
    EXPECT_TRUE(got->live());
    ids.insert(got->id);
    auto one = store->GetFact(got->id);
    ASSERT_TRUE(one.ok());
    ExpectSameClaim(expected, *one);
    EXPECT_EQ(one->id, got->id);
  }
  EXPECT_EQ(ids.size(), b.facts().size());
  EXPECT_FALSE(std::signbit(FindFact(*facts, "tdp")->value.number));  // -0.0 is stored as 0

  auto per_predicate = store->FactsAbout("chip:aws-trainium", "memory");
  ASSERT_TRUE(per_predicate.ok());
  ASSERT_EQ(per_predicate->size(), 1u);
  EXPECT_EQ(per_predicate->front().value.original, "32 GB");

  auto doc = store->GetDocument("doc-every");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->url, b.doc().url);
  EXPECT_EQ(doc->title, b.doc().title);
  EXPECT_EQ(doc->site, "example.com");
  EXPECT_EQ(doc->kind, "vendor");
  auto version = store->GetDocumentVersion("doc-every", 1);
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(version->text, b.text());
  EXPECT_EQ(version->content_hash, Sha256Hex(b.text()));
  EXPECT_EQ(version->fetched_at, 1700000000);
  EXPECT_EQ(version->as_of, D("2023-11-28"));
  EXPECT_EQ(version->content_type, "text/plain");
  EXPECT_EQ(version->tx, 1u);
  EXPECT_EQ(version->document_id, "doc-every");
  // Every span can be re-read from the stored text.
  for (const Fact& f : *facts) {
    EXPECT_EQ(version->text.substr(f.provenance.span_begin, f.provenance.span_end - f.provenance.span_begin),
              f.provenance.excerpt);
  }

  auto refs = store->FactsReferencing("organization:tsmc");
  ASSERT_TRUE(refs.ok());
  ASSERT_EQ(refs->size(), 1u);
  EXPECT_EQ(refs->front().predicate, "foundry");

  auto stats = store->Statistics();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->facts, b.facts().size());
  EXPECT_EQ(stats->live_facts, b.facts().size());
  EXPECT_EQ(stats->not_published_facts, 1u);
  EXPECT_EQ(stats->documents, 1u);
  EXPECT_EQ(stats->document_versions, 1u);
  EXPECT_EQ(stats->transactions, 1u);
  EXPECT_GT(stats->disk_bytes, 0u);

  ReadView lean;
  lean.with_provenance = false;
  auto lean_facts = store->FactsAbout("chip:aws-trainium", "memory", lean);
  ASSERT_TRUE(lean_facts.ok());
  ASSERT_EQ(lean_facts->size(), 1u);
  EXPECT_EQ(lean_facts->front().provenance.document_id, "doc-every");
  EXPECT_EQ(lean_facts->front().provenance.rule, "test-rule");
  EXPECT_TRUE(lean_facts->front().provenance.excerpt.empty());
}

TEST(StoreTest, UnknownNamesReadAsEmptyOrNotFound) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  auto facts = store->FactsAbout("chip:none");
  ASSERT_TRUE(facts.ok());
  EXPECT_TRUE(facts->empty());
  EXPECT_TRUE(store->GetFact(12345).status().IsNotFound());
  EXPECT_TRUE(store->GetEntity("chip:none").status().IsNotFound());
  EXPECT_TRUE(store->GetDocument("nope").status().IsNotFound());
  EXPECT_TRUE(store->LatestDocumentVersion("nope").status().IsNotFound());
  EXPECT_TRUE(store->GetMeta("x").status().IsNotFound());
  EXPECT_EQ(store->LastTx(), 0u);
}

TEST(StoreTest, ReopenAfterCloseKeepsEverything) {
  TempDir dir;
  DocBuilder b = EveryKindDocument();
  std::vector<Fact> before;
  {
    auto store = OpenOrDie(dir.Sub("s"));
    ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1").ok());
    ASSERT_TRUE(store->PutEntity({"chip:aws-trainium", "chip", "AWS Trainium", {"Trn1"}}).ok());
    ASSERT_TRUE(store->PutMeta("match/trn1", "confirmed").ok());
    before = store->FactsAbout("chip:aws-trainium").value();
  }
  auto store = OpenOrDie(dir.Sub("s"));
  auto after = store->FactsAbout("chip:aws-trainium");
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    ExpectSameClaim(before[i], (*after)[i]);
    EXPECT_EQ(before[i].id, (*after)[i].id);
  }
  EXPECT_EQ(store->LastTx(), 2u);
  EXPECT_EQ(store->GetMeta("match/trn1").value(), "confirmed");
  EXPECT_EQ(store->FindEntity("trn-1").value().id, "chip:aws-trainium");
  EXPECT_EQ(store->Statistics().value().facts, b.facts().size());
  // New writes continue the numbering.
  DocBuilder b2("doc-2");
  b2.Add("chip:x", "memory", Value::Quantity(1, "bytes", "1 B"), "1 B");
  auto s = store->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "run-2");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->tx, 3u);
  EXPECT_GT(store->FactsAbout("chip:x").value().front().id, before.back().id);
}

// What a caller records about a document's claims (which rules read them) goes in the claims' own
// batch: a write refused writes neither, so no kill between two writes can leave a record about
// claims that are not there; a write that changes no claim (the same text, or the same facts read
// again) writes the record alone.
TEST(StoreTest, MetaRecordsStandOrFallWithTheClaimsTheyDescribe) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b("doc-1");
  b.Add("chip:x", "memory", Value::Quantity(1e9, "bytes", "1 GB"), "1 GB");
  auto record = [](const std::string& rules) { return MetaRecords{{"rules-read/doc-1", rules}}; };
  std::vector<Fact> misquoted = b.facts();
  misquoted[0].provenance.excerpt = "2 GB";
  auto refused = store->WriteDocumentVersion(b.doc(), b.version(), misquoted, "run-1", {}, record("r1"));
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  EXPECT_TRUE(store->GetMeta("rules-read/doc-1").status().IsNotFound());

  auto written = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1", {}, record("r1"));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(store->GetMeta("rules-read/doc-1").value(), "r1");
  auto same_text = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-2", {}, record("r2"));
  ASSERT_TRUE(same_text.ok());
  EXPECT_EQ(same_text->tx, 0u);
  EXPECT_EQ(store->GetMeta("rules-read/doc-1").value(), "r2");
  auto same_facts = store->RestateDocumentVersion(b.doc(), b.facts(), "run-3", {}, record("r3"));
  ASSERT_TRUE(same_facts.ok());
  EXPECT_EQ(same_facts->tx, 0u);
  EXPECT_EQ(store->GetMeta("rules-read/doc-1").value(), "r3");
  std::vector<Fact> read_otherwise = b.facts();
  read_otherwise[0].value = Value::Quantity(1.5e9, "bytes", "1 GB");
  auto restated = store->RestateDocumentVersion(b.doc(), read_otherwise, "run-4", {}, record("r4"));
  ASSERT_TRUE(restated.ok());
  EXPECT_NE(restated->tx, 0u);
  EXPECT_EQ(store->GetMeta("rules-read/doc-1").value(), "r4");

  const TxId last = store->LastTx();
  DocBuilder other("doc-2");
  other.Add("chip:y", "memory", Value::Quantity(2e9, "bytes", "2 GB"), "2 GB");
  auto unnamed = store->WriteDocumentVersion(other.doc(), other.version(), other.facts(), "run-5", {}, {{"", "x"}});
  EXPECT_TRUE(unnamed.status().IsInvalidArgument()) << unnamed.status().ToString();
  EXPECT_EQ(store->LastTx(), last);
  EXPECT_TRUE(store->FactsAbout("chip:y").value().empty());
}

// What a store says, by predicate and form of value, for a schema to be held against: live facts
// only (a retracted claim is history, not what queries read), each form apart, one subject named.
TEST(StoreTest, PredicateUsesCountLiveFactsByTheFormOfTheirValue) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder first("doc-1");
  first.Add("chip:b", "memory", Value::Quantity(1e9, "bytes", "1 GB"), "1 GB");
  first.Add("chip:a", "memory", Value::Quantity(2, "seconds", "2 s"), "2 s");
  first.Add("chip:a", "foundry", Value::Text("TSMC"), "TSMC");
  ASSERT_TRUE(store->WriteDocumentVersion(first.doc(), first.version(), first.facts(), "run-1").ok());
  DocBuilder second("doc-1");
  second.Add("chip:b", "memory", Value::Quantity(1e9, "bytes", "1 GB"), "1 GB");
  second.Add("chip:c", "memory", Value::Quantity(3e9, "bytes", "3 GB"), "3 GB");
  second.Add("chip:c", "tdp", Value::NotPublished("not disclosed"), "not disclosed");
  ASSERT_TRUE(store->WriteDocumentVersion(second.doc(), second.version(), second.facts(), "run-2").ok());
  auto uses = store->PredicateUses();
  ASSERT_TRUE(uses.ok()) << uses.status().ToString();
  ASSERT_EQ(uses->size(), 2u);
  EXPECT_EQ((*uses)[0].predicate, "memory");
  EXPECT_EQ((*uses)[0].kind, ValueKind::kQuantity);
  EXPECT_EQ((*uses)[0].dimension, "bytes");
  EXPECT_EQ((*uses)[0].facts, 2u);
  EXPECT_EQ((*uses)[0].first_subject, "chip:b");
  EXPECT_EQ((*uses)[1].predicate, "tdp");
  EXPECT_EQ((*uses)[1].kind, ValueKind::kNotPublished);
  EXPECT_EQ((*uses)[1].facts, 1u);
}

// Sessions that write nothing (an unchanged cron ingest, a REPL of queries) each left a WAL file
// behind, never deleted, and every later open replayed them all. The store keeps a few, and what
// was written before stays readable, to the writer and to a reader.
TEST(StoreTest, SessionsThatWriteNothingLeaveNoFilesBehind) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  DocBuilder b = EveryKindDocument();
  {
    auto store = OpenOrDie(path);
    ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1").ok());
  }
  auto wal_files = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(path)) n += e.path().extension() == ".log";
    return n;
  };
  size_t most = 0;
  for (int session = 0; session < 30; ++session) {
    auto store = OpenOrDie(path);
    ASSERT_EQ(store->FactsAbout("chip:aws-trainium").value().size(), b.facts().size()) << "session " << session;
    most = std::max(most, wal_files());
  }
  EXPECT_LE(most, 6u);
  auto store = OpenOrDie(path);
  EXPECT_EQ(store->Statistics().value().facts, b.facts().size());
  EXPECT_EQ(store->LastTx(), 1u);  // the sessions wrote no transaction
  store.reset();
  auto reader = Store::OpenReader(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->FactsAbout("chip:aws-trainium").value().size(), b.facts().size());
}

// A reader opened with fill_block_cache = false reads the same facts; its batched reads of many
// subjects or ids leave their blocks out of the block cache, while small reads still fill it. By
// default every read's blocks stay cached.
TEST(StoreTest, AReaderThatReadsOnceKeepsNoBlocksOfItsLargeReads) {
  TempDir dir;
  {
    auto store = OpenOrDie(dir.Sub("s"));
    for (int d = 0; d < 20; ++d) {
      DocBuilder b("doc-" + std::to_string(d));
      for (int i = 0; i < 200; ++i) {
        const std::string chip = "chip:c" + std::to_string(i);
        b.Add(chip, "memory", Value::Quantity((i + d) * 1e9, "bytes", std::to_string(i + d) + " GB"),
              chip + " has " + std::to_string(i + d) + " GB of memory according to document " + std::to_string(d));
      }
      ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1").ok());
    }
  }  // closing flushes: the reads below come from table files
  std::vector<EntityId> chips;
  for (int i = 0; i < 200; ++i) chips.push_back("chip:c" + std::to_string(i));
  struct Usage {
    size_t opened = 0, after_large = 0, after_small = 0;
  };
  auto read = [&](bool fill) {
    Usage u;
    StoreOptions options;
    options.fill_block_cache = fill;
    auto store = Store::OpenReader(dir.Sub("s"), options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return u;
    auto* impl = dynamic_cast<internal::StoreImpl*>(store->get());
    EXPECT_NE(impl, nullptr);
    if (impl == nullptr) return u;
    u.opened = impl->BlockCacheUsage();
    ReadView cores_only;  // as the query evaluator reads: provenance apart, in large batches
    cores_only.with_provenance = false;
    auto each = (*store)->FactsAboutEach(chips, "memory", cores_only);
    EXPECT_TRUE(each.ok());
    std::vector<uint64_t> ids;
    for (const auto& facts : *each) {
      EXPECT_EQ(facts.size(), 20u);
      for (const Fact& f : facts) ids.push_back(f.id);
    }
    auto prov = (*store)->ReadProvenance(ids);
    EXPECT_TRUE(prov.ok());
    EXPECT_EQ(prov->size(), 4000u);
    EXPECT_NE(prov->back().excerpt.find("according to document"), std::string::npos);
    u.after_large = impl->BlockCacheUsage();
    EXPECT_EQ((*store)->FactsAbout("chip:c7").value().size(), 20u);
    EXPECT_EQ((*store)->ReadProvenance({ids[0]}).value().size(), 1u);
    u.after_small = impl->BlockCacheUsage();
    return u;
  };
  const Usage once = read(false);
  const Usage fill = read(true);
  // The once-reader's large reads cache only the dictionary's few blocks (names are small reads).
  EXPECT_GT(fill.after_large, fill.opened + 64 * 1024);
  EXPECT_LT(once.after_large - once.opened, (fill.after_large - fill.opened) / 10);
  EXPECT_GT(once.after_small, once.after_large);
}

TEST(StoreTest, FailedWriteLeavesNothingVisible) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b("doc-bad");
  b.Add("chip:a", "memory", Value::Quantity(16 * kGB, "bytes", "16 GB"), "Memory: 16 GB");
  Fact& bad = b.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), "TDP: 500 W");
  bad.provenance.excerpt = "TDP: 600 W";  // does not match the text at its span
  auto r = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("TDP: 600 W"), std::string::npos) << r.status().ToString();

  b.facts()[1].provenance.excerpt = "TDP: 500 W";
  b.facts()[1].provenance.span_end = 100000;  // outside the text
  r = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outside"), std::string::npos) << r.status().ToString();

  b.facts()[1].provenance.span_end = b.facts()[1].provenance.span_begin + 10;
  b.facts()[1].value.number = std::nan("");
  r = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("NaN"), std::string::npos) << r.status().ToString();

  EXPECT_EQ(store->LastTx(), 0u);
  EXPECT_TRUE(store->FactsAbout("chip:a").value().empty());
  EXPECT_TRUE(store->GetDocument("doc-bad").status().IsNotFound());
  EXPECT_TRUE(store->ListDocumentVersions("doc-bad").value().empty());
  EXPECT_TRUE(store->ListTransactions().value().empty());
  auto stats = store->Statistics().value();
  EXPECT_EQ(stats.facts, 0u);
  EXPECT_EQ(stats.documents, 0u);

  // The same document, corrected, goes in as version 1 with transaction 1.
  b.facts()[1].value.number = 500;
  auto ok = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->tx, 1u);
  EXPECT_EQ(ok->version, 1u);
  EXPECT_EQ(store->FactsAbout("chip:a").value().size(), 2u);
}

// A full disk (here a file-size limit of 0, as `ulimit -f 0`): a writer's
// open or write fails with an error, never an abort (RocksDB's own info log
// asserted when a write to it failed, and Debian's library keeps assertions),
// and the store keeps what it held.
TEST(StoreTest, AWriterOnAFullDiskFailsCleanlyAndLosesNothing) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  {
    auto store = OpenOrDie(path);
    DocBuilder b("doc-kept");
    b.Add("chip:a", "memory", Value::Quantity(16 * kGB, "bytes", "16 GB"), "Memory: 16 GB");
    ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run").ok());
  }
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
    const rlimit none{0, 0};
    if (setrlimit(RLIMIT_FSIZE, &none) != 0) _exit(100);
    auto store = Store::Open(path);
    if (!store.ok()) _exit(store.status().message().find("File too large") != std::string::npos ? 10 : 101);
    DocBuilder b("doc-new");
    b.Add("chip:b", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory: 32 GB");
    auto r = (*store)->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run");
    _exit(r.ok() ? 102 : 11);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the writer died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_TRUE(WEXITSTATUS(status) == 10 || WEXITSTATUS(status) == 11) << "exit " << WEXITSTATUS(status);

  auto store = OpenOrDie(path);
  EXPECT_EQ(store->FactsAbout("chip:a").value().size(), 1u);
  EXPECT_TRUE(store->FactsAbout("chip:b").value().empty());
}

// A write-ahead log damaged before its end (a flipped byte, with good
// records after it) refuses every open, saying so: read in RocksDB's default
// mode, the writes after the damage were dropped without a word (a store
// with 20 documents in its log answered with fewer), and the next writer's
// flush made it permanent. A tail cut short, as a crash leaves it, opens.
TEST(StoreTest, AWriteAheadLogDamagedBeforeItsEndIsRefusedNotCutShort) {
  namespace fs = std::filesystem;
  TempDir dir;
  const std::string path = dir.Sub("s");
  WriteThenDieBeforeAFlush(path, [](Store& store) {
    for (int d = 0; d < 20; ++d) {
      DocBuilder b("doc-" + std::to_string(d));
      for (int f = 0; f < 50; ++f) {
        b.Add("chip:c" + std::to_string(f), "memory", Value::Quantity((d + f + 1) * kGB, "bytes", "x GB"),
              "Memory of chip " + std::to_string(f) + " in document " + std::to_string(d) + ": some GB");
      }
      if (!store.WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run").ok()) return false;
    }
    return true;
  });
  ASSERT_FALSE(HasFatalFailure());
  fs::path log;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.path().extension() == ".log" && (log.empty() || entry.file_size() > fs::file_size(log))) {
      log = entry.path();
    }
  }
  ASSERT_FALSE(log.empty());
  const uintmax_t size = fs::file_size(log);
  ASSERT_GT(size, 100'000u);

  const std::string cut = dir.Sub("cut");
  fs::copy(path, cut);
  fs::resize_file(fs::path(cut) / log.filename(), size - 700);  // the last record's end lost
  {
    auto store = Store::OpenReader(cut);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_GE((*store)->ListDocuments().value().size(), 19u);
  }

  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0xff);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write(&c, 1);
  }
  std::vector<std::string> files_before;
  for (const auto& entry : fs::directory_iterator(path)) files_before.push_back(entry.path().filename());
  std::sort(files_before.begin(), files_before.end());
  for (bool reader : {true, false}) {
    auto store = reader ? Store::OpenReader(path) : Store::Open(path);
    ASSERT_FALSE(store.ok()) << (reader ? "reader" : "writer") << " opened with "
                             << (*store)->ListDocuments().value().size() << " documents";
    EXPECT_TRUE(store.status().IsCorruption()) << store.status().ToString();
    EXPECT_NE(store.status().message().find("its write-ahead log (the writes since the last flush to table files) "
                                            "is damaged before its end"),
              std::string::npos)
        << store.status().ToString();
  }
  std::vector<std::string> files_after;
  for (const auto& entry : fs::directory_iterator(path)) files_after.push_back(entry.path().filename());
  std::sort(files_after.begin(), files_after.end());
  std::erase(files_after, "LOG");  // the writer's own account of the failed open, kept for whoever repairs it
  std::erase(files_before, "LOG");
  EXPECT_EQ(files_after, files_before);  // no flush, no new MANIFEST, the damaged log kept
  EXPECT_EQ(fs::file_size(log), size);
}

TEST(StoreTest, RewritingTheSameTextIsANoOp) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b = EveryKindDocument();
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1").ok());
  Document d = b.doc();
  d.etag = "\"v2\"";
  d.last_modified = "Tue, 28 Nov 2023 10:00:00 GMT";
  auto again = store->WriteDocumentVersion(d, b.version(), b.facts(), "run-2");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->new_version);
  EXPECT_EQ(again->tx, 0u);
  EXPECT_EQ(again->version, 1u);
  EXPECT_EQ(again->facts_added, 0u);
  EXPECT_EQ(store->LastTx(), 1u);
  EXPECT_EQ(store->ListDocumentVersions("doc-every").value().size(), 1u);
  EXPECT_EQ(store->Statistics().value().facts, b.facts().size());
  EXPECT_EQ(store->GetDocument("doc-every").value().etag, "\"v2\"");
  EXPECT_EQ(store->GetDocument("doc-every").value().last_modified, "Tue, 28 Nov 2023 10:00:00 GMT");
}

// v1 states A twice, B and C; v2 states A once, B (with a new span) and D.
struct TwoVersions {
  DocBuilder v1{"doc-diff"};
  DocBuilder v2{"doc-diff"};
  TwoVersions() {
    v1.Add("chip:a", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory 32 GB");
    v1.Add("chip:a", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory again 32 GB");
    v1.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), "TDP 500 W");
    v1.Add("chip:a", "memory_type", Value::Text("HBM2e"), "HBM2e");
    v2.AddText("Updated page");
    v2.Add("chip:a", "memory", Value::Quantity(32 * kGB, "bytes", "32 GiB-ish"), "Memory: 32 GB (new layout)");
    v2.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500W"), "TDP: 500W");
    v2.Add("chip:a", "memory_type", Value::Text("HBM3"), "HBM3");
  }
};

// The latest version read again by newer rules: the same diff against the
// live facts, no new version, the new facts asserted as of that version;
// nothing written when the rules read the same facts.
TEST(StoreTest, RestatedVersionKeepsRetractsAndAssertsTheDiffWithoutANewVersion) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  TwoVersions t;
  ASSERT_TRUE(store->WriteDocumentVersion(t.v1.doc(), t.v1.version(), t.v1.facts(), "run-1").ok());
  DocBuilder again{"doc-diff"};  // v1's text (the same lines), read otherwise
  again.Add("chip:a", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory 32 GB");
  again.Add("chip:a", "memory", Value::Quantity(64 * kGB, "bytes", "64 GB"), "Memory again 32 GB");
  again.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), "TDP 500 W");
  again.Add("chip:a", "memory_type", Value::Text("HBM2e"), "HBM2e");
  ASSERT_EQ(again.text(), t.v1.text());
  auto r = store->RestateDocumentVersion(again.doc(), again.facts(), "run-rules-2");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->new_version);
  EXPECT_EQ(r->version, 1u);
  EXPECT_EQ(r->tx, 2u);
  EXPECT_EQ(r->facts_kept, 3u);
  EXPECT_EQ(r->facts_retracted, 1u);
  EXPECT_EQ(r->facts_added, 1u);
  auto history = store->History("chip:a", "memory").value();
  ASSERT_EQ(history.size(), 3u);
  size_t live_64 = 0;
  for (const Fact& f : history) {
    if (f.value.number == 64 * kGB) {
      ++live_64;
      EXPECT_TRUE(f.live());
      EXPECT_EQ(f.provenance.document_version, 1u);
      EXPECT_EQ(f.provenance.run_id, "run-rules-2");
      EXPECT_EQ(f.provenance.excerpt, "Memory again 32 GB");
    }
  }
  EXPECT_EQ(live_64, 1u);
  EXPECT_EQ(store->ListDocumentVersions("doc-diff").value().size(), 1u);
  EXPECT_EQ(store->Statistics().value().document_versions, 1u);
  auto txs = store->ListTransactions().value();
  ASSERT_EQ(txs.size(), 2u);
  EXPECT_EQ(txs[1].description, "document doc-diff version 1 read again");

  // The same reading again: nothing written.
  auto same = store->RestateDocumentVersion(again.doc(), again.facts(), "run-rules-3");
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(same->tx, 0u);
  EXPECT_EQ(same->facts_kept, 4u);
  EXPECT_EQ(store->LastTx(), 2u);
  // A fact outside the stored text is refused, and nothing changes.
  DocBuilder outside{"doc-diff"};
  outside.Add("chip:a", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory 32 GB");
  outside.Add("chip:a", "tdp", Value::Quantity(700, "watts", "700 W"), "A line the stored text does not have");
  auto bad = store->RestateDocumentVersion(outside.doc(), outside.facts(), "run-rules-4");
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
  EXPECT_EQ(store->LastTx(), 2u);
  Document none;
  none.id = "doc-none";
  EXPECT_TRUE(store->RestateDocumentVersion(none, {}, "run-x").status().IsNotFound());
}

// A retired document's live facts are all retracted in one transaction that
// says so; its versions and record stay, history keeps the facts, other
// documents are untouched, and retiring it again writes nothing.
TEST(StoreTest, ARetiredDocumentWithdrawsEveryClaimAndHistoryKeepsThem) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  TwoVersions t;
  ASSERT_TRUE(store->WriteDocumentVersion(t.v1.doc(), t.v1.version(), t.v1.facts(), "run-1").ok());
  ASSERT_TRUE(store->WriteDocumentVersion(t.v2.doc(), t.v2.version(), t.v2.facts(), "run-2").ok());
  DocBuilder other{"doc-other"};
  other.Add("chip:a", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "Memory 32 GB");
  ASSERT_TRUE(store->WriteDocumentVersion(other.doc(), other.version(), other.facts(), "run-3").ok());
  const size_t live_before = store->FactsFromDocument("doc-diff").value().size();
  ASSERT_GT(live_before, 0u);
  const StoreStats before = store->Statistics().value();

  auto r = store->RetireDocument("doc-diff", "run-retire");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tx, 4u);
  EXPECT_FALSE(r->new_version);
  EXPECT_EQ(r->facts_retracted, live_before);
  EXPECT_EQ(r->facts_added, 0u);
  EXPECT_TRUE(store->FactsFromDocument("doc-diff").value().empty());
  ReadView everything;
  everything.include_retracted = true;
  EXPECT_GE(store->FactsFromDocument("doc-diff", std::nullopt, everything).value().size(), live_before);
  const std::vector<Fact> standing = store->FactsAbout("chip:a").value();
  ASSERT_EQ(standing.size(), 1u);
  EXPECT_EQ(standing[0].provenance.document_id, "doc-other");
  EXPECT_EQ(store->FactsFromDocument("doc-other").value().size(), 1u);
  EXPECT_EQ(store->ListDocumentVersions("doc-diff").value().size(), 2u);
  EXPECT_TRUE(store->GetDocument("doc-diff").ok());
  const StoreStats after = store->Statistics().value();
  EXPECT_EQ(after.live_facts, before.live_facts - live_before);
  EXPECT_EQ(after.retracted_facts, before.retracted_facts + live_before);
  EXPECT_EQ(after.document_versions, before.document_versions);
  auto txs = store->ListTransactions().value();
  ASSERT_EQ(txs.size(), 4u);
  EXPECT_EQ(txs[3].description, "document doc-diff retired: every claim it made withdrawn");
  EXPECT_EQ(txs[3].run_id, "run-retire");
  // As at the transaction before, the claims stood.
  ReadView then;
  then.as_of_tx = 3;
  EXPECT_EQ(store->FactsFromDocument("doc-diff", std::nullopt, then).value().size(), live_before);

  auto again = store->RetireDocument("doc-diff", "run-retire-2");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->tx, 0u);
  EXPECT_EQ(store->LastTx(), 4u);
  EXPECT_TRUE(store->RetireDocument("doc-none", "run-x").status().IsNotFound());
}

// A retirement is a mark on the document that every other write keeps: a
// changed text is stored without claims, a re-reading asserts none, a bulk
// load refuses them, until ReinstateDocument clears it with the claims.
TEST(StoreTest, ARetiredDocumentStaysRetiredUntilReinstated) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  TwoVersions t;
  ASSERT_TRUE(store->WriteDocumentVersion(t.v1.doc(), t.v1.version(), t.v1.facts(), "run-1").ok());
  auto retired = store->RetireDocument("doc-diff", "run-retire");
  ASSERT_TRUE(retired.ok()) << retired.status().ToString();
  EXPECT_EQ(store->GetDocument("doc-diff").value().retired_tx, retired->tx);
  // The same text again: only its validators change, and the mark stays.
  Document with_etag = t.v1.doc();
  with_etag.etag = "\"v1-again\"";
  ASSERT_TRUE(store->WriteDocumentVersion(with_etag, t.v1.version(), t.v1.facts(), "run-same").ok());
  EXPECT_EQ(store->GetDocument("doc-diff").value().etag, "\"v1-again\"");
  EXPECT_EQ(store->GetDocument("doc-diff").value().retired_tx, retired->tx);

  // A changed text with claims is refused whole; without them it is stored.
  const TxId before = store->LastTx();
  auto with_claims = store->WriteDocumentVersion(t.v2.doc(), t.v2.version(), t.v2.facts(), "run-2");
  EXPECT_TRUE(with_claims.status().IsInvalidArgument()) << with_claims.status().ToString();
  EXPECT_NE(with_claims.status().message().find("was retired by tx " + std::to_string(retired->tx)), std::string::npos)
      << with_claims.status().ToString();
  EXPECT_EQ(store->LastTx(), before);
  EXPECT_EQ(store->ListDocumentVersions("doc-diff").value().size(), 1u);
  auto stored = store->WriteDocumentVersion(t.v2.doc(), t.v2.version(), {}, "run-2");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->version, 2u);
  EXPECT_EQ(stored->facts_added, 0u);
  EXPECT_TRUE(store->FactsFromDocument("doc-diff").value().empty());
  // The caller's record (no mark) changes the title, not the retirement.
  Document retitled = t.v2.doc();
  retitled.title = "Renamed";
  ASSERT_TRUE(store->PutDocument(retitled).ok());
  EXPECT_EQ(store->GetDocument("doc-diff").value().title, "Renamed");
  EXPECT_EQ(store->GetDocument("doc-diff").value().retired_tx, retired->tx);
  EXPECT_TRUE(store->RestateDocumentVersion(t.v2.doc(), t.v2.facts(), "run-3").status().IsInvalidArgument());
  {
    auto writer = store->StartBulk();
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    Fact f = t.v2.facts().front();
    f.provenance.document_version = 0;
    const Status added = (*writer)->AddFact(f);
    EXPECT_TRUE(added.IsInvalidArgument()) << added.ToString();
    EXPECT_NE(added.message().find("was retired by tx"), std::string::npos) << added.ToString();
  }
  DocBuilder loaded{"doc-diff"};
  loaded.AddText("A third text, loaded");
  loaded.Add("chip:a", "tdp", Value::Quantity(550, "watts", "550 W"), "TDP 550 W");
  {  // A load that adds a version, with a record that has no mark, keeps the mark.
    auto writer = store->StartBulk();
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AddDocumentVersion(loaded.doc(), loaded.version()).ok());
    auto finished = (*writer)->Finish("run-load");
    ASSERT_TRUE(finished.ok()) << finished.status().ToString();
  }
  EXPECT_EQ(store->ListDocumentVersions("doc-diff").value().size(), 3u);
  EXPECT_EQ(store->GetDocument("doc-diff").value().retired_tx, retired->tx);
  EXPECT_TRUE(store->FactsFromDocument("doc-diff").value().empty());
  // Retiring again writes nothing.
  const TxId settled = store->LastTx();
  EXPECT_EQ(store->RetireDocument("doc-diff", "run-4").value().tx, 0u);
  EXPECT_EQ(store->LastTx(), settled);

  // Reinstated: the latest version's claims, checked against its text, in one transaction.
  EXPECT_FALSE(store->ReinstateDocument(t.v2.doc(), t.v2.facts(), "run-x").ok());  // not the latest text
  auto back = store->ReinstateDocument(loaded.doc(), loaded.facts(), "run-back");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->tx, settled + 1);
  EXPECT_EQ(back->facts_added, 1u);
  EXPECT_EQ(store->GetDocument("doc-diff").value().retired_tx, 0u);
  EXPECT_EQ(store->GetDocument("doc-diff").value().title, "Title of doc-diff");  // the record the caller passed
  const std::vector<Fact> standing = store->FactsFromDocument("doc-diff").value();
  ASSERT_EQ(standing.size(), 1u);
  EXPECT_EQ(standing[0].provenance.document_version, 3u);
  EXPECT_EQ(store->ListTransactions().value().back().description,
            "document doc-diff reinstated: the claims of its latest version asserted again");
  EXPECT_TRUE(store->ReinstateDocument(loaded.doc(), loaded.facts(), "run-x").status().IsInvalidArgument());
  // The record says it is not retired now; the log says when it was.
  using Retired = std::map<std::string, TxId>;
  EXPECT_EQ(store->RetiredAsOf(retired->tx - 1).value(), Retired{});
  EXPECT_EQ(store->RetiredAsOf(retired->tx).value(), (Retired{{"doc-diff", retired->tx}}));
  EXPECT_EQ(store->RetiredAsOf(back->tx - 1).value(), (Retired{{"doc-diff", retired->tx}}));
  EXPECT_EQ(store->RetiredAsOf(back->tx).value(), Retired{});
  EXPECT_EQ(store->RetiredAsOf(std::nullopt).value(), Retired{});
  EXPECT_EQ(store->RetiredAsOf(0).value(), Retired{});
  // A reinstated document takes new versions with claims again.
  DocBuilder v4{"doc-diff"};
  v4.AddText("Fourth page");
  v4.Add("chip:a", "tdp", Value::Quantity(600, "watts", "600 W"), "TDP 600 W");
  EXPECT_EQ(store->WriteDocumentVersion(v4.doc(), v4.version(), v4.facts(), "run-5").value().facts_added, 1u);
  // Retired again: the log's latest retirement is the one that stands.
  auto second = store->RetireDocument("doc-diff", "run-5b");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(store->RetiredAsOf(std::nullopt).value(), (Retired{{"doc-diff", second->tx}}));
  EXPECT_EQ(store->RetiredAsOf(second->tx - 1).value(), Retired{});
  EXPECT_EQ(store->RetiredAsOf(back->tx - 1).value(), (Retired{{"doc-diff", retired->tx}}));

  // A document with no standing claim is marked all the same.
  DocBuilder quiet{"doc-quiet"};
  ASSERT_TRUE(store->WriteDocumentVersion(quiet.doc(), quiet.version(), {}, "run-6").ok());
  auto marked = store->RetireDocument("doc-quiet", "run-7");
  ASSERT_TRUE(marked.ok()) << marked.status().ToString();
  EXPECT_NE(marked->tx, 0u);
  EXPECT_EQ(marked->facts_retracted, 0u);
  EXPECT_EQ(store->GetDocument("doc-quiet").value().retired_tx, marked->tx);
  EXPECT_TRUE(store->ReinstateDocument(Document{.id = "doc-none"}, {}, "run-x").status().IsNotFound());
}

// The log is read back by its texts: an id that holds a phrase of them (a
// path may hold any words) is still the id it is, and another id that
// begins as it does is not touched.
TEST(StoreTest, RetiredAsOfReadsIdsThatHoldTheLogsOwnWords) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  const std::string odd = "notes reinstated: draft retired: every claim it made withdrawn";
  DocBuilder oddly_named{odd};
  oddly_named.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), "TDP 500 W");
  DocBuilder prefix{"notes"};
  ASSERT_TRUE(store->WriteDocumentVersion(oddly_named.doc(), oddly_named.version(), oddly_named.facts(), "r1").ok());
  ASSERT_TRUE(store->WriteDocumentVersion(prefix.doc(), prefix.version(), {}, "r2").ok());
  auto notes = store->RetireDocument("notes", "r3");
  ASSERT_TRUE(notes.ok()) << notes.status().ToString();
  auto retired = store->RetireDocument(odd, "r4");
  ASSERT_TRUE(retired.ok()) << retired.status().ToString();
  using Retired = std::map<std::string, TxId>;
  EXPECT_EQ(store->RetiredAsOf(std::nullopt).value(), (Retired{{"notes", notes->tx}, {odd, retired->tx}}));
  auto back = store->ReinstateDocument(oddly_named.doc(), oddly_named.facts(), "r5");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(store->RetiredAsOf(std::nullopt).value(), (Retired{{"notes", notes->tx}}));
  EXPECT_EQ(store->RetiredAsOf(back->tx - 1).value(), (Retired{{"notes", notes->tx}, {odd, retired->tx}}));
}

// A store of format 2 kept a retirement only in the log: readers read it as
// it is, and its first writer marks each document retired then whose claims
// have not come back since, and rewrites the format record.
TEST(StoreTest, RetirementsOfTheFormerFormatAreMarkedByTheFirstWriter) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  std::map<std::string, TxId> retired_by;
  {
    auto store = OpenOrDie(path);
    for (const char* id : {"doc-a", "doc-b", "doc-back", "doc-live"}) {
      DocBuilder d{id};
      d.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), std::string("TDP 500 W in ") + id);
      ASSERT_TRUE(store->WriteDocumentVersion(d.doc(), d.version(), d.facts(), "run-1").ok());
      if (std::string(id) == "doc-live") continue;
      auto r = store->RetireDocument(id, "run-retire");
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      retired_by[id] = r->tx;
    }
    // Retired, then asserted again (as a changed text could, before marks).
    DocBuilder back{"doc-back"};
    back.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), "TDP 500 W in doc-back");
    ASSERT_TRUE(store->ReinstateDocument(back.doc(), back.facts(), "run-back").ok());
  }
  {  // As format 2 wrote them: no mark on any record.
    testing::RawStore raw(path);
    ASSERT_TRUE(raw.ok());
    for (const char* id : {"doc-a", "doc-b", "doc-back", "doc-live"}) {
      Document plain;
      std::string value;
      ASSERT_TRUE(raw.db()->Get(rocksdb::ReadOptions(), raw.handle("documents"), id, &value).ok());
      ASSERT_TRUE(codec::DecodeDocument(id, value, &plain));
      plain.retired_tx = 0;
      value.clear();
      codec::EncodeDocument(plain, &value);
      ASSERT_TRUE(raw.db()->Put(rocksdb::WriteOptions(), raw.handle("documents"), id, value).ok());
    }
    ASSERT_TRUE(raw.db()->Put(rocksdb::WriteOptions(), raw.handle("meta"), "format", "chipkg-store 2").ok());
  }
  {
    auto reader = Store::OpenReader(path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->GetDocument("doc-a").value().retired_tx, 0u);
  }
  {
    auto writer = OpenOrDie(path);
    EXPECT_EQ(writer->GetDocument("doc-a").value().retired_tx, retired_by["doc-a"]);
    EXPECT_EQ(writer->GetDocument("doc-b").value().retired_tx, retired_by["doc-b"]);
    EXPECT_EQ(writer->GetDocument("doc-back").value().retired_tx, 0u);
    EXPECT_EQ(writer->GetDocument("doc-live").value().retired_tx, 0u);
    DocBuilder changed{"doc-a"};
    changed.AddText("A changed page");
    changed.Add("chip:a", "tdp", Value::Quantity(600, "watts", "600 W"), "TDP 600 W");
    EXPECT_TRUE(writer->WriteDocumentVersion(changed.doc(), changed.version(), changed.facts(), "run-2")
                    .status()
                    .IsInvalidArgument());
  }
  testing::RawStore raw(path);
  ASSERT_TRUE(raw.ok());
  std::string format;
  ASSERT_TRUE(raw.db()->Get(rocksdb::ReadOptions(), raw.handle("meta"), "format", &format).ok());
  EXPECT_EQ(format, codec::kFormatVersion);
}

TEST(StoreTest, ChangedVersionKeepsRetractsAndAssertsExactlyTheDiff) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  TwoVersions t;
  auto s1 = store->WriteDocumentVersion(t.v1.doc(), t.v1.version(), t.v1.facts(), "run-1");
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(s1->facts_added, 4u);
  auto s2 = store->WriteDocumentVersion(t.v2.doc(), t.v2.version(), t.v2.facts(), "run-2");
  ASSERT_TRUE(s2.ok()) << s2.status().ToString();
  EXPECT_TRUE(s2->new_version);
  EXPECT_EQ(s2->version, 2u);
  EXPECT_EQ(s2->tx, 2u);
  EXPECT_EQ(s2->facts_kept, 2u);       // one memory claim, the tdp claim
  EXPECT_EQ(s2->facts_retracted, 2u);  // the second memory claim, HBM2e
  EXPECT_EQ(s2->facts_added, 1u);      // HBM3

  auto live = store->FactsAbout("chip:a").value();
  ASSERT_EQ(live.size(), 3u);
  for (const Fact& f : live) {
    if (f.predicate == "memory_type") {
      EXPECT_EQ(f.value.text, "HBM3");
      EXPECT_EQ(f.provenance.document_version, 2u);
      EXPECT_EQ(f.asserted_tx, 2u);
    } else {
      // Kept as they were: version 1's provenance and transaction.
      EXPECT_EQ(f.provenance.document_version, 1u);
      EXPECT_EQ(f.asserted_tx, 1u);
      EXPECT_EQ(f.provenance.run_id, "run-1");
    }
  }
  auto history = store->History("chip:a", "memory_type").value();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].value.text, "HBM2e");
  EXPECT_EQ(history[0].asserted_tx, 1u);
  EXPECT_EQ(history[0].retracted_tx, 2u);
  EXPECT_FALSE(history[0].live());
  EXPECT_EQ(history[1].value.text, "HBM3");
  EXPECT_TRUE(history[1].live());
  auto memory_history = store->History("chip:a", "memory").value();
  ASSERT_EQ(memory_history.size(), 2u);
  EXPECT_EQ(memory_history[0].retracted_tx + memory_history[1].retracted_tx, 2u);  // exactly one retracted

  auto stats = store->Statistics().value();
  EXPECT_EQ(stats.facts, 5u);
  EXPECT_EQ(stats.live_facts, 3u);
  EXPECT_EQ(stats.retracted_facts, 2u);
  EXPECT_EQ(stats.document_versions, 2u);
  EXPECT_EQ(store->FactsFromDocument("doc-diff", 2u).value().size(), 1u);
  EXPECT_EQ(store->FactsFromDocument("doc-diff", 1u).value().size(), 2u);  // live ones read from v1
  EXPECT_EQ(store->FactsFromDocument("doc-diff").value().size(), 3u);
  ReadView all;
  all.include_retracted = true;
  EXPECT_EQ(store->FactsFromDocument("doc-diff", std::nullopt, all).value().size(), 5u);
  auto versions = store->ListDocumentVersions("doc-diff").value();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_TRUE(versions[0].text.empty());
  EXPECT_EQ(store->LatestDocumentVersion("doc-diff").value().text, t.v2.text());
  EXPECT_EQ(store->ListDocumentVersions("doc-diff", true).value()[0].text, t.v1.text());

  // Going back to v1's text is a new version 3 that re-asserts what v2 dropped.
  auto s3 = store->WriteDocumentVersion(t.v1.doc(), t.v1.version(), t.v1.facts(), "run-3");
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->version, 3u);
  EXPECT_EQ(s3->facts_kept, 2u);
  EXPECT_EQ(s3->facts_added, 2u);
  EXPECT_EQ(s3->facts_retracted, 1u);
}

// A version that states a figure again with other words about it (its
// attribution, what it cites, its note) restates the claim, so that the
// standing claim says what the latest version says; one where the figure
// only moved, or its as-of date ticked, keeps it. A version read again
// (RestateDocumentVersion) makes the same diff.
TEST(StoreTest, AFigureStatedWithOtherWordsAboutItIsRestated) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  auto page = [](const std::string& lead, const std::string& attribution, const std::string& cites,
                 const std::string& as_of) {
    DocBuilder b("doc-words");
    b.AddText(lead);
    Fact& tdp = b.Add("chip:a", "tdp", Value::Quantity(500, "watts", "500 W"), "TDP 500 W");
    tdp.provenance.attribution = attribution;
    tdp.provenance.citations = {cites};
    tdp.valid_as_of = D(as_of.c_str());
    b.Add("chip:a", "memory", Value::Quantity(32e9, "bytes", "32 GB"), "Memory 32 GB");
    return b;
  };
  auto write = [&](const DocBuilder& b, const std::string& run) {
    auto s = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), run);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : WriteSummary{};
  };
  auto live_tdp = [&] {
    auto facts = store->FactsAbout("chip:a", "tdp").value();
    EXPECT_EQ(facts.size(), 1u);
    return facts.empty() ? Fact{} : facts[0];
  };
  write(page("v1", "Straight from the vendor datasheet", "https://a.example/ds.pdf", "2026-09-27"), "run-1");
  const uint64_t first = live_tdp().id;

  // The figure moved down a line and the page's date ticked: the same claim.
  WriteSummary moved = write(page("v2\nmore", "Straight from the vendor datasheet", "https://a.example/ds.pdf",
                                  "2026-11-30"),
                             "run-2");
  EXPECT_EQ(moved.facts_kept, 2u);
  EXPECT_EQ(moved.facts_added, 0u);
  EXPECT_EQ(live_tdp().id, first);

  // Now the page calls it its own estimate: restated, citing version 3.
  WriteSummary estimate = write(page("v3", "Our own estimate", "https://a.example/ds.pdf", "2026-11-30"), "run-3");
  EXPECT_EQ(estimate.facts_kept, 1u);  // memory
  EXPECT_EQ(estimate.facts_retracted, 1u);
  EXPECT_EQ(estimate.facts_added, 1u);
  Fact now = live_tdp();
  EXPECT_NE(now.id, first);
  EXPECT_EQ(now.provenance.attribution, "Our own estimate");
  EXPECT_EQ(now.provenance.document_version, 3u);
  auto history = store->History("chip:a", "tdp").value();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].provenance.attribution, "Straight from the vendor datasheet");
  EXPECT_FALSE(history[0].live());

  // Another datasheet cited for it: restated again.
  WriteSummary cited = write(page("v4", "Our own estimate", "https://b.example/other.pdf", "2026-11-30"), "run-4");
  EXPECT_EQ(cited.facts_added, 1u);
  EXPECT_EQ(live_tdp().provenance.citations, (std::vector<std::string>{"https://b.example/other.pdf"}));

  // Read again with a note the rules now find: restated without a new version.
  DocBuilder again = page("v4", "Our own estimate", "https://b.example/other.pdf", "2026-11-30");
  std::vector<Fact> facts = again.facts();
  facts[0].provenance.note = "Source for TDP: https://b.example/other.pdf";
  auto restated = store->RestateDocumentVersion(again.doc(), facts, "run-5");
  ASSERT_TRUE(restated.ok()) << restated.status().ToString();
  EXPECT_EQ(restated->facts_added, 1u);
  EXPECT_EQ(restated->facts_kept, 1u);
  EXPECT_EQ(live_tdp().provenance.note, "Source for TDP: https://b.example/other.pdf");
  auto same = store->RestateDocumentVersion(again.doc(), facts, "run-6");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->tx, 0u);  // every claim as stored: nothing written
}

// The entities a document's facts name go in with its facts, in one write:
// a write that fails (here a fact whose excerpt is not its text) leaves no
// entity behind, and one that succeeds creates them in its own transaction.
TEST(StoreTest, NewEntitiesAreWrittenWithTheFactsThatNameThem) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b("doc-new");
  b.Add("chip:fresh", "foundry", Value::Entity("organization:newfab", "NewFab"), "Made by NewFab");
  const std::vector<Entity> named = {{"chip:fresh", "chip", "Fresh X1", {"x1"}},
                                     {"organization:newfab", "organization", "NewFab", {}},
                                     {"chip:fresh", "chip", "Fresh X1", {"x1"}}};  // named twice: written once
  std::vector<Fact> broken = b.facts();
  broken[0].provenance.excerpt = "not in the text";
  EXPECT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), broken, "run-1", named).status().IsInvalidArgument());
  EXPECT_TRUE(store->GetEntity("chip:fresh").status().IsNotFound());
  EXPECT_TRUE(store->GetEntity("organization:newfab").status().IsNotFound());
  EXPECT_EQ(store->Statistics().value().entities, 0u);

  auto written = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1", named);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(store->GetEntity("chip:fresh").value().created_tx, written->tx);
  EXPECT_EQ(store->GetEntity("organization:newfab").value().name, "NewFab");
  EXPECT_EQ(store->FindEntity("x1").value().id, "chip:fresh");
  EXPECT_EQ(store->Statistics().value().entities, 2u);
  EXPECT_EQ(store->Statistics().value().transactions, 1u);  // the document's: none for the entities alone

  // Read again with a renamed entity: written with the restatement, keeping its first transaction.
  DocBuilder again("doc-new");
  again.Add("chip:fresh", "foundry", Value::Entity("organization:newfab", "NewFab"), "Made by NewFab");
  again.facts();
  std::vector<Fact> restated_facts = again.facts();
  restated_facts[0].qualifiers = {{"scope", "chip"}};
  const std::vector<Entity> renamed = {{"chip:fresh", "chip", "Fresh X1 Pro", {"x1"}}};
  auto restated = store->RestateDocumentVersion(again.doc(), restated_facts, "run-2", renamed);
  ASSERT_TRUE(restated.ok()) << restated.status().ToString();
  EXPECT_NE(restated->tx, 0u);
  EXPECT_EQ(store->GetEntity("chip:fresh").value().name, "Fresh X1 Pro");
  EXPECT_EQ(store->GetEntity("chip:fresh").value().created_tx, written->tx);
  EXPECT_EQ(store->Statistics().value().entities, 2u);
}

TEST(StoreTest, AsOfTransactionAndValidDate) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  TwoVersions t;
  t.v1.facts()[3].valid_as_of = D("2023-11");  // HBM2e, month precision
  t.v2.facts()[2].valid_as_of = D("2024");     // HBM3, year precision
  ASSERT_TRUE(store->WriteDocumentVersion(t.v1.doc(), t.v1.version(), t.v1.facts(), "r1").ok());
  ASSERT_TRUE(store->WriteDocumentVersion(t.v2.doc(), t.v2.version(), t.v2.facts(), "r2").ok());

  auto types = [&](const ReadView& view) {
    std::vector<std::string> out;
    auto facts = store->FactsAbout("chip:a", "memory_type", view).value();
    for (const auto& f : facts) out.push_back(f.value.text);
    std::sort(out.begin(), out.end());
    return out;
  };
  ReadView at1;
  at1.as_of_tx = 1;
  EXPECT_EQ(types(at1), std::vector<std::string>{"HBM2e"});
  EXPECT_EQ(store->FactsAbout("chip:a", at1).value().size(), 4u);
  ReadView at2;
  at2.as_of_tx = 2;
  EXPECT_EQ(types(at2), std::vector<std::string>{"HBM3"});
  EXPECT_EQ(types(ReadView{}), std::vector<std::string>{"HBM3"});
  ReadView at0;
  at0.as_of_tx = 0;
  EXPECT_TRUE(store->FactsAbout("chip:a", at0).value().empty());

  ReadView hist;
  hist.include_retracted = true;
  EXPECT_EQ(types(hist), (std::vector<std::string>{"HBM2e", "HBM3"}));
  hist.as_of_tx = 1;
  EXPECT_EQ(types(hist), std::vector<std::string>{"HBM2e"});

  // Valid time, at the claim's own precision.
  ReadView oct31 = at1;
  oct31.valid_on = D("2023-10-31");
  EXPECT_TRUE(types(oct31).empty());
  ReadView nov1 = at1;
  nov1.valid_on = D("2023-11-01");
  EXPECT_EQ(types(nov1), std::vector<std::string>{"HBM2e"});
  ReadView nov = at1;
  nov.valid_on = D("2023-11");
  EXPECT_EQ(types(nov), std::vector<std::string>{"HBM2e"});
  ReadView dec31;
  dec31.valid_on = D("2023-12-31");
  EXPECT_TRUE(types(dec31).empty());  // HBM3 holds from 2024-01-01
  ReadView jan1;
  jan1.valid_on = D("2024-01-01");
  EXPECT_EQ(types(jan1), std::vector<std::string>{"HBM3"});
  // Claims without a valid date are kept by any valid_on.
  EXPECT_EQ(store->FactsAbout("chip:a", "tdp", dec31).value().size(), 1u);
}

TEST(StoreTest, RangeScansFollowValueOrder) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b("doc-range");
  const double sizes[] = {96, 16, 64, 32, 80, 64.5, 63.999};
  for (size_t i = 0; i < std::size(sizes); ++i) {
    std::string chip = "chip:c" + std::to_string(i);
    b.Add(chip, "memory", Value::Quantity(sizes[i] * kGB, "bytes", std::to_string(sizes[i]) + " GB"),
          chip + " memory " + std::to_string(sizes[i]));
  }
  b.Add("chip:np", "memory", Value::NotPublished("undisclosed"), "chip:np memory undisclosed");
  b.Add("chip:c0", "released", Value::OfDate(D("2023-03"), ""), "released 2023-03");
  b.Add("chip:c1", "released", Value::OfDate(D("2022"), ""), "released 2022");
  b.Add("chip:c2", "released", Value::OfDate(D("2024-01-15"), ""), "released 2024-01-15");
  b.Add("chip:c0", "memory_type", Value::Text("HBM3"), "HBM3");
  b.Add("chip:c1", "memory_type", Value::Text("HBM2e"), "HBM2e");
  b.Add("chip:c2", "memory_type", Value::Text("GDDR6"), "GDDR6");
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());

  auto numbers = [&](const ValueRange& r) {
    std::vector<double> out;
    auto facts = store->FactsInRange("memory", r);
    EXPECT_TRUE(facts.ok()) << facts.status().ToString();
    for (const auto& f : facts.value()) out.push_back(f.value.number / kGB);
    return out;
  };
  ValueRange ge64;
  ge64.lower = Value::Quantity(64 * kGB, "bytes", "");
  EXPECT_EQ(numbers(ge64), (std::vector<double>{64, 64.5, 80, 96}));
  ValueRange gt64 = ge64;
  gt64.lower_inclusive = false;
  EXPECT_EQ(numbers(gt64), (std::vector<double>{64.5, 80, 96}));
  ValueRange le64;
  le64.upper = Value::Quantity(64 * kGB, "bytes", "");
  EXPECT_EQ(numbers(le64), (std::vector<double>{16, 32, 63.999, 64}));
  ValueRange between;
  between.lower = Value::Quantity(32 * kGB, "bytes", "");
  between.upper = Value::Quantity(80 * kGB, "bytes", "");
  between.upper_inclusive = false;
  EXPECT_EQ(numbers(between), (std::vector<double>{32, 63.999, 64, 64.5}));
  ValueRange quantities;
  quantities.kind = ValueKind::kQuantity;
  EXPECT_EQ(numbers(quantities).size(), 7u);
  ValueRange everything;
  EXPECT_EQ(store->FactsInRange("memory", everything).value().size(), 8u);  // the not-published marker too
  ValueRange np;
  np.kind = ValueKind::kNotPublished;
  auto markers = store->FactsInRange("memory", np).value();
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0].subject, "chip:np");
  ValueRange empty;
  empty.lower = Value::Quantity(97 * kGB, "bytes", "");
  EXPECT_TRUE(numbers(empty).empty());
  ValueRange mixed;
  mixed.lower = Value::Quantity(1, "bytes", "");
  mixed.kind = ValueKind::kText;
  EXPECT_TRUE(store->FactsInRange("memory", mixed).status().IsInvalidArgument());

  ValueRange since2023;
  since2023.lower = Value::OfDate(D("2023-01-01"), "");
  std::vector<std::string> dates;
  auto released = store->FactsInRange("released", since2023).value();
  for (const auto& f : released) dates.push_back(f.value.date.ToString());
  EXPECT_EQ(dates, (std::vector<std::string>{"2023-03", "2024-01-15"}));

  ValueRange hbm;
  hbm.lower = Value::Text("HBM");
  hbm.upper = Value::Text("HBM\xff");
  std::vector<std::string> texts;
  auto hbm_facts = store->FactsInRange("memory_type", hbm).value();
  for (const auto& f : hbm_facts) texts.push_back(f.value.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"HBM2e", "HBM3"}));
  ValueRange exact;
  exact.lower = exact.upper = Value::Text("HBM3");
  EXPECT_EQ(store->FactsInRange("memory_type", exact).value().size(), 1u);

  auto subjects = store->SubjectsWith("released").value();
  EXPECT_EQ(subjects, (std::vector<EntityId>{"chip:c0", "chip:c1", "chip:c2"}));
  EXPECT_TRUE(store->SubjectsWith("nonexistent").value().empty());
}

TEST(StoreTest, EntitiesAndAliasLookup) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  ASSERT_TRUE(store->PutEntity({"chip:aws-trainium", "chip", "AWS Trainium", {"Trn1", "Trainium 1"}}).ok());
  ASSERT_TRUE(store->PutEntity({"organization:tsmc", "organization", "TSMC", {"Taiwan Semiconductor"}}).ok());
  for (const char* name : {"chip:aws-trainium", "aws trainium", "AWS-TRAINIUM", "trn1", "TRN 1", "Trainium-1",
                           "chip aws trainium"}) {
    auto e = store->FindEntity(name);
    ASSERT_TRUE(e.ok()) << name << ": " << e.status().ToString();
    EXPECT_EQ(e->id, "chip:aws-trainium") << name;
  }
  EXPECT_EQ(store->FindEntity("taiwan semiconductor!").value().id, "organization:tsmc");
  EXPECT_TRUE(store->FindEntity("trainium 2").status().IsNotFound());
  EXPECT_TRUE(store->FindEntity("").status().IsNotFound());
  EXPECT_TRUE(store->FindEntity("---").status().IsNotFound());

  // Each records the transaction that first stored it (a view as at an earlier one leaves it out).
  const TxId trainium_tx = store->GetEntity("chip:aws-trainium").value().created_tx;
  EXPECT_NE(trainium_tx, 0u);
  EXPECT_EQ(store->GetEntity("organization:tsmc").value().created_tx, trainium_tx + 1);
  EXPECT_EQ(store->LastTx(), trainium_tx + 1);

  // Replacing an entity drops its old aliases, and keeps when it was first stored.
  ASSERT_TRUE(store->PutEntity({"chip:aws-trainium", "chip", "AWS Trainium", {"Trainium1"}}).ok());
  EXPECT_EQ(store->GetEntity("chip:aws-trainium").value().created_tx, trainium_tx);
  EXPECT_EQ(store->GetEntities({"chip:aws-trainium"}).value()[0]->created_tx, trainium_tx);
  EXPECT_TRUE(store->FindEntity("trn1").status().IsNotFound());
  EXPECT_EQ(store->FindEntity("trainium1").value().id, "chip:aws-trainium");
  EXPECT_EQ(store->GetEntity("chip:aws-trainium").value().aliases, std::vector<std::string>{"Trainium1"});

  // A name shared at the same rank is ambiguous; a better rank wins.
  ASSERT_TRUE(store->PutEntity({"chip:h100-sxm", "chip", "H100 SXM", {"H100"}}).ok());
  ASSERT_TRUE(store->PutEntity({"chip:h100-pcie", "chip", "H100 PCIe", {"H100"}}).ok());
  auto ambiguous = store->FindEntity("h100");
  EXPECT_TRUE(ambiguous.status().IsInvalidArgument());
  EXPECT_NE(ambiguous.status().message().find("chip:h100-pcie"), std::string::npos);
  ASSERT_TRUE(store->PutEntity({"chip:h100", "chip", "H100", {}}).ok());
  EXPECT_EQ(store->FindEntity("H100").value().id, "chip:h100");

  EXPECT_EQ(store->ListEntities("chip").value().size(), 4u);
  EXPECT_EQ(store->ListEntities().value().size(), 5u);
  EXPECT_EQ(store->Statistics().value().entities, 5u);
  // Putting an identical entity is not a write.
  TxId last = store->LastTx();
  ASSERT_TRUE(store->PutEntity({"chip:h100", "chip", "H100", {}}).ok());
  EXPECT_EQ(store->LastTx(), last);
}

TEST(StoreTest, BatchedEntityReadsAreAlignedWithTheAskedIds) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  // More than one batch of 1,024, asked out of key order, with gaps and repeats.
  std::vector<EntityId> asked;
  for (int i = 0; i < 2500; ++i) {
    const std::string id = "chip:c" + std::to_string(i);
    if (i % 3 != 0) {
      ASSERT_TRUE(store->PutEntity({id, i % 2 == 0 ? "chip" : "system", "Chip " + std::to_string(i), {}}).ok());
    }
    asked.push_back(id);
  }
  std::reverse(asked.begin(), asked.end());
  asked.push_back("chip:c5");
  asked.push_back("chip:none");
  auto got = store->GetEntities(asked);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), asked.size());
  for (size_t i = 0; i < asked.size(); ++i) {
    auto one = store->GetEntity(asked[i]);
    if (!one.ok()) {
      EXPECT_TRUE(one.status().IsNotFound());
      EXPECT_FALSE((*got)[i].has_value()) << asked[i];
      continue;
    }
    ASSERT_TRUE((*got)[i].has_value()) << asked[i];
    EXPECT_EQ((*got)[i]->id, one->id);
    EXPECT_EQ((*got)[i]->kind, one->kind);
    EXPECT_EQ((*got)[i]->name, one->name);
  }
  EXPECT_EQ((*got)[asked.size() - 2]->name, "Chip 5");
  EXPECT_TRUE(store->GetEntities({}).value().empty());
}

TEST(StoreTest, BatchedDocumentAndVersionReadsAreAlignedWithTheAsked) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  // Documents doc-0 .. doc-1199 (more than one batch of 1,024); every
  // fourth one has a second version fetched later.
  for (int i = 0; i < 1200; ++i) {
    DocBuilder b("doc-" + std::to_string(i));
    b.Add("chip:c" + std::to_string(i), "memory", Value::Quantity(i * kGB, "bytes", std::to_string(i) + " GB"),
          "Memory: " + std::to_string(i) + " GB");
    DocumentVersion v = b.version();
    v.fetched_at = 1700000000 + i;
    ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), v, b.facts(), "r").ok());
    if (i % 4 == 0) {
      b.AddText("revised");
      DocumentVersion v2 = b.version();
      v2.fetched_at = 1800000000 + i;
      ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), v2, b.facts(), "r2").ok());
    }
  }
  // More than one batch of 1,024, asked out of key order, with repeats and ones that are not stored.
  std::vector<std::string> documents = {"doc-17", "doc-nope", "doc-1199", "doc-3", "doc-17"};
  for (int i = 1250; i >= 0; --i) documents.push_back("doc-" + std::to_string(i));
  auto got = store->GetDocuments(documents);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), documents.size());
  for (size_t i = 0; i < documents.size(); ++i) {
    auto one = store->GetDocument(documents[i]);
    if (!one.ok()) {
      EXPECT_TRUE(one.status().IsNotFound());
      EXPECT_FALSE((*got)[i].has_value()) << documents[i];
      continue;
    }
    ASSERT_TRUE((*got)[i].has_value()) << documents[i];
    EXPECT_EQ((*got)[i]->id, documents[i]);
    EXPECT_EQ((*got)[i]->title, one->title);
    EXPECT_EQ((*got)[i]->url, one->url);
  }
  EXPECT_FALSE((*got)[1].has_value());

  std::vector<std::pair<std::string, uint32_t>> versions = {
      {"doc-8", 2}, {"doc-8", 1}, {"doc-9", 2}, {"doc-nope", 1}, {"doc-1199", 1}, {"doc-8", 2}};
  for (int i = 1210; i >= 0; --i) versions.emplace_back("doc-" + std::to_string(i), 2 - i % 2);
  auto read = store->GetDocumentVersions(versions);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), versions.size());
  for (size_t i = 0; i < versions.size(); ++i) {
    auto one = store->GetDocumentVersion(versions[i].first, versions[i].second, /*with_text=*/false);
    if (!one.ok()) {
      EXPECT_TRUE(one.status().IsNotFound()) << one.status().ToString();
      EXPECT_FALSE((*read)[i].has_value()) << versions[i].first << " v" << versions[i].second;
      continue;
    }
    ASSERT_TRUE((*read)[i].has_value()) << versions[i].first << " v" << versions[i].second;
    EXPECT_EQ((*read)[i]->version, versions[i].second);
    EXPECT_EQ((*read)[i]->fetched_at, one->fetched_at);
    EXPECT_EQ((*read)[i]->content_hash, one->content_hash);
    EXPECT_TRUE((*read)[i]->text.empty());
  }
  EXPECT_EQ((*read)[0]->fetched_at, 1800000008);
  EXPECT_EQ((*read)[1]->fetched_at, 1700000008);
  EXPECT_FALSE((*read)[2].has_value());  // doc-9 has one version
  EXPECT_FALSE((*read)[3].has_value());
  EXPECT_EQ((*read)[4]->fetched_at, 1700001199);
  EXPECT_TRUE(store->GetDocuments({}).value().empty());
  EXPECT_TRUE(store->GetDocumentVersions({}).value().empty());

  // A citation's sources: the same answers, first read (a fresh reader has kept nothing), then kept;
  // each document's record is one shared record however often and by whomever it is asked for.
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  versions.emplace_back("", 1);
  for (int round = 0; round < 2; ++round) {
    auto sources = (*reader)->GetCitedSources(versions);
    ASSERT_TRUE(sources.ok()) << sources.status().ToString();
    ASSERT_EQ(sources->size(), versions.size());
    for (size_t i = 0; i < versions.size(); ++i) {
      const CitedSource& got = (*sources)[i];
      auto document = store->GetDocument(versions[i].first);
      auto version = store->GetDocumentVersion(versions[i].first, versions[i].second, /*with_text=*/false);
      ASSERT_EQ(got.document != nullptr, document.ok()) << versions[i].first << " round " << round;
      if (document.ok()) {
        EXPECT_EQ(got.document->id, versions[i].first);
        EXPECT_EQ(got.document->title, document->title);
        EXPECT_EQ(got.document->url, document->url);
      }
      ASSERT_EQ(got.fetched_at.has_value(), version.ok()) << versions[i].first << " v" << versions[i].second;
      ASSERT_EQ(got.version != nullptr, version.ok()) << versions[i].first << " v" << versions[i].second;
      if (version.ok()) {
        EXPECT_EQ(*got.fetched_at, version->fetched_at);
        EXPECT_EQ(got.version->version, versions[i].second);
        EXPECT_EQ(got.version->fetched_at, version->fetched_at);
        EXPECT_EQ(got.version->content_hash, version->content_hash);
        EXPECT_EQ(got.version->content_hash.size(), 64u);
        EXPECT_TRUE(got.version->text.empty()) << "a citation's version is its record, not its text";
      }
    }
    EXPECT_EQ((*sources)[0].document, (*sources)[1].document) << "doc-8 twice: one record";
    EXPECT_EQ((*sources)[0].fetched_at, 1800000008);
    EXPECT_EQ((*sources)[1].fetched_at, 1700000008);
    EXPECT_NE((*sources)[2].document, nullptr);  // doc-9 is stored, its version 2 is not
    EXPECT_FALSE((*sources)[2].fetched_at.has_value());
    EXPECT_EQ((*sources)[3].document, nullptr);
    EXPECT_EQ(sources->back().document, nullptr);
    auto again = (*reader)->GetCitedSources({versions[0]});
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)[0].document, (*sources)[0].document) << "kept and shared, not read again";
    EXPECT_EQ((*again)[0].version, (*sources)[0].version) << "the version's record too";
    EXPECT_EQ((*sources)[0].version, sources->at(5).version) << "doc-8 v2 twice: one record";
    EXPECT_NE((*sources)[0].version, (*sources)[1].version);
  }
  EXPECT_TRUE((*reader)->GetCitedSources({}).value().empty());
}

TEST(StoreTest, TransactionsNumberWritesOneByOne) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  const int64_t before = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  ASSERT_TRUE(store->PutEntity({"chip:a", "chip", "A", {}}).ok());
  DocBuilder b("d");
  b.Add("chip:a", "memory", Value::Quantity(1, "bytes", "1 B"), "1 B");
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-x").ok());
  Document d = b.doc();
  d.title = "New title";
  ASSERT_TRUE(store->PutDocument(d).ok());
  ASSERT_TRUE(store->PutMeta("ingest/last", "x").ok());  // settings are not transactions
  auto txs = store->ListTransactions().value();
  ASSERT_EQ(txs.size(), 3u);
  for (size_t i = 0; i < txs.size(); ++i) {
    EXPECT_EQ(txs[i].id, i + 1);
    EXPECT_GE(txs[i].time_micros, before);
  }
  EXPECT_EQ(txs[1].run_id, "run-x");
  EXPECT_EQ(store->LastTx(), 3u);
  EXPECT_EQ(store->GetDocument("d").value().title, "New title");
  ASSERT_TRUE(store->PutMeta("ingest/next", "y").ok());
  ASSERT_TRUE(store->PutMeta("match/z", "w").ok());
  auto listed = store->ListMeta("ingest/").value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].first, "ingest/last");
  EXPECT_EQ(listed[1].second, "y");
  ASSERT_TRUE(store->DeleteMeta("ingest/last").ok());
  ASSERT_TRUE(store->DeleteMeta("ingest/never-written").ok());
  EXPECT_TRUE(store->GetMeta("ingest/last").status().IsNotFound());
  ASSERT_EQ(store->ListMeta("ingest/").value().size(), 1u);
  EXPECT_EQ(store->GetMeta("match/z").value(), "w");
}

TEST(StoreTest, SecondOpenForWritingIsBusy) {
  TempDir dir;
  auto first = OpenOrDie(dir.Sub("s"));
  auto second = Store::Open(dir.Sub("s"));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsBusy()) << second.status().ToString();
  EXPECT_NE(second.status().message().find("another chipkg process is writing to " + dir.Sub("s")),
            std::string::npos);
}

TEST(StoreTest, FormatMismatchIsRefusedWithBothVersions) {
  TempDir dir;
  { auto store = OpenOrDie(dir.Sub("s")); }
  {
    // Rewrite the format record as another chipkg would have written it.
    testing::RawStore raw(dir.Sub("s"));
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw.db()->Put(rocksdb::WriteOptions(), raw.handle("meta"), "format", "chipkg-store 0").ok());
  }
  auto reopened = Store::Open(dir.Sub("s"));
  ASSERT_FALSE(reopened.ok());
  EXPECT_TRUE(reopened.status().IsFormatMismatch()) << reopened.status().ToString();
  const std::string& msg = reopened.status().message();
  EXPECT_NE(msg.find("chipkg-store 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find(codec::kFormatVersion), std::string::npos) << msg;
  EXPECT_NE(msg.find("export"), std::string::npos) << msg;
  auto secondary = Store::OpenReader(dir.Sub("s"));
  EXPECT_TRUE(secondary.status().IsFormatMismatch()) << secondary.status().ToString();
}

TEST(StoreTest, OtherDirectoriesAreNotStores) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("photos"));
  std::ofstream(dir.Sub("photos/cat.jpg")) << "meow";
  auto r = Store::Open(dir.Sub("photos"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("no chipkg store"), std::string::npos) << r.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("photos/cat.jpg")));

  rocksdb::DB* db = nullptr;
  rocksdb::Options o;
  o.create_if_missing = true;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.Sub("plain"), &db).ok());
  delete db;
  r = Store::Open(dir.Sub("plain"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a chipkg store"), std::string::npos) << r.status().ToString();
  r = Store::OpenReader(dir.Sub("plain"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a chipkg store"), std::string::npos) << r.status().ToString();
  r = Store::OpenReader(dir.Sub("photos"));
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();

  std::ofstream(dir.Sub("file")) << "x";
  EXPECT_FALSE(Store::Open(dir.Sub("file")).ok());
  StoreOptions no_create;
  no_create.create_if_missing = false;
  EXPECT_TRUE(Store::Open(dir.Sub("missing"), no_create).status().IsNotFound());
}

namespace {

// One document, "doc-1", stating chip:a's memory, 16 GB: the store the reader tests start from.
::testing::AssertionResult WriteOneFact(Store& store) {
  DocBuilder b("doc-1");
  b.Add("chip:a", "memory", Value::Quantity(16 * kGB, "bytes", "16 GB"), "16 GB");
  auto written = store.WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1");
  if (written.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << written.status().ToString();
}

}  // namespace

TEST(StoreTest, AReaderSeesWritesAfterCatchUp) {
  TempDir dir;
  auto primary = OpenOrDie(dir.Sub("s"));
  ASSERT_TRUE(WriteOneFact(*primary));

  auto secondary = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(secondary.ok()) << secondary.status().ToString();
  Store& reader = **secondary;
  EXPECT_TRUE(reader.read_only());
  EXPECT_EQ(reader.FactsAbout("chip:a").value().size(), 1u);
  EXPECT_EQ(reader.LastTx(), 1u);

  DocBuilder b2("doc-2");
  b2.Add("chip:b", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "32 GB");
  ASSERT_TRUE(primary->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r2").ok());
  ASSERT_TRUE(primary->PutEntity({"chip:b", "chip", "Chip B", {"B1"}}).ok());
  ASSERT_TRUE(reader.CatchUp().ok());
  auto facts = reader.FactsAbout("chip:b");
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 1u);
  EXPECT_EQ(facts->front().provenance.excerpt, "32 GB");
  EXPECT_EQ(reader.LastTx(), 3u);
  EXPECT_EQ(reader.FindEntity("b-1").value().id, "chip:b");
  EXPECT_EQ(reader.LatestDocumentVersion("doc-2").value().text, b2.text());

  auto write = reader.PutMeta("k", "v");
  EXPECT_TRUE(write.IsInvalidArgument());
  EXPECT_NE(write.message().find("read-only"), std::string::npos);
  EXPECT_TRUE(reader.DeleteMeta("k").IsInvalidArgument());
  EXPECT_TRUE(reader.WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r").status().IsInvalidArgument());
  EXPECT_FALSE(reader.StartBulk().ok());
  EXPECT_TRUE(primary->CatchUp().ok());  // a no-op on the writer
}

namespace {

// Every file and directory under `root` with its size: what a reader must not change.
std::map<std::string, uintmax_t> Listing(const std::filesystem::path& root) {
  std::map<std::string, uintmax_t> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    files[e.path().lexically_relative(root).string()] = e.is_regular_file() ? e.file_size() : 0;
  }
  return files;
}

// Adds `add` and drops `drop` among the column families of a closed store, as
// a RocksDB user other than chipkg could.
void ReshapeColumnFamilies(const std::string& path, const std::string& add, const std::string& drop) {
  testing::RawStore raw(path);
  ASSERT_TRUE(raw.ok());
  if (!add.empty()) raw.Create(add);
  if (!drop.empty()) raw.Drop(drop);
}

}  // namespace

// A reader (a one-shot `chipkg query`, the REPL) writes no file: nothing in
// the store directory, nothing beside it, whether or not a writer is running.
TEST(StoreTest, AReaderWritesNothing) {
  TempDir dir;
  ASSERT_TRUE(WriteOneFact(*OpenOrDie(dir.Sub("s"))));
  const auto before = Listing(dir.path());
  {
    auto reader = Store::OpenReader(dir.Sub("s"));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->FactsAbout("chip:a").value().size(), 1u);
    EXPECT_TRUE((*reader)->CatchUp().ok());
  }
  EXPECT_EQ(Listing(dir.path()), before);

  auto writer = OpenOrDie(dir.Sub("s"));
  const auto with_writer = Listing(dir.path());
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->FactsAbout("chip:a").value().size(), 1u);
  EXPECT_EQ(Listing(dir.path()), with_writer);
}

// A reader that cannot read a table file fails to open, naming the damage,
// and reads nothing; so does the writer. (A RocksDB secondary instance, which
// readers were until 2026-12, took such a file for one the writer had
// deleted and answered from the column families as they were before it: no
// rows, exit status 0.)
TEST(StoreTest, AReaderRefusesADamagedTableFile) {
  TempDir dir;
  {
    auto writer = OpenOrDie(dir.Sub("s"));
    for (int d = 0; d < 40; ++d) {
      DocBuilder b("doc-" + std::to_string(d));
      for (int c = 0; c < 25; ++c) {
        const std::string chip = "chip:c" + std::to_string(d * 25 + c);
        b.Add(chip, "memory", Value::Quantity((16 + c) * kGB, "bytes", std::to_string(16 + c) + " GB"),
              "memory " + std::to_string(16 + c) + " GB");
      }
      ASSERT_TRUE(writer->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
    }
  }  // closed: flushed into table files
  {
    auto reader = Store::OpenReader(dir.Sub("s"));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ASSERT_EQ((*reader)->FactsAbout("chip:c7").value().size(), 1u);
  }
  // Every table file damaged between its first blocks and its footer, as a
  // bad disk or a stray write would.
  int damaged = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("s"))) {
    if (e.path().extension() != ".sst") continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.size() < 400) continue;
    for (size_t i = 100; i + 200 < bytes.size(); i += 13) bytes[i] = static_cast<char>(~bytes[i]);
    f.seekp(0);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ++damaged;
  }
  ASSERT_GT(damaged, 0);
  const auto before = Listing(dir.path());
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_FALSE(reader.ok()) << "a damaged store opened for reading; chip:c7 has "
                            << (*reader)->FactsAbout("chip:c7").value().size() << " facts";
  EXPECT_TRUE(reader.status().IsCorruption()) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find("the store is damaged"), std::string::npos) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find(dir.Sub("s")), std::string::npos) << reader.status().ToString();
  EXPECT_EQ(Listing(dir.path()), before);
  EXPECT_FALSE(Store::Open(dir.Sub("s")).ok());
}

// A store of one document, its writer closed cleanly.
void WriteOneDocumentAndClose(const std::string& path) {
  auto writer = OpenOrDie(path);
  DocBuilder b("doc-0");
  b.Add("chip:c0", "memory", Value::Quantity(16 * kGB, "bytes", "16 GB"), "memory 16 GB");
  ASSERT_TRUE(writer->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
}

// A writer refused at open (here a table file's footer is damaged) keeps
// the record of the last clean close, which lets readers refuse a MANIFEST
// cut short: it was removed before the open was tried.
TEST(StoreTest, ARefusedWriterKeepsTheCleanCloseRecord) {
  namespace fs = std::filesystem;
  TempDir dir;
  WriteOneDocumentAndClose(dir.Sub("s"));
  ASSERT_FALSE(HasFatalFailure());
  const fs::path store(dir.Sub("s"));
  ASSERT_TRUE(fs::exists(store / "CHIPKG-CLEAN-CLOSE"));
  fs::path largest;
  for (const auto& e : fs::directory_iterator(store)) {
    if (e.path().extension() == ".sst" && (largest.empty() || e.file_size() > fs::file_size(largest))) largest = e.path();
  }
  ASSERT_FALSE(largest.empty());
  {
    const auto size = static_cast<std::streamoff>(fs::file_size(largest));
    std::fstream f(largest, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(size - 8);  // the table's magic number
    f.write("\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  }
  auto writer = Store::Open(dir.Sub("s"));
  ASSERT_FALSE(writer.ok()) << "a writer opened a store with a damaged table file";
  EXPECT_TRUE(fs::exists(store / "CHIPKG-CLEAN-CLOSE")) << writer.status().ToString();
}

// A writer's close lets RocksDB's LOCK go before it records the clean
// close; a writer opening in that moment removed the record, which the close
// then wrote back, and readers refused the store as damaged while the new
// writer grew its MANIFEST. The closing writer's hold (CHIPKG-WRITER) lasts
// until the record is written: held, an open is refused and the record
// stays; let go, the open goes on.
TEST(StoreTest, AWriterOpeningWhileAnotherRecordsItsCleanCloseWaitsItsTurn) {
  namespace fs = std::filesystem;
  TempDir dir;
  WriteOneDocumentAndClose(dir.Sub("s"));
  ASSERT_FALSE(HasFatalFailure());
  const fs::path store(dir.Sub("s"));
  ASSERT_TRUE(fs::exists(store / "CHIPKG-CLEAN-CLOSE"));
  ASSERT_TRUE(fs::exists(store / "CHIPKG-WRITER"));
  // The closing writer's moment between its close and its record.
  const int held = ::open((store / "CHIPKG-WRITER").c_str(), O_RDWR);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  auto refused = Store::Open(dir.Sub("s"));
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsBusy()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("another chipkg process is writing to"), std::string::npos)
      << refused.status().ToString();
  EXPECT_TRUE(fs::exists(store / "CHIPKG-CLEAN-CLOSE"));
  // Readers are not held back.
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  reader->reset();
  ::close(held);
  auto writer = Store::Open(dir.Sub("s"));
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  EXPECT_FALSE(fs::exists(store / "CHIPKG-CLEAN-CLOSE"));  // the open's, as before
  // Held by this writer: another open in this process is refused too.
  auto second = Store::Open(dir.Sub("s"));
  EXPECT_FALSE(second.ok());
}

// A MANIFEST cut short (a copy or a disk that lost its tail) reads, to
// RocksDB, as the store some edits earlier: without a check, readers answered
// from a store missing whole documents and the next writer deleted their
// table files for good. Both refuse it, naming the damage, and delete
// nothing; with the MANIFEST whole again the store is as it was.
TEST(StoreTest, AManifestCutShortIsRefusedAndNothingIsDeleted) {
  TempDir dir;
  for (int session = 0; session < 2; ++session) {  // two sessions: edits appended to the MANIFEST
    auto writer = OpenOrDie(dir.Sub("s"));
    for (int d = session * 20; d < session * 20 + 20; ++d) {
      DocBuilder b("doc-" + std::to_string(d));
      for (int c = 0; c < 25; ++c) {
        const std::string chip = "chip:c" + std::to_string(d * 25 + c);
        b.Add(chip, "memory", Value::Quantity((16 + c) * kGB, "bytes", std::to_string(16 + c) + " GB"),
              "memory " + std::to_string(16 + c) + " GB");
      }
      ASSERT_TRUE(writer->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
    }
  }  // closed: flushed into table files, the MANIFEST's edits appended
  const std::filesystem::path store(dir.Sub("s"));
  std::string name;
  std::getline(std::ifstream(store / "CURRENT"), name);
  const std::filesystem::path manifest = store / name;
  std::string whole;
  {
    std::ifstream in(manifest, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(whole.size(), 1000u);
  std::filesystem::resize_file(manifest, whole.size() / 2);
  const auto before = Listing(dir.path());

  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_FALSE(reader.ok()) << "a store with its MANIFEST cut short opened for reading; chip:c990 has "
                            << (*reader)->FactsAbout("chip:c990").value().size() << " facts";
  EXPECT_TRUE(reader.status().IsCorruption()) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find("the store is damaged"), std::string::npos) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find(name), std::string::npos) << reader.status().ToString();
  auto writer = Store::Open(dir.Sub("s"));
  ASSERT_FALSE(writer.ok()) << "a writer opened a store with its MANIFEST cut short";
  EXPECT_TRUE(writer.status().IsCorruption()) << writer.status().ToString();
  EXPECT_EQ(Listing(dir.path()), before) << "a table file was deleted or a file written";
  // Salvage's copy (Store::OpenRepairedCopy) keeps the record of the clean
  // close with the MANIFEST: it is refused there too, not read as the store
  // some edits earlier.
  auto copied = Store::OpenRepairedCopy(dir.Sub("s"), dir.Sub("copy"));
  ASSERT_FALSE(copied.ok()) << "a copy of a store with its MANIFEST cut short opened";
  EXPECT_NE(copied.status().message().find(name), std::string::npos) << copied.status().ToString();
  std::filesystem::remove_all(dir.Sub("copy"));

  std::ofstream(manifest, std::ios::binary | std::ios::trunc) << whole;
  {
    auto restored = Store::OpenReader(dir.Sub("s"));
    ASSERT_TRUE(restored.ok()) << restored.status().ToString();
    EXPECT_EQ((*restored)->FactsAbout("chip:c990").value().size(), 1u);
  }
  auto reopened = OpenOrDie(dir.Sub("s"));
  EXPECT_EQ(reopened->FactsAbout("chip:c7").value().size(), 1u);
  EXPECT_EQ(reopened->FactsAbout("chip:c990").value().size(), 1u);
}

// A reader whose catching up fails (here CURRENT names a MANIFEST that is not
// there) says so and goes on answering from the view it had; once the store
// is readable again, catching up succeeds.
TEST(StoreTest, AFailedCatchUpKeepsThePreviousView) {
  TempDir dir;
  auto writer = OpenOrDie(dir.Sub("s"));
  ASSERT_TRUE(WriteOneFact(*writer));
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const std::filesystem::path current = std::filesystem::path(dir.Sub("s")) / "CURRENT";
  std::string manifest;
  std::getline(std::ifstream(current), manifest);
  std::ofstream(current, std::ios::trunc) << "MANIFEST-999999\n";
  Status caught = (*reader)->CatchUp();
  EXPECT_FALSE(caught.ok());
  EXPECT_NE(caught.message().find("answers still come from the view opened before"), std::string::npos)
      << caught.ToString();
  auto facts = (*reader)->FactsAbout("chip:a");
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_EQ(facts->size(), 1u);

  std::ofstream(current, std::ios::trunc) << manifest << "\n";
  DocBuilder b2("doc-2");
  b2.Add("chip:b", "memory", Value::Quantity(32 * kGB, "bytes", "32 GB"), "32 GB");
  ASSERT_TRUE(writer->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r2").ok());
  ASSERT_TRUE((*reader)->CatchUp().ok());
  EXPECT_EQ((*reader)->FactsAbout("chip:b").value().size(), 1u);
  EXPECT_EQ((*reader)->FactsAbout("chip:a").value().size(), 1u);
}

// A reader starts no thread: a read-only instance never flushes or compacts, and
// RocksDB's pools would otherwise be grown at every open (two threads, which
// a one-shot `chipkg query` pays for in a process that has opened no writer).
// Here a writer of this process has started the pools already, so what is
// checked is that the reader's environment does not grow them.
TEST(StoreTest, AReaderStartsNoThread) {
  TempDir dir;
  DocBuilder b("doc-1");
  b.Add("chip:a", "memory", Value::Quantity(16 * kGB, "bytes", "16 GB"), "16 GB");
  { ASSERT_TRUE(OpenOrDie(dir.Sub("s"))->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1").ok()); }
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto* impl = dynamic_cast<internal::StoreImpl*>(reader->get());
  ASSERT_NE(impl, nullptr);
  rocksdb::Env* shared = rocksdb::Env::Default();
  rocksdb::Env* env = impl->db()->GetEnv();
  for (auto pool : {rocksdb::Env::LOW, rocksdb::Env::HIGH}) {
    const int threads = shared->GetBackgroundThreads(pool);
    env->IncBackgroundThreadsIfNeeded(threads + 4, pool);
    EXPECT_EQ(shared->GetBackgroundThreads(pool), threads) << "a reader grew RocksDB's thread pool " << pool;
  }
  EXPECT_EQ((*reader)->FactsAbout("chip:a").value().size(), 1u);
  EXPECT_TRUE((*reader)->CatchUp().ok());
}

// Opening a store reads its few table files' footers on the opening thread: RocksDB's default pool
// started 16 threads per column family, 228 thread starts for a cron ingest that then found every
// document unchanged (20 ms -> 12 ms without them).
TEST(StoreTest, OpeningAStoreStartsNoThreadToOpenItsFiles) {
  TempDir dir;
  ASSERT_TRUE(WriteOneFact(*OpenOrDie(dir.Sub("s"))));
  auto writer = OpenOrDie(dir.Sub("s"));
  auto* impl = dynamic_cast<internal::StoreImpl*>(writer.get());
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(impl->db()->GetDBOptions().max_file_opening_threads, 1);
  writer.reset();
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(dynamic_cast<internal::StoreImpl*>(reader->get())->db()->GetDBOptions().max_file_opening_threads, 1);
}

// A reader opens chipkg's column families by name without listing them first;
// a store with one more (added by another RocksDB user) still opens, and one
// that lacks one of chipkg's is refused with the one it lacks.
TEST(StoreTest, AReaderChecksTheColumnFamilies) {
  TempDir dir;
  ASSERT_TRUE(WriteOneFact(*OpenOrDie(dir.Sub("s"))));
  ReshapeColumnFamilies(dir.Sub("s"), "someone-elses", "");
  {
    auto reader = Store::OpenReader(dir.Sub("s"));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->FactsAbout("chip:a").value().size(), 1u);
  }
  ReshapeColumnFamilies(dir.Sub("s"), "", "tx");
  auto reader = Store::OpenReader(dir.Sub("s"));
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsCorruption()) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find("lacks column family 'tx'"), std::string::npos)
      << reader.status().ToString();
}

TEST(StoreTest, BadFactFieldsAreRefused) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  auto attempt = [&](auto mutate) {
    DocBuilder b("d");
    Fact& f = b.Add("chip:a", "memory", Value::Quantity(1, "bytes", "1 B"), "1 B");
    mutate(f);
    return store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").status();
  };
  EXPECT_TRUE(attempt([](Fact& f) { f.subject.clear(); }).IsInvalidArgument());
  EXPECT_TRUE(attempt([](Fact& f) { f.predicate.clear(); }).IsInvalidArgument());
  EXPECT_TRUE(attempt([](Fact& f) { f.provenance.document_id = "other"; }).IsInvalidArgument());
  EXPECT_TRUE(attempt([](Fact& f) { f.valid_as_of = Date{2023, 2, 30, DatePrecision::kDay}; }).IsInvalidArgument());
  EXPECT_TRUE(attempt([](Fact& f) { f.value = Value::OfDate(Date{2023, 13, 0, DatePrecision::kMonth}, ""); })
                  .IsInvalidArgument());
  EXPECT_TRUE(attempt([](Fact& f) { f.value = Value::Entity("", "x"); }).IsInvalidArgument());
  EXPECT_TRUE(attempt([](Fact& f) { f.provenance.span_begin = 2; }).IsInvalidArgument());
  EXPECT_EQ(store->LastTx(), 0u);
  EXPECT_TRUE(store->WriteDocumentVersion(Document{}, DocumentVersion{}, {}, "r").status().IsInvalidArgument());
}


// The batched reads answer exactly what their one-at-a-time counterparts do:
// FactsAboutEach as FactsAbout per subject (aligned with the input, unknown
// subjects empty, retracted claims hidden), GetFacts as GetFact per id, and
// ReadProvenance as the provenance half of GetFact.
TEST(StoreTest, BatchedReadsMatchSingleReads) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b("doc-batch");
  for (int i = 0; i < 40; ++i) {
    const std::string chip = "chip:b" + std::to_string(i);
    b.Add(chip, "memory", Value::Quantity((16 + i) * kGB, "bytes", std::to_string(16 + i) + " GB"),
          chip + " has " + std::to_string(16 + i) + " GB");
    if (i % 3 == 0) {
      b.Add(chip, "memory", Value::NotPublished("not disclosed"), chip + " memory: not disclosed");
    }
    b.Add(chip, "tdp", Value::Quantity(100 + i, "watts", std::to_string(100 + i) + " W"), chip + " TDP");
  }
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1").ok());
  // A second version drops chip:b5's memory claims: retracted, so not visible now.
  DocBuilder b2("doc-batch");
  for (const Fact& f : b.facts()) {
    if (f.subject == "chip:b5" && f.predicate == "memory") continue;
    b2.Add(f.subject, f.predicate, f.value, f.provenance.excerpt);
  }
  ASSERT_TRUE(store->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r2").ok());

  const std::vector<EntityId> subjects = {"chip:b7", "chip:nobody", "chip:b0", "chip:b5", "chip:b39", "chip:b7"};
  auto each = store->FactsAboutEach(subjects, "memory");
  ASSERT_TRUE(each.ok()) << each.status().ToString();
  ASSERT_EQ(each->size(), subjects.size());
  for (size_t i = 0; i < subjects.size(); ++i) {
    SCOPED_TRACE(subjects[i]);
    auto one = store->FactsAbout(subjects[i], "memory");
    ASSERT_TRUE(one.ok());
    ASSERT_EQ((*each)[i].size(), one->size());
    for (size_t k = 0; k < one->size(); ++k) {
      EXPECT_EQ((*each)[i][k].id, (*one)[k].id);
      ExpectSameClaim((*one)[k], (*each)[i][k]);
    }
  }
  EXPECT_TRUE((*each)[1].empty());
  EXPECT_TRUE((*each)[3].empty());  // retracted
  EXPECT_EQ((*each)[2].size(), 2u);  // a figure and a "not published"
  auto unknown_predicate = store->FactsAboutEach(subjects, "no_such_predicate");
  ASSERT_TRUE(unknown_predicate.ok());
  for (const auto& facts : *unknown_predicate) EXPECT_TRUE(facts.empty());

  auto all = store->FactsFromDocument("doc-batch");
  ASSERT_TRUE(all.ok());
  std::vector<uint64_t> ids;
  for (auto it = all->rbegin(); it != all->rend(); ++it) ids.push_back(it->id);  // not in key order
  // Each fact and its provenance read in a batch, in the order asked, as GetFact reads it alone.
  auto expect_read_as_each = [&](const std::vector<uint64_t>& asked) {
    auto facts = store->GetFacts(asked);
    auto provenance = store->ReadProvenance(asked);
    ASSERT_TRUE(facts.ok()) << facts.status().ToString();
    ASSERT_TRUE(provenance.ok()) << provenance.status().ToString();
    ASSERT_EQ(facts->size(), asked.size());
    ASSERT_EQ(provenance->size(), asked.size());
    for (size_t i = 0; i < asked.size(); ++i) {
      auto one = store->GetFact(asked[i]);
      ASSERT_TRUE(one.ok());
      EXPECT_EQ((*facts)[i].id, asked[i]);
      ExpectSameClaim(*one, (*facts)[i]);
      EXPECT_EQ((*provenance)[i].excerpt, one->provenance.excerpt);
      EXPECT_EQ((*provenance)[i].span_begin, one->provenance.span_begin);
      EXPECT_EQ((*provenance)[i].span_end, one->provenance.span_end);
      EXPECT_EQ((*provenance)[i].run_id, one->provenance.run_id);
      EXPECT_TRUE((*provenance)[i].document_id.empty());  // comes with the fact, not read again
    }
  };
  expect_read_as_each(ids);
  // Ids a stretch holds densely are read by walking it, sparse ones by lookups: the same records.
  std::sort(ids.begin(), ids.end());
  for (size_t stride : {1, 2, 3, 5, 9}) {
    SCOPED_TRACE("every " + std::to_string(stride) + " ids");
    std::vector<uint64_t> some;
    for (size_t i = 0; i < ids.size(); i += stride) some.push_back(ids[i]);
    ASSERT_GE(some.size(), 4u);
    expect_read_as_each(some);
  }
  auto missing = store->GetFacts({ids[0], 999999});
  EXPECT_FALSE(missing.ok());
}


// Writes `b` as the first version of its document and, as the second, the same facts but the
// memory claims of every seventh chip ("chip:" and two letters, then its number), with what
// `more` adds; then closes the store, so that its table files are flushed (the choice between a
// pass and seeks is estimated from their sizes). Returns the first version's transaction, 0 when
// a write failed.
TxId WriteTwoVersions(const std::string& path, DocBuilder& b, const std::function<void(DocBuilder&)>& more) {
  auto store = OpenOrDie(path);
  auto w = store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1");
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return 0;
  DocBuilder b2(b.doc().id);
  for (const Fact& f : b.facts()) {
    const int n = std::stoi(f.subject.substr(6));
    if (f.predicate == "memory" && n % 7 == 0) continue;
    b2.Add(f.subject, f.predicate, f.value, f.provenance.excerpt, f.qualifiers).valid_as_of = f.valid_as_of;
  }
  more(b2);
  auto w2 = store->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r2");
  EXPECT_TRUE(w2.ok()) << w2.status().ToString();
  return w2.ok() ? w->tx : 0;
}

// FactsAboutEach of one predicate for many subjects answers from one pass over the predicate's
// `pos` entries when that costs less than a seek per subject: the same facts, in the same order,
// under every view, for subjects asked in any order, twice, unknown or empty; a few subjects, or
// a predicate with many more facts than subjects asked, are still read by seeks.
TEST(StoreTest, ReadingOnePredicateOfManySubjectsInOnePassMatchesSeeks) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  constexpr int kChips = 3000;
  DocBuilder b("doc-many");
  for (int i = 0; i < kChips; ++i) {
    const std::string chip = "chip:m" + std::to_string(i);
    b.Add(chip, "memory", Value::Quantity((i % 97) * kGB, "bytes", std::to_string(i % 97) + " GB"), chip + " memory");
    if (i % 4 == 0) b.Add(chip, "memory", Value::NotPublished("not disclosed"), chip + " memory: not disclosed");
    if (i % 5 == 0) {
      Fact& dated = b.Add(chip, "memory", Value::Quantity(i * kGB, "bytes", std::to_string(i) + " GB"),
                          chip + " memory in 2024", {{"scope", "instance"}});
      dated.valid_as_of = Date::Parse("2024-06").value();
    }
    b.Add(chip, "tdp", Value::Quantity(100 + i, "watts", std::to_string(100 + i) + " W"), chip + " TDP");
  }
  // A second version drops every seventh chip's memory claims (retracted) and adds one.
  const TxId first_tx = WriteTwoVersions(path, b, [](DocBuilder& b2) {
    b2.Add("chip:m1", "memory", Value::Quantity(1000 * kGB, "bytes", "1000 GB"), "chip:m1 memory, revised");
  });
  ASSERT_NE(first_tx, 0u);
  auto store = OpenOrDie(path);
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);

  std::vector<EntityId> subjects;
  for (int i = kChips - 1; i >= 0; i -= 2) subjects.push_back("chip:m" + std::to_string(i));  // not in key order
  subjects.insert(subjects.begin() + 10, "chip:nobody");
  subjects.insert(subjects.begin() + 20, "");
  subjects.push_back("chip:m7");  // asked twice, retracted
  subjects.push_back("chip:m1");
  subjects.push_back("chip:m1");

  std::vector<ReadView> views(4);
  views[1].include_retracted = true;
  views[2].as_of_tx = first_tx;
  views[3].valid_on = Date::Parse("2023-12-31").value();
  views[3].with_provenance = false;
  for (size_t v = 0; v < views.size(); ++v) {
    SCOPED_TRACE("view " + std::to_string(v));
    const uint64_t passes = impl->PredicatePasses();
    auto each = store->FactsAboutEach(subjects, "memory", views[v]);
    ASSERT_TRUE(each.ok()) << each.status().ToString();
    EXPECT_EQ(impl->PredicatePasses(), passes + 1) << "read by seeks, not by one pass";
    ASSERT_EQ(each->size(), subjects.size());
    size_t facts = 0;
    for (size_t i = 0; i < subjects.size(); ++i) {
      SCOPED_TRACE(subjects[i]);
      auto one = store->FactsAbout(subjects[i], "memory", views[v]);
      ASSERT_TRUE(one.ok());
      ASSERT_EQ((*each)[i].size(), one->size());
      for (size_t k = 0; k < one->size(); ++k) {
        EXPECT_EQ((*each)[i][k].id, (*one)[k].id);
        EXPECT_EQ((*each)[i][k].retracted_tx, (*one)[k].retracted_tx);
        ExpectSameClaim((*one)[k], (*each)[i][k]);
      }
      facts += one->size();
    }
    EXPECT_GT(facts, subjects.size() / 2);  // the comparison covered many facts
  }
  // Few subjects: seeks.
  const uint64_t passes = impl->PredicatePasses();
  std::vector<EntityId> few(subjects.begin(), subjects.begin() + 100);
  auto some = store->FactsAboutEach(few, "memory");
  ASSERT_TRUE(some.ok());
  EXPECT_EQ((*some)[0].size(), store->FactsAbout(few[0], "memory").value().size());
  // Many subjects, but of a predicate with far more facts than them: seeks.
  std::vector<EntityId> spread;
  for (int i = 0; i < kChips; i += 3) spread.push_back("chip:m" + std::to_string(i));
  spread.resize(1100);
  DocBuilder wide("doc-wide");
  for (int i = 0; i < kChips; ++i) {
    for (int k = 0; k < 4; ++k) {
      wide.Add("chip:m" + std::to_string(i), "tdp", Value::Quantity(200 + k, "watts", std::to_string(200 + k) + " W"),
               "tdp " + std::to_string(k));
    }
  }
  ASSERT_TRUE(store->WriteDocumentVersion(wide.doc(), wide.version(), wide.facts(), "r3").ok());
  auto tdp = store->FactsAboutEach(spread, "tdp");
  ASSERT_TRUE(tdp.ok());
  EXPECT_EQ((*tdp)[0].size(), store->FactsAbout(spread[0], "tdp").value().size());
  EXPECT_EQ(impl->PredicatePasses(), passes);
}

// A reader that has read nothing yet names the ids a large read finds in batches
// (Dictionary::Learn), not one point read each: a one-shot `find` on memory at N=100,000 named its
// 48,000 candidates a Get at a time, a seventh of its time. The names are the ones written.
TEST(StoreTest, AFreshReaderNamesTheIdsOfALargeReadInBatches) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  constexpr int kChips = 2000;
  DocBuilder b("doc-names");
  for (int i = 0; i < kChips; ++i) {
    const std::string chip = "chip:n" + std::to_string(i);
    b.Add(chip, "memory", Value::Quantity((i % 50) * kGB, "bytes", std::to_string(i % 50) + " GB"), chip + " memory",
          {{"format", "f" + std::to_string(i % 7)}});
  }
  {
    auto writer = OpenOrDie(path);
    ASSERT_TRUE(writer->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run-1").ok());
  }
  ValueRange ge10;
  ge10.lower = Value::Quantity(10 * kGB, "bytes", "");
  auto expect_names = [&](const std::string& what, auto&& read) {
    SCOPED_TRACE(what);
    auto reader = Store::OpenReader(path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const auto* impl = dynamic_cast<const internal::StoreImpl*>(reader->get());
    ASSERT_NE(impl, nullptr);
    const uint64_t before = impl->dictionary().PointReads();
    read(**reader);
    EXPECT_LT(impl->dictionary().PointReads() - before, 20u) << "ids named one read at a time";
  };
  expect_names("subjects in a range", [&](const Store& store) {
    auto subjects = store.SubjectsInRange("memory", ge10);
    ASSERT_TRUE(subjects.ok()) << subjects.status().ToString();
    std::set<std::string> got(subjects->begin(), subjects->end()), want;
    for (int i = 0; i < kChips; ++i) {
      if (i % 50 >= 10) want.insert("chip:n" + std::to_string(i));
    }
    EXPECT_EQ(got, want);
  });
  auto expect_facts = [&](const std::vector<Fact>& facts, size_t count) {
    ASSERT_EQ(facts.size(), count);
    for (const Fact& f : facts) {
      const int i = std::stoi(f.subject.substr(std::string("chip:n").size()));
      EXPECT_EQ(f.subject, "chip:n" + std::to_string(i));
      EXPECT_EQ(f.predicate, "memory");
      EXPECT_EQ(f.value.dimension, "bytes");
      EXPECT_EQ(f.value.number, (i % 50) * kGB);
      EXPECT_EQ(f.qualifiers, (Qualifiers{{"format", "f" + std::to_string(i % 7)}}));
      EXPECT_EQ(f.provenance.document_id, "doc-names");
      EXPECT_EQ(f.provenance.rule, "test-rule");
    }
  };
  expect_names("facts in a range", [&](const Store& store) {
    auto facts = store.FactsInRange("memory", ge10);
    ASSERT_TRUE(facts.ok()) << facts.status().ToString();
    expect_facts(*facts, kChips / 50 * 40);
  });
  std::vector<uint64_t> fact_ids;
  expect_names("facts of a document", [&](const Store& store) {
    auto facts = store.FactsFromDocument("doc-names");
    ASSERT_TRUE(facts.ok()) << facts.status().ToString();
    expect_facts(*facts, kChips);
    for (const Fact& f : *facts) fact_ids.push_back(f.id);
  });
  expect_names("facts by id", [&](const Store& store) {
    auto facts = store.GetFacts(fact_ids);
    ASSERT_TRUE(facts.ok()) << facts.status().ToString();
    expect_facts(*facts, kChips);
  });
  expect_names("subjects with a predicate", [&](const Store& store) {
    auto subjects = store.SubjectsWith("memory");
    ASSERT_TRUE(subjects.ok()) << subjects.status().ToString();
    EXPECT_EQ(subjects->size(), static_cast<size_t>(kChips));
  });
  expect_names("subjects in a range with their facts", [&](const Store& store) {
    auto both = store.SubjectsInRangeWithFacts("memory", ge10, ReadView{}, 0, SIZE_MAX, nullptr);
    ASSERT_TRUE(both.ok()) << both.status().ToString();
    ASSERT_TRUE(both->facts.has_value());
    ASSERT_EQ(both->facts->size(), both->subjects.size());
    std::vector<Fact> all;
    for (size_t i = 0; i < both->subjects.size(); ++i) {
      ASSERT_EQ((*both->facts)[i].size(), 1u);
      EXPECT_EQ((*both->facts)[i][0].subject, both->subjects[i]);
      all.push_back((*both->facts)[i][0]);
    }
    expect_facts(all, kChips / 50 * 40);
  });
  expect_names("one predicate of many subjects", [&](const Store& store) {
    std::vector<EntityId> subjects;
    for (int i = 0; i < kChips; ++i) subjects.push_back("chip:n" + std::to_string(i));
    auto each = store.FactsAboutEach(subjects, "memory");
    ASSERT_TRUE(each.ok()) << each.status().ToString();
    std::vector<Fact> all;
    for (const auto& facts : *each) all.insert(all.end(), facts.begin(), facts.end());
    expect_facts(all, kChips);
  });
}

// SubjectsInRangeWithFacts answers as SubjectsInRange and then FactsAboutEach of its subjects do,
// under every view: the subjects in the value order of their first fact in the range, each
// subject's facts of the predicate (in the range or not: under the bound, "not published",
// retracted, dated) by fact id. The facts are read only within the bounds asked for, by one pass
// when the rest of the predicate is small against the subjects and by seeks when it is not;
// `on_subjects` hears of the subjects just before their facts are read, and never otherwise.
TEST(StoreTest, SubjectsInRangeWithFactsAnswersAsTheTwoReadsDo) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  constexpr int kChips = 3000;
  DocBuilder b("doc-range");
  for (int i = 0; i < kChips; ++i) {
    const std::string chip = "chip:q" + std::to_string(i);
    b.Add(chip, "memory", Value::Quantity((i % 97) * kGB, "bytes", std::to_string(i % 97) + " GB"), chip + " memory");
    if (i % 3 == 0) {
      b.Add(chip, "memory", Value::Quantity((i % 89) * kGB, "bytes", std::to_string(i % 89) + " GB"),
            chip + " memory, again");
    }
    if (i % 4 == 0) b.Add(chip, "memory", Value::NotPublished("not disclosed"), chip + " memory: not disclosed");
    if (i % 5 == 0) {
      Fact& dated = b.Add(chip, "memory", Value::Quantity(i * kGB, "bytes", std::to_string(i) + " GB"),
                          chip + " memory in 2024", {{"scope", "instance"}});
      dated.valid_as_of = Date::Parse("2024-06").value();
    }
    for (int k = 0; k < 12; ++k) {
      b.Add(chip, "tdp", Value::Quantity(100 + k * 10 + (i % 7), "watts", "W"), chip + " TDP " + std::to_string(k));
    }
  }
  // A second version drops every seventh chip's memory claims (retracted).
  const TxId first_tx = WriteTwoVersions(path, b, [](DocBuilder&) {});
  ASSERT_NE(first_tx, 0u);
  auto store = OpenOrDie(path);
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);

  ValueRange ge40, under5, markers, none, tdp_top, tdp_most;
  ge40.lower = Value::Quantity(40 * kGB, "bytes", "");
  under5.upper = Value::Quantity(5 * kGB, "bytes", "");
  under5.upper_inclusive = false;
  under5.kind = ValueKind::kQuantity;
  markers.kind = ValueKind::kNotPublished;
  none.lower = Value::Quantity(1e6 * kGB, "bytes", "");
  tdp_top.lower = Value::Quantity(210, "watts", "");
  tdp_most.lower = Value::Quantity(150, "watts", "");  // 7 of each chip's 12: 21,000 entries
  struct Case {
    std::string predicate;
    ValueRange range;
    bool one_pass;  // when the facts are read
  };
  const std::vector<Case> cases = {{"memory", ge40, true},     {"memory", under5, false}, {"memory", markers, false},
                                   {"memory", none, false},    {"no_such", ge40, false},  {"tdp", tdp_top, false},
                                   {"tdp", tdp_most, true}};
  std::vector<ReadView> views(4);
  views[1].include_retracted = true;
  views[2].as_of_tx = first_tx;
  views[3].valid_on = Date::Parse("2023-12-31").value();
  views[3].with_provenance = false;
  size_t compared = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    for (size_t v = 0; v < views.size(); ++v) {
      SCOPED_TRACE("case " + std::to_string(c) + ", view " + std::to_string(v));
      const Case& k = cases[c];
      auto subjects = store->SubjectsInRange(k.predicate, k.range, views[v]);
      ASSERT_TRUE(subjects.ok()) << subjects.status().ToString();
      // Facts for any number of subjects.
      const uint64_t passes = impl->PredicatePasses();
      int heard = 0;
      auto both = store->SubjectsInRangeWithFacts(k.predicate, k.range, views[v], 0, SIZE_MAX,
                                                  [&](const std::vector<EntityId>& s) {
                                                    ++heard;
                                                    EXPECT_EQ(s, *subjects);
                                                  });
      ASSERT_TRUE(both.ok()) << both.status().ToString();
      EXPECT_EQ(both->subjects, *subjects);
      const bool read = !subjects->empty();
      EXPECT_EQ(heard, read ? 1 : 0);
      ASSERT_TRUE(both->facts.has_value());
      ASSERT_EQ(both->facts->size(), subjects->size());
      EXPECT_EQ(impl->PredicatePasses() - passes, k.one_pass && subjects->size() >= 1024 ? 1u : 0u);
      // Stretches of a large range's scan and half of a large pass's decoding handed to another
      // thread: the same subjects in the same order, the same facts. Whether that thread starts at
      // once or only after this one has scanned every stretch itself.
      std::vector<std::thread> threads;
      const uint64_t stretches = impl->RangeScanStretches();
      auto halves = store->SubjectsInRangeWithFacts(k.predicate, k.range, views[v], 0, SIZE_MAX, nullptr,
                                                    [&](std::function<void()> task) {
                                                      threads.emplace_back(std::move(task));
                                                    });
      for (std::thread& t : threads) t.join();
      ASSERT_TRUE(halves.ok()) << halves.status().ToString();
      EXPECT_EQ(halves->subjects, *subjects);
      ASSERT_TRUE(halves->facts.has_value());
      const uint64_t cut_into = impl->RangeScanStretches() - stretches;
      // ~2,900 entries: halves; 21,000: eighths (fewer only where the size estimates cannot tell).
      if (c == 0) { EXPECT_EQ(cut_into, 2u); }
      if (c == 6) { EXPECT_GE(cut_into, 5u); }
      const size_t scan_tasks = cut_into > 0 ? 1 : 0;
      EXPECT_EQ(threads.size(), scan_tasks + (k.one_pass && subjects->size() >= 1024 ? 1u : 0u));
      threads.clear();
      auto late = store->SubjectsInRangeWithFacts(k.predicate, k.range, views[v], 0, SIZE_MAX, nullptr,
                                                  [&](std::function<void()> task) {
                                                    threads.emplace_back([task = std::move(task)] {
                                                      std::this_thread::sleep_for(std::chrono::milliseconds(30));
                                                      task();
                                                    });
                                                  });
      for (std::thread& t : threads) t.join();
      ASSERT_TRUE(late.ok()) << late.status().ToString();
      EXPECT_EQ(late->subjects, *subjects);
      ASSERT_TRUE(late->facts.has_value());
      // The range's facts alone: no pass over the rest of the predicate, the decoding shared the
      // same way.
      const uint64_t range_only = impl->RangeOnlyReads();
      const uint64_t passes_before = impl->PredicatePasses();
      threads.clear();
      auto in_range = store->SubjectsInRangeWithFacts(
          k.predicate, k.range, views[v], 0, SIZE_MAX, nullptr,
          [&](std::function<void()> task) { threads.emplace_back(std::move(task)); }, Store::FactsOf::kRange);
      for (std::thread& t : threads) t.join();
      ASSERT_TRUE(in_range.ok()) << in_range.status().ToString();
      EXPECT_EQ(in_range->subjects, *subjects);
      EXPECT_EQ(impl->PredicatePasses(), passes_before);
      EXPECT_EQ(impl->RangeOnlyReads() - range_only, subjects->empty() ? 0u : 1u);
      ASSERT_TRUE(in_range->facts.has_value());
      auto facts_in_range = store->FactsInRange(k.predicate, k.range, views[v]);
      ASSERT_TRUE(facts_in_range.ok());
      std::set<uint64_t> in_range_ids;
      for (const Fact& f : *facts_in_range) in_range_ids.insert(f.id);
      auto each = store->FactsAboutEach(*subjects, k.predicate, views[v]);
      ASSERT_TRUE(each.ok());
      ASSERT_EQ(in_range->facts->size(), subjects->size());
      size_t outside = 0;
      for (size_t i = 0; i < subjects->size(); ++i) {
        SCOPED_TRACE((*subjects)[i]);
        std::vector<const Fact*> want;
        for (const Fact& f : (*each)[i]) {
          if (in_range_ids.count(f.id)) want.push_back(&f);
        }
        outside += (*each)[i].size() - want.size();
        ASSERT_EQ((*in_range->facts)[i].size(), want.size());
        for (size_t f = 0; f < want.size(); ++f) {
          EXPECT_EQ((*in_range->facts)[i][f].id, want[f]->id);
          EXPECT_EQ((*in_range->facts)[i][f].provenance.excerpt, want[f]->provenance.excerpt);
          ExpectSameClaim(*want[f], (*in_range->facts)[i][f]);
        }
      }
      if (c == 0) { EXPECT_GT(outside, 100u); }  // the subjects have facts under the bound, left out
      for (const auto* read : {&*both->facts, &*halves->facts, &*late->facts}) {
        ASSERT_EQ(read->size(), subjects->size());
        for (size_t i = 0; i < subjects->size(); ++i) {
          SCOPED_TRACE((*subjects)[i]);
          ASSERT_EQ((*read)[i].size(), (*each)[i].size());
          for (size_t f = 0; f < (*each)[i].size(); ++f) {
            EXPECT_EQ((*read)[i][f].id, (*each)[i][f].id);
            EXPECT_EQ((*read)[i][f].retracted_tx, (*each)[i][f].retracted_tx);
            EXPECT_EQ((*read)[i][f].provenance.excerpt, (*each)[i][f].provenance.excerpt);
            ExpectSameClaim((*each)[i][f], (*read)[i][f]);
            ++compared;
          }
        }
      }
      // A part handed over and never run fails the read; it does not wait forever.
      if (k.one_pass && subjects->size() >= 1024) {
        auto dropped = store->SubjectsInRangeWithFacts(k.predicate, k.range, views[v], 0, SIZE_MAX, nullptr,
                                                       [](std::function<void()>) {});
        ASSERT_FALSE(dropped.ok());
        EXPECT_EQ(dropped.status().code(), Status::Code::kAborted) << dropped.status().ToString();
      }
      // Outside the bounds: the subjects alone, and no word of them before.
      if (subjects->empty()) continue;
      for (auto [from, up_to] : {std::pair<size_t, size_t>{subjects->size() + 1, SIZE_MAX},
                                 std::pair<size_t, size_t>{0, subjects->size() - 1}}) {
        heard = 0;
        auto alone = store->SubjectsInRangeWithFacts(k.predicate, k.range, views[v], from, up_to,
                                                     [&](const std::vector<EntityId>&) { ++heard; });
        ASSERT_TRUE(alone.ok());
        EXPECT_EQ(alone->subjects, *subjects);
        EXPECT_FALSE(alone->facts.has_value());
        EXPECT_EQ(heard, 0);
      }
    }
  }
  EXPECT_GT(compared, 20000u);  // the comparison covered many facts
}

// Entity, document and version records are kept once read (every query's rows and citations read
// them again), and what is kept is never older than the store: a rewritten document record, new
// validators, a record put on its own, a renamed entity, and, for a reader, another process's
// writes once it catches up.
TEST(StoreTest, KeptRecordsFollowEveryWrite) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  auto store = OpenOrDie(path);
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);
  DocBuilder b("doc-k");
  b.Add("chip:k", "memory", Value::Quantity(32e9, "bytes", "32 GB"), "32 GB");
  Document doc = b.doc();
  ASSERT_TRUE(store->WriteDocumentVersion(doc, b.version(), b.facts(), "r1").ok());
  auto title_of = [&](const Store& s) {
    Result<std::vector<std::optional<Document>>> many = s.GetDocuments({"doc-k", "doc-none"});
    EXPECT_TRUE(many.ok());
    EXPECT_FALSE((*many)[1].has_value());
    Result<Document> one = s.GetDocument("doc-k");
    EXPECT_TRUE(one.ok());
    EXPECT_EQ((*many)[0]->title, one->title);
    Result<std::vector<CitedSource>> cited = s.GetCitedSources({{"doc-k", 1}});
    EXPECT_TRUE(cited.ok());
    EXPECT_NE((*cited)[0].document, nullptr);
    if ((*cited)[0].document != nullptr) {
      EXPECT_EQ((*cited)[0].document->title, one->title);
    }
    return one->title + "|" + one->etag;
  };
  EXPECT_EQ(title_of(*store), "Title of doc-k|");
  const uint64_t hits = impl->SourceCacheHits();
  EXPECT_EQ(title_of(*store), "Title of doc-k|");
  EXPECT_GE(impl->SourceCacheHits(), hits + 2) << "read from the store again";

  // A new version with a new title; the same content with new validators; the record alone.
  doc.title = "Second title";
  DocBuilder b2("doc-k");
  b2.Add("chip:k", "memory", Value::Quantity(64e9, "bytes", "64 GB"), "64 GB");
  ASSERT_TRUE(store->WriteDocumentVersion(doc, b2.version(), b2.facts(), "r2").ok());
  EXPECT_EQ(title_of(*store), "Second title|");
  doc.etag = "\"v2\"";
  ASSERT_TRUE(store->WriteDocumentVersion(doc, b2.version(), b2.facts(), "r3").ok());
  EXPECT_EQ(title_of(*store), "Second title|\"v2\"");
  doc.title = "Third title";
  ASSERT_TRUE(store->PutDocument(doc).ok());
  EXPECT_EQ(title_of(*store), "Third title|\"v2\"");

  // Version records: kept without their text, and a read with text still gets it.
  for (int i = 0; i < 2; ++i) {
    Result<DocumentVersion> meta = store->GetDocumentVersion("doc-k", 2, /*with_text=*/false);
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    EXPECT_TRUE(meta->text.empty());
    Result<std::vector<std::optional<DocumentVersion>>> metas = store->GetDocumentVersions({{"doc-k", 1}, {"doc-k", 2}, {"doc-k", 9}});
    ASSERT_TRUE(metas.ok());
    EXPECT_EQ((*metas)[1]->content_hash, meta->content_hash);
    EXPECT_NE((*metas)[0]->content_hash, meta->content_hash);
    EXPECT_FALSE((*metas)[2].has_value());
    Result<DocumentVersion> full = store->GetDocumentVersion("doc-k", 2, /*with_text=*/true);
    ASSERT_TRUE(full.ok());
    EXPECT_EQ(full->text, b2.text());
  }

  // Entities: one read alone and among a few.
  auto name_of = [&](const Store& s) {
    Result<std::vector<std::optional<Entity>>> many = s.GetEntities({"chip:k", "chip:none"});
    EXPECT_TRUE(many.ok());
    EXPECT_FALSE((*many)[1].has_value());
    Result<Entity> one = s.GetEntity("chip:k");
    EXPECT_TRUE(one.ok());
    EXPECT_EQ((*many)[0]->name, one->name);
    return one->name;
  };
  ASSERT_TRUE(store->PutEntity({"chip:k", "chip", "Kay", {}}).ok());
  EXPECT_EQ(name_of(*store), "Kay");
  const uint64_t before = impl->SourceCacheHits();
  EXPECT_EQ(name_of(*store), "Kay");
  EXPECT_GE(impl->SourceCacheHits(), before + 2) << "read from the store again";
  ASSERT_TRUE(store->PutEntity({"chip:k", "chip", "Kay 2", {"k2"}}).ok());
  EXPECT_EQ(name_of(*store), "Kay 2");
  EXPECT_EQ(store->FindEntity("k2").value().name, "Kay 2");

  // A reader in another process's place: what it kept holds until it catches up.
  auto reader = Store::OpenReader(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(title_of(**reader), "Third title|\"v2\"");
  EXPECT_EQ(name_of(**reader), "Kay 2");
  doc.title = "Fourth title";
  ASSERT_TRUE(store->PutDocument(doc).ok());
  ASSERT_TRUE(store->PutEntity({"chip:k", "chip", "Kay 3", {}}).ok());
  EXPECT_EQ(title_of(**reader), "Third title|\"v2\"");  // its view is the one it opened
  EXPECT_EQ(name_of(**reader), "Kay 2");
  ASSERT_TRUE((*reader)->CatchUp().ok());
  EXPECT_EQ(title_of(**reader), "Fourth title|\"v2\"");
  EXPECT_EQ(name_of(**reader), "Kay 3");
}

// Whole subjects read in a batch (a conflicts pass reads 64 at a time) step from one subject's
// entries to the next subject's instead of seeking when few entries lie between them, and seek
// when many do: either way each subject gets exactly what a read of it alone gets, under every
// view, contested-only reads included.
TEST(StoreTest, ReadingManyWholeSubjectsStepsBetweenThemAndMatchesSeeks) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  constexpr int kChips = 600;
  DocBuilder a("doc-a"), b("doc-b");
  for (int i = 0; i < kChips; ++i) {
    const std::string chip = "chip:w" + std::to_string(i);
    a.Add(chip, "memory", Value::Quantity((i % 7) * kGB, "bytes", std::to_string(i % 7) + " GB"), chip + " memory");
    b.Add(chip, "memory", Value::Quantity((i % 5) * kGB, "bytes", std::to_string(i % 5) + " GB"), chip + " mem");
    if (i % 3 != 0) {  // every third chip has two facts; the others a dozen
      for (int k = 0; k < 10; ++k) {
        a.Add(chip, "tdp", Value::Quantity(100 + k, "watts", std::to_string(100 + k) + " W"), chip + " tdp",
              {{"scope", k % 2 ? "chip" : "card"}});
      }
    }
    if (i % 4 == 0) b.Add(chip, "foundry", Value::NotPublished("not disclosed"), chip + " foundry");
  }
  TxId first_tx = 0;
  {
    auto store = OpenOrDie(path);
    auto w = store->WriteDocumentVersion(a.doc(), a.version(), a.facts(), "r1");
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    first_tx = w->tx;
    ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1").ok());
    // A second version of doc-b drops every sixth chip's claims (retracted).
    DocBuilder b2("doc-b");
    for (const Fact& f : b.facts()) {
      if (std::stoi(f.subject.substr(6)) % 6 != 0) b2.Add(f.subject, f.predicate, f.value, f.provenance.excerpt);
    }
    ASSERT_TRUE(store->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r2").ok());
  }
  auto store = OpenOrDie(path);
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);

  // Every chip but one in five (gaps of two or of twelve entries), not in key order, with an
  // unknown subject, an empty one, and repeats.
  std::vector<EntityId> subjects;
  for (int i = kChips - 1; i >= 0; --i) {
    if (i % 5 != 1) subjects.push_back("chip:w" + std::to_string(i));
  }
  subjects.insert(subjects.begin() + 10, "chip:nobody");
  subjects.insert(subjects.begin() + 20, "");
  subjects.push_back("chip:w6");
  subjects.push_back("chip:w3");

  std::vector<ReadView> views(4);
  views[1].include_retracted = true;
  views[2].as_of_tx = first_tx;
  views[3].with_provenance = false;
  for (size_t v = 0; v < views.size(); ++v) {
    SCOPED_TRACE("view " + std::to_string(v));
    for (bool contested : {false, true}) {
      SCOPED_TRACE(contested ? "contested" : "every fact");
      const uint64_t stepped = impl->SteppedSubjects();
      auto each = contested ? store->ContestedFactsAboutEach(subjects, views[v])
                            : store->FactsAboutEach(subjects, "", views[v]);
      ASSERT_TRUE(each.ok()) << each.status().ToString();
      EXPECT_GT(impl->SteppedSubjects(), stepped + subjects.size() / 2) << "seeked to every subject";
      ASSERT_EQ(each->size(), subjects.size());
      size_t facts = 0;
      for (size_t i = 0; i < subjects.size(); ++i) {
        SCOPED_TRACE(subjects[i]);
        auto one = contested ? store->ContestedFactsAboutEach({subjects[i]}, views[v])
                             : store->FactsAboutEach({subjects[i]}, "", views[v]);
        ASSERT_TRUE(one.ok());
        ASSERT_EQ((*each)[i].size(), (*one)[0].size());
        for (size_t k = 0; k < (*one)[0].size(); ++k) {
          EXPECT_EQ((*each)[i][k].id, (*one)[0][k].id);
          ExpectSameClaim((*one)[0][k], (*each)[i][k]);
          EXPECT_EQ((*each)[i][k].provenance.excerpt, (*one)[0][k].provenance.excerpt);
        }
        facts += (*one)[0].size();
      }
      EXPECT_GT(facts, subjects.size());  // the comparison covered many facts
    }
  }
  // A single subject is read as it always was, and agrees with FactsAbout.
  auto alone = store->FactsAboutEach({"chip:w2"}, "");
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ((*alone)[0].size(), store->FactsAbout("chip:w2").value().size());
}

// A large batch's keys are put in byte order by the 8 bytes after the prefix they all share, and by
// the whole key where those are equal: keys alike for longer than that, keys that are prefixes of
// others, and bytes past 0x7f must still come in the order the store holds them, or a pass merged
// with them (and a MultiGet told its keys are sorted) misses records.
TEST(StoreTest, BatchedEntityReadsOrderKeysAlikeBeyondTheirSharedPrefix) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  std::vector<EntityId> ids;
  const std::string stem = "chip:accelerator-series-";  // shared by all: the window starts after it
  for (int i = 0; i < 40; ++i) ids.push_back(stem + "x" + std::string(12, 'q') + std::to_string(i));  // alike past 8 bytes
  for (const char* tail : {"p", "p1", "p10", "p100", "p1000", "p10000", "p100000", "p1000000", "p10000000"}) {
    ids.push_back(stem + tail);  // each a prefix of the next, within the window and past it
  }
  for (int i = 0; i < 20; ++i) ids.push_back(stem + "\xc3\xa9" + std::to_string(i));  // UTF-8: bytes above 0x7f
  for (int i = 0; i < 20; ++i) ids.push_back(stem + "~" + std::to_string(i));
  // Many more entities among them, so that the few asked below are read by point lookups.
  std::vector<EntityId> fillers;
  for (int i = 0; i < 3000; ++i) fillers.push_back(stem + "m" + std::to_string(i));
  size_t present = 0;
  {
    auto store = OpenOrDie(path);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i % 4 == 3) continue;  // some absent
      ASSERT_TRUE(store->PutEntity({ids[i], "chip", "Chip " + std::to_string(i), {}}).ok());
      ++present;
    }
    for (const EntityId& id : fillers) ASSERT_TRUE(store->PutEntity({id, "chip", "Filler", {}}).ok());
  }  // closed: flushed to a table file, whose size the choice of pass or lookups is estimated from
  auto store = OpenOrDie(path);
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);
  std::mt19937 shuffle(7);
  std::vector<EntityId> asked = ids;
  std::shuffle(asked.begin(), asked.end(), shuffle);
  asked.push_back(ids[3]);   // absent, asked twice
  asked.push_back(ids[41]);  // a prefix of others, again
  asked.push_back(stem);     // the shared prefix itself: absent
  auto check = [&](const std::vector<EntityId>& keys, bool in_one_pass) {
    const uint64_t before = impl->MergedPasses();
    auto got = store->GetEntities(keys);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return size_t{0};
    EXPECT_EQ(impl->MergedPasses(), before + (in_one_pass ? 1 : 0));
    EXPECT_EQ(got->size(), keys.size());
    size_t found = 0;
    for (size_t i = 0; i < keys.size() && i < got->size(); ++i) {
      auto one = store->GetEntity(keys[i]);
      EXPECT_EQ((*got)[i].has_value(), one.ok()) << "key " << i << " " << keys[i];
      if (!one.ok() || !(*got)[i].has_value()) continue;
      ++found;
      EXPECT_EQ((*got)[i]->id, keys[i]);
      EXPECT_EQ((*got)[i]->name, one->name);
    }
    return found;
  };
  // Asked among few others: point lookups, each batch's keys sorted as the store holds them.
  EXPECT_EQ(check(asked, /*in_one_pass=*/false), present + 1);
  // Asked with every filler: one pass merged with the keys in that order.
  std::vector<EntityId> dense = asked;
  dense.insert(dense.end(), fillers.begin(), fillers.end());
  std::shuffle(dense.begin(), dense.end(), shuffle);
  EXPECT_EQ(check(dense, /*in_one_pass=*/true), present + 1 + fillers.size());
}

// Batched reads of entities, documents and versions answer from one pass over the stretch their
// keys cover when the keys fill it densely, and by point lookups otherwise: the same records either
// way, aligned with the keys asked, absent and repeated ones included.
TEST(StoreTest, DenseBatchedReadsTakeOnePassAndAnswerAsLookupsDo) {
  TempDir dir;
  const std::string path = dir.Sub("s");
  constexpr int kEntities = 3000;
  {
    auto store = OpenOrDie(path);
    for (int i = 0; i < kEntities; ++i) {
      const std::string id = "chip:e" + std::to_string(10000 + i);
      ASSERT_TRUE(store->PutEntity({id, "chip", "Chip " + std::to_string(i), {"E" + std::to_string(i)}}).ok());
      if (i % 2 == 0) {
        DocBuilder b("doc:" + std::to_string(10000 + i));
        b.Add(id, "tdp", Value::Quantity(100 + i, "watts", std::to_string(100 + i) + " W"), "TDP");
        ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
        if (i % 6 == 0) {
          DocBuilder b2("doc:" + std::to_string(10000 + i));
          b2.Add(id, "tdp", Value::Quantity(200 + i, "watts", std::to_string(200 + i) + " W"), "TDP, revised");
          ASSERT_TRUE(store->WriteDocumentVersion(b2.doc(), b2.version(), b2.facts(), "r").ok());
        }
      }
    }
  }  // closed: flushed to table files, whose sizes the choice is estimated from
  auto store = OpenOrDie(path);
  const auto* impl = dynamic_cast<const internal::StoreImpl*>(store.get());
  ASSERT_NE(impl, nullptr);

  std::vector<EntityId> entity_ids, document_ids;
  std::vector<std::pair<std::string, uint32_t>> versions;
  for (int i = kEntities - 1; i >= 0; --i) {  // every one, not in key order
    entity_ids.push_back("chip:e" + std::to_string(10000 + i));
    document_ids.push_back("doc:" + std::to_string(10000 + i));  // half of them exist
    versions.emplace_back(document_ids.back(), 1 + i % 3);       // version 2 exists for every sixth
  }
  entity_ids.insert(entity_ids.begin() + 5, "chip:e10999x");  // absent, inside the stretch
  entity_ids.push_back("chip:e10007");                         // again
  entity_ids.push_back("");
  versions.emplace_back("doc:none", 1);

  const uint64_t before = impl->MergedPasses();
  auto entities = store->GetEntities(entity_ids);
  auto documents = store->GetDocuments(document_ids);
  auto read_versions = store->GetDocumentVersions(versions);
  ASSERT_TRUE(entities.ok()) << entities.status().ToString();
  ASSERT_TRUE(documents.ok()) << documents.status().ToString();
  ASSERT_TRUE(read_versions.ok()) << read_versions.status().ToString();
  EXPECT_EQ(impl->MergedPasses(), before + 3) << "read by point lookups, not by passes";

  // Each batched answer against the single read of its key: present exactly where that read finds
  // something, and the same record. Returns how many were present.
  auto matches = [](const auto& batched, const auto& keys, auto read_one, auto expect_same) {
    EXPECT_EQ(batched.size(), keys.size());
    size_t found = 0;
    for (size_t i = 0; i < keys.size() && i < batched.size(); ++i) {
      auto one = read_one(keys[i]);
      EXPECT_EQ(batched[i].has_value(), one.ok()) << "key " << i;
      if (!one.ok() || !batched[i].has_value()) continue;
      ++found;
      expect_same(*batched[i], *one);
    }
    return found;
  };
  EXPECT_EQ(matches(*entities, entity_ids, [&](const EntityId& id) { return store->GetEntity(id); },
                    [](const Entity& got, const Entity& want) {
                      EXPECT_EQ(got.id, want.id);
                      EXPECT_EQ(got.name, want.name);
                      EXPECT_EQ(got.aliases, want.aliases);
                    }),
            kEntities + 1u);
  EXPECT_EQ(matches(*documents, document_ids, [&](const std::string& id) { return store->GetDocument(id); },
                    [](const Document& got, const Document& want) {
                      EXPECT_EQ(got.id, want.id);
                      EXPECT_EQ(got.url, want.url);
                    }),
            kEntities / 2u);
  EXPECT_GE(matches(*read_versions, versions,
                    [&](const std::pair<std::string, uint32_t>& v) {
                      return store->GetDocumentVersion(v.first, v.second, /*with_text=*/false);
                    },
                    [](const DocumentVersion& got, const DocumentVersion& want) {
                      EXPECT_EQ(got.content_hash, want.content_hash);
                      EXPECT_EQ(got.version, want.version);
                    }),
            kEntities / 6u);

  // Given another thread, the pass is made in two halves at once, one there: the same answer,
  // whether that thread runs its half at once or only once this one has read its own; a half
  // handed over and never run fails the read.
  for (const int delay_ms : {0, 30}) {
    std::vector<std::thread> threads;
    const uint64_t passes = impl->MergedPasses();
    auto halves = store->GetEntities(entity_ids, [&](std::function<void()> task) {
      threads.emplace_back([task = std::move(task), delay_ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        task();
      });
    });
    for (std::thread& t : threads) t.join();
    ASSERT_TRUE(halves.ok()) << halves.status().ToString();
    EXPECT_EQ(threads.size(), 1u);
    EXPECT_EQ(impl->MergedPasses(), passes + 2);
    ASSERT_EQ(halves->size(), entities->size());
    for (size_t i = 0; i < entities->size(); ++i) {
      ASSERT_EQ((*halves)[i].has_value(), (*entities)[i].has_value()) << entity_ids[i];
      if (!(*halves)[i]) continue;
      EXPECT_EQ((*halves)[i]->id, (*entities)[i]->id);
      EXPECT_EQ((*halves)[i]->name, (*entities)[i]->name);
      EXPECT_EQ((*halves)[i]->aliases, (*entities)[i]->aliases);
    }
  }
  auto dropped = store->GetEntities(entity_ids, [](std::function<void()>) {});
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(dropped.status().code(), Status::Code::kAborted) << dropped.status().ToString();
  const uint64_t before_edges = impl->MergedPasses();

  // Keys past the last stored one, and before the first: absent, the others found.
  std::vector<EntityId> around;
  for (size_t i = 0; i < entity_ids.size(); i += 20) around.push_back(entity_ids[i]);
  for (int i = 0; i < 600; ++i) around.push_back("chip:zz" + std::to_string(i));
  for (int i = 0; i < 600; ++i) around.push_back("chip:a" + std::to_string(i));
  auto edges = store->GetEntities(around);
  ASSERT_TRUE(edges.ok());
  EXPECT_EQ(impl->MergedPasses(), before_edges + 1);
  for (size_t i = 0; i < around.size(); ++i) {
    EXPECT_EQ((*edges)[i].has_value(), store->GetEntity(around[i]).ok()) << around[i];
  }
  EXPECT_TRUE((*edges)[0].has_value());
  EXPECT_FALSE(edges->back().has_value());

  // A few keys: point lookups.
  std::vector<EntityId> few(entity_ids.begin(), entity_ids.begin() + 50);
  auto some = store->GetEntities(few);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ((*some)[0]->id, few[0]);
  EXPECT_EQ(impl->MergedPasses(), before_edges + 1);
}

// ContestedFactsAboutEach keeps exactly the facts of predicates whose visible
// facts do not all state the same content under the same qualifiers: the same
// figure written differently, or from another document, is not a contest; a
// different figure, dimension, kind, qualifier set or a "not published"
// against a figure is, and then every fact of that predicate is kept.
TEST(StoreTest, ContestedFactsAreThoseOfPredicatesWhoseFactsDiffer) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder a("doc-a"), b("doc-b");
  const std::string chip = "chip:c1", other = "chip:c2";
  // Uncontested: one fact; the same figure twice (different words, documents,
  // as-of dates); two "not published"; the same date, entity, text, flag.
  a.Add(chip, "tdp", Value::Quantity(500, "watts", "500 W"), "TDP 500 W");
  a.Add(chip, "memory", Value::Quantity(96 * kGB, "bytes", "96 GB"), "96 GB");
  b.Add(chip, "memory", Value::Quantity(96 * kGB, "bytes", "96,000 MB"), "96,000 MB").valid_as_of = D("2024-01");
  a.Add(chip, "die_size", Value::NotPublished("not published"), "die: not published");
  b.Add(chip, "die_size", Value::NotPublished("undisclosed"), "die: undisclosed");
  a.Add(chip, "released", Value::OfDate(D("2023-11"), "November 2023"), "Nov 2023");
  b.Add(chip, "released", Value::OfDate(D("2023-11"), "Nov. 2023"), "Nov. 2023");
  a.Add(chip, "foundry", Value::Entity("organization:tsmc", "TSMC"), "TSMC");
  b.Add(chip, "foundry", Value::Entity("organization:tsmc", "tsmc"), "tsmc");
  a.Add(chip, "memory_type", Value::Text("HBM3"), "HBM3");
  b.Add(chip, "memory_type", Value::Text("HBM3"), "HBM3 again");
  a.Add(chip, "safety_critical", Value::Bool(true, "yes"), "yes");
  b.Add(chip, "safety_critical", Value::Bool(true, "true"), "true");
  // Contested: a different figure; the same number in another dimension; a
  // figure against "not published"; different qualifiers; a different date
  // precision; two of three that agree and one that does not.
  a.Add(chip, "memory_bandwidth", Value::Quantity(2.9e12, "bytes_per_second", "2.9 TB/s"), "2.9 TB/s");
  b.Add(chip, "memory_bandwidth", Value::Quantity(3.2e12, "bytes_per_second", "3.2 TB/s"), "3.2 TB/s");
  a.Add(chip, "cores", Value::Quantity(8, "count", "8"), "8 cores");
  b.Add(chip, "cores", Value::Quantity(8, "watts", "8 W"), "8 W");
  a.Add(chip, "price", Value::Quantity(30000, "usd", "$30,000"), "$30,000");
  b.Add(chip, "price", Value::NotPublished("not published"), "price: not published");
  a.Add(chip, "peak_throughput", Value::Quantity(1e15, "flops", "1 PFLOPS"), "1 PFLOPS", {{"format", "bf16"}});
  b.Add(chip, "peak_throughput", Value::Quantity(1e15, "flops", "1 PFLOPS"), "1 PFLOPS", {{"format", "fp8"}});
  a.Add(chip, "announced", Value::OfDate(D("2023-11"), "November 2023"), "Nov 2023");
  b.Add(chip, "announced", Value::OfDate(D("2023-11-28"), "28 Nov 2023"), "28 Nov 2023");
  a.Add(other, "memory", Value::Quantity(64 * kGB, "bytes", "64 GB"), "64 GB");
  b.Add(other, "memory", Value::Quantity(64 * kGB, "bytes", "64 GB"), "64 GB");
  a.Add(other, "tdp", Value::Quantity(350, "watts", "350 W"), "350 W");
  ASSERT_TRUE(store->WriteDocumentVersion(a.doc(), a.version(), a.facts(), "r1").ok());
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r1").ok());
  DocBuilder c("doc-c");
  c.Add(other, "memory", Value::Quantity(80 * kGB, "bytes", "80 GB"), "80 GB");
  c.Add(other, "tdp", Value::Quantity(400, "watts", "400 W"), "400 W");
  ASSERT_TRUE(store->WriteDocumentVersion(c.doc(), c.version(), c.facts(), "r1").ok());

  auto predicates_of = [](const std::vector<Fact>& facts) {
    std::multiset<std::string> out;
    for (const Fact& f : facts) out.insert(f.predicate);
    return out;
  };
  const std::vector<EntityId> subjects = {other, "chip:nobody", chip};
  auto contested = store->ContestedFactsAboutEach(subjects);
  ASSERT_TRUE(contested.ok()) << contested.status().ToString();
  ASSERT_EQ(contested->size(), subjects.size());
  EXPECT_EQ(predicates_of((*contested)[2]),
            (std::multiset<std::string>{"memory_bandwidth", "memory_bandwidth", "cores", "cores", "price", "price",
                                        "peak_throughput", "peak_throughput", "announced", "announced"}));
  EXPECT_TRUE((*contested)[1].empty());
  EXPECT_EQ(predicates_of((*contested)[0]), (std::multiset<std::string>{"memory", "memory", "memory", "tdp", "tdp"}));
  // The kept facts are the facts FactsAbout reads, whole.
  auto all = store->FactsAbout(chip);
  ASSERT_TRUE(all.ok());
  for (const Fact& f : (*contested)[2]) {
    auto same = std::find_if(all->begin(), all->end(), [&](const Fact& g) { return g.id == f.id; });
    ASSERT_NE(same, all->end());
    ExpectSameClaim(*same, f);
  }

  // Only visible facts count: once doc-c's new version drops its figures,
  // chip:c2's remaining memory facts agree and its tdp has one fact left.
  const TxId before_drop = store->LastTx();
  DocBuilder c2("doc-c");
  c2.AddText("nothing about chip:c2 any more");
  ASSERT_TRUE(store->WriteDocumentVersion(c2.doc(), c2.version(), c2.facts(), "r2").ok());
  auto after = store->ContestedFactsAboutEach({other});
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE((*after)[0].empty());
  // ... while a view of the store before that write still sees the contest.
  ReadView before;
  before.as_of_tx = before_drop;
  auto then = store->ContestedFactsAboutEach({other}, before);
  ASSERT_TRUE(then.ok());
  EXPECT_EQ(predicates_of((*then)[0]), (std::multiset<std::string>{"memory", "memory", "memory", "tdp", "tdp"}));
}

// A store is created whole or not at all: it is built in a sibling directory
// and renamed into place, so a creator killed half-way (kill -9 during the
// first `chipkg ingest`) leaves only a staging directory, which the next
// creator removes, never a RocksDB database without chipkg's format record.
TEST(StoreTest, CreationIsAllOrNothing) {
  TempDir dir;
  const std::string path = dir.Sub("store");
  // What a creator killed before its rename leaves: a staging directory named
  // after a process that no longer exists, holding a half-made database.
  const std::string stale = dir.Sub(".store.creating-4194302");
  std::filesystem::create_directories(stale);
  { std::ofstream(stale + "/CURRENT") << "MANIFEST-000001\n"; }
  std::filesystem::create_directories(path);  // made ahead of time, empty: accepted
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    DocBuilder b("doc-create");
    b.Add("chip:x", "tdp", Value::Quantity(100, "watts", "100 W"), "TDP 100 W");
    ASSERT_TRUE((*store)->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
  }
  EXPECT_FALSE(std::filesystem::exists(stale));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".creating-"), std::string::npos) << entry.path();
  }
  auto reopened = Store::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto facts = (*reopened)->FactsAbout("chip:x");
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->size(), 1u);
}


// SubjectsInRange names the subjects of FactsInRange, each once, in the value
// order of its first fact, and honours the read view like it.
TEST(StoreTest, SubjectsInRangeMatchesFactsInRange) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("s"));
  DocBuilder b("doc-subjects");
  const double sizes[] = {96, 16, 64, 32, 80, 64, 128};
  for (size_t i = 0; i < std::size(sizes); ++i) {
    const std::string chip = "chip:r" + std::to_string(i % 5);  // r0 and r1 get two figures
    b.Add(chip, "memory", Value::Quantity(sizes[i] * kGB, "bytes", std::to_string(sizes[i]) + " GB"),
          chip + " memory " + std::to_string(i));
  }
  ASSERT_TRUE(store->WriteDocumentVersion(b.doc(), b.version(), b.facts(), "r").ok());
  ValueRange ge64;
  ge64.lower = Value::Quantity(64 * kGB, "bytes", "");
  auto facts = store->FactsInRange("memory", ge64);
  auto subjects = store->SubjectsInRange("memory", ge64);
  ASSERT_TRUE(facts.ok());
  ASSERT_TRUE(subjects.ok()) << subjects.status().ToString();
  std::vector<EntityId> expected;
  for (const Fact& f : *facts) {
    if (std::find(expected.begin(), expected.end(), f.subject) == expected.end()) expected.push_back(f.subject);
  }
  EXPECT_EQ(*subjects, expected);
  EXPECT_EQ(std::set<EntityId>(subjects->begin(), subjects->end()),
            (std::set<EntityId>{"chip:r0", "chip:r1", "chip:r2", "chip:r4"}));
  EXPECT_EQ(subjects->size(), 4u);
  ValueRange none;
  none.lower = Value::Quantity(1000 * kGB, "bytes", "");
  auto empty = store->SubjectsInRange("memory", none);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  auto unknown = store->SubjectsInRange("no_such_predicate", ge64);
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->empty());
  ReadView before;
  before.as_of_tx = 0;
  auto old = store->SubjectsInRange("memory", ge64, before);
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->empty());
}

}  // namespace
}  // namespace chipkg
