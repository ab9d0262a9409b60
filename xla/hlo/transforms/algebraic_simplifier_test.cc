#include "xla/hlo/transforms/algebraic_simplifier.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::Lacks;

// One rewrite: the entry body (parameters p: f32[33], q: s32[33],
// m: f32[3,4] available), what the result must contain and must not.
struct Case {
  const char* name;
  const char* body;
  std::vector<const char*> contains;
  std::vector<const char*> lacks;
  bool changed = true;
};

std::string Module(const char* body) {
  return absl::StrCat(R"(
HloModule m
ENTRY e {
  p = f32[33] parameter(0)
  q = s32[33] parameter(1)
  m = f32[3,4] parameter(2)
)", body, "\n}\n");
}

void RunCase(const Case& c, AlgebraicSimplifierOptions options = {}) {
  SCOPED_TRACE(c.name);
  AlgebraicSimplifier pass(options);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, Module(c.body));
  EXPECT_EQ(r.changed, c.changed);
  for (const char* s : c.contains) EXPECT_TRUE(Contains(r.text, s));
  for (const char* s : c.lacks) EXPECT_TRUE(Lacks(r.text, s));
}

const std::vector<Case>& IdentityCases() {
  static const auto* cases = new std::vector<Case>{
      {"add negative zero (float identity)",
       "z = f32[] constant(-0)\n b = f32[33] broadcast(z), dimensions={}\n ROOT a = f32[33] add(b, p)",
       {"ROOT p = "}, {"add("}},
      {"add positive zero is not a float identity",
       "z = f32[] constant(0)\n b = f32[33] broadcast(z), dimensions={}\n ROOT a = f32[33] add(p, b)",
       {"ROOT a = f32[33] add(p, b)"}, {}, false},
      {"add int zero",
       "z = s32[] constant(0)\n b = s32[33] broadcast(z), dimensions={}\n ROOT a = s32[33] add(q, b)",
       {"ROOT q = "}, {"add("}},
      {"subtract positive zero",
       "z = f32[] constant(0)\n b = f32[33] broadcast(z), dimensions={}\n ROOT s = f32[33] subtract(p, b)",
       {"ROOT p = "}, {"subtract("}},
      {"multiply by one (float)",
       "o = f32[] constant(1)\n b = f32[33] broadcast(o), dimensions={}\n ROOT x = f32[33] multiply(b, p)",
       {"ROOT p = "}, {"multiply("}},
      {"multiply by one (int)",
       "o = s32[33] constant({1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1})\n"
       " ROOT x = s32[33] multiply(q, o)",
       {"ROOT q = "}, {"multiply("}},
      {"divide by one", "o = f32[] constant(1)\n b = f32[33] broadcast(o), dimensions={}\n"
       " ROOT d = f32[33] divide(p, b)", {"ROOT p = "}, {"divide("}},
      {"reshape to same shape", "ROOT r = f32[3,4] reshape(m)", {"ROOT m = "}, {"reshape("}},
      {"identity transpose", "ROOT t = f32[3,4] transpose(m), dimensions={0,1}", {"ROOT m = "},
       {"transpose("}},
      {"broadcast to same shape", "ROOT b = f32[3,4] broadcast(m), dimensions={0,1}", {"ROOT m = "},
       {"broadcast("}},
      {"convert to same type", "ROOT c = f32[3,4] convert(m)", {"ROOT m = "}, {"convert("}},
      {"copy", "ROOT c = f32[3,4] copy(m)", {"ROOT m = "}, {"copy("}},
      {"full slice", "ROOT s = f32[3,4] slice(m), slice={[0:3], [0:4]}", {"ROOT m = "}, {"slice("}},
      {"partial slice stays", "ROOT s = f32[3,3] slice(m), slice={[0:3], [1:4]}",
       {"ROOT s = f32[3,3] slice(m)"}, {}, false},
      {"zero padding", "z = f32[] constant(0)\n ROOT x = f32[3,4] pad(m, z), padding=0_0x0_0",
       {"ROOT m = "}, {"pad("}},
      {"concatenate of one operand", "ROOT c = f32[3,4] concatenate(m), dimensions={0}",
       {"ROOT m = "}, {"concatenate("}},
      {"reverse of size-1 dims",
       "r1 = f32[1,33] reshape(p)\n rv = f32[1,33] reverse(r1), dimensions={0}\n"
       " ROOT out = f32[33] reshape(rv)",
       {"ROOT p = "}, {"reverse("}},
      {"negate of negate", "n1 = f32[33] negate(p)\n ROOT n2 = f32[33] negate(n1)", {"ROOT p = "},
       {"negate("}},
      {"select with constant true",
       "t = pred[] constant(true)\n b = pred[33] broadcast(t), dimensions={}\n"
       " n = f32[33] negate(p)\n ROOT s = f32[33] select(b, p, n)",
       {"ROOT p = "}, {"select("}},
      {"select with constant false",
       "f = pred[] constant(false)\n b = pred[33] broadcast(f), dimensions={}\n"
       " n = f32[33] negate(p)\n ROOT s = f32[33] select(b, p, n)",
       {"ROOT n = f32[33] negate(p)"}, {"select("}},
  };
  return *cases;
}

