// The ingest pipeline end to end: real files and real HTTP on loopback, real
// RocksDB in a temp dir.
#include "ingest/pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "engine/store.h"
#include "schema/schema.h"
#include "tests/ingest/http_server.h"

namespace chipkg {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testing::HttpRequest;
using testing::HttpResponse;
using testing::HttpServer;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("chipkg-pipeline-" + std::to_string(rd()));
    fs::create_directories(dir_);
    auto schema = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(schema.ok()) << schema.status().message();
    schema_ = std::make_unique<Schema>(std::move(*schema));
    auto store = Store::Open((dir_ / "store").string());
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  fs::path Seed(const std::string& name) { return fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "seeds" / name; }
  // A seed page copied into the test's directory as `file` (for the test to
  // change), as a source with document id `id`.
  SourceSpec SeedCopy(const std::string& seed, const std::string& file, const std::string& id) {
    WriteFile(dir_ / file, ReadFile(Seed(seed)));
    SourceSpec spec;
    spec.location = (dir_ / file).string();
    spec.id = id;
    return spec;
  }

  fs::path dir_;
  std::unique_ptr<Schema> schema_;
  std::unique_ptr<Store> store_;
};

TEST_F(PipelineTest, BundledManifestIngestsAndSecondRunAddsNothing) {
  auto sources = LoadManifest(std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json");
  ASSERT_TRUE(sources.ok()) << sources.status().message();
  auto first = IngestSources(*store_, *schema_, *sources);
  ASSERT_TRUE(first.ok()) << first.status().message();
  for (const auto& s : first->sources) EXPECT_NE(s.state, SourceOutcome::State::kFailed) << s.location << ": " << s.error;
  EXPECT_EQ(first->documents_new, sources->size());
  EXPECT_GT(first->facts_added, 100u);

  auto second = IngestSources(*store_, *schema_, *sources);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->documents_unchanged, sources->size());
  EXPECT_EQ(second->facts_added, 0u);
  EXPECT_EQ(second->facts_retracted, 0u);
  auto stats = store_->Statistics();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->document_versions, sources->size());
}

TEST_F(PipelineTest, EditedSeedRetractsAndAssertsExactlyWhatChanged) {
  const std::string original = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  const fs::path copy = dir_ / "trainium2.txt";
  WriteFile(copy, original);
  SourceSpec spec;
  spec.location = copy.string();
  spec.id = "edited-trainium2";
  spec.kind = "press";
  auto v1 = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(v1.ok());
  ASSERT_EQ(v1->documents_new, 1u) << (v1->sources.empty() ? "" : v1->sources[0].error);
  const TxId after_v1 = store_->LastTx();

  // One figure changed (the spec list's TDP), one line removed (the benchmark row).
  const std::string removed_line = "| peak tflops fp8 | 1300 | TFLOPS | vendor | 2023-11-28 |\n";
  const size_t removed_at = original.find(removed_line);
  ASSERT_NE(removed_at, std::string::npos);
  const std::string tdp_before = "- TDP\n- 500 W\n";
  const size_t tdp_at = original.find(tdp_before);
  ASSERT_NE(tdp_at, std::string::npos);

  // What v1 stated on the removed line and at the changed figure, found by span.
  auto v1_facts = store_->FactsFromDocument("edited-trainium2");
  ASSERT_TRUE(v1_facts.ok());
  size_t on_removed_line = 0, on_tdp = 0;
  for (const auto& f : *v1_facts) {
    const auto& p = f.provenance;
    if (p.span_begin >= removed_at && p.span_end <= removed_at + removed_line.size()) ++on_removed_line;
    if (p.span_begin >= tdp_at + 6 && p.span_end <= tdp_at + tdp_before.size()) ++on_tdp;
  }
  ASSERT_GE(on_removed_line, 1u);
  ASSERT_EQ(on_tdp, 1u);

  std::string edited = original;
  edited.replace(tdp_at, tdp_before.size(), "- TDP\n- 600 W\n");
  edited.erase(edited.find(removed_line), removed_line.size());
  WriteFile(copy, edited);
  auto v2 = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(v2.ok());
  ASSERT_EQ(v2->documents_changed, 1u) << v2->sources[0].error;
  EXPECT_EQ(v2->facts_added, 1u);
  EXPECT_EQ(v2->facts_retracted, on_removed_line + 1);

  auto history = store_->History("chip:aws-trainium2", "tdp");
  ASSERT_TRUE(history.ok());
  bool old_retracted = false, new_live = false;
  for (const auto& f : *history) {
    if (f.provenance.document_id != "edited-trainium2") continue;
    if (f.value.number == 500 && f.provenance.excerpt == "500 W" && !f.live() &&
        f.provenance.span_begin >= tdp_at) old_retracted = true;
    if (f.value.number == 600 && f.live()) new_live = f.provenance.document_version == 2;
  }
  EXPECT_TRUE(old_retracted);
  EXPECT_TRUE(new_live);
  auto versions = store_->ListDocumentVersions("edited-trainium2");
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->size(), 2u);

  // As of before the edit, the store still shows 500 W from this document.
  ReadView before;
  before.as_of_tx = after_v1;
  auto then = store_->FactsAbout("chip:aws-trainium2", "tdp", before);
  ASSERT_TRUE(then.ok());
  bool saw_500 = false;
  for (const auto& f : *then) saw_500 |= f.provenance.document_id == "edited-trainium2" && f.value.number == 500 &&
                                         f.provenance.span_begin >= tdp_at;
  EXPECT_TRUE(saw_500);
}

TEST_F(PipelineTest, OneFailingSourceDoesNotStopTheOthers) {
  SourceSpec missing;
  missing.location = (dir_ / "does-not-exist.txt").string();
  SourceSpec good;
  good.location = Seed("000_de7815fa348ea8df.txt").string();
  // A first run whose every source fails writes nothing: it left the
  // schema's entities alone, a store `import` refused as not empty.
  SourceSpec pdf;  // fetched, then refused
  pdf.location = (dir_ / "datasheet.pdf").string();
  WriteFile(pdf.location, std::string("%PDF-1.7\n1 0 obj\0", 17));
  auto failed = IngestSources(*store_, *schema_, {missing, pdf});
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->documents_failed, 2u);
  EXPECT_EQ(store_->Statistics()->entities, 0u);
  EXPECT_EQ(store_->LastTx(), 0u);
  auto report = IngestSources(*store_, *schema_, {missing, good});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->documents_failed, 1u);
  EXPECT_EQ(report->documents_new, 1u);
  EXPECT_NE(report->sources[0].error.find("does-not-exist.txt"), std::string::npos) << report->sources[0].error;
  EXPECT_NE(report->SummaryLine().find("1 failed"), std::string::npos);
}

// A source that comes back empty or as binary bytes is a failed fetch: the
// run reports it failed and the previous version, with its facts, stands.
TEST_F(PipelineTest, AnEmptyOrBinaryDocumentFailsAndKeepsThePreviousVersion) {
  const SourceSpec spec = SeedCopy("000_de7815fa348ea8df.txt", "trainium.txt", "trainium-page");
  const fs::path copy = spec.location;
  auto v1 = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(v1.ok());
  ASSERT_EQ(v1->documents_new, 1u) << (v1->sources.empty() ? "" : v1->sources[0].error);
  const size_t facts_v1 = store_->FactsFromDocument("trainium-page").value().size();
  ASSERT_GT(facts_v1, 10u);
  const TxId last = store_->LastTx();

  for (const auto& [body, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "the document is empty"},
           {" \n\t\n", "only white space"},
           // A maintenance page served in place of the datasheet: text, but
           // nothing in it to extract, where the stored version says much.
           {"<html><body><h1>Maintenance</h1></body></html>\n", "nothing extracted from the new text"},
           {std::string("\x7f" "ELF\x02\x01\x01\0\0\0 binary", 17), "not text (a NUL byte at offset 7)"},
           {std::string("%PDF-1.7\n%\xe2\xe3\n1 0 obj\0 stream", 28), "a PDF, not text (chipkg reads text and HTML"}}) {
    SCOPED_TRACE(says);
    WriteFile(copy, body);
    auto run = IngestSources(*store_, *schema_, {spec});
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->documents_failed, 1u);
    ASSERT_EQ(run->sources.size(), 1u);
    EXPECT_NE(run->sources[0].error.find(says), std::string::npos) << run->sources[0].error;
    EXPECT_NE(run->sources[0].error.find(copy.string()), std::string::npos) << run->sources[0].error;
    EXPECT_EQ(run->facts_retracted, 0u);
    EXPECT_EQ(store_->LastTx(), last);
    EXPECT_EQ(store_->FactsFromDocument("trainium-page").value().size(), facts_v1);
    EXPECT_EQ(store_->ListDocumentVersions("trainium-page").value().size(), 1u);
  }
}

// A page cut short (a truncated download, a page that lost its table) would
// retract most of what the document said: refused while it states less than
// half of the stored version's facts, stored when the caller accepts it.
TEST_F(PipelineTest, APageCutShortIsRefusedUnlessAccepted) {
  const SourceSpec spec = SeedCopy("000_de7815fa348ea8df.txt", "trainium.txt", "trainium-page");
  const fs::path copy = spec.location;
  const std::string whole = ReadFile(copy);
  ASSERT_EQ(IngestSources(*store_, *schema_, {spec}).value().documents_new, 1u);
  const size_t facts_v1 = store_->FactsFromDocument("trainium-page").value().size();
  ASSERT_GT(facts_v1, 40u);
  const TxId last = store_->LastTx();

  WriteFile(copy, whole.substr(0, 1200));
  auto refused = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(refused.ok());
  ASSERT_EQ(refused->documents_failed, 1u);
  const std::string& error = refused->sources[0].error;
  EXPECT_NE(error.find(copy.string() + ": the new text states "), std::string::npos) << error;
  EXPECT_NE(error.find(" facts where the stored version states " + std::to_string(facts_v1)), std::string::npos)
      << error;
  // The hint names this document alone: the option on a whole run's line lets every page of it shrink.
  EXPECT_NE(error.find("chipkg ingest " + copy.string() + " --id trainium-page"), std::string::npos) << error;
  EXPECT_NE(error.find(" --reextract --accept-shrinking stores it"), std::string::npos) << error;
  {  // As the source is listed (its title kept), each word as a shell reads it back.
    SourceSpec titled = spec;
    titled.title = "Trainium's page & more";
    auto refused_titled = IngestSources(*store_, *schema_, {titled});
    ASSERT_TRUE(refused_titled.ok());
    EXPECT_NE(refused_titled->sources[0].error.find(" --title 'Trainium'\\''s page & more' --reextract"),
              std::string::npos)
        << refused_titled->sources[0].error;
  }
  EXPECT_EQ(store_->LastTx(), last);
  EXPECT_EQ(store_->FactsFromDocument("trainium-page").value().size(), facts_v1);

  // An ordinary edit (a line less) is no shrink.
  const size_t cut = whole.find('\n', whole.size() / 2);
  ASSERT_NE(cut, std::string::npos);
  const size_t next = whole.find('\n', cut + 1);
  WriteFile(copy, whole.substr(0, cut) + whole.substr(next));
  auto edited = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(edited.ok());
  EXPECT_EQ(edited->documents_changed, 1u) << edited->sources[0].error;

  IngestOptions accept;
  accept.accept_shrinking = true;
  WriteFile(copy, whole.substr(0, 1200));
  auto accepted = IngestSources(*store_, *schema_, {spec}, accept);
  ASSERT_TRUE(accepted.ok());
  EXPECT_EQ(accepted->documents_changed, 1u) << accepted->sources[0].error;
  EXPECT_GT(accepted->facts_retracted, facts_v1 / 2);
  // Said, as a run's other pages may have shrunk under the same option.
  EXPECT_NE(accepted->sources[0].shrank.find(" facts where the stored version states "), std::string::npos)
      << accepted->sources[0].shrank;
  EXPECT_NE(accepted->sources[0].shrank.find(": stored, as --accept-shrinking allows"), std::string::npos)
      << accepted->sources[0].shrank;
  EXPECT_TRUE(edited->sources[0].shrank.empty());
  const size_t facts_cut = store_->FactsFromDocument("trainium-page").value().size();
  EXPECT_LT(facts_cut, facts_v1 / 2);

  // Accepting a shrink is not accepting an error page: nothing extracted is always refused.
  WriteFile(copy, "<html><body><h1>Maintenance</h1></body></html>\n");
  auto maintenance = IngestSources(*store_, *schema_, {spec}, accept);
  ASSERT_TRUE(maintenance.ok());
  EXPECT_EQ(maintenance->documents_failed, 1u);
  EXPECT_NE(maintenance->sources[0].error.find("nothing extracted from the new text"), std::string::npos)
      << maintenance->sources[0].error;
  EXPECT_EQ(store_->FactsFromDocument("trainium-page").value().size(), facts_cut);
}

