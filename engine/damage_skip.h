// Reading a column family around a damaged table block: `check` and a
// salvaging export go on past the damage instead of stopping at it, so that
// one bad block (a flipped byte on disk) costs its own records, not every
// record after it.
#pragma once

#include <rocksdb/db.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace chipkg::internal {

// After a read of `cf` failed just past `last_good` (empty: from the first
// key), a key to seek to that reads again: one past the damaged stretch, at
// most the first readable key after it. Found by bisecting seek targets,
// since a seek fails exactly when the first key at or after its target lies
// in the damaged stretch. Nullopt when nothing past `last_good` reads.
std::optional<std::string> SeekPastDamage(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                                          const rocksdb::ReadOptions& read_options, const std::string& last_good);

// Every readable record of `cf`, in key order, given to `fn` (which returns
// false to stop). Each damaged stretch met is given to `on_damage`: the last
// key read before it (empty when none), RocksDB's error, and the key reading
// went on from (empty when nothing after it reads). RocksDB's status of the
// last read; OK when the scan ended at the end or where `fn` stopped it.
rocksdb::Status ScanAroundDamage(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& read_options,
    const std::function<bool(std::string_view key, std::string_view value)>& fn,
    const std::function<void(const std::string& last_good, const rocksdb::Status& error, const std::string& next)>&
        on_damage);

}  // namespace chipkg::internal
