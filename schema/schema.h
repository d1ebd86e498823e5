// Schema: entity kinds, predicates, units, labels, aliases, "not published"
// phrases and derivation rules, loaded from the data files in schema/ at
// start-up. The file format is described in schema/README.md.
//
// Nothing about a particular site or chip is compiled in: a new site needs a
// mapping file, not a rebuild. A broken file is refused with its path, line
// and what is wrong (Status::InvalidArgument).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"

namespace chipkg {

struct UnitDef {
  std::string spelling;   // as written: "GB", "GiB", "TB/s", "TFLOPS", "W", "nm"
  std::string dimension;  // "bytes", "bytes_per_second", "flops", "ops", "watts", "meters", "usd", ...
  double factor = 1;      // canonical = number * factor
};

struct DimensionDef {
  std::string name;            // "bytes"
  std::string canonical_unit;  // "B"
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

// A label as documents write it, mapped to a predicate (or attribute) with
// qualifiers. `site` empty = any site.
struct LabelDef {
  std::string label;      // "Memory bandwidth", "BF16 (dense)", "Fabbed at"
  std::string predicate;
  Qualifiers qualifiers;
  std::string site;
};

struct EntityDef {
  EntityId id;
  std::string kind;
  std::string name;
  std::vector<std::string> aliases;
  std::map<std::string, std::string> properties;  // extra key=value pairs given in the file
};

// A derived attribute or predicate, evaluated by the query layer.
//   derive perf_per_watt  = peak_throughput / tdp           (attribute)
//   derive price_per_chip_hour = instance_price / chips      (attribute)
//   derive fits(model, precision) = model.parameters * bytes_per_parameter(precision) <= memory
struct DerivationDef {
  std::string name;
  std::vector<std::string> params;  // empty for an attribute
  std::string formula;              // as written in the file
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
  int line = 0;
  std::string file;
};

struct QuantityParse {
  double canonical = 0;
  std::string dimension;
  std::string unit;  // spelling found
  size_t consumed = 0;  // bytes of the input used ("2,900 GB/s" -> 10)
};

class Schema {
 public:
  // Loads every *.schema file under `dir` (recursively, in name order). Errors
  // name the file and line.
  static Result<Schema> LoadDirectory(const std::string& dir);
  // Loads from in-memory text (tests); `name` stands for the file name in errors.
  static Result<Schema> LoadText(const std::string& text, const std::string& name);
  // The schema/ directory of a source tree or install: $CHIPKG_SCHEMA_DIR, or the one compiled in.
  static std::string DefaultDirectory();

  const PredicateDef* FindPredicate(const std::string& name) const;
  const AttributeDef* FindAttribute(const std::string& name) const;
  const DimensionDef* FindDimension(const std::string& name) const;
  const UnitDef* FindUnit(const std::string& spelling) const;  // exact spelling, then case-insensitive
  const DerivationDef* FindDerivation(const std::string& name) const;
  // Label lookup for extractors: site-specific first, then generic. Matching
  // ignores case, surrounding space and trailing ':'.
  const LabelDef* FindLabel(const std::string& label, const std::string& site = "") const;
  // Entity by id, name or alias (NormalizeAlias on both sides).
  const EntityDef* ResolveEntity(const std::string& name) const;
  // True if `text` contains a phrase the schema lists as meaning "not published".
  bool SaysNotPublished(const std::string& text) const;

  // "2,900 GB/s", "32 GiB", "3.4 PFLOPS", "$1.34/hr", "500 W": a number with a
  // unit the schema knows. With `dimension` set, only units of that dimension.
  std::optional<QuantityParse> ParseQuantity(const std::string& text, const std::string& dimension = "") const;
  // Converts a canonical number of `dimension` to `unit` (for display).
  std::optional<double> FromCanonical(double canonical, const std::string& unit) const;
  // Formats a canonical quantity in the dimension's display unit: "2900 GB/s".
  std::string FormatQuantity(double canonical, const std::string& dimension,
                             const std::string& unit = "") const;

  const std::vector<PredicateDef>& predicates() const { return predicates_; }
  const std::vector<AttributeDef>& attributes() const { return attributes_; }
  const std::vector<EntityDef>& entities() const { return entities_; }
  const std::vector<DerivationDef>& derivations() const { return derivations_; }
  const std::vector<LabelDef>& labels() const { return labels_; }
  const std::vector<UnitDef>& units() const { return units_; }
  // Column mappings of one dataset, in declaration order (empty if none).
  std::vector<const ColumnDef*> ColumnsOf(const std::string& dataset) const;
  const std::vector<std::string>& entity_kinds() const { return entity_kinds_; }
  const std::vector<std::string>& qualifier_keys() const { return qualifier_keys_; }
  const std::vector<std::string>& not_published_phrases() const { return not_published_; }
  // Named constant tables, e.g. bytes_per_parameter: fp16 -> 2, int8 -> 1, int4 -> 0.5.
  const std::map<std::string, std::map<std::string, double>>& tables() const { return tables_; }

 private:
  std::vector<std::string> entity_kinds_;
  std::vector<std::string> qualifier_keys_;
  std::vector<DimensionDef> dimensions_;
  std::vector<UnitDef> units_;
  std::vector<PredicateDef> predicates_;
  std::vector<AttributeDef> attributes_;
  std::vector<LabelDef> labels_;
  std::vector<EntityDef> entities_;
  std::vector<DerivationDef> derivations_;
  std::vector<ColumnDef> columns_;
  std::vector<std::string> not_published_;
  std::map<std::string, std::map<std::string, double>> tables_;
  std::map<std::string, size_t> entity_index_;  // NormalizeAlias(name) -> entities_ index
};

}  // namespace chipkg
