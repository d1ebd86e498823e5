// chipkg-store-bench: load and lookup figures of the storage engine alone.
//
//   chipkg-store-bench [--facts N] [--dir PATH] [--keep] [--seed S] [--lookups L] [--doc-writes K]
//                      [--block-cache-mib M]
//
// Generates a synthetic corpus in process (tools/bench/synthetic_corpus.h),
// measures what it generated (claims per chip, sources per claim, conflicting
// and not-published shares), bulk-loads it through Store::StartBulk, then
// writes K documents one at a time with WriteDocumentVersion (new documents,
// then changed versions of loaded ones), then times point, range and
// by-document lookups, on the open store and again after a close and reopen.
//
// Every lookup's result is checked against what the generator produced (row
// counts per subject, per document and per range, value bounds and order of
// range results, the store's counters); a mismatch is printed and the program
// exits 1 after printing its figures. Load rates count only the time spent in
// store calls; generating the corpus is timed apart, and the wall time
// including it is printed too. The store is real RocksDB on disk: --dir must
// name a directory that does not exist or is empty; it is removed at the end
// unless --keep. Results and method: tools/bench/STORE_BENCH.md.
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/store.h"
#include "tools/bench/synthetic_corpus.h"
#include "tools/heap_policy.h"

namespace fs = std::filesystem;
using chipkg::Fact;
using chipkg::ReadView;
using chipkg::Store;
using chipkg::Value;
using chipkg::ValueKind;
using chipkg::ValueRange;
using chipkg::bench::SyntheticChip;
using chipkg::bench::SyntheticCorpus;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  uint64_t facts = 100000;
  std::string dir;
  bool keep = false;
  uint64_t seed = 1;
  int lookups = 2000;
  int doc_writes = 3000;
  int block_cache_mib = 0;  // 0: the engine's default (StoreOptions::block_cache_bytes)
};

[[noreturn]] void Die(const std::string& msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "chipkg-store-bench: %s\n", msg.c_str());
  std::exit(1);
}

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: chipkg-store-bench [--facts N] [--dir PATH] [--keep] [--seed S] [--lookups L] "
               "[--doc-writes K] [--block-cache-mib M]\n");
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Usage();
      return argv[++i];
    };
    try {
      if (a == "--facts") {
        o.facts = std::stoull(next());
      } else if (a == "--dir") {
        o.dir = next();
      } else if (a == "--keep") {
        o.keep = true;
      } else if (a == "--seed") {
        o.seed = std::stoull(next());
      } else if (a == "--lookups") {
        o.lookups = std::stoi(next());
      } else if (a == "--doc-writes") {
        o.doc_writes = std::stoi(next());
      } else if (a == "--block-cache-mib") {
        o.block_cache_mib = std::stoi(next());
      } else {
        Usage();
      }
    } catch (const std::exception&) {
      Usage();
    }
  }
  if (o.facts == 0 || o.lookups <= 0 || o.doc_writes < 0 || o.block_cache_mib < 0) Usage();
  return o;
}

template <typename T>
T Must(chipkg::Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(r).value();
}

void Must(const chipkg::Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string Thousands(double v) {
  const std::string digits = std::to_string(static_cast<long long>(v + 0.5));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// User + system CPU seconds of the process so far (all threads).
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// CPU seconds of the calling thread: unlike wall time, not inflated while the
// thread waits for a core on a busy machine. Store reads run on the caller's thread.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// The 1, 5 and 15 minute load averages: the machine is shared, so every run says how busy it was.
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (!(in >> a >> b >> c)) return "unknown";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
  return buf;
}

// Bytes of every regular file under `dir`: apparent (sum of sizes, what
// StoreStats::disk_bytes counts) and allocated (st_blocks, what `du` shows).
struct DiskUsage {
  uint64_t apparent = 0;
  uint64_t allocated = 0;
  uint64_t files = 0;
};
DiskUsage MeasureDir(const std::string& dir) {
  DiskUsage u;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      u.apparent += static_cast<uint64_t>(st.st_size);
      u.allocated += static_cast<uint64_t>(st.st_blocks) * 512;
      ++u.files;
    }
  }
  return u;
}

