// InstructionFusion on small hand-written modules. Every case runs through
// RunPassAndCheck: the result verifies and computes what the input computed
// (evaluator, random inputs, three seeds).
#include "xla/service/fusion/instruction_fusion.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/fusion/fusion_cost_model.h"
#include "xla/service/fusion/fusion_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::Lacks;
using pass_test::RunPassAndCheck;

// Fusion instructions of the entry computation.
std::vector<const HloInstruction*> EntryFusions(const HloModule& m) {
  std::vector<const HloInstruction*> out;
  for (const auto& i : m.entry_computation()->instructions()) {
    if (i->opcode() == HloOpcode::kFusion) out.push_back(i.get());
  }
  return out;
}

// The reducers of the softmax modules.
constexpr char kMaxAndAdd[] = R"(
HloModule m
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] maximum(x, y)
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(InstructionFusion, ElementwiseChainBecomesOneLoopFusion) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[7,13] parameter(0)
  b = f32[7,13] parameter(1)
  x = f32[7,13] add(a, b)
  y = f32[7,13] multiply(x, a)
  z = f32[7,13] negate(y)
  ROOT w = f32[7,13] subtract(z, b)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  auto fusions = EntryFusions(*r.module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->GetString(AttrId::kFusionKind), "kLoop");
  EXPECT_EQ(fusions[0]->operand_count(), 2);
  EXPECT_EQ(r.module->entry_computation()->root_instruction(), fusions[0]);
  EXPECT_TRUE(Contains(r.text, "fused_w"));
  EXPECT_EQ(FusedComputation(*fusions[0])->instruction_count(), 6);
}

// A batch-norm scale: rsqrt of a [5] vector broadcast along the last
// dimension of a [3,7,9,5] array. Fused, the rsqrt would run once per
// element of the big array; it stays a small kernel of its own. The same
// rsqrt broadcast along the leading dimension (a per-row value, hoisted out
// of the kernel's inner loop) fuses.
TEST(InstructionFusion, ExpensiveSmallProducersStayOutOfExpandingFusions) {
  InstructionFusion pass;
  auto per_column = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  x = f32[3,7,9,5] parameter(0)
  v = f32[5] parameter(1)
  r = f32[5] rsqrt(v)
  b = f32[3,7,9,5] broadcast(r), dimensions={3}
  ROOT m = f32[3,7,9,5] multiply(x, b)
})");
  ASSERT_NE(per_column.module, nullptr);
  auto fusions = EntryFusions(*per_column.module);
  ASSERT_EQ(fusions.size(), 2u) << per_column.text;
  EXPECT_EQ(CountOpcode(*per_column.module, HloOpcode::kRsqrt), 1);
  for (const HloInstruction* f : fusions) {
    if (f->shape().dimensions().size() != 4) continue;
    for (const auto& i : FusedComputation(*f)->instructions()) {
      EXPECT_NE(i->opcode(), HloOpcode::kRsqrt) << per_column.text;
    }
  }
  auto per_row = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  x = f32[5,7,9] parameter(0)
  v = f32[5] parameter(1)
  r = f32[5] rsqrt(v)
  b = f32[5,7,9] broadcast(r), dimensions={0}
  ROOT m = f32[5,7,9] multiply(x, b)
})");
  ASSERT_NE(per_row.module, nullptr);
  EXPECT_EQ(EntryFusions(*per_row.module).size(), 1u) << per_row.text;
}

TEST(InstructionFusion, ShapeOpsAreFusible) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = f32[3,5] parameter(0)
  q = f32[5] parameter(1)
  c = s32[3,5] parameter(2)
  b = f32[3,5] broadcast(q), dimensions={1}
  t = f32[5,3] transpose(p), dimensions={1,0}
  rs = f32[3,5] reshape(t)
  s = f32[3,4] slice(rs), slice={[0:3], [1:5]}
  z = f32[] constant(0.5)
  pd = f32[3,5] pad(s, z), padding=0_0x1_0
  cat = f32[6,5] concatenate(pd, b), dimensions={0}
  io = s32[6,5] iota(), iota_dimension=0
  cv = f32[6,5] convert(io)
  cc = s32[6,5] concatenate(c, c), dimensions={0}
  zero = s32[] constant(1)
  zb = s32[6,5] broadcast(zero), dimensions={}
  cmp = pred[6,5] compare(cc, zb), direction=GT
  ROOT sel = f32[6,5] select(cmp, cat, cv)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(EntryFusions(*r.module).size(), 1u);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kFusion), 1);
  // Everything but the parameters sits in the one fused computation.
  EXPECT_EQ(r.module->entry_computation()->instruction_count(), 4);
}

