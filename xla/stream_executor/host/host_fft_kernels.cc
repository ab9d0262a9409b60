#include "xla/stream_executor/host/host_fft_kernels.h"

#include <cmath>
#include <cstring>

#include "xla/util/logging.h"

namespace stream_executor::host {
namespace {

// One radix-2 Stockham stage over an interleaved block of n points, each
// point kLanes values wide: with s the stage's stride (1, 2, 4, ...) and
// half = n / (2 s), for p < half and q < s,
//   y[q + 2ps]     = x[q + ps] + x[q + (p + half)s]
//   y[q + (2p+1)s] = (x[q + ps] - x[q + (p + half)s]) * w^(ps),
// w = exp(-2 pi i / n) (conjugated when `sign` is -1). Vectors are locals
// only (never parameters), so the baseline build passes no 32-byte vector
// through a call.
template <typename T>
[[gnu::always_inline]] inline void Radix2Stage(const T* xr, const T* xi, T* yr, T* yi,
                                               const T* cos, const T* sin, int64_t n, int64_t s,
                                               T sign) {
  typedef T V __attribute__((vector_size(32)));
  constexpr int64_t kW = 32 / sizeof(T);
  const int64_t half = n / (2 * s);
  for (int64_t p = 0; p < half; ++p) {
    const T c = cos[p * s], d = sign * sin[p * s];
    const int64_t a = p * s * kW, b = (p + half) * s * kW;
    const int64_t o0 = 2 * p * s * kW, o1 = (2 * p + 1) * s * kW;
    for (int64_t k = 0; k < s * kW; k += kW) {
      V ar, ai, br, bi;
      std::memcpy(&ar, xr + a + k, sizeof(V));
      std::memcpy(&ai, xi + a + k, sizeof(V));
      std::memcpy(&br, xr + b + k, sizeof(V));
      std::memcpy(&bi, xi + b + k, sizeof(V));
      const V sr = ar + br, si = ai + bi, dr = ar - br, di = ai - bi;
      const V tr = dr * c - di * d, ti = dr * d + di * c;
      std::memcpy(yr + o0 + k, &sr, sizeof(V));
      std::memcpy(yi + o0 + k, &si, sizeof(V));
      std::memcpy(yr + o1 + k, &tr, sizeof(V));
      std::memcpy(yi + o1 + k, &ti, sizeof(V));
    }
  }
}

// Every stage of a length-n transform on `block` (two halves of 2 n kLanes
// T: real then imaginary parts, ping and pong). Returns the half (0 or 1)
// that holds the result.
template <typename T>
[[gnu::always_inline]] inline int Stockham(T* block, const T* cos, const T* sin, int64_t n,
                                           T sign) {
  const int64_t part = n * (32 / sizeof(T));
  T* halves[2] = {block, block + 2 * part};
  int cur = 0;
  for (int64_t s = 1; s < n; s *= 2) {
    T* x = halves[cur];
    T* y = halves[cur ^ 1];
    Radix2Stage(x, x + part, y, y + part, cos, sin, n, s, sign);
    cur ^= 1;
  }
  return cur;
}

// The two builds of each precision's kernel (x86-64): one for AVX2, one
// for the baseline ISA, chosen per call by a cached CPUID test; other CPUs,
// and host_fft_kernels_baseline_test (which defines
// XLA_LANE_FFT_BASELINE_ONLY to test the baseline build on an AVX2 machine),
// get the baseline build only. Not target_clones: its ifunc resolver runs
// during dynamic relocation, before ThreadSanitizer's runtime is set up,
// and crashes every TSan binary that links this file.
#if defined(__x86_64__) && !defined(XLA_LANE_FFT_BASELINE_ONLY)
#define XLA_LANE_FFT_AVX2_BUILD 1
#endif

int StockhamF32Baseline(float* block, const float* cos, const float* sin, int64_t n, float sign) {
  return Stockham(block, cos, sin, n, sign);
}

int StockhamF64Baseline(double* block, const double* cos, const double* sin, int64_t n,
                        double sign) {
  return Stockham(block, cos, sin, n, sign);
}

#ifdef XLA_LANE_FFT_AVX2_BUILD
__attribute__((target("avx2"))) int StockhamF32Avx2(float* block, const float* cos,
                                                    const float* sin, int64_t n, float sign) {
  return Stockham(block, cos, sin, n, sign);
}

__attribute__((target("avx2"))) int StockhamF64Avx2(double* block, const double* cos,
                                                    const double* sin, int64_t n, double sign) {
  return Stockham(block, cos, sin, n, sign);
}

bool CpuHasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

int RunStockham(float* block, const float* cos, const float* sin, int64_t n, float sign) {
#ifdef XLA_LANE_FFT_AVX2_BUILD
  if (CpuHasAvx2()) return StockhamF32Avx2(block, cos, sin, n, sign);
#endif
  return StockhamF32Baseline(block, cos, sin, n, sign);
}

int RunStockham(double* block, const double* cos, const double* sin, int64_t n, double sign) {
#ifdef XLA_LANE_FFT_AVX2_BUILD
  if (CpuHasAvx2()) return StockhamF64Avx2(block, cos, sin, n, sign);
#endif
  return StockhamF64Baseline(block, cos, sin, n, sign);
}

#undef XLA_LANE_FFT_AVX2_BUILD

}  // namespace

bool IsLaneFftLength(int64_t n) { return n >= 1 && (n & (n - 1)) == 0; }

template <typename T>
LaneFft<T>::LaneFft(int64_t n) : n_(n) {
  XLA_CHECK(IsLaneFftLength(n)) << "LaneFft length " << n << " is not a power of two";
  for (int64_t k = 0; k < n / 2; ++k) {
    const double angle = 2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
    cos_.push_back(static_cast<T>(std::cos(angle)));
    sin_.push_back(static_cast<T>(-std::sin(angle)));
  }
}

template <typename T>
void LaneFft<T>::Transform(const std::complex<T>* const* src, std::complex<T>* const* dst,
                           int64_t lines, int64_t stride, bool inverse, T* scratch) const {
  const int64_t part = n_ * kLanes;
  T* re = scratch;
  T* im = scratch + part;
  for (int64_t l = 0; l < kLanes; ++l) {
    if (l >= lines) {
      for (int64_t j = 0; j < n_; ++j) re[j * kLanes + l] = im[j * kLanes + l] = 0;
      continue;
    }
    for (int64_t j = 0; j < n_; ++j) {
      const std::complex<T> v = src[l][j * stride];
      re[j * kLanes + l] = v.real();
      im[j * kLanes + l] = v.imag();
    }
  }
  const int half = RunStockham(scratch, cos_.data(), sin_.data(), n_, inverse ? T(-1) : T(1));
  re = scratch + half * 2 * part;
  im = re + part;
  const T scale = inverse ? T(1) / static_cast<T>(n_) : T(1);
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t j = 0; j < n_; ++j) {
      dst[l][j * stride] = std::complex<T>(re[j * kLanes + l] * scale, im[j * kLanes + l] * scale);
    }
  }
}

template class LaneFft<float>;
template class LaneFft<double>;

}  // namespace stream_executor::host
