// The generic readers, which work on any page: markdown tables, sentences that
// state a value next to a label, and the runner that applies every generic
// reader to the lines no template claimed.

#include <algorithm>
#include <limits>

#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

namespace {

// Longest sentence the sentence reader looks at: anything longer is not prose.
constexpr size_t kMaxSentence = 2000;

bool IsSeparatorCell(std::string_view c) {
  if (c.empty()) return true;
  bool dash = false;
  for (char ch : c) {
    if (ch == '-') {
      dash = true;
    } else if (ch != ':' && ch != ' ') {
      return false;
    }
  }
  return dash;
}

std::string Singular(std::string s) {
  if (s.size() > 1 && s.back() == 's') s.pop_back();
  return s;
}

// A count written as "16-chip", "16 chips", "1 chip": the number, the noun's
// label, and the range of both. The noun must be a label of a count predicate.
struct CountRead {
  Range range;
  double number = 0;
  LabelHit label;
};

std::optional<CountRead> CountAt(const Page& page, size_t pos, size_t limit) {
  std::string_view text(page.text);
  std::optional<NumberToken> n = NumberAt(text, pos, limit);
  if (!n || n->range.end >= limit) return std::nullopt;
  char sep = text[n->range.end];
  if (sep != '-' && sep != ' ') return std::nullopt;
  size_t w = n->range.end + 1;
  size_t e = w;
  while (e < limit && IsAsciiAlpha(text[e])) ++e;
  if (e == w) return std::nullopt;
  std::optional<LabelHit> hit = page.LookupLabel(Range{w, e});
  // "64 Trainium2 chips" on Trainium2's page: the page chip's designation
  // between the number and a word for chips. (Not another chip's: "twice
  // the 100,000 H100 chips it started with", "added 30,000 GB200 chips" on
  // a data center's page are no counts of what it holds now.)
  if (!hit && sep == ' ') {
    size_t d = e;
    while (d < limit && IsWordByte(text[d])) ++d;
    const std::string_view designation = text.substr(w, d - w);
    // ("By the end of 2025 Trainium2 chips ...": a year, no count; "2048
    // Trainium2 chips" is one.)
    const bool year = ReadsAsYear(text, n->range.begin, n->value);
    const bool designates = !year && std::any_of(designation.begin(), designation.end(), IsDigit) &&
                            page.NamedBySubject(designation);
    size_t n0 = d + 1, n1 = n0;
    while (n1 < limit && IsAsciiAlpha(text[n1])) ++n1;
    if (designates && d < limit && text[d] == ' ' && n1 > n0 && IsChipNoun(text.substr(n0, n1 - n0)) &&
        (n1 == limit || !IsWordByte(text[n1]))) {
      hit = page.LookupLabel(Range{n0, n1});
      e = n1;
    }
  }
  if (!hit) return std::nullopt;
  const PredicateDef* p = page.Predicate(hit->def->predicate);
  if (p == nullptr || p->type != ValueKind::kQuantity) return std::nullopt;
  const DimensionDef* dim = page.schema.FindDimension(p->dimension);
  if (dim == nullptr || dim->canonical_unit != "1") return std::nullopt;
  return CountRead{Range{pos, e}, n->value, *hit};
}

// "trn1.2xlarge (1 chip)" on a chip's page: the instance holds chips of the
// page's kind, so it also refers to the page subject through the entity
// predicate that links the two kinds (accelerator: instance_type -> chip).
void AddKindReference(Page& page, const EntityId& subject, const std::string& subject_kind,
                      const LabelHit& noun, Range span, const Emit& emit,
                      const std::vector<std::string>& citations) {
  if (page.subject().empty() || subject_kind == page.subject_kind()) return;
  if (Singular(AsciiLower(page.View(noun.range))) != page.subject_kind()) return;
  for (const PredicateDef& p : page.schema.predicates()) {
    if (p.type != ValueKind::kEntity || p.object_kind != page.subject_kind() ||
        !Page::Applies(p, subject_kind)) {
      continue;
    }
    Draft d;
    d.subject = subject;
    d.predicate = p.name;
    d.value = Value::Entity(page.subject(), page.title.empty() ? page.Str(span) : page.title);
    d.span = span;
    d.citations = citations;
    page.Add(std::move(d), emit);
  }
}

void AddCount(Page& page, const EntityId& subject, const std::string& subject_kind, const CountRead& c,
              const Emit& emit, const std::vector<std::string>& citations) {
  const PredicateDef* p = page.Predicate(c.label.def->predicate);
  if (p == nullptr || !Page::Applies(*p, subject_kind)) return;
  Draft d;
  d.subject = subject;
  d.predicate = p->name;
  d.value = Value::Quantity(c.number, p->dimension, page.Str(c.range));
  d.qualifiers = c.label.def->qualifiers;
  d.span = c.range;
  d.citations = citations;
  page.Add(std::move(d), emit);
  AddKindReference(page, subject, subject_kind, c.label, c.range, emit, citations);
}

std::string CellRole(std::string_view header) {
  std::string h = AsciiLower(header);
  if (h == "value") return "value";
  if (h == "unit" || h == "units") return "unit";
  if (h == "source") return "source";
  if (h == "as of" || h == "as-of" || h == "date") return "as_of";
  return "";
}

// Citation numbers ending the line before a table ("... prices for Trn1 instances 6:").
std::vector<std::string> IntroCitations(const Page& page, size_t table_line) {
  std::vector<std::string> out;
  if (!page.inline_citations || table_line == 0) return out;
  Range r = Trim(page.text, page.lines()[table_line - 1].range);
  std::string_view v = page.View(r);
  if (v.empty() || v.back() != ':') return out;
  StripCitations(page, Range{r.begin, r.end - 1}, &out);
  return out;
}

}  // namespace

std::optional<Table> ParseTable(Page& page, size_t first) {
  const auto& lines = page.lines();
  auto is_row = [&](size_t i) {
    if (i >= lines.size() || page.LineTooLong(i)) return false;
    std::string_view v = page.View(Trim(page.text, lines[i].range));
    return !v.empty() && v[0] == '|';
  };
  if (!is_row(first)) return std::nullopt;
  Table t;
  t.first_line = first;
  bool have_header = false;
  size_t i = first;
  for (; is_row(i); ++i) {
    Range r = Trim(page.text, lines[i].range);
    std::string_view v = page.View(r);
    Table::Row row;
    row.line = i;
    size_t cell_start = 1;
    bool closed = v.size() > 1 && v.back() == '|';
    for (size_t k = 1; k <= v.size(); ++k) {
      if (k == v.size() || v[k] == '|') {
        if (k == v.size() && closed) break;
        row.cells.push_back(Trim(page.text, Range{r.begin + cell_start, r.begin + k}));
        cell_start = k + 1;
      }
    }
    if (!closed) page.Warn(r.begin, "table row not closed with '|'");
    bool separator = std::all_of(row.cells.begin(), row.cells.end(),
                                 [&](const Range& c) { return IsSeparatorCell(page.View(c)); });
    if (separator) continue;
    if (!have_header) {
      t.header = row;
      have_header = true;
    } else {
      t.rows.push_back(row);
    }
  }
  t.end_line = i;
  if (!have_header) return std::nullopt;
  return t;
}

void ReadTable(Page& page, const Table& table, const Emit& emit_in) {
  Emit emit = emit_in;
  if (emit.rule.empty()) emit.rule = "generic-table";
  if (emit.citations.empty()) emit.citations = IntroCitations(page, table.first_line);
  std::string_view text(page.text);
  const auto& header = table.header.cells;
  size_t n = header.size();
  if (n < 2) {
    page.Warn(page.lines()[table.first_line].range.begin, "table with fewer than two columns");
    return;
  }
  for (const Table::Row& row : table.rows) {
    if (row.cells.size() != n) {
      page.Warn(page.lines()[row.line].range.begin, "table row has " + std::to_string(row.cells.size()) +
                                                        " cells, header has " + std::to_string(n));
    }
  }

  // Role columns: "| Workload | Value | Unit | Source | As of |".
  std::map<std::string, size_t> role;
  for (size_t j = 1; j < n; ++j) {
    std::string r = CellRole(page.View(header[j]));
    if (!r.empty()) role.emplace(r, j);
  }
  if (role.count("value")) {
    size_t vc = role["value"];
    for (const Table::Row& row : table.rows) {
      if (row.cells.size() <= vc) continue;
      std::optional<LabelHit> hit = page.LookupLabel(row.cells[0]);
      if (!hit) {
        page.Warn(row.cells[0].begin, "unknown label '" + page.Str(row.cells[0]) + "'");
        continue;
      }
      Emit row_emit = emit;
      if (role.count("source") && role["source"] < row.cells.size()) {
        row_emit.attribution = page.Str(row.cells[role["source"]]);
      }
      if (role.count("as_of") && role["as_of"] < row.cells.size()) {
        Range c = row.cells[role["as_of"]];
        if (auto d = DateAt(text, c.begin, c.end, true)) row_emit.valid_as_of = d->date;
      }
      const PredicateDef* p = page.Predicate(hit->def->predicate);
      bool has_unit =
          role.count("unit") && role["unit"] < row.cells.size() && !row.cells[role["unit"]].empty();
      if (p != nullptr && p->type == ValueKind::kQuantity && has_unit) {
        Range value = row.cells[vc];
        Range unit = row.cells[role["unit"]];
        std::string written = page.Str(value) + " " + page.Str(unit);
        std::optional<QuantityParse> q = page.schema.ParseQuantity(written, p->dimension);
        if (!q || q->consumed < written.size()) {
          page.Warn(value.begin, "no " + p->dimension + " figure in '" + written + "'");
          continue;
        }
        if (!Page::Applies(*p, page.subject_kind())) continue;
        Draft d;
        d.subject = page.subject();
        d.predicate = p->name;
        d.qualifiers = hit->def->qualifiers;
        for (const auto& [k, v] : hit->extra) d.qualifiers.emplace(k, v);
        d.value = Value::Quantity(q->canonical, q->dimension, written);
        d.span = Range{value.begin, std::max(value.end, unit.end)};
        page.Add(std::move(d), row_emit);
      } else {
        ReadLabelledValue(page, page.subject(), page.subject_kind(), *hit, row.cells[vc], row_emit);
      }
    }
    return;
  }

  std::vector<std::optional<LabelHit>> header_labels(n);
  size_t header_known = 0;
  for (size_t j = 1; j < n; ++j) {
    header_labels[j] = page.LookupLabel(header[j]);
    header_known += header_labels[j].has_value();
  }
  size_t first_col_known = 0;
  for (const Table::Row& row : table.rows) {
    if (!row.cells.empty() && page.LookupLabel(row.cells[0])) ++first_col_known;
  }

  if (header_known > 0 && header_known >= first_col_known) {
    // One entity per row: "| trn1.2xlarge (1 chip) | $1.34/hr | ... |".
    for (const Table::Row& row : table.rows) {
      if (row.cells.empty() || row.cells[0].empty()) continue;
      Range cell = row.cells[0];
      std::string_view cv = page.View(cell);
      Range name = cell;
      Range inner{cell.end, cell.end};
      size_t open = cv.find('(');
      if (open != std::string_view::npos && open > 0 && cv.back() == ')') {
        name = Trim(text, Range{cell.begin, cell.begin + open});
        inner = Trim(text, Range{cell.begin + open + 1, cell.end - 1});
      }
      std::string kind;
      if (const EntityDef* known = page.schema.ResolveEntity(page.Str(name))) kind = known->kind;
      for (size_t j = 1; j < n && kind.empty(); ++j) {
        if (!header_labels[j]) continue;
        const PredicateDef* p = page.Predicate(header_labels[j]->def->predicate);
        if (p != nullptr && !p->subject_kinds.empty()) kind = p->subject_kinds.front();
      }
      if (kind.empty()) continue;
      std::optional<EntityId> id = page.Resolve(page.Str(name), kind, name.begin);
      if (!id) continue;
      if (!inner.empty()) {
        if (auto c = CountAt(page, inner.begin, inner.end))
          AddCount(page, *id, kind, *c, emit, emit.citations);
      }
      for (size_t j = 1; j < n && j < row.cells.size(); ++j) {
        if (!header_labels[j] || row.cells[j].empty()) continue;
        ReadLabelledValue(page, *id, kind, *header_labels[j], row.cells[j], emit);
      }
    }
    return;
  }

  if (first_col_known == 0) {
    page.Warn(page.lines()[table.first_line].range.begin,
              "table with no known label in its header or first column");
    return;
  }
  // Labels down the first column; each other column is one entity.
  std::vector<std::pair<EntityId, std::string>> subjects(n);
  // "| Precision | Dense | With sparsity |", "| Spec | Per GPU | ... |": a
  // column that says how its figures are read, not whose they are: the page's
  // chip's. (Each was a chip named "Dense", "With sparsity", "Per GPU".)
  std::vector<Qualifiers> column_reads(n);
  const auto reads_as = [&](Range cell) -> std::optional<Qualifiers> {
    Qualifiers q;
    bool without = false;
    bool per = false;
    bool any = false;
    for (auto w = NextWord(text, cell.begin, cell.end); w; w = NextWord(text, w->end, cell.end)) {
      const std::string word = AsciiLower(page.View(*w));
      if (word == "with") continue;
      if (word == "without" || word == "no") {
        without = true;
      } else if (word == "per" || word == "each") {
        per = true;
      } else if (word == "dense") {
        q[qualifier::kSparsity] = "dense";
      } else if (word == "sparse" || word == "sparsity") {
        q[qualifier::kSparsity] = without ? "dense" : "sparse";
      } else if (per && IsChipNoun(word)) {
        q[qualifier::kScope] = "chip";
      } else {
        return std::nullopt;
      }
      any = true;
    }
    if (!any || q.empty()) return std::nullopt;
    return q;
  };
  for (size_t j = 1; j < n; ++j) {
    if (page.subject().empty() || page.subject_kind() != "chip") break;
    if (std::optional<Qualifiers> q = reads_as(header[j])) {
      subjects[j] = {page.subject(), page.subject_kind()};
      column_reads[j] = std::move(*q);
    }
  }
  // A column for a system ("HGX B300", "GB300 NVL72") gives that system's
  // totals: without the scope they were one chip's.
  std::vector<std::string> column_scope(n);
  for (size_t j = 1; j < n; ++j) column_scope[j] = page.SystemScopeOf(page.View(header[j]));
  for (size_t j = 1; j < n; ++j) {
    if (!subjects[j].first.empty()) continue;
    std::string name = page.Str(header[j]);
    // "| Spec | Z9 chip | Z9 server | Z9 rack |": the chip and the systems
    // built of it, by the scope word the header ends in. (Each was a chip
    // named "Z9 server", "Z9 rack".)
    std::vector<Range> words;
    for (auto w = NextWord(text, header[j].begin, header[j].end); w; w = NextWord(text, w->end, header[j].end)) {
      words.push_back(*w);
    }
    if (words.size() >= 2 && page.IsScopeWord(page.View(words.back())) && column_scope[j].empty()) {
      const std::string scope = AsciiLower(page.View(words.back()));
      if (scope != "chip") column_scope[j] = scope;
      name = page.Str(Range{words.front().begin, words[words.size() - 2].end});
      const bool names_subject = !page.subject().empty() && page.subject_kind() == "chip" &&
                                 std::all_of(words.begin(), words.end() - 1, [&](const Range& w) {
                                   return page.NamedBySubject(page.View(w));
                                 });
      if (names_subject) {
        subjects[j] = {page.subject(), page.subject_kind()};
        continue;
      }
    }
    const EntityDef* known = page.schema.ResolveEntity(name);
    if (n == 2 && (page.subject().empty() || known == nullptr || known->id == page.subject())) {
      if (page.subject().empty()) page.SetSubject(name, "chip", header[j].begin);
      subjects[j] = {page.subject(), page.subject_kind()};
      continue;
    }
    std::string kind = known ? known->kind : (page.subject_kind().empty() ? "chip" : page.subject_kind());
    // "| Specification | v5e | v6e |" on the page of "TPU v6e": the line's
    // models by designation alone ("v5e" was a chip of its own).
    if (known == nullptr && page.subject_kind() == "chip") {
      if (std::string sibling = page.SiblingOfSubject(name); !sibling.empty()) name = sibling;
    }
    if (auto id = page.Resolve(name, kind, header[j].begin)) subjects[j] = {*id, kind};
  }
  for (const Table::Row& row : table.rows) {
    if (row.cells.empty()) continue;
    std::optional<LabelHit> hit = page.LookupLabel(row.cells[0]);
    if (!hit) {
      page.Warn(row.cells[0].begin, "unknown label '" + page.Str(row.cells[0]) + "'");
      continue;
    }
    for (size_t j = 1; j < n && j < row.cells.size(); ++j) {
      if (subjects[j].first.empty()) continue;
      LabelHit scoped = *hit;
      if (!column_scope[j].empty() && !hit->def->qualifiers.count(qualifier::kScope)) {
        scoped.extra.emplace(qualifier::kScope, column_scope[j]);
      }
      // The column's reading, where the row's label does not say otherwise
      // ("FP8 with sparsity" under "Dense" is in doubt: not read).
      bool in_doubt = false;
      for (const auto& [k, v] : column_reads[j]) {
        std::optional<std::string> said;
        if (auto it = hit->def->qualifiers.find(k); it != hit->def->qualifiers.end()) said = it->second;
        if (auto it = hit->extra.find(k); it != hit->extra.end()) said = it->second;
        in_doubt = in_doubt || (said && *said != v);
        scoped.extra.emplace(k, v);
      }
      if (in_doubt) continue;
      ReadLabelledValue(page, subjects[j].first, subjects[j].second, scoped, row.cells[j], emit);
    }
  }
}

namespace {

size_t SkipFillers(std::string_view text, size_t pos, size_t limit, int max_words);

// Whether the full stop at `dot` ends an abbreviation rather than a
// sentence: an initial ("N. Virginia", "U.S. East", "St. Louis"), or a
// title's or month's short form ("Dec. 5, 2024").
bool AbbreviationEndsAt(std::string_view text, size_t begin, size_t dot) {
  size_t w = dot;
  while (w > begin && IsAsciiAlpha(text[w - 1])) --w;
  if (w == dot || (w > begin && IsWordByte(text[w - 1]) && text[w - 1] != '.')) return false;
  const std::string_view word = text.substr(w, dot - w);
  if (word.size() == 1) {
    // Not a unit after its number: "draws 700 W. Huawei's ...".
    size_t before = w;
    while (before > begin && text[before - 1] == ' ') --before;
    return IsUpper(word[0]) && !(before < w && before > begin && IsDigit(text[before - 1]));
  }
  static constexpr std::string_view kShortForms[] = {"St",  "Mt",  "Ft",  "Dr",  "Mr",  "Mrs", "Ms",  "vs",   "approx",
                                                     "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sept", "Sep",
                                                     "Oct", "Nov", "Dec"};
  return std::find(std::begin(kShortForms), std::end(kShortForms), word) != std::end(kShortForms);
}

}  // namespace

