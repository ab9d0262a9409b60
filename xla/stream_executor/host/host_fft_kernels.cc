#include "xla/stream_executor/host/host_fft_kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

// 1/sqrt(2): the parts of the eighth roots of unity.
constexpr double kHalfSqrt2 = 0.70710678118654752440;

// The 4-point DFT of (x[0], x[s], x[2 s], x[3 s]) into y[0..3] (the
// radix-4 butterfly; `sign` flips the exponent).
template <typename V, typename T>
[[gnu::always_inline]] inline void Dft4(const V* xr, const V* xi, int s, V* yr, V* yi, T sign) {
  const V s02r = xr[0] + xr[2 * s], s02i = xi[0] + xi[2 * s];
  const V d02r = xr[0] - xr[2 * s], d02i = xi[0] - xi[2 * s];
  const V s13r = xr[s] + xr[3 * s], s13i = xi[s] + xi[3 * s];
  const V d13r = (xr[s] - xr[3 * s]) * sign, d13i = (xi[s] - xi[3 * s]) * sign;
  yr[0] = s02r + s13r;
  yi[0] = s02i + s13i;
  yr[2] = s02r - s13r;
  yi[2] = s02i - s13i;
  yr[1] = d02r + d13i;
  yi[1] = d02i - d13r;
  yr[3] = d02r - d13i;
  yi[3] = d02i + d13r;
}

// The radix-8 butterfly of RadixPass: y = DFT_8(a), exponents' sign `sign`.
template <typename T, typename V>
[[gnu::always_inline]] inline void Dft8(const V* ar, const V* ai, V* br, V* bi, T sign) {
  // Even and odd points through 4-point DFTs E and O; then
  // y[u], y[u + 4] = E[u] +/- w8^u O[u], w8 = exp(-2 pi i sign / 8).
  V er[4], ei[4], orr[4], oi[4];
  Dft4(ar, ai, 2, er, ei, sign);
  Dft4(ar + 1, ai + 1, 2, orr, oi, sign);
  const T h = static_cast<T>(kHalfSqrt2);
  const V t1r = (orr[1] + oi[1] * sign) * h, t1i = (oi[1] - orr[1] * sign) * h;
  const V t2r = oi[2] * sign, t2i = -(orr[2] * sign);
  const V t3r = (oi[3] * sign - orr[3]) * h, t3i = -(oi[3] + orr[3] * sign) * h;
  br[0] = er[0] + orr[0];
  bi[0] = ei[0] + oi[0];
  br[4] = er[0] - orr[0];
  bi[4] = ei[0] - oi[0];
  br[1] = er[1] + t1r;
  bi[1] = ei[1] + t1i;
  br[5] = er[1] - t1r;
  bi[5] = ei[1] - t1i;
  br[2] = er[2] + t2r;
  bi[2] = ei[2] + t2i;
  br[6] = er[2] - t2r;
  bi[6] = ei[2] - t2i;
  br[3] = er[3] + t3r;
  bi[3] = ei[3] + t3i;
  br[7] = er[3] - t3r;
  bi[7] = ei[3] - t3i;
}

// The radix-5 butterfly of RadixPass: y = DFT_5(a), exponents' sign `sign`.
template <typename T, typename V>
[[gnu::always_inline]] inline void Dft5(const V* ar, const V* ai, V* br, V* bi, T sign) {
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
#pragma GCC unroll 8
    for (int u = 1; u < R; ++u) {
      c[u] = wc[p * (R - 1) + u - 1];
      d[u] = sign * ws[p * (R - 1) + u - 1];
    }
    for (int64_t k = 0; k < span; k += kW) {
      V ar[R], ai[R], br[R], bi[R];
#pragma GCC unroll 8
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
        Dft4(ar, ai, 1, br, bi, sign);
      } else if constexpr (R == 8) {
        Dft8<T, V>(ar, ai, br, bi, sign);
      } else {
        static_assert(R == 5, "radix 2, 3, 4, 5 or 8");
        Dft5<T, V>(ar, ai, br, bi, sign);
      }
      std::memcpy(yr + R * p * span + k, &br[0], sizeof(V));
      std::memcpy(yi + R * p * span + k, &bi[0], sizeof(V));
#pragma GCC unroll 8
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
      case 8:
        RadixPass<T, 8>(x, x + part, y, y + part, c, d, n, s, sign);
        break;
    }
    offset += n / (r * s) * (r - 1);
    s *= r;
    cur ^= 1;
  }
  return cur;
}

