#include "schema/text_util.h"

#include <algorithm>
#include <cctype>

namespace chipkg::schema_internal {

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool SameUnitSpelling(std::string_view written, std::string_view declared) {
  if (written.size() != declared.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  bool has_capitals = false;
  for (size_t i = 0; i < written.size(); ++i) {
    if (lower(written[i]) != lower(declared[i])) return false;
    has_capitals = has_capitals || (written[i] >= 'A' && written[i] <= 'Z');
  }
  if (!has_capitals) return true;
  // Only symbols carry meaning in case ("GB", "Gb/s", "mW", "MHz": runs of
  // at most three letters); words do not ("Billion", "Bytes", "MILLION").
  size_t run = 0, longest = 0;
  for (char c : declared) {
    run = std::isalpha(static_cast<unsigned char>(c)) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (longest > 3) return true;
  for (size_t i = 0; i < written.size(); ++i) {
    const char d = lower(declared[i]);
    if ((d == 'b' || d == 'm') && written[i] != declared[i]) return false;
  }
  return true;
}

size_t SpaceAt(std::string_view text, size_t pos) {
  if (pos >= text.size()) return 0;
  unsigned char c = static_cast<unsigned char>(text[pos]);
  if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') return 1;
  // U+00A0 no-break space.
  if (c == 0xC2 && pos + 1 < text.size() && static_cast<unsigned char>(text[pos + 1]) == 0xA0) return 2;
  // U+2009 thin space, U+202F narrow no-break space, U+2002..U+2007 (en, em, figure spaces).
  if (c == 0xE2 && pos + 2 < text.size() && static_cast<unsigned char>(text[pos + 1]) == 0x80) {
    unsigned char d = static_cast<unsigned char>(text[pos + 2]);
    if (d == 0x89 || d == 0xAF || (d >= 0x82 && d <= 0x87)) return 3;
  }
  return 0;
}

namespace {

// Lower case with every run of space replaced by one ' ', and curly quotes
// straightened and trademark signs dropped when `straighten` is set; leading
// and trailing space dropped.
std::string Fold(std::string_view text, bool straighten) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (size_t i = 0; i < text.size();) {
    if (size_t n = SpaceAt(text, i)) {
      pending_space = !out.empty();
      i += n;
      continue;
    }
    if (pending_space) {
      out += ' ';
      pending_space = false;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    // Trademark signs (U+2122, U+00AE) say nothing: "In-Processor-Memory\u2122" is the label.
    if (straighten && text.substr(i, 3) == "\xE2\x84\xA2") {
      i += 3;
      continue;
    }
    if (straighten && text.substr(i, 2) == "\xC2\xAE") {
      i += 2;
      continue;
    }
    // U+2018/U+2019 single and U+201C/U+201D double curly quotes.
    if (straighten && c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80) {
      unsigned char d = static_cast<unsigned char>(text[i + 2]);
      if (d == 0x98 || d == 0x99) {
        out += '\'';
        i += 3;
        continue;
      }
      if (d == 0x9C || d == 0x9D) {
        out += '"';
        i += 3;
        continue;
      }
    }
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
    ++i;
  }
  return out;
}

}  // namespace

std::string NormalizeLabel(std::string_view label) {
  std::string out = Fold(label, /*straighten=*/true);
  while (!out.empty() && (out.back() == ':' || out.back() == '?' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string FoldPhrase(std::string_view text) { return Fold(text, /*straighten=*/true); }

}  // namespace chipkg::schema_internal
