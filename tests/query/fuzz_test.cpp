// No query crashes: thousands of generated malformed inputs (token soup,
// mutations of good queries, deep nesting, huge numbers, invalid UTF-8) go
// through the parser, and those that parse through the binder and evaluator
// on the seeds store. Each must come back as a value or a Status.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "query/parser.h"
#include "query/query.h"
#include "query_test_util.h"

namespace chipkg::query {
namespace {

const std::vector<std::string>& Vocabulary() {
  static const std::vector<std::string> kTokens = {
      "find", "count", "facts", "conflicts", "about", "in", "where", "and", "or", "not", "show", "order", "by",
      "asc", "desc", "limit", "using", "prefer", "site", "from", "document", "as", "of", "at", "tx", "run",
      "tolerance", "with", "evidence", "ignoring", "not_published", "true", "false", "contains", "chip", "chips",
      "llm", "memory", "memory_bandwidth", "bf16", "foundry", "announced", "perf_per_watt", "peak_throughput",
      "trainium", "trainium2", "fits", "reported", "unknown", "conflicting", "headroom", "int8", "fp16", "vendor",
      "TSMC", "64", "2,900", "1e308", "1e99999", "-0", "0.5", "99999999999999999999999", "2024", "2024-06",
      "2024-13-45", "2023-11-15", "2025-01-01T12:00:00Z", "GB", "GiB", "TB/s", "TFLOPS", "%", "W", ">=", "<=",
      ">", "<", "=", "!=", "<>", "==", "(", ")", "{", "}", ",", ".", ";", "'", "\"", "#", "\\", "\"Llama 3.1 70B\"",
      "'unterminated", "\"a\\qb\"", "{format=bf16}", "\xff", "\xc3", "\xe2\x80", "\xf0\x9f\x98\x80", "\t", "\n",
      std::string("\0", 1), "$/hr", "*", "+", "-", "_", "__", "9", "x"};
  return kTokens;
}

class FuzzTest : public ::testing::Test {
 protected:
  // Parses `text`; whatever parses is also bound and evaluated.
  void Survive(const std::string& text) {
    Result<Query> q = ParseQuery(text);
    if (!q.ok()) {
      EXPECT_TRUE(q.status().IsInvalidArgument()) << q.status().message();
      EXPECT_FALSE(q.status().message().empty());
      ++rejected_;
      return;
    }
    ++parsed_;
    testing::SeedStore& seeds = testing::SeedStore::Get();
    Result<QueryResult> r = RunQuery(seeds.store(), seeds.schema(), text);
    if (r.ok()) {
      // Rendering must cope with whatever the query produced.
      EXPECT_FALSE(Render(*r, Format::kText).empty());
      EXPECT_FALSE(Render(*r, Format::kJson).empty());
      EXPECT_FALSE(Render(*r, Format::kCsv).empty());
      ++answered_;
    } else {
      EXPECT_FALSE(r.status().message().empty());
    }
  }

  size_t parsed_ = 0, rejected_ = 0, answered_ = 0;
};

TEST_F(FuzzTest, RandomTokenSoup) {
  std::mt19937 rng(20241130);
  const auto& vocab = Vocabulary();
  std::uniform_int_distribution<size_t> pick(0, vocab.size() - 1);
  std::uniform_int_distribution<int> length(1, 24);
  std::uniform_int_distribution<int> coin(0, 3);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const int n = length(rng);
    // Half of the inputs start like a query, so the parser gets past the first word.
    if (coin(rng) < 2) text = "find chip where ";
    for (int k = 0; k < n; ++k) {
      text += vocab[pick(rng)];
      if (coin(rng) != 0) text += " ";
    }
    Survive(text);
  }
  EXPECT_GT(rejected_, 1000u);
  std::printf("token soup: %zu parsed (%zu answered), %zu rejected\n", parsed_, answered_, rejected_);
}

// Random queries from a small generator of plausible pieces, then corrupted
// now and then, so that many get past the parser into the binder and the
// evaluator with odd but meaningful combinations.
class QueryGenerator {
 public:
  explicit QueryGenerator(uint32_t seed) : rng_(seed) {}

