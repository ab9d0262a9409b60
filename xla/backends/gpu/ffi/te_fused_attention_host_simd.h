// Building blocks the host fused-attention kernels share (the forward
// and backward of te_fused_attention_host.cc, the decode path of
// te_fused_attention_host_decode.cc): element loads and stores in f32,
// bf16 and f16, the vectorized exp, the kNr-lane vector type, the
// online-softmax step of one row, and the per-ISA builds.
//
// Internal to the host handlers: header-only, no state; every function is
// pure (thread-safe) and never fails (the callers check shapes and types
// before, with CheckTeAttentionShapes).
#ifndef XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_SIMD_H_
#define XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_SIMD_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "xla/types/float_format.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu::ffi::attention_host {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// f32 to bf16 bits, rounded to nearest even (NaN stays a quiet NaN): the
// bit arithmetic of EncodeFloat's result, without its generic path
// (frexp/scalbn per element were most of a bf16 call's time).
inline uint16_t ToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float LoadElement(const void* data, PrimitiveType type, int64_t i) {
  switch (type) {
    case PrimitiveType::F32:
      return static_cast<const float*>(data)[i];
    case PrimitiveType::BF16: {
      const uint32_t bits = uint32_t{static_cast<const uint16_t*>(data)[i]} << 16;
      float f;
      std::memcpy(&f, &bits, sizeof(f));
      return f;
    }
    default:  // F16 (CheckTeAttentionShapes admits nothing else)
#ifdef __FLT16_MAX__
      return static_cast<float>(static_cast<const _Float16*>(data)[i]);
#else
      return static_cast<float>(
          DecodeFloat(FloatFormatId::kF16, static_cast<const uint16_t*>(data)[i]));
#endif
  }
}

inline void StoreElement(void* data, PrimitiveType type, int64_t i, float value) {
  switch (type) {
    case PrimitiveType::F32:
      static_cast<float*>(data)[i] = value;
      return;
    case PrimitiveType::BF16:
      static_cast<uint16_t*>(data)[i] = ToBf16(value);
      return;
    default:
#ifdef __FLT16_MAX__
      static_cast<_Float16*>(data)[i] = static_cast<_Float16>(value);
#else
      static_cast<uint16_t*>(data)[i] =
          static_cast<uint16_t>(EncodeFloat(FloatFormatId::kF16, value));
#endif
      return;
  }
}

// Copies `count` elements of `type` at `src` + `offset` to f32 `dst`
// (`dst_stride` apart): a plain loop for f32, the decode for 16 bits.
inline void LoadRow(const void* src, PrimitiveType type, int64_t offset, int64_t count, float scale,
             float* dst, int64_t dst_stride) {
  if (type == PrimitiveType::F32) {
    const float* in = static_cast<const float*>(src) + offset;
    for (int64_t d = 0; d < count; ++d) dst[d * dst_stride] = scale * in[d];
    return;
  }
  for (int64_t d = 0; d < count; ++d) dst[d * dst_stride] = scale * LoadElement(src, type, offset + d);
}

// exp(x) for f32 in plain arithmetic that the compiler vectorizes, the
// approach of the host codegen's HostMathEmitter::Exp (host_math_emitter.h):
// x clamped to [-104, 89], n = floor(x log2(e) + 1/2), r = x - n ln2 in two
// steps, the degree-7 Taylor polynomial of 2 exp(r), scaled by 2^(n-1)
// through the exponent bits. Results below 2^-125 (exp(x) for x < -86.6)
// are flushed to 0 instead of being built exactly: here they only weigh
// keys against a row maximum at least 86 larger, whose own weight is 1,
// so no instruction computes a subnormal (a microcode assist each) and the
// row's sum changes by less than 2^-125. -inf gives 0; NaN is not expected
// (scores are finite or -inf).
__attribute__((always_inline)) inline float VectorExp(float x) {
  x = x > 89.0f ? 89.0f : x;
  x = x < -104.0f ? -104.0f : x;
  // floor by truncation (a vector conversion on every x86-64 level).
  const float t = x * 1.44269504088896341f + 0.5f;
  const int32_t ti = static_cast<int32_t>(t);
  const int32_t ni = ti - (t < static_cast<float>(ti) ? 1 : 0);
  const float n = static_cast<float>(ni);
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440054690582e-4f;
  // Horner for 2 exp(r) (the coefficients of host_math_emitter.cc).
  float p = 2.0f / 5040;
  p = p * r + 2.0f / 720;
  p = p * r + 2.0f / 120;
  p = p * r + 2.0f / 24;
  p = p * r + 2.0f / 6;
  p = p * r + 1.0f;
  p = p * r + 2.0f;
  p = p * r + 2.0f;
  const int32_t e = ni - 1 + 127;  // 2^(n-1) in [2^-151, 2^127]
  const int32_t bits = (e < 1 ? 1 : e) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return ni < -125 ? 0.0f : p * scale;
}

