// Schema: entity kinds, predicates, units, labels, aliases, "not published"
// phrases and derivation rules, loaded from the data files in schema/ at
// start-up. The file format is described in schema/README.md.
//
// Nothing about a particular site or chip is compiled in: a new site needs a
// mapping file, not a rebuild. A broken file is refused with its path, line
// and what is wrong (Status::InvalidArgument).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"

namespace chipkg {

struct UnitDef {
  // A spelling that starts with "$" is written around the number: "$/hr"
  // reads "$1.34/hr", "$ per hour" reads "$9.532 per hour", "$" reads "$100".
  std::string spelling;   // as written: "GB", "GiB", "TB/s", "TFLOPS", "W", "nm"
  std::string dimension;  // "bytes", "bytes_per_second", "flops", "ops", "watts", "meters", "usd", ...
  double factor = 1;      // canonical = number * factor
};

struct DimensionDef {
  std::string name;            // "bytes"
  std::string canonical_unit;  // "B"; "1" for a plain number (count, ratio), which needs no unit declaration
  std::string display_unit;    // default unit to show: "GB"
};

struct PredicateDef {
  std::string name;         // "memory_bandwidth"
  ValueKind type = ValueKind::kText;  // kQuantity, kDate, kEntity, kText, kBool (never kNotPublished)
  std::string dimension;    // kQuantity only
  std::string display_unit; // overrides the dimension's display unit
  std::vector<std::string> subject_kinds;  // entity kinds it applies to
  std::string object_kind;  // kEntity: kind of the referenced entity
  std::string description;
  // values=many: a subject has several values side by side (the regions an
  // instance is offered in), so one claim neither contradicts nor conflicts
  // with another.
  bool many_values = false;
  int line = 0;             // where it is declared, for error messages
  std::string file;
};

// A named view on a predicate with fixed qualifiers, so users and labels can
// say "bf16_dense" for peak_throughput{format=bf16, sparsity=dense}.
struct AttributeDef {
  std::string name;
  std::string predicate;
  Qualifiers qualifiers;
};

// A label as documents write it, mapped to a predicate with qualifiers. A
// label the file maps to an attribute is stored expanded: the attribute's
// predicate, its qualifiers plus the label's own. `site` empty = any site.
struct LabelDef {
  std::string label;      // "Memory bandwidth", "BF16 (dense)", "Fabbed at"
  std::string predicate;  // always a predicate name once loaded
  Qualifiers qualifiers;
  std::string site;       // lower case: a host ("aws.amazon.com") or a page template ("chip-catalog")
};

// Another word for an attribute, as researchers write it: "power" is tdp for
// a chip and power_envelope for a data center. The kinds are the target's.
struct SynonymDef {
  std::string word;    // lower case
  std::string target;  // a predicate, attribute or derivation without parameters
};

struct EntityDef {
  EntityId id;
  std::string kind;
  std::string name;
  std::vector<std::string> aliases;
  std::map<std::string, std::string> properties;  // extra PREDICATE=value pairs given in the file
};

// A parsed derive formula: a small expression tree the query layer evaluates.
//
//   formula  := sum [ ("<=" | "<" | ">=" | ">") sum ]      at most one comparison, at the top
//   sum      := product { ("+" | "-") product }
//   product  := unary { ("*" | "/") unary }
//   unary    := "-" unary | primary
//   primary  := NUMBER | "(" sum ")" | NAME | PARAM "." NAME | TABLE "(" PARAM ")"
//
// "model.parameters * bytes_per_parameter(precision) <= memory" parses to
//   kCompare(<=, kBinary(*, kParamPredicate{param=model, name=parameters},
//                           kTableLookup{name=bytes_per_parameter, param=precision}),
//            kPredicate{name=memory})
// The loader checks every name: a kPredicate names a quantity predicate or an
// attribute (a predicate with fixed qualifiers) of the subject; a
// kParamPredicate names a declared parameter and a quantity predicate of the
// entity passed for it; a kTableLookup names a table and a parameter whose
// argument (a table key such as "int8") selects the entry.
struct Expr {
  enum class Kind : uint8_t {
    kNumber,          // number
    kPredicate,       // name: predicate or attribute of the subject
    kParamPredicate,  // param.name: predicate `name` of the entity passed as `param`
    kTableLookup,     // name(param): entry of table `name` at the key passed as `param`
    kBinary,          // operands[0] op operands[1], op one of + - * /
    kCompare,         // operands[0] op operands[1], op one of < <= > >=; true = 1, false = 0
  };
  enum class Op : uint8_t { kNone, kAdd, kSub, kMul, kDiv, kLess, kLessEqual, kGreater, kGreaterEqual };

