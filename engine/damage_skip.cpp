#include "engine/damage_skip.h"

#include <algorithm>
#include <memory>

namespace chipkg::internal {
namespace {

// Bisected targets are fixed-width big-endian numbers, whose numeric order is
// their byte order: keys that differ within this many bytes are told apart
// (chipkg's keys are ids and values of a few bytes; a dictionary string that
// shares a longer prefix costs at most the keys between).
constexpr size_t kMinWidth = 32;

// (a + b) / 2 of two numbers of the same width.
std::string Midpoint(const std::string& a, const std::string& b) {
  std::string sum(a.size() + 1, '\0');
  unsigned carry = 0;
  for (size_t i = a.size(); i-- > 0;) {
    const unsigned s = static_cast<unsigned char>(a[i]) + static_cast<unsigned char>(b[i]) + carry;
    sum[i + 1] = static_cast<char>(s & 0xFF);
    carry = s >> 8;
  }
  sum[0] = static_cast<char>(carry);
  std::string half(a.size(), '\0');
  unsigned low_bit = static_cast<unsigned char>(sum[0]) & 1;
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned byte = static_cast<unsigned char>(sum[i + 1]);
    half[i] = static_cast<char>((low_bit << 7) | (byte >> 1));
    low_bit = byte & 1;
  }
  return half;
}

rocksdb::ReadOptions TotalOrder(const rocksdb::ReadOptions& given) {
  rocksdb::ReadOptions ro = given;
  ro.total_order_seek = true;  // a prefix seek would take a target's prefix filter, not the key order
  ro.prefix_same_as_start = false;
  ro.iterate_upper_bound = nullptr;
  ro.iterate_lower_bound = nullptr;
  return ro;
}

}  // namespace

std::optional<std::string> SeekPastDamage(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                                          const rocksdb::ReadOptions& read_options, const std::string& last_good) {
  const rocksdb::ReadOptions ro = TotalOrder(read_options);
  auto reads = [&](const std::string& target) {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
    it->Seek(target);
    return it->status().ok();
  };
  // The smallest key after last_good; a longer one is padded with zeros,
  // which keeps it after last_good.
  std::string low = last_good.empty() ? std::string() : last_good + '\0';
  const size_t width = std::max(kMinWidth, low.size());
  low.resize(width, '\0');
  if (reads(low)) return low;
  std::string high(width, '\xFF');
  if (!reads(high)) return std::nullopt;  // damaged to the end (or past every target)
  // `low` fails and `high` reads: the boundary lies between.
  for (;;) {
    std::string mid = Midpoint(low, high);
    if (mid == low) break;
    (reads(mid) ? high : low) = std::move(mid);
  }
  return high;
}

rocksdb::Status ScanAroundDamage(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& read_options,
    const std::function<bool(std::string_view key, std::string_view value)>& fn,
    const std::function<void(const std::string& last_good, const rocksdb::Status& error, const std::string& next)>&
        on_damage) {
  const rocksdb::ReadOptions ro = TotalOrder(read_options);
  std::string last_good;
  std::optional<std::string> damaged_after;  // the last damage met: after which key
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
  it->SeekToFirst();
  for (;;) {
    for (; it->Valid(); it->Next()) {
      last_good.assign(it->key().data(), it->key().size());
      if (!fn(std::string_view(it->key().data(), it->key().size()),
              std::string_view(it->value().data(), it->value().size()))) {
        return rocksdb::Status::OK();
      }
    }
    const rocksdb::Status error = it->status();
    if (error.ok()) return error;
    // Only damage is read around: another failure (an I/O error, a read
    // stopped) would fail every seek the same way.
    if (!error.IsCorruption()) return error;
    if (damaged_after == last_good) return error;  // read again and failed again at the same place
    damaged_after = last_good;
    const std::optional<std::string> next = SeekPastDamage(db, cf, ro, last_good);
    on_damage(last_good, error, next.value_or(std::string()));
    if (!next) return error;
    // A fresh iterator: one that met an error stays failed.
    it.reset(db->NewIterator(ro, cf));
    it->Seek(*next);
    if (it->Valid() && !last_good.empty() && it->key().compare(last_good) <= 0) return error;  // no progress
  }
}

}  // namespace chipkg::internal
