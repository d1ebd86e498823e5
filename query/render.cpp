// Renderers of a QueryResult: aligned text for people, JSON and CSV for
// scripts, all three carrying the same values, supports and citations.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "query/query.h"
#include "query/citation_json.h"
#include "query/value_json.h"

namespace chipkg::query {
namespace {

using nlohmann::json;

// Where an answer's text goes: appended to a buffer that is written out each
// MiB, so that a large answer is never held whole as text (a 205,000-row
// answer is 57 MB of text, 123 MB of CSV, 258 MB of JSON; grown by doubling
// in one string, it was also copied and its fresh pages touched twice).
class Sink {
 public:
  explicit Sink(std::ostream& out) : out_(out) { buf_.reserve(kFlushAt + (kFlushAt >> 2)); }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { Flush(); }

  Sink& operator+=(std::string_view text) {
    buf_.append(text);
    MaybeFlush();
    return *this;
  }
  Sink& operator+=(char c) {
    buf_ += c;
    return *this;
  }
  void append(size_t n, char c) { buf_.append(n, c); }
  void Flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;
  void MaybeFlush() {
    if (buf_.size() >= kFlushAt) Flush();
  }
  std::ostream& out_;
  std::string buf_;
};

// Display width of UTF-8 text: one column per code point.
size_t Width(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}


// A citation made by hand (not by RunQuery) may name no document record.
const Document& DocumentOf(const Citation& c) {
  static const Document kNone;
  return c.document != nullptr ? *c.document : kNone;
}

// The cited version's own place and title where it keeps them (a document
// re-ingested from elsewhere), else the document's.
const std::string& UrlOf(const Citation& c, const DocumentVersion* version) {
  return version != nullptr && !version->url.empty() ? version->url : DocumentOf(c).url;
}
const std::string& TitleOf(const Citation& c, const DocumentVersion* version) {
  return version != nullptr && !version->title.empty() ? version->title : DocumentOf(c).title;
}

std::string QualifierText(const Qualifiers& q) {
  if (q.empty()) return "";
  std::string out = "{";
  for (const auto& [k, v] : q) out += (out.size() > 1 ? ", " : "") + k + "=" + v;
  return out + "}";
}

// "[1][2]" for the facts of a support, in order.
std::string Marks(const Support& s) {
  std::string out;
  std::vector<const Support*> stack = {&s};
  std::vector<std::string> seen;
  while (!stack.empty()) {
    const Support* x = stack.back();
    stack.pop_back();
    if (x->op == Support::Op::kFact) {
      const std::string m = x->citation > 0 ? "[" + std::to_string(x->citation) + "]" : "[#" + std::to_string(x->fact_id) + "]";
      if (std::find(seen.begin(), seen.end(), m) == seen.end()) {
        seen.push_back(m);
        out += m;
      }
    }
    for (auto it = x->args.rbegin(); it != x->args.rend(); ++it) stack.push_back(&*it);
  }
  return out;
}

// A value longer than this many characters is cut short in a text table
// (marked with an ellipsis and counted in a note): one long cell (Epoch's
// list of the ML models trained on a chip runs to 3,700 characters) made
// every line of its column that wide. JSON and CSV carry every value
// whole; so do `describe` and `trace`, which cut at the same length.
constexpr size_t kLongestValueShown = 80;

// `text` cut to kLongestValueShown characters (code points, as Width counts),
// the last one an ellipsis; true when it was cut.
bool ShortenForTable(std::string& text) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (++chars == kLongestValueShown) {
      // i starts the last character that fits; the rest, if any, goes.
      size_t end = i + 1;
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      if (end == text.size()) return false;
      text.resize(i);
      text += "\xE2\x80\xA6";
      return true;
    }
  }
  return false;
}

