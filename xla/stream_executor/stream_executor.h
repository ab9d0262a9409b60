// StreamExecutor: one device of a platform. It allocates device memory,
// creates streams and events, and loads kernel modules.
//
// Executors are created and owned by their Platform (Platform::GetDevice) and
// live as long as it; platforms in the PlatformRegistry live until the
// process exits. Memory, streams, events and modules created by an executor
// must be released before it is destroyed.
//
// Thread-safety: every method may be called from any thread, concurrently.
#ifndef XLA_STREAM_EXECUTOR_STREAM_EXECUTOR_H_
#define XLA_STREAM_EXECUTOR_STREAM_EXECUTOR_H_

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/command_buffer.h"
#include "xla/stream_executor/device_limits.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/dnn.h"
#include "xla/stream_executor/event.h"
#include "xla/stream_executor/fft.h"
#include "xla/stream_executor/kernel_module.h"
#include "xla/stream_executor/stream.h"

namespace stream_executor {

class StreamExecutor {
 public:
  // Every non-empty allocation starts at a multiple of this many bytes.
  static constexpr uint64_t kAllocationAlignment = 256;

  virtual ~StreamExecutor() = default;

  // The name of the platform this device belongs to ("host", "cuda").
  virtual absl::string_view platform_name() const = 0;
  // The device's index within its platform.
  virtual int device_ordinal() const = 0;
  // The device's limits; constant for the executor's lifetime.
  virtual const DeviceLimits& limits() const = 0;

  // Versions of the toolchain components this device runs with, by the
  // component names artifacts use in their toolchain requirements (for CUDA:
  // {"cuda_driver", "12.4"}). Empty when the platform has none (host).
  virtual std::map<std::string, std::string> toolchain_versions() const { return {}; }

  // Allocates `size` bytes of uninitialized device memory, aligned to
  // kAllocationAlignment. Size 0 is allowed and returns the null view (which
  // Deallocate accepts). ResourceExhausted when the memory is not available
  // (the message names the size and the device). Free it with Deallocate, or
  // use OwningDeviceMemory.
  virtual absl::StatusOr<DeviceMemoryBase> Allocate(uint64_t size) = 0;
  // Frees memory returned by Allocate. The null view is a no-op. Work that
  // still uses the memory must have finished. InvalidArgument when `memory`
  // is not a live allocation of this executor (unknown pointer, double free,
  // a slice).
  virtual absl::Status Deallocate(DeviceMemoryBase memory) = 0;
  // Bytes currently allocated through this executor (as requested, before
  // rounding). For tests and memory accounting.
  virtual uint64_t allocated_bytes() const = 0;

  // Allocates `size` bytes of uninitialized host memory that this device's
  // streams copy to and from (the host side of Stream::Memcpy) and whose
  // address the device's kernels and copies may use directly: page-locked
  // (pinned) memory where the platform has it (cuda: cuMemHostAlloc, which
  // on a unified-addressing device is also a device address), ordinary
  // memory otherwise. Aligned to kAllocationAlignment. Size 0 returns
  // nullptr (which DeallocateHost accepts). ResourceExhausted when the
  // memory is not available (the message names the size and the device);
  // never throws. Free it with DeallocateHost. This default returns
  // ordinary memory (std::aligned_alloc), right for a platform whose device
  // memory is host memory.
  virtual absl::StatusOr<void*> AllocateHost(uint64_t size) {
    if (size == 0) return nullptr;
    const uint64_t rounded =
        (size + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
    void* memory = rounded < size ? nullptr : std::aligned_alloc(kAllocationAlignment, rounded);
    if (memory == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", size,
                                                       " bytes of host memory for ",
                                                       platform_name(), " device ",
                                                       device_ordinal(), ": out of memory"));
    }
    return memory;
  }
  // Frees memory returned by AllocateHost; nullptr is a no-op. Work that
  // still uses the memory must have finished. The platform's error when it
  // refuses the pointer (cuda: not from cuMemHostAlloc).
  virtual absl::Status DeallocateHost(void* memory) {
    std::free(memory);
    return absl::OkStatus();
  }

