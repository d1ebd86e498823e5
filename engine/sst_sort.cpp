#include "engine/sst_sort.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>

#include <sys/mman.h>

#include "engine/codec.h"
#include "engine/store_impl.h"

namespace chipkg::internal {

namespace {

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::string_view RecordKey(const char* rec) { return {rec + 8, LoadU32(rec)}; }
std::string_view RecordValue(const char* rec) { return {rec + 8 + LoadU32(rec), LoadU32(rec + 4)}; }

// The first 16 bytes of a key as two big-endian numbers, zero padded.
void KeyWords(std::string_view key, uint64_t* k0, uint64_t* k1) {
  unsigned char buf[16] = {};
  std::memcpy(buf, key.data(), std::min<size_t>(16, key.size()));
  uint64_t a = 0, b = 0;
  for (int i = 0; i < 8; ++i) {
    a = (a << 8) | buf[i];
    b = (b << 8) | buf[8 + i];
  }
  *k0 = a;
  *k1 = b;
}

std::string ErrnoText() { return std::strerror(errno); }

constexpr size_t kHugePage = 2 << 20;

// A 2 MiB-aligned anonymous mapping with transparent huge pages requested:
// sort buffers are written once, front to back, and faulting them in 4 KiB
// at a time costs more than the copying. nullptr if the kernel refuses.
char* MapLarge(size_t size) {
  void* p = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto start = reinterpret_cast<uintptr_t>(p);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) ::munmap(p, aligned - start);
  uintptr_t end = start + size + kHugePage;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<char*>(aligned);
}

constexpr size_t kIoBuffer = 1 << 20;

// Sequential reader of a spilled run.
class RunReader {
 public:
  explicit RunReader(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ != nullptr) {
      buffer_.reset(new char[kIoBuffer]);
      std::setvbuf(file_, buffer_.get(), _IOFBF, kIoBuffer);
    }
  }
  ~RunReader() {
    if (file_ != nullptr) std::fclose(file_);
  }
  Status Open() {
    if (file_ == nullptr) return Status::IOError("cannot open sort run " + path_ + ": " + ErrnoText());
    return Next();
  }
  // Advances; valid() is false at the end.
  Status Next() {
    char header[8];
    size_t got = std::fread(header, 1, 8, file_);
    if (got == 0 && std::feof(file_)) {
      valid_ = false;
      return Status::OK();
    }
    if (got != 8) return Status::IOError("sort run " + path_ + " is truncated");
    uint32_t klen = LoadU32(header), vlen = LoadU32(header + 4);
    key_.resize(klen);
    value_.resize(vlen);
    if (std::fread(key_.data(), 1, klen, file_) != klen || std::fread(value_.data(), 1, vlen, file_) != vlen) {
      return Status::IOError("sort run " + path_ + " is truncated");
    }
    valid_ = true;
    return Status::OK();
  }
  bool valid() const { return valid_; }
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::string key_, value_;
  bool valid_ = false;
};

}  // namespace

// ---- SstSink ---------------------------------------------------------------

namespace {

// Bulk SST files are not synced when written: IngestExternalFiles links each
// file into the store and syncs it (and the directory) before the MANIFEST
// names it, and files never ingested are deleted. Skipping the writer's own
// fsync saves one disk flush per file.
class UnsyncedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  using FSWritableFileOwnerWrapper::FSWritableFileOwnerWrapper;
  rocksdb::IOStatus Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
};

std::atomic<bool> g_refuse_direct_writes{false};

class UnsyncedFileSystem : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "ChipkgBulkUnsynced"; }
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    if (options.use_direct_writes && g_refuse_direct_writes.load(std::memory_order_relaxed)) {
      return rocksdb::IOStatus::InvalidArgument("direct writes refused (test): " + f);
    }
    rocksdb::IOStatus s = target()->NewWritableFile(f, options, result, dbg);
    if (s.ok()) *result = std::make_unique<UnsyncedFile>(std::move(*result));
    return s;
  }
};

rocksdb::Env* BulkEnv() {
  static const std::unique_ptr<rocksdb::Env> env =
      rocksdb::NewCompositeEnv(std::make_shared<UnsyncedFileSystem>(rocksdb::FileSystem::Default()));
  return env.get();
}

}  // namespace

void RefuseDirectWritesForTesting(bool refuse) { g_refuse_direct_writes.store(refuse, std::memory_order_relaxed); }

