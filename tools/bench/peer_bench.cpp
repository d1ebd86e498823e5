// chipkg-peer-bench: chipkg against SQLite on the peer-benchmark corpus (tools/bench/gen.py).
//
// One run, one corpus directory. Loads the corpus into a fresh chipkg store and a fresh SQLite
// file, each in a forked child so the two peak-memory figures are separate (each twice in a row,
// the second reported: --load-rounds), then runs the five
// benchmark queries on both in this process (warm-ups, then the median of timed runs, the sides
// taking turns run by run, every row materialised as strings), checks every row count against params.json, and prints one table.
// Exit status: 0 all counts right, 1 a count or a load failed, 2 bad usage.
//
//   chipkg-peer-bench --corpus DIR [--n N] [--work DIR] [--warmups 3] [--runs 5] [--json FILE]
//
// Without params.json in DIR the generator is run first (--n N chips; --gen PATH to find gen.py).
// tools/bench/README.md has the latest figures.
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/store.h"
#include "ingest/bulk_import.h"
#include "query/query.h"
#include "schema/schema.h"
#include "tools/heap_policy.h"

namespace fs = std::filesystem;
using chipkg::Fact;
using chipkg::Result;
using chipkg::Status;

namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

// "Q3" for q == 2. (Built with snprintf: g++ 12 at -O3 warns falsely, -Wrestrict, on "Q" + std::string.)
std::string QueryName(int q) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "Q%d", q + 1);
  return buf;
}

[[noreturn]] void Die(const std::string& msg, int code = 1) {
  std::fprintf(stderr, "chipkg-peer-bench: %s\n", msg.c_str());
  std::exit(code);
}

// ---------------------------------------------------------------------------------------------
// Options.

struct Options {
  std::string corpus;
  long n = 0;  // chips, when the corpus must be generated
  std::string work;
  std::string gen;
  std::string chipkg_binary;
  std::string sqlite3_binary = "sqlite3";
  std::string json_out;
  int warmups = 3;
  int runs = 5;
  int process_runs = 21;
  bool load_only = false;  // compare the two loads and stop (no queries)
  int load_rounds = 2;     // each load this many times in a row; the last reported
  long cold_pause_s = 6;   // rest before each system's first round: the host takes freed memory back
  bool allocator_defaults = false;  // leave out chipkg's heap policy (tools/heap_policy.h), to measure what it buys
  // A smaller corpus whose chipkg load and queries are timed in the same run, by turns with this
  // one's, for the cost growth between the two (per fact loaded, per row answered).
  std::string growth_corpus;
  long growth_n = 0;
  std::string growth_work;
};

void Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --corpus DIR [--n N] [--work DIR] [--warmups 3] [--runs 5] [--json FILE]\n"
               "          [--gen gen.py] [--chipkg PATH] [--sqlite3 PATH] [--process-runs 21] [--load-rounds 2] [--cold-pause 6] [--load-only]\n"
               "          [--growth-corpus DIR [--growth-n N] [--growth-work DIR]]\n"
               "  --corpus DIR  corpus written by tools/bench/gen.py (generated with --n N if DIR has no params.json)\n"
               "  --work DIR    where the chipkg store and the SQLite file go (default DIR/peer-bench-work; emptied)\n"
               "  --process-runs N  whole-process Q1 runs of each side, taking turns (median)\n"
               "  --load-rounds N  load each N times in a row and report the last (the first pays for fresh memory)\n"
               "  --cold-pause S  seconds of rest before each system's first load round, so that it loads as a\n"
               "                process started on a machine at rest does (a cron job's import); 0: none\n"
               "  --load-only   load both, print the load lines and stop (no queries)\n"
               "  --growth-corpus DIR  a smaller corpus (generated with --growth-n N if DIR has no params.json),\n"
               "                loaded into chipkg after the main loads and queried by turns with the main\n"
               "                corpus, for chipkg's cost growth per fact and per row (--growth-work: its store)\n"
               "  --allocator-defaults  the allocator's own settings instead of chipkg's heap policy\n"
               "                (tools/heap_policy.h) in this process (the whole-process chipkg runs keep chipkg's)\n",
               argv0);
}

std::string ExeDir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

// The source tree the benchmark was built from: $CHIPKG_SOURCE_DIR, else the build directory's
// CMakeCache.txt, else the parent of the build directory.
std::string SourceDir() {
  if (const char* env = std::getenv("CHIPKG_SOURCE_DIR"); env != nullptr && *env != '\0') return env;
  std::ifstream cache(ExeDir() + "/CMakeCache.txt");
  std::string line;
  const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
  while (std::getline(cache, line)) {
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  }
  return ExeDir() + "/..";
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        Usage(argv[0]);
        Die("option " + a + " needs a value", 2);
      }
      return argv[++i];
    };
    auto number = [&](const std::string& s) -> long {
      char* end = nullptr;
      long v = std::strtol(s.c_str(), &end, 10);
      if (end == s.c_str() || *end != '\0' || v < 0) Die("option " + a + ": not a count: " + s, 2);
      return v;
    };
    if (a == "--corpus") o.corpus = value();
    else if (a == "--n") o.n = number(value());
    else if (a == "--work") o.work = value();
    else if (a == "--gen") o.gen = value();
    else if (a == "--chipkg") o.chipkg_binary = value();
    else if (a == "--sqlite3") o.sqlite3_binary = value();
    else if (a == "--json") o.json_out = value();
    else if (a == "--warmups") o.warmups = static_cast<int>(number(value()));
    else if (a == "--runs") o.runs = std::max(1, static_cast<int>(number(value())));
    else if (a == "--process-runs") o.process_runs = static_cast<int>(number(value()));
    else if (a == "--load-only") o.load_only = true;
    else if (a == "--load-rounds") o.load_rounds = std::max(1, static_cast<int>(number(value())));
    else if (a == "--cold-pause") o.cold_pause_s = number(value());
    else if (a == "--allocator-defaults") o.allocator_defaults = true;
    else if (a == "--growth-corpus") o.growth_corpus = value();
    else if (a == "--growth-n") o.growth_n = number(value());
    else if (a == "--growth-work") o.growth_work = value();
    else if (a == "--help" || a == "-h") {
      Usage(argv[0]);
      std::exit(0);
    } else {
      Usage(argv[0]);
      Die("unknown argument " + a, 2);
    }
  }
  if (o.corpus.empty()) {
    Usage(argv[0]);
    Die("--corpus is required", 2);
  }
  if (o.work.empty()) o.work = o.corpus + "/peer-bench-work";
  if (o.growth_corpus.empty() && (o.growth_n != 0 || !o.growth_work.empty())) {
    Die("--growth-n and --growth-work need --growth-corpus", 2);
  }
  if (!o.growth_corpus.empty() && o.growth_work.empty()) o.growth_work = o.growth_corpus + "/peer-bench-work";
  if (!o.growth_corpus.empty()) {
    auto same = [](const std::string& a, const std::string& b) {
      std::error_code ec;
      return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
    };
    if (same(o.growth_corpus, o.corpus) || same(o.growth_work, o.work)) {
      Die("--growth-corpus and its work directory must differ from --corpus and --work", 2);
    }
  }
  if (o.gen.empty()) o.gen = SourceDir() + "/tools/bench/gen.py";
  if (o.chipkg_binary.empty()) o.chipkg_binary = ExeDir() + "/chipkg";
  return o;
}

// ---------------------------------------------------------------------------------------------
// Processes.

struct ProcessResult {
  int exit_code = -1;  // -1: did not exit normally
  double ms = 0;
  long max_rss_kib = 0;
};