TEST(InstructionFusion, ExpensiveProducerWithTwoUsersIsNotDuplicated) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[9,17] parameter(0)
  x = f32[9,17] exponential(a)
  y = f32[9,17] add(x, a)
  d = f32[17,9] transpose(x), dimensions={1,0}
  z = f32[17,9] negate(d)
  ROOT t = (f32[9,17], f32[17,9]) tuple(y, z)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kExp), 1);
  EXPECT_EQ(EntryFusions(*r.module).size(), 3u);
}

TEST(InstructionFusion, CheapProducerWithTwoUsersIsDuplicated) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[9,17] parameter(0)
  x = f32[9,17] negate(a)
  y = f32[9,17] exponential(x)
  d = f32[17,9] transpose(x), dimensions={1,0}
  z = f32[17,9] log(d)
  ROOT t = (f32[9,17], f32[17,9]) tuple(y, z)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kNegate), 2);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
}

TEST(InstructionFusion, SmallExpensiveProducerIsDuplicated) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[5] parameter(0)
  x = f32[5] exponential(a)
  y = f32[5] add(x, a)
  z = f32[5] multiply(x, a)
  ROOT t = (f32[5], f32[5]) tuple(y, z)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kExp), 2);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
}

TEST(InstructionFusion, ReduceWithElementwiseProducersIsInputFusion) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[11,7] parameter(0)
  b = f32[11,7] parameter(1)
  m = f32[11,7] multiply(a, b)
  e = f32[11,7] exponential(m)
  z = f32[] constant(0)
  ROOT r = f32[7] reduce(e, z), dimensions={0}, to_apply=add
})");
  ASSERT_NE(r.module, nullptr);
  auto fusions = EntryFusions(*r.module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->GetString(AttrId::kFusionKind), "kInput");
  EXPECT_EQ(fusions[0]->operand_count(), 2);  // the scalar init was copied in
  // The reducer is not rewritten.
  EXPECT_TRUE(Contains(r.text, "to_apply=add"));
}

TEST(InstructionFusion, ColumnReduceIsNotFusedIntoLoopConsumer) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[11,7] parameter(0)
  z = f32[] constant(0)
  r = f32[7] reduce(a, z), dimensions={0}, to_apply=add
  b = f32[11,7] broadcast(r), dimensions={1}
  ROOT d = f32[11,7] subtract(a, b)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
}

TEST(InstructionFusion, SoftmaxRowNormalizationIsOneFusion) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, std::string(kMaxAndAdd) + R"(
ENTRY e {
  a = f32[7,129] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[7] reduce(a, ninf), dimensions={1}, to_apply=max
  mb = f32[7,129] broadcast(m), dimensions={0}
  s = f32[7,129] subtract(a, mb)
  x = f32[7,129] exponential(s)
  z = f32[] constant(0)
  sum = f32[7] reduce(x, z), dimensions={1}, to_apply=add
  sb = f32[7,129] broadcast(sum), dimensions={0}
  ROOT d = f32[7,129] divide(x, sb)
})");
  ASSERT_NE(r.module, nullptr);
  auto fusions = EntryFusions(*r.module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->GetString(AttrId::kFusionKind), "kInput");
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kExp), 1);
}

