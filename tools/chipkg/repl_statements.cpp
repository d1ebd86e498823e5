// Statements shared by the REPL and the one-shot commands (tools/chipkg/repl.h).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <map>
#include <sstream>
#include <string_view>

#include "ingest/pipeline.h"
#include "ingest/resolve.h"
#include "query/factcheck.h"
#include "query/query.h"
#include "query/suggest.h"
#include "tools/chipkg/repl.h"

namespace chipkg::cli {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  return s.substr(b, e - b);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// An option left in a statement's argument text once its own were taken
// ("describe trainium --bogus", a second --tolerance): read as part of the
// entity, it was reported as "no entity named 'trainium --bogus'".
Status LeftoverOption(const std::string& rest, const std::string& statement) {
  char quote = 0;
  for (size_t i = 0; i + 2 < rest.size(); ++i) {
    const char c = rest[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (c != '-' || rest[i + 1] != '-' || (i > 0 && !std::isspace(static_cast<unsigned char>(rest[i - 1])))) continue;
    size_t end = i + 2;
    while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end])) && rest[end] != '=') ++end;
    const std::string option = rest.substr(i, end - i);
    const bool taken = option == "--tolerance" || option == "--format" || option == "--as-at" || option == "--mismatches";
    return Status::InvalidArgument(taken ? "option '" + option + "' given twice, or one " + statement + " does not take"
                                         : "unknown option '" + option + "' of " + statement);
  }
  return Status::OK();
}

// Removes "--tolerance X" / "--tolerance=X" from a statement's argument text.
Result<std::optional<double>> TakeTolerance(std::string& rest) {
  const std::string flag = "--tolerance";
  size_t at = rest.find(flag);
  if (at == std::string::npos) return std::optional<double>();
  size_t p = at + flag.size();
  if (p < rest.size() && rest[p] == '=') p++;
  while (p < rest.size() && rest[p] == ' ') p++;
  size_t e = p;
  while (e < rest.size() && !std::isspace(static_cast<unsigned char>(rest[e]))) e++;
  auto t = ParseTolerance(rest.substr(p, e - p));
  if (!t.ok()) return t.status();
  rest = Trim(rest.substr(0, at) + rest.substr(e));
  return std::optional<double>(*t);
}

// Removes "--format F" / "--format=F" from a statement's argument text: the
// shell's option, which a line pasted from the README into a script carries
// ("trace trainium.memory --format csv" read "csv" as part of the attribute).
Result<std::optional<factcheck::Format>> TakeFormat(std::string& rest) {
  const std::string flag = "--format";
  const size_t at = rest.find(flag);
  if (at == std::string::npos || (at > 0 && !std::isspace(static_cast<unsigned char>(rest[at - 1])))) {
    return std::optional<factcheck::Format>();
  }
  size_t p = at + flag.size();
  if (p < rest.size() && rest[p] != '=' && !std::isspace(static_cast<unsigned char>(rest[p]))) {
    return std::optional<factcheck::Format>();  // --formatx: another word
  }
  if (p < rest.size() && rest[p] == '=') p++;
  while (p < rest.size() && rest[p] == ' ') p++;
  size_t e = p;
  while (e < rest.size() && !std::isspace(static_cast<unsigned char>(rest[e]))) e++;
  auto f = factcheck::ParseFormat(rest.substr(p, e - p));
  if (!f.ok()) return f.status();
  rest = Trim(rest.substr(0, at) + rest.substr(e));
  return std::optional<factcheck::Format>(*f);
}

// Removes a flag without a value ("--mismatches") from a statement's argument text; whether it was there.
bool TakeFlag(std::string& rest, const std::string& flag) {
  size_t at = rest.find(flag);
  while (at != std::string::npos) {
    const size_t end = at + flag.size();
    const bool alone = (at == 0 || std::isspace(static_cast<unsigned char>(rest[at - 1]))) &&
                       (end == rest.size() || std::isspace(static_cast<unsigned char>(rest[end])));
    if (alone) {
      rest = Trim(rest.substr(0, at) + rest.substr(end));
      return true;
    }
    at = rest.find(flag, end);
  }
  return false;
}

