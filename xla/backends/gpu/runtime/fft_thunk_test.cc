// Round trip and golden of FftThunk, what its FromProto rejects, and the
// thunk on the host platform: a hand-computed FFT and IRFFT, one plan per
// executor, and the error when Execute comes before Initialize.
#include "xla/backends/gpu/runtime/fft_thunk.h"

#include <complex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;
using ::xla::gpu::testing::DeserializeError;

TEST(FftThunk, RoundTripMatchesGolden) { testing::ExpectRoundTripMatchesGolden("fft_thunk.textproto"); }

// The golden's thunk with `from` replaced by `to` in its text.
std::string Golden(absl::string_view from, absl::string_view to) {
  std::string text = testing::ReadTestdata("fft_thunk.textproto");
  const size_t at = text.find(std::string(from));
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), std::string(to));
  return text;
}

TEST(FftThunk, RejectsWhatNoLibraryRunsOrTheSlicesCannotHold) {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {Golden("fft_type: FFT_TYPE_IRFFT", ""), "thunk.fft.fft_type: unknown fft type 0"},
      {Golden("fft_type: FFT_TYPE_IRFFT", "fft_type: 9"), "unknown fft type 9"},
      {Golden("PRIMITIVE_TYPE_F32", "PRIMITIVE_TYPE_F16"),
       "thunk.fft.precision: FFTs run in f32 or f64, not f16"},
      {Golden("fft_length: 4", ""), "thunk.fft.fft_length: 0 entries; an FFT has 1 to 3"},
      {Golden("fft_length: 4", "fft_length: 0"), "thunk.fft.fft_length: 0 is outside [1, "},
      {Golden("fft_length: 4", "fft_length: 4\n  fft_length: 4\n  fft_length: 4\n  fft_length: 4"),
       "4 entries; an FFT has 1 to 3"},
      {Golden("fft_length: 4", "fft_length: 7"),
       "the trailing dims [3] are not [4], which a IRFFT of fft_length [7] reads"},
      {Golden("input_dims: 2\n", "input_dims: -2\n"), "thunk.fft.input_dims: -2 is outside"},
      {Golden("input_dims: 2\n  input_dims: 3\n", ""), "input_dims: 0 entries; needs 1 to 16"},
      {Golden("input_dims: 2\n", "input_dims: 3\n"),
       "thunk.fft.input: the array needs 72 bytes but the slice has 48"},
      {Golden("allocation: 2\n    size: 32", "allocation: 2\n    size: 31"),
       "thunk.fft.output: the array needs 32 bytes but the slice has 31"},
      {Golden("allocation: 4\n    size: 48", "allocation: 4\n    size: 40"),
       "thunk.fft.workspace: the array needs 48 bytes"},
      {Golden("allocation: 4\n    size: 48", "allocation: 1\n    size: 48"),
       "thunk.fft.workspace: allocation 1 is not a temp allocation"},
      {Golden("allocation: 2\n    size: 32", "size: 32"), "overlaps"},
      {Golden("allocation: 4\n    size: 48", "allocation: 4\n    offset: 1000\n    size: 48"),
       "thunk.fft.workspace"},
  };
  for (const Case& c : cases) {
    const std::string error = DeserializeError(c.text);
    EXPECT_TRUE(absl::StrContains(error, c.message)) << c.text << "\n -> " << error;
  }
}

// IRFFT lengths 4 and 5 both read 3 coefficients: length 5 passes the
// dims check and fails only on the output's size (5 floats per batch).
TEST(FftThunk, AnOddIrfftLengthReadsTheSameHalfSpectrum) {
  EXPECT_EQ(DeserializeError(Golden("fft_length: 4", "fft_length: 5")),
            "thunk.fft.output: the array needs 40 bytes but the slice has 32");
}

using C = std::complex<float>;

