// HostSendThunk and HostRecvThunk: round trips and goldens, what FromProto
// rejects, and runs with recording callbacks on the host platform and on
// the fake CUDA driver (pinned staging buffers, freed after the run).
#include "xla/backends/gpu/runtime/host_transfer_thunk.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/execute_options.h"
#include "xla/backends/gpu/runtime/fake_cuda_thunk_test.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;
using ::xla::gpu::testing::DeserializeError;

TEST(HostTransferThunk, SendRoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("host_send_thunk.textproto");
}

TEST(HostTransferThunk, RecvRoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("host_recv_thunk.textproto");
}

// The golden `name` with `from` replaced by `to`.
std::string Golden(absl::string_view name, absl::string_view from, absl::string_view to) {
  std::string text = testing::ReadTestdata(name);
  const size_t at = text.find(std::string(from));
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), std::string(to));
  return text;
}

TEST(HostTransferThunk, FromProtoRejectsHostileTransfers) {
  struct Case {
    std::string text;
    const char* message;
  };
  const char* send = "host_send_thunk.textproto";
  const char* recv = "host_recv_thunk.textproto";
  const Case cases[] = {
      {Golden(send, "channel_id: 3", "channel_id: -3"),
       "thunk.host_send.channel_id: -3 is negative"},
      {Golden(recv, "channel_id: 7", "channel_id: -1"), "thunk.host_recv.channel_id: -1"},
      // 1000 + 60 bytes past allocation 4's 1024.
      {Golden(send, "offset: 8", "offset: 1000"), "thunk.host_send.slice"},
      // 35 bytes in a 64-byte parameter starting at 33: out of it.
      {Golden(recv, "offset: 4", "offset: 33"), "thunk.host_recv.slice"},
      {Golden(send, "size: 60", "size: 64"),
       "thunk.host_send.slice: the data f32[3,5]{1,0} has 60 bytes but the slice has 64"},
      {Golden(recv, "dimensions: 33", "dimensions: 32"),
       "the data s8[32]{0} has 32 bytes but the slice has 33"},
      {Golden(send, "PRIMITIVE_TYPE_F32", "PRIMITIVE_TYPE_TOKEN"), "thunk.host_send.shape"},
      {Golden(recv, "is_dynamic_dimension: false", "is_dynamic_dimension: true"),
       "a host transfer moves a static array or (), not s8[<=33]"},
      {Golden(send, "PRIMITIVE_TYPE_F32", "PRIMITIVE_TYPE_INVALID"), "thunk.host_send.shape"},
  };
  for (const Case& c : cases) {
    const std::string error = DeserializeError(c.text);
    EXPECT_TRUE(absl::StrContains(error, c.message)) << c.text << "\n -> " << error;
  }
}

// A non-empty tuple is no transfer's data; the empty tuple with an empty
// slice is (a pure synchronization).
TEST(HostTransferThunk, OnlyTheEmptyTupleIsANonArrayTransfer) {
  const std::string tuple =
      "host_recv { shape { element_type: PRIMITIVE_TYPE_TUPLE tuple_shapes { element_type: "
      "PRIMITIVE_TYPE_F32 } } slice { allocation: 1 size: 4 } }";
  EXPECT_TRUE(absl::StrContains(DeserializeError(tuple), "not (f32[])")) << DeserializeError(tuple);
  EXPECT_EQ(DeserializeError("host_send { channel_id: 2 shape { element_type: "
                             "PRIMITIVE_TYPE_TUPLE } slice { allocation: 1 } }"),
            "");
}

// What the recording callbacks saw and feed.
struct Recorder {
  std::vector<int64_t> channels;
  std::vector<std::string> rendezvous;
  std::vector<std::string> shapes;
  std::vector<std::vector<uint8_t>> sent;
  std::vector<uint8_t> to_receive;  // what recv fills (must be its size)
  absl::Status result = absl::OkStatus();

  HostTransferCallbacks Callbacks() {
    HostTransferCallbacks c;
    c.send = [this](int64_t channel, absl::string_view name, const Shape& shape,
                    absl::Span<const uint8_t> data) {
      Note(channel, name, shape);
      sent.emplace_back(data.begin(), data.end());
      return result;
    };
    c.recv = [this](int64_t channel, absl::string_view name, const Shape& shape,
                    absl::Span<uint8_t> data) {
      Note(channel, name, shape);
      if (data.size() != to_receive.size()) return absl::InternalError("wrong size");
      std::memcpy(data.data(), to_receive.data(), data.size());
      return result;
    };
    return c;
  }
  void Note(int64_t channel, absl::string_view name, const Shape& shape) {
    channels.push_back(channel);
    rendezvous.emplace_back(name);
    shapes.push_back(shape.ToString(false));
  }
};

