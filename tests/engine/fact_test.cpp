#include <gtest/gtest.h>

#include <random>

#include "engine/fact.h"
#include "engine/status.h"
#include "engine/store.h"

namespace chipkg {
namespace {

TEST(DateTest, ParsesEachPrecision) {
  auto y = Date::Parse("2023");
  ASSERT_TRUE(y);
  EXPECT_EQ(y->year, 2023);
  EXPECT_EQ(y->precision, DatePrecision::kYear);
  EXPECT_EQ(y->month, 0);
  auto m = Date::Parse("2023-11");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->month, 11);
  EXPECT_EQ(m->day, 0);
  EXPECT_EQ(m->precision, DatePrecision::kMonth);
  auto d = Date::Parse("2023-11-28");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->day, 28);
  EXPECT_EQ(d->precision, DatePrecision::kDay);
  EXPECT_EQ(d->ToString(), "2023-11-28");
  EXPECT_EQ(m->ToString(), "2023-11");
  EXPECT_EQ(y->ToString(), "2023");
}

TEST(DateTest, RejectsImpossibleAndMalformedDates) {
  for (const char* bad : {"2023-02-30", "2023-13", "2023-00", "2023-11-00", "2023-11-31", "1900-02-29", "23",
                          "2023-1", "2023-11-1", "2023/11/01", "abcd", "", "2023-11-28T00", " 2023"}) {
    EXPECT_FALSE(Date::Parse(bad).has_value()) << bad;
  }
  EXPECT_TRUE(Date::Parse("2000-02-29").has_value());
  EXPECT_TRUE(Date::Parse("2024-02-29").has_value());
  EXPECT_TRUE(Date::Parse("0000").has_value());
}

// IsValid holds exactly for the dates that survive a round trip through ToString and Parse:
// years around the leap rules and the range limits, every month 0-13 and day 0-32, each precision.
TEST(DateTest, ValidExactlyWhenItRoundTrips) {
  auto round_trips = [](const Date& d) {
    if (d.year < 0) return false;
    auto back = Date::Parse(d.ToString());
    return back.has_value() && *back == d;
  };
  for (int32_t y : {0, 1, 1599, 1600, 1900, 2000, 2023, 2024, 2100, 9999, 10000, -1}) {
    for (int m = 0; m <= 13; ++m) {
      for (int day = 0; day <= 32; ++day) {
        for (DatePrecision p : {DatePrecision::kYear, DatePrecision::kMonth, DatePrecision::kDay}) {
          Date d{y, static_cast<uint8_t>(m), static_cast<uint8_t>(day), p};
          EXPECT_EQ(d.IsValid(), round_trips(d)) << d.year << "-" << m << "-" << day << " p" << static_cast<int>(p);
        }
      }
    }
  }
  EXPECT_TRUE((Date{2024, 2, 29, DatePrecision::kDay}).IsValid());
  EXPECT_FALSE((Date{2023, 2, 29, DatePrecision::kDay}).IsValid());
  EXPECT_FALSE((Date{1900, 2, 29, DatePrecision::kDay}).IsValid());
  EXPECT_FALSE((Date{2023, 4, 31, DatePrecision::kDay}).IsValid());
  EXPECT_FALSE((Date{2023, 4, 1, DatePrecision::kMonth}).IsValid());
}

TEST(DateTest, DaysSinceEpoch) {
  EXPECT_EQ(Date::Parse("1970-01-01")->FirstDay(), 0);
  EXPECT_EQ(Date::Parse("1969-12-31")->FirstDay(), -1);
  EXPECT_EQ(Date::Parse("2000-03-01")->FirstDay(), 11017);
  EXPECT_EQ(Date::Parse("2023-11")->FirstDay(), Date::Parse("2023-11-01")->FirstDay());
  EXPECT_EQ(Date::Parse("2023-11")->LastDay(), Date::Parse("2023-11-30")->FirstDay());
  EXPECT_EQ(Date::Parse("2024-02")->LastDay(), Date::Parse("2024-02-29")->FirstDay());
  EXPECT_EQ(Date::Parse("2023")->FirstDay(), Date::Parse("2023-01-01")->FirstDay());
  EXPECT_EQ(Date::Parse("2023")->LastDay(), Date::Parse("2023-12-31")->FirstDay());
  EXPECT_EQ(Date::Parse("2023-11-28")->LastDay(), Date::Parse("2023-11-28")->FirstDay());
}