// ---- what the generator produced --------------------------------------------

const Value kGe64 = Value::Quantity(64e9, "bytes", "");
const Value k80 = Value::Quantity(80e9, "bytes", "");
const Value k96 = Value::Quantity(96e9, "bytes", "");
const chipkg::Date k2024{2024, 0, 0, chipkg::DatePrecision::kYear};

// Per chip, the figures the checks compare lookups with.
struct ChipCounts {
  uint32_t facts = 0;
  uint32_t not_published = 0;
  uint16_t memory = 0;           // facts of "memory", not-published ones included
  uint16_t memory_ge64 = 0;      // quantities >= 64 GB
  uint16_t memory_80_96 = 0;     // quantities in [80 GB, 96 GB)
  uint16_t released_2024 = 0;    // dates in 2024 or later
  uint16_t memory_type = 0;      // facts of "memory_type"
  uint16_t per_doc[SyntheticCorpus::kSources] = {};
};

ChipCounts Count(const SyntheticChip& chip) {
  ChipCounts c;
  for (size_t s = 0; s < chip.documents.size() && s < SyntheticCorpus::kSources; ++s) {
    c.per_doc[s] = static_cast<uint16_t>(chip.documents[s].facts.size());
    for (const Fact& f : chip.documents[s].facts) {
      ++c.facts;
      if (f.value.kind == ValueKind::kNotPublished) ++c.not_published;
      if (f.predicate == "memory") {
        ++c.memory;
        if (f.value.kind == ValueKind::kQuantity) {
          if (f.value.number >= 64e9) ++c.memory_ge64;
          if (f.value.number >= 80e9 && f.value.number < 96e9) ++c.memory_80_96;
        }
      } else if (f.predicate == "released") {
        if (f.value.kind == ValueKind::kDate && f.value.date.year >= 2024) ++c.released_2024;
      } else if (f.predicate == "memory_type") {
        ++c.memory_type;
      }
    }
  }
  return c;
}

// The corpus as generated, against the spec (issue 2): ~25 predicates per
// chip, 1-3 sources per fact, ~10% conflicting and ~5% not-published claims.
// A claim is one (chip, predicate, qualifiers); its facts are the sources that
// state it. A claim conflicts when two of its sources give different published
// values; it is not published when a source says so.
struct CorpusMix {
  uint64_t chips = 0, facts = 0, claims = 0, predicates = 0;
  uint64_t by_sources[4] = {};  // claims stated by 1, 2, 3 sources
  uint64_t multi_source = 0, conflicting = 0, facts_in_conflicts = 0;
  uint64_t not_published_facts = 0, claims_with_not_published = 0;

  void Add(const SyntheticChip& chip) {
    ++chips;
    std::map<std::pair<std::string, chipkg::Qualifiers>, std::vector<const Value*>> by_claim;
    std::set<std::string> names;
    for (const auto& d : chip.documents) {
      for (const Fact& f : d.facts) {
        ++facts;
        names.insert(f.predicate);
        by_claim[{f.predicate, f.qualifiers}].push_back(&f.value);
        if (f.value.kind == ValueKind::kNotPublished) ++not_published_facts;
      }
    }
    predicates += names.size();
    for (const auto& [key, values] : by_claim) {
      ++claims;
      ++by_sources[std::min<size_t>(values.size(), 3)];
      if (values.size() > 1) ++multi_source;
      bool np = false, conflict = false;
      const Value* first = nullptr;
      for (const Value* v : values) {
        if (v->kind == ValueKind::kNotPublished) {
          np = true;
          continue;
        }
        if (first == nullptr) {
          first = v;
        } else if (!first->SameContent(*v)) {
          conflict = true;
        }
      }
      if (np) ++claims_with_not_published;
      if (conflict) {
        ++conflicting;
        facts_in_conflicts += values.size();
      }
    }
  }

