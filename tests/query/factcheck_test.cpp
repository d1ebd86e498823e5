// The fact-checker's reports on a real store in a temporary directory: first
// on hand-written documents (every number known), then on the bundled seeds
// ingested through the real pipeline.
#include "query/factcheck.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/store.h"
#include "ingest/pipeline.h"
#include "query/query.h"
#include "query/value_json.h"
#include "schema/schema.h"
#include "tests/common/temp_dir.h"

namespace chipkg::factcheck {
namespace {

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("chipkg-factcheck") {}
};

const Schema& TheSchema() {
  static const Schema* schema = [] {
    auto s = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? new Schema(std::move(*s)) : new Schema();
  }();
  return *schema;
}

// A fact whose excerpt is the `nth` occurrence of `excerpt` in `text`.
Fact At(const std::string& text, const std::string& doc, const std::string& excerpt, const EntityId& subject,
        const std::string& predicate, Value value, Qualifiers qualifiers = {}, int nth = 0) {
  size_t at = text.find(excerpt);
  for (int i = 0; i < nth && at != std::string::npos; ++i) at = text.find(excerpt, at + 1);
  EXPECT_NE(at, std::string::npos) << excerpt;
  Fact f;
  f.subject = subject;
  f.predicate = predicate;
  f.value = std::move(value);
  f.qualifiers = std::move(qualifiers);
  f.provenance.document_id = doc;
  f.provenance.section = "Specs";
  f.provenance.span_begin = static_cast<uint32_t>(at);
  f.provenance.span_end = static_cast<uint32_t>(at + excerpt.size());
  f.provenance.excerpt = excerpt;
  f.provenance.rule = "test-rule";
  f.provenance.rule_version = "1";
  return f;
}

Fact Derived(Fact f, const std::string& formula) {
  f.provenance.derivation = Derivation::kStatedDerived;
  f.provenance.formula = formula;
  return f;
}

const char* kPageA =
    "Chip X datasheet\n"
    "Memory: 32 GB HBM2e at 820 GB/s.\n"
    "BF16 (dense): 210 TFLOPS. TDP: 500 W.\n"
    "Perf per watt: 0.42 TFLOPS/W (210 TFLOPS / 500 W).\n"
    "Careless figure: 0.50 TFLOPS/W.\n"
    "Fabbed at: TSMC. Released 2022-10-01.\n";
const char* kPageB =
    "Chip X dossier\n"
    "3.4 PFLOPS of BF16 compute per 16-chip server, 32 GiB of HBM per chip at 820 GB/s.\n"
    "AWS has not named a foundry. General availability 2022-10.\n"
    "The x.32xlarge instance has 16 chips.\n";
const char* kTable = "name,bandwidth\nChip X,9.8e12\n";

class FactcheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.str() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
    ASSERT_TRUE(store_->PutEntity({"chip:x", "chip", "Chip X", {"X1", "Xchip"}}).ok());
    ASSERT_TRUE(store_->PutEntity({"org:tsmc", "organization", "TSMC", {}}).ok());
    ASSERT_TRUE(store_->PutEntity({"instance:x.32xlarge", "instance_type", "x.32xlarge", {}}).ok());
    const Schema& schema = TheSchema();
    auto q = [&](const std::string& text, const std::string& dim) {
      auto p = schema.ParseQuantity(text, dim);
      EXPECT_TRUE(p.has_value()) << text;
      return Value::Quantity(p ? p->canonical : 0, dim, text);
    };
    std::string a = kPageA;
    std::vector<Fact> fa = {
        At(a, "doc-a", "32 GB", "chip:x", "memory", q("32 GB", "bytes")),
        At(a, "doc-a", "820 GB/s", "chip:x", "memory_bandwidth", q("820 GB/s", "bytes_per_second")),
        At(a, "doc-a", "210 TFLOPS", "chip:x", "peak_throughput", q("210 TFLOPS", "ops_per_second"),
           {{"format", "bf16"}, {"sparsity", "dense"}}),
        At(a, "doc-a", "500 W", "chip:x", "tdp", q("500 W", "watts")),
        Derived(At(a, "doc-a", "0.42 TFLOPS/W", "chip:x", "perf_per_watt", q("0.42 TFLOPS/W", "ops_per_watt"),
                   {{"format", "bf16"}}),
                "210 TFLOPS / 500 W"),
        Derived(At(a, "doc-a", "0.50 TFLOPS/W", "chip:x", "perf_per_watt", q("0.50 TFLOPS/W", "ops_per_watt"),
                   {{"format", "bf16"}}),
                "210 TFLOPS / 500 W"),
        At(a, "doc-a", "TSMC", "chip:x", "foundry", Value::Entity("org:tsmc", "TSMC")),
        At(a, "doc-a", "2022-10-01", "chip:x", "released",
           Value::OfDate(*Date::Parse("2022-10-01"), "2022-10-01")),
    };
    Write("doc-a", "Page A", "vendor", a, fa);
    std::string b = kPageB;
    std::vector<Fact> fb = {
        At(b, "doc-b", "3.4 PFLOPS", "chip:x", "peak_throughput", q("3.4 PFLOPS", "ops_per_second"),
           {{"format", "bf16"}, {"scope", "server"}, {"chips", "16"}}),
        At(b, "doc-b", "32 GiB", "chip:x", "memory", q("32 GiB", "bytes"), {{"scope", "chip"}}),
        At(b, "doc-b", "820 GB/s", "chip:x", "memory_bandwidth", q("820 GB/s", "bytes_per_second")),
        At(b, "doc-b", "has not named a foundry", "chip:x", "foundry",
           Value::NotPublished("has not named a foundry")),
        At(b, "doc-b", "2022-10", "chip:x", "released", Value::OfDate(*Date::Parse("2022-10"), "2022-10")),
        At(b, "doc-b", "x.32xlarge", "instance:x.32xlarge", "accelerator", Value::Entity("chip:x", "Chip X")),
        At(b, "doc-b", "16 chips", "instance:x.32xlarge", "chips", Value::Quantity(16, "count", "16 chips")),
    };
    for (auto& f : fb) f.provenance.citations = {"4"};
    fb[0].provenance.attribution = "AWS's own published figure";
    Write("doc-b", "Page B", "press", b, fb);
    std::string t = kTable;
    Fact bw = At(t, "doc-t", "9.8e12", "chip:x", "memory_bandwidth",
                 Value::Quantity(9.8e12, "bytes_per_second", "9.8e12"));
    bw.provenance.row = 1;
    bw.provenance.column = "bandwidth";
    bw.provenance.note = "to do: check";
    Write("doc-t", "Table", "aggregator", t, {bw});
  }

  // A figure as a page writes it, read as the schema reads it.
  static Value Written(const std::string& text, const std::string& dim) {
    auto p = TheSchema().ParseQuantity(text, dim);
    EXPECT_TRUE(p.has_value()) << text;
    return Value::Quantity(p ? p->canonical : 0, dim, text);
  }
  // kPerfPerWattLine's three claims about chip:x, read from `text` of `doc`:
  // a perf per watt the page computed from the two figures before it.
  static constexpr char kPerfPerWattLine[] = "BF16 (dense): 200 TFLOPS. TDP: 400 W. Perf per watt: 0.5 TFLOPS/W.\n";
  static std::vector<Fact> PerfPerWattFacts(const std::string& text, const std::string& doc) {
    return {At(text, doc, "200 TFLOPS", "chip:x", "peak_throughput", Written("200 TFLOPS", "ops_per_second"),
               {{"format", "bf16"}, {"sparsity", "dense"}}),
            At(text, doc, "400 W", "chip:x", "tdp", Written("400 W", "watts")),
            Derived(At(text, doc, "0.5 TFLOPS/W", "chip:x", "perf_per_watt", Written("0.5 TFLOPS/W", "ops_per_watt"),
                       {{"format", "bf16"}}),
                    "200 TFLOPS / 400 W")};
  }

  void Write(const std::string& id, const std::string& title, const std::string& kind,
             const std::string& text, std::vector<Fact> facts) {
    Document doc;
    doc.id = id;
    doc.url = "file:///" + id + ".txt";
    doc.title = title;
    doc.kind = kind;
    DocumentVersion v;
    v.document_id = id;
    v.text = text;
    v.fetched_at = 1700000000;
    v.as_of = Date::Parse("2024-01-01");
    auto w = store_->WriteDocumentVersion(doc, v, std::move(facts), "test-run-" + id);
    ASSERT_TRUE(w.ok()) << w.status().message();
  }

  const AttributeSummary* FindAttr(const std::vector<AttributeSummary>& list, const std::string& label) {
    for (const auto& a : list) {
      if (a.label == label) return &a;
    }
    return nullptr;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(FactcheckTest, DescribeGroupsAgreeingClaimsAndShowsConflicts) {
  auto p = Describe(*store_, TheSchema(), "xchip");  // an alias, any case
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->entity.id, "chip:x");

  const AttributeSummary* memory = FindAttr(p->attributes, "memory");
  ASSERT_NE(memory, nullptr);
  ASSERT_EQ(memory->groups.size(), 2u);
  ASSERT_EQ(memory->differences.size(), 1u);
  EXPECT_EQ(memory->differences[0].comparison.size, "7.4%");

  const AttributeSummary* bandwidth = FindAttr(p->attributes, "memory_bandwidth");
  ASSERT_NE(bandwidth, nullptr);
  ASSERT_EQ(bandwidth->groups.size(), 2u);
  EXPECT_EQ(bandwidth->groups[0].claims.size(), 2u);  // both pages' 820 GB/s: one value, two citations
  EXPECT_EQ(bandwidth->groups[0].documents, 2u);

  const AttributeSummary* foundry = FindAttr(p->attributes, "foundry");
  ASSERT_NE(foundry, nullptr);
  ASSERT_EQ(foundry->differences.size(), 1u);
  EXPECT_EQ(foundry->differences[0].comparison.kind, DifferenceKind::kNotPublished);
  EXPECT_EQ(foundry->groups[0].display, "TSMC");
  EXPECT_EQ(foundry->groups[1].display, "not published");

  const AttributeSummary* bf16 = FindAttr(p->attributes, "peak_throughput {format=bf16}");
  ASSERT_NE(bf16, nullptr);
  ASSERT_EQ(bf16->differences.size(), 1u);
  EXPECT_EQ(bf16->differences[0].comparison.size, "1.2%");
  EXPECT_EQ(bf16->groups[1].claims[0].per_chip_display, "212.5 TFLOPS per chip");

  // Month-precision release agrees with the day; no conflict there.
  const AttributeSummary* released = FindAttr(p->attributes, "released");
  ASSERT_NE(released, nullptr);
  EXPECT_FALSE(released->conflict());

  ASSERT_EQ(p->referenced_by.size(), 1u);
  EXPECT_EQ(p->referenced_by[0].subject, "instance:x.32xlarge");

  // Citations are numbered in order of use and point at real excerpts.
  for (size_t i = 0; i < p->citations.size(); ++i) {
    EXPECT_EQ(p->citations[i].number, static_cast<int>(i) + 1);
    EXPECT_FALSE(p->citations[i].excerpt.empty());
    EXPECT_EQ(p->citations[i].fetched_at, 1700000000);
  }
  std::string text = Render(*p, Format::kText);
  EXPECT_NE(text.find("32 GB vs 32 GiB: 7.4%"), std::string::npos) << text;
  EXPECT_NE(text.find("TSMC vs not published"), std::string::npos) << text;
  EXPECT_NE(text.find("Page B <file:///doc-b.txt>"), std::string::npos) << text;
  auto json = nlohmann::json::parse(Render(*p, Format::kJson));
  EXPECT_EQ(json["entity"]["id"], "chip:x");
  EXPECT_FALSE(json["citations"].empty());
  std::string csv = Render(*p, Format::kCsv);
  EXPECT_EQ(csv.rfind("entity,attribute,value", 0), 0u);
  // The instance naming Chip X as its accelerator, with the page that says so.
  EXPECT_NE(csv.find("chip:x,referenced by: accelerator of,x.32xlarge,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",doc-b,Page B,file:///doc-b.txt,"), std::string::npos) << csv;
}

// A value reads the same in every command's JSON: `describe` shows a yes/no
// figure under "bool", as a query answer does (query/value_json.h), where it
// once wrote "value" instead.
TEST_F(FactcheckTest, DescribeJsonShowsValuesAsQueryAnswersDo) {
  const std::string page = "Chip X safety sheet\nSafety-critical: yes.\n";
  Write("doc-s", "Safety sheet", "vendor", page,
        {At(page, "doc-s", "yes", "chip:x", "safety_critical", Value::Bool(true, "yes"))});
  auto p = Describe(*store_, TheSchema(), "chip:x");
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto json = nlohmann::json::parse(Render(*p, Format::kJson));
  const nlohmann::json* shown = nullptr;
  for (const auto& a : json["attributes"]) {
    if (a["predicate"] == "safety_critical") shown = &a["values"][0]["claims"][0]["value"];
  }
  ASSERT_NE(shown, nullptr) << json.dump(2);
  ASSERT_EQ(*shown, query::ValueJson(Value::Bool(true, "yes")));  // ASSERT: the keys below are read from a const object
  EXPECT_EQ((*shown)["kind"], "bool");
  EXPECT_EQ((*shown)["bool"], true);
  EXPECT_EQ((*shown)["original"], "yes");
}

// A citation reads the same in a query answer and in a trace
// (query/citation_json.h): a script that follows a figure from one into the
// other finds its fact, document, version and passage under the same keys
// (they once differed: "fact" against "fact_id", the version inside the
// document or beside it, times as text against Unix seconds, a claim's
// "document" an id where a citation's is an object).
TEST_F(FactcheckTest, QueryAndTraceCiteAFactInOneShape) {
  const std::string dated = "Chip X brief, June 2023: 830 GB/s of bandwidth.\n";
  Fact bw = At(dated, "doc-d", "830 GB/s", "chip:x", "memory_bandwidth",
               Value::Quantity(830e9, "bytes_per_second", "830 GB/s"));
  bw.valid_as_of = Date::Parse("2023-06");
  Write("doc-d", "Brief", "press", dated, {bw});
  auto answer = query::RunQuery(*store_, TheSchema(), "\"Chip X\".memory_bandwidth");
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  const auto from_query = nlohmann::json::parse(query::Render(*answer, query::Format::kJson));
  auto traced = Trace(*store_, TheSchema(), "Chip X.memory_bandwidth");
  ASSERT_TRUE(traced.ok()) << traced.status().message();
  const auto from_trace = nlohmann::json::parse(Render(*traced, Format::kJson));

  std::map<uint64_t, nlohmann::json> traced_by_fact;
  for (const auto& claim : from_trace["claims"]) {
    traced_by_fact[claim["source"]["fact_id"].get<uint64_t>()] = claim["source"];
    // A key names one thing: "document" is always the object, the id alone is "document_id".
    EXPECT_EQ(claim["document_id"], claim["source"]["document"]["id"]) << claim.dump(2);
    // Times as every output writes them; the transaction's microseconds beside, for ordering.
    EXPECT_EQ(claim["asserted"]["time"].get<std::string>().size(), std::string("2026-12-04T19:06:17Z").size());
    EXPECT_EQ(claim["asserted"]["time"].get<std::string>().back(), 'Z');
  }
  ASSERT_EQ(traced_by_fact.size(), 4u) << from_trace.dump(2);
  ASSERT_EQ(from_query["citations"].size(), 4u) << from_query.dump(2);
  bool saw_dataset_row = false, saw_valid_as_of = false;
  for (const auto& cited : from_query["citations"]) {
    ASSERT_TRUE(cited.contains("fact_id")) << cited.dump(2);
    const auto it = traced_by_fact.find(cited["fact_id"].get<uint64_t>());
    ASSERT_NE(it, traced_by_fact.end()) << cited.dump(2);
    const nlohmann::json& same = it->second;
    EXPECT_EQ(cited["document"], same["document"]);
    EXPECT_EQ(cited["version"], same["version"]) << cited.dump(2) << same.dump(2);
    EXPECT_EQ(cited["version"]["fetched_at"], "2023-11-14T22:13:20Z");
    EXPECT_EQ(cited["version"]["as_of"], "2024-01-01");  // the version's own date
    EXPECT_EQ(cited["version"]["content_hash"].get<std::string>().size(), 64u);  // which text exactly
    for (const char* key :
         {"valid_as_of", "section", "excerpt", "attribution", "cites", "row", "column", "formula"}) {
      EXPECT_EQ(cited.contains(key), same.contains(key)) << key << "\n" << cited.dump(2) << same.dump(2);
      if (cited.contains(key)) {
        EXPECT_EQ(cited[key], same[key]) << key;
      }
    }
    saw_dataset_row = saw_dataset_row || cited.contains("row");
    if (cited.contains("valid_as_of")) {
      saw_valid_as_of = true;
      EXPECT_EQ(cited["valid_as_of"], "2023-06");  // the claim's date, not its version's
    }
  }
  EXPECT_TRUE(saw_dataset_row) << "the table's claim cites its row and column";
  EXPECT_TRUE(saw_valid_as_of) << "the brief's claim holds as of June 2023";
}

// Each fact-checker's CSV carries a claim's date and a dataset row's note,
// as its text and JSON do: the date often explains two sources' disagreement.
TEST_F(FactcheckTest, FactCheckerCsvsCarryEachClaimsDateAndNote) {
  const std::string dated = "Chip X brief, June 2023: 830 GB/s of bandwidth.\n";
  Fact bw = At(dated, "doc-d", "830 GB/s", "chip:x", "memory_bandwidth",
               Value::Quantity(830e9, "bytes_per_second", "830 GB/s"));
  bw.valid_as_of = Date::Parse("2023-06");
  bw.provenance.note = "Source for bandwidth: https://example.org/brief";
  Write("doc-d", "Brief", "press", dated, {bw});
  // Records of a CSV, quoted fields (commas, quotes, line breaks) read whole.
  auto records = [](const std::string& csv) {
    std::vector<std::vector<std::string>> out(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t i = 0; i < csv.size(); ++i) {
      const char c = csv[i];
      if (quoted) {
        if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') {
          out.back().back() += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          out.back().back() += c;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.back().emplace_back();
      } else if (c == '\n') {
        out.emplace_back(1);
      } else {
        out.back().back() += c;
      }
    }
    if (out.back().size() == 1 && out.back()[0].empty()) out.pop_back();
    return out;
  };
  auto check = [&](const std::string& what, const std::string& csv) {
    SCOPED_TRACE(what);
    const auto rows = records(csv);
    ASSERT_FALSE(rows.empty());
    const auto& header = rows[0];
    const auto date = std::find(header.begin(), header.end(), "valid_as_of") - header.begin();
    const auto note = std::find(header.begin(), header.end(), "note") - header.begin();
    ASSERT_LT(static_cast<size_t>(date), header.size()) << csv.substr(0, 400);
    ASSERT_LT(static_cast<size_t>(note), header.size()) << csv.substr(0, 400);
    size_t dated_rows = 0;
    for (size_t r = 1; r < rows.size(); ++r) {
      ASSERT_EQ(rows[r].size(), header.size()) << "row " << r << " of\n" << csv;
      if (rows[r][date] == "2023-06") {
        ++dated_rows;
        EXPECT_EQ(rows[r][note], "Source for bandwidth: https://example.org/brief");
      } else {
        EXPECT_NE(rows[r][note], "Source for bandwidth: https://example.org/brief");
      }
    }
    EXPECT_GE(dated_rows, 1u) << csv;
  };
  auto profile = Describe(*store_, TheSchema(), "Chip X");
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  check("describe", Render(*profile, Format::kCsv));
  auto traced = Trace(*store_, TheSchema(), "Chip X.memory_bandwidth");
  ASSERT_TRUE(traced.ok()) << traced.status().message();
  const std::string trace_csv = Render(*traced, Format::kCsv);
  check("trace", trace_csv);
  // Trace's own last columns keep their places before the new ones.
  EXPECT_NE(trace_csv.find(",retracted_later_by_tx,still_in_version,still_in_content_hash,valid_as_of,note,formula\n"),
            std::string::npos)
      << trace_csv.substr(0, 400);
  auto conflicts = Conflicts(*store_, TheSchema(), "Chip X");
  ASSERT_TRUE(conflicts.ok()) << conflicts.status().message();
  check("conflicts", Render(*conflicts, Format::kCsv));
  auto history = History(*store_, TheSchema(), "Chip X.memory_bandwidth");
  ASSERT_TRUE(history.ok()) << history.status().message();
  check("history", Render(*history, Format::kCsv));
}

TEST_F(FactcheckTest, ConflictsHonourTheToleranceAndFlagImplausibleFigures) {
  auto r = Conflicts(*store_, TheSchema(), "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::set<std::string> labels;
  for (const auto& a : r->conflicts) labels.insert(a.label);
  EXPECT_TRUE(labels.count("memory"));
  EXPECT_TRUE(labels.count("foundry"));
  EXPECT_TRUE(labels.count("peak_throughput {format=bf16}"));
  EXPECT_TRUE(labels.count("memory_bandwidth"));
  EXPECT_FALSE(labels.count("released"));

  const AttributeSummary* bw = FindAttr(r->conflicts, "memory_bandwidth");
  ASSERT_NE(bw, nullptr);
  ASSERT_EQ(bw->flags.size(), 1u);
  EXPECT_EQ(bw->groups[bw->flags[0].group].display, "9800 GB/s");
  ASSERT_TRUE(bw->flags[0].chips.has_value());
  EXPECT_EQ(*bw->flags[0].chips, 16);
  EXPECT_NE(bw->flags[0].message.find("likely a per-server/instance figure"), std::string::npos)
      << bw->flags[0].message;
  EXPECT_NE(bw->flags[0].message.find("612.5 GB/s"), std::string::npos) << bw->flags[0].message;

  Options loose;
  loose.compare.tolerance = 0.02;
  auto r2 = Conflicts(*store_, TheSchema(), "Chip X", loose);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(FindAttr(r2->conflicts, "peak_throughput {format=bf16}"), nullptr);  // 1.2% < 2%
  EXPECT_NE(FindAttr(r2->conflicts, "memory"), nullptr);                         // 7.4% > 2%
  // Only shown claims are cited.
  for (const auto& a : r2->conflicts) {
    for (const auto& g : a.groups) {
      for (const auto& c : g.claims) EXPECT_LE(c.citation, static_cast<int>(r2->citations.size()));
    }
  }
  auto csv = Render(*r, Format::kCsv);
  EXPECT_NE(csv.find("likely a per-server/instance figure"), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(Render(*r, Format::kJson), nullptr, false).is_discarded());
}

TEST_F(FactcheckTest, TraceRereadsTheStoredTextAndTracesDerivations) {
  auto t = Trace(*store_, TheSchema(), "Chip X.memory_bandwidth");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->claims.size(), 3u);
  for (const auto& c : t->claims) {
    EXPECT_TRUE(c.excerpt_verified) << c.text_problem;
    EXPECT_EQ(c.at, c.citation.excerpt);
    EXPECT_FALSE(c.retracted.has_value());
  }
  EXPECT_NE(t->claims[0].after.find("Perf per watt"), std::string::npos);  // context after the span
  const TracedClaim& table = t->claims[2];
  EXPECT_EQ(table.citation.row, 1);
  EXPECT_EQ(table.citation.column, "bandwidth");
  EXPECT_EQ(table.citation.note, "to do: check");
  std::string text = Render(*t, Format::kText);
  EXPECT_NE(text.find("\xC2\xBB"
                      "820 GB/s"
                      "\xC2\xAB"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("row 1, column \"bandwidth\""), std::string::npos) << text;

  // perf_per_watt: the pages' own figures, and the schema's formula on every input.
  auto d = Trace(*store_, TheSchema(), "x1 perf_per_watt");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->claims.size(), 2u);
  ASSERT_TRUE(d->derived.has_value());
  EXPECT_EQ(d->derived->formula, "peak_throughput / tdp");
  ASSERT_EQ(d->derived->values.size(), 2u);  // 210 TFLOPS and 3.4 PFLOPS/16, each over 500 W
  EXPECT_DOUBLE_EQ(d->derived->values[0].value, 210e12 / 500);
  EXPECT_EQ(d->derived->values[0].display, "0.42 TFLOPS/W");
  EXPECT_EQ(d->derived->values[0].working, "210 TFLOPS / 500 W");
  EXPECT_NE(d->derived->values[0].support.find(" and "), std::string::npos);
  EXPECT_DOUBLE_EQ(d->derived->values[1].value, 212.5e12 / 500);
  ASSERT_EQ(d->derived->inputs.size(), 2u);
  EXPECT_EQ(d->derived->inputs[0].claims.size(), 2u);
  // In CSV a derived row says what it is computed from (its citation column) and how (its rule).
  const std::string derived_csv = Render(*d, Format::kCsv);
  const size_t derived_row = derived_csv.find("\nderived perf_per_watt," + d->derived->values[0].support + ",0.42 TFLOPS/W,");
  ASSERT_NE(derived_row, std::string::npos) << derived_csv;
  const std::string line = derived_csv.substr(derived_row + 1, derived_csv.find('\n', derived_row + 1) - derived_row - 1);
  EXPECT_NE(line.find("210 TFLOPS / 500 W  from "), std::string::npos) << line;
  EXPECT_NE(line.find(",perf_per_watt = peak_throughput / tdp,"), std::string::npos) << line;

  auto bad = Trace(*store_, TheSchema(), "Chip X.memroy");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("did you mean 'memory'"), std::string::npos)
      << bad.status().message();
  auto nobody = Trace(*store_, TheSchema(), "Chip Y.memory");
  ASSERT_FALSE(nobody.ok());
  EXPECT_TRUE(nobody.status().IsNotFound());
  // Words after a known attribute are what is wrong, not an attribute of that name.
  auto extra = Trace(*store_, TheSchema(), "Chip X.memory extra words");
  ASSERT_FALSE(extra.ok());
  EXPECT_TRUE(extra.status().IsInvalidArgument());
  EXPECT_EQ(extra.status().message(),
            "unexpected 'extra words' after 'Chip X.memory': one ENTITY.ATTRIBUTE, nothing after it");
}

TEST_F(FactcheckTest, VerifyConfirmsRoundedArithmeticAndCatchesMistakes) {
  auto v = Verify(*store_, TheSchema(), "doc-a");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->items.size(), 2u);
  EXPECT_EQ(v->confirmed, 1u);
  EXPECT_EQ(v->mismatched, 1u);
  const VerifyItem& ok = v->items[0];
  EXPECT_EQ(ok.status, "confirmed");
  EXPECT_EQ(ok.stated.display, "0.42 TFLOPS/W");
  ASSERT_TRUE(ok.recomputed.has_value());
  EXPECT_DOUBLE_EQ(*ok.recomputed, 4.2e11);
  EXPECT_NEAR(ok.check.relative_tolerance, 0.005 / 0.42, 1e-9);
  EXPECT_EQ(ok.input_citations.size(), 2u);
  const VerifyItem& bad = v->items[1];
  EXPECT_EQ(bad.status, "mismatch");
  EXPECT_NE(bad.reason.find("0.50 TFLOPS/W"), std::string::npos) << bad.reason;
  std::string text = Render(*v, Format::kText);
  EXPECT_NE(text.find("1 confirmed, 1 mismatched"), std::string::npos) << text;
  auto json = nlohmann::json::parse(Render(*v, Format::kJson));
  EXPECT_EQ(json["items"][0]["status"], "confirmed");
  // The document checked, by id: "document" names a citation's object wherever it appears.
  EXPECT_EQ(json["document_id"], "doc-a") << json.dump(2);
  EXPECT_FALSE(json.contains("document")) << json.dump(2);

  // A tolerance wide enough forgives the careless figure.
  Options loose;
  loose.verify_tolerance = 0.2;
  auto v2 = Verify(*store_, TheSchema(), "Page A", loose);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->confirmed, 2u);

  auto missing = Verify(*store_, TheSchema(), "no-such-doc");
  EXPECT_TRUE(missing.status().IsNotFound());

  // Only what was not confirmed, its citations numbered from 1; the counts still cover both.
  Options problems;
  problems.verify_problems_only = true;
  auto p = Verify(*store_, TheSchema(), "doc-a", problems);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->items.size(), 1u);
  EXPECT_EQ(p->items[0].status, "mismatch");
  EXPECT_EQ(p->confirmed, 1u);
  EXPECT_EQ(p->mismatched, 1u);
  std::set<int> used{p->items[0].stated.citation};
  used.insert(p->items[0].input_citations.begin(), p->items[0].input_citations.end());
  ASSERT_EQ(p->citations.size(), used.size());
  for (size_t k = 0; k < p->citations.size(); ++k) {
    EXPECT_EQ(p->citations[k].number, static_cast<int>(k + 1));
    EXPECT_TRUE(used.count(p->citations[k].number)) << p->citations[k].number;
  }
  EXPECT_EQ(p->citations[static_cast<size_t>(p->items[0].stated.citation - 1)].fact_id,
            bad.stated.fact_id);  // the renumbered citation still names the stated claim
  const std::string listed = Render(*p, Format::kText);
  EXPECT_NE(listed.find("2 derived figures: 1 confirmed, 1 mismatched, 0 unverifiable (the confirmed ones not listed)"),
            std::string::npos) << listed;
}

