// The RocksDB store: opening, the format check, single writes and reads.
// Bulk loads are in bulk_writer.cpp, export and import in export.cpp.
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_set>

#include "engine/bulk_writer_impl.h"
#include "engine/contested.h"
#include "engine/store_impl.h"
#include "engine/wal_copy.h"

namespace chipkg {

namespace fs = std::filesystem;
using internal::StoreImpl;

Status CurrentFileLost(const std::string& path) {
  std::error_code ec;
  if (fs::exists(fs::path(path) / "CURRENT", ec) || ec) return Status::OK();
  std::string manifest;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("MANIFEST-", 0) == 0 && name > manifest) manifest = name;
  }
  if (manifest.empty()) return Status::OK();
  return Status::Corruption(path + " is a damaged store: its CURRENT file is missing, while " + manifest +
                            " is there; the store is damaged: CURRENT names the MANIFEST to read, so in a copy of "
                            "the directory a CURRENT holding that name and a newline may open it; or restore the "
                            "directory from a copy, or its contents from an export (chipkg import FILE into a new "
                            "store)");
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, const StoreOptions& options) {
  if (options.damaged_log != StoreOptions::DamagedLog::kRefuse) {
    // A writer's first flush would make the skipped writes' loss permanent.
    return Status::InvalidArgument("opening store " + path + ": only a reader may skip damaged log records");
  }
  auto impl = std::make_unique<StoreImpl>(path, options, /*read_only=*/false);
  CHIPKG_RETURN_IF_ERROR(impl->OpenPrimary());
  return std::unique_ptr<Store>(std::move(impl));
}

Result<std::unique_ptr<Store>> Store::OpenReader(const std::string& path, const StoreOptions& options) {
  auto impl = std::make_unique<StoreImpl>(path, options, /*read_only=*/true);
  CHIPKG_RETURN_IF_ERROR(impl->OpenAsReader());
  return std::unique_ptr<Store>(std::move(impl));
}

Result<std::unique_ptr<Store>> Store::OpenRepairedCopy(const std::string& damaged, const std::string& scratch) {
  auto impl = std::make_unique<StoreImpl>(scratch, StoreOptions{}, /*read_only=*/true);
  CHIPKG_RETURN_IF_ERROR(impl->RepairCopyOf(damaged));
  CHIPKG_RETURN_IF_ERROR(impl->OpenAsReader());
  return std::unique_ptr<Store>(std::move(impl));
}

namespace internal {

using codec::CoreRecord;

namespace {

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }
rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }

// Bytes of the fixed-length prefix extractor of a CF (0: none).
size_t PrefixLength(int cf) {
  switch (cf) {
    case codec::kSpoCf:
    case codec::kContestedCf:
    case codec::kRefCf:
    case codec::kDocCf: return 4;
    case codec::kVersionsCf: return 5;
    default: return 0;
  }
}

size_t DefaultBlockCacheBytes(const std::string& path) {
  uint64_t files = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".sst") files += entry.file_size(ec);
  }
  const uint64_t floor = 64ull << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const uint64_t ceiling = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 4 : 1ull << 30;
  return static_cast<size_t>(std::max(floor, std::min(ceiling, 2 * files)));
}

// A reader's info log would be read by nobody; but writing it costs every
// one-shot `chipkg query` the formatting of each column family's options.
// Messages at every level are dropped before they are formatted.
class SilentLogger final : public rocksdb::Logger {
 public:
  SilentLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::NUM_INFO_LOG_LEVELS) {}
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

// A writer's info log (the store's LOG): warnings and errors, appended with
// plain stdio. RocksDB's own log file aborts the process when a write to it
// fails (its writer asserts, and Debian's library is built with assertions
// on): on a full disk every writing command died, where the store's own
// writes fail cleanly. Here a line that cannot be written is dropped. A LOG
// past 4 MiB is moved to LOG.old when the store is opened.
class StoreLog final : public rocksdb::Logger {
 public:
  explicit StoreLog(std::string path) : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL), path_(std::move(path)) {
    std::error_code ec;
    if (std::filesystem::file_size(path_, ec) > (4u << 20) && !ec) {
      std::filesystem::rename(path_, path_ + ".old", ec);
    }
  }
  ~StoreLog() override {
    if (file_ != nullptr) std::fclose(file_);
  }
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    std::lock_guard lock(mu_);
    if (file_ == nullptr) file_ = std::fopen(path_.c_str(), "a");  // the directory may not exist yet
    if (file_ == nullptr) return;
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ ", &tm);
    std::fputs(stamp, file_);
    std::vfprintf(file_, format, ap);
    std::fputc('\n', file_);
    std::fflush(file_);  // errors dropped: a log line is not worth the store
    std::clearerr(file_);
  }

 private:
  std::string path_;
  std::mutex mu_;
  std::FILE* file_ = nullptr;
};

// The CFs that grow with the store: the facts and their indexes, and the
// entities, aliases and documents, whose index blocks and (entities,
// documents) whole-key filters, hundreds of KB each at 100k chips, a one-shot
// query's first lookups would otherwise read entire. meta, tx and usermeta
// stay a few KB.
bool PartitionedMetadata(int cf) {
  return cf != codec::kDefaultCf && cf != codec::kMetaCf && cf != codec::kTxCf && cf != codec::kUserMetaCf;
}

Result<Document> DecodeDocumentRecord(const std::string& id, std::string_view value) {
  Document d;
  if (!codec::DecodeDocument(id, value, &d)) return Status::Corruption("record of document " + id + " cannot be decoded");
  return d;
}

// A version's record without its text; `text_size` is the size the text must have.
Result<DocumentVersion> DecodeVersionRecord(uint32_t version, std::string_view value, uint64_t* text_size) {
  DocumentVersion v;
  if (!codec::DecodeVersionMeta(value, &v, text_size)) {
    return Status::Corruption("version record " + std::to_string(version) + " cannot be decoded");
  }
  v.version = version;
  return v;
}

std::string Quote(std::string_view s, size_t max = 60) {
  std::string out = "'";
  out.append(s.substr(0, max));
  if (s.size() > max) out += "...";
  return out + "'";
}

// The prefix length to give Scan for all the keys of `prefix`, up to
// `limit` (its successor): 0, a total-order seek stopped by the limit, where
// there is one. A subject or document asked about nearly always has facts,
// and the prefix filter, a block of its own to find and probe, would only
// confirm it (Q1 and Q4 of the peer benchmark 1-2% faster in a loop;
// tools/bench/HISTORY.md, session 35). A prefix of 0xff bytes alone has no
// successor: that scan keeps to the prefix through the prefix extractor.
size_t SeekLengthWithin(const std::string& prefix, const std::string& limit) {
  return limit.empty() ? prefix.size() : 0;
}

// Point reads of `keys` (in key order) by MultiGet, a batch at a time so
// that a long list does not pin every value at once; `take(i, status, value)`
// for each key in order, stopping at its first error.
template <typename Take>
Status MultiGetSortedKeys(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& read_options,
                          const std::vector<std::string>& keys, Take&& take) {
  constexpr size_t kBatch = 1024;
  std::vector<rocksdb::Slice> slices;
  std::vector<rocksdb::PinnableSlice> values(std::min(kBatch, keys.size()));
  std::vector<rocksdb::Status> statuses(values.size());
  for (size_t begin = 0; begin < keys.size(); begin += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - begin);
    slices.clear();
    for (size_t i = 0; i < n; ++i) {
      slices.emplace_back(keys[begin + i]);
      values[i].Reset();
    }
    db->MultiGet(read_options, cf, n, slices.data(), values.data(), statuses.data(), /*sorted_input=*/true);
    for (size_t i = 0; i < n; ++i) CHIPKG_RETURN_IF_ERROR(take(begin + i, statuses[i], values[i]));
  }
  return Status::OK();
}

}  // namespace

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::OK();
  std::string msg = what + ": " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsInvalidArgument() || s.IsNotSupported()) return Status::InvalidArgument(msg);
  if (s.IsBusy() || s.IsTryAgain()) return Status::Busy(msg);
  if (s.IsAborted()) return Status::Aborted(msg);
  return Status::IOError(msg);
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool Visible(TxId asserted_tx, TxId retracted_tx, const std::optional<Date>& valid_as_of, const ReadView& view) {
  const TxId at = view.as_of_tx.value_or(UINT64_MAX);
  if (asserted_tx > at) return false;
  if (!view.include_retracted && retracted_tx != 0 && retracted_tx <= at) return false;
  // A claim dated to a month or year holds from its first day; the view date
  // is on or after that when its own covered interval reaches that day.
  if (view.valid_on && valid_as_of && valid_as_of->FirstDay() > view.valid_on->LastDay()) return false;
  return true;
}

// ---- Dictionary --------------------------------------------------------------

Result<std::optional<uint32_t>> Dictionary::Find(std::string_view s) const {
  if (s.empty()) return std::optional<uint32_t>(0);
  {
    std::shared_lock lock(mu_);
    auto it = forward_.find(s);
    if (it != forward_.end()) return std::optional<uint32_t>(it->second);
  }
  std::string value;
  point_reads_.fetch_add(1, std::memory_order_relaxed);
  rocksdb::Status st = db_->Get(rocksdb::ReadOptions(), cf_, codec::DictForwardKey(s), &value);
  if (st.IsNotFound()) return std::optional<uint32_t>();
  if (!st.ok()) return FromRocks(st, "dictionary lookup of " + Quote(s));
  if (value.size() != 4) return Status::Corruption("dictionary entry for " + Quote(s) + " is not 4 bytes");
  uint32_t id = codec::GetU32(value.data());
  Remember({{std::string(s), id}});
  return std::optional<uint32_t>(id);
}

Result<std::vector<std::optional<uint32_t>>> Dictionary::FindAll(const std::vector<std::string_view>& strings) const {
  std::vector<std::optional<uint32_t>> ids(strings.size());
  std::vector<size_t> unknown;
  {
    std::shared_lock lock(mu_);
    for (size_t i = 0; i < strings.size(); ++i) {
      if (strings[i].empty()) {
        ids[i] = 0;
        continue;
      }
      auto it = forward_.find(strings[i]);
      if (it != forward_.end()) {
        ids[i] = it->second;
      } else {
        unknown.push_back(i);
      }
    }
  }
  for (size_t i : unknown) {
    CHIPKG_ASSIGN_OR_RETURN(ids[i], Find(strings[i]));
  }
  return ids;
}

Status Dictionary::NameInto(uint32_t id, std::string* out) const {
  if (id == 0) {
    out->clear();
    return Status::OK();
  }
  {
    std::shared_lock lock(mu_);
    if (const std::string* known = Known(id)) {
      out->assign(*known);
      return Status::OK();
    }
  }
  CHIPKG_ASSIGN_OR_RETURN(*out, Name(id));
  return Status::OK();
}

Result<std::string> Dictionary::Name(uint32_t id) const {
  if (id == 0) return std::string();
  {
    std::shared_lock lock(mu_);
    if (const std::string* known = Known(id)) return *known;
  }
  std::string value;
  point_reads_.fetch_add(1, std::memory_order_relaxed);
  rocksdb::Status st = db_->Get(rocksdb::ReadOptions(), cf_, codec::DictReverseKey(id), &value);
  if (st.IsNotFound()) return Status::Corruption("dictionary has no entry for id " + std::to_string(id));
  if (!st.ok()) return FromRocks(st, "dictionary lookup of id " + std::to_string(id));
  Remember({{value, id}});
  return value;
}

void Dictionary::Remember(const std::vector<std::pair<std::string, uint32_t>>& entries) const {
  std::unique_lock lock(mu_);
  for (const auto& [s, id] : entries) {
    // Several ids may carry one string (a bulk load's reserved run id); the
    // forward map keeps the first, which is the one stored under 'F'.
    forward_.try_emplace(s, id);
    const size_t chunk = id >> kChunkBits, slot = id & ((size_t{1} << kChunkBits) - 1);
    if (chunk >= chunks_.size()) chunks_.resize(chunk + 1);
    if (!chunks_[chunk]) chunks_[chunk] = std::make_unique<Chunk>();
    chunks_[chunk]->names[slot] = s;
    chunks_[chunk]->known.set(slot);
  }
}

Status Dictionary::Learn(std::vector<uint32_t> ids, const rocksdb::ReadOptions& read_options) const {
  {
    std::shared_lock lock(mu_);
    std::erase_if(ids, [this](uint32_t id) { return id == 0 || Known(id) != nullptr; });
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) return Status::OK();
  // Reverse keys put the id big-endian after their tag: in the ids' order.
  std::vector<std::string> keys;
  keys.reserve(ids.size());
  for (uint32_t id : ids) keys.push_back(codec::DictReverseKey(id));
  std::vector<std::pair<std::string, uint32_t>> learnt;
  learnt.reserve(ids.size());
  CHIPKG_RETURN_IF_ERROR(MultiGetSortedKeys(db_, cf_, read_options, keys,
                                            [&](size_t i, const rocksdb::Status& st, const rocksdb::PinnableSlice& value) {
    const uint32_t id = ids[i];
    if (st.IsNotFound()) return Status::Corruption("dictionary has no entry for id " + std::to_string(id));
    if (!st.ok()) return FromRocks(st, "dictionary lookup of id " + std::to_string(id));
    learnt.emplace_back(value.ToString(), id);
    return Status::OK();
  }));
  Remember(learnt);
  return Status::OK();
}

Status Dictionary::LearnIds(std::vector<std::string_view> strings, const rocksdb::ReadOptions& read_options) const {
  {
    std::shared_lock lock(mu_);
    std::erase_if(strings, [this](std::string_view s) { return s.empty() || forward_.find(s) != forward_.end(); });
  }
  std::sort(strings.begin(), strings.end());
  strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
  if (strings.empty()) return Status::OK();
  // Forward keys are the string after one tag byte: in the strings' order.
  std::vector<std::string> keys;
  keys.reserve(strings.size());
  for (std::string_view s : strings) keys.push_back(codec::DictForwardKey(s));
  std::vector<std::pair<std::string, uint32_t>> learnt;
  learnt.reserve(strings.size());
  CHIPKG_RETURN_IF_ERROR(MultiGetSortedKeys(db_, cf_, read_options, keys,
                                            [&](size_t i, const rocksdb::Status& st, const rocksdb::PinnableSlice& value) {
    const std::string_view s = strings[i];
    if (st.IsNotFound()) return Status::OK();
    if (!st.ok()) return FromRocks(st, "dictionary lookup of " + Quote(s));
    if (value.size() != 4) return Status::Corruption("dictionary entry for " + Quote(s) + " is not 4 bytes");
    learnt.emplace_back(std::string(s), codec::GetU32(value.data()));
    return Status::OK();
  }));
  Remember(learnt);
  return Status::OK();
}

const std::string* Dictionary::Known(uint32_t id) const {
  const size_t chunk = id >> kChunkBits, slot = id & ((size_t{1} << kChunkBits) - 1);
  if (chunk >= chunks_.size() || !chunks_[chunk] || !chunks_[chunk]->known.test(slot)) return nullptr;
  return &chunks_[chunk]->names[slot];
}

Result<uint32_t> Interner::Intern(std::string_view s) {
  if (s.empty()) return 0u;
  auto it = known_.find(s);
  if (it != known_.end()) return it->second;
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> found, dict_->Find(s));
  if (found) {
    known_.emplace(std::string(s), *found);
    return *found;
  }
  if (next_id_ == UINT32_MAX) return Status::InvalidArgument("dictionary is full (2^32 strings)");
  uint32_t id = next_id_++;
  known_.emplace(std::string(s), id);
  added_.emplace_back(std::string(s), id);
  return id;
}

// ---- opening -------------------------------------------------------------------

StoreImpl::StoreImpl(std::string path, const StoreOptions& options, bool read_only)
    : path_(std::move(path)), read_only_(read_only), options_(options) {
  BuildOptions(options);
}

StoreImpl::~StoreImpl() { CloseDb(); }

void StoreImpl::FlushEveryColumnFamily() {
  std::vector<rocksdb::ColumnFamilyHandle*> ours;
  for (int cf = 0; cf < codec::kCfCount; ++cf) {
    if (handles_[cf] != nullptr) ours.push_back(handles_[cf]);
  }
  rocksdb::FlushOptions fo;
  fo.wait = true;
  db_->Flush(fo, ours).PermitUncheckedError();
}

void StoreImpl::CloseDb() {
  if (db_ == nullptr) {
    LetGoAsWriter();  // an open that failed after taking it
    return;
  }
  if (!read_only_) {
    // Writes live in the WAL and memtables until flushed; flushing here spares
    // the next open (and every reader) from replaying them, which for a
    // session of document writes costs seconds. Failure only leaves the WAL.
    // A store that failed to open (an upgrade cut short) may lack some.
    FlushEveryColumnFamily();
  }
  for (auto* h : handles_) {
    if (h != nullptr) db_->DestroyColumnFamilyHandle(h);
  }
  const bool closed = db_->Close().ok();
  delete db_;
  db_ = nullptr;
  handles_.clear();
  if (!read_only_ && closed) RecordCleanClose();
  LetGoAsWriter();
}

namespace {

// RocksDB reads a MANIFEST cut short (a copy or a disk that lost its tail)
// as the store it was some edits earlier, silently: readers then answered
// from a store missing whole documents, with exit status 0, `export`
// wrote an empty backup over a good one, and the next writer deleted every
// table file the shortened MANIFEST does not name, for good. A writer's
// clean close therefore records the MANIFEST it leaves and that file's size;
// a writer deletes the record once it has opened (the open starts a new
// MANIFEST, leaving the old one as it was), so while the record stands and
// CURRENT names its MANIFEST, that file must be exactly that size.
constexpr char kCleanCloseRecord[] = "CHIPKG-CLEAN-CLOSE";

std::string CurrentManifest(const fs::path& store) {
  std::ifstream current(store / "CURRENT", std::ios::binary);
  std::string name;
  std::getline(current, name);
  return name;
}

}  // namespace

void StoreImpl::RecordCleanClose() const {
  const fs::path store(path_);
  const std::string manifest = CurrentManifest(store);
  std::error_code ec;
  const auto size = fs::file_size(store / manifest, ec);
  if (manifest.empty() || ec) return;  // no record: no check, as for a store closed before records were kept
  const fs::path temporary = store / (std::string(kCleanCloseRecord) + ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << manifest << ' ' << size << '\n';
    if (!out.flush()) return;
  }
  fs::rename(temporary, store / kCleanCloseRecord, ec);
}

Status StoreImpl::CheckSinceCleanClose() const {
  const fs::path store(path_);
  // A CURRENT that names no file (edited, or its MANIFEST lost) got
  // RocksDB's "No such file or directory", which reads as a mistyped path.
  const std::string named = CurrentManifest(store);
  std::error_code missing;
  // (Read twice: a writer that moves to a new MANIFEST deletes the old one
  // after CURRENT names the new.)
  if (!named.empty() && named.find('/') == std::string::npos && !fs::exists(store / named, missing) && !missing &&
      CurrentManifest(store) == named) {
    return Status::Corruption("opening " + path_ + ": its CURRENT names " + named +
                              " (the record of which table files hold the data), which is not there; the store is "
                              "damaged, and nothing was read or changed");
  }
  std::ifstream in(store / kCleanCloseRecord, std::ios::binary);
  if (!in) return Status::OK();
  std::string recorded;
  uintmax_t recorded_size = 0;
  if (!(in >> recorded >> recorded_size)) return Status::OK();  // a record cut short proves nothing
  const std::string manifest = CurrentManifest(store);
  if (manifest != recorded) return Status::OK();  // a writer has run since (and its record was not removed)
  std::error_code ec;
  const auto size = fs::file_size(store / manifest, ec);
  if (!ec && size == recorded_size) return Status::OK();
  // A writer opening meanwhile names a new MANIFEST and deletes this one.
  if (CurrentManifest(store) != manifest) return Status::OK();
  return Status::Corruption(
      "opening " + path_ + ": its " + manifest + " (the record of which table files hold the data) " +
      (ec ? std::string("cannot be read (") + ec.message() + ")"
          : "is " + std::to_string(size) + " bytes where the last clean close left " + std::to_string(recorded_size)) +
      "; the store is damaged: read as it is, whole documents would be missing and the next write would delete "
      "their files, so nothing was read or changed. Restore the store's directory from a copy, or its contents "
      "from an export (chipkg import FILE into a new store), or ingest its sources again into a new store");
}

namespace {
constexpr char kWriterHold[] = "CHIPKG-WRITER";
}  // namespace

Status StoreImpl::HoldAsWriter() {
  const std::string file = (fs::path(path_) / kWriterHold).string();
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  // Where the file cannot be made or locked (a directory this process may
  // not write, a file system without flock), RocksDB's LOCK still guards
  // the open, and its error says why.
  if (fd < 0) return Status::OK();
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy("another chipkg process is writing to " + path_ + " (it holds " + kWriterHold + ")");
    }
    return Status::OK();
  }
  writer_hold_fd_ = fd;
  return Status::OK();
}

void StoreImpl::LetGoAsWriter() {
  if (writer_hold_fd_ < 0) return;
  ::close(writer_hold_fd_);  // lets the flock go
  writer_hold_fd_ = -1;
}

void StoreImpl::ForgetCleanClose() const {
  std::error_code ec;
  fs::remove(fs::path(path_) / kCleanCloseRecord, ec);
}

