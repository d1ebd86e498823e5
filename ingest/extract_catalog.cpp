// The "chip-catalog" template: a chip page that opens with "AI chip · <vendor>"
// and the chip's name, then fixed sections ("Key facts", "Specifications (N
// fields, ...)", a fit table of open LLMs, a FAQ, rack designs, benchmarks,
// data centers). Lists are "- Label" / "- value" line pairs; some values are
// glued to what follows them ("0.42 BF16 TFLOPS/W210 TFLOPS ÷ 500 W = 0.42",
// "waterDepends on the rack design", "Campusas of 2024-12-03announcedinferred").
//
// What a label means comes from the schema (site=chip-catalog labels first);
// this file knows only the layout.

#include <algorithm>

#include "ingest/extract_internal.h"

namespace chipkg::extract_internal {

namespace {

constexpr std::string_view kHeaderPrefix = "AI chip \xC2\xB7 ";  // "AI chip · "
constexpr std::string_view kCheck = "\xE2\x9C\x93";              // ✓
constexpr std::string_view kCross = "\xE2\x9C\x97";              // ✗
constexpr std::string_view kTimesSign = "\xC3\x97";              // ×

enum class Section {
  kOther,
  kMarket,
  kEfficiency,
  kFits,
  kQuestions,
  kKeyFacts,
  kSpecs,
  kFoundry,
  kRacks,
  kBenchmarks,
  kDataCenters,
  kSources,
};

struct HeadingDef {
  std::string_view prefix;
  bool whole_line;
  Section section;
};

// The template's section headings, as the site writes them.
constexpr HeadingDef kHeadings[] = {
    {"Market position", true, Section::kMarket},
    {"Efficiency and power", true, Section::kEfficiency},
    {"What fits in ", false, Section::kFits},
    {"Common questions", true, Section::kQuestions},
    {"Key facts", true, Section::kKeyFacts},
    {"Specifications (", false, Section::kSpecs},
    {"Specifications", true, Section::kSpecs},
    {"Generation", true, Section::kOther},
    {"Foundry & process", true, Section::kFoundry},
    {"Rack designs that use it", true, Section::kRacks},
    {"Compare with", true, Section::kOther},
    {"Benchmarks", true, Section::kBenchmarks},
    {"Data centers running ", false, Section::kDataCenters},
    {"Sources", true, Section::kSources},
};

std::optional<Section> HeadingAt(std::string_view line) {
  if (line.size() > 80 || line.empty()) return std::nullopt;
  for (const HeadingDef& h : kHeadings) {
    if (h.whole_line ? line == h.prefix : line.substr(0, h.prefix.size()) == h.prefix) return h.section;
  }
  return std::nullopt;
}

std::optional<Range> Bullet(const Page& page, size_t i) {
  Range r = Trim(page.text, page.lines()[i].range);
  std::string_view v = page.View(r);
  if (v.size() < 2 || v[0] != '-' || v[1] != ' ') return std::nullopt;
  return Trim(page.text, Range{r.begin + 2, r.end});
}

// "Straight from the vendor datasheet. Dense throughput shown first; ..." -> its first sentence.
std::string FirstSentence(const Page& page, Range r) {
  std::vector<Range> s = SplitSentences(page, r);
  if (s.empty()) return "";
  std::string out = page.Str(s.front());
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

struct FitContext {
  std::optional<QuantityRead> memory;          // "What fits in 32 GB"
  std::map<std::string, std::string> factors;  // format -> "2 bytes", from the "Math:" line
  std::map<std::string, int> fits;             // format -> rows marked as fitting
  bool have_table = false;
};

// "Math: FP16 = params × 2 bytes; INT8 = params × 1 byte; ..."
void ReadMath(const Page& page, Range line, FitContext& fit) {
  std::string_view text(page.text);
  std::string_view v = page.View(line);
  for (size_t i = 0; i < v.size();) {
    auto w = NextWord(text, line.begin + i, line.end);
    if (!w) break;
    i = w->end - line.begin;
    std::optional<std::string> format = page.FormatWord(text.substr(w->begin, w->size()));
    if (!format) continue;
    std::string_view rest = v.substr(i);
    size_t times = rest.find(kTimesSign);
    size_t stop = rest.find_first_of(";");
    size_t dot = rest.find(". ");
    stop = std::min(stop, dot);
    if (times == std::string_view::npos || times > stop) continue;
    std::string factor(rest.substr(times + kTimesSign.size(), stop == std::string_view::npos
                                                                  ? rest.npos
                                                                  : stop - times - kTimesSign.size()));
    Range f = Trim(factor, Range{0, factor.size()});
    fit.factors[*format] = factor.substr(f.begin, f.size());
  }
}

void ReadFitTable(Page& page, const Table& table, FitContext& fit) {
  std::string_view text(page.text);
  Emit emit;
  emit.rule = "chip-catalog-fit-table";
  const auto& header = table.header.cells;
  std::optional<size_t> params_col;
  std::map<size_t, std::string> format_cols;
  for (size_t j = 1; j < header.size(); ++j) {
    if (auto f = page.FormatWord(page.View(header[j]))) {
      format_cols[j] = *f;
      continue;
    }
    if (auto hit = page.LookupLabel(header[j]); hit && hit->def->predicate == "parameters") params_col = j;
  }
  fit.have_table = true;
  for (const Table::Row& row : table.rows) {
    if (row.cells.empty() || row.cells[0].empty()) continue;
    Range cell = row.cells[0];
    std::string_view cv = page.View(cell);
    Range base = cell;
    Range inner{cell.end, cell.end};
    size_t open = cv.find('(');
    if (open != std::string_view::npos && cv.back() == ')') {
      base = Trim(text, Range{cell.begin, cell.begin + open});
      inner = Trim(text, Range{cell.begin + open + 1, cell.end - 1});
    }
    // "Llama 3.1 8B dense": the architecture word ends the name.
    Range name = base;
    std::optional<Range> arch;
    size_t last_space = page.View(base).rfind(' ');
    if (last_space != std::string_view::npos) {
      Range word{base.begin + last_space + 1, base.end};
      if (page.InVocabulary("architecture", page.View(word))) {
        arch = word;
        name = Trim(text, Range{base.begin, base.begin + last_space});
      }
    }
    std::optional<EntityId> model = page.Resolve(page.Str(name), "llm", name.begin);
    if (!model) continue;
    auto add = [&](Draft d) {
      d.subject = d.subject.empty() ? *model : d.subject;
      page.Add(std::move(d), emit);
    };
    if (arch) {
      Draft d;
      d.predicate = "architecture";
      d.value = Value::Text(AsciiLower(page.View(*arch)));
      d.span = *arch;
      add(std::move(d));
    }
    // "(671B total, 37B active per token)"
    std::string_view iv = page.View(inner);
    size_t active = iv.find(" active");
    if (active != std::string_view::npos) {
      size_t b = active;
      while (b > 0 && iv[b - 1] != ' ' && iv[b - 1] != ',') --b;
      Range figure{inner.begin + b, inner.begin + active};
      if (auto q = ReadQuantity(page, figure, "parameters")) {
        Draft d;
        d.predicate = "active_parameters";
        d.value = Value::Quantity(q->canonical, q->dimension, page.Str(q->figure));
        d.span = q->figure;
        add(std::move(d));
      }
    }
    std::string params_written;
    if (params_col && *params_col < row.cells.size()) {
      if (auto q = ReadQuantity(page, row.cells[*params_col], "parameters")) {
        params_written = page.Str(q->figure);
        Draft d;
        d.predicate = "parameters";
        d.value = Value::Quantity(q->canonical, q->dimension, params_written);
        d.span = q->figure;
        add(std::move(d));
      } else {
        page.Warn(row.cells[*params_col].begin,
                  "no parameter count in '" + page.Str(row.cells[*params_col]) + "'");
      }
    }
    for (const auto& [j, format] : format_cols) {
      if (j >= row.cells.size()) continue;
      Range c = row.cells[j];
      std::optional<QuantityRead> weights = ReadQuantity(page, c, "bytes");
      if (weights) {
        Draft d;
        d.predicate = "weight_memory";
        d.qualifiers[qualifier::kFormat] = format;
        d.value = Value::Quantity(weights->canonical, weights->dimension, page.Str(weights->figure));
        d.span = weights->figure;
        auto factor = fit.factors.find(format);
        if (!params_written.empty() && factor != fit.factors.end()) {
          d.derivation = Derivation::kStatedDerived;
          d.formula = params_written + " \xC3\x97 " + factor->second;
        }
        add(std::move(d));
      }
      std::string_view v = page.View(c);
      bool yes = v.find(kCheck) != std::string_view::npos;
      bool no = v.find(kCross) != std::string_view::npos;
      if (yes == no) {
        page.Warn(c.begin, "fit mark missing or ambiguous in '" + std::string(v) + "'");
        continue;
      }
      if (yes) ++fit.fits[format];
      Draft d;
      d.subject = page.subject();
      d.predicate = "fits";
      d.qualifiers[qualifier::kFormat] = format;
      d.qualifiers["model"] = *model;
      d.value = Value::Bool(yes, std::string(yes ? kCheck : kCross));
      d.span = c;
      if (weights && fit.memory) {
        d.derivation = Derivation::kStatedDerived;
        d.formula =
            page.Str(weights->figure) + (yes ? " \xE2\x89\xA4 " : " > ") + page.Str(fit.memory->figure);
      }
      add(std::move(d));
    }
  }
}

// "Of 13 open-source LLMs we track, 2 fit at FP16, 3 at INT8, and 4 at INT4".
void ReadFitCounts(Page& page, Range answer, const FitContext& fit, const Emit& emit) {
  std::string_view text(page.text);
  std::vector<LabelHit> labels = page.LabelsIn(answer);
  auto number_before = [&](size_t pos) -> std::optional<NumberToken> {
    size_t p = pos;
    while (p > answer.begin && SpaceAt(text, p - 1)) --p;
    size_t e = p;
    while (p > answer.begin && IsDigit(text[p - 1])) --p;
    if (p == e) return std::nullopt;
    return NumberAt(text, p, e);
  };
  auto add_count = [&](const LabelHit& label, const NumberToken& n, Range span, const Qualifiers& q) {
    const PredicateDef* p = page.Predicate(label.def->predicate);
    if (p == nullptr || p->type != ValueKind::kQuantity) return;
    Draft d;
    d.subject = page.subject();
    d.predicate = p->name;
    d.qualifiers = label.def->qualifiers;
    for (const auto& [k, v] : q) d.qualifiers[k] = v;
    d.value = Value::Quantity(n.value, p->dimension, page.Str(n.range));
    d.span = span;
    page.Add(std::move(d), emit);
  };
  for (const LabelHit& h : labels) {
    std::optional<NumberToken> n = number_before(h.range.begin);
    if (!n) continue;
    if (h.def->predicate != "models_fitting") {
      add_count(h, *n, Range{n->range.begin, h.range.end}, {});
      continue;
    }
    // "2 fit at FP16", then ", 3 at INT8, and 4 at INT4".
    size_t pos = h.range.end;
    std::optional<NumberToken> count = n;
    size_t span_begin = n->range.begin;
    while (count) {
      auto w = NextWord(text, pos, answer.end);
      if (!w) break;
      std::optional<std::string> format = page.FormatWord(text.substr(w->begin, w->size()));
      if (!format) break;
      Qualifiers q{{qualifier::kFormat, *format}};
      add_count(h, *count, Range{span_begin, w->end}, q);
      auto tallied = fit.fits.find(*format);
      int marks = tallied == fit.fits.end() ? 0 : tallied->second;
      if (fit.have_table && marks != static_cast<int>(count->value)) {
        page.Warn(span_begin, "page says " + page.Str(count->range) + " fit at " + page.Str(*w) +
                                  " but its table marks " + std::to_string(marks));
      }
      pos = w->end;
      size_t p = pos;
      if (text.substr(p, 2) == ", ") p += 2;
      if (text.substr(p, 4) == "and ") p += 4;
      count = NumberAt(text, p, answer.end);
      if (!count || text.substr(count->range.end, 4) != " at ") break;
      span_begin = count->range.begin;
      pos = count->range.end + 4;
    }
  }
}

void ReadQuestions(Page& page, size_t first, size_t end, const FitContext& fit) {
  std::string_view text(page.text);
  for (size_t i = first; i < end;) {
    Range q = Trim(text, page.lines()[i].range);
    if (q.empty() || text[q.end - 1] != '?') {
      ++i;
      continue;
    }
    size_t a = i + 1;
    size_t a_end = a;
    while (a_end < end) {
      Range r = Trim(text, page.lines()[a_end].range);
      if (!r.empty() && text[r.end - 1] == '?') break;
      ++a_end;
    }
    page.ClaimLines(i, a_end);
    if (a < a_end) {
      Range answer{page.lines()[a].range.begin, page.lines()[a_end - 1].range.end};
      std::vector<LabelHit> question_labels = page.LabelsIn(q);
      bool counts = false;
      for (const LabelHit& h : page.LabelsIn(answer)) counts = counts || h.def->predicate == "models_fitting";
      Emit emit;
      if (counts) {
        emit.rule = "chip-catalog-fit-counts";
        ReadFitCounts(page, answer, fit, emit);
      } else {
        emit.rule = "chip-catalog-faq";
        for (const Range& s : SplitSentences(page, answer)) {
          std::string_view v = page.View(s);
          if (v.substr(0, 13) == "Straight from") {
            emit.attribution = std::string(v);
            while (!emit.attribution.empty() && emit.attribution.back() == '.') emit.attribution.pop_back();
          }
        }
        SentenceOptions opt;
        opt.emit = emit;
        opt.context_labels = question_labels;
        opt.subject_in_context = true;
        ReadSentences(page, answer, opt);
      }
    }
    i = a_end;
  }
}

// "- ×64AWS Trainium 2 UltraServerultraserver"
void ReadRack(Page& page, Range item) {
  std::string_view text(page.text);
  std::string_view v = page.View(item);
  if (v.substr(0, kTimesSign.size()) != kTimesSign) return;
  size_t p = item.begin + kTimesSign.size();
  std::optional<NumberToken> n;
  size_t e = p;
  while (e < item.end && IsDigit(text[e])) ++e;
  if (e > p)
    n = NumberToken{Range{p, e}, static_cast<double>(
                                     std::stoll(std::string(text.substr(p, std::min<size_t>(e - p, 15)))))};
  if (!n) {
    page.Warn(item.begin, "rack design without a chip count: '" + std::string(v) + "'");
    return;
  }
  Range name = Trim(text, Range{e, item.end});
  // The site appends the design's type in lower case: "UltraServerultraserver".
  size_t run = 0;
  while (run < name.size() && IsLower(text[name.end - run - 1])) ++run;
  for (size_t k = std::min(run, name.size() / 2); k >= 3; --k) {
    size_t t = name.end - k;
    if (AsciiLower(text.substr(t - k, k)) == text.substr(t, k)) {
      name.end = t;
      break;
    }
  }
  std::optional<EntityId> rack = page.Resolve(page.Str(name), "rack_design", name.begin);
  if (!rack) return;
  Emit emit;
  emit.rule = "chip-catalog-rack-designs";
  Draft chips;
  chips.subject = *rack;
  chips.predicate = "chips";
  chips.value = Value::Quantity(n->value, "count", page.Str(Range{item.begin, e}));
  chips.span = Range{item.begin, e};
  page.Add(std::move(chips), emit);
  Draft acc;
  acc.subject = *rack;
  acc.predicate = "accelerator";
  acc.value = Value::Entity(page.subject(), page.title);
  acc.span = name;
  page.Add(std::move(acc), emit);
}

// "- Amazon 'Bridgefield' GWU Ashburn Campusas of 2024-12-03announcedinferred" and its description lines.
void ReadDataCenters(Page& page, size_t first, size_t end) {
  std::string_view text(page.text);
  for (size_t i = first; i < end; ++i) {
    std::optional<Range> item = Bullet(page, i);
    if (!item) continue;
    std::string_view v = page.View(*item);
    size_t at = v.find("as of ");
    if (at == std::string_view::npos || at == 0) continue;
    page.Claim(i);
    Range name = Trim(text, Range{item->begin, item->begin + at});
    // The date runs straight into the status: "as of 2024-12-03announced".
    std::optional<DateToken> date;
    size_t d0 = item->begin + at + 6;
    if (d0 + 10 <= item->end) {
      if (auto d = Date::Parse(std::string(text.substr(d0, 10)))) date = DateToken{Range{d0, d0 + 10}, *d};
    }
    if (!date) date = DateAt(text, d0, item->end, false);
    std::optional<EntityId> dc = page.Resolve(page.Str(name), "data_center", name.begin);
    if (!dc) continue;
    Emit emit;
    emit.rule = "chip-catalog-data-centers";
    if (date) emit.valid_as_of = date->date;
    Draft acc;
    acc.subject = *dc;
    acc.predicate = "accelerator";
    acc.value = Value::Entity(page.subject(), page.title);
    acc.span = name;
    page.Add(std::move(acc), emit);
    if (date) {
      Range rest = Trim(text, Range{date->range.end, item->end});
      // The evidence word closes the row; the status is what comes before it.
      Range status = rest;
      for (const std::string& word : {std::string("evidence")}) {
        auto table = page.schema.tables().find("words_" + word);
        if (table == page.schema.tables().end()) continue;
        for (const auto& [key, unused] : table->second) {
          std::string k = AsciiLower(key);
          if (rest.size() > k.size() && AsciiLower(page.View(Range{rest.end - k.size(), rest.end})) == k) {
            Range ev{rest.end - k.size(), rest.end};
            status = Trim(text, Range{rest.begin, ev.begin});
            Draft d;
            d.subject = *dc;
            d.predicate = "evidence";
            d.value = Value::Text(page.Str(ev));
            d.span = ev;
            page.Add(std::move(d), emit);
            break;
          }
        }
      }
      if (!status.empty()) {
        Draft d;
        d.subject = *dc;
        d.predicate = "status";
        d.value = Value::Text(page.Str(status));
        d.span = status;
        page.Add(std::move(d), emit);
      }
    } else {
      page.Warn(item->begin, "data center row without a date after 'as of'");
    }
    // Description lines under the row, up to the next row.
    SentenceOptions opt;
    opt.emit = emit;
    opt.subject = *dc;
    opt.subject_kind = "data_center";
    size_t j = i + 1;
    for (; j < end && !Bullet(page, j); ++j) {
      page.Claim(j);
      ReadSentences(page, page.lines()[j].range, opt);
    }
    i = j - 1;
  }
}

}  // namespace

double ScoreCatalog(std::string_view text) {
  std::string_view head = text.substr(0, std::min<size_t>(text.size(), 64 * 1024));
  double score = 0;
  size_t first = 0;
  while (first < head.size() && SpaceAt(head, first)) ++first;
  if (head.substr(first, kHeaderPrefix.size()) == kHeaderPrefix) score += 0.6;
  if (head.find("\nKey facts\n") != std::string_view::npos) score += 0.2;
  if (head.find("\nSpecifications (") != std::string_view::npos) score += 0.2;
  return score;
}

void RunCatalog(Page& page) {
  std::string_view text(page.text);
  const auto& lines = page.lines();
  size_t h = 0;
  while (h < lines.size() && Trim(text, lines[h].range).empty()) ++h;
  if (h >= lines.size()) return;
  page.Claim(h);
  size_t t = h + 1;
  while (t < lines.size() && Trim(text, lines[t].range).empty()) ++t;
  if (t >= lines.size() || page.LineTooLong(t)) return;
  Range title = Trim(text, lines[t].range);
  page.title = page.Str(title);
  page.SetSubject(page.title, "chip", title.begin);
  page.Claim(t);
  page.AddSection(lines[t].range.begin, page.title);
  if (page.subject().empty()) return;

  std::vector<std::pair<size_t, Section>> headings;
  for (size_t i = t + 1; i < lines.size(); ++i) {
    if (page.LineTooLong(i)) continue;
    Range r = Trim(text, lines[i].range);
    if (auto s = HeadingAt(page.View(r))) {
      headings.emplace_back(i, *s);
      page.AddSection(r.begin, page.Str(r));
      page.Claim(i);
    }
  }
  FitContext fit;
  // The fit counts in the FAQ are checked against the table, wherever it is.
  for (size_t k = 0; k < headings.size(); ++k) {
    if (headings[k].second != Section::kFits) continue;
    size_t start = headings[k].first + 1;
    size_t end = k + 1 < headings.size() ? headings[k + 1].first : lines.size();
    Range heading = Trim(text, lines[headings[k].first].range);
    fit.memory = ReadQuantity(page, Range{heading.begin + 13, heading.end}, "bytes");
    for (size_t i = start; i < end; ++i) {
      std::string_view v = page.View(Trim(text, lines[i].range));
      if (v.substr(0, 5) == "Math:") {
        ReadMath(page, Trim(text, lines[i].range), fit);
        page.Claim(i);
      }
    }
    for (size_t i = start; i < end; ++i) {
      if (std::optional<Table> table = ParseTable(page, i)) {
        ReadFitTable(page, *table, fit);
        page.ClaimLines(table->first_line, table->end_line);
        i = table->end_line - 1;
      }
    }
    // The line that introduces the table.
    if (start < end) page.Claim(start);
  }

  for (size_t k = 0; k < headings.size(); ++k) {
    size_t start = headings[k].first + 1;
    size_t end = k + 1 < headings.size() ? headings[k + 1].first : lines.size();
    Emit emit;
    switch (headings[k].second) {
      case Section::kEfficiency:
        emit.rule = "chip-catalog-efficiency";
        ReadPairs(page, start, end, emit);
        break;
      case Section::kKeyFacts:
        emit.rule = "chip-catalog-key-facts";
        ReadPairs(page, start, end, emit);
        break;
      case Section::kFoundry:
        emit.rule = "chip-catalog-foundry";
        ReadPairs(page, start, end, emit);
        break;
      case Section::kSpecs: {
        emit.rule = "chip-catalog-spec-list";
        size_t pairs_from = start;
        if (start < end && !Bullet(page, start)) {
          emit.attribution = FirstSentence(page, Trim(text, lines[start].range));
          page.Claim(start);
          pairs_from = start + 1;
        }
        ReadPairs(page, pairs_from, end, emit);
        size_t pairs = 0;
        for (size_t i = pairs_from; i < end; ++i) {
          std::string_view v = page.View(Trim(text, lines[i].range));
          if (v.substr(0, 7) == "Source:") page.Claim(i);
          if (Bullet(page, i)) ++pairs;
        }
        pairs /= 2;
        // "Specifications (8 fields, ...)": the page says how many fields it lists.
        Range heading = Trim(text, lines[headings[k].first].range);
        std::string_view hv = page.View(heading);
        size_t open = hv.find('(');
        if (open != std::string_view::npos) {
          if (auto n = NumberAt(text, heading.begin + open + 1, heading.end);
              n && static_cast<size_t>(n->value) != pairs) {
            page.Warn(heading.begin, "heading announces " + page.Str(n->range) + " fields, the list has " +
                                         std::to_string(pairs));
          }
        }
        break;
      }
      case Section::kQuestions:
        ReadQuestions(page, start, end, fit);
        break;
      case Section::kRacks:
        for (size_t i = start; i < end; ++i) {
          if (auto item = Bullet(page, i)) {
            ReadRack(page, *item);
            page.Claim(i);
          }
        }
        break;
      case Section::kBenchmarks:
        emit.rule = "chip-catalog-benchmarks";
        for (size_t i = start; i < end; ++i) {
          if (std::optional<Table> table = ParseTable(page, i)) {
            ReadTable(page, *table, emit);
            page.ClaimLines(table->first_line, table->end_line);
            i = table->end_line - 1;
          }
        }
        break;
      case Section::kDataCenters:
        ReadDataCenters(page, start, end);
        break;
      case Section::kSources:
        for (size_t i = start; i < end; ++i) {
          if (Bullet(page, i)) page.Claim(i);  // links to the sources, not claims
        }
        break;
      case Section::kFits:
      case Section::kMarket:
      case Section::kOther:
        break;
    }
  }
}

}  // namespace chipkg::extract_internal
