// Reading schema files: tokenising lines, parsing directives, then checking
// every cross-reference once all files are read (a file may refer to names a
// later file declares). Errors are collected as "FILE:LINE: message" so one
// run shows several mistakes; reference checks run only when every line
// parsed, so one broken declaration does not cascade into many.

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <tuple>

#include "engine/store.h"
#include "schema/schema.h"
#include "schema/text_util.h"

namespace chipkg {

using schema_internal::AsciiLower;
using schema_internal::FoldPhrase;
using schema_internal::NormalizeLabel;

namespace {

constexpr size_t kMaxReportedErrors = 20;

struct Token {
  std::string key;  // empty: a positional argument
  std::string value;
  bool quoted = false;  // some of the value was in quotes: a list option keeps it whole
};

struct Location {
  std::string file;
  int line = 0;
  std::string ToString() const { return file + ":" + std::to_string(line); }
};

// One non-empty line: the directive word, its positional arguments, and its
// options in the order written (a list option may repeat).
struct Line {
  Location where;
  std::string directive;
  std::vector<std::string> args;
  std::vector<Token> options;
};

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool IsOptionKey(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// The characters that end a run of plain characters inside a token.
constexpr std::array<bool, 256> kEndsRun = [] {
  std::array<bool, 256> ends{};
  for (unsigned char c : std::string_view(" \t\r#\"=")) ends[c] = true;
  return ends;
}();

// Splits one line into tokens. A token is a run of non-space characters in
// which double quotes protect spaces and '#'; `key=value` (key unquoted) is an
// option. Returns an error message, or "" on success.
std::string Tokenize(std::string_view line, std::vector<Token>& out) {
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= n || line[i] == '#') break;
    Token token;
    std::string text;
    bool quoted = false;    // a quote has been seen in this token
    bool has_key = false;
    while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#') {
      char c = line[i];
      if (c == '"') {
        quoted = true;
        size_t open = i++;
        bool closed = false;
        while (i < n) {
          if (line[i] == '\\') {
            if (i + 1 < n && (line[i + 1] == '"' || line[i + 1] == '\\')) {
              text += line[i + 1];
              i += 2;
              continue;
            }
            return "column " + std::to_string(i + 1) + ": unknown escape in quoted value (only \\\" and \\\\)";
          }
          if (line[i] == '"') {
            closed = true;
            ++i;
            break;
          }
          size_t end = i + 1;
          while (end < n && line[end] != '"' && line[end] != '\\') ++end;
          text.append(line, i, end - i);
          i = end;
        }
        if (!closed) return "column " + std::to_string(open + 1) + ": unterminated quote";
        if (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#') {
          return "column " + std::to_string(i + 1) + ": unexpected '" + std::string(1, line[i]) +
                 "' after a closing quote";
        }
        continue;
      }
      if (c == '=' && !has_key && !quoted && IsOptionKey(text)) {
        token.key = text;
        text.clear();
        has_key = true;
        ++i;
        continue;
      }
      // The run of characters up to the next one with a meaning, in one append.
      size_t end = i + 1;
      while (end < n && !kEndsRun[static_cast<unsigned char>(line[end])]) ++end;
      text.append(line, i, end - i);
      i = end;
    }
    if (has_key && text.empty()) return "option '" + token.key + "' has no value";
    if (!has_key && text.empty()) return "empty argument \"\"";
    token.value = std::move(text);
    token.quoted = quoted;
    out.push_back(std::move(token));
  }
  return "";
}

std::optional<double> ParseNumber(const std::string& s) {
  double value = 0;
  const char* begin = s.data();
  const char* end = begin + s.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t b = part.find_first_not_of(" \t");
    size_t e = part.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? "" : part.substr(b, e - b + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

const char* const kValueTypes[] = {"quantity", "date", "entity", "text", "bool"};
const char* const kColumnRoles[] = {"value", "name", "kind", "citation", "price_citation", "as_of", "note"};

std::optional<ValueKind> ParseValueType(const std::string& s) {
  if (s == "quantity") return ValueKind::kQuantity;
  if (s == "date") return ValueKind::kDate;
  if (s == "entity") return ValueKind::kEntity;
  if (s == "text") return ValueKind::kText;
  if (s == "bool") return ValueKind::kBool;
  return std::nullopt;
}

std::string Join(const char* const* begin, const char* const* end) {
  std::string out;
  for (auto it = begin; it != end; ++it) {
    if (!out.empty()) out += ", ";
    out += *it;
  }
  return out;
}

}  // namespace

class SchemaBuilder {
 public:
  void AddFile(const std::string& name, const std::string& text);
  Result<Schema> Finish();
  // The directives read so far, as tokens: what Schema::fingerprint hashes,
  // so that a comment, a blank line or spacing is no change of rules.
  const std::string& directives_read() const { return directives_read_; }

 private:
  void Error(const Location& where, const std::string& message) {
    errors_.push_back(where.ToString() + ": " + message);
  }
  void ParseLine(const std::string& file, int line_no, std::string_view raw);

  // Options of one line, checked against what the directive accepts.
  // `free_options` receives any other key (qualifiers, table entries, entity
  // properties); when null such a key is an error.
  // Lists of a few words: scanned, not built into sets for every line.
  using Words = std::initializer_list<std::string_view>;
  bool TakeOptions(const Line& line, Words allowed, Words lists,
                   std::map<std::string, std::vector<std::string>>& known,
                   std::vector<std::pair<std::string, std::string>>* free_options);
  bool CheckArgs(const Line& line, size_t min, size_t max, const char* usage);
  static std::string One(const std::map<std::string, std::vector<std::string>>& opts, const std::string& key) {
    auto it = opts.find(key);
    return it == opts.end() || it->second.empty() ? "" : it->second.front();
  }
  bool CheckName(const Line& line, const std::string& what, const std::string& name);
  bool FillQualifiers(const Line& line, const std::vector<std::pair<std::string, std::string>>& free,
                      Qualifiers& out);

  void Kind(const Line& line);
  void Qualifier(const Line& line);
  void Dimension(const Line& line);
  void Unit(const Line& line);
  void Predicate(const Line& line);
  void Attribute(const Line& line);
  void Label(const Line& line);
  void Entity(const Line& line);
  void NotPublished(const Line& line);
  void Table(const Line& line);
  void Derive(const Line& line);
  void Column(const Line& line);
  void Synonym(const Line& line);
  void AddLabel(LabelDef label, const Location& where);

  // Reference checks, run after every file is read.
  void CheckReferences();
  void CheckExpr(const Expr& expr, const DerivationDef& def, const Location& where);
  bool IsQuantityName(const std::string& name) const;
  bool UnitInDimension(const std::string& spelling, const std::string& dimension) const;
  void CheckQualifierValues(const Qualifiers& qualifiers, const Location& at, const std::string& what);
  bool QualifierDeclared(const std::string& key) const {
    return std::find(schema_.qualifier_keys_.begin(), schema_.qualifier_keys_.end(), key) !=
           schema_.qualifier_keys_.end();
  }
  bool KindDeclared(const std::string& kind) const {
    return std::find(schema_.entity_kinds_.begin(), schema_.entity_kinds_.end(), kind) !=
           schema_.entity_kinds_.end();
  }

  Schema schema_;
  std::vector<std::string> errors_;
  std::string directives_read_;
  // Where each declaration is, for duplicate and reference messages.
  std::map<std::string, Location> kind_at_, qualifier_at_, dimension_at_, predicate_at_, attribute_at_,
      table_at_, derive_at_, entity_at_;
  std::map<std::pair<std::string, std::string>, Location> unit_at_;    // (dimension, spelling)
  std::map<std::tuple<std::string, std::string, std::string>, Location> column_at_;  // (dataset, header, claim)
  std::vector<Location> dimension_locs_, unit_locs_, attribute_locs_, label_locs_, entity_locs_, synonym_locs_;
  std::vector<std::vector<std::string>> attribute_labels_;  // label= texts of each attribute
  std::set<std::string> not_published_seen_;
};

void SchemaBuilder::AddFile(const std::string& name, const std::string& text) {
  std::string_view rest(text);
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // a UTF-8 byte-order mark
  int line_no = 0;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    ++line_no;
    ParseLine(name, line_no, line);
  }
}