  // A new stream with its own queue. Fails when the device cannot create
  // one (for example, no thread could be started).
  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStream() = 0;
  // A new, never-recorded event.
  virtual absl::StatusOr<std::unique_ptr<Event>> CreateEvent() = 0;
  // Loads a module of device code from `bytes` (what the bytes are is
  // platform-specific; see kernel_module.h). `name` is used in error
  // messages. InvalidArgument when the bytes are empty or not a loadable
  // module (the message names the module and the loader's reason).
  virtual absl::StatusOr<std::unique_ptr<KernelModule>> LoadKernelModule(
      absl::string_view name, absl::string_view bytes) = 0;

  // A new, empty command buffer of this device (command_buffer.h): a CUDA
  // graph on cuda. Unimplemented on platforms without one (host: its
  // launches are calls already); FailedPrecondition saying why when the
  // platform has them but this device or driver cannot (cuda: a driver
  // without the graph entry points). Callers fall back to plain launches.
  // `submit_stream`: the stream it will be submitted on, when known
  // (cuda: library calls are captured for that stream, so that graphs
  // submitted on different streams never share a library workspace; a
  // buffer holding library calls is then only submitted there).
  virtual absl::StatusOr<std::unique_ptr<CommandBuffer>> CreateCommandBuffer(
      Stream* /*submit_stream*/ = nullptr) {
    return absl::UnimplementedError(absl::StrCat("the ", platform_name(),
                                                 " platform has no command buffers"));
  }

  // Whether this device's command buffers take library calls
  // (DeviceCommand::Kind::kGemm, kConvolution; cuda: each captured into a
  // child graph, which needs the driver's stream-capture entry points).
  // False by default: they then run as plain calls between graphs.
  // Thread-safe.
  virtual bool CommandBuffersCaptureLibraryCalls() const { return false; }

  // Loads and sets up the BLAS library this device's Stream::Gemm runs on
  // (cuda: cuBLAS and one handle for the device). Idempotent: the first
  // call does the work, later ones return its result (an error included).
  // FailedPrecondition when the library cannot be loaded (the message names
  // it and what to do), or the library's error. Thread-safe. This default
  // returns Unimplemented, naming the platform.
  virtual absl::Status InitializeBlas() {
    return absl::UnimplementedError(absl::StrCat(
        "platform ", platform_name(), " has no BLAS library for gemm"));
  }

  // Loads this device's DNN library (cuda: cuDNN, one handle per device)
  // when first asked, checks `config` (CheckDnnConvolution) and chooses an
  // algorithm with the library's heuristics among those needing at most
  // `workspace_limit` bytes of workspace. FailedPrecondition when the
  // library cannot be loaded (naming it and what to do), InvalidArgument for
  // a bad config, NotFound when no algorithm fits the limit, or the
  // library's error. Thread-safe. This default returns Unimplemented,
  // naming the platform.
  virtual absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> PrepareConvolution(
      const DnnConvolutionConfig& /*config*/, uint64_t /*workspace_limit*/) {
    return absl::UnimplementedError(absl::StrCat(
        "platform ", platform_name(), " has no DNN library for convolutions"));
  }

  // Loads this device's FFT library (cuda: cuFFT) when first asked, checks
  // `config` (CheckFftConfig) and makes the library's plans for it.
  // FailedPrecondition when the library cannot be loaded (naming it and
  // what to do), InvalidArgument for a bad config, or the library's error.
  // Thread-safe. This default returns Unimplemented, naming the platform.
  virtual absl::StatusOr<std::unique_ptr<FftPlan>> PrepareFft(const FftConfig& /*config*/) {
    return absl::UnimplementedError(
        absl::StrCat("platform ", platform_name(), " has no FFT library"));
  }
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_STREAM_EXECUTOR_H_
