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

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/status.h"

namespace chipkg::internal {

// Where a sorted stream goes: an SstSink, or a filter in front of one.
class OrderedSink {
 public:
  virtual ~OrderedSink() = default;
  // Keys must be strictly ascending across all calls.
  virtual Status Put(std::string_view key, std::string_view value) = 0;
};

// Makes every SstSink's direct-I/O open fail, as a file system without
// O_DIRECT would, so that tests reach the buffered fallback.
void RefuseDirectWritesForTesting(bool refuse);

class SstSink final : public OrderedSink {
 public:
  SstSink(rocksdb::Options options, std::string dir, std::string name, uint64_t target_file_bytes = 256ull << 20);
  ~SstSink() override;
  // Keys must be strictly ascending across all calls.
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key);
  // Closes the open file. The files are listed by files().
  Status Finish();
  const std::vector<std::string>& files() const { return files_; }
  uint64_t entries() const { return entries_; }
  // Whether the files are written with direct I/O (the default, unless the
  // file system refused it).
  bool direct() const { return direct_; }

 private:
  Status Prepare();
  std::unique_ptr<rocksdb::SstFileWriter> NewWriter(bool direct) const;

  rocksdb::Options options_;
  std::string dir_;
  std::string name_;
  uint64_t target_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  bool direct_ = true;
  bool open_ = false;
  std::vector<std::string> files_;
  uint64_t entries_ = 0;
};

// Memory for sort records, taken in large chunks and handed out front to
// back. Reset() keeps the chunks: a sorter that spills refills the same pages
// instead of having the kernel fault in and zero fresh ones.
class ChunkArena {
 public:
  explicit ChunkArena(size_t chunk_bytes) : chunk_bytes_(chunk_bytes) {}
  ~ChunkArena();
  ChunkArena(const ChunkArena&) = delete;
  ChunkArena& operator=(const ChunkArena&) = delete;
  char* Allocate(size_t n);
  void Reset();    // forget the contents, keep the memory
  void Release();  // give the memory back
  size_t held() const { return held_; }  // memory taken from the system
  size_t used() const { return before_current_ + used_; }  // of it, handed out since the last Reset
  // fn(data, bytes) for each chunk's part handed out since the last Reset, in
  // the order handed out (allocations never straddle chunks).
  template <typename Fn>
  void ForEachFilled(const Fn& fn) const {
    for (size_t i = 0; i < chunks_.size() && i <= current_; ++i) {
      const size_t filled = i < current_ ? chunks_[i].filled : used_;
      if (filled > 0) fn(static_cast<const char*>(chunks_[i].data), filled);
    }
  }


 private:
  struct Chunk {
    char* data = nullptr;
    size_t size = 0;
    bool mapped = false;  // from mmap (huge pages), else from new[]
    size_t filled = 0;    // bytes handed out, once the arena has moved past it
  };
  size_t chunk_bytes_;
  std::vector<Chunk> chunks_;
  size_t current_ = 0;         // chunk being filled
  size_t used_ = 0;            // bytes used of it
  size_t before_current_ = 0;  // sizes of the chunks before it
  size_t held_ = 0;
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

  std::string dir_;
  std::string name_;
  size_t budget_;
  ChunkArena arena_;
  std::vector<Ref> refs_;
  std::vector<std::string> runs_;
  uint64_t entries_ = 0;
};