// A source listed twice in one run (two locations of one document id): the
// second fails without being fetched, and what the first stored stands.
TEST_F(PipelineTest, ASourceListedTwiceFailsTheSecondTime) {
  SourceSpec spec;
  spec.location = Seed("003_d5e7e28472882ec2.txt").string();
  spec.id = "trainium2-page";
  spec.title = "Trainium 2, the catalog's page";
  spec.kind = "press";
  SourceSpec again = spec;
  again.location = Seed("000_de7815fa348ea8df.txt").string();
  again.title = "";
  auto run = IngestSources(*store_, *schema_, {spec, again});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->documents_new, 1u);
  EXPECT_EQ(run->documents_failed, 1u);
  EXPECT_EQ(run->sources[1].error, again.location + ": document trainium2-page is source 1's too (listed twice); "
                                                    "not fetched again");
  EXPECT_EQ(store_->ListDocumentVersions("trainium2-page").value().size(), 1u);
  auto doc = store_->GetDocument("trainium2-page");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->title, spec.title);
  EXPECT_EQ(doc->kind, "press");
}

// A new document with nothing to extract is kept as a source with no facts,
// and makes no entity of its first line.
TEST_F(PipelineTest, APageWithNothingToExtractMakesNoEntity) {
  const fs::path page = dir_ / "maintenance.html";
  WriteFile(page, "<html><body><h1>Maintenance</h1></body></html>\n");
  SourceSpec spec;
  spec.location = page.string();
  auto run = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->documents_new, 1u) << (run->sources.empty() ? "" : run->sources[0].error);
  EXPECT_EQ(run->facts_added, 0u);
  EXPECT_TRUE(run->new_entities.empty()) << run->new_entities.front().id;
  auto entities = store_->ListEntities();
  ASSERT_TRUE(entities.ok());
  for (const Entity& e : *entities) EXPECT_EQ(e.name.find("Maintenance"), std::string::npos) << e.id;
}

// A page served in Windows-1252 (Latin-1) is stored and read as UTF-8: its
// names and values can be queried, and the next run finds it unchanged.
TEST_F(PipelineTest, ALatin1PageIsStoredAsUtf8) {
  const fs::path page = dir_ / "latin1.txt";
  std::string text = ReadFile(Seed("000_de7815fa348ea8df.txt"));
  text += "\nNotes: caf\xE9 \x96 \x80 5\n";  // e-acute, an en dash and a euro sign in Windows-1252
  WriteFile(page, text);
  SourceSpec spec;
  spec.location = page.string();
  spec.id = "latin1-page";
  auto run = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(run->documents_new, 1u) << (run->sources.empty() ? "" : run->sources[0].error);
  auto version = store_->LatestDocumentVersion("latin1-page");
  ASSERT_TRUE(version.ok());
  EXPECT_NE(version->text.find("caf\xC3\xA9 \xE2\x80\x93 \xE2\x82\xAC 5"), std::string::npos);
  EXPECT_EQ(version->text.find("caf\xE9"), std::string::npos);
  EXPECT_GT(store_->FactsFromDocument("latin1-page").value().size(), 10u);
  auto again = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->documents_unchanged, 1u);

  // A page in UTF-8 (the seed has curly quotes) is stored byte for byte.
  SourceSpec utf8;
  utf8.location = Seed("001_fbc9a4a76c8d550e.txt").string();
  utf8.id = "utf8-page";
  ASSERT_TRUE(IngestSources(*store_, *schema_, {utf8}).ok());
  auto stored = store_->LatestDocumentVersion("utf8-page");
  ASSERT_TRUE(stored.ok());
  const std::string original = ReadFile(Seed("001_fbc9a4a76c8d550e.txt"));
  ASSERT_NE(original.find("\xE2\x80\x99"), std::string::npos);
  EXPECT_TRUE(stored->text == original);
}

// A UTF-8 page with one stray Windows-1252 byte (an apostrophe pasted from an
// old editor) keeps its UTF-8 as it is: read wholly as Windows-1252 it had its
// other characters garbled and stated a fraction of its facts, so every cron
// run refused it as a page cut short. The stray byte is read as
// Windows-1252, and the run says where it was.
TEST_F(PipelineTest, AStrayByteInAUtf8PageIsReadAloneAndReported) {
  const std::string original = ReadFile(Seed("000_de7815fa348ea8df.txt"));
  ASSERT_NE(original.find("\xE2\x9C\x93"), std::string::npos) << "the seed's check marks are UTF-8";
  const fs::path page = dir_ / "stray.txt";
  WriteFile(page, original);
  SourceSpec spec;
  spec.location = page.string();
  spec.id = "stray-page";
  auto first = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->documents_new, 1u) << (first->sources.empty() ? "" : first->sources[0].error);
  const size_t facts = store_->FactsFromDocument("stray-page").value().size();
  ASSERT_GT(facts, 100u);

  std::string edited = original;
  const size_t apostrophe = edited.find("doesn't");
  ASSERT_NE(apostrophe, std::string::npos);
  edited[apostrophe + 5] = '\x92';
  WriteFile(page, edited);
  auto second = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->documents_changed, 1u) << (second->sources.empty() ? "" : second->sources[0].error);
  EXPECT_EQ(second->facts_retracted, 0u) << "only the apostrophe changed; added " << second->facts_added;
  EXPECT_EQ(store_->FactsFromDocument("stray-page").value().size(), facts);
  auto version = store_->LatestDocumentVersion("stray-page");
  ASSERT_TRUE(version.ok());
  std::string expected = original;
  expected.replace(apostrophe + 5, 1, "\xE2\x80\x99");  // U+2019, what 0x92 is in Windows-1252
  EXPECT_TRUE(version->text == expected);
  ASSERT_FALSE(second->sources.at(0).warnings.empty());
  EXPECT_EQ(second->sources[0].warnings.front(),
            "not valid UTF-8 at byte " + std::to_string(apostrophe + 5) + ": 1 byte read as Windows-1252");

  // Read the same way every run: the next one finds the page unchanged.
  auto third = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->documents_unchanged, 1u);
}

// A new document whose text a stored one already is (a page in the manifest
// ingested again by a copy, or under a renamed id) is stored, as asked, with
// a warning naming the document it repeats: its claims count twice. Found in
// the same run and in a later one; a changed text or a new version of the
// same document says nothing.
TEST_F(PipelineTest, ANewDocumentRepeatingAStoredTextIsNamed) {
  SourceSpec page = SeedCopy("000_de7815fa348ea8df.txt", "catalog.txt", "catalog");
  SourceSpec copy = SeedCopy("000_de7815fa348ea8df.txt", "copy.txt", "copy");
  SourceSpec other = SeedCopy("003_d5e7e28472882ec2.txt", "other.txt", "other");
  auto first = IngestSources(*store_, *schema_, {page, copy, other});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->documents_new, 3u);
  auto repeats = [](const SourceOutcome& o) {
    for (const std::string& w : o.warnings) EXPECT_EQ(w.find("the same text as "), std::string::npos) << w;
    return o.repeats;
  };
  EXPECT_EQ(repeats(first->sources[0]), "");
  EXPECT_NE(repeats(first->sources[1]).find("the same text as catalog version 1, already stored: its claims now count "
                                            "twice"),
            std::string::npos)
      << repeats(first->sources[1]);
  EXPECT_NE(repeats(first->sources[1]).find("--id catalog"), std::string::npos);
  EXPECT_EQ(repeats(first->sources[2]), "");

  SourceSpec again = SeedCopy("003_d5e7e28472882ec2.txt", "again.txt", "again");
  WriteFile(dir_ / "catalog.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")) + "\nTDP: 450 W\n");
  auto second = IngestSources(*store_, *schema_, {again, page});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_NE(repeats(second->sources[0]).find("the same text as other version 1"), std::string::npos)
      << repeats(second->sources[0]);
  EXPECT_EQ(second->documents_changed, 1u);
  EXPECT_EQ(repeats(second->sources[1]), "");  // catalog's own new version
  EXPECT_EQ(store_->FactsFromDocument("again").value().size(), store_->FactsFromDocument("other").value().size());

  // A copy whose claims were withdrawn counts for nothing, and an old
  // version is no longer what its document says: neither is named.
  ASSERT_TRUE(store_->RetireDocument("again", "run-retire").ok());
  ASSERT_TRUE(store_->RetireDocument("other", "run-retire").ok());
  SourceSpec after_retire = SeedCopy("003_d5e7e28472882ec2.txt", "fourth.txt", "fourth");
  SourceSpec old_text = SeedCopy("000_de7815fa348ea8df.txt", "old.txt", "old");  // catalog's version 1
  auto third = IngestSources(*store_, *schema_, {after_retire, old_text});
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->documents_new, 2u);
  EXPECT_NE(repeats(third->sources[1]).find("the same text as copy version 1"), std::string::npos)
      << repeats(third->sources[1]);  // copy's latest is that text; catalog has moved on
  EXPECT_EQ(repeats(third->sources[0]), "");
}

