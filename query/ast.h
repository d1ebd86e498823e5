// The syntax tree of one query, as the parser (query/parser.h) builds it from
// the grammar (query/grammar.h). Names are kept as written: the binder
// (query/binder.h) checks them against the schema and the store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"

namespace chipkg::query {

// Where something was written: byte offset into the query text, and 1-based
// line and column (column counted in characters, so a caret lines up).
struct SourcePos {
  size_t offset = 0;
  int line = 1;
  int column = 1;
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe, kContains };
const char* CompareOpText(CompareOp op);  // "=", "!=", "<", ...

// memory, bf16, peak_throughput{format=fp8, sparsity=dense}
struct AttributeRef {
  std::string name;
  Qualifiers qualifiers;  // as written in braces
  SourcePos pos;
};

// A value written in the query.
struct Literal {
  enum class Kind { kNumber, kDate, kString, kWord, kBool };
  Kind kind = Kind::kWord;
  double number = 0;  // kNumber: as written (not yet in a canonical unit)
  std::string unit;   // kNumber: unit as written, empty if none; "%" for percentages
  std::string text;   // kDate: ISO text; kString: the unescaped text; kWord: the word
  bool boolean = false;
  std::string source;  // the exact text written, for messages
  SourcePos pos;
};

// One argument of a call: positional, or an option written `name value`
// (headroom 15%). A bare word may carry qualifiers (reported(bf16{scope=chip})).
struct Argument {
  std::string option;  // empty for a positional argument
  Literal value;
  Qualifiers qualifiers;  // only for a bare word written with braces
  SourcePos pos;
};

// reported(foundry), fits("Llama 3.1 70B", int4, headroom 15%)
struct Call {
  std::string name;
  std::vector<Argument> args;
  SourcePos pos;
};

struct Comparison {
  AttributeRef attribute;
  CompareOp op = CompareOp::kEq;
  SourcePos op_pos;
  Literal value;
};

struct Condition {
  enum class Kind { kAnd, kOr, kNot, kComparison, kCall };
  Kind kind = Kind::kComparison;
  std::vector<Condition> children;  // kAnd, kOr: two or more; kNot: one
  Comparison comparison;            // kComparison
  Call call;                        // kCall
  SourcePos pos;
};

// An item of `show`, or the member of a lookup (trainium2.memory).
struct Column {
  bool is_call = false;
  AttributeRef attribute;  // !is_call
  Call call;               // is_call
  SourcePos pos;
};

struct OrderKey {
  AttributeRef attribute;
  bool descending = false;
};

// `using vendor`, `prefer site epoch.ai`: a document kind or a site.
struct SourceSelector {
  bool is_site = false;
  std::string name;
  SourcePos pos;
};

// `as at tx 12`, `as at run "2025-01-02-nightly"`, `as at 2025-01-31`.
struct TransactionPoint {
  enum class Kind { kTx, kRun, kTime };
  Kind kind = Kind::kTx;
  uint64_t tx = 0;
  std::string run;
  std::string time;  // ISO date or timestamp as written
  SourcePos pos;
};

enum class StatementKind { kFind, kCount, kLookup, kFacts, kConflicts };

struct Query {
  StatementKind statement = StatementKind::kFind;
  std::string kind;  // find / count; conflicts `in KIND` (empty: every kind)
  SourcePos kind_pos;
  std::string entity;  // lookup, or `about` of facts / conflicts; empty if none
  SourcePos entity_pos;
  std::optional<Column> member;  // lookup: what follows the dot
  std::optional<Condition> where;
  std::string where_text;  // the condition as written, for hints that repeat it

  // Clauses, each at most once (the parser refuses repeats).
  std::vector<Column> show;
  std::vector<OrderKey> order;
  std::optional<AttributeRef> group_by;  // count ... by ATTRIBUTE
  std::optional<uint64_t> limit;
  std::vector<SourceSelector> using_sources;
  std::vector<SourceSelector> prefer;
  std::optional<std::string> document;
  SourcePos document_pos;
  std::optional<std::string> valid_on;  // `as of`: ISO date at its precision
  SourcePos valid_on_pos;
  std::optional<TransactionPoint> as_at;
  std::optional<double> tolerance_percent;
  SourcePos tolerance_pos;
  bool with_evidence = false;             // one row per way the condition is supported
  bool ignoring_not_published = false;    // "not published" claims left out everywhere
};

}  // namespace chipkg::query