// An array in blocks of a fixed size, each taken from the allocator when the
// one before is full. Unlike one large vector it never copies itself to grow,
// and its blocks can reuse memory the process freed before (a bulk load's
// index entries reuse what its first pass let go: on the machines chipkg is
// measured on, memory the host has to back again costs ~10 ms a MB). Sorted
// block by block, read in order through a merge of the blocks
// (FactIndexSorter). clear() keeps the blocks for the next fill.
template <typename T>
class BlockArray {
 public:
  explicit BlockArray(size_t block_bytes) : per_block_(std::max<size_t>(2, block_bytes / sizeof(T))) {}
  void push_back(const T& v) {
    if (next_ == end_) NextBlock();
    *next_++ = v;
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t blocks() const { return used_blocks_; }
  std::span<T> block(size_t i) {
    return {blocks_[i].get(), i + 1 < used_blocks_ ? per_block_ : size_ - i * per_block_};
  }
  std::span<const T> block(size_t i) const {
    return {blocks_[i].get(), i + 1 < used_blocks_ ? per_block_ : size_ - i * per_block_};
  }
  void clear() {
    size_ = used_blocks_ = 0;
    next_ = end_ = nullptr;
  }
  void release() {
    clear();
    blocks_.clear();
    blocks_.shrink_to_fit();
  }

 private:
  void NextBlock() {
    if (used_blocks_ == blocks_.size()) blocks_.emplace_back(new T[per_block_]);  // left uninitialised
    next_ = blocks_[used_blocks_++].get();
    end_ = next_ + per_block_;
  }
  size_t per_block_;
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t used_blocks_ = 0;
  size_t size_ = 0;
  T* next_ = nullptr;
  T* end_ = nullptr;
};

// The four fact indexes of a bulk load: spo, pos, doc and ref. Their values
// are all the fact's CORE record (spo, pos, doc) or its leading HEADER bytes
// (ref), and their keys are made of the CORE's fields and the fact id. So a
// load keeps each CORE once, in an arena, and nothing else per fact; each
// index's sort entries (keys pointing at the CORE) are made from the arena
// when that index is drained, and freed after it. While the facts arrive, the
// arena's blocks reuse what the load freed before (the first pass's texts),
// and the entries, which are two thirds of what a sort holds, only exist for
// the two indexes being written at a time, on two threads. Entries are kept in
// blocks (BlockArray), each sorted on its own and merged as they are written.
// Over the budget, the four indexes are made, sorted and spilled one after the
// other, and the arena is reused.
class FactIndexSorter {
 public:
  enum Index { kSpo, kPos, kDoc, kRef, kIndexCount };
  // The arenas and the index entries take their memory from the allocator in
  // blocks this small, so that they reuse what the load freed before them
  // (the first pass's texts, the texts the bulk writer's cache lets go)
  // instead of taking fresh memory: on the machines chipkg is measured on,
  // fresh memory costs ~10 ms a MB. Blocks of 4 MiB or mapped 32 MiB ones were
  // not reused (HISTORY.md, 2026-12-01 15:47); 64 KiB and 256 KiB blocks were.
  static constexpr size_t kBlockBytes = (256 << 10) - 64;
  // `block_bytes` other than the default only to test merging many blocks.
  FactIndexSorter(std::string dir, size_t budget_bytes, size_t block_bytes = kBlockBytes);
  ~FactIndexSorter();
  FactIndexSorter(const FactIndexSorter&) = delete;
  FactIndexSorter& operator=(const FactIndexSorter&) = delete;

  // One fact. `core` is its CORE record (codec.h), whose first `header_size`
  // bytes are its HEADER. Fact ids must ascend (a smaller one is refused).
  Status Add(uint64_t fid, std::string_view core, size_t header_size);
  // Call once, after the last Add and before any Drain.
  Status PrepareDrain();
  // Writes one index, in key order, to `sink` (not finishing it). Once per
  // index; different indexes may be drained on different threads at once.
  Status Drain(Index index, OrderedSink* sink);
  // Frees the memory once every index is drained.
  void Release();
  size_t runs() const;
  // Entries of the index made so far (spilled or drained).
  uint64_t entries(Index index) const { return entries_[index]; }

 private:
  // Sort entries leave out the fact id that ends every key: a block's
  // entries are made in fact-id order and sorted stably, and blocks that tie
  // merge in the order they were made, so equal keys stay in fact-id order.
  struct Entry {
    uint64_t k0;      // spo: subject, predicate; doc: document, version; ref: object << 32
    const char* rec;  // the fact's record
  };
  // Two words hold the predicate and the value key of a quantity, date,
  // entity or short text whole; only longer ones compare or store their
  // bytes apart.
  static constexpr uint32_t kPosWordBytes = 16;
  struct PosEntry {
    uint64_t k0, k1;  // the first 16 bytes of predicate + VALUEKEY, big-endian, zero padded
    const char* rec;  // size <= 16: the fact's record; longer: the key record (its bytes and the record's address)
    uint32_t size;    // of predicate + VALUEKEY
  };
  static std::string_view PosKey(const PosEntry& e, char (&words)[kPosWordBytes]);
  static bool PosLess(const PosEntry& a, const PosEntry& b);
  static bool EntryLess(const Entry& a, const Entry& b);
  static const char* PosCore(const PosEntry& e);
  Status Spill();
  // Makes the index's sort entries from the arena's records.
  Status Build(Index index);
  void Sort(Index index);
  // fn(key, value) for every entry of a sorted index, in order.
  template <typename Fn>
  Status ForEach(Index index, const Fn& fn);
  size_t Held() const;

  std::string dir_;
  size_t budget_;
  ChunkArena cores_;  // u64 fid, u32 size, u8 header size, CORE
  ChunkArena keys_;   // pos keys: u32 size, CORE record pointer, key
  uint64_t held_facts_ = 0;  // in the arena
  uint64_t last_fid_ = 0;
  bool added_any_ = false;
  std::vector<BlockArray<Entry>> entries_by_index_;  // by Index (pos's stays empty)
  BlockArray<PosEntry> pos_entries_;
  std::vector<std::string> runs_[kIndexCount];
  uint64_t entries_[kIndexCount] = {};
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
