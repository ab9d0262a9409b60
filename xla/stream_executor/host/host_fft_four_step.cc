#include "xla/stream_executor/host/host_fft_four_step.h"

#include <algorithm>
#include <cmath>

#include "xla/util/logging.h"

namespace stream_executor::host {
namespace {

// n1 for a FourStepFft of length `n`: the largest divisor of n at most
// sqrt(n) whose cofactor is at most kLaneFftMaxLength. CHECKs `n` first.
int64_t FirstFactor(int64_t n) {
  XLA_CHECK(IsFourStepLength(n)) << "FourStepFft length " << n
                                 << " is not 2^a 3^b 5^c in (kLaneFftMaxLength, "
                                    "kFourStepMaxLength]";
  int64_t best = 1;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d == 0 && n / d <= kLaneFftMaxLength) best = d;
  }
  return best;
}

}  // namespace

bool IsFourStepLength(int64_t n) {
  return n > kLaneFftMaxLength && n <= kFourStepMaxLength && IsLaneFftLength(n);
}

template <typename T>
FourStepFft<T>::FourStepFft(int64_t n)
    : n1_(FirstFactor(n)), n2_(n / n1_), first_(n1_), second_(n2_) {
  // Group g (sub-lines j2 = g kLanes + l) in LaneFft's post layout: real
  // parts at k1 kLanes + l, imaginary parts n1 kLanes later; lanes past n2
  // stay zero.
  const int64_t groups = (n2_ + kLanes - 1) / kLanes;
  twiddles_.assign(groups * 2 * n1_ * kLanes, T(0));
  for (int64_t j2 = 0; j2 < n2_; ++j2) {
    T* group = twiddles_.data() + (j2 / kLanes) * 2 * n1_ * kLanes;
    for (int64_t k1 = 0; k1 < n1_; ++k1) {
      const int64_t k = (j2 * k1) % n;  // exact: the twiddle's index
      const double angle = -2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      group[k1 * kLanes + j2 % kLanes] = static_cast<T>(std::cos(angle));
      group[(n1_ + k1) * kLanes + j2 % kLanes] = static_cast<T>(std::sin(angle));
    }
  }
}

template <typename T>
void FourStepFft<T>::Columns(const std::complex<T>* src, int64_t stride, bool inverse,
                             std::complex<T>* y, int64_t begin, int64_t end, T* block) const {
  const std::complex<T>* from[kLanes];
  std::complex<T>* to[kLanes];
  // Steps 1 and 2: sub-line j2 (points n2 j1 + j2) into y[j2 n1 + k1],
  // times w^(j2 k1).
  for (int64_t j2 = begin * kLanes; j2 < std::min(n2_, end * kLanes); j2 += kLanes) {
    const int64_t count = std::min(kLanes, n2_ - j2);
    for (int64_t l = 0; l < count; ++l) {
      from[l] = src + (j2 + l) * stride;
      to[l] = y + (j2 + l) * n1_;
    }
    const T* post = twiddles_.data() + (j2 / kLanes) * 2 * n1_ * kLanes;
    first_.Transform(from, n2_ * stride, to, 1, count, inverse, post, block);
  }
}

template <typename T>
void FourStepFft<T>::Rows(const std::complex<T>* y, std::complex<T>* dst, int64_t stride,
                          bool inverse, int64_t begin, int64_t end, T* block) const {
  const std::complex<T>* from[kLanes];
  std::complex<T>* to[kLanes];
  // Step 3: sub-line k1 (y[j2 n1 + k1] over j2) into X[k1 + n1 k2].
  for (int64_t k1 = begin * kLanes; k1 < std::min(n1_, end * kLanes); k1 += kLanes) {
    const int64_t count = std::min(kLanes, n1_ - k1);
    for (int64_t l = 0; l < count; ++l) {
      from[l] = y + k1 + l;
      to[l] = dst + (k1 + l) * stride;
    }
    second_.Transform(from, n1_, to, n1_ * stride, count, inverse, nullptr, block);
  }
}

template <typename T>
void FourStepFft<T>::Line(const std::complex<T>* src, std::complex<T>* dst, int64_t stride,
                          bool inverse, std::complex<T>* y, T* block) const {
  // Step 1 reads the line n2 points apart, kLanes at a time: too far apart
  // for the hardware prefetcher, so a line not yet in cache would be read
  // at memory latency. Asking for a contiguous line's cache lines in order
  // first streams it in at memory bandwidth instead (14.1 -> 10.9 ms CPU
  // for 64 c64 lines of 32768 points, one thread).
  if (stride == 1) {
    constexpr int64_t kPerCacheLine = 64 / sizeof(std::complex<T>);
    for (int64_t j = 0; j < length(); j += kPerCacheLine) __builtin_prefetch(src + j);
  }
  Columns(src, stride, inverse, y, 0, column_groups(), block);
  Rows(y, dst, stride, inverse, 0, row_groups(), block);
}

template <typename T>
void FourStepFft<T>::Transform(const std::complex<T>* const* src, std::complex<T>* const* dst,
                               int64_t lines, int64_t stride, bool inverse, T* scratch) const {
  auto* y = reinterpret_cast<std::complex<T>*>(scratch);
  T* block = scratch + 2 * length();
  for (int64_t l = 0; l < lines; ++l) Line(src[l], dst[l], stride, inverse, y, block);
}

template class FourStepFft<float>;
template class FourStepFft<double>;

}  // namespace stream_executor::host