// Attention's softmax: rows of a [2,3,5,7] score array, whose result is
// reshaped to [6,5,7] for the next batched dot. The reshape moves no byte,
// so it stays outside (it becomes a bitcast) instead of rooting a fusion
// of [6,5,7] shape that the row reductions could not join: the whole
// softmax is one fusion.
TEST(InstructionFusion, SoftmaxBeforeABitcastReshapeIsOneFusion) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, std::string(kMaxAndAdd) + R"(
ENTRY e {
  a = f32[2,3,5,7] parameter(0)
  v = f32[6,7,3] parameter(1)
  ninf = f32[] constant(-inf)
  m = f32[2,3,5] reduce(a, ninf), dimensions={3}, to_apply=max
  mb = f32[2,3,5,7] broadcast(m), dimensions={0,1,2}
  s = f32[2,3,5,7] subtract(a, mb)
  x = f32[2,3,5,7] exponential(s)
  z = f32[] constant(0)
  sum = f32[2,3,5] reduce(x, z), dimensions={3}, to_apply=add
  sb = f32[2,3,5,7] broadcast(sum), dimensions={0,1,2}
  d = f32[2,3,5,7] divide(x, sb)
  p = f32[6,5,7] reshape(d)
  ROOT o = f32[6,5,3] dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
  ASSERT_NE(r.module, nullptr);
  auto fusions = EntryFusions(*r.module);
  ASSERT_EQ(fusions.size(), 1u) << r.text;
  EXPECT_EQ(fusions[0]->GetString(AttrId::kFusionKind), "kInput");
  EXPECT_EQ(fusions[0]->shape().dimensions(), (std::vector<int64_t>{2, 3, 5, 7}));
  EXPECT_EQ(fusions[0]->users().front()->opcode(), HloOpcode::kReshape);
}

// im2col of a batch norm's output: nine shifted slices of one pad read
// each element of the normalized [1,8,8,16] value nine times. Fused, the
// scale-and-shift chain would be computed nine times per element; it is
// a kernel of its own and the im2col fusion loads its result. With two
// slices (twice per element) it stays fused.
TEST(InstructionFusion, ValuesReadManyTimesPerElementAreComputedOnce) {
  auto im2col = [](int slices) {
    std::string text = R"(
HloModule m
ENTRY e {
  x = f32[1,8,8,16] parameter(0)
  s = f32[16] parameter(1)
  b = f32[16] parameter(2)
  sb = f32[1,8,8,16] broadcast(s), dimensions={3}
  bb = f32[1,8,8,16] broadcast(b), dimensions={3}
  m = f32[1,8,8,16] multiply(x, sb)
  a = f32[1,8,8,16] add(m, bb)
  z = f32[] constant(0)
  zb = f32[1,8,8,16] broadcast(z), dimensions={}
  r = f32[1,8,8,16] maximum(a, zb)
  p = f32[1,10,10,16] pad(r, z), padding=0_0x1_1x1_1x0_0
)";
    std::string operands;
    for (int i = 0; i < slices; ++i) {
      absl::StrAppend(&text, "  s", i, " = f32[1,8,8,16] slice(p), slice={[0:1], [", i / 3, ":", i / 3 + 8,
                      "], [", i % 3, ":", i % 3 + 8, "], [0:16]}\n");
      absl::StrAppend(&operands, i == 0 ? "" : ", ", "s", i);
    }
    absl::StrAppend(&text, "  ROOT c = f32[1,8,8,", 16 * slices, "] concatenate(", operands,
                    "), dimensions={3}\n}\n");
    return text;
  };
  InstructionFusion pass;
  auto nine = RunPassAndCheck(pass, im2col(9));
  ASSERT_NE(nine.module, nullptr);
  auto fusions = EntryFusions(*nine.module);
  ASSERT_EQ(fusions.size(), 2u) << nine.text;
  // The chain's kernel computes the maximum; the im2col kernel only pads,
  // slices and concatenates.
  for (const HloInstruction* f : fusions) {
    bool has_max = false, has_pad = false;
    for (const auto& i : FusedComputation(*f)->instructions()) {
      has_max |= i->opcode() == HloOpcode::kMaximum;
      has_pad |= i->opcode() == HloOpcode::kPad;
    }
    EXPECT_NE(has_max, has_pad) << nine.text;
  }
  auto two = RunPassAndCheck(pass, im2col(2));
  ASSERT_NE(two.module, nullptr);
  EXPECT_EQ(EntryFusions(*two.module).size(), 1u) << two.text;
}