void SchemaBuilder::ParseLine(const std::string& file, int line_no, std::string_view raw) {
  std::vector<Token> tokens;
  std::string err = Tokenize(raw, tokens);
  if (!err.empty()) {
    Error(Location{file, line_no}, err);
    return;
  }
  if (tokens.empty()) return;  // blank or a comment
  for (const Token& t : tokens) {
    // Each part after its length: no two different lines read alike.
    // (Appended in place: a chain of '+' made five strings a token.)
    directives_read_.append(std::to_string(t.key.size())).append(":").append(t.key);
    directives_read_.append(std::to_string(t.value.size())).append(":").append(t.value);
    directives_read_.append(t.quoted ? "q " : " ");
  }
  directives_read_ += "\n";
  Line line;
  line.where = Location{file, line_no};
  const Location& where = line.where;
  if (!tokens[0].key.empty()) {
    Error(where, "a line starts with a directive word, not the option '" + tokens[0].key + "='");
    return;
  }
  line.directive = std::move(tokens[0].value);
  for (size_t i = 1; i < tokens.size(); ++i) {
    if (tokens[i].key.empty()) {
      if (!line.options.empty()) {
        Error(where, "argument \"" + tokens[i].value + "\" after options: arguments come first");
        return;
      }
      line.args.push_back(std::move(tokens[i].value));
    } else {
      line.options.push_back(std::move(tokens[i]));
    }
  }
  const std::string& d = line.directive;
  if (d == "kind") return Kind(line);
  if (d == "qualifier") return Qualifier(line);
  if (d == "dimension") return Dimension(line);
  if (d == "unit") return Unit(line);
  if (d == "predicate") return Predicate(line);
  if (d == "attribute") return Attribute(line);
  if (d == "label") return Label(line);
  if (d == "entity") return Entity(line);
  if (d == "not_published") return NotPublished(line);
  if (d == "table") return Table(line);
  if (d == "derive") return Derive(line);
  if (d == "column") return Column(line);
  if (d == "synonym") return Synonym(line);
  Error(where, "unknown directive '" + d +
                   "' (expected kind, qualifier, dimension, unit, predicate, attribute, label, entity, "
                   "not_published, table, derive, column or synonym)");
}

bool SchemaBuilder::CheckArgs(const Line& line, size_t min, size_t max, const char* usage) {
  if (line.args.size() < min) {
    Error(line.where, "missing argument: " + line.directive + " takes " + usage);
    return false;
  }
  if (line.args.size() > max) {
    Error(line.where, "unexpected argument \"" + line.args[max] + "\": " + line.directive + " takes " + usage);
    return false;
  }
  return true;
}

bool SchemaBuilder::TakeOptions(const Line& line, Words allowed, Words lists,
                                std::map<std::string, std::vector<std::string>>& known,
                                std::vector<std::pair<std::string, std::string>>* free_options) {
  auto in = [](Words words, const std::string& key) {
    return std::find(words.begin(), words.end(), std::string_view(key)) != words.end();
  };
  bool ok = true;
  std::set<std::string> seen_free;
  for (const Token& option : line.options) {
    const std::string& key = option.key;
    const std::string& value = option.value;
    if (!in(allowed, key)) {
      if (free_options == nullptr) {
        std::set<std::string> sorted(allowed.begin(), allowed.end());
        std::string accepted;
        for (const auto& a : sorted) accepted += (accepted.empty() ? "" : ", ") + a;
        Error(line.where, "unknown option '" + key + "' for " + line.directive +
                              (accepted.empty() ? " (it takes no options)" : " (accepted: " + accepted + ")"));
        ok = false;
        continue;
      }
      if (!seen_free.insert(key).second) {
        Error(line.where, "option '" + key + "' given twice");
        ok = false;
        continue;
      }
      free_options->emplace_back(key, value);
      continue;
    }
    auto& values = known[key];
    if (!in(lists, key)) {
      if (!values.empty()) {
        Error(line.where, "option '" + key + "' given twice (only alias=, label=, subjects=, params= and except= repeat)");
        ok = false;
        continue;
      }
      values.push_back(value);
      continue;
    }
    // An unquoted list value may hold several items separated by commas; a
    // quoted one is one item, so an alias can be "Foo, Inc.". Labels are
    // phrases and never split.
    if (key == "label" || option.quoted) {
      values.push_back(value);
      continue;
    }
    for (std::string& item : SplitCommas(value)) {
      if (item.empty()) {
        Error(line.where, "empty item in list option '" + key + "=" + value + "'");
        ok = false;
        continue;
      }
      values.push_back(std::move(item));
    }
  }
  return ok;
}

