// Loop state that a while only reads shares its init buffer (copy_insertion.h),
// end to end: each program compiles for the host, runs on the host platform
// and matches the evaluator. Each one would read clobbered bytes if a buffer
// the loop shares with its init were written while something still reads it:
// swaps, writes after the loop, parameters that are also results, aliased
// and donated parameters, conditionals and nested loops.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/host_vs_evaluator.h"

namespace xla {
namespace {

// Compiles `hlo` for the host, runs it on random inputs and compares each
// result leaf with the evaluator's.
void ExpectHostMatchesEvaluator(const std::string& hlo) {
  aot::ExpectHostMatchesEvaluator(hlo, {}, /*seed=*/11);
}

// cond/body of a loop over (counter, read-only x, accumulator, swapped a,
// swapped b): acc += x * a; (a, b) = (b, a + x). Three trips.
constexpr char kLoop[] = R"(
cond {
  p = (s32[], f32[33], f32[33], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[33], f32[33], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[33] get-tuple-element(p), index=1
  acc = f32[33] get-tuple-element(p), index=2
  a = f32[33] get-tuple-element(p), index=3
  b = f32[33] get-tuple-element(p), index=4
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  xa = f32[33] multiply(x, a)
  acc2 = f32[33] add(acc, xa)
  ax = f32[33] add(a, x)
  ROOT t = (s32[], f32[33], f32[33], f32[33], f32[33]) tuple(i2, x, acc2, b, ax)
}
)";

std::string Module(const std::string& header, const std::string& entry) {
  return header + "\n" + kLoop + "ENTRY e {\n" + entry + "\n}\n";
}

constexpr char kEntryLoop[] = R"(
  x = f32[33] parameter(0)
  y = f32[33] parameter(1)
  z = s32[] constant(0)
  zero = f32[33] broadcast(f32[] constant(0)), dimensions={}
  t = (s32[], f32[33], f32[33], f32[33], f32[33]) tuple(z, x, zero, x, y)
  w = (s32[], f32[33], f32[33], f32[33], f32[33]) while(t), condition=cond, body=body
  wx = f32[33] get-tuple-element(w), index=1
  acc = f32[33] get-tuple-element(w), index=2
  wa = f32[33] get-tuple-element(w), index=3
  wb = f32[33] get-tuple-element(w), index=4
)";

// kLoop over x = exp(p), a value computed in the entry rather than a
// parameter, so that buffer assignment may write over it once it is dead.
constexpr char kFreshEntryLoop[] = R"(
  p = f32[33] parameter(0)
  y = f32[33] parameter(1)
  x = f32[33] exponential(p)
  z = s32[] constant(0)
  zero = f32[33] broadcast(f32[] constant(0)), dimensions={}
  t = (s32[], f32[33], f32[33], f32[33], f32[33]) tuple(z, x, zero, y, y)
  w = (s32[], f32[33], f32[33], f32[33], f32[33]) while(t), condition=cond, body=body
  wx = f32[33] get-tuple-element(w), index=1
  acc = f32[33] get-tuple-element(w), index=2
)";

