#include "xla/hlo/transforms/complex_expander.h"

#include <complex>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/cholesky_expander.h"
#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// No complex value is left inside the entry (parameters, the root and the
// bitcasts between them and their real forms aside).
void ExpectOnlyBoundaryComplex(const HloModule& module) {
  for (const auto& c : module.computations()) {
    for (const auto& instr : c->instructions()) {
      if (!HasComplexLeaf(instr->shape())) continue;
      const HloOpcode op = instr->opcode();
      EXPECT_TRUE(op == HloOpcode::kParameter || op == HloOpcode::kBitcast || op == HloOpcode::kFft ||
                  op == HloOpcode::kTuple || op == HloOpcode::kGetTupleElement)
          << "complex value left: " << instr->ToString();
    }
  }
}

// Special values must agree exactly: NaN with NaN (either sign), an
// infinity with the same infinity.
bool SameSpecial(double w, double g) {
  if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
  if (std::isinf(w) || std::isinf(g)) return w == g;
  return true;
}

// Leaves of `want` and `got` agree: complex elements within `tol` times
// |want| (the error of a complex result is relative to its modulus, as the
// parts of a quotient can cancel), special values exactly; other leaves by
// CompareLiterals.
void ExpectClose(const Literal& want, const Literal& got, double tol) {
  if (want.shape().IsTuple()) {
    ASSERT_EQ(want.tuple_elements().size(), got.tuple_elements().size());
    for (size_t i = 0; i < want.tuple_elements().size(); ++i) {
      ExpectClose(want.tuple_elements()[i], got.tuple_elements()[i], tol);
    }
    return;
  }
  const PrimitiveType type = want.shape().element_type();
  if (!IsComplex(type)) {
    absl::Status same = CompareLiterals(want, got, tol / DefaultRelativeTolerance(PrimitiveType::F32));
    EXPECT_TRUE(same.ok()) << same;
    return;
  }
  if (type == PrimitiveType::C128) tol *= 1e-8;
  int64_t bad = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const std::complex<double> w = want.GetComplex(i), g = got.GetComplex(i);
    const bool special_ok = SameSpecial(w.real(), g.real()) && SameSpecial(w.imag(), g.imag());
    const bool finite = std::isfinite(w.real()) && std::isfinite(w.imag());
    const bool ok = special_ok && (!finite || std::abs(w - g) <= tol * std::abs(w));
    if (!ok && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": want (" << w.real() << ", " << w.imag() << ") got ("
                    << g.real() << ", " << g.imag() << ")";
    }
  }
  EXPECT_EQ(bad, 0) << "of " << want.element_count();
}

// Runs CholeskyExpander (when `cholesky`) and ComplexExpander on `hlo` and
// compares the evaluator's results before and after on `args` (random
// inputs of `seed` when empty), within `tolerance_scale` times the default
// relative tolerance, NaNs and infinities exactly.
void ExpectExpansionMatches(const std::string& hlo, std::vector<Literal> args = {},
                            double tolerance_scale = 4, bool cholesky = false, uint64_t seed = 3) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status input_ok = VerifyModule(**module);
  ASSERT_TRUE(input_ok.ok()) << input_ok;
  if (args.empty()) {
    absl::StatusOr<std::vector<Literal>> random = MakeRandomInputs(**module, seed);
    ASSERT_TRUE(random.ok()) << random.status();
    args = std::move(*random);
  }
  absl::StatusOr<Literal> want = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  if (cholesky) {
    ASSERT_TRUE(CholeskyExpander().Run(module->get()).ok());
  }
  absl::StatusOr<bool> changed = ComplexExpander().Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  absl::Status verified = VerifyModule(**module);
  ASSERT_TRUE(verified.ok()) << verified << "\n" << PrintModule(**module);
  ASSERT_TRUE(HloDCE().Run(module->get()).ok());
  ExpectOnlyBoundaryComplex(**module);
  absl::StatusOr<Literal> got = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectClose(*want, *got, tolerance_scale * DefaultRelativeTolerance(PrimitiveType::F32));
}

std::string Unary(const std::string& type, const std::string& result, const std::string& op) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, "[33,7] parameter(0)\n  ROOT r = ", result,
                      "[33,7] ", op, "(x)\n}\n");
}

