// Tests of dot, convolution, cholesky, triangular-solve and fft in the
// evaluator, against naive loops written here and hand-computed values.
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

// Random values in [-1, 1) rounded to `type`, never all zero.
Literal RandomLiteral(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Literal l(Shape::Array(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, dist(gen));
  return l;
}

Literal Eval(const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : Literal();
}

// A literal of `type` holding `values` (rounded once from f64).
Literal FromValues(PrimitiveType type, std::vector<int64_t> dims, const std::vector<double>& v) {
  return MakeLiteral(type, std::move(dims), v);
}

// ------------------------------------------------------------------- dot

TEST(DotTest, MatmulMatchesNaiveLoopBitExactly) {
  const Literal a = RandomLiteral(PrimitiveType::F32, {3, 5}, 1);
  const Literal b = RandomLiteral(PrimitiveType::F32, {5, 7}, 2);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[3,5] parameter(0)
  b = f32[5,7] parameter(1)
  ROOT d = f32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {a, b});
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 7; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 5; ++k) s += a.GetDouble(i * 5 + k) * b.GetDouble(k * 7 + j);
      want.push_back(static_cast<float>(s));
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(ScaledDotTest, BlockScalesMultiplyTheirBlocksBeforeTheDot) {
  // lhs [3, 8] with scales [3, 2] (blocks of 4 along k), rhs [8, 5] with a
  // scalar scale.
  const Literal a = RandomLiteral(PrimitiveType::F32, {3, 8}, 31);
  const Literal b = RandomLiteral(PrimitiveType::F32, {8, 5}, 32);
  const Literal sa = FromValues(PrimitiveType::F32, {3, 2}, {0.5, 2, 4, 0.25, 1, 8});
  const Literal sb = FromValues(PrimitiveType::F32, {}, {3});
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[3,8] parameter(0)
  b = f32[8,5] parameter(1)
  sa = f32[3,2] parameter(2)
  sb = f32[] parameter(3)
  ROOT d = f32[3,5] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {a, b, sa, sb});
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 8; ++k) {
        s += a.GetDouble(i * 8 + k) * sa.GetDouble(i * 2 + k / 4) * b.GetDouble(k * 5 + j) * 3;
      }
      want.push_back(static_cast<float>(s));
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(DotTest, BatchDimsAndTransposedContracting) {
  // lhs [b=2, k=5, i=3], rhs [j=7, b=2, k=5] -> [b, i, j].
  const Literal a = RandomLiteral(PrimitiveType::F64, {2, 5, 3}, 3);
  const Literal b = RandomLiteral(PrimitiveType::F64, {7, 2, 5}, 4);
  const Literal r = Eval(R"(
ENTRY e {
  a = f64[2,5,3] parameter(0)
  b = f64[7,2,5] parameter(1)
  ROOT d = f64[2,3,7] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={1},
      lhs_contracting_dims={1}, rhs_contracting_dims={2}
})", {a, b});
  std::vector<double> want;
  for (int64_t bb = 0; bb < 2; ++bb) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 7; ++j) {
        double s = 0;
        for (int64_t k = 0; k < 5; ++k) {
          s += a.GetDouble(a.LinearIndex({bb, k, i})) * b.GetDouble(b.LinearIndex({j, bb, k}));
        }
        want.push_back(s);
      }
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(DotTest, TwoContractingDimsInSwappedOrder) {
  // lhs [k0=4, i=3, k1=5], rhs [k1=5, j=6, k0=4]; contract (0<->2, 2<->0).
  const Literal a = RandomLiteral(PrimitiveType::F32, {4, 3, 5}, 5);
  const Literal b = RandomLiteral(PrimitiveType::F32, {5, 6, 4}, 6);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[4,3,5] parameter(0)
  b = f32[5,6,4] parameter(1)
  ROOT d = f32[3,6] dot(a, b), lhs_contracting_dims={0,2}, rhs_contracting_dims={2,0}
})", {a, b});
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      double s = 0;
      for (int64_t k0 = 0; k0 < 4; ++k0) {
        for (int64_t k1 = 0; k1 < 5; ++k1) {
          s += a.GetDouble(a.LinearIndex({k0, i, k1})) * b.GetDouble(b.LinearIndex({k1, j, k0}));
        }
      }
      EXPECT_EQ(r.GetDouble(i * 6 + j), static_cast<float>(s)) << i << "," << j;
    }
  }
}

