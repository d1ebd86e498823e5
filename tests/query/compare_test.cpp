// Value comparison rules shared by conflicts, describe and verify.
#include "query/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace chipkg::factcheck {
namespace {

Value Q(double canonical, const std::string& dimension, const std::string& original = "") {
  Value v;
  v.kind = ValueKind::kQuantity;
  v.number = canonical;
  v.dimension = dimension;
  v.original = original;
  return v;
}

Value D(const std::string& iso) {
  Value v;
  v.kind = ValueKind::kDate;
  auto d = Date::Parse(iso);
  EXPECT_TRUE(d.has_value()) << iso;
  if (d) v.date = *d;
  v.original = iso;
  return v;
}

Value E(const std::string& id) {
  Value v;
  v.kind = ValueKind::kEntity;
  v.text = id;
  return v;
}

Value T(const std::string& text) {
  Value v;
  v.kind = ValueKind::kText;
  v.text = text;
  return v;
}

Value NP() {
  Value v;
  v.kind = ValueKind::kNotPublished;
  v.original = "Not published by AWS";
  return v;
}

const Qualifiers kChip = {};
const Qualifiers kServer16 = {{"scope", "server"}, {"chips", "16"}, {"format", "bf16"}};

TEST(CompareTest, BinaryAndDecimalGigabytesDifferBySevenPointFourPercent) {
  Comparison c =
      CompareValues(Q(32e9, "bytes", "32 GB"), kChip, Q(32.0 * (1ull << 30), "bytes", "32 GiB"), kChip);
  EXPECT_FALSE(c.agree);
  EXPECT_EQ(c.kind, DifferenceKind::kQuantity);
  EXPECT_NEAR(c.relative, 0.0737, 0.0001);
  EXPECT_EQ(c.size, "7.4%");
  // The size does not depend on the order.
  Comparison r = CompareValues(Q(32.0 * (1ull << 30), "bytes"), kChip, Q(32e9, "bytes"), kChip);
  EXPECT_DOUBLE_EQ(r.relative, c.relative);
}

TEST(CompareTest, ServerFigureIsDividedByItsChipCount) {
  auto per_chip = PerChipNumber(Q(3.4e15, "ops_per_second"), kServer16);
  ASSERT_TRUE(per_chip.has_value());
  EXPECT_DOUBLE_EQ(*per_chip, 212.5e12);
  Comparison c = CompareValues(Q(210e12, "ops_per_second"), {{"format", "bf16"}, {"sparsity", "dense"}},
                               Q(3.4e15, "ops_per_second"), kServer16);
  EXPECT_FALSE(c.agree);  // 1.2% > the default 1%
  EXPECT_EQ(c.size, "1.2%");
  CompareOptions loose;
  loose.tolerance = 0.02;
  EXPECT_TRUE(
      CompareValues(Q(210e12, "ops_per_second"), kChip, Q(3.4e15, "ops_per_second"), kServer16, loose).agree);
}

TEST(CompareTest, OnlyExtensiveDimensionsScaleWithChips) {
  EXPECT_TRUE(ScalesWithChips("bytes"));
  EXPECT_TRUE(ScalesWithChips("ops_per_second"));
  EXPECT_TRUE(ScalesWithChips("watts"));
  EXPECT_FALSE(ScalesWithChips("ops_per_watt"));
  EXPECT_FALSE(ScalesWithChips("length"));
  // A per-watt figure of a server is the chip's.
  EXPECT_DOUBLE_EQ(*PerChipNumber(Q(4.2e11, "ops_per_watt"), kServer16), 4.2e11);
  // A per-core figure cannot be turned into a chip's, nor a server's without a count.
  EXPECT_FALSE(PerChipNumber(Q(24.0 * (1 << 20), "bytes"), {{"scope", "core"}}).has_value());
  // Nor a die's, of a quantity that does not scale with chips either ("2 TFLOPS/W per die").
  EXPECT_FALSE(PerChipNumber(Q(96e9, "bytes"), {{"scope", "die"}}).has_value());
  EXPECT_FALSE(PerChipNumber(Value::Quantity(2e12, "ops_per_watt", "2 TFLOPS/W"), {{"scope", "die"}}).has_value());
  EXPECT_EQ(QualifiersToString(ComparisonQualifiers({{"scope", "die"}}, Value::Text("HBM3"))), "scope=die");
  EXPECT_FALSE(PerChipNumber(Q(1e15, "ops_per_second"), {{"scope", "server"}}).has_value());
  EXPECT_FALSE(
      PerChipNumber(Q(1e15, "ops_per_second"), {{"scope", "server"}, {"chips", "zero"}}).has_value());
}

TEST(CompareTest, ASystemsPowerIsNoChipsShare) {
  // A pod that draws 10 MW powers hosts, network and cooling too: 1,085 W a chip is no chip's TDP.
  EXPECT_FALSE(PerChipNumber(Q(10e6, "watts"), {{"scope", "pod"}, {"chips", "9216"}}).has_value());
  EXPECT_FALSE(PerChipNumber(Q(10.2e3, "watts"), kServer16).has_value());
  // So it is a different attribute from the chip's own TDP, and never disagrees with it.
  EXPECT_NE(ComparisonQualifiers(kServer16, Q(10.2e3, "watts")), ComparisonQualifiers(kChip, Q(700, "watts")));
  // A chip's power is its own, however it is scoped.
  EXPECT_DOUBLE_EQ(*PerChipNumber(Q(700, "watts"), {{"scope", "chip"}}), 700);
  EXPECT_DOUBLE_EQ(*PerChipNumber(Q(700, "watts"), {}), 700);
}

TEST(CompareTest, ComparisonQualifiersNormaliseScopeAndDenseSparsity) {
  Value v = Q(1, "ops_per_second");
  Qualifiers chip = ComparisonQualifiers({{"format", "bf16"}, {"sparsity", "dense"}, {"scope", "chip"}}, v);
  Qualifiers server = ComparisonQualifiers(kServer16, v);
  EXPECT_EQ(chip, server);
  EXPECT_EQ(QualifiersToString(chip), "format=bf16");
  Qualifiers sparse = ComparisonQualifiers({{"format", "bf16"}, {"sparsity", "sparse"}}, v);
  EXPECT_NE(sparse, chip);
  // A scope that cannot be normalised stays in the key.
  Qualifiers core = ComparisonQualifiers({{"scope", "core"}}, Q(1, "bytes"));
  EXPECT_EQ(QualifiersToString(core), "scope=core");
  EXPECT_NE(core, ComparisonQualifiers({}, Q(1, "bytes")));
}

// An estimate is of the same figure as a stated value: keys that differ in
// their basis alone are one figure, ordered together, whichever place
// "basis" has among the other qualifiers.
TEST(CompareTest, KeysThatDifferInTheirBasisAloneAreOneFigure) {
  const Qualifiers stated = {{"format", "bf16"}};
  const Qualifiers estimate = {{"basis", "estimate"}, {"format", "bf16"}};
  const Qualifiers last = {{"format", "bf16"}, {"zone", "a"}};
  const Qualifiers last_estimate = {{"basis", "estimate"}, {"format", "bf16"}, {"zone", "a"}};
  const Qualifiers only = {{"basis", "estimate"}};
  const Qualifiers after = {{"aa", "1"}, {"basis", "estimate"}};
  EXPECT_TRUE(SameFigure(stated, estimate));
  EXPECT_TRUE(SameFigure(estimate, stated));
  EXPECT_TRUE(SameFigure(last, last_estimate));
  EXPECT_TRUE(SameFigure({}, only));
  EXPECT_TRUE(SameFigure(after, {{"aa", "1"}}));
  EXPECT_FALSE(SameFigure(stated, last));
  EXPECT_FALSE(SameFigure(stated, {{"format", "fp8"}}));
  EXPECT_FALSE(SameFigure(only, stated));
  EXPECT_FALSE(SameFigure(after, {}));
  // FigureLess is std::map's < with the basis left out: equal exactly where SameFigure holds.
  const std::vector<Qualifiers> keys = {{}, only, stated, estimate, last, last_estimate, after, {{"aa", "1"}},
                                        {{"format", "fp8"}}, {{"basis", "stated"}, {"format", "fp8"}}};
  for (const Qualifiers& a : keys) {
    EXPECT_FALSE(FigureLess(a, a));
    for (const Qualifiers& b : keys) {
      const bool same = SameFigure(a, b);
      EXPECT_EQ(same, !FigureLess(a, b) && !FigureLess(b, a)) << QualifiersToString(a) << " | " << QualifiersToString(b);
      EXPECT_EQ(FigureLess(a, b), WithoutBasis(a) < WithoutBasis(b)) << QualifiersToString(a) << " | " << QualifiersToString(b);
    }
  }
  EXPECT_TRUE(IsEstimate(estimate));
  EXPECT_FALSE(IsEstimate(stated));
  EXPECT_FALSE(IsEstimate({{"basis", "stated"}}));
  // An estimate of a figure the maker does not publish does not disagree with that marker.
  Value marker;
  marker.kind = ValueKind::kNotPublished;
  EXPECT_TRUE(EstimateOfTheUnpublished(Q(340, "watts"), only, marker, {}));
  EXPECT_TRUE(EstimateOfTheUnpublished(marker, {}, Q(340, "watts"), only));
  EXPECT_FALSE(EstimateOfTheUnpublished(Q(340, "watts"), {}, marker, {}));
  EXPECT_FALSE(EstimateOfTheUnpublished(Q(340, "watts"), only, Q(192, "watts"), {}));
}

TEST(CompareTest, DatesCompareAtTheCoarserPrecision) {
  Comparison days = CompareValues(D("2022-10-01"), kChip, D("2022-10-15"), kChip);
  EXPECT_FALSE(days.agree);
  EXPECT_EQ(days.gap, 14);
  EXPECT_EQ(days.gap_unit, "days");
  EXPECT_EQ(days.size, "14 days");

  Comparison month = CompareValues(D("2024-12"), kChip, D("2024-12-03"), kChip);
  EXPECT_TRUE(month.agree);
  EXPECT_EQ(month.size, "agree at month precision");

  Comparison months = CompareValues(D("2023-11"), kChip, D("2024-01-20"), kChip);
  EXPECT_FALSE(months.agree);
  EXPECT_EQ(months.gap, 2);
  EXPECT_EQ(months.gap_unit, "months");

  Comparison years = CompareValues(D("2020"), kChip, D("2022-10-10"), kChip);
  EXPECT_EQ(years.gap, 2);
  EXPECT_EQ(years.gap_unit, "years");

  CompareOptions week;
  week.date_tolerance_days = 14;
  EXPECT_TRUE(CompareValues(D("2022-10-01"), kChip, D("2022-10-15"), kChip, week).agree);
  EXPECT_TRUE(CompareValues(D("2022-10-01"), kChip, D("2022-10-01"), kChip).agree);
}

TEST(CompareTest, NotPublishedIsAConflictOfItsOwnKind) {
  Comparison c = CompareValues(E("org:tsmc"), kChip, NP(), kChip);
  EXPECT_FALSE(c.agree);
  EXPECT_EQ(c.kind, DifferenceKind::kNotPublished);
  EXPECT_STREQ(DifferenceKindName(c.kind), "not_published");
  EXPECT_TRUE(CompareValues(NP(), kChip, NP(), kChip).agree);
}

TEST(CompareTest, EntitiesTextAndBooleans) {
  EXPECT_TRUE(CompareValues(E("org:tsmc"), kChip, E("org:tsmc"), kChip).agree);
  Comparison e = CompareValues(E("org:amazon"), kChip, E("org:annapurna-labs"), kChip);
  EXPECT_FALSE(e.agree);
  EXPECT_EQ(e.kind, DifferenceKind::kEntity);
  EXPECT_TRUE(CompareValues(T("HBM2e"), kChip, T(" hbm2E "), kChip).agree);
  // A prefix names something else: a memory generation, a chip's successor.
  EXPECT_FALSE(CompareValues(T("HBM3"), kChip, T("HBM3e"), kChip).agree);
  EXPECT_FALSE(CompareValues(T("Trainium"), kChip, T("Trainium 2"), kChip).agree);
  EXPECT_FALSE(CompareValues(T("HBM3"), kChip, T("HBM2e"), kChip).agree);
  Value yes, no;
  yes.kind = no.kind = ValueKind::kBool;
  yes.number = 1;
  EXPECT_FALSE(CompareValues(yes, kChip, no, kChip).agree);
  Comparison kinds = CompareValues(T("32"), kChip, Q(32, "bytes"), kChip);
  EXPECT_FALSE(kinds.agree);
  EXPECT_EQ(kinds.kind, DifferenceKind::kKind);
}

TEST(CompareTest, ZeroAndDifferentDimensions) {
  EXPECT_TRUE(CompareValues(Q(0, "watts"), kChip, Q(0, "watts"), kChip).agree);
  Comparison z = CompareValues(Q(0, "watts"), kChip, Q(5, "watts"), kChip);
  EXPECT_FALSE(z.agree);
  EXPECT_TRUE(std::isinf(z.relative));
  EXPECT_FALSE(CompareValues(Q(5, "watts"), kChip, Q(5, "bytes"), kChip).agree);
}

TEST(CompareTest, FormatRelative) {
  EXPECT_EQ(FormatRelative(0.0737), "7.4%");
  EXPECT_EQ(FormatRelative(0.119), "12%");
  EXPECT_EQ(FormatRelative(0.0003), "0.03%");
  EXPECT_EQ(FormatRelative(0), "0%");
  EXPECT_EQ(FormatRelative(9800.0 / 820 - 1), "12x");
  EXPECT_EQ(FormatRelative(1.5), "2.5x");
}

TEST(CompareTest, ParseWrittenNumberKnowsTheDigitsShown) {
  auto a = ParseWrittenNumber("0.42 BF16 TFLOPS/W");
  ASSERT_TRUE(a);
  EXPECT_DOUBLE_EQ(a->value, 0.42);
  EXPECT_EQ(a->decimals, 2);
  EXPECT_DOUBLE_EQ(a->half_unit, 0.005);
  auto b = ParseWrittenNumber("1,300 TFLOPS");
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(b->value, 1300);
  EXPECT_DOUBLE_EQ(b->half_unit, 0.5);
  auto c = ParseWrittenNumber("2.0136e+16");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->value, 2.0136e16);
  EXPECT_DOUBLE_EQ(c->half_unit, 5e11);
  auto d = ParseWrittenNumber("$0.596 per chip");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->value, 0.596);
  EXPECT_DOUBLE_EQ(d->half_unit, 0.0005);
  auto e = ParseWrittenNumber("  ~500 W");
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->value, 500);
  auto f = ParseWrittenNumber("8, 16 and 32");
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->value, 8);
  EXPECT_FALSE(ParseWrittenNumber("not published").has_value());
  EXPECT_FALSE(ParseWrittenNumber("").has_value());
  EXPECT_FALSE(ParseWrittenNumber("1e999999").has_value());
}

