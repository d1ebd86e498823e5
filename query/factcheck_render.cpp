// Rendering the fact-checker's reports: aligned text for people, JSON and CSV
// for scripts, all carrying the same provenance.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <tuple>

#include "query/factcheck.h"
#include "query/citation_json.h"
#include "query/factcheck_internal.h"
#include "query/result.h"
#include "query/value_json.h"

namespace chipkg::factcheck {

using internal::GivenAs;
using internal::OtherReadingText;
using internal::WorkingWithSources;
using query::CitationJsonFields;
using query::IsoTime;
using query::IsoTimeCsv;
using query::IsoTimeJson;
using nlohmann::json;

namespace {

// "press, chip-catalog.example", "press" or "chip-catalog.example".
std::string KindAndSite(const std::string& kind, const std::string& site) {
  if (kind.empty()) return site;
  return site.empty() ? kind : kind + ", " + site;
}

// ---- shared pieces ------------------------------------------------------------

std::string Refs(const std::vector<int>& numbers) {
  std::string out;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string.
  for (int n : numbers) out.append(out.empty() ? "[" : " [").append(std::to_string(n)).append("]");
  return out;
}

std::string OneLine(const std::string& s, size_t max = 0) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\xE2\x8F\x8E";  // ⏎: a line break in the source
    } else if (c == '\r' || c == '\t') {
      out += ' ';
    } else {
      out.push_back(c);
    }
  }
  if (max && out.size() > max) {
    out = out.substr(0, internal::Utf8Floor(out, max)) + "\xE2\x80\xA6";
  }
  return out;
}

