// The evaluator on a store written fact by fact (real RocksDB in a temporary
// directory), so every rule of the language meets a case built for it.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <sstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "engine/store_impl.h"
#include "query/factcheck.h"
#include "query/query.h"
#include "query/read_ahead.h"
#include "query_test_util.h"

namespace chipkg::query {
namespace {

using testing::DocBuilder;
using testing::PutEntity;
using testing::Q;
using testing::RealSchema;
using testing::TempDir;

class EvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Store>> s = Store::Open(dir_.path() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
    PutEntity(*store_, "chip:alpha", "chip", "Alpha", {"alpha1"});
    PutEntity(*store_, "chip:beta", "chip", "Beta");
    PutEntity(*store_, "chip:gamma", "chip", "Gamma");
    PutEntity(*store_, "org:tsmc", "organization", "TSMC");
    PutEntity(*store_, "llm:test-70b", "llm", "Test 70B");

    const Qualifiers bf16 = {{"format", "bf16"}, {"sparsity", "dense"}};
    const Qualifiers server = {{"format", "bf16"}, {"scope", "server"}, {"chips", "16"}};
    vendor_tx_ = DocBuilder("vend", "vendor", "vendor.example")
                     .Add("chip:alpha", "memory", Q(32.0 * (1ull << 30), "bytes", "32 GiB"))
                     .Add("chip:alpha", "foundry", Value::Entity("org:tsmc", "TSMC"))
                     .Add("chip:alpha", "announced", Value::OfDate(*Date::Parse("2023-11"), "November 2023"))
                     .Add("chip:alpha", "peak_throughput", Q(210e12, "ops_per_second", "210 TFLOPS"), bf16)
                     .Add("chip:alpha", "tdp", Q(500, "watts", "500 W"))
                     .Add("chip:beta", "memory", Q(32e9, "bytes", "32 GB"))
                     .Add("chip:beta", "announced", Value::OfDate(*Date::Parse("2023-11-20"), "2023-11-20"))
                     .Add("chip:gamma", "memory", Q(96e9, "bytes", "96 GB"))
                     .Add("chip:gamma", "memory_type", Value::Text("HBM3"))
                     .Add("chip:gamma", "foundry", Value::Entity("org:tsmc", "TSMC"))
                     .Add("llm:test-70b", "parameters", Q(70e9, "parameters", "70 B"))
                     .Write(*store_, "run-1");
    DocBuilder("news", "press", "news.example")
        .Add("chip:alpha", "foundry", Value::NotPublished("has not named a foundry"))
        .Add("chip:alpha", "peak_throughput", Q(3.4e15, "ops_per_second", "3.4 PFLOPS"), server)
        .Add("chip:gamma", "memory", Q(80e9, "bytes", "80 GB"))
        .Write(*store_, "run-1");
  }

  Result<QueryResult> Run(const std::string& text, const QueryOptions& options = {}) {
    return RunQuery(*store_, RealSchema(), text, options);
  }

  QueryResult Ok(const std::string& text, const QueryOptions& options = {}) {
    Result<QueryResult> r = Run(text, options);
    EXPECT_TRUE(r.ok()) << text << "\n" << r.status().message();
    return r.ok() ? *r : QueryResult{};
  }

  std::vector<std::string> Names(const std::string& text) {
    std::vector<std::string> out;
    for (const Row& row : Ok(text).rows) out.push_back(row.name);
    return out;
  }

  std::string Error(const std::string& text) {
    Result<QueryResult> r = Run(text);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? "" : r.status().message();
  }

  // The citation of a fact number, for checking where a value comes from.
  static const Citation* CitationOf(const QueryResult& r, int number) {
    for (const Citation& c : r.citations) {
      if (c.number == number) return &c;
    }
    return nullptr;
  }

  // Documents behind a support, sorted.
  static std::vector<std::string> Documents(const QueryResult& r, const Support& s) {
    std::vector<std::string> out;
    for (uint64_t id : s.Facts()) {
      for (const Citation& c : r.citations) {
        if (c.fact_id == id) out.push_back(c.document_id + ":" + (c.passage ? c.passage->excerpt : "(not read)"));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  TxId vendor_tx_ = 0;
};

using Strings = std::vector<std::string>;

std::string JoinNotes(const Strings& notes) {
  std::string out;
  for (const std::string& n : notes) out += n + "\n";
  return out;
}

// A query that shows thousands of columns (a runaway script) is refused at
// the first column too many, before any of them is read.
TEST_F(EvaluatorTest, ShownColumnsAreBounded) {
  // Distinct columns: one name twice is refused (ColumnsOfOneNameAreRefused).
  std::string columns = "memory";
  for (int i = 1; i < 256; ++i) columns += ", memory{scope=s" + std::to_string(i) + "}";
  Result<QueryResult> most = Run("find chip show " + columns);
  ASSERT_TRUE(most.ok()) << most.status().message();
  EXPECT_EQ(most->columns.size(), 256u);
  const std::string text = "find chip show " + columns + ", tdp";
  Result<QueryResult> too_many = Run(text);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message().rfind("line 1, column " + std::to_string(text.size() - 2) +
                                                  ": at most 256 columns can be shown, this is column 257\n",
                                              0),
            0u)
      << too_many.status().message();
}

// A text table cuts a value longer than 80 characters (one long list made its
// whole column that wide) and says so; JSON and CSV carry it whole.
TEST_F(EvaluatorTest, TextTablesCutLongValuesAndSaySo) {
  // 79 characters, then a two-byte one at the 80th place, then more: the cut
  // keeps 79 and ends with the ellipsis, never half a character.
  const std::string long_value = std::string(78, 'a') + "b\xC3\xBC" + std::string(100, 'c');
  const std::string just_fits = std::string(79, 'x') + "\xC3\xBC";  // 80 characters: shown whole
  DocBuilder("lists", "vendor", "lists.example")
      .Add("chip:alpha", "cooling", Value::Text(long_value))
      .Add("chip:beta", "cooling", Value::Text(just_fits))
      .Write(*store_, "run-2");
  QueryResult r = Ok("find chip show cooling order by name");
  ASSERT_GE(r.rows.size(), 2u);
  const std::string text = Render(r, Format::kText);
  EXPECT_NE(text.find(std::string(78, 'a') + "b\xE2\x80\xA6 [1]"), std::string::npos) << text;
  // The sources below the table keep the claim and its excerpt whole: they are the evidence.
  const std::string table = text.substr(0, text.find("\nsources:"));
  EXPECT_EQ(table.find(std::string(100, 'c')), std::string::npos) << text;
  EXPECT_NE(text.find("cooling = " + long_value), std::string::npos) << text;
  EXPECT_NE(text.find(just_fits + " [2]"), std::string::npos) << text;
  EXPECT_NE(text.find("note: 1 value is cut at 80 characters here (\xE2\x80\xA6); --format json or csv shows it whole"),
            std::string::npos)
      << text;
  // The column is as wide as the cut value, not the whole one.
  const size_t rule = text.find('\n') + 1;
  const std::string rule_line = text.substr(rule, text.find('\n', rule) - rule);
  EXPECT_LT(rule_line.size(), 120u) << rule_line;
  EXPECT_NE(Render(r, Format::kJson).find(long_value), std::string::npos);
  EXPECT_NE(Render(r, Format::kCsv).find(long_value), std::string::npos);
  // Nothing cut, no note.
  EXPECT_EQ(Render(Ok("find chip where memory > 50 GB show memory"), Format::kText).find("cut at"), std::string::npos);
}

// A cell of several values wider than a value may be shows a value a line,
// the row's other cells on its first line; a narrow one stays on one line.
TEST_F(EvaluatorTest, TextTablesShowAWideCellsValuesOneALine) {
  DocBuilder("formats", "vendor", "formats.example")
      .Add("chip:alpha", "cooling", Value::Text(std::string(40, 'a')))
      .Add("chip:alpha", "cooling", Value::Text(std::string(40, 'b')))
      .Add("chip:beta", "cooling", Value::Text("air"))
      .Add("chip:beta", "cooling", Value::Text("liquid"))
      .Add("chip:alpha", "peak_throughput", Q(420e12, "ops_per_second", "420 TOPS"), {{"format", "int8"}})
      .Write(*store_, "run-2");
  // On several lines, the conflict is marked on the disputed values' lines:
  // Alpha's bf16 figures (210 TFLOPS against 212.5 per chip), not its int8.
  const std::string throughput =
      Render(Ok("find chip where reported(peak_throughput) show peak_throughput"), Format::kText);
  auto line_with = [&throughput](const std::string& what) {
    const size_t at = throughput.find(what);
    if (at == std::string::npos) return std::string();
    const size_t begin = throughput.rfind('\n', at) + 1;
    return throughput.substr(begin, throughput.find('\n', at) - begin);
  };
  EXPECT_NE(line_with("210 TFLOPS").find("(conflict)"), std::string::npos) << throughput;
  EXPECT_NE(line_with("3.4 PFLOPS").find("(conflict)"), std::string::npos) << throughput;
  EXPECT_NE(line_with("420 TOPS"), "") << throughput;
  EXPECT_EQ(line_with("420 TOPS").find("(conflict)"), std::string::npos) << throughput;
  const std::string text = Render(Ok("find chip where reported(cooling) show cooling order by name"), Format::kText);
  const std::string table = text.substr(0, text.find("\n\n"));
  std::vector<std::string> lines;
  for (size_t from = 0; from < table.size();) {
    const size_t end = table.find('\n', from);
    lines.push_back(table.substr(from, end - from));
    from = end == std::string::npos ? table.size() : end + 1;
  }
  ASSERT_GE(lines.size(), 5u) << text;
  size_t alpha = 0;
  while (alpha < lines.size() && lines[alpha].rfind("Alpha", 0) != 0) ++alpha;
  ASSERT_LT(alpha + 2, lines.size()) << text;
  const size_t column = lines[alpha].find(std::string(40, 'a'));
  ASSERT_NE(column, std::string::npos) << text;
  EXPECT_EQ(lines[alpha].find(std::string(40, 'b')), std::string::npos) << text;
  // The next line holds the second value alone, under the first.
  EXPECT_EQ(lines[alpha + 1].find(std::string(40, 'b')), column) << text;
  EXPECT_EQ(lines[alpha + 1].find_first_not_of(' '), column) << text;
  size_t beta = 0;
  while (beta < lines.size() && lines[beta].rfind("Beta", 0) != 0) ++beta;
  ASSERT_LT(beta, lines.size()) << text;
  EXPECT_NE(lines[beta].find("; liquid ["), std::string::npos) << text;  // Beta's two values on one line
  // The rule is as wide as the widest line, not the values joined.
  EXPECT_LT(lines[1].size(), column + 60) << text;
}

// A dataset's figure reads as a person writes it, in the table and in the
// footnote's claim: a whole number written as a float loses its ".0", a
// cell in base units is shown in the display unit. Pages' own wording stays.
TEST_F(EvaluatorTest, DatasetFiguresReadAsPeopleWriteThem) {
  DocBuilder("dataset", "aggregator", "data.example")
      .Add("chip:alpha", "base_clock", Q(1665e6, "frequency", "1665.0 MHz"))
      .Add("chip:alpha", "memory_bandwidth", Q(3.35e12, "bytes_per_second", "3350000000000.0 byte/s"))
      .Add("chip:alpha", "tdp", Q(700, "watts", "700.05 W"))
      .Add("chip:beta", "base_clock", Q(1.5e9, "frequency", "1.50 GHz"))
      .Write(*store_, "run-2");
  QueryResult r = Ok("facts from document \"dataset\"");
  const std::string text = Render(r, Format::kText);
  for (const char* shown : {"base_clock  1665 MHz [", "memory_bandwidth  3350 GB/s [", "tdp  700.05 W [",
                            "base_clock  1.50 GHz [", "base_clock = 1665 MHz\n", "memory_bandwidth = 3350 GB/s\n",
                            "tdp = 700.05 W\n", "base_clock = 1.50 GHz\n"}) {
    std::string squeezed = text;  // columns are padded: compare with runs of spaces made one
    for (size_t at; (at = squeezed.find("   ")) != std::string::npos;) squeezed.erase(at, 1);
    EXPECT_NE(squeezed.find(shown), std::string::npos) << shown << "\n" << text;
  }
  // Only the excerpt keeps the figure as written.
  ASSERT_NE(text.find("\"1665.0 MHz\""), std::string::npos) << text;
  EXPECT_EQ(text.find("1665.0 MHz"), text.find("\"1665.0 MHz\"") + 1) << text;
  EXPECT_EQ(text.find("3350000000000.0 byte/s ["), std::string::npos) << text;
}

// A row's cells are keyed by column name (JSON objects): one name twice
// would lose a column, whatever the qualifiers are written as.
TEST_F(EvaluatorTest, ColumnsOfOneNameAreRefused) {
  for (const char* text : {"find chip show memory, tdp, memory", "find chip show memory{scope=chip}, memory{scope=chip}"}) {
    Result<QueryResult> r = Run(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("is shown twice"), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(Run("find chip show memory, memory{scope=chip}").ok());
}

TEST_F(EvaluatorTest, QuantitiesCompareInCanonicalUnits) {
  EXPECT_EQ(Names("find chip where memory > 32 GB order by name"), (Strings{"Alpha", "Gamma"}));
  EXPECT_EQ(Names("find chip where memory = 32 GB"), (Strings{"Beta"}));
  EXPECT_EQ(Names("find chip where memory >= 32 GiB order by name"), (Strings{"Alpha", "Gamma"}));
  EXPECT_EQ(Names("find chips where memory < 0.04 TB order by name"), (Strings{"Alpha", "Beta"}));
  QueryResult r = Ok("find chip where memory >= 64 GB");
  EXPECT_EQ(r.plan, "index range scan memory >= 6.4e+10 bytes");
  ASSERT_EQ(r.rows.size(), 1u);
  // Gamma matches on 96 GB; the 80 GB claim does too; both are listed as support.
  EXPECT_EQ(Documents(r, r.rows[0].support), (Strings{"news:80 GB", "vend:96 GB"}));
}

TEST_F(EvaluatorTest, ScopeIsNormalisedPerChip) {
  QueryResult r = Ok("find chip where bf16 >= 212 TFLOPS");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].name, "Alpha");
  ASSERT_EQ(r.rows[0].reasons.size(), 1u);
  ASSERT_EQ(r.rows[0].reasons[0].supporting.size(), 1u);
  EXPECT_NE(r.rows[0].reasons[0].supporting[0].text.find("3.4 PFLOPS per server of 16 chips = 212.5 TFLOPS per chip"),
            std::string::npos)
      << r.rows[0].reasons[0].supporting[0].text;
  // 210 vs 212.5 TFLOPS per chip: 1.2% apart, a conflict at the default 1%, not at 2%.
  EXPECT_EQ(Names("find chip where conflicting(bf16)"), (Strings{"Alpha"}));
  EXPECT_EQ(Names("find chip where conflicting(bf16) tolerance 2%"), (Strings{}));
}

TEST_F(EvaluatorTest, ANameAskedWholeThatNothingHasIsSaid) {
  QueryResult none = Ok("find chip where name = \"Alph\"");
  EXPECT_TRUE(none.rows.empty());
  std::string notes;
  for (const std::string& n : none.notes) notes += n + "\n";
  EXPECT_NE(notes.find("no chip's name or alias is exactly \"Alph\""), std::string::npos) << notes;
  EXPECT_NE(notes.find("name contains \"Alph\" finds names that include it"), std::string::npos) << notes;
  // A chip given where a model is asked for is named with its kind, in English.
  EXPECT_NE(Error("find chip where fits(\"Alpha\", int8)").find("'Alpha' is a chip, not an llm"), std::string::npos)
      << Error("find chip where fits(\"Alpha\", int8)");
  // Found, or counted, it says nothing; nor under "or", where another test may have found none.
  for (const char* q : {"find chip where name = \"alpha\"", "count chip where name = \"Alpha\"",
                        "find chip where name = \"Alph\" or memory > 1000 GB"}) {
    QueryResult r = Ok(q);
    for (const std::string& n : r.notes) EXPECT_EQ(n.find("is exactly"), std::string::npos) << q << ": " << n;
  }
}

TEST_F(EvaluatorTest, DatesOfAnyPrecisionAreThreeValued) {
  // Alpha was announced "2023-11": whether that is on or after the 15th is unknown.
  QueryResult r = Ok("find chip where announced >= 2023-11-15");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].name, "Beta");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("unknown for them"), std::string::npos);
  EXPECT_NE(r.notes.back().find("Alpha"), std::string::npos);
  EXPECT_EQ(Names("find chip where announced >= 2023-11 order by name"), (Strings{"Alpha", "Beta"}));
  EXPECT_EQ(Names("find chip where announced < 2023-12 order by name"), (Strings{"Alpha", "Beta"}));
  EXPECT_EQ(Names("find chip where announced = 2023 order by name"), (Strings{"Alpha", "Beta"}));
  EXPECT_EQ(Names("find chip where announced > 2023"), (Strings{}));
  // Negation keeps unknown unknown: Alpha is in neither answer.
  EXPECT_EQ(Names("find chip where not (announced >= 2023-11-15)"), (Strings{}));
}