TEST(InstructionFusion, RowReduceUsedWithoutBroadcastBackIsNotFusedIntoLoop) {
  InstructionFusion pass;
  // The reduce result is transposed-broadcast (dims={1}), not broadcast
  // back along the reduced dimension.
  auto r = RunPassAndCheck(pass, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[9,9] parameter(0)
  z = f32[] constant(0)
  r = f32[9] reduce(a, z), dimensions={1}, to_apply=add
  b = f32[9,9] broadcast(r), dimensions={1}
  ROOT d = f32[9,9] subtract(a, b)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
}

TEST(InstructionFusion, DotAndCustomCallStayOutside) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[5,6] parameter(0)
  b = f32[6,3] parameter(1)
  n = f32[5,6] negate(a)
  d = f32[5,3] dot(n, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[5,3] tanh(d)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
  EXPECT_EQ(r.module->entry_computation()->root_instruction()->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 1);
  bool dot_in_entry = false;
  for (const auto& i : r.module->entry_computation()->instructions()) {
    dot_in_entry |= i->opcode() == HloOpcode::kDot;
  }
  EXPECT_TRUE(dot_in_entry);
}

TEST(InstructionFusion, ParameterCapIsRespected) {
  FusionLimits limits;
  limits.max_parameters = 3;
  InstructionFusion pass(limits);
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  d = f32[4] parameter(3)
  e = f32[4] parameter(4)
  x = f32[4] add(a, b)
  y = f32[4] add(c, d)
  z = f32[4] add(x, y)
  ROOT w = f32[4] add(z, e)
})");
  ASSERT_NE(r.module, nullptr);
  for (const HloInstruction* f : EntryFusions(*r.module)) EXPECT_LE(f->operand_count(), 3);
  EXPECT_GE(EntryFusions(*r.module).size(), 2u);
}

// A transformer's residual stream in bf16 over `layers` layers, h_k =
// h_{k-1} + bf16(f32(w_k) * s), and each layer's norm sum(f32(h_k)^2): every
// h_k is shared by the next layer and its own norm.
std::string ResidualStream(int layers) {
  std::string hlo = absl::StrCat(kMaxAndAdd, R"(ENTRY e {
  h0 = bf16[1,37] parameter(0)
  s = f32[] parameter(1)
  sb = f32[1,37] broadcast(s), dimensions={}
  zero = f32[] constant(0)
)");
  std::string results;
  for (int k = 1; k <= layers; ++k) {
    absl::StrAppend(&hlo, "  w", k, " = bf16[1,37] parameter(", k + 1, ")\n",
                    "  wf", k, " = f32[1,37] convert(w", k, ")\n",
                    "  m", k, " = f32[1,37] multiply(wf", k, ", sb)\n",
                    "  mb", k, " = bf16[1,37] convert(m", k, ")\n",
                    "  h", k, " = bf16[1,37] add(h", k - 1, ", mb", k, ")\n",
                    "  hf", k, " = f32[1,37] convert(h", k, ")\n",
                    "  sq", k, " = f32[1,37] multiply(hf", k, ", hf", k, ")\n",
                    "  n", k, " = f32[] reduce(sq", k, ", zero), dimensions={0,1}, to_apply=add\n");
    absl::StrAppend(&results, "n", k, ", ");
  }
  absl::StrAppend(&hlo, "  ROOT t = tuple(", results, "h", layers, ")\n}\n");
  return hlo;
}

// Arithmetic instructions (not parameters, constants or data movement) of
// the largest fused computation, and of all of them together.
std::pair<int64_t, int64_t> FusedArithmetic(const HloModule& m) {
  int64_t largest = 0, total = 0;
  for (const HloInstruction* f : EntryFusions(m)) {
    int64_t n = 0;
    for (const auto& i : FusedComputation(*f)->instructions()) {
      n += i->opcode() != HloOpcode::kParameter && !FusionRecomputeIsALoad(i->opcode());
    }
    largest = std::max(largest, n);
    total += n;
  }
  return {largest, total};
}

