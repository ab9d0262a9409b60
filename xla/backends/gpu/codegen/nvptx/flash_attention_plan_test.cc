// A host model of the NVPTX forward fused-attention kernel, built from the
// plan's tiles and fragment index functions (the ones the emitter uses),
// run warp by warp and lane by lane, against plain attention in f64 at odd
// sizes. The tensor-core instruction itself is modelled from the PTX ISA's
// element-wise description of the m16n8k16 fragments (MmaReference), which
// shares no code with the plan's per-register functions: a wrong lane or
// register mapping in the plan gives wrong numbers here.
#include "xla/backends/gpu/codegen/nvptx/flash_attention_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// bf16 round to nearest even, as float.
float Bf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000u;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

// Per lane: 8 A elements, 4 B elements, 4 C elements (PTX ISA names).
using WarpA = std::array<std::array<float, 8>, 32>;
using WarpB = std::array<std::array<float, 4>, 32>;
using WarpC = std::array<std::array<float, 4>, 32>;

// mma.m16n8k16 (.bf16/.f16, f32 accumulate) as the PTX ISA describes the
// fragments element by element: for a_i, row groupID (+8 for i in
// {2,3,6,7}), column threadID_in_group*2 + (i & 1) (+8 for i >= 4); for
// b_i, row threadID_in_group*2 + (i & 1) (+8 for i >= 2), column groupID;
// for c_i, row groupID (+8 for i >= 2), column threadID_in_group*2 +
// (i & 1).
WarpC MmaReference(const WarpA& a, const WarpB& b, const WarpC& c) {
  float A[16][16], B[16][8], Cm[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int group = lane >> 2, tig = lane % 4;
    for (int i = 0; i < 8; ++i) {
      const bool low_row = i == 0 || i == 1 || i == 4 || i == 5;
      A[low_row ? group : group + 8][tig * 2 + (i & 1) + (i >= 4 ? 8 : 0)] = a[lane][i];
    }
    for (int i = 0; i < 4; ++i) {
      B[tig * 2 + (i & 1) + (i >= 2 ? 8 : 0)][group] = b[lane][i];
      Cm[i < 2 ? group : group + 8][tig * 2 + (i & 1)] = c[lane][i];
    }
  }
  WarpC d;
  for (int lane = 0; lane < 32; ++lane) {
    const int group = lane >> 2, tig = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = i < 2 ? group : group + 8, col = tig * 2 + (i & 1);
      float sum = Cm[row][col];
      for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
      d[lane][i] = sum;
    }
  }
  return d;
}

// Shared memory as 16-bit elements (held as floats).
struct Smem {
  std::vector<float> elems;
  explicit Smem(int64_t bytes) : elems(bytes / 2, std::nanf("")) {}
  float& At(const SmemTile& tile, int64_t row, int64_t col) {
    return elems.at(tile.offset / 2 + tile.Element(row, col));
  }
  // A 32-bit load: elements (row, col) and (row, col + 1).
  std::array<float, 2> Load32(const SmemTile& tile, int64_t row, int64_t col) {
    return {At(tile, row, col), At(tile, row, col + 1)};
  }
};

// A [batch, seq, heads, dim] tensor in a flat buffer, values in bf16.
struct Tensor {
  ffi::TeTensorView view;
  std::vector<float>* data;
  float At(int64_t b, int64_t s, int64_t h, int64_t d) const {
    return (*data)[view.At(b, s, h) + d];
  }
};

// The kernel's tile load: 16-byte chunks, thread `idx` -> (row, chunk),
// rows at or beyond `limit` and columns at or beyond `dim` as zeros.
void LoadTile(Smem& smem, const Tensor& src, int64_t b, int64_t h, int64_t row0, int64_t limit,
              int64_t dim, int64_t pad, int64_t rows, const SmemTile* tile,
              const SmemTile* transposed) {
  const int64_t per_row = pad / kChunkElems;
  for (int64_t idx = 0; idx < rows * per_row; ++idx) {
    const int64_t row = idx / per_row, col = (idx % per_row) * kChunkElems;
    const bool valid = row0 + row < limit && col < dim;
    for (int64_t e = 0; e < kChunkElems; ++e) {
      const float v = valid ? src.At(b, row0 + row, h, col + e) : 0.0f;
      if (tile != nullptr) smem.At(*tile, row, col + e) = v;
      if (transposed != nullptr) smem.At(*transposed, col + e, row) = v;
    }
  }
}

