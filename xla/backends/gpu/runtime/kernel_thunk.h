// KernelThunk: launches one kernel of the kernel table with buffer slices as
// arguments.
//
// FromProto checks the kernel index, every argument slice, the argument
// count (exact for registered kernels) and the launch dimensions against the
// target's limits; Initialize loads the kernel on the device and checks the
// dimensions against the device's own limits.
//
// ExecuteOnStream allocates nothing for a launch of at most kInlineArgs
// arguments, and finds the kernel of the device initialized last without a
// lock.
//
// Argument table (KernelThunkProto.argument_table, feature
// "kernel_argument_table"): a PTX/cubin kernel whose pointers exceed the
// target's kernel-parameter space takes one parameter instead, the device
// address of the table slice. Before each launch, ExecuteOnStream writes the
// resolved addresses of `args` (8 bytes each, in order) there with an
// asynchronous host-to-device copy on the launch stream, from a heap
// staging buffer that a host callback enqueued after the copy frees (so it
// outlives the copy). The slice lies in a temp allocation, which each
// execution allocates afresh, so concurrent executions never share a table.
// FromProto checks the slice is in a temp allocation, 8-byte aligned, at
// least 8 * args bytes, overlaps no argument, and that the kernel is PTX or
// cubin (host kernels already take an array; registered kernels take
// buffers). Cost per launch: one heap allocation, one copy of 8 * args
// bytes and one host callback.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_KERNEL_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_KERNEL_THUNK_H_

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/launch_dimensions.h"

namespace xla::gpu {

class KernelThunk : public Thunk {
 public:
  // Launches with at most this many arguments build their argument list
  // without a heap allocation (ExecuteOnStream's hot path).
  static constexpr int kInlineArgs = 8;

  // Bytes per entry of an argument table (one device pointer).
  static constexpr int64_t kArgumentTableEntryBytes = 8;

  // `argument_table`: see above; nullopt launches with `args` as the
  // kernel's parameters. The constructor trusts its inputs (FromProto
  // validates artifacts).
  KernelThunk(ThunkInfo info, int64_t kernel_index, const KernelSpec* spec,
              std::vector<BufferSlice> args, stream_executor::LaunchDimensions dims,
              std::optional<BufferSlice> argument_table = std::nullopt)
      : Thunk(Kind::kKernel, std::move(info)),
        kernel_index_(kernel_index),
        spec_(spec),
        args_(std::move(args)),
        dims_(dims),
        argument_table_(argument_table.has_value()
                            ? std::make_unique<const BufferSlice>(std::move(*argument_table))
                            : nullptr) {}

  static absl::StatusOr<std::unique_ptr<KernelThunk>> FromProto(
      ThunkInfo info, const KernelThunkProto& proto, const ThunkContext& ctx);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  // A command for PTX and cubin kernels launched with their buffers as
  // parameters; not for host or registered kernels (host callbacks) nor
  // for launches through an argument table (a host-to-device copy from a
  // per-launch staging buffer first).
  bool IsCommand() const override;
  absl::Status ToCommand(const ExecuteParams& params,
                         stream_executor::DeviceCommand* command) const override;

  int64_t kernel_index() const { return kernel_index_; }
  const std::vector<BufferSlice>& args() const { return args_; }
  const stream_executor::LaunchDimensions& launch_dimensions() const { return dims_; }
  // The argument table's slice, or null when the kernel takes plain
  // parameters.
  const BufferSlice* argument_table() const { return argument_table_.get(); }

 private:
  // Writes the addresses of args_ into the argument table on `stream` and
  // launches `kernel` with the table's address as its one parameter.
  absl::Status LaunchThroughTable(const ExecuteParams& params, stream_executor::Stream* stream,
                                  const stream_executor::Kernel& kernel) const;
  // The kernel loaded for params.kernels' device; null when not loaded.
  const stream_executor::Kernel* LoadedFor(const ExecuteParams& params) const;

  // The kernel loaded on one device, found on the hot path without
  // DeviceKernels' lock. A list, newest first: one entry per initialized
  // device.
  struct LoadedKernel {
    const DeviceKernels* kernels = nullptr;
    const stream_executor::Kernel* kernel = nullptr;
    std::unique_ptr<LoadedKernel> next;
  };

  int64_t kernel_index_;
  const KernelSpec* spec_;
  // Guarded by one mutex shared by all kernel thunks (Initialize is rare; a
  // mutex per thunk would add 40 bytes to each, see docs/reliability.md).
  std::unique_ptr<LoadedKernel> loaded_;
  // The entry of the device initialized last (the head of loaded_).
  std::atomic<const LoadedKernel*> last_loaded_{nullptr};
  std::vector<BufferSlice> args_;
  stream_executor::LaunchDimensions dims_;
  // Out of line: most kernels have none, and every byte of a kernel thunk
  // counts (load_heap_test bounds them).
  std::unique_ptr<const BufferSlice> argument_table_;
};

// LaunchDimensionsProto <-> LaunchDimensions; FromProto validates against
// `limits` and names `ctx`'s path.
absl::StatusOr<stream_executor::LaunchDimensions> LaunchDimensionsFromProto(
    const LaunchDimensionsProto& proto, const stream_executor::DeviceLimits& limits,
    const ThunkContext& ctx);
LaunchDimensionsProto LaunchDimensionsToProto(const stream_executor::LaunchDimensions& dims);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_KERNEL_THUNK_H_