// Items of a list after a label: "the US and in Mumbai, India, among other regions".
// Capitalised items; after the list's final "and", a further ", Item" is an
// apposition of the last item ("Mumbai, India").
std::vector<Range> ListItems(std::string_view text, size_t pos, size_t limit) {
  std::vector<Range> items;
  bool after_and = false;
  // "us-east-1", "europe-west4": a cloud's code for a region, lower case
  // but for a hyphen and a closing number.
  const auto region_code = [&](size_t at) -> size_t {
    size_t e = at;
    bool hyphen = false;
    while (e < limit && (IsAsciiAlpha(text[e]) || IsDigit(text[e]) || text[e] == '-')) {
      if (IsUpper(text[e])) return at;
      hyphen = hyphen || text[e] == '-';
      ++e;
    }
    return hyphen && e > at + 3 && IsAsciiAlpha(text[at]) && IsDigit(text[e - 1]) ? e : at;
  };
  // Past the separator after an item; false where the list ends.
  const auto separator = [&]() {
    if (text.substr(pos, 5) == " and ") {
      if (after_and) return false;
      after_and = true;
      pos += 5;
    } else if (text.substr(pos, 6) == ", and ") {
      after_and = true;
      pos += 6;
    } else if (text.substr(pos, 2) == ", ") {
      pos += 2;
    } else {
      return false;
    }
    return true;
  };
  while (pos < limit) {
    pos = SkipFillers(text, pos, limit, 2);
    if (pos >= limit) break;
    if (const size_t code_end = region_code(pos); code_end > pos) {
      items.push_back(Range{pos, code_end});
      pos = code_end;
      if (!separator()) break;
      continue;
    }
    if (!IsUpper(text[pos])) break;
    size_t e = pos;
    // Capitalised words: "US", "Mumbai", "New Carlisle".
    while (true) {
      size_t w = e;
      while (w < limit && (IsWordByte(text[w]) || text[w] == '-')) ++w;
      // Initials: "D.C.", "U.S.". Cut at the first full stop, "Washington,
      // D.C." gave the region "D".
      size_t initial = e;
      while (w + 1 < limit && text[w] == '.' && w - initial == 1 && IsUpper(text[initial]) && IsUpper(text[w + 1])) {
        initial = w + 1;
        w = initial + 1;
      }
      if (initial != e && w < limit && text[w] == '.') ++w;
      // "St. Louis", "N. Virginia": a short form, and the name goes on.
      if (w + 2 < limit && text[w] == '.' && text[w + 1] == ' ' && IsUpper(text[w + 2]) && AbbreviationEndsAt(text, e, w)) {
        e = w + 2;
        continue;
      }
      e = w;
      if (e + 1 < limit && text[e] == ' ' && IsUpper(text[e + 1])) {
        e = e + 1;
        continue;
      }
      break;
    }
    // "US East (N. Virginia)": what the parenthesis says is the item's.
    if (text.substr(e, 2) == " (") {
      const size_t close = text.find(')', e);
      if (close != std::string_view::npos && close < limit) e = close + 1;
    }
    Range item{pos, e};
    // "available in Q3", "in H2": a time of the year, no place; nor is what follows.
    if (const std::string_view v = text.substr(pos, e - pos);
        (v.size() == 2 && ((v[0] == 'Q' && v[1] >= '1' && v[1] <= '4') || (v[0] == 'H' && (v[1] == '1' || v[1] == '2')))) ||
        (v.size() >= 4 && v.size() <= 6 && v.starts_with("FY") && std::all_of(v.begin() + 2, v.end(), IsDigit))) {
      break;
    }
    // "Los Angeles, CA, USA", "London, UK": a state's or country's code after
    // a place is its apposition, not a region of its own ("the US, UK and
    // Japan" are three).
    const auto is_code = [&](Range r) {
      if (r.size() > 2 && text[r.end - 1] == ')') return false;
      const auto letters = std::count_if(text.begin() + r.begin, text.begin() + r.end, IsUpper);
      return letters >= 2 && letters <= 3 &&
             std::all_of(text.begin() + r.begin, text.begin() + r.end, [](char c) { return IsUpper(c) || c == '.'; });
    };
    const bool code_after_place = !items.empty() && pos >= 2 && text.substr(pos - 2, 2) == ", " && is_code(item) &&
                                  !is_code(items.back());
    // "in Tokyo, Osaka and Seoul": an "and" after it makes it the next item
    // of a list of its own, not an apposition.
    const bool and_follows = text.substr(e, 5) == " and ";
    if (code_after_place) {
      items.back().end = e;
    } else if (after_and && !items.empty() && pos >= 2 && text.substr(pos - 2, 2) == ", " && !and_follows) {
      items.back().end = e;
    } else if (after_and && and_follows) {
      items.push_back(item);
      after_and = false;  // that list's own "and" comes next
    } else {
      items.push_back(item);
    }
    pos = e;
    if (!separator()) break;
  }
  return items;
}

namespace {

// Whether a parenthesis's words name one place: capitalised words, no
// figure, no code, no status ("Europe (coming soon)", "North America
// (2025)", "US East (us-east-1)", "Europe (EU)", "(Coming Soon)",
// "(Preview)", "(Limited Availability)" do not).
bool NamesOnePlace(std::string_view inside) {
  bool place = !inside.empty() && inside.find_first_of(",;/") == inside.npos;
  size_t words = 0;
  for (auto iw = NextWord(inside, 0, inside.size()); iw && place; iw = NextWord(inside, iw->end, inside.size())) {
    const std::string_view word = inside.substr(iw->begin, iw->size());
    place = IsUpper(word[0]) && std::none_of(word.begin(), word.end(), IsDigit);
    ++words;
  }
  if (place && (words == 0 || (words == 1 && inside.size() <= 2))) place = false;
  for (const char* status : {"coming", "soon", "preview", "limited", "availability", "available", "beta", "planned",
                             "new", "launching", "expected", "announced", "ga", "gated", "only", "general", "or",
                             "and"}) {
    if (place && FindLowerWord(AsciiLower(inside), status) != std::string_view::npos) place = false;
  }
  return place;
}

// The area and the parenthesis of "US East (Ohio)", where the area ends in a
// word of schema table region_area_words; nullopt otherwise.
std::optional<std::pair<std::string_view, std::string_view>> AreaAndDetail(const Page& page, std::string_view v) {
  const size_t comma = v.find(", "), paren = v.find(" (");
  if (paren == std::string_view::npos || paren > comma) return std::nullopt;
  const size_t close = v.find(')', paren);
  if (close == std::string_view::npos) return std::nullopt;
  size_t w = paren;
  while (w > 0 && IsAsciiAlpha(v[w - 1])) --w;
  const auto areas = page.schema.tables().find("region_area_words");
  if (areas == page.schema.tables().end() || !areas->second.count(AsciiLower(v.substr(w, paren - w)))) return std::nullopt;
  return std::make_pair(v.substr(0, paren), v.substr(paren + 2, close - paren - 2));
}

}  // namespace

std::string ListItemName(const Page& page, Range item) {
  const std::string_view v = page.View(item);
  const size_t comma = v.find(", "), paren = v.find(" (");
  // "US East (Ohio)": the region within an area, where its parenthesis is
  // part of its name ("US East (Ohio or N. Virginia)" is the area).
  if (const auto area = AreaAndDetail(page, v); area && NamesOnePlace(area->second)) {
    return std::string(area->first) + " (" + std::string(area->second) + ")";
  }
  return std::string(v.substr(0, std::min(comma, paren)));
}

std::vector<std::string> ListItemNames(const Page& page, Range item) {
  // "Asia Pacific (Tokyo, Osaka)": a region each, "Asia Pacific (Tokyo)" and
  // "Asia Pacific (Osaka)". (It was the area alone.)
  if (const auto area = AreaAndDetail(page, page.View(item))) {
    std::vector<std::string> places;
    std::string_view rest = area->second;
    while (!rest.empty()) {
      size_t cut = std::min(rest.find(", "), rest.find(" and "));
      std::string_view place = rest.substr(0, cut);
      if (cut == std::string_view::npos) {
        rest = {};
      } else {
        rest.remove_prefix(cut + (rest.substr(cut, 2) == ", " ? 2 : 5));
        if (rest.starts_with("and ")) rest.remove_prefix(4);  // "Tokyo, Osaka, and Seoul"
      }
      if (!NamesOnePlace(place)) return {ListItemName(page, item)};
      places.push_back(std::string(area->first) + " (" + std::string(place) + ")");
    }
    if (places.size() >= 2) return places;
  }
  return {ListItemName(page, item)};
}

std::vector<Range> SplitSentences(const Page& page, Range r) {
  std::vector<Range> out;
  std::string_view text(page.text);
  size_t start = r.begin;
  auto push = [&](size_t end) {
    Range s = Trim(text, Range{start, end});
    if (!s.empty()) out.push_back(s);
    start = end;
  };
  for (size_t i = r.begin; i < r.end; ++i) {
    char c = text[i];
    if (c == '\n') {
      push(i);
      start = i + 1;
      continue;
    }
    if (c != '.' && c != '?' && c != '!') continue;
    if (c == '.' && AbbreviationEndsAt(text, r.begin, i)) continue;
    size_t j = i + 1;
    if (j < r.end && (text[j] == '"' || text[j] == ')')) ++j;
    if (j >= r.end) continue;
    size_t sp = SpaceAt(text, j);
    if (sp == 0) continue;
    size_t k = j + sp;
    while (k < r.end && SpaceAt(text, k)) k += SpaceAt(text, k);
    if (k >= r.end || IsUpper(text[k]) || IsDigit(text[k]) || text[k] == '"' || text[k] == '(' ||
        static_cast<unsigned char>(text[k]) >= 0x80) {
      push(j);
    }
  }
  push(r.end);
  return out;
}

