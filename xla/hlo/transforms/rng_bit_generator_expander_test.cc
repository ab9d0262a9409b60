// RngBitGeneratorExpander tests. The oracle is the evaluator's own
// rng-bit-generator (xla/hlo/evaluator/prng.cc, itself checked against
// Random123 known-answer vectors): every module is evaluated before and after
// the pass on the same state and the results must be bitwise equal (the new
// state and the bits, NaN payloads included).
#include "xla/hlo/transforms/rng_bit_generator_expander.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

constexpr uint64_t kMax = ~uint64_t{0};

// A module whose entry returns rng-bit-generator(state) directly.
std::string RngModule(const std::string& algorithm, const std::string& state,
                      const std::string& bits) {
  return absl::StrCat("HloModule m\nENTRY e {\n  s = ", state, " parameter(0)\n  ROOT r = (", state,
                      ", ", bits, ") rng-bit-generator(s), algorithm=", algorithm, "\n}\n");
}

Literal StateLiteral(const Shape& shape, const std::vector<uint64_t>& words) {
  Literal l(shape);
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetBits(i, words[i]);
  return l;
}

// Parses `hlo`, evaluates it on `args`, runs the pass, and expects: the
// module verifies, holds no rng-bit-generator, and evaluates to the same
// bits. Returns the instruction count of the expanded module (0 on failure).
int64_t ExpectBitExact(const std::string& hlo, const std::vector<Literal>& args) {
  SCOPED_TRACE(hlo);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return 0;
  absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**module, args);
  EXPECT_TRUE(before.ok()) << before.status();
  if (!before.ok()) return 0;
  RngBitGeneratorExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  if (!changed.ok()) return 0;
  EXPECT_TRUE(*changed);
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kRngBitGenerator), 0);
  absl::StatusOr<Literal> after = HloEvaluator().Evaluate(**module, args);
  EXPECT_TRUE(after.ok()) << after.status();
  if (!after.ok()) return 0;
  EXPECT_TRUE(*before == *after) << "before: " << before->ToString() << "\nafter:  " << after->ToString();
  int64_t n = 0;
  for (const auto& c : (*module)->computations()) n += c->instruction_count();
  return n;
}

const std::vector<std::string>& BitsTypes() {
  static const auto* types = new std::vector<std::string>{
      "u8", "s16", "u32", "s32", "f16", "bf16", "f32", "u64", "s64", "f64", "s4"};
  return *types;
}

// [2,3,5] splits dimension 0, [3,4,5] dimension 1, [3,7,5] (no even
// dimension) the largest, dimension 1; [5,3] the first largest.
const std::vector<std::string>& Dims() {
  static const auto* dims = new std::vector<std::string>{
      "[]", "[1]", "[7]", "[3,5]", "[5,3]", "[2,3,5]", "[3,4,5]", "[3,7,5]", "[7,7]", "[33]"};
  return *dims;
}

struct StateCase {
  std::string algorithm;
  std::string state_type;  // u64[2], s64[2], u64[3]
  std::vector<uint64_t> words;
};

std::vector<StateCase> StateCases() {
  const std::vector<uint64_t> plain = {0x0123456789ABCDEFull, 0x42ull, 0x7ull};
  // Counter low word about to wrap: Philox carries into the high word
  // (which wraps too for u64[3]); ThreeFry's counter wraps to 0.
  const std::vector<uint64_t> wrap = {0xFEDCBA9876543210ull, kMax - 2, kMax};
  return {
      {"rng_three_fry", "u64[2]", plain}, {"rng_three_fry", "u64[2]", wrap},
      {"rng_three_fry", "s64[2]", wrap},  {"rng_philox", "u64[2]", plain},
      {"rng_philox", "u64[2]", wrap},     {"rng_philox", "u64[3]", plain},
      {"rng_philox", "u64[3]", wrap},     {"rng_philox", "s64[3]", wrap},
      {"rng_default", "u64[2]", wrap},    {"rng_default", "u64[3]", plain},
      // A longer ThreeFry state: words after the counter pass through.
      {"rng_three_fry", "u64[4]", {wrap[0], wrap[1], 9, kMax}},
  };
}

