#include "ingest/html_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

#include "ingest/text_util.h"

namespace chipkg {
namespace {

bool StartsWithNoCase(std::string_view s, size_t at, std::string_view prefix) {
  if (s.size() - std::min(s.size(), at) < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != prefix[i]) return false;
  }
  return true;
}

// A code point as a browser shows it: U+FFFD for none (0, a surrogate, past U+10FFFF).
void AppendCodePoint(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  ingest_internal::AppendUtf8(out, cp);
}

// HTML 4's named character references (the W3C list, which browsers and
// every HTML5 parser read the same way), and &apos;, sorted by name for a
// binary search. A page names an accented maker (Soci&eacute;t&eacute;) or a
// sign (&ge;, mm&sup2;) with them; one left undecoded was cut at its ';' into
// a wrong claim. A name not here stays as written.
constexpr std::array<std::pair<std::string_view, uint32_t>, 253> kNamed = {{
    {"AElig", 0xC6}, {"Aacute", 0xC1}, {"Acirc", 0xC2}, {"Agrave", 0xC0}, {"Alpha", 0x391}, {"Aring", 0xC5},
    {"Atilde", 0xC3}, {"Auml", 0xC4}, {"Beta", 0x392}, {"Ccedil", 0xC7}, {"Chi", 0x3A7}, {"Dagger", 0x2021},
    {"Delta", 0x394}, {"ETH", 0xD0}, {"Eacute", 0xC9}, {"Ecirc", 0xCA}, {"Egrave", 0xC8}, {"Epsilon", 0x395},
    {"Eta", 0x397}, {"Euml", 0xCB}, {"Gamma", 0x393}, {"Iacute", 0xCD}, {"Icirc", 0xCE}, {"Igrave", 0xCC},
    {"Iota", 0x399}, {"Iuml", 0xCF}, {"Kappa", 0x39A}, {"Lambda", 0x39B}, {"Mu", 0x39C}, {"Ntilde", 0xD1},
    {"Nu", 0x39D}, {"OElig", 0x152}, {"Oacute", 0xD3}, {"Ocirc", 0xD4}, {"Ograve", 0xD2}, {"Omega", 0x3A9},
    {"Omicron", 0x39F}, {"Oslash", 0xD8}, {"Otilde", 0xD5}, {"Ouml", 0xD6}, {"Phi", 0x3A6}, {"Pi", 0x3A0},
    {"Prime", 0x2033}, {"Psi", 0x3A8}, {"Rho", 0x3A1}, {"Scaron", 0x160}, {"Sigma", 0x3A3}, {"THORN", 0xDE},
    {"Tau", 0x3A4}, {"Theta", 0x398}, {"Uacute", 0xDA}, {"Ucirc", 0xDB}, {"Ugrave", 0xD9}, {"Upsilon", 0x3A5},
    {"Uuml", 0xDC}, {"Xi", 0x39E}, {"Yacute", 0xDD}, {"Yuml", 0x178}, {"Zeta", 0x396}, {"aacute", 0xE1},
    {"acirc", 0xE2}, {"acute", 0xB4}, {"aelig", 0xE6}, {"agrave", 0xE0}, {"alefsym", 0x2135}, {"alpha", 0x3B1},
    {"amp", 0x26}, {"and", 0x2227}, {"ang", 0x2220}, {"apos", 0x27}, {"aring", 0xE5}, {"asymp", 0x2248},
    {"atilde", 0xE3}, {"auml", 0xE4}, {"bdquo", 0x201E}, {"beta", 0x3B2}, {"brvbar", 0xA6}, {"bull", 0x2022},
    {"cap", 0x2229}, {"ccedil", 0xE7}, {"cedil", 0xB8}, {"cent", 0xA2}, {"chi", 0x3C7}, {"circ", 0x2C6},
    {"clubs", 0x2663}, {"cong", 0x2245}, {"copy", 0xA9}, {"crarr", 0x21B5}, {"cup", 0x222A}, {"curren", 0xA4},
    {"dArr", 0x21D3}, {"dagger", 0x2020}, {"darr", 0x2193}, {"deg", 0xB0}, {"delta", 0x3B4}, {"diams", 0x2666},
    {"divide", 0xF7}, {"eacute", 0xE9}, {"ecirc", 0xEA}, {"egrave", 0xE8}, {"empty", 0x2205}, {"emsp", 0x2003},
    {"ensp", 0x2002}, {"epsilon", 0x3B5}, {"equiv", 0x2261}, {"eta", 0x3B7}, {"eth", 0xF0}, {"euml", 0xEB},
    {"euro", 0x20AC}, {"exist", 0x2203}, {"fnof", 0x192}, {"forall", 0x2200}, {"frac12", 0xBD}, {"frac14", 0xBC},
    {"frac34", 0xBE}, {"frasl", 0x2044}, {"gamma", 0x3B3}, {"ge", 0x2265}, {"gt", 0x3E}, {"hArr", 0x21D4},
    {"harr", 0x2194}, {"hearts", 0x2665}, {"hellip", 0x2026}, {"iacute", 0xED}, {"icirc", 0xEE}, {"iexcl", 0xA1},
    {"igrave", 0xEC}, {"image", 0x2111}, {"infin", 0x221E}, {"int", 0x222B}, {"iota", 0x3B9}, {"iquest", 0xBF},
    {"isin", 0x2208}, {"iuml", 0xEF}, {"kappa", 0x3BA}, {"lArr", 0x21D0}, {"lambda", 0x3BB}, {"lang", 0x2329},
    {"laquo", 0xAB}, {"larr", 0x2190}, {"lceil", 0x2308}, {"ldquo", 0x201C}, {"le", 0x2264}, {"lfloor", 0x230A},
    {"lowast", 0x2217}, {"loz", 0x25CA}, {"lrm", 0x200E}, {"lsaquo", 0x2039}, {"lsquo", 0x2018}, {"lt", 0x3C},
    {"macr", 0xAF}, {"mdash", 0x2014}, {"micro", 0xB5}, {"middot", 0xB7}, {"minus", 0x2212}, {"mu", 0x3BC},
    {"nabla", 0x2207}, {"nbsp", 0xA0}, {"ndash", 0x2013}, {"ne", 0x2260}, {"ni", 0x220B}, {"not", 0xAC},
    {"notin", 0x2209}, {"nsub", 0x2284}, {"ntilde", 0xF1}, {"nu", 0x3BD}, {"oacute", 0xF3}, {"ocirc", 0xF4},
    {"oelig", 0x153}, {"ograve", 0xF2}, {"oline", 0x203E}, {"omega", 0x3C9}, {"omicron", 0x3BF}, {"oplus", 0x2295},
    {"or", 0x2228}, {"ordf", 0xAA}, {"ordm", 0xBA}, {"oslash", 0xF8}, {"otilde", 0xF5}, {"otimes", 0x2297},
    {"ouml", 0xF6}, {"para", 0xB6}, {"part", 0x2202}, {"permil", 0x2030}, {"perp", 0x22A5}, {"phi", 0x3C6},
    {"pi", 0x3C0}, {"piv", 0x3D6}, {"plusmn", 0xB1}, {"pound", 0xA3}, {"prime", 0x2032}, {"prod", 0x220F},
    {"prop", 0x221D}, {"psi", 0x3C8}, {"quot", 0x22}, {"rArr", 0x21D2}, {"radic", 0x221A}, {"rang", 0x232A},
    {"raquo", 0xBB}, {"rarr", 0x2192}, {"rceil", 0x2309}, {"rdquo", 0x201D}, {"real", 0x211C}, {"reg", 0xAE},
    {"rfloor", 0x230B}, {"rho", 0x3C1}, {"rlm", 0x200F}, {"rsaquo", 0x203A}, {"rsquo", 0x2019}, {"sbquo", 0x201A},
    {"scaron", 0x161}, {"sdot", 0x22C5}, {"sect", 0xA7}, {"shy", 0xAD}, {"sigma", 0x3C3}, {"sigmaf", 0x3C2},
    {"sim", 0x223C}, {"spades", 0x2660}, {"sub", 0x2282}, {"sube", 0x2286}, {"sum", 0x2211}, {"sup", 0x2283},
    {"sup1", 0xB9}, {"sup2", 0xB2}, {"sup3", 0xB3}, {"supe", 0x2287}, {"szlig", 0xDF}, {"tau", 0x3C4},
    {"there4", 0x2234}, {"theta", 0x3B8}, {"thetasym", 0x3D1}, {"thinsp", 0x2009}, {"thorn", 0xFE}, {"tilde", 0x2DC},
    {"times", 0xD7}, {"trade", 0x2122}, {"uArr", 0x21D1}, {"uacute", 0xFA}, {"uarr", 0x2191}, {"ucirc", 0xFB},
    {"ugrave", 0xF9}, {"uml", 0xA8}, {"upsih", 0x3D2}, {"upsilon", 0x3C5}, {"uuml", 0xFC}, {"weierp", 0x2118},
    {"xi", 0x3BE}, {"yacute", 0xFD}, {"yen", 0xA5}, {"yuml", 0xFF}, {"zeta", 0x3B6}, {"zwj", 0x200D},
    {"zwnj", 0x200C},
}};
static_assert(std::is_sorted(kNamed.begin(), kNamed.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; }),
              "DecodeEntity searches kNamed by name");