// Round K of Transpose: swaps bit K of the row index with bit K of the
// element index, pairing rows i and i | 2^K (constant masks, unrolled, so
// every shuffle is one or two instructions on registers).
template <typename T, int K>
[[gnu::always_inline]] inline void TransposeRound(typename VecOf<T>::type* rows) {
  using V = typename VecOf<T>::type;
  constexpr int kLanes = 32 / sizeof(T);
  typedef std::conditional_t<sizeof(T) == 4, int32_t, int64_t> I;
  typedef I M __attribute__((vector_size(32)));
  M lo, hi;
  if constexpr (sizeof(T) == 4 && K == 0) {
    lo = M{0, 8, 2, 10, 4, 12, 6, 14};
    hi = M{1, 9, 3, 11, 5, 13, 7, 15};
  } else if constexpr (sizeof(T) == 4 && K == 1) {
    lo = M{0, 1, 8, 9, 4, 5, 12, 13};
    hi = M{2, 3, 10, 11, 6, 7, 14, 15};
  } else if constexpr (sizeof(T) == 4) {
    lo = M{0, 1, 2, 3, 8, 9, 10, 11};
    hi = M{4, 5, 6, 7, 12, 13, 14, 15};
  } else if constexpr (K == 0) {
    lo = M{0, 4, 2, 6};
    hi = M{1, 5, 3, 7};
  } else {
    lo = M{0, 1, 4, 5};
    hi = M{2, 3, 6, 7};
  }
#pragma GCC unroll 8
  for (int i = 0; i < kLanes; ++i) {
    if (i & (1 << K)) continue;
    const V a = rows[i], b = rows[i | (1 << K)];
    rows[i] = __builtin_shuffle(a, b, lo);
    rows[i | (1 << K)] = __builtin_shuffle(a, b, hi);
  }
}

// A kLanes x kLanes transpose of rows[] in place (rows as vectors of T):
// element c of row r moves to element r of row c, in three (float) or two
// (double) rounds.
template <typename T>
[[gnu::always_inline]] inline void Transpose(typename VecOf<T>::type* rows) {
  TransposeRound<T, 0>(rows);
  TransposeRound<T, 1>(rows);
  if constexpr (sizeof(T) == 4) TransposeRound<T, 2>(rows);
}

// True when the kLanes lines' points lie side by side (line l at
// lines[0] + l): one point of every line is kLanes complex values in a row.
template <typename T, typename P>
bool SideBySide(const P* lines, int64_t count) {
  if (count != LaneFft<T>::kLanes) return false;
  for (int64_t l = 1; l < count; ++l) {
    if (lines[l] != lines[0] + l) return false;
  }
  return true;
}

// One Transform call: its lines, where they go, and the plan's tables.
template <typename T>
struct Job {
  const std::complex<T>* const* src;
  int64_t src_stride;
  std::complex<T>* const* dst;
  int64_t dst_stride;
  int64_t lines;
  int64_t n;
  const int* radices;
  int64_t passes;
  const T* wc;
  const T* ws;
  T sign;
  T scale;
  const T* post;  // block layout (LaneFft::Transform), or null
  T* scratch;
};

