// Reading one value next to its label: a quantity (with the qualifiers and
// arithmetic written around it), a date, an entity name, a text, a yes/no, or
// a "not published" statement. Also the "- Label"/"- value" pair reader and the
// "Label: value" line reader, which are thin layers over it.

#include <algorithm>
#include <cmath>

#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

namespace {

constexpr std::string_view kDivide = "\xC3\xB7";  // ÷
constexpr std::string_view kTimes = "\xC3\x97";   // ×

// Words that say a value is absent. They are not claims of a value and are
// not "not published" either (the page says nothing was there), so no fact.
bool IsNoValueWord(std::string_view w) {
  std::string l = AsciiLower(w);
  return l == "nothing" || l == "none" || l == "n/a" || l == "na" || l == "unknown" || l == "tbd" ||
         l == "tba" || l == "?" || l == "-" || l == "\xE2\x80\x94" || l == "\xE2\x80\x93";
}

bool StartsWithNoValue(std::string_view v) {
  size_t end = 0;
  while (end < v.size() && SpaceAt(v, end) == 0 && v[end] != ',' && v[end] != ';' && v[end] != '(') ++end;
  return IsNoValueWord(v.substr(0, end));
}

// The start of a value for a warning: at most `most` bytes, cut after a
// whole word (a cut inside one read as a word of its own: "Amazon's firs")
// and never inside a character, with "..." where it was cut.
std::string Quoted(std::string_view value, size_t most) {
  if (value.size() <= most) return std::string(value);
  size_t cut = Utf8Floor(value, most);
  const size_t space = value.rfind(' ', cut);
  if (space != std::string_view::npos && space > most / 2) cut = space;
  return std::string(value.substr(0, cut)) + "...";
}

bool NearlyEqual(double a, double b) {
  if (a == b) return true;
  double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= scale * 0.01;
}

// The start of the number (or its '$') that ends just before `pos`, skipping
// a unit word in between: for "...TFLOPS/W210 TFLOPS " returns where "210" starts.
size_t OperandStart(std::string_view text, size_t floor, size_t pos) {
  size_t p = pos;
  while (p > floor && SpaceAt(text, p - 1)) --p;
  while (p > floor && !IsDigit(text[p - 1]) && !SpaceAt(text, p - 1)) --p;  // unit
  while (p > floor && SpaceAt(text, p - 1)) --p;
  size_t digits_end = p;
  while (p > floor && (IsDigit(text[p - 1]) || text[p - 1] == ',' || text[p - 1] == '.')) --p;
  while (p < digits_end && !IsDigit(text[p])) ++p;  // a leading ',' or '.' is not the number's
  if (p == digits_end) return std::string_view::npos;
  if (p > floor && text[p - 1] == '$') --p;
  return p;
}

// Where the first number of `r` starts (at its '$' if any).
std::optional<size_t> FirstNumber(std::string_view text, Range r) {
  for (size_t i = r.begin; i < r.end; ++i) {
    if (text[i] == '$' && i + 1 < r.end && IsDigit(text[i + 1])) return i;
    if (IsDigit(text[i]) && (i == 0 || (!IsWordByte(text[i - 1]) && text[i - 1] != '.'))) return i;
  }
  return std::nullopt;
}

// Entity names end at the first separator: "TSMC (all chips TSMC makes →)",
// "Trainium2, covered on its own page", "nothing — Trainium was ...".
Range EntityNameRange(std::string_view text, Range v) {
  size_t end = v.end;
  std::string_view s = text.substr(v.begin, v.size());
  // (" with ": "TSMC 7nm with Wafer-on-Wafer" is TSMC's 7nm node, with a
  // packaging; whole, it made a node of its own. " / ": "TSMC N3P / N6" is
  // the compute dies' node, then the I/O die's.)
  const std::string_view stops[] = {" (",  "(",  ",",  ";", " \xE2\x80\x94", " \xE2\x80\x93",
                                    " - ", ". ", " | ", " / ", " with ", " plus "};
  for (std::string_view stop : stops) {
    size_t at = s.find(stop);
    if (at != std::string_view::npos && at > 0) end = std::min(end, v.begin + at);
  }
  if (end == v.end && end > v.begin && text[end - 1] == '.') --end;
  return Trim(text, Range{v.begin, end});
}

// "waterDepends on the rack design": a value glued to a note. Splits where a
// word that starts in lower case runs into a capitalised word.
std::pair<Range, Range> SplitGlued(std::string_view text, Range v) {
  size_t word_start = v.begin;
  for (size_t i = v.begin; i + 2 < v.end; ++i) {
    if (SpaceAt(text, i)) {
      word_start = i + 1;
      continue;
    }
    if (i > word_start && IsLower(text[word_start]) && IsLower(text[i]) && IsUpper(text[i + 1]) &&
        IsLower(text[i + 2])) {
      return {Range{v.begin, i + 1}, Range{i + 1, v.end}};
    }
  }
  return {v, Range{v.end, v.end}};
}

std::string StripParens(std::string_view s) {
  std::string out(s);
  while (!out.empty() && (out.front() == '(' || out.front() == ' ')) out.erase(out.begin());
  while (!out.empty() && (out.back() == ')' || out.back() == ' ' || out.back() == '.')) out.pop_back();
  return out;
}

// Qualifier keys a label fixes are not overridden by words near the value.
void MergeQualifiers(Qualifiers& into, const Qualifiers& from) {
  for (const auto& [k, v] : from) into.emplace(k, v);
}

}  // namespace

std::optional<int> SmallCount(std::string_view word) {
  static constexpr std::string_view kWords[] = {"one", "two",  "three", "four",   "five",    "six",     "seven",   "eight",
                                                "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"};
  const std::string lower = AsciiLower(word);
  for (size_t i = 0; i < std::size(kWords); ++i) {
    if (lower == kWords[i]) return static_cast<int>(i) + 1;
  }
  if (lower.empty() || lower.size() > 5 || !std::all_of(lower.begin(), lower.end(), IsDigit)) return std::nullopt;
  const int n = std::stoi(lower);
  return n > 0 ? std::optional<int>(n) : std::nullopt;
}

