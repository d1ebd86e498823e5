// The binder: checks a parsed query against the schema and the store and
// resolves every name — kinds, attributes (predicates, named attribute views,
// derive rules), units, entities, documents, ingest runs — into what the
// evaluator needs. Unknown names are errors at their position with the
// nearest known names suggested. Internal to the query module.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "engine/store.h"
#include "query/ast.h"
#include "query/compare.h"
#include "query/query.h"
#include "schema/schema.h"

namespace chipkg::query {

// An attribute as a query means it: the claims a predicate states, narrowed by
// fixed qualifiers, and/or the values a schema `derive` rule computes.
// perf_per_watt is both (pages state it; chipkg computes it from throughput
// and TDP); bf16 is peak_throughput{format=bf16, sparsity=dense}.
struct BoundAttribute {
  std::string label;  // for headers and messages: "memory", "bf16", "peak_throughput{format=fp8}"
  const PredicateDef* predicate = nullptr;    // stated claims; null for a purely derived attribute
  const DerivationDef* derivation = nullptr;  // computed claims (derive rules without parameters)
  Qualifiers filter;  // a claim matches if it has each of these or does not say (see query/README.md)
  ValueKind type = ValueKind::kText;
  std::string dimension;     // quantities
  std::string display_unit;  // quantities: the unit values are shown in when computed
  // `name` in a condition: the entity's own name and aliases, no claim
  // (`find chip where name contains "H100"`).
  bool entity_name = false;
  SourcePos pos;
};

// The right-hand side of a comparison, in the attribute's terms.
struct BoundValue {
  ValueKind kind = ValueKind::kText;
  double number = 0;  // kQuantity: canonical unit; kBool: 0/1
  std::string dimension;
  Date date;  // kDate, at the precision written
  EntityId entity;
  std::string text;    // kText; kEntity: the entity's name
  std::string source;  // as written: "64 GB"
  // Written in a FLOP unit ("2 TFLOPS/W") of an attribute of any format:
  // only floating-point figures are compared, not integer or "max" ones,
  // which answers show in TOPS (Schema::CountsOperations).
  bool floating_point_only = false;
};

// A test written as a call: a built-in presence test on one attribute, or a
// derived predicate of the schema (fits(model, precision)).
struct BoundCall {
  enum class Builtin : uint8_t { kNone, kReported, kNotPublished, kUnknown, kConflicting };
  Builtin builtin = Builtin::kNone;
  BoundAttribute attribute;                  // built-ins
  const DerivationDef* derivation = nullptr; // derived predicates
  std::map<std::string, EntityId> entity_args;     // parameter -> entity (model -> llm:llama-3.1-70b)
  std::map<std::string, std::string> entity_names; // parameter -> display name
  std::map<std::string, std::string> table_args;   // parameter -> table key (precision -> int8)
  double headroom = 0;  // fraction added to what must fit: headroom 15% -> 0.15
  std::string label;    // "fits(Llama 3.1 70B, int8)"
  // Pages' own statements of the test with these arguments (a fit table's
  // mark: predicate fits, model=..., format=...), where a predicate shares
  // the rule's name: a shown column gives them beside the computed answer.
  std::optional<BoundAttribute> stated;
  SourcePos pos;
};

struct BoundCondition {
  Condition::Kind kind = Condition::Kind::kComparison;
  std::vector<BoundCondition> children;
  BoundAttribute attribute;  // comparison
  CompareOp op = CompareOp::kEq;
  BoundValue value;
  BoundCall call;     // kCall
  std::string label;  // "memory >= 64 GB"
  // kComparison: further comparisons of the same attribute that an "and"
  // joined to this one ("memory >= 33 GB and memory <= 34 GB"). One claim
  // must meet them all: two sources giving 32 GB and 32 GiB (34.4 GB) do not
  // make a chip whose memory lies between. `label` then names them all.
  std::vector<BoundCondition> same_claim;
};

struct BoundColumn {
  bool is_call = false;
  BoundAttribute attribute;
  BoundCall call;
  std::string label;
};

struct BoundOrder {
  bool by_name = false;
  BoundAttribute attribute;
  bool descending = false;
};

// Which claims count. A claim is kept if its document matches one of `only`
// (kind or site; empty = all), it comes from `document` when that is set, and
// it is not a "not published" marker when those are ignored. Then, per
// subject and attribute and qualifier set, only the claims of the
// best-ranked source of `prefer` are kept.
struct SourcePolicy {
  std::vector<SourceSelector> only;
  std::vector<SourceSelector> prefer;
  std::optional<std::string> document;  // resolved document id
  bool ignore_not_published = false;
  bool empty() const { return only.empty() && prefer.empty() && !document && !ignore_not_published; }
};

// Whether a document is one `selector` names: its kind, or its site or a
// subdomain of it (case-insensitive; `selector.name` lower-cased).
bool SelectsDocument(const SourceSelector& selector, const Document& document);

struct BoundQuery {
  StatementKind statement = StatementKind::kFind;
  std::string kind;               // find, count; conflicts `in` (empty = all)
  std::optional<Entity> entity;   // lookup, `about`
  std::optional<BoundColumn> member;
  std::optional<BoundCondition> where;
  std::string where_text;            // as written (Query::where_text)
  std::vector<BoundColumn> columns;  // shown: `show`, or by default what the condition names
  bool show_given = false;
  std::vector<BoundOrder> order;
  std::optional<BoundColumn> group_by;  // count ... by ATTRIBUTE
  std::optional<uint64_t> limit;
  SourcePolicy policy;
  ReadView view;
  factcheck::CompareOptions compare;
  bool with_evidence = false;
  std::vector<std::string> notes;  // the source policy and times in words
};

// `text` is the query text (for error carets).
Result<BoundQuery> Bind(const Query& query, std::string_view text, const Store& store, const Schema& schema,
                        const QueryOptions& options);

// Finds an entity by id, name or alias (the store's index, then the schema),
// then by part of its name (ResolveByNameWords); `kind` non-empty prefers and
// requires that kind. NotFound names the nearest names. Shared with the
// evaluator.
// `short_name_note`, when given, is set to "'MI300X' read as AMD Instinct
// MI300X" when the name was read the short way, for the answer's notes.
Result<Entity> ResolveEntityName(const Store& store, const Schema& schema, const std::string& name,
                                 const std::string& kind, std::string* short_name_note = nullptr);

// An entity named the short way: "MI300X", "TPU v5p", "Gaudi 2". `name`'s
// letters and digits (spaces and punctuation between them ignored) are the
// last whole words of the name or an alias of exactly one entity (of `kind`
// when given; a parenthesised part of a name aside): "TPU v5p" is "Google
// TPU v5p"), and no other entity's name holds them. nullopt when no name
// even contains them as whole words; NotFound naming the entities that hold
// them otherwise ("H100" is in three chips' names, "Rubin" only in "NVIDIA
// Rubin CPX"). Shared with describe and trace.
Result<std::optional<Entity>> ResolveByNameWords(const Store& store, const Schema& schema, const std::string& name,
                                                 const std::string& kind);

}  // namespace chipkg::query
