#include "xla/stream_executor/host/host_fft.h"

#include <cmath>
#include <complex>
#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "xla/stream_executor/host/host_fft_bluestein.h"
#include "xla/stream_executor/host/host_fft_four_step.h"
#include "xla/stream_executor/host/host_fft_kernels.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {
namespace {

using C = std::complex<double>;

// The oracle: the DFT by its definition in double, over the last
// dimensions of [batch, lengths...] (fft.h semantics), on the full complex
// input (an IRFFT's half spectrum extended Hermitian-symmetrically first).
std::vector<C> ReferenceDft(const std::vector<C>& full, const std::vector<int64_t>& lengths,
                            int64_t batch, bool inverse) {
  int64_t n = 1;
  for (int64_t l : lengths) n *= l;
  std::vector<C> out(full.size());
  const int64_t rank = static_cast<int64_t>(lengths.size());
  const double sign = inverse ? 1.0 : -1.0;
  // Per axis, exp(sign 2 pi i m / L) for m in [0, L): a term's factor is
  // the product over the axes of roots[a][(k_a j_a) mod L_a].
  std::vector<std::vector<C>> roots(rank);
  for (int64_t a = 0; a < rank; ++a) {
    for (int64_t m = 0; m < lengths[a]; ++m) {
      roots[a].push_back(std::polar(1.0, sign * 2 * M_PI * static_cast<double>(m) / lengths[a]));
    }
  }
  std::vector<int64_t> kidx(rank), jidx(rank);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t a = rank - 1, kk = k; a >= 0; --a) {
        kidx[a] = kk % lengths[a];
        kk /= lengths[a];
      }
      std::fill(jidx.begin(), jidx.end(), 0);
      C sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        C w = roots[rank - 1][(kidx[rank - 1] * jidx[rank - 1]) % lengths[rank - 1]];
        for (int64_t a = rank - 2; a >= 0; --a) w *= roots[a][(kidx[a] * jidx[a]) % lengths[a]];
        sum += full[b * n + j] * w;
        // The next j's index, last axis fastest.
        for (int64_t a = rank - 1; a >= 0 && ++jidx[a] == lengths[a]; --a) jidx[a] = 0;
      }
      out[b * n + k] = inverse ? sum / static_cast<double>(n) : sum;
    }
  }
  return out;
}

// The full spectrum whose half (last dimension L/2 + 1) is `half`: an
// index beyond the half reads conj of the index mirrored ((L - i) mod L) in
// every dimension. `half` must come from real data (every symmetry holds).
std::vector<C> HermitianExtend(const std::vector<C>& half, const std::vector<int64_t>& lengths,
                               int64_t batch) {
  const int64_t rank = static_cast<int64_t>(lengths.size());
  const int64_t last = lengths.back(), h = last / 2 + 1;
  int64_t n = 1;
  for (int64_t l : lengths) n *= l;
  std::vector<C> full(batch * n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> idx(rank);
      int64_t rest = i;
      for (int64_t a = rank - 1; a >= 0; --a) {
        idx[a] = rest % lengths[a];
        rest /= lengths[a];
      }
      const bool mirror = idx.back() >= h;
      if (mirror) {
        for (int64_t a = 0; a < rank; ++a) idx[a] = (lengths[a] - idx[a]) % lengths[a];
      }
      int64_t flat = 0;
      for (int64_t a = 0; a < rank; ++a) flat = flat * (a + 1 == rank ? h : lengths[a]) + idx[a];
      const C v = half[b * (n / last * h) + flat];
      full[b * n + i] = mirror ? std::conj(v) : v;
    }
  }
  return full;
}

struct Case {
  FftType type;
  FftPrecision precision;
  std::vector<int64_t> lengths;
  int64_t batch;
};

std::string Name(const Case& c) {
  FftConfig config{c.type, c.precision, c.lengths, c.batch};
  return FftConfigToString(config);
}