// Runs one case of rng-bit-generator(state) with `bits` output.
int64_t RunCase(const StateCase& sc, const std::string& bits) {
  const std::string hlo = RngModule(sc.algorithm, sc.state_type, bits);
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(hlo);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return 0;
  std::vector<Literal> args;
  args.push_back(
      StateLiteral((*m)->entry_computation()->parameter_instructions()[0]->shape(), sc.words));
  return ExpectBitExact(hlo, args);
}

// Every bits type with every shape, for the wrapping counters of both
// algorithms (the evaluator takes about 25 ms per case, so the other state
// cases run a smaller matrix below).
TEST(RngBitGeneratorExpander, BitExactForEveryTypeAndShape) {
  const std::vector<StateCase> cases = StateCases();
  int n = 0;
  int64_t largest = 0;
  for (const StateCase* sc : {&cases[1], &cases[6]}) {
    for (const std::string& type : BitsTypes()) {
      for (const std::string& dims : Dims()) {
        largest = std::max(largest, RunCase(*sc, type + dims));
        ++n;
      }
    }
  }
  EXPECT_EQ(n, 2 * 11 * 10);
  // The rounds run on arrays, so the expansion does not grow with the shape.
  EXPECT_LT(largest, 400);
  std::printf("%d cases, largest expansion %lld instructions\n", n, static_cast<long long>(largest));
}

TEST(RngBitGeneratorExpander, BitExactForEveryAlgorithmAndState) {
  int n = 0;
  for (const StateCase& sc : StateCases()) {
    for (const char* type : {"u32", "u8", "f64"}) {
      for (const char* dims : {"[]", "[3,4,5]", "[3,7,5]"}) {
        RunCase(sc, absl::StrCat(type, dims));
        ++n;
      }
    }
  }
  EXPECT_EQ(n, 11 * 3 * 3);
}

// A counter whose 64-bit low word wraps inside one call: the blocks after the
// wrap must carry into the high word (Philox) or restart at 0 (ThreeFry).
TEST(RngBitGeneratorExpander, CounterWrapsInsideOneCall) {
  for (const char* alg : {"rng_three_fry", "rng_philox"}) {
    for (const char* bits : {"u32[9]", "u64[5]", "u8[3,6]"}) {
      const std::string hlo = RngModule(alg, "u64[2]", bits);
      std::vector<Literal> args;
      args.push_back(StateLiteral(Shape::Array(PrimitiveType::U64, {2}), {5, kMax - 1}));
      ExpectBitExact(hlo, args);
    }
    const std::string wide = RngModule("rng_philox", "u64[3]", "f32[3,5]");
    std::vector<Literal> args;
    args.push_back(StateLiteral(Shape::Array(PrimitiveType::U64, {3}), {5, kMax, kMax}));
    ExpectBitExact(wide, args);
  }
}

// The typical producer pattern: the state and the bits are read with
// get-tuple-element, the bits converted; random states (seeds 1..3) and the
// evaluator's float comparison through RunPassAndCheck, plus a non-default
// layout on the bits.
TEST(RngBitGeneratorExpander, GetTupleElementUsersAndLayouts) {
  RngBitGeneratorExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  r = (u64[2], u32[3,5]{0,1}) rng-bit-generator(s), algorithm=rng_three_fry
  bits = u32[3,5]{0,1} get-tuple-element(r), index=1
  nine = u32[] constant(9)
  nines = u32[3,5] broadcast(nine), dimensions={}
  shifted = u32[3,5] shift-right-logical(bits, nines)
  f = f32[3,5] convert(shifted)
  next = u64[2] get-tuple-element(r), index=0
  ROOT t = (u64[2], f32[3,5]) tuple(next, f)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(pass_test::Lacks(r.text, "rng-bit-generator"));
  EXPECT_TRUE(pass_test::Contains(r.text, "iota("));
}

