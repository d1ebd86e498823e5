// ImportGeneratedCorpus against a real corpus from tools/bench/gen.py (N=200, run through
// python3), a real store on disk and the real schema/ directory. Expected values are read from
// the corpus files with nlohmann::json, not with the importer's own reader.
#include "ingest/bulk_import.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/store.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path MakeTempDir(const std::string& tag) {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / ("chipkg_" + tag + "_" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(p);
  return p;
}

std::vector<json> ReadJsonLines(const fs::path& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

int64_t UtcSeconds(const std::string& iso) {  // "2018-09-02T04:56:01Z"
  std::tm tm{};
  tm.tm_year = std::stoi(iso.substr(0, 4)) - 1900;
  tm.tm_mon = std::stoi(iso.substr(5, 2)) - 1;
  tm.tm_mday = std::stoi(iso.substr(8, 2));
  tm.tm_hour = std::stoi(iso.substr(11, 2));
  tm.tm_min = std::stoi(iso.substr(14, 2));
  tm.tm_sec = std::stoi(iso.substr(17, 2));
  return static_cast<int64_t>(timegm(&tm));
}

// One imported N=200 corpus shared by the tests of this suite.
class BulkImportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(MakeTempDir("bulk_import"));
    corpus_ = *root_ / "corpus";
    std::string cmd = "python3 '" + std::string(CHIPKG_SOURCE_DIR) + "/tools/bench/gen.py' 200 '" + corpus_.string() +
                      "' > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto schema = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    schema_ = new Schema(std::move(schema).value());
    auto store = Store::Open((*root_ / "store").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = store->release();
    auto stats = ImportGeneratedCorpus(*store_, *schema_, corpus_.string(), {.run_id = "test-run"});
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    stats_ = new BulkImportStats(*stats);
    std::ifstream in(corpus_ / "params.json");
    params_ = new json(json::parse(in));
    facts_ = new std::vector<json>(ReadJsonLines(corpus_ / "facts.jsonl"));
    sources_ = new std::vector<json>(ReadJsonLines(corpus_ / "sources.jsonl"));
    documents_ = new std::map<std::string, std::pair<std::vector<Fact>, std::string>>();
  }
  static void TearDownTestSuite() {
    delete store_;
    delete schema_;
    delete stats_;
    delete params_;
    delete facts_;
    delete sources_;
    delete documents_;
    if (root_ != nullptr) fs::remove_all(*root_);
    delete root_;
  }
  void SetUp() override {
    ASSERT_NE(store_, nullptr);
    ASSERT_NE(stats_, nullptr);
  }

  // The stored fact for one line of facts.jsonl: same subject and document, span at the excerpt.
  static Fact StoredFact(const json& line) {
    const std::string doc = line["source"].get<std::string>();
    auto it = documents_->find(doc);
    if (it == documents_->end()) {
      auto facts = store_->FactsFromDocument(doc);
      EXPECT_TRUE(facts.ok()) << facts.status().ToString();
      auto version = store_->GetDocumentVersion(doc, 1);
      EXPECT_TRUE(version.ok()) << version.status().ToString();
      if (!facts.ok() || !version.ok()) return {};
      it = documents_->emplace(doc, std::make_pair(std::move(facts).value(), version->text)).first;
    }
    const auto& [facts, text] = it->second;
    const std::string excerpt = line["excerpt"].get<std::string>();
    for (const Fact& f : facts) {
      if (f.subject == line["subject"].get<std::string>() &&
          text.compare(f.provenance.span_begin, f.provenance.span_end - f.provenance.span_begin, excerpt) == 0) {
        return f;
      }
    }
    ADD_FAILURE() << "no stored fact for " << line.dump();
    return {};
  }
  static const json& FirstLine(const std::string& predicate, const std::string& status) {
    for (const json& l : *facts_) {
      if (l["predicate"] == predicate && l["status"] == status) return l;
    }
    ADD_FAILURE() << "the corpus has no " << status << " " << predicate;
    return facts_->front();
  }

  static fs::path* root_;
  static fs::path corpus_;
  static Schema* schema_;
  static Store* store_;
  static BulkImportStats* stats_;
  static json* params_;
  static std::vector<json>* facts_;
  static std::vector<json>* sources_;
  // document id -> its facts and its text, read once
  static std::map<std::string, std::pair<std::vector<Fact>, std::string>>* documents_;
};
fs::path* BulkImportTest::root_ = nullptr;
fs::path BulkImportTest::corpus_;
Schema* BulkImportTest::schema_ = nullptr;
Store* BulkImportTest::store_ = nullptr;
BulkImportStats* BulkImportTest::stats_ = nullptr;
json* BulkImportTest::params_ = nullptr;
std::vector<json>* BulkImportTest::facts_ = nullptr;
std::vector<json>* BulkImportTest::sources_ = nullptr;
std::map<std::string, std::pair<std::vector<Fact>, std::string>>* BulkImportTest::documents_ = nullptr;