// Runs `c` on random data through HostFftPlan (with and without a pool) and
// compares with the reference, relative to the largest reference value.
void Check(const Case& c, HostThreadPool* pool) {
  SCOPED_TRACE(Name(c));
  FftConfig config{c.type, c.precision, c.lengths, c.batch};
  ASSERT_TRUE(CheckFftConfig(config).ok());
  const bool f32 = c.precision == FftPrecision::kF32;
  std::mt19937 gen(17 + c.batch * 7 + c.lengths.back());
  std::uniform_real_distribution<double> dist(-1, 1);
  const int64_t in_count = FftInputElements(config);
  const int64_t out_count = FftOutputElements(config);
  // Input values as doubles (real, or re/im pairs), exactly representable
  // in the plan's precision.
  const bool complex_in = c.type != FftType::kRfft;
  std::vector<double> in_values(in_count * (complex_in ? 2 : 1));
  for (double& v : in_values) v = f32 ? static_cast<float>(dist(gen)) : dist(gen);
  std::vector<C> full;  // the reference's complex input
  int64_t n = 1;
  for (int64_t l : c.lengths) n *= l;
  if (c.type == FftType::kIrfft) {
    // A Hermitian half spectrum: the RFFT of real data (so every
    // dimension's symmetry holds), rounded to the plan's precision.
    std::vector<C> real(c.batch * n);
    for (C& v : real) v = f32 ? static_cast<float>(dist(gen)) : dist(gen);
    std::vector<C> spectrum = ReferenceDft(real, c.lengths, c.batch, false);
    const int64_t last = c.lengths.back(), h = last / 2 + 1;
    for (int64_t i = 0, o = 0; i < c.batch * n; ++i) {
      if (i % last >= h) continue;
      const C v = spectrum[i];
      in_values[2 * o] = f32 ? static_cast<float>(v.real()) : v.real();
      in_values[2 * o + 1] = f32 ? static_cast<float>(v.imag()) : v.imag();
      ++o;
    }
    std::vector<C> half(in_count);
    for (int64_t i = 0; i < in_count; ++i) half[i] = C(in_values[2 * i], in_values[2 * i + 1]);
    full = HermitianExtend(half, c.lengths, c.batch);
  } else if (c.type == FftType::kRfft) {
    for (double v : in_values) full.push_back(C(v, 0));
  } else {
    for (int64_t i = 0; i < in_count; ++i) full.push_back(C(in_values[2 * i], in_values[2 * i + 1]));
  }
  const bool inverse = c.type == FftType::kIfft || c.type == FftType::kIrfft;
  const std::vector<C> want_full = ReferenceDft(full, c.lengths, c.batch, inverse);

  // The plan's buffers, in its precision.
  const int64_t real_bytes = f32 ? 4 : 8;
  std::vector<char> input(in_values.size() * real_bytes);
  for (size_t i = 0; i < in_values.size(); ++i) {
    if (f32) {
      const float v = static_cast<float>(in_values[i]);
      std::memcpy(input.data() + 4 * i, &v, 4);
    } else {
      std::memcpy(input.data() + 8 * i, &in_values[i], 8);
    }
  }
  const std::vector<char> input_copy = input;
  std::vector<char> output(out_count * FftOutputElementBytes(config), 0x5a);
  std::vector<char> workspace(FftWorkspaceBytes(config) + 1);
  absl::StatusOr<std::unique_ptr<HostFftPlan>> plan = HostFftPlan::Create(config, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  (*plan)->Execute(input.data(), output.data(), workspace.data(), pool);
  EXPECT_EQ(input, input_copy) << "the input was written";

  const bool complex_out = c.type != FftType::kIrfft;
  const int64_t out_last = FftOutputDims(config).back();
  double scale = 0, worst = 0;
  for (int64_t i = 0, o = 0; i < c.batch * n; ++i) {
    if (i % c.lengths.back() >= out_last) continue;
    const C want = want_full[i];
    C got;
    auto read = [&](int64_t k) {
      if (f32) {
        float v;
        std::memcpy(&v, output.data() + 4 * k, 4);
        return static_cast<double>(v);
      }
      double v;
      std::memcpy(&v, output.data() + 8 * k, 8);
      return v;
    };
    got = complex_out ? C(read(2 * o), read(2 * o + 1)) : C(read(o), 0);
    scale = std::max(scale, std::abs(want));
    worst = std::max(worst, std::abs(got - (complex_out ? want : C(want.real(), 0))));
    ++o;
  }
  ASSERT_GT(scale, 0);
  const double tolerance = f32 ? 2e-5 : 1e-12;
  EXPECT_LE(worst / scale, tolerance) << "largest error " << worst << " of " << scale;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::vector<std::vector<int64_t>> shapes = {
      {15}, {33}, {1000}, {16}, {1}, {5, 33}, {8, 6}, {3, 4, 7}, {4, 5, 6},
      // Powers of two (LaneFft passes), in lines that fill no whole block.
      {2}, {256}, {5, 64}, {2, 4, 8}, {16, 32},
      // A user's RFFT and IRFFT length (its last pass on a 2048-point
      // LaneFft).
      {4096},
      // Lengths with a prime factor above 5 (BluesteinFft passes): a
      // prime, one past the padded length's halving point, both axes.
      {1009}, {97}, {7, 11},
      // Lengths with factors 3 and 5 (mixed-radix LaneFft passes; as a
      // real transform's last axis, a half of 15, 5, 1536 or 500 points),
      // 2-D and 3-D.
      {3}, {5}, {45}, {375}, {30}, {10}, {3072}, {15, 12}, {3, 5, 9}, {6, 10, 4}};
  for (FftPrecision p : {FftPrecision::kF32, FftPrecision::kF64}) {
    for (FftType t : {FftType::kFft, FftType::kIfft, FftType::kRfft, FftType::kIrfft}) {
      for (const auto& lengths : shapes) {
        int64_t n = 1;
        for (int64_t l : lengths) n *= l;
        cases.push_back({t, p, lengths, n >= 1000 ? 2 : 3});
      }
    }
  }
  return cases;
}

TEST(HostFft, EveryTypeAndRankMatchesTheDftOnTheCaller) {
  for (const Case& c : Cases()) Check(c, nullptr);
}

TEST(HostFft, EveryTypeAndRankMatchesTheDftOnAPool) {
  HostThreadPool pool(3);
  for (const Case& c : Cases()) Check(c, &pool);
}

// Large enough to cut into ranges: the pooled result is bitwise the
// caller's (every line computes the same way wherever it runs).
TEST(HostFft, PoolAndCallerAgreeBitwise) {
  const std::vector<FftConfig> configs = {
      {FftType::kFft, FftPrecision::kF32, {12, 66}, 40},
      {FftType::kIrfft, FftPrecision::kF32, {12, 66}, 40},
      {FftType::kFft, FftPrecision::kF32, {16, 64}, 41},  // LaneFft, 82 blocks per pass
      {FftType::kIfft, FftPrecision::kF32, {1024}, 67},   // LaneFft, a partial last block
      {FftType::kIrfft, FftPrecision::kF32, {4096}, 37},  // real LaneFft (merge + inverse)
      {FftType::kIrfft, FftPrecision::kF32, {6, 128}, 13},  // Eigen, then real LaneFft
      {FftType::kFft, FftPrecision::kF32, {1009}, 45},  // BluesteinFft, a partial last block
      {FftType::kFft, FftPrecision::kF32, {96, 120}, 5},  // mixed-radix LaneFft, both axes
      {FftType::kRfft, FftPrecision::kF32, {60, 1000}, 3},  // real LaneFft of 500, then 60
      {FftType::kIfft, FftPrecision::kF32, {int64_t{1} << 15}, 5},  // FourStepFft
  };
  for (const FftConfig& config : configs) {
    const FftType t = config.type;
    std::vector<float> in(FftInputElements(config) * (t == FftType::kRfft ? 1 : 2));
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& v : in) v = dist(gen);
    std::vector<char> a(FftOutputElements(config) * FftOutputElementBytes(config));
    std::vector<char> b = a;
    std::vector<char> ws(FftWorkspaceBytes(config) + 1);
    auto plan = HostFftPlan::Create(config, 1);
    ASSERT_TRUE(plan.ok());
    HostThreadPool pool(3);
    (*plan)->Execute(in.data(), a.data(), ws.data(), nullptr);
    (*plan)->Execute(in.data(), b.data(), ws.data(), &pool);
    EXPECT_EQ(a, b) << FftConfigToString(config);
  }
}