// What a claim's source cites, each item whole (a URL cut short is no
// URL), up to about `max` bytes; the rest counted.
std::string CitedList(const std::vector<std::string>& cited, size_t max) {
  std::string out;
  for (size_t i = 0; i < cited.size(); ++i) {
    const std::string item = OneLine(cited[i], 400);
    if (!out.empty() && out.size() + 2 + item.size() > max) {
      out += " and " + std::to_string(cited.size() - i) + " more";
      break;
    }
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

std::string Pad(const std::string& s, size_t width) {
  // Width in characters, not bytes: count UTF-8 lead bytes.
  size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return chars >= width ? s + " " : s + std::string(width - chars, ' ');
}

std::string ShortHash(const std::string& h) { return h.size() > 12 ? h.substr(0, 12) : h; }

json QualifiersJson(const Qualifiers& q) {
  json j = json::object();
  for (const auto& [k, v] : q) j[k] = v;
  return j;
}

json TracedCitationJson(const Citation& c) {
  CitationJsonFields f;
  f.number = c.number;
  f.fact_id = c.fact_id;
  f.document_id = &c.document_id;
  f.title = &c.title;
  f.url = &c.url;
  f.site = &c.site;
  f.kind = &c.kind;
  f.version = c.version;
  f.fetched_at = c.fetched_at;
  f.content_hash = &c.content_hash;
  f.document_as_of = c.document_as_of;
  f.valid_as_of = c.valid_as_of;
  f.passage = CitationJsonFields::Passage{&c.section, &c.excerpt, &c.attribution, &c.cited,
                                          c.row,      &c.column,  &c.formula};
  json j = query::CitationJson(f);
  j["span"] = {c.span_begin, c.span_end};
  if (!c.note.empty()) j["note"] = c.note;
  j["rule"] = c.rule;
  j["rule_version"] = c.rule_version;
  j["derivation"] = c.derivation == Derivation::kStatedDerived ? "stated_derived" : "stated";
  return j;
}

json ClaimJson(const Claim& c) {
  json j;
  j["fact_id"] = c.fact_id;
  if (c.citation) j["citation"] = c.citation;
  j["value"] = query::ValueJson(c.value);
  j["display"] = c.display;
  if (!c.per_chip_display.empty()) j["per_chip"] = c.per_chip_display;
  j["qualifiers"] = QualifiersJson(c.qualifiers);
  if (c.valid_as_of) j["valid_as_of"] = c.valid_as_of->ToString();
  j["document_id"] = c.document_id;  // "document" is a citation's object with the id inside
  j["asserted_tx"] = c.asserted_tx;
  if (c.retracted_tx) j["retracted_tx"] = c.retracted_tx;
  return j;
}

json ComparisonJson(const Comparison& c) {
  json j;
  j["agree"] = c.agree;
  j["kind"] = DifferenceKindName(c.kind);
  if (c.kind == DifferenceKind::kQuantity) {
    j["relative"] = std::isfinite(c.relative) ? json(c.relative) : json(nullptr);
  }
  if (c.kind == DifferenceKind::kDate) {
    j["gap"] = c.gap;
    j["gap_unit"] = c.gap_unit;
  }
  j["size"] = c.size;
  return j;
}

json SummaryJson(const AttributeSummary& a) {
  json j;
  j["subject"] = a.subject;
  j["subject_name"] = a.subject_name;
  j["predicate"] = a.predicate;
  j["qualifiers"] = QualifiersJson(a.key);
  j["label"] = a.label;
  j["conflict"] = a.conflict();
  json groups = json::array();
  for (const auto& g : a.groups) {
    json claims = json::array();
    for (const auto& c : g.claims) claims.push_back(ClaimJson(c));
    groups.push_back({{"display", g.display}, {"documents", g.documents}, {"claims", claims}});
  }
  j["values"] = groups;
  json diffs = json::array();
  for (const auto& d : a.differences) {
    json x = ComparisonJson(d.comparison);
    x["a"] = d.a;
    x["b"] = d.b;
    // The two claims compared (a group's first may agree with the other group).
    x["a_claim"] = d.a_claim;
    x["b_claim"] = d.b_claim;
    x["a_value"] = a.groups[d.a].claims.at(d.a_claim).display;
    x["b_value"] = a.groups[d.b].claims.at(d.b_claim).display;
    diffs.push_back(x);
  }
  j["disagreements"] = diffs;
  json flags = json::array();
  for (const auto& f : a.flags) {
    json x = {{"value", f.group}, {"ratio", f.ratio}, {"message", f.message}};
    if (f.chips) {
      x["chips"] = *f.chips;
      x["where"] = f.where;
    }
    flags.push_back(x);
  }
  j["sanity"] = flags;
  return j;
}

json CitationsJson(const std::vector<Citation>& list) {
  json j = json::array();
  for (const auto& c : list) j.push_back(TracedCitationJson(c));
  return j;
}

// ---- CSV --------------------------------------------------------------------

std::string CsvField(const std::string& s) {
  bool quote = s.find_first_of(",\"\n\r") != std::string::npos;
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') {
      out += "\"\"";
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

class Csv {
 public:
  explicit Csv(std::vector<std::string> header) { Row(header); }
  void Row(const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) out_.append(i ? "," : "").append(CsvField(fields[i]));
    out_ += "\n";
  }
  std::string str() const { return out_; }

 private:
  std::string out_;
};

std::string Num(double v) {
  if (!std::isfinite(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

const Citation* Find(const std::vector<Citation>& list, int number) {
  if (number < 1 || static_cast<size_t>(number) > list.size()) return nullptr;
  return &list[number - 1];
}

// Columns every claim row of a CSV carries, so a script needs no footnotes.
const std::vector<std::string> kProvenanceHeader = {
    "document", "title",   "url",         "version", "content_hash", "fetched_at", "section", "span_begin",
    "span_end", "excerpt", "attribution", "cites",   "row",          "column",  "rule"};

std::vector<std::string> ProvenanceFields(const Citation* c) {
  if (!c) return std::vector<std::string>(kProvenanceHeader.size());
  std::string cites;
  for (const auto& x : c->cited) cites += (cites.empty() ? "" : " ") + x;
  return {c->document_id,
          c->title,
          c->url,
          std::to_string(c->version),
          c->content_hash,
          IsoTimeCsv(c->fetched_at),
          c->section,
          std::to_string(c->span_begin),
          std::to_string(c->span_end),
          c->excerpt,
          c->attribution,
          cites,
          c->row >= 0 ? std::to_string(c->row) : "",
          c->column,
          c->rule + (c->rule_version.empty() ? "" : " v" + c->rule_version)};
}

// More of a claim's provenance: the date it holds as of (which often
// explains two sources' disagreement), a dataset row's note, and the working
// of a figure the page computed itself. Each CSV's last columns, after
// everything it had before, so that a script reading columns by position
// keeps them.
const std::vector<std::string> kLaterProvenanceHeader = {"valid_as_of", "note", "formula"};

std::vector<std::string> LaterProvenanceFields(const Citation* c) {
  if (!c) return std::vector<std::string>(kLaterProvenanceHeader.size());
  return {c->valid_as_of ? c->valid_as_of->ToString() : "", c->note, c->formula};
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A claim row's provenance where it ends the row (all but trace's CSV).
const std::vector<std::string> kAllProvenanceHeader = Concat(kProvenanceHeader, kLaterProvenanceHeader);

std::vector<std::string> AllProvenanceFields(const Citation* c) {
  return Concat(ProvenanceFields(c), LaterProvenanceFields(c));
}

// ---- text ---------------------------------------------------------------------

void Footnotes(std::ostringstream& out, const std::vector<Citation>& list) {
  if (list.empty()) return;
  out << "\nSources\n";
  for (const auto& c : list) {
    const std::string ref = std::string("[").append(std::to_string(c.number)).append("]");
    out << "  " << Pad(ref, 5) << (c.title.empty() ? c.document_id : c.title);
    if (!c.url.empty()) out << " <" << c.url << ">";
    out << "\n";
    std::string indent(8, ' ');
    out << indent << "version " << c.version;
    if (!c.content_hash.empty()) out << " (sha256 " << ShortHash(c.content_hash) << ")";
    out << ", fetched " << IsoTime(c.fetched_at);
    // The claim's own date first: a dataset row can be weeks older than the
    // file that carries it, and `query` footnotes give the row's.
    if (c.valid_as_of) {
      out << ", as of " << c.valid_as_of->ToString();
      if (c.document_as_of && *c.document_as_of != *c.valid_as_of) {
        out << " (the document as of " << c.document_as_of->ToString() << ")";
      }
    } else if (c.document_as_of) {
      out << ", as of " << c.document_as_of->ToString();
    }
    out << "\n";
    out << indent;
    if (!c.section.empty()) out << "section \"" << OneLine(c.section, 60) << "\": ";
    out << "\"" << OneLine(c.excerpt, 160) << "\"\n";
    std::string extra;
    if (!c.attribution.empty()) extra += "attribution: " + OneLine(c.attribution, 100);
    if (!c.cited.empty() && !query::CitedAsAttributed(c.attribution, c.cited)) {
      extra += (extra.empty() ? "" : "; ") + std::string("cites ") + CitedList(c.cited, 200);
    }
    if (c.row >= 0)
      extra +=
          (extra.empty() ? "" : "; ") + ("row " + std::to_string(c.row) + ", column \"" + c.column + "\"");
    if (!extra.empty()) out << indent << extra << "\n";
    if (!c.note.empty()) out << indent << "note: " << OneLine(c.note, 200) << "\n";
  }
}

// "32 GB [1] [2]"; claims of one group written differently are listed each
// with their citations: "2022-10-10 [3], 2022-10 [5]".
// "1,300 TFLOPS" and "1300 TFLOPS": one figure, written with and without a
// thousands separator; listed apart, they read as two values of one group.
std::string WithoutDigitGrouping(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool grouping = text[i] == ',' && i > 0 && i + 1 < text.size() &&
                          std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                          std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!grouping) out.push_back(text[i]);
  }
  return out;
}

std::string GroupText(const ValueGroup& g) {
  std::vector<std::pair<std::string, std::vector<int>>> parts;
  for (const auto& c : g.claims) {
    std::string shown = c.display;
    if (!c.per_chip_display.empty()) shown += " (= " + c.per_chip_display + ")";
    if (c.retracted_tx) shown += " (retracted)";
    auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) {
      return WithoutDigitGrouping(p.first) == WithoutDigitGrouping(shown);
    });
    if (it == parts.end()) {
      parts.push_back({shown, {}});
      it = parts.end() - 1;
    }
    if (c.citation && std::find(it->second.begin(), it->second.end(), c.citation) == it->second.end()) {
      it->second.push_back(c.citation);
    }
  }
  std::string out;
  for (const auto& [shown, refs] : parts) {
    out.append(out.empty() ? "" : ", ").append(OneLine(shown, 80));
    if (!refs.empty()) out.append(" ").append(Refs(refs));
  }
  return out;
}

std::string DifferenceText(const AttributeSummary& a, const Difference& d) {
  const std::string& x = a.groups[d.a].claims.at(d.a_claim).display;
  const std::string& y = a.groups[d.b].claims.at(d.b_claim).display;
  std::string text = OneLine(x, 60) + " vs " + OneLine(y, 60);
  // The kind already says it for names and markers; sizes say how far apart.
  switch (d.comparison.kind) {
    case DifferenceKind::kQuantity:
    case DifferenceKind::kDate:
      return text + ": " + d.comparison.size;
    default:
      return text;
  }
}

std::string KindText(DifferenceKind kind) {
  std::string k = DifferenceKindName(kind);
  std::replace(k.begin(), k.end(), '_', ' ');
  return k;
}

void AttributeText(std::ostringstream& out, const AttributeSummary& a, size_t width,
                   const std::string& indent) {
  for (size_t i = 0; i < a.groups.size(); ++i) {
    out << indent << Pad(i == 0 ? a.label : "", width) << GroupText(a.groups[i]) << "\n";
  }
  for (const auto& d : a.differences) {
    out << indent << Pad("", width) << "! conflict (" << KindText(d.comparison.kind)
        << "): " << DifferenceText(a, d) << "\n";
  }
  for (const auto& f : a.flags) {
    out << indent << Pad("", width) << "! " << f.message << "\n";
  }
}

void TracedText(std::ostringstream& out, const TracedClaim& t, const std::string& indent) {
  const Citation& c = t.citation;
  const Claim& k = t.claim;
  std::string value = k.display;
  if (!k.per_chip_display.empty()) value += " (= " + k.per_chip_display + ")";
  out << indent << "[" << c.number << "] " << OneLine(value, 100);
  if (!k.qualifiers.empty()) out << "  {" << QualifiersToString(k.qualifiers) << "}";
  out << (t.retracted ? "  RETRACTED" : "") << "\n";
  std::string in = indent + "    ";
  auto line = [&](const char* label, const std::string& text) {
    if (!text.empty()) out << in << Pad(label, 12) << text << "\n";
  };
  line("document",
       (c.title.empty() ? c.document_id : c.title) + (c.url.empty() ? "" : " <" + c.url + ">") +
           (c.kind.empty() && c.site.empty() ? "" : " (" + KindAndSite(c.kind, c.site) + ")"));
  line("version", std::to_string(c.version) +
                      (c.content_hash.empty() ? "" : ", sha256 " + ShortHash(c.content_hash)) + ", fetched " +
                      IsoTime(c.fetched_at) +
                      (c.document_as_of ? ", as of " + c.document_as_of->ToString() : ""));
  line("section", OneLine(c.section, 100));
  line("span", "bytes " + std::to_string(c.span_begin) + "-" + std::to_string(c.span_end) +
                   (t.excerpt_verified ? ", excerpt matches the stored text" : ", " + t.text_problem));
  if (!t.at.empty() || !t.before.empty()) {
    line("context", "\xE2\x80\xA6" + OneLine(t.before) + "\xC2\xBB" + OneLine(t.at) + "\xC2\xAB" +
                        OneLine(t.after) + "\xE2\x80\xA6");
  } else {
    line("excerpt", "\"" + OneLine(c.excerpt, 200) + "\"");
  }
  line("attribution", OneLine(c.attribution, 120));
  if (!c.cited.empty() && !query::CitedAsAttributed(c.attribution, c.cited)) line("cites", CitedList(c.cited, 300));
  if (c.row >= 0) line("dataset", "row " + std::to_string(c.row) + ", column \"" + c.column + "\"");
  line("note", OneLine(c.note, 300));
  line("rule", c.rule + (c.rule_version.empty() ? "" : " v" + c.rule_version));
  if (c.derivation == Derivation::kStatedDerived) {
    line("derived", "computed by the page" + (c.formula.empty() ? "" : ": " + OneLine(c.formula, 120)));
  }
  if (k.valid_as_of) line("valid as of", k.valid_as_of->ToString());
  std::string asserted = "tx " + std::to_string(t.asserted.id);
  if (t.asserted.time_micros) asserted += " at " + IsoTime(t.asserted.time_micros / 1000000);
  if (!t.asserted.run_id.empty()) asserted += ", run " + t.asserted.run_id;
  line("asserted", asserted);
  if (t.retracted) {
    std::string r = "by tx " + std::to_string(t.retracted->id);
    if (t.retracted->time_micros) r += " at " + IsoTime(t.retracted->time_micros / 1000000);
    if (!t.retracted->run_id.empty()) r += ", run " + t.retracted->run_id;
    line("retracted", r);
  } else if (t.retracted_later != 0) {
    line("retracted", "not yet (the claim then stood; retracted later, by tx " + std::to_string(t.retracted_later) +
                          ": history shows when)");
  } else {
    line("retracted", "no (the claim stands)");
  }
  if (const auto& later = t.still_stated_by) {
    line("still in",
         "version " + std::to_string(later->version) +
             (later->content_hash.empty() ? "" : ", sha256 " + ShortHash(later->content_hash)) + ", fetched " +
             IsoTime(later->fetched_at) + ", the latest (the context above is version " +
             std::to_string(c.version) + "'s)");
  }
}

json TracedJson(const TracedClaim& t) {
  json j = ClaimJson(t.claim);
  j["source"] = TracedCitationJson(t.citation);
  j["context"] = {{"before", t.before}, {"at", t.at}, {"after", t.after}};
  j["excerpt_verified"] = t.excerpt_verified;
  if (!t.text_problem.empty()) j["text_problem"] = t.text_problem;
  j["asserted"] = {
      {"tx", t.asserted.id},
      {"time", IsoTimeJson(t.asserted.time_micros / 1000000)},
      {"time_micros", t.asserted.time_micros},
      {"run_id", t.asserted.run_id}};
  if (t.retracted) {
    j["retracted"] = {
        {"tx", t.retracted->id},
        {"time", IsoTimeJson(t.retracted->time_micros / 1000000)},
        {"time_micros", t.retracted->time_micros},
        {"run_id", t.retracted->run_id}};
  } else {
    j["retracted"] = nullptr;
  }
  if (t.retracted_later != 0) j["retracted_later_by_tx"] = t.retracted_later;
  if (const auto& later = t.still_stated_by) {
    j["still_stated_by"] = {{"version", later->version},
                            {"content_hash", later->content_hash},
                            {"fetched_at", IsoTimeJson(later->fetched_at)}};
  } else {
    j["still_stated_by"] = nullptr;
  }
  return j;
}

std::vector<std::string> TracedCsvRow(const std::string& role, const TracedClaim& t) {
  std::vector<std::string> row = {role,
                                  std::to_string(t.citation.number),
                                  t.claim.display,
                                  t.claim.per_chip_display,
                                  QualifiersToString(t.claim.qualifiers),
                                  t.excerpt_verified ? "yes" : "no",
                                  t.retracted ? std::to_string(t.retracted->id) : ""};
  row = Concat(row, ProvenanceFields(&t.citation));
  // After the provenance columns, so that a script reading them by position keeps its columns.
  row.push_back(t.retracted_later != 0 ? std::to_string(t.retracted_later) : "");
  row.push_back(t.still_stated_by ? std::to_string(t.still_stated_by->version) : "");
  row.push_back(t.still_stated_by ? t.still_stated_by->content_hash : "");
  return Concat(row, LaterProvenanceFields(&t.citation));
}

std::string Dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

}  // namespace