TEST_F(BulkImportTest, CountsMatchTheCorpus) {
  const uint64_t expected = (*params_)["stats"]["fact_assertions"].get<uint64_t>();
  EXPECT_EQ(facts_->size(), expected);
  EXPECT_EQ(stats_->facts, expected);
  EXPECT_EQ(stats_->documents, sources_->size());
  uint64_t np = 0;
  std::set<std::string> subjects;
  for (const json& l : *facts_) {
    np += l["status"] == "not_published";
    subjects.insert(l["subject"].get<std::string>());
  }
  EXPECT_GT(np, 0u);
  EXPECT_EQ(stats_->not_published, np);

  auto st = store_->Statistics();
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->facts, expected);
  EXPECT_EQ(st->live_facts, expected);
  EXPECT_EQ(st->not_published_facts, np);
  EXPECT_EQ(st->documents, sources_->size());
  EXPECT_EQ(st->document_versions, sources_->size());
  EXPECT_GE(st->entities, subjects.size());  // chips and models, plus organisations
  EXPECT_EQ(stats_->entities, st->entities);
}

TEST_F(BulkImportTest, QuantitiesAreConvertedThroughTheSchema) {
  struct Case {
    const char* generator;
    const char* predicate;
    const char* dimension;
    double factor;
    const char* unit;
    Qualifiers qualifiers;
  };
  const std::vector<Case> cases = {
      {"memory_capacity", "memory", "bytes", 1e9, "GB", {}},
      {"memory_bandwidth", "memory_bandwidth", "bytes_per_second", 1e9, "GB/s", {}},
      {"fp16_tflops", "peak_throughput", "ops_per_second", 1e12, "TFLOPS", {{"format", "fp16"}}},
      {"int4_tops", "peak_throughput", "ops_per_second", 1e12, "TOPS", {{"format", "int4"}}},
      {"process_node", "process_size", "length", 1e-9, "nm", {}},
      {"die_area", "die_size", "area", 1e-6, "mm2", {}},
      {"transistor_count", "transistors", "count", 1e9, "billion", {}},
      {"l2_cache", "l2_cache", "bytes", 1e6, "MB", {}},
      {"boost_clock", "boost_clock", "frequency", 1e6, "MHz", {}},
      {"params", "parameters", "parameters", 1, "params", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.generator);
    const json& line = FirstLine(c.generator, "stated");
    Fact f = StoredFact(line);
    EXPECT_EQ(f.predicate, c.predicate);
    EXPECT_EQ(f.qualifiers, c.qualifiers);
    ASSERT_EQ(f.value.kind, ValueKind::kQuantity);
    EXPECT_EQ(f.value.dimension, c.dimension);
    const double written = line["value"].get<double>();
    EXPECT_DOUBLE_EQ(f.value.number, written * c.factor);
    EXPECT_EQ(line["unit"], c.unit);
    EXPECT_NE(f.value.original.find(c.unit), std::string::npos) << f.value.original;
  }
  // A plain number of a unitless dimension.
  Fact pcie = StoredFact(FirstLine("pcie_gen", "stated"));
  ASSERT_EQ(pcie.value.kind, ValueKind::kQuantity);
  EXPECT_EQ(pcie.value.number, FirstLine("pcie_gen", "stated")["value"].get<double>());
}

