// FFTs through cuFFT on the fake driver and the fake cuFFT (fake_cufft.h):
// every type in both precisions at odd lengths against a direct DFT written
// here (1-D) and against row-then-column DFTs (2-D), round trips of the
// inverses (XLA's 1/N scaling, which cuFFT leaves out), IRFFT leaving the
// program's input intact although cuFFT's C2R overwrites what it reads,
// the plan's cuFFT arguments, enqueue-time refusals, and the message when
// libcufft is missing.
#include "xla/stream_executor/cuda/cuda_fft.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_cufft.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace stream_executor::cuda {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Complex = std::complex<double>;

// Direct 1-D DFT: sign -1 forward, +1 inverse (unscaled).
std::vector<Complex> Dft(const std::vector<Complex>& x, double sign) {
  const size_t n = x.size();
  std::vector<Complex> out(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < n; ++j) {
      const double angle = sign * 2 * M_PI * static_cast<double>((j * k) % n) / n;
      out[k] += x[j] * Complex(std::cos(angle), std::sin(angle));
    }
  }
  return out;
}

// Non-zero, non-symmetric data.
std::vector<Complex> Data(size_t n, double seed) {
  std::vector<Complex> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = Complex(std::sin(seed + 0.7 * i) + 0.25, std::cos(seed * 1.3 + 0.31 * i * i) - 0.5);
  }
  return v;
}

class CudaFftTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetCufftApiForTesting(&cufft_.api());
    platform_ = std::make_unique<CudaPlatform>(&driver_.api());
    absl::StatusOr<StreamExecutor*> device = platform_->GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = *device;
    absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok());
    stream_ = *std::move(stream);
  }
  void TearDown() override {
    stream_.reset();
    SetCufftApiForTesting(nullptr);
  }

  // Packs complex (or, with `real`, the real parts) in the precision.
  static std::vector<char> Pack(const std::vector<Complex>& v, bool real, FftPrecision p) {
    const size_t scalar = p == FftPrecision::kF32 ? 4 : 8;
    const size_t per = real ? 1 : 2;
    std::vector<char> bytes(v.size() * per * scalar);
    for (size_t i = 0; i < v.size(); ++i) {
      const double parts[2] = {v[i].real(), v[i].imag()};
      for (size_t c = 0; c < per; ++c) {
        char* at = bytes.data() + (i * per + c) * scalar;
        if (scalar == 4) {
          const float f = static_cast<float>(parts[c]);
          std::memcpy(at, &f, 4);
        } else {
          std::memcpy(at, &parts[c], 8);
        }
      }
    }
    return bytes;
  }
  static std::vector<Complex> Unpack(const std::vector<char>& bytes, bool real, FftPrecision p) {
    const size_t scalar = p == FftPrecision::kF32 ? 4 : 8;
    const size_t per = real ? 1 : 2;
    std::vector<Complex> v(bytes.size() / (per * scalar));
    for (size_t i = 0; i < v.size(); ++i) {
      double parts[2] = {0, 0};
      for (size_t c = 0; c < per; ++c) {
        const char* at = bytes.data() + (i * per + c) * scalar;
        if (scalar == 4) {
          float f;
          std::memcpy(&f, at, 4);
          parts[c] = f;
        } else {
          std::memcpy(&parts[c], at, 8);
        }
      }
      v[i] = Complex(parts[0], parts[1]);
    }
    return v;
  }

  OwningDeviceMemory Upload(const std::vector<char>& host) {
    absl::StatusOr<OwningDeviceMemory> memory =
        OwningDeviceMemory::Allocate(executor_, std::max<size_t>(host.size(), 1));
    EXPECT_TRUE(memory.ok());
    if (!host.empty()) {
      EXPECT_TRUE(stream_->Memcpy(memory->ptr(), host.data(), host.size()).ok());
      EXPECT_TRUE(stream_->BlockHostUntilDone().ok());  // `host` may be a temporary
    }
    return std::move(memory).value();
  }
  std::vector<char> Download(const DeviceMemoryBase& memory, size_t bytes) {
    std::vector<char> out(bytes);
    EXPECT_TRUE(stream_->Memcpy(out.data(), memory, bytes).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return out;
  }

  // Runs `c` on `input` (complex values; the real parts for an RFFT) and
  // returns the output, checking that the input buffer is unchanged.
  std::vector<Complex> Run(const FftConfig& c, const std::vector<Complex>& input) {
    const bool real_in = c.type == FftType::kRfft;
    const bool real_out = c.type == FftType::kIrfft;
    EXPECT_EQ(input.size(), static_cast<size_t>(FftInputElements(c)));
    absl::StatusOr<std::unique_ptr<FftPlan>> plan = executor_->PrepareFft(c);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (!plan.ok()) return {};
    const std::vector<char> in_bytes = Pack(input, real_in, c.precision);
    OwningDeviceMemory in = Upload(in_bytes);
    const size_t out_bytes = FftOutputElements(c) * FftOutputElementBytes(c);
    OwningDeviceMemory out = Upload(std::vector<char>(out_bytes, 0x11));
    OwningDeviceMemory ws = Upload(std::vector<char>(FftWorkspaceBytes(c), 0x22));
    DeviceMemoryBase ws_view(ws.get().opaque, FftWorkspaceBytes(c));
    absl::Status run = stream_->Fft(**plan, in.get(), out.get(), ws_view);
    EXPECT_TRUE(run.ok()) << run;
    EXPECT_TRUE(Download(in.get(), in_bytes.size()) == in_bytes) << "the input was overwritten";
    return Unpack(Download(out.get(), out_bytes), real_out, c.precision);
  }

  static void ExpectNear(const std::vector<Complex>& got, const std::vector<Complex>& want,
                         double tolerance) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i].real(), want[i].real(), tolerance) << "at " << i;
      EXPECT_NEAR(got[i].imag(), want[i].imag(), tolerance) << "at " << i;
    }
  }

  FakeCudaDriver driver_;
  FakeCufft cufft_{driver_};
  std::unique_ptr<CudaPlatform> platform_;
  StreamExecutor* executor_ = nullptr;
  std::unique_ptr<Stream> stream_;
};

