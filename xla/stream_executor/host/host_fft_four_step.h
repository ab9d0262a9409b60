// FourStepFft: the host FFT's path for lengths 2^a 3^b 5^c longer than
// kLaneFftMaxLength (32768, 3 * 2^14, 2^20, ...), whose LaneFft block would
// outgrow L2. A line of n = n1 n2 points (point j = n2 j1 + j2) is
// transformed in four steps, each working set a few LaneFft blocks:
//   1. n2 transforms of length n1 over j1, one per j2 (the sub-lines j2
//      .. j2 + kLanes - 1 run as one LaneFft block: their points lie side by
//      side), written to a line of scratch as Y[j2][k1];
//   2. on the way out of step 1, Y[j2][k1] *= w^(j2 k1), w = exp(-2 pi i / n);
//   3. n1 transforms of length n2 over j2, one per k1, into the output as
//      X[k1 + n1 k2].
// The transposes of the textbook four-step are the LaneFft gathers and
// scatters. n1 <= n2 are the most even split with both at most
// kLaneFftMaxLength. An inverse transform runs both steps inverse (scaling
// by 1/n1 and 1/n2) with conjugated twiddles.
//
// Results: the DFT up to rounding (twiddles computed in double from their
// exact index (j2 k1) mod n, then rounded to T; n complex values, padded to
// whole groups of kLanes sub-lines). Lines are transformed one
// at a time, so a line's result does not depend on the others given with it.
//
// Thread-safety: a FourStepFft is immutable after construction; Transform
// may run concurrently from any threads, each with its own scratch.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_FFT_FOUR_STEP_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_FFT_FOUR_STEP_H_

#include <complex>
#include <cstdint>
#include <vector>

#include "xla/stream_executor/host/host_fft_kernels.h"

namespace stream_executor::host {

// The longest FourStepFft: both factors at most kLaneFftMaxLength. Its
// twiddle table is one line (n complex values).
inline constexpr int64_t kFourStepMaxLength = kLaneFftMaxLength * kLaneFftMaxLength;

// True when HostFftPlan runs a complex pass of length `n` through
// FourStepFft: IsLaneFftLength(n), longer than kLaneFftMaxLength and at most
// kFourStepMaxLength.
bool IsFourStepLength(int64_t n);

template <typename T>
class FourStepFft {
 public:
  // Lines per call (as LaneFft, so HostFftPlan blocks them the same way).
  static constexpr int64_t kLanes = LaneFft<T>::kLanes;

  // A transform of length `n` with its two LaneFfts and twiddle table.
  // `n` must satisfy IsFourStepLength (CHECKed: a programmer error).
  explicit FourStepFft(int64_t n);

  int64_t length() const { return n1_ * n2_; }
  // The factors n1 <= n2 (for tests).
  int64_t n1() const { return n1_; }
  int64_t n2() const { return n2_; }

  // The scratch Transform needs, in T elements: a line of n complex
  // values and the larger LaneFft's block.
  int64_t ScratchElements() const { return 2 * length() + second_.ScratchElements(); }

  // As LaneFft::Transform: `lines` lines (1 to kLanes), line l reads
  // src[l][j * stride] and writes dst[l][j * stride] for j in [0, n); a line
  // may be in place (dst[l] == src[l]); lines must not otherwise overlap.
  // `scratch` holds ScratchElements() elements and is overwritten.
  void Transform(const std::complex<T>* const* src, std::complex<T>* const* dst, int64_t lines,
                 int64_t stride, bool inverse, T* scratch) const;

  // One line in two rounds whose groups may run on different threads
  // (HostFftPlan splits a batch of one long line this way): Columns runs
  // steps 1 and 2 for the column groups [begin, end) (group g: sub-lines
  // j2 in [g kLanes, (g + 1) kLanes)) from `src` (points `stride` apart)
  // into `y` (n complex values, shared by every group of the line); once
  // every column group is done, Rows runs step 3 for the row groups
  // [begin, end) (sub-lines k1 likewise) from `y` into `dst`. Each call
  // needs its own `block` of BlockElements() T. Groups write disjoint
  // parts of `y` and `dst`, so different groups may run concurrently;
  // src may equal dst (Rows starts after every Columns has read src). The
  // result is bitwise that of Transform however the groups are split.
  int64_t column_groups() const { return (n2_ + kLanes - 1) / kLanes; }
  int64_t row_groups() const { return (n1_ + kLanes - 1) / kLanes; }
  int64_t BlockElements() const { return second_.ScratchElements(); }
  void Columns(const std::complex<T>* src, int64_t stride, bool inverse, std::complex<T>* y,
               int64_t begin, int64_t end, T* block) const;
  void Rows(const std::complex<T>* y, std::complex<T>* dst, int64_t stride, bool inverse,
            int64_t begin, int64_t end, T* block) const;

 private:
  // One line through the four steps; `y` holds n complex values.
  void Line(const std::complex<T>* src, std::complex<T>* dst, int64_t stride, bool inverse,
            std::complex<T>* y, T* block) const;

  int64_t n1_, n2_;
  LaneFft<T> first_;   // length n1 (step 1)
  LaneFft<T> second_;  // length n2 (step 3)
  // w^(j2 k1) per group of kLanes sub-lines j2, in LaneFft's post layout.
  std::vector<T> twiddles_;
};

extern template class FourStepFft<float>;
extern template class FourStepFft<double>;

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_FFT_FOUR_STEP_H_