// Removes "--as-at WHEN" / "--as-at=WHEN" from a statement's argument text:
// WHEN is "tx N" or "run RUN-ID" (two words), a date or timestamp (one), or
// a date and a time of day apart ("2026-12-06 02:32:20", as `date` and
// SQL write them; two words, which left the time as part of the entity).
Result<std::optional<std::string>> TakeAsAt(std::string& rest) {
  const std::string flag = "--as-at";
  const size_t at = rest.find(flag);
  if (at == std::string::npos) return std::optional<std::string>();
  size_t p = at + flag.size();
  if (p < rest.size() && rest[p] == '=') p++;
  auto next_word = [&](size_t from) {
    while (from < rest.size() && std::isspace(static_cast<unsigned char>(rest[from]))) from++;
    size_t end = from;
    while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) end++;
    return std::pair<size_t, size_t>(from, end);
  };
  auto [b, e] = next_word(p);
  const std::string first = Lower(rest.substr(b, e - b));
  if (first == "tx" || first == "run") {
    e = next_word(e).second;
  } else if (const auto [tb, te] = next_word(e);
             first.size() == 10 && first[4] == '-' && first[7] == '-' && te > tb &&
             std::isdigit(static_cast<unsigned char>(rest[tb])) && rest.find(':', tb) < te) {
    e = te;
  }
  // `date -u` and chipkg's listings write the zone after a space.
  if (const auto [zb, ze] = next_word(e);
      first.size() >= 10 && first[4] == '-' && rest.substr(b, e - b).find(':') != std::string::npos &&
      Lower(rest.substr(zb, ze - zb)) == "utc") {
    e = ze;
  }
  const std::string when = Trim(rest.substr(b, e - b));
  if (when.empty() || (when == first && (first == "tx" || first == "run"))) {
    return Status::InvalidArgument("--as-at needs a point in time: tx N, run RUN-ID, a date (2025-01-31) or a "
                                   "timestamp (2025-01-31T12:00:00Z)");
  }
  rest = Trim(rest.substr(0, at) + rest.substr(e));
  return std::optional<std::string>(when);
}

// What a query can ask about entities of `kind` (chip when empty): the
// schema's predicates that apply to it, its named views, the derived
// attributes and the tests, each with its type or unit, so that a
// researcher at the REPL need not read the schema files. One row per entry,
// so that text, JSON and CSV say the same.
struct AttributeEntry {
  std::string section;  // stated, view, derived, synonym, qualifier
  std::string name;
  std::string definition;  // type or unit; the view's qualifiers; the rule; the words; the values
  std::string description;
};

