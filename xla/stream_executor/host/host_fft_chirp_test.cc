#include "xla/stream_executor/host/host_fft_chirp.h"

#include <algorithm>
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

// Draws n complex values with both parts in [-1, 1).
template <typename T>
std::vector<std::complex<T>> Random(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::complex<T>> v(n);
  for (auto& x : v) x = std::complex<T>(static_cast<T>(u(gen)), static_cast<T>(u(gen)));
  return v;
}

// The oracle: the same product in double, by std::complex.
template <typename T>
std::complex<double> Want(std::complex<T> x, std::complex<T> w, const ChirpOptions<T>& o) {
  std::complex<double> a(x.real(), x.imag());
  if (o.conj_in) a = std::conj(a);
  std::complex<double> y = a * std::complex<double>(w.real(), w.imag()) * static_cast<double>(o.scale);
  return o.conj_out ? std::conj(y) : y;
}

template <typename T>
void CheckAll() {
  const double tolerance = sizeof(T) == 4 ? 1e-6 : 1e-15;
  for (int64_t n : {1, 2, 3, 5, 7, 8, 33, 97, 1009}) {
    for (int64_t x_stride : {1, 3}) {
      for (int64_t y_stride : {1, 2}) {
        for (int flags = 0; flags < 8; ++flags) {
          ChirpOptions<T> o;
          o.conj_in = flags & 1;
          o.conj_out = flags & 2;
          o.scale = flags & 4 ? T(1) / T(n) : T(1);
          SCOPED_TRACE(testing::Message() << "n " << n << " strides " << x_stride << ", "
                                          << y_stride << " flags " << flags);
          const auto x = Random<T>(n * x_stride, static_cast<uint32_t>(n + flags));
          const auto w = Random<T>(n, static_cast<uint32_t>(7 * n + 1));
          // y starts as noise: every written point must be overwritten, and
          // the points between strides left alone.
          auto y = Random<T>(n * y_stride, 99);
          const auto before = y;
          ChirpMultiply(x.data(), x_stride, w.data(), n, o, y.data(), y_stride);
          double worst = 0;
          for (int64_t j = 0; j < n * y_stride; ++j) {
            if (j % y_stride != 0) {
              ASSERT_EQ(y[j], before[j]) << "point " << j << " between strides was written";
              continue;
            }
            const std::complex<double> want = Want(x[(j / y_stride) * x_stride], w[j / y_stride], o);
            const std::complex<double> got(y[j].real(), y[j].imag());
            worst = std::max(worst, std::abs(got - want));
          }
          EXPECT_LE(worst, tolerance * 2);  // |x w| < 2
        }
      }
    }
  }
}

TEST(ChirpMultiply, MatchesTheProductInDoubleC64) { CheckAll<float>(); }
TEST(ChirpMultiply, MatchesTheProductInDoubleC128) { CheckAll<double>(); }

// In place (y == x, stride 1), as BluesteinFft's kernel product on a
// FourStepFft uses it: the same values as out of place, bitwise.
TEST(ChirpMultiply, InPlaceEqualsOutOfPlace) {
  for (int64_t n : {1, 7, 1009}) {
    const auto x = Random<float>(n, 5);
    const auto w = Random<float>(n, 6);
    std::vector<std::complex<float>> out(n), in_place = x;
    ChirpOptions<float> o;
    o.conj_in = true;
    ChirpMultiply(x.data(), 1, w.data(), n, o, out.data(), 1);
    ChirpMultiply(in_place.data(), 1, w.data(), n, o, in_place.data(), 1);
    EXPECT_EQ(out, in_place) << n;
  }
}

// The vector body and the scalar tail give bitwise the same value for the
// same input: a point's result does not depend on its position.
TEST(ChirpMultiply, VectorAndTailAgreeBitwise) {
  const int64_t n = 9;  // two c64 vectors of 4, a tail of 1
  std::vector<std::complex<float>> x(n, {0.3f, -0.7f}), w(n, {0.11f, 0.93f}), y(n);
  ChirpOptions<float> o;
  o.scale = 1.0f / 9;
  ChirpMultiply(x.data(), 1, w.data(), n, o, y.data(), 1);
  for (int64_t j = 1; j < n; ++j) EXPECT_EQ(y[j], y[0]) << j;
}

TEST(ChirpMultiply, NothingForEmpty) {
  std::complex<double> y(1, 2);
  ChirpMultiply<double>(nullptr, 1, nullptr, 0, ChirpOptions<double>{}, &y, 1);
  EXPECT_EQ(y, std::complex<double>(1, 2));
}

}  // namespace
}  // namespace stream_executor::host
