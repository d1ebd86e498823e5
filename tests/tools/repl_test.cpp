// The real chipkg binary on a fresh store: the REPL through standard input
// (scripts) and through a pseudo-terminal (libedit, TAB completion, history),
// and the one-shot fact-checker and query commands with their exit codes.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <rocksdb/db.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/store.h"
#include "ingest/lock.h"
#include "ingest/resolve.h"
#include "tests/common/damage.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kTimeout = std::chrono::seconds(120);  // ASan builds on a busy machine are slow

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Output {
  int code = -1;
  std::string out, err;
};

// One directory per test binary run: HOME (for the REPL history) and the store.
class Sandbox {
 public:
  Sandbox() {
    std::random_device rd;
    root_ = fs::temp_directory_path() /
            ("chipkg-tools-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(root_ / "home");
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path root() const { return root_; }
  std::string home() const { return (root_ / "home").string(); }
  std::string store() const { return (root_ / "store").string(); }

 private:
  fs::path root_;
};

Sandbox* g_sandbox = nullptr;

// The schema the children read; a test may point it at a changed copy.
std::string g_schema_dir = std::string(CHIPKG_SOURCE_DIR) + "/schema";

// The child's environment: our own, with HOME pointing into the sandbox and
// no CHIPKG_DB, so nothing outside the sandbox is read or written.
void PrepareChildEnvironment() {
  setenv("HOME", g_sandbox->home().c_str(), 1);
  unsetenv("CHIPKG_DB");
  setenv("TERM", "xterm", 1);
  setenv("CHIPKG_SCHEMA_DIR", g_schema_dir.c_str(), 1);
}

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// Runs chipkg with `args`, feeding `input` on standard input; collects both streams.
// A process id no process has: a child that exited and was waited for (its
// id is free until the system hands it out again, which takes a while).
pid_t AGonePid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

Output Chipkg(std::vector<std::string> args, const std::string& input = "") {
  static int counter = 0;
  fs::path base = g_sandbox->root() / ("run" + std::to_string(counter++));
  {
    std::ofstream in(base.string() + ".in", std::ios::binary);
    in << input;
  }
  args.insert(args.begin(), CHIPKG_BINARY);
  pid_t pid = fork();
  if (pid == 0) {
    PrepareChildEnvironment();
    int in = open((base.string() + ".in").c_str(), O_RDONLY);
    int out = open((base.string() + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open((base.string() + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    auto argv = Argv(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Output o;
  if (pid < 0) return o;
  int status = 0;
  waitpid(pid, &status, 0);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = ReadFile(base.string() + ".out");
  o.err = ReadFile(base.string() + ".err");
  return o;
}

// Runs chipkg with `args` in a child that `prepare` sets up first (after the
// sandbox's environment: a limit, a stream redirected), stderr into `err`.
// The exit code, or -1 if the child did not exit normally.
int ExitCodeInChild(std::vector<std::string> args, const fs::path& err, const std::function<bool()>& prepare) {
  args.insert(args.begin(), CHIPKG_BINARY);
  pid_t pid = fork();
  if (pid == 0) {
    PrepareChildEnvironment();
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 2) != 2 || !prepare()) _exit(127);
    auto argv = Argv(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid < 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> Db(std::vector<std::string> args) {
  args.push_back("--db");
  args.push_back(g_sandbox->store());
  return args;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The lines of an output, without their line breaks.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first REPL run fills the store from the bundled datasets; later tests reuse it.
class ToolsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_sandbox = new Sandbox();
    first_ = new Output(Chipkg(Db({}), "sources\n"));
  }
  static void TearDownTestSuite() {
    delete first_;
    first_ = nullptr;
    delete g_sandbox;
    g_sandbox = nullptr;
  }
  static Output* first_;
};
Output* ToolsTest::first_ = nullptr;

TEST_F(ToolsTest, FirstStartIngestsTheBundledDatasets) {
  ASSERT_EQ(first_->code, 0) << first_->err;
  EXPECT_TRUE(Contains(first_->err, "store empty: ingesting bundled datasets")) << first_->err;
  EXPECT_TRUE(Contains(first_->err, " facts")) << first_->err;
  EXPECT_TRUE(Contains(first_->out, "seed-000-aws-trainium")) << first_->out;
  EXPECT_TRUE(Contains(first_->out, "epoch-ml-hardware")) << first_->out;
  // The second start finds the store full and says nothing about ingesting.
  Output again = Chipkg(Db({}), "sources\n");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_FALSE(Contains(again.err, "store empty")) << again.err;
}

// "exit 3" or "quit now" in a script stops it, as meant, but says the words were not read and the
// script's status is a failure; a comment after quit is no word.
TEST_F(ToolsTest, QuitWithWordsAfterItStopsAndSaysSo) {
  Output stopped = Chipkg(Db({}), "trainium.foundry\nexit 3\ntrainium.memory_bandwidth\n");
  EXPECT_EQ(stopped.code, 1) << stopped.err;
  EXPECT_TRUE(Contains(stopped.err, "line 2: exit takes nothing after it ('3' was not read); stopped here"))
      << stopped.err;
  EXPECT_TRUE(Contains(stopped.out, "TSMC")) << stopped.out;
  EXPECT_FALSE(Contains(stopped.out, "memory_bandwidth")) << stopped.out;
  // So are help and refresh with words after them; the statements after still run.
  Output helped = Chipkg(Db({}), "help me\nrefresh now\nrefresh  # a comment\ntrainium.foundry\n");
  EXPECT_EQ(helped.code, 1) << helped.err;
  EXPECT_TRUE(Contains(helped.err, "line 1: help takes nothing after it ('me' was not read)")) << helped.err;
  EXPECT_TRUE(Contains(helped.err, "line 2: refresh takes nothing after it ('now' was not read)")) << helped.err;
  EXPECT_FALSE(Contains(helped.out, "Statements")) << helped.out;
  EXPECT_TRUE(Contains(helped.out, "refreshed: ")) << helped.out;
  EXPECT_TRUE(Contains(helped.out, "TSMC")) << helped.out;
  Output commented = Chipkg(Db({}), "trainium.foundry\nquit   # done\ntrainium.memory_bandwidth\n");
  EXPECT_EQ(commented.code, 0) << commented.err;
  EXPECT_FALSE(Contains(commented.out, "memory_bandwidth")) << commented.out;
}

// A first start where no store can be made says why, once: not also "the REPL fills it on its first
// start", which it had just tried.
TEST_F(ToolsTest, AFirstStartThatCannotMakeTheStoreSaysWhyOnce) {
  const fs::path file = g_sandbox->root() / "a-file";
  std::ofstream(file) << "not a directory\n";
  const std::string store = (file / "store").string();
  Output started = Chipkg({"--db", store}, "sources\n");
  EXPECT_EQ(started.code, 1);
  EXPECT_TRUE(Contains(started.err, "cannot create store directory " + store + ": Not a directory")) << started.err;
  EXPECT_TRUE(Contains(started.err, "no chipkg store at " + store + ": this first start could not make it"))
      << started.err;
  EXPECT_FALSE(Contains(started.err, "fills it from the bundled datasets")) << started.err;
}

// A first fill that did not get every bundled source in (a dead source, a
// full disk) leaves the store marked; the next start completes it, and the
// start after that finds it whole.
TEST_F(ToolsTest, AFillLeftIncompleteIsCompletedByTheNextStart) {
  const std::string store = (g_sandbox->root() / "part-filled").string();
  Output one = Chipkg({"ingest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt",
                       "--id", "seed-000-aws-trainium", "--db", store});
  ASSERT_EQ(one.code, 0) << one.err;
  {
    auto s = chipkg::Store::Open(store);
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_TRUE((*s)->PutMeta("repl/first-fill", "incomplete").ok());
  }
  Output completing = Chipkg({"--db", store}, "sources\n");
  ASSERT_EQ(completing.code, 0) << completing.err;
  EXPECT_TRUE(Contains(completing.err, "store filled in part before: ingesting bundled datasets")) << completing.err;
  EXPECT_TRUE(Contains(completing.out, "epoch-ml-hardware")) << completing.out;
  Output again = Chipkg({"--db", store}, "sources\n");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_FALSE(Contains(again.err, "ingesting")) << again.err;
}

// A source that fails run after run is named as such by each run, with
// since when, and listed by `sources` until a run takes it.
TEST_F(ToolsTest, ASourceFailingRunAfterRunIsListedBySources) {
  const std::string store = (g_sandbox->root() / "failing-sources").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  const std::vector<std::string> capped = {"ingest", seed, "--id", "seed-000-aws-trainium", "--max-facts", "20",
                                           "--db", store};
  Output once = Chipkg(capped);
  EXPECT_EQ(once.code, 1) << once.err;
  EXPECT_FALSE(Contains(once.err, "runs in a row")) << once.err;
  Output twice = Chipkg(capped);
  EXPECT_EQ(twice.code, 1) << twice.err;
  EXPECT_TRUE(Contains(twice.err, "chipkg ingest: seed-000-aws-trainium has failed in 2 runs in a row, since "))
      << twice.err;
  Output listed = Chipkg({"sources", "--db", store});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(Contains(listed.out, "1 source failing in the latest ingest runs")) << listed.out;
  EXPECT_TRUE(Contains(listed.out, "seed-000-aws-trainium  " + seed + "\n    failed in 2 runs in a row, since "))
      << listed.out;
  EXPECT_TRUE(Contains(listed.out, "states more than 20 facts")) << listed.out;
  Output as_json = Chipkg({"sources", "--format", "json", "--db", store});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  const nlohmann::json j = nlohmann::json::parse(as_json.out);
  ASSERT_EQ(j.at("failing").size(), 1u) << as_json.out;
  EXPECT_EQ(j["failing"][0].at("document_id"), "seed-000-aws-trainium");
  EXPECT_EQ(j["failing"][0].at("runs"), 2);
  EXPECT_TRUE(j["failing"][0].at("manifest").is_null()) << as_json.out;  // given on the command line

  Output taken = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--quiet", "--db", store});
  ASSERT_EQ(taken.code, 0) << taken.err;
  // Said even quiet, once: the runs that failed on it were mailed.
  EXPECT_TRUE(Contains(taken.err, "chipkg ingest: seed-000-aws-trainium (" + seed + ") works again, after 2 failed "
                                  "runs in a row since "))
      << taken.err;
  EXPECT_FALSE(Contains(Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--db", store}).err, "works again"));
  Output after = Chipkg({"sources", "--format", "json", "--db", store});
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_TRUE(nlohmann::json::parse(after.out).at("failing").empty()) << after.out;
  EXPECT_EQ(nlohmann::json::parse(after.out).at("sources").size(), 1u) << after.out;
  // "sources DOCUMENT" is "source DOCUMENT", as its usage says.
  Output one = Chipkg({"sources", "seed-000-aws-trainium", "--db", store});
  Output same = Chipkg({"source", "seed-000-aws-trainium", "--db", store});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out, same.out);
  EXPECT_TRUE(Contains(Chipkg({"help"}).out, "sources [DOCUMENT] [--as-at WHEN]"));
}

// A one-off ingest of a mistyped location leaves a failure record that no
// manifest run takes out: `retire` of it removes the record (it said "no
// document", and `sources` listed the failure for ever).
TEST_F(ToolsTest, ASourceNeverStoredIsForgottenByRetire) {
  const fs::path dir = g_sandbox->root() / "never-stored";
  fs::create_directories(dir);
  const std::string store = (dir / "store").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  ASSERT_EQ(Chipkg({"ingest", seed, "--db", store}).code, 0);
  const std::string typo = (dir / "typo.txt").string();
  EXPECT_EQ(Chipkg({"ingest", typo, "--db", store}).code, 1);
  Output listed = Chipkg({"sources", "--format", "json", "--db", store});
  ASSERT_EQ(nlohmann::json::parse(listed.out).at("failing").size(), 1u) << listed.out;
  Output retired = Chipkg({"retire", typo, "--db", store});
  EXPECT_EQ(retired.code, 0) << retired.err;
  EXPECT_TRUE(Contains(retired.err, "(" + typo + ") was never stored: its record of 1 failed run is removed"))
      << retired.err;
  Output after = Chipkg({"sources", "--format", "json", "--db", store});
  EXPECT_TRUE(nlohmann::json::parse(after.out).at("failing").empty()) << after.out;
  EXPECT_EQ(nlohmann::json::parse(after.out).at("sources").size(), 1u) << after.out;  // the stored one stays
  EXPECT_EQ(Chipkg({"retire", typo, "--db", store}).code, 1);  // nothing left of it
}

// A dead source taken out of a cron job's manifest: its next run says the
// record of its failures is removed; until then `sources` names the
// manifest to take it out of, and its CSV has the failure as JSON does.
TEST_F(ToolsTest, AFailingSourceTakenOutOfItsManifestIsNoLongerListed) {
  const fs::path dir = g_sandbox->root() / "manifest-drop";
  fs::create_directories(dir);
  const std::string store = (dir / "store").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  const fs::path manifest = dir / "manifest.json";
  const std::string gone = (dir / "gone.txt").string();
  {
    std::ofstream out(manifest);
    out << R"([{"location": ")" << seed << R"(", "id": "trn1"}, {"location": "gone.txt", "id": "gone"}])";
  }
  Output failed = Chipkg({"ingest", "--manifest", manifest.string(), "--db", store});
  EXPECT_EQ(failed.code, 1) << failed.err;
  Output listed = Chipkg({"sources", "--db", store});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(Contains(listed.out, "gone  " + gone + "\n    failed in 1 run, since ")) << listed.out;
  EXPECT_TRUE(Contains(listed.out, "    listed in " + fs::absolute(manifest).lexically_normal().string() + "\n")) << listed.out;
  Output csv = Chipkg({"sources", "--format", "csv", "--db", store});
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::vector<std::string> rows = Lines(csv.out);
  ASSERT_EQ(rows.size(), 3u) << csv.out;  // the header, the stored document, the source never stored
  const std::string &header = rows[0], &first = rows[1], &second = rows[2];
  EXPECT_TRUE(Contains(header, ",retired_tx,failed_runs,failing_since,last_failed,failure,manifest")) << header;
  EXPECT_TRUE(first.rfind("trn1,", 0) == 0) << first;
  EXPECT_TRUE(first.size() >= 5 && first.compare(first.size() - 5, 5, ",,,,,") == 0)
      << first;  // not failing: the failure's five fields, last on the line, empty
  EXPECT_TRUE(second.rfind("gone,," + gone + ",,,0,", 0) == 0) << second;
  EXPECT_TRUE(Contains(second, ",1,")) << second;
  EXPECT_TRUE(Contains(second, fs::absolute(manifest).lexically_normal().string())) << second;

  {
    std::ofstream out(manifest);
    out << R"([{"location": ")" << seed << R"(", "id": "trn1"}])";
  }
  Output dropped = Chipkg({"ingest", "--manifest", manifest.string(), "--db", store});
  EXPECT_EQ(dropped.code, 0) << dropped.err;
  EXPECT_TRUE(Contains(dropped.err, "chipkg ingest: gone (" + gone + ") is no longer in " +
                                        fs::absolute(manifest).lexically_normal().string() +
                                        ": its record of 1 failed run is removed"))
      << dropped.err;
  Output after = Chipkg({"sources", "--format", "json", "--db", store});
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_TRUE(nlohmann::json::parse(after.out).at("failing").empty()) << after.out;

  // A manifest's last source taken out leaves it empty: read all the same, and said even by a quiet run
  // (a cron job, which from then on ingests nothing), as the failure record it drops is.
  std::ofstream(manifest) << R"([{"location": "gone2.txt", "id": "gone2"}])";
  EXPECT_EQ(Chipkg({"ingest", "--manifest", manifest.string(), "--db", store}).code, 1);
  std::ofstream(manifest) << "[]";
  Output emptied = Chipkg({"ingest", "--manifest", manifest.string(), "--quiet", "--db", store});
  EXPECT_EQ(emptied.code, 0) << emptied.err;
  EXPECT_TRUE(Contains(emptied.err, "chipkg ingest: " + manifest.string() + " lists no sources")) << emptied.err;
  EXPECT_TRUE(Contains(emptied.err, "chipkg ingest: gone2 (")) << emptied.err;
  Output none_left = Chipkg({"sources", "--format", "json", "--db", store});
  EXPECT_TRUE(nlohmann::json::parse(none_left.out).at("failing").empty()) << none_left.out;
  // Nothing given at all is still a mistake.
  EXPECT_EQ(Chipkg({"ingest", "--db", store}).code, 2);

  // A list a script writes to standard input is one manifest, forgotten by
  // the run whose list no longer has the source, as a file's is.
  const std::string piped_list = R"([{"location": ")" + (dir / "gone3.txt").string() + R"(", "id": "gone3"}])";
  EXPECT_EQ(Chipkg({"ingest", "--manifest", "-", "--db", store}, piped_list).code, 1);
  Output piped = Chipkg({"sources", "--db", store});
  EXPECT_TRUE(Contains(piped.out, "    listed in standard input\n")) << piped.out;
  Output repiped = Chipkg({"ingest", "--manifest", "-", "--db", store}, "[]");
  EXPECT_EQ(repiped.code, 0) << repiped.err;
  EXPECT_TRUE(Contains(repiped.err, "chipkg ingest: gone3 (" + (dir / "gone3.txt").string() +
                                        ") is no longer in standard input: its record of 1 failed run is removed"))
      << repiped.err;
  EXPECT_TRUE(nlohmann::json::parse(Chipkg({"sources", "--format", "json", "--db", store}).out).at("failing").empty());
}

// A nightly export killed mid-way left its partial file, a store's size,
// night after night: the next export to that file removes what a process
// that is gone left, and names it; a partial file of a process still running
// (another export of the same file) stays.
TEST_F(ToolsTest, AnExportKilledMidWayIsCleanedUpByTheNextOne) {
  const fs::path dir = g_sandbox->root() / "left-behind";
  fs::create_directories(dir);
  const fs::path file = dir / "backup.jsonl";
  const std::string gone = std::to_string(AGonePid());
  const fs::path dead = dir / ("backup.jsonl.partial-" + gone);
  const fs::path running = dir / ("backup.jsonl.partial-" + std::to_string(::getpid()));
  const fs::path unrelated = dir / "backup.jsonl.partial-copy";
  for (const fs::path& p : {dead, running, unrelated}) std::ofstream(p) << "{\"cut short";
  Output out = Chipkg(Db({"export", file.string()}));
  ASSERT_EQ(out.code, 0) << out.err;
  EXPECT_TRUE(Contains(out.err, "chipkg export: removed " + dead.string() +
                                    ", left by an export that did not finish (process " + gone + " is gone)"))
      << out.err;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(running));
  EXPECT_TRUE(fs::exists(unrelated));
  EXPECT_GT(fs::file_size(file), 1000u);
  fs::remove_all(dir);
}

// The fetch limits and the document id are the command line's to set, and
// a value that makes no sense is refused before anything is fetched.
TEST_F(ToolsTest, IngestOptionsAreCheckedAndUsed) {
  const std::string store = (g_sandbox->root() / "ingest-options").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--timeout", "0"}, {"--timeout", "5s"}, {"--retries", "-1"}, {"--parallel", "0"}, {"--parallel", "x"},
           {"--max-facts", "0"}}) {
    Output bad = Chipkg({"ingest", seed, flag, value, "--db", store});
    EXPECT_EQ(bad.code, 2) << flag << " " << value;
    EXPECT_TRUE(Contains(bad.err, flag + " \"" + value + "\": expected a whole number")) << bad.err;
  }
  Output flag_for_nothing =
      Chipkg({"ingest", "--manifest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json", "--kind", "press",
              "--db", store});
  EXPECT_EQ(flag_for_nothing.code, 2);
  EXPECT_TRUE(Contains(flag_for_nothing.err, "--kind applies to PATH|URL arguments, and none was given"))
      << flag_for_nothing.err;
  const std::string manifest = std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json";
  Output manifest_as_page = Chipkg({"ingest", manifest, "--db", store});
  EXPECT_EQ(manifest_as_page.code, 2);
  EXPECT_TRUE(Contains(manifest_as_page.err, "manifest.json is a manifest, not a document: chipkg ingest --manifest "))
      << manifest_as_page.err;
  const fs::path upper = g_sandbox->root() / "MANIFEST.JSON";
  fs::copy_file(manifest, upper, fs::copy_options::overwrite_existing);
  Output upper_case = Chipkg({"ingest", upper.string(), "--db", store});
  EXPECT_EQ(upper_case.code, 2) << upper_case.out;
  EXPECT_TRUE(Contains(upper_case.err, "MANIFEST.JSON is a manifest, not a document")) << upper_case.err;
  const fs::path unnamed = g_sandbox->root() / "sources";
  fs::copy_file(manifest, unnamed, fs::copy_options::overwrite_existing);
  Output no_extension = Chipkg({"ingest", unnamed.string(), "--db", store});
  EXPECT_EQ(no_extension.code, 2) << no_extension.out;
  EXPECT_TRUE(Contains(no_extension.err, "sources is a manifest, not a document")) << no_extension.err;
  Output no_such_dataset = Chipkg({"ingest", seed, "--dataset", "epoch-ml-hardwar", "--db", store});
  EXPECT_EQ(no_such_dataset.code, 2);
  EXPECT_TRUE(Contains(no_such_dataset.err, "unknown dataset \"epoch-ml-hardwar\"")) << no_such_dataset.err;
  Output password = Chipkg({"ingest", "http://reader:s3cret@127.0.0.1:9/page", "--db", store});
  EXPECT_EQ(password.code, 2);
  EXPECT_TRUE(Contains(password.err, "http://127.0.0.1:9/page: a URL with a user name or password is not ingested"))
      << password.err;
  EXPECT_FALSE(Contains(password.err, "s3cret")) << password.err;
  Output twice = Chipkg({"ingest", seed, "--id", "a", "--id", "b", "--db", store});
  EXPECT_EQ(twice.code, 2);
  EXPECT_TRUE(Contains(twice.err, "option '--id' given twice ('a', then 'b'): give it once")) << twice.err;
  Output two = Chipkg({"ingest", seed, seed, "--id", "one-id", "--db", store});
  EXPECT_EQ(two.code, 2);
  EXPECT_TRUE(Contains(two.err, "--id names one document")) << two.err;
  // "--db" with its path left out takes the command for it: said so, not "unknown command" alone.
  Output swallowed = Chipkg({"--db", "ingest", seed, "--id", "a"});
  EXPECT_EQ(swallowed.code, 2);
  EXPECT_TRUE(Contains(swallowed.err, "--db took 'ingest' as the store's path; write the path after --db")) << swallowed.err;
  EXPECT_FALSE(fs::exists(fs::path(store) / "CURRENT"));  // nothing was opened, let alone written

  Output capped = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--max-facts", "20", "--db", store});
  EXPECT_EQ(capped.code, 1) << capped.err;
  EXPECT_TRUE(Contains(capped.err, "seed-000-aws-trainium: states more than 20 facts")) << capped.err;
  Output good = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--timeout", "5", "--retries", "0",
                        "--parallel", "2", "--max-facts", "1000", "--db", store});
  ASSERT_EQ(good.code, 0) << good.err;
  EXPECT_TRUE(Contains(good.err, "documents 1 new")) << good.err;
  // Read again with the same rules: the same facts, nothing written.
  Output reread = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--reextract", "--db", store});
  ASSERT_EQ(reread.code, 0) << reread.err;
  EXPECT_TRUE(Contains(reread.err, "documents 0 new, 0 changed, 1 unchanged, 0 failed; facts 0 added, 0 retracted"))
      << reread.err;
  EXPECT_FALSE(Contains(reread.err, "read by other rules")) << reread.err;
  // Another schema (one synonym more): the unchanged document is said to
  // have been read by other rules, except under --quiet; --reextract reads it.
  const fs::path other_schema = g_sandbox->root() / "schema-with-a-synonym";
  fs::copy(fs::path(CHIPKG_SOURCE_DIR) / "schema", other_schema, fs::copy_options::recursive);
  { std::ofstream(other_schema / "core.schema", std::ios::app) << "synonym wattage tdp\n"; }
  g_schema_dir = other_schema.string();
  Output stale = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--db", store});
  Output stale_quiet = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--quiet", "--db", store});
  Output reread_now = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--reextract", "--db", store});
  Output fresh = Chipkg({"ingest", seed, "--id", "seed-000-aws-trainium", "--db", store});
  g_schema_dir = std::string(CHIPKG_SOURCE_DIR) + "/schema";
  fs::remove_all(other_schema);
  ASSERT_EQ(stale.code, 0) << stale.err;
  EXPECT_TRUE(Contains(stale.err, "1 unchanged document (seed-000-aws-trainium) was read by other rules than this "
                                  "chipkg's"))
      << stale.err;
  EXPECT_EQ(stale_quiet.err, "");
  ASSERT_EQ(reread_now.code, 0) << reread_now.err;
  EXPECT_FALSE(Contains(reread_now.err, "read by other rules")) << reread_now.err;
  EXPECT_FALSE(Contains(fresh.err, "read by other rules")) << fresh.err;
  Output sources = Chipkg({"sources", "--db", store});
  ASSERT_EQ(sources.code, 0) << sources.err;
  EXPECT_TRUE(Contains(sources.out, "seed-000-aws-trainium")) << sources.out;
}

// A cron run that overlaps the one before it is refused naming the process
// that holds the store, and the store loses nothing.
TEST_F(ToolsTest, AnOverlappingIngestNamesTheProcessThatHoldsTheStore) {
  const std::string store = (g_sandbox->root() / "held").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  ASSERT_EQ(Chipkg({"ingest", seed, "--db", store}).code, 0);
  {
    auto writer = chipkg::Store::Open(store);  // as a running ingest holds it
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    auto lock = chipkg::RunLock::Acquire(chipkg::RunLock::PathFor(store));
    ASSERT_TRUE(lock.ok()) << lock.status().message();
    Output refused = Chipkg({"ingest", seed, "--db", store});
    EXPECT_EQ(refused.code, 2);
    EXPECT_TRUE(Contains(refused.err, "is held by pid " + std::to_string(::getpid()))) << refused.err;
  }
  {
    // A run that has taken its run lock and is still opening the store is
    // named too: the run lock is taken before the store is opened.
    auto lock = chipkg::RunLock::Acquire(chipkg::RunLock::PathFor(store));
    ASSERT_TRUE(lock.ok()) << lock.status().message();
    Output refused = Chipkg({"ingest", seed, "--db", store});
    EXPECT_EQ(refused.code, 2);
    EXPECT_TRUE(Contains(refused.err, "store " + store + " is held by pid " + std::to_string(::getpid()))) << refused.err;
  }
  {
    // A run killed with -9 leaves its pid in the lock file: not named when
    // another writer (not an ingest) holds the store.
    std::ofstream(chipkg::RunLock::PathFor(store), std::ios::trunc) << "999999\n";
    auto writer = chipkg::Store::Open(store);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    Output refused = Chipkg({"ingest", seed, "--db", store});
    EXPECT_EQ(refused.code, 2);
    EXPECT_FALSE(Contains(refused.err, "999999")) << refused.err;
    EXPECT_TRUE(Contains(refused.err, "another chipkg process is writing to")) << refused.err;
  }
  Output after = Chipkg({"ingest", seed, "--db", store});
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_TRUE(Contains(after.err, "1 unchanged")) << after.err;
}

// A source's kind or site corrected in its manifest changes what `prefer`
// and `using` answers: the run says so, quiet or not.
TEST_F(ToolsTest, AStoredDocumentsNewKindIsSaid) {
  const std::string store = (g_sandbox->root() / "relabelled").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  // A new store is said even by a quiet run (a mistyped --db fills one every run), and only once.
  Output first = Chipkg({"ingest", seed, "--id", "p001", "--kind", "press", "--quiet", "--db", store});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_TRUE(Contains(first.err, "chipkg ingest: a new store at " + fs::canonical(store).string() + "\n"))
      << first.err;
  // Said whole and plain, as cron's working directory is not the reader's.
  Output roundabout = Chipkg({"ingest", seed, "--quiet", "--db", (g_sandbox->root() / "." / "plain").string()});
  EXPECT_TRUE(Contains(roundabout.err,
                       "chipkg ingest: a new store at " + fs::canonical(g_sandbox->root() / "plain").string() + "\n"))
      << roundabout.err;
  Output same = Chipkg({"ingest", seed, "--id", "p001", "--kind", "press", "--quiet", "--db", store});
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.err, "");
  Output relabelled = Chipkg({"ingest", seed, "--id", "p001", "--kind", "vendor", "--site", "aws.example", "--quiet",
                              "--db", store});
  EXPECT_EQ(relabelled.code, 0) << relabelled.err;
  EXPECT_TRUE(Contains(relabelled.err, "chipkg ingest: p001: kind press -> vendor; site ")) << relabelled.err;
  EXPECT_TRUE(Contains(relabelled.err, " -> aws.example (answers that prefer or use a kind or site follow it"))
      << relabelled.err;
  Output listed = Chipkg({"sources", "--format", "json", "--db", store});
  EXPECT_EQ(nlohmann::json::parse(listed.out).at("sources").at(0).at("kind"), "vendor") << listed.out;

  // A text whose claims all stand (its timestamp ticked) is stored as a new version without a word
  // under --quiet: cron mailed it every run, as if a figure had changed. A changed figure is said.
  const std::string ticking = (g_sandbox->root() / "relabelled-page.txt").string();
  const std::string page = [&] {
    std::ifstream in(seed);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  std::ofstream(ticking) << page << "\nGenerated at 10:00\n";
  ASSERT_EQ(Chipkg({"ingest", ticking, "--id", "ticking", "--db", store}).code, 0);
  std::ofstream(ticking) << page << "\nGenerated at 11:00\n";
  Output ticked = Chipkg({"ingest", ticking, "--id", "ticking", "--quiet", "--db", store});
  EXPECT_EQ(ticked.code, 0) << ticked.err;
  EXPECT_EQ(ticked.err, "");
  Output loud = Chipkg({"ingest", ticking, "--id", "ticking", "--db", store});
  EXPECT_TRUE(Contains(loud.err, "1 unchanged")) << loud.err;  // the 11:00 text was stored
  std::ofstream(ticking) << page << "\nGenerated at 12:00\nTDP: 450 W\n";
  Output changed = Chipkg({"ingest", ticking, "--id", "ticking", "--quiet", "--db", store});
  EXPECT_TRUE(Contains(changed.err, "1 changed")) << changed.err;
  // Which document, with what it added and retracted, for the cron mail.
  EXPECT_TRUE(Contains(changed.err, "chipkg ingest: changed ticking (" + ticking + "): 1 fact added, 0 retracted\n"))
      << changed.err;
  EXPECT_TRUE(Contains(first.err, "chipkg ingest: new p001 (" + seed + "): ")) << first.err;
  EXPECT_FALSE(Contains(loud.err, "chipkg ingest: changed ticking")) << loud.err;  // its claims all stood
}

// A script that makes its list of sources pipes it in: `--manifest -`.
TEST_F(ToolsTest, IngestReadsAManifestFromStandardInput) {
  const std::string store = (g_sandbox->root() / "stdin-manifest").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  Output run = Chipkg({"ingest", "--manifest", "-", "--db", store},
                      "[{\"location\": \"" + seed + "\", \"kind\": \"press\", \"id\": \"piped-seed\"}]");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(Contains(run.err, "1 new")) << run.err;
  Output listed = Chipkg({"sources", "--db", store});
  EXPECT_TRUE(Contains(listed.out, "piped-seed")) << listed.out;
  EXPECT_TRUE(Contains(listed.out, "press")) << listed.out;
  Output broken = Chipkg({"ingest", "--manifest", "-", "--db", store}, "[{\"location\": \n");
  EXPECT_EQ(broken.code, 2);
  EXPECT_TRUE(Contains(broken.err, "standard input:2: not valid JSON")) << broken.err;
  Output twice = Chipkg({"ingest", "--manifest", "-", "--manifest", "-", "--db", store}, "[]");
  EXPECT_EQ(twice.code, 2);
  EXPECT_TRUE(Contains(twice.err, "--manifest - reads standard input, which holds one manifest")) << twice.err;
}

// What an extraction could not read reaches the cron log: a few lines of
// each source's, then how many more; new entities likewise.
TEST_F(ToolsTest, IngestReportsWhatItCouldNotRead) {
  const std::string store = (g_sandbox->root() / "warnings").string();
  Output run = Chipkg({"ingest", "--manifest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json", "--db",
                       store});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(Contains(run.err, "001_fbc9a4a76c8d550e.txt: line 55: 'Came before' states no value")) << run.err;
  EXPECT_TRUE(Contains(run.err, "ml_hardware.csv: row 102, column \"Max performance\": \"0.0\" not read (derived "
                                "figure 0")) << run.err;
  EXPECT_TRUE(Contains(run.err, "ml_hardware.csv: 10 more not shown (--all-warnings shows them)")) << run.err;
  Output all = Chipkg({"ingest", "--reextract", "--all-warnings", "--manifest",
                       std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json", "--db", store});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_FALSE(Contains(all.err, "more not shown (")) << all.err;
  size_t dataset_warnings = 0;
  for (const std::string& line : Lines(all.err)) dataset_warnings += Contains(line, "ml_hardware.csv: row ") ? 1 : 0;
  EXPECT_EQ(dataset_warnings, 13u) << all.err;
  EXPECT_TRUE(Contains(run.err, "156 more new entities not shown")) << run.err;
  size_t entity_lines = 0;
  for (size_t at = run.err.find("new entity chip:"); at != std::string::npos;
       at = run.err.find("new entity chip:", at + 1)) {
    ++entity_lines;
  }
  EXPECT_EQ(entity_lines, 10u);
  Output quiet = Chipkg({"ingest", "--quiet", "--accept-shrinking", "--manifest",
                         std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json", "--db", store});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");  // nothing stored, nothing failed: nothing for cron to mail
  // A new document that states nothing is said even by a quiet run: a cron job's first fetch may have met a
  // maintenance page, and a quiet success said nothing of it.
  const std::string maintenance = (g_sandbox->root() / "maintenance.txt").string();
  std::ofstream(maintenance) << "Down for maintenance\nWe will be back shortly.\n";
  Output nothing = Chipkg({"ingest", maintenance, "--quiet", "--db", store});
  ASSERT_EQ(nothing.code, 0) << nothing.err;
  EXPECT_TRUE(Contains(nothing.err, "maintenance.txt: stored, but it states no fact chipkg reads")) << nothing.err;
}

// A count by an attribute on the bundled datasets, at the REPL (a line
// ending in "by" goes on on the next) and as CSV for a spreadsheet.
TEST_F(ToolsTest, CountByAnAttribute) {
  Output text = Chipkg(Db({}), "count chip where reported(memory) by\n  designer\n");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "designer  ")) << text.out;
  EXPECT_TRUE(Contains(text.out, "\nNVIDIA  ")) << text.out;
  EXPECT_TRUE(Contains(text.out, " groups\n")) << text.out;
  EXPECT_TRUE(Contains(text.out, "models or terms): AWS Trainium (Amazon; Annapurna Labs)"))
      << text.out;
  Output csv = Chipkg(Db({"query", "count chip by foundry limit 2", "--format", "csv"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, first, second, third;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header, "foundry,chips,state,number,dimension,date,date_precision,value_entity,qualifiers");
  EXPECT_TRUE(first.rfind("TSMC,", 0) == 0) << csv.out;
  EXPECT_TRUE(Contains(first, ",reported,,,,,org:tsmc,")) << csv.out;  // the group's entity id, for a script
  EXPECT_FALSE(second.empty()) << csv.out;
  EXPECT_FALSE(std::getline(lines, third)) << csv.out;  // the two largest groups only
  // The total, which the groups' counts need not add up to, beside the file.
  EXPECT_TRUE(Contains(csv.err, "note: count: ")) << csv.err;
  EXPECT_TRUE(Contains(csv.err, " groups\n")) << csv.err;
  EXPECT_FALSE(Contains(csv.out, "count:")) << csv.out;
  // For scripts: the kind, the attribute, and each count a number.
  Output json = Chipkg(Db({"query", "count chip by designer limit 1", "--format", "json"}));
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["kind"], "chip");
  EXPECT_EQ(j["group_by"], "designer");
  EXPECT_EQ(j["rows"][0]["name"], "NVIDIA");
  EXPECT_GT(j["rows"][0]["cells"]["chips"]["values"][0]["value"]["number"].get<double>(), 50);
  EXPECT_EQ(j["rows"][0]["entity"], "org:nvidia");
  EXPECT_EQ(j["rows"][0]["group"]["state"], "reported");
  EXPECT_EQ(j["rows"][0]["group"]["value"]["entity"], "org:nvidia");
  // What each group is, not only its display text: no source, not published, a number, a year.
  Output states = Chipkg(Db({"query", "count chip by foundry", "--format", "json"}));
  ASSERT_EQ(states.code, 0) << states.err;
  std::map<std::string, std::string> state_of;
  const nlohmann::json state_rows = nlohmann::json::parse(states.out)["rows"];
  for (const auto& row : state_rows) state_of[row["name"]] = row["group"]["state"];
  EXPECT_EQ(state_of["\xE2\x80\x94 (no source)"], "unknown") << states.out;
  EXPECT_EQ(state_of["not published"], "not_published") << states.out;
  Output figures = Chipkg(Db({"query", "count chip by peak_throughput limit 1", "--format", "json"}));
  ASSERT_EQ(figures.code, 0) << figures.err;
  const nlohmann::json figure = nlohmann::json::parse(figures.out)["rows"][0]["group"];
  EXPECT_EQ(figure["value"]["dimension"], "ops_per_second") << figure;
  EXPECT_GT(figure["value"]["number"].get<double>(), 1e12) << figure;
  EXPECT_TRUE(figure["qualifiers"].contains("format")) << figure;
  EXPECT_TRUE(nlohmann::json::parse(figures.out)["rows"][0]["entity"].is_null()) << figures.out;
  Output years = Chipkg(Db({"query", "count chip by released limit 1", "--format", "csv"}));
  ASSERT_EQ(years.code, 0) << years.err;
  EXPECT_TRUE(Contains(years.out, ",reported,,,2023,year,,\n")) << years.out;
  // One group per value however the sources wrote it (Epoch's "500.0 W" is a page's "500 W").
  Output tdp = Chipkg(Db({"query", "count chip by tdp"}));
  ASSERT_EQ(tdp.code, 0) << tdp.err;
  EXPECT_TRUE(Contains(tdp.out, "\n500 W ")) << tdp.out;
  EXPECT_FALSE(Contains(tdp.out, ".0 W")) << tdp.out;
}

// CSV for analysis: each value as a number in its dimension's canonical
// unit (or an ISO date) beside its text, and the dataset row and column it
// was read from.
TEST_F(ToolsTest, CsvCarriesNumbersDatesAndDatasetCells) {
  Output csv = Chipkg(Db({"query", "trainium2.memory show released using aggregator", "--format", "csv"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_TRUE(Contains(csv.out, "row,entity,name,column,state,value,number,dimension,date,date_precision,value_entity,"))
      << csv.out;
  EXPECT_TRUE(Contains(csv.out, ",memory,reported,96 GB,96000000000,bytes,,,,")) << csv.out;
  EXPECT_TRUE(Contains(csv.out, ",released,reported,2024-12-03,,,2024-12-03,day,,")) << csv.out;
  Output orgs = Chipkg(Db({"query", "trainium.foundry", "--format", "csv"}));
  ASSERT_EQ(orgs.code, 0) << orgs.err;
  EXPECT_TRUE(Contains(orgs.out, ",TSMC,,,,,org:tsmc,")) << orgs.out;  // the organisation's id
  EXPECT_TRUE(Contains(csv.out, ",Memory (bytes),")) << csv.out;  // the Epoch column
  // Notes, which a CSV file has no place for, go to standard error.
  Output noted = Chipkg(Db({"query", "\"MI300X\".memory", "--format", "csv"}));
  ASSERT_EQ(noted.code, 0) << noted.err;
  EXPECT_TRUE(Contains(noted.err, "note: 'MI300X' read as AMD Instinct MI300X")) << noted.err;
  EXPECT_FALSE(Contains(noted.out, "note:")) << noted.out;
}

// Epoch writes memory in bytes: 8589934592 is 8 GiB, which the answer says
// (it said "8.59 GB", a figure no source gives), in the cell and in the
// citation's claim; the number column keeps the bytes.
TEST_F(ToolsTest, ADatasetsBytesAreShownInTheUnitTheyWereCountedIn) {
  Output text = Chipkg(Db({"query", "\"TPU v1\".memory"}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "Google TPU v1  8 GiB [1]")) << text.out;
  EXPECT_TRUE(Contains(text.out, "memory = 8 GiB, as of")) << text.out;
  EXPECT_FALSE(Contains(text.out, "8.59")) << text.out;
  Output csv = Chipkg(Db({"query", "\"TPU v1\".memory", "--format", "csv"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_TRUE(Contains(csv.out, ",memory,reported,8 GiB,8589934592,bytes,")) << csv.out;
  for (const char* command : {"describe", "trace"}) {
    Output checked = Chipkg(Db({command, std::string(command) == "trace" ? "TPU v1.memory" : "TPU v1"}));
    ASSERT_EQ(checked.code, 0) << checked.err;
    EXPECT_TRUE(Contains(checked.out, "8 GiB")) << command << ": " << checked.out;
    EXPECT_FALSE(Contains(checked.out, "8.59 GB")) << command << ": " << checked.out;
  }
}

// The dossier's bare footnote number, which the page resolves to no source,
// is the attribution "citation 3"; footnotes said "the page cites: 3" after
// it. What a page cites beyond its attribution (Epoch's URLs) is still said.
TEST_F(ToolsTest, AFootnoteNumberIsSaidOnce) {
  Output query = Chipkg(Db({"query", "trainium.foundry"}));
  ASSERT_EQ(query.code, 0) << query.err;
  EXPECT_TRUE(Contains(query.out, "attribution: citation 3\n")) << query.out;
  EXPECT_FALSE(Contains(query.out, "the page cites: 3")) << query.out;
  Output described = Chipkg(Db({"describe", "trainium"}));
  ASSERT_EQ(described.code, 0) << described.err;
  EXPECT_TRUE(Contains(described.out, "attribution: citation 3\n")) << described.out;
  EXPECT_FALSE(Contains(described.out, "cites 3")) << described.out;
  EXPECT_TRUE(Contains(described.out, "cites https://")) << described.out;
  Output traced = Chipkg(Db({"trace", "trainium.foundry"}));
  ASSERT_EQ(traced.code, 0) << traced.err;
  EXPECT_TRUE(Contains(traced.out, "citation 3")) << traced.out;
  EXPECT_FALSE(Contains(traced.out, "cites       3")) << traced.out;  // the label padded to 12
}

// A `show` that leaves out the condition's attributes still puts every
// citation of row_support on a line of CSV: the condition's claims come as
// the text's "why:" gives them (the citation numbers were named with no
// line saying which document they were).
TEST_F(ToolsTest, CsvNamesTheDocumentOfEveryCitationItNumbers) {
  Output csv = Chipkg(Db({"query", "find chip where designer = \"Google\" and tdp >= 500 W show tdp", "--format", "csv"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);  // the header
  std::set<std::string> numbered, on_lines;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(field);
    ASSERT_GE(fields.size(), 16u) << line;
    if (!fields[15].empty()) on_lines.insert(fields[15]);  // the citation column
    for (size_t at = 0; (at = fields.back().find('[', at)) != std::string::npos; ++at) {
      numbered.insert(fields.back().substr(at + 1, fields.back().find(']', at) - at - 1));
    }
  }
  EXPECT_FALSE(numbered.empty()) << csv.out;
  EXPECT_EQ(numbered, on_lines) << csv.out;
  EXPECT_TRUE(Contains(csv.out, ",Google TPU v5p,designer = Google,supporting,Google,")) << csv.out;
  // Without a show, the condition's attributes are the columns: no line twice.
  Output plain = Chipkg(Db({"query", "find chip where designer = \"Google\" and tdp >= 500 W", "--format", "csv"}));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(Contains(plain.out, ",supporting,")) << plain.out;
}

// Every example `help` gives works on the bundled store, as a reader would
// try them: one after another in a session.
TEST_F(ToolsTest, EveryHelpExampleWorksOnTheBundledStore) {
  Output help = Chipkg(Db({}), "help\n");
  ASSERT_EQ(help.code, 0) << help.err;
  const size_t from = help.out.find("\nExamples:\n");
  ASSERT_NE(from, std::string::npos) << help.out;
  std::istringstream lines(help.out.substr(from + 11));
  std::string line, script;
  size_t examples = 0;
  while (std::getline(lines, line) && !line.empty()) {
    script += line.substr(line.find_first_not_of(' ')) + "\n";
    ++examples;
  }
  EXPECT_GT(examples, 15u) << help.out;
  Output all = Chipkg(Db({}), script);
  EXPECT_EQ(all.code, 0) << script << "\n" << all.err;
  EXPECT_FALSE(Contains(all.err, "error")) << all.err;
}

TEST_F(ToolsTest, ScriptRunsEveryStatementAndFailsIfOneFailed) {
  Output o = Chipkg(Db({}),
                    "describe Trainium   # a comment after a statement\n"
                    "find chip where memory >= >= 64 GB\n"
                    "describe Trainuim\n"
                    "# a comment, then a statement continued with a backslash\n"
                    "describe \\\n"
                    "  Trainium2\n"
                    "trace trainium2.fits(\"Llama 3.1 70B\",\n"
                    "   int8)\n");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_TRUE(Contains(o.out, "AWS Trainium  (chip:aws-trainium, chip)")) << o.out;
  EXPECT_TRUE(Contains(o.out, "AWS Trainium 2  (chip:aws-trainium2, chip)")) << o.out;
  EXPECT_TRUE(Contains(o.err, "error:")) << o.err;
  EXPECT_TRUE(Contains(o.err, "line 2, column 27")) << o.err;  // the malformed query, on the script's line 2
  EXPECT_TRUE(Contains(o.err, "did you mean")) << o.err;  // Trainuim
  EXPECT_TRUE(Contains(o.err, "error: line 3: no entity named 'Trainuim'")) << o.err;  // where, too
  // The fit, computed from the model's parameters and the chip's memory.
  EXPECT_TRUE(Contains(o.out, "70 GB <= 96 GB")) << o.out;
  Output ok = Chipkg(Db({}), "format json\nsources\nformat text\nhelp\n");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(Contains(ok.out, "\"sources\"")) << ok.out;
  EXPECT_TRUE(Contains(ok.out, "trace trainium2.perf_per_watt")) << ok.out;  // help has examples
  EXPECT_TRUE(Contains(ok.out, "\n  trace ENTITY.ATTR[{KEY=VALUE,...}] [--tolerance P%] [--as-at WHEN]")) << ok.out;  // a line each
  // A command of the shell typed as a statement says where to run it.
  Output shell = Chipkg(Db({}), "stats\ningest page.txt --id p\n");
  EXPECT_EQ(shell.code, 1);
  EXPECT_TRUE(Contains(shell.err, "line 1: 'stats' is a command of the shell, not a statement: run 'chipkg stats' there"))
      << shell.err;
  EXPECT_TRUE(Contains(shell.err, "line 2: 'ingest' is a command of the shell, not a statement: run 'chipkg ingest "
                                  "page.txt --id p' there"))
      << shell.err;
  // A query spread over lines, after blank ones: its error names the script's line.
  Output placed = Chipkg(Db({}), "trainium.foundry\n\n# comment\nfind chip\n  where bogus > 1\n");
  EXPECT_EQ(placed.code, 1);
  EXPECT_TRUE(Contains(placed.err, "line 5, column ")) << placed.err;
  EXPECT_TRUE(Contains(placed.err, "bogus")) << placed.err;
  // A line ending in a word a statement cannot end with (where, and, a comma, ...) goes on on the next.
  Output split = Chipkg(Db({}),
                        "count chip where\n  memory > 80 GB and\n  designer = Amazon\n"
                        "find chip where memory > 80 GB show memory,\n  tdp\nhelp\n");
  EXPECT_EQ(split.code, 0) << split.err;
  EXPECT_TRUE(Contains(split.out, "count: 1")) << split.out;
  EXPECT_TRUE(Contains(split.out, "96 GB [")) << split.out;
  EXPECT_TRUE(Contains(split.out, "  500 W [")) << split.out;  // the tdp column, named on the next line
  // A line that opens with a word no statement starts with (a clause, and/or, where) goes on with the
  // statement before it, across a comment; a blank line ends it. The first line ran alone before, and
  // the clause failed as a statement of its own.
  Output laid_out = Chipkg(Db({}),
                           "find chip where memory > 20 GB\n  order by memory desc\n  # the largest\n  limit 1\n"
                           "count chip where memory > 20 GB\n\nand designer = Amazon\n");
  EXPECT_EQ(laid_out.code, 1);
  Output one_line = Chipkg(Db({}), "find chip where memory > 20 GB order by memory desc limit 1\n"
                                   "count chip where memory > 20 GB\n");
  ASSERT_EQ(one_line.code, 0) << one_line.err;
  EXPECT_TRUE(Contains(one_line.out, "1 row\n")) << one_line.out;
  EXPECT_EQ(laid_out.out, one_line.out);
  EXPECT_TRUE(Contains(laid_out.err, "line 7, column 1: expected a query")) << laid_out.err;
  // The shell's --tolerance and --format, as the README's command lines carry them, hold in a script
  // for their statement alone (they were read as part of the entity or attribute).
  Output flags = Chipkg(Db({}), "describe trainium --tolerance 5%\ntrace trainium.memory --format csv\nformat\n");
  ASSERT_EQ(flags.code, 0) << flags.err;
  EXPECT_TRUE(Contains(flags.out, "AWS Trainium  (chip:aws-trainium, chip)")) << flags.out;
  EXPECT_TRUE(Contains(flags.out, "\nrole,citation,value,")) << flags.out;
  EXPECT_TRUE(Contains(flags.out, "\nformat text\n")) << flags.out;
  Output bad_format = Chipkg(Db({}), "trace trainium.memory --format yaml\n");
  EXPECT_EQ(bad_format.code, 1);
  EXPECT_TRUE(Contains(bad_format.err, "line 1: unknown format 'yaml'")) << bad_format.err;
  // Curly quotes, as names pasted from documents come: a '#' or an apostrophe inside is the name's own.
  Output curly = Chipkg(Db({}),
                        "describe \xE2\x80\x9C" "AWS Trainium 2\xE2\x80\x9D # the second generation\n"
                        "trace trainium2.fits(\xE2\x80\x9C" "Llama 3.1 70B\xE2\x80\x9D, int8)\n"
                        "find chip where memory_type = \xE2\x80\x9C" "Amazon\xE2\x80\x99s #1\xE2\x80\x9D\n"
                        "count chip where designer = Amazon\n");
  EXPECT_EQ(curly.code, 0) << curly.err;
  EXPECT_TRUE(Contains(curly.out, "AWS Trainium 2  (chip:aws-trainium2, chip)")) << curly.out;
  EXPECT_TRUE(Contains(curly.out, "70 GB <= 96 GB")) << curly.out;
  EXPECT_TRUE(Contains(curly.out, "count: ")) << curly.out;  // not swallowed by an open quote
  // A quote or parenthesis left open ends at a blank line, as any statement does: it took every
  // statement after it along, and a cron script lost them (exit 1 the only sign).
  Output stray_quote = Chipkg(Db({}), "find chip where name contains \"abc\n\ncount chip where (memory > 1 GB\n\n"
                                      "trainium.tdp\n");
  EXPECT_EQ(stray_quote.code, 1);
  EXPECT_TRUE(Contains(stray_quote.err, "line 1, column 35: unterminated string")) << stray_quote.err;
  EXPECT_TRUE(Contains(stray_quote.err, "line 3, column 32: expected ')'")) << stray_quote.err;
  EXPECT_TRUE(Contains(stray_quote.out, "AWS Trainium  500 W [")) << stray_quote.out;
  Output unfinished = Chipkg(Db({}), "trainium.foundry\ntrace trainium2.fits(\"Llama\n");
  EXPECT_NE(unfinished.code, 0);
  EXPECT_TRUE(Contains(unfinished.err, "line 2: input ended inside an unfinished statement (an open parenthesis or quote)"))
      << unfinished.err;
  Output wanting = Chipkg(Db({}), "trainium.foundry\ncount chip where memory > 1 GB and\n");
  EXPECT_TRUE(Contains(wanting.err, "line 2: input ended inside an unfinished statement (its last line ends in a word"))
      << wanting.err;

  // A stray quote early in a script: the statement it opens is given up once
  // it passes the size a statement may have (here at its 1,024th line of 64
  // bytes), naming its line, and the statements after that run. It used to
  // swallow the whole script and echo all of it in one error.
  std::string script = "describe \"Trainium\n";
  for (int i = 0; i < 1024; ++i) script += std::string(63, 'a') + "\n";
  script += "describe Trainium2\n";
  Output stray = Chipkg(Db({}), script);
  EXPECT_EQ(stray.code, 1);
  EXPECT_TRUE(Contains(stray.err, "line 1: a statement longer than 65536 bytes (a quote or parenthesis opened in it "
                                  "is never closed), left out: describe \"Trainium aaaa"))
      << stray.err.substr(0, 2000);
  EXPECT_LT(stray.err.size(), 2000u) << "the error echoes the whole statement";
  EXPECT_TRUE(Contains(stray.out, "AWS Trainium 2  (chip:aws-trainium2, chip)")) << stray.out.substr(0, 2000);
}

TEST_F(ToolsTest, QueryExitCodes) {
  Output good = Chipkg(Db({"query", "find chip where memory >= 64 GB"}));
  EXPECT_EQ(good.code, 0) << good.err;
  EXPECT_TRUE(Contains(good.out, "Trainium 2")) << good.out;
  Output bad = Chipkg(Db({"query", "find chip where (((("}));
  EXPECT_NE(bad.code, 0);
  EXPECT_TRUE(Contains(bad.err, "error")) << bad.err;
  Output empty = Chipkg(Db({"query"}));
  EXPECT_EQ(empty.code, 2);
  Output json = Chipkg(Db({"query", "trainium2.memory_bandwidth", "--format", "json"}));
  EXPECT_EQ(json.code, 0) << json.err;
  EXPECT_FALSE(nlohmann::json::parse(json.out, nullptr, false).is_discarded()) << json.out;
  EXPECT_FALSE(Contains(good.err, "chipkg timings")) << good.err;
}

// A one-shot query writes its answer to standard output as it renders it:
// byte for byte what the REPL prints for the same statement, in every
// format. An answer that cannot be written is a failure, said on stderr.
TEST_F(ToolsTest, OneShotAnswersAreTheReplsAndAFailedWriteIsAnError) {
  const std::string q = "find chip show memory, foundry, tdp";
  for (const char* format : {"text", "json", "csv"}) {
    SCOPED_TRACE(format);
    Output shot = Chipkg(Db({"query", q, "--format", format}));
    ASSERT_EQ(shot.code, 0) << shot.err;
    // The setting's acknowledgement goes to stderr: the script's output is the answer alone.
    const std::string header = std::string("format ") + format + "\n";
    Output script = Chipkg(Db({}), header + q + "\n");
    ASSERT_EQ(script.code, 0) << script.err;
    EXPECT_TRUE(Contains(script.err, header)) << script.err;
    EXPECT_TRUE(shot.out == script.out);
    EXPECT_GT(shot.out.size(), 10000u);
  }
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const int code = ExitCodeInChild({"query", q, "--format", "json", "--db", g_sandbox->store()},
                                   g_sandbox->root() / "full.err", [] {
                                     const int full = open("/dev/full", O_WRONLY);
                                     return full >= 0 && dup2(full, 1) == 1;
                                   });
  EXPECT_EQ(code, 1);
  EXPECT_TRUE(Contains(ReadFile((g_sandbox->root() / "full.err").string()), "could not write the answer"));
}

// Every command's output, not only a query's answer: `stats` that a monitor
// runs, `help`, and statements piped to the REPL fail when standard output
// cannot be written (a full disk), instead of exiting 0 with nothing written.
TEST_F(ToolsTest, OutputThatCannotBeWrittenFailsEveryCommand) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const fs::path script = g_sandbox->root() / "count.chipkg";
  { std::ofstream(script) << "count chip\n"; }
  const std::vector<std::vector<std::string>> commands = {
      Db({"stats"}), Db({"stats", "--format", "json"}), {"help"}, Db({})};
  for (const auto& args : commands) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const fs::path err = g_sandbox->root() / "full-command.err";
    const int code = ExitCodeInChild(args, err, [&] {
      const int full = open("/dev/full", O_WRONLY);
      const int in = open(script.c_str(), O_RDONLY);
      return full >= 0 && in >= 0 && dup2(full, 1) == 1 && dup2(in, 0) == 0;
    });
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(Contains(ReadFile(err), "could not write")) << ReadFile(err);
  }
}

// `chipkg export | chipkg --db NEW import -` copies a store through a pipe,
// exactly; a broken stream on standard input is named as such and leaves no store.
TEST_F(ToolsTest, ImportReadsStandardInput) {
  Output exported = Chipkg(Db({"export"}));
  ASSERT_EQ(exported.code, 0) << exported.err;
  ASSERT_GT(exported.out.size(), 100000u);
  const std::string copy = (g_sandbox->root() / "copy-from-stdin").string();
  Output imported = Chipkg({"import", "-", "--db", copy}, exported.out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  Output again = Chipkg({"export", "--db", copy});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, exported.out);

  // A number the store cannot hold is refused with its line, not cut to fit
  // (a document_version of 2^32 + 1 was stored as 1).
  std::string too_large = exported.out;
  const size_t at = too_large.find("\"document_version\":1");
  ASSERT_NE(at, std::string::npos);
  too_large.replace(at, std::string("\"document_version\":1").size(), "\"document_version\":4294967297");
  Output wrapped = Chipkg({"import", "-", "--db", (g_sandbox->root() / "too-large").string()}, too_large);
  EXPECT_EQ(wrapped.code, 1) << wrapped.err;
  EXPECT_TRUE(Contains(wrapped.err, "document_version 4294967297 is not a whole number from 0 to 4294967295"))
      << wrapped.err;

  const std::string broken = (g_sandbox->root() / "broken-from-stdin").string();
  Output cut = Chipkg({"import", "-", "--db", broken}, exported.out.substr(0, exported.out.size() / 2) + "{\"type\":");
  EXPECT_EQ(cut.code, 1);
  EXPECT_TRUE(Contains(cut.err, "standard input")) << cut.err;
  EXPECT_FALSE(fs::exists(fs::path(broken) / "CURRENT"));
}

// `chipkg export FILE` replaces FILE only with a whole export: one that fails
// part-way (here the file-size limit, as a full disk would) leaves the
// previous file, often the last backup, as it was, and no partial file.
TEST_F(ToolsTest, AFailedExportLeavesTheFileItWouldReplace) {
  const fs::path dir = g_sandbox->root() / "exports";
  fs::create_directories(dir);
  const fs::path backup = dir / "backup.jsonl";
  Output whole = Chipkg(Db({"export", backup.string()}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string previous = ReadFile(backup);
  ASSERT_GT(previous.size(), 100000u);

  // The limit's signal left as it is by default: chipkg ignores it, and the
  // write past the limit fails with EFBIG (it killed the process unannounced).
  const int code = ExitCodeInChild({"export", backup.string(), "--db", g_sandbox->store()}, dir / "limited.err", [] {
    signal(SIGXFSZ, SIG_DFL);
    const rlimit limit{64 * 1024, 64 * 1024};
    return setrlimit(RLIMIT_FSIZE, &limit) == 0;
  });
  EXPECT_EQ(code, 1);
  const std::string err = ReadFile(dir / "limited.err");
  EXPECT_TRUE(Contains(err, "exporting to " + backup.string() + " (left as it was)")) << err;
  EXPECT_TRUE(Contains(err, "failed: File too large")) << err;  // the system's reason, as a full disk gives its own
  EXPECT_TRUE(ReadFile(backup) == previous) << "the previous export was damaged by a failed one";
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_TRUE(e.path() == backup || e.path().filename() == "limited.err") << "left behind: " << e.path();
  }

  Output again = Chipkg(Db({"export", backup.string()}));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(ReadFile(backup) == previous);
  Output extra = Chipkg(Db({"export", backup.string(), "second"}));
  EXPECT_EQ(extra.code, 2);
  EXPECT_TRUE(Contains(extra.err, "unexpected argument 'second'")) << extra.err;
  Output stats = Chipkg(Db({"stats", "extra"}));
  EXPECT_EQ(stats.code, 2);
  EXPECT_TRUE(Contains(stats.err, "unexpected argument 'extra'")) << stats.err;
  Output empty_path = Chipkg(Db({"export", ""}));
  EXPECT_EQ(empty_path.code, 2);
  EXPECT_TRUE(Contains(empty_path.err, "argument 2 (the one after 'export') is empty (an unset shell variable?)"))
      << empty_path.err;
  // Read as no argument, an empty one widened a command to the whole store.
  for (const char* command : {"verify", "conflicts", "attributes", "describe"}) {
    Output empty = Chipkg(Db({command, " "}));
    EXPECT_EQ(empty.code, 2) << command;
    EXPECT_TRUE(Contains(empty.err, "argument 2 (the one after '" + std::string(command) + "') is empty"))
        << command << ": " << empty.err;
    EXPECT_TRUE(empty.out.empty()) << command << ": " << empty.out;
  }
}

// An export named into the store's own directory is refused before anything
// is written: renamed over CURRENT (or a table file) it left a store that no
// command could open, with exit 0.
TEST_F(ToolsTest, AnExportIntoTheStoreItselfIsRefused) {
  const std::string store = (g_sandbox->root() / "export-over-itself").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  ASSERT_EQ(Chipkg({"ingest", seed, "--db", store}).code, 0);
  const std::string current = ReadFile(fs::path(store) / "CURRENT");
  for (const std::string& target : {store + "/CURRENT", store + "/", store + "/sub/../backup.jsonl"}) {
    Output refused = Chipkg({"export", target, "--db", store + "/"});
    EXPECT_EQ(refused.code, 2) << target << ": " << refused.err;
    EXPECT_TRUE(Contains(refused.err, "is inside the store")) << refused.err;
  }
  EXPECT_EQ(ReadFile(fs::path(store) / "CURRENT"), current);
  EXPECT_FALSE(fs::exists(fs::path(store) / "backup.jsonl"));
  Output stats = Chipkg({"stats", "--db", store});
  EXPECT_EQ(stats.code, 0) << stats.err;
  // Salvage refuses an empty path before any work.
  Output salvage = Chipkg({"salvage", "", "--db", store});
  EXPECT_EQ(salvage.code, 2) << salvage.err;
  EXPECT_TRUE(Contains(salvage.err, "argument 2 (the one after 'salvage') is empty")) << salvage.err;
}

// A damaged store makes writers fail (exit 1), as it does readers: exit 2 is
// for usage, and a cron monitor that took it so looked at the crontab. A
// CURRENT that names a MANIFEST not there is called damage, not a missing path.
TEST_F(ToolsTest, ADamagedStoreFailsWritersAsItFailsReaders) {
  const std::string store = (g_sandbox->root() / "current-names-nothing").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  ASSERT_EQ(Chipkg({"ingest", seed, "--db", store}).code, 0);
  { std::ofstream(fs::path(store) / "CURRENT", std::ios::trunc) << "MANIFEST-999999\n"; }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"stats"}, {"ingest", seed}, {"retire", "seed-000-aws-trainium"}, {"query", "trainium.tdp"}}) {
    std::vector<std::string> with_db = args;
    with_db.insert(with_db.end(), {"--db", store});
    Output failed = Chipkg(with_db);
    EXPECT_EQ(failed.code, 1) << args[0] << ": " << failed.err;
    EXPECT_TRUE(Contains(failed.err, "its CURRENT names MANIFEST-999999")) << failed.err;
    EXPECT_TRUE(Contains(failed.err, "the store is damaged")) << failed.err;
  }
}

// Two first starts on one empty store (a cron job and a user on a fresh
// machine): the one that does not fill waits for the other's fill, instead
// of answering from an empty store "no source says anything".
TEST_F(ToolsTest, AFirstStartWaitsForAnotherThatIsFillingTheStore) {
  const std::string store = (g_sandbox->root() / "filled-by-another").string();
  auto writer = chipkg::Store::Open(store);  // created empty and held, as a first start filling it holds it
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  std::thread other([&writer] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    chipkg::Document doc;
    doc.id = "written-by-the-other";
    doc.url = "other.txt";
    EXPECT_TRUE((*writer)->PutDocument(doc).ok());
    writer->reset();
  });
  Output waited = Chipkg({"--db", store}, "sources\n");
  other.join();
  EXPECT_EQ(waited.code, 0) << waited.err;
  EXPECT_TRUE(Contains(waited.err, "another chipkg process is writing to it")) << waited.err;
  EXPECT_TRUE(Contains(waited.err, "waiting for it to finish filling the store ... done")) << waited.err;
  EXPECT_TRUE(Contains(waited.out, "written-by-the-other")) << waited.out;

  // A script whose first fill did not get every source in runs none of its
  // statements (exit 1): its answers would say "no source" where one does.
  const fs::path datasets = g_sandbox->root() / "datasets-with-a-missing-file";
  fs::create_directories(datasets / "seeds");
  fs::copy_file(std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt",
                datasets / "seeds" / "000.txt");
  std::ofstream(datasets / "manifest.json")
      << R"([{"id": "seed-000", "location": "seeds/000.txt", "kind": "press"},
             {"id": "seed-001", "location": "seeds/not-there.txt", "kind": "press"}])";
  const std::string unfilled = (g_sandbox->root() / "fill-failed").string();
  setenv("CHIPKG_DATASETS", datasets.c_str(), 1);
  Output failed = Chipkg({"--db", unfilled}, "trainium.tdp\n");
  unsetenv("CHIPKG_DATASETS");
  EXPECT_EQ(failed.code, 1) << failed.err;
  EXPECT_TRUE(Contains(failed.err, "the statements were not run")) << failed.err;
  EXPECT_TRUE(failed.out.empty()) << failed.out;
}

// `chipkg export LINK` replaces the file the link names and keeps the link;
// a FIFO (or a device) is written into, not replaced by a file; a directory
// is refused.
TEST_F(ToolsTest, ExportFollowsLinksAndWritesIntoFifos) {
  const fs::path dir = g_sandbox->root() / "export-targets";
  fs::create_directories(dir);
  const fs::path backup = dir / "backup.jsonl";
  Output whole = Chipkg(Db({"export", backup.string()}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string exported = ReadFile(backup);
  ASSERT_GT(exported.size(), 100000u);

  { std::ofstream(backup, std::ios::binary | std::ios::trunc) << "old backup"; }
  const fs::path link = dir / "latest.jsonl";
  fs::create_symlink(backup.filename(), link);
  Output via_link = Chipkg(Db({"export", link.string()}));
  ASSERT_EQ(via_link.code, 0) << via_link.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << "the link was replaced by a file";
  EXPECT_TRUE(ReadFile(backup) == exported) << "the file the link names was not replaced";

  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string read_back;
  std::thread reader([&] { read_back = ReadFile(fifo); });
  Output into_fifo = Chipkg(Db({"export", fifo.string()}));
  reader.join();
  EXPECT_EQ(into_fifo.code, 0) << into_fifo.err;
  EXPECT_TRUE(fs::is_fifo(fs::status(fifo))) << "the FIFO was replaced by a file";
  EXPECT_TRUE(read_back == exported);

  Output into_dir = Chipkg(Db({"export", dir.string()}));
  EXPECT_EQ(into_dir.code, 1);
  EXPECT_TRUE(Contains(into_dir.err, "it is a directory")) << into_dir.err;
}

// An export of a chipkg with another schema is imported as it is (a copy is a copy), but what this
// schema cannot read is said, since no query finds it: a predicate it does not define, values of
// another form than the definition's, an entity kind it does not define. `check` lists them beside
// its verdict (the store is not damaged).
TEST_F(ToolsTest, ImportAndCheckSayWhatTheSchemaCannotRead) {
  Output exported = Chipkg(Db({"export"}));
  ASSERT_EQ(exported.code, 0) << exported.err;
  std::string other = exported.out;
  auto replace_first = [&](const std::string& from, const std::string& to) {
    const size_t at = other.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    other.replace(at, from.size(), to);
  };
  replace_first("\"predicate\":\"architecture\"", "\"predicate\":\"colour\"");
  replace_first("\"dimension\":\"parameters\"", "\"dimension\":\"seconds\"");
  replace_first("\"kind\":\"chip\"", "\"kind\":\"gpu\"");
  replace_first("\"predicate\":\"launch_price\",\"value\":{\"kind\":\"not_published\"",
                "\"predicate\":\"secret_sauce\",\"value\":{\"kind\":\"not_published\"");
  ASSERT_FALSE(HasFatalFailure());
  const std::string copy = (g_sandbox->root() / "copy-of-another-schema").string();
  Output imported = Chipkg({"import", "-", "--db", copy}, other);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_TRUE(Contains(imported.err, "warning: the store holds what this chipkg's schema does not describe (queries "
                                     "cannot ask for them, or read them as what the schema describes; chipkg check "
                                     "lists it):"))
      << imported.err;
  EXPECT_TRUE(Contains(imported.err, "  - predicate 'secret_sauce' is not in the schema: 1 live fact")) << imported.err;
  EXPECT_TRUE(Contains(imported.err, "  - predicate 'colour' is not in the schema: 1 live fact (the first about "))
      << imported.err;
  EXPECT_TRUE(Contains(imported.err, "  - parameters: 1 live fact holds quantities of seconds, where the schema's "
                                     "values are quantities of parameters (the first about "))
      << imported.err;
  EXPECT_TRUE(Contains(imported.err, "  - entity kind 'gpu' is not in the schema: 1 entity (")) << imported.err;

  Output checked = Chipkg({"check", "--db", copy});
  EXPECT_EQ(checked.code, 0) << checked.err;
  EXPECT_TRUE(Contains(checked.out, "result             sound: no damage found")) << checked.out;
  EXPECT_TRUE(Contains(checked.out, "schema             4 things this chipkg's schema does not describe (queries "
                                    "cannot ask for them, or read them as what the schema describes):\n  - predicate "
                                    "'colour'"))
      << checked.out;
  Output json = Chipkg({"check", "--db", copy, "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json mismatches = nlohmann::json::parse(json.out)["schema_mismatches"];
  ASSERT_EQ(mismatches.size(), 4u) << json.out;
  EXPECT_EQ(mismatches[1]["what"], "value_form") << json.out;
  EXPECT_EQ(mismatches[1]["predicate"], "parameters") << json.out;
  EXPECT_EQ(mismatches[1]["dimension"], "seconds") << json.out;
  EXPECT_EQ(mismatches[1]["schema_dimension"], "parameters") << json.out;
  EXPECT_EQ(mismatches[1]["live_facts"], 1) << json.out;
  EXPECT_EQ(mismatches[3]["what"], "unknown_entity_kind") << json.out;
  EXPECT_EQ(mismatches[3]["kind"], "gpu") << json.out;

  // Without a schema to hold it against, the check says so, and does not say it agrees.
  const fs::path no_schema = g_sandbox->root() / "no-such-schema";
  const fs::path unchecked_out = g_sandbox->root() / "unchecked.out";
  const int unchecked = ExitCodeInChild({"check", "--db", copy, "--format", "json"}, g_sandbox->root() / "unchecked.err",
                                        [&] {
                                          const int fd = open(unchecked_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
                                          return fd >= 0 && dup2(fd, 1) == 1 &&
                                                 setenv("CHIPKG_SCHEMA_DIR", no_schema.c_str(), 1) == 0;
                                        });
  EXPECT_EQ(unchecked, 0);
  const nlohmann::json uj = nlohmann::json::parse(ReadFile(unchecked_out));
  EXPECT_TRUE(uj["schema_mismatches"].is_null()) << uj.dump();
  EXPECT_TRUE(uj.contains("schema_error")) << uj.dump();

  Output same = Chipkg({"import", "-", "--db", (g_sandbox->root() / "copy-of-this-schema").string()}, exported.out);
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_FALSE(Contains(same.err, "warning")) << same.err;
}

// `chipkg check` is what a monitor runs: exit 0 only for a store read whole
// and found sound, and one JSON shape whatever went wrong (`stats` reads only
// the counters and passes a store whose table blocks are damaged).
TEST_F(ToolsTest, CheckReadsTheWholeStoreAndSaysWhetherItIsSound) {
  Output sound = Chipkg(Db({"check"}));
  ASSERT_EQ(sound.code, 0) << sound.out << sound.err;
  EXPECT_TRUE(Contains(sound.out, "result             sound: no damage found")) << sound.out;
  EXPECT_TRUE(Contains(sound.out, "schema             every live fact's predicate and value, and every entity's kind, "
                                  "are this chipkg's schema's"))
      << sound.out;
  Output stats = Chipkg(Db({"stats", "--format", "json"}));
  ASSERT_EQ(stats.code, 0) << stats.err;
  Output json = Chipkg(Db({"check", "--format", "json"}));
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j["sound"].get<bool>());
  EXPECT_EQ(j["facts"], nlohmann::json::parse(stats.out)["facts"]);
  EXPECT_EQ(j["problem_count"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["schema_mismatches"], nlohmann::json::array());

  // A copy with one data block damaged: it opens, `stats` passes it, `check` does not.
  const fs::path copy = g_sandbox->root() / "check-copy";
  fs::copy(g_sandbox->store(), copy, fs::copy_options::recursive);
  fs::path largest;
  for (const auto& e : fs::directory_iterator(copy)) {
    if (e.path().extension() == ".sst" && (largest.empty() || e.file_size() > fs::file_size(largest))) largest = e.path();
  }
  ASSERT_FALSE(largest.empty());
  {
    std::fstream f(largest, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x5a');
    f.seekp(41);
    f.put('\xa5');
  }
  Output damaged_stats = Chipkg({"stats", "--db", copy.string()});
  EXPECT_EQ(damaged_stats.code, 0) << damaged_stats.err;
  Output damaged = Chipkg({"check", "--db", copy.string()});
  EXPECT_EQ(damaged.code, 1) << damaged.out << damaged.err;
  EXPECT_TRUE(Contains(damaged.out, "DAMAGED")) << damaged.out;
  EXPECT_TRUE(Contains(damaged.out, largest.filename().string())) << damaged.out;
  EXPECT_TRUE(Contains(damaged.err, "is damaged")) << damaged.err;
  Output damaged_json = Chipkg({"check", "--db", copy.string(), "--format", "json"});
  EXPECT_EQ(damaged_json.code, 1);
  const nlohmann::json dj = nlohmann::json::parse(damaged_json.out);
  EXPECT_FALSE(dj["sound"].get<bool>());
  EXPECT_TRUE(dj["opened"].get<bool>());
  EXPECT_GT(dj["problem_count"].get<uint64_t>(), 0u);
  EXPECT_TRUE(dj["schema_mismatches"].is_null()) << "a damaged store is not held against the schema";

  // Every table file damaged: the store does not open, and each damaged file is named.
  const fs::path wrecked = g_sandbox->root() / "check-wrecked";
  fs::copy(g_sandbox->store(), wrecked, fs::copy_options::recursive);
  size_t tables = 0;
  for (const auto& e : fs::directory_iterator(wrecked)) {
    if (e.path().extension() != ".sst") continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (size_t i = 0; i < bytes.size(); i += 7) bytes[i] = static_cast<char>(~bytes[i]);
    f.seekp(0);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ++tables;
  }
  Output unopened = Chipkg({"check", "--db", wrecked.string(), "--format", "json"});
  EXPECT_EQ(unopened.code, 1) << unopened.err;
  const nlohmann::json uj = nlohmann::json::parse(unopened.out);
  EXPECT_FALSE(uj["opened"].get<bool>());
  EXPECT_EQ(uj["damaged_table_files"].size(), tables) << unopened.out;
  fs::remove_all(wrecked);
  // A store path that is not UTF-8 still gets JSON (it aborted the process).
  const fs::path odd = g_sandbox->root() / "store-\xff";
  fs::copy(g_sandbox->store(), odd, fs::copy_options::recursive);
  Output odd_json = Chipkg({"check", "--db", odd.string(), "--format", "json"});
  EXPECT_EQ(odd_json.code, 0) << odd_json.err;
  EXPECT_FALSE(nlohmann::json::parse(odd_json.out, nullptr, false).is_discarded()) << odd_json.out;
  fs::remove_all(odd);

  Output missing = Chipkg({"check", "--db", (g_sandbox->root() / "no-such-store").string(), "--format", "json"});
  EXPECT_EQ(missing.code, 1);
  const nlohmann::json mj = nlohmann::json::parse(missing.out);
  EXPECT_FALSE(mj["sound"].get<bool>());
  EXPECT_FALSE(mj["opened"].get<bool>());
  EXPECT_TRUE(Contains(mj["error"].get<std::string>(), "no store at")) << missing.out;
  EXPECT_FALSE(fs::exists(g_sandbox->root() / "no-such-store"));
  fs::remove_all(copy);
}

// 30 documents of 40 facts each, written by a process that ended without a
// flush, then one byte of the log flipped halfway. With `flush_facts`, the
// facts column family alone was flushed to a table file after all 30 writes
// (as a large ingest fills one column family's memory first), so RocksDB
// will not read the log up to the damage.
void MakeStoreWithADamagedLog(const fs::path& damaged, bool flush_facts) {
  {
    auto created = chipkg::Store::Open(damaged.string());
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto store = chipkg::Store::Open(damaged.string());
    if (!store.ok()) _exit(101);
    for (int d = 0; d < 30; ++d) {
      chipkg::Document doc;
      doc.id = "doc-" + std::to_string(d);
      doc.url = "https://example.com/" + doc.id;
      doc.kind = "press";
      chipkg::DocumentVersion version;
      version.fetched_at = 1700000000;
      std::vector<chipkg::Fact> facts;
      for (int c = 0; c < 40; ++c) {
        chipkg::Fact f;
        f.subject = "chip:c" + std::to_string(c);
        f.predicate = "memory";
        const std::string line = "chip " + std::to_string(c) + " has " + std::to_string(c + d + 1) + " GB";
        f.value = chipkg::Value::Quantity((c + d + 1) * 1e9, "bytes", std::to_string(c + d + 1) + " GB");
        f.provenance.document_id = doc.id;
        f.provenance.span_begin = static_cast<uint32_t>(version.text.size());
        version.text += line;
        f.provenance.span_end = static_cast<uint32_t>(version.text.size());
        f.provenance.excerpt = line;
        version.text += "\n";
        facts.push_back(std::move(f));
      }
      if (!(*store)->WriteDocumentVersion(doc, version, facts, "run-" + std::to_string(d)).ok()) _exit(102);
    }
    _exit(0);  // as a crash: every write in the log, none flushed
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  if (flush_facts) {
    rocksdb::DBOptions options;
    options.avoid_flush_during_recovery = true;  // the log stays the only copy of the rest
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, damaged.string(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& n : names) cfs.emplace_back(n, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, damaged.string(), cfs, &handles, &db).ok());
    for (auto* h : handles) {
      if (h->GetName() == "facts") {
        EXPECT_TRUE(db->Flush(rocksdb::FlushOptions(), h).ok());
      }
    }
    for (auto* h : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    delete db;
  }
  fs::path log;
  for (const auto& e : fs::directory_iterator(damaged)) {
    if (e.path().extension() == ".log" && (log.empty() || e.file_size() > fs::file_size(log))) log = e.path();
  }
  ASSERT_FALSE(log.empty());
  const auto size = static_cast<std::streamoff>(fs::file_size(log));
  std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(size / 2);
  const char c = static_cast<char>(f.get() ^ 0xff);
  f.seekp(size / 2);
  f.put(c);
}

std::map<std::string, uintmax_t> FilesIn(const fs::path& dir) {
  std::map<std::string, uintmax_t> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = e.file_size();
  return files;
}

// The largest table file of a store's column family `cf` (empty if none).
fs::path LargestTableOf(const fs::path& store, const std::string& cf) {
  std::vector<std::string> names;
  if (!rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), store.string(), &names).ok()) return {};
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const auto& n : names) cfs.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  if (!rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), store.string(), cfs, &handles, &db).ok()) return {};
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  fs::path largest;
  uint64_t size = 0;
  for (const auto& f : files) {
    if (f.column_family_name == cf && f.size > size) {
      size = f.size;
      largest = store / fs::path(f.name).filename();
    }
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  delete db;
  return largest;
}

// A store that opens but holds a damaged table block (a flipped byte on
// disk) is salvaged around the block: its export stopped at the block, so
// one bad block of provenance made 99% of a store impossible to copy out.
TEST_F(ToolsTest, SalvageCopiesAStoreAroundADamagedTableBlock) {
  const fs::path damaged = g_sandbox->root() / "block-damaged";
  fs::copy(g_sandbox->store(), damaged, fs::copy_options::recursive);
  const fs::path table = LargestTableOf(damaged, "prov");
  ASSERT_FALSE(table.empty());
  chipkg::test_support::FlipBytesInTheMiddle(table);
  Output checked = Chipkg({"check", "--format", "json", "--db", damaged.string()});
  EXPECT_EQ(checked.code, 1);
  EXPECT_LT(nlohmann::json::parse(checked.out)["problem_count"].get<uint64_t>(), 200u) << checked.out;
  const fs::path into = g_sandbox->root() / "block-salvaged";
  Output salvaged = Chipkg({"salvage", into.string(), "--db", damaged.string()});
  ASSERT_EQ(salvaged.code, 0) << salvaged.out << salvaged.err;
  EXPECT_TRUE(Contains(salvaged.out, "table blocks of it are damaged: what reads is copied around them")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out, "left out, as they cannot be read")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out, "chipkg check: sound")) << salvaged.out;
  Output stats = Chipkg({"stats", "--format", "json", "--db", into.string()});
  ASSERT_EQ(stats.code, 0) << stats.err;
  Output original = Chipkg(Db({"stats", "--format", "json"}));
  const uint64_t kept = nlohmann::json::parse(stats.out)["facts"].get<uint64_t>();
  const uint64_t all = nlohmann::json::parse(original.out)["facts"].get<uint64_t>();
  EXPECT_LT(kept, all);
  EXPECT_GT(kept, all * 9 / 10);
  fs::remove_all(damaged);
  fs::remove_all(into);
}

// A store whose write-ahead log is damaged before its end is refused by every
// command, which names `chipkg salvage`; salvage copies the store as it was
// before the damage into a new store, says what was lost, and leaves the
// damaged store's files as they were.
TEST_F(ToolsTest, SalvageCopiesAStoreWithADamagedLogUpToTheDamage) {
  const fs::path damaged = g_sandbox->root() / "wal-damaged";
  MakeStoreWithADamagedLog(damaged, /*flush_facts=*/false);
  ASSERT_FALSE(HasFatalFailure());
  const auto before = FilesIn(damaged);

  Output query = Chipkg({"query", "find chip", "--db", damaged.string()});
  EXPECT_EQ(query.code, 1);
  EXPECT_TRUE(Contains(query.err, "salvage NEWDIR")) << query.err;
  const fs::path into = g_sandbox->root() / "salvaged";
  Output itself = Chipkg({"salvage", damaged.string(), "--db", damaged.string()});
  EXPECT_EQ(itself.code, 2) << itself.err;
  Output sound_store = Chipkg(Db({"salvage", into.string()}));
  EXPECT_EQ(sound_store.code, 1);
  EXPECT_TRUE(Contains(sound_store.err, "opens as it is and its table files read whole: there is nothing to salvage"))
      << sound_store.err;
  EXPECT_FALSE(fs::exists(into));

  Output inside = Chipkg({"salvage", (damaged / "copy").string(), "--db", damaged.string()});
  EXPECT_EQ(inside.code, 2) << inside.err;
  EXPECT_TRUE(Contains(inside.err, "it is inside the damaged store")) << inside.err;
  // What a salvage killed mid-way left beside NEWDIR goes with the next one.
  const std::string gone = std::to_string(AGonePid());
  const fs::path left_dir = g_sandbox->root() / ("salvaged.salvage-" + gone + ".store");
  fs::create_directories(left_dir);
  std::ofstream(left_dir / "000001.sst") << "left";
  std::ofstream(g_sandbox->root() / ("salvaged.salvage-" + gone)) << "{}";
  // "NEWDIR/", as a shell completes it, names NEWDIR.
  Output salvaged = Chipkg({"salvage", into.string() + "/", "--db", damaged.string()});
  ASSERT_EQ(salvaged.code, 0) << salvaged.out << salvaged.err;
  EXPECT_TRUE(Contains(salvaged.err, "chipkg salvage: removed " + left_dir.string() +
                                         ", left by a salvage that did not finish (process " + gone + " is gone)"))
      << salvaged.err;
  EXPECT_TRUE(Contains(salvaged.out, "its last write before the damage")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out, "every write from the damage on:\n  tx ")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out.substr(salvaged.out.find("lost:")), " document doc-")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out, "chipkg check: sound")) << salvaged.out;
  EXPECT_EQ(FilesIn(damaged), before) << "the damaged store was changed";
  for (const auto& e : fs::directory_iterator(g_sandbox->root())) {
    EXPECT_EQ(e.path().filename().string().find("salvaged.salvage-"), std::string::npos) << e.path();
  }
  Output check = Chipkg({"check", "--db", into.string(), "--format", "json"});
  ASSERT_EQ(check.code, 0) << check.out << check.err;
  const nlohmann::json j = nlohmann::json::parse(check.out);
  const uint64_t documents = j["documents"].get<uint64_t>();
  EXPECT_GT(documents, 0u);
  EXPECT_LT(documents, 30u);  // the damage halfway costs the writes after it
  EXPECT_EQ(j["facts"].get<uint64_t>(), documents * 40);
  Output again = Chipkg({"salvage", into.string(), "--db", damaged.string()});
  EXPECT_EQ(again.code, 2);
  EXPECT_TRUE(Contains(again.err, "exists and is not an empty directory")) << again.err;
  fs::remove_all(damaged);
  fs::remove_all(into);
}

// When a table file holds writes from after the damage, RocksDB will not read
// the log up to it; salvage then reads a copy whose log keeps every write
// that reads whole, on both sides of the damage, leaves out what names a lost
// write (facts whose provenance was only in it, versions after a lost one),
// says so, and leaves no scratch files behind.
TEST_F(ToolsTest, SalvageReadsAroundTheDamageWhenATableWasFlushedPastIt) {
  const fs::path damaged = g_sandbox->root() / "wal-damaged-flushed";
  MakeStoreWithADamagedLog(damaged, /*flush_facts=*/true);
  ASSERT_FALSE(HasFatalFailure());
  const auto before = FilesIn(damaged);
  const fs::path into = g_sandbox->root() / "salvaged-flushed";
  Output salvaged = Chipkg({"salvage", into.string(), "--db", damaged.string()});
  ASSERT_EQ(salvaged.code, 0) << salvaged.out << salvaged.err;
  EXPECT_TRUE(Contains(salvaged.out, "read from a copy whose log keeps only the writes that read whole")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out, "left out, as they cannot be read or name what was lost")) << salvaged.out;
  EXPECT_TRUE(Contains(salvaged.out, "chipkg check: sound")) << salvaged.out;
  EXPECT_EQ(FilesIn(damaged), before) << "the damaged store was changed";
  for (const auto& e : fs::directory_iterator(g_sandbox->root())) {
    EXPECT_EQ(e.path().filename().string().find("salvaged-flushed.salvage-"), std::string::npos) << e.path();
  }
  Output check = Chipkg({"check", "--db", into.string(), "--format", "json"});
  ASSERT_EQ(check.code, 0) << check.out << check.err;
  const nlohmann::json j = nlohmann::json::parse(check.out);
  // The writes after the damage are kept: reading up to it ends near the 15th.
  EXPECT_GT(j["documents"].get<uint64_t>(), 25u);
  EXPECT_LT(j["documents"].get<uint64_t>(), 30u);
  EXPECT_EQ(j["facts"].get<uint64_t>(), j["documents"].get<uint64_t>() * 40);
  Output last = Chipkg({"query", "facts from document \"doc-29\"", "--db", into.string()});
  EXPECT_EQ(last.code, 0) << last.err;
  EXPECT_TRUE(Contains(last.out, "chip 39 has 69 GB")) << last.out;
  fs::remove_all(damaged);
  fs::remove_all(into);
}

// `stats --format json` is what a cron job or a monitor reads; the text form
// is for people; CSV is refused rather than ignored.
TEST_F(ToolsTest, StatsForPeopleAndForScripts) {
  Output text = Chipkg(Db({"stats"}));
  ASSERT_EQ(text.code, 0) << text.err;
  Output json = Chipkg(Db({"stats", "--format", "json"}));
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["store"].get<std::string>(), g_sandbox->store());
  EXPECT_GT(j["facts"].get<uint64_t>(), 1000u);
  EXPECT_EQ(j["live_facts"].get<uint64_t>() + j["retracted_facts"].get<uint64_t>(), j["facts"].get<uint64_t>());
  EXPECT_GT(j["documents"].get<uint64_t>(), 0u);
  EXPECT_GT(j["last_tx"].get<uint64_t>(), 0u);
  EXPECT_TRUE(Contains(text.out, "facts              " + std::to_string(j["facts"].get<uint64_t>()))) << text.out;
  EXPECT_TRUE(j["opened"].get<bool>());
  // A store that will not open still gives the monitor an object to parse.
  const fs::path missing = fs::temp_directory_path() / ("chipkg-stats-missing-" + std::to_string(::getpid()));
  Output none = Chipkg({"stats", "--format", "json", "--db", missing.string()});
  EXPECT_EQ(none.code, 1) << none.err;
  const nlohmann::json n = nlohmann::json::parse(none.out);
  EXPECT_FALSE(n["opened"].get<bool>());
  EXPECT_TRUE(Contains(n["error"].get<std::string>(), "no chipkg store")) << none.out;
  EXPECT_FALSE(fs::exists(missing));
  Output csv = Chipkg(Db({"stats", "--format", "csv"}));
  EXPECT_EQ(csv.code, 2);
  EXPECT_TRUE(Contains(csv.err, "stats prints --format text or json")) << csv.err;
  Output negative = Chipkg(Db({"conflicts", "--tolerance", "-5%"}));
  EXPECT_EQ(negative.code, 2) << negative.err;
  EXPECT_TRUE(Contains(negative.err, "is negative")) << negative.err;
  Output huge = Chipkg(Db({"conflicts", "--tolerance", "2000%"}));
  EXPECT_EQ(huge.code, 2) << huge.err;
  EXPECT_TRUE(Contains(huge.err, "tolerance '2000%' is over 1000%")) << huge.err;
  Output bare = Chipkg(Db({"conflicts", "--tolerance", "10"}));
  EXPECT_EQ(bare.code, 2) << bare.err;
  EXPECT_TRUE(Contains(bare.err, "tolerance '10' has no '%': write 10% (a number without '%' is a fraction")) << bare.err;
  // Decimal figures only, as a query's `tolerance` reads them (strtod read "0x10%" as 16%).
  for (const char* odd : {"0x10%", "1e-320%", "1e3%", "5%%", ".%"}) {
    Output refused = Chipkg(Db({"conflicts", "trainium", "--tolerance", odd}));
    EXPECT_EQ(refused.code, 2) << odd << ": " << refused.out;
    EXPECT_TRUE(Contains(refused.err, "is not a percentage")) << odd << ": " << refused.err;
  }
  Output absurd = Chipkg(Db({"conflicts", "--tolerance", "5000"}));
  EXPECT_EQ(absurd.code, 2) << absurd.err;
  EXPECT_FALSE(Contains(absurd.err, "write 5000%")) << absurd.err;  // which would be refused next
  Output fraction = Chipkg(Db({"conflicts", "trainium", "--tolerance", "0.1"}));
  EXPECT_EQ(fraction.code, 0) << fraction.err;
  EXPECT_FALSE(Contains(fraction.out, "32 GB vs 32 GiB")) << fraction.out;  // 7.4% is within 10%
  Output mismatches = Chipkg(Db({"verify", "--mismatches"}));
  EXPECT_EQ(mismatches.code, 0) << mismatches.err;
  EXPECT_TRUE(Contains(mismatches.out, "(the confirmed ones not listed)")) << mismatches.out;
  EXPECT_FALSE(Contains(mismatches.out, "  ok  ")) << mismatches.out;
  EXPECT_TRUE(Contains(mismatches.out, "  BAD ")) << mismatches.out;  // Epoch's own TPP mismatches
  Output misplaced = Chipkg(Db({"describe", "trainium", "--mismatches"}));
  EXPECT_EQ(misplaced.code, 2);
  EXPECT_TRUE(Contains(misplaced.err, "--mismatches is not an option of describe: it is an option of verify"))
      << misplaced.err;
  Output ignored = Chipkg(Db({"matches", "--tolerance", "5%"}));
  EXPECT_EQ(ignored.code, 2);
  EXPECT_TRUE(Contains(ignored.err, "--tolerance is not an option of matches: it is an option of conflicts, describe, "
                                    "repl, trace and verify (matches takes --format)"))
      << ignored.err;
  // Every command refuses what it does not read, writers and store commands too:
  // an export asked for as at a point was the whole store as it is now.
  const std::string elsewhere = (g_sandbox->root() / "not-written.jsonl").string();
  Output dated_export = Chipkg(Db({"export", "--as-at", "tx 5", elsewhere}));
  EXPECT_EQ(dated_export.code, 2);
  EXPECT_TRUE(Contains(dated_export.err, "--as-at is not an option of export: it is an option of conflicts, describe, "
                                         "source, sources, trace and verify (export takes none but --db)"))
      << dated_export.err;
  EXPECT_FALSE(std::filesystem::exists(elsewhere));
  for (const std::vector<std::string>& wrong : std::vector<std::vector<std::string>>{
           {"stats", "--as-at", "tx 5"}, {"export", "--format", "csv"}, {"ingest", "--tolerance", "5%", "x.txt"},
           {"query", "--timeout", "5", "trainium.tdp"}, {"retire", "--quiet", "nothing"}}) {
    Output refused = Chipkg(Db(wrong));
    EXPECT_EQ(refused.code, 2) << wrong[0] << ": " << refused.err;
    EXPECT_TRUE(Contains(refused.err, " is not an option of " + wrong[0])) << refused.err;
  }
  Output described = Chipkg(Db({"describe", "trainium", "--tolerance", "10%"}));
  EXPECT_EQ(described.code, 0) << described.err;
  EXPECT_FALSE(Contains(described.out, "32 GB vs 32 GiB: 7.4%")) << described.out;  // within 10%
  // What a source cites is listed with each URL whole (cut at 200 bytes it was no URL), the rest counted.
  Output cited = Chipkg(Db({"describe", "trainium2"}));
  EXPECT_EQ(cited.code, 0) << cited.err;
  EXPECT_TRUE(Contains(cited.out, "cites https://semianalysis.com/2024/12/03/amazons-ai-self-sufficiency-trainium2-"
                                  "architecture-networking/ and 1 more;"))
      << cited.out;
}

// A --db that is not a store says which of the things it is (a damaged
// store or another directory, a file, nothing given), and the REPL does not
// try to fill such a directory with the bundled datasets.
TEST_F(ToolsTest, ADbThatIsNotAStoreSaysWhatItIs) {
  const fs::path other = g_sandbox->root() / "not-a-store";
  fs::create_directories(other);
  std::ofstream(other / "000042.sst") << "left over";
  for (const auto& args : std::vector<std::vector<std::string>>{{"stats"}, {"query", "find chip"}, {}}) {
    std::vector<std::string> a = args;
    a.push_back("--db");
    a.push_back(other.string());
    Output o = Chipkg(a, "sources\n");
    EXPECT_EQ(o.code, 1) << o.err;
    EXPECT_TRUE(Contains(o.err, other.string() + " is not a chipkg store")) << o.err;
    EXPECT_FALSE(Contains(o.err, "ingesting bundled datasets")) << o.err;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(other), fs::directory_iterator()), 1);
  // Another application's RocksDB (a CURRENT file: writers take the run lock
  // before the open) is refused by every writing command, and left as it was.
  const fs::path foreign = g_sandbox->root() / "foreign-rocksdb";
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, foreign.string(), &db).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "their key", "their value").ok());
    delete db;
  }
  auto listing = [&] {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(foreign)) names.insert(entry.path().filename().string());
    return names;
  };
  const std::set<std::string> before = listing();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"retire", "doc-x"}, {"reinstate", "doc-x"},
           {"ingest", "--manifest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json"}}) {
    std::vector<std::string> a = args;
    a.push_back("--db");
    a.push_back(foreign.string());
    Output o = Chipkg(a);
    EXPECT_NE(o.code, 0) << args[0];
    EXPECT_TRUE(Contains(o.err, "is not a chipkg store")) << args[0] << ": " << o.err;
    EXPECT_EQ(listing(), before) << args[0];
  }
  EXPECT_FALSE(fs::exists(foreign / "ingest.lock"));

  Output file = Chipkg({"stats", "--db", (other / "000042.sst").string()});
  EXPECT_EQ(file.code, 1);
  EXPECT_TRUE(Contains(file.err, "is a file, not a store directory")) << file.err;
  // An ingest says it as every other command does (it said "cannot create store directory", exit 2).
  Output ingest_file = Chipkg({"ingest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt",
                               "--db", (other / "000042.sst").string()});
  EXPECT_EQ(ingest_file.code, 1) << ingest_file.err;
  EXPECT_TRUE(Contains(ingest_file.err, "is a file, not a store directory")) << ingest_file.err;
  Output empty = Chipkg({"stats", "--db", ""});
  EXPECT_NE(empty.code, 0);
  EXPECT_TRUE(Contains(empty.err, "store path is empty") || Contains(empty.err, "--db")) << empty.err;
}