// A report of problems only is numbered again from [1]; the numbers in each
// working's "from ..." go with the rest, and still name the claims they
// named in the whole report.
TEST_F(FactcheckTest, VerifyProblemsOnlyRenumbersTheWorkingsSources) {
  const Schema& schema = TheSchema();
  // A confirmed figure first, so that the mismatch's inputs move when it is dropped.
  const std::string c = std::string("Chip X brief\n") + kPerfPerWattLine +
                        "The x.32xlarge costs 32 USD/h for 16 chips: 3 USD/h per chip-hour.\n";
  std::vector<Fact> facts = PerfPerWattFacts(c, "doc-c");
  facts.push_back(At(c, "doc-c", "32 USD/h", "instance:x.32xlarge", "instance_price", Written("32 USD/h", "usd_per_hour")));
  facts.push_back(At(c, "doc-c", "16 chips", "instance:x.32xlarge", "chips", Value::Quantity(16, "count", "16 chips")));
  facts.push_back(Derived(At(c, "doc-c", "3 USD/h", "instance:x.32xlarge", "price_per_chip_hour",
                             Written("3 USD/h", "usd_per_hour")),
                          "32 USD/h / 16 chips"));
  Write("doc-c", "Brief C", "press", c, facts);
  auto whole = Verify(*store_, schema, "doc-c");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  Options problems;
  problems.verify_problems_only = true;
  auto only = Verify(*store_, schema, "doc-c", problems);
  ASSERT_TRUE(only.ok()) << only.status().message();
  ASSERT_EQ(whole->mismatched, 1u) << Render(*whole, Format::kText);
  ASSERT_EQ(only->items.size(), 1u) << Render(*only, Format::kText);
  const VerifyItem* was = nullptr;
  for (const VerifyItem& i : whole->items) {
    if (i.status == "mismatch") was = &i;
  }
  ASSERT_NE(was, nullptr);
  const VerifyItem& now = only->items[0];
  auto fact_of = [](const VerifyReport& r, int number) {
    for (const Citation& cited : r.citations) {
      if (cited.number == number) return cited.fact_id;
    }
    return uint64_t{0};
  };
  ASSERT_FALSE(was->working_inputs.empty());
  ASSERT_EQ(now.working_inputs.size(), was->working_inputs.size());
  bool moved = false;
  std::string sources;
  for (size_t k = 0; k < was->working_inputs.size(); ++k) {
    ASSERT_EQ(now.working_inputs[k].size(), 1u);  // one claim per input here
    ASSERT_EQ(was->working_inputs[k].size(), 1u);
    const int before = was->working_inputs[k][0], after = now.working_inputs[k][0];
    EXPECT_NE(fact_of(*only, after), 0u) << "[" << after << "] is not in the report's citations";
    EXPECT_EQ(fact_of(*only, after), fact_of(*whole, before)) << "input " << k << ": [" << before << "] -> [" << after << "]";
    moved = moved || before != after;
    sources += (k ? " and [" : "[") + std::to_string(after) + "]";
  }
  EXPECT_TRUE(moved) << "nothing was renumbered: the checks above show nothing";
  const std::string text = Render(*only, Format::kText);
  EXPECT_NE(text.find(now.working + "  from " + sources), std::string::npos) << text;
  auto json = nlohmann::json::parse(Render(*only, Format::kJson));
  EXPECT_EQ(json["items"][0]["working"], now.working + "  from " + sources) << json.dump(2);
}

