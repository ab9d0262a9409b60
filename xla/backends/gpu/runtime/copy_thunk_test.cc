// Round trip and golden of CopyThunk, what its FromProto rejects, and
// copies with a dynamic offset run inside while thunks on the host device.
#include "xla/backends/gpu/runtime/copy_thunk.h"

#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(CopyThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("copy_thunk.textproto");
}

TEST(CopyThunk, RejectsSizeMismatch) {
  const std::string error = DeserializeError(R"pb(copy { source { allocation: 0 size: 8 } destination { allocation: 2 size: 16 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.copy: source size 8 differs from destination size 16")) << error;
}

TEST(CopyThunk, RejectsPartialOverlap) {
  const std::string error = DeserializeError(R"pb(copy { source { allocation: 4 size: 16 } destination { allocation: 4 offset: 8 size: 16 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "overlap partially")) << error;
}

// The direction follows the allocations' memory spaces (allocation 5 of
// the test context is in host memory).
TEST(CopyThunk, DirectionFollowsTheMemorySpaces) {
  struct Case {
    const char* text;
    CopyThunk::Direction direction;
  };
  const Case cases[] = {
      {R"pb(copy { source { allocation: 4 size: 16 } destination { allocation: 5 size: 16 } })pb",
       CopyThunk::Direction::kDeviceToHost},
      {R"pb(copy { source { allocation: 5 size: 16 } destination { allocation: 4 size: 16 } })pb",
       CopyThunk::Direction::kHostToDevice},
      {R"pb(copy { source { allocation: 0 size: 16 } destination { allocation: 4 size: 16 } })pb",
       CopyThunk::Direction::kDeviceToDevice},
  };
  for (const Case& c : cases) {
    ThunkProto proto;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(c.text, &proto)) << c.text;
    absl::StatusOr<std::unique_ptr<Thunk>> thunk = testing::ThunkTestContext().Deserialize(proto);
    ASSERT_TRUE(thunk.ok()) << thunk.status();
    EXPECT_EQ(static_cast<const CopyThunk&>(**thunk).direction(), c.direction) << c.text;
  }
}

TEST(CopyThunk, DynamicOffsetRoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("copy_thunk_dynamic_offset.textproto");
}

// A while thunk (trip count `trips`, or none when negative) around one copy
// of 32 bytes from allocation 4 to the host allocation 5 (256 bytes) with
// `dynamic` as its CopyDynamicOffsetProto text.
std::string LoopedCopy(int64_t trips, absl::string_view dynamic, int64_t dst_offset = 16) {
  return absl::StrCat(
      "while { predicate { allocation: 3 size: 1 } body { thunks { profile_annotation: "
      "\"stack.row\" copy { source { allocation: 4 size: 32 } destination { allocation: 5 offset: ",
      dst_offset, " size: 32 } dynamic_offset { ", dynamic, " } } } }",
      trips >= 0 ? absl::StrCat(" known_trip_count: ", trips) : "", " }");
}

TEST(CopyThunk, DynamicOffsetNeedsAnEnclosingLoop) {
  const std::string outside = DeserializeError(
      R"pb(copy { source { allocation: 4 size: 32 } destination { allocation: 5 size: 32 } dynamic_offset { destination_stride: 32 } })pb");
  EXPECT_EQ(outside,
            "thunk.copy.dynamic_offset.loop_depth: 0 is outside [0, 0): the copy runs inside 0 "
            "while thunk(s)");
  const std::string too_deep = DeserializeError(LoopedCopy(5, "loop_depth: 1 destination_stride: 32"));
  EXPECT_TRUE(absl::StrContains(
      too_deep, "thunk.while.body.thunks[0].copy.dynamic_offset.loop_depth: 1 is outside [0, 1)"))
      << too_deep;
  EXPECT_TRUE(absl::StrContains(DeserializeError(LoopedCopy(5, "loop_depth: -1")), "-1 is outside"));
}

// Well-formed and malicious: every field parses, and the last row of the
// stack (iteration 5 of 6) lies past the host allocation's 256 bytes.
TEST(CopyThunk, DynamicOffsetPastTheAllocationAtTheLastIterationIsRefused) {
  EXPECT_EQ(DeserializeError(LoopedCopy(5, "destination_stride: 48")), "");
  const std::string error = DeserializeError(LoopedCopy(6, "destination_stride: 48"));
  EXPECT_EQ(error,
            "thunk.while.body.thunks[0].copy.dynamic_offset: at iteration 5 of 6 of the while "
            "thunk thunk.while the destination window is [256, 288) of allocation 5 (256 "
            "bytes), outside its allocation");
}

