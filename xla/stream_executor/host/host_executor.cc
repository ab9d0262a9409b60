#include "xla/stream_executor/host/host_executor.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/host/host_event.h"
#include "xla/stream_executor/host/host_fft.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/stream_executor/host/host_stream.h"
#include "xla/util/status_macros.h"

namespace stream_executor::host {
namespace {

int PoolSize(const HostExecutorOptions& options) {
  if (options.num_threads > 0) return options.num_threads;
  // The launching thread runs block ranges too: one core is left for it,
  // so a launch has one runnable thread per core (one more made the OS
  // preempt a thread holding a range, and the launch waited for its next
  // time slice).
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, hardware - 1);
}

uint64_t CacheBytes(const HostExecutorOptions& options, uint64_t memory_size) {
  if (options.free_block_cache_bytes >= 0) return static_cast<uint64_t>(options.free_block_cache_bytes);
  return DefaultFreeBlockCacheBytes(memory_size);
}

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

}  // namespace

DeviceLimits HostExecutor::HostLimits() {
  DeviceLimits limits;
  // Block and grid bounds match CUDA's, so launch dimensions chosen for one
  // target stay valid on the other. Shared memory is not passed to host
  // kernels (see host_kernel_abi.h), so none may be requested.
  limits.max_threads_per_block = 1024;
  limits.max_block_dims = {1024, 1024, 64};
  limits.max_grid_dims = {std::numeric_limits<int32_t>::max(), 65535, 65535};
  limits.shared_memory_per_block = 0;
  limits.warp_size = 1;
  limits.memory_size = PhysicalMemoryBytes();
  limits.compute_capability = "host";
  return limits;
}

HostExecutor::HostExecutor(const HostExecutorOptions& options)
    : limits_(HostLimits()), pool_(PoolSize(options)), cache_(CacheBytes(options, limits_.memory_size)) {}

HostExecutor::~HostExecutor() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [pointer, size] : allocations_) std::free(pointer);
  for (const auto& [pointer, size] : host_allocations_) std::free(pointer);
  for (const FreeBlock& block : cache_.Drain()) std::free(block.pointer);
}

absl::StatusOr<void*> HostExecutor::AllocateHost(uint64_t size) {
  if (size == 0) return nullptr;
  if (size > limits_.memory_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", size, " bytes of host memory for host device 0: the machine has ",
        limits_.memory_size, " bytes of memory"));
  }
  ASSIGN_OR_RETURN(void* memory, StreamExecutor::AllocateHost(size));
  std::lock_guard<std::mutex> lock(mu_);
  host_allocations_.emplace(memory, size);
  host_allocated_bytes_ += size;
  ++host_allocation_count_;
  return memory;
}

absl::Status HostExecutor::DeallocateHost(void* memory) {
  if (memory == nullptr) return absl::OkStatus();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = host_allocations_.find(memory);
    if (it == host_allocations_.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot free host memory at ", absl::Hex(reinterpret_cast<uintptr_t>(memory)),
          " on host device 0: not a live AllocateHost block (freed twice or never allocated)"));
    }
    host_allocated_bytes_ -= it->second;
    host_allocations_.erase(it);
  }
  std::free(memory);
  return absl::OkStatus();
}

uint64_t HostExecutor::host_allocated_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return host_allocated_bytes_;
}

uint64_t HostExecutor::host_allocation_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return host_allocation_count_;
}

absl::StatusOr<DeviceMemoryBase> HostExecutor::Allocate(uint64_t size) {
  if (size == 0) return DeviceMemoryBase();
  if (size > limits_.memory_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", size, " bytes on host device 0: the machine has ",
        limits_.memory_size, " bytes of memory"));
  }
  std::unique_lock<std::mutex> lock(mu_);
  void* pointer = cache_.Take(size);
  if (pointer == nullptr) {
    lock.unlock();
    // No overflow: size <= physical memory, far below 2^64 - 256.
    const uint64_t rounded =
        (size + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
    pointer = std::aligned_alloc(kAllocationAlignment, rounded);
    if (pointer == nullptr) {
      // Give the cached blocks back and try once more.
      lock.lock();
      std::vector<FreeBlock> cached = cache_.Drain();
      lock.unlock();
      for (const FreeBlock& block : cached) std::free(block.pointer);
      pointer = std::aligned_alloc(kAllocationAlignment, rounded);
    }
    if (pointer == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", size, " bytes on host device 0: out of memory"));
    }
    lock.lock();
  }
  allocations_.emplace(pointer, size);
  allocated_bytes_ += size;
  return DeviceMemoryBase(pointer, size);
}

absl::Status HostExecutor::Deallocate(DeviceMemoryBase memory) {
  if (memory.is_null()) return absl::OkStatus();
  FreeBlock to_free[FreeBlockCache::kMaxEvicted];
  size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.find(memory.opaque);
    if (it == allocations_.end() || it->second != memory.size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot deallocate ", memory.size, " bytes at 0x",
          absl::Hex(reinterpret_cast<uintptr_t>(memory.opaque)),
          " on host device 0: not a live allocation of this device (freed "
          "twice, never allocated, or a slice)"));
    }
    allocated_bytes_ -= it->second;
    allocations_.erase(it);
    n = cache_.Put(FreeBlock{memory.opaque, memory.size}, to_free);
  }
  for (size_t i = 0; i < n; ++i) std::free(to_free[i].pointer);
  return absl::OkStatus();
}

uint64_t HostExecutor::allocated_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_bytes_;
}

uint64_t HostExecutor::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.cached_bytes();
}

absl::StatusOr<std::unique_ptr<FftPlan>> HostExecutor::PrepareFft(const FftConfig& config) {
  absl::StatusOr<std::unique_ptr<HostFftPlan>> plan =
      HostFftPlan::Create(config, pool_.num_threads() + 1);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<FftPlan>(*std::move(plan));
}

absl::StatusOr<std::unique_ptr<Stream>> HostExecutor::CreateStream() {
  try {
    return std::make_unique<HostStream>(limits_, pool_);
  } catch (const std::system_error& error) {  // the worker thread did not start
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot start the worker thread of a new stream on host device 0: ",
        error.what()));
  }
}

absl::StatusOr<std::unique_ptr<Event>> HostExecutor::CreateEvent() {
  return std::make_unique<HostEvent>();
}

absl::StatusOr<std::unique_ptr<KernelModule>> HostExecutor::LoadKernelModule(
    absl::string_view name, absl::string_view bytes) {
  ASSIGN_OR_RETURN(std::unique_ptr<HostKernelModule> module,
                   HostKernelModule::Load(name, bytes));
  return std::unique_ptr<KernelModule>(std::move(module));
}

}  // namespace stream_executor::host