// Query rows and key columns of one forward tile. A tile's scores
// (kFwdRows x kFwdCols f32) and its accumulators stay in L1. K and V are
// packed once per call into zero-padded tiles (keys to kFwdCols, the value
// dim to kNr) and each unit copies its Q rows (scaled, zero rows past Sq),
// so the two products run with constant bounds: kMr x (NV * kNr) register
// blocks, like a GEMM micro-kernel, that the compiler keeps in vector
// registers.
constexpr int64_t kFwdRows = 16;
constexpr int64_t kFwdCols = 64;
constexpr int64_t kMr = 4;
constexpr int64_t kNr = 16;

inline int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }


// kNr floats as one value of GCC's vector extension: one zmm, two ymm or
// four xmm registers, whichever the function's ISA has.
typedef float VecNr __attribute__((vector_size(kNr * sizeof(float))));

// Unaligned loads and stores of one VecNr (by pointer: a 64-byte vector
// passed by value would change the default ABI).
#define XLA_LOAD_NR(dst, src) std::memcpy(&(dst), (src), sizeof(VecNr))
#define XLA_STORE_NR(dst, src) std::memcpy((dst), &(src), sizeof(VecNr))

// Largest and sum of the kNr lanes.
__attribute__((always_inline)) inline float LaneMax(const VecNr& x) {
  float m = x[0];
  for (int64_t l = 1; l < kNr; ++l) m = std::max(m, x[l]);
  return m;
}
__attribute__((always_inline)) inline float LaneSum(const VecNr& x) {
  float s = 0.0f;
  for (int64_t l = 0; l < kNr; ++l) s += x[l];
  return s;
}

// The online-softmax step of one row of a tile: hides the keys past
// `visible`, turns the scores into weights against the new running max,
// and rescales the row's sum and accumulator. The max and the sum run on
// kNr lanes (an in-order loop over 64 floats is a 64-add dependency
// chain); hidden keys weigh exp(-inf) = 0 in the sum.
__attribute__((always_inline)) inline void SoftmaxRow(float* s, int64_t visible, float& row_max,
                                                      float& row_sum, float* acc, int64_t dv) {
  if (visible == 0) {
    for (int64_t cc = 0; cc < kFwdCols; ++cc) s[cc] = 0.0f;
    return;
  }
  for (int64_t cc = visible; cc < kFwdCols; ++cc) s[cc] = kNegInf;
  VecNr mx;
  XLA_LOAD_NR(mx, s);
  for (int64_t c0 = kNr; c0 < kFwdCols; c0 += kNr) {
    VecNr x;
    XLA_LOAD_NR(x, s + c0);
    mx = x > mx ? x : mx;
  }
  const float new_max = std::max(row_max, LaneMax(mx));
  const float correction = VectorExp(row_max - new_max);  // 0 for the first tile
  for (int64_t cc = 0; cc < kFwdCols; ++cc) s[cc] = VectorExp(s[cc] - new_max);
  VecNr sum = {};
  for (int64_t c0 = 0; c0 < kFwdCols; c0 += kNr) {
    VecNr x;
    XLA_LOAD_NR(x, s + c0);
    sum += x;
  }
  row_sum = row_sum * correction + LaneSum(sum);
  row_max = new_max;
  if (correction != 1.0f) {
    for (int64_t d = 0; d < dv; ++d) acc[d] *= correction;
  }
}

// Every kernel below has three builds: with GCC on x86-64 an x86-64-v4
// (AVX-512: 4 x 64 register blocks) and an x86-64-v3 (AVX2, FMA: 4 x 16)
// one, chosen at run time by __builtin_cpu_supports (no ifunc: those
// resolvers run before a sanitizer runtime is up), and the default build.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define XLA_ATTENTION_ISA_BUILDS 1
#define XLA_ATTENTION_V4 __attribute__((target("arch=x86-64-v4")))
#define XLA_ATTENTION_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define XLA_ATTENTION_V4
#define XLA_ATTENTION_V3
#endif

// The build of a kernel this CPU runs.
template <typename Fn>
inline Fn PickBuild(Fn v4, Fn v3, Fn fallback) {
#ifdef XLA_ATTENTION_ISA_BUILDS
  if (__builtin_cpu_supports("x86-64-v4")) return v4;
  if (__builtin_cpu_supports("x86-64-v3")) return v3;
#endif
  return fallback;
}

}  // namespace xla::gpu::ffi::attention_host

#endif  // XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_SIMD_H_
