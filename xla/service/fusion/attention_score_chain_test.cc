// PeelAttentionScores on the chains JAX writes between attention's dots:
// what it finds (the score dot, the scale, the mask and its fill) for a
// scaled, causally masked f32 softmax over [B=2, H=3, Sq=5, Skv=7], a
// decode step's [B, H, Skv] scores without a query axis, and the chains it
// must refuse (a fill that changes results, no max subtraction, the
// probabilities also used elsewhere). The numeric check of rewrites built
// from these results is attention_rewriter_test and attention_decode_test
// (against the evaluator).
#include "xla/service/fusion/attention_score_chain.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// Attention over [2, 3, 5, 7] scores: `s / 4`, a top-left causal select
// with fill FILL, jax.nn.softmax's max (clamped by -inf) and EXTRA lines
// before the root (the output dot `o`).
constexpr char kAttention[] = R"(
HloModule attention
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  q = f32[2,3,5,16] parameter(0)
  k = f32[2,3,7,16] parameter(1)
  v = f32[2,3,7,8] parameter(2)
  s = f32[2,3,5,7] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  four = f32[] constant(4)
  fours = f32[2,3,5,7] broadcast(four), dimensions={}
  scaled = f32[2,3,5,7] divide(s, fours)
  iq = s32[5,7] iota(), iota_dimension=0
  ik = s32[5,7] iota(), iota_dimension=1
  causal = pred[5,7] compare(ik, iq), direction=LE
  mask = pred[2,3,5,7] broadcast(causal), dimensions={2,3}
  fill = f32[] constant(FILL)
  fills = f32[2,3,5,7] broadcast(fill), dimensions={}
  masked = f32[2,3,5,7] select(mask, scaled, fills)
  ninf = f32[] constant(-inf)
  rmax = f32[2,3,5] reduce(masked, ninf), dimensions={3}, to_apply=max_f32
  ninfs = f32[2,3,5] broadcast(ninf), dimensions={}
  cmax = f32[2,3,5] maximum(rmax, ninfs)
  bmax = f32[2,3,5,7] broadcast(cmax), dimensions={0,1,2}
  sub = f32[2,3,5,7] subtract(masked, bmax)
  e = f32[2,3,5,7] exponential(SUB)
  zero = f32[] constant(0)
  sum = f32[2,3,5] reduce(e, zero), dimensions={3}, to_apply=add_f32
  bsum = f32[2,3,5,7] broadcast(sum), dimensions={0,1,2}
  p = f32[2,3,5,7] divide(e, bsum)
  o = f32[2,3,5,8] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  EXTRA
}
)";

struct Peeled {
  std::unique_ptr<HloModule> module;
  std::optional<AttentionScoreSide> side;
};

Peeled Peel(const std::string& fill, const std::string& sub, const std::string& extra) {
  const std::string text = absl::StrReplaceAll(
      kAttention, {{"FILL", fill},
                   {"SUB", sub},
                   {"EXTRA", extra.empty() ? "ROOT r = f32[2,3,5,8] copy(o)" : extra}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << text;
  Peeled peeled;
  if (!module.ok()) return peeled;
  peeled.module = *std::move(module);
  HloInstruction* o = nullptr;
  for (const auto& instr : peeled.module->entry_computation()->instructions()) {
    if (instr->name() == "o") o = instr.get();
  }
  EXPECT_NE(o, nullptr);
  if (o != nullptr) peeled.side = PeelAttentionScores(o, o->operand(0), PrimitiveType::F32,
                                                      /*grouped=*/false);
  return peeled;
}

TEST(AttentionScoreChain, FindsTheScoreDotScaleAndCausalMask) {
  for (const char* fill : {"-1e9", "-inf", "-3.40282347e+38"}) {
    Peeled p = Peel(fill, "sub", "");
    ASSERT_TRUE(p.side.has_value()) << fill;
    EXPECT_EQ(p.side->dot->name(), "s");
    EXPECT_EQ(p.side->layout, nullptr);
    EXPECT_EQ(p.side->p->name(), "p");
    EXPECT_DOUBLE_EQ(p.side->scale, 0.25);
    EXPECT_TRUE(p.side->masked.mask.causal) << fill;
    EXPECT_FALSE(p.side->masked.mask.padding());
    EXPECT_EQ(p.side->masked.scores->name(), "scaled");
  }
}

TEST(AttentionScoreChain, RefusesWhatTheKernelDoesNotComputeExactly) {
  // A fill of -100 weighs hidden keys exp(-100 - max), not 0.
  EXPECT_FALSE(Peel("-100", "sub", "").side.has_value());
  // No max subtraction: exp overflows where the kernel does not.
  EXPECT_FALSE(Peel("-1e9", "masked", "").side.has_value());
  // The probabilities are also an output: fusing would not save them.
  EXPECT_FALSE(
      Peel("-1e9", "sub", "ROOT r = (f32[2,3,5,8], f32[2,3,5,7]) tuple(o, p)").side.has_value());
}

// A decode step: q [2, 3, 16] (no query axis), scores [2, 3, 7] masked by
// arange(7) <= pos: a key length pos + 1, the same for every batch.
TEST(AttentionScoreChain, DecodeStepWithoutTheQueryAxis) {
  const std::string text = R"(
HloModule decode
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  q = f32[2,3,16] parameter(0)
  k = f32[2,7,3,16] parameter(1)
  v = f32[2,7,3,8] parameter(2)
  pos = s32[] parameter(3)
  s = f32[2,3,7] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
  ik = s32[2,3,7] iota(), iota_dimension=2
  pb = s32[2,3,7] broadcast(pos), dimensions={}
  mask = pred[2,3,7] compare(ik, pb), direction=LE
  fill = f32[] constant(-1e9)
  fills = f32[2,3,7] broadcast(fill), dimensions={}
  masked = f32[2,3,7] select(mask, s, fills)
  ninf = f32[] constant(-inf)
  rmax = f32[2,3] reduce(masked, ninf), dimensions={2}, to_apply=max_f32
  bmax = f32[2,3,7] broadcast(rmax), dimensions={0,1}
  sub = f32[2,3,7] subtract(masked, bmax)
  e = f32[2,3,7] exponential(sub)
  zero = f32[] constant(0)
  sum = f32[2,3] reduce(e, zero), dimensions={2}, to_apply=add_f32
  bsum = f32[2,3,7] broadcast(sum), dimensions={0,1}
  p = f32[2,3,7] divide(e, bsum)
  ROOT o = f32[2,3,8] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  HloInstruction* o = (*module)->entry_computation()->root_instruction();
  std::optional<AttentionScoreSide> side = PeelAttentionScores(
      o, o->operand(0), PrimitiveType::F32, /*grouped=*/false, /*query_axis=*/false);
  ASSERT_TRUE(side.has_value());
  EXPECT_EQ(side->dot->name(), "s");
  EXPECT_DOUBLE_EQ(side->scale, 1.0);
  EXPECT_FALSE(side->masked.mask.causal);
  ASSERT_TRUE(side->masked.mask.kv_len.has_value());
  EXPECT_FALSE(side->masked.mask.q_len.has_value());
  EXPECT_DOUBLE_EQ(side->masked.fill, -1e9);
}

}  // namespace
}  // namespace xla