// One plan run from several threads at once (each on the shared pool)
// gives every thread the serial result: concurrent Executes never share an
// engine.
// Run for an Eigen plan (real input) and a LaneFft one (c128, both axes).
void CheckConcurrentExecutes(const FftConfig& config) {
  SCOPED_TRACE(FftConfigToString(config));
  std::vector<double> in(FftInputElements(config) * (config.type == FftType::kRfft ? 1 : 2));
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (double& v : in) v = dist(gen);
  const size_t out_bytes = FftOutputElements(config) * FftOutputElementBytes(config);
  auto plan = HostFftPlan::Create(config, 1);
  ASSERT_TRUE(plan.ok());
  std::vector<char> want(out_bytes);
  (*plan)->Execute(in.data(), want.data(), nullptr, nullptr);
  HostThreadPool pool(2);
  constexpr int kThreads = 4;
  std::vector<std::vector<char>> got(kThreads, std::vector<char>(out_bytes));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        (*plan)->Execute(in.data(), got[t].data(), nullptr, &pool);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], want) << "thread " << t;
}

TEST(HostFft, ConcurrentExecutesOfOnePlanAgree) {
  CheckConcurrentExecutes({FftType::kRfft, FftPrecision::kF64, {6, 35}, 24});
  CheckConcurrentExecutes({FftType::kFft, FftPrecision::kF64, {32, 128}, 9});
  CheckConcurrentExecutes({FftType::kIrfft, FftPrecision::kF64, {4096}, 13});
  CheckConcurrentExecutes({FftType::kIfft, FftPrecision::kF32, {1009}, 37});
}

