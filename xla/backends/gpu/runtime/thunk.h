// Thunk: one node of the program the runtime executes, and the contexts its
// three phases and its deserialization get.
//
// Phases:
//   Prepare(ResourceRequests&)   declares what executions need (streams,
//                                async events); no device work.
//   Initialize(InitializeParams) once per device: loads kernels, checks
//                                launch dimensions against the device,
//                                creates library handles.
//   ExecuteOnStream(ExecuteParams) only enqueues work on
//                                params.streams[execution_stream_id()].
//
// Deserialization: every kind has
//   static absl::StatusOr<std::unique_ptr<FooThunk>> FromProto(
//       ThunkInfo info, const FooThunkProto& proto, const ThunkContext& ctx);
// which validates everything (indices, slice bounds, stream ids, kernel
// references, launch dimensions, enum values, repeated-field sizes, nesting
// depth) and returns InvalidArgument naming ctx.path() and the values.
// Nested thunks are rebuilt through ctx.DeserializeNested (one switch over
// the oneof, in thunk_deserializer.cc). ToProto() gives back the proto.
//
// Thread-safety: after Initialize, a thunk is immutable; ExecuteOnStream may
// run concurrently for different executions (all per-run state lives in
// ExecuteParams). Initialize may be called concurrently for different
// devices.
#ifndef XLA_BACKENDS_GPU_RUNTIME_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_THUNK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/kernel_table.h"
#include "xla/backends/gpu/runtime/target.h"
#include "xla/stream_executor/command_buffer.h"
#include "xla/stream_executor/event.h"
#include "xla/stream_executor/stream.h"
#include "xla/stream_executor/stream_executor.h"

namespace xla::gpu {

// Deepest nesting of thunks (sequences inside sequences, loop bodies, ...)
// that FromProto accepts; deeper trees are rejected, never recursed into.
inline constexpr int kMaxThunkNestingDepth = 32;
// Most streams an artifact may use.
inline constexpr int64_t kMaxStreams = 64;
// Most entries in one repeated field of a thunk (kernel arguments, custom
// call operands, conditional branches).
inline constexpr int64_t kMaxThunkRepeatedField = 4096;

// Every kind, once: X(Enum, proto field name, oneof case).
#define XLA_THUNK_KINDS(X)                                  \
  X(kSequential, "sequential", ThunkProto::kSequential)     \
  X(kKernel, "kernel", ThunkProto::kKernel)                 \
  X(kCopy, "copy", ThunkProto::kCopy)                       \
  X(kMemset, "memset", ThunkProto::kMemset)                 \
  X(kGemm, "gemm", ThunkProto::kGemm)                       \
  X(kWhile, "while", ThunkProto::kWhile)                    \
  X(kConditional, "conditional", ThunkProto::kConditional)  \
  X(kCustomCall, "custom_call", ThunkProto::kCustomCall)    \
  X(kAsyncStart, "async_start", ThunkProto::kAsyncStart)    \
  X(kAsyncDone, "async_done", ThunkProto::kAsyncDone)      \
  X(kCollective, "collective", ThunkProto::kCollective)    \
  X(kConvolution, "convolution", ThunkProto::kConvolution) \
  X(kFft, "fft", ThunkProto::kFft)                         \
  X(kHostSend, "host_send", ThunkProto::kHostSend)         \
  X(kHostRecv, "host_recv", ThunkProto::kHostRecv)

class Thunk;

// A while thunk around the thunks being deserialized, as FromProto sees it
// (ThunkContext::loop()). Nodes live on the stack of WhileThunk::FromProto
// while its body is read; innermost first through `outer`.
struct EnclosingLoop {
  const EnclosingLoop* outer = nullptr;
  // The while's known_trip_count, when the artifact gives one.
  std::optional<int64_t> trip_count;
  // The while thunk's field path ("thunks[2].while"), for messages.
  std::string path;
};

struct ThunkInfo {
  int64_t execution_stream_id = 0;
  std::string profile_annotation;
};

// What FromProto validates against. Copied cheaply when descending: the
// tables are shared by pointer.
class ThunkContext {
 public:
  using Deserializer = std::function<absl::StatusOr<std::unique_ptr<Thunk>>(
      const ThunkProto& proto, const ThunkContext& ctx)>;

