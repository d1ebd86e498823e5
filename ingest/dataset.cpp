#include "ingest/dataset.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "ingest/csv.h"
#include "ingest/text_util.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

using ingest_internal::CollapseSpaces;
using ingest_internal::Trim;

constexpr size_t kContextBytes = 32;
constexpr const char* kDefaultKind = "chip";

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A byte range of the file: what a claim points at.
struct Span {
  size_t begin = 0;
  size_t end = 0;
};

// Where a role column sits, and the columns that make claims.
struct ColumnPlan {
  const ColumnDef* def = nullptr;
  int index = -1;
  const PredicateDef* predicate = nullptr;  // value columns
  double factor = 1;                        // quantity columns: canonical = cell * factor
  int below = -1;                           // ColumnDef::below's column
  int note_in = -1;                         // ColumnDef::note_in's column
};

struct Plan {
  int name = -1, kind = -1, citation = -1, price_citation = -1, as_of = -1, note = -1;
  std::string column_sources;  // the note column's ColumnDef::column_sources
  std::vector<ColumnPlan> values;
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A note's "<phrase> <column>: <url>" phrases (ColumnDef::column_sources),
// as (column in lower case, url).
std::vector<std::pair<std::string, std::string>> ColumnSources(const std::string& note, const std::string& phrase) {
  std::vector<std::pair<std::string, std::string>> out;
  if (phrase.empty()) return out;
  const std::string lower = Lower(note), wanted = Lower(phrase) + " ";
  for (size_t at = lower.find(wanted); at != std::string::npos; at = lower.find(wanted, at + 1)) {
    // A phrase, not the end of a word ("open-source for").
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(lower[at - 1])) || lower[at - 1] == '-')) continue;
    const size_t begin = at + wanted.size();
    const size_t colon = lower.find(':', begin);
    if (colon == std::string::npos || colon - begin > 60) continue;
    std::string column = Trim(lower.substr(begin, colon - begin));
    // "release announcement (source for release date): https://...".
    if (!column.empty() && column.back() == ')' && at > 0 && lower[at - 1] == '(') {
      column = Trim(column.substr(0, column.size() - 1));
    }
    if (column.empty() || column.find('\n') != std::string::npos) continue;
    size_t url = colon + 1;
    while (url < note.size() && (note[url] == ' ' || note[url] == '\t')) ++url;
    size_t end = url;
    while (end < note.size() && !std::isspace(static_cast<unsigned char>(note[end]))) ++end;
    std::string link = note.substr(url, end - url);
    // The sentence's punctuation is not the link's, nor is a bracket that
    // closes one the link did not open: "(see https://x.example/a)", but
    // https://en.wikipedia.org/wiki/Tensor_Processing_Unit_(TPU) keeps its own.
    auto opened_in_link = [&link](char open, char close) {
      return std::count(link.begin(), link.end(), close) <= std::count(link.begin(), link.end(), open);
    };
    while (!link.empty()) {
      const char last = link.back();
      const bool sentence = last == ')'   ? !opened_in_link('(', ')')
                            : last == ']' ? !opened_in_link('[', ']')
                                          : std::string_view(".,;:'\"").find(last) != std::string_view::npos;
      if (!sentence) break;
      link.pop_back();
    }
    if (link.rfind("http://", 0) != 0 && link.rfind("https://", 0) != 0) continue;
    out.emplace_back(column, link);
  }
  return out;
}

// Whether a derived column's formula ("Max performance / TDP (W)") reads the
// column a note names ("tdp"): the name as a word of it.
bool FormulaNames(const std::string& formula, const std::string& column) {
  const std::string f = Lower(formula);
  for (size_t at = f.find(column); at != std::string::npos; at = f.find(column, at + 1)) {
    const size_t end = at + column.size();
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(f[at - 1]));
    const bool ends = end == f.size() || !std::isalnum(static_cast<unsigned char>(f[end]));
    if (starts && ends) return true;
  }
  return false;
}

// A header as a note names its column: without its unit in parentheses, in
// lower case ("TDP (W)" is "tdp"; "memory" names "Memory (bytes)", not
// "Memory bandwidth (byte/s)").
std::string HeaderName(const std::string& header) {
  std::string h = Lower(header);
  if (!h.empty() && h.back() == ')') {
    if (const size_t open = h.rfind('('); open != std::string::npos) h = Trim(h.substr(0, open));
  }
  return h;
}

