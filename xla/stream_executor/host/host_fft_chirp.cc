#include "xla/stream_executor/host/host_fft_chirp.h"

#include <cstring>
#include <type_traits>

namespace stream_executor::host {
namespace {

// The 32-byte vector of T and the integer vector that indexes its lanes.
template <typename T>
struct Vectors {
  typedef T V __attribute__((vector_size(32)));
  typedef std::conditional_t<sizeof(T) == 4, int32_t, int64_t> I;
  typedef I M __attribute__((vector_size(32)));
};

// One ChirpMultiply call.
template <typename T>
struct Call {
  const std::complex<T>* x;
  int64_t x_stride;
  const std::complex<T>* w;
  int64_t n;
  ChirpOptions<T> options;
  std::complex<T>* y;
  int64_t y_stride;
};

// The product of one point in real arithmetic, in the same order as the
// vector lanes: re = a c + (-(b d)), im = b c + a d.
template <typename T>
[[gnu::always_inline]] inline std::complex<T> Product(std::complex<T> x, std::complex<T> w,
                                                      T in_sign, T re_factor, T im_factor) {
  const T a = x.real(), b = x.imag() * in_sign;
  const T re = a * w.real() + b * w.imag() * T(-1);
  const T im = b * w.real() + a * w.imag();
  return {re * re_factor, im * im_factor};
}

// The whole call: kPoints points per vector while they last, then the
// scalar tail. A strided side moves its points one by one through a
// local array (the Bluestein passes of a 2-D transform's inner axes).
// Vectors are locals only, so the baseline build passes none through a
// call.
template <typename T>
[[gnu::always_inline]] inline void Run(const Call<T>& call) {
  using V = typename Vectors<T>::V;
  using M = typename Vectors<T>::M;
  using I = typename Vectors<T>::I;
  constexpr int64_t kValues = 32 / sizeof(T), kPoints = kValues / 2;
  M swap, even, odd;
  V in_sign, out_factor, alternate;
  const T in_imag = call.options.conj_in ? T(-1) : T(1);
  const T out_re = call.options.scale;
  const T out_im = call.options.conj_out ? -call.options.scale : call.options.scale;
  for (int64_t i = 0; i < kValues; ++i) {
    const bool re = i % 2 == 0;
    swap[i] = static_cast<I>(re ? i + 1 : i - 1);
    even[i] = static_cast<I>(re ? i : i - 1);
    odd[i] = static_cast<I>(re ? i + 1 : i);
    in_sign[i] = re ? T(1) : in_imag;
    out_factor[i] = re ? out_re : out_im;
    alternate[i] = re ? T(-1) : T(1);
  }
  const std::complex<T>* x = call.x;
  std::complex<T>* y = call.y;
  const int64_t xs = call.x_stride, ys = call.y_stride;
  int64_t j = 0;
  for (; j + kPoints <= call.n; j += kPoints) {
    V v, c;
    if (xs == 1) {
      std::memcpy(&v, x + j, sizeof(V));
    } else {
      T lanes[kValues];
      for (int64_t p = 0; p < kPoints; ++p) std::memcpy(lanes + 2 * p, x + (j + p) * xs, 2 * sizeof(T));
      std::memcpy(&v, lanes, sizeof(V));
    }
    std::memcpy(&c, call.w + j, sizeof(V));
    v *= in_sign;
    const V wr = __builtin_shuffle(c, even);
    const V wi = __builtin_shuffle(c, odd);
    const V r = (v * wr + __builtin_shuffle(v, swap) * wi * alternate) * out_factor;
    if (ys == 1) {
      std::memcpy(static_cast<void*>(y + j), &r, sizeof(V));
    } else {
      T lanes[kValues];
      std::memcpy(lanes, &r, sizeof(V));
      for (int64_t p = 0; p < kPoints; ++p) {
        std::memcpy(static_cast<void*>(y + (j + p) * ys), lanes + 2 * p, 2 * sizeof(T));
      }
    }
  }
  for (; j < call.n; ++j) y[j * ys] = Product(x[j * xs], call.w[j], in_imag, out_re, out_im);
}

// The AVX2 and baseline builds, chosen per call by a cached CPUID test
// (see host_fft_kernels.cc for why not target_clones).
#if defined(__x86_64__) && !defined(XLA_LANE_FFT_BASELINE_ONLY)
#define XLA_CHIRP_AVX2_BUILD 1
#endif

void RunF32Baseline(const Call<float>& call) { Run(call); }
void RunF64Baseline(const Call<double>& call) { Run(call); }

#ifdef XLA_CHIRP_AVX2_BUILD
__attribute__((target("avx2"))) void RunF32Avx2(const Call<float>& call) { Run(call); }
__attribute__((target("avx2"))) void RunF64Avx2(const Call<double>& call) { Run(call); }

bool CpuHasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

void Dispatch(const Call<float>& call) {
#ifdef XLA_CHIRP_AVX2_BUILD
  if (CpuHasAvx2()) return RunF32Avx2(call);
#endif
  RunF32Baseline(call);
}

void Dispatch(const Call<double>& call) {
#ifdef XLA_CHIRP_AVX2_BUILD
  if (CpuHasAvx2()) return RunF64Avx2(call);
#endif
  RunF64Baseline(call);
}

#undef XLA_CHIRP_AVX2_BUILD

}  // namespace

template <typename T>
void ChirpMultiply(const std::complex<T>* x, int64_t x_stride, const std::complex<T>* w,
                   int64_t n, const ChirpOptions<T>& options, std::complex<T>* y,
                   int64_t y_stride) {
  if (n <= 0) return;
  Dispatch(Call<T>{x, x_stride, w, n, options, y, y_stride});
}

template void ChirpMultiply<float>(const std::complex<float>*, int64_t, const std::complex<float>*,
                                   int64_t, const ChirpOptions<float>&, std::complex<float>*,
                                   int64_t);
template void ChirpMultiply<double>(const std::complex<double>*, int64_t,
                                    const std::complex<double>*, int64_t,
                                    const ChirpOptions<double>&, std::complex<double>*, int64_t);

}  // namespace stream_executor::host
