// The allocator policy of chipkg's programs (tools/heap_policy.h): memory a
// large answer frees stays in the process for the next query. And how the
// chipkg command starts (tools/startup.h): its code mapped in one call. Built without
// sanitizers even in the sanitized test build (CMakeLists.txt): AddressSanitizer
// replaces the allocators this is about. Built twice: heap_policy_tests for
// glibc's malloc, heap_policy_mimalloc_tests (CHIPKG_MIMALLOC) for mimalloc.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#if defined(CHIPKG_MIMALLOC)
#include <mimalloc.h>
#endif

#include "tools/heap_policy.h"
#include "tools/startup.h"

namespace {

// Keeps the compiler from eliding an allocation whose pointer is never used.
void* volatile g_escape = nullptr;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedAllocator = true;
#else
constexpr bool kSanitizedAllocator = false;
#endif
#else
constexpr bool kSanitizedAllocator = false;
#endif

// The lines /proc/self/smaps gives for the mapping that holds `address`
// (Size:, Rss:, ..., VmFlags:); none when no mapping holds it.
std::vector<std::string> SmapsOfMappingHolding(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  std::vector<std::string> lines;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      if (inside) break;
      inside = lo <= at && at < hi;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  return lines;
}

// The line of that mapping's smaps entry starting with `field` ("Rss:"), or "".
std::string SmapsField(const void* address, const std::string& field) {
  for (const std::string& line : SmapsOfMappingHolding(address)) {
    if (line.rfind(field, 0) == 0) return line;
  }
  return "";
}

// The VmFlags of the mapping that holds `address` (/proc/self/smaps).
std::string FlagsOfMappingHolding(const void* address) { return SmapsField(address, "VmFlags:"); }

// The size and the resident part of the mapping that holds `address`, in KiB,
// or {-1, -1} when no mapping holds it.
std::pair<long, long> SizeAndResidentKiB(const void* address) {
  const std::string size = SmapsField(address, "Size:"), rss = SmapsField(address, "Rss:");
  if (size.empty() || rss.empty()) return {-1, -1};
  return {std::atol(size.c_str() + 5), std::atol(rss.c_str() + 4)};
}

// MADV_POPULATE_READ came with Linux 5.14; before it MapUpFront says false.
bool KernelCanPopulate() {
  utsname u{};
  if (uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 5 || (major == 5 && minor >= 14);
}

TEST(StartupTest, MapUpFrontMapsEveryPageOfAFileMapping) {
  char path[] = "/tmp/chipkg-startup-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  constexpr size_t kBytes = size_t{8} << 20;
  const std::string chunk(1 << 20, 'x');
  for (size_t i = 0; i < kBytes / chunk.size(); ++i) {
    ASSERT_EQ(write(fd, chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
  }
  void* mapped = mmap(nullptr, kBytes, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  unlink(path);
  ASSERT_NE(mapped, MAP_FAILED);
  const char* begin = static_cast<const char*>(mapped);
  EXPECT_EQ(SizeAndResidentKiB(begin), std::make_pair(long{kBytes >> 10}, 0L)) << "nothing is mapped before";
  const bool mapped_up_front = chipkg::tools::MapUpFront(begin, begin + kBytes);
  EXPECT_EQ(mapped_up_front, KernelCanPopulate());
  if (mapped_up_front) {
    EXPECT_EQ(SizeAndResidentKiB(begin), std::make_pair(long{kBytes >> 10}, long{kBytes >> 10}))
        << "every page is mapped after, without having been read";
  }
  munmap(mapped, kBytes);
}

TEST(StartupTest, TheProgramsCodeIsMappedUpFront) {
  if (!KernelCanPopulate()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_READ";
  ASSERT_TRUE(chipkg::tools::MapProgramCodeUpFront());
  // The code of this test program: every page of its mapping is resident.
  const auto [size, resident] = SizeAndResidentKiB(reinterpret_cast<const void*>(&KernelCanPopulate));
  ASSERT_GT(size, 0);
  EXPECT_EQ(resident, size);
}

#if defined(CHIPKG_MIMALLOC)
bool TransparentHugePagesOff() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return !std::getline(enabled, line) || line.find("[never]") != std::string::npos;
}

TEST(MimallocPolicyTest, ProgramsAllocateWithMimalloc) {
  unsetenv("MIMALLOC_ALLOW_DECOMMIT");
  unsetenv("MIMALLOC_LARGE_OS_PAGES");
  ASSERT_TRUE(chipkg::tools::ApplyHeapPolicy()) << "malloc is not mimalloc's: check the link order";
  EXPECT_EQ(mi_option_get(mi_option_allow_decommit), 0);
  EXPECT_EQ(mi_option_get(mi_option_large_os_pages), 1);
  int* object = new int[16];
  EXPECT_TRUE(mi_is_in_heap_region(object)) << "operator new does not allocate from mimalloc";
  delete[] object;
}

// mimalloc took the thread's first segment, where small blocks live, before
// the policy ran; the policy advises it onto huge pages after the fact (a
// small query in a fresh process touched fresh 4 KiB pages in each of its
// first six runs without it).
TEST(MimallocPolicyTest, SmallBlocksOfTheFirstSegmentAreOnHugePages) {
  if (TransparentHugePagesOff()) GTEST_SKIP() << "no transparent huge pages here";
  unsetenv("MIMALLOC_LARGE_OS_PAGES");
  void* before = std::malloc(64);  // a block of the segment mimalloc took at load
  g_escape = before;
  ASSERT_TRUE(chipkg::tools::ApplyHeapPolicy());
  void* after = std::malloc(64);
  g_escape = after;
  for (void* block : {before, after}) {
    const std::string flags = FlagsOfMappingHolding(block);
    EXPECT_NE(flags.find(" hg"), std::string::npos) << "block at " << block << " lies in a mapping with " << flags;
  }
  std::free(before);
  std::free(after);
}

// mimalloc's own variable says otherwise: no advice.
TEST(MimallocPolicyTest, TheFirstSegmentKeepsSmallPagesWhenMimallocIsToldSo) {
  setenv("MIMALLOC_LARGE_OS_PAGES", "0", 1);
  void* block = std::malloc(64);
  g_escape = block;
  const std::string flags_before = FlagsOfMappingHolding(block);
  if (flags_before.find(" hg") != std::string::npos) {
    GTEST_SKIP() << "the segment was advised by an earlier test of this process (ctest runs each alone)";
  }
  ASSERT_TRUE(chipkg::tools::ApplyHeapPolicy());
  EXPECT_EQ(FlagsOfMappingHolding(block), flags_before);
  std::free(block);
  unsetenv("MIMALLOC_LARGE_OS_PAGES");
}

long MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Allocates an answer's worth of small blocks, touches them, frees them.
void AnswerOfSmallBlocks() {
  std::vector<void*> blocks;
  for (size_t i = 0; i < (size_t{64} << 20) / 100; ++i) {
    blocks.push_back(std::malloc(100));
    std::memset(blocks.back(), 1, 100);
  }
  g_escape = blocks.back();
  for (void* b : blocks) std::free(b);
}

// The next answer reuses what the last one freed without touching fresh
// pages again: with mimalloc's defaults the second answer below took 27,000
// page faults (its memory decommitted and reset between answers), under the
// policy 26.
TEST(MimallocPolicyTest, TheNextAnswerReusesMemoryWithoutPageFaults) {
  if (TransparentHugePagesOff()) GTEST_SKIP() << "no transparent huge pages here";
  unsetenv("MIMALLOC_ALLOW_DECOMMIT");
  unsetenv("MIMALLOC_LARGE_OS_PAGES");
  ASSERT_TRUE(chipkg::tools::ApplyHeapPolicy());
  AnswerOfSmallBlocks();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // past mimalloc's delay before it decommits
  for (int i = 0; i < 1000; ++i) std::free(std::malloc(64));
  // The fewest faults of three answers: on a loaded machine (ctest -j2 in
  // CI) the kernel now and then takes back pages between two answers (8,729
  // faults once), which mimalloc's defaults do every time.
  long fewest = LONG_MAX;
  for (int round = 0; round < 3 && fewest >= 2000; ++round) {
    const long before = MinorFaults();
    AnswerOfSmallBlocks();
    fewest = std::min(fewest, MinorFaults() - before);
  }
  EXPECT_LT(fewest, 2000);
}

// The thread's first segment predates the policy in this program (libstdc++
// is a shared library here, as in the benchmarks and chipkg-query-loop), so
// mimalloc made it one that may decommit; the policy keeps what it frees
// committed all the same. Before, what an answer freed there was given back
// (MADV_DONTNEED) once mimalloc's delay had passed, and the next answer
// faulted it in again: chipkg-query-loop's Q3 at N=100,000 took 600-3,000
// faults in every run, none with MIMALLOC_ALLOW_DECOMMIT=0 set before the
// start (tools/bench/HISTORY.md). Without KeepWhatEarlySegmentsFree each
// answer that began in the first segment took ~600 faults here.
TEST(MimallocPolicyTest, WhatTheFirstSegmentFreesStaysCommitted) {
  unsetenv("MIMALLOC_ALLOW_DECOMMIT");
  // The policy leaves the delays to these when they are set.
  unsetenv("MIMALLOC_DECOMMIT_DELAY");
  unsetenv("MIMALLOC_RESET_DELAY");
  unsetenv("MIMALLOC_DECOMMIT_EXTEND_DELAY");
  void* early = std::malloc(64);  // a block of the segment mimalloc took at load
  g_escape = early;
  const auto segment_of = [](const void* p) {
    return reinterpret_cast<uintptr_t>(p) & ~(chipkg::tools::kMimallocSegmentBytes - 1);
  };
  ASSERT_TRUE(chipkg::tools::ApplyHeapPolicy());
  EXPECT_GE(mi_option_get(mi_option_decommit_extend_delay), 60L * 60 * 1000);
  // 34 MB of small blocks, more than a segment: answers alternate between
  // beginning in the first segment and in the next (one that fits inside a
  // segment was never given back).
  bool began_in_first_segment = false;
  auto answer = [&] {
    std::vector<void*> blocks;
    for (int i = 0; i < 300000; ++i) {
      blocks.push_back(std::malloc(100));
      std::memset(blocks.back(), 1, 100);
    }
    began_in_first_segment = segment_of(blocks.front()) == segment_of(early);
    g_escape = blocks.back();
    for (void* b : blocks) std::free(b);
    // Past mimalloc's own delays (25 ms, and 1 ms a page returned).
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  };
  answer();
  answer();
  // The fewest faults of the answers that began in the first segment: on a
  // loaded machine (ctest -j2) the kernel now and then takes pages back
  // between two answers, whatever the allocator does.
  long fewest = LONG_MAX;
  int in_first_segment = 0;
  for (int round = 0; round < 6 && in_first_segment < 2; ++round) {
    const long before = MinorFaults();
    answer();
    if (!began_in_first_segment) continue;
    ++in_first_segment;
    fewest = std::min(fewest, MinorFaults() - before);
  }
  std::free(early);
  if (in_first_segment == 0) GTEST_SKIP() << "no answer began in the first segment";
  EXPECT_LT(fewest, 100) << "memory the first segment freed was faulted in again (fewest of " << in_first_segment
                         << " answers that began there)";
}

// A block above half a mimalloc segment (a large answer's citation vector)
// gets a segment of its own; the arena takes it back when it is freed, so the
// next such block is memory already touched. Without the arena every round
// below faulted its 256 MiB in again: 128 huge pages, or 65,536 small ones.
TEST(MimallocPolicyTest, AFreedLargeBlockIsReusedWithoutPageFaults) {
  unsetenv("CHIPKG_HUGE_HEAP_MIB");
  ASSERT_TRUE(chipkg::tools::ApplyHeapPolicy());
  ASSERT_TRUE(chipkg::tools::ReserveMimallocArena());
  constexpr size_t kBytes = size_t{256} << 20;
  auto answer = [] {
    char* block = static_cast<char*>(std::malloc(kBytes));
    ASSERT_NE(block, nullptr);
    for (size_t i = 0; i < kBytes; i += 4096) block[i] = 1;
    g_escape = block;
    std::free(block);
  };
  answer();
  answer();
  long fewest = LONG_MAX;  // of three rounds, as above
  for (int round = 0; round < 3 && fewest >= 32; ++round) {
    const long before = MinorFaults();
    answer();
    fewest = std::min(fewest, MinorFaults() - before);
  }
  EXPECT_LT(fewest, 32);
}

#else
// The process's resident KiB.
long ResidentKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(HeapPolicyTest, FreedBlocksStayInTheHeap) {
  if (kSanitizedAllocator) GTEST_SKIP() << "AddressSanitizer replaces glibc's allocator; mallopt does not apply";
  ASSERT_TRUE(chipkg::tools::KeepFreedHeapForReuse());
  // 48 MiB: glibc's default would serve it by mmap (its threshold starts at
  // 128 KiB and never passes 32 MiB) and unmap it at free; under the policy
  // it comes from the heap.
  constexpr size_t kBlock = 48u << 20;
  const size_t mapped_before = mallinfo2().hblkhd;
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlock);
  g_escape = block;
  EXPECT_EQ(mallinfo2().hblkhd, mapped_before) << "the block was served by mmap";
  std::free(block);
  // Not trimmed: the freed block is still part of the main arena.
  EXPECT_GE(mallinfo2().arena, kBlock);
}

// Threads allocate from arenas of at most 64 MiB each; a larger block is
// still served (glibc falls back to mmap for it whatever M_MMAP_MAX says).
// A guard, not a measure: it holds with or without the policy.
TEST(HeapPolicyTest, ThreadsStillGetBlocksLargerThanAnArena) {
  if (kSanitizedAllocator) GTEST_SKIP() << "AddressSanitizer replaces glibc's allocator; mallopt does not apply";
  ASSERT_TRUE(chipkg::tools::KeepFreedHeapForReuse());
  bool served = false;
  std::thread worker([&] {
    constexpr size_t kBlock = 160u << 20;
    void* small = std::malloc(64);  // ties this thread to an arena of its own
    void* block = std::malloc(kBlock);
    served = block != nullptr;
    if (block != nullptr) std::memset(block, 1, kBlock);
    g_escape = block;
    std::free(block);
    std::free(small);
  });
  worker.join();
  EXPECT_TRUE(served);
}

// What a program allocates first comes from the reserve, which is advised
// for huge pages, and reserving costs no memory until it is used.
TEST(HeapPolicyTest, TheHeapsFirstReserveIsOnHugePages) {
  if (kSanitizedAllocator) GTEST_SKIP() << "AddressSanitizer replaces glibc's allocator";
  unsetenv("CHIPKG_HUGE_HEAP_MIB");
  ASSERT_TRUE(chipkg::tools::KeepFreedHeapForReuse());
  const long rss_before = ResidentKiB();
  if (!chipkg::tools::ReserveHeapOnHugePages(size_t{256} << 20)) {
    GTEST_SKIP() << "this kernel takes no MADV_HUGEPAGE advice (no transparent huge pages)";
  }
  EXPECT_LT(ResidentKiB() - rss_before, 16 * 1024) << "the reserve was touched";
  void* first = std::malloc(size_t{1} << 20);
  ASSERT_NE(first, nullptr);
  g_escape = first;
  const std::string flags = FlagsOfMappingHolding(first);
  EXPECT_NE(flags.find(" hg"), std::string::npos) << "block at " << first << " lies in a mapping with " << flags;
  std::free(first);
}

TEST(HeapPolicyTest, TheReserveCanBeTurnedOff) {
  if (kSanitizedAllocator) GTEST_SKIP() << "AddressSanitizer replaces glibc's allocator";
  ASSERT_TRUE(chipkg::tools::KeepFreedHeapForReuse());
  setenv("CHIPKG_HUGE_HEAP_MIB", "0", 1);
  const void* top_before = sbrk(0);
  EXPECT_FALSE(chipkg::tools::ReserveHeapOnHugePages());
  EXPECT_EQ(sbrk(0), top_before) << "the heap grew";
  unsetenv("CHIPKG_HUGE_HEAP_MIB");
}

#endif  // CHIPKG_MIMALLOC

}  // namespace