  std::string Query() {
    std::string q;
    switch (Pick(6)) {
      case 0: q = "find chip where " + Condition(3); break;
      case 1: q = "count chips where " + Condition(3); break;
      case 2: q = Entity() + "." + (Pick(3) == 0 ? Fits() : Attribute()); break;
      case 3: q = "facts about " + Entity(); break;
      case 4: q = "conflicts in chip"; break;
      default: q = "find " + One({"chip", "llm", "organization", "chips", "instance_type"}) + " where " + Condition(2); break;
    }
    const int clauses = Pick(4);
    for (int i = 0; i < clauses; ++i) q += " " + Clause();
    return q;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string One(const std::vector<std::string>& v) { return v[static_cast<size_t>(Pick(static_cast<int>(v.size())))]; }
  std::string Entity() { return One({"trainium", "trainium2", "Trn1", "\"AWS Trainium 2\"", "inferentia", "nvidia", "\"Llama 3.1 70B\""}); }
  std::string Attribute() {
    return One({"memory", "memory_bandwidth", "bf16", "fp8", "tdp", "foundry", "process_node", "announced", "released",
                "memory_type", "perf_per_watt", "peak_throughput{format=fp8}", "on_chip_memory{scope=core}",
                "launch_price", "parameters", "safety_critical", "description"});
  }
  std::string Value() {
    return One({"64 GB", "32 GiB", "1 TB/s", "2,900 GB/s", "500 W", "1 PFLOPS", "0.4 TFLOPS/W", "2024", "2023-11",
                "2022-10-05", "TSMC", "\"HBM3\"", "true", "false", "70 B", "5 nm", "0", "-1 GB", "1e300 GB"});
  }
  std::string Fits() {
    std::string f = "fits(" + One({"\"Llama 3.1 70B\"", "\"Mixtral 8x7B\"", "'Kimi K2'"}) + ", " +
                    One({"int8", "int4", "fp16", "bf16", "fp8"});
    if (Pick(2) == 0) f += ", headroom " + One({"0%", "15%", "100%", "999%"});
    return f + ")";
  }
  std::string Condition(int depth) {
    const int k = depth <= 0 ? Pick(3) : Pick(7);
    switch (k) {
      case 0: return Attribute() + " " + One({"=", "!=", "<", "<=", ">", ">=", "contains"}) + " " + Value();
      case 1: return One({"reported", "not_published", "unknown", "conflicting"}) + "(" + Attribute() + ")";
      case 2: return Fits();
      case 3: return "not " + Condition(depth - 1);
      case 4: return "(" + Condition(depth - 1) + " and " + Condition(depth - 1) + ")";
      case 5: return Condition(depth - 1) + " or " + Condition(depth - 1);
      default: return Condition(depth - 1) + " and " + Condition(depth - 1);
    }
  }
  std::string Clause() {
    switch (Pick(9)) {
      case 0: return "show " + Attribute() + ", " + Attribute();
      case 1: return "order by " + One({"memory", "name", "released", "foundry"}) + One({"", " asc", " desc"});
      case 2: return "limit " + One({"0", "1", "3", "100"});
      // (Sources the seed store holds: naming one it lacks is an error.)
      case 3: return "using " + One({"press", "site chip-catalog.example", "site example", "site chip-dossier.example"});
      case 4: return "prefer " + One({"vendor, press", "site chip-dossier.example"});
      case 5: return "as of " + One({"2024", "2024-06-01", "2026-12"});
      case 6: return "tolerance " + One({"0%", "2%", "50%"});
      case 7: return "with evidence";
      default: return "ignoring not_published";
    }
  }
  std::mt19937 rng_;
};

TEST_F(FuzzTest, GeneratedAndCorruptedQueries) {
  QueryGenerator gen(424242);
  std::mt19937 rng(5);
  const auto& vocab = Vocabulary();
  std::uniform_int_distribution<size_t> pick(0, vocab.size() - 1);
  std::uniform_int_distribution<int> coin(0, 9);
  for (int i = 0; i < 400; ++i) {
    std::string q = gen.Query();
    if (coin(rng) < 3 && !q.empty()) {
      std::uniform_int_distribution<size_t> at(0, q.size() - 1);
      q.insert(at(rng), " " + vocab[pick(rng)] + " ");
    }
    Survive(q);
  }
  EXPECT_GT(parsed_, 200u);
  EXPECT_GT(answered_, 100u);
  std::printf("generated: %zu parsed (%zu answered), %zu rejected\n", parsed_, answered_, rejected_);
}

TEST_F(FuzzTest, MutatedGoodQueries) {
  const std::vector<std::string> good = {
      "find chip where fits(\"Llama 3.1 70B\", int8, headroom 15%) and reported(foundry) show memory, foundry",
      "find chip where memory >= 64 GB and memory_bandwidth > 2 TB/s order by memory desc limit 3",
      "trainium2.memory_bandwidth using press prefer site chip-catalog.example as of 2026-01",
      "find chip where not (announced >= 2023-11-15 or conflicting(bf16{sparsity=dense})) tolerance 5%",
      "conflicts in chip about trainium ignoring not_published",
      "facts about \"AWS Trainium 2\" from document seed-003-aws-trainium2 as at run seed-run",
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> op(0, 3);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 2000; ++i) {
    std::string text = good[i % good.size()];
    const int edits = 1 + i % 4;
    for (int k = 0; k < edits && !text.empty(); ++k) {
      std::uniform_int_distribution<size_t> at(0, text.size() - 1);
      const size_t p = at(rng);
      switch (op(rng)) {
        case 0: text.erase(p, 1); break;
        case 1: text.insert(p, 1, static_cast<char>(byte(rng))); break;
        case 2: text[p] = static_cast<char>(byte(rng)); break;
        default: text.insert(p, text.substr(0, p)); break;  // stutter a prefix
      }
    }
    Survive(text);
  }
  for (const std::string& q : good) {
    Result<QueryResult> r = RunQuery(testing::SeedStore::Get().store(), testing::SeedStore::Get().schema(), q);
    EXPECT_TRUE(r.ok()) << q << "\n" << r.status().message();
  }
}

TEST_F(FuzzTest, DeepNestingAndHugeInputs) {
  const std::string parens = "find chip where " + std::string(10000, '(') + "memory > 1 GB" + std::string(10000, ')');
  Result<Query> deep = ParseQuery(parens);
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested more than 64 levels"), std::string::npos);

  std::string nots = "find chip where ";
  for (int i = 0; i < 10000; ++i) nots += "not ";
  Survive(nots + "reported(foundry)");
  Survive("find chip where " + std::string(10000, '(') );
  Survive("find chip where " + std::string(10000, ')'));
  Survive("find chip where memory > " + std::string(5000, '9') + " GB");
  Survive("find chip where memory > 1e-99999 GB");
  Survive("find chip limit " + std::string(100, '9'));
  Survive("find chip as at tx " + std::string(100, '9'));
  Survive("find chip where memory > 1" + std::string(20000, '0') + " GB");
  std::string chain = "find chip where memory > 1 GB";
  for (int i = 0; i < 500; ++i) chain += " and memory > 1 GB";
  Survive(chain);  // long but flat: parsed and evaluated
  std::string wide = "find chip show memory";
  for (int i = 0; i < 300; ++i) wide += ", memory";
  Survive(wide);
  const std::string huge(kMaxQueryBytes + 1, 'a');
  Result<Query> too_long = ParseQuery(huge);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("the limit is"), std::string::npos);
}

TEST_F(FuzzTest, InvalidUtf8AndControlBytes) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(1, 64);
  for (int i = 0; i < 1000; ++i) {
    std::string text = i % 2 ? "find chip where foundry = \"" : "";
    const int n = length(rng);
    for (int k = 0; k < n; ++k) text += static_cast<char>(byte(rng));
    Survive(text);
  }
  Result<Query> overlong = ParseQuery("find chip where x = \"\xc0\xaf\"");
  ASSERT_FALSE(overlong.ok());
  EXPECT_NE(overlong.status().message().find("invalid UTF-8"), std::string::npos);
  Result<Query> surrogate = ParseQuery("find chip where x = \"\xed\xa0\x80\"");
  ASSERT_FALSE(surrogate.ok());
  EXPECT_NE(surrogate.status().message().find("invalid UTF-8"), std::string::npos);
  // A control byte is pointed at where it is, not where its statement began.
  Result<Query> nul = ParseQuery(std::string("trainium\0.memory", 16));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("line 1, column 9: a control character (byte 0x00) in the query"),
            std::string::npos)
      << nul.status().message();
  // Tabs and line breaks are white space.
  EXPECT_TRUE(ParseQuery("find chip\n\twhere memory >= 64 GB\r\n").ok());
}

}  // namespace
}  // namespace chipkg::query
