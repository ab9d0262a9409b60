// Tests of rng-bit-generator (bit-exact with XLA's expansion) and rng in the
// evaluator. The block functions are checked against Random123's published
// known-answer vectors (tests/kat_vectors); the full op is then checked on
// states chosen so that its blocks are those same vectors.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/prng.h"

namespace xla {
namespace {

using evaluator::prng::Philox4x32;
using evaluator::prng::ThreeFry2x32;
using evaluator_test::EvalText;

constexpr uint64_t kOnes = ~uint64_t{0};

// threefry2x32_20 pi-digits vector: counter (0x243f6a88, 0x85a308d3), key
// (0x13198a2e, 0x03707344) as u64 words (low 32 bits first).
constexpr uint64_t kTfKey = 0x0370734413198a2eull;
constexpr uint64_t kTfCounter = 0x85a308d3243f6a88ull;
// philox4x32_10 pi-digits vector: counter words (0x243f6a88, 0x85a308d3,
// 0x13198a2e, 0x03707344), key (0xa4093822, 0x299f31d0).
constexpr uint64_t kPhKey = 0x299f31d0a4093822ull;
constexpr uint64_t kPhLow = 0x85a308d3243f6a88ull;
constexpr uint64_t kPhHigh = 0x0370734413198a2eull;

Literal U64s(std::vector<uint64_t> v) {
  Literal l(Shape::Array(PrimitiveType::U64, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) l.SetBits(static_cast<int64_t>(i), v[i]);
  return l;
}

std::vector<uint64_t> Bits(const Literal& l) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetBits(i));
  return out;
}

std::array<uint32_t, 2> Words(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

// Runs `rng-bit-generator` with `state_shape`, `bits_shape` and `algorithm`.
Literal Generate(const std::string& state_shape, const std::string& bits_shape,
                 const std::string& algorithm, const Literal& state) {
  const std::string hlo = "ENTRY e {\n  s = " + state_shape + " parameter(0)\n  ROOT r = (" +
                          state_shape + ", " + bits_shape + ") rng-bit-generator(s)" +
                          (algorithm.empty() ? "" : ", algorithm=" + algorithm) + "\n}";
  absl::StatusOr<Literal> r = EvalText(hlo, {state});
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  if (!r.ok() || r->tuple_elements().size() != 2) return Literal();
  return std::move(*r);
}

// ------------------------------------------------------- known answers

TEST(PrngKatTest, ThreeFry2x32x20) {
  EXPECT_EQ(ThreeFry2x32({0, 0}, {0, 0}), (std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(ThreeFry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(ThreeFry2x32({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}),
            (std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0}));
}

TEST(PrngKatTest, Philox4x32x10) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                       {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       {0xa4093822, 0x299f31d0}),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// --------------------------------------------------------------- ThreeFry

TEST(ThreeFryTest, U64BitsUseOneBlockPerElement) {
  const Literal r = Generate("u64[2]", "u64[5]", "rng_three_fry", U64s({kTfKey, kTfCounter}));
  const std::vector<uint64_t> bits = Bits(r.tuple_elements()[1]);
  ASSERT_EQ(bits.size(), 5u);
  EXPECT_EQ(bits[0], 0x483df7a0c4923a9cull);  // the known-answer block
  for (uint64_t i = 1; i < 5; ++i) {
    const std::array<uint32_t, 2> x = ThreeFry2x32(Words(kTfCounter + i), Words(kTfKey));
    EXPECT_EQ(bits[i], x[0] | (uint64_t{x[1]} << 32)) << i;
  }
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{kTfKey, kTfCounter + 5}));
}

TEST(ThreeFryTest, U32SplitsTheFirstEvenDimension) {
  // [3,2]: dimension 1 is split; element (r, c) is word c of block counter + r.
  const Literal r = Generate("u64[2]", "u32[3,2]", "rng_three_fry", U64s({kTfKey, kTfCounter}));
  const std::vector<uint64_t> bits = Bits(r.tuple_elements()[1]);
  EXPECT_EQ(bits[0], 0xc4923a9cu);
  EXPECT_EQ(bits[1], 0x483df7a0u);
  for (uint64_t row = 0; row < 3; ++row) {
    const std::array<uint32_t, 2> x = ThreeFry2x32(Words(kTfCounter + row), Words(kTfKey));
    EXPECT_EQ(bits[2 * row], x[0]);
    EXPECT_EQ(bits[2 * row + 1], x[1]);
  }
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{kTfKey, kTfCounter + 3}));
}