SstSink::SstSink(rocksdb::Options options, std::string dir, std::string name, uint64_t target_file_bytes)
    : options_(std::move(options)), dir_(std::move(dir)), name_(std::move(name)), target_(target_file_bytes) {
  options_.env = BulkEnv();
}

SstSink::~SstSink() {
  if (open_) writer_->Finish().PermitUncheckedError();
}

// Bulk files are written with direct I/O, past the page cache. A load writes
// hundreds of MB that nothing reads back soon (the ingestion reads a file's
// footer and index blocks only), and every page of the page cache they would
// fill is memory the kernel must find first: on the virtual machines chipkg
// is measured on, memory free for a few seconds costs ~10 ms a MB to take
// again, and a 4.1M-fact load spent 4-8% of its CPU copying into fresh page
// cache (tools/bench/HISTORY.md, 2026-12-01 15:47). A file
// system that refuses to open a file for O_DIRECT (some FUSE and network
// ones; tmpfs before Linux 6.6) gets ordinary buffered writes.
std::unique_ptr<rocksdb::SstFileWriter> SstSink::NewWriter(bool direct) const {
  rocksdb::EnvOptions env_options;
  env_options.use_direct_writes = direct;
  return std::make_unique<rocksdb::SstFileWriter>(env_options, options_, nullptr, /*invalidate_page_cache=*/false);
}

Status SstSink::Prepare() {
  if (open_ && writer_->FileSize() < target_) return Status::OK();
  CHIPKG_RETURN_IF_ERROR(Finish());
  std::string path = dir_ + "/" + name_ + "-" + std::to_string(files_.size()) + ".sst";
  if (!writer_) writer_ = NewWriter(direct_);
  rocksdb::Status opened = writer_->Open(path);
  if (!opened.ok() && direct_) {
    direct_ = false;
    writer_ = NewWriter(false);
    opened = writer_->Open(path);
  }
  CHIPKG_RETURN_IF_ERROR(FromRocks(opened, "creating SST file " + path));
  files_.push_back(std::move(path));
  open_ = true;
  return Status::OK();
}

Status SstSink::Put(std::string_view key, std::string_view value) {
  CHIPKG_RETURN_IF_ERROR(Prepare());
  ++entries_;
  return FromRocks(writer_->Put(rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size())),
                   "writing " + name_ + " SST");
}

Status SstSink::Delete(std::string_view key) {
  CHIPKG_RETURN_IF_ERROR(Prepare());
  ++entries_;
  return FromRocks(writer_->Delete(rocksdb::Slice(key.data(), key.size())), "writing " + name_ + " SST");
}

Status SstSink::Finish() {
  if (!open_) return Status::OK();
  open_ = false;
  return FromRocks(writer_->Finish(), "finishing " + name_ + " SST " + files_.back());
}

// ---- ChunkArena --------------------------------------------------------------

ChunkArena::~ChunkArena() { Release(); }

void ChunkArena::Release() {
  for (const Chunk& c : chunks_) {
    if (c.mapped) {
      ::munmap(c.data, c.size);
    } else {
      delete[] c.data;
    }
  }
  chunks_.clear();
  current_ = used_ = held_ = before_current_ = 0;
}

void ChunkArena::Reset() {
  current_ = 0;
  used_ = 0;
  before_current_ = 0;
}

char* ChunkArena::Allocate(size_t n) {
  while (current_ < chunks_.size() && used_ + n > chunks_[current_].size) {
    chunks_[current_].filled = used_;
    before_current_ += chunks_[current_].size;
    ++current_;
    used_ = 0;
  }
  if (current_ == chunks_.size()) {
    Chunk c;
    c.size = std::max(n, chunk_bytes_);
    if (c.size >= kHugePage) {
      c.size = (c.size + kHugePage - 1) & ~(kHugePage - 1);
      c.data = MapLarge(c.size);
      c.mapped = c.data != nullptr;
    }
    if (c.data == nullptr) c.data = new char[c.size];  // not zeroed: every byte is written before it is read
    chunks_.push_back(c);
    held_ += c.size;
    used_ = 0;
  }
  char* p = chunks_[current_].data + used_;
  used_ += n;
  return p;
}

