// What a query answers: rows of cells, each value with the claims behind it,
// how each row is supported, and the numbered citations. Renderers
// (query/query.h Render) turn it into text, JSON or CSV.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "query/ast.h"

namespace chipkg::query {

// How something is supported, provenance-semiring style: a claim (one stored
// fact), inputs that are all needed ("and"), or alternatives that each
// suffice ("or"). kTrue needs no claim at all (unknown(x) holds because no
// source says anything). "[1] and ([2] or [3])".
struct Support {
  enum class Op : uint8_t { kTrue, kFact, kAnd, kOr };
  // (Members ordered for size: an answer holds hundreds of thousands.)
  uint64_t fact_id = 0;       // kFact
  int citation = 0;           // kFact: footnote number once citations are resolved; 0 before
  Op op = Op::kTrue;
  std::vector<Support> args;  // kAnd, kOr

  static Support True() { return Support(); }
  static Support Fact(uint64_t fact_id);
  // Normalised as they are built: and(a, and(b, c)) is and(a, b, c); a
  // repeated claim counts once; a kTrue operand is dropped from "and" and makes
  // "or" kTrue; a single operand is itself; an empty list is kTrue. "or" also
  // factors out claims every alternative needs: (a and b) or (a and c) is
  // a and (b or c), and (a) or (a and b) is a.
  static Support And(std::vector<Support> args);
  static Support Or(std::vector<Support> args);

  bool IsTrue() const { return op == Op::kTrue; }
  // "[1] and ([2] or [3])"; a fact without a citation number shows as "#<fact id>"; kTrue as "(no source needed)".
  std::string ToString() const;
  // Every fact id, in order of first appearance.
  std::vector<uint64_t> Facts() const;
  // The ways it can hold: disjunctive normal form, each a set of fact ids that
  // together suffice (sorted, duplicates removed), at most `max_witnesses`
  // (the rest are dropped and `truncated` set).
  std::vector<std::vector<uint64_t>> Witnesses(size_t max_witnesses, bool* truncated) const;
};

// Where in its document a claim was read: the stored provenance record as a
// citation shows it.
struct Passage {
  std::string section;
  std::string excerpt;
  std::string attribution;         // the page's own words for where the figure comes from
  std::vector<std::string> cited;  // what the page cites for the claim
  int64_t row = -1;                // dataset row, -1 for pages
  std::string column;
  std::string formula;  // a figure the page computed itself: what from
};

// True when what the page cites is only the markers its attribution already
// names ("citation 4" for a bare "4" the page resolves to no source): a
// footnote that printed both said one thing twice.
bool CitedAsAttributed(const std::string& attribution, const std::vector<std::string>& cited);

// One numbered footnote: where a claim was read. Its source (document,
// version, title, URL, fetch time, as-of) is always there; where in the
// document (the Passage) is read with it unless the query was run with
// QueryOptions::read_excerpts false, and then by ReadExcerpts (query/query.h)
// when something wants it.
struct Citation {
  int number = 0;
  uint32_t version = 0;  // of the document
  uint64_t fact_id = 0;
  EntityId subject;
  std::string predicate;
  std::string claim;  // the value as the source wrote it, with qualifiers: "3.4 PFLOPS {format=bf16, scope=server, chips=16}"
  std::string document_id;
  // Title, URL or path as ingested, site, kind (vendor, press, ...): one
  // record shared by every citation of the document (an answer cites each
  // of its documents dozens of times). Set for every citation of an answer;
  // a document the store does not hold has only its id.
  std::shared_ptr<const Document> document;
  int64_t fetched_at = 0;  // Unix seconds, from the DocumentVersion
  // Where the cited version's record (its content hash and own as-of date:
  // exactly which text the answer cites) is in QueryResult::cited_versions;
  // QueryResult::VersionOf reads it. An index, not a pointer of its own: an
  // answer holds hundreds of thousands of citations of a few thousand
  // versions, and one more shared pointer each is a reference count taken
  // and dropped per citation, on two threads at once. -1: none.
  int32_t version_record = -1;
  std::optional<Date> valid_as_of;
  // Null until read. Apart from the citation rather than in it: an answer
  // read without excerpts holds hundreds of thousands of citations, and
  // their empty passage fields were half of each one's memory (Q5 at
  // N=100,000: 578,000 citations).
  std::shared_ptr<const Passage> passage;

