// Quantities as pages write them ("2,900 GB/s", "$0.596 per chip-hour",
// "5nm") to canonical numbers, and back to a compact rendering.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "schema/schema.h"
#include "schema/text_util.h"

namespace chipkg {

using schema_internal::AsciiLower;
using schema_internal::SpaceAt;

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

size_t SkipSpace(std::string_view text, size_t pos) {
  while (size_t n = SpaceAt(text, pos)) pos += n;
  return pos;
}

// Words before a number that do not change which number is meant. "up to"
// is a bound, but vendor sheets use it for the peak figure itself.
const char* const kLeadWords[] = {"up to", "about", "approximately", "approx.", "around", "roughly", "nearly"};

size_t SkipLeaders(std::string_view text, size_t pos) {
  for (int round = 0; round < 4; ++round) {
    pos = SkipSpace(text, pos);
    if (pos < text.size() && text[pos] == '~') {
      ++pos;
      continue;
    }
    if (text.substr(pos, 3) == "\xE2\x89\x88") {  // ≈
      pos += 3;
      continue;
    }
    bool matched = false;
    for (const char* word : kLeadWords) {
      std::string_view w(word);
      if (text.size() - pos > w.size() && AsciiLower(text.substr(pos, w.size())) == w &&
          SpaceAt(text, pos + w.size()) > 0) {
        pos += w.size();
        matched = true;
        break;
      }
    }
    if (!matched) break;
  }
  return pos;
}

// A number at text[pos]: digits with optional thousands commas ("2,900"), a
// fraction, an exponent ("9.8e12"). Sets `end` past it.
std::optional<double> ReadNumber(std::string_view text, size_t pos, size_t& end) {
  std::string digits;
  size_t i = pos;
  size_t group = 0;
  while (i < text.size() && IsDigit(text[i])) {
    digits += text[i++];
    ++group;
  }
  // "1,300": a comma followed by exactly three digits, after a first group of
  // at most three; anything else ends the number ("16, 32").
  if (group > 0 && group <= 3) {
    while (i + 3 < text.size() && text[i] == ',' && IsDigit(text[i + 1]) && IsDigit(text[i + 2]) &&
           IsDigit(text[i + 3]) && (i + 4 >= text.size() || !IsDigit(text[i + 4]))) {
      digits.append(text.substr(i + 1, 3));
      i += 4;
    }
  }
  if (i < text.size() && text[i] == '.' && i + 1 < text.size() && IsDigit(text[i + 1])) {
    digits += text[i++];
    while (i < text.size() && IsDigit(text[i])) digits += text[i++];
  }
  if (digits.empty()) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && IsDigit(text[j])) {
      digits += 'e';
      digits.append(text.substr(i + 1, j - i - 1));
      while (j < text.size() && IsDigit(text[j])) digits += text[j++];
      i = j;
    }
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(value)) return std::nullopt;
  end = i;
  return value;
}

// "1.234e18": four significant digits, no '+' or leading zeros in the exponent.
std::string Scientific(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3e", v);
  std::string s(buf);
  size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') != std::string::npos) {
    while (mantissa.back() == '0') mantissa.pop_back();
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  std::string exponent = s.substr(e + 1);
  bool negative = !exponent.empty() && exponent[0] == '-';
  size_t first = exponent.find_first_not_of("+-0");
  exponent = first == std::string::npos ? "0" : exponent.substr(first);
  return mantissa + "e" + (negative ? "-" : "") + exponent;
}

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  double a = std::fabs(v);
  if (a >= 1e15 || a < 1e-4) return Scientific(v);
  int digits = static_cast<int>(std::floor(std::log10(a))) + 1;  // integer digits; <= 0 below 1
  int decimals = digits >= 4 ? 0 : 4 - digits;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