// The entity at `at` ('&'): its text appended and the bytes it took, or 0
// (a bare '&', kept as it is).
size_t DecodeEntity(std::string_view html, size_t at, std::string& out) {
  const size_t semi = html.find(';', at);
  if (semi == std::string_view::npos || semi - at > 12) return 0;
  std::string_view name = html.substr(at + 1, semi - at - 1);
  if (name.size() >= 2 && name[0] == '#') {
    const bool hex = name[1] == 'x' || name[1] == 'X';
    std::string_view digits = name.substr(hex ? 2 : 1);
    if (digits.empty()) return 0;
    uint32_t cp = 0;
    for (char c : digits) {
      const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                    : hex && std::isxdigit(static_cast<unsigned char>(c))
                        ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                        : -1;
      if (d < 0) return 0;
      cp = std::min<uint32_t>(cp * (hex ? 16 : 10) + static_cast<uint32_t>(d), 0x110000);
    }
    AppendCodePoint(out, cp);
    return semi - at + 1;
  }
  const auto found = std::lower_bound(kNamed.begin(), kNamed.end(), name,
                                      [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (found == kNamed.end() || found->first != name) return 0;
  AppendCodePoint(out, found->second);
  return semi - at + 1;
}

bool IsOneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class Converter {
 public:
  explicit Converter(std::string_view html) : html_(html) {}
  std::optional<size_t> unclosed_comment_at() const { return unclosed_comment_at_; }

  std::string Run() {
    size_t i = 0;
    while (i < html_.size()) {
      const char c = html_[i];
      if (c == '<') {
        i = Tag(i);
      } else if (c == '&') {
        std::string decoded;
        const size_t used = DecodeEntity(html_, i, decoded);
        if (used == 0) {
          Text("&");
          ++i;
        } else {
          Text(decoded == "\xC2\xA0" ? " " : decoded, /*space_is_text=*/decoded == "\xC2\xA0");
          i += used;
        }
      } else {
        Text(std::string_view(&html_[i], 1));
        ++i;
      }
    }
    EndLine();
    while (!out_.empty() && out_.back() == '\n') out_.pop_back();
    return out_.empty() ? out_ : out_ + "\n";
  }

 private:
  // Text as a browser lays it out: a run of white space is one space, none
  // at a line's start; in <pre> as it is.
  void Text(std::string_view t, bool space_is_text = false) {
    for (char c : t) {
      const bool space = !space_is_text && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f');
      if (pre_ > 0) {
        if (c == '\r') continue;
        out_ += c;
        continue;
      }
      if (space) {
        space_ = true;
        continue;
      }
      if (space_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') out_ += ' ';
      space_ = false;
      // A bar inside a cell ("GPU Memory | Bandwidth", "1,440 | 1,080
      // PFLOPS") would split it in the text's "| a | b |" row, and move
      // every value after it into the next column's chip.
      out_ += cell_ > 0 && c == '|' ? '/' : c;
    }
  }

  void EndLine() {
    // A list item's mark stays with its text: "<li><p>TDP: 500 W" is one line.
    if (out_.ends_with("- ") && (out_.size() == 2 || out_[out_.size() - 3] == '\n')) return;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    if (!out_.empty() && out_.back() != '\n') out_ += '\n';
    space_ = false;
  }

  // The tag (or comment, doctype) at `at`; returns where the text goes on.
  size_t Tag(size_t at) {
    if (html_.compare(at, 4, "<!--") == 0) {
      const size_t end = html_.find("-->", at + 4);
      if (end == std::string_view::npos && html_.size() - at > kUnclosedCommentWorthSaying) {
        unclosed_comment_at_ = at;
      }
      return end == std::string_view::npos ? html_.size() : end + 3;
    }
    const bool closing = at + 1 < html_.size() && html_[at + 1] == '/';
    size_t p = at + (closing ? 2 : 1);
    std::string name;
    while (p < html_.size() && (std::isalnum(static_cast<unsigned char>(html_[p])) || html_[p] == '-')) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(html_[p])));
      ++p;
    }
    // A tag's name starts with a letter: "x < y" and "<700 W" are text.
    const size_t name_at = at + (closing ? 2 : 1);
    const bool letter = name_at < html_.size() && std::isalpha(static_cast<unsigned char>(html_[name_at]));
    if (!letter && !(at + 1 < html_.size() && (html_[at + 1] == '!' || html_[at + 1] == '?'))) {
      Text("<");
      return at + 1;
    }
    // The tag's end: the first '>' outside a quoted attribute value (a
    // quote opens a value only after '=': "alt=Acme's chip" is unquoted).
    char quote = 0, before = 0;
    while (p < html_.size() && (quote != 0 || html_[p] != '>')) {
      const char c = html_[p];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if ((c == '"' || c == '\'') && before == '=') {
        quote = c;
      }
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') before = c;
      ++p;
    }
    const size_t after = std::min(html_.size(), p + 1);
    if (name.empty()) return after;  // <!doctype ...>, <?xml ...?>
    const bool self_closing = p > at && p < html_.size() && html_[p - 1] == '/';
    // What a reader never sees, left out up to the closing tag (the <head>
    // is not: its end tag may be left out, and it holds no text but these
    // and the <title>); and a site's navigation, which is no part of the
    // document: a breadcrumb before a page's first line ("Home > Chips")
    // was taken for the chip the page is about.
    if (!closing && !self_closing &&
        IsOneOf(name, {"script", "style", "noscript", "template", "svg", "iframe", "title", "nav"})) {
      // Left out with what they hold, up to their closing tag.
      for (size_t q = after; (q = html_.find("</", q)) != std::string_view::npos; q += 2) {
        if (StartsWithNoCase(html_, q + 2, name)) {
          const size_t gt = html_.find('>', q);
          return gt == std::string_view::npos ? html_.size() : gt + 1;
        }
      }
      return html_.size();
    }
    Element(name, closing);
    return after;
  }

  void Element(const std::string& name, bool closing) {
    if (name.size() == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6') {
      EndLine();
      if (!closing && cell_ == 0) out_ += std::string(static_cast<size_t>(name[1] - '0'), '#') + " ";
      return;
    }
    if (name == "tr") {
      if (closing) {
        EndRow();
      } else {
        EndRow();
        EndLine();
        in_row_ = true;
      }
      return;
    }
    if (name == "td" || name == "th") {
      if (!closing) {
        if (!in_row_) {  // a cell outside any <tr>
          EndLine();
          in_row_ = true;
        }
        while (!out_.empty() && out_.back() == ' ') out_.pop_back();
        out_ += cells_ == 0 ? "| " : " | ";
        space_ = false;
        ++cells_;
        ++cell_;
      } else if (cell_ > 0) {
        --cell_;
      }
      return;
    }
    if (name == "table") {
      EndRow();
      EndLine();
      return;
    }
    if (cell_ > 0 && IsOneOf(name, {"br", "p", "div", "li", "ul", "ol", "dl", "dt", "dd"})) {
      space_ = true;  // a row is one line: a break inside a cell is a space
      return;
    }
    if (name == "pre") {
      EndLine();
      pre_ += closing ? (pre_ > 0 ? -1 : 0) : 1;
      return;
    }
    // A definition list's terms and definitions are items, as a spec
    // sheet's "- TDP" / "- 500 W" lines are in the pages' text.
    if (name == "li" || name == "dt" || name == "dd") {
      EndLine();
      if (!closing) out_ += "- ";
      return;
    }
    if (name == "sup" && !closing) {
      // A footnote mark: "chip<sup>4</sup>" reads "chip 4", as the pages'
      // text has it; but a unit's power, "mm<sup>2</sup>", reads "mm2".
      static constexpr std::string_view kLengths[] = {"mm", "cm", "nm", "um", "\xC2\xB5m", "km", "m", "in", "ft"};
      const bool power = std::any_of(std::begin(kLengths), std::end(kLengths), [&](std::string_view u) {
        return out_.ends_with(u) && (out_.size() == u.size() || !std::isalpha(static_cast<unsigned char>(
                                                                    out_[out_.size() - u.size() - 1])));
      });
      if (!power) space_ = true;
      return;
    }
    if (IsOneOf(name, {"br", "p", "div", "section", "article", "header", "footer", "nav", "main", "aside", "ul",
                       "ol", "dl", "dt", "dd", "blockquote", "figure", "figcaption", "form", "hr", "address",
                       "fieldset", "details", "summary", "caption", "title", "body", "html"})) {
      EndLine();
    }
  }

  void EndRow() {
    if (!in_row_) return;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    if (cells_ > 0) out_ += " |\n|---|";
    EndLine();
    in_row_ = false;
    cells_ = 0;
    cell_ = 0;
  }

  // A comment left open within the last few bytes hides nothing of note (a
  // page cut short in its footer).
  static constexpr size_t kUnclosedCommentWorthSaying = 64;

  std::string_view html_;
  std::optional<size_t> unclosed_comment_at_;
  std::string out_;
  bool space_ = false;
  int pre_ = 0;
  bool in_row_ = false;
  int cells_ = 0;  // of the row being written
  int cell_ = 0;   // open cells
};

}  // namespace