// A date conflict is told between the two claims that disagree: a year
// agrees with every day in it, so the first claim of a group ("2022") may
// not be the one that disagrees with the other group.
TEST_F(FactcheckTest, ADateConflictNamesTheClaimsThatDisagree) {
  const Schema& schema = TheSchema();
  ASSERT_TRUE(store_->PutEntity({"chip:y", "chip", "Chip Y", {}}).ok());
  const std::string y = "Chip Y launch: 2022.\n";
  const std::string d1 = "Chip Y launch: 2022-10-01.\n";
  const std::string d2 = "Chip Y launch: 2022-10-10.\n";
  Write("a-year", "Year page", "press", y, {At(y, "a-year", "2022", "chip:y", "released", Value::OfDate(*Date::Parse("2022"), "2022"))});
  Write("y-day", "Day page", "press", d1,
        {At(d1, "y-day", "2022-10-01", "chip:y", "released", Value::OfDate(*Date::Parse("2022-10-01"), "2022-10-01"))});
  Write("y-other", "Other page", "vendor", d2,
        {At(d2, "y-other", "2022-10-10", "chip:y", "released", Value::OfDate(*Date::Parse("2022-10-10"), "2022-10-10"))});
  auto r = Conflicts(*store_, schema, "chip:y");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const AttributeSummary* released = FindAttr(r->conflicts, "released");
  ASSERT_NE(released, nullptr) << Render(*r, Format::kText);
  ASSERT_EQ(released->differences.size(), 1u);
  const std::string text = Render(*r, Format::kText);
  EXPECT_NE(text.find("! conflict (date): 2022-10-01 vs 2022-10-10: 9 days"), std::string::npos) << text;
  auto json = nlohmann::json::parse(Render(*r, Format::kJson));
  const auto& disagreement = json["conflicts"][0]["disagreements"][0];
  EXPECT_EQ(disagreement["a_value"], "2022-10-01") << json.dump(2);
  EXPECT_EQ(disagreement["b_value"], "2022-10-10") << json.dump(2);
  const std::string csv = Render(*r, Format::kCsv);
  EXPECT_NE(csv.find(",2022-10-01,2022-10-10,2022,"), std::string::npos) << csv;  // value, versus, then the claim
}

