// Store: the sourced, dated fact store on RocksDB.
//
// One process writes (Store::Open); any number read at the same time as
// readers (Store::OpenReader, RocksDB read-only instances) that call
// CatchUp() before each query. Key layout and format version: engine/README.md.
//
// Every write is one atomic RocksDB WriteBatch: a document version with all of
// its facts (and the retractions it causes) is all in or all out, whatever
// happens to the process.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"

namespace chipkg {

struct StoreOptions {
  bool create_if_missing = true;
  // Shared by data, index and filter blocks; filled only as blocks are read.
  // 0: sized from the store, room for every block of it decompressed (twice
  // its files), at least 64 MiB and at most a quarter of physical memory. The
  // provenance of a large answer is read at random, and a miss costs a read
  // and a decompression: a store that fits is answered from memory.
  size_t block_cache_bytes = 0;
  // false: the batched reads of large answers (64 keys or subjects or more
  // at once) do not keep their blocks in the block cache; smaller reads still
  // do (a one-shot command reads some index and filter blocks twice). For a
  // process that answers once and exits (`chipkg query`): keeping every block
  // a large answer reads costs fresh memory (~3 ms per MB on first touch on
  // the machines measured) for blocks it will not read again.
  bool fill_block_cache = true;
  // A write-ahead log damaged before its end (a flipped byte, a bad disk):
  // by default every open refuses the store, since read as it is, the writes
  // after the damage would be lost without a word. Readers may ask for more,
  // for `chipkg salvage`:
  //   kUpToTheDamage: the store as it was at its last write before the damage,
  //     every write after it left out; consistent, as every write is one
  //     batch. RocksDB refuses it when a column family was flushed to a table
  //     file after the damage.
  //   kSkipTheDamage: only the damaged records skipped, with the whole writes
  //     in them; what is read may disagree with itself (a later write built
  //     on a skipped one): Store::Check says where.
  enum class DamagedLog { kRefuse, kUpToTheDamage, kSkipTheDamage };
  DamagedLog damaged_log = DamagedLog::kRefuse;
};

// A citation's source: see Store::GetCitedSources.
struct CitedSource {
  std::shared_ptr<const Document> document;  // null: no such document stored
  std::optional<int64_t> fetched_at;          // Unix seconds; nullopt: no such version stored
  // The version's record without its text (content hash, its own as-of
  // date), shared like the document's; null: no such version stored.
  std::shared_ptr<const DocumentVersion> version;
};

// Which claims a read sees.
struct ReadView {
  // Transaction time: the store as it was right after this transaction.
  // nullopt = now. A fact is visible if asserted_tx <= as_of_tx and it was not
  // retracted at or before as_of_tx.
  std::optional<TxId> as_of_tx;
  // Valid time: only claims whose valid_as_of is on or before this date
  // (compared at the claim date's precision: a month counts from its first day).
  // Claims with no valid date are kept. nullopt = no filter.
  std::optional<Date> valid_on;
  // true: every claim ever asserted, retracted ones included (history).
  bool include_retracted = false;
  // false: leave the provenance fields that live apart from the fact's core
  // (section, span, excerpt, prefix, suffix, row, column, attribution,
  // citations, note, rule_version, run_id, formula) empty, so a large scan
  // reads no excerpts. document_id, document_version, rule and derivation are
  // always filled.
  bool with_provenance = true;
};

// A range over the value encoding of one predicate. Bounds are values of the
// same kind (numbers in the canonical unit); an absent bound is open.
struct ValueRange {
  std::optional<Value> lower;
  bool lower_inclusive = true;
  std::optional<Value> upper;
  bool upper_inclusive = true;
  // Restrict to one kind (e.g. only quantities, skipping not-published markers).
  std::optional<ValueKind> kind;
};

// Small named settings (Store::PutMeta's), key and value.
using MetaRecords = std::vector<std::pair<std::string, std::string>>;

struct WriteSummary {
  TxId tx = 0;              // 0 when nothing was written
  bool new_version = false; // false: content identical to the latest version, nothing written
  uint32_t version = 0;     // the version now latest
  size_t facts_added = 0;
  size_t facts_retracted = 0;
  size_t facts_kept = 0;    // stated again by the new version, left as they were
};

// Live facts of one predicate whose values have one form (Store::PredicateUses).
struct PredicateUse {
  std::string predicate;
  ValueKind kind = ValueKind::kText;
  std::string dimension;  // kQuantity: "bytes", "flops", ...
  uint64_t facts = 0;
  EntityId first_subject;  // the subject of the first such fact, to name one
};

struct StoreStats {
  uint64_t facts = 0;             // every fact ever asserted
  uint64_t live_facts = 0;
  uint64_t retracted_facts = 0;
  uint64_t not_published_facts = 0;
  uint64_t documents = 0;
  uint64_t document_versions = 0;
  uint64_t entities = 0;
  uint64_t transactions = 0;
  uint64_t disk_bytes = 0;  // SST and log files
};

// What Store::Check found: the store is sound when `problems` is empty.
struct StoreCheck {
  uint64_t table_files = 0;  // table files whose every block's checksum was verified
  uint64_t table_bytes = 0;
  uint64_t records = 0;  // records read and decoded, every column family
  uint64_t facts = 0;
  uint64_t documents = 0;
  uint64_t document_versions = 0;
  uint64_t entities = 0;
  uint64_t transactions = 0;
  uint64_t problem_count = 0;  // every problem found
  // A table file failed its checksums, or records of a column family could
  // not be read: damage that `chipkg salvage` copies around.
  bool tables_damaged = false;
  // The first few problems of each kind, each saying what is wrong and where
  // (the table file, the column family, the fact or document), then how many
  // more of that kind there are.
  std::vector<std::string> problems;
};

struct ImportStats {
  uint64_t facts = 0;
  uint64_t documents = 0;
  uint64_t entities = 0;
};

// What an export or import of a damaged store's readable records left out
// (`chipkg salvage`): every record counted, the first few described, each
// saying what it was and why it could not be kept.
struct LeftOut {
  uint64_t count = 0;
  std::vector<std::string> first;
  void Add(std::string what);
};

class BulkWriter;

class Store {
 public:
  virtual ~Store() = default;

