// The seed pages against their golden facts, and the provenance invariants of
// every fact of every seed.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "ingest/extract.h"
#include "tests/ingest/extract_test_support.h"

namespace chipkg {
namespace {

using extract_test::GoldenLine;

const char* const kSeeds[] = {"000_de7815fa348ea8df.txt", "001_fbc9a4a76c8d550e.txt",
                              "003_d5e7e28472882ec2.txt"};

struct Extracted {
  std::string text;
  Extraction extraction;
};

Extracted ExtractSeed(const std::string& name) {
  Extracted out;
  out.text = extract_test::ReadFile(extract_test::SourceDir() + "/datasets/seeds/" + name);
  EXPECT_FALSE(out.text.empty()) << name;
  extract_test::SchemaOnlyResolver resolver(extract_test::RealSchema());
  SourceInfo source{"seed:" + name, "file://datasets/seeds/" + name, "", "aggregator"};
  Result<Extraction> r = ExtractDocument(out.text, source, extract_test::RealSchema(), resolver);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) out.extraction = std::move(r).value();
  return out;
}

std::vector<std::string> ReadGolden(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(extract_test::ReadFile(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    lines.push_back(line);
  }
  return lines;
}

class SeedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SeedTest, MatchesGoldenFacts) {
  std::string name = GetParam();
  Extracted e = ExtractSeed(name);
  std::string golden_path = extract_test::SourceDir() + "/tests/ingest/golden/" + name + ".facts";
  ASSERT_TRUE(std::filesystem::exists(golden_path)) << golden_path;
  std::vector<std::string> expected = ReadGolden(golden_path);
  std::vector<std::string> actual;
  for (const Fact& f : e.extraction.facts) actual.push_back(GoldenLine(f));

