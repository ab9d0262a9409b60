#include "xla/stream_executor/host/host_fft_kernels.h"

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "unsupported/Eigen/FFT"

namespace stream_executor::host {
namespace {

using C = std::complex<double>;

// The oracle: the DFT of `x` by its definition, in double (the exponent's
// j k reduced mod n first, so large n stays exact), scaled by 1/n when
// inverse.
std::vector<C> NaiveDft(const std::vector<C>& x, bool inverse) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<C> roots(n);
  for (int64_t k = 0; k < n; ++k) roots[k] = std::polar(1.0, (inverse ? 2 : -2) * M_PI * k / n);
  std::vector<C> out(n);
  for (int64_t k = 0; k < n; ++k) {
    C sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += x[j] * roots[(j * k) % n];
    out[k] = inverse ? sum / static_cast<double>(n) : sum;
  }
  return out;
}

template <typename T>
class LaneFftTest : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LaneFftTest, Precisions);

// Runs `lines` random lines of length n (laid out as below) through LaneFft
// (out of place, or in place) and checks every line against NaiveDft,
// relative to the line's largest value.
template <typename T>
void CheckAgainstDft(int64_t n, int64_t lines, int64_t stride, bool inverse, bool in_place) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " lines=" << lines << " stride=" << stride
                                  << " inverse=" << inverse << " in_place=" << in_place);
  using CT = std::complex<T>;
  std::mt19937 gen(static_cast<unsigned>(n * 31 + lines * 7 + stride));
  std::uniform_real_distribution<T> dist(-1, 1);
  // stride 1: each line contiguous, one after the other. stride > 1: the
  // lines interleaved (line l starts at l), points `stride * lines` apart,
  // with gaps that the transform must leave alone.
  const int64_t pitch = stride == 1 ? n : 1;
  const int64_t step = stride == 1 ? 1 : stride * lines;
  std::vector<CT> in(lines * n * stride);
  for (CT& v : in) v = CT(dist(gen), dist(gen));
  std::vector<CT> out = in_place ? in : std::vector<CT>(in.size(), CT(7, 7));
  std::vector<const CT*> src(lines);
  std::vector<CT*> dst(lines);
  for (int64_t l = 0; l < lines; ++l) {
    src[l] = (in_place ? out.data() : in.data()) + l * pitch;
    dst[l] = out.data() + l * pitch;
  }
  LaneFft<T> fft(n);
  std::vector<T> scratch(fft.ScratchElements());
  fft.Transform(src.data(), dst.data(), lines, step, inverse, scratch.data());
  const double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-13;
  for (int64_t l = 0; l < lines; ++l) {
    std::vector<C> x(n);
    for (int64_t j = 0; j < n; ++j) x[j] = C(in[l * pitch + j * step]);
    const std::vector<C> want = NaiveDft(x, inverse);
    double scale = 0, worst = 0;
    for (int64_t j = 0; j < n; ++j) {
      scale = std::max(scale, std::abs(want[j]));
      worst = std::max(worst, std::abs(C(out[l * pitch + j * step]) - want[j]));
    }
    ASSERT_GT(scale, 0);
    EXPECT_LE(worst / scale, tolerance) << "line " << l << ": largest error " << worst;
  }
  // The gaps between strided points are untouched.
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i) {
    if (stride == 1 || (i % step) < lines) continue;
    ASSERT_EQ(out[i], in_place ? in[i] : CT(7, 7)) << "gap element " << i << " was written";
  }
}

TYPED_TEST(LaneFftTest, EveryPowerOfTwoMatchesTheDft) {
  constexpr int64_t kLanes = LaneFft<TypeParam>::kLanes;
  for (int64_t n = 1; n <= 4096; n *= 2) {
    // A full block, and a partial one (odd, not a multiple of the width).
    for (int64_t lines : {kLanes, kLanes - 1, int64_t{1}}) {
      if (n >= 1024 && lines != kLanes - 1) continue;  // the naive DFT is slow
      CheckAgainstDft<TypeParam>(n, lines, 1, false, false);
      CheckAgainstDft<TypeParam>(n, lines, 1, true, false);
    }
  }
}

