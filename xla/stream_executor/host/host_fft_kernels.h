// LaneFft: the host FFT's fast path for lengths 2^a 3^b 5^c (384, 1000,
// 3072, 4096, ...). It transforms up to kLanes lines at once with SIMD
// across the lines: the lines are interleaved into a scratch block (point j
// of line l at j * kLanes + l, real and imaginary parts in separate
// halves), run through an iterative mixed-radix Stockham FFT (radix-8
// passes for 2^(3k), k >= 3, else radix-4 passes and one radix-2 pass
// for an odd power of two; then radix-3 and radix-5 passes) whose
// butterflies each work on 32-byte vectors (8 floats
// or 4 doubles, one per line), and scattered back. A full block of
// contiguous lines moves in and out through register transposes, a full
// block of lines lying side by side (line l at line 0 + l: a strided pass,
// FourStepFft's sub-lines) through deinterleaves; other blocks value by
// value.
// On x86-64 the kernel is compiled for AVX2 and for the baseline ISA; each
// call runs the AVX2 build when the CPU has AVX2 (a CPUID test, cached).
// Elsewhere it is compiled once, for the build's ISA.
//
// Results: the DFT up to rounding (every twiddle computed in double from
// its exact index, then rounded to T); an inverse transform conjugates the
// twiddles and scales by 1/n. A line's result does not depend on which
// other lines share its block, nor on how many (unused lanes carry zeros),
// so splitting a batch differently across threads gives bitwise the same
// output.
//
// Thread-safety: a LaneFft is immutable after construction; Transform may
// run concurrently from any threads, each with its own scratch.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_FFT_KERNELS_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_FFT_KERNELS_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace stream_executor::host {

// True when `n` has no prime factor above 5 (`n` >= 1; 1 included): the
// lengths LaneFft handles, at any size.
bool IsLaneFftLength(int64_t n);

// The smallest LaneFft length at least `n` (`n` >= 1).
int64_t NextLaneFftLength(int64_t n);

// The longest length HostFftPlan hands to one LaneFft. Beyond it one block
// (4 n kLanes T: 2 MiB here) outgrows L2; longer lengths run as a
// four-step split over two LaneFfts at most this long (FourStepFft,
// host_fft_four_step.h).
inline constexpr int64_t kLaneFftMaxLength = int64_t{1} << 14;

template <typename T>
class LaneFft {
 public:
  // Lines per block: one 32-byte vector of T.
  static constexpr int64_t kLanes = 32 / sizeof(T);

  // A transform of length `n` with its radix plan and per-pass twiddle
  // tables (about n entries in all). `n` must satisfy IsLaneFftLength
  // (CHECKed: a programmer error).
  explicit LaneFft(int64_t n);

  int64_t length() const { return n_; }

  // The scratch Transform needs, in T elements (4 * n * kLanes).
  int64_t ScratchElements() const { return 4 * n_ * kLanes; }

  // Transforms `lines` lines (1 to kLanes): line l reads src[l][j * stride]
  // and writes dst[l][j * stride] for j in [0, n). A line may be in place
  // (dst[l] == src[l]); lines must not otherwise overlap. `scratch` holds
  // ScratchElements() elements and is overwritten.
  void Transform(const std::complex<T>* const* src, std::complex<T>* const* dst, int64_t lines,
                 int64_t stride, bool inverse, T* scratch) const {
    Transform(src, stride, dst, stride, lines, inverse, nullptr, scratch);
  }

  // As above with separate strides for the source and the destination, and
  // an optional pointwise multiply on the way out: when `post` is not null
  // it holds 2 n kLanes values in the block layout (real parts, then
  // imaginary parts; lane l's factor for output k at k kLanes + l), and
  // output k of line l is multiplied by that factor (conjugated when
  // `inverse`) after the 1/n scale. The four-step split's twiddle step.
  void Transform(const std::complex<T>* const* src, int64_t src_stride,
                 std::complex<T>* const* dst, int64_t dst_stride, int64_t lines, bool inverse,
                 const T* post, T* scratch) const;

 private:
  int64_t n_;
  std::vector<int> radices_;  // the passes, in order (product n_)
  // Per pass with stride s and m = n / (radix s): for p in [0, m) and u in
  // [1, radix), cos and -sin of 2 pi u p s / n at [offset + p (radix - 1) +
  // u - 1], the passes' tables one after another.
  std::vector<T> cos_;
  std::vector<T> sin_;
};

extern template class LaneFft<float>;
extern template class LaneFft<double>;

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_FFT_KERNELS_H_
