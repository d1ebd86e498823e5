#include "query/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string_view>

namespace chipkg::factcheck {
namespace {

// Dimensions whose figures do not add up over chips. Everything else (bytes,
// byte/s, op/s, watts, dollars, counts) is a total over the scope's chips.
constexpr std::string_view kIntensiveDimensions[] = {
    "ops_per_watt", "ops_per_second_per_usd", "length", "area", "frequency", "ratio", "parameters",
};

std::string FoldText(const std::string& text) {
  std::string out;
  bool space = false;
  for (unsigned char c : text) {
    if (std::isspace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

std::string FormatCount(int64_t n, const char* unit) {
  std::string u = unit;
  if (n == 1 && !u.empty() && u.back() == 's') u.pop_back();
  return std::to_string(n) + " " + u;
}

const char* PrecisionName(DatePrecision p) {
  switch (p) {
    case DatePrecision::kYear:
      return "year";
    case DatePrecision::kMonth:
      return "month";
    case DatePrecision::kDay:
      return "day";
  }
  return "day";
}

Comparison CompareDates(const Date& a, const Date& b, const CompareOptions& options) {
  Comparison c;
  c.kind = DifferenceKind::kDate;
  DatePrecision p = std::min(a.precision, b.precision);
  switch (p) {
    case DatePrecision::kDay:
      c.gap = std::llabs(static_cast<int64_t>(a.FirstDay()) - b.FirstDay());
      c.gap_unit = "days";
      c.agree = c.gap <= options.date_tolerance_days;
      break;
    case DatePrecision::kMonth:
      c.gap = std::llabs((static_cast<int64_t>(a.year) * 12 + a.month) -
                         (static_cast<int64_t>(b.year) * 12 + b.month));
      c.gap_unit = "months";
      c.agree = c.gap == 0;
      break;
    case DatePrecision::kYear:
      c.gap = std::llabs(static_cast<int64_t>(a.year) - b.year);
      c.gap_unit = "years";
      c.agree = c.gap == 0;
      break;
  }
  if (c.gap == 0) {
    c.size =
        a.precision == b.precision ? "same date" : std::string("agree at ") + PrecisionName(p) + " precision";
  } else {
    c.size = FormatCount(c.gap, c.gap_unit.c_str());
    if (a.precision != b.precision) c.size += std::string(" (at ") + PrecisionName(p) + " precision)";
  }
  return c;
}

bool SameScope(const Qualifiers& a, const Qualifiers& b) {
  auto get = [](const Qualifiers& q, const char* k) {
    auto it = q.find(k);
    return it == q.end() ? std::string() : it->second;
  };
  return get(a, qualifier::kScope) == get(b, qualifier::kScope) &&
         get(a, qualifier::kScopeCount) == get(b, qualifier::kScopeCount);
}

}  // namespace

bool ScalesWithChips(const std::string& dimension) {
  if (dimension.empty()) return false;
  for (std::string_view d : kIntensiveDimensions) {
    if (dimension == d) return false;
  }
  return true;
}

std::optional<double> ScopeChips(const Qualifiers& qualifiers) {
  auto scope = qualifiers.find(qualifier::kScope);
  bool chip_scope = scope == qualifiers.end() || scope->second.empty() || scope->second == "chip";
  auto chips = qualifiers.find(qualifier::kScopeCount);
  if (chips != qualifiers.end()) {
    char* end = nullptr;
    double n = std::strtod(chips->second.c_str(), &end);
    if (end != chips->second.c_str() && *end == '\0' && std::isfinite(n) && n > 0) return n;
    return std::nullopt;  // a count we cannot read is no count
  }
  if (chip_scope) return 1.0;
  return std::nullopt;
}

// A scope of a part of one chip (schema table part_scopes): a core's or a
// die's figure is no chip's, whatever it measures.
static bool OfAPart(const std::string& scope) { return scope == "core" || scope == "die"; }

std::optional<double> PerChipNumber(const Value& value, const Qualifiers& qualifiers) {
  if (value.kind != ValueKind::kQuantity) return std::nullopt;
  if (!ScalesWithChips(value.dimension)) {
    // Per-watt figures and lengths do not depend on how many chips a scope
    // covers, but a core's figure is still not a chip's.
    auto scope = qualifiers.find(qualifier::kScope);
    if (scope != qualifiers.end() && OfAPart(scope->second)) return std::nullopt;
    return value.number;
  }
  // A system's power (a pod "draws nearly 10 MW", a server's 10.2 kW) is
  // its hosts', network's and cooling's too: divided by its chips it is no
  // chip's TDP (a 10 MW pod of 9,216 chips made 1,085 W a chip), so it stays
  // the system's.
  if (value.dimension == "watts") {
    auto scope = qualifiers.find(qualifier::kScope);
    if (scope != qualifiers.end() && !scope->second.empty() && scope->second != "chip") return std::nullopt;
  }
  auto chips = ScopeChips(qualifiers);
  if (!chips) return std::nullopt;
  return value.number / *chips;
}

Qualifiers ComparisonQualifiers(const Qualifiers& qualifiers, const Value& value) {
  // Most claims have no qualifiers: a chip-scope figure (or any other value)
  // is about the plain attribute. (The general path below agrees.)
  if (qualifiers.empty()) return {};
  Qualifiers key;
  for (const auto& [k, v] : qualifiers) {
    if (k == qualifier::kScope || k == qualifier::kScopeCount || k == qualifier::kInstance) continue;
    if (k == qualifier::kSparsity && v == "dense") continue;
    key[k] = v;
  }
  // A scope we cannot normalise stays part of what the claim is about.
  bool normalisable = value.kind != ValueKind::kQuantity || PerChipNumber(value, qualifiers).has_value();
  if (value.kind != ValueKind::kQuantity) {
    // Non-quantities (a date, a name) are per chip whatever the scope says,
    // except a core-level claim.
    auto scope = qualifiers.find(qualifier::kScope);
    normalisable = scope == qualifiers.end() || !OfAPart(scope->second);
  }
  if (!normalisable) {
    auto scope = qualifiers.find(qualifier::kScope);
    key[qualifier::kScope] = scope == qualifiers.end() ? "" : scope->second;
  }
  return key;
}

bool IsEstimate(const Qualifiers& qualifiers) {
  auto it = qualifiers.find(qualifier::kBasis);
  return it != qualifiers.end() && it->second == "estimate";
}

namespace {

// The next entry of a key at or after `it` that is not its basis.
Qualifiers::const_iterator SkipBasis(Qualifiers::const_iterator it, Qualifiers::const_iterator end) {
  return it != end && it->first == qualifier::kBasis ? std::next(it) : it;
}

}  // namespace

bool SameFigure(const Qualifiers& a, const Qualifiers& b) {
  // Most keys are empty (a conflicts pass compares every claim's).
  if (a.empty() && b.empty()) return true;
  auto x = SkipBasis(a.begin(), a.end()), y = SkipBasis(b.begin(), b.end());
  for (; x != a.end() && y != b.end(); x = SkipBasis(std::next(x), a.end()), y = SkipBasis(std::next(y), b.end())) {
    if (*x != *y) return false;
  }
  return x == a.end() && y == b.end();
}

bool FigureLess(const Qualifiers& a, const Qualifiers& b) {
  if (a.empty() && b.empty()) return false;
  auto x = SkipBasis(a.begin(), a.end()), y = SkipBasis(b.begin(), b.end());
  for (; x != a.end() && y != b.end(); x = SkipBasis(std::next(x), a.end()), y = SkipBasis(std::next(y), b.end())) {
    if (*x < *y) return true;
    if (*y < *x) return false;
  }
  return x == a.end() && y != b.end();
}

Qualifiers WithoutBasis(Qualifiers key) {
  key.erase(qualifier::kBasis);
  return key;
}

bool EstimateOfTheUnpublished(const Value& a, const Qualifiers& a_key, const Value& b, const Qualifiers& b_key) {
  return (a.kind == ValueKind::kNotPublished && b.kind != ValueKind::kNotPublished && IsEstimate(b_key)) ||
         (b.kind == ValueKind::kNotPublished && a.kind != ValueKind::kNotPublished && IsEstimate(a_key));
}

std::string QualifiersToString(const Qualifiers& qualifiers) {
  std::string out;
  for (const auto& [k, v] : qualifiers) {
    if (!out.empty()) out += ", ";
    out += k + "=" + v;
  }
  return out;
}

const char* DifferenceKindName(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::kQuantity:
      return "quantity";
    case DifferenceKind::kDate:
      return "date";
    case DifferenceKind::kEntity:
      return "entity";
    case DifferenceKind::kText:
      return "text";
    case DifferenceKind::kBool:
      return "bool";
    case DifferenceKind::kNotPublished:
      return "not_published";
    case DifferenceKind::kKind:
      return "kind";
  }
  return "unknown";
}

std::string FormatRelative(double relative) {
  if (!std::isfinite(relative)) return "infinitely";
  char buf[64];
  if (relative >= 1.0) {
    double ratio = 1.0 + relative;
    if (ratio >= 10) {
      std::snprintf(buf, sizeof buf, "%.0fx", ratio);
    } else {
      std::snprintf(buf, sizeof buf, "%.1fx", ratio);
    }
    return buf;
  }
  double pct = relative * 100;
  if (pct == 0) return "0%";
  if (pct < 0.001) return "<0.001%";
  if (pct < 0.1) {
    std::snprintf(buf, sizeof buf, "%.2g%%", pct);
  } else if (pct < 10) {
    std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f%%", pct);
  }
  return buf;
}

Comparison CompareValues(const Value& a, const Qualifiers& a_qualifiers, const Value& b,
                         const Qualifiers& b_qualifiers, const CompareOptions& options) {
  const bool quantities = a.kind == ValueKind::kQuantity && b.kind == ValueKind::kQuantity;
  return CompareValues(a, a_qualifiers, quantities ? PerChipNumber(a, a_qualifiers) : std::nullopt, b, b_qualifiers,
                       quantities ? PerChipNumber(b, b_qualifiers) : std::nullopt, options);
}

Comparison CompareValues(const Value& a, const Qualifiers& a_qualifiers, std::optional<double> a_per_chip,
                         const Value& b, const Qualifiers& b_qualifiers, std::optional<double> b_per_chip,
                         const CompareOptions& options) {
  Comparison c;
  bool a_np = a.kind == ValueKind::kNotPublished, b_np = b.kind == ValueKind::kNotPublished;
  if (a_np || b_np) {
    c.kind = DifferenceKind::kNotPublished;
    c.agree = a_np && b_np;
    c.size = c.agree ? "both not published" : a_np ? "not published vs value" : "value vs not published";
    return c;
  }
  if (a.kind != b.kind) {
    c.kind = DifferenceKind::kKind;
    c.agree = false;
    c.size = std::string(ValueKindName(a.kind)) + " vs " + ValueKindName(b.kind);
    return c;
  }
  switch (a.kind) {
    case ValueKind::kQuantity: {
      c.kind = DifferenceKind::kQuantity;
      auto x = a_per_chip;
      auto y = b_per_chip;
      if ((!x || !y) && SameScope(a_qualifiers, b_qualifiers)) {
        // Two per-core (or two uncounted per-server) figures compare as they are.
        x = a.number;
        y = b.number;
      }
      if (!x || !y || a.dimension != b.dimension) {
        c.agree = false;
        c.relative = std::numeric_limits<double>::infinity();
        c.size = a.dimension != b.dimension ? "different dimensions" : "scopes cannot be compared";
        return c;
      }
      double lo = std::min(std::fabs(*x), std::fabs(*y));
      double diff = std::fabs(*x - *y);
      if (diff == 0) {
        c.relative = 0;
      } else if (lo == 0) {
        c.relative = std::numeric_limits<double>::infinity();
      } else {
        c.relative = diff / lo;
      }
      // A hair of floating-point slack so that a tolerance of exactly the
      // difference counts as agreeing.
      c.agree = c.relative <= options.tolerance * (1 + 1e-12) + 1e-12;
      c.size = FormatRelative(c.relative);
      return c;
    }
    case ValueKind::kDate:
      return CompareDates(a.date, b.date, options);
    case ValueKind::kEntity:
      c.kind = DifferenceKind::kEntity;
      c.agree = a.text == b.text;
      c.size = c.agree ? "same entity" : "different entities";
      return c;
    case ValueKind::kBool:
      c.kind = DifferenceKind::kBool;
      c.agree = (a.number != 0) == (b.number != 0);
      c.size = c.agree ? "same" : "yes vs no";
      return c;
    case ValueKind::kText: {
      c.kind = DifferenceKind::kText;
      std::string x = FoldText(a.text), y = FoldText(b.text);
      // Texts agree only when equal up to case and spacing. A prefix is not
      // "less specific": "HBM3" vs "HBM3e", "Trainium" vs "Trainium 2" and
      // "GDDR6" vs "GDDR6X" name different things.
      c.agree = x == y;
      c.size = c.agree ? "same text" : "different text";
      return c;
    }
    case ValueKind::kNotPublished:
      break;  // handled above
  }
  return c;
}

std::optional<WrittenNumber> ParseWrittenNumber(const std::string& text) {
  size_t i = 0, n = text.size();
  auto skip = [&](const std::string& s) {
    if (text.compare(i, s.size(), s) == 0) {
      i += s.size();
      return true;
    }
    return false;
  };
  for (bool moved = true; moved && i < n;) {
    moved = false;
    while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) i++, moved = true;
    moved |= skip("~") || skip("$") || skip("\xE2\x89\x88") || skip("about ") || skip("up to ");
  }
  bool negative = false;
  if (i < n && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  std::string digits;
  int decimals = 0;
  bool point = false, any = false;
  for (; i < n; ++i) {
    char ch = text[i];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      digits.push_back(ch);
      any = true;
      if (point) decimals++;
    } else if (ch == ',' && any && !point && i + 3 < n &&
               std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
               std::isdigit(static_cast<unsigned char>(text[i + 2])) &&
               std::isdigit(static_cast<unsigned char>(text[i + 3]))) {
      continue;  // thousands separator: "2,900"; "8, 16" is a list
    } else if (ch == '.' && !point && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      point = true;
      digits.push_back('.');
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  int exponent = 0;
  if (i + 1 < n && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    bool exp_negative = false;
    if (j < n && (text[j] == '+' || text[j] == '-')) exp_negative = text[j++] == '-';
    if (j < n && std::isdigit(static_cast<unsigned char>(text[j]))) {
      int e = 0;
      while (j < n && std::isdigit(static_cast<unsigned char>(text[j])) && e < 400)
        e = e * 10 + (text[j++] - '0');
      exponent = exp_negative ? -e : e;
    }
  }
  WrittenNumber w;
  w.value = std::strtod(digits.c_str(), nullptr) * std::pow(10.0, exponent);
  if (negative) w.value = -w.value;
  w.decimals = decimals;
  w.half_unit = 0.5 * std::pow(10.0, exponent - decimals);
  if (!std::isfinite(w.value)) return std::nullopt;
  return w;
}

RoundingCheck CheckRounded(double stated_canonical, const std::optional<WrittenNumber>& stated_written,
                           double recomputed_canonical, double extra_relative) {
  RoundingCheck r;
  double diff = std::fabs(recomputed_canonical - stated_canonical);
  double scale = std::fabs(stated_canonical);
  r.relative_difference =
      scale == 0 ? (diff == 0 ? 0 : std::numeric_limits<double>::infinity()) : diff / scale;
  double allowed = 0;
  if (stated_written && stated_written->value != 0) {
    // The written number and the canonical one differ by the unit's factor.
    double factor = stated_canonical / stated_written->value;
    allowed = std::fabs(stated_written->half_unit * factor);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%d decimal%s shown: \xC2\xB1%g", stated_written->decimals,
                  stated_written->decimals == 1 ? "" : "s", stated_written->half_unit);
    r.rule = buf;
  } else {
    r.rule = "exact";
  }
  // Floating-point slack, far below any rounding a page does.
  double slack = 1e-9 * std::max(scale, std::fabs(recomputed_canonical));
  r.relative_tolerance = scale == 0 ? 0 : allowed / scale;
  r.confirmed = diff <= allowed + slack || r.relative_difference <= extra_relative;
  if (extra_relative > r.relative_tolerance) {
    r.relative_tolerance = extra_relative;
    if (!(diff <= allowed + slack)) r.rule += " (within the tolerance given)";
  }
  return r;
}

}  // namespace chipkg::factcheck