// Lengths with factors 3 and 5 (radix-3 and radix-5 passes, alone and
// mixed with radix 4 and 2): every line of a full block, a partial block of
// kLanes - 1 lines and a single line against the DFT, forward and inverse.
TYPED_TEST(LaneFftTest, MixedRadixLengthsMatchTheDft) {
  constexpr int64_t kLanes = LaneFft<TypeParam>::kLanes;
  for (int64_t n : {3, 5, 6, 9, 10, 12, 15, 25, 45, 60, 120, 375, 384, 1000, 3072}) {
    for (int64_t lines : {kLanes, kLanes - 1, int64_t{1}}) {
      if (n >= 1000 && lines != kLanes - 1) continue;  // the naive DFT is slow
      CheckAgainstDft<TypeParam>(n, lines, 1, false, false);
      CheckAgainstDft<TypeParam>(n, lines, 1, true, false);
    }
  }
  for (int64_t n : {15, 45, 375}) {
    CheckAgainstDft<TypeParam>(n, kLanes - 1, 3, false, false);
    CheckAgainstDft<TypeParam>(n, 3, 1, true, true);
  }
}

// The four-step split's overload: source and destination with their own
// strides, and each output multiplied by a factor from a table in the
// block layout (conjugated for an inverse transform), against the DFT
// times the factor. Run with a partial block and, side by side, a full
// block of interleaved lines (the deinterleave route).
template <typename T>
void CheckStridesAndPost(int64_t n, int64_t lines, bool side_by_side) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " lines=" << lines << " side=" << side_by_side);
  using CT = std::complex<T>;
  constexpr int64_t kLanes = LaneFft<T>::kLanes;
  const int64_t src_stride = side_by_side ? lines : 3, dst_stride = side_by_side ? lines : 2;
  std::mt19937 gen(41);
  std::uniform_real_distribution<T> dist(-1, 1);
  std::vector<CT> in(lines * n * 3), out(lines * n * 3, CT(7, 7));
  std::vector<T> table(2 * n * kLanes);
  for (CT& v : in) v = CT(dist(gen), dist(gen));
  for (T& v : table) v = dist(gen);
  std::vector<const CT*> src(lines);
  std::vector<CT*> dst(lines);
  for (int64_t l = 0; l < lines; ++l) {
    src[l] = in.data() + (side_by_side ? l : l * n * src_stride);
    dst[l] = out.data() + (side_by_side ? l : l * n * dst_stride);
  }
  LaneFft<T> fft(n);
  std::vector<T> scratch(fft.ScratchElements());
  const double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-13;
  for (bool inverse : {false, true}) {
    fft.Transform(src.data(), src_stride, dst.data(), dst_stride, lines, inverse, table.data(),
                  scratch.data());
    for (int64_t l = 0; l < lines; ++l) {
      std::vector<C> x(n);
      for (int64_t j = 0; j < n; ++j) x[j] = C(src[l][j * src_stride]);
      const std::vector<C> dft = NaiveDft(x, inverse);
      double scale = 0, worst = 0;
      for (int64_t k = 0; k < n; ++k) {
        const C w(table[k * kLanes + l], table[(n + k) * kLanes + l]);
        const C want = dft[k] * (inverse ? std::conj(w) : w);
        scale = std::max(scale, std::abs(want));
        worst = std::max(worst, std::abs(C(dst[l][k * dst_stride]) - want));
        if (!side_by_side && k + 1 < n) {
          ASSERT_EQ(dst[l][k * dst_stride + 1], CT(7, 7)) << "gap written";
        }
      }
      EXPECT_LE(worst / scale, tolerance) << "line " << l << " inverse " << inverse;
    }
  }
}

TYPED_TEST(LaneFftTest, SeparateStridesAndPostMultiplyMatchTheDft) {
  constexpr int64_t kLanes = LaneFft<TypeParam>::kLanes;
  CheckStridesAndPost<TypeParam>(45, kLanes - 1, false);
  CheckStridesAndPost<TypeParam>(45, kLanes, true);
  CheckStridesAndPost<TypeParam>(64, kLanes, true);
}

TYPED_TEST(LaneFftTest, StridedAndInPlaceLinesMatchTheDft) {
  constexpr int64_t kLanes = LaneFft<TypeParam>::kLanes;
  for (int64_t n : {2, 8, 64, 512}) {
    CheckAgainstDft<TypeParam>(n, kLanes - 1, 3, false, false);
    CheckAgainstDft<TypeParam>(n, kLanes, 2, true, true);
    CheckAgainstDft<TypeParam>(n, 3, 1, false, true);
  }
}