  // Opens (or creates) the store at `path` for reading and writing. Fails with
  // Busy if another process has it open for writing, with FormatMismatch if
  // the directory holds a store of another storage-format version (the
  // message names both versions and what to do).
  static Result<std::unique_ptr<Store>> Open(const std::string& path, const StoreOptions& options = {});

  // Opens the store at `path` for a reader that runs while another process
  // writes: a read-only view of what the writer had committed, every table
  // file checked at open (Corruption, "the store is damaged", if one fails).
  // The reader writes no file anywhere. Writes fail.
  static Result<std::unique_ptr<Store>> OpenReader(const std::string& path, const StoreOptions& options = {});
  // For a store that will not open: every table file (*.sst) in its
  // directory read block by block against its checksums, without opening the
  // store; one line for each damaged file, saying what is wrong with it.
  // RocksDB's open names only the first damaged file, or the MANIFEST.
  static Result<std::vector<std::string>> DamagedTableFiles(const std::string& path);
  // For a store whose damaged write-ahead log RocksDB will not read up to the
  // damage (a column family was flushed to a table file after it): the
  // store's files copied into the new directory `scratch` (table files
  // linked where the file system allows, else copied), each log file with
  // only its writes that read whole (engine/wal_copy.h), then opened there
  // as a reader: every table file and every readable write, on both sides
  // of the damage. The damaged store is only read. What the copy holds may
  // disagree with itself where a kept write built on a lost one: export it
  // with a LeftOut.
  static Result<std::unique_ptr<Store>> OpenRepairedCopy(const std::string& damaged, const std::string& scratch);

  // Readers: see what the writer has committed since the open or the last
  // CatchUp (a new view when the store's files changed; a few stats when not).
  // Not while another thread reads this Store. A no-op on a writer.
  virtual Status CatchUp() = 0;
  virtual bool read_only() const = 0;

  // ---- Writes -----------------------------------------------------------

