#include "xla/backends/gpu/ffi/te_fused_attention_host.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/stream_executor/host/host_launch.h"
#include "xla/types/float_format.h"
#include "xla/util/parallel_for.h"

namespace xla::gpu::ffi {
namespace {

using stream_executor::DeviceMemoryBase;

// Tile sizes: query rows and key columns handled together.
constexpr int64_t kRowTile = 32;
constexpr int64_t kColTile = 32;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Threads one call uses at most (heads, or key/value heads, in parallel).
constexpr int kMaxThreads = 8;

float LoadElement(const void* data, PrimitiveType type, int64_t i) {
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
      return static_cast<float>(
          DecodeFloat(FloatFormatId::kF16, static_cast<const uint16_t*>(data)[i]));
  }
}

void StoreElement(void* data, PrimitiveType type, int64_t i, float value) {
  switch (type) {
    case PrimitiveType::F32:
      static_cast<float*>(data)[i] = value;
      return;
    case PrimitiveType::BF16:
      static_cast<uint16_t*>(data)[i] =
          static_cast<uint16_t>(EncodeFloat(FloatFormatId::kBF16, value));
      return;
    default:
      static_cast<uint16_t*>(data)[i] =
          static_cast<uint16_t>(EncodeFloat(FloatFormatId::kF16, value));
      return;
  }
}

// One logical [batch, heads, seq, dim] tensor copied out of its (possibly
// packed) buffer into contiguous f32.
std::vector<float> Gather(const void* data, PrimitiveType type, const TeTensorView& view,
                          int64_t batch, int64_t heads, int64_t seq, int64_t dim) {
  std::vector<float> out(static_cast<size_t>(batch * heads * seq * dim));
  float* dst = out.data();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t base = view.At(b, s, h);
        if (type == PrimitiveType::F32) {  // one row copy, no per-element decode
          std::memcpy(dst, static_cast<const float*>(data) + base, dim * sizeof(float));
          dst += dim;
          continue;
        }
        for (int64_t d = 0; d < dim; ++d) *dst++ = LoadElement(data, type, base + d);
      }
    }
  }
  return out;
}

// The inverse of Gather: writes contiguous f32 [batch, heads, seq, dim]
// into its place in a (possibly packed) result buffer.
void Scatter(const std::vector<float>& in, void* data, PrimitiveType type, const TeTensorView& view,
             int64_t batch, int64_t heads, int64_t seq, int64_t dim) {
  const float* src = in.data();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t base = view.At(b, s, h);
        if (type == PrimitiveType::F32) {
          std::memcpy(static_cast<float*>(data) + base, src, dim * sizeof(float));
          src += dim;
          continue;
        }
        for (int64_t d = 0; d < dim; ++d) StoreElement(data, type, base + d, *src++);
      }
    }
  }
}

float Dot(const float* a, const float* b, int64_t n) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// Everything one call needs, captured by value into the host callback.
struct Call {
  TeAttentionConfig config;
  PrimitiveType type = PrimitiveType::F32;
  std::vector<DeviceMemoryBase> operands;
  std::vector<DeviceMemoryBase> results;
  int q_cu = 0, kv_cu = 0;  // operand indices of the cu_seqlens
  // The executor's launch pool, which the forward units run on (null: a
  // few threads of ParallelForEach).
  stream_executor::host::HostThreadPool* pool = nullptr;