FftConfig Config(FftType type, FftPrecision precision, std::vector<int64_t> lengths,
                 int64_t batch) {
  FftConfig c;
  c.type = type;
  c.precision = precision;
  c.lengths = std::move(lengths);
  c.batch = batch;
  return c;
}

// The tolerance of each precision for these small sizes.
double Tolerance(FftPrecision p) { return p == FftPrecision::kF32 ? 2e-5 : 1e-12; }

TEST_F(CudaFftTest, FftAndIfftMatchTheDirectDftBothPrecisions) {
  for (FftPrecision p : {FftPrecision::kF32, FftPrecision::kF64}) {
    const int n = 15, batch = 3;
    const std::vector<Complex> x = Data(n * batch, 0.4);
    std::vector<Complex> forward, inverse;
    for (int b = 0; b < batch; ++b) {
      const std::vector<Complex> row(x.begin() + b * n, x.begin() + (b + 1) * n);
      for (Complex v : Dft(row, -1)) forward.push_back(v);
      for (Complex v : Dft(row, +1)) inverse.push_back(v / static_cast<double>(n));
    }
    ExpectNear(Run(Config(FftType::kFft, p, {n}, batch), x), forward, 10 * Tolerance(p));
    ExpectNear(Run(Config(FftType::kIfft, p, {n}, batch), x), inverse, Tolerance(p));
  }
}

TEST_F(CudaFftTest, RfftKeepsTheHalfSpectrumAndIrfftInvertsIt) {
  for (FftPrecision p : {FftPrecision::kF32, FftPrecision::kF64}) {
    for (int n : {15, 8}) {
      const int batch = 2, half = n / 2 + 1;
      std::vector<Complex> x = Data(n * batch, 1.1);
      for (Complex& v : x) v = v.real();
      std::vector<Complex> want;
      for (int b = 0; b < batch; ++b) {
        const std::vector<Complex> full =
            Dft(std::vector<Complex>(x.begin() + b * n, x.begin() + (b + 1) * n), -1);
        want.insert(want.end(), full.begin(), full.begin() + half);
      }
      const std::vector<Complex> spectrum = Run(Config(FftType::kRfft, p, {n}, batch), x);
      ExpectNear(spectrum, want, 10 * Tolerance(p));
      // IRFFT of the exact spectrum gives x back (XLA's 1/n scaling).
      ExpectNear(Run(Config(FftType::kIrfft, p, {n}, batch), want), x, 10 * Tolerance(p));
    }
  }
}

