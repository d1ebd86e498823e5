// Quantities as real pages write them, read with the real schema/ files, and
// rendered back.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "schema/schema.h"

namespace chipkg {
namespace {

class Quantity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<Schema> s = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(s.ok()) << s.status().message();
    schema_ = new Schema(std::move(s).value());
  }
  static void TearDownTestSuite() {
    delete schema_;
    schema_ = nullptr;
  }

  // Parses `text` and checks value, dimension, unit spelling and bytes consumed.
  static void Expect(const std::string& text, double canonical, const std::string& dimension, const std::string& unit,
                     size_t consumed, const std::string& hint = "") {
    ASSERT_NE(schema_, nullptr);
    std::optional<QuantityParse> q = schema_->ParseQuantity(text, hint);
    ASSERT_TRUE(q.has_value()) << "'" << text << "' did not parse";
    EXPECT_NEAR(q->canonical, canonical, std::fabs(canonical) * 1e-12) << text;
    EXPECT_EQ(q->dimension, dimension) << text;
    EXPECT_EQ(q->unit, unit) << text;
    EXPECT_EQ(q->consumed, consumed) << text;
  }
  static void ExpectNone(const std::string& text, const std::string& hint = "") {
    std::optional<QuantityParse> q = schema_->ParseQuantity(text, hint);
    EXPECT_FALSE(q.has_value()) << "'" << text << "' parsed as " << q->canonical << " " << q->dimension << " ("
                                << q->unit << ")";
  }

  static Schema* schema_;
};
Schema* Quantity::schema_ = nullptr;

// Units as vendor datasheets and the press spell them: NVIDIA's "teraFLOPS",
// articles' "petaflops", "TFLOPs", a wafer's "PB/s".
TEST_F(Quantity, WhatVendorsAndThePressWrite) {
  Expect("3,958 teraFLOPS", 3.958e15, "ops_per_second", "teraFLOPS", 15);
  Expect("9 petaflops of FP4", 9e15, "ops_per_second", "petaflops", 11);
  Expect("989 TFLOPs", 9.89e14, "ops_per_second", "TFLOPs", 10);
  Expect("21 PB/s", 2.1e16, "bytes_per_second", "PB/s", 7);
  Expect("1 exaflop of FP8", 1e18, "ops_per_second", "exaflop", 9);
  Expect("918 teraops of int8", 9.18e14, "ops_per_second", "teraops", 11);
  Expect("4 trillion transistors", 4e12, "count", "trillion", 10);
}

TEST_F(Quantity, WhatTheSeedsWrite) {
  Expect("2,900 GB/s", 2.9e12, "bytes_per_second", "GB/s", 10);
  Expect("820 GB/s", 8.2e11, "bytes_per_second", "GB/s", 8);
  Expect("32 GiB HBM per chip 4", 32.0 * 1073741824, "bytes", "GiB", 6);
  Expect("96 GB HBM3", 9.6e10, "bytes", "GB", 5);
  Expect("3.4 PFLOPS BF16 per 16-chip server", 3.4e15, "ops_per_second", "PFLOPS", 10);
  Expect("1,300 TOPS", 1.3e15, "ops_per_second", "TOPS", 10);
  Expect("210 TFLOPS ÷ 500 W", 2.1e14, "ops_per_second", "TFLOPS", 10);
  Expect("500 W at the chip", 500, "watts", "W", 5);
  Expect("24 MiB on this first generation", 24.0 * 1048576, "bytes", "MiB", 6);
  Expect("$1.34/hr", 1.34, "usd_per_hour", "$/hr", 8);
  Expect("$9.532 per hour for a full 16-chip trn1.32xlarge", 9.532, "usd_per_hour", "$ per hour", 15);
  Expect("$0.596 per chip-hour, available", 0.596, "usd_per_hour", "$ per chip-hour", 20);
  Expect("$21.50/hr |", 21.5, "usd_per_hour", "$/hr", 9);
  Expect("$0.4744/hr", 0.4744, "usd_per_hour", "$/hr", 10);
  Expect("7 nm", 7e-9, "length", "nm", 4);
  Expect("5nm", 5e-9, "length", "nm", 3);
  Expect("960 MW envelope", 9.6e8, "watts", "MW", 6);
  Expect("0.42 TFLOPS/W", 4.2e11, "ops_per_watt", "TFLOPS/W", 13);
  Expect("16 GB ✓", 1.6e10, "bytes", "GB", 5);
}