TEST(DotTest, BatchOnlyAndOuterProduct) {
  const Literal a = RandomLiteral(PrimitiveType::F32, {3, 2}, 7);
  const Literal b = RandomLiteral(PrimitiveType::F32, {3, 4}, 8);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[3,2] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[3,2,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}
})", {a, b});
  for (int64_t bb = 0; bb < 3; ++bb) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        const float want = static_cast<float>(a.GetDouble(bb * 2 + i) * b.GetDouble(bb * 4 + j));
        EXPECT_EQ(r.GetDouble(r.LinearIndex({bb, i, j})), want);
      }
    }
  }
}

TEST(DotTest, S8TimesS8GivesExactS32) {
  const Literal a = MakeIntLiteral(PrimitiveType::S8, {2, 3}, {-128, 127, -1, 100, -100, 7});
  const Literal b = MakeIntLiteral(PrimitiveType::S8, {3, 2}, {-128, 1, -128, 2, 127, -3});
  const Literal r = Eval(R"(
ENTRY e {
  a = s8[2,3] parameter(0)
  b = s8[3,2] parameter(1)
  ROOT d = s32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {a, b});
  // Row 0: 16384 - 16256 - 127 = 1; -128 + 254 + 3 = 129.
  // Row 1: -12800 + 12800 + 889 = 889; 100 - 200 - 21 = -121.
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{1, 129, 889, -121}));
}

TEST(DotTest, IntegerDotWrapsInResultType) {
  const Literal a = MakeIntLiteral(PrimitiveType::S32, {1, 2}, {65536, 2147483647});
  const Literal b = MakeIntLiteral(PrimitiveType::S32, {2, 1}, {65537, 2});
  const Literal r = Eval(R"(
ENTRY e {
  a = s32[1,2] parameter(0)
  b = s32[2,1] parameter(1)
  ROOT d = s32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {a, b});
  // 65536*65537 = 2^32 + 2^16 -> 65536; 2^31-1 times 2 -> -2 (mod 2^32).
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{65534}));
  const Literal u = MakeIntLiteral(PrimitiveType::U8, {3}, {200, 100, 255});
  const Literal r2 = Eval(R"(
ENTRY e {
  a = u8[3] parameter(0)
  b = u8[3] parameter(1)
  ROOT d = u8[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})", {u, u});
  EXPECT_EQ(IntValues(r2), (std::vector<int64_t>{(40000 + 10000 + 65025) % 256}));
}

TEST(DotTest, Bf16InputsF32ResultRoundOnce) {
  const Literal a = RandomLiteral(PrimitiveType::BF16, {5, 33}, 9);
  const Literal b = RandomLiteral(PrimitiveType::BF16, {33, 3}, 10);
  const Literal r = Eval(R"(
ENTRY e {
  a = bf16[5,33] parameter(0)
  b = bf16[33,3] parameter(1)
  ROOT d = f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {a, b});
  ASSERT_EQ(r.shape().element_type(), PrimitiveType::F32);
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 33; ++k) s += a.GetDouble(i * 33 + k) * b.GetDouble(k * 3 + j);
      EXPECT_EQ(r.GetDouble(i * 3 + j), static_cast<float>(s));
    }
  }
}

TEST(DotTest, Bf16ResultIsRoundedOnceFromExactSum) {
  // 1 + 2^-8 + 2^-8: summing in bf16 would round each step (a tie, to 1); one
  // final rounding gives 1 + 2^-7 exactly.
  const double e = std::ldexp(1.0, -8);
  const Literal a = FromValues(PrimitiveType::BF16, {3}, {1, e, e});
  const Literal b = FromValues(PrimitiveType::BF16, {3}, {1, 1, 1});
  const Literal r = Eval(R"(
ENTRY e {
  a = bf16[3] parameter(0)
  b = bf16[3] parameter(1)
  ROOT d = bf16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})", {a, b});
  EXPECT_EQ(r.GetDouble(0), 1 + std::ldexp(1.0, -7));
}