namespace {

// K-way merge of sorted runs into `sink`.
Status MergeRuns(const std::vector<std::string>& runs, OrderedSink* sink) {
  std::vector<std::unique_ptr<RunReader>> readers;
  std::vector<size_t> heap;
  for (const auto& run : runs) {
    readers.push_back(std::make_unique<RunReader>(run));
    CHIPKG_RETURN_IF_ERROR(readers.back()->Open());
    if (readers.back()->valid()) heap.push_back(readers.size() - 1);
  }
  auto greater = [&](size_t a, size_t b) { return readers[a]->key() > readers[b]->key(); };
  std::make_heap(heap.begin(), heap.end(), greater);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    RunReader& r = *readers[heap.back()];
    CHIPKG_RETURN_IF_ERROR(sink->Put(r.key(), r.value()));
    CHIPKG_RETURN_IF_ERROR(r.Next());
    if (r.valid()) {
      std::push_heap(heap.begin(), heap.end(), greater);
    } else {
      heap.pop_back();
    }
  }
  return Status::OK();
}

}  // namespace

// ---- RunSorter ---------------------------------------------------------------

RunSorter::RunSorter(std::string dir, std::string name, size_t budget_bytes)
    : dir_(std::move(dir)),
      name_(std::move(name)),
      budget_(std::max<size_t>(budget_bytes, 64 << 10)),
      arena_(std::min<size_t>(8 << 20, budget_ / 8)) {}

RunSorter::~RunSorter() {
  std::error_code ec;
  for (const auto& run : runs_) std::filesystem::remove(run, ec);
}

Status RunSorter::Add(std::string_view key, std::string_view value) {
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    return Status::InvalidArgument("bulk entry of " + name_ + " is larger than 4 GiB");
  }
  if (arena_.used() + refs_.capacity() * sizeof(Ref) >= budget_ && !refs_.empty()) CHIPKG_RETURN_IF_ERROR(Spill());
  const size_t n = 8 + key.size() + value.size();
  char* rec = arena_.Allocate(n);
  uint32_t klen = static_cast<uint32_t>(key.size()), vlen = static_cast<uint32_t>(value.size());
  std::memcpy(rec, &klen, 4);
  std::memcpy(rec + 4, &vlen, 4);
  std::memcpy(rec + 8, key.data(), key.size());
  std::memcpy(rec + 8 + key.size(), value.data(), value.size());
  Ref ref;
  KeyWords(key, &ref.k0, &ref.k1);
  ref.rec = rec;
  refs_.push_back(ref);
  ++entries_;
  return Status::OK();
}

void RunSorter::SortRefs() {
  auto less = [](const Ref& a, const Ref& b) {
    if (a.k0 != b.k0) return a.k0 < b.k0;
    if (a.k1 != b.k1) return a.k1 < b.k1;
    return RecordKey(a.rec) < RecordKey(b.rec);
  };
  // Loads are often in key order already (facts arrive subject by subject).
  if (!std::is_sorted(refs_.begin(), refs_.end(), less)) std::sort(refs_.begin(), refs_.end(), less);
}

Status RunSorter::Spill() {
  SortRefs();
  std::string path = dir_ + "/" + name_ + "-run-" + std::to_string(runs_.size());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IOError("cannot create sort run " + path + ": " + ErrnoText());
  runs_.push_back(path);
  std::unique_ptr<char[]> buffer(new char[kIoBuffer]);
  std::setvbuf(f, buffer.get(), _IOFBF, kIoBuffer);
  bool ok = true;
  for (const Ref& r : refs_) {
    size_t n = 8 + LoadU32(r.rec) + LoadU32(r.rec + 4);
    if (std::fwrite(r.rec, 1, n, f) != n) {
      ok = false;
      break;
    }
  }
  if (std::fclose(f) != 0) ok = false;
  if (!ok) return Status::IOError("cannot write sort run " + path + ": " + ErrnoText());
  // The next run reuses the arena's chunks, and the refs' capacity unless that
  // alone would leave little of the budget.
  refs_.clear();
  if (refs_.capacity() * sizeof(Ref) >= budget_ / 2) refs_.shrink_to_fit();
  arena_.Reset();
  return Status::OK();
}

Status RunSorter::Drain(SstSink* sink) {
  if (runs_.empty()) {
    SortRefs();
    for (const Ref& r : refs_) CHIPKG_RETURN_IF_ERROR(sink->Put(RecordKey(r.rec), RecordValue(r.rec)));
    refs_.clear();
    refs_.shrink_to_fit();
    arena_.Release();
    return Status::OK();
  }
  if (!refs_.empty()) CHIPKG_RETURN_IF_ERROR(Spill());
  refs_.shrink_to_fit();
  arena_.Release();
  return MergeRuns(runs_, sink);
}