// Zero-element bits use no blocks: the state is returned unchanged.
TEST(RngBitGeneratorExpander, EmptyBits) {
  for (const char* alg : {"rng_three_fry", "rng_philox"}) {
    for (const char* bits : {"u32[0]", "f64[3,0]"}) {
      std::vector<Literal> args;
      args.push_back(StateLiteral(Shape::Array(PrimitiveType::U64, {2}), {11, 12}));
      ExpectBitExact(RngModule(alg, "u64[2]", bits), args);
    }
  }
}

// Several generators in one module, chained through the state, one of them
// in a called computation.
TEST(RngBitGeneratorExpander, ChainedAndInCalledComputation) {
  const std::string hlo = R"(
HloModule m
gen {
  p = u64[3] parameter(0)
  ROOT g = (u64[3], f16[7]) rng-bit-generator(p), algorithm=rng_philox
}
ENTRY e {
  s = u64[3] parameter(0)
  a = (u64[3], u64[5]) rng-bit-generator(s), algorithm=rng_philox
  s1 = u64[3] get-tuple-element(a), index=0
  b = (u64[3], f16[7]) call(s1), to_apply=gen
  s2 = u64[3] get-tuple-element(b), index=0
  c = (u64[3], s8[2,3]) rng-bit-generator(s2), algorithm=rng_default
  a1 = u64[5] get-tuple-element(a), index=1
  b1 = f16[7] get-tuple-element(b), index=1
  ROOT t = (u64[5], f16[7], (u64[3], s8[2,3])) tuple(a1, b1, c)
})";
  std::vector<Literal> args;
  args.push_back(StateLiteral(Shape::Array(PrimitiveType::U64, {3}), {99, kMax - 3, 17}));
  ExpectBitExact(hlo, args);
}

// Control edges of the generator move to its replacement.
TEST(RngBitGeneratorExpander, KeepsControlEdges) {
  const std::string hlo = R"(
HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  c = f32[] constant(1)
  r = (u64[2], u32[4]) rng-bit-generator(s), algorithm=rng_philox, control-predecessors={c}
  d = f32[] constant(2), control-predecessors={r}
  ROOT t = ((u64[2], u32[4]), f32[], f32[]) tuple(r, c, d)
})";
  std::vector<Literal> args;
  args.push_back(StateLiteral(Shape::Array(PrimitiveType::U64, {2}), {1, 2}));
  ExpectBitExact(hlo, args);
}

TEST(RngBitGeneratorExpander, NothingToDo) {
  RngBitGeneratorExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = f32[7] parameter(0)
  ROOT n = f32[7] negate(p)
})");
  EXPECT_FALSE(r.changed);
}

// Errors name the instruction and what is unsupported, and leave the module
// unchanged (every generator is checked first).
void ExpectError(const std::string& hlo, absl::string_view needle) {
  SCOPED_TRACE(hlo);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t before = CountOpcode(**module, HloOpcode::kRngBitGenerator);
  RngBitGeneratorExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_TRUE(absl::StrContains(changed.status().message(), "bad")) << changed.status();
  EXPECT_TRUE(absl::StrContains(changed.status().message(), needle)) << changed.status();
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kRngBitGenerator), before);
}