bool LooksLikeHtml(std::string_view content_type, std::string_view body) {
  const size_t semi = content_type.find(';');
  std::string type(content_type.substr(0, semi));
  type.erase(std::remove_if(type.begin(), type.end(), [](unsigned char c) { return std::isspace(c); }), type.end());
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  if (type == "text/html" || type == "application/xhtml+xml") return true;
  if (!type.empty() && type != "text/plain" && type != "application/octet-stream") return false;
  size_t at = body.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (at < body.size() && std::isspace(static_cast<unsigned char>(body[at]))) ++at;
  return StartsWithNoCase(body, at, "<!doctype html") || StartsWithNoCase(body, at, "<html");
}

std::string HtmlToText(std::string_view html, std::string* warning) {
  Converter converter(html);
  std::string text = converter.Run();
  if (warning != nullptr) {
    warning->clear();
    if (const std::optional<size_t> at = converter.unclosed_comment_at()) {
      // (Line numbers of the markup, which is not stored: what is stored is the text.)
      const size_t line = 1 + static_cast<size_t>(std::count(html.begin(), html.begin() + static_cast<long>(*at), '\n'));
      *warning = "an HTML comment opened on line " + std::to_string(line) + " of the markup is never closed: the " +
                 std::to_string(html.size() - *at) + " bytes after it are part of it, and not read (as a browser "
                 "does not show them)";
    }
  }
  return text;
}

}  // namespace chipkg