TEST_F(BulkImportTest, DatesTextEntitiesAndNotPublished) {
  const json& rel = FirstLine("release_date", "stated");
  Fact r = StoredFact(rel);
  EXPECT_EQ(r.predicate, "released");
  ASSERT_EQ(r.value.kind, ValueKind::kDate);
  EXPECT_EQ(r.value.date.ToString(), rel["value"].get<std::string>());
  EXPECT_EQ(r.value.date.precision, DatePrecision::kDay);

  const json& mt = FirstLine("memory_type", "stated");
  Fact t = StoredFact(mt);
  ASSERT_EQ(t.value.kind, ValueKind::kText);
  EXPECT_EQ(t.value.text, mt["value"].get<std::string>());

  // Organisation names: one the schema knows keeps the schema's id; others get org:<slug>.
  for (const json& l : *facts_) {
    if (l["predicate"] != "foundry" || l["status"] != "stated") continue;
    Fact f = StoredFact(l);
    ASSERT_EQ(f.value.kind, ValueKind::kEntity);
    EXPECT_EQ(f.value.original, l["value"].get<std::string>());
    if (l["value"] == "TSMC") {
      EXPECT_EQ(f.value.text, "org:tsmc");
    }
    auto org = store_->GetEntity(f.value.text);
    ASSERT_TRUE(org.ok()) << f.value.text;
    EXPECT_EQ(org->kind, "organization");
  }
  Fact dev = StoredFact(FirstLine("developer", "stated"));
  EXPECT_EQ(dev.predicate, "developer");
  EXPECT_EQ(dev.value.kind, ValueKind::kEntity);

  const json& np = FirstLine("fp8_tflops", "not_published");
  Fact n = StoredFact(np);
  EXPECT_EQ(n.predicate, "peak_throughput");
  EXPECT_EQ(n.qualifiers, (Qualifiers{{"format", "fp8"}}));
  EXPECT_EQ(n.value.kind, ValueKind::kNotPublished);
  EXPECT_EQ(n.provenance.excerpt, np["excerpt"].get<std::string>());
}

TEST_F(BulkImportTest, EverySpanRereadsItsExcerptAndProvenanceIsKept) {
  std::map<std::string, std::vector<const json*>> by_source;
  for (const json& l : *facts_) by_source[l["source"].get<std::string>()].push_back(&l);
  for (const json& s : *sources_) {
    const std::string id = s["source"].get<std::string>();
    SCOPED_TRACE(id);
    auto version = store_->GetDocumentVersion(id, 1);
    ASSERT_TRUE(version.ok()) << version.status().ToString();
    // The text is the source's excerpts in file order, one per line.
    std::string text;
    for (const json* l : by_source[id]) text += (*l)["excerpt"].get<std::string>() + "\n";
    EXPECT_EQ(version->text, text);
    EXPECT_EQ(version->content_hash, Sha256Hex(text));
    auto facts = store_->FactsFromDocument(id);
    ASSERT_TRUE(facts.ok());
    ASSERT_EQ(facts->size(), by_source[id].size());
    for (const Fact& f : *facts) {
      const Provenance& p = f.provenance;
      ASSERT_LE(p.span_end, version->text.size());
      EXPECT_EQ(version->text.substr(p.span_begin, p.span_end - p.span_begin), p.excerpt);
      EXPECT_EQ(p.document_id, id);
      EXPECT_EQ(p.document_version, 1u);
      EXPECT_EQ(p.rule, "bench-import");
      EXPECT_EQ(p.run_id, "test-run");
      ASSERT_TRUE(f.valid_as_of.has_value());
      EXPECT_EQ(f.valid_as_of->ToString(), s["as_of"].get<std::string>());
    }
  }
}

