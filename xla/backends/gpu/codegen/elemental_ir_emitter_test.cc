// The elemental emitter against the reference evaluator: each test runs a
// small HLO module through RunElemental (JIT on the host) and through
// HloEvaluator and compares every element. Integers, pred, shape ops and
// conversions must match bit for bit; floats within a stated number of
// units in the last place of the result type (NaN must match NaN). Inputs
// mix hand-picked special values (NaN, +-inf, -0, denormals, INT_MIN, shift
// amounts around the width) with random values, on odd shapes.
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include <iostream>
#include "gtest/gtest.h"
#include "xla/backends/gpu/codegen/jit_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/types/float_format.h"

namespace xla::gpu {
namespace {

// Monotone key of a float encoding: adjacent representable values differ by
// one, -0 and +0 coincide.
int64_t UlpKey(PrimitiveType type, uint64_t bits) {
  const FloatFormat& f = GetFloatFormat(FloatFormatOf(type));
  const int total = f.total_bits();
  if (f.specials == SpecialValues::kExponentOnly) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (total - 1);
  const int64_t mag = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -mag : mag;
}

bool IsNanBits(PrimitiveType type, uint64_t bits) {
  return std::isnan(DecodeFloat(FloatFormatOf(type), bits));
}

// Largest ulp distance between `want` and `got`; -1 (and a failure) when an
// element differs in kind (NaN vs number) or, for non-floats, at all.
int64_t MaxUlps(const Literal& want, const Literal& got, const std::string& what) {
  EXPECT_EQ(want.shape().element_type(), got.shape().element_type()) << what;
  EXPECT_EQ(want.shape().dimensions(), got.shape().dimensions()) << what;
  const PrimitiveType t = want.shape().element_type();
  int64_t worst = 0;
  int failures = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const uint64_t w = want.GetBits(i), g = got.GetBits(i);
    int64_t d = 0;
    if (!IsFloat(t)) {
      d = w == g ? 0 : -1;
    } else if (IsNanBits(t, w) || IsNanBits(t, g)) {
      d = IsNanBits(t, w) && IsNanBits(t, g) ? 0 : -1;
    } else {
      d = std::llabs(UlpKey(t, w) - UlpKey(t, g));
    }
    if (d < 0) {
      if (failures++ < 5) {
        ADD_FAILURE() << what << ": element " << i << " want " << want.ElementToString(i)
                      << " got " << got.ElementToString(i);
      }
      continue;
    }
    if (d > worst) worst = d;
  }
  return failures > 0 ? -1 : worst;
}

// Runs `hlo` with `args` on both sides; returns the max ulp distance.
int64_t Compare(const std::string& hlo, const std::vector<Literal>& args, const std::string& what) {
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << hlo;
  if (!module.ok()) return -1;
  auto want = HloEvaluator().Evaluate(**module, args);
  EXPECT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  auto got = RunElemental(**module, args);
  EXPECT_TRUE(got.ok()) << got.status() << "\n" << hlo;
  if (!want.ok() || !got.ok()) return -1;
  return MaxUlps(*want, *got, what);
}

int64_t CompareRandom(const std::string& hlo, const std::string& what, uint64_t seed = 7) {
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << hlo;
  if (!module.ok()) return -1;
  auto args = MakeRandomInputs(**module, seed);
  EXPECT_TRUE(args.ok()) << args.status();
  return Compare(hlo, *args, what);
}

const std::vector<double> kFloatSpecials = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5,
                                            -2.5, 3.5, 1e-40, -1e-310, 65504.0, 1e30, -7.25, 100.0};

// A float literal: the specials first, then uniform values in [-range, range].
Literal FloatLiteral(PrimitiveType type, const std::vector<int64_t>& dims, double range,
                     uint64_t seed, const std::vector<double>& first = kFloatSpecials) {
  Literal lit(Shape::Array(type, dims));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-range, range);
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    lit.SetDouble(i, i < static_cast<int64_t>(first.size()) ? first[i] : u(rng));
  }
  return lit;
}

