#include "xla/stream_executor/host/host_fft.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "unsupported/Eigen/FFT"
#include "xla/stream_executor/host/host_fft_bluestein.h"
#include "xla/stream_executor/host/host_fft_four_step.h"
#include "xla/stream_executor/host/host_fft_kernels.h"
#include "xla/stream_executor/host/parallel_for.h"

namespace stream_executor::host {
namespace {

// Ranges per thread of a parallel pass: enough to even out uneven threads.
constexpr int64_t kRangesPerThread = 4;

template <typename T>
class HostFftPlanImpl : public HostFftPlan {
 public:
  using Complex = std::complex<T>;

  HostFftPlanImpl(const FftConfig& config, int engines)
      : config_(config),
        complex_dims_(ComplexDims(config)),
        lane_ffts_(MakeLaneFfts(config)),
        four_steps_(MakeFourSteps(config)),
        bluesteins_(MakeBluesteins(config)),
        real_lane_fft_(MakeRealLaneFft(config)),
        real_four_step_(MakeRealFourStep(config)),
        real_twiddles_(RealTwiddles(config, real_lane_fft_ != nullptr || real_four_step_ != nullptr)) {
    for (int i = 0; i < std::max(engines, 1); ++i) idle_.push_back(MakeEngine());
    made_ = static_cast<int64_t>(idle_.size());
  }

  const FftConfig& config() const override { return config_; }

  int64_t num_engines() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return made_;
  }

  void Execute(const void* input, void* output, void* workspace,
               HostThreadPool* pool) const override {
    const int64_t rank = static_cast<int64_t>(config_.lengths.size());
    const bool inverse = config_.type == FftType::kIfft || config_.type == FftType::kIrfft;
    if (config_.type == FftType::kIrfft) {
      const auto* in = static_cast<const Complex*>(input);
      const Complex* spectrum = in;
      if (rank > 1) {  // the complex passes run on a copy of the input
        auto* copy = static_cast<Complex*>(workspace);
        std::memcpy(copy, in, FftWorkspaceBytes(config_));
        for (int64_t axis = 0; axis + 1 < rank; ++axis) StridedPass(copy, axis, true, pool);
        spectrum = copy;
      }
      LastPass(spectrum, static_cast<T*>(output), pool);
      return;
    }
    auto* out = static_cast<Complex*>(output);
    if (config_.type == FftType::kRfft) {
      LastPass(static_cast<const T*>(input), out, pool);
    } else {
      LastPass(static_cast<const Complex*>(input), out, pool);
    }
    for (int64_t axis = 0; axis + 1 < rank; ++axis) StridedPass(out, axis, inverse, pool);
  }

 private:
  // One thread's Eigen FFT objects (their twiddle caches) and line scratch.
  struct Engine {
    Eigen::FFT<T> complex_fft;  // inverse scaled by 1/n
    Eigen::FFT<T> real_fft;     // half spectrum, inverse scaled by 1/n
    std::vector<Complex> a, b;
    std::vector<T> lanes;  // LaneFft and BluesteinFft scratch, for the largest
  };

  // Per axis, the LaneFft its complex passes run on: the axes of a length
  // with no prime factor above 5, up to kLaneFftMaxLength, except a real
  // transform's last (its pass runs on real_lane_fft_, real_four_step_ or
  // Eigen's real FFT).
  static std::vector<std::unique_ptr<const LaneFft<T>>> MakeLaneFfts(const FftConfig& c) {
    const std::vector<int64_t> dims = ComplexDims(c);
    const bool real = c.type == FftType::kRfft || c.type == FftType::kIrfft;
    std::vector<std::unique_ptr<const LaneFft<T>>> ffts(dims.size());
    for (size_t axis = 0; axis < dims.size(); ++axis) {
      const int64_t n = dims[axis];
      if (real && axis + 1 == dims.size()) continue;
      if (!IsLaneFftLength(n) || n > kLaneFftMaxLength) continue;
      ffts[axis] = std::make_unique<LaneFft<T>>(n);
    }
    return ffts;
  }