  void Print() const {
    auto pct = [](uint64_t a, uint64_t b) { return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0; };
    std::printf("\ncorpus as generated (spec: ~25 predicates/chip, 1-3 sources/fact, ~10%% conflicting, ~5%% not "
                "published)\n");
    std::printf("  %s chips, %s facts = %.1f facts/chip; %.1f claims/chip (predicate+qualifiers), %.1f distinct "
                "predicate names/chip\n",
                Thousands(chips).c_str(), Thousands(facts).c_str(), static_cast<double>(facts) / chips,
                static_cast<double>(claims) / chips, static_cast<double>(predicates) / chips);
    std::printf("  sources per claim: 1: %.1f%%, 2: %.1f%%, 3: %.1f%% (mean %.2f)\n", pct(by_sources[1], claims),
                pct(by_sources[2], claims), pct(by_sources[3], claims), static_cast<double>(facts) / claims);
    std::printf("  conflicting claims (two sources, different published values): %.1f%% of claims, %.1f%% of "
                "multi-source claims, %.1f%% of facts\n",
                pct(conflicting, claims), pct(conflicting, multi_source), pct(facts_in_conflicts, facts));
    std::printf("  not published: %.1f%% of facts, %.1f%% of claims have a not-published source\n",
                pct(not_published_facts, facts), pct(claims_with_not_published, claims));
  }
};

// ---- timing and checking -------------------------------------------------------

struct Failures {
  uint64_t count = 0;
  void Report(const std::string& what) {
    if (++count <= 20) std::printf("  CHECK FAILED: %s\n", what.c_str());
  }
};
Failures failures;

double Percentile(const std::vector<double>& sorted, double p) {
  // Nearest rank: the smallest value with at least p of the samples at or below it.
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// Times `fn` `n` times, one call per sample; prints wall-clock p50/p90/p99,
// the maximum, the mean CPU time of the calling thread per call (robust to
// preemption on a shared machine) and rows per call. `expected(i)` (if given)
// is the row count call i must return, checked after the timing.
void Latencies(const char* label, int n, const std::function<size_t(int)>& fn,
               const std::function<size_t(int)>& expected = {}) {
  std::vector<double> us;
  std::vector<size_t> got(static_cast<size_t>(n));
  us.reserve(static_cast<size_t>(n));
  size_t rows = 0;
  const double cpu0 = ThreadCpuSeconds();
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    got[static_cast<size_t>(i)] = fn(i);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    rows += got[static_cast<size_t>(i)];
  }
  const double cpu_us = (ThreadCpuSeconds() - cpu0) * 1e6 / n;
  std::sort(us.begin(), us.end());
  std::printf("  %-46s n=%-5d p50 %9.1f us  p90 %9.1f us  p99 %9.1f us  max %9.1f us  cpu/op %9.1f us  rows/op %7.1f\n",
              label, n, Percentile(us, 0.50), Percentile(us, 0.90), Percentile(us, 0.99), us.back(), cpu_us,
              static_cast<double>(rows) / n);
  if (expected) {
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      const size_t want = expected(i);
      if (got[static_cast<size_t>(i)] != want && bad++ == 0) {
        failures.Report(std::string(label) + ": call " + std::to_string(i) + " returned " +
                        std::to_string(got[static_cast<size_t>(i)]) + " rows, expected " + std::to_string(want));
      }
    }
    if (bad > 1) failures.Report(std::string(label) + ": " + std::to_string(bad) + " calls returned the wrong count");
  }
}

// A range result must be of the predicate, inside the range, in value order.
void CheckRange(const char* label, const std::vector<Fact>& facts, const std::string& predicate,
                const std::function<bool(const Value&)>& inside, const std::function<double(const Value&)>& order) {
  double last = -INFINITY;
  for (const Fact& f : facts) {
    if (f.predicate != predicate || !inside(f.value) || order(f.value) < last || !f.live()) {
      failures.Report(std::string(label) + ": fact " + std::to_string(f.id) + " (" + f.predicate + " = " +
                      f.value.ToString() + ") is out of range or out of order");
      return;
    }
    last = order(f.value);
  }
}

}  // namespace

