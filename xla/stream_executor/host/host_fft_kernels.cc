#include "xla/stream_executor/host/host_fft_kernels.h"

#include <cmath>
#include <cstring>

#include "xla/util/logging.h"

namespace stream_executor::host {
namespace {

// The 32-byte vector of T (8 floats or 4 doubles): one point of kLanes
// lines.
template <typename T>
struct VecOf;
template <>
struct VecOf<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <>
struct VecOf<double> {
  typedef double type __attribute__((vector_size(32)));
};

// cos and sin of 2 pi / 3, 2 pi / 5 and 4 pi / 5 (the radix-3 and radix-5
// butterflies' constants).
constexpr double kSin3 = 0.86602540378443864676;
constexpr double kCos5 = 0.30901699437494742410;
constexpr double kSin5 = 0.95105651629515357212;
constexpr double kCos25 = -0.80901699437494742410;
constexpr double kSin25 = 0.58778525229247312917;

// One radix-R Stockham pass over an interleaved block of n points, each
// point kLanes values wide: with s the pass's stride (the product of the
// earlier radices) and m = n / (R s), for p < m, q < s and u < R,
//   y[q + (R p + u) s] = w^(u p s) sum_t x[q + (p + t m) s] e^(-2 pi i t u / R),
// w = exp(-2 pi i / n), every exponent's sign flipped when `sign` is -1.
// `wc` and `ws` hold the pass's twiddles w^(u p s) at p (R - 1) + u - 1.
// Vectors are locals only (never parameters), so the baseline build passes
// no 32-byte vector through a call.
template <typename T, int R>
[[gnu::always_inline]] inline void RadixPass(const T* xr, const T* xi, T* yr, T* yi, const T* wc,
                                             const T* ws, int64_t n, int64_t s, T sign) {
  using V = typename VecOf<T>::type;
  constexpr int64_t kW = 32 / sizeof(T);
  const int64_t m = n / (R * s);
  const int64_t span = s * kW;  // T elements between points s apart
  for (int64_t p = 0; p < m; ++p) {
    T c[R], d[R];
    for (int u = 1; u < R; ++u) {
      c[u] = wc[p * (R - 1) + u - 1];
      d[u] = sign * ws[p * (R - 1) + u - 1];
    }
    for (int64_t k = 0; k < span; k += kW) {
      V ar[R], ai[R], br[R], bi[R];
      for (int t = 0; t < R; ++t) {
        std::memcpy(&ar[t], xr + (p + t * m) * span + k, sizeof(V));
        std::memcpy(&ai[t], xi + (p + t * m) * span + k, sizeof(V));
      }
      if constexpr (R == 2) {
        br[0] = ar[0] + ar[1];
        bi[0] = ai[0] + ai[1];
        br[1] = ar[0] - ar[1];
        bi[1] = ai[0] - ai[1];
      } else if constexpr (R == 3) {
        // y1, y2 = a0 - (a1 + a2) / 2 -/+ i sign sin(2 pi / 3) (a1 - a2).
        const T h = sign * static_cast<T>(kSin3);
        const V sr = ar[1] + ar[2], si = ai[1] + ai[2];
        const V dr = (ar[1] - ar[2]) * h, di = (ai[1] - ai[2]) * h;
        const V tr = ar[0] - sr * T(0.5), ti = ai[0] - si * T(0.5);
        br[0] = ar[0] + sr;
        bi[0] = ai[0] + si;
        br[1] = tr + di;
        bi[1] = ti - dr;
        br[2] = tr - di;
        bi[2] = ti + dr;
      } else if constexpr (R == 4) {
        // y1, y3 = (a0 - a2) -/+ i sign (a1 - a3).
        const V s02r = ar[0] + ar[2], s02i = ai[0] + ai[2];
        const V d02r = ar[0] - ar[2], d02i = ai[0] - ai[2];
        const V s13r = ar[1] + ar[3], s13i = ai[1] + ai[3];
        const V d13r = (ar[1] - ar[3]) * sign, d13i = (ai[1] - ai[3]) * sign;
        br[0] = s02r + s13r;
        bi[0] = s02i + s13i;
        br[2] = s02r - s13r;
        bi[2] = s02i - s13i;
        br[1] = d02r + d13i;
        bi[1] = d02i - d13r;
        br[3] = d02r - d13i;
        bi[3] = d02i + d13r;
      } else {
        static_assert(R == 5, "radix 2, 3, 4 or 5");
        // With b = a1 + a4, a2 + a3 and e = a1 - a4, a2 - a3:
        // y1, y4 = a0 + c1 b1 + c2 b2 -/+ i sign (s1 e1 + s2 e2),
        // y2, y3 = a0 + c2 b1 + c1 b2 -/+ i sign (s2 e1 - s1 e2).
        const T c1 = static_cast<T>(kCos5), c2 = static_cast<T>(kCos25);
        const T s1 = sign * static_cast<T>(kSin5), s2 = sign * static_cast<T>(kSin25);
        const V b1r = ar[1] + ar[4], b1i = ai[1] + ai[4];
        const V b2r = ar[2] + ar[3], b2i = ai[2] + ai[3];
        const V e1r = ar[1] - ar[4], e1i = ai[1] - ai[4];
        const V e2r = ar[2] - ar[3], e2i = ai[2] - ai[3];
        const V a1r = ar[0] + b1r * c1 + b2r * c2, a1i = ai[0] + b1i * c1 + b2i * c2;
        const V a2r = ar[0] + b1r * c2 + b2r * c1, a2i = ai[0] + b1i * c2 + b2i * c1;
        const V f1r = e1r * s1 + e2r * s2, f1i = e1i * s1 + e2i * s2;
        const V f2r = e1r * s2 - e2r * s1, f2i = e1i * s2 - e2i * s1;
        br[0] = ar[0] + b1r + b2r;
        bi[0] = ai[0] + b1i + b2i;
        br[1] = a1r + f1i;
        bi[1] = a1i - f1r;
        br[4] = a1r - f1i;
        bi[4] = a1i + f1r;
        br[2] = a2r + f2i;
        bi[2] = a2i - f2r;
        br[3] = a2r - f2i;
        bi[3] = a2i + f2r;
      }
      std::memcpy(yr + R * p * span + k, &br[0], sizeof(V));
      std::memcpy(yi + R * p * span + k, &bi[0], sizeof(V));
      for (int u = 1; u < R; ++u) {
        const V tr = br[u] * c[u] - bi[u] * d[u], ti = br[u] * d[u] + bi[u] * c[u];
        std::memcpy(yr + (R * p + u) * span + k, &tr, sizeof(V));
        std::memcpy(yi + (R * p + u) * span + k, &ti, sizeof(V));
      }
    }
  }
}

// Every pass of a length-n transform on `block` (two halves of 2 n kLanes
// T: real then imaginary parts, ping and pong), radix radices[i] for pass
// i. Returns the half (0 or 1) that holds the result.
template <typename T>
[[gnu::always_inline]] inline int Stockham(T* block, const int* radices, int64_t passes,
                                           const T* wc, const T* ws, int64_t n, T sign) {
  const int64_t part = n * (32 / sizeof(T));
  T* halves[2] = {block, block + 2 * part};
  int cur = 0;
  int64_t s = 1, offset = 0;
  for (int64_t i = 0; i < passes; ++i) {
    const T* x = halves[cur];
    T* y = halves[cur ^ 1];
    const int r = radices[i];
    const T* c = wc + offset;
    const T* d = ws + offset;
    switch (r) {
      case 2:
        RadixPass<T, 2>(x, x + part, y, y + part, c, d, n, s, sign);
        break;
      case 3:
        RadixPass<T, 3>(x, x + part, y, y + part, c, d, n, s, sign);
        break;
      case 4:
        RadixPass<T, 4>(x, x + part, y, y + part, c, d, n, s, sign);
        break;
      case 5:
        RadixPass<T, 5>(x, x + part, y, y + part, c, d, n, s, sign);
        break;
    }
    offset += n / (r * s) * (r - 1);
    s *= r;
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

int StockhamF32Baseline(float* block, const int* radices, int64_t passes, const float* wc,
                        const float* ws, int64_t n, float sign) {
  return Stockham(block, radices, passes, wc, ws, n, sign);
}

int StockhamF64Baseline(double* block, const int* radices, int64_t passes, const double* wc,
                        const double* ws, int64_t n, double sign) {
  return Stockham(block, radices, passes, wc, ws, n, sign);
}

#ifdef XLA_LANE_FFT_AVX2_BUILD
__attribute__((target("avx2"))) int StockhamF32Avx2(float* block, const int* radices,
                                                    int64_t passes, const float* wc,
                                                    const float* ws, int64_t n, float sign) {
  return Stockham(block, radices, passes, wc, ws, n, sign);
}

__attribute__((target("avx2"))) int StockhamF64Avx2(double* block, const int* radices,
                                                    int64_t passes, const double* wc,
                                                    const double* ws, int64_t n, double sign) {
  return Stockham(block, radices, passes, wc, ws, n, sign);
}

bool CpuHasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

int RunStockham(float* block, const int* radices, int64_t passes, const float* wc,
                const float* ws, int64_t n, float sign) {
#ifdef XLA_LANE_FFT_AVX2_BUILD
  if (CpuHasAvx2()) return StockhamF32Avx2(block, radices, passes, wc, ws, n, sign);
#endif
  return StockhamF32Baseline(block, radices, passes, wc, ws, n, sign);
}

int RunStockham(double* block, const int* radices, int64_t passes, const double* wc,
                const double* ws, int64_t n, double sign) {
#ifdef XLA_LANE_FFT_AVX2_BUILD
  if (CpuHasAvx2()) return StockhamF64Avx2(block, radices, passes, wc, ws, n, sign);
#endif
  return StockhamF64Baseline(block, radices, passes, wc, ws, n, sign);
}

#undef XLA_LANE_FFT_AVX2_BUILD

// The passes of a length-n LaneFft: radix 4 while four divides what is
// left of the power of two, one radix 2 for an odd power, then 3s and 5s.
std::vector<int> Radices(int64_t n) {
  std::vector<int> radices;
  int64_t twos = 0;
  while (n % 2 == 0) {
    n /= 2;
    ++twos;
  }
  radices.insert(radices.end(), twos / 2, 4);
  if (twos % 2 == 1) radices.push_back(2);
  for (int p : {3, 5}) {
    while (n % p == 0) {
      n /= p;
      radices.push_back(p);
    }
  }
  return radices;
}

}  // namespace

bool IsLaneFftLength(int64_t n) {
  if (n < 1) return false;
  for (int64_t p : {2, 3, 5}) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

int64_t NextLaneFftLength(int64_t n) {
  while (!IsLaneFftLength(n)) ++n;
  return n;
}

template <typename T>
LaneFft<T>::LaneFft(int64_t n) : n_(n), radices_(Radices(n)) {
  XLA_CHECK(IsLaneFftLength(n)) << "LaneFft length " << n
                                << " has a prime factor above 5 (or is not positive)";
  int64_t s = 1;
  for (int r : radices_) {
    const int64_t m = n / (r * s);
    for (int64_t p = 0; p < m; ++p) {
      for (int64_t u = 1; u < r; ++u) {
        const int64_t k = (u * p * s) % n;  // exact: the twiddle's index
        const double angle = 2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
        cos_.push_back(static_cast<T>(std::cos(angle)));
        sin_.push_back(static_cast<T>(-std::sin(angle)));
      }
    }
    s *= r;
  }
}

template <typename T>
void LaneFft<T>::Transform(const std::complex<T>* const* src, int64_t src_stride,
                           std::complex<T>* const* dst, int64_t dst_stride, int64_t lines,
                           bool inverse, const std::complex<T>* const* post, T* scratch) const {
  const int64_t part = n_ * kLanes;
  T* re = scratch;
  T* im = scratch + part;
  for (int64_t l = 0; l < kLanes; ++l) {
    if (l >= lines) {
      for (int64_t j = 0; j < n_; ++j) re[j * kLanes + l] = im[j * kLanes + l] = 0;
      continue;
    }
    for (int64_t j = 0; j < n_; ++j) {
      const std::complex<T> v = src[l][j * src_stride];
      re[j * kLanes + l] = v.real();
      im[j * kLanes + l] = v.imag();
    }
  }
  const int half = RunStockham(scratch, radices_.data(), static_cast<int64_t>(radices_.size()),
                               cos_.data(), sin_.data(), n_, inverse ? T(-1) : T(1));
  re = scratch + half * 2 * part;
  im = re + part;
  const T scale = inverse ? T(1) / static_cast<T>(n_) : T(1);
  for (int64_t l = 0; l < lines; ++l) {
    std::complex<T>* out = dst[l];
    if (post == nullptr) {
      for (int64_t j = 0; j < n_; ++j) {
        out[j * dst_stride] = std::complex<T>(re[j * kLanes + l] * scale, im[j * kLanes + l] * scale);
      }
      continue;
    }
    // Real arithmetic (std::complex's multiply checks for NaNs).
    const T sign = inverse ? T(-1) : T(1);
    for (int64_t j = 0; j < n_; ++j) {
      const T xr = re[j * kLanes + l] * scale, xi = im[j * kLanes + l] * scale;
      const T wr = post[l][j].real(), wi = sign * post[l][j].imag();
      out[j * dst_stride] = std::complex<T>(xr * wr - xi * wi, xr * wi + xi * wr);
    }
  }
}

template class LaneFft<float>;
template class LaneFft<double>;

}  // namespace stream_executor::host