// A retired document stays retired through ingest: a changed text is kept
// as a version without its claims, --reextract reads nothing again, each
// with a warning saying so; ReinstateDocument reads the latest version
// again (a dataset as its dataset) and asserts its claims.
TEST_F(PipelineTest, ARetiredDocumentStaysRetiredUntilReinstated) {
  SourceSpec page = SeedCopy("000_de7815fa348ea8df.txt", "catalog.txt", "catalog");
  ASSERT_TRUE(IngestSources(*store_, *schema_, {page}).ok());
  const size_t stated = store_->FactsFromDocument("catalog").value().size();
  ASSERT_GT(stated, 100u);
  auto retired = store_->RetireDocument("catalog", "run-retire");
  ASSERT_TRUE(retired.ok()) << retired.status().ToString();
  const std::string mark = "retired by tx " + std::to_string(retired->tx) + " (chipkg retire): ";

  WriteFile(dir_ / "catalog.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")) + "\nTDP: 450 W\n");
  auto changed = IngestSources(*store_, *schema_, {page});
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  ASSERT_EQ(changed->documents_changed, 1u) << changed->sources[0].error;
  EXPECT_EQ(changed->facts_added, 0u);
  EXPECT_EQ(changed->sources[0].retired,
            mark + "the new version is stored without its " + std::to_string(stated + 1) +
                " claims; 'chipkg reinstate catalog' asserts what its latest version states");
  EXPECT_EQ(store_->ListDocumentVersions("catalog").value().size(), 2u);
  EXPECT_TRUE(store_->FactsFromDocument("catalog").value().empty());

  IngestOptions reextract;
  reextract.reextract = true;
  auto again = IngestSources(*store_, *schema_, {page}, reextract);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->documents_unchanged, 1u);
  EXPECT_EQ(again->sources[0].retired,
            mark + "not read again; 'chipkg reinstate catalog' asserts what its latest version states");
  EXPECT_TRUE(store_->FactsFromDocument("catalog").value().empty());
  // Retired, it asserts nothing: no rules read it to name as other ones,
  // even where the record says other rules read it.
  ASSERT_TRUE(store_->PutMeta("rules-read/catalog", "older rules").ok());
  EXPECT_EQ(IngestSources(*store_, *schema_, {page}).value().documents_read_by_other_rules, 0u);

  // A text that cannot be read (over the fact limit) fails nothing: it is stored, unread.
  WriteFile(dir_ / "catalog.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")) + "\nTDP: 460 W\n");
  IngestOptions small;
  small.max_facts_per_document = 10;
  auto unread = IngestSources(*store_, *schema_, {page}, small);
  ASSERT_TRUE(unread.ok());
  ASSERT_EQ(unread->documents_changed, 1u) << unread->sources[0].error;
  EXPECT_EQ(unread->sources[0].retired.rfind(mark + "the new version is stored unread (", 0), 0u)
      << unread->sources[0].retired;
  // Reinstated under the same limit, it is refused, and nothing is written.
  IngestOptions reinstating;
  reinstating.max_facts_per_document = 10;
  auto over = ReinstateDocument(*store_, *schema_, "catalog", reinstating);
  EXPECT_TRUE(over.status().IsInvalidArgument());
  EXPECT_EQ(over.status().message().rfind("reading version 3 of catalog again; nothing written, it stays retired: ", 0),
            0u)
      << over.status().message();
  EXPECT_NE(over.status().message().find("--max-facts N raises the limit (chipkg ingest, chipkg reinstate)"),
            std::string::npos)
      << over.status().message();
  EXPECT_EQ(store_->GetDocument("catalog").value().retired_tx, retired->tx);

  // An error page stored while retired is not reinstated: it would assert nothing.
  WriteFile(dir_ / "catalog.txt", "<html><body>Service unavailable</body></html>\n");
  ASSERT_EQ(IngestSources(*store_, *schema_, {page})->documents_changed, 1u);
  auto error_page = ReinstateDocument(*store_, *schema_, "catalog");
  EXPECT_TRUE(error_page.status().IsInvalidArgument());
  EXPECT_NE(error_page.status().message().find("nothing extracted from its text, where the retirement withdrew " +
                                               std::to_string(stated) + " claims"),
            std::string::npos)
      << error_page.status().message();
  EXPECT_EQ(store_->GetDocument("catalog").value().retired_tx, retired->tx);
  WriteFile(dir_ / "catalog.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")) + "\nTDP: 450 W\n");
  ASSERT_EQ(IngestSources(*store_, *schema_, {page})->documents_changed, 1u);

  IngestOptions back_options;
  back_options.run_id = "run-back";
  ASSERT_TRUE(store_->PutMeta("rules-read/catalog", "older rules").ok());
  auto back = ReinstateDocument(*store_, *schema_, "catalog", back_options);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->version, 5u);
  EXPECT_EQ(back->repeats, "");
  EXPECT_EQ(back->facts_added, stated + 1);
  EXPECT_EQ(store_->FactsFromDocument("catalog").value().size(), stated + 1);
  EXPECT_EQ(store_->GetDocument("catalog").value().retired_tx, 0u);
  // Reinstating read it with these rules: the next run does not call them other ones.
  auto after_back = IngestSources(*store_, *schema_, {page});
  ASSERT_TRUE(after_back.ok());
  EXPECT_EQ(after_back->documents_unchanged, 1u);
  EXPECT_EQ(after_back->documents_read_by_other_rules, 0u);
  auto twice = ReinstateDocument(*store_, *schema_, "catalog");
  EXPECT_TRUE(twice.status().IsInvalidArgument());
  EXPECT_NE(twice.status().message().find("is not retired"), std::string::npos) << twice.status().message();
  EXPECT_TRUE(ReinstateDocument(*store_, *schema_, "no-such").status().IsNotFound());

  // A dataset is read as its dataset again: the format kept with its version.
  const std::string csv =
      ReadFile(fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv");
  const size_t cut = csv.find("\nGoogle TPU v7 Ironwood,") + 1;  // the header and one row (cells span lines)
  ASSERT_GT(cut, 0u);
  SourceSpec rows;
  rows.location = (dir_ / "rows.csv").string();
  rows.format = "epoch-ml-hardware";
  rows.id = "rows";
  WriteFile(rows.location, csv.substr(0, cut));
  ASSERT_TRUE(IngestSources(*store_, *schema_, {rows}).ok());
  const size_t cells = store_->FactsFromDocument("rows").value().size();
  ASSERT_GT(cells, 0u);
  ASSERT_TRUE(store_->RetireDocument("rows", "run-retire-2").ok());
  auto rows_back = ReinstateDocument(*store_, *schema_, "rows");
  ASSERT_TRUE(rows_back.ok()) << rows_back.status().ToString();
  const std::vector<Fact> read = store_->FactsFromDocument("rows").value();
  ASSERT_EQ(read.size(), cells);
  for (const Fact& f : read) EXPECT_EQ(f.provenance.rule, "dataset:epoch-ml-hardware");
}

// A cell one column gives two attributes (Epoch's "Tensor-FP16/BF16") is
// said once when it cannot be read: each reading of it said it again.
TEST_F(PipelineTest, AnUnreadableCellIsSaidOnce) {
  const std::string csv =
      ReadFile(fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  std::vector<std::string> cells;
  for (size_t at = 0; at <= header.size();) {
    const size_t comma = std::min(header.find(',', at), header.size());
    cells.push_back(header.substr(at, comma - at) == "Hardware name"                           ? "Acme Z1"
                    : header.substr(at, comma - at) == "Manufacturer"                          ? "Acme"
                    : header.substr(at, comma - at) == "Tensor-FP16/BF16 performance (FLOP/s)" ? "NaN"
                    : header.substr(at, comma - at) == "TDP (W)"                               ? "300"
                                                                                               : "");
    at = comma + 1;
  }
  std::string row;
  for (const std::string& c : cells) row += (row.empty() ? "" : ",") + c;
  SourceSpec spec;
  spec.location = (dir_ / "one-row.csv").string();
  spec.format = "epoch-ml-hardware";
  spec.id = "one-row";
  WriteFile(spec.location, header + "\n" + row + "\n");
  auto report = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->sources.size(), 1u);
  size_t said = 0;
  for (const std::string& w : report->sources[0].warnings) {
    said += w.find("\"Tensor-FP16/BF16 performance (FLOP/s)\": \"NaN\"") != std::string::npos;
  }
  EXPECT_EQ(said, 1u) << ::testing::PrintToString(report->sources[0].warnings);
}

// A document stating more facts than the limit is refused before it costs
// the memory (a 9 MB page of generated rows took 2.8 GB): the source fails
// saying where extraction stopped, its stored version stands, and the run
// goes on to the next source.
TEST_F(PipelineTest, ADocumentOverTheFactLimitIsRefusedAndTheRunGoesOn) {
  SourceSpec page = SeedCopy("000_de7815fa348ea8df.txt", "catalog.txt", "catalog");
  auto first = IngestSources(*store_, *schema_, {page});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->documents_new, 1u);
  const size_t facts = store_->FactsFromDocument("catalog").value().size();
  ASSERT_GT(facts, 100u);
  ASSERT_LT(facts, 1000u);

  SourceSpec csv;
  csv.location = (fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv").string();
  csv.format = "epoch-ml-hardware";
  csv.id = "epoch";
  WriteFile(dir_ / "catalog.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")) + "\nTDP: 450 W\n");
  IngestOptions limited;
  limited.max_facts_per_document = 1000;  // over the page's, under the CSV's 3,200
  auto run = IngestSources(*store_, *schema_, {csv, page}, limited);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(run->sources.size(), 2u);
  EXPECT_EQ(run->documents_failed, 1u);
  EXPECT_EQ(run->documents_changed, 1u) << run->sources[1].error;  // the run went on
  EXPECT_NE(run->sources[0].error.find("epoch: states more than 1000 facts (extraction stopped at row "),
            std::string::npos)
      << run->sources[0].error;
  EXPECT_NE(run->sources[0].error.find("--max-facts N raises the limit"), std::string::npos);
  EXPECT_TRUE(store_->FactsFromDocument("epoch").value().empty());
  EXPECT_FALSE(store_->LatestDocumentVersion("epoch").ok());

  // A changed page over the limit: the version stored before stands.
  const size_t now = store_->FactsFromDocument("catalog").value().size();
  limited.max_facts_per_document = now / 2;
  WriteFile(dir_ / "catalog.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")) + "\nTDP: 400 W\n");
  auto over = IngestSources(*store_, *schema_, {page}, limited);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(over->documents_failed, 1u);
  EXPECT_NE(over->sources[0].error.find("catalog: states more than " + std::to_string(now / 2) +
                                        " facts (extraction stopped at byte "),
            std::string::npos)
      << over->sources[0].error;
  EXPECT_EQ(store_->FactsFromDocument("catalog").value().size(), now);
  EXPECT_EQ(store_->LatestDocumentVersion("catalog").value().version, 2u);
}