// ---- describe -------------------------------------------------------------------

std::string Render(const Profile& r, Format format) {
  if (format == Format::kJson) {
    json j;
    j["entity"] = {
        {"id", r.entity.id}, {"kind", r.entity.kind}, {"name", r.entity.name}, {"aliases", r.entity.aliases}};
    json attrs = json::array();
    for (const auto& a : r.attributes) attrs.push_back(SummaryJson(a));
    j["attributes"] = attrs;
    json refs = json::array();
    for (const auto& x : r.referenced_by) {
      refs.push_back({{"subject", x.subject},
                      {"subject_name", x.subject_name},
                      {"predicate", x.predicate},
                      {"citations", x.citations}});
    }
    j["referenced_by"] = refs;
    j["citations"] = CitationsJson(r.citations);
    return Dump(j);
  }
  if (format == Format::kCsv) {
    Csv csv(Concat({"entity", "attribute", "value", "per_chip", "citation", "conflict"}, kAllProvenanceHeader));
    for (const auto& a : r.attributes) {
      for (const auto& g : a.groups) {
        for (const auto& c : g.claims) {
          csv.Row(Concat({r.entity.id, a.label, c.display, c.per_chip_display, std::to_string(c.citation),
                          a.conflict() ? "yes" : "no"},
                         AllProvenanceFields(Find(r.citations, c.citation))));
        }
      }
    }
    // Claims of other entities naming this one (Trainium 2's successor is
    // Trainium 3): the text's "referenced by", each with its source.
    for (const auto& x : r.referenced_by) {
      for (int n : x.citations) {
        csv.Row(Concat({r.entity.id, "referenced by: " + x.predicate + " of", x.subject_name, "", std::to_string(n), "no"},
                       AllProvenanceFields(Find(r.citations, n))));
      }
    }
    return csv.str();
  }
  std::ostringstream out;
  out << r.entity.name << "  (" << r.entity.id << ", " << r.entity.kind << ")\n";
  if (!r.entity.aliases.empty()) {
    std::string aliases;
    for (const auto& a : r.entity.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
    out << "also known as: " << aliases << "\n";
  }
  if (r.attributes.empty()) out << "\nno source says anything about it yet\n";
  size_t width = 12;
  for (const auto& a : r.attributes) width = std::max(width, std::min<size_t>(a.label.size() + 2, 40));
  size_t conflicts = 0;
  out << "\n";
  for (const auto& a : r.attributes) {
    AttributeText(out, a, width, "  ");
    conflicts += a.conflict();
  }
  if (!r.referenced_by.empty()) {
    out << "\nreferenced by\n";
    for (const auto& x : r.referenced_by) {
      out << "  " << Pad(x.subject_name, width) << x.predicate << " " << Refs(x.citations) << "\n";
    }
  }
  out << "\n" << r.attributes.size() << (r.attributes.size() == 1 ? " attribute, " : " attributes, ") << conflicts
      << " with conflicting sources\n";
  Footnotes(out, r.citations);
  return out.str();
}

// ---- conflicts ------------------------------------------------------------------

std::string Render(const ConflictReport& r, Format format) {
  if (format == Format::kJson) {
    json j;
    j["tolerance"] = r.options.tolerance;
    j["date_tolerance_days"] = r.options.date_tolerance_days;
    if (!r.entity.empty()) j["entity"] = r.entity;
    j["subjects_checked"] = r.subjects_checked;
    json list = json::array();
    for (const auto& a : r.conflicts) list.push_back(SummaryJson(a));
    j["conflicts"] = list;
    j["citations"] = CitationsJson(r.citations);
    return Dump(j);
  }
  if (format == Format::kCsv) {
    // One row per claim on each side of a difference, with its provenance,
    // as describe's CSV has: citation numbers alone point into footnotes
    // that a CSV does not carry.
    Csv csv(Concat({"subject", "subject_name", "attribute", "difference", "side", "value", "versus", "claim",
                    "citation", "kind", "size", "relative", "gap", "gap_unit", "sanity"},
                   kAllProvenanceHeader));
    size_t difference = 0;
    for (const auto& a : r.conflicts) {
      for (const auto& d : a.differences) {
        ++difference;
        std::string flags;
        for (const auto& f : a.flags) {
          if (f.group == d.a || f.group == d.b) flags += (flags.empty() ? "" : "; ") + f.message;
        }
        const Comparison& c = d.comparison;
        const std::string& a_value = a.groups[d.a].claims.at(d.a_claim).display;
        const std::string& b_value = a.groups[d.b].claims.at(d.b_claim).display;
        for (const auto& [side, group, value, versus] :
             {std::tuple{"a", d.a, &a_value, &b_value}, std::tuple{"b", d.b, &b_value, &a_value}}) {
          for (const auto& claim : a.groups[group].claims) {
            csv.Row(Concat({a.subject, a.subject_name, a.label, std::to_string(difference), side, *value, *versus,
                            claim.display,
                            std::to_string(claim.citation), DifferenceKindName(c.kind), c.size,
                            c.kind == DifferenceKind::kQuantity ? Num(c.relative) : "",
                            c.kind == DifferenceKind::kDate ? std::to_string(c.gap) : "", c.gap_unit, flags},
                           AllProvenanceFields(Find(r.citations, claim.citation))));
          }
        }
      }
    }
    return csv.str();
  }
  std::ostringstream out;
  char tol[32];
  std::snprintf(tol, sizeof tol, "%g%%", r.options.tolerance * 100);
  std::set<EntityId> subjects;
  for (const auto& a : r.conflicts) subjects.insert(a.subject);
  out << r.conflicts.size() << " conflicting attribute" << (r.conflicts.size() == 1 ? "" : "s") << " on "
      << subjects.size() << " of " << r.subjects_checked << " subject" << (r.subjects_checked == 1 ? "" : "s")
      << " (tolerance " << tol;
  if (r.options.date_tolerance_days) out << ", dates within " << r.options.date_tolerance_days << " days";
  out << ")\n";
  size_t width = 12;
  for (const auto& a : r.conflicts) width = std::max(width, std::min<size_t>(a.label.size() + 2, 40));
  EntityId last;
  for (const auto& a : r.conflicts) {
    if (a.subject != last) {
      out << "\n" << a.subject_name << "  (" << a.subject << ")\n";
      last = a.subject;
    }
    AttributeText(out, a, width, "  ");
  }
  Footnotes(out, r.citations);
  return out.str();
}

// ---- trace ----------------------------------------------------------------------

std::string Render(const TraceReport& r, Format format) {
  if (format == Format::kJson) {
    json j;
    j["entity"] = {{"id", r.entity.id}, {"kind", r.entity.kind}, {"name", r.entity.name}};
    j["attribute"] = r.attribute;
    j["predicate"] = r.predicate;
    j["qualifiers"] = QualifiersJson(r.fixed);
    json claims = json::array();
    for (const auto& c : r.claims) claims.push_back(TracedJson(c));
    j["claims"] = claims;
    j["set_aside"] = r.set_aside;
    if (r.derived) {
      const DerivedTrace& d = *r.derived;
      json dj;
      dj["name"] = d.name;
      dj["formula"] = d.formula;
      json args = json::object();
      for (const auto& [p, a] : d.arguments) args[p] = a;
      dj["arguments"] = args;
      json inputs = json::array();
      for (const auto& in : d.inputs) {
        json ij = {{"leaf", in.leaf}, {"about", in.about}};
        if (in.constant) ij["constant"] = *in.constant;
        json cl = json::array();
        for (const auto& c : in.claims) cl.push_back(TracedJson(c));
        ij["claims"] = cl;
        inputs.push_back(ij);
      }
      dj["inputs"] = inputs;
      json values = json::array();
      for (const auto& v : d.values) {
        values.push_back({{"qualifiers", QualifiersJson(v.qualifiers)},
                          {"value", v.value},
                          {"display", v.display},
                          {"working", v.working},
                          {"support", v.support},
                          {"inputs", v.inputs}});
      }
      dj["values"] = values;
      if (!d.missing.empty()) dj["missing"] = d.missing;
      j["derived"] = dj;
    }
    return Dump(j);
  }
  if (format == Format::kCsv) {
    Csv csv(
        Concat(Concat({"role", "citation", "value", "per_chip", "qualifiers", "excerpt_verified", "retracted_tx"},
                      kProvenanceHeader),
               Concat({"retracted_later_by_tx", "still_in_version", "still_in_content_hash"}, kLaterProvenanceHeader)));
    for (const auto& c : r.claims) csv.Row(TracedCsvRow("claim", c));
    if (r.derived) {
      for (const auto& in : r.derived->inputs) {
        for (const auto& c : in.claims) csv.Row(TracedCsvRow("input " + in.leaf, c));
      }
      for (const auto& v : r.derived->values) {
        // Its citation column says which rows' citations it is computed
        // from ("([3] or [7]) and [9]"), its rule column the formula, its
        // excerpt column the working.
        std::vector<std::string> row = {"derived " + r.derived->name,     v.support, v.display, "",
                                        QualifiersToString(v.qualifiers), "", ""};
        row = Concat(row, std::vector<std::string>(kProvenanceHeader.size() + 3 + kLaterProvenanceHeader.size()));
        const auto column = [&](const char* name) {
          return 7 + static_cast<size_t>(std::find(kProvenanceHeader.begin(), kProvenanceHeader.end(), name) -
                                         kProvenanceHeader.begin());
        };
        row[column("excerpt")] = v.working + "  from " + v.support;
        row[column("rule")] = r.derived->name + " = " + r.derived->formula;
        csv.Row(row);
      }
    }
    return csv.str();
  }
  std::ostringstream out;
  out << r.entity.name << " \xC2\xB7 " << r.attribute;
  // "fits(Llama 3.1 70B, int8)": the call as asked, not a bare "fits".
  if (r.derived && !r.derived->arguments.empty()) {
    out << "(";
    for (size_t i = 0; i < r.derived->arguments.size(); ++i) out << (i ? ", " : "") << r.derived->arguments[i].second;
    out << ")";
  }
  if (!r.fixed.empty()) out << " {" << QualifiersToString(r.fixed) << "}";
  out << "\n";
  if (!r.predicate.empty()) {
    size_t live = 0;
    for (const auto& c : r.claims) live += !c.retracted;
    out << r.claims.size() << " claim" << (r.claims.size() == 1 ? "" : "s") << " (" << live << " standing)";
    if (r.claims.empty() && r.set_aside > 0) {
      out << ": none with {" << QualifiersToString(r.fixed) << "}; " << r.set_aside << " other claim"
          << (r.set_aside == 1 ? "" : "s") << " of " << r.predicate << " set aside (trace " << r.entity.name << "."
          << r.predicate << " lists every claim)";
    } else if (r.claims.empty()) {
      out << ": no source says anything (unknown)";
    }
    out << "\n";
    for (const auto& c : r.claims) {
      out << "\n";
      TracedText(out, c, "");
    }
  }
  if (r.derived) {
    const DerivedTrace& d = *r.derived;
    out << "\ncomputed: " << d.name;
    if (!d.arguments.empty()) {
      out << "(";
      for (size_t i = 0; i < d.arguments.size(); ++i) out << (i ? ", " : "") << d.arguments[i].second;
      out << ")";
    }
    out << " = " << d.formula << "\n";
    if (!d.missing.empty()) out << "  cannot compute: " << d.missing << "\n";
    for (const auto& v : d.values) {
      out << "  " << (v.qualifiers.empty() ? "" : "{" + QualifiersToString(v.qualifiers) + "} ") << v.working
          << " = " << v.display << "   from " << v.support << "\n";
    }
    for (const auto& in : d.inputs) {
      out << "\n  input " << in.leaf << " (" << in.about << ")";
      if (in.constant) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", *in.constant);
        out << " = " << buf << " (schema table)\n";
        continue;
      }
      out << ": " << in.claims.size() << " claim" << (in.claims.size() == 1 ? "" : "s") << "\n";
      for (const auto& c : in.claims) TracedText(out, c, "    ");
    }
  }
  return out.str();
}