TEST_F(CudaFftTest, TwoDimensionsAreRowsThenColumns) {
  const int rows = 7, cols = 9;
  const std::vector<Complex> x = Data(rows * cols, 2.3);
  std::vector<Complex> want(x);
  for (int r = 0; r < rows; ++r) {
    const std::vector<Complex> row =
        Dft(std::vector<Complex>(want.begin() + r * cols, want.begin() + (r + 1) * cols), -1);
    std::copy(row.begin(), row.end(), want.begin() + r * cols);
  }
  for (int c = 0; c < cols; ++c) {
    std::vector<Complex> column(rows);
    for (int r = 0; r < rows; ++r) column[r] = want[r * cols + c];
    column = Dft(column, -1);
    for (int r = 0; r < rows; ++r) want[r * cols + c] = column[r];
  }
  const FftConfig fft = Config(FftType::kFft, FftPrecision::kF64, {rows, cols}, 1);
  ExpectNear(Run(fft, x), want, 1e-11);
  ExpectNear(Run(Config(FftType::kIfft, FftPrecision::kF64, {rows, cols}, 1), want), x, 1e-12);
}

TEST_F(CudaFftTest, TwoDimensionalRealRoundTrip) {
  const int rows = 5, cols = 6;
  std::vector<Complex> x = Data(2 * rows * cols, 0.9);
  for (Complex& v : x) v = v.real();
  const std::vector<Complex> spectrum =
      Run(Config(FftType::kRfft, FftPrecision::kF64, {rows, cols}, 2), x);
  ASSERT_EQ(spectrum.size(), static_cast<size_t>(2 * rows * (cols / 2 + 1)));
  ExpectNear(Run(Config(FftType::kIrfft, FftPrecision::kF64, {rows, cols}, 2), spectrum), x,
             1e-12);
}

TEST_F(CudaFftTest, PlanArgumentsDenseLayoutAndOwnScratch) {
  const FftConfig c = Config(FftType::kIrfft, FftPrecision::kF32, {3, 10}, 4);
  Run(c, Data(4 * 3 * 6, 0.2));
  const std::vector<FakeCufftExec> execs = cufft_.executions();
  ASSERT_EQ(execs.size(), 1u);
  const FakeCufftPlan& p = execs[0].plan;
  EXPECT_EQ(p.type, CUFFT_C2R);
  EXPECT_THAT(p.n, ElementsAre(3, 10));
  EXPECT_THAT(p.inembed, ElementsAre(3, 6));
  EXPECT_THAT(p.onembed, ElementsAre(3, 10));
  EXPECT_EQ(p.idist, 18);
  EXPECT_EQ(p.odist, 30);
  EXPECT_EQ(p.batch, 4);
  EXPECT_FALSE(p.auto_allocate);
  EXPECT_NE(p.work_area, nullptr);
  EXPECT_EQ(p.stream, reinterpret_cast<cudaStream_t>(
                          static_cast<CudaStream&>(*stream_).handle()));
  EXPECT_EQ(execs[0].direction, CUFFT_INVERSE);
  EXPECT_EQ(cufft_.live_plans(), 0);  // the plan went with Run's scope
}