// `chipkg ingest FILE --id epoch-ml-hardware` names the document, not how to
// read it: the stored version says it is a dataset (read as a page, the
// changed CSV stated nothing and was refused as "an error page?").
TEST_F(PipelineTest, ADatasetDocumentIsReadAsItsDatasetWhenTheSourceDoesNotSay) {
  const std::string csv =
      ReadFile(fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv");
  SourceSpec spec;
  spec.location = (dir_ / "ml.csv").string();
  spec.format = "epoch-ml-hardware";
  spec.id = "epoch";
  WriteFile(spec.location, csv);
  auto first = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->documents_new, 1u) << first->SummaryLine();

  std::string changed = csv;
  const size_t tdp = changed.find(",700.0,");
  ASSERT_NE(tdp, std::string::npos);
  WriteFile(spec.location, changed.replace(tdp, 7, ",750.0,"));
  spec.format.clear();
  auto again = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(again->documents_changed, 1u) << again->sources[0].error;
  EXPECT_EQ(again->sources[0].facts_added, 1u);
  EXPECT_EQ(again->sources[0].facts_retracted, 1u);
  auto stored = store_->FactsFromDocument("epoch");
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  size_t from_dataset = 0;
  for (const Fact& f : *stored) from_dataset += f.provenance.rule == "dataset:epoch-ml-hardware";
  EXPECT_EQ(from_dataset, stored->size());

  // Read as a page on purpose, the error says how the two readings differ.
  WriteFile(spec.location, csv);
  spec.format = "page";
  auto as_page = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(as_page.ok());
  EXPECT_EQ(as_page->documents_failed, 1u);
  EXPECT_NE(as_page->sources[0].error.find(
                "(the stored version was read as dataset epoch-ml-hardware, this run read it as a page)"),
            std::string::npos)
      << as_page->sources[0].error;

  // A dataset stored with no rows yet: its version says how it was read,
  // where no fact can.
  SourceSpec empty;
  empty.location = (dir_ / "empty.csv").string();
  empty.format = "epoch-ml-hardware";
  empty.id = "empty";
  WriteFile(empty.location, csv.substr(0, csv.find('\n') + 1));
  ASSERT_EQ(IngestSources(*store_, *schema_, {empty})->documents_new, 1u);
  EXPECT_EQ(store_->LatestDocumentVersion("empty").value().format, "epoch-ml-hardware");
  WriteFile(empty.location, csv);
  empty.format.clear();
  auto filled = IngestSources(*store_, *schema_, {empty});
  ASSERT_TRUE(filled.ok());
  ASSERT_EQ(filled->documents_changed, 1u) << filled->sources[0].error;
  EXPECT_GT(filled->sources[0].facts_added, 3000u);
}

// A CSV first ingested as a page states nothing; named its dataset later,
// the unchanged text is read again that way (it kept its nothing until
// --reextract), without a new version; the next run costs nothing.
TEST_F(PipelineTest, AnUnchangedDocumentGivenItsDatasetLaterIsReadAsIt) {
  SourceSpec spec;
  spec.location = (dir_ / "ml.csv").string();
  spec.id = "later";
  WriteFile(spec.location,
            ReadFile(fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv"));
  auto as_page = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(as_page.ok()) << as_page.status().message();
  ASSERT_EQ(as_page->documents_new, 1u) << as_page->SummaryLine();
  EXPECT_EQ(as_page->facts_added, 0u);

  spec.format = "epoch-ml-hardware";
  auto named = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->documents_changed, 1u) << named->SummaryLine();
  EXPECT_GT(named->facts_added, 3000u);
  EXPECT_EQ(store_->ListDocumentVersions("later")->size(), 1u);

  auto again = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->documents_unchanged, 1u) << again->SummaryLine();
  EXPECT_EQ(again->facts_added + again->facts_retracted, 0u);
}

// A first fetch that meets a maintenance page stores it (nothing to retract)
// but says so; the real page later is a changed version with its facts.
TEST_F(PipelineTest, ANewDocumentThatStatesNothingIsStoredWithAWarning) {
  SourceSpec spec;
  spec.location = (dir_ / "page.txt").string();
  spec.id = "page";
  WriteFile(spec.location, "Down for maintenance\nWe will be back shortly.\n");
  auto first = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->documents_new, 1u);
  EXPECT_EQ(first->sources.at(0).states_nothing.find("stored, but it states no fact chipkg reads"), 0u)
      << first->sources[0].states_nothing;
  WriteFile(spec.location, ReadFile(Seed("000_de7815fa348ea8df.txt")));
  auto real = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(real.ok()) << real.status().message();
  EXPECT_EQ(real->documents_changed, 1u);
  EXPECT_GT(real->sources.at(0).facts_added, 100u);
  EXPECT_TRUE(real->sources[0].states_nothing.empty()) << real->sources[0].states_nothing;
}

TEST_F(PipelineTest, ManifestErrorsSayWhere) {
  const fs::path bad = dir_ / "bad.json";
  WriteFile(bad, "[\n  {\"location\": \"a.txt\"},\n  {\"locaton\": \"b.txt\"}\n]\n");
  auto r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("locaton"), std::string::npos);

  WriteFile(bad, "[\n  {\"location\": \"a.txt\"\n  oops\n]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.json:3"), std::string::npos) << r.status().message();

  auto missing = LoadManifest((dir_ / "nope.json").string());
  ASSERT_FALSE(missing.ok());

  // Two sources under one id would replace each other's version on every run.
  WriteFile(bad, "[{\"location\": \"a.txt\", \"id\": \"spec\"}, \"c.txt\",\n"
                 " {\"location\": \"b.txt\", \"id\": \"spec\"}]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 3: id \"spec\" is already the id of source 1"), std::string::npos)
      << r.status().message();

  // One location listed twice without ids is one document twice; with an id each, two documents.
  WriteFile(bad, "[\"a.txt\", \"c.txt\", {\"location\": \"./a.txt\", \"kind\": \"press\"}]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 3: location " + (dir_ / "a.txt").string() + " is already source 1's"),
            std::string::npos)
      << r.status().message();
  WriteFile(bad, "[{\"location\": \"a.txt\", \"id\": \"one\"}, {\"location\": \"a.txt\", \"id\": \"two\"}]\n");
  EXPECT_TRUE(LoadManifest(bad.string()).ok());
  // Compared as the documents they are stored as: one URL written two ways, an id that is another
  // source's location's id.
  WriteFile(bad, "[\"https://example.com/a\", \"https://EXAMPLE.com/a#specs\"]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 2: location https://EXAMPLE.com/a#specs is already source 1's (as "
                                      "https://example.com/a)"),
            std::string::npos)
      << r.status().message();
  WriteFile(bad, "[{\"location\": \"b.txt\", \"id\": \"https://example.com/a\"}, \"https://example.com/a\"]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 2: its document id https://example.com/a (from its location) is "
                                      "already source 1's (its id)"),
            std::string::npos)
      << r.status().message();

  // JSON would keep the last of two values of a key without a word.
  WriteFile(bad, "[\"c.txt\", {\"location\": \"a.txt\", \"id\": \"a\", \"site\": {\"id\": 1}, \"id\": \"b\"}]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.json: source 2: \"id\" is given twice"), std::string::npos)
      << r.status().message();
  // A key twice inside a nested value is not the mistake to report: the value is.
  WriteFile(bad, "[{\"location\": \"a.txt\", \"title\": {\"x\": 1, \"x\": 2}}]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 1: \"title\" must be a string"), std::string::npos)
      << r.status().message();
  // An id or kind empty, padded or over lines names another document than meant, or breaks the listings.
  for (const char* id : {"\"\"", "\" a \"", "\"a\\nb\""}) {
    WriteFile(bad, std::string("[{\"location\": \"a.txt\", \"id\": ") + id + "}]\n");
    r = LoadManifest(bad.string());
    ASSERT_FALSE(r.ok()) << id;
    EXPECT_NE(r.status().message().find("source 1: \"id\" must be a word, not empty"), std::string::npos)
        << r.status().message();
  }
  // An unknown key is reported as unknown whatever its value.
  WriteFile(bad, "[{\"location\": \"a.txt\", \"frobnicate\": 1}]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 1: unknown key \"frobnicate\""), std::string::npos)
      << r.status().message();
  WriteFile(bad, "[{\"location\": \"a.txt\", \"id\": 7}]\n");
  r = LoadManifest(bad.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source 1: \"id\" must be a string"), std::string::npos) << r.status().message();

  fs::create_directories(dir_ / "a-directory");
  r = LoadManifest((dir_ / "a-directory").string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is a directory"), std::string::npos) << r.status().message();
}

TEST_F(PipelineTest, ManifestResolvesRelativeLocations) {
  WriteFile(dir_ / "m.json", "[\"page.txt\", {\"location\": \"https://example.com/x\", \"kind\": \"vendor\"}]");
  auto r = LoadManifest((dir_ / "m.json").string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].location, (dir_ / "page.txt").string());
  EXPECT_EQ((*r)[1].location, "https://example.com/x");
  EXPECT_EQ((*r)[1].kind, "vendor");
}

// ---- Over HTTP on loopback: conditional fetches of an unchanged page,
// sources fetched at once, a stalled host bounded by the fetch deadline
// without holding up the others.

class PipelineHttpTest : public PipelineTest {
 protected:
  void SetUp() override {
    PipelineTest::SetUp();
    options_.fetch.proxy = "";  // loopback only, whatever the environment says
    options_.fetch.base_backoff = milliseconds(50);
  }
  IngestOptions options_;

  // Ingests the server's /page.html (as document "html" + suffix), then its
  // /page.txt ("text" + suffix): the runs' reports, each checked to have run.
  std::pair<IngestReport, IngestReport> IngestHtmlThenText(const HttpServer& server, const std::string& suffix) {
    SourceSpec as_html, as_text;
    as_html.location = server.Url("/page.html");
    as_html.id = "html" + suffix;
    as_text.location = server.Url("/page.txt");
    as_text.id = "text" + suffix;
    auto html_run = IngestSources(*store_, *schema_, {as_html}, options_);
    EXPECT_TRUE(html_run.ok()) << html_run.status().message();
    auto text_run = IngestSources(*store_, *schema_, {as_text}, options_);
    EXPECT_TRUE(text_run.ok()) << text_run.status().message();
    if (!html_run.ok() || !text_run.ok()) return {};
    EXPECT_EQ(html_run->documents_new, 1u) << html_run->sources.at(0).error;
    EXPECT_GT(text_run->facts_added, 30u);
    return {std::move(*html_run), std::move(*text_run)};
  }
};

// A line of text as HTML text: its markup characters escaped.
std::string HtmlEscaped(std::string_view line) {
  std::string out;
  for (char c : line) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return out;
}

// The page's validators are kept with the document: the next run asks with
// If-None-Match, gets 304 and stores nothing.
TEST_F(PipelineHttpTest, AnUnchangedPageIsAskedForConditionallyAndCostsNothing) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  std::atomic<int> not_modified{0};
  HttpServer server([&](const HttpRequest& request, int) {
    if (request.Header("If-None-Match") == "\"v1\"") {
      ++not_modified;
      HttpResponse r;
      r.status = 304;
      r.reason = "Not Modified";
      return r;
    }
    HttpResponse r;
    r.body = page;
    r.headers = {{"ETag", "\"v1\""}, {"Content-Type", "text/plain; charset=utf-8"}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec spec;
  spec.location = server.Url("/trainium2");
  spec.kind = "press";
  spec.site = "chip-catalog.example";

  auto first = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->documents_new, 1u) << first->sources[0].error;
  EXPECT_GT(first->facts_added, 10u);
  auto doc = store_->GetDocument(spec.location);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->etag, "\"v1\"");

  auto second = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->documents_unchanged, 1u) << second->sources[0].error;
  EXPECT_EQ(second->facts_added + second->facts_retracted, 0u);
  EXPECT_EQ(not_modified.load(), 1);
  EXPECT_EQ(server.request_count(), 2u);
}