  Kind kind = Kind::kNumber;
  Op op = Op::kNone;
  double number = 0;          // kNumber
  std::string name;           // kPredicate, kParamPredicate, kTableLookup
  std::string param;          // kParamPredicate, kTableLookup
  std::vector<Expr> operands; // kBinary, kCompare: exactly two

  // Every operation parenthesised except the comparison at the top, for
  // messages and tests; it parses back to the same tree:
  // "(model.parameters * bytes_per_parameter(precision)) <= memory".
  std::string ToString() const;
};

// Parses a formula (grammar above) without checking names; errors say where
// ("column 12: expected an operand"). Nesting is bounded, so hostile input
// fails cleanly instead of exhausting the stack.
Result<Expr> ParseFormula(const std::string& formula);

// Evaluates `expr` with `leaf` supplying the value of every kPredicate,
// kParamPredicate and kTableLookup node. nullopt if a leaf has no value, or on
// division by zero. Comparisons give 1 or 0.
std::optional<double> EvaluateExpr(const Expr& expr,
                                   const std::function<std::optional<double>(const Expr& leaf)>& leaf);

// A derived attribute or predicate, evaluated by the query layer. Its name
// may equal a predicate's: the predicate holds what pages state (a page's own
// perf-per-watt figure), the derivation what chipkg computes from other claims.
//   derive perf_per_watt  = peak_throughput / tdp           (attribute)
//   derive price_per_chip_hour = instance_price / chips      (attribute)
//   derive fits(model, precision) = model.parameters * bytes_per_parameter(precision) <= memory
struct DerivationDef {
  std::string name;
  std::vector<std::string> params;  // empty for an attribute
  std::string formula;              // as written in the file
  Expr expr;                        // `formula` parsed; names checked at load. kCompare at the top = a predicate
  std::string result_dimension;     // for attributes: dimension of the result, or "ratio"
  std::string display_unit;
  std::string description;
  int line = 0;
  std::string file;
};

// How one column of a structured dataset (CSV/JSON) maps to claims.
//   column epoch-ml-hardware "Memory (bytes)" memory unit=B
//   column epoch-ml-hardware "Tensor-FP16/BF16 performance (FLOP/s)" peak_throughput unit=FLOP/s format=bf16 sparsity=dense
//   column epoch-ml-hardware "Energy efficiency" perf_per_watt unit=op/s/W derived="Max performance / TDP (W)"
//   column epoch-ml-hardware "Hardware name" role=name
//   column epoch-ml-hardware "FP16 ..." peak_throughput unit=FLOP/s format=fp16 tensor=no below="Tensor-FP16/BF16 ..."
// Roles other than "value": name (the row's subject), kind (entity kind of the subject), citation (URLs the
// row cites), price_citation, as_of (the row's as-of date), note (free text kept with every claim of the row).
struct ColumnDef {
  std::string dataset;
  std::string header;
  std::string role = "value";
  std::string predicate;   // role value
  std::string unit;        // spelling of the unit the cells are in (value role, quantities)
  Qualifiers qualifiers;
  std::string derived;     // non-empty: the cell is a figure the dataset derives itself; what from
  // Rows this line makes no claim for: their name matches one of these
  // patterns (`*` any run of characters, case ignored). For what a column
  // states of most rows but not of some: Epoch's one "Tensor-FP16/BF16"
  // figure is not a BF16 figure of a chip that has no BF16.
  std::vector<std::string> except_names;
  // Non-empty: the line makes its claim only when the row's cell under this
  // header holds a larger number (`below=`), or only when it does not
  // (`not_below=`: empty, not a number, or no larger). Two lines of one
  // header can so qualify a figure only where the row itself shows it.
  std::string below;
  bool negate_below = false;
  // Non-empty: the line states something only of rows whose note (the
  // role=note column) matches one of these patterns (`note=`), or only of
  // rows whose note matches none (`not_note=`); patterns as except_names.
  // For a figure the dataset's own note calls its estimate: Epoch's TPU TDPs
  // ("Google does not officially state TPUv4's TDP ... We round to 340 W").
  std::vector<std::string> note_patterns;
  bool negate_note = false;
  // Where note= and not_note= look (`note_in="HEADER"`): that column's cell
  // instead of the role=note column's. Epoch says "No official MSRP" in its
  // price's source cell, not in its notes.
  std::string note_in;
  // Date columns: a cell matching this pattern (as except_names) states only
  // its year; the dataset writes a year it knows no more of as its first day
  // (Epoch's "2020-01-01" for TPU v4i), which read as a day contradicted a
  // page's "May 2020" and answered `released < 2020-03`.
  std::string year_only;
  // role=note: the note's phrases "<this> <column>: <url>" (case ignored)
  // name the source of that column's figure in the row, cited for it in
  // place of the row's citation column: Epoch's "Source for TDP: https://..."
  // (Trainium3's 700 W is SemiAnalysis's, not the AWS page the row links).
  // <column> is the start of a header: "TDP" names "TDP (W)".
  std::string column_sources;
  int line = 0;
  std::string file;
};

struct QuantityParse {
  double canonical = 0;
  std::string dimension;
  std::string unit;     // spelling found ("" for a plain number of a unitless dimension)
  size_t consumed = 0;  // bytes of the input used ("2,900 GB/s" -> 10)
  double number = 0;    // the number as written, before conversion ("2,900" -> 2900)
};

class Schema {
 public:
  // Loads every *.schema file under `dir` (recursively, in path order). A
  // reference may point to a later file: names are checked once all files are
  // read. Errors are "FILE:LINE: message", one per line, the first first.
  static Result<Schema> LoadDirectory(const std::string& dir);
  // Loads from in-memory text (tests); `name` stands for the file name in errors.
  static Result<Schema> LoadText(const std::string& text, const std::string& name);
  // SHA-256 (hex) of the schema's directives (not its comments or spacing), in the order read:
  // which rules a document's claims were read by (ingest tells a document
  // read by other rules, which `--reextract` reads again).
  const std::string& fingerprint() const { return fingerprint_; }
  // Several in-memory files {name, text}, as LoadDirectory reads them (tests).
  static Result<Schema> LoadTexts(const std::vector<std::pair<std::string, std::string>>& files);
  // The schema/ directory of a source tree or install: $CHIPKG_SCHEMA_DIR, or the one compiled in.
  static std::string DefaultDirectory();

