#include "xla/backends/gpu/ffi/te_fused_attention_host.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/backends/gpu/ffi/te_fused_attention_host_decode.h"
#include "xla/backends/gpu/ffi/te_fused_attention_host_simd.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/stream_executor/host/host_launch.h"
#include "xla/types/float_format.h"
#include "xla/util/parallel_for.h"

namespace xla::gpu::ffi {
namespace {

using namespace attention_host;  // NOLINT: the kernels' own building blocks
using stream_executor::DeviceMemoryBase;

// Threads one call uses at most (heads, or key/value heads, in parallel).
constexpr int kMaxThreads = 8;

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

// Per-sequence lengths of one call: inline for the batches of decode
// steps, so that a call allocates nothing for them.
using Lengths = absl::InlinedVector<int64_t, 16>;

// Everything one call needs, captured by value into the host callback.
// The buffer lists are inline (TE's calls have at most 12 operands), so
// building and moving a Call allocates nothing beyond its config.
struct Call {
  TeAttentionConfig config;
  PrimitiveType type = PrimitiveType::F32;
  absl::InlinedVector<DeviceMemoryBase, 12> operands;
  absl::InlinedVector<DeviceMemoryBase, 6> results;
  int q_cu = 0, kv_cu = 0;  // operand indices of the cu_seqlens
  // The executor's launch pool, which the forward units run on (null: a
  // few threads of ParallelForEach).
  stream_executor::host::HostThreadPool* pool = nullptr;

