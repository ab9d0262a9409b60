// GEMMs inside CUDA graphs on the fake driver, end to end: a kernel, a
// cuBLAS GEMM and a kernel on one stream are ONE graph (the GEMM a child
// graph captured from the fake cuBLAS); the results match the evaluator;
// when the GEMM's output and operand buffers move, the runtime captures
// that one call again and swaps its child node (a skipped update leaves
// the GEMM writing the old output, which the test catches); a driver
// without the capture API runs the GEMM plainly between plain launches;
// and the driver calls per Execute (docs/perf.md).
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/cuda_graph_test_util.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/graph_runner.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cublas.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;
using testing::kGemmK;
using testing::kGemmM;
using testing::kGemmN;

constexpr int kOutElems = kGemmM * kGemmN;

// x (5x7) and y (7x3), non-zero and different per salt.
std::vector<std::vector<float>> Inputs(int salt) {
  std::vector<float> x(kGemmM * kGemmK), y(kGemmK * kGemmN);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.125f * static_cast<float>((i * 5 + salt) % 17) - 1.0f;
  for (size_t i = 0; i < y.size(); ++i) y[i] = 0.25f * static_cast<float>((i * 3 + salt) % 11) + 0.5f;
  return {x, y};
}

Literal ToLiteral(const std::vector<float>& v, int64_t rows, int64_t cols) {
  Literal l(Shape::Array(PrimitiveType::F32, {rows, cols}));
  for (size_t i = 0; i < v.size(); ++i) l.SetDouble(static_cast<int64_t>(i), v[i]);
  return l;
}

// Whether `got` (out0, out1) matches the evaluator on `in`.
absl::Status Check(const std::vector<std::vector<float>>& got,
                   const std::vector<std::vector<float>>& in) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(testing::GemmGraphHlo());
  if (!module.ok()) return module.status();
  std::vector<Literal> args;
  args.push_back(ToLiteral(in[0], kGemmM, kGemmK));
  args.push_back(ToLiteral(in[1], kGemmK, kGemmN));
  absl::StatusOr<Literal> want = HloEvaluator().Evaluate(**module, args);
  if (!want.ok()) return want.status();
  if (got.size() != 2) return absl::InternalError("wrong number of outputs");
  for (int k = 0; k < 2; ++k) {
    absl::Status s = CompareOutputLeaf(want->mutable_tuple_elements()->at(k),
                                       ToLiteral(got[k], kGemmM, kGemmN));
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("output ", k, ": ", s.message()));
  }
  return absl::OkStatus();
}

class CudaGraphGemmTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(se::cuda::FakeCudaDriver::Options()); }
  void TearDown() override {
    gpu::GraphRunner::SkipUpdatesForTesting(false);
    Stop();
  }

  void Start(const se::cuda::FakeCudaDriver::Options& options) {
    driver_ = std::make_unique<se::cuda::FakeCudaDriver>(options);
    cublas_ = std::make_unique<se::cuda::FakeCublas>(driver_->api());
    se::cuda::SetCublasApiForTesting(&cublas_->api());
    testing::RegisterGraphKernels(*driver_);
    absl::Status opened = testing::OpenFakeGraphDevice(*driver_, testing::GemmGraphArtifactBytes(), device_);
    ASSERT_TRUE(opened.ok()) << opened;
    executor_ = device_.executor;
    exe_ = device_.exe.get();
    stream_ = device_.stream.get();
  }
  void Stop() {
    keep_.clear();
    device_.Close();
    se::cuda::SetCublasApiForTesting(nullptr);
    cublas_.reset();
    driver_.reset();
  }

  // Executes on fresh parameter buffers holding `in`, keeping them and the
  // outputs alive (so the next run has other addresses); returns out0, out1.
  // `fresh` false: on the previous fresh run's parameter buffers (`in` is
  // ignored), and the outputs are freed last first (so the next such run
  // gets the same addresses back from the block cache).
  std::vector<std::vector<float>> Run(const std::vector<std::vector<float>>& in, bool graphs = true,
                                      bool fresh = true) {
    std::vector<ExecutionArgument> args;
    if (!fresh) {
      for (const se::DeviceMemoryBase& p : params_) args.push_back(ExecutionArgument::Borrow(p));
    }
    if (fresh) params_.clear();
    // The uploads are asynchronous: their sources must live until the wait.
    const std::vector<std::vector<float>> none;
    for (const std::vector<float>& v : fresh ? in : none) {
      const uint64_t bytes = v.size() * sizeof(float);
      absl::StatusOr<se::OwningDeviceMemory> d = se::OwningDeviceMemory::Allocate(executor_, bytes);
      EXPECT_TRUE(d.ok()) << d.status();
      if (!d.ok()) return {};
      EXPECT_TRUE(stream_->Memcpy(d->ptr(), v.data(), bytes).ok());
      args.push_back(ExecutionArgument::Borrow(d->get()));
      params_.push_back(d->get());
      keep_.push_back(*std::move(d));
    }
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    ExecuteOptions options;
    options.cuda_graphs = graphs;
    const std::map<std::string, int> before = driver_->call_counts();
    absl::StatusOr<std::vector<se::OwningDeviceMemory>> out =
        exe_->Execute(executor_, std::move(args), options);
    last_execute_calls_.clear();
    for (const auto& [call, n] : driver_->call_counts()) {
      auto it = before.find(call);
      const int delta = n - (it == before.end() ? 0 : it->second);
      if (delta > 0) last_execute_calls_[call] = delta;
    }
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    std::vector<std::vector<float>> results;
    for (se::OwningDeviceMemory& o : *out) {
      results.emplace_back(kOutElems);
      EXPECT_TRUE(stream_->Memcpy(results.back().data(), o.get(), kOutElems * sizeof(float)).ok());
    }
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    for (auto it = out->rbegin(); it != out->rend(); ++it) {
      if (fresh) keep_.push_back(std::move(*it));
      *it = se::OwningDeviceMemory();
    }
    return results;
  }

  CudaGraphStats Stats() {
    absl::StatusOr<CudaGraphStats> stats = exe_->graph_stats(executor_);
    EXPECT_TRUE(stats.ok()) << stats.status();
    return stats.ok() ? *stats : CudaGraphStats();
  }

  std::unique_ptr<se::cuda::FakeCudaDriver> driver_;
  std::unique_ptr<se::cuda::FakeCublas> cublas_;
  testing::FakeGraphDevice device_;
  se::StreamExecutor* executor_ = nullptr;  // device_'s
  Executable* exe_ = nullptr;
  se::Stream* stream_ = nullptr;
  std::vector<se::OwningDeviceMemory> keep_;
  std::vector<se::DeviceMemoryBase> params_;  // of the last fresh run (in keep_)
  // Driver calls made inside the last Run's Execute, by entry point.
  std::map<std::string, int> last_execute_calls_;
};

TEST_F(CudaGraphGemmTest, KernelGemmKernelIsOneGraphAndAMovedGemmIsRecaptured) {
  CudaGraphStats stats = Stats();
  EXPECT_TRUE(stats.supported) << stats.note;
  EXPECT_EQ(stats.graphs, 1);
  EXPECT_EQ(stats.nodes, testing::kGemmGraphNodes);

  const std::vector<std::vector<float>> in1 = Inputs(1);
  std::vector<std::vector<float>> got = Run(in1);
  EXPECT_TRUE(Check(got, in1).ok()) << Check(got, in1);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 1);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 0);
  EXPECT_EQ(driver_->calls("cuGraphAddKernelNode_v2"), 2);
  EXPECT_EQ(driver_->calls("cuGraphAddChildGraphNode"), 1);
  EXPECT_EQ(driver_->calls("cuStreamBeginCapture_v2"), 1);
  EXPECT_EQ(cublas_->recorded().size(), 1u);  // called once, at the capture

  // New parameter and output buffers: the two kernels are updated and the
  // GEMM alone captured again and swapped in; nothing is rebuilt.
  const std::vector<std::vector<float>> in2 = Inputs(6);
  got = Run(in2);
  EXPECT_TRUE(Check(got, in2).ok()) << Check(got, in2);
  EXPECT_EQ(driver_->calls("cuGraphInstantiateWithFlags"), 1);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 2);
  EXPECT_EQ(driver_->calls("cuGraphExecKernelNodeSetParams_v2"), 2);
  EXPECT_EQ(driver_->calls("cuGraphExecChildGraphNodeSetParams"), 1);
  EXPECT_EQ(driver_->calls("cuStreamBeginCapture_v2"), 2);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 0);
  EXPECT_EQ(cublas_->recorded().size(), 2u);
  stats = Stats();
  EXPECT_EQ(stats.node_updates, 3);
  EXPECT_EQ(driver_->live_graphs(), 1);  // the captured graphs were destroyed
}