struct Problem {
  ffi::TeAttentionConfig config;
  std::vector<float> q, k, v;  // operands 0..2 (bf16 values)
  std::vector<int64_t> q_len, kv_len;
  // Backward only: the forward's output (bf16 values) and statistics, and
  // the output gradient, laid out like the output.
  std::vector<float> o, stats, dout;
  Tensor Operand(const ffi::TeTensorView& view) const {
    const std::vector<float>* ops[3] = {&q, &k, &v};
    return Tensor{view, const_cast<std::vector<float>*>(ops[view.operand])};
  }
};

// A warp's A fragments: per lane, per 16-column slice, 4 registers.
using LaneA = std::vector<std::array<std::array<float, 2>, 4>>;
using WarpFrags = std::array<LaneA, 32>;

// The emitter's LoadA: rows [row0, row0 + 16) of `tile`, `cols` wide.
WarpFrags LoadAModel(Smem& smem, const SmemTile& tile, int64_t row0, int64_t cols) {
  WarpFrags a;
  for (int64_t lane = 0; lane < 32; ++lane) {
    const int64_t g = lane / 4, t = lane % 4;
    a[lane].resize(cols / kMmaK);
    for (int64_t ks = 0; ks < cols / kMmaK; ++ks) {
      for (int r = 0; r < 4; ++r) {
        a[lane][ks][r] = smem.Load32(tile, row0 + MmaARow(g, r), MmaACol(t, r) + ks * kMmaK);
      }
    }
  }
  return a;
}

// The emitter's MmaRowMajorB: acc[nt] += A * B with B(k, n) = tile[nt * 8 + n][k].
void MmaRowMajorBModel(const WarpFrags& a, Smem& smem, const SmemTile& tile,
                       std::vector<WarpC>& acc) {
  for (size_t nt = 0; nt < acc.size(); ++nt) {
    for (size_t ks = 0; ks < a[0].size(); ++ks) {
      WarpA af;
      WarpB bf;
      for (int64_t lane = 0; lane < 32; ++lane) {
        const int64_t g = lane / 4, t = lane % 4;
        for (int r = 0; r < 4; ++r) {
          af[lane][2 * r] = a[lane][ks][r][0];
          af[lane][2 * r + 1] = a[lane][ks][r][1];
        }
        for (int r = 0; r < 2; ++r) {
          const std::array<float, 2> x = smem.Load32(
              tile, MmaBN(g) + static_cast<int64_t>(nt) * kMmaN,
              MmaBK(t, r) + static_cast<int64_t>(ks) * kMmaK);
          bf[lane][2 * r] = x[0];
          bf[lane][2 * r + 1] = x[1];
        }
      }
      acc[nt] = MmaReference(af, bf, acc[nt]);
    }
  }
}

// The emitter's AccToA: accumulators as A fragments, rounded to bf16.
WarpFrags AccToAModel(const std::vector<WarpC>& acc) {
  WarpFrags a;
  for (int64_t lane = 0; lane < 32; ++lane) {
    a[lane].resize(acc.size() / 2);
    for (size_t ks = 0; ks < acc.size() / 2; ++ks) {
      for (int r = 0; r < 4; ++r) {
        const WarpC& tile = acc[2 * ks + MmaCTileOfA(r)];
        a[lane][ks][r] = {Bf16(tile[lane][MmaCElemOfA(r)]), Bf16(tile[lane][MmaCElemOfA(r) + 1])};
      }
    }
  }
  return a;
}

// The emitter's StoreRows for one warp: rows below `limit`, columns below
// `dim`, times `mul`.
void StoreRowsModel(const std::vector<WarpC>& acc, int64_t w, double mul, int64_t row0,
                    int64_t limit, int64_t dim, const std::function<float&(int64_t, int64_t)>& at) {
  for (int64_t lane = 0; lane < 32; ++lane) {
    const int64_t g = lane / 4, t = lane % 4;
    for (int e = 0; e < 4; ++e) {
      const int64_t row = row0 + w * kMmaM + MmaCRow(g, e);
      if (row >= limit) continue;
      for (int64_t nt = 0; nt * kMmaN < dim; ++nt) {
        at(row, MmaCCol(t, e) + nt * kMmaN) = static_cast<float>(acc[nt][lane][e] * mul);
      }
    }
  }
}

