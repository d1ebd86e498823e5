// engine/sst_sort.h (internal to engine/): building SST files for a bulk load.
//
// SstSink writes keys given in ascending order to SST files of bounded size.
// RunSorter takes keys in any order within a memory budget: it sorts what it
// holds, spills sorted runs to temporary files when the budget is reached and
// k-way merges the runs into an SstSink at the end. BackgroundSinks lets the
// caller hand already-ordered streams (facts, prov by fact id) to a second
// thread that compresses and writes them while the caller keeps encoding.
#pragma once

#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/status.h"

namespace chipkg::internal {

class SstSink {
 public:
  SstSink(rocksdb::Options options, std::string dir, std::string name, uint64_t target_file_bytes = 256ull << 20);
  ~SstSink();
  // Keys must be strictly ascending across all calls.
  Status Put(std::string_view key, std::string_view value);
  Status Delete(std::string_view key);
  // Closes the open file. The files are listed by files().
  Status Finish();
  const std::vector<std::string>& files() const { return files_; }
  uint64_t entries() const { return entries_; }

 private:
  Status Prepare();

  rocksdb::Options options_;
  std::string dir_;
  std::string name_;
  uint64_t target_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  bool open_ = false;
  std::vector<std::string> files_;
  uint64_t entries_ = 0;
};

class RunSorter {
 public:
  // `dir` holds the spilled runs; `budget_bytes` bounds the memory held.
  RunSorter(std::string dir, std::string name, size_t budget_bytes);
  ~RunSorter();
  RunSorter(const RunSorter&) = delete;
  RunSorter& operator=(const RunSorter&) = delete;

  Status Add(std::string_view key, std::string_view value);
  // Writes every entry, in key order, to `sink` (not finishing it). Once.
  Status Drain(SstSink* sink);
  uint64_t entries() const { return entries_; }
  size_t runs() const { return runs_.size(); }

 private:
  struct Ref {
    uint64_t k0, k1;  // the first 16 key bytes, big-endian, zero padded: most comparisons stop here
    const char* rec;  // u32 key size, u32 value size, key, value
  };
  Status Spill();
  void SortRefs();
  char* Allocate(size_t n);

  std::string dir_;
  std::string name_;
  size_t budget_;
  struct Chunk {
    char* data = nullptr;
    size_t size = 0;
    bool mapped = false;  // from mmap (huge pages), else from new[]
  };
  void FreeChunks();

  std::vector<Chunk> chunks_;
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  size_t held_ = 0;
  std::vector<Ref> refs_;
  std::vector<std::string> runs_;
  uint64_t entries_ = 0;
};

// A thread writing ordered key/value streams into several SstSinks.
class BackgroundSinks {
 public:
  explicit BackgroundSinks(std::vector<SstSink*> sinks);
  ~BackgroundSinks();
  // Queues one entry for sinks[index]; keys per sink must ascend.
  Status Put(int index, std::string_view key, std::string_view value);
  // Writes what is queued, finishes the sinks and stops the thread.
  Status Finish();

 private:
  Status Flush();
  void Run();

  std::vector<SstSink*> sinks_;
  std::string chunk_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::vector<std::string> spare_;  // written-out chunks kept for reuse: their pages are already mapped
  bool closing_ = false;
  Status error_;
  std::thread thread_;
};

}  // namespace chipkg::internal