// The first pass read as two halves on two threads (as large corpora are) builds the same
// documents and facts as one thread does.
TEST_F(BulkImportTest, FirstPassSplitInTwoImportsTheSame) {
  auto split_store = Store::Open((*root_ / "store-split").string());
  ASSERT_TRUE(split_store.ok()) << split_store.status().ToString();
  BulkImportOptions options;
  options.run_id = "test-run";
  options.split_first_pass_from = 0;
  auto stats = ImportGeneratedCorpus(**split_store, *schema_, corpus_.string(), options);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->first_pass_threads, 2);
  EXPECT_EQ(stats_->first_pass_threads, 1);  // the suite's import: a small file is read on one thread
  EXPECT_EQ(stats->facts, stats_->facts);
  EXPECT_EQ(stats->bytes_read, stats_->bytes_read);
  size_t compared = 0;
  for (const json& src : *sources_) {
    const std::string doc = src["source"].get<std::string>();
    auto one = store_->GetDocumentVersion(doc, 1);
    auto two = (*split_store)->GetDocumentVersion(doc, 1);
    ASSERT_TRUE(one.ok() && two.ok()) << doc;
    EXPECT_EQ(one->text, two->text) << doc;
    EXPECT_EQ(one->content_hash, two->content_hash) << doc;
    auto a = store_->FactsFromDocument(doc);
    auto b = (*split_store)->FactsFromDocument(doc);
    ASSERT_TRUE(a.ok() && b.ok()) << doc;
    ASSERT_EQ(a->size(), b->size()) << doc;
    for (size_t i = 0; i < a->size(); ++i) {
      EXPECT_EQ((*a)[i].subject, (*b)[i].subject);
      EXPECT_EQ((*a)[i].provenance.span_begin, (*b)[i].provenance.span_begin);
      EXPECT_EQ((*a)[i].provenance.span_end, (*b)[i].provenance.span_end);
      EXPECT_EQ((*a)[i].provenance.excerpt, (*b)[i].provenance.excerpt);
      ++compared;
    }
  }
  EXPECT_EQ(compared, stats_->facts);
}

TEST_F(BulkImportTest, DocumentsKeepEverySourceField) {
  for (const json& s : *sources_) {
    const std::string id = s["source"].get<std::string>();
    SCOPED_TRACE(id);
    auto doc = store_->GetDocument(id);
    ASSERT_TRUE(doc.ok()) << doc.status().ToString();
    EXPECT_EQ(doc->url, s["url"].get<std::string>());
    EXPECT_EQ(doc->kind, s["kind"].get<std::string>());
    EXPECT_EQ(PublisherOfTitle(doc->title), s["publisher"].get<std::string>());
    EXPECT_EQ(doc->title, s["publisher"].get<std::string>() + ": " + s["title"].get<std::string>());
    std::string url = s["url"].get<std::string>();
    EXPECT_EQ(doc->site, url.substr(8, url.find('/', 8) - 8));
    auto v = store_->GetDocumentVersion(id, 1);
    ASSERT_TRUE(v.ok());
    ASSERT_TRUE(v->as_of.has_value());
    EXPECT_EQ(v->as_of->ToString(), s["as_of"].get<std::string>());
    EXPECT_EQ(v->fetched_at, UtcSeconds(s["retrieved"].get<std::string>()));
  }
}

TEST_F(BulkImportTest, SubjectsBecomeNamedEntities) {
  auto chip = store_->GetEntity("chip:c000000");
  ASSERT_TRUE(chip.ok()) << chip.status().ToString();
  EXPECT_EQ(chip->kind, "chip");
  EXPECT_EQ(chip->name, FirstLine("name", "stated")["value"].get<std::string>());
  auto model = store_->GetEntity("model:llama-3.1-70b");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->kind, "llm");
  EXPECT_EQ(model->name, "Llama 3.1 70B");
  auto found = store_->FindEntity("llama 3.1 70b");
  ASSERT_TRUE(found.ok());
}

