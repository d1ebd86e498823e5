// RocksDB's log format (its db/log_format.h, stable since LevelDB): 32 KiB
// blocks of records, each a 7-byte header (masked CRC32C of type and
// payload, 16-bit length, type) and a payload; a write batch too long for
// what is left of a block is split into FIRST, MIDDLE... LAST fragments.
// RocksDB ships no public reader or writer of it, and its repair drops the
// writes of every column family that has no table file yet (a chipkg store
// killed before its first flush has none), so the copy is made here.
#include "engine/wal_copy.h"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace chipkg::internal {

namespace {

constexpr size_t kBlockSize = 32768;
constexpr size_t kHeaderSize = 7;
constexpr size_t kBatchHeaderSize = 12;  // sequence number and count
enum RecordType : uint8_t { kZeroType = 0, kFullType = 1, kFirstType = 2, kMiddleType = 3, kLastType = 4 };
constexpr uint32_t kMaskDelta = 0xa282ead8u;

const std::array<uint32_t, 256>& Crc32cTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// The checksum RocksDB stores for a fragment: CRC32C over its type byte and
// payload, rotated and offset so that a CRC of data holding CRCs stays apart.
uint32_t MaskedRecordCrc(uint8_t type, const char* data, size_t size) {
  const auto& table = Crc32cTable();
  uint32_t crc = ~0u;
  crc = table[(crc ^ type) & 0xff] ^ (crc >> 8);
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ static_cast<uint8_t>(data[i])) & 0xff] ^ (crc >> 8);
  crc = ~crc;
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

uint32_t GetU32(const char* p) {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Accepts every kind of entry: decoding the batch is the check.
class AcceptAll final : public rocksdb::WriteBatch::Handler {
 public:
  rocksdb::Status PutCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override { return {}; }
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice&) override { return {}; }
  rocksdb::Status SingleDeleteCF(uint32_t, const rocksdb::Slice&) override { return {}; }
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override { return {}; }
  rocksdb::Status MergeCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override { return {}; }
  rocksdb::Status PutBlobIndexCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override { return {}; }
  void LogData(const rocksdb::Slice&) override {}
};

bool Decodes(const std::string& batch) {
  if (batch.size() < kBatchHeaderSize) return false;
  rocksdb::WriteBatch decoded(batch);
  AcceptAll handler;
  return decoded.Iterate(&handler).ok();
}

class LogWriter {
 public:
  void Add(const std::string& batch) {
    size_t left = batch.size();
    const char* p = batch.data();
    bool begin = true;
    do {
      const size_t room = kBlockSize - block_offset_;
      if (room < kHeaderSize) {
        out_.append(room, '\0');  // a block's tail too short for a header is zeros
        block_offset_ = 0;
      }
      const size_t fragment = std::min(left, kBlockSize - block_offset_ - kHeaderSize);
      const bool end = fragment == left;
      const uint8_t type = begin && end ? kFullType : begin ? kFirstType : end ? kLastType : kMiddleType;
      PutU32(&out_, MaskedRecordCrc(type, p, fragment));
      out_.push_back(static_cast<char>(fragment & 0xff));
      out_.push_back(static_cast<char>(fragment >> 8));
      out_.push_back(static_cast<char>(type));
      out_.append(p, fragment);
      block_offset_ += kHeaderSize + fragment;
      p += fragment;
      left -= fragment;
      begin = false;
    } while (left > 0);
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
  size_t block_offset_ = 0;
};

}  // namespace

Status CopyWholeLogRecords(const std::string& from, const std::string& to, LogCopyStats* stats) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return Status::IOError("cannot read " + from + ": " + std::strerror(errno));
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::IOError("reading " + from + " failed");

  LogWriter writer;
  std::string batch;
  bool in_batch = false;  // a FIRST fragment was read and its LAST not yet
  auto drop_partial = [&] {
    in_batch = false;
    batch.clear();
  };
  auto finish = [&] {
    if (Decodes(batch)) {
      writer.Add(batch);
      ++stats->batches_kept;
    } else {
      ++stats->damaged_places;
    }
    in_batch = false;
    batch.clear();
  };
  size_t pos = 0;
  while (pos < log.size()) {
    const size_t block_end = std::min(log.size(), (pos / kBlockSize + 1) * kBlockSize);
    if (block_end - pos < kHeaderSize) {
      pos = block_end;  // the zeros at a block's end
      continue;
    }
    const char* header = log.data() + pos;
    const size_t length = static_cast<uint8_t>(header[4]) | size_t(static_cast<uint8_t>(header[5])) << 8;
    const auto type = static_cast<uint8_t>(header[6]);
    const bool fits = pos + kHeaderSize + length <= block_end;
    if (type == kZeroType && length == 0) {
      // Space preallocated and never written; inside a batch, as RocksDB's
      // reader reads it, the batch's end is lost.
      if (in_batch) ++stats->damaged_places;
      drop_partial();
      pos = block_end;
      continue;
    }
    if (fits && type > kLastType && MaskedRecordCrc(type, header + kHeaderSize, length) == GetU32(header)) {
      // A recyclable log's records or a compressed log's: chipkg sets
      // neither option, and reading them as damage would copy nothing.
      return Status::Corruption(from + " holds log records of type " + std::to_string(type) +
                                " (a recycled or compressed log), which this copy does not read");
    }
    if (!fits || type < kFullType || type > kLastType ||
        MaskedRecordCrc(type, header + kHeaderSize, length) != GetU32(header)) {
      // A fragment cut off at the file's end is a write a crash interrupted;
      // anything else is damage. Either way its batch is lost.
      drop_partial();
      if (!fits && block_end == log.size()) break;
      ++stats->damaged_places;
      pos = block_end;
      continue;
    }
    const char* payload = header + kHeaderSize;
    switch (type) {
      case kFullType:
        if (in_batch) ++stats->damaged_places;  // a batch whose end was lost
        drop_partial();
        batch.assign(payload, length);
        finish();
        break;
      case kFirstType:
        if (in_batch) ++stats->damaged_places;
        drop_partial();
        batch.assign(payload, length);
        in_batch = true;
        break;
      case kMiddleType:
      case kLastType:
        if (!in_batch) break;  // the rest of a batch whose start was damaged
        batch.append(payload, length);
        if (type == kLastType) finish();
        break;
    }
    pos += kHeaderSize + length;
  }
  drop_partial();

  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out.write(writer.bytes().data(), static_cast<std::streamsize>(writer.bytes().size()));
  out.close();
  if (!out) return Status::IOError("writing " + to + " failed: " + std::strerror(errno));
  return Status::OK();
}

}  // namespace chipkg::internal