  // Per-sequence lengths: from cu_seqlens for padding masks, the maximum
  // lengths otherwise.
  absl::Status Lengths(std::vector<int64_t>* q_len, std::vector<int64_t>* kv_len) const {
    const TeAttentionConfig& c = config;
    if (!c.padding) {
      q_len->assign(c.batch, c.q_seqlen);
      kv_len->assign(c.batch, c.kv_seqlen);
      return absl::OkStatus();
    }
    for (auto [index, out, max_len, what] :
         {std::tuple(q_cu, q_len, c.q_seqlen, "q_cu_seqlens"),
          std::tuple(kv_cu, kv_len, c.kv_seqlen, "kv_cu_seqlens")}) {
      const DeviceMemoryBase m = operands[index];
      absl::StatusOr<std::vector<int64_t>> lengths = TeSequenceLengths(
          absl::MakeConstSpan(static_cast<const int32_t*>(m.opaque), m.size / sizeof(int32_t)),
          c.batch, max_len, absl::StrCat("operand ", index, " (", what, ")"));
      if (!lengths.ok()) return lengths.status();
      *out = *std::move(lengths);
    }
    return absl::OkStatus();
  }
};

// Parses the attributes and checks the shapes and buffer sizes.
absl::StatusOr<Call> Prepare(const CallFrame& frame, absl::string_view target, bool backward) {
  if (frame.attributes == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(target, ": the call has no attributes"));
  }
  absl::StatusOr<TeAttentionConfig> config = ParseTeAttentionConfig(target, *frame.attributes);
  if (!config.ok()) return config.status();
  if (frame.operand_shapes.size() != frame.operands.size() ||
      frame.result_shapes.size() != frame.results.size() ||
      std::count(frame.operand_shapes.begin(), frame.operand_shapes.end(), nullptr) != 0 ||
      std::count(frame.result_shapes.begin(), frame.result_shapes.end(), nullptr) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        target,
        ": the artifact records no operand/result shapes for this call (compiled before "
        "2026-12-02?); recompile it"));
  }
  absl::Status shapes =
      CheckTeAttentionShapes(target, *config, backward, frame.operand_shapes, frame.result_shapes);
  if (!shapes.ok()) return shapes;
  Call call;
  call.config = *config;
  call.type = frame.operand_shapes[0]->element_type();
  call.operands.assign(frame.operands.begin(), frame.operands.end());
  call.results.assign(frame.results.begin(), frame.results.end());
  // These handlers are registered for the host platform only, whose
  // executor owns the launch pool.
  if (auto* host = dynamic_cast<stream_executor::host::HostExecutor*>(frame.executor)) {
    call.pool = &host->launch_pool();
  }
  call.q_cu = backward ? kBwdQCuSeqlens : kFwdQCuSeqlens;
  call.kv_cu = backward ? kBwdKvCuSeqlens : kFwdKvCuSeqlens;
  // Every buffer read or written must hold its shape.
  std::vector<std::pair<int, bool>> used = {{0, false}, {1, false}, {2, false}};  // (index, result)
  if (config->padding) {
    used.push_back({call.q_cu, false});
    used.push_back({call.kv_cu, false});
  }
  if (backward) {
    for (int i : {kBwdSoftmaxAux, kBwdOutput, kBwdDOutput}) used.push_back({i, false});
    for (int i : {kBwdDq, kBwdDk, kBwdDv}) used.push_back({i, true});
  } else {
    for (int i : {kFwdOutput, kFwdSoftmaxAux, kFwdRngState}) used.push_back({i, true});
  }
  for (auto [index, is_result] : used) {
    const Shape* shape = is_result ? frame.result_shapes[index] : frame.operand_shapes[index];
    const DeviceMemoryBase m = is_result ? frame.results[index] : frame.operands[index];
    const int64_t bytes = shape->ByteSize().value_or(-1);
    if (bytes < 0 || static_cast<int64_t>(m.size) < bytes || (bytes > 0 && m.opaque == nullptr)) {
      return absl::InvalidArgumentError(
          absl::StrCat(target, ": ", is_result ? "result " : "operand ", index, " (",
                       shape->ToString(), ") has a buffer of ", m.size, " bytes"));
    }
  }
  return call;
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
// (kFwdRows x kFwdCols f32) and its accumulators stay in L1. The operands
// are zero-padded to whole tiles (rows of Q to kFwdRows, keys to kFwdCols,
// the value dim to kNr), so the two products run with constant bounds:
// kMr x kNr register blocks, like a GEMM micro-kernel, that the compiler
// keeps in vector registers.
constexpr int64_t kFwdRows = 16;
constexpr int64_t kFwdCols = 64;
constexpr int64_t kMr = 4;
constexpr int64_t kNr = 16;

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// What every forward work unit (one batch, head and query tile) reads.
struct ForwardContext {
  const TeAttentionConfig* config;
  const std::vector<int64_t>* q_len;
  const std::vector<int64_t>* kv_len;
  const float* q;   // [B, H, Sq_pad, Dqk], pre-scaled, zero rows past Sq
  const float* kt;  // [B, G, Dqk, Skv_pad]: K transposed per head, zero past Skv
  const float* v;   // [B, G, Skv_pad, Dv_pad], zero past Skv and Dv
  float* out;       // [B, H, Sq, Dv]
  float* stats;     // [B, H, Sq]
  int64_t sq_pad, skv_pad, dv_pad;
  int64_t row_tiles;
};