Result<std::vector<AttributeEntry>> AttributesOf(const Schema& schema, std::string& kind) {
  if (kind.empty()) kind = "chip";
  const auto& kinds = schema.entity_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end() && kind.size() > 1 && kind.back() == 's' &&
      std::find(kinds.begin(), kinds.end(), kind.substr(0, kind.size() - 1)) != kinds.end()) {
    kind.pop_back();  // "chips"
  }
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    std::string all;
    for (const std::string& k : kinds) all += (all.empty() ? "" : ", ") + k;
    return Status::InvalidArgument("unknown kind '" + kind + "'" + query::DidYouMean(kind, kinds) + "; kinds: " + all);
  }
  auto applies = [&](const PredicateDef& p) {
    return p.subject_kinds.empty() || std::find(p.subject_kinds.begin(), p.subject_kinds.end(), kind) != p.subject_kinds.end();
  };
  auto type_of = [&](const PredicateDef& p) -> std::string {
    switch (p.type) {
      case ValueKind::kQuantity: {
        const DimensionDef* d = schema.FindDimension(p.dimension);
        const std::string unit = !p.display_unit.empty() ? p.display_unit : (d != nullptr ? d->display_unit : "");
        return unit.empty() || unit == "1" ? "number" : "quantity, " + unit;
      }
      case ValueKind::kDate: return "date";
      case ValueKind::kEntity: return p.object_kind.empty() ? "entity" : p.object_kind;
      case ValueKind::kBool: return "yes/no";
      default: return "text";
    }
  };
  std::vector<AttributeEntry> entries;
  std::vector<const PredicateDef*> stated;
  for (const PredicateDef& p : schema.predicates()) {
    if (applies(p)) stated.push_back(&p);
  }
  std::sort(stated.begin(), stated.end(), [](const PredicateDef* a, const PredicateDef* b) { return a->name < b->name; });
  for (const PredicateDef* p : stated) entries.push_back({"stated", p->name, type_of(*p), p->description});
  for (const AttributeDef& a : schema.attributes()) {
    const PredicateDef* p = schema.FindPredicate(a.predicate);
    if (p == nullptr || !applies(*p)) continue;
    std::string qualifiers;
    for (const auto& [k, v] : a.qualifiers) qualifiers += (qualifiers.empty() ? "" : ", ") + k + "=" + v;
    entries.push_back({"view", a.name, a.predicate + "{" + qualifiers + "}", ""});
  }
  for (const DerivationDef& d : schema.derivations()) {
    std::string head = d.name;
    if (!d.params.empty()) {
      head += "(";
      for (size_t i = 0; i < d.params.size(); ++i) head += (i ? ", " : "") + d.params[i];
      head += ")";
    }
    entries.push_back({"derived", head, d.formula, ""});
  }
  std::map<std::string, std::string> other_words;  // attribute -> "power, power_draw"
  for (const SynonymDef& syn : schema.synonyms()) {
    const std::vector<std::string> targets = schema.SubjectKinds(syn.target);
    if (!targets.empty() && std::find(targets.begin(), targets.end(), kind) == targets.end()) continue;
    std::string& words = other_words[syn.target];
    words += (words.empty() ? "" : ", ") + syn.word;
  }
  for (const auto& [target, words] : other_words) entries.push_back({"synonym", target, words, ""});
  for (const std::string& key : schema.qualifier_keys()) {
    if (const std::vector<std::string>* values = schema.QualifierValues(key)) {
      std::string list;
      for (const std::string& v : *values) list += (list.empty() ? "" : " ") + v;
      entries.push_back({"qualifier", key, list, ""});
    }
  }
  return entries;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Result<std::string> AttributesListing(const Schema& schema, std::string kind, factcheck::Format format) {
  auto entries = AttributesOf(schema, kind);
  if (!entries.ok()) return entries.status();
  if (format == factcheck::Format::kJson) {
    nlohmann::json list = nlohmann::json::array();
    for (const AttributeEntry& e : *entries) {
      list.push_back({{"section", e.section}, {"name", e.name}, {"definition", e.definition},
                      {"description", e.description}});
    }
    return nlohmann::json{{"kind", kind}, {"attributes", std::move(list)}}.dump(2) + "\n";
  }
  if (format == factcheck::Format::kCsv) {
    std::string out = "section,name,definition,description\n";
    for (const AttributeEntry& e : *entries) {
      out += CsvField(e.section) + "," + CsvField(e.name) + "," + CsvField(e.definition) + "," +
             CsvField(e.description) + "\n";
    }
    return out;
  }
  std::ostringstream out;
  char line[512];
  const size_t stated =
      std::count_if(entries->begin(), entries->end(), [](const AttributeEntry& e) { return e.section == "stated"; });
  out << kind << ": " << stated << " attributes sources state (a condition can also test name)\n";
  const std::map<std::string, const char*> headers = {
      {"view", "\nnamed views (an attribute with qualifiers fixed):\n"},
      {"derived", "\ncomputed by the schema's rules (any kind whose claims they read):\n"},
      {"synonym", "\nother words for them:\n"}};
  std::string section = "stated";
  for (const AttributeEntry& e : *entries) {
    if (e.section == "qualifier") continue;
    if (e.section != section) {
      section = e.section;
      out << headers.at(section);
    }
    if (e.section == "stated") {
      std::snprintf(line, sizeof line, "  %-30s %-22s %s\n", e.name.c_str(), e.definition.c_str(),
                    e.description.c_str());
    } else {
      std::snprintf(line, sizeof line, "  %-30s %s\n", e.name.c_str(), e.definition.c_str());
    }
    out << line;
  }
  out << "\nqualifiers: {KEY=VALUE} after an attribute, e.g. peak_throughput{format=fp8}";
  for (const AttributeEntry& e : *entries) {
    if (e.section == "qualifier") out << "\n  " << e.name << ": " << e.definition;
  }
  out << "\n";
  return out.str();
}

factcheck::Options OptionsOf(const Session& s) {
  factcheck::Options o;
  o.compare.tolerance = s.tolerance;
  o.verify_tolerance = s.verify_tolerance;
  return o;
}

int Fail(std::string& err, const Status& status, int code = kExitFailed) {
  err += "error: " + cli::ErrorText(status) + "\n";
  return code;
}

template <typename Report>
int Emit(const Result<Report>& report, const Session& s, std::string& out, std::string& err) {
  if (!report.ok()) {
    return Fail(err, report.status(), report.status().IsInvalidArgument() ? kExitUsage : kExitFailed);
  }
  out += factcheck::Render(*report, s.format);
  return kExitOk;
}

std::string HelpText() {
  std::ostringstream out;
  out << "Statements, one per line (a line ending in \\, a comma or a word such as 'where' or 'and', or with a\n"
         "parenthesis or quote open, goes on on the next; in a script, a line opening with a clause such as\n"
         "'order by' or 'and' goes on with the one before; # starts a comment; Ctrl-C gives up a line;\n"
         "--format F after a fact-checker's statement holds for it alone, as 'format F' does for those after):\n\n";
  for (const auto& d : StatementDocs()) {
    // (Not a fixed buffer: a long usage and summary were cut, newline and all.)
    constexpr size_t kUsageWidth = 42;
    out << "  " << d.usage << std::string(kUsageWidth - std::min(kUsageWidth, d.usage.size()), ' ') << " "
        << d.summary << "\n";
  }
  out << "\nExamples:\n";
  for (const auto& d : StatementDocs()) {
    for (const auto& e : d.examples) out << "  " << e << "\n";
  }
  out << "\nAnything that does not start with a statement word is a query (see query/README.md).\n"
         "Values carry numbered citations [n]; the sources are listed under each answer.\n";
  return out.str();
}

