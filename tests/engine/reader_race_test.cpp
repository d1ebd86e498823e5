// A reader opened while a writer flushes (every writer flushes as it opens
// and as it closes) sees every write that had returned before the open
// began, or fails (Busy: a writer flushed under each of its tries): never a
// store with a write missing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "engine/store.h"
#include "tests/engine/test_util.h"

namespace chipkg {
namespace {

using testing::OpenOrDie;
using testing::TempDir;

// RocksDB's read-only open reads the MANIFEST, then lists the write-ahead
// logs: a flush between the two (the MANIFEST naming the new table file
// written after it was read, the log that held those writes deleted before
// it was listed) gave a view without them, and the open succeeded.
TEST(ReaderRaceTest, AReaderOpenedDuringAFlushSeesEveryWriteThatHadReturned) {
  TempDir dir;
  const std::string path = dir.Sub("store");
  OpenOrDie(path);
  std::atomic<int> written{-1};  // the last document whose write has returned
  std::atomic<bool> done{false};
  std::atomic<int> opens{0};
  std::atomic<bool> reader_failed{false};
  // At least 60 flushes, and 30 views opened beside them however slow the reader.
  std::thread writer([&] {
    for (int i = 0; i < 2000 && !reader_failed.load() && (i < 60 || opens.load() < 30); ++i) {
      auto store = OpenOrDie(path);
      Document doc;
      doc.id = "doc-" + std::to_string(i);
      doc.url = "https://example.com/" + doc.id;
      if (Status put = store->PutDocument(doc); !put.ok()) {
        ADD_FAILURE() << put.ToString();
        break;
      }
      written.store(i);
      store.reset();  // the close flushes every column family and deletes the log
    }
    done.store(true);
  });
  std::string failure;  // the writer thread is joined before the test may end
  while (!done.load() && failure.empty()) {
    const int before = written.load();
    auto reader = Store::OpenReader(path);
    // This writer flushes every few milliseconds, as no real one does.
    if (!reader.ok() && reader.status().IsBusy()) continue;
    if (!reader.ok()) {
      failure = "open " + std::to_string(opens.load()) + ": " + reader.status().ToString();
      break;
    }
    ++opens;
    if (before < 0) continue;
    auto got = (*reader)->GetDocument("doc-" + std::to_string(before));
    if (!got.ok()) {
      failure = "open " + std::to_string(opens.load()) + " did not see doc-" + std::to_string(before) +
                ", written before it began: " + got.status().ToString();
    }
  }
  reader_failed.store(!failure.empty());
  writer.join();
  EXPECT_EQ(failure, "");
  EXPECT_GE(opens.load(), 30);
}

}  // namespace
}  // namespace chipkg