std::string ValueText(const ShownValue& v, size_t* shortened) {
  std::string t = v.text;
  if (ShortenForTable(t)) ++*shortened;
  if (!v.qualifiers().empty()) t.append(" ").append(QualifierText(v.qualifiers()));
  if (v.computed && !v.formula().empty()) t += " computed: " + v.formula();
  const std::string marks = Marks(v.support);
  if (!marks.empty()) t += " " + marks;
  return t;
}

// A cell's text in a table: its values joined by "; ", or, when that would
// be wider than a value may be (kLongestValueShown), a value a line ('\n'
// between them): a chip's perf per watt in five formats, each computed from
// two figures, made a column 400 characters wide, every row of it too. A
// conflict is marked after the cell on one line, after each disputed value
// on several (after the last line, it read as the last value's).
std::string CellText(const Cell& c, size_t* shortened) {
  constexpr std::string_view kConflictMark = "  (conflict)";
  const bool conflict = c.state == Cell::State::kConflict;
  if (c.values.size() == 1) {  // most cells: no vector of texts for them
    std::string out = ValueText(c.values[0], shortened);
    if (conflict) out += kConflictMark;
    return out;
  }
  std::vector<std::string> values;
  values.reserve(c.values.size());
  size_t width = conflict ? kConflictMark.size() : 0;
  for (const ShownValue& v : c.values) {
    values.push_back(ValueText(v, shortened));
    width += (values.size() > 1 ? 2 : 0) + Width(values.back());
  }
  std::string out;
  if (values.size() > 1 && width > kLongestValueShown) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += '\n';
      out += values[i];
      if (conflict && c.values[i].disputed) out += kConflictMark;
    }
    return out;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += "; ";
    out += values[i];
  }
  if (conflict) out += kConflictMark;
  return out;
}

// Display width of a cell, the widest of its lines.
size_t CellWidth(const std::string& text) {
  if (text.find('\n') == std::string::npos) return Width(text);
  size_t widest = 0, from = 0;
  for (;;) {
    const size_t end = text.find('\n', from);
    widest = std::max(widest, Width(std::string_view(text).substr(from, end == std::string::npos ? std::string::npos
                                                                                                   : end - from)));
    if (end == std::string::npos) return widest;
    from = end + 1;
  }
}

std::string EntityColumn(const QueryResult& r) {
  if (!r.group_by.empty()) return r.group_by;  // count ... by: a row per value of it
  if (!r.kind.empty()) return r.kind;
  return "entity";
}

std::string StatementName(StatementKind k) {
  switch (k) {
    case StatementKind::kFind: return "find";
    case StatementKind::kCount: return "count";
    case StatementKind::kLookup: return "lookup";
    case StatementKind::kFacts: return "facts";
    case StatementKind::kConflicts: return "conflicts";
  }
  return "find";
}

// A count by an attribute (`count chip by designer`) has a row per group.
bool Grouped(const QueryResult& r) { return r.count && !r.group_by.empty(); }