// Interleaves the job's lines into the block's real and imaginary halves
// (point j of line l at j kLanes + l; unused lanes get zeros). Full blocks
// of contiguous lines move kLanes / 2 points of every line at a time
// through a register transpose; full blocks of side-by-side lines move one
// point of every line at a time through a deinterleave; others go value by
// value, point-major (each point's values written together).
template <typename T>
[[gnu::always_inline]] inline void Gather(const Job<T>& job, T* re, T* im) {
  using V = typename VecOf<T>::type;
  constexpr int64_t kLanes = LaneFft<T>::kLanes, kPoints = kLanes / 2;
  const int64_t n = job.n, stride = job.src_stride;
  const std::complex<T>* const* src = job.src;
  int64_t j = 0;
  if (job.lines == kLanes && stride == 1) {
    for (; j + kPoints <= n; j += kPoints) {
      V rows[kLanes];
#pragma GCC unroll 8
      for (int64_t l = 0; l < kLanes; ++l) std::memcpy(&rows[l], src[l] + j, sizeof(V));
      Transpose<T>(rows);
#pragma GCC unroll 8
      for (int64_t c = 0; c < kPoints; ++c) {
        std::memcpy(re + (j + c) * kLanes, &rows[2 * c], sizeof(V));
        std::memcpy(im + (j + c) * kLanes, &rows[2 * c + 1], sizeof(V));
      }
    }
  } else if (SideBySide<T>(src, job.lines)) {
    typedef std::conditional_t<sizeof(T) == 4, int32_t, int64_t> I;
    typedef I M __attribute__((vector_size(32)));
    M even, odd;
    for (int64_t i = 0; i < kLanes; ++i) {
      even[i] = static_cast<I>(2 * i);
      odd[i] = static_cast<I>(2 * i + 1);
    }
    for (; j < n; ++j) {
      V a, b;
      std::memcpy(&a, src[0] + j * stride, sizeof(V));
      std::memcpy(&b, src[0] + j * stride + kPoints, sizeof(V));
      const V r = __builtin_shuffle(a, b, even), i = __builtin_shuffle(a, b, odd);
      std::memcpy(re + j * kLanes, &r, sizeof(V));
      std::memcpy(im + j * kLanes, &i, sizeof(V));
    }
  }
  for (; j < n; ++j) {
    for (int64_t l = 0; l < kLanes; ++l) {
      const std::complex<T> v = l < job.lines ? src[l][j * stride] : std::complex<T>(0);
      re[j * kLanes + l] = v.real();
      im[j * kLanes + l] = v.imag();
    }
  }
}

// The 1/n scale and the optional post multiply, in the block (vectors).
template <typename T>
[[gnu::always_inline]] inline void Finish(const Job<T>& job, T* re, T* im) {
  using V = typename VecOf<T>::type;
  constexpr int64_t kLanes = LaneFft<T>::kLanes;
  const int64_t part = job.n * kLanes;
  if (job.post == nullptr) {
    if (job.scale == T(1)) return;
    for (int64_t i = 0; i < part; i += kLanes) {
      V r, m;
      std::memcpy(&r, re + i, sizeof(V));
      std::memcpy(&m, im + i, sizeof(V));
      r *= job.scale;
      m *= job.scale;
      std::memcpy(re + i, &r, sizeof(V));
      std::memcpy(im + i, &m, sizeof(V));
    }
    return;
  }
  const T wsign = job.sign;  // conjugated twiddles for an inverse transform
  for (int64_t i = 0; i < part; i += kLanes) {
    V r, m, wr, wi;
    std::memcpy(&r, re + i, sizeof(V));
    std::memcpy(&m, im + i, sizeof(V));
    std::memcpy(&wr, job.post + i, sizeof(V));
    std::memcpy(&wi, job.post + part + i, sizeof(V));
    r *= job.scale;
    m *= job.scale;
    wi *= wsign;
    const V yr = r * wr - m * wi, yi = r * wi + m * wr;
    std::memcpy(re + i, &yr, sizeof(V));
    std::memcpy(im + i, &yi, sizeof(V));
  }
}

// The inverse of Gather: the block's first job.lines lanes out to the
// destination lines, by the same three routes.
template <typename T>
[[gnu::always_inline]] inline void Scatter(const Job<T>& job, const T* re, const T* im) {
  using V = typename VecOf<T>::type;
  constexpr int64_t kLanes = LaneFft<T>::kLanes, kPoints = kLanes / 2;
  const int64_t n = job.n, stride = job.dst_stride;
  std::complex<T>* const* dst = job.dst;
  int64_t j = 0;
  if (job.lines == kLanes && stride == 1) {
    for (; j + kPoints <= n; j += kPoints) {
      V rows[kLanes];
#pragma GCC unroll 8
      for (int64_t c = 0; c < kPoints; ++c) {
        std::memcpy(&rows[2 * c], re + (j + c) * kLanes, sizeof(V));
        std::memcpy(&rows[2 * c + 1], im + (j + c) * kLanes, sizeof(V));
      }
      Transpose<T>(rows);
#pragma GCC unroll 8
      for (int64_t l = 0; l < kLanes; ++l) std::memcpy(static_cast<void*>(dst[l] + j), &rows[l], sizeof(V));
    }
  } else if (SideBySide<T>(dst, job.lines)) {
    typedef std::conditional_t<sizeof(T) == 4, int32_t, int64_t> I;
    typedef I M __attribute__((vector_size(32)));
    M low, high;  // (r0, i0, r1, i1, ...) from the first and second halves
    for (int64_t i = 0; i < kPoints; ++i) {
      low[2 * i] = static_cast<I>(i);
      low[2 * i + 1] = static_cast<I>(i + kLanes);
      high[2 * i] = static_cast<I>(i + kPoints);
      high[2 * i + 1] = static_cast<I>(i + kPoints + kLanes);
    }
    for (; j < n; ++j) {
      V r, i;
      std::memcpy(&r, re + j * kLanes, sizeof(V));
      std::memcpy(&i, im + j * kLanes, sizeof(V));
      const V a = __builtin_shuffle(r, i, low), b = __builtin_shuffle(r, i, high);
      std::memcpy(static_cast<void*>(dst[0] + j * stride), &a, sizeof(V));
      std::memcpy(static_cast<void*>(dst[0] + j * stride + kPoints), &b, sizeof(V));
    }
  }
  for (; j < n; ++j) {
    for (int64_t l = 0; l < job.lines; ++l) {
      dst[l][j * stride] = std::complex<T>(re[j * kLanes + l], im[j * kLanes + l]);
    }
  }
}