// D = dout . O for the rows of a dout tile in shared memory (rows at or
// beyond Sq: 0), as RowDots computes it (summation order aside).
std::vector<float> RowDotsModel(const Problem& p, Smem& smem, const SmemTile& dout, int64_t b,
                                int64_t h, int64_t row0) {
  const ffi::TeAttentionConfig& c = p.config;
  std::vector<float> d(dout.rows, 0.0f);
  for (int64_t row = 0; row < dout.rows; ++row) {
    if (row0 + row >= c.q_seqlen) continue;
    for (int64_t k = 0; k < c.v_head_dim; ++k) {
      d[row] += p.o[c.o.At(b, row0 + row, h) + k] * smem.At(dout, row, k);
    }
  }
  return d;
}

// The backward kernels' statistic for query `row` of head `h`, base 2.
float Stat2(const Problem& p, int64_t b, int64_t h, int64_t row, int64_t q_len) {
  const ffi::TeAttentionConfig& c = p.config;
  return row < q_len ? static_cast<float>(p.stats[(b * c.heads + h) * c.q_seqlen + row] * M_LOG2E)
                     : 0.0f;
}

// The dq kernel's CTA (q_tile, h, b).
void ModelDqCta(const FlashAttentionPlan& plan, const Problem& p, int64_t q_tile, int64_t h,
                int64_t b, std::vector<float>& dq) {
  const ffi::TeAttentionConfig& c = p.config;
  const int64_t R = plan.block_rows, C = plan.block_cols, hk = c.KvHead(h);
  const int64_t q_start = q_tile * R, q_len = p.q_len[b], kv_len = p.kv_len[b];
  const Tensor dout{c.o, const_cast<std::vector<float>*>(&p.dout)};
  Smem smem(plan.smem_bytes);
  LoadTile(smem, p.Operand(c.q), b, h, q_start, c.q_seqlen, c.qk_head_dim, plan.qk_pad, R, &plan.q,
           nullptr);
  LoadTile(smem, dout, b, h, q_start, c.q_seqlen, c.v_head_dim, plan.v_pad, R, &plan.dout, nullptr);
  const std::vector<float> d = RowDotsModel(p, smem, plan.dout, b, h, q_start);
  std::vector<WarpFrags> qa, da;
  std::vector<std::vector<WarpC>> acc(kFlashWarps, std::vector<WarpC>(plan.qk_pad / kMmaN, WarpC{}));
  for (int64_t w = 0; w < kFlashWarps; ++w) {
    qa.push_back(LoadAModel(smem, plan.q, w * kMmaM, plan.qk_pad));
    da.push_back(LoadAModel(smem, plan.dout, w * kMmaM, plan.v_pad));
  }
  const auto min = [](int64_t x, int64_t y) { return std::min(x, y); };
  const int64_t tiles =
      q_start < q_len ? FlashKvTileCount(q_start, kv_len, c.causal, R, C, min) : 0;
  const double scale2 = c.scale * M_LOG2E;
  for (int64_t kt = 0; kt < tiles; ++kt) {
    const int64_t kv_start = kt * C;
    LoadTile(smem, p.Operand(c.k), b, hk, kv_start, kv_len, c.qk_head_dim, plan.qk_pad, C, &plan.k,
             &plan.kt);
    LoadTile(smem, p.Operand(c.v), b, hk, kv_start, kv_len, c.v_head_dim, plan.v_pad, C, &plan.v,
             nullptr);
    for (int64_t w = 0; w < kFlashWarps; ++w) {
      std::vector<WarpC> s(C / kMmaN, WarpC{}), dp(C / kMmaN, WarpC{});
      MmaRowMajorBModel(qa[w], smem, plan.k, s);
      MmaRowMajorBModel(da[w], smem, plan.v, dp);
      for (int64_t lane = 0; lane < 32; ++lane) {
        const int64_t g = lane / 4, t = lane % 4;
        for (int64_t nt = 0; nt < C / kMmaN; ++nt) {
          for (int e = 0; e < 4; ++e) {
            const int64_t local = w * kMmaM + MmaCRow(g, e), i = q_start + local;
            const int64_t j = kv_start + MmaCCol(t, e) + nt * kMmaN;
            const bool visible = j < kv_len && i < q_len && (!c.causal || j <= i);
            const float pr = visible ? std::exp2(static_cast<float>(s[nt][lane][e] * scale2) -
                                                 Stat2(p, b, h, i, c.q_seqlen))
                                     : 0.0f;
            s[nt][lane][e] = pr * (dp[nt][lane][e] - d[local]);
          }
        }
      }
      MmaRowMajorBModel(AccToAModel(s), smem, plan.kt, acc[w]);
    }
  }
  for (int64_t w = 0; w < kFlashWarps; ++w) {
    StoreRowsModel(acc[w], w, c.scale, q_start, c.q_seqlen, c.qk_head_dim,
                   [&](int64_t row, int64_t col) -> float& { return dq.at(c.q.At(b, row, h) + col); });
  }
}