// A server that gives the same bytes a new ETag on every request (CDN edges
// do) changes nothing the store says: the new validators are kept without a
// transaction. Each unchanged cron run wrote one per source.
TEST_F(PipelineHttpTest, ARotatingETagOnAnUnchangedPageWritesNoTransaction) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  std::atomic<int> served{0};
  HttpServer server([&](const HttpRequest&, int) {
    HttpResponse r;
    r.body = page;
    r.headers = {{"ETag", "\"edge-" + std::to_string(++served) + "\""}, {"Content-Type", "text/plain"}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec spec;
  spec.location = server.Url("/trainium2");
  ASSERT_EQ(IngestSources(*store_, *schema_, {spec}, options_).value().documents_new, 1u);
  const TxId after_first = store_->LastTx();
  for (int run = 0; run < 3; ++run) {
    auto again = IngestSources(*store_, *schema_, {spec}, options_);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->documents_unchanged, 1u) << again->sources[0].error;
  }
  EXPECT_EQ(store_->LastTx(), after_first);
  EXPECT_EQ(store_->GetDocument(spec.location).value().etag, "\"edge-4\"");  // the latest, for the next request
  // A record that does change (its title) is still a transaction.
  spec.title = "Trainium 2, retitled";
  ASSERT_TRUE(IngestSources(*store_, *schema_, {spec}, options_).ok());
  EXPECT_EQ(store_->LastTx(), after_first + 1);
}

// A version's fetch time is when its body came, not when it was stored: a
// fast source listed after a slow one is fetched at once but stored after
// the slow one (sources are stored in order), and recorded the later time.
TEST_F(PipelineHttpTest, AVersionRecordsWhenItWasFetched) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    r.body = page;
    r.headers = {{"Content-Type", "text/plain"}};
    if (request.target == "/slow") r.delay = milliseconds(2'500);
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec slow, fast;
  slow.location = server.Url("/slow");
  slow.id = "slow";
  fast.location = server.Url("/fast");
  fast.id = "fast";
  auto run = IngestSources(*store_, *schema_, {slow, fast}, options_);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->documents_new, 2u) << run->SummaryLine();
  const int64_t slow_at = store_->LatestDocumentVersion("slow")->fetched_at;
  const int64_t fast_at = store_->LatestDocumentVersion("fast")->fetched_at;
  EXPECT_GE(slow_at - fast_at, 1) << slow_at << " " << fast_at;
}

// What markup hides from the reader of a page is in the run's warnings.
TEST_F(PipelineTest, AnUnclosedCommentInAPageIsAWarning) {
  WriteFile(dir_ / "acme.html",
            "<!DOCTYPE html><html><body><h1>Acme X9</h1><p>TDP: 300 W</p><!-- the table below is hidden\n"
            "<table><tr><td>Memory</td><td>96 GB</td></tr></table></body></html>\n");
  SourceSpec page;
  page.location = (dir_ / "acme.html").string();
  page.id = "acme";
  page.kind = "vendor";
  auto report = IngestSources(*store_, *schema_, {page});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->sources.size(), 1u);
  const auto& warnings = report->sources[0].warnings;
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("an HTML comment opened on line 1 of the markup is never closed") != std::string::npos;
  })) << ::testing::PrintToString(warnings);
}

// A page in the charset its server names (GBK, as Chinese vendors serve
// them) or in UTF-16 with its mark is stored as UTF-8 text: GBK was stored
// as Windows-1252 mojibake, UTF-16 refused as not text. A charset chipkg
// cannot read fails the source, naming it.
TEST_F(PipelineHttpTest, APageIsReadInTheCharsetItsServerNames) {
  const std::string gbk = "Acme X9\nTDP: 300 W\n\xC4\xE3\xBA\xC3 memory: 16 GB\n";  // 你好 in GBK
  // Labelled as pages label it: gb2312, with a character only GBK has (\x81\x40, 丂), in a <meta>.
  const std::string meta_gb2312 =
      "<!DOCTYPE html><html><head><meta charset=\"gb2312\"></head><body><h1>Acme X6</h1><p>\x81\x40 TDP: 100 W</p>"
      "</body></html>";
  std::string utf16 = "\xFF\xFE";
  for (char c : std::string("Acme X8\nTDP: 200 W\n")) utf16 += std::string{c, '\0'};
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    r.body = request.target == "/gbk"     ? gbk
             : request.target == "/utf16" ? utf16
             : request.target == "/meta"  ? meta_gb2312
             : request.target == "/latin" ? std::string("Acme X5 \xE9t\xE9\n")
                                          : std::string("Acme X7\n");
    r.headers = {{"Content-Type", request.target == "/gbk"     ? "text/plain; charset=GBK"
                                  : request.target == "/utf16" ? "text/plain"
                                  : request.target == "/meta"  ? "text/html"
                                  : request.target == "/latin" ? "text/plain; charset=latin-1"
                                                               : "text/plain; charset=\"x-nonsense\""}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<SourceSpec> specs(3);
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i].location = server.Url(i == 0 ? "/gbk" : i == 1 ? "/utf16" : "/other");
    specs[i].id = i == 0 ? "gbk" : i == 1 ? "utf16" : "other";
    specs[i].kind = "press";
  }
  auto run = IngestSources(*store_, *schema_, specs, options_);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->documents_new, 2u) << run->SummaryLine();
  EXPECT_EQ(store_->LatestDocumentVersion("gbk")->text, "Acme X9\nTDP: 300 W\n\xE4\xBD\xA0\xE5\xA5\xBD memory: 16 GB\n");
  EXPECT_EQ(store_->LatestDocumentVersion("utf16")->text, "Acme X8\nTDP: 200 W\n");
  EXPECT_TRUE(run->sources[0].warnings.empty() ||
              run->sources[0].warnings.front().find("Windows-1252") == std::string::npos);
  EXPECT_EQ(run->documents_failed, 1u);
  EXPECT_NE(run->sources[2].error.find("the server's charset is 'x-nonsense', which chipkg cannot read"),
            std::string::npos)
      << run->sources[2].error;
  SourceSpec meta, latin;
  meta.location = server.Url("/meta");
  meta.id = "meta";
  latin.location = server.Url("/latin");
  latin.id = "latin";
  auto labelled = IngestSources(*store_, *schema_, {meta, latin}, options_);
  ASSERT_TRUE(labelled.ok()) << labelled.status().message();
  EXPECT_EQ(labelled->documents_new, 2u) << labelled->SummaryLine() << labelled->sources[0].error;
  EXPECT_EQ(store_->LatestDocumentVersion("meta")->text, "# Acme X6\n\xE4\xB8\x82 TDP: 100 W\n");
  EXPECT_EQ(store_->LatestDocumentVersion("latin")->text, "Acme X5 \xC3\xA9t\xC3\xA9\n");
}

