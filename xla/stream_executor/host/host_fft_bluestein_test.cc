#include "xla/stream_executor/host/host_fft_bluestein.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

using C = std::complex<double>;

// The oracle: the DFT of one line by its definition in double (inverse:
// conjugate roots and a 1/n scale), roots from an exact index table.
std::vector<C> NaiveDft(const std::vector<C>& x, bool inverse) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<C> roots(n);
  for (int64_t m = 0; m < n; ++m) {
    roots[m] = std::polar(1.0, (inverse ? 2 : -2) * M_PI * static_cast<double>(m) / n);
  }
  std::vector<C> out(n);
  for (int64_t k = 0; k < n; ++k) {
    C sum = 0;
    for (int64_t j = 0, m = 0; j < n; ++j, m = (m + k) % n) sum += x[j] * roots[m];
    out[k] = inverse ? sum / static_cast<double>(n) : sum;
  }
  return out;
}

// Transforms `batch` random lines of length n (points `stride` apart,
// interleaved as a 2-D pass's lines are: line l's point j at l + j
// stride when stride > 1), in blocks of BluesteinFft::kLanes lines as
// HostFftPlan does, and checks every line against NaiveDft.
template <typename T>
void Check(int64_t n, int64_t batch, int64_t stride, bool inverse) {
  SCOPED_TRACE(testing::Message() << "n " << n << " batch " << batch << " stride " << stride
                                  << (inverse ? " inverse" : " forward") << " T size "
                                  << sizeof(T));
  const BluesteinFft<T> fft(n);
  const int64_t lane = stride > 1 ? 1 : n;  // distance between lines
  const int64_t size = stride > 1 ? n * stride : batch * n;
  ASSERT_LE(batch, stride > 1 ? stride : batch);
  std::mt19937 gen(static_cast<uint32_t>(n * 31 + batch));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::complex<T>> data(size);
  for (auto& v : data) v = std::complex<T>(static_cast<T>(u(gen)), static_cast<T>(u(gen)));
  const std::vector<std::complex<T>> input = data;
  std::vector<T> scratch(fft.ScratchElements());
  for (int64_t first = 0; first < batch; first += BluesteinFft<T>::kLanes) {
    const int64_t count = std::min(BluesteinFft<T>::kLanes, batch - first);
    const std::complex<T>* src[BluesteinFft<T>::kLanes];
    std::complex<T>* dst[BluesteinFft<T>::kLanes];
    for (int64_t l = 0; l < count; ++l) {
      dst[l] = data.data() + (first + l) * lane;
      src[l] = dst[l];  // in place
    }
    fft.Transform(src, dst, count, stride, inverse, scratch.data());
  }
  const double tolerance = sizeof(T) == 4 ? 3e-6 : 1e-13;
  for (int64_t l = 0; l < batch; ++l) {
    std::vector<C> line(n);
    for (int64_t j = 0; j < n; ++j) {
      const std::complex<T> v = input[l * lane + j * stride];
      line[j] = C(v.real(), v.imag());
    }
    const std::vector<C> want = NaiveDft(line, inverse);
    double worst = 0, scale = 0;
    for (int64_t k = 0; k < n; ++k) {
      const std::complex<T> v = data[l * lane + k * stride];
      worst = std::max(worst, std::abs(C(v.real(), v.imag()) - want[k]));
      scale = std::max(scale, std::abs(want[k]));
    }
    ASSERT_GT(scale, 0);
    EXPECT_LE(worst / scale, tolerance) << "line " << l << ": largest error " << worst << " of "
                                        << scale;
  }
}

// Primes on a LaneFft (7: padded to 15; 97: 200; 1009: 2025), batches that
// fill no block, one block, and more than one c128 block; forward and
// inverse; c64 and c128.
TEST(BluesteinFft, PrimesMatchTheNaiveDft) {
  for (int64_t n : {7, 97, 1009}) {
    for (int64_t batch : {1, 3, 7}) {
      for (bool inverse : {false, true}) {
        Check<float>(n, batch, 1, inverse);
        Check<double>(n, batch, 1, inverse);
      }
    }
  }
}

// 8209: padded to 16875 = 3^3 5^4, past kLaneFftMaxLength, so its two
// transforms and the kernel product run on a FourStepFft.
TEST(BluesteinFft, PrimeOnAFourStepMatchesTheNaiveDft) {
  for (bool inverse : {false, true}) {
    Check<float>(8209, 1, 1, inverse);
    Check<double>(8209, 1, 1, inverse);
  }
}

// Lines whose points lie `stride` apart (a 2-D transform's outer axis), a
// composite with a prime factor above 5 (77 = 7 * 11) too.
TEST(BluesteinFft, StridedLinesMatchTheNaiveDft) {
  for (bool inverse : {false, true}) {
    Check<float>(97, 7, 9, inverse);
    Check<double>(77, 3, 5, inverse);
  }
}

}  // namespace
}  // namespace stream_executor::host
