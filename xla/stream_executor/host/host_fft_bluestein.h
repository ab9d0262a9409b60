// BluesteinFft: the host FFT's path for lengths with a prime factor above
// 5 (a prime 1009, 7 * 11 * 13, ...), which Eigen's kissfft runs with its
// generic O(n p) butterfly per prime factor p. Bluestein's identity
// jk = (j^2 + k^2 - (k - j)^2) / 2 turns a length-n DFT into a circular
// convolution with the chirp w[j] = exp(-pi i j^2 / n):
//   X[k] = w[k] sum_j (x[j] w[j]) conj(w[k - j]),
// computed with two transforms of a length M >= 2n - 1 with no prime factor
// above 5 (the smallest such) and a pointwise product with the chirp's
// precomputed spectrum. The transforms run on a LaneFft (SIMD across kLanes
// lines) when M is at most kLaneFftMaxLength, else on a FourStepFft (one
// line at a time, so the scratch holds one padded line instead of kLanes).
// An inverse transform conjugates the input and the output and scales by
// 1/n. The chirp multiplies on the way in and out (and the product with
// the kernel's spectrum on a FourStepFft) run on ChirpMultiply
// (host_fft_chirp.h: SIMD, AVX2 or baseline build by a cached CPUID test).
// The chirp and the kernel's spectrum are computed once, at construction
// (HostFftPlan makes one BluesteinFft per axis when the plan is made).
//
// Results: the DFT up to rounding (chirp and its spectrum computed in
// double, j^2 reduced mod 2n first, then rounded to T); each line's result
// does not depend on the other lines of its block (LaneFft's guarantee), so
// splitting a batch differently gives bitwise the same output.
//
// Thread-safety: a BluesteinFft is immutable after construction; Transform
// may run concurrently from any threads, each with its own scratch.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_FFT_BLUESTEIN_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_FFT_BLUESTEIN_H_

#include <complex>
#include <cstdint>
#include <vector>

#include <memory>

#include "xla/stream_executor/host/host_fft_four_step.h"
#include "xla/stream_executor/host/host_fft_kernels.h"

namespace stream_executor::host {

// The convolution length BluesteinFft uses for `n` (>= 1): the smallest
// length at least 2n - 1 with no prime factor above 5 (NextLaneFftLength).
int64_t BluesteinPaddedLength(int64_t n);

// True when HostFftPlan runs a complex pass of length `n` through
// BluesteinFft: `n` has a prime factor above 5 (kissfft's generic
// butterfly) and BluesteinPaddedLength(n) is at most kFourStepMaxLength.
bool IsBluesteinLength(int64_t n);

template <typename T>
class BluesteinFft {
 public:
  static constexpr int64_t kLanes = LaneFft<T>::kLanes;

  // A transform of length `n` (>= 1, padded length at most
  // kFourStepMaxLength; CHECKed, a programmer error), with its chirp, the
  // chirp's spectrum and a LaneFft or FourStepFft of
  // BluesteinPaddedLength(n).
  explicit BluesteinFft(int64_t n);

  int64_t length() const { return n_; }

  // The scratch Transform needs, in T elements: the padded transform's,
  // and the lines it convolves at once (kLanes on a LaneFft, 1 on a
  // FourStepFft) at the padded length.
  int64_t ScratchElements() const;

  // As LaneFft::Transform: `lines` lines (1 to kLanes), line l reads
  // src[l][j * stride] and writes dst[l][j * stride] for j in [0, n); a line
  // may be in place; `scratch` holds ScratchElements() elements.
  void Transform(const std::complex<T>* const* src, std::complex<T>* const* dst, int64_t lines,
                 int64_t stride, bool inverse, T* scratch) const;

 private:
  // The circular convolution of `lines` lines (at most lines_per_call_) of
  // M contiguous points with conj w, in place: forward transform, times
  // the kernel's spectrum (in the LaneFft block, on a LaneFft), inverse.
  void Convolve(std::complex<T>* const* line, int64_t lines, T* scratch) const;

  int64_t n_;
  int64_t m_;                                         // BluesteinPaddedLength(n)
  std::unique_ptr<const LaneFft<T>> lane_;            // M <= kLaneFftMaxLength, or null
  std::unique_ptr<const FourStepFft<T>> four_step_;   // otherwise
  int64_t lines_per_call_;                            // kLanes on lane_, 1 on four_step_
  std::vector<std::complex<T>> chirp_;  // w[j] = exp(-pi i j^2 / n), j in [0, n)
  std::vector<std::complex<T>> kernel_;  // the M-point DFT of conj w, wrapped circularly
  std::vector<T> kernel_block_;  // kernel_ in LaneFft's post layout (lane_ only)
};

extern template class BluesteinFft<float>;
extern template class BluesteinFft<double>;

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_FFT_BLUESTEIN_H_
