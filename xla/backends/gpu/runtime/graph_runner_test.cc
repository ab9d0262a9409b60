// GraphPlan: which runs of thunks become CUDA graphs. Commands (PTX kernel
// launches, memsets, device-to-device copies) join runs, and GEMMs where
// the device captures them; otherwise GEMMs, host and
// registered kernels, while loops and async start/done end them; a stream
// change ends one; runs inside loop bodies and async bodies are found; a run
// of one thunk stays a plain launch. (The runner itself, on the fake driver:
// xla/aot:cuda_graphs_test and concurrent_execute_test.)
#include "xla/backends/gpu/runtime/graph_runner.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

// A PTX kernel launch (kernel 2 of the test context) on `stream`.
std::string Ptx(const std::string& name, int stream = 0) {
  return absl::StrCat("thunks { execution_stream_id: ", stream, " profile_annotation: \"", name,
                      "\" kernel { kernel_index: 2 args { allocation: 4 size: 64 } launch_dimensions "
                      "{ grid_x: 3 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }");
}
std::string Memset(const std::string& name, int stream = 0) {
  return absl::StrCat("thunks { execution_stream_id: ", stream, " profile_annotation: \"", name,
                      "\" memset { destination { allocation: 4 offset: 128 size: 64 } } }");
}
std::string Copy(const std::string& name) {
  return absl::StrCat("thunks { profile_annotation: \"", name,
                      "\" copy { source { size: 64 } destination { allocation: 2 size: 64 } } }");
}
std::string Host(const std::string& name) {
  return absl::StrCat("thunks { profile_annotation: \"", name,
                      "\" kernel { kernel_index: 0 args { allocation: 0 size: 64 } args { allocation: 1 "
                      "size: 64 } args { allocation: 2 size: 64 } launch_dimensions { grid_x: 1 grid_y: 1 "
                      "grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }");
}
std::string Gemm(const std::string& name) {
  return absl::StrCat("thunks { profile_annotation: \"", name,
                      "\" gemm { lhs { size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 "
                      "size: 64 } element_type: PRIMITIVE_TYPE_F32 m: 4 n: 4 k: 4 batch_size: 1 alpha: 1 } }");
}

// The runs of a sequence of `thunks`, as lists of profile annotations
// (`capture_library_calls`: as for a device whose graphs capture library calls).
std::vector<std::vector<std::string>> Runs(const std::string& thunks, bool capture_library_calls = false) {
  ThunkProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(absl::StrCat("sequential { ", thunks, " }"),
                                                            &proto));
  testing::ThunkTestContext ctx;
  absl::StatusOr<std::unique_ptr<Thunk>> root = ctx.Deserialize(proto);
  EXPECT_TRUE(root.ok()) << root.status();
  if (!root.ok()) return {};
  const GraphPlan plan = GraphPlan::Build(**root, capture_library_calls);
  std::vector<std::vector<std::string>> out;
  int64_t nodes = 0;
  for (const GraphRun& run : plan.runs()) {
    out.emplace_back();
    for (const std::unique_ptr<Thunk>& t : run.thunks) {
      out.back().push_back(t->info().profile_annotation);
      EXPECT_EQ(t->execution_stream_id(), run.stream_id);
    }
    EXPECT_EQ(plan.RunStartingAt(run.thunks.front().get()), static_cast<int>(out.size()) - 1);
    nodes += static_cast<int64_t>(run.thunks.size());
  }
  EXPECT_EQ(plan.num_nodes(), nodes);
  return out;
}

using Plan = std::vector<std::vector<std::string>>;

TEST(GraphPlan, KernelsMemsetsAndCopiesOnOneStreamFormOneRun) {
  EXPECT_EQ(Runs(Memset("m") + Ptx("k1") + Copy("c") + Ptx("k2")), (Plan{{"m", "k1", "c", "k2"}}));
}

TEST(GraphPlan, GemmsAndHostKernelsEndRuns) {
  EXPECT_EQ(Runs(Ptx("a") + Ptx("b") + Gemm("g") + Ptx("c") + Memset("d") + Host("h") + Ptx("e") +
                 Ptx("f")),
            (Plan{{"a", "b"}, {"c", "d"}, {"e", "f"}}));
}

TEST(GraphPlan, WhereGemmsAreCapturedTheyJoinRunsAndHostKernelsStillEndThem) {
  EXPECT_EQ(Runs(Ptx("a") + Ptx("b") + Gemm("g") + Ptx("c") + Memset("d") + Host("h") + Ptx("e") +
                     Gemm("f"),
                 /*capture_library_calls=*/true),
            (Plan{{"a", "b", "g", "c", "d"}, {"e", "f"}}));
  EXPECT_EQ(Runs(Ptx("a") + Gemm("g") + Ptx("b"), /*capture_library_calls=*/true), (Plan{{"a", "g", "b"}}));
}

TEST(GraphPlan, ARunOfOneStaysAPlainLaunch) {
  EXPECT_EQ(Runs(Ptx("a") + Gemm("g") + Ptx("b") + Host("h") + Memset("c")), Plan{});
}

TEST(GraphPlan, LoopsEndRunsAndTheirBodiesHaveTheirOwn) {
  const std::string loop = absl::StrCat(
      "thunks { profile_annotation: \"loop\" while { condition { thunks { kernel { kernel_index: 1 args "
      "{ allocation: 3 size: 4 } launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 "
      "block_z: 1 } } } } predicate { allocation: 3 size: 1 } body { ",
      Memset("body_m"), Ptx("body_k"), " } known_trip_count: 3 } }");
  EXPECT_EQ(Runs(Ptx("a") + Ptx("b") + loop + Ptx("c") + Ptx("d")),
            (Plan{{"a", "b"}, {"c", "d"}, {"body_m", "body_k"}}));
}

TEST(GraphPlan, AsyncBodiesRunOnTheirOwnStream) {
  const std::string async = absl::StrCat("thunks { async_start { async_id: 7 stream_id: 1 thunks { ",
                                         Ptx("s1", 1), Memset("s2", 1),
                                         " } } } thunks { async_done { async_id: 7 } }");
  EXPECT_EQ(Runs(Ptx("a") + async + Ptx("b") + Ptx("c")), (Plan{{"b", "c"}, {"s1", "s2"}}));
}

}  // namespace
}  // namespace xla::gpu
