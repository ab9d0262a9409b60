// Tests of the evaluator's Transformer Engine fused attention: values worked
// out by hand for a tiny case (forward, backward, causal), the backward
// against finite differences of the forward (GQA, padding_causal), packed
// layouts against the unpacked one, padded rows, and the errors for
// unsupported attributes and bad inputs.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/ffi/te_fused_attention_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;
using gpu::ffi::testing::TeAttentionCase;
using gpu::ffi::testing::TeAttentionHlo;
using gpu::ffi::testing::TeAttentionParameterShapes;

// Deterministic values in [-1, 1).
std::vector<double> Pseudorandom(int64_t n, uint64_t seed) {
  std::vector<double> out(n);
  uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    out[i] = static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53) * 2 - 1;
  }
  return out;
}

Literal Filled(const Shape& shape, uint64_t seed) {
  Literal l(shape);
  const std::vector<double> v = Pseudorandom(l.element_count(), seed);
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, v[i]);
  return l;
}

// Arguments for TeAttentionHlo: q/k/v (and doutput) pseudorandom,
// cu_seqlens from `q_lens`/`kv_lens` (full lengths when empty).
std::vector<Literal> Arguments(const TeAttentionCase& c, bool backward,
                               std::vector<int64_t> q_lens = {},
                               std::vector<int64_t> kv_lens = {}) {
  if (q_lens.empty()) q_lens.assign(c.batch, c.q_seqlen);
  if (kv_lens.empty()) kv_lens.assign(c.batch, c.kv_seqlen);
  std::vector<Literal> args;
  const std::vector<Shape> shapes = TeAttentionParameterShapes(c, backward);
  const int64_t num_qkv = static_cast<int64_t>(shapes.size()) - 2 - (backward ? 1 : 0);
  for (int64_t i = 0; i < static_cast<int64_t>(shapes.size()); ++i) {
    if (i == num_qkv || i == num_qkv + 1) {
      const std::vector<int64_t>& lens = i == num_qkv ? q_lens : kv_lens;
      std::vector<int64_t> cu = {0};
      for (int64_t len : lens) cu.push_back(cu.back() + len);
      args.push_back(MakeIntLiteral(PrimitiveType::S32, {c.batch + 1}, cu));
    } else {
      args.push_back(Filled(shapes[i], 17 + i));
    }
  }
  return args;
}

Literal Eval(const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  return r.ok() ? std::move(*r) : Literal();
}

// The tiny case: one batch, one head, two queries and keys of dimension 2,
// scale 1. q0 = [1, 0], q1 = [0, 1]; k0 = [1, 0], k1 = [0, 0];
// v0 = [1, 2], v1 = [3, 4].
//   row 0 scores (1, 0): p = (e/(e+1), 1/(e+1)) = (0.73106, 0.26894),
//     o0 = [1 + 2 p1, 2 + 2 p1], stats = log(e + 1)
//   row 1 scores (0, 0): p = (1/2, 1/2), o1 = [2, 3], stats = log 2
TeAttentionCase Tiny(int64_t mask) {
  TeAttentionCase c;
  c.q_seqlen = c.kv_seqlen = 2;
  c.head_dim = 2;
  c.type = "f32";
  c.mask_type = mask;
  return c;
}

std::vector<Literal> TinyArgs(bool backward) {
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 2, 1, 2}, {1, 0, 0, 1}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 2, 1, 2}, {1, 0, 0, 0}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 2, 1, 2}, {1, 2, 3, 4}));
  args.push_back(MakeIntLiteral(PrimitiveType::S32, {2}, {0, 2}));
  args.push_back(MakeIntLiteral(PrimitiveType::S32, {2}, {0, 2}));
  // dO: [1, 0] for row 0, zeros for row 1.
  if (backward) args.push_back(MakeLiteral(PrimitiveType::F32, {1, 2, 1, 2}, {1, 0, 0, 0}));
  return args;
}