void RenderText(const QueryResult& r, Sink& out) {
  if (r.count && !Grouped(r)) {
    out += "count: " + std::to_string(*r.count) + "\n";
  } else {
    std::vector<std::string> header = {EntityColumn(r)};
    for (const std::string& c : r.columns) header.push_back(c);
    std::vector<std::vector<std::string>> table;
    size_t shortened = 0;
    for (const Row& row : r.rows) {
      std::vector<std::string> line = {row.name};
      for (const Cell& c : row.cells) line.push_back(CellText(c, &shortened));
      table.push_back(std::move(line));
    }
    std::vector<size_t> widths(header.size(), 0);
    for (size_t i = 0; i < header.size(); ++i) widths[i] = Width(header[i]);
    for (const auto& line : table) {
      for (size_t i = 0; i < line.size() && i < widths.size(); ++i) {
        widths[i] = std::max(widths[i], CellWidth(line[i]));
      }
    }
    // Appends in place: a large answer's text is hundreds of MB, and a
    // temporary per line and cell costs more than the text itself.
    auto emit_one = [&](const std::vector<std::string_view>& line) {
      size_t last = line.size();  // trailing empty cells leave no padding behind
      while (last > 1 && line[last - 1].empty()) --last;
      for (size_t i = 0; i < last; ++i) {
        if (i) out += "  ";
        out += line[i];
        if (i + 1 < last) {
          const size_t w = Width(line[i]);
          if (w < widths[i]) out.append(widths[i] - w, ' ');
        }
      }
      out += '\n';
    };
    std::vector<std::string_view> physical;
    auto emit = [&](const std::vector<std::string>& line) {
      bool wrapped = false;
      for (const std::string& cell : line) wrapped = wrapped || cell.find('\n') != std::string::npos;
      if (!wrapped) {
        for (size_t i = 0; i < line.size(); ++i) {
          if (i) out += "  ";
          out += line[i];
          if (i + 1 < line.size()) {
            const size_t w = Width(line[i]);
            if (w < widths[i]) out.append(widths[i] - w, ' ');
          }
        }
        out += '\n';
        return;
      }
      // A row of several lines: each cell's next line, or nothing, per line.
      std::vector<std::string_view> rest(line.begin(), line.end());
      for (bool more = true; more;) {
        more = false;
        physical.clear();
        for (std::string_view& cell : rest) {
          const size_t end = cell.find('\n');
          physical.push_back(cell.substr(0, end));
          cell = end == std::string_view::npos ? std::string_view() : cell.substr(end + 1);
          more = more || !cell.empty();
        }
        emit_one(physical);
      }
    };
    emit(header);
    std::vector<std::string> rule;
    for (size_t w : widths) rule.push_back(std::string(w, '-'));
    emit(rule);
    for (const auto& line : table) emit(line);

    // Why each row is there, and the conflicts it shows.
    std::string why;
    for (size_t i = 0; i < r.rows.size() && i < r.cited_rows; ++i) {
      const Row& row = r.rows[i];
      std::string block;
      for (const Reason& reason : row.reasons) {
        auto evidence = [](const Reason::Evidence& e) {
          const std::string marks = Marks(e.support);
          return marks.empty() ? e.text : e.text + " " + marks;
        };
        std::string line = "    " + reason.test + ":";
        for (size_t k = 0; k < reason.supporting.size(); ++k) line += (k ? "; " : " ") + evidence(reason.supporting[k]);
        // `not reported(foundry)` of a chip no source says anything about
        // has no claim to show for it: said, rather than a line that stops.
        if (reason.supporting.empty() && reason.contradicting.empty() && reason.undecided.empty()) {
          line += " no source says anything";
        }
        block += line + "\n";
        for (const auto& [label, list] : {std::pair{"contradicted by:", &reason.contradicting},
                                          std::pair{"left open by:", &reason.undecided}}) {
          if (list->empty()) continue;
          std::string more = std::string("      ") + label;
          for (size_t k = 0; k < list->size(); ++k) more += (k ? "; " : " ") + evidence((*list)[k]);
          block += more + "\n";
        }
      }
      for (const Cell& c : row.cells) {
        if (c.state == Cell::State::kConflict) block += "    conflict in " + c.column + ": " + c.conflict + "\n";
      }
      if (!row.support.IsTrue() && (!row.reasons.empty() || r.statement == StatementKind::kFind)) {
        block += "    support: " + row.support.ToString() + "\n";
      }
      if (!block.empty()) {
        why += "  ";
        why += row.name;
        why += '\n';
        why += block;
      }
    }
    if (!why.empty()) {
      out += "\nwhy:\n";
      out += why;
    }
    if (Grouped(r)) {
      out += "\ncount: " + std::to_string(*r.count) + " in " + std::to_string(r.groups) +
             (r.groups == 1 ? " group" : " groups");
      if (r.rows.size() < r.groups) out += " (" + std::to_string(r.rows.size()) + " shown)";
      out += "\n";
    } else {
      out += "\n" + std::to_string(r.rows.size()) + (r.rows.size() == 1 ? " row" : " rows");
      if (r.cited_rows < r.rows.size()) out += " (citations for the first " + std::to_string(r.cited_rows) + ")";
      out += "\n";
    }
    if (shortened > 0) {
      out += "note: " + std::to_string(shortened) + (shortened == 1 ? " value is" : " values are") + " cut at " +
             std::to_string(kLongestValueShown) + " characters here (\xE2\x80\xA6); --format json or csv shows " +
             (shortened == 1 ? "it" : "them") + " whole\n";
    }
  }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  if (!r.plan.empty()) out += "plan: " + r.plan + "\n";
  if (!r.citations.empty()) {
    out += "\nsources:\n";
    for (const Citation& c : r.citations) {
      out += '[';
      out += std::to_string(c.number);
      out += "] ";
      const Document& d = DocumentOf(c);
      const std::string& title = TitleOf(c, r.VersionOf(c));
      const std::string& url = UrlOf(c, r.VersionOf(c));
      out += title.empty() ? c.document_id : title;
      out += " \xE2\x80\x94 ";
      out += url.empty() ? c.document_id : url;
      if (!d.kind.empty() || !d.site.empty()) {
        out += " (";
        out += d.kind;
        if (!d.kind.empty() && !d.site.empty()) out += ", ";
        out += d.site;
        out += ')';
      }
      out += ", version ";
      out += std::to_string(c.version);
      if (const DocumentVersion* v = r.VersionOf(c); v != nullptr && !v->content_hash.empty()) {
        // The first 12 hex digits, as describe and trace show it: enough to tell versions apart.
        out += " (sha256 ";
        out += std::string_view(v->content_hash).substr(0, 12);
        out += ')';
      }
      out += ", fetched ";
      out += IsoTime(c.fetched_at);
      out += "\n    ";
      out += c.predicate;
      out += " = ";
      out += c.claim;
      if (c.valid_as_of) {
        out += ", as of ";
        out += c.valid_as_of->ToString();
      }
      out += '\n';
      if (!c.excerpt_read()) {
        out += "    (where in the document: not read)\n";
        continue;
      }
      const Passage& p = *c.passage;
      std::string where = p.section.empty() ? "" : "section \"" + p.section + "\"";
      if (p.row >= 0) where += (where.empty() ? "" : ", ") + std::string("row ") + std::to_string(p.row);
      if (!p.column.empty()) where += ", column \"" + p.column + "\"";
      out += "    ";
      if (!where.empty()) {
        out += where;
        out += ": ";
      }
      out += '"';
      out += p.excerpt;
      out += "\"\n";
      if (!p.attribution.empty()) out += "    attribution: " + p.attribution + "\n";
      if (!p.cited.empty() && !CitedAsAttributed(p.attribution, p.cited)) {
        std::string cited;
        for (const std::string& x : p.cited) cited += (cited.empty() ? "" : ", ") + x;
        out += "    the page cites: " + cited + "\n";
      }
      if (!p.formula.empty()) out += "    the page computed it: " + p.formula + "\n";
    }
  }
}

}  // namespace

