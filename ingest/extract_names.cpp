// Product names where a page writes them without the schema knowing them: a
// model designation ("H100", "MI300X", "Gaudi 3", "TPU v5p") and the brand
// words before it. Headlines are written for people, not for a catalogue
// ("AMD launches Instinct MI300X accelerator to take on Nvidia's H100"), and
// taken whole they named a chip after the whole sentence, which matched no
// entity a dataset had made for the same chip.

#include <algorithm>
#include <array>

#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

namespace {

struct Word {
  Range range;               // without surrounding punctuation or a trademark sign
  bool break_after = false;  // a comma, colon, dash, bar or full stop follows
  bool possessive = false;   // "Nvidia's": what follows is the brand's, not part of its name
};

bool EndsWith(std::string_view v, std::string_view tail) {
  return v.size() >= tail.size() && v.substr(v.size() - tail.size()) == tail;
}

constexpr std::array<std::string_view, 6> kTrademarks = {"(TM)", "(tm)", "(R)", "(r)", "\xE2\x84\xA2", "\xC2\xAE"};

std::vector<Word> WordsOf(std::string_view text, Range r) {
  std::vector<Word> words;
  size_t i = r.begin;
  while (i < r.end) {
    if (size_t sp = SpaceAt(text, i); sp > 0) {
      i += sp;
      continue;
    }
    size_t e = i;
    while (e < r.end && SpaceAt(text, e) == 0) ++e;
    const std::string_view raw = text.substr(i, e - i);
    Word w{Range{i, e}};
    while (!w.range.empty() && (text[w.range.begin] == '(' || text[w.range.begin] == '"' ||
                                text[w.range.begin] == '[' || text[w.range.begin] == '\'')) {
      ++w.range.begin;
    }
    for (bool trimmed = true; trimmed && !w.range.empty();) {
      trimmed = false;
      const std::string_view v = text.substr(w.range.begin, w.range.size());
      for (std::string_view mark : kTrademarks) {
        if (EndsWith(v, mark)) {
          w.range.end -= mark.size();
          trimmed = true;
          break;
        }
      }
      if (trimmed) continue;
      if (EndsWith(v, "'s") || EndsWith(v, "\xE2\x80\x99s")) {
        w.range.end -= v.back() == 's' && v[v.size() - 2] == '\'' ? 2 : 4;
        w.possessive = true;
        trimmed = true;
        continue;
      }
      const char c = v.back();
      if (c == ',' || c == ':' || c == ';' || c == '|' || c == '.' || c == '!' || c == '?') {
        w.break_after = true;
        --w.range.end;
        trimmed = true;
      } else if (c == ')' || c == '"' || c == ']' || c == '\'') {
        --w.range.end;
        trimmed = true;
      }
    }
    const bool mark_alone =
        std::find(kTrademarks.begin(), kTrademarks.end(), raw) != kTrademarks.end();
    if (!w.range.empty() && std::any_of(text.begin() + w.range.begin, text.begin() + w.range.end,
                                        [](char c) { return IsWordByte(c); })) {
      words.push_back(w);
    } else if (!mark_alone && !words.empty()) {
      words.back().break_after = true;  // "-", "|", an en or em dash
    }
    i = e;
  }
  return words;
}

bool IsAllDigits(std::string_view v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), IsDigit);
}

// A word that is something else the schema knows: a number format ("FP16"),
// a memory type ("HBM3e"), a label.
bool SchemaWord(const Page& page, Range r) {
  const std::string_view v = page.View(r);
  if (page.FormatWord(v)) return true;
  for (const std::string& predicate : page.vocabulary_predicates()) {
    if (page.InVocabulary(predicate, v)) return true;
  }
  return page.LookupLabel(r).has_value();
}

// A designation a headline may name its product by: letters and digits in
// one word with a capital ("MI300X", "Inferentia2", "WSE-3") or a version
// ("v5p"). Not "PCIe Gen5".
bool HeadlineModelWord(const Page& page, Range r) {
  const std::string_view v = page.View(r);
  if (v.size() < 2 || v.size() > 24 || !IsAsciiAlpha(v[0])) return false;
  if (!std::any_of(v.begin(), v.end(), IsDigit)) return false;
  const bool version = (v[0] == 'v' || v[0] == 'V') && IsDigit(v[1]);
  if (!version && !std::any_of(v.begin(), v.end(), IsUpper)) return false;
  if (!std::all_of(v.begin(), v.end(), [](char c) { return IsWordByte(c) || c == '-' || c == '.' || c == '+'; })) {
    return false;
  }
  if (AsciiLower(v.substr(0, 3)) == "gen") return false;
  return !SchemaWord(page, r);
}