  std::vector<std::string> missing;
  std::vector<std::string> remaining = actual;
  for (const std::string& line : expected) {
    auto it = std::find(remaining.begin(), remaining.end(), line);
    if (it == remaining.end()) {
      missing.push_back(line);
    } else {
      remaining.erase(it);
    }
  }
  for (const std::string& m : missing) ADD_FAILURE() << "golden fact not extracted:\n  " << m;
  for (const std::string& u : remaining) ADD_FAILURE() << "fact not in the golden file:\n  " << u;
  if (!missing.empty() || !remaining.empty()) {
    // The whole actual output, for review before updating the golden file.
    std::string path = ::testing::TempDir() + name + ".facts.actual";
    std::ofstream out(path);
    for (const std::string& line : actual) out << line << "\n";
    std::fprintf(stderr, "actual facts written to %s\n", path.c_str());
  }
  for (const std::string& w : e.extraction.warnings)
    std::fprintf(stderr, "[%s] warning: %s\n", name.c_str(), w.c_str());
}

TEST_P(SeedTest, EveryFactQuotesItsSpan) {
  std::string name = GetParam();
  Extracted e = ExtractSeed(name);
  ASSERT_FALSE(e.extraction.facts.empty());
  for (const Fact& f : e.extraction.facts) {
    const Provenance& p = f.provenance;
    SCOPED_TRACE(GoldenLine(f));
    ASSERT_LT(p.span_begin, p.span_end);
    ASSERT_LE(p.span_end, e.text.size());
    EXPECT_EQ(e.text.substr(p.span_begin, p.span_end - p.span_begin), p.excerpt);
    ASSERT_LE(p.prefix.size(), p.span_begin);
    EXPECT_EQ(e.text.substr(p.span_begin - p.prefix.size(), p.prefix.size()), p.prefix);
    EXPECT_EQ(e.text.substr(p.span_end, p.suffix.size()), p.suffix);
    EXPECT_LE(p.prefix.size(), 32u);
    EXPECT_LE(p.suffix.size(), 32u);
    // Context is cut on character boundaries, and is there unless the span is at an end of the text.
    if (!p.prefix.empty()) {
      EXPECT_NE(static_cast<unsigned char>(p.prefix[0]) & 0xC0, 0x80);
    }
    if (p.span_begin >= 32) {
      EXPECT_GE(p.prefix.size(), 29u);
    }
    if (p.span_end + 32 <= e.text.size()) {
      EXPECT_GE(p.suffix.size(), 29u);
    }
    EXPECT_FALSE(p.section.empty());
    EXPECT_FALSE(p.rule.empty());
    EXPECT_EQ(p.rule_version, kExtractRuleVersion);
    EXPECT_EQ(p.document_id, "seed:" + name);
    EXPECT_FALSE(f.subject.empty());
    const PredicateDef* def = extract_test::RealSchema().FindPredicate(f.predicate);
    ASSERT_NE(def, nullptr) << f.predicate;
    if (f.value.kind != ValueKind::kNotPublished) {
      EXPECT_EQ(f.value.kind, def->type);
    }
    if (f.value.kind == ValueKind::kQuantity) {
      EXPECT_EQ(f.value.dimension, def->dimension);
      EXPECT_FALSE(f.value.original.empty());
    }
    if (p.derivation == Derivation::kStatedDerived) {
      EXPECT_FALSE(p.formula.empty());
    }
    if (!p.citations.empty()) {
      EXPECT_FALSE(p.attribution.empty());
    }
  }
}

// Saved with a UTF-8 byte order mark, a page reads as it does without: the
// same template, title and facts, each span and context the same bytes
// three on (the mark stays in the stored text). With the mark read as part
// of the first line, the Trainium 2 page gave 35 facts of 154, about a
// chip named "\uFEFFAI chip · Amazon".
TEST_P(SeedTest, AByteOrderMarkChangesNothingButTheOffsets) {
  const std::string name = GetParam();
  Extracted plain = ExtractSeed(name);
  const std::string marked_text = "\xEF\xBB\xBF" + plain.text;
  extract_test::SchemaOnlyResolver resolver(extract_test::RealSchema());
  SourceInfo source{"seed:" + name, "file://datasets/seeds/" + name, "", "aggregator"};
  Result<Extraction> marked = ExtractDocument(marked_text, source, extract_test::RealSchema(), resolver);
  ASSERT_TRUE(marked.ok()) << marked.status().ToString();
  EXPECT_EQ(marked->template_name, plain.extraction.template_name);
  EXPECT_EQ(marked->title, plain.extraction.title);
  ASSERT_EQ(marked->facts.size(), plain.extraction.facts.size());
  for (size_t i = 0; i < marked->facts.size(); ++i) {
    const Fact& m = marked->facts[i];
    const Fact& p = plain.extraction.facts[i];
    SCOPED_TRACE(GoldenLine(p));
    EXPECT_EQ(GoldenLine(m), GoldenLine(p));
    EXPECT_EQ(m.provenance.span_begin, p.provenance.span_begin + 3);
    EXPECT_EQ(m.provenance.span_end, p.provenance.span_end + 3);
    EXPECT_EQ(marked_text.substr(m.provenance.span_begin, m.provenance.span_end - m.provenance.span_begin),
              m.provenance.excerpt);
    EXPECT_EQ(marked_text.substr(m.provenance.span_begin - m.provenance.prefix.size(), m.provenance.prefix.size()),
              m.provenance.prefix);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedTest, ::testing::ValuesIn(kSeeds),
                         [](const auto& info) { return std::string(info.param).substr(0, 3); });

TEST(SeedTemplates, EachSeedIsRecognised) {
  EXPECT_EQ(ExtractSeed(kSeeds[0]).extraction.template_name, "chip-catalog");
  EXPECT_EQ(ExtractSeed(kSeeds[1]).extraction.template_name, "chip-dossier");
  EXPECT_EQ(ExtractSeed(kSeeds[2]).extraction.template_name, "chip-catalog");
}

TEST(SeedPages, TitleAndAsOf) {
  Extracted a = ExtractSeed(kSeeds[0]);
  EXPECT_EQ(a.extraction.title, "AWS Trainium (Trn1)");
  ASSERT_TRUE(a.extraction.as_of.has_value());
  EXPECT_EQ(a.extraction.as_of->ToString(), "2026-09-27");
  Extracted b = ExtractSeed(kSeeds[1]);
  EXPECT_EQ(b.extraction.title, "Amazon Trainium (Trn1)");
  EXPECT_FALSE(b.extraction.as_of.has_value());
}

const Fact* Find(const Extraction& e, const std::string& subject, const std::string& predicate,
                 const std::string& excerpt, const std::string& rule) {
  for (const Fact& f : e.facts) {
    if (f.subject == subject && f.predicate == predicate && f.provenance.excerpt == excerpt &&
        f.provenance.rule == rule) {
      return &f;
    }
  }
  return nullptr;
}

TEST(SeedPages, AttributionAndCitations) {
  Extracted a = ExtractSeed(kSeeds[0]);
  const Fact* tdp = Find(a.extraction, "chip:aws-trainium", "tdp", "500 W", "chip-catalog-spec-list");
  ASSERT_NE(tdp, nullptr);
  EXPECT_EQ(tdp->provenance.attribution, "Straight from the vendor datasheet");
  EXPECT_EQ(tdp->provenance.section, "Specifications (8 fields, click to expand)");
  const Fact* faq_memory = Find(a.extraction, "chip:aws-trainium", "memory", "32 GB", "chip-catalog-faq");
  ASSERT_NE(faq_memory, nullptr);
  EXPECT_EQ(faq_memory->provenance.attribution, "Straight from the vendor datasheet");
  EXPECT_EQ(faq_memory->valid_as_of->ToString(), "2026-09-27");

  Extracted b = ExtractSeed(kSeeds[1]);
  const Fact* bw = Find(b.extraction, "chip:aws-trainium", "memory_bandwidth", "820 GB/s", "generic-table");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->provenance.citations, std::vector<std::string>{"4"});
  EXPECT_EQ(bw->provenance.attribution, "citation 4");
  EXPECT_EQ(bw->provenance.section, "4.Full spec table");
}

TEST(SeedPages, ExtractionTime) {
  // Not a benchmark: a bound that catches a pathological slowdown.
  for (const char* seed : kSeeds) {
    auto start = std::chrono::steady_clock::now();
    Extracted e = ExtractSeed(seed);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "%s: %zu facts, %zu warnings, %.2f ms\n", seed, e.extraction.facts.size(),
                 e.extraction.warnings.size(), ms);
    EXPECT_LT(ms, 5000);
  }
}

}  // namespace
}  // namespace chipkg
