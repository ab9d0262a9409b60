// FftConfig: a platform-neutral description of one batched FFT that an FFT
// library runs (host: Eigen's FFT module; cuda: cuFFT), with XLA's `fft`
// semantics over the last rank = lengths.size() (1 to 3) dimensions of
// dense row-major arrays [batch, L0(, L1(, L2))]:
//
//   kFft    complex -> complex  X[k] = sum_j x[j] exp(-2 pi i <j,k/L>)
//   kIfft   complex -> complex  x[j] = (1/prod L) sum_k X[k] exp(+2 pi i <j,k/L>)
//   kRfft   real -> complex     kFft of the real input, keeping the last
//                               dimension's first L_last/2 + 1 coefficients
//   kIrfft  complex -> real     the inverse of kRfft: the input's last
//                               dimension holds L_last/2 + 1 coefficients,
//                               extended Hermitian-symmetrically (the
//                               imaginary parts of the DC and, for even
//                               L_last, Nyquist terms are ignored)
//
// The precision is f32 (complex c64) or f64 (c128). The output is
// overwritten; the input is only read. An IRFFT needs a workspace of
// FftWorkspaceBytes (a copy of its input: the libraries transform the
// non-last dimensions in place, and cuFFT's complex-to-real transform
// overwrites its input); the other types need none.
//
// Thread-safety: plain value types; the functions are pure.
#ifndef XLA_STREAM_EXECUTOR_FFT_H_
#define XLA_STREAM_EXECUTOR_FFT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor {

enum class FftType { kFft, kIfft, kRfft, kIrfft };
enum class FftPrecision { kF32, kF64 };

// "FFT", "IFFT", "RFFT", "IRFFT" (XLA's spelling); "f32", "f64".
absl::string_view FftTypeName(FftType type);
absl::string_view FftPrecisionName(FftPrecision precision);

// Largest transform length and batch accepted: keeps every element count
// far below 2^62 and inside the libraries' int arguments per dimension.
inline constexpr int64_t kMaxFftLength = int64_t{1} << 30;
inline constexpr int64_t kMaxFftBatch = int64_t{1} << 40;

struct FftConfig {
  FftType type = FftType::kFft;
  FftPrecision precision = FftPrecision::kF32;
  // The logical (real-side) transform lengths, outermost first: 1 to 3.
  std::vector<int64_t> lengths;
  // Independent transforms (the product of the leading dimensions), >= 0.
  int64_t batch = 1;
};

// The dims of one transform's input and output, outermost first: `lengths`,
// with the last one L/2 + 1 on the complex side of an RFFT or IRFFT. Pure.
std::vector<int64_t> FftInputDims(const FftConfig& c);
std::vector<int64_t> FftOutputDims(const FftConfig& c);
// Elements of the whole (batched) input and output, and bytes of one
// element of each (8 or 16 complex, 4 or 8 real). Pure; c must pass
// CheckFftConfig.
int64_t FftInputElements(const FftConfig& c);
int64_t FftOutputElements(const FftConfig& c);
int64_t FftInputElementBytes(const FftConfig& c);
int64_t FftOutputElementBytes(const FftConfig& c);
// Bytes of workspace the FFT needs on every platform: the input's size for
// an IRFFT, 0 otherwise. Pure.
int64_t FftWorkspaceBytes(const FftConfig& c);

// OK when `c` is an FFT every platform runs: 1 to 3 lengths, each in
// [1, kMaxFftLength], batch in [0, kMaxFftBatch], element counts below
// 2^62. InvalidArgument naming the field and the values otherwise.
absl::Status CheckFftConfig(const FftConfig& c);

// OK when the input and output buffers hold their arrays, the workspace
// holds FftWorkspaceBytes, and the output overlaps neither the input nor
// the workspace (nor the workspace the input); InvalidArgument naming the
// buffer and both sizes otherwise.
absl::Status CheckFftBuffers(const FftConfig& c, const DeviceMemoryBase& input,
                             const DeviceMemoryBase& output, const DeviceMemoryBase& workspace);

// One line for messages and tests: "IRFFT f32 batch=6 lengths=5,33".
std::string FftConfigToString(const FftConfig& c);

// An FFT prepared for one device (StreamExecutor::PrepareFft): the
// library's plans. Any stream of that device may run it, concurrently with
// itself (Stream::Fft). Owned by whoever prepared it; it must outlive the
// work enqueued with it.
class FftPlan {
 public:
  virtual ~FftPlan() = default;
  virtual const FftConfig& config() const = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_FFT_H_