std::optional<QuantityParse> Schema::ParseQuantity(const std::string& text_in, const std::string& dimension) const {
  std::string_view text(text_in);
  const DimensionDef* hint = nullptr;
  if (!dimension.empty()) {
    hint = FindDimension(dimension);
    if (hint == nullptr) return std::nullopt;
  }
  size_t pos = SkipLeaders(text, 0);
  bool dollar = false;
  if (pos < text.size() && text[pos] == '$') {
    dollar = true;
    pos = SkipSpace(text, pos + 1);
  }
  size_t number_end = 0;
  std::optional<double> number = ReadNumber(text, pos, number_end);
  if (!number) return std::nullopt;
  size_t unit_start = SkipSpace(text, number_end);

  // Every unit that could follow, with the bytes it would take. A "$" unit
  // matches only around a "$"-led number, and only its part after the "$"
  // follows the number; the bare "$" takes nothing.
  struct Match {
    size_t unit;
    size_t length;  // bytes of the spelling matched after the number
    size_t end;     // consumed up to here
  };
  auto collect = [&](bool folded) {
    std::vector<Match> found;
    for (size_t i = 0; i < units_.size(); ++i) {
      const UnitDef& u = units_[i];
      if (hint != nullptr && u.dimension != hint->name) continue;
      std::string_view spelling(u.spelling);
      bool dollar_unit = spelling[0] == '$';
      if (dollar_unit != dollar) continue;
      size_t at = unit_start;
      if (dollar_unit) {
        spelling.remove_prefix(1);
        while (!spelling.empty() && spelling[0] == ' ') spelling.remove_prefix(1);
        if (spelling.empty()) at = number_end;
      }
      // Folded matching only for spellings long enough not to mix up SI
      // prefixes: "mW" is not "MW", "Mb" is not "MB".
      if (folded && spelling.size() < 3) continue;
      if (at + spelling.size() > text.size()) continue;
      std::string_view candidate = text.substr(at, spelling.size());
      if (folded ? !schema_internal::SameUnitSpelling(candidate, spelling) : candidate != spelling) continue;
      size_t end = at + spelling.size();
      // A unit ends where the word ends: "5 nm" and "5nm." but not "5 nmol",
      // nor the "GB" of an unknown "GB/x"; the bare "$" must not be followed
      // by letters either ("$5M").
      if (end < text.size() && (IsAlnum(text[end]) || text[end] == '/')) continue;
      found.push_back({i, spelling.size(), end});
    }
    return found;
  };

  auto best = [&](const std::vector<Match>& found, bool require_unique) -> std::optional<Match> {
    std::optional<Match> pick;
    for (const Match& m : found) {
      if (!pick || m.length > pick->length) pick = m;  // earlier declaration wins ties
    }
    if (pick && require_unique) {
      for (const Match& m : found) {
        if (m.length != pick->length) continue;
        const UnitDef& a = units_[m.unit];
        const UnitDef& b = units_[pick->unit];
        if (a.dimension != b.dimension || a.factor != b.factor) return std::nullopt;
      }
    }
    return pick;
  };

  std::optional<Match> match = best(collect(false), false);
  if (!match) match = best(collect(true), true);

  QuantityParse out;
  out.number = *number;
  if (match) {
    const UnitDef& u = units_[match->unit];
    out.canonical = *number * u.factor;
    out.dimension = u.dimension;
    out.unit = u.spelling;
    out.consumed = match->end;
    return out;
  }
  // A plain number is a quantity only where the caller asked for a unitless dimension.
  if (dollar || hint == nullptr || hint->canonical_unit != "1") return std::nullopt;
  if (number_end < text.size() && IsAlnum(text[number_end])) return std::nullopt;  // "16x", "3rd"
  out.canonical = *number;
  out.dimension = hint->name;
  out.consumed = number_end;
  return out;
}