  // Per axis, the FourStepFft its complex passes run on: the axes whose
  // length IsFourStepLength, except a real transform's last.
  static std::vector<std::unique_ptr<const FourStepFft<T>>> MakeFourSteps(const FftConfig& c) {
    const std::vector<int64_t> dims = ComplexDims(c);
    const bool real = c.type == FftType::kRfft || c.type == FftType::kIrfft;
    std::vector<std::unique_ptr<const FourStepFft<T>>> ffts(dims.size());
    for (size_t axis = 0; axis < dims.size(); ++axis) {
      if (real && axis + 1 == dims.size()) continue;
      if (IsFourStepLength(dims[axis])) ffts[axis] = std::make_unique<FourStepFft<T>>(dims[axis]);
    }
    return ffts;
  }

  // Per axis, the BluesteinFft its complex passes run on: the axes whose
  // length IsBluesteinLength, except a real transform's last.
  static std::vector<std::unique_ptr<const BluesteinFft<T>>> MakeBluesteins(const FftConfig& c) {
    const std::vector<int64_t> dims = ComplexDims(c);
    const bool real = c.type == FftType::kRfft || c.type == FftType::kIrfft;
    std::vector<std::unique_ptr<const BluesteinFft<T>>> ffts(dims.size());
    for (size_t axis = 0; axis < dims.size(); ++axis) {
      if (real && axis + 1 == dims.size()) continue;
      if (IsBluesteinLength(dims[axis])) ffts[axis] = std::make_unique<BluesteinFft<T>>(dims[axis]);
    }
    return ffts;
  }

  // A real transform's last pass on LaneFft (an RFFT's through
  // SplitHalfSpectrum, an IRFFT's through MergeHalfSpectrum): for an even
  // length n whose half is a LaneFft length up to kLaneFftMaxLength, the
  // half-length transform; null otherwise.
  static std::unique_ptr<const LaneFft<T>> MakeRealLaneFft(const FftConfig& c) {
    if (c.type != FftType::kRfft && c.type != FftType::kIrfft) return nullptr;
    const int64_t n = c.lengths.back();
    if (n < 2 || n % 2 != 0 || !IsLaneFftLength(n / 2) || n / 2 > kLaneFftMaxLength) return nullptr;
    return std::make_unique<LaneFft<T>>(n / 2);
  }

  // The same on FourStepFft, for an even n whose half IsFourStepLength;
  // null otherwise (with no real LaneFft either, Eigen's real FFT runs it).
  static std::unique_ptr<const FourStepFft<T>> MakeRealFourStep(const FftConfig& c) {
    if (c.type != FftType::kRfft && c.type != FftType::kIrfft) return nullptr;
    const int64_t n = c.lengths.back();
    if (n % 2 != 0 || !IsFourStepLength(n / 2)) return nullptr;
    return std::make_unique<FourStepFft<T>>(n / 2);
  }