TEST_F(EvaluatorTest, PresenceTestsAndNotPublished) {
  EXPECT_EQ(Names("find chip where not_published(foundry)"), (Strings{"Alpha"}));
  EXPECT_EQ(Names("find chip where unknown(foundry)"), (Strings{"Beta"}));
  EXPECT_EQ(Names("find chip where reported(foundry) order by name"), (Strings{"Alpha", "Gamma"}));
  EXPECT_EQ(Names("find chip where conflicting(foundry)"), (Strings{"Alpha"}));
  EXPECT_EQ(Names("find chip where foundry = TSMC order by name"), (Strings{"Alpha", "Gamma"}));
  EXPECT_EQ(Ok("find chip where foundry = TSMC").plan, "index scan foundry = org:tsmc");
  EXPECT_EQ(Ok("find chip where not_published(foundry)").plan, "index scan foundry = not published");
  EXPECT_EQ(Ok("find chip where unknown(foundry)").plan, "scan of every chip");

  QueryResult r = Ok("alpha1.foundry");
  ASSERT_EQ(r.rows.size(), 1u);
  const Cell& cell = r.rows[0].cells.at(0);
  EXPECT_EQ(cell.state, Cell::State::kConflict);
  EXPECT_EQ(cell.conflict, "TSMC vs not published (value vs not published)");
  ASSERT_EQ(cell.values.size(), 2u);
  EXPECT_EQ(cell.values[0].text, "TSMC");
  EXPECT_EQ(Documents(r, cell.values[0].support), (Strings{"vend:TSMC"}));
  EXPECT_EQ(cell.values[1].kind, ShownValue::Kind::kNotPublished);
  EXPECT_EQ(Documents(r, cell.values[1].support), (Strings{"news:has not named a foundry"}));

  QueryResult unknown = Ok("beta.foundry");
  EXPECT_EQ(unknown.rows[0].cells[0].state, Cell::State::kUnknown);
  EXPECT_EQ(unknown.rows[0].cells[0].values[0].text, "\xE2\x80\x94 (no source)");
}

TEST_F(EvaluatorTest, KleeneLogic) {
  EXPECT_EQ(Names("find chip where memory_type = \"hbm3\" and memory > 90 GB"), (Strings{"Gamma"}));
  EXPECT_EQ(Names("find chip where memory_type = \"HBM3\" or memory < 40 GB order by name"),
            (Strings{"Alpha", "Beta", "Gamma"}));
  // Alpha and Beta state no memory type: "not HBM3" is unknown for them, false for Gamma.
  EXPECT_EQ(Names("find chip where not (memory_type = \"HBM3\")"), (Strings{}));
  EXPECT_EQ(Names("find chip where memory_type contains \"hbm\""), (Strings{"Gamma"}));
  // An unknown disjunct does not hide a true one; an unknown conjunct keeps the row out.
  EXPECT_EQ(Names("find chip where unknown(memory_type) and memory < 33 GB"), (Strings{"Beta"}));
  EXPECT_EQ(Names("find chip where not not reported(memory_type)"), (Strings{"Gamma"}));
}

// A region named with its place ("US East (Ohio)") is in the area asked
// for; a shorter or other name is not, and `contains` is as before.
TEST_F(EvaluatorTest, AnAreaTakesThePlacesNamedInIt) {
  PutEntity(*store_, "instance_type:z9.large", "instance_type", "z9.large");
  PutEntity(*store_, "instance_type:z9.small", "instance_type", "z9.small");
  PutEntity(*store_, "instance_type:z9.mid", "instance_type", "z9.mid");
  DocBuilder("regions", "vendor", "vendor.example")
      .Add("instance_type:z9.large", "available_in", Value::Text("US East (Ohio)"))
      .Add("instance_type:z9.large", "available_in", Value::Text("US East (N. Virginia)"))
      .Add("instance_type:z9.small", "available_in", Value::Text("US Eastern Europe"))
      .Add("instance_type:z9.small", "available_in", Value::Text("US East ()"))
      .Add("instance_type:z9.mid", "available_in", Value::Text("US East(Oregon)"))
      .Write(*store_, "run-2");
  EXPECT_EQ(Names("find instance_type where available_in = \"us  east\" order by name"), (Strings{"z9.large", "z9.mid"}));
  EXPECT_EQ(Names("find instance_type where available_in = \"US East (Ohio)\""), (Strings{"z9.large"}));
  EXPECT_EQ(Names("find instance_type where available_in = \"US\""), (Strings{}));
  EXPECT_EQ(Names("find instance_type where available_in = \"US East (Oregon)\""), (Strings{}));
  EXPECT_EQ(Names("find instance_type where available_in contains \"east\" order by name"),
            (Strings{"z9.large", "z9.mid", "z9.small"}));
  // Every region of z9.large is in US East: none is outside it.
  EXPECT_EQ(Names("find instance_type where available_in != \"US East\""), (Strings{"z9.small"}));
}

// A figure in FLOPS asks for floating-point operations: integer and "max"
// figures (shown in TOPS) are left aside, neither meeting nor failing it,
// and a note says how to count them. An attribute of one format is compared
// in any spelling of the unit.
TEST_F(EvaluatorTest, FlopsAreFloatingPointOperations) {
  PutEntity(*store_, "chip:delta", "chip", "Delta");
  DocBuilder("ints", "vendor", "ints.example")
      .Add("chip:alpha", "peak_throughput", Q(900e12, "ops_per_second", "900 TOPS"), {{"format", "int8"}})
      .Add("chip:delta", "peak_throughput", Q(1000e12, "ops_per_second", "1000 TOPS"), {{"format", "max"}})
      .Write(*store_, "run-2");
  EXPECT_EQ(Names("find chip where peak_throughput > 800 TOPS order by name"), (Strings{"Alpha", "Delta"}));
  QueryResult flops = Ok("find chip where peak_throughput > 800 TFLOPS");
  EXPECT_TRUE(flops.rows.empty());
  const std::string notes = JoinNotes(flops.notes);
  EXPECT_NE(notes.find("peak_throughput > 800 TFLOPS compares floating-point figures only"), std::string::npos)
      << notes;
  EXPECT_NE(notes.find("compare in TOPS to count them"), std::string::npos) << notes;
  // Delta has no floating-point figure: unknown, not false, and the note says why.
  EXPECT_NE(notes.find("unknown for them (no claim, \"not published\", only integer or max figures for a comparison "
                       "in FLOPs, or a date too coarse to decide)"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("Delta"), std::string::npos) << notes;
  EXPECT_EQ(Names("find chip where peak_throughput > 200 TFLOPS"), (Strings{"Alpha"}));
  QueryResult reasons = Ok("find chip where peak_throughput > 200 TFLOPS");
  ASSERT_EQ(reasons.rows.size(), 1u);
  for (const Reason::Evidence& e : reasons.rows[0].reasons.at(0).supporting) {
    EXPECT_EQ(e.text.find("900"), std::string::npos) << e.text;
  }
  EXPECT_EQ(Names("find chip where int8 > 800 TFLOPS"), (Strings{"Alpha"}));
  // However the FLOP unit is written.
  EXPECT_TRUE(Ok("find chip where peak_throughput > 0.8 petaflops").rows.empty());
  // An attribute shown in OPS (a dataset's price-performance, every figure "max") is compared as written.
  DocBuilder("prices", "aggregator", "prices.example")
      .Add("chip:delta", "price_performance", Q(50e9, "ops_per_second_per_usd", "50 GOPS/USD"), {{"format", "max"}})
      .Write(*store_, "run-3");
  EXPECT_EQ(Names("find chip where price_performance > 10 GFLOPS/USD"), (Strings{"Delta"}));
  EXPECT_EQ(JoinNotes(Ok("find chip where price_performance > 10 GFLOPS/USD").notes).find("floating-point"),
            std::string::npos);
  EXPECT_TRUE(JoinNotes(Ok("find chip where int8 > 800 TFLOPS").notes).find("floating-point") == std::string::npos);
}

// An ordered answer cut by `limit` says how much it left out, and when rows
// left out rank the same as the last one shown (which of them made the cut
// was the store's order).
TEST_F(EvaluatorTest, ALimitSaysWhatItCutAndWhereItCutATie) {
  QueryResult no_tie = Ok("find chip order by memory desc limit 2");
  ASSERT_EQ(no_tie.rows.size(), 2u);
  EXPECT_NE(JoinNotes(no_tie.notes).find("limit 2: 1 more row matched and is not shown\n"), std::string::npos)
      << JoinNotes(no_tie.notes);
  PutEntity(*store_, "chip:delta", "chip", "Delta");
  DocBuilder("more", "press", "more.example").Add("chip:delta", "memory", Q(96e9, "bytes", "96 GB")).Write(*store_, "run-2");
  QueryResult tie = Ok("find chip order by memory desc limit 1");
  ASSERT_EQ(tie.rows.size(), 1u);
  const std::string notes = JoinNotes(tie.notes);
  EXPECT_NE(notes.find("limit 1: 3 more rows matched and are not shown; 1 of them ranks the same as the last one "
                       "shown (" + tie.rows[0].name + "), so which made the cut is arbitrary"),
            std::string::npos)
      << notes;
  // Rows with no value tie with a last row that has none: said so.
  QueryResult valueless = Ok("find chip order by tdp desc limit 2");
  EXPECT_NE(JoinNotes(valueless.notes).find("limit 2: 2 more rows matched and are not shown; 2 of them have no tdp "
                                            "either, as the last one shown"),
            std::string::npos)
      << JoinNotes(valueless.notes);
  // Nothing cut, nothing said.
  EXPECT_EQ(JoinNotes(Ok("find chip order by memory desc limit 10").notes).find("limit 10"), std::string::npos);
}

// A row whose place in an order rests on a figure far from what the
// entity's other sources say (a server's memory given as a chip's) is named
// in a note; a figure most sources give, or one within 3x, is not.
TEST_F(EvaluatorTest, ARankOnAnOutlierIsNamed) {
  PutEntity(*store_, "chip:delta", "chip", "Delta");
  DocBuilder("one", "press", "one.example").Add("chip:delta", "memory", Q(32e9, "bytes", "32 GB")).Write(*store_, "run-2");
  DocBuilder("two", "press", "two.example").Add("chip:delta", "memory", Q(32e9, "bytes", "32 GB")).Write(*store_, "run-2");
  DocBuilder("big", "press", "big.example").Add("chip:delta", "memory", Q(512e9, "bytes", "512 GB")).Write(*store_, "run-2");
  QueryResult r = Ok("find chip order by memory desc");
  ASSERT_FALSE(r.rows.empty());
  EXPECT_EQ(r.rows[0].name, "Delta");  // the order is the documented one: the largest value
  const std::string notes = JoinNotes(r.notes);
  EXPECT_NE(notes.find("ranked by a figure the entity's other sources put far lower"), std::string::npos) << notes;
  EXPECT_NE(notes.find("Delta by 512 GB (16x the 32 GB of 2 other sources)"), std::string::npos) << notes;
  // Gamma's 96 GB against 80 GB is within 3x: no note of it.
  EXPECT_EQ(notes.find("Gamma"), std::string::npos) << notes;
  // Figures of other formats are no measure of each other: an FP8 sparse figure 4x a BF16 one is none.
  DocBuilder("fp8", "press", "fp8.example")
      .Add("chip:gamma", "peak_throughput", Q(4000e12, "ops_per_second", "4000 TFLOPS"), {{"format", "fp8"}, {"sparsity", "sparse"}})
      .Write(*store_, "run-3");
  DocBuilder("bf16a", "press", "a.example")
      .Add("chip:gamma", "peak_throughput", Q(990e12, "ops_per_second", "990 TFLOPS"), {{"format", "bf16"}})
      .Write(*store_, "run-3");
  DocBuilder("bf16b", "press", "b.example")
      .Add("chip:gamma", "peak_throughput", Q(990e12, "ops_per_second", "990 TFLOPS"), {{"format", "bf16"}})
      .Write(*store_, "run-3");
  EXPECT_EQ(JoinNotes(Ok("find chip order by peak_throughput desc").notes).find("ranked by"), std::string::npos);
  // Ascending, Delta ranks by its 32 GB, which two sources give: nothing to say.
  EXPECT_EQ(JoinNotes(Ok("find chip order by memory asc").notes).find("ranked by"), std::string::npos);
}

// A block-scaled format's weights take their scales too: 70 B parameters at
// MXFP4 are 37.2 GB (4.25 bits each), at NVFP4 39.4 GB, against fp4's 35 GB.
TEST_F(EvaluatorTest, BlockScaledFormatsFitWithTheirScales) {
  PutEntity(*store_, "chip:delta", "chip", "Delta");
  DocBuilder("mid", "press", "mid.example").Add("chip:delta", "memory", Q(36e9, "bytes", "36 GB")).Write(*store_, "run-2");
  EXPECT_EQ(Names("find chip where fits(\"Test 70B\", fp4) order by name"), (Strings{"Delta", "Gamma"}));
  EXPECT_EQ(Names("find chip where fits(\"Test 70B\", mxfp4) order by name"), (Strings{"Gamma"}));
  EXPECT_EQ(Names("find chip where fits(\"Test 70B\", nvfp4) order by name"), (Strings{"Gamma"}));
  QueryResult r = Ok("find chip where fits(\"Test 70B\", mxfp4)");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NE(r.rows[0].reasons.at(0).supporting.at(0).text.find("70 B x 0.5312 (mxfp4) = 37.19 GB"), std::string::npos)
      << r.rows[0].reasons.at(0).supporting.at(0).text;
  // Read as it is, with no note that it was read as fp4.
  EXPECT_EQ(JoinNotes(r.notes).find("read as"), std::string::npos) << JoinNotes(r.notes);
}

TEST_F(EvaluatorTest, SourcePolicies) {
  QueryResult vendor = Ok("alpha.foundry using vendor");
  EXPECT_EQ(vendor.rows[0].cells[0].state, Cell::State::kReported);
  EXPECT_EQ(vendor.rows[0].cells[0].values[0].text, "TSMC");
  QueryResult site = Ok("alpha.foundry using site news.example");
  EXPECT_EQ(site.rows[0].cells[0].state, Cell::State::kNotPublished);
  QueryResult prefer = Ok("gamma.memory prefer vendor, press");
  ASSERT_EQ(prefer.rows[0].cells[0].values.size(), 1u);
  EXPECT_EQ(prefer.rows[0].cells[0].values[0].text, "96 GB");
  QueryResult prefer_press = Ok("gamma.memory prefer site news.example");
  EXPECT_EQ(prefer_press.rows[0].cells[0].values[0].text, "80 GB");
  QueryResult doc = Ok("gamma.memory from document news");
  ASSERT_EQ(doc.rows[0].cells[0].values.size(), 1u);
  EXPECT_EQ(doc.rows[0].cells[0].values[0].text, "80 GB");
  EXPECT_EQ(Names("find chip where conflicting(foundry) using vendor"), (Strings{}));
  EXPECT_EQ(Names("find chip where not_published(foundry) ignoring not_published"), (Strings{}));
  EXPECT_NE(Error("gamma.memory from document nwes").find("no document 'nwes' (did you mean 'news'?)"),
            std::string::npos);
}

TEST_F(EvaluatorTest, DerivedAttributeCitesItsInputs) {
  QueryResult r = Ok("alpha.perf_per_watt");
  const Cell& cell = r.rows.at(0).cells.at(0);
  const ShownValue* computed = nullptr;
  for (const ShownValue& v : cell.values) {
    if (v.computed && v.formula() == "210 TFLOPS / 500 W") computed = &v;
  }
  ASSERT_NE(computed, nullptr) << Render(r, Format::kText);
  EXPECT_EQ(computed->text, "0.42 TFLOPS/W");
  EXPECT_EQ(computed->qualifiers().at("format"), "bf16");
  EXPECT_EQ(computed->support.op, Support::Op::kAnd);
  EXPECT_EQ(Documents(r, computed->support), (Strings{"vend:210 TFLOPS", "vend:500 W"}));
  // The server figure gives a second computed value, per chip.
  EXPECT_NE(Render(r, Format::kText).find("3.4 PFLOPS per server of 16 chips = 212.5 TFLOPS per chip / 500 W"),
            std::string::npos);
  EXPECT_EQ(Names("find chip where perf_per_watt > 0.4 TFLOPS/W"), (Strings{"Alpha"}));
}

// Two figures computed from one document's own two values (a dataset row's
// two FP16 columns over its TDP) are that document's two values, which
// disagree with nothing; one computed with another document's input is a
// second source and may.
TEST_F(EvaluatorTest, FiguresComputedFromOneDocumentAloneDoNotConflict) {
  const Qualifiers fp16 = {{"format", "fp16"}};
  DocBuilder("epoch", "dataset", "epoch.example")
      .Add("chip:beta", "peak_throughput", Q(2310e12, "ops_per_second", "2310 TFLOPS"), fp16)
      .Add("chip:beta", "peak_throughput", Q(2340e12, "ops_per_second", "2340 TFLOPS"), fp16)
      .Add("chip:beta", "tdp", Q(1000, "watts", "1000 W"))
      .Write(*store_, "run-2");
  const std::string one_document = Render(Ok("beta.perf_per_watt{format=fp16}"), Format::kText);
  EXPECT_NE(one_document.find("2.31 TFLOPS/W"), std::string::npos) << one_document;
  EXPECT_NE(one_document.find("2.34 TFLOPS/W"), std::string::npos) << one_document;
  EXPECT_EQ(one_document.find("conflict"), std::string::npos) << one_document;
  // Alpha's vendor and press figures disagree (the fixture); Beta's do not.
  EXPECT_EQ(Names("find chip where conflicting(perf_per_watt)"), (Strings{"Alpha"}));
  EXPECT_EQ(Names("find chip where conflicting(peak_throughput)"), (Strings{"Alpha"}));

  DocBuilder("page", "press", "page.example")
      .Add("chip:beta", "peak_throughput", Q(2400e12, "ops_per_second", "2400 TFLOPS"), fp16)
      .Write(*store_, "run-3");
  const std::string two_documents = Render(Ok("beta.perf_per_watt{format=fp16}"), Format::kText);
  EXPECT_NE(two_documents.find("2.4 TFLOPS/W"), std::string::npos) << two_documents;
  EXPECT_NE(two_documents.find("(conflict)"), std::string::npos) << two_documents;
  EXPECT_EQ(Names("find chip where conflicting(perf_per_watt)"), (Strings{"Alpha", "Beta"}));
}

// A view's comparison (bf16, one format of peak_throughput) found through
// the predicate's index: the note on what the index did not examine names
// the view, whose own unknowns are what the condition misses (a chip with an
// int8 figure has a peak_throughput claim but no bf16 one).
TEST_F(EvaluatorTest, TheNoteOnUnexaminedUnknownsNamesTheViewAsked) {
  DocBuilder("int8", "vendor", "int8.example")
      .Add("chip:beta", "peak_throughput", Q(400e12, "ops_per_second", "400 TOPS"), {{"format", "int8"}})
      .Write(*store_, "run-2");
  QueryResult r = Ok("find chip where bf16 >= 200 TFLOPS");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].name, "Alpha");
  std::string notes;
  for (const std::string& n : r.notes) notes += n + "\n";
  EXPECT_NE(notes.find("(find chip where unknown(bf16) or not_published(bf16) lists the candidates)"), std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("unknown(peak_throughput)"), std::string::npos) << notes;
  EXPECT_NE(notes.find("a date too coarse to decide), of the chips the index found: Beta"), std::string::npos) << notes;
  // What the note suggests lists every chip the condition is unknown for.
  EXPECT_EQ(Names("find chip where unknown(bf16) or not_published(bf16) order by name"), (Strings{"Beta", "Gamma"}));
}