void StoreImpl::BuildOptions(const StoreOptions& options) {
  cache_ = rocksdb::NewLRUCache(options.block_cache_bytes != 0 ? options.block_cache_bytes : DefaultBlockCacheBytes(path_));
  db_options_.create_if_missing = options.create_if_missing;
  db_options_.create_missing_column_families = true;
  db_options_.max_background_jobs = 2;
  db_options_.max_open_files = -1;  // every table file opened (and checked) at open; the store has few files
  // Opening them on a pool of threads started 16 per column family (228
  // thread starts for an unchanged cron ingest of 20 ms): one thread reads
  // the few footers sooner. Readers do the same (ReaderOptions).
  db_options_.max_file_opening_threads = 1;
  db_options_.keep_log_file_num = 2;
  db_options_.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_options_.db_write_buffer_size = 256 << 20;
  db_options_.bytes_per_sync = 1 << 20;
  // After a crash, reopening replays the WAL into memtables instead of first
  // flushing one small file per CF (each synced); a full WAL forces a flush.
  db_options_.avoid_flush_during_recovery = true;
  // A write-ahead log damaged before its end (a bad record with good ones
  // after it: a flipped byte, a disk's error; a crash only cuts the tail,
  // which is tolerated) refuses the open with Corruption. Read as RocksDB's
  // default mode reads it, the writes after the damage were dropped without
  // a word (a store killed with 96 documents in its log answered with 46,
  // exit 0), and the next writer's flush made that permanent.
  db_options_.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  db_options_.max_total_wal_size = 256 << 20;
  // A write touches most column families at once. Flushed one by one (a
  // family whose memory filled first, or a close killed half way), some
  // families' table files hold writes that the others keep only in the log;
  // a log then cut short (a copy, a damaged disk: RocksDB reads a cut tail as
  // the end of a crash) left a store that disagreed with itself and said
  // nothing: facts without their provenance, counters behind the records.
  // Flushed together, what the tables hold is always a prefix of the writes,
  // whole, so a cut log loses only its tail's writes.
  db_options_.atomic_flush = true;

  const auto supported = rocksdb::GetSupportedCompressions();
  auto has = [&](rocksdb::CompressionType t) { return std::find(supported.begin(), supported.end(), t) != supported.end(); };
  rocksdb::CompressionType fast = has(rocksdb::kLZ4Compression)      ? rocksdb::kLZ4Compression
                                  : has(rocksdb::kSnappyCompression) ? rocksdb::kSnappyCompression
                                                                     : rocksdb::kNoCompression;
  rocksdb::CompressionType bottom = has(rocksdb::kZSTD) ? rocksdb::kZSTD : fast;

  cf_options_.resize(codec::kCfCount);
  for (int cf = 0; cf < codec::kCfCount; ++cf) {
    rocksdb::ColumnFamilyOptions& c = cf_options_[cf];
    c.compression = fast;
    c.bottommost_compression = bottom;
    c.level_compaction_dynamic_level_bytes = true;
    const bool large = cf == codec::kFactsCf || cf == codec::kProvCf || cf == codec::kSpoCf || cf == codec::kPosCf ||
                       cf == codec::kDocCf || cf == codec::kRefCf || cf == codec::kVersionsCf || cf == codec::kDictCf;
    c.write_buffer_size = large ? (32 << 20) : (4 << 20);

    rocksdb::BlockBasedTableOptions t;
    t.block_cache = cache_;
    t.format_version = 5;
    // Index and filter blocks go through the block cache and are read when
    // first needed: otherwise opening the store (every `chipkg query` does)
    // reads every file's whole index and filters, tens of MB for a large store.
    t.cache_index_and_filter_blocks = true;
    t.cache_index_and_filter_blocks_with_high_priority = true;
    t.pin_l0_filter_and_index_blocks_in_cache = true;
    // A one-shot command reads a handful of keys from a cold store: a whole
    // index or filter block of a large file (hundreds of KB, decompressed and
    // checksummed) would cost more than the answer. Partitioned ones are read
    // as a small top level (pinned) plus the one 4 KiB partition a key needs.
    if (PartitionedMetadata(cf)) {
      t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
      t.partition_filters = true;
      t.metadata_block_size = 4096;
      t.pin_top_level_index_and_filter = true;
    }
    // Scanned CFs get larger blocks; point-read CFs keep 4 KiB.
    if (cf == codec::kSpoCf || cf == codec::kPosCf || cf == codec::kDocCf || cf == codec::kVersionsCf ||
        cf == codec::kContestedCf) {
      t.block_size = 16 << 10;
    }
    if (size_t n = PrefixLength(cf); n > 0) {
      c.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(n));
      t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
      // Only prefix seeks are made on these CFs, never whole-key Gets.
      t.whole_key_filtering = cf == codec::kVersionsCf;
    } else if (cf == codec::kDictCf || cf == codec::kEntitiesCf || cf == codec::kDocumentsCf) {
      // Lookups of names that may be absent (a new string, entity or document).
      t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    }
    // facts and prov get no filter: they are read only by ids an index named,
    // which exist, and ids grow, so files barely overlap.
    c.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  }
}

rocksdb::Options StoreImpl::SstOptions(int cf) const {
  rocksdb::Options o(db_options_, cf_options_[cf]);
  // SstFileWriter picks the bottommost compression when one is set; bulk
  // files take the fast one, and compactions recompress them later.
  o.bottommost_compression = rocksdb::kDisableCompressionOption;
  return o;
}

Status StoreImpl::OpenPrimary() {
  std::error_code ec;
  const fs::path p(path_);
  bool exists = fs::exists(p, ec);
  if (exists && !fs::is_directory(p, ec)) {
    return Status::InvalidArgument("store path " + path_ + " is not a directory");
  }
  if (exists && !fs::exists(p / "CURRENT", ec)) {
    CHIPKG_RETURN_IF_ERROR(CurrentFileLost(path_));
    if (!fs::is_empty(p, ec)) {
      return Status::InvalidArgument("store path " + path_ +
                                     " is a non-empty directory that holds no chipkg store (no RocksDB CURRENT "
                                     "file); give an empty or new directory");
    }
  }
  if (!exists || !fs::exists(p / "CURRENT", ec)) {
    if (!db_options_.create_if_missing) return Status::NotFound("no store at " + path_);
    CHIPKG_RETURN_IF_ERROR(CreateStore(path_, options_));
  }
  // The hold's file is made only in a directory the open found to be a
  // chipkg store (another application's RocksDB is left as it was), so the
  // first open by a chipkg that holds takes it once open; every later one
  // before it opens.
  const bool hold_first = fs::exists(p / kWriterHold, ec);
  if (hold_first) CHIPKG_RETURN_IF_ERROR(HoldAsWriter());
  CHIPKG_RETURN_IF_ERROR(CheckSinceCleanClose());
  // Forgotten once open, not before: a writer refused (a damaged table file)
  // took with it the record that lets readers refuse a MANIFEST cut short.
  // A record left by a writer that dies right after its open names the
  // MANIFEST before the open's, so no check holds it against the new one.
  CHIPKG_RETURN_IF_ERROR(OpenDb(/*reader=*/false));
  if (!hold_first) CHIPKG_RETURN_IF_ERROR(HoldAsWriter());
  ForgetCleanClose();
  // After a crash the open replayed the old log into memory (without a
  // flush: avoid_flush_during_recovery), so that log stayed live beside this
  // session's: cut short later, it left a hole before this session's writes
  // rather than a lost tail, and a store that disagreed with itself. Flushed
  // here, this session's log is the only one live. (Nothing in memory, as
  // after a clean close: nothing is written.)
  FlushEveryColumnFamily();
  RetireIdleWals();  // upkeep: a failure leaves the files for the next open
  // Holding the lock, any bulk-load directory left here belongs to a process
  // that died during a load: its files were never ingested.
  for (const auto& entry : fs::directory_iterator(p, ec)) {
    if (entry.is_directory(ec) && entry.path().filename().string().rfind("bulk-tmp-", 0) == 0) {
      std::error_code remove_ec;
      fs::remove_all(entry.path(), remove_ec);
    }
  }
  return Status::OK();
}

// Every writer session starts a WAL, and RocksDB deletes old WALs only when a
// flush moves its oldest-log-to-keep mark (kept in the MANIFEST) past them. A
// session that writes nothing (an unchanged cron ingest, a REPL session of
// queries) never flushes, so each one left an empty WAL behind, and every
// later open, readers' included, replays them all: an hourly cron that
// finds nothing new adds 8,760 files a year. Past a few, rewriting the
// format record (the same bytes) and flushing `meta` moves the mark to the
// current WAL: one small table file, compacted away like any other.
void StoreImpl::RetireIdleWals() {
  constexpr size_t kIdleWalsKept = 4;
  size_t wals = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    if (entry.path().extension() == ".log") ++wals;
  }
  if (ec || wals <= kIdleWalsKept) return;
  rocksdb::WriteOptions wo;
  wo.sync = true;
  if (!db_->Put(wo, handles_[codec::kMetaCf], codec::kFormatKey, codec::kFormatVersion).ok()) return;
  // Every column family, not `meta` alone: after a crash the replayed log
  // may hold other families' writes, and a flush of some families past a
  // log others still need is what an atomic flush rules out (BuildOptions).
  // Families with nothing in memory write no file.
  FlushEveryColumnFamily();
}

Status StoreImpl::CreateStore(const std::string& path, const StoreOptions& options) {
  std::error_code ec;
  const fs::path target(path);
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  fs::create_directories(parent, ec);
  if (ec) return Status::IOError("cannot create directory " + parent.string() + ": " + ec.message());
  const std::string stem = "." + target.filename().string() + ".creating-";
  // Left by creators killed before their rename: nothing refers to them.
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + stem.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
  const fs::path staging = parent / (stem + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) return Status::IOError("cannot create store directory " + staging.string() + ": " + ec.message());
  {
    StoreImpl creator(staging.string(), options, /*read_only=*/false);
    Status made = creator.OpenDb(/*reader=*/false);
    if (!made.ok()) {
      std::error_code ignored;
      fs::remove_all(staging, ignored);
      return made.WithContext("creating store " + path);
    }
  }  // closed: every file written and synced before the rename
  // rename(2) replaces an empty directory (a store path made ahead of time)
  // and fails on a non-empty one: then another process created the store
  // first, and that one is used.
  fs::rename(staging, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    if (fs::exists(target / "CURRENT", ignored)) return Status::OK();
    return Status::IOError("cannot move the new store into " + path + ": " + ec.message());
  }
  return Status::OK();
}

Status StoreImpl::OpenAsReader() {
  std::error_code ec;
  if (!fs::exists(fs::path(path_) / "CURRENT", ec)) {
    return Status::NotFound("no chipkg store at " + path_ + " (no RocksDB CURRENT file)");
  }
  CHIPKG_RETURN_IF_ERROR(CheckSinceCleanClose());
  return OpenDb(/*reader=*/true);
}

namespace {

// The environment of readers: Env::Default() without the background threads
// RocksDB starts at open for flushes and compactions. A read-only instance
// never flushes or compacts, so the threads would sit idle, yet each costs a
// one-shot command its start and, under mimalloc, a heap segment of its own
// whose first huge page is zeroed (~0.5 ms each here). A process that also
// opens a writer starts them through the writer's Env::Default(); readers
// share them then.
class ReaderEnv final : public rocksdb::EnvWrapper {
 public:
  ReaderEnv() : rocksdb::EnvWrapper(rocksdb::Env::Default()) {}
  void IncBackgroundThreadsIfNeeded(int, Priority) override {}
};

rocksdb::Env* ReaderEnvironment() {
  static rocksdb::Env* const env = new ReaderEnv();  // never destroyed: it outlives every reader
  return env;
}

// A write-ahead log damaged before its end (BuildOptions): RocksDB's words
// ("checksum mismatch") do not say which file. A read-only open that reads
// the log up to the damage, or skips the damaged records, succeeds only if
// the damage is there; it writes no file. Either can fail where the other
// opens: reading up to the damage is refused once a column family was
// flushed past it, and skipping fails on a batch whose record checks but
// whose contents do not ("Write batch content corrupted").
std::optional<Status> WalDamage(const rocksdb::Status& st, const std::string& path, rocksdb::DBOptions options,
                                const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors) {
  if (!st.IsCorruption()) return std::nullopt;
  options.create_if_missing = false;
  options.create_missing_column_families = false;
  options.info_log = std::make_shared<SilentLogger>();
  bool opens = false;
  for (auto mode : {rocksdb::WALRecoveryMode::kPointInTimeRecovery, rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords}) {
    options.wal_recovery_mode = mode;
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    const rocksdb::Status tried = rocksdb::DB::OpenForReadOnly(options, path, descriptors, &handles, &db);
    if (db != nullptr) {
      for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
      delete db;
    }
    if (tried.ok()) {
      opens = true;
      break;
    }
  }
  if (!opens) return std::nullopt;
  return Status::Corruption(
      "opening " + path + ": its write-ahead log (the writes since the last flush to table files) is damaged "
      "before its end (" + st.ToString() + "); read as it is, the writes after the damage would be lost without "
      "a word, so nothing was read or changed; the store is damaged: 'chipkg --db " + path + " salvage NEWDIR' "
      "copies what can be read into a new store and says what was lost, or restore its directory from a copy, "
      "or its contents from an export made before the damage (chipkg import FILE into a new store), or ingest "
      "its sources again into a new store");
}

}  // namespace

Status StoreImpl::RepairCopyOf(const std::string& damaged) {
  std::error_code ec;
  if (!fs::exists(fs::path(damaged) / "CURRENT", ec)) {
    return Status::NotFound("no chipkg store at " + damaged + " (no RocksDB CURRENT file)");
  }
  if (!fs::create_directory(path_, ec) || ec) {
    return Status::IOError("cannot make the directory " + path_ + " for a repaired copy of " + damaged +
                           (ec ? ": " + ec.message() : ": it exists"));
  }
  const fs::path from = fs::absolute(damaged, ec);
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& file = it->path();
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    const std::string name = file.filename().string();
    // Its info logs are its own history. The clean-close record goes with
    // the MANIFEST it vouches for, copied byte for byte: a MANIFEST cut
    // short is refused in the copy as in the store.
    if (name == "LOCK" || name.rfind("LOG", 0) == 0) continue;
    const fs::path to = fs::path(path_) / name;
    if (file.extension() == ".log") {
      LogCopyStats stats;
      CHIPKG_RETURN_IF_ERROR(CopyWholeLogRecords(file.string(), to.string(), &stats));
      continue;
    }
    // Table files are never written again once made: a link is as good as a
    // copy and costs no space; a symbolic one where the copy is on another
    // file system (the reader only reads them).
    std::error_code link_ec;
    if (file.extension() == ".sst") {
      fs::create_hard_link(file, to, link_ec);
      if (link_ec) {
        link_ec.clear();
        fs::create_symlink(file, to, link_ec);
      }
    }
    if (file.extension() != ".sst" || link_ec) fs::copy_file(file, to, ec);
    if (ec) return Status::IOError("copying " + file.string() + " to " + to.string() + ": " + ec.message());
  }
  if (ec) return Status::IOError("reading the directory " + damaged + ": " + ec.message());
  return Status::OK();
}

namespace {

// A reader that could not open the store: a damaged file says so, and what
// to do, rather than only RocksDB's words.
Status ReaderOpenFailure(const rocksdb::Status& st, const std::string& path, const rocksdb::DBOptions& options,
                         const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors) {
  if (std::optional<Status> wal = WalDamage(st, path, options, descriptors)) return *wal;
  Status status = FromRocks(st, "opening a reader of " + path);
  if (st.IsCorruption()) {
    return Status::Corruption(status.message() +
                              "; the store is damaged: restore it from an export (chipkg import FILE into a "
                              "new store) or ingest its sources again into a new store");
  }
  return status;
}

rocksdb::DBOptions ReaderOptions(rocksdb::DBOptions opts) {
  opts.create_if_missing = false;
  opts.create_missing_column_families = false;
  // Opening table files on a pool of threads pays a thread start per column
  // family and manifest edit: far more than reading the few footers a
  // chipkg store has. A one-shot `chipkg query` is mostly this open.
  opts.max_file_opening_threads = 1;
  // RocksDB writes a reader's files only through its info log; with a logger
  // of our own it writes none.
  opts.info_log = std::make_shared<SilentLogger>();
  opts.env = ReaderEnvironment();
  return opts;
}

// The write-ahead logs in a store's directory, sorted; nullopt where the
// directory cannot be listed.
std::optional<std::vector<std::string>> LogFiles(const std::string& dir) {
  std::vector<std::string> logs;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".log") logs.push_back(it->path().filename().string());
  }
  if (ec) return std::nullopt;
  std::sort(logs.begin(), logs.end());
  return logs;
}

}  // namespace

rocksdb::Status StoreImpl::OpenReadOnlyDb(const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors,
                                          std::vector<rocksdb::ColumnFamilyHandle*>* handles, rocksdb::DB** db,
                                          std::string* state) const {
  // Not a RocksDB secondary instance: one that cannot open a table file (its
  // checksums fail) takes it for a file the writer has deleted, and serves
  // that column family as it was before the file, silently: queries answered
  // from a store that has lost data, with exit status 0. A read-only
  // instance opens and checks every table file at open and fails instead.
  // A writer's compaction may delete a file between our reading the MANIFEST
  // that names it and our opening it; the open is then tried again on the
  // newer MANIFEST.
  // RocksDB reports such a file as missing, or (the table's file opened
  // under its other name) as Corruption: any failure while the store's state
  // moved on is tried again.
  // An open that succeeds is not enough either. RocksDB reads the MANIFEST
  // (opening every table file it names), then lists the logs and replays
  // them; a writer's flush in between (every writer flushes as it opens and
  // closes, and when a memtable fills) gave a view without the flushed
  // writes: the table file the MANIFEST it read does not name, the log
  // deleted before the listing. Or with a hole: a flush that retired two
  // logs, listed between their deletions, the older one kept. Either needs
  // both the MANIFEST and the set of logs to change during the open; such
  // an open is made again. The MANIFEST alone (a compaction), or logs alone
  // (logs retired by a MANIFEST edit made before the open), cannot tear it.
  const std::string wal_dir = db_options_.wal_dir.empty() ? path_ : db_options_.wal_dir;
  constexpr auto kTornBudget = std::chrono::seconds(5);
  const auto give_up = std::chrono::steady_clock::now() + kTornBudget;
  rocksdb::Status st;
  int torn = 0;
  for (int attempt = 0;; ++attempt) {
    if (torn > 0) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 << std::min(torn, 6), 200)));
    handles->clear();
    *db = nullptr;
    rocksdb::DBOptions options = ReaderOptions(db_options_);
    if (options_.damaged_log == StoreOptions::DamagedLog::kUpToTheDamage) {
      options.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
    } else if (options_.damaged_log == StoreOptions::DamagedLog::kSkipTheDamage) {
      options.wal_recovery_mode = rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords;
    }
    *state = FilesState();
    const std::string manifest_before = ManifestState();
    const std::optional<std::vector<std::string>> logs_before = LogFiles(wal_dir);
    st = rocksdb::DB::OpenForReadOnly(options, path_, descriptors, handles, db);
    const bool manifest_moved = ManifestState() != manifest_before;
    if (st.ok()) {
      if (!manifest_moved) break;
      const std::optional<std::vector<std::string>> logs_after = LogFiles(wal_dir);
      if (logs_before && logs_after && *logs_before == *logs_after) break;
      for (auto* h : *handles) (*db)->DestroyColumnFamilyHandle(h).PermitUncheckedError();
      delete *db;
      ++torn;
      st = rocksdb::Status::TryAgain("a writer flushed during every open for " + std::to_string(kTornBudget.count()) +
                                     " s (" + std::to_string(torn) + " opens); open it again");
      if (std::chrono::steady_clock::now() >= give_up) break;
      continue;
    }
    // A failure while the MANIFEST moved (a file a writer's compaction
    // deleted under the open, a MANIFEST it moved past) is tried again as a
    // torn view is; a missing file twice more at once; anything else is the
    // store's own, said without delay.
    const bool missing = st.IsPathNotFound() || st.IsNotFound();
    if (manifest_moved) {
      ++torn;
      if (std::chrono::steady_clock::now() >= give_up) break;
      continue;
    }
    if (!(missing && attempt < 2)) break;
  }
  if (!st.ok()) {
    handles->clear();
    *db = nullptr;
  }
  return st;
}

std::vector<rocksdb::ColumnFamilyDescriptor> StoreImpl::OurColumnFamilies() const {
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (int cf = 0; cf < codec::kCfCount; ++cf) descriptors.emplace_back(codec::CfName(cf), cf_options_[cf]);
  return descriptors;
}

rocksdb::Status StoreImpl::OpenReaderDirectly() {
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status st = OpenReadOnlyDb(OurColumnFamilies(), &handles, &db_, &opened_state_);
  // RocksDB returns the handles in the order of the descriptors: codec::Cf order.
  if (st.ok()) handles_ = std::move(handles);
  return st;
}

Status StoreImpl::OpenDb(bool reader) {
  if (reader) {
    rocksdb::Status direct = OpenReaderDirectly();
    if (direct.ok()) return CheckFormatAndLoad(/*fresh=*/false, /*reader=*/true);
    // Column families other than chipkg's are for the listing below to
    // explain; anything else is the store's own failure.
    if (!direct.IsInvalidArgument()) return ReaderOpenFailure(direct, path_, db_options_, OurColumnFamilies());
  }
  std::vector<std::string> names;
  rocksdb::Status st = rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path_, &names);
  const bool fresh = !st.ok();  // no MANIFEST yet: a new store
  if (fresh && reader) return FromRocks(st, "listing column families of " + path_);
  if (!fresh && std::find(names.begin(), names.end(), codec::CfName(codec::kMetaCf)) == names.end()) {
    return Status::InvalidArgument("store path " + path_ +
                                   " holds a RocksDB database that is not a chipkg store (no 'meta' column family)");
  }

  // Every CF of the database must be opened; ours first, in codec::Cf order.
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  std::vector<bool> present(codec::kCfCount, fresh);
  for (int cf = 0; cf < codec::kCfCount; ++cf) {
    bool listed = fresh || std::find(names.begin(), names.end(), codec::CfName(cf)) != names.end();
    present[cf] = listed;
    if (listed || !reader) descriptors.emplace_back(codec::CfName(cf), cf_options_[cf]);
  }
  for (const auto& name : names) {
    bool ours = false;
    for (int cf = 0; cf < codec::kCfCount; ++cf) ours = ours || name == codec::CfName(cf);
    if (!ours) descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }

  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DBOptions opts = db_options_;
  if (!reader) opts.info_log = std::make_shared<StoreLog>(path_ + "/LOG");
  if (reader) {
    st = OpenReadOnlyDb(descriptors, &handles, &db_, &opened_state_);
    if (!st.ok() && !st.IsInvalidArgument()) return ReaderOpenFailure(st, path_, db_options_, descriptors);
  } else {
    // A store of another format may lack some of our CFs: do not add them
    // before the format check has had its say.
    opts.create_missing_column_families = fresh;
    if (!fresh) {
      descriptors.erase(std::remove_if(descriptors.begin(), descriptors.end(),
                                       [&](const rocksdb::ColumnFamilyDescriptor& d) {
                                         return std::find(names.begin(), names.end(), d.name) == names.end();
                                       }),
                        descriptors.end());
    }
    if (fresh) {
      // Creating the CFs in one call writes the OPTIONS file once instead of
      // once per CF (each write is re-read and verified: slow).
      std::vector<rocksdb::ColumnFamilyDescriptor> first(descriptors.begin(), descriptors.begin() + 1);
      std::vector<rocksdb::ColumnFamilyDescriptor> rest(descriptors.begin() + 1, descriptors.end());
      st = rocksdb::DB::Open(opts, path_, first, &handles, &db_);
      if (st.ok()) {
        std::vector<rocksdb::ColumnFamilyHandle*> created;
        st = db_->CreateColumnFamilies(rest, &created);
        handles.insert(handles.end(), created.begin(), created.end());
        if (!st.ok()) {
          for (auto* h : handles) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
          handles.clear();
          delete db_;
        }
      }
    } else {
      st = rocksdb::DB::Open(opts, path_, descriptors, &handles, &db_);
    }
  }
  if (!st.ok()) {
    db_ = nullptr;
    const std::string msg = st.ToString();
    if (st.IsIOError() && (msg.find("lock") != std::string::npos || msg.find("LOCK") != std::string::npos)) {
      return Status::Busy("another chipkg process is writing to " + path_ + " (" + msg + ")");
    }
    if (std::optional<Status> wal = WalDamage(st, path_, db_options_, descriptors)) return *wal;
    return FromRocks(st, std::string(reader ? "opening a reader of " : "opening store ") + path_);
  }
  AssignHandles(handles);
  return CheckFormatAndLoad(fresh, reader);
}