// kNr floats as one value of GCC's vector extension: one zmm, two ymm or
// four xmm registers, whichever the clone's ISA has, so the kMr x kNr
// accumulator block stays in registers.
typedef float VecNr __attribute__((vector_size(kNr * sizeof(float))));

// Unaligned loads and stores of one VecNr (by pointer: a 64-byte vector
// passed by value would change the default clone's ABI).
#define XLA_LOAD_NR(dst, src) std::memcpy(&(dst), (src), sizeof(VecNr))
#define XLA_STORE_NR(dst, src) std::memcpy((dst), &(src), sizeof(VecNr))

// s[kFwdRows][kFwdCols] = q[kFwdRows][d] . kt[d][ld] (columns from kt).
__attribute__((always_inline)) inline void TileScores(const float* q, const float* kt,
                                                      int64_t d_size, int64_t ld, float* s) {
  for (int64_t r0 = 0; r0 < kFwdRows; r0 += kMr) {
    for (int64_t c0 = 0; c0 < kFwdCols; c0 += kNr) {
      VecNr acc[kMr] = {};
      for (int64_t d = 0; d < d_size; ++d) {
        VecNr k;
        XLA_LOAD_NR(k, kt + d * ld + c0);
        for (int64_t r = 0; r < kMr; ++r) acc[r] += q[(r0 + r) * d_size + d] * k;
      }
      for (int64_t r = 0; r < kMr; ++r) XLA_STORE_NR(s + (r0 + r) * kFwdCols + c0, acc[r]);
    }
  }
}

// acc[kFwdRows][dv] += p[kFwdRows][kFwdCols] . v[kFwdCols][dv] (dv a
// multiple of kNr).
__attribute__((always_inline)) inline void TileValues(const float* p, const float* v, int64_t dv,
                                                      float* acc) {
  for (int64_t r0 = 0; r0 < kFwdRows; r0 += kMr) {
    for (int64_t d0 = 0; d0 < dv; d0 += kNr) {
      VecNr a[kMr];
      for (int64_t r = 0; r < kMr; ++r) XLA_LOAD_NR(a[r], acc + (r0 + r) * dv + d0);
      for (int64_t cc = 0; cc < kFwdCols; ++cc) {
        VecNr vr;
        XLA_LOAD_NR(vr, v + cc * dv + d0);
        for (int64_t r = 0; r < kMr; ++r) a[r] += p[(r0 + r) * kFwdCols + cc] * vr;
      }
      for (int64_t r = 0; r < kMr; ++r) XLA_STORE_NR(acc + (r0 + r) * dv + d0, a[r]);
    }
  }
}