// A chip's model number in prose, in the shape vendors give them: one to four
// letters with a capital, two to four digits, at most three letters after
// ("H100", "MI300X", "GB200", "H100s"). Narrower than a headline's: prose
// names instances, cores and links too ("EC2", "NeuronCore-v2", "P5").
bool ChipModelWord(const Page& page, Range r) {
  const std::string_view v = page.View(r);
  size_t i = 0;
  while (i < v.size() && IsAsciiAlpha(v[i])) ++i;
  const size_t letters = i;
  while (i < v.size() && IsDigit(v[i])) ++i;
  const size_t digits = i - letters;
  while (i < v.size() && IsAsciiAlpha(v[i])) ++i;
  const size_t suffix = i - letters - digits;
  // A variant after a hyphen: "MLU370-X8", "MI300X-A".
  if (i + 1 < v.size() && v[i] == '-' && v.size() - i - 1 <= 3 &&
      std::all_of(v.begin() + static_cast<std::ptrdiff_t>(i) + 1, v.end(), [](char c) { return IsAsciiAlpha(c) || IsDigit(c); })) {
    i = v.size();
  }
  if (i != v.size() || letters < 1 || letters > 4 || digits < 2 || digits > 4 || suffix > 3) return false;
  if (!std::any_of(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(letters), IsUpper)) return false;
  return !SchemaWord(page, r);
}

bool IsYear(std::string_view v) {
  if (v.size() != 4 || !IsAllDigits(v)) return false;
  const int year = std::stoi(std::string(v));
  return year >= 1950 && year <= 2100;
}

// The number part of a designation after a name: "3" (Gaudi 3), "100"
// (Maia 100), "910B" (Ascend 910B), "4090"; not a year, not "80GB".
bool NumberDesignation(std::string_view v) {
  size_t digits = 0;
  while (digits < v.size() && IsDigit(v[digits])) ++digits;
  if (digits == 0 || digits > 4) return false;
  if (digits == v.size()) return !IsYear(v);
  return digits + 1 == v.size() && IsUpper(v.back());
}

// Words a headline writes before a product's name that are not part of it,
// in sentence case and in Title Case ("Nvidia Unveils The H200").
bool HeadlineFiller(std::string_view lower) {
  static constexpr std::string_view kWords[] = {
      "the",      "a",         "an",        "new",       "meet",     "inside",    "introducing", "announcing",
      "unveils",  "unveiled",  "unveiling", "launches",  "launched", "launching", "announces",   "announced",
      "introduces", "introduced", "debuts", "debuted",   "ships",    "shipping",  "reveals",     "revealed",
      "and",      "or",        "of",        "for",       "with",     "on",        "in",          "at",
      "to",       "vs",        "versus",    "from",      "how",      "why",       "what",        "review",
      "its",      "their",     "our",       "next-gen",  "next-generation"};
  return std::find(std::begin(kWords), std::end(kWords), lower) != std::end(kWords);
}

// Words a heading about one product adds to its name: "TPU v5e
// specifications", "Groq LPU at a glance".
bool AroundAProduct(std::string_view lower) {
  static constexpr std::string_view kWords[] = {"specifications", "specification", "specs",    "spec",  "key",
                                                "overview",       "details",       "features", "at",    "a",
                                                "glance",         "datasheet",     "the",      "chip",  "accelerator",
                                                "gpu",            "figures",       "facts"};
  return std::find(std::begin(kWords), std::end(kWords), lower) != std::end(kWords);
}

}  // namespace

