// What the chipkg command does first, to start fast: scripts and cron jobs
// start it afresh for every query, so its start-up is part of every answer
// (tools/bench/HISTORY.md, "a one-shot command's start").
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

// Defined by the GNU linker's default script: the program's first byte, and
// the end of its code.
extern "C" char __executable_start;
extern "C" char etext;

namespace chipkg::tools {

#if defined(MADV_POPULATE_READ)
inline constexpr int kMadvisePopulateRead = MADV_POPULATE_READ;
#else
inline constexpr int kMadvisePopulateRead = 22;  // Linux 5.14's value; older headers lack it
#endif

// Maps every page of the file-backed range [begin, end) into the process now,
// in one call, from the page cache (reading what is not there), instead of
// one page fault at the first use of each 64 KiB. False if the kernel cannot
// (before Linux 5.14) or refused; nothing else changes then.
inline bool MapUpFront(const void* begin, const void* end) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = reinterpret_cast<uintptr_t>(begin) & ~(page - 1);
  const uintptr_t last = reinterpret_cast<uintptr_t>(end);
  if (last <= first) return false;
  return madvise(reinterpret_cast<void*>(first), last - first, kMadvisePopulateRead) == 0;
}

// A one-shot `chipkg query` runs code in some 140 places of the program's
// 10 MB of code (RocksDB's mostly), and each first use is a page fault that
// costs microseconds on the virtual machines chipkg is measured on. Mapping
// the whole code at once costs ~0.4 ms and saves more: whole-process Q1 of
// the peer benchmark 242 -> 128 page faults and ~0.5 ms faster (four
// alternating rounds of 100 runs; tools/bench/HISTORY.md).
inline bool MapProgramCodeUpFront() { return MapUpFront(&__executable_start, &etext); }

}  // namespace chipkg::tools
