// The page being read: lines, sections, the subject, schema lookups (labels,
// known entities, word lists) and turning drafts into complete facts.

#include <algorithm>

#include "engine/store.h"
#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

namespace {

// Bytes of context kept either side of an excerpt.
constexpr size_t kContextBytes = 32;
// Longer "names" are prose or junk, not entity names.
constexpr size_t kMaxEntityName = 200;

std::string CitationAttribution(const std::vector<std::string>& citations) {
  if (citations.empty()) return "";
  std::string out = citations.size() == 1 ? "citation " : "citations ";
  for (size_t i = 0; i < citations.size(); ++i) out += (i ? ", " : "") + citations[i];
  return out;
}

}  // namespace

size_t ByteOrderMarkSize(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

Page::Page(const std::string& text_in, const SourceInfo& source_in, const Schema& schema_in,
           EntityResolver& resolver_in)
    : text(text_in), source(source_in), schema(schema_in), resolver(resolver_in) {
  size_t start = ByteOrderMarkSize(text);
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string::npos ? text.size() : nl;
    size_t content_end = end;
    if (content_end > start && text[content_end - 1] == '\r') --content_end;
    Line line{Range{start, content_end}};
    size_t marks = 0;
    while (start + marks < content_end && text[start + marks] == '#') ++marks;
    if (marks >= 1 && marks <= 6 && start + marks < content_end &&
        (text[start + marks] == ' ' || text[start + marks] == '\t')) {
      line.heading = static_cast<int>(marks);
      line.range.begin = start + marks + 1;
    }
    lines_.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  claimed_.assign(lines_.size(), false);
}

void Page::Prepare() {
  // Labels: for each folded label text, the most specific definition wins.
  std::string site = AsciiLower(source.site);
  std::map<std::string, std::pair<int, const LabelDef*>> best;
  for (const LabelDef& def : schema.labels()) {
    int rank = -1;
    std::string def_site = AsciiLower(def.site);
    if (def_site.empty()) {
      rank = 0;
    } else if (def_site == template_name) {
      rank = 1;
    } else if (!site.empty() && (def_site == site || (site.size() > def_site.size() &&
                                                      site.compare(site.size() - def_site.size(),
                                                                   def_site.size(), def_site) == 0 &&
                                                      site[site.size() - def_site.size() - 1] == '.'))) {
      rank = 2;
    }
    if (rank < 0) continue;
    std::string key = Schema::NormalizeLabel(def.label);
    if (key.empty()) continue;
    auto it = best.find(key);
    if (it == best.end() || it->second.first < rank) best[key] = {rank, &def};
  }
  scan_labels_.clear();
  for (auto& [key, entry] : best) scan_labels_.push_back(LabelEntry{key, entry.second});
  std::stable_sort(scan_labels_.begin(), scan_labels_.end(),
                   [](const LabelEntry& a, const LabelEntry& b) { return a.lower.size() > b.lower.size(); });

  aliases_.clear();
  for (const EntityDef& e : schema.entities()) {
    auto add = [&](const std::string& name) {
      std::string lower = AsciiLower(name);
      if (lower.size() >= 2) aliases_.push_back(AliasEntry{lower, &e});
    };
    add(e.name);
    for (const std::string& a : e.aliases) add(a);
  }
  std::stable_sort(aliases_.begin(), aliases_.end(),
                   [](const AliasEntry& a, const AliasEntry& b) { return a.lower.size() > b.lower.size(); });

  vocab_predicates_.clear();
  for (const auto& [name, entries] : schema.tables()) {
    if (name.rfind("words_", 0) != 0 || name == "words_scope") continue;
    std::string predicate = name.substr(6);
    const PredicateDef* p = schema.FindPredicate(predicate);
    if (p != nullptr && p->type == ValueKind::kText) vocab_predicates_.push_back(predicate);
  }
}

std::string_view Page::View(Range r) const {
  if (r.begin >= text.size() || r.empty()) return {};
  return std::string_view(text).substr(r.begin, std::min(r.end, text.size()) - r.begin);
}

size_t Page::LineIndexAt(size_t offset) const {
  auto it = std::upper_bound(lines_.begin(), lines_.end(), offset,
                             [](size_t off, const Line& l) { return off < l.range.begin; });
  if (it == lines_.begin()) return 0;
  return static_cast<size_t>(it - lines_.begin()) - 1;
}

void Page::SetSubject(const std::string& written, const std::string& kind, size_t offset) {
  const std::string name = WithoutTrademarks(written);
  std::string k = kind;
  if (const EntityDef* known = schema.ResolveEntity(name)) k = known->kind;
  std::optional<EntityId> id = Resolve(name, k, offset);
  if (!id) return;
  subject_ = *id;
  subject_kind_ = k;
  subject_names_.clear();
  subject_names_.push_back(AsciiLower(name));
  subject_written_ = name;
  subject_scope_ = SystemScopeOf(name);
  for (const EntityDef& e : schema.entities()) {
    if (e.id != subject_) continue;
    subject_names_.push_back(AsciiLower(e.name));
    for (const std::string& a : e.aliases) subject_names_.push_back(AsciiLower(a));
  }
}

bool Page::MentionsSubject(Range r) const {
  // ("Intel® Gaudi® 3 has ...": the subject's name is kept without the signs.)
  std::string v = AsciiLower(WithoutTrademarks(View(r)));
  for (const std::string& n : subject_names_) {
    if (n.size() >= 2 && FindLowerWord(v, n) != std::string_view::npos) return true;
  }
  return NamesSubjectsModel(*this, r);
}

bool Page::MarkedSparse(size_t figure_end) const {
  if (figure_end >= text.size() || text[figure_end] != '*') return false;
  if (!sparsity_footnote_) {
    // A line that opens with the mark and says what it means.
    bool found = false;
    for (const Line& line : lines_) {
      const std::string v = AsciiLower(View(Trim(text, line.range)));
      if (v.starts_with("*") && (v.find("with sparsity") != std::string::npos ||
                                 v.find("with structured sparsity") != std::string::npos)) {
        found = true;
        break;
      }
    }
    sparsity_footnote_ = found;
  }
  return *sparsity_footnote_;
}

std::string_view Page::FootnoteMarkOf(std::string_view label) {
  const size_t space = label.rfind(' ');
  if (space == std::string_view::npos || space + 1 >= label.size() || label.size() - space - 1 > 2) return {};
  const std::string_view mark = label.substr(space + 1);
  return std::all_of(mark.begin(), mark.end(), IsDigit) ? mark : std::string_view();
}

std::optional<std::string> Page::FootnoteMeaning(std::string_view mark) const {
  for (const Line& line : lines_) {
    const std::string_view l = View(Trim(text, line.range));
    // "1. With sparsity", "1) ..."; not "3 things to know".
    if (l.size() > mark.size() && l.starts_with(mark) && (l[mark.size()] == '.' || l[mark.size()] == ')')) {
      std::string said = Schema::NormalizeLabel(l.substr(mark.size() + 1));
      while (!said.empty() && (said.back() == '.' || said.back() == ' ')) said.pop_back();
      return said;
    }
  }
  return std::nullopt;
}

void Page::RestoreSubject(SubjectState state) {
  subject_ = std::move(state.id);
  subject_kind_ = std::move(state.kind);
  subject_names_ = std::move(state.names);
  subject_written_ = std::move(state.written);
  subject_scope_ = std::move(state.scope);
}

// Tables system_words_<scope> (schema/labels.schema) name the systems built of
// several chips: "DGX" is a server, "NVL72" a rack.
std::string Page::SystemScopeOf(std::string_view name) const {
  constexpr std::string_view kPrefix = "system_words_";
  for (std::optional<Range> w = NextWord(name, 0, name.size()); w; w = NextWord(name, w->end, name.size())) {
    const std::string word = AsciiLower(name.substr(w->begin, w->size()));
    for (const auto& [table, words] : schema.tables()) {
      if (!table.starts_with(kPrefix)) continue;
      for (const auto& [written, unused] : words) {
        if (AsciiLower(written) == word) return table.substr(kPrefix.size());
      }
    }
  }
  return "";
}

bool Page::NamedBySubject(std::string_view word) const {
  const std::string w = AsciiLower(WithoutTrademarks(word));
  for (const std::string& n : subject_names_) {
    if (FindLowerWord(n, w) != std::string_view::npos) return true;
  }
  return false;
}

const Page::SubjectState* Page::OuterSubjectNamedIn(Range r) const {
  if (!outer_subject_ || outer_subject_->id.empty() || outer_subject_->id == subject_) return nullptr;
  const auto has_token = [](const std::vector<std::string>& names, const std::string& token) {
    for (const std::string& n : names) {
      for (size_t at = 0; at <= n.size();) {
        const size_t space = std::min(n.find(' ', at), n.size());
        if (n.compare(at, space - at, token) == 0 && space - at == token.size()) return true;
        at = space + 1;
      }
    }
    return false;
  };
  for (std::optional<Range> w = NextWord(text, r.begin, r.end); w; w = NextWord(text, w->end, r.end)) {
    std::string word = AsciiLower(View(*w));
    if (word.ends_with("'s")) word.resize(word.size() - 2);
    if (word.ends_with("\xE2\x80\x99s")) word.resize(word.size() - 4);
    if (std::none_of(word.begin(), word.end(), IsDigit)) continue;
    if (has_token(outer_subject_->names, word) && !has_token(subject_names_, word)) return &*outer_subject_;
  }
  return nullptr;
}

std::string Page::SiblingOfSubject(std::string_view designation) const {
  // The shape: letters, then a digit ("v5e", "MI325X"); no space.
  size_t letters = 0;
  while (letters < designation.size() && IsAsciiAlpha(designation[letters])) ++letters;
  // (Not "v6e-256", a slice of 256 chips; not on a system's page: "B100"
  // on the DGX B200's is the chip, not a "DGX B100".)
  if (letters == 0 || letters >= designation.size() || !IsDigit(designation[letters]) ||
      !std::all_of(designation.begin(), designation.end(), [](char c) { return IsDigit(c) || IsAsciiAlpha(c); }) ||
      !subject_scope_.empty() || !SystemScopeOf(subject_written_).empty()) {
    return "";
  }
  const size_t space = subject_written_.rfind(' ');
  if (space == std::string::npos) return "";
  const std::string_view own = std::string_view(subject_written_).substr(space + 1);
  if (own.size() <= letters || !IsDigit(own[letters]) || AsciiLower(own.substr(0, letters)) != AsciiLower(designation.substr(0, letters))) {
    return "";
  }
  return subject_written_.substr(0, space + 1) + std::string(designation);
}

// Sections stay ordered by offset, those at one offset in the order added.
// Found by binary search: a long page has thousands, and every claim asks
// (a linear scan and a sort per section made a 5 MB page cost 15 s).
void Page::AddSection(size_t offset, std::string heading) {
  auto at = std::upper_bound(sections_.begin(), sections_.end(), offset,
                             [](size_t o, const auto& section) { return o < section.first; });
  sections_.emplace(at, offset, std::move(heading));
}

std::string Page::SectionAt(size_t offset) const {
  auto after = std::upper_bound(sections_.begin(), sections_.end(), offset,
                                [](size_t o, const auto& section) { return o < section.first; });
  if (after != sections_.begin() && !std::prev(after)->second.empty()) return std::prev(after)->second;
  return title.empty() ? "(top)" : title;
}

void Page::Claim(size_t line_index) {
  if (line_index < claimed_.size()) claimed_[line_index] = true;
}

void Page::ClaimLines(size_t first, size_t end) {
  for (size_t i = first; i < end && i < claimed_.size(); ++i) claimed_[i] = true;
}

std::optional<LabelHit> Page::LookupLabel(Range written) const {
  written = Trim(text, written);
  // Markdown's bold ("| **#Total Params** |"): the label inside.
  if (written.size() > 4 && View(written).starts_with("**") && View(written).ends_with("**")) {
    std::optional<LabelHit> inner = LookupLabel(Range{written.begin + 2, written.end - 2});
    if (inner) inner->range = written;
    return inner;
  }
  std::string key = Schema::NormalizeLabel(View(written));
  if (key.empty()) return std::nullopt;
  for (const LabelEntry& e : scan_labels_) {
    if (e.lower == key) return LabelHit{written, e.def, {}};
  }
  std::string_view v = View(written);
  // "FP8/FP6 Tensor Core", "Peak FP8/FP16 performance", "Peak FP8 / FP16
  // Performance": one figure for two known labels of one predicate ("FP8
  // Tensor Core", "FP6 Tensor Core"). Read as prose, the figure was the last
  // format's alone.
  std::string collapsed(v);
  for (size_t at = collapsed.find(" / "); at != std::string::npos; at = collapsed.find(" / ")) collapsed.replace(at, 3, "/");
  const std::string_view c = collapsed;
  if (const size_t slash = c.find('/'); slash != std::string_view::npos && c.find('/', slash + 1) == std::string_view::npos) {
    const size_t space_before = c.rfind(' ', slash);
    const size_t word = space_before == std::string_view::npos ? 0 : space_before + 1;
    const size_t word_end = std::min(c.find(' ', slash), c.size());
    const std::string head(c.substr(0, word));
    const std::string rest(c.substr(word_end));
    const bool two_words = slash > word && slash + 1 < word_end && !(head.empty() && rest.empty());
    const std::string first_key = Schema::NormalizeLabel(head + std::string(c.substr(word, slash - word)) + rest);
    const std::string second_key = Schema::NormalizeLabel(head + std::string(c.substr(slash + 1, word_end - slash - 1)) + rest);
    const LabelDef* first = nullptr;
    const LabelDef* second = nullptr;
    for (const LabelEntry& e : scan_labels_) {
      if (!two_words) break;
      if (e.lower == first_key) first = e.def;
      if (e.lower == second_key) second = e.def;
    }
    if (first != nullptr && second != nullptr && first != second && first->predicate == second->predicate) {
      LabelHit hit{written, first, {}};
      hit.also = second;
      return hit;
    }
    // "Peak MXFP6 / MXFP4 performance": two formats' own labels among words
    // that say the same of both.
    if (two_words && (first == nullptr || second == nullptr)) {
      const std::optional<FormatLabel> a = FormatLabelOf(head + std::string(c.substr(word, slash - word)) + rest);
      const std::optional<FormatLabel> b = FormatLabelOf(head + std::string(c.substr(slash + 1, word_end - slash - 1)) + rest);
      if (a && b && a->def != b->def && a->sparsity == b->sparsity) {
        LabelHit hit{written, a->def, a->sparsity};
        hit.also = b->def;
        return hit;
      }
    }
  }
  // "FP4 Tensor Core 1", "GPU Memory 2": a footnote's number after the
  // label (an HTML <sup>1</sup>), where the label without it is known.
  if (const std::string_view mark = FootnoteMarkOf(v); !mark.empty()) {
    // Where the page says what the mark means, the label is read with it
    // ("2. With sparsity"; "1. With sparsity | without sparsity": two
    // figures, sparse then dense) or not at all: read without a meaning it
    // has, a sparse figure was a dense one.
    const size_t space = v.size() - mark.size() - 1;
    const std::optional<std::string> meaning = FootnoteMeaning(mark);
    std::optional<LabelHit> base;
    if (!meaning || *meaning == "with sparsity" || *meaning == "with sparsity | without sparsity" ||
        *meaning == "with sparsity / without sparsity") {
      base = LookupLabel(Range{written.begin, written.begin + space});
    }
    if (base && meaning && (base->def->qualifiers.count(qualifier::kSparsity) || base->extra.count(qualifier::kSparsity))) {
      base.reset();  // a label that says its sparsity itself, marked again: in doubt
    }
    if (base && meaning) {
      const PredicateDef* p = Predicate(base->def->predicate);
      if (p == nullptr || p->dimension != "ops_per_second") base.reset();  // sparsity of a power, a memory: in doubt
    }
    if (base) {
      base->range = written;
      if (meaning) {
        base->extra.emplace(qualifier::kSparsity, "sparse");
        base->sparse_then_dense = *meaning != "with sparsity";
      }
      return base;
    }
  }
  // "FP16 Tensor Core*" on a page whose footnote says "* With sparsity": the
  // label's sparse figure. Without such a footnote the mark is unknown, and
  // so is the label.
  if (v.size() > 1 && v.back() == '*' && MarkedSparse(written.end - 1)) {
    std::optional<LabelHit> base = LookupLabel(Range{written.begin, written.end - 1});
    if (!base || base->def->qualifiers.count(qualifier::kSparsity) || base->extra.count(qualifier::kSparsity)) {
      return std::nullopt;
    }
    base->range = written;
    base->extra.emplace(qualifier::kSparsity, "sparse");
    return base;
  }
  // "On-chip memory (per core)": the label, and what its parenthesis adds.
  if (!v.empty() && v.back() == ')') {
    size_t open = v.rfind('(');
    if (open != std::string_view::npos && open > 0) {
      Range base{written.begin, written.begin + open};
      Range inner{written.begin + open + 1, written.end - 1};
      std::string base_key = Schema::NormalizeLabel(View(Trim(text, base)));
      // "Peak MXFP4 performance (per chip)": a format's own label, and what
      // the parenthesis adds to it.
      if (ExactLabel(View(Trim(text, base))) == nullptr) {
        // (A parenthesis of other words, "(sparsity)", "(OAM)", "(FP8)", is
        // left to the whole label's reading below.)
        if (std::optional<FormatLabel> f = FormatLabelOf(View(Trim(text, base)))) {
          Qualifiers extra = QualifiersIn(*this, inner);
          bool agrees = !extra.empty() && !extra.count(qualifier::kFormat);
          for (const auto& [k, q] : f->sparsity) {
            if (auto it = extra.find(k); it != extra.end() && it->second != q) agrees = false;  // "dense (sparse)"
            extra.emplace(k, q);
          }
          if (agrees) return LabelHit{written, f->def, extra};
        }
      }
      for (const LabelEntry& e : scan_labels_) {
        if (e.lower != base_key) continue;
        Qualifiers extra = QualifiersIn(*this, inner);
        if (extra.empty()) {
          // "Max Thermal Design Power (TDP)": the label's own abbreviation.
          std::optional<LabelHit> same = LookupLabel(Trim(text, inner));
          if (same && same->def->predicate == e.def->predicate && same->def->qualifiers == e.def->qualifiers) {
            return LabelHit{written, e.def, {}};
          }
          // "Total Board Power (TBP)": the initials of the label's words.
          std::string initials;
          for (std::optional<Range> w = NextWord(text, base.begin, base.end); w; w = NextWord(text, w->end, base.end)) {
            initials += static_cast<char>(std::toupper(static_cast<unsigned char>(text[w->begin])));
          }
          if (initials.size() >= 2 && View(Trim(text, inner)) == initials) return LabelHit{written, e.def, {}};
          return std::nullopt;  // a parenthesis we do not understand changes the meaning
        }
        return LabelHit{written, e.def, extra};
      }
    }
  }
  // "BF16 TFLOPS" and "TeraFLOPs (FP8)": a label and a unit of its
  // dimension, heading cells of bare numbers.
  const auto with_unit = [&](Range label_part, std::string_view unit_part) -> std::optional<LabelHit> {
    if (unit_part.empty() || schema.FindUnit(std::string(unit_part)) == nullptr) return std::nullopt;
    std::optional<LabelHit> base = LookupLabel(label_part);
    if (!base || base->unit != nullptr) return std::nullopt;
    const PredicateDef* p = Predicate(base->def->predicate);
    if (p == nullptr || p->type != ValueKind::kQuantity) return std::nullopt;
    const UnitDef* unit = schema.FindUnit(std::string(unit_part), p->dimension);
    if (unit == nullptr) return std::nullopt;
    base->range = written;
    base->unit = unit;
    return base;
  };
  if (const size_t space = v.rfind(' '); space != std::string_view::npos && v.back() != ')') {
    if (auto hit = with_unit(Range{written.begin, written.begin + space}, v.substr(space + 1))) return hit;
  }
  if (const size_t open = v.rfind('('); open != std::string_view::npos && open > 0 && v.back() == ')') {
    const std::string_view unit = v.substr(0, open);
    const size_t end = unit.find_last_not_of(' ');
    if (end != std::string_view::npos) {
      if (auto hit = with_unit(Range{written.begin + open + 1, written.end - 1}, unit.substr(0, end + 1))) return hit;
    }
  }
  if (std::optional<FormatLabel> f = FormatLabelOf(v)) {
    LabelHit hit{written, f->def, f->sparsity};
    return hit;
  }
  return std::nullopt;
}

const LabelDef* Page::ExactLabel(std::string_view written) const {
  const std::string key = Schema::NormalizeLabel(written);
  if (key.empty()) return nullptr;
  for (const LabelEntry& e : scan_labels_) {
    if (e.lower == key) return e.def;
  }
  return nullptr;
}

// "Peak MXFP4 performance", "FP4 with sparsity", "Peak FP8 compute
// (sparse)": a format's own label among words that only say it is a peak
// figure and how sparse; each wording a label of its own, a table's row of
// one stored nothing. Only words and a parenthesis: a footnote's mark
// ("FP8*") whose meaning is not known leaves the label unknown, as it does
// a schema's label.
std::optional<Page::FormatLabel> Page::FormatLabelOf(std::string_view v) const {
  if (v.size() > 48 || !std::all_of(v.begin(), v.end(), [](char c) {
        return IsWordByte(c) || c == ' ' || c == '(' || c == ')' || c == '-';
      })) {
    return std::nullopt;
  }
  const LabelDef* format_label = nullptr;
  Qualifiers sparsity;
  for (std::optional<Range> w = NextWord(v, 0, v.size()); w; w = NextWord(v, w->end, v.size())) {
    const std::string word = AsciiLower(v.substr(w->begin, w->size()));
    if (word == "peak" || word == "performance" || word == "compute" || word == "throughput" || word == "with") continue;
    if (word == "sparsity" || word == "sparse" || word == "dense") {
      const std::string said = word == "dense" ? "dense" : "sparse";
      // "dense (with sparsity)": two figures' words, not one figure's.
      if (auto it = sparsity.find(qualifier::kSparsity); it != sparsity.end() && it->second != said) return std::nullopt;
      sparsity[qualifier::kSparsity] = said;
      continue;
    }
    // Every format word has a digit ("fp8", "bfloat16"); the label looked up
    // is a part of this one, never itself.
    if (format_label == nullptr && std::any_of(word.begin(), word.end(), IsDigit) && w->size() < v.size() &&
        FormatWord(word)) {
      format_label = ExactLabel(word);
      if (format_label == nullptr) return std::nullopt;
      continue;
    }
    return std::nullopt;
  }
  if (format_label == nullptr || format_label->predicate != "peak_throughput" ||
      format_label->qualifiers.count(qualifier::kSparsity)) {
    return std::nullopt;
  }
  return FormatLabel{format_label, std::move(sparsity)};
}

std::vector<LabelHit> Page::LabelsIn(Range r) const {
  std::vector<LabelHit> hits;
  std::string v = AsciiLower(View(r));
  if (v.empty()) return hits;
  for (const LabelEntry& e : scan_labels_) {
    size_t from = 0;
    while (true) {
      size_t at = FindLowerWord(v, e.lower, from);
      if (at == std::string_view::npos) break;
      Range found{r.begin + at, r.begin + at + e.lower.size()};
      bool overlaps = false;
      for (const LabelHit& h : hits) overlaps = overlaps || h.range.Overlaps(found);
      if (!overlaps) hits.push_back(LabelHit{found, e.def, {}});
      from = at + 1;
    }
  }
  std::sort(hits.begin(), hits.end(),
            [](const LabelHit& a, const LabelHit& b) { return a.range.begin < b.range.begin; });
  return hits;
}

bool Page::Applies(const PredicateDef& p, const std::string& kind) {
  if (p.subject_kinds.empty()) return true;
  return std::find(p.subject_kinds.begin(), p.subject_kinds.end(), kind) != p.subject_kinds.end();
}

namespace {

// "Second-generation Trainium" is the second of the line: the number an
// ordinal before "-generation " at `at` gives (2 for "second", "2nd"), and
// where the ordinal starts; 0 when there is none. `lower` is lower-cased.
int GenerationBefore(std::string_view lower, size_t at, size_t* ordinal_at) {
  constexpr std::string_view kGeneration = "-generation ";
  if (at < kGeneration.size() || lower.substr(at - kGeneration.size(), kGeneration.size()) != kGeneration) return 0;
  const size_t end = at - kGeneration.size();
  size_t begin = end;
  while (begin > 0 && (IsAsciiAlpha(lower[begin - 1]) || IsDigit(lower[begin - 1]))) --begin;
  static const std::pair<std::string_view, int> kOrdinals[] = {
      {"first", 1}, {"second", 2}, {"third", 3}, {"fourth", 4}, {"fifth", 5}, {"sixth", 6}, {"seventh", 7},
      {"eighth", 8}, {"ninth", 9}, {"1st", 1},  {"2nd", 2},    {"3rd", 3},    {"4th", 4},   {"5th", 5}};
  for (const auto& [word, n] : kOrdinals) {
    if (lower.substr(begin, end - begin) == word) {
      *ordinal_at = begin;
      return n;
    }
  }
  return 0;
}

}  // namespace

std::vector<Mention> Page::MentionsIn(Range r, const std::vector<Range>& excluded) const {
  std::vector<Mention> found;
  std::string v = AsciiLower(View(r));
  if (v.empty()) return found;
  for (const AliasEntry& a : aliases_) {
    size_t from = 0;
    while (true) {
      size_t at = FindLowerWord(v, a.lower, from);
      if (at == std::string_view::npos) break;
      from = at + 1;
      Range m{r.begin + at, r.begin + at + a.lower.size()};
      const EntityDef* entity = a.entity;
      // "Second-generation Trainium" is Trainium 2 where the schema knows it
      // so ("Trainium 2", "Trainium2"); else it stays a mention of Trainium,
      // which keeps another chip's figures off the page's chip.
      size_t ordinal_at = 0;
      if (int n = GenerationBefore(v, at, &ordinal_at); n > 0) {
        const std::string spaced = a.lower + " " + std::to_string(n), joined = a.lower + std::to_string(n);
        for (const AliasEntry& b : aliases_) {
          if (b.lower == spaced || b.lower == joined) {
            entity = b.entity;
            m.begin = r.begin + ordinal_at;
          }
        }
      }
      bool clash = false;
      for (const Range& x : excluded) clash = clash || x.Overlaps(m);
      for (const Mention& f : found) clash = clash || f.range.Overlaps(m);
      if (!clash) found.push_back(Mention{m, entity});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const Mention& a, const Mention& b) { return a.range.begin < b.range.begin; });
  return found;
}

std::optional<Mention> Page::MentionAt(size_t pos, size_t limit) const {
  std::string_view v = View(Range{pos, limit});
  for (const AliasEntry& a : aliases_) {
    if (a.lower.size() > v.size()) continue;
    if (AsciiLower(v.substr(0, a.lower.size())) != a.lower) continue;
    if (!WordStartsAt(text, pos) || !WordEndsAt(text, pos + a.lower.size())) continue;
    return Mention{Range{pos, pos + a.lower.size()}, a.entity};
  }
  return std::nullopt;
}

std::optional<std::string> Page::FormatWord(std::string_view word) const {
  std::string lower = AsciiLower(word);
  const AttributeDef* a = schema.FindAttribute(lower);
  if (a == nullptr) {
    // "bfloat16": another word for an attribute that names a format.
    for (const SynonymDef* s : schema.FindSynonyms(lower, "")) {
      if ((a = schema.FindAttribute(s->target)) != nullptr) break;
    }
  }
  if (a == nullptr) return std::nullopt;
  auto it = a->qualifiers.find(qualifier::kFormat);
  if (it == a->qualifiers.end()) return std::nullopt;
  return it->second;
}

std::string Page::PartScopeOf(std::string_view word) const {
  constexpr std::string_view kPrefix = "part_words_";
  const std::string lower = AsciiLower(word);
  for (const auto& [table, words] : schema.tables()) {
    if (!table.starts_with(kPrefix)) continue;
    for (const auto& [written, unused] : words) {
      const std::string w = AsciiLower(written);
      if (w == lower || w + "s" == lower) return table.substr(kPrefix.size());
    }
  }
  return "";
}

bool Page::IsPartScope(std::string_view word) const {
  auto t = schema.tables().find("part_scopes");
  if (t == schema.tables().end()) return false;
  const std::string lower = AsciiLower(word);
  for (const auto& [key, unused] : t->second) {
    if (AsciiLower(key) == lower) return true;
  }
  return false;
}

bool Page::IsScopeWord(std::string_view word) const {
  auto t = schema.tables().find("words_scope");
  if (t == schema.tables().end()) return false;
  std::string lower = AsciiLower(word);
  for (const auto& [key, unused] : t->second) {
    if (AsciiLower(key) == lower) return true;
  }
  return false;
}

bool Page::InVocabulary(const std::string& predicate, std::string_view word) const {
  auto t = schema.tables().find("words_" + predicate);
  if (t == schema.tables().end()) return false;
  std::string lower = AsciiLower(word);
  for (const auto& [key, unused] : t->second) {
    if (AsciiLower(key) == lower) return true;
  }
  return false;
}

std::vector<std::pair<Range, std::string>> Page::VocabularyIn(Range r, const std::string& predicate) const {
  std::vector<std::pair<Range, std::string>> out;
  auto t = schema.tables().find("words_" + predicate);
  if (t == schema.tables().end()) return out;
  std::string v = AsciiLower(View(r));
  for (const auto& [key, unused] : t->second) {
    std::string lower = AsciiLower(key);
    size_t from = 0;
    while (true) {
      size_t at = FindLowerWord(v, lower, from);
      if (at == std::string_view::npos) break;
      from = at + 1;
      Range m{r.begin + at, r.begin + at + lower.size()};
      bool clash = false;
      for (const auto& o : out) clash = clash || o.first.Overlaps(m);
      if (!clash) out.emplace_back(m, Str(m));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
  return out;
}

std::optional<EntityId> Page::Resolve(const std::string& written, const std::string& kind, size_t offset) {
  std::string name = WithoutTrademarks(written);
  // "1x NVIDIA GH200" heading a row of a cloud's price list is the chip (a
  // chip of its own before). "8x NVIDIA H100 SXM" is eight: some lists give
  // each chip's memory there, others the eight's, and the page does not say
  // which, so its row gives no claim.
  if (kind == "chip") {
    size_t digits = 0;
    while (digits < name.size() && IsDigit(name[digits])) ++digits;
    if (digits > 0 && digits + 2 < name.size() && (name[digits] == 'x' || name[digits] == 'X') && name[digits + 1] == ' ') {
      if (name.substr(0, digits) != "1") {
        Warn(offset, "'" + name + "' is " + name.substr(0, digits) +
                         " chips: whether a figure is each chip's or all of theirs is not said; no claim made of it");
        return std::nullopt;
      }
      name = name.substr(digits + 2);
    }
  }
  if (name.empty()) return std::nullopt;
  if (name.size() > kMaxEntityName) {
    Warn(offset, kind + " name of " + std::to_string(name.size()) + " bytes is not a name");
    return std::nullopt;
  }
  Result<Resolution> r = resolver.Resolve(name, kind);
  if (r.ok()) return r->id;
  if (r.status().IsInvalidArgument() || r.status().IsNotFound()) {
    Warn(offset, "cannot resolve " + kind + " '" + name + "': " + r.status().message());
  } else if (error_.ok()) {
    error_ = r.status().WithContext("resolving " + kind + " '" + name + "'");
  }
  return std::nullopt;
}

void Page::Warn(size_t offset, const std::string& message) {
  if (warnings_.size() >= 1000) return;  // a hostile page should not turn into megabytes of warnings
  warnings_.push_back("line " + std::to_string(LineNumberAt(offset)) + ": " + message);
  if (warnings_.size() == 1000) warnings_.push_back("(further warnings dropped)");
}

void Page::Add(Draft d, const Emit& emit) {
  d.span = Trim(text, d.span);
  if (d.span.empty() || d.span.end > text.size()) return;
  if (d.subject.empty()) {
    Warn(d.span.begin, "no subject for " + d.predicate + " '" + Str(d.span) + "'");
    return;
  }
  const PredicateDef* p = Predicate(d.predicate);
  if (p == nullptr) {
    Warn(d.span.begin, "unknown predicate '" + d.predicate + "'");
    return;
  }
  if (d.value.kind != ValueKind::kNotPublished && d.value.kind != p->type) {
    Warn(d.span.begin, d.predicate + " takes a " + ValueKindName(p->type) + ", not '" + Str(d.span) + "'");
    return;
  }
  if (d.predicate == kPageDatePredicate) {
    if (d.value.kind == ValueKind::kDate && !as_of) as_of = d.value.date;
    return;
  }
  // The page is about a system ("DGX B200"): its figures are the system's.
  if (!subject_scope_.empty() && d.subject == subject_ && d.value.kind == ValueKind::kQuantity &&
      !d.qualifiers.count(qualifier::kScope)) {
    d.qualifiers[qualifier::kScope] = subject_scope_;
  }
  for (const auto& [key, value] : d.qualifiers) {
    if (std::find(schema.qualifier_keys().begin(), schema.qualifier_keys().end(), key) ==
        schema.qualifier_keys().end()) {
      Warn(d.span.begin, "qualifier '" + key + "' is not declared in the schema; dropped");
    }
  }
  for (auto it = d.qualifiers.begin(); it != d.qualifiers.end();) {
    bool known = std::find(schema.qualifier_keys().begin(), schema.qualifier_keys().end(), it->first) !=
                 schema.qualifier_keys().end();
    it = known ? std::next(it) : d.qualifiers.erase(it);
  }

  Fact f;
  f.subject = d.subject;
  f.predicate = d.predicate;
  f.value = std::move(d.value);
  f.qualifiers = std::move(d.qualifiers);
  Provenance& pr = f.provenance;
  pr.document_id = source.document_id;
  pr.section = SectionAt(d.span.begin);
  pr.span_begin = static_cast<uint32_t>(d.span.begin);
  pr.span_end = static_cast<uint32_t>(d.span.end);
  pr.excerpt = text.substr(d.span.begin, d.span.size());
  size_t pre = Utf8Ceil(text, d.span.begin > kContextBytes ? d.span.begin - kContextBytes : 0);
  if (pre > d.span.begin) pre = d.span.begin;
  pr.prefix = text.substr(pre, d.span.begin - pre);
  size_t post = Utf8Floor(text, std::min(text.size(), d.span.end + kContextBytes));
  if (post < d.span.end) post = d.span.end;
  pr.suffix = text.substr(d.span.end, post - d.span.end);
  pr.citations = d.citations.empty() ? emit.citations : d.citations;
  pr.attribution = !emit.attribution.empty() ? emit.attribution : CitationAttribution(pr.citations);
  pr.note = d.note.empty() ? emit.note : d.note;
  pr.rule = emit.rule.empty() ? "generic" : emit.rule;
  pr.rule_version = kExtractRuleVersion;
  pr.derivation = d.derivation;
  pr.formula = d.formula;
  f.valid_as_of = emit.valid_as_of;

  std::string key = f.subject + '\0' + f.predicate + '\0' + std::to_string(pr.span_begin) + ':' +
                    std::to_string(pr.span_end);
  std::vector<size_t>& same_span = by_span_[key];
  for (size_t i : same_span) {
    const Fact& g = facts_[i];
    if (g.qualifiers == f.qualifiers && g.value.SameContent(f.value)) {
      return;  // read twice (e.g. a label and its context): one claim
    }
  }
  if (facts_.size() >= max_facts) throw FactLimitReached(pr.span_begin);
  same_span.push_back(facts_.size());
  facts_.push_back(std::move(f));
  from_template_.push_back(!generic_phase);
}

}  // namespace chipkg::extract_internal