TEST(ThreeFryTest, U32AllOddSplitsTheLargestDimension) {
  // [3,5]: dimension 1 is split into ceil(5/2) = 3 halves, so element (r, c)
  // is word c % 2 of block counter + r * 3 + c / 2; 9 blocks are used.
  const uint64_t counter = kOnes - 4;  // the counter wraps modulo 2^64
  const Literal r = Generate("u64[2]", "u32[3,5]", "rng_three_fry", U64s({7, counter}));
  const std::vector<uint64_t> bits = Bits(r.tuple_elements()[1]);
  for (uint64_t row = 0; row < 3; ++row) {
    for (uint64_t c = 0; c < 5; ++c) {
      const std::array<uint32_t, 2> x = ThreeFry2x32(Words(counter + row * 3 + c / 2), Words(7));
      EXPECT_EQ(bits[row * 5 + c], x[c % 2]) << row << "," << c;
    }
  }
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{7, counter + 9}));
}

TEST(ThreeFryTest, ScalarAndNarrowTypes) {
  const Literal scalar = Generate("u64[2]", "u32[]", "rng_three_fry", U64s({kTfKey, kTfCounter}));
  EXPECT_EQ(Bits(scalar.tuple_elements()[1]), (std::vector<uint64_t>{0xc4923a9cu}));
  EXPECT_EQ(Bits(scalar.tuple_elements()[0])[1], kTfCounter + 1);
  // u8[4]: the low byte of the u32 layout (dimension 0 split: block e / 2).
  const Literal narrow = Generate("u64[2]", "u8[4]", "rng_three_fry", U64s({kTfKey, kTfCounter}));
  const std::array<uint32_t, 2> b1 = ThreeFry2x32(Words(kTfCounter + 1), Words(kTfKey));
  EXPECT_EQ(Bits(narrow.tuple_elements()[1]),
            (std::vector<uint64_t>{0x9c, 0xa0, b1[0] & 0xffu, b1[1] & 0xffu}));
  // s32 gets the same bits as u32.
  const Literal s32 = Generate("u64[2]", "s32[]", "rng_three_fry", U64s({kTfKey, kTfCounter}));
  EXPECT_EQ(Bits(s32.tuple_elements()[1]), (std::vector<uint64_t>{0xc4923a9cu}));
}

// ----------------------------------------------------------------- Philox

TEST(PhiloxTest, ThreeWordStateU32Bits) {
  const Literal r = Generate("u64[3]", "u32[6]", "rng_philox", U64s({kPhKey, kPhLow, kPhHigh}));
  const std::vector<uint64_t> bits = Bits(r.tuple_elements()[1]);
  const std::array<uint32_t, 4> b1 =
      Philox4x32({Words(kPhLow + 1)[0], Words(kPhLow + 1)[1], Words(kPhHigh)[0],
                  Words(kPhHigh)[1]},
                 Words(kPhKey));
  EXPECT_EQ(bits, (std::vector<uint64_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1, b1[0],
                                         b1[1]}));
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{kPhKey, kPhLow + 2, kPhHigh}));
}

TEST(PhiloxTest, U64BitsPairWords) {
  const Literal r = Generate("u64[3]", "u64[2,1]", "rng_philox", U64s({kPhKey, kPhLow, kPhHigh}));
  EXPECT_EQ(Bits(r.tuple_elements()[1]),
            (std::vector<uint64_t>{0x94fdccebd16cfe09ull, 0x24126ea15001e420ull}));
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{kPhKey, kPhLow + 1, kPhHigh}));
}