// An integer literal: `first` (wrapped to the width), then random bits.
Literal IntLiteral(PrimitiveType type, const std::vector<int64_t>& dims, uint64_t seed,
                   const std::vector<uint64_t>& first) {
  Literal lit(Shape::Array(type, dims));
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    uint64_t v = i < static_cast<int64_t>(first.size()) ? first[i] : rng();
    if (rng() % 3 == 0 && i >= static_cast<int64_t>(first.size())) v %= 17;  // small values too
    if (IsPred(type)) v &= 1;
    lit.SetBits(i, v);
  }
  return lit;
}

std::string Unary(absl::string_view op, absl::string_view in, absl::string_view out,
                  absl::string_view attrs = "") {
  return absl::StrCat("HloModule m\nENTRY e {\n  p0 = ", in, " parameter(0)\n  ROOT r = ", out,
                      " ", op, "(p0)", attrs, "\n}\n");
}
std::string Binary(absl::string_view op, absl::string_view in, absl::string_view out,
                   absl::string_view attrs = "") {
  return absl::StrCat("HloModule m\nENTRY e {\n  p0 = ", in, " parameter(0)\n  p1 = ", in,
                      " parameter(1)\n  ROOT r = ", out, " ", op, "(p0, p1)", attrs, "\n}\n");
}

const std::vector<PrimitiveType> kFloatTypes = {
    PrimitiveType::F32, PrimitiveType::F64, PrimitiveType::F16, PrimitiveType::BF16,
    PrimitiveType::F8E4M3FN, PrimitiveType::F8E5M2, PrimitiveType::F8E4M3FNUZ};

struct FloatOp {
  const char* name;
  double range;     // random inputs in [-range, range]
  int f32_ulps;     // tolerance for f32 results
  int f64_ulps;     // tolerance for f64 results
  int narrow_ulps;  // tolerance for f16/bf16/f8 results
};

// Tolerances: exact ops 0; libm-backed and our own f64-internal
// approximations are nearly always correctly rounded for f32 (1 ulp), a few
// ulp for f64; narrow types may differ by one ulp from double rounding.
const FloatOp kUnaryFloatOps[] = {
    {"abs", 10, 0, 0, 0},        {"negate", 10, 0, 0, 0},
    {"sign", 10, 0, 0, 0},       {"floor", 10, 0, 0, 0},
    {"ceil", 10, 0, 0, 0},       {"round-nearest-afz", 10, 0, 0, 0},
    {"round-nearest-even", 10, 0, 0, 0},
    {"sqrt", 100, 0, 0, 0},      {"rsqrt", 100, 0, 1, 0},
    {"exponential", 20, 1, 1, 1}, {"exponential-minus-one", 5, 1, 4, 1},
    {"log", 100, 1, 1, 1},       {"log-plus-one", 3, 1, 4, 1},
    {"cbrt", 100, 1, 2, 1},      {"tanh", 5, 1, 4, 1},
    {"logistic", 20, 1, 4, 1},   {"erf", 5, 1, 8, 1},
    {"sine", 10, 1, 1, 1},       {"cosine", 10, 1, 1, 1},
    {"tan", 3, 1, 4, 1},         {"atan", 10, 1, 4, 1},
    {"asin", 1.2, 1, 4, 1},      {"acos", 1.2, 1, 4, 1},
    {"sinh", 5, 1, 4, 1},        {"cosh", 5, 1, 4, 1},
    {"asinh", 10, 1, 4, 1},      {"acosh", 10, 1, 4, 1},
    {"atanh", 1.2, 1, 4, 1},
};

int Tolerance(const FloatOp& op, PrimitiveType t) {
  if (t == PrimitiveType::F32) return op.f32_ulps;
  if (t == PrimitiveType::F64) return op.f64_ulps;
  return op.narrow_ulps;
}

TEST(ElementalIrEmitterTest, UnaryFloatOps) {
  std::map<std::string, int64_t> measured;
  for (const FloatOp& op : kUnaryFloatOps) {
    for (PrimitiveType t : kFloatTypes) {
      const std::string shape = absl::StrCat(PrimitiveTypeName(t), "[3,5,7]");
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, {3, 5, 7}, op.range, 11));
      const std::string what = absl::StrCat(op.name, " ", PrimitiveTypeName(t));
      const int64_t ulps = Compare(Unary(op.name, shape, shape), args, what);
      EXPECT_GE(ulps, 0) << what;
      EXPECT_LE(ulps, Tolerance(op, t)) << what;
      measured[what] = ulps;
    }
  }
  for (const auto& [what, ulps] : measured) {
    if (ulps > 0) std::cout << "max ulp " << what << ": " << ulps << "\n";
  }
}