TEST(FusedAttention, TinyForwardByHand) {
  const double e = std::exp(1.0), p1 = 1 / (e + 1);
  Literal r = Eval(TeAttentionHlo(Tiny(0), false), TinyArgs(false));
  ASSERT_EQ(r.tuple_elements().size(), 2u);
  const std::vector<double> o = Values(r.tuple_elements()[0]);
  const std::vector<double> expected_o = {1 + 2 * p1, 2 + 2 * p1, 2, 3};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(o[i], expected_o[i], 1e-6) << i;
  const std::vector<double> stats = Values(r.tuple_elements()[1]);
  EXPECT_NEAR(stats[0], std::log(e + 1), 1e-6);
  EXPECT_NEAR(stats[1], std::log(2.0), 1e-6);
}

// Causal: row 0 sees only key 0, so o0 = v0 and stats = score 1.
TEST(FusedAttention, TinyCausalForwardByHand) {
  Literal r = Eval(TeAttentionHlo(Tiny(2), false), TinyArgs(false));
  const std::vector<double> o = Values(r.tuple_elements()[0]);
  const std::vector<double> expected_o = {1, 2, 2, 3};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(o[i], expected_o[i], 1e-6) << i;
  EXPECT_NEAR(Values(r.tuple_elements()[1])[0], 1.0, 1e-6);
}

// dO0 = [1, 0], dO1 = 0. Row 0: dP = dO0 . v_j = (1, 3), rowsum(P dP) =
// 1 + 2 p1, dS = (-2 p0 p1, 2 p0 p1). dQ0 = dS0 k0 + dS1 k1 = [-2 p0 p1, 0],
// dK0 = dS0 q0 = [-2 p0 p1, 0], dK1 = [2 p0 p1, 0], dV_j = p_j dO0.
TEST(FusedAttention, TinyBackwardByHand) {
  const double e = std::exp(1.0), p0 = e / (e + 1), p1 = 1 / (e + 1), x = 2 * p0 * p1;
  Literal r = Eval(TeAttentionHlo(Tiny(0), true), TinyArgs(true));
  ASSERT_EQ(r.tuple_elements().size(), 5u);
  const std::vector<double> dq = Values(r.tuple_elements()[2]);
  const std::vector<double> dk = Values(r.tuple_elements()[3]);
  const std::vector<double> dv = Values(r.tuple_elements()[4]);
  const std::vector<double> expected_dq = {-x, 0, 0, 0}, expected_dk = {-x, 0, x, 0},
                            expected_dv = {p0, 0, p1, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(dq[i], expected_dq[i], 1e-6) << i;
    EXPECT_NEAR(dk[i], expected_dk[i], 1e-6) << i;
    EXPECT_NEAR(dv[i], expected_dv[i], 1e-6) << i;
  }
}

// sum(dO * O) for the forward module's output.
double Loss(const std::string& forward_hlo, const std::vector<Literal>& args, const Literal& dout) {
  Literal r = Eval(forward_hlo, args);
  const std::vector<double> o = Values(r.tuple_elements()[0]), d = Values(dout);
  double sum = 0;
  for (size_t i = 0; i < o.size(); ++i) sum += o[i] * d[i];
  return sum;
}

// The backward's gradients are those of sum(dO * O), checked by central
// differences at a few positions of q, k and v (GQA 2:1, padding_causal
// with unequal lengths, scale 0.7).
TEST(FusedAttention, BackwardMatchesFiniteDifferences) {
  TeAttentionCase c;
  c.batch = 2;
  c.q_seqlen = 5;
  c.kv_seqlen = 6;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 3;
  c.mask_type = 3;
  c.scale = 0.7;
  c.type = "f32";
  const std::vector<int64_t> q_lens = {5, 3}, kv_lens = {6, 4};
  std::vector<Literal> args = Arguments(c, true, q_lens, kv_lens);
  Literal grads = Eval(TeAttentionHlo(c, true), args);
  const Literal dout = args.back();
  std::vector<Literal> fwd_args;
  for (size_t i = 0; i + 1 < args.size(); ++i) fwd_args.push_back(args[i]);
  const std::string forward = TeAttentionHlo(c, false);
  const double eps = 1e-2;
  for (int which = 0; which < 3; ++which) {
    const std::vector<double> grad = Values(grads.tuple_elements()[2 + which]);
    for (int64_t i = 0; i < static_cast<int64_t>(grad.size()); i += 7) {
      const double x = fwd_args[which].GetDouble(i);
      fwd_args[which].SetDouble(i, x + eps);
      const double up = Loss(forward, fwd_args, dout);
      fwd_args[which].SetDouble(i, x - eps);
      const double down = Loss(forward, fwd_args, dout);
      fwd_args[which].SetDouble(i, x);
      EXPECT_NEAR(grad[i], (up - down) / (2 * eps), 2e-3)
          << "operand " << which << " element " << i;
    }
  }
}