// Runs argv with stdout and stderr sent to `out_path` ("/dev/null" to discard), waits, times it.
// posix_spawn (vfork-like) rather than fork, so a large parent does not slow the start down.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& out_path) {
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  ProcessResult r;
  auto t0 = Clock::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.exit_code = 127;
    return r;
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  r.ms = Ms(t0, Clock::now());
  r.max_rss_kib = ru.ru_maxrss;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

// Reads `path` through once, so that it is in the page cache: the loads are timed one after the
// other, and the first would otherwise pay the disk for both (the machines here evict a file
// minutes after it was read: chipkg's first pass over facts.jsonl took 4.6 s instead of ~1 s
// in runs where it went first on a cold file, SQLite's then found it cached). Returns ms taken.
double ReadIntoPageCache(const std::string& path) {
  const auto t0 = Clock::now();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die("cannot open " + path + ": " + std::strerror(errno));
  std::vector<char> buffer(size_t{1} << 20);
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      close(fd);
      Die("cannot read " + path + ": " + why);
    }
  }
  close(fd);
  return Ms(t0, Clock::now());
}

// Runs `fn` in a forked child; its JSON result comes back through a pipe. The child's peak
// resident set (ru_maxrss of wait4) is its own: the parent holds nothing large when it forks.
struct ChildResult {
  nlohmann::json result;
  long max_rss_kib = 0;
  double cpu_s = 0;  // user + system, all threads
  bool ok = false;
  std::string error;
};
ChildResult RunInChild(const std::function<nlohmann::json()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) Die(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) Die(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    nlohmann::json j;
    try {
      j = fn();
    } catch (const std::exception& e) {
      j = {{"error", std::string("exception: ") + e.what()}};
    }
    std::string s = j.dump();
    size_t off = 0;
    while (off < s.size()) {
      ssize_t w = write(fds[1], s.data() + off, s.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fds[1]);
    std::fflush(nullptr);
    _exit(j.contains("error") ? 1 : 0);
  }
  close(fds[1]);
  std::string data;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  ChildResult r;
  r.max_rss_kib = ru.ru_maxrss;
  r.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  auto parsed = nlohmann::json::parse(data, nullptr, false);
  if (parsed.is_discarded()) {
    r.error = "child process died (status " + std::to_string(status) + ") without a result";
  } else if (parsed.contains("error")) {
    r.error = parsed["error"].get<std::string>();
  } else {
    r.ok = true;
    r.result = std::move(parsed);
  }
  return r;
}

uint64_t DiskBytes(const fs::path& p) {
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return fs::file_size(p, ec);
  uint64_t total = 0;
  for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// The corpus.

struct Params {
  long n_chips = 0;
  uint64_t facts = 0;
  std::string q1_chip, q3_model, q4_source;
  double q2_min_gb = 0;
  std::map<std::string, uint64_t> expected;  // "Q1" -> rows
};

Params ReadParams(const std::string& dir) {
  std::ifstream in(dir + "/params.json");
  if (!in) Die("cannot read " + dir + "/params.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) Die(dir + "/params.json is not JSON");
  Params p;
  try {
    p.n_chips = j.at("n_chips").get<long>();
    p.facts = j.at("stats").at("fact_assertions").get<uint64_t>();
    p.q1_chip = j.at("q1_chip").get<std::string>();
    p.q2_min_gb = j.at("q2_min_gb").get<double>();
    p.q3_model = j.at("q3_model").get<std::string>();
    p.q4_source = j.at("q4_source").get<std::string>();
    for (auto& [k, v] : j.at("expected_rows").items()) p.expected[k] = v.get<uint64_t>();
  } catch (const std::exception& e) {
    Die(dir + "/params.json: " + e.what());
  }
  return p;
}

void EnsureCorpus(const std::string& corpus, long n, const std::string& gen, const char* n_option) {
  if (fs::exists(corpus + "/params.json")) return;
  if (n <= 0) Die(corpus + " has no params.json: pass " + n_option + " N to generate the corpus");
  if (!fs::exists(gen)) Die("generator not found at " + gen + " (pass --gen PATH)");
  std::fprintf(stderr, "generating the corpus: python3 %s %ld %s\n", gen.c_str(), n, corpus.c_str());
  ProcessResult r = RunProcess({"python3", gen, std::to_string(n), corpus}, "/dev/null");
  if (r.exit_code != 0) Die("the generator failed (exit " + std::to_string(r.exit_code) + ")");
}

// ---------------------------------------------------------------------------------------------
// Rows: every query on both sides materialises its rows as strings, the way a caller would get them.

using Row = std::vector<std::string>;
using Rows = std::vector<Row>;

// ---------------------------------------------------------------------------------------------
// SQLite.

void SqlCheck(int rc, sqlite3* db, const std::string& what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    Die("sqlite: " + what + ": " + (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
}
void SqlExec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    Die("sqlite: " + sql + ": " + msg);
  }
}

// Same fields as facts.jsonl and sources.jsonl, excerpts included; SQLite's defaults (rollback
// journal, synchronous=FULL) and one transaction for the rows, then the three indexes.
nlohmann::json LoadSqlite(const std::string& corpus, const std::string& db_path) {
  auto t0 = Clock::now();
  sqlite3* db = nullptr;
  SqlCheck(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), db,
           "open " + db_path);
  SqlExec(db,
          "CREATE TABLE sources(source TEXT PRIMARY KEY, kind TEXT, url TEXT, publisher TEXT, title TEXT, "
          "asof TEXT, retrieved TEXT);"
          "CREATE TABLE facts(subject TEXT, predicate TEXT, value_num REAL, unit TEXT, value_text TEXT, "
          "source TEXT, asof TEXT, excerpt TEXT, status TEXT);");
  SqlExec(db, "BEGIN");
  auto sources = chipkg::ReadGeneratedSources(corpus + "/sources.jsonl");
  if (!sources.ok()) return {{"error", sources.status().ToString()}};
  sqlite3_stmt* ins = nullptr;
  SqlCheck(sqlite3_prepare_v2(db, "INSERT INTO sources VALUES(?1,?2,?3,?4,?5,?6,?7)", -1, &ins, nullptr), db,
           "prepare");
  for (const auto& s : *sources) {
    const std::string* f[] = {&s.source, &s.kind, &s.url, &s.publisher, &s.title, &s.as_of, &s.retrieved};
    for (int i = 0; i < 7; ++i) sqlite3_bind_text(ins, i + 1, f[i]->data(), static_cast<int>(f[i]->size()), SQLITE_STATIC);
    SqlCheck(sqlite3_step(ins), db, "insert source");
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  SqlCheck(sqlite3_prepare_v2(db, "INSERT INTO facts VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", -1, &ins, nullptr), db,
           "prepare");
  uint64_t facts = 0;
  auto text = [&](int i, std::string_view v) {
    sqlite3_bind_text(ins, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  };
  Status st = chipkg::ReadGeneratedFacts(corpus + "/facts.jsonl", [&](const chipkg::GeneratedFactRecord& r) {
    using VT = chipkg::GeneratedFactRecord::ValueType;
    text(1, r.subject);
    text(2, r.predicate);
    if (r.value_type == VT::kNumber) sqlite3_bind_double(ins, 3, r.number);
    else sqlite3_bind_null(ins, 3);
    if (r.unit.empty()) sqlite3_bind_null(ins, 4);
    else text(4, r.unit);
    if (r.value_type == VT::kString) text(5, r.value_text);
    else sqlite3_bind_null(ins, 5);
    text(6, r.source);
    text(7, r.as_of);
    text(8, r.excerpt);
    text(9, r.status);
    int rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (rc != SQLITE_DONE) return Status::IOError(std::string("sqlite insert: ") + sqlite3_errmsg(db));
    ++facts;
    return Status::OK();
  });
  sqlite3_finalize(ins);
  if (!st.ok()) return {{"error", st.ToString()}};
  SqlExec(db, "COMMIT");
  auto t_rows = Clock::now();
  SqlExec(db, "CREATE INDEX facts_sp ON facts(subject, predicate)");
  SqlExec(db, "CREATE INDEX facts_pv ON facts(predicate, value_num)");
  SqlExec(db, "CREATE INDEX facts_src ON facts(source)");
  SqlCheck(sqlite3_close(db), nullptr, "close");
  auto t1 = Clock::now();
  return {{"facts", facts}, {"ms", Ms(t0, t1)}, {"index_ms", Ms(t_rows, t1)}};
}

class SqliteSide {
 public:
  SqliteSide(const std::string& path, const Params& p) : p_(p) {
    SqlCheck(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), db_, "open " + path);
    Prepare(0,
            "SELECT f.subject, f.predicate, f.value_num, f.unit, f.value_text, f.status, f.source, s.publisher, "
            "s.url, f.asof FROM facts f JOIN sources s ON s.source = f.source WHERE f.subject = ?1");
    Prepare(1,
            "SELECT subject, value_num, unit, source FROM facts WHERE predicate = 'memory_capacity' "
            "AND value_num >= ?1");
    // The memory condition is written so the (predicate, value_num) index can serve it.
    Prepare(2,
            "SELECT m.subject, m.value_num, m.unit, m.source, p.source FROM facts p JOIN facts m "
            "ON m.predicate = 'memory_capacity' AND m.value_num >= p.value_num * 0.5 / 1e9 "
            "WHERE p.subject = ?1 AND p.predicate = 'params' AND p.value_num IS NOT NULL");
    Prepare(3,
            "SELECT subject, predicate, value_num, unit, value_text, status, asof FROM facts WHERE source = ?1");
    Prepare(4,
            "SELECT a.subject, a.predicate, a.source, a.value_num, a.value_text, b.source, b.value_num, "
            "b.value_text FROM facts a JOIN facts b ON b.subject = a.subject AND b.predicate = a.predicate "
            "AND b.source > a.source WHERE a.status = 'stated' AND b.status = 'stated' "
            "AND (a.value_num IS NOT b.value_num OR a.value_text IS NOT b.value_text)");
  }
  ~SqliteSide() {
    for (auto* s : stmts_) sqlite3_finalize(s);
    sqlite3_close(db_);
  }
  static std::string Q1Sql(const Params& p) {
    return "SELECT f.subject, f.predicate, f.value_num, f.unit, f.value_text, f.status, f.source, s.publisher, "
           "s.url, f.asof FROM facts f JOIN sources s ON s.source = f.source WHERE f.subject = '" +
           p.q1_chip + "';";
  }

  Rows Run(int q) {
    sqlite3_stmt* s = stmts_[q];
    sqlite3_reset(s);
    switch (q) {
      case 0: sqlite3_bind_text(s, 1, p_.q1_chip.c_str(), -1, SQLITE_STATIC); break;
      case 1: sqlite3_bind_double(s, 1, p_.q2_min_gb); break;
      case 2: sqlite3_bind_text(s, 1, p_.q3_model.c_str(), -1, SQLITE_STATIC); break;
      case 3: sqlite3_bind_text(s, 1, p_.q4_source.c_str(), -1, SQLITE_STATIC); break;
      default: break;
    }
    Rows rows;
    int n = sqlite3_column_count(s);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      Row row;
      row.reserve(n);
      for (int i = 0; i < n; ++i) {
        const unsigned char* t = sqlite3_column_text(s, i);
        row.emplace_back(t == nullptr ? "" : reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)));
      }
      rows.push_back(std::move(row));
    }
    SqlCheck(rc, db_, "query Q" + std::to_string(q + 1));
    return rows;
  }

 private:
  void Prepare(int i, const char* sql) {
    stmts_.resize(std::max<size_t>(stmts_.size(), i + 1));
    SqlCheck(sqlite3_prepare_v2(db_, sql, -1, &stmts_[i], nullptr), db_, sql);
  }
  const Params& p_;
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> stmts_;
};