TEST(DateTest, FromDaysInvertsFirstDay) {
  // Consecutive days across several centuries (leap rules of 100 and 400).
  int32_t prev = Date::Parse("1599-12-31")->FirstDay();
  for (int32_t days = prev + 1; days < prev + 365 * 500; ++days) {
    Date d = Date::FromDays(days);
    ASSERT_EQ(d.FirstDay(), days);
    ASSERT_EQ(d.precision, DatePrecision::kDay);
    auto parsed = Date::Parse(d.ToString());
    ASSERT_TRUE(parsed) << d.ToString();
    ASSERT_EQ(*parsed, d);
  }
  Date far = Date::FromDays(-800000);  // before year 0: proleptic
  EXPECT_EQ(far.FirstDay(), -800000);
  EXPECT_LT(far.year, 0);
}

TEST(ValueTest, FactoriesAndSameContent) {
  Value a = Value::Quantity(32e9, "bytes", "32 GB");
  Value b = Value::Quantity(32e9, "bytes", "32,000 MB");
  Value c = Value::Quantity(34359738368.0, "bytes", "32 GiB");
  EXPECT_TRUE(a.SameContent(b));
  EXPECT_FALSE(a.SameContent(c));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(Value::Quantity(0.0, "w", "").SameContent(Value::Quantity(-0.0, "w", "")));
  EXPECT_TRUE(Value::NotPublished("n/a").SameContent(Value::NotPublished("not disclosed")));
  EXPECT_FALSE(Value::NotPublished("n/a").SameContent(Value::Text("n/a")));
  EXPECT_TRUE(Value::Bool(true, "yes").SameContent(Value::Bool(true, "✓")));
  EXPECT_FALSE(Value::Bool(true, "yes").SameContent(Value::Bool(false, "yes")));
  EXPECT_TRUE(Value::OfDate(*Date::Parse("2023-11"), "Nov 2023").SameContent(Value::OfDate(*Date::Parse("2023-11"), "")));
  EXPECT_FALSE(Value::OfDate(*Date::Parse("2023-11"), "").SameContent(Value::OfDate(*Date::Parse("2023-11-01"), "")));
  EXPECT_TRUE(Value::Entity("org:tsmc", "TSMC").SameContent(Value::Entity("org:tsmc", "Taiwan Semiconductor")));
  EXPECT_EQ(Value::Entity("org:tsmc", "").kind, ValueKind::kEntity);
  EXPECT_EQ(Value::Entity("org:tsmc", "").text, "org:tsmc");
}

TEST(ValueTest, ToStringPrefersOriginal) {
  EXPECT_EQ(Value::Quantity(2.9e12, "bytes_per_second", "2,900 GB/s").ToString(), "2,900 GB/s");
  EXPECT_EQ(Value::Quantity(0.1, "ratio", "").ToString(), "0.1 ratio");
  EXPECT_EQ(Value::Quantity(500, "", "").ToString(), "500");
  EXPECT_EQ(Value::OfDate(*Date::Parse("2023-11"), "").ToString(), "2023-11");
  EXPECT_EQ(Value::Bool(false, "").ToString(), "false");
  EXPECT_EQ(Value::NotPublished("").ToString(), "not published");
  EXPECT_EQ(Value::Text("HBM3").ToString(), "HBM3");
}

TEST(ValueTest, KindNames) {
  EXPECT_STREQ(ValueKindName(ValueKind::kQuantity), "quantity");
  EXPECT_STREQ(ValueKindName(ValueKind::kDate), "date");
  EXPECT_STREQ(ValueKindName(ValueKind::kEntity), "entity");
  EXPECT_STREQ(ValueKindName(ValueKind::kText), "text");
  EXPECT_STREQ(ValueKindName(ValueKind::kBool), "bool");
  EXPECT_STREQ(ValueKindName(ValueKind::kNotPublished), "not_published");
}

TEST(StatusTest, ToStringNamesCodeAndMessage) {
  EXPECT_EQ(Status::OK().ToString(), "OK");
  EXPECT_EQ(Status::Busy("held").ToString(), "Busy: held");
  EXPECT_EQ(Status::FormatMismatch("x").ToString(), "FormatMismatch: x");
  EXPECT_EQ(Status::NotFound("k").WithContext("reading").ToString(), "NotFound: reading: k");
}

TEST(NormalizeAliasTest, KeepsLettersDigitsAndUtf8) {
  EXPECT_EQ(NormalizeAlias("AWS Trainium (Trn1)"), "awstrainiumtrn1");
  EXPECT_EQ(NormalizeAlias("H100-SXM5 80GB"), "h100sxm580gb");
  EXPECT_EQ(NormalizeAlias("  --  "), "");
  EXPECT_EQ(NormalizeAlias("Ascend 910B (昇腾)"), "ascend910b昇腾");
  EXPECT_EQ(NormalizeAlias("Über-Chip"), std::string("\xc3\x9c") + "berchip");  // Ü is kept as written
}

}  // namespace
}  // namespace chipkg
