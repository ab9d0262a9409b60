#include "xla/stream_executor/host/host_fft_four_step.h"

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

using C = std::complex<double>;

// The oracle: output k of the DFT of `x` by its definition in double (the
// exponent's j k reduced mod n first), scaled by 1/n when inverse. O(n) per
// output, so a long line is checked at a sample of its outputs.
C DirectDft(const std::vector<C>& x, int64_t k, bool inverse) {
  const int64_t n = static_cast<int64_t>(x.size());
  C sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double phase = static_cast<double>((j * k) % n) / static_cast<double>(n);
    sum += x[j] * std::polar(1.0, (inverse ? 2 : -2) * M_PI * phase);
  }
  return inverse ? sum / static_cast<double>(n) : sum;
}

template <typename T>
class FourStepFftTest : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FourStepFftTest, Precisions);

// Runs `lines` random lines of length n (`stride` apart points, lines
// interleaved, so the gaps belong to the other lines) through FourStepFft,
// out of place or in place, and checks each line at 40 outputs (the first
// and last few, n1 and n2 neighbours, random ones) against DirectDft,
// relative to the line's largest output (about sqrt(n) for these inputs).
template <typename T>
void CheckSampled(int64_t n, int64_t lines, int64_t stride, bool inverse, bool in_place) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " lines=" << lines << " stride=" << stride
                                  << " inverse=" << inverse << " in_place=" << in_place);
  using CT = std::complex<T>;
  const FourStepFft<T> fft(n);
  std::mt19937 gen(static_cast<unsigned>(n + lines));
  std::uniform_real_distribution<T> dist(-1, 1);
  // Point j of line l at j * stride * lines + l * stride.
  std::vector<CT> in(n * stride * lines);
  for (CT& v : in) v = CT(dist(gen), dist(gen));
  std::vector<CT> out = in_place ? in : std::vector<CT>(in.size(), CT(7, 7));
  std::vector<const CT*> src(lines);
  std::vector<CT*> dst(lines);
  for (int64_t l = 0; l < lines; ++l) {
    src[l] = (in_place ? out.data() : in.data()) + l * stride;
    dst[l] = out.data() + l * stride;
  }
  std::vector<T> scratch(fft.ScratchElements());
  fft.Transform(src.data(), dst.data(), lines, stride * lines, inverse, scratch.data());
  std::vector<int64_t> ks = {0, 1, 2, n - 1, n - 2, n / 2, fft.n1(), fft.n1() + 1, fft.n2(),
                             fft.n2() - 1};
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  while (ks.size() < 40) ks.push_back(pick(gen));
  const double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (int64_t l = 0; l < lines; ++l) {
    std::vector<C> x(n);
    for (int64_t j = 0; j < n; ++j) x[j] = C(in[j * stride * lines + l * stride]);
    double scale = 0, worst = 0;
    for (int64_t k : ks) {
      const C want = DirectDft(x, k, inverse);
      scale = std::max(scale, std::abs(want));
      worst = std::max(worst, std::abs(C(out[k * stride * lines + l * stride]) - want));
    }
    ASSERT_GT(scale, 0);
    EXPECT_LE(worst / scale, tolerance) << "line " << l << ": largest error " << worst;
  }
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i) {
    if (i % stride == 0) continue;
    ASSERT_EQ(out[i], in_place ? in[i] : CT(7, 7)) << "gap element " << i << " was written";
  }
}

TYPED_TEST(FourStepFftTest, TwoToTheFifteenMatchesTheDft) {
  const int64_t n = int64_t{1} << 15;
  CheckSampled<TypeParam>(n, 1, 1, false, false);
  CheckSampled<TypeParam>(n, 3, 1, true, false);
  CheckSampled<TypeParam>(n, 2, 2, false, true);
}

TYPED_TEST(FourStepFftTest, ThreeTimesTwoToTheFourteenMatchesTheDft) {
  const int64_t n = 3 * (int64_t{1} << 14);
  CheckSampled<TypeParam>(n, 3, 1, false, false);
  CheckSampled<TypeParam>(n, 1, 1, true, true);
}

