#include "ingest/html_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
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

// The named entities spec and press pages use; another name stays as written.
constexpr std::array<std::pair<std::string_view, uint32_t>, 26> kNamed = {{
    {"amp", '&'},      {"lt", '<'},        {"gt", '>'},       {"quot", '"'},     {"apos", '\''},
    {"nbsp", 0xA0},    {"ndash", 0x2013},  {"mdash", 0x2014}, {"middot", 0xB7},  {"bull", 0x2022},
    {"lsquo", 0x2018}, {"rsquo", 0x2019},  {"ldquo", 0x201C}, {"rdquo", 0x201D}, {"hellip", 0x2026},
    {"times", 0xD7},   {"divide", 0xF7},   {"deg", 0xB0},     {"micro", 0xB5},   {"plusmn", 0xB1},
    {"copy", 0xA9},    {"reg", 0xAE},      {"trade", 0x2122}, {"euro", 0x20AC},  {"minus", 0x2212},
    {"thinsp", 0x2009},
}};

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
  for (const auto& [known, cp] : kNamed) {
    if (name == known) {
      AppendCodePoint(out, cp);
      return semi - at + 1;
    }
  }
  return 0;
}

bool IsOneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class Converter {
 public:
  explicit Converter(std::string_view html) : html_(html) {}

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
      out_ += c;
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
    // and the <title>).
    if (!closing && !self_closing &&
        IsOneOf(name, {"script", "style", "noscript", "template", "svg", "iframe", "title"})) {
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
    if (cell_ > 0 && IsOneOf(name, {"br", "p", "div", "li", "ul", "ol"})) {
      space_ = true;  // a row is one line: a break inside a cell is a space
      return;
    }
    if (name == "pre") {
      EndLine();
      pre_ += closing ? (pre_ > 0 ? -1 : 0) : 1;
      return;
    }
    if (name == "li") {
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

  std::string_view html_;
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

std::string HtmlToText(std::string_view html) { return Converter(html).Run(); }

}  // namespace chipkg