// 37 distinct, non-zero floats.
std::vector<float> Data37(float scale) {
  std::vector<float> v(37);
  for (int i = 0; i < 37; ++i) v[i] = scale * (i + 1) - 0.25f * i * i;
  return v;
}

std::vector<uint8_t> Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(float));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

HostTransfer F32Transfer(int64_t channel, std::string rendezvous, int64_t allocation, int64_t n) {
  HostTransfer t;
  t.channel_id = channel;
  t.rendezvous = std::move(rendezvous);
  t.shape = Shape::Array(PrimitiveType::F32, {n});
  t.slice = testing::WholeSlice(allocation, n * 4);
  return t;
}

// Runs a send of allocation 0 (channel 5) then a recv into allocation 1
// (channel 6) on `executor`/`stream`, returning the run's status and
// allocation 1's contents.
absl::Status SendThenRecv(se::StreamExecutor* executor, se::Stream* stream,
                          const HostTransferCallbacks* callbacks, const std::vector<float>& x,
                          std::vector<float>* y) {
  se::OwningDeviceMemory a = se::OwningDeviceMemory::Allocate(executor, 37 * 4).value();
  se::OwningDeviceMemory b = se::OwningDeviceMemory::Allocate(executor, 37 * 4).value();
  se::DeviceMemoryBase a_view = a.get();
  EXPECT_TRUE(stream->Memcpy(&a_view, x.data(), 37 * 4).ok());
  const BufferAllocations buffers({a.get(), b.get()});
  se::Stream* streams[1] = {stream};
  ExecuteParams params;
  params.executor = executor;
  params.buffers = &buffers;
  params.streams = streams;
  params.host_transfers = callbacks;
  HostSendThunk send(ThunkInfo{0, "send.1"}, F32Transfer(5, "_x_dtoh_0", 0, 37));
  HostRecvThunk recv(ThunkInfo{0, "recv.1"}, F32Transfer(6, "_y_htod_0", 1, 37));
  absl::Status status = send.ExecuteOnStream(params);
  if (status.ok()) status = recv.ExecuteOnStream(params);
  if (status.ok()) status = stream->Memcpy(y->data(), b.get(), 37 * 4);
  const absl::Status done = stream->BlockHostUntilDone();
  return status.ok() ? done : status;
}

TEST(HostTransferThunk, HostSendsTheSliceAndReceivesWhatTheCallbackFeeds) {
  se::StreamExecutor* executor = testing::HostExecutor();
  std::unique_ptr<se::Stream> stream = executor->CreateStream().value();
  Recorder recorder;
  const std::vector<float> y_fed = Data37(-1.5f);
  recorder.to_receive = Bytes(y_fed);
  const HostTransferCallbacks callbacks = recorder.Callbacks();
  const std::vector<float> x = Data37(2.0f);
  std::vector<float> y(37, 0.0f);
  ASSERT_TRUE(SendThenRecv(executor, stream.get(), &callbacks, x, &y).ok());
  EXPECT_EQ(recorder.channels, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(recorder.rendezvous, (std::vector<std::string>{"_x_dtoh_0", "_y_htod_0"}));
  EXPECT_EQ(recorder.shapes, (std::vector<std::string>{"f32[37]", "f32[37]"}));
  ASSERT_EQ(recorder.sent.size(), 1u);
  EXPECT_EQ(recorder.sent[0], Bytes(x));
  EXPECT_EQ(y, y_fed);
}

TEST(HostTransferThunk, ARunWithoutCallbacksFailsNamingThunkChannelAndRendezvous) {
  se::StreamExecutor* executor = testing::HostExecutor();
  std::unique_ptr<se::Stream> stream = executor->CreateStream().value();
  std::vector<float> y(37);
  const absl::Status none = SendThenRecv(executor, stream.get(), nullptr, Data37(1), &y);
  EXPECT_EQ(none.code(), absl::StatusCode::kFailedPrecondition) << none;
  EXPECT_TRUE(absl::StrContains(none.message(), "host_send thunk 'send.1'")) << none;
  EXPECT_TRUE(absl::StrContains(none.message(), "channel 5, rendezvous \"_x_dtoh_0\"")) << none;
  EXPECT_TRUE(absl::StrContains(none.message(), "ExecuteOptions::host_transfers")) << none;
  // A send callback alone: the recv fails, naming its own channel.
  Recorder recorder;
  HostTransferCallbacks only_send = recorder.Callbacks();
  only_send.recv = nullptr;
  const absl::Status no_recv = SendThenRecv(executor, stream.get(), &only_send, Data37(1), &y);
  EXPECT_EQ(no_recv.code(), absl::StatusCode::kFailedPrecondition) << no_recv;
  EXPECT_TRUE(absl::StrContains(no_recv.message(), "host_recv thunk 'recv.1': no host recv "
                                                   "callback for channel 6"))
      << no_recv;
}

TEST(HostTransferThunk, ACallbackErrorFailsTheRunNamingTheTransfer) {
  se::StreamExecutor* executor = testing::HostExecutor();
  std::unique_ptr<se::Stream> stream = executor->CreateStream().value();
  Recorder recorder;
  recorder.result = absl::UnavailableError("host side went away");
  recorder.to_receive = Bytes(Data37(1));
  const HostTransferCallbacks callbacks = recorder.Callbacks();
  std::vector<float> y(37);
  const absl::Status s = SendThenRecv(executor, stream.get(), &callbacks, Data37(1), &y);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "host_send thunk 'send.1': the callback for channel "
                                             "5, rendezvous \"_x_dtoh_0\", f32[37] failed: host "
                                             "side went away"))
      << s;
}