// ---- verify ---------------------------------------------------------------------

std::string Render(const VerifyReport& r, Format format) {
  if (format == Format::kJson) {
    json j;
    if (!r.document.empty()) j["document_id"] = r.document;  // the document checked; "document" is a citation's object
    j["confirmed"] = r.confirmed;
    j["mismatched"] = r.mismatched;
    j["confirmed_on_one_reading"] = r.confirmed_on_one_reading;
    j["unverifiable"] = r.unverifiable;
    json items = json::array();
    for (const auto& i : r.items) {
      json x;
      x["subject"] = i.subject;
      x["subject_name"] = i.subject_name;
      x["predicate"] = i.predicate;
      x["qualifiers"] = QualifiersJson(i.qualifiers);
      x["status"] = i.status;
      x["stated"] = ClaimJson(i.stated);
      if (i.recomputed) {
        x["recomputed"] = *i.recomputed;
        x["recomputed_display"] = i.recomputed_display;
      }
      x["method"] = i.method;
      x["working"] = WorkingWithSources(i);
      x["relative_difference"] =
          std::isfinite(i.check.relative_difference) ? json(i.check.relative_difference) : json(nullptr);
      x["relative_tolerance"] = i.check.relative_tolerance;
      x["rounding"] = i.check.rule;
      x["input_citations"] = i.input_citations;
      json others = json::array();
      for (const VerifyItem::OtherReading& o : i.other_readings) {
        std::vector<int> cited;
        for (const auto& alternatives : o.inputs) cited.insert(cited.end(), alternatives.begin(), alternatives.end());
        others.push_back({{"working", OtherReadingText(o)}, {"recomputed_display", o.recomputed_display},
                          {"input_citations", cited}});
      }
      x["other_readings"] = others;
      if (!i.reason.empty()) x["reason"] = i.reason;
      items.push_back(x);
    }
    j["items"] = items;
    j["citations"] = CitationsJson(r.citations);
    return Dump(j);
  }
  if (format == Format::kCsv) {
    Csv csv(Concat({"status", "subject", "predicate", "qualifiers", "stated", "stated_canonical",
                    "recomputed", "recomputed_canonical", "relative_difference", "relative_tolerance",
                    "rounding", "method", "working", "reason"},
                   kAllProvenanceHeader));
    for (const auto& i : r.items) {
      csv.Row(Concat({i.status, i.subject, i.predicate, QualifiersToString(i.qualifiers), i.stated.display,
                      Num(i.stated.value.number), i.recomputed_display,
                      i.recomputed ? Num(*i.recomputed) : "", Num(i.check.relative_difference),
                      Num(i.check.relative_tolerance), i.check.rule, i.method, WorkingWithSources(i), i.reason},
                     AllProvenanceFields(Find(r.citations, i.stated.citation))));
    }
    return csv.str();
  }
  std::ostringstream out;
  const size_t checked = r.confirmed + r.mismatched + r.unverifiable;
  out << "verify" << (r.document.empty() ? "" : " " + r.document) << ": " << checked << " derived figure"
      << (checked == 1 ? "" : "s") << ": " << r.confirmed << " confirmed, " << r.mismatched << " mismatched, "
      << r.unverifiable << " unverifiable" << (r.items.size() < checked ? " (the confirmed ones not listed)" : "");
  if (r.confirmed_on_one_reading > 0) {
    out << "; " << r.confirmed_on_one_reading << " of the confirmed only on one reading of inputs the sources give "
        << "two values for" << (r.items.size() < checked ? " (listed without --mismatches)" : "");
  }
  out << "\n";
  std::string doc;
  for (const auto& i : r.items) {
    if (i.stated.document_id != doc) {
      doc = i.stated.document_id;
      out << "\n" << doc << "\n";
    }
    const char* mark = i.status == "confirmed" ? "ok  " : i.status == "mismatch" ? "BAD " : "??  ";
    out << "  " << mark << i.subject_name << " \xC2\xB7 " << i.predicate;
    if (!i.qualifiers.empty()) out << " {" << QualifiersToString(i.qualifiers) << "}";
    out << ": " << GivenAs(i) << " " << OneLine(i.stated.display, 60) << " [" << i.stated.citation << "]";
    if (i.recomputed) out << ", recomputed " << i.recomputed_display;
    out << "  " << i.status;
    if (i.status != "unverifiable" && i.check.rule != "exact") {
      out << " (" << i.check.rule << ", tolerance " << FormatRelative(i.check.relative_tolerance) << ")";
    }
    out << "\n";
    if (!i.method.empty()) out << "        " << OneLine(i.method, 160) << "\n";
    if (!i.working.empty()) out << "        " << OneLine(WorkingWithSources(i), 200) << "\n";
    for (const VerifyItem::OtherReading& o : i.other_readings) {
      out << "        but the inputs also read " << OneLine(OtherReadingText(o), 200) << " (not confirmed)\n";
    }
    if (!i.reason.empty() && i.status != "confirmed") out << "        " << OneLine(i.reason, 200) << "\n";
  }
  Footnotes(out, r.citations);
  return out.str();
}