// Accuracy on many random f32/f64 arguments for our own approximations.
TEST(ElementalIrEmitterTest, TranscendentalAccuracyWideRange) {
  for (const char* name : {"tanh", "erf", "logistic", "exponential-minus-one", "log-plus-one",
                           "cbrt", "tan", "atan", "exponential", "log", "sine", "cosine"}) {
    for (PrimitiveType t : {PrimitiveType::F32, PrimitiveType::F64}) {
      const std::string shape = absl::StrCat(PrimitiveTypeName(t), "[4097]");
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, {4097}, 8.0, 3, {}));
      const std::string what = absl::StrCat(name, " ", PrimitiveTypeName(t), " wide");
      const int64_t ulps = Compare(Unary(name, shape, shape), args, what);
      std::cout << "max ulp " << what << ": " << ulps << "\n";
      EXPECT_GE(ulps, 0);
      // f64: erf is 7 ulp (series below |x| = 2), the others at most 4.
      EXPECT_LE(ulps, t == PrimitiveType::F32 ? 1 : (std::string(name) == "erf" ? 8 : 4)) << what;
    }
  }
}

const FloatOp kBinaryFloatOps[] = {
    {"add", 10, 0, 0, 0},      {"subtract", 10, 0, 0, 0}, {"multiply", 10, 0, 0, 0},
    {"divide", 10, 0, 0, 0},   {"remainder", 10, 0, 0, 0}, {"maximum", 10, 0, 0, 0},
    {"minimum", 10, 0, 0, 0},  {"power", 3, 1, 1, 1},     {"atan2", 10, 1, 2, 1},
};

TEST(ElementalIrEmitterTest, BinaryFloatOps) {
  // The first 256 elements pair every special with every special.
  std::vector<double> lhs, rhs;
  for (double a : kFloatSpecials) {
    for (double b : kFloatSpecials) {
      lhs.push_back(a);
      rhs.push_back(b);
    }
  }
  for (const FloatOp& op : kBinaryFloatOps) {
    for (PrimitiveType t : kFloatTypes) {
      const std::string shape = absl::StrCat(PrimitiveTypeName(t), "[17,19]");
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, {17, 19}, op.range, 5, lhs));
      args.push_back(FloatLiteral(t, {17, 19}, op.range, 6, rhs));
      const std::string what = absl::StrCat(op.name, " ", PrimitiveTypeName(t));
      const int64_t ulps = Compare(Binary(op.name, shape, shape), args, what);
      EXPECT_GE(ulps, 0) << what;
      EXPECT_LE(ulps, Tolerance(op, t)) << what;
    }
  }
}

const std::vector<PrimitiveType> kIntTypes = {
    PrimitiveType::S8,  PrimitiveType::S16, PrimitiveType::S32, PrimitiveType::S64,
    PrimitiveType::U8,  PrimitiveType::U16, PrimitiveType::U32, PrimitiveType::U64,
    PrimitiveType::S4,  PrimitiveType::U4,  PrimitiveType::PRED};

std::vector<uint64_t> IntSpecials(PrimitiveType t) {
  const int w = BitWidth(t);
  const uint64_t min = uint64_t{1} << (w - 1);
  return {0, 1, ~uint64_t{0}, min, min - 1, uint64_t(w - 1), uint64_t(w), uint64_t(w + 1), 7, 2, 3};
}