std::string Binary(const std::string& type, const std::string& result, const std::string& op,
                   const std::string& attrs = "") {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, "[33,7] parameter(0)\n  y = ", type,
                      "[33,7] parameter(1)\n  ROOT r = ", result, "[33,7] ", op, "(x, y)", attrs,
                      "\n}\n");
}

const char* const kComplexUnary[] = {"negate", "sign",  "exponential", "log",  "sqrt",
                                     "rsqrt",  "acos",  "sine",        "cosine", "tanh",
                                     "sinh",   "cosh",  "tan",         "exponential-minus-one",
                                     "log-plus-one", "logistic"};
const char* const kComplexBinary[] = {"add", "subtract", "multiply", "divide", "power", "atan2"};

TEST(ComplexExpander, UnaryOpsOnRandomData) {
  for (const char* type : {"c64", "c128"}) {
    for (const char* op : kComplexUnary) {
      SCOPED_TRACE(absl::StrCat(type, " ", op));
      ExpectExpansionMatches(Unary(type, type, op));
    }
    const std::string part = std::string(type) == "c64" ? "f32" : "f64";
    for (const char* op : {"abs", "real", "imag"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", op));
      ExpectExpansionMatches(Unary(type, part, op));
    }
  }
}

TEST(ComplexExpander, BinaryOpsOnRandomData) {
  for (const char* type : {"c64", "c128"}) {
    for (const char* op : kComplexBinary) {
      SCOPED_TRACE(absl::StrCat(type, " ", op));
      ExpectExpansionMatches(Binary(type, type, op));
    }
    for (const char* dir : {"EQ", "NE"}) {
      ExpectExpansionMatches(Binary(type, "pred", "compare", absl::StrCat(", direction=", dir)));
    }
  }
}

// A complex source scattered onto a real operand (odd sizes, overlapping
// windows with padding): the real parts scattered, the result real.
TEST(ComplexExpander, SelectAndScatterOfAComplexSourceOntoARealOperand) {
  for (const std::string type : {"c64", "c128"}) {
    SCOPED_TRACE(type);
    const std::string part = type == "c64" ? "f32" : "f64";
    ExpectExpansionMatches(absl::StrCat(R"(HloModule m
ge {
  x = )", part, R"([] parameter(0)
  y = )", part, R"([] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}
cadd {
  x = )", type, R"([] parameter(0)
  y = )", type, R"([] parameter(1)
  ROOT s = )", type, R"([] add(x, y)
}
ENTRY e {
  a = )", part, R"([13,9] parameter(0)
  s = )", type, R"([7,9] parameter(1)
  z = )", type, R"([] parameter(2)
  ROOT r = )", part, R"([13,9] select-and-scatter(a, s, z), window={size=3x2 stride=2x1 pad=1_1x0_1}, select=ge, scatter=cadd
}
)"));
  }
}

// A complex operand (odd sizes, overlapping windows with padding), its
// select comparing whole complex values: by real part (ties when real
// parts repeat), by modulus, and lexicographically; an adding scatter and
// a subtracting one (argument order). Expanded into a reduce-window and a
// scatter over parts: nothing complex is left.
TEST(ComplexExpander, SelectAndScatterOfAComplexOperand) {
  const char* const selects[] = {
      "ra = $p[] real(x)\n  rb = $p[] real(y)\n  ROOT c = pred[] compare(ra, rb), direction=GE",
      "ra = $p[] abs(x)\n  rb = $p[] abs(y)\n  ROOT c = pred[] compare(ra, rb), direction=GT",
      "ra = $p[] real(x)\n  rb = $p[] real(y)\n  ia = $p[] imag(x)\n  ib = $p[] imag(y)\n"
      "  gt = pred[] compare(ra, rb), direction=GT\n  eq = pred[] compare(ra, rb), direction=EQ\n"
      "  ge = pred[] compare(ia, ib), direction=GE\n  tie = pred[] and(eq, ge)\n"
      "  ROOT c = pred[] or(gt, tie)"};
  for (const std::string type : {"c64", "c128"}) {
    const std::string part = type == "c64" ? "f32" : "f64";
    for (const char* select : selects) {
      for (const char* scatter : {"add", "subtract"}) {
        SCOPED_TRACE(absl::StrCat(type, " ", scatter, " ", select));
        const std::string body = absl::StrReplaceAll(select, {{"$p", part}});
        const std::string hlo = absl::StrCat("HloModule m\nsel {\n  x = ", type,
            "[] parameter(0)\n  y = ", type, "[] parameter(1)\n  ", body, "\n}\nsc {\n  x = ",
            type, "[] parameter(0)\n  y = ", type, "[] parameter(1)\n  ROOT s = ", type, "[] ",
            scatter, "(x, y)\n}\nENTRY e {\n  a = ", type, "[13,9] parameter(0)\n  s = ", type,
            "[7,9] parameter(1)\n  z = ", type, "[] parameter(2)\n  ROOT r = ", type,
            "[13,9] select-and-scatter(a, s, z), window={size=3x2 stride=2x1 pad=1_1x0_1}, "
            "select=sel, scatter=sc\n}\n");
        ExpectExpansionMatches(hlo);
      }
    }
  }
}

// Every pair of parts from {0, -0, 1.5, -2, 3e38, -1e-30, inf, -inf, nan}:
// the special values of C99 Annex G, huge and tiny finite values.
Literal SpecialValues(const std::string& type, int64_t repeat_each, int64_t tile) {
  const double parts[] = {0.0, -0.0, 1.5, -2.0, 3e38, -1e-30, kInf, -kInf, kNan};
  const int64_t n = 9 * 9;
  Literal l(Shape::Array(type == "c64" ? PrimitiveType::C64 : PrimitiveType::C128, {n * n}));
  for (int64_t i = 0; i < n * n; ++i) {
    const int64_t v = (i / repeat_each) % tile;
    l.SetComplex(i, {parts[v / 9], parts[v % 9]});
  }
  return l;
}

std::string Flat(const std::string& text) {
  return absl::StrReplaceAll(text, {{"[33,7]", "[6561]"}});
}

TEST(ComplexExpander, SpecialValuesMatchTheEvaluator) {
  for (const std::string type : {"c64", "c128"}) {
    for (const char* op : {"add", "subtract", "multiply", "divide"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", op));
      std::vector<Literal> args;
      args.push_back(SpecialValues(type, 81, 81));  // every x ...
      args.push_back(SpecialValues(type, 1, 81));   // ... with every y
      ExpectExpansionMatches(Flat(Binary(type, type, op)), std::move(args));
    }
    for (const char* op : {"negate", "sign", "exponential", "log", "sqrt", "acos"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", op));
      std::vector<Literal> args;
      args.push_back(SpecialValues(type, 1, 81));
      ExpectExpansionMatches(Flat(Unary(type, type, op)), std::move(args));
    }
    std::vector<Literal> args;
    args.push_back(SpecialValues(type, 1, 81));
    ExpectExpansionMatches(Flat(Unary(type, type == "c64" ? "f32" : "f64", "abs")), std::move(args));
  }
}

// Parts near the top of f32's range: neither the division nor |z|
// overflows before its result does.
TEST(ComplexExpander, NearOverflowDivideAndAbs) {
  constexpr char kHlo[] = R"(
HloModule m
ENTRY e {
  x = c64[257] parameter(0)
  y = c64[257] parameter(1)
  q = c64[257] divide(x, y)
  a = f32[257] abs(x)
  ROOT t = (c64[257], f32[257]) tuple(q, a)
}
)";
  std::vector<Literal> args;
  for (int k = 0; k < 2; ++k) {
    Literal l(Shape::Array(PrimitiveType::C64, {257}));
    for (int64_t i = 0; i < 257; ++i) {
      const double s = 3.0e38 * (0.25 + 0.75 * ((i * (5 + k)) % 17) / 16.0);
      l.SetComplex(i, {(i % 3 == 0 ? -1 : 1) * s, ((i + k) % 2 == 0 ? 1 : -0.6) * s});
    }
    args.push_back(std::move(l));
  }
  ExpectExpansionMatches(kHlo, std::move(args));
}

TEST(ComplexExpander, ConstructorsAndConverts) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f32[5,3] parameter(0)
  b = f32[5,3] parameter(1)
  z = c64[5,3] complex(a, b)
  w = c128[5,3] convert(z)
  r = c128[5,3] convert(a)
  s = c128[5,3] add(w, r)
  f = f32[5,3] convert(z)
  c = c64[] constant((1.5, -2.25))
  cb = c64[5,3] broadcast(c), dimensions={}
  p = pred[5,3] compare(a, b), direction=LT
  sel = c64[5,3] select(p, z, cb)
  ROOT t = (c128[5,3], f32[5,3], c64[5,3]) tuple(s, f, sel)
}
)");
}

