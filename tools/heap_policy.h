// How a chipkg process (the command, the REPL, the benchmarks) asks its
// allocator to treat memory: mimalloc where the programs are built with it
// (CMakeLists.txt CHIPKG_MIMALLOC, the default), glibc's malloc otherwise (the
// sanitizer build). Process-wide policy, so it belongs to the programs, not
// the libraries. ApplyHeapPolicy() is what a program calls, first thing.
#pragma once

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

#if defined(CHIPKG_MIMALLOC)
#include <mimalloc.h>
#endif

namespace chipkg::tools {

// A large answer allocates and frees hundreds of MB of rows, claims and
// citations. By default glibc gives freed memory back to the kernel: heap
// tops above 128 KiB, and every block served by mmap (anything above a
// threshold that adapts up to 32 MiB, such as the vector of a 300,000-row
// answer), so the next query takes a page fault on every page again: about a
// quarter of Q2's and Q5's time at N=100,000, and a cost per row that grows
// with the answer (tools/bench/HISTORY.md). Serving every block from the heap
// and keeping freed memory for reuse trades that for a resident size that
// stays at the largest answer's (per thread arena: each keeps its own peak).
// Threads' arenas still fall back to mmap for a block larger than an arena
// can grow to (64 MiB), so no allocation fails for it, but such blocks are
// still unmapped at free.
// Returns false if glibc refused a setting.
inline bool KeepFreedHeapForReuse() {
  const bool mmap_off = mallopt(M_MMAP_MAX, 0) == 1;
  const bool trim_set = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  return mmap_off && trim_set;
}

// The main heap's first `reserve_bytes` on transparent huge pages. On the
// machines chipkg is measured on, the first touch of a 4 KiB page costs
// ~11 us (tools/bench/HISTORY.md), a 2 MiB huge page about as much as 25 of
// them: a one-shot `chipkg query` took ~750 page faults, over a third of its
// time, most of them the heap growing page by page. The heap is grown once
// by the reserve and given back to the allocator (kept by
// KeepFreedHeapForReuse, which must come first), so it costs address space,
// not memory; what lies beyond the reserve, and threads' arenas, stay on
// small pages. A small block is left allocated below the first 2 MiB
// boundary so that allocation goes on from a huge page (glibc's chunk layout:
// a 16-byte header before each block, sizes rounded to 16). The kernel decides
// (THP "madvise" or "always"); with THP off this changes nothing.
// $CHIPKG_HUGE_HEAP_MIB overrides the reserve (0: off). Returns false when
// nothing was reserved.
inline constexpr size_t kHugeHeapReserveBytes = size_t{1536} << 20;
inline void* volatile g_heap_filler = nullptr;  // volatile: an allocation kept for its place, never read

inline bool ReserveHeapOnHugePages(size_t reserve_bytes = kHugeHeapReserveBytes) {
  if (const char* mib = std::getenv("CHIPKG_HUGE_HEAP_MIB"); mib != nullptr && *mib != '\0') {
    reserve_bytes = static_cast<size_t>(std::strtoull(mib, nullptr, 10)) << 20;
  }
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  if (reserve_bytes < 2 * kHugePage || reserve_bytes >= INT_MAX) return false;
  void* block = std::malloc(reserve_bytes);
  if (block == nullptr) return false;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(block);
  std::free(block);
  // Only a block carved from the top of the brk heap is the heap's own
  // range; one the allocator had to map elsewhere is left alone.
  const uintptr_t top = reinterpret_cast<uintptr_t>(sbrk(0));
  if (top < begin + reserve_bytes || top - (begin + reserve_bytes) > kHugePage) return false;
  const uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last = top & ~(kHugePage - 1);
  if (last <= first || madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) return false;
  // The block's chunk began 16 bytes before it; a request of first - begin + 8
  // bytes makes a chunk that ends exactly at `first`.
  if (first > begin) g_heap_filler = std::malloc(first - begin + 8);
  return true;
}

#if defined(CHIPKG_MIMALLOC)
// mimalloc keeps a freed segment of its standard size (32 MiB) for reuse, but
// a block of more than half that (a large answer's vector of citations or
// rows) gets a segment of its own, which goes back to the kernel when freed:
// the next answer's took fresh pages again (Q5 at N=100,000 spent 0.47-0.50 s
// of its citations step just sizing the citation vector). Memory mimalloc
// manages as an arena is returned to the arena instead and, with decommit
// off, stays committed: that step took 12 ms from the third run on, the whole
// Q5 3.2 s instead of 3.8 (tools/bench/HISTORY.md). The arena is address space
// reserved without swap accounting (MAP_NORESERVE) and advised onto huge
// pages: it costs nothing until touched. Its size is the machine's memory (at
// most 64 GiB); $CHIPKG_HUGE_HEAP_MIB overrides it, 0 for none. Past it,
// mimalloc maps memory as before. Reserved once per process; returns whether
// an arena is in place.
inline bool ReserveMimallocArena() {
  static const bool reserved = [] {
    size_t bytes = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bytes = std::min(bytes, size_t{64} << 30);
    if (const char* mib = std::getenv("CHIPKG_HUGE_HEAP_MIB"); mib != nullptr && *mib != '\0') {
      bytes = static_cast<size_t>(std::strtoull(mib, nullptr, 10)) << 20;
    }
    constexpr size_t kAlign = size_t{64} << 20;  // a multiple of mimalloc's segment alignment
    bytes &= ~(kAlign - 1);
    if (bytes == 0) return false;
    void* mapped = mmap(nullptr, bytes + kAlign, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) return false;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t first = (begin + kAlign - 1) & ~(kAlign - 1);
    const uintptr_t end = begin + bytes + kAlign;
    if (first > begin) munmap(mapped, first - begin);
    if (end > first + bytes) munmap(reinterpret_cast<void*>(first + bytes), end - (first + bytes));
    void* arena = reinterpret_cast<void*>(first);
    madvise(arena, bytes, MADV_HUGEPAGE);  // an optimisation: without THP, small pages
    if (!mi_manage_os_memory(arena, bytes, /*is_committed=*/true, /*is_large=*/false, /*is_zero=*/true, /*numa_node=*/-1)) {
      munmap(arena, bytes);
      return false;
    }
    return true;
  }();
  return reserved;
}

// mimalloc takes a thread's first segment (32 MiB) at the thread's first
// allocation. In a program that loads libstdc++ as a shared library (the
// benchmarks, chipkg-query-loop) that is libstdc++'s own start-up, before any
// of the program's code can set the policy, so the segment comes from the
// kernel on 4 KiB pages, and it is where a small answer lives. (The chipkg
// command links libstdc++ statically and sets the policy in a constructor that
// runs first: its first segment comes from the arena below, already advised.)
// On the machines chipkg is measured on each first touch of a 4 KiB page costs
// 10-25 us, and mimalloc hands out a page's blocks 4 KiB at a time, so a small
// query touched fresh pages in each of its first six runs in such a process
// (Q1 of the peer benchmark at N=100,000: 13, 11, 10, 4, 4 faults in runs 2-6,
// 0.15-0.43 ms a run against 0.04-0.08 settled; Q4 76, 64, 48, 4, 4, its runs
// 2-4 1.3-1.9 ms against 0.2-0.4; tools/bench/HISTORY.md): the benchmark timed
// runs 4-8 of Q1 at twice what the chipkg command's REPL takes. Advised onto
// huge pages, the segment's untouched 2 MiB stretches come in one fault each:
// no fault after the second run. mimalloc 2.0 segments are aligned to their
// size, so the segment is the aligned block around a small allocation; were
// that ever wrong, the advice would cover part of the segment (and perhaps a
// neighbouring mapping, which it only makes eligible for huge pages too) or
// fail, and nothing else changes. False if the kernel refused.
static_assert(MI_MALLOC_VERSION >= 200 && MI_MALLOC_VERSION < 300, "segments of 32 MiB are mimalloc 2's");
inline constexpr uintptr_t kMimallocSegmentBytes = uintptr_t{32} << 20;
inline bool AdviseFirstSegmentOntoHugePages() {
  void* probe = mi_malloc(16);
  if (probe == nullptr) return false;
  const uintptr_t segment = reinterpret_cast<uintptr_t>(probe) & ~(kMimallocSegmentBytes - 1);
  mi_free(probe);
  return madvise(reinterpret_cast<void*>(segment), kMimallocSegmentBytes, MADV_HUGEPAGE) == 0;
}

// The option above applies to segments mimalloc takes from now on. A
// segment it took before the policy (the thread's first, in a program that
// loads libstdc++ as a shared library: the benchmarks, chipkg-query-loop,
// the tests) may still decommit, which mimalloc does once a freed span has
// waited its delay: the answer after next faulted those pages in again (Q3
// in chipkg-query-loop at N=100,000: 600-3,000 faults in every run, none
// with MIMALLOC_ALLOW_DECOMMIT=0 in the environment; tools/bench/HISTORY.md).
// As analysed for mimalloc 2.0.9 (2.1 renamed decommit "purge"): the delays
// are read at each use, and mimalloc decommits only from within an
// allocation or a free in that segment. Each page it returns to the segment
// moves the segment's deadline to now + the extend delay, or adds the extend
// delay while the deadline is ahead; reusing pending memory sets it to now +
// the delay; a page returned an extend delay past the deadline decommits
// everything pending at once. With an hour each, that takes about two hours
// without an allocation in the segment, after which the next answer faults
// its memory in once. (What was pending when the policy came, memory never
// touched, may go at the first free after it.) Not longer: the deadline is a
// 64-bit count of milliseconds and the extend delay is added at every page
// returned; at an hour that overflows after ~2.5 * 10^12 of them, at 2^40 ms
// after ~8 million, which a long session could reach.
inline void KeepWhatEarlySegmentsFree() {
  constexpr long kHourMs = 60L * 60 * 1000;
  // mimalloc also reads the delay under its old name.
  if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr && std::getenv("MIMALLOC_RESET_DELAY") == nullptr) {
    mi_option_set(mi_option_decommit_delay, kHourMs);
  }
  if (std::getenv("MIMALLOC_DECOMMIT_EXTEND_DELAY") == nullptr) mi_option_set(mi_option_decommit_extend_delay, kHourMs);
}

