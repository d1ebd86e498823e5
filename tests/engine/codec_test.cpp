// The storage encodings: order preservation and round trips (engine/codec.h).
#include "engine/codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace chipkg::codec {
namespace {

std::string QuantityKey(double d) {
  CoreRecord c;
  c.kind = ValueKind::kQuantity;
  c.number = d;
  std::string k;
  AppendValueKey(c, &k);
  return k;
}

std::string DateKey(const Date& d) {
  CoreRecord c;
  c.kind = ValueKind::kDate;
  c.date = d;
  std::string k;
  AppendValueKey(c, &k);
  return k;
}

TEST(CodecTest, QuantityKeysSortLikeNumbers) {
  std::mt19937_64 rng(42);
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                std::numeric_limits<double>::denorm_min(),
                                -std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                64e9,
                                68719476736.0};
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::uniform_int_distribution<int64_t> integer(-1000000, 1000000);
  for (int i = 0; i < 20000; ++i) {
    values.push_back(mantissa(rng) * std::pow(10.0, exponent(rng)));
    values.push_back(static_cast<double>(integer(rng)));
  }
  std::vector<std::pair<std::string, double>> encoded;
  for (double v : values) encoded.emplace_back(QuantityKey(v), v);
  std::sort(encoded.begin(), encoded.end());
  std::vector<double> by_key;
  for (const auto& [k, v] : encoded) {
    std::string_view in(k);
    DecodedValueKey d;
    ASSERT_TRUE(DecodeValueKey(&in, &d));
    ASSERT_TRUE(in.empty());
    ASSERT_EQ(d.kind, ValueKind::kQuantity);
    ASSERT_EQ(d.number, v);  // -0.0 decodes as +0.0, which compares equal
    by_key.push_back(d.number);
  }
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(by_key.size(), sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(by_key[i], sorted[i]) << i;
  EXPECT_EQ(QuantityKey(0.0), QuantityKey(-0.0));
  EXPECT_LT(QuantityKey(-1e-300), QuantityKey(0.0));
  EXPECT_LT(QuantityKey(0.0), QuantityKey(1e-300));
}

TEST(CodecTest, DateKeysSortByFirstDayThenPrecision) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> year(0, 9999), month(1, 12), day(1, 28), precision(1, 3);
  std::vector<Date> dates;
  for (int i = 0; i < 20000; ++i) {
    Date d;
    d.year = year(rng);
    d.precision = static_cast<DatePrecision>(precision(rng));
    if (d.precision != DatePrecision::kYear) d.month = static_cast<uint8_t>(month(rng));
    if (d.precision == DatePrecision::kDay) d.day = static_cast<uint8_t>(day(rng));
    dates.push_back(d);
  }
  dates.push_back(*Date::Parse("1969-12-31"));  // negative day numbers
  dates.push_back(*Date::Parse("1970-01-01"));  // zero
  dates.push_back(*Date::Parse("0000-01-01"));
  std::vector<std::pair<std::string, Date>> encoded;
  for (const Date& d : dates) encoded.emplace_back(DateKey(d), d);
  std::sort(encoded.begin(), encoded.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Date> sorted = dates;
  auto order = [](const Date& a, const Date& b) {
    if (a.FirstDay() != b.FirstDay()) return a.FirstDay() < b.FirstDay();
    return a.precision < b.precision;
  };
  std::stable_sort(sorted.begin(), sorted.end(), order);
  for (size_t i = 0; i < sorted.size(); ++i) {
    std::string_view in(encoded[i].first);
    DecodedValueKey d;
    ASSERT_TRUE(DecodeValueKey(&in, &d));
    ASSERT_EQ(d.first_day, sorted[i].FirstDay()) << i;
    ASSERT_EQ(d.precision, sorted[i].precision) << i;
  }
  EXPECT_LT(DateKey(*Date::Parse("1969-12-31")), DateKey(*Date::Parse("1970-01-01")));
  EXPECT_LT(DateKey(*Date::Parse("2023")), DateKey(*Date::Parse("2023-01")));
  EXPECT_LT(DateKey(*Date::Parse("2023-01")), DateKey(*Date::Parse("2023-01-01")));
  EXPECT_LT(DateKey(*Date::Parse("2023-01-01")), DateKey(*Date::Parse("2023-01-02")));
}

TEST(CodecTest, TextKeysSortLikeStringsAndAreEscaped) {
  std::vector<std::string> texts = {"", "a", "ab", std::string("a\0", 2), std::string("a\0b", 3), "b",
                                    std::string("\0", 1), "\xff", "HBM3", "HBM3e", "hbm"};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> len(0, 6), byte(0, 3);
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    for (int n = len(rng); n > 0; --n) s.push_back("\0\x01a\xff"[byte(rng)]);
    texts.push_back(s);
  }
  std::vector<std::string> keys;
  for (const auto& t : texts) {
    CoreRecord c;
    c.kind = ValueKind::kText;
    c.text = t;
    std::string k;
    AppendValueKey(c, &k);
    k += "tail";  // the fact id follows in a pos key: decoding must stop at the terminator
    keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> decoded;
  for (const auto& k : keys) {
    std::string_view in(k);
    DecodedValueKey d;
    ASSERT_TRUE(DecodeValueKey(&in, &d));
    ASSERT_EQ(in, "tail");
    decoded.push_back(d.text);
  }
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(decoded, texts);
}

TEST(CodecTest, KindsAreGroupedByTag) {
  CoreRecord np;
  np.kind = ValueKind::kNotPublished;
  std::string np_key;
  AppendValueKey(np, &np_key);
  EXPECT_LT(QuantityKey(std::numeric_limits<double>::infinity()), np_key);
  EXPECT_LT(QuantityKey(1e300), DateKey(*Date::Parse("0000")));
}

TEST(CodecTest, CoreRoundTrip) {
  CoreRecord c;
  c.asserted_tx = 300;
  c.retracted_tx = 70000;
  c.valid_as_of = *Date::Parse("2023-11");
  c.subject = 5;
  c.predicate = 1u << 30;
  c.document = 77;
  c.document_version = 3;
  c.rule = 9;
  c.derivation = Derivation::kStatedDerived;
  c.kind = ValueKind::kQuantity;
  c.number = -2.5e-7;
  c.dimension = 12;
  c.original = "-0.00000025 W";
  c.qualifiers = {{1, 2}, {3, 4}};
  std::string bytes;
  EncodeCore(c, &bytes);
  CoreRecord d;
  ASSERT_TRUE(DecodeCore(bytes, &d));
  EXPECT_EQ(d.asserted_tx, c.asserted_tx);
  EXPECT_EQ(d.retracted_tx, c.retracted_tx);
  EXPECT_EQ(d.valid_as_of, c.valid_as_of);
  EXPECT_EQ(d.subject, c.subject);
  EXPECT_EQ(d.predicate, c.predicate);
  EXPECT_EQ(d.document, c.document);
  EXPECT_EQ(d.document_version, c.document_version);
  EXPECT_EQ(d.rule, c.rule);
  EXPECT_EQ(d.derivation, c.derivation);
  EXPECT_EQ(d.number, c.number);
  EXPECT_EQ(d.dimension, c.dimension);
  EXPECT_EQ(d.original, c.original);
  EXPECT_EQ(d.qualifiers, c.qualifiers);
  TxId a = 0, r = 0;
  std::optional<Date> va;
  ASSERT_TRUE(DecodeCoreHeader(bytes, &a, &r, &va));
  EXPECT_EQ(a, 300u);
  EXPECT_EQ(r, 70000u);
  EXPECT_EQ(va, c.valid_as_of);
  // Every truncation is refused rather than read past the end.
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeCore(std::string_view(bytes).substr(0, n), &d)) << n;
}

