// Serves an MLP-like model (compiled here for the host) from 8 threads x 40
// requests, each with its own inputs, and checks every result bit for bit
// against a sequential single-thread run of the same inputs (and a few
// against the reference evaluator).
#include "examples/serving/model_server.h"

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/types/random_literal.h"

namespace xla::serving {
namespace {

// Two layers with odd sizes (batch 5, 37 -> 61 -> 11) and two results: the
// logits and the hidden activations, so results have more than one leaf.
const char kMlp[] = R"(
HloModule serving_mlp

ENTRY main {
  x = f32[5,37]{1,0} parameter(0)
  w1 = f32[37,61]{1,0} parameter(1)
  b1 = f32[61]{0} parameter(2)
  w2 = f32[61,11]{1,0} parameter(3)
  b2 = f32[11]{0} parameter(4)
  d1 = f32[5,61]{1,0} dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb1 = f32[5,61]{1,0} broadcast(b1), dimensions={1}
  a1 = f32[5,61]{1,0} add(d1, bb1)
  h = f32[5,61]{1,0} tanh(a1)
  d2 = f32[5,11]{1,0} dot(h, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb2 = f32[5,11]{1,0} broadcast(b2), dimensions={1}
  logits = f32[5,11]{1,0} add(d2, bb2)
  ROOT out = (f32[5,11]{1,0}, f32[5,61]{1,0}) tuple(logits, h)
}
)";

constexpr int kThreads = 8;
constexpr int kPerThread = 40;
constexpr int kRequests = kThreads * kPerThread;

std::unique_ptr<aot::Executable> CompileMlp() {
  aot::CompileOptions options;
  options.source_name = "serving_mlp.hlo";
  options.host_cpu_variants = {};  // one build of the kernels: a faster test
  absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(kMlp, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(compiled->bytes);
  EXPECT_TRUE(exe.ok()) << exe.status();
  return exe.ok() ? std::move(*exe) : nullptr;
}

// Request r's inputs, from seeds no other request uses.
std::vector<std::vector<Literal>> DrawRequests(const ProgramShape& shape, int count) {
  std::vector<std::vector<Literal>> requests(count);
  for (int r = 0; r < count; ++r) {
    for (size_t i = 0; i < shape.parameters.size(); ++i) {
      absl::StatusOr<Literal> v = MakeRandomLiteral(shape.parameters[i], 7919 * (r + 1) + i);
      EXPECT_TRUE(v.ok()) << v.status();
      requests[r].push_back(v.ok() ? std::move(*v) : Literal());
    }
  }
  return requests;
}

bool BitIdentical(const std::vector<Literal>& a, const std::vector<Literal>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ShapesCompatible(a[i].shape(), b[i].shape())) return false;
    if (!std::equal(a[i].data().begin(), a[i].data().end(), b[i].data().begin(), b[i].data().end())) return false;
  }
  return true;
}

class ModelServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::unique_ptr<aot::Executable> exe = CompileMlp();
    ASSERT_NE(exe, nullptr);
    absl::StatusOr<std::unique_ptr<ModelServer>> server = ModelServer::Create(std::move(exe));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  std::unique_ptr<ModelServer> server_;
};

