#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "engine/bulk_writer_impl.h"
#include "engine/contested.h"

namespace chipkg::internal {

namespace fs = std::filesystem;
using codec::CoreRecord;

namespace {

uint64_t VersionKey(uint32_t did, uint32_t version) { return (uint64_t{did} << 32) | version; }

// Runs the tasks on up to `threads` threads; returns the first error.
Status RunParallel(std::vector<std::function<Status()>> tasks, unsigned threads) {
  std::atomic<size_t> next{0};
  std::vector<Status> results(tasks.size());
  auto worker = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) results[i] = tasks[i]();
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < tasks.size(); ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  for (auto& r : results) {
    if (!r.ok()) return r;
  }
  return Status::OK();
}

std::atomic<uint64_t> bulk_sequence{0};

// The stored spo entries of each pair a load on top of stored facts touches,
// and whether `contested` holds the pair already: two iterators that move
// forward with the load's ascending pairs, stepping a few entries before
// seeking (a seek costs what ~10 steps do). Nothing is read for a load into
// a store without facts.
class StoredPairs {
 public:
  StoredPairs(StoreImpl* store, bool any) {
    if (!any) return;
    rocksdb::ReadOptions ro;
    ro.total_order_seek = true;
    ro.fill_cache = false;
    spo_.reset(store->db()->NewIterator(ro, store->cf(codec::kSpoCf)));
    contested_.reset(store->db()->NewIterator(ro, store->cf(codec::kContestedCf)));
  }

  ContestedSplitter::StoredLookup lookup() {
    if (!spo_) return nullptr;
    return [this](std::string_view pair, ContestedSplitter::Entries* entries, bool* contested) -> Status {
      MoveTo(contested_.get(), pair, &contested_positioned_);
      *contested = contested_->Valid() && contested_->key().starts_with(ToSlice(pair));
      if (!contested_->status().ok()) {
        return FromRocks(contested_->status(), "reading the contested pairs of the store");
      }
      MoveTo(spo_.get(), pair, &spo_positioned_);
      for (; spo_->Valid() && spo_->key().starts_with(ToSlice(pair)); spo_->Next()) {
        entries->emplace_back(spo_->key().ToString(), spo_->value().ToString());
      }
      if (!spo_->status().ok()) {
        return FromRocks(spo_->status(), "reading the stored facts of the pairs a bulk load adds to");
      }
      return Status::OK();
    };
  }

 private:
  static rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }
  static void MoveTo(rocksdb::Iterator* it, std::string_view target, bool* positioned) {
    constexpr int kStepsBeforeSeek = 8;
    if (*positioned) {
      for (int steps = 0; it->Valid() && it->key().compare(ToSlice(target)) < 0; ++steps) {
        if (steps == kStepsBeforeSeek) {
          *positioned = false;
          break;
        }
        it->Next();
      }
    }
    if (!*positioned) it->Seek(ToSlice(target));
    *positioned = true;
  }

  std::unique_ptr<rocksdb::Iterator> spo_, contested_;
  bool spo_positioned_ = false, contested_positioned_ = false;
};

}  // namespace

BulkWriterImpl::BulkWriterImpl(StoreImpl* store, bool raw, BulkBudget budget)
    : store_(store), raw_(raw), budget_(budget) {}

BulkWriterImpl::~BulkWriterImpl() {
  if (!finished_) {
    stream_.reset();  // stops the writer thread before its files go
    Cleanup();
    store_->EndBulk(nullptr);
  }
}