// x is read-only in the loop and also the swapped pair's initial a.
TEST(LoopStateOnHost, SwapNextToAReadOnlyParameter) {
  ExpectHostMatchesEvaluator(Module("HloModule m", std::string(kEntryLoop) + R"(
  ROOT o = (f32[33], f32[33], f32[33], f32[33]) tuple(acc, wa, wb, wx))"));
}

// The read-only result leaf (x's buffer) is updated after the loop, and x
// is read after that update.
TEST(LoopStateOnHost, ReadOnlyLeafWrittenAfterTheLoop) {
  ExpectHostMatchesEvaluator(Module("HloModule m", std::string(kEntryLoop) + R"(
  k = s32[] constant(5)
  u = f32[4] slice(acc), slice={[0:4]}
  d = f32[33] dynamic-update-slice(wx, u, k)
  s = f32[33] subtract(d, x)
  ROOT o = (f32[33], f32[33]) tuple(s, acc))"));
}

// The same with a fresh init value that dies at the update: it may be
// written in place, and must still be read correctly by the loop.
TEST(LoopStateOnHost, FreshReadOnlyInitUpdatedInPlaceAfterTheLoop) {
  ExpectHostMatchesEvaluator(Module("HloModule m", std::string(kFreshEntryLoop) + R"(
  k = s32[] constant(7)
  u = f32[3] slice(acc), slice={[1:4]}
  d = f32[33] dynamic-update-slice(wx, u, k)
  ROOT o = (f32[33], f32[33]) tuple(d, acc))"));
}

// x is returned twice: as itself and as the loop's read-only leaf.
TEST(LoopStateOnHost, InitParameterAlsoReturned) {
  ExpectHostMatchesEvaluator(Module("HloModule m", std::string(kEntryLoop) + R"(
  ROOT o = (f32[33], f32[33], f32[33]) tuple(x, wx, acc))"));
}

// x is donated to result 0, which is written in place over it after the
// loop; result 1 reads the loop's read-only leaf (x's buffer) first.
TEST(LoopStateOnHost, DonatedParameterWrittenAfterTheLoop) {
  ExpectHostMatchesEvaluator(
      Module("HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }",
             std::string(kEntryLoop) + R"(
  r = f32[33] multiply(wx, acc)
  n = f32[33] negate(wx)
  ROOT o = (f32[33], f32[33]) tuple(n, r))"));
}

// x is aliased to result 0, which is the loop's read-only leaf itself: no
// copy at all, the result is x's buffer.
TEST(LoopStateOnHost, AliasedParameterReturnedThroughTheLoop) {
  ExpectHostMatchesEvaluator(
      Module("HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }",
             std::string(kEntryLoop) + R"(
  ROOT o = (f32[33], f32[33], f32[33]) tuple(wx, acc, wb))"));
}

// The read-only leaf of a fresh init (x = exp(p)) goes into two
// conditionals whose indices are complementary, so each branch runs once:
// one updates its parameter (the loop's buffer, which x still needs
// afterwards), the other returns it.
TEST(LoopStateOnHost, ConditionalBranchesOverAReadOnlyLeaf) {
  const std::string branches = R"(HloModule m
bw {
  a = f32[33] parameter(0)
  u = f32[3] slice(a), slice={[0:3]}
  nu = f32[3] negate(u)
  k = s32[] constant(4)
  ROOT d = f32[33] dynamic-update-slice(a, nu, k)
}
bp {
  ROOT a = f32[33] parameter(0)
})";
  ExpectHostMatchesEvaluator(Module(branches, std::string(kFreshEntryLoop) + R"(
  k0 = s32[] parameter(2)
  one = s32[] constant(1)
  ka = s32[] and(k0, one)
  kb = s32[] xor(ka, one)
  c1 = f32[33] conditional(ka, wx, wx), branch_computations={bw, bp}
  c2 = f32[33] conditional(kb, wx, wx), branch_computations={bw, bp}
  s = f32[33] add(c1, c2)
  r = f32[33] subtract(s, x)
  ROOT o = (f32[33], f32[33]) tuple(r, acc))"));
}

// One broadcast of a constant initializes the accumulator and the swapped
// pair and is read after the loop; an iota initializes x. Each written
// loop leaf gets its own recomputed init (copy_insertion.h clones them).
TEST(LoopStateOnHost, InitsRecomputedFromConstants) {
  ExpectHostMatchesEvaluator(Module("HloModule m", R"(
  y = f32[33] parameter(0)
  z = s32[] constant(0)
  half = f32[33] broadcast(f32[] constant(0.5)), dimensions={}
  io = f32[33] iota(), iota_dimension=0
  t = (s32[], f32[33], f32[33], f32[33], f32[33]) tuple(z, io, half, half, half)
  w = (s32[], f32[33], f32[33], f32[33], f32[33]) while(t), condition=cond, body=body
  acc = f32[33] get-tuple-element(w), index=2
  wa = f32[33] get-tuple-element(w), index=3
  wb = f32[33] get-tuple-element(w), index=4
  s = f32[33] add(acc, half)
  r = f32[33] multiply(s, y)
  ROOT o = (f32[33], f32[33], f32[33]) tuple(r, wa, wb))"));
}

// An outer loop over (counter, x, c, v) whose body runs an inner loop that
// only reads x and writes c = c * 0.5 + x, then sets v = x * v and leaf 1
// to `outer_x` (xi, the inner loop's read-only leaf, or x2 = xi + 0.1).
// The entry returns `entry_results` (of wx, wc, wv, x, s = sine(wx)).
std::string NestedLoops(const std::string& outer_x, const std::string& entry_results) {
  return R"(
HloModule m
icond {
  p = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ibody {
  p = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[33] get-tuple-element(p), index=1
  c = f32[33] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  half = f32[33] broadcast(f32[] constant(0.5)), dimensions={}
  ch = f32[33] multiply(c, half)
  c2 = f32[33] add(ch, x)
  ROOT t = (s32[], f32[33], f32[33]) tuple(i2, x, c2)
}
ocond {
  p = (s32[], f32[33], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
obody {
  p = (s32[], f32[33], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[33] get-tuple-element(p), index=1
  c = f32[33] get-tuple-element(p), index=2
  v = f32[33] get-tuple-element(p), index=3
  z = s32[] constant(0)
  it = (s32[], f32[33], f32[33]) tuple(z, x, c)
  iw = (s32[], f32[33], f32[33]) while(it), condition=icond, body=ibody
  xi = f32[33] get-tuple-element(iw), index=1
  ci = f32[33] get-tuple-element(iw), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  tenth = f32[33] broadcast(f32[] constant(0.1)), dimensions={}
  x2 = f32[33] add(xi, tenth)
  v2 = f32[33] multiply(xi, v)
  ROOT t = (s32[], f32[33], f32[33], f32[33]) tuple(i2, )" +
         outer_x + R"(, ci, v2)
}
ENTRY e {
  x = f32[33] parameter(0)
  y = f32[33] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[33], f32[33], f32[33]) tuple(z, x, y, y)
  w = (s32[], f32[33], f32[33], f32[33]) while(t), condition=ocond, body=obody
  wx = f32[33] get-tuple-element(w), index=1
  wc = f32[33] get-tuple-element(w), index=2
  wv = f32[33] get-tuple-element(w), index=3
  s = f32[33] sine(wx)
  ROOT o = )" + entry_results + "\n}\n";
}

// The outer loop writes x's slot after the inner loop, which only read
// it, and after another reader (v2) of the inner loop's result leaf.
TEST(LoopStateOnHost, NestedLoopsReadThenWriteTheOuterLeaf) {
  ExpectHostMatchesEvaluator(
      NestedLoops("x2", "(f32[33], f32[33], f32[33], f32[33]) tuple(wx, wc, wv, x)"));
}

// x is read-only through both loops; the entry returns it twice (as the
// loop's leaf and as the parameter) next to a value computed from it.
TEST(LoopStateOnHost, NestedReadOnlyLoopsReturnTheParameter) {
  ExpectHostMatchesEvaluator(NestedLoops(
      "xi", "(f32[33], f32[33], f32[33], f32[33], f32[33]) tuple(wx, wc, wv, s, x)"));
}

}  // namespace
}  // namespace xla