// A table file gone or cut short is named as that, by every command and by
// salvage, which cannot read around it: RocksDB named a ".ldb" file that was
// never there, and salvage blamed the store's log.
TEST_F(ToolsTest, ATableFileMissingOrCutShortIsNamed) {
  const fs::path copy = g_sandbox->root() / "missing-table";
  fs::copy(g_sandbox->store(), copy, fs::copy_options::recursive);
  fs::path smallest, largest;
  for (const auto& e : fs::directory_iterator(copy)) {
    if (e.path().extension() != ".sst") continue;
    if (smallest.empty() || e.file_size() < fs::file_size(smallest)) smallest = e.path();
    if (largest.empty() || e.file_size() > fs::file_size(largest)) largest = e.path();
  }
  ASSERT_FALSE(smallest.empty());
  ASSERT_NE(smallest, largest);
  fs::remove(smallest);
  const std::string gone = "table file " + smallest.filename().string() + " is missing";
  Output stats = Chipkg({"stats", "--db", copy.string()});
  EXPECT_EQ(stats.code, 1);
  EXPECT_TRUE(Contains(stats.err, "chipkg: " + gone + " (")) << stats.err;
  Output salvage = Chipkg({"salvage", (g_sandbox->root() / "missing-table-salvaged").string(), "--db", copy.string()});
  EXPECT_EQ(salvage.code, 1);
  EXPECT_TRUE(Contains(salvage.err, "nothing can be salvaged: " + gone + ", which salvage cannot read around"))
      << salvage.err;
  EXPECT_FALSE(Contains(salvage.err, "reading its log up to the damage failed")) << salvage.err;
  // A store that lost only CURRENT is a damaged store, not "not a chipkg store", for readers and writers.
  {
    const fs::path no_current = g_sandbox->root() / "no-current";
    fs::copy(g_sandbox->store(), no_current, fs::copy_options::recursive);
    fs::remove(no_current / "CURRENT");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"stats"}, {"ingest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt"}}) {
      std::vector<std::string> a = args;
      a.insert(a.end(), {"--db", no_current.string()});
      Output o = Chipkg(a);
      EXPECT_EQ(o.code, 1) << args[0] << ": " << o.err;
      EXPECT_TRUE(Contains(o.err, no_current.string() + " is a damaged store: its CURRENT file is missing, while "
                                                          "MANIFEST-"))
          << args[0] << ": " << o.err;
    }
    EXPECT_FALSE(fs::exists(no_current / "CURRENT"));
  }
  fs::copy_file(fs::path(g_sandbox->store()) / smallest.filename(), smallest);
  ASSERT_EQ(Chipkg({"stats", "--db", copy.string()}).code, 0);
  fs::resize_file(largest, fs::file_size(largest) / 2);
  Output cut = Chipkg({"stats", "--db", copy.string()});
  EXPECT_EQ(cut.code, 1);
  EXPECT_TRUE(Contains(cut.err, "chipkg: table file " + largest.filename().string() + " is cut short (")) << cut.err;
}

