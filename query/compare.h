// Comparing claims: when do two sources agree, and by how much do they not?
//
// Shared by `conflicts`, `describe` and `verify`. Everything here is pure: it
// looks only at the facts passed in, never at the store.
//
// Rules (the fact-checker's, written down once):
//  - Quantities compare in their canonical unit after scope normalisation: a
//    figure for a wider scope with a chip count (qualifiers scope=server,
//    chips=16) is divided by the count, so "3.4 PFLOPS per 16-chip server" is
//    212.5 TFLOPS per chip. Only extensive dimensions scale (bytes, FLOP/s,
//    watts, dollars); a per-watt or a length figure is the same per chip.
//  - The size of a quantity disagreement is |a - b| / min(|a|, |b|): 32 GiB vs
//    32 GB is 7.4% (how much larger the larger is than the smaller).
//  - Dates compare at the coarser of the two precisions: 2024-12 and
//    2024-12-03 agree; 2022-10-01 and 2022-10-15 differ by 14 days; 2023-11
//    and 2024-01 by 2 months.
//  - Entities compare by id, booleans by value, text ignoring case and runs of
//    space (a text that is a prefix of the other, "HBM" vs "HBM2e", is less
//    specific, not contradictory).
//  - "Not published" agrees with "not published" and disagrees with every
//    value: a conflict of its own kind.
//  - Claims are comparable when their qualifiers name the same thing: equal
//    after dropping scope, chips and instance (normalised away) and taking a
//    missing sparsity as dense (vendors quote dense figures unmarked; sparse
//    ones are always marked). A scope that cannot be normalised (scope=core,
//    or a server figure without a chip count) stays part of the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"

namespace chipkg::factcheck {

// True when a figure of this dimension grows with the number of chips it
// covers (memory, bandwidth, throughput, power, prices), so a per-server
// figure divided by the chip count is a per-chip figure.
bool ScalesWithChips(const std::string& dimension);

// The chip count a claim's scope covers: 1 for scope chip (or none), the
// `chips` qualifier for a wider scope, nullopt when the scope is wider (or
// narrower, "core") and no count is given.
std::optional<double> ScopeChips(const Qualifiers& qualifiers);

// The canonical number of a quantity claim per chip, or nullopt when its scope
// cannot be normalised (see ScopeChips) or the value is not a quantity.
std::optional<double> PerChipNumber(const Value& value, const Qualifiers& qualifiers);

// The qualifiers that decide what a claim is about, after normalisation (see
// the rules above). Two claims of one subject and predicate are comparable
// when their keys are equal.
Qualifiers ComparisonQualifiers(const Qualifiers& qualifiers, const Value& value);

// Whether a claim is its source's own estimate (basis=estimate).
bool IsEstimate(const Qualifiers& qualifiers);

// Two keys (ComparisonQualifiers) of one figure, whatever their basis: a
// source's estimate of a figure and another's stated value of it are two
// claims about the same thing, and where they disagree that is a conflict to
// show (each estimate marked as one), not two attributes side by side. The
// key keeps the basis for what a claim shows and what a {basis=...} filter
// selects. FigureLess orders keys as std::map's < does with the basis left
// out, so that the claims of one figure sort together.
bool SameFigure(const Qualifiers& a, const Qualifiers& b);
bool FigureLess(const Qualifiers& a, const Qualifiers& b);
Qualifiers WithoutBasis(Qualifiers key);
// An estimate and a "not published" marker of one figure do not disagree:
// the estimate is what its source makes of the figure the maker does not
// publish (Epoch's TPU TDPs). Keys are ComparisonQualifiers'.
bool EstimateOfTheUnpublished(const Value& a, const Qualifiers& a_key, const Value& b, const Qualifiers& b_key);

// "format=bf16, sparsity=dense" (empty for no qualifiers).
std::string QualifiersToString(const Qualifiers& qualifiers);

struct CompareOptions {
  // Relative difference of quantities at or below which sources agree.
  double tolerance = 0.01;
  // Dates (both at day precision) this many days apart or fewer agree.
  int32_t date_tolerance_days = 0;
};

enum class DifferenceKind : uint8_t {
  kQuantity,      // two quantities
  kDate,          // two dates
  kEntity,        // two entity references
  kText,          // two texts
  kBool,          // two booleans
  kNotPublished,  // a value against "not published"
  kKind,          // values of different kinds (e.g. text against a quantity)
};
const char* DifferenceKindName(DifferenceKind kind);  // "quantity", "not_published", ...

struct Comparison {
  bool agree = true;
  DifferenceKind kind = DifferenceKind::kQuantity;
  // Quantities: |a-b| / min(|a|,|b|) of the per-chip numbers (infinity if one is 0 and the other not).
  double relative = 0;
  // Dates: the gap at the coarser precision, in `gap_unit` ("days", "months", "years").
  int64_t gap = 0;
  std::string gap_unit;
  // For people: "7.4%", "14 days", "agree at month precision", "value vs not published".
  std::string size;
};

// Compares two claims about the same subject and predicate. The caller
// decides comparability (ComparisonQualifiers); `a_qualifiers` and
// `b_qualifiers` are used only for scope normalisation.
Comparison CompareValues(const Value& a, const Qualifiers& a_qualifiers, const Value& b,
                         const Qualifiers& b_qualifiers, const CompareOptions& options = {});
// The same, given each value's PerChipNumber with its qualifiers (a caller
// that compares each claim with several others has it already).
Comparison CompareValues(const Value& a, const Qualifiers& a_qualifiers, std::optional<double> a_per_chip,
                         const Value& b, const Qualifiers& b_qualifiers, std::optional<double> b_per_chip,
                         const CompareOptions& options);

// "7.4%", "1.2%", "0.03%", "12x" (ratios of 10 or more read better as factors).
std::string FormatRelative(double relative);

// A number as a page wrote it, and how precisely: "0.42" -> 0.42 with half a
// unit of the last digit 0.005; "1,300" -> 1300, 0.5; "2.0136e+16" -> 2.0136e16,
// 5e11; "$0.596" -> 0.596, 0.0005. Reads the first number in `text` (after an
// optional "~", "$", "≈" or spaces); nullopt if there is none.
struct WrittenNumber {
  double value = 0;
  double half_unit = 0.5;  // half of one unit of the last digit written, in the number's own scale
  int decimals = 0;        // digits after the point (negative never; scientific counts the mantissa)
};
std::optional<WrittenNumber> ParseWrittenNumber(const std::string& text);

// Verifying a stated figure against a recomputation. `stated_written` is the
// number as the page wrote it and `stated_canonical` the same figure in the
// canonical unit, which gives the scale between the two. The figure is
// confirmed if the recomputed value rounds to what was written (within half a
// unit of the last digit shown, in either rounding direction) or lies within
// `extra_relative` of it. `relative_tolerance` reports the bound that applied.
struct RoundingCheck {
  bool confirmed = false;
  double relative_difference = 0;  // |recomputed - stated| / |stated|
  double relative_tolerance = 0;   // what the digits shown allow, relative to stated
  std::string rule;                // "2 decimals shown: ±0.005", "exact"
};
RoundingCheck CheckRounded(double stated_canonical, const std::optional<WrittenNumber>& stated_written,
                           double recomputed_canonical, double extra_relative = 0);

}  // namespace chipkg::factcheck
