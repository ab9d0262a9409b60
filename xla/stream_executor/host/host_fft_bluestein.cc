#include "xla/stream_executor/host/host_fft_bluestein.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "xla/stream_executor/host/host_fft_chirp.h"

#include "xla/util/logging.h"

namespace stream_executor::host {
namespace {

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
    ChirpMultiply(line[l], 1, kernel_.data(), m_, ChirpOptions<T>{}, line[l], 1);
  }
  four_step_->Transform(line, line, lines, 1, true, scratch);
}

template <typename T>
void BluesteinFft<T>::Transform(const std::complex<T>* const* src, std::complex<T>* const* dst,
                                int64_t lines, int64_t stride, bool inverse, T* scratch) const {
  using Complex = std::complex<T>;
  const int64_t fft_scratch = ScratchElements() - 2 * lines_per_call_ * m_;
  auto* bufs = reinterpret_cast<Complex*>(scratch + fft_scratch);
  // x conj'd for an inverse on the way in; the product scaled by 1/n and
  // conj'd again on the way out.
  ChirpOptions<T> pre, post;
  pre.conj_in = inverse;
  post.conj_out = inverse;
  post.scale = inverse ? T(1) / static_cast<T>(n_) : T(1);
  for (int64_t first = 0; first < lines; first += lines_per_call_) {
    const int64_t count = std::min(lines_per_call_, lines - first);
    Complex* line[kLanes] = {};
    for (int64_t l = 0; l < count; ++l) {
      line[l] = bufs + l * m_;
      ChirpMultiply(src[first + l], stride, chirp_.data(), n_, pre, line[l], 1);
      std::memset(static_cast<void*>(line[l] + n_), 0, (m_ - n_) * sizeof(Complex));
    }
    Convolve(line, count, scratch);
    for (int64_t l = 0; l < count; ++l) {
      ChirpMultiply(line[l], 1, chirp_.data(), n_, post, dst[first + l], stride);
    }
  }
}

template class BluesteinFft<float>;
template class BluesteinFft<double>;

}  // namespace stream_executor::host