void StoreImpl::AssignHandles(const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  handles_.assign(codec::kCfCount, nullptr);
  for (auto* h : handles) {
    int idx = -1;
    for (int cf = 0; cf < codec::kCfCount; ++cf) {
      if (h->GetName() == codec::CfName(cf)) idx = cf;
    }
    if (idx >= 0) {
      handles_[idx] = h;
    } else {
      handles_.push_back(h);
    }
  }
}

Status StoreImpl::CheckFormatAndLoad(bool fresh, bool reader) {
  std::string format;
  rocksdb::Status st = db_->Get(ReadOpts(), handles_[codec::kMetaCf], codec::kFormatKey, &format);
  if (st.IsNotFound() && fresh && !reader) {
    rocksdb::WriteBatch batch;
    batch.Put(handles_[codec::kMetaCf], codec::kFormatKey, codec::kFormatVersion);
    Counters c;
    PutCounters(&batch, &c);
    rocksdb::WriteOptions wo;
    wo.sync = true;
    CHIPKG_RETURN_IF_ERROR(FromRocks(db_->Write(wo, &batch), "initialising store " + path_));
    format = codec::kFormatVersion;
  } else if (st.IsNotFound()) {
    return Status::InvalidArgument("store path " + path_ +
                                   " holds a RocksDB database that is not a chipkg store (no format record)");
  } else if (!st.ok()) {
    return FromRocks(st, "reading the format record of " + path_);
  }
  const bool before_contested = format == codec::kFormatWithoutContested;
  const bool before_marks = before_contested || format == codec::kFormatWithoutRetirementMarks;
  if (format != codec::kFormatVersion && !before_marks) {
    return Status::FormatMismatch("store " + path_ + " has storage format '" + format + "', this chipkg reads '" +
                                  codec::kFormatVersion +
                                  "': export it with the chipkg that wrote it (chipkg export) and import the "
                                  "export into a new store, or use that chipkg");
  }
  for (int cf = 0; cf < codec::kCfCount; ++cf) {
    if (handles_[cf] == nullptr && !(before_contested && cf == codec::kContestedCf)) {
      return Status::Corruption("store " + path_ + " lacks column family '" + codec::CfName(cf) + "'");
    }
  }
  dict_.Attach(db_, handles_[codec::kDictCf]);
  CHIPKG_RETURN_IF_ERROR(LoadCounters());
  // A reader of a store not upgraded yet reads conflicts the old way; a
  // half-built `contested` CF (an upgrade cut short) is never read.
  contested_index_ = !before_contested;
  const std::string if_this_persists =
      " (readers still read it as it is; if this persists, export it with chipkg export and import the export "
      "into a new store)";
  if (before_contested && !reader) {
    CHIPKG_RETURN_IF_ERROR(AddContestedIndex().WithContext("upgrading " + path_ + " from " +
                                                           codec::kFormatWithoutContested + " to " +
                                                           codec::kFormatWithoutRetirementMarks + if_this_persists));
  }
  if (before_marks && !reader) {
    return MarkEarlierRetirements().WithContext("upgrading " + path_ + " from " +
                                                codec::kFormatWithoutRetirementMarks + " to " + codec::kFormatVersion +
                                                if_this_persists);
  }
  return Status::OK();
}

// A document retired by a chipkg of format 2 (or imported from its export)
// has its retirement only in the log ("document D retired: every claim it made withdrawn"): it is marked
// with that transaction, unless claims of it stand again (a changed text or
// a re-extraction since, which that chipkg allowed). One pass over the log,
// once; the format record, written with the marks, says it is done.
Status StoreImpl::MarkEarlierRetirements() {
  std::lock_guard lock(write_mu_);
  CHIPKG_ASSIGN_OR_RETURN(const auto retired, RetiredAsOf(std::nullopt));
  std::string value;
  rocksdb::WriteBatch batch;
  std::vector<std::string> marked;
  for (const auto& [id, tx] : retired) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<Document> doc, ReadDocument(id));
    if (!doc || doc->retired_tx != 0) continue;
    CHIPKG_ASSIGN_OR_RETURN(std::vector<Fact> standing, FactsFromDocument(id, std::nullopt, ReadView{}));
    if (!standing.empty()) continue;
    doc->retired_tx = tx;
    value.clear();
    codec::EncodeDocument(*doc, &value);
    batch.Put(handles_[codec::kDocumentsCf], id, value).PermitUncheckedError();
    marked.push_back(id);
  }
  batch.Put(handles_[codec::kMetaCf], codec::kFormatKey, codec::kFormatVersion);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  const Status written = FromRocks(db_->Write(wo, &batch), "marking the retired documents of " + path_);
  for (const std::string& id : marked) ForgetDocument(id);
  return written;
}

Status StoreImpl::LoadCounters() {
  Counters c;
  Status status;
  c.ForEach([&](const char* name, uint64_t& field) {
    if (!status.ok()) return;
    std::string value;
    rocksdb::Status st = db_->Get(ReadOpts(), handles_[codec::kMetaCf], codec::CounterKey(name), &value);
    if (st.IsNotFound()) return;  // keeps the default
    if (!st.ok()) {
      status = FromRocks(st, std::string("reading counter ") + name + " of " + path_);
    } else if (value.size() != 8) {
      status = Status::Corruption(std::string("counter ") + name + " of " + path_ + " is not 8 bytes");
    } else {
      field = codec::GetU64(value.data());
    }
  });
  CHIPKG_RETURN_IF_ERROR(status);
  std::lock_guard lock(counters_mu_);
  counters_ = c;
  last_tx_.store(c.last_tx);
  return Status::OK();
}

Counters StoreImpl::counters() const {
  std::lock_guard lock(counters_mu_);
  return counters_;
}

void StoreImpl::PutCounters(rocksdb::WriteBatch* batch, Counters* c) {
  c->ForEach([&](const char* name, uint64_t& field) {
    std::string v;
    codec::PutU64(&v, field);
    batch->Put(handles_[codec::kMetaCf], codec::CounterKey(name), v).PermitUncheckedError();
  });
}

void StoreImpl::Commit(const Counters& c, const Interner& interner) {
  dict_.Remember(interner.added());
  std::lock_guard lock(counters_mu_);
  counters_ = c;
  last_tx_.store(c.last_tx);
}

Status StoreImpl::CatchUp() {
  if (!read_only_) return Status::OK();
  // A read-only instance is a fixed view: a new one is opened when the files
  // naming the store's state have changed since (a write ended in the WAL, a
  // flush, a compaction or a bulk load wrote the MANIFEST).
  if (FilesState() == opened_state_) return Status::OK();
  // The new view is opened beside the old one, which stays in use when the
  // new one cannot be opened (a damaged file, a store being replaced).
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* fresh = nullptr;
  std::string state;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors = OurColumnFamilies();
  rocksdb::Status st = OpenReadOnlyDb(descriptors, &handles, &fresh, &state);
  if (st.IsInvalidArgument()) {
    // A store of the format before `contested` (which this reader opened
    // without it) that no writer has upgraded yet.
    std::vector<std::string> names;
    if (rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path_, &names).ok()) {
      std::erase_if(descriptors, [&](const rocksdb::ColumnFamilyDescriptor& d) {
        return std::find(names.begin(), names.end(), d.name) == names.end();
      });
      st = OpenReadOnlyDb(descriptors, &handles, &fresh, &state);
    }
  }
  if (!st.ok()) {
    return ReaderOpenFailure(st, path_, db_options_, descriptors)
        .WithContext("catching up with the writer of " + path_ + " (answers still come from the view opened before)");
  }
  CloseDb();
  db_ = fresh;
  AssignHandles(handles);
  opened_state_ = std::move(state);
  ForgetSources();  // another process may have rewritten any document record
  return CheckFormatAndLoad(/*fresh=*/false, /*reader=*/true).WithContext("catching up with the writer of " + path_);
}

std::string StoreImpl::ManifestState() const {
  std::string state;
  std::error_code ec;
  std::ifstream current(fs::path(path_) / "CURRENT", std::ios::binary);
  std::getline(current, state);
  const auto size = fs::file_size(fs::path(path_) / state, ec);
  return state + " " + (ec ? std::string("?") : std::to_string(size));
}

bool StoreImpl::ManifestMovedSinceOpen() const {
  const std::string now = ManifestState();
  return !(opened_state_ == now || opened_state_.rfind(now + " ", 0) == 0);
}

std::string StoreImpl::FilesState() const {
  std::string state = ManifestState();
  std::error_code ec;
  const auto size_of = [&](const fs::path& p) {
    const auto size = fs::file_size(p, ec);
    return ec ? std::string("?") : std::to_string(size);
  };
  std::vector<std::string> logs;
  std::error_code list_ec;
  fs::directory_iterator it(path_, list_ec);
  for (; !list_ec && it != fs::directory_iterator(); it.increment(list_ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0) logs.push_back(name + ":" + size_of(it->path()));
  }
  if (list_ec) logs.push_back("?");  // unlisted: differs from any listing
  std::sort(logs.begin(), logs.end());
  for (const auto& l : logs) state += " " + l;
  return state;
}

Status StoreImpl::CheckWritable() const {
  if (read_only_) return Status::InvalidArgument("store " + path_ + " is open read-only (a reader)");
  if (bulk_active_) return Status::Busy("a bulk load is in progress on " + path_ + "; write after it finishes");
  return Status::OK();
}

Status StoreImpl::BeginBulk() {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  bulk_active_ = true;
  return Status::OK();
}

void StoreImpl::EndBulk(const Counters* committed) {
  ForgetSources();  // a bulk load may have written any document record
  std::lock_guard lock(write_mu_);
  bulk_active_ = false;
  if (committed != nullptr) {
    std::lock_guard counters_lock(counters_mu_);
    counters_ = *committed;
    last_tx_.store(committed->last_tx);
  }
}

Result<std::unique_ptr<BulkWriter>> StoreImpl::StartBulk() {
  CHIPKG_RETURN_IF_ERROR(BeginBulk());
  auto writer = std::make_unique<BulkWriterImpl>(this, /*raw=*/false);
  Status s = writer->Init();
  if (!s.ok()) return s;  // the writer's destructor ends the bulk state
  return std::unique_ptr<BulkWriter>(std::move(writer));
}

Result<std::unique_ptr<BulkWriterImpl>> StoreImpl::StartRawBulk() {
  CHIPKG_RETURN_IF_ERROR(BeginBulk());
  auto writer = std::make_unique<BulkWriterImpl>(this, /*raw=*/true);
  Status s = writer->Init();
  if (!s.ok()) return s;
  return writer;
}

// ---- building fact records -------------------------------------------------------

// Checks a fact's own fields and interns its strings into `core`.
// `where` names the fact in errors.
Status BuildCore(const Fact& f, Interner* in, const Where& where, CoreRecord* core) {
  if (f.subject.empty()) return Status::InvalidArgument(where() + ": empty subject");
  if (f.predicate.empty()) return Status::InvalidArgument(where() + ": empty predicate");
  if (f.valid_as_of && !f.valid_as_of->IsValid()) {
    return Status::InvalidArgument(where() + ": valid_as_of " + f.valid_as_of->ToString() + " is not a valid date");
  }
  const Value& v = f.value;
  core->kind = v.kind;
  core->original = v.original;
  core->text = {};
  core->number = 0;
  core->dimension = 0;
  core->entity = 0;
  core->date = Date{};
  switch (v.kind) {
    case ValueKind::kQuantity: {
      if (std::isnan(v.number)) return Status::InvalidArgument(where() + ": quantity is NaN");
      core->number = v.number == 0 ? 0.0 : v.number;  // one zero
      CHIPKG_ASSIGN_OR_RETURN(core->dimension, in->Intern(v.dimension, Interner::kDimensionSlot));
      break;
    }
    case ValueKind::kDate:
      if (!v.date.IsValid()) {
        return Status::InvalidArgument(where() + ": date value " + v.date.ToString() + " is not a valid date");
      }
      core->date = v.date;
      break;
    case ValueKind::kEntity: {
      if (v.text.empty()) return Status::InvalidArgument(where() + ": entity value with an empty id");
      CHIPKG_ASSIGN_OR_RETURN(core->entity, in->Intern(v.text));
      break;
    }
    case ValueKind::kText: core->text = v.text; break;
    case ValueKind::kBool: core->number = v.number != 0 ? 1 : 0; break;
    case ValueKind::kNotPublished: break;
    default: return Status::InvalidArgument(where() + ": unknown value kind " + std::to_string(int(v.kind)));
  }
  if (f.provenance.derivation != Derivation::kStated && f.provenance.derivation != Derivation::kStatedDerived) {
    return Status::InvalidArgument(where() + ": unknown derivation");
  }
  CHIPKG_ASSIGN_OR_RETURN(core->subject, in->Intern(f.subject, Interner::kSubjectSlot));
  CHIPKG_ASSIGN_OR_RETURN(core->predicate, in->Intern(f.predicate, Interner::kPredicateSlot));
  CHIPKG_ASSIGN_OR_RETURN(core->rule, in->Intern(f.provenance.rule, Interner::kRuleSlot));
  core->derivation = f.provenance.derivation;
  core->valid_as_of = f.valid_as_of;
  core->qualifiers.clear();
  for (const auto& [k, val] : f.qualifiers) {
    if (k.empty()) return Status::InvalidArgument(where() + ": empty qualifier key");
    CHIPKG_ASSIGN_OR_RETURN(uint32_t kid, in->Intern(k));
    CHIPKG_ASSIGN_OR_RETURN(uint32_t vid, in->Intern(val));
    core->qualifiers.emplace_back(kid, vid);
  }
  return Status::OK();
}

namespace {

std::string FactLabel(size_t index, const Fact& f) {
  return "fact " + std::to_string(index) + " (" + f.subject + " " + f.predicate + ")";
}

}  // namespace

Status CheckSpan(const Provenance& p, std::string_view text, const Where& where) {
  if (p.span_begin > p.span_end) {
    return Status::InvalidArgument(where() + ": span [" + std::to_string(p.span_begin) + ", " +
                                   std::to_string(p.span_end) + ") ends before it begins");
  }
  if (p.span_end > text.size()) {
    return Status::InvalidArgument(where() + ": span [" + std::to_string(p.span_begin) + ", " +
                                   std::to_string(p.span_end) + ") lies outside the text of " + p.document_id +
                                   " version " + std::to_string(p.document_version) + " (" +
                                   std::to_string(text.size()) + " bytes)");
  }
  std::string_view at = text.substr(p.span_begin, p.span_end - p.span_begin);
  if (at != p.excerpt) {
    return Status::InvalidArgument(where() + ": excerpt " + Quote(p.excerpt) + " differs from the text at [" +
                                   std::to_string(p.span_begin) + ", " + std::to_string(p.span_end) +
                                   "): " + Quote(at));
  }
  return Status::OK();
}

void PutFactRecords(rocksdb::WriteBatch* b, const std::vector<rocksdb::ColumnFamilyHandle*>& h, uint64_t id,
                    const CoreRecord& core, const std::string* prov, std::map<std::string, std::string>* spo_written) {
  std::string value;
  codec::EncodeCore(core, &value);
  std::string vkey;
  codec::AppendValueKey(core, &vkey);
  b->Put(h[codec::kFactsCf], codec::FactKey(id), value).PermitUncheckedError();
  if (prov != nullptr) b->Put(h[codec::kProvCf], codec::FactKey(id), *prov).PermitUncheckedError();
  std::string spo_key = codec::SpoKey(core.subject, core.predicate, id);
  b->Put(h[codec::kSpoCf], spo_key, value).PermitUncheckedError();
  (*spo_written)[std::move(spo_key)] = value;
  b->Put(h[codec::kPosCf], codec::PosKey(core.predicate, vkey, id), value).PermitUncheckedError();
  b->Put(h[codec::kDocCf], codec::DocKey(core.document, core.document_version, id), value).PermitUncheckedError();
  if (core.kind == ValueKind::kEntity) {
    std::string header;
    codec::EncodeCoreHeader(core, &header);
    b->Put(h[codec::kRefCf], codec::RefKey(core.entity, id), header).PermitUncheckedError();
  }
}

// ---- writes ---------------------------------------------------------------------

namespace {
std::string RetiredRefusal(const Document& stored) {
  return "document " + stored.id + " was retired by tx " + std::to_string(stored.retired_tx) +
         ": a write asserting claims of it is refused, nothing written (store its new version without claims, "
         "or reinstate it first: chipkg reinstate " + stored.id + ")";
}
}  // namespace

Status StoreImpl::StageMeta(const MetaRecords& meta, rocksdb::WriteBatch* batch) const {
  for (const auto& [key, value] : meta) {
    if (key.empty()) return Status::InvalidArgument("a meta record with an empty key");
    batch->Put(handles_[codec::kUserMetaCf], key, value).PermitUncheckedError();
  }
  return Status::OK();
}

Status StoreImpl::WriteMetaAlone(const MetaRecords& meta) {
  if (meta.empty()) return Status::OK();
  rocksdb::WriteBatch batch;
  CHIPKG_RETURN_IF_ERROR(StageMeta(meta, &batch));
  return FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), "writing meta " + meta.front().first);
}

Result<WriteSummary> StoreImpl::WriteDocumentVersion(const Document& doc, DocumentVersion version,
                                                     std::vector<Fact> facts, const std::string& run_id,
                                                     const std::vector<Entity>& new_entities,
                                                     const MetaRecords& meta) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  const std::string where = "document " + doc.id;
  if (doc.id.empty()) return Status::InvalidArgument("WriteDocumentVersion: empty document id");
  if (!version.document_id.empty() && version.document_id != doc.id) {
    return Status::InvalidArgument(where + ": version names document " + version.document_id);
  }
  if (version.as_of && !version.as_of->IsValid()) {
    return Status::InvalidArgument(where + ": as_of " + version.as_of->ToString() + " is not a valid date");
  }
  version.document_id = doc.id;
  version.content_hash = Sha256Hex(version.text);

  CHIPKG_ASSIGN_OR_RETURN(std::optional<Document> stored_doc, ReadDocument(doc.id));
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> known_did, dict_.Find(doc.id));
  std::optional<DocumentVersion> latest;
  if (known_did) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> latest_no, LatestVersionNumber(*known_did));
    if (latest_no) {
      CHIPKG_ASSIGN_OR_RETURN(DocumentVersion v, ReadVersion(*known_did, *latest_no, /*with_text=*/false));
      latest = std::move(v);
    }
  }

  WriteSummary summary;
  if (latest && latest->content_hash == version.content_hash) {
    // Same content: only the conditional-GET validators may have moved on.
    summary.version = latest->version;
    CHIPKG_RETURN_IF_ERROR(WriteMetaAlone(meta));
    if (stored_doc && (stored_doc->etag != doc.etag || stored_doc->last_modified != doc.last_modified)) {
      CHIPKG_RETURN_IF_ERROR(PutValidators(*stored_doc, doc));
    }
    return summary;
  }

  if (stored_doc && stored_doc->retired_tx != 0 && !facts.empty()) {
    return Status::InvalidArgument(RetiredRefusal(*stored_doc));
  }
  version.version = latest ? latest->version + 1 : 1;
  if (version.url.empty()) version.url = doc.url;
  if (version.title.empty()) version.title = doc.title;
  return WriteVersionFacts(doc, std::move(version), std::move(facts), run_id, std::move(stored_doc),
                           /*restate=*/false, new_entities, meta);
}

Result<StoreImpl::StoredLatest> StoreImpl::ReadStoredLatest(const std::string& id, const char* to) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<Document> doc, ReadDocument(id));
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, dict_.Find(id));
  std::optional<uint32_t> latest;
  if (did) {
    CHIPKG_ASSIGN_OR_RETURN(latest, LatestVersionNumber(*did));
  }
  if (!doc || !latest) return Status::NotFound("document " + id + " has no stored version to " + to);
  return StoredLatest{std::move(*doc), *did, *latest};
}

namespace {
// What the log says of a retirement and a reinstatement, after "document D "
// (WriteVersionFacts): RetiredAsOf reads the log back by these texts, so
// they are written and read from one place. Format 2 wrote the first too.
constexpr std::string_view kRetiredInLog = "retired: every claim it made withdrawn";
constexpr std::string_view kReinstatedInLog = "reinstated: the claims of its latest version asserted again";
}  // namespace

Result<WriteSummary> StoreImpl::RetireDocument(const std::string& document_id, const std::string& run_id) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  CHIPKG_ASSIGN_OR_RETURN(StoredLatest stored, ReadStoredLatest(document_id, "retire"));
  if (stored.doc.retired_tx != 0) {
    WriteSummary nothing;
    nothing.version = stored.version;
    return nothing;
  }
  // Without its text: no fact is asserted, so no span is checked against it.
  CHIPKG_ASSIGN_OR_RETURN(DocumentVersion latest, ReadVersion(stored.did, stored.version, /*with_text=*/false));
  const Document doc = stored.doc;
  return WriteVersionFacts(doc, std::move(latest), {}, run_id, std::move(stored.doc), /*restate=*/true, {}, {},
                           std::string(kRetiredInLog), Retirement::kRetire);
}