TEST(RngBitGeneratorExpander, RejectsWhatTheEvaluatorRejects) {
  const std::string ok = "  fine = (u64[2], u32[3]) rng-bit-generator(s2), algorithm=rng_philox\n";
  auto module = [&](const std::string& state, const std::string& bad) {
    return absl::StrCat("HloModule m\nENTRY e {\n  s = ", state, " parameter(0)\n",
                        "  s2 = u64[2] parameter(1)\n", ok, bad,
                        "  ROOT t = () tuple()\n}\n");
  };
  ExpectError(module("u64[4]", "  bad = (u64[4], u32[3]) rng-bit-generator(s), algorithm=rng_philox\n"),
              "state must be");
  ExpectError(module("u64[1]", "  bad = (u64[1], u32[3]) rng-bit-generator(s), algorithm=rng_three_fry\n"),
              "state must be");
  ExpectError(module("u32[2]", "  bad = (u32[2], u32[3]) rng-bit-generator(s), algorithm=rng_philox\n"),
              "state must be");
  ExpectError(module("u64[2]", "  bad = (u64[2], c64[3]) rng-bit-generator(s), algorithm=rng_philox\n"),
              "integer or float");
  ExpectError(module("u64[2]", "  bad = (u64[2], pred[3]) rng-bit-generator(s), algorithm=rng_philox\n"),
              "integer or float");
  ExpectError(module("u64[2]", "  bad = (u64[2], u32[3]) rng-bit-generator(s), algorithm=rng_mystery\n"),
              "rng_mystery");
}

// Every corpus module with rng-bit-generator that verifies and that the
// evaluator can run computes bitwise the same after the pass.
TEST(RngBitGeneratorExpander, LeavesUnsupportedAloneWhenAsked) {
  auto m = ParseHloModule(R"(
HloModule m
ENTRY e {
  s = u64[4] parameter(0)
  t = u64[2] parameter(1)
  bad = (u64[4], u32[3]) rng-bit-generator(s), algorithm=rng_philox
  good = (u64[2], u32[3]) rng-bit-generator(t), algorithm=rng_three_fry
  ROOT r = ((u64[4], u32[3]), (u64[2], u32[3])) tuple(bad, good)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  RngBitGeneratorExpander strict;
  EXPECT_FALSE(strict.Run(m->get()).ok());
  RngBitGeneratorExpander lenient(/*leave_unsupported=*/true);
  absl::StatusOr<bool> changed = lenient.Run(m->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(pass_test::CountOpcode(**m, HloOpcode::kRngBitGenerator), 1);
  EXPECT_TRUE(VerifyModule(**m).ok());
}

TEST(RngBitGeneratorExpander, CorpusModules) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles({"xla"});
  ASSERT_TRUE(files.ok()) << files.status();
  int with_rng = 0, compared = 0;
  std::vector<std::string> skipped;
  for (const std::string& path : *files) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(path);
    if (!module.ok() || CountOpcode(**module, HloOpcode::kRngBitGenerator) == 0) continue;
    ++with_rng;
    const std::string name = path.substr(path.rfind('/') + 1);
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 1);
    if (!VerifyModule(**module).ok() || !args.ok()) {
      skipped.push_back(name + " (does not verify / no inputs)");
      continue;
    }
    absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**module, *args);
    if (!before.ok()) {
      skipped.push_back(absl::StrCat(name, " (evaluator: ", before.status().message().substr(0, 120), ")"));
      continue;
    }
    RngBitGeneratorExpander pass;
    absl::StatusOr<bool> changed = pass.Run(module->get());
    ASSERT_TRUE(changed.ok()) << name << ": " << changed.status();
    ASSERT_TRUE(VerifyModule(**module).ok()) << name << ": " << VerifyModule(**module);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kRngBitGenerator), 0) << name;
    absl::StatusOr<Literal> after = HloEvaluator().Evaluate(**module, *args);
    ASSERT_TRUE(after.ok()) << name << ": " << after.status();
    EXPECT_TRUE(*before == *after) << name;
    ++compared;
  }
  std::printf("corpus: %d modules with rng-bit-generator, %d compared; skipped:\n  %s\n", with_rng,
              compared, absl::StrJoin(skipped, "\n  ").c_str());
  EXPECT_GE(with_rng, 4);
  EXPECT_GE(compared, 1);
}

}  // namespace
}  // namespace xla
