// ChirpMultiply: the pointwise complex products of BluesteinFft (the
// pre-multiply by the chirp, the post-multiply by the chirp and the 1/n
// scale, and the product with the kernel's spectrum on a FourStepFft),
// in SIMD: 32-byte vectors of interleaved (re, im) pairs, 4 c64 or 2 c128
// points per vector, with the optional conjugations as sign flips.
// On x86-64 it is compiled for AVX2 and for the baseline ISA; each call
// runs the AVX2 build when the CPU has AVX2 (a CPUID test, cached once per
// process), as LaneFft does. Not GCC target_clones or ifunc: their
// resolver runs before ThreadSanitizer's runtime is set up.
//
// Results: for each j the same real arithmetic as the scalar product
// (re = a c - b d, im = a d + b c, then the scale), so the vector and
// scalar tails round alike; contraction into FMA is up to the compiler, as
// for the rest of the host FFT.
//
// Thread-safety: a pure function of its arguments; calls on disjoint
// outputs may run concurrently.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_FFT_CHIRP_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_FFT_CHIRP_H_

#include <complex>
#include <cstdint>

namespace stream_executor::host {

// How ChirpMultiply treats its input and output: conjugate x[j] first,
// conjugate the product last, and a real factor on the product.
template <typename T>
struct ChirpOptions {
  bool conj_in = false;
  bool conj_out = false;
  T scale = T(1);
};

// For j in [0, n): y[j * y_stride] = c(s * (c'(x[j * x_stride]) * w[j])),
// with c' a conjugation when options.conj_in, c one when options.conj_out,
// and s = options.scale. `w` is contiguous. y may equal x (same strides);
// they must not otherwise overlap. Strides >= 1; n <= 0 does nothing.
// Never fails.
template <typename T>
void ChirpMultiply(const std::complex<T>* x, int64_t x_stride, const std::complex<T>* w,
                   int64_t n, const ChirpOptions<T>& options, std::complex<T>* y,
                   int64_t y_stride);

extern template void ChirpMultiply<float>(const std::complex<float>*, int64_t,
                                          const std::complex<float>*, int64_t,
                                          const ChirpOptions<float>&, std::complex<float>*,
                                          int64_t);
extern template void ChirpMultiply<double>(const std::complex<double>*, int64_t,
                                           const std::complex<double>*, int64_t,
                                           const ChirpOptions<double>&, std::complex<double>*,
                                           int64_t);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_FFT_CHIRP_H_