Result<WriteSummary> StoreImpl::ReinstateDocument(const Document& doc, std::vector<Fact> facts,
                                                  const std::string& run_id, const std::vector<Entity>& new_entities,
                                                  const MetaRecords& meta) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  CHIPKG_ASSIGN_OR_RETURN(StoredLatest stored, ReadStoredLatest(doc.id, "reinstate"));
  if (stored.doc.retired_tx == 0) {
    return Status::InvalidArgument("document " + doc.id + " is not retired: nothing to reinstate");
  }
  CHIPKG_ASSIGN_OR_RETURN(DocumentVersion latest, ReadVersion(stored.did, stored.version, /*with_text=*/true));
  return WriteVersionFacts(doc, std::move(latest), std::move(facts), run_id, std::move(stored.doc),
                           /*restate=*/true, new_entities, meta, std::string(kReinstatedInLog),
                           Retirement::kReinstate);
}

Result<WriteSummary> StoreImpl::RestateDocumentVersion(const Document& doc, std::vector<Fact> facts,
                                                       const std::string& run_id,
                                                       const std::vector<Entity>& new_entities,
                                                       const MetaRecords& meta) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  CHIPKG_ASSIGN_OR_RETURN(StoredLatest stored, ReadStoredLatest(doc.id, "read again"));
  if (stored.doc.retired_tx != 0 && !facts.empty()) return Status::InvalidArgument(RetiredRefusal(stored.doc));
  CHIPKG_ASSIGN_OR_RETURN(DocumentVersion latest, ReadVersion(stored.did, stored.version, /*with_text=*/true));
  return WriteVersionFacts(doc, std::move(latest), std::move(facts), run_id, std::move(stored.doc),
                           /*restate=*/true, new_entities, meta);
}

namespace {

// What a document says about a claim besides the claim itself: its own
// attribution ("straight from the vendor datasheet", "our estimate"), what it
// cites for it, a dataset row's note, the working of a figure it computed.
// Part of the keep/retract diff, so that a new version saying the same figure
// with other words about it restates the claim (retracted, and asserted again
// citing the new version): a kept claim showed the words the document no
// longer said, and differed from a fresh ingest of the same text. Where in
// the text (section, span, excerpt, row) is left out, so a figure that only
// moved is kept; so are the claim's valid-as-of date (a page's "as of" that
// ticks would restate every claim each run) and the rule version.
void AppendSourcingKey(const Provenance& p, std::string* out) {
  codec::PutString(out, p.attribution);
  codec::PutVarint(out, p.citations.size());
  for (const std::string& c : p.citations) codec::PutString(out, c);
  codec::PutString(out, p.note);
  codec::PutString(out, p.formula);
}

}  // namespace

Result<WriteSummary> StoreImpl::WriteVersionFacts(const Document& doc, DocumentVersion version,
                                                  std::vector<Fact> facts, const std::string& run_id,
                                                  std::optional<Document> stored_doc, bool restate,
                                                  const std::vector<Entity>& new_entities,
                                                  const MetaRecords& meta, const std::string& what,
                                                  Retirement retirement) {
  const std::string where = "document " + doc.id;
  WriteSummary summary;
  Counters c = counters();
  Interner in(&dict_, static_cast<uint32_t>(c.next_dict));
  const TxId tx = c.last_tx + 1;
  Document record = doc;
  record.retired_tx = retirement == Retirement::kRetire      ? tx
                      : retirement == Retirement::kReinstate ? 0
                      : stored_doc                           ? stored_doc->retired_tx
                                                             : 0;
  if (!restate) version.tx = tx;
  CHIPKG_ASSIGN_OR_RETURN(uint32_t did, in.Intern(doc.id));
  CHIPKG_ASSIGN_OR_RETURN(uint32_t run, in.Intern(run_id));

  // The document's live facts, keyed by claim identity for the multiset diff.
  std::vector<uint64_t> old_ids;
  const std::string doc_prefix = codec::DocKey(did, 0, 0).substr(0, 4);
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kDocCf, doc_prefix, codec::PrefixSuccessor(doc_prefix), 4,
                              [&](std::string_view key, std::string_view value) {
                                TxId a = 0, r = 0;
                                std::optional<Date> va;
                                if (codec::DecodeCoreHeader(value, &a, &r, &va) && r == 0) {
                                  old_ids.push_back(codec::FactIdOfIndexKey(key));
                                }
                                return true;
                              }));
  std::vector<std::string> old_values;
  CHIPKG_RETURN_IF_ERROR(ReadCores(old_ids, &old_values));
  CHIPKG_ASSIGN_OR_RETURN(std::vector<Provenance> old_provenance, ReadProvenance(old_ids));
  std::vector<CoreRecord> old_cores(old_values.size());
  std::unordered_map<std::string, std::vector<size_t>> unmatched;  // claim key -> old indices (a multiset)
  for (size_t i = 0; i < old_values.size(); ++i) {
    if (!codec::DecodeCore(old_values[i], &old_cores[i])) {
      return Status::Corruption(where + ": fact " + std::to_string(old_ids[i]) + " has an undecodable record");
    }
    std::string key;
    codec::AppendClaimKey(old_cores[i], &key);
    AppendSourcingKey(old_provenance[i], &key);
    unmatched[key].push_back(i);
  }

  rocksdb::WriteBatch batch;
  std::map<std::string, std::string> spo_written;  // spo key -> CORE, for `contested`
  std::string prov;
  uint64_t next_fact = c.next_fact;
  CoreRecord core;
  for (size_t i = 0; i < facts.size(); ++i) {
    Fact& f = facts[i];
    const Where label = [&] { return where + ", " + FactLabel(i, f); };
    if (!f.provenance.document_id.empty() && f.provenance.document_id != doc.id) {
      return Status::InvalidArgument(label() + ": provenance names document " + f.provenance.document_id);
    }
    f.provenance.document_id = doc.id;
    f.provenance.document_version = version.version;
    f.provenance.run_id = run_id;
    CHIPKG_RETURN_IF_ERROR(CheckSpan(f.provenance, version.text, label));
    CHIPKG_RETURN_IF_ERROR(BuildCore(f, &in, label, &core));
    core.document = did;
    core.document_version = version.version;
    core.asserted_tx = tx;
    core.retracted_tx = 0;
    std::string key;
    codec::AppendClaimKey(core, &key);
    AppendSourcingKey(f.provenance, &key);
    auto it = unmatched.find(key);
    if (it != unmatched.end() && !it->second.empty()) {
      it->second.pop_back();
      ++summary.facts_kept;
      continue;
    }
    prov.clear();
    codec::EncodeProv(f.provenance, run, &prov);
    PutFactRecords(&batch, handles_, next_fact++, core, &prov, &spo_written);
    ++summary.facts_added;
    if (core.kind == ValueKind::kNotPublished) ++c.not_published;
  }
  for (auto& [key, indices] : unmatched) {
    for (size_t i : indices) {
      CoreRecord& old = old_cores[i];
      old.retracted_tx = tx;
      PutFactRecords(&batch, handles_, old_ids[i], old, nullptr, &spo_written);
      ++summary.facts_retracted;
      if (old.kind == ValueKind::kNotPublished) --c.not_published;
    }
  }

  if (restate && summary.facts_added == 0 && summary.facts_retracted == 0 && retirement == Retirement::kKeep) {
    summary.version = version.version;  // read again, the same facts: nothing to write
    CHIPKG_RETURN_IF_ERROR(WriteMetaAlone(meta));
    return summary;
  }
  CHIPKG_RETURN_IF_ERROR(StageMeta(meta, &batch));
  CHIPKG_RETURN_IF_ERROR(PutContested(&batch, spo_written).WithContext(where));
  std::vector<std::string> entities_written;
  for (const Entity& e : new_entities) {
    if (e.id.empty()) return Status::InvalidArgument(where + ": a new entity with an empty id");
    if (std::find(entities_written.begin(), entities_written.end(), e.id) != entities_written.end()) continue;
    CHIPKG_ASSIGN_OR_RETURN(bool staged, StageEntity(e, tx, &batch, &c));
    if (staged) entities_written.push_back(e.id);
  }

  std::string value;
  codec::EncodeDocument(record, &value);
  batch.Put(handles_[codec::kDocumentsCf], doc.id, value).PermitUncheckedError();
  if (!restate) {
    value.clear();
    codec::EncodeVersionMeta(version, &value);
    batch.Put(handles_[codec::kVersionsCf], codec::VersionMetaKey(did, version.version), value)
        .PermitUncheckedError();
    batch.Put(handles_[codec::kVersionsCf], codec::VersionTextKey(did, version.version), version.text)
        .PermitUncheckedError();
  }
  Transaction t{tx, NowMicros(), run_id,
                !what.empty() ? "document " + doc.id + " " + what
                              : "document " + doc.id + " version " + std::to_string(version.version) +
                                    (restate ? " read again" : "")};
  value.clear();
  codec::EncodeTx(t, &value);
  batch.Put(handles_[codec::kTxCf], codec::TxKey(tx), value).PermitUncheckedError();
  for (const auto& [s, id] : in.added()) {
    std::string idv;
    codec::PutU32(&idv, id);
    batch.Put(handles_[codec::kDictCf], codec::DictForwardKey(s), idv).PermitUncheckedError();
    batch.Put(handles_[codec::kDictCf], codec::DictReverseKey(id), s).PermitUncheckedError();
  }

  c.last_tx = tx;
  c.next_fact = next_fact;
  c.next_dict = in.next_id();
  c.facts += summary.facts_added;
  c.live = c.live + summary.facts_added - summary.facts_retracted;
  c.retracted += summary.facts_retracted;
  if (!stored_doc) ++c.documents;
  if (!restate) ++c.versions;
  ++c.transactions;
  PutCounters(&batch, &c);
  const Status written = FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), "writing " + where);
  ForgetDocument(doc.id);  // its record was rewritten (a version record is new: nothing kept to drop)
  for (const std::string& id : entities_written) ForgetEntity(id);
  CHIPKG_RETURN_IF_ERROR(written);
  Commit(c, in);

  summary.tx = tx;
  summary.new_version = !restate;
  summary.version = version.version;
  return summary;
}

Status StoreImpl::PutContested(rocksdb::WriteBatch* batch, const std::map<std::string, std::string>& written) {
  // Each pair this write touches, with what spo holds of it before the write
  // and what the write puts there (new facts, retracted ones rewritten):
  // contested if it already was, or if its records now disagree.
  rocksdb::ReadOptions ro;
  std::unique_ptr<rocksdb::Iterator> spo(db_->NewIterator(ro, handles_[codec::kSpoCf]));
  std::unique_ptr<rocksdb::Iterator> contested(db_->NewIterator(ro, handles_[codec::kContestedCf]));
  std::vector<std::pair<std::string, std::string>> stored;
  std::vector<std::string_view> cores;
  for (auto begin = written.begin(); begin != written.end();) {
    const std::string pair(PairOf(begin->first));
    auto end = begin;
    while (end != written.end() && PairOf(end->first) == pair) ++end;
    contested->Seek(pair);
    const bool already = contested->Valid() && View(contested->key()).starts_with(pair);
    CHIPKG_RETURN_IF_ERROR(FromRocks(contested->status(), "reading the contested pairs"));
    stored.clear();
    if (!already) {
      for (spo->Seek(pair); spo->Valid() && View(spo->key()).starts_with(pair); spo->Next()) {
        if (!written.count(spo->key().ToString())) stored.emplace_back(spo->key().ToString(), spo->value().ToString());
      }
      CHIPKG_RETURN_IF_ERROR(FromRocks(spo->status(), "reading the stored facts of a pair"));
      cores.clear();
      for (const auto& [key, value] : stored) cores.push_back(value);
      for (auto it = begin; it != end; ++it) cores.push_back(it->second);
      CHIPKG_ASSIGN_OR_RETURN(bool disagree, RecordsDisagree(cores));
      if (!disagree) {
        begin = end;
        continue;
      }
    }
    for (const auto& [key, value] : stored) batch->Put(handles_[codec::kContestedCf], key, value).PermitUncheckedError();
    for (auto it = begin; it != end; ++it) {
      batch->Put(handles_[codec::kContestedCf], it->first, it->second).PermitUncheckedError();
    }
    begin = end;
  }
  return Status::OK();
}

Status StoreImpl::AddContestedIndex() {
  std::lock_guard lock(write_mu_);
  // An upgrade cut short, or a chipkg of the format before that wrote facts
  // since (it takes the CF for someone else's and leaves it be): built anew.
  if (handles_[codec::kContestedCf] != nullptr) {
    CHIPKG_RETURN_IF_ERROR(FromRocks(db_->DropColumnFamily(handles_[codec::kContestedCf]), "dropping the old contested CF"));
    db_->DestroyColumnFamilyHandle(handles_[codec::kContestedCf]).PermitUncheckedError();
    handles_[codec::kContestedCf] = nullptr;
  }
  rocksdb::ColumnFamilyHandle* handle = nullptr;
  CHIPKG_RETURN_IF_ERROR(FromRocks(
      db_->CreateColumnFamily(cf_options_[codec::kContestedCf], codec::CfName(codec::kContestedCf), &handle),
      "adding the contested CF to " + path_));
  handles_[codec::kContestedCf] = handle;
  // One ordered pass over spo, pair by pair, written in batches of a few MB:
  // only the format record, written last, makes the CF count.
  constexpr size_t kBatchBytes = 4 << 20;
  rocksdb::ReadOptions ro;
  ro.total_order_seek = true;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handles_[codec::kSpoCf]));
  rocksdb::WriteBatch batch;
  std::vector<std::pair<std::string, std::string>> group;
  std::vector<std::string_view> cores;
  auto decide = [&]() -> Status {
    cores.clear();
    for (const auto& [key, value] : group) cores.push_back(value);
    CHIPKG_ASSIGN_OR_RETURN(bool disagree, RecordsDisagree(cores));
    if (disagree) {
      for (const auto& [key, value] : group) batch.Put(handle, key, value).PermitUncheckedError();
    }
    group.clear();
    if (batch.GetDataSize() < kBatchBytes) return Status::OK();
    Status s = FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), "writing the contested CF of " + path_);
    batch.Clear();
    return s;
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = View(it->key());
    if (!group.empty() && PairOf(group.front().first) != PairOf(key)) CHIPKG_RETURN_IF_ERROR(decide());
    group.emplace_back(std::string(key), std::string(View(it->value())));
  }
  CHIPKG_RETURN_IF_ERROR(FromRocks(it->status(), "reading spo of " + path_));
  if (!group.empty()) CHIPKG_RETURN_IF_ERROR(decide());
  batch.Put(handles_[codec::kMetaCf], codec::kFormatKey, codec::kFormatWithoutRetirementMarks);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  CHIPKG_RETURN_IF_ERROR(FromRocks(db_->Write(wo, &batch), "upgrading the format record of " + path_));
  contested_index_ = true;
  return Status::OK();
}

Status StoreImpl::PutDocument(const Document& doc) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  if (doc.id.empty()) return Status::InvalidArgument("PutDocument: empty document id");
  CHIPKG_ASSIGN_OR_RETURN(std::optional<Document> stored, ReadDocument(doc.id));
  if (stored && stored->url == doc.url && stored->title == doc.title && stored->site == doc.site &&
      stored->kind == doc.kind) {
    if (stored->etag == doc.etag && stored->last_modified == doc.last_modified) return Status::OK();
    // A server that gives the same bytes a new ETag on every request (CDN
    // edges do) wrote a transaction per source on every unchanged cron run.
    return PutValidators(*stored, doc);
  }
  Counters c = counters();
  rocksdb::WriteBatch batch;
  std::string value;
  Document record = doc;
  record.retired_tx = stored ? stored->retired_tx : 0;
  codec::EncodeDocument(record, &value);
  batch.Put(handles_[codec::kDocumentsCf], doc.id, value).PermitUncheckedError();
  if (!stored) ++c.documents;
  return WriteRecordTx(&batch, &c, "document record " + doc.id, "writing document " + doc.id,
                       [&] { ForgetDocument(doc.id); });
}

// The alias keys of an entity: its id, name and aliases, normalised, each with
// the best (lowest) rank under which it appears.
std::map<std::string, uint8_t> AliasEntries(const Entity& e) {
  std::map<std::string, uint8_t> out;
  auto add = [&](const std::string& name, uint8_t rank) {
    std::string n = NormalizeAlias(name);
    if (n.empty()) return;
    auto [it, inserted] = out.emplace(std::move(n), rank);
    if (!inserted) it->second = std::min(it->second, rank);
  };
  add(e.id, 0);
  add(e.name, 1);
  for (const auto& a : e.aliases) add(a, 2);
  return out;
}

Result<bool> StoreImpl::StageEntity(const Entity& entity, TxId tx, rocksdb::WriteBatch* batch, Counters* c) {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<Entity> stored, ReadEntity(entity.id));
  if (stored && stored->kind == entity.kind && stored->name == entity.name && stored->aliases == entity.aliases) {
    return false;
  }
  auto fresh = AliasEntries(entity);
  if (stored) {
    for (const auto& [norm, rank] : AliasEntries(*stored)) {
      if (!fresh.count(norm)) batch->Delete(handles_[codec::kAliasCf], codec::AliasKey(norm, entity.id)).PermitUncheckedError();
    }
  }
  for (const auto& [norm, rank] : fresh) {
    batch->Put(handles_[codec::kAliasCf], codec::AliasKey(norm, entity.id), std::string(1, static_cast<char>(rank)))
        .PermitUncheckedError();
  }
  Entity record = entity;
  record.created_tx = stored ? stored->created_tx : tx;
  std::string value;
  codec::EncodeEntity(record, &value);
  batch->Put(handles_[codec::kEntitiesCf], entity.id, value).PermitUncheckedError();
  if (!stored) ++c->entities;
  return true;
}

Status StoreImpl::PutEntity(const Entity& entity) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  if (entity.id.empty()) return Status::InvalidArgument("PutEntity: empty entity id");
  Counters c = counters();
  rocksdb::WriteBatch batch;
  CHIPKG_ASSIGN_OR_RETURN(bool staged, StageEntity(entity, c.last_tx + 1, &batch, &c));  // WriteRecordTx's transaction
  if (!staged) return Status::OK();
  return WriteRecordTx(&batch, &c, "entity " + entity.id, "writing entity " + entity.id,
                       [&] { ForgetEntity(entity.id); });
}

Status StoreImpl::PutValidators(const Document& stored, const Document& doc) {
  Document updated = stored;
  updated.etag = doc.etag;
  updated.last_modified = doc.last_modified;
  std::string value;
  codec::EncodeDocument(updated, &value);
  const Status put = FromRocks(db_->Put(rocksdb::WriteOptions(), handles_[codec::kDocumentsCf], doc.id, value),
                               "updating validators of " + doc.id);
  ForgetDocument(doc.id);
  return put;
}

Status StoreImpl::WriteRecordTx(rocksdb::WriteBatch* batch, Counters* c, const std::string& description,
                                const std::string& error_context, const std::function<void()>& forget_cached) {
  const TxId tx = c->last_tx + 1;
  std::string value;
  codec::EncodeTx({tx, NowMicros(), "", description}, &value);
  batch->Put(handles_[codec::kTxCf], codec::TxKey(tx), value).PermitUncheckedError();
  c->last_tx = tx;
  ++c->transactions;
  PutCounters(batch, c);
  const Status written = FromRocks(db_->Write(rocksdb::WriteOptions(), batch), error_context);
  // Before the new counters are the store's: a reader that sees the new
  // transaction must not find the old record in the cache.
  forget_cached();
  CHIPKG_RETURN_IF_ERROR(written);
  Commit(*c, Interner(&dict_, static_cast<uint32_t>(c->next_dict)));
  return Status::OK();
}

Status StoreImpl::PutMeta(const std::string& key, const std::string& value) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  if (key.empty()) return Status::InvalidArgument("PutMeta: empty key");
  return FromRocks(db_->Put(rocksdb::WriteOptions(), handles_[codec::kUserMetaCf], key, value), "writing meta " + key);
}

Status StoreImpl::DeleteMeta(const std::string& key) {
  std::lock_guard lock(write_mu_);
  CHIPKG_RETURN_IF_ERROR(CheckWritable());
  if (key.empty()) return Status::InvalidArgument("DeleteMeta: empty key");
  return FromRocks(db_->Delete(rocksdb::WriteOptions(), handles_[codec::kUserMetaCf], key), "deleting meta " + key);
}

Result<std::string> StoreImpl::GetMeta(const std::string& key) const {
  std::string value;
  rocksdb::Status st = db_->Get(ReadOpts(), handles_[codec::kUserMetaCf], key, &value);
  if (st.IsNotFound()) return Status::NotFound("no meta entry '" + key + "' in " + path_);
  CHIPKG_RETURN_IF_ERROR(FromRocks(st, "reading meta " + key));
  return value;
}

Result<std::vector<std::pair<std::string, std::string>>> StoreImpl::ListMeta(const std::string& prefix) const {
  std::vector<std::pair<std::string, std::string>> out;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kUserMetaCf, prefix, codec::PrefixSuccessor(prefix), 0,
                              [&](std::string_view k, std::string_view v) {
                                out.emplace_back(std::string(k), std::string(v));
                                return true;
                              }));
  return out;
}

// ---- reads ----------------------------------------------------------------------

Status StoreImpl::Scan(int cf, std::string_view start, std::string_view limit, size_t prefix_len,
                       const std::function<bool(std::string_view, std::string_view)>& fn,
                       const rocksdb::Snapshot* snap, size_t keys) const {
  rocksdb::ReadOptions ro = ReadOpts(keys);
  ro.snapshot = snap;
  const std::string limit_copy(limit);
  rocksdb::Slice upper(limit_copy);
  if (!limit_copy.empty()) ro.iterate_upper_bound = &upper;
  const size_t extractor = PrefixLength(cf);
  if (extractor == 0 || prefix_len < extractor) {
    ro.total_order_seek = true;
  } else {
    ro.prefix_same_as_start = true;
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handles_[cf]));
  for (it->Seek(ToSlice(start)); it->Valid(); it->Next()) {
    if (!fn(View(it->key()), View(it->value()))) break;
  }
  return FromRocks(it->status(), std::string("scanning column family ") + codec::CfName(cf) + " of " + path_);
}