// One plan on two streams: each stream gets its own scratch (cuFFT writes
// its work area), both results are right, and a stream reuses its scratch.
TEST_F(CudaFftTest, OnePlanOnTwoStreamsUsesOneScratchPerStream) {
  const FftConfig c = Config(FftType::kFft, FftPrecision::kF64, {9}, 2);
  absl::StatusOr<std::unique_ptr<FftPlan>> plan = executor_->PrepareFft(c);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::unique_ptr<Stream>> other = executor_->CreateStream();
  ASSERT_TRUE(other.ok());
  const std::vector<Complex> x = Data(18, 3.1);
  OwningDeviceMemory in = Upload(Pack(x, false, c.precision));
  OwningDeviceMemory out1 = Upload(std::vector<char>(18 * 16, 0));
  OwningDeviceMemory out2 = Upload(std::vector<char>(18 * 16, 0));
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(stream_->Fft(**plan, in.get(), out1.get(), DeviceMemoryBase()).ok());
    ASSERT_TRUE((*other)->Fft(**plan, in.get(), out2.get(), DeviceMemoryBase()).ok());
  }
  ASSERT_TRUE((*other)->BlockHostUntilDone().ok());
  std::vector<Complex> want;
  for (int b = 0; b < 2; ++b) {
    for (Complex v : Dft(std::vector<Complex>(x.begin() + 9 * b, x.begin() + 9 * (b + 1)), -1)) {
      want.push_back(v);
    }
  }
  ExpectNear(Unpack(Download(out1.get(), 18 * 16), false, c.precision), want, 1e-12);
  ExpectNear(Unpack(Download(out2.get(), 18 * 16), false, c.precision), want, 1e-12);
  // The streams' workers interleave: group the executions by stream.
  std::map<cudaStream_t, std::set<void*>> areas;
  for (const FakeCufftExec& e : cufft_.executions()) areas[e.plan.stream].insert(e.plan.work_area);
  ASSERT_EQ(areas.size(), 2u);
  const std::set<void*>& first = areas.begin()->second;
  const std::set<void*>& second = std::next(areas.begin())->second;
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(*first.begin(), nullptr);
  EXPECT_NE(*first.begin(), *second.begin());
}

TEST_F(CudaFftTest, BadBuffersAndForeignPlansAreRefusedAtEnqueue) {
  const FftConfig c = Config(FftType::kIrfft, FftPrecision::kF32, {7}, 2);
  absl::StatusOr<std::unique_ptr<FftPlan>> plan = executor_->PrepareFft(c);
  ASSERT_TRUE(plan.ok()) << plan.status();
  OwningDeviceMemory in = Upload(std::vector<char>(2 * 4 * 8, 1));
  OwningDeviceMemory out = Upload(std::vector<char>(2 * 7 * 4, 1));
  // No workspace although an IRFFT needs a copy of its input.
  absl::Status refused = stream_->Fft(**plan, in.get(), out.get(), DeviceMemoryBase());
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("fft failed"));
  EXPECT_TRUE(cufft_.executions().empty());
}

TEST_F(CudaFftTest, PlanFailureNamesTheCallAndTheConfig) {
  cufft_.FailNextPlan(CUFFT_INVALID_SIZE);
  absl::StatusOr<std::unique_ptr<FftPlan>> plan =
      executor_->PrepareFft(Config(FftType::kFft, FftPrecision::kF64, {15}, 1));
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(), HasSubstr("cufftMakePlanMany64: CUFFT_INVALID_SIZE"));
  EXPECT_THAT(plan.status().message(), HasSubstr("FFT f64"));
  EXPECT_EQ(cufft_.live_plans(), 0);
}

TEST(CufftStatusTest, CodesByTable) {
  EXPECT_TRUE(CufftStatus("x", CUFFT_SUCCESS).ok());
  EXPECT_EQ(CufftStatus("x", CUFFT_ALLOC_FAILED).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(CufftStatus("x", CUFFT_NOT_SUPPORTED).code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(CufftStatus("cufftExecC2R", CUFFT_EXEC_FAILED).message(),
            "cufftExecC2R: CUFFT_EXEC_FAILED (6)");
  EXPECT_THAT(CufftStatus("x", static_cast<cufftResult>(99)).message(), HasSubstr("99"));
}

// Without a testing table the loader looks for XLA_CUFFT_LIBRARY, which the
// BUILD rule points at a path that does not exist.
TEST(CufftMissingTest, PrepareFftNamesCufftAndTheFix) {
  FakeCudaDriver driver;
  CudaPlatform platform(&driver.api());
  absl::StatusOr<StreamExecutor*> device = platform.GetDevice(0);
  ASSERT_TRUE(device.ok());
  absl::StatusOr<std::unique_ptr<FftPlan>> plan =
      (*device)->PrepareFft(Config(FftType::kFft, FftPrecision::kF32, {15}, 1));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(plan.status().message(), HasSubstr("cannot initialize cuFFT for CUDA device 0"));
  EXPECT_THAT(plan.status().message(), HasSubstr("/nonexistent/libcufft.so"));
  EXPECT_THAT(plan.status().message(), HasSubstr("XLA_CUFFT_LIBRARY"));
}

}  // namespace
}  // namespace stream_executor::cuda