TEST(CodecTest, ProvRoundTrip) {
  Provenance p;
  p.section = "4.Full spec table";
  p.span_begin = 10;
  p.span_end = 99;
  p.excerpt = "Memory: 32 GB";
  p.prefix = "x";
  p.suffix = "y";
  p.row = -1;
  p.column = "Memory (bytes)";
  p.attribution = "vendor datasheet";
  p.citations = {"https://a", "4"};
  p.note = "note";
  p.rule_version = "2";
  p.formula = "210 TFLOPS ÷ 500 W";
  std::string bytes;
  EncodeProv(p, 42, &bytes);
  Provenance q;
  uint32_t run = 0;
  ASSERT_TRUE(DecodeProv(bytes, &q, &run));
  EXPECT_EQ(run, 42u);
  EXPECT_EQ(q.section, p.section);
  EXPECT_EQ(q.span_begin, p.span_begin);
  EXPECT_EQ(q.span_end, p.span_end);
  EXPECT_EQ(q.excerpt, p.excerpt);
  EXPECT_EQ(q.row, p.row);
  EXPECT_EQ(q.citations, p.citations);
  EXPECT_EQ(q.formula, p.formula);
  EXPECT_FALSE(DecodeProv(std::string_view(bytes).substr(0, bytes.size() - 1), &q, &run));
}

