// CUDA graphs on the fake driver, end to end through the public API: the
// runtime turns the artifact's five thunks into one graph at the first
// execution; later executions with other parameter and output buffers
// update the graph's nodes and give the evaluator's results; a
// deliberately skipped update (GraphRunner::SkipUpdatesForTesting) leaves
// the stale addresses in the graph and gives a wrong result; graphs off
// (ExecuteOptions::cuda_graphs) and a driver without the graph API launch
// plainly with the same results. Also the driver calls per Execute, graphs
// on and off (docs/perf.md).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/cuda_graph_test_util.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/graph_runner.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;
using testing::kGraphElems;
using testing::kGraphNodes;

constexpr uint64_t kBytes = kGraphElems * sizeof(float);

// Inputs with a salt, non-zero and all different.
std::vector<float> Values(int salt) {
  std::vector<float> v(kGraphElems);
  for (int i = 0; i < kGraphElems; ++i) v[i] = 0.25f * static_cast<float>((i * 7 + salt) % 23) + salt - 3.5f;
  return v;
}

Literal ToLiteral(const std::vector<float>& v) {
  Literal l(Shape::Array(PrimitiveType::F32, {kGraphElems}));
  for (int i = 0; i < kGraphElems; ++i) l.SetDouble(i, v[i]);
  return l;
}

// The evaluator's two results for x, y.
std::vector<Literal> Expected(const std::vector<float>& x, const std::vector<float>& y) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(testing::GraphHlo());
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  args.push_back(ToLiteral(x));
  args.push_back(ToLiteral(y));
  absl::StatusOr<Literal> want = HloEvaluator().Evaluate(**module, args);
  EXPECT_TRUE(want.ok()) << want.status();
  return *want->mutable_tuple_elements();
}

class CudaGraphsTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(se::cuda::FakeCudaDriver::Options()); }
  void TearDown() override {
    gpu::GraphRunner::SkipUpdatesForTesting(false);
    Stop();
  }

  void Start(const se::cuda::FakeCudaDriver::Options& options) {
    driver_ = std::make_unique<se::cuda::FakeCudaDriver>(options);
    testing::RegisterGraphKernels(*driver_);
    absl::Status opened = testing::OpenFakeGraphDevice(*driver_, testing::GraphArtifactBytes(), device_);
    ASSERT_TRUE(opened.ok()) << opened;
    executor_ = device_.executor;
    exe_ = device_.exe.get();
    stream_ = device_.stream.get();
  }
  void Stop() {
    keep_.clear();
    device_.Close();
    driver_.reset();
  }

  // Runs once on fresh parameter buffers, keeping them and the outputs
  // alive (so the next run gets other addresses); returns both results.
  std::vector<std::vector<float>> Run(const std::vector<float>& x, const std::vector<float>& y,
                                      bool graphs = true) {
    std::vector<ExecutionArgument> args;
    for (const std::vector<float>* v : {&x, &y}) {
      absl::StatusOr<se::OwningDeviceMemory> d = se::OwningDeviceMemory::Allocate(executor_, kBytes);
      EXPECT_TRUE(d.ok()) << d.status();
      if (!d.ok()) return {};
      EXPECT_TRUE(stream_->Memcpy(d->ptr(), v->data(), kBytes).ok());
      args.push_back(ExecutionArgument::Borrow(d->get()));
      keep_.push_back(*std::move(d));
    }
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    ExecuteOptions options;
    options.cuda_graphs = graphs;
    absl::StatusOr<std::vector<se::OwningDeviceMemory>> out = exe_->Execute(executor_, std::move(args), options);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    std::vector<std::vector<float>> results;
    for (se::OwningDeviceMemory& o : *out) {
      results.emplace_back(kGraphElems);
      EXPECT_TRUE(stream_->Memcpy(results.back().data(), o.get(), kBytes).ok());
      keep_.push_back(std::move(o));
    }
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return results;
  }

  // Whether `got` matches the evaluator for x, y (the comparison's error).
  static absl::Status Check(const std::vector<std::vector<float>>& got, const std::vector<float>& x,
                            const std::vector<float>& y) {
    const std::vector<Literal> want = Expected(x, y);
    if (got.size() != want.size()) return absl::InternalError("wrong number of outputs");
    for (size_t k = 0; k < want.size(); ++k) {
      absl::Status s = CompareOutputLeaf(want[k], ToLiteral(got[k]));
      if (!s.ok()) return absl::Status(s.code(), absl::StrCat("output ", k, ": ", s.message()));
    }
    return absl::OkStatus();
  }

  CudaGraphStats Stats() {
    absl::StatusOr<CudaGraphStats> stats = exe_->graph_stats(executor_);
    EXPECT_TRUE(stats.ok()) << stats.status();
    return stats.ok() ? *stats : CudaGraphStats();
  }

  std::unique_ptr<se::cuda::FakeCudaDriver> driver_;
  testing::FakeGraphDevice device_;
  se::StreamExecutor* executor_ = nullptr;  // device_'s
  Executable* exe_ = nullptr;
  se::Stream* stream_ = nullptr;
  std::vector<se::OwningDeviceMemory> keep_;
};

