// ConvolutionThunk: one convolution (forward, backward data or backward
// filter) through the device's DNN library: cuDNN on cuda, where the
// StreamExecutor's PrepareConvolution and Stream::Convolution lead
// (xla/stream_executor/dnn.h has the exact semantics; executable.proto's
// ConvolutionThunkProto the wire form). Runtime feature "cudnn_convolutions";
// a forward convolution with a fused bias (+ ReLU) epilogue also needs
// "cudnn_convolutions.fused_epilogue".
//
// FromProto checks the kind, the element type (F16, BF16, F32), the filter
// layout, the tensors' consistency (CheckDnnConvolution: rank 4 or 5,
// extents, the output size the window gives, groups), TF32 only for F32,
// that each slice holds its tensor (the span of its dims and strides), that
// the tensor the kind writes overlaps neither the other two nor the
// workspace (nor the bias), that the workspace lies in a temp allocation,
// and for an epilogue: a forward kind, a known activation, and a bias slice
// of K elements (an activation without a bias is refused).
//
// Initialize asks the executor for a plan (the library's heuristics choose
// the algorithm whose workspace fits workspace.size) once per executor, and
// fails there when the library cannot be loaded (the message names cuDNN
// and the fix) or nothing fits; the host platform has no DNN library and
// fails naming it. Execute enqueues Stream::Convolution with the plan.
//
// Thread-safety: see thunk.h; the plans are made under a mutex and read
// concurrently afterwards.
#ifndef XLA_BACKENDS_GPU_RUNTIME_CONVOLUTION_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_CONVOLUTION_THUNK_H_

#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/dnn.h"

namespace xla::gpu {

class ConvolutionThunk : public Thunk {
 public:
  // `config` must pass CheckDnnConvolution; FromProto checks it for
  // artifacts. `bias` is read only when config.epilogue is not kNone.
  ConvolutionThunk(ThunkInfo info, stream_executor::DnnConvolutionConfig config, BufferSlice input,
                   BufferSlice filter, BufferSlice output, BufferSlice workspace,
                   BufferSlice bias = {})
      : Thunk(Kind::kConvolution, std::move(info)),
        config_(std::move(config)),
        input_(input),
        filter_(filter),
        output_(output),
        workspace_(workspace),
        bias_(bias) {}

  static absl::StatusOr<std::unique_ptr<ConvolutionThunk>> FromProto(
      ThunkInfo info, const ConvolutionThunkProto& proto, const ThunkContext& ctx);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  // Captured into CUDA graphs where the device allows it; ToCommand gives
  // the kConvolution command of ExecuteOnStream's Stream::Convolution
  // (FailedPrecondition before Initialize on the executor).
  bool IsCapturedCommand() const override { return true; }
  absl::Status ToCommand(const ExecuteParams& params,
                         stream_executor::DeviceCommand* command) const override;

  const stream_executor::DnnConvolutionConfig& config() const { return config_; }
  // The plan made for `executor` by Initialize, or null before.
  const stream_executor::DnnConvolutionPlan* plan(stream_executor::StreamExecutor* executor) const;

 private:
  const stream_executor::DnnConvolutionConfig config_;
  const BufferSlice input_;
  const BufferSlice filter_;
  const BufferSlice output_;
  const BufferSlice workspace_;
  const BufferSlice bias_;  // with an epilogue only
  mutable std::mutex mu_;
  absl::flat_hash_map<stream_executor::StreamExecutor*,
                      std::unique_ptr<stream_executor::DnnConvolutionPlan>>
      plans_;  // guarded by mu_; entries never removed
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_CONVOLUTION_THUNK_H_