  bool excerpt_read() const { return passage != nullptr; }
};

// A value shown in a cell: one value and every claim that states it (claims
// that agree are one value with several citations), or a value chipkg
// computed from other claims by a schema `derive` rule.
struct ShownValue {
  enum class Kind : uint8_t { kValue, kNotPublished, kUnknown, kText };
  Kind kind = Kind::kValue;
  bool computed = false;  // derived by a schema rule
  bool disputed = false;  // another value of the same cell disagrees with it
  std::string text;       // "2,900 GB/s", "not published", "— (no source)", "212.5 TFLOPS per chip (3.4 PFLOPS / 16 chips)"
  Support support;        // the claims behind it (kTrue for kUnknown and kText)
  // What the value is, for kValue and kNotPublished; null for kUnknown and
  // kText. Apart from the value and shared: a conflicts answer shows each
  // claim in every pair it is in, and an answer's text values (evidence,
  // attribute names) have none; with them inline a value was 280 bytes, and
  // Q5 of the peer benchmark shows 1.3 million.
  struct Content {
    Value value;            // kValue: the content (per chip for quantities), kNotPublished: the marker
    Qualifiers qualifiers;  // what the value is about (format=fp8, ...), after scope normalisation
    std::string formula;    // computed: "1,300 TFLOPS / 500 W"
  };
  std::shared_ptr<const Content> content;

  // The content's fields, empty ones where there is none.
  const Value& value() const { return (content != nullptr ? *content : NoContent()).value; }
  const Qualifiers& qualifiers() const { return (content != nullptr ? *content : NoContent()).qualifiers; }
  const std::string& formula() const { return (content != nullptr ? *content : NoContent()).formula; }

 private:
  static const Content& NoContent() {
    static const Content none;
    return none;
  }
};

struct Cell {
  std::string column;
  enum class State : uint8_t { kReported, kNotPublished, kUnknown, kConflict, kText };
  State state = State::kUnknown;
  std::vector<ShownValue> values;
  std::string conflict;  // kConflict: "32 GB vs 32 GiB (7.4%)"
};
const char* CellStateName(Cell::State state);  // "reported", "not_published", "unknown", "conflict", "text"

// Why a row matched: one entry per test of the condition that holds for it,
// with the claims that support it and those that contradict it.
struct Reason {
  std::string test;  // "memory >= 64 GB", "fits(Llama 3.1 70B, int8)"
  struct Evidence {
    std::string text;  // "96 GB", "70 B x 1 = 70 GB <= 96 GB"
    Support support;
  };
  std::vector<Evidence> supporting;
  std::vector<Evidence> contradicting;  // claims under which the test fails
  // Claims that leave the test open ("2023" against `>= 2023-11-15`): they
  // neither support nor contradict it. Listed as contradicting, they read as
  // a conflict that no source had.
  std::vector<Evidence> undecided;
};

struct Row {
  EntityId entity;  // count ... by an entity-valued attribute: the group's entity
  std::string name;
  std::vector<Cell> cells;  // one per QueryResult::columns entry, in order
  Support support;          // how the condition holds (kTrue without a condition)
  std::vector<Reason> reasons;
  // count ... by: what the group is, for scripts (its name is display text:
  // "— (no source)", "500 W"): kValue with the value (a quantity in its
  // canonical unit, a date at year precision, an entity id) and the
  // qualifiers that are part of the group, kNotPublished, or kUnknown for
  // entities no source gives a value.
  std::optional<ShownValue> group;
};

// Where an answer's time went: one entry per step of its evaluation, in
// order ("parse and bind", "candidates", "evaluate" or "evaluate on two
// threads" (which expands `with evidence` rows too), "expand", "read",
// "compare", "citations", "release"; which ones depends on the statement).
struct Phase {
  std::string name;
  double ms = 0;
};

struct QueryResult {
  std::string query;  // the text as given
  StatementKind statement = StatementKind::kFind;
  std::string kind;                  // entity kind of the rows (find, count)
  std::vector<std::string> columns;  // after the entity name column
  std::vector<Row> rows;
  std::optional<uint64_t> count;     // count statements
  std::string group_by;              // count ... by ATTRIBUTE: the attribute (a row per value)
  size_t groups = 0;                 // count ... by: how many values (a row each, up to the limit)
  std::vector<Citation> citations;   // numbered 1..n in order of first use in the resolved rows
  // The document versions the citations cite, each once, without their
  // texts; null for one the store does not hold (Citation::version_record).
  std::vector<std::shared_ptr<const DocumentVersion>> cited_versions;
  size_t cited_rows = 0;             // rows whose support carries citation numbers
  std::string plan;                  // how the rows were found: "index range scan memory >= 6.4e+10"
  std::vector<std::string> notes;    // source policy, times, entities left undetermined, truncations
  double elapsed_ms = 0;             // the whole of RunQuery
  std::vector<Phase> phases;         // its steps (CHIPKG_TIMINGS, chipkg-query-loop)

  // The version record a citation of this answer cites; null when none.
  const DocumentVersion* VersionOf(const Citation& c) const {
    if (c.version_record < 0 || static_cast<size_t>(c.version_record) >= cited_versions.size()) return nullptr;
    return cited_versions[static_cast<size_t>(c.version_record)].get();
  }
};

}  // namespace chipkg::query
