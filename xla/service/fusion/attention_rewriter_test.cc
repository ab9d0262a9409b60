// AttentionRewriter on attention spelled the ways JAX spells it: every
// accepted variant is rewritten into te_fused_attn_forward_ffi and the
// evaluator (whose fused-attention oracle is plain f64 arithmetic) gives
// the same results before and after at odd sizes; near misses are left
// alone. The host kernel itself is checked end to end in
// xla/aot/attention_fusion_test.cc.
#include "xla/service/fusion/attention_rewriter.h"

#include <algorithm>
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

// Lengths for a padding mask (parameter 3): negative, 0 (rows that see
// no key), 1, inside, the full length and beyond it, chosen per seed from
// the random values.
void SetLengths(const Spelling& s, std::vector<Literal>* inputs) {
  if (s.padding.empty() || s.padding == "key_bool") return;
  const int64_t seq = std::max(s.sq, s.skv);
  const int64_t table[] = {-2, 0, 1, seq / 2, seq - 1, seq, seq + 3};
  Literal& len = (*inputs)[3];
  for (int64_t i = 0; i < len.element_count(); ++i) {
    len.SetInt(i, table[(3 * i + len.GetInt(i)) % 7]);
  }
}

// The rewrite happened, the result verifies and computes what the unfused
// module computes (evaluator, three random seeds).
void ExpectFused(const Spelling& s, const std::string& mask_type) {
  AttentionRewriter pass;
  const std::string hlo = Hlo(s);
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  options.adjust_inputs = [&](std::vector<Literal>* inputs) { SetLengths(s, inputs); };
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

TEST(AttentionRewriter, PaddingMasksFromLengths) {
  struct Variant {
    const char* what;
    void (*set)(Spelling&);
    const char* mask_type;
  };
  const Variant variants[] = {
      {"key padding, -1e9 fill", [](Spelling& s) { s.padding = "key"; s.fill = "-1e+09"; }, "1"},
      {"key padding, -inf fill", [](Spelling& s) { s.padding = "key"; }, "1"},
      {"key padding and causal",
       [](Spelling& s) {
         s.padding = "key";
         s.mask = "causal_select";
         s.sq = s.skv = 40;
       },
       "3"},
      {"hidden part: k > len | k > q, finfo.min fill",
       [](Spelling& s) {
         s.padding = "key_inclusive";
         s.padding_hidden = true;
         s.mask = "causal_select_inverted";
         s.fill = "-3.40282347e+38";
       },
       "3"},
      {"query and key padding and causal",
       [](Spelling& s) {
         s.padding = "query_key";
         s.mask = "causal_select";
         s.fill = "-1e+09";
       },
       "3"},
      {"query and key padding, hidden part, Sq 40 Skv 33",
       [](Spelling& s) {
         s.padding = "query_key";
         s.padding_hidden = true;
         s.sq = 40;
         s.skv = 33;
         s.dv = 8;
       },
       "1"},
      {"one batch dim",
       [](Spelling& s) {
         s.padding = "key";
         s.batch = {5};
         s.fill = "-1e+09";
       },
       "1"},
      {"three batch dims",
       [](Spelling& s) {
         s.padding = "query_key";
         s.batch = {2, 2, 3};
         s.sq = s.skv = 17;
       },
       "1"},
  };
  for (const Variant& v : variants) {
    Spelling s;
    v.set(s);
    SCOPED_TRACE(v.what);
    ExpectFused(s, v.mask_type);
  }
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
      {"padding on the query axis only", [](Spelling& s) { s.padding = "query"; }},
      {"a boolean key mask parameter (not provably a prefix)",
       [](Spelling& s) { s.padding = "key_bool"; }},
      {"lengths per batch and head",
       [](Spelling& s) { s.padding = "key_per_head"; }},
      {"additive padding mask (fully padded rows differ)",
       [](Spelling& s) {
         s.padding = "key_additive";
         s.fill = "-1e+09";
       }},
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