  struct Tables {
    absl::Span<const BufferAllocation> allocations;
    absl::Span<const KernelSpec> kernels;
    int64_t num_streams = 1;
    const Target* target = nullptr;
    const ffi::FfiRegistry* ffi = nullptr;
    Deserializer deserializer;
    // Async ids seen so far (each may start once in the artifact).
    std::set<int64_t>* async_ids = nullptr;
  };

  ThunkContext(const Tables* tables, std::string path, int depth, int64_t stream_id = 0,
               const EnclosingLoop* loop = nullptr)
      : tables_(tables), path_(std::move(path)), depth_(depth), stream_id_(stream_id), loop_(loop) {}

  const Tables& tables() const { return *tables_; }
  // The field path of the proto being read, e.g. "thunks[3].kernel".
  const std::string& path() const { return path_; }
  int depth() const { return depth_; }
  // The stream the thunks read in this context must run on.
  int64_t stream_id() const { return stream_id_; }
  // This context, with nested thunks expected on `stream_id`.
  ThunkContext WithStream(int64_t stream_id) const {
    return ThunkContext(tables_, path_, depth_, stream_id, loop_);
  }
  // The innermost while thunk around the thunks read in this context;
  // nullptr outside every loop.
  const EnclosingLoop* loop() const { return loop_; }
  // This context, inside `loop` (whose `outer` must be loop()). The caller
  // keeps `loop` alive while the context and its descendants are used.
  ThunkContext WithLoop(const EnclosingLoop* loop) const {
    return ThunkContext(tables_, path_, depth_, stream_id_, loop);
  }

  // The context for a field of the current message ("args[1]").
  ThunkContext Field(absl::string_view name) const;
  // Rebuilds a nested thunk at `field` (one level deeper). Fails past
  // kMaxThunkNestingDepth.
  absl::StatusOr<std::unique_ptr<Thunk>> DeserializeNested(const ThunkProto& proto,
                                                           absl::string_view field) const;

  // InvalidArgument "<path>[.<field>]: <what>".
  absl::Status Error(absl::string_view what) const;
  // Validates a slice against the allocation table.
  absl::StatusOr<BufferSlice> Slice(const BufferSliceProto& proto, absl::string_view field) const;
  // Fails when a repeated field has more than kMaxThunkRepeatedField entries.
  absl::Status CheckCount(int64_t count, absl::string_view field) const;
  // Fails when `id` is not in [0, num_streams).
  absl::Status CheckStreamId(int64_t id, absl::string_view field) const;

 private:
  const Tables* tables_;
  std::string path_;
  int depth_;
  int64_t stream_id_;
  const EnclosingLoop* loop_;
};

// Resources thunks declare in Prepare.
struct ResourceRequests {
  std::set<int64_t> async_ids;
  // Replica groups (participant replica ids, in rank order) collectives
  // need communicators for (collective_thunk.h).
  std::set<std::vector<int64_t>> collective_groups;
};

// Per-device state created by the executable and filled by Initialize.
struct InitializeParams {
  stream_executor::StreamExecutor* executor = nullptr;
  DeviceKernels* kernels = nullptr;
};

// The two events of one async start/done pair for one execution.
struct AsyncEvents {
  std::unique_ptr<stream_executor::Event> started;
  std::unique_ptr<stream_executor::Event> done;
};

class ThunkTracer;               // thunk_trace.h
struct CollectiveContext;        // collective_context.h
class GraphRunner;               // graph_runner.h
struct HostTransferCallbacks;    // execute_options.h

// The iteration a running while thunk is in, for the thunks it runs whose
// offsets follow it (CopyThunkProto.dynamic_offset). Each WhileThunk's
// ExecuteOnStream keeps one node on its own stack frame and hands its body
// ExecuteParams pointing at it, innermost first through `outer`: the
// counters belong to one execution, so concurrent executions never see
// each other's.
struct LoopIteration {
  int64_t iteration = 0;
  const LoopIteration* outer = nullptr;
};

// The iteration of the while thunk `depth` levels out from `innermost`
// (0: innermost). FailedPrecondition when fewer loops are running (an
// artifact that FromProto checked never gets there). Thread-safe.
absl::StatusOr<int64_t> LoopIterationAt(const LoopIteration* innermost, int64_t depth);

struct ExecuteParams {
  stream_executor::StreamExecutor* executor = nullptr;
  // When set, sequences record each thunk's execution interval (optional;
  // null costs nothing).
  ThunkTracer* tracer = nullptr;
  const BufferAllocations* buffers = nullptr;
  // One stream per stream id.
  absl::Span<stream_executor::Stream* const> streams;
  // Events by async id (declared in Prepare).
  std::map<int64_t, AsyncEvents>* async_events = nullptr;
  const DeviceKernels* kernels = nullptr;
  // Which participant of a replicated run this execution is, and its
  // communicators (collective_context.h); null outside replicated runs.
  // Read by collective thunks only.
  const CollectiveContext* collectives = nullptr;
  // When set, sequences submit the runs of command thunks it has a CUDA
  // graph for as one graph launch (graph_runner.h) instead of thunk by
  // thunk. Per run (not shared between concurrent executions); null runs
  // every thunk plainly.
  GraphRunner* graphs = nullptr;
  // The caller's host-transfer callbacks (ExecuteOptions::host_transfers);
  // read by host send/recv thunks only; null when the caller gave none.
  const HostTransferCallbacks* host_transfers = nullptr;
  // The iterations of the while thunks running around this thunk,
  // innermost first (LoopIteration); null outside every loop.
  const LoopIteration* loop = nullptr;
};

class Thunk {
 public:
  enum class Kind {
#define XLA_THUNK_KIND_ENUM_(e, name, oneof) e,
    XLA_THUNK_KINDS(XLA_THUNK_KIND_ENUM_)
#undef XLA_THUNK_KIND_ENUM_
  };