// The note on listing a group's entities repeats the count's condition:
// without it the query it gave listed every entity of the value.
TEST_F(EvaluatorTest, ACountsGroupHintKeepsItsCondition) {
  QueryResult counted = Ok("count chip where memory > 50 GB by foundry");
  std::string notes;
  for (const std::string& n : counted.notes) notes += n + "\n";
  EXPECT_NE(notes.find("find chip where memory > 50 GB and foundry = VALUE; memory > 50 GB and unknown(foundry) for "
                       "no source, memory > 50 GB and not_published(foundry)"),
            std::string::npos)
      << notes;
  EXPECT_EQ(Names("find chip where memory > 50 GB and foundry = TSMC"), (Strings{"Gamma"}));
  EXPECT_EQ(Names("find chip where foundry = TSMC order by name"), (Strings{"Alpha", "Gamma"}));
  QueryResult either = Ok("count chip where memory > 50 GB OR memory < 1 GB by foundry");
  notes.clear();
  for (const std::string& n : either.notes) notes += n + "\n";
  EXPECT_NE(notes.find("find chip where (memory > 50 GB OR memory < 1 GB) and foundry = VALUE"), std::string::npos)
      << notes;
  // Written over lines with a comment: the hint is one line without it.
  QueryResult commented = Ok("count chip where memory > 50 GB   # the large ones\n  and name contains \"#\" by foundry");
  notes.clear();
  for (const std::string& n : commented.notes) notes += n + "\n";
  EXPECT_NE(notes.find("find chip where memory > 50 GB and name contains \"#\" and foundry = VALUE"), std::string::npos)
      << notes;
  QueryResult all = Ok("count chip by foundry");
  notes.clear();
  for (const std::string& n : all.notes) notes += n + "\n";
  EXPECT_NE(notes.find("find chip where foundry = VALUE; unknown(foundry)"), std::string::npos) << notes;
}

TEST_F(EvaluatorTest, FitsUsesModelParametersAndMemory) {
  QueryResult r = Ok("find chip where fits(\"Test 70B\", int8)");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].name, "Gamma");
  // One parameter claim, two memory claims that each suffice: p and (m1 or m2).
  const Support& s = r.rows[0].support;
  ASSERT_EQ(s.op, Support::Op::kAnd) << s.ToString();
  EXPECT_EQ(s.ToString(), "[1] and ([2] or [3])");
  EXPECT_EQ(Documents(r, s), (Strings{"news:80 GB", "vend:70 B", "vend:96 GB"}));
  EXPECT_EQ(r.rows[0].reasons.at(0).supporting.at(0).text, "70 B x 1 (int8) = 70 GB <= 96 GB");
  EXPECT_EQ(r.plan, "index range scan memory from fits(Test 70B, int8)");
  // Headroom scales what must fit: 70 GB x 1.3 = 91 GB fits in 96 GB only; x 1.4 nowhere.
  QueryResult h = Ok("find chip where fits('Test 70B', int8, headroom 30%)");
  ASSERT_EQ(h.rows.size(), 1u);
  EXPECT_EQ(Documents(h, h.rows[0].support), (Strings{"vend:70 B", "vend:96 GB"}));
  EXPECT_EQ(Names("find chip where fits('Test 70B', int8, headroom 40%)"), (Strings{}));
  EXPECT_EQ(Names("find chip where fits('Test 70B', fp16)"), (Strings{}));
  EXPECT_EQ(Names("find chip where not fits('Test 70B', fp16) order by name"), (Strings{"Alpha", "Beta", "Gamma"}));
}

// What a formula computes without the row's own claims (the model's side of `fits`) is computed
// once per query, but per call: two calls of one rule with other models or precisions, in one
// condition, each keep their own.
TEST_F(EvaluatorTest, EachCallOfARuleKeepsItsOwnModelSide) {
  PutEntity(*store_, "llm:test-8b", "llm", "Test 8B");
  DocBuilder("small", "vendor", "small.example")
      .Add("llm:test-8b", "parameters", Q(8e9, "parameters", "8 B"))
      .Write(*store_, "run-2");
  // 8 B x 2 (fp16) = 16 GB fits everywhere; 70 B x 1 (int8) = 70 GB only in Gamma.
  EXPECT_EQ(Names("find chip where fits('Test 8B', fp16) order by name"), (Strings{"Alpha", "Beta", "Gamma"}));
  EXPECT_EQ(Names("find chip where fits('Test 8B', fp16) and not fits('Test 70B', int8) order by name"),
            (Strings{"Alpha", "Beta"}));
  EXPECT_EQ(Names("find chip where not fits('Test 70B', int8) and fits('Test 8B', fp16) order by name"),
            (Strings{"Alpha", "Beta"}));
  EXPECT_EQ(Names("find chip where fits('Test 70B', int8) or fits('Test 70B', fp16) order by name"), (Strings{"Gamma"}));
  QueryResult r = Ok("find chip where fits('Test 8B', fp16) and fits('Test 70B', int8)");
  ASSERT_EQ(r.rows.size(), 1u);
  ASSERT_EQ(r.rows[0].reasons.size(), 2u);
  EXPECT_EQ(r.rows[0].reasons[0].supporting.at(0).text.substr(0, 22), "8 B x 2 (fp16) = 16 GB");
  EXPECT_EQ(r.rows[0].reasons[1].supporting.at(0).text.substr(0, 22), "70 B x 1 (int8) = 70 G");
  // The condition of `with evidence` rows is evaluated without texts (and first: no index path
  // computes the model's side for a negation); the column shown, with them.
  QueryResult shown = Ok("find chip where not fits('Test 70B', fp16) show fits('Test 70B', fp16) with evidence");
  ASSERT_FALSE(shown.rows.empty());
  const std::string text = Render(shown, Format::kText);
  EXPECT_NE(text.find("no: 70 B x 2 (fp16) = 140 GB > 96 GB"), std::string::npos) << text;
}

TEST_F(EvaluatorTest, WithEvidenceAndCount) {
  QueryResult r = Ok("find chip where memory > 50 GB with evidence");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.columns.at(0), "evidence");
  std::vector<std::string> evidence;
  for (const Row& row : r.rows) evidence.push_back(row.cells.at(0).values.at(0).text);
  std::sort(evidence.begin(), evidence.end());
  EXPECT_EQ(evidence, (Strings{"memory = 80 GB", "memory = 96 GB"}));
  EXPECT_EQ(Ok("count chip where memory > 50 GB with evidence").count.value_or(0), 2u);
  EXPECT_EQ(Ok("count chip where memory > 50 GB").count.value_or(0), 1u);
  EXPECT_EQ(Ok("count chip").count.value_or(0), 3u);
  // int4: 70 B x 0.5 = 35 GB; Alpha's 32 GiB (34.4 GB) is just short, Gamma's 96 and 80 GB fit.
  EXPECT_EQ(Ok("find chip where fits('Test 70B', int4) with evidence").rows.size(), 2u);
  // Each of a chip's rows (one a way the condition holds) names the chip and shows its columns,
  // the last as the first.
  QueryResult shown = Ok("find chip where memory > 50 GB with evidence show memory_type, foundry");
  ASSERT_EQ(shown.rows.size(), 2u);
  for (const Row& row : shown.rows) {
    EXPECT_EQ(row.entity, "chip:gamma");
    EXPECT_EQ(row.name, "Gamma");
    ASSERT_EQ(row.cells.size(), 3u);
    EXPECT_EQ(row.cells[0].column, "evidence");
    EXPECT_EQ(row.cells[1].column, "memory_type");
    EXPECT_EQ(row.cells[1].values.at(0).text, "HBM3");
    EXPECT_EQ(row.cells[2].column, "foundry");
    EXPECT_EQ(row.cells[2].values.at(0).text, "TSMC");
  }
  // Past the most ways a row lists, a note names the row.
  QueryOptions one_way;
  one_way.max_witnesses_per_row = 1;
  QueryResult cut = Ok("find chip where memory > 50 GB with evidence", one_way);
  ASSERT_EQ(cut.rows.size(), 1u);
  EXPECT_EQ(cut.rows[0].name, "Gamma");
  ASSERT_EQ(cut.notes.size(), 2u);
  EXPECT_EQ(cut.notes[0].rfind("found through an index: chips it did not find were not examined", 0), 0u) << cut.notes[0];
  EXPECT_EQ(cut.notes[1], "Gamma: more than 1 ways the condition holds; the rest are not listed");
  // A limit inside a row's ways stops there; with ways left out too, the row still says so.
  QueryResult first = Ok("find chip where memory > 50 GB with evidence limit 1");
  ASSERT_EQ(first.rows.size(), 1u);
  EXPECT_EQ(first.rows[0].name, "Gamma");
  EXPECT_EQ(first.rows[0].cells.at(0).values.at(0).text.rfind("memory = ", 0), 0u);
  QueryResult first_cut = Ok("find chip where memory > 50 GB with evidence limit 1", one_way);
  ASSERT_EQ(first_cut.rows.size(), 1u);
  EXPECT_NE(std::find(first_cut.notes.begin(), first_cut.notes.end(),
                      "Gamma: more than 1 ways the condition holds; the rest are not listed"),
            first_cut.notes.end());
  EXPECT_TRUE(Ok("find chip where memory > 50 GB with evidence limit 0").rows.empty());
}