TEST(CompareTest, RoundedFiguresAreConfirmedFromTheDigitsShown) {
  // 0.42 TFLOPS/W stated, 210 TFLOPS / 500 W computed.
  auto r = CheckRounded(0.42e12, ParseWrittenNumber("0.42"), 210e12 / 500);
  EXPECT_TRUE(r.confirmed);
  EXPECT_NEAR(r.relative_tolerance, 0.005 / 0.42, 1e-12);
  // 2.60 from 1300 / 500.
  EXPECT_TRUE(CheckRounded(2.6e12, ParseWrittenNumber("2.60"), 1300e12 / 500).confirmed);
  // $0.596 per chip-hour from $9.532 / 16 = 0.59575 (rounds up).
  EXPECT_TRUE(CheckRounded(0.596, ParseWrittenNumber("$0.596"), 9.532 / 16).confirmed);
  // 336 GB for 671 B parameters at half a byte: 335.5 rounds to 336.
  EXPECT_TRUE(CheckRounded(336e9, ParseWrittenNumber("336 GB"), 335.5e9).confirmed);
  // A page that is off by more than its rounding is not.
  auto bad = CheckRounded(0.43e12, ParseWrittenNumber("0.43"), 210e12 / 500);
  EXPECT_FALSE(bad.confirmed);
  EXPECT_GT(bad.relative_difference, bad.relative_tolerance);
  EXPECT_FALSE(CheckRounded(337e9, ParseWrittenNumber("337 GB"), 335.5e9).confirmed);
  // Unless the caller allows more.
  EXPECT_TRUE(CheckRounded(0.43e12, ParseWrittenNumber("0.43"), 210e12 / 500, 0.03).confirmed);
  // Without the written number, only floating-point noise is allowed.
  EXPECT_TRUE(CheckRounded(958571428571.4286, std::nullopt, 671e12 / 700).confirmed);
  EXPECT_FALSE(CheckRounded(958571428571.4286, std::nullopt, 671e12 / 701).confirmed);
}

}  // namespace
}  // namespace chipkg::factcheck
