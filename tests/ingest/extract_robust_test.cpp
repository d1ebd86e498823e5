// Broken documents never crash the extractors and never yield a fact whose
// excerpt is not the text at its span.

#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "ingest/extract.h"
#include "tests/ingest/extract_test_support.h"

namespace chipkg {
namespace {

using extract_test::RealSchema;

Extraction ExtractChecked(const std::string& text) {
  extract_test::SchemaOnlyResolver resolver(RealSchema());
  Result<Extraction> r = ExtractDocument(text, SourceInfo{"doc:broken", "", "", ""}, RealSchema(), resolver);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  for (const Fact& f : r->facts) {
    const Provenance& p = f.provenance;
    EXPECT_LT(p.span_begin, p.span_end);
    EXPECT_LE(p.span_end, text.size());
    if (p.span_end <= text.size()) {
      EXPECT_EQ(text.substr(p.span_begin, p.span_end - p.span_begin), p.excerpt);
      EXPECT_EQ(text.substr(p.span_begin - p.prefix.size(), p.prefix.size()), p.prefix);
      EXPECT_EQ(text.substr(p.span_end, p.suffix.size()), p.suffix);
    }
  }
  return std::move(r).value();
}

TEST(Broken, EmptyAndBlank) {
  EXPECT_TRUE(ExtractChecked("").facts.empty());
  EXPECT_TRUE(ExtractChecked("\n\n   \n").facts.empty());
}

TEST(Broken, BinaryJunk) {
  std::mt19937 rng(7);
  std::string junk(256 * 1024, '\0');
  for (char& c : junk) c = static_cast<char>(rng() & 0xFF);
  ExtractChecked(junk);
  // Junk with the shapes the readers look for.
  std::string shaped;
  const char* pieces[] = {"| ",         " |",
                          "- ",         "\n",
                          ": ",         "TDP",
                          "Memory",     "32 GB",
                          "\xC3",       "\xE2\x9C",
                          "(",          ")",
                          "1 December", "not published",
                          "$",          "\xC3\x97",
                          "=",          "AI chip \xC2\xB7 ",
                          "1.",         "SimpleStart here"};
  for (int i = 0; i < 20000; ++i) shaped += pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
  ExtractChecked(shaped);
}

TEST(Broken, TruncatedTable) {
  Extraction e = ExtractChecked("# Acme X1\n| Spec | Acme X1 |\n|---|---|\n| Memory | 32 GB\n| TDP");
  EXPECT_FALSE(e.warnings.empty());
  ASSERT_EQ(e.facts.size(), 1u);
  EXPECT_EQ(e.facts[0].predicate, "memory");
}

TEST(Broken, OneLineOfFiveMegabytes) {
  std::string line;
  while (line.size() < 5 * 1024 * 1024) line += "TDP: 500 W and 32 GB of memory, | cell | ";
  auto start = std::chrono::steady_clock::now();
  Extraction e = ExtractChecked("# Acme X1\n" + line + "\nTDP: 400 W\n");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_FALSE(e.warnings.empty());
  ASSERT_EQ(e.facts.size(), 1u);  // the short line after it is still read
  EXPECT_EQ(e.facts[0].value.original, "400 W");
}

TEST(Broken, ManyShortLinesStayLinear) {
  std::string page = "# Acme X1\n";
  for (int i = 0; i < 20000; ++i) page += "TDP: " + std::to_string(100 + i % 500) + " W\n";
  auto start = std::chrono::steady_clock::now();
  Extraction e = ExtractChecked(page);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(e.facts.size(), 20000u);
  EXPECT_LT(seconds, 15.0);
}

TEST(Broken, EveryPrefixOfEverySeed) {
  for (const char* seed :
       {"000_de7815fa348ea8df.txt", "001_fbc9a4a76c8d550e.txt", "003_d5e7e28472882ec2.txt"}) {
    std::string text = extract_test::ReadFile(extract_test::SourceDir() + "/datasets/seeds/" + seed);
    ASSERT_FALSE(text.empty());
    for (size_t n = 0; n < text.size(); n += 257) ExtractChecked(text.substr(0, n));
  }
}

TEST(Broken, UnknownLabelIsAWarningNotAFact) {
  Extraction e = ExtractChecked("# Acme X1\n- Flux capacity\n- 1.21 GW\n");
  EXPECT_TRUE(e.facts.empty());
  ASSERT_FALSE(e.warnings.empty());
  EXPECT_NE(e.warnings[0].find("unknown label 'Flux capacity'"), std::string::npos);
  EXPECT_EQ(e.warnings[0].rfind("line 2:", 0), 0u);
}

TEST(Broken, UnknownIsNeverStored) {
  Extraction e = ExtractChecked("# Acme X1\nTDP: unknown\nFoundry: TBD\nMemory: n/a\n");
  EXPECT_TRUE(e.facts.empty());
  EXPECT_EQ(e.warnings.size(), 3u);
}

}  // namespace
}  // namespace chipkg