// The five benchmark queries through the Store API; row counts as params.json expects.
TEST_F(BulkImportTest, BenchmarkQueriesReturnTheExpectedRowCounts) {
  const json& p = *params_;
  const json& want = p["expected_rows"];
  auto q1 = store_->FactsAbout(p["q1_chip"].get<std::string>());
  ASSERT_TRUE(q1.ok());
  EXPECT_EQ(q1->size(), want["Q1"].get<size_t>());

  ValueRange q2_range;
  q2_range.lower = Value::Quantity(p["q2_min_gb"].get<double>() * 1e9, "bytes", "");
  q2_range.kind = ValueKind::kQuantity;
  auto q2 = store_->FactsInRange("memory", q2_range);
  ASSERT_TRUE(q2.ok());
  EXPECT_EQ(q2->size(), want["Q2"].get<size_t>());

  auto params = store_->FactsAbout(p["q3_model"].get<std::string>(), "parameters");
  ASSERT_TRUE(params.ok());
  size_t q3 = 0;
  const double int4 = schema_->tables().at("bytes_per_parameter").at("int4");
  for (const Fact& pf : *params) {
    ValueRange r;
    r.lower = Value::Quantity(pf.value.number * int4, "bytes", "");
    r.kind = ValueKind::kQuantity;
    auto mem = store_->FactsInRange("memory", r);
    ASSERT_TRUE(mem.ok());
    q3 += mem->size();
  }
  EXPECT_EQ(q3, want["Q3"].get<size_t>());

  auto q4 = store_->FactsFromDocument(p["q4_source"].get<std::string>());
  ASSERT_TRUE(q4.ok());
  EXPECT_EQ(q4->size(), want["Q4"].get<size_t>());

  size_t q5 = 0;
  std::set<std::string> predicates;
  auto preds = GeneratedCorpusPredicates(*schema_);
  ASSERT_TRUE(preds.ok());
  for (const auto& gp : *preds) predicates.insert(gp.def->name);
  for (const std::string& pred : predicates) {
    auto all = store_->FactsInRange(pred, ValueRange{});
    ASSERT_TRUE(all.ok());
    std::map<std::pair<std::string, Qualifiers>, std::vector<const Fact*>> groups;
    for (const Fact& f : *all) {
      if (f.value.kind != ValueKind::kNotPublished) groups[{f.subject, f.qualifiers}].push_back(&f);
    }
    for (const auto& [key, g] : groups) {
      for (size_t a = 0; a < g.size(); ++a) {
        for (size_t b = a + 1; b < g.size(); ++b) q5 += !g[a]->value.SameContent(g[b]->value);
      }
    }
  }
  EXPECT_EQ(q5, want["Q5"].get<size_t>());
}

// ---------------------------------------------------------------------------------------------
// Bad input: refused with file and line, nothing written.

class BulkImportBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("bulk_bad");
    auto schema = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    schema_.emplace(std::move(schema).value());
    WriteFile(dir_ / "sources.jsonl",
              R"({"source": "src:a", "kind": "datasheet", "url": "https://a.example/x", "publisher": "A", )"
              R"("title": "A sheet", "as_of": "2024-01-02", "retrieved": "2024-02-03T04:05:06Z"})"
              "\n");
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  static std::string Line(const std::string& predicate, const std::string& value, const std::string& unit,
                          const std::string& status = "stated", const std::string& source = "src:a") {
    return R"({"subject": "chip:c1", "predicate": ")" + predicate + R"(", "value": )" + value + R"(, "unit": )" +
           unit + R"(, "source": ")" + source + R"(", "excerpt": "x \"quoted\" caf\u00e9", "as_of": "2024-01-02", )" +
           R"("status": ")" + status + "\"}\n";
  }

  // Imports facts.jsonl = `facts` into the test's store (opened on first use); a failed import
  // must leave it as empty as it was.
  Status Import(const std::string& facts, const BulkImportOptions& options = {}) {
    WriteFile(dir_ / "facts.jsonl", facts);
    if (store_ == nullptr) {
      auto store = Store::Open((dir_ / "store").string());
      EXPECT_TRUE(store.ok()) << store.status().ToString();
      if (!store.ok()) return store.status();
      store_ = std::move(store).value();
    }
    auto r = ImportGeneratedCorpus(*store_, *schema_, dir_.string(), options);
    auto st = store_->Statistics();
    EXPECT_TRUE(st.ok());
    if (!r.ok() && st.ok()) {
      EXPECT_EQ(st->facts, 0u);
      EXPECT_EQ(st->documents, 0u);
      EXPECT_EQ(st->entities, 0u);
    }
    return r.ok() ? Status::OK() : r.status();
  }

  fs::path dir_;
  std::optional<Schema> schema_;
  std::unique_ptr<Store> store_;
};

TEST_F(BulkImportBadInputTest, GoodLinesImport) {
  Status s = Import(Line("memory_capacity", "80", "\"GB\"") + Line("foundry", "null", "null", "not_published"));
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto facts = store_->FactsAbout("chip:c1");
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 2u);
  for (const auto& f : *facts) EXPECT_EQ(f.provenance.excerpt, "x \"quoted\" caf\xc3\xa9");
  auto v = store_->GetDocumentVersion("src:a", 1);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->text, "x \"quoted\" caf\xc3\xa9\nx \"quoted\" caf\xc3\xa9\n");
}

TEST_F(BulkImportBadInputTest, RefusedWithFileAndLine) {
  const std::string good = Line("memory_capacity", "80", "\"GB\"");
  struct Case {
    std::string second_line;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"subject\": \"chip:c1\"", "facts.jsonl:2: column 22: expected ',' or '}'"},
      {"not json\n", "facts.jsonl:2: column 1: expected '{'"},
      {Line("memory_capacity", "80", "\"GB\"").substr(0, 30) + "\n", "facts.jsonl:2: column 31: unterminated string"},
      {Line("no_such_thing", "1", "null"), "facts.jsonl:2: predicate \"no_such_thing\" has no `column peer-bench`"},
      {Line("memory_capacity", "80", "\"GB\"", "stated", "src:nowhere"), "facts.jsonl:2: source \"src:nowhere\""},
      {Line("memory_capacity", "80", "\"W\""), "facts.jsonl:2: unit \"W\" is not a unit of bytes"},
      {Line("memory_capacity", "80", "\"GB\"", "not_published"), "facts.jsonl:2: status not_published with a value"},
      {Line("memory_capacity", "80", "\"GB\"", "rumoured"), "facts.jsonl:2: status \"rumoured\""},
      {Line("memory_capacity", "\"eighty\"", "\"GB\""), "facts.jsonl:2: a number is expected"},
      {Line("release_date", "\"2024-02-30\"", "null"), "facts.jsonl:2: \"2024-02-30\" is not an ISO date"},
      {Line("memory_capacity", "[80]", "\"GB\""), "facts.jsonl:2: column 65: nested objects and arrays"},
      {Line("memory_capacity", "0x50", "\"GB\""), "facts.jsonl:2: column 66: expected ',' or '}'"},
      {Line("memory_capacity", "1e999", "\"GB\""), "facts.jsonl:2: column 65: number out of range"},
      {R"({"subject": "chip:c1", "subject": "chip:c2"})" "\n", "facts.jsonl:2: column 33: field \"subject\" appears twice"},
      {R"({"subject": "chip:c1", "extra": 1})" "\n", "facts.jsonl:2: column 31: unexpected field \"extra\""},
      {R"({"subject": "chip:c1"})" "\n", "facts.jsonl:2: column 23: missing field \"predicate\""},
      {R"({"subject": "chip:c1\ud800"})" "\n", "facts.jsonl:2: column 27: high surrogate without its low half"},
      {std::string("{\"subject\": \"a\tb\"}\n"), "facts.jsonl:2: column 15: control character inside a string"},
      {R"({"subject": 1, "predicate": "name", "value": "x", "unit": null, "source": "src:a", "excerpt": "e", )"
       R"("as_of": "2024-01-02", "status": "stated"})" "\n",
       "facts.jsonl:2: field \"subject\" must be a string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.second_line);
    for (bool pipeline : {true, false}) {
      BulkImportOptions options;
      options.pipeline = pipeline;
      Status s = Import(good + c.second_line + good, options);
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.message().find(c.message), std::string::npos) << s.message();
    }
  }
}