// Layout 7 (K and V packed in one [B,S,2,G,D] operand) and layout 5
// (Q, K, V packed per token) give what layout 9 gives for the same values.
TEST(FusedAttention, PackedLayoutsMatchSeparate) {
  TeAttentionCase c;
  c.batch = 2;
  c.q_seqlen = c.kv_seqlen = 5;
  c.heads = c.kv_heads = 2;
  c.head_dim = 4;
  c.mask_type = 2;
  c.type = "f32";
  std::vector<Literal> separate = Arguments(c, true);
  Literal expected = Eval(TeAttentionHlo(c, true), separate);
  const std::vector<double> q = Values(separate[0]), k = Values(separate[1]),
                            v = Values(separate[2]);
  const int64_t tokens = c.batch * c.q_seqlen, hd = c.heads * c.head_dim;

  TeAttentionCase c7 = c;
  c7.qkv_layout = 7;
  std::vector<Literal> packed_kv = Arguments(c7, true);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t e = 0; e < hd; ++e) {
      packed_kv[0].SetDouble(t * hd + e, q[t * hd + e]);
      packed_kv[1].SetDouble(t * 2 * hd + e, k[t * hd + e]);
      packed_kv[1].SetDouble(t * 2 * hd + hd + e, v[t * hd + e]);
    }
  }
  packed_kv[4] = separate[5];  // doutput
  Literal r7 = Eval(TeAttentionHlo(c7, true), packed_kv);
  ASSERT_EQ(r7.tuple_elements().size(), 4u);  // o, stats, dq, dkv
  for (int i = 0; i < 3; ++i) {
    const std::vector<double> a = Values(expected.tuple_elements()[i]),
                              b = Values(r7.tuple_elements()[i]);
    ASSERT_EQ(a.size(), b.size());
    for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], 1e-6) << i << " " << j;
  }
  const std::vector<double> dk = Values(expected.tuple_elements()[3]),
                            dv = Values(expected.tuple_elements()[4]),
                            dkv = Values(r7.tuple_elements()[3]);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t e = 0; e < hd; ++e) {
      EXPECT_NEAR(dkv[t * 2 * hd + e], dk[t * hd + e], 1e-6);
      EXPECT_NEAR(dkv[t * 2 * hd + hd + e], dv[t * hd + e], 1e-6);
    }
  }

  TeAttentionCase c5 = c;
  c5.qkv_layout = 5;
  std::vector<Literal> packed_qkv = Arguments(c5, false);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t e = 0; e < hd; ++e) {
      packed_qkv[0].SetDouble(t * 3 * hd + e, q[t * hd + e]);
      packed_qkv[0].SetDouble(t * 3 * hd + hd + e, k[t * hd + e]);
      packed_qkv[0].SetDouble(t * 3 * hd + 2 * hd + e, v[t * hd + e]);
    }
  }
  Literal r5 = Eval(TeAttentionHlo(c5, false), packed_qkv);
  const std::vector<double> a = Values(expected.tuple_elements()[0]),
                            b = Values(r5.tuple_elements()[0]);
  for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], 1e-6) << j;
}

// Padding: queries past a sequence's length give 0 output, 0 stats and 0
// gradients; keys past it get 0 gradients; a sequence of no keys gives 0.
TEST(FusedAttention, PaddedRowsAndKeysAreZero) {
  TeAttentionCase c;
  c.batch = 2;
  c.q_seqlen = 4;
  c.kv_seqlen = 3;
  c.head_dim = 2;
  c.mask_type = 1;
  c.type = "f32";
  Literal r = Eval(TeAttentionHlo(c, true), Arguments(c, true, {2, 4}, {3, 0}));
  const std::vector<double> o = Values(r.tuple_elements()[0]),
                            stats = Values(r.tuple_elements()[1]);
  const std::vector<double> dq = Values(r.tuple_elements()[2]), dk = Values(r.tuple_elements()[3]);
  for (int64_t i = 0; i < 4; ++i) {
    const bool live = i < 2;  // batch 0 has 2 queries; batch 1 has no keys
    EXPECT_EQ(stats[i] != 0, live) << i;
    EXPECT_EQ(stats[4 + i], 0) << i;
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(o[i * 2 + d] != 0, live) << i;
      EXPECT_EQ(o[8 + i * 2 + d], 0) << i;
      EXPECT_EQ(dq[8 + i * 2 + d], 0) << i;
    }
  }
  for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(dk[6 + j], 0) << j;  // batch 1's keys
}