bool ReadsAsYear(std::string_view text, size_t number_begin, double value) {
  if (value < 1900 || value >= 2100 || value != std::floor(value)) return false;
  size_t end = number_begin;
  while (end > 0 && text[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && IsAsciiAlpha(text[begin - 1])) --begin;
  const std::string word = AsciiLower(text.substr(begin, end - begin));
  for (const char* before : {"in", "since", "by", "until", "till", "from", "after", "before", "during", "through",
                             "early", "late", "mid", "fiscal", "fy", "year", "january", "february", "march", "april",
                             "may", "june", "july", "august", "september", "october", "november", "december", "jan",
                             "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}) {
    if (word == before) return true;
  }
  // "Q3 2025", "H2 2025", "mid-2025".
  if (end >= 2 && (text[end - 1] == '-' || IsDigit(text[end - 1]))) {
    size_t b = end;
    while (b > 0 && (IsAsciiAlpha(text[b - 1]) || IsDigit(text[b - 1]) || text[b - 1] == '-')) --b;
    const std::string token = AsciiLower(text.substr(b, end - b));
    if (token == "mid-" || token == "early-" || token == "late-" ||
        (token.size() == 2 && (token[0] == 'q' || token[0] == 'h') && IsDigit(token[1]))) {
      return true;
    }
  }
  if (word != "of") return false;
  size_t w_end = begin;
  while (w_end > 0 && text[w_end - 1] == ' ') --w_end;
  size_t w_begin = w_end;
  while (w_begin > 0 && IsAsciiAlpha(text[w_begin - 1])) --w_begin;
  const std::string of_what = AsciiLower(text.substr(w_begin, w_end - w_begin));
  return of_what == "end" || of_what == "start" || of_what == "beginning" || of_what == "middle" || of_what == "half" ||
         of_what == "quarter" || of_what == "summer" || of_what == "spring" || of_what == "fall" || of_what == "autumn" ||
         of_what == "winter";
}

bool IsChipNoun(std::string_view word) {
  std::string lower = AsciiLower(word);
  if (lower.size() > 1 && lower.back() == 's') lower.pop_back();
  return lower == "chip" || lower == "accelerator" || lower == "gpu" || lower == "tpu" || lower == "npu" ||
         lower == "xpu" || lower == "device" || lower == "card" || lower == "oam" ||
         // Graphcore's, Groq's and SambaNova's names for their chips ("four Bow IPUs").
         lower == "ipu" || lower == "lpu" || lower == "rdu";
}

Qualifiers QualifiersIn(const Page& page, Range r) {
  Qualifiers q;
  std::string_view text(page.text);
  size_t pos = r.begin;
  std::string before;  // the word before this one
  for (std::optional<Range> w; (w = NextWord(text, pos, r.end)); before = AsciiLower(text.substr(w->begin, w->size()))) {
    pos = w->end;
    std::string word = AsciiLower(text.substr(w->begin, w->size()));
    if (auto f = page.FormatWord(word)) {
      q.emplace(qualifier::kFormat, *f);
    } else if (word == "dense" || word == "sparse") {
      q.emplace(qualifier::kSparsity, word);
    } else if (word == "sparsity" && !before.empty()) {
      // "5,229.8 TFLOPS of FP8 with sparsity", "with structured sparsity",
      // "without sparsity": read as a dense figure, a sparse one answered
      // queries for dense throughput at twice its value.
      if (before == "with" || before == "structured") q.emplace(qualifier::kSparsity, "sparse");
      if (before == "without" || before == "no") q.emplace(qualifier::kSparsity, "dense");
    } else if ((word == "per" || word == "each" || word == "every") && w->end < r.end) {
      auto next = NextWord(text, w->end, r.end);
      if (!next) break;
      std::string n = AsciiLower(text.substr(next->begin, next->size()));
      // "per 16-chip server"
      size_t dash = n.find('-');
      if (dash != std::string::npos && dash > 0 && std::all_of(n.begin(), n.begin() + dash, IsDigit)) {
        std::string noun = n.substr(dash + 1);
        auto scope = NextWord(text, next->end, r.end);
        if (scope && page.IsScopeWord(text.substr(scope->begin, scope->size()))) {
          q.emplace(qualifier::kScope, AsciiLower(text.substr(scope->begin, scope->size())));
          if (noun == "chip") q.emplace(qualifier::kScopeCount, n.substr(0, dash));
          pos = scope->end;
          continue;
        }
      }
      if (page.IsScopeWord(n)) {
        q.emplace(qualifier::kScope, n);
        pos = next->end;
      } else if (IsChipNoun(n)) {  // "1,000 W per GPU"
        q.emplace(qualifier::kScope, "chip");
        pos = next->end;
      } else if (std::string part = page.PartScopeOf(n); !part.empty()) {
        // "Local memory: 384 KB per PE": one processing element's, stored
        // as the chip's memory it answered "memory >= 256 KB" for a chip
        // with 128 GB.
        q.emplace(qualifier::kScope, part);
        pos = next->end;
      }
    }
  }
  return q;
}

// "SambaRack", "SuperPOD": the scope a capitalised name of a system ends in
// (schema table words_scope, but for chip and core); "" for none.
std::string NamedScope(const Page& page, std::string_view word) {
  if (word.empty() || !IsUpper(word[0])) return "";
  auto scopes = page.schema.tables().find("words_scope");
  if (scopes == page.schema.tables().end()) return "";
  const std::string lower = AsciiLower(word);
  for (const auto& [key, unused] : scopes->second) {
    const std::string scope = AsciiLower(key);
    if (page.IsSystemScope(scope) && lower.size() > scope.size() && lower.ends_with(scope)) return scope;
  }
  return "";
}

Qualifiers SentenceScope(const Page& page, Range opening) {
  Qualifiers q;
  std::string_view text(page.text);
  std::vector<Range> words;
  for (std::optional<Range> w = NextWord(text, opening.begin, opening.end); w; w = NextWord(text, w->end, opening.end)) {
    words.push_back(*w);
  }
  const auto lower = [&](size_t k) { return AsciiLower(text.substr(words[k].begin, words[k].size())); };
  // A scope other than one chip's: a core's figures are set apart by "each core" where they are read.
  const auto multi_chip_scope = [&](size_t k) {
    const std::string w = lower(k);
    return page.IsSystemScope(w);
  };
  // "eight accelerators", "4,096 chips", "eight Gaudi 2 accelerators": so
  // many chips together. The count, as written.
  std::optional<long long> chips;
  size_t number_end = 0;  // the words of "9,216" after its first are no numbers of their own
  for (size_t k = 0; k < words.size() && !chips; ++k) {
    std::optional<double> n;
    size_t after = k + 1;
    if (words[k].begin < number_end) continue;
    if (std::optional<NumberToken> number = NumberAt(text, words[k].begin, opening.end)) {
      n = number->value;
      number_end = number->range.end;
      while (after < words.size() && words[after].begin < number->range.end) ++after;
    } else if (std::optional<int> small = SmallCount(text.substr(words[k].begin, words[k].size()))) {
      n = *small;
    }
    if (!n || *n < 2 || *n != std::floor(*n)) continue;
    if (ReadsAsYear(text, words[k].begin, *n)) continue;  // "By the end of 2025 Trainium2 chips ..."
    // "Where the Z8 rack had 32 chips, the Z9 rack has 64 chips": a count in
    // a clause that sets another thing against the subject (it was the Z9
    // rack's). Read from the last comma before the count.
    {
      size_t m = k;
      while (m > 0 && text.substr(words[m - 1].end, 1) != ",") --m;
      bool against = false;
      for (size_t c = m; c < k; ++c) {
        const std::string l = lower(c);
        against = against || l == "where" || l == "whereas" || l == "while" || l == "unlike" || l == "than" ||
                  l == "compared" || l == "versus" || l == "vs" || l == "from" || l == "previous" || l == "predecessor";
      }
      if (against) continue;
    }
    // "four Trn2 instances, each with 16 Trainium2 chips": each part's chips, not the whole's.
    if (k >= 2 && lower(k - 2) == "each" && (lower(k - 1) == "with" || lower(k - 1) == "holding" ||
                                             lower(k - 1) == "has" || lower(k - 1) == "of")) {
      continue;
    }
    // "a system of 4 to 8 chips", "4-8 chips": a range, no count.
    const std::string_view word = text.substr(words[k].begin, words[k].size());
    const size_t end = words[k].end;
    const bool dash_after = end < opening.end && (text[end] == '-' || text.substr(end, 3) == "\xE2\x80\x93");
    const bool dash_before = words[k].begin > 0 && (text[words[k].begin - 1] == '-' ||
                                                    (words[k].begin >= 3 && text.substr(words[k].begin - 3, 3) == "\xE2\x80\x93"));
    const bool word_before = k > 1 && (lower(k - 1) == "to" || lower(k - 1) == "or") && IsDigit(text[words[k - 2].begin]);
    const bool word_after = after < words.size() && (lower(after) == "to" || lower(after) == "or");
    if (dash_after || dash_before || word_before || word_after || word.find('-') != std::string_view::npos) continue;
    for (size_t j = after; j < words.size() && j <= after + 2; ++j) {
      const std::string noun = lower(j);
      if (noun.size() >= 2 && noun.back() == 's' && IsChipNoun(noun)) {
        chips = static_cast<long long>(*n);
        break;
      }
    }
  }
  const auto with_chips = [&](std::string scope) {
    q[qualifier::kScope] = std::move(scope);
    if (chips) q[qualifier::kScopeCount] = std::to_string(*chips);
    return q;
  };
  for (size_t k = 0; k < words.size(); ++k) {
    const std::string w = lower(k);
    // "Per server, the DGX B200 offers ..."; "Per GPU, that works out to
    // ..."; "Each Blackwell GPU carries ..."; "Each Z900 server packs eight
    // accelerators with ...".
    if (w == "per" || w == "each" || w == "every") {
      size_t taken = 0;
      for (size_t j = k + 1; j < words.size() && taken < (w == "per" ? 1u : 3u); ++j) {
        const std::string next = lower(j);
        if (next == "of" || next == "the" || next == "its" || next == "these" || next == "those") continue;
        ++taken;
        if (multi_chip_scope(j)) return with_chips(next);
        // "Per core, the Z9 offers 100 TFLOPS", "Each die has 96 GB": a part's,
        // in the part's own clause ("Each die is built on N3, and the Z9
        // carries 192 GB" is the chip's; so is "..., for 192 GB on the Z9").
        if (page.IsPartScope(next)) {
          const size_t from = words[j].end;
          std::string_view rest = text.substr(from, opening.end - from);
          if (w == "per" && rest.starts_with(",")) rest.remove_prefix(1);  // "Per die, the Z9 offers"
          if (rest.find_first_of(",;") == std::string_view::npos) {
            q[qualifier::kScope] = next;
            return q;
          }
          break;
        }
        if (IsChipNoun(next)) {  // "Each of the 16 chips on the board has 96 GB"
          q[qualifier::kScope] = "chip";
          return q;
        }
      }
    }
    // "An eight-accelerator HLB-325 baseboard offers ...": the count, then
    // the scope within three words.
    // ("a 16-chip SambaRack": a name that ends in its scope's word.)
    const size_t dash = w.find('-');
    if (dash != std::string::npos && dash > 0 && SmallCount(w.substr(0, dash)) && IsChipNoun(w.substr(dash + 1))) {
      for (size_t j = k + 1; j < words.size() && j <= k + 3; ++j) {
        std::string scope = multi_chip_scope(j) ? lower(j) : NamedScope(page, text.substr(words[j].begin, words[j].size()));
        if (scope.empty()) continue;
        q[qualifier::kScope] = std::move(scope);
        q[qualifier::kScopeCount] = std::to_string(*SmallCount(w.substr(0, dash)));
        return q;
      }
    }
    // "Each of the 16 servers draws 7 kW": a count of systems, of no chip
    // count the text gives, read in their scope. But the system they are
    // "of" or "with" ("A pod of up to 64 servers draws 700 kW", "A rack with
    // 16 servers") or a cluster ("Up to 2,048 CS-3 systems can be clustered
    // for 256 exaflops", "A cluster of 2,048 CS-3 systems"): their total,
    // which in the systems' scope read "256 exaflops per system". (A count
    // that gives the chips, "32 servers, or 256 chips, in a cluster", is
    // read below.)
    // ("Unlike the 8 servers it replaces, the Z9 draws 700 W": none of theirs.)
    const bool compared = std::any_of(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(k), [&](const Range& r) {
      const std::string l = AsciiLower(text.substr(r.begin, r.size()));
      return l == "unlike" || l == "than" || l == "compared" || l == "versus" || l == "vs" || l == "replaces" ||
             l == "replaced";
    });
    // ("By 2026, Z9 racks will draw 120 kW": a year.)
    if (const std::optional<int> small = SmallCount(w); small && ReadsAsYear(text, words[k].begin, *small)) continue;
    if (SmallCount(w) && !chips && compared) {
      // "Unlike its rivals' 8 servers, a single Z9 server delivers": the one the sentence is about.
      for (size_t m = k + 1; m < words.size(); ++m) {
        if (multi_chip_scope(m)) {
          q[qualifier::kScope] = lower(m);
          return q;
        }
      }
      continue;
    }
    if (SmallCount(w) && !chips) {
      for (size_t j = k + 1; j < words.size() && j <= k + 2; ++j) {
        std::string plural = lower(j);
        if (plural.size() < 2 || plural.back() != 's') continue;
        plural.pop_back();
        if (!page.IsSystemScope(plural)) continue;
        std::string scope = plural;
        size_t b = k;
        while (b > 0 && b + 3 > k && (lower(b - 1) == "up" || lower(b - 1) == "to" || lower(b - 1) == "about" ||
                                      lower(b - 1) == "nearly" || lower(b - 1) == "over" || lower(b - 1) == "than" ||
                                      lower(b - 1) == "more" || lower(b - 1) == "some" || lower(b - 1) == "roughly")) {
          --b;
        }
        const bool outer = b >= 2 && (lower(b - 1) == "of" || lower(b - 1) == "with") && multi_chip_scope(b - 2);
        const auto said = [&](std::initializer_list<std::string_view> any) {
          return std::any_of(words.begin(), words.end(), [&](const Range& r) {
            const std::string l = AsciiLower(text.substr(r.begin, r.size()));
            return std::find(any.begin(), any.end(), l) != any.end();
          });
        };
        // "Both of the 2 servers in a Z9 node draw 7 kW each": each system's.
        std::string after_figure = AsciiLower(text.substr(opening.end, std::min<size_t>(40, text.size() - opening.end)));
        after_figure = after_figure.substr(0, std::min(after_figure.find(". "), after_figure.find(',')));
        // ("four Trn2 instances, each with 16 chips, for 83.2 PFLOPS": "each"
        // of what the parts hold, not of the figure.)
        bool each_said = false;
        for (size_t m = 0; m < words.size(); ++m) {
          const std::string l = lower(m);
          if (l != "each" && l != "apiece" && l != "every") continue;
          const std::string next = m + 1 < words.size() ? lower(m + 1) : "";
          if (next != "with" && next != "holding" && next != "has" && next != "containing" && next != "housing") each_said = true;
        }
        const bool distributive = each_said ||
                                  FindLowerWord(after_figure, "each") != std::string::npos ||
                                  FindLowerWord(after_figure, "apiece") != std::string::npos;
        if (outer) {
          scope = lower(b - 2);
        } else if (said({"cluster", "clustered", "clusters"})) {
          scope = "cluster";
        } else if (!distributive) {
          // "Built from 16 servers, the Z9 rack draws 120 kW", "The 4
          // servers of a Z9 UltraServer deliver 83 PFLOPS together": the
          // system the sentence is about, which the counted ones make up;
          // "its rivals' 8 servers, a single Z9 server delivers": one of
          // them. Else the counted systems' total ("Two Z9 servers deliver
          // 40 PFLOPS", "The 64 CS-3 systems of the Condor Galaxy 3
          // supercomputer deliver 8 exaflops"): a cluster's.
          scope = "cluster";
          for (size_t m = 0; m < words.size(); ++m) {
            if (m == j) continue;
            const std::string named = multi_chip_scope(m) ? lower(m) : NamedScope(page, text.substr(words[m].begin, words[m].size()));
            if (!named.empty()) {
              scope = named;
              break;
            }
          }
        }
        q[qualifier::kScope] = scope;
        return q;
      }
    }
    // "Platform (8 GPUs): 2 TB HBM3E, ...".
    if (multi_chip_scope(k) && k + 2 < words.size() && words[k + 1].begin > 0 && text[words[k + 1].begin - 1] == '(' &&
        SmallCount(text.substr(words[k + 1].begin, words[k + 1].size())) &&
        IsChipNoun(text.substr(words[k + 2].begin, words[k + 2].size()))) {
      q[qualifier::kScope] = w;
      q[qualifier::kScopeCount] = std::to_string(*SmallCount(text.substr(words[k + 1].begin, words[k + 1].size())));
      return q;
    }
  }
  // "The Trainium2 chips in a rack draw 32 kW", "Trainium2 chips in the Trn2
  // UltraServer delivered 83.2 PFLOPS": chips, not counted, of a system the
  // sentence names; their total (not "Eight chips in a server each draw").
  // (One chip in a system, "The B200 GPU in an HGX baseboard", is the chip.)
  if (!chips) {
    std::string after_figure = AsciiLower(text.substr(opening.end, std::min<size_t>(40, text.size() - opening.end)));
    after_figure = after_figure.substr(0, std::min(after_figure.find(". "), after_figure.find(',')));
    const bool each = FindLowerWord(after_figure, "each") != std::string::npos ||
                      std::any_of(words.begin(), words.end(), [&](const Range& r) {
                        const std::string l = AsciiLower(text.substr(r.begin, r.size()));
                        return l == "each" || l == "every" || l == "per" || l == "apiece";
                      });
    for (size_t k = 0; k + 2 < words.size() && !each; ++k) {
      const std::string noun = lower(k);
      if (noun.size() < 3 || noun.back() != 's' || !IsChipNoun(noun)) continue;
      const std::string in = lower(k + 1);
      if (in != "in" && in != "of" && in != "inside") continue;
      for (size_t m = k + 2; m < words.size() && m <= k + 5; ++m) {
        std::string scope = multi_chip_scope(m) ? lower(m) : NamedScope(page, text.substr(words[m].begin, words[m].size()));
        if (scope.empty()) continue;
        q[qualifier::kScope] = std::move(scope);
        return q;
      }
      // "Trainium2 chips in Project Rainier will draw 2.2 GW": chips of a
      // deployment the sentence names by a word of schema table
      // deployment_words, which no system's word says: their total, a
      // cluster's. It was the chip's TDP. (Only such a word: "in FP8 mode",
      // "in Q3 2025", "in Microsoft Azure", "in SXM form" are the chip's.)
      size_t named = k + 2;
      if (named < words.size() && lower(named) == "the") ++named;
      const auto deployments = page.schema.tables().find("deployment_words");
      if (in != "of" && named < words.size() && IsUpper(text[words[named].begin]) &&
          !page.NamedBySubject(text.substr(words[named].begin, words[named].size())) &&
          deployments != page.schema.tables().end()) {
        for (size_t m = named; m < words.size() && m < named + 3; ++m) {
          if (!deployments->second.count(lower(m))) continue;
          q[qualifier::kScope] = "cluster";
          return q;
        }
      }
    }
  }
  // "A TPU v4 Pod contains 4,096 chips, for a total of 1.1 exaflops", "32
  // servers, or 256 chips, in a cluster with": the chips together, in the
  // scope named nearest the figure (a system if none).
  // ("A Z9 rack of 16 servers and 128 chips": the rack's; systems counted
  // are its parts, unless no other system is named.)
  if (chips) {
    // ("Project Rainier spans 400,000 Trainium2 chips": a deployment's, a
    // cluster, where no system's word is written.)
    const auto deployments = page.schema.tables().find("deployment_words");
    const bool deployment =
        deployments != page.schema.tables().end() &&
        std::any_of(words.begin(), words.end(), [&](const Range& r) {
          return IsUpper(text[r.begin]) && deployments->second.count(AsciiLower(text.substr(r.begin, r.size())));
        });
    std::string scope = deployment ? "cluster" : "system", uncounted;
    for (size_t m = 0; m < words.size(); ++m) {
      std::string w = lower(m);
      if (w.size() > 1 && w.back() == 's' && !page.IsScopeWord(w)) w.pop_back();
      if (!page.IsSystemScope(w)) continue;
      scope = w;
      const std::string before = m > 0 ? lower(m - 1) : "";
      const bool counted = !before.empty() && (SmallCount(before) || IsDigit(before[0]));
      if (!counted) uncounted = w;
    }
    return with_chips(uncounted.empty() ? scope : uncounted);
  }
  // "Pod compute: 4.1 exaflops": a label of a total, read as a sentence.
  const Range trimmed = Trim(text, opening);
  if (!words.empty() && !trimmed.empty() && text[trimmed.end - 1] == ':' && multi_chip_scope(0)) {
    q[qualifier::kScope] = lower(0);
    return q;
  }
  // "By 2026, Z9 racks will draw 120 kW", "Trn2 UltraServers deliver 83.2
  // PFLOPS": systems, not counted, as the subject: each one's. (Not those a
  // preposition brings in: "chips in racks", "per rack".)
  for (size_t k = 0; k < words.size(); ++k) {
    std::string w = lower(k);
    if (w.size() < 4 || w.back() != 's') continue;
    const std::string before = k > 0 ? lower(k - 1) : "";
    if (before == "in" || before == "of" || before == "with" || before == "per" || before == "across" ||
        before == "into" || before == "between" || before == "among" || before == "for") {
      continue;
    }
    // (Counted ones were read above, or set aside: "Unlike the 8 servers it replaces".)
    if (k > 0 && (SmallCount(before) || IsDigit(before[0]))) continue;
    if (std::any_of(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(k), [&](const Range& r) {
          const std::string l = AsciiLower(text.substr(r.begin, r.size()));
          return l == "unlike" || l == "than" || l == "compared" || l == "versus" || l == "vs";
        })) {
      continue;
    }
    const std::string singular = w.substr(0, w.size() - 1);
    std::string scope = page.IsSystemScope(singular) ? singular : "";
    if (scope.empty() && IsUpper(text[words[k].begin])) {
      scope = NamedScope(page, text.substr(words[k].begin, words[k].size() - 1));
    }
    if (scope.empty()) continue;
    q[qualifier::kScope] = scope;
    return q;
  }
  // "The whole system draws about 14.3 kW": the sentence opens with the scope
  // as its subject (a determiner, at most three words, the scope word). "The
  // chip in the server has ..." is about the chip. So does the clause after
  // an opening phrase ("At full scale, an Ironwood pod delivers 42.5
  // EFLOPS"), and a system named by a product line's word ("The DGX B200
  // draws 14.3 kW": schema tables system_words_*); each was the chip's.
  static constexpr std::string_view kDeterminers[] = {"the", "a", "an", "one", "this", "that", "its", "our", "their"};
  const auto system_word = [&](size_t j) -> std::string {
    if (multi_chip_scope(j)) return lower(j);
    const std::string_view written = text.substr(words[j].begin, words[j].size());
    if (std::string named = NamedScope(page, written); !named.empty()) return named;
    for (const auto& [table, listed] : page.schema.tables()) {
      if (!table.starts_with("system_words_")) continue;
      for (const auto& [word, unused] : listed) {
        if (AsciiLower(word) == lower(j)) return table.substr(std::string_view("system_words_").size());
      }
    }
    return "";
  };
  std::vector<size_t> starts;
  if (!words.empty()) starts.push_back(0);
  for (size_t k = 1; k < words.size(); ++k) {
    if (text.substr(words[k - 1].end, 2) == ", ") starts.push_back(k);
  }
  for (auto start = starts.rbegin(); start != starts.rend(); ++start) {
    size_t from = *start + 1;
    // ("Google's Ironwood pod": a possessive is a determiner too.)
    const bool possessive = *start + 1 < words.size() && lower(*start + 1) == "s" &&
                            (text.substr(words[*start + 1].begin - 1, 1) == "'" ||
                             (words[*start + 1].begin >= 3 && text.substr(words[*start + 1].begin - 3, 3) == "\xE2\x80\x99"));
    if (possessive) {
      from = *start + 2;
    } else if (std::find(std::begin(kDeterminers), std::end(kDeterminers), lower(*start)) == std::end(kDeterminers)) {
      continue;
    }
    // (Up to five words: "the new liquid-cooled Z9 rack"; not past a verb or a preposition.)
    for (size_t j = from; j < words.size() && j < from + 5; ++j) {
      const std::string w = lower(j);
      if (IsChipNoun(w)) break;
      if (w == "in" || w == "of" || w == "with" || w == "on" || w == "at" || w == "for" || w == "to" || w == "and" ||
          w == "or" || w == "is" || w == "are" || w == "was" || w == "were" || w == "has" || w == "have" ||
          w == "that" || w == "which" || w == "can" || w == "will") {
        break;
      }
      if (std::string scope = system_word(j); !scope.empty()) {
        q[qualifier::kScope] = std::move(scope);
        return q;
      }
      if (page.IsScopeWord(w)) break;  // "the chip", "the core"
      if (j > from && w.size() > 2 && w.back() == 's' && IsLower(text[words[j].begin])) break;  // a verb: "the Z9 draws"
    }
  }
  return q;
}

std::optional<long long> ChipsOfScopeIn(const Page& page, Range sentence, std::string_view scope) {
  std::string_view text(page.text);
  std::vector<Range> words;
  for (std::optional<Range> w = NextWord(text, sentence.begin, sentence.end); w; w = NextWord(text, w->end, sentence.end)) {
    words.push_back(*w);
  }
  const auto lower = [&](size_t k) { return AsciiLower(text.substr(words[k].begin, words[k].size())); };
  for (size_t k = 0; k < words.size(); ++k) {
    if (lower(k) != scope) continue;
    for (size_t j = k + 1; j < words.size() && j <= k + 4; ++j) {
      const std::string w = lower(j);
      std::string singular = w;
      if (singular.size() > 1 && singular.back() == 's') singular.pop_back();
      if (page.IsScopeWord(w) || page.IsScopeWord(singular)) break;  // "system is built from servers with eight"
      std::optional<double> n;
      size_t after = j + 1;
      if (std::optional<NumberToken> number = NumberAt(text, words[j].begin, sentence.end)) {
        n = number->value;
        while (after < words.size() && words[after].begin < number->range.end) ++after;  // "8,960"
      } else if (std::optional<int> small = SmallCount(w)) {
        n = *small;
      }
      if (!n || *n < 2 || *n != std::floor(*n)) continue;
      for (size_t m = after; m < words.size() && m <= after + 3; ++m) {
        const std::string noun = lower(m);
        if (noun.size() >= 2 && noun.back() == 's' && IsChipNoun(noun)) return static_cast<long long>(*n);
        // "384 Ascend 910C chips", not "72 Blackwell GPUs" on the Ascend's page.
        if (!page.NamedBySubject(text.substr(words[m].begin, words[m].size()))) break;
      }
      break;
    }
  }
  return std::nullopt;
}

Qualifiers LabelScope(const Page& page, Range label) {
  Qualifiers q = SentenceScope(page, label);
  if (!q.empty()) return q;
  std::optional<Range> first = NextWord(page.text, label.begin, label.end);
  if (!first) return q;
  const std::string word = AsciiLower(page.View(*first));
  if (page.IsSystemScope(word)) q[qualifier::kScope] = word;
  return q;
}

std::vector<std::string> FormatsIn(const Page& page, Range r) {
  std::vector<std::string> formats;
  std::string_view text(page.text);
  size_t pos = r.begin;
  while (auto w = NextWord(text, pos, r.end)) {
    const std::string word = AsciiLower(text.substr(w->begin, w->size()));
    std::optional<std::string> f = page.FormatWord(word);
    if (!f) {
      if (!formats.empty()) break;
      pos = w->end;
      continue;
    }
    if (std::find(formats.begin(), formats.end(), *f) == formats.end()) formats.push_back(*f);
    // What joins this format to the next: " and ", " or ", "/", " / ", " & ".
    size_t after = w->end;
    while (after < r.end && SpaceAt(text, after)) after += SpaceAt(text, after);
    if (after < r.end && (text[after] == '/' || text[after] == '&')) {
      pos = after + 1;
      continue;
    }
    auto joiner = NextWord(text, after, r.end);
    if (!joiner || joiner->begin != after) break;
    const std::string j = AsciiLower(text.substr(joiner->begin, joiner->size()));
    if (j != "and" && j != "or") break;
    pos = joiner->end;
  }
  return formats;
}

std::optional<QuantityRead> ReadQuantity(const Page& page, Range value, const std::string& dimension) {
  std::string_view text(page.text);
  Range v = Trim(text, value);
  if (v.empty()) return std::nullopt;
  std::string_view s = text.substr(v.begin, v.size());

  // Arithmetic the page shows: "0.42 BF16 TFLOPS/W210 TFLOPS ÷ 500 W = 0.42".
  Range part = v;
  std::string formula;
  std::optional<double> formula_result;
  size_t op = std::min({s.find(kDivide), s.find(kTimes), s.find(" / ")});
  size_t eq = s.find('=', op == std::string_view::npos ? 0 : op);
  if (op != std::string_view::npos && eq != std::string_view::npos) {
    size_t abs_op = v.begin + op;
    size_t abs_eq = v.begin + eq;
    size_t start = OperandStart(text, v.begin, abs_op);
    if (start != std::string_view::npos && start > v.begin) {
      part = Trim(text, Range{v.begin, start});
      formula = std::string(text.substr(start, abs_eq - start));
    } else if (start == v.begin) {
      part = Trim(text, Range{abs_eq + 1, v.end});
      formula = std::string(text.substr(v.begin, abs_eq - v.begin));
    }
    while (!formula.empty() && formula.back() == ' ') formula.pop_back();
    size_t after = abs_eq + 1;
    while (after < v.end && SpaceAt(text, after)) ++after;
    if (auto n = NumberAt(text, after, v.end)) formula_result = n->value;
  }

  std::optional<size_t> start = FirstNumber(text, part);
  if (!start) return std::nullopt;
  if (MinusSignBefore(text, part.begin, *start)) return std::nullopt;  // the caller says what was not read
  QuantityRead out;
  std::string tail(text.substr(*start, part.end - *start));
  std::optional<QuantityParse> q = page.schema.ParseQuantity(tail, dimension);
  if (q && q->consumed > 0) {
    out.figure = Trim(text, Range{*start, *start + q->consumed});
  } else {
    // A format word between number and unit: "0.42 BF16 TFLOPS/W".
    size_t num_at = text[*start] == '$' ? *start + 1 : *start;
    std::optional<NumberToken> n = NumberAt(text, num_at, part.end);
    if (!n) return std::nullopt;
    auto w = NextWord(text, n->range.end, part.end);
    if (!w || w->begin != n->range.end + 1) return std::nullopt;
    std::optional<std::string> format = page.FormatWord(text.substr(w->begin, w->size()));
    if (!format) return std::nullopt;
    size_t unit_at = w->end;
    while (unit_at < part.end && SpaceAt(text, unit_at)) ++unit_at;
    std::string head(text.substr(*start, n->range.end - *start));
    std::string synthetic = head + " " + std::string(text.substr(unit_at, part.end - unit_at));
    q = page.schema.ParseQuantity(synthetic, dimension);
    if (!q || q->consumed <= head.size() + 1) return std::nullopt;
    out.figure = Trim(text, Range{*start, unit_at + (q->consumed - head.size() - 1)});
    out.qualifiers.emplace(qualifier::kFormat, *format);
  }
  out.canonical = q->canonical;
  out.number = q->number;
  out.dimension = q->dimension;
  if (!formula.empty() && (!formula_result || NearlyEqual(*formula_result, q->number))) out.formula = formula;
  out.rest = Trim(text, Range{out.figure.end, part.end});
  return out;
}

Range StripCitations(const Page& page, Range value, std::vector<std::string>* citations) {
  Range v = Trim(page.text, value);
  if (!page.inline_citations) return v;
  std::vector<std::string> found;
  std::string_view text(page.text);
  while (!v.empty()) {
    size_t e = v.end;
    size_t b = e;
    while (b > v.begin && IsDigit(text[b - 1])) --b;
    if (b == e || e - b > 3 || b == v.begin || !SpaceAt(text, b - 1)) break;
    Range rest = Trim(text, Range{v.begin, b});
    if (rest.empty()) break;
    found.insert(found.begin(), std::string(text.substr(b, e - b)));
    v = rest;
  }
  if (citations) citations->insert(citations->end(), found.begin(), found.end());
  return v;
}

size_t ReadLabelledValue(Page& page, const EntityId& subject, const std::string& subject_kind,
                         const LabelHit& label, Range value, const Emit& emit) {
  if (label.also != nullptr) {
    const std::string_view whole_text(page.text);
    LabelHit first = label;
    first.also = nullptr;
    LabelHit second = first;
    second.def = label.also;
    // Where the cell holds more than one figure ("4.5 PFLOPS / 2.25
    // PFLOPS"), read as one figure for both labels the second format took
    // the first's. Two figures split by '/' or '|', with no sparsity mark
    // to say they are dense and sparse, are the labels' in order; more, or
    // marked, are the first label's alone.
    const Range whole = Trim(whole_text, value);
    std::vector<size_t> splits;
    bool more_figures = false;
    size_t ratio_at = whole.end;  // where a ratio after the figures begins
    for (size_t i = whole.begin; i < whole.end; ++i) {
      const char c = whole_text[i];
      if (c != '/' && c != '|' && c != ',' && c != '(') continue;
      size_t next = i + 1;
      while (next < whole.end && SpaceAt(whole_text, next)) ++next;
      if (next >= whole.end || !(IsDigit(whole_text[next]) || whole_text[next] == '$')) continue;
      if (c == ',' && i > whole.begin && IsDigit(whole_text[i - 1])) continue;  // "1,440"
      if (c == ',' || c == '(') {
        // "5 / 2.5 PFLOPS, 2x over MI300X": a ratio, no figure.
        size_t end = next;
        while (end < whole.end && (IsDigit(whole_text[end]) || whole_text[end] == '.')) ++end;
        const bool times_sign = whole_text.substr(end, kTimes.size()) == kTimes;
        const bool letter_x = end < whole.end && whole_text[end] == 'x' && (end + 1 >= whole.end || !IsWordByte(whole_text[end + 1]));
        if (end > next && (times_sign || letter_x)) {
          ratio_at = std::min(ratio_at, i);
          continue;
        }
      }
      if (c == '/' || c == '|') splits.push_back(i);
      else more_figures = true;
    }
    const bool marked = label.sparse_then_dense || label.extra.count(qualifier::kSparsity) > 0 ||
                        page.View(whole).find('*') != std::string_view::npos;
    if (splits.size() == 1 && !more_figures && !marked) {
      // "4.5 / 2.25 PFLOPS": a bare first number takes the second's unit.
      const Range before_split = Trim(whole_text, Range{whole.begin, splits[0]});
      const std::optional<NumberToken> bare = NumberAt(whole_text, before_split.begin, before_split.end);
      if (bare && bare->range.end == before_split.end) {
        LabelHit borrowing = first;
        borrowing.unit_after_next_figure = true;
        const Range figures = Trim(whole_text, Range{whole.begin, ratio_at});
        const size_t read = ReadLabelledValue(page, subject, subject_kind, borrowing, figures, emit);
        return read + ReadLabelledValue(page, subject, subject_kind, second, Range{splits[0] + 1, figures.end}, emit);
      }
      const size_t read = ReadLabelledValue(page, subject, subject_kind, first, Range{whole.begin, splits[0]}, emit);
      return read + ReadLabelledValue(page, subject, subject_kind, second, Range{splits[0] + 1, whole.end}, emit);
    }
    size_t read = ReadLabelledValue(page, subject, subject_kind, first, value, emit);
    if (read == 0) return 0;  // its warning said why, once
    if (!splits.empty() || more_figures) {
      if (!marked) {
        page.Warn(label.range.begin, "'" + page.Str(label.range) + "' gives several figures for two formats; read for the first only");
        return read;
      }
    }
    return read + ReadLabelledValue(page, subject, subject_kind, second, value, emit);
  }
  std::string_view text(page.text);
  std::vector<std::string> cites;
  Range v = StripCitations(page, Trim(text, value), &cites);
  std::string label_text = page.Str(label.range);
  if (v.empty()) {
    page.Warn(label.range.begin, "label '" + label_text + "' has no value");
    return 0;
  }
  std::string predicate = label.def->predicate;
  Qualifiers q = label.def->qualifiers;
  const PredicateDef* p = page.Predicate(predicate);
  if (p == nullptr) {
    if (const AttributeDef* a = page.schema.FindAttribute(predicate)) {
      predicate = a->predicate;
      MergeQualifiers(q, a->qualifiers);
      p = page.Predicate(predicate);
    }
  }
  if (p == nullptr) {
    page.Warn(label.range.begin, "label '" + label_text + "' maps to unknown predicate '" + predicate + "'");
    return 0;
  }
  if (!Page::Applies(*p, subject_kind)) {
    page.Warn(label.range.begin,
              "label '" + label_text + "' (" + predicate + ") does not apply to a " + subject_kind);
    return 0;
  }
  MergeQualifiers(q, label.extra);
  // "Pod compute", "Platform (8 GPUs)", "Peak compute per pod": a label of
  // a system's total, read as one chip's figure before.
  if (!q.count(qualifier::kScope) && p->type == ValueKind::kQuantity) MergeQualifiers(q, LabelScope(page, label.range));
  std::string_view sv = text.substr(v.begin, v.size());
  size_t before = page.facts().size();

  Draft d;
  d.subject = subject;
  d.predicate = predicate;
  d.qualifiers = q;
  d.citations = cites;

  if (page.schema.SaysNotPublished(std::string(sv))) {
    d.value = Value::NotPublished(std::string(sv));
    d.span = v;
    page.Add(std::move(d), emit);
    return page.facts().size() - before;
  }
  if (StartsWithNoValue(sv)) {
    page.Warn(v.begin, "'" + label_text + "' states no value ('" + Quoted(sv, 40) +
                           "'); no claim made of it");
    return 0;
  }

  switch (p->type) {
    case ValueKind::kQuantity: {
      std::optional<QuantityRead> r = ReadQuantity(page, v, p->dimension);
      // "| BF16 TFLOPS | 2,250 |": a bare number, in the unit its label names.
      if (std::optional<NumberToken> n = NumberAt(text, v.begin, v.end); !r && label.unit != nullptr && n && n->range.end == v.end) {
        d.value = Value::Quantity(n->value * label.unit->factor, label.unit->dimension,
                                  std::string(sv) + " " + label.unit->spelling);
        d.span = v;
        page.Add(std::move(d), emit);
        return page.facts().size() - before;
      }
      // "1,440 | 1,080 PFLOPS" in a row whose footnote says its figures are
      // sparse then dense, "1,979 / 3,958 TFLOPS*" on a page whose footnote
      // says "* With sparsity" (dense, then sparse): the unit written once,
      // after the second. Only for throughput, and only where the sparse
      // figure is not the smaller: "3,958 | 3,341 TFLOPS*" are two variants'
      // sparse figures, and "8 | 3,958" no pair at all.
      std::string borrowed_unit;
      if (std::optional<NumberToken> n = NumberAt(text, v.begin, v.end); !r && n) {
        const Range after = Trim(text, Range{n->range.end, v.end});
        std::optional<QuantityRead> second;
        if (!after.empty() && (text[after.begin] == '|' || text[after.begin] == '/')) {
          second = ReadQuantity(page, Trim(text, Range{after.begin + 1, after.end}), p->dimension);
        }
        std::optional<NumberToken> second_number;
        if (second) second_number = NumberAt(text, second->figure.begin, second->figure.end);
        const bool sparse_then_dense = label.sparse_then_dense && second && n->value >= second->number;
        const bool dense_then_sparse = !label.sparse_then_dense && second &&
                                       page.MarkedSparse(second->figure.end) && second->number >= n->value;
        if (second_number && second->number != 0 && second_number->value == second->number &&
            p->dimension == "ops_per_second" && (sparse_then_dense || dense_then_sparse || label.unit_after_next_figure)) {
          QuantityRead first;
          first.figure = n->range;
          first.number = n->value;
          first.canonical = n->value * (second->canonical / second->number);
          first.dimension = second->dimension;
          first.qualifiers = second->qualifiers;
          first.rest = Range{n->range.end, v.end};
          borrowed_unit = " " + page.Str(Trim(text, Range{second_number->range.end, second->figure.end}));
          r = std::move(first);
        }
      }
      if (!r) {
        // "600–700 W", "600-700 W": said as what it is.
        size_t i = 0;
        while (i < sv.size() && (IsDigit(sv[i]) || sv[i] == '.' || sv[i] == ',')) ++i;
        const bool range = i > 0 && i < sv.size() &&
                           (sv[i] == '-' || sv.substr(i, 3) == "\xE2\x80\x93" || sv.substr(i, 3) == "\xE2\x80\x94");
        if (range) {
          page.Warn(v.begin, "a range ('" + Quoted(sv, 40) + "'): no claim made of it");
          return 0;
        }
        page.Warn(v.begin, "no " + p->dimension + " figure for '" + label_text + "' in '" +
                               Quoted(sv, 80) + "'");
        return 0;
      }
      // "989.5 TFLOPS (1,979 TFLOPS with sparsity)": the parenthesis is a
      // second figure with its own qualifiers. Read as the first figure's,
      // "with sparsity" made the dense figure sparse and lost the sparse one.
      Range own_rest = r->rest;
      std::optional<QuantityRead> aside;
      Qualifiers aside_qualifiers;
      if (Range rest = Trim(text, r->rest); !rest.empty() && text[rest.begin] == '(') {
        const size_t close = text.find(')', rest.begin);
        if (close != std::string_view::npos && close < rest.end) {
          const Range inner = Trim(text, Range{rest.begin + 1, close});
          aside = ReadQuantity(page, inner, p->dimension);
          if (aside) {
            own_rest = Range{close + 1, rest.end};
            aside_qualifiers = aside->qualifiers;
            MergeQualifiers(aside_qualifiers, QualifiersIn(page, aside->rest));
          }
        }
      }
      const Qualifiers label_qualifiers = d.qualifiers;
      MergeQualifiers(d.qualifiers, r->qualifiers);
      MergeQualifiers(d.qualifiers, QualifiersIn(page, own_rest));
      if (page.MarkedSparse(r->figure.end)) d.qualifiers[qualifier::kSparsity] = "sparse";
      std::optional<Draft> sparse_aside;
      if (aside && aside_qualifiers.count(qualifier::kSparsity) && d.qualifiers.count(qualifier::kSparsity) == 0) {
        sparse_aside = d;
        sparse_aside->qualifiers = label_qualifiers;
        MergeQualifiers(sparse_aside->qualifiers, aside_qualifiers);
        sparse_aside->value = Value::Quantity(aside->canonical, aside->dimension, page.Str(aside->figure));
        sparse_aside->span = aside->figure;
      }
      d.value = Value::Quantity(r->canonical, r->dimension, page.Str(r->figure) + borrowed_unit);
      // Its excerpt reaches the unit it borrowed: "1,440 | 1,080 PFLOPS".
      d.span = borrowed_unit.empty() ? r->figure : Range{r->figure.begin, v.end};
      if (!r->formula.empty()) {
        d.derivation = Derivation::kStatedDerived;
        d.formula = r->formula;
      }
      page.Add(d, emit);
      if (sparse_aside) page.Add(std::move(*sparse_aside), emit);
      // A second figure after '|' or '/', with its own sparsity: "1,440 PFLOPS
      // | 1,080 PFLOPS" in a row whose footnote says "With sparsity | without
      // sparsity" (the dense one after the sparse); "156 TFLOPS | 312
      // TFLOPS*", "312 / 624 TFLOPS*" on a page whose footnote says "* With
      // sparsity" (the sparse one after the dense).
      const auto second_figure = [&](const char* sparsity, bool needs_mark) {
        const Range after = Trim(text, r->rest);
        if (after.empty() || (text[after.begin] != '|' && text[after.begin] != '/')) return;
        std::optional<QuantityRead> q = ReadQuantity(page, Trim(text, Range{after.begin + 1, after.end}), p->dimension);
        if (!q || (needs_mark && !page.MarkedSparse(q->figure.end))) return;
        Draft second = d;
        second.qualifiers[qualifier::kSparsity] = sparsity;
        second.value = Value::Quantity(q->canonical, q->dimension, page.Str(q->figure));
        second.span = q->figure;
        second.derivation = Derivation::kStated;
        second.formula.clear();
        page.Add(std::move(second), emit);
      };
      if (label.sparse_then_dense) {
        second_figure("dense", false);
      } else if (!d.qualifiers.count(qualifier::kSparsity)) {
        second_figure("sparse", true);
      }
      // What else the value names: "32 GB HBM2e" also says the memory type.
      for (const std::string& vp : page.vocabulary_predicates()) {
        const PredicateDef* tp = page.Predicate(vp);
        if (tp == nullptr || !Page::Applies(*tp, subject_kind)) continue;
        for (const auto& [range, word] : page.VocabularyIn(r->rest, vp)) {
          Draft t;
          t.subject = subject;
          t.predicate = vp;
          t.value = Value::Text(word);
          t.span = range;
          t.citations = cites;
          page.Add(std::move(t), emit);
        }
      }
      break;
    }
    case ValueKind::kDate: {
      size_t pos = v.begin;
      std::optional<DateToken> date = DateAt(text, pos, v.end, true);
      if (!date) {
        page.Warn(v.begin, "no date for '" + label_text + "' in '" + Quoted(sv, 80) + "'");
        return 0;
      }
      d.value = Value::OfDate(date->date, page.Str(date->range));
      d.span = date->range;
      Range rest = Trim(text, Range{date->range.end, v.end});
      if (!rest.empty()) d.note = StripParens(page.View(rest));
      page.Add(std::move(d), emit);
      break;
    }
    case ValueKind::kEntity: {
      // "Process: 6nm": a feature size, not a foundry's node. Resolved as a
      // node it matched "TSMC 6nm" by dropping the vendor, a foundry guessed.
      if (const PredicateDef* size = page.Predicate("process_size");
          size != nullptr && p->object_kind == "process_node" && Page::Applies(*size, subject_kind)) {
        std::optional<QuantityParse> q = page.schema.ParseQuantity(std::string(sv), size->dimension);
        if (q && !q->unit.empty() && q->consumed == sv.size()) {
          d.predicate = size->name;
          d.value = Value::Quantity(q->canonical, q->dimension, std::string(sv));
          d.span = v;
          page.Add(std::move(d), emit);
          break;
        }
      }
      // "Foundry: Samsung / TSMC" names two, each as much as the other (only
      // a node's "N3P / N6" puts the compute dies' first).
      if (p->object_kind != "process_node" && EntityNameRange(text, v).end < v.end &&
          text.substr(EntityNameRange(text, v).end, 3) == " / ") {
        page.Warn(v.begin, "'" + label_text + "' names two ('" + Quoted(sv, 40) + "'); no claim made of it");
        return 0;
      }
      Range name = EntityNameRange(text, v);
      if (name.empty() || StartsWithNoValue(page.View(name))) {
        page.Warn(v.begin, "'" + label_text + "' names no " + p->object_kind + " ('" +
                               Quoted(sv, 40) + "'); no claim made of it");
        return 0;
      }
      std::optional<EntityId> id = page.Resolve(page.Str(name), p->object_kind, name.begin);
      if (!id) return 0;
      d.value = Value::Entity(*id, page.Str(name));
      d.span = name;
      page.Add(std::move(d), emit);
      break;
    }
    case ValueKind::kText: {
      // "Regions: Washington, D.C., Tokyo, and Frankfurt": a value of each
      // place, for a predicate that has several side by side. Stored as one
      // text, a query for Tokyo found nothing.
      if (p->many_values) {
        const std::vector<Range> items = ListItems(text, v.begin, v.end);
        Range rest = items.empty() ? v : Trim(text, Range{items.back().end, v.end});
        while (!rest.empty() && (text[rest.end - 1] == '.' || text[rest.end - 1] == ';')) --rest.end;
        if (items.size() > 1 && rest.empty()) {
          for (const Range& item : items) {
            for (std::string& name : ListItemNames(page, item)) {
              Draft each = d;
              each.value = Value::Text(std::move(name));
              each.span = item;
              page.Add(std::move(each), emit);
            }
          }
          break;
        }
      }
      auto [main, note] = SplitGlued(text, v);
      d.value = Value::Text(page.Str(main));
      d.span = main;
      if (!note.empty()) d.note = page.Str(Trim(text, note));
      page.Add(std::move(d), emit);
      break;
    }
    case ValueKind::kBool: {
      auto w = NextWord(text, v.begin, v.end);
      std::string word = w ? AsciiLower(text.substr(w->begin, w->size())) : "";
      bool b = false;
      if (word == "yes" || word == "true") {
        b = true;
      } else if (word != "no" && word != "false") {
        page.Warn(v.begin, "'" + label_text + "' is not yes or no: '" + Quoted(sv, 40) + "'");
        return 0;
      }
      d.value = Value::Bool(b, std::string(sv));
      d.span = v;
      page.Add(std::move(d), emit);
      break;
    }
    case ValueKind::kNotPublished:
      break;
  }
  return page.facts().size() - before;
}

namespace {

// "- text": the range after the dash, or nullopt.
std::optional<Range> BulletContent(const Page& page, size_t index) {
  Range r = Trim(page.text, page.lines()[index].range);
  std::string_view v = page.View(r);
  if (v.size() < 2 || v[0] != '-' || !SpaceAt(v, 1)) return std::nullopt;
  return Trim(page.text, Range{r.begin + 1, r.end});
}

// Short, unpunctuated text that reads like a field name.
bool LooksLikeLabel(std::string_view s) {
  if (s.empty() || s.size() > 40) return false;
  size_t words = 1;
  for (char c : s) words += c == ' ';
  if (words > 5) return false;
  char last = s.back();
  return last != '.' && last != '!' && last != ',';
}

}  // namespace

// "Memory: 95 GB" with a label the schema knows: a line that is its own
// label and value, not half of a pair.
bool IsKnownLabelValue(Page& page, Range r) {
  std::string_view v = page.View(r);
  const size_t colon = v.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= v.size()) return false;
  if (v[colon + 1] == '/') return false;  // a URL
  Range label = Trim(page.text, Range{r.begin, r.begin + colon});
  while (label.begin < label.end && page.text[label.begin] == '*') ++label.begin;  // "**Memory:** 96 GB"
  return LooksLikeLabel(page.View(label)) && page.LookupLabel(label).has_value();
}

void ReadPairs(Page& page, size_t first, size_t end, const Emit& emit) {
  end = std::min(end, page.lines().size());
  for (size_t i = first; i < end;) {
    if (page.Claimed(i) || page.LineTooLong(i)) {
      ++i;
      continue;
    }
    std::optional<Range> label = BulletContent(page, i);
    if (!label || i + 1 >= end || page.Claimed(i + 1)) {
      ++i;
      continue;
    }
    std::optional<Range> value = BulletContent(page, i + 1);
    if (!value) {
      ++i;
      continue;
    }
    // "- Memory: 95 GB" items are read as "Label: value" lines
    // (ReadLabelValueLines); read as pairs, every other one was an
    // "unknown label" and the list was lost. So is a line with a label we do
    // not know and its value ("**Context length:** 128K": the warning
    // named the value as part of the label).
    const std::string_view label_line = page.View(*label);
    const size_t colon = label_line.find(':');
    const bool holds_its_value = colon != std::string_view::npos && colon > 0 &&
                                 !Trim(page.text, Range{label->begin + colon + 1, label->end}).empty() &&
                                 label_line.substr(colon + 1, 2) != "//";
    if (holds_its_value || IsKnownLabelValue(page, *label) || IsKnownLabelValue(page, *value)) {
      ++i;
      continue;
    }
    if (std::optional<LabelHit> hit = page.LookupLabel(*label)) {
      ReadLabelledValue(page, page.subject(), page.subject_kind(), *hit, *value, emit);
      page.ClaimLines(i, i + 2);
      i += 2;
      continue;
    }
    // A label we do not know followed by what looks like its value.
    if (LooksLikeLabel(page.View(*label)) && !page.LookupLabel(*value)) {
      page.Warn(label->begin, "unknown label '" + page.Str(*label) + "'");
      page.ClaimLines(i, i + 2);
      i += 2;
      continue;
    }
    ++i;
  }
}

namespace {

// "FP8 Tensor Core 1": a known label and a footnote's number after it.
std::optional<LabelHit> FootnotedLabel(const Page& page, Range label) {
  const std::string_view mark = Page::FootnoteMarkOf(page.View(label));
  if (mark.empty()) return std::nullopt;
  return page.LookupLabel(Range{label.begin, label.end - mark.size() - 1});
}

}  // namespace

// "Label: value" lines no template claimed.
void ReadLabelValueLines(Page& page, const Emit& emit, size_t first, size_t end) {
  std::string_view text(page.text);
  end = std::min(end, page.lines().size());
  for (size_t i = first; i < end; ++i) {
    if (page.Claimed(i) || page.LineTooLong(i)) continue;
    Range r = Trim(text, page.lines()[i].range);
    std::string_view v = page.View(r);
    if (v.size() >= 2 && (v[0] == '-' || v[0] == '*') && SpaceAt(v, 1))
      r = Trim(text, Range{r.begin + 1, r.end});
    v = page.View(r);
    size_t colon = v.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    if (colon + 2 < v.size() && v[colon + 1] == '/' && v[colon + 2] == '/') continue;  // a URL
    if (colon + 1 < v.size() && IsDigit(v[colon - 1]) && IsDigit(v[colon + 1])) continue;  // "2:4 sparsity", "16:9"
    Range label{r.begin, r.begin + colon};
    Range value{r.begin + colon + 1, r.end};
    // Markdown's bold label, "**Memory:** 96 GB" (GitHub and Hugging Face pages).
    while (label.begin < label.end && text[label.begin] == '*') ++label.begin;
    if (label.begin > r.begin) {
      size_t b = value.begin;
      while (b < value.end && text[b] == '*') ++b;
      value.begin = b;
    }
    if (!LooksLikeLabel(page.View(Trim(text, label)))) continue;
    if (std::optional<LabelHit> hit = page.LookupLabel(label)) {
      if (page.subject().empty()) {
        // Appended rather than "'" + label: GCC 12 warns falsely (-Wrestrict) on a literal + string.
        std::string warning(1, '\'');
        warning.append(page.Str(label)).append("' but the page names no subject");
        page.Warn(r.begin, warning);
      } else {
        ReadLabelledValue(page, page.subject(), page.subject_kind(), *hit, value, emit);
      }
      page.Claim(i);
    } else if (std::optional<LabelHit> marked = FootnotedLabel(page, Trim(text, label))) {
      // "FP8 Tensor Core 1: 1,979 / 3,958 TFLOPS" where footnote 1 says
      // something LookupLabel does not read ("Without sparsity / with
      // sparsity"): left unread, not to the sentence reader, which took the
      // sparse figure as dense.
      page.Warn(r.begin, "'" + page.Str(Trim(text, label)) +
                             "': its footnote says what the figures are in words chipkg does not read; no claim made of it");
      page.Claim(i);
    } else if (!Trim(text, value).empty() && Trim(text, label).size() <= 24) {
      page.Warn(r.begin, "unknown label '" + page.Str(Trim(text, label)) + "'");
      // "Tensix Engine FP8 2: 650 TFLOPS" under "2. With sparsity": read as
      // prose, the sparse figure was a dense one. (Not "Inferentia 2: 32
      // GB" above a numbered list: that is no footnote about sparsity.)
      if (const std::string_view mark = Page::FootnoteMarkOf(page.View(Trim(text, label))); !mark.empty()) {
        const std::optional<std::string> meaning = page.FootnoteMeaning(mark);
        if (meaning && meaning->find("sparsity") != std::string::npos) page.Claim(i);
      }
    }
  }
}

}  // namespace chipkg::extract_internal