TEST(ElementalIrEmitterTest, IntegerOpsBitExact) {
  const char* binary[] = {"add", "subtract", "multiply", "divide", "remainder", "power",
                          "maximum", "minimum", "and", "or", "xor", "shift-left",
                          "shift-right-logical", "shift-right-arithmetic"};
  const char* unary[] = {"abs", "negate", "sign", "not", "popcnt", "count-leading-zeros"};
  for (PrimitiveType t : kIntTypes) {
    const std::vector<uint64_t> sp = IntSpecials(t);
    std::vector<uint64_t> lhs, rhs;
    for (uint64_t a : sp) {
      for (uint64_t b : sp) {
        lhs.push_back(a);
        rhs.push_back(b);
      }
    }
    const std::string shape = absl::StrCat(PrimitiveTypeName(t), "[13,17]");
    for (const char* op : binary) {
      const bool pred_ok = !absl::StartsWith(op, "shift");
      if (IsPred(t) && !pred_ok) continue;
      std::vector<Literal> args;
      args.push_back(IntLiteral(t, {13, 17}, 1, lhs));
      args.push_back(IntLiteral(t, {13, 17}, 2, rhs));
      const std::string what = absl::StrCat(op, " ", PrimitiveTypeName(t));
      EXPECT_EQ(Compare(Binary(op, shape, shape), args, what), 0) << what;
    }
    for (const char* op : unary) {
      if (IsPred(t) && std::string(op) != "not") continue;
      std::vector<Literal> args;
      args.push_back(IntLiteral(t, {13, 17}, 3, sp));
      const std::string what = absl::StrCat(op, " ", PrimitiveTypeName(t));
      EXPECT_EQ(Compare(Unary(op, shape, shape), args, what), 0) << what;
    }
  }
}

TEST(ElementalIrEmitterTest, CompareAllDirections) {
  std::vector<double> lhs, rhs;
  for (double a : kFloatSpecials) {
    for (double b : kFloatSpecials) {
      lhs.push_back(a);
      rhs.push_back(b);
    }
  }
  std::vector<PrimitiveType> types = kFloatTypes;
  types.push_back(PrimitiveType::F8E8M0FNU);
  for (PrimitiveType t : kIntTypes) types.push_back(t);
  for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    for (const char* order : {"", ", type=TOTALORDER"}) {
      for (PrimitiveType t : types) {
        if (*order && !IsFloat(t)) continue;
        const std::string shape = absl::StrCat(PrimitiveTypeName(t), "[16,17]");
        std::vector<Literal> args;
        if (IsFloat(t)) {
          args.push_back(FloatLiteral(t, {16, 17}, 4, 1, lhs));
          args.push_back(FloatLiteral(t, {16, 17}, 4, 2, rhs));
        } else {
          const std::vector<uint64_t> sp = IntSpecials(t);
          args.push_back(IntLiteral(t, {16, 17}, 1, sp));
          args.push_back(IntLiteral(t, {16, 17}, 2, {1, 0, 0, 5, ~uint64_t{0}}));
        }
        const std::string what = absl::StrCat("compare ", dir, order, " ", PrimitiveTypeName(t));
        EXPECT_EQ(Compare(Binary("compare", shape, "pred[16,17]",
                                 absl::StrCat(", direction=", dir, order)),
                          args, what),
                  0)
            << what;
      }
    }
  }
}

TEST(ElementalIrEmitterTest, ConvertEveryPair) {
  std::vector<PrimitiveType> types = {
      PrimitiveType::PRED, PrimitiveType::S4,   PrimitiveType::S8,   PrimitiveType::S16,
      PrimitiveType::S32,  PrimitiveType::S64,  PrimitiveType::U4,   PrimitiveType::U8,
      PrimitiveType::U16,  PrimitiveType::U32,  PrimitiveType::U64,  PrimitiveType::F16,
      PrimitiveType::BF16, PrimitiveType::F32,  PrimitiveType::F64,  PrimitiveType::F8E5M2,
      PrimitiveType::F8E4M3, PrimitiveType::F8E4M3FN, PrimitiveType::F8E4M3FNUZ,
      PrimitiveType::F8E5M2FNUZ, PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E3M4,
      PrimitiveType::F8E8M0FNU, PrimitiveType::F4E2M1FN};
  const std::vector<double> float_specials = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.5, -1.5, 2.5,
                                              -0.5, 1e10, -1e10, 3e9, -3e9, 1e20, -1e20, 65519.0,
                                              65520.0, 255.5, 127.5, -128.5, 448.0, 464.0, 1e-45};
  int pairs = 0;
  for (PrimitiveType from : types) {
    Literal input = IsFloat(from) ? FloatLiteral(from, {7, 11}, 300, 9, float_specials)
                                  : IntLiteral(from, {7, 11}, 9, IntSpecials(from));
    for (PrimitiveType to : types) {
      const std::string hlo = Unary("convert", absl::StrCat(PrimitiveTypeName(from), "[7,11]"),
                                    absl::StrCat(PrimitiveTypeName(to), "[7,11]"));
      std::vector<Literal> args;
      args.push_back(input);
      const std::string what =
          absl::StrCat("convert ", PrimitiveTypeName(from), "->", PrimitiveTypeName(to));
      EXPECT_EQ(Compare(hlo, args, what), 0) << what;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 24 * 24);
}

