// engine/bulk_writer_impl.h (internal to engine/): the BulkWriter behind
// Store::StartBulk and Store::Import.
//
// Facts and provenance are keyed by fact id, which only grows, so they stream
// straight into SST files on a background thread. The index CFs (spo, pos,
// doc, ref) go through one memory-bounded FactIndexSorter, which holds each
// fact's CORE once for all four; versions through a RunSorter. Entities,
// documents and transactions are few and kept in maps. Finish() drains the
// sorters on all cores and ingests every file of every CF in one atomic
// IngestExternalFiles call, counters included, so a failure anywhere leaves
// the store as it was.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/sst_sort.h"
#include "engine/store_impl.h"

namespace chipkg::internal {

// Memory the bulk writer may hold, split over its sorters and text cache.
struct BulkBudget {
  size_t index_bytes = 640ull << 20;      // spo, pos, doc, ref together
  size_t versions_bytes = 128ull << 20;   // version records and texts
  // Texts kept to check excerpts. A load's texts are already in memory when
  // it begins (ImportGeneratedCorpus builds them all first); those the cache
  // drops are freed for the index sorter to reuse. 48 MiB against 192: the
  // 100k peer corpus's import peak 1.08 -> 0.88 GB (HISTORY.md, 2026-12-01
  // 15:47). Beyond the cache only bounds and lengths are checked.
  size_t text_cache_bytes = 48ull << 20;
};

class BulkWriterImpl final : public BulkWriter {
 public:
  // raw = Import: fact ids, transactions, versions and run ids are kept as
  // given instead of being assigned.
  BulkWriterImpl(StoreImpl* store, bool raw, BulkBudget budget = {});
  ~BulkWriterImpl() override;
  Status Init();

  Status AddEntity(const Entity& entity) override;
  Status AddDocumentVersion(const Document& doc, DocumentVersion version) override;
  Status AddFact(Fact fact) override;
  Result<ImportStats> Finish(const std::string& run_id) override;

  // Sorted runs spilled to disk so far (the memory bound at work).
  size_t spilled_runs() const;
  // Version texts that came out of key order and went through the sorter
  // (the rest were streamed).
  uint64_t sorted_texts() const { return sorted_texts_; }
  // Whether the load's files were written with direct I/O (known once Finish
  // has written them).
  bool direct_writes() const { return direct_writes_; }

  // Import only.
  // Salvage: a record that would not import is described in `left_out` and
  // the import goes on without it; only a failure to write stops it.
  void LeaveOutInvalid(LeftOut* left_out) { left_out_ = left_out; }
  bool failed() const { return !failed_.ok(); }
  Status AddTransaction(const Transaction& tx);
  Status AddDocument(const Document& doc);
  Status AddUserMeta(const std::string& key, const std::string& value);

 private:
  struct DocState {
    std::string id;
    uint32_t did = 0;
    uint32_t latest = 0;  // 0: no version yet
    bool stored = false;  // the document record exists in the store
    TxId retired_tx = 0;  // the stored record's (a load keeps it, and asserts no claim of a retired document)
  };
  Status Failed(Status s);
  // A record refused for what it says (not for a failed write): left out
  // under LeaveOutInvalid, else the load's failure.
  Status Refused(Status s);
  Result<DocState*> Doc(const std::string& id, bool create);
  static bool VersionExists(const DocState* d, uint32_t version);
  Result<const std::string*> TextFor(DocState* d, uint32_t version, uint64_t* size);
  void CacheText(uint64_t key, std::string text);
  Status BuildFiles(const std::string& run_id, std::vector<rocksdb::IngestExternalFileArg>* args);
  void Cleanup();

  StoreImpl* store_;
  bool raw_;
  BulkBudget budget_;
  bool finished_ = false;
  Status failed_;
  std::string dir_;
  Counters c_;
  uint64_t facts_before_ = 0;  // in the store when the load began
  std::unique_ptr<Interner> interner_;
  TxId tx_ = 0;              // the load's transaction (not raw)
  uint32_t run_dict_id_ = 0;  // reserved dictionary id for the run id given to Finish (not raw)
  uint64_t last_fact_id_ = 0;

  std::map<std::string, Entity> entities_;
  std::map<std::string, Document> documents_;
  std::unordered_set<std::string> documents_given_;  // raw: the ids of AddDocument's records, each once
  std::unordered_map<std::string, DocState> docs_;  // node-based: DocState pointers stay valid
  DocState* last_doc_ = nullptr;
  std::unordered_map<uint64_t, std::string> texts_;
  std::unordered_map<uint64_t, uint64_t> text_sizes_;
  std::deque<uint64_t> text_order_;
  size_t text_bytes_ = 0;
  std::pair<uint64_t, std::string> stored_text_;  // last text read from the store
  std::map<TxId, Transaction> txs_;
  std::map<std::string, std::string> user_meta_;

  // The streams of `stream_`, in key order as they are added.
  enum Stream { kFactsStream, kProvStream, kTextsStream };
  std::unique_ptr<SstSink> facts_sink_, prov_sink_, texts_sink_;
  std::string last_streamed_text_key_;  // texts whose key is above it are streamed, the rest sorted
  uint64_t sorted_texts_ = 0;
  bool direct_writes_ = false;
  std::unique_ptr<BackgroundSinks> stream_;
  std::unique_ptr<FactIndexSorter> index_;
  std::unique_ptr<RunSorter> versions_;
  ImportStats stats_;
  bool wrote_anything_ = false;
  LeftOut* left_out_ = nullptr;
  std::string core_buf_, header_buf_, prov_buf_, key_buf_;
  codec::CoreRecord core_;  // reused: keeps its qualifier vector's capacity
};

}  // namespace chipkg::internal