// The dkdv kernel's CTA (k_tile, hk, b); dk and dv are laid out like the
// K and V views' operands.
void ModelDkDvCta(const FlashAttentionPlan& plan, const Problem& p, int64_t k_tile, int64_t hk,
                  int64_t b, std::vector<float>& dk, std::vector<float>& dv) {
  const ffi::TeAttentionConfig& c = p.config;
  const int64_t R = plan.block_rows, C = plan.block_cols, ratio = c.heads / c.kv_heads;
  const int64_t k_start = k_tile * R, q_len = p.q_len[b], kv_len = p.kv_len[b];
  const Tensor dout{c.o, const_cast<std::vector<float>*>(&p.dout)};
  Smem smem(plan.smem_bytes);
  LoadTile(smem, p.Operand(c.k), b, hk, k_start, kv_len, c.qk_head_dim, plan.qk_pad, R, &plan.k,
           nullptr);
  LoadTile(smem, p.Operand(c.v), b, hk, k_start, kv_len, c.v_head_dim, plan.v_pad, R, &plan.v,
           nullptr);
  std::vector<WarpFrags> ka, va;
  std::vector<std::vector<WarpC>> gk(kFlashWarps, std::vector<WarpC>(plan.qk_pad / kMmaN, WarpC{}));
  std::vector<std::vector<WarpC>> gv(kFlashWarps, std::vector<WarpC>(plan.v_pad / kMmaN, WarpC{}));
  for (int64_t w = 0; w < kFlashWarps; ++w) {
    ka.push_back(LoadAModel(smem, plan.k, w * kMmaM, plan.qk_pad));
    va.push_back(LoadAModel(smem, plan.v, w * kMmaM, plan.v_pad));
  }
  const int64_t first = c.causal ? k_start / C : 0;
  const int64_t q_tiles = k_start < kv_len ? std::max<int64_t>(0, (q_len + C - 1) / C - first) : 0;
  const double scale2 = c.scale * M_LOG2E;
  for (int64_t hh = 0; hh < ratio; ++hh) {
    const int64_t h = hk * ratio + hh;
    for (int64_t it = 0; it < q_tiles; ++it) {
      const int64_t q_start = (first + it) * C;
      LoadTile(smem, p.Operand(c.q), b, h, q_start, q_len, c.qk_head_dim, plan.qk_pad, C, &plan.q,
               &plan.qt);
      LoadTile(smem, dout, b, h, q_start, q_len, c.v_head_dim, plan.v_pad, C, &plan.dout,
               &plan.doutt);
      std::vector<float> stat(C);
      for (int64_t t = 0; t < C; ++t) stat[t] = Stat2(p, b, h, q_start + t, q_len);
      const std::vector<float> d = RowDotsModel(p, smem, plan.dout, b, h, q_start);
      for (int64_t w = 0; w < kFlashWarps; ++w) {
        std::vector<WarpC> st(C / kMmaN, WarpC{}), dpt(C / kMmaN, WarpC{});
        MmaRowMajorBModel(ka[w], smem, plan.q, st);
        MmaRowMajorBModel(va[w], smem, plan.dout, dpt);
        std::vector<WarpC> pt = st;
        for (int64_t lane = 0; lane < 32; ++lane) {
          const int64_t g = lane / 4, t = lane % 4;
          for (int64_t nt = 0; nt < C / kMmaN; ++nt) {
            for (int e = 0; e < 4; ++e) {
              const int64_t j = k_start + w * kMmaM + MmaCRow(g, e);
              const int64_t col = MmaCCol(t, e) + nt * kMmaN, i = q_start + col;
              const bool visible = j < kv_len && i < q_len && (!c.causal || j <= i);
              const float pr =
                  visible ? std::exp2(static_cast<float>(st[nt][lane][e] * scale2) - stat[col])
                          : 0.0f;
              pt[nt][lane][e] = pr;
              st[nt][lane][e] = pr * (dpt[nt][lane][e] - d[col]);
            }
          }
        }
        MmaRowMajorBModel(AccToAModel(pt), smem, plan.doutt, gv[w]);
        MmaRowMajorBModel(AccToAModel(st), smem, plan.qt, gk[w]);
      }
    }
  }
  for (int64_t w = 0; w < kFlashWarps; ++w) {
    StoreRowsModel(gk[w], w, c.scale, k_start, c.kv_seqlen, c.qk_head_dim,
                   [&](int64_t row, int64_t col) -> float& { return dk.at(c.k.At(b, row, hk) + col); });
    StoreRowsModel(gv[w], w, 1.0, k_start, c.kv_seqlen, c.v_head_dim,
                   [&](int64_t row, int64_t col) -> float& { return dv.at(c.v.At(b, row, hk) + col); });
  }
}