// A formula term that reads only a call's entity argument is computed once per query, and every
// row's evidence cites its claims. When that entity is itself a candidate, and the first one
// evaluated, its claims are first read as the row's own: the rows after it must still show their
// texts (with the entity's name), not "fact N".
TEST_F(EvaluatorTest, EvidenceFromACallArgumentThatIsAlsoTheFirstRowReadsAsText) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(CHIPKG_SOURCE_DIR) + "/schema")) {
    if (entry.path().extension() != ".schema") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    files.emplace_back(entry.path().string(), text.str());
  }
  files.emplace_back("test.schema",
                     "derive holds_more params=other formula=\"memory >= other.memory\" "
                     "description=\"At least the memory of another chip\"\n");
  Result<Schema> schema = Schema::LoadTexts(files);
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  // Not through an index (the "or") and through one; on one thread, and in two halves (Alpha, then
  // Beta and Gamma on the helper): whichever chip is the argument, some evaluator reads its memory
  // first as its own row's.
  QueryOptions in_two;
  in_two.evaluate_in_two_from = 2;
  for (const QueryOptions& options : {QueryOptions{}, in_two}) {
    for (const std::string chip : {"Alpha", "Beta"}) {  // (no other chip has Gamma's memory)
      for (const std::string tail : {" or memory_type = 'none' with evidence", " with evidence"}) {
        const std::string text = "find chip where holds_more('" + chip + "')" + tail;
        Result<QueryResult> r = RunQuery(*store_, *schema, text, options);
        ASSERT_TRUE(r.ok()) << text << ": " << r.status().message();
        size_t cited_by_others = 0;
        for (const Row& row : r->rows) {
          for (const ShownValue& v : row.cells.at(0).values) {
            EXPECT_EQ(v.text.find("fact "), std::string::npos) << text << ": " << row.name << ": " << v.text;
            if (row.name != chip && v.text.rfind(chip + " memory = ", 0) == 0) ++cited_by_others;
          }
        }
        EXPECT_GT(cited_by_others, 0u) << text;
      }
    }
  }
}

// Rows that show no reasons (`with evidence`, counts) skip the texts of a derived condition's
// combinations; what holds, what it rests on, and the formulas of computed values shown beside
// it are the same as when reasons are shown.
TEST_F(EvaluatorTest, RowsWithoutReasonsKeepWhatADerivedConditionRestsOn) {
  for (const std::string fits : {"fits('Test 70B', int4)", "fits('Test 70B', int8)", "fits('Test 70B', int4, headroom 20%)"}) {
    SCOPED_TRACE(fits);
    QueryResult reasons = Ok("find chip where " + fits);
    QueryResult evidence = Ok("find chip where " + fits + " with evidence");
    std::vector<std::string> from_reasons, from_evidence;
    for (const Row& row : reasons.rows) {
      ASSERT_FALSE(row.reasons.empty());
      EXPECT_NE(row.reasons.at(0).supporting.at(0).text.find(" <= "), std::string::npos);
      bool truncated = false;
      for (const std::vector<uint64_t>& w : row.support.Witnesses(100, &truncated)) {
        std::string facts = row.name;
        for (uint64_t id : w) facts += " " + std::to_string(id);
        from_reasons.push_back(facts);
      }
    }
    for (const Row& row : evidence.rows) {
      EXPECT_TRUE(row.reasons.empty());
      std::string facts = row.name;
      for (uint64_t id : row.support.Facts()) facts += " " + std::to_string(id);
      from_evidence.push_back(facts);
    }
    std::sort(from_reasons.begin(), from_reasons.end());
    std::sort(from_evidence.begin(), from_evidence.end());
    EXPECT_FALSE(from_evidence.empty());
    EXPECT_EQ(from_evidence, from_reasons);
    EXPECT_EQ(Ok("count chip where " + fits).count.value_or(0), reasons.rows.size());
  }
  // A computed value shown beside a derived condition keeps its formula.
  QueryResult r = Ok("find chip where fits('Test 70B', int4) or perf_per_watt > 0.1 TFLOPS/W with evidence show perf_per_watt");
  ASSERT_FALSE(r.rows.empty()) << Render(r, Format::kText);
  bool formula = false;
  for (const Row& row : r.rows) {
    for (const Cell& cell : row.cells) {
      for (const ShownValue& v : cell.values) formula = formula || (v.computed && v.formula() == "210 TFLOPS / 500 W");
    }
  }
  EXPECT_TRUE(formula) << Render(r, Format::kText);
}

TEST_F(EvaluatorTest, FactsAndConflictsStatements) {
  EXPECT_EQ(Ok("facts about gamma").rows.size(), 4u);
  EXPECT_EQ(Ok("facts from document news").rows.size(), 3u);
  EXPECT_EQ(Ok("facts about gamma from document news").rows.size(), 1u);
  EXPECT_EQ(Ok("facts about gamma show memory").rows.size(), 2u);
  QueryResult c = Ok("conflicts about alpha");
  ASSERT_EQ(c.rows.size(), 2u) << Render(c, Format::kText);
  EXPECT_EQ(Ok("conflicts about alpha ignoring not_published").rows.size(), 1u);
  EXPECT_EQ(Ok("conflicts in chip").rows.size(), 3u);
  EXPECT_EQ(Ok("conflicts in chip tolerance 25%").rows.size(), 1u);  // foundry only: 96 vs 80 GB is 20%
  EXPECT_NE(Error("facts").find("'facts' needs 'about ENTITY' or 'from document ID'"), std::string::npos);
}

// A disagreement reads the same way round in every row: the value stated
// first on the left, whichever claims of it a pair holds (the third
// document's 32 GB against the second's 40 GB is "32 GB | 40 GB" too).
TEST_F(EvaluatorTest, ConflictPairsShowTheValueStatedFirstOnTheLeft) {
  PutEntity(*store_, "instance:x.mid", "instance_type", "x.mid");
  const char* docs[] = {"mid-a", "mid-b", "mid-c"};
  const double chips[] = {32, 40, 32};
  for (int d = 0; d < 3; ++d) {
    DocBuilder(docs[d], "press", std::string(docs[d]) + ".example")
        .Add("instance:x.mid", "chips", Q(chips[d], "count", std::to_string(static_cast<int>(chips[d]))))
        .Write(*store_, "run-2");
  }
  QueryResult c = Ok("conflicts about \"x.mid\"");
  ASSERT_EQ(c.rows.size(), 2u) << Render(c, Format::kText);
  for (const Row& row : c.rows) {
    EXPECT_EQ(row.cells.at(1).values.at(0).text, "32") << Render(c, Format::kText);
    EXPECT_EQ(row.cells.at(2).values.at(0).text, "40") << Render(c, Format::kText);
  }
  // Each side still cites its own claim: the two rows' left claims differ.
  EXPECT_NE(c.rows[0].cells[1].values[0].support.citation, c.rows[1].cells[1].values[0].support.citation);
  EXPECT_EQ(c.rows[0].cells[2].values[0].support.citation, c.rows[1].cells[2].values[0].support.citation);

  // Agreement within a tolerance is not transitive (100 ~ 100.9 ~ 101.8 at
  // 1%): sides follow equal values, so 100 stays on the left of 101.8.
  PutEntity(*store_, "instance:x.wide", "instance_type", "x.wide");
  const char* wide_docs[] = {"wide-a", "wide-b", "wide-c", "wide-d"};
  const double wide[] = {100, 100.9, 101.8, 100};
  for (int d = 0; d < 4; ++d) {
    std::ostringstream written;
    written << wide[d];
    DocBuilder(wide_docs[d], "press", std::string(wide_docs[d]) + ".example")
        .Add("instance:x.wide", "chips", Q(wide[d], "count", written.str()))
        .Write(*store_, "run-2");
  }
  QueryResult w = Ok("conflicts about \"x.wide\" tolerance 1%");
  ASSERT_EQ(w.rows.size(), 2u) << Render(w, Format::kText);
  for (const Row& row : w.rows) {
    EXPECT_EQ(row.cells.at(1).values.at(0).text, "100") << Render(w, Format::kText);
    EXPECT_EQ(row.cells.at(2).values.at(0).text, "101.8") << Render(w, Format::kText);
  }
}

// A figure several times another (a server's given as the chip's) is said
// to be perhaps not per chip in a conflicts row, as in a find's conflict
// cell; a small difference, or one of a figure that does not scale with the
// chips, is not.
TEST_F(EvaluatorTest, ConflictRowsSayAFigureSeveralTimesAnotherMayNotBePerChip) {
  PutEntity(*store_, "chip:x9", "chip", "X9");
  DocBuilder("x9-chip", "vendor", "x9.example")
      .Add("chip:x9", "memory_bandwidth", Q(820e9, "bytes_per_second", "820 GB/s"))
      .Add("chip:x9", "tdp", Q(500, "watts", "500 W"))
      .Write(*store_, "run-2");
  DocBuilder("x9-server", "press", "press.example")
      .Add("chip:x9", "memory_bandwidth", Q(9800e9, "bytes_per_second", "9800 GB/s"))
      .Add("chip:x9", "tdp", Q(520, "watts", "520 W"))
      .Write(*store_, "run-2");
  QueryResult c = Ok("conflicts about X9");
  ASSERT_EQ(c.rows.size(), 2u) << Render(c, Format::kText);
  std::map<std::string, std::string> difference;
  for (const Row& row : c.rows) difference[row.cells.at(0).values.at(0).text] = row.cells.at(3).values.at(0).text;
  EXPECT_EQ(difference["memory_bandwidth"], "12x: one may not be a per-chip figure (describe \"X9\" says which)");
  EXPECT_EQ(difference["tdp"], "4.0%");
}

// An instance offered in the US and in Mumbai, by two documents: values=many
// in the schema (available_in), so neither contradicts the other, in a
// query's reasons or in a conflicts statement (or `chipkg conflicts`).
TEST_F(EvaluatorTest, ValuesSideBySideNeitherContradictNorConflict) {
  PutEntity(*store_, "instance:x.large", "instance_type", "x.large");
  DocBuilder("regions-a", "vendor", "a.example")
      .Add("instance:x.large", "available_in", Value::Text("US"))
      .Add("instance:x.large", "chips", Q(16, "count", "16"))
      .Write(*store_, "run-2");
  DocBuilder("regions-b", "press", "b.example")
      .Add("instance:x.large", "available_in", Value::Text("Mumbai"))
      .Add("instance:x.large", "chips", Q(8, "count", "8"))
      .Write(*store_, "run-2");
  QueryResult found = Ok("find instance_type where available_in contains \"us\"");
  ASSERT_EQ(found.rows.size(), 1u);
  ASSERT_EQ(found.rows[0].reasons.size(), 1u);
  EXPECT_EQ(found.rows[0].reasons[0].supporting.size(), 1u);
  EXPECT_TRUE(found.rows[0].reasons[0].contradicting.empty()) << Render(found, Format::kText);
  // A figure still has one value: 16 chips against 8 contradicts.
  QueryResult chips = Ok("find instance_type where chips = 16");
  ASSERT_EQ(chips.rows.size(), 1u);
  EXPECT_EQ(chips.rows[0].reasons.at(0).contradicting.size(), 1u) << Render(chips, Format::kText);
  QueryResult c = Ok("conflicts about \"x.large\"");
  ASSERT_EQ(c.rows.size(), 1u) << Render(c, Format::kText);
  EXPECT_EQ(c.rows[0].cells.at(0).values.at(0).text, "chips") << Render(c, Format::kText);
  auto report = factcheck::Conflicts(*store_, RealSchema(), "x.large");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->conflicts.size(), 1u) << factcheck::Render(*report, factcheck::Format::kText);
  EXPECT_EQ(report->conflicts[0].predicate, "chips");
}

// One document giving two values (a dataset cell "SMIC,TSMC") lists both: no
// conflict in a cell, for conflicting() or in a conflicts statement, as in
// `chipkg conflicts`. A second document giving a third value disagrees.
TEST_F(EvaluatorTest, OneDocumentsTwoValuesAreNotAConflict) {
  PutEntity(*store_, "org:smic", "organization", "SMIC");
  PutEntity(*store_, "org:other-fab", "organization", "Other Fab");
  DocBuilder("sheet", "aggregator", "sheet.example")
      .Add("chip:beta", "foundry", Value::Entity("org:smic", "SMIC"))
      .Add("chip:beta", "foundry", Value::Entity("org:tsmc", "TSMC"))
      .Write(*store_, "run-2");
  QueryResult listed = Ok("beta.foundry");
  ASSERT_EQ(listed.rows.size(), 1u);
  EXPECT_EQ(listed.rows[0].cells.at(0).state, Cell::State::kReported) << Render(listed, Format::kText);
  EXPECT_EQ(listed.rows[0].cells.at(0).values.size(), 2u);
  EXPECT_EQ(Names("find chip where conflicting(foundry)"), (Strings{"Alpha"}));
  EXPECT_TRUE(Ok("conflicts about beta").rows.empty()) << Render(Ok("conflicts about beta"), Format::kText);

  DocBuilder("rumour", "press", "rumour.example")
      .Add("chip:beta", "foundry", Value::Entity("org:other-fab", "Other Fab"))
      .Write(*store_, "run-3");
  QueryResult disputed = Ok("beta.foundry");
  EXPECT_EQ(disputed.rows.at(0).cells.at(0).state, Cell::State::kConflict) << Render(disputed, Format::kText);
  EXPECT_EQ(Names("find chip where conflicting(foundry)"), (Strings{"Alpha", "Beta"}));
  EXPECT_EQ(Ok("conflicts about beta").rows.size(), 2u);  // the rumour against each of the sheet's two
  // What conflicting() rests on: the rumour and either of the sheet's values
  // (the sheet's two together are no conflict).
  QueryResult why = Ok("find chip where name = \"Beta\" and conflicting(foundry)");
  ASSERT_EQ(why.rows.size(), 1u);
  bool truncated = false;
  std::vector<std::vector<uint64_t>> ways = why.rows[0].support.Witnesses(10, &truncated);
  ASSERT_EQ(ways.size(), 2u) << why.rows[0].support.ToString();
  for (const auto& way : ways) EXPECT_EQ(way.size(), 2u) << why.rows[0].support.ToString();
  EXPECT_EQ(why.rows[0].support.ToString(), "[3] and ([1] or [2])");
}

// A year agrees with two days of it that disagree with each other: the days
// are a conflict (in a cell, for conflicting() and for chipkg conflicts), and
// neither day is cited under the other. Compared with the first value alone
// ("2023"), all three were one value.
TEST_F(EvaluatorTest, AYearDoesNotMakeTwoDaysOfItAgree) {
  DocBuilder("year", "press", "year.example")
      .Add("chip:beta", "released", Value::OfDate(*Date::Parse("2023"), "2023"))
      .Write(*store_, "run-2");
  DocBuilder("march", "press", "march.example")
      .Add("chip:beta", "released", Value::OfDate(*Date::Parse("2023-03-01"), "2023-03-01"))
      .Write(*store_, "run-3");
  DocBuilder("october", "press", "october.example")
      .Add("chip:beta", "released", Value::OfDate(*Date::Parse("2023-10-01"), "2023-10-01"))
      .Write(*store_, "run-4");
  QueryResult r = Ok("beta.released");
  ASSERT_EQ(r.rows.size(), 1u);
  const Cell& cell = r.rows[0].cells.at(0);
  EXPECT_EQ(cell.state, Cell::State::kConflict) << Render(r, Format::kText);
  for (const ShownValue& v : cell.values) {
    EXPECT_EQ(v.support.Facts().size(), 1u) << v.text << " cites " << v.support.ToString();
  }
  EXPECT_EQ(Names("find chip where conflicting(released)"), (Strings{"Beta"}));
  auto report = factcheck::Conflicts(*store_, RealSchema(), "beta", factcheck::Options{});
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->conflicts.size(), 1u);
  EXPECT_EQ(report->conflicts[0].predicate, "released");
  ASSERT_EQ(report->conflicts[0].differences.size(), 1u);
  EXPECT_EQ(report->conflicts[0].differences[0].comparison.gap, 214);
}