nlohmann::json MatchJson(const MatchRecord& m) {
  return {{"kind", m.kind},
          {"name", m.name},
          {"entity", m.entity},
          {"method", m.method},
          {"decision", m.decision}};
}

int RunMatches(Session& s, const std::string& rest, std::string& out, std::string& err) {
  std::istringstream in(rest);
  std::string verb, kind;
  in >> verb >> kind;
  std::string name;
  std::getline(in, name);
  name = Trim(name);
  if (!verb.empty()) {
    verb = Lower(verb);
    if ((verb != "confirm" && verb != "reject") || kind.empty() || name.empty()) {
      return Fail(err,
                  Status::InvalidArgument("usage: matches [confirm|reject KIND NAME], e.g. "
                                          "matches confirm chip Amazon Trainium1"),
                  kExitUsage);
    }
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    // A decision is a write: it needs the store itself, not the reader's view.
    auto writer = Store::Open(s.store_path);
    if (!writer.ok()) return Fail(err, writer.status().WithContext("recording the decision"));
    Status st = DecideMatch(**writer, kind, name, verb == "confirm");
    if (!st.ok()) return Fail(err, st, st.IsInvalidArgument() ? kExitUsage : kExitFailed);
    writer->reset();
    if (s.store) (void)s.store->CatchUp();
    out += std::string(verb == "confirm" ? "confirmed" : "rejected") + ": " + kind + " \"" + name + "\"\n";
    return kExitOk;
  }
  auto matches = ListMatches(*s.store);
  if (!matches.ok()) return Fail(err, matches.status());
  switch (s.format) {
    case factcheck::Format::kJson: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& m : *matches) j.push_back(MatchJson(m));
      out +=
          nlohmann::json{{"matches", j}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      break;
    }
    case factcheck::Format::kCsv:
      out += "kind,name,entity,method,decision\n";
      for (const auto& m : *matches) {
        out += CsvField(m.kind) + "," + CsvField(m.name) + "," + CsvField(m.entity) + "," +
               CsvField(m.method) + "," + CsvField(m.decision) + "\n";
      }
      break;
    case factcheck::Format::kText: {
      size_t pending = 0;
      for (const auto& m : *matches) pending += m.decision == "pending";
      out += std::to_string(matches->size()) + " automatic match" + (matches->size() == 1 ? "" : "es") +
             ", " + std::to_string(pending) + " pending review\n";
      for (const auto& m : *matches) {
        char line[512];
        std::snprintf(line, sizeof line, "  %-10s %-13s %-36s -> %-28s %s\n", m.decision.c_str(),
                      m.kind.c_str(), ("\"" + m.name + "\"").c_str(), m.entity.c_str(), m.method.c_str());
        out += line;
      }
      if (pending) out += "decide with: matches confirm KIND NAME  or  matches reject KIND NAME\n";
      break;
    }
  }
  return kExitOk;
}

int RunQueryStatement(Session& s, const std::string& text, std::string& out, std::string& err) {
  if (Trim(text).empty()) return Fail(err, Status::InvalidArgument("usage: query TEXT"), kExitUsage);
  query::QueryOptions options;
  options.tolerance = s.tolerance;
  options.first_line = s.statement_line;
  auto result = query::RunQuery(*s.store, *s.schema, text, options);
  if (!result.ok()) {
    // A statement word where a query was expected ("query 'describe x'", a
    // misspelt "describ x" at the REPL): say which statement was meant.
    const std::string first = Lower(Trim(text).substr(0, Trim(text).find_first_of(" \t\n")));
    if (result.status().message().find("expected a query") != std::string::npos) {
      std::vector<std::string> words;
      for (const auto& d : StatementDocs()) words.push_back(d.word);
      // (REPL settings and quit are not commands of their own: no hint for them.)
      const bool repl_only = first == "quit" || first == "exit" || first == "help" || first == "format" ||
                             first == "tolerance" || first == "refresh";
      const bool exact = !repl_only && std::find(words.begin(), words.end(), first) != words.end();
      std::string hint;
      if (exact) {
        hint = "'" + first + "' is a statement of its own, not a query: chipkg " + first + " ... (at the REPL, " +
               first + " ...)";
      } else if (const auto near = query::NearestNames(first, words, 1); !repl_only && !near.empty()) {
        hint = "did you mean the statement '" + near.front() + "'?";
      }
      if (!hint.empty()) return Fail(err, Status::InvalidArgument(result.status().message() + "\n" + hint));
    }
    return Fail(err, result.status());
  }
  s.last_phases = result->phases;
  auto format = query::ParseFormat(factcheck::FormatName(s.format));
  if (!format.ok()) return Fail(err, format.status());
  // CSV has no place for notes, and they say what a table alone hides (chips
  // left out as undecidable, a name read the short way, a chip counted in two
  // groups): on standard error, where they do not break the file.
  if (*format == query::Format::kCsv) {
    for (const std::string& note : result->notes) err += "note: " + note + "\n";
    // The groups' counts can add up to more than the chips counted (a chip
    // under each value its sources give): the total is the text's last line.
    if (result->count && !result->group_by.empty()) {
      err += "note: count: " + std::to_string(*result->count) + " in " + std::to_string(result->groups) +
             (result->groups == 1 ? " group\n" : " groups\n");
    }
  }
  if (s.answer_stream != nullptr && out.empty()) {
    query::Render(*result, *format, *s.answer_stream);
  } else if (out.empty()) {
    out = query::Render(*result, *format);  // moved, not copied: an answer's text can be hundreds of MB
  } else {
    out += query::Render(*result, *format);
  }
  return kExitOk;
}

