// Running a query of the chipkg query language (query/README.md; syntax in
// query/grammar.h) against a store, and rendering its answer.
//
//   Result<QueryResult> r = RunQuery(store, schema, "find chip where memory >= 64 GB");
//   if (!r.ok()) { print r.status().message(); }   // line, column, caret, suggestions
//   std::cout << Render(*r, Format::kText);
//
// The store is only read, through engine/store.h. A query never crashes and
// never throws: a malformed or meaningless query is Status::InvalidArgument
// with the position and what was expected; a store failure is returned as is,
// with the query step as context.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>

#include "engine/status.h"
#include "engine/store.h"
#include "query/result.h"
#include "schema/schema.h"

namespace chipkg::query {

struct QueryOptions {
  // Citations (document, section, excerpt, fetch time) are read only for the
  // first `cite_rows` rows: scripts that want counts or ids of a huge answer
  // do not pay for provenance they will not print. Rows past it keep their
  // values and supports with fact ids ("#1234") instead of numbers.
  size_t cite_rows = std::numeric_limits<size_t>::max();
  // With false, citations carry their source (document, version, title, URL,
  // fetch time, as-of) but not where in the document the claim sits (section,
  // excerpt, attribution): reading those records is a third of a large
  // answer's time and most of its memory. ReadExcerpts reads them later, for
  // the citations that are shown.
  bool read_excerpts = true;
  // Relative difference of two quantities beyond which sources disagree,
  // unless the query says `tolerance P%`. The same default as `chipkg conflicts`.
  double tolerance = 0.01;
  // Most rows a `with evidence` expansion makes from one entity.
  size_t max_witnesses_per_row = 10000;
  // A find or count over at least this many candidates is evaluated on two
  // threads, half the candidates each (not when ordered, limited or counted
  // by attribute). The answer is the same either way; SIZE_MAX keeps it on one.
  size_t evaluate_in_two_from = 4096;
  // An answer of at least this many cited rows numbers its citations in two
  // halves at once. The numbers are the same either way; SIZE_MAX keeps it on one.
  size_t number_in_two_from = 8192;
  // A find that picks its candidates by a range of one attribute reads only
  // the claims in that range where the others cannot change its answer
  // (query/README.md, "How queries run"). The answer is the same either way;
  // false reads every claim of the attribute.
  bool claims_in_range_alone = true;
  // The line of a larger input (a script) on which the text begins: error
  // positions ("line 3, column 10") count from it.
  int first_line = 1;
};

Result<QueryResult> RunQuery(const Store& store, const Schema& schema, std::string_view text,
                             const QueryOptions& options = {});

// Reads where in its document each of result.citations[begin, end) sits
// (Citation::passage null before; set after). For an answer run with
// QueryOptions::read_excerpts false: a caller that shows one page of a large
// answer reads that page's. The store must be the one the query ran on.
Status ReadExcerpts(const Store& store, QueryResult& result, size_t begin = 0,
                    size_t end = std::numeric_limits<size_t>::max());

// A point in transaction time, as `as at` reads it in a query: the
// transaction it names and a note saying so ("as at run nightly (tx 41)").
struct AsAtPoint {
  TxId tx = 0;
  std::string note;
};
// WHEN: "tx N", "run RUN-ID", a date (the end of that UTC day) or a
// timestamp (2025-01-31T12:00:00Z). InvalidArgument says what in it matches
// nothing (a run that never ran, with the nearest names; a time before the
// first transaction).
Result<AsAtPoint> ResolveAsAt(const Store& store, const TransactionPoint& when);
Result<AsAtPoint> ResolveAsAt(const Store& store, const std::string& when);

enum class Format { kText, kJson, kCsv };
// "text", "json", "csv"; InvalidArgument naming the choices otherwise.
Result<Format> ParseFormat(const std::string& name);

// Text: an aligned table, values with [n] citations, flags for conflicts and
// "not published", why each row matched, then the numbered footnotes.
// JSON: one object with the same content, supports as nested {"and": [...]},
// {"or": [...]}, {"cite": n, "fact": id}. CSV: one line per row, column, value
// and citation, each line carrying the citation's document, section and excerpt.
std::string Render(const QueryResult& result, Format format);
// The same, written to `out` as it is produced, a MiB at a time: a large
// answer's text is never held whole (one-shot `chipkg query` prints this way).
void Render(const QueryResult& result, Format format, std::ostream& out);

}  // namespace chipkg::query