// An IRFFT reads only the real parts of the DC and Nyquist terms: a half
// spectrum X[0] = a + ib, X[n/2] = c + id, zero elsewhere, is the real line
// x[j] = (a + c (-1)^j) / n (hand-computed) whatever b and d are. Run for
// lengths on the real LaneFft (8, 4096) and on Eigen (10), f32 and f64.
TEST(HostFft, IrfftIgnoresTheImaginaryPartsOfDcAndNyquist) {
  for (FftPrecision p : {FftPrecision::kF32, FftPrecision::kF64}) {
    for (int64_t n : {int64_t{8}, int64_t{4096}, int64_t{10}}) {
      SCOPED_TRACE(n);
      const int64_t batch = 3, h = n / 2 + 1;
      FftConfig config{FftType::kIrfft, p, {n}, batch};
      std::vector<C> in(batch * h, C(0, 0));
      for (int64_t b = 0; b < batch; ++b) {
        in[b * h] = C(1.5 + b, 7.0 - b);
        in[b * h + n / 2] = C(-0.75 * (b + 1), 3.25);
      }
      auto plan = HostFftPlan::Create(config, 1);
      ASSERT_TRUE(plan.ok());
      std::vector<double> got(batch * n);
      if (p == FftPrecision::kF32) {
        std::vector<std::complex<float>> in32(in.begin(), in.end());
        std::vector<float> out32(batch * n);
        (*plan)->Execute(in32.data(), out32.data(), nullptr, nullptr);
        got.assign(out32.begin(), out32.end());
      } else {
        (*plan)->Execute(in.data(), got.data(), nullptr, nullptr);
      }
      double worst = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const double a = in[b * h].real(), c = in[b * h + n / 2].real();
        for (int64_t j = 0; j < n; ++j) {
          const double want = (a + (j % 2 == 0 ? c : -c)) / static_cast<double>(n);
          worst = std::max(worst, std::abs(got[b * n + j] - want));
        }
      }
      EXPECT_LE(worst, p == FftPrecision::kF32 ? 1e-6 : 1e-14);
    }
  }
}

// Lengths around kLaneFftMaxLength (LaneFft below and at it, FourStepFft
// past it: 2^15 and 3 2^14; a prime past 8192, on BluesteinFft over a
// FourStepFft), checked on pure tones: line b's input exp(2 pi i k_b j / n)
// has the spectrum n at k_b and 0 elsewhere (a hand-computed oracle, cheap
// at any n).
TEST(HostFft, PureTonesAroundTheLaneFftCap) {
  for (int64_t n : {int64_t{4096}, kLaneFftMaxLength, 2 * kLaneFftMaxLength,
                    3 * kLaneFftMaxLength, int64_t{8209}}) {
    SCOPED_TRACE(n);
    const int64_t batch = 3;
    FftConfig config{FftType::kFft, FftPrecision::kF64, {n}, batch};
    std::vector<C> in(batch * n), out(batch * n);
    const int64_t tone[batch] = {1, n / 3, n - 5};
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < n; ++j) {
        in[b * n + j] = std::polar(1.0, 2 * M_PI * static_cast<double>((tone[b] * j) % n) / n);
      }
    }
    auto plan = HostFftPlan::Create(config, 1);
    ASSERT_TRUE(plan.ok());
    HostThreadPool pool(2);
    (*plan)->Execute(in.data(), out.data(), nullptr, &pool);
    double worst = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t k = 0; k < n; ++k) {
        const C want = k == tone[b] ? C(static_cast<double>(n), 0) : C(0, 0);
        worst = std::max(worst, std::abs(out[b * n + k] - want));
      }
    }
    EXPECT_LE(worst / n, 1e-12);
  }
}