TEST(DotTest, ComplexDot) {
  Literal a(Shape::Array(PrimitiveType::C64, {2}));
  Literal b(Shape::Array(PrimitiveType::C64, {2}));
  a.SetComplex(0, {1, 2});
  a.SetComplex(1, {3, -1});
  b.SetComplex(0, {0.5, -1});
  b.SetComplex(1, {2, 2});
  const Literal r = Eval(R"(
ENTRY e {
  a = c64[2] parameter(0)
  b = c64[2] parameter(1)
  ROOT d = c64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})", {a, b});
  // (1+2i)(0.5-i) = 2.5 + 0i; (3-i)(2+2i) = 8 + 4i.
  EXPECT_EQ(r.GetComplex(0), std::complex<double>(10.5, 4));
}

TEST(DotTest, MismatchedContractingSizesIsAnError) {
  const char* hlo = R"(
ENTRY e {
  a = f32[3,5] parameter(0)
  b = f32[4,7] parameter(1)
  ROOT d = f32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  absl::StatusOr<Literal> r =
      EvalText(hlo, {Literal(Shape::Array(PrimitiveType::F32, {3, 5})),
                     Literal(Shape::Array(PrimitiveType::F32, {4, 7}))});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "dot 'd'")) << r.status();
}

// ----------------------------------------------------------- convolution

TEST(ConvolutionTest, StableHloSpecExample) {
  // lhs 1x4x4x1, kernel 3x3x1x1 of ones, stride 4, lhs dilation 2.
  const Literal lhs = MakeIntLiteral(PrimitiveType::S32, {1, 4, 4, 1},
                                     {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17});
  const Literal rhs = MakeIntLiteral(PrimitiveType::S32, {3, 3, 1, 1}, std::vector<int64_t>(9, 1));
  const Literal r = Eval(R"(
ENTRY e {
  l = s32[1,4,4,1] parameter(0)
  k = s32[3,3,1,1] parameter(1)
  ROOT c = s32[1,2,2,1] convolution(l, k), window={size=3x3 stride=4x4 lhs_dilate=2x2},
      dim_labels=b01f_01io->b01f
})", {lhs, rhs});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{10, 26, 46, 62}));
}

TEST(ConvolutionTest, OneByOneWindowEqualsDot) {
  const Literal in = RandomLiteral(PrimitiveType::F32, {2, 3, 5, 4}, 11);
  const Literal k = RandomLiteral(PrimitiveType::F32, {1, 1, 4, 6}, 12);
  const Literal conv = Eval(R"(
ENTRY e {
  l = f32[2,3,5,4] parameter(0)
  k = f32[1,1,4,6] parameter(1)
  ROOT c = f32[2,3,5,6] convolution(l, k), window={size=1x1}, dim_labels=b01f_01io->b01f
})", {in, k});
  const Literal kernel2d = [&] {
    Literal m(Shape::Array(PrimitiveType::F32, {4, 6}));
    for (int64_t i = 0; i < 24; ++i) m.SetDouble(i, k.GetDouble(i));
    return m;
  }();
  const Literal dot = Eval(R"(
ENTRY e {
  l = f32[2,3,5,4] parameter(0)
  k = f32[4,6] parameter(1)
  ROOT d = f32[2,3,5,6] dot(l, k), lhs_contracting_dims={3}, rhs_contracting_dims={0}
})", {in, kernel2d});
  EXPECT_EQ(Values(conv), Values(dot));
}