// One page's own two days and another page's year that agrees with both: no
// two sources disagree, so neither the cell, conflicting() nor chipkg
// conflicts calls it a conflict (the year's cluster held a second document,
// and that made the page's own pair count in the cell and the report).
TEST_F(EvaluatorTest, APagesOwnTwoDaysAreNoConflictBesideAYear) {
  DocBuilder("days", "press", "days.example")
      .Add("chip:beta", "released", Value::OfDate(*Date::Parse("2024-12-03"), "3 December 2024"))
      .Add("chip:beta", "released", Value::OfDate(*Date::Parse("2024-12-17"), "17 December 2024"))
      .Write(*store_, "run-2");
  DocBuilder("year", "press", "year.example")
      .Add("chip:beta", "released", Value::OfDate(*Date::Parse("2024"), "2024"))
      .Write(*store_, "run-3");
  QueryResult r = Ok("beta.released");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].cells.at(0).state, Cell::State::kReported) << Render(r, Format::kText);
  EXPECT_TRUE(Names("find chip where conflicting(released)").empty());
  EXPECT_EQ(Names("find chip where name = \"Beta\" and not conflicting(released)"), (Strings{"Beta"}));
  auto report = factcheck::Conflicts(*store_, RealSchema(), "beta", factcheck::Options{});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->conflicts.empty());
}

// A figure several times another is said, where it is used, to be possibly not per chip.
TEST_F(EvaluatorTest, AConflictOfSeveralTimesSaysOneMayNotBePerChip) {
  DocBuilder("sheet", "vendor", "sheet.example")
      .Add("chip:beta", "memory_bandwidth", Value::Quantity(820e9, "bytes_per_second", "820 GB/s"))
      .Write(*store_, "run-2");
  DocBuilder("server", "aggregator", "server.example")
      .Add("chip:beta", "memory_bandwidth", Value::Quantity(9800e9, "bytes_per_second", "9800 GB/s"))
      .Write(*store_, "run-3");
  QueryResult r = Ok("beta.memory_bandwidth");
  ASSERT_EQ(r.rows.size(), 1u);
  const Cell& cell = r.rows[0].cells.at(0);
  EXPECT_EQ(cell.state, Cell::State::kConflict);
  EXPECT_NE(cell.conflict.find("(12x): one may not be a per-chip figure (describe \"Beta\" says which)"),
            std::string::npos)
      << cell.conflict;
  DocBuilder("close", "press", "close.example")
      .Add("chip:gamma", "memory_bandwidth", Value::Quantity(820e9, "bytes_per_second", "820 GB/s"))
      .Add("chip:gamma", "memory_bandwidth", Value::Quantity(900e9, "bytes_per_second", "900 GB/s"))
      .Write(*store_, "run-4");
  DocBuilder("close2", "press", "close2.example")
      .Add("chip:gamma", "memory_bandwidth", Value::Quantity(1000e9, "bytes_per_second", "1000 GB/s"))
      .Write(*store_, "run-5");
  QueryResult near = Ok("gamma.memory_bandwidth");
  ASSERT_EQ(near.rows.size(), 1u);
  EXPECT_EQ(near.rows[0].cells.at(0).conflict.find("per-chip"), std::string::npos) << near.rows[0].cells.at(0).conflict;
}

// Every answer says where its time went, step by step, within its elapsed time.
TEST_F(EvaluatorTest, PhasesAccountForTheAnswersTime) {
  auto names = [](const QueryResult& r) {
    Strings out;
    double sum = 0;
    for (const Phase& p : r.phases) {
      out.push_back(p.name);
      EXPECT_GE(p.ms, 0) << p.name;
      sum += p.ms;
    }
    EXPECT_LE(sum, r.elapsed_ms + 1e-6) << r.query;
    return out;
  };
  EXPECT_EQ(names(Ok("find chip where memory > 50 GB with evidence")),
            (Strings{"parse and bind", "candidates", "evaluate", "expand", "citations", "release"}));
  EXPECT_EQ(names(Ok("find chip where memory > 50 GB")),
            (Strings{"parse and bind", "candidates", "evaluate", "rows", "citations", "release"}));
  EXPECT_EQ(names(Ok("count chip where memory > 50 GB")),
            (Strings{"parse and bind", "candidates", "evaluate", "release"}));
  EXPECT_EQ(names(Ok("facts about gamma")), (Strings{"parse and bind", "read", "rows", "citations", "release"}));
  EXPECT_EQ(names(Ok("conflicts in chip")), (Strings{"parse and bind", "compare", "citations", "release"}));
}

TEST_F(EvaluatorTest, TransactionAndValidTime) {
  const TxId first = DocBuilder("hist", "vendor", "vendor.example")
                         .Add("chip:beta", "tdp", Q(300, "watts", "300 W"))
                         .Write(*store_, "run-2");
  const TxId second = DocBuilder("hist", "vendor", "vendor.example")
                          .Add("chip:beta", "tdp", Q(350, "watts", "350 W"))
                          .Write(*store_, "run-3");
  ASSERT_GT(second, first);
  EXPECT_EQ(Ok("beta.tdp").rows[0].cells[0].values[0].text, "350 W");
  EXPECT_EQ(Ok("beta.tdp as at tx " + std::to_string(first)).rows[0].cells[0].values[0].text, "300 W");
  EXPECT_EQ(Ok("beta.tdp as at run \"run-2\"").rows[0].cells[0].values[0].text, "300 W");
  EXPECT_EQ(Ok("beta.tdp as at run 'run-1'").rows[0].cells[0].state, Cell::State::kUnknown);
  EXPECT_EQ(Ok("beta.tdp as at 2999-01-01").rows[0].cells[0].values[0].text, "350 W");
  EXPECT_NE(Error("beta.tdp as at run 'run-9'").find("no ingest run 'run-9'"), std::string::npos);
  EXPECT_NE(Error("beta.tdp as at tx 999").find("no transaction 999"), std::string::npos);
  EXPECT_NE(Error("beta.tdp as at 1999-01-01").find("the store was empty at 1999-01-01"), std::string::npos);

  DocBuilder("dated", "vendor", "vendor.example")
      .Add("chip:gamma", "tdp", Q(700, "watts", "700 W"), {}, *Date::Parse("2025-06-01"))
      .Write(*store_);
  EXPECT_EQ(Ok("gamma.tdp as of 2025-01-01").rows[0].cells[0].state, Cell::State::kUnknown);
  EXPECT_EQ(Ok("gamma.tdp as of 2025-07").rows[0].cells[0].values[0].text, "700 W");
}

TEST_F(EvaluatorTest, BinderErrorsPointAtTheNameAndSuggest) {
  EXPECT_EQ(Error("find chip where memroy > 1 GB"),
            "line 1, column 17: unknown attribute 'memroy' (did you mean 'memory'?)\n"
            "  find chip where memroy > 1 GB\n"
            "                  ^");
  EXPECT_NE(Error("find chp").find("unknown kind 'chp' (did you mean 'chip'?)"), std::string::npos);
  EXPECT_NE(Error("find chip where foundry = TMSC").find("unknown organization 'TMSC' (did you mean 'TSMC'?)"),
            std::string::npos);
  EXPECT_NE(Error("alpah.memory").find("unknown entity 'alpah' (did you mean 'Alpha'"),
            std::string::npos);
  EXPECT_NE(Error("find chip where memory > 5").find("add a unit"), std::string::npos);
  EXPECT_NE(Error("find chip where memory > 5 GB/s").find("unit 'GB/s' measures bytes_per_second"),
            std::string::npos);
  EXPECT_NE(Error("find chip where memory > 5 GBs").find("unknown unit 'GBs' (did you mean 'GB'"), std::string::npos);
  EXPECT_NE(Error("find chip where announced > tomorrow").find("is a date"), std::string::npos);
  EXPECT_NE(Error("find chip where fits('Test 70B', int3)").find("unknown precision 'int3' (did you mean"),
            std::string::npos);
  EXPECT_NE(Error("find chip where fitz('Test 70B', int8)").find("unknown test 'fitz' (did you mean 'fits'?)"),
            std::string::npos);
  EXPECT_NE(Error("find chip where fits('Test 70B')").find("fits() needs 2 arguments"), std::string::npos);
  EXPECT_NE(Error("find chip where parameters > 1 B").find("'parameters' is not an attribute of chip"),
            std::string::npos);
  EXPECT_NE(Error("find chip where bf16{sparsity=sparse} > 1 TFLOPS").find("bf16 already means sparsity=dense"),
            std::string::npos);
}

