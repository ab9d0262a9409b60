// FftThunk: XLA's fft (FFT, IFFT, RFFT, IRFFT over the last 1 to 3
// dimensions, the leading ones a batch) through the device's FFT library:
// Eigen's FFT module on the host, cuFFT on cuda, where the StreamExecutor's
// PrepareFft and Stream::Fft lead (xla/stream_executor/fft.h has the exact
// semantics; executable.proto's FftThunkProto the wire form). Runtime
// feature "fft".
//
// FromProto checks the type, the precision (F32 or F64), fft_length (1 to
// 3 entries, each in [1, 2^30]), input_dims (at most 16, the trailing ones
// matching fft_length, an IRFFT's last fft_length[-1] / 2 + 1), that the
// input and output slices hold their arrays and the workspace its
// FftWorkspaceBytes (an IRFFT's input size) in a temp allocation, and that
// the three do not overlap.
//
// Initialize asks the executor for a plan once per executor, and fails
// there when the library cannot be loaded (the message names it and the
// fix); Execute enqueues Stream::Fft with the plan.
//
// Thread-safety: see thunk.h; the plans are made under a mutex and read
// concurrently afterwards.
#ifndef XLA_BACKENDS_GPU_RUNTIME_FFT_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_FFT_THUNK_H_

#include <memory>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/fft.h"

namespace xla::gpu {

class FftThunk : public Thunk {
 public:
  // `config` must pass CheckFftConfig and `input_dims` match it (FromProto
  // checks both for artifacts).
  FftThunk(ThunkInfo info, stream_executor::FftConfig config, std::vector<int64_t> input_dims,
           BufferSlice input, BufferSlice output, BufferSlice workspace)
      : Thunk(Kind::kFft, std::move(info)),
        config_(std::move(config)),
        input_dims_(std::move(input_dims)),
        input_(input),
        output_(output),
        workspace_(workspace) {}

  static absl::StatusOr<std::unique_ptr<FftThunk>> FromProto(ThunkInfo info,
                                                             const FftThunkProto& proto,
                                                             const ThunkContext& ctx);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  const stream_executor::FftConfig& config() const { return config_; }

 private:
  // The plan made for `executor` by Initialize, or null before.
  const stream_executor::FftPlan* plan(stream_executor::StreamExecutor* executor) const;

  const stream_executor::FftConfig config_;
  const std::vector<int64_t> input_dims_;
  const BufferSlice input_;
  const BufferSlice output_;
  const BufferSlice workspace_;
  mutable std::mutex mu_;
  absl::flat_hash_map<stream_executor::StreamExecutor*, std::unique_ptr<stream_executor::FftPlan>>
      plans_;  // guarded by mu_; entries never removed
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_FFT_THUNK_H_
