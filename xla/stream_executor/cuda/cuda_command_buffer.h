// CudaCommandBuffer: the CUDA platform's CommandBuffer (command_buffer.h),
// a CUDA graph built explicitly through the driver's graph API and one
// executable graph instantiated from it.
//
//  * Append adds a node (cuGraphAddKernelNode / cuGraphAddMemsetNode /
//    cuGraphAddMemcpyNode) that depends on the previous node: a chain, the
//    order of a stream. Launches pass one CUdeviceptr parameter per buffer,
//    as CudaStream::Launch. A memzero whose size and address are multiples
//    of 4 is a 4-byte memset, else a 1-byte one; copies are 1D device to
//    device.
//  * Finalize instantiates (cuGraphInstantiateWithFlags, flags 0).
//  * Update records the node's new values; Submit queues, on the stream's
//    worker (CudaStream::EnqueueDriverWork, with the context current), the
//    recorded updates (cuGraphExecKernelNodeSetParams /
//    cuGraphExecMemsetNodeSetParams / cuGraphExecMemcpyNodeSetParams) and
//    then cuGraphLaunch, so an update issued on the host never overtakes a
//    submission still queued. A Submit without updates issues only
//    cuGraphLaunch: one driver call for the whole chain.
//  * Why explicit construction and not stream capture: each node's
//    parameters are known to the runtime, so it can update exactly the
//    nodes whose buffers moved; capture would have to re-record the whole
//    sequence and cuGraphExecUpdate it on every change.
//  * Library calls (DeviceCommand::Kind::kGemm, kConvolution): cuBLAS(Lt)'s
//    and cuDNN's kernels are only reachable by stream capture, so such a
//    call is captured alone, by the
//    CudaCallCapturer given at Create, into a graph of its own that becomes
//    one child-graph node (cuGraphAddChildGraphNode; the node keeps a copy,
//    the captured graph is destroyed). Update of such a node captures the
//    call again at once, with its new addresses, and Submit swaps the
//    node's graph (cuGraphExecChildGraphNodeSetParams) before the launch:
//    only the calls whose buffers moved are captured again, and the
//    kernels stay explicit nodes. Without a capturer, or with a driver
//    without the capture entry points (HasCudaGraphCaptureApi), Append of
//    a library call is InvalidArgument.
//
// The graph keeps the kernels' functions, not their modules: the kernels
// must outlive the command buffer (the runtime's kernels live as long as
// the executable, and its command buffers are freed before them).
//
// Thread-safety: as CommandBuffer (one thread at a time).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_COMMAND_BUFFER_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_COMMAND_BUFFER_H_

#include <cuda.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/command_buffer.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"

namespace stream_executor::cuda {

// Captures one library call into a new graph (CudaExecutor implements it
// over a stream of its own). Thread-safe.
class CudaCallCapturer {
 public:
  virtual ~CudaCallCapturer() = default;
  // A new graph (the caller destroys it with cuGraphDestroy) holding what
  // `command` (a kGemm or kConvolution) enqueues, captured without running
  // it, for a graph submitted on `submit_stream` (may be null). The
  // library's or the driver's error when the call or the capture fails.
  virtual absl::StatusOr<CUgraph> CaptureCall(const DeviceCommand& command,
                                              const Stream* submit_stream) = 0;
};

class CudaCommandBuffer : public CommandBuffer {
 public:
  // An empty graph (cuGraphCreate) for `context`. FailedPrecondition naming
  // the missing entry point when `api` has no graph API (an older driver);
  // the driver's error otherwise. `api`, `context` and `capturer` (may be
  // null: no library-call nodes) must outlive it. `submit_stream` (may be
  // null) is passed to the capturer; once a library call is a node, Submit
  // on another stream is InvalidArgument.
  static absl::StatusOr<std::unique_ptr<CudaCommandBuffer>> Create(
      const CudaDriverApi& api, CUcontext context, CudaCallCapturer* capturer = nullptr,
      Stream* submit_stream = nullptr);
  // Destroys the executable graph and the graph (errors ignored). Work
  // already submitted must have been issued (the stream's worker drained).
  ~CudaCommandBuffer() override;
  CudaCommandBuffer(const CudaCommandBuffer&) = delete;
  CudaCommandBuffer& operator=(const CudaCommandBuffer&) = delete;

  absl::StatusOr<int> Append(const DeviceCommand& command) override;
  absl::Status Finalize() override;
  absl::Status Update(int node, const DeviceCommand& command) override;
  absl::Status Submit(Stream* stream) override;
  int num_nodes() const override { return static_cast<int>(nodes_.size()); }

 private:
  // A captured graph, destroyed with the driver's cuGraphDestroy.
  using CapturedGraph = std::shared_ptr<CUgraph_st>;

  struct Node {
    CUgraphNode handle = nullptr;
    DeviceCommand command;
    CapturedGraph captured;  // library call: captured by the last Update, not yet swapped in
  };

  CudaCommandBuffer(const CudaDriverApi& api, CUcontext context, CUgraph graph,
                    CudaCallCapturer* capturer, Stream* submit_stream)
      : api_(api),
        context_(context),
        capturer_(capturer),
        submit_stream_(submit_stream),
        graph_(graph) {}

  // `command` captured by the capturer; InvalidArgument when this buffer
  // cannot capture.
  absl::StatusOr<CapturedGraph> Capture(const DeviceCommand& command);

  const CudaDriverApi& api_;
  const CUcontext context_;
  CudaCallCapturer* const capturer_;
  Stream* const submit_stream_;
  bool has_library_calls_ = false;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;  // set by Finalize
  std::vector<Node> nodes_;
  // Nodes updated since the last Submit (indices into nodes_, no repeats).
  std::vector<int> pending_;
  std::vector<bool> is_pending_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_COMMAND_BUFFER_H_