// ---- FactIndexSorter ------------------------------------------------------------

namespace {

const char* const kIndexName[] = {"spo", "pos", "doc", "ref"};
constexpr size_t kIndexKeySize[] = {16, 0, 16, 12};  // pos keys vary

void StoreBE32(char* p, uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}
void StoreBE64(char* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}

uint64_t LoadU64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// A fact's record in the arena: u64 fid, u32 CORE size, u8 HEADER size, CORE.
constexpr size_t kFactRecordHead = 13;
uint64_t FidOf(const char* rec) { return LoadU64(rec); }
std::string_view CoreOf(const char* rec) { return {rec + kFactRecordHead, LoadU32(rec + 8)}; }
std::string_view HeaderOf(const char* rec) {
  return {rec + kFactRecordHead, static_cast<unsigned char>(rec[12])};
}
// A pos key record: u32 size, the CORE record's address, key.
std::string_view PosKeyOf(const char* rec) { return {rec + 4 + sizeof(const char*), LoadU32(rec)}; }
const char* PosCoreOf(const char* rec) {
  const char* core;
  std::memcpy(&core, rec + 4, sizeof core);
  return core;
}

}  // namespace

// The key of a pos entry: from its words when they hold it whole (written
// into `words`), else from its key record.
// Predicate + VALUEKEY of a pos entry: from its words when they hold it whole
// (written into `words`), else from its key record.
std::string_view FactIndexSorter::PosKey(const PosEntry& e, char (&words)[kPosWordBytes]) {
  if (e.size > kPosWordBytes) return PosKeyOf(e.rec);
  StoreBE64(words, e.k0);
  StoreBE64(words + 8, e.k1);
  return {words, e.size};
}

const char* FactIndexSorter::PosCore(const PosEntry& e) { return e.size > kPosWordBytes ? PosCoreOf(e.rec) : e.rec; }

FactIndexSorter::FactIndexSorter(std::string dir, size_t budget_bytes, size_t block_bytes)
    : dir_(std::move(dir)),
      budget_(std::max<size_t>(budget_bytes, 64 << 10)),
      cores_(block_bytes),
      keys_(block_bytes),
      pos_entries_(block_bytes) {
  for (int i = 0; i < kIndexCount; ++i) entries_by_index_.emplace_back(block_bytes);
}

FactIndexSorter::~FactIndexSorter() {
  std::error_code ec;
  for (const auto& runs : runs_) {
    for (const auto& run : runs) std::filesystem::remove(run, ec);
  }
}

size_t FactIndexSorter::runs() const {
  size_t n = 0;
  for (const auto& r : runs_) n += r.size();
  return n;
}

// What draining would hold at most: the records, and the entries of the two
// largest indexes (two are written at a time).
size_t FactIndexSorter::Held() const {
  return cores_.used() + held_facts_ * (sizeof(PosEntry) + sizeof(Entry));
}

Status FactIndexSorter::Add(uint64_t fid, std::string_view core, size_t header_size) {
  if (core.size() > UINT32_MAX) return Status::InvalidArgument("bulk fact record is larger than 4 GiB");
  if (header_size > 255 || header_size > core.size()) {
    return Status::InvalidArgument("bulk fact record: header of " + std::to_string(header_size) + " bytes");
  }
  if (added_any_ && fid <= last_fid_) {
    return Status::InvalidArgument("bulk fact " + std::to_string(fid) + " after fact " + std::to_string(last_fid_) +
                                   ": fact ids must ascend");
  }
  if (Held() >= budget_ && held_facts_ > 0) CHIPKG_RETURN_IF_ERROR(Spill());
  char* rec = cores_.Allocate(kFactRecordHead + core.size());
  const uint32_t core_size = static_cast<uint32_t>(core.size());
  std::memcpy(rec, &fid, 8);
  std::memcpy(rec + 8, &core_size, 4);
  rec[12] = static_cast<char>(header_size);
  std::memcpy(rec + kFactRecordHead, core.data(), core.size());
  last_fid_ = fid;
  added_any_ = true;
  ++held_facts_;
  return Status::OK();
}

