// A reader opened while a writer flushes (every writer flushes as it opens
// and as it closes) sees every write that had returned before the open
// began, and no later write without the ones before it; or it fails (Busy:
// a writer flushed under each of its tries). Never a store with a write
// missing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
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
  std::atomic<int> views{0};
  std::atomic<bool> reader_failed{false};
  const auto too_long = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  // At least 80 flushes, and 60 views opened beside them however slow the reader.
  std::thread writer([&] {
    for (int i = 0; !reader_failed.load() && (i < 80 || views.load() < 60); ++i) {
      if (std::chrono::steady_clock::now() > too_long) {
        ADD_FAILURE() << "the reader opened " << views.load() << " views in 120 s beside " << i << " writer sessions";
        break;
      }
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
  int busy = 0;
  while (!done.load() && failure.empty()) {
    const int before = written.load();
    auto reader = Store::OpenReader(path);
    // This writer flushes every few milliseconds, as no real one does.
    if (!reader.ok() && reader.status().IsBusy()) {
      ++busy;
      continue;
    }
    if (!reader.ok()) {
      failure = "view " + std::to_string(views.load()) + ": " + reader.status().ToString();
      break;
    }
    ++views;
    auto docs = (*reader)->ListDocuments();
    if (!docs.ok()) {
      failure = "view " + std::to_string(views.load()) + ": " + docs.status().ToString();
      break;
    }
    // doc-0 .. doc-N with none missing, N at least the last written before the open.
    std::set<int> seen;
    for (const Document& d : *docs) seen.insert(std::stoi(d.id.substr(4)));
    const int last = seen.empty() ? -1 : *seen.rbegin();
    if (last < before || static_cast<int>(seen.size()) != last + 1) {
      failure = "view " + std::to_string(views.load()) + " holds " + std::to_string(seen.size()) +
                " documents up to doc-" + std::to_string(last) + ", where doc-0 to doc-" + std::to_string(before) +
                " had been written before it was opened";
    }
  }
  reader_failed.store(!failure.empty());
  writer.join();
  EXPECT_EQ(failure, "");
  EXPECT_GE(views.load(), 60) << busy << " opens were refused as busy";
}

}  // namespace
}  // namespace chipkg
