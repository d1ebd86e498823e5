// chipkg-query-loop: one query of the chipkg query language run repeatedly in
// one process against an existing store, for profiling the evaluator warm
// (perf record -g chipkg-query-loop ...). Prints the median, the rows, and the
// median of each step of the evaluation (QueryResult::phases).
//
//   chipkg-query-loop --db STORE [--runs 20] [--cite-rows N] [--no-excerpts] [--cache-mib N] [--allocator-defaults] [--time-free]
//                     [--primary] [--each] [--keep-last] [--first 'QUERY' [--first-runs 8]] 'QUERY'
//
// --primary opens the store as chipkg-peer-bench does (Store::Open) instead of as a secondary
// reader; --first runs another query first, untimed, to reproduce the state (heap, caches) in
// which the benchmark times a query after the previous ones; --each prints every run with its page faults (the first
// ones take fresh memory from the kernel: how many runs a query takes to settle); --keep-last
// keeps each answer until the next one exists and times freeing it then, as the benchmark does.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/store.h"
#include "query/query.h"
#include "schema/schema.h"
#include "tools/heap_policy.h"

int main(int argc, char** argv) {
  std::string db, text;
  int runs = 20;
  chipkg::query::QueryOptions options;
  chipkg::StoreOptions store_options;
  bool keep_heap = true;
  bool time_free = false;
  bool keep_last = false;
  bool primary = false;
  std::string first;
  int first_runs = 8;
  bool each = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--db" && i + 1 < argc) {
      db = argv[++i];
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--cite-rows" && i + 1 < argc) {
      options.cite_rows = static_cast<size_t>(std::atoll(argv[++i]));
    } else if (a == "--no-excerpts") {
      options.read_excerpts = false;  // citations with their sources only (QueryOptions::read_excerpts)
    } else if (a == "--time-free") {
      time_free = true;  // count freeing each answer, as chipkg-peer-bench does
    } else if (a == "--primary") {
      primary = true;
    } else if (a == "--first" && i + 1 < argc) {
      first = argv[++i];
    } else if (a == "--keep-last") {
      time_free = keep_last = true;
    } else if (a == "--each") {
      each = true;
    } else if (a == "--first-runs" && i + 1 < argc) {
      first_runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--allocator-defaults") {
      keep_heap = false;  // the allocator's own settings, to measure what tools/heap_policy.h buys
    } else if (a == "--cache-mib" && i + 1 < argc) {
      store_options.block_cache_bytes = static_cast<size_t>(std::atoll(argv[++i])) << 20;
    } else if (text.empty() && a.rfind("--", 0) != 0) {
      text = a;
    } else {
      std::fprintf(stderr, "usage: %s --db STORE [--runs 20] [--cite-rows N] [--no-excerpts] [--cache-mib N] [--allocator-defaults] [--time-free] [--primary] [--each] [--keep-last] [--first 'QUERY' [--first-runs N]] 'QUERY'\n", argv[0]);
      return 2;
    }
  }
  if (keep_heap) chipkg::tools::ApplyHeapPolicy();
  if (db.empty() || text.empty()) {
    std::fprintf(stderr, "usage: %s --db STORE [--runs 20] [--cite-rows N] [--no-excerpts] [--cache-mib N] [--allocator-defaults] [--time-free] [--primary] [--each] [--keep-last] [--first 'QUERY' [--first-runs N]] 'QUERY'\n", argv[0]);
    return 2;
  }
  auto schema = chipkg::Schema::LoadDirectory(chipkg::Schema::DefaultDirectory());
  if (!schema.ok()) {
    std::fprintf(stderr, "%s\n", schema.status().ToString().c_str());
    return 1;
  }
  auto store = primary ? chipkg::Store::Open(db, store_options) : chipkg::Store::OpenReader(db, store_options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  if (!first.empty()) {
    chipkg::query::QueryResult kept;  // as the benchmark keeps its last answer until the next
    for (int i = 0; i < first_runs; ++i) {
      auto r = chipkg::query::RunQuery(**store, *schema, first, options);
      if (!r.ok()) {
        std::fprintf(stderr, "--first: %s\n", r.status().ToString().c_str());
        return 1;
      }
      kept = std::move(r).value();
    }
  }
  // Thread CPU time as well as wall time: on a shared machine the CPU time
  // of the query is the steadier figure.
  auto cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  };
  std::vector<double> ms, cpu;
  std::vector<std::pair<std::string, std::vector<double>>> phases;  // in the order the query reports them
  size_t rows = 0;
  chipkg::query::QueryResult last;  // --keep-last
  // Page faults of the process (every thread), for --each: a run that took
  // fresh memory from the kernel shows as many faults (on these machines
  // ~20 ms a 2 MiB page), not as slower code.
  auto faults = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt + u.ru_majflt;
  };
  for (int i = 0; i < runs; ++i) {
    const long faults0 = faults();
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_ms();
    auto r = chipkg::query::RunQuery(**store, *schema, text, options);
    cpu.push_back(cpu_ms() - c0);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return 1;
    }
    rows = r->rows.size();
    for (const chipkg::query::Phase& p : r->phases) {
      auto it = std::find_if(phases.begin(), phases.end(), [&](const auto& e) { return e.first == p.name; });
      if (it == phases.end()) it = phases.insert(phases.end(), {p.name, {}});
      it->second.push_back(p.ms);
    }
    if (each) {
      // Per run, to see how many runs a query takes to settle (the first ones
      // take fresh memory from the kernel).
      std::fprintf(stderr, "run %d: %.3f ms, %ld page faults;", i + 1, ms.back(), faults() - faults0);
      for (const chipkg::query::Phase& p : r->phases) std::fprintf(stderr, " %s %.1f;", p.name.c_str(), p.ms);
      std::fprintf(stderr, "\n");
    }
    if (time_free) {
      // As the peer benchmark counts it: an answer is also freed. With
      // --keep-last, as the benchmark does it: the answer before is freed
      // once this one exists (two answers live at once).
      const auto f0 = std::chrono::steady_clock::now();
      if (keep_last) {
        last = std::move(r).value();
      } else {
        r = chipkg::query::QueryResult();
      }
      const double free_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
      ms.back() += free_ms;
      auto it = std::find_if(phases.begin(), phases.end(), [](const auto& e) { return e.first == "free answer"; });
      if (it == phases.end()) it = phases.insert(phases.end(), {"free answer", {}});
      it->second.push_back(free_ms);
    }
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf("%zu rows, median %.3f ms (CPU %.3f ms), min %.3f ms over %d runs\n", rows, ms[ms.size() / 2],
              cpu[cpu.size() / 2], ms.front(), runs);
  std::printf("phases (median ms):");
  for (auto& [name, values] : phases) {
    std::sort(values.begin(), values.end());
    std::printf(" %s %.3f;", name.c_str(), values[values.size() / 2]);
  }
  std::printf("\n");
  return 0;
}