  // Per-sequence lengths: from cu_seqlens for padding masks, the maximum
  // lengths otherwise. The error names the operand (text built only then).
  absl::Status GetLengths(Lengths* q_len, Lengths* kv_len) const {
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
      const absl::Span<const int32_t> cu(static_cast<const int32_t*>(m.opaque),
                                         m.size / sizeof(int32_t));
      out->resize(c.batch);
      if (TeSequenceLengthsInto(cu, c.batch, max_len, what, absl::MakeSpan(*out)).ok()) continue;
      return TeSequenceLengthsInto(cu, c.batch, max_len,
                                   absl::StrCat("operand ", index, " (", what, ")"),
                                   absl::MakeSpan(*out));
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
  call.config = *std::move(config);
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
  absl::InlinedVector<std::pair<int, bool>, 12> used = {{0, false}, {1, false}, {2, false}};  // (index, result)
  if (call.config.padding) {
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


// What every forward work unit (one batch, head and query tile) reads.
struct ForwardContext {
  const TeAttentionConfig* config;
  const Lengths* q_len;
  const Lengths* kv_len;
  PrimitiveType type;
  const void* q;    // operand holding Q (view config->q)
  const float* kt;  // [B, G, Dqk, Skv_pad]: K transposed per head, zero past Skv
  const float* v;   // [B, G, Skv_pad, Dv_pad], zero past Skv and Dv
  void* out;        // result 0 (view config->o)
  float* stats;     // [B, H, Sq]
  float scale;
  int64_t skv_pad, dv_pad;
  int64_t row_tiles;
};

// The micro-kernel of every tile product: c[Rows][NV * kNr] = (or +=,
// with kAccumulate) a[Rows][inner] . b[inner][NV * kNr], row strides lda,
// ldb and ldc, in kMr x (NV * kNr) register blocks: NV = 4 is 16 zmm
// accumulators with AVX-512, NV = 1 is 8 ymm with AVX2.
template <int64_t Rows, int NV, bool kAccumulate>
__attribute__((always_inline)) inline void MicroKernel(const float* a, int64_t lda, int64_t inner,
                                                       const float* b, int64_t ldb, float* c,
                                                       int64_t ldc) {
  static_assert(Rows % kMr == 0);
  for (int64_t r0 = 0; r0 < Rows; r0 += kMr) {
    VecNr o[kMr][NV] = {};
    if (kAccumulate) {
      for (int64_t r = 0; r < kMr; ++r) {
        for (int w = 0; w < NV; ++w) XLA_LOAD_NR(o[r][w], c + (r0 + r) * ldc + w * kNr);
      }
    }
    for (int64_t k = 0; k < inner; ++k) {
      VecNr br[NV];
      for (int w = 0; w < NV; ++w) XLA_LOAD_NR(br[w], b + k * ldb + w * kNr);
      for (int64_t r = 0; r < kMr; ++r) {
        const float ar = a[(r0 + r) * lda + k];
        for (int w = 0; w < NV; ++w) o[r][w] += ar * br[w];
      }
    }
    for (int64_t r = 0; r < kMr; ++r) {
      for (int w = 0; w < NV; ++w) XLA_STORE_NR(c + (r0 + r) * ldc + w * kNr, o[r][w]);
    }
  }
}

// s[kFwdRows][kFwdCols] = q[kFwdRows][d] . kt[d][ld] (columns from kt).
template <int NV>
__attribute__((always_inline)) inline void TileScores(const float* q, const float* kt,
                                                      int64_t d_size, int64_t ld, float* s) {
  static_assert(kFwdCols % (NV * kNr) == 0);
  for (int64_t c0 = 0; c0 < kFwdCols; c0 += NV * kNr) {
    MicroKernel<kFwdRows, NV, false>(q, d_size, d_size, kt + c0, ld, s + c0, kFwdCols);
  }
}

// acc[Rows][ld] += a[Rows][Inner] . b[Inner][ld] over the whole width `ld`
// (a multiple of kNr): NV * kNr columns at a time, then single vectors.
// The forward's P.V and the backward's gradient products.
template <int64_t Rows, int64_t Inner, int NV>
__attribute__((always_inline)) inline void Accumulate(const float* a, const float* b, int64_t ld,
                                                      float* acc) {
  int64_t d0 = 0;
  for (; d0 + NV * kNr <= ld; d0 += NV * kNr) {
    MicroKernel<Rows, NV, true>(a, Inner, Inner, b + d0, ld, acc + d0, ld);
  }
  for (; d0 < ld; d0 += kNr) MicroKernel<Rows, 1, true>(a, Inner, Inner, b + d0, ld, acc + d0, ld);
}


// One key tile of one query tile: scores, online softmax, P.V.
template <int NV>
__attribute__((always_inline)) inline void ForwardKeyTileBody(
    const ForwardContext& x, int64_t b, int64_t i0, int64_t rows, int64_t j0, const float* qt,
    const float* kth, const float* vh, float* row_max, float* row_sum, float* acc) {
  const TeAttentionConfig& c = *x.config;
  alignas(64) float s[kFwdRows * kFwdCols];
  TileScores<NV>(qt, kth + j0, c.qk_head_dim, x.skv_pad, s);
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
  Accumulate<kFwdRows, kFwdCols, NV>(s, vh + j0 * x.dv_pad, x.dv_pad, acc);
}

using KeyTileFn = void (*)(const ForwardContext&, int64_t, int64_t, int64_t, int64_t, const float*,
                           const float*, const float*, float*, float*, float*);


void KeyTileDefault(const ForwardContext& x, int64_t b, int64_t i0, int64_t rows, int64_t j0,
                    const float* qt, const float* kth, const float* vh, float* row_max,
                    float* row_sum, float* acc) {
  ForwardKeyTileBody<1>(x, b, i0, rows, j0, qt, kth, vh, row_max, row_sum, acc);
}
XLA_ATTENTION_V4 void KeyTileV4(const ForwardContext& x, int64_t b, int64_t i0, int64_t rows,
                                int64_t j0, const float* qt, const float* kth, const float* vh,
                                float* row_max, float* row_sum, float* acc) {
  ForwardKeyTileBody<4>(x, b, i0, rows, j0, qt, kth, vh, row_max, row_sum, acc);
}
XLA_ATTENTION_V3 void KeyTileV3(const ForwardContext& x, int64_t b, int64_t i0, int64_t rows,
                                int64_t j0, const float* qt, const float* kth, const float* vh,
                                float* row_max, float* row_sum, float* acc) {
  ForwardKeyTileBody<1>(x, b, i0, rows, j0, qt, kth, vh, row_max, row_sum, acc);
}

// Work unit `unit`: batch b, head h, query tile t (row-major over them).
void ForwardUnit(const ForwardContext& x, KeyTileFn key_tile, int64_t unit) {
  const TeAttentionConfig& c = *x.config;
  const int64_t H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const int64_t bh = unit / x.row_tiles, b = bh / H, h = bh % H;
  const int64_t i0 = (unit % x.row_tiles) * kFwdRows, rows = std::min(kFwdRows, Sq - i0);
  const int64_t g = c.KvHead(h);
  // This tile's Q rows, scaled, zero past Sq.
  std::vector<float> qt(static_cast<size_t>(kFwdRows * Dqk), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    LoadRow(x.q, x.type, c.q.At(b, i0 + r, h), Dqk, x.scale, &qt[r * Dqk], 1);
  }
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
    key_tile(x, b, i0, rows, j0, qt.data(), kth, vh, row_max, row_sum, acc.data());
  }
  // The output rows go straight to the result, in its layout and type.
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    const int64_t base = c.o.At(b, i, h);
    const float inv = row_sum[r] > 0 ? 1.0f / row_sum[r] : 0.0f;  // 0: a row that sees no key
    const float* a = &acc[r * x.dv_pad];
    if (x.type == PrimitiveType::F32) {
      float* o = static_cast<float*>(x.out) + base;
      for (int64_t d = 0; d < Dv; ++d) o[d] = a[d] * inv;
    } else {
      for (int64_t d = 0; d < Dv; ++d) StoreElement(x.out, x.type, base + d, a[d] * inv);
    }
    x.stats[bh * Sq + i] = row_sum[r] > 0 ? row_max[r] + std::log(row_sum[r]) : 0.0f;
  }
}

// The host kernel ABI's entry point for the forward units (buffers[0] is
// the ForwardContext, buffers[1] the KeyTileFn).
void ForwardUnits(void* const* buffers, int64_t, int64_t begin, int64_t end) {
  const auto& x = *static_cast<const ForwardContext*>(buffers[0]);
  const KeyTileFn key_tile = *static_cast<const KeyTileFn*>(buffers[1]);
  for (int64_t unit = begin; unit < end; ++unit) ForwardUnit(x, key_tile, unit);
}

// Packing K (transposed) and V into zero-padded per-head tiles: unit u <
// B*G packs head u of K, the others head u - B*G of V.
struct PackContext {
  const TeAttentionConfig* config;
  PrimitiveType type;
  const void* k;
  const void* v;
  float* kt;  // [B, G, Dqk, Skv_pad]
  float* vp;  // [B, G, Skv_pad, Dv_pad]
  int64_t skv_pad, dv_pad;
  // Keys per batch (Skv without padding). Keys past it are packed as 0:
  // a hidden key's weight is 0, and 0 * (whatever the padding holds,
  // NaN included) must stay 0.
  const Lengths* kv_len;
};

void PackUnits(void* const* buffers, int64_t, int64_t begin, int64_t end) {
  const auto& x = *static_cast<const PackContext*>(buffers[0]);
  const TeAttentionConfig& c = *x.config;
  const int64_t heads = c.batch * c.kv_heads;
  for (int64_t unit = begin; unit < end; ++unit) {
    const bool is_k = unit < heads;
    const int64_t bg = is_k ? unit : unit - heads, b = bg / c.kv_heads, g = bg % c.kv_heads;
    const int64_t kv_len = (*x.kv_len)[b];
    if (is_k) {
      // [Dqk, Skv_pad]: key j in column j, zero columns past Skv. In
      // blocks of kNr keys, so that each store is one whole cache line
      // (column by column, a 1 KiB stride thrashes a few L1 sets).
      float* dst = x.kt + bg * c.qk_head_dim * x.skv_pad;
      const int64_t dk = c.qk_head_dim;
      std::vector<float> block(static_cast<size_t>(kNr * dk));
      for (int64_t j0 = 0; j0 < x.skv_pad; j0 += kNr) {
        const int64_t keys = std::clamp<int64_t>(kv_len - j0, 0, kNr);
        std::fill(block.begin() + keys * dk, block.end(), 0.0f);
        for (int64_t jj = 0; jj < keys; ++jj) {
          LoadRow(x.k, x.type, c.k.At(b, j0 + jj, g), dk, 1.0f, &block[jj * dk], 1);
        }
        for (int64_t d = 0; d < dk; ++d) {
          for (int64_t jj = 0; jj < kNr; ++jj) dst[d * x.skv_pad + j0 + jj] = block[jj * dk + d];
        }
      }
    } else {
      // [Skv_pad, Dv_pad]: zero past the keys and past Dv.
      float* dst = x.vp + bg * x.skv_pad * x.dv_pad;
      for (int64_t j = 0; j < kv_len; ++j) {
        LoadRow(x.v, x.type, c.v.At(b, j, g), c.v_head_dim, 1.0f, dst + j * x.dv_pad, 1);
        std::fill(dst + j * x.dv_pad + c.v_head_dim, dst + (j + 1) * x.dv_pad, 0.0f);
      }
      std::fill(dst + kv_len * x.dv_pad, dst + x.skv_pad * x.dv_pad, 0.0f);
    }
  }
}

// Runs `units` units of `fn` on the launch pool, or on a few threads of
// ParallelForEach without one.
void RunUnits(const Call& call, XlaHostKernelFn fn, void* const* buffers, int num_buffers,
              int64_t units) {
  if (call.pool != nullptr) {
    stream_executor::host::RunHostKernel(fn, absl::MakeConstSpan(buffers, num_buffers), units,
                                         *call.pool);
    return;
  }
  ParallelForEach(units, ThreadCount(0, kMaxThreads),
                  [&](int64_t unit) { fn(buffers, num_buffers, unit, unit + 1); });
}

// The tiled forward (long query blocks): K and V packed once, then units
// of (batch, head, 16-query tile).
void RunTiledForward(const Call& call, const Lengths& q_len, const Lengths& kv_len) {
  const TeAttentionConfig& c = call.config;
  const int64_t B = c.batch, H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const int64_t skv_pad = RoundUp(Skv, kFwdCols), dv_pad = RoundUp(Dv, kNr);
  // Filled (zero padding included) by the pack units, in parallel.
  std::unique_ptr<float[]> kt(new float[B * G * Dqk * skv_pad]);
  std::unique_ptr<float[]> v(new float[B * G * skv_pad * dv_pad]);
  PackContext pack{&c,        call.type, call.operands[c.k.operand].opaque,
                   call.operands[c.v.operand].opaque, kt.get(), v.get(), skv_pad, dv_pad,
                   &kv_len};
  void* const pack_buffers[] = {&pack};
  RunUnits(call, &PackUnits, pack_buffers, 1, 2 * B * G);
  ForwardContext x{&c,
                   &q_len,
                   &kv_len,
                   call.type,
                   call.operands[c.q.operand].opaque,
                   kt.get(),
                   v.get(),
                   call.results[kFwdOutput].opaque,
                   static_cast<float*>(call.results[kFwdSoftmaxAux].opaque),
                   static_cast<float>(c.scale),
                   skv_pad,
                   dv_pad,
                   RoundUp(Sq, kFwdRows) / kFwdRows};
  KeyTileFn key_tile = PickBuild<KeyTileFn>(&KeyTileV4, &KeyTileV3, &KeyTileDefault);
  // Each unit writes its own rows of the output and stats.
  void* const buffers[] = {&x, &key_tile};
  RunUnits(call, &ForwardUnits, buffers, 2, B * H * x.row_tiles);
}

// Short query blocks (decode steps) take the decode path, the others the
// tiled forward.
absl::Status RunForward(const Call& call) {
  const TeAttentionConfig& c = call.config;
  Lengths q_len, kv_len;
  if (absl::Status s = call.GetLengths(&q_len, &kv_len); !s.ok()) return s;
  if (TeDecodeTakes(c)) {
    const TeForwardBuffers x{&c,
                             call.type,
                             call.operands[c.q.operand].opaque,
                             call.operands[c.k.operand].opaque,
                             call.operands[c.v.operand].opaque,
                             call.results[kFwdOutput].opaque,
                             static_cast<float*>(call.results[kFwdSoftmaxAux].opaque),
                             q_len.data(),
                             kv_len.data()};
    RunTeDecodeForward(x, call.pool);
  } else {
    RunTiledForward(call, q_len, kv_len);
  }
  // No dropout: the RNG state carries nothing.
  std::memset(call.results[kFwdRngState].opaque, 0, call.results[kFwdRngState].size);
  return absl::OkStatus();
}

// What every backward work unit (one batch and key/value head) reads and
// writes: contiguous f32 [batch, heads, seq, dim] copies of the operands
// and gradients.
struct BackwardContext {
  const TeAttentionConfig* config;
  const Lengths* q_len;
  const Lengths* kv_len;
  const float *q, *k, *v, *dout, *stats, *delta;
  float *dq, *dk, *dv;
};

// Copies `rows` rows of `dim` floats (`src`, contiguous) into `dst` rows of
// `ld` (transposed to [ld][rows_ld] when `transpose`), zero elsewhere.
void PackRows(const float* src, int64_t rows, int64_t dim, float* dst, int64_t rows_ld,
              int64_t ld, bool transpose) {
  std::fill(dst, dst + rows_ld * ld, 0.0f);
  for (int64_t j = 0; j < rows; ++j) {
    for (int64_t d = 0; d < dim; ++d) {
      dst[transpose ? d * rows_ld + j : j * ld + d] = src[j * dim + d];
    }
  }
}

// One (batch, key/value head): for each query head of the group and query
// tile, the key tiles it sees: S = Q K^T and dP = dO V^T (the forward's
// score micro-kernel), P = exp(scale S - stats), dS = P (dP - D), then
// dQ += scale dS K, dK += scale dS^T Q, dV += P^T dO as register-blocked
// products (Accumulate). dK and dV accumulate per key for the whole unit;
// dQ per query tile.
template <int NV>
__attribute__((always_inline)) inline void BackwardHeadBody(const BackwardContext& x, int64_t bg) {
  const TeAttentionConfig& c = *x.config;
  const int64_t H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim, group = H / G;
  const int64_t b = bg / G, g = bg % G;
  const int64_t dq_pad = RoundUp(Dqk, kNr), dv_pad = RoundUp(Dv, kNr);
  const int64_t skv_pad = RoundUp(Skv, kFwdCols);
  const float scale = static_cast<float>(c.scale);
  const int64_t q_len = (*x.q_len)[b], kv_len = (*x.kv_len)[b];
  // K^T and V^T for the score products, K rows for dQ, all zero-padded,
  // hidden keys and query rows (padding) included: their weight is 0, and
  // 0 * (whatever the padding holds, NaN included) must stay 0.
  std::vector<float> kt(dq_pad * skv_pad), vt(dv_pad * skv_pad), kp(skv_pad * dq_pad);
  PackRows(x.k + bg * Skv * Dqk, kv_len, Dqk, kt.data(), skv_pad, dq_pad, /*transpose=*/true);
  PackRows(x.v + bg * Skv * Dv, kv_len, Dv, vt.data(), skv_pad, dv_pad, /*transpose=*/true);
  PackRows(x.k + bg * Skv * Dqk, kv_len, Dqk, kp.data(), skv_pad, dq_pad, /*transpose=*/false);
  std::vector<float> dk_acc(skv_pad * dq_pad, 0.0f), dv_acc(skv_pad * dv_pad, 0.0f);
  std::vector<float> qp(kFwdRows * dq_pad), dop(kFwdRows * dv_pad), dq_acc(kFwdRows * dq_pad);
  alignas(64) float s[kFwdRows * kFwdCols], dp[kFwdRows * kFwdCols];
  alignas(64) float pt[kFwdCols * kFwdRows], dst[kFwdCols * kFwdRows];
  for (int64_t h = g * group; h < (g + 1) * group; ++h) {
    const int64_t bh = b * H + h;
    for (int64_t i0 = 0; i0 < Sq; i0 += kFwdRows) {
      const int64_t rows = std::min(kFwdRows, Sq - i0);
      if (c.padding && i0 >= q_len) break;
      const int64_t valid = std::min(rows, q_len - i0);
      PackRows(x.q + (bh * Sq + i0) * Dqk, valid, Dqk, qp.data(), kFwdRows, dq_pad, false);
      PackRows(x.dout + (bh * Sq + i0) * Dv, valid, Dv, dop.data(), kFwdRows, dv_pad, false);
      std::fill(dq_acc.begin(), dq_acc.end(), 0.0f);
      for (int64_t j0 = 0; j0 < Skv; j0 += kFwdCols) {
        if (c.causal && j0 > i0 + rows - 1) break;
        if (c.padding && j0 >= kv_len) break;
        TileScores<NV>(qp.data(), kt.data() + j0, dq_pad, skv_pad, s);
        TileScores<NV>(dop.data(), vt.data() + j0, dv_pad, skv_pad, dp);
        const int64_t cols = std::min(kFwdCols, Skv - j0);
        for (int64_t r = 0; r < kFwdRows; ++r) {
          const int64_t i = i0 + r;
          int64_t visible = r < rows ? cols : 0;
          if (c.causal) visible = std::min(visible, std::max<int64_t>(i - j0 + 1, 0));
          if (c.padding) {
            if (i >= q_len) visible = 0;
            visible = std::min(visible, std::max<int64_t>(kv_len - j0, 0));
          }
          const float lse = visible > 0 ? x.stats[bh * Sq + i] : 0.0f;
          const float d = visible > 0 ? x.delta[bh * Sq + i] : 0.0f;
          float* sr = s + r * kFwdCols;
          const float* dpr = dp + r * kFwdCols;
          for (int64_t cc = 0; cc < kFwdCols; ++cc) {
            const float p = cc < visible ? VectorExp(scale * sr[cc] - lse) : 0.0f;
            const float ds = cc < visible ? scale * p * (dpr[cc] - d) : 0.0f;
            sr[cc] = ds;  // dS, for dQ
            pt[cc * kFwdRows + r] = p;
            dst[cc * kFwdRows + r] = ds;
          }
        }
        Accumulate<kFwdRows, kFwdCols, NV>(s, kp.data() + j0 * dq_pad, dq_pad, dq_acc.data());
        Accumulate<kFwdCols, kFwdRows, NV>(pt, dop.data(), dv_pad, dv_acc.data() + j0 * dv_pad);
        Accumulate<kFwdCols, kFwdRows, NV>(dst, qp.data(), dq_pad, dk_acc.data() + j0 * dq_pad);
      }
      for (int64_t r = 0; r < rows; ++r) {
        std::copy(&dq_acc[r * dq_pad], &dq_acc[r * dq_pad] + Dqk, x.dq + (bh * Sq + i0 + r) * Dqk);
      }
    }
  }
  for (int64_t j = 0; j < Skv; ++j) {
    std::copy(&dk_acc[j * dq_pad], &dk_acc[j * dq_pad] + Dqk, x.dk + (bg * Skv + j) * Dqk);
    std::copy(&dv_acc[j * dv_pad], &dv_acc[j * dv_pad] + Dv, x.dv + (bg * Skv + j) * Dv);
  }
}

using BackwardHeadFn = void (*)(const BackwardContext&, int64_t);

// The three builds (PickBuild).
void BackwardHeadDefault(const BackwardContext& x, int64_t bg) { BackwardHeadBody<1>(x, bg); }
XLA_ATTENTION_V4 void BackwardHeadV4(const BackwardContext& x, int64_t bg) {
  BackwardHeadBody<4>(x, bg);
}
XLA_ATTENTION_V3 void BackwardHeadV3(const BackwardContext& x, int64_t bg) {
  BackwardHeadBody<1>(x, bg);
}

// The host kernel ABI's entry point for the backward units (buffers[0] is
// the BackwardContext, buffers[1] the BackwardHeadFn).
void BackwardUnits(void* const* buffers, int64_t, int64_t begin, int64_t end) {
  const auto& x = *static_cast<const BackwardContext*>(buffers[0]);
  const BackwardHeadFn head = *static_cast<const BackwardHeadFn*>(buffers[1]);
  for (int64_t unit = begin; unit < end; ++unit) head(x, unit);
}

absl::Status RunBackward(const Call& call) {
  const TeAttentionConfig& c = call.config;
  Lengths q_len, kv_len;
  if (absl::Status s = call.GetLengths(&q_len, &kv_len); !s.ok()) return s;
  const int64_t B = c.batch, H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
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
  // D_i = dO_i . O_i: the softmax gradient's row term.
  std::vector<float> delta(static_cast<size_t>(B * H * Sq));
  for (int64_t r = 0; r < B * H * Sq; ++r) delta[r] = Dot(&dout[r * Dv], &o[r * Dv], Dv);
  // Zero-initialized: rows that see no key keep gradient 0.
  std::vector<float> dq(q.size()), dk(k.size()), dv(v.size());
  BackwardContext x{&c,
                    &q_len,
                    &kv_len,
                    q.data(),
                    k.data(),
                    v.data(),
                    dout.data(),
                    static_cast<const float*>(call.operands[kBwdSoftmaxAux].opaque),
                    delta.data(),
                    dq.data(),
                    dk.data(),
                    dv.data()};
  BackwardHeadFn head =
      PickBuild<BackwardHeadFn>(&BackwardHeadV4, &BackwardHeadV3, &BackwardHeadDefault);
  void* const buffers[] = {&x, &head};
  RunUnits(call, &BackwardUnits, buffers, 2, B * G);
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