Status FactIndexSorter::Build(Index index) {
  codec::CoreRecord core;
  std::string value_key;
  uint64_t made = 0;
  bool undecodable = false;
  cores_.ForEachFilled([&](const char* data, size_t filled) {
    for (size_t at = 0; at < filled && !undecodable;) {
      const char* rec = data + at;
      at += kFactRecordHead + LoadU32(rec + 8);
      if (!codec::DecodeCore(CoreOf(rec), &core)) {
        undecodable = true;
        return;
      }
      switch (index) {
        case kSpo:
          entries_by_index_[kSpo].push_back({(uint64_t{core.subject} << 32) | core.predicate, rec});
          break;
        case kDoc:
          entries_by_index_[kDoc].push_back({(uint64_t{core.document} << 32) | core.document_version, rec});
          break;
        case kRef:
          if (core.kind != ValueKind::kEntity) continue;
          entries_by_index_[kRef].push_back({uint64_t{core.entity} << 32, rec});
          break;
        default: {
          value_key.clear();
          codec::AppendValueKey(core, &value_key);
          // Predicate and value key of up to 16 bytes (every quantity's,
          // date's, entity's and short text's) live in the entry's words
          // alone, which point at the record; only longer ones are written
          // out whole, with the record's address beside them.
          const uint32_t key_size = static_cast<uint32_t>(4 + value_key.size());
          unsigned char words[kPosWordBytes] = {};
          char* key = reinterpret_cast<char*>(words);
          PosEntry e;
          e.rec = rec;
          e.size = key_size;
          if (key_size > kPosWordBytes) {
            char* krec = keys_.Allocate(4 + sizeof(const char*) + key_size);
            std::memcpy(krec, &key_size, 4);
            std::memcpy(krec + 4, &rec, sizeof rec);
            key = krec + 4 + sizeof rec;
            e.rec = krec;
          }
          StoreBE32(key, core.predicate);
          std::memcpy(key + 4, value_key.data(), value_key.size());
          if (key_size > kPosWordBytes) std::memcpy(words, key, kPosWordBytes);
          e.k0 = e.k1 = 0;
          for (int i = 0; i < 8; ++i) {
            e.k0 = (e.k0 << 8) | words[i];
            e.k1 = (e.k1 << 8) | words[8 + i];
          }
          pos_entries_.push_back(e);
        }
      }
      ++made;
    }
  });
  if (undecodable) return Status::Corruption("bulk load: a fact record of its own is undecodable");
  entries_[index] += made;
  return Status::OK();
}

namespace {

// Stably: entries are made in fact-id order, which equal keys keep.
template <typename T, typename Less>
void SortBlocks(BlockArray<T>& entries, const Less& less) {
  for (size_t b = 0; b < entries.blocks(); ++b) {
    std::span<T> block = entries.block(b);
    // Loads are often in key order already (facts arrive subject by subject).
    if (!std::is_sorted(block.begin(), block.end(), less)) std::stable_sort(block.begin(), block.end(), less);
  }
}

// fn(entry) for every entry of blocks sorted by SortBlocks, in `less` order,
// equal entries in block order (so in fact-id order), through a heap of the
// blocks' fronts. `ahead(entry)` is called a few entries before fn(entry):
// the values are read from all over the arena, and fetching them early
// hides the misses.
template <typename T, typename Less, typename Ahead, typename Fn>
Status ForEachInOrder(const BlockArray<T>& entries, const Less& less, const Ahead& ahead, const Fn& fn) {
  constexpr size_t kBatch = 16;
  const T* batch[kBatch];
  size_t filled = 0;
  auto put = [&](const T& e) -> Status {
    ahead(e);
    batch[filled++] = &e;
    if (filled < kBatch) return Status::OK();
    filled = 0;
    for (const T* b : batch) CHIPKG_RETURN_IF_ERROR(fn(*b));
    return Status::OK();
  };
  auto flush = [&]() -> Status {
    for (size_t i = 0; i < filled; ++i) CHIPKG_RETURN_IF_ERROR(fn(*batch[i]));
    filled = 0;
    return Status::OK();
  };

  struct Cursor {
    const T* at;
    const T* end;
    size_t block;
  };
  std::vector<Cursor> heap;
  heap.reserve(entries.blocks());
  bool in_sequence = true;  // no block's first key below the last of the one before: read them in turn
  for (size_t b = 0; b < entries.blocks(); ++b) {
    std::span<const T> block = entries.block(b);
    if (block.empty()) continue;
    if (!heap.empty() && less(block.front(), heap.back().end[-1])) in_sequence = false;
    heap.push_back({block.data(), block.data() + block.size(), b});
  }
  auto before = [&](const Cursor& a, const Cursor& b) {
    return less(*a.at, *b.at) || (!less(*b.at, *a.at) && a.block < b.block);
  };
  if (in_sequence) {
    for (const Cursor& c : heap) {
      for (const T* e = c.at; e != c.end; ++e) CHIPKG_RETURN_IF_ERROR(put(*e));
    }
    return flush();
  }
  // A min-heap on each block's next entry.
  auto sift_down = [&](size_t i) {
    const size_t n = heap.size();
    const Cursor x = heap[i];
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1], heap[child])) ++child;
      if (!before(heap[child], x)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = x;
  };
  for (size_t i = heap.size() / 2; i-- > 0;) sift_down(i);
  while (!heap.empty()) {
    Cursor& top = heap.front();
    CHIPKG_RETURN_IF_ERROR(put(*top.at));
    if (++top.at == top.end) {
      top = heap.back();
      heap.pop_back();
      if (heap.empty()) break;
    }
    sift_down(0);
  }
  return flush();
}

}  // namespace