// A page served as HTML (what vendor and press sites serve) is stored as its
// text and read as the same page written as text is: the seed written out as
// HTML (headings, paragraphs, a table) states the same facts. Stored as
// markup, it stated nothing.
TEST_F(PipelineHttpTest, AnHtmlPageIsReadAsItsText) {
  const std::string page = ReadFile(Seed("001_fbc9a4a76c8d550e.txt"));
  const auto escaped = HtmlEscaped;
  std::string html = "<!DOCTYPE html>\n<html><head><title>Trainium</title><script>var x = 1;</script></head><body>\n";
  bool in_table = false;
  std::istringstream lines(page);
  for (std::string line; std::getline(lines, line);) {
    const bool row = line.size() > 1 && line.front() == '|' && line.back() == '|';
    if (row && line == "|---|") continue;  // written by the reader after each row
    if (row != in_table) html += row ? "<table>\n" : "</table>\n";
    in_table = row;
    if (row) {
      html += "<tr>";
      std::string_view cells(line);
      cells = cells.substr(1, cells.size() - 2);
      for (size_t from = 0; from <= cells.size();) {
        size_t bar = cells.find('|', from);
        if (bar == std::string_view::npos) bar = cells.size();
        std::string_view cell = cells.substr(from, bar - from);
        while (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
        while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
        html += "<td>" + escaped(cell) + "</td>";
        from = bar + 1;
      }
      html += "</tr>\n";
    } else if (line.rfind("# ", 0) == 0) {
      html += "<h1>" + escaped(line.substr(2)) + "</h1>\n";
    } else {
      html += "<p>" + escaped(line) + "</p>\n";
    }
  }
  html += in_table ? "</table></body></html>\n" : "</body></html>\n";
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    const bool as_html = request.target == "/page.html" || request.target == "/scripted.html";
    r.body = as_html ? html : page;
    r.headers = {{"Content-Type", as_html ? "text/html; charset=utf-8" : "text/plain"}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  const auto [html_run, text_run] = IngestHtmlThenText(server, "");
  EXPECT_EQ(html_run.facts_added, text_run.facts_added);
  auto stored = store_->LatestDocumentVersion("html");
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  EXPECT_EQ(stored->text.find('<'), std::string::npos) << stored->text.substr(0, 200);
  EXPECT_EQ(stored->content_type, "text/html; charset=utf-8");
  // A page that is all markup and script (drawn by its JavaScript) has no text to store.
  SourceSpec scripted;
  scripted.location = server.Url("/scripted.html");
  html = "<!DOCTYPE html><html><head><title>Acme</title></head><body><div id=app></div>"
         "<script>render()</script></body></html>";
  auto nothing = IngestSources(*store_, *schema_, {scripted}, options_);
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(nothing->documents_failed, 1u);
  EXPECT_NE(nothing->sources[0].error.find("an HTML page with no text"), std::string::npos) << nothing->sources[0].error;
  EXPECT_NE(stored->text.find("| Memory | 32 GiB HBM per chip 4 |\n|---|"), std::string::npos);
  // Every span counts the stored text's bytes.
  const std::vector<Fact> facts = store_->FactsFromDocument("html").value();
  for (const Fact& f : facts) {
    EXPECT_EQ(stored->text.substr(f.provenance.span_begin, f.provenance.span_end - f.provenance.span_begin),
              f.provenance.excerpt);
  }
}

// A source named a dataset is read as its CSV whatever its server calls it:
// a mirror serving every file as text/html flattened the file to one line
// and the error blamed a missing column. Markup where the CSV was expected
// (a login or error page) fails as what it is.
TEST_F(PipelineHttpTest, ADatasetServedAsHtmlIsReadAsItsCsv) {
  const std::string csv =
      ReadFile((fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv").string());
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    r.body = request.target == "/login" ? "<!DOCTYPE html><html><body><p>Please sign in</p></body></html>" : csv;
    r.headers = {{"Content-Type", "text/html; charset=utf-8"}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec dataset, login;
  dataset.location = server.Url("/ml.csv");
  dataset.format = "epoch-ml-hardware";
  dataset.id = "epoch";
  login.location = server.Url("/login");
  login.format = "epoch-ml-hardware";
  login.id = "epoch-login";
  auto run = IngestSources(*store_, *schema_, {dataset, login}, options_);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->documents_new, 1u) << run->sources[0].error;
  EXPECT_GT(run->sources[0].facts_added, 3000u);
  EXPECT_EQ(store_->LatestDocumentVersion("epoch").value().text, csv);
  EXPECT_NE(run->sources[1].error.find("an HTML page where the epoch-ml-hardware dataset (CSV) was expected"),
            std::string::npos)
      << run->sources[1].error;
}

// Real pages mark their title and sections as headings (<h1>, <h2>), which
// the text keeps as "# " lines: each bundled site's page written so states
// what its text does, about the same chip, with the title as the page shows
// it. The catalog page lost three quarters of its facts, made models of its
// section's rows and once took its eyebrow line for the chip.
TEST_F(PipelineHttpTest, AnHtmlPageWithHeadingsIsReadAsItsText) {
  for (const std::string seed : {"000_de7815fa348ea8df.txt", "001_fbc9a4a76c8d550e.txt"}) {
    SCOPED_TRACE(seed);
    const std::string page = ReadFile(Seed(seed));
    const auto escaped = HtmlEscaped;
    // A short line that is no sentence, item, row or question is a heading:
    // the eyebrow and the title too, as a template may write them. The
    // site's navigation comes first, as on real pages.
    std::string html = "<!DOCTYPE html>\n<html><body>\n<nav><a href=/>Home</a> &rsaquo; Chips</nav>\n";
    size_t headings = 0;
    std::istringstream lines(page);
    for (std::string line; std::getline(lines, line);) {
      const bool heading = !line.empty() && line.size() <= 40 && line.find_first_of(".:?|") == std::string::npos &&
                           line.rfind("- ", 0) != 0;
      if (line.size() > 1 && line.front() == '|') {
        if (line == "|---|") continue;
        std::string row = "<table><tr>";
        std::string_view cells(line);
        cells = cells.substr(1, cells.size() - 2);
        for (size_t from = 0; from <= cells.size();) {
          size_t bar = cells.find('|', from);
          if (bar == std::string_view::npos) bar = cells.size();
          row += "<td>" + escaped(cells.substr(from, bar - from)) + "</td>";
          from = bar + 1;
        }
        html += row + "</tr></table>\n";
      } else if (line.rfind("- ", 0) == 0) {
        html += "<ul><li>" + escaped(line.substr(2)) + "</li></ul>\n";
      } else if (heading) {
        const std::string tag = headings++ == 1 ? "h1" : "h2";  // the second: the title after the eyebrow
        html += "<" + tag + ">" + escaped(line) + "</" + tag + ">\n";
      } else {
        html += "<p>" + escaped(line) + "</p>\n";
      }
    }
    html += "</body></html>\n";
    ASSERT_GT(headings, 4u);
    HttpServer server([&](const HttpRequest& request, int) {
      HttpResponse r;
      const bool as_html = request.target == "/page.html";
      r.body = as_html ? html : page;
      r.headers = {{"Content-Type", as_html ? "text/html; charset=utf-8" : "text/plain"}};
      return r;
    });
    ASSERT_TRUE(server.ok()) << server.error();
    const std::string suffix = "-" + seed.substr(0, 3);
    const auto [html_run, text_run] = IngestHtmlThenText(server, suffix);
    // The page's run went first: the text's finds every entity it names made, and makes none.
    EXPECT_TRUE(text_run.new_entities.empty()) << text_run.new_entities.front().id;
    auto claims = [&](const std::string& document) {
      std::vector<std::string> out;
      const std::vector<Fact> facts = store_->FactsFromDocument(document).value();
      for (const Fact& f : facts) {
        std::string q;
        for (const auto& [k, v] : f.qualifiers) q += k + "=" + v + ",";
        out.push_back(f.subject + " " + f.predicate + " " + f.value.original + " {" + q + "}");
      }
      std::sort(out.begin(), out.end());
      return out;
    };
    EXPECT_EQ(claims("html" + suffix), claims("text" + suffix));
    const auto html_doc = store_->GetDocument("html" + suffix);
    const auto text_doc = store_->GetDocument("text" + suffix);
    ASSERT_TRUE(html_doc.ok() && text_doc.ok());
    EXPECT_EQ(html_doc->title, text_doc->title);
    EXPECT_EQ(html_doc->title.find('#'), std::string::npos) << html_doc->title;
  }
}

// A document whose source moved (the manifest's entry now names another
// URL) is fetched there without the old place's validators: sent them, a
// server whose new file was older answered 304 and the new page was never
// read, run after run. What the source list says of an unchanged page
// (title, site, kind) is the record's after a 304 too.
TEST_F(PipelineHttpTest, AMovedDocumentIsFetchedWholeAndAnUnchangedOneTakesTheListsWords) {
  const std::string old_page = ReadFile(Seed("001_fbc9a4a76c8d550e.txt"));
  const std::string new_page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  std::atomic<int> conditional_to_new{0};
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    const bool asks = request.HasHeader("If-None-Match") || request.HasHeader("If-Modified-Since");
    if (request.target == "/new" && asks) ++conditional_to_new;
    if (asks) {  // as a server whose file is older than the date asked about
      r.status = 304;
      r.reason = "Not Modified";
      return r;
    }
    r.body = request.target == "/new" ? new_page : old_page;
    r.headers = {{"ETag", "\"same\""}, {"Last-Modified", "Sat, 05 Dec 2026 10:00:00 GMT"},
                 {"Content-Type", "text/plain; charset=utf-8"}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec spec;
  spec.id = "moving";
  spec.location = server.Url("/old");
  spec.kind = "press";
  ASSERT_EQ(IngestSources(*store_, *schema_, {spec}, options_)->documents_new, 1u);

  spec.location = server.Url("/new");
  auto moved = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  EXPECT_EQ(moved->documents_changed, 1u) << moved->SummaryLine();
  EXPECT_EQ(conditional_to_new.load(), 0);
  EXPECT_EQ(store_->GetDocument("moving")->url, spec.location);
  EXPECT_EQ(store_->ListDocumentVersions("moving")->size(), 2u);

  spec.kind = "vendor";
  spec.title = "Trainium 2, from the vendor";
  auto unchanged = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(unchanged.ok()) << unchanged.status().message();
  EXPECT_EQ(unchanged->documents_unchanged, 1u) << unchanged->SummaryLine();
  EXPECT_EQ(conditional_to_new.load(), 1);
  EXPECT_EQ(store_->GetDocument("moving")->kind, "vendor");
  EXPECT_EQ(store_->GetDocument("moving")->title, "Trainium 2, from the vendor");
  EXPECT_EQ(store_->ListDocumentVersions("moving")->size(), 2u);
}

// Three stalled URLs and a good one: each stalled one fails after the fetch
// deadline naming it; fetched at once, they cost the run about one deadline,
// not three; the good page is stored; the report keeps the sources' order.
TEST_F(PipelineHttpTest, StalledHostsCostOneDeadlineAndDoNotHoldUpTheOthers) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    if (request.target.rfind("/stalled", 0) == 0) {
      r.delay = milliseconds(30'000);
      r.body = "never";
    } else {
      r.body = page;
    }
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<SourceSpec> specs;
  for (const char* path : {"/stalled-1", "/stalled-2", "/page", "/stalled-3"}) {
    SourceSpec spec;
    spec.location = server.Url(path);
    spec.kind = "press";
    spec.site = "chip-catalog.example";
    specs.push_back(spec);
  }
  options_.fetch.deadline = milliseconds(1500);
  options_.fetch.max_retries = 0;
  options_.parallel_fetches = 4;
  const auto start = std::chrono::steady_clock::now();
  auto report = IngestSources(*store_, *schema_, specs, options_);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->sources.size(), 4u);
  for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(report->sources[i].location, specs[i].location);
  EXPECT_EQ(report->documents_failed, 3u);
  EXPECT_EQ(report->documents_new, 1u);
  EXPECT_EQ(report->sources[2].state, SourceOutcome::State::kNew) << report->sources[2].error;
  for (size_t i : {0u, 1u, 3u}) {
    const std::string& error = report->sources[i].error;
    EXPECT_EQ(error.rfind(specs[i].location + ": timed out after ", 0), 0u) << error;
    EXPECT_NE(error.find("the fetch's deadline is 1500 ms"), std::string::npos) << error;
  }
  EXPECT_LT(elapsed, milliseconds(4000));  // one after another: at least 4.5 s
  EXPECT_GE(elapsed, milliseconds(1400));
  auto facts = store_->FactsFromDocument(specs[2].location);
  ASSERT_TRUE(facts.ok());
  EXPECT_GT(facts->size(), 10u);
  EXPECT_FALSE(store_->GetDocument(specs[0].location).ok());
}

// Hung hosts spread over a long list are fetched while the run waits for the
// first of them: the run costs about one deadline, not one per hung host
// (sources are stored in order, but fetched as far ahead as memory allows).
TEST_F(PipelineHttpTest, HungHostsFarApartAreWaitedForTogether) {
  const std::string page = ReadFile(Seed("000_de7815fa348ea8df.txt"));
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    r.body = page;
    if (request.target.rfind("/hung", 0) == 0) r.delay = milliseconds(30'000);
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<SourceSpec> specs;
  for (int i = 0; i < 20; ++i) {
    SourceSpec spec;
    spec.location = server.Url((i % 9 == 0 ? "/hung-" : "/page-") + std::to_string(i));
    spec.kind = "press";
    specs.push_back(spec);
  }
  options_.fetch.deadline = milliseconds(2000);
  options_.fetch.max_retries = 0;
  const auto start = std::chrono::steady_clock::now();
  auto report = IngestSources(*store_, *schema_, specs, options_);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->documents_failed, 3u);  // 0, 9 and 18
  EXPECT_EQ(report->documents_new, 17u);
  EXPECT_LT(elapsed, milliseconds(5000));  // one hung host after another: over 6 s
}

// A URL with a user name or password is refused: the location is the
// document's id and URL, stored, exported and cited. Nothing is fetched.
TEST_F(PipelineHttpTest, AUrlWithCredentialsIsRefused) {
  HttpServer server([&](const HttpRequest&, int) { return HttpResponse{}; });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec spec;
  spec.location = server.Url("/x");
  spec.location.insert(spec.location.find("://") + 3, "reader:secret@");
  auto run = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->documents_failed, 1u);
  EXPECT_EQ(run->sources[0].error, server.Url("/x") + ": a URL with a user name or password is not ingested (it "
                                                      "would be stored and exported with the document)");
  EXPECT_EQ(server.request_count(), 0u);
}

// A source that fails run after run (a dead URL in a cron job's list) is
// recorded with when it started failing and how many runs in a row, and
// the record goes when a run takes it. A second listing of a document that
// was taken is no failure of that document.
TEST_F(PipelineHttpTest, ASourceFailingRunAfterRunIsRecordedUntilARunTakesIt) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  std::atomic<bool> dead{true};
  HttpServer server([&](const HttpRequest&, int) {
    HttpResponse r;
    if (dead) {
      r.status = 404;
      r.reason = "Not Found";
    } else {
      r.body = page;
    }
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec spec;
  spec.location = server.Url("/trainium2");
  spec.id = "trn2";
  auto first = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->documents_failed, 1u);
  EXPECT_EQ(first->sources[0].failed_runs, 1u);
  auto failing = FailingSources(*store_);
  ASSERT_TRUE(failing.ok()) << failing.status().message();
  ASSERT_EQ(failing->size(), 1u);
  EXPECT_EQ(failing->at(0).document_id, "trn2");
  EXPECT_EQ(failing->at(0).location, spec.location);
  EXPECT_EQ(failing->at(0).runs, 1u);
  EXPECT_NE(failing->at(0).error.find("404"), std::string::npos) << failing->at(0).error;
  const int64_t since = failing->at(0).since;
  EXPECT_GT(since, 0);

  auto second = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->sources[0].failed_runs, 2u);
  EXPECT_EQ(second->sources[0].failing_since, since);
  failing = FailingSources(*store_);
  ASSERT_EQ(failing.value().size(), 1u);
  EXPECT_EQ(failing->at(0).runs, 2u);
  EXPECT_EQ(failing->at(0).since, since);
  EXPECT_GE(failing->at(0).last, since);

  dead = false;
  auto taken = IngestSources(*store_, *schema_, {spec, spec}, options_);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->documents_new, 1u);
  EXPECT_EQ(taken->documents_failed, 1u);  // listed twice
  EXPECT_TRUE(FailingSources(*store_).value().empty());
}

// A dead source taken out of its manifest is tried by no later run: the
// manifest's next run forgets its failures. A run of another manifest, or of
// sources given on the command line, leaves them: the store may be fed by
// several lists.
TEST_F(PipelineTest, AFailingSourceDroppedFromItsManifestIsForgottenByItsNextRun) {
  WriteFile(dir_ / "page.txt", ReadFile(Seed("000_de7815fa348ea8df.txt")));
  fs::create_directories(dir_ / "cron");
  const fs::path manifest = dir_ / "cron" / "manifest.json";
  WriteFile(manifest, R"([{"location": "../page.txt", "id": "page"}, {"location": "../gone.txt", "id": "gone"}])");
  const fs::path other = dir_ / "other.json";
  WriteFile(other, R"([{"location": "page.txt", "id": "page"}, {"location": "also-gone.txt", "id": "also-gone"}])");
  SourceSpec by_hand;
  by_hand.location = (dir_ / "never.txt").string();
  by_hand.id = "by-hand";
  auto listed = LoadManifest(manifest.string());
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  const std::string manifest_name = fs::absolute(manifest).lexically_normal().string();
  for (const SourceSpec& spec : *listed) EXPECT_EQ(spec.manifest, manifest_name);
  auto others = LoadManifest(other.string());
  ASSERT_TRUE(others.ok()) << others.status().message();
  ASSERT_TRUE(IngestSources(*store_, *schema_, *listed, {}).ok());
  ASSERT_TRUE(IngestSources(*store_, *schema_, *others, {}).ok());
  ASSERT_TRUE(IngestSources(*store_, *schema_, {by_hand}, {}).ok());
  auto failing = FailingSources(*store_);
  ASSERT_TRUE(failing.ok()) << failing.status().message();
  ASSERT_EQ(failing->size(), 3u);
  std::map<std::string, std::vector<std::string>> manifests_of;
  for (const FailingSource& f : *failing) manifests_of[f.document_id] = f.manifests;
  EXPECT_EQ(manifests_of["gone"], (std::vector<std::string>{manifest_name}));
  EXPECT_EQ(manifests_of["also-gone"], (std::vector<std::string>{fs::absolute(other).lexically_normal().string()}));
  EXPECT_TRUE(manifests_of["by-hand"].empty());

  // Still listed: tried again, and counted.
  auto again = IngestSources(*store_, *schema_, *listed, {});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->failing_forgotten.empty());
  EXPECT_EQ(again->sources.at(1).failed_runs, 2u);
  // Tried by hand, it is still the manifest's.
  SourceSpec gone_by_hand = listed->at(1);
  gone_by_hand.manifest.clear();
  auto by_hand_again = IngestSources(*store_, *schema_, {gone_by_hand}, {});
  ASSERT_TRUE(by_hand_again.ok());
  EXPECT_EQ(by_hand_again->sources.at(0).failed_runs, 3u);
  failing = FailingSources(*store_);
  ASSERT_TRUE(failing.ok());
  for (const FailingSource& f : *failing) {
    if (f.document_id == "gone") {
      EXPECT_EQ(f.manifests, (std::vector<std::string>{manifest_name}));
    }
  }

  // Taken out, and the manifest given by another path to the same file.
  WriteFile(manifest, R"([{"location": "../page.txt", "id": "page"}])");
  auto shorter = LoadManifest((dir_ / "cron" / ".." / "cron" / "manifest.json").string());
  ASSERT_TRUE(shorter.ok()) << shorter.status().message();
  auto dropped = IngestSources(*store_, *schema_, *shorter, {});
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  ASSERT_EQ(dropped->failing_forgotten.size(), 1u);
  EXPECT_EQ(dropped->failing_forgotten[0].document_id, "gone");
  EXPECT_EQ(dropped->failing_forgotten[0].manifest, manifest_name);
  EXPECT_EQ(dropped->failing_forgotten[0].runs, 3u);
  EXPECT_EQ(dropped->failing_forgotten[0].location, (dir_ / "gone.txt").string());
  failing = FailingSources(*store_);
  ASSERT_TRUE(failing.ok());
  std::set<std::string> still;
  for (const FailingSource& f : *failing) still.insert(f.document_id);
  EXPECT_EQ(still, (std::set<std::string>{"also-gone", "by-hand"}));

  // A link to the manifest from elsewhere reads its relative locations from
  // there: another list of sources, whose runs leave the manifest's
  // records alone.
  WriteFile(manifest, R"([{"location": "../page.txt", "id": "page"}, "../gone2.txt"])");
  auto with_gone2 = LoadManifest(manifest.string());
  ASSERT_TRUE(with_gone2.ok()) << with_gone2.status().message();
  ASSERT_TRUE(IngestSources(*store_, *schema_, *with_gone2, {}).ok());
  const size_t recorded = FailingSources(*store_).value().size();
  fs::create_directories(dir_ / "a" / "b");
  fs::create_symlink(manifest, dir_ / "a" / "b" / "link.json");
  auto through_link = LoadManifest((dir_ / "a" / "b" / "link.json").string());
  ASSERT_TRUE(through_link.ok()) << through_link.status().message();
  EXPECT_EQ(through_link->at(1).manifest, (dir_ / "a" / "b" / "link.json").string());
  EXPECT_EQ(through_link->at(1).location, (dir_ / "a" / "gone2.txt").string());
  auto linked = IngestSources(*store_, *schema_, *through_link, {});
  ASSERT_TRUE(linked.ok());
  EXPECT_TRUE(linked->failing_forgotten.empty());
  EXPECT_EQ(FailingSources(*store_).value().size(), recorded + 2);  // the link's page and gone2 too

  // A record that is not what ingest writes reads as what it still says.
  ASSERT_TRUE(store_->PutMeta("ingest-failed/odd", R"({"runs": "two", "since": 5, "manifest": 7})").ok());
  failing = FailingSources(*store_);
  ASSERT_TRUE(failing.ok());
  bool odd_seen = false;
  for (const FailingSource& f : *failing) {
    if (f.document_id != "odd") continue;
    odd_seen = true;
    EXPECT_EQ(f.runs, 0u);
    EXPECT_EQ(f.since, 5);
    EXPECT_TRUE(f.manifests.empty());
  }
  EXPECT_TRUE(odd_seen);
}