int Dispatch(Session& s, const std::string& statement, std::string& out, std::string& err) {
  std::string text = Trim(statement);
  if (text.empty()) return kExitOk;
  size_t space = 0;
  while (space < text.size() && !std::isspace(static_cast<unsigned char>(text[space]))) space++;
  std::string word = Lower(text.substr(0, space));
  std::string rest = Trim(text.substr(space));
  auto known = [&](const char* w) { return word == w; };
  // "help me", "refresh now": refused as `exit 3` is, not run as if the words were read.
  if ((known("help") || word == "?" || known("refresh")) && !rest.empty() && rest[0] != '#') {
    return Fail(err, Status::InvalidArgument(word + " takes nothing after it ('" + rest + "' was not read)"),
                kExitUsage);
  }

  if (known("help") || word == "?") {
    out += HelpText();
    return kExitOk;
  }
  if (known("format")) {
    if (rest.empty()) {
      out += std::string("format ") + factcheck::FormatName(s.format) + "\n";
      return kExitOk;
    }
    auto f = factcheck::ParseFormat(rest);
    if (!f.ok()) return Fail(err, f.status(), kExitUsage);
    s.format = *f;
    // A setting's acknowledgement is no answer: on standard error, so that
    // "format csv" then a query, piped to a file, is that query's CSV.
    err += std::string("format ") + factcheck::FormatName(s.format) + "\n";
    return kExitOk;
  }
  if (known("tolerance")) {
    if (!rest.empty()) {
      auto t = ParseTolerance(rest);
      if (!t.ok()) return Fail(err, t.status(), kExitUsage);
      s.tolerance = *t;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "tolerance %g%%\n", s.tolerance * 100);
    (rest.empty() ? out : err) += buf;
    return kExitOk;
  }
  if (known("refresh")) {
    Status st = s.store->CatchUp();
    if (!st.ok()) return Fail(err, st.WithContext("refresh"));
    auto stats = s.store->Statistics();
    if (!stats.ok()) return Fail(err, stats.status());
    out += "refreshed: " + std::to_string(stats->live_facts) + " facts, " + std::to_string(stats->documents) +
           " documents, last tx " + std::to_string(s.store->LastTx()) + "\n";
    return kExitOk;
  }
  factcheck::Options options = OptionsOf(s);
  // The shell's --format and --tolerance, as the README's command lines
  // carry them, hold for this statement alone (the `format` and `tolerance`
  // statements set them for the ones after).
  struct FormatFor {  // restores the session's format after the statement
    Session& s;
    factcheck::Format was;
    ~FormatFor() { s.format = was; }
  } format_for{s, s.format};
  if (known("describe") || known("trace") || known("verify") || known("conflicts") || known("sources") ||
      known("source") || known("history") || known("attributes")) {
    auto f = TakeFormat(rest);
    if (!f.ok()) return Fail(err, f.status(), kExitUsage);
    if (*f) s.format = **f;
  }
  if (known("describe") || known("trace")) {
    auto t = TakeTolerance(rest);
    if (!t.ok()) return Fail(err, t.status(), kExitUsage);
    if (*t) options.compare.tolerance = **t;
  }
  // The query language's own forms (`conflicts in chip ...`, `conflicts
  // about trainium`), which query/README.md documents, are queries, not
  // the command's ENTITY.
  auto starts_with_word = [&](std::string_view w) {
    return rest.size() > w.size() && Lower(rest.substr(0, w.size())) == w &&
           std::isspace(static_cast<unsigned char>(rest[w.size()]));
  };
  const bool conflicts_query = known("conflicts") && (starts_with_word("in") || starts_with_word("about"));
  // The fact-checker's statements read the store as it was at a point in
  // transaction time, as a query's `as at` does: what chipkg said then,
  // before a later ingest changed it. The answer says which point it is.
  std::string as_at_note;
  const size_t answer_from = out.size();
  if (known("describe") || known("trace") || known("verify") || known("source") || known("sources") ||
      (known("conflicts") && !conflicts_query)) {
    auto when = TakeAsAt(rest);
    if (!when.ok()) return Fail(err, when.status(), kExitUsage);
    if (*when) {
      auto point = query::ResolveAsAt(*s.store, **when);
      if (!point.ok()) return Fail(err, point.status(), point.status().IsInvalidArgument() ? kExitUsage : kExitFailed);
      options.view.as_of_tx = point->tx;
      if (s.format == factcheck::Format::kText) as_at_note = point->note + "\n\n";
    }
  } else if (known("history") && rest.find("--as-at") != std::string::npos) {
    return Fail(err, Status::InvalidArgument("history lists every transaction; --as-at is for describe, trace, verify, "
                                             "conflicts and source"), kExitUsage);
  }
  auto with_note = [&](int code) {
    if (code == kExitOk && !as_at_note.empty()) out.insert(answer_from, as_at_note);
    return code;
  };
  if (Status left = LeftoverOption(rest, word); !left.ok() && (known("describe") || known("trace") ||
                                                                known("history") || known("attributes"))) {
    return Fail(err, left, kExitUsage);
  }
  if (known("describe")) {
    if (rest.empty()) return Fail(err, Status::InvalidArgument("usage: describe ENTITY"), kExitUsage);
    return with_note(Emit(factcheck::Describe(*s.store, *s.schema, rest, options), s, out, err));
  }
  if (known("trace")) {
    if (rest.empty()) return Fail(err, Status::InvalidArgument("usage: trace ENTITY.ATTR"), kExitUsage);
    return with_note(Emit(factcheck::Trace(*s.store, *s.schema, rest, options), s, out, err));
  }
  if (known("attributes")) {
    auto text = AttributesListing(*s.schema, Lower(rest), s.format);
    if (!text.ok()) return Fail(err, text.status());  // an unknown kind, as for `query` and `describe`: 1
    out += *text;
    return kExitOk;
  }
  if (known("history")) {
    if (rest.empty()) return Fail(err, Status::InvalidArgument("usage: history ENTITY.ATTR"), kExitUsage);
    return Emit(factcheck::History(*s.store, *s.schema, rest), s, out, err);
  }
  if (known("verify")) {
    factcheck::Options o = options;
    auto t = TakeTolerance(rest);
    if (!t.ok()) return Fail(err, t.status(), kExitUsage);
    if (*t) o.verify_tolerance = **t;
    o.verify_problems_only = TakeFlag(rest, "--mismatches");
    if (Status left = LeftoverOption(rest, word); !left.ok()) return Fail(err, left, kExitUsage);
    return with_note(Emit(factcheck::Verify(*s.store, *s.schema, rest, o), s, out, err));
  }
  if (conflicts_query) {
    return RunQueryStatement(s, text, out, err);
  }
  if (known("conflicts")) {
    factcheck::Options o = options;
    auto t = TakeTolerance(rest);
    if (!t.ok()) return Fail(err, t.status(), kExitUsage);
    if (*t) o.compare.tolerance = **t;
    if (Status left = LeftoverOption(rest, word); !left.ok()) return Fail(err, left, kExitUsage);
    return with_note(Emit(factcheck::Conflicts(*s.store, *s.schema, rest, o), s, out, err));
  }
  if ((known("sources") || known("source")) && !LeftoverOption(rest, word).ok()) {
    return Fail(err, LeftoverOption(rest, word), kExitUsage);
  }
  if (known("sources")) {
    if (!rest.empty()) return with_note(Emit(factcheck::Source(*s.store, rest, options), s, out, err));
    Result<factcheck::SourcesReport> report = factcheck::Sources(*s.store, options);
    // What failed is the store's state now, not as it was then.
    if (report.ok() && !options.view.as_of_tx) {
      Result<std::vector<FailingSource>> failing = FailingSources(*s.store);
      if (!failing.ok()) return Fail(err, failing.status().WithContext("reading which sources failed"), kExitFailed);
      for (FailingSource& f : *failing) {
        report->failing.push_back({std::move(f.document_id), std::move(f.location), std::move(f.manifests), f.since,
                                   f.last, f.runs, std::move(f.error)});
      }
    }
    return with_note(Emit(std::move(report), s, out, err));
  }
  if (known("source")) {
    if (rest.empty())
      return Fail(err, Status::InvalidArgument("usage: source DOCUMENT (see 'sources')"), kExitUsage);
    return with_note(Emit(factcheck::Source(*s.store, rest, options), s, out, err));
  }
  if (known("matches")) return RunMatches(s, rest, out, err);
  if (known("query")) return RunQueryStatement(s, rest, out, err);
  // Commands of the shell only (they write the store, or print its files):
  // as statements they read as a query that does not parse.
  for (const char* shell_only : {"stats", "ingest", "retire", "reinstate", "export", "import"}) {
    if (word == shell_only) {
      return Fail(err,
                  Status::InvalidArgument("'" + word + "' is a command of the shell, not a statement: run 'chipkg " +
                                          word + (rest.empty() ? "" : " " + rest) + "' there ('help' lists statements)"),
                  kExitUsage);
    }
  }
  return RunQueryStatement(s, text, out, err);
}

}  // namespace

