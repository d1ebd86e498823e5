// engine/store_impl.h (internal to engine/): the RocksDB implementation
// behind Store, shared by store.cpp, bulk_writer.cpp and export.cpp.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <bitset>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/codec.h"
#include "engine/store.h"

#define CHIPKG_CONCAT_INNER(a, b) a##b
#define CHIPKG_CONCAT(a, b) CHIPKG_CONCAT_INNER(a, b)
// `lhs = value of expr` or return its error status (internal to engine/).
#define CHIPKG_ASSIGN_OR_RETURN(lhs, expr) \
  CHIPKG_ASSIGN_OR_RETURN_IMPL(CHIPKG_CONCAT(chipkg_result_, __LINE__), lhs, expr)
#define CHIPKG_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

namespace chipkg::internal {

// Converts a RocksDB status, naming what was being done.
Status FromRocks(const rocksdb::Status& s, const std::string& what);

// Heterogeneous lookup so a string_view finds a std::string key without a copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIdMap = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

// The interning dictionary (dict CF) with an in-memory cache of what has been
// looked up. Id 0 is the empty string and is never stored. Thread-safe.
class Dictionary {
 public:
  void Attach(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    db_ = db;
    cf_ = cf;
  }
  // The id of `s`, or nullopt if it was never interned.
  Result<std::optional<uint32_t>> Find(std::string_view s) const;
  // Find of each of `strings`, those known already under one shared lock for
  // them all: an answer's citations name thousands of documents, found on
  // two threads at once, and a lock for each passed the lock's cache line
  // from one core to the other and back.
  Result<std::vector<std::optional<uint32_t>>> FindAll(const std::vector<std::string_view>& strings) const;
  // The string of `id`; Corruption if the dictionary has no such id.
  Result<std::string> Name(uint32_t id) const;
  // The same into `out` (no temporary on the hot path of reads).
  Status NameInto(uint32_t id, std::string* out) const;
  // Makes committed entries known without a read.
  void Remember(const std::vector<std::pair<std::string, uint32_t>>& entries) const;
  // Reads the strings of every id in `ids` not known yet, in batched lookups
  // in key order, and makes them known: a query on a store this process has
  // not read before names tens of thousands of ids (a one-shot `find` on
  // memory at N=100,000: 83,000 subjects), and one Get each was a seventh of
  // its time. Corruption if an id has no entry. `read_options` say whether the
  // blocks read stay in the block cache (StoreOptions::fill_block_cache).
  Status Learn(std::vector<uint32_t> ids, const rocksdb::ReadOptions& read_options) const;
  // The same for strings: reads the ids of those in `strings` not known yet
  // in batched lookups (a string never interned stays unknown, and Find says
  // so with a read of its own): a conflicts pass asks for 100,000 subjects by
  // name.
  Status LearnIds(std::vector<std::string_view> strings, const rocksdb::ReadOptions& read_options) const;
  // Ids and strings read one Get each (tests of Learn's batching).
  uint64_t PointReads() const { return point_reads_.load(); }

  // The names of ids already known, under one shared lock for all of them: a
  // decoded fact names five to ten ids, and a lock for each was a tenth of
  // the reading thread's time in a conflicts pass over 100,000 chips. Null
  // for an id not known yet (Name reads it from the store). Hold briefly:
  // Remember waits for it.
  class KnownNames {
   public:
    explicit KnownNames(const Dictionary& dict) : dict_(dict), lock_(dict.mu_) {}
    const std::string* operator()(uint32_t id) const { return id == 0 ? &kEmpty : dict_.Known(id); }
    // Lets a waiting Remember in between, for a holder that names a long
    // run of facts under one lock (a pointer returned before is void after).
    void Reacquire() {
      lock_.unlock();
      lock_.lock();
    }

   private:
    static inline const std::string kEmpty;
    const Dictionary& dict_;
    std::shared_lock<std::shared_mutex> lock_;
  };

