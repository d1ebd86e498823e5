// The "chip-dossier" template: a long-form chip page in numbered sections
// ("1.At a glance", "4.Full spec table"), each split into "SimpleStart here"
// and "Deep diveThe technical detail" parts, with small inline citation
// numbers after the figures they support ("... 1 December 2020 1;",
// "| 820 GB/s 4 |"). The chip is named in the spec table's header.
//
// The template sets up sections, the subject and citation reading; the facts
// themselves come from the generic table, line and sentence readers.

#include <algorithm>

#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

namespace {

constexpr std::string_view kSimple = "SimpleStart here";
constexpr std::string_view kDeep = "Deep dive";

// "4.Full spec table": a number, a dot, and a title glued to it.
bool IsNumberedHeading(std::string_view v) {
  size_t i = 0;
  while (i < v.size() && i < 3 && IsDigit(v[i])) ++i;
  if (i == 0 || i >= v.size() || v[i] != '.') return false;
  if (i + 1 >= v.size() || SpaceAt(v, i + 1) || IsDigit(v[i + 1])) return false;
  return v.size() <= 80 && v.back() != '.';
}

bool IsMarker(std::string_view v) { return v == kSimple || v.substr(0, kDeep.size()) == kDeep; }

}  // namespace

double ScoreDossier(std::string_view text) {
  std::string_view head = text.substr(0, std::min<size_t>(text.size(), 64 * 1024));
  size_t markers = 0;
  size_t headings = 0;
  size_t start = 0;
  while (start < head.size()) {
    size_t nl = head.find('\n', start);
    std::string_view line = head.substr(start, nl == std::string_view::npos ? head.npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    markers += IsMarker(line);
    headings += IsNumberedHeading(line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  double score = 0;
  if (markers >= 2) score += 0.5;
  if (headings >= 2) score += 0.3;
  if (head.substr(0, 21) == "How to read this page") score += 0.2;
  return score;
}

void RunDossier(Page& page) {
  std::string_view text(page.text);
  const auto& lines = page.lines();
  page.inline_citations = true;
  std::optional<size_t> first_heading;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (page.LineTooLong(i)) continue;
    Range r = Trim(text, lines[i].range);
    std::string_view v = page.View(r);
    if (IsNumberedHeading(v)) {
      page.AddSection(r.begin, std::string(v));
      page.Claim(i);
      if (!first_heading) first_heading = i;
    } else if (IsMarker(v)) {
      page.Claim(i);
    }
  }
  // Before the first section the page explains how to read it; no claims there.
  if (first_heading) page.ClaimLines(0, *first_heading);

  // The chip is the one the spec table is about: "| Spec | Amazon Trainium (Trn1) |".
  for (size_t i = 0; i < lines.size(); ++i) {
    if (page.Claimed(i)) continue;
    std::optional<Table> table = ParseTable(page, i);
    if (!table) continue;
    if (table->header.cells.size() == 2 && !table->header.cells[1].empty()) {
      page.title = page.Str(table->header.cells[1]);
      page.SetSubject(page.title, "chip", table->header.cells[1].begin);
      break;
    }
    i = table->end_line - 1;
  }
}

}  // namespace chipkg::extract_internal
