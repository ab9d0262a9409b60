#include "xla/service/buffer_assignment/copy_insertion.h"

#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

int64_t CountOpcode(const HloModule& m, HloOpcode op) {
  int64_t n = 0;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) n += i->opcode() == op;
  }
  return n;
}

// Runs the pass; the module must verify and compute the same as before on
// random inputs. Returns the module.
std::unique_ptr<HloModule> RunAndCompare(const std::string& text) {
  auto original = ParseHloModule(text).value();
  auto module = ParseHloModule(text).value();
  absl::StatusOr<bool> changed = AddCopiesForWhileAndConditional(module.get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  absl::Status verified = VerifyModule(*module);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << PrintModule(*module);
  std::vector<Literal> args = MakeRandomInputs(*original, 7).value();
  Literal expected = HloEvaluator().Evaluate(*original, args).value();
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(*module, args);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (actual.ok()) {
    absl::Status same = CompareLiterals(expected, *actual);
    EXPECT_TRUE(same.ok()) << same;
  }
  return module;
}

TEST(CopyInsertion, WhileSwapUsesStagedCopies) {
  auto m = RunAndCompare(R"(
HloModule m
cond {
  p = (s32[], f32[5], f32[5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[5], f32[5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[5] get-tuple-element(p), index=1
  b = f32[5] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  a2 = f32[5] add(a, b)
  ROOT t = (s32[], f32[5], f32[5]) tuple(i2, b, a2)
}
ENTRY e {
  x = f32[5] parameter(0)
  y = f32[5] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[5], f32[5]) tuple(z, x, y)
  ROOT w = (s32[], f32[5], f32[5]) while(t), condition=cond, body=body
})");
  // Init: three copies (constant, two parameters). Body: b moves to leaf 1
  // (staged + final copy); a2 = a + b is fresh but reads b, which the
  // staged copy also reads, so it is ordered and written in place or
  // copied. The entry root is a while result: no copy.
  EXPECT_GE(CountOpcode(*m, HloOpcode::kCopy), 5);
}

// Copies whose operand is (a get-tuple-element of) instruction `name` in
// computation `c`.
int64_t CopiesOf(const HloComputation& c, const std::string& name) {
  int64_t n = 0;
  for (const auto& i : c.instructions()) {
    if (i->opcode() != HloOpcode::kCopy) continue;
    const HloInstruction* from = i->operand(0);
    while (from->opcode() == HloOpcode::kGetTupleElement) from = from->operand(0);
    n += from->name() == name;
  }
  return n;
}

// cond and body of a loop over (counter, x, acc) that reads x and
// accumulates into acc; the body returns x's own leaf unchanged.
constexpr char kReadOnlyLoop[] = R"(
cond {
  p = (s32[], f32[7], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[7], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[7] get-tuple-element(p), index=1
  a = f32[7] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  a2 = f32[7] add(a, x)
  ROOT t = (s32[], f32[7], f32[7]) tuple(i2, x, a2)
}
)";

// kReadOnlyLoop run over parameter x as while `w`; ENTRY_TAIL follows it.
std::string ReadOnlyLoop(const std::string& header, const std::string& entry_tail) {
  return header + kReadOnlyLoop + R"(
ENTRY e {
  x = f32[7] parameter(0)
  y = f32[7] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[7], f32[7]) tuple(z, x, y)
  w = (s32[], f32[7], f32[7]) while(t), condition=cond, body=body
)" + entry_tail + "\n}\n";
}

TEST(CopyInsertion, ReadOnlyLoopParameterIsNotCopiedAtLoopEntry) {
  auto m = RunAndCompare(ReadOnlyLoop("HloModule m", R"(
  ROOT g = f32[7] get-tuple-element(w), index=2)"));
  const HloComputation& entry = *m->entry_computation();
  EXPECT_EQ(CopiesOf(entry, "x"), 0);  // read-only: shares x's buffer
  EXPECT_EQ(CopiesOf(entry, "y"), 1);  // the accumulator is written
  EXPECT_EQ(CopiesOf(entry, "z"), 1);  // the counter is written
  EXPECT_EQ(CopiesOf(*m->GetComputation("body"), "p"), 0);
}

// The while result's leaf 1 is parameter x's buffer: returning it, or x
// itself as well, still needs a copy each.
TEST(CopyInsertion, ReturnedReadOnlyLeafIsCopiedLikeItsParameter) {
  auto m = RunAndCompare(ReadOnlyLoop("HloModule m", R"(
  r = f32[7] get-tuple-element(w), index=1
  ROOT o = (f32[7], f32[7]) tuple(x, r))"));
  EXPECT_EQ(CopiesOf(*m->entry_computation(), "x"), 1);
  EXPECT_EQ(CopiesOf(*m->entry_computation(), "w"), 1);
}

// A donated parameter may be returned through the loop without a copy.
TEST(CopyInsertion, ReturnedReadOnlyLeafOfAliasedParameterIsNotCopied) {
  auto m = RunAndCompare(
      ReadOnlyLoop("HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }", R"(
  r = f32[7] get-tuple-element(w), index=1
  g = f32[7] get-tuple-element(w), index=2
  ROOT o = (f32[7], f32[7]) tuple(r, g))"));
  EXPECT_EQ(CopiesOf(*m->entry_computation(), "w"), 0);
  EXPECT_EQ(CopiesOf(*m->entry_computation(), "x"), 0);
}

// A second loop that writes the first loop's read-only leaf writes
// parameter x's bytes: its init is copied.
TEST(CopyInsertion, LaterLoopWritingAReadOnlyLeafGetsItsCopy) {
  auto m = RunAndCompare(ReadOnlyLoop("HloModule m", R"(
  r = f32[7] get-tuple-element(w), index=1
  g = f32[7] get-tuple-element(w), index=2
  t2 = (s32[], f32[7], f32[7]) tuple(z, g, r)
  w2 = (s32[], f32[7], f32[7]) while(t2), condition=cond, body=body
  ROOT o = f32[7] get-tuple-element(w2), index=2)"));
  // Leaf 1 of w2 is read-only (no copy of g, a fresh loop result); leaf 2
  // is written and its init is x's buffer: one copy of w's leaf 1.
  const HloInstruction* w2 = m->entry_computation()->GetInstruction("w2");
  const HloInstruction* init2 = w2->operand(0);
  EXPECT_EQ(init2->operand(2)->opcode(), HloOpcode::kCopy);
  EXPECT_NE(init2->operand(1)->opcode(), HloOpcode::kCopy);
}

// The outer loop passes leaf 1 through an inner loop that only reads it:
// the outer leaf is read-only too, and neither loop copies it.
TEST(CopyInsertion, NestedReadOnlyLoopsShareTheParameter) {
  auto m = RunAndCompare(std::string("HloModule m") + kReadOnlyLoop + R"(
obody {
  p = (s32[], f32[7], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[7] get-tuple-element(p), index=1
  a = f32[7] get-tuple-element(p), index=2
  z = s32[] constant(0)
  it = (s32[], f32[7], f32[7]) tuple(z, x, a)
  iw = (s32[], f32[7], f32[7]) while(it), condition=cond, body=body
  x1 = f32[7] get-tuple-element(iw), index=1
  a1 = f32[7] get-tuple-element(iw), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[7], f32[7]) tuple(i2, x1, a1)
}
ENTRY e {
  x = f32[7] parameter(0)
  y = f32[7] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[7], f32[7]) tuple(z, x, y)
  w = (s32[], f32[7], f32[7]) while(t), condition=cond, body=obody
  ROOT g = f32[7] get-tuple-element(w), index=2
})");
  EXPECT_EQ(CopiesOf(*m->entry_computation(), "x"), 0);
  const HloComputation* obody = m->GetComputation("obody");
  const HloInstruction* iw = obody->GetInstruction("iw");
  EXPECT_NE(iw->operand(0)->operand(1)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(iw->operand(0)->operand(2)->opcode(), HloOpcode::kCopy);  // written by the inner loop
  EXPECT_NE(obody->root_instruction()->operand(1)->opcode(), HloOpcode::kCopy);
}

// One broadcast of a constant initializes two accumulators and an iota a
// third, and the broadcast is read after the loop too: each loop leaf gets
// its own recomputed value instead of a copy.
TEST(CopyInsertion, InitsComputedFromConstantsAreClonedNotCopied) {
  auto m = RunAndCompare(R"(
HloModule m
cond {
  p = (s32[], f32[7], f32[7], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[7], f32[7], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[7] get-tuple-element(p), index=1
  b = f32[7] get-tuple-element(p), index=2
  c = f32[7] get-tuple-element(p), index=3
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  a2 = f32[7] add(a, c)
  b2 = f32[7] multiply(b, c)
  c2 = f32[7] sine(c)
  ROOT t = (s32[], f32[7], f32[7], f32[7]) tuple(i2, a2, b2, c2)
}
ENTRY e {
  x = f32[7] parameter(0)
  z = s32[] constant(0)
  zero = f32[7] broadcast(f32[] constant(0.5)), dimensions={}
  io = f32[7] iota(), iota_dimension=0
  t = (s32[], f32[7], f32[7], f32[7]) tuple(z, zero, zero, io)
  w = (s32[], f32[7], f32[7], f32[7]) while(t), condition=cond, body=body
  g = f32[7] get-tuple-element(w), index=1
  h = f32[7] get-tuple-element(w), index=2
  s = f32[7] add(g, h)
  ROOT r = f32[7] add(s, zero)
})");
  const HloComputation& entry = *m->entry_computation();
  EXPECT_EQ(CopiesOf(entry, "zero"), 0);
  EXPECT_EQ(CopiesOf(entry, "io"), 0);
  EXPECT_EQ(CopiesOf(entry, "z"), 1);  // a constant's own allocation is never a loop buffer
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kBroadcast), 3);  // zero, read after the loop, and two clones
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kIota), 1);       // the original is gone
}

// Operand-less fusions: one that only broadcasts a constant is cloned,
// one that computes more than that (here an exponential) keeps its copies.
TEST(CopyInsertion, OnlyConstantShapingFusionsAreCloned) {
  auto m = RunAndCompare(std::string("HloModule m") + kReadOnlyLoop + R"(
fused_half {
  c = f32[] constant(0.5)
  ROOT b = f32[7] broadcast(c), dimensions={}
}
fused_exp {
  c = f32[] constant(0.5)
  b = f32[7] broadcast(c), dimensions={}
  ROOT e = f32[7] exponential(b)
}
ENTRY e {
  x = f32[7] parameter(0)
  h = f32[7] fusion(), kind=kLoop, calls=fused_half
  g = f32[7] fusion(), kind=kLoop, calls=fused_exp
  z = s32[] constant(0)
  t1 = (s32[], f32[7], f32[7]) tuple(z, x, h)
  w1 = (s32[], f32[7], f32[7]) while(t1), condition=cond, body=body
  t2 = (s32[], f32[7], f32[7]) tuple(z, x, g)
  w2 = (s32[], f32[7], f32[7]) while(t2), condition=cond, body=body
  a1 = f32[7] get-tuple-element(w1), index=2
  a2 = f32[7] get-tuple-element(w2), index=2
  s = f32[7] add(a1, a2)
  s2 = f32[7] add(s, h)
  ROOT r = f32[7] add(s2, g)
})");
  const HloComputation& entry = *m->entry_computation();
  EXPECT_EQ(CopiesOf(entry, "h"), 0);
  EXPECT_EQ(CopiesOf(entry, "g"), 1);
  EXPECT_NE(entry.GetInstruction("h"), nullptr);  // still read after the loops
}

TEST(CopyInsertion, EntryRootParameterConstantAndDuplicateAreCopied) {
  auto m = RunAndCompare(R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  c = f32[3] constant({1, 2, 3})
  n = f32[3] negate(p)
  ROOT t = (f32[3], f32[3], f32[3], f32[3]) tuple(p, c, n, n)
})");
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCopy), 3);
}