// ---------------------------------------------------------------------------------------------
// chipkg.

nlohmann::json LoadChipkg(const std::string& corpus, const std::string& store_path) {
  auto t0 = Clock::now();
  auto schema = chipkg::Schema::LoadDirectory(chipkg::Schema::DefaultDirectory());
  if (!schema.ok()) return {{"error", schema.status().ToString()}};
  auto t_schema = Clock::now();
  auto store = chipkg::Store::Open(store_path);
  if (!store.ok()) return {{"error", store.status().ToString()}};
  auto stats = chipkg::ImportGeneratedCorpus(**store, *schema, corpus);
  if (!stats.ok()) return {{"error", stats.status().ToString()}};
  store->reset();  // closing flushes: part of the load
  auto t1 = Clock::now();
  return {{"facts", stats->facts},
          {"ms", Ms(t0, t1)},
          {"schema_ms", Ms(t0, t_schema)},
          {"first_pass_ms", stats->first_pass_seconds * 1000},
          {"finish_ms", stats->finish_seconds * 1000},
          {"documents", stats->documents},
          {"entities", stats->entities}};
}

std::string QualifiedPredicate(const Fact& f) {
  if (f.qualifiers.empty()) return f.predicate;
  std::string s = f.predicate + "{";
  bool first = true;
  for (const auto& [k, v] : f.qualifiers) {
    if (!first) s += ",";
    s += k + "=" + v;
    first = false;
  }
  return s + "}";
}

std::string AsOf(const Fact& f) { return f.valid_as_of ? f.valid_as_of->ToString() : std::string(); }

// The five queries through the Store API (engine/store.h) directly: an index scan each, rows
// carrying their document (source) id and the document's publisher and URL where asked for.
class ChipkgStoreApiSide {
 public:
  ChipkgStoreApiSide(const chipkg::Store& store, const chipkg::Schema& schema, const Params& p)
      : store_(store), p_(p) {
    auto preds = chipkg::GeneratedCorpusPredicates(schema);
    if (!preds.ok()) Die(preds.status().ToString());
    for (const auto& gp : *preds) {
      if (gp.name == "memory_capacity") memory_ = gp.def->name;
      if (gp.name == "params") params_ = gp.def->name;
      if (std::find(predicates_.begin(), predicates_.end(), gp.def->name) == predicates_.end()) {
        predicates_.push_back(gp.def->name);
      }
    }
    if (memory_.empty() || params_.empty()) Die("bench.schema maps no memory_capacity or params column");
    const auto& tables = schema.tables();
    auto t = tables.find("bytes_per_parameter");
    if (t == tables.end() || !t->second.count("int4")) Die("the schema has no bytes_per_parameter(int4)");
    int4_bytes_ = t->second.at("int4");
    const auto* gb = schema.FindUnit("GB", "bytes");
    if (gb == nullptr) Die("the schema has no unit GB");
    gb_factor_ = gb->factor;
  }

  Rows Run(int q) {
    switch (q) {
      case 0: return Q1();
      case 1: return Q2();
      case 2: return Q3();
      case 3: return Q4();
      default: return Q5();
    }
  }

 private:
  template <typename T>
  static T Must(Result<T> r, const char* what) {
    if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
    return std::move(r).value();
  }
  static chipkg::ReadView Lean() {
    chipkg::ReadView v;
    v.with_provenance = false;
    return v;
  }

  // Every fact about the chip with each fact's source: publisher, URL, as-of.
  Rows Q1() {
    auto facts = Must(store_.FactsAbout(p_.q1_chip), "Q1");
    std::unordered_map<std::string, chipkg::Document> docs;
    Rows rows;
    rows.reserve(facts.size());
    for (const Fact& f : facts) {
      auto it = docs.find(f.provenance.document_id);
      if (it == docs.end()) {
        it = docs.emplace(f.provenance.document_id, Must(store_.GetDocument(f.provenance.document_id), "Q1 document"))
                 .first;
      }
      rows.push_back({f.subject, QualifiedPredicate(f), f.value.ToString(), f.provenance.document_id,
                      std::string(chipkg::PublisherOfTitle(it->second.title)), it->second.url, AsOf(f)});
    }
    return rows;
  }