  // Stores a new version of `doc` with every fact it states, in one atomic
  // write. If `version.text` hashes to the latest version's content_hash,
  // nothing is written (summary.new_version == false) except the document's
  // validators (etag, last_modified). Otherwise the facts the previous version
  // stated that `facts` states again (same subject, predicate, value content,
  // qualifiers, rule and derivation, and the same words about it: attribution,
  // citations, note, formula; not the span, section, excerpt or valid-as-of
  // date) are kept as they were; the rest of the
  // previous version's live facts are retracted, and new ones asserted.
  // Fact::id, asserted_tx and provenance.document_version/run_id are set by
  // the store. Fails with InvalidArgument if a fact's span lies outside the
  // text or its excerpt differs from the text at its span. A retired
  // document (RetireDocument) takes new versions without facts only:
  // `facts` not empty is refused with InvalidArgument, nothing written.
  //
  // `new_entities` (each method below that writes facts takes them too): the
  // entities the facts name that the store may not hold yet, written in the
  // same batch as PutEntity would write each (one the store holds alike is
  // left as it is), so that a process killed before the document's write
  // leaves no entity that nothing states anything about.
  //
  // `meta` (each method below that writes facts takes them too): PutMeta's
  // records written in the same batch, so that what a caller records about
  // the claims (which rules read them) stands or falls with them; written
  // alone when the claims need no write (the same text, the same facts).
  virtual Result<WriteSummary> WriteDocumentVersion(const Document& doc, DocumentVersion version,
                                                    std::vector<Fact> facts, const std::string& run_id,
                                                    const std::vector<Entity>& new_entities = {},
                                                    const MetaRecords& meta = {}) = 0;

  // The latest version's facts as newer extraction rules read the same text:
  // the same keep/retract diff as WriteDocumentVersion, against the
  // document's live facts, in one atomic write, with no new version (the
  // facts asserted are the latest version's, checked against its text). When
  // every fact is kept nothing is written (summary.tx 0); otherwise the
  // transaction says the version was read again. NotFound if the document has
  // no version; InvalidArgument, nothing written, for a retired document
  // with `facts` not empty (ReinstateDocument asserts them).
  virtual Result<WriteSummary> RestateDocumentVersion(const Document& doc, std::vector<Fact> facts,
                                                      const std::string& run_id,
                                                      const std::vector<Entity>& new_entities = {},
                                                      const MetaRecords& meta = {}) = 0;

  // Withdraws every claim the document makes, in one atomic write: each of
  // its live facts is retracted (history keeps it, as a re-ingest's
  // retractions are kept), and the document and its versions stay. For a
  // document that should not be a source (a copy of another ingested under
  // a second id, a wrong page). The document is marked retired
  // (Document::retired_tx) in the same write, even when it has no live fact:
  // its later versions are stored without claims, until ReinstateDocument.
  // Retiring a retired document writes nothing (summary.tx 0). NotFound if
  // the document has no version.
  virtual Result<WriteSummary> RetireDocument(const std::string& document_id, const std::string& run_id) = 0;

  // Undoes a retirement: clears the mark and asserts `facts` as what the
  // latest version states (read from its text again by the caller, as for
  // RestateDocumentVersion, and checked against it), in one atomic write
  // whose transaction says the document was reinstated. InvalidArgument
  // if the document is not retired; NotFound if it has no version.
  virtual Result<WriteSummary> ReinstateDocument(const Document& doc, std::vector<Fact> facts,
                                                 const std::string& run_id,
                                                 const std::vector<Entity>& new_entities = {},
                                                 const MetaRecords& meta = {}) = 0;

  // Updates only the document record (title, kind, validators) without a new version.
  virtual Status PutDocument(const Document& doc) = 0;

  // Creates or replaces an entity and indexes its name and aliases.
  virtual Status PutEntity(const Entity& entity) = 0;

  // Small named settings kept with the store by other modules (entity-match
  // decisions, ingest state). Keys are namespaced by the caller: "match/...".
  virtual Status PutMeta(const std::string& key, const std::string& value) = 0;
  virtual Result<std::string> GetMeta(const std::string& key) const = 0;  // NotFound if absent
  virtual Result<std::vector<std::pair<std::string, std::string>>> ListMeta(const std::string& prefix) const = 0;
  virtual Status DeleteMeta(const std::string& key) = 0;  // OK if absent