TEST_F(CudaGraphsTest, OneGraphOfFiveNodesMatchesTheEvaluatorAcrossBufferChanges) {
  CudaGraphStats stats = Stats();
  EXPECT_TRUE(stats.supported) << stats.note;
  EXPECT_EQ(stats.graphs, 1);
  EXPECT_EQ(stats.nodes, kGraphNodes);
  EXPECT_EQ(stats.instantiated, 0);  // built at the first execution

  const std::vector<float> x1 = Values(1), y1 = Values(2);
  std::vector<std::vector<float>> got = Run(x1, y1);
  EXPECT_TRUE(Check(got, x1, y1).ok()) << Check(got, x1, y1);
  EXPECT_EQ(driver_->calls("cuGraphInstantiateWithFlags"), 1);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 1);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 0);
  EXPECT_EQ(driver_->calls("cuMemsetD32Async"), 0);
  EXPECT_EQ(driver_->calls("cuMemcpyDtoDAsync_v2"), 0);

  // Other parameter and output buffers: the graph is updated, not rebuilt.
  const std::vector<float> x2 = Values(5), y2 = Values(9);
  got = Run(x2, y2);
  EXPECT_TRUE(Check(got, x2, y2).ok()) << Check(got, x2, y2);
  EXPECT_EQ(driver_->calls("cuGraphInstantiateWithFlags"), 1);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 2);
  // The three kernels read parameters or write outputs; the memset and the
  // copy touch only the temp buffer, whose address the executor's block
  // cache kept: they are not updated.
  EXPECT_EQ(driver_->calls("cuGraphExecKernelNodeSetParams_v2"), 3);
  EXPECT_EQ(driver_->calls("cuGraphExecMemsetNodeSetParams"), 0);
  EXPECT_EQ(driver_->calls("cuGraphExecMemcpyNodeSetParams"), 0);
  stats = Stats();
  EXPECT_EQ(stats.instantiated, 1);
  EXPECT_EQ(stats.instantiated_nodes, kGraphNodes);
  EXPECT_EQ(stats.node_updates, 3);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 0);
}

TEST_F(CudaGraphsTest, ASkippedUpdateReplaysTheStaleAddressesAndGivesAWrongResult) {
  const std::vector<float> x1 = Values(1), y1 = Values(2);
  std::vector<std::vector<float>> first = Run(x1, y1);
  ASSERT_TRUE(Check(first, x1, y1).ok()) << Check(first, x1, y1);
  gpu::GraphRunner::SkipUpdatesForTesting(true);
  const std::vector<float> x2 = Values(5), y2 = Values(9);
  const std::vector<std::vector<float>> stale = Run(x2, y2);
  EXPECT_FALSE(Check(stale, x2, y2).ok()) << "a graph launched without its updates must be caught";
  EXPECT_EQ(driver_->calls("cuGraphExecKernelNodeSetParams_v2"), 0);
  // The stale graph read the first run's parameters and wrote the first
  // run's outputs (kept alive): they hold the first results again.
  gpu::GraphRunner::SkipUpdatesForTesting(false);
  const std::vector<float> x3 = Values(11), y3 = Values(4);
  const std::vector<std::vector<float>> fixed = Run(x3, y3);
  EXPECT_TRUE(Check(fixed, x3, y3).ok()) << Check(fixed, x3, y3);
}

TEST_F(CudaGraphsTest, GraphsOffLaunchesEveryThunkWithTheSameResults) {
  const std::vector<float> x = Values(3), y = Values(7);
  const std::vector<std::vector<float>> on = Run(x, y, /*graphs=*/true);
  const std::vector<std::vector<float>> off = Run(x, y, /*graphs=*/false);
  EXPECT_TRUE(Check(off, x, y).ok()) << Check(off, x, y);
  ASSERT_EQ(on.size(), off.size());
  for (size_t k = 0; k < on.size(); ++k) {
    EXPECT_EQ(std::memcmp(on[k].data(), off[k].data(), kBytes), 0) << "output " << k;
  }
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 3);
  EXPECT_EQ(driver_->calls("cuMemsetD32Async"), 1);
  EXPECT_EQ(driver_->calls("cuGraphLaunch"), 1);
}

