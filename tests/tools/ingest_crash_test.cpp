// kill -9 or a full disk during `chipkg ingest` leaves the store consistent:
// every document version is all in or all out. A reference store ingested
// without interruption says what each document must hold.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <random>
#include <thread>

#include "engine/store.h"

namespace chipkg {
namespace {

namespace fs = std::filesystem;

pid_t StartIngest(const fs::path& db, const fs::path& manifest) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    execl(CHIPKG_BINARY, CHIPKG_BINARY, "--db", db.c_str(), "ingest", "--quiet", "--manifest", manifest.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Per document: the content of its live facts, as a sorted multiset of keys.
std::map<std::string, std::multiset<std::string>> LiveFactsByDocument(Store& store) {
  std::map<std::string, std::multiset<std::string>> out;
  auto docs = store.ListDocuments();
  EXPECT_TRUE(docs.ok());
  for (const auto& d : *docs) {
    auto facts = store.FactsFromDocument(d.id);
    EXPECT_TRUE(facts.ok());
    auto& keys = out[d.id];
    for (const auto& f : *facts) {
      keys.insert(f.subject + "|" + f.predicate + "|" + f.value.ToString() + "|" + f.provenance.excerpt + "|" +
                  std::to_string(f.provenance.span_begin));
    }
  }
  return out;
}

TEST(IngestCrashTest, KillNineLeavesEveryDocumentAllInOrAllOut) {
  std::random_device rd;
  const fs::path dir = fs::temp_directory_path() / ("chipkg-crash-" + std::to_string(rd()));
  fs::create_directories(dir);
  const std::string gen = std::string(CHIPKG_SOURCE_DIR) + "/tools/corpus/gen_pages.py";
  ASSERT_EQ(std::system(("python3 " + gen + " 40 " + (dir / "pages").string()).c_str()), 0);
  const fs::path manifest = dir / "pages" / "manifest.json";

  // The reference: one uninterrupted run, timed.
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(Wait(StartIngest(dir / "reference", manifest)), 0);
  const auto full_run_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();

  // The victim: killed at random moments within the time a whole run takes
  // on this machine (a fixed delay outlived the whole run on a fast one and
  // killed nothing), then allowed to finish.
  std::mt19937 rng(12345);
  int killed_mid_run = 0;
  for (int round = 0; round < 4; ++round) {
    pid_t pid = StartIngest(dir / "victim", manifest);
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % std::max<long long>(10, full_run_ms * 7 / 10)));
    kill(pid, SIGKILL);
    if (Wait(pid) == 128 + SIGKILL) ++killed_mid_run;

    // After each kill the store opens and every stored document is complete.
    auto victim = Store::Open((dir / "victim").string());
    ASSERT_TRUE(victim.ok()) << victim.status().message();
    auto reference = Store::OpenReader((dir / "reference").string());
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    auto expected = LiveFactsByDocument(**reference);
    auto got = LiveFactsByDocument(**victim);
    for (const auto& [doc, keys] : got) {
      ASSERT_TRUE(expected.count(doc)) << doc;
      if (!keys.empty() || !expected[doc].empty()) {
        EXPECT_EQ(keys, expected[doc]) << "document " << doc << " is half written after kill -9 in round " << round;
      }
    }
  }
  EXPECT_GT(killed_mid_run, 0) << "no run was interrupted: the test proved nothing";

  ASSERT_EQ(Wait(StartIngest(dir / "victim", manifest)), 0);
  auto victim = Store::Open((dir / "victim").string());
  ASSERT_TRUE(victim.ok());
  auto reference = Store::OpenReader((dir / "reference").string());
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ(LiveFactsByDocument(**victim), LiveFactsByDocument(**reference));
  victim->reset();
  reference->reset();
  fs::remove_all(dir);
}

// A full disk, as the file-size limit makes one: the write that hits it
// fails, and the run stops there instead of fetching and failing every source
// after it with a line each. What was stored stays whole, and the next run
// completes it.
TEST(IngestCrashTest, AFullDiskStopsTheRunAndKeepsEveryDocumentWhole) {
  std::random_device rd;
  const fs::path dir = fs::temp_directory_path() / ("chipkg-full-" + std::to_string(rd()));
  fs::create_directories(dir);
  const std::string gen = std::string(CHIPKG_SOURCE_DIR) + "/tools/corpus/gen_pages.py";
  ASSERT_EQ(std::system(("python3 " + gen + " 40 " + (dir / "pages").string()).c_str()), 0);
  const fs::path manifest = dir / "pages" / "manifest.json";
  ASSERT_EQ(Wait(StartIngest(dir / "reference", manifest)), 0);

  const fs::path errors = dir / "stderr.txt";
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG, as one on a full disk with ENOSPC
    const rlimit limit{400 * 1024, 400 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    int fd = open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    execl(CHIPKG_BINARY, CHIPKG_BINARY, "--db", (dir / "victim").c_str(), "ingest", "--quiet", "--manifest",
          manifest.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_EQ(Wait(pid), 1);
  std::ifstream in(errors);
  std::stringstream text;
  text << in.rdbuf();
  const std::string said = text.str();
  size_t failed_lines = 0;
  for (size_t at = said.find("chipkg ingest: failed"); at != std::string::npos;
       at = said.find("chipkg ingest: failed", at + 1)) {
    ++failed_lines;
  }
  EXPECT_EQ(failed_lines, 1u) << said;
  EXPECT_NE(said.find("File too large"), std::string::npos) << said;
  EXPECT_NE(said.find("sources not tried: the store failed on source "), std::string::npos) << said;

  {
    auto victim = Store::Open((dir / "victim").string());
    ASSERT_TRUE(victim.ok()) << victim.status().message();
    auto reference = Store::OpenReader((dir / "reference").string());
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    auto expected = LiveFactsByDocument(**reference);
    auto got = LiveFactsByDocument(**victim);
    EXPECT_GT(got.size(), 0u) << "the limit left room for no document: the test proved nothing";
    EXPECT_LT(got.size(), expected.size()) << "the limit stopped nothing: the test proved nothing";
    for (const auto& [doc, keys] : got) {
      ASSERT_TRUE(expected.count(doc)) << doc;
      if (!keys.empty() || !expected[doc].empty()) {
        EXPECT_EQ(keys, expected[doc]) << "document " << doc;
      }
    }
  }
  ASSERT_EQ(Wait(StartIngest(dir / "victim", manifest)), 0);
  auto victim = Store::Open((dir / "victim").string());
  ASSERT_TRUE(victim.ok());
  auto reference = Store::OpenReader((dir / "reference").string());
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ(LiveFactsByDocument(**victim), LiveFactsByDocument(**reference));
  victim->reset();
  reference->reset();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace chipkg
