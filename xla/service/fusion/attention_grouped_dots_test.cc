// Grouped attention's 5-D dots (attention_grouped_dots.h), through the
// attention-rewriter: jax.nn.dot_product_attention's spelling (Q reshaped
// to [B, T, K, G, D], the scores transposed to the vmap's [G, B, K, T, S])
// and a grouped einsum's (K first in the score dot, the scores already
// [B, K, G, T, S]) are rewritten, and the evaluator gives the same results
// before and after at odd sizes (B = 1 and G = 1 too); dots that pair the
// wrong dims, a reshape that reorders the scores, and a max of differently
// ordered or unmasked scores are left alone. JAX's own output is run end to end in
// xla/aot/attention_fusion_test.cc.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/fusion/attention_rewriter.h"
#include "xla/service/fusion/attention_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::RunPassAndCheck;

struct Grouped {
  int64_t b = 2, t = 33, k = 3, g = 2, s = 40, d = 16;
  bool causal = false;
  bool k_first = false;         // dot(k, q5): the grouped einsum's order
  bool reshape_layout = false;  // a reshape instead of the vmap's transpose
  bool pair_g_with_v = false;   // the output dot pairs V's B with p's G
  bool max_before_layout = false;  // the row max of the untransposed scores
  bool transpose_row = false;      // ... with the row vector transposed to match
  // Padding from lengths parameters (jax.nn.dot_product_attention's
  // key_value_seq_lengths, parameter 3, and query_seq_lengths, the next): a
  // [B, T, S] mask broadcast over G and K, as JAX's vmap writes it; the
  // lengths run along the scores' dim `len_dim` ([G, B, K, T, S]: 1 is B).
  bool kv_len = false, q_len = false;
  int64_t len_dim = 1;
  std::string fill = "-inf";
};

std::string Shape(std::initializer_list<int64_t> dims) {
  return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]");
}

// The mask `mb` of grouped scores [G, B, K, T, S]: causal over [T, S],
// and/or `iota < len` on the key and query axes (JAX's broadcast arange) with lengths s32[L]
// (parameters 3 and 4, L the size of score dim len_dim), built over
// [L, T, S] and broadcast over the other dims.
std::string GroupedMask(const Grouped& x) {
  const int64_t dims[] = {x.g, x.b, x.k};
  const int64_t l = dims[x.len_dim];
  const std::string ts = absl::StrCat(x.t, ",", x.s), lts = absl::StrCat(l, ",", ts);
  std::string out;
  std::string mask;  // over [L, T, S]
  auto conj = [&](const std::string& name) {
    if (!mask.empty()) absl::StrAppend(&out, "  and_", name, " = pred[", lts, "] and(", mask, ", ", name, ")\n");
    mask = mask.empty() ? name : absl::StrCat("and_", name);
  };
  if (x.causal) {
    absl::StrAppend(&out, "  i0 = s32[", ts, "] iota(), iota_dimension=0\n", "  i1 = s32[", ts,
                    "] iota(), iota_dimension=1\n", "  ge = pred[", ts,
                    "] compare(i0, i1), direction=GE\n", "  geb = pred[", lts,
                    "] broadcast(ge), dimensions={1,2}\n");
    conj("geb");
  }
  const struct { bool on; const char* name; int param; int axis; } lens[] = {
      {x.kv_len, "kv", 3, 2}, {x.q_len, "ql", x.kv_len ? 4 : 3, 1}};
  for (const auto& len : lens) {
    if (!len.on) continue;
    absl::StrAppend(&out, "  ", len.name, " = s32[", l, "] parameter(", len.param, ")\n", "  ",
                    len.name, "b = s32[", lts, "] broadcast(", len.name, "), dimensions={0}\n",
                    "  ", len.name, "i0 = s32[", len.axis == 1 ? x.t : x.s, "] iota(), iota_dimension=0\n",
                    "  ", len.name, "i = s32[", lts, "] broadcast(", len.name, "i0), dimensions={",
                    len.axis, "}\n",
                    "  ", len.name, "m = pred[", lts, "] compare(", len.name, "i, ", len.name,
                    "b), direction=LT\n");
    conj(absl::StrCat(len.name, "m"));
  }
  absl::StrAppend(&out, "  mb = pred[", x.g, ",", x.b, ",", x.k, ",", ts, "] broadcast(", mask,
                  "), dimensions={", x.len_dim, ",3,4}\n");
  return out;
}