// Pure tones, every output checked: line b's input exp(2 pi i t_b j / n)
// has the spectrum n at t_b and 0 elsewhere (hand-computed), and the
// inverse of n at t_b is the tone again.
TYPED_TEST(FourStepFftTest, PureTonesEveryOutput) {
  using CT = std::complex<TypeParam>;
  for (int64_t n : {int64_t{1} << 15, 3 * (int64_t{1} << 14), int64_t{5} * 5 * 5 * 5 * 5 * 6 * 6}) {
    SCOPED_TRACE(n);
    const FourStepFft<TypeParam> fft(n);
    const int64_t tones[] = {1, n / 3 + 1, n - 5};
    std::vector<CT> in(3 * n), out(3 * n);
    std::vector<const CT*> src(3);
    std::vector<CT*> dst(3);
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t j = 0; j < n; ++j) {
        const double phase = static_cast<double>((tones[b] * j) % n) / static_cast<double>(n);
        in[b * n + j] = CT(std::polar(1.0, 2 * M_PI * phase));
      }
      src[b] = in.data() + b * n;
      dst[b] = out.data() + b * n;
    }
    std::vector<TypeParam> scratch(fft.ScratchElements());
    fft.Transform(src.data(), dst.data(), 3, 1, false, scratch.data());
    const double tolerance = sizeof(TypeParam) == 4 ? 1e-5 : 1e-13;
    double worst = 0;
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t k = 0; k < n; ++k) {
        const C want = k == tones[b] ? C(static_cast<double>(n), 0) : C(0, 0);
        worst = std::max(worst, std::abs(C(out[b * n + k]) - want));
      }
    }
    EXPECT_LE(worst / n, tolerance);
    // Back: the inverse of the spectrum is the tone.
    std::vector<CT> back(3 * n);
    for (int64_t b = 0; b < 3; ++b) {
      src[b] = out.data() + b * n;
      dst[b] = back.data() + b * n;
    }
    fft.Transform(src.data(), dst.data(), 3, 1, true, scratch.data());
    worst = 0;
    for (int64_t i = 0; i < 3 * n; ++i) worst = std::max(worst, std::abs(C(back[i]) - C(in[i])));
    EXPECT_LE(worst, tolerance * 10);
  }
}

// Columns and Rows over uneven ranges of groups (one group, a few, the
// rest; the last group partial when n2 or n1 is not a multiple of kLanes)
// give bitwise what Transform gives, strided and in place too.
TYPED_TEST(FourStepFftTest, RoundsSplitIntoGroupsEqualTransformBitwise) {
  using CT = std::complex<TypeParam>;
  for (int64_t n : {int64_t{1} << 15, int64_t{5} * 5 * 5 * 5 * 5 * 6 * 6}) {
    for (int64_t stride : {1, 3}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " stride " << stride);
      const FourStepFft<TypeParam> fft(n);
      std::mt19937 gen(static_cast<unsigned>(n + stride));
      std::uniform_real_distribution<TypeParam> dist(-1, 1);
      std::vector<CT> in(n * stride);
      for (CT& v : in) v = CT(dist(gen), dist(gen));
      std::vector<CT> whole(in.size(), CT(7, 7)), split = in;
      const CT* src[] = {in.data()};
      CT* dst[] = {whole.data()};
      std::vector<TypeParam> scratch(fft.ScratchElements());
      fft.Transform(src, dst, 1, stride, true, scratch.data());
      std::vector<CT> y(n);
      std::vector<TypeParam> block(fft.BlockElements());
      auto cuts = [](int64_t groups) {
        return std::vector<int64_t>{0, 1, std::min<int64_t>(groups, 4), groups};
      };
      const std::vector<int64_t> c = cuts(fft.column_groups());
      // Ranges run in reverse order: no range may rely on an earlier one.
      for (size_t i = c.size() - 1; i > 0; --i) {
        fft.Columns(split.data(), stride, true, y.data(), c[i - 1], c[i], block.data());
      }
      const std::vector<int64_t> r = cuts(fft.row_groups());
      for (size_t i = r.size() - 1; i > 0; --i) {
        fft.Rows(y.data(), split.data(), stride, true, r[i - 1], r[i], block.data());
      }
      for (int64_t j = 0; j < n * stride; ++j) {
        ASSERT_EQ(split[j], j % stride == 0 ? whole[j] : in[j]) << "element " << j;
      }
    }
  }
}

TEST(FourStepFft, LengthsAndSplits) {
  for (int64_t n : {int64_t{1} << 15, 3 * (int64_t{1} << 14), int64_t{1} << 20, kFourStepMaxLength}) {
    EXPECT_TRUE(IsFourStepLength(n)) << n;
  }
  for (int64_t n : {int64_t{1}, kLaneFftMaxLength, int64_t{7} << 15, 2 * kFourStepMaxLength}) {
    EXPECT_FALSE(IsFourStepLength(n)) << n;
  }
  const FourStepFft<float> a(int64_t{1} << 15);
  EXPECT_EQ(a.n1(), 128);
  EXPECT_EQ(a.n2(), 256);
  const FourStepFft<float> b(3 * (int64_t{1} << 14));
  EXPECT_EQ(b.n1() * b.n2(), 3 * (int64_t{1} << 14));
  EXPECT_EQ(b.n1(), 192);  // the largest divisor at most sqrt(49152) = 221.7
  EXPECT_LE(b.n2(), kLaneFftMaxLength);
}

}  // namespace
}  // namespace stream_executor::host