namespace {

// Fills `out` from a decoded record, each id's name from name_into(id,
// string*), which returns false when it cannot name one (then so does this,
// leaving `out` partly filled).
template <typename NameInto>
bool FillFact(uint64_t fact_id, const CoreRecord& c, Fact* out, NameInto&& name_into) {
  Fact& f = *out;
  f.id = fact_id;
  if (!name_into(c.subject, &f.subject) || !name_into(c.predicate, &f.predicate)) return false;
  Value& v = f.value;
  v.kind = c.kind;
  v.original.assign(c.original.data(), c.original.size());
  switch (c.kind) {
    case ValueKind::kQuantity:
      v.number = c.number;
      if (!name_into(c.dimension, &v.dimension)) return false;
      break;
    case ValueKind::kDate: v.date = c.date; break;
    case ValueKind::kEntity:
      if (!name_into(c.entity, &v.text)) return false;
      break;
    case ValueKind::kText: v.text.assign(c.text.data(), c.text.size()); break;
    case ValueKind::kBool: v.number = c.number; break;
    case ValueKind::kNotPublished: break;
  }
  f.qualifiers.clear();
  std::string key, value;
  for (const auto& [k, val] : c.qualifiers) {
    if (!name_into(k, &key) || !name_into(val, &value)) return false;
    f.qualifiers.emplace_hint(f.qualifiers.end(), std::move(key), std::move(value));
  }
  if (!name_into(c.document, &f.provenance.document_id)) return false;
  f.provenance.document_version = c.document_version;
  if (!name_into(c.rule, &f.provenance.rule)) return false;
  f.provenance.derivation = c.derivation;
  f.valid_as_of = c.valid_as_of;
  f.asserted_tx = c.asserted_tx;
  f.retracted_tx = c.retracted_tx;
  return true;
}

// Every id FillFact names. (Were one missed, FillFact would still read it,
// alone: slower, not wrong.)
void AppendNameIds(const CoreRecord& c, std::vector<uint32_t>* ids) {
  ids->push_back(c.subject);
  ids->push_back(c.predicate);
  if (c.kind == ValueKind::kQuantity) ids->push_back(c.dimension);
  if (c.kind == ValueKind::kEntity) ids->push_back(c.entity);
  for (const auto& [k, v] : c.qualifiers) {
    ids->push_back(k);
    ids->push_back(v);
  }
  ids->push_back(c.document);
  ids->push_back(c.rule);
}

}  // namespace

Status StoreImpl::NameAll(const std::vector<uint32_t>& ids, std::vector<std::string>* names) const {
  names->resize(ids.size());
  std::vector<size_t> unknown;
  {
    Dictionary::KnownNames known(dict_);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i % kNamesUnderOneLock == kNamesUnderOneLock - 1) known.Reacquire();
      if (const std::string* name = known(ids[i]); name != nullptr) {
        (*names)[i] = *name;
      } else {
        unknown.push_back(i);
      }
    }
  }
  for (size_t i : unknown) CHIPKG_RETURN_IF_ERROR(dict_.NameInto(ids[i], &(*names)[i]));
  return Status::OK();
}

bool StoreImpl::ToFactFromKnownNames(uint64_t fact_id, const CoreRecord& c, const Dictionary::KnownNames& known,
                                     Fact* out) const {
  return FillFact(fact_id, c, out, [&](uint32_t id, std::string* name) {
    const std::string* found = known(id);
    if (found != nullptr) name->assign(*found);
    return found != nullptr;
  });
}

Status StoreImpl::FillUnresolved(const std::vector<std::pair<size_t, Fact*>>& unresolved,
                                 const std::function<std::pair<uint64_t, std::string_view>(size_t)>& record) const {
  if (unresolved.empty()) return Status::OK();
  CoreRecord core;
  if (unresolved.size() > 1) {
    std::vector<uint32_t> ids;
    for (const auto& [position, fact] : unresolved) {
      // An undecodable record is reported below, where it is named.
      if (codec::DecodeCore(record(position).second, &core)) AppendNameIds(core, &ids);
    }
    CHIPKG_RETURN_IF_ERROR(dict_.Learn(std::move(ids), ReadOpts(unresolved.size())));
  }
  for (const auto& [position, fact] : unresolved) {
    const auto [id, bytes] = record(position);
    if (!codec::DecodeCore(bytes, &core)) {
      return Status::Corruption("record of fact " + std::to_string(id) + " cannot be decoded");
    }
    CHIPKG_RETURN_IF_ERROR(ToFact(id, core, fact));
  }
  return Status::OK();
}

Status StoreImpl::ToFact(uint64_t fact_id, const CoreRecord& c, Fact* out) const {
  if (ToFactFromKnownNames(fact_id, c, Dictionary::KnownNames(dict_), out)) return Status::OK();
  // A name not known yet: read from the store, without the lock.
  Status status;
  FillFact(fact_id, c, out, [&](uint32_t id, std::string* name) {
    status = dict_.NameInto(id, name);
    return status.ok();
  });
  return status;
}

Status StoreImpl::FillProvenance(std::vector<Fact>* facts, const rocksdb::Snapshot* snap) const {
  std::vector<uint64_t> ids;
  ids.reserve(facts->size());
  for (const Fact& f : *facts) ids.push_back(f.id);
  return ReadByIds(codec::kProvCf, ids, snap, [&](size_t i, std::string_view value) -> Status {
    Fact& f = (*facts)[i];
    uint32_t run = 0;
    if (!codec::DecodeProv(value, &f.provenance, &run)) {
      return Status::Corruption("provenance record of fact " + std::to_string(f.id) + " cannot be decoded");
    }
    return dict_.NameInto(run, &f.provenance.run_id);
  });
}

Status StoreImpl::ReadByIds(int cf, const std::vector<uint64_t>& ids, const rocksdb::Snapshot* snap,
                            const std::function<Status(size_t, std::string_view)>& fn) const {
  if (ids.empty()) return Status::OK();
  std::vector<size_t> order(ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
  const uint64_t first = ids[order.front()], last = ids[order.back()];
  auto missing = [&](uint64_t id) {
    return Status::Corruption(std::string("fact ") + std::to_string(id) + " has no record in " + codec::CfName(cf) +
                              " of " + path_);
  };
  rocksdb::ReadOptions ro = ReadOpts(ids.size());
  ro.snapshot = snap;
  // Ids of one subject or document are mostly adjacent (they were written
  // together): walking that stretch with one iterator reads each block once,
  // where a point lookup per id would search the index and the block anew.
  // For a handful of ids, setting up the iterator costs more than it saves.
  // A step of the walk costs about a quarter of a batched lookup (a `prov`
  // entry with its excerpt ~0.16 us, a lookup ~0.7): a peer-corpus document's
  // 213 facts spread over 1,300-odd ids (its 32 chips' facts) took 0.25 ms
  // walked and 0.20 looked up, so the walk is for stretches under 4 ids an id.
  if (ids.size() >= 4 && last - first < 4 * ids.size()) {
    const std::string lower = codec::FactKey(first), upper = codec::FactKey(last + 1);
    rocksdb::Slice lower_slice(lower), upper_slice(upper);
    ro.iterate_lower_bound = &lower_slice;
    if (last != UINT64_MAX) ro.iterate_upper_bound = &upper_slice;
    ro.total_order_seek = true;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handles_[cf]));
    size_t k = 0;
    for (it->Seek(lower_slice); it->Valid() && k < order.size(); it->Next()) {
      if (it->key().size() != 8) continue;
      const uint64_t id = codec::GetU64(it->key().data());
      if (id < ids[order[k]]) continue;
      if (id > ids[order[k]]) return missing(ids[order[k]]);
      while (k < order.size() && ids[order[k]] == id) CHIPKG_RETURN_IF_ERROR(fn(order[k++], View(it->value())));
    }
    CHIPKG_RETURN_IF_ERROR(FromRocks(it->status(), std::string("reading ") + codec::CfName(cf) + " of " + path_));
    if (k < order.size()) return missing(ids[order[k]]);
    return Status::OK();
  }
  std::vector<std::string> keys;
  keys.reserve(ids.size());
  for (uint64_t id : ids) keys.push_back(codec::FactKey(id));
  auto describe = [&](size_t i) { return "fact " + std::to_string(ids[i]); };
  return MultiGetSorted(cf, keys, snap, describe, [&](size_t i, std::optional<std::string_view> value) {
    return value ? fn(i, *value) : missing(ids[i]);
  });
}

Result<std::vector<Fact>> StoreImpl::ScanFacts(int cf, std::string_view start, std::string_view limit,
                                               size_t prefix_len, const ReadView& view,
                                               const rocksdb::Snapshot* snap) const {
  // First the visible rows' bytes, compactly; then the Facts, into a vector
  // sized once: a Fact is ~700 bytes, and growing a vector of them moves every
  // one several times (and faults in fresh pages each time).
  std::string arena;
  std::vector<std::pair<uint64_t, size_t>> rows;  // fact id, end offset of its CORE in `arena`
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(cf, start, limit, prefix_len, [&](std::string_view key, std::string_view value) {
    TxId a = 0, r = 0;
    std::optional<Date> va;
    if (!codec::DecodeCoreHeader(value, &a, &r, &va)) {
      status = Status::Corruption(std::string("undecodable fact record in ") + codec::CfName(cf));
      return false;
    }
    if (!Visible(a, r, va, view)) return true;
    arena.append(value.data(), value.size());
    rows.emplace_back(codec::FactIdOfIndexKey(key), arena.size());
    return true;
  }, snap));
  CHIPKG_RETURN_IF_ERROR(status);
  std::vector<Fact> out(rows.size());
  auto record = [&](size_t i) {
    const size_t begin = i == 0 ? 0 : rows[i - 1].second;
    return std::pair<uint64_t, std::string_view>(rows[i].first,
                                                 std::string_view(arena).substr(begin, rows[i].second - begin));
  };
  CoreRecord core;
  std::vector<std::pair<size_t, Fact*>> unresolved;
  {
    Dictionary::KnownNames known(dict_);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i % kNamesUnderOneLock == kNamesUnderOneLock - 1) known.Reacquire();
      const auto [id, bytes] = record(i);
      if (!codec::DecodeCore(bytes, &core)) {
        return Status::Corruption("record of fact " + std::to_string(id) + " in " + codec::CfName(cf) +
                                  " cannot be decoded");
      }
      if (!ToFactFromKnownNames(id, core, known, &out[i])) unresolved.emplace_back(i, &out[i]);
    }
  }
  CHIPKG_RETURN_IF_ERROR(FillUnresolved(unresolved, record));
  if (view.with_provenance) CHIPKG_RETURN_IF_ERROR(FillProvenance(&out, snap));
  return out;
}

Status StoreImpl::ReadCores(const std::vector<uint64_t>& ids, std::vector<std::string>* cores,
                            const rocksdb::Snapshot* snap) const {
  cores->assign(ids.size(), std::string());
  return ReadByIds(codec::kFactsCf, ids, snap, [&](size_t i, std::string_view value) {
    (*cores)[i].assign(value.data(), value.size());
    return Status::OK();
  });
}

Result<std::vector<Fact>> StoreImpl::ScanHeaderIndex(int cf, std::string_view start, std::string_view limit,
                                                     size_t prefix_len, const ReadView& view,
                                                     const rocksdb::Snapshot* snap) const {
  // Visible entries in key order: a CORE value is kept in `arena`; a HEADER
  // alone (empty stretch) is completed from the facts CF afterwards.
  std::string arena;
  std::vector<std::pair<uint64_t, size_t>> rows;  // fact id, end offset of its CORE in `arena`
  std::vector<uint64_t> header_only;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(cf, start, limit, prefix_len, [&](std::string_view key, std::string_view value) {
    TxId a = 0, r = 0;
    std::optional<Date> va;
    if (!codec::DecodeCoreHeader(value, &a, &r, &va)) {
      status = Status::Corruption(std::string("undecodable index entry in ") + codec::CfName(cf));
      return false;
    }
    if (!Visible(a, r, va, view)) return true;
    const uint64_t id = codec::FactIdOfIndexKey(key);
    if (codec::HoldsCore(value)) {
      arena.append(value.data(), value.size());
    } else {
      header_only.push_back(id);
    }
    rows.emplace_back(id, arena.size());
    return true;
  }, snap));
  CHIPKG_RETURN_IF_ERROR(status);
  std::vector<std::string> completed;
  CHIPKG_RETURN_IF_ERROR(ReadCores(header_only, &completed, snap));
  std::vector<Fact> out(rows.size());
  std::vector<std::string_view> records(rows.size());
  size_t begin = 0, next_completed = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t end = rows[i].second;
    records[i] = end > begin ? std::string_view(arena).substr(begin, end - begin)
                             : std::string_view(completed[next_completed++]);
    begin = end;
  }
  auto record = [&](size_t i) { return std::pair<uint64_t, std::string_view>(rows[i].first, records[i]); };
  CoreRecord core;
  std::vector<std::pair<size_t, Fact*>> unresolved;
  {
    Dictionary::KnownNames known(dict_);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i % kNamesUnderOneLock == kNamesUnderOneLock - 1) known.Reacquire();
      if (!codec::DecodeCore(records[i], &core)) {
        return Status::Corruption("record of fact " + std::to_string(rows[i].first) + " cannot be decoded");
      }
      if (!ToFactFromKnownNames(rows[i].first, core, known, &out[i])) unresolved.emplace_back(i, &out[i]);
    }
  }
  CHIPKG_RETURN_IF_ERROR(FillUnresolved(unresolved, record));
  if (view.with_provenance) CHIPKG_RETURN_IF_ERROR(FillProvenance(&out, snap));
  return out;
}

Result<std::vector<Fact>> StoreImpl::FactsAbout(const EntityId& subject, const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> sid, dict_.Find(subject));
  if (!sid || subject.empty()) return std::vector<Fact>();
  std::string prefix;
  codec::PutU32(&prefix, *sid);
  ReadSnapshot snap(this, view.with_provenance);
  const std::string limit = codec::PrefixSuccessor(prefix);
  return ScanFacts(codec::kSpoCf, prefix, limit, SeekLengthWithin(prefix, limit), view, snap.get());
}

Result<std::vector<Fact>> StoreImpl::FactsAbout(const EntityId& subject, const std::string& predicate,
                                                const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> sid, dict_.Find(subject));
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> pid, dict_.Find(predicate));
  if (!sid || !pid || subject.empty() || predicate.empty()) return std::vector<Fact>();
  std::string prefix;
  codec::PutU32(&prefix, *sid);
  codec::PutU32(&prefix, *pid);
  ReadSnapshot snap(this, view.with_provenance);
  return ScanFacts(codec::kSpoCf, prefix, codec::PrefixSuccessor(prefix), 8, view, snap.get());
}

Result<std::vector<std::vector<Fact>>> StoreImpl::FactsAboutEach(const std::vector<EntityId>& subjects,
                                                                  const std::string& predicate,
                                                                  const ReadView& view) const {
  return ReadFactsAboutEach(subjects, predicate, view, /*contested_only=*/false);
}

Result<std::vector<std::vector<Fact>>> StoreImpl::ContestedFactsAboutEach(const std::vector<EntityId>& subjects,
                                                                         const ReadView& view,
                                                                         bool without_not_published) const {
  return ReadFactsAboutEach(subjects, "", view, /*contested_only=*/true, without_not_published);
}

namespace {

// Marks the records of every predicate whose records do not all state the
// same content. `cores` are one subject's, in spo key order: a predicate's
// records are adjacent.
void MarkContested(const std::vector<CoreRecord>& cores, size_t n, std::vector<bool>* keep) {
  keep->assign(n, false);
  for (size_t begin = 0; begin < n;) {
    size_t end = begin + 1;
    bool unanimous = true;
    for (; end < n && cores[end].predicate == cores[begin].predicate; ++end) {
      unanimous = unanimous && SameStatedContent(cores[begin], cores[end]);
    }
    if (!unanimous) std::fill(keep->begin() + static_cast<std::ptrdiff_t>(begin), keep->begin() + static_cast<std::ptrdiff_t>(end), true);
    begin = end;
  }
}

}  // namespace

Result<std::vector<std::vector<Fact>>> StoreImpl::ReadFactsAboutEach(const std::vector<EntityId>& subjects,
                                                                      const std::string& predicate,
                                                                      const ReadView& view, bool contested_only,
                                                                      bool without_not_published) const {
  std::vector<std::vector<Fact>> out(subjects.size());
  std::optional<uint32_t> pid;
  if (!predicate.empty()) {
    CHIPKG_ASSIGN_OR_RETURN(pid, dict_.Find(predicate));
    if (!pid) return out;
  }
  if (pid && !contested_only) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<std::vector<std::vector<Fact>>> scanned,
                            ReadPredicateOfEach(subjects, *pid, view));
    if (scanned) return std::move(*scanned);
  }
  std::vector<std::pair<std::string, size_t>> prefixes;  // spo prefix, index in `subjects`
  prefixes.reserve(subjects.size());
  if (subjects.size() > 1) {
    CHIPKG_RETURN_IF_ERROR(
        dict_.LearnIds(std::vector<std::string_view>(subjects.begin(), subjects.end()), ReadOpts(subjects.size())));
  }
  for (size_t i = 0; i < subjects.size(); ++i) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> sid, dict_.Find(subjects[i]));
    if (!sid || subjects[i].empty()) continue;
    std::string prefix;
    codec::PutU32(&prefix, *sid);
    if (pid) codec::PutU32(&prefix, *pid);
    prefixes.emplace_back(std::move(prefix), i);
  }
  std::sort(prefixes.begin(), prefixes.end());
  ReadSnapshot snap(this, view.with_provenance);
  rocksdb::ReadOptions ro = ReadOpts(prefixes.size());
  ro.snapshot = snap.get();
  // Whole subjects, many of them: sorted, their entries mostly follow one
  // another in spo, so the iterator steps from one subject's last entry to
  // the next subject's first instead of seeking (a seek ~3.5 us, a step a few
  // tenths: Q5 at N=100,000 seeked 100,000 times). Stepping across subjects
  // needs a total-order iterator. A few subjects, or one predicate of each
  // (dozens of other entries between two subjects' prefixes), seek, each
  // checked against the files' subject-prefix bloom filters, and iteration
  // stops at the end of the prefix.
  constexpr size_t kStepFromSubjects = 16;
  constexpr int kStepsBeforeSeek = 8;
  const bool step = !pid && prefixes.size() >= kStepFromSubjects;
  if (step) {
    ro.total_order_seek = true;
  } else {
    ro.prefix_same_as_start = true;
  }
  // A conflicts pass reads only the pairs ever contested (engine/contested.h),
  // laid out as in spo.
  const int cf = contested_only && contested_index_ ? codec::kContestedCf : codec::kSpoCf;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handles_[cf]));
  std::string arena;
  std::vector<std::pair<uint64_t, size_t>> rows;  // fact id, end of its core in `arena`
  std::vector<CoreRecord> cores;  // one subject's, reused: their qualifier vectors keep their capacity
  std::vector<bool> keep;
  std::vector<std::pair<size_t, size_t>> unresolved;  // (record, fact) named outside the lock
  bool positioned = false;  // `it` is at or before the next prefix's first entry, or at the end
  uint64_t stepped = 0;
  const std::string* previous = nullptr;
  for (const auto& [prefix, at] : prefixes) {
    arena.clear();
    rows.clear();
    if (previous != nullptr && *previous == prefix) positioned = false;  // a subject asked twice: back to it
    previous = &prefix;
    if (positioned) {
      for (int steps = 0; it->Valid() && it->key().compare(prefix) < 0; ++steps) {
        if (steps == kStepsBeforeSeek) {
          positioned = false;
          break;
        }
        it->Next();
      }
      CHIPKG_RETURN_IF_ERROR(FromRocks(it->status(), "stepping to the facts of " + subjects[at]));
    }
    if (positioned) {
      ++stepped;
    } else {
      it->Seek(prefix);
    }
    positioned = step;
    for (; it->Valid() && it->key().starts_with(prefix); it->Next()) {
      const std::string_view value = View(it->value());
      TxId a = 0, r = 0;
      std::optional<Date> va;
      if (!codec::DecodeCoreHeader(value, &a, &r, &va)) {
        return Status::Corruption(std::string("undecodable fact record in ") + codec::CfName(cf));
      }
      if (!Visible(a, r, va, view)) continue;
      arena.append(value.data(), value.size());
      rows.emplace_back(codec::FactIdOfIndexKey(View(it->key())), arena.size());
    }
    CHIPKG_RETURN_IF_ERROR(FromRocks(it->status(), "scanning facts of " + subjects[at] + " " + predicate));
    if (cores.size() < rows.size()) cores.resize(rows.size());
    size_t begin = 0;
    for (size_t k = 0; k < rows.size(); ++k) {
      const auto [id, end] = rows[k];
      if (!codec::DecodeCore(std::string_view(arena).substr(begin, end - begin), &cores[k])) {
        return Status::Corruption("record of fact " + std::to_string(id) + " cannot be decoded");
      }
      begin = end;
    }
    if (without_not_published) {
      size_t kept = 0;
      for (size_t k = 0; k < rows.size(); ++k) {
        if (cores[k].kind == ValueKind::kNotPublished) continue;
        if (kept != k) {
          std::swap(cores[kept], cores[k]);
          rows[kept] = rows[k];
        }
        ++kept;
      }
      rows.resize(kept);
    }
    if (contested_only) {
      MarkContested(cores, rows.size(), &keep);
    } else {
      keep.assign(rows.size(), true);
    }
    std::vector<Fact>& facts = out[at];
    facts.resize(static_cast<size_t>(std::count(keep.begin(), keep.end(), true)));
    // The subject's facts named under one dictionary lock (ToFact takes one
    // a fact); a name not known yet is read by ToFact, without it.
    unresolved.clear();
    {
      const Dictionary::KnownNames known(dict_);
      auto name_into = [&known](uint32_t id, std::string* name) {
        const std::string* found = known(id);
        if (found != nullptr) name->assign(*found);
        return found != nullptr;
      };
      for (size_t k = 0, kept = 0; k < rows.size(); ++k) {
        if (!keep[k]) continue;
        if (!FillFact(rows[k].first, cores[k], &facts[kept], name_into)) unresolved.emplace_back(k, kept);
        ++kept;
      }
    }
    if (unresolved.size() > 1) {  // the subject's unknown names in one read
      std::vector<uint32_t> ids;
      for (const auto& [k, i] : unresolved) AppendNameIds(cores[k], &ids);
      CHIPKG_RETURN_IF_ERROR(dict_.Learn(std::move(ids), ReadOpts(unresolved.size())));
    }
    for (const auto& [k, i] : unresolved) CHIPKG_RETURN_IF_ERROR(ToFact(rows[k].first, cores[k], &facts[i]));
    if (view.with_provenance) CHIPKG_RETURN_IF_ERROR(FillProvenance(&facts, snap.get()));
  }
  stepped_subjects_.fetch_add(stepped);
  return out;
}