// f32 grouped attention: q [B, T, K*G, D], k and v [B, S, K, D]; the
// output [B, T, K*G, D].
std::string GroupedHlo(const Grouped& x) {
  const int64_t b = x.b, t = x.t, k = x.k, g = x.g, s = x.s, d = x.d;
  // The softmax's scores: [G, B, K, T, S] after the layout op.
  const std::string sg = Shape({g, b, k, t, s}), row = Shape({g, b, k, t});
  std::string scores;
  if (x.k_first) {  // [B, K, S, T, G], then transposed
    scores = absl::StrCat("  s0 = ", Shape({b, k, s, t, g}),
                          " dot(k, q5), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
                          "rhs_batch_dims={0,2}, rhs_contracting_dims={4}\n",
                          "  cb = ", Shape({b, k, s, t, g}), " broadcast(c), dimensions={}\n",
                          "  s1 = ", Shape({b, k, s, t, g}), " multiply(s0, cb)\n", "  s2 = ", sg,
                          " transpose(s1), dimensions={4,0,1,3,2}\n");
  } else {  // [B, K, T, G, S]
    scores = absl::StrCat("  s0 = ", Shape({b, k, t, g, s}),
                          " dot(q5, k), lhs_batch_dims={0,2}, lhs_contracting_dims={4}, "
                          "rhs_batch_dims={0,2}, rhs_contracting_dims={3}\n",
                          "  cb = ", Shape({b, k, t, g, s}), " broadcast(c), dimensions={}\n",
                          "  s1 = ", Shape({b, k, t, g, s}), " multiply(s0, cb)\n", "  s2 = ", sg,
                          x.reshape_layout ? " reshape(s1)\n" : " transpose(s1), dimensions={3,0,1,2,4}\n");
  }
  std::string masked = "s2";
  if (x.causal || x.kv_len || x.q_len) {
    absl::StrAppend(&scores, GroupedMask(x), "  fill = f32[] constant(", x.fill, ")\n",
                    "  fb = ", sg, " broadcast(fill), dimensions={}\n", "  s3 = ", sg,
                    " select(mb, s2, fb)\n");
    masked = "s3";
  }
  std::string max = absl::StrCat("  mx = ", row, " reduce(", masked,
                                 ", ninf), dimensions={4}, to_apply=max_r\n");
  if (x.max_before_layout) {
    max = absl::StrCat("  mx0 = ", Shape({b, k, t, g}), " reduce(s1, ninf), dimensions={4}, to_apply=max_r\n",
                       "  mx = ", row,
                       x.transpose_row ? " transpose(mx0), dimensions={3,0,1,2}\n" : " reshape(mx0)\n");
  }
  const std::string out_dims = x.pair_g_with_v ? "rhs_batch_dims={0,2}" : "rhs_batch_dims={1,2}";
  const std::string out_shape =
      x.pair_g_with_v ? Shape({b, k, d, b, t}) : Shape({b, k, d, g, t});
  return absl::StrCat(attention_test::ModuleHeader("grouped"), "  q = ", Shape({b, t, k * g, d}), R"( parameter(0)
  k = )", Shape({b, s, k, d}), R"( parameter(1)
  v = )", Shape({b, s, k, d}), R"( parameter(2)
  q5 = )", Shape({b, t, k, g, d}), R"( reshape(q)
  c = f32[] constant(0.125)
)", scores, "  ninf = f32[] constant(-inf)\n", max, "  mxb = ", sg,
                      " broadcast(mx), dimensions={0,1,2,3}\n", "  e0 = ", sg, " subtract(", masked,
                      ", mxb)\n", "  e = ", sg, " exponential(e0)\n", "  zero = f32[] constant(0)\n",
                      "  sm = ", row, " reduce(e, zero), dimensions={4}, to_apply=add_r\n",
                      "  smb = ", sg, " broadcast(sm), dimensions={0,1,2,3}\n", "  p = ", sg,
                      " divide(e, smb)\n", "  ROOT o = ", out_shape,
                      " dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, ", out_dims,
                      ", rhs_contracting_dims={4}\n}\n");
}

// Lengths 0, 1, T, S, inside, negative and beyond, chosen per seed.
void SetLengths(const Grouped& x, std::vector<Literal>* inputs) {
  const int64_t table[] = {0, x.t, 1, x.s, x.s / 2 + 1, -2, x.s + 3};
  for (size_t p = 3; p < inputs->size(); ++p) {
    Literal& len = (*inputs)[p];
    for (int64_t i = 0; i < len.element_count(); ++i) {
      len.SetInt(i, table[(3 * i + p + std::abs(len.GetInt(i))) % 7]);
    }
  }
}

void ExpectFused(const Grouped& x, const std::string& mask_type) {
  AttentionRewriter pass;
  const std::string hlo = GroupedHlo(x);
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  options.adjust_inputs = [&](std::vector<Literal>* inputs) { SetLengths(x, inputs); };
  pass_test::PassResult r = RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed) << hlo;
  EXPECT_TRUE(Contains(r.text, absl::StrCat("mask_type = ", mask_type, " : i64")));
  EXPECT_TRUE(Contains(r.text, absl::StrCat("num_gqa_groups = ", x.k, " : i64")));
  EXPECT_TRUE(Contains(r.text, absl::StrCat("attn_heads = ", x.k * x.g, " : i64")));
}