  const PredicateDef* FindPredicate(const std::string& name) const;
  const AttributeDef* FindAttribute(const std::string& name) const;
  const DimensionDef* FindDimension(const std::string& name) const;
  // Exact spelling, then in another case where case does not change the
  // unit ("gb" is GB, "Gb" is not: text_util.h SameUnitSpelling) and all the
  // units so written agree ("gbps" is Gbps or GBps: none). An exact spelling
  // two dimensions share ("B": bytes, billions of parameters) gives the first
  // declared.
  const UnitDef* FindUnit(const std::string& spelling) const;
  // The unit of `dimension` with that spelling, likewise; "" is any dimension.
  const UnitDef* FindUnit(const std::string& spelling, const std::string& dimension) const;
  const DerivationDef* FindDerivation(const std::string& name) const;
  // The qualifier a page's own statement of a derived test carries for one
  // of the rule's parameters (fits(model, precision): a fit mark says
  // model=... and format=...): the parameter's own name if it is a
  // qualifier key, format for precision.
  std::string QualifierOfParameter(const std::string& param) const;
  // What `word` (any case) is another word for when said of `kind`: the
  // targets of its synonyms that apply to that kind (any kind when empty).
  // Several only when `kind` is empty and the word means different
  // attributes for different kinds.
  std::vector<const SynonymDef*> FindSynonyms(const std::string& word, const std::string& kind) const;
  // The kinds an attribute, predicate or derivation name applies to (empty: any).
  std::vector<std::string> SubjectKinds(const std::string& name) const;
  // Label lookup for extractors: labels of `site` first (then of its parent
  // domains: "docs.aws.amazon.com" also finds site=aws.amazon.com and
  // site=amazon.com), then generic ones. `site` may also name a page
  // template ("chip-catalog"). Matching ignores case and surrounding space,
  // drops a trailing ':' or '?' and collapses inner space.
  const LabelDef* FindLabel(const std::string& label, const std::string& site = "") const;
  // A label folded as FindLabel matches it ("  Memory   Bandwidth: " ->
  // "memory bandwidth"): for extractors that index labels by it themselves.
  static std::string NormalizeLabel(std::string_view label);
  // Entity by id, name or alias (NormalizeAlias on both sides).
  const EntityDef* ResolveEntity(const std::string& name) const;
  // True if `text` contains a phrase the schema lists as meaning "not
  // published", ignoring case, runs of space and curly versus straight quotes.
  bool SaysNotPublished(const std::string& text) const;