absl::Status EvalError(const TeAttentionCase& c, absl::string_view from, absl::string_view to,
                       std::vector<Literal> args = {}) {
  if (args.empty()) args = Arguments(c, false);
  std::string hlo = TeAttentionHlo(c, false);
  if (!from.empty()) hlo = absl::StrReplaceAll(hlo, {{from, to}});
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  return r.status();
}

TEST(FusedAttention, UnsupportedAttributesAreNamed) {
  const TeAttentionCase c;
  struct Case {
    const char* from;
    const char* to;
    const char* message;
  };
  for (const Case& k : {
           Case{"dropout_probability = 0.000000e+00", "dropout_probability = 1.000000e-01",
                "attribute 'dropout_probability' = 0.1 is not supported (only 0)"},
           Case{"bias_type = 0", "bias_type = 2",
                "attribute 'bias_type' = 2 (post_scale_bias) is not supported"},
           Case{"window_size_left = -1", "window_size_left = 128",
                "attribute 'window_size_left' = 128 is not supported (no sliding window"},
           Case{"window_size_right = -1", "window_size_right = 0",
                "attribute 'window_size_right' = 0 is not supported"},
           Case{"qkv_layout = 9", "qkv_layout = 14",
                "attribute 'qkv_layout' = 14 (THD_THD_THD) is not supported"},
           Case{"mask_type = 0", "mask_type = 4",
                "attribute 'mask_type' = 4 (causal_bottom_right) is not supported"},
           Case{"num_gqa_groups = 1", "num_gqa_groups = 3",
                "attribute 'attn_heads' = 1 is not a multiple of 'num_gqa_groups' = 3"},
           Case{"scaling_factor = 1 : f64, ", "", "missing attribute 'scaling_factor' (f64)"},
           Case{"is_training = true", "is_training = \"yes\"",
                "attribute 'is_training' must be bool, is str"},
       }) {
    absl::Status s = EvalError(c, k.from, k.to);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << k.to << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), k.message)) << k.to << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "custom-call 'fwd': te_fused_attn_forward_ffi"))
        << s;
  }
}

TEST(FusedAttention, NoBackendConfigNamesAMissingAttribute) {
  const TeAttentionCase c;
  const std::string hlo = TeAttentionHlo(c, false);
  const size_t at = hlo.find(", backend_config={");
  ASSERT_NE(at, std::string::npos);
  const std::string bare = hlo.substr(0, at) + hlo.substr(hlo.find('\n', at));
  absl::StatusOr<Literal> r = EvalText(bare, Arguments(c, false));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_TRUE(absl::StrContains(
      r.status().message(),
      "custom-call 'fwd': te_fused_attn_forward_ffi: missing attribute 'qkv_layout' (i64)"))
      << r.status();
}

TEST(FusedAttention, BadShapesAndLengthsAreNamed) {
  TeAttentionCase c;
  c.mask_type = 1;
  // A q operand that does not match attn_heads.
  absl::Status s = EvalError(c, "attn_heads = 1", "attn_heads = 2");
  EXPECT_TRUE(absl::StrContains(s.message(), "operand 0 (q) has shape bf16[1,4,1,8]")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "expected dimensions [1,4,2,8]")) << s;
  // A sequence longer than q_max_seqlen.
  s = EvalError(c, "", "", Arguments(c, false, {5}, {4}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(
      s.message(), "operand 5 (q_cu_seqlens): sequence 0 has length 5 (5 - 0), outside [0, 4]"))
      << s;
}

}  // namespace
}  // namespace xla