  // exp(-2 pi i k / n) for k in [0, n / 2] (computed in double), for
  // SplitHalfSpectrum and MergeHalfSpectrum; empty when the real pass runs
  // on Eigen (`half_length` false).
  static std::vector<Complex> RealTwiddles(const FftConfig& c, bool half_length) {
    if (!half_length) return {};
    const int64_t n = c.lengths.back();
    std::vector<Complex> w(n / 2 + 1);
    for (int64_t k = 0; k <= n / 2; ++k) {
      const double angle = -2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      w[k] = Complex(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
    }
    return w;
  }

  // Turns Z, the length-n/2 DFT of a real line x read as complex points
  // z[m] = x[2m] + i x[2m+1] (in x[0, n/2)), into the line's half spectrum
  // X[0, n/2] in place: X[k] = E[k] + W^k O[k] with E[k] = (Z[k] +
  // conj Z[n/2-k]) / 2 and O[k] = (Z[k] - conj Z[n/2-k]) / 2i (Z[n/2] =
  // Z[0]); X[n/2-k] = conj E[k] + W^(n/2-k) conj O[k]. Real arithmetic
  // (std::complex's multiply checks for NaNs).
  void SplitHalfSpectrum(Complex* x) const {
    const int64_t half = static_cast<int64_t>(real_twiddles_.size()) - 1;
    const T z0r = x[0].real(), z0i = x[0].imag();
    x[0] = Complex(z0r + z0i, 0);
    x[half] = Complex(z0r - z0i, 0);
    for (int64_t k = 1; 2 * k <= half; ++k) {
      const int64_t m = half - k;
      const T ar = x[k].real(), ai = x[k].imag(), br = x[m].real(), bi = x[m].imag();
      const T er = (ar + br) / 2, ei = (ai - bi) / 2;  // E[k]
      const T orr = (ai + bi) / 2, oi = (br - ar) / 2;  // O[k]
      const T wkr = real_twiddles_[k].real(), wki = real_twiddles_[k].imag();
      const T wmr = real_twiddles_[m].real(), wmi = real_twiddles_[m].imag();
      x[k] = Complex(er + wkr * orr - wki * oi, ei + wkr * oi + wki * orr);
      x[m] = Complex(er + wmr * orr + wmi * oi, -ei + wmi * orr - wmr * oi);
    }
  }

  // The inverse of SplitHalfSpectrum: from a line's half spectrum
  // X[0, n/2] (`x`), writes into `z` the Z[0, n/2) whose inverse
  // length-n/2 DFT z[m] holds the real line's samples x[2m] + i x[2m+1]:
  // Z[k] = E[k] + i O[k] with E[k] = (X[k] + conj X[n/2-k]) / 2 and
  // O[k] = (X[k] - conj X[n/2-k]) conj(W^k) / 2, and Z[n/2-k] = conj E[k] +
  // i conj O[k]. The imaginary parts of X[0] and X[n/2] are ignored (XLA's
  // IRFFT semantics). `z` must not overlap `x`. Real arithmetic, as in
  // SplitHalfSpectrum.
  void MergeHalfSpectrum(const Complex* x, Complex* z) const {
    const int64_t half = static_cast<int64_t>(real_twiddles_.size()) - 1;
    const T x0 = x[0].real(), xh = x[half].real();
    z[0] = Complex((x0 + xh) / 2, (x0 - xh) / 2);
    for (int64_t k = 1; 2 * k <= half; ++k) {
      const int64_t m = half - k;
      const T ar = x[k].real(), ai = x[k].imag(), br = x[m].real(), bi = x[m].imag();
      const T er = (ar + br) / 2, ei = (ai - bi) / 2;  // E[k]
      const T dr = (ar - br) / 2, di = (ai + bi) / 2;  // (X[k] - conj X[m]) / 2
      const T wr = real_twiddles_[k].real(), wi = -real_twiddles_[k].imag();  // conj W^k
      const T orr = dr * wr - di * wi, oi = dr * wi + di * wr;  // O[k]
      z[k] = Complex(er - oi, ei + orr);
      z[m] = Complex(er + oi, orr - ei);
    }
  }

  // Eigen's kissfft factors a length of 1 into a radix-1 stage it cannot
  // run: a length-1 transform is the identity (the real part, for a
  // complex-to-real one), so these handle it before calling Eigen.
  static void Complex1D(Engine& e, Complex* dst, const Complex* src, int64_t n, bool inverse) {
    if (n == 1) {
      *dst = *src;
    } else if (inverse) {
      e.complex_fft.inv(dst, src, n);
    } else {
      e.complex_fft.fwd(dst, src, n);
    }
  }
  static void RealForward1D(Engine& e, Complex* dst, const T* src, int64_t n) {
    if (n == 1) {
      *dst = Complex(*src, 0);
    } else {
      e.real_fft.fwd(dst, src, n);
    }
  }
  static void RealInverse1D(Engine& e, T* dst, const Complex* src, int64_t n) {
    if (n == 1) {
      *dst = src->real();
    } else {
      e.real_fft.inv(dst, src, n);
    }
  }

  // The complex side's dims of one transform: the lengths, with the last
  // halved for RFFT and IRFFT.
  static std::vector<int64_t> ComplexDims(const FftConfig& c) {
    return c.type == FftType::kRfft ? FftOutputDims(c) : FftInputDims(c);
  }

  // An engine whose Eigen objects already hold every table this plan uses
  // (each Eigen transform run once on zeros; passes that LaneFft runs need
  // none).
  std::unique_ptr<Engine> MakeEngine() const {
    auto e = std::make_unique<Engine>();
    e->real_fft.SetFlag(Eigen::FFT<T>::HalfSpectrum);
    const int64_t longest = *std::max_element(config_.lengths.begin(), config_.lengths.end());
    e->a.assign(longest, Complex(0));
    e->b.assign(longest, Complex(0));
    const int64_t rank = static_cast<int64_t>(config_.lengths.size());
    const bool real = config_.type == FftType::kRfft || config_.type == FftType::kIrfft;
    for (int64_t axis = 0; axis < rank; ++axis) {
      const int64_t n = config_.lengths[axis];
      if (real && axis + 1 == rank) {
        if (real_lane_fft_ != nullptr || real_four_step_ != nullptr) continue;
        if (config_.type == FftType::kRfft) {
          RealForward1D(*e, e->b.data(), reinterpret_cast<const T*>(e->a.data()), n);
        } else {
          RealInverse1D(*e, reinterpret_cast<T*>(e->b.data()), e->a.data(), n);
        }
      } else if (lane_ffts_[axis] == nullptr && four_steps_[axis] == nullptr &&
                 bluesteins_[axis] == nullptr) {
        Complex1D(*e, e->b.data(), e->a.data(), n,
                  config_.type == FftType::kIfft || config_.type == FftType::kIrfft);
      }
    }
    std::fill(e->b.begin(), e->b.end(), Complex(0));
    int64_t lanes = 0;
    for (const auto& fft : lane_ffts_) {
      if (fft != nullptr) lanes = std::max(lanes, fft->ScratchElements());
    }
    for (const auto& fft : four_steps_) {
      if (fft != nullptr) lanes = std::max(lanes, fft->ScratchElements());
    }
    for (const auto& fft : bluesteins_) {
      if (fft != nullptr) lanes = std::max(lanes, fft->ScratchElements());
    }
    if (real_lane_fft_ != nullptr) lanes = std::max(lanes, real_lane_fft_->ScratchElements());
    if (real_four_step_ != nullptr) lanes = std::max(lanes, real_four_step_->ScratchElements());
    e->lanes.assign(lanes, T(0));
    return e;
  }

  std::unique_ptr<Engine> Borrow() const {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        std::unique_ptr<Engine> e = std::move(idle_.back());
        idle_.pop_back();
        return e;
      }
      ++made_;
    }
    return MakeEngine();
  }