const std::vector<Case>& ChainAndCheaperCases() {
  static const auto* cases = new std::vector<Case>{
      {"reshape of reshape", "r1 = f32[12] reshape(m)\n ROOT r2 = f32[2,6] reshape(r1)",
       {"f32[2,6] reshape(m)"}, {"r1 = "}},
      {"reshape of reshape back to the source", "r1 = f32[12] reshape(m)\n ROOT r2 = f32[3,4] reshape(r1)",
       {"ROOT m = "}, {"reshape("}},
      {"transpose of transpose cancels",
       "t1 = f32[4,3] transpose(m), dimensions={1,0}\n ROOT t2 = f32[3,4] transpose(t1), dimensions={1,0}",
       {"ROOT m = "}, {"transpose("}},
      {"transpose of transpose composes",
       "c = f32[2,3,4] broadcast(m), dimensions={1,2}\n e = f32[2,3,4] exponential(c)\n"
       " t1 = f32[3,4,2] transpose(e), dimensions={1,2,0}\n"
       " ROOT t2 = f32[4,3,2] transpose(t1), dimensions={1,0,2}",
       {"f32[4,3,2] transpose(e), dimensions={2,1,0}"}, {"t1 = "}},
      {"broadcast of broadcast",
       "b1 = f32[3,4,5] broadcast(m), dimensions={0,1}\n"
       " ROOT b2 = f32[2,3,4,5] broadcast(b1), dimensions={1,2,3}",
       {"f32[2,3,4,5] broadcast(m), dimensions={1,2}"}, {"b1 = "}},
      {"reshape of scalar broadcast",
       "c = f32[] constant(3)\n b = f32[12] broadcast(c), dimensions={}\n"
       " r = f32[3,4] reshape(b)\n ROOT s = f32[3,4] add(r, m)",
       {"f32[3,4] broadcast(c), dimensions={}"}, {"reshape("}},
      {"transpose of scalar broadcast",
       "c = f32[] constant(3)\n b = f32[4,3] broadcast(c), dimensions={}\n"
       " t = f32[3,4] transpose(b), dimensions={1,0}\n ROOT s = f32[3,4] add(t, m)",
       {"f32[3,4] broadcast(c), dimensions={}"}, {"transpose("}},
      {"divide by power of two",
       "c = f32[] constant(8)\n b = f32[33] broadcast(c), dimensions={}\n ROOT d = f32[33] divide(p, b)",
       {"constant(0.125)", "multiply(p, "}, {"divide("}},
      {"divide by negative power of two",
       "c = f32[] constant(-0.25)\n b = f32[33] broadcast(c), dimensions={}\n ROOT d = f32[33] divide(p, b)",
       {"constant(-4)", "multiply(p, "}, {"divide("}},
      {"divide by three stays exact",
       "c = f32[] constant(3)\n b = f32[33] broadcast(c), dimensions={}\n ROOT d = f32[33] divide(p, b)",
       {"ROOT d = f32[33] divide(p, b)"}, {"multiply("}, false},
      {"integer x - x", "ROOT s = s32[33] subtract(q, q)", {"s32[] constant(0)"}, {"subtract("}},
      {"float x - x stays", "ROOT s = f32[33] subtract(p, p)", {"ROOT s = f32[33] subtract(p, p)"},
       {}, false},
  };
  return *cases;
}

TEST(AlgebraicSimplifier, Identities) {
  for (const Case& c : IdentityCases()) RunCase(c);
}

TEST(AlgebraicSimplifier, ChainsAndCheaperForms) {
  for (const Case& c : ChainAndCheaperCases()) RunCase(c);
}

TEST(AlgebraicSimplifier, InexactDivisionOnlyWhenAllowed) {
  AlgebraicSimplifierOptions options;
  options.allow_inexact = true;
  AlgebraicSimplifier pass(options);
  pass_test::PassResult r = pass_test::RunPassOnly(pass, Module(
      "c = f32[] constant(4)\n b = f32[33] broadcast(c), dimensions={}\n"
      " d1 = f32[33] divide(p, b)\n c3 = f32[] constant(3)\n"
      " b3 = f32[33] broadcast(c3), dimensions={}\n ROOT d = f32[33] divide(d1, b3)"));
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Lacks(r.text, "divide("));
  EXPECT_TRUE(Contains(r.text, "constant(0.3333333"));
}

TEST(AlgebraicSimplifier, SimplifiesInsideCalledComputations) {
  AlgebraicSimplifier pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  one = f32[] constant(1)
  bb = f32[] multiply(b, one)
  ROOT s = f32[] add(a, bb)
}
ENTRY e {
  p = f32[33] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=sum
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "ROOT s = f32[] add(a, b)"));
}

}  // namespace
}  // namespace xla