  // "2,900 GB/s", "32 GiB", "3.4 PFLOPS", "$1.34/hr", "$0.596 per chip-hour",
  // "5nm", "1T", "9.8e12 byte/s", "~500 W", "up to 16 GB": a number at the
  // start of `text` (after space, "~", "≈", "about", "up to") with a unit the
  // schema knows. The longest spelling that is not followed by a letter, a
  // digit or '/' wins ("GB/s" over "GB"; "W/cm2" is refused, not read as W); case must match unless only one reading is possible
  // ("tflops" is TFLOPS, "gb/s" is refused: GB/s or Gb/s). With `dimension`
  // set, only units of that dimension, and a dimension whose canonical unit
  // is "1" takes a plain number. Without it, a spelling two dimensions share
  // resolves to the first declared ("70 B" is bytes; pass "parameters").
  std::optional<QuantityParse> ParseQuantity(const std::string& text, const std::string& dimension = "") const;
  // Converts a canonical number to `unit` (for display). `dimension` picks
  // between dimensions sharing a spelling; empty = the first declared.
  std::optional<double> FromCanonical(double canonical, const std::string& unit,
                                      const std::string& dimension = "") const;
  // Formats a canonical quantity in `unit` (a unit of `dimension`), or in the
  // dimension's display unit: "2900 GB/s", "34.36 GB", "0.596 USD/h". Four
  // significant digits, but never fewer than the integer digits (2900, not
  // 2.9e3), trailing zeros dropped; scientific beyond 1e15 or below 1e-4.
  // A figure whose `qualifiers` name an integer format (int8, int4, ...), or
  // format=max (a dataset's fastest format, integer or not), counts
  // operations, not floating-point ones: a FLOP unit is shown as its OP unit
  // when the schema has one ("1979 TOPS", not "1979 TFLOPS").
  std::string FormatQuantity(double canonical, const std::string& dimension, const std::string& unit = "",
                             const Qualifiers* qualifiers = nullptr) const;
  // Whether a figure of this format counts operations rather than
  // floating-point ones: integer formats and "max" (see FormatQuantity).
  static bool CountsOperations(std::string_view format);
  // A figure a program wrote in the canonical unit (a dataset's
  // "8589934592.0" bytes), formatted as FormatQuantity does, except that a
  // whole number of a unit beside the display unit (within a factor of two:
  // GiB beside GB) that is no whole number of the display unit is shown in
  // that unit: "8 GiB", where "8.59 GB" hid that the maker counted in GiB.
  std::string FormatWrittenFigure(double canonical, const std::string& dimension, const std::string& unit = "",
                                  const Qualifiers* qualifiers = nullptr) const;