TEST(CopyInsertion, AliasedParameterIsNotCopied) {
  auto m = RunAndCompare(R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  p = f32[3] parameter(0)
  n = f32[3] negate(p)
  ROOT t = (f32[3], f32[3]) tuple(p, n)
})");
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCopy), 0);
}

// A root leaf that is a bitcast of a parameter (XLA's transpose emitter
// tests have one): the copy is of the parameter, bitcast back to the leaf's
// shape.
TEST(CopyInsertion, BitcastOfParameterInRootKeepsTheLeafShape) {
  auto m = RunAndCompare(R"(
HloModule m, input_output_alias={ {0}: (0, {}) }
ENTRY e {
  p = f32[5,7]{1,0} parameter(0)
  q = f32[5,7]{1,0} parameter(1)
  a = f32[5,7]{1,0} add(p, q)
  b = f32[35]{0} bitcast(p)
  ROOT t = (f32[5,7]{1,0}, f32[35]{0}) tuple(a, b)
})");
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCopy), 1);
  EXPECT_EQ(m->entry_computation()->root_instruction()->operand(1)->shape().dimensions(0), 35);
}

TEST(CopyInsertion, ConditionalBranchReturningItsParameterIsCopied) {
  auto m = RunAndCompare(R"(
HloModule m
b0 {
  a = f32[9] parameter(0)
  ROOT e = f32[9] exponential(a)
}
b1 {
  ROOT a = f32[9] parameter(0)
}
ENTRY e {
  k = s32[] parameter(0)
  x = f32[9] parameter(1)
  c = f32[9] conditional(k, x, x), branch_computations={b0, b1}
  ROOT s = f32[9] add(c, x)
})");
  EXPECT_EQ(m->GetComputation("b1")->root_instruction()->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(m->GetComputation("b0")->root_instruction()->opcode(), HloOpcode::kExp);
}

TEST(CopyInsertion, SharedWhileBodiesAreCloned) {
  auto m = RunAndCompare(R"(
HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[4] sine(x)
  ROOT t = (s32[], f32[4]) tuple(i2, x2)
}
ENTRY e {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4]) tuple(z, x)
  w1 = (s32[], f32[4]) while(t), condition=cond, body=body
  w2 = (s32[], f32[4]) while(w1), condition=cond, body=body
  ROOT g = f32[4] get-tuple-element(w2), index=1
})");
  const HloInstruction* w2 = m->entry_computation()->GetInstruction("w2");
  EXPECT_NE(w2->GetComputation(AttrId::kBody)->name(), "body");
  EXPECT_NE(w2->GetComputation(AttrId::kCondition)->name(), "cond");
}

}  // namespace
}  // namespace xla