TEST(ComplexExpander, DataMovementCarriesThePairDimension) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  x = c64[7,5] parameter(0)
  y = c64[3,5] parameter(1)
  i = s32[] parameter(2)
  b = c64[2,7,5] broadcast(x), dimensions={1,2}
  r = c64[14,5] reshape(b)
  t = c64[5,14] transpose(r), dimensions={1,0}
  s = c64[5,5] slice(t), slice={[0:5], [1:14:3]}
  v = c64[5,5] reverse(s), dimensions={1}
  yt = c64[5,3] transpose(y), dimensions={1,0}
  c = c64[5,8] concatenate(v, yt), dimensions={1}
  pv = c64[] constant((0.5, -3))
  p = c64[9,11] pad(c, pv), padding=0_0_1x1_2
  d = c64[3,4] dynamic-slice(p, i, i), dynamic_slice_sizes={3,4}
  idx = s32[4,1] parameter(3)
  g = c64[4,9,2] gather(p, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={1}, index_vector_dim=1, slice_sizes={9,2}
  u = c64[9,11] dynamic-update-slice(p, d, i, i)
  ROOT out = (c64[3,4], c64[9,11], c64[4,9,2]) tuple(d, u, g)
}
)");
}

TEST(ComplexExpander, ReduceAddAndDot) {
  ExpectExpansionMatches(R"(
HloModule m
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY e {
  x = c64[3,33,17] parameter(0)
  y = c64[3,17,9] parameter(1)
  f = f32[3,17,9] parameter(2)
  zero = c64[] constant((0, 0))
  r = c64[3,17] reduce(x, zero), dimensions={1}, to_apply=add
  d = c64[3,33,9] dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  m = c64[3,33,9] dot(x, f), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (c64[3,17], c64[3,33,9], c64[3,33,9]) tuple(r, d, m)
}
)");
}

