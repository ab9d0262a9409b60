// CommandBuffer: a fixed sequence of device commands (kernel launches,
// memsets, device-to-device copies) built once and submitted to a stream
// as one operation; on CUDA, a CUDA graph and its instantiated executable
// graph (cuda/cuda_command_buffer.h).
//
// Life cycle: Append commands (each becomes node i, depending on node
// i - 1, so the nodes run in order as they would on a stream), Finalize
// once (instantiates), then any number of Update and Submit. Update
// changes what node i does (its buffer addresses; its kind, kernel and
// launch dimensions must stay those it was appended with) for the
// submissions that follow; a submission already queued is not affected.
// Submit queues the whole sequence on a stream of the same executor; it is
// ordered with the stream's other work like any enqueue (see stream.h:
// enqueue-time errors, sticky errors).
//
// Errors: InvalidArgument for an Append or Update that does not fit (a
// node index out of range, a kind or kernel or dimensions change, a kernel
// or stream of another platform, a memset size not a multiple of 4);
// FailedPrecondition for Append after Finalize or Update/Submit before;
// the driver's error otherwise.
//
// Thread-safety: none. One thread at a time uses a command buffer (the
// runtime keeps one per concurrent run); submissions on different streams
// from one thread are fine.
#ifndef XLA_STREAM_EXECUTOR_COMMAND_BUFFER_H_
#define XLA_STREAM_EXECUTOR_COMMAND_BUFFER_H_

#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/dnn.h"
#include "xla/stream_executor/kernel.h"
#include "xla/stream_executor/launch_dimensions.h"
#include "xla/stream_executor/stream.h"

namespace stream_executor {

// One command, by value: what a node of a command buffer does. Two
// commands are equal when they would do the same thing: same kind, and the
// fields of that kind (a launch: kernel, dimensions, buffers; a memset:
// destination, size, pattern; a copy: both buffers and size; a GEMM: the
// configuration, its scales and the three buffers; a convolution: the
// plan and the five buffers); the fields of other kinds are ignored.
struct DeviceCommand {
  enum class Kind {
    kLaunch,    // kernel over dims with args, as Stream::Launch
    kMemset32,  // dst[0, size) filled with the 32-bit pattern, as Memset32
    kMemZero,   // dst[0, size) zeroed, as MemZero
    kCopy,      // size bytes from src to dst, device to device
    // Library calls: only command buffers that capture them take these
    // (StreamExecutor::CommandBuffersCaptureLibraryCalls).
    kGemm,         // gemm on args {lhs, rhs, out}, as Stream::Gemm
    kConvolution,  // convolution on args {x, w, y, workspace, bias}, as
                   // Stream::Convolution
  };
  // Kernels with at most this many buffers keep them inline.
  static constexpr int kInlineArgs = 8;

  Kind kind = Kind::kLaunch;
  // kLaunch: not owned; must outlive the command buffer.
  const Kernel* kernel = nullptr;
  LaunchDimensions dims;
  absl::InlinedVector<DeviceMemoryBase, kInlineArgs> args;
  // kMemset32, kMemZero, kCopy.
  DeviceMemoryBase dst;
  DeviceMemoryBase src;  // kCopy
  uint64_t size = 0;
  uint32_t pattern = 0;  // kMemset32
  BlasGemmConfig gemm;   // kGemm
  // kConvolution: not owned; must outlive the command buffer.
  const DnnConvolutionPlan* convolution = nullptr;

  static DeviceCommand Launch(const Kernel& kernel, const LaunchDimensions& dims,
                              absl::Span<const DeviceMemoryBase> args) {
    DeviceCommand c;
    c.kind = Kind::kLaunch;
    c.kernel = &kernel;
    c.dims = dims;
    c.args.assign(args.begin(), args.end());
    return c;
  }
  static DeviceCommand Memset32(DeviceMemoryBase dst, uint32_t pattern, uint64_t size) {
    DeviceCommand c;
    c.kind = Kind::kMemset32;
    c.dst = dst;
    c.pattern = pattern;
    c.size = size;
    return c;
  }
  static DeviceCommand MemZero(DeviceMemoryBase dst, uint64_t size) {
    DeviceCommand c;
    c.kind = Kind::kMemZero;
    c.dst = dst;
    c.size = size;
    return c;
  }
  static DeviceCommand Gemm(const BlasGemmConfig& config, DeviceMemoryBase lhs,
                            DeviceMemoryBase rhs, DeviceMemoryBase out) {
    DeviceCommand c;
    c.kind = Kind::kGemm;
    c.gemm = config;
    c.args.assign({lhs, rhs, out});
    return c;
  }
  static DeviceCommand Convolution(const DnnConvolutionPlan& plan, DeviceMemoryBase x,
                                   DeviceMemoryBase w, DeviceMemoryBase y,
                                   DeviceMemoryBase workspace, DeviceMemoryBase bias) {
    DeviceCommand c;
    c.kind = Kind::kConvolution;
    c.convolution = &plan;
    c.args.assign({x, w, y, workspace, bias});
    return c;
  }
  static DeviceCommand Copy(DeviceMemoryBase dst, DeviceMemoryBase src, uint64_t size) {
    DeviceCommand c;
    c.kind = Kind::kCopy;
    c.dst = dst;
    c.src = src;
    c.size = size;
    return c;
  }

  // Whether `other` has the same kind, kernel and launch dimensions (a
  // GEMM: the same configuration but for its scales' addresses; a
  // convolution: the same plan), so that a node appended as this one can
  // be updated to it.
  bool IsLibraryCall() const { return kind == Kind::kGemm || kind == Kind::kConvolution; }
  bool SameShape(const DeviceCommand& other) const;
  bool operator==(const DeviceCommand& other) const;
  bool operator!=(const DeviceCommand& other) const { return !(*this == other); }
};

// "launch 'fusion.3'", "memset32 64 bytes", "memzero 12 bytes", "copy 256
// bytes", for messages.
std::string DescribeCommand(const DeviceCommand& command);

class CommandBuffer {
 public:
  virtual ~CommandBuffer() = default;

  // Appends `command` as the next node; returns its index.
  virtual absl::StatusOr<int> Append(const DeviceCommand& command) = 0;
  // Instantiates the sequence; no Append after it.
  virtual absl::Status Finalize() = 0;
  // Makes node `node` do `command` from the next Submit on.
  virtual absl::Status Update(int node, const DeviceCommand& command) = 0;
  // Queues the whole sequence on `stream`.
  virtual absl::Status Submit(Stream* stream) = 0;
  // Nodes appended so far.
  virtual int num_nodes() const = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_COMMAND_BUFFER_H_
