#include "xla/stream_executor/free_block_cache.h"

#include <utility>

namespace stream_executor {

FreeBlockCache::FreeBlockCache(uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {
  entries_.reserve(kMaxBlocks);
}

FreeBlock FreeBlockCache::Remove(size_t i) {
  const FreeBlock block = entries_[i].block;
  cached_bytes_ -= block.size;
  entries_[i] = entries_.back();
  entries_.pop_back();
  return block;
}

void* FreeBlockCache::Take(uint64_t size) {
  size_t newest = entries_.size();
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].block.size != size) continue;
    if (newest == entries_.size() || entries_[i].age > entries_[newest].age) newest = i;
  }
  if (newest == entries_.size()) return nullptr;
  return Remove(newest).pointer;
}

size_t FreeBlockCache::Put(FreeBlock block, FreeBlock (&to_free)[kMaxEvicted]) {
  size_t n = 0;
  if (block.pointer == nullptr) return n;
  if (block.size > capacity_bytes_) {
    to_free[n++] = block;
    return n;
  }
  while (!entries_.empty() &&
         (entries_.size() >= kMaxBlocks || cached_bytes_ + block.size > capacity_bytes_)) {
    size_t oldest = 0;
    for (size_t i = 1; i < entries_.size(); ++i) {
      if (entries_[i].age < entries_[oldest].age) oldest = i;
    }
    to_free[n++] = Remove(oldest);
  }
  entries_.push_back(Entry{block, next_age_++});
  cached_bytes_ += block.size;
  return n;
}

std::vector<FreeBlock> FreeBlockCache::Drain() {
  std::vector<FreeBlock> blocks;
  blocks.reserve(entries_.size());
  for (const Entry& e : entries_) blocks.push_back(e.block);
  entries_.clear();
  cached_bytes_ = 0;
  return blocks;
}

namespace {

#if defined(__SANITIZE_ADDRESS__)  // gcc
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)  // clang
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace

uint64_t DefaultFreeBlockCacheBytes(uint64_t device_memory_bytes) {
  return kAddressSanitizer ? 0 : device_memory_bytes / 8;
}

}  // namespace stream_executor
