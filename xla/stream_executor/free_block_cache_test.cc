#include "xla/stream_executor/free_block_cache.h"

#include <cstdint>
#include <set>

#include "gtest/gtest.h"

namespace stream_executor {
namespace {

// Distinct fake pointers (the cache never dereferences them).
void* Block(uintptr_t i) { return reinterpret_cast<void*>(0x10000 + 256 * i); }

TEST(FreeBlockCache, ReusesOnlyExactSizesNewestFirst) {
  FreeBlockCache cache(1 << 20);
  FreeBlock to_free[FreeBlockCache::kMaxEvicted];
  EXPECT_EQ(cache.Take(1000), nullptr);
  EXPECT_EQ(cache.Put({Block(1), 1000}, to_free), 0u);
  EXPECT_EQ(cache.Put({Block(2), 1000}, to_free), 0u);
  EXPECT_EQ(cache.Put({Block(3), 999}, to_free), 0u);
  EXPECT_EQ(cache.cached_bytes(), 2999u);
  EXPECT_EQ(cache.Take(1001), nullptr);
  EXPECT_EQ(cache.Take(1000), Block(2));  // the newer of the two
  EXPECT_EQ(cache.Take(1000), Block(1));
  EXPECT_EQ(cache.Take(1000), nullptr);
  EXPECT_EQ(cache.Take(999), Block(3));
  EXPECT_EQ(cache.cached_bytes(), 0u);
  EXPECT_EQ(cache.cached_blocks(), 0u);
  EXPECT_EQ(cache.Put({nullptr, 5}, to_free), 0u);
  EXPECT_EQ(cache.cached_blocks(), 0u);
}

TEST(FreeBlockCache, EvictsTheOldestToStayWithinCapacity) {
  FreeBlockCache cache(3000);
  FreeBlock to_free[FreeBlockCache::kMaxEvicted];
  EXPECT_EQ(cache.Put({Block(1), 1000}, to_free), 0u);
  EXPECT_EQ(cache.Put({Block(2), 1500}, to_free), 0u);
  EXPECT_EQ(cache.Put({Block(3), 500}, to_free), 0u);  // exactly full
  EXPECT_EQ(cache.cached_bytes(), 3000u);
  // 1700 more: the two oldest (1000, then 1500) go.
  ASSERT_EQ(cache.Put({Block(4), 1700}, to_free), 2u);
  EXPECT_EQ(to_free[0].pointer, Block(1));
  EXPECT_EQ(to_free[1].pointer, Block(2));
  EXPECT_EQ(to_free[1].size, 1500u);
  EXPECT_EQ(cache.cached_bytes(), 2200u);
  // Larger than the whole capacity: handed straight back, nothing evicted.
  ASSERT_EQ(cache.Put({Block(5), 3001}, to_free), 1u);
  EXPECT_EQ(to_free[0].pointer, Block(5));
  EXPECT_EQ(cache.cached_bytes(), 2200u);
  EXPECT_EQ(cache.Take(500), Block(3));
  EXPECT_EQ(cache.Take(1700), Block(4));
}

TEST(FreeBlockCache, KeepsAtMostMaxBlocksAndDrainsEverything) {
  FreeBlockCache cache(uint64_t{1} << 40);
  FreeBlock to_free[FreeBlockCache::kMaxEvicted];
  const uintptr_t n = FreeBlockCache::kMaxBlocks + 7;
  std::set<void*> evicted;
  for (uintptr_t i = 0; i < n; ++i) {
    const size_t k = cache.Put({Block(i), 100 + i}, to_free);
    for (size_t j = 0; j < k; ++j) evicted.insert(to_free[j].pointer);
  }
  EXPECT_EQ(cache.cached_blocks(), FreeBlockCache::kMaxBlocks);
  ASSERT_EQ(evicted.size(), 7u);
  for (uintptr_t i = 0; i < 7; ++i) EXPECT_EQ(evicted.count(Block(i)), 1u) << i;  // the oldest
  std::vector<FreeBlock> drained = cache.Drain();
  EXPECT_EQ(drained.size(), FreeBlockCache::kMaxBlocks);
  std::set<void*> all(evicted);
  for (const FreeBlock& b : drained) all.insert(b.pointer);
  EXPECT_EQ(all.size(), n);  // every block came back exactly once
  EXPECT_EQ(cache.cached_bytes(), 0u);
  EXPECT_EQ(cache.Take(100 + 8), nullptr);
}

TEST(FreeBlockCache, ZeroCapacityKeepsNothing) {
  FreeBlockCache cache(0);
  FreeBlock to_free[FreeBlockCache::kMaxEvicted];
  ASSERT_EQ(cache.Put({Block(1), 256}, to_free), 1u);
  EXPECT_EQ(to_free[0].pointer, Block(1));
  EXPECT_EQ(cache.Take(256), nullptr);
}

// An eighth of the device, except under AddressSanitizer, where a cached
// block would hide a use after Deallocate.
TEST(FreeBlockCache, DefaultCapacity) {
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(DefaultFreeBlockCacheBytes(8000), 0u);
#else
  EXPECT_EQ(DefaultFreeBlockCacheBytes(8000), 1000u);
#endif
}

}  // namespace
}  // namespace stream_executor