  // Bulk path for large loads (Import, the benchmark corpus): see BulkWriter.
  virtual Result<std::unique_ptr<BulkWriter>> StartBulk() = 0;

  // ---- Reads ------------------------------------------------------------

  virtual Result<std::vector<Fact>> FactsAbout(const EntityId& subject, const ReadView& view = {}) const = 0;
  virtual Result<std::vector<Fact>> FactsAbout(const EntityId& subject, const std::string& predicate,
                                               const ReadView& view = {}) const = 0;
  // FactsAbout(subject, predicate) for many subjects at once, aligned with
  // `subjects`: one iterator walks them in key order, where a call each would
  // set up an iterator each (the query layer evaluating one condition on
  // thousands of candidate entities). An empty `predicate` reads every
  // predicate of each subject, as FactsAbout(subject) does.
  virtual Result<std::vector<std::vector<Fact>>> FactsAboutEach(const std::vector<EntityId>& subjects,
                                                                const std::string& predicate,
                                                                const ReadView& view = {}) const = 0;
  // FactsAboutEach(subjects, "", view) keeping, of each subject, only the
  // facts of its contested predicates: those whose visible facts do not all
  // state the same content (Value::SameContent, same dimension) under the same
  // qualifiers. Two facts of an uncontested predicate cannot disagree, so a
  // conflicts pass needs only these; the others are never decoded into Facts
  // (four in five facts of the peer corpus: one source, or sources that agree).
  // With `without_not_published`, "not published" markers are left out first:
  // a figure against a marker is then no contest (a conflicts pass that
  // ignores them would drop them after reading anyway).
  virtual Result<std::vector<std::vector<Fact>>> ContestedFactsAboutEach(const std::vector<EntityId>& subjects,
                                                                         const ReadView& view = {},
                                                                         bool without_not_published = false) const = 0;
  // Facts of `predicate` whose value lies in `range`, in value order.
  virtual Result<std::vector<Fact>> FactsInRange(const std::string& predicate, const ValueRange& range,
                                                 const ReadView& view = {}) const = 0;
  // The subjects of FactsInRange, each once, in the value order of its first
  // fact: what a query needs to pick candidates, without decoding the facts.
  virtual Result<std::vector<EntityId>> SubjectsInRange(const std::string& predicate, const ValueRange& range,
                                                        const ReadView& view = {}) const = 0;
  // SubjectsInRange and, for those subjects, FactsAboutEach(subjects,
  // predicate): how a query picks candidates by a range of one predicate and
  // then weighs every claim of that predicate about each. As one read, the
  // range's entries are read and their subjects named once (the two calls read
  // the range twice, and name each subject twice). The facts are read only for
  // at least `facts_from` and at most `facts_up_to` subjects (`facts` unset
  // otherwise); `on_subjects`, when set, is called with the subjects just
  // before their facts are read (never without subjects), so that other reads
  // of them can start meanwhile. `decode_elsewhere`, when set, is handed part
  // of a large read's scanning and decoding to run on another thread (the
  // caller's); the call returns once each such part has run, and fails if
  // one is dropped unrun. With `FactsOf::kRange`, each subject's facts are
  // only those in the range (the predicate's other entries are not read): for
  // a caller that knows no fact outside the range can change what it does
  // with a subject, or reads that subject's facts again when one could.
  struct SubjectsWithFacts {
    std::vector<EntityId> subjects;
    std::optional<std::vector<std::vector<Fact>>> facts;  // facts[i]: subjects[i]'s, by fact id
  };
  using RunElsewhere = std::function<void(std::function<void()> task)>;
  enum class FactsOf : uint8_t { kWholePredicate, kRange };
  virtual Result<SubjectsWithFacts> SubjectsInRangeWithFacts(
      const std::string& predicate, const ValueRange& range, const ReadView& view, size_t facts_from,
      size_t facts_up_to, const std::function<void(const std::vector<EntityId>&)>& on_subjects = {},
      const RunElsewhere& decode_elsewhere = {}, FactsOf facts_of = FactsOf::kWholePredicate) const = 0;
  // Facts whose value is a reference to `object`.
  virtual Result<std::vector<Fact>> FactsReferencing(const EntityId& object, const ReadView& view = {}) const = 0;
  // Facts read from one document (any version unless `version` is set).
  virtual Result<std::vector<Fact>> FactsFromDocument(const std::string& document_id,
                                                      std::optional<uint32_t> version = std::nullopt,
                                                      const ReadView& view = {}) const = 0;
  // Every claim ever made on subject+predicate, retracted ones included, in assertion order.
  virtual Result<std::vector<Fact>> History(const EntityId& subject, const std::string& predicate) const = 0;
  virtual Result<Fact> GetFact(uint64_t fact_id) const = 0;
  // Several facts with full provenance, in the order of `fact_ids`, read in
  // batches (a whole answer's citations at once). The ids are meant to come
  // from earlier reads: a missing one is reported as Corruption.
  virtual Result<std::vector<Fact>> GetFacts(const std::vector<uint64_t>& fact_ids) const = 0;
  // Only the provenance kept apart from each fact's core (section, span,
  // excerpt, attribution, citations, row, column, note, formula, run): what a
  // reader that already holds the facts, read without provenance, needs to
  // cite them. document_id, document_version, rule and derivation are left
  // empty: they come with the fact. In the order of `fact_ids`.
  virtual Result<std::vector<Provenance>> ReadProvenance(const std::vector<uint64_t>& fact_ids) const = 0;
  // Subjects with at least one visible fact of `predicate`.
  virtual Result<std::vector<EntityId>> SubjectsWith(const std::string& predicate, const ReadView& view = {}) const = 0;

