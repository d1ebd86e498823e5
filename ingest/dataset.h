// Structured datasets (CSV) as sources: one row is one entity, one cell one
// claim, mapped by the `column` lines of a dataset in schema/ (ColumnDef).
//
// Every claim carries the cell it came from: provenance.row (1-based data row)
// and column (the header), the cell's byte span in the file with the exact
// cell text as excerpt (text.substr(span) == excerpt), section = the row's
// name, the row's cited URLs, its note and its as-of date. An empty cell is no
// claim: unknown, never zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "ingest/extract.h"
#include "ingest/resolve.h"

namespace chipkg {

class Schema;

// One data row and the entity it became.
struct DatasetRow {
  int64_t row = 0;        // 1-based data row (the header is row 0)
  size_t line = 0;        // line of the file the row starts on
  std::string name;       // the name cell as written
  Resolution resolution;  // the row's subject
  size_t facts = 0;       // claims read from the row
};

// A non-empty cell that made no claim, and why (unparseable number, unknown
// date, a derived 0 that means "not computed").
struct SkippedCell {
  int64_t row = 0;
  std::string column;
  std::string text;
  std::string reason;
};

struct DatasetExtraction {
  std::vector<Fact> facts;                    // ids, document_version, tx and run_id are left to the store
  std::vector<DatasetRow> rows;               // every data row, in file order
  std::vector<SkippedCell> skipped;
  std::vector<std::string> unmapped_columns;  // headers no `column` line names (not read)
  std::vector<std::string> warnings;          // e.g. two rows resolving to one entity
  std::optional<Date> newest_as_of;           // latest as-of date of any row: the version's own date
  double seconds = 0;                         // wall time of the extraction
};

// Reads `text` (a CSV file) as dataset `dataset` (the name used by `column`
// lines, e.g. "epoch-ml-hardware") of document `document_id`.
//
// Columns by role: name (required) gives the row's subject, resolved with
// `resolver` as the kind given by a `kind` column or else "chip" (the row names
// are declared distinct first, so no two rows merge by normalisation); citation
// and price_citation cells are split into URLs at newlines, ';' and spaces
// (non-URL text of a price_citation cell becomes the price claims'
// attribution); price claims (predicate launch_price) cite the price URLs when
// the row gives any, else the row's citations; note is kept verbatim on every
// claim of the row; as_of gives valid_as_of (its leading date, day precision).
// Value columns by predicate type: quantity cells are plain numbers in the
// column's unit (converted to the canonical unit; original keeps the cell and
// the unit); date cells are ISO dates; entity cells are lists separated by ','
// or ';' with a trailing parenthesised remark dropped, each item its own claim
// with its own span; text cells are kept with runs of white space collapsed.
// A cell the schema says means "not published" is a NotPublished claim. A
// derived column (ColumnDef::derived) gives kStatedDerived claims with the
// derivation as formula; a derived 0 is read as "not computed".
//
// Errors (InvalidArgument, nothing returned): malformed CSV (with its line), no
// `column` lines for `dataset`, a mapped header missing from the file, no name
// column, a mapped predicate or unit the schema does not know, a file over
// 4 GiB. Cells that cannot be read are skipped and listed, never guessed.
// A file whose rows state more than `max_facts` facts is refused
// (TooManyFacts, ingest/extract.h) at the row that passes it.
Result<DatasetExtraction> ExtractDataset(const std::string& text, const std::string& dataset,
                                         const std::string& document_id, const Schema& schema,
                                         EntityResolver& resolver, size_t max_facts = kDefaultMaxFactsPerDocument);

}  // namespace chipkg