// The forward kernel's CTA (q_tile, h, b), lane by lane; writes O and the
// statistics rows it owns.
void ModelForwardCta(const FlashAttentionPlan& plan, const Problem& p, int64_t q_tile, int64_t h,
                     int64_t b, std::vector<float>& out, std::vector<float>& stats) {
  const ffi::TeAttentionConfig& c = p.config;
  const int64_t R = plan.block_rows, C = plan.block_cols, hk = c.KvHead(h);
  const int64_t q_start = q_tile * R, q_len = p.q_len[b], kv_len = p.kv_len[b];
  Smem smem(plan.smem_bytes);
  LoadTile(smem, p.Operand(c.q), b, h, q_start, c.q_seqlen, c.qk_head_dim, plan.qk_pad, R, &plan.q,
           nullptr);
  const double scale2 = c.scale * M_LOG2E;
  // Per warp: Q fragments, O accumulators; per warp and lane: m and l of
  // the two row halves.
  std::vector<WarpFrags> qa;
  std::vector<std::vector<WarpC>> o(kFlashWarps, std::vector<WarpC>(plan.v_pad / kMmaN, WarpC{}));
  std::vector<std::array<std::array<float, 2>, 32>> m(kFlashWarps), l(kFlashWarps);
  for (int64_t w = 0; w < kFlashWarps; ++w) {
    qa.push_back(LoadAModel(smem, plan.q, w * kMmaM, plan.qk_pad));
    for (auto& x : m[w]) x = {kNegInf, kNegInf};
    for (auto& x : l[w]) x = {0, 0};
  }
  const auto min = [](int64_t x, int64_t y) { return std::min(x, y); };
  const int64_t tiles =
      q_start < q_len ? FlashKvTileCount(q_start, kv_len, c.causal, R, C, min) : 0;
  for (int64_t kt = 0; kt < tiles; ++kt) {
    const int64_t kv_start = kt * C;
    LoadTile(smem, p.Operand(c.k), b, hk, kv_start, kv_len, c.qk_head_dim, plan.qk_pad, C, &plan.k,
             nullptr);
    LoadTile(smem, p.Operand(c.v), b, hk, kv_start, kv_len, c.v_head_dim, plan.v_pad, C, nullptr,
             &plan.vt);
    for (int64_t w = 0; w < kFlashWarps; ++w) {
      std::vector<WarpC> s(C / kMmaN, WarpC{});
      MmaRowMajorBModel(qa[w], smem, plan.k, s);
      // Scale and mask.
      for (int64_t lane = 0; lane < 32; ++lane) {
        const int64_t g = lane / 4, t = lane % 4;
        for (int64_t nt = 0; nt < C / kMmaN; ++nt) {
          for (int e = 0; e < 4; ++e) {
            const int64_t i = q_start + w * kMmaM + MmaCRow(g, e);
            const int64_t j = kv_start + MmaCCol(t, e) + nt * kMmaN;
            const bool visible = j < kv_len && i < q_len && (!c.causal || j <= i);
            s[nt][lane][e] = visible ? static_cast<float>(s[nt][lane][e] * scale2) : kNegInf;
          }
        }
      }
      // Online softmax; the 4 lanes of a quad share rows (the shuffles).
      for (int64_t quad = 0; quad < 8; ++quad) {
        for (int half = 0; half < 2; ++half) {
          float row_max = kNegInf;
          for (int64_t lane = 4 * quad; lane < 4 * quad + 4; ++lane) {
            for (auto& tile : s) {
              for (int e = 2 * half; e < 2 * half + 2; ++e) row_max = std::max(row_max, tile[lane][e]);
            }
          }
          for (int64_t lane = 4 * quad; lane < 4 * quad + 4; ++lane) {
            const float m_new = std::max(m[w][lane][half], row_max);
            const float base = m_new == kNegInf ? 0.0f : m_new;
            const float alpha = std::exp2(m[w][lane][half] - base);
            float sum = 0;
            for (auto& tile : s) {
              for (int e = 2 * half; e < 2 * half + 2; ++e) {
                tile[lane][e] = std::exp2(tile[lane][e] - base);
                sum += tile[lane][e];
              }
            }
            l[w][lane][half] = l[w][lane][half] * alpha + sum;
            m[w][lane][half] = m_new;
            for (auto& tile : o[w]) {
              for (int e = 2 * half; e < 2 * half + 2; ++e) tile[lane][e] *= alpha;
            }
          }
        }
      }
      // O += P V, P's A fragments from S's accumulators.
      MmaRowMajorBModel(AccToAModel(s), smem, plan.vt, o[w]);
    }
  }
  // Normalize (the quad's partial sums first) and store.
  for (int64_t w = 0; w < kFlashWarps; ++w) {
    for (int64_t lane = 0; lane < 32; ++lane) {
      const int64_t quad = lane / 4, t = lane % 4;
      for (int e = 0; e < 4; ++e) {
        const int half = e >> 1;
        float sum = 0;
        for (int64_t q = 4 * quad; q < 4 * quad + 4; ++q) sum += l[w][q][half];
        for (auto& tile : o[w]) tile[lane][e] = sum > 0 ? tile[lane][e] / sum : 0.0f;
        const int64_t row = q_start + w * kMmaM + MmaCRow(quad, e);
        if (t == 0 && (e & 1) == 0 && row < c.q_seqlen) {
          stats.at((b * c.heads + h) * c.q_seqlen + row) =
              sum > 0 ? static_cast<float>((m[w][lane][half] + std::log2(sum)) * M_LN2) : 0.0f;
        }
      }
    }
    StoreRowsModel(o[w], w, 1.0, q_start, c.q_seqlen, c.v_head_dim,
                   [&](int64_t row, int64_t col) -> float& { return out.at(c.o.At(b, row, h) + col); });
  }
}