TEST_F(Quantity, ParametersNeedTheDimension) {
  Expect("70 B", 7e10, "parameters", "B", 4, "parameters");
  Expect("46.7 B |", 4.67e10, "parameters", "B", 6, "parameters");
  Expect("671B total", 6.71e11, "parameters", "B", 4, "parameters");
  // Without a hint "B" is the first declared reading: bytes.
  Expect("70 B", 70, "bytes", "B", 4);
  Expect("1T", 1e12, "parameters", "T", 2);
  Expect("1T total", 1e12, "parameters", "T", 2, "parameters");
}

TEST_F(Quantity, NumberForms) {
  Expect("9.8e12 byte/s", 9.8e12, "bytes_per_second", "byte/s", 13);
  Expect("6.71E+14 FLOP/s", 6.71e14, "ops_per_second", "FLOP/s", 15);
  Expect("~500 W", 500, "watts", "W", 6);
  Expect("≈ 3 GHz", 3e9, "frequency", "GHz", 9);
  Expect("up to 16 GB", 1.6e10, "bytes", "GB", 11);
  Expect("Up to 1,300 TFLOPS", 1.3e15, "ops_per_second", "TFLOPS", 18);
  Expect("about 50%", 0.5, "ratio", "%", 9);
  Expect("  820\xC2\xA0GB/s", 8.2e11, "bytes_per_second", "GB/s", 11);  // no-break space
  Expect("12,345,678 B", 12345678, "bytes", "B", 12);
  Expect(".5 W", 0.5, "watts", "W", 4);
  Expect("2,900", 2900, "count", "", 5, "count");
  Expect("16-chip", 16, "count", "", 2, "count");
  ExpectNone("16x", "count");
  ExpectNone("1,30 TB");   // not a thousands group: "1" then ",30"
  ExpectNone("", "");
  ExpectNone("GB/s");
  ExpectNone("about");
  ExpectNone("16-chip server");  // no unit, no unitless dimension asked for
}

TEST_F(Quantity, LongestUnitWinsAndMustEndTheWord) {
  Expect("820 GB/s", 8.2e11, "bytes_per_second", "GB/s", 8);
  Expect("820 GB", 8.2e11, "bytes", "GB", 6);
  Expect("820 GB.", 8.2e11, "bytes", "GB", 6);
  Expect("32 GBps", 3.2e10, "bytes_per_second", "GBps", 7);
  Expect("100 Gbps", 1.25e10, "bytes_per_second", "Gbps", 8);
  ExpectNone("5 nmol");
  ExpectNone("32 GBx");
  ExpectNone("$5M");
  ExpectNone("500 W/cm2");  // a compound unit chipkg does not know is not its first part
  Expect("$100 list price", 100, "usd", "$", 4);
}

TEST_F(Quantity, CaseFoldingOnlyWhenUnambiguous) {
  Expect("210 tflops", 2.1e14, "ops_per_second", "TFLOPS", 10);
  Expect("2 Ghz", 2e9, "frequency", "GHz", 5);
  ExpectNone("820 gb/s");  // GB/s or Gb/s: refuse rather than guess
  ExpectNone("5 mW");      // milliwatts are not megawatts
  Expect("1.6 Tb/s", 2e11, "bytes_per_second", "Tb/s", 8);  // terabits, not terabytes
  ExpectNone("1.6 tb/s");                                   // TB/s or Tb/s: refuse rather than guess
  Expect("80 Billion", 8e10, "count", "billion", 10, "count");
  ExpectNone("400 mHZ");
  Expect("400 MHZ", 4e8, "frequency", "MHz", 7);
}

// The query language's unit lookup follows the same rule as page text.
TEST_F(Quantity, UnitLookupFoldsCaseOnlyWhereItDoesNotChangeTheUnit) {
  const Schema& schema_ = *Quantity::schema_;
  EXPECT_EQ(schema_.FindUnit("tflops")->spelling, "TFLOPS");
  EXPECT_EQ(schema_.FindUnit("Tflops")->spelling, "TFLOPS");
  // Case that changes the unit is not folded: bits are not bytes, milli is not mega.
  EXPECT_EQ(schema_.FindUnit("Gb"), nullptr);
  EXPECT_EQ(schema_.FindUnit("Tb/s")->factor, 1.25e11);  // bits: TB/s is 8x
  EXPECT_EQ(schema_.FindUnit("Tbps")->factor, 1.25e11);
  EXPECT_EQ(schema_.FindUnit("TBps")->factor, 1e12);
  EXPECT_EQ(schema_.FindUnit("tb/s"), nullptr);
  EXPECT_EQ(schema_.FindUnit("mW"), nullptr);
  EXPECT_EQ(schema_.FindUnit("mHz"), nullptr);
  // Words are read in any case: case carries meaning only in symbols.
  EXPECT_EQ(schema_.FindUnit("Billion", "count")->factor, 1e9);
  EXPECT_EQ(schema_.FindUnit("MILLION", "count")->factor, 1e6);
  EXPECT_EQ(schema_.FindUnit("Bytes")->dimension, "bytes");
  EXPECT_EQ(schema_.FindUnit("Gb/s")->factor, 1.25e8);
  EXPECT_EQ(schema_.FindUnit("Mw", "watts")->factor, 1e6);
  // Written so, two units: none.
  EXPECT_EQ(schema_.FindUnit("gbps"), nullptr);
  EXPECT_EQ(schema_.FindUnit("GBPS"), nullptr);
}