// A batch of one long line (FourStepFft): on a pool, each line's two
// rounds are split into ranges of groups over the threads; the result is
// bitwise the caller-only one, and the DFT at a sample of outputs
// (hand-checked by the definition in double). c64 and c128, forward and
// inverse, 2^16 and 5 2^14 (a partial group in neither) and 3 5^6 (n2
// not a multiple of 8).
TEST(HostFft, ALongLineSplitsItsRoundsAcrossThePool) {
  for (FftPrecision p : {FftPrecision::kF32, FftPrecision::kF64}) {
    for (int64_t n : {int64_t{1} << 16, int64_t{5} << 14, int64_t{3} * 15625}) {
      for (FftType t : {FftType::kFft, FftType::kIfft}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " f64 " << (p == FftPrecision::kF64)
                                        << " inverse " << (t == FftType::kIfft));
        const bool f32 = p == FftPrecision::kF32;
        FftConfig config{t, p, {n}, 1};
        std::mt19937 gen(static_cast<unsigned>(n));
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<C> x(n);
        for (C& v : x) v = C(u(gen), u(gen));
        // The input in the plan's precision.
        std::vector<char> in(n * (f32 ? 8 : 16)), alone(in.size()), pooled(in.size());
        for (int64_t j = 0; j < n; ++j) {
          if (f32) {
            const std::complex<float> v(static_cast<float>(x[j].real()), static_cast<float>(x[j].imag()));
            std::memcpy(in.data() + 8 * j, &v, 8);
            x[j] = C(v.real(), v.imag());
          } else {
            std::memcpy(in.data() + 16 * j, &x[j], 16);
          }
        }
        auto plan = HostFftPlan::Create(config, 1);
        ASSERT_TRUE(plan.ok());
        (*plan)->Execute(in.data(), alone.data(), nullptr, nullptr);
        HostThreadPool pool(3);
        (*plan)->Execute(in.data(), pooled.data(), nullptr, &pool);
        ASSERT_EQ(std::memcmp(alone.data(), pooled.data(), in.size()), 0);
        auto got = [&](int64_t k) {
          if (!f32) {
            C v;
            std::memcpy(&v, pooled.data() + 16 * k, 16);
            return v;
          }
          std::complex<float> v;
          std::memcpy(&v, pooled.data() + 8 * k, 8);
          return C(v.real(), v.imag());
        };
        const bool inverse = t == FftType::kIfft;
        double worst = 0, scale = 0;
        for (int64_t k : {int64_t{0}, int64_t{1}, n / 3, n / 2 + 7, n - 1}) {
          C want = 0;
          for (int64_t j = 0; j < n; ++j) {
            const double phase = static_cast<double>((j * k) % n) / static_cast<double>(n);
            want += x[j] * std::polar(1.0, (inverse ? 2 : -2) * M_PI * phase);
          }
          if (inverse) want /= static_cast<double>(n);
          worst = std::max(worst, std::abs(got(k) - want));
          scale = std::max(scale, std::abs(want));
        }
        EXPECT_LE(worst / scale, f32 ? 2e-5 : 1e-12);
      }
    }
  }
}