// A figure confirmed on one of two values the document gives for an input
// is confirmed, and says what the other value gives: "500 W" in the spec
// list and "550 W" in the text cannot both be the chip's TDP.
TEST_F(FactcheckTest, VerifySaysWhenAnotherReadingOfTheInputsDoesNotConfirm) {
  const Schema& schema = TheSchema();
  const std::string d = std::string("Chip X notes\n") + kPerfPerWattLine + "In the rack the chip draws 480 W.\n";
  std::vector<Fact> facts = PerfPerWattFacts(d, "doc-d");
  facts.push_back(At(d, "doc-d", "480 W", "chip:x", "tdp", Written("480 W", "watts")));
  Write("doc-d", "Notes D", "press", d, facts);
  auto v = Verify(*store_, schema, "doc-d");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->items.size(), 1u);
  const VerifyItem& item = v->items[0];
  EXPECT_EQ(item.status, "confirmed");
  EXPECT_EQ(v->confirmed_on_one_reading, 1u);
  ASSERT_EQ(item.other_readings.size(), 1u);
  const VerifyItem::OtherReading& other = item.other_readings[0];
  EXPECT_EQ(other.working, "200 TFLOPS / 480 W");
  EXPECT_NE(other.recomputed_display.find("0.41"), std::string::npos) << other.recomputed_display;
  int cites_480 = 0;
  for (const auto& alternatives : other.inputs) {
    for (int n : alternatives) {
      for (const Citation& c : v->citations) cites_480 += c.number == n && c.excerpt == "480 W";
    }
  }
  EXPECT_EQ(cites_480, 1);
  const std::string text = Render(*v, Format::kText);
  EXPECT_NE(text.find("1 confirmed, 0 mismatched, 0 unverifiable; 1 of the confirmed only on one reading"),
            std::string::npos) << text;
  EXPECT_NE(text.find("but the inputs also read 200 TFLOPS / 480 W = "), std::string::npos) << text;
  auto json = nlohmann::json::parse(Render(*v, Format::kJson));
  EXPECT_EQ(json["confirmed_on_one_reading"], 1);
  ASSERT_EQ(json["items"][0]["other_readings"].size(), 1u) << json.dump(2);
  EXPECT_EQ(json["items"][0]["other_readings"][0]["input_citations"].size(), 2u);

  // The 480 W line goes in a new version: read as at the first, the
  // retracted claim stood, and trace and verify use it as they did then.
  const TxId first = store_->ListDocumentVersions("doc-d").value().at(0).tx;
  Write("doc-d", "Notes D", "press", std::string("Chip X notes\n") + kPerfPerWattLine,
        PerfPerWattFacts(std::string("Chip X notes\n") + kPerfPerWattLine, "doc-d"));
  Options then;
  then.view.as_of_tx = first;
  auto v_then = Verify(*store_, schema, "doc-d", then);
  ASSERT_TRUE(v_then.ok()) << v_then.status().message();
  EXPECT_EQ(v_then->confirmed_on_one_reading, 1u) << Render(*v_then, Format::kText);
  auto v_now = Verify(*store_, schema, "doc-d");
  ASSERT_TRUE(v_now.ok()) << v_now.status().message();
  EXPECT_EQ(v_now->confirmed_on_one_reading, 0u) << Render(*v_now, Format::kText);
  auto t_then = Trace(*store_, schema, "chip:x.perf_per_watt", then);
  ASSERT_TRUE(t_then.ok()) << t_then.status().message();
  ASSERT_TRUE(t_then->derived.has_value());
  bool uses_480 = false;
  for (const auto& value : t_then->derived->values) uses_480 = uses_480 || value.working.find("480 W") != std::string::npos;
  EXPECT_TRUE(uses_480) << Render(*t_then, Format::kText);

  // One value per input: nothing more to say (doc-a's confirmed figure).
  auto a = Verify(*store_, schema, "doc-a");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->confirmed_on_one_reading, 0u);
  for (const VerifyItem& i : a->items) EXPECT_TRUE(i.other_readings.empty()) << i.stated.display;
}