TEST_F(CudaGraphsTest, ADriverWithoutTheGraphApiRunsPlainlyWithANote) {
  Stop();
  se::cuda::FakeCudaDriver::Options options;
  options.graph_api = false;
  Start(options);
  const CudaGraphStats stats = Stats();
  EXPECT_FALSE(stats.supported);
  EXPECT_TRUE(absl::StrContains(stats.note, "no graph API (no 'cuGraphCreate')")) << stats.note;
  EXPECT_EQ(stats.graphs, 1);  // the plan does not depend on the device
  const std::vector<float> x = Values(2), y = Values(8);
  const std::vector<std::vector<float>> got = Run(x, y);
  EXPECT_TRUE(Check(got, x, y).ok()) << Check(got, x, y);
  EXPECT_EQ(driver_->calls("cuLaunchKernel"), 3);
}

// Driver calls of one warm Execute, graphs off and on, for docs/perf.md:
// a run on the same buffers as the run before (the caller freed that run's
// outputs, last first, so the executor's block cache hands the same
// addresses back: nothing to update), and a run on new parameter buffers
// while the earlier outputs are kept (new addresses everywhere but the
// temp buffer: the three kernel nodes are updated).
TEST_F(CudaGraphsTest, DriverCallsPerExecute) {
  const std::vector<float> x = Values(4), y = Values(6);
  std::map<std::string, int> counts[2][2];
  // Parameter buffers holding x and y.
  auto parameters = [&]() -> std::vector<se::DeviceMemoryBase> {
    std::vector<se::DeviceMemoryBase> out;
    for (const std::vector<float>* v : {&x, &y}) {
      absl::StatusOr<se::OwningDeviceMemory> d = se::OwningDeviceMemory::Allocate(executor_, kBytes);
      EXPECT_TRUE(d.ok());
      if (!d.ok()) return {};
      EXPECT_TRUE(stream_->Memcpy(d->ptr(), v->data(), kBytes).ok());
      out.push_back(d->get());
      keep_.push_back(*std::move(d));
    }
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return out;
  };
  // Executes on `params`; the outputs are kept or freed last first.
  auto execute = [&](const std::vector<se::DeviceMemoryBase>& params, bool graphs, bool keep) {
    std::vector<ExecutionArgument> args;
    for (const se::DeviceMemoryBase& p : params) args.push_back(ExecutionArgument::Borrow(p));
    ExecuteOptions options;
    options.cuda_graphs = graphs;
    absl::StatusOr<std::vector<se::OwningDeviceMemory>> out = exe_->Execute(executor_, std::move(args), options);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return;
    for (auto it = out->rbegin(); it != out->rend(); ++it) {
      if (keep) keep_.push_back(std::move(*it));
      *it = se::OwningDeviceMemory();
    }
  };
  for (int graphs = 0; graphs < 2; ++graphs) {
    for (int moved = 0; moved < 2; ++moved) {
      std::vector<se::DeviceMemoryBase> params = parameters();
      execute(params, graphs == 1, /*keep=*/moved == 1);  // warm
      if (moved == 1) params = parameters();
      const std::map<std::string, int> before = driver_->call_counts();
      execute(params, graphs == 1, /*keep=*/true);
      for (const auto& [call, n] : driver_->call_counts()) {
        auto it = before.find(call);
        const int delta = n - (it == before.end() ? 0 : it->second);
        if (delta > 0) counts[graphs][moved][call] = delta;
      }
      keep_.clear();
    }
  }
  for (int graphs = 0; graphs < 2; ++graphs) {
    for (int moved = 0; moved < 2; ++moved) {
      int total = 0;
      std::string line;
      for (const auto& [call, n] : counts[graphs][moved]) {
        total += n;
        absl::StrAppend(&line, " ", call, "=", n);
      }
      std::printf("graphs %s, %s: %d driver calls:%s\n", graphs ? "on " : "off",
                  moved ? "new buffers " : "same buffers", total, line.c_str());
    }
  }
  auto get = [&](int g, int m, const char* call) {
    auto it = counts[g][m].find(call);
    return it == counts[g][m].end() ? 0 : it->second;
  };
  // Off: one call per thunk. On: one launch, plus an update per node whose
  // buffers moved.
  for (int moved = 0; moved < 2; ++moved) {
    EXPECT_EQ(get(0, moved, "cuLaunchKernel"), 3);
    EXPECT_EQ(get(0, moved, "cuMemsetD32Async"), 1);
    EXPECT_EQ(get(0, moved, "cuMemcpyDtoDAsync_v2"), 1);
    EXPECT_EQ(get(1, moved, "cuGraphLaunch"), 1);
    EXPECT_EQ(get(1, moved, "cuLaunchKernel"), 0);
    EXPECT_EQ(get(1, moved, "cuGraphExecMemsetNodeSetParams"), 0);
    EXPECT_EQ(get(1, moved, "cuGraphExecMemcpyNodeSetParams"), 0);
  }
  EXPECT_EQ(get(1, 0, "cuGraphExecKernelNodeSetParams_v2"), 0);
  EXPECT_EQ(get(1, 1, "cuGraphExecKernelNodeSetParams_v2"), 3);
}

}  // namespace
}  // namespace xla::aot
