#include "xla/types/float_format.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace xla {
namespace {

using F = FloatFormatId;

TEST(FloatFormat, KnownEncodings) {
  // Values checked by hand against the formats' definitions.
  EXPECT_EQ(EncodeFloat(F::kF16, 1.0), 0x3C00u);
  EXPECT_EQ(EncodeFloat(F::kF16, -2.0), 0xC000u);
  EXPECT_EQ(EncodeFloat(F::kF16, 65504.0), 0x7BFFu);
  EXPECT_EQ(EncodeFloat(F::kF16, 65520.0), 0x7C00u);  // rounds to inf
  EXPECT_EQ(EncodeFloat(F::kF16, std::ldexp(1.0, -24)), 0x0001u);  // min subnormal
  EXPECT_EQ(EncodeFloat(F::kBF16, 1.0), 0x3F80u);
  EXPECT_EQ(EncodeFloat(F::kBF16, 3.140625), 0x4049u);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, 448.0), 0x7Eu);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, 464.0), 0x7Eu);  // tie -> even (448)
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, 470.0), 0x7Fu);  // overflow -> NaN
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, 57344.0), 0x7Bu);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, 1e9), 0x7Cu);      // inf
  // The fp8 limits XLA's convert (and ml_dtypes) define: f8e4m3fn has no
  // inf, so past the 448/480 midpoint and at +-inf it is NaN with the sign;
  // f8e5m2 rounds to inf from the 57344/61440 midpoint on (61440 ties to
  // the even inf); subnormal ties go to even.
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, 480.0), 0x7Fu);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, -464.0), 0xFEu);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, -INFINITY), 0xFFu);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, std::ldexp(1.0, -10)), 0x00u);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FN, 3 * std::ldexp(1.0, -10)), 0x02u);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, 480.0), 0x60u);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, 61439.0), 0x7Bu);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, 61440.0), 0x7Cu);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, -61440.0), 0xFCu);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, std::ldexp(1.0, -17)), 0x00u);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, 3 * std::ldexp(1.0, -17)), 0x02u);
  EXPECT_EQ(EncodeFloat(F::kF8E5M2, std::nan("")), 0x7Eu);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FNUZ, 0.0), 0x00u);
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FNUZ, -0.0), 0x00u);  // no negative zero
  EXPECT_EQ(EncodeFloat(F::kF8E4M3FNUZ, std::nan("")), 0x80u);
  EXPECT_EQ(EncodeFloat(F::kF8E8M0FNU, 1.0), 127u);
  EXPECT_EQ(EncodeFloat(F::kF8E8M0FNU, 0.25), 125u);
  EXPECT_EQ(EncodeFloat(F::kF4E2M1FN, 6.0), 0x7u);
  EXPECT_EQ(EncodeFloat(F::kF4E2M1FN, 100.0), 0x7u);  // saturates
  EXPECT_EQ(EncodeFloat(F::kF4E2M1FN, -0.5), 0x9u);
  EXPECT_DOUBLE_EQ(DecodeFloat(F::kF4E2M1FN, 0x1), 0.5);  // subnormal
  EXPECT_DOUBLE_EQ(DecodeFloat(F::kF8E3M4, 0x30), 1.0);
}

TEST(FloatFormat, TiesRoundToEven) {
  // 1 + 2^-8 lies halfway between bf16 1.0 and 1.0078125: rounds to 1.0.
  EXPECT_EQ(EncodeFloat(F::kBF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);
  // 1 + 3*2^-8 lies halfway between 1.0078125 (odd) and 1.015625 (even).
  EXPECT_EQ(EncodeFloat(F::kBF16, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82u);
}

// Every encoding of every narrow format decodes and re-encodes to itself
// (NaNs to some NaN).
TEST(FloatFormat, AllEncodingsRoundTrip) {
  for (F id : {F::kF16, F::kBF16, F::kF8E5M2, F::kF8E4M3, F::kF8E4M3FN, F::kF8E4M3FNUZ,
               F::kF8E5M2FNUZ, F::kF8E4M3B11FNUZ, F::kF8E3M4, F::kF8E8M0FNU, F::kF4E2M1FN}) {
    const int bits = GetFloatFormat(id).total_bits();
    for (uint64_t b = 0; b < (1ull << bits); ++b) {
      double v = DecodeFloat(id, b);
      uint64_t back = EncodeFloat(id, v);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(DecodeFloat(id, back))) << static_cast<int>(id) << " " << b;
      } else {
        EXPECT_EQ(back, b) << "format " << static_cast<int>(id) << " bits " << b;
      }
    }
  }
}

// For f16 and bf16, every value between two neighbours rounds to the nearer
// one (checked at the 1/4 and 3/4 points).
TEST(FloatFormat, RoundsToNearest) {
  for (F id : {F::kF16, F::kBF16, F::kF8E4M3FN}) {
    const int bits = GetFloatFormat(id).total_bits();
    for (uint64_t b = 0; b + 1 < (1ull << (bits - 1)); ++b) {
      double lo = DecodeFloat(id, b), hi = DecodeFloat(id, b + 1);
      if (std::isnan(hi) || std::isinf(hi)) continue;
      EXPECT_EQ(EncodeFloat(id, lo + (hi - lo) / 4), b);
      EXPECT_EQ(EncodeFloat(id, lo + 3 * (hi - lo) / 4), b + 1);
    }
  }
}

}  // namespace
}  // namespace xla

namespace xla {
namespace {

float FromBits(uint32_t bits) {
  float f = 0;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Hand-checked TF32 roundings: a TF32 ulp at 1.0 is 2^-10.
TEST(RoundToTf32, NearestTiesToEvenWithCarry) {
  EXPECT_EQ(RoundToTf32(1.0f), 1.0f);
  EXPECT_EQ(RoundToTf32(1.0f + std::ldexp(1.0f, -11)), 1.0f);  // tie, even below
  EXPECT_EQ(RoundToTf32(1.0f + 3 * std::ldexp(1.0f, -11)),
            1.0f + std::ldexp(1.0f, -9));  // tie, even above
  EXPECT_EQ(RoundToTf32(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23)),
            1.0f + std::ldexp(1.0f, -10));  // just past the tie
  EXPECT_EQ(RoundToTf32(-(1.0f + std::ldexp(1.0f, -10) + std::ldexp(1.0f, -12))),
            -(1.0f + std::ldexp(1.0f, -10)));  // below the tie, sign kept
  // All ten mantissa bits set plus more: carries into the exponent.
  EXPECT_EQ(RoundToTf32(FromBits(0x3fffffffu)), 2.0f);
  // The largest finite f32 rounds past it.
  EXPECT_TRUE(std::isinf(RoundToTf32(FromBits(0x7f7fffffu))));
  EXPECT_TRUE(std::isnan(RoundToTf32(std::nanf(""))));
  EXPECT_EQ(RoundToTf32(-INFINITY), -INFINITY);
  // Subnormals round on the same bit positions.
  EXPECT_EQ(RoundToTf32(FromBits(0x00001fffu)), FromBits(0x00002000u));
  EXPECT_EQ(RoundToTf32(FromBits(0x00000fffu)), 0.0f);
}

}  // namespace
}  // namespace xla