bool NamesHeader(const std::string& column, const std::string& header) { return HeaderName(header) == column; }

std::string Where(const ColumnDef& def) { return def.file + ":" + std::to_string(def.line); }

// The unit is looked up within the predicate's dimension, since one spelling
// may name units of several ("B": bytes or billions of parameters).
Result<double> UnitFactor(const Schema& schema, const ColumnDef& def, const std::string& dimension) {
  if (def.unit.empty()) {
    const DimensionDef* dim = schema.FindDimension(dimension);
    if (dim != nullptr && dim->canonical_unit == "1") return 1.0;  // plain counts need no unit
  }
  for (const UnitDef& u : schema.units()) {
    if (u.spelling == def.unit && u.dimension == dimension) return u.factor;
  }
  return Status::InvalidArgument(Where(def) + ": column \"" + def.header + "\" needs a unit= of dimension " +
                                 dimension + " for " + def.predicate + " (got '" + def.unit + "')");
}

Result<Plan> MakePlan(const std::vector<const ColumnDef*>& defs, const CsvTable& table, const Schema& schema,
                      const std::string& dataset) {
  Plan plan;
  std::map<std::string, int*> roles = {{"name", &plan.name},         {"kind", &plan.kind},
                                       {"citation", &plan.citation}, {"price_citation", &plan.price_citation},
                                       {"as_of", &plan.as_of},       {"note", &plan.note}};
  for (const ColumnDef* def : defs) {
    int index = table.ColumnIndex(def->header);
    if (index < 0) {
      return Status::InvalidArgument(Where(*def) + ": column \"" + def->header + "\" of dataset " + dataset +
                                     " is not a header of the file");
    }
    // Which of two columns of one name holds the figure would be a guess
    // (the second was read by no one, without a word). One scan per mapped
    // column: comparing every header with every other took 83 s on a file
    // with 40,000 unmapped columns.
    if (int again = table.ColumnIndex(def->header, static_cast<size_t>(index) + 1); again >= 0) {
      return Status::InvalidArgument("the file's header has column \"" + def->header + "\" twice (columns " +
                                     std::to_string(index + 1) + " and " + std::to_string(again + 1) +
                                     "): which one dataset " + dataset + " reads would be a guess");
    }
    if (def->role != "value") {
      auto role = roles.find(def->role);
      if (role == roles.end()) {
        return Status::InvalidArgument(Where(*def) + ": unknown column role '" + def->role + "'");
      }
      if (*role->second >= 0) {
        return Status::InvalidArgument(Where(*def) + ": a second column with role " + def->role + " in dataset " +
                                       dataset);
      }
      *role->second = index;
      if (def->role == "note") plan.column_sources = def->column_sources;
      continue;
    }
    ColumnPlan column;
    column.def = def;
    column.index = index;
    column.predicate = schema.FindPredicate(def->predicate);
    if (column.predicate == nullptr) {
      return Status::InvalidArgument(Where(*def) + ": column \"" + def->header + "\" maps to unknown predicate '" +
                                     def->predicate + "'");
    }
    if (column.predicate->type == ValueKind::kQuantity) {
      Result<double> factor = UnitFactor(schema, *def, column.predicate->dimension);
      if (!factor.ok()) return factor.status();
      column.factor = *factor;
    }
    if (!def->below.empty()) {
      column.below = table.ColumnIndex(def->below);
      if (column.below < 0) {
        return Status::InvalidArgument(Where(*def) + ": column \"" + def->header + "\" is compared with \"" +
                                       def->below + "\", which is not a header of the file");
      }
      if (column.predicate->type != ValueKind::kQuantity) {
        return Status::InvalidArgument(Where(*def) + ": column \"" + def->header + "\": below= and not_below= "
                                       "compare figures, and " + def->predicate + " holds none");
      }
    }
    if (!def->note_in.empty()) {
      column.note_in = table.ColumnIndex(def->note_in);
      if (column.note_in < 0) {
        return Status::InvalidArgument(Where(*def) + ": column \"" + def->header + "\" picks rows by their \"" +
                                       def->note_in + "\" cell, which is not a header of the file");
      }
    }
    plan.values.push_back(column);
  }
  for (const ColumnPlan& column : plan.values) {
    if (!column.def->note_patterns.empty() && column.note_in < 0 && plan.note < 0) {
      return Status::InvalidArgument(Where(*column.def) + ": column \"" + column.def->header +
                                     "\" picks rows by their note, and the dataset has no role=note column");
    }
  }
  if (plan.name < 0) {
    return Status::InvalidArgument("dataset " + dataset + " has no column with role=name in the schema");
  }
  return plan;
}

