// The allocator policy of chipkg's programs (tools/heap_policy.h): memory a
// large answer frees stays in the process for the next query. Built without
// sanitizers even in the sanitized test build (CMakeLists.txt): AddressSanitizer
// replaces the glibc allocator this is about.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "tools/heap_policy.h"

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

}  // namespace