const std::vector<StatementDoc>& StatementDocs() {
  static const std::vector<StatementDoc> docs = {
      {"describe",
       "describe ENTITY [--tolerance P%] [--as-at WHEN]",
       "every attribute with values, citations, conflicts (--as-at tx N, run RUN-ID or a date: as the store was then)",
       {"describe Trainium", "describe \"AWS Trainium 2\"", "describe Trainium --as-at tx 59"}},
      {"trace",
       "trace ENTITY.ATTR[{KEY=VALUE,...}] [--tolerance P%] [--as-at WHEN]",
       "every claim behind a figure, back to the document text",
       {"trace trainium.memory_bandwidth", "trace trainium2.perf_per_watt",
        "trace trainium2.fits(\"Llama 3.1 70B\", int8)", "trace Google TPU v4.tdp{basis=estimate}"}},
      {"verify",
       "verify [DOCUMENT] [--tolerance P%] [--mismatches] [--as-at WHEN]",
       "recompute the figures documents derive themselves",
       {"verify", "verify seed-000-aws-trainium"}},
      {"conflicts",
       "conflicts [ENTITY] [--tolerance P%] [--as-at WHEN]",
       "where sources disagree, and by how much",
       {"conflicts", "conflicts Trainium --tolerance 5%"}},
      {"sources", "sources [DOCUMENT] [--as-at WHEN]", "the documents, their versions and fact counts (one DOCUMENT: as source)", {"sources"}},
      {"source",
       "source DOCUMENT [--as-at WHEN]",
       "one document and every fact it gave",
       {"source seed-001-amazon-trainium"}},
      {"attributes",
       "attributes [KIND]",
       "what a query can ask about a kind (chip by default): attributes, units, rules, qualifiers",
       {"attributes", "attributes llm"}},
      {"history",
       "history ENTITY.ATTR",
       "claims asserted and retracted over time",
       {"history trainium.memory"}},
      {"matches",
       "matches [confirm|reject KIND NAME]",
       "automatic entity matches for review (the bundled data has none; confirm or reject one it lists)",
       {"matches"}},
      {"query",
       "query TEXT  (or just TEXT)",
       "a query in the chipkg query language",
       {"find chip where memory >= 64 GB", "count chip by designer", "trainium2.memory_bandwidth"}},
      {"format", "format text|json|csv", "how answers are printed", {"format json"}},
      {"tolerance",
       "tolerance P%",
       "relative difference that counts as a conflict (default 1%)",
       {"tolerance 2%"}},
      {"refresh", "refresh", "see what a running ingest has written since", {}},
      {"help", "help", "this text", {}},
      {"quit", "quit", "leave (also exit, or Ctrl-D)", {}},
  };
  return docs;
}