TEST(ComplexExpander, WhileLoopCarriesComplexState) {
  ExpectExpansionMatches(R"(
HloModule m
body {
  s = (s32[], c64[9]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  z = c64[9] get-tuple-element(s), index=1
  zz = c64[9] multiply(z, z)
  h = c64[] constant((0.5, 0.25))
  hb = c64[9] broadcast(h), dimensions={}
  n = c64[9] multiply(zz, hb)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], c64[9]) tuple(j, n)
}
cond {
  s = (s32[], c64[9]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = c64[9] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], c64[9]) tuple(zero, x)
  w = (s32[], c64[9]) while(init), condition=cond, body=body
  ROOT out = c64[9] get-tuple-element(w), index=1
}
)");
}

// Ops with no real form stay complex between bitcasts (fft here).
TEST(ComplexExpander, FftKeepsComplexBuffersBetweenBitcasts) {
  constexpr char kHlo[] = R"(
HloModule m
ENTRY e {
  x = c64[4,8] parameter(0)
  c = c64[] constant((1, 2))
  b = c64[4,8] broadcast(c), dimensions={}
  a = c64[4,8] add(x, b)
  f = c64[4,8] fft(a), fft_type=FFT, fft_length={8}
  ROOT m = c64[4,8] multiply(f, a)
}
)";
  ExpectExpansionMatches(kHlo);
  pass_test::PassResult result = [&] {
    ComplexExpander pass;
    return pass_test::RunPassOnly(pass, kHlo);
  }();
  ASSERT_NE(result.module, nullptr);
  EXPECT_EQ(pass_test::CountOpcode(*result.module, HloOpcode::kFft), 1);
  EXPECT_TRUE(pass_test::Contains(result.text, "c64[4,8] fft(")) << result.text;
}