void BulkWriterImpl::Cleanup() {
  stream_.reset();
  facts_sink_.reset();
  prov_sink_.reset();
  texts_sink_.reset();
  index_.reset();
  versions_.reset();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

Status BulkWriterImpl::Init() {
  c_ = store_->counters();
  facts_before_ = c_.facts;
  if (raw_) {
    auto meta = store_->ListMeta("");
    if (!meta.ok()) return meta.status();
    if (c_.last_tx != 0 || c_.facts != 0 || c_.entities != 0 || c_.documents != 0 || !meta->empty()) {
      return Status::InvalidArgument("import needs an empty store; " + store_->path() + " already holds " +
                                     std::to_string(c_.facts) + " facts, " + std::to_string(c_.entities) +
                                     " entities and " + std::to_string(c_.documents) + " documents");
    }
  }
  dir_ = store_->path() + "/bulk-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(bulk_sequence++);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Status::IOError("cannot create bulk directory " + dir_ + ": " + ec.message());

  interner_ = std::make_unique<Interner>(&store_->dictionary(), static_cast<uint32_t>(c_.next_dict));
  if (!raw_) {
    tx_ = c_.last_tx + 1;
    run_dict_id_ = interner_->Reserve();
  }
  facts_sink_ = std::make_unique<SstSink>(store_->SstOptions(codec::kFactsCf), dir_, "facts");
  prov_sink_ = std::make_unique<SstSink>(store_->SstOptions(codec::kProvCf), dir_, "prov");
  texts_sink_ = std::make_unique<SstSink>(store_->SstOptions(codec::kVersionsCf), dir_, "version-texts");
  stream_ = std::make_unique<BackgroundSinks>(
      std::vector<SstSink*>{facts_sink_.get(), prov_sink_.get(), texts_sink_.get()});
  index_ = std::make_unique<FactIndexSorter>(dir_, budget_.index_bytes);
  versions_ = std::make_unique<RunSorter>(dir_, "versions", budget_.versions_bytes);
  return Status::OK();
}

size_t BulkWriterImpl::spilled_runs() const {
  size_t n = 0;
  if (index_ != nullptr) n += index_->runs();
  if (versions_ != nullptr) n += versions_->runs();
  return n;
}

Status BulkWriterImpl::Failed(Status s) {
  if (failed_.ok()) failed_ = s;
  return s;
}

Status BulkWriterImpl::Refused(Status s) {
  if (left_out_ == nullptr || !(s.IsInvalidArgument() || s.IsNotFound() || s.IsCorruption())) return Failed(std::move(s));
  left_out_->Add(s.message());
  return Status::OK();
}

#define CHIPKG_BULK_CHECK()                                                                  \
  do {                                                                                       \
    if (!failed_.ok()) return failed_;                                                       \
    if (finished_) return Status::InvalidArgument("bulk load on " + store_->path() + " already finished"); \
  } while (0)

Result<BulkWriterImpl::DocState*> BulkWriterImpl::Doc(const std::string& id, bool create) {
  // Facts mostly arrive document by document.
  if (last_doc_ != nullptr && last_doc_->id == id) return last_doc_;
  auto it = docs_.find(id);
  if (it != docs_.end()) return last_doc_ = &it->second;
  DocState d;
  d.id = id;
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, store_->dictionary().Find(id));
  if (did) {
    d.did = *did;
    CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> latest, store_->LatestVersionNumber(*did));
    d.latest = latest.value_or(0);
    auto stored = store_->GetDocument(id);
    if (stored.ok()) {
      d.stored = true;
      d.retired_tx = stored->retired_tx;
    } else if (!stored.status().IsNotFound()) {
      return stored.status();
    }
  }
  if (!d.stored && d.latest == 0 && !create) {
    return Status::NotFound("document " + id + " is neither stored nor added in this load");
  }
  if (!did) {
    CHIPKG_ASSIGN_OR_RETURN(d.did, interner_->Intern(id));
  }
  return last_doc_ = &docs_.emplace(id, d).first->second;
}

// Versions are numbered 1..latest without gaps, stored ones and the load's
// alike (AddDocumentVersion only ever appends latest + 1).
bool BulkWriterImpl::VersionExists(const DocState* d, uint32_t version) { return version >= 1 && version <= d->latest; }

void BulkWriterImpl::CacheText(uint64_t key, std::string text) {
  text_sizes_[key] = text.size();
  if (text.size() > budget_.text_cache_bytes) return;
  while (text_bytes_ + text.size() > budget_.text_cache_bytes && !text_order_.empty()) {
    auto it = texts_.find(text_order_.front());
    text_order_.pop_front();
    if (it != texts_.end()) {
      text_bytes_ -= it->second.size();
      texts_.erase(it);
    }
  }
  text_bytes_ += text.size();
  text_order_.push_back(key);
  texts_[key] = std::move(text);
}

Result<const std::string*> BulkWriterImpl::TextFor(DocState* d, uint32_t version, uint64_t* size) {
  const uint64_t key = VersionKey(d->did, version);
  auto it = texts_.find(key);
  if (it != texts_.end()) {
    *size = it->second.size();
    return &it->second;
  }
  auto sz = text_sizes_.find(key);
  if (sz != text_sizes_.end()) {
    *size = sz->second;  // added here but no longer cached: only the bounds can be checked
    return static_cast<const std::string*>(nullptr);
  }
  if (stored_text_.first != key || stored_text_.second.empty()) {
    CHIPKG_ASSIGN_OR_RETURN(DocumentVersion v, store_->GetDocumentVersion(d->id, version));
    stored_text_ = {key, std::move(v.text)};
  }
  *size = stored_text_.second.size();
  return &stored_text_.second;
}