std::optional<double> Schema::FromCanonical(double canonical, const std::string& unit,
                                            const std::string& dimension) const {
  if (unit == "1") {
    const DimensionDef* dim = dimension.empty() ? nullptr : FindDimension(dimension);
    if (dimension.empty() || (dim != nullptr && dim->canonical_unit == "1")) return canonical;
    return std::nullopt;
  }
  const UnitDef* u = dimension.empty() ? FindUnit(unit) : FindUnit(unit, dimension);
  if (u == nullptr || u->factor == 0) return std::nullopt;
  return canonical / u->factor;
}

bool Schema::CountsOperations(std::string_view format) {
  return format.substr(0, 3) == "int" || format == "max";
}

std::string Schema::FormatQuantity(double canonical, const std::string& dimension, const std::string& unit,
                                   const Qualifiers* qualifiers) const {
  const DimensionDef* dim = FindDimension(dimension);
  if (dim == nullptr) return FormatNumber(canonical) + (dimension.empty() ? "" : " " + dimension);
  std::string spelling = unit.empty() ? dim->display_unit : unit;
  if (qualifiers != nullptr) {
    auto format = qualifiers->find(qualifier::kFormat);
    const size_t flop = spelling.find("FLOP");
    // A dataset's "max" is the fastest of floating-point and integer formats
    // alike (TPU v1's is its INT8 figure): operations, not FLOPs, is what
    // holds for every chip.
    const bool counts_ops = format != qualifiers->end() && CountsOperations(format->second);
    if (counts_ops && flop != std::string::npos) {
      std::string ops = spelling;
      ops.erase(flop, 2);  // "TFLOPS" -> "TOPS", "TFLOPS/W" -> "TOPS/W"
      const UnitDef* as_flops = FindUnit(spelling, dimension);
      const UnitDef* as_ops = FindUnit(ops, dimension);
      if (as_flops != nullptr && as_ops != nullptr && as_ops->factor == as_flops->factor) spelling = as_ops->spelling;
    }
  }
  std::optional<double> value = FromCanonical(canonical, spelling, dimension);
  if (!value) {  // an unknown unit for this dimension: fall back to the canonical one
    spelling = dim->canonical_unit;
    value = canonical;
  }
  std::string number = FormatNumber(*value);
  if (spelling == "1") return number;
  const UnitDef* u = FindUnit(spelling, dimension);
  if (u != nullptr) spelling = u->spelling;
  if (spelling[0] == '$') {
    // Written around the number, as pages do: "$1.34/hr", "$9.532 per hour".
    std::string rest = spelling.substr(1);
    size_t first = rest.find_first_not_of(' ');
    rest = first == std::string::npos ? "" : rest.substr(first);
    bool negative = !number.empty() && number[0] == '-';
    std::string out = std::string(negative ? "-$" : "$") + (negative ? number.substr(1) : number);
    if (!rest.empty()) out += (IsAlnum(rest[0]) ? " " : "") + rest;
    return out;
  }
  return number + " " + spelling;
}

std::string Schema::FormatWrittenFigure(double canonical, const std::string& dimension, const std::string& unit,
                                        const Qualifiers* qualifiers) const {
  auto whole = [](double x) { return x >= 1 && std::abs(x - std::round(x)) <= 1e-9 * x; };
  const DimensionDef* dim = FindDimension(dimension);
  const std::string& shown = unit.empty() && dim != nullptr ? dim->display_unit : unit;
  const UnitDef* display = FindUnit(shown, dimension);
  if (display == nullptr || whole(canonical / display->factor)) {
    return FormatQuantity(canonical, dimension, unit, qualifiers);
  }
  for (const UnitDef& u : units_) {
    if (u.dimension != dimension || u.factor == display->factor) continue;
    if (u.factor < display->factor / 2 || u.factor > display->factor * 2) continue;
    if (whole(canonical / u.factor)) return FormatQuantity(canonical, dimension, u.spelling, qualifiers);
  }
  return FormatQuantity(canonical, dimension, unit, qualifiers);
}

}  // namespace chipkg