// Plain attention in f64 over the same bf16 inputs.
void Reference(const Problem& p, std::vector<double>& out, std::vector<double>& stats) {
  const ffi::TeAttentionConfig& c = p.config;
  const std::vector<float>* ops[3] = {&p.q, &p.k, &p.v};
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t hk = c.KvHead(h);
      for (int64_t i = 0; i < c.q_seqlen; ++i) {
        std::vector<double> s(c.kv_seqlen, -INFINITY);
        double mx = -INFINITY;
        for (int64_t j = 0; j < c.kv_seqlen; ++j) {
          if (!c.Visible(i, j, p.q_len[b], p.kv_len[b])) continue;
          double dot = 0;
          for (int64_t d = 0; d < c.qk_head_dim; ++d) {
            dot += double{(*ops[c.q.operand])[c.q.At(b, i, h) + d]} *
                   (*ops[c.k.operand])[c.k.At(b, j, hk) + d];
          }
          s[j] = dot * c.scale;
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < c.v_head_dim; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < c.kv_seqlen; ++j) {
            if (sum > 0) acc += s[j] / sum * (*ops[c.v.operand])[c.v.At(b, j, hk) + d];
          }
          out[c.o.At(b, i, h) + d] = acc;
        }
        stats[(b * c.heads + h) * c.q_seqlen + i] = sum > 0 ? mx + std::log(sum) : 0.0;
      }
    }
  }
}

// The textbook gradients in f64, from the problem's O (for D = rowsum(dO * O),
// as the kernels take it) and statistics; dq/dk/dv laid out like the
// operands of the Q, K and V views.
void ReferenceBackward(const Problem& p, std::vector<double>* grads[3]) {
  const ffi::TeAttentionConfig& c = p.config;
  const Tensor Q = p.Operand(c.q), K = p.Operand(c.k), V = p.Operand(c.v);
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t hk = c.KvHead(h);
      for (int64_t i = 0; i < c.q_seqlen; ++i) {
        double d = 0;
        for (int64_t k = 0; k < c.v_head_dim; ++k) {
          d += double{p.o[c.o.At(b, i, h) + k]} * p.dout[c.o.At(b, i, h) + k];
        }
        const double lse = p.stats[(b * c.heads + h) * c.q_seqlen + i];
        for (int64_t j = 0; j < c.kv_seqlen; ++j) {
          if (!c.Visible(i, j, p.q_len[b], p.kv_len[b])) continue;
          double s = 0, dp = 0;
          for (int64_t k = 0; k < c.qk_head_dim; ++k) s += double{Q.At(b, i, h, k)} * K.At(b, j, hk, k);
          const double pr = std::exp(s * c.scale - lse);
          for (int64_t k = 0; k < c.v_head_dim; ++k) {
            const double g = p.dout[c.o.At(b, i, h) + k];
            dp += g * V.At(b, j, hk, k);
            (*grads[c.v.operand])[c.v.At(b, j, hk) + k] += pr * g;
          }
          const double ds = pr * (dp - d) * c.scale;
          for (int64_t k = 0; k < c.qk_head_dim; ++k) {
            (*grads[c.q.operand])[c.q.At(b, i, h) + k] += ds * K.At(b, j, hk, k);
            (*grads[c.k.operand])[c.k.At(b, j, hk) + k] += ds * Q.At(b, i, h, k);
          }
        }
      }
    }
  }
}