TEST(PhiloxTest, CounterCarriesIntoTheHighWord) {
  const Literal r = Generate("u64[3]", "u32[5]", "rng_philox", U64s({kOnes, kOnes, kOnes}));
  const std::vector<uint64_t> bits = Bits(r.tuple_elements()[1]);
  // Block 0 is the all-ones known answer; block 1 is counter 2^128 = 0.
  const std::array<uint32_t, 4> b1 = Philox4x32({0, 0, 0, 0}, {0xffffffff, 0xffffffff});
  EXPECT_EQ(bits, (std::vector<uint64_t>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd, b1[0]}));
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{kOnes, 1, 0}));
}

TEST(PhiloxTest, TwoWordStateUsesTheKeyAsCounterHigh) {
  // State (key=0, low=0): counter (0, 0) and key 0 give the zero vector.
  const Literal zero = Generate("u64[2]", "u32[2,2]", "rng_philox", U64s({0, 0}));
  EXPECT_EQ(Bits(zero.tuple_elements()[1]),
            (std::vector<uint64_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Bits(zero.tuple_elements()[0]), (std::vector<uint64_t>{0, 1}));
  // State (key=5, low=9): counter words (9, 0, 5, 0); only the low word advances.
  const Literal r = Generate("u64[2]", "u16[3]", "rng_philox", U64s({5, 9}));
  const std::array<uint32_t, 4> b0 = Philox4x32({9, 0, 5, 0}, {5, 0});
  EXPECT_EQ(Bits(r.tuple_elements()[1]),
            (std::vector<uint64_t>{b0[0] & 0xffffu, b0[1] & 0xffffu, b0[2] & 0xffffu}));
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{5, 10}));
}

TEST(PhiloxTest, DefaultAlgorithmIsPhilox) {
  const Literal state = U64s({kPhKey, kPhLow, kPhHigh});
  const Literal philox = Generate("u64[3]", "u32[7]", "rng_philox", state);
  EXPECT_EQ(Generate("u64[3]", "u32[7]", "rng_default", state), philox);
  EXPECT_EQ(Generate("u64[3]", "u32[7]", "", state), philox);
}

// A ThreeFry state longer than two words: the key and counter are its first
// two words (the bits equal those of the two-word state) and the other words
// pass through unchanged.
TEST(ThreeFryTest, LongerStateKeepsItsExtraWords) {
  const Literal two = Generate("u64[2]", "u32[5]", "rng_three_fry", U64s({kTfKey, kTfCounter}));
  const Literal four =
      Generate("u64[4]", "u32[5]", "rng_three_fry", U64s({kTfKey, kTfCounter, 11, kOnes}));
  EXPECT_EQ(Bits(four.tuple_elements()[1]), Bits(two.tuple_elements()[1]));
  EXPECT_EQ(Bits(four.tuple_elements()[0]),
            (std::vector<uint64_t>{kTfKey, kTfCounter + 3, 11, kOnes}));
}

TEST(RngBitGeneratorTest, BadStatesAreErrors) {
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  s = u64[4] parameter(0)
  ROOT r = (u64[4], u32[4]) rng-bit-generator(s), algorithm=rng_philox
})", {U64s({1, 2, 3, 4})});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "'r'")) << r.status();
  r = EvalText(R"(
ENTRY e {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], u32[4]) rng-bit-generator(s), algorithm=rng_mystery
})", {U64s({1, 2})});
  EXPECT_FALSE(r.ok());
}

// -------------------------------------------------------------------- rng

absl::StatusOr<Literal> EvalRng(const std::string& type, const std::string& dist,
                                const std::string& a, const std::string& b,
                                const std::string& name = "r") {
  return EvalText("ENTRY e {\n  a = " + type + "[] constant(" + a + ")\n  b = " + type +
                      "[] constant(" + b + ")\n  ROOT " + name + " = " + type +
                      "[33] rng(a, b), distribution=" + dist + "\n}",
                  {});
}