// A seek or a point lookup costs a walk down the index and a binary search
// in a block (a seek ~3.5 us on the peer store at N=100,000, a batched lookup
// ~0.9 us); stepping to the next entry of a scan, a few tenths of a
// microsecond. Reading one predicate for 48,582 of the chips that have it (a
// `find` on memory, whose candidates are the chips with a claim over the
// bound) was 48,582 seeks where one pass over the predicate's 165,026 `pos`
// entries does; reading those chips' entity records, 48,582 lookups among
// 100,000-odd entities. So a read of at least kPassFromKeys keys or subjects
// takes one pass when the stretch it covers holds fewer than kEntriesPerSeek
// entries per key, estimated from the stretch's size and the CF's average
// entry size (RocksDB's own estimates: no read).
namespace {
constexpr size_t kPassFromKeys = 1024;
constexpr double kEntriesPerSeek = 8;
// A pass that kept at least this many entries is decoded in two halves at
// once when the caller offers another thread (~1 ms of decoding).
constexpr size_t kDecodeElsewhereFrom = 2048;
// A range estimated to hold at least this many entries is scanned in
// stretches on two threads when the caller offers another (~0.2 ms of
// scanning, against tens of microseconds to hand a task over).
constexpr double kSplitRangeScanFrom = 2048;

// The 8 bytes of `key` from `at` on as a big-endian number, zeros past its end.
uint64_t EightBytesAt(const std::string& key, size_t at) {
  uint64_t x = 0;
  for (size_t i = 0; i < 8; ++i) {
    x = (x << 8) | (at + i < key.size() ? static_cast<unsigned char>(key[at + i]) : 0u);
  }
  return x;
}

// A key strictly between `low` and `high` (low < high), halfway in the 8
// bytes after their common prefix; nullopt when those bytes leave no room.
std::optional<std::string> KeyBetween(const std::string& low, const std::string& high) {
  size_t common = 0;
  while (common < low.size() && common < high.size() && low[common] == high[common]) ++common;
  const uint64_t a = EightBytesAt(low, common), b = EightBytesAt(high, common);
  if (b <= a || b - a < 2) return std::nullopt;
  const uint64_t m = a + (b - a) / 2;
  std::string key = high.substr(0, common);
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>((m >> shift) & 0xff));
  return key;
}
}  // namespace

std::optional<std::string> StoreImpl::MiddleKey(int cf, const std::string& start, const std::string& limit) const {
  rocksdb::ColumnFamilyHandle* handle = handles_[cf];
  rocksdb::SizeApproximationOptions sizes;
  sizes.include_memtables = true;
  sizes.include_files = true;
  auto bytes_within = [&](const std::string& from, const std::string& to) -> std::optional<uint64_t> {
    const rocksdb::Range range(from, to);
    uint64_t n = 0;
    if (!db_->GetApproximateSizes(sizes, handle, &range, 1, &n).ok()) return std::nullopt;
    return n;
  };
  const std::optional<uint64_t> total = bytes_within(start, limit);
  if (!total || *total == 0) return std::nullopt;
  // Each step halves [low, high), which holds the key that leaves half of
  // the bytes before it; within an eighth of the half is close enough.
  std::string low = start, high = limit;
  std::optional<std::string> best;
  for (int step = 0; step < 32; ++step) {
    std::optional<std::string> middle = KeyBetween(low, high);
    if (!middle) break;
    const std::optional<uint64_t> before = bytes_within(start, *middle);
    if (!before) return std::nullopt;
    best = *middle;
    const double off = static_cast<double>(*before) - static_cast<double>(*total) / 2;
    if (std::abs(off) <= static_cast<double>(*total) / 16) break;
    (off < 0 ? low : high) = std::move(*middle);
  }
  return best;
}

double StoreImpl::EntriesWithin(int cf, const std::string& start, const std::string& limit) const {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  rocksdb::ColumnFamilyHandle* handle = handles_[cf];
  uint64_t keys = 0, total = 0, stretch = 0;
  if (!db_->GetIntProperty(handle, rocksdb::DB::Properties::kEstimateNumKeys, &keys) || keys == 0) return kUnknown;
  const std::string everything_end(8, '\xff');
  const rocksdb::Range everything("", everything_end);
  const rocksdb::Range mine(start, limit);
  rocksdb::SizeApproximationOptions sizes;
  sizes.include_memtables = true;
  sizes.include_files = true;
  if (!db_->GetApproximateSizes(sizes, handle, &everything, 1, &total).ok() ||
      !db_->GetApproximateSizes(sizes, handle, &mine, 1, &stretch).ok() || total == 0) {
    return kUnknown;
  }
  return static_cast<double>(stretch) / (static_cast<double>(total) / static_cast<double>(keys));
}

Status StoreImpl::MergeScan(int cf, const std::vector<std::string>& keys, const std::vector<size_t>& order,
                            const std::string& low, const std::string& high, const rocksdb::Snapshot* snap,
                            const std::function<Status(size_t, std::optional<std::string_view>)>& fn) const {
  merged_passes_.fetch_add(1);
  ReadSnapshot own(this, snap == nullptr);
  rocksdb::ReadOptions ro = ReadOpts(keys.size());
  ro.snapshot = snap != nullptr ? snap : own.get();
  rocksdb::Slice lower(low), upper(high);
  ro.iterate_lower_bound = &lower;
  ro.iterate_upper_bound = &upper;
  ro.total_order_seek = true;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handles_[cf]));
  size_t k = 0;
  for (it->Seek(lower); it->Valid() && k < order.size(); it->Next()) {
    const std::string_view key = View(it->key());
    for (; k < order.size() && keys[order[k]] < key; ++k) CHIPKG_RETURN_IF_ERROR(fn(order[k], std::nullopt));
    for (; k < order.size() && keys[order[k]] == key; ++k) CHIPKG_RETURN_IF_ERROR(fn(order[k], View(it->value())));
  }
  CHIPKG_RETURN_IF_ERROR(FromRocks(it->status(), std::string("reading ") + codec::CfName(cf) + " of " + path_));
  for (; k < order.size(); ++k) CHIPKG_RETURN_IF_ERROR(fn(order[k], std::nullopt));
  return Status::OK();
}

Result<std::optional<std::vector<std::vector<Fact>>>> StoreImpl::ReadPredicateOfEach(
    const std::vector<EntityId>& subjects, uint32_t predicate, const ReadView& view) const {
  using Scanned = std::optional<std::vector<std::vector<Fact>>>;
  if (subjects.size() < kPassFromKeys) return Scanned();
  std::string start, limit;
  codec::PutU32(&start, predicate);
  limit = codec::PrefixSuccessor(start);
  if (EntriesWithin(codec::kPosCf, start, limit) > kEntriesPerSeek * static_cast<double>(subjects.size())) {
    return Scanned();
  }
  predicate_passes_.fetch_add(1);
  // Where each asked subject's facts go (a subject asked twice gets a copy).
  SubjectSlots slot(subjects.size());
  std::vector<std::pair<size_t, size_t>> repeats;  // (index, index of its first occurrence)
  CHIPKG_RETURN_IF_ERROR(
      dict_.LearnIds(std::vector<std::string_view>(subjects.begin(), subjects.end()), ReadOpts(subjects.size())));
  for (size_t i = 0; i < subjects.size(); ++i) {
    if (subjects[i].empty()) continue;
    CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> sid, dict_.Find(subjects[i]));
    if (!sid) continue;
    auto [first, inserted] = slot.Emplace(*sid, i);
    if (!inserted) repeats.emplace_back(i, first);
  }
  std::vector<KeptEntry> kept;
  std::string arena;
  ReadSnapshot snap(this, view.with_provenance);
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kPosCf, start, limit, 4, [&](std::string_view key, std::string_view value) {
    return KeepOfSubjects(slot, view, key, value, &kept, &arena, &status);
  }, snap.get(), subjects.size()));
  CHIPKG_RETURN_IF_ERROR(status);
  CHIPKG_ASSIGN_OR_RETURN(std::vector<std::vector<Fact>> out,
                          DecodeKept(kept, std::span<const std::string>(&arena, 1), subjects.size(), view, snap.get()));
  for (const auto& [index, first] : repeats) out[index] = out[first];
  return Scanned(std::move(out));
}

bool StoreImpl::KeepOfSubjects(const SubjectSlots& slot, const ReadView& view,
                               std::string_view key, std::string_view value, std::vector<KeptEntry>* kept,
                               std::string* arena, Status* status) {
  TxId a = 0, r = 0;
  std::optional<Date> va;
  uint32_t subject = 0;
  if (!codec::DecodeCoreHeader(value, &a, &r, &va) || !codec::DecodeCoreSubject(value, &subject)) {
    *status = Status::Corruption("undecodable fact record in pos");
    return false;
  }
  const std::optional<size_t> place = slot.Find(subject);
  if (!place || !Visible(a, r, va, view)) return true;
  kept->push_back(KeptEntry{*place, codec::FactIdOfIndexKey(key), arena->size(), static_cast<uint32_t>(value.size())});
  arena->append(value.data(), value.size());
  return true;
}

Result<std::vector<std::vector<Fact>>> StoreImpl::DecodeKept(std::vector<KeptEntry>& kept,
                                                             std::span<const std::string> arenas,
                                                             size_t subjects, const ReadView& view,
                                                             const rocksdb::Snapshot* snap,
                                                             const RunElsewhere& elsewhere) const {
  // FactsAbout's order: by subject (a counting sort: the subjects are
  // numbered, and a comparison sort of Q2's 83,000 entries at N=100,000 took
  // ~4 ms), then by fact id within a subject (a few entries each).
  {
    std::vector<size_t> starts(subjects + 1, 0);
    for (const KeptEntry& e : kept) ++starts[e.index + 1];
    for (size_t i = 0; i < subjects; ++i) starts[i + 1] += starts[i];
    std::vector<KeptEntry> by_subject(kept.size());
    std::vector<size_t> next(starts.begin(), starts.end() - 1);
    for (const KeptEntry& e : kept) by_subject[next[e.index]++] = e;
    for (size_t i = 0; i < subjects; ++i) {
      std::sort(by_subject.begin() + static_cast<std::ptrdiff_t>(starts[i]),
                by_subject.begin() + static_cast<std::ptrdiff_t>(starts[i + 1]),
                [](const KeptEntry& x, const KeptEntry& y) { return x.fact_id < y.fact_id; });
    }
    kept = std::move(by_subject);
  }
  std::vector<std::vector<Fact>> out(subjects);
  auto record = [&](size_t j) {
    return std::pair<uint64_t, std::string_view>(
        kept[j].fact_id, std::string_view(arenas[kept[j].arena]).substr(kept[j].begin, kept[j].length));
  };
  // The entries [from, to), whole subjects, into their subjects' vectors
  // (each sized once: the pointers in `unresolved` hold).
  auto decode = [&](size_t from, size_t to, std::vector<std::pair<size_t, Fact*>>& unresolved) {
    CoreRecord core;
    Dictionary::KnownNames known(dict_);
    size_t named = 0;
    for (size_t k = from; k < to;) {
      size_t end = k;
      while (end < to && kept[end].index == kept[k].index) ++end;
      std::vector<Fact>& facts = out[kept[k].index];
      facts.resize(end - k);
      for (size_t j = k; j < end; ++j) {
        if (++named % kNamesUnderOneLock == 0) known.Reacquire();
        if (!codec::DecodeCore(record(j).second, &core)) {
          return Status::Corruption("record of fact " + std::to_string(kept[j].fact_id) + " cannot be decoded");
        }
        if (!ToFactFromKnownNames(kept[j].fact_id, core, known, &facts[j - k])) {
          unresolved.emplace_back(j, &facts[j - k]);
        }
      }
      k = end;
    }
    return Status::OK();
  };
  // A large pass is decoded on two threads at once (making the Facts is
  // half of a large find's candidates step: Q2 and Q3 of the peer benchmark
  // at N=100,000 keep 83,000-130,000 entries, 20-30 ms), in chunks of whole
  // subjects: this thread takes them from the front, the caller's other
  // thread from the back, each as it is free, until they meet. Each thread's
  // facts are then mostly those of the candidates it evaluates next
  // (query/evaluator.cpp, EvaluateInTwo: the first half here, the second
  // there), made on its own heap (Q3's evaluation 88-95 -> 74-80 ms against
  // one thread decoding all), and the thread that comes to the decoding
  // first does more of it: the other reads the candidates' entity records
  // first, and with two even halves this one waited for it (Q2: ~10 ms).
  constexpr size_t kChunks = 16;
  std::vector<size_t> bounds = {0};
  if (elsewhere && kept.size() >= kDecodeElsewhereFrom) {
    for (size_t c = 1; c < kChunks; ++c) {
      size_t at = std::max(bounds.back(), kept.size() * c / kChunks);
      while (at > bounds.back() && at < kept.size() && kept[at].index == kept[at - 1].index) ++at;
      if (at > bounds.back() && at < kept.size()) bounds.push_back(at);
    }
  }
  bounds.push_back(kept.size());
  struct Ends {
    std::mutex mutex;
    size_t front = 0, back = 0;  // chunks [front, back) are left
  } ends;
  ends.back = bounds.size() - 1;
  auto take_chunks = [&](bool from_front, std::vector<std::pair<size_t, Fact*>>& unresolved_here) -> Status {
    for (;;) {
      size_t chunk = 0;
      {
        std::lock_guard<std::mutex> lock(ends.mutex);
        if (ends.front >= ends.back) return Status::OK();
        chunk = from_front ? ends.front++ : --ends.back;
      }
      CHIPKG_RETURN_IF_ERROR(decode(bounds[chunk], bounds[chunk + 1], unresolved_here));
    }
  };
  std::vector<std::pair<size_t, Fact*>> unresolved, unresolved_there;
  std::future<Status> there;
  if (bounds.size() > 2) {
    auto task = std::make_shared<std::packaged_task<Status()>>(
        [&] { return take_chunks(/*from_front=*/false, unresolved_there); });
    there = task->get_future();
    elsewhere([task] { (*task)(); });
  }
  Status here;
  try {
    here = take_chunks(/*from_front=*/true, unresolved);
  } catch (...) {
    if (there.valid()) there.wait();  // it writes into `out`
    throw;
  }
  if (there.valid()) {
    try {
      Status st = there.get();
      if (here.ok()) here = std::move(st);
    } catch (const std::future_error& e) {  // the task was dropped without running
      return Status::Aborted(std::string("decoding facts on another thread: ") + e.what());
    }
  }
  CHIPKG_RETURN_IF_ERROR(here);
  unresolved.insert(unresolved.end(), unresolved_there.begin(), unresolved_there.end());
  CHIPKG_RETURN_IF_ERROR(FillUnresolved(unresolved, record));
  if (view.with_provenance) {
    for (std::vector<Fact>& facts : out) {
      if (!facts.empty()) CHIPKG_RETURN_IF_ERROR(FillProvenance(&facts, snap));
    }
  }
  return out;
}

// The range's entries are read first, each kept as its subject is found (a
// subject's first in-range entry fixes its place, as in SubjectsInRange); then
// the predicate's entries either side of the range, keeping those of the
// subjects found. Both reads on one snapshot, so the facts are those of the
// state the subjects were picked in. Q2 of the peer benchmark at N=100,000:
// 165,026 entries read once instead of the range's 82,000-odd twice, and
// 48,582 subjects named without looking each up again.
Result<Store::SubjectsWithFacts> StoreImpl::SubjectsInRangeWithFacts(
    const std::string& predicate, const ValueRange& range, const ReadView& view, size_t facts_from,
    size_t facts_up_to, const std::function<void(const std::vector<EntityId>&)>& on_subjects,
    const RunElsewhere& decode_elsewhere, FactsOf facts_of) const {
  SubjectsWithFacts out;
  CHIPKG_ASSIGN_OR_RETURN(auto keys, RangeKeys(predicate, range));
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> pid, dict_.Find(predicate));
  if (!keys || !pid) {
    if (facts_from == 0) out.facts.emplace();  // no subjects: their facts are none
    return out;
  }
  ReadSnapshot snap(this);
  std::string start, limit;
  codec::PutU32(&start, *pid);
  limit = codec::PrefixSuccessor(start);
  const std::string& range_start = keys->first;
  const std::string range_limit = keys->second.empty() ? limit : keys->second;

  // A stretch of the range: its subjects in the order of their first entry
  // and, until there are more subjects than facts are read for, its visible
  // entries.
  struct Stretch {
    std::vector<uint32_t> ids;
    SubjectSlots slot;  // subject -> its place in `ids`
    std::vector<KeptEntry> kept;
    std::string arena;
    bool keeping = false;
    Status status;
  };
  auto scan = [&](const std::string& from, const std::string& to, Stretch& s) -> Status {
    CHIPKG_RETURN_IF_ERROR(Scan(codec::kPosCf, from, to, 4,
                                [&](std::string_view key, std::string_view value) {
                                  TxId a = 0, r = 0;
                                  std::optional<Date> va;
                                  uint32_t subject = 0;
                                  if (!codec::DecodeCoreHeader(value, &a, &r, &va) ||
                                      !codec::DecodeCoreSubject(value, &subject)) {
                                    s.status = Status::Corruption("undecodable fact record in pos");
                                    return false;
                                  }
                                  if (!Visible(a, r, va, view)) return true;
                                  const auto [place, added] = s.slot.Emplace(subject, s.ids.size());
                                  if (added) s.ids.push_back(subject);
                                  if (s.keeping && s.ids.size() > facts_up_to) {
                                    s.keeping = false;
                                    std::vector<KeptEntry>().swap(s.kept);
                                    std::string().swap(s.arena);
                                  }
                                  if (s.keeping) {
                                    s.kept.push_back(KeptEntry{place, codec::FactIdOfIndexKey(key), s.arena.size(),
                                                               static_cast<uint32_t>(value.size())});
                                    s.arena.append(value.data(), value.size());
                                  }
                                  return true;
                                },
                                snap.get()));
    return s.status;
  };
  // A large range is scanned in stretches (eighths of its bytes, halves of
  // a smaller one) that this thread and the caller's other one take in turn,
  // each as it is free, and joined as one scan would have found them: each
  // stretch's new subjects after those of the stretches before it, each
  // entry under its subject's place in the whole. Before, the other thread
  // waited for the subjects (the scan was a third of Q3's candidates step at
  // N=100,000). That thread often starts late: its first allocation takes
  // back what other threads freed of its memory (the previous answer's
  // second half, ~7 ms for Q3), so the stretches are small enough for this
  // one to take most of them meanwhile.
  std::vector<std::string> bounds = {range_start, range_limit};
  const double range_entries = decode_elsewhere ? EntriesWithin(codec::kPosCf, range_start, range_limit) : 0;
  if (range_entries >= kSplitRangeScanFrom) {
    // Each key costs a few dozen microseconds of estimates: a smaller range is halved only.
    const int rounds = range_entries >= 8 * kSplitRangeScanFrom ? 3 : 1;
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::string> finer = {bounds.front()};
      for (size_t i = 0; i + 1 < bounds.size(); ++i) {
        if (std::optional<std::string> middle = MiddleKey(codec::kPosCf, bounds[i], bounds[i + 1])) {
          finer.push_back(std::move(*middle));
        }
        finer.push_back(bounds[i + 1]);
      }
      bounds = std::move(finer);
    }
  }
  const size_t count = bounds.size() - 1;
  std::vector<Stretch> stretches(count);
  for (Stretch& s : stretches) s.keeping = facts_from <= facts_up_to;
  if (count == 1) {
    CHIPKG_RETURN_IF_ERROR(scan(range_start, range_limit, stretches[0]));
  } else {
    range_scan_stretches_.fetch_add(count);
    // Shared with the task, which may start after this call has returned:
    // it then finds no stretch left and touches nothing else.
    struct Turns {
      std::atomic<size_t> next{0};
      size_t done = 0;  // under `mutex`
      std::mutex mutex;
      std::condition_variable all_done;
    };
    auto turns = std::make_shared<Turns>();
    auto take_turns = [&stretches, &bounds, &scan, count](Turns& t) {
      for (size_t i; (i = t.next.fetch_add(1)) < count;) {
        try {
          Status st = scan(bounds[i], bounds[i + 1], stretches[i]);
          if (!st.ok()) stretches[i].status = std::move(st);
        } catch (const std::exception& e) {
          stretches[i].status = Status::Aborted(std::string("scanning a stretch of a range: ") + e.what());
        }
        std::lock_guard<std::mutex> lock(t.mutex);
        if (++t.done == count) t.all_done.notify_one();
      }
    };
    decode_elsewhere([turns, take_turns] { take_turns(*turns); });
    take_turns(*turns);
    {
      std::unique_lock<std::mutex> lock(turns->mutex);
      turns->all_done.wait(lock, [&] { return turns->done == count; });
    }
    for (Stretch& s : stretches) CHIPKG_RETURN_IF_ERROR(s.status);
  }
  Stretch& first = stretches[0];
  std::vector<std::string> arenas(count);  // [0]: the first stretch's, which the rest of the predicate adds to
  for (size_t k = 1; k < count; ++k) {
    Stretch& later = stretches[k];
    std::vector<size_t> place_in_first(later.ids.size());
    for (size_t j = 0; j < later.ids.size(); ++j) {
      const auto [place, added] = first.slot.Emplace(later.ids[j], first.ids.size());
      if (added) first.ids.push_back(later.ids[j]);
      place_in_first[j] = place;
    }
    if (first.keeping && later.keeping && first.ids.size() <= facts_up_to) {
      first.kept.reserve(first.kept.size() + later.kept.size());
      for (const KeptEntry& e : later.kept) {
        first.kept.push_back(
            KeptEntry{place_in_first[e.index], e.fact_id, e.begin, e.length, static_cast<uint32_t>(k)});
      }
      arenas[k] = std::move(later.arena);
    } else if (first.keeping) {
      first.keeping = false;
      std::vector<KeptEntry>().swap(first.kept);
      std::string().swap(first.arena);
      arenas.assign(count, std::string());
    }
    later = Stretch();  // its memory, freed as the join goes
  }
  std::vector<uint32_t>& ids = first.ids;
  const SubjectSlots& slot = first.slot;
  std::vector<KeptEntry>& kept = first.kept;
  std::string& arena = first.arena;
  Status status;
  out.subjects.resize(ids.size());
  CHIPKG_RETURN_IF_ERROR(dict_.Learn(ids, ReadOpts(ids.size())));  // a `find`'s candidates: one batched read, not a Get each
  CHIPKG_RETURN_IF_ERROR(NameAll(ids, &out.subjects));
  if (ids.size() < facts_from || ids.size() > facts_up_to) return out;
  if (ids.empty()) {
    out.facts.emplace();
    return out;
  }
  if (on_subjects) on_subjects(out.subjects);

  if (facts_of == FactsOf::kRange) {
    range_only_reads_.fetch_add(1);
    arenas[0] = std::move(arena);
    CHIPKG_ASSIGN_OR_RETURN(out.facts, DecodeKept(kept, arenas, ids.size(), view, snap.get(), decode_elsewhere));
    return out;
  }
  // Fewer subjects than the rest of the predicate has entries per seek: a
  // seek each (FactsAboutEach decides).
  if (ids.size() < kPassFromKeys || EntriesWithin(codec::kPosCf, start, range_start) +
                                            EntriesWithin(codec::kPosCf, range_limit, limit) >
                                        kEntriesPerSeek * static_cast<double>(ids.size())) {
    CHIPKG_ASSIGN_OR_RETURN(out.facts, ReadFactsAboutEach(out.subjects, predicate, view, /*contested_only=*/false));
    return out;
  }
  predicate_passes_.fetch_add(1);
  auto keep_rest = [&](std::string_view key, std::string_view value) {
    return KeepOfSubjects(slot, view, key, value, &kept, &arena, &status);
  };
  if (start < range_start) {
    CHIPKG_RETURN_IF_ERROR(Scan(codec::kPosCf, start, range_start, 4, keep_rest, snap.get(), ids.size()));
  }
  CHIPKG_RETURN_IF_ERROR(status);
  if (range_limit < limit) {
    CHIPKG_RETURN_IF_ERROR(Scan(codec::kPosCf, range_limit, limit, 4, keep_rest, snap.get(), ids.size()));
  }
  CHIPKG_RETURN_IF_ERROR(status);
  arenas[0] = std::move(arena);
  CHIPKG_ASSIGN_OR_RETURN(out.facts, DecodeKept(kept, arenas, ids.size(), view, snap.get(), decode_elsewhere));
  return out;
}