// At the REPL, or in a script, an option a fact-checker's statement does not
// take, or one given twice, is said to be that, as the shell says it: it was
// read as part of the entity ("no entity named 'trainium --bogus'").
TEST_F(ToolsTest, AStatementsUnknownOrRepeatedOptionIsSaid) {
  Output o = Chipkg(Db({}), "describe trainium --bogus\nconflicts trainium --tolerance 5% --tolerance 6%\n"
                            "verify --mismatches --mismatches\nsources --x\n"
                            "describe \"AWS Trainium\" --tolerance 5%\n");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_TRUE(Contains(o.err, "line 1: unknown option '--bogus' of describe")) << o.err;
  EXPECT_TRUE(Contains(o.err, "line 2: option '--tolerance' given twice, or one conflicts does not take")) << o.err;
  EXPECT_TRUE(Contains(o.err, "line 3: option '--mismatches' given twice")) << o.err;
  EXPECT_TRUE(Contains(o.err, "line 4: unknown option '--x' of sources")) << o.err;
  EXPECT_FALSE(Contains(o.err, "no entity named")) << o.err;
  EXPECT_FALSE(Contains(o.err, "line 5")) << o.err;  // taken once, it is the statement's
  EXPECT_TRUE(Contains(o.out, "AWS Trainium")) << o.out;
}