TEST_F(EvaluatorTest, RenderersCarryTheSameProvenance) {
  QueryResult r = Ok("alpha.foundry");
  const std::string text = Render(r, Format::kText);
  EXPECT_NE(text.find("TSMC [1]; not published [2]  (conflict)"), std::string::npos) << text;
  EXPECT_NE(text.find("[1] Page vend \xE2\x80\x94 https://vendor.example/vend (vendor, vendor.example)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("section \"Specs\": \"TSMC\""), std::string::npos) << text;
  EXPECT_NE(text.find("attribution: from the vendor"), std::string::npos) << text;
  EXPECT_NE(text.find("fetched 2025-01-01T00:00:00Z"), std::string::npos) << text;

  const nlohmann::json j = nlohmann::json::parse(Render(r, Format::kJson));
  const auto& cell = j["rows"][0]["cells"]["foundry"];
  EXPECT_EQ(cell["state"], "conflict");
  EXPECT_EQ(cell["values"][0]["support"]["cite"], 1);
  EXPECT_EQ(j["citations"][1]["excerpt"], "has not named a foundry");
  EXPECT_EQ(j["citations"][0]["document"]["site"], "vendor.example");

  QueryResult fits = Ok("find chip where fits(\"Test 70B\", int8)");
  const nlohmann::json jf = nlohmann::json::parse(Render(fits, Format::kJson));
  EXPECT_EQ(jf["rows"][0]["support_text"], "[1] and ([2] or [3])");
  EXPECT_TRUE(jf["rows"][0]["support"].contains("and"));
  EXPECT_TRUE(jf["rows"][0]["support"]["and"][1].contains("or"));
  // A test's answer is a value a script reads, beside its English.
  QueryResult shown = Ok("find chip where fits(\"Test 70B\", int8) show fits(\"Test 70B\", int8)");
  const nlohmann::json js = nlohmann::json::parse(Render(shown, Format::kJson));
  const nlohmann::json& answer = js["rows"][0]["cells"].begin().value()["values"][0];
  EXPECT_EQ(answer["value"]["bool"], true) << answer.dump();
  EXPECT_EQ(answer["value"]["kind"], "bool") << answer.dump();

  const std::string csv = Render(r, Format::kCsv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "row,entity,name,column,state,value,number,dimension,date,date_precision,value_entity,qualifiers,"
            "computed,formula,support,citation,"
            "fact_id,document,title,url,section,excerpt,attribution,fetched_at,content_hash,valid_as_of,dataset_row,dataset_column,"
            "row_support");
  EXPECT_NE(csv.find("1,chip:alpha,Alpha,foundry,conflict,not published,,,,,,,,,[2],2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",news,Page news,https://news.example/news,Specs,has not named a foundry,from the press,"),
            std::string::npos)
      << csv;

  // Which text exactly: the cited version's content hash, in every format.
  Result<DocumentVersion> vend = store_->GetDocumentVersion("vend", 1, /*with_text=*/false);
  ASSERT_TRUE(vend.ok()) << vend.status().message();
  ASSERT_EQ(vend->content_hash.size(), 64u);
  ASSERT_EQ(r.citations.at(0).document_id, "vend");
  EXPECT_NE(text.find("version 1 (sha256 " + vend->content_hash.substr(0, 12) + "), fetched 2025-01-01T00:00:00Z"),
            std::string::npos)
      << text;
  EXPECT_EQ(j["citations"][0]["version"]["content_hash"], vend->content_hash);
  EXPECT_NE(csv.find(",2025-01-01T00:00:00Z," + vend->content_hash + ","), std::string::npos) << csv;

  // A citation whose version record is not in the answer says less, not something else.
  QueryResult unversioned = r;
  for (Citation& c : unversioned.citations) c.version_record = -1;
  EXPECT_EQ(unversioned.VersionOf(unversioned.citations.at(0)), nullptr);
  const std::string bare = Render(unversioned, Format::kText);
  EXPECT_EQ(bare.find("sha256"), std::string::npos) << bare;
  EXPECT_NE(bare.find("version 1, fetched 2025-01-01T00:00:00Z"), std::string::npos) << bare;
  const nlohmann::json jb = nlohmann::json::parse(Render(unversioned, Format::kJson));
  EXPECT_FALSE(jb["citations"][0]["version"].contains("content_hash")) << jb.dump(2);
  EXPECT_EQ(jb["citations"][0]["version"]["version"], 1);
  const std::string bare_csv = Render(unversioned, Format::kCsv);
  EXPECT_EQ(bare_csv.find(vend->content_hash), std::string::npos) << bare_csv;
  EXPECT_NE(bare_csv.find(",2025-01-01T00:00:00Z,,"), std::string::npos) << bare_csv;

  // An unknown fetch time reads as such to people, and as no value to scripts.
  QueryResult unfetched = unversioned;
  for (Citation& c : unfetched.citations) c.fetched_at = 0;
  EXPECT_NE(Render(unfetched, Format::kText).find("version 1, fetched unknown time"), std::string::npos);
  const nlohmann::json ju = nlohmann::json::parse(Render(unfetched, Format::kJson));
  EXPECT_TRUE(ju["citations"][0]["version"]["fetched_at"].is_null()) << ju.dump(2);
  const std::string unfetched_csv = Render(unfetched, Format::kCsv);
  EXPECT_EQ(unfetched_csv.find("unknown time"), std::string::npos) << unfetched_csv;
  EXPECT_NE(unfetched_csv.find(",from the vendor,,,"), std::string::npos) << unfetched_csv;
}

TEST_F(EvaluatorTest, ExcerptsReadLaterAreTheOnesReadAtOnce) {
  const QueryResult full = Ok("alpha.foundry");
  QueryOptions options;
  options.read_excerpts = false;
  QueryResult lazy = Ok("alpha.foundry", options);
  ASSERT_EQ(lazy.citations.size(), 2u);
  // The source of each claim is there; where in the document it sits is not, and says so.
  EXPECT_EQ(lazy.citations[1].document_id, "news");
  EXPECT_EQ(lazy.citations[1].claim, "not published");
  EXPECT_EQ(lazy.citations[1].passage, nullptr);
  const std::string text = Render(lazy, Format::kText);
  EXPECT_NE(text.find("[2] Page news \xE2\x80\x94 https://news.example/news (press, news.example)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(where in the document: not read)"), std::string::npos) << text;
  EXPECT_EQ(text.find("has not named a foundry"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(Render(lazy, Format::kJson));
  EXPECT_EQ(j["citations"][1]["excerpt_read"], false);
  EXPECT_FALSE(j["citations"][1].contains("excerpt"));

  Status read = ReadExcerpts(*store_, lazy, 1);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_FALSE(lazy.citations[0].excerpt_read());
  ASSERT_TRUE(lazy.citations[1].excerpt_read());
  EXPECT_EQ(lazy.citations[1].passage->excerpt, "has not named a foundry");
  read = ReadExcerpts(*store_, lazy);
  ASSERT_TRUE(read.ok()) << read.message();
  for (Format f : {Format::kText, Format::kJson, Format::kCsv}) EXPECT_EQ(Render(lazy, f), Render(full, f));
}

TEST_F(EvaluatorTest, ProvenanceIsReadOnlyForCitedRows) {
  QueryOptions options;
  options.cite_rows = 0;
  QueryResult r = Ok("find chip where memory > 1 GB order by name", options);
  EXPECT_EQ(r.rows.size(), 3u);
  EXPECT_TRUE(r.citations.empty());
  EXPECT_EQ(r.rows[0].support.op, Support::Op::kFact);
  EXPECT_EQ(r.rows[0].support.citation, 0);
  EXPECT_NE(Render(r, Format::kText).find("[#"), std::string::npos);
}

// Answers large enough that `find` reads its candidates' facts in several
// batches (the next one on another thread), `conflicts` reads subjects in
// batches ahead, and citations are resolved on several threads: every
// citation must still be the record of its own fact, numbered in order.
TEST(EvaluatorLargeAnswerTest, EveryCitationIsItsOwnFactsRecord) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  // > 1024 candidates per batch; > 8192 citations over three documents, so that each of two
  // threads resolving citations reads its provenance in more than one chunk of 4096.
  constexpr int kChips = 3000;
  DocBuilder a("ds-a", "vendor", "a.example"), b("ds-b", "press", "b.example"), c("ds-c", "aggregator", "c.example");
  for (int i = 0; i < kChips; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "chip:c%05d", i);
    PutEntity(store, id, "chip", std::string("Chip ") + std::to_string(i));
    const double gb = i + 1;
    a.Add(id, "memory", Q(gb * 1e9, "bytes", std::to_string(i + 1) + " GB"));
    b.Add(id, "memory", Q(gb * 1e9, "bytes", std::to_string(i + 1) + " GB"));
    // Every third chip: the third source disagrees with the other two.
    const int c_gb = i % 3 == 0 ? i + 2 : i + 1;
    c.Add(id, "memory", Q(c_gb * 1e9, "bytes", std::to_string(c_gb) + " GB"));
  }
  // Each document fetched at its own time: citations read documents and
  // versions in batches, and each must get its own.
  a.Write(store, "run-1", 1735689600);
  b.Write(store, "run-1", 1735776000);
  c.Write(store, "run-1", 1735862400);

  auto check_citations = [&](const QueryResult& r) {
    std::set<uint64_t> facts;  // each fact cited once, however many rows cite it
    for (const Citation& cit : r.citations) EXPECT_TRUE(facts.insert(cit.fact_id).second) << "fact " << cit.fact_id;
    for (size_t k = 0; k < r.citations.size(); ++k) {
      const Citation& cit = r.citations[k];
      ASSERT_EQ(cit.number, static_cast<int>(k) + 1);
      Result<Fact> f = store.GetFact(cit.fact_id);
      ASSERT_TRUE(f.ok()) << f.status().message();
      EXPECT_EQ(cit.subject, f->subject);
      EXPECT_EQ(cit.predicate, f->predicate);
      EXPECT_EQ(cit.claim, f->value.ToString());  // no qualifiers here
      EXPECT_EQ(cit.valid_as_of, f->valid_as_of);
      EXPECT_EQ(cit.document_id, f->provenance.document_id);
      EXPECT_EQ(cit.version, f->provenance.document_version);
      ASSERT_TRUE(cit.excerpt_read()) << k;
      EXPECT_EQ(cit.passage->excerpt, f->provenance.excerpt);
      EXPECT_EQ(cit.passage->section, f->provenance.section);
      EXPECT_EQ(cit.passage->attribution, f->provenance.attribution);
      ASSERT_NE(cit.document, nullptr);
      EXPECT_EQ(cit.document->id, cit.document_id);
      EXPECT_EQ(cit.document->url, "https://" + cit.document->site + "/" + cit.document_id);
      EXPECT_EQ(cit.document->title, "Page " + cit.document_id);
      Result<DocumentVersion> v = store.GetDocumentVersion(cit.document_id, cit.version, /*with_text=*/false);
      ASSERT_TRUE(v.ok()) << v.status().message();
      EXPECT_EQ(cit.fetched_at, v->fetched_at);
      // Which text exactly: the version's hash, from the answer's table of cited versions.
      const DocumentVersion* cited = r.VersionOf(cit);
      ASSERT_NE(cited, nullptr) << k;
      EXPECT_EQ(cited->content_hash, v->content_hash) << k;
      EXPECT_EQ(cited->version, cit.version) << k;
    }
    EXPECT_EQ(r.cited_versions.size(), 3u) << "three documents, each cited once in the table";
  };

  Result<QueryResult> found = RunQuery(store, RealSchema(), "find chip where memory >= 1 GB with evidence");
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_EQ(found->rows.size(), 3u * kChips);
  ASSERT_EQ(found->citations.size(), 3u * kChips);
  check_citations(*found);

  // Rendered row by row and written a MiB at a time, the JSON is still
  // exactly what nlohmann prints for the whole document, and the CSV has a
  // line of 29 fields for each value and fact.
  const std::string js = Render(*found, Format::kJson);
  ASSERT_GT(js.size(), size_t{4} << 20);
  EXPECT_TRUE(js == nlohmann::json::parse(js).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::ostringstream streamed;
  Render(*found, Format::kCsv, streamed);
  const std::string csv = streamed.str();
  ASSERT_GT(csv.size(), size_t{1} << 20);
  size_t lines = 0, fields = 1;
  bool quoted = false;
  for (char ch : csv) {
    if (ch == '"') quoted = !quoted;
    if (quoted) continue;
    if (ch == ',') ++fields;
    if (ch == '\n') {
      ASSERT_EQ(fields, 29u) << "line " << lines + 1;
      ++lines;
      fields = 1;
    }
  }
  EXPECT_EQ(lines, 1 + 3u * kChips);  // the header, then each row's one evidence value citing one fact
  for (const Row& row : found->rows) {
    ASSERT_EQ(row.support.op, Support::Op::kFact);
    const Citation& cit = found->citations[static_cast<size_t>(row.support.citation) - 1];
    EXPECT_EQ(cit.fact_id, row.support.fact_id);
    EXPECT_EQ(cit.subject, row.entity);
  }

  // Citations with their sources only, their excerpts read afterwards: a page, then the rest
  // (more than one chunk of 4096, in fact-id order, not citation order), give the same answer.
  QueryOptions sources_only;
  sources_only.read_excerpts = false;
  Result<QueryResult> lazy = RunQuery(store, RealSchema(), "find chip where memory >= 1 GB with evidence", sources_only);
  ASSERT_TRUE(lazy.ok()) << lazy.status().message();
  ASSERT_EQ(lazy->citations.size(), found->citations.size());
  for (size_t k = 0; k < lazy->citations.size(); ++k) {
    const Citation &got = lazy->citations[k], &want = found->citations[k];
    ASSERT_FALSE(got.excerpt_read()) << k;
    ASSERT_EQ(got.fact_id, want.fact_id) << k;
    EXPECT_EQ(got.document_id, want.document_id) << k;
    ASSERT_NE(got.document, nullptr) << k;
    EXPECT_EQ(got.document->url, want.document->url) << k;
    EXPECT_EQ(got.fetched_at, want.fetched_at) << k;
    EXPECT_EQ(got.claim, want.claim) << k;
  }
  ASSERT_TRUE(ReadExcerpts(store, *lazy, 100, 200).ok());
  for (size_t k = 0; k < lazy->citations.size(); ++k) {
    ASSERT_EQ(lazy->citations[k].excerpt_read(), k >= 100 && k < 200) << k;
  }
  ASSERT_TRUE(found->citations[150].excerpt_read());
  EXPECT_EQ(lazy->citations[150].passage->excerpt, found->citations[150].passage->excerpt);
  Status rest = ReadExcerpts(store, *lazy);
  ASSERT_TRUE(rest.ok()) << rest.message();
  check_citations(*lazy);
  EXPECT_TRUE(Render(*lazy, Format::kJson) == js);

  Result<QueryResult> conflicts = RunQuery(store, RealSchema(), "conflicts in chip tolerance 0%");
  ASSERT_TRUE(conflicts.ok()) << conflicts.status().message();
  EXPECT_EQ(conflicts->rows.size(), 2u * ((kChips + 2) / 3));  // chips 0, 3, 6, ...: c against a and b
  check_citations(*conflicts);
  // Stopped at a limit while later subjects are still being read ahead: the first rows of the whole pass.
  Result<QueryResult> first = RunQuery(store, RealSchema(), "conflicts in chip tolerance 0% limit 500");
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->rows.size(), 500u);
  for (size_t i = 0; i < first->rows.size(); ++i) EXPECT_EQ(first->rows[i].entity, conflicts->rows[i].entity) << i;
  check_citations(*first);
  for (const Row& row : conflicts->rows) {
    char want[32];
    std::snprintf(want, sizeof want, "chip:c%05d", std::stoi(row.name.substr(5)));
    EXPECT_EQ(row.entity, want);
    EXPECT_EQ(std::stoi(row.name.substr(5)) % 3, 0) << row.name;
  }
}

// A conflicts answer lists each subject's rows by attribute name, then by qualifiers, and the
// pairs of one attribute in the order their claims were stored, whatever order the predicates
// were first stored in (the store hands a subject's facts over grouped by predicate in that
// order, not by name). Here tdp comes first, then peak_throughput fp8 before bf16, memory, and
// die_size last; memory has three sources, so three pairs.
TEST(EvaluatorConflictsOrderTest, RowsComeByAttributeThenQualifiersThenStoredOrder) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  PutEntity(store, "chip:x", "chip", "Chip X");
  auto flops = [](double tera, const char* original) { return Value::Quantity(tera * 1e12, "ops_per_second", original); };
  DocBuilder("a", "vendor", "a.example")
      .Add("chip:x", "tdp", Value::Quantity(500, "watts", "500 W"))
      .Add("chip:x", "peak_throughput", flops(1300, "1300 TFLOPS"), {{"format", "fp8"}})
      .Add("chip:x", "peak_throughput", flops(650, "650 TFLOPS"), {{"format", "bf16"}})
      .Add("chip:x", "memory", Value::Quantity(96e9, "bytes", "96 GB"))
      .Add("chip:x", "die_size", Value::Quantity(800e-6, "area", "800 mm2"))
      .Write(store, "run-a");
  DocBuilder("b", "press", "b.example")
      .Add("chip:x", "die_size", Value::Quantity(820e-6, "area", "820 mm2"))
      .Add("chip:x", "memory", Value::Quantity(80e9, "bytes", "80 GB"))
      .Add("chip:x", "peak_throughput", flops(667, "667 TFLOPS"), {{"format", "bf16"}})
      .Add("chip:x", "peak_throughput", flops(1334, "1334 TFLOPS"), {{"format", "fp8"}})
      .Add("chip:x", "tdp", Value::Quantity(450, "watts", "450 W"))
      .Write(store, "run-b");
  DocBuilder("c", "press", "c.example").Add("chip:x", "memory", Value::Quantity(64e9, "bytes", "64 GB")).Write(store, "run-c");

  for (const char* text : {"conflicts in chip tolerance 0%", "conflicts about \"Chip X\" tolerance 0%"}) {
    Result<QueryResult> r = RunQuery(store, RealSchema(), text);
    ASSERT_TRUE(r.ok()) << r.status().message();
    Strings got;
    for (const Row& row : r->rows) {
      got.push_back(row.cells.at(0).values.at(0).text + ": " + row.cells.at(1).values.at(0).text + " / " +
                    row.cells.at(2).values.at(0).text);
    }
    EXPECT_EQ(got, (Strings{"die_size: 800 mm2 / 820 mm2", "memory: 96 GB / 80 GB", "memory: 96 GB / 64 GB",
                            "memory: 80 GB / 64 GB", "peak_throughput {format=bf16}: 650 TFLOPS / 667 TFLOPS",
                            "peak_throughput {format=fp8}: 1300 TFLOPS / 1334 TFLOPS", "tdp: 500 W / 450 W"}))
        << text << "\n" << Render(*r, Format::kText);
  }
}

// A `facts` listing comes by subject, then attribute, then qualifiers, then
// stored order, whatever order the document stated them in: subjects whose
// first 16 bytes agree ("chip:accelerator") are told apart by the rest, a
// 16-byte id comes before the longer ones it begins. Row k cites its own fact
// as [k + 1], up to the rows that cite at all.
TEST(EvaluatorFactsListingTest, RowsComeBySubjectThenAttributeEachCitingItsOwnFactInOrder) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  for (const char* id : {"chip:accelerator-2", "chip:accelerator-10", "chip:accelerator", "chip:b", "chip:ab"}) {
    PutEntity(store, id, "chip", std::string("Name of ") + id);
  }
  auto gb = [](int n) { return Value::Quantity(n * 1e9, "bytes", std::to_string(n) + " GB"); };
  auto flops = [](double tera, const char* original) { return Value::Quantity(tera * 1e12, "ops_per_second", original); };
  DocBuilder("d", "press", "d.example")
      .Add("chip:b", "tdp", Value::Quantity(300, "watts", "300 W"))
      .Add("chip:accelerator-2", "memory", gb(32))
      .Add("chip:accelerator-10", "tdp", Value::Quantity(400, "watts", "400 W"))
      .Add("chip:accelerator-2", "peak_throughput", flops(900, "900 TFLOPS"), {{"format", "fp8"}})
      .Add("chip:accelerator", "memory", gb(16))
      .Add("chip:accelerator-2", "peak_throughput", flops(450, "450 TFLOPS"), {{"format", "bf16"}})
      .Add("chip:ab", "memory", gb(8))
      .Add("chip:accelerator-10", "memory", gb(64))
      .Add("chip:accelerator-10", "memory", gb(48))
      .Write(store, "run-d");

  Result<QueryResult> r = RunQuery(store, RealSchema(), "facts from document d");
  ASSERT_TRUE(r.ok()) << r.status().message();
  Strings got;
  for (const Row& row : r->rows) {
    got.push_back(row.entity + " " + row.cells.at(0).values.at(0).text + " = " + row.cells.at(1).values.at(0).text);
  }
  EXPECT_EQ(got, (Strings{"chip:ab memory = 8 GB", "chip:accelerator memory = 16 GB",
                          "chip:accelerator-10 memory = 64 GB", "chip:accelerator-10 memory = 48 GB",
                          "chip:accelerator-10 tdp = 400 W", "chip:accelerator-2 memory = 32 GB",
                          "chip:accelerator-2 peak_throughput {format=bf16} = 450 TFLOPS",
                          "chip:accelerator-2 peak_throughput {format=fp8} = 900 TFLOPS", "chip:b tdp = 300 W"}))
      << Render(*r, Format::kText);

  auto check = [&](const QueryResult& answer, size_t rows, size_t cited) {
    ASSERT_EQ(answer.rows.size(), rows);
    ASSERT_EQ(answer.citations.size(), cited);
    EXPECT_EQ(answer.cited_rows, cited);
    for (size_t k = 0; k < rows; ++k) {
      const Row& row = answer.rows[k];
      EXPECT_EQ(row.name, "Name of " + row.entity);
      const int want = k < cited ? static_cast<int>(k) + 1 : 0;
      EXPECT_EQ(row.support.citation, want) << k;
      EXPECT_EQ(row.cells.at(1).values.at(0).support.citation, want) << k;
      if (k >= cited) continue;
      const Citation& c = answer.citations[k];
      EXPECT_EQ(c.number, want);
      EXPECT_EQ(c.fact_id, row.support.fact_id) << k;
      Result<Fact> f = store.GetFact(c.fact_id);
      ASSERT_TRUE(f.ok()) << f.status().message();
      EXPECT_EQ(c.subject, row.entity);
      EXPECT_EQ(c.predicate, f->predicate);
      EXPECT_EQ(c.document_id, "d");
      ASSERT_NE(c.document, nullptr);
      EXPECT_EQ(c.document->url, "https://d.example/d");
      ASSERT_NE(answer.VersionOf(c), nullptr) << k;  // a listing finds its sources as it makes its rows
      EXPECT_EQ(answer.VersionOf(c)->version, c.version) << k;
      EXPECT_EQ(answer.VersionOf(c)->content_hash.size(), 64u) << k;
      ASSERT_TRUE(c.excerpt_read()) << k;
      EXPECT_EQ(c.passage->excerpt, f->provenance.excerpt);
    }
  };
  check(*r, 9, 9);
  QueryOptions few;
  few.cite_rows = 3;
  Result<QueryResult> first_cited = RunQuery(store, RealSchema(), "facts from document d", few);
  ASSERT_TRUE(first_cited.ok()) << first_cited.status().message();
  check(*first_cited, 9, 3);
  Result<QueryResult> limited = RunQuery(store, RealSchema(), "facts from document d limit 4");
  ASSERT_TRUE(limited.ok()) << limited.status().message();
  check(*limited, 4, 4);
  Result<QueryResult> about = RunQuery(store, RealSchema(), "facts about \"chip:accelerator-2\"");
  ASSERT_TRUE(about.ok()) << about.status().message();
  check(*about, 3, 3);
  EXPECT_EQ(about->rows[2].cells.at(0).values.at(0).text, "peak_throughput {format=fp8}");
}