Result<std::optional<std::pair<std::string, std::string>>> StoreImpl::RangeKeys(const std::string& predicate,
                                                                      const ValueRange& range) const {
  std::optional<ValueKind> kind = range.kind;
  for (const auto* bound : {&range.lower, &range.upper}) {
    if (!*bound) continue;
    if (kind && (*bound)->kind != *kind) {
      return Status::InvalidArgument(std::string("range on ") + predicate + ": a bound of kind " +
                                     ValueKindName((*bound)->kind) + " in a range of kind " + ValueKindName(*kind));
    }
    kind = (*bound)->kind;
  }
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> pid, dict_.Find(predicate));
  if (!pid || predicate.empty()) return std::optional<std::pair<std::string, std::string>>();

  std::string base;
  codec::PutU32(&base, *pid);
  // The VALUEKEY of a bound; nullopt when no stored value can equal it (an entity never interned).
  auto bound_key = [&](const Value& v) -> Result<std::optional<std::string>> {
    CoreRecord c;
    c.kind = v.kind;
    switch (v.kind) {
      case ValueKind::kQuantity:
        if (std::isnan(v.number)) return Status::InvalidArgument("range on " + predicate + ": NaN bound");
        c.number = v.number;
        break;
      case ValueKind::kDate: c.date = v.date; break;
      case ValueKind::kEntity: {
        CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> id, dict_.Find(v.text));
        if (!id) return std::optional<std::string>();
        c.entity = *id;
        break;
      }
      case ValueKind::kText: c.text = v.text; break;
      case ValueKind::kBool: c.number = v.number != 0 ? 1 : 0; break;
      case ValueKind::kNotPublished: break;
    }
    std::string key = base;
    codec::AppendValueKey(c, &key);
    return std::optional<std::string>(std::move(key));
  };

  std::string kind_prefix = base;
  if (kind) kind_prefix.push_back(static_cast<char>(*kind));
  std::string start = kind_prefix;
  std::string limit = codec::PrefixSuccessor(kind_prefix);
  if (range.lower) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<std::string> k, bound_key(*range.lower));
    if (!k) return std::optional<std::pair<std::string, std::string>>();
    start = range.lower_inclusive ? *k : codec::PrefixSuccessor(*k);
  }
  if (range.upper) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<std::string> k, bound_key(*range.upper));
    if (!k) return std::optional<std::pair<std::string, std::string>>();
    limit = range.upper_inclusive ? codec::PrefixSuccessor(*k) : *k;
  }
  if (!limit.empty() && start >= limit) return std::optional<std::pair<std::string, std::string>>();
  return std::optional<std::pair<std::string, std::string>>(std::make_pair(std::move(start), std::move(limit)));
}

Result<std::vector<Fact>> StoreImpl::FactsInRange(const std::string& predicate, const ValueRange& range,
                                                  const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(auto keys, RangeKeys(predicate, range));
  if (!keys) return std::vector<Fact>();
  ReadSnapshot snap(this, view.with_provenance);
  return ScanFacts(codec::kPosCf, keys->first, keys->second, 4, view, snap.get());
}

Result<std::vector<EntityId>> StoreImpl::SubjectsInRange(const std::string& predicate, const ValueRange& range,
                                                        const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(auto keys, RangeKeys(predicate, range));
  if (!keys) return std::vector<EntityId>();
  std::vector<uint32_t> ids;
  std::unordered_set<uint32_t> seen;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kPosCf, keys->first, keys->second, 4,
                              [&](std::string_view, std::string_view value) {
                                TxId a = 0, r = 0;
                                std::optional<Date> va;
                                uint32_t subject = 0;
                                if (!codec::DecodeCoreHeader(value, &a, &r, &va) ||
                                    !codec::DecodeCoreSubject(value, &subject)) {
                                  status = Status::Corruption("undecodable fact record in pos");
                                  return false;
                                }
                                if (Visible(a, r, va, view) && seen.insert(subject).second) ids.push_back(subject);
                                return true;
                              }));
  CHIPKG_RETURN_IF_ERROR(status);
  std::vector<EntityId> out;
  CHIPKG_RETURN_IF_ERROR(dict_.Learn(ids, ReadOpts(ids.size())));
  CHIPKG_RETURN_IF_ERROR(NameAll(ids, &out));
  return out;
}

Result<std::vector<Fact>> StoreImpl::FactsReferencing(const EntityId& object, const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> oid, dict_.Find(object));
  if (!oid || object.empty()) return std::vector<Fact>();
  std::string prefix;
  codec::PutU32(&prefix, *oid);
  ReadSnapshot snap(this);
  return ScanHeaderIndex(codec::kRefCf, prefix, codec::PrefixSuccessor(prefix), 4, view, snap.get());
}

Result<std::vector<Fact>> StoreImpl::FactsFromDocument(const std::string& document_id,
                                                       std::optional<uint32_t> version,
                                                       const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, dict_.Find(document_id));
  if (!did || document_id.empty()) return std::vector<Fact>();
  std::string prefix;
  codec::PutU32(&prefix, *did);
  if (version) codec::PutU32(&prefix, *version);
  ReadSnapshot snap(this);
  const std::string limit = codec::PrefixSuccessor(prefix);
  return ScanHeaderIndex(codec::kDocCf, prefix, limit, SeekLengthWithin(prefix, limit), view, snap.get());
}

Result<std::vector<Fact>> StoreImpl::History(const EntityId& subject, const std::string& predicate) const {
  ReadView view;
  view.include_retracted = true;
  CHIPKG_ASSIGN_OR_RETURN(std::vector<Fact> facts, FactsAbout(subject, predicate, view));
  std::sort(facts.begin(), facts.end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.asserted_tx, a.id) < std::tie(b.asserted_tx, b.id);
  });
  return facts;
}

Result<Fact> StoreImpl::GetFact(uint64_t fact_id) const {
  ReadSnapshot snap(this);
  rocksdb::ReadOptions ro = ReadOpts();
  ro.snapshot = snap.get();
  std::string value;
  rocksdb::Status st = db_->Get(ro, handles_[codec::kFactsCf], codec::FactKey(fact_id), &value);
  if (st.IsNotFound()) return Status::NotFound("no fact " + std::to_string(fact_id) + " in " + path_);
  CHIPKG_RETURN_IF_ERROR(FromRocks(st, "reading fact " + std::to_string(fact_id)));
  CoreRecord core;
  if (!codec::DecodeCore(value, &core)) {
    return Status::Corruption("record of fact " + std::to_string(fact_id) + " cannot be decoded");
  }
  std::vector<Fact> one(1);
  CHIPKG_RETURN_IF_ERROR(ToFact(fact_id, core, &one[0]));
  CHIPKG_RETURN_IF_ERROR(FillProvenance(&one, snap.get()));
  return std::move(one[0]);
}

Result<std::vector<Fact>> StoreImpl::GetFacts(const std::vector<uint64_t>& fact_ids) const {
  ReadSnapshot snap(this);
  std::vector<std::string> cores;
  CHIPKG_RETURN_IF_ERROR(ReadCores(fact_ids, &cores, snap.get()));
  std::vector<Fact> out(fact_ids.size());
  auto record = [&](size_t i) { return std::pair<uint64_t, std::string_view>(fact_ids[i], cores[i]); };
  CoreRecord core;
  std::vector<std::pair<size_t, Fact*>> unresolved;
  {
    Dictionary::KnownNames known(dict_);
    for (size_t i = 0; i < fact_ids.size(); ++i) {
      if (i % kNamesUnderOneLock == kNamesUnderOneLock - 1) known.Reacquire();
      if (!codec::DecodeCore(cores[i], &core)) {
        return Status::Corruption("record of fact " + std::to_string(fact_ids[i]) + " cannot be decoded");
      }
      if (!ToFactFromKnownNames(fact_ids[i], core, known, &out[i])) unresolved.emplace_back(i, &out[i]);
    }
  }
  CHIPKG_RETURN_IF_ERROR(FillUnresolved(unresolved, record));
  CHIPKG_RETURN_IF_ERROR(FillProvenance(&out, snap.get()));
  return out;
}

Result<std::vector<Provenance>> StoreImpl::ReadProvenance(const std::vector<uint64_t>& fact_ids) const {
  ReadSnapshot snap(this);
  std::vector<Provenance> out(fact_ids.size());
  CHIPKG_RETURN_IF_ERROR(ReadByIds(codec::kProvCf, fact_ids, snap.get(), [&](size_t i, std::string_view value) -> Status {
    uint32_t run = 0;
    if (!codec::DecodeProv(value, &out[i], &run)) {
      return Status::Corruption("provenance record of fact " + std::to_string(fact_ids[i]) + " cannot be decoded");
    }
    return dict_.NameInto(run, &out[i].run_id);
  }));
  return out;
}

Result<std::vector<EntityId>> StoreImpl::SubjectsWith(const std::string& predicate, const ReadView& view) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> pid, dict_.Find(predicate));
  if (!pid || predicate.empty()) return std::vector<EntityId>();
  std::string prefix;
  codec::PutU32(&prefix, *pid);
  std::vector<uint32_t> ids;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kPosCf, prefix, codec::PrefixSuccessor(prefix), 4,
                              [&](std::string_view, std::string_view value) {
                                TxId a = 0, r = 0;
                                std::optional<Date> va;
                                uint32_t subject = 0;
                                if (!codec::DecodeCoreHeader(value, &a, &r, &va) ||
                                    !codec::DecodeCoreSubject(value, &subject)) {
                                  status = Status::Corruption("undecodable fact record in pos");
                                  return false;
                                }
                                if (Visible(a, r, va, view)) ids.push_back(subject);
                                return true;
                              }));
  CHIPKG_RETURN_IF_ERROR(status);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<EntityId> out;
  CHIPKG_RETURN_IF_ERROR(dict_.Learn(ids, ReadOpts(ids.size())));
  CHIPKG_RETURN_IF_ERROR(NameAll(ids, &out));
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::optional<Entity>> StoreImpl::ReadEntity(const std::string& id) const {
  if (std::optional<Entity> cached = CachedEntity(id)) return cached;
  const uint64_t generation = SourcesGeneration();
  std::string value;
  rocksdb::Status st = db_->Get(ReadOpts(), handles_[codec::kEntitiesCf], id, &value);
  if (st.IsNotFound()) return std::optional<Entity>();
  CHIPKG_RETURN_IF_ERROR(FromRocks(st, "reading entity " + id));
  Entity e;
  if (!codec::DecodeEntity(id, value, &e)) return Status::Corruption("record of entity " + id + " cannot be decoded");
  KeepEntity(e, generation);
  return std::optional<Entity>(std::move(e));
}

Result<Entity> StoreImpl::GetEntity(const EntityId& id) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<Entity> e, ReadEntity(id));
  if (!e) return Status::NotFound("no entity " + id + " in " + path_);
  return std::move(*e);
}

namespace {

// The positions of `keys` in byte order. A large read's keys share a long
// prefix ("chip:c0..." for a find's 60,000 candidates), so they are ordered
// by the 8 bytes after the prefix all share, as one integer, and only keys
// equal there by comparing the strings: sorting the strings themselves cost
// Q3 of the peer benchmark at N=100,000 ~5 ms of its entity read.
std::vector<size_t> ByteOrder(const std::vector<std::string>& keys) {
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  constexpr size_t kByWindowFrom = 64;
  if (keys.size() < kByWindowFrom) {
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    return order;
  }
  size_t shared = keys.front().size();
  for (const std::string& k : keys) {
    shared = std::min(shared, k.size());
    shared = static_cast<size_t>(std::mismatch(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(shared),
                                               keys.front().begin()).first - k.begin());
  }
  struct Entry {
    uint64_t window;  // bytes [shared, shared + 8) big-endian, zero past the key's end
    size_t index;
  };
  std::vector<Entry> entries(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t window = 0;
    for (size_t b = 0; b < 8; ++b) {
      const size_t at = shared + b;
      window = window << 8 | (at < keys[i].size() ? static_cast<unsigned char>(keys[i][at]) : 0u);
    }
    entries[i] = Entry{window, i};
  }
  // A key that ends inside the window reads as zeros there, so a window
  // smaller than another's is a key smaller than the other's; equal windows
  // (a key and its extension by zero bytes, or keys alike past the window)
  // are ordered by the strings.
  std::sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) {
    if (x.window != y.window) return x.window < y.window;
    return keys[x.index] < keys[y.index];
  });
  for (size_t i = 0; i < entries.size(); ++i) order[i] = entries[i].index;
  return order;
}

}  // namespace

Status StoreImpl::MultiGetSorted(int cf, const std::vector<std::string>& keys, const rocksdb::Snapshot* snap,
                                 const std::function<std::string(size_t)>& describe,
                                 const std::function<Status(size_t, std::optional<std::string_view>)>& fn,
                                 const RunElsewhere* elsewhere) const {
  if (keys.empty()) return Status::OK();
  const std::vector<size_t> order = ByteOrder(keys);
  if (keys.size() >= kPassFromKeys) {
    // A range the keys fill densely is read in one pass, merged with them
    // (kPassFromKeys): a query's thousands of candidate entities, or the
    // documents and versions of an answer's thousands of citations.
    const std::string& low = keys[order.front()];
    const std::string high = keys[order.back()] + std::string(1, '\0');
    if (EntriesWithin(cf, low, high) <= kEntriesPerSeek * static_cast<double>(keys.size())) {
      if (elsewhere == nullptr || !*elsewhere || keys.size() < 2 * kPassFromKeys) {
        return MergeScan(cf, keys, order, low, high, snap, fn);
      }
      // Two halves of the keys, split where the key changes, each merged
      // with its own stretch, on one snapshot. A find's 48,582 candidate
      // entities at N=100,000 take a pass over 100,000 records (~17 ms): on
      // one thread, the other decoded the candidates' facts meanwhile and
      // then waited for it.
      size_t middle = order.size() / 2;
      while (middle < order.size() && keys[order[middle]] == keys[order[middle - 1]]) ++middle;
      if (middle == order.size()) return MergeScan(cf, keys, order, low, high, snap, fn);
      ReadSnapshot own(this, snap == nullptr);
      const rocksdb::Snapshot* at = snap != nullptr ? snap : own.get();
      const std::string& split = keys[order[middle]];
      const std::vector<size_t> first(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(middle));
      const std::vector<size_t> second(order.begin() + static_cast<std::ptrdiff_t>(middle), order.end());
      auto task = std::make_shared<std::packaged_task<Status()>>(
          [&] { return MergeScan(cf, keys, second, split, high, at, fn); });
      std::future<Status> there = task->get_future();
      // Handed over as the only owner: a half dropped unrun breaks the promise.
      (*elsewhere)([task = std::move(task)] { (*task)(); });
      Status here;
      try {
        here = MergeScan(cf, keys, first, low, split, at, fn);
      } catch (...) {
        there.wait();  // it reads `keys` and calls `fn`
        throw;
      }
      try {
        Status st = there.get();
        if (here.ok()) here = std::move(st);
      } catch (const std::future_error& e) {  // the half was dropped without running
        return Status::Aborted(std::string("reading on another thread: ") + e.what());
      }
      return here;
    }
  }
  // Sized to the batch actually read: a citation lookup reads one key, and
  // constructing 1,024 pinnable slices for it cost more than the read.
  const size_t batch = std::min<size_t>(1024, keys.size());
  // Several MultiGets see the store as of one moment, like any read here.
  ReadSnapshot own(this, snap == nullptr && keys.size() > batch);
  rocksdb::ReadOptions ro = ReadOpts(keys.size());
  ro.snapshot = snap != nullptr ? snap : own.get();
  std::vector<rocksdb::Slice> slices;
  std::vector<rocksdb::PinnableSlice> values(batch);
  std::vector<rocksdb::Status> statuses(batch);
  for (size_t begin = 0; begin < order.size(); begin += batch) {
    const size_t n = std::min(batch, order.size() - begin);
    slices.clear();
    for (size_t i = 0; i < n; ++i) slices.emplace_back(keys[order[begin + i]]);
    for (size_t i = 0; i < n; ++i) values[i].Reset();
    db_->MultiGet(ro, handles_[cf], n, slices.data(), values.data(), statuses.data(), /*sorted_input=*/true);
    for (size_t i = 0; i < n; ++i) {
      const size_t at = order[begin + i];
      if (statuses[i].IsNotFound()) {
        CHIPKG_RETURN_IF_ERROR(fn(at, std::nullopt));
        continue;
      }
      CHIPKG_RETURN_IF_ERROR(FromRocks(statuses[i], "reading " + describe(at) + " in " + path_));
      CHIPKG_RETURN_IF_ERROR(fn(at, View(values[i])));
    }
  }
  return Status::OK();
}

namespace {

// The record cache's three operations, for each of its maps (StoreImpl's
// entities, documents and versions).
template <typename Map, typename Key>
std::optional<typename Map::mapped_type> FindKept(std::shared_mutex& mu, const Map& map, const Key& key,
                                                  std::atomic<uint64_t>& hits) {
  std::shared_lock lock(mu);
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  hits.fetch_add(1, std::memory_order_relaxed);
  return it->second;
}

// Keeps `value` unless something was forgotten since `generation`.
template <typename Map, typename Key>
void KeepIfCurrent(std::shared_mutex& mu, const std::atomic<uint64_t>& now, uint64_t generation, Map& map,
                   Key key, const typename Map::mapped_type& value, size_t most) {
  std::unique_lock lock(mu);
  if (now.load() != generation) return;
  if (map.size() >= most) map.clear();
  map.insert_or_assign(std::move(key), value);
}

template <typename Map>
void ForgetKept(std::shared_mutex& mu, std::atomic<uint64_t>& generation, Map& map, const std::string& key) {
  std::unique_lock lock(mu);
  generation.fetch_add(1);
  map.erase(key);
}

uint64_t VersionCacheKey(uint32_t did, uint32_t version) { return uint64_t{did} << 32 | version; }

// Fills `out` with what `kept` finds of `ids`; returns the ids it did not
// find, still to read, with their positions in `ids`.
template <typename Record, typename Kept>
std::pair<std::vector<std::string>, std::vector<size_t>> TakeKept(const std::vector<std::string>& ids,
                                                                  std::vector<std::optional<Record>>& out, Kept kept) {
  std::pair<std::vector<std::string>, std::vector<size_t>> missing;
  for (size_t i = 0; i < ids.size(); ++i) {
    out[i] = kept(ids[i]);
    if (out[i]) continue;
    missing.first.push_back(ids[i]);
    missing.second.push_back(i);
  }
  return missing;
}

}  // namespace

Result<std::vector<std::optional<Entity>>> StoreImpl::GetEntities(const std::vector<EntityId>& ids,
                                                                   const RunElsewhere& elsewhere) const {
  std::vector<std::optional<Entity>> out(ids.size());
  // A few entities (the names of an answer's subjects and values) come from
  // the cache; a find's tens of thousands of candidates are read in one pass
  // and not kept: kept, they made the evaluation that follows slower (Q3 at
  // N=100,000: evaluate 155-158 -> 165-168 ms) and the pass no faster.
  // Those are read as asked, each record decoded where it goes, without a
  // copy of every id to read.
  const bool cached = ids.size() < kReadOnceFrom;
  std::pair<std::vector<std::string>, std::vector<size_t>> not_kept;
  if (cached) not_kept = TakeKept(ids, out, [&](const std::string& id) { return CachedEntity(id); });
  const std::vector<std::string>& missing = cached ? not_kept.first : ids;
  auto position = [&](size_t k) { return cached ? not_kept.second[k] : k; };
  const uint64_t generation = SourcesGeneration();
  auto describe = [&](size_t k) { return "entity " + missing[k]; };
  CHIPKG_RETURN_IF_ERROR(MultiGetSorted(codec::kEntitiesCf, missing, nullptr, describe, [&](size_t k, std::optional<std::string_view> value) {
    if (!value) return Status::OK();
    std::optional<Entity>& e = out[position(k)];
    if (!codec::DecodeEntity(missing[k], *value, &e.emplace())) {
      e.reset();
      return Status::Corruption("record of entity " + missing[k] + " cannot be decoded");
    }
    if (cached) KeepEntity(*e, generation);
    return Status::OK();
  }, &elsewhere));
  return out;
}