  void Return(std::unique_ptr<Engine> e) const {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(e));
  }

  // Runs line(engine, i) for i in [0, lines), cut into ranges over `pool`
  // when the pass moves at least kHostFftParallelElements elements.
  template <typename LineFn>
  void ForLines(int64_t lines, int64_t line_elements, HostThreadPool* pool,
                const LineFn& line) const {
    int64_t ranges = 1;
    if (pool != nullptr && lines > 1 && lines * line_elements >= kHostFftParallelElements) {
      ranges = std::min<int64_t>(lines, kRangesPerThread * (pool->num_threads() + 1));
    }
    auto run = [&](int64_t r) {
      std::unique_ptr<Engine> e = Borrow();
      const int64_t begin = lines * r / ranges, end = lines * (r + 1) / ranges;
      for (int64_t i = begin; i < end; ++i) line(*e, i);
      Return(std::move(e));
    };
    if (ranges == 1) {
      run(0);
    } else {
      ParallelFor(*pool, ranges, run);
    }
  }

  // Transforms of the last dimension, straight between the buffers:
  // complex to complex, real to half spectrum, or half spectrum to real.
  template <typename In, typename Out>
  void LastPass(const In* in, Out* out, HostThreadPool* pool) const {
    const int64_t rank = static_cast<int64_t>(config_.lengths.size());
    const int64_t n = config_.lengths.back();
    const int64_t in_row = FftInputDims(config_).back();
    const int64_t out_row = FftOutputDims(config_).back();
    int64_t lines = config_.batch;
    for (int64_t axis = 0; axis + 1 < rank; ++axis) lines *= config_.lengths[axis];
    const bool inverse = config_.type == FftType::kIfft;
    if constexpr (std::is_same_v<In, Complex> && std::is_same_v<Out, Complex>) {
      if (AxisLanePass(rank - 1, lines, 1, inverse, pool, [&](int64_t i) {
            return std::make_pair(in + i * in_row, out + i * out_row);
          })) {
        return;
      }
    }
    if constexpr (std::is_same_v<Out, T>) {
      // Each half spectrum merged into the output row as n/2 complex
      // points, whose inverse transform there is the real line (even and
      // odd samples as real and imaginary parts).
      auto merged = [&](const auto& fft) {
        LanePass(
            fft, lines, 1, true, pool,
            [&](int64_t i) {
              auto* z = reinterpret_cast<Complex*>(out + i * out_row);
              MergeHalfSpectrum(in + i * in_row, z);
              return std::make_pair(static_cast<const Complex*>(z), z);
            },
            [](int64_t) {});
      };
      if (real_lane_fft_ != nullptr) return merged(*real_lane_fft_);
      if (real_four_step_ != nullptr) return merged(*real_four_step_);
    }
    if constexpr (std::is_same_v<In, T>) {
      // Each real line read as n/2 complex points (Eigen's real FFT does
      // the same), transformed into the output row, then split there.
      auto split = [&](const auto& fft) {
        LanePass(
            fft, lines, 1, false, pool,
            [&](int64_t i) {
              return std::make_pair(reinterpret_cast<const Complex*>(in + i * in_row), out + i * out_row);
            },
            [&](int64_t i) { SplitHalfSpectrum(out + i * out_row); });
      };
      if (real_lane_fft_ != nullptr) return split(*real_lane_fft_);
      if (real_four_step_ != nullptr) return split(*real_four_step_);
    }
    ForLines(lines, std::max(in_row, out_row), pool, [&](Engine& e, int64_t i) {
      const In* src = in + i * in_row;
      Out* dst = out + i * out_row;
      if constexpr (std::is_same_v<In, T>) {
        RealForward1D(e, dst, src, n);
      } else if constexpr (std::is_same_v<Out, T>) {
        RealInverse1D(e, dst, src, n);
      } else {
        Complex1D(e, dst, src, n, inverse);
      }
    });
  }

  // Transforms `lines` lines through `fft` (a LaneFft, FourStepFft or
  // BluesteinFft) in
  // blocks of its kLanes lines
  // (the last block partial), the blocks cut into ranges like ForLines.
  // line(i) gives line i's source and destination, points `stride` apart
  // (called once per line, before its block is transformed: it may fill
  // the source);
  // after(i) runs on each line once its block is transformed (while the
  // block is still in cache).
  template <typename Fft, typename LineFn, typename AfterFn>
  void LanePass(const Fft& fft, int64_t lines, int64_t stride, bool inverse,
                HostThreadPool* pool, const LineFn& line, const AfterFn& after) const {
    constexpr int64_t kLanes = Fft::kLanes;
    const int64_t blocks = (lines + kLanes - 1) / kLanes;
    if constexpr (std::is_same_v<Fft, FourStepFft<T>>) {
      // Fewer blocks than threads: split each line's rounds instead.
      if (pool != nullptr && pool->num_threads() > 0 && blocks < pool->num_threads() + 1) {
        for (int64_t i = 0; i < lines; ++i) {
          const auto [src, dst] = line(i);
          LineAcrossPool(fft, src, dst, stride, inverse, *pool);
          after(i);
        }
        return;
      }
    }
    ForLines(blocks, kLanes * fft.length(), pool, [&](Engine& e, int64_t block) {
      const Complex* src[kLanes];
      Complex* dst[kLanes];
      const int64_t count = std::min(kLanes, lines - block * kLanes);
      for (int64_t l = 0; l < count; ++l) {
        std::tie(src[l], dst[l]) = line(block * kLanes + l);
      }
      fft.Transform(src, dst, count, stride, inverse, e.lanes.data());
      for (int64_t l = 0; l < count; ++l) after(block * kLanes + l);
    });
  }

  // One FourStepFft line with each of its two rounds (Columns, then Rows)
  // cut into ranges of groups over `pool`: a long line of a batch too small
  // to keep the threads busy block by block. One borrowed engine's scratch
  // holds the line's intermediate y (n complex values, at most
  // ScratchElements()); each range borrows its own for its block.
  void LineAcrossPool(const FourStepFft<T>& fft, const Complex* src, Complex* dst, int64_t stride,
                      bool inverse, HostThreadPool& pool) const {
    std::unique_ptr<Engine> holder = Borrow();
    auto* y = reinterpret_cast<Complex*>(holder->lanes.data());
    const int64_t threads = pool.num_threads() + 1;
    auto round = [&](int64_t groups, const auto& step) {
      const int64_t ranges = std::min(groups, kRangesPerThread * threads);
      ParallelFor(pool, ranges, [&](int64_t r) {
        std::unique_ptr<Engine> e = Borrow();
        step(groups * r / ranges, groups * (r + 1) / ranges, e->lanes.data());
        Return(std::move(e));
      });
    };
    round(fft.column_groups(), [&](int64_t begin, int64_t end, T* block) {
      fft.Columns(src, stride, inverse, y, begin, end, block);
    });
    round(fft.row_groups(), [&](int64_t begin, int64_t end, T* block) {
      fft.Rows(y, dst, stride, inverse, begin, end, block);
    });
    Return(std::move(holder));
  }

  // LanePass over the complex passes of `axis` on the transform the plan
  // made for it (its LaneFft, FourStepFft or BluesteinFft); false, doing
  // nothing, when the axis has none (Eigen runs it).
  template <typename LineFn>
  bool AxisLanePass(int64_t axis, int64_t lines, int64_t stride, bool inverse, HostThreadPool* pool,
                    const LineFn& line) const {
    auto nothing_after = [](int64_t) {};
    if (const LaneFft<T>* fft = lane_ffts_[axis].get(); fft != nullptr) {
      LanePass(*fft, lines, stride, inverse, pool, line, nothing_after);
      return true;
    }
    if (const FourStepFft<T>* fft = four_steps_[axis].get(); fft != nullptr) {
      LanePass(*fft, lines, stride, inverse, pool, line, nothing_after);
      return true;
    }
    if (const BluesteinFft<T>* fft = bluesteins_[axis].get(); fft != nullptr) {
      LanePass(*fft, lines, stride, inverse, pool, line, nothing_after);
      return true;
    }
    return false;
  }

  // Complex transforms of dimension `axis` (not the last) of `data`, in
  // place: each line gathered into scratch, transformed, scattered back.
  void StridedPass(Complex* data, int64_t axis, bool inverse, HostThreadPool* pool) const {
    const int64_t n = complex_dims_[axis];
    int64_t inner = 1;
    for (size_t d = axis + 1; d < complex_dims_.size(); ++d) inner *= complex_dims_[d];
    int64_t outer = config_.batch;
    for (int64_t d = 0; d < axis; ++d) outer *= complex_dims_[d];
    // Line i's first point; its points are `inner` apart.
    auto line_base = [&](int64_t i) { return data + (i / inner) * n * inner + i % inner; };
    auto in_place = [&](int64_t i) {
      Complex* base = line_base(i);
      return std::make_pair(static_cast<const Complex*>(base), base);
    };
    if (AxisLanePass(axis, outer * inner, inner, inverse, pool, in_place)) return;
    ForLines(outer * inner, n, pool, [&](Engine& e, int64_t i) {
      Complex* base = line_base(i);
      for (int64_t j = 0; j < n; ++j) e.a[j] = base[j * inner];
      Complex1D(e, e.b.data(), e.a.data(), n, inverse);
      for (int64_t j = 0; j < n; ++j) base[j * inner] = e.b[j];
    });
  }

  const FftConfig config_;
  const std::vector<int64_t> complex_dims_;
  const std::vector<std::unique_ptr<const LaneFft<T>>> lane_ffts_;  // per axis, or null
  const std::vector<std::unique_ptr<const FourStepFft<T>>> four_steps_;  // per axis, or null
  const std::vector<std::unique_ptr<const BluesteinFft<T>>> bluesteins_;  // per axis, or null
  const std::unique_ptr<const LaneFft<T>> real_lane_fft_;  // a real last pass, or null
  const std::unique_ptr<const FourStepFft<T>> real_four_step_;  // a long real last pass, or null
  const std::vector<Complex> real_twiddles_;  // for Split/MergeHalfSpectrum
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Engine>> idle_;  // guarded by mu_
  mutable int64_t made_ = 0;                           // guarded by mu_
};

}  // namespace

absl::StatusOr<std::unique_ptr<HostFftPlan>> HostFftPlan::Create(const FftConfig& config,
                                                                 int engines) {
  if (absl::Status s = CheckFftConfig(config); !s.ok()) return s;
  if (config.precision == FftPrecision::kF32) {
    return std::make_unique<HostFftPlanImpl<float>>(config, engines);
  }
  return std::make_unique<HostFftPlanImpl<double>>(config, engines);
}

}  // namespace stream_executor::host
