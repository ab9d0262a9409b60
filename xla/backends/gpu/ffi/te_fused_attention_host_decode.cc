#include "xla/backends/gpu/ffi/te_fused_attention_host_decode.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/types/span.h"
#include "xla/backends/gpu/ffi/te_fused_attention_host_simd.h"
#include "xla/stream_executor/host/host_launch.h"

namespace xla::gpu::ffi {
namespace {

using namespace attention_host;  // NOLINT: the kernels' own building blocks

// Keys per block: the scores of a block are kTeDecodeRows x kFwdCols f32
// on the stack, and SoftmaxRow's step is over kFwdCols keys.
constexpr int64_t kKeys = kFwdCols;
constexpr int64_t kMaxPad = kTeDecodeMaxHeadDim;  // a multiple of kNr

// What every unit reads: the call, and its sizes in units. A unit is one
// key chunk of one row pass of one (batch, kv head): unit / splits is the
// (batch, kv head, pass), unit % splits the chunk.
struct DecodeContext {
  const TeForwardBuffers* x;
  int64_t group;       // query heads per key/value head
  int64_t rows;        // group * Sq: the query rows of one (batch, kv head)
  int64_t row_passes;  // ceil(rows / kTeDecodeRows)
  int64_t pass_rows;   // min(rows, kTeDecodeRows): the most rows of one pass
  int64_t dq_pad, dv_pad;
  bool k_direct, v_direct;  // f32 rows of whole vectors: read in place
  // Key chunks per (batch, kv head, pass), and keys per chunk (a multiple
  // of kKeys). 1 and kv_seqlen: no split, each unit writes its rows.
  int64_t splits, chunk;
  // With splits > 1: each unit's rows' partial states (PartialAt), which
  // CombinePartials turns into the output and stats.
  float* partials;
};

// Floats of one row's partial state: its max, its sum, then dv_pad
// accumulators (unnormalized: sum over its keys of exp(s - max) v).
inline int64_t PartialFloats(const DecodeContext& d) { return 2 + d.dv_pad; }

// Row r of unit `unit`'s partial state.
inline float* PartialAt(const DecodeContext& d, int64_t unit, int64_t r) {
  return d.partials + (unit * d.pass_rows + r) * PartialFloats(d);
}

// kNr lanes added as a tree (halves, then quarters): the few shuffles of
// a horizontal sum instead of kNr dependent scalar adds.
typedef float Vec8 __attribute__((vector_size(8 * sizeof(float))));
typedef float Vec4 __attribute__((vector_size(4 * sizeof(float))));
__attribute__((always_inline)) inline float TreeSum(const VecNr& x) {
  Vec8 lo, hi;
  std::memcpy(&lo, &x, sizeof(lo));
  std::memcpy(&hi, reinterpret_cast<const char*>(&x) + sizeof(lo), sizeof(hi));
  const Vec8 s8 = lo + hi;
  Vec4 a, b;
  std::memcpy(&a, &s8, sizeof(a));
  std::memcpy(&b, reinterpret_cast<const char*>(&s8) + sizeof(a), sizeof(b));
  const Vec4 s4 = a + b;
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

// q . k over `pad` lanes (a multiple of kNr; both zero past the head dim).
__attribute__((always_inline)) inline float RowDot(const float* q, const float* k, int64_t pad) {
  VecNr acc = {};
  for (int64_t d = 0; d < pad; d += kNr) {
    VecNr a, b;
    XLA_LOAD_NR(a, q + d);
    XLA_LOAD_NR(b, k + d);
    acc += a * b;
  }
  return TreeSum(acc);
}

// acc[0:pad] += p * v[0:pad].
__attribute__((always_inline)) inline void AddScaled(float p, const float* v, int64_t pad,
                                                     float* acc) {
  for (int64_t d = 0; d < pad; d += kNr) {
    VecNr a, b;
    XLA_LOAD_NR(a, acc + d);
    XLA_LOAD_NR(b, v + d);
    a += p * b;
    XLA_STORE_NR(acc + d, a);
  }
}

// Row `offset` of a K or V operand as f32 lanes: in place when `direct`,
// else converted into `buf` (whose lanes past `dim` stay zero).
__attribute__((always_inline)) inline const float* KvRow(const void* data, PrimitiveType type,
                                                         int64_t offset, int64_t dim, bool direct,
                                                         float* buf) {
  if (direct) return static_cast<const float*>(data) + offset;
  LoadRow(data, type, offset, dim, 1.0f, buf, 1);
  return buf;
}

// The keys query row `i` of batch `b` sees: a prefix (causal: top-left,
// padding: the sequence's lengths).
int64_t VisibleKeys(const TeForwardBuffers& x, int64_t b, int64_t i) {
  const TeAttentionConfig& c = *x.config;
  int64_t visible = c.kv_seqlen;
  if (c.causal) visible = std::min(visible, i + 1);
  if (c.padding) visible = i >= x.q_len[b] ? 0 : std::min(visible, x.kv_len[b]);
  return visible;
}

// Query row i of head h, batch b, from its online-softmax state: the
// accumulator `acc` (Dv lanes, unnormalized), the row's max and sum. A row
// that saw no key (sum 0) gets output 0 and stats 0.
void WriteRow(const TeForwardBuffers& x, int64_t b, int64_t h, int64_t i, const float* acc,
              float row_max, float row_sum) {
  const TeAttentionConfig& c = *x.config;
  const int64_t Dv = c.v_head_dim;
  const float inv = row_sum > 0 ? 1.0f / row_sum : 0.0f;
  const int64_t base = c.o.At(b, i, h);
  if (x.type == PrimitiveType::F32) {
    float* o = static_cast<float*>(x.out) + base;
    for (int64_t e = 0; e < Dv; ++e) o[e] = acc[e] * inv;
  } else {
    for (int64_t e = 0; e < Dv; ++e) StoreElement(x.out, x.type, base + e, acc[e] * inv);
  }
  x.stats[(b * c.heads + h) * c.q_seqlen + i] = row_sum > 0 ? row_max + std::log(row_sum) : 0.0f;
}

// One unit: batch b, key/value head g, rows [r0, r0 + nr) of the group's
// `rows` (row r is query head g * group + r / Sq, position r % Sq), keys
// [key_begin, key_begin + chunk) of those the rows see. Writes the rows
// (one chunk), or their partial states for CombinePartials. Inlined into each ISA build below, whose vector width it then uses.
__attribute__((always_inline)) inline void DecodeUnitBody(const DecodeContext& d, int64_t unit) {
  const TeForwardBuffers& x = *d.x;
  const TeAttentionConfig& c = *x.config;
  const int64_t G = c.kv_heads, Sq = c.q_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const int64_t pass_unit = unit / d.splits;
  const int64_t bg = pass_unit / d.row_passes, b = bg / G, g = bg % G;
  const int64_t r0 = (pass_unit % d.row_passes) * kTeDecodeRows;
  // This unit's keys: [key_begin, key_begin + chunk), of those each row sees.
  const int64_t key_begin = (unit % d.splits) * d.chunk;
  const int64_t nr = std::min(kTeDecodeRows, d.rows - r0);
  alignas(64) float q[kTeDecodeRows * kMaxPad];
  alignas(64) float acc[kTeDecodeRows * kMaxPad];
  alignas(64) float s[kTeDecodeRows * kKeys];
  alignas(64) float kbuf[kMaxPad], vbuf[kMaxPad];
  float row_max[kTeDecodeRows], row_sum[kTeDecodeRows];
  int64_t visible[kTeDecodeRows];
  int64_t keys = 0;  // the most any row sees
  for (int64_t r = 0; r < nr; ++r) {
    const int64_t h = g * d.group + (r0 + r) / Sq, i = (r0 + r) % Sq;
    float* qr = q + r * d.dq_pad;
    std::fill(qr + Dqk, qr + d.dq_pad, 0.0f);
    LoadRow(x.q, x.type, c.q.At(b, i, h), Dqk, static_cast<float>(c.scale), qr, 1);
    std::fill(acc + r * d.dv_pad, acc + (r + 1) * d.dv_pad, 0.0f);
    row_max[r] = -std::numeric_limits<float>::infinity();
    row_sum[r] = 0.0f;
    visible[r] = VisibleKeys(x, b, i);
    keys = std::max(keys, visible[r]);
  }
  keys = std::min(keys, key_begin + d.chunk);
  if (!d.k_direct) std::fill(kbuf + Dqk, kbuf + d.dq_pad, 0.0f);
  if (!d.v_direct) std::fill(vbuf + Dv, vbuf + d.dv_pad, 0.0f);
  for (int64_t j0 = key_begin; j0 < keys; j0 += kKeys) {
    const int64_t nk = std::min(kKeys, keys - j0);
    for (int64_t jj = 0; jj < nk; ++jj) {
      const float* k = KvRow(x.k, x.type, c.k.At(b, j0 + jj, g), Dqk, d.k_direct, kbuf);
      for (int64_t r = 0; r < nr; ++r) s[r * kKeys + jj] = RowDot(q + r * d.dq_pad, k, d.dq_pad);
    }
    int64_t seen[kTeDecodeRows];  // keys of this block row r sees
    for (int64_t r = 0; r < nr; ++r) {
      seen[r] = std::clamp<int64_t>(visible[r] - j0, 0, nk);
      SoftmaxRow(s + r * kKeys, seen[r], row_max[r], row_sum[r], acc + r * d.dv_pad, d.dv_pad);
    }
    for (int64_t jj = 0; jj < nk; ++jj) {
      const float* v = KvRow(x.v, x.type, c.v.At(b, j0 + jj, g), Dv, d.v_direct, vbuf);
      for (int64_t r = 0; r < nr; ++r) {
        // A key a row does not see is never multiplied (0 * inf is NaN).
        if (jj < seen[r]) AddScaled(s[r * kKeys + jj], v, d.dv_pad, acc + r * d.dv_pad);
      }
    }
  }
  for (int64_t r = 0; r < nr; ++r) {
    const float* a = acc + r * d.dv_pad;
    if (d.splits == 1) {
      WriteRow(x, b, g * d.group + (r0 + r) / Sq, (r0 + r) % Sq, a, row_max[r], row_sum[r]);
      continue;
    }
    float* partial = PartialAt(d, unit, r);
    partial[0] = row_max[r];
    partial[1] = row_sum[r];
    std::copy(a, a + d.dv_pad, partial + 2);
  }
}

// The partial states of every key chunk of (batch, kv head, pass)
// `pass_unit`, combined exactly as one pass over all the keys would have
// left them: the largest max M, the sums rescaled by exp(max - M) and
// added, the accumulators likewise; then written like an unsplit row. A
// chunk whose row saw no key (sum 0, max -inf) weighs nothing.
void CombinePartials(const DecodeContext& d, int64_t pass_unit) {
  const TeForwardBuffers& x = *d.x;
  const TeAttentionConfig& c = *x.config;
  const int64_t G = c.kv_heads, Sq = c.q_seqlen;
  const int64_t bg = pass_unit / d.row_passes, b = bg / G, g = bg % G;
  const int64_t r0 = (pass_unit % d.row_passes) * kTeDecodeRows;
  const int64_t nr = std::min(kTeDecodeRows, d.rows - r0);
  const int64_t first = pass_unit * d.splits;
  alignas(64) float acc[kMaxPad];
  for (int64_t r = 0; r < nr; ++r) {
    float row_max = kNegInf;
    for (int64_t s = 0; s < d.splits; ++s) {
      const float* p = PartialAt(d, first + s, r);
      if (p[1] > 0) row_max = std::max(row_max, p[0]);
    }
    float row_sum = 0.0f;
    std::fill(acc, acc + d.dv_pad, 0.0f);
    for (int64_t s = 0; s < d.splits; ++s) {
      const float* p = PartialAt(d, first + s, r);
      if (!(p[1] > 0)) continue;  // saw no key: max -inf, exp(-inf - -inf) is NaN
      const float w = std::exp(p[0] - row_max);
      row_sum += w * p[1];
      for (int64_t e = 0; e < d.dv_pad; ++e) acc[e] += w * p[2 + e];
    }
    WriteRow(x, b, g * d.group + (r0 + r) / Sq, (r0 + r) % Sq, acc, row_max, row_sum);
  }
}

using DecodeUnitFn = void (*)(const DecodeContext&, int64_t);

// The three builds (PickBuild).
void DecodeUnitDefault(const DecodeContext& d, int64_t unit) { DecodeUnitBody(d, unit); }
XLA_ATTENTION_V4 void DecodeUnitV4(const DecodeContext& d, int64_t unit) {
  DecodeUnitBody(d, unit);
}
XLA_ATTENTION_V3 void DecodeUnitV3(const DecodeContext& d, int64_t unit) {
  DecodeUnitBody(d, unit);
}

// The host kernel ABI's entry point (buffers[0] is the DecodeContext,
// buffers[1] the DecodeUnitFn).
void DecodeUnits(void* const* buffers, int64_t, int64_t begin, int64_t end) {
  const auto& d = *static_cast<const DecodeContext*>(buffers[0]);
  const DecodeUnitFn unit_fn = *static_cast<const DecodeUnitFn*>(buffers[1]);
  for (int64_t unit = begin; unit < end; ++unit) unit_fn(d, unit);
}

// How many key chunks each (batch, kv head, pass) of `d` takes: more than
// 1 only when the call has fewer units than the launch wants to share out
// (kMinSharedBlocks, two per worker), enough keys for chunks of
// kTeDecodeMinChunkKeys, and room for the partial states in
// kTeDecodePartialFloats.
int64_t KeySplits(const DecodeContext& d, int64_t units, int64_t workers) {
  const TeAttentionConfig& c = *d.x->config;
  const int64_t wanted = std::max<int64_t>(stream_executor::host::kMinSharedBlocks, 2 * workers);
  if (units >= wanted) return 1;
  const int64_t by_units = (wanted + units - 1) / units;
  const int64_t by_keys = c.kv_seqlen / kTeDecodeMinChunkKeys;
  const int64_t by_room = kTeDecodePartialFloats / (units * d.pass_rows * PartialFloats(d));
  return std::max<int64_t>(1, std::min({by_units, by_keys, by_room}));
}

}  // namespace

bool TeDecodeTakes(const TeAttentionConfig& config) {
  return config.q_seqlen >= 1 && config.q_seqlen <= kTeDecodeMaxQueries &&
         config.qk_head_dim <= kTeDecodeMaxHeadDim && config.v_head_dim <= kTeDecodeMaxHeadDim;
}

void RunTeDecodeForward(const TeForwardBuffers& x, stream_executor::host::HostThreadPool* pool) {
  const TeAttentionConfig& c = *x.config;
  const int64_t group = c.heads / c.kv_heads, rows = group * c.q_seqlen;
  const int64_t dq_pad = RoundUp(c.qk_head_dim, kNr), dv_pad = RoundUp(c.v_head_dim, kNr);
  const bool f32 = x.type == PrimitiveType::F32;
  // The partial states of a split call: on this thread's stack, which
  // outlives the launch (RunHostKernel returns when every block has run).
  alignas(64) float partials[kTeDecodePartialFloats];
  DecodeContext d{&x,
                  group,
                  rows,
                  (rows + kTeDecodeRows - 1) / kTeDecodeRows,
                  std::min(rows, kTeDecodeRows),
                  dq_pad,
                  dv_pad,
                  f32 && dq_pad == c.qk_head_dim,
                  f32 && dv_pad == c.v_head_dim,
                  /*splits=*/1,
                  /*chunk=*/c.kv_seqlen,
                  partials};
  const int64_t pass_units = c.batch * c.kv_heads * d.row_passes;
  DecodeUnitFn unit_fn = PickBuild<DecodeUnitFn>(&DecodeUnitV4, &DecodeUnitV3, &DecodeUnitDefault);
  const int64_t macs =
      c.batch * c.heads * c.q_seqlen * c.kv_seqlen * (c.qk_head_dim + c.v_head_dim);
  if (pool == nullptr || macs < kTeDecodeInlineMacs) {
    for (int64_t unit = 0; unit < pass_units; ++unit) unit_fn(d, unit);
    return;
  }
  d.splits = KeySplits(d, pass_units, pool->num_threads() + 1);
  if (d.splits > 1) {
    d.chunk = RoundUp((c.kv_seqlen + d.splits - 1) / d.splits, kKeys);
    d.splits = (c.kv_seqlen + d.chunk - 1) / d.chunk;  // rounding may leave fewer
  }
  void* const buffers[] = {&d, &unit_fn};
  stream_executor::host::RunHostKernel(&DecodeUnits, absl::MakeConstSpan(buffers, 2),
                                       pass_units * d.splits, *pool);
  if (d.splits == 1) return;
  // A few rows of Dv each: less than waking a pool thread costs.
  for (int64_t unit = 0; unit < pass_units; ++unit) CombinePartials(d, unit);
}

}  // namespace xla::gpu::ffi
