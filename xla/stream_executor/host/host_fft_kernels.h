// LaneFft: the host FFT's fast path for power-of-two lengths. It
// transforms up to kLanes lines at once with SIMD across the lines: the
// lines are interleaved into a scratch block (point j of line l at
// j * kLanes + l, real and imaginary parts in separate halves), run through
// an iterative radix-2 Stockham FFT whose butterflies each work on one
// 32-byte vector (8 floats or 4 doubles, one per line), and scattered back.
// On x86-64 the kernel is compiled for AVX2 and for the baseline ISA; each
// call runs the AVX2 build when the CPU has AVX2 (a CPUID test, cached).
// Elsewhere it is compiled once, for the build's ISA.
//
// Results: the DFT up to rounding (twiddles computed in double, then
// rounded to T); an inverse transform conjugates the twiddles and scales by
// 1/n. A line's result does not depend on which other lines share its
// block, nor on how many (unused lanes carry zeros), so splitting a batch
// differently across threads gives bitwise the same output.
//
// Thread-safety: a LaneFft is immutable after construction; Transform may
// run concurrently from any threads, each with its own scratch.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_FFT_KERNELS_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_FFT_KERNELS_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace stream_executor::host {

// True when `n` is a length LaneFft handles: a power of two, 1 included.
bool IsLaneFftLength(int64_t n);

// The longest length HostFftPlan hands to LaneFft. Beyond it one block
// (4 n kLanes T: 2 MiB here) outgrows L2 and every engine's scratch grows
// with it, while Eigen's path needs only two lines of scratch; longer
// passes stay on Eigen.
inline constexpr int64_t kLaneFftMaxLength = int64_t{1} << 14;

template <typename T>
class LaneFft {
 public:
  // Lines per block: one 32-byte vector of T.
  static constexpr int64_t kLanes = 32 / sizeof(T);

  // A transform of length `n` with its twiddle table (n / 2 entries).
  // `n` must satisfy IsLaneFftLength (CHECKed: a programmer error).
  explicit LaneFft(int64_t n);

  int64_t length() const { return n_; }

  // The scratch Transform needs, in T elements (4 * n * kLanes).
  int64_t ScratchElements() const { return 4 * n_ * kLanes; }

  // Transforms `lines` lines (1 to kLanes): line l reads src[l][j * stride]
  // and writes dst[l][j * stride] for j in [0, n). A line may be in place
  // (dst[l] == src[l]); lines must not otherwise overlap. `scratch` holds
  // ScratchElements() elements and is overwritten.
  void Transform(const std::complex<T>* const* src, std::complex<T>* const* dst, int64_t lines,
                 int64_t stride, bool inverse, T* scratch) const;

 private:
  int64_t n_;
  std::vector<T> cos_;  // cos(2 pi k / n), k in [0, n / 2)
  std::vector<T> sin_;  // -sin(2 pi k / n): the forward twiddle's imaginary part
};

extern template class LaneFft<float>;
extern template class LaneFft<double>;

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_FFT_KERNELS_H_