std::optional<ProductName> ProductNameIn(const Page& page, Range headline, bool* compares, bool designated) {
  if (compares != nullptr) *compares = false;
  std::string_view text(page.text);
  const std::vector<Word> words = WordsOf(text, headline);
  const auto view = [&](size_t k) { return page.View(words[k].range); };
  // "MI300X vs H100: which to rent", "Gaudi 3 versus H100".
  for (size_t k = 1; k < words.size(); ++k) {
    const std::string w = AsciiLower(view(k));
    // "... B200, MI355X, Gaudi 3 and Trillium compared", "H100 vs H200".
    if (((w == "vs" || w == "versus") && k + 1 < words.size()) || w == "compared" || w == "comparison" ||
        w == "head-to-head" || w == "shootout") {
      if (compares != nullptr) *compares = true;
      return std::nullopt;
    }
  }
  // A chip the schema knows, as the headline writes it.
  for (const Mention& m : page.MentionsIn(headline)) {
    if (m.entity->kind == "chip") return ProductName{page.Str(m.range), m.range};
  }
  const auto joined = [&](size_t k) { return k > 0 && !words[k - 1].break_after && !words[k - 1].possessive; };
  for (size_t k = 0; k < words.size(); ++k) {
    size_t first = k;
    if (HeadlineModelWord(page, words[k].range)) {
      first = k;
    } else if (k > 0 && joined(k) && NumberDesignation(view(k)) && IsUpper(view(k - 1)[0]) &&
               std::all_of(view(k - 1).begin(), view(k - 1).end(), IsAsciiAlpha) &&
               !HeadlineFiller(AsciiLower(view(k - 1)))) {
      first = k - 1;  // "Gaudi 3", "Maia 100", "Ascend 910B", "RTX 4090"
    } else {
      continue;
    }
    size_t last = k;
    // Variants and second designations: "H100 SXM5", "GB200 NVL72", "A100 80GB PCIe".
    static constexpr std::string_view kVariants[] = {"SXM", "PCIe", "NVL", "OAM"};
    const auto memory_size = [&](std::string_view v) {
      std::optional<QuantityParse> q = page.schema.ParseQuantity(std::string(v));
      return q && q->dimension == "bytes" && q->consumed == v.size() && v.find(' ') == std::string_view::npos;
    };
    while (last + 1 < words.size() && joined(last + 1) &&
           (HeadlineModelWord(page, words[last + 1].range) || memory_size(view(last + 1)) ||
            std::find(std::begin(kVariants), std::end(kVariants), view(last + 1)) != std::end(kVariants))) {
      ++last;
    }
    // "B200, MI355X and Gaudi 3": a list of products names no one of them.
    if (words[last].break_after && last + 1 < words.size() && !words[last].possessive &&
        text[words[last].range.end] == ',' && HeadlineModelWord(page, words[last + 1].range)) {
      if (compares != nullptr) *compares = true;
      return std::nullopt;
    }
    // "H100 vs H200", "v5e and v5p": a comparison names no one product.
    if (last + 2 < words.size() && joined(last + 1)) {
      const std::string next = AsciiLower(view(last + 1));
      if ((next == "vs" || next == "versus" || next == "and" || next == "or" || next == "&") &&
          HeadlineModelWord(page, words[last + 2].range)) {
        if (compares != nullptr) *compares = true;
        return std::nullopt;
      }
    }
    // Brand and series words before it: "AMD Instinct MI325X", "Google TPU v5p".
    for (int taken = 0; first > 0 && joined(first) && taken < 3; ++taken) {
      const size_t j = first - 1;
      const std::string_view w = view(j);
      if (!IsUpper(w[0]) || HeadlineFiller(AsciiLower(w))) break;
      if (!std::all_of(w.begin(), w.end(), [](char c) { return IsWordByte(c) || c == '-'; })) break;
      first = j;
    }
    std::string name;
    for (size_t w = first; w <= last; ++w) {
      if (!name.empty()) name += ' ';
      name += view(w);
    }
    return ProductName{name, Range{words[first].range.begin, words[last].range.end}};
  }
  // No designation: the headline without what a page about a product adds
  // ("Groq LPU at a glance", "Acme Tensor Engine: specifications").
  if (designated) return std::nullopt;
  size_t end = words.size();
  while (end > 1 && AroundAProduct(AsciiLower(view(end - 1)))) --end;
  if (end == words.size() || AroundAProduct(AsciiLower(view(0)))) return std::nullopt;
  for (size_t k = 0; k < end; ++k) {
    // A name's words are capitalised: "Our next generation Meta Training and
    // Inference Accelerator" is a sentence, not a name.
    if ((k + 1 < end && words[k].break_after) || IsLower(view(k)[0])) return std::nullopt;
  }
  Range r{words[0].range.begin, words[end - 1].range.end};
  if (r.end < headline.end && text[r.end] == ')') ++r.end;  // "Groq LPU (GroqChip)"
  return ProductName{page.Str(r), r};
}

bool ReadsAsSentence(const Page& page, Range headline) {
  // Words a name is written with in lower case: "Meta Training and Inference Accelerator".
  static constexpr std::string_view kJoining[] = {"and", "or", "of", "for", "the", "a", "an", "with", "on", "in", "to", "by", "de"};
  // Words a sentence opens with, never a name: "Our next generation ...", "How the TPU ...".
  static constexpr std::string_view kOpening[] = {"our", "we", "how", "why", "what", "this", "these",
                                                  "introducing", "announcing", "meet", "inside"};
  const std::vector<Word> words = WordsOf(page.text, headline);
  for (size_t k = 0; k < words.size(); ++k) {
    const std::string_view v = page.View(words[k].range);
    const std::string lower = AsciiLower(v);
    if (k == 0 && std::find(std::begin(kOpening), std::end(kOpening), lower) != std::end(kOpening)) return true;
    // A word all in lower case; not a brand such as "d-Matrix" or "iPhone".
    const bool lower_case = IsLower(v[0]) && std::none_of(v.begin(), v.end(), IsUpper) && std::none_of(v.begin(), v.end(), IsDigit);
    if (lower_case && std::find(std::begin(kJoining), std::end(kJoining), lower) == std::end(kJoining)) return true;
  }
  return false;
}