bool SchemaBuilder::CheckName(const Line& line, const std::string& what, const std::string& name) {
  if (IsIdentifier(name)) return true;
  Error(line.where, "bad " + what + " name '" + name + "': use letters, digits and '_', not starting with a digit");
  return false;
}

bool SchemaBuilder::FillQualifiers(const Line& line, const std::vector<std::pair<std::string, std::string>>& free,
                                   Qualifiers& out) {
  bool ok = true;
  for (const auto& [key, value] : free) {
    if (value != AsciiLower(value)) {
      Error(line.where, "qualifier value '" + key + "=" + value + "' must be lower case");
      ok = false;
      continue;
    }
    out[key] = value;
  }
  return ok;
}

void SchemaBuilder::Kind(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 1, 1, "a kind name") || !TakeOptions(line, {"description"}, {}, opts, nullptr)) return;
  const std::string& name = line.args[0];
  if (!CheckName(line, "kind", name)) return;
  if (auto [it, fresh] = kind_at_.emplace(name, line.where); !fresh) {
    return Error(line.where, "duplicate kind '" + name + "' (first declared at " + it->second.ToString() + ")");
  }
  schema_.entity_kinds_.push_back(name);
}

void SchemaBuilder::Qualifier(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 1, 1, "a qualifier key") ||
      !TakeOptions(line, {"description", "values", "object"}, {"values"}, opts, nullptr)) {
    return;
  }
  const std::string& name = line.args[0];
  if (const std::string object = One(opts, "object"); !object.empty()) {
    if (opts.count("values")) return Error(line.where, "qualifier " + name + ": values= and object= exclude each other");
    schema_.qualifier_objects_[name] = object;
  }
  if (!CheckName(line, "qualifier", name)) return;
  if (auto [it, fresh] = qualifier_at_.emplace(name, line.where); !fresh) {
    return Error(line.where,
                 "duplicate qualifier '" + name + "' (first declared at " + it->second.ToString() + ")");
  }
  schema_.qualifier_keys_.push_back(name);
  if (auto values = opts.find("values"); values != opts.end()) {
    for (const std::string& v : values->second) {
      if (v.empty() || AsciiLower(v) != v) return Error(line.where, "qualifier " + name + ": value '" + v + "' must be lower case");
    }
    schema_.qualifier_values_[name] = values->second;
  }
}

// A value of a closed qualifier key that the schema does not list: what
// extraction would store could then never be asked for by name.
void SchemaBuilder::CheckQualifierValues(const Qualifiers& qualifiers, const Location& at, const std::string& what) {
  for (const auto& [key, value] : qualifiers) {
    const std::vector<std::string>* values = schema_.QualifierValues(key);
    if (values == nullptr || std::find(values->begin(), values->end(), value) != values->end()) continue;
    Error(at, what + ": " + key + "=" + value + " is not among the values qualifier " + key + " declares");
  }
}

void SchemaBuilder::Dimension(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 1, 1, "a dimension name and canonical=UNIT [display=UNIT]") ||
      !TakeOptions(line, {"canonical", "display", "description"}, {}, opts, nullptr)) {
    return;
  }
  DimensionDef def;
  def.name = line.args[0];
  if (!CheckName(line, "dimension", def.name)) return;
  def.canonical_unit = One(opts, "canonical");
  if (def.canonical_unit.empty()) return Error(line.where, "dimension " + def.name + ": missing canonical=UNIT");
  def.display_unit = One(opts, "display");
  if (def.display_unit.empty()) def.display_unit = def.canonical_unit;
  if (auto [it, fresh] = dimension_at_.emplace(def.name, line.where); !fresh) {
    return Error(line.where,
                 "duplicate dimension '" + def.name + "' (first declared at " + it->second.ToString() + ")");
  }
  schema_.dimension_index_[def.name] = schema_.dimensions_.size();
  schema_.dimensions_.push_back(std::move(def));
  dimension_locs_.push_back(line.where);
}

void SchemaBuilder::Unit(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 3, 3, "SPELLING DIMENSION FACTOR") || !TakeOptions(line, {}, {}, opts, nullptr)) return;
  UnitDef def;
  def.spelling = line.args[0];
  def.dimension = line.args[1];
  std::optional<double> factor = ParseNumber(line.args[2]);
  if (!factor) return Error(line.where, "bad number '" + line.args[2] + "' (unit factor)");
  if (*factor <= 0) return Error(line.where, "unit factor must be positive, not " + line.args[2]);
  def.factor = *factor;
  if (def.spelling == "1") return Error(line.where, "'1' is the plain-number unit and is not declared");
  if (def.spelling.find_first_of("0123456789.") == 0) {
    return Error(line.where, "unit spelling '" + def.spelling + "' starts like a number");
  }
  // "$ per hour": the part after "$" follows the number, so it cannot be only space.
  if (def.spelling[0] == '$' && def.spelling.size() > 1 &&
      def.spelling.find_first_not_of(" ", 1) == std::string::npos) {
    return Error(line.where, "unit spelling '" + def.spelling + "' has nothing after '$'");
  }
  if (auto [it, fresh] = unit_at_.emplace(std::make_pair(def.dimension, def.spelling), line.where); !fresh) {
    return Error(line.where, "duplicate unit spelling '" + def.spelling + "' in dimension " + def.dimension +
                                 " (first declared at " + it->second.ToString() + ")");
  }
  size_t index = schema_.units_.size();
  schema_.unit_index_[def.spelling].push_back(index);
  schema_.unit_folded_index_[AsciiLower(def.spelling)].push_back(index);
  schema_.units_.push_back(std::move(def));
  unit_locs_.push_back(line.where);
}