// A Hermitian positive-definite c64/c128 batch, lower and upper: the complex
// cholesky expansion (conjugate transposes) made real.
TEST(ComplexExpander, ComplexCholesky) {
  constexpr char kHlo[] = R"(
HloModule m
ENTRY e {
  x = TYPE[3,5,5] parameter(0)
  xh = TYPE[3,5,5] dot(x, x), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  re = PART[3,5,5] real(xh)
  im = PART[3,5,5] imag(xh)
  xt = TYPE[3,5,5] transpose(xh), dimensions={0,2,1}
  ret = PART[3,5,5] real(xt)
  imt = PART[3,5,5] imag(xt)
  hre = PART[3,5,5] add(re, ret)
  him = PART[3,5,5] subtract(im, imt)
  r = s32[5,5] iota(), iota_dimension=0
  c = s32[5,5] iota(), iota_dimension=1
  eye = pred[5,5] compare(r, c), direction=EQ
  ten = PART[] constant(10)
  zero = PART[] constant(0)
  tb = PART[5,5] broadcast(ten), dimensions={}
  zb = PART[5,5] broadcast(zero), dimensions={}
  diag = PART[5,5] select(eye, tb, zb)
  db = PART[3,5,5] broadcast(diag), dimensions={1,2}
  hd = PART[3,5,5] add(hre, db)
  h = TYPE[3,5,5] complex(hd, him)
  ROOT l = TYPE[3,5,5] cholesky(h), lower=LOWER
}
)";
  for (const char* lower : {"true", "false"}) {
    for (const auto& [type, part] : {std::pair{"c64", "f32"}, std::pair{"c128", "f64"}}) {
      SCOPED_TRACE(absl::StrCat(type, " lower=", lower));
      ExpectExpansionMatches(
          absl::StrReplaceAll(kHlo, {{"TYPE", type}, {"PART", part}, {"LOWER", lower}}), {}, 50,
          /*cholesky=*/true);
    }
  }
}