void ExpectUnfused(const Grouped& x) {
  AttentionRewriter pass;
  const std::string hlo = GroupedHlo(x);
  pass_test::PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_FALSE(r.changed) << hlo;
}

TEST(AttentionGroupedDots, DotProductAttentionsSpelling) {
  Grouped plain;
  ExpectFused(plain, "0");
  Grouped causal;
  causal.causal = true;
  causal.t = causal.s = 40;
  causal.d = 64;
  ExpectFused(causal, "2");
  Grouped one_group;  // G = 1: JAX's layout op is a reshape
  one_group.g = 1;
  one_group.reshape_layout = true;
  one_group.d = 8;
  ExpectFused(one_group, "0");
  one_group.causal = true;
  one_group.t = one_group.s = 33;
  ExpectFused(one_group, "2");
  // JAX's unmasked G = 1 after the simplifier: the row max reads the
  // scores before the size-1 reshape (same rows, same order).
  Grouped max_first;
  max_first.g = 1;
  max_first.b = 1;
  max_first.reshape_layout = true;
  max_first.max_before_layout = true;
  ExpectFused(max_first, "0");
  // JAX's decode step (T = 1) after the simplifier: the max before the
  // vmap's transpose, its row vector transposed the same way.
  Grouped decode;
  decode.t = 1;
  decode.g = 4;
  decode.d = 64;
  decode.max_before_layout = true;
  decode.transpose_row = true;
  ExpectFused(decode, "0");
}

TEST(AttentionGroupedDots, GroupedEinsumsSpelling) {
  Grouped x;
  x.k_first = true;
  x.causal = true;
  x.t = x.s = 33;
  x.g = 4;
  x.k = 1;
  ExpectFused(x, "2");
}

// jax.nn.dot_product_attention with key_value_seq_lengths (and
// query_seq_lengths, is_causal): TE's padding masks with lengths per B,
// and the rows that see no key (a key length of 0, padded queries) given
// the unfused value back: the mean of V (finite fill) or NaN (-inf).
TEST(AttentionGroupedDots, PaddingFromLengths) {
  Grouped keys;  // B = 3, T 33, S 40, K*G = 3*2, d 16, -inf
  keys.b = 3;
  keys.kv_len = true;
  ExpectFused(keys, "1");
  Grouped both;  // JAX's finite fill (finfo(f32).min scaled): the mean of V
  both.t = both.s = 33;
  both.d = 8;
  both.kv_len = both.q_len = true;
  both.fill = "-2.38197633e+38";
  ExpectFused(both, "1");
  Grouped causal;  // causal and key padding, G = 4, K = 1, d 64
  causal.t = causal.s = 40;
  causal.k = 1;
  causal.g = 4;
  causal.d = 64;
  causal.causal = causal.kv_len = true;
  causal.fill = "-1e9";
  ExpectFused(causal, "3");
  causal.q_len = true;  // and query padding
  causal.b = 1;
  causal.d = 16;
  ExpectFused(causal, "3");
  Grouped einsum;  // the grouped einsum's order, rows shorter than a tile
  einsum.k_first = true;
  einsum.t = einsum.s = 7;
  einsum.kv_len = true;
  ExpectFused(einsum, "1");
}

TEST(AttentionGroupedDots, PaddingNearMisses) {
  Grouped per_head;  // lengths along K (per kv head): cu_seqlens has one per B
  per_head.kv_len = true;
  per_head.len_dim = 2;
  ExpectUnfused(per_head);
  Grouped per_group;  // lengths along G (per query head of a group)
  per_group.kv_len = true;
  per_group.len_dim = 0;
  ExpectUnfused(per_group);
  Grouped query_only;  // a query mask alone
  query_only.q_len = true;
  ExpectUnfused(query_only);
  Grouped weak_fill;  // a fill that leaves hidden keys a weight
  weak_fill.kv_len = true;
  weak_fill.fill = "-100";
  ExpectUnfused(weak_fill);
}

TEST(AttentionGroupedDots, NearMisses) {
  Grouped reorders;  // a reshape [B, K, T, G, S] -> [G, B, K, T, S] mixes rows
  reorders.reshape_layout = true;
  ExpectUnfused(reorders);
  Grouped pairing;  // V's batch dims read against p's G and K
  pairing.pair_g_with_v = true;
  pairing.b = pairing.g = 2;
  ExpectUnfused(pairing);
  Grouped max;  // the max's rows in another order than the subtraction's
  max.max_before_layout = true;
  ExpectUnfused(max);
  Grouped unmasked_max;  // G = 1, but the max of the scores before the mask
  unmasked_max.g = 1;
  unmasked_max.reshape_layout = true;
  unmasked_max.max_before_layout = true;
  unmasked_max.causal = true;
  ExpectUnfused(unmasked_max);
}

}  // namespace
}  // namespace xla
