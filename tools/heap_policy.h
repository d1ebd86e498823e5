// How a chipkg process (the command, the REPL, the benchmarks) asks glibc's
// allocator to treat memory it frees. Process-wide policy, so it belongs to
// the programs, not the libraries.
#pragma once

#include <malloc.h>

namespace chipkg::tools {

// A large answer allocates and frees hundreds of MB of rows, claims and
// citations. By default glibc gives freed memory back to the kernel (heap tops
// above 128 KiB, and chunks above an mmap threshold that adapts upwards), so
// the next query takes a page fault on every page again: about a third of
// Q2's time at N=100,000 (tools/bench/README.md). Keeping freed memory for
// reuse trades that for a resident size that stays at the largest answer's.
// Returns false if glibc refused a setting.
inline bool KeepFreedHeapForReuse() {
  // Largest mmap threshold glibc accepts on 64-bit (HEAP_MAX_SIZE / 2);
  // setting it also stops the threshold from adapting.
  const bool mmap_set = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  const bool trim_set = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  return mmap_set && trim_set;
}

}  // namespace chipkg::tools