TEST_F(ModelServerTest, ConcurrentRequestsMatchASequentialRun) {
  const std::vector<std::vector<Literal>> requests = DrawRequests(server_->program_shape(), kRequests);
  // The reference: every request run alone, one after another, through the
  // other request path (ExecuteOnLiterals, its own stream per call).
  std::vector<std::vector<Literal>> want(kRequests);
  for (int r = 0; r < kRequests; ++r) {
    absl::StatusOr<std::vector<Literal>> out =
        aot::ExecuteOnLiterals(server_->executable(), server_->device(), requests[r]);
    ASSERT_TRUE(out.ok()) << "request " << r << ": " << out.status();
    want[r] = std::move(*out);
  }
  std::vector<std::unique_ptr<ModelServer::Session>> sessions;
  for (int t = 0; t < kThreads; ++t) {
    absl::StatusOr<std::unique_ptr<ModelServer::Session>> s = server_->NewSession();
    ASSERT_TRUE(s.ok()) << s.status();
    sessions.push_back(std::move(*s));
  }
  std::vector<absl::StatusOr<std::vector<Literal>>> got(kRequests, absl::UnknownError("not served"));
  std::vector<int> served_by(kRequests, -1);
  const PoolTiming timing = RunOnThreads(kThreads, kRequests, [&](int worker, int64_t r) {
    got[r] = sessions[worker]->Run(requests[r]);
    served_by[r] = worker;
  });
  ASSERT_EQ(timing.latency_seconds.size(), static_cast<size_t>(kRequests));
  EXPECT_GT(timing.wall_seconds, 0);
  std::set<int> workers;
  for (int r = 0; r < kRequests; ++r) {
    ASSERT_TRUE(got[r].ok()) << "request " << r << ": " << got[r].status();
    ASSERT_EQ(got[r]->size(), 2u);
    EXPECT_TRUE(BitIdentical(*got[r], want[r])) << "request " << r << " differs from its sequential run";
    EXPECT_GT(timing.latency_seconds[r], 0) << r;
    workers.insert(served_by[r]);
  }
  EXPECT_GT(workers.size(), 1u) << "all requests ran on one worker";
  // Distinct inputs gave distinct results (no request saw another's data).
  for (int r = 1; r < kRequests; ++r) EXPECT_FALSE(BitIdentical(*got[r], *got[r - 1])) << r;
}

TEST_F(ModelServerTest, ResultsMatchTheEvaluator) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kMlp);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<std::vector<Literal>> requests = DrawRequests(server_->program_shape(), 3);
  absl::StatusOr<std::unique_ptr<ModelServer::Session>> session = server_->NewSession();
  ASSERT_TRUE(session.ok()) << session.status();
  HloEvaluator evaluator;
  for (const std::vector<Literal>& request : requests) {
    absl::StatusOr<Literal> want = evaluator.Evaluate(**module, request);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::vector<Literal>> got = (*session)->Run(request);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(want->tuple_elements().size(), got->size());
    for (size_t i = 0; i < got->size(); ++i) {
      const absl::Status cmp = CompareOutputLeaf(want->tuple_elements()[i], (*got)[i]);
      EXPECT_TRUE(cmp.ok()) << "leaf " << i << ": " << cmp;
    }
  }
}

TEST_F(ModelServerTest, BadInputsFailThatRequestOnly) {
  std::vector<std::vector<Literal>> requests = DrawRequests(server_->program_shape(), 1);
  absl::StatusOr<std::unique_ptr<ModelServer::Session>> session = server_->NewSession();
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Literal> wrong_shape = DrawRequests(server_->program_shape(), 1)[0];
  absl::StatusOr<Literal> b1 = MakeRandomLiteral(Shape::Array(PrimitiveType::F32, {59}), 3);
  ASSERT_TRUE(b1.ok());
  wrong_shape[2] = std::move(*b1);
  absl::StatusOr<std::vector<Literal>> out = (*session)->Run(wrong_shape);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("input 2 has shape f32[59] but parameter 2"), std::string::npos)
      << out.status();
  out = (*session)->Run(absl::MakeConstSpan(requests[0]).subspan(0, 4));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("the model takes 5 inputs, got 4"), std::string::npos) << out.status();
  // The session still serves.
  out = (*session)->Run(requests[0]);
  EXPECT_TRUE(out.ok()) << out.status();
}

TEST(RunOnThreadsTest, EveryRequestOnceOnAtMostThreadsWorkers) {
  for (int threads : {1, 3, 7}) {
    for (int64_t requests : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{101}}) {
      std::vector<std::atomic<int>> calls(static_cast<size_t>(requests));
      std::atomic<int> max_worker{-1};
      const PoolTiming t = RunOnThreads(threads, requests, [&](int worker, int64_t r) {
        calls[static_cast<size_t>(r)].fetch_add(1);
        int seen = max_worker.load();
        while (worker > seen && !max_worker.compare_exchange_weak(seen, worker)) {
        }
      });
      EXPECT_EQ(t.latency_seconds.size(), static_cast<size_t>(requests));
      for (int64_t r = 0; r < requests; ++r) EXPECT_EQ(calls[r].load(), 1) << threads << " " << r;
      EXPECT_LT(max_worker.load(), std::min<int64_t>(threads, std::max<int64_t>(requests, 1)));
    }
  }
}

}  // namespace
}  // namespace xla::serving
