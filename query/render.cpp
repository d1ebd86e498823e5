// Renderers of a QueryResult: aligned text for people, JSON and CSV for
// scripts, all three carrying the same values, supports and citations.

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "query/query.h"

namespace chipkg::query {
namespace {

using nlohmann::json;

// Display width of UTF-8 text: one column per code point.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Time(int64_t unix_seconds) {
  if (unix_seconds <= 0) return "unknown time";
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
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

std::string ValueText(const ShownValue& v) {
  std::string t = v.text;
  if (!v.qualifiers.empty()) t += " " + QualifierText(v.qualifiers);
  if (v.computed && !v.formula.empty()) t += " computed: " + v.formula;
  const std::string marks = Marks(v.support);
  if (!marks.empty()) t += " " + marks;
  return t;
}

std::string CellText(const Cell& c) {
  std::string out;
  for (size_t i = 0; i < c.values.size(); ++i) {
    if (i > 0) out += "; ";
    out += ValueText(c.values[i]);
  }
  if (c.state == Cell::State::kConflict) out += "  (conflict)";
  return out;
}

std::string EntityColumn(const QueryResult& r) {
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

std::string RenderText(const QueryResult& r) {
  std::string out;
  if (r.count) {
    out += "count: " + std::to_string(*r.count) + "\n";
  } else {
    std::vector<std::string> header = {EntityColumn(r)};
    for (const std::string& c : r.columns) header.push_back(c);
    std::vector<std::vector<std::string>> table;
    for (const Row& row : r.rows) {
      std::vector<std::string> line = {row.name};
      for (const Cell& c : row.cells) line.push_back(CellText(c));
      table.push_back(std::move(line));
    }
    std::vector<size_t> widths(header.size(), 0);
    for (size_t i = 0; i < header.size(); ++i) widths[i] = Width(header[i]);
    for (const auto& line : table) {
      for (size_t i = 0; i < line.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], Width(line[i]));
    }
    // Appends in place: a large answer's text is hundreds of MB, and a
    // temporary per line and cell costs more than the text itself.
    auto emit = [&](const std::vector<std::string>& line) {
      for (size_t i = 0; i < line.size(); ++i) {
        if (i) out += "  ";
        out += line[i];
        if (i + 1 < line.size()) {
          const size_t w = Width(line[i]);
          if (w < widths[i]) out.append(widths[i] - w, ' ');
        }
      }
      out += '\n';
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
        std::string line = "    " + reason.test + ":";
        for (size_t k = 0; k < reason.supporting.size(); ++k) {
          line += (k ? "; " : " ") + reason.supporting[k].text + " " + Marks(reason.supporting[k].support);
        }
        block += line + "\n";
        if (!reason.contradicting.empty()) {
          std::string con = "      contradicted by:";
          for (size_t k = 0; k < reason.contradicting.size(); ++k) {
            con += (k ? "; " : " ") + reason.contradicting[k].text + " " + Marks(reason.contradicting[k].support);
          }
          block += con + "\n";
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
    out += "\n" + std::to_string(r.rows.size()) + (r.rows.size() == 1 ? " row" : " rows");
    if (r.cited_rows < r.rows.size()) out += " (citations for the first " + std::to_string(r.cited_rows) + ")";
    out += "\n";
  }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  if (!r.plan.empty()) out += "plan: " + r.plan + "\n";
  if (!r.citations.empty()) {
    out += "\nsources:\n";
    for (const Citation& c : r.citations) {
      out += '[';
      out += std::to_string(c.number);
      out += "] ";
      out += c.title.empty() ? c.document_id : c.title;
      out += " \xE2\x80\x94 ";
      out += c.url.empty() ? c.document_id : c.url;
      if (!c.kind.empty() || !c.site.empty()) {
        out += " (";
        out += c.kind;
        if (!c.kind.empty() && !c.site.empty()) out += ", ";
        out += c.site;
        out += ')';
      }
      out += ", version ";
      out += std::to_string(c.version);
      out += ", fetched ";
      out += Time(c.fetched_at);
      out += "\n    ";
      out += c.predicate;
      out += " = ";
      out += c.claim;
      if (c.valid_as_of) {
        out += ", as of ";
        out += c.valid_as_of->ToString();
      }
      out += '\n';
      std::string where = c.section.empty() ? "" : "section \"" + c.section + "\"";
      if (c.row >= 0) where += (where.empty() ? "" : ", ") + std::string("row ") + std::to_string(c.row);
      if (!c.column.empty()) where += ", column \"" + c.column + "\"";
      out += "    ";
      if (!where.empty()) {
        out += where;
        out += ": ";
      }
      out += '"';
      out += c.excerpt;
      out += "\"\n";
      if (!c.attribution.empty()) out += "    attribution: " + c.attribution + "\n";
      if (!c.cited.empty()) {
        std::string cited;
        for (const std::string& x : c.cited) cited += (cited.empty() ? "" : ", ") + x;
        out += "    the page cites: " + cited + "\n";
      }
      if (!c.formula.empty()) out += "    the page computed it: " + c.formula + "\n";
    }
  }
  return out;
}

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

json CitationsOf(const Support& s) {
  json list = json::array();
  for (uint64_t id : s.Facts()) list.push_back(id);
  return list;
}

std::string RenderJson(const QueryResult& r) {
  json j;
  j["query"] = r.query;
  j["statement"] = StatementName(r.statement);
  if (!r.kind.empty()) j["kind"] = r.kind;
  j["columns"] = r.columns;
  if (r.count) j["count"] = *r.count;
  json rows = json::array();
  for (const Row& row : r.rows) {
    json jr{{"entity", row.entity}, {"name", row.name}};
    json cells = json::object();
    for (const Cell& c : row.cells) {
      json values = json::array();
      for (const ShownValue& v : c.values) {
        json jv{{"text", v.text}};
        switch (v.kind) {
          case ShownValue::Kind::kValue: jv["value"] = ValueJson(v.value); break;
          case ShownValue::Kind::kNotPublished: jv["value"] = json{{"kind", "not_published"}}; break;
          case ShownValue::Kind::kUnknown: jv["value"] = json{{"kind", "unknown"}}; break;
          case ShownValue::Kind::kText: break;
        }
        if (!v.qualifiers.empty()) jv["qualifiers"] = v.qualifiers;
        if (!v.support.IsTrue()) {
          jv["support"] = SupportJson(v.support);
          jv["facts"] = CitationsOf(v.support);
        }
        if (v.computed) {
          jv["computed"] = true;
          if (!v.formula.empty()) jv["formula"] = v.formula;
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
                                       {"contradicting", &reason.contradicting}}) {
        json ev = json::array();
        for (const Reason::Evidence& e : *list) ev.push_back(json{{"text", e.text}, {"support", SupportJson(e.support)}});
        jr2[name] = std::move(ev);
      }
      reasons.push_back(std::move(jr2));
    }
    if (!reasons.empty()) jr["reasons"] = std::move(reasons);
    rows.push_back(std::move(jr));
  }
  if (!r.count) j["rows"] = std::move(rows);
  json cites = json::array();
  for (const Citation& c : r.citations) {
    json jc{{"number", c.number},
            {"fact", c.fact_id},
            {"subject", c.subject},
            {"predicate", c.predicate},
            {"claim", c.claim},
            {"document", json{{"id", c.document_id},
                              {"title", c.title},
                              {"url", c.url},
                              {"site", c.site},
                              {"kind", c.kind},
                              {"version", c.version},
                              {"fetched_at", Time(c.fetched_at)}}},
            {"section", c.section},
            {"excerpt", c.excerpt},
            {"attribution", c.attribution}};
    if (c.valid_as_of) jc["as_of"] = c.valid_as_of->ToString();
    if (!c.cited.empty()) jc["cites"] = c.cited;
    if (c.row >= 0) jc["row"] = c.row;
    if (!c.column.empty()) jc["column"] = c.column;
    if (!c.formula.empty()) jc["formula"] = c.formula;
    cites.push_back(std::move(jc));
  }
  j["citations"] = std::move(cites);
  j["cited_rows"] = r.cited_rows;
  j["notes"] = r.notes;
  j["plan"] = r.plan;
  // Invalid UTF-8 from a source never makes the answer unprintable.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string RenderCsv(const QueryResult& r) {
  std::string out;
  auto line = [&out](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + CsvField(fields[i]);
    out += "\n";
  };
  if (r.count) {
    line({"count"});
    line({std::to_string(*r.count)});
    return out;
  }
  line({"row", "entity", "name", "column", "state", "value", "qualifiers", "computed", "formula", "support",
        "citation", "fact", "document", "title", "url", "section", "excerpt", "attribution", "fetched_at",
        "row_support"});
  std::map<uint64_t, const Citation*> by_fact;
  for (const Citation& c : r.citations) by_fact[c.fact_id] = &c;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const Row& row = r.rows[i];
    const std::string row_support = row.support.ToString();
    auto emit_value = [&](const std::string& column, const std::string& state, const ShownValue& v) {
      const std::vector<std::string> base = {std::to_string(i + 1), row.entity, row.name, column, state, v.text,
                                             QualifierText(v.qualifiers), v.computed ? "yes" : "", v.formula,
                                             v.support.IsTrue() ? "" : v.support.ToString()};
      const std::vector<uint64_t> facts = v.support.Facts();
      if (facts.empty()) {
        std::vector<std::string> f = base;
        for (int k = 0; k < 9; ++k) f.push_back("");
        f.push_back(row_support);
        line(f);
        return;
      }
      for (uint64_t id : facts) {
        std::vector<std::string> f = base;
        auto it = by_fact.find(id);
        if (it == by_fact.end()) {
          f.insert(f.end(), {"", std::to_string(id), "", "", "", "", "", "", ""});
        } else {
          const Citation& c = *it->second;
          f.insert(f.end(), {std::to_string(c.number), std::to_string(id), c.document_id, c.title, c.url, c.section,
                             c.excerpt, c.attribution, Time(c.fetched_at)});
        }
        f.push_back(row_support);
        line(f);
      }
    };
    if (row.cells.empty()) {
      ShownValue none;
      none.kind = ShownValue::Kind::kText;
      emit_value("", "", none);
    }
    for (const Cell& c : row.cells) {
      for (const ShownValue& v : c.values) emit_value(c.column, CellStateName(c.state), v);
    }
  }
  return out;
}

}  // namespace

Result<Format> ParseFormat(const std::string& name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  return Status::InvalidArgument("unknown output format '" + name + "': choose text, json or csv");
}

std::string Render(const QueryResult& result, Format format) {
  switch (format) {
    case Format::kText: return RenderText(result);
    case Format::kJson: return RenderJson(result);
    case Format::kCsv: return RenderCsv(result);
  }
  return RenderText(result);
}

}  // namespace chipkg::query