// A convolution written the way the StableHLO spec defines it: dilate and
// pad the input explicitly, slide the (dilated, possibly reversed) kernel,
// split features or batches into groups. Canonical layouts: input
// [N, C, H, W], kernel [O, I, KH, KW], output [N/B, O, OH, OW]; `pos_*` give
// where each canonical dimension sits in the actual literals.
struct ConvCase {
  std::vector<int64_t> in_dims;      // canonical N, C, H, W
  std::vector<int64_t> kernel_dims;  // canonical O, I, KH, KW
  std::vector<int64_t> stride{1, 1}, pad_lo{0, 0}, pad_hi{0, 0}, lhs_dil{1, 1}, rhs_dil{1, 1};
  std::vector<bool> reversal{false, false};
  int64_t feature_groups = 1, batch_groups = 1;
  std::vector<int64_t> pos_in{0, 1, 2, 3}, pos_kernel{0, 1, 2, 3}, pos_out{0, 1, 2, 3};
  std::string labels = "bf01_oi01->bf01";
};

std::vector<int64_t> Permuted(const std::vector<int64_t>& canonical,
                              const std::vector<int64_t>& pos) {
  std::vector<int64_t> actual(4);
  for (int d = 0; d < 4; ++d) actual[pos[d]] = canonical[d];
  return actual;
}

int64_t At(const Literal& l, const std::vector<int64_t>& canonical,
           const std::vector<int64_t>& pos) {
  return l.LinearIndex(Permuted(canonical, pos));
}

// The padded, dilated spatial plane of input (n, c) as a dense array.
std::vector<double> PaddedPlane(const ConvCase& c, const Literal& in, int64_t n, int64_t ch,
                                std::vector<int64_t>& size) {
  std::vector<int64_t> dil(2);
  for (int s = 0; s < 2; ++s) {
    const int64_t x = c.in_dims[2 + s];
    dil[s] = x == 0 ? 0 : (x - 1) * c.lhs_dil[s] + 1;
    size[s] = std::max<int64_t>(0, c.pad_lo[s] + dil[s] + c.pad_hi[s]);
  }
  std::vector<double> plane(size[0] * size[1], 0.0);
  for (int64_t h = 0; h < c.in_dims[2]; ++h) {
    for (int64_t w = 0; w < c.in_dims[3]; ++w) {
      const int64_t ph = c.pad_lo[0] + h * c.lhs_dil[0];
      const int64_t pw = c.pad_lo[1] + w * c.lhs_dil[1];
      if (ph < 0 || pw < 0 || ph >= size[0] || pw >= size[1]) continue;  // cropped
      plane[ph * size[1] + pw] = in.GetDouble(At(in, {n, ch, h, w}, c.pos_in));
    }
  }
  return plane;
}

std::vector<double> NaiveConv(const ConvCase& c, const Literal& in, const Literal& k,
                              std::vector<int64_t>& out_dims) {
  const int64_t kn = c.in_dims[0], ko = c.kernel_dims[0];
  const int64_t ki = c.kernel_dims[1], kh = c.kernel_dims[2], kw = c.kernel_dims[3];
  std::vector<int64_t> size(2);
  PaddedPlane(c, in, 0, 0, size);
  std::vector<int64_t> o(2);
  for (int s = 0; s < 2; ++s) {
    const int64_t span = (c.kernel_dims[2 + s] - 1) * c.rhs_dil[s] + 1;
    o[s] = size[s] < span ? 0 : (size[s] - span) / c.stride[s] + 1;
  }
  const int64_t out_n = kn / c.batch_groups;
  out_dims = {out_n, ko, o[0], o[1]};
  std::vector<double> out(out_n * ko * o[0] * o[1], 0.0);
  for (int64_t b = 0; b < out_n; ++b) {
    for (int64_t f = 0; f < ko; ++f) {
      const int64_t fg = f / (ko / c.feature_groups), bg = f / (ko / c.batch_groups);
      const int64_t n = bg * out_n + b;
      for (int64_t i = 0; i < ki; ++i) {
        const int64_t ch = fg * ki + i;
        const std::vector<double> plane = PaddedPlane(c, in, n, ch, size);
        for (int64_t y = 0; y < o[0]; ++y) {
          for (int64_t x = 0; x < o[1]; ++x) {
            double s = 0;
            for (int64_t u = 0; u < kh; ++u) {
              for (int64_t v = 0; v < kw; ++v) {
                const int64_t ku = c.reversal[0] ? kh - 1 - u : u;
                const int64_t kv = c.reversal[1] ? kw - 1 - v : v;
                const double lhs = plane[(y * c.stride[0] + u * c.rhs_dil[0]) * size[1] +
                                         x * c.stride[1] + v * c.rhs_dil[1]];
                s += lhs * k.GetDouble(At(k, {f, i, ku, kv}, c.pos_kernel));
              }
            }
            out[((b * ko + f) * o[0] + y) * o[1] + x] += s;
          }
        }
      }
    }
  }
  return out;
}