 private:
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_ = nullptr;
  mutable std::shared_mutex mu_;
  mutable std::atomic<uint64_t> point_reads_{0};
  mutable StringIdMap forward_;
  // Names by id, in chunks allocated as ids are first seen: a one-shot query
  // on a large store knows a few ids spread over millions, and one flat vector
  // sized to the largest would be megabytes of zeroed memory to answer it.
  static constexpr size_t kChunkBits = 8;
  struct Chunk {
    std::string names[size_t{1} << kChunkBits];
    std::bitset<size_t{1} << kChunkBits> known;
  };
  mutable std::vector<std::unique_ptr<Chunk>> chunks_;  // chunk i holds ids [i << kChunkBits, (i + 1) << kChunkBits)
  const std::string* Known(uint32_t id) const;  // under mu_ (shared)
};

// Assigns ids for one write (or one bulk load). New entries become visible to
// the Dictionary only after the write commits (Remember). Not thread-safe.
class Interner {
 public:
  Interner(const Dictionary* dict, uint32_t next_id) : dict_(dict), next_id_(next_id) {}
  Result<uint32_t> Intern(std::string_view s);
  // The same, first comparing with the string last interned through `slot`:
  // consecutive facts repeat their predicate, rule, dimension and subject.
  enum Slot { kSubjectSlot, kPredicateSlot, kRuleSlot, kDimensionSlot, kSlotCount };
  Result<uint32_t> Intern(std::string_view s, Slot slot) {
    auto& [last, id] = recent_[slot];
    if (!s.empty() && s == last) return id;
    auto r = Intern(s);
    if (r.ok()) {
      last.assign(s.data(), s.size());
      id = *r;
    }
    return r;
  }
  // Reserves an id whose string is only known later (the run id of a bulk load).
  uint32_t Reserve() { return next_id_++; }
  uint32_t next_id() const { return next_id_; }
  const std::vector<std::pair<std::string, uint32_t>>& added() const { return added_; }
  void AddReserved(std::string s, uint32_t id) { added_.emplace_back(std::move(s), id); }

 private:
  const Dictionary* dict_;
  uint32_t next_id_;
  StringIdMap known_;  // every string this interner has resolved, old and new: one lookup, no lock
  std::pair<std::string, uint32_t> recent_[kSlotCount];
  std::vector<std::pair<std::string, uint32_t>> added_;
};

// Counters kept in the meta CF (codec::CounterKey) and in memory.
struct Counters {
  uint64_t last_tx = 0;
  uint64_t next_fact = 1;
  uint64_t next_dict = 1;
  uint64_t facts = 0;
  uint64_t live = 0;
  uint64_t retracted = 0;
  uint64_t not_published = 0;  // live not-published claims
  uint64_t documents = 0;
  uint64_t versions = 0;
  uint64_t entities = 0;
  uint64_t transactions = 0;