// ---- sources, source ------------------------------------------------------------

namespace {

json SourceSummaryJson(const SourceSummary& s) {
  json j;
  j["id"] = s.document.id;
  j["title"] = s.document.title;
  j["url"] = s.document.url;
  j["site"] = s.document.site;
  j["kind"] = s.document.kind;
  j["retired_tx"] = s.document.retired_tx != 0 ? json(s.document.retired_tx) : json();
  json versions = json::array();
  for (const auto& v : s.versions) {
    json x = {{"version", v.version},
              {"content_hash", v.content_hash},
              {"fetched_at", IsoTimeJson(v.fetched_at)},
              {"tx", v.tx},
              {"content_type", v.content_type}};
    if (v.as_of) x["as_of"] = v.as_of->ToString();
    if (!v.url.empty()) x["url"] = v.url;
    if (!v.title.empty()) x["title"] = v.title;
    versions.push_back(x);
  }
  j["versions"] = versions;
  j["live_facts"] = s.live_facts;
  j["retracted_facts"] = s.retracted_facts;
  j["not_published"] = s.not_published;
  j["subjects"] = s.subjects;
  return j;
}

void SourceSummaryText(std::ostringstream& out, const SourceSummary& s) {
  out << s.document.id << "  " << (s.document.title.empty() ? "" : "\"" + s.document.title + "\"") << "\n";
  out << "    " << (s.document.url.empty() ? "(no URL)" : s.document.url);
  if (!s.document.kind.empty() || !s.document.site.empty()) {
    out << "  (" << KindAndSite(s.document.kind, s.document.site) << ")";
  }
  out << "\n";
  if (s.document.retired_tx != 0) {
    out << "    retired by tx " << s.document.retired_tx << ": no claim standing (" << s.retracted_facts
        << " retracted in all, 'history ENTITY.ATTR' shows them); later versions are stored without claims "
           "('chipkg reinstate "
        << s.document.id << "' makes it a source again)\n";
  } else if (s.live_facts == 0 && s.retracted_facts > 0) {
    // Said apart: "0 facts standing" amid the counts read as a document
    // that never said anything (ingest refuses a new version that states
    // nothing, so this is mostly `chipkg retire`'s doing).
    out << "    no claim standing: all " << s.retracted_facts << " withdrawn ('history ENTITY.ATTR' shows them)\n";
  } else {
    out << "    " << s.live_facts << " facts standing (" << s.not_published << " not published), "
        << s.retracted_facts << " retracted, about " << s.subjects << " subject" << (s.subjects == 1 ? "" : "s")
        << "\n";
  }
  for (const auto& v : s.versions) {
    out << "    version " << v.version << ": sha256 " << ShortHash(v.content_hash) << ", fetched "
        << IsoTime(v.fetched_at);
    if (v.as_of) out << ", as of " << v.as_of->ToString();
    out << ", tx " << v.tx;
    // Read from another place than the document's now (re-ingested by --id from a copy).
    if (!v.url.empty() && v.url != s.document.url) out << ", from " << v.url;
    out << "\n";
  }
}

}  // namespace