std::string Dims(const std::vector<int64_t>& d) {
  return absl::StrCat(d[0], ",", d[1], ",", d[2], ",", d[3]);
}

std::string WindowText(const ConvCase& c) {
  std::string w = absl::StrCat("size=", c.kernel_dims[2], "x", c.kernel_dims[3], " stride=",
                               c.stride[0], "x", c.stride[1], " pad=", c.pad_lo[0], "_",
                               c.pad_hi[0], "x", c.pad_lo[1], "_", c.pad_hi[1], " lhs_dilate=",
                               c.lhs_dil[0], "x", c.lhs_dil[1], " rhs_dilate=", c.rhs_dil[0],
                               "x", c.rhs_dil[1]);
  if (c.reversal[0] || c.reversal[1]) {
    absl::StrAppend(&w, " rhs_reversal=", c.reversal[0] ? 1 : 0, "x", c.reversal[1] ? 1 : 0);
  }
  return w;
}

void CheckConv(const ConvCase& c, uint32_t seed) {
  const Literal in = RandomLiteral(PrimitiveType::F64, Permuted(c.in_dims, c.pos_in), seed);
  const Literal k =
      RandomLiteral(PrimitiveType::F64, Permuted(c.kernel_dims, c.pos_kernel), seed + 1);
  std::vector<int64_t> out_dims;
  const std::vector<double> want = NaiveConv(c, in, k, out_dims);
  const std::string hlo = absl::StrCat(
      "ENTRY e {\n  l = f64[", Dims(Permuted(c.in_dims, c.pos_in)), "] parameter(0)\n",
      "  k = f64[", Dims(Permuted(c.kernel_dims, c.pos_kernel)), "] parameter(1)\n",
      "  ROOT c = f64[", Dims(Permuted(out_dims, c.pos_out)), "] convolution(l, k), window={",
      WindowText(c), "}, dim_labels=", c.labels, ", feature_group_count=", c.feature_groups,
      ", batch_group_count=", c.batch_groups, "\n}");
  const Literal r = Eval(hlo, {in, k});
  ASSERT_EQ(r.element_count(), static_cast<int64_t>(want.size())) << hlo;
  for (int64_t b = 0; b < out_dims[0]; ++b) {
    for (int64_t f = 0; f < out_dims[1]; ++f) {
      for (int64_t y = 0; y < out_dims[2]; ++y) {
        for (int64_t x = 0; x < out_dims[3]; ++x) {
          const double w = want[((b * out_dims[1] + f) * out_dims[2] + y) * out_dims[3] + x];
          EXPECT_NEAR(r.GetDouble(At(r, {b, f, y, x}, c.pos_out)), w, 1e-12)
              << hlo << "\nat " << b << "," << f << "," << y << "," << x;
        }
      }
    }
  }
}

TEST(ConvolutionTest, StridesAndPadding) {
  ConvCase c;
  c.in_dims = {2, 3, 7, 5};
  c.kernel_dims = {4, 3, 3, 2};
  c.stride = {2, 1};
  c.pad_lo = {1, 2};
  c.pad_hi = {2, 0};
  CheckConv(c, 20);
}