// Complex values with both parts non-zero and many ties: the real part
// takes 5 values, the imaginary part 7 (so equal elements occur too).
Literal TiedComplex(PrimitiveType type, std::vector<int64_t> dims, int64_t salt) {
  Literal l(Shape::Array(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int64_t k = i * 3 + salt;
    l.SetComplex(i, {0.5 * ((k * 7) % 5) - 0.75, 0.25 * ((k * 11) % 7) - 0.625});
  }
  return l;
}

Literal S32Values(std::vector<int64_t> dims, std::vector<int64_t> values) {
  Literal l(Shape::Array(PrimitiveType::S32, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetInt(i, values[i % values.size()]);
  return l;
}

std::string WithTypes(const char* text, bool c128) {
  return absl::StrReplaceAll(text, {{"TYPE", c128 ? "c128" : "c64"}, {"PART", c128 ? "f64" : "f32"}});
}

// Sorts in JAX's complex order (real part, then imaginary part) on
// operands with tied real parts, alone, along the first dimension, and
// with an s32 operand carried along (argsort).
TEST(ComplexExpander, SortOnParts) {
  constexpr char kHlo[] = R"(
HloModule m
lt {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  ar = PART[] real(a)
  br = PART[] real(b)
  ai = PART[] imag(a)
  bi = PART[] imag(b)
  l1 = pred[] compare(ar, br), direction=LT
  e1 = pred[] compare(ar, br), direction=EQ
  l2 = pred[] compare(ai, bi), direction=LT
  a2 = pred[] and(e1, l2)
  ROOT o = pred[] or(l1, a2)
}
lt_keyed {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT o = pred[] call(a, b), to_apply=lt
}
ENTRY e {
  x = TYPE[5,33] parameter(0)
  k = s32[5,33] iota(), iota_dimension=1
  s = TYPE[5,33] sort(x), dimensions={0}, is_stable=true, to_apply=lt
  a = (TYPE[5,33], s32[5,33]) sort(x, k), dimensions={1}, is_stable=true, to_apply=lt_keyed
  ROOT t = (TYPE[5,33], (TYPE[5,33], s32[5,33])) tuple(s, a)
}
)";
  for (bool c128 : {false, true}) {
    SCOPED_TRACE(c128 ? "c128" : "c64");
    std::vector<Literal> args;
    args.push_back(TiedComplex(c128 ? PrimitiveType::C128 : PrimitiveType::C64, {5, 33}, 1));
    ExpectExpansionMatches(WithTypes(kHlo, c128), std::move(args));
  }
}

// Scatter with add (one real scatter over the pairs), overwrite and
// multiply combiners (variadic scatters over the parts), duplicate indices
// for add and multiply, one index out of bounds.
TEST(ComplexExpander, ScatterOnParts) {
  constexpr char kHlo[] = R"(
HloModule m
add {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  ROOT r = TYPE[] add(a, b)
}
set {
  a = TYPE[] parameter(0)
  ROOT b = TYPE[] parameter(1)
}
mul {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  ROOT r = TYPE[] multiply(a, b)
}
ENTRY e {
  x = TYPE[11,5] parameter(0)
  i = s32[7,1] parameter(1)
  j = s32[7,1] parameter(2)
  u = TYPE[7,5] parameter(3)
  a = TYPE[11,5] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  s = TYPE[11,5] scatter(x, j, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
  m = TYPE[11,5] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul
  ROOT t = (TYPE[11,5], TYPE[11,5], TYPE[11,5]) tuple(a, s, m)
}
)";
  for (bool c128 : {false, true}) {
    SCOPED_TRACE(c128 ? "c128" : "c64");
    const PrimitiveType type = c128 ? PrimitiveType::C128 : PrimitiveType::C64;
    std::vector<Literal> args;
    args.push_back(TiedComplex(type, {11, 5}, 2));
    args.push_back(S32Values({7, 1}, {3, 9, 3, 0, 12, 9, 3}));
    args.push_back(S32Values({7, 1}, {4, 10, 0, 7, 2, 12, 5}));
    args.push_back(TiedComplex(type, {7, 5}, 5));
    ExpectExpansionMatches(WithTypes(kHlo, c128), std::move(args));
  }
  pass_test::PassResult result = [&] {
    ComplexExpander pass;
    return pass_test::RunPassOnly(pass, WithTypes(kHlo, false));
  }();
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(pass_test::Contains(result.text, "f32[11,5,2]{2,1,0} scatter(")) << result.text;
  EXPECT_TRUE(pass_test::Contains(result.text, "update_window_dims={1,2}")) << result.text;
}

// reduce-window add with a 2-D window, strides and padding (a non-zero
// initial value), JAX's cumulative sum and product, and reduces with a
// multiply reducer and a variadic one over a complex and a real array.
TEST(ComplexExpander, ReduceWindowAndReducesOnParts) {
  constexpr char kHlo[] = R"(
HloModule m
add {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  ROOT r = TYPE[] add(a, b)
}
mul {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  ROOT r = TYPE[] multiply(a, b)
}
mul_and_max {
  a = TYPE[] parameter(0)
  m = PART[] parameter(1)
  b = TYPE[] parameter(2)
  n = PART[] parameter(3)
  p = TYPE[] multiply(a, b)
  x = PART[] maximum(m, n)
  ROOT r = (TYPE[], PART[]) tuple(p, x)
}
ENTRY e {
  x = TYPE[9,7] parameter(0)
  f = PART[9,7] parameter(1)
  init = TYPE[] constant((0.5, -0.25))
  zero = TYPE[] constant((0, 0))
  one = TYPE[] constant((1, 0))
  ninf = PART[] constant(-inf)
  w = TYPE[5,7] reduce-window(x, init), window={size=3x2 stride=2x1 pad=1_2x0_1}, to_apply=add
  cs = TYPE[9,7] reduce-window(x, zero), window={size=1x7 pad=0_0x6_0}, to_apply=add
  cp = TYPE[9,7] reduce-window(x, one), window={size=9x1 pad=8_0x0_0}, to_apply=mul
  p = TYPE[9] reduce(x, one), dimensions={1}, to_apply=mul
  v = (TYPE[7], PART[7]) reduce(x, f, one, ninf), dimensions={0}, to_apply=mul_and_max
  ROOT t = (TYPE[5,7], TYPE[9,7], TYPE[9,7], TYPE[9], (TYPE[7], PART[7])) tuple(w, cs, cp, p, v)
}
)";
  for (bool c128 : {false, true}) {
    SCOPED_TRACE(c128 ? "c128" : "c64");
    std::vector<Literal> args;
    args.push_back(TiedComplex(c128 ? PrimitiveType::C128 : PrimitiveType::C64, {9, 7}, 3));
    Literal f(Shape::Array(c128 ? PrimitiveType::F64 : PrimitiveType::F32, {9, 7}));
    for (int64_t i = 0; i < f.element_count(); ++i) f.SetDouble(i, 0.125 * ((i * 5) % 13) - 0.5);
    args.push_back(std::move(f));
    ExpectExpansionMatches(WithTypes(kHlo, c128), std::move(args));
  }
}

}  // namespace
}  // namespace xla
