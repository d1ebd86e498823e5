// Bulk import of the peer-benchmark corpus written by tools/bench/gen.py.
//
// The corpus is two JSON Lines files in one directory:
//   sources.jsonl  {source, kind, url, publisher, title, as_of, retrieved}
//   facts.jsonl    {subject, predicate, value, unit, source, excerpt, as_of, status}
// Every field is kept as real store data, written through Store::StartBulk():
//   - each source becomes a Document (id = source, url, kind, site = the URL's host, title =
//     "PUBLISHER: TITLE" so the publisher survives; PublisherOfTitle() reads it back) with one
//     DocumentVersion 1 (as_of, fetched_at = retrieved) whose text is the source's excerpts in file
//     order, each followed by '\n'; every fact's span [begin, end) is its excerpt in that text;
//   - each fact becomes a Fact on the chipkg predicate the schema's `column peer-bench "NAME" ...`
//     lines map the generator predicate to (schema/datasets/bench.schema): numbers become
//     quantities converted through the schema's units (the unit written in the fact), dates dates,
//     organisation names entity references, other strings text; status "not_published" becomes
//     Value::NotPublished; as_of becomes valid_as_of; rule "bench-import";
//   - each subject becomes an Entity (kind chip for "chip:...", llm for "model:..."), named by its
//     first "name" fact; each organisation named by a value becomes an Entity too.
// Bad input (malformed JSON, an unknown field, predicate, unit or source, a bad date) fails the
// whole import with "FILE:LINE: what" and nothing is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"

namespace chipkg {

class Schema;
class Store;
struct PredicateDef;

// The dataset name of the schema's `column` lines for this corpus.
inline constexpr const char* kGeneratedCorpusDataset = "peer-bench";

// One line of facts.jsonl as read. The views point into the reader's buffers and are valid only
// during the callback that receives the record.
struct GeneratedFactRecord {
  enum class ValueType : uint8_t { kNull, kNumber, kString };
  size_t line = 0;  // 1-based
  std::string_view subject, predicate, source, excerpt, as_of, status;
  std::string_view unit;  // empty when the file has null
  ValueType value_type = ValueType::kNull;
  double number = 0;            // kNumber
  std::string_view value_text;  // kString: the decoded string; kNumber: the number as written
};

// One line of sources.jsonl.
struct GeneratedSourceRecord {
  size_t line = 0;
  std::string source, kind, url, publisher, title, as_of, retrieved;
};

// Streams facts.jsonl (or any file of the same shape) through `fn`, line by line, in file order.
// Stops at the first error of the file or of `fn`, which is returned with "PATH:LINE: " in front.
// Every line must be one flat JSON object with exactly the eight fields above.
Status ReadGeneratedFacts(const std::string& path, const std::function<Status(const GeneratedFactRecord&)>& fn);

// Reads all of sources.jsonl. Every line must be one flat JSON object with exactly the seven fields.
Result<std::vector<GeneratedSourceRecord>> ReadGeneratedSources(const std::string& path);

// How one generator predicate is stored, from the schema's column lines.
struct GeneratedPredicate {
  std::string name;                   // generator name: "memory_capacity"
  const PredicateDef* def = nullptr;  // chipkg predicate: memory
  Qualifiers qualifiers;              // fixed qualifiers: {format: fp16}
  std::string unit;                   // unit the column line declares ("" for none)
};
// Every generator predicate the schema maps, in declaration order. The pointers point into
// `schema`. Fails if the schema has no column lines for kGeneratedCorpusDataset, or a line names a
// role other than value.
Result<std::vector<GeneratedPredicate>> GeneratedCorpusPredicates(const Schema& schema);

// The publisher kept in a Document title by the importer ("Intel: Intel Gaudi0 series datasheet"
// -> "Intel"); "" when the title has no "PUBLISHER: " prefix.
std::string_view PublisherOfTitle(std::string_view title);

struct BulkImportOptions {
  std::string run_id;     // "bench-import-<unix seconds>" when empty
  bool pipeline = true;   // parse in a second thread while this one feeds the BulkWriter
  // From this size of facts.jsonl on, the first pass (document texts) reads the file's two
  // halves on two threads. Tests lower it to cover the split on small corpora.
  uint64_t split_first_pass_from = 64ull << 20;
};

struct BulkImportStats {
  uint64_t facts = 0;
  uint64_t not_published = 0;
  uint64_t documents = 0;
  uint64_t entities = 0;
  uint64_t bytes_read = 0;       // of both files, each pass counted
  double seconds = 0;            // whole import, Finish() included
  double first_pass_seconds = 0; // sources and document texts
  int first_pass_threads = 0;    // 2 when facts.jsonl was read as two halves at once
  double finish_seconds = 0;     // BulkWriter::Finish
};

// Imports the corpus in `dir` into `store` through one BulkWriter. Memory is the documents' text
// (about the excerpts' size) plus what the BulkWriter holds; facts are streamed.
Result<BulkImportStats> ImportGeneratedCorpus(Store& store, const Schema& schema, const std::string& dir,
                                              const BulkImportOptions& options = {});
// The same with the schema of Schema::DefaultDirectory().
Result<BulkImportStats> ImportGeneratedCorpus(Store& store, const std::string& dir);

}  // namespace chipkg