// Integer -> bf16 / f16 must round once (double rounding through f32 would
// differ): 2^24 + 2^16 + 1 rounds up to 2^24 + 2^17 in bf16.
TEST(ElementalIrEmitterTest, IntegerToNarrowFloatRoundsOnce) {
  Literal in(Shape::Array(PrimitiveType::S32, {3}));
  in.SetInt(0, (1 << 24) + (1 << 16) + 1);
  in.SetInt(1, -((1 << 24) + (1 << 16) + 1));
  in.SetInt(2, (1 << 24) + (1 << 16));
  std::vector<Literal> args;
  args.push_back(in);
  auto module = ParseHloModule(Unary("convert", "s32[3]", "bf16[3]"));
  ASSERT_TRUE(module.ok());
  auto got = RunElemental(**module, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->GetDouble(0), 16777216.0 + 131072.0);
  EXPECT_EQ(got->GetDouble(1), -(16777216.0 + 131072.0));
  EXPECT_EQ(got->GetDouble(2), 16777216.0);  // tie to even
  EXPECT_EQ(Compare(Unary("convert", "s32[3]", "bf16[3]"), args, "s32->bf16"), 0);
}

struct ShapeCase {
  const char* name;
  const char* hlo;
};

const ShapeCase kShapeCases[] = {
    {"iota_s32", "ENTRY e {\n ROOT r = s32[3,5,7] iota(), iota_dimension=1\n}"},
    {"iota_bf16", "ENTRY e {\n ROOT r = bf16[300,3] iota(), iota_dimension=0\n}"},
    {"iota_f8", "ENTRY e {\n ROOT r = f8e4m3fn[33] iota(), iota_dimension=0\n}"},
    {"broadcast", "ENTRY e {\n p0 = f32[5] parameter(0)\n ROOT r = f32[3,5,7] broadcast(p0), dimensions={1}\n}"},
    {"broadcast_scalar", "ENTRY e {\n p0 = s8[] parameter(0)\n ROOT r = s8[3,7] broadcast(p0), dimensions={}\n}"},
    {"reshape", "ENTRY e {\n p0 = f32[3,5,7] parameter(0)\n ROOT r = f32[7,15] reshape(p0)\n}"},
    {"bitcast_row_major", "ENTRY e {\n p0 = s32[3,5,7] parameter(0)\n ROOT r = s32[5,21]{1,0} bitcast(p0)\n}"},
    {"transpose", "ENTRY e {\n p0 = f16[3,5,7] parameter(0)\n ROOT r = f16[7,3,5] transpose(p0), dimensions={2,0,1}\n}"},
    {"slice", "ENTRY e {\n p0 = s32[13,17] parameter(0)\n ROOT r = s32[4,5] slice(p0), slice={[1:13:3], [2:17:3]}\n}"},
    {"pad", "ENTRY e {\n p0 = f32[3,5] parameter(0)\n c = f32[] constant(-9.5)\n ROOT r = f32[8,15] pad(p0, c), padding=2_1_1x-1_3_2\n}"},
    {"pad_bf16", "ENTRY e {\n p0 = bf16[4] parameter(0)\n p1 = bf16[] parameter(1)\n ROOT r = bf16[9] pad(p0, p1), padding=1_1_1\n}"},
    {"concatenate", "ENTRY e {\n p0 = s16[3,2] parameter(0)\n p1 = s16[3,5] parameter(1)\n p2 = s16[3,1] parameter(2)\n ROOT r = s16[3,8] concatenate(p0, p1, p2), dimensions={1}\n}"},
    {"reverse", "ENTRY e {\n p0 = u8[3,5,7] parameter(0)\n ROOT r = u8[3,5,7] reverse(p0), dimensions={0,2}\n}"},
    {"dynamic_slice", "ENTRY e {\n p0 = f32[11,13] parameter(0)\n i = s32[] constant(9)\n j = s32[] constant(-4)\n ROOT r = f32[5,3] dynamic-slice(p0, i, j), dynamic_slice_sizes={5,3}\n}"},
    {"dynamic_slice_u", "ENTRY e {\n p0 = f32[11,13] parameter(0)\n i = u32[] constant(2)\n j = u32[] constant(4294967295)\n ROOT r = f32[5,3] dynamic-slice(p0, i, j), dynamic_slice_sizes={5,3}\n}"},
    {"dynamic_update_slice", "ENTRY e {\n p0 = s32[7,9] parameter(0)\n p1 = s32[3,4] parameter(1)\n i = s32[] constant(5)\n j = s32[] constant(2)\n ROOT r = s32[7,9] dynamic-update-slice(p0, p1, i, j)\n}"},
    {"constant", "ENTRY e {\n c = f32[2,3] constant({{1.5, -2, 3}, {4, 5e-40, -0}})\n p0 = f32[2,3] parameter(0)\n ROOT r = f32[2,3] add(c, p0)\n}"},
    {"constant_s4", "ENTRY e {\n c = s4[5] constant({-8, -1, 0, 3, 7})\n ROOT r = s4[5] negate(c)\n}"},
    {"select", "ENTRY e {\n p0 = pred[3,5] parameter(0)\n p1 = f32[3,5] parameter(1)\n p2 = f32[3,5] parameter(2)\n ROOT r = f32[3,5] select(p0, p1, p2)\n}"},
    {"select_scalar", "ENTRY e {\n p0 = pred[] parameter(0)\n p1 = s64[3,5] parameter(1)\n p2 = s64[3,5] parameter(2)\n ROOT r = s64[3,5] select(p0, p1, p2)\n}"},
    {"clamp", "ENTRY e {\n lo = f32[] constant(-0.25)\n p0 = f32[5,7] parameter(0)\n hi = f32[] constant(0.5)\n ROOT r = f32[5,7] clamp(lo, p0, hi)\n}"},
    {"clamp_int", "ENTRY e {\n p0 = s32[5,7] parameter(0)\n p1 = s32[5,7] parameter(1)\n p2 = s32[5,7] parameter(2)\n ROOT r = s32[5,7] clamp(p0, p1, p2)\n}"},
    {"is_finite", "ENTRY e {\n c = f32[6] constant({1, inf, -inf, nan, -0, 1e-45})\n ROOT r = pred[6] is-finite(c)\n}"},
    {"bitcast_same", "ENTRY e {\n p0 = f32[3,5] parameter(0)\n ROOT r = s32[3,5] bitcast-convert(p0)\n}"},
    {"bitcast_split", "ENTRY e {\n p0 = f32[3,5] parameter(0)\n ROOT r = u8[3,5,4] bitcast-convert(p0)\n}"},
    {"bitcast_join", "ENTRY e {\n p0 = u16[3,5,2] parameter(0)\n ROOT r = f32[3,5] bitcast-convert(p0)\n}"},
    {"bitcast_f16", "ENTRY e {\n p0 = f16[33] parameter(0)\n ROOT r = s16[33] bitcast-convert(p0)\n}"},
    {"reduce_precision_f32", "ENTRY e {\n p0 = f32[3,5,7] parameter(0)\n ROOT r = f32[3,5,7] reduce-precision(p0), exponent_bits=5, mantissa_bits=2\n}"},
    {"reduce_precision_f16", "ENTRY e {\n p0 = f16[3,5,7] parameter(0)\n ROOT r = f16[3,5,7] reduce-precision(p0), exponent_bits=4, mantissa_bits=3\n}"},
    {"reduce_precision_f64", "ENTRY e {\n p0 = f64[3,5,7] parameter(0)\n ROOT r = f64[3,5,7] reduce-precision(p0), exponent_bits=8, mantissa_bits=7\n}"},
    {"reduce_precision_f8", "ENTRY e {\n p0 = f8e5m2[3,5,7] parameter(0)\n ROOT r = f8e5m2[3,5,7] reduce-precision(p0), exponent_bits=4, mantissa_bits=1\n}"},
    {"fused_chain", "ENTRY e {\n p0 = bf16[3,5,7] parameter(0)\n p1 = bf16[7,5,3] parameter(1)\n t = bf16[3,5,7] transpose(p1), dimensions={2,1,0}\n m = bf16[3,5,7] multiply(p0, t)\n e = bf16[3,5,7] exponential(m)\n ROOT r = f32[3,5,7] convert(e)\n}"},
};