int main(int argc, char** argv) {
  chipkg::tools::ApplyHeapPolicy();
  Options o = Parse(argc, argv);
  bool made_temp = false;
  if (o.dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "chipkg-store-bench-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Die("cannot create a temporary directory");
    o.dir = tmpl + "/store";
    made_temp = true;
  } else if (fs::exists(o.dir) && !fs::is_empty(o.dir)) {
    Die(o.dir + " exists and is not empty: give a new directory");
  }

  SyntheticCorpus corpus(o.seed);
  const uint64_t chips = std::max<uint64_t>(1, static_cast<uint64_t>(o.facts / SyntheticCorpus::kFactsPerChip));
  const uint64_t new_chips = o.doc_writes > 0 ? std::max(1, o.doc_writes / SyntheticCorpus::kSources) : 0;
  std::printf("chipkg-store-bench: ~%s facts (%s chips x %d sources), seed %llu, store %s\n",
              Thousands(o.facts).c_str(), Thousands(chips).c_str(), SyntheticCorpus::kSources,
              static_cast<unsigned long long>(o.seed), o.dir.c_str());
  std::printf("load average at start: %s\n", LoadAverage().c_str());

  // What each chip states now (revision 0 when loaded, 1 once rewritten): the checks' reference.
  std::vector<ChipCounts> counts(chips + new_chips);
  std::vector<uint8_t> revision(chips + new_chips, 0);
  CorpusMix mix;

  chipkg::StoreOptions store_options;
  if (o.block_cache_mib > 0) store_options.block_cache_bytes = static_cast<size_t>(o.block_cache_mib) << 20;
  if (o.block_cache_mib > 0) {
    std::printf("block cache %d MiB\n", o.block_cache_mib);
  } else {
    std::printf("block cache: the engine's default (sized from the store when opened)\n");
  }
  auto store = Must(Store::Open(o.dir, store_options), "opening " + o.dir);

  // ---- bulk load --------------------------------------------------------------
  Clock::duration in_store{}, generating{};
  uint64_t facts = 0, documents = 0;
  double generating_cpu = 0;
  const double cpu_before_load = CpuSeconds();
  const auto load_start = Clock::now();
  {
    auto t = Clock::now();
    auto bulk = Must(store->StartBulk(), "starting the bulk load");
    for (const auto& org : SyntheticCorpus::Organizations()) Must(bulk->AddEntity(org), "AddEntity");
    in_store += Clock::now() - t;
    for (uint64_t i = 0; i < chips; ++i) {
      auto g = Clock::now();
      // This thread's CPU only: the writer's background thread keeps working meanwhile, and that is load time.
      const double g_cpu = ThreadCpuSeconds();
      SyntheticChip chip = corpus.Chip(i);
      counts[i] = Count(chip);
      mix.Add(chip);
      generating_cpu += ThreadCpuSeconds() - g_cpu;
      auto s = Clock::now();
      generating += s - g;
      Must(bulk->AddEntity(chip.entity), "AddEntity");
      for (auto& d : chip.documents) Must(bulk->AddDocumentVersion(d.doc, d.version), "AddDocumentVersion");
      for (auto& d : chip.documents) {
        facts += d.facts.size();
        for (auto& f : d.facts) Must(bulk->AddFact(std::move(f)), "AddFact");
      }
      documents += chip.documents.size();
      in_store += Clock::now() - s;
    }
    auto f = Clock::now();
    auto stats = Must(bulk->Finish("store-bench"), "finishing the bulk load");
    bulk.reset();
    auto finish = Clock::now() - f;
    in_store += finish;
    const double wall = Seconds(Clock::now() - load_start);
    if (stats.facts != facts) Die("bulk load reported " + std::to_string(stats.facts) + " facts");
    mix.Print();
    std::printf("\nbulk load (Store::StartBulk / BulkWriter, SST ingestion)\n");
    std::printf("  %s facts, %s documents, %s entities\n", Thousands(facts).c_str(), Thousands(documents).c_str(),
                Thousands(stats.entities).c_str());
    const double load_cpu = CpuSeconds() - cpu_before_load - generating_cpu;
    std::printf("  in store calls %.2f s wall (of which Finish %.2f s) = %s facts/s; %.2f s CPU on all threads\n",
                Seconds(in_store), Seconds(finish), Thousands(facts / Seconds(in_store)).c_str(), load_cpu);
    std::printf("  with generating the corpus (%.2f s, the writer's thread runs meanwhile): %.2f s wall = %s facts/s\n",
                Seconds(generating), wall, Thousands(facts / wall).c_str());
  }
  auto stats = Must(store->Statistics(), "Statistics");
  DiskUsage du = MeasureDir(o.dir);
  std::printf("  store on disk after the load: %.1f MiB apparent, %.1f MiB allocated (du), %llu files; %.0f "
              "bytes/fact (apparent) incl. document texts; peak RSS so far %.0f MiB\n",
              du.apparent / 1048576.0, du.allocated / 1048576.0, static_cast<unsigned long long>(du.files),
              static_cast<double>(du.apparent) / facts, PeakRssMiB());
  std::printf("  load average after the load: %s\n", LoadAverage().c_str());

  // ---- per-document writes ----------------------------------------------------
  uint64_t written_added = 0, written_retracted = 0;
  if (o.doc_writes > 0) {
    std::printf("\nper-document writes (Store::WriteDocumentVersion, one atomic WriteBatch each, WAL not synced)\n");
    for (int changed = 0; changed < 2; ++changed) {
      Clock::duration t{};
      uint64_t docs = 0, added = 0, retracted = 0, kept = 0;
      std::vector<double> us;
      double cpu = 0;
      for (uint64_t j = 0; j < new_chips; ++j) {
        // New chips after the loaded ones, or a changed revision of loaded chips.
        const uint64_t index = changed ? (j * 7919) % chips : chips + j;
        SyntheticChip chip = corpus.Chip(index, changed ? 1 : 0);
        counts[index] = Count(chip);
        revision[index] = changed ? 1 : 0;
        for (auto& d : chip.documents) {
          const double c0 = ThreadCpuSeconds();
          auto s = Clock::now();
          auto w = Must(store->WriteDocumentVersion(d.doc, d.version, std::move(d.facts), "store-bench-docs"),
                        "WriteDocumentVersion " + d.doc.id);
          const auto e = Clock::now() - s;
          cpu += ThreadCpuSeconds() - c0;
          t += e;
          us.push_back(std::chrono::duration<double, std::micro>(e).count());
          ++docs;
          added += w.facts_added;
          retracted += w.facts_retracted;
          kept += w.facts_kept;
        }
      }
      std::sort(us.begin(), us.end());
      written_added += added;
      written_retracted += retracted;
      std::printf("  %-27s %6s docs in %.2f s = %7s docs/s, %8s facts written/s (added %s, retracted %s, kept "
                  "%s); per doc p50 %.0f us, p90 %.0f us, p99 %.0f us, cpu/doc %.0f us\n",
                  changed ? "changed versions of loaded:" : "new documents:", Thousands(docs).c_str(), Seconds(t),
                  Thousands(docs / Seconds(t)).c_str(), Thousands((added + retracted) / Seconds(t)).c_str(),
                  Thousands(added).c_str(), Thousands(retracted).c_str(), Thousands(kept).c_str(),
                  Percentile(us, 0.5), Percentile(us, 0.9), Percentile(us, 0.99), cpu * 1e6 / docs);
    }
  }

  // ---- the reference the lookups are checked against ----------------------------
  uint64_t live = 0, not_published = 0, ge64 = 0, mem_80_96 = 0, rel_2024 = 0, with_memory_type = 0;
  for (const ChipCounts& c : counts) {
    live += c.facts;
    not_published += c.not_published;
    ge64 += c.memory_ge64;
    mem_80_96 += c.memory_80_96;
    rel_2024 += c.released_2024;
    with_memory_type += c.memory_type > 0;
  }
  auto check_counters = [&](const char* when) {
    auto s = Must(store->Statistics(), "Statistics");
    auto expect = [&](const char* what, uint64_t got, uint64_t want) {
      if (got != want) {
        failures.Report(std::string(when) + ": Statistics()." + what + " = " + std::to_string(got) + ", expected " +
                        std::to_string(want));
      }
    };
    expect("facts", s.facts, facts + written_added);
    expect("live_facts", s.live_facts, live);
    expect("retracted_facts", s.retracted_facts, written_retracted);
    expect("not_published_facts", s.not_published_facts, not_published);
    expect("documents", s.documents, (chips + new_chips) * SyntheticCorpus::kSources);
  };
  check_counters("after the writes");

  // ---- lookups ------------------------------------------------------------------
  std::mt19937_64 rng(o.seed + 17);
  std::vector<uint64_t> picks(static_cast<size_t>(o.lookups));
  for (auto& p : picks) p = rng() % chips;
  ReadView lean;
  lean.with_provenance = false;
  ValueRange range_ge64;
  range_ge64.lower = kGe64;
  range_ge64.kind = ValueKind::kQuantity;
  ValueRange range_80_96;
  range_80_96.lower = k80;
  range_80_96.upper = k96;
  range_80_96.upper_inclusive = false;
  range_80_96.kind = ValueKind::kQuantity;
  ValueRange range_2024;
  range_2024.lower = Value::OfDate(k2024, "");
  range_2024.kind = ValueKind::kDate;
  auto number = [](const Value& v) { return v.number; };
  auto day = [](const Value& v) { return static_cast<double>(v.date.FirstDay()); };
  const int scans = std::max(3, std::min({50, o.lookups / 40, static_cast<int>(2e7 / std::max<uint64_t>(facts, 1))}));

  auto run_lookups = [&](const char* title) {
    std::printf("\n%s\n", title);
    auto about = [&](int i) -> size_t { return counts[picks[static_cast<size_t>(i)]].facts; };
    Latencies("FactsAbout(subject)", o.lookups, [&](int i) {
      return Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[i])), "FactsAbout").size();
    }, about);
    // The same subjects again (now a second touch: their blocks were just
    // read), split by how the chip was written: as bulk-loaded (the fact ids
    // of a chip adjacent), or rewritten by WriteDocumentVersion (kept and new
    // ids far apart, the new ones in memtables or L0 files).
    for (int rewritten = 0; rewritten < 2; ++rewritten) {
      std::vector<uint64_t> some;
      for (uint64_t p : picks) {
        if (revision[p] == rewritten) some.push_back(p);
      }
      if (some.empty()) continue;
      Latencies(rewritten ? "  again, only chips rewritten by doc writes" : "  again, only chips as bulk-loaded",
                static_cast<int>(some.size()), [&](int i) {
                  return Must(store->FactsAbout(SyntheticCorpus::ChipId(some[i])), "FactsAbout").size();
                }, [&](int i) -> size_t { return counts[some[static_cast<size_t>(i)]].facts; });
    }
    Latencies("FactsAbout(subject), no provenance", o.lookups, [&](int i) {
      return Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[i]), lean), "FactsAbout").size();
    }, about);
    Latencies("FactsAbout(subject, \"memory\")", o.lookups, [&](int i) {
      return Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[i]), "memory"), "FactsAbout").size();
    }, [&](int i) -> size_t { return counts[picks[static_cast<size_t>(i)]].memory; });
    Latencies("FactsFromDocument(document)", o.lookups, [&](int i) {
      return Must(store->FactsFromDocument(SyntheticCorpus::DocumentId(picks[i], i % SyntheticCorpus::kSources)),
                  "FactsFromDocument").size();
    }, [&](int i) -> size_t { return counts[picks[static_cast<size_t>(i)]].per_doc[i % SyntheticCorpus::kSources]; });
    Latencies("GetFact(id)", o.lookups, [&](int i) -> size_t {
      const uint64_t id = 1 + (picks[i] * 40503) % facts;
      return Must(store->GetFact(id), "GetFact").id == id ? 1 : 0;
    }, [](int) -> size_t { return 1; });

    std::vector<Fact> last;
    Latencies("FactsInRange(memory >= 64 GB)", scans, [&](int) {
      last = Must(store->FactsInRange("memory", range_ge64), "FactsInRange");
      return last.size();
    }, [&](int) -> size_t { return ge64; });
    CheckRange("memory >= 64 GB", last, "memory", [](const Value& v) { return v.number >= 64e9; }, number);
    Latencies("FactsInRange(memory >= 64 GB), no provenance", scans, [&](int) {
      return Must(store->FactsInRange("memory", range_ge64, lean), "FactsInRange").size();
    }, [&](int) -> size_t { return ge64; });
    Latencies("FactsInRange(80 GB <= memory < 96 GB)", scans, [&](int) {
      last = Must(store->FactsInRange("memory", range_80_96), "FactsInRange");
      return last.size();
    }, [&](int) -> size_t { return mem_80_96; });
    CheckRange("80 GB <= memory < 96 GB", last, "memory",
               [](const Value& v) { return v.number >= 80e9 && v.number < 96e9; }, number);
    Latencies("FactsInRange(released >= 2024)", scans, [&](int) {
      last = Must(store->FactsInRange("released", range_2024), "FactsInRange");
      return last.size();
    }, [&](int) -> size_t { return rel_2024; });
    CheckRange("released >= 2024", last, "released",
               [](const Value& v) { return v.kind == ValueKind::kDate && v.date.year >= 2024; }, day);
    Latencies("SubjectsWith(memory_type)", scans,
              [&](int) { return Must(store->SubjectsWith("memory_type"), "SubjectsWith").size(); },
              [&](int) -> size_t { return with_memory_type; });
  };
  std::printf("\nexpected rows: memory >= 64 GB %s, 80-96 GB %s, released >= 2024 %s, chips with memory_type %s\n",
              Thousands(ge64).c_str(), Thousands(mem_80_96).c_str(), Thousands(rel_2024).c_str(),
              Thousands(with_memory_type).c_str());
  run_lookups("lookups on the open store, after the load and the document writes (same random subjects for every "
              "kind, run in this order)");

  // ---- reopen -------------------------------------------------------------------
  auto t = Clock::now();
  store.reset();  // flushes the memtables the document writes filled
  const double close = Seconds(Clock::now() - t);
  t = Clock::now();
  store = Must(Store::Open(o.dir, store_options), "reopening");
  const double reopen = Seconds(Clock::now() - t);
  t = Clock::now();
  const size_t first = Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[0])), "first FactsAbout").size();
  std::printf("\nclose %.3f s, reopen %.3f s; first FactsAbout after reopen %.1f us (%zu facts)\n", close, reopen,
              std::chrono::duration<double, std::micro>(Clock::now() - t).count(), first);
  check_counters("after reopening");
  run_lookups("lookups after reopen (RocksDB block cache empty at first; the OS page cache was not dropped)");

  stats = Must(store->Statistics(), "Statistics");
  store.reset();
  du = MeasureDir(o.dir);
  std::printf("\nfinal: %s facts (%s live, %s not published), %s documents, %s versions, %s transactions\n",
              Thousands(stats.facts).c_str(), Thousands(stats.live_facts).c_str(),
              Thousands(stats.not_published_facts).c_str(), Thousands(stats.documents).c_str(),
              Thousands(stats.document_versions).c_str(), Thousands(stats.transactions).c_str());
  std::printf("store on disk after close: %.1f MiB apparent, %.1f MiB allocated (du), %llu files; peak RSS %.0f MiB\n",
              du.apparent / 1048576.0, du.allocated / 1048576.0, static_cast<unsigned long long>(du.files),
              PeakRssMiB());
  std::printf("load average at end: %s\n", LoadAverage().c_str());
  if (failures.count > 0) {
    std::printf("\n%llu PLAUSIBILITY CHECK(S) FAILED: the figures above are not to be trusted\n",
                static_cast<unsigned long long>(failures.count));
  } else {
    std::printf("plausibility checks: all passed (row counts per subject, document and range; range bounds and "
                "order; counters)\n");
  }
  if (!o.keep) {
    std::error_code ec;
    fs::remove_all(made_temp ? fs::path(o.dir).parent_path() : fs::path(o.dir), ec);
  }
  return failures.count > 0 ? 1 : 0;
}