// Gather, every pass, Finish, Scatter.
template <typename T>
[[gnu::always_inline]] inline void Run(const Job<T>& job) {
  const int64_t part = job.n * LaneFft<T>::kLanes;
  Gather(job, job.scratch, job.scratch + part);
  const int half = Stockham(job.scratch, job.radices, job.passes, job.wc, job.ws, job.n, job.sign);
  T* re = job.scratch + half * 2 * part;
  Finish(job, re, re + part);
  Scatter(job, re, re + part);
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

void RunF32Baseline(const Job<float>& job) { Run(job); }
void RunF64Baseline(const Job<double>& job) { Run(job); }

#ifdef XLA_LANE_FFT_AVX2_BUILD
__attribute__((target("avx2"))) void RunF32Avx2(const Job<float>& job) { Run(job); }
__attribute__((target("avx2"))) void RunF64Avx2(const Job<double>& job) { Run(job); }

bool CpuHasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

void RunJob(const Job<float>& job) {
#ifdef XLA_LANE_FFT_AVX2_BUILD
  if (CpuHasAvx2()) return RunF32Avx2(job);
#endif
  RunF32Baseline(job);
}

void RunJob(const Job<double>& job) {
#ifdef XLA_LANE_FFT_AVX2_BUILD
  if (CpuHasAvx2()) return RunF64Avx2(job);
#endif
  RunF64Baseline(job);
}

#undef XLA_LANE_FFT_AVX2_BUILD

// True when the power of two 2^twos of a LaneFft length runs as radix-8
// passes: only where 8s replace every radix-4 and radix-2 pass, from 2^9
// (single thread, CPU time, 2026-12-03, docs/perf.md: 512 and 4096
// points 1.04-1.32x faster in c64 and c128; where a radix-2 or radix-4
// pass had to follow (1024, 2048) c128 ran up to 1.2x slower, and 64
// points (8 x 8) no faster).
bool UsesRadix8(int64_t twos) { return twos >= 9 && twos % 3 == 0; }

// The passes of a length-n LaneFft: for the power of two, radix 8
// (UsesRadix8) or else radix 4 while four divides what is left and one
// radix 2 for an odd power; then 3s and 5s.
std::vector<int> Radices(int64_t n) {
  std::vector<int> radices;
  int64_t twos = 0;
  while (n % 2 == 0) {
    n /= 2;
    ++twos;
  }
  if (UsesRadix8(twos)) {
    radices.insert(radices.end(), twos / 3, 8);
  } else {
    radices.insert(radices.end(), twos / 2, 4);
    if (twos % 2 == 1) radices.push_back(2);
  }
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
                           bool inverse, const T* post, T* scratch) const {
  Job<T> job;
  job.src = src;
  job.src_stride = src_stride;
  job.dst = dst;
  job.dst_stride = dst_stride;
  job.lines = lines;
  job.n = n_;
  job.radices = radices_.data();
  job.passes = static_cast<int64_t>(radices_.size());
  job.wc = cos_.data();
  job.ws = sin_.data();
  job.sign = inverse ? T(-1) : T(1);
  job.scale = inverse ? T(1) / static_cast<T>(n_) : T(1);
  job.post = post;
  job.scratch = scratch;
  RunJob(job);
}

template class LaneFft<float>;
template class LaneFft<double>;

}  // namespace stream_executor::host