  // Every memory claim >= the threshold: chip, value, source.
  Rows Q2() {
    chipkg::ValueRange range;
    range.lower = chipkg::Value::Quantity(p_.q2_min_gb * gb_factor_, "bytes", "");
    range.kind = chipkg::ValueKind::kQuantity;
    auto facts = Must(store_.FactsInRange(memory_, range, Lean()), "Q2");
    Rows rows;
    rows.reserve(facts.size());
    for (const Fact& f : facts) rows.push_back({f.subject, f.value.ToString(), f.provenance.document_id});
    return rows;
  }

  // Every memory claim x every parameter claim of the model with memory >= parameters x bytes(int4).
  Rows Q3() {
    auto params = Must(store_.FactsAbout(p_.q3_model, params_, Lean()), "Q3 parameters");
    Rows rows;
    for (const Fact& p : params) {
      if (p.value.kind != chipkg::ValueKind::kQuantity) continue;
      chipkg::ValueRange range;
      range.lower = chipkg::Value::Quantity(p.value.number * int4_bytes_, "bytes", "");
      range.kind = chipkg::ValueKind::kQuantity;
      auto mem = Must(store_.FactsInRange(memory_, range, Lean()), "Q3 memory");
      for (const Fact& m : mem) {
        rows.push_back({m.subject, m.value.ToString(), m.provenance.document_id, p.provenance.document_id});
      }
    }
    return rows;
  }

  // Every fact the source states.
  Rows Q4() {
    auto facts = Must(store_.FactsFromDocument(p_.q4_source), "Q4");
    Rows rows;
    rows.reserve(facts.size());
    for (const Fact& f : facts) rows.push_back({f.subject, QualifiedPredicate(f), f.value.ToString(), AsOf(f)});
    return rows;
  }

  // Every pair of sources giving different values (neither not published) for one subject and
  // predicate (qualifiers included).
  Rows Q5() {
    Rows rows;
    for (const std::string& pred : predicates_) {
      auto facts = Must(store_.FactsInRange(pred, chipkg::ValueRange{}, Lean()), "Q5");
      std::unordered_map<std::string, std::vector<uint32_t>> groups;
      groups.reserve(facts.size());
      for (uint32_t i = 0; i < facts.size(); ++i) {
        const Fact& f = facts[i];
        if (f.value.kind == chipkg::ValueKind::kNotPublished) continue;
        std::string key = f.subject;
        for (const auto& [k, v] : f.qualifiers) key += "\x1f" + k + "=" + v;
        groups[key].push_back(i);
      }
      for (const auto& [key, idx] : groups) {
        for (size_t a = 0; a < idx.size(); ++a) {
          for (size_t b = a + 1; b < idx.size(); ++b) {
            const Fact& x = facts[idx[a]];
            const Fact& y = facts[idx[b]];
            if (x.provenance.document_id == y.provenance.document_id || x.value.SameContent(y.value)) continue;
            rows.push_back({x.subject, QualifiedPredicate(x), x.provenance.document_id, x.value.ToString(),
                            y.provenance.document_id, y.value.ToString()});
          }
        }
      }
    }
    return rows;
  }

  const chipkg::Store& store_;
  const Params& p_;
  std::string memory_, params_;
  std::vector<std::string> predicates_;
  double int4_bytes_ = 0.5;
  double gb_factor_ = 1e9;
};

// The five queries in chipkg's query language (query/README.md; also query/bench_queries.md),
// answered by query::RunQuery with every row's citations resolved: each citation's source
// (document, version, title, URL, kind, site, fetch time, as-of: more than SQLite's rows carry)
// and, with `read_excerpts`, where in the document the claim sits (section, excerpt,
// attribution), which no SQLite query of the benchmark reads.
class ChipkgLanguageSide {
 public:
  ChipkgLanguageSide(const chipkg::Store& store, const chipkg::Schema& schema, const Params& p, bool read_excerpts)
      : store_(store), schema_(schema), texts_(Texts(p)) {
    options_.read_excerpts = read_excerpts;
  }

  static std::vector<std::string> Texts(const Params& p) {
    char gb[32];
    std::snprintf(gb, sizeof gb, "%g", p.q2_min_gb);
    return {
        "facts about \"" + p.q1_chip + "\"",
        std::string("find chip where memory >= ") + gb + " GB with evidence",
        "find chip where fits(\"" + p.q3_model + "\", int4) with evidence",
        "facts from document \"" + p.q4_source + "\"",
        "conflicts in chip tolerance 0% ignoring not_published",
    };
  }
  const std::string& Text(int q) const { return texts_[static_cast<size_t>(q)]; }

  // Rows of the answer; `last_` keeps the last result so its rendering can be timed too.
  size_t Run(int q) {
    auto r = chipkg::query::RunQuery(store_, schema_, texts_[static_cast<size_t>(q)], options_);
    if (!r.ok()) Die(QueryName(q) + " " + texts_[static_cast<size_t>(q)] + ": " + r.status().ToString());
    last_ = std::move(r).value();
    return last_.rows.size();
  }
  const chipkg::query::QueryResult& last() const { return last_; }

 private:
  const chipkg::Store& store_;
  const chipkg::Schema& schema_;
  std::vector<std::string> texts_;
  chipkg::query::QueryOptions options_;
  chipkg::query::QueryResult last_;
};

// ---------------------------------------------------------------------------------------------
// Timing and the report.

struct QueryTiming {
  double median_ms = 0;
  // CPU time of the whole process (user + system, every thread) during a run, median: chipkg's
  // queries use both cores (a helper thread reads ahead and evaluates half of a large answer),
  // SQLite's one, so wall-time ratios alone hide what each answer costs the machine.
  double median_cpu_ms = 0;
  uint64_t rows = 0;
};

