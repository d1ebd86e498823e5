// How a chipkg process (the command, the REPL, the benchmarks) asks glibc's
// allocator to treat memory it frees. Process-wide policy, so it belongs to
// the programs, not the libraries.
#pragma once

#include <malloc.h>

namespace chipkg::tools {

// A large answer allocates and frees hundreds of MB of rows, claims and
// citations. By default glibc gives freed memory back to the kernel: heap
// tops above 128 KiB, and every block served by mmap (anything above a
// threshold that adapts up to 32 MiB, such as the vector of a 300,000-row
// answer), so the next query takes a page fault on every page again: about a
// quarter of Q2's and Q5's time at N=100,000, and a cost per row that grows
// with the answer (tools/bench/README.md). Serving every block from the heap
// and keeping freed memory for reuse trades that for a resident size that
// stays at the largest answer's (per thread arena: each keeps its own peak).
// Threads' arenas still fall back to mmap for a block larger than an arena
// can grow to (64 MiB), so no allocation fails for it, but such blocks are
// still unmapped at free.
// Returns false if glibc refused a setting.
inline bool KeepFreedHeapForReuse() {
  const bool mmap_off = mallopt(M_MMAP_MAX, 0) == 1;
  const bool trim_set = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  return mmap_off && trim_set;
}

}  // namespace chipkg::tools
