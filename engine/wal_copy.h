// Copies of a damaged write-ahead log that RocksDB reads without a
// complaint (Store::OpenRepairedCopy).
#pragma once

#include <cstdint>
#include <string>

#include "engine/status.h"

namespace chipkg::internal {

struct LogCopyStats {
  uint64_t batches_kept = 0;
  // Fragments that failed their checksum (the rest of their block skipped
  // with them) and batches whose contents do not decode: each loses one
  // write or more.
  uint64_t damaged_places = 0;
};

// Writes to `to` every write batch of the RocksDB log file `from` whose
// fragments all check against their CRC32C and whose contents decode, in
// their order and with their sequence numbers, as a log file of RocksDB's
// format (kept writes after a dropped one read as after a gap, which RocksDB
// takes as it takes the gap an ingested table file leaves). After a damaged
// fragment the rest of its 32 KiB block is skipped, as RocksDB's own reader
// does: a damaged length says nothing about where the next record starts.
Status CopyWholeLogRecords(const std::string& from, const std::string& to, LogCopyStats* stats);

}  // namespace chipkg::internal