TEST(CopyThunk, DynamicOffsetChecksEveryIterationBothWays) {
  // Walking down from the base, past offset 0 at iteration 3.
  const std::string down =
      DeserializeError(LoopedCopy(4, "destination_base: 16 destination_stride: -8", 0));
  EXPECT_TRUE(absl::StrContains(down, "at iteration 3 of 4") && absl::StrContains(down, "[-8, 24)"))
      << down;
  // Wrong from the start: the source of iteration 0 is before its allocation.
  const std::string first = DeserializeError(LoopedCopy(4, "source_base: -1"));
  EXPECT_TRUE(absl::StrContains(first, "at iteration 0 of 4") &&
              absl::StrContains(first, "the source window is [-1, 31)"))
      << first;
  // A stride that would overflow 64 bits is caught, not wrapped.
  const std::string huge = DeserializeError(LoopedCopy(3, "source_stride: 9223372036854775807"));
  EXPECT_TRUE(absl::StrContains(huge, "at iteration 1 of 3")) << huge;
  // A loop that never runs copies nothing, whatever the offsets.
  EXPECT_EQ(DeserializeError(LoopedCopy(0, "source_base: 100000")), "");
}

TEST(CopyThunk, DynamicOffsetFollowsTheLoopItNames) {
  // The copy follows the outer loop (3 trips): rows 0..2 of 64 bytes fit
  // in 256 bytes although the inner loop runs 100 times.
  const std::string inner = LoopedCopy(100, "loop_depth: 1 destination_stride: 64", 0);
  const std::string nested = absl::StrCat(
      "while { predicate { allocation: 3 size: 1 } body { thunks { ", inner,
      " } } known_trip_count: 3 }");
  EXPECT_EQ(DeserializeError(nested), "");
  const std::string five = absl::StrCat(
      "while { predicate { allocation: 3 size: 1 } body { thunks { ", inner,
      " } } known_trip_count: 5 }");
  EXPECT_TRUE(absl::StrContains(DeserializeError(five),
                                "at iteration 4 of 5 of the while thunk thunk.while the "
                                "destination window is [256, 288)"))
      << DeserializeError(five);
}

namespace se = ::stream_executor;

// The test context's six allocations on the host device, each filled with
// its own bytes (seeded by `seed`), and a stream to run on.
class HostBuffers {
 public:
  explicit HostBuffers(int seed) : stream_(executor_->CreateStream().value()) {
    const int64_t sizes[] = {64, 64, 64, 4, 1024, 256};
    for (int a = 0; a < 6; ++a) {
      memory_.push_back(se::OwningDeviceMemory::Allocate(executor_, sizes[a]).value());
      std::vector<unsigned char> bytes(sizes[a]);
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = (i * 37 + a * 11 + seed * 101) % 251;
      Write(a, bytes);
    }
    for (const se::OwningDeviceMemory& m : memory_) views_.push_back(m.get());
  }

  void Write(int a, const std::vector<unsigned char>& bytes) {
    se::DeviceMemoryBase view = memory_[a].get();
    ASSERT_TRUE(stream_->Memcpy(&view, bytes.data(), bytes.size()).ok());
    ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  }
  std::vector<unsigned char> Read(int a) {
    std::vector<unsigned char> bytes(memory_[a].get().size);
    EXPECT_TRUE(stream_->Memcpy(bytes.data(), memory_[a].get(), bytes.size()).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return bytes;
  }
  absl::Status Run(const Thunk& thunk) {
    const BufferAllocations buffers = BufferAllocations::View(views_);
    se::Stream* streams[2] = {stream_.get(), stream_.get()};
    ExecuteParams params;
    params.executor = executor_;
    params.buffers = &buffers;
    params.streams = streams;
    absl::Status status = thunk.ExecuteOnStream(params);
    const absl::Status done = stream_->BlockHostUntilDone();
    return status.ok() ? done : status;
  }

 private:
  se::StreamExecutor* executor_ = testing::HostExecutor();
  std::unique_ptr<se::Stream> stream_;
  std::vector<se::OwningDeviceMemory> memory_;
  std::vector<se::DeviceMemoryBase> views_;
};

std::unique_ptr<Thunk> Parse(const std::string& text) {
  ThunkProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = testing::ThunkTestContext().Deserialize(proto);
  EXPECT_TRUE(thunk.ok()) << thunk.status();
  return thunk.ok() ? std::move(*thunk) : nullptr;
}

// A scan stack: loop 1 writes row i of allocation 4 (32 bytes at 32 i) to
// host row i (48 bytes apart from offset 16); loop 2 reads the host rows
// back in reverse into allocation 4 from offset 512.
constexpr char kScanStack[] = R"pb(
  sequential {
    thunks {
      profile_annotation: "forward"
      while {
        predicate { allocation: 3 size: 1 }
        body { thunks { profile_annotation: "push" copy {
          source { allocation: 4 size: 32 } destination { allocation: 5 offset: 16 size: 32 }
          dynamic_offset { source_stride: 32 destination_stride: 48 } } } }
        known_trip_count: 5
      }
    }
    thunks {
      profile_annotation: "backward"
      while {
        predicate { allocation: 3 size: 1 }
        body { thunks { profile_annotation: "pop" copy {
          source { allocation: 5 offset: 16 size: 32 } destination { allocation: 4 offset: 512 size: 32 }
          dynamic_offset { source_base: 192 source_stride: -48 destination_stride: 32 } } } }
        known_trip_count: 5
      }
    }
  })pb";