// The online-softmax step of one row of a tile: hides the keys past
// `visible`, turns the scores into weights against the new running max,
// and rescales the row's sum and accumulator.
__attribute__((always_inline)) inline void SoftmaxRow(float* s, int64_t visible, float& row_max, float& row_sum, float* acc,
                       int64_t dv) {
  if (visible == 0) {
    for (int64_t cc = 0; cc < kFwdCols; ++cc) s[cc] = 0.0f;
    return;
  }
  for (int64_t cc = visible; cc < kFwdCols; ++cc) s[cc] = kNegInf;
  float tile_max = s[0];
  for (int64_t cc = 1; cc < visible; ++cc) tile_max = std::max(tile_max, s[cc]);
  const float new_max = std::max(row_max, tile_max);
  const float correction = VectorExp(row_max - new_max);  // 0 for the first tile
  // Two loops: the exp loop vectorizes, an in-order float sum does not.
  for (int64_t cc = 0; cc < kFwdCols; ++cc) s[cc] = VectorExp(s[cc] - new_max);
  float sum = 0.0f;
  for (int64_t cc = 0; cc < visible; ++cc) sum += s[cc];
  row_sum = row_sum * correction + sum;
  row_max = new_max;
  for (int64_t d = 0; d < dv; ++d) acc[d] *= correction;
}

// One key tile of one query tile: scores, online softmax, P.V. With GCC on
// x86-64 it has x86-64-v4 (AVX-512) and x86-64-v3 (AVX2, FMA) clones; the
// loader picks the widest the CPU has (an ifunc testing ISA levels). Not
// under ThreadSanitizer or AddressSanitizer: the dynamic loader runs ifunc
// resolvers while relocating, before the sanitizer runtime is initialized,
// and the instrumented resolver crashes every binary that links this file.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void ForwardKeyTile(const ForwardContext& x, int64_t b, int64_t i0, int64_t rows, int64_t j0,
                    const float* qt, const float* kth, const float* vh, float* row_max,
                    float* row_sum, float* acc) {
  const TeAttentionConfig& c = *x.config;
  alignas(64) float s[kFwdRows * kFwdCols];
  TileScores(qt, kth + j0, c.qk_head_dim, x.skv_pad, s);
  const int64_t cols = std::min(kFwdCols, c.kv_seqlen - j0);
  for (int64_t r = 0; r < kFwdRows; ++r) {
    const int64_t i = i0 + r;
    // Hidden keys: past the sequence, the causal upper triangle, padding.
    int64_t visible = r < rows ? cols : 0;
    if (c.causal) visible = std::min(visible, std::max<int64_t>(i - j0 + 1, 0));
    if (c.padding) {
      if (i >= (*x.q_len)[b]) visible = 0;
      visible = std::min(visible, std::max<int64_t>((*x.kv_len)[b] - j0, 0));
    }
    SoftmaxRow(s + r * kFwdCols, visible, row_max[r], row_sum[r], acc + r * x.dv_pad, x.dv_pad);
  }
  TileValues(s, vh + j0 * x.dv_pad, x.dv_pad, acc);
}