void SchemaBuilder::Predicate(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 2, 2, "NAME TYPE (type: quantity, date, entity, text or bool)") ||
      !TakeOptions(line, {"dimension", "display", "subjects", "object", "description", "label", "values"},
                   {"subjects", "label"}, opts, nullptr)) {
    return;
  }
  PredicateDef def;
  if (const std::string values = One(opts, "values"); !values.empty() && values != "one" && values != "many") {
    return Error(line.where, "predicate " + line.args[0] + ": values= is one or many, not '" + values + "'");
  } else {
    def.many_values = values == "many";
  }
  def.name = line.args[0];
  if (!CheckName(line, "predicate", def.name)) return;
  std::optional<ValueKind> type = ParseValueType(line.args[1]);
  if (!type) {
    return Error(line.where, "unknown value type '" + line.args[1] + "' for predicate " + def.name +
                                 " (expected " + Join(std::begin(kValueTypes), std::end(kValueTypes)) + ")");
  }
  def.type = *type;
  def.dimension = One(opts, "dimension");
  def.display_unit = One(opts, "display");
  def.object_kind = One(opts, "object");
  def.description = One(opts, "description");
  def.subject_kinds = opts["subjects"];
  def.file = line.where.file;
  def.line = line.where.line;
  if (def.type == ValueKind::kQuantity) {
    if (def.dimension.empty()) return Error(line.where, "quantity predicate " + def.name + " needs dimension=");
  } else {
    if (!def.dimension.empty() || !def.display_unit.empty()) {
      return Error(line.where, "predicate " + def.name + ": dimension= and display= are for quantity predicates");
    }
  }
  if (def.type == ValueKind::kEntity) {
    if (def.object_kind.empty()) {
      return Error(line.where, "entity predicate " + def.name + " needs object=KIND");
    }
  } else if (!def.object_kind.empty()) {
    return Error(line.where, "predicate " + def.name + ": object= is for entity predicates");
  }
  if (def.subject_kinds.empty()) return Error(line.where, "predicate " + def.name + " needs subjects=KIND[,KIND]");
  if (auto [it, fresh] = predicate_at_.emplace(def.name, line.where); !fresh) {
    return Error(line.where,
                 "duplicate predicate '" + def.name + "' (first declared at " + it->second.ToString() + ")");
  }
  for (const std::string& text : opts["label"]) {
    LabelDef label;
    label.label = text;
    label.predicate = def.name;
    AddLabel(std::move(label), line.where);
  }
  schema_.predicate_index_[def.name] = schema_.predicates_.size();
  schema_.predicates_.push_back(std::move(def));
}

void SchemaBuilder::Attribute(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  std::vector<std::pair<std::string, std::string>> free;
  if (!CheckArgs(line, 2, 2, "NAME PREDICATE followed by qualifiers key=value") ||
      !TakeOptions(line, {"description", "label"}, {"label"}, opts, &free)) {
    return;
  }
  AttributeDef def;
  def.name = line.args[0];
  def.predicate = line.args[1];
  if (!CheckName(line, "attribute", def.name) || !FillQualifiers(line, free, def.qualifiers)) return;
  if (auto [it, fresh] = attribute_at_.emplace(def.name, line.where); !fresh) {
    return Error(line.where,
                 "duplicate attribute '" + def.name + "' (first declared at " + it->second.ToString() + ")");
  }
  // Its label= lines become labels once the attribute's predicate is known.
  attribute_labels_.push_back(opts["label"]);
  schema_.attribute_index_[def.name] = schema_.attributes_.size();
  schema_.attributes_.push_back(std::move(def));
  attribute_locs_.push_back(line.where);
}

void SchemaBuilder::Synonym(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 2, 2, "WORD ATTRIBUTE") || !TakeOptions(line, {}, {}, opts, nullptr)) return;
  SynonymDef def;
  def.word = AsciiLower(line.args[0]);
  def.target = line.args[1];
  if (!CheckName(line, "synonym", def.word)) return;
  schema_.synonyms_.push_back(std::move(def));
  synonym_locs_.push_back(line.where);
}

void SchemaBuilder::AddLabel(LabelDef label, const Location& where) {
  std::string key = NormalizeLabel(label.label);
  if (key.empty()) return Error(where, "label \"" + label.label + "\" is empty once spaces and ':' are dropped");
  label.site = AsciiLower(label.site);
  auto [it, fresh] = schema_.label_index_.emplace(std::make_pair(label.site, key), schema_.labels_.size());
  if (!fresh) {
    return Error(where, "duplicate label \"" + label.label + "\"" +
                            (label.site.empty() ? "" : " for site " + label.site) + " (first declared at " +
                            label_locs_[it->second].ToString() + ")");
  }
  schema_.labels_.push_back(std::move(label));
  label_locs_.push_back(where);
}

void SchemaBuilder::Label(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  std::vector<std::pair<std::string, std::string>> free;
  if (!CheckArgs(line, 2, 2, "\"LABEL\" PREDICATE-OR-ATTRIBUTE followed by [site=SITE] and qualifiers") ||
      !TakeOptions(line, {"site"}, {}, opts, &free)) {
    return;
  }
  LabelDef def;
  def.label = line.args[0];
  def.predicate = line.args[1];
  def.site = One(opts, "site");
  if (!FillQualifiers(line, free, def.qualifiers)) return;
  AddLabel(std::move(def), line.where);
}