  virtual Result<Entity> GetEntity(const EntityId& id) const = 0;
  // Several entities, aligned with `ids` (nullopt where none is stored), read
  // in sorted batches: a query's thousands of candidates cost one batched
  // lookup each instead of a search from the top of the index each. Given
  // `elsewhere` (another thread of the caller's), a large read read in one
  // pass is read in two halves at once, the second there; the call returns
  // once both are read, and fails if that half is dropped unrun.
  virtual Result<std::vector<std::optional<Entity>>> GetEntities(const std::vector<EntityId>& ids,
                                                                 const RunElsewhere& elsewhere = {}) const = 0;
  // Looks an entity up by id, name or alias, ignoring case, spaces and punctuation.
  virtual Result<Entity> FindEntity(const std::string& name_or_alias) const = 0;
  virtual Result<std::vector<Entity>> ListEntities(const std::string& kind = "") const = 0;

  virtual Result<Document> GetDocument(const std::string& document_id) const = 0;
  // Several documents, aligned with `ids` (nullopt where none is stored), in
  // sorted batches: an answer citing thousands of documents reads their
  // records in one pass instead of one search of the index each.
  virtual Result<std::vector<std::optional<Document>>> GetDocuments(const std::vector<std::string>& ids) const = 0;
  virtual Result<std::vector<Document>> ListDocuments() const = 0;
  // Without its text when `with_text` is false (a citation needs only the fetch time).
  virtual Result<DocumentVersion> GetDocumentVersion(const std::string& document_id, uint32_t version,
                                                     bool with_text = true) const = 0;
  // Several versions without their texts (what a citation needs: the fetch
  // time), aligned with `versions` (document id, version number); nullopt
  // where the version is not stored. Read in sorted batches.
  virtual Result<std::vector<std::optional<DocumentVersion>>> GetDocumentVersions(
      const std::vector<std::pair<std::string, uint32_t>>& versions) const = 0;
  virtual Result<DocumentVersion> LatestDocumentVersion(const std::string& document_id) const = 0;
  // What a citation names of its source, for each (document id, version),
  // aligned with `versions`: the document's record and the version's (without
  // its text), both shared with the store's record cache and every other
  // caller (an answer of 80,000 citations names 22,000 documents; copying
  // each record cost more than finding it), and the version's fetch time.
  // Read in sorted batches where not kept.
  virtual Result<std::vector<CitedSource>> GetCitedSources(
      const std::vector<std::pair<std::string, uint32_t>>& versions) const = 0;
  virtual Result<std::vector<DocumentVersion>> ListDocumentVersions(const std::string& document_id,
                                                                    bool with_text = false) const = 0;
  // Every version of every document, without texts, in one scan (a store of
  // 22,781 documents: one read each through ListDocumentVersions took 0.3 s).
  virtual Result<std::vector<DocumentVersion>> ListAllDocumentVersions() const = 0;