TEST(ConvolutionTest, NegativePaddingCrops) {
  ConvCase c;
  c.in_dims = {1, 2, 9, 6};
  c.kernel_dims = {3, 2, 2, 3};
  c.pad_lo = {-2, 1};
  c.pad_hi = {-1, -2};
  CheckConv(c, 22);
}

TEST(ConvolutionTest, BaseAndWindowDilationWithReversal) {
  ConvCase c;
  c.in_dims = {2, 2, 5, 4};
  c.kernel_dims = {3, 2, 3, 2};
  c.lhs_dil = {2, 3};
  c.rhs_dil = {2, 1};
  c.stride = {1, 2};
  c.pad_lo = {1, 0};
  c.pad_hi = {0, 2};
  c.reversal = {true, false};
  CheckConv(c, 24);
}

TEST(ConvolutionTest, FeatureGroups) {
  ConvCase c;
  c.in_dims = {2, 6, 5, 5};
  c.kernel_dims = {9, 2, 2, 2};  // 3 groups of 2 input and 3 output features
  c.feature_groups = 3;
  CheckConv(c, 26);
}

TEST(ConvolutionTest, BatchGroups) {
  ConvCase c;
  c.in_dims = {6, 2, 4, 5};
  c.kernel_dims = {6, 2, 3, 2};  // 3 batch groups of 2 batches, 2 output features each
  c.batch_groups = 3;
  c.pad_lo = {1, 1};
  CheckConv(c, 28);
}

TEST(ConvolutionTest, OtherDimLabels) {
  ConvCase c;
  c.in_dims = {2, 3, 6, 5};
  c.kernel_dims = {4, 3, 3, 2};
  c.stride = {2, 2};
  c.pad_hi = {1, 1};
  // input 0bf1 (H, N, C, W), kernel i01o (I, KH, KW, O), output f01b.
  c.pos_in = {1, 2, 0, 3};
  c.pos_kernel = {3, 0, 1, 2};
  c.pos_out = {3, 0, 1, 2};
  c.labels = "0bf1_i01o->f01b";
  CheckConv(c, 30);
}

TEST(ConvolutionTest, IntegerConvolutionIsExact) {
  const Literal in = MakeIntLiteral(PrimitiveType::S8, {1, 5, 1}, {100, -100, 127, -128, 3});
  const Literal k = MakeIntLiteral(PrimitiveType::S8, {2, 1, 1}, {127, -128});
  const Literal r = Eval(R"(
ENTRY e {
  l = s8[1,5,1] parameter(0)
  k = s8[2,1,1] parameter(1)
  ROOT c = s32[1,4,1] convolution(l, k), window={size=2}, dim_labels=b0f_0io->b0f
})", {in, k});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{12700 + 12800, -12700 - 16256,
                                                 16129 + 16384, -16256 - 384}));
}

TEST(ConvolutionTest, BadGroupCountIsAnError) {
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  l = f32[1,4,3] parameter(0)
  k = f32[4,1,1] parameter(1)
  ROOT c = f32[1,4,3] convolution(l, k), window={size=1}, dim_labels=bf0_oi0->bf0,
      feature_group_count=3
})", {Literal(Shape::Array(PrimitiveType::F32, {1, 4, 3})),
      Literal(Shape::Array(PrimitiveType::F32, {4, 1, 1}))});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "convolution 'c'")) << r.status();
}

// ------------------------------------------------- cholesky, triangular-solve

// L = [[2,0,0],[1,3,0],[-1,2,4]]; A = L L^T.
const std::vector<double> kL = {2, 0, 0, 1, 3, 0, -1, 2, 4};
const std::vector<double> kA = {4, 2, -2, 2, 10, 5, -2, 5, 21};

