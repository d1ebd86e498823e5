#include "ingest/csv.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace chipkg {
namespace {

CsvTable MustParse(const std::string& text, const CsvOptions& options = {}) {
  auto table = ParseCsv(text, "test.csv", options);
  EXPECT_TRUE(table.ok()) << table.status().message();
  return table.ok() ? std::move(table).value() : CsvTable{};
}

// Every field's recorded span must point at its raw bytes in the input.
void ExpectSpansMatch(const std::string& text, const CsvTable& table) {
  auto check = [&](const CsvRecord& r) {
    for (const CsvField& f : r.fields) {
      ASSERT_LE(f.offset + f.length, text.size());
      std::string raw = text.substr(f.offset, f.length);
      std::string unescaped;
      for (size_t i = 0; i < raw.size(); ++i) {
        unescaped.push_back(raw[i]);
        if (f.quoted && raw[i] == '"') ++i;  // "" in the raw text is one quote in the value
      }
      EXPECT_EQ(unescaped, f.value) << "line " << r.line;
    }
  };
  check(table.header);
  for (const auto& r : table.records) check(r);
}

TEST(CsvTest, SimpleWithHeaderAndTrailingNewline) {
  std::string text = "a,b,c\n1,2,3\n4,,6\n";
  CsvTable t = MustParse(text);
  ASSERT_EQ(t.header.fields.size(), 3u);
  EXPECT_EQ(t.header.fields[1].value, "b");
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].line, 2u);
  EXPECT_EQ(t.records[1].line, 3u);
  EXPECT_EQ(t.records[1].fields[1].value, "");
  EXPECT_EQ(t.records[1].fields[1].length, 0u);
  EXPECT_EQ(t.records[1].fields[2].offset, text.find("6"));
  EXPECT_EQ(t.ColumnIndex("c"), 2);
  EXPECT_EQ(t.ColumnIndex(" c "), 2);
  EXPECT_EQ(t.ColumnIndex("d"), -1);
  ExpectSpansMatch(text, t);
}

TEST(CsvTest, NoTrailingNewline) {
  CsvTable t = MustParse("a,b\n1,2");
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.records[0].fields[1].value, "2");
  // A trailing delimiter at the very end still makes an (empty) last field.
  CsvTable u = MustParse("a,b\n1,");
  ASSERT_EQ(u.records.size(), 1u);
  EXPECT_EQ(u.records[0].fields[1].value, "");
  EXPECT_EQ(u.records[0].fields[1].offset, 6u);
}

TEST(CsvTest, QuotedFieldWithDelimiterAndDoubledQuotes) {
  std::string text = "name,note\nx,\"one, two \"\"three\"\"\"\n";
  CsvTable t = MustParse(text);
  ASSERT_EQ(t.records.size(), 1u);
  const CsvField& f = t.records[0].fields[1];
  EXPECT_TRUE(f.quoted);
  EXPECT_EQ(f.value, "one, two \"three\"");
  // The span covers the raw content inside the quotes, doubled quotes included.
  EXPECT_EQ(text.substr(f.offset, f.length), "one, two \"\"three\"\"");
  ExpectSpansMatch(text, t);
}

TEST(CsvTest, NewlinesInsideQuotesKeepLineNumbers) {
  std::string text = "a,b\n\"l1\nl2\r\nl3\rl4\",x\ny,z\n";
  CsvTable t = MustParse(text);
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].fields[0].value, "l1\nl2\r\nl3\rl4");
  EXPECT_EQ(t.records[0].line, 2u);
  // LF, CRLF and a lone CR each end one line: the next record starts on line 6.
  EXPECT_EQ(t.records[1].line, 6u);
  EXPECT_EQ(t.records[1].fields[0].value, "y");
  ExpectSpansMatch(text, t);
}

TEST(CsvTest, CrlfRecordsAndLoneCr) {
  CsvTable t = MustParse("a,b\r\n1,2\r\n3,4\r5,6");
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(t.records[0].fields[1].value, "2");  // no stray CR in the last field
  EXPECT_EQ(t.records[1].fields[1].value, "4");
  EXPECT_EQ(t.records[2].fields[0].value, "5");
  EXPECT_EQ(t.records[2].line, 4u);
}

TEST(CsvTest, TabsAreOrdinaryBytes) {
  std::string text = "a,b\n\"x\t\t\ty\",\tz\t\n";
  CsvTable t = MustParse(text);
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.records[0].fields[0].value, "x\t\t\ty");
  EXPECT_EQ(t.records[0].fields[1].value, "\tz\t");
  ExpectSpansMatch(text, t);
}