// mimalloc's two settings that matter here, each unless its MIMALLOC_*
// variable says otherwise: memory freed stays committed for the next answer
// (by default mimalloc decommits freed segments, and Q5 at N=100,000 zeroed
// pages again for a tenth of its time), and segments come on 2 MiB pages
// where the kernel has them (the first touch of a 4 KiB page is the cost the
// glibc reserve above avoids).
inline bool KeepFreedMemoryInMimalloc() {
  if (std::getenv("MIMALLOC_ALLOW_DECOMMIT") == nullptr) {
    mi_option_set(mi_option_allow_decommit, 0);
    KeepWhatEarlySegmentsFree();
  }
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_set(mi_option_large_os_pages, 1);
  ReserveMimallocArena();  // an optimisation: false only means blocks above 16 MiB come and go
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) AdviseFirstSegmentOntoHugePages();
  // Proof that malloc is mimalloc's: a program linked in the wrong order
  // would allocate from glibc and have configured nothing.
  void* probe = std::malloc(64);
  const bool ours = mi_is_in_heap_region(probe);
  std::free(probe);
  return ours;
}
#endif

// Returns false when the allocator refused the policy or is not the one the
// program was built for. Does nothing under AddressSanitizer, whose allocator
// is neither (and would poison the whole reserve on free).
inline bool ApplyHeapPolicy() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#elif defined(CHIPKG_MIMALLOC)
  return KeepFreedMemoryInMimalloc();
#else
  const bool kept = KeepFreedHeapForReuse();
  ReserveHeapOnHugePages();  // an optimisation: false only means small pages
  return kept;
#endif
}

}  // namespace chipkg::tools