TEST(ElementalIrEmitterTest, ShapeAndMiscOps) {
  for (const ShapeCase& c : kShapeCases) {
    const std::string hlo = absl::StrCat("HloModule m\n", c.hlo, "\n");
    for (uint64_t seed : {1, 2}) {
      const int64_t ulps = CompareRandom(hlo, c.name, seed);
      EXPECT_EQ(ulps, absl::string_view(c.name) == "fused_chain" ? ulps : 0) << c.name;
      EXPECT_GE(ulps, 0) << c.name;
      EXPECT_LE(ulps, 1) << c.name;
    }
  }
}

// Special-value inputs for clamp, reduce-precision and bitcast (random
// inputs in [-1, 1) never reach NaN or overflow).
TEST(ElementalIrEmitterTest, SpecialValuesThroughShapeOps) {
  const char* cases[] = {
      "ENTRY e {\n lo = f32[] parameter(1)\n p0 = f32[16,16] parameter(0)\n hi = f32[] parameter(2)\n ROOT r = f32[16,16] clamp(lo, p0, hi)\n}",
      "ENTRY e {\n p0 = f32[16,16] parameter(0)\n ROOT r = f32[16,16] reduce-precision(p0), exponent_bits=5, mantissa_bits=10\n}",
      "ENTRY e {\n p0 = f32[16,16] parameter(0)\n ROOT r = f32[16,16] reduce-precision(p0), exponent_bits=3, mantissa_bits=0\n}",
      "ENTRY e {\n p0 = f32[16,16] parameter(0)\n ROOT r = pred[16,16] is-finite(p0)\n}",
  };
  std::vector<double> values;
  for (double a : kFloatSpecials) {
    for (double b : kFloatSpecials) values.push_back(a * 0.5 + b * 1e3);
  }
  for (int k = 0; k < 16; ++k) values[k] = kFloatSpecials[k];
  for (const char* body : cases) {
    for (double lo : std::vector<double>{-0.0, NAN, -1.0}) {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(PrimitiveType::F32, {16, 16}, 1e6, 3, values));
      auto module = ParseHloModule(absl::StrCat("HloModule m\n", body, "\n"));
      ASSERT_TRUE(module.ok()) << module.status();
      if ((*module)->entry_computation()->num_parameters() == 3) {
        args.push_back(FloatLiteral(PrimitiveType::F32, {}, 1, 1, {lo}));
        args.push_back(FloatLiteral(PrimitiveType::F32, {}, 1, 1, {std::isnan(lo) ? 2.0 : 0.0}));
      }
      EXPECT_EQ(Compare(absl::StrCat("HloModule m\n", body, "\n"), args, body), 0) << body;
    }
  }
}

TEST(ElementalIrEmitterTest, UnsupportedOpsFailClearly) {
  auto module = ParseHloModule(
      "HloModule m\nENTRY e {\n p0 = c64[3] parameter(0)\n ROOT r = c64[3] negate(p0)\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  auto args = MakeRandomInputs(**module, 1);
  ASSERT_TRUE(args.ok());
  auto got = RunElemental(**module, *args);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(got.status().message()).find("r (negate)"), std::string::npos)
      << got.status();
}

}  // namespace
}  // namespace xla::gpu