// A store directory this user may not read or list is said to be that: it
// was called no store, or a damaged one, and the user sent to restore it.
// (Run as root, the command runs as nobody: root reads everything.)
TEST_F(ToolsTest, AStoreThisUserMayNotReadIsSaidSo) {
  const fs::path copy = g_sandbox->root() / "unreadable";
  fs::copy(g_sandbox->store(), copy, fs::copy_options::recursive);
  const bool root = geteuid() == 0;
  struct stat sandbox {};
  ASSERT_EQ(stat(g_sandbox->root().c_str(), &sandbox), 0);
  if (root) chmod(g_sandbox->root().c_str(), 0711);  // nobody may pass through to the copy
  auto stats_as_another = [&] {
    const fs::path base = g_sandbox->root() / "unreadable-run";
    pid_t pid = fork();
    if (pid == 0) {
      PrepareChildEnvironment();
      int out = open((base.string() + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int err = open((base.string() + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out < 0 || err < 0) _exit(127);
      dup2(out, 1);
      dup2(err, 2);
      if (root && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
      std::vector<std::string> args = {CHIPKG_BINARY, "stats", "--db", copy.string()};
      auto argv = Argv(args);
      execv(argv[0], argv.data());
      _exit(127);
    }
    Output o;
    int status = 0;
    waitpid(pid, &status, 0);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = ReadFile(base.string() + ".out");
    o.err = ReadFile(base.string() + ".err");
    return o;
  };
  for (const mode_t mode : {root ? mode_t{0700} : mode_t{0000}, root ? mode_t{0711} : mode_t{0311}}) {
    ASSERT_EQ(chmod(copy.c_str(), mode), 0);
    Output o = stats_as_another();
    EXPECT_EQ(o.code, 1) << o.err;
    EXPECT_TRUE(Contains(o.err, "cannot read the store directory " + copy.string() + ": Permission denied"))
        << std::oct << mode << ": " << o.err;
    EXPECT_FALSE(Contains(o.err, "not a chipkg store")) << o.err;
  }
  chmod(copy.c_str(), 0755);
  chmod(g_sandbox->root().c_str(), sandbox.st_mode & 07777);
  EXPECT_EQ(Chipkg({"stats", "--db", copy.string()}).code, 0);
}

// A store whose document versions cannot be read (a table file's data blocks
// damaged after the open's checks, which read only its index and footer):
// the fact-checker's statements fail as a query does, naming the damage and
// what to do, where they used to say a version "is not stored" or its fetch
// time "unknown" and exit 0. Nothing of the store is written.
TEST_F(ToolsTest, FactCheckerStatementsReportADamagedStore) {
  const fs::path copy = g_sandbox->root() / "damaged-versions";
  fs::copy(g_sandbox->store(), copy, fs::copy_options::recursive);
  // The table file of the `versions` column family: RocksDB writes the
  // family's id (engine/codec.h kVersionsCf, 10) after the property name.
  fs::path versions;
  for (const auto& entry : fs::directory_iterator(copy)) {
    if (entry.path().extension() != ".sst") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = bytes.rfind("column.family.id");
    if (at != std::string::npos && at + 16 < bytes.size() && bytes[at + 16] == 10) versions = entry.path();
  }
  ASSERT_FALSE(versions.empty()) << "no table file of the versions column family in " << copy;
  {
    std::fstream f(versions, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (size_t i = 0; i < bytes.size() / 2; i += 997) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    f.seekp(0);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto listing = [&] {
    std::map<std::string, uintmax_t> files;
    for (const auto& entry : fs::directory_iterator(copy)) files[entry.path().filename().string()] = entry.file_size();
    return files;
  };
  const auto before = listing();
  const std::vector<std::vector<std::string>> statements = {
      {"trace", "trainium.memory"},    {"describe", "trainium2"},        {"conflicts", "trainium"},
      {"verify", "seed-003-aws-trainium2"}, {"history", "trainium.memory"}, {"query", "trainium.memory"}};
  for (std::vector<std::string> args : statements) {
    const std::string what = args[0];
    args.push_back("--db");
    args.push_back(copy.string());
    Output o = Chipkg(args);
    EXPECT_EQ(o.code, 1) << what << ": " << o.out.substr(0, 600);
    EXPECT_TRUE(Contains(o.err, "Corruption")) << what << ": " << o.err;
    EXPECT_TRUE(Contains(o.err, "the store is damaged: restore it from")) << what << ": " << o.err;
    EXPECT_TRUE(Contains(o.err, "('chipkg check' reads every file and names what is damaged)")) << what << ": " << o.err;
    EXPECT_FALSE(Contains(o.out, "is not stored")) << what << ": " << o.out.substr(0, 600);
  }
  Output check = Chipkg({"check", "--db", copy.string()});
  EXPECT_EQ(check.code, 1) << check.out;
  EXPECT_TRUE(Contains(check.out, versions.filename().string() + " (column family versions")) << check.out;
  EXPECT_EQ(listing(), before);
}

// A vendor page whose headline is written for people ("AMD Instinct(TM)
// MI325X Accelerator") is about the chip a dataset already holds: its figures
// join the dataset's, and where they differ the conflict shows. Taken whole,
// the headline made a chip of its own that no query about the MI325X found.
TEST_F(ToolsTest, APagesHeadlineNamesTheChipADatasetHolds) {
  const std::string store = (g_sandbox->root() / "headline-join").string();
  Output dataset = Chipkg({"ingest", std::string(CHIPKG_SOURCE_DIR) + "/datasets/epoch_ml_hardware/ml_hardware.csv",
                           "--dataset", "epoch-ml-hardware", "--id", "epoch", "--db", store, "--quiet"});
  ASSERT_EQ(dataset.code, 0) << dataset.err;
  const std::string page = (g_sandbox->root() / "mi325x.txt").string();
  {
    std::ofstream out(page);
    out << "AMD Instinct(TM) MI325X Accelerator\n\n"
           "The MI325X was announced with 288 GB of HBM3E memory and 6 TB/s of memory bandwidth, far more "
           "than the 80 GB of Nvidia's H100.\n";
  }
  Output ingest = Chipkg({"ingest", page, "--id", "mi325x-page", "--kind", "vendor", "--db", store});
  ASSERT_EQ(ingest.code, 0) << ingest.err;
  EXPECT_FALSE(Contains(ingest.err, "new entity")) << ingest.err;
  Output facts = Chipkg({"query", "facts about \"AMD Instinct MI325X\"", "--db", store});
  ASSERT_EQ(facts.code, 0) << facts.err;
  EXPECT_TRUE(Contains(facts.out, "288 GB")) << facts.out;
  EXPECT_TRUE(Contains(facts.out, "6 TB/s")) << facts.out;
  EXPECT_FALSE(Contains(facts.out, "80 GB")) << facts.out;
  EXPECT_TRUE(Contains(facts.out, "epoch")) << facts.out;
  Output conflicts = Chipkg({"query", "conflicts about \"AMD Instinct MI325X\"", "--db", store});
  ASSERT_EQ(conflicts.code, 0) << conflicts.err;
  EXPECT_TRUE(Contains(conflicts.out, "288 GB")) << conflicts.out;
  EXPECT_TRUE(Contains(conflicts.out, "memory")) << conflicts.out;

  // A page names a chip without the dataset's brand words ("Intel Habana
  // Gaudi2"): the match is made, and kept for review.
  const std::string gaudi = (g_sandbox->root() / "gaudi.txt").string();
  {
    std::ofstream out(gaudi);
    out << "Intel Gaudi 2 at a glance\n\nThe Gaudi 2 carries 128 GB of HBM2E memory.\n";
  }
  Output second = Chipkg({"ingest", gaudi, "--id", "gaudi-page", "--kind", "press", "--db", store});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_FALSE(Contains(second.err, "new entity")) << second.err;
  Output gaudi_conflicts = Chipkg({"query", "conflicts about \"Intel Habana Gaudi2\"", "--db", store});
  ASSERT_EQ(gaudi_conflicts.code, 0) << gaudi_conflicts.err;
  EXPECT_TRUE(Contains(gaudi_conflicts.out, "128 GB")) << gaudi_conflicts.out;
  EXPECT_TRUE(Contains(gaudi_conflicts.out, "96 GB")) << gaudi_conflicts.out;
  Output matches = Chipkg({"matches", "--db", store});
  ASSERT_EQ(matches.code, 0) << matches.err;
  EXPECT_TRUE(Contains(matches.out, "\"Intel Gaudi 2\"")) << matches.out;
  EXPECT_TRUE(Contains(matches.out, "dropped leading words of 'Intel Habana Gaudi2'")) << matches.out;
}

// A page ingested again under a second id is named at ingest; `retire`
// withdraws the copy's claims (whole names only), and history keeps them.
TEST_F(ToolsTest, ACopyIngestedTwiceIsNamedAndCanBeRetired) {
  const std::string store = (g_sandbox->root() / "retire").string();
  const std::string seed = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/000_de7815fa348ea8df.txt";
  const std::string copy = (g_sandbox->root() / "retire-copy.txt").string();
  fs::copy_file(seed, copy, fs::copy_options::overwrite_existing);
  Output first = Chipkg({"ingest", seed, "--id", "catalog", "--db", store});
  ASSERT_EQ(first.code, 0) << first.err;
  // A copy refused (here over --max-facts) is not stored: nothing counts twice, and nothing says so.
  Output refused = Chipkg({"ingest", copy, "--id", "catalog-copy", "--max-facts", "5", "--db", store});
  EXPECT_EQ(refused.code, 1) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "nothing stored from it")) << refused.err;
  EXPECT_FALSE(Contains(refused.err, "the same text as")) << refused.err;
  Output second = Chipkg({"ingest", copy, "--id", "catalog-copy", "--quiet", "--db", store});  // said even so
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_TRUE(Contains(second.err, "the same text as catalog version 1, already stored")) << second.err;
  auto cited = [&] {
    Output q = Chipkg({"query", "trainium.memory", "--format", "json", "--db", store});
    EXPECT_EQ(q.code, 0) << q.err;
    return nlohmann::json::parse(q.out)["citations"].size();
  };
  const size_t twice = cited();

  Output part = Chipkg({"retire", "copy", "--db", store});
  EXPECT_EQ(part.code, 2);
  EXPECT_TRUE(Contains(part.err, "'copy' is only part of catalog-copy: retire takes a document's whole id")) << part.err;
  Output unknown = Chipkg({"retire", "no-such-document", "--db", store});
  EXPECT_EQ(unknown.code, 1);  // as source's: a failure, not a usage slip
  EXPECT_EQ(Chipkg({"source", "no-such-document", "--db", store}).code, 1);
  Output several = Chipkg({"retire", "atalog", "--db", store});  // part of both ids: a usage slip, as for source
  EXPECT_EQ(several.code, 2) << several.err;
  EXPECT_EQ(Chipkg({"source", "atalog", "--db", store}).code, 2);
  EXPECT_TRUE(Contains(unknown.err, "no document 'no-such-document'")) << unknown.err;
  // A URL or a title two documents share names neither: the copy's and the original's are the same.
  Output shared = Chipkg({"retire", "AWS Trainium (Trn1)", "--db", store});
  EXPECT_EQ(shared.code, 2);
  EXPECT_TRUE(Contains(shared.err, "is the URL or title of 2 documents (catalog, catalog-copy): retire one by its id"))
      << shared.err;
  Output nowhere = Chipkg({"retire", "catalog", "--db", (g_sandbox->root() / "retire-nowhere").string()});
  EXPECT_EQ(nowhere.code, 2);
  EXPECT_TRUE(Contains(nowhere.err, "no store at ")) << nowhere.err;
  EXPECT_FALSE(fs::exists(g_sandbox->root() / "retire-nowhere"));
  // A reader on a path with no store says how to fill one, naming the bundled datasets.
  Output unfilled = Chipkg({"stats", "--db", (g_sandbox->root() / "stats-nowhere").string()});
  EXPECT_EQ(unfilled.code, 1);
  EXPECT_TRUE(Contains(unfilled.err, "fills it from the bundled datasets on its first start")) << unfilled.err;
  EXPECT_TRUE(Contains(unfilled.err, "ingest --manifest " + std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json"))
      << unfilled.err;
  EXPECT_EQ(cited(), twice);  // none of them wrote anything

  Output retired = Chipkg({"retire", "catalog-copy", "--db", store});
  ASSERT_EQ(retired.code, 0) << retired.err;
  EXPECT_TRUE(Contains(retired.err, ": catalog-copy: ")) << retired.err;
  EXPECT_TRUE(Contains(retired.err, " claims withdrawn (tx ")) << retired.err;
  EXPECT_EQ(cited() * 2, twice);  // each claim was cited from both documents
  Output history = Chipkg({"history", "trainium.memory", "--db", store});
  EXPECT_EQ(history.code, 0) << history.err;
  EXPECT_TRUE(Contains(history.out, "retracted")) << history.out;
  Output source = Chipkg({"source", "catalog-copy", "--db", store});
  EXPECT_EQ(source.code, 0) << source.err;
  EXPECT_TRUE(Contains(source.out, "retired by tx ")) << source.out;
  EXPECT_TRUE(Contains(source.out, ": no claim standing (")) << source.out;
  Output again = Chipkg({"retire", "catalog-copy", "--db", store});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(Contains(again.err, "catalog-copy was retired by tx ")) << again.err;
  EXPECT_TRUE(Contains(again.err, " already: nothing written")) << again.err;

  // The copy changes: stored as its version 2, its claims not asserted, and said so.
  {
    std::ofstream(copy, std::ios::app) << "\nTDP: 450 W\n";
  }
  Output changed = Chipkg({"ingest", copy, "--id", "catalog-copy", "--quiet", "--db", store});  // said even so
  ASSERT_EQ(changed.code, 0) << changed.err;
  EXPECT_TRUE(Contains(changed.err, ": retired by tx ")) << changed.err;
  EXPECT_TRUE(Contains(changed.err, "the new version is stored without its ")) << changed.err;
  EXPECT_TRUE(Contains(changed.err, "'chipkg reinstate catalog-copy'")) << changed.err;
  EXPECT_EQ(cited() * 2, twice);
  Output sources = Chipkg({"sources", "--format", "json", "--db", store});
  ASSERT_EQ(sources.code, 0) << sources.err;
  const nlohmann::json listed = nlohmann::json::parse(sources.out);
  for (const auto& s : listed["sources"]) {
    EXPECT_EQ(s["retired_tx"].is_null(), s["id"] != "catalog-copy") << s.dump();
  }

  // As it stood before the retirement, the copy was a source.
  const std::string retired_at = retired.err.substr(retired.err.find("(tx ") + 4);
  const std::string before_tx = std::to_string(std::stoull(retired_at) - 1);
  Output then = Chipkg({"source", "catalog-copy", "--as-at", "tx " + before_tx, "--db", store});
  ASSERT_EQ(then.code, 0) << then.err;
  EXPECT_FALSE(Contains(then.out, "retired")) << then.out;
  EXPECT_TRUE(Contains(then.out, " facts standing (")) << then.out;

  Output not_retired = Chipkg({"reinstate", "catalog", "--db", store});
  EXPECT_EQ(not_retired.code, 0) << not_retired.err;
  EXPECT_TRUE(Contains(not_retired.err, "catalog is not retired: nothing written")) << not_retired.err;
  Output part_back = Chipkg({"reinstate", "copy", "--db", store});
  EXPECT_EQ(part_back.code, 2);
  EXPECT_TRUE(Contains(part_back.err, "reinstate takes a document's whole id")) << part_back.err;
  Output back = Chipkg({"reinstate", "catalog-copy", "--db", store});
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_TRUE(Contains(back.err, ": catalog-copy: version 2 read again, ")) << back.err;
  EXPECT_TRUE(Contains(back.err, " claims asserted (tx ")) << back.err;
  EXPECT_EQ(cited(), twice);
  // Reinstated now, but retired as the store stood between the two (the
  // record's mark is gone; the log says it), and not before.
  const std::string between_tx = std::to_string(std::stoull(retired_at));
  Output between = Chipkg({"source", "catalog-copy", "--as-at", "tx " + between_tx, "--db", store});
  ASSERT_EQ(between.code, 0) << between.err;
  EXPECT_TRUE(Contains(between.out, "retired by tx " + between_tx + ": no claim standing (")) << between.out;
  Output listed_between =
      Chipkg({"sources", "--format", "json", "--as-at", "tx " + between_tx, "--db", store});
  ASSERT_EQ(listed_between.code, 0) << listed_between.err;
  const nlohmann::json then_listed = nlohmann::json::parse(listed_between.out);
  ASSERT_TRUE(then_listed.contains("sources")) << listed_between.out;
  ASSERT_GE(then_listed["sources"].size(), 2u) << listed_between.out;
  bool copy_listed = false;
  for (const auto& s : then_listed["sources"]) {
    if (s["id"] == "catalog-copy") {
      copy_listed = true;
      EXPECT_EQ(s["retired_tx"], std::stoull(between_tx)) << s.dump();
    } else {
      EXPECT_TRUE(s["retired_tx"].is_null()) << s.dump();
    }
  }
  EXPECT_TRUE(copy_listed) << listed_between.out;
  Output now = Chipkg({"source", "catalog-copy", "--db", store});
  ASSERT_EQ(now.code, 0) << now.err;
  EXPECT_FALSE(Contains(now.out, "retired")) << now.out;
  Output before_again = Chipkg({"source", "catalog-copy", "--as-at", "tx " + before_tx, "--db", store});
  ASSERT_EQ(before_again.code, 0) << before_again.err;
  EXPECT_FALSE(Contains(before_again.out, "retired")) << before_again.out;
}

// A kind new to the store and a letter from one it has is named at ingest
// (even with --quiet): stored as given, it would rank as a kind of its own.
// A new kind near none is not.
TEST_F(ToolsTest, AKindNearAKnownOneIsNamedAtIngest) {
  const std::string store = (g_sandbox->root() / "kinds").string();
  const std::string seeds = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/";
  Output typo = Chipkg({"ingest", seeds + "000_de7815fa348ea8df.txt", "--kind", "vendr", "--quiet", "--db", store});
  ASSERT_EQ(typo.code, 0) << typo.err;
  EXPECT_TRUE(Contains(typo.err, "kind 'vendr' is new to this store (did you mean 'vendor'?)")) << typo.err;
  Output blog = Chipkg({"ingest", seeds + "001_fbc9a4a76c8d550e.txt", "--kind", "blog", "--db", store});
  ASSERT_EQ(blog.code, 0) << blog.err;
  EXPECT_FALSE(Contains(blog.err, "is new to this store")) << blog.err;
  // Near a kind the store has: "blgo" is a letter swap from the stored "blog".
  Output near = Chipkg({"ingest", seeds + "003_d5e7e28472882ec2.txt", "--kind", "blgo", "--db", store});
  ASSERT_EQ(near.code, 0) << near.err;
  EXPECT_TRUE(Contains(near.err, "kind 'blgo' is new to this store (did you mean 'blog'?)")) << near.err;
}

// A one-shot reader ends without closing its store (nothing to save), but
// with its whole answer written and no file left in TMPDIR, on success and
// on a failed statement alike.
TEST_F(ToolsTest, AOneShotReaderLeavesNothingBehind) {
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                                    ("chipkg-tmpdir-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir != nullptr ? old_tmpdir : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  Output json = Chipkg(Db({"query", "find chip where memory >= 1 GB with evidence", "--format", "json"}));
  Output bad = Chipkg(Db({"query", "find chip where memory >= 1 parsecs"}));
  if (old_tmpdir != nullptr) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_EQ(json.code, 0) << json.err;
  const nlohmann::json answer = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << "output cut short: " << json.out.substr(json.out.size() > 200 ? json.out.size() - 200 : 0);
  EXPECT_FALSE(answer["rows"].empty());
  EXPECT_FALSE(answer["citations"].empty());
  EXPECT_NE(bad.code, 0);
  EXPECT_FALSE(bad.err.empty());
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(tmp)) left.push_back(entry.path().filename().string());
  EXPECT_TRUE(left.empty()) << "left in TMPDIR: " << (left.empty() ? "" : left.front());
  std::filesystem::remove_all(tmp);
}

TEST_F(ToolsTest, TimingsOfAOneShotCommandOnRequest) {
  setenv("CHIPKG_TIMINGS", "1", 1);
  Output timed = Chipkg(Db({"query", "find chip where memory >= 64 GB"}));
  unsetenv("CHIPKG_TIMINGS");
  EXPECT_EQ(timed.code, 0) << timed.err;
  EXPECT_TRUE(Contains(timed.out, "Trainium 2")) << timed.out;
  EXPECT_FALSE(Contains(timed.out, "timings")) << "timings belong on stderr: " << timed.out;
  for (const char* phase : {"chipkg timings: schema ", ", open ", ", statement ", " (parse and bind ", ", candidates ",
                            ", citations "}) {
    EXPECT_TRUE(Contains(timed.err, phase)) << phase << " missing from: " << timed.err;
  }
  setenv("CHIPKG_TIMINGS", "0", 1);
  Output off = Chipkg(Db({"query", "find chip where memory >= 64 GB"}));
  unsetenv("CHIPKG_TIMINGS");
  EXPECT_EQ(off.code, 0) << off.err;
  EXPECT_FALSE(Contains(off.err, "chipkg timings")) << off.err;
}

TEST_F(ToolsTest, TraceShowsBothPagesForTrainiumMemoryBandwidth) {
  Output o = Chipkg(Db({"trace", "Trainium.memory_bandwidth"}));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(Contains(o.out, "seeds/000_de7815fa348ea8df.txt")) << o.out;
  EXPECT_TRUE(Contains(o.out, "seeds/001_fbc9a4a76c8d550e.txt")) << o.out;
  EXPECT_TRUE(Contains(o.out,
                       "\xC2\xBB"
                       "820 GB/s"
                       "\xC2\xAB"))
      << o.out;  // the excerpt, in context
  EXPECT_TRUE(Contains(o.out, "excerpt matches the stored text")) << o.out;
  EXPECT_FALSE(Contains(o.out, "differs from the recorded excerpt")) << o.out;
  Output csv = Chipkg(Db({"trace", "Trainium.memory_bandwidth", "--format", "csv"}));
  EXPECT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out.rfind("role,citation,value", 0), 0u) << csv.out;
}

TEST_F(ToolsTest, VerifyConfirmsTheSeedsOwnArithmetic) {
  Output o = Chipkg(Db({}),
                    "verify seed-000-aws-trainium\n"
                    "verify seed-003-aws-trainium2\n"
                    "verify seed-001-amazon-trainium\n");
  ASSERT_EQ(o.code, 0) << o.err;
  size_t clean = 0;
  for (size_t at = 0; (at = o.out.find(" 0 mismatched, 0 unverifiable", at)) != std::string::npos; ++at)
    clean++;
  EXPECT_EQ(clean, 3u) << o.out;
  EXPECT_TRUE(Contains(o.out, "ok  AWS Trainium \xC2\xB7 perf_per_watt {format=bf16}: stated 0.42 TFLOPS/W"))
      << o.out;
  EXPECT_TRUE(Contains(o.out, "ok  AWS Trainium 2 \xC2\xB7 perf_per_watt {format=fp8}: stated 2.6")) << o.out;
  EXPECT_TRUE(Contains(o.out, "ok  AWS Trainium \xC2\xB7 models_fitting {format=fp16}: stated 2")) << o.out;
  EXPECT_TRUE(Contains(o.out, "ok  AWS Trainium 2 \xC2\xB7 models_fitting {format=int4}: stated 9")) << o.out;
  EXPECT_TRUE(Contains(o.out, "price_per_chip_hour {term=capacity block}: stated $0.596")) << o.out;
}

// The query language's conflicts forms typed at the REPL are queries, not the command's ENTITY.
TEST_F(ToolsTest, TheReplRunsTheQueryLanguagesConflictsForms) {
  Output o = Chipkg(Db({}), "conflicts in chip tolerance 0%\nconflicts about Trainium ignoring not_published\n");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(Contains(o.err, "no entity named")) << o.err;
  EXPECT_TRUE(Contains(o.out, "other value")) << o.out;  // the query's columns
  EXPECT_TRUE(Contains(o.out, "32 GB")) << o.out;
  EXPECT_TRUE(Contains(o.out, "Annapurna Labs")) << o.out;
}

TEST_F(ToolsTest, ConflictsListTrainiumsDisagreements) {
  Output o = Chipkg(Db({}), "conflicts Trainium\ntolerance 10%\ntolerance\nconflicts Trainium\n");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(Contains(o.err, "tolerance 10%\n")) << o.err;  // setting it, acknowledged on stderr
  size_t split = o.out.find("tolerance 10%\n");       // asking for it, answered
  ASSERT_NE(split, std::string::npos) << o.out;
  std::string strict = o.out.substr(0, split), loose = o.out.substr(split);
  EXPECT_TRUE(Contains(strict, "TSMC vs not published")) << strict;
  EXPECT_TRUE(Contains(strict, "TSMC N7 vs not published")) << strict;
  EXPECT_TRUE(Contains(strict, "32 GB vs 32 GiB: 7.4%")) << strict;
  EXPECT_TRUE(Contains(strict, "likely a per-server/instance figure")) << strict;
  // A wide tolerance keeps the 7.4% memory difference out, not the foundry.
  EXPECT_FALSE(Contains(loose, "32 GB vs 32 GiB")) << loose;
  EXPECT_TRUE(Contains(loose, "TSMC vs not published")) << loose;
  Output bad = Chipkg(Db({"conflicts", "--tolerance", "lots"}));
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(Contains(bad.err, "not a percentage")) << bad.err;
}

// The fact-checker's statements read the store as it was at a point in
// transaction time (`--as-at`, as a query's `as at`): what chipkg said of a
// page before a later ingest changed it, with no later retraction shown.
TEST_F(ToolsTest, FactCheckerStatementsReadTheStoreAsItWas) {
  const std::string store = (g_sandbox->root() / "as-at").string();
  const std::string page = (g_sandbox->root() / "as-at-page.txt").string();
  std::string text;
  {
    std::ifstream in(std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds/001_fbc9a4a76c8d550e.txt", std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_TRUE(Contains(text, "820 GB/s"));
  auto write_page = [&](const std::string& body) { std::ofstream(page, std::ios::binary) << body; };
  write_page(text);
  Output one = Chipkg({"ingest", page, "--id", "trn-page", "--db", store});
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string said = one.out + one.err;
  const size_t run_at = said.find("run-");
  ASSERT_NE(run_at, std::string::npos) << said;
  const std::string first_run = said.substr(run_at, said.find(':', run_at) - run_at);
  std::string edited = text;
  for (size_t at; (at = edited.find("820 GB/s")) != std::string::npos;) edited.replace(at, 8, "900 GB/s");
  write_page(edited);
  Output two = Chipkg({"ingest", page, "--id", "trn-page", "--db", store});
  ASSERT_EQ(two.code, 0) << two.err;

  Output now = Chipkg({"trace", "trainium.memory_bandwidth", "--db", store});
  ASSERT_EQ(now.code, 0) << now.err;
  EXPECT_TRUE(Contains(now.out, "900 GB/s")) << now.out;
  EXPECT_TRUE(Contains(now.out, "RETRACTED")) << now.out;
  Output then = Chipkg({"trace", "trainium.memory_bandwidth", "--as-at", "run", first_run, "--db", store});
  ASSERT_EQ(then.code, 0) << then.err;
  EXPECT_EQ(then.out.rfind("as at run " + first_run + " (tx ", 0), 0u) << then.out;
  // The page states it twice: in its prose ("32 GiB of HBM memory per chip at 820 GB/s") and its table.
  EXPECT_TRUE(Contains(then.out, "2 claims (2 standing)")) << then.out;
  EXPECT_TRUE(Contains(then.out, "820 GB/s")) << then.out;
  EXPECT_FALSE(Contains(then.out, "900 GB/s")) << then.out;
  EXPECT_FALSE(Contains(then.out, "RETRACTED")) << then.out;
  // It stood then, and the fact-checker is told it does not now.
  EXPECT_TRUE(Contains(then.out, "retracted   not yet (the claim then stood; retracted later, by tx ")) << then.out;
  {  // The CSV says so in its own column, after the provenance ones.
    const size_t at = then.out.find("retracted later, by tx ");
    const std::string later_tx = std::to_string(std::stoull(then.out.substr(at + 23)));
    Output csv = Chipkg({"trace", "trainium.memory_bandwidth", "--as-at", "run", first_run, "--format", "csv", "--db",
                         store});
    ASSERT_EQ(csv.code, 0) << csv.err;
    const size_t row = csv.out.find("\nclaim,");
    ASSERT_NE(row, std::string::npos) << csv.out;
    const std::string line = csv.out.substr(row + 1, csv.out.find('\n', row + 1) - row - 1);
    // retracted_later_by_tx, still_in_version, still_in_content_hash, then valid_as_of, note, formula.
    EXPECT_TRUE(line.ends_with("," + later_tx + ",,,,,")) << line;
  }
  EXPECT_FALSE(Contains(then.out, "no (the claim stands)")) << then.out;
  Output described = Chipkg({"describe", "trainium", "--as-at", "run " + first_run, "--db", store});
  ASSERT_EQ(described.code, 0) << described.err;
  EXPECT_TRUE(Contains(described.out, "820 GB/s")) << described.out;
  EXPECT_FALSE(Contains(described.out, "900 GB/s")) << described.out;
  EXPECT_FALSE(Contains(described.out, "(retracted)")) << described.out;
  Output source = Chipkg({"source", "trn-page", "--as-at", "run", first_run, "--db", store});
  ASSERT_EQ(source.code, 0) << source.err;
  EXPECT_TRUE(Contains(source.out, "820 GB/s")) << source.out;
  EXPECT_FALSE(Contains(source.out, "900 GB/s")) << source.out;
  EXPECT_FALSE(Contains(source.out, "version 2")) << source.out;
  // The same at the REPL, where the point in time follows the statement.
  Output repl = Chipkg({"--db", store}, "trace trainium.memory_bandwidth --as-at run " + first_run + "\n");
  ASSERT_EQ(repl.code, 0) << repl.err;
  EXPECT_TRUE(Contains(repl.out, "2 claims (2 standing)")) << repl.out;
  EXPECT_FALSE(Contains(repl.out, "900 GB/s")) << repl.out;
  // What names no point, or is given where it means nothing, is refused with why: a point the
  // store has no transaction for fails (1), as the same point written `as at` in a query does;
  // a point written wrongly is a usage error (2).
  Output no_run = Chipkg({"describe", "trainium", "--as-at", "run", "nightly", "--db", store});
  EXPECT_EQ(no_run.code, 1);
  EXPECT_EQ(Chipkg({"query", "trainium.memory as at run nightly", "--db", store}).code, 1);
  EXPECT_TRUE(Contains(no_run.err, "no ingest run 'nightly'")) << no_run.err;
  Output too_early = Chipkg({"describe", "trainium", "--as-at", "1999-01-01", "--db", store});
  EXPECT_EQ(too_early.code, 1);
  Output past_the_last = Chipkg({"trace", "trainium.memory", "--as-at", "tx 999999", "--db", store});
  EXPECT_EQ(past_the_last.code, 1);
  EXPECT_TRUE(Contains(past_the_last.err, "no transaction 999999: the store has transactions 1 to ")) << past_the_last.err;
  EXPECT_TRUE(Contains(too_early.err, "the store was empty at 1999-01-01")) << too_early.err;
  // An entity first stored later was not there (tx 1 stored Amazon, the schema's first entity): it was
  // described as one no source said anything about.
  Output unborn = Chipkg({"describe", "trainium", "--as-at", "tx 1", "--db", store});
  EXPECT_EQ(unborn.code, 1);
  EXPECT_TRUE(Contains(unborn.err, "AWS Trainium (chip:aws-trainium) was not stored yet at tx 1 (first stored by tx "))
      << unborn.err;
  Output unborn_trace = Chipkg({"trace", "trainium.memory", "--as-at", "tx 1", "--db", store});
  EXPECT_TRUE(Contains(unborn_trace.err, "was not stored yet at tx 1")) << unborn_trace.err;
  Output amazon = Chipkg({"describe", "amazon", "--as-at", "tx 1", "--db", store});
  EXPECT_EQ(amazon.code, 0) << amazon.err;
  // A date and a time of day apart, as `date` and SQL write them, are one point (the time was
  // read as part of the entity's name); a time with another offset than UTC's is refused.
  Output spaced = Chipkg({"describe", "trainium", "--as-at", "2999-01-01 00:00:00", "--db", store});
  ASSERT_EQ(spaced.code, 0) << spaced.err;
  EXPECT_EQ(spaced.out.rfind("as at 2999-01-01 00:00:00 (tx ", 0), 0u) << spaced.out;
  EXPECT_TRUE(Contains(spaced.out, "900 GB/s")) << spaced.out;
  // ... and so is "UTC" after it, as `date -u` prints it, and an hour of one digit.
  for (const std::string when : {"2999-01-01 00:00 UTC", "2999-01-01T00:00:00 utc", "2999-01-01 9:30"}) {
    Output zoned = Chipkg({"describe", "trainium", "--as-at", when, "--db", store});
    ASSERT_EQ(zoned.code, 0) << when << ": " << zoned.err;
    EXPECT_EQ(zoned.out.rfind("as at " + when + " (tx ", 0), 0u) << zoned.out;
  }
  Output offset = Chipkg({"describe", "trainium", "--as-at", "2999-01-01T00:00:00+02:00", "--db", store});
  EXPECT_EQ(offset.code, 2);
  EXPECT_TRUE(Contains(offset.err, "not a UTC time: 2999-01-01T00:00:00+02:00")) << offset.err;
  Output not_a_point = Chipkg({"verify", "--as-at", "yesterday", "--db", store});
  EXPECT_EQ(not_a_point.code, 2);
  EXPECT_TRUE(Contains(not_a_point.err, "'yesterday' is not a point in time")) << not_a_point.err;
  Output query = Chipkg({"query", "trainium.memory", "--as-at", "tx", "1", "--db", store});
  EXPECT_EQ(query.code, 2);
  EXPECT_TRUE(Contains(query.err, "a query says it itself: ... as at run RUN-ID")) << query.err;
  EXPECT_TRUE(Contains(query.err, "an option of conflicts, describe, source, sources, trace and verify")) << query.err;
  Output history = Chipkg({"--db", store}, "history trainium.memory_bandwidth --as-at tx 1\n");
  EXPECT_TRUE(Contains(history.err, "history lists every transaction")) << history.err;

  // A run that changed nothing has no transaction, but its printed id still
  // names a point: the store as it was when it ran. (In a second of its own:
  // one that a run that wrote shares has no point to name, as below.)
  std::this_thread::sleep_until(std::chrono::ceil<std::chrono::seconds>(std::chrono::system_clock::now()) +
                                std::chrono::milliseconds(20));
  Output unchanged = Chipkg({"ingest", page, "--id", "trn-page", "--db", store});
  ASSERT_EQ(unchanged.code, 0) << unchanged.err;
  const std::string said_again = unchanged.out + unchanged.err;
  const size_t quiet_at = said_again.find("run-");
  ASSERT_NE(quiet_at, std::string::npos) << said_again;
  const std::string quiet_run = said_again.substr(quiet_at, said_again.find(':', quiet_at) - quiet_at);
  Output at_quiet = Chipkg({"trace", "trainium.memory_bandwidth", "--as-at", "run", quiet_run, "--db", store});
  ASSERT_EQ(at_quiet.code, 0) << at_quiet.err;
  EXPECT_TRUE(Contains(at_quiet.out, "as at run " + quiet_run + " (no transaction of its own, as for a run that "
                                     "changed nothing: the store as it was at "))
      << at_quiet.out;
  EXPECT_TRUE(Contains(at_quiet.out, "900 GB/s")) << at_quiet.out;
  // A pid mistyped on a run that wrote is not read as a run of that second that wrote nothing; and
  // a run that did write nothing in a second another run wrote in has no point of its own. Either
  // way, said so, with the point before the other run's writes (it was "no ingest run", the other
  // run offered as the spelling meant: read as at it, the store showed that run's changes).
  const std::string mistyped = first_run.substr(0, first_run.rfind('-') + 1) + "1";
  Output typo = Chipkg({"trace", "trainium.memory_bandwidth", "--as-at", "run", mistyped, "--db", store});
  EXPECT_EQ(typo.code, 1);
  EXPECT_TRUE(Contains(typo.err, "no transaction of run '" + mistyped + "' (a run that changed nothing writes "
                                 "none), and its second cannot stand for it: run '" + first_run +
                                 "' wrote in the same second; the store as it was before that run's writes is "
                                 "--as-at tx "))
      << typo.err;
  Output made_up = Chipkg({"trace", "trainium.memory_bandwidth", "--as-at", "run", "run-19990101T000000Z-1", "--db",
                           store});
  EXPECT_EQ(made_up.code, 1);
  EXPECT_TRUE(Contains(made_up.err, "no transaction of run 'run-19990101T000000Z-1', and the store was empty at "
                                    "1999-01-01T00:00:00Z"))
      << made_up.err;
  // No run has happened yet at a time still to come: a mistyped year is not read as the store now.
  Output future = Chipkg({"trace", "trainium.memory_bandwidth", "--as-at", "run", "run-20991231T000000Z-1", "--db",
                          store});
  EXPECT_EQ(future.code, 1) << future.out;
  EXPECT_TRUE(Contains(future.err, "no run 'run-20991231T000000Z-1' is recorded, and the time its id names "
                                   "(2099-12-31T00:00:00Z) is still to come"))
      << future.err;
}

TEST_F(ToolsTest, DescribeSourcesHistoryAndErrors) {
  Output d = Chipkg(Db({"describe", "AWS Trainium 2", "--format", "json"}));
  ASSERT_EQ(d.code, 0) << d.err;
  auto j = nlohmann::json::parse(d.out);
  EXPECT_EQ(j["entity"]["id"], "chip:aws-trainium2");
  EXPECT_FALSE(j["citations"].empty());
  // The page writes its FP8 figure "1,300 TFLOPS" in one table and "1300 TFLOPS" in another: one value.
  Output text = Chipkg(Db({"describe", "AWS Trainium 2"}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "1,300 TFLOPS [")) << text.out;
  EXPECT_FALSE(Contains(text.out, "1300 TFLOPS")) << text.out;
  // A statement given where a query is expected, or misspelt at the REPL: the error names the statement.
  Output as_query = Chipkg(Db({"query", "describe trainium"}));
  EXPECT_EQ(as_query.code, 1);
  EXPECT_TRUE(Contains(as_query.err, "'describe' is a statement of its own, not a query: chipkg describe ..."))
      << as_query.err;
  Output misspelt = Chipkg(Db({}), "describ trainium\n");
  EXPECT_TRUE(Contains(misspelt.err, "did you mean the statement 'describe'?")) << misspelt.err;
  // What a query can ask about a kind, without reading the schema files.
  Output attributes = Chipkg(Db({"attributes"}));
  ASSERT_EQ(attributes.code, 0) << attributes.err;
  EXPECT_TRUE(Contains(attributes.out, "chip: ")) << attributes.out;
  EXPECT_TRUE(Contains(attributes.out, "  memory_bandwidth ")) << attributes.out;
  EXPECT_TRUE(Contains(attributes.out, "  bf16 ")) << attributes.out;
  EXPECT_TRUE(Contains(attributes.out, "fits(model, precision)")) << attributes.out;
  EXPECT_TRUE(Contains(attributes.out, "format: fp64 fp32")) << attributes.out;
  EXPECT_FALSE(Contains(attributes.out, "  power_envelope ")) << attributes.out;  // a data center's
  Output llms = Chipkg(Db({}), "attributes llms\n");
  EXPECT_EQ(llms.code, 0) << llms.err;
  EXPECT_TRUE(Contains(llms.out, "llm: ")) << llms.out;
  EXPECT_TRUE(Contains(llms.out, "  parameters ")) << llms.out;
  // The same listing for scripts: JSON and CSV, from the shell and the REPL.
  Output json = Chipkg(Db({"attributes", "data_center", "--format", "json"}));
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json listing = nlohmann::json::parse(json.out);
  EXPECT_EQ(listing["kind"], "data_center");
  bool evidence = false;
  for (const auto& a : listing["attributes"]) evidence |= a["section"] == "stated" && a["name"] == "evidence";
  EXPECT_TRUE(evidence) << json.out;
  Output csv = Chipkg(Db({"attributes", "--format", "csv"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("section,name,definition,description\n", 0), 0u) << csv.out;
  EXPECT_TRUE(Contains(csv.out, "\nstated,memory_bandwidth,\"quantity, GB/s\",")) << csv.out;
  EXPECT_TRUE(Contains(csv.out, "\nview,bf16,")) << csv.out;
  Output repl_json = Chipkg(Db({}), "format json\nattributes llm\n");
  ASSERT_EQ(repl_json.code, 0) << repl_json.err;
  EXPECT_TRUE(Contains(repl_json.err, "format json\n")) << repl_json.err;  // the REPL confirms the setting, on stderr
  EXPECT_EQ(nlohmann::json::parse(repl_json.out)["kind"], "llm") << repl_json.out;
  Output robots = Chipkg(Db({"attributes", "robots"}));
  EXPECT_EQ(robots.code, 1);  // as `query 'find robots'` and `describe robots`: no such thing, not bad usage
  EXPECT_TRUE(Contains(robots.err, "unknown kind 'robots'")) << robots.err;
  // A chip named the short way, as researchers write it: Epoch's names carry the maker and the line.
  Output short_name = Chipkg(Db({"describe", "MI300X"}));
  EXPECT_EQ(short_name.code, 0) << short_name.err;
  EXPECT_TRUE(Contains(short_name.out, "AMD Instinct MI300X  (chip:amd-instinct-mi300x, chip)")) << short_name.out;
  // Synonyms too, for the entity's kind: a chip's power is its tdp.
  Output power = Chipkg(Db({"trace", "trainium2.power"}));
  EXPECT_EQ(power.code, 0) << power.err;
  EXPECT_TRUE(Contains(power.out, "AWS Trainium 2 · tdp")) << power.out;
  Output traced = Chipkg(Db({"trace", "TPU v5p.memory"}));
  EXPECT_EQ(traced.code, 0) << traced.err;
  EXPECT_TRUE(Contains(traced.out, "Google TPU v5p")) << traced.out;
  // A model number one name alone holds; one that starts other names too is not picked.
  Output h200 = Chipkg(Db({"query", "\"H200\".memory"}));
  EXPECT_EQ(h200.code, 0) << h200.err;
  EXPECT_TRUE(Contains(h200.out, "note: 'H200' read as NVIDIA H200")) << h200.out;
  Output mi300 = Chipkg(Db({"query", "\"MI300\".memory"}));
  EXPECT_EQ(mi300.code, 1);
  EXPECT_TRUE(Contains(mi300.err, "'MI300' is part of the name of 3 chips: 'AMD Instinct MI300A', 'AMD Instinct MI300X', "
                                  "'AMD Radeon Instinct MI300'"))
      << mi300.err;
  Output several = Chipkg(Db({"describe", "H100"}));
  EXPECT_EQ(several.code, 1);
  EXPECT_TRUE(Contains(several.err, "'H100' is part of the name of 3 chips: 'NVIDIA H100 NVL', 'NVIDIA H100 PCIe', "
                                    "'NVIDIA H100 SXM5 80GB'"))
      << several.err;
  Output missing = Chipkg(Db({"describe", "Trainum"}));
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(Contains(missing.err, "did you mean")) << missing.err;
  Output usage = Chipkg(Db({"describe"}));
  EXPECT_EQ(usage.code, 2);
  Output more = Chipkg(Db({}), "source seed-001-amazon-trainium\nhistory Trainium.memory\nmatches\n");
  EXPECT_EQ(more.code, 0) << more.err;
  EXPECT_TRUE(Contains(more.out, "Not published by AWS")) << more.out;
  EXPECT_TRUE(Contains(more.out, "+ asserted")) << more.out;
  EXPECT_TRUE(Contains(more.out, "automatic match")) << more.out;
  Output nostore = Chipkg({"describe", "Trainium", "--db", (g_sandbox->root() / "nothing").string()});
  EXPECT_EQ(nostore.code, 1);
  EXPECT_TRUE(Contains(nostore.err, "no chipkg store")) << nostore.err;
}

TEST_F(ToolsTest, MatchesAreReviewedAndDecided) {
  {
    // An automatic match as ingest records it, written while no chipkg runs.
    auto store = chipkg::Store::Open(g_sandbox->store());
    ASSERT_TRUE(store.ok()) << store.status().message();
    chipkg::MatchRecord m;
    m.kind = "chip";
    m.name = "Trainium One";
    m.entity = "chip:aws-trainium";
    m.method = "normalised: test";
    m.decision = "pending";
    ASSERT_TRUE(chipkg::RecordMatches(**store, {m}).ok());
  }
  Output o = Chipkg(Db({}),
                    "matches\n"
                    "matches confirm chip Trainium One\n"
                    "format csv\n"
                    "matches\n"
                    "matches reject chip Nobody\n");
  EXPECT_EQ(o.code, 1) << o.err;  // the last statement failed
  EXPECT_TRUE(Contains(o.out, "1 pending review")) << o.out;
  EXPECT_TRUE(Contains(o.out, "\"Trainium One\"")) << o.out;
  EXPECT_TRUE(Contains(o.out, "confirmed: chip \"Trainium One\"")) << o.out;
  EXPECT_TRUE(Contains(o.out, "chip,Trainium One,chip:aws-trainium,normalised: test,confirmed")) << o.out;
  EXPECT_TRUE(Contains(o.err, "no recorded match for chip 'Nobody'")) << o.err;
  Output usage = Chipkg(Db({"matches", "maybe", "chip", "Nobody"}));
  EXPECT_EQ(usage.code, 2);
}

// Seeds against Epoch on the bundled store: each disagreement names its
// values, and each value cites the document that states it.
TEST_F(ToolsTest, ConflictsShowSeedsAgainstEpochWithBothCitations) {
  Output text = Chipkg(Db({"conflicts", "Trainium"}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "190 TFLOPS vs 210 TFLOPS: 11%")) << text.out;
  EXPECT_TRUE(Contains(text.out, "2022-10-15 vs 2022-10-01: 14 days")) << text.out;
  EXPECT_TRUE(Contains(text.out, "9800 GB/s vs 820 GB/s: 12x")) << text.out;
  // The likely cause of Epoch's 9.8 TB/s: 12x the per-chip figure, or a 16-chip server's.
  EXPECT_TRUE(Contains(text.out, "9800 GB/s is 12x the 820 GB/s of 2 other sources")) << text.out;
  EXPECT_TRUE(Contains(text.out, "9800 GB/s / 16 (trn1.32xlarge) = 612.5 GB/s per chip")) << text.out;

  Output json = Chipkg(Db({"conflicts", "Trainium", "--format", "json"}));
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  std::map<int, std::string> cited_document;
  for (const auto& c : j["citations"]) cited_document[c["number"].get<int>()] = c["document"]["id"].get<std::string>();
  // The documents cited for the value shown as `display` of the conflict `label`.
  auto documents_of = [&](const std::string& label, const std::string& display) {
    std::set<std::string> docs;
    for (const auto& a : j["conflicts"]) {
      if (a["label"] != label) continue;
      for (const auto& v : a["values"]) {
        if (v["display"] != display) continue;
        for (const auto& claim : v["claims"]) {
          auto it = cited_document.find(claim["citation"].get<int>());
          EXPECT_NE(it, cited_document.end()) << claim.dump();
          if (it == cited_document.end()) continue;
          EXPECT_EQ(it->second, claim["document_id"]) << claim.dump();
          docs.insert(it->second);
        }
      }
    }
    return docs;
  };
  using Docs = std::set<std::string>;
  const std::string bf16 = "peak_throughput {format=bf16}";
  EXPECT_EQ(documents_of(bf16, "190 TFLOPS"), Docs{"epoch-ml-hardware"}) << json.out;
  EXPECT_EQ(documents_of(bf16, "210 TFLOPS"), Docs{"seed-000-aws-trainium"}) << json.out;
  EXPECT_TRUE(documents_of("released", "2022-10-15").count("epoch-ml-hardware")) << json.out;
  EXPECT_EQ(documents_of("released", "2022-10-01"), Docs{"seed-000-aws-trainium"}) << json.out;
  EXPECT_EQ(documents_of("memory_bandwidth", "9800 GB/s"), Docs{"epoch-ml-hardware"}) << json.out;
  EXPECT_EQ(documents_of("memory_bandwidth", "820 GB/s"), (Docs{"seed-000-aws-trainium", "seed-001-amazon-trainium"}))
      << json.out;
  bool flagged = false;
  for (const auto& a : j["conflicts"]) {
    if (a["label"] != "memory_bandwidth") continue;
    for (const auto& s : a["sanity"]) flagged |= s.value("chips", 0.0) == 16.0;
  }
  EXPECT_TRUE(flagged) << json.out;
}

// The question of the issue over the whole bundled store: every Epoch chip is
// considered, every row is cited. The expected 33: the 32 Epoch rows with at
// least 35 GB of memory and a foundry, and Trainium 2 (96 GB; TSMC on its page).
TEST_F(ToolsTest, FitsAndReportedFoundryOverEveryEpochChip) {
  Output all = Chipkg(Db({"query", "count chips"}));
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_TRUE(Contains(all.out, "count: 171")) << all.out;  // 170 Epoch rows and AWS Inferentia (schema only)
  const std::string question = "find chip where fits(\"Llama 3.1 70B\", int4) and reported(foundry) show memory, foundry";
  Output json = Chipkg(Db({"query", "--format", "json", question}));
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  ASSERT_EQ(j["rows"].size(), 33u) << json.out;
  EXPECT_EQ(j["cited_rows"], 33);
  std::map<int, std::string> cited_document;
  for (const auto& c : j["citations"]) cited_document[c["number"].get<int>()] = c["document"]["id"].get<std::string>();
  std::set<std::string> names;
  for (const auto& row : j["rows"]) {
    const std::string name = row["name"];
    names.insert(name);
    EXPECT_NE(row["support_text"].get<std::string>().find('['), std::string::npos) << name;
    for (const char* column : {"memory", "foundry"}) {
      const auto& cell = row["cells"][column];
      ASSERT_FALSE(cell["values"].empty()) << name << " " << column;
      for (const auto& v : cell["values"]) {
        // Every value is backed by at least one numbered citation that is listed.
        std::string support = v["support"].dump();
        EXPECT_NE(support.find("\"cite\""), std::string::npos) << name << " " << column << ": " << support;
      }
    }
  }
  for (const auto& [number, doc] : cited_document) EXPECT_FALSE(doc.empty()) << number;
  for (const char* expected : {"AWS Trainium 2", "NVIDIA H100 SXM5 80GB", "NVIDIA A100 PCIe", "Huawei Ascend 910C",
                               "AMD Instinct MI355X", "Intel Habana Gaudi2", "NVIDIA RTX A6000"}) {
    EXPECT_TRUE(names.count(expected)) << expected;
  }
  EXPECT_FALSE(names.count("AWS Trainium"));            // 32 GB < 35 GB
  EXPECT_FALSE(names.count("NVIDIA H100 NVL"));         // fits, but no foundry in the file
  EXPECT_FALSE(names.count("Google TPU v7 Ironwood"));  // likewise
  Output text = Chipkg(Db({"query", question}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "33 rows")) << text.out;
  EXPECT_TRUE(Contains(text.out, "column \"Foundry\": \"TSMC\"")) << text.out;  // an Epoch cell, cited
}

// The format views on the bundled data: `bf16` of a chip whose tensor units
// have no BF16 is no figure (Epoch's "Tensor-FP16/BF16" cell is a V100's FP16
// figure), and `fp16` is the matrix units' figure, not Epoch's vector-unit
// one beside it (`fp16 <= 200 TFLOPS` matched an H100 on its 133.8 TFLOPS).
TEST_F(ToolsTest, FormatViewsReadOnlyTheFiguresOfThatFormat) {
  Output h100 = Chipkg(Db({"query", "find chip where fp16 <= 200 TFLOPS and name contains \"H100 SXM5\""}));
  ASSERT_EQ(h100.code, 0) << h100.err;
  EXPECT_TRUE(Contains(h100.out, "0 rows")) << h100.out;
  Output listed = Chipkg(Db({"query", "\"H100 SXM5\".fp16"}));
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(Contains(listed.out, "989.4 TFLOPS {format=fp16} [1]")) << listed.out;
  EXPECT_FALSE(Contains(listed.out, "133.8")) << listed.out;
  Output bf16 = Chipkg(Db({"query", "find chip where bf16 >= 100 TFLOPS and name contains \"V100\""}));
  ASSERT_EQ(bf16.code, 0) << bf16.err;
  EXPECT_TRUE(Contains(bf16.out, "0 rows")) << bf16.out;
  Output fp16 = Chipkg(Db({"query", "find chip where fp16 >= 100 TFLOPS and name contains \"V100\""}));
  ASSERT_EQ(fp16.code, 0) << fp16.err;
  EXPECT_TRUE(Contains(fp16.out, "NVIDIA V100  ")) << fp16.out;
}

// Epoch's TPU TDPs are its own estimates (Google publishes none): shown as
// such, with the per-watt figures built on them, and left out by basis=stated.
TEST_F(ToolsTest, ASourcesOwnEstimateIsShownAsOneAndCanBeLeftOut) {
  Output any = Chipkg(Db({"query", "find chip where designer = \"Google\" and tdp >= 300 W show tdp, perf_per_watt"}));
  ASSERT_EQ(any.code, 0) << any.err;
  EXPECT_TRUE(Contains(any.out, "Google TPU v4            340 W {basis=estimate} [")) << any.out;
  EXPECT_TRUE(Contains(any.out, "0.8088 TFLOPS/W {basis=estimate, format=bf16} computed: 275 TFLOPS / 340 W")) << any.out;
  EXPECT_TRUE(Contains(any.out, "Google TPU v3            450 W [")) << any.out;
  Output stated = Chipkg(Db({"query", "find chip where designer = \"Google\" and tdp{basis=stated} >= 300 W"}));
  ASSERT_EQ(stated.code, 0) << stated.err;
  EXPECT_TRUE(Contains(stated.out, "Google TPU v3")) << stated.out;
  EXPECT_FALSE(Contains(stated.out, "\nGoogle TPU v4")) << stated.out;
  EXPECT_TRUE(Contains(stated.out, "1 row")) << stated.out;
  // A claim that gives no basis is stated: {basis=estimate} is the estimates alone (it matched 150 chips).
  Output estimates = Chipkg(Db({"query", "count chip where tdp{basis=estimate} > 0 W"}));
  ASSERT_EQ(estimates.code, 0) << estimates.err;
  EXPECT_TRUE(Contains(estimates.out, "count: 4\n")) << estimates.out;
  Output per_watt = Chipkg(Db({"query", "count chip where perf_per_watt{basis=estimate} > 0 TOPS/W"}));
  ASSERT_EQ(per_watt.code, 0) << per_watt.err;
  EXPECT_TRUE(Contains(per_watt.out, "count: 4\n")) << per_watt.out;
  Output groups = Chipkg(Db({"query", "count chip by tdp{basis=estimate}"}));
  ASSERT_EQ(groups.code, 0) << groups.err;
  EXPECT_TRUE(Contains(groups.out, "\n340 W ")) << groups.out;
  EXPECT_FALSE(Contains(groups.out, "\n450 W ")) << groups.out;  // TPU v3's, stated
  // A column that leaves the estimate out says it is there, rather than "no source".
  Output shown = Chipkg(Db({"query", "find chip where designer = \"Google\" and tdp >= 300 W show tdp{basis=stated}"}));
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_TRUE(Contains(shown.out, "Google TPU v4            \xE2\x80\x94 (none that fits; 1 with basis=estimate)"))
      << shown.out;
  EXPECT_TRUE(Contains(shown.out, "Google TPU v3            450 W [")) << shown.out;
  // Only what differs on a key a claim may leave unsaid is named: an fp8 cell does not list bf16 figures.
  Output views = Chipkg(Db({"query", "find chip where designer = \"Google\" and tdp >= 300 W show fp8"}));
  ASSERT_EQ(views.code, 0) << views.err;
  EXPECT_TRUE(Contains(views.out, "Google TPU v4            \xE2\x80\x94 (no source)")) << views.out;
  // Groups are the values, not one "none that fits" group a chip.
  Output grouped = Chipkg(Db({"query", "count chip by tdp{basis=stated}"}));
  ASSERT_EQ(grouped.code, 0) << grouped.err;
  EXPECT_FALSE(Contains(grouped.out, "none that fits")) << grouped.out;
  EXPECT_TRUE(Contains(grouped.out, "\n\xE2\x80\x94 (no source) ")) << grouped.out;
  // A fact-checker traces the estimate alone, or the stated figures alone.
  Output traced = Chipkg(Db({"trace", "Google TPU v4.tdp{basis=Estimate}"}));
  ASSERT_EQ(traced.code, 0) << traced.err;
  EXPECT_TRUE(Contains(traced.out, "tdp {basis=estimate}")) << traced.out;
  EXPECT_TRUE(Contains(traced.out, "340 W")) << traced.out;
  Output traced_stated = Chipkg(Db({"trace", "Google TPU v3.tdp{basis=stated}"}));
  ASSERT_EQ(traced_stated.code, 0) << traced_stated.err;
  EXPECT_TRUE(Contains(traced_stated.out, "450 W")) << traced_stated.out;
  // A misspelt key or value is a name not found, as in a query (exit 1), with the nearest names.
  Output bad_key = Chipkg(Db({"trace", "Google TPU v4.tdp{bases=estimate}"}));
  EXPECT_EQ(bad_key.code, 1) << bad_key.err;
  EXPECT_TRUE(Contains(bad_key.err, "unknown qualifier 'bases' (did you mean 'basis'?)")) << bad_key.err;
  EXPECT_TRUE(Contains(bad_key.err, "expected {KEY=VALUE, ...} with KEY one of")) << bad_key.err;
  Output bad_format = Chipkg(Db({"trace", "trainium2.peak_throughput{format=fp17}"}));
  EXPECT_EQ(bad_format.code, 1) << bad_format.err;
  EXPECT_TRUE(Contains(bad_format.err, "unknown format 'fp17' (did you mean 'fp16'")) << bad_format.err;
  // A format's synonym is read as a query reads it: "bfloat16" was an unknown format here alone.
  Output synonym = Chipkg(Db({"trace", "trainium2.peak_throughput{format=bfloat16}"}));
  ASSERT_EQ(synonym.code, 0) << synonym.err;
  EXPECT_EQ(synonym.out.substr(0, synonym.out.find('\n')), "AWS Trainium 2 \xC2\xB7 peak_throughput {format=bf16}")
      << synonym.out;
  Output no_value = Chipkg(Db({"trace", "Google TPU v4.tdp{basis}"}));
  EXPECT_EQ(no_value.code, 2) << no_value.err;
  EXPECT_TRUE(Contains(no_value.err, "expected {KEY=VALUE, ...}")) << no_value.err;
  Output model = Chipkg(Db({"trace", "trainium2.fits{model=\"Llama 3.1 70B\"}"}));
  ASSERT_EQ(model.code, 0) << model.err;
  EXPECT_TRUE(Contains(model.out, "fits {model=llm:llama-3.1-70b}")) << model.out;
  EXPECT_FALSE(Contains(model.out, "no source says anything")) << model.out;
  // A call's heading says the call as asked: "fits" alone hid which model and precision.
  Output call = Chipkg(Db({"trace", "trainium2.fits(\"Llama 3.1 70B\", int8)"}));
  ASSERT_EQ(call.code, 0) << call.err;
  EXPECT_EQ(call.out.substr(0, call.out.find('\n')), "AWS Trainium 2 \xC2\xB7 fits(Llama 3.1 70B, int8)") << call.out;
  Output scoped = Chipkg(Db({"trace", "Google TPU v3.tdp{scope=chip}"}));
  ASSERT_EQ(scoped.code, 0) << scoped.err;
  EXPECT_TRUE(Contains(scoped.out, "450 W")) << scoped.out;  // a claim that gives no scope is the chip's
  // What the braces leave out is said, and left out of what is computed too.
  Output none_stated = Chipkg(Db({"trace", "Google TPU v4.tdp{basis=stated}"}));
  ASSERT_EQ(none_stated.code, 0) << none_stated.err;
  EXPECT_TRUE(Contains(none_stated.out, "0 claims (0 standing): none with {basis=stated}; 1 other claim of tdp set aside"))
      << none_stated.out;
  Output computed = Chipkg(Db({"trace", "Google TPU v4.perf_per_watt{basis=stated}"}));
  ASSERT_EQ(computed.code, 0) << computed.err;
  EXPECT_FALSE(Contains(computed.out, "/ 340 W")) << computed.out;
  Output computed_estimate = Chipkg(Db({"trace", "Google TPU v4.perf_per_watt{basis=estimate}"}));
  ASSERT_EQ(computed_estimate.code, 0) << computed_estimate.err;
  EXPECT_TRUE(Contains(computed_estimate.out, "/ 340 W")) << computed_estimate.out;
  // verify says the document's own estimate is one, not "stated".
  Output verified = Chipkg(Db({"verify", "epoch-ml-hardware"}));
  ASSERT_EQ(verified.code, 0) << verified.err;
  EXPECT_TRUE(Contains(verified.out, "Google TPU v4 \xC2\xB7 perf_per_watt {basis=estimate, format=max}: estimated "
                                     "0.8088 TOPS/W ["))
      << verified.out;
  EXPECT_TRUE(Contains(verified.out, "Google TPU v4 \xC2\xB7 max_performance: stated 275 TOPS [")) << verified.out;
  Output unclosed = Chipkg(Db({"trace", "trainium.memory{"}));
  EXPECT_EQ(unclosed.code, 2) << unclosed.err;
  EXPECT_TRUE(Contains(unclosed.err, "'{' at byte 16 of 'trainium.memory{' is not closed")) << unclosed.err;
  Output empty = Chipkg(Db({"trace", "trainium2.fits{}"}));
  EXPECT_NE(empty.code, 0);
  EXPECT_TRUE(Contains(empty.err, "narrows nothing")) << empty.err;
  Output bad_value = Chipkg(Db({"trace", "Google TPU v4.tdp{basis=guess}"}));
  EXPECT_EQ(bad_value.code, 1) << bad_value.err;
  EXPECT_TRUE(Contains(bad_value.err, "basis is one of stated, estimate")) << bad_value.err;
}

// An automatic (non-exact) match made by `chipkg ingest`, listed by `matches`,
// rejected there: a later version of the document does not make it again.
TEST_F(ToolsTest, RejectedMatchIsRememberedByTheNextIngest) {
  const std::string store = (g_sandbox->root() / "review-store").string();
  const std::string csv_path = (g_sandbox->root() / "review.csv").string();
  // The Epoch header and one row whose name only matches by dropping a vendor prefix.
  std::string epoch = ReadFile(fs::path(CHIPKG_SOURCE_DIR) / "datasets/epoch_ml_hardware/ml_hardware.csv");
  const std::string header = epoch.substr(0, epoch.find('\n'));
  std::vector<std::string> columns;
  for (size_t at = 0;;) {
    size_t comma = header.find(',', at);
    columns.push_back(header.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  auto write_csv = [&](const std::string& memory) {
    std::ofstream out(csv_path, std::ios::binary | std::ios::trunc);
    out << header << "\n";
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) out << ",";
      if (columns[i] == "Hardware name") out << "Annapurna Labs Trainium2";
      if (columns[i] == "Memory (bytes)") out << memory;
      if (columns[i] == "Last modified") out << "2026-01-02 10:00:00+00:00";
    }
    out << "\n";
  };
  auto ingest = [&]() {
    return Chipkg({"ingest", csv_path, "--dataset", "epoch-ml-hardware", "--kind", "aggregator", "--title",
                   "Review sheet", "--db", store});
  };
  write_csv("96000000000.0");
  Output first = ingest();
  ASSERT_EQ(first.code, 0) << first.err;
  Output listed = Chipkg({"matches", "--format", "csv", "--db", store});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(Contains(listed.out, "chip,Annapurna Labs Trainium2,chip:aws-trainium2,normalised: dropped vendor "
                                   "prefix,pending"))
      << listed.out;
  Output before = Chipkg({"query", "trainium2.memory", "--db", store});
  EXPECT_TRUE(Contains(before.out, "AWS Trainium 2  96 GB [1]")) << before.out;

  Output reject = Chipkg({"matches", "reject", "chip", "Annapurna Labs Trainium2", "--db", store});
  ASSERT_EQ(reject.code, 0) << reject.err;
  EXPECT_TRUE(Contains(reject.out, "rejected: chip \"Annapurna Labs Trainium2\"")) << reject.out;

  // A changed version: the row resolves again, and must not match Trainium 2.
  write_csv("95000000000.0");
  Output second = ingest();
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_TRUE(Contains(second.err, "new entity chip:annapurna-labs-trainium2")) << second.err;
  Output after = Chipkg({"matches", "--format", "csv", "--db", store});
  EXPECT_TRUE(Contains(after.out, "chip,Annapurna Labs Trainium2,chip:aws-trainium2,normalised: dropped vendor "
                                  "prefix,rejected"))
      << after.out;
  EXPECT_FALSE(Contains(after.out, "pending")) << after.out;
  Output moved = Chipkg({"query", "\"Annapurna Labs Trainium2\".memory", "--db", store});
  EXPECT_EQ(moved.code, 0) << moved.err;
  EXPECT_TRUE(Contains(moved.out, "95 GB [1]")) << moved.out;
  Output trainium2 = Chipkg({"query", "trainium2.memory", "--db", store});
  EXPECT_TRUE(Contains(trainium2.out, "— (no source)")) << trainium2.out;
}

// A writer adds a document while the REPL is open; `refresh` (and the
// catch-up before every statement) shows it.
TEST_F(ToolsTest, ReplSeesWhatAnIngestWritesMeanwhile) {
  int to_child[2];
  ASSERT_EQ(pipe(to_child), 0);
  fs::path out_path = g_sandbox->root() / "live.out";
  pid_t pid = fork();
  if (pid == 0) {
    PrepareChildEnvironment();
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(to_child[0], 0);
    dup2(out, 1);
    dup2(out, 2);
    close(to_child[1]);
    std::vector<std::string> args = Db({CHIPKG_BINARY});
    auto argv = Argv(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(to_child[0]);
  auto wait_for = [&](const std::string& text) {
    auto deadline = Clock::now() + kTimeout;
    while (Clock::now() < deadline) {
      if (Contains(ReadFile(out_path), text)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  auto say = [&](const std::string& s) {
    ASSERT_EQ(write(to_child[1], s.data(), s.size()), (ssize_t)s.size());
  };
  say("sources\n");
  ASSERT_TRUE(wait_for("4 documents")) << ReadFile(out_path);
  fs::path page = g_sandbox->root() / "extra-page.txt";
  {
    std::ofstream p(page);
    p << "Memory bandwidth: 1 TB/s\n";
  }
  Output ingest = Chipkg(Db({"ingest", page.string(), "--title", "A late page", "--kind", "press"}));
  EXPECT_EQ(ingest.code, 0) << ingest.err;
  say("refresh\nsources\n");
  EXPECT_TRUE(wait_for("5 documents")) << ReadFile(out_path);
  EXPECT_TRUE(wait_for("A late page")) << ReadFile(out_path);
  // The cron entry point (a manifest) writes again; this time no `refresh`:
  // the catch-up before every statement alone must show the new document.
  fs::path later = g_sandbox->root() / "later-page.txt";
  {
    std::ofstream p(later);
    p << "Notes a cron run fetched; no figures.\n";
  }
  fs::path manifest = g_sandbox->root() / "cron-manifest.json";
  {
    std::ofstream m(manifest);
    m << nlohmann::json::array({{{"id", "cron-later-page"},
                                 {"location", later.string()},
                                 {"site", "later.example"},
                                 {"kind", "press"},
                                 {"title", "A page cron fetched"}}})
             .dump();
  }
  Output cron = Chipkg(Db({"ingest", "--manifest", manifest.string()}));
  EXPECT_EQ(cron.code, 0) << cron.err;
  say("sources\n");
  EXPECT_TRUE(wait_for("6 documents")) << ReadFile(out_path);
  EXPECT_TRUE(wait_for("A page cron fetched")) << ReadFile(out_path);
  close(to_child[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(out_path);
}

// ---- through a pseudo-terminal -------------------------------------------------

class Terminal {
 public:
  Terminal() {
    struct winsize ws = {40, 200, 0, 0};
    pid_ = forkpty(&fd_, nullptr, nullptr, &ws);
    if (pid_ == 0) {
      PrepareChildEnvironment();
      std::vector<std::string> args = Db({CHIPKG_BINARY});
      auto argv = Argv(args);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Terminal() {
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return pid_ > 0 && fd_ >= 0; }
  void Type(const std::string& keys) {
    // The prompt is printed before libedit puts the terminal in its own mode,
    // and that discards what was typed in between: a key sent as soon as the
    // prompt showed was lost now and then on a loaded machine (Ctrl-D never
    // arrived, and the test waited out its timeout). A person is never that quick.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    for (char c : keys) {
      // One key at a time, as a person types: libedit reads keystrokes.
      ASSERT_EQ(write(fd_, &c, 1), 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  // Reads until `text` appears in what was printed since the last Expect.
  bool Expect(const std::string& text) {
    auto deadline = Clock::now() + kTimeout;
    while (Clock::now() < deadline) {
      size_t at = seen_.find(text, mark_);
      if (at != std::string::npos) {
        mark_ = at + text.size();
        return true;
      }
      struct pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, 100) > 0) {
        char buf[4096];
        ssize_t n = read(fd_, buf, sizeof buf);
        if (n <= 0) break;  // the child closed the terminal
        seen_.append(buf, n);
      }
    }
    return seen_.find(text, mark_) != std::string::npos;
  }
  int Wait() {
    // Drain what is left so the child never blocks writing.
    auto deadline = Clock::now() + kTimeout;
    int status = 0;
    while (Clock::now() < deadline) {
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        waited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      struct pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) {
        char buf[4096];
        ssize_t n = read(fd_, buf, sizeof buf);
        if (n > 0) seen_.append(buf, n);
      }
    }
    return -1;
  }
  const std::string& seen() const { return seen_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  bool waited_ = false;
  std::string seen_;
  size_t mark_ = 0;
};

// A store read by other rules than this chipkg's (here one synonym more in
// the schema) is said so when the REPL starts, with the command that reads it
// again; read by these rules, nothing is said.
TEST_F(ToolsTest, TheReplSaysWhenTheStoreWasReadByOtherRules) {
  {
    Terminal t;
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(t.Expect("'help' lists statements")) << t.seen();
    ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
    EXPECT_FALSE(Contains(t.seen(), "read by other rules")) << t.seen();
    t.Type("quit\r");
    EXPECT_EQ(t.Wait(), 0);
  }
  const fs::path other_schema = g_sandbox->root() / "schema-for-the-repl";
  fs::copy(fs::path(CHIPKG_SOURCE_DIR) / "schema", other_schema, fs::copy_options::recursive);
  { std::ofstream(other_schema / "core.schema", std::ios::app) << "synonym wattage tdp\n"; }
  g_schema_dir = other_schema.string();
  Terminal t;
  g_schema_dir = std::string(CHIPKG_SOURCE_DIR) + "/schema";
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(t.Expect("were read by other rules than this chipkg's")) << t.seen();
  EXPECT_TRUE(Contains(t.seen(), "'chipkg ingest --reextract --db ")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  t.Type("quit\r");
  EXPECT_EQ(t.Wait(), 0);
  fs::remove_all(other_schema);
}

TEST_F(ToolsTest, TerminalSessionWithCompletionErrorsAndHistory) {
  Terminal t;
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  t.Type("describe Trainium\r");
  ASSERT_TRUE(t.Expect("AWS Trainium  (chip:aws-trainium, chip)")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  // A query in the query language, answered with citations (the seeds' two
  // memory claims and Epoch's).
  t.Type("find chip where fits(\"Llama 3.1 70B\", int8) and designer = Amazon show memory\r");
  ASSERT_TRUE(t.Expect("AWS Trainium 2  96 GB [1][2][3]")) << t.seen();
  ASSERT_TRUE(t.Expect("1 row")) << t.seen();
  ASSERT_TRUE(t.Expect("sources:")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  // An error is reported and the session carries on.
  t.Type("find chip where memory >= >= 64 GB\r");
  ASSERT_TRUE(t.Expect("column 27")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  // TAB completes the attribute name: "memory_ba" alone is no attribute.
  t.Type("trace trainium2.memory_ba\t");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  t.Type("\r");
  ASSERT_TRUE(t.Expect("2,900 GB/s")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  // And an entity name after a statement word.
  t.Type("describe Annap\t");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  t.Type("\r");
  ASSERT_TRUE(t.Expect("(org:annapurna-labs, organization)")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  t.Type("quit\r");
  EXPECT_EQ(t.Wait(), 0) << t.seen();
  std::string history = ReadFile(fs::path(g_sandbox->home()) / ".chipkg" / "history");
  // libedit writes a space as \040.
  for (size_t at; (at = history.find("\\040")) != std::string::npos;) history.replace(at, 4, " ");
  EXPECT_TRUE(Contains(history, "describe Trainium")) << history;
  EXPECT_TRUE(Contains(history, "trace trainium2.memory_bandwidth")) << history;
}

// Ctrl-C at the prompt gives up the line (and a statement continued over
// lines) and prompts again; it used to end the REPL.
TEST_F(ToolsTest, CtrlCAtThePromptGivesUpTheLine) {
  Terminal t;
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  t.Type("find chip where");
  t.Type("\x03");
  ASSERT_TRUE(t.Expect("^C")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  t.Type("(memory > 1 GB\r");
  ASSERT_TRUE(t.Expect("...> ")) << t.seen();
  t.Type("\x03");
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  // Neither piece is left behind: the next statement runs alone.
  t.Type("count chip where designer = Amazon\r");
  ASSERT_TRUE(t.Expect("count: ")) << t.seen();
  ASSERT_TRUE(t.Expect("chipkg> ")) << t.seen();
  EXPECT_EQ(t.seen().find("expected"), std::string::npos) << t.seen();
  t.Type("\x04");
  EXPECT_EQ(t.Wait(), 0) << t.seen();
}

}  // namespace