bool FactIndexSorter::EntryLess(const Entry& a, const Entry& b) { return a.k0 < b.k0; }

bool FactIndexSorter::PosLess(const PosEntry& a, const PosEntry& b) {
  if (a.k0 != b.k0) return a.k0 < b.k0;
  if (a.k1 != b.k1) return a.k1 < b.k1;
  // The first 16 bytes agree (zero padded): a key held whole in them is
  // the other's prefix (or the same), or the other is longer.
  if (a.size <= kPosWordBytes && b.size <= kPosWordBytes) return a.size < b.size;
  char a_words[kPosWordBytes], b_words[kPosWordBytes];
  return PosKey(a, a_words) < PosKey(b, b_words);
}

void FactIndexSorter::Sort(Index index) {
  if (index == kPos) {
    SortBlocks(pos_entries_, PosLess);
  } else {
    SortBlocks(entries_by_index_[index], EntryLess);
  }
}

Status FactIndexSorter::Spill() {
  std::unique_ptr<char[]> buffer(new char[kIoBuffer]);
  for (int i = 0; i < kIndexCount; ++i) {
    const Index index = static_cast<Index>(i);
    CHIPKG_RETURN_IF_ERROR(Build(index));
    if (index == kPos ? pos_entries_.empty() : entries_by_index_[index].empty()) continue;
    Sort(index);
    std::string path = dir_ + "/" + kIndexName[index] + "-run-" + std::to_string(runs_[index].size());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return Status::IOError("cannot create sort run " + path + ": " + ErrnoText());
    runs_[index].push_back(path);
    std::setvbuf(f, buffer.get(), _IOFBF, kIoBuffer);
    bool ok = true;
    Status s = ForEach(index, [&](std::string_view key, std::string_view value) {
      const uint32_t sizes[2] = {static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())};
      if (std::fwrite(sizes, 1, 8, f) != 8 || std::fwrite(key.data(), 1, key.size(), f) != key.size() ||
          std::fwrite(value.data(), 1, value.size(), f) != value.size()) {
        ok = false;
      }
      return ok ? Status::OK() : Status::IOError("cannot write sort run " + path + ": " + ErrnoText());
    });
    if (std::fclose(f) != 0 && s.ok()) s = Status::IOError("cannot write sort run " + path + ": " + ErrnoText());
    CHIPKG_RETURN_IF_ERROR(s);
    // The next index's entries reuse these blocks (spo, doc and ref share a type).
    if (index == kPos) {
      pos_entries_.clear();
      keys_.Reset();
    } else {
      entries_by_index_[index].clear();
    }
  }
  // The next run reuses the arena's memory.
  cores_.Reset();
  held_facts_ = 0;
  return Status::OK();
}

Status FactIndexSorter::PrepareDrain() {
  if (!runs_[kSpo].empty() && held_facts_ > 0) return Spill();
  return Status::OK();
}