  const std::vector<PredicateDef>& predicates() const { return predicates_; }
  const std::vector<AttributeDef>& attributes() const { return attributes_; }
  const std::vector<EntityDef>& entities() const { return entities_; }
  const std::vector<DerivationDef>& derivations() const { return derivations_; }
  const std::vector<SynonymDef>& synonyms() const { return synonyms_; }
  const std::vector<LabelDef>& labels() const { return labels_; }
  const std::vector<UnitDef>& units() const { return units_; }
  const std::vector<DimensionDef>& dimensions() const { return dimensions_; }
  // Column mappings of one dataset, in declaration order (empty if none).
  std::vector<const ColumnDef*> ColumnsOf(const std::string& dataset) const;
  // The rule a dataset's facts record in provenance.rule ("dataset:NAME"),
  // and back: the dataset a fact was read from, empty for a page's fact.
  static std::string DatasetRule(const std::string& dataset);
  static std::string DatasetOfRule(const std::string& rule);
  const std::vector<std::string>& entity_kinds() const { return entity_kinds_; }
  const std::vector<std::string>& qualifier_keys() const { return qualifier_keys_; }
  // The values a qualifier key takes when the schema closes it (`qualifier
  // format values=fp16,bf16,...`), in declaration order; null when any value
  // goes (region, instance, ...).
  const std::vector<std::string>* QualifierValues(const std::string& key) const {
    auto it = qualifier_values_.find(key);
    return it == qualifier_values_.end() ? nullptr : &it->second;
  }
  // The entity kind a qualifier's values name (`qualifier model object=llm`:
  // its values are entity ids, which a query may write as names); null when
  // its values are words.
  const std::string* QualifierObjectKind(const std::string& key) const {
    auto it = qualifier_objects_.find(key);
    return it == qualifier_objects_.end() ? nullptr : &it->second;
  }
  const std::vector<std::string>& not_published_phrases() const { return not_published_; }
  // Named constant tables, e.g. bytes_per_parameter: fp16 -> 2, int8 -> 1, int4 -> 0.5.
  const std::map<std::string, std::map<std::string, double>>& tables() const { return tables_; }

 private:
  friend class SchemaBuilder;  // schema/loader.cpp: fills and checks everything below

  std::vector<std::string> entity_kinds_;
  std::vector<std::string> qualifier_keys_;
  std::map<std::string, std::vector<std::string>> qualifier_values_;  // closed keys only
  std::string fingerprint_;
  std::map<std::string, std::string> qualifier_objects_;               // keys whose values are entities
  std::vector<DimensionDef> dimensions_;
  std::vector<UnitDef> units_;
  std::vector<PredicateDef> predicates_;
  std::vector<AttributeDef> attributes_;
  std::vector<LabelDef> labels_;
  std::vector<EntityDef> entities_;
  std::vector<DerivationDef> derivations_;
  std::vector<SynonymDef> synonyms_;
  std::vector<ColumnDef> columns_;
  std::vector<std::string> not_published_;
  std::map<std::string, std::map<std::string, double>> tables_;
  std::map<std::string, size_t> entity_index_;  // NormalizeAlias(name) -> entities_ index
  // Lookup indexes into the vectors above (indexes, not pointers, so a copied
  // or moved Schema stays valid).
  // Hashed: a query looks up a predicate or attribute for every claim it
  // makes (Q4 of the peer benchmark: ~5% of its time in the ordered maps'
  // string comparisons).
  std::unordered_map<std::string, size_t> entity_id_index_;  // exact id -> entities_
  std::unordered_map<std::string, size_t> predicate_index_;
  std::unordered_map<std::string, size_t> attribute_index_;
  std::unordered_map<std::string, size_t> dimension_index_;
  std::unordered_map<std::string, size_t> derivation_index_;
  std::map<std::string, std::vector<size_t>> unit_index_;        // spelling -> units_, declaration order
  std::map<std::string, std::vector<size_t>> unit_folded_index_; // lower-case spelling -> units_
  std::map<std::pair<std::string, std::string>, size_t> label_index_;  // (site, normalised label) -> labels_
  std::vector<std::string> not_published_folded_;                      // phrases, folded for matching
};

}  // namespace chipkg