bool CitedAsAttributed(const std::string& attribution, const std::vector<std::string>& cited) {
  if (cited.empty()) return false;
  std::string markers = cited.size() == 1 ? "citation " : "citations ";
  for (size_t i = 0; i < cited.size(); ++i) markers += (i ? ", " : "") + cited[i];
  return attribution == markers;
}

namespace {

json SupportJson(const Support& s) {
  switch (s.op) {
    case Support::Op::kTrue:
      return json{{"true", true}};
    case Support::Op::kFact: {
      json j{{"fact", s.fact_id}};
      if (s.citation > 0) j["cite"] = s.citation;
      return j;
    }
    case Support::Op::kAnd:
    case Support::Op::kOr: {
      json args = json::array();
      for (const Support& a : s.args) args.push_back(SupportJson(a));
      return json{{s.op == Support::Op::kAnd ? "and" : "or", args}};
    }
  }
  return json{};
}

// A count group's state, in the words of a cell's (CellStateName).
const char* GroupStateName(const ShownValue& group) {
  switch (group.kind) {
    case ShownValue::Kind::kNotPublished: return CellStateName(Cell::State::kNotPublished);
    case ShownValue::Kind::kUnknown: return CellStateName(Cell::State::kUnknown);
    default: return CellStateName(Cell::State::kReported);
  }
}

json CitationsOf(const Support& s) {
  json list = json::array();
  for (uint64_t id : s.Facts()) list.push_back(id);
  return list;
}

json RowJson(const Row& row) {
  // A group of figures or of "no source" is no entity: null, not "".
  json jr{{"entity", row.entity.empty() ? json(nullptr) : json(row.entity)}, {"name", row.name}};
  if (row.group) {
    json group{{"state", GroupStateName(*row.group)}};
    if (row.group->kind == ShownValue::Kind::kValue && row.group->content != nullptr) {
      group["value"] = ValueJson(row.group->value());
    }
    if (!row.group->qualifiers().empty()) group["qualifiers"] = row.group->qualifiers();
    jr["group"] = std::move(group);
  }
  json cells = json::object();
  for (const Cell& c : row.cells) {
    json values = json::array();
    for (const ShownValue& v : c.values) {
      json jv{{"text", v.text}};
      switch (v.kind) {
        case ShownValue::Kind::kValue: jv["value"] = ValueJson(v.value()); break;
        case ShownValue::Kind::kNotPublished: jv["value"] = json{{"kind", "not_published"}}; break;
        case ShownValue::Kind::kUnknown: jv["value"] = json{{"kind", "unknown"}}; break;
        case ShownValue::Kind::kText:
          // A test's "yes: 70 GB <= 96 GB": its answer as a value ({"bool":
          // true}), as CSV's number gives it, so that a script need not
          // read the English.
          if (v.content != nullptr) jv["value"] = ValueJson(v.value());
          break;
      }
      if (!v.qualifiers().empty()) jv["qualifiers"] = v.qualifiers();
      if (!v.support.IsTrue()) {
        jv["support"] = SupportJson(v.support);
        jv["facts"] = CitationsOf(v.support);
      }
      if (v.computed) {
        jv["computed"] = true;
        if (!v.formula().empty()) jv["formula"] = v.formula();
      }
      if (v.disputed) jv["disputed"] = true;
      values.push_back(std::move(jv));
    }
    json jc{{"state", CellStateName(c.state)}, {"values", values}};
    if (!c.conflict.empty()) jc["conflict"] = c.conflict;
    cells[c.column] = std::move(jc);
  }
  jr["cells"] = std::move(cells);
  jr["support"] = SupportJson(row.support);
  jr["support_text"] = row.support.ToString();
  json reasons = json::array();
  for (const Reason& reason : row.reasons) {
    json jr2{{"test", reason.test}};
    for (const auto& [name, list] : {std::pair<const char*, const std::vector<Reason::Evidence>*>{"supporting", &reason.supporting},
                                     {"contradicting", &reason.contradicting},
                                     {"undecided", &reason.undecided}}) {
      json ev = json::array();
      for (const Reason::Evidence& e : *list) ev.push_back(json{{"text", e.text}, {"support", SupportJson(e.support)}});
      jr2[name] = std::move(ev);
    }
    reasons.push_back(std::move(jr2));
  }
  if (!reasons.empty()) jr["reasons"] = std::move(reasons);
  return jr;
}

json AnswerCitationJson(const Citation& c, const DocumentVersion* version) {
  const Document& d = DocumentOf(c);
  CitationJsonFields f;
  f.number = c.number;
  f.fact_id = c.fact_id;
  f.document_id = &c.document_id;
  f.title = &TitleOf(c, version);
  f.url = &UrlOf(c, version);
  f.site = &d.site;
  f.kind = &d.kind;
  f.version = c.version;
  f.fetched_at = c.fetched_at;
  if (version != nullptr) {
    f.content_hash = &version->content_hash;
    f.document_as_of = version->as_of;
  }
  f.valid_as_of = c.valid_as_of;
  if (c.excerpt_read()) {
    const Passage& p = *c.passage;
    f.passage = CitationJsonFields::Passage{&p.section, &p.excerpt, &p.attribution, &p.cited,
                                            p.row,      &p.column,  &p.formula};
  }
  json j = CitationJson(f);
  j["subject"] = c.subject;
  j["predicate"] = c.predicate;
  j["claim"] = c.claim;
  return j;
}

// The answer's top-level object, written as nlohmann's dump(2) writes it
// (keys in sorted order, two spaces per level), but one row and one citation
// at a time: a document of the whole answer costs several times the answer's
// memory (a 205,000-row answer took 1.6 GB and 7 s to print) where each row's
// is small and freed at once. Every value still goes through nlohmann's
// serializer, so escaping, numbers and invalid UTF-8 are handled as before.
class TopLevelJsonWriter {
 public:
  explicit TopLevelJsonWriter(Sink& out) : out_(out) {}
  void Field(const char* key, const json& value) {
    Key(key);
    AppendNested(value);
  }
  template <typename Items, typename ToJson>
  void Array(const char* key, const Items& items, const ToJson& to_json) {
    Key(key);
    if (items.empty()) {
      out_ += "[]";
      return;
    }
    out_ += "[\n";
    bool first = true;
    for (const auto& item : items) {
      out_ += first ? "    " : ",\n    ";
      first = false;
      AppendNested(to_json(item), 2);
    }
    out_ += "\n  ]";
  }
  void End() { out_ += keys_ == 0 ? "{}\n" : "\n}\n"; }