Result<Entity> StoreImpl::FindEntity(const std::string& name_or_alias) const {
  if (!name_or_alias.empty()) {
    CHIPKG_ASSIGN_OR_RETURN(std::optional<Entity> exact, ReadEntity(name_or_alias));
    if (exact) return std::move(*exact);
  }
  const std::string norm = NormalizeAlias(name_or_alias);
  if (norm.empty()) return Status::NotFound("no entity named '" + name_or_alias + "'");
  const std::string prefix = norm + std::string(1, '\0');
  int best_rank = 256;
  std::vector<std::string> best;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kAliasCf, prefix, codec::PrefixSuccessor(prefix), 0,
                              [&](std::string_view key, std::string_view value) {
                                int rank = value.empty() ? 2 : static_cast<uint8_t>(value[0]);
                                std::string id(key.substr(prefix.size()));
                                if (rank < best_rank) {
                                  best_rank = rank;
                                  best.clear();
                                }
                                if (rank == best_rank) best.push_back(std::move(id));
                                return true;
                              }));
  if (best.empty()) return Status::NotFound("no entity named '" + name_or_alias + "'");
  if (best.size() > 1) {
    std::string list;
    for (const auto& id : best) list += (list.empty() ? "" : ", ") + id;
    return Status::InvalidArgument("'" + name_or_alias + "' is ambiguous: it names " + list);
  }
  return GetEntity(best[0]);
}

Result<std::vector<Entity>> StoreImpl::ListEntities(const std::string& kind) const {
  std::vector<Entity> out;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kEntitiesCf, "", "", 0, [&](std::string_view key, std::string_view value) {
    Entity e;
    if (!codec::DecodeEntity(key, value, &e)) {
      status = Status::Corruption("record of entity " + std::string(key) + " cannot be decoded");
      return false;
    }
    if (kind.empty() || e.kind == kind) out.push_back(std::move(e));
    return true;
  }));
  CHIPKG_RETURN_IF_ERROR(status);
  return out;
}


std::optional<Entity> StoreImpl::CachedEntity(const std::string& id) const {
  return FindKept(sources_mu_, cached_entities_, id, source_cache_hits_);
}

std::optional<Document> StoreImpl::CachedDocument(const std::string& id) const {
  std::optional<std::shared_ptr<const Document>> kept = FindKept(sources_mu_, cached_documents_, id, source_cache_hits_);
  if (!kept) return std::nullopt;
  return **kept;
}

std::optional<DocumentVersion> StoreImpl::CachedVersion(uint32_t did, uint32_t version) const {
  std::optional<std::shared_ptr<const DocumentVersion>> kept =
      FindKept(sources_mu_, cached_versions_, VersionCacheKey(did, version), source_cache_hits_);
  if (!kept) return std::nullopt;
  return **kept;
}

void StoreImpl::KeepEntity(const Entity& e, uint64_t generation) const {
  KeepIfCurrent(sources_mu_, sources_generation_, generation, cached_entities_, e.id, e, kCachedSourcesUpTo);
}

void StoreImpl::KeepDocument(const Document& d, uint64_t generation) const {
  KeepDocument(std::make_shared<const Document>(d), generation);
}

void StoreImpl::KeepDocument(const std::shared_ptr<const Document>& d, uint64_t generation) const {
  KeepIfCurrent(sources_mu_, sources_generation_, generation, cached_documents_, d->id, d, kCachedSourcesUpTo);
}

void StoreImpl::KeepVersion(uint32_t did, const DocumentVersion& v, uint64_t generation) const {
  if (!v.text.empty()) return;  // kept as decoded, before any text is read
  KeepVersion(did, std::make_shared<const DocumentVersion>(v), generation);
}

void StoreImpl::KeepVersion(uint32_t did, const std::shared_ptr<const DocumentVersion>& v, uint64_t generation) const {
  if (!v->text.empty()) return;
  KeepIfCurrent(sources_mu_, sources_generation_, generation, cached_versions_, VersionCacheKey(did, v->version), v,
                kCachedSourcesUpTo);
}

void StoreImpl::ForgetEntity(const std::string& id) const {
  ForgetKept(sources_mu_, sources_generation_, cached_entities_, id);
}

void StoreImpl::ForgetDocument(const std::string& id) const {
  ForgetKept(sources_mu_, sources_generation_, cached_documents_, id);
}

void StoreImpl::ForgetSources() const {
  std::unique_lock lock(sources_mu_);
  sources_generation_.fetch_add(1);
  cached_entities_.clear();
  cached_documents_.clear();
  cached_versions_.clear();
}

Result<std::optional<Document>> StoreImpl::ReadDocument(const std::string& id) const {
  if (std::optional<Document> cached = CachedDocument(id)) return cached;
  const uint64_t generation = SourcesGeneration();
  std::string value;
  rocksdb::Status st = db_->Get(ReadOpts(), handles_[codec::kDocumentsCf], id, &value);
  if (st.IsNotFound()) return std::optional<Document>();
  CHIPKG_RETURN_IF_ERROR(FromRocks(st, "reading document " + id));
  CHIPKG_ASSIGN_OR_RETURN(Document d, DecodeDocumentRecord(id, value));
  KeepDocument(d, generation);
  return std::optional<Document>(std::move(d));
}

Result<Document> StoreImpl::GetDocument(const std::string& document_id) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<Document> d, ReadDocument(document_id));
  if (!d) return Status::NotFound("no document " + document_id + " in " + path_);
  return std::move(*d);
}

Result<std::vector<std::optional<Document>>> StoreImpl::GetDocuments(const std::vector<std::string>& ids) const {
  std::vector<std::optional<Document>> out(ids.size());
  const auto [missing, asked] = TakeKept(ids, out, [&](const std::string& id) { return CachedDocument(id); });
  const uint64_t generation = SourcesGeneration();
  auto describe = [&](size_t k) { return "document " + missing[k]; };
  CHIPKG_RETURN_IF_ERROR(MultiGetSorted(codec::kDocumentsCf, missing, nullptr, describe, [&](size_t k, std::optional<std::string_view> value) {
    if (!value) return Status::OK();
    CHIPKG_ASSIGN_OR_RETURN(out[asked[k]], DecodeDocumentRecord(missing[k], *value));
    KeepDocument(*out[asked[k]], generation);
    return Status::OK();
  }));
  return out;
}

Result<std::vector<Document>> StoreImpl::ListDocuments() const {
  std::vector<Document> out;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kDocumentsCf, "", "", 0, [&](std::string_view key, std::string_view value) {
    Document d;
    if (!codec::DecodeDocument(key, value, &d)) {
      status = Status::Corruption("record of document " + std::string(key) + " cannot be decoded");
      return false;
    }
    out.push_back(std::move(d));
    return true;
  }));
  CHIPKG_RETURN_IF_ERROR(status);
  return out;
}

Result<std::optional<uint32_t>> StoreImpl::LatestVersionNumber(uint32_t document) const {
  const std::string prefix = codec::VersionMetaKey(document, 0).substr(0, 5);
  const std::string limit = codec::PrefixSuccessor(prefix);
  rocksdb::ReadOptions ro = ReadOpts();
  rocksdb::Slice lower(prefix), upper(limit);
  ro.iterate_lower_bound = &lower;
  ro.iterate_upper_bound = &upper;
  ro.total_order_seek = true;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handles_[codec::kVersionsCf]));
  it->SeekToLast();
  if (it->Valid()) {
    if (it->key().size() != 9) return Status::Corruption("malformed version key in " + path_);
    return std::optional<uint32_t>(codec::GetU32(it->key().data() + 5));
  }
  CHIPKG_RETURN_IF_ERROR(FromRocks(it->status(), "finding the latest version"));
  return std::optional<uint32_t>();
}

Result<DocumentVersion> StoreImpl::ReadVersion(uint32_t did, uint32_t version, bool with_text) const {
  if (!with_text) {
    if (std::optional<DocumentVersion> cached = CachedVersion(did, version)) return std::move(*cached);
  }
  const uint64_t generation = SourcesGeneration();
  std::string value;
  rocksdb::Status st =
      db_->Get(ReadOpts(), handles_[codec::kVersionsCf], codec::VersionMetaKey(did, version), &value);
  if (st.IsNotFound()) return Status::NotFound("no version " + std::to_string(version));
  CHIPKG_RETURN_IF_ERROR(FromRocks(st, "reading version " + std::to_string(version)));
  uint64_t text_size = 0;
  CHIPKG_ASSIGN_OR_RETURN(DocumentVersion v, DecodeVersionRecord(version, value, &text_size));
  KeepVersion(did, v, generation);
  if (with_text) {
    st = db_->Get(ReadOpts(), handles_[codec::kVersionsCf], codec::VersionTextKey(did, version), &v.text);
    if (st.IsNotFound()) {
      return Status::Corruption("text of " + v.document_id + " version " + std::to_string(version) + " is missing");
    }
    CHIPKG_RETURN_IF_ERROR(FromRocks(st, "reading text of version " + std::to_string(version)));
    if (v.text.size() != text_size) {
      return Status::Corruption("text of " + v.document_id + " version " + std::to_string(version) +
                                " has the wrong size");
    }
  }
  return v;
}

Result<DocumentVersion> StoreImpl::GetDocumentVersion(const std::string& document_id, uint32_t version,
                                                      bool with_text) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, dict_.Find(document_id));
  if (!did || document_id.empty()) return Status::NotFound("no document " + document_id + " in " + path_);
  auto v = ReadVersion(*did, version, with_text);
  if (!v.ok()) return v.status().WithContext("document " + document_id);
  return v;
}

Result<std::vector<std::optional<DocumentVersion>>> StoreImpl::GetDocumentVersions(
    const std::vector<std::pair<std::string, uint32_t>>& versions) const {
  std::vector<std::optional<DocumentVersion>> out(versions.size());
  std::vector<std::string> keys;
  std::vector<size_t> asked;  // position in `versions` of each key
  std::vector<uint32_t> dids;  // of each key
  keys.reserve(versions.size());
  for (size_t i = 0; i < versions.size(); ++i) {
    const auto& [document_id, version] = versions[i];
    CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, dict_.Find(document_id));
    if (!did || document_id.empty()) continue;
    out[i] = CachedVersion(*did, version);
    if (out[i]) continue;
    keys.push_back(codec::VersionMetaKey(*did, version));
    asked.push_back(i);
    dids.push_back(*did);
  }
  const uint64_t generation = SourcesGeneration();
  auto describe = [&](size_t k) {
    return "version " + std::to_string(versions[asked[k]].second) + " of " + versions[asked[k]].first;
  };
  CHIPKG_RETURN_IF_ERROR(MultiGetSorted(codec::kVersionsCf, keys, nullptr, describe, [&](size_t k, std::optional<std::string_view> value) {
    if (!value) return Status::OK();
    uint64_t text_size = 0;
    Result<DocumentVersion> v = DecodeVersionRecord(versions[asked[k]].second, *value, &text_size);
    if (!v.ok()) return v.status().WithContext("document " + versions[asked[k]].first);
    KeepVersion(dids[k], *v, generation);
    out[asked[k]] = std::move(*v);
    return Status::OK();
  }));
  return out;
}

Result<std::vector<CitedSource>> StoreImpl::GetCitedSources(
    const std::vector<std::pair<std::string, uint32_t>>& versions) const {
  std::vector<CitedSource> out(versions.size());
  std::vector<std::string_view> names(versions.size());
  for (size_t i = 0; i < versions.size(); ++i) names[i] = versions[i].first;
  CHIPKG_ASSIGN_OR_RETURN(std::vector<std::optional<uint32_t>> dids, dict_.FindAll(names));
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i].first.empty()) dids[i].reset();
  }
  // What the cache keeps, under one lock for the lot.
  std::vector<size_t> documents_to_read, versions_to_read;  // positions in `versions`
  {
    std::shared_lock lock(sources_mu_);
    for (size_t i = 0; i < versions.size(); ++i) {
      if (!dids[i]) continue;  // no such document: nothing to read
      auto d = cached_documents_.find(versions[i].first);
      if (d != cached_documents_.end()) {
        out[i].document = d->second;
      } else {
        documents_to_read.push_back(i);
      }
      auto v = cached_versions_.find(VersionCacheKey(*dids[i], versions[i].second));
      if (v != cached_versions_.end()) {
        out[i].version = v->second;
        out[i].fetched_at = v->second->fetched_at;
      } else {
        versions_to_read.push_back(i);
      }
    }
  }
  source_cache_hits_.fetch_add(2 * versions.size() - documents_to_read.size() - versions_to_read.size(),
                               std::memory_order_relaxed);
  if (!documents_to_read.empty()) {
    // Each document once, however many of its versions are cited.
    std::vector<std::string> ids;
    for (size_t i : documents_to_read) ids.push_back(versions[i].first);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<std::shared_ptr<const Document>> read(ids.size());
    const uint64_t generation = SourcesGeneration();
    auto describe = [&](size_t k) { return "document " + ids[k]; };
    CHIPKG_RETURN_IF_ERROR(MultiGetSorted(codec::kDocumentsCf, ids, nullptr, describe,
                                          [&](size_t k, std::optional<std::string_view> value) {
      if (!value) return Status::OK();
      CHIPKG_ASSIGN_OR_RETURN(Document d, DecodeDocumentRecord(ids[k], *value));
      read[k] = std::make_shared<const Document>(std::move(d));
      KeepDocument(read[k], generation);
      return Status::OK();
    }));
    for (size_t i : documents_to_read) {
      const size_t k = static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), versions[i].first) - ids.begin());
      out[i].document = read[k];
    }
  }
  if (!versions_to_read.empty()) {
    // Each version decoded once however often it is cited, and shared by the
    // cache and the answer (through GetDocumentVersions each got a copy).
    std::vector<std::string> keys;
    keys.reserve(versions_to_read.size());
    for (size_t i : versions_to_read) keys.push_back(codec::VersionMetaKey(*dids[i], versions[i].second));
    std::vector<std::string> unique = keys;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    std::vector<std::shared_ptr<const DocumentVersion>> read(unique.size());
    auto of = [&](const std::string& key) {
      return static_cast<size_t>(std::lower_bound(unique.begin(), unique.end(), key) - unique.begin());
    };
    // The first position asking for each key names it in errors.
    std::vector<size_t> first_asking(unique.size(), versions.size());
    for (size_t k = keys.size(); k-- > 0;) first_asking[of(keys[k])] = versions_to_read[k];
    const uint64_t generation = SourcesGeneration();
    auto describe = [&](size_t u) {
      const auto& [document_id, version] = versions[first_asking[u]];
      return "version " + std::to_string(version) + " of " + document_id;
    };
    CHIPKG_RETURN_IF_ERROR(MultiGetSorted(codec::kVersionsCf, unique, nullptr, describe,
                                          [&](size_t u, std::optional<std::string_view> value) {
      if (!value) return Status::OK();
      const size_t i = first_asking[u];
      uint64_t text_size = 0;
      Result<DocumentVersion> v = DecodeVersionRecord(versions[i].second, *value, &text_size);
      if (!v.ok()) return v.status().WithContext("document " + versions[i].first);
      read[u] = std::make_shared<const DocumentVersion>(std::move(*v));
      KeepVersion(*dids[i], read[u], generation);
      return Status::OK();
    }));
    for (size_t k = 0; k < keys.size(); ++k) {
      const std::shared_ptr<const DocumentVersion>& v = read[of(keys[k])];
      if (v == nullptr) continue;
      out[versions_to_read[k]].fetched_at = v->fetched_at;
      out[versions_to_read[k]].version = v;
    }
  }
  return out;
}

Result<DocumentVersion> StoreImpl::LatestDocumentVersion(const std::string& document_id) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, dict_.Find(document_id));
  if (!did || document_id.empty()) return Status::NotFound("no document " + document_id + " in " + path_);
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> latest, LatestVersionNumber(*did));
  if (!latest) return Status::NotFound("document " + document_id + " has no version in " + path_);
  return ReadVersion(*did, *latest, /*with_text=*/true);
}

Result<std::vector<DocumentVersion>> StoreImpl::ListDocumentVersions(const std::string& document_id,
                                                                     bool with_text) const {
  CHIPKG_ASSIGN_OR_RETURN(std::optional<uint32_t> did, dict_.Find(document_id));
  std::vector<DocumentVersion> out;
  if (!did || document_id.empty()) return out;
  const std::string prefix = codec::VersionMetaKey(*did, 0).substr(0, 5);
  std::vector<uint32_t> numbers;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kVersionsCf, prefix, codec::PrefixSuccessor(prefix), 5,
                              [&](std::string_view key, std::string_view) {
                                if (key.size() == 9) numbers.push_back(codec::GetU32(key.data() + 5));
                                return true;
                              }));
  for (uint32_t n : numbers) {
    CHIPKG_ASSIGN_OR_RETURN(DocumentVersion v, ReadVersion(*did, n, with_text));
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<DocumentVersion>> StoreImpl::ListAllDocumentVersions() const {
  std::vector<DocumentVersion> out;
  Status status;
  const std::string prefix = codec::VersionMetaKey(0, 0).substr(0, 1);
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kVersionsCf, prefix, codec::PrefixSuccessor(prefix), 1,
                              [&](std::string_view key, std::string_view value) {
                                if (key.size() != 9) return true;
                                uint64_t text_size = 0;
                                Result<DocumentVersion> v =
                                    DecodeVersionRecord(codec::GetU32(key.data() + 5), value, &text_size);
                                if (!v.ok()) {
                                  status = v.status();
                                  return false;
                                }
                                out.push_back(std::move(*v));
                                return true;
                              }));
  CHIPKG_RETURN_IF_ERROR(status);
  return out;
}

// Read from the log's descriptions of RetireDocument and ReinstateDocument,
// "document D " and the fixed text of each (kRetiredInLog, kReinstatedInLog).
// Each is matched whole, both ends, so that an id holding a phrase of either
// (a path may) is read as the id it is.
Result<std::map<std::string, TxId>> StoreImpl::RetiredAsOf(std::optional<TxId> as_of_tx) const {
  static constexpr std::string_view kBefore = "document ";
  // The id between "document " and " " + the fixed text; nullopt for another description.
  auto id_in = [](const std::string& d, std::string_view what) -> std::optional<std::string> {
    if (d.size() <= kBefore.size() + 1 + what.size() || !d.starts_with(kBefore) || !d.ends_with(what)) {
      return std::nullopt;
    }
    const size_t space = d.size() - what.size() - 1;
    if (d[space] != ' ') return std::nullopt;
    return d.substr(kBefore.size(), space - kBefore.size());
  };
  std::map<std::string, TxId> retired;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kTxCf, "", "", 0, [&](std::string_view key, std::string_view raw) {
    Transaction t;
    if (!codec::DecodeTx(key, raw, &t)) {
      status = Status::Corruption("an undecodable transaction record in " + path_);
      return false;
    }
    if (as_of_tx && t.id > *as_of_tx) return false;
    if (std::optional<std::string> id = id_in(t.description, kRetiredInLog)) {
      retired[*id] = t.id;
    } else if (std::optional<std::string> back = id_in(t.description, kReinstatedInLog)) {
      retired.erase(*back);  // undone since (maybe with no claim)
    }
    return true;
  }));
  CHIPKG_RETURN_IF_ERROR(status);
  return retired;
}

Result<std::vector<Transaction>> StoreImpl::ListTransactions() const {
  std::vector<Transaction> out;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kTxCf, "", "", 0, [&](std::string_view key, std::string_view value) {
    Transaction t;
    if (!codec::DecodeTx(key, value, &t)) {
      status = Status::Corruption("a transaction record cannot be decoded");
      return false;
    }
    out.push_back(std::move(t));
    return true;
  }));
  CHIPKG_RETURN_IF_ERROR(status);
  return out;
}

Result<std::vector<PredicateUse>> StoreImpl::PredicateUses() const {
  struct Count {
    uint64_t facts = 0;
    uint32_t first_subject = 0;
  };
  std::map<std::tuple<uint32_t, ValueKind, uint32_t>, Count> counts;
  Status status;
  CHIPKG_RETURN_IF_ERROR(Scan(codec::kFactsCf, "", "", 0, [&](std::string_view key, std::string_view value) {
    CoreRecord core;
    if (!codec::DecodeCore(value, &core)) {
      status = Status::Corruption("record of fact " + std::to_string(key.size() == 8 ? codec::GetU64(key.data()) : 0) +
                                  " cannot be decoded");
      return false;
    }
    if (core.retracted_tx != 0) return true;
    Count& c = counts[{core.predicate, core.kind, core.kind == ValueKind::kQuantity ? core.dimension : 0}];
    if (c.facts++ == 0) c.first_subject = core.subject;
    return true;
  }, nullptr, SIZE_MAX));
  CHIPKG_RETURN_IF_ERROR(status);
  std::vector<PredicateUse> out;
  out.reserve(counts.size());
  for (const auto& [key, count] : counts) {
    const auto& [predicate, kind, dimension] = key;
    PredicateUse use;
    CHIPKG_ASSIGN_OR_RETURN(use.predicate, dict_.Name(predicate));
    use.kind = kind;
    if (dimension != 0) {
      CHIPKG_ASSIGN_OR_RETURN(use.dimension, dict_.Name(dimension));
    }
    use.facts = count.facts;
    CHIPKG_ASSIGN_OR_RETURN(use.first_subject, dict_.Name(count.first_subject));
    out.push_back(std::move(use));
  }
  std::sort(out.begin(), out.end(), [](const PredicateUse& a, const PredicateUse& b) {
    return std::tie(a.predicate, a.kind, a.dimension) < std::tie(b.predicate, b.kind, b.dimension);
  });
  return out;
}

Result<StoreStats> StoreImpl::Statistics() const {
  Counters c = counters();
  StoreStats s;
  s.facts = c.facts;
  s.live_facts = c.live;
  s.retracted_facts = c.retracted;
  s.not_published_facts = c.not_published;
  s.documents = c.documents;
  s.document_versions = c.versions;
  s.entities = c.entities;
  s.transactions = c.transactions;
  // Every file of the store directory: SST, WAL, MANIFEST, options.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      auto size = it->file_size(size_ec);
      if (!size_ec) s.disk_bytes += size;
    }
  }
  if (ec) return Status::IOError("measuring " + path_ + ": " + ec.message());
  return s;
}

}  // namespace internal
}  // namespace chipkg