// A figure whose inputs verify reads from other sources, in a store whose
// subject index is damaged: the report fails, naming the damage, where the
// figure was marked "unverifiable" and the command exited 0.
TEST_F(FactcheckTest, VerifyFailsWhenItsOwnReadsFindTheStoreDamaged) {
  const std::string p = "Chip X review\nPerf per watt: 0.42 TFLOPS/W.\n";
  Write("doc-p", "Review P", "press", p,
        {Derived(At(p, "doc-p", "0.42 TFLOPS/W", "chip:x", "perf_per_watt", Written("0.42 TFLOPS/W", "ops_per_watt"),
                    {{"format", "bf16"}}),
                 "210 TFLOPS / 500 W")});
  auto whole = Verify(*store_, TheSchema(), "doc-p");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->items.size(), 1u);
  ASSERT_EQ(whole->items[0].status, "confirmed") << Render(*whole, Format::kText);
  ASSERT_NE(whole->items[0].method.find("other sources"), std::string::npos) << whole->items[0].method;

  store_.reset();  // closed: written into table files
  // The first data block of the `spo` table (codec kSpoCf, RocksDB's family id 5), which the
  // other sources' inputs are read from; the open checks only the file's index and footer.
  const std::string path = dir_.str() + "/store";
  std::filesystem::path spo;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() != ".sst") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = bytes.rfind("column.family.id");
    if (at != std::string::npos && at + 16 < bytes.size() && bytes[at + 16] == 5) spo = entry.path();
  }
  ASSERT_FALSE(spo.empty()) << "no table file of the spo column family in " << path;
  {
    std::fstream f(spo, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(20);
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x5a);
    f.seekp(20);
    f.write(&byte, 1);
  }
  auto reader = Store::OpenReader(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto damaged = Verify(**reader, TheSchema(), "doc-p");
  ASSERT_FALSE(damaged.ok()) << Render(*damaged, Format::kText);
  EXPECT_TRUE(damaged.status().IsCorruption()) << damaged.status().ToString();
}

TEST_F(FactcheckTest, HistoryAndTraceShowRetractions) {
  // Page A changes: memory now 24 GB, the rest as before.
  std::string a = std::string(kPageA) + "Update: Memory: 24 GB.\n";
  const Schema& schema = TheSchema();
  auto q = [&](const std::string& text, const std::string& dim) {
    return Value::Quantity(schema.ParseQuantity(text, dim)->canonical, dim, text);
  };
  Write("doc-a", "Page A", "vendor", a,
        {At(a, "doc-a", "24 GB", "chip:x", "memory", q("24 GB", "bytes")),
         At(a, "doc-a", "820 GB/s", "chip:x", "memory_bandwidth", q("820 GB/s", "bytes_per_second"))});
  auto h = History(*store_, schema, "chip:x.memory");
  ASSERT_TRUE(h.ok()) << h.status().message();
  // 32 GB asserted, 32 GiB asserted, 32 GB retracted + 24 GB asserted.
  ASSERT_EQ(h->events.size(), 4u);
  int retracted = 0;
  for (const auto& e : h->events) {
    if (!e.asserted) {
      retracted++;
      EXPECT_EQ(e.claim.display, "32 GB");
      EXPECT_EQ(e.run_id, "test-run-doc-a");
    }
  }
  EXPECT_EQ(retracted, 1);
  for (size_t i = 1; i < h->events.size(); ++i) EXPECT_LE(h->events[i - 1].tx, h->events[i].tx);

  auto t = Trace(*store_, schema, "Chip X.memory");
  ASSERT_TRUE(t.ok());
  size_t with_retraction = 0;
  for (const auto& c : t->claims) {
    if (c.retracted) {
      with_retraction++;
      EXPECT_EQ(c.retracted->run_id, "test-run-doc-a");
      EXPECT_TRUE(c.excerpt_verified);  // re-read from version 1's text, not the latest
    }
  }
  EXPECT_EQ(with_retraction, 1u);
  EXPECT_NE(Render(*t, Format::kText).find("RETRACTED"), std::string::npos);
  for (const auto& c : t->claims) EXPECT_FALSE(c.retracted && c.still_stated_by) << c.claim.display;

  // The bandwidth page A still states stays cited from version 1, where it
  // was first read; the trace names version 2 as still stating it.
  auto bandwidth = Trace(*store_, schema, "Chip X.memory_bandwidth");
  ASSERT_TRUE(bandwidth.ok()) << bandwidth.status().message();
  size_t still = 0;
  for (const auto& c : bandwidth->claims) {
    if (c.citation.document_id != "doc-a") {
      EXPECT_FALSE(c.still_stated_by) << c.citation.document_id;  // doc-b has one version
      continue;
    }
    EXPECT_EQ(c.citation.version, 1u);
    ASSERT_TRUE(c.still_stated_by.has_value());
    EXPECT_EQ(c.still_stated_by->version, 2u);
    EXPECT_FALSE(c.still_stated_by->content_hash.empty());
    ++still;
  }
  EXPECT_EQ(still, 1u);
  const std::string bandwidth_text = Render(*bandwidth, Format::kText);
  EXPECT_NE(bandwidth_text.find("still in    version 2, sha256 "), std::string::npos) << bandwidth_text;
  auto bandwidth_json = nlohmann::json::parse(Render(*bandwidth, Format::kJson));
  bool json_names_it = false;
  for (const auto& c : bandwidth_json["claims"]) {
    json_names_it = json_names_it || (c["still_stated_by"].is_object() && c["still_stated_by"]["version"] == 2);
  }
  EXPECT_TRUE(json_names_it) << bandwidth_json.dump(2);
  const std::string bandwidth_csv = Render(*bandwidth, Format::kCsv);
  EXPECT_NE(bandwidth_csv.find(",retracted_later_by_tx,still_in_version,still_in_content_hash,"), std::string::npos)
      << bandwidth_csv.substr(0, 400);
  std::string hash;
  for (const auto& c : bandwidth->claims) {
    if (c.still_stated_by) hash = c.still_stated_by->content_hash;
  }
  EXPECT_NE(bandwidth_csv.find(",2," + hash + ","), std::string::npos) << bandwidth_csv;
  // As the store was before version 2, there was no later version to name.
  auto versions = store_->ListDocumentVersions("doc-a");
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  Options before_v2;
  before_v2.view.as_of_tx = (*versions)[0].tx;
  auto then = Trace(*store_, schema, "Chip X.memory_bandwidth", before_v2);
  ASSERT_TRUE(then.ok()) << then.status().message();
  ASSERT_FALSE(then->claims.empty());
  for (const auto& c : then->claims) EXPECT_FALSE(c.still_stated_by) << c.citation.document_id;

  // describe shows standing claims only.
  auto p = Describe(*store_, schema, "Chip X");
  ASSERT_TRUE(p.ok());
  const AttributeSummary* memory = FindAttr(p->attributes, "memory");
  ASSERT_NE(memory, nullptr);
  for (const auto& g : memory->groups) EXPECT_NE(g.display, "32 GB");
}