std::string Render(const SourcesReport& r, Format format) {
  if (format == Format::kJson) {
    json j = json::array();
    for (const auto& s : r.sources) j.push_back(SourceSummaryJson(s));
    json failing = json::array();
    for (const auto& f : r.failing) {
      failing.push_back({{"document_id", f.document_id},
                         {"location", f.location},
                         // "manifest": the latest, as records before several were kept named one.
                         {"manifest", f.manifests.empty() ? json(nullptr) : json(f.manifests.back())},
                         {"manifests", f.manifests},
                         {"since", IsoTimeJson(f.since)},
                         {"last", IsoTimeJson(f.last)},
                         {"runs", f.runs},
                         {"error", f.error}});
    }
    return Dump(json{{"sources", j}, {"failing", failing}});
  }
  if (format == Format::kCsv) {
    // A failing source is a document's row with its failure, or a row of
    // its own when it was never stored (its first fetch failed): one table
    // for a script to read, as JSON's "failing" is one list.
    Csv csv({"id", "title", "url", "site", "kind", "versions", "latest_hash", "latest_fetched_at", "as_of",
             "live_facts", "retracted_facts", "not_published", "subjects", "retired_tx", "failed_runs",
             "failing_since", "last_failed", "failure", "manifest"});
    std::map<std::string_view, const SourcesReport::Failing*> failing;
    for (const auto& f : r.failing) failing.emplace(f.document_id, &f);
    auto failure_fields = [](const SourcesReport::Failing* f) -> std::vector<std::string> {
      if (f == nullptr) return {"", "", "", "", ""};
      std::string manifests;
      for (const std::string& m : f->manifests) manifests += (manifests.empty() ? "" : "; ") + m;
      return {std::to_string(f->runs), IsoTimeCsv(f->since), IsoTimeCsv(f->last), OneLine(f->error, 300), manifests};
    };
    for (const auto& s : r.sources) {
      const DocumentVersion* latest = s.versions.empty() ? nullptr : &s.versions.back();
      const auto f = failing.find(s.document.id);
      const SourcesReport::Failing* failure = f == failing.end() ? nullptr : f->second;
      if (failure != nullptr) failing.erase(f);
      csv.Row(Concat({s.document.id, s.document.title, s.document.url, s.document.site, s.document.kind,
                      std::to_string(s.versions.size()), latest ? latest->content_hash : "",
                      latest ? IsoTimeCsv(latest->fetched_at) : "",
                      latest && latest->as_of ? latest->as_of->ToString() : "", std::to_string(s.live_facts),
                      std::to_string(s.retracted_facts), std::to_string(s.not_published),
                      std::to_string(s.subjects), s.document.retired_tx ? std::to_string(s.document.retired_tx) : ""},
                     failure_fields(failure)));
    }
    for (const auto& f : r.failing) {
      if (failing.count(f.document_id) == 0) continue;  // its document's row has it
      csv.Row(Concat({f.document_id, "", f.location, "", "", "0", "", "", "", "", "", "", "", ""},
                     failure_fields(&f)));
    }
    return csv.str();
  }
  std::ostringstream out;
  out << r.sources.size() << " document" << (r.sources.size() == 1 ? "" : "s") << "\n";
  for (const auto& s : r.sources) {
    out << "\n";
    SourceSummaryText(out, s);
  }
  if (!r.failing.empty()) {
    out << "\n" << r.failing.size() << (r.failing.size() == 1 ? " source" : " sources")
        << " failing in the latest ingest runs (a run that takes it clears this, as do runs of its manifests that "
           "no longer list it):\n";
    for (const auto& f : r.failing) {
      out << "\n" << f.document_id << "  " << f.location << "\n    failed in " << f.runs
          << (f.runs == 1 ? " run" : " runs in a row") << ", since " << IsoTime(f.since);
      if (f.runs > 1) out << ", the latest at " << IsoTime(f.last);
      out << ": " << OneLine(f.error, 300) << "\n";
      // Where to take it out, for a source no longer wanted.
      if (!f.manifests.empty()) {
        out << "    listed in ";
        for (size_t i = 0; i < f.manifests.size(); ++i) {
          out << (i == 0 ? "" : i + 1 == f.manifests.size() ? " and " : ", ") << f.manifests[i];
        }
        out << "\n";
      }
    }
  }
  return out.str();
}