Result<double> ParseTolerance(const std::string& text) {
  std::string t = Trim(text);
  bool percent = !t.empty() && t.back() == '%';
  if (percent) t = Trim(t.substr(0, t.size() - 1));
  // Decimal digits and one point only, as the query language reads them:
  // strtod also takes "0x10" (16) and exponents ("1e-320%").
  const std::string digits = !t.empty() && t[0] == '-' ? t.substr(1) : t;
  const bool decimal = !digits.empty() && digits.find_first_not_of("0123456789.") == std::string::npos &&
                       std::count(digits.begin(), digits.end(), '.') <= 1 && digits != ".";
  char* end = nullptr;
  double v = !decimal ? NAN : std::strtod(t.c_str(), &end);
  if (!decimal || end != t.c_str() + t.size() || !std::isfinite(v)) {
    return Status::InvalidArgument("tolerance '" + text + "' is not a percentage (e.g. 2% or 0.02)");
  }
  if (v < 0) return Status::InvalidArgument("tolerance '" + text + "' is negative: it is a difference, 0% or more");
  // "--tolerance 10" meant 10%, and was read as 1000%: a bare number is a fraction, so one of 1 or more is refused.
  if (!percent && v >= 1) {
    return Status::InvalidArgument("tolerance '" + text + "' has no '%'" +
                                   (v <= 1000 ? ": write " + t + "%" : std::string()) +
                                   " (a number without '%' is a fraction, so one of 1 or more is refused: 0.02 is 2%)");
  }
  const double fraction = percent ? v / 100 : v;
  // The query language's bound too (`tolerance 1000%`).
  if (fraction > 10) return Status::InvalidArgument("tolerance '" + text + "' is over 1000% (0.02 or 2% is 2%)");
  return fraction;
}