// A plain number as a spreadsheet writes it: "671000000000000.0", "1.5e+16".
std::optional<double> ParseNumber(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (char c : s) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' ||
          c == 'E')) {
      return std::nullopt;  // strtod would also take "inf", "nan" and hex
    }
  }
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "2025-12-05 21:21:23+00:00", "2025-12-05", "2025-12", "2025".
std::optional<Date> ParseCellDate(const std::string& s) {
  if (auto d = Date::Parse(s)) return d;
  if (s.size() > 10 && (s[10] == ' ' || s[10] == 'T')) return Date::Parse(s.substr(0, 10));
  return std::nullopt;
}

std::optional<bool> ParseBool(const std::string& s) {
  std::string l;
  for (char c : s) l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (l == "yes" || l == "true" || l == "1" || l == "y") return true;
  if (l == "no" || l == "false" || l == "0" || l == "n") return false;
  return std::nullopt;
}

// URLs of a citation cell, and the words around them.
struct Citations {
  std::vector<std::string> urls;
  std::string remark;
};

Citations SplitCitations(const std::string& cell) {
  Citations out;
  std::string token;
  std::vector<std::string> words;
  // "host.tld/path" without a scheme (Epoch's RTX A4000 row): a link as
  // written, which a person can follow; before, the row cited nothing.
  auto bare_host_path = [](const std::string& lower) {
    const size_t slash = lower.find('/');
    if (slash == std::string::npos || slash == 0) return false;
    const std::string_view host(lower.data(), slash);
    const size_t dot = host.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || host.size() - dot < 3) return false;
    return std::all_of(host.begin(), host.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    });
  };
  auto flush = [&] {
    if (token.empty()) return;
    // A link in parentheses, as prose gives its source: "(https://...pdf)".
    std::string link = token;
    if (link.size() > 1 && link.front() == '(') {
      link.erase(0, 1);
      while (!link.empty() && (link.back() == ')' || link.back() == ',' || link.back() == '.')) link.pop_back();
    }
    std::string lower;
    for (char c : link) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (lower.rfind("http://", 0) == 0 || lower.rfind("https://", 0) == 0 || lower.rfind("www.", 0) == 0 ||
        bare_host_path(lower)) {
      while (!link.empty() && (link.back() == ',' || link.back() == '.' || link.back() == ';')) link.pop_back();
      if (std::find(out.urls.begin(), out.urls.end(), link) == out.urls.end()) out.urls.push_back(link);
    } else {
      words.push_back(token);
    }
    token.clear();
  };
  for (char c : cell) {
    if (IsSpace(c) || c == ';') {
      flush();
    } else {
      token.push_back(c);
    }
  }
  flush();
  for (size_t i = 0; i < words.size(); ++i) out.remark += (i ? " " : "") + words[i];
  return out;
}

// Splits the raw bytes of an entity cell at ',' and ';', trimming each item;
// spans stay in file coordinates.
std::vector<Span> SplitList(const std::string& text, Span cell) {
  std::vector<Span> items;
  size_t start = cell.begin;
  for (size_t i = cell.begin; i <= cell.end; ++i) {
    if (i == cell.end || text[i] == ',' || text[i] == ';') {
      size_t b = start, e = i;
      while (b < e && IsSpace(text[b])) ++b;
      while (e > b && IsSpace(text[e - 1])) --e;
      if (e > b) items.push_back({b, e});
      start = i + 1;
    }
  }
  return items;
}