// Work unit `unit`: batch b, head h, query tile t (row-major over them).
void ForwardUnit(const ForwardContext& x, int64_t unit) {
  const TeAttentionConfig& c = *x.config;
  const int64_t H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const int64_t bh = unit / x.row_tiles, b = bh / H, h = bh % H;
  const int64_t i0 = (unit % x.row_tiles) * kFwdRows, rows = std::min(kFwdRows, Sq - i0);
  const int64_t g = c.KvHead(h);
  const float* qt = x.q + (bh * x.sq_pad + i0) * Dqk;
  const float* kth = x.kt + ((b * G + g) * Dqk) * x.skv_pad;
  const float* vh = x.v + ((b * G + g) * x.skv_pad) * x.dv_pad;
  float row_max[kFwdRows], row_sum[kFwdRows];
  std::vector<float> acc(static_cast<size_t>(kFwdRows * x.dv_pad), 0.0f);
  std::fill(row_max, row_max + kFwdRows, kNegInf);
  std::fill(row_sum, row_sum + kFwdRows, 0.0f);
  for (int64_t j0 = 0; j0 < Skv; j0 += kFwdCols) {
    // Key tiles entirely above the causal diagonal, or entirely padding,
    // contribute nothing to this query tile, nor do later ones.
    if (c.causal && j0 > i0 + rows - 1) break;
    if (c.padding && j0 >= (*x.kv_len)[b]) break;
    ForwardKeyTile(x, b, i0, rows, j0, qt, kth, vh, row_max, row_sum, acc.data());
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    float* o = x.out + (bh * Sq + i) * Dv;
    if (row_sum[r] > 0) {
      const float inv = 1.0f / row_sum[r];
      for (int64_t d = 0; d < Dv; ++d) o[d] = acc[r * x.dv_pad + d] * inv;
      x.stats[bh * Sq + i] = row_max[r] + std::log(row_sum[r]);
    } else {
      x.stats[bh * Sq + i] = 0.0f;  // a row that sees no key (output stays 0)
    }
  }
}

// The host kernel ABI's entry point for the forward units (buffers[0] is
// the ForwardContext).
void ForwardUnits(void* const* buffers, int64_t, int64_t begin, int64_t end) {
  const auto& x = *static_cast<const ForwardContext*>(buffers[0]);
  for (int64_t unit = begin; unit < end; ++unit) ForwardUnit(x, unit);
}

// `heads` contiguous [seq, dim] matrices copied to [rows, cols] zero-padded
// ones (rows >= seq, cols >= dim), transposed to [cols, rows] when
// `transpose`, scaled by `scale`.
std::vector<float> Pad(const std::vector<float>& in, int64_t heads, int64_t seq, int64_t dim,
                       int64_t rows, int64_t cols, bool transpose, float scale) {
  std::vector<float> out(static_cast<size_t>(heads * rows * cols), 0.0f);
  for (int64_t h = 0; h < heads; ++h) {
    const float* src = &in[h * seq * dim];
    float* dst = &out[h * rows * cols];
    for (int64_t s = 0; s < seq; ++s) {
      for (int64_t d = 0; d < dim; ++d) {
        dst[transpose ? d * rows + s : s * cols + d] = scale * src[s * dim + d];
      }
    }
  }
  return out;
}

absl::Status RunForward(const Call& call) {
  const TeAttentionConfig& c = call.config;
  std::vector<int64_t> q_len, kv_len;
  if (absl::Status s = call.Lengths(&q_len, &kv_len); !s.ok()) return s;
  const int64_t B = c.batch, H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const int64_t sq_pad = RoundUp(Sq, kFwdRows), skv_pad = RoundUp(Skv, kFwdCols);
  const int64_t dv_pad = RoundUp(Dv, kNr);
  const std::vector<float> q = Pad(
      Gather(call.operands[c.q.operand].opaque, call.type, c.q, B, H, Sq, Dqk), B * H, Sq, Dqk,
      sq_pad, Dqk, /*transpose=*/false, static_cast<float>(c.scale));
  const std::vector<float> kt = Pad(
      Gather(call.operands[c.k.operand].opaque, call.type, c.k, B, G, Skv, Dqk), B * G, Skv, Dqk,
      skv_pad, Dqk, /*transpose=*/true, 1.0f);
  const std::vector<float> v = Pad(
      Gather(call.operands[c.v.operand].opaque, call.type, c.v, B, G, Skv, Dv), B * G, Skv, Dv,
      skv_pad, dv_pad, /*transpose=*/false, 1.0f);
  std::vector<float> out(static_cast<size_t>(B * H * Sq * Dv), 0.0f);
  ForwardContext x{&c,
                   &q_len,
                   &kv_len,
                   q.data(),
                   kt.data(),
                   v.data(),
                   out.data(),
                   static_cast<float*>(call.results[kFwdSoftmaxAux].opaque),
                   sq_pad,
                   skv_pad,
                   dv_pad,
                   sq_pad / kFwdRows};
  // Each unit writes its own rows of the output and stats.
  const int64_t units = B * H * x.row_tiles;
  void* const buffers[] = {&x};
  if (call.pool != nullptr) {
    stream_executor::host::RunHostKernel(&ForwardUnits, buffers, units, *call.pool);
  } else {
    ParallelForEach(units, ThreadCount(0, kMaxThreads),
                    [&](int64_t unit) { ForwardUnits(buffers, 1, unit, unit + 1); });
  }
  Scatter(out, call.results[kFwdOutput].opaque, call.type, c.o, B, H, Sq, Dv);
  // No dropout: the RNG state carries nothing.
  std::memset(call.results[kFwdRngState].opaque, 0, call.results[kFwdRngState].size);
  return absl::OkStatus();
}