TEST_F(Quantity, DimensionHintRestrictsUnits) {
  ExpectNone("500 W", "bytes");
  ExpectNone("500 W", "no_such_dimension");
  Expect("32 GiB", 32.0 * 1073741824, "bytes", "GiB", 6, "bytes");
  Expect("$1.34/hr", 1.34, "usd_per_hour", "$/hr", 8, "usd_per_hour");
  ExpectNone("$1.34/hr", "usd");
}

TEST_F(Quantity, GigabytesAndGibibytesDiffer) {
  std::optional<QuantityParse> gb = schema_->ParseQuantity("32 GB");
  std::optional<QuantityParse> gib = schema_->ParseQuantity("32 GiB");
  ASSERT_TRUE(gb && gib);
  EXPECT_EQ(gb->canonical, 32e9);
  EXPECT_EQ(gib->canonical, 34359738368.0);
  EXPECT_NEAR(gib->canonical / gb->canonical - 1, 0.0737, 0.0001);
  EXPECT_EQ(gb->number, 32);
  EXPECT_EQ(gib->number, 32);
}

TEST_F(Quantity, FromCanonical) {
  EXPECT_EQ(*schema_->FromCanonical(2.9e12, "GB/s"), 2900);
  EXPECT_EQ(*schema_->FromCanonical(34359738368.0, "GiB"), 32);
  EXPECT_EQ(*schema_->FromCanonical(7e10, "B", "parameters"), 70);
  EXPECT_EQ(*schema_->FromCanonical(7e10, "B"), 7e10);  // first declared "B": bytes
  EXPECT_EQ(*schema_->FromCanonical(16, "1", "count"), 16);
  EXPECT_FALSE(schema_->FromCanonical(1, "furlong").has_value());
  EXPECT_FALSE(schema_->FromCanonical(1, "GB", "watts").has_value());
}

// A dataset's bytes that are a whole number of GiB and not of GB were
// counted in GiB by whoever wrote them: shown "8 GiB", not "8.59 GB".
TEST_F(Quantity, AWrittenFigureIsShownInTheUnitItIsAWholeNumberOf) {
  EXPECT_EQ(schema_->FormatWrittenFigure(8589934592.0, "bytes"), "8 GiB");
  EXPECT_EQ(schema_->FormatWrittenFigure(32.0 * 1073741824, "bytes"), "32 GiB");
  EXPECT_EQ(schema_->FormatWrittenFigure(9.6e10, "bytes"), "96 GB");
  EXPECT_EQ(schema_->FormatWrittenFigure(8.6e9, "bytes"), "8.6 GB");        // neither: the display unit
  EXPECT_EQ(schema_->FormatWrittenFigure(3.5e9, "bytes"), "3.5 GB");        // nothing whole in reach
  EXPECT_EQ(schema_->FormatWrittenFigure(16.0 * 1048576, "bytes", "MiB"), "16 MiB");
  EXPECT_EQ(schema_->FormatWrittenFigure(1.6e7, "bytes", "MiB"), "16 MB");  // whole MB, not MiB
  EXPECT_EQ(schema_->FormatWrittenFigure(7e2, "watts"), "700 W");
}