void SchemaBuilder::Entity(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  std::vector<std::pair<std::string, std::string>> free;
  if (!CheckArgs(line, 1, 1, "an id KIND-PREFIX:SLUG, kind=KIND, name=\"NAME\" and [alias=\"ALIAS\"]...") ||
      !TakeOptions(line, {"kind", "name", "alias"}, {"alias"}, opts, &free)) {
    return;
  }
  EntityDef def;
  def.id = line.args[0];
  size_t colon = def.id.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == def.id.size() ||
      def.id.find_first_of(" \t\"") != std::string::npos) {
    return Error(line.where, "bad entity id '" + def.id + "': expected PREFIX:SLUG, e.g. chip:aws-trainium");
  }
  def.kind = One(opts, "kind");
  def.name = One(opts, "name");
  def.aliases = opts["alias"];
  if (def.kind.empty()) return Error(line.where, "entity " + def.id + " needs kind=KIND");
  if (def.name.empty()) return Error(line.where, "entity " + def.id + " needs name=\"NAME\"");
  for (auto& [key, value] : free) def.properties[key] = value;
  if (auto [it, fresh] = entity_at_.emplace(def.id, line.where); !fresh) {
    return Error(line.where, "duplicate entity id '" + def.id + "' (first declared at " + it->second.ToString() + ")");
  }
  schema_.entity_id_index_[def.id] = schema_.entities_.size();
  schema_.entities_.push_back(std::move(def));
  entity_locs_.push_back(line.where);
}

void SchemaBuilder::NotPublished(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 1, 1, "one quoted phrase") || !TakeOptions(line, {}, {}, opts, nullptr)) return;
  std::string folded = FoldPhrase(line.args[0]);
  if (folded.empty()) return Error(line.where, "empty not_published phrase");
  // The same phrase in two files is harmless: keep one.
  if (!not_published_seen_.insert(folded).second) return;
  schema_.not_published_.push_back(line.args[0]);
  schema_.not_published_folded_.push_back(std::move(folded));
}

void SchemaBuilder::Table(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  std::vector<std::pair<std::string, std::string>> free;
  if (!CheckArgs(line, 1, 1, "NAME followed by entries key=NUMBER") || !TakeOptions(line, {}, {}, opts, &free)) {
    return;
  }
  const std::string& name = line.args[0];
  if (!CheckName(line, "table", name)) return;
  if (free.empty()) return Error(line.where, "table " + name + " has no entries (key=NUMBER)");
  std::map<std::string, double> entries;
  for (const auto& [key, value] : free) {
    std::optional<double> number = ParseNumber(value);
    if (!number) return Error(line.where, "bad number '" + value + "' for " + name + "." + key);
    entries[key] = *number;
  }
  if (auto [it, fresh] = table_at_.emplace(name, line.where); !fresh) {
    return Error(line.where, "duplicate table '" + name + "' (first declared at " + it->second.ToString() + ")");
  }
  schema_.tables_[name] = std::move(entries);
}

void SchemaBuilder::Derive(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  if (!CheckArgs(line, 1, 1, "NAME formula=\"...\" [params=P,Q] [dimension=DIM] [display=UNIT]") ||
      !TakeOptions(line, {"formula", "params", "dimension", "display", "description"}, {"params"}, opts,
                   nullptr)) {
    return;
  }
  DerivationDef def;
  def.name = line.args[0];
  if (!CheckName(line, "derive", def.name)) return;
  def.params = opts["params"];
  def.formula = One(opts, "formula");
  def.result_dimension = One(opts, "dimension");
  def.display_unit = One(opts, "display");
  def.description = One(opts, "description");
  def.file = line.where.file;
  def.line = line.where.line;
  std::set<std::string> params;
  for (const std::string& p : def.params) {
    if (!CheckName(line, "parameter", p)) return;
    if (!params.insert(p).second) return Error(line.where, "derive " + def.name + ": parameter '" + p + "' twice");
  }
  if (def.formula.empty()) return Error(line.where, "derive " + def.name + " needs formula=\"...\"");
  Result<Expr> expr = ParseFormula(def.formula);
  if (!expr.ok()) {
    return Error(line.where, "derive " + def.name + ": formula \"" + def.formula +
                                 "\" does not parse: " + expr.status().message());
  }
  def.expr = std::move(expr).value();
  if (def.expr.kind == Expr::Kind::kCompare) {
    if (!def.result_dimension.empty() || !def.display_unit.empty()) {
      return Error(line.where, "derive " + def.name +
                                   ": a comparison gives true or false; it takes no dimension= or display=");
    }
  } else if (def.result_dimension.empty()) {
    return Error(line.where, "derive " + def.name + " needs dimension= (the dimension of its result, or ratio)");
  }
  if (auto [it, fresh] = derive_at_.emplace(def.name, line.where); !fresh) {
    return Error(line.where, "duplicate derive '" + def.name + "' (first declared at " + it->second.ToString() + ")");
  }
  schema_.derivation_index_[def.name] = schema_.derivations_.size();
  schema_.derivations_.push_back(std::move(def));
}