std::string Render(const SourceReport& r, Format format) {
  if (format == Format::kJson) {
    json j = SourceSummaryJson(r.source);
    json facts = json::array();
    for (const auto& f : r.facts) {
      json x = ClaimJson(f.claim);
      x["subject_name"] = f.subject_name;
      x["predicate"] = f.predicate;
      x["version"] = f.version;
      x["section"] = f.section;
      x["excerpt"] = f.excerpt;
      x["derivation"] = f.derivation == Derivation::kStatedDerived ? "stated_derived" : "stated";
      facts.push_back(x);
    }
    j["facts"] = facts;
    return Dump(j);
  }
  if (format == Format::kCsv) {
    Csv csv({"fact_id", "subject", "subject_name", "predicate", "qualifiers", "value", "version", "section",
             "excerpt", "derivation", "valid_as_of", "retracted_tx"});
    for (const auto& f : r.facts) {
      csv.Row({std::to_string(f.claim.fact_id), f.subject, f.subject_name, f.predicate,
               QualifiersToString(f.claim.qualifiers), f.claim.display, std::to_string(f.version), f.section,
               f.excerpt, f.derivation == Derivation::kStatedDerived ? "stated_derived" : "stated",
               f.claim.valid_as_of ? f.claim.valid_as_of->ToString() : "",
               f.claim.retracted_tx ? std::to_string(f.claim.retracted_tx) : ""});
    }
    return csv.str();
  }
  std::ostringstream out;
  SourceSummaryText(out, r.source);
  out << "\n";
  size_t width = 12;
  for (const auto& f : r.facts)
    width = std::max(width, std::min<size_t>(f.subject_name.size() + f.predicate.size() + 5, 44));
  std::string section = "\x01";
  for (const auto& f : r.facts) {
    if (f.section != section) {
      section = f.section;
      out << "  [" << OneLine(section.empty() ? "(no section)" : section, 80) << "]\n";
    }
    std::string what = f.subject_name + " \xC2\xB7 " + f.predicate;
    out << "    " << Pad(what, width) << OneLine(f.claim.display, 60);
    if (!f.claim.qualifiers.empty()) out << "  {" << QualifiersToString(f.claim.qualifiers) << "}";
    if (f.derivation == Derivation::kStatedDerived) out << "  (computed by the page)";
    if (f.claim.retracted_tx) out << "  (retracted by tx " << f.claim.retracted_tx << ")";
    out << "  \"" << OneLine(f.excerpt, 60) << "\"\n";
  }
  return out.str();
}