TEST_F(Quantity, Format) {
  EXPECT_EQ(schema_->FormatQuantity(2.9e12, "bytes_per_second"), "2900 GB/s");
  EXPECT_EQ(schema_->FormatQuantity(32.0 * 1073741824, "bytes"), "34.36 GB");
  EXPECT_EQ(schema_->FormatQuantity(32.0 * 1073741824, "bytes", "GiB"), "32 GiB");
  EXPECT_EQ(schema_->FormatQuantity(3.2e10, "bytes"), "32 GB");
  EXPECT_EQ(schema_->FormatQuantity(2.1e14, "ops_per_second"), "210 TFLOPS");
  // Integer formats count operations, not floating-point ones.
  const Qualifiers int8{{"format", "int8"}}, bf16{{"format", "bf16"}}, int4{{"format", "int4"}};
  EXPECT_EQ(schema_->FormatQuantity(1.979e15, "ops_per_second", "", &int8), "1979 TOPS");
  EXPECT_EQ(schema_->FormatQuantity(9.894e14, "ops_per_second", "", &bf16), "989.4 TFLOPS");
  EXPECT_EQ(schema_->FormatQuantity(2.6e12, "ops_per_watt", "", &int4), "2.6 TOPS/W");
  EXPECT_EQ(schema_->FormatQuantity(2e14, "ops_per_second", "PFLOPS", &int8), "0.2 POPS");
  // A dataset's fastest format may be an integer one (TPU v1: INT8 only).
  const Qualifiers max{{"format", "max"}};
  EXPECT_EQ(schema_->FormatQuantity(1.227e12, "ops_per_watt", "", &max), "1.227 TOPS/W");
  EXPECT_EQ(schema_->FormatQuantity(2e14, "ops_per_second", "FLOP/s", &int8), "200000000000000 OP/s");
  EXPECT_EQ(schema_->FormatQuantity(3.4e15, "ops_per_second", "PFLOPS"), "3.4 PFLOPS");
  EXPECT_EQ(schema_->FormatQuantity(4.2e11, "ops_per_watt"), "0.42 TFLOPS/W");
  EXPECT_EQ(schema_->FormatQuantity(0.596, "usd_per_hour"), "0.596 USD/h");
  EXPECT_EQ(schema_->FormatQuantity(1.34, "usd_per_hour", "$/hr"), "$1.34/hr");
  EXPECT_EQ(schema_->FormatQuantity(9.532, "usd_per_hour", "$ per hour"), "$9.532 per hour");
  EXPECT_EQ(schema_->FormatQuantity(7e10, "parameters"), "70 B");
  EXPECT_EQ(schema_->FormatQuantity(16, "count"), "16");
  EXPECT_EQ(schema_->FormatQuantity(7e-9, "length"), "7 nm");
  EXPECT_EQ(schema_->FormatQuantity(9.6e8, "watts", "MW"), "960 MW");
  EXPECT_EQ(schema_->FormatQuantity(0, "bytes"), "0 GB");
  EXPECT_EQ(schema_->FormatQuantity(5, "furlongs"), "5 furlongs");
  // An unknown unit falls back to the canonical one.
  EXPECT_EQ(schema_->FormatQuantity(5, "watts", "hp"), "5 W");
}

TEST_F(Quantity, FormatSignificantDigits) {
  // Four significant digits, never dropping integer digits, trailing zeros trimmed.
  EXPECT_EQ(schema_->FormatQuantity(1.23456, "watts"), "1.235 W");
  EXPECT_EQ(schema_->FormatQuantity(123.456, "watts"), "123.5 W");
  EXPECT_EQ(schema_->FormatQuantity(12345.6, "watts"), "12346 W");
  EXPECT_EQ(schema_->FormatQuantity(0.000123456, "watts"), "0.0001235 W");
  EXPECT_EQ(schema_->FormatQuantity(9.99996, "watts"), "10 W");
  EXPECT_EQ(schema_->FormatQuantity(2.5, "watts"), "2.5 W");
  EXPECT_EQ(schema_->FormatQuantity(-2.5, "watts"), "-2.5 W");
  EXPECT_EQ(schema_->FormatQuantity(1e30, "ops_per_second"), "1e18 TFLOPS");
  EXPECT_EQ(schema_->FormatQuantity(1.23456e-7, "watts"), "1.235e-7 W");
}

TEST_F(Quantity, RoundTripThroughFormat) {
  for (const char* text : {"2900 GB/s", "32 GiB", "210 TFLOPS", "500 W", "960 MW", "24 MiB", "7 nm", "0.42 TFLOPS/W"}) {
    std::optional<QuantityParse> q = schema_->ParseQuantity(text);
    ASSERT_TRUE(q) << text;
    EXPECT_EQ(schema_->FormatQuantity(q->canonical, q->dimension, q->unit), text);
  }
}

TEST_F(Quantity, NeverCrashesOnJunk) {
  std::string junk;
  for (int i = 0; i < 5000; ++i) {
    junk += static_cast<char>((i * 131 + 7) % 256);
    (void)schema_->ParseQuantity(junk);
    (void)schema_->ParseQuantity(junk.substr(junk.size() / 2), "bytes");
  }
  ExpectNone(std::string(100000, '9') + " GB");  // overflows a double: refused, not infinite
  Expect(std::string(300, '9').insert(0, "0.") + " W", 1, "watts", "W", 304);
}

}  // namespace
}  // namespace chipkg
