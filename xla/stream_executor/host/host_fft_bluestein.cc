#include "xla/stream_executor/host/host_fft_bluestein.h"

#include <cmath>

#include "xla/util/logging.h"

namespace stream_executor::host {
namespace {

// a * b in real arithmetic (std::complex's operator* also recovers
// infinities through a NaN check on every product).
template <typename T>
inline std::complex<T> Mul(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

}  // namespace

int64_t BluesteinPaddedLength(int64_t n) {
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  return m;
}

bool IsBluesteinLength(int64_t n) {
  if (n < 2 || BluesteinPaddedLength(n) > kLaneFftMaxLength) return false;
  for (int64_t p : {2, 3, 5}) {
    while (n % p == 0) n /= p;
  }
  return n > 1;
}

template <typename T>
BluesteinFft<T>::BluesteinFft(int64_t n) : n_(n), fft_(BluesteinPaddedLength(n)) {
  XLA_CHECK(n >= 1) << "BluesteinFft length " << n << " is not positive";
  const int64_t m = fft_.length();
  std::vector<std::complex<double>> chirp(n);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t phase = (j * j) % (2 * n);  // exact: w has period 2n in j^2
    chirp[j] = std::polar(1.0, -M_PI * static_cast<double>(phase) / static_cast<double>(n));
    chirp_.push_back(std::complex<T>(chirp[j]));
  }
  // b[j] = conj w[|j|] on the circle of M points (b[M - j] = b[j]); its
  // spectrum through a double LaneFft, so the table carries no T rounding
  // but the last.
  std::vector<std::complex<double>> b(m);
  for (int64_t j = 0; j < n; ++j) {
    b[j] = std::conj(chirp[j]);
    if (j > 0) b[m - j] = b[j];
  }
  const LaneFft<double> fft(m);
  std::vector<double> scratch(fft.ScratchElements());
  const std::complex<double>* src[] = {b.data()};
  std::complex<double>* dst[] = {b.data()};
  fft.Transform(src, dst, 1, 1, false, scratch.data());
  for (const std::complex<double>& v : b) kernel_.push_back(std::complex<T>(v));
}

template <typename T>
void BluesteinFft<T>::Transform(const std::complex<T>* const* src, std::complex<T>* const* dst,
                                int64_t lines, int64_t stride, bool inverse, T* scratch) const {
  using Complex = std::complex<T>;
  const int64_t m = fft_.length();
  auto* bufs = reinterpret_cast<Complex*>(scratch + fft_.ScratchElements());
  Complex* line[kLanes] = {};
  for (int64_t l = 0; l < lines; ++l) {
    line[l] = bufs + l * m;
    for (int64_t j = 0; j < n_; ++j) {
      const Complex x = inverse ? std::conj(src[l][j * stride]) : src[l][j * stride];
      line[l][j] = Mul(x, chirp_[j]);
    }
    for (int64_t j = n_; j < m; ++j) line[l][j] = Complex(0);
  }
  fft_.Transform(line, line, lines, 1, false, scratch);
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t k = 0; k < m; ++k) line[l][k] = Mul(line[l][k], kernel_[k]);
  }
  fft_.Transform(line, line, lines, 1, true, scratch);
  const T scale = inverse ? T(1) / static_cast<T>(n_) : T(1);
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t k = 0; k < n_; ++k) {
      const Complex y = Mul(line[l][k], chirp_[k]) * scale;
      dst[l][k * stride] = inverse ? std::conj(y) : y;
    }
  }
}

template class BluesteinFft<float>;
template class BluesteinFft<double>;

}  // namespace stream_executor::host