// One passage can state a figure for two dates ("in 2023 and 2024 it had 16
// chips"): each claim's citation shows its own date, not the first claim's.
TEST_F(FactcheckTest, ClaimsOfOnePassageKeepTheirOwnDates) {
  const std::string notes = "Instance notes\nIn both 2023 and 2024 the instance had 16 chips.\n";
  Fact then = At(notes, "doc-n", "16 chips", "instance:x.32xlarge", "chips", Value::Quantity(16, "count", "16 chips"));
  then.valid_as_of = Date::Parse("2023");
  Fact later = then;
  later.valid_as_of = Date::Parse("2024");
  Write("doc-n", "Notes", "press", notes, {then, later});

  for (const bool history : {false, true}) {
    nlohmann::json report;
    if (history) {
      auto h = History(*store_, TheSchema(), "x.32xlarge.chips");
      ASSERT_TRUE(h.ok()) << h.status().message();
      report = nlohmann::json::parse(Render(*h, Format::kJson));
    } else {
      auto t = Trace(*store_, TheSchema(), "x.32xlarge.chips");
      ASSERT_TRUE(t.ok()) << t.status().message();
      report = nlohmann::json::parse(Render(*t, Format::kJson));
    }
    std::multiset<std::string> dates;
    std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
      if (j.is_object()) {
        if (j.contains("fact_id") && j.contains("excerpt") && j.contains("version") &&
            j.value("excerpt", "") == "16 chips" && j["document"].value("id", "") == "doc-n") {
          dates.insert(j.value("valid_as_of", "none"));
        }
        for (const auto& [key, value] : j.items()) walk(value);
      } else if (j.is_array()) {
        for (const auto& value : j) walk(value);
      }
    };
    walk(report);
    EXPECT_EQ(dates.count("2023"), dates.count("2024")) << (history ? "history " : "trace ") << report.dump(2);
    EXPECT_GE(dates.count("2024"), 1u) << (history ? "history " : "trace ") << report.dump(2);
    EXPECT_EQ(dates.count("none"), 0u) << report.dump(2);
  }
}

// The describe footer counts in words a reader would write: "1 attribute".
TEST(FactcheckRenderTest, DescribeFooterCountsInTheSingular) {
  Profile one;
  one.entity.id = "chip:x";
  one.entity.name = "X";
  one.attributes.emplace_back().label = "memory";
  const std::string text = Render(one, Format::kText);
  EXPECT_NE(text.find("1 attribute, 0 with conflicting sources"), std::string::npos) << text;
  one.attributes.emplace_back().label = "tdp";
  EXPECT_NE(Render(one, Format::kText).find("2 attributes, 0 with"), std::string::npos);
}

TEST_F(FactcheckTest, SourcesListDocumentsVersionsAndFacts) {
  auto s = Sources(*store_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->sources.size(), 3u);
  for (const auto& src : s->sources) {
    ASSERT_EQ(src.versions.size(), 1u);
    EXPECT_EQ(src.versions[0].content_hash.size(), 64u);
  }
  auto one = Source(*store_, "doc-b");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->source.live_facts, 7u);
  EXPECT_EQ(one->source.not_published, 1u);
  EXPECT_EQ(one->facts.size(), 7u);
  EXPECT_NE(Render(*one, Format::kText).find("has not named a foundry"), std::string::npos);
  auto csv = Render(*s, Format::kCsv);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  EXPECT_TRUE(Source(*store_, "nothing-like-it").status().IsNotFound());
}

TEST_F(FactcheckTest, OneDocumentGivingTwoValuesIsNotAConflict) {
  // A dataset cell "SMIC,TSMC" gives two foundries; only another document
  // saying something else makes a conflict.
  ASSERT_TRUE(store_->PutEntity({"chip:y", "chip", "Chip Y", {}}).ok());
  ASSERT_TRUE(store_->PutEntity({"org:smic", "organization", "SMIC", {}}).ok());
  std::string text = "name,foundry\nChip Y,\"SMIC,TSMC\"\n";
  Write("doc-c", "Cells", "aggregator", text,
        {At(text, "doc-c", "SMIC", "chip:y", "foundry", Value::Entity("org:smic", "SMIC")),
         At(text, "doc-c", "TSMC", "chip:y", "foundry", Value::Entity("org:tsmc", "TSMC"))});
  auto r = Conflicts(*store_, TheSchema(), "Chip Y");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->conflicts.empty()) << Render(*r, Format::kText);
  std::string other = "Chip Y is made by TSMC.";
  Write("doc-d", "Other", "press", other,
        {At(other, "doc-d", "TSMC", "chip:y", "foundry", Value::Entity("org:tsmc", "TSMC"))});
  auto r2 = Conflicts(*store_, TheSchema(), "Chip Y");
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->conflicts.size(), 1u);  // doc-c's SMIC against doc-d's TSMC
  EXPECT_EQ(r2->conflicts[0].differences.size(), 1u);
}

// A source's estimate of a figure and a maker's stated value of it are two
// claims about one thing: where they disagree, describe, conflicts and the
// query language show a conflict, with the estimate marked as one. Alone,
// an estimate keeps {basis=estimate} as its attribute's mark.
TEST_F(FactcheckTest, AnEstimateThatDisagreesWithAStatedFigureIsAConflict) {
  ASSERT_TRUE(store_->PutEntity({"chip:y", "chip", "Chip Y", {}}).ok());
  const std::string table = "name,tdp\nChip Y,340\n";
  Fact estimate = At(table, "doc-e", "340", "chip:y", "tdp", Value::Quantity(340, "watts", "340 W"),
                     {{"basis", "estimate"}});
  estimate.provenance.row = 1;
  estimate.provenance.column = "tdp";
  Write("doc-e", "Estimates", "aggregator", table, {estimate});
  auto alone = Describe(*store_, TheSchema(), "Chip Y");
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  ASSERT_NE(FindAttr(alone->attributes, "tdp {basis=estimate}"), nullptr) << Render(*alone, Format::kText);
  auto none = Conflicts(*store_, TheSchema(), "Chip Y");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->conflicts.empty());

  const std::string page = "Chip Y datasheet. TDP: 192 W.\n";
  Write("doc-f", "Chip Y datasheet", "vendor", page, {At(page, "doc-f", "192 W", "chip:y", "tdp", Written("192 W", "watts"))});
  auto both = Describe(*store_, TheSchema(), "Chip Y");
  ASSERT_TRUE(both.ok()) << both.status().message();
  const AttributeSummary* tdp = FindAttr(both->attributes, "tdp");
  ASSERT_NE(tdp, nullptr) << Render(*both, Format::kText);
  EXPECT_EQ(FindAttr(both->attributes, "tdp {basis=estimate}"), nullptr) << Render(*both, Format::kText);
  EXPECT_TRUE(tdp->conflict()) << Render(*both, Format::kText);
  const std::string described = Render(*both, Format::kText);
  EXPECT_NE(described.find("340 W (estimate)"), std::string::npos) << described;
  auto conflicts = Conflicts(*store_, TheSchema(), "Chip Y");
  ASSERT_TRUE(conflicts.ok());
  ASSERT_EQ(conflicts->conflicts.size(), 1u) << Render(*conflicts, Format::kText);
  EXPECT_NE(Render(*conflicts, Format::kText).find("340 W (estimate)"), std::string::npos)
      << Render(*conflicts, Format::kText);

  auto cell = query::RunQuery(*store_, TheSchema(), "find chip where tdp > 0 W show tdp");
  ASSERT_TRUE(cell.ok()) << cell.status().message();
  const query::Row* row = nullptr;
  for (const auto& r : cell->rows) row = r.entity == "chip:y" ? &r : row;
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->cells.size(), 1u);
  EXPECT_EQ(row->cells[0].state, query::Cell::State::kConflict);
  EXPECT_NE(row->cells[0].conflict.find("340 W (estimate)"), std::string::npos) << row->cells[0].conflict;
  ASSERT_EQ(row->cells[0].values.size(), 2u);
  size_t marked = 0;
  for (const auto& v : row->cells[0].values) marked += v.qualifiers().count("basis");
  EXPECT_EQ(marked, 1u);  // the estimate shows its basis, the stated value none
  auto listed = query::RunQuery(*store_, TheSchema(), "conflicts in chip");
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  size_t of_y = 0;
  for (const auto& r : listed->rows) of_y += r.entity == "chip:y";
  EXPECT_EQ(of_y, 1u);
  auto conflicting = query::RunQuery(*store_, TheSchema(), "count chip where conflicting(tdp)");
  ASSERT_TRUE(conflicting.ok()) << conflicting.status().message();
  EXPECT_EQ(conflicting->count.value_or(0), 1u);
  // An estimate of what the maker says it does not publish is no conflict,
  // and a preferred maker's "not published" does not drop it.
  ASSERT_TRUE(store_->PutEntity({"chip:z", "chip", "Chip Z", {}}).ok());
  const std::string z_table = "name,tdp\nChip Z,350\n";
  Fact z_estimate = At(z_table, "doc-ze", "350", "chip:z", "tdp", Value::Quantity(350, "watts", "350 W"),
                       {{"basis", "estimate"}});
  Write("doc-ze", "More estimates", "aggregator", z_table, {z_estimate});
  const std::string z_page = "Chip Z: the TDP is not disclosed.\n";
  Write("doc-zv", "Chip Z page", "vendor", z_page,
        {At(z_page, "doc-zv", "not disclosed", "chip:z", "tdp", Value::NotPublished("not disclosed"))});
  auto z_conflicts = Conflicts(*store_, TheSchema(), "Chip Z");
  ASSERT_TRUE(z_conflicts.ok());
  EXPECT_TRUE(z_conflicts->conflicts.empty()) << Render(*z_conflicts, Format::kText);
  auto z_cell = query::RunQuery(*store_, TheSchema(), "find chip where tdp > 300 W show tdp prefer vendor");
  ASSERT_TRUE(z_cell.ok()) << z_cell.status().message();
  bool z_found = false;
  for (const auto& r : z_cell->rows) {
    if (r.entity != "chip:z") continue;
    z_found = true;
    EXPECT_NE(r.cells.at(0).state, query::Cell::State::kConflict);
    EXPECT_EQ(r.cells.at(0).values.size(), 2u);  // the estimate and the maker's "not published"
  }
  EXPECT_TRUE(z_found);
  auto still_one = query::RunQuery(*store_, TheSchema(), "count chip where conflicting(tdp)");
  ASSERT_TRUE(still_one.ok());
  EXPECT_EQ(still_one->count.value_or(0), 1u);

  // {basis=stated} leaves the estimate out, and a preferred maker's figure
  // stands for the figure: neither is a conflict.
  for (const char* text : {"find chip where tdp > 0 W show tdp{basis=stated}",
                           "find chip where tdp > 0 W show tdp prefer vendor"}) {
    auto one = query::RunQuery(*store_, TheSchema(), text);
    ASSERT_TRUE(one.ok()) << text << ": " << one.status().message();
    for (const auto& r : one->rows) {
      if (r.entity != "chip:y") continue;
      EXPECT_EQ(r.cells.at(0).state, query::Cell::State::kReported) << text;
      EXPECT_EQ(r.cells.at(0).values.size(), 1u) << text;
    }
  }
}