 private:
  void Key(const char* key) {
    out_ += keys_++ == 0 ? "{\n  \"" : ",\n  \"";
    out_ += key;
    out_ += "\": ";
  }
  // `value` printed `depth` levels in: its lines after the first indented
  // by as many levels (strings never hold a raw line break).
  void AppendNested(const json& value, int depth = 1) {
    const std::string text = value.dump(2, ' ', false, json::error_handler_t::replace);
    const std::string_view view(text);
    size_t from = 0;
    for (size_t nl = view.find('\n'); nl != std::string_view::npos; nl = view.find('\n', from)) {
      out_ += view.substr(from, nl + 1 - from);
      out_.append(2 * static_cast<size_t>(depth), ' ');
      from = nl + 1;
    }
    out_ += view.substr(from);
  }

  Sink& out_;
  size_t keys_ = 0;
};

void RenderJson(const QueryResult& r, Sink& out) {
  TopLevelJsonWriter w(out);
  // nlohmann's key order: byte order of the keys.
  w.Array("citations", r.citations, [&r](const Citation& c) { return AnswerCitationJson(c, r.VersionOf(c)); });
  w.Field("cited_rows", r.cited_rows);
  w.Field("columns", r.columns);
  if (r.count) w.Field("count", *r.count);
  if (Grouped(r)) w.Field("group_by", r.group_by);
  if (Grouped(r)) w.Field("groups", r.groups);
  if (!r.kind.empty()) w.Field("kind", r.kind);
  w.Field("notes", r.notes);
  w.Field("plan", r.plan);
  w.Field("query", r.query);
  if (!r.count || Grouped(r)) w.Array("rows", r.rows, RowJson);
  w.Field("statement", StatementName(r.statement));
  w.End();
}

// A CSV field, quoted when it holds a comma, a quote or a line break.
void AppendCsvField(std::string& line, std::string_view field) {
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) {
    line += field;
    return;
  }
  line += '"';
  for (char c : field) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

// The shortest text that reads back as the same double: "96000000000", "0.596".
std::string ShortestNumber(double x) {
  char buf[64];
  // Whole numbers in full (spreadsheets read "9.6e+10" too, people less well).
  if (x == std::floor(x) && std::fabs(x) < 1e18) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

// A value's fields for analysis: a quantity in its dimension's canonical
// unit, 1 or 0 for yes/no, an ISO date with its precision, an entity's id.
struct CsvValue {
  std::string number, dimension, date, precision, entity;
  explicit CsvValue(const ShownValue& v) {
    if (v.content == nullptr) return;
    const Value& value = v.value();
    if (value.kind == ValueKind::kQuantity) {
      number = ShortestNumber(value.number);
      dimension = value.dimension;
    } else if (value.kind == ValueKind::kBool) {
      number = value.number != 0 ? "1" : "0";
    } else if (value.kind == ValueKind::kDate) {
      // "2023" is a year, not 2023-01-01: a spreadsheet reading the date alone would take it so.
      date = value.date.ToString();
      precision = value.date.precision == DatePrecision::kYear    ? "year"
                  : value.date.precision == DatePrecision::kMonth ? "month"
                                                                  : "day";
    } else if (value.kind == ValueKind::kEntity) {
      entity = value.text;  // the id: names change, and two organisations may share one
    }
  }
};

void RenderCsv(const QueryResult& r, Sink& out) {
  std::string line;
  size_t fields_in_line = 0;
  auto fields = [&](std::initializer_list<std::string_view> values) {
    for (std::string_view v : values) {
      if (fields_in_line++ > 0) line += ',';
      AppendCsvField(line, v);
    }
  };
  auto end_line = [&] {
    line += '\n';
    out += line;
    line.clear();
    fields_in_line = 0;
  };
  if (Grouped(r)) {
    // One line a group, ready for a spreadsheet: "designer,chips", then what
    // the group is for a script, as a find's lines give a value.
    fields({r.group_by, r.columns.front(), "state", "number", "dimension", "date", "date_precision", "value_entity",
            "qualifiers"});
    end_line();
    for (const Row& row : r.rows) {
      const ShownValue none;
      const ShownValue& group = row.group ? *row.group : none;
      const CsvValue value(group);
      fields({row.name, row.cells.front().values.front().text, row.group ? GroupStateName(group) : "", value.number,
              value.dimension, value.date, value.precision, value.entity, QualifierText(group.qualifiers())});
      end_line();
    }
    return;
  }
  if (r.count) {
    fields({"count"});
    end_line();
    fields({std::to_string(*r.count)});
    end_line();
    return;
  }
  // number/dimension/date: the value for analysis (a quantity in its
  // dimension's canonical unit, 1 or 0 for yes/no, an ISO date), beside the
  // text people read; the claim's valid_as_of and the dataset's row and column per citation.
  fields({"row", "entity", "name", "column", "state", "value", "number", "dimension", "date", "date_precision",
          "value_entity", "qualifiers",
          "computed", "formula", "support", "citation", "fact_id", "document", "title", "url", "section", "excerpt",
          "attribution", "fetched_at", "content_hash", "valid_as_of", "dataset_row", "dataset_column", "row_support"});
  end_line();
  std::unordered_map<uint64_t, const Citation*> by_fact;
  by_fact.reserve(r.citations.size());
  for (const Citation& c : r.citations) by_fact[c.fact_id] = &c;
  std::string base;  // the fields every line of one value starts with
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const Row& row = r.rows[i];
    const std::string row_support = row.support.ToString();
    auto emit_value = [&](const std::string& column, const char* state, const ShownValue& v) {
      const CsvValue value(v);
      fields({std::to_string(i + 1), row.entity, row.name, column, state, v.text, value.number, value.dimension,
              value.date, value.precision, value.entity, QualifierText(v.qualifiers()), v.computed ? "yes" : "", v.formula(),
              v.support.IsTrue() ? "" : v.support.ToString()});
      base = line;
      const size_t base_fields = fields_in_line;
      const std::vector<uint64_t> facts = v.support.Facts();
      if (facts.empty()) {
        fields({"", "", "", "", "", "", "", "", "", "", "", "", "", row_support});
        end_line();
        return;
      }
      for (size_t k = 0; k < facts.size(); ++k) {
        if (k > 0) {
          line = base;
          fields_in_line = base_fields;
        }
        const uint64_t id = facts[k];
        auto it = by_fact.find(id);
        if (it == by_fact.end()) {
          fields({"", std::to_string(id), "", "", "", "", "", "", "", "", "", "", ""});
        } else {
          const Citation& c = *it->second;
          static const Passage kUnread;
          const Passage& p = c.passage != nullptr ? *c.passage : kUnread;
          fields({std::to_string(c.number), std::to_string(id), c.document_id, TitleOf(c, r.VersionOf(c)), UrlOf(c, r.VersionOf(c)), p.section, p.excerpt,
                  p.attribution, IsoTimeCsv(c.fetched_at),
                  r.VersionOf(c) != nullptr ? std::string_view(r.VersionOf(c)->content_hash) : std::string_view(),
                  c.valid_as_of ? c.valid_as_of->ToString() : "",
                  p.row >= 0 ? std::to_string(p.row) : "", p.column});
        }
        fields({row_support});
        end_line();
      }
    };
    if (row.cells.empty()) {
      ShownValue none;
      none.kind = ShownValue::Kind::kText;
      emit_value("", "", none);
    }
    std::unordered_set<uint64_t> on_a_line;
    for (const Cell& c : row.cells) {
      for (const ShownValue& v : c.values) {
        emit_value(c.column, CellStateName(c.state), v);
        for (uint64_t id : v.support.Facts()) on_a_line.insert(id);
      }
    }
    // Why the row matched, where its claims are on no line above: a `show`
    // that leaves out the condition's attributes left their citations,
    // numbered in row_support, with no line naming their documents. A line a
    // claim, as the text's "why:" gives them: the test as its column,
    // supporting, contradicting or undecided as its state.
    for (const Reason& reason : row.reasons) {
      for (const auto& [state, list] : {std::pair<const char*, const std::vector<Reason::Evidence>*>{
                                            "supporting", &reason.supporting},
                                        {"contradicting", &reason.contradicting},
                                        {"undecided", &reason.undecided}}) {
        for (const Reason::Evidence& e : *list) {
          const std::vector<uint64_t> facts = e.support.Facts();
          if (facts.empty() || std::all_of(facts.begin(), facts.end(),
                                           [&](uint64_t id) { return on_a_line.count(id) > 0; })) {
            continue;
          }
          ShownValue why;
          why.kind = ShownValue::Kind::kText;
          why.text = e.text;
          why.support = e.support;
          emit_value(reason.test, state, why);
          for (uint64_t id : facts) on_a_line.insert(id);
        }
      }
    }
  }
}

}  // namespace