TEST(RngTest, UniformIsDeterministicAndInRange) {
  absl::StatusOr<Literal> f = EvalRng("f32", "rng_uniform", "-2", "3");
  ASSERT_TRUE(f.ok()) << f.status();
  for (int64_t i = 0; i < 33; ++i) {
    EXPECT_GE(f->GetDouble(i), -2);
    EXPECT_LT(f->GetDouble(i), 3);
  }
  EXPECT_NE(f->GetDouble(0), f->GetDouble(1));
  absl::StatusOr<Literal> again = EvalRng("f32", "rng_uniform", "-2", "3");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*f, *again);
  absl::StatusOr<Literal> other = EvalRng("f32", "rng_uniform", "-2", "3", "other");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*f, *other);
  absl::StatusOr<Literal> ints = EvalRng("s32", "rng_uniform", "-5", "7");
  ASSERT_TRUE(ints.ok()) << ints.status();
  for (int64_t i = 0; i < 33; ++i) {
    EXPECT_GE(ints->GetInt(i), -5);
    EXPECT_LT(ints->GetInt(i), 7);
  }
}

TEST(RngTest, NormalIsFiniteAndUnsupportedTypesAreClear) {
  absl::StatusOr<Literal> n = EvalRng("f64", "rng_normal", "1", "0.5");
  ASSERT_TRUE(n.ok()) << n.status();
  double sum = 0;
  for (int64_t i = 0; i < 33; ++i) sum += n->GetDouble(i);
  EXPECT_GT(sum / 33, 0.5);
  EXPECT_LT(sum / 33, 1.5);
  absl::StatusOr<Literal> bad = EvalRng("s8", "rng_uniform", "0", "3");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "rng")) << bad.status();
}

TEST(RngGetAndUpdateStateTest, StartsAtXlasInitialStateAndAddsEachDelta) {
  // Two calls in one evaluation: one sees 0x7012395, the other that plus
  // the first one's delta (which one runs first is the evaluation order).
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = u64[2] rng-get-and-update-state(), delta=131072
  b = u64[2] rng-get-and-update-state(), delta=1
  ROOT t = (u64[2], u64[2]) tuple(a, b)
})", {});
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& a = r->tuple_elements()[0];
  const Literal& b = r->tuple_elements()[1];
  EXPECT_EQ(a.GetBits(1), 0u);
  EXPECT_EQ(b.GetBits(1), 0u);
  const uint64_t lo = std::min(a.GetBits(0), b.GetBits(0));
  const uint64_t hi = std::max(a.GetBits(0), b.GetBits(0));
  EXPECT_EQ(lo, 0x7012395u);
  EXPECT_TRUE(hi == 0x7012395u + 131072 || hi == 0x7012395u + 1) << hi;
}

TEST(RngGetAndUpdateStateTest, AGivenStateCarriesAcrossEvaluations) {
  // options.rng_state: two evaluations continue one sequence, as two runs of
  // one executable; a negative delta subtracts, borrowing from the high word.
  absl::uint128 state = absl::MakeUint128(0, 5);
  EvaluatorOptions options;
  options.rng_state = &state;
  const char* kText = R"(
ENTRY e {
  ROOT a = u64[2] rng-get-and-update-state(), delta=-7
})";
  absl::StatusOr<Literal> first = EvalText(kText, {}, options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->GetBits(0), 5u);
  EXPECT_EQ(first->GetBits(1), 0u);
  absl::StatusOr<Literal> second = EvalText(kText, {}, options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->GetBits(0), ~uint64_t{1});  // 5 - 7 = 2^128 - 2
  EXPECT_EQ(second->GetBits(1), ~uint64_t{0});
  EXPECT_EQ(state, absl::uint128(0) - 9);
}

TEST(RngGetAndUpdateStateTest, AStateOfOtherShapeIsAnError) {
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  ROOT a = u32[4] rng-get-and-update-state(), delta=1
})", {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "u64[2]")) << r.status();
}

}  // namespace
}  // namespace xla
