// The allocator policy of chipkg's programs (tools/heap_policy.h): memory a
// large answer frees stays in the process for the next query.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "tools/heap_policy.h"

namespace {

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
  // 20 MiB: glibc's default would serve it by mmap (its threshold starts at
  // 128 KiB) and unmap it at free; under the policy it comes from the heap.
  constexpr size_t kBlock = 20u << 20;
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlock);
  EXPECT_EQ(mallinfo2().hblkhd, 0u) << "the block was served by mmap";
  std::free(block);
  // Not trimmed: the freed block is still part of the main arena.
  EXPECT_GE(mallinfo2().arena, kBlock);
}

}  // namespace