template <typename Fn>
Status FactIndexSorter::ForEach(Index index, const Fn& fn) {
  if (index == kPos) {
    char words[kPosWordBytes];
    std::string key;
    return ForEachInOrder(
        pos_entries_, PosLess, [](const PosEntry& e) { __builtin_prefetch(e.rec); },
        [&](const PosEntry& e) {
          const char* rec = PosCore(e);
          key.assign(PosKey(e, words));
          char fid[8];
          StoreBE64(fid, FidOf(rec));
          key.append(fid, 8);
          return fn(std::string_view(key), CoreOf(rec));
        });
  }
  char key[16];
  return ForEachInOrder(
      entries_by_index_[index], EntryLess, [](const Entry& e) { __builtin_prefetch(e.rec); },
      [&](const Entry& e) {
        if (index == kRef) {  // object:u32 fid
          StoreBE32(key, static_cast<uint32_t>(e.k0 >> 32));
          StoreBE64(key + 4, FidOf(e.rec));
        } else {
          StoreBE64(key, e.k0);
          StoreBE64(key + 8, FidOf(e.rec));
        }
        return fn(std::string_view(key, kIndexKeySize[index]), index == kRef ? HeaderOf(e.rec) : CoreOf(e.rec));
      });
}

Status FactIndexSorter::Drain(Index index, OrderedSink* sink) {
  if (!runs_[index].empty()) return MergeRuns(runs_[index], sink);
  CHIPKG_RETURN_IF_ERROR(Build(index));
  Sort(index);
  Status s = ForEach(index, [sink](std::string_view key, std::string_view value) { return sink->Put(key, value); });
  // Freed at once: the index drained next on this thread takes the blocks.
  if (index == kPos) {
    pos_entries_.release();
  } else {
    entries_by_index_[index].release();
  }
  return s;
}

void FactIndexSorter::Release() {
  for (auto& v : entries_by_index_) v.release();
  pos_entries_.release();
  cores_.Release();
  keys_.Release();
}

// ---- BackgroundSinks -----------------------------------------------------------

namespace {
constexpr size_t kChunkBytes = 4 << 20;
constexpr size_t kMaxQueued = 4;
}  // namespace

BackgroundSinks::BackgroundSinks(std::vector<SstSink*> sinks) : sinks_(std::move(sinks)) {
  chunk_.reserve(kChunkBytes + (64 << 10));
  thread_ = std::thread([this] { Run(); });
}

BackgroundSinks::~BackgroundSinks() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status BackgroundSinks::Put(int index, std::string_view key, std::string_view value) {
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    return Status::InvalidArgument("bulk record of more than 4 GiB");
  }
  chunk_.push_back(static_cast<char>(index));
  uint32_t klen = static_cast<uint32_t>(key.size()), vlen = static_cast<uint32_t>(value.size());
  chunk_.append(reinterpret_cast<const char*>(&klen), 4);
  chunk_.append(reinterpret_cast<const char*>(&vlen), 4);
  chunk_.append(key.data(), key.size());
  chunk_.append(value.data(), value.size());
  if (chunk_.size() >= kChunkBytes) return Flush();
  return Status::OK();
}

Status BackgroundSinks::Flush() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return queue_.size() < kMaxQueued || !error_.ok(); });
  if (!error_.ok()) return error_;
  if (!chunk_.empty()) {
    queue_.push_back(std::move(chunk_));
    if (spare_.empty()) {
      chunk_ = std::string();
      chunk_.reserve(kChunkBytes + (64 << 10));
    } else {
      chunk_ = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  cv_.notify_all();
  return Status::OK();
}

void BackgroundSinks::Run() {
  for (;;) {
    std::string chunk;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;
      chunk = std::move(queue_.front());
      queue_.pop_front();
    }
    cv_.notify_all();
    Status s;
    std::string_view in(chunk);
    while (s.ok() && !in.empty()) {
      int index = static_cast<unsigned char>(in[0]);
      uint32_t klen = LoadU32(in.data() + 1), vlen = LoadU32(in.data() + 5);
      s = sinks_[index]->Put(in.substr(9, klen), in.substr(9 + klen, vlen));
      in.remove_prefix(9 + klen + vlen);
    }
    std::lock_guard lock(mu_);
    if (!s.ok() && error_.ok()) error_ = s;
    if (spare_.size() <= kMaxQueued) {
      chunk.clear();
      spare_.push_back(std::move(chunk));
    }
    cv_.notify_all();
  }
}

Status BackgroundSinks::Finish() {
  Status s = Flush();
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (s.ok()) {
    std::lock_guard lock(mu_);
    s = error_;
  }
  for (SstSink* sink : sinks_) {
    Status f = sink->Finish();
    if (s.ok()) s = f;
  }
  return s;
}

}  // namespace chipkg::internal