void SchemaBuilder::Column(const Line& line) {
  std::map<std::string, std::vector<std::string>> opts;
  std::vector<std::pair<std::string, std::string>> free;
  if (!CheckArgs(line, 2, 3, "DATASET \"HEADER\" [PREDICATE] followed by [role=ROLE] [unit=UNIT] "
                             "[derived=\"...\"] [except=\"NAME PATTERN\"...] [below|not_below=\"HEADER\"] "
                             "[note|not_note=\"NOTE PATTERN\"...] [note_in=\"HEADER\"] [sources=\"PHRASE\"] "
                             "[year_only=\"CELL PATTERN\"] "
                             "and qualifiers") ||
      !TakeOptions(line, {"role", "unit", "derived", "except", "below", "not_below", "note", "not_note", "note_in",
                          "sources", "year_only"},
                   {"except", "note", "not_note"}, opts, &free)) {
    return;
  }
  ColumnDef def;
  def.dataset = line.args[0];
  def.header = line.args[1];
  if (line.args.size() > 2) def.predicate = line.args[2];
  if (std::string role = One(opts, "role"); !role.empty()) def.role = role;
  def.unit = One(opts, "unit");
  def.derived = One(opts, "derived");
  if (auto it = opts.find("except"); it != opts.end()) def.except_names = it->second;
  const std::string below = One(opts, "below"), not_below = One(opts, "not_below");
  if (!below.empty() && !not_below.empty()) {
    return Error(line.where, "column \"" + line.args[1] + "\": below= and not_below= together hold for no row");
  }
  def.below = below.empty() ? not_below : below;
  def.negate_below = !not_below.empty();
  const auto note = opts.find("note"), not_note = opts.find("not_note");
  if (note != opts.end() && not_note != opts.end()) {
    return Error(line.where, "column \"" + line.args[1] + "\": note= and not_note= together: one line states a "
                             "cell of the rows whose note matches, another of the rest");
  }
  if (note != opts.end()) def.note_patterns = note->second;
  if (not_note != opts.end()) {
    def.note_patterns = not_note->second;
    def.negate_note = true;
  }
  def.note_in = One(opts, "note_in");
  if (!def.note_in.empty() && def.note_patterns.empty()) {
    return Error(line.where, "column \"" + line.args[1] + "\": note_in= says where note= or not_note= look, and "
                             "neither is given");
  }
  def.year_only = One(opts, "year_only");
  def.column_sources = One(opts, "sources");
  if (!def.column_sources.empty() && def.role != "note") {
    return Error(line.where, "column \"" + line.args[1] + "\": sources= reads a note's \"" + def.column_sources +
                                 " COLUMN: URL\" phrases, and is for role=note");
  }
  if (def.below == line.args[1]) {
    return Error(line.where, "column \"" + line.args[1] + "\": a cell is never below itself");
  }
  def.file = line.where.file;
  def.line = line.where.line;
  if (std::find(std::begin(kColumnRoles), std::end(kColumnRoles), def.role) == std::end(kColumnRoles)) {
    return Error(line.where, "unknown column role '" + def.role + "' (expected " +
                                 Join(std::begin(kColumnRoles), std::end(kColumnRoles)) + ")");
  }
  if (def.role == "value") {
    if (def.predicate.empty()) {
      return Error(line.where, "column \"" + def.header + "\": missing argument: a value column names a predicate");
    }
    const PredicateDef* predicate = schema_.FindPredicate(def.predicate);
    if (!def.year_only.empty() && predicate != nullptr && predicate->type != ValueKind::kDate) {
      return Error(line.where, "column \"" + def.header + "\": year_only= is for dates, and " + def.predicate +
                                   " holds none");
    }
  } else if (!def.predicate.empty() || !def.unit.empty() || !def.derived.empty() || !free.empty() ||
             !def.except_names.empty() || !def.below.empty() || !def.note_patterns.empty() || !def.year_only.empty()) {
    return Error(line.where, "column \"" + def.header + "\" has role=" + def.role +
                                 ": a predicate, unit=, derived=, except=, below=, not_below=, note=, not_note=, "
                                 "year_only= and qualifiers are for role=value");
  }
  if (!FillQualifiers(line, free, def.qualifiers)) return;
  // A header may be declared again for another claim of the same cell (Epoch's
  // "Tensor-FP16/BF16" figure is both formats' figure), not for the same one.
  std::string claim = def.role + " " + def.predicate;
  for (const auto& [key, value] : def.qualifiers) claim += " " + key + "=" + value;
  if (!def.below.empty()) claim += (def.negate_below ? " not_below=" : " below=") + def.below;
  for (const std::string& pattern : def.note_patterns) claim += (def.negate_note ? " not_note=" : " note=") + pattern;
  if (auto [it, fresh] = column_at_.emplace(std::make_tuple(def.dataset, def.header, claim), line.where); !fresh) {
    return Error(line.where, "duplicate column \"" + def.header + "\" of dataset " + def.dataset +
                                 " (first declared at " + it->second.ToString() + ")");
  }
  schema_.columns_.push_back(std::move(def));
}

bool SchemaBuilder::UnitInDimension(const std::string& spelling, const std::string& dimension) const {
  const DimensionDef* dim = schema_.FindDimension(dimension);
  if (dim != nullptr && dim->canonical_unit == "1" && spelling == "1") return true;
  auto it = schema_.unit_index_.find(spelling);
  if (it == schema_.unit_index_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](size_t i) { return schema_.units_[i].dimension == dimension; });
}

bool SchemaBuilder::IsQuantityName(const std::string& name) const {
  const PredicateDef* p = schema_.FindPredicate(name);
  if (p == nullptr) {
    if (const AttributeDef* a = schema_.FindAttribute(name)) p = schema_.FindPredicate(a->predicate);
  }
  return p != nullptr && p->type == ValueKind::kQuantity;
}

void SchemaBuilder::CheckExpr(const Expr& expr, const DerivationDef& def, const Location& where) {
  auto is_param = [&](const std::string& p) {
    return std::find(def.params.begin(), def.params.end(), p) != def.params.end();
  };
  const std::string prefix = "derive " + def.name + ": formula \"" + def.formula + "\": ";
  switch (expr.kind) {
    case Expr::Kind::kNumber:
      return;
    case Expr::Kind::kPredicate:
      if (is_param(expr.name)) {
        return Error(where, prefix + "parameter '" + expr.name + "' is not a number; write " + expr.name +
                                ".PREDICATE or TABLE(" + expr.name + ")");
      }
      if (schema_.FindPredicate(expr.name) == nullptr && schema_.FindAttribute(expr.name) == nullptr) {
        return Error(where, prefix + "unknown predicate '" + expr.name + "'");
      }
      if (!IsQuantityName(expr.name)) {
        return Error(where, prefix + "'" + expr.name + "' is not a quantity predicate");
      }
      return;
    case Expr::Kind::kParamPredicate:
      if (!is_param(expr.param)) {
        return Error(where, prefix + "'" + expr.param + "' is not a parameter of " + def.name +
                                " (declare it with params=)");
      }
      if (schema_.FindPredicate(expr.name) == nullptr && schema_.FindAttribute(expr.name) == nullptr) {
        return Error(where, prefix + "unknown predicate '" + expr.name + "' in " + expr.param + "." + expr.name);
      }
      if (!IsQuantityName(expr.name)) {
        return Error(where, prefix + "'" + expr.name + "' is not a quantity predicate");
      }
      return;
    case Expr::Kind::kTableLookup:
      if (schema_.tables_.count(expr.name) == 0) {
        return Error(where, prefix + "unknown table '" + expr.name + "'");
      }
      if (!is_param(expr.param)) {
        return Error(where, prefix + "'" + expr.param + "' in " + expr.name + "(" + expr.param +
                                ") is not a parameter of " + def.name);
      }
      return;
    case Expr::Kind::kBinary:
    case Expr::Kind::kCompare:
      for (const Expr& operand : expr.operands) CheckExpr(operand, def, where);
      return;
  }
}

