#include "xla/stream_executor/host/host_fft_bluestein.h"

#include <algorithm>
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

// The forward DFT of the m points at `x`, in place, in double: on a
// LaneFft up to kLaneFftMaxLength, else on a FourStepFft.
void ForwardInDouble(std::complex<double>* x, int64_t m) {
  const std::complex<double>* src[] = {x};
  std::complex<double>* dst[] = {x};
  if (m <= kLaneFftMaxLength) {
    const LaneFft<double> fft(m);
    std::vector<double> scratch(fft.ScratchElements());
    fft.Transform(src, dst, 1, 1, false, scratch.data());
    return;
  }
  const FourStepFft<double> fft(m);
  std::vector<double> scratch(fft.ScratchElements());
  fft.Transform(src, dst, 1, 1, false, scratch.data());
}

}  // namespace

int64_t BluesteinPaddedLength(int64_t n) { return NextLaneFftLength(2 * n - 1); }

bool IsBluesteinLength(int64_t n) {
  if (n < 2 || IsLaneFftLength(n)) return false;  // no prime factor above 5
  return BluesteinPaddedLength(n) <= kFourStepMaxLength;
}

template <typename T>
BluesteinFft<T>::BluesteinFft(int64_t n) : n_(n), m_(n >= 1 ? BluesteinPaddedLength(n) : 0) {
  XLA_CHECK(n >= 1 && m_ <= kFourStepMaxLength)
      << "BluesteinFft length " << n << " is not positive or pads past kFourStepMaxLength";
  if (m_ <= kLaneFftMaxLength) {
    lane_ = std::make_unique<LaneFft<T>>(m_);
    lines_per_call_ = kLanes;
  } else {
    four_step_ = std::make_unique<FourStepFft<T>>(m_);
    lines_per_call_ = 1;
  }
  std::vector<std::complex<double>> chirp(n);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t phase = (j * j) % (2 * n);  // exact: w has period 2n in j^2
    chirp[j] = std::polar(1.0, -M_PI * static_cast<double>(phase) / static_cast<double>(n));
    chirp_.push_back(std::complex<T>(chirp[j]));
  }
  // b[j] = conj w[|j|] on the circle of M points (b[M - j] = b[j]); its
  // spectrum in double, so the table carries no T rounding but the last.
  std::vector<std::complex<double>> b(m_);
  for (int64_t j = 0; j < n; ++j) {
    b[j] = std::conj(chirp[j]);
    if (j > 0) b[m_ - j] = b[j];
  }
  ForwardInDouble(b.data(), m_);
  for (const std::complex<double>& v : b) kernel_.push_back(std::complex<T>(v));
  if (lane_ == nullptr) return;
  // The same spectrum in LaneFft's post layout, every lane alike: the
  // forward transform multiplies by it on its way out of the block.
  kernel_block_.resize(2 * m_ * kLanes);
  for (int64_t k = 0; k < m_; ++k) {
    for (int64_t l = 0; l < kLanes; ++l) {
      kernel_block_[k * kLanes + l] = kernel_[k].real();
      kernel_block_[(m_ + k) * kLanes + l] = kernel_[k].imag();
    }
  }
}

template <typename T>
int64_t BluesteinFft<T>::ScratchElements() const {
  const int64_t fft = lane_ != nullptr ? lane_->ScratchElements() : four_step_->ScratchElements();
  return fft + 2 * lines_per_call_ * m_;
}

template <typename T>
void BluesteinFft<T>::Convolve(std::complex<T>* const* line, int64_t lines, T* scratch) const {
  if (lane_ != nullptr) {
    lane_->Transform(line, 1, line, 1, lines, false, kernel_block_.data(), scratch);
    lane_->Transform(line, line, lines, 1, true, scratch);
    return;
  }
  four_step_->Transform(line, line, lines, 1, false, scratch);
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t k = 0; k < m_; ++k) line[l][k] = Mul(line[l][k], kernel_[k]);
  }
  four_step_->Transform(line, line, lines, 1, true, scratch);
}

template <typename T>
void BluesteinFft<T>::Transform(const std::complex<T>* const* src, std::complex<T>* const* dst,
                                int64_t lines, int64_t stride, bool inverse, T* scratch) const {
  using Complex = std::complex<T>;
  const int64_t fft_scratch = ScratchElements() - 2 * lines_per_call_ * m_;
  auto* bufs = reinterpret_cast<Complex*>(scratch + fft_scratch);
  const T scale = inverse ? T(1) / static_cast<T>(n_) : T(1);
  for (int64_t first = 0; first < lines; first += lines_per_call_) {
    const int64_t count = std::min(lines_per_call_, lines - first);
    Complex* line[kLanes] = {};
    for (int64_t l = 0; l < count; ++l) {
      line[l] = bufs + l * m_;
      const Complex* in = src[first + l];
      for (int64_t j = 0; j < n_; ++j) {
        const Complex x = inverse ? std::conj(in[j * stride]) : in[j * stride];
        line[l][j] = Mul(x, chirp_[j]);
      }
      for (int64_t j = n_; j < m_; ++j) line[l][j] = Complex(0);
    }
    Convolve(line, count, scratch);
    for (int64_t l = 0; l < count; ++l) {
      Complex* out = dst[first + l];
      for (int64_t k = 0; k < n_; ++k) {
        const Complex y = Mul(line[l][k], chirp_[k]) * scale;
        out[k * stride] = inverse ? std::conj(y) : y;
      }
    }
  }
}

template class BluesteinFft<float>;
template class BluesteinFft<double>;

}  // namespace stream_executor::host