// Real transforms whose last pass runs on FourStepFft (a half of 2^15 or
// 3 2^14 points), f32 and f64, on pure cosines: the real line
// cos(2 pi t j / n) has the half spectrum n/2 at t and 0 elsewhere
// (hand-computed; t in (0, n/2)), and the IRFFT of that half spectrum is the
// cosine again.
TEST(HostFft, LongRealTransformsOnPureCosines) {
  for (FftPrecision p : {FftPrecision::kF32, FftPrecision::kF64}) {
    for (int64_t n : {int64_t{1} << 16, 6 * kLaneFftMaxLength}) {
      SCOPED_TRACE(testing::Message() << n << (p == FftPrecision::kF32 ? " f32" : " f64"));
      const int64_t batch = 3, h = n / 2 + 1;
      const int64_t tone[batch] = {1, n / 7, n / 2 - 3};
      std::vector<double> line(batch * n);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t j = 0; j < n; ++j) {
          line[b * n + j] = std::cos(2 * M_PI * static_cast<double>((tone[b] * j) % n) / n);
        }
      }
      std::vector<C> spectrum(batch * h, C(0, 0));
      for (int64_t b = 0; b < batch; ++b) spectrum[b * h + tone[b]] = C(n / 2.0, 0);
      auto rfft = HostFftPlan::Create({FftType::kRfft, p, {n}, batch}, 1);
      auto irfft = HostFftPlan::Create({FftType::kIrfft, p, {n}, batch}, 1);
      ASSERT_TRUE(rfft.ok() && irfft.ok());
      HostThreadPool pool(2);
      std::vector<C> got_spectrum(batch * h);
      std::vector<double> got_line(batch * n);
      if (p == FftPrecision::kF32) {
        std::vector<float> line32(line.begin(), line.end()), back32(batch * n);
        std::vector<std::complex<float>> spectrum32(batch * h), in32(spectrum.begin(), spectrum.end());
        (*rfft)->Execute(line32.data(), spectrum32.data(), nullptr, &pool);
        (*irfft)->Execute(in32.data(), back32.data(), nullptr, &pool);
        got_spectrum.assign(spectrum32.begin(), spectrum32.end());
        got_line.assign(back32.begin(), back32.end());
      } else {
        (*rfft)->Execute(line.data(), got_spectrum.data(), nullptr, &pool);
        (*irfft)->Execute(spectrum.data(), got_line.data(), nullptr, &pool);
      }
      double worst_spectrum = 0, worst_line = 0;
      for (int64_t i = 0; i < batch * h; ++i) {
        worst_spectrum = std::max(worst_spectrum, std::abs(got_spectrum[i] - spectrum[i]));
      }
      for (int64_t i = 0; i < batch * n; ++i) {
        worst_line = std::max(worst_line, std::abs(got_line[i] - line[i]));
      }
      const double tolerance = p == FftPrecision::kF32 ? 1e-5 : 1e-12;
      EXPECT_LE(worst_spectrum / (n / 2.0), tolerance);
      EXPECT_LE(worst_line, 10 * tolerance);
    }
  }
}

// Which lengths take BluesteinFft: a prime factor above 5, and a padded
// length (the next length with no prime factor above 5 at least 2n - 1)
// within kFourStepMaxLength.
TEST(HostFft, BluesteinLengths) {
  EXPECT_EQ(BluesteinPaddedLength(1009), 2025);  // 3^4 5^2 >= 2017
  EXPECT_EQ(BluesteinPaddedLength(1024), 2048);
  EXPECT_EQ(BluesteinPaddedLength(7), 15);
  for (int64_t n : {7, 33, 77, 1009, 3 * 1009, 8191, 8209, 7 << 20}) {
    EXPECT_TRUE(IsBluesteinLength(n)) << n;
  }
  // kissfft's radices, powers of two, 1, and lengths past the cap.
  for (int64_t n : {1, 2, 15, 1000, 3072, 4096, 7 << 25}) EXPECT_FALSE(IsBluesteinLength(n)) << n;
}

TEST(HostFft, CreateRefusesABadConfig) {
  absl::StatusOr<std::unique_ptr<HostFftPlan>> plan =
      HostFftPlan::Create({FftType::kFft, FftPrecision::kF32, {4, 4, 4, 4}, 1}, 1);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("1 to 3 entries"), std::string::npos) << plan.status();
  plan = HostFftPlan::Create({FftType::kFft, FftPrecision::kF32, {0}, 1}, 1);
  EXPECT_FALSE(plan.ok());
}

TEST(HostFft, CheckFftBuffersNamesTheShortBufferAndOverlaps) {
  FftConfig config{FftType::kIrfft, FftPrecision::kF32, {3, 9}, 2};
  // input: 2 * 3 * 5 complex (240 bytes); output: 2 * 27 floats (216);
  // workspace: 240.
  std::vector<char> memory(2048);
  auto at = [&](int64_t offset, uint64_t size) { return DeviceMemoryBase(memory.data() + offset, size); };
  EXPECT_TRUE(CheckFftBuffers(config, at(0, 240), at(256, 216), at(512, 240)).ok());
  absl::Status s = CheckFftBuffers(config, at(0, 239), at(256, 216), at(512, 240));
  EXPECT_NE(s.message().find("input needs 240 bytes but its buffer has 239"), std::string::npos) << s;
  s = CheckFftBuffers(config, at(0, 240), at(256, 216), at(512, 100));
  EXPECT_NE(s.message().find("workspace needs 240"), std::string::npos) << s;
  s = CheckFftBuffers(config, at(0, 240), at(200, 216), at(512, 240));
  EXPECT_NE(s.message().find("output overlaps the input"), std::string::npos) << s;
}

}  // namespace
}  // namespace stream_executor::host