  virtual Result<std::vector<Transaction>> ListTransactions() const = 0;
  // The documents retired at `as_of_tx` (now when none), each with the
  // transaction that retired it, from the log: the retirements made by then
  // and not undone by a reinstatement by then. A document's record says only
  // whether it is retired now (Document::retired_tx). One pass over the log.
  virtual Result<std::map<std::string, TxId>> RetiredAsOf(std::optional<TxId> as_of_tx) const = 0;
  virtual TxId LastTx() const = 0;
  virtual Result<StoreStats> Statistics() const = 0;
  // The live facts counted by predicate and by the form of their value, for
  // a caller that knows a schema (the engine knows none) to hold what the
  // store says against it: after an import, in a check. One pass over the
  // facts' records, in predicate, kind and dimension order.
  virtual Result<std::vector<PredicateUse>> PredicateUses() const = 0;
  // Reads the whole store on one snapshot, for a monitor or after a crash or
  // a disk error: every block of every table file against its checksum, then
  // every record decoded and cross-checked (each index entry against its
  // fact, each fact against its document version, entity and text span, each
  // text against its content hash, the counters against what was counted).
  // Damage found is reported in the result, not as a failure; a non-OK result
  // means the check itself could not run. Reads every byte once and fills no
  // cache: seconds for a store of millions of facts.
  virtual Result<StoreCheck> Check() const = 0;

  // ---- Export and import ------------------------------------------------

  // Writes the whole store as JSON Lines: one object per line, tagged by
  // "type": "format", "tx", "entity", "document", "version", "fact". Every
  // field is kept; Import of the output reproduces the store exactly.
  // With `left_out`, a record that cannot be read (a fact whose dictionary
  // entry or provenance is missing, a document version whose record does
  // not decode) is left out and described there instead of failing the
  // export: for salvaging a damaged store.
  virtual Status Export(std::ostream& out, LeftOut* left_out = nullptr) const = 0;
  // Reads an Export into an empty store through the bulk path. With
  // `left_out`, a record that would not import (a fact naming a transaction
  // or a document version that is not there, a version after a missing one)
  // is left out and described there instead of failing the import.
  virtual Result<ImportStats> Import(std::istream& in, LeftOut* left_out = nullptr) = 0;
};

// Loads many documents, entities and facts without one write per fact: the
// writer sorts keys in memory-bounded runs, writes SST files (on all cores)
// and ingests them with IngestExternalFile in Finish(). Nothing is visible
// before Finish() returns OK; after a failure nothing is. Each fact is
// asserted in one transaction for the whole load; facts must name documents
// added in the same load or already stored. Not for retractions: only adds.
class BulkWriter {
 public:
  virtual ~BulkWriter() = default;
  virtual Status AddEntity(const Entity& entity) = 0;
  virtual Status AddDocumentVersion(const Document& doc, DocumentVersion version) = 0;
  // provenance.document_version must name a version added here or stored.
  virtual Status AddFact(Fact fact) = 0;
  virtual Result<ImportStats> Finish(const std::string& run_id) = 0;
};

// Normalises a name for alias matching: lower case, letters and digits only.
// "AWS Trainium (Trn1)" -> "awstrainiumtrn1".
std::string NormalizeAlias(const std::string& name);

// Hex SHA-256 of `bytes` (document content hashes).
std::string Sha256Hex(const std::string& bytes);

// Corruption when `path` holds a store that lost only its CURRENT file (the
// one naming the MANIFEST to read): a store to repair, not a directory of
// someone else's. OK otherwise, and when CURRENT is there.
Status CurrentFileLost(const std::string& path);

}  // namespace chipkg
