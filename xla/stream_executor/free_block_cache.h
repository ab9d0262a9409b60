// FreeBlockCache: device allocations that were freed, kept for reuse by a
// later allocation of the same size.
//
// A program executed again and again asks for the same buffer sizes every
// run (its outputs and temporaries), and the callers free them between runs.
// Handing back a block that was just freed avoids the platform allocator:
// on CUDA, cuMemAlloc and cuMemFree (which synchronizes the device); on the
// host, a fresh aligned_alloc that glibc often serves from new pages, so the
// next kernel pays a page fault per 4 KiB on first touch (0.5 ms for a 2 MiB
// output on the development VM, a third of a softmax's run; docs/perf.md).
//
// Policy: a block is reused only for a request of exactly its size (the
// sizes a program asks for repeat exactly). At most `capacity_bytes` and
// kMaxBlocks blocks are kept; putting more evicts the oldest blocks first,
// and a block larger than the capacity is not kept. Take returns the most
// recently put block of the size (the one most likely still in cache).
// Nothing here allocates after construction, so a warm Allocate/Deallocate
// cycle never reaches the heap.
//
// The cache only holds pointers; the executor that owns it frees what Put
// refuses, what is evicted and what Drain returns.
//
// Thread-safety: thread-compatible; the owning executor calls it under its
// allocation mutex.
#ifndef XLA_STREAM_EXECUTOR_FREE_BLOCK_CACHE_H_
#define XLA_STREAM_EXECUTOR_FREE_BLOCK_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stream_executor {

// One freed device block.
struct FreeBlock {
  void* pointer = nullptr;
  uint64_t size = 0;
};

class FreeBlockCache {
 public:
  // Most blocks kept at once, whatever their sizes.
  static constexpr size_t kMaxBlocks = 64;

  // A cache of at most `capacity_bytes` (0 keeps nothing).
  explicit FreeBlockCache(uint64_t capacity_bytes);

  // The cached block of exactly `size` bytes put most recently, removed from
  // the cache; nullptr when there is none.
  void* Take(uint64_t size);

  // Blocks that one Put can hand back for freeing, at most.
  static constexpr size_t kMaxEvicted = kMaxBlocks + 1;

  // Offers a freed block. Writes the blocks the caller must now free into
  // to_free[0, n) and returns n (at most kMaxEvicted): the oldest blocks,
  // evicted to make room, or `block` itself when it is not kept (larger than
  // the capacity). A null block is ignored.
  size_t Put(FreeBlock block, FreeBlock (&to_free)[kMaxEvicted]);

  // Removes every cached block and returns them, for the caller to free
  // (when an allocation fails, and before the executor is destroyed).
  std::vector<FreeBlock> Drain();

  uint64_t capacity_bytes() const { return capacity_bytes_; }
  // Bytes and blocks held now.
  uint64_t cached_bytes() const { return cached_bytes_; }
  size_t cached_blocks() const { return entries_.size(); }

 private:
  struct Entry {
    FreeBlock block;
    uint64_t age = 0;  // when it was put; larger is newer
  };
  // Removes entries_[i] (order of entries_ is not kept; `age` is).
  FreeBlock Remove(size_t i);

  const uint64_t capacity_bytes_;
  std::vector<Entry> entries_;  // capacity kMaxBlocks, reserved up front
  uint64_t cached_bytes_ = 0;
  uint64_t next_age_ = 0;
};

// The capacity executors give their cache unless told otherwise: an eighth
// of the device's memory, and 0 under AddressSanitizer (a cached block is
// never freed, so a use after Deallocate would go unreported).
uint64_t DefaultFreeBlockCacheBytes(uint64_t device_memory_bytes);

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_FREE_BLOCK_CACHE_H_
