// chipkg-store-bench: load and lookup figures of the storage engine alone.
//
//   chipkg-store-bench [--facts N] [--dir PATH] [--keep] [--seed S] [--lookups L] [--doc-writes K]
//
// Generates a synthetic corpus in process (tools/bench/synthetic_corpus.h),
// bulk-loads it through Store::StartBulk, then writes documents one at a time
// with WriteDocumentVersion (new documents, and changed versions of loaded
// ones), then times point, range and by-document lookups. Load rates count
// only the time spent inside store calls; generating the corpus is timed
// apart. --dir must name a directory that does not exist or is empty; it is
// removed at the end unless --keep.
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/store.h"
#include "tools/bench/synthetic_corpus.h"

namespace fs = std::filesystem;
using chipkg::Fact;
using chipkg::ReadView;
using chipkg::Store;
using chipkg::ValueRange;
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
};

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "chipkg-store-bench: %s\n", msg.c_str());
  std::exit(1);
}

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: chipkg-store-bench [--facts N] [--dir PATH] [--keep] [--seed S] [--lookups L] "
               "[--doc-writes K]\n");
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
      } else {
        Usage();
      }
    } catch (const std::exception&) {
      Usage();
    }
  }
  if (o.facts == 0 || o.lookups <= 0 || o.doc_writes < 0) Usage();
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
  std::string s = std::to_string(static_cast<long long>(v + 0.5));
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// User + system CPU seconds of the process so far (all threads).
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Times `fn` `n` times; prints p50/p90/p99 and the mean result size.
void Latencies(const char* label, int n, const std::function<size_t(int)>& fn) {
  std::vector<double> us;
  us.reserve(n);
  size_t rows = 0;
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    rows += fn(i);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) { return us[std::min(us.size() - 1, static_cast<size_t>(p * us.size()))]; };
  std::printf("  %-44s n=%-6d p50 %9.1f us  p90 %9.1f us  p99 %9.1f us  rows/op %8.1f\n", label, n, pct(0.50),
              pct(0.90), pct(0.99), static_cast<double>(rows) / n);
}

}  // namespace