bool NamesSubjectsModel(const Page& page, Range r) {
  for (const Word& w : WordsOf(page.text, r)) {
    const std::string_view v = page.View(w.range);
    // "the 910B": a designation of digits too, where it cannot be a plain count.
    const bool designation = HeadlineModelWord(page, w.range) || (NumberDesignation(v) && (v.size() >= 3 || IsUpper(v.back())));
    if (designation && page.NamedBySubject(v)) return true;
  }
  return false;
}

std::optional<ProductName> HeadingProduct(const Page& page, Range heading) {
  // A designation only: "Technical Specifications" is no product's name.
  std::optional<ProductName> product = ProductNameIn(page, heading, nullptr, true);
  if (!product) return std::nullopt;
  // "TPU v5e", "Cloud TPU v5p specifications"; not "Compared with the H100".
  for (const Word& w : WordsOf(page.text, heading)) {
    if (product->range.Contains(w.range)) continue;
    if (!AroundAProduct(AsciiLower(page.View(w.range)))) return std::nullopt;
  }
  return product;
}

std::vector<Range> OtherModelsIn(const Page& page, Range r, const std::vector<Range>& excluded) {
  std::vector<Range> found;
  std::string_view text(page.text);
  const std::vector<Word> words = WordsOf(text, r);
  for (size_t k = 0; k < words.size(); ++k) {
    const Range w = words[k].range;
    // An earlier one of the subject's line, named without a designation:
    // "the first-generation Gaudi, which had 32 GB" on the Gaudi 2's page.
    if (k > 0 && page.NamedBySubject(page.View(w)) && IsUpper(page.View(w)[0])) {
      static constexpr std::string_view kEarlier[] = {"first-generation", "original", "previous", "prior",
                                                      "older", "earlier", "previous-generation", "last-generation"};
      const std::string before = AsciiLower(page.View(words[k - 1].range));
      const bool designated_next = k + 1 < words.size() && !words[k].break_after &&
                                   page.NamedBySubject(page.View(Range{w.begin, words[k + 1].range.end}));
      if (!designated_next && std::find(std::begin(kEarlier), std::end(kEarlier), before) != std::end(kEarlier) &&
          std::none_of(excluded.begin(), excluded.end(), [&](const Range& x) { return x.Overlaps(w); })) {
        found.push_back(w);
        continue;
      }
    }
    // Another generation of the subject's own line: "the original Ascend 910"
    // on a page about the Ascend 910B, "MTIA v1" on one about MTIA v2.
    if (k > 0 && !words[k - 1].break_after && !words[k - 1].possessive) {
      const std::string_view number = page.View(w);
      const std::string_view name = page.View(words[k - 1].range);
      const bool designation = NumberDesignation(number) || ((number[0] == 'v' || number[0] == 'V') && number.size() > 1 &&
                                                              IsAllDigits(number.substr(1)));
      if (designation && !name.empty() && IsUpper(name[0]) && page.NamedBySubject(name)) {
        const Range both{words[k - 1].range.begin, w.end};
        if (!page.NamedBySubject(page.View(both)) &&
            std::none_of(excluded.begin(), excluded.end(), [&](const Range& x) { return x.Overlaps(both); })) {
          found.push_back(both);
          continue;
        }
      }
    }
    if (!ChipModelWord(page, w)) continue;
    const std::string_view v = page.View(w);
    if (page.NamedBySubject(v) || (v.back() == 's' && page.NamedBySubject(v.substr(0, v.size() - 1)))) continue;
    if (std::any_of(excluded.begin(), excluded.end(), [&](const Range& x) { return x.Overlaps(w); })) continue;
    // Named for its cores or its instances: a part or a rental, not a chip beside the page's.
    if (k + 1 < words.size()) {
      const std::string next = AsciiLower(page.View(words[k + 1].range));
      if (next.starts_with("core") || next.starts_with("instance")) continue;
    }
    found.push_back(w);
  }
  return found;
}

}  // namespace chipkg::extract_internal