// A first pass split in two joins the halves in file order, whatever the last line looks like,
// and a bad line in either half is named by its line.
TEST_F(BulkImportBadInputTest, SplitFirstPassKeepsFileOrderAndNamesTheLineOfAnError) {
  auto line = [](int i, const std::string& source = "src:a") {
    return R"({"subject": "chip:c1", "predicate": "memory_capacity", "value": )" + std::to_string(i) +
           R"(, "unit": "GB", "source": ")" + source + R"(", "excerpt": "e)" + std::to_string(i) +
           R"(", "as_of": "2024-01-02", "status": "stated"})" "\n";
  };
  std::string facts, want;
  for (int i = 1; i <= 40; ++i) {
    facts += line(i);
    want += "e" + std::to_string(i) + "\n";
  }
  BulkImportOptions options;
  options.split_first_pass_from = 0;

  Status s = Import(facts + line(41, "src:nowhere") + line(42), options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("facts.jsonl:41: source \"src:nowhere\""), std::string::npos) << s.message();
  s = Import(line(1) + "not json\n" + facts, options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("facts.jsonl:2: column 1: expected '{'"), std::string::npos) << s.message();

  // CRLF line ends and no newline after the last line.
  std::string crlf;
  for (int i = 1; i <= 40; ++i) {
    std::string l = line(i);
    l.insert(l.size() - 1, "\r");
    crlf += l;
  }
  std::string last = line(41);
  last.pop_back();
  s = Import(crlf + last, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto v = store_->GetDocumentVersion("src:a", 1);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->text, want + "e41\n");
}

TEST_F(BulkImportBadInputTest, SourcesAreCheckedToo) {
  WriteFile(dir_ / "sources.jsonl",
            R"({"source": "src:a", "kind": "datasheet", "url": "https://a.example/x", "publisher": "A", )"
            R"("title": "A", "as_of": "2024-01-02", "retrieved": "yesterday"})" "\n");
  Status s = Import(Line("memory_capacity", "80", "\"GB\""));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sources.jsonl:1: retrieved \"yesterday\""), std::string::npos) << s.message();
  fs::remove(dir_ / "sources.jsonl");
  s = Import(Line("memory_capacity", "80", "\"GB\""));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("sources.jsonl"), std::string::npos) << s.message();
}