  // (name, field) pairs, in the order they are stored.
  template <typename F>
  void ForEach(F&& f) {
    f("last_tx", last_tx);
    f("next_fact", next_fact);
    f("next_dict", next_dict);
    f("facts", facts);
    f("live", live);
    f("retracted", retracted);
    f("not_published", not_published);
    f("documents", documents);
    f("versions", versions);
    f("entities", entities);
    f("transactions", transactions);
  }
};

// Subjects' dictionary ids -> their places in a read's list of subjects, by
// open addressing: a range read meets tens of thousands of subjects (Q2 of
// the peer benchmark at N=100,000: 48,582), and a node-based map allocated
// one node each and looked them up out of the processor's caches. Places
// are below 2^32 - 1 (a read's subjects are a vector in memory).
class SubjectSlots {
 public:
  explicit SubjectSlots(size_t expected = 0) { Rehash(std::bit_ceil(std::max<size_t>(16, 2 * expected))); }
  // The place of `subject`, given `next` (and then true) if it had none.
  std::pair<size_t, bool> Emplace(uint32_t subject, size_t next) {
    if (2 * (count_ + 1) > slots_.size()) Rehash(2 * slots_.size());
    size_t i = Hash(subject) & (slots_.size() - 1);
    for (; slots_[i].place != 0; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].subject == subject) return {slots_[i].place - 1, false};
    }
    slots_[i] = Slot{subject, static_cast<uint32_t>(next + 1)};
    ++count_;
    return {next, true};
  }
  // Null when `subject` has no place.
  std::optional<size_t> Find(uint32_t subject) const {
    for (size_t i = Hash(subject) & (slots_.size() - 1); slots_[i].place != 0; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].subject == subject) return slots_[i].place - 1;
    }
    return std::nullopt;
  }

 private:
  struct Slot {
    uint32_t subject = 0;
    uint32_t place = 0;  // its place + 1; 0: empty
  };
  static size_t Hash(uint32_t x) { return (uint64_t{x} * 0x9E3779B97F4A7C15ull) >> 20; }
  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    for (const Slot& s : old) {
      if (s.place == 0) continue;
      size_t i = Hash(s.subject) & (capacity - 1);
      while (slots_[i].place != 0) i = (i + 1) & (capacity - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;  // a power of two, at most half full
  size_t count_ = 0;
};

class BulkWriterImpl;

class StoreImpl final : public Store {
 public:
  StoreImpl(std::string path, const StoreOptions& options, bool read_only);
  ~StoreImpl() override;

  Status OpenPrimary();
  Status OpenAsReader();
  // Store::OpenRepairedCopy: this store's directory made from `damaged`'s files.
  Status RepairCopyOf(const std::string& damaged);
  // Builds a new, empty store (every column family and the format record)
  // in a sibling directory and renames it to `path`, so that a process killed
  // while creating a store leaves no store or a whole one.
  static Status CreateStore(const std::string& path, const StoreOptions& options);

  Status CatchUp() override;
  bool read_only() const override { return read_only_; }

  Result<WriteSummary> WriteDocumentVersion(const Document& doc, DocumentVersion version, std::vector<Fact> facts,
                                            const std::string& run_id, const std::vector<Entity>& new_entities = {},
                                            const MetaRecords& meta = {}) override;
  Result<WriteSummary> RestateDocumentVersion(const Document& doc, std::vector<Fact> facts, const std::string& run_id,
                                              const std::vector<Entity>& new_entities = {},
                                              const MetaRecords& meta = {}) override;
  Result<WriteSummary> RetireDocument(const std::string& document_id, const std::string& run_id) override;
  Result<WriteSummary> ReinstateDocument(const Document& doc, std::vector<Fact> facts, const std::string& run_id,
                                         const std::vector<Entity>& new_entities = {},
                                         const MetaRecords& meta = {}) override;
  Status PutDocument(const Document& doc) override;
  Status PutEntity(const Entity& entity) override;
  Status PutMeta(const std::string& key, const std::string& value) override;
  Result<std::string> GetMeta(const std::string& key) const override;
  Result<std::vector<std::pair<std::string, std::string>>> ListMeta(const std::string& prefix) const override;
  Status DeleteMeta(const std::string& key) override;
  Result<std::unique_ptr<BulkWriter>> StartBulk() override;

  Result<std::vector<Fact>> FactsAbout(const EntityId& subject, const ReadView& view) const override;
  Result<std::vector<Fact>> FactsAbout(const EntityId& subject, const std::string& predicate,
                                       const ReadView& view) const override;
  Result<std::vector<Fact>> FactsInRange(const std::string& predicate, const ValueRange& range,
                                         const ReadView& view) const override;
  Result<std::vector<Fact>> FactsReferencing(const EntityId& object, const ReadView& view) const override;
  Result<std::vector<Fact>> FactsFromDocument(const std::string& document_id, std::optional<uint32_t> version,
                                              const ReadView& view) const override;
  Result<std::vector<Fact>> History(const EntityId& subject, const std::string& predicate) const override;
  Result<Fact> GetFact(uint64_t fact_id) const override;
  Result<std::vector<std::vector<Fact>>> FactsAboutEach(const std::vector<EntityId>& subjects,
                                                        const std::string& predicate,
                                                        const ReadView& view) const override;
  Result<std::vector<std::vector<Fact>>> ContestedFactsAboutEach(const std::vector<EntityId>& subjects,
                                                                 const ReadView& view,
                                                                 bool without_not_published) const override;
  Result<std::vector<EntityId>> SubjectsInRange(const std::string& predicate, const ValueRange& range,
                                                const ReadView& view) const override;
  Result<SubjectsWithFacts> SubjectsInRangeWithFacts(
      const std::string& predicate, const ValueRange& range, const ReadView& view, size_t facts_from,
      size_t facts_up_to, const std::function<void(const std::vector<EntityId>&)>& on_subjects,
      const RunElsewhere& decode_elsewhere, FactsOf facts_of) const override;
  Result<std::vector<Fact>> GetFacts(const std::vector<uint64_t>& fact_ids) const override;
  Result<std::vector<Provenance>> ReadProvenance(const std::vector<uint64_t>& fact_ids) const override;
  Result<std::vector<EntityId>> SubjectsWith(const std::string& predicate, const ReadView& view) const override;

  Result<Entity> GetEntity(const EntityId& id) const override;
  Result<std::vector<std::optional<Entity>>> GetEntities(const std::vector<EntityId>& ids,
                                                         const RunElsewhere& elsewhere) const override;
  Result<Entity> FindEntity(const std::string& name_or_alias) const override;
  Result<std::vector<Entity>> ListEntities(const std::string& kind) const override;

  Result<Document> GetDocument(const std::string& document_id) const override;
  Result<std::vector<std::optional<Document>>> GetDocuments(const std::vector<std::string>& ids) const override;
  Result<std::vector<std::optional<DocumentVersion>>> GetDocumentVersions(
      const std::vector<std::pair<std::string, uint32_t>>& versions) const override;
  Result<std::vector<Document>> ListDocuments() const override;
  Result<DocumentVersion> GetDocumentVersion(const std::string& document_id, uint32_t version,
                                             bool with_text = true) const override;
  Result<DocumentVersion> LatestDocumentVersion(const std::string& document_id) const override;
  Result<std::vector<CitedSource>> GetCitedSources(
      const std::vector<std::pair<std::string, uint32_t>>& versions) const override;
  Result<std::vector<DocumentVersion>> ListAllDocumentVersions() const override;
  Result<std::vector<DocumentVersion>> ListDocumentVersions(const std::string& document_id,
                                                            bool with_text) const override;

  Result<std::vector<Transaction>> ListTransactions() const override;
  Result<std::map<std::string, TxId>> RetiredAsOf(std::optional<TxId> as_of_tx) const override;
  TxId LastTx() const override { return last_tx_.load(); }
  Result<StoreStats> Statistics() const override;
  Result<std::vector<PredicateUse>> PredicateUses() const override;
  Result<StoreCheck> Check() const override;

  Status Export(std::ostream& out, LeftOut* left_out = nullptr) const override;
  Result<ImportStats> Import(std::istream& in, LeftOut* left_out = nullptr) override;

  // ---- for BulkWriterImpl and export.cpp -----------------------------------
  const std::string& path() const { return path_; }
  rocksdb::DB* db() const { return db_; }
  rocksdb::ColumnFamilyHandle* cf(int id) const { return handles_[id]; }
  // Bytes the block cache holds now (tests of StoreOptions::fill_block_cache).
  size_t BlockCacheUsage() const { return cache_->GetUsage(); }
  // FactsAboutEach calls answered by one pass over the predicate's `pos`
  // entries rather than a seek per subject (tests of that choice).
  uint64_t PredicatePasses() const { return predicate_passes_.load(); }
  // Batched point reads answered by one pass merged with the keys (MergeScan).
  uint64_t MergedPasses() const { return merged_passes_.load(); }
  // Stretches that range scans of SubjectsInRangeWithFacts were cut into
  // (none for a range scanned whole).
  uint64_t RangeScanStretches() const { return range_scan_stretches_.load(); }
  // SubjectsInRangeWithFacts calls that read the range's facts alone
  // (FactsOf::kRange: tests that a query asks for no more).
  uint64_t RangeOnlyReads() const { return range_only_reads_.load(); }
  // Entity, document and version records answered from the record cache
  // (tests of that cache).
  uint64_t SourceCacheHits() const { return source_cache_hits_.load(); }
  // Subjects of whole-subject batched reads reached by stepping from the one
  // before rather than by a seek (tests of that choice).
  uint64_t SteppedSubjects() const { return stepped_subjects_.load(); }
  // Options an SstFileWriter must use for `cf` so its files match the CF.
  rocksdb::Options SstOptions(int cf) const;
  const Dictionary& dictionary() const { return dict_; }
  Counters counters() const;
  // Bulk loads exclude other writes; EndBulk applies the committed counters.
  Status BeginBulk();
  void EndBulk(const Counters* committed);
  // Makes a bulk writer that keeps ids, transactions and versions as given (Import).
  Result<std::unique_ptr<BulkWriterImpl>> StartRawBulk();

  // Point reads used by several paths. NotFound when absent.
  Result<std::optional<uint32_t>> LatestVersionNumber(uint32_t document) const;
  // Fills `out` (a default Fact) from a CORE; provenance beyond CORE is left to FillProvenance.
  Status ToFact(uint64_t fact_id, const codec::CoreRecord& core, Fact* out) const;
  // The same from names the dictionary already knows; false (and `out` partly
  // filled) when the record names one it does not. A loop over many records
  // holds one `known` for a span of them (NamesUnderOneLock): a lock taken
  // for each fact, with both threads decoding, passed its cache line from
  // core to core (Q2 of the peer benchmark: 5.6% of its samples in the
  // lock and unlock).
  bool ToFactFromKnownNames(uint64_t fact_id, const codec::CoreRecord& core, const Dictionary::KnownNames& known,
                            Fact* out) const;
  // The names of `ids`, a span of them under one dictionary lock; those not
  // known yet read from the store (a find names its 60,000-odd candidates).
  Status NameAll(const std::vector<uint32_t>& ids, std::vector<std::string>* names) const;
  // How many facts a loop names under one KnownNames before it lets a
  // writer in (KnownNames::Reacquire).
  static constexpr size_t kNamesUnderOneLock = 256;
  // Fills the facts a batch left unfilled (ToFactFromKnownNames said false):
  // `unresolved` pairs the position of each one's record, whose fact id and
  // CORE bytes `record(position)` gives, with the Fact to fill. The names
  // they lack are read first, all at once (Dictionary::Learn).
  Status FillUnresolved(const std::vector<std::pair<size_t, Fact*>>& unresolved,
                        const std::function<std::pair<uint64_t, std::string_view>(size_t)>& record) const;
  Status FillProvenance(std::vector<Fact>* facts, const rocksdb::Snapshot* snap = nullptr) const;
  // Calls fn(key, value) for every entry of `cf` in [start, limit) (limit empty:
  // to the end); fn returns false to stop. `prefix_len` = bytes of `start` that
  // every visited key shares (enables the CF's prefix bloom filter when it
  // covers the CF's prefix extractor).
  Status Scan(int cf, std::string_view start, std::string_view limit, size_t prefix_len,
              const std::function<bool(std::string_view, std::string_view)>& fn,
              const rocksdb::Snapshot* snap = nullptr, size_t keys = 1) const;

  // A snapshot for one read made of several RocksDB calls (an index scan,
  // then the provenance), so a bulk load being ingested meanwhile is seen
  // whole or not at all. Null on a reader, a fixed view that changes only in CatchUp.
  class ReadSnapshot {
   public:
    // `needed` false: a read made of one iterator, which is consistent by itself.
    explicit ReadSnapshot(const StoreImpl* store, bool needed = true)
        : db_(store->db_), snap_(store->read_only_ || !needed ? nullptr : store->db_->GetSnapshot()) {}
    ~ReadSnapshot() {
      if (snap_ != nullptr) db_->ReleaseSnapshot(snap_);
    }
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;
    const rocksdb::Snapshot* get() const { return snap_; }

   private:
    rocksdb::DB* db_;
    const rocksdb::Snapshot* snap_;
  };

 private:
  Status OpenDb(bool reader);
  // A reader's open when the store has exactly chipkg's column families (the
  // usual case): no listing of them first. InvalidArgument when the store's
  // column families are not those (OpenDb's checks then say why); any other
  // failure is the store's (a damaged table file: Corruption).
  rocksdb::Status OpenReaderDirectly();
  // A reader's RocksDB instance: read-only, every table file opened and
  // checked at open (engine/README.md, "Readers").
  // `state` receives FilesState() as of just before the open.
  rocksdb::Status OpenReadOnlyDb(const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors,
                                 std::vector<rocksdb::ColumnFamilyHandle*>* handles, rocksdb::DB** db,
                                 std::string* state) const;
  std::vector<rocksdb::ColumnFamilyDescriptor> OurColumnFamilies() const;
  // What a reader's view was opened on: the files naming the store's state
  // (CURRENT, the MANIFEST's size, the write-ahead logs' sizes). CatchUp
  // reopens when it differs.
  std::string FilesState() const;
  // Its first part: CURRENT and the size of the MANIFEST it names.
  std::string ManifestState() const;
  // A reader: whether a writer has written the MANIFEST since the view opened.
  bool ManifestMovedSinceOpen() const;
  void CloseDb();
  // One atomic flush of every open family (see BuildOptions: atomic_flush).
  void FlushEveryColumnFamily();
  // A clean close's record of the MANIFEST it left (see kCleanCloseRecord).
  void RecordCleanClose() const;
  Status CheckSinceCleanClose() const;
  void ForgetCleanClose() const;
  // A writer holds the store (CHIPKG-WRITER, flock) from before its open
  // until after its clean-close record: RocksDB's LOCK goes with the close,
  // and a writer opening in between (a cron ingest as the REPL closed) had
  // its open's removal of the record undone by the record written after
  // it, so readers then refused the store as damaged while it wrote.
  Status HoldAsWriter();
  void LetGoAsWriter();
  // After either open: the format record (written now for a fresh store),
  // every column family present, the dictionary and the counters.
  Status CheckFormatAndLoad(bool fresh, bool reader);
  Status MarkEarlierRetirements();
  // handles_ from an open's handles, by name: codec::Cf order, null for a
  // CF the store lacks, others after.
  void AssignHandles(const std::vector<rocksdb::ColumnFamilyHandle*>& handles);
  // The upgrade of a store of the format before `contested`, by its first
  // writer: the CF built from spo, then the format record rewritten.
  Status AddContestedIndex();
  // Adds to `batch` the contested entries a write makes: `written` are the
  // CORE records it puts in spo (new facts, and retracted ones rewritten),
  // by spo key.
  Status PutContested(rocksdb::WriteBatch* batch, const std::map<std::string, std::string>& written);
  void RetireIdleWals();
  Status LoadCounters();
  void BuildOptions(const StoreOptions& options);
  Status CheckWritable() const;
  void PutCounters(rocksdb::WriteBatch* batch, Counters* c);
  // Writes `batch`, one record's change, as the next transaction: its
  // transaction record (`description`) and the counters `c` join the batch,
  // `forget_cached` drops the record's cached copy whether or not the write
  // went through, and once written the counters become the store's.
  // A stored document record with new conditional-GET validators, written
  // without a transaction: they are no change of what the store says.
  Status PutValidators(const Document& stored, const Document& doc);
  Status WriteRecordTx(rocksdb::WriteBatch* batch, Counters* c, const std::string& description,
                       const std::string& error_context, const std::function<void()>& forget_cached);
  void Commit(const Counters& c, const Interner& interner);
  // Scans an index of CORE values (spo, pos).
  Result<std::vector<Fact>> ScanFacts(int cf, std::string_view start, std::string_view limit, size_t prefix_len,
                                      const ReadView& view, const rocksdb::Snapshot* snap) const;
  // Scans an index of HEADER values (ref; doc entries of older stores) and reads the CORE
  // of visible facts; CORE values (doc) are used as they are.
  Result<std::vector<Fact>> ScanHeaderIndex(int cf, std::string_view start, std::string_view limit,
                                            size_t prefix_len, const ReadView& view,
                                            const rocksdb::Snapshot* snap) const;
  // Calls fn(i, value) with the value of ids[i] in `cf` (facts or prov, keyed
  // by fact id), for every i; Corruption if one is missing.
  // The pos keys [start, limit) of a value range; nullopt when nothing can match.
  Result<std::optional<std::pair<std::string, std::string>>> RangeKeys(const std::string& predicate,
                                                                       const ValueRange& range) const;
  // Point reads of many keys of one CF in sorted MultiGet batches, on `snap`
  // (or a snapshot of its own when it takes several batches); `fn` gets each
  // key's position in `keys` and its value, nullopt when absent. `describe`
  // names a key for an error message. Given `elsewhere`, a read in one pass
  // (MergeScan) is made in two halves at once, the second there: `fn` must
  // then take keys from two threads at once.
  Status MultiGetSorted(int cf, const std::vector<std::string>& keys, const rocksdb::Snapshot* snap,
                        const std::function<std::string(size_t)>& describe,
                        const std::function<Status(size_t, std::optional<std::string_view>)>& fn,
                        const RunElsewhere* elsewhere = nullptr) const;
  // FactsAboutEach and ContestedFactsAboutEach: one iterator over the
  // subjects' spo prefixes in key order.
  Result<std::vector<std::vector<Fact>>> ReadFactsAboutEach(const std::vector<EntityId>& subjects,
                                                            const std::string& predicate, const ReadView& view,
                                                            bool contested_only, bool without_not_published = false) const;
  // FactsAboutEach of one predicate for so many subjects that one pass over
  // the predicate's `pos` entries costs less than a seek per subject; nullopt
  // when it would not (ScanBeatsSeeks).
  Result<std::optional<std::vector<std::vector<Fact>>>> ReadPredicateOfEach(const std::vector<EntityId>& subjects,
                                                                            uint32_t predicate,
                                                                            const ReadView& view) const;
  // An entry of `pos` a pass over it keeps: whose subject's facts it is
  // (index in the subjects asked for) and where its CORE record was copied:
  // which of the pass's arenas (a range scanned in stretches keeps one a
  // stretch, not copied into one after) and where in it.
  struct KeptEntry {
    size_t index;
    uint64_t fact_id;
    size_t begin;
    uint32_t length;
    uint32_t arena = 0;
  };
  // A pass's step: keeps the pos entry (key, value) when its subject is in
  // `slot` (subject -> index) and it is visible; false, with `status` set, when
  // the record cannot be decoded.
  static bool KeepOfSubjects(const SubjectSlots& slot, const ReadView& view,
                             std::string_view key, std::string_view value, std::vector<KeptEntry>* kept,
                             std::string* arena, Status* status);
  // Decodes what a pass kept (sorting `kept`) into the facts of each of `subjects` subjects, by fact id;
  // with `elsewhere`, a large pass's second half of the subjects there, at the same time.
  Result<std::vector<std::vector<Fact>>> DecodeKept(std::vector<KeptEntry>& kept, std::span<const std::string> arenas,
                                                    size_t subjects, const ReadView& view,
                                                    const rocksdb::Snapshot* snap,
                                                    const RunElsewhere& elsewhere = {}) const;
  // RocksDB's estimate (no read) of how many entries of `cf` lie in [start, limit);
  // infinity when it has none.
  double EntriesWithin(int cf, const std::string& start, const std::string& limit) const;
  // A key that splits [start, limit) of `cf` into two stretches of about as
  // many bytes each, by bisection on RocksDB's size estimates (no read);
  // nullopt when there is no estimate or the stretch cannot be split.
  std::optional<std::string> MiddleKey(int cf, const std::string& start, const std::string& limit) const;
  // MultiGetSorted's answer from one pass over [low, high), merged with the
  // keys in `order` (sorted).
  Status MergeScan(int cf, const std::vector<std::string>& keys, const std::vector<size_t>& order,
                   const std::string& low, const std::string& high, const rocksdb::Snapshot* snap,
                   const std::function<Status(size_t, std::optional<std::string_view>)>& fn) const;
  Status ReadByIds(int cf, const std::vector<uint64_t>& ids, const rocksdb::Snapshot* snap,
                   const std::function<Status(size_t, std::string_view)>& fn) const;
  // The CORE records of `ids` from the facts CF, in the same order.
  Status ReadCores(const std::vector<uint64_t>& ids, std::vector<std::string>* cores,
                   const rocksdb::Snapshot* snap = nullptr) const;
  Result<std::optional<Entity>> ReadEntity(const std::string& id) const;
  Result<std::optional<Document>> ReadDocument(const std::string& id) const;
  Result<DocumentVersion> ReadVersion(uint32_t did, uint32_t version, bool with_text) const;
  // A stored document's record and its latest version's number; NotFound
  // ("document D has no stored version to <to>") when it has none.
  struct StoredLatest {
    Document doc;
    uint32_t did = 0;
    uint32_t version = 0;
  };
  Result<StoredLatest> ReadStoredLatest(const std::string& id, const char* to) const;
  // What a write does to the document's retirement mark: the stored mark
  // is kept by every write but RetireDocument's and ReinstateDocument's.
  enum class Retirement { kKeep, kRetire, kReinstate };
  // WriteDocumentVersion, RestateDocumentVersion, RetireDocument and
  // ReinstateDocument after their checks: `restate` diffs `facts` against
  // the live ones as of `version`, the latest, which it neither numbers nor
  // stores again. `what` is the transaction's description, after the
  // document's id.
  Result<WriteSummary> WriteVersionFacts(const Document& doc, DocumentVersion version, std::vector<Fact> facts,
                                         const std::string& run_id, std::optional<Document> stored_doc,
                                         bool restate, const std::vector<Entity>& new_entities,
                                         const MetaRecords& meta, const std::string& what = "",
                                         Retirement retirement = Retirement::kKeep);
  // The caller's meta records put in `batch` (InvalidArgument for an empty key).
  Status StageMeta(const MetaRecords& meta, rocksdb::WriteBatch* batch) const;
  // The meta records alone, for a write whose claims need none.
  Status WriteMetaAlone(const MetaRecords& meta);
  // Puts an entity's record and alias entries in `batch` as created by
  // transaction `tx` (a new one) and counts it in `c`; false when the store
  // holds it alike (nothing staged). PutEntity and the writes of facts.
  Result<bool> StageEntity(const Entity& entity, TxId tx, rocksdb::WriteBatch* batch, Counters* c);

  // Every read's options: whether the blocks of a read of `keys` keys stay
  // cached (StoreOptions::fill_block_cache).
  static constexpr size_t kReadOnceFrom = 64;
  rocksdb::ReadOptions ReadOpts(size_t keys = 1) const {
    rocksdb::ReadOptions ro;
    ro.fill_cache = options_.fill_block_cache || keys < kReadOnceFrom;
    return ro;
  }

  std::string path_;
  bool read_only_;
  std::string opened_state_;  // readers: FilesState() just before the open
  StoreOptions options_;
  rocksdb::DB* db_ = nullptr;
  int writer_hold_fd_ = -1;  // HoldAsWriter's
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // indexed by codec::Cf; extra CFs after
  // The store's `contested` CF is complete (engine/contested.h); false for a
  // reader of a store of the format before it, whose conflicts passes read spo.
  bool contested_index_ = false;
  rocksdb::DBOptions db_options_;
  std::vector<rocksdb::ColumnFamilyOptions> cf_options_;
  std::shared_ptr<rocksdb::Cache> cache_;
  Dictionary dict_;

  std::mutex write_mu_;  // one write at a time
  bool bulk_active_ = false;
  mutable std::mutex counters_mu_;
  Counters counters_;
  std::atomic<uint64_t> last_tx_{0};
  mutable std::atomic<uint64_t> predicate_passes_{0};
  mutable std::atomic<uint64_t> merged_passes_{0};
  mutable std::atomic<uint64_t> range_scan_stretches_{0};
  mutable std::atomic<uint64_t> range_only_reads_{0};
  mutable std::atomic<uint64_t> stepped_subjects_{0};

  // Entity records (a find reads its candidates' to learn their kind and
  // name: 48,582 for Q2 at N=100,000), document records and version records
  // (without text), kept once read: an
  // answer's citations name its documents and their versions, and each query
  // read them again (Q1 at N=100,000: a quarter of its time; Q3, 22,000 of
  // them, ~20 ms). A version record never changes once written. A document
  // record changes only through this store's writes, which drop it from the
  // cache, a bulk load, which drops everything, or another process's writes,
  // which a reader sees only from CatchUp, which drops everything too.
  // Absent records are not kept; past kCachedSourcesUpTo records the cache
  // starts again.
  static constexpr size_t kCachedSourcesUpTo = size_t{1} << 18;
  // A record read from the store is kept only if nothing was forgotten
  // since `generation` (taken before the read): a read that raced a write
  // must not put the record the write replaced back.
  std::optional<Document> CachedDocument(const std::string& id) const;
  std::optional<DocumentVersion> CachedVersion(uint32_t did, uint32_t version) const;
  uint64_t SourcesGeneration() const { return sources_generation_.load(); }
  void KeepDocument(const Document& d, uint64_t generation) const;
  void KeepDocument(const std::shared_ptr<const Document>& d, uint64_t generation) const;
  void KeepVersion(uint32_t did, const DocumentVersion& v, uint64_t generation) const;
  void KeepVersion(uint32_t did, const std::shared_ptr<const DocumentVersion>& v, uint64_t generation) const;
  std::optional<Entity> CachedEntity(const std::string& id) const;
  void KeepEntity(const Entity& e, uint64_t generation) const;
  void ForgetEntity(const std::string& id) const;    // after the write that changed it
  void ForgetDocument(const std::string& id) const;  // after the write that changed it
  void ForgetSources() const;
  mutable std::shared_mutex sources_mu_;
  mutable std::atomic<uint64_t> sources_generation_{0};
  mutable std::unordered_map<std::string, Entity> cached_entities_;
  mutable std::unordered_map<std::string, std::shared_ptr<const Document>> cached_documents_;  // handed out shared
  mutable std::unordered_map<uint64_t, std::shared_ptr<const DocumentVersion>> cached_versions_;  // by did << 32 | version; handed out shared
  mutable std::atomic<uint64_t> source_cache_hits_{0};
};

// Whether a fact with these visibility fields is seen by `view`.
bool Visible(TxId asserted_tx, TxId retracted_tx, const std::optional<Date>& valid_as_of, const ReadView& view);

// Wall clock, Unix microseconds.
int64_t NowMicros();

// Checks a fact's own fields (subject, predicate, value, dates) and interns
// its strings into `core`: subject, predicate, rule, derivation, value,
// qualifiers and valid_as_of. The caller sets document, version and the txs.
// `where` names the fact in errors.
// Names the fact in an error message; only called when there is an error.
using Where = std::function<std::string()>;
Status BuildCore(const Fact& fact, Interner* interner, const Where& where, codec::CoreRecord* core);

// InvalidArgument unless the provenance span lies inside `text` and its
// excerpt equals the text there. `where` names the fact.
Status CheckSpan(const Provenance& p, std::string_view text, const Where& where);

// Adds every record of one fact (facts, prov unless null, spo, pos, doc, ref);
// its spo entry also goes to `spo_written`, for StoreImpl::PutContested.
void PutFactRecords(rocksdb::WriteBatch* batch, const std::vector<rocksdb::ColumnFamilyHandle*>& handles,
                    uint64_t fact_id, const codec::CoreRecord& core, const std::string* prov,
                    std::map<std::string, std::string>* spo_written);

// The alias CF keys of an entity (normalised id, name, aliases) and their rank:
// 0 id, 1 name, 2 alias; a key reached several ways keeps the best rank.
std::map<std::string, uint8_t> AliasEntries(const Entity& entity);

}  // namespace chipkg::internal