// A line's result is bitwise the same whether it runs alone or in a full
// block (what lets the host FFT split a batch across threads freely).
TYPED_TEST(LaneFftTest, ALineDoesNotDependOnItsBlock) {
  using CT = std::complex<TypeParam>;
  constexpr int64_t kLanes = LaneFft<TypeParam>::kLanes;
  const int64_t n = 256;
  std::mt19937 gen(11);
  std::uniform_real_distribution<TypeParam> dist(-1, 1);
  std::vector<CT> in(kLanes * n);
  for (CT& v : in) v = CT(dist(gen), dist(gen));
  LaneFft<TypeParam> fft(n);
  std::vector<TypeParam> scratch(fft.ScratchElements());
  std::vector<CT> block(in.size()), alone(in.size());
  std::vector<const CT*> src(kLanes);
  std::vector<CT*> dst_block(kLanes), dst_alone(kLanes);
  for (int64_t l = 0; l < kLanes; ++l) {
    src[l] = in.data() + l * n;
    dst_block[l] = block.data() + l * n;
    dst_alone[l] = alone.data() + l * n;
  }
  fft.Transform(src.data(), dst_block.data(), kLanes, 1, false, scratch.data());
  for (int64_t l = 0; l < kLanes; ++l) {
    fft.Transform(&src[l], &dst_alone[l], 1, 1, false, scratch.data());
  }
  EXPECT_EQ(block, alone);
}

// Against the path it replaces (Eigen's kissfft), at the benchmark's
// length: the same spectrum up to rounding, forward and inverse.
TYPED_TEST(LaneFftTest, MatchesEigenAt4096) {
  using CT = std::complex<TypeParam>;
  constexpr int64_t kLanes = LaneFft<TypeParam>::kLanes;
  const int64_t n = 4096, lines = kLanes - 1;
  std::mt19937 gen(23);
  std::uniform_real_distribution<TypeParam> dist(-1, 1);
  std::vector<CT> in(lines * n), out(lines * n);
  for (CT& v : in) v = CT(dist(gen), dist(gen));
  LaneFft<TypeParam> fft(n);
  std::vector<TypeParam> scratch(fft.ScratchElements());
  Eigen::FFT<TypeParam> eigen;
  std::vector<CT> want(n);
  std::vector<const CT*> src(lines);
  std::vector<CT*> dst(lines);
  for (int64_t l = 0; l < lines; ++l) {
    src[l] = in.data() + l * n;
    dst[l] = out.data() + l * n;
  }
  const double tolerance = sizeof(TypeParam) == 4 ? 1e-5 : 1e-13;
  for (bool inverse : {false, true}) {
    fft.Transform(src.data(), dst.data(), lines, 1, inverse, scratch.data());
    for (int64_t l = 0; l < lines; ++l) {
      if (inverse) {
        eigen.inv(want.data(), src[l], n);
      } else {
        eigen.fwd(want.data(), src[l], n);
      }
      double scale = 0, worst = 0;
      for (int64_t j = 0; j < n; ++j) {
        scale = std::max<double>(scale, std::abs(want[j]));
        worst = std::max<double>(worst, std::abs(dst[l][j] - want[j]));
      }
      EXPECT_LE(worst / scale, tolerance) << "line " << l << " inverse " << inverse;
    }
  }
}

TEST(LaneFft, LengthsHaveNoPrimeFactorAboveFive) {
  for (int64_t n : {1, 2, 3, 5, 12, 384, 1000, 3072, 4096, 6000, 1 << 20}) {
    EXPECT_TRUE(IsLaneFftLength(n)) << n;
  }
  for (int64_t n : {0, -4, 7, 14, 1009, 2 * 1009, 3 * 7 * 1024}) EXPECT_FALSE(IsLaneFftLength(n)) << n;
  EXPECT_EQ(NextLaneFftLength(1), 1);
  EXPECT_EQ(NextLaneFftLength(7), 8);
  EXPECT_EQ(NextLaneFftLength(2017), 2025);  // 3^4 5^2; 2018 .. 2024 each have a factor above 5
  EXPECT_EQ(NextLaneFftLength(4096), 4096);
}

}  // namespace
}  // namespace stream_executor::host