TEST_F(CudaGraphGemmTest, ASkippedGemmUpdateWritesTheOldOutputAndIsCaught) {
  const std::vector<std::vector<float>> in1 = Inputs(2);
  const std::vector<std::vector<float>> first = Run(in1);
  ASSERT_TRUE(Check(first, in1).ok()) << Check(first, in1);
  gpu::GraphRunner::SkipUpdatesForTesting(true);
  const std::vector<std::vector<float>> in2 = Inputs(9);
  const std::vector<std::vector<float>> stale = Run(in2);
  EXPECT_FALSE(Check(stale, in2).ok()) << "a GEMM launched without its update must be caught";
  EXPECT_EQ(driver_->calls("cuGraphExecChildGraphNodeSetParams"), 0);
  gpu::GraphRunner::SkipUpdatesForTesting(false);
  const std::vector<std::vector<float>> in3 = Inputs(4);
  const std::vector<std::vector<float>> fixed = Run(in3);
  EXPECT_TRUE(Check(fixed, in3).ok()) << Check(fixed, in3);
}

TEST_F(CudaGraphGemmTest, WithoutTheCaptureApiOrWithGraphsOffTheGemmIsAPlainCall) {
  const std::vector<std::vector<float>> in = Inputs(3);
  const std::vector<std::vector<float>> off = Run(in, /*graphs=*/false);
  EXPECT_TRUE(Check(off, in).ok()) << Check(off, in);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 2);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 0);

  Stop();
  se::cuda::FakeCudaDriver::Options options;
  options.capture_api = false;
  Start(options);
  EXPECT_EQ(Stats().graphs, 0);  // kernel | GEMM | kernel: runs of one
  const std::vector<std::vector<float>> plain = Run(in);
  EXPECT_TRUE(Check(plain, in).ok()) << Check(plain, in);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 2);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 0);
  EXPECT_EQ(cublas_->recorded().size(), 1u);
}

// Driver calls of one Execute after a warm-up, graphs off and on, on new
// parameter and output buffers (the GEMM's buffers move) and on the same
// buffers as the run before, for docs/perf.md.
TEST_F(CudaGraphGemmTest, DriverCallsPerExecute) {
  int totals[2] = {0, 0};
  // One line of figures for the last Run's Execute; returns its total.
  auto report = [&](const char* what) {
    int total = 0;
    std::string line;
    for (const auto& [call, n] : last_execute_calls_) {
      total += n;
      absl::StrAppend(&line, " ", call, "=", n);
    }
    std::printf("%s: %d driver calls:%s\n", what, total, line.c_str());
    return total;
  };
  for (int graphs = 0; graphs < 2; ++graphs) {
    Run(Inputs(1), graphs == 1);  // warm
    Run(Inputs(2), graphs == 1);
    totals[graphs] = report(graphs ? "graphs on, new buffers" : "graphs off, new buffers");
    Run({}, graphs == 1, /*fresh=*/false);
    Run({}, graphs == 1, /*fresh=*/false);
    const int same = report(graphs ? "graphs on, same buffers" : "graphs off, same buffers");
    if (graphs == 1) {
      EXPECT_EQ(last_execute_calls_.count("cuStreamBeginCapture_v2"), 0u);
      EXPECT_EQ(last_execute_calls_["cuGraphLaunch"], 1);
      EXPECT_LT(same, totals[0]);
    }
    Run(Inputs(2), graphs == 1);  // for the figures below
  }
  // Off: two kernel launches and the GEMM's stream binding and call (the
  // fake cuBLAS enqueues through cuLaunchHostFunc). On: one graph launch,
  // two kernel-node updates, one re-capture (begin, host function, end),
  // one child-node swap and the destroy of the captured graph.
  EXPECT_EQ(last_execute_calls_["cuGraphLaunch"], 1);
  EXPECT_EQ(last_execute_calls_["cuGraphExecChildGraphNodeSetParams"], 1);
  EXPECT_GT(totals[0], 0);
  EXPECT_GT(totals[1], totals[0]);  // a moved GEMM costs a capture
}

}  // namespace
}  // namespace xla::aot