// A large answer's distinct sources are found in two halves of its
// citations at once and joined: the second half names documents in another
// order than the first, and some the first never names. Each citation must
// still get its own document and the fetch time of its own version.
TEST(EvaluatorLargeAnswerTest, EachCitationGetsItsOwnDocumentWhicheverHalfNamesItFirst) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  constexpr int kChips = 4200;  // a citation each, over 4,096: the halves are found at once
  constexpr int kDocuments = 25;
  std::vector<DocBuilder> docs;
  for (int d = 0; d < kDocuments; ++d) docs.emplace_back("doc-" + std::to_string(d), "press", "d.example");
  for (int i = 0; i < kChips; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "chip:c%05d", i);
    PutEntity(store, id, "chip", std::string("Chip ") + std::to_string(i));
    // The first half cites documents 0-19 in turn, the second 24 down to 0.
    const int d = i < kChips / 2 ? i % 20 : kDocuments - 1 - i % kDocuments;
    docs[static_cast<size_t>(d)].Add(id, "memory", Q((i + 1) * 1e9, "bytes", std::to_string(i + 1) + " GB"));
  }
  auto fetched_at = [](const std::string& document_id) {
    return 1735689600 + 3600 * std::stoll(document_id.substr(4));
  };
  for (int d = 0; d < kDocuments; ++d) docs[static_cast<size_t>(d)].Write(store, "run-1", fetched_at("doc-" + std::to_string(d)));

  QueryOptions without_excerpts;
  without_excerpts.read_excerpts = false;
  for (const QueryOptions& options : {QueryOptions{}, without_excerpts}) {
    Result<QueryResult> r = RunQuery(store, RealSchema(), "find chip where memory >= 1 GB with evidence", options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->citations.size(), static_cast<size_t>(kChips));
    std::set<std::string> named;
    for (size_t k = 0; k < r->citations.size(); ++k) {
      const Citation& cit = r->citations[k];
      ASSERT_EQ(cit.number, static_cast<int>(k) + 1);
      Result<Fact> f = store.GetFact(cit.fact_id);
      ASSERT_TRUE(f.ok()) << f.status().message();
      ASSERT_EQ(cit.document_id, f->provenance.document_id) << k;
      ASSERT_NE(cit.document, nullptr) << k;
      ASSERT_EQ(cit.document->id, cit.document_id) << k;
      ASSERT_EQ(cit.fetched_at, fetched_at(cit.document_id)) << k;
      named.insert(cit.document_id);
    }
    EXPECT_EQ(named.size(), static_cast<size_t>(kDocuments));
  }
}

// A conflicts pass over hundreds of subjects makes each batch's claims on the read-ahead thread
// or on its own, in turns, and names entity values on its own: every row names the foundries
// (not their ids), and the answer is the one a pass with a source selector gives (whose claims
// are all made on the evaluating thread, since selectors read document records through its
// caches).
TEST(EvaluatorLargeAnswerTest, ConflictsMadeOnEitherThreadAnswerAlike) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  constexpr int kChips = 700;  // eleven batches of 64: the sixth and the first read on the evaluating thread
  PutEntity(store, "org:tsmc", "organization", "TSMC");
  PutEntity(store, "org:samsung", "organization", "Samsung Foundry");
  DocBuilder a("ds-a", "vendor", "a.example"), b("ds-b", "press", "b.example");
  for (int i = 0; i < kChips; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "chip:f%05d", i);
    PutEntity(store, id, "chip", std::string("Foundry chip ") + std::to_string(i));
    a.Add(id, "foundry", Value::Entity("org:tsmc", ""));
    b.Add(id, "foundry", Value::Entity(i % 2 == 0 ? "org:samsung" : "org:tsmc", ""));
    a.Add(id, "memory", Q((i + 1) * 1e9, "bytes", std::to_string(i + 1) + " GB"));
    if (i % 3 == 0) b.Add(id, "memory", Value::NotPublished("not disclosed"));
  }
  a.Write(store, "run-1");
  b.Write(store, "run-1");
  QueryOptions sources_only;
  sources_only.read_excerpts = false;
  Result<QueryResult> both = RunQuery(store, RealSchema(), "conflicts in chip ignoring not_published", sources_only);
  ASSERT_TRUE(both.ok()) << both.status().message();
  ASSERT_EQ(both->rows.size(), size_t{kChips / 2});  // the even chips' foundries; no memory row
  for (const Row& row : both->rows) {
    ASSERT_EQ(row.cells.size(), 4u);
    EXPECT_EQ(row.cells[0].values[0].text, "foundry");
    EXPECT_EQ(row.cells[1].values[0].text, "TSMC") << row.entity;
    EXPECT_EQ(row.cells[2].values[0].text, "Samsung Foundry") << row.entity;
  }
  Result<QueryResult> selected =
      RunQuery(store, RealSchema(), "conflicts in chip ignoring not_published using vendor, press", sources_only);
  ASSERT_TRUE(selected.ok()) << selected.status().message();
  const std::string x = Render(*both, Format::kCsv), y = Render(*selected, Format::kCsv);
  EXPECT_TRUE(x == y) << x.substr(0, 300) << "\n---\n" << y.substr(0, 300);

  // Citations are numbered in order of first use over the rows (the pass numbers each row as it
  // makes it), and only the first cite_rows rows cite.
  QueryOptions first_rows = sources_only;
  first_rows.cite_rows = 100;
  Result<QueryResult> some = RunQuery(store, RealSchema(), "conflicts in chip ignoring not_published", first_rows);
  ASSERT_TRUE(some.ok()) << some.status().message();
  EXPECT_EQ(some->cited_rows, 100u);
  int next = 1;
  for (size_t i = 0; i < some->rows.size(); ++i) {
    const Row& row = some->rows[i];
    for (size_t c : {size_t{1}, size_t{2}}) {
      const int number = row.cells[c].values[0].support.citation;
      if (i >= 100) {
        EXPECT_EQ(number, 0) << i;
        continue;
      }
      ASSERT_GE(number, 1) << i;
      if (number == next) ++next;
      ASSERT_LT(number, next) << "row " << i << " cites [" << number << "] before [" << next << "]";
      const Citation& cit = some->citations[static_cast<size_t>(number) - 1];
      EXPECT_EQ(cit.fact_id, row.cells[c].values[0].support.fact_id);
      EXPECT_EQ(cit.subject, row.entity);
    }
  }
  EXPECT_EQ(static_cast<size_t>(next - 1), some->citations.size());
}

// A find with thousands of candidates reads its condition's predicate for all of them in one
// call, which the store answers from one pass over the predicate's index entries: the answer is
// the one the candidate-by-candidate batches give (a find that may stop at a limit reads so).
// Per-chip scope, "not published", claims under the bound beside claims over it, a chip with no
// entity record and a chip of another kind are all among the candidates.
TEST(EvaluatorLargeAnswerTest, AFindOverManyCandidatesAnswersAsBatchesDo) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  constexpr int kChips = 5000;  // 4,600 candidates: more than kWholeReadFrom
  const Qualifiers server = {{"scope", "server"}, {"chips", "16"}};
  DocBuilder a("ds-a", "vendor", "a.example"), b("ds-b", "press", "b.example");
  for (int i = 0; i < kChips; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "chip:c%05d", i);
    if (i != 17) PutEntity(store, id, i == 23 ? "llm" : "chip", std::string("Chip ") + std::to_string(i));
    const double gb = 50 + (i * 37) % 150;
    a.Add(id, "memory", Q(gb * 1e9, "bytes", std::to_string(static_cast<int>(gb)) + " GB"));
    if (i % 3 == 0) b.Add(id, "memory", Q((gb + 20) * 1e9, "bytes", std::to_string(static_cast<int>(gb) + 20) + " GB"));
    if (i % 5 == 0) b.Add(id, "memory", Value::NotPublished("not disclosed"));
    // 16 chips' worth: over the bound as stated, under it per chip.
    if (i % 7 == 0) b.Add(id, "memory", Q(gb * 16e9, "bytes", std::to_string(static_cast<int>(gb) * 16) + " GB"), server);
    // A hair under 64,100 MB once converted (64.1 x 1e9), and so `>=` it.
    if (i % 11 == 0) b.Add(id, "memory", Q(64.1 * 1e9, "bytes", "64.1 GB"));
  }
  PutEntity(store, "llm:test-70b", "llm", "Test 70B");
  a.Add("llm:test-70b", "parameters", Q(70e9, "parameters", "70 B"));
  a.Write(store, "run-1");
  b.Write(store, "run-1");
  const auto* impl = dynamic_cast<const chipkg::internal::StoreImpl*>(&store);
  ASSERT_NE(impl, nullptr);

  // The answer without what names the query or times it. A find over more
  // than 4,096 candidates without a limit is evaluated on two threads, half
  // the candidates each; with a limit (or evaluate_in_two_from past the
  // candidates), on one.
  auto answer = [&](const std::string& text, uint64_t want_passes, size_t max_witnesses = 10000,
                    size_t cite_rows = 0, size_t evaluate_in_two_from = 4096, bool read_excerpts = true,
                    bool claims_in_range_alone = false, uint64_t want_range_alone = 0) {
    const uint64_t before = impl->PredicatePasses();
    const uint64_t range_alone_before = impl->RangeOnlyReads();
    QueryOptions options;
    options.claims_in_range_alone = claims_in_range_alone;
    options.read_excerpts = read_excerpts;
    options.cite_rows = cite_rows;  // mostly 0: the rows and their reasons are the point
    options.max_witnesses_per_row = max_witnesses;
    options.evaluate_in_two_from = evaluate_in_two_from;
    Result<QueryResult> r = RunQuery(store, RealSchema(), text, options);
    EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
    if (!r.ok()) return nlohmann::json();
    EXPECT_EQ(impl->PredicatePasses() - before, want_passes) << text;
    EXPECT_EQ(impl->RangeOnlyReads() - range_alone_before, want_range_alone) << text;
    const bool limited = text.find(" limit ") != std::string::npos;
    const bool in_two = std::any_of(r->phases.begin(), r->phases.end(),
                                    [](const Phase& p) { return p.name == "evaluate on two threads"; });
    EXPECT_EQ(in_two, !limited && evaluate_in_two_from <= 4096) << text;
    nlohmann::json js = nlohmann::json::parse(Render(*r, Format::kJson));
    for (const char* volatile_key : {"query", "plan", "phases", "elapsed_ms"}) js.erase(volatile_key);
    return js;
  };
  // `with evidence` rows of so many candidates are expanded on two threads (a limit: on one).
  for (const std::string condition : {"memory >= 64 GB", "fits(\"llm:test-70b\", int4)", "memory >= 64100 MB"}) {
    for (const std::string evidence : {"", " with evidence"}) {
      SCOPED_TRACE(condition + evidence);
      const nlohmann::json whole = answer("find chip where " + condition + evidence, 1);
      // (A limit on `with evidence` rows does not stop the evaluation early: still one pass.)
      const nlohmann::json batches =
          answer("find chip where " + condition + evidence + " limit 1000000", evidence.empty() ? 0 : 1);
      ASSERT_TRUE(whole.contains("rows"));
      EXPECT_GT(whole["rows"].size(), 3000u);
      EXPECT_EQ(whole, batches);
      // `with evidence` rows read only the claims in the range (reasons show the others): the
      // same answer, notes included (a candidate whose claims in the range are all false or
      // unknown, such as a server's figure over the bound that is under it per chip, is read
      // again to tell which).
      const nlohmann::json in_range = answer("find chip where " + condition + evidence, evidence.empty() ? 1 : 0,
                                             10000, 0, 4096, true, /*claims_in_range_alone=*/true,
                                             evidence.empty() ? 0 : 1);
      EXPECT_EQ(in_range, whole);
    }
  }
  {
    const nlohmann::json in_range = answer("find chip where memory >= 64 GB with evidence", 0, 10000, 0, 4096, true,
                                           /*claims_in_range_alone=*/true, 1);
    const std::string notes = in_range.value("notes", nlohmann::json::array()).dump();
    EXPECT_NE(notes.find("left out because the condition is unknown"), std::string::npos) << notes;
    // Shown claims, a count, a preference: every claim is read; and for equality, whose range
    // holds every larger figure (most of its candidates false).
    for (const std::string text : {"find chip where memory >= 64 GB show memory", "count chip where memory >= 64 GB",
                                   "find chip where memory >= 64 GB with evidence prefer vendor",
                                   "find chip where memory = 80 GB with evidence"}) {
      answer(text, 1, 10000, 0, 4096, true, /*claims_in_range_alone=*/true, 0);
    }
  }
  // Rows with more ways than listed: a note each, in row order.
  const nlohmann::json cut = answer("find chip where memory >= 64 GB with evidence", 1, 1);
  EXPECT_EQ(cut, answer("find chip where memory >= 64 GB with evidence limit 1000000", 1, 1));
  ASSERT_TRUE(cut.contains("notes"));
  EXPECT_GT(cut["notes"].size(), 500u);
  // Cited: the claims the second thread read are found for the citations,
  // numbered in row order as one thread numbers them. Without excerpts, so
  // that a citation whose claim was not kept would show: it is read again,
  // excerpt and all.
  constexpr size_t kAll = std::numeric_limits<size_t>::max();
  for (const std::string text : {"find chip where fits(\"llm:test-70b\", int4) with evidence",
                                 "find chip where memory >= 64 GB show memory"}) {
    SCOPED_TRACE(text);
    const nlohmann::json cited = answer(text, 1, 10000, kAll, 4096, /*read_excerpts=*/false);
    ASSERT_TRUE(cited.contains("citations"));
    EXPECT_GT(cited["citations"].size(), 3000u);
    EXPECT_EQ(cited, answer(text, 1, 10000, kAll, kAll, /*read_excerpts=*/false));
    size_t unread = 0;
    for (const nlohmann::json& c : cited["citations"]) unread += c.value("excerpt_read", true) ? 0 : 1;
    EXPECT_EQ(unread, cited["citations"].size());
  }
  // Counts: how many, and which were counted although a source contradicts the test.
  const nlohmann::json counted = answer("count chip where memory >= 64 GB", 1, 10000, kAll);
  EXPECT_EQ(counted, answer("count chip where memory >= 64 GB", 1, 10000, kAll, kAll));
  ASSERT_TRUE(counted.contains("notes"));
  EXPECT_NE(counted.dump().find("counted although another source's claim contradicts the test or leaves it open"), std::string::npos);
}