TEST(CholeskyTest, LowerAndUpperFactors) {
  std::vector<double> a_lower = kA;
  a_lower[1] = a_lower[2] = a_lower[5] = std::nan("");  // never read
  const Literal lower = Eval(R"(
ENTRY e {
  a = f64[3,3] parameter(0)
  ROOT c = f64[3,3] cholesky(a), lower=true
})", {FromValues(PrimitiveType::F64, {3, 3}, a_lower)});
  EXPECT_EQ(Values(lower), kL);
  std::vector<double> a_upper = kA;
  a_upper[3] = a_upper[6] = a_upper[7] = std::nan("");
  const Literal upper = Eval(R"(
ENTRY e {
  a = f32[2,3,3] parameter(0)
  ROOT c = f32[2,3,3] cholesky(a), lower=false
})", {FromValues(PrimitiveType::F32, {2, 3, 3}, [&] {
        std::vector<double> two = a_upper;
        for (double v : a_upper) two.push_back(4 * v);  // second batch: (2L)(2L)^T
        return two;
      }())});
  const std::vector<double> lt = {2, 1, -1, 0, 3, 2, 0, 0, 4};
  std::vector<double> want = lt;
  for (double v : lt) want.push_back(2 * v);
  EXPECT_EQ(Values(upper), want);
}

TEST(CholeskyTest, ComplexHermitian) {
  // L = [[2, 0], [1+i, 3]]; A = L L^H = [[4, 2-2i], [2+2i, 11]].
  Literal a(Shape::Array(PrimitiveType::C64, {2, 2}));
  a.SetComplex(0, 4);
  a.SetComplex(1, {2, -2});
  a.SetComplex(2, {2, 2});
  a.SetComplex(3, {11, 0.5});  // the diagonal's imaginary part is ignored
  const Literal lower = Eval(R"(
ENTRY e {
  a = c64[2,2] parameter(0)
  ROOT c = c64[2,2] cholesky(a), lower=true
})", {a});
  EXPECT_EQ(lower.GetComplex(0), std::complex<double>(2, 0));
  EXPECT_EQ(lower.GetComplex(1), std::complex<double>(0, 0));
  EXPECT_EQ(lower.GetComplex(2), std::complex<double>(1, 1));
  EXPECT_EQ(lower.GetComplex(3), std::complex<double>(3, 0));
  const Literal upper = Eval(R"(
ENTRY e {
  a = c64[2,2] parameter(0)
  ROOT c = c64[2,2] cholesky(a)
})", {a});
  EXPECT_EQ(upper.GetComplex(1), std::complex<double>(1, -1));
  EXPECT_EQ(upper.GetComplex(2), std::complex<double>(0, 0));
  EXPECT_EQ(upper.GetComplex(3), std::complex<double>(3, 0));
}

TEST(TriangularSolveTest, LeftLowerNoTranspose) {
  // a x = b with x = [[1,-2],[0.5,3],[-1,0.25]].
  const std::vector<double> x = {1, -2, 0.5, 3, -1, 0.25};
  std::vector<double> b(6, 0.0), a = kL;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) b[i * 2 + j] += kL[i * 3 + k] * x[k * 2 + j];
    }
  }
  a[1] = a[2] = a[5] = 99;  // the upper triangle is never read
  const Literal r = Eval(R"(
ENTRY e {
  a = f64[3,3] parameter(0)
  b = f64[3,2] parameter(1)
  ROOT x = f64[3,2] triangular-solve(a, b), left_side=true, lower=true,
      transpose_a=NO_TRANSPOSE
})", {FromValues(PrimitiveType::F64, {3, 3}, a), FromValues(PrimitiveType::F64, {3, 2}, b)});
  EXPECT_EQ(Values(r), x);
}

TEST(TriangularSolveTest, RightSideTransposedUnitDiagonal) {
  // x op(a) = b where a's upper triangle is read with a unit diagonal and
  // op = TRANSPOSE, so op(a) = U^T with U = [[1,2,-1],[0,1,3],[0,0,1]].
  const std::vector<double> u = {1, 2, -1, 0, 1, 3, 0, 0, 1};
  const std::vector<double> x = {1, 2, 3, -1, 0.5, 4};  // 2x3
  std::vector<double> b(6, 0.0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 3; ++k) b[i * 3 + j] += x[i * 3 + k] * u[j * 3 + k];  // U^T[k][j]
    }
  }
  std::vector<double> a = u;
  a[0] = a[4] = a[8] = 7;       // diagonal ignored (unit_diagonal)
  a[3] = a[6] = a[7] = -50;     // lower triangle ignored
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[3,3] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT x = f32[2,3] triangular-solve(a, b), left_side=false, lower=false,
      unit_diagonal=true, transpose_a=TRANSPOSE
})", {FromValues(PrimitiveType::F32, {3, 3}, a), FromValues(PrimitiveType::F32, {2, 3}, b)});
  EXPECT_EQ(Values(r), x);
}