// A source two cron jobs list, each failing it, is forgotten once neither
// lists it: the first to drop it takes only itself out of the record. A list
// read from standard input is one manifest, "standard input", whose runs
// forget the sources it no longer lists as a file's do (a script's list
// dropping a dead URL left its record for ever).
TEST_F(PipelineTest, AFailingSourceInTwoManifestsIsForgottenWhenNeitherListsIt) {
  const fs::path first = dir_ / "first.json", second = dir_ / "second.json";
  WriteFile(first, R"([{"location": "gone.txt", "id": "gone"}])");
  WriteFile(second, R"([{"location": "gone.txt", "id": "gone"}, {"location": "dead.txt", "id": "dead"}])");
  const std::string first_name = ManifestName(first.string()), second_name = ManifestName(second.string());
  auto run = [&](const fs::path& manifest) {
    auto listed = LoadManifest(manifest.string());
    EXPECT_TRUE(listed.ok()) << listed.status().message();
    IngestOptions options;
    options.manifests_read.push_back(ManifestName(manifest.string()));
    auto report = IngestSources(*store_, *schema_, listed.ok() ? *listed : std::vector<SourceSpec>{}, options);
    EXPECT_TRUE(report.ok()) << report.status().message();
    return report.ok() ? *report : IngestReport{};
  };
  auto manifests_of = [&](const std::string& id) {
    const std::vector<FailingSource> failing = FailingSources(*store_).value();
    for (const FailingSource& f : failing) {
      if (f.document_id == id) return f.manifests;
    }
    return std::vector<std::string>{"(no record)"};
  };
  run(first);
  run(second);
  EXPECT_EQ(manifests_of("gone"), (std::vector<std::string>{first_name, second_name}));

  WriteFile(first, "[]");
  EXPECT_TRUE(run(first).failing_forgotten.empty());
  EXPECT_EQ(manifests_of("gone"), (std::vector<std::string>{second_name}));
  IngestReport still = run(second);
  EXPECT_EQ(still.sources.at(0).failed_runs, 3u);  // the count goes on
  WriteFile(second, R"([{"location": "dead.txt", "id": "dead"}])");
  IngestReport dropped = run(second);
  ASSERT_EQ(dropped.failing_forgotten.size(), 1u);
  EXPECT_EQ(dropped.failing_forgotten[0].document_id, "gone");
  EXPECT_EQ(dropped.failing_forgotten[0].manifest, second_name);
  EXPECT_EQ(manifests_of("gone"), (std::vector<std::string>{"(no record)"}));
  EXPECT_EQ(manifests_of("dead"), (std::vector<std::string>{second_name}));

  // A record written when one manifest was all a record named reads as that one.
  ASSERT_TRUE(store_->PutMeta("ingest-failed/old",
                              R"({"since": 5, "last": 6, "runs": 2, "location": "x", "manifest": "/m.json"})")
                  .ok());
  EXPECT_EQ(manifests_of("old"), (std::vector<std::string>{"/m.json"}));

  // Standard input, as a script's list.
  EXPECT_EQ(ManifestName("-"), "standard input");
  SourceSpec piped;
  piped.location = (dir_ / "dead.txt").string();
  piped.id = "dead";
  piped.manifest = ManifestName("-");
  IngestOptions from_stdin;
  from_stdin.manifests_read.push_back(ManifestName("-"));
  ASSERT_TRUE(IngestSources(*store_, *schema_, {piped}, from_stdin).ok());
  EXPECT_EQ(manifests_of("dead"), (std::vector<std::string>{second_name, "standard input"}));
  auto emptied = IngestSources(*store_, *schema_, {}, from_stdin);
  ASSERT_TRUE(emptied.ok());
  EXPECT_TRUE(emptied->failing_forgotten.empty());  // still in the second manifest
  EXPECT_EQ(manifests_of("dead"), (std::vector<std::string>{second_name}));
}