// `>=` holds for a figure a rounding under the bound ("4.1 GB" is stored as
// 4.1 x 1e9, a hair under the 4.1e9 of `4100 MB`), so the range the planner
// scans must reach below the bound to find it.
TEST(EvaluatorRangeTest, AtLeastFindsAFigureARoundingUnderTheBound) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  DocBuilder a("ds-a", "vendor", "a.example");
  PutEntity(store, "chip:small", "chip", "Small");
  PutEntity(store, "chip:under", "chip", "Under");
  a.Add("chip:small", "memory", Q(4.1 * 1e9, "bytes", "4.1 GB"));
  a.Add("chip:under", "memory", Q(4.0 * 1e9, "bytes", "4 GB"));
  a.Write(store, "run-1");
  ASSERT_LT(4.1 * 1e9, 4100 * 1e6);  // what the case is about
  for (const std::string text : {"find chip where memory >= 4100 MB", "find chip where memory >= 4.1 GB with evidence",
                                 "count chip where memory >= 4100 MB"}) {
    SCOPED_TRACE(text);
    Result<QueryResult> r = RunQuery(store, RealSchema(), text);
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (text.starts_with("count")) {
      EXPECT_EQ(r->count, std::optional<uint64_t>(1));
    } else {
      ASSERT_EQ(r->rows.size(), 1u);
      EXPECT_EQ(r->rows[0].name, "Small");
    }
  }
  Result<QueryResult> above = RunQuery(store, RealSchema(), "find chip where memory > 4100 MB");
  ASSERT_TRUE(above.ok()) << above.status().message();
  EXPECT_TRUE(above->rows.empty());
}

// A large answer numbers its rows' citations in two halves at once, the
// second in a table of its own, renumbered after: every fact keeps the
// number one walk over the rows gives it, in order of first use, whether
// first used in the first half, only in the second, or in both (the model's
// parameter count every row cites). Checked against the walk itself, and
// against the answer numbered on one thread.
TEST(EvaluatorLargeAnswerTest, CitationsNumberedInTwoHalvesAsOneWalkNumbersThem) {
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  constexpr int kChips = 301;
  DocBuilder a("ds-a", "vendor", "a.example"), b("ds-b", "press", "b.example");
  for (int i = 0; i < kChips; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "chip:c%05d", i);
    PutEntity(store, id, "chip", std::string("Chip ") + std::to_string(i));
    const double gb = 40 + i % 90;
    a.Add(id, "memory", Q(gb * 1e9, "bytes", std::to_string(static_cast<int>(gb)) + " GB"));
    if (i % 4 == 0) b.Add(id, "memory", Q((gb + 8) * 1e9, "bytes", std::to_string(static_cast<int>(gb) + 8) + " GB"));
  }
  PutEntity(store, "llm:test-70b", "llm", "Test 70B");
  // The second source's count is cited only where its memory claims are:
  // first in the first half, and in the second.
  a.Add("llm:test-70b", "parameters", Q(70e9, "parameters", "70 B"));
  b.Add("llm:test-70b", "parameters", Q(70.5e9, "parameters", "70.5 B"));
  a.Write(store, "run-1");
  b.Write(store, "run-1");

  for (const std::string text : {"find chip where fits(\"llm:test-70b\", int4) with evidence",
                                 "find chip where memory >= 64 GB show memory"}) {
    SCOPED_TRACE(text);
    auto run = [&](size_t number_in_two_from) {
      QueryOptions options;
      options.read_excerpts = false;
      options.number_in_two_from = number_in_two_from;
      Result<QueryResult> r = RunQuery(store, RealSchema(), text, options);
      EXPECT_TRUE(r.ok()) << r.status().message();
      return r.ok() ? std::move(*r) : QueryResult();
    };
    const QueryResult one = run(std::numeric_limits<size_t>::max());
    ASSERT_GT(one.rows.size(), 200u);
    for (size_t from : {size_t{2}, one.rows.size(), one.rows.size() - 1}) {
      SCOPED_TRACE("in two from " + std::to_string(from));
      const QueryResult two = run(from);
      ASSERT_EQ(two.rows.size(), one.rows.size());
      ASSERT_EQ(two.citations.size(), one.citations.size());
      // The walk: each fact leaf's number is its citation's, and a number not
      // met before is the next one.
      int highest = 0;
      size_t leaves = 0;
      auto walk = [&](auto& self, const Support& s) -> void {
        if (s.op == Support::Op::kFact) {
          ++leaves;
          ASSERT_GE(s.citation, 1);
          ASSERT_LE(static_cast<size_t>(s.citation), two.citations.size());
          EXPECT_EQ(two.citations[static_cast<size_t>(s.citation) - 1].fact_id, s.fact_id);
          EXPECT_LE(s.citation, highest + 1) << "fact " << s.fact_id << " numbered out of first-use order";
          highest = std::max(highest, s.citation);
        }
        for (const Support& arg : s.args) self(self, arg);
      };
      for (const Row& row : two.rows) {
        for (const Cell& cell : row.cells) {
          for (const ShownValue& v : cell.values) walk(walk, v.support);
        }
        walk(walk, row.support);
      }
      EXPECT_EQ(static_cast<size_t>(highest), two.citations.size());
      EXPECT_GT(leaves, two.citations.size());  // facts cited more than once
      EXPECT_EQ(Render(two, Format::kJson), Render(one, Format::kJson));
    }
  }
}

// A conflicts pass reads subjects 64 at a time, one batch in six on the
// evaluating thread and the others ahead (with their claims), and finds each
// cited document as it keeps the claim; a large answer's documents are read
// on the other thread. Around every boundary of that (a batch, the sixth
// batch, 512 documents), with limits and cite_rows, the answer must be the
// one made with every claim on the evaluating thread (`using` selects
// sources, which keeps claims there), and each citation must name its fact's
// own document, version and fetch time. (Written by a review of the change.)
TEST(EvaluatorLargeAnswerTest, ConflictsAnswerAlikeAtEveryBatchBoundary) {
  for (int chips : {63, 64, 65, 383, 385, 1100}) {
    SCOPED_TRACE("chips " + std::to_string(chips));
    TempDir dir;
    Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    Store& store = **opened;
    PutEntity(store, "org:tsmc", "organization", "TSMC");
    PutEntity(store, "org:samsung", "organization", "Samsung Foundry");
    DocBuilder vendor("ds-a", "vendor", "a.example");
    for (int i = 0; i < chips; ++i) {
      char id[32];
      std::snprintf(id, sizeof id, "chip:r%05d", i);
      PutEntity(store, id, "chip", std::string("R chip ") + std::to_string(i));
      vendor.Add(id, "foundry", Value::Entity("org:tsmc", ""));
      vendor.Add(id, "memory", Q((i + 1) * 1e9, "bytes", std::to_string(i + 1) + " GB"));
      DocBuilder press("dp-" + std::to_string(i), "press", "p.example");  // a document a chip: 733 at 1,100
      if (i % 3 == 0) press.Add(id, "foundry", Value::Entity("org:samsung", ""));
      if (i % 2 == 0) press.Add(id, "memory", Q(3 * (i + 1) * 1e9, "bytes", std::to_string(3 * (i + 1)) + " GB"));
      if (i % 3 == 0 || i % 2 == 0) press.Write(store, "run-1", 1735689600 + i);
    }
    vendor.Write(store, "run-1");
    auto check_citations = [&](const QueryResult& r) {
      std::set<uint64_t> facts;
      for (size_t k = 0; k < r.citations.size(); ++k) {
        const Citation& c = r.citations[k];
        EXPECT_TRUE(facts.insert(c.fact_id).second);
        ASSERT_EQ(c.number, static_cast<int>(k) + 1);
        Result<Fact> f = store.GetFact(c.fact_id);
        ASSERT_TRUE(f.ok());
        EXPECT_EQ(c.subject, f->subject) << k;
        EXPECT_EQ(c.document_id, f->provenance.document_id) << k;
        EXPECT_EQ(c.version, f->provenance.document_version) << k;
        ASSERT_NE(c.document, nullptr) << k;
        EXPECT_EQ(c.document->id, c.document_id) << k;
        Result<DocumentVersion> v = store.GetDocumentVersion(c.document_id, c.version, false);
        ASSERT_TRUE(v.ok());
        EXPECT_EQ(c.fetched_at, v->fetched_at) << k;
        ASSERT_NE(r.VersionOf(c), nullptr) << k;  // a conflicts pass finds its sources as it goes
        EXPECT_EQ(r.VersionOf(c)->content_hash, v->content_hash) << k;
      }
      for (size_t i = 0; i < r.rows.size(); ++i) {
        for (size_t cell : {size_t{1}, size_t{2}}) {
          const Support& s = r.rows[i].cells[cell].values[0].support;
          if (i >= r.cited_rows) {
            EXPECT_EQ(s.citation, 0);
            continue;
          }
          ASSERT_GE(s.citation, 1) << i;
          ASSERT_LE(static_cast<size_t>(s.citation), r.citations.size());
          EXPECT_EQ(r.citations[s.citation - 1].fact_id, s.fact_id) << i;
        }
      }
    };
    for (bool excerpts : {false, true}) {
      QueryOptions o;
      o.read_excerpts = excerpts;
      Result<QueryResult> all = RunQuery(store, RealSchema(), "conflicts in chip", o);
      ASSERT_TRUE(all.ok()) << all.status().message();
      const size_t rows = static_cast<size_t>((chips + 1) / 2 + (chips + 2) / 3);
      ASSERT_EQ(all->rows.size(), rows);
      check_citations(*all);
      Result<QueryResult> here = RunQuery(store, RealSchema(), "conflicts in chip using vendor, press", o);
      ASSERT_TRUE(here.ok());
      EXPECT_TRUE(Render(*all, Format::kCsv) == Render(*here, Format::kCsv));
      for (size_t limit : {size_t{1}, size_t{64}, size_t{65}, rows - 1}) {
        if (limit > rows) continue;
        for (const char* policy : {"", " using vendor, press"}) {
          Result<QueryResult> l =
              RunQuery(store, RealSchema(), "conflicts in chip" + std::string(policy) + " limit " + std::to_string(limit), o);
          ASSERT_TRUE(l.ok());
          ASSERT_EQ(l->rows.size(), limit);
          for (size_t i = 0; i < limit; ++i) EXPECT_EQ(l->rows[i].entity, all->rows[i].entity) << i;
          check_citations(*l);
        }
      }
      for (size_t cite : {size_t{0}, size_t{37}}) {
        QueryOptions some = o;
        some.cite_rows = cite;
        Result<QueryResult> c = RunQuery(store, RealSchema(), "conflicts in chip", some);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c->cited_rows, std::min(cite, rows));
        check_citations(*c);
      }
    }
  }
}

// When the read-ahead thread falls behind, the conflicts pass reads later
// batches itself and keeps them until their turn. Here that thread is held
// busy while the pass starts, so the pass takes batches over (as many as it
// may) and then waits: the answer, its order and its citations must be those
// of a pass that took none over.
TEST(EvaluatorLargeAnswerTest, ConflictsAnswerAlikeWhenBatchesAreTakenOver) {
  constexpr int kChips = 1100;  // 18 batches: more than the pass may take over at once
  TempDir dir;
  Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;
  DocBuilder a("ds-a", "vendor", "a.example"), b("ds-b", "press", "b.example");
  for (int i = 0; i < kChips; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "chip:t%05d", i);
    PutEntity(store, id, "chip", std::string("T chip ") + std::to_string(i));
    a.Add(id, "memory", Q((i + 1) * 1e9, "bytes", std::to_string(i + 1) + " GB"));
    const int b_gb = i % 3 == 0 ? i + 2 : i + 1;
    b.Add(id, "memory", Q(b_gb * 1e9, "bytes", std::to_string(b_gb) + " GB"));
  }
  a.Write(store, "run-1", 1735689600);
  b.Write(store, "run-1", 1735776000);
  const std::string query = "conflicts in chip tolerance 0%";
  Result<QueryResult> unhindered = RunQuery(store, RealSchema(), query);
  ASSERT_TRUE(unhindered.ok()) << unhindered.status().message();
  ASSERT_EQ(unhindered->rows.size(), static_cast<size_t>((kChips + 2) / 3));
  // Every evaluation's reads ahead run on one lasting thread, in order: a
  // task submitted first holds it.
  query::internal::ReadAhead holder;
  std::future<void> busy = holder.Submit([] { std::this_thread::sleep_for(std::chrono::milliseconds(400)); });
  Result<QueryResult> hindered = RunQuery(store, RealSchema(), query);
  ASSERT_TRUE(hindered.ok()) << hindered.status().message();
  EXPECT_EQ(busy.wait_for(std::chrono::seconds(0)), std::future_status::ready);  // the pass had to wait for it
  EXPECT_TRUE(Render(*unhindered, Format::kCsv) == Render(*hindered, Format::kCsv));
  EXPECT_TRUE(Render(*unhindered, Format::kJson) == Render(*hindered, Format::kJson));
  ASSERT_EQ(hindered->citations.size(), unhindered->citations.size());
  for (size_t k = 0; k < hindered->citations.size(); ++k) {
    const Citation& c = hindered->citations[k];
    Result<Fact> f = store.GetFact(c.fact_id);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(c.subject, f->subject) << k;
    EXPECT_EQ(c.document_id, f->provenance.document_id) << k;
    ASSERT_NE(hindered->VersionOf(c), nullptr) << k;
  }
}

// A conflicts pass over many subjects sizes its rows from the first sixteenth of them. Where
// the rest disagree far less, the answer must not keep the room the estimate took: here the
// first 128 of 2,048 chips make two rows each and the rest none, an estimate of 4,608 rows for
// 256. Where they disagree far more (the other order), the rows grow past the estimate. Both
// answers are every pair, and a limit under the estimate is still met.
TEST(EvaluatorLargeAnswerTest, ConflictRowsSizedFromTheFirstSubjectsGiveBackTheSpare) {
  constexpr int kChips = 2048, kDisagreeing = 128;
  for (bool first_disagree : {true, false}) {
    SCOPED_TRACE(first_disagree ? "the first chips disagree" : "the last chips disagree");
    TempDir dir;
    Result<std::unique_ptr<Store>> opened = Store::Open(dir.path() + "/store");
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    Store& store = **opened;
    DocBuilder a("ds-a", "vendor", "a.example"), b("ds-b", "press", "b.example"), c("ds-c", "aggregator", "c.example");
    for (int i = 0; i < kChips; ++i) {
      char id[32];
      std::snprintf(id, sizeof id, "chip:s%05d", i);
      PutEntity(store, id, "chip", std::string("S chip ") + std::to_string(i));
      const bool disagrees = first_disagree ? i < kDisagreeing : i >= kChips - kDisagreeing;
      a.Add(id, "memory", Q((i + 1) * 1e9, "bytes", std::to_string(i + 1) + " GB"));
      b.Add(id, "memory", Q((i + 1) * 1e9, "bytes", std::to_string(i + 1) + " GB"));
      const int c_gb = disagrees ? i + 2 : i + 1;
      c.Add(id, "memory", Q(c_gb * 1e9, "bytes", std::to_string(c_gb) + " GB"));
    }
    a.Write(store, "run-1", 1735689600);
    b.Write(store, "run-1", 1735776000);
    c.Write(store, "run-1", 1735862400);
    Result<QueryResult> all = RunQuery(store, RealSchema(), "conflicts in chip tolerance 0%");
    ASSERT_TRUE(all.ok()) << all.status().message();
    ASSERT_EQ(all->rows.size(), 2u * kDisagreeing);  // c against a, c against b
    EXPECT_LE(all->rows.capacity(), all->rows.size() + all->rows.size() / 2);
    for (size_t i = 0; i < all->rows.size(); ++i) {
      const int chip = std::stoi(all->rows[i].name.substr(7));
      EXPECT_EQ(chip, (first_disagree ? 0 : kChips - kDisagreeing) + static_cast<int>(i / 2)) << i;
    }
    Result<QueryResult> some = RunQuery(store, RealSchema(), "conflicts in chip tolerance 0% limit 100");
    ASSERT_TRUE(some.ok()) << some.status().message();
    ASSERT_EQ(some->rows.size(), 100u);
    for (size_t i = 0; i < some->rows.size(); ++i) EXPECT_EQ(some->rows[i].entity, all->rows[i].entity) << i;
  }
}

}  // namespace
}  // namespace chipkg::query