absl::Status RunBackward(const Call& call) {
  const TeAttentionConfig& c = call.config;
  std::vector<int64_t> q_len, kv_len;
  if (absl::Status s = call.Lengths(&q_len, &kv_len); !s.ok()) return s;
  const int64_t B = c.batch, H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim, group = H / G;
  const std::vector<float> q =
      Gather(call.operands[c.q.operand].opaque, call.type, c.q, B, H, Sq, Dqk);
  const std::vector<float> k =
      Gather(call.operands[c.k.operand].opaque, call.type, c.k, B, G, Skv, Dqk);
  const std::vector<float> v =
      Gather(call.operands[c.v.operand].opaque, call.type, c.v, B, G, Skv, Dv);
  const std::vector<float> o =
      Gather(call.operands[kBwdOutput].opaque, call.type, c.o, B, H, Sq, Dv);
  const std::vector<float> dout =
      Gather(call.operands[kBwdDOutput].opaque, call.type, c.o, B, H, Sq, Dv);
  const float* stats = static_cast<const float*>(call.operands[kBwdSoftmaxAux].opaque);
  const float scale = static_cast<float>(c.scale);

  // D_i = dO_i . O_i: the softmax gradient's row term.
  std::vector<float> delta(static_cast<size_t>(B * H * Sq));
  for (int64_t r = 0; r < B * H * Sq; ++r) delta[r] = Dot(&dout[r * Dv], &o[r * Dv], Dv);

  std::vector<float> dq(q.size(), 0.0f), dk(k.size(), 0.0f), dv(v.size(), 0.0f);
  // Each (batch, key/value head) writes its own keys' dK and dV and the dQ
  // rows of the query heads that share it.
  ParallelForEach(B * G, ThreadCount(0, kMaxThreads), [&](int64_t bg) {
    const int64_t b = bg / G, g = bg % G;
    std::vector<float> p_tile(kRowTile * kColTile), ds_tile(kRowTile * kColTile);
    const float* kg = &k[((b * G + g) * Skv) * Dqk];
    const float* vg = &v[((b * G + g) * Skv) * Dv];
    for (int64_t j0 = 0; j0 < Skv; j0 += kColTile) {
      if (c.padding && j0 >= kv_len[b]) break;
      const int64_t cols = std::min(kColTile, Skv - j0);
      float* dkg = &dk[((b * G + g) * Skv + j0) * Dqk];
      float* dvg = &dv[((b * G + g) * Skv + j0) * Dv];
      for (int64_t h = g * group; h < (g + 1) * group; ++h) {
        const int64_t bh = b * H + h;
        // Query tiles entirely above the causal diagonal see none of these keys.
        const int64_t first = c.causal ? (j0 / kRowTile) * kRowTile : 0;
        for (int64_t i0 = first; i0 < Sq; i0 += kRowTile) {
          if (c.padding && i0 >= q_len[b]) break;
          const int64_t rows = std::min(kRowTile, Sq - i0);
          // P and dS for the tile.
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = i0 + r;
            const float* qi = &q[(bh * Sq + i) * Dqk];
            const float* doi = &dout[(bh * Sq + i) * Dv];
            const float lse = stats[bh * Sq + i];
            for (int64_t cc = 0; cc < cols; ++cc) {
              const int64_t j = j0 + cc;
              float p = 0, ds = 0;
              if (c.Visible(i, j, q_len[b], kv_len[b])) {
                p = std::exp(scale * Dot(qi, kg + j * Dqk, Dqk) - lse);
                const float dp = Dot(doi, vg + j * Dv, Dv);
                ds = p * (dp - delta[bh * Sq + i]);
              }
              p_tile[r * kColTile + cc] = p;
              ds_tile[r * kColTile + cc] = ds;
            }
          }
          // dV += P^T dO, dK += scale dS^T Q, dQ += scale dS K.
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = i0 + r;
            const float* qi = &q[(bh * Sq + i) * Dqk];
            const float* doi = &dout[(bh * Sq + i) * Dv];
            float* dqi = &dq[(bh * Sq + i) * Dqk];
            for (int64_t cc = 0; cc < cols; ++cc) {
              const float p = p_tile[r * kColTile + cc];
              const float ds = scale * ds_tile[r * kColTile + cc];
              if (p == 0 && ds == 0) continue;
              float* dvj = dvg + cc * Dv;
              for (int64_t d = 0; d < Dv; ++d) dvj[d] += p * doi[d];
              float* dkj = dkg + cc * Dqk;
              const float* kj = kg + (j0 + cc) * Dqk;
              for (int64_t d = 0; d < Dqk; ++d) {
                dkj[d] += ds * qi[d];
                dqi[d] += ds * kj[d];
              }
            }
          }
        }
      }
    }
  });
  // Packed layouts share a result between gradients: zero all three
  // first, then each gradient fills its own part.
  for (int i : {kBwdDq, kBwdDk, kBwdDv}) {
    if (call.results[i].size > 0) std::memset(call.results[i].opaque, 0, call.results[i].size);
  }
  Scatter(dq, call.results[c.q.operand].opaque, call.type, c.q, B, H, Sq, Dqk);
  Scatter(dk, call.results[c.k.operand].opaque, call.type, c.k, B, G, Skv, Dqk);
  Scatter(dv, call.results[c.v.operand].opaque, call.type, c.v, B, G, Skv, Dv);
  return absl::OkStatus();
}

}  // namespace

