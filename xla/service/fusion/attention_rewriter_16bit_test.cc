// AttentionRewriter on bf16/f16 attention (docs/attention_fusion.md,
// "16-bit attention"): JAX's mixed-precision spelling and its 16-bit
// softmax are rewritten, for the host and for sm_80/sm_90, and the
// evaluator's result of the rewritten module (its fused-attention oracle is
// plain f64, rounded once to the output type) stays within the numeric
// contract of the unfused module's; the 16-bit spellings the contract does
// not cover, and what the NVPTX kernel cannot run, stay unfused.
//
// The contract's bound, per output element, with u the unit roundoff of
// the 16-bit type (2^-8 bf16, 2^-11 f16), |v| <= 1 and |s| <= smax:
//
//   |o_fused - o_unfused| <= (e^(2 delta) (1 + u)^m - 1) + u (|o_fused| + |o_unfused|)
//                            + Skv * tiny
//
// delta bounds the error of one exponent s_i - max: the unfused module
// rounds each score to 16 bits k times (the dot; a scale by a constant
// that is not a power of two, once more), each an absolute error of at
// most u * smax, and a softmax in 16 bits also rounds s - max (|s - max|
// <= 2 smax): delta = (k + 2 [16-bit softmax]) u smax. A relative error
// of at most d in every exp(s_i - max) moves each probability by a factor
// within e^(+-2 d); m counts the probability's own roundings (1: convert
// to 16 bits; 3 for a 16-bit softmax: exp, the rounded sum, the
// quotient). sum |p'_i - p_i| |v_i| is then at most that factor minus 1;
// each side's output is rounded once more (u |o|). tiny is f16's largest
// subnormal rounding error (2^-25; 0 for bf16), once per key.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/fusion/attention_rewriter.h"
#include "xla/service/fusion/attention_test_util.h"

namespace xla {
namespace {

using attention_test::Spelling;
using pass_test::Contains;
using pass_test::Lacks;
using pass_test::RunPassAndCheck;

constexpr char kFused[] = "te_fused_attn_forward_ffi";

// The contract's bound for `s` (see the top of the file). The random
// inputs are uniform in [-1, 1), so |v| <= 1 and |s| <= scale * d.
struct Bound {
  double u = 0, tiny = 0, smax = 0;
  int roundings = 1;  // k
  int prob_roundings = 1;  // m
  bool softmax_16bit = false;
  int64_t skv = 0;

  double Of(double fused, double unfused) const {
    const double delta = (roundings + (softmax_16bit ? 2 : 0)) * u * smax;
    return std::exp(2 * delta) * std::pow(1 + u, prob_roundings) - 1 +
           u * (std::fabs(fused) + std::fabs(unfused)) + skv * tiny;
  }
};

Bound BoundFor(const Spelling& s) {
  Bound b;
  const bool f16 = s.type == "f16";
  b.u = f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  b.tiny = f16 ? std::ldexp(1.0, -25) : 0;
  const double scale = s.scale.empty() ? 1.0 : 0.25;  // the util's constants: 0.25, 1/4
  b.smax = scale * static_cast<double>(s.d);
  b.softmax_16bit = s.softmax == "f32_sum";
  b.prob_roundings = b.softmax_16bit ? 3 : 1;
  b.skv = s.skv;
  return b;
}

// OK when every element of `after` (the fused module's result) is within
// the bound of `before`'s; NaN only where NaN is expected.
absl::Status WithinContract(const Bound& bound, const Literal& before, const Literal& after) {
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < before.element_count(); ++i) {
    const double want = before.GetDouble(i), got = after.GetDouble(i);
    if (std::isnan(want) || std::isnan(got)) {
      if (std::isnan(want) != std::isnan(got)) ++bad, first = first < 0 ? i : first;
      continue;
    }
    const double err = std::fabs(got - want);
    worst = std::max(worst, err / bound.Of(got, want));
    if (err > bound.Of(got, want)) ++bad, first = first < 0 ? i : first;
  }
  if (bad == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(bad, " of ", before.element_count(), " elements outside the contract; first at ",
                   first, ": unfused ", before.GetDouble(first), ", fused ", after.GetDouble(first),
                   ", bound ", bound.Of(after.GetDouble(first), before.GetDouble(first)),
                   " (worst error/bound ", worst, ")"));
}

// Keys per batch for a padding mask (parameter 3): 0 (rows that see no
// key), 1, inside and full.
void SetLengths(const Spelling& s, std::vector<Literal>* inputs) {
  if (s.padding.empty()) return;
  const int64_t table[] = {0, 1, s.skv / 2, s.skv};
  Literal& len = (*inputs)[3];
  for (int64_t i = 0; i < len.element_count(); ++i) len.SetInt(i, table[i % 4]);
}

AttentionRewriterOptions For(const std::string& target) {
  AttentionRewriterOptions options;
  options.target = target;
  return options;
}

void ExpectFused(const Spelling& s, const std::string& target, const std::string& mask_type) {
  AttentionRewriter pass(For(target));
  const std::string hlo = attention_test::AttentionHlo(s);
  const Bound bound = BoundFor(s);
  pass_test::CheckOptions options;
  options.adjust_inputs = [&](std::vector<Literal>* inputs) { SetLengths(s, inputs); };
  options.compare = [&](const Literal& before, const Literal& after) {
    return WithinContract(bound, before, after);
  };
  pass_test::PassResult r = RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed) << hlo;
  EXPECT_TRUE(Contains(r.text, kFused));
  EXPECT_TRUE(Contains(r.text, absl::StrCat("mask_type = ", mask_type, " : i64")));
  // The call's output keeps the inputs' type (the kernel's contract).
  EXPECT_TRUE(Contains(r.text, absl::StrCat("(", s.type, "[")));
}