// What kScanStack must leave, computed by hand from the bytes before.
void ExpectScanStack(const std::vector<unsigned char>& device_before,
                     const std::vector<unsigned char>& host_before, HostBuffers& buffers) {
  const std::vector<unsigned char> device = buffers.Read(4);
  const std::vector<unsigned char> host = buffers.Read(5);
  std::vector<unsigned char> want_host = host_before;
  for (int i = 0; i < 5; ++i) std::memcpy(&want_host[16 + 48 * i], &device_before[32 * i], 32);
  EXPECT_EQ(host, want_host);  // the rows, and the bytes between them untouched
  std::vector<unsigned char> want_device = device_before;
  for (int i = 0; i < 5; ++i) std::memcpy(&want_device[512 + 32 * i], &device_before[32 * (4 - i)], 32);
  EXPECT_EQ(device, want_device);
}

TEST(CopyThunk, ScanStackRunsOnTheHostStreamInsideWhileThunks) {
  std::unique_ptr<Thunk> thunk = Parse(kScanStack);
  ASSERT_NE(thunk, nullptr);
  HostBuffers buffers(1);
  const std::vector<unsigned char> device_before = buffers.Read(4), host_before = buffers.Read(5);
  ASSERT_TRUE(buffers.Run(*thunk).ok());
  ExpectScanStack(device_before, host_before, buffers);
}

// The iteration counters belong to each execution: two executions of one
// thunk tree at once, each on its own buffers, both get their own rows.
TEST(CopyThunk, ConcurrentExecutionsKeepTheirOwnIterations) {
  std::unique_ptr<Thunk> thunk = Parse(kScanStack);
  ASSERT_NE(thunk, nullptr);
  constexpr int kRuns = 4;
  std::vector<std::unique_ptr<HostBuffers>> buffers;
  std::vector<std::vector<unsigned char>> device_before, host_before;
  for (int r = 0; r < kRuns; ++r) {
    buffers.push_back(std::make_unique<HostBuffers>(r + 2));
    device_before.push_back(buffers[r]->Read(4));
    host_before.push_back(buffers[r]->Read(5));
  }
  std::vector<absl::Status> status(kRuns);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRuns; ++r) {
    threads.emplace_back([&, r] {
      for (int repeat = 0; repeat < 20 && status[r].ok(); ++repeat) status[r] = buffers[r]->Run(*thunk);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kRuns; ++r) {
    ASSERT_TRUE(status[r].ok()) << status[r];
    // Twenty runs: the pushes are idempotent, and the pops read the pushed rows.
    ExpectScanStack(device_before[r], host_before[r], *buffers[r]);
  }
}

// A loop without a trip count (its condition copies byte i of parameter 0
// into the predicate, so it runs 7 times) whose copy leaves the host
// allocation at iteration 5: the load cannot know, the run fails there,
// and nothing past the allocation is written.
TEST(CopyThunk, DynamicOffsetOutOfRangeAtRunTimeIsAnError) {
  const std::string text = R"pb(
    profile_annotation: "loop"
    while {
      condition { thunks { profile_annotation: "next" copy {
        source { allocation: 0 size: 1 } destination { allocation: 3 size: 1 }
        dynamic_offset { source_stride: 1 } } } }
      predicate { allocation: 3 size: 1 }
      body { thunks { profile_annotation: "stack.row" copy {
        source { allocation: 4 size: 32 } destination { allocation: 5 offset: 16 size: 32 }
        dynamic_offset { destination_stride: 48 } } } }
    })pb";
  std::unique_ptr<Thunk> thunk = Parse(text);
  ASSERT_NE(thunk, nullptr);
  HostBuffers buffers(3);
  std::vector<unsigned char> predicates(64, 0);
  for (int i = 0; i < 7; ++i) predicates[i] = 1;
  buffers.Write(0, predicates);
  const std::vector<unsigned char> device = buffers.Read(4), host_before = buffers.Read(5);
  const absl::Status status = buffers.Run(*thunk);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "copy thunk 'stack.row': at iteration 5 of the "
                                                  "while thunk 0 level(s) out the destination "
                                                  "window would be [256, 288) of allocation 5"))
      << status;
  std::vector<unsigned char> want = host_before;
  for (int i = 0; i < 5; ++i) std::memcpy(&want[16 + 48 * i], &device[0], 32);
  EXPECT_EQ(buffers.Read(5), want);
}

}  // namespace
}  // namespace xla::gpu