Status BulkWriterImpl::AddEntity(const Entity& entity) {
  CHIPKG_BULK_CHECK();
  if (entity.id.empty()) return Failed(Status::InvalidArgument("bulk AddEntity: empty entity id"));
  if (raw_ && entity.created_tx != 0 && !txs_.count(entity.created_tx)) {
    const Status refused = Status::InvalidArgument("import: entity " + entity.id + " names created_tx " +
                                                   std::to_string(entity.created_tx) + ", which is not in the import");
    if (left_out_ == nullptr) return Failed(refused);
    // Its name and aliases are worth more than the date it was first stored.
    left_out_->Add(refused.message() + "; kept without it");
    Entity kept = entity;
    kept.created_tx = 0;
    entities_[entity.id] = std::move(kept);
    wrote_anything_ = true;
    return Status::OK();
  }
  // Two records of one id in an export are two stores' lines mixed, or a
  // line repeated and edited: which one holds is not for the import to pick.
  if (raw_ && entities_.count(entity.id)) {
    return Failed(Status::InvalidArgument("import: entity " + entity.id + " given twice"));
  }
  // No ingest writes a control character into a name; one in an edited
  // export reached terminals raw (an escape sequence recolours them).
  if (raw_) {
    std::vector<std::string> names = entity.aliases;
    names.push_back(entity.name);
    for (const std::string& name : names) {
      const auto control = std::find_if(name.begin(), name.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      });
      if (control == name.end()) continue;
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(*control)));
      return Failed(Status::InvalidArgument("import: entity " + entity.id + ": a name holds the control character " +
                                            code + " at byte " + std::to_string(control - name.begin())));
    }
  }
  entities_[entity.id] = entity;
  wrote_anything_ = true;
  return Status::OK();
}

Status BulkWriterImpl::AddDocument(const Document& doc) {
  CHIPKG_BULK_CHECK();
  if (doc.id.empty()) return Failed(Status::InvalidArgument("bulk AddDocument: empty document id"));
  Document given = doc;
  if (raw_ && !documents_given_.insert(doc.id).second) {
    return Failed(Status::InvalidArgument("import: document " + doc.id + " given twice"));
  }
  if (raw_ && doc.retired_tx != 0 && !txs_.count(doc.retired_tx)) {
    const Status refused = Status::InvalidArgument("import: document " + doc.id + " names retired_tx " +
                                                   std::to_string(doc.retired_tx) + ", which is not in the import");
    if (left_out_ == nullptr) return Failed(refused);
    // The claims the lost retirement retracted name that transaction too
    // and are left out with it.
    left_out_->Add(refused.message() + "; kept as not retired");
    given.retired_tx = 0;
  }
  auto d = Doc(doc.id, true);
  if (!d.ok()) return Failed(d.status());
  Document& kept = documents_[doc.id] = std::move(given);
  if (!raw_) kept.retired_tx = (*d)->retired_tx;  // an import restores the mark; a load only keeps it
  wrote_anything_ = true;
  return Status::OK();
}