void SchemaBuilder::CheckReferences() {
  Schema& s = schema_;
  for (size_t i = 0; i < s.dimensions_.size(); ++i) {
    const DimensionDef& d = s.dimensions_[i];
    const Location& at = dimension_locs_[i];
    if (d.canonical_unit != "1") {
      const UnitDef* u = s.FindUnit(d.canonical_unit, d.name);
      if (u == nullptr || u->spelling != d.canonical_unit) {
        Error(at, "dimension " + d.name + ": canonical unit '" + d.canonical_unit + "' is not declared for " +
                      d.name + " (add: unit " + d.canonical_unit + " " + d.name + " 1)");
      } else if (u->factor != 1) {
        Error(at, "dimension " + d.name + ": canonical unit '" + d.canonical_unit + "' must have factor 1");
      }
    }
    if (!UnitInDimension(d.display_unit, d.name)) {
      Error(at, "dimension " + d.name + ": unknown display unit '" + d.display_unit + "' (not a unit of " +
                    d.name + ")");
    }
  }
  for (size_t i = 0; i < s.units_.size(); ++i) {
    if (s.FindDimension(s.units_[i].dimension) == nullptr) {
      Error(unit_locs_[i], "unit " + s.units_[i].spelling + ": unknown dimension '" + s.units_[i].dimension + "'");
    }
  }
  for (const PredicateDef& p : s.predicates_) {
    Location at{p.file, p.line};
    if (p.type == ValueKind::kQuantity) {
      if (s.FindDimension(p.dimension) == nullptr) {
        Error(at, "predicate " + p.name + ": unknown dimension '" + p.dimension + "'");
      } else if (!p.display_unit.empty() && !UnitInDimension(p.display_unit, p.dimension)) {
        Error(at, "predicate " + p.name + ": unknown unit '" + p.display_unit + "' for dimension " + p.dimension);
      }
    }
    for (const std::string& k : p.subject_kinds) {
      if (!KindDeclared(k)) Error(at, "predicate " + p.name + ": unknown kind '" + k + "' in subjects=");
    }
    if (!p.object_kind.empty() && !KindDeclared(p.object_kind)) {
      Error(at, "predicate " + p.name + ": unknown kind '" + p.object_kind + "' in object=");
    }
  }
  for (const auto& [key, kind] : s.qualifier_objects_) {
    if (!KindDeclared(kind)) Error(qualifier_at_.at(key), "qualifier " + key + ": unknown kind '" + kind + "' in object=");
  }
  for (size_t i = 0; i < s.attributes_.size(); ++i) {
    const AttributeDef& a = s.attributes_[i];
    const Location& at = attribute_locs_[i];
    if (s.FindPredicate(a.name) != nullptr) {
      Error(at, "attribute " + a.name + " has the name of a predicate (" + predicate_at_[a.name].ToString() + ")");
    }
    if (s.FindPredicate(a.predicate) == nullptr) {
      Error(at, "attribute " + a.name + ": unknown predicate '" + a.predicate + "'");
      continue;
    }
    for (const auto& [key, value] : a.qualifiers) {
      if (!QualifierDeclared(key)) Error(at, "attribute " + a.name + ": unknown qualifier key '" + key + "'");
    }
    CheckQualifierValues(a.qualifiers, at, "attribute " + a.name);
    for (const std::string& text : attribute_labels_[i]) {
      LabelDef label;
      label.label = text;
      label.predicate = a.name;
      AddLabel(std::move(label), at);
    }
  }
  // A synonym names an attribute users can ask for, is no name of its own,
  // and means one attribute for each kind.
  for (size_t i = 0; i < s.synonyms_.size(); ++i) {
    const SynonymDef& syn = s.synonyms_[i];
    const Location& at = synonym_locs_[i];
    if (s.FindPredicate(syn.word) != nullptr || s.FindAttribute(syn.word) != nullptr ||
        s.FindDerivation(syn.word) != nullptr) {
      Error(at, "synonym " + syn.word + " is already the name of an attribute");
      continue;
    }
    const DerivationDef* d = s.FindDerivation(syn.target);
    if (s.FindPredicate(syn.target) == nullptr && s.FindAttribute(syn.target) == nullptr &&
        (d == nullptr || !d->params.empty())) {
      Error(at, "synonym " + syn.word + ": unknown attribute '" + syn.target + "'");
      continue;
    }
    const std::vector<std::string> kinds = s.SubjectKinds(syn.target);
    for (size_t j = 0; j < i; ++j) {
      const SynonymDef& other = s.synonyms_[j];
      if (other.word != syn.word) continue;
      const std::vector<std::string> other_kinds = s.SubjectKinds(other.target);
      bool overlap = kinds.empty() || other_kinds.empty();
      for (const std::string& k : kinds) {
        overlap = overlap || std::find(other_kinds.begin(), other_kinds.end(), k) != other_kinds.end();
      }
      if (overlap) {
        Error(at, "synonym " + syn.word + " already means " + other.target + " for the same kinds (" +
                      synonym_locs_[j].ToString() + ")");
      }
    }
  }
  for (size_t i = 0; i < s.labels_.size(); ++i) {
    LabelDef& l = s.labels_[i];
    const Location& at = label_locs_[i];
    for (const auto& [key, value] : l.qualifiers) {
      if (!QualifierDeclared(key)) Error(at, "label \"" + l.label + "\": unknown qualifier key '" + key + "'");
    }
    CheckQualifierValues(l.qualifiers, at, "label \"" + l.label + "\"");
    if (s.FindPredicate(l.predicate) != nullptr) continue;
    const AttributeDef* a = s.FindAttribute(l.predicate);
    if (a == nullptr) {
      Error(at, "label \"" + l.label + "\" maps to unknown predicate or attribute '" + l.predicate + "'");
      continue;
    }
    // An attribute is shorthand for its predicate and qualifiers.
    for (const auto& [key, value] : a->qualifiers) {
      auto [it, fresh] = l.qualifiers.emplace(key, value);
      if (!fresh && it->second != value) {
        Error(at, "label \"" + l.label + "\": " + key + "=" + it->second + " contradicts attribute " + a->name +
                      " (" + key + "=" + value + ")");
      }
    }
    l.predicate = a->predicate;
  }
  for (size_t i = 0; i < s.entities_.size(); ++i) {
    const EntityDef& e = s.entities_[i];
    const Location& at = entity_locs_[i];
    if (!KindDeclared(e.kind)) Error(at, "entity " + e.id + ": unknown kind '" + e.kind + "'");
    for (const auto& [key, value] : e.properties) {
      if (s.FindPredicate(key) == nullptr) {
        Error(at, "entity " + e.id + ": unknown option '" + key +
                      "' (entity takes kind=, name=, alias= and predicate=value properties)");
      }
    }
    std::vector<std::string> names = {e.name};
    names.insert(names.end(), e.aliases.begin(), e.aliases.end());
    for (const std::string& n : names) {
      std::string key = NormalizeAlias(n);
      if (key.empty()) {
        Error(at, "entity " + e.id + ": name or alias \"" + n + "\" has no letters or digits");
        continue;
      }
      auto [it, fresh] = s.entity_index_.emplace(key, i);
      if (!fresh && it->second != i) {
        const EntityDef& other = s.entities_[it->second];
        Error(at, "alias \"" + n + "\" of " + e.id + " is already a name or alias of " + other.id + " (" +
                      entity_locs_[it->second].ToString() + ")");
      }
    }
  }
  for (const DerivationDef& d : s.derivations_) {
    Location at{d.file, d.line};
    if (s.FindAttribute(d.name) != nullptr) {
      Error(at, "derive " + d.name + " has the name of an attribute (" + attribute_at_[d.name].ToString() + ")");
    }
    CheckExpr(d.expr, d, at);
    if (!d.result_dimension.empty()) {
      if (s.FindDimension(d.result_dimension) == nullptr) {
        Error(at, "derive " + d.name + ": unknown dimension '" + d.result_dimension + "'");
      } else if (!d.display_unit.empty() && !UnitInDimension(d.display_unit, d.result_dimension)) {
        Error(at, "derive " + d.name + ": unknown unit '" + d.display_unit + "' for dimension " +
                      d.result_dimension);
      }
    }
  }
  for (const ColumnDef& c : s.columns_) {
    Location at{c.file, c.line};
    const std::string what = "column \"" + c.header + "\" of " + c.dataset;
    for (const auto& [key, value] : c.qualifiers) {
      if (!QualifierDeclared(key)) Error(at, what + ": unknown qualifier key '" + key + "'");
    }
    CheckQualifierValues(c.qualifiers, at, what);
    if (c.role != "value") continue;
    const PredicateDef* p = s.FindPredicate(c.predicate);
    if (p == nullptr) {
      Error(at, what + ": unknown predicate '" + c.predicate + "'");
      continue;
    }
    if (p->type != ValueKind::kQuantity) {
      if (!c.unit.empty()) Error(at, what + ": unit= given for " + ValueKindName(p->type) + " predicate " + p->name);
      continue;
    }
    const DimensionDef* dim = s.FindDimension(p->dimension);
    if (dim == nullptr) continue;  // reported with the predicate
    if (c.unit.empty()) {
      if (dim->canonical_unit != "1") {
        Error(at, what + ": unit= needed: cells of " + p->name + " are " + p->dimension + " (e.g. unit=" +
                      dim->canonical_unit + ")");
      }
    } else if (!UnitInDimension(c.unit, p->dimension)) {
      Error(at, what + ": unknown unit '" + c.unit + "' for " + p->name + " (dimension " + p->dimension + ")");
    }
  }
}