int main(int argc, char** argv) {
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
  std::printf("chipkg-store-bench: ~%s facts (%s chips x 3 sources), store %s\n", Thousands(o.facts).c_str(),
              Thousands(chips).c_str(), o.dir.c_str());

  auto store = Must(Store::Open(o.dir), "opening " + o.dir);

  // ---- bulk load --------------------------------------------------------------
  Clock::duration in_store{}, generating{};
  uint64_t facts = 0, documents = 0;
  double generating_cpu = 0;
  const double cpu_before_load = CpuSeconds();
  {
    auto t = Clock::now();
    auto bulk = Must(store->StartBulk(), "starting the bulk load");
    for (const auto& org : SyntheticCorpus::Organizations()) Must(bulk->AddEntity(org), "AddEntity");
    in_store += Clock::now() - t;
    for (uint64_t i = 0; i < chips; ++i) {
      auto g = Clock::now();
      const double g_cpu = CpuSeconds();
      chipkg::bench::SyntheticChip chip = corpus.Chip(i);
      generating_cpu += CpuSeconds() - g_cpu;
      auto s = Clock::now();
      generating += s - g;
      Must(bulk->AddEntity(chip.entity), "AddEntity");
      for (auto& d : chip.documents) Must(bulk->AddDocumentVersion(d.doc, d.version), "AddDocumentVersion");
      for (auto& d : chip.documents) {
        for (auto& f : d.facts) Must(bulk->AddFact(std::move(f)), "AddFact");
        facts += d.facts.size();
      }
      documents += chip.documents.size();
      in_store += Clock::now() - s;
    }
    auto f = Clock::now();
    auto stats = Must(bulk->Finish("store-bench"), "finishing the bulk load");
    bulk.reset();
    auto finish = Clock::now() - f;
    in_store += finish;
    if (stats.facts != facts) Die("bulk load reported " + std::to_string(stats.facts) + " facts");
    std::printf("\nbulk load (BulkWriter, SST ingestion)\n");
    std::printf("  %s facts, %s documents, %s entities\n", Thousands(facts).c_str(), Thousands(documents).c_str(),
                Thousands(stats.entities).c_str());
    const double load_cpu = CpuSeconds() - cpu_before_load - generating_cpu;
    std::printf("  store time %.2f s wall (Finish %.2f s) = %s facts/s; %.2f s CPU on all threads\n",
                Seconds(in_store), Seconds(finish), Thousands(facts / Seconds(in_store)).c_str(), load_cpu);
    std::printf("  generating the corpus took %.2f s more (not counted)\n", Seconds(generating));
  }
  auto stats = Must(store->Statistics(), "Statistics");
  std::printf("  store size on disk %.1f MiB (%.0f bytes/fact incl. document texts); peak RSS so far %.0f MiB\n",
              stats.disk_bytes / 1048576.0, static_cast<double>(stats.disk_bytes) / facts, PeakRssMiB());

  // ---- per-document writes ----------------------------------------------------
  if (o.doc_writes > 0) {
    std::printf("\nper-document writes (WriteDocumentVersion, one atomic batch each)\n");
    const uint64_t n_chips = std::max(1, o.doc_writes / SyntheticCorpus::kSources);
    for (int changed = 0; changed < 2; ++changed) {
      Clock::duration t{};
      uint64_t docs = 0, added = 0, retracted = 0, kept = 0;
      for (uint64_t j = 0; j < n_chips; ++j) {
        // New chips after the loaded ones, or a changed revision of loaded chips.
        uint64_t index = changed ? (j * 7919) % chips : chips + j;
        chipkg::bench::SyntheticChip chip = corpus.Chip(index, changed ? 1 : 0);
        auto s = Clock::now();
        for (auto& d : chip.documents) {
          auto w = Must(store->WriteDocumentVersion(d.doc, d.version, std::move(d.facts), "store-bench-docs"),
                        "WriteDocumentVersion " + d.doc.id);
          ++docs;
          added += w.facts_added;
          retracted += w.facts_retracted;
          kept += w.facts_kept;
        }
        t += Clock::now() - s;
      }
      std::printf("  %-28s %6s docs in %.2f s = %8s docs/s, %9s facts/s (added %s, retracted %s, kept %s)\n",
                  changed ? "changed versions of loaded:" : "new documents:", Thousands(docs).c_str(), Seconds(t),
                  Thousands(docs / Seconds(t)).c_str(), Thousands((added + retracted) / Seconds(t)).c_str(),
                  Thousands(added).c_str(), Thousands(retracted).c_str(), Thousands(kept).c_str());
    }
  }

  // ---- lookups ------------------------------------------------------------------
  std::mt19937_64 rng(o.seed + 17);
  std::vector<uint64_t> picks(o.lookups);
  for (auto& p : picks) p = rng() % chips;
  ReadView lean;
  lean.with_provenance = false;
  auto run_lookups = [&](const char* title) {
    std::printf("\n%s\n", title);
    Latencies("FactsAbout(subject)", o.lookups, [&](int i) {
      return Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[i])), "FactsAbout").size();
    });
    Latencies("FactsAbout(subject), no provenance", o.lookups, [&](int i) {
      return Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[i]), lean), "FactsAbout").size();
    });
    Latencies("FactsAbout(subject, \"memory\")", o.lookups, [&](int i) {
      return Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[i]), "memory"), "FactsAbout").size();
    });
    Latencies("FactsFromDocument(document)", o.lookups, [&](int i) {
      return Must(store->FactsFromDocument(SyntheticCorpus::DocumentId(picks[i], i % 3)), "FactsFromDocument").size();
    });
    Latencies("GetFact(id)", o.lookups, [&](int i) {
      Must(store->GetFact(1 + (picks[i] * 40503) % facts), "GetFact");
      return size_t{1};
    });
    ValueRange ge64;
    ge64.lower = chipkg::Value::Quantity(64e9, "bytes", "");
    ge64.kind = chipkg::ValueKind::kQuantity;
    const int scans = std::max(3, std::min({50, o.lookups / 40, static_cast<int>(2e7 / std::max<uint64_t>(facts, 1))}));
    Latencies("FactsInRange(memory >= 64 GB)", scans,
              [&](int) { return Must(store->FactsInRange("memory", ge64), "FactsInRange").size(); });
    Latencies("FactsInRange(memory >= 64 GB), no provenance", scans,
              [&](int) { return Must(store->FactsInRange("memory", ge64, lean), "FactsInRange").size(); });
    Latencies("SubjectsWith(memory_type)", scans,
              [&](int) { return Must(store->SubjectsWith("memory_type"), "SubjectsWith").size(); });
  };
  run_lookups("lookups (warm: the store has been in use)");

  // ---- reopen -------------------------------------------------------------------
  auto t = Clock::now();
  store.reset();  // flushes the memtables the document writes filled
  const double close = Seconds(Clock::now() - t);
  t = Clock::now();
  store = Must(Store::Open(o.dir), "reopening");
  const double reopen = Seconds(Clock::now() - t);
  t = Clock::now();
  const size_t first = Must(store->FactsAbout(SyntheticCorpus::ChipId(picks[0])), "first FactsAbout").size();
  std::printf("\nclose %.3f s, reopen %.3f s; first FactsAbout after reopen %.1f us (%zu facts)\n", close, reopen,
              std::chrono::duration<double, std::micro>(Clock::now() - t).count(), first);
  run_lookups("lookups after reopen (block cache cold at first)");
  stats = Must(store->Statistics(), "Statistics");
  std::printf("\nfinal: %s facts (%s live), %s documents, %s versions, %s transactions, %.1f MiB on disk, peak RSS "
              "%.0f MiB\n",
              Thousands(stats.facts).c_str(), Thousands(stats.live_facts).c_str(), Thousands(stats.documents).c_str(),
              Thousands(stats.document_versions).c_str(), Thousands(stats.transactions).c_str(),
              stats.disk_bytes / 1048576.0, PeakRssMiB());
  store.reset();
  if (!o.keep) {
    std::error_code ec;
    fs::remove_all(made_temp ? fs::path(o.dir).parent_path() : fs::path(o.dir), ec);
  }
  return 0;
}