// Runs `thunk` on the host device with `input`, returning `out_bytes` bytes
// of output.
std::vector<char> RunOnHost(FftThunk& thunk, const void* input, int64_t in_bytes,
                            int64_t out_bytes, int64_t workspace_bytes) {
  se::StreamExecutor* executor = testing::HostExecutor();
  std::unique_ptr<se::Stream> stream = executor->CreateStream().value();
  se::OwningDeviceMemory in = se::OwningDeviceMemory::Allocate(executor, in_bytes).value();
  se::OwningDeviceMemory out = se::OwningDeviceMemory::Allocate(executor, out_bytes).value();
  se::OwningDeviceMemory ws =
      se::OwningDeviceMemory::Allocate(executor, workspace_bytes).value();
  se::DeviceMemoryBase in_view = in.get();
  EXPECT_TRUE(stream->Memcpy(&in_view, input, in_bytes).ok());
  const BufferAllocations buffers({in.get(), out.get(), ws.get()});
  InitializeParams init;
  init.executor = executor;
  EXPECT_TRUE(thunk.Initialize(init).ok());
  EXPECT_TRUE(thunk.Initialize(init).ok());  // idempotent
  se::Stream* streams[1] = {stream.get()};
  ExecuteParams params;
  params.executor = executor;
  params.buffers = &buffers;
  params.streams = streams;
  const absl::Status run = thunk.ExecuteOnStream(params);
  EXPECT_TRUE(run.ok()) << run;
  std::vector<char> result(out_bytes);
  EXPECT_TRUE(stream->Memcpy(result.data(), out.get(), out_bytes).ok());
  EXPECT_TRUE(stream->BlockHostUntilDone().ok());
  return result;
}

BufferSlice Whole(int64_t allocation, int64_t size) {
  BufferSlice s;
  s.allocation = allocation;
  s.offset = 0;
  s.size = size;
  return s;
}

// FFT of [1, 2, 3, 4] and of [i, 0, 0, 0] (two batches): by hand,
// [10, -2+2i, -2, -2-2i] and [i, i, i, i].
TEST(FftThunk, HandComputedFftOnTheHost) {
  se::FftConfig config{se::FftType::kFft, se::FftPrecision::kF32, {4}, 2};
  FftThunk thunk(ThunkInfo{0, "fft.2"}, config, {2, 4}, Whole(0, 64), Whole(1, 64), Whole(2, 0));
  const C in[8] = {1, 2, 3, 4, C(0, 1), 0, 0, 0};
  const std::vector<char> bytes = RunOnHost(thunk, in, sizeof(in), 64, 0);
  const C* out = reinterpret_cast<const C*>(bytes.data());
  const C want[8] = {10, C(-2, 2), -2, C(-2, -2), C(0, 1), C(0, 1), C(0, 1), C(0, 1)};
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(out[i].real(), want[i].real(), 1e-6) << i;
    EXPECT_NEAR(out[i].imag(), want[i].imag(), 1e-6) << i;
  }
}

// IRFFT of length 5 (odd) from [5, 0, 0]: the constant 1; from [0, 2.5, 0]:
// cos(2 pi k / 5).
TEST(FftThunk, HandComputedOddIrfftOnTheHost) {
  se::FftConfig config{se::FftType::kIrfft, se::FftPrecision::kF32, {5}, 2};
  FftThunk thunk(ThunkInfo{0, "fft.3"}, config, {2, 3}, Whole(0, 48), Whole(1, 40), Whole(2, 48));
  const C in[6] = {5, 0, 0, 0, 2.5f, 0};
  const std::vector<char> bytes = RunOnHost(thunk, in, sizeof(in), 40, 48);
  const float* out = reinterpret_cast<const float*>(bytes.data());
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(out[k], 1.0, 1e-6) << k;
    EXPECT_NEAR(out[5 + k], std::cos(2 * M_PI * k / 5), 1e-6) << k;
  }
}

TEST(FftThunk, ExecuteBeforeInitializeFailsNamingIt) {
  se::FftConfig config{se::FftType::kFft, se::FftPrecision::kF64, {3}, 1};
  FftThunk thunk(ThunkInfo{0, "fft.4"}, config, {3}, Whole(0, 48), Whole(1, 48), Whole(2, 0));
  ExecuteParams params;
  params.executor = testing::HostExecutor();
  const absl::Status s = thunk.ExecuteOnStream(params);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "not initialized")) << s;
}

}  // namespace
}  // namespace xla::gpu