// A version keeps where it was read from; records of stores written before
// that end at the text size and still decode, with no place of their own.
TEST(CodecTest, VersionMetaRoundTripAndOlderRecords) {
  DocumentVersion v;
  v.document_id = "doc";
  v.content_hash = "ab";
  v.fetched_at = 1700000000;
  v.as_of = Date::Parse("2024-05");
  v.content_type = "text/plain";
  v.tx = 7;
  v.text = "hello";
  std::string older;
  EncodeVersionMeta(v, &older);
  v.url = "/tmp/copy.txt";
  v.title = "A copy";
  v.format = "epoch-ml-hardware";
  std::string newer;
  EncodeVersionMeta(v, &newer);
  ASSERT_GT(newer.size(), older.size());
  EXPECT_EQ(newer.compare(0, older.size(), older), 0);  // the tail only

  DocumentVersion back;
  uint64_t text_size = 0;
  ASSERT_TRUE(DecodeVersionMeta(newer, &back, &text_size));
  EXPECT_EQ(back.url, "/tmp/copy.txt");
  EXPECT_EQ(back.title, "A copy");
  EXPECT_EQ(back.format, "epoch-ml-hardware");
  EXPECT_EQ(back.tx, 7u);
  EXPECT_EQ(text_size, 5u);
  ASSERT_TRUE(DecodeVersionMeta(older, &back, &text_size));  // the fields of the last decode are not kept
  EXPECT_EQ(back.url, "");
  EXPECT_EQ(back.title, "");
  EXPECT_EQ(back.format, "");
  EXPECT_EQ(back.as_of->ToString(), "2024-05");
  EXPECT_FALSE(DecodeVersionMeta(newer.substr(0, newer.size() - 1), &back, &text_size));
  EXPECT_FALSE(DecodeVersionMeta(newer + "x", &back, &text_size));
}

TEST(CodecTest, VarintsAndPrefixSuccessor) {
  for (uint64_t v : {uint64_t{0}, uint64_t{127}, uint64_t{128}, uint64_t{1} << 35, ~uint64_t{0}}) {
    std::string s;
    PutVarint(&s, v);
    std::string_view in(s);
    uint64_t got = 0;
    ASSERT_TRUE(GetVarint(&in, &got));
    EXPECT_EQ(got, v);
    EXPECT_TRUE(in.empty());
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, INT64_MIN, INT64_MAX}) {
    std::string s;
    PutZigZag(&s, v);
    std::string_view in(s);
    int64_t got = 0;
    ASSERT_TRUE(GetZigZag(&in, &got));
    EXPECT_EQ(got, v);
  }
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff\xff")), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff")), "");
}

}  // namespace
}  // namespace chipkg::codec
