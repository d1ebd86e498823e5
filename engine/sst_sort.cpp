#include "engine/sst_sort.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <algorithm>
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

class UnsyncedFileSystem : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "ChipkgBulkUnsynced"; }
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
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

SstSink::SstSink(rocksdb::Options options, std::string dir, std::string name, uint64_t target_file_bytes)
    : options_(std::move(options)), dir_(std::move(dir)), name_(std::move(name)), target_(target_file_bytes) {
  options_.env = BulkEnv();
}

SstSink::~SstSink() {
  if (open_) writer_->Finish().PermitUncheckedError();
}

Status SstSink::Prepare() {
  if (open_ && writer_->FileSize() < target_) return Status::OK();
  CHIPKG_RETURN_IF_ERROR(Finish());
  if (!writer_) {
    // Keep the pages cached: the ingestion reads and syncs these files next.
    writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options_, nullptr,
                                                       /*invalidate_page_cache=*/false);
  }
  std::string path = dir_ + "/" + name_ + "-" + std::to_string(files_.size()) + ".sst";
  CHIPKG_RETURN_IF_ERROR(FromRocks(writer_->Open(path), "creating SST file " + path));
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

// ---- RunSorter ---------------------------------------------------------------

RunSorter::RunSorter(std::string dir, std::string name, size_t budget_bytes)
    : dir_(std::move(dir)), name_(std::move(name)), budget_(std::max<size_t>(budget_bytes, 64 << 10)) {}

RunSorter::~RunSorter() {
  FreeChunks();
  std::error_code ec;
  for (const auto& run : runs_) std::filesystem::remove(run, ec);
}

void RunSorter::FreeChunks() {
  for (const Chunk& c : chunks_) {
    if (c.mapped) {
      ::munmap(c.data, c.size);
    } else {
      delete[] c.data;
    }
  }
  chunks_.clear();
  chunk_used_ = chunk_size_ = 0;
  held_ = 0;
}

char* RunSorter::Allocate(size_t n) {
  if (chunks_.empty() || chunk_used_ + n > chunk_size_) {
    Chunk c;
    c.size = std::max<size_t>(n, std::min<size_t>(8 << 20, budget_ / 8));
    if (c.size >= kHugePage) {
      c.size = (c.size + kHugePage - 1) & ~(kHugePage - 1);
      c.data = MapLarge(c.size);
      c.mapped = c.data != nullptr;
    }
    if (c.data == nullptr) c.data = new char[c.size];  // not zeroed: every byte is written before it is read
    chunks_.push_back(c);
    chunk_size_ = c.size;
    chunk_used_ = 0;
    held_ += c.size;
  }
  char* p = chunks_.back().data + chunk_used_;
  chunk_used_ += n;
  return p;
}

Status RunSorter::Add(std::string_view key, std::string_view value) {
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    return Status::InvalidArgument("bulk entry of " + name_ + " is larger than 4 GiB");
  }
  if (held_ + refs_.capacity() * sizeof(Ref) >= budget_ && !refs_.empty()) CHIPKG_RETURN_IF_ERROR(Spill());
  const size_t n = 8 + key.size() + value.size();
  char* rec = Allocate(n);
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
  refs_.clear();
  refs_.shrink_to_fit();
  FreeChunks();
  return Status::OK();
}

Status RunSorter::Drain(SstSink* sink) {
  if (runs_.empty()) {
    SortRefs();
    for (const Ref& r : refs_) CHIPKG_RETURN_IF_ERROR(sink->Put(RecordKey(r.rec), RecordValue(r.rec)));
    refs_.clear();
    refs_.shrink_to_fit();
    FreeChunks();
    return Status::OK();
  }
  if (!refs_.empty()) CHIPKG_RETURN_IF_ERROR(Spill());
  std::vector<std::unique_ptr<RunReader>> readers;
  std::vector<size_t> heap;
  for (const auto& run : runs_) {
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