namespace {

struct Figure {
  Range range;
  bool count = false;
  LabelHit count_label;
  double canonical = 0;
  std::string dimension;
  std::string format;    // "362 FP8 petaflops": a format written between number and unit
  std::string sparsity;  // "720 sparse FP8 petaflops": before the format
  std::string second_format;  // "10 FP4/FP6 petaflops": the figure is each format's
};

struct Pending {
  Draft draft;
  bool page_subject = false;  // about the page subject (dropped when another chip is in the sentence)
  std::optional<CountRead> count;
  std::string subject_kind;
};

bool InAny(const std::vector<Range>& ranges, size_t pos) {
  for (const Range& r : ranges) {
    if (r.begin <= pos && pos < r.end) return true;
  }
  return false;
}

const std::string_view kFillers[] = {"it",         "on",    "in", "at",  "was",       "were", "is",
                                     "the",        "until", "by", "its", "of",        "been", "first",
                                     "originally", "a",     "an", "to",  "officially"};

bool IsFiller(std::string_view w) {
  std::string l = AsciiLower(w);
  for (std::string_view f : kFillers) {
    if (l == f) return true;
  }
  return false;
}

// Skips up to `max_words` filler words (and punctuation between them) from pos.
size_t SkipFillers(std::string_view text, size_t pos, size_t limit, int max_words) {
  for (int k = 0; k <= max_words; ++k) {
    size_t p = pos;
    while (p < limit && (SpaceAt(text, p) || text[p] == ':' || text[p] == ','))
      p += std::max<size_t>(1, SpaceAt(text, p));
    pos = p;
    if (k == max_words) break;
    size_t e = p;
    while (e < limit && IsAsciiAlpha(text[e])) ++e;
    if (e == p || !IsFiller(text.substr(p, e - p))) break;
    pos = e;
  }
  return pos;
}

// Citation numbers in a sentence of a page that writes them inline: small
// numbers after a word, followed by punctuation, another citation, or the end.
std::vector<std::pair<Range, std::string>> FindCitationTokens(const Page& page, Range s,
                                                              const std::vector<Range>& dates) {
  std::vector<std::pair<Range, std::string>> out;
  if (!page.inline_citations) return out;
  std::string_view text(page.text);
  for (size_t i = s.begin; i < s.end; ++i) {
    if (!IsDigit(text[i]) || !WordStartsAt(text, i) || InAny(dates, i)) continue;
    size_t e = i;
    while (e < s.end && IsDigit(text[e])) ++e;
    if (e - i > 3 || !WordEndsAt(text, e) || i == s.begin || !SpaceAt(text, i - 1)) {
      i = e;
      continue;
    }
    // What follows: another number, punctuation, a dash, or the end.
    size_t k = e;
    while (k < s.end && SpaceAt(text, k)) ++k;
    bool ok = k >= s.end;
    if (!ok) {
      char c = text[k];
      ok = c == '.' || c == ',' || c == ';' || c == ':' || c == ')' || c == '|' || IsDigit(c) ||
           text.substr(k, 3) == "\xE2\x80\x94" || text.substr(k, 3) == "\xE2\x80\x93";
      if (ok && IsDigit(c)) {
        // the next token must itself be a citation-like number
        size_t e2 = k;
        while (e2 < s.end && IsDigit(text[e2])) ++e2;
        ok = e2 - k <= 3 && WordEndsAt(text, e2);
      }
    }
    // Right after a date, a small number is its citation whatever follows:
    // "announced 1 December 2020 1 but ...".
    if (!ok) {
      for (const Range& d : dates) ok = ok || (d.end + 1 == i);
    }
    if (ok) out.emplace_back(Range{i, e}, std::string(text.substr(i, e - i)));
    i = e;
  }
  return out;
}

// "made on TSMC's N5 node", "built using TSMC 7nm": a process node the schema
// knows, after a verb of making and "on", "in" or "using", is the one the
// chip is made on ("production on N3", "The rival uses N3" and "is not built
// on N3" are not). A label of no width just before it, so the entity reader
// takes it; none where a process node's label is read already.
std::optional<LabelHit> ProcessNodeInProse(const Page& page, Range s, const std::vector<Mention>& mentions,
                                           const std::vector<LabelHit>& labels) {
  std::string_view text(page.text);
  for (const Mention& m : mentions) {
    if (m.entity->kind != "process_node") continue;
    // A label such as "Process node:" that already reads this mention.
    const bool read_already = std::any_of(labels.begin(), labels.end(), [&](const LabelHit& h) {
      return h.def->predicate == "process_node" && h.range.end <= m.range.begin &&
             SkipFillers(text, h.range.end, s.end, 1) == m.range.begin;
    });
    if (read_already) return std::nullopt;
    // The words before it, back over a foundry's possessive ("TSMC's") and an article.
    std::vector<std::string> before;
    size_t pos = m.range.begin;
    while (before.size() < 6 && pos > s.begin) {
      size_t end = pos;
      while (end > s.begin && SpaceAt(text, end - 1)) --end;
      size_t begin = end;
      while (begin > s.begin && (IsWordByte(text[begin - 1]) || text[begin - 1] == '\'' || text[begin - 1] == '-')) --begin;
      if (begin == end) break;
      before.push_back(AsciiLower(text.substr(begin, end - begin)));
      pos = begin;
    }
    size_t k = 0;
    while (k < before.size() && (before[k].ends_with("'s") || before[k] == "a" || before[k] == "the" || before[k] == "its")) ++k;
    if (k + 1 >= before.size() || (before[k] != "on" && before[k] != "in" && before[k] != "using")) continue;
    size_t v = k + 1;
    if (before[v] == "entirely" || before[v] == "also" || before[v] == "both") ++v;  // "built entirely on"
    if (v >= before.size()) continue;
    const std::string& verb = before[v];
    const bool making = verb == "made" || verb == "built" || verb == "fabricated" || verb == "manufactured" ||
                        verb == "produced" || verb == "fabbed";
    // "based on TSMC N5", not "based in N3 Park".
    if (!making && !(verb == "based" && before[k] == "on")) continue;
    // "is not built on N3", "never made on N7", "isn't based on".
    bool negated = false;
    for (size_t j = v + 1; j < before.size() && j <= v + 2; ++j) {
      negated = negated || before[j] == "not" || before[j] == "never" || before[j].ends_with("n't");
    }
    if (negated) continue;
    for (const LabelDef& def : page.schema.labels()) {
      if (def.predicate == "process_node" && def.qualifiers.empty() && def.site.empty()) {
        return LabelHit{Range{m.range.begin, m.range.begin}, &def, {}};
      }
    }
  }
  return std::nullopt;
}

bool NegatedBefore(std::string_view text, size_t floor, size_t pos);

// "80GB of HBM3 with 3.35 TB/s of bandwidth", "64 GB of HBM2E delivering
// 1.8 TB/s": a bandwidth with no label of its own, written shortly after the
// memory, is the memory's; not where a link is named between them or right
// after it ("over NVLink at 900 GB/s", "900 GB/s of NVLink bandwidth").
std::optional<LabelHit> MemorysBandwidth(const Page& page, Range s, const std::vector<LabelHit>& labels,
                                         const std::vector<Figure>& figures, size_t fi) {
  const Figure& f = figures[fi];
  const PredicateDef* bandwidth = page.Predicate("memory_bandwidth");
  if (f.count || bandwidth == nullptr || f.dimension != bandwidth->dimension) return std::nullopt;
  // Words of what else has a bandwidth: links, caches, the host. A word
  // that starts with one counts ("NVLink-C2C", "links").
  static constexpr std::string_view kOthers[] = {
      "nvlink", "network", "ethernet", "interconnect", "pcie", "link", "infinity", "fabric", "ici", "gbe", "port",
      "scale-out", "scale-up", "chip-to-chip", "die-to-die", "i/o", "cache", "sram", "l1", "l2", "l3", "host", "cpu",
      "on-chip", "c2c", "ualink", "cxl"};
  std::string_view text(page.text);
  const auto another_clause = [&](Range r) {
    for (size_t i = r.begin; i < r.end; ++i) {
      // ("1.2" is no full stop.)
      if (text[i] == ';' || (text[i] == '.' && (i + 1 >= r.end || SpaceAt(text, i + 1)))) return true;
    }
    return false;
  };
  const auto names_a_link = [&](Range r) {
    for (auto w = NextWord(text, r.begin, r.end); w; w = NextWord(text, w->end, r.end)) {
      const std::string lower = AsciiLower(text.substr(w->begin, w->size()));
      for (std::string_view other : kOthers) {
        if (lower.starts_with(other)) return true;
      }
    }
    return false;
  };
  constexpr size_t kNear = 60;  // bytes from the memory's label to the figure
  const LabelHit* memory = nullptr;
  for (const LabelHit& h : labels) {
    if (h.def->predicate == "memory_bandwidth") return std::nullopt;
    if (h.def->predicate == "memory" && h.range.end <= f.range.begin && f.range.begin - h.range.end <= kNear) memory = &h;
  }
  // "no HBM", "instead of HBM": no memory to have a bandwidth.
  if (memory == nullptr || NegatedBefore(text, s.begin, memory->range.begin)) return std::nullopt;
  for (size_t k = 0; k < figures.size(); ++k) {
    if (k == fi || figures[k].dimension != f.dimension) continue;
    if (figures[k].range.begin >= memory->range.end && figures[k].range.end <= f.range.begin) return std::nullopt;
  }
  const size_t after = std::min(s.end, fi + 1 < figures.size() ? figures[fi + 1].range.begin : s.end);
  if (another_clause(Range{memory->range.end, f.range.begin}) || names_a_link(Range{memory->range.end, f.range.begin}) ||
      names_a_link(Range{f.range.end, std::min(after, f.range.end + 32)})) {
    return std::nullopt;
  }
  for (const LabelDef& def : page.schema.labels()) {
    if (def.predicate == "memory_bandwidth" && def.qualifiers.empty() && def.site.empty()) {
      return LabelHit{memory->range, &def, {}};
    }
  }
  return std::nullopt;
}

// Where the clause that runs from `from` ends, at `limit` at the latest: a
// semicolon, a comma before a joining word (", and each rack has ...",
// ", while ..."), or "and" before a verb ("1,400 W and is available in
// platforms with 128 GPUs per rack"). What follows is another clause's.
size_t ClauseEnd(std::string_view text, size_t from, size_t limit) {
  static constexpr std::string_view kJoining[] = {"and", "while", "whereas", "but", "so", "yet"};
  static constexpr std::string_view kVerbs[] = {"is", "are", "was", "were", "has", "have", "comes", "ships", "will", "can"};
  for (size_t i = from; i < limit; ++i) {
    if (text[i] == ';') return i;
    if (text[i] != ',' && text[i] != ' ') continue;
    std::optional<Range> w = NextWord(text, i + 1, limit);
    if (!w || w->begin != i + 1 + (text[i] == ',' ? 1 : 0)) continue;
    const std::string word = AsciiLower(text.substr(w->begin, w->size()));
    if (text[i] == ',' && std::find(std::begin(kJoining), std::end(kJoining), word) != std::end(kJoining)) return i;
    if (word == "and") {
      std::optional<Range> verb = NextWord(text, w->end, limit);
      if (verb && std::find(std::begin(kVerbs), std::end(kVerbs), AsciiLower(text.substr(verb->begin, verb->size()))) !=
                      std::end(kVerbs)) {
        return i;
      }
    }
  }
  return limit;
}

// "5 / 2.5 PFLOPS": the bare number written before the figure at `at`, after
// `from` (the figure before it).
std::optional<Range> BareNumberBefore(std::string_view text, size_t from, size_t at) {
  size_t i = at;
  while (i > from && text[i - 1] == ' ') --i;
  if (i == from || text[i - 1] != '/') return std::nullopt;
  --i;
  while (i > from && text[i - 1] == ' ') --i;
  const size_t end = i;
  while (i > from && (IsDigit(text[i - 1]) || text[i - 1] == '.' || text[i - 1] == ',')) --i;
  if (i == end || !IsDigit(text[i]) || (i > from && IsWordByte(text[i - 1]))) return std::nullopt;
  return Range{i, end};
}

// Whether words (in lower case) set what follows them against the chip:
// "more than 24x the compute of", "Compared to Wormhole n300", "relative
// to Trillium".
bool SetsAgainst(std::string_view before) {
  static constexpr std::string_view kSetAgainst[] = {"than",    "compared", "comparison",  "versus",  "vs",
                                                     "unlike",  "against",  "rival",       "rivals",  "beats",
                                                     "outperforms", "relative"};
  for (std::string_view w : kSetAgainst) {
    if (FindWord(before, w) != std::string_view::npos) return true;
  }
  // "24x the compute of": a multiple of the other's figure.
  for (std::optional<Range> w = NextWord(before, 0, before.size()); w; w = NextWord(before, w->end, before.size())) {
    const std::string_view word = before.substr(w->begin, w->size());
    if (word.size() >= 2 && word.back() == 'x' && IsDigit(word[0]) &&
        std::all_of(word.begin(), word.end() - 1, [](char c) { return IsDigit(c) || c == '.'; })) {
      return true;
    }
  }
  return false;
}

// "Ironwood offers 192 GB per chip": a size per chip with no label in its
// sentence is the chip's memory where the page's chip is named before it,
// with no other figure between, and nothing between sets it against
// another chip, names another store (SSD, SRAM, a cache, the host's) or a
// model's share of the chips; nor is it the old figure of a change ("from
// 32 GB per chip to 192 GB") or another's ("32 GB per chip on Trillium").
std::optional<LabelHit> MemoryPerChip(const Page& page, Range s, const std::vector<Figure>& figures, size_t fi) {
  const Figure& f = figures[fi];
  const PredicateDef* memory = page.Predicate("memory");
  if (f.count || memory == nullptr || f.dimension != memory->dimension) return std::nullopt;
  std::string_view text(page.text);
  std::optional<Range> per = NextWord(text, f.range.end, s.end);
  std::optional<Range> noun = per ? NextWord(text, per->end, s.end) : std::nullopt;
  if (!noun || AsciiLower(page.View(*per)) != "per" || !IsChipNoun(page.View(*noun)) || page.View(*noun).ends_with("s")) {
    return std::nullopt;
  }
  static constexpr std::string_view kOthers[] = {"storage", "ssd",     "nvme",       "disk",    "drive", "flash", "sram",
                                                 "cache",   "host",    "cpu",        "dimm",    "scratchpad", "buffer",
                                                 "model",   "weight",  "parameter",  "on-chip", "l1",    "l2",    "l3",
                                                 "system",  "vm",      "instance",   "server",  "node",  "rack",  "pod"};
  const auto names_another_store = [&](Range r) {
    for (auto w = NextWord(text, r.begin, r.end); w; w = NextWord(text, w->end, r.end)) {
      std::string lower = AsciiLower(page.View(*w));
      if (lower.starts_with("ddr")) return true;
      if (lower.size() > 2 && lower.back() == 's') lower.pop_back();  // "hosts", "models"
      if (std::find(std::begin(kOthers), std::end(kOthers), lower) != std::end(kOthers)) return true;
    }
    return false;
  };
  // The nearest mention of the page's chip before the figure: a name of it,
  // or its title's last word ("Ironwood" on "Google Ironwood"'s page).
  std::string title_word = AsciiLower(page.title);
  title_word.erase(0, title_word.rfind(' ') + 1);
  if (title_word.size() < 3) title_word.clear();
  size_t named = f.range.begin;
  for (auto w = NextWord(text, s.begin, f.range.begin); w; w = NextWord(text, w->end, f.range.begin)) {
    const Range rest{w->begin, f.range.begin};
    if (page.MentionsSubject(rest) || (!title_word.empty() && FindLowerWord(AsciiLower(page.View(rest)), title_word) != std::string::npos)) {
      named = w->begin;
    }
  }
  if (named == f.range.begin) return std::nullopt;
  const Range between{named, f.range.begin};
  for (const Figure& g : figures) {
    if (&g != &f && g.range.begin >= between.begin && g.range.begin < between.end) return std::nullopt;
  }
  const std::string lower_between = AsciiLower(page.View(between));
  if (SetsAgainst(lower_between) || names_another_store(between)) return std::nullopt;
  std::optional<Range> word_before;
  for (auto w = NextWord(text, between.begin, between.end); w; w = NextWord(text, w->end, between.end)) word_before = w;
  if (word_before && AsciiLower(page.View(*word_before)) == "from") return std::nullopt;
  // What follows "per chip": "of local SSD storage", "on Trillium".
  if (std::optional<Range> after = NextWord(text, noun->end, s.end)) {
    const std::string joint = AsciiLower(page.View(*after));
    std::optional<Range> next = NextWord(text, after->end, s.end);
    if ((joint == "on" || joint == "for" || joint == "in") && next && IsUpper(text[next->begin])) return std::nullopt;
    if (joint == "of") {
      size_t end = after->end;
      for (int k = 0; k < 4 && next; ++k, next = NextWord(text, next->end, s.end)) end = next->end;
      if (names_another_store(Range{after->end, end})) return std::nullopt;
    }
  }
  for (const LabelDef& def : page.schema.labels()) {
    if (def.predicate == "memory" && def.qualifiers.empty() && def.site.empty()) return LabelHit{Range{per->begin, noun->end}, &def, {}};
  }
  return std::nullopt;
}

// A power figure that is not the design power: "240 W average", "Typical
// power is 600 W", "Idle power is 90 W", "an 850 W power supply",
// "provisioned at 500 W". `from` is
// where the figure's own words start (the previous figure's end).
bool NotDesignPower(std::string_view text, Range s, size_t from, Range figure) {
  // "designed for a TDP of up to 700 W but is provisioned at 500 W": what a
  // data center allots, not what the chip is designed for.
  // ("capped at 350 W" is often the TDP itself, so not that word.)
  static constexpr std::string_view kWords[] = {"average", "averages", "typical", "typically", "idle", "mean",
                                                "provisioned"};
  auto is_average = [&](std::optional<Range> w) {
    if (!w) return false;
    const std::string lower = AsciiLower(text.substr(w->begin, w->size()));
    return std::find(std::begin(kWords), std::end(kWords), lower) != std::end(kWords);
  };
  std::optional<Range> after = NextWord(text, figure.end, s.end);
  if (after && after->begin <= figure.end + 2 && is_average(after)) return true;
  // "draws 1,500 W under typical load", "1,200 W on average": within three
  // words after it, in its clause.
  {
    std::optional<Range> w = after;
    for (int k = 0; k < 3 && w; ++k, w = NextWord(text, w->end, s.end)) {
      const std::string_view gap = text.substr(figure.end, w->begin - figure.end);
      if (gap.find_first_of(",;") != std::string_view::npos) break;
      // ("provisioned" after it is about a figure after it: "up to 700 W but is provisioned at 500 W".)
      const std::string lower = AsciiLower(text.substr(w->begin, w->size()));
      if (lower == "but" || lower == "and") break;
      if (is_average(w) && lower != "provisioned") return true;
    }
  }
  if (after) {
    const std::string next = AsciiLower(text.substr(after->begin, std::min<size_t>(s.end - after->begin, 12)));
    if (next.starts_with("power supply") || next.starts_with("psu")) return true;
  }
  for (std::optional<Range> w = NextWord(text, from, figure.begin); w; w = NextWord(text, w->end, figure.begin)) {
    if (is_average(w)) return true;
  }
  return false;
}

// One of the two words before `pos` negates what is at `pos`: "instead of
// HBM", "rather than HBM", "does not use HBM3", "no HBM", "without HBM".
bool NegatedBefore(std::string_view text, size_t floor, size_t pos) {
  const std::string lead = AsciiLower(text.substr(floor, pos - floor));
  std::vector<std::string> words;
  size_t end = lead.size();
  while (words.size() < 3 && end > 0) {
    while (end > 0 && !IsWordByte(lead[end - 1]) && lead[end - 1] != '\'') --end;
    size_t begin = end;
    while (begin > 0 && (IsWordByte(lead[begin - 1]) || lead[begin - 1] == '\'')) --begin;
    if (begin == end) break;
    words.push_back(lead.substr(begin, end - begin));
    end = begin;
  }
  auto is = [&](size_t i, std::string_view w) { return i < words.size() && words[i] == w; };
  if ((is(0, "of") && is(1, "instead")) || (is(0, "than") && is(1, "rather"))) return true;
  for (size_t i = 0; i < 2 && i < words.size(); ++i) {
    if (words[i] == "not" || words[i] == "no" || words[i] == "without" || words[i].ends_with("n't")) return true;
  }
  return false;
}

// "although some of the dies are believed to have been manufactured by
// TSMC", "one of its two dies was manufactured by TSMC": what made a part of
// the chips ("some of", "a few of", "half of" the dies, as the subject of
// the verb before `pos`) is not the chip's foundry. Not "the second half of
// 2024", "like some rivals" or "as part of the deal".
bool OfAPart(const Page& page, Range s, size_t pos) {
  std::string_view text(page.text);
  static constexpr std::string_view kParts[] = {"some", "few", "several", "one", "many", "most", "half", "portion"};
  static constexpr std::string_view kBe[] = {"are", "were", "is", "was", "have", "has", "had", "been"};
  std::vector<std::string> words;
  std::vector<Range> ranges;
  for (auto w = NextWord(text, s.begin, pos); w; w = NextWord(text, w->end, pos)) {
    words.push_back(AsciiLower(page.View(*w)));
    ranges.push_back(*w);
  }
  // The part opens its clause: "Several of ...", "although a few of ...",
  // ", but one of ..."; not "which handles some of the largest models".
  static constexpr std::string_view kOpeners[] = {"although", "though", "but", "while", "whereas", "and", "yet", "with"};
  const auto opens_clause = [&](size_t k) {
    if (k > 0 && words[k - 1] == "a") --k;  // "a few of"
    if (k == 0) return true;
    const size_t gap = ranges[k - 1].end;
    if (text.substr(gap, ranges[k].begin - gap).find_first_of(",;") != std::string_view::npos) return true;
    return std::find(std::begin(kOpeners), std::end(kOpeners), words[k - 1]) != std::end(kOpeners);
  };
  for (size_t k = 0; k + 1 < words.size(); ++k) {
    if (words[k + 1] != "of" ||
        std::find(std::begin(kParts), std::end(kParts), words[k]) == std::end(kParts) || !opens_clause(k)) {
      continue;
    }
    size_t after = k + 2;
    while (after < words.size() && (words[after] == "the" || words[after] == "its" || words[after] == "their")) ++after;
    if (after >= words.size() || IsDigit(text[ranges[after].begin])) continue;  // "half of 2024"
    for (size_t v = k + 2; v < words.size() && v <= k + 7; ++v) {
      if (std::find(std::begin(kBe), std::end(kBe), words[v]) != std::end(kBe)) return true;
    }
  }
  return false;
}

// "24 TB of DDR memory", "1.5 TB of high-capacity DDR5-4800 memory", "1.5
// TB of memory in DDR5 DIMMs" in a sentence that also names HBM, GDDR or
// LPDDR: a slower tier beside the chip's memory (SambaNova's), read as the
// memory it made each SN40L a 1,500 GB chip. Alone ("16 GB of DDR4" on
// Habana's Goya) it is the chip's memory. Returns the tier's DDR word, which
// is no memory type of the chip either.
std::optional<Range> DdrWordAfter(const Page& page, Range s, size_t figure_end);

std::optional<Range> DdrTierBesideFasterMemory(const Page& page, Range s, size_t figure_end) {
  std::string_view text(page.text);
  const std::optional<Range> ddr = DdrWordAfter(page, s, figure_end);
  if (!ddr) return std::nullopt;
  for (auto w = NextWord(text, s.begin, s.end); w; w = NextWord(text, w->end, s.end)) {
    const std::string lower = AsciiLower(page.View(*w));
    if (lower.starts_with("hbm") || lower.starts_with("gddr") || lower.starts_with("lpddr")) return ddr;
  }
  return std::nullopt;
}

// "of high-capacity DDR5-4800 memory", "of memory in DDR5 DIMMs": the DDR
// word a memory figure is said to be of.
std::optional<Range> DdrWordAfter(const Page& page, Range s, size_t figure_end) {
  std::string_view text(page.text);
  std::optional<Range> ddr;
  int seen = 0;
  for (auto w = NextWord(text, figure_end, s.end); w && seen < 6 && !ddr; w = NextWord(text, w->end, s.end), ++seen) {
    const std::string lower = AsciiLower(page.View(*w));
    if (IsDigit(lower[0])) break;  // the next figure
    if (lower.starts_with("ddr")) ddr = w;
    if (lower == "memory" && seen > 0) {
      // "of memory in DDR5 DIMMs": one more look past "in".
      std::optional<Range> in = NextWord(text, w->end, s.end);
      std::optional<Range> kind = in ? NextWord(text, in->end, s.end) : std::nullopt;
      if (in && kind && AsciiLower(page.View(*in)) == "in" && AsciiLower(page.View(*kind)).starts_with("ddr")) ddr = kind;
      break;
    }
  }
  return ddr;
}

// "a 16-chip SambaRack", "an eight-accelerator baseboard": a count of chips
// joined to their noun, then within three words a system's scope word or a
// name that ends in one; or the system first, its chips after "of", as the
// subject of the figure's verb ("a SambaRack of 16 has", "a rack of 16 chips
// draws"; "a rack of 16 servers draws" is a rack of chips not counted).
struct CountedSystem {
  std::string scope;
  int chips = 0;  // 0: not said
};

std::optional<CountedSystem> CountedSystemIn(const Page& page, Range r) {
  std::string_view text(page.text);
  std::vector<Range> words;
  for (auto w = NextWord(text, r.begin, r.end); w; w = NextWord(text, w->end, r.end)) words.push_back(*w);
  const auto system_scope = [&](size_t j) {
    const std::string_view name = page.View(words[j]);
    std::string scope = AsciiLower(name);
    if (!page.IsSystemScope(scope)) scope = NamedScope(page, name);
    return scope;
  };
  for (size_t k = 0; k < words.size(); ++k) {
    const std::string w = AsciiLower(page.View(words[k]));
    const size_t dash = w.find('-');
    if (dash == std::string::npos || dash == 0 || !IsChipNoun(w.substr(dash + 1))) continue;
    const int chips = SmallCount(w.substr(0, dash)).value_or(0);
    if (chips < 2) continue;
    for (size_t j = k + 1; j < words.size() && j <= k + 3; ++j) {
      if (std::string scope = system_scope(j); !scope.empty()) return CountedSystem{scope, chips};
    }
  }
  // "a SambaRack of 16 has", "a rack of eight chips draws", "a DGX SuperPOD
  // of 32 DGX B200 systems delivers": the system is the subject of the
  // figure's verb, right after what it is of (at most three words); its
  // chips are counted only where that is all it is of, or chips. "comes in
  // a rack of 16 and draws", "a system of two parts with" name no system
  // the figure is of.
  static constexpr std::string_view kVerbs[] = {"has", "have", "holds", "hold", "draws", "draw", "delivers", "deliver",
                                                "offers", "offer", "provides", "provide", "packs", "pack", "reaches",
                                                "consumes", "uses", "needs", "requires", "totals", "gets", "features",
                                                "carries", "contains", "stores", "is", "are", "tops", "hits"};
  for (size_t k = 0; k + 2 < words.size(); ++k) {
    if (AsciiLower(page.View(words[k + 1])) != "of") continue;
    std::string scope = system_scope(k);
    if (scope.empty()) continue;
    // "The B200 GPU in an HGX baseboard of eight draws": the system is where
    // the subject sits, not the subject.
    bool placed = false;
    for (size_t b = k >= 3 ? k - 3 : 0; b < k; ++b) {
      static constexpr std::string_view kPlaces[] = {"in", "inside", "within", "into", "per", "across", "from", "on"};
      placed = placed || std::find(std::begin(kPlaces), std::end(kPlaces), AsciiLower(page.View(words[b]))) != std::end(kPlaces);
    }
    if (placed) continue;
    // The count as written, "4,096" whole; "4 to 8", "4-8" and a year are no count of chips.
    const Range count_word = words[k + 2];
    size_t e = count_word.begin;
    while (e < r.end && (IsDigit(text[e]) || (text[e] == ',' && e + 3 < r.end && IsDigit(text[e + 1]) &&
                                              IsDigit(text[e + 2]) && IsDigit(text[e + 3])))) {
      ++e;
    }
    std::optional<int> chips;
    size_t next = k + 3;
    bool range = false;  // "of 4 to 8 chips", "of 4-8": a system still, its chips not one count
    if (e > count_word.begin) {
      std::string digits(text.substr(count_word.begin, e - count_word.begin));
      std::erase(digits, ',');
      if (digits.size() > 7) continue;
      if (e + 1 < r.end && text[e] == '-' && IsDigit(text[e + 1])) {
        range = true;
        for (++e; e < r.end && IsDigit(text[e]);) ++e;
      }
      chips = std::stoi(digits);
      while (next < words.size() && words[next].begin < e) ++next;
      // "the Z9 platform of 2026": a year, unless chips follow ("a pod of 2048 chips").
      const bool year = digits.size() == 4 && *chips >= 1950 && *chips <= 2100 && text[count_word.begin + 1] != ',';
      if (year && !(next < words.size() && IsChipNoun(page.View(words[next])))) continue;
    } else {
      chips = SmallCount(page.View(count_word));
    }
    if (!chips || *chips < 2) continue;
    if (next + 1 < words.size() && (AsciiLower(page.View(words[next])) == "to" || AsciiLower(page.View(words[next])) == "or") &&
        (IsDigit(text[words[next + 1].begin]) || SmallCount(page.View(words[next + 1])))) {
      range = true;
      const size_t to_end = words[next + 1].end;
      next += 2;
      while (next < words.size() && words[next].begin <= to_end + 4 && IsDigit(text[words[next].begin])) ++next;  // "4,096"
    }
    // Up to three words of what it is of, then the verb.
    size_t verb = next;
    while (verb < words.size() && verb < next + 3 &&
           std::find(std::begin(kVerbs), std::end(kVerbs), AsciiLower(page.View(words[verb]))) == std::end(kVerbs)) {
      ++verb;
    }
    if (verb >= words.size() || std::find(std::begin(kVerbs), std::end(kVerbs), AsciiLower(page.View(words[verb]))) ==
                                    std::end(kVerbs)) {
      continue;
    }
    static constexpr std::string_view kJoins[] = {"to",   "and",  "or",    "but", "with", "the",
                                                  "in",   "that", "which", "who", "whose"};
    bool joined = false;
    for (size_t j = next; j < verb; ++j) {
      joined = joined || std::find(std::begin(kJoins), std::end(kJoins), AsciiLower(page.View(words[j]))) != std::end(kJoins);
    }
    if (joined) continue;
    const bool of_chips = verb == next || IsChipNoun(page.View(words[verb - 1]));
    return CountedSystem{scope, of_chips && !range ? *chips : 0};
  }
  return std::nullopt;
}

// Whether `r` names the host the chips sit in: "host", "hosts", "CPU".
bool NamesTheHost(const Page& page, Range r) {
  std::string_view text(page.text);
  for (auto w = NextWord(text, r.begin, r.end); w; w = NextWord(text, w->end, r.end)) {
    const std::string lower = AsciiLower(page.View(*w));
    if (lower == "host" || lower == "hosts" || lower == "cpu" || lower == "cpus") return true;
  }
  return false;
}

// Whether `r` names a system of several chips: a scope word ("rack",
// "servers", "pod") or a name ending in one ("SambaRack", "SuperPOD").
// The scope a word names a system by ("servers" -> server, "SambaRack" ->
// rack; schema table words_scope but for chip and core), or "".
std::string SystemScopeOf(const Page& page, Range word) {
  std::string_view text(page.text);
  auto scopes = page.schema.tables().find("words_scope");
  if (scopes == page.schema.tables().end() || word.empty()) return "";
  std::string lower = AsciiLower(page.View(word));
  if (lower.size() > 3 && lower.back() == 's') lower.pop_back();  // "servers", "systems"
  for (const auto& [key, unused] : scopes->second) {
    const std::string scope = AsciiLower(key);
    if (!page.IsSystemScope(scope)) continue;
    // (A name, not a word such as "subsystem".)
    if (lower == scope || (IsUpper(text[word.begin]) && lower.ends_with(scope))) return scope;
  }
  return "";
}

bool NamesASystem(const Page& page, Range r) {
  for (auto w = NextWord(page.text, r.begin, r.end); w; w = NextWord(page.text, w->end, r.end)) {
    if (!SystemScopeOf(page, *w).empty()) return true;
  }
  return false;
}

// Where a sentence's clauses part: ";", and a comma before a joining word.
// Another subject may speak after each.
constexpr std::string_view kClauseJoiners[] = {", and ", ", but ", ", while ", ", whereas ", ", so "};

// The start of the clause that holds `pos`, after the last joiner before it
// (at the space before the clause's first word); s.begin for the first.
// (Coarser than ClauseStart's: a comma alone does not part two subjects.)
size_t JoinedClauseStart(std::string_view text, Range s, size_t pos) {
  size_t clause = s.begin;
  for (size_t i = s.begin; i < pos; ++i) {
    if (text[i] == ';') clause = i + 1;
    if (text[i] != ',') continue;
    const std::string after = AsciiLower(text.substr(i, std::min<size_t>(12, pos - i)));
    for (std::string_view joiner : kClauseJoiners) {
      if (after.starts_with(joiner)) clause = i + joiner.size() - 1;
    }
    // ", compared with 16 Trainium2 chips in a Trn2 instance": the same.
    if (after.starts_with(", compared ") || after.starts_with(", versus ") || after.starts_with(", vs")) clause = i + 1;
  }
  // "... has 64 chips and a Trn2 instance has 16": "and" with a new subject.
  for (size_t i = clause; i + 5 < pos; ++i) {
    if (text[i] != ' ') continue;
    const std::string after = AsciiLower(text.substr(i, std::min<size_t>(10, pos - i)));
    if (after.starts_with(" and a ") || after.starts_with(" and an ") || after.starts_with(" and each ")) clause = i + 4;
  }
  return clause;
}

// "The Z9 draws 700 W, and the server CPU draws 350 W", "..., and its
// cooling system draws 5 kW": a later clause whose subject is another part
// of the system (schema table other_part_words), with no chip in it. Its
// figure was the chip's TDP, or the system's.
bool ClauseAboutAnotherPart(const Page& page, Range s, size_t pos, const std::vector<Mention>& mentions) {
  std::string_view text(page.text);
  const size_t clause = JoinedClauseStart(text, s, pos);
  if (clause == s.begin) return false;
  const auto parts = page.schema.tables().find("other_part_words");
  if (parts == page.schema.tables().end()) return false;
  bool part = false;
  std::string before;  // the word before, past numbers: "a rack of 16 fans" is a rack's
  for (auto w = NextWord(text, clause, pos); w; w = NextWord(text, w->end, pos)) {
    const std::string word = AsciiLower(page.View(*w));
    if (IsChipNoun(word) || std::any_of(mentions.begin(), mentions.end(), [&](const Mention& m) {
          return m.range.Overlaps(*w) && m.entity->kind == "chip";
        })) {
      return false;
    }
    if (parts->second.count(word) > 0 && before != "of" && before != "with") part = true;
    if (!IsDigit(word[0]) && !SmallCount(word)) before = word;
  }
  return part;
}

// "compared with 16 Trainium2 chips", "which replaced a design with 32
// chips", "up from 8 chips": a count in a comparison, of another thing than
// the subject (the UltraServer had them all).
// So is a count of what each part holds: "four Trn2 instances, each with 16
// Trainium2 chips" gave the UltraServer 16 chips.
bool CountInComparison(std::string_view text, Range s, size_t count_begin) {
  size_t from = s.begin;
  for (size_t i = s.begin; i < count_begin; ++i) {
    if (text[i] == ',' || text[i] == ';' || text[i] == '(') from = i + 1;
  }
  const std::string before = " " + AsciiLower(text.substr(from, count_begin - from));
  if (before.starts_with("  each ") || before.starts_with(" each ")) return true;
  for (const char* cue : {" compared ", " than ", " versus ", " vs ", " vs. ", " unlike ", " replaced ", " replaces ",
                          " up from ", " down from ", " instead of ", " previous ", " predecessor"}) {
    if (before.find(cue) != std::string::npos) return true;
  }
  return false;
}

// "The Trn2 UltraServer has 64 Trainium2 chips, and a Trn2 instance has 16
// chips", "The Z9 draws 700 W, and a Z9 server with 8 chips draws 10 kW":
// the start of a later clause, before `pos`, whose subject is another
// system than the sentence's: one the clause names by a word of its own (not
// inside a name the sentence resolved) that heads its subject (a verb or a
// preposition follows: "the Z9 SXM server module is rated at 700 W" is about
// the module). Its count was the subject's (the UltraServer had 16 chips)
// and its figures the chip's own (a server's 10 kW was the Z9's TDP).
// For a count, a system the clause refers back to is the subject's ("and the
// UltraServer has 64 chips", "so the system has"): `for_count`. For a
// figure, it is its scope all the same ("the chips each attach to a cold
// plate, and the rack as a whole is rated at 132 kW").
struct OtherSystemClause {
  size_t begin;       // where the clause starts
  std::string scope;  // the system its subject names
};
std::optional<OtherSystemClause> ClauseOfAnotherSystem(const Page& page, Range s, size_t pos,
                                                       const std::vector<Mention>& mentions, bool for_count) {
  std::string_view text(page.text);
  const size_t clause = JoinedClauseStart(text, s, pos);
  if (clause == s.begin) return std::nullopt;
  std::optional<Range> first = NextWord(text, clause, pos);
  if (!first) return std::nullopt;
  const std::string opener = AsciiLower(page.View(*first));
  const bool definite = opener == "the" || opener == "this" || opener == "that" || opener == "its" || opener == "their";
  // The systems the sentence named before this clause.
  std::vector<std::string> earlier;
  for (auto w = NextWord(text, s.begin, clause); w; w = NextWord(text, w->end, clause)) {
    if (std::string scope = SystemScopeOf(page, *w); !scope.empty()) earlier.push_back(std::move(scope));
  }
  for (auto w = NextWord(text, clause, pos); w; w = NextWord(text, w->end, pos)) {
    const bool named = std::any_of(mentions.begin(), mentions.end(),
                                   [&](const Mention& m) { return m.range.Contains(*w); });
    const std::string scope = named ? "" : SystemScopeOf(page, *w);
    if (scope.empty()) continue;
    const std::optional<Range> next = NextWord(text, w->end, pos);
    const std::string after = next ? AsciiLower(page.View(*next)) : "";
    const bool heads = !next || (!IsUpper(text[next->begin]) &&
                                    (after == "with" || after == "of" || after == "in" || after == "that" ||
                                     after == "which" || after == "is" || after == "are" || after == "can" ||
                                     after == "will" || after == "would" || after == "could" || after == "may" ||
                                     after == "has" || after == "have" || after == "alone" || after == "as" ||
                                     // a plural subject's verbs: "Trainium2 servers draw 40 kW"
                                     after == "draw" || after == "deliver" || after == "hold" || after == "offer" ||
                                     after == "provide" || after == "pack" || after == "carry" || after == "reach" ||
                                     after == "use" || after == "consume" || after == "run" || after == "share" ||
                                     after == "contain" || after == "combine" || after == "link" || after == "connect" ||
                                     (after.size() > 3 && after.back() == 's' && SystemScopeOf(page, *next).empty() &&
                                      !IsChipNoun(after))));
    if (!heads) return std::nullopt;
    if (for_count && definite &&
        (scope == "system" || std::find(earlier.begin(), earlier.end(), scope) != earlier.end())) {
      return std::nullopt;
    }
    return OtherSystemClause{clause, scope};
  }
  return std::nullopt;
}

// The asides of sentence `s`: what parentheses enclose, and what a pair of
// dashes (en, em, or a hyphen with spaces around it) sets off; a lone dash's
// aside runs to the sentence's end.
std::vector<Range> AsidesIn(std::string_view text, Range s) {
  std::vector<Range> asides;
  std::vector<Range> dashes;
  int depth = 0;
  size_t open = 0;
  for (size_t i = s.begin; i < s.end; ++i) {
    if (text[i] == '(') {
      if (depth++ == 0) open = i;
    } else if (text[i] == ')' && depth > 0) {
      if (--depth == 0) asides.push_back(Range{open, i + 1});
    } else if (text.substr(i, 3) == "\xE2\x80\x93" || text.substr(i, 3) == "\xE2\x80\x94") {
      dashes.push_back(Range{i, i + 3});
      i += 2;
    } else if (text[i] == '-' && i > s.begin && i + 1 < s.end && text[i - 1] == ' ' && text[i + 1] == ' ') {
      dashes.push_back(Range{i, i + 1});
    } else if (text.substr(i, 2) == "--" && i > s.begin && i + 2 < s.end && text[i - 1] == ' ' && text[i + 2] == ' ') {
      dashes.push_back(Range{i, i + 2});  // a dash typed as two hyphens
      ++i;
    }
  }
  for (size_t d = 0; d < dashes.size(); d += 2) {
    asides.push_back(Range{dashes[d].begin, d + 1 < dashes.size() ? dashes[d + 1].end : s.end});
  }
  return asides;
}

// ", which reportedly yields 60 percent,": a clause set off by commas that
// says something of its own about what the words before it name. It runs to
// the next comma or semicolon, or to the sentence's end.
std::vector<Range> RelativeClausesIn(std::string_view text, Range s) {
  std::vector<Range> clauses;
  for (size_t i = s.begin; i + 1 < s.end; ++i) {
    if (text[i] != ',' || !SpaceAt(text, i + 1)) continue;
    std::optional<Range> w = NextWord(text, i + 1, s.end);
    if (!w) break;
    const std::string lower = AsciiLower(text.substr(w->begin, w->size()));
    if (lower != "which" && lower != "who" && lower != "whose") continue;
    size_t end = w->end;
    while (end < s.end && text[end] != ';' && !(text[end] == ',' && end + 1 < s.end && SpaceAt(text, end + 1))) ++end;
    clauses.push_back(Range{i, std::min(end + 1, s.end)});
    i = end - 1;
  }
  return clauses;
}

// Whether a hedge inside `aside` is about the aside alone: whether the aside
// claims something of its own, a figure ("– which reportedly yields 60
// percent –") or words other than a hedge's and an attribution's
// ("—reportedly the most of any Chinese chip—", "(reportedly built by
// SMIC)"). "(estimated)", "– reportedly.", "(according to estimates by
// SemiAnalysis)", "(per a 2024 report, unconfirmed)" and "(the figure is
// unconfirmed)" say only where the sentence's figures come from. The words
// are the schema's (tables hedge_words and attribution_words); a name and
// a year are an attribution's too.
bool HedgeStaysInAside(const Page& page, Range aside) {
  std::string_view text(page.text);
  const auto in_table = [&](const char* table, const std::string& lower) {
    auto t = page.schema.tables().find(table);
    if (t == page.schema.tables().end()) return false;
    return std::any_of(t->second.begin(), t->second.end(), [&](const auto& entry) { return AsciiLower(entry.first) == lower; });
  };
  // "(a figure SemiAnalysis estimated from teardown photos)": about the
  // sentence's figures, whatever else it says.
  for (auto w = NextWord(text, aside.begin, aside.end); w; w = NextWord(text, w->end, aside.end)) {
    const std::string lower = AsciiLower(text.substr(w->begin, w->size()));
    for (std::string_view about : {"figure", "figures", "number", "numbers", "spec", "specs", "specification", "specifications"}) {
      if (lower == about) return false;
    }
  }
  bool first = true;
  for (auto w = NextWord(text, aside.begin, aside.end); w; w = NextWord(text, w->end, aside.end), first = false) {
    const std::string_view word = text.substr(w->begin, w->size());
    if (IsDigit(word[0])) {
      const bool year = word.size() == 4 && std::all_of(word.begin(), word.end(), IsDigit) &&
                        (word.starts_with("19") || word.starts_with("20"));
      if (!year) return true;
      continue;
    }
    if (IsUpper(word[0]) && !first) continue;  // a name: "by SemiAnalysis"
    const std::string lower = AsciiLower(word);
    if (!in_table("hedge_words", lower) && !in_table("attribution_words", lower)) return true;
  }
  return false;
}

// Where the clause holding `at` begins: after the last clause boundary
// (ClauseEnd's) before it, or at the sentence's start.
size_t ClauseStart(std::string_view text, Range s, size_t at) {
  size_t from = s.begin;
  for (size_t end = ClauseEnd(text, from, at); end < at; end = ClauseEnd(text, from, at)) from = end + 1;
  return from;
}

void ReadSentence(Page& page, Range s, const SentenceOptions& opt) {
  std::string_view text(page.text);
  const EntityId& subject = opt.subject.empty() ? page.subject() : opt.subject;
  const std::string& kind = opt.subject.empty() ? page.subject_kind() : opt.subject_kind;
  if (subject.empty()) return;

  std::vector<DateToken> dates = FindDates(text, s, true);
  // "2000 GB" is a figure, not the year 2000.
  std::erase_if(dates, [&](const DateToken& d) {
    if (d.date.precision != DatePrecision::kYear) return false;
    std::optional<QuantityParse> q = page.schema.ParseQuantity(
        std::string(text.substr(d.range.begin, std::min<size_t>(s.end - d.range.begin, 40))));
    return q && !q->unit.empty();
  });
  std::vector<Range> date_ranges;
  for (const DateToken& d : dates) date_ranges.push_back(d.range);
  auto cites = FindCitationTokens(page, s, date_ranges);
  std::vector<Range> masked = date_ranges;
  for (const auto& c : cites) masked.push_back(c.first);
  std::vector<Mention> mentions = page.MentionsIn(s, masked);
  for (const Mention& m : mentions) masked.push_back(m.range);

  std::vector<LabelHit> labels;
  for (LabelHit& h : page.LabelsIn(s)) {
    bool inside = false;
    for (const Mention& m : mentions) inside = inside || m.range.Contains(h.range);
    if (!inside) labels.push_back(h);
  }
  if (std::optional<LabelHit> process = ProcessNodeInProse(page, s, mentions, labels)) labels.push_back(*process);

  // Figures.
  std::vector<Figure> figures;
  for (size_t i = s.begin; i < s.end; ++i) {
    bool dollar = text[i] == '$' && i + 1 < s.end && IsDigit(text[i + 1]);
    if (!dollar && !(IsDigit(text[i]) && WordStartsAt(text, i) && (i == 0 || text[i - 1] != '.'))) continue;
    if (InAny(masked, i) || InAny(masked, dollar ? i + 1 : i)) continue;
    if (!dollar) {
      // "the 910B has twice as much": the subject's designation, not 910 bytes.
      size_t word_end = i;
      while (word_end < s.end && (IsWordByte(text[word_end]) ||
                                  ((text[word_end] == '.' || text[word_end] == ',') && word_end + 1 < s.end &&
                                   IsDigit(text[word_end + 1])))) {
        ++word_end;
      }
      const std::string_view word = text.substr(i, word_end - i);
      if (IsAsciiAlpha(word.back()) && IsUpper(word.back()) && page.NamedBySubject(word)) {
        i = word_end - 1;
        continue;
      }
    }
    // After a minus sign, a figure below zero; after "5-", the end of a
    // range ("5-9 W"), which read alone was a 9 W claim. Neither is one.
    // (A figure's own digits before the hyphen, not a name's: "X4-80GB" is a model.)
    // ("600–700 W", with an en dash, too.)
    const bool en_dash = !dollar && i >= s.begin + 4 &&
                         (text.substr(i - 3, 3) == "\xE2\x80\x93" || text.substr(i - 3, 3) == "\xE2\x80\x94") &&
                         IsDigit(text[i - 4]);
    bool range_end = en_dash || (!dollar && i >= s.begin + 2 && text[i - 1] == '-' && IsDigit(text[i - 2]));
    if (range_end) {
      size_t first = en_dash ? i - 4 : i - 2;
      while (first > s.begin && (IsDigit(text[first - 1]) || text[first - 1] == '.' || text[first - 1] == ',')) --first;
      range_end = WordStartsAt(text, first);
    }
    if (!dollar && (range_end || MinusSignBefore(text, s.begin, i))) {
      size_t end = i;
      while (end < s.end && (IsDigit(text[end]) || text[end] == '.' || text[end] == ',')) ++end;
      size_t from = en_dash ? i - 3 : i - 1;
      while (range_end && from > s.begin && (IsDigit(text[from - 1]) || text[from - 1] == '.')) --from;
      page.Warn(i, std::string(range_end ? "a range" : "a figure below zero") + " ('" +
                       std::string(text.substr(from, end - from)) + "'): no claim made of it");
      i = end - 1;
      continue;
    }
    if (!dollar) {
      if (auto c = CountAt(page, i, s.end)) {
        // "per 16-chip server" is a qualifier of another figure, not a count of its own.
        bool after_per = i >= 4 && AsciiLower(text.substr(i - 4, 4)) == "per ";
        if (!after_per) {
          Figure f;
          f.range = c->range;
          f.count = true;
          f.count_label = c->label;
          f.canonical = c->number;
          figures.push_back(f);
        }
        i = c->range.end - 1;
        continue;
      }
    }
    std::string tail(text.substr(i, std::min(s.end - i, size_t{80})));
    std::optional<QuantityParse> q = page.schema.ParseQuantity(tail);
    if (q && !q->unit.empty() && q->consumed > 0) {
      Figure f;
      f.range = Trim(text, Range{i, i + q->consumed});
      f.canonical = q->canonical;
      f.dimension = q->dimension;
      figures.push_back(f);
      i = f.range.end - 1;
      continue;
    }
    // "delivering up to 362 FP8 petaflops": a format word between the
    // number and its unit.
    // Not a name's number: "Gaudi 3 FP8 TFLOPS", "Table 2 FP8 TFLOPS".
    size_t word_before = i;
    while (word_before > s.begin && text[word_before - 1] == ' ') --word_before;
    const size_t after_word_before = word_before;
    while (word_before > s.begin && IsWordByte(text[word_before - 1])) --word_before;
    const bool after_a_name = word_before < after_word_before && IsUpper(text[word_before]);
    if (std::optional<NumberToken> n = NumberAt(text, i, s.end); n && !dollar && !after_a_name) {
      // Each word right after the one before, one space apart; "720 sparse
      // FP8 petaflops", "4,614 peak FP8 TFLOPs": up to two such words first.
      size_t until = n->range.end;
      const auto next_word = [&]() -> std::optional<Range> {
        std::optional<Range> w = NextWord(text, until, s.end);
        if (!w || w->begin != until + 1 || !SpaceAt(text, until)) return std::nullopt;
        return w;
      };
      std::string sparsity;
      std::optional<Range> w = next_word();
      for (int k = 0; k < 2 && w; ++k) {
        const std::string word = AsciiLower(page.View(*w));
        if (word != "peak" && word != "sparse" && word != "dense") break;
        if (word != "peak") sparsity = word;
        until = w->end;
        w = next_word();
      }
      std::optional<std::string> format;
      std::optional<std::string> second_format;
      if (w) format = page.FormatWord(page.View(*w));
      // "10 FP4/FP6 petaflops": one figure for each format.
      if (format && w->end < s.end && text[w->end] == '/') {
        std::optional<Range> other = NextWord(text, w->end, s.end);
        if (other && other->begin == w->end + 1) second_format = page.FormatWord(page.View(*other));
        if (second_format) {
          w->end = other->end;
        } else {
          format.reset();
        }
      }
      if (format) {
        const std::string head(text.substr(i, n->range.end - i));
        const size_t unit_at = w->end + 1;
        std::optional<QuantityParse> fq;
        if (unit_at < s.end && SpaceAt(text, w->end)) {
          fq = page.schema.ParseQuantity(head + " " + std::string(text.substr(unit_at, std::min(s.end - unit_at, size_t{60}))));
        }
        if (fq && !fq->unit.empty() && fq->consumed > head.size() + 1) {
          Figure f;
          f.range = Trim(text, Range{i, unit_at + (fq->consumed - head.size() - 1)});
          f.canonical = fq->canonical;
          f.dimension = fq->dimension;
          f.format = *format;
          if (second_format && *second_format != *format) f.second_format = *second_format;
          f.sparsity = sparsity;
          figures.push_back(f);
          i = f.range.end - 1;
          continue;
        }
      }
    }
    while (i + 1 < s.end && (IsDigit(text[i + 1]) || text[i + 1] == ',' || text[i + 1] == '.')) ++i;
  }

  // "range from 1.5 TB to 1.2 PB", "between 600 and 900 W": the ends of a
  // range, which claim neither value (each was stored as the figure).
  for (size_t fi = 0; fi + 1 < figures.size(); ++fi) {
    const Figure& low = figures[fi];
    const Figure& high = figures[fi + 1];
    if (low.count || high.count) continue;
    const std::string between = AsciiLower(page.View(Trim(text, Range{low.range.end, high.range.begin})));
    const std::string before = AsciiLower(text.substr(s.begin, low.range.begin - s.begin));
    // Any "X W to Y W": "about 600 W to 700 W" is no claim of either, and
    // "from 80 GB to 141 GB" (an upgrade) gave the new chip the old figure.
    const bool from_to = between == "to" && low.dimension == high.dimension;
    const bool between_and = between == "and" && before.ends_with("between ");
    if (!from_to && !between_and) continue;
    page.Warn(low.range.begin, "a range ('" + page.Str(Range{low.range.begin, high.range.end}) + "'): no claim made of it");
    figures.erase(figures.begin() + static_cast<std::ptrdiff_t>(fi), figures.begin() + static_cast<std::ptrdiff_t>(fi) + 2);
    --fi;
  }

  // "between 300 and 350 W": the first end has no unit of its own.
  for (size_t fi = 0; fi < figures.size(); ++fi) {
    const std::string before = AsciiLower(text.substr(s.begin, figures[fi].range.begin - s.begin));
    if (figures[fi].count || !before.ends_with(" and ")) continue;
    size_t b = before.size() - 5;
    while (b > 0 && (IsDigit(before[b - 1]) || before[b - 1] == ',' || before[b - 1] == '.')) --b;
    if (b == before.size() - 5 || !before.substr(0, b).ends_with("between ")) continue;
    page.Warn(s.begin + b, "a range ('" + page.Str(Range{s.begin + b, figures[fi].range.end}) + "'): no claim made of it");
    figures.erase(figures.begin() + static_cast<std::ptrdiff_t>(fi));
    --fi;
  }

  std::vector<Pending> drafts;
  std::vector<const Mention*> consumed;
  // "Per server, the DGX B200 offers 72 petaflops ... with 1,440 GB": a
  // server's totals, stored as one chip's before.
  Qualifiers sentence_scope;
  for (const Figure& f : figures) {
    if (f.count) continue;
    sentence_scope = SentenceScope(page, Range{s.begin, f.range.begin});
    break;
  }
  // "... links 384 Ascend 910C chips across 16 racks. The system delivers
  // about 300 petaflops": a total of the system the sentence before counted
  // the chips of. Without the count no chip's share could be told. Only
  // for "The/This/Its <scope>" and a count of the page's chips right after
  // that scope's word ("A TPU v5p pod contains 8,960 chips. The Ironwood
  // pod ...", "servers with eight chips", "72 Blackwell GPUs" are not).
  if (auto scope = sentence_scope.find(qualifier::kScope);
      scope != sentence_scope.end() && page.IsSystemScope(scope->second) &&
      !sentence_scope.count(qualifier::kScopeCount)) {
    std::optional<Range> first = NextWord(text, s.begin, s.end);
    std::optional<Range> second = first ? NextWord(text, first->end, s.end) : std::nullopt;
    const std::string opener = first ? AsciiLower(page.View(*first)) : "";
    const bool refers_back = (opener == "the" || opener == "this" || opener == "its") && second &&
                             AsciiLower(page.View(*second)) == scope->second;
    size_t end = s.begin;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
    if (refers_back && end > 0 && text[end - 1] != '\n') {
      size_t begin = end - 1;
      while (begin > 0 && text[begin - 1] != '\n' &&
             !((text[begin - 1] == '.' || text[begin - 1] == '!' || text[begin - 1] == '?') && SpaceAt(text, begin))) {
        --begin;
      }
      if (std::optional<long long> chips = ChipsOfScopeIn(page, Range{begin, end}, scope->second)) {
        sentence_scope.emplace(qualifier::kScopeCount, std::to_string(*chips));
      }
    }
  }

  auto subject_for = [&](const PredicateDef& p, EntityId* id, std::string* k, bool* is_page) {
    if (Page::Applies(p, kind)) {
      *id = subject;
      *k = kind;
      *is_page = subject == page.subject();
      return true;
    }
    // Another entity the sentence names, of a kind the predicate is about.
    std::optional<EntityId> found;
    std::string found_kind;
    for (const Mention& m : mentions) {
      if (!Page::Applies(p, m.entity->kind)) continue;
      if (found && *found != m.entity->id) return false;  // two candidates: ambiguous
      found = m.entity->id;
      found_kind = m.entity->kind;
    }
    if (!found) return false;
    *id = *found;
    *k = found_kind;
    *is_page = false;
    return true;
  };

  std::optional<LabelHit> memory_bandwidth;
  std::optional<LabelHit> memory_per_chip;
  std::vector<Range> slower_tiers;  // "24 TB of DDR5 memory" beside HBM: its "DDR5"
  // The opening's scope reaches to the end of its clause: after ";",
  // ", while" or ", whereas" another subject speaks ("An Ironwood pod of
  // 9,216 chips delivers 42.5 exaflops; a single chip delivers 4,614
  // TFLOPS": the chip's figure was the pod's).
  size_t scope_reach = s.end;
  for (const Figure& f : figures) {
    if (f.count) continue;
    for (size_t i = f.range.end; i < s.end && scope_reach == s.end; ++i) {
      if (text[i] == ';') scope_reach = i;
      if (text[i] == ',') {
        const std::string after = AsciiLower(text.substr(i, std::min<size_t>(10, s.end - i)));
        if (after.starts_with(", while ") || after.starts_with(", whereas ")) scope_reach = i;
        // "In a Trn2 UltraServer, 64 Trainium2 chips deliver 83.2 PFLOPS,
        // and Trainium2 alone draws 500 W": a clause whose subject is the
        // chip itself (its name, or "each chip", "a single chip").
        // (One chip: "the chips together", "its chips", "Trainium2
        // servers" are not.)
        for (std::string_view joiner : kClauseJoiners) {
          if (!after.starts_with(joiner)) continue;
          std::optional<Range> w = NextWord(text, i + joiner.size() - 1, s.end);
          bool each = false;
          for (int skipped = 0; w && skipped < 2; ++skipped) {
            const std::string l = AsciiLower(page.View(*w));
            if (l != "the" && l != "a" && l != "each" && l != "every" && l != "one" && l != "single") break;
            each = each || l == "each" || l == "every";
            w = NextWord(text, w->end, s.end);
          }
          if (!w) continue;
          const std::string word = AsciiLower(page.View(*w));
          const std::optional<Range> next = NextWord(text, w->end, s.end);
          const bool one_chip_noun = IsChipNoun(word) && (word.back() != 's' || each);
          const bool the_chip_named = page.MentionsSubject(*w) && !(next && (!SystemScopeOf(page, *next).empty() ||
                                                                              IsChipNoun(page.View(*next))));
          if (one_chip_noun || the_chip_named) scope_reach = i;
        }
      }
    }
    break;
  }
  const Qualifiers no_scope;
  for (size_t fi = 0; fi < figures.size(); ++fi) {
    const Figure& f = figures[fi];
    // The DDR of a host's memory ("The host VMs provide 2 TB of DDR5") or of
    // a system's slower tier ("while the SambaRack holds 24 TB of DDR5
    // memory", "196 TB of DDR5 memory per rack") is no memory type of the
    // chip. "The Z9 pairs 64 GB of HBM3 with 1.5 TB of DDR5" is the chip's.
    if (!f.count && f.dimension == "bytes") {
      if (const std::optional<Range> ddr = DdrWordAfter(page, s, f.range.end)) {
        const size_t next = fi + 1 < figures.size() ? figures[fi + 1].range.begin : s.end;
        if (NamesTheHost(page, Range{fi > 0 ? figures[fi - 1].range.end : s.begin, f.range.begin}) ||
            (DdrTierBesideFasterMemory(page, s, f.range.end) &&
             (NamesASystem(page, Range{s.begin, f.range.begin}) || NamesASystem(page, Range{ddr->end, next})))) {
          slower_tiers.push_back(*ddr);
        }
      }
    }
    const LabelHit* chosen = nullptr;
    if (f.count) {
      chosen = &f.count_label;
    } else {
      size_t best = std::numeric_limits<size_t>::max();
      auto consider = [&](const LabelHit& h, size_t distance) {
        const PredicateDef* p = page.Predicate(h.def->predicate);
        if (p == nullptr || p->type != ValueKind::kQuantity || p->dimension != f.dimension) return;
        if (distance < best) {
          best = distance;
          chosen = &h;
        }
      };
      for (const LabelHit& h : labels) {
        // "$0.596 per chip-hour": a label inside another figure belongs to that figure.
        bool elsewhere = false;
        for (const Figure& g : figures) elsewhere = elsewhere || (&g != &f && g.range.Contains(h.range));
        if (elsewhere) continue;
        // "0.8 petaflops in BF16, 1.5 petaflops with 9-bit formats": a label
        // written after another figure, joined to it, is that figure's.
        if (h.range.end <= f.range.begin) {
          bool earlier_figures = false;
          const PredicateDef* hp = page.Predicate(h.def->predicate);
          for (const Figure& g : figures) {
            // Only a label that fits that figure ("700W FP8 3,958 TFLOPS": FP8 is no power's).
            if (&g == &f || g.range.end > h.range.begin || g.count || hp == nullptr || hp->dimension != g.dimension) continue;
            const std::string joint = AsciiLower(page.View(Trim(text, Range{g.range.end, h.range.begin})));
            earlier_figures = earlier_figures || joint.empty() || joint == "in" || joint == "of" || joint == "at" ||
                              joint == "for" || joint == "with";
          }
          if (earlier_figures) continue;
        }
        size_t distance = f.range.Contains(h.range)      ? 0
                          : h.range.end <= f.range.begin ? f.range.begin - h.range.end + 1
                          : h.range.begin >= f.range.end ? h.range.begin - f.range.end + 1
                                                         : 1;
        consider(h, distance);
      }
      for (const LabelHit& h : opt.context_labels) consider(h, std::numeric_limits<size_t>::max() - 1);
      if (chosen == nullptr) {
        memory_bandwidth = MemorysBandwidth(page, s, labels, figures, fi);
        if (memory_bandwidth) chosen = &*memory_bandwidth;
      }
      if (chosen == nullptr) {
        memory_per_chip = MemoryPerChip(page, s, figures, fi);
        if (memory_per_chip) chosen = &*memory_per_chip;
      }
    }
    if (chosen == nullptr) continue;
    // "192 GB per chip of HBM3E, up from 32 GB per chip on Trillium": the
    // figure a change started from, another chip's or an older one's.
    if (!f.count) {
      const std::string before = AsciiLower(text.substr(s.begin, f.range.begin - s.begin));
      if (before.ends_with("up from ") || before.ends_with("down from ")) continue;
      // "The Z9 draws 700 W, compared with 500 W for the Z8", "versus 500 W
      // for its predecessor", "than the 500 W of the Z8": a figure set
      // against one of the same kind before it is another thing's (a chip the
      // schema knows is dropped elsewhere; an unknown one's was the Z9's).
      size_t earlier = fi;
      while (earlier > 0 && figures[earlier - 1].count) --earlier;  // past counts: "vs. 32 chips drawing 30 kW"
      if (earlier > 0 && figures[earlier - 1].dimension == f.dimension) {
        const Figure& against = figures[earlier - 1];
        const std::string between =
            " " + AsciiLower(text.substr(against.range.end, f.range.begin - against.range.end)) + " ";
        bool set_against = false;
        for (const char* cue : {" compared ", " versus ", " vs ", " vs. ", " than ", " against ", " unlike "}) {
          set_against = set_against || between.find(cue) != std::string::npos;
        }
        // (Not the chip's own other form: "rated at 600 W, versus 900 W for the OAM module".)
        const size_t next = fi + 1 < figures.size() ? figures[fi + 1].range.begin : s.end;
        const std::string after = " " + AsciiLower(text.substr(f.range.end, next - f.range.end)) + " ";
        for (const char* form : {" module", " card", " oam", " pcie", " sxm", " variant", " version", " form factor",
                                 " board", " air-cooled", " liquid-cooled"}) {
          if (after.find(form) != std::string::npos) set_against = false;
        }
        if (set_against) {
          page.Warn(f.range.begin, "'" + page.Str(f.range) + "' is a figure compared with; no claim made of it");
          continue;
        }
      }
    }
    const PredicateDef* p = page.Predicate(chosen->def->predicate);
    if (p == nullptr) continue;
    // "Peak FP8 performance per watt: 4.5 TFLOPS", "FP8 efficiency: 3
    // TFLOPS": a throughput's label made a ratio by the words between it and
    // the figure; read as the label's, the chip's FP8 was 4.5 TFLOPS.
    if (!f.count && p->dimension == "ops_per_second" && chosen->range.end <= f.range.begin) {
      const std::string between = AsciiLower(text.substr(chosen->range.end, f.range.begin - chosen->range.end));
      if (between.find("per watt") != std::string::npos || between.find("efficiency") != std::string::npos ||
          between.find("/watt") != std::string::npos || between.find("per w ") != std::string::npos ||
          between.find("per w:") != std::string::npos) {
        continue;
      }
    }
    // "2 TiB host memory": the processors' memory, not the chips'. "256 GB
    // of Streaming Memory": Graphcore's DRAM beside a machine's IPUs, which
    // read per chip made a Bow IPU a 64 GB chip.
    if (p->name == "memory" && !f.count) {
      std::optional<Range> next = NextWord(text, f.range.end, s.end);
      std::string word = next ? AsciiLower(page.View(*next)) : "";
      if (word == "of" && (next = NextWord(text, next->end, s.end))) word = AsciiLower(page.View(*next));
      if (word == "host" || word == "system" || word == "cpu" || word == "ram" || word == "dram" || word == "streaming") {
        continue;
      }
      // "The host VMs provide 2 TB of DDR5 memory": the host's.
      if (NamesTheHost(page, Range{fi > 0 ? figures[fi - 1].range.end : s.begin, f.range.begin})) continue;
      if (DdrTierBesideFasterMemory(page, s, f.range.end)) continue;
      // "Streaming Memory: up to 448 GB", "Host memory: 2 TB": the word before the label.
      size_t before_label = chosen->range.begin;
      while (before_label > s.begin && SpaceAt(text, before_label - 1)) --before_label;
      size_t word_begin = before_label;
      while (word_begin > s.begin && IsWordByte(text[word_begin - 1])) --word_begin;
      const std::string label_word = AsciiLower(text.substr(word_begin, before_label - word_begin));
      if (label_word == "host" || label_word == "system" || label_word == "cpu" || label_word == "streaming") continue;
    }
    // "375 W max, 240 W average": a typical draw is not the design power.
    if (p->name == "tdp" && !f.count && NotDesignPower(text, s, fi > 0 ? figures[fi - 1].range.end : s.begin, f.range)) {
      page.Warn(f.range.begin, "'" + page.Str(f.range) + "' is an average, typical, supply or provisioned power, not a TDP; no claim made of it");
      continue;
    }
    if (f.count && ClauseOfAnotherSystem(page, s, f.range.begin, mentions, /*for_count=*/true)) {
      page.Warn(f.range.begin, "'" + page.Str(f.range) + "' counts what another system of the sentence holds; no claim made of it");
      continue;
    }
    if (!f.count && ClauseAboutAnotherPart(page, s, f.range.begin, mentions)) {
      page.Warn(f.range.begin, "'" + page.Str(f.range) + "' is another part's (a CPU, fan, switch, cooling ...); no claim made of it");
      continue;
    }
    if (f.count && CountInComparison(text, s, f.range.begin)) {
      page.Warn(f.range.begin, "'" + page.Str(f.range) + "' is a count compared with; no claim made of it");
      continue;
    }
    Pending pd;
    if (!subject_for(*p, &pd.draft.subject, &pd.subject_kind, &pd.page_subject)) continue;
    Draft& d = pd.draft;
    d.predicate = p->name;
    d.qualifiers = chosen->def->qualifiers;
    for (const auto& [k, v] : chosen->extra) d.qualifiers.emplace(k, v);
    if (!f.count) {
      // Scope and format written after the figure, up to the next figure.
      size_t next = fi + 1 < figures.size() ? figures[fi + 1].range.begin : s.end;
      // (No format for a power, a size or a bandwidth: "Max TDP 700W FP8 3,958 TFLOPS".)
      const bool takes_format = p->dimension != "watts" && p->dimension != "bytes" && p->dimension != "bytes_per_second";
      if (!f.format.empty() && takes_format) d.qualifiers.emplace(qualifier::kFormat, f.format);
      if (!f.sparsity.empty() && p->dimension == "ops_per_second") d.qualifiers.emplace(qualifier::kSparsity, f.sparsity);
      for (const auto& [k, v] : QualifiersIn(page, Range{f.range.end, ClauseEnd(text, f.range.end, next)})) {
        if (k == qualifier::kFormat && (d.qualifiers.count(k) || !takes_format)) continue;
        d.qualifiers.emplace(k, v);
      }
      // "Each core has ... 24 MiB": a scope written before the figure.
      size_t prev = fi > 0 ? figures[fi - 1].range.end : s.begin;
      std::string before = AsciiLower(text.substr(prev, f.range.begin - prev));
      if (!d.qualifiers.count(qualifier::kScope)) {
        for (const char* lead : {"each ", "every "}) {
          size_t at = before.find(lead);
          if (at == std::string::npos) continue;
          // The scope word, or a word for a chip, within three words:
          // "each core", "Per server, each accelerator has 192 GB", "Each
          // Blackwell GPU carries 192 GB".
          // ("Each of the 16 chips": "of the" are not counted; a scope word
          // first: "Each Z900 server packs eight accelerators" is a server's.)
          Range w{prev + at + std::string(lead).size(), f.range.begin};
          std::vector<std::string_view> next_words;
          for (std::optional<Range> word = NextWord(text, w.begin, w.end); word && next_words.size() < 3;
               word = NextWord(text, word->end, w.end)) {
            const std::string_view v = text.substr(word->begin, word->size());
            const std::string l = AsciiLower(v);
            if (l != "of" && l != "the" && l != "its" && l != "these" && l != "those") next_words.push_back(v);
          }
          // "Each PE has 384 KB": a part of the chip, read as its scope ("core").
          // ("Each of the 16 Z9 servers": the plural too; "Z9" before it is no chip.)
          const auto singular = [](std::string_view v) {
            return v.size() > 3 && (v.back() == 's' || v.back() == 'S') ? v.substr(0, v.size() - 1) : v;
          };
          auto scope_word = std::find_if(next_words.begin(), next_words.end(), [&](std::string_view v) {
            return page.IsScopeWord(v) || page.IsScopeWord(singular(v)) || !page.PartScopeOf(v).empty();
          });
          // "each H100 SXM5 is rated at 700W": a chip named by its designation.
          auto chip_word = std::find_if(next_words.begin(), next_words.end(), [](std::string_view v) {
            return IsChipNoun(v) || (std::any_of(v.begin(), v.end(), IsDigit) && std::any_of(v.begin(), v.end(), IsUpper));
          });
          // A part's scope only in the part's own clause: "Each die is built
          // on N3, and the Z9 carries 192 GB", "Each die connects to four
          // stacks, for 192 GB on the Z9" are the chip's.
          const auto in_own_clause = [&](std::string_view word) {
            const size_t at = static_cast<size_t>(word.data() + word.size() - text.data());
            return text.substr(at, f.range.begin - at).find_first_of(",;") == std::string_view::npos;
          };
          if (scope_word != next_words.end() && page.IsPartScope(AsciiLower(singular(*scope_word))) &&
              !in_own_clause(*scope_word)) {
            // the chip's, as the sentence's scope says
          } else if (scope_word != next_words.end()) {
            const std::string part = page.PartScopeOf(*scope_word);
            const std::string_view word = page.IsScopeWord(*scope_word) ? *scope_word : singular(*scope_word);
            d.qualifiers.emplace(qualifier::kScope, part.empty() ? AsciiLower(word) : part);
          } else if (chip_word != next_words.end()) {
            d.qualifiers.emplace(qualifier::kScope, "chip");
          }
        }
      }
      // "The DGX H100 draws 10.2 kW with eight H100 GPUs, each rated at 700
      // W": each of the chips just counted. Given the server's scope, a
      // chip's TDP was the server's. So too "A rack of 64 chips that each
      // draw 700 W", which gave the chip's figure to the rack.
      if (!d.qualifiers.count(qualifier::kScope)) {
        const std::string lead = AsciiLower(text.substr(s.begin, f.range.begin - s.begin));
        // Only where "each" governs the figure: its verb, a few words, then
        // the figure ("that each draw up to 700 W", ", each rated at 700
        // W"). Another clause or predicate between them is about something
        // else ("72 GPUs each sit on compute trays; the rack draws 120 kW",
        // "GPUs each connect to the switches and together draw 120 kW",
        // "eight MI300X GPUs each and 1.5 TB of HBM3").
        size_t each = lead.rfind(" each ");
        if (const size_t aside = lead.rfind(" each,"); aside != std::string::npos && (each == std::string::npos || aside > each)) {
          each = aside;
        }
        bool governs = each != std::string::npos && s.begin + each >= prev;
        if (governs) {
          std::string_view between = std::string_view(lead).substr(each + 5);
          // ("8 chips that each, at peak, draw 700 W": an aside between
          // commas is no other clause.)
          if (between.starts_with(",")) {
            const size_t close = between.find(',', 1);
            size_t aside_words = 0;
            const std::string_view aside = between.substr(1, close == std::string_view::npos ? 0 : close - 1);
            for (auto w = NextWord(aside, 0, aside.size()); w; w = NextWord(aside, w->end, aside.size())) ++aside_words;
            if (close != std::string_view::npos && aside_words >= 1 && aside_words <= 3 &&
                aside.find_first_of(";:") == std::string_view::npos) {
              between = between.substr(close + 1);
            }
          }
          if (between.starts_with(" ")) between.remove_prefix(1);
          size_t words = 0;
          for (auto w = NextWord(between, 0, between.size()); w; w = NextWord(between, w->end, between.size())) ++words;
          governs = words >= 1 && words <= 5 && between.find_first_of(",;:") == std::string_view::npos;
          // ("8 chips that each share a 10 kW power budget": theirs together.)
          for (const char* other : {"and", "or", "share", "shares", "shared", "together", "combined", "total"}) {
            if (FindLowerWord(between, other) != std::string_view::npos) governs = false;
          }
        }
        if (governs) {
          size_t end = each;
          auto drop = [&](std::string_view word) {
            if (!std::string_view(lead).substr(0, end).ends_with(word)) return false;
            end -= word.size();
            return true;
          };
          // "chips that can each draw 700 W"
          for (const char* modal : {" can", " will", " may", " could", " would", " must", " should"}) {
            if (drop(modal)) break;
          }
          if (!drop(" that")) drop(" which");
          drop(",");
          // "holds 8 GPUs and each draws 700 W": each of the chips just named.
          drop(" and");
          drop(",");
          size_t begin = end;
          while (begin > 0 && IsWordByte(lead[begin - 1])) --begin;
          std::string noun = lead.substr(begin, end - begin);
          // Up to `n` words of the lead before the noun, nearest first.
          const auto words_before_noun = [&](size_t n) {
            std::vector<std::string_view> back;
            for (size_t at = begin; back.size() < n;) {
              while (at > 0 && !IsWordByte(lead[at - 1])) --at;
              const size_t word_end = at;
              while (at > 0 && IsWordByte(lead[at - 1])) --at;
              if (at == word_end) break;
              back.push_back(std::string_view(lead).substr(at, word_end - at));
            }
            return back;
          };
          // "Eight chips in a server each draw 500 W": each of the chips,
          // not of the system they are in.
          if (page.IsSystemScope(noun)) {
            const std::vector<std::string_view> back = words_before_noun(5);
            for (size_t k = 1; k < back.size(); ++k) {
              if (back[k] != "in" && back[k] != "inside" && back[k] != "on") continue;
              if (k + 1 < back.size() && back[k + 1].size() > 1 && back[k + 1].back() == 's' && IsChipNoun(back[k + 1])) {
                noun = std::string(back[k + 1]);
              }
              break;
            }
          }
          // ("Two Z9 servers with 8 chips each draw 20 kW": "each" of the
          // servers, which hold 8 chips each; it was a chip's 20 kW. Not
          // "with eight H100 GPUs, each rated at 700 W": each of the GPUs.)
          bool held = false;
          if (std::string_view(lead).substr(end, each - end).find(',') == std::string_view::npos) {
            const std::vector<std::string_view> back = words_before_noun(3);
            for (size_t k = 0; k + 1 < back.size() && !held; ++k) {
              const std::string_view w = back[k + 1];
              held = (SmallCount(back[k]) || IsDigit(back[k][0])) &&
                     (w == "with" || w == "holding" || w == "containing" || w == "having" || w == "housing");
            }
          }
          if (held) {
            // Left to the sentence's scope.
          } else if (noun.size() > 1 && noun.back() == 's' && IsChipNoun(noun)) {
            d.qualifiers.emplace(qualifier::kScope, "chip");
          } else if (noun.size() > 1 && noun.back() == 's' && page.IsScopeWord(noun.substr(0, noun.size() - 1))) {
            d.qualifiers.emplace(qualifier::kScope, noun.substr(0, noun.size() - 1));  // "16 servers that each draw 7 kW"
          }
        }
      }
    }
    // "With 64 GB of HBM per chip, a 16-chip SambaRack holds 1 TB of HBM": a
    // system, with its chips written before its name, in the figure's own
    // clause. Read as the chip's, the rack's 1 TB was one SN40L's memory.
    Qualifiers clause_scope;
    if (!f.count) {
      if (const std::optional<OtherSystemClause> clause =
              ClauseOfAnotherSystem(page, s, f.range.begin, mentions, /*for_count=*/false)) {
        // "a SambaRack of 16 has 24 TB": the system and its count; else what
        // the clause says as a sentence would; else ("Trainium2 servers draw
        // 40 kW") the system's word alone.
        if (const std::optional<CountedSystem> system = CountedSystemIn(page, Range{clause->begin, f.range.begin})) {
          clause_scope = Qualifiers{{qualifier::kScope, system->scope}};
          if (system->chips > 0) clause_scope.emplace(qualifier::kScopeCount, std::to_string(system->chips));
        } else {
          clause_scope = SentenceScope(page, Range{clause->begin, f.range.begin});
          if (auto sc = clause_scope.find(qualifier::kScope); sc == clause_scope.end() || sc->second == "chip") {
            clause_scope = Qualifiers{{qualifier::kScope, clause->scope}};
          }
        }
      }
    }
    // "The Z9 racks draw 120 kW apiece, and 16 of them draw 2 MW", "Each Z9
    // chip draws 700 W, and 8 of them draw 5.6 kW": several of what the
    // sentence is about, together. (Each was one rack's, one chip's.)
    if (!f.count && fi > 0 && f.range.begin < scope_reach) {
      const auto scope = sentence_scope.find(qualifier::kScope);
      const bool of_systems = scope != sentence_scope.end() && page.IsSystemScope(scope->second);
      const bool of_chips = scope == sentence_scope.end() || scope->second == "chip";
      std::vector<std::string> words;
      for (auto w = NextWord(text, figures[fi - 1].range.end, f.range.begin); w && (of_systems || of_chips);
           w = NextWord(text, w->end, f.range.begin)) {
        words.push_back(AsciiLower(page.View(*w)));
      }
      for (size_t k = 0; k + 2 < words.size(); ++k) {
        const std::string& n = words[k];
        const std::optional<int> small = SmallCount(n);
        const bool digits = !n.empty() && n.size() < 10 && std::all_of(n.begin(), n.end(), IsDigit);
        if ((!small && !digits) || words[k + 1] != "of" ||
            (words[k + 2] != "them" && words[k + 2] != "these" && words[k + 2] != "those")) {
          continue;
        }
        const long long many = small ? *small : std::stoll(n);
        if (many < 2) break;
        if (of_systems) {
          clause_scope = Qualifiers{{qualifier::kScope, "cluster"}};
        } else {
          clause_scope = Qualifiers{{qualifier::kScope, "system"}, {qualifier::kScopeCount, std::to_string(many)}};
        }
        break;
      }
    }
    // A part's scope ("each core has 2 MB of SRAM") ends where a clause with
    // another subject begins ("; the package draws 1000 W", ", and the Z9
    // carries 192 GB"): that figure is the chip's, as it was before part
    // scopes were read for a whole sentence.
    if (const auto part = sentence_scope.find(qualifier::kScope);
        clause_scope.empty() && fi > 0 && part != sentence_scope.end() && page.IsPartScope(part->second)) {
      const std::string_view between = text.substr(figures[fi - 1].range.end, f.range.begin - figures[fi - 1].range.end);
      bool new_subject = between.find(';') != std::string_view::npos;
      for (size_t at = between.find(", "); at != std::string_view::npos && !new_subject; at = between.find(", ", at + 2)) {
        std::optional<Range> next = NextWord(between, at + 2, between.size());
        if (!next) break;
        std::string word = AsciiLower(between.substr(next->begin, next->size()));
        if (word == "and" || word == "while" || word == "but" || word == "whereas") {
          next = NextWord(between, next->end, between.size());
          if (!next) break;
          word = AsciiLower(between.substr(next->begin, next->size()));
        }
        new_subject = word == "the" || word == "its" || word == "a" || word == "an" || word == "this" ||
                      word == "that" || word == "their" || IsUpper(between[next->begin]);
      }
      if (new_subject) clause_scope = Qualifiers{{qualifier::kScope, "chip"}};
    }
    const Qualifiers& opening_scope =
        !clause_scope.empty() ? clause_scope : f.range.begin < scope_reach ? sentence_scope : no_scope;
    if (!f.count && !d.qualifiers.count(qualifier::kScope) && !opening_scope.count(qualifier::kScope) &&
        pd.subject_kind == "chip") {
      size_t from = s.begin;  // after the figure before, not a count ("16-chip") of its clause
      for (size_t k = fi; k > 0; --k) {
        if (!figures[k - 1].count) {
          from = figures[k - 1].range.end;
          break;
        }
      }
      for (size_t i = from; i < f.range.begin; ++i) {
        if (text[i] == ';' || (text[i] == ',' && i + 1 < f.range.begin && !IsDigit(text[i + 1]))) from = i + 1;
      }
      if (const std::optional<CountedSystem> system = CountedSystemIn(page, Range{from, f.range.begin})) {
        d.qualifiers.emplace(qualifier::kScope, system->scope);
        if (system->chips > 0) d.qualifiers.emplace(qualifier::kScopeCount, std::to_string(system->chips));
      }
    }
    if (!f.count && page.MarkedSparse(f.range.end)) d.qualifiers[qualifier::kSparsity] = "sparse";
    // "With 2:4 structured sparsity, the B200's FP8 figure doubles to 9
    // PFLOPS", "Sparse FP4 performance reaches 18 petaflops": said before the
    // figure (after the one before it). Read as dense, it answered dense queries at twice the figure.
    if (!f.count && p->dimension == "ops_per_second" && !d.qualifiers.count(qualifier::kSparsity)) {
      // (Within the figure's clause: "20 petaflops of FP4 performance with
      // sparsity; dense FP4 is 9 petaflops".)
      size_t from = fi > 0 ? figures[fi - 1].range.end : s.begin;
      for (size_t i = from; i < f.range.begin; ++i) {
        if (text[i] == ';') from = i + 1;
      }
      Qualifiers before = QualifiersIn(page, Range{from, f.range.begin});
      if (auto sp = before.find(qualifier::kSparsity); sp != before.end()) d.qualifiers[qualifier::kSparsity] = sp->second;
    }
    if (!f.count && pd.subject_kind == "chip" && d.qualifiers.count(qualifier::kScope) &&
        opening_scope.count(qualifier::kScopeCount) && opening_scope.count(qualifier::kScope) &&
        d.qualifiers[qualifier::kScope] == opening_scope.at(qualifier::kScope)) {
      d.qualifiers.emplace(qualifier::kScopeCount, opening_scope.at(qualifier::kScopeCount));  // the scope's chips too
    }
    if (!f.count && !d.qualifiers.count(qualifier::kScope) && pd.subject_kind == "chip") {
      for (const auto& [k, v] : opening_scope) d.qualifiers.emplace(k, v);
    }
    d.value = Value::Quantity(f.canonical, p->dimension, page.Str(f.range));
    d.span = f.range;
    if (f.count) pd.count = CountRead{f.range, f.canonical, f.count_label};
    // "190 TFLOPS of FP16 / BF16": one figure stated for each format. Only
    // the first was kept, and a query for BF16 found nothing.
    std::vector<std::string> also;
    bool formats_before = false;
    if (!f.count) {
      const size_t next = fi + 1 < figures.size() ? figures[fi + 1].range.begin : s.end;
      also = FormatsIn(page, Range{f.range.end, next});
      auto written = d.qualifiers.find(qualifier::kFormat);
      if (also.empty() || written == d.qualifiers.end() || written->second != also.front()) also.clear();
      if (!also.empty()) also.erase(also.begin());
      if (!f.second_format.empty() && written != d.qualifiers.end() && written->second == f.format) {
        also.push_back(f.second_format);
      }
      // "GEMM FP16/BF16: 177 TFLOPS": the formats before the figure, the
      // nearest of them the one it was given.
      if (also.empty() && written != d.qualifiers.end()) {
        // Within the figure's own clause: "supports FP8 and BF16; its BF16
        // throughput is 800 TFLOPS" gives BF16 alone.
        size_t previous = fi > 0 ? figures[fi - 1].range.end : s.begin;
        for (size_t i = previous; i < f.range.begin; ++i) {
          if (text[i] == ';' || text[i] == ',' || text[i] == '.') previous = i + 1;
        }
        for (auto w = NextWord(text, previous, f.range.begin); w; w = NextWord(text, w->end, f.range.begin)) {
          if (!page.FormatWord(AsciiLower(page.View(*w)))) continue;
          std::vector<std::string> run = FormatsIn(page, Range{w->begin, f.range.begin});
          if (run.size() > 1 && run.back() == written->second) {
            run.pop_back();
            also = std::move(run);
            formats_before = true;
          }
          break;
        }
      }
    }
    // "FP8/FP16 performance of 5 / 2.5 PFLOPS", "5 / 2.5 FP8/FP16
    // petaflops": a bare number before the figure is the first format's,
    // the figure the second's. Each format had been given the second.
    if (const std::optional<Range> bare = BareNumberBefore(text, fi > 0 ? figures[fi - 1].range.end : s.begin, f.range.begin);
        bare && !also.empty()) {
      std::vector<std::string> order;
      if (formats_before) order = also;
      order.insert(formats_before ? order.end() : order.begin(), d.qualifiers[qualifier::kFormat]);
      if (!formats_before) order.insert(order.end(), also.begin(), also.end());
      also.clear();
      d.qualifiers[qualifier::kFormat] = order.back();
      const std::optional<NumberToken> stated = NumberAt(text, f.range.begin, f.range.end);
      const std::optional<NumberToken> first = NumberAt(text, bare->begin, bare->end);
      if (order.size() == 2 && stated && first && stated->value != 0) {
        Pending copy = pd;
        copy.draft.qualifiers[qualifier::kFormat] = order.front();
        const std::string_view written = page.View(f.range);
        copy.draft.value = Value::Quantity(first->value * (f.canonical / stated->value), p->dimension,
                                           page.Str(*bare) + std::string(written.substr(written.rfind(' '))));
        copy.draft.span = Range{bare->begin, f.range.end};
        drafts.push_back(std::move(copy));
      }
    }
    drafts.push_back(std::move(pd));
    for (const std::string& format : also) {
      Pending copy = drafts.back();
      copy.draft.qualifiers[qualifier::kFormat] = format;
      drafts.push_back(std::move(copy));
    }
  }

  for (const LabelHit& h : labels) {
    const PredicateDef* p = page.Predicate(h.def->predicate);
    if (p == nullptr) continue;
    Pending pd;
    if (p->type == ValueKind::kDate) {
      size_t pos = SkipFillers(text, h.range.end, s.end, 3);
      std::optional<DateToken> date = DateAt(text, pos, s.end, true);
      // "announced at GTC on March 18, 2024", "unveiled during Computex in
      // May 2024": the event, then the date.
      if (!date) {
        std::optional<Range> w = NextWord(text, h.range.end, s.end);
        const std::string at = w ? AsciiLower(page.View(*w)) : "";
        if (at == "at" || at == "during") {
          w = NextWord(text, w->end, s.end);
          for (int k = 0; k < 3 && w && IsUpper(text[w->begin]); ++k) w = NextWord(text, w->end, s.end);
          const std::string on = w ? AsciiLower(page.View(*w)) : "";
          if (on == "on" || on == "in") date = DateAt(text, SkipFillers(text, w->end, s.end, 1), s.end, true);
        }
      }
      // "announced re:Invent 2023": an event's year (not a chip's name and year).
      if (!date) {
        date = EventYearAt(text, pos, s.end);
        for (const Mention& m : mentions) {
          if (date && m.entity->kind == "chip" && m.range.Overlaps(date->range)) date.reset();  // "Trainium3 2025"
        }
      }
      if (!date) continue;
      if (!subject_for(*p, &pd.draft.subject, &pd.subject_kind, &pd.page_subject)) continue;
      pd.draft.predicate = p->name;
      pd.draft.qualifiers = h.def->qualifiers;
      pd.draft.value = Value::OfDate(date->date, page.Str(date->range));
      pd.draft.span = date->range;
      drafts.push_back(std::move(pd));
    } else if (p->type == ValueKind::kEntity) {
      if (OfAPart(page, s, h.range.begin)) continue;
      if (!subject_for(*p, &pd.draft.subject, &pd.subject_kind, &pd.page_subject)) continue;
      size_t pos = SkipFillers(text, h.range.end, s.end, 1);
      std::optional<Range> value;
      std::string resolved;
      for (const Mention& m : mentions) {
        if (m.range.begin == pos && m.entity->kind == p->object_kind) {
          value = m.range;
          resolved = m.entity->id;
          consumed.push_back(&m);
        }
      }
      // "Trainium 3 is the announced successor": the entity before the label.
      if (!value) {
        std::string before = AsciiLower(text.substr(s.begin, h.range.begin - s.begin));
        size_t is_the = before.rfind(" is the ");
        if (is_the != std::string::npos) {
          std::string between = before.substr(is_the + 8);
          size_t spaces = std::count(between.begin(), between.end(), ' ');
          if (spaces <= 1) {
            for (const Mention& m : mentions) {
              if (m.range.end == s.begin + is_the && m.entity->kind == p->object_kind) {
                value = m.range;
                resolved = m.entity->id;
                consumed.push_back(&m);
              }
            }
            // "Anthropic's Project Rainier (hundreds of thousands of Trainium 2
            // chips) is the anchor customer": the sentence opens with the one
            // it is about when all that follows the name up to "is the" is
            // its own thing ("'s" and a capitalised name) and an aside in
            // parentheses. Anything else may hold a verb whose subject the
            // name is ("Amazon expects that a lab is the anchor customer").
            size_t opening = s.begin;
            while (opening < s.end && SpaceAt(text, opening)) opening += SpaceAt(text, opening);
            auto owns_what_follows = [&](std::string_view rest) {
              size_t i = 0;
              if (rest.starts_with("'s")) {
                i = 2;
              } else if (rest.starts_with("\xE2\x80\x99s")) {
                i = 4;
              } else {
                return false;
              }
              while (i < rest.size() && rest[i] == ' ' && i + 1 < rest.size() &&
                     (IsUpper(rest[i + 1]) || IsDigit(rest[i + 1]))) {
                ++i;
                while (i < rest.size() && (IsWordByte(rest[i]) || rest[i] == '-')) ++i;
              }
              if (i + 1 < rest.size() && rest[i] == ' ' && rest[i + 1] == '(') {
                const size_t close = rest.find(')', i);
                if (close == std::string_view::npos) return false;
                i = close + 1;
              }
              return i == rest.size();
            };
            for (const Mention& m : mentions) {
              if (value || m.range.begin != opening || m.entity->kind != p->object_kind) continue;
              if (m.range.end > s.begin + is_the) continue;
              if (!owns_what_follows(text.substr(m.range.end, s.begin + is_the - m.range.end))) continue;
              value = m.range;
              resolved = m.entity->id;
              consumed.push_back(&m);
            }
          }
        }
      }
      // A capitalised name not known yet: "designed by Acme Silicon".
      if (!value && pos < s.end && IsUpper(text[pos])) {
        size_t e = pos;
        int words = 0;
        while (e < s.end && words < 5) {
          size_t w = e;
          while (w < s.end && (IsWordByte(text[w]) || text[w] == '-' || text[w] == '&')) ++w;
          if (w == e || !(IsUpper(text[e]) || IsDigit(text[e])) || InAny(masked, e)) break;
          e = w;
          ++words;
          if (e + 1 < s.end && text[e] == ' ' && (IsUpper(text[e + 1]) || IsDigit(text[e + 1])) &&
              !InAny(masked, e + 1)) {
            ++e;
            continue;
          }
          break;
        }
        // "Built on TSMC's N3 process, the MI355X delivers ...": the page's
        // chip is no value of its own ("Its successor, the Blackwell B200"
        // is).
        if (words > 0 && !page.MentionsSubject(Trim(text, Range{pos, e}))) {
          Range name = Trim(text, Range{pos, e});
          if (auto id = page.Resolve(page.Str(name), p->object_kind, name.begin)) {
            value = name;
            resolved = *id;
          }
        }
      }
      if (!value) continue;
      pd.draft.predicate = p->name;
      pd.draft.qualifiers = h.def->qualifiers;
      pd.draft.value = Value::Entity(resolved, page.Str(*value));
      pd.draft.span = *value;
      drafts.push_back(std::move(pd));
    } else if (p->type == ValueKind::kText) {
      // A list after a label that ends in a preposition: "available in the US and in Mumbai".
      std::string l = AsciiLower(page.View(h.range));
      bool prepositional = l.size() > 3 && (l.ends_with(" in") || l.ends_with(" at") || l.ends_with(" from"));
      if (!prepositional) continue;
      // "is not yet available in", "will be available in", "is no longer
      // available in": where it is not, or not yet.
      {
        bool not_now = false;
        int back = 0;
        for (size_t b = h.range.begin; b > s.begin && back < 4; --b) {
          if (!IsWordByte(text[b - 1])) continue;
          size_t wb = b;
          while (wb > s.begin && IsWordByte(text[wb - 1])) --wb;
          const std::string word = AsciiLower(text.substr(wb, b - wb));
          static constexpr std::string_view kNotNow[] = {"not", "no", "never", "longer", "will", "won", "isn",
                                                         "aren", "soon", "yet", "later"};
          not_now = not_now || std::find(std::begin(kNotNow), std::end(kNotNow), word) != std::end(kNotNow);
          ++back;
          b = wb + 1;
        }
        if (not_now) continue;
      }
      EntityId id;
      std::string k;
      bool is_page = false;
      if (!subject_for(*p, &id, &k, &is_page)) continue;
      // "available in three regions: Ohio, Tokyo and Frankfurt": the list
      // after words that count places, the last of them a word for places.
      // Not "in all regions except the following:", "in two sizes:", "in
      // limited quantities:", "in 2025:" (what follows is no list of regions).
      size_t list_from = h.range.end;
      {
        size_t c = list_from;
        while (c < s.end && c - list_from <= 40 &&
               (IsLower(text[c]) || IsDigit(text[c]) || text[c] == ' ' || text[c] == '-')) {
          ++c;
        }
        if (c < s.end && c > list_from + 1 && text[c] == ':') {
          static constexpr std::string_view kPlaces[] = {"regions", "region", "locations", "zones", "cities",
                                                         "countries", "markets", "sites", "geographies", "areas"};
          static constexpr std::string_view kNotAll[] = {
              "except", "but",  "excluding", "not",     "soon",     "more",    "other",   "most",  "apart",
              "save",   "bar",  "outside",   "without", "future",   "upcoming", "planned", "new",  "beyond"};
          bool places = false;
          bool excludes = false;
          for (auto w = NextWord(text, list_from, c); w; w = NextWord(text, w->end, c)) {
            const std::string_view word = text.substr(w->begin, w->size());
            places = std::find(std::begin(kPlaces), std::end(kPlaces), word) != std::end(kPlaces);
            excludes = excludes || std::find(std::begin(kNotAll), std::end(kNotAll), word) != std::end(kNotAll);
          }
          if (places && !excludes) list_from = c + 1;
        }
      }
      for (const Range& item : ListItems(text, list_from, s.end)) {
        Pending li;
        li.draft.subject = id;
        li.subject_kind = k;
        li.page_subject = is_page;
        li.draft.predicate = p->name;
        li.draft.qualifiers = h.def->qualifiers;
        // "Mumbai, India": the place is "Mumbai", as the page names it
        // elsewhere ("in the US, Mumbai and other regions"); its country
        // stays in the excerpt. Stored whole, one region was listed twice.
        li.draft.span = item;
        for (std::string& name : ListItemNames(page, item)) {
          Pending one = li;
          one.draft.value = Value::Text(std::move(name));
          drafts.push_back(std::move(one));
        }
      }
    }
  }

  // Words that are values in themselves: "HBM2e" is a memory type.
  for (const std::string& vp : page.vocabulary_predicates()) {
    const PredicateDef* p = page.Predicate(vp);
    if (p == nullptr || !Page::Applies(*p, kind)) continue;
    for (const auto& [range, word] : page.VocabularyIn(s, vp)) {
      if (InAny(masked, range.begin) || InAny(slower_tiers, range.begin)) continue;
      // "keeps all model weights in on-die SRAM instead of HBM", "does not
      // use HBM3": what the chip does not have.
      if (NegatedBefore(text, s.begin, range.begin)) continue;
      Pending pd;
      pd.draft.subject = subject;
      pd.subject_kind = kind;
      pd.page_subject = subject == page.subject();
      pd.draft.predicate = vp;
      pd.draft.value = Value::Text(word);
      pd.draft.span = range;
      drafts.push_back(std::move(pd));
    }
  }

  // "doesn't have a public launch list price": a label the sentence gives no
  // value for, in a sentence that says the figure is not published.
  // "Each Ascend 910C is said to carry 128 GB ...; Huawei does not disclose
  // the TDP.": a sentence whose paragraph names the page's chip is about it
  // unless it names another (those are dropped below).
  // Only where what is not disclosed ends the sentence: "does not disclose
  // the TDP of its Kunpeng server CPUs", "the list price of the Atlas 900
  // SuperPoD" and "which company supplies its HBM memory" are about
  // something else.
  const auto paragraph_names_the_chip = [&] {
    if (page.subject_kind() != "chip" || subject != page.subject() || labels.empty()) return false;
    size_t last_label_end = s.begin;
    for (const LabelHit& h : labels) last_label_end = std::max(last_label_end, h.range.end);
    const Range after = Trim(text, Range{last_label_end, s.end});
    for (size_t i = after.begin; i < after.end; ++i) {
      if (text[i] != '.' && text[i] != '!' && text[i] != ')') return false;
    }
    const std::string lower = AsciiLower(page.View(s));
    for (std::string_view wh : {"which", "who", "what", "how", "whether", "where", "when", "whose"}) {
      if (FindWord(lower, wh) != std::string_view::npos) return false;
    }
    return page.MentionsSubject(page.lines()[page.LineIndexAt(s.begin)].range);
  };
  if (page.schema.SaysNotPublished(page.Str(s)) &&
      (opt.subject_in_context || page.MentionsSubject(s) || subject != page.subject() || paragraph_names_the_chip() ||
       page.OuterSubjectNamedIn(s) != nullptr)) {
    // The sentence without a citation mark at its end: "... for the original
    // Trainium 3." quoted whole read as a claim about Trainium 3 (the mark is
    // the fact's citation, kept as such).
    Range said = s;
    for (const auto& [mark, number] : cites) {
      size_t after = mark.end;
      while (after < s.end && (SpaceAt(text, after) > 0 || text[after] == '.')) ++after;
      if (after >= s.end && mark.begin > s.begin) said = Trim(text, Range{s.begin, mark.begin});
    }
    std::vector<const LabelHit*> candidates;
    for (const LabelHit& h : labels) candidates.push_back(&h);
    for (const LabelHit& h : opt.context_labels) candidates.push_back(&h);
    // "SambaNova does not disclose the SN40L's ... thermal design power" in
    // the part about the SambaRack SN40L-16: the page's chip's, not the rack's.
    const Page::SubjectState* outer = subject == page.subject() ? page.OuterSubjectNamedIn(s) : nullptr;
    std::vector<std::string> done;
    for (const Pending& pd : drafts) done.push_back(pd.draft.predicate);
    for (const LabelHit* h : candidates) {
      const PredicateDef* p = page.Predicate(h->def->predicate);
      if (p == nullptr || !Page::Applies(*p, outer != nullptr ? outer->kind : kind)) continue;
      if (std::find(done.begin(), done.end(), p->name) != done.end()) continue;
      done.push_back(p->name);
      Pending pd;
      pd.draft.subject = subject;
      pd.subject_kind = kind;
      pd.page_subject = subject == page.subject();
      if (outer != nullptr) {
        pd.draft.subject = outer->id;
        pd.subject_kind = outer->kind;
        pd.page_subject = false;
      }
      pd.draft.predicate = p->name;
      pd.draft.qualifiers = h->def->qualifiers;
      pd.draft.value = Value::NotPublished(page.Str(said));
      pd.draft.span = said;
      drafts.push_back(std::move(pd));
    }
  }

  // Another chip named (not as a value) before a value in the same clause:
  // "Trainium2 was announced November 2023" is about Trainium2, not the page.
  // A "not published" sentence that names another chip is dropped whole.
  auto clause_break = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      char c = text[i];
      if (c == ',' || c == ';' || c == ':') return true;
      if (text.substr(i, 3) == "\xE2\x80\x94" || text.substr(i, 3) == "\xE2\x80\x93") return true;
    }
    return false;
  };
  // "800 TFLOPS of FP16 compute (more than the H100)": a chip named in an
  // aside after the figure compares with it; the figure is still the
  // page's chip's. ("80 GB (vs 80 GB on the H100)": that aside's own figure
  // has the chip in its clause.)
  auto aside_between = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (text[i] == '(') return true;
    }
    return false;
  };
  // The clause holding `pos`: from after the last break before it (or the
  // sentence's start) to the next break (or the sentence's end).
  auto clause_of = [&](size_t pos) {
    Range clause{s.begin, s.end};
    for (size_t i = s.begin; i < s.end; ++i) {
      const bool dash = text.substr(i, 3) == "\xE2\x80\x94" || text.substr(i, 3) == "\xE2\x80\x93";
      const char c = text[i];
      if (!dash && c != ',' && c != ';' && c != ':') continue;
      if (i < pos) {
        clause.begin = i + (dash ? 3 : 1);
      } else {
        clause.end = i;
        break;
      }
    }
    while (clause.begin < pos && SpaceAt(text, clause.begin)) clause.begin += SpaceAt(text, clause.begin);
    return clause;
  };
  // Words that set two chips, or two figures, side by side: a clause with
  // one is not about its first chip alone ("Trainium3 has 144 GB compared
  // with 96 GB", "... from 96 GB to 144 GB", "while this chip has").
  auto compares = [&](Range clause) {
    static const std::string_view kWords[] = {
        "compared", "comparison", "versus", "vs",    "than", "while",   "whereas",    "against",
        "unlike",   "like",       "from",   "here",  "this", "its",     "their",      "over",
        "previous", "prior",      "predecessor", "successor", "both", "respectively", "same"};
    const std::string lower = AsciiLower(text.substr(clause.begin, clause.end - clause.begin));
    for (std::string_view w : kWords) {
      for (size_t at = lower.find(w); at != std::string::npos; at = lower.find(w, at + 1)) {
        const bool starts = at == 0 || !IsWordByte(lower[at - 1]);
        const bool ends = at + w.size() >= lower.size() || !IsWordByte(lower[at + w.size()]);
        if (starts && ends) return true;
      }
    }
    return false;
  };
  // The chip set off by commas just before a clause that opens with a verb:
  // "Its successor, Trainium3, was announced ...".
  auto first_word = [&](Range r) {
    size_t e = r.begin;
    while (e < r.end && IsAsciiAlpha(text[e])) ++e;
    return AsciiLower(text.substr(r.begin, e - r.begin));
  };
  auto ApposedChip = [&](Range clause) -> const Mention* {
    static const std::string_view kVerbs[] = {
        "was", "is", "has", "had", "have", "will", "were", "are", "offers", "offered", "delivers", "delivered",
        "ships", "runs", "uses", "used", "carries", "provides", "features", "packs", "gets", "got", "reached",
        "launched", "debuted", "arrived", "came", "comes", "went", "goes", "draws", "hit", "hits", "tops"};
    // A relative clause ("which AWS announced in November 2023") is about
    // what comes before it; so is an appositive ("its predecessor").
    static const std::string_view kRelative[] = {"which", "who", "whose", "that"};
    static const std::string_view kAppositive[] = {"its", "the", "a", "an", "their", "our", "his", "her"};
    auto in = [](const auto& words, const std::string& w) {
      return std::find(std::begin(words), std::end(words), w) != std::end(words);
    };
    const std::string opening = first_word(clause);
    if (!in(kVerbs, opening) && !in(kRelative, opening)) return nullptr;
    // Back over the clauses before it: "Trainium2, which AWS announced in
    // November 2023, has 96 GB"; "Trainium, its predecessor, was announced".
    size_t end = clause.begin;
    for (int steps = 0; steps < 3; ++steps) {
      size_t comma = end;
      while (comma > s.begin && SpaceAt(text, comma - 1)) --comma;
      if (comma == s.begin || text[comma - 1] != ',') return nullptr;
      size_t before = comma - 1;
      while (before > s.begin && SpaceAt(text, before - 1)) --before;
      Range previous = clause_of(before == s.begin ? s.begin : before - 1);
      previous.end = before;
      for (const Mention& m : mentions) {
        if (m.range.begin != previous.begin || m.range.end != previous.end || m.entity->kind != "chip") continue;
        return m.entity->id == page.subject() ? nullptr : &m;  // the page's own chip: its claim anyway
      }
      const std::string word = first_word(previous);
      if (!in(kRelative, word) && !in(kAppositive, word)) return nullptr;
      end = previous.begin;
    }
    return nullptr;
  };
  // A chip the schema does not know, named beside a value of the page's chip
  // in one clause: "far more than the 80 GB and 3.35 TB/s of Nvidia's H100".
  // The figures are that chip's; with no entity to give them to, they are
  // dropped rather than given to the page's chip.
  // So are the figures after such a chip in a sentence that does not name
  // the page's ("Its successor, the Blackwell B200, is rated at 1000 W";
  // "The original Ascend 910, launched in 2019, offered 256 TFLOPS" on the
  // 910B's page; "Unlike the H100, it has ..." is lost with them), and a
  // relative clause right after one ("Unlike the GH200, which has 96 GB of
  // memory, the H200 ...").
  if (page.subject_kind() == "chip") {
    const std::vector<Range> others = OtherModelsIn(page, s, masked);
    const bool names_page_chip = page.MentionsSubject(s);
    // "Unlike the H100, it has 141 GB": the other chip is in a comparison
    // that opens the sentence, and the clause after it is about "it" or "the
    // chip", the page's. (Not "The H100 shipped in 2022; it has 80 GB".)
    const size_t opening_comparison_end = [&]() -> size_t {
      std::optional<Range> first = NextWord(text, s.begin, s.end);
      if (!first) return s.begin;
      const std::string w = AsciiLower(page.View(*first));
      std::optional<Range> second = NextWord(text, first->end, s.end);
      const std::string w2 = second ? AsciiLower(page.View(*second)) : "";
      const bool compares = w == "unlike" || w == "like" || w == "versus" || w == "against" ||
                            ((w == "compared" || w == "relative") && (w2 == "with" || w2 == "to")) ||
                            (w == "as" && w2 == "with");
      if (!compares) return s.begin;
      const size_t comma = text.find(',', first->end);
      return comma == std::string_view::npos || comma >= s.end ? s.begin : comma;
    }();
    // The sentence before, in the same paragraph: "The H100 has 80 GB.
    // Unlike the A100, it has HBM3" is about the H100.
    const bool after_another_chip = [&] {
      size_t end = s.begin;
      while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
      if (end == 0 || text[end - 1] == '\n') return false;
      size_t begin = end - 1;
      while (begin > 0 && text[begin - 1] != '\n' &&
             !((text[begin - 1] == '.' || text[begin - 1] == '!' || text[begin - 1] == '?') && SpaceAt(text, begin))) {
        --begin;
      }
      const Range before{begin, end};
      return !OtherModelsIn(page, before, {}).empty() && !page.MentionsSubject(before);
    }();
    // "the world's largest supercomputer - El Capitan - which offers just 1.7
    // Exaflops per pod": a relative clause set off after a name that is not
    // the page's chip (nor a chip model, which `others` holds) is about that
    // name; read as the page's, El Capitan's pod became Ironwood's. Not after
    // a chip noun ("Google's seventh-generation TPU, which delivers ...").
    const auto NamedOtherThanThePagesChip = [&](Range clause) {
      size_t end = clause.begin;
      const auto back_over_spaces = [&] {
        while (end > s.begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
      };
      back_over_spaces();
      if (end > s.begin && text[end - 1] == ',') {
        --end;
      } else if (end >= s.begin + 3 && (text.substr(end - 3, 3) == "\xE2\x80\x94" || text.substr(end - 3, 3) == "\xE2\x80\x93")) {
        end -= 3;
      } else {
        return false;
      }
      back_over_spaces();
      size_t begin = end;
      for (int words = 0; words < 4; ++words) {
        size_t w = begin;
        while (w > s.begin && (IsWordByte(text[w - 1]) || text[w - 1] == '-')) --w;
        // A capitalised word, or a designation in lower case ("Wormhole n300").
        const std::string_view word = text.substr(w, begin - w);
        if (w == begin || !(IsUpper(text[w]) || std::any_of(word.begin(), word.end(), IsDigit))) break;
        if (words == 0 && IsChipNoun(text.substr(w, begin - w))) return false;
        begin = w;
        if (begin > s.begin + 1 && text[begin - 1] == ' ' && IsWordByte(text[begin - 2])) {
          --begin;
          continue;
        }
        break;
      }
      while (begin < end && text[begin] == ' ') ++begin;
      if (begin >= end) return false;
      const Range name{begin, end};
      // The page's chip, or another the schema or store knows (whose clause
      // the apposition rules below give to it).
      if (page.MentionsSubject(name)) return false;
      if (std::any_of(mentions.begin(), mentions.end(),
                      [&](const Mention& m) { return m.entity->kind == "chip" && m.range.Overlaps(name); })) {
        return false;
      }
      // Only a name the sentence sets against the chip ("more than 24x the
      // compute of ... El Capitan", "Compared to Wormhole n300"): after a
      // cloud, a maker, a person or a memory ("offered only on AWS, which
      // says each chip delivers 1.3 petaflops", "Lisa Su, who said", "288 GB
      // of HBM3E, which delivers 8 TB/s") the clause is still the chip's.
      return SetsAgainst(AsciiLower(text.substr(s.begin, name.begin - s.begin)));
    };
    const auto about_the_page_chip = [&](const Pending& pd) {
      if (after_another_chip || opening_comparison_end == s.begin || pd.draft.span.begin < opening_comparison_end) {
        return false;
      }
      if (std::any_of(others.begin(), others.end(), [&](const Range& m) {
            return m.begin > opening_comparison_end && m.end <= pd.draft.span.begin;
          })) {
        return false;
      }
      const Range clause = clause_of(pd.draft.span.begin);
      if (clause.begin != SkipFillers(text, opening_comparison_end + 1, s.end, 0)) return false;
      std::optional<Range> first = NextWord(text, clause.begin, clause.end);
      if (!first) return false;
      const std::string w = AsciiLower(page.View(*first));
      if (w == "it") return true;
      if (w != "the" && w != "this") return false;
      std::optional<Range> next = NextWord(text, first->end, clause.end);
      if (next && AsciiLower(page.View(*next)) == "new") next = NextWord(text, next->end, clause.end);
      return next && IsChipNoun(page.View(*next));
    };
    std::erase_if(drafts, [&](const Pending& pd) {
      if (!pd.page_subject) return false;
      if (about_the_page_chip(pd)) return false;
      if (!names_page_chip && std::any_of(others.begin(), others.end(),
                                          [&](const Range& m) { return m.end <= pd.draft.span.begin; })) {
        return true;
      }
      const Range clause = clause_of(pd.draft.span.begin);
      std::optional<Range> first = NextWord(text, clause.begin, clause.end);
      const std::string opener = first ? AsciiLower(page.View(*first)) : "";
      const bool relative = opener == "which" || opener == "that" || opener == "who";
      if ((opener == "which" || opener == "who") && !page.MentionsSubject(clause) && NamedOtherThanThePagesChip(clause)) {
        return true;
      }
      return std::any_of(others.begin(), others.end(), [&](const Range& m) {
        if (relative && m.end <= clause.begin && Trim(text, Range{m.end, clause.begin}).size() <= 1) return true;
        return pd.draft.value.kind == ValueKind::kNotPublished ||
               (m.end <= pd.draft.span.begin && !clause_break(m.end, pd.draft.span.begin)) ||
               (m.begin >= pd.draft.span.end && !clause_break(pd.draft.span.end, m.begin) &&
                !aside_between(pd.draft.span.end, m.begin));
      });
    });
  }
  // (Taken before the loop: it moves drafts away as it goes.)
  std::vector<std::pair<std::string, Range>> values_read;
  for (const Pending& pd : drafts) values_read.emplace_back(pd.draft.predicate, pd.draft.span);
  std::vector<Pending> kept;
  for (Pending& pd : drafts) {
    const Mention* blocking = nullptr;
    int blocking_count = 0;
    for (const Mention& m : mentions) {
      if (m.entity->kind != "chip" || m.entity->id == page.subject() || m.entity->id == subject) continue;
      if (std::find(consumed.begin(), consumed.end(), &m) != consumed.end()) continue;
      // Also a chip named after the value in its clause: "compared with 96
      // GB on Trainium2" is Trainium2's figure, not the page's chip's.
      if (pd.draft.value.kind == ValueKind::kNotPublished ||
          (m.range.end <= pd.draft.span.begin && !clause_break(m.range.end, pd.draft.span.begin)) ||
          (m.range.begin >= pd.draft.span.end && !clause_break(pd.draft.span.end, m.range.begin) &&
           !aside_between(pd.draft.span.end, m.range.begin))) {
        blocking = &m;
        ++blocking_count;
      }
    }
    if (blocking == nullptr) {
      // "Its successor, Trainium3, was announced December 2025": a clause
      // that opens with a verb after a chip set off by commas is that
      // chip's, not the page's. Given to it when nothing else in the clause
      // is in doubt, dropped otherwise.
      const Mention* apposed = pd.page_subject ? ApposedChip(clause_of(pd.draft.span.begin)) : nullptr;
      if (apposed == nullptr) {
        kept.push_back(std::move(pd));
        continue;
      }
      blocking = apposed;
      blocking_count = 1;
    }
    // The chip that opens a clause is what the clause is about when it is
    // the only chip the clause names, the clause compares nothing and gives
    // one value of the attribute: "Trainium2 was announced November 2023"
    // on Trainium's page is a claim about Trainium2 (the seeds' dossier;
    // dropping it hid a conflict over Trainium2's announcement). Anything
    // else that names another chip is still dropped: "Unlike Trainium3 it
    // has ...", "Trainium3 has 144 GB compared with 96 GB on Trainium2".
    const Range clause = clause_of(pd.draft.span.begin);
    const bool apposed = !clause.Contains(blocking->range);
    bool opens_clause = blocking_count == 1 && pd.draft.value.kind != ValueKind::kNotPublished &&
                        (apposed || clause.begin == blocking->range.begin) && pd.page_subject &&
                        page.Predicate(pd.draft.predicate) != nullptr &&
                        Page::Applies(*page.Predicate(pd.draft.predicate), "chip") && !compares(clause);
    for (const Mention& m : mentions) {
      if (&m != blocking && m.entity->kind == "chip" && clause.Contains(m.range)) opens_clause = false;
    }
    for (const auto& [predicate, span] : values_read) {
      const bool itself = span.begin == pd.draft.span.begin && span.end == pd.draft.span.end;
      if (!itself && predicate == pd.draft.predicate && clause.Contains(span)) opens_clause = false;
    }
    if (!opens_clause) continue;
    pd.draft.subject = blocking->entity->id;
    pd.subject_kind = "chip";
    pd.page_subject = false;
    kept.push_back(std::move(pd));
  }
  drafts = std::move(kept);

  // Citations: the first group after each value.
  for (Pending& pd : drafts) {
    std::vector<std::string> group;
    size_t last_end = 0;
    for (const auto& [range, number] : cites) {
      if (range.begin < pd.draft.span.end && !(pd.draft.span.Contains(range))) continue;
      if (!group.empty() && range.begin > last_end + 1) break;
      group.push_back(number);
      last_end = range.end;
    }
    pd.draft.citations = group;
  }

  // A figure the page computed from two others it states in the same sentence
  // ("$9.532 per hour for a full trn1.32xlarge (16 chips), or $0.596 per chip-hour").
  for (Pending& pd : drafts) {
    Draft& d = pd.draft;
    if (d.value.kind != ValueKind::kQuantity) continue;
    const DerivationDef* dd = page.schema.FindDerivation(d.predicate);
    if (dd == nullptr || !dd->params.empty() || dd->expr.kind != Expr::Kind::kBinary ||
        dd->expr.op != Expr::Op::kDiv || dd->expr.operands.size() != 2 ||
        dd->expr.operands[0].kind != Expr::Kind::kPredicate ||
        dd->expr.operands[1].kind != Expr::Kind::kPredicate) {
      continue;
    }
    const Draft* a = nullptr;
    const Draft* b = nullptr;
    for (const Pending& o : drafts) {
      if (o.draft.subject != d.subject || o.draft.value.kind != ValueKind::kQuantity) continue;
      if (o.draft.predicate == dd->expr.operands[0].name && a == nullptr) a = &o.draft;
      if (o.draft.predicate == dd->expr.operands[1].name && b == nullptr) b = &o.draft;
    }
    if (a == nullptr || b == nullptr || b->value.number == 0) continue;
    double expected = a->value.number / b->value.number;
    double scale = std::max(std::abs(expected), std::abs(d.value.number));
    if (std::abs(expected - d.value.number) > scale * 0.01) continue;
    d.derivation = Derivation::kStatedDerived;
    d.formula = a->value.original + " \xC3\xB7 " + b->value.original;
    for (const auto& [k, v] : a->qualifiers) d.qualifiers.emplace(k, v);
  }

  // "SemiAnalysis estimates ...", "is rumoured to have", "is believed to
  // carry": a sentence that hedges gives estimates, which a query for stated
  // figures ({basis=stated}) leaves out. Stored plain, a rumour counted as a
  // maker's figure. The words are the schema's (table hedge_words).
  // A hedge inside an aside ("on SMIC N+2 – which reportedly yields 60
  // percent – and each carries 128 GB", "(reportedly 60 percent)") hedges
  // what the aside says, not the sentence's other figures.
  // Where the hedged part of the sentence begins: a hedge in a later clause
  // with a figure of its own ("delivers 800 TFLOPS, and reportedly draws
  // 350 W") does not reach back to the clauses before it.
  size_t hedged_from = std::string::npos;
  std::vector<Range> hedged_asides;
  if (auto hedge = page.schema.tables().find("hedge_words"); hedge != page.schema.tables().end()) {
    std::vector<Range> asides = AsidesIn(text, s);
    for (const Range& clause : RelativeClausesIn(text, s)) asides.push_back(clause);
    std::string previous, two_back;
    for (auto w = NextWord(text, s.begin, s.end); w && hedged_from == std::string::npos; w = NextWord(text, w->end, s.end)) {
      const std::string lower = AsciiLower(page.View(*w));
      bool hedge_word = false;
      for (const auto& [word, unused] : hedge->second) hedge_word = hedge_word || AsciiLower(word) == lower;
      // "is said to carry 128 GB": hearsay, where "Huawei said" and "as was
      // said at the keynote" are the maker's word.
      hedge_word = hedge_word || (lower == "to" && previous == "said" &&
                                  (two_back == "is" || two_back == "are" || two_back == "was" || two_back == "were"));
      if (hedge_word) {
        const auto aside = std::find_if(asides.begin(), asides.end(),
                                        [&](const Range& a) { return a.Contains(*w) && HedgeStaysInAside(page, a); });
        if (aside == asides.end()) {
          // (A later clause without a figure, "but the figure is
          // unconfirmed", hedges the sentence's.)
          const size_t from = ClauseStart(text, s, w->begin);
          const bool own_figure = std::any_of(drafts.begin(), drafts.end(), [&](const Pending& pd) {
            return pd.draft.value.kind == ValueKind::kQuantity && pd.draft.span.begin >= from;
          });
          hedged_from = own_figure ? from : s.begin;
        } else {
          hedged_asides.push_back(*aside);
        }
      }
      two_back = std::move(previous);
      previous = lower;
    }
  }
  for (Pending& pd : drafts) {
    const bool in_hedged_aside = std::any_of(hedged_asides.begin(), hedged_asides.end(),
                                             [&](const Range& a) { return a.Contains(pd.draft.span); });
    const bool hedged = hedged_from != std::string::npos && pd.draft.span.begin >= hedged_from;
    if ((hedged || in_hedged_aside) && pd.draft.value.kind != ValueKind::kNotPublished) {
      pd.draft.qualifiers[qualifier::kBasis] = "estimate";
    }
    // "Note: the 42.5 exaflops figure is FP8 peak compute": a figure the page
    // gave before as a system's total, named again without its scope. Taken
    // as a claim, it became one chip's 42.5 exaflops.
    if (pd.draft.value.kind == ValueKind::kQuantity && !pd.draft.qualifiers.count(qualifier::kScope)) {
      const bool again = std::any_of(page.facts().begin(), page.facts().end(), [&](const Fact& f) {
        auto scope = f.qualifiers.find(qualifier::kScope);
        // (In any case: "42.5 Exaflops" is named again as "42.5 exaflops". Not
        // any figure of the same value: an instance's "32 GB" is not the
        // chip's "32GB" named again.)
        return f.subject == pd.draft.subject && f.predicate == pd.draft.predicate &&
               AsciiLower(f.value.original) == AsciiLower(pd.draft.value.original) && scope != f.qualifiers.end() &&
               scope->second != "chip";
      });
      if (again) continue;
    }
    std::string sk = pd.subject_kind;
    EntityId sid = pd.draft.subject;
    std::vector<std::string> cit = pd.draft.citations;
    std::optional<CountRead> count = pd.count;
    page.Add(std::move(pd.draft), opt.emit);
    if (count) AddKindReference(page, sid, sk, count->label, count->range, opt.emit, cit);
  }
}

}  // namespace