Status BulkWriterImpl::AddDocumentVersion(const Document& doc, DocumentVersion version) {
  CHIPKG_BULK_CHECK();
  const std::string where = "bulk load, document " + doc.id;
  if (doc.id.empty()) return Failed(Status::InvalidArgument("bulk AddDocumentVersion: empty document id"));
  if (!version.document_id.empty() && version.document_id != doc.id) {
    return Refused(Status::InvalidArgument(where + ": version names document " + version.document_id));
  }
  if (version.as_of && !version.as_of->IsValid()) {
    return Refused(Status::InvalidArgument(where + ": as_of " + version.as_of->ToString() + " is not a valid date"));
  }
  auto state = Doc(doc.id, true);
  if (!state.ok()) return Failed(state.status());
  DocState* d = *state;
  version.document_id = doc.id;
  const std::string hash = Sha256Hex(version.text);
  if (raw_) {
    if (version.version != d->latest + 1) {
      return Refused(Status::InvalidArgument(where + ": version " + std::to_string(version.version) + " follows version " +
                                            std::to_string(d->latest) + " (versions must be given in order, without gaps)"));
    }
    if (!txs_.count(version.tx)) {
      return Refused(Status::InvalidArgument(where + " version " + std::to_string(version.version) +
                                            ": names transaction " + std::to_string(version.tx) +
                                            " which is not in the import"));
    }
    if (version.content_hash != hash) {
      return Refused(Status::Corruption(where + " version " + std::to_string(version.version) +
                                       ": content_hash does not match the text (" + hash + ")"));
    }
  } else {
    version.version = d->latest + 1;
    version.tx = tx_;
    version.content_hash = hash;
  }
  d->latest = version.version;
  if (!documents_.count(doc.id) || !raw_) {
    Document& kept = documents_[doc.id] = doc;
    if (!raw_) kept.retired_tx = d->retired_tx;
  }

  std::string meta;
  codec::EncodeVersionMeta(version, &meta);
  Status s = versions_->Add(codec::VersionMetaKey(d->did, version.version), meta);
  // Texts are most of a load's versions (a quarter of a GB for the peer
  // corpus) and usually arrive in key order: new documents get growing ids.
  // Those stream straight into a file of their own instead of being copied
  // into the sorter, which would spill them to disk and read them back.
  std::string text_key = codec::VersionTextKey(d->did, version.version);
  if (s.ok() && text_key > last_streamed_text_key_) {
    s = stream_->Put(kTextsStream, text_key, version.text);
    last_streamed_text_key_ = std::move(text_key);
  } else if (s.ok()) {
    s = versions_->Add(text_key, version.text);
    ++sorted_texts_;
  }
  if (!s.ok()) return Failed(s);
  CacheText(VersionKey(d->did, version.version), std::move(version.text));
  ++c_.versions;
  wrote_anything_ = true;
  return Status::OK();
}

Status BulkWriterImpl::AddTransaction(const Transaction& tx) {
  CHIPKG_BULK_CHECK();
  if (!raw_) return Status::InvalidArgument("AddTransaction is for imports only");
  if (tx.id == 0) return Failed(Status::InvalidArgument("import: transaction id 0"));
  if (!txs_.emplace(tx.id, tx).second) {
    return Failed(Status::InvalidArgument("import: transaction " + std::to_string(tx.id) + " given twice"));
  }
  wrote_anything_ = true;
  return Status::OK();
}

Status BulkWriterImpl::AddUserMeta(const std::string& key, const std::string& value) {
  CHIPKG_BULK_CHECK();
  if (key.empty()) return Failed(Status::InvalidArgument("import: meta entry with an empty key"));
  user_meta_[key] = value;
  wrote_anything_ = true;
  return Status::OK();
}

