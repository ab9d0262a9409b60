// AttentionRewriter on bf16/f16 attention (docs/attention_fusion.md,
// "16-bit attention"): JAX's mixed-precision spelling and its 16-bit
// softmax are rewritten, for the host and for sm_80/sm_90, and the
// evaluator's result of the rewritten module (its fused-attention oracle is
// plain f64, rounded once to the output type) stays within the numeric
// contract of the unfused module's; the 16-bit spellings the contract does
// not cover, and what the NVPTX kernel cannot run, stay unfused.
//
// The contract's bound: attention_test::ContractBound (derived there).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
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
  const attention_test::ContractBound bound = attention_test::ContractBoundFor(s);
  pass_test::CheckOptions options;
  options.adjust_inputs = [&](std::vector<Literal>* inputs) { SetLengths(s, inputs); };
  options.compare = [&](const Literal& before, const Literal& after) {
    return attention_test::WithinContract(bound, before, after);
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
    for (const char* softmax : {"f32", "f32_early", "f32_dot", "f32_sum"}) {
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

TEST(AttentionRewriter16Bit, ScaleAndSoftmaxSpellings) {
  for (const char* softmax : {"f32", "f32_sum"}) {
    for (const char* scale : {"", "mul_left", "div"}) {
      Spelling s;
      s.type = "bf16";
      s.softmax = softmax;
      s.scale = scale;
      s.d = s.dv = 8;  // no scale: |s| <= 8
      SCOPED_TRACE(absl::StrCat(softmax, " scale '", scale, "'"));
      ExpectFused(s, "sm_90", "0");
    }
  }
  // The f32 softmax's other spellings: e * (1 / sum), no maximum(., -inf),
  // no keepdims chains.
  for (int variant = 0; variant < 2; ++variant) {
    Spelling s;
    s.type = "f16";
    s.softmax = "f32";
    s.reciprocal = variant == 0;
    s.clamp_max = variant != 0;
    s.keepdims_chains = variant != 0;
    SCOPED_TRACE(variant);
    ExpectFused(s, "host", "0");
  }
}

TEST(AttentionRewriter16Bit, CausalMasksAndFills) {
  struct Variant {
    const char* type;
    const char* mask;
    const char* fill;
  };
  // f16 has no finite fill <= -1e9: its lowest value (finfo(f16).min).
  const Variant variants[] = {
      {"bf16", "causal_select", "-inf"},
      {"bf16", "causal_select", "-3.38953139e+38"},  // jnp.finfo(bf16).min
      {"bf16", "causal_select_inverted", "-3.38953139e+38"},
      {"bf16", "causal_add", "-inf"},
      {"f16", "causal_select", "-inf"},
      {"f16", "causal_select", "-65504"},
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

// preferred_element_type=f32 score dots (no score convert; what
// jax.nn.dot_product_attention emits) with masks, padding and odd sizes,
// and jnp.finfo(f16).min applied after the scores' convert to f32.
TEST(AttentionRewriter16Bit, F32ScoreDotsAndF16FillsAfterTheConvert) {
  struct Variant {
    const char* type;
    const char* softmax;
    const char* mask;
    const char* fill;
    const char* padding;
    const char* scale;
    std::vector<int64_t> batch;
    int64_t sq, skv, d;
    const char* target;
    const char* mask_type;
  };
  const Variant variants[] = {
      {"bf16", "f32_dot", "causal_select", "-inf", "", "mul", {2, 3}, 40, 40, 64, "sm_80", "2"},
      {"bf16", "f32_dot", "causal_select", "-2.3819763e+38", "", "div", {2, 3}, 33, 33, 64, "host", "2"},
      {"f16", "f32_dot", "causal_select", "-2.3819763e+38", "", "mul", {1, 2}, 40, 40, 16, "sm_90", "2"},
      {"bf16", "f32_dot", "causal_select", "-inf", "key", "mul", {3, 2}, 33, 33, 8, "sm_90", "3"},
      {"f16", "f32_dot", "", "-inf", "key", "mul", {4, 1}, 33, 40, 16, "host", "1"},
      {"f16", "f32_dot", "", "", "", "", {5}, 40, 33, 8, "sm_80", "0"},
      {"f16", "f32", "causal_select", "-65504", "", "mul", {2, 3}, 40, 40, 16, "sm_90", "2"},
      {"f16", "f32_early", "causal_select", "-65504", "", "mul", {2, 3}, 33, 33, 64, "sm_80", "2"},
      {"f16", "f32_early", "causal_select", "-65504", "", "div", {2, 1}, 40, 40, 8, "host", "2"},
      {"f16", "f32_early", "causal_select_inverted", "-65504", "key", "", {3, 2}, 33, 33, 8, "host", "3"},
  };
  for (const Variant& v : variants) {
    Spelling s;
    s.type = v.type;
    s.softmax = v.softmax;
    s.mask = v.mask;
    s.fill = v.fill;
    s.padding = v.padding;
    s.padding_hidden = std::string(v.mask) == "causal_select_inverted";
    s.scale = v.scale;
    s.batch = v.batch;
    s.sq = v.sq;
    s.skv = v.skv;
    s.d = s.dv = v.d;
    SCOPED_TRACE(absl::StrCat(v.type, " ", v.softmax, " ", v.mask, " ", v.fill, " ", v.padding,
                              " ", v.scale, " ", v.target));
    ExpectFused(s, v.target, v.mask_type);
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

// The bound is not vacuous: it tells attention without its causal mask
// from attention with it (the evaluator, both unfused).
TEST(AttentionRewriter16Bit, TheContractSeparatesAMissingMask) {
  Spelling masked;
  masked.type = "bf16";
  masked.softmax = "f32";
  masked.mask = "causal_select";
  Spelling plain = masked;
  plain.mask = "";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(attention_test::AttentionHlo(plain));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 5);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> a = evaluator_test::EvalText(attention_test::AttentionHlo(masked), *args);
  absl::StatusOr<Literal> b = evaluator_test::EvalText(attention_test::AttentionHlo(plain), *args);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(attention_test::WithinContract(attention_test::ContractBoundFor(masked), *a, *a).ok());
  EXPECT_FALSE(attention_test::WithinContract(attention_test::ContractBoundFor(masked), *a, *b).ok());
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
  Spelling odd_head = mixed;
  odd_head.d = 12;  // not a multiple of 8: the NVPTX kernel refuses it
  ExpectUnfused(odd_head, For("sm_90"));
  Spelling wide_head = mixed;
  wide_head.d = wide_head.dv = 136;  // above 128
  wide_head.sq = wide_head.skv = 9;
  ExpectUnfused(wide_head, For("sm_90"));
  Spelling f16_fill = mixed;  // a finite f16 fill above f16's lowest value
  f16_fill.type = "f16";
  f16_fill.mask = "causal_select";
  f16_fill.fill = "-60000";
  ExpectUnfused(f16_fill, For("host"));
  // f32 scores of an f16 dot are not bounded by f16's range: finfo(f16).min
  // is no fill for them.
  Spelling wide_scores = f16_fill;
  wide_scores.softmax = "f32_dot";
  wide_scores.fill = "-65504";
  ExpectUnfused(wide_scores, For("host"));
  Spelling f32_dot_off = mixed;
  f32_dot_off.softmax = "f32_dot";
  ExpectUnfused(f32_dot_off, off);
  Spelling f32;  // the NVPTX kernel's MMA takes 16-bit operands only
  ExpectUnfused(f32, For("sm_90"));
  Spelling probabilities_returned = mixed;
  probabilities_returned.extra_output = true;
  ExpectUnfused(probabilities_returned, For("sm_90"));
}

}  // namespace
}  // namespace xla