int64_t Elements(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

struct Case {
  int64_t batch, sq, skv, heads, kv_heads, dim, layout, mask;
  std::vector<int64_t> q_len, kv_len;  // padding masks
};

class FlashAttentionModelTest : public ::testing::TestWithParam<Case> {};

// The case's config and inputs: Q, K, V (bf16 values in [-2, 2)) and the
// sequence lengths.
Problem MakeProblem(const Case& k) {
  ffi::Attributes a;
  a["input_batch"] = k.batch;
  a["q_max_seqlen"] = k.sq;
  a["kv_max_seqlen"] = k.skv;
  a["attn_heads"] = k.heads;
  a["num_gqa_groups"] = k.kv_heads;
  a["qk_head_dim"] = k.dim;
  a["v_head_dim"] = k.dim;
  a["qkv_layout"] = k.layout;
  a["mask_type"] = k.mask;
  a["scaling_factor"] = 1.0 / std::sqrt(static_cast<double>(k.dim));
  absl::StatusOr<ffi::TeAttentionConfig> config =
      ffi::ParseTeAttentionConfig("te_fused_attn_forward_ffi", a);
  EXPECT_TRUE(config.ok()) << config.status();
  Problem p;
  p.config = *config;
  uint64_t state = 12345;
  std::vector<float>* ops[3] = {&p.q, &p.k, &p.v};
  for (int i = 0; i < 3; ++i) {
    ops[i]->resize(Elements(config->operand_dims[i]));
    for (float& x : *ops[i]) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      x = Bf16(static_cast<float>((state >> 40) * 0x1p-24 * 4.0 - 2.0));
    }
  }
  p.q_len = k.q_len.empty() ? std::vector<int64_t>(k.batch, k.sq) : k.q_len;
  p.kv_len = k.kv_len.empty() ? std::vector<int64_t>(k.batch, k.skv) : k.kv_len;
  return p;
}

FlashAttentionPlan Plan(FlashKernel kernel, const Problem& p) {
  absl::StatusOr<FlashAttentionPlan> plan =
      PlanFlashAttention(kernel, p.config, PrimitiveType::BF16, "test");
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

// Checks `got` against `want` within `rel` of the largest |want| (plus
// `rel` of each value), and that the values are not all small.
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double rel,
                 const std::string& what) {
  double largest = 0;
  for (double w : want) largest = std::max(largest, std::abs(w));
  EXPECT_GT(largest, 0.05) << what << ": not a test on zeros";
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], rel * (largest + std::abs(want[i]))) << what << " element " << i;
  }
}

TEST_P(FlashAttentionModelTest, ForwardModelMatchesPlainAttention) {
  const Case& k = GetParam();
  Problem p = MakeProblem(k);
  const FlashAttentionPlan plan = Plan(FlashKernel::kForward, p);
  const int64_t out_elems = Elements(p.config.output_dims);
  const int64_t stat_elems = k.batch * k.heads * k.sq;
  std::vector<float> out(out_elems, std::nanf("")), stats(stat_elems, std::nanf(""));
  for (int64_t b = 0; b < plan.grid_z; ++b) {
    for (int64_t h = 0; h < plan.grid_y; ++h) {
      for (int64_t x = 0; x < plan.grid_x; ++x) ModelForwardCta(plan, p, x, h, b, out, stats);
    }
  }
  std::vector<double> want(out_elems), want_stats(stat_elems);
  Reference(p, want, want_stats);
  // P is rounded to bf16 before P*V: about 2^-8 relative per term.
  ExpectClose(out, want, 0.01, "output");
  for (int64_t i = 0; i < stat_elems; ++i) {
    ASSERT_NEAR(stats[i], want_stats[i], 1e-3 + 1e-4 * std::abs(want_stats[i])) << "stats " << i;
  }
}

