// CopyWholeLogRecords: RocksDB reads its copy of a log as it reads the log,
// a write split over several 32 KiB blocks included, and a damaged record
// costs its own write (and the rest of its block), not the writes after it.
#include "engine/wal_copy.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/engine/test_util.h"

namespace chipkg::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kMarker[] = "MARKER-OF-THE-LONG-DOCUMENT";

// Five documents written by a process that ended without a flush; the third
// has 200 KB of text, so its write spans several blocks of the log.
fs::path StoreKilledWithFiveWrites(const TempDir& dir) {
  const std::string path = dir.Sub("s");
  WriteThenDieBeforeAFlush(path, [](Store& store) {
    for (int d = 0; d < 5; ++d) {
      DocBuilder b("doc-" + std::to_string(d));
      if (d == 2) {
        // The marker halfway: in a fragment that fills its block, so the
        // damage below costs no other write's fragment.
        for (int line = 0; line < 2000; ++line) {
          if (line == 1000) b.AddText(kMarker);
          b.AddText("filler line " + std::to_string(line) + " of the long document, long enough to span blocks");
        }
      }
      b.Add("chip:c", "memory", Value::Quantity((d + 1) * 1e9, "bytes", "x GB"), "memory in document " + std::to_string(d));
      if (!store.WriteDocumentVersion(b.doc(), b.version(), b.facts(), "run").ok()) return false;
    }
    return true;
  });
  return path;
}

// The store's files with each log replaced by its copy.
struct Copied {
  fs::path dir;
  internal::LogCopyStats stats;
};

Copied CopyWithLogsRewritten(const fs::path& from, const fs::path& to) {
  Copied c{to, {}};
  fs::create_directory(to);
  for (const auto& e : fs::directory_iterator(from)) {
    const std::string name = e.path().filename().string();
    if (name == "LOCK" || name.rfind("LOG", 0) == 0) continue;
    if (e.path().extension() == ".log") {
      EXPECT_TRUE(internal::CopyWholeLogRecords(e.path().string(), (to / name).string(), &c.stats).ok());
    } else {
      fs::copy_file(e.path(), to / name);
    }
  }
  return c;
}

TEST(WalCopyTest, AnUndamagedLogIsCopiedWriteForWrite) {
  TempDir dir;
  const fs::path path = StoreKilledWithFiveWrites(dir);
  ASSERT_FALSE(HasFatalFailure());
  const Copied copy = CopyWithLogsRewritten(path, dir.Sub("copy"));
  EXPECT_EQ(copy.stats.damaged_places, 0u);
  EXPECT_GE(copy.stats.batches_kept, 5u);
  auto store = Store::OpenReader(copy.dir.string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->ListAllDocumentVersions().value().size(), 5u);
  const DocumentVersion long_one = (*store)->GetDocumentVersion("doc-2", 1).value();
  EXPECT_GT(long_one.text.size(), 100'000u);  // four blocks of the log
  EXPECT_NE(long_one.text.find(kMarker), std::string::npos);
  auto checked = (*store)->Check();
  ASSERT_TRUE(checked.ok());
  EXPECT_EQ(checked->problem_count, 0u);
}

TEST(WalCopyTest, ADamagedRecordCostsItsOwnWriteNotTheOnesAfterIt) {
  TempDir dir;
  const fs::path path = StoreKilledWithFiveWrites(dir);
  ASSERT_FALSE(HasFatalFailure());
  fs::path log;
  for (const auto& e : fs::directory_iterator(path)) {
    if (e.path().extension() == ".log" && (log.empty() || e.file_size() > fs::file_size(log))) log = e.path();
  }
  ASSERT_FALSE(log.empty());
  std::string bytes;
  {
    std::ifstream in(log, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t at = bytes.find(kMarker);
  ASSERT_NE(at, std::string::npos);
  ASSERT_GT(at, 65536u) << "a middle fragment of the long write, beyond its first two blocks";
  bytes[at] = static_cast<char>(bytes[at] ^ 0xff);
  {
    std::ofstream out(log, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ASSERT_FALSE(Store::OpenReader(path.string()).ok()) << "the damage was not found";

  const Copied copy = CopyWithLogsRewritten(path, dir.Sub("copy"));
  EXPECT_EQ(copy.stats.damaged_places, 1u);
  auto store = Store::OpenReader(copy.dir.string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  // The long document's write is lost whole (its last fragment, in a block
  // of its own, is read and dropped); the ones before and after it are kept.
  const auto versions = (*store)->ListAllDocumentVersions().value();
  std::vector<std::string> documents;
  for (const auto& v : versions) documents.push_back(v.document_id);
  std::sort(documents.begin(), documents.end());
  EXPECT_EQ(documents, (std::vector<std::string>{"doc-0", "doc-1", "doc-3", "doc-4"}));
}

}  // namespace
}  // namespace chipkg::testing
