// AttentionRewriter on attention spelled the ways JAX spells it: every
// accepted variant is rewritten into te_fused_attn_forward_ffi and the
// evaluator (whose fused-attention oracle is plain f64 arithmetic) gives
// the same results before and after at odd sizes; near misses are left
// alone. The host kernel itself is checked end to end in
// xla/aot/attention_fusion_test.cc.
#include "xla/service/fusion/attention_rewriter.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/fusion/attention_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::Lacks;
using pass_test::RunPassAndCheck;

using attention_test::Spelling;

std::string Hlo(const Spelling& s) { return attention_test::AttentionHlo(s); }

constexpr char kFused[] = "te_fused_attn_forward_ffi";

// The rewrite happened, the result verifies and computes what the unfused
// module computes (evaluator, three random seeds).
void ExpectFused(const Spelling& s, const std::string& mask_type) {
  AttentionRewriter pass;
  const std::string hlo = Hlo(s);
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  pass_test::PassResult r = RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed) << hlo;
  EXPECT_TRUE(Contains(r.text, kFused));
  EXPECT_TRUE(Contains(r.text, absl::StrCat("mask_type = ", mask_type, " : i64")));
}

// The module is left as it is.
void ExpectUnfused(const Spelling& s) {
  AttentionRewriter pass;
  const std::string hlo = Hlo(s);
  pass_test::PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_FALSE(r.changed) << hlo;
  EXPECT_TRUE(Lacks(r.text, kFused));
}

TEST(AttentionRewriter, PlainSoftmaxAtOddSizesAndHeadDims) {
  for (int64_t seq : {33, 40, 257}) {
    for (int64_t d : {8, 16, 64}) {
      if (seq == 257 && d != 16) continue;  // the evaluator is slow; one is enough
      Spelling s;
      s.batch = seq == 257 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 3};
      s.sq = s.skv = seq;
      s.d = s.dv = d;
      SCOPED_TRACE(absl::StrCat("seq ", seq, " d ", d));
      ExpectFused(s, "0");
    }
  }
}

TEST(AttentionRewriter, ScaleSpellingsAndNoScale) {
  for (const char* scale : {"", "mul", "mul_left", "div"}) {
    Spelling s;
    s.scale = scale;
    SCOPED_TRACE(scale);
    ExpectFused(s, "0");
  }
}

TEST(AttentionRewriter, UnequalLengthsAndValueDim) {
  Spelling s;
  s.sq = 40;
  s.skv = 33;
  s.d = 8;
  s.dv = 16;
  ExpectFused(s, "0");
}

TEST(AttentionRewriter, OneAndThreeBatchDims) {
  Spelling one;
  one.batch = {5};
  ExpectFused(one, "0");
  Spelling three;
  three.batch = {2, 2, 3};
  three.sq = three.skv = 17;
  ExpectFused(three, "0");
}

TEST(AttentionRewriter, SoftmaxSpellings) {
  for (int variant = 0; variant < 3; ++variant) {
    Spelling s;
    s.clamp_max = variant != 0;
    s.reciprocal = variant == 1;
    s.keepdims_chains = variant != 2;
    SCOPED_TRACE(variant);
    ExpectFused(s, "0");
  }
}

TEST(AttentionRewriter, CausalMasks) {
  for (const char* mask : {"causal_select", "causal_select_inverted", "causal_add"}) {
    for (const char* fill : {"-inf", "-1e+09", "-3.40282347e+38"}) {
      Spelling s;
      s.mask = mask;
      s.fill = fill;
      s.sq = s.skv = 40;
      SCOPED_TRACE(absl::StrCat(mask, " ", fill));
      ExpectFused(s, "2");
    }
  }
}

TEST(AttentionRewriter, CausalWithMoreKeysThanQueriesIsTopLeft) {
  Spelling s;
  s.mask = "causal_select";
  s.sq = 33;
  s.skv = 40;
  ExpectFused(s, "2");
}

TEST(AttentionRewriter, ScaleOnValuesIsStillAttention) {
  // dot(p, v * c) is attention over the values v * c: the kernel reads them.
  Spelling s;
  s.scale_v = true;
  ExpectFused(s, "0");
}

TEST(AttentionRewriter, NearMissesStayUnfused) {
  struct Miss {
    const char* what;
    void (*set)(Spelling&);
  };
  const Miss misses[] = {
      {"softmax over the query axis", [](Spelling& s) { s.softmax_over_queries = true; }},
      {"no max subtraction", [](Spelling& s) { s.no_max_subtraction = true; }},
      {"max of the unmasked scores",
       [](Spelling& s) {
         s.mask = "causal_select";
         s.max_of_unmasked = true;
       }},
      {"mask after the softmax",
       [](Spelling& s) {
         s.mask = "causal_select";
         s.mask_after_softmax = true;
       }},
      {"scale after the softmax", [](Spelling& s) { s.scale_after_softmax = true; }},
      {"probabilities also returned", [](Spelling& s) { s.extra_output = true; }},
      {"small finite fill",
       [](Spelling& s) {
         s.mask = "causal_select";
         s.fill = "-100";
       }},
      {"mask from a parameter", [](Spelling& s) { s.mask = "param_select"; }},
      {"bottom-right causal mask",
       [](Spelling& s) {
         s.mask = "bottom_right_select";
         s.sq = 33;
         s.skv = 40;
       }},
      {"bf16 softmax", [](Spelling& s) { s.type = "bf16"; }},
  };
  for (const Miss& m : misses) {
    Spelling s;
    m.set(s);
    SCOPED_TRACE(m.what);
    ExpectUnfused(s);
  }
}

}  // namespace
}  // namespace xla