Result<Schema> SchemaBuilder::Finish() {
  if (errors_.empty()) CheckReferences();
  if (!errors_.empty()) {
    std::string message;
    size_t shown = std::min(errors_.size(), kMaxReportedErrors);
    for (size_t i = 0; i < shown; ++i) message += (i ? "\n" : "") + errors_[i];
    if (errors_.size() > shown) message += "\n(and " + std::to_string(errors_.size() - shown) + " more errors)";
    return Status::InvalidArgument(message);
  }
  return std::move(schema_);
}

Result<Schema> Schema::LoadTexts(const std::vector<std::pair<std::string, std::string>>& files) {
  try {
    SchemaBuilder builder;
    // Not the files' paths, which differ from one install to another.
    for (const auto& [name, text] : files) builder.AddFile(name, text);
    Result<Schema> schema = builder.Finish();
    if (schema.ok()) schema->fingerprint_ = Sha256Hex(builder.directives_read());
    return schema;
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("loading schema: ") + e.what());
  }
}

Result<Schema> Schema::LoadText(const std::string& text, const std::string& name) {
  return LoadTexts({{name, text}});
}

Result<Schema> Schema::LoadDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::IOError("schema directory " + dir + " does not exist or is not a directory" +
                           (ec ? " (" + ec.message() + ")" : ""));
  }
  std::vector<std::pair<std::string, std::string>> files;  // (relative path for sorting, full path)
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
  if (ec) return Status::IOError("cannot list schema directory " + dir + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IOError("cannot list schema directory " + dir + ": " + ec.message());
    const fs::path& path = it->path();
    if (path.extension() != ".schema" || !it->is_regular_file(ec)) continue;
    // Lexical: the iterator's paths extend `dir`, and resolving links per file costs syscalls.
    files.emplace_back(path.lexically_relative(dir).generic_string(), path.string());
  }
  if (ec) return Status::IOError("cannot list schema directory " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) return Status::NotFound("no *.schema files under " + dir);
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& [relative, full] : files) {
    std::ifstream in(full, std::ios::binary);
    if (!in.is_open()) return Status::IOError("cannot open " + full);
    std::ostringstream whole;
    whole << in.rdbuf();  // in blocks, where an istreambuf_iterator copies a character at a time
    if (in.bad() || whole.bad()) return Status::IOError("cannot read " + full);
    std::string text = std::move(whole).str();
    texts.emplace_back(full, std::move(text));
  }
  return LoadTexts(texts);
}

}  // namespace chipkg