// Without a copy budget each layer's norm recomputes the stream from h0
// (quadratic in the depth: Gemma 2B's 20 largest host kernels); with it,
// a fusion copies at most max_duplicated_arithmetic shared arithmetic
// instructions and reads the rest. The evaluator checks both against the
// unfused module.
TEST(InstructionFusion, SharedArithmeticCopiesAreBudgeted) {
  constexpr int kLayers = 24;
  const std::string hlo = ResidualStream(kLayers);
  FusionLimits unlimited;
  unlimited.max_duplicated_arithmetic = int64_t{1} << 40;
  InstructionFusion copy_all(unlimited);
  auto before = RunPassAndCheck(copy_all, hlo);
  ASSERT_NE(before.module, nullptr);
  const auto [largest_before, total_before] = FusedArithmetic(*before.module);
  // The last norm holds the whole stream: 4 per layer, its convert,
  // multiply and reduce.
  EXPECT_EQ(largest_before, 4 * kLayers + 3);
  EXPECT_GT(total_before, 50 * kLayers);  // 2 k per layer k: quadratic

  FusionLimits limits;
  limits.max_duplicated_arithmetic = 6;
  InstructionFusion budgeted(limits);
  auto after = RunPassAndCheck(budgeted, hlo);
  ASSERT_NE(after.module, nullptr);
  const auto [largest_after, total_after] = FusedArithmetic(*after.module);
  // Its own (at most a layer's 4 and a norm's 3) plus the copies.
  EXPECT_LE(largest_after, 4 + 3 + 6);
  EXPECT_LT(total_after, 25 * kLayers);  // linear
  EXPECT_EQ(FusionLimits().max_duplicated_arithmetic, 32);
}

TEST(InstructionFusion, InstructionCapIsRespected) {
  FusionLimits limits;
  limits.max_instructions = 2;
  InstructionFusion pass(limits);
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  x = f32[4] negate(a)
  y = f32[4] abs(x)
  z = f32[4] negate(y)
  ROOT w = f32[4] abs(z)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
}

TEST(InstructionFusion, LargeConstantStaysParameterSmallIsCopied) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[20] parameter(0)
  big = f32[20] constant({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20})
  s = f32[] constant(3)
  sb = f32[20] broadcast(s), dimensions={}
  x = f32[20] multiply(a, big)
  ROOT y = f32[20] add(x, sb)
})");
  ASSERT_NE(r.module, nullptr);
  auto fusions = EntryFusions(*r.module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->operand_count(), 2);
  EXPECT_EQ(fusions[0]->operand(1)->opcode(), HloOpcode::kConstant);
}

TEST(InstructionFusion, RefusingMergesIntoExistingFusion) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
f1 {
  p = f32[6] parameter(0)
  ROOT n = f32[6] negate(p)
}
f2 {
  p = f32[6] parameter(0)
  q = f32[6] parameter(1)
  ROOT n = f32[6] multiply(p, q)
}
ENTRY e {
  a = f32[6] parameter(0)
  x = f32[6] fusion(a), kind=kLoop, calls=f1
  y = f32[6] exponential(x)
  ROOT z = f32[6] fusion(y, a), kind=kLoop, calls=f2
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(EntryFusions(*r.module).size(), 1u);
  EXPECT_EQ(r.module->computations().size(), 2u);  // entry + the merged fusion
  // A second run changes nothing.
  InstructionFusion again;
  auto changed = again.Run(r.module.get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(InstructionFusion, WhileBodyIsFusedReducerIsNot) {
  InstructionFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
cond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[5] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[5] broadcast(h), dimensions={}
  w = f32[5] multiply(v, hb)
  u = f32[5] add(w, hb)
  ROOT t = (s32[], f32[5]) tuple(j, u)
}
ENTRY e {
  a = f32[5] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[5]) tuple(z, a)
  ROOT w = (s32[], f32[5]) while(t), condition=cond, body=body
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_GE(CountOpcode(*r.module, HloOpcode::kFusion), 2);
  EXPECT_TRUE(Lacks(r.text, "fused_t"));
}

TEST(InstructionFusion, NoCycleThroughUnfusedPath) {
  InstructionFusion pass;
  // x (expensive, too big to copy) feeds the dot and the root: fusing it
  // into the root would make root -> dot -> root a cycle, so it becomes a
  // fusion of its own.
  auto r = RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[16,16] parameter(0)
  x = f32[16,16] exponential(a)
  d = f32[16,16] dot(x, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT y = f32[16,16] add(x, d)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kExp), 1);
  EXPECT_EQ(EntryFusions(*r.module).size(), 2u);
}

}  // namespace
}  // namespace xla
