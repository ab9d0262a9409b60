// ThunkTracer through SequentialThunk on the host platform: intervals are
// stamped on the streams (a thunk whose stream work sleeps lasts at least
// that long although its enqueue is instant), nesting is recorded, children
// lie inside their parents across streams, and no tracer means no events.
#include "xla/backends/gpu/runtime/thunk_trace.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/sequential_thunk.h"
#include "xla/stream_executor/platform_registry.h"

namespace xla::gpu {
namespace {

constexpr int64_t kSleepMs = 15;

stream_executor::StreamExecutor* HostExecutor() {
  return stream_executor::PlatformRegistry::GetPlatform("host").value()->GetDevice(0).value();
}

// Enqueues a host callback that sleeps kSleepMs and counts its runs.
class SleepThunk : public Thunk {
 public:
  SleepThunk(Kind kind, std::string annotation, int64_t stream, std::atomic<int>* runs)
      : Thunk(kind, ThunkInfo{stream, std::move(annotation)}), runs_(runs) {}
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override {
    std::atomic<int>* runs = runs_;
    return stream(params)->DoHostCallback([runs]() -> absl::Status {
      std::this_thread::sleep_for(std::chrono::milliseconds(kSleepMs));
      ++*runs;
      return absl::OkStatus();
    });
  }
  absl::StatusOr<ThunkProto> ToProto() const override { return InfoProto(); }

