// HostExecutor: the host platform's only device. Device memory is host
// memory, streams are worker threads, kernels are functions of shared objects
// loaded from memory, and launches run on a thread pool owned here.
//
// Allocations use aligned_alloc with 256-byte alignment (the size is rounded
// up to a multiple of 256 for aligned_alloc; the view keeps the requested
// size). Live allocations are tracked, so Deallocate rejects unknown pointers
// and double frees, and allocated_bytes() reports what is outstanding.
// Deallocated blocks go to a FreeBlockCache (free_block_cache.h) and serve
// the next request of the same size, warm; when aligned_alloc fails the
// cache is emptied and the request tried once more. Requests above the
// machine's physical memory fail with ResourceExhausted without trying.
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_EXECUTOR_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "xla/stream_executor/free_block_cache.h"
#include "xla/stream_executor/host/host_thread_pool.h"
#include "xla/stream_executor/stream_executor.h"

namespace stream_executor::host {

struct HostExecutorOptions {
  // Threads in the launch pool; 0 means one per core but one
  // (std::thread::hardware_concurrency() - 1, at least 1): the stream
  // thread that launches runs block ranges as well.
  int num_threads = 0;
  // Bytes of freed blocks kept for reuse; -1 means
  // DefaultFreeBlockCacheBytes(physical memory), 0 keeps none.
  int64_t free_block_cache_bytes = -1;
};

class HostExecutor : public StreamExecutor {
 public:
  explicit HostExecutor(const HostExecutorOptions& options = {});
  // Frees allocations that are still live (a caller bug, but not a leak).
  ~HostExecutor() override;

  HostExecutor(const HostExecutor&) = delete;
  HostExecutor& operator=(const HostExecutor&) = delete;

  absl::string_view platform_name() const override { return "host"; }
  int device_ordinal() const override { return 0; }
  const DeviceLimits& limits() const override { return limits_; }

  absl::StatusOr<DeviceMemoryBase> Allocate(uint64_t size) override;
  absl::Status Deallocate(DeviceMemoryBase memory) override;
  uint64_t allocated_bytes() const override;
  // Bytes of freed blocks held for reuse (not counted in allocated_bytes).
  uint64_t cached_bytes() const;
  // Host memory (host-space buffers: the same memory as device memory on
  // this platform), from std::aligned_alloc. ResourceExhausted, never an
  // exception, beyond the machine's memory or when none is left.
  absl::StatusOr<void*> AllocateHost(uint64_t size) override;
  absl::Status DeallocateHost(void* memory) override;
  // Host-memory bytes live now, and AllocateHost calls that succeeded so
  // far (for tests).
  uint64_t host_allocated_bytes() const;
  uint64_t host_allocation_count() const;

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::StatusOr<std::unique_ptr<KernelModule>> LoadKernelModule(
      absl::string_view name, absl::string_view bytes) override;

  // The host's BLAS is HostGemm (host_gemm.h), linked in: nothing to load,
  // always OK.
  absl::Status InitializeBlas() override { return absl::OkStatus(); }
  // The host's FFT is HostFftPlan (host_fft.h, Eigen), linked in: a plan
  // with one engine per launch-pool thread plus the stream's own.
  // InvalidArgument for a config that fails CheckFftConfig.
  absl::StatusOr<std::unique_ptr<FftPlan>> PrepareFft(const FftConfig& config) override;

  int num_pool_threads() const { return pool_.num_threads(); }
  // The launch pool, which launches and GEMMs of this executor's streams
  // split themselves over. Lives as long as the executor; thread-safe (see
  // HostThreadPool).
  HostThreadPool& launch_pool() { return pool_; }

  // The limits of the host device on this machine.
  static DeviceLimits HostLimits();

 private:
  const DeviceLimits limits_;
  HostThreadPool pool_;

  mutable std::mutex mu_;
  // Live allocations: pointer -> requested size. Guarded by mu_.
  absl::flat_hash_map<void*, uint64_t> allocations_;
  uint64_t allocated_bytes_ = 0;  // guarded by mu_
  FreeBlockCache cache_;          // guarded by mu_
  // Live AllocateHost blocks: pointer -> requested size. Guarded by mu_.
  absl::flat_hash_map<void*, uint64_t> host_allocations_;
  uint64_t host_allocated_bytes_ = 0;   // guarded by mu_
  uint64_t host_allocation_count_ = 0;  // guarded by mu_
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_EXECUTOR_H_