void ReadSentences(Page& page, Range r, const SentenceOptions& options) {
  SentenceOptions opt = options;
  if (opt.emit.rule.empty()) opt.emit.rule = "generic-sentence";
  for (const Range& s : SplitSentences(page, r)) {
    if (s.size() > kMaxSentence) {
      page.Warn(s.begin, "sentence of " + std::to_string(s.size()) + " bytes not interpreted");
      continue;
    }
    ReadSentence(page, s, opt);
  }
}

void RunGeneric(Page& page) {
  page.generic_phase = true;
  const auto& lines = page.lines();
  std::string_view text(page.text);

  // The subject: a "# Title" heading, else a short first line that reads like a title.
  size_t title_line = lines.size();
  if (page.subject().empty()) {
    // A page's own headline ("# ..."; an HTML <h1>) over a site's header or
    // navigation before it ("SambaNova | Products | Solutions"), which was
    // taken for the headline and named a chip after the company.
    size_t from = 0;
    for (size_t i = 0; i < lines.size() && i < 12; ++i) {
      if (lines[i].heading == 1 && !page.LineTooLong(i)) {
        from = i;
        break;
      }
    }
    for (size_t i = from; i < lines.size() && i < from + 5; ++i) {
      if (page.LineTooLong(i)) break;
      Range r = Trim(text, lines[i].range);
      std::string_view v = page.View(r);
      if (v.empty()) continue;
      const bool heading = lines[i].heading > 0;
      bool printable = std::all_of(v.begin(), v.end(),
                                   [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7F; });
      bool has_letter = std::any_of(v.begin(), v.end(), IsAsciiAlpha);
      bool title_like =
          heading || (v.find(':') == std::string_view::npos && v.find('|') == std::string_view::npos &&
                      v.back() != '.' && v.back() != '?' && !(v.size() > 1 && v[0] == '-' && v[1] == ' '));
      bool compares = false;
      const std::optional<ProductName> product =
          printable && has_letter && title_like && v.size() <= 160 ? ProductNameIn(page, r, &compares) : std::nullopt;
      if (compares) {
        // "H100 vs H200 vs MI300X": about no one chip. Taken whole it became
        // a chip of that name holding every figure the page gave outside a
        // table or a section named for one.
        page.title = std::string(v);
        page.Claim(i);
        title_line = i;
      } else if (product) {
        page.title = std::string(v);
        page.SetSubject(product->name, "chip", product->range.begin);
        // "Amazon EC2 Trn2 instances and UltraServers", "AMD Instinct MI300X
        // Platform": the page gives the system's figures.
        if (std::optional<Range> next = NextWord(text, product->range.end, r.end)) {
          std::string word = AsciiLower(page.View(*next));
          if (word.size() > 1 && word.back() == 's' && !page.IsScopeWord(word)) word.pop_back();
          if (page.IsSystemScope(word)) page.SetSubjectScope(word);
        }
        page.Claim(i);
        title_line = i;
      } else if (printable && has_letter && title_like && v.size() <= 80) {
        page.title = std::string(v);
        if (!ReadsAsSentence(page, r)) page.SetSubject(page.title, "chip", r.begin);
        page.Claim(i);
        title_line = i;
      } else if (printable && has_letter && !heading && v.size() <= 120) {
        // A headline with a colon ("AWS Inferentia2: chip and instance
        // figures"): its topic, before the colon, is the subject, unless
        // the line is a label and its value. Refused whole, the page had
        // no subject and gave nothing.
        const size_t colon = v.find(':');
        if (colon != std::string_view::npos && colon > 0 && v.find('|') == std::string_view::npos) {
          const Range topic = Trim(text, Range{r.begin, r.begin + colon});
          const std::string_view t = page.View(topic);
          const size_t words = 1 + static_cast<size_t>(std::count(t.begin(), t.end(), ' '));
          if (!topic.empty() && words <= 5 && !page.LookupLabel(topic) && std::any_of(t.begin(), t.end(), IsAsciiAlpha)) {
            page.title = std::string(v);
            bool topic_compares = false;
            std::optional<ProductName> named = ProductNameIn(page, topic, &topic_compares);
            // "Exclusive: Huawei readies Ascend 910C ...", "Review: ...", "The
            // 2025 accelerator landscape: B200, MI355X and Gaudi 3 compared": a
            // kicker or a topic that names no product; what follows the colon
            // may, and may compare.
            static constexpr std::string_view kKickers[] = {"review", "exclusive", "analysis", "opinion", "update",
                                                            "breaking", "hands-on", "explainer", "interview", "report",
                                                            "news", "feature", "first look", "deep dive", "preview"};
            const bool kicker = std::find(std::begin(kKickers), std::end(kKickers), AsciiLower(t)) != std::end(kKickers);
            bool rest_compares = false;
            if (!named && !topic_compares) {
              const Range rest = Trim(text, Range{r.begin + colon + 1, r.end});
              if (std::optional<ProductName> after = ProductNameIn(page, rest, &rest_compares, true)) {
                named = std::move(after);
              }
            }
            if (!topic_compares && !rest_compares && (named || (!kicker && !ReadsAsSentence(page, topic)))) {
              page.SetSubject(named ? named->name : std::string(t), "chip", named ? named->range.begin : topic.begin);
            }
            page.Claim(i);
            title_line = i;
          }
        }
      }
      break;
    }
  }
  if (!page.has_sections()) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (page.LineTooLong(i)) continue;
      Range r = Trim(text, lines[i].range);
      if (lines[i].heading > 0 && !r.empty()) {
        page.AddSection(r.begin, std::string(page.View(r)));
        page.Claim(i);
      }
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (page.LineTooLong(i) && !page.Claimed(i)) {
      page.Warn(lines[i].range.begin,
                "line of " + std::to_string(lines[i].range.size()) + " bytes not interpreted");
      page.Claim(i);
    }
  }
  // A heading that is a product's name ("<h2>TPU v5e</h2>") makes what
  // follows it, up to a heading of its level or above, about that product:
  // read as the page's, two chips' figures were merged into one.
  struct Part {
    size_t first = 0;
    size_t end = 0;
    std::optional<ProductName> product;
    std::string kind = "chip";
  };
  // "Key figures, Colossus (Memphis):" over "- Operator: xAI", "- Power
  // envelope: 300 MW": a list whose labels are a data center's (two or more,
  // none a chip's too) is about the place the line names, after its last
  // comma. Without it, a press page about a site had no subject.
  const auto introduced_site = [&](Range intro, size_t first, size_t end) -> std::optional<ProductName> {
    int site_labels = 0;
    for (size_t k = first; k < end; ++k) {
      Range item = Trim(text, lines[k].range);
      if (item.size() >= 2 && (text[item.begin] == '-' || text[item.begin] == '*') && SpaceAt(text, item.begin + 1)) {
        item = Trim(text, Range{item.begin + 1, item.end});
      }
      const size_t colon = page.View(item).find(':');
      if (colon == std::string_view::npos) continue;
      std::optional<LabelHit> hit = page.LookupLabel(Range{item.begin, item.begin + colon});
      const PredicateDef* p = hit ? page.Predicate(hit->def->predicate) : nullptr;
      if (p == nullptr) continue;
      if (!Page::Applies(*p, "data_center")) return std::nullopt;
      if (!Page::Applies(*p, "chip")) ++site_labels;
    }
    if (site_labels < 2) return std::nullopt;
    // The name: the line's text before its first comma ("Stargate, Abilene,
    // Texas"), or after it where what comes first opens a list (schema table
    // list_openers: "Key figures, Colossus (Memphis)"); no name where the
    // line is only such words ("At a glance:").
    // The table's phrases ("key figures", "at a glance"), lower case.
    std::vector<std::string> openers;
    if (auto table = page.schema.tables().find("list_openers"); table != page.schema.tables().end()) {
      for (const auto& [words, unused] : table->second) {
        std::string phrase = AsciiLower(words);
        std::replace(phrase.begin(), phrase.end(), '_', ' ');
        openers.push_back(std::move(phrase));
      }
    }
    const auto opens_a_list = [&](Range r) {
      const std::string said = AsciiLower(page.View(Trim(text, r)));
      return std::find(openers.begin(), openers.end(), said) != openers.end();
    };
    Range name = Trim(text, intro);
    if (const size_t comma = page.View(intro).find(','); comma != std::string_view::npos) {
      const Range first_part{intro.begin, intro.begin + comma};
      const Range rest{intro.begin + comma + 1, intro.end};
      name = opens_a_list(first_part) ? Trim(text, rest) : Trim(text, first_part);
    } else if (opens_a_list(name)) {
      return std::nullopt;
    }
    // "Colossus at a glance": the name before the opener's words.
    for (const std::string& phrase : openers) {
      const std::string lower = AsciiLower(page.View(name));
      if (lower.size() > phrase.size() + 1 && lower.ends_with(phrase) && lower[lower.size() - phrase.size() - 1] == ' ') {
        name = Trim(text, Range{name.begin, name.end - phrase.size() - 1});
        break;
      }
    }
    if (name.empty() || !IsUpper(text[name.begin]) || name.size() > 80) return std::nullopt;
    // "What we know so far, per the filing:", "Deployment, Phase Two:":
    // words, not a name. A site's name has its words capitalised
    // ("Colossus (Memphis)", "Project Rainier") but for small joining words
    // and the words that say it is a site ("Colossus 2 data center"), and
    // none of the words of schema table not_site_name_words ("what",
    // "phase", "update").
    const auto not_a_name_word = [&](const std::string& lower) {
      auto table = page.schema.tables().find("not_site_name_words");
      return table != page.schema.tables().end() && table->second.count(lower) > 0;
    };
    static constexpr std::string_view kSiteWords[] = {"data", "center", "centre", "campus", "site",
                                                      "cluster", "supercomputer", "facility"};
    static constexpr std::string_view kJoiners[] = {"of", "the", "and", "at", "in", "on", "for", "de", "la", "del"};
    bool says_site = false;
    bool model_number = false;
    for (std::optional<Range> w = NextWord(text, name.begin, name.end); w; w = NextWord(text, w->end, name.end)) {
      const std::string_view word = page.View(*w);
      const std::string lower = AsciiLower(word);
      if (not_a_name_word(lower)) return std::nullopt;
      const bool site_word = std::find(std::begin(kSiteWords), std::end(kSiteWords), lower) != std::end(kSiteWords);
      says_site = says_site || site_word || lower == "datacenter";
      const size_t digits = static_cast<size_t>(std::count_if(word.begin(), word.end(), IsDigit));
      // "Maia 200", "MI300X": a model number; "Colossus 2" is a site's second.
      model_number = model_number || digits >= 3 || (digits > 0 && digits < word.size());
      if (std::any_of(word.begin(), word.end(), IsUpper) || digits > 0 || site_word ||
          std::find(std::begin(kJoiners), std::end(kJoiners), lower) != std::end(kJoiners)) {
        continue;
      }
      return std::nullopt;
    }
    // A name with a model number is a product's, unless it is a data center
    // the schema knows or it says it is a site.
    const std::string_view said = page.View(name);
    if (model_number && !says_site) {
      const std::optional<Mention> known = page.MentionAt(name.begin, name.end);
      const bool a_known_site = known && known->entity->kind == "data_center" && known->range.end == name.end;
      if (!a_known_site) return std::nullopt;
    }
    return ProductName{WithoutTrademarks(said), name};
  };
  std::vector<Part> parts;
  size_t introduced = 0;  // parts opened by a line like "MTIA v2 at a glance:"
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == title_line || page.LineTooLong(i)) continue;
    const Range line = Trim(text, lines[i].range);
    size_t end = i + 1;
    std::optional<ProductName> product;
    std::string kind = "chip";
    if (lines[i].heading > 0) {
      product = HeadingProduct(page, line);
      while (end < lines.size() && !(lines[end].heading > 0 && lines[end].heading <= lines[i].heading)) ++end;
    } else if (!line.empty() && text[line.end - 1] == ':' && !page.Claimed(i)) {
      // A line that introduces a list ("MTIA v2 at a glance:"): the list,
      // up to the first blank line or heading, is about that product.
      while (end < lines.size() && lines[end].heading == 0 && !Trim(text, lines[end].range).empty()) ++end;
      // A site's list first: "Key figures, Colossus 2:" reads as a product's
      // name too (a word with a digit), and its labels are no chip's.
      if (page.subject().empty()) {
        product = introduced_site(Trim(text, Range{line.begin, line.end - 1}), i + 1, end);
        if (product) kind = "data_center";
      }
      if (!product) product = HeadingProduct(page, Trim(text, Range{line.begin, line.end - 1}));
      if (product) {
        page.Claim(i);
        ++introduced;
      }
    }
    if (!product) continue;
    const bool list = lines[i].heading == 0;
    std::optional<Part> rest_of_section;
    if (!parts.empty() && parts.back().end > i) {
      // A list inside a product's section: the section goes on after it
      // ("## TPU v5e" ... "v5e pods at a glance:" ... more about the v5e).
      if (list && parts.back().end > end) rest_of_section = Part{end, parts.back().end, parts.back().product, parts.back().kind};
      parts.back().end = i;
    }
    parts.push_back(Part{i + 1, end, std::move(product), kind});
    if (rest_of_section) parts.push_back(std::move(*rest_of_section));
  }
  // A page whose headline names no product ("Our next generation Meta
  // Training and Inference Accelerator") and that introduces one product's
  // list is about that product: its prose then tells the product from
  // others of its line ("the first-generation MTIA v1").
  if (page.subject().empty() && introduced == 1 && parts.size() == 1) {
    page.SetSubject(parts.front().product->name, parts.front().kind, parts.front().product->range.begin);
  }
  auto read_lines = [&](size_t first, size_t end) {
    for (size_t i = first; i < end; ++i) {
      if (page.Claimed(i)) continue;
      if (std::optional<Table> t = ParseTable(page, i)) {
        bool free = t->end_line <= end;
        for (size_t k = t->first_line; k < t->end_line; ++k) free = free && !page.Claimed(k);
        if (free) {
          ReadTable(page, *t, Emit{});
          page.ClaimLines(t->first_line, t->end_line);
        }
        i = t->end_line - 1;
      }
    }
    Emit pairs;
    pairs.rule = "generic-pairs";
    ReadPairs(page, first, end, pairs);
    Emit label_value;
    label_value.rule = "generic-label-value";
    ReadLabelValueLines(page, label_value, first, end);
    SentenceOptions sentences;
    sentences.emit.rule = "generic-sentence";
    for (size_t i = first; i < end; ++i) {
      if (page.Claimed(i)) continue;
      std::string_view v = page.View(Trim(text, lines[i].range));
      if (v.empty() || v[0] == '|') continue;
      ReadSentences(page, lines[i].range, sentences);
    }
  };
  size_t outside = 0;  // the first line after the parts read so far
  for (const Part& part : parts) {
    read_lines(outside, part.first);
    const Page::SubjectState page_subject = page.SaveSubject();
    page.SetSubject(part.product->name, part.kind, part.product->range.begin);
    page.SetOuterSubject(page_subject);
    read_lines(part.first, part.end);
    page.SetOuterSubject(std::nullopt);
    page.RestoreSubject(page_subject);
    outside = part.end;
  }
  read_lines(outside, lines.size());
}

}  // namespace chipkg::extract_internal