// "TSMC (all chips TSMC makes →)" -> "TSMC": a remark after the name.
std::string DropTrailingRemark(const std::string& name) {
  std::string s = Trim(name);
  if (s.empty() || s.back() != ')') return s;
  size_t open = s.rfind('(');
  if (open == std::string::npos || open == 0) return s;
  std::string head = Trim(s.substr(0, open));
  return head.empty() ? s : head;
}

std::string Unescape(const std::string& raw, bool quoted) {
  if (!quoted) return raw;
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    out.push_back(raw[i]);
    if (raw[i] == '"' && i + 1 < raw.size() && raw[i + 1] == '"') ++i;
  }
  return out;
}

bool IsPriceDimension(const std::string& dimension) { return dimension.rfind("usd", 0) == 0; }

// `*` stands for any run of characters; letters match either case.
bool MatchesNamePattern(std::string_view name, std::string_view pattern) {
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  // Greedy with one point to come back to: the last `*` seen.
  size_t n = 0, p = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && same(pattern[p], name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

class RowReader {
 public:
  RowReader(const std::string& text, const std::string& dataset, const std::string& document_id,
            const Schema& schema, EntityResolver& resolver, DatasetExtraction& out, size_t max_facts)
      : text_(text),
        dataset_(dataset),
        document_id_(document_id),
        schema_(schema),
        resolver_(resolver),
        out_(out),
        max_facts_(max_facts) {}

  Status Read(const Plan& plan, const CsvTable& table) {
    const std::string rule = Schema::DatasetRule(dataset_);
    // Declare every row name distinct before resolving any, so the order of
    // the rows cannot decide which of two look-alikes absorbs the other.
    std::map<std::string, std::vector<std::string>> names_by_kind;
    for (const CsvRecord& record : table.records) {
      std::string name = Trim(record.fields[plan.name].value);
      if (!name.empty()) names_by_kind[KindOf(plan, record, nullptr)].push_back(name);
    }
    for (const auto& [kind, names] : names_by_kind) {
      CHIPKG_RETURN_IF_ERROR(resolver_.DeclareDistinct(kind, names).WithContext("dataset " + dataset_));
    }

    std::map<EntityId, int64_t> first_row_of;
    for (size_t i = 0; i < table.records.size(); ++i) {
      const CsvRecord& record = table.records[i];
      const int64_t row = static_cast<int64_t>(i) + 1;
      const std::string where = document_id_ + " row " + std::to_string(row) + " (line " +
                                std::to_string(record.line) + ")";
      DatasetRow summary;
      summary.row = row;
      summary.line = record.line;
      summary.name = Trim(record.fields[plan.name].value);
      if (summary.name.empty()) {
        out_.warnings.push_back(where + ": no name; the row makes no claims");
        out_.rows.push_back(summary);
        continue;
      }
      const std::string kind = KindOf(plan, record, &where);
      Result<Resolution> subject = resolver_.Resolve(summary.name, kind);
      if (!subject.ok()) return subject.status().WithContext(where);
      summary.resolution = *subject;
      if (auto [it, fresh] = first_row_of.emplace(subject->id, row); !fresh) {
        out_.warnings.push_back(where + ": \"" + summary.name + "\" is the same entity (" + subject->id +
                                ") as row " + std::to_string(it->second));
      }

      RowContext ctx;
      ctx.row = row;
      ctx.subject = subject->id;
      ctx.section = summary.name;
      ctx.rule = rule;
      if (plan.citation >= 0) {
        // The cell's words beside its links are the row's caveats ("different
        // sources report 376 vs 220 vs 320 TFLOPS"): kept as the claims'
        // attribution, as the price's are for the price; they were dropped.
        Citations cited = SplitCitations(record.fields[plan.citation].value);
        ctx.citations = std::move(cited.urls);
        ctx.citation_remark = std::move(cited.remark);
      }
      if (plan.price_citation >= 0) {
        Citations price = SplitCitations(record.fields[plan.price_citation].value);
        ctx.price_citations = price.urls;
        ctx.price_remark = price.remark;
      }
      if (plan.note >= 0) {
        ctx.note = record.fields[plan.note].value;
        ctx.column_sources = ColumnSources(ctx.note, plan.column_sources);
        NameHeaders(plan, kind, ctx.column_sources);
      }
      if (plan.as_of >= 0) {
        const CsvField& cell = record.fields[plan.as_of];
        std::string v = Trim(cell.value);
        if (!v.empty()) {
          ctx.as_of = ParseCellDate(v);
          if (!ctx.as_of) {
            Skip(row, table.header.fields[plan.as_of].value, v, "as-of date is not an ISO date");
          } else if (!out_.newest_as_of || ctx.as_of->FirstDay() > out_.newest_as_of->FirstDay()) {
            out_.newest_as_of = ctx.as_of;
          }
        }
      }

      size_t before = out_.facts.size();
      for (const ColumnPlan& column : plan.values) {
        if (!ClaimsForRow(column, record, summary.name, ctx.note)) continue;
        CHIPKG_RETURN_IF_ERROR(ReadCell(column, record.fields[column.index], ctx).WithContext(where));
      }
      summary.facts = out_.facts.size() - before;
      if (out_.facts.size() > max_facts_) {
        return TooManyFacts(document_id_, max_facts_,
                            "row " + std::to_string(row) + " of " + std::to_string(table.records.size()) + ", line " +
                                std::to_string(record.line));
      }
      out_.rows.push_back(summary);
    }
    return Status::OK();
  }

 private:
  struct RowContext {
    int64_t row = 0;
    EntityId subject;
    std::string section;
    std::string rule;
    std::vector<std::string> citations;
    std::string citation_remark;
    std::vector<std::string> price_citations;
    std::string price_remark;
    std::string note;
    std::vector<std::pair<std::string, std::string>> column_sources;  // ColumnSources of the note
    std::optional<Date> as_of;
  };

  // A note may name a column by the attribute's other word ("Source for
  // power:" is Huawei's Ascend 910A TDP): such a name becomes the header of
  // the one column that states that attribute ("tdp" for "TDP (W)"), so that
  // it and the figures computed from it are matched as a header is. A word
  // that names no column, or columns of two headers, is left as it is.
  void NameHeaders(const Plan& plan, const std::string& kind,
                   std::vector<std::pair<std::string, std::string>>& named) const {
    for (auto& [column, link] : named) {
      const bool a_header = std::any_of(plan.values.begin(), plan.values.end(), [&](const ColumnPlan& c) {
        return NamesHeader(column, c.def->header);
      });
      if (a_header) continue;
      std::string word = column;
      std::replace(word.begin(), word.end(), ' ', '_');
      std::vector<std::string> attributes = {word};
      for (const SynonymDef* synonym : schema_.FindSynonyms(word, kind)) attributes.push_back(synonym->target);
      std::string header;
      bool ambiguous = false;
      for (const ColumnPlan& c : plan.values) {
        if (!c.def->derived.empty() || c.predicate == nullptr ||
            std::find(attributes.begin(), attributes.end(), c.predicate->name) == attributes.end()) {
          continue;
        }
        std::string own = HeaderName(c.def->header);
        if (!header.empty() && header != own) ambiguous = true;
        header = std::move(own);
      }
      if (!header.empty() && !ambiguous) column = std::move(header);
    }
  }

  std::string KindOf(const Plan& plan, const CsvRecord& record, const std::string* where) {
    if (plan.kind < 0) return kDefaultKind;
    std::string kind = Trim(record.fields[plan.kind].value);
    if (kind.empty()) return kDefaultKind;
    const auto& kinds = schema_.entity_kinds();
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return kind;
    if (where != nullptr) {
      out_.warnings.push_back(*where + ": unknown entity kind '" + kind + "', read as " + kDefaultKind);
    }
    return kDefaultKind;
  }

  // Whether a column line states anything of this row (ColumnDef's
  // except_names, note_patterns and below).
  static bool ClaimsForRow(const ColumnPlan& column, const CsvRecord& record, const std::string& name,
                           const std::string& note) {
    const ColumnDef& def = *column.def;
    for (const std::string& pattern : def.except_names) {
      if (MatchesNamePattern(name, pattern)) return false;
    }
    if (!def.note_patterns.empty()) {
      const std::string& looked_at = column.note_in >= 0 ? record.fields[column.note_in].value : note;
      const bool matches =
          std::any_of(def.note_patterns.begin(), def.note_patterns.end(),
                      [&](const std::string& pattern) { return MatchesNamePattern(looked_at, pattern); });
      if (matches == def.negate_note) return false;
    }
    if (column.below < 0) return true;
    const std::optional<double> own = ParseNumber(Trim(record.fields[column.index].value));
    const std::optional<double> other = ParseNumber(Trim(record.fields[column.below].value));
    const bool below = own && other && *own < *other;
    return below != def.negate_below;
  }

  void Skip(int64_t row, const std::string& column, const std::string& text, const std::string& reason) {
    out_.skipped.push_back({row, column, text, reason});
  }

  Status ReadCell(const ColumnPlan& column, const CsvField& cell, const RowContext& ctx) {
    const std::string value = Trim(cell.value);
    if (value.empty()) return Status::OK();  // unknown: no claim
    const ColumnDef& def = *column.def;
    const PredicateDef& pred = *column.predicate;
    const Span whole{cell.offset, cell.offset + cell.length};

    switch (pred.type) {
      case ValueKind::kQuantity: {
        std::optional<double> number = ParseNumber(value);
        if (!number) return NotPublishedOrSkip(column, whole, value, ctx, "not a number");
        // Every dimension the schema has (bytes, watts, FLOP/s, dollars, counts,
        // ...) is a size: a figure below zero is a slip of the dataset's.
        if (*number < 0) {
          Skip(ctx.row, def.header, value, "below zero: no " + pred.name + " is");
          return Status::OK();
        }
        if (!def.derived.empty() && *number == 0) {
          Skip(ctx.row, def.header, value, "derived figure 0: the dataset's inputs were missing (not computed)");
          return Status::OK();
        }
        Emit(column, whole, Value::Quantity(*number * column.factor, pred.dimension, def.unit.empty() ? value : value + " " + def.unit),
             ctx);
        return Status::OK();
      }
      case ValueKind::kDate: {
        std::optional<Date> date = ParseCellDate(value);
        if (!date) return NotPublishedOrSkip(column, whole, value, ctx, "not an ISO date");
        if (!def.year_only.empty() && MatchesNamePattern(value, def.year_only)) {
          Date year;
          year.year = date->year;
          year.precision = DatePrecision::kYear;
          date = year;
        }
        Emit(column, whole, Value::OfDate(*date, value), ctx);
        return Status::OK();
      }
      case ValueKind::kBool: {
        std::optional<bool> b = ParseBool(value);
        if (!b) return NotPublishedOrSkip(column, whole, value, ctx, "not yes/no");
        Emit(column, whole, Value::Bool(*b, value), ctx);
        return Status::OK();
      }
      case ValueKind::kEntity: {
        if (schema_.SaysNotPublished(value)) {
          Emit(column, whole, Value::NotPublished(value), ctx);
          return Status::OK();
        }
        const std::string object_kind = pred.object_kind.empty() ? kDefaultKind : pred.object_kind;
        for (const Span& item : SplitList(text_, whole)) {
          std::string written = Unescape(text_.substr(item.begin, item.end - item.begin), cell.quoted);
          std::string name = DropTrailingRemark(written);
          Result<Resolution> object = resolver_.Resolve(name, object_kind);
          if (!object.ok()) return object.status().WithContext("column \"" + def.header + "\"");
          Emit(column, item, Value::Entity(object->id, written), ctx);
        }
        return Status::OK();
      }
      case ValueKind::kText:
        Emit(column, whole, Value::Text(CollapseSpaces(value)), ctx);
        return Status::OK();
      case ValueKind::kNotPublished:
        break;
    }
    return Status::InvalidArgument("column \"" + def.header + "\": predicate " + pred.name +
                                   " has a type a dataset cell cannot hold");
  }

  Status NotPublishedOrSkip(const ColumnPlan& column, Span span, const std::string& value, const RowContext& ctx,
                            const std::string& reason) {
    if (schema_.SaysNotPublished(value)) {
      Emit(column, span, Value::NotPublished(value), ctx);
    } else {
      Skip(ctx.row, column.def->header, value, reason);
    }
    return Status::OK();
  }

  void Emit(const ColumnPlan& column, Span span, Value value, const RowContext& ctx) {
    const ColumnDef& def = *column.def;
    Fact f;
    f.subject = ctx.subject;
    f.predicate = def.predicate;
    f.value = std::move(value);
    f.qualifiers = def.qualifiers;
    f.valid_as_of = ctx.as_of;
    Provenance& p = f.provenance;
    p.document_id = document_id_;
    p.section = ctx.section;
    p.span_begin = static_cast<uint32_t>(span.begin);
    p.span_end = static_cast<uint32_t>(span.end);
    p.excerpt = text_.substr(span.begin, span.end - span.begin);
    size_t pre = span.begin >= kContextBytes ? span.begin - kContextBytes : 0;
    while (pre < span.begin && IsUtf8Continuation(text_[pre])) ++pre;
    p.prefix = text_.substr(pre, span.begin - pre);
    size_t post = std::min(text_.size(), span.end + kContextBytes);
    while (post > span.end && post < text_.size() && IsUtf8Continuation(text_[post])) --post;
    p.suffix = text_.substr(span.end, post - span.end);
    p.row = ctx.row;
    p.column = def.header;
    bool price = column.predicate->type == ValueKind::kQuantity && IsPriceDimension(column.predicate->dimension);
    if (price && !ctx.price_citations.empty()) {
      p.citations = ctx.price_citations;
    } else {
      p.citations = ctx.citations;
    }
    // The sources the note names for this column replace the row's link;
    // for a figure the dataset derives, those of the columns its formula
    // reads are added to it (Trainium3's perf per watt is computed from
    // SemiAnalysis's TDP).
    std::vector<std::string> named_sources;
    for (const auto& [named, link] : ctx.column_sources) {
      const bool own = NamesHeader(named, def.header);
      if ((own || (!def.derived.empty() && FormulaNames(def.derived, named))) &&
          std::find(named_sources.begin(), named_sources.end(), link) == named_sources.end()) {
        named_sources.push_back(link);
      }
      if (own) p.citations.clear();
    }
    for (std::string& link : named_sources) {
      if (std::find(p.citations.begin(), p.citations.end(), link) == p.citations.end()) {
        p.citations.push_back(std::move(link));
      }
    }
    p.attribution = price ? ctx.price_remark : ctx.citation_remark;
    p.note = ctx.note;
    p.rule = ctx.rule;
    p.rule_version = "1";
    if (!def.derived.empty()) {
      p.derivation = Derivation::kStatedDerived;
      p.formula = def.derived;
    }
    out_.facts.push_back(std::move(f));
  }

  const std::string& text_;
  const std::string& dataset_;
  const std::string& document_id_;
  const Schema& schema_;
  EntityResolver& resolver_;
  DatasetExtraction& out_;
  const size_t max_facts_;
};

}  // namespace

Result<DatasetExtraction> ExtractDataset(const std::string& text, const std::string& dataset,
                                         const std::string& document_id, const Schema& schema,
                                         EntityResolver& resolver, size_t max_facts) {
  auto started = std::chrono::steady_clock::now();
  if (text.size() > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument(document_id + ": " + std::to_string(text.size()) +
                                   " bytes is more than a span can address (4 GiB)");
  }
  std::vector<const ColumnDef*> defs = schema.ColumnsOf(dataset);
  if (defs.empty()) {
    return Status::InvalidArgument("no `column` lines for dataset '" + dataset + "' in the schema (reading " +
                                   document_id + ")");
  }
  Result<CsvTable> table = ParseCsv(text, document_id);
  if (!table.ok()) return table.status();
  Result<Plan> plan = MakePlan(defs, *table, schema, dataset);
  if (!plan.ok()) return plan.status().WithContext(document_id);

  DatasetExtraction out;
  std::set<int> mapped;
  for (const ColumnDef* def : defs) mapped.insert(table->ColumnIndex(def->header));
  for (size_t i = 0; i < table->header.fields.size(); ++i) {
    if (!mapped.count(static_cast<int>(i))) out.unmapped_columns.push_back(table->header.fields[i].value);
  }
  RowReader reader(text, dataset, document_id, schema, resolver, out, max_facts);
  CHIPKG_RETURN_IF_ERROR(reader.Read(*plan, *table));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace chipkg