// (The process clock, not getrusage: its nanoseconds still mean something for a query of 0.05 ms.)
double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Each of `sides` answers the query and returns its row count. A side whose
// runs take long takes turns with the others run by run, warm-ups included:
// these machines change speed by up to 1.5x within minutes, and a side timed
// whole before the other took its ratio from whatever spell it met (chipkg's
// Q5 took 1,136 ms in one run and 1,644-1,677 ms in the next two, where
// SQLite's stayed put). Quick queries (every side's first warm-up under
// kTurnsFrom) keep each side's runs back to back: all of them take a few
// milliseconds, within which the machine does not change, and taking turns
// would only time each run in caches the other sides had just filled (Q1 at
// N=10,000: 0.150 ms for chipkg and 0.157 for SQLite, against 0.058 and
// 0.066 back to back; tools/bench/HISTORY.md).
std::vector<QueryTiming> TimeByTurns(const std::vector<std::function<size_t()>>& sides, int warmups, int runs) {
  constexpr double kTurnsFrom = 10;  // ms
  std::vector<QueryTiming> t(sides.size());
  double last_cpu_ms = 0;  // of the latest timed run
  std::vector<std::vector<double>> ms(sides.size()), cpu_ms(sides.size());
  auto timed = [&](size_t s) {
    const double cpu0 = ProcessCpuMs();
    auto t0 = Clock::now();
    t[s].rows = sides[s]();
    const double wall = Ms(t0, Clock::now());
    last_cpu_ms = ProcessCpuMs() - cpu0;
    return wall;
  };
  double longest_first = 0;
  if (warmups > 0) {
    for (size_t s = 0; s < sides.size(); ++s) longest_first = std::max(longest_first, timed(s));
  }
  if (longest_first >= kTurnsFrom) {
    for (int i = 1; i < warmups; ++i) {
      for (size_t s = 0; s < sides.size(); ++s) timed(s);
    }
    for (int i = 0; i < runs; ++i) {
      for (size_t s = 0; s < sides.size(); ++s) {
        ms[s].push_back(timed(s));
        cpu_ms[s].push_back(last_cpu_ms);
      }
    }
  } else {
    for (size_t s = 0; s < sides.size(); ++s) {
      for (int i = 1; i < warmups; ++i) timed(s);
      for (int i = 0; i < runs; ++i) {
        ms[s].push_back(timed(s));
        cpu_ms[s].push_back(last_cpu_ms);
      }
    }
  }
  for (size_t s = 0; s < sides.size(); ++s) {
    std::sort(ms[s].begin(), ms[s].end());
    t[s].median_ms = ms[s][ms[s].size() / 2];
    std::sort(cpu_ms[s].begin(), cpu_ms[s].end());
    t[s].median_cpu_ms = cpu_ms[s][cpu_ms[s].size() / 2];
  }
  return t;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string Fmt(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
std::string Thousands(double v) {
  const std::string digits = std::to_string(static_cast<long long>(v + 0.5));
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}
std::string FmtMs(double ms) { return ms < 1 ? Fmt(ms, 3) : ms < 100 ? Fmt(ms, 2) : Thousands(ms); }

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  if (!o.allocator_defaults) chipkg::tools::ApplyHeapPolicy();  // SQLite allocates from the same heap
  EnsureCorpus(o.corpus, o.n, o.gen, "--n");
  Params p = ReadParams(o.corpus);
  const bool growth = !o.growth_corpus.empty() && !o.load_only;
  Params gp;
  if (growth) {
    EnsureCorpus(o.growth_corpus, o.growth_n, o.gen, "--growth-n");
    gp = ReadParams(o.growth_corpus);
  }

  std::error_code ec;
  fs::create_directories(o.work, ec);
  if (ec) Die("cannot create " + o.work + ": " + ec.message());
  const std::string store_path = o.work + "/chipkg-store";
  const std::string db_path = o.work + "/sqlite.db";
  // Writes still pending on the machine (a corpus just generated is 1.8 GB of dirty pages at
  // 100k) are flushed first: the kernel writes them back some 30 s later, in the middle of the
  // loads and queries, and the first run on a new machine, straight after the generator, had
  // SQLite's load at 22.1 s against 14.2-15.5 in the runs after it, every query 1.3-1.8x slower
  // (tools/bench/HISTORY.md, 2026-12-02 04:27).
  {
    auto t0 = Clock::now();
    ::sync();
    std::fprintf(stderr, "pending writes flushed first: %.0f ms\n", Ms(t0, Clock::now()));
  }
  double cache_ms = 0;
  for (const char* file : {"/sources.jsonl", "/facts.jsonl"}) cache_ms += ReadIntoPageCache(o.corpus + file);
  std::fprintf(stderr, "corpus read into the page cache first: %.0f ms\n", cache_ms);
  // Each load runs `load_rounds` times in a row, the last one reported (its store and file are
  // the ones queried), as the queries get warm-ups: on these machines a process taking a gigabyte
  // of memory the hypervisor has taken back pays ~20 ms a 2 MiB page to have it again (the 100k
  // import: 18.9 s, 14.5 of them in the kernel zeroing 1.26 GB; 9.9 s right after an import had
  // freed the same amount; with SQLite's load in between, 17.5 and 17.1 s). SQLite's load, at 21
  // MB, never meets that. Every round's time is printed.
  // Before each system's first round the machine rests (--cold-pause): memory freed less than a
  // second before costs next to nothing to take again, memory freed ~2 s before as much as fresh
  // (HISTORY.md, 2026-12-01 15:47), so without the rest a first round inherits what the process
  // before it freed. The first round is then the cold load a cron job sees, reported beside the
  // warm one.
  auto rest = [&o] {
    if (o.cold_pause_s <= 0) return;
    std::fprintf(stderr, "resting %ld s before a cold load ...\n", o.cold_pause_s);
    ::sleep(static_cast<unsigned>(o.cold_pause_s));
  };
  ChildResult ck, sq;
  std::vector<double> ck_rounds_ms, sq_rounds_ms;
  for (int round = 0; round < o.load_rounds; ++round) {
    fs::remove_all(store_path, ec);
    if (round == 0) rest();
    std::fprintf(stderr, "loading %s into chipkg (round %d) ...\n", o.corpus.c_str(), round + 1);
    ck = RunInChild([&] { return LoadChipkg(o.corpus, store_path); });
    if (!ck.ok) Die("chipkg load failed: " + ck.error);
    ck_rounds_ms.push_back(ck.result["ms"].get<double>());
  }
  // The smaller corpus's chipkg load, right after the main one's, the same number of rounds.
  ChildResult gck;
  const std::string growth_store_path = o.growth_work + "/chipkg-store";
  if (growth) {
    fs::create_directories(o.growth_work, ec);
    if (ec) Die("cannot create " + o.growth_work + ": " + ec.message());
    ReadIntoPageCache(o.growth_corpus + "/sources.jsonl");
    ReadIntoPageCache(o.growth_corpus + "/facts.jsonl");
    for (int round = 0; round < o.load_rounds; ++round) {
      fs::remove_all(growth_store_path, ec);
      if (round == 0) rest();  // as the main load's: the rounds compared are then alike
      std::fprintf(stderr, "loading %s into chipkg (round %d) ...\n", o.growth_corpus.c_str(), round + 1);
      gck = RunInChild([&] { return LoadChipkg(o.growth_corpus, growth_store_path); });
      if (!gck.ok) Die("chipkg load of " + o.growth_corpus + " failed: " + gck.error);
    }
  }
  for (int round = 0; round < o.load_rounds; ++round) {
    fs::remove(db_path, ec);
    fs::remove(db_path + "-journal", ec);
    if (round == 0) rest();
    std::fprintf(stderr, "loading %s into SQLite (round %d) ...\n", o.corpus.c_str(), round + 1);
    sq = RunInChild([&] { return LoadSqlite(o.corpus, db_path); });
    if (!sq.ok) Die("SQLite load failed: " + sq.error);
    sq_rounds_ms.push_back(sq.result["ms"].get<double>());
  }
  const std::string rest_text = o.cold_pause_s > 0
                                    ? "a rest of " + std::to_string(o.cold_pause_s) + " s before each first round"
                                    : "no rest before the first";
  auto rounds_text = [](const std::vector<double>& ms) {
    std::string text;
    for (double m : ms) text += (text.empty() ? "" : ", ") + Fmt(m / 1000, 2);
    return text;
  };
  const uint64_t ck_bytes = DiskBytes(store_path);
  const uint64_t sq_bytes = DiskBytes(db_path);
  const double ck_ms = ck.result["ms"].get<double>();
  const double sq_ms = sq.result["ms"].get<double>();
  const uint64_t ck_facts = ck.result["facts"].get<uint64_t>();
  const uint64_t sq_facts = sq.result["facts"].get<uint64_t>();
  bool ok = true;
  std::vector<std::string> failures;
  if (ck_facts != p.facts) failures.push_back("chipkg loaded " + std::to_string(ck_facts) + " facts, expected " +
                                              std::to_string(p.facts));
  if (sq_facts != p.facts) failures.push_back("SQLite loaded " + std::to_string(sq_facts) + " facts, expected " +
                                              std::to_string(p.facts));
  if (growth && gck.result["facts"].get<uint64_t>() != gp.facts) {
    failures.push_back("chipkg loaded " + std::to_string(gck.result["facts"].get<uint64_t>()) + " facts of " +
                       o.growth_corpus + ", expected " + std::to_string(gp.facts));
  }

  if (o.load_only) {
    double load1 = 0;
    if (std::FILE* la = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(la, "%lf", &load1) != 1) load1 = 0;
      std::fclose(la);
    }
    const double ck_fps = ck_facts / (ck_ms / 1000), sq_fps = sq_facts / (sq_ms / 1000);
    std::printf("load only, corpus %s: %s facts, load average %.1f at the end\n", o.corpus.c_str(),
                Thousands(static_cast<double>(p.facts)).c_str(), load1);
    std::printf("| %-22s | %12s | %12s | %13s |\n", "measure", "chipkg", "SQLite", "chipkg/SQLite");
    auto row = [](const char* what, const std::string& a, const std::string& b, double r) {
      std::printf("| %-22s | %12s | %12s | %13s |\n", what, a.c_str(), b.c_str(), Fmt(r, 2).c_str());
    };
    row("load facts/s", Thousands(ck_fps), Thousands(sq_fps), ck_fps / sq_fps);
    row("load s (whole)", Fmt(ck_ms / 1000, 2), Fmt(sq_ms / 1000, 2), ck_ms / sq_ms);
    if (o.load_rounds > 1) {
      row(o.cold_pause_s > 0 ? "load s, cold round" : "load s, first round", Fmt(ck_rounds_ms[0] / 1000, 2),
          Fmt(sq_rounds_ms[0] / 1000, 2), ck_rounds_ms[0] / sq_rounds_ms[0]);
    }
    row("load CPU s (user+sys)", Fmt(ck.cpu_s, 2), Fmt(sq.cpu_s, 2), ck.cpu_s / sq.cpu_s);
    row("store size MB", Fmt(ck_bytes / 1e6, 1), Fmt(sq_bytes / 1e6, 1),
        static_cast<double>(ck_bytes) / static_cast<double>(sq_bytes));
    row("peak memory MB", Fmt(ck.max_rss_kib / 1024.0, 0), Fmt(sq.max_rss_kib / 1024.0, 0),
        static_cast<double>(ck.max_rss_kib) / static_cast<double>(sq.max_rss_kib));
    std::printf("chipkg load: %s ms schema, %s ms first pass, %s ms BulkWriter::Finish\n",
                Fmt(ck.result["schema_ms"].get<double>(), 0).c_str(),
                Fmt(ck.result["first_pass_ms"].get<double>(), 0).c_str(),
                Fmt(ck.result["finish_ms"].get<double>(), 0).c_str());
    std::printf("load rounds, s (each in a row, the last reported; %s): chipkg %s; SQLite %s\n", rest_text.c_str(),
                rounds_text(ck_rounds_ms).c_str(), rounds_text(sq_rounds_ms).c_str());
    for (const auto& f : failures) std::fprintf(stderr, "MISMATCH: %s\n", f.c_str());
    return failures.empty() ? 0 : 1;
  }

  // Whole process: one command answering Q1, spawned; chipkg and sqlite3 take turns, so that
  // both see the machine in the same state (just after the loads, the first allocations of a
  // process can cost several times what they cost a minute later), and each gets the median of
  // its runs. Measured before the in-process queries, while this process is small: after them it
  // holds gigabytes of answers (kept for reuse by the heap policy), and the spawned commands
  // measured up to half slower for it (39 ms against 26 ms in one run), which is the harness.
  std::string ck_proc = "n/a", sq_proc = "n/a";
  double ck_proc_ms = -1, sq_proc_ms = -1;
  {
    std::vector<double> ck_ms, sq_ms;
    std::string ck_why, sq_why;
    const std::string q1_text = ChipkgLanguageSide::Texts(p)[0];
    for (int i = 0; i < o.process_runs; ++i) {
      if (ck_why.empty()) {
        ProcessResult r =
            RunProcess({o.chipkg_binary, "--db", store_path, "query", q1_text}, o.work + "/chipkg-q1.out");
        if (r.exit_code != 0) {
          ck_why = "exit " + std::to_string(r.exit_code) + ", output in " + o.work + "/chipkg-q1.out";
        }
        ck_ms.push_back(r.ms);
      }
      if (sq_why.empty()) {
        ProcessResult r = RunProcess({o.sqlite3_binary, db_path, SqliteSide::Q1Sql(p)}, "/dev/null");
        if (r.exit_code != 0) sq_why = "exit " + std::to_string(r.exit_code);
        sq_ms.push_back(r.ms);
      }
    }
    if (ck_why.empty() && !ck_ms.empty()) {
      ck_proc_ms = Median(ck_ms);
      ck_proc = FmtMs(ck_proc_ms);
    } else {
      ck_proc = "n/a (" + ck_why + ")";
    }
    if (sq_why.empty() && !sq_ms.empty()) {
      sq_proc_ms = Median(sq_ms);
      sq_proc = FmtMs(sq_proc_ms);
    } else {
      sq_proc = "n/a (" + sq_why + ")";
    }
  }

  // Queries, in this process.
  auto schema = chipkg::Schema::LoadDirectory(chipkg::Schema::DefaultDirectory());
  if (!schema.ok()) Die(schema.status().ToString());
  auto store = chipkg::Store::Open(store_path);
  if (!store.ok()) Die(store.status().ToString());
  ChipkgLanguageSide language_side(**store, *schema, p, /*read_excerpts=*/false);
  ChipkgLanguageSide excerpts_side(**store, *schema, p, /*read_excerpts=*/true);
  ChipkgStoreApiSide api_side(**store, *schema, p);
  SqliteSide sqlite_side(db_path, p);
  QueryTiming ck_q[5], ex_q[5], api_q[5], sq_q[5];
  double render_ms[5] = {};
  for (int q = 0; q < 5; ++q) {
    std::string name = QueryName(q);
    std::fprintf(stderr, "%s: %s\n", name.c_str(), language_side.Text(q).c_str());
    const std::vector<QueryTiming> timed = TimeByTurns({[&] { return language_side.Run(q); },
                                                         [&] { return excerpts_side.Run(q); },
                                                         [&] { return api_side.Run(q).size(); },
                                                         [&] { return sqlite_side.Run(q).size(); }},
                                                        o.warmups, o.runs);
    ck_q[q] = timed[0];
    ex_q[q] = timed[1];
    api_q[q] = timed[2];
    sq_q[q] = timed[3];
    {
      auto t0 = Clock::now();
      std::string text = chipkg::query::Render(excerpts_side.last(), chipkg::query::Format::kText);
      render_ms[q] = Ms(t0, Clock::now());
      if (text.empty()) Die(name + ": empty rendering");
    }
    uint64_t want = p.expected.count(name) ? p.expected[name] : 0;
    auto check = [&](const char* who, const QueryTiming& t) {
      if (t.rows != want) {
        failures.push_back(std::string(who) + " " + name + ": " + std::to_string(t.rows) + " rows, expected " +
                           std::to_string(want));
      }
    };
    check("chipkg (query language)", ck_q[q]);
    check("chipkg (query language, excerpts read)", ex_q[q]);
    check("chipkg (Store API)", api_q[q]);
    check("SQLite", sq_q[q]);
  }

  // The table.
  struct utsname un {};
  uname(&un);
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  double mem_gib = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE) / (1ull << 30);
  double load1 = 0;
  if (std::FILE* la = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(la, "%lf", &load1) != 1) load1 = 0;
    std::fclose(la);
  }
  // (The report's date and load average are those of the main table's end.)
  // Cost growth: chipkg's queries on the smaller corpus and on this one, by turns, so that both
  // medians come from the same minutes (measured apart, minutes or a run away, the ratio of two
  // figures that each move by up to 1.5x with the machine's spells said more of the spells than
  // of the code: session 28's runs, tools/bench/HISTORY.md).
  QueryTiming growth_big[5], growth_small[5];
  if (growth) {
    auto small_store = chipkg::Store::Open(growth_store_path);
    if (!small_store.ok()) Die(small_store.status().ToString());
    ChipkgLanguageSide small_side(**small_store, *schema, gp, /*read_excerpts=*/false);
    for (int q = 0; q < 5; ++q) {
      std::fprintf(stderr, "%s, cost growth: %s\n", QueryName(q).c_str(), small_side.Text(q).c_str());
      const std::vector<QueryTiming> timed =
          TimeByTurns({[&] { return language_side.Run(q); }, [&] { return small_side.Run(q); }}, o.warmups, o.runs);
      growth_big[q] = timed[0];
      growth_small[q] = timed[1];
      const std::string name = QueryName(q);
      for (const auto& [timing, params, corpus] :
           {std::tuple{&growth_small[q], &gp, &o.growth_corpus}, std::tuple{&growth_big[q], &p, &o.corpus}}) {
        const uint64_t want = params->expected.count(name) ? params->expected.at(name) : 0;
        if (timing->rows != want) {
          failures.push_back("chipkg (query language) " + name + " on " + *corpus + ", cost growth: " +
                             std::to_string(timing->rows) + " rows, expected " + std::to_string(want));
        }
      }
    }
  }

  std::printf("chipkg peer benchmark, %s, %s %s, %ld cores, %.0f GiB RAM, load average %.1f at the end\n", date,
              un.sysname, un.machine, cores, mem_gib, load1);
  std::printf("corpus %s: N=%s chips, %s facts; queries in-process, %d warm-ups, median of %d\n\n", o.corpus.c_str(),
              Thousands(static_cast<double>(p.n_chips)).c_str(), Thousands(static_cast<double>(p.facts)).c_str(),
              o.warmups, o.runs);
  std::printf("| %-28s | %13s | %13s | %13s | %-8s | %-4s |\n", "measure", "chipkg", "SQLite " SQLITE_VERSION,
              "chipkg/SQLite", "target", "met");
  std::printf("|%s|%s|%s|%s|%s|%s|\n", std::string(30, '-').c_str(), std::string(15, '-').c_str(),
              std::string(15, '-').c_str(), std::string(15, '-').c_str(), std::string(10, '-').c_str(),
              std::string(6, '-').c_str());
  // `ratio_target`: chipkg/SQLite must be at least (kind 1) or at most (kind -1) it; 0: no target.
  auto line = [](const std::string& what, const std::string& a, const std::string& b, double ratio,
                 const std::string& target, std::optional<bool> met) {
    std::printf("| %-28s | %13s | %13s | %13s | %-8s | %-4s |\n", what.c_str(), a.c_str(), b.c_str(),
                ratio > 0 ? Fmt(ratio, 2).c_str() : "", target.c_str(), met ? (*met ? "yes" : "NO") : "");
  };
  const double ck_fps = ck_facts / (ck_ms / 1000), sq_fps = sq_facts / (sq_ms / 1000);
  line("load facts/s", Thousands(ck_fps), Thousands(sq_fps), ck_fps / sq_fps, ">= 3x", ck_fps >= 3 * sq_fps);
  line("load s (whole)", Fmt(ck_ms / 1000, 2), Fmt(sq_ms / 1000, 2), ck_ms / sq_ms, "", std::nullopt);
  if (o.load_rounds > 1) {
    line(o.cold_pause_s > 0 ? "load s, cold round" : "load s, first round", Fmt(ck_rounds_ms[0] / 1000, 2),
         Fmt(sq_rounds_ms[0] / 1000, 2), ck_rounds_ms[0] / sq_rounds_ms[0], "", std::nullopt);
  }
  line("load us/fact", Fmt(ck_ms * 1000 / ck_facts, 2), Fmt(sq_ms * 1000 / sq_facts, 2), ck_ms / sq_ms, "",
       std::nullopt);
  line("load CPU s (user+sys)", Fmt(ck.cpu_s, 2), Fmt(sq.cpu_s, 2), ck.cpu_s / sq.cpu_s, "", std::nullopt);
  const double size_ratio = static_cast<double>(ck_bytes) / static_cast<double>(sq_bytes);
  line("store size MB", Fmt(ck_bytes / 1e6, 1), Fmt(sq_bytes / 1e6, 1), size_ratio, "<= 1.5x", size_ratio <= 1.5);
  line("peak memory MB (load)", Fmt(ck.max_rss_kib / 1024.0, 0), Fmt(sq.max_rss_kib / 1024.0, 0),
       static_cast<double>(ck.max_rss_kib) / static_cast<double>(sq.max_rss_kib), "< 2 GiB",
       ck.max_rss_kib < 2 * 1024 * 1024);
  for (int q = 0; q < 5; ++q) {
    std::string what = QueryName(q);
    what += " ms (" + Thousands(static_cast<double>(sq_q[q].rows)) + " rows)";
    double r = ck_q[q].median_ms / sq_q[q].median_ms;
    line(what, FmtMs(ck_q[q].median_ms), FmtMs(sq_q[q].median_ms), r, "<= 0.33x", r <= 1.0 / 3);
  }
  line("Q1 whole process ms", ck_proc_ms > 0 ? FmtMs(ck_proc_ms) : "n/a", sq_proc_ms > 0 ? FmtMs(sq_proc_ms) : "n/a",
       ck_proc_ms > 0 && sq_proc_ms > 0 ? ck_proc_ms / sq_proc_ms : 0, "< 10 ms",
       ck_proc_ms > 0 ? std::optional<bool>(ck_proc_ms < 10) : std::nullopt);
  if (ck_proc_ms < 0) std::printf("\nchipkg query Q1 whole process: %s\n", ck_proc.c_str());
  if (sq_proc_ms < 0) std::printf("sqlite3 Q1 whole process: %s\n", sq_proc.c_str());

  std::printf("\nWhere the query time goes (ms, median): the query language (RunQuery, each citation with its\n"
              "source, as in the table above), the same with every citation's excerpt read too, the same answer\n"
              "straight from the Store API (engine/store.h, rows as strings), rendering the excerpts' answer as\n"
              "text (once, not in the timing above), SQLite; and cost per row.\n\n");
  std::printf("| %-5s | %12s | %13s | %12s | %12s | %12s | %13s | %13s |\n", "query", "language", "with excerpts",
              "Store API", "render text", "SQLite", "language us/row", "SQLite us/row");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(7, '-').c_str(), std::string(14, '-').c_str(),
              std::string(15, '-').c_str(), std::string(14, '-').c_str(), std::string(14, '-').c_str(),
              std::string(14, '-').c_str(), std::string(17, '-').c_str(), std::string(15, '-').c_str());
  for (int q = 0; q < 5; ++q) {
    double rows = static_cast<double>(std::max<uint64_t>(1, sq_q[q].rows));
    std::printf("| Q%-4d | %12s | %13s | %12s | %12s | %12s | %15s | %13s |\n", q + 1, FmtMs(ck_q[q].median_ms).c_str(),
                FmtMs(ex_q[q].median_ms).c_str(), FmtMs(api_q[q].median_ms).c_str(), FmtMs(render_ms[q]).c_str(),
                FmtMs(sq_q[q].median_ms).c_str(),
                Fmt(ck_q[q].median_ms * 1000 / rows, 2).c_str(), Fmt(sq_q[q].median_ms * 1000 / rows, 2).c_str());
  }
  // What each answer costs the machine, beside what it costs the one waiting for it.
  std::printf("\nCPU time of a query (ms, median; the process's CPU clock over the run, every thread):\n"
              "a chipkg query may use both cores (its helper thread reads ahead and evaluates half of a large\n"
              "answer), SQLite's uses one; CPU/wall says how many cores chipkg's kept busy.\n\n");
  std::printf("| %-5s | %12s | %12s | %13s | %17s |\n", "query", "language CPU", "SQLite CPU", "chipkg/SQLite",
              "language CPU/wall");
  std::printf("|%s|%s|%s|%s|%s|\n", std::string(7, '-').c_str(), std::string(14, '-').c_str(),
              std::string(14, '-').c_str(), std::string(15, '-').c_str(), std::string(19, '-').c_str());
  for (int q = 0; q < 5; ++q) {
    const double ratio = sq_q[q].median_cpu_ms > 0 ? ck_q[q].median_cpu_ms / sq_q[q].median_cpu_ms : 0;
    const double busy = ck_q[q].median_ms > 0 ? ck_q[q].median_cpu_ms / ck_q[q].median_ms : 0;
    std::printf("| Q%-4d | %12s | %12s | %13s | %17s |\n", q + 1, FmtMs(ck_q[q].median_cpu_ms).c_str(),
                FmtMs(sq_q[q].median_cpu_ms).c_str(), ratio > 0 ? Fmt(ratio, 2).c_str() : "n/a",
                Fmt(busy, 2).c_str());
  }
  std::printf("\nchipkg load: %s ms schema, %s ms first pass (document texts), %s ms BulkWriter::Finish\n",
              Fmt(ck.result["schema_ms"].get<double>(), 0).c_str(),
              Fmt(ck.result["first_pass_ms"].get<double>(), 0).c_str(),
              Fmt(ck.result["finish_ms"].get<double>(), 0).c_str());
  std::printf("SQLite load: %s ms of it building the three indexes\n",
              Fmt(sq.result["index_ms"].get<double>(), 0).c_str());
  std::printf("both loads read the corpus from the page cache (read through first, untimed: %s ms)\n",
              Fmt(cache_ms, 0).c_str());
  std::printf("load rounds, s (each in a row, the last reported; %s): chipkg %s; SQLite %s\n", rest_text.c_str(),
              rounds_text(ck_rounds_ms).c_str(), rounds_text(sq_rounds_ms).c_str());
  std::printf("\nchipkg queries:\n");
  for (int q = 0; q < 5; ++q) std::printf("  Q%d  %s\n", q + 1, ChipkgLanguageSide::Texts(p)[q].c_str());

  // Per fact loaded and per row answered, N=growth -> N=this; each query's two sides timed by
  // turns just now (their medians are not the table's, timed earlier with the other sides).
  std::vector<double> growth_ratios;  // load, Q1-Q5
  if (growth) {
    const double small_ms = gck.result["ms"].get<double>();
    const double small_facts = static_cast<double>(gck.result["facts"].get<uint64_t>());
    std::printf("\nCost growth of chipkg, N=%s -> N=%s (per fact loaded, per row answered; each query timed on both\n"
                "stores together, by turns run by run where a run takes 10 ms or more, else back to back, %d warm-ups\n"
                "and the median of %d each; the load is the last round of each):\n\n",
                Thousands(static_cast<double>(gp.n_chips)).c_str(), Thousands(static_cast<double>(p.n_chips)).c_str(),
                o.warmups, o.runs);
    std::printf("| %-12s | %14s | %14s | %8s | %-8s | %-4s |\n", "measure", "us, small N", "us, large N", "growth",
                "target", "met");
    std::printf("|%s|%s|%s|%s|%s|%s|\n", std::string(14, '-').c_str(), std::string(16, '-').c_str(),
                std::string(16, '-').c_str(), std::string(10, '-').c_str(), std::string(10, '-').c_str(),
                std::string(6, '-').c_str());
    auto growth_line = [&](const std::string& what, double small_us, double big_us) {
      const double ratio = big_us / small_us;
      growth_ratios.push_back(ratio);
      std::printf("| %-12s | %14s | %14s | %8s | %-8s | %-4s |\n", what.c_str(), Fmt(small_us, 3).c_str(),
                  Fmt(big_us, 3).c_str(), Fmt(ratio, 2).c_str(), "<= 1.5x", ratio <= 1.5 ? "yes" : "NO");
    };
    growth_line("load, a fact", small_ms * 1000 / std::max(1.0, small_facts),
                ck_ms * 1000 / std::max<double>(1, static_cast<double>(ck_facts)));
    for (int q = 0; q < 5; ++q) {
      growth_line(QueryName(q) + ", a row",
                  growth_small[q].median_ms * 1000 / static_cast<double>(std::max<uint64_t>(1, growth_small[q].rows)),
                  growth_big[q].median_ms * 1000 / static_cast<double>(std::max<uint64_t>(1, growth_big[q].rows)));
    }
  }

  if (!o.json_out.empty()) {
    nlohmann::json j;
    j["date"] = date;
    j["n_chips"] = p.n_chips;
    j["facts"] = p.facts;
    j["load_average_end"] = load1;
    j["load"] = {{"chipkg_ms", ck_ms}, {"sqlite_ms", sq_ms}, {"chipkg_facts_per_s", ck_fps},
                 {"sqlite_facts_per_s", sq_fps}, {"chipkg_finish_ms", ck.result["finish_ms"]},
                 {"chipkg_first_pass_ms", ck.result["first_pass_ms"]}, {"sqlite_index_ms", sq.result["index_ms"]}};
    j["bytes"] = {{"chipkg", ck_bytes}, {"sqlite", sq_bytes}};
    j["max_rss_kib"] = {{"chipkg", ck.max_rss_kib}, {"sqlite", sq.max_rss_kib}};
    j["load_cpu_s"] = {{"chipkg", ck.cpu_s}, {"sqlite", sq.cpu_s}};
    j["load_rounds_ms"] = {{"chipkg", ck_rounds_ms}, {"sqlite", sq_rounds_ms}};
    j["cold_pause_s"] = o.cold_pause_s;
    for (int q = 0; q < 5; ++q) {
      j["queries"][QueryName(q)] = {{"text", ChipkgLanguageSide::Texts(p)[q]},
                                                    {"rows", sq_q[q].rows},
                                                    {"chipkg_rows", ck_q[q].rows},
                                                    {"chipkg_ms", ck_q[q].median_ms},
                                                    {"chipkg_cpu_ms", ck_q[q].median_cpu_ms},
                                                    {"with_excerpts_ms", ex_q[q].median_ms},
                                                    {"store_api_ms", api_q[q].median_ms},
                                                    {"render_ms", render_ms[q]},
                                                    {"sqlite_ms", sq_q[q].median_ms},
                                                    {"sqlite_cpu_ms", sq_q[q].median_cpu_ms}};
    }
    j["q1_process_ms"] = {{"chipkg", ck_proc_ms}, {"sqlite", sq_proc_ms}};
    if (growth) {
      j["growth"]["n_chips"] = gp.n_chips;
      j["growth"]["load"] = {{"ms", gck.result["ms"]}, {"facts", gck.result["facts"]}, {"ratio", growth_ratios[0]}};
      for (int q = 0; q < 5; ++q) {
        j["growth"]["queries"][QueryName(q)] = {{"small_ms", growth_small[q].median_ms},
                                                {"small_rows", growth_small[q].rows},
                                                {"large_ms", growth_big[q].median_ms},
                                                {"large_rows", growth_big[q].rows},
                                                {"ratio", growth_ratios[static_cast<size_t>(q) + 1]}};
      }
    }
    j["failures"] = failures;
    std::ofstream(o.json_out) << j.dump(1) << "\n";
  }

  for (const auto& f : failures) {
    std::fprintf(stderr, "MISMATCH: %s\n", f.c_str());
    ok = false;
  }
  if (!ok) {
    std::fprintf(stderr, "chipkg-peer-bench: FAILED: row counts differ from params.json expected_rows\n");
    return 1;
  }
  std::printf("\nall row counts match params.json expected_rows\n");
  return 0;
}