Status BulkWriterImpl::AddFact(Fact fact) {
  CHIPKG_BULK_CHECK();
  Provenance& p = fact.provenance;
  const Where where = [&] { return "bulk load, fact (" + fact.subject + " " + fact.predicate + ")"; };
  auto state = Doc(p.document_id, false);
  if (!state.ok()) return Refused(state.status().WithContext(where()));
  DocState* d = *state;
  if (d->retired_tx != 0 && !raw_) {
    return Refused(Status::InvalidArgument(where() + ": document " + p.document_id + " was retired by tx " +
                                          std::to_string(d->retired_tx) +
                                          " and asserts no claim until it is reinstated (chipkg reinstate)"));
  }
  if (p.document_version == 0 && !raw_) p.document_version = d->latest;
  if (!VersionExists(d, p.document_version)) {
    return Refused(Status::InvalidArgument(where() + ": document " + p.document_id + " has no version " +
                                          std::to_string(p.document_version)));
  }
  uint64_t text_size = 0;
  auto text = TextFor(d, p.document_version, &text_size);
  if (!text.ok()) return Refused(text.status().WithContext(where()));
  if (*text != nullptr) {
    Status s = CheckSpan(p, **text, where);
    if (!s.ok()) return Refused(s);
  } else if (p.span_begin > p.span_end || p.span_end > text_size || p.span_end - p.span_begin != p.excerpt.size()) {
    return Refused(Status::InvalidArgument(where() + ": span [" + std::to_string(p.span_begin) + ", " +
                                          std::to_string(p.span_end) + ") does not fit the text (" +
                                          std::to_string(text_size) + " bytes) or its excerpt"));
  }

  // An import's own checks first: a fact refused after BuildCore would
  // leave its strings in the dictionary, named by nothing.
  uint64_t id = 0;
  if (raw_) {
    id = fact.id;
    if (id == 0 || id <= last_fact_id_) {
      return Refused(Status::InvalidArgument(where() + ": fact id " + std::to_string(id) +
                                            " is not above the previous one (" + std::to_string(last_fact_id_) + ")"));
    }
    if (!txs_.count(fact.asserted_tx) || (fact.retracted_tx != 0 && !txs_.count(fact.retracted_tx))) {
      return Refused(Status::InvalidArgument(where() + " " + std::to_string(id) + ": asserted_tx " +
                                            std::to_string(fact.asserted_tx) + " / retracted_tx " +
                                            std::to_string(fact.retracted_tx) + " name no imported transaction"));
    }
    if (fact.retracted_tx != 0 && fact.retracted_tx < fact.asserted_tx) {
      return Refused(Status::InvalidArgument(where() + " " + std::to_string(id) + ": retracted_tx " +
                                            std::to_string(fact.retracted_tx) + " is before asserted_tx " +
                                            std::to_string(fact.asserted_tx)));
    }
  }
  CoreRecord& core = core_;
  Status s = BuildCore(fact, interner_.get(), where, &core);
  if (!s.ok()) return Refused(s);
  uint32_t run = run_dict_id_;
  if (raw_) {
    core.asserted_tx = fact.asserted_tx;
    core.retracted_tx = fact.retracted_tx;
    auto r = interner_->Intern(p.run_id);
    if (!r.ok()) return Failed(r.status());
    run = *r;
  } else {
    id = c_.next_fact;
    core.asserted_tx = tx_;
    core.retracted_tx = 0;
  }
  last_fact_id_ = id;
  c_.next_fact = std::max(c_.next_fact, id + 1);
  core.document = d->did;
  core.document_version = p.document_version;

  core_buf_.clear();
  codec::EncodeCore(core, &core_buf_);
  prov_buf_.clear();
  codec::EncodeProv(p, run, &prov_buf_);
  key_buf_.clear();
  codec::PutU64(&key_buf_, id);
  s = stream_->Put(kFactsStream, key_buf_, core_buf_);
  if (s.ok()) s = stream_->Put(kProvStream, key_buf_, prov_buf_);
  header_buf_.clear();
  codec::EncodeCoreHeader(core, &header_buf_);
  if (s.ok()) s = index_->Add(id, core_buf_, header_buf_.size());
  if (!s.ok()) return Failed(s);

  ++c_.facts;
  ++stats_.facts;
  if (core.retracted_tx == 0) {
    ++c_.live;
    if (core.kind == ValueKind::kNotPublished) ++c_.not_published;
  } else {
    ++c_.retracted;
  }
  wrote_anything_ = true;
  return Status::OK();
}