TEST(CsvTest, ByteOrderMarkIsSkippedButOffsetsStayInOriginalText) {
  std::string text = "\xEF\xBB\xBFname,v\nA,1\n";
  CsvTable t = MustParse(text);
  EXPECT_EQ(t.header.fields[0].value, "name");
  EXPECT_EQ(t.header.fields[0].offset, 3u);
  EXPECT_EQ(t.ColumnIndex("name"), 0);
  ExpectSpansMatch(text, t);
}

TEST(CsvTest, BlankLinesSkippedByDefault) {
  CsvTable t = MustParse("a,b\n\n1,2\n\n\n");
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.records[0].line, 3u);
  CsvOptions strict;
  strict.skip_blank_lines = false;
  auto r = ParseCsv("a,b\n\n1,2\n", "t.csv", strict);
  ASSERT_FALSE(r.ok());  // the blank line is a one-field record
  EXPECT_NE(r.status().message().find("t.csv:2:"), std::string::npos) << r.status().message();
}

TEST(CsvTest, EmptyInputHasNoRecords) {
  CsvTable t = MustParse("");
  EXPECT_TRUE(t.header.fields.empty());
  EXPECT_TRUE(t.records.empty());
}

TEST(CsvTest, UnterminatedQuoteIsAnErrorWithLine) {
  auto r = ParseCsv("a,b\n1,2\n3,\"open\nstill open\n", "bad.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("bad.csv:3:"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("unterminated"), std::string::npos) << r.status().message();
}

TEST(CsvTest, WrongFieldCountIsAnErrorWithLine) {
  auto r = ParseCsv("a,b,c\n1,2,3\n\"multi\nline\",5,6\n4,5\n", "bad.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.csv:5:"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("2 fields, expected 3"), std::string::npos) << r.status().message();
  CsvOptions ragged;
  ragged.require_same_width = false;
  auto ok = ParseCsv("a,b,c\n4,5\n", "ragged.csv", ragged);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->records[0].fields.size(), 2u);
}

TEST(CsvTest, StrayQuotesAreErrors) {
  auto inside = ParseCsv("a,b\nx,ab\"c\n", "q.csv");
  ASSERT_FALSE(inside.ok());
  EXPECT_NE(inside.status().message().find("q.csv:2:"), std::string::npos) << inside.status().message();
  EXPECT_NE(inside.status().message().find("column 5"), std::string::npos) << inside.status().message();
  auto after = ParseCsv("a,b\n\"x\"y,1\n", "q.csv");
  ASSERT_FALSE(after.ok());
  EXPECT_NE(after.status().message().find("after the closing quote"), std::string::npos);
}

TEST(CsvTest, NoHeaderOptionAndOtherDelimiter) {
  CsvOptions o;
  o.header = false;
  o.delimiter = ';';
  CsvTable t = MustParse("1;\"2;3\"\n4;5\n", o);
  EXPECT_TRUE(t.header.fields.empty());
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].fields[1].value, "2;3");
  o.delimiter = '"';
  EXPECT_FALSE(ParseCsv("a", "x.csv", o).ok());
}

// Every truncation of a tricky input either parses or fails cleanly.
TEST(CsvTest, TruncatedInputsNeverCrash) {
  std::string text = "a,\"b\"\"\",c\r\n\"x\ny\",,\"\"\r\n1,2,3";
  for (size_t n = 0; n <= text.size(); ++n) {
    auto r = ParseCsv(text.substr(0, n), "cut.csv");
    if (r.ok()) ExpectSpansMatch(text.substr(0, n), *r);
  }
}

TEST(CsvTest, EpochFileParses) {
  std::ifstream in(std::string(CHIPKG_SOURCE_DIR) + "/datasets/epoch_ml_hardware/ml_hardware.csv",
                   std::ios::binary);
  ASSERT_TRUE(in) << "missing datasets/epoch_ml_hardware/ml_hardware.csv";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  CsvTable t = MustParse(text);
  EXPECT_EQ(t.header.fields.size(), 39u);
  EXPECT_EQ(t.records.size(), 170u);
  EXPECT_EQ(t.header.fields[0].value, "Hardware name");
  EXPECT_EQ(t.records[0].line, 2u);
  EXPECT_EQ(t.records[0].fields[0].value, "Amazon Trainium3");
  // The first row's Notes is quoted over two lines, so the second row starts on line 4.
  EXPECT_EQ(t.records[1].line, 4u);
  EXPECT_EQ(t.records.back().fields[0].value, "Huawei Ascend 960");
  ExpectSpansMatch(text, t);
}

}  // namespace
}  // namespace chipkg