  Thunk(Kind kind, ThunkInfo info) : kind_(kind), info_(std::move(info)) {}
  virtual ~Thunk() = default;
  Thunk(const Thunk&) = delete;
  Thunk& operator=(const Thunk&) = delete;

  Kind kind() const { return kind_; }
  const ThunkInfo& info() const { return info_; }
  int64_t execution_stream_id() const { return info_.execution_stream_id; }

  virtual absl::Status Prepare(ResourceRequests& requests) const { return absl::OkStatus(); }
  virtual absl::Status Initialize(const InitializeParams& params) { return absl::OkStatus(); }
  virtual absl::Status ExecuteOnStream(const ExecuteParams& params) const = 0;
  virtual absl::StatusOr<ThunkProto> ToProto() const = 0;

  // Child thunks, for walks (inspect); empty for leaves.
  virtual std::vector<const Thunk*> children() const { return {}; }
  // For a sequence (SequentialThunk), its thunks in order, without a copy;
  // empty for every other kind.
  virtual absl::Span<const std::unique_ptr<Thunk>> sequence() const { return {}; }

  // Whether this thunk can be one node of a command buffer (a CUDA graph,
  // graph_runner.h): its whole work is one kernel launch, memset or
  // device-to-device copy of buffer slices, with nothing done on the host.
  // False by default (GEMMs, host callbacks, loops, collectives, ...).
  virtual bool IsCommand() const { return false; }
  // Whether this thunk is one library call that a command buffer can take
  // by stream capture (a GEMM or a cuDNN convolution: DeviceCommand::Kind::
  // kGemm, kConvolution), on devices
  // whose command buffers capture (StreamExecutor::CommandBuffersCaptureLibraryCalls).
  // False by default.
  virtual bool IsCapturedCommand() const { return false; }
  // The command ExecuteOnStream would enqueue for `params`, into
  // `*command` (its storage reused). Only for thunks whose IsCommand() or
  // IsCapturedCommand() is true (Unimplemented otherwise); FailedPrecondition when the device
  // was not initialized for it. Thread-safe.
  virtual absl::Status ToCommand(const ExecuteParams& params,
                                 stream_executor::DeviceCommand* command) const;

 protected:
  // A ThunkProto with this thunk's info set (the kind left for the caller).
  ThunkProto InfoProto() const;
  // The stream this thunk runs on.
  stream_executor::Stream* stream(const ExecuteParams& params) const {
    return params.streams[info_.execution_stream_id];
  }

 private:
  Kind kind_;
  ThunkInfo info_;
};

// The proto field name of a kind ("kernel").
absl::string_view ThunkKindName(Thunk::Kind kind);

// Adds "<annotation>: " context to an execution error.
absl::Status AnnotateError(const Thunk& thunk, absl::Status status);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_THUNK_H_