// One page written two ways (scheme and host case, default port, fragment)
// is one document: fetched over HTTP whatever the scheme's case, stored under
// its canonical URL, and the second way is "listed twice". A store that holds
// the document under the URL as once given keeps using that document.
TEST_F(PipelineHttpTest, OnePageWrittenTwoWaysIsOneDocument) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  HttpServer server([&](const HttpRequest&, int) {
    HttpResponse r;
    r.body = page;
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string canonical = server.Url("/trainium2");
  SourceSpec shouted;
  shouted.location = "HTTP://" + canonical.substr(7) + "#specs";
  SourceSpec plain;
  plain.location = canonical;
  auto run = IngestSources(*store_, *schema_, {shouted, plain}, options_);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->documents_new, 1u) << run->sources[0].error;
  EXPECT_EQ(run->sources[0].document_id, canonical);
  EXPECT_EQ(run->documents_failed, 1u);
  EXPECT_EQ(run->sources[1].error, canonical + ": document " + canonical +
                                       " is source 1's too (listed twice); not fetched again");
  EXPECT_EQ(server.request_count(), 1u);
  auto doc = store_->GetDocument(canonical);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->site, "127.0.0.1");

  // An older store's document, under the URL as given then.
  const std::string as_given = server.Url("/trainium2?v=1#x");
  SourceSpec old_style;
  old_style.location = as_given;
  old_style.id = as_given;
  ASSERT_EQ(IngestSources(*store_, *schema_, {old_style}, options_).value().documents_new, 1u);
  SourceSpec again;
  again.location = as_given;
  auto next = IngestSources(*store_, *schema_, {again}, options_);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->documents_unchanged, 1u) << next->sources[0].error;
  EXPECT_EQ(next->sources[0].document_id, as_given);
  EXPECT_TRUE(store_->GetDocument(server.Url("/trainium2?v=1")).status().IsNotFound());
}

// Rules improved since a document was stored reach it with reextract: the
// unchanged text is read again and what the rules read differently
// supersedes, with no new version; read again with the same rules, nothing
// is written. Here the older rules lacked Epoch's format=max on Energy
// efficiency and the fp16 claim of its tensor column.
TEST_F(PipelineTest, ReextractReadsAnUnchangedDocumentWithTheCurrentRules) {
  const fs::path old_schema = dir_ / "old-schema";
  fs::copy(fs::path(CHIPKG_SOURCE_DIR) / "schema", old_schema, fs::copy_options::recursive);
  const fs::path epoch = old_schema / "datasets" / "epoch-ml-hardware.schema";
  std::string text = ReadFile(epoch);
  for (const std::string& line : {std::string("perf_per_watt unit=op/s/W format=max"),
                                  std::string("column epoch-ml-hardware \"Tensor-FP16/BF16 performance (FLOP/s)\" "
                                              "peak_throughput unit=FLOP/s format=fp16 sparsity=dense")}) {
    size_t at = text.find(line);
    ASSERT_NE(at, std::string::npos) << line;
    if (line.find("perf_per_watt") == 0) {
      // Every line of the column: the estimates' as well (basis=estimate).
      for (; at != std::string::npos; at = text.find(line, at)) text.replace(at, line.size(), "perf_per_watt unit=op/s/W");
    } else {
      text.erase(at, text.find('\n', at) + 1 - at);  // the whole line, with the rows it leaves out
    }
  }
  WriteFile(epoch, text);
  auto older = Schema::LoadDirectory(old_schema.string());
  ASSERT_TRUE(older.ok()) << older.status().message();

  SourceSpec spec;
  spec.location = (fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv").string();
  spec.format = "epoch-ml-hardware";
  spec.id = "epoch";
  ASSERT_EQ(IngestSources(*store_, *older, {spec}).value().documents_new, 1u);
  const size_t stored = store_->FactsFromDocument("epoch").value().size();

  // The current rules without reextract: unchanged, nothing read again,
  // but said to have been read by other rules.
  auto plain = IngestSources(*store_, *schema_, {spec});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->documents_unchanged, 1u);
  EXPECT_EQ(plain->facts_added + plain->facts_retracted, 0u);
  EXPECT_EQ(plain->documents_read_by_other_rules, 1u);
  EXPECT_TRUE(plain->sources[0].read_by_other_rules);
  // The rules that read it are the older ones still.
  EXPECT_EQ(IngestSources(*store_, *older, {spec}).value().documents_read_by_other_rules, 0u);

  IngestOptions again;
  again.reextract = true;
  auto reread = IngestSources(*store_, *schema_, {spec}, again);
  ASSERT_TRUE(reread.ok());
  ASSERT_EQ(reread->documents_changed, 1u) << reread->sources[0].error;
  size_t max_claims = 0, fp16_tensor = 0, unqualified_efficiency = 0;
  auto facts = store_->FactsFromDocument("epoch").value();
  for (const Fact& f : facts) {
    EXPECT_EQ(f.provenance.document_version, 1u);
    if (f.predicate == "perf_per_watt") {
      const auto format = f.qualifiers.find("format");
      if (format == f.qualifiers.end()) ++unqualified_efficiency;
      else if (format->second == "max") ++max_claims;
    }
    if (f.provenance.column == "Tensor-FP16/BF16 performance (FLOP/s)" && f.qualifiers.at("format") == "fp16") {
      ++fp16_tensor;
    }
  }
  EXPECT_GT(max_claims, 100u);
  EXPECT_EQ(unqualified_efficiency, 0u);
  EXPECT_GT(fp16_tensor, 50u);
  EXPECT_EQ(reread->facts_retracted, max_claims);  // each re-keyed claim, and nothing else
  EXPECT_EQ(reread->facts_added, max_claims + fp16_tensor);
  EXPECT_EQ(facts.size(), stored + fp16_tensor);
  EXPECT_EQ(store_->ListDocumentVersions("epoch").value().size(), 1u);

  const TxId last = store_->LastTx();
  auto same = IngestSources(*store_, *schema_, {spec}, again);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->documents_unchanged, 1u) << same->sources[0].error;
  EXPECT_EQ(same->facts_added + same->facts_retracted, 0u);
  EXPECT_EQ(store_->LastTx(), last);
}

// A page without a title in the source list is titled as its latest version says.
TEST_F(PipelineTest, ThePagesTitleFollowsItsLatestVersion) {
  const SourceSpec spec = SeedCopy("000_de7815fa348ea8df.txt", "page.txt", "page");
  const fs::path copy = spec.location;
  ASSERT_EQ(IngestSources(*store_, *schema_, {spec}).value().documents_new, 1u);
  const std::string first = store_->GetDocument("page").value().title;
  ASSERT_FALSE(first.empty());
  WriteFile(copy, ReadFile(Seed("003_d5e7e28472882ec2.txt")));
  IngestOptions accept;
  accept.accept_shrinking = true;  // another chip's page: most of the first one's facts go
  auto changed = IngestSources(*store_, *schema_, {spec}, accept);
  ASSERT_TRUE(changed.ok());
  ASSERT_EQ(changed->documents_changed, 1u) << changed->sources[0].error;
  const std::string second = store_->GetDocument("page").value().title;
  EXPECT_NE(second, first);
  EXPECT_NE(second.find("Trainium 2"), std::string::npos) << second;
}

// Reextract of a page whose server answers 304: the stored text is read
// again (the request stays conditional); the same rules read the same facts.
TEST_F(PipelineHttpTest, ReextractOfAnUnmodifiedPageReadsTheStoredText) {
  const std::string page = ReadFile(Seed("003_d5e7e28472882ec2.txt"));
  std::atomic<int> not_modified{0};
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    if (request.Header("If-None-Match") == "\"v1\"") {
      ++not_modified;
      r.status = 304;
      r.reason = "Not Modified";
      return r;
    }
    r.body = page;
    r.headers = {{"ETag", "\"v1\""}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  // Older rules that did not know the "TDP" label.
  const fs::path old_schema = dir_ / "old-schema";
  fs::copy(fs::path(CHIPKG_SOURCE_DIR) / "schema", old_schema, fs::copy_options::recursive);
  std::string labels = ReadFile(old_schema / "labels.schema");
  const size_t at = labels.find("label \"TDP\" tdp\n");
  ASSERT_NE(at, std::string::npos);
  WriteFile(old_schema / "labels.schema", labels.erase(at, std::string("label \"TDP\" tdp\n").size()));
  auto older = Schema::LoadDirectory(old_schema.string());
  ASSERT_TRUE(older.ok()) << older.status().message();

  SourceSpec spec;
  spec.location = server.Url("/trainium2");
  ASSERT_EQ(IngestSources(*store_, *older, {spec}, options_).value().documents_new, 1u);
  auto tdp_claims = [&] {
    size_t n = 0;
    const std::vector<Fact> facts = store_->FactsAbout("chip:aws-trainium2").value();
    for (const Fact& f : facts) n += f.predicate == "tdp" ? 1 : 0;
    return n;
  };
  const size_t tdp_before = tdp_claims();
  IngestOptions again = options_;
  again.reextract = true;
  auto reread = IngestSources(*store_, *schema_, {spec}, again);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(reread->documents_changed, 1u) << reread->sources[0].error;
  EXPECT_GT(reread->facts_added, 0u);
  EXPECT_GT(tdp_claims(), tdp_before);  // the TDP line, read from the stored text
  EXPECT_EQ(not_modified.load(), 1);
  EXPECT_EQ(server.request_count(), 2u);
  // Read again with the same rules: nothing changes.
  auto same = IngestSources(*store_, *schema_, {spec}, again);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->documents_unchanged, 1u) << same->sources[0].error;
  EXPECT_EQ(same->facts_added + same->facts_retracted, 0u);
}

// How many fetches are in flight at once is what parallel_fetches says, and
// either way every page is stored.
TEST_F(PipelineHttpTest, ParallelFetchesBoundsTheFetchesInFlight) {
  const std::string page = ReadFile(Seed("000_de7815fa348ea8df.txt"));
  std::atomic<int> in_flight{0}, most{0};
  HttpServer server([&](const HttpRequest&, int) {
    const int now = ++in_flight;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(milliseconds(300));
    --in_flight;
    HttpResponse r;
    r.body = page;
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  for (int parallel : {1, 3}) {
    SCOPED_TRACE(parallel);
    std::vector<SourceSpec> specs;
    for (const char* path : {"/a", "/b", "/c", "/d", "/e", "/f"}) {
      SourceSpec spec;
      spec.location = server.Url(std::string(path) + "?p=" + std::to_string(parallel));
      spec.kind = "press";
      spec.site = "chip-catalog.example";
      specs.push_back(spec);
    }
    most = 0;
    options_.parallel_fetches = parallel;
    auto report = IngestSources(*store_, *schema_, specs, options_);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->documents_new, 6u);
    if (parallel == 1) {
      EXPECT_EQ(most.load(), 1);
    } else {
      EXPECT_GE(most.load(), 2);  // six fetches of 300 ms; at most three at once
      EXPECT_LE(most.load(), 3);
    }
    for (const auto& s : specs) {
      auto facts = store_->FactsFromDocument(s.location);
      ASSERT_TRUE(facts.ok());
      EXPECT_GT(facts->size(), 10u) << s.location;
    }
  }

  // Memory bounds it too: room for one body of the largest size allowed means one fetch at a time.
  {
    std::vector<SourceSpec> specs;
    for (const char* path : {"/g", "/h", "/i"}) {
      SourceSpec spec;
      spec.location = server.Url(path);
      specs.push_back(spec);
    }
    most = 0;
    options_.parallel_fetches = 3;
    options_.fetch.max_body_bytes = 1 << 20;
    options_.fetch_ahead_bytes = 1 << 20;
    auto report = IngestSources(*store_, *schema_, specs, options_);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->documents_new, 3u);
    EXPECT_EQ(most.load(), 1);
  }

  options_.parallel_fetches = 0;
  EXPECT_TRUE(IngestSources(*store_, *schema_, {}, options_).status().IsInvalidArgument());
}

}  // namespace
}  // namespace chipkg