Status BulkWriterImpl::BuildFiles(const std::string& run_id, std::vector<rocksdb::IngestExternalFileArg>* args) {
  CHIPKG_RETURN_IF_ERROR(stream_->Finish());
  // No fact comes any more to check against the texts: their memory goes
  // to the index sorter's entries, made as each index is drained.
  std::unordered_map<uint64_t, std::string>().swap(texts_);
  std::deque<uint64_t>().swap(text_order_);
  text_bytes_ = 0;
  direct_writes_ = facts_sink_->direct();

  std::vector<std::pair<std::string, uint32_t>> reverse_only;
  if (!raw_) {
    Transaction t;
    t.id = tx_;
    t.time_micros = NowMicros();
    t.run_id = run_id;
    t.description = "bulk load: " + std::to_string(stats_.facts) + " facts, " + std::to_string(documents_.size()) +
                    " documents, " + std::to_string(entities_.size()) + " entities";
    txs_[tx_] = t;
    // The facts name the reserved id; the forward entry goes to the id the
    // string already has (or a new one), so every id decodes to run_id.
    CHIPKG_RETURN_IF_ERROR(interner_->Intern(run_id).status());
    reverse_only.emplace_back(run_id, run_dict_id_);
  }

  auto sink_for = [&](int cf) { return std::make_unique<SstSink>(store_->SstOptions(cf), dir_, codec::CfName(cf)); };
  std::vector<std::pair<int, std::unique_ptr<SstSink>>> small;

  // dict: 'F' string -> id, then 'R' id -> string.
  {
    auto sink = sink_for(codec::kDictCf);
    std::vector<std::pair<std::string, uint32_t>> forward = interner_->added();
    std::sort(forward.begin(), forward.end());
    std::string idv;
    for (const auto& [s, id] : forward) {
      idv.clear();
      codec::PutU32(&idv, id);
      CHIPKG_RETURN_IF_ERROR(sink->Put(codec::DictForwardKey(s), idv));
    }
    std::vector<std::pair<uint32_t, const std::string*>> reverse;
    for (const auto& [s, id] : interner_->added()) reverse.emplace_back(id, &s);
    for (const auto& [s, id] : reverse_only) reverse.emplace_back(id, &s);
    std::sort(reverse.begin(), reverse.end());
    for (const auto& [id, s] : reverse) CHIPKG_RETURN_IF_ERROR(sink->Put(codec::DictReverseKey(id), *s));
    small.emplace_back(codec::kDictCf, std::move(sink));
  }
  // entities and their alias keys; stale keys of a replaced entity are deleted.
  {
    auto sink = sink_for(codec::kEntitiesCf);
    std::map<std::string, std::optional<uint8_t>> alias;
    std::string value;
    for (auto& [id, e] : entities_) {
      auto stored = store_->GetEntity(id);
      if (stored.ok()) {
        for (const auto& [norm, rank] : AliasEntries(*stored)) alias.emplace(codec::AliasKey(norm, id), std::nullopt);
        e.created_tx = stored->created_tx;
      } else if (stored.status().IsNotFound()) {
        ++c_.entities;
        if (!raw_) e.created_tx = tx_;  // an import keeps the record's own
      } else {
        return stored.status();
      }
      for (const auto& [norm, rank] : AliasEntries(e)) alias[codec::AliasKey(norm, id)] = rank;
      value.clear();
      codec::EncodeEntity(e, &value);
      CHIPKG_RETURN_IF_ERROR(sink->Put(id, value));
    }
    small.emplace_back(codec::kEntitiesCf, std::move(sink));
    auto alias_sink = sink_for(codec::kAliasCf);
    for (const auto& [key, rank] : alias) {
      if (rank) {
        CHIPKG_RETURN_IF_ERROR(alias_sink->Put(key, std::string(1, static_cast<char>(*rank))));
      } else {
        CHIPKG_RETURN_IF_ERROR(alias_sink->Delete(key));
      }
    }
    small.emplace_back(codec::kAliasCf, std::move(alias_sink));
  }
  {
    auto sink = sink_for(codec::kDocumentsCf);
    std::string value;
    for (const auto& [id, doc] : documents_) {
      auto it = docs_.find(id);
      if (it == docs_.end() || !it->second.stored) ++c_.documents;
      value.clear();
      codec::EncodeDocument(doc, &value);
      CHIPKG_RETURN_IF_ERROR(sink->Put(id, value));
    }
    small.emplace_back(codec::kDocumentsCf, std::move(sink));
  }
  {
    auto sink = sink_for(codec::kTxCf);
    std::string value;
    for (const auto& [id, t] : txs_) {
      value.clear();
      codec::EncodeTx(t, &value);
      CHIPKG_RETURN_IF_ERROR(sink->Put(codec::TxKey(id), value));
      c_.last_tx = std::max(c_.last_tx, id);
      ++c_.transactions;
    }
    small.emplace_back(codec::kTxCf, std::move(sink));
  }
  {
    auto sink = sink_for(codec::kUserMetaCf);
    for (const auto& [k, v] : user_meta_) CHIPKG_RETURN_IF_ERROR(sink->Put(k, v));
    small.emplace_back(codec::kUserMetaCf, std::move(sink));
  }
  c_.next_dict = interner_->next_id();
  {
    auto sink = sink_for(codec::kMetaCf);
    std::map<std::string, std::string> counters;
    c_.ForEach([&](const char* name, uint64_t& field) {
      std::string v;
      codec::PutU64(&v, field);
      counters[codec::CounterKey(name)] = v;
    });
    for (const auto& [k, v] : counters) CHIPKG_RETURN_IF_ERROR(sink->Put(k, v));
    small.emplace_back(codec::kMetaCf, std::move(sink));
  }

  // The large sorters, one per task, on every core.
  CHIPKG_RETURN_IF_ERROR(index_->PrepareDrain());
  std::vector<int> sorted = {codec::kPosCf, codec::kSpoCf, codec::kDocCf, codec::kVersionsCf, codec::kRefCf};
  std::vector<std::unique_ptr<SstSink>> sorted_sinks;
  std::vector<std::function<Status()>> tasks;
  auto contested_sink = sink_for(codec::kContestedCf);
  for (int cf : sorted) {
    sorted_sinks.push_back(sink_for(cf));
    SstSink* sink = sorted_sinks.back().get();
    if (cf == codec::kVersionsCf) {
      tasks.push_back([this, sink] {
        CHIPKG_RETURN_IF_ERROR(versions_->Drain(sink));
        return sink->Finish();
      });
      continue;
    }
    if (cf == codec::kSpoCf) {
      // spo comes out by pair: the contested pairs' entries are copied to
      // `contested` on the way (engine/contested.h).
      tasks.push_back([this, sink, contested = contested_sink.get()] {
        StoredPairs stored(store_, facts_before_ > 0);
        ContestedSplitter splitter(sink, contested, stored.lookup());
        CHIPKG_RETURN_IF_ERROR(index_->Drain(FactIndexSorter::kSpo, &splitter));
        CHIPKG_RETURN_IF_ERROR(splitter.Finish());
        CHIPKG_RETURN_IF_ERROR(sink->Finish());
        return contested->Finish();
      });
      continue;
    }
    const auto index = cf == codec::kPosCf   ? FactIndexSorter::kPos
                       : cf == codec::kSpoCf ? FactIndexSorter::kSpo
                       : cf == codec::kDocCf ? FactIndexSorter::kDoc
                                             : FactIndexSorter::kRef;
    tasks.push_back([this, sink, index] {
      CHIPKG_RETURN_IF_ERROR(index_->Drain(index, sink));
      return sink->Finish();
    });
  }
  for (auto& [cf, sink] : small) CHIPKG_RETURN_IF_ERROR(sink->Finish());
  CHIPKG_RETURN_IF_ERROR(RunParallel(std::move(tasks), std::max(2u, std::thread::hardware_concurrency())));
  index_->Release();

  // A column family's files go in one argument: the version texts streamed
  // during the load and those sorted at the end may interleave (a new version
  // of an older document), which IngestExternalFiles accepts within one
  // argument, not across two for the same column family.
  auto add_arg = [&](int cf, const SstSink& sink, const SstSink* more = nullptr) {
    std::vector<std::string> files = sink.files();
    if (more != nullptr) files.insert(files.end(), more->files().begin(), more->files().end());
    if (files.empty()) return;
    rocksdb::IngestExternalFileArg arg;
    arg.column_family = store_->cf(cf);
    arg.external_files = std::move(files);
    arg.options.move_files = true;
    arg.options.snapshot_consistency = true;
    arg.options.allow_global_seqno = true;
    arg.options.allow_blocking_flush = true;
    args->push_back(std::move(arg));
  };
  add_arg(codec::kFactsCf, *facts_sink_);
  add_arg(codec::kProvCf, *prov_sink_);
  for (size_t i = 0; i < sorted.size(); ++i) {
    add_arg(sorted[i], *sorted_sinks[i], sorted[i] == codec::kVersionsCf ? texts_sink_.get() : nullptr);
  }
  add_arg(codec::kContestedCf, *contested_sink);
  for (auto& [cf, sink] : small) add_arg(cf, *sink);
  return Status::OK();
}

Result<ImportStats> BulkWriterImpl::Finish(const std::string& run_id) {
  CHIPKG_BULK_CHECK();
  finished_ = true;
  stats_.documents = documents_.size();
  stats_.entities = entities_.size();
  if (!wrote_anything_) {
    Cleanup();
    store_->EndBulk(nullptr);
    return stats_;
  }
  std::vector<rocksdb::IngestExternalFileArg> args;
  Status s = BuildFiles(run_id, &args);

  if (s.ok()) {
    s = FromRocks(store_->db()->IngestExternalFiles(args), "ingesting the bulk load into " + store_->path());
  }
  if (!s.ok()) {
    Cleanup();
    store_->EndBulk(nullptr);
    return s;
  }
  store_->dictionary().Remember(interner_->added());
  store_->EndBulk(&c_);
  Cleanup();
  return stats_;
}

}  // namespace chipkg::internal