// A `()` transfer moves nothing but still calls the callback, in order.
TEST(HostTransferThunk, AnEmptyTupleTransferCallsTheCallbackWithNoBytes) {
  se::StreamExecutor* executor = testing::HostExecutor();
  std::unique_ptr<se::Stream> stream = executor->CreateStream().value();
  Recorder recorder;
  const HostTransferCallbacks callbacks = recorder.Callbacks();
  HostTransfer t;
  t.channel_id = 9;
  t.shape = Shape::Tuple({});
  const BufferAllocations buffers({se::DeviceMemoryBase()});
  se::Stream* streams[1] = {stream.get()};
  ExecuteParams params;
  params.executor = executor;
  params.buffers = &buffers;
  params.streams = streams;
  params.host_transfers = &callbacks;
  HostSendThunk send(ThunkInfo{0, "send.9"}, t);
  HostRecvThunk recv(ThunkInfo{0, "recv.9"}, t);
  ASSERT_TRUE(send.ExecuteOnStream(params).ok());
  ASSERT_TRUE(recv.ExecuteOnStream(params).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(recorder.channels, (std::vector<int64_t>{9, 9}));
  EXPECT_EQ(recorder.shapes, (std::vector<std::string>{"()", "()"}));
  ASSERT_EQ(recorder.sent.size(), 1u);
  EXPECT_TRUE(recorder.sent[0].empty());
}

// On CUDA (the fake driver): a device-to-host copy into pinned memory
// before the send callback, a host-to-device copy from pinned memory after
// the recv callback, and no pinned memory left after the run.
class HostTransferCudaTest : public testing::FakeCudaThunkTest {};

TEST_F(HostTransferCudaTest, StagesThroughPinnedMemoryAndFreesIt) {
  Recorder recorder;
  const std::vector<float> y_fed = Data37(3.25f);
  recorder.to_receive = Bytes(y_fed);
  const HostTransferCallbacks callbacks = recorder.Callbacks();
  const std::vector<float> x = Data37(-0.5f);
  std::vector<float> y(37, 0.0f);
  const absl::Status run = SendThenRecv(executor_, stream_.get(), &callbacks, x, &y);
  ASSERT_TRUE(run.ok()) << run;
  ASSERT_EQ(recorder.sent.size(), 1u);
  EXPECT_EQ(recorder.sent[0], Bytes(x));
  EXPECT_EQ(y, y_fed);
  int pinned_dtoh = 0, pinned_htod = 0;
  for (const se::cuda::FakeCopy& c : driver_.copies()) {
    if (c.size != 37 * 4) continue;
    pinned_dtoh += c.kind == "dtoh" && c.dst_pinned;
    pinned_htod += c.kind == "htod" && c.src_pinned;
  }
  EXPECT_EQ(pinned_dtoh, 1);
  EXPECT_EQ(pinned_htod, 1);
  EXPECT_EQ(driver_.live_host_allocations(), 0);
}

}  // namespace
}  // namespace xla::gpu