TEST_P(FlashAttentionModelTest, BackwardModelMatchesTheTextbookGradient) {
  const Case& k = GetParam();
  Problem p = MakeProblem(k);
  const ffi::TeAttentionConfig& c = p.config;
  const int64_t out_elems = Elements(c.output_dims);
  std::vector<double> o(out_elems), stats(k.batch * k.heads * k.sq);
  Reference(p, o, stats);
  p.o.resize(out_elems);
  p.dout.resize(out_elems);
  uint64_t state = 777;
  for (int64_t i = 0; i < out_elems; ++i) {
    p.o[i] = Bf16(static_cast<float>(o[i]));
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    p.dout[i] = Bf16(static_cast<float>((state >> 40) * 0x1p-24 * 2.0 - 1.0));
  }
  p.stats.assign(stats.begin(), stats.end());
  std::vector<float> got[3];
  std::vector<double> want[3];
  std::vector<double>* want_ptrs[3];
  for (int i = 0; i < 3; ++i) {
    got[i].assign(Elements(c.operand_dims[i]), std::nanf(""));
    want[i].assign(got[i].size(), 0.0);
    want_ptrs[i] = &want[i];
  }
  const FlashAttentionPlan dq = Plan(FlashKernel::kBackwardDq, p);
  const FlashAttentionPlan dkdv = Plan(FlashKernel::kBackwardDkDv, p);
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < dq.grid_y; ++h) {
      for (int64_t x = 0; x < dq.grid_x; ++x) ModelDqCta(dq, p, x, h, b, got[c.q.operand]);
    }
    for (int64_t hk = 0; hk < dkdv.grid_y; ++hk) {
      for (int64_t x = 0; x < dkdv.grid_x; ++x) {
        ModelDkDvCta(dkdv, p, x, hk, b, got[c.k.operand], got[c.v.operand]);
      }
    }
  }
  ReferenceBackward(p, want_ptrs);
  static constexpr const char* kNames[] = {"operand 0 gradient", "operand 1 gradient",
                                           "operand 2 gradient"};
  for (int i = 0; i < 3; ++i) {
    if (!want[i].empty() && want[i].size() > 1) ExpectClose(got[i], want[i], 0.02, kNames[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, FlashAttentionModelTest,
    ::testing::Values(Case{2, 33, 33, 4, 4, 64, 9, 0, {}, {}},
                      Case{1, 257, 257, 4, 2, 128, 7, 2, {}, {}},
                      Case{2, 33, 40, 4, 1, 64, 9, 2, {}, {}},
                      Case{2, 40, 33, 4, 4, 8, 7, 3, {40, 17}, {33, 5}},
                      Case{2, 33, 33, 4, 1, 16, 9, 1, {0, 20}, {33, 7}},
                      Case{1, 70, 70, 2, 2, 24, 9, 3, {65}, {70}},
                      Case{1, 129, 129, 4, 4, 128, 4, 0, {}, {}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      const Case& c = info.param;
      return absl::StrCat("b", c.batch, "_s", c.sq, "x", c.skv, "_h", c.heads, "g", c.kv_heads,
                          "_d", c.dim, "_layout", c.layout, "_mask", c.mask);
    });

TEST(FlashAttentionPlan, TilesFitAndLayoutsDoNotOverlap) {
  ffi::TeAttentionConfig c;
  c.batch = 2;
  c.q_seqlen = 257;
  c.kv_seqlen = 257;
  c.heads = 32;
  c.kv_heads = 8;
  for (int64_t dim : {8, 64, 128}) {
    c.qk_head_dim = c.v_head_dim = dim;
    for (FlashKernel kernel :
         {FlashKernel::kForward, FlashKernel::kBackwardDq, FlashKernel::kBackwardDkDv}) {
      absl::StatusOr<FlashAttentionPlan> plan =
          PlanFlashAttention(kernel, c, PrimitiveType::BF16, "t");
      ASSERT_TRUE(plan.ok()) << plan.status();
      EXPECT_LE(plan->smem_bytes, 48 * 1024);
      EXPECT_EQ(plan->block_cols % kMmaK, 0);
      EXPECT_EQ(plan->grid_z, 2);
      EXPECT_EQ(plan->grid_y, kernel == FlashKernel::kBackwardDkDv ? 8 : 32);
      EXPECT_EQ(plan->grid_x, (257 + 63) / 64);
      EXPECT_EQ(plan->q.stride % 8, 0);  // 16-byte rows
    }
  }
}

}  // namespace
}  // namespace xla::gpu
