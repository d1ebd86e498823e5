// Byte-level text helpers for the extractors: words, numbers and dates as
// pages write them. Everything works on bytes; non-ASCII UTF-8 bytes count as
// word bytes so that a multi-byte letter never splits a word.

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

std::string WithoutTrademarks(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.substr(i, 3) == "\xE2\x84\xA2") {
      i += 2;
    } else if (name.substr(i, 2) == "\xC2\xAE") {
      i += 1;
    } else {
      out += name[i];
    }
  }
  return out;
}
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAsciiAlpha(char c) { return IsUpper(c) || IsLower(c); }
bool IsWordByte(char c) { return IsDigit(c) || IsAsciiAlpha(c) || static_cast<unsigned char>(c) >= 0x80; }

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (IsUpper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

size_t SpaceAt(std::string_view s, size_t pos) {
  if (pos >= s.size()) return 0;
  unsigned char c = static_cast<unsigned char>(s[pos]);
  if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') return 1;
  if (c == 0xC2 && pos + 1 < s.size() && static_cast<unsigned char>(s[pos + 1]) == 0xA0) return 2;  // U+00A0
  if (c == 0xE2 && pos + 2 < s.size() && static_cast<unsigned char>(s[pos + 1]) == 0x80) {
    unsigned char d = static_cast<unsigned char>(s[pos + 2]);
    if (d == 0x89 || d == 0xAF || (d >= 0x82 && d <= 0x87)) return 3;  // thin and fixed-width spaces
  }
  return 0;
}

namespace {
// Length of the white space ending just before `pos`.
size_t SpaceBefore(std::string_view s, size_t pos) {
  if (pos == 0) return 0;
  if (SpaceAt(s, pos - 1) == 1) return 1;
  if (pos >= 2 && SpaceAt(s, pos - 2) == 2) return 2;
  if (pos >= 3 && SpaceAt(s, pos - 3) == 3) return 3;
  return 0;
}
}  // namespace

Range Trim(std::string_view text, Range r) {
  r.end = std::min(r.end, text.size());
  while (r.begin < r.end) {
    size_t n = SpaceAt(text, r.begin);
    if (n == 0 || r.begin + n > r.end) break;
    r.begin += n;
  }
  while (r.end > r.begin) {
    size_t n = SpaceBefore(text, r.end);
    if (n == 0 || r.end - n < r.begin) break;
    r.end -= n;
  }
  return r;
}

size_t Utf8Floor(std::string_view text, size_t pos) {
  if (pos >= text.size()) return text.size();
  while (pos > 0 && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

size_t Utf8Ceil(std::string_view text, size_t pos) {
  while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  return std::min(pos, text.size());
}

namespace {

// An en or em dash (U+2013, U+2014): punctuation, though its bytes are
// above 0x7F as a letter's are. "128 GB of HBM—the most" was one word
// "HBM—the", and the memory's label was not found.
bool DashAt(std::string_view text, size_t pos, size_t limit) {
  return pos + 3 <= limit && text[pos] == '\xE2' && text[pos + 1] == '\x80' &&
         (text[pos + 2] == '\x93' || text[pos + 2] == '\x94');
}

}  // namespace

bool WordStartsAt(std::string_view text, size_t pos) {
  return pos == 0 || !IsWordByte(text[pos - 1]) || (pos >= 3 && DashAt(text, pos - 3, pos));
}
bool WordEndsAt(std::string_view text, size_t pos) {
  return pos >= text.size() || !IsWordByte(text[pos]) || DashAt(text, pos, text.size());
}

bool MinusSignBefore(std::string_view text, size_t floor, size_t pos) {
  if (pos >= floor + 3 && text.substr(pos - 3, 3) == "\xE2\x88\x92") return true;
  if (pos <= floor || pos > text.size() || text[pos - 1] != '-') return false;
  if (pos - 1 == floor) return true;
  const char before = text[pos - 2];
  return SpaceAt(text, pos - 2) > 0 || before == '(' || before == '[' || before == ':' || before == '=' ||
         (pos >= floor + 3 && text.substr(pos - 3, 2) == "\xC2\xA0");
}

size_t FindLowerWord(std::string_view lower, std::string_view needle_lower, size_t from) {
  if (needle_lower.empty()) return std::string_view::npos;
  // A needle that starts or ends with punctuation carries its own boundary.
  const bool check_start = IsWordByte(needle_lower.front());
  const bool check_end = IsWordByte(needle_lower.back());
  while (from <= lower.size()) {
    size_t at = lower.find(needle_lower, from);
    if (at == std::string_view::npos) return at;
    if ((!check_start || WordStartsAt(lower, at)) &&
        (!check_end || WordEndsAt(lower, at + needle_lower.size()))) {
      return at;
    }
    from = at + 1;
  }
  return std::string_view::npos;
}

size_t FindWord(std::string_view text, std::string_view needle_lower, size_t from) {
  return FindLowerWord(AsciiLower(text), needle_lower, from);
}


std::optional<Range> NextWord(std::string_view text, size_t pos, size_t limit) {
  limit = std::min(limit, text.size());
  while (pos < limit && (!IsWordByte(text[pos]) || DashAt(text, pos, limit))) pos += DashAt(text, pos, limit) ? 3 : 1;
  if (pos >= limit) return std::nullopt;
  size_t end = pos;
  while (end < limit && !DashAt(text, end, limit) &&
         (IsWordByte(text[end]) || text[end] == '-' || text[end] == '+' ||
          (text[end] == '.' && end + 1 < limit && IsWordByte(text[end + 1])))) {
    ++end;
  }
  return Range{pos, end};
}

std::optional<NumberToken> NumberAt(std::string_view text, size_t pos, size_t limit) {
  limit = std::min(limit, text.size());
  if (pos >= limit || !IsDigit(text[pos])) return std::nullopt;
  if (pos > 0 && (IsWordByte(text[pos - 1]) || text[pos - 1] == '.')) return std::nullopt;
  std::string digits;
  size_t i = pos;
  size_t group = 0;
  while (i < limit && IsDigit(text[i])) {
    digits += text[i++];
    ++group;
  }
  if (group <= 3) {
    while (i + 3 < limit && text[i] == ',' && IsDigit(text[i + 1]) && IsDigit(text[i + 2]) &&
           IsDigit(text[i + 3]) && (i + 4 >= limit || !IsDigit(text[i + 4]))) {
      digits.append(text.substr(i + 1, 3));
      i += 4;
    }
  }
  if (i + 1 < limit && text[i] == '.' && IsDigit(text[i + 1])) {
    digits += text[i++];
    while (i < limit && IsDigit(text[i])) digits += text[i++];
  }
  if (digits.size() > 30) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  return NumberToken{Range{pos, i}, value};
}

namespace {

struct MonthName {
  const char* name;
  int month;
};
constexpr std::array<MonthName, 24> kMonths = {{
    {"january", 1}, {"february", 2}, {"march", 3},     {"april", 4},    {"may", 5},       {"june", 6},
    {"july", 7},    {"august", 8},   {"september", 9}, {"october", 10}, {"november", 11}, {"december", 12},
    {"jan", 1},     {"feb", 2},      {"mar", 3},       {"apr", 4},      {"jun", 6},       {"jul", 7},
    {"aug", 8},     {"sep", 9},      {"sept", 9},      {"oct", 10},     {"nov", 11},      {"dec", 12},
}};

// A month name at pos: its number and the bytes it takes (with an abbreviation's '.').
std::optional<std::pair<int, size_t>> MonthAt(std::string_view text, size_t pos, size_t limit) {
  if (pos >= limit || !IsAsciiAlpha(text[pos]) || !WordStartsAt(text, pos)) return std::nullopt;
  size_t end = pos;
  while (end < limit && IsAsciiAlpha(text[end])) ++end;
  std::string word = AsciiLower(text.substr(pos, end - pos));
  for (const MonthName& m : kMonths) {
    if (word == m.name) {
      if (end < limit && text[end] == '.' && word.size() <= 4) ++end;
      return std::make_pair(m.month, end - pos);
    }
  }
  return std::nullopt;
}

// Exactly `n` digits at pos, not followed by another digit.
std::optional<int> DigitsAt(std::string_view text, size_t pos, size_t limit, size_t min_n, size_t max_n,
                            size_t* end) {
  size_t i = pos;
  int value = 0;
  while (i < limit && IsDigit(text[i]) && i - pos < max_n) value = value * 10 + (text[i++] - '0');
  if (i - pos < min_n || (i < limit && IsDigit(text[i]))) return std::nullopt;
  *end = i;
  return value;
}

std::optional<Date> MakeDate(int year, int month, int day) {
  char buf[32];
  if (day > 0) {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d", year, month, day);
  } else if (month > 0) {
    std::snprintf(buf, sizeof(buf), "%04d-%02d", year, month);
  } else {
    std::snprintf(buf, sizeof(buf), "%04d", year);
  }
  return Date::Parse(buf);
}

bool PlausibleYear(int y) { return y >= 1950 && y <= 2100; }

}  // namespace

std::optional<DateToken> DateAt(std::string_view text, size_t pos, size_t limit, bool allow_year) {
  limit = std::min(limit, text.size());
  if (pos >= limit || !WordStartsAt(text, pos)) return std::nullopt;
  size_t end = 0;
  if (IsDigit(text[pos])) {
    // ISO: 2024-12-03 or 2024-12.
    if (auto year = DigitsAt(text, pos, limit, 4, 4, &end)) {
      size_t e2 = 0, e3 = 0;
      if (end < limit && text[end] == '-') {
        if (auto month = DigitsAt(text, end + 1, limit, 2, 2, &e2)) {
          if (e2 < limit && text[e2] == '-') {
            if (auto day = DigitsAt(text, e2 + 1, limit, 2, 2, &e3); day && WordEndsAt(text, e3)) {
              if (auto d = MakeDate(*year, *month, *day)) return DateToken{Range{pos, e3}, *d};
            }
          }
          if (WordEndsAt(text, e2) && (e2 >= limit || text[e2] != '-')) {
            if (auto d = MakeDate(*year, *month, 0)) return DateToken{Range{pos, e2}, *d};
          }
        }
      }
      if (allow_year && PlausibleYear(*year) && WordEndsAt(text, end)) {
        if (auto d = MakeDate(*year, 0, 0)) return DateToken{Range{pos, end}, *d};
      }
      return std::nullopt;
    }
    // Numbers and slashes: "04/13/2023" (month first, as US pages write it)
    // or "13/04/2023" (day first). Read only where the order cannot be in
    // doubt: one of the two is above 12, or both are the same.
    if (auto first = DigitsAt(text, pos, limit, 1, 2, &end); first && end < limit && text[end] == '/') {
      size_t e2 = 0, e3 = 0;
      if (auto second = DigitsAt(text, end + 1, limit, 1, 2, &e2); second && e2 < limit && text[e2] == '/') {
        if (auto year = DigitsAt(text, e2 + 1, limit, 4, 4, &e3); year && PlausibleYear(*year) && WordEndsAt(text, e3)) {
          std::optional<Date> d;
          if (*first > 12 || *first == *second) {
            d = MakeDate(*year, *second, *first);
          } else if (*second > 12) {
            d = MakeDate(*year, *first, *second);
          }
          if (d) return DateToken{Range{pos, e3}, *d};
        }
      }
      return std::nullopt;
    }
    // Day first: "1 December 2020".
    if (auto day = DigitsAt(text, pos, limit, 1, 2, &end)) {
      size_t m = end;
      while (size_t n = SpaceAt(text, m)) m += n;
      if (m == end) return std::nullopt;
      if (auto month = MonthAt(text, m, limit)) {
        size_t y = m + month->second;
        while (size_t n = SpaceAt(text, y)) y += n;
        size_t ye = 0;
        if (auto year = DigitsAt(text, y, limit, 4, 4, &ye);
            year && PlausibleYear(*year) && WordEndsAt(text, ye)) {
          if (auto d = MakeDate(*year, month->first, *day)) return DateToken{Range{pos, ye}, *d};
        }
      }
    }
    return std::nullopt;
  }
  // A quarter or a half: "Q2 2023", "H2 2024". Dates have no such precision;
  // read as the year, which covers it (the excerpt keeps the quarter).
  if (pos + 3 < limit && (text[pos] == 'Q' || text[pos] == 'H') && text[pos + 1] >= '1' &&
      text[pos + 1] <= (text[pos] == 'Q' ? '4' : '2') && SpaceAt(text, pos + 2) > 0) {
    size_t y = pos + 2;
    while (size_t n = SpaceAt(text, y)) y += n;
    size_t ye = 0;
    if (auto year = DigitsAt(text, y, limit, 4, 4, &ye); year && PlausibleYear(*year) && WordEndsAt(text, ye)) {
      if (auto d = MakeDate(*year, 0, 0)) return DateToken{Range{pos, ye}, *d};
    }
    return std::nullopt;
  }
  // Month first: "December 1, 2020", "December 2020".
  auto month = MonthAt(text, pos, limit);
  if (!month) return std::nullopt;
  size_t m = pos + month->second;
  size_t after = m;
  while (size_t n = SpaceAt(text, after)) after += n;
  if (after == m) return std::nullopt;
  size_t e = 0;
  if (auto day = DigitsAt(text, after, limit, 1, 2, &e)) {
    size_t c = e;
    if (c < limit && text[c] == ',') ++c;
    size_t y = c;
    while (size_t n = SpaceAt(text, y)) y += n;
    size_t ye = 0;
    if (y > e) {
      if (auto year = DigitsAt(text, y, limit, 4, 4, &ye);
          year && PlausibleYear(*year) && WordEndsAt(text, ye)) {
        if (auto d = MakeDate(*year, month->first, *day)) return DateToken{Range{pos, ye}, *d};
      }
    }
    return std::nullopt;
  }
  if (auto year = DigitsAt(text, after, limit, 4, 4, &e);
      year && PlausibleYear(*year) && WordEndsAt(text, e)) {
    if (auto d = MakeDate(*year, month->first, 0)) return DateToken{Range{pos, e}, *d};
  }
  return std::nullopt;
}

namespace {

// The word before an event's year names an event: an acronym ("GTC",
// "ISSCC"), a name with an inner capital or a colon ("re:Invent"), or an
// event noun ("Computex", "Hot Chips", "AWS Summit"). "CEO Adam Selipsky
// 2023" and "Project Rainier 2025" are no events.
bool EventWord(std::string_view word) {
  static const std::string_view kNouns[] = {"computex", "chips",  "summit",   "conference", "keynote",
                                            "expo",     "forum",  "day",      "days",       "event",
                                            "ignite",   "build",  "symposium", "showcase",  "congress"};
  size_t upper = 0, letters = 0;
  bool inner_capital = false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (!IsAsciiAlpha(word[i])) continue;
    ++letters;
    if (IsUpper(word[i])) {
      ++upper;
      inner_capital = inner_capital || (i > 0 && !IsUpper(word[i - 1]));
    }
  }
  if (word.find(':') != std::string_view::npos || inner_capital || (letters >= 2 && upper == letters)) return true;
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(std::begin(kNouns), std::end(kNouns), lower) != std::end(kNouns);
}

}  // namespace

std::optional<DateToken> EventYearAt(std::string_view text, size_t pos, size_t limit) {
  limit = std::min(limit, text.size());
  if (pos >= limit || !WordStartsAt(text, pos)) return std::nullopt;
  size_t at = pos;
  for (int words = 0; words < 3; ++words) {
    size_t e = at;
    bool capital = false;
    while (e < limit && (IsAsciiAlpha(text[e]) || ((text[e] == ':' || text[e] == '-' || text[e] == '.') &&
                                                   e + 1 < limit && IsAsciiAlpha(text[e + 1])))) {
      capital = capital || IsUpper(text[e]);
      ++e;
    }
    if (e == at || !capital || e >= limit || text[e] != ' ') return std::nullopt;
    const std::string_view word = text.substr(at, e - at);
    at = e + 1;
    size_t year_end = 0;
    if (auto year = DigitsAt(text, at, limit, 4, 4, &year_end);
        year && PlausibleYear(*year) && WordEndsAt(text, year_end)) {
      if (!EventWord(word)) return std::nullopt;
      if (auto d = MakeDate(*year, 0, 0)) return DateToken{Range{pos, year_end}, *d};
    }
  }
  return std::nullopt;
}

std::vector<DateToken> FindDates(std::string_view text, Range r, bool allow_year) {
  std::vector<DateToken> out;
  size_t limit = std::min(r.end, text.size());
  for (size_t i = r.begin; i < limit; ++i) {
    if (!WordStartsAt(text, i) || !(IsDigit(text[i]) || IsAsciiAlpha(text[i]))) continue;
    if (auto d = DateAt(text, i, limit, allow_year)) {
      out.push_back(*d);
      i = d->range.end - 1;
    }
  }
  return out;
}

}  // namespace chipkg::extract_internal