TEST_F(FactcheckTest, HostileTargetsFailCleanly) {
  std::vector<std::string> targets = {"",
                                      ".",
                                      "((((",
                                      ")",
                                      "Chip X.",
                                      ".memory",
                                      "Chip X.fits(",
                                      "Chip X.fits()",
                                      "Chip X.fits(\"a\", \"b\", \"c\")",
                                      "Chip X.fits(\"Chip X\", int8",
                                      "Chip X.memory(1)",
                                      "\xff\xfe.memory",
                                      "Chip X.\xff",
                                      std::string(10000, '(') + "Chip X.memory" + std::string(10000, ')'),
                                      std::string(20000, '.'),
                                      "Chip X." + std::string(5000, 'a')};
  for (const auto& t : targets) {
    auto r = Trace(*store_, TheSchema(), t);
    EXPECT_FALSE(r.ok()) << t.substr(0, 40);
    auto h = History(*store_, TheSchema(), t);
    EXPECT_FALSE(h.ok()) << t.substr(0, 40);
  }
  for (const auto& name : {std::string(""), std::string("\xff"), std::string(100000, 'x')}) {
    EXPECT_FALSE(Describe(*store_, TheSchema(), name).ok());
    EXPECT_FALSE(Conflicts(*store_, TheSchema(), name.empty() ? "\xfe" : name).ok());
    if (!name.empty()) {
      EXPECT_FALSE(Verify(*store_, TheSchema(), name).ok());  // "" is every document
    }
  }
}

TEST(ParseFormatTest, NamesTheChoices) {
  EXPECT_EQ(*ParseFormat("JSON"), Format::kJson);
  auto bad = ParseFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("text, json or csv"), std::string::npos);
}

// ---- the seeds, through the real ingest pipeline ----------------------------------

class SeedsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto s = Store::Open(dir_->str() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = s->release();
    auto sources = LoadManifest(std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json");
    ASSERT_TRUE(sources.ok()) << sources.status().message();
    auto report = IngestSources(*store_, TheSchema(), *sources);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ASSERT_EQ(report->documents_failed, 0u) << report->SummaryLine();
  }
  static void TearDownTestSuite() {
    delete store_;
    store_ = nullptr;
    delete dir_;
  }
  static TempDir* dir_;
  static Store* store_;
};
TempDir* SeedsTest::dir_ = nullptr;
Store* SeedsTest::store_ = nullptr;

TEST_F(SeedsTest, TraceOfTrainiumMemoryBandwidthShowsBothPages) {
  ASSERT_NE(store_, nullptr);
  auto t = Trace(*store_, TheSchema(), "Trainium.memory_bandwidth");
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::set<std::string> docs;
  for (const auto& c : t->claims) {
    EXPECT_TRUE(c.excerpt_verified) << c.citation.document_id << ": " << c.text_problem;
    if (c.citation.excerpt.find("820 GB/s") != std::string::npos) docs.insert(c.citation.document_id);
  }
  EXPECT_TRUE(docs.count("seed-000-aws-trainium")) << Render(*t, Format::kText);
  EXPECT_TRUE(docs.count("seed-001-amazon-trainium")) << Render(*t, Format::kText);
}

TEST_F(SeedsTest, VerifyConfirmsPerfPerWattAndFitCounts) {
  ASSERT_NE(store_, nullptr);
  for (const char* doc : {"seed-000-aws-trainium", "seed-003-aws-trainium2"}) {
    auto v = Verify(*store_, TheSchema(), doc);
    ASSERT_TRUE(v.ok()) << v.status().message();
    std::string text = Render(*v, Format::kText);
    size_t ppw = 0, counts = 0, marks = 0;
    for (const auto& i : v->items) {
      EXPECT_EQ(i.status, "confirmed") << text;
      if (i.predicate == "perf_per_watt") ppw += i.status == "confirmed";
      if (i.predicate == "models_fitting") counts += i.status == "confirmed";
      if (i.predicate == "fits") marks += i.status == "confirmed";
    }
    EXPECT_EQ(ppw, 1u) << doc << "\n" << text;
    EXPECT_EQ(counts, 3u) << doc << "\n" << text;  // FP16, INT8, INT4
    EXPECT_EQ(marks, 39u) << doc << "\n" << text;  // 13 models x 3 formats
  }
}

// A fact-checker must not blame a source for chipkg's own formula. Epoch's
// TPP counts TF32 at 19 bits (Trainium1: 190 TFLOPS x 19 = 3.61e15) and its
// price-performance is ML OP/s per dollar (MLU270-F4: 128e12 / 2080 USD);
// with those, only four rows of the file fail their own arithmetic.
TEST_F(SeedsTest, VerifyOfEpochFlagsOnlyTheRowsThatFailTheirOwnArithmetic) {
  ASSERT_NE(store_, nullptr);
  auto v = Verify(*store_, TheSchema(), "epoch-ml-hardware");
  ASSERT_TRUE(v.ok()) << v.status().message();
  const std::string text = Render(*v, Format::kText);
  std::set<std::string> mismatched;
  std::map<std::string, std::string> status;
  for (const auto& i : v->items) {
    if (i.status == "mismatch") mismatched.insert(i.subject_name + " " + i.predicate);
    status[i.subject_name + " " + i.predicate] = i.status;
  }
  EXPECT_EQ(mismatched.size(), 4u) << text;
  for (const auto& m : mismatched) EXPECT_NE(m.find("total_processing_performance"), std::string::npos) << m;
  EXPECT_EQ(v->unverifiable, 0u) << text;
  EXPECT_EQ(status["AWS Trainium total_processing_performance"], "confirmed") << text;
  EXPECT_EQ(status["AWS Inferentia 2 total_processing_performance"], "confirmed") << text;
  EXPECT_EQ(status["Cambricon MLU270-F4 price_performance"], "confirmed") << text;
  // A cell's rounding is in the file's unit, and says so, with the cell.
  for (const auto& i : v->items) {
    if (i.check.rule == "exact") continue;
    EXPECT_NE(i.check.rule.find(" in the cell as written, " + i.stated.value.original), std::string::npos)
        << i.subject_name << " " << i.predicate << ": " << i.check.rule;
  }
}

// ---- verify after re-ingests: a kept claim stays under the version that first
// stated it, so a figure's inputs can sit in another version ----------------

class VerifyAfterChangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.str() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
  }
  static std::string Read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void Ingest(const SourceSpec& spec, const std::string& text) {
    std::ofstream(spec.location, std::ios::binary | std::ios::trunc) << text;
    auto r = IngestSources(*store_, TheSchema(), {spec});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->documents_failed, 0u) << r->SummaryLine();
  }
  std::map<std::string, std::string> Statuses(const VerifyReport& v) {
    std::map<std::string, std::string> out;
    for (const auto& i : v.items) out[i.subject_name + " " + i.predicate + " " + QualifiersToString(i.qualifiers)] = i.status;
    return out;
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

// Epoch's Trainium3 row gives Energy efficiency = Max performance / TDP (W)
// = 671e12 / 700. A new TDP of 750 W with the old efficiency left standing is
// a mismatch the fact-checker must see (it once said "no figure for TDP").
TEST_F(VerifyAfterChangesTest, AChangedInputOfADatasetRowMakesItsFormulaAMismatch) {
  const std::filesystem::path csv =
      std::filesystem::path(CHIPKG_SOURCE_DIR) / "datasets" / "epoch_ml_hardware" / "ml_hardware.csv";
  std::string text = Read(csv);
  const size_t row = text.find("\nAmazon Trainium3,");
  ASSERT_NE(row, std::string::npos);
  const size_t end = text.find("\n", text.find("2025-12-05 21:21:23", row));
  const std::string header = text.substr(0, text.find('\n') + 1);
  std::string trainium3 = text.substr(row + 1, end - row);
  auto replaced = [](std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  // Another chip, right by its own arithmetic (671e12 / 500 W), added at the
  // top as Epoch adds new chips: every row below moves down one.
  const std::string zeta = replaced(replaced(replaced(trainium3, "Amazon Trainium3", "Zeta Test Chip"), ",700.0,", ",500.0,"),
                                    "958571428571.4286", "1342000000000.0");
  SourceSpec spec;
  spec.location = dir_.str() + "/epoch.csv";
  spec.format = "epoch-ml-hardware";
  spec.id = "epoch";
  auto verified = [&](const Options& options = {}) {
    auto v = Verify(*store_, TheSchema(), "epoch", options);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : VerifyReport{};
  };
  Ingest(spec, header + trainium3);
  VerifyReport first = verified();
  EXPECT_EQ(first.mismatched, 0u) << Render(first, Format::kText);
  ASSERT_GT(first.confirmed, 0u);

  Ingest(spec, header + zeta + trainium3);
  VerifyReport moved = verified();
  EXPECT_EQ(moved.mismatched, 0u) << Render(moved, Format::kText);  // Trainium 3 is not checked with Zeta's row
  EXPECT_EQ(moved.unverifiable, 0u) << Render(moved, Format::kText);

  trainium3 = replaced(trainium3, ",700.0,", ",750.0,");
  Ingest(spec, header + zeta + trainium3);
  VerifyReport changed = verified();
  const std::string rendered = Render(changed, Format::kText);
  EXPECT_EQ(changed.unverifiable, 0u) << rendered;
  ASSERT_EQ(changed.mismatched, 1u) << rendered;
  for (const auto& i : changed.items) {
    if (i.status != "mismatch") continue;
    EXPECT_EQ(i.subject_name, "AWS Trainium 3") << rendered;
    EXPECT_EQ(i.predicate, "perf_per_watt") << rendered;
    EXPECT_NE(i.working.find("TDP (W) = 750 W"), std::string::npos) << rendered;
  }

  // The efficiency corrected (671e12 / 750 W): nothing standing is wrong, but
  // history views check the retracted figure against the document as it last
  // stated it, with the 750 W beside it.
  Ingest(spec, header + zeta + replaced(trainium3, "958571428571.4286", "894666666666.6666"));
  EXPECT_EQ(verified().mismatched, 0u) << Render(verified(), Format::kText);
  Options history;
  history.view.include_retracted = true;
  VerifyReport all = verified(history);
  EXPECT_EQ(all.mismatched, 1u) << Render(all, Format::kText);
  EXPECT_EQ(all.unverifiable, 0u) << Render(all, Format::kText);
}

// A page cut short (its fit counts gone) and then restored: the counts come
// back in version 3, the model table they count was kept from version 1.
TEST_F(VerifyAfterChangesTest, FitCountsOfARestoredPageAreCheckedAgainstTheKeptModelTable) {
  const std::string page =
      Read(std::filesystem::path(CHIPKG_SOURCE_DIR) / "datasets" / "seeds" / "000_de7815fa348ea8df.txt");
  const size_t counts = page.find("Which open-source LLMs fit on one AWS Trainium");
  ASSERT_NE(counts, std::string::npos);
  SourceSpec spec;
  spec.location = dir_.str() + "/page.txt";
  spec.id = "page";
  Ingest(spec, page);
  Ingest(spec, page.substr(0, counts));
  Ingest(spec, page);
  auto v = Verify(*store_, TheSchema(), "page");
  ASSERT_TRUE(v.ok()) << v.status().message();
  const std::string rendered = Render(*v, Format::kText);
  size_t fit_counts = 0;
  for (const auto& i : v->items) {
    EXPECT_EQ(i.status, "confirmed") << rendered;
    fit_counts += i.predicate == "models_fitting";
  }
  EXPECT_EQ(fit_counts, 3u) << rendered;
}

// The same document read again from an edited copy (`chipkg ingest COPY --id
// page`): a claim of version 1 still cites the place and title version 1 was
// read from, the changed claim the copy's.
TEST_F(VerifyAfterChangesTest, OldVersionsKeepCitingWhereTheyWereRead) {
  const std::string page =
      Read(std::filesystem::path(CHIPKG_SOURCE_DIR) / "datasets" / "seeds" / "000_de7815fa348ea8df.txt");
  SourceSpec first;
  first.location = dir_.str() + "/original.txt";
  first.id = "page";
  Ingest(first, page);
  SourceSpec copy = first;
  copy.location = dir_.str() + "/edited-copy.txt";
  copy.title = "Edited copy";
  std::string edited = page;
  const size_t tdp = edited.find("\n- 500 W");
  ASSERT_NE(tdp, std::string::npos);
  Ingest(copy, edited.replace(tdp, 8, "\n- 450 W"));

  auto answer = query::RunQuery(*store_, TheSchema(), "facts from document page");
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  const std::string text = query::Render(*answer, query::Format::kText);
  std::set<uint32_t> versions;
  for (const query::Citation& c : answer->citations) {
    const DocumentVersion* v = answer->VersionOf(c);
    ASSERT_NE(v, nullptr);
    versions.insert(c.version);
    EXPECT_EQ(v->url, c.version == 1 ? first.location : copy.location) << text;
  }
  EXPECT_EQ(versions, (std::set<uint32_t>{1, 2})) << text;
  EXPECT_NE(text.find("Edited copy \xE2\x80\x94 " + copy.location), std::string::npos) << text;
  EXPECT_NE(text.find("\xE2\x80\x94 " + first.location), std::string::npos) << text;

  auto traced = Trace(*store_, TheSchema(), "Trainium.tdp");
  ASSERT_TRUE(traced.ok()) << traced.status().message();
  bool new_figure = false;
  for (const auto& c : traced->claims) {
    if (c.citation.document_id != "page") continue;
    EXPECT_EQ(c.citation.url, c.citation.version == 1 ? first.location : copy.location);
    new_figure |= c.citation.version == 2 && c.citation.title == "Edited copy";
  }
  EXPECT_TRUE(new_figure) << Render(*traced, Format::kText);
}

// An Epoch row holds as of its own "Last modified" date, weeks before the
// file's; describe's footnotes give the row's date, as query's do.
TEST_F(SeedsTest, DescribeFootnotesGiveTheRowsDateNotTheFilesOnly) {
  ASSERT_NE(store_, nullptr);
  auto d = Describe(*store_, TheSchema(), "trainium2");
  ASSERT_TRUE(d.ok()) << d.status().message();
  const std::string text = Render(*d, Format::kText);
  EXPECT_NE(text.find(", as of 2025-10-29 (the document as of 2025-12-16)"), std::string::npos) << text;
  EXPECT_EQ(text.find(", as of 2025-12-16\n"), std::string::npos) << text;
}

TEST_F(SeedsTest, ConflictsListTrainiumFoundryProcessNodeAndMemory) {
  ASSERT_NE(store_, nullptr);
  auto r = Conflicts(*store_, TheSchema(), "Trainium");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string text = Render(*r, Format::kText);
  std::map<std::string, const AttributeSummary*> by_label;
  for (const auto& a : r->conflicts) by_label[a.label] = &a;
  ASSERT_TRUE(by_label.count("foundry")) << text;
  ASSERT_TRUE(by_label.count("process_node")) << text;
  ASSERT_TRUE(by_label.count("memory")) << text;
  bool not_published = false;
  for (const auto& d : by_label["foundry"]->differences) {
    not_published |= d.comparison.kind == DifferenceKind::kNotPublished;
  }
  EXPECT_TRUE(not_published) << text;
  bool seven = false;
  for (const auto& d : by_label["memory"]->differences) seven |= d.comparison.size == "7.4%";
  EXPECT_TRUE(seven) << text;
  // Epoch's 9.8 TB/s for Trainium1 is flagged as a likely per-server figure.
  ASSERT_TRUE(by_label.count("memory_bandwidth")) << text;
  bool flagged = false;
  for (const auto& f : by_label["memory_bandwidth"]->flags) {
    flagged |= f.message.find("likely a per-server/instance figure") != std::string::npos;
  }
  EXPECT_TRUE(flagged) << text;

  // The CSV carries each side's claims with their documents and excerpts.
  const std::string csv = Render(*r, Format::kCsv);
  const size_t header_end = csv.find('\n');
  ASSERT_NE(header_end, std::string::npos);
  EXPECT_EQ(csv.rfind("subject,subject_name,attribute,difference,side,value,versus,claim,citation,", 0), 0u) << csv;
  EXPECT_NE(csv.substr(0, header_end).find(",document,title,url,version,content_hash,"), std::string::npos) << csv;
  bool foundry_both_sides = false;
  std::set<std::string> foundry_documents;
  for (size_t at = header_end + 1; at < csv.size();) {
    size_t end = csv.find('\n', at);
    const std::string line = csv.substr(at, end - at);
    at = end == std::string::npos ? csv.size() : end + 1;
    if (line.find(",foundry,") == std::string::npos) continue;
    for (const char* doc : {"seed-000-aws-trainium", "seed-001-amazon-trainium", "epoch-ml-hardware"}) {
      if (line.find(doc) != std::string::npos) foundry_documents.insert(doc);
    }
    foundry_both_sides |= line.find(",b,") != std::string::npos;
  }
  EXPECT_TRUE(foundry_both_sides) << csv;
  EXPECT_GE(foundry_documents.size(), 2u) << csv;
}

}  // namespace
}  // namespace chipkg::factcheck