TEST(TriangularSolveTest, ComplexAdjoint) {
  // adjoint(a) x = b, a lower = [[2, 0], [1+i, 1]] -> a^H = [[2, 1-i], [0, 1]].
  Literal a(Shape::Array(PrimitiveType::C128, {2, 2}));
  a.SetComplex(0, 2);
  a.SetComplex(2, {1, 1});
  a.SetComplex(3, 1);
  Literal b(Shape::Array(PrimitiveType::C128, {2, 1}));
  const std::complex<double> x0(1, 2), x1(-1, 1);
  b.SetComplex(0, 2.0 * x0 + std::complex<double>(1, -1) * x1);
  b.SetComplex(1, x1);
  const Literal r = Eval(R"(
ENTRY e {
  a = c128[2,2] parameter(0)
  b = c128[2,1] parameter(1)
  ROOT x = c128[2,1] triangular-solve(a, b), left_side=true, lower=true,
      transpose_a=ADJOINT
})", {a, b});
  EXPECT_EQ(r.GetComplex(0), x0);
  EXPECT_EQ(r.GetComplex(1), x1);
}

// ------------------------------------------------------------------- fft

TEST(FftTest, ForwardAndInverseOfFourPoints) {
  Literal x(Shape::Array(PrimitiveType::C128, {4}));
  for (int i = 0; i < 4; ++i) x.SetComplex(i, i + 1);
  const Literal f = Eval(R"(
ENTRY e {
  x = c128[4] parameter(0)
  ROOT f = c128[4] fft(x), fft_type=FFT, fft_length={4}
})", {x});
  const std::vector<std::complex<double>> want = {{10, 0}, {-2, 2}, {-2, 0}, {-2, -2}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(std::abs(f.GetComplex(i) - want[i]), 0, 1e-14) << i;
  }
  const Literal back = Eval(R"(
ENTRY e {
  x = c128[4] parameter(0)
  ROOT f = c128[4] fft(x), fft_type=IFFT, fft_length={4}
})", {f});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(std::abs(back.GetComplex(i) - (i + 1.0)), 0, 1e-14);
}

TEST(FftTest, RfftThenIrfftRoundTripsOddLength2D) {
  const Literal x = RandomLiteral(PrimitiveType::F64, {2, 3, 5}, 40);
  const Literal spectrum = Eval(R"(
ENTRY e {
  x = f64[2,3,5] parameter(0)
  ROOT f = c128[2,3,3] fft(x), fft_type=RFFT, fft_length={3,5}
})", {x});
  // Check one coefficient by a direct 2-D sum: X[1][2] of batch 1.
  std::complex<double> s = 0;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 5; ++b) {
      const double angle = -2 * 3.14159265358979323846 * (1.0 * a / 3 + 2.0 * b / 5);
      s += x.GetDouble(15 + a * 5 + b) * std::polar(1.0, angle);
    }
  }
  EXPECT_NEAR(std::abs(spectrum.GetComplex(9 + 1 * 3 + 2) - s), 0, 1e-12);
  const Literal back = Eval(R"(
ENTRY e {
  x = c128[2,3,3] parameter(0)
  ROOT f = f64[2,3,5] fft(x), fft_type=IRFFT, fft_length={3,5}
})", {spectrum});
  for (int64_t i = 0; i < x.element_count(); ++i) {
    EXPECT_NEAR(back.GetDouble(i), x.GetDouble(i), 1e-14) << i;
  }
}

}  // namespace
}  // namespace xla