// The reader on its own: escapes, numbers, blank lines, a last line without a newline.
TEST(GeneratedFactsReaderTest, DecodesEscapesAndNumbers) {
  fs::path dir = MakeTempDir("bulk_reader");
  WriteFile(dir / "f.jsonl",
            "\n"
            R"({"status": "stated", "subject": "s\\1", "predicate": "p", "value": -1.5e3, "unit": null, )"
            R"("source": "q", "excerpt": "\"\/\b\f\n\r\t\u00e9\ud83d\ude00", "as_of": "2024"})"
            "\n  \n"
            R"({"subject": "s2", "predicate": "p", "value": "v\u0041", "unit": "GB", "source": "q", )"
            R"("excerpt": "", "as_of": "2024", "status": "stated"})");
  std::vector<std::vector<std::string>> seen;
  Status s = ReadGeneratedFacts((dir / "f.jsonl").string(), [&](const GeneratedFactRecord& r) {
    seen.push_back({std::to_string(r.line), std::string(r.subject), std::string(r.excerpt), std::string(r.unit),
                    std::string(r.value_text), std::to_string(static_cast<int>(r.value_type)),
                    std::to_string(r.number)});
    return Status::OK();
  });
  fs::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0][0], "2");
  EXPECT_EQ(seen[0][1], "s\\1");
  EXPECT_EQ(seen[0][2], "\"/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(seen[0][3], "");
  EXPECT_EQ(seen[0][4], "-1.5e3");
  EXPECT_EQ(seen[0][5], "1");
  EXPECT_EQ(std::stod(seen[0][6]), -1500.0);
  EXPECT_EQ(seen[1][0], "4");
  EXPECT_EQ(seen[1][4], "vA");
  EXPECT_EQ(seen[1][3], "GB");
  EXPECT_EQ(seen[1][5], "2");
}

// Random strings of every length around the reader's 8-byte steps, with quotes, backslashes,
// control characters and UTF-8 at every offset, written by nlohmann::json and read back.
TEST(GeneratedFactsReaderTest, RoundTripsRandomStringsWrittenByNlohmann) {
  fs::path dir = MakeTempDir("bulk_reader");
  std::mt19937 rng(12345);
  const std::vector<std::string> pieces = {"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\x7f",
                                           "\xc3\xa9", "\xf0\x9f\x98\x80", "0", ":", ",", "{", "}"};
  std::vector<std::string> excerpts;
  std::string text;
  for (int i = 0; i < 400; ++i) {
    std::string e;
    const int len = static_cast<int>(rng() % 40);
    for (int k = 0; k < len; ++k) e += pieces[rng() % pieces.size()];
    excerpts.push_back(e);
    json line = {{"subject", "s" + std::to_string(i)}, {"predicate", "p"}, {"value", i % 3 == 0 ? json(e) : json(i * 0.5)},
                 {"unit", nullptr}, {"source", "q"}, {"excerpt", e}, {"as_of", "2024"}, {"status", "stated"}};
    text += line.dump(-1, ' ', i % 2 == 0) + "\n";  // every other line with \uXXXX escapes for non-ASCII
  }
  WriteFile(dir / "f.jsonl", text);
  size_t n = 0;
  Status s = ReadGeneratedFacts((dir / "f.jsonl").string(), [&](const GeneratedFactRecord& r) {
    EXPECT_EQ(r.excerpt, excerpts[n]) << "line " << r.line;
    if (n % 3 == 0) {
      EXPECT_EQ(r.value_type, GeneratedFactRecord::ValueType::kString);
      EXPECT_EQ(r.value_text, excerpts[n]);
    } else {
      EXPECT_EQ(r.value_type, GeneratedFactRecord::ValueType::kNumber);
      EXPECT_EQ(r.number, static_cast<double>(n) * 0.5);
    }
    ++n;
    return Status::OK();
  });
  fs::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(n, excerpts.size());
}

TEST(GeneratedFactsReaderTest, CallbackErrorsCarryTheLine) {
  fs::path dir = MakeTempDir("bulk_reader");
  std::string line = R"({"subject": "s", "predicate": "p", "value": null, "unit": null, "source": "q", )"
                     R"("excerpt": "", "as_of": "2024", "status": "stated"})" "\n";
  WriteFile(dir / "f.jsonl", line + line + line);
  int calls = 0;
  Status s = ReadGeneratedFacts((dir / "f.jsonl").string(), [&](const GeneratedFactRecord& r) {
    ++calls;
    return r.line == 2 ? Status::InvalidArgument("stop here") : Status::OK();
  });
  fs::remove_all(dir);
  EXPECT_EQ(calls, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("f.jsonl:2: stop here"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace chipkg