absl::Status TeFusedAttnForwardHost(const CallFrame& frame) {
  absl::StatusOr<Call> call = Prepare(frame, kTeFusedAttnForwardTarget, /*backward=*/false);
  if (!call.ok()) return call.status();
  return frame.stream->DoHostCallback(
      [call = *std::move(call)]() -> absl::Status { return RunForward(call); });
}

absl::Status TeFusedAttnBackwardHost(const CallFrame& frame) {
  absl::StatusOr<Call> call = Prepare(frame, kTeFusedAttnBackwardTarget, /*backward=*/true);
  if (!call.ok()) return call.status();
  return frame.stream->DoHostCallback(
      [call = *std::move(call)]() -> absl::Status { return RunBackward(call); });
}

absl::Status RegisterTeFusedAttentionHostHandlers(FfiRegistry& registry) {
  // Counts only: ParseTeAttentionConfig checks the attributes with errors
  // that name the unsupported value.
  absl::Status s = registry.Register(
      {kTeFusedAttnForwardTarget, "host", &TeFusedAttnForwardHost, {-1, kTeFwdNumResults, {}, {}}});
  if (!s.ok()) return s;
  return registry.Register({kTeFusedAttnBackwardTarget,
                            "host",
                            &TeFusedAttnBackwardHost,
                            {-1, kTeBwdNumResults, {}, {}}});
}

}  // namespace xla::gpu::ffi