// ---- history --------------------------------------------------------------------

std::string Render(const HistoryReport& r, Format format) {
  if (format == Format::kJson) {
    json j;
    j["entity"] = {{"id", r.entity.id}, {"name", r.entity.name}};
    j["predicate"] = r.predicate;
    j["qualifiers"] = QualifiersJson(r.fixed);
    json events = json::array();
    for (const auto& e : r.events) {
      json x = ClaimJson(e.claim);
      x["event"] = e.asserted ? "asserted" : "retracted";
      x["tx"] = e.tx;
      x["time"] = IsoTimeJson(e.time_micros / 1000000);
      x["time_micros"] = e.time_micros;  // the transaction's own precision, to order events within a second
      x["run_id"] = e.run_id;
      x["version"] = e.version;
      events.push_back(x);
    }
    j["events"] = events;
    j["citations"] = CitationsJson(r.citations);
    return Dump(j);
  }
  if (format == Format::kCsv) {
    Csv csv(Concat({"tx", "time", "run_id", "event", "value", "qualifiers", "citation"}, kAllProvenanceHeader));
    for (const auto& e : r.events) {
      csv.Row(Concat({std::to_string(e.tx), IsoTimeCsv(e.time_micros / 1000000), e.run_id,
                      e.asserted ? "asserted" : "retracted", e.claim.display,
                      QualifiersToString(e.claim.qualifiers), std::to_string(e.claim.citation)},
                     AllProvenanceFields(Find(r.citations, e.claim.citation))));
    }
    return csv.str();
  }
  std::ostringstream out;
  out << r.entity.name << " \xC2\xB7 " << r.predicate;
  if (!r.fixed.empty()) out << " {" << QualifiersToString(r.fixed) << "}";
  out << ": " << r.events.size() << " event" << (r.events.size() == 1 ? "" : "s") << "\n";
  if (r.events.empty()) out << "  no source has ever said anything about it\n";
  for (const auto& e : r.events) {
    out << "  tx " << Pad(std::to_string(e.tx), 5) << IsoTime(e.time_micros / 1000000) << "  "
        << Pad(e.run_id.empty() ? "-" : e.run_id, 18) << (e.asserted ? "+ asserted   " : "- retracted  ")
        << OneLine(e.claim.display, 60);
    if (!e.claim.qualifiers.empty()) out << "  {" << QualifiersToString(e.claim.qualifiers) << "}";
    out << "  " << e.claim.document_id << " v" << e.version << " [" << e.claim.citation << "]\n";
  }
  Footnotes(out, r.citations);
  return out.str();
}

}  // namespace chipkg::factcheck