void ExpectUnfused(const Spelling& s, AttentionRewriterOptions options) {
  AttentionRewriter pass(std::move(options));
  const std::string hlo = attention_test::AttentionHlo(s);
  pass_test::PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_FALSE(r.changed) << hlo;
  EXPECT_TRUE(Lacks(r.text, kFused));
}

TEST(AttentionRewriter16Bit, SpellingsTypesAndTargets) {
  for (const char* type : {"bf16", "f16"}) {
    for (const char* softmax : {"f32", "f32_early", "f32_sum"}) {
      for (const char* target : {"host", "sm_90"}) {
        Spelling s;
        s.type = type;
        s.softmax = softmax;
        SCOPED_TRACE(absl::StrCat(type, " softmax ", softmax, " ", target));
        ExpectFused(s, target, "0");
      }
    }
  }
}

TEST(AttentionRewriter16Bit, CausalMasksAndFills) {
  struct Variant {
    const char* type;
    const char* mask;
    const char* fill;
  };
  // f16 has no finite fill <= -1e9: -inf only.
  const Variant variants[] = {
      {"bf16", "causal_select", "-inf"},
      {"bf16", "causal_select", "-3.38953139e+38"},  // jnp.finfo(bf16).min
      {"bf16", "causal_select_inverted", "-3.38953139e+38"},
      {"bf16", "causal_add", "-inf"},
      {"f16", "causal_select", "-inf"},
  };
  for (const Variant& v : variants) {
    for (const char* softmax : {"f32", "f32_sum"}) {
      Spelling s;
      s.type = v.type;
      s.softmax = softmax;
      s.mask = v.mask;
      s.fill = v.fill;
      s.sq = s.skv = 40;
      SCOPED_TRACE(absl::StrCat(v.type, " ", v.mask, " ", v.fill, " ", softmax));
      ExpectFused(s, "sm_80", "2");
    }
  }
}

TEST(AttentionRewriter16Bit, OddSizesHeadDimsAndBatchRanks) {
  Spelling a;
  a.type = "bf16";
  a.softmax = "f32";
  a.sq = 33;
  a.skv = 257;
  a.d = 8;
  a.dv = 24;
  a.batch = {1, 2};
  ExpectFused(a, "sm_90", "0");
  Spelling b = a;
  b.batch = {3};
  b.sq = b.skv = 17;
  b.d = b.dv = 16;
  b.mask = "causal_select";
  ExpectFused(b, "sm_90", "2");
  // Head dims the NVPTX kernel refuses still fuse on the host.
  Spelling c = a;
  c.d = 12;
  c.skv = 40;
  ExpectFused(c, "host", "0");
}

TEST(AttentionRewriter16Bit, PaddingRowsThatSeeNoKeyKeepTheUnfusedValue) {
  for (const char* fill : {"-inf", "-3.38953139e+38"}) {
    Spelling s;
    s.type = "bf16";
    s.softmax = "f32";
    s.padding = "key";
    s.mask = "causal_select";
    s.fill = fill;
    s.batch = {4, 2};
    SCOPED_TRACE(fill);
    ExpectFused(s, "sm_90", "3");
  }
}

TEST(AttentionRewriter16Bit, RefusedSpellingsAndTargets) {
  Spelling bf16_sum;  // every step in bf16, the row sum too
  bf16_sum.type = "bf16";
  ExpectUnfused(bf16_sum, For("host"));
  Spelling mixed;
  mixed.type = "bf16";
  mixed.softmax = "f32";
  AttentionRewriterOptions off = For("host");
  off.fuse_16bit = false;
  ExpectUnfused(mixed, off);
  ExpectUnfused(mixed, For("sm_70"));  // no bf16 mma.sync before sm_80
  Spelling odd_head = mixed;
  odd_head.d = 12;  // not a multiple of 8: the NVPTX kernel refuses it
  ExpectUnfused(odd_head, For("sm_90"));
  Spelling wide_head = mixed;
  wide_head.d = wide_head.dv = 136;  // above 128
  wide_head.sq = wide_head.skv = 9;
  ExpectUnfused(wide_head, For("sm_90"));
  Spelling f32;  // the NVPTX kernel's MMA takes 16-bit operands only
  ExpectUnfused(f32, For("sm_90"));
  Spelling probabilities_returned = mixed;
  probabilities_returned.extra_output = true;
  ExpectUnfused(probabilities_returned, For("sm_90"));
}

}  // namespace
}  // namespace xla