 private:
  std::atomic<int>* runs_;  // shared by thunks on both streams
};

struct Fixture {
  std::vector<std::unique_ptr<stream_executor::Stream>> streams;
  std::vector<stream_executor::Stream*> ptrs;
  Fixture() {
    for (int i = 0; i < 2; ++i) {
      streams.push_back(HostExecutor()->CreateStream().value());
      ptrs.push_back(streams.back().get());
    }
  }
  ExecuteParams Params(ThunkTracer* tracer) {
    ExecuteParams p;
    p.executor = HostExecutor();
    p.streams = ptrs;
    p.tracer = tracer;
    return p;
  }
  void Wait() {
    for (auto* s : ptrs) ASSERT_TRUE(s->BlockHostUntilDone().ok());
  }
};

// root: [kernel "a" (s0), sequential "inner" (s0): [copy "b" (s1), gemm "c" (s0)], memset "" (s0)]
std::unique_ptr<SequentialThunk> MakeTree(std::atomic<int>* runs) {
  std::vector<std::unique_ptr<Thunk>> inner;
  inner.push_back(std::make_unique<SleepThunk>(Thunk::Kind::kCopy, "b", 1, runs));
  inner.push_back(std::make_unique<SleepThunk>(Thunk::Kind::kGemm, "c", 0, runs));
  std::vector<std::unique_ptr<Thunk>> top;
  top.push_back(std::make_unique<SleepThunk>(Thunk::Kind::kKernel, "a", 0, runs));
  top.push_back(std::make_unique<SequentialThunk>(ThunkInfo{0, "inner"}, std::move(inner)));
  top.push_back(std::make_unique<SleepThunk>(Thunk::Kind::kMemset, "", 0, runs));
  return std::make_unique<SequentialThunk>(ThunkInfo{0, "root"}, std::move(top));
}

TEST(ThunkTrace, RecordsStreamIntervalsAndNesting) {
  std::atomic<int> runs{0};
  std::unique_ptr<SequentialThunk> root = MakeTree(&runs);
  Fixture f;
  ThunkTracer tracer;
  const int64_t before = TraceClockNs();
  ASSERT_TRUE(root->ExecuteOnStream(f.Params(&tracer)).ok());
  f.Wait();
  tracer.Finish();
  EXPECT_EQ(runs, 4);
  const auto& ev = tracer.events();
  ASSERT_EQ(ev.size(), 5u);
  // Order of enqueue: a, inner, b, c, memset.
  EXPECT_EQ(ev[0].annotation, "a");
  EXPECT_EQ(ev[0].kind, Thunk::Kind::kKernel);
  EXPECT_EQ(ev[1].kind, Thunk::Kind::kSequential);
  EXPECT_EQ(ev[2].annotation, "b");
  EXPECT_EQ(ev[2].stream_id, 1);
  EXPECT_EQ(ev[3].kind, Thunk::Kind::kGemm);
  EXPECT_EQ(ev[4].kind, Thunk::Kind::kMemset);
  const std::vector<int> depth = {0, 0, 1, 1, 0};
  const std::vector<int64_t> parent = {-1, -1, 1, 1, -1};
  for (size_t i = 0; i < ev.size(); ++i) {
    EXPECT_EQ(ev[i].depth, depth[i]) << i;
    EXPECT_EQ(ev[i].parent, parent[i]) << i;
    EXPECT_GE(ev[i].start_ns, before) << i;
    EXPECT_LE(ev[i].start_ns, ev[i].end_ns) << i;
  }
  // Leaves last at least their sleep although enqueueing them is instant:
  // the stamps ran on the stream.
  for (int i : {0, 2, 3, 4}) EXPECT_GE(ev[i].end_ns - ev[i].start_ns, kSleepMs * 1000000) << i;
  // Children inside their parent, even the one on stream 1.
  for (int i : {2, 3}) {
    EXPECT_LE(ev[1].start_ns, ev[i].start_ns);
    EXPECT_GE(ev[1].end_ns, ev[i].end_ns);
  }
  // Stream 0 runs a, then the gemm "c", then the memset in order.
  EXPECT_LE(ev[0].end_ns, ev[3].start_ns);
  EXPECT_LE(ev[3].end_ns, ev[4].start_ns);
}

TEST(ThunkTrace, NoTracerNoEventsAndClearReuses) {
  std::atomic<int> runs{0};
  std::unique_ptr<SequentialThunk> root = MakeTree(&runs);
  Fixture f;
  ASSERT_TRUE(root->ExecuteOnStream(f.Params(nullptr)).ok());
  f.Wait();
  EXPECT_EQ(runs, 4);
  ThunkTracer tracer;
  for (int round = 0; round < 2; ++round) {
    tracer.Clear();
    ASSERT_TRUE(root->ExecuteOnStream(f.Params(&tracer)).ok());
    f.Wait();
    tracer.Finish();
    EXPECT_EQ(tracer.events().size(), 5u);
    EXPECT_EQ(tracer.events()[2].depth, 1);
  }
  EXPECT_EQ(runs, 12);
}

// A failing thunk still closes its event; the status is the thunk's.
class FailThunk : public Thunk {
 public:
  FailThunk() : Thunk(Kind::kCustomCall, ThunkInfo{0, "boom"}) {}
  absl::Status ExecuteOnStream(const ExecuteParams&) const override {
    return absl::InternalError("boom failed");
  }
  absl::StatusOr<ThunkProto> ToProto() const override { return InfoProto(); }
};

TEST(ThunkTrace, FailureKeepsStatusAndClosesEvent) {
  std::vector<std::unique_ptr<Thunk>> list;
  list.push_back(std::make_unique<FailThunk>());
  std::atomic<int> runs{0};
  list.push_back(std::make_unique<SleepThunk>(Thunk::Kind::kKernel, "never", 0, &runs));
  SequentialThunk root(ThunkInfo{0, ""}, std::move(list));
  Fixture f;
  ThunkTracer tracer;
  absl::Status s = root.ExecuteOnStream(f.Params(&tracer));
  EXPECT_EQ(s.message(), "boom failed");
  f.Wait();
  tracer.Finish();
  ASSERT_EQ(tracer.events().size(), 1u);
  EXPECT_GE(tracer.events()[0].end_ns, tracer.events()[0].start_ns);
  EXPECT_GE(tracer.events()[0].start_ns, 0);
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace xla::gpu