Status ApplyOptions(const Args& args, Session& session) {
  if (auto f = args.Get("format")) {
    auto parsed = factcheck::ParseFormat(*f);
    if (!parsed.ok()) return parsed.status();
    session.format = *parsed;
  }
  if (auto t = args.Get("tolerance")) {
    auto parsed = ParseTolerance(*t);
    if (!parsed.ok()) return parsed.status();
    session.tolerance = *parsed;
    session.verify_tolerance = *parsed;
  }
  return Status::OK();
}

std::string StraightenQuotes(const std::string& text) {
  constexpr std::string_view kOpen = "\xE2\x80\x9C", kClose = "\xE2\x80\x9D";
  if (text.find("\xE2\x80") == std::string::npos) return text;
  std::string out;
  char quote = 0;          // the quote open, if any: inside a straight one, curly quotes are the name's own
  bool by_curly = false;   // it was opened by “ (closed by ” or ")
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = std::string_view(text).substr(i, 3);
    const bool curly = rest == kOpen || rest == kClose;
    if (curly && (quote == 0 || by_curly)) {
      out += '"';
      by_curly = quote == 0;
      quote = quote == 0 ? '"' : 0;
      i += 2;
      continue;
    }
    const char c = text[i];
    if (quote == 0 && (c == '"' || c == '\'')) {
      quote = c;
      by_curly = false;
    } else if (quote != 0 && c == quote) {
      quote = 0;
      by_curly = false;
    }
    out += c;
  }
  return out;
}

int RunStatement(Session& session, const std::string& statement_as_given, std::string& out, std::string& err) {
  if (!session.store || !session.schema) {
    err += "error: no store open\n";
    return kExitFailed;
  }
  const std::string statement = StraightenQuotes(statement_as_given);
  try {
    return Dispatch(session, statement, out, err);
  } catch (const std::exception& e) {
    // Nothing below is meant to throw; if it does, the session survives.
    err += std::string("error: internal: ") + e.what() + "\n";
    return kExitFailed;
  }
}

int RunOneShot(const Args& args, const std::string& word) {
  // CHIPKG_TIMINGS=1 prints where a one-shot command's time went (stderr):
  // scripts and cron jobs start chipkg fresh, so start-up is part of the answer.
  const char* timings_env = std::getenv("CHIPKG_TIMINGS");
  const bool timings = timings_env != nullptr && *timings_env != '\0' && std::string_view(timings_env) != "0";
  using Clock = std::chrono::steady_clock;
  auto last = Clock::now();
  std::string report;
  auto lap = [&](const char* phase) {
    if (!timings) return;
    auto now = Clock::now();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.2f ms", report.empty() ? "" : ", ", phase,
                  std::chrono::duration<double, std::milli>(now - last).count());
    report += buf;
    last = now;
  };
  auto schema = LoadSchema();
  if (!schema.ok()) {
    PrintError(schema.status());
    return kExitUsage;
  }
  lap("schema");
  Session session;
  session.store_path = StorePath(args);
  session.schema = &*schema;
  Status st = ApplyOptions(args, session);
  if (!st.ok()) {
    PrintError(st);
    return kExitUsage;
  }
  // One statement, then exit: a block read now will not be read again.
  StoreOptions read_once;
  read_once.fill_block_cache = false;
  auto store = OpenForReading(session.store_path, read_once);
  if (!store.ok()) {
    PrintError(store.status());
    return kExitFailed;
  }
  session.store = std::move(*store);
  lap("open");
  std::string statement = word;
  for (const auto& p : args.positional) statement += " " + p;
  // Which command takes which option is checked before (Command::options).
  if (args.Has("mismatches")) statement += " --mismatches";
  if (auto when = args.Get("as-at")) statement += " --as-at " + *when;
  std::string out, err;
  session.answer_stream = &std::cout;  // synchronised with stdio: ordered with the writes below
  int code = RunStatement(session, statement, out, err);
  lap("statement");
  if (timings && !session.last_phases.empty()) {
    // A query's own steps, inside "statement" (rendering is the rest of it).
    report += " (";
    for (size_t i = 0; i < session.last_phases.size(); ++i) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s %.2f", i ? ", " : "", session.last_phases[i].name.c_str(),
                    session.last_phases[i].ms);
      report += buf;
    }
    report += ")";
  }
  std::cout.flush();
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (std::ferror(stdout) || !std::cout) {
    err += "error: could not write the answer to standard output\n";
    if (code == kExitOk) code = kExitFailed;
  }
  std::fwrite(err.data(), 1, err.size(), stderr);
  if (timings) std::fprintf(stderr, "chipkg timings: %s\n", report.c_str());
  ExitAfterReading(code);
}

}  // namespace chipkg::cli