json ValueJson(const Value& v) {
  json j{{"kind", ValueKindName(v.kind)}};
  switch (v.kind) {
    case ValueKind::kQuantity:
      j["number"] = v.number;
      j["dimension"] = v.dimension;
      break;
    case ValueKind::kDate:
      j["date"] = v.date.ToString();
      break;
    case ValueKind::kEntity:
      j["entity"] = v.text;
      break;
    case ValueKind::kText:
      j["text"] = v.text;
      break;
    case ValueKind::kBool:
      j["bool"] = v.number != 0;
      break;
    case ValueKind::kNotPublished:
      break;
  }
  if (!v.original.empty()) j["original"] = v.original;
  return j;
}

Result<Format> ParseFormat(const std::string& name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  return Status::InvalidArgument("unknown output format '" + name + "': choose text, json or csv");
}

void Render(const QueryResult& result, Format format, std::ostream& out) {
  Sink sink(out);
  switch (format) {
    case Format::kText: RenderText(result, sink); return;
    case Format::kJson: RenderJson(result, sink); return;
    case Format::kCsv: RenderCsv(result, sink); return;
  }
  RenderText(result, sink);
}

std::string Render(const QueryResult& result, Format format) {
  std::ostringstream out;
  Render(result, format, out);
  return std::move(out).str();
}

}  // namespace chipkg::query
