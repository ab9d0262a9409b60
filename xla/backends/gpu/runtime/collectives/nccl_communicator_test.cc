// NcclCommunicator, NcclCliques and the bootstraps, on the fake CUDA driver
// and the fake NCCL (device memory is host memory; each stream's work runs
// on its own thread). The collective thunk's use of them end to end is in
// xla/aot/replicated_execution_test.cc.
#include "xla/backends/gpu/runtime/collectives/nccl_communicator.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_nccl.h"
#include "xla/stream_executor/host/host_executor.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;
using ::testing::HasSubstr;

CliqueKey Key(std::vector<int64_t> devices) { return *CliqueKey::Create(std::move(devices)); }

// An id whose bytes spell `tag`.
ncclUniqueId IdOf(char tag) {
  ncclUniqueId id;
  std::memset(id.internal, tag, sizeof(id.internal));
  return id;
}

TEST(NcclReductionTest, MapsKindsAndTypesByTable) {
  auto f32 = NcclReduction(ReductionKind::kSum, PrimitiveType::F32);
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_EQ(f32->first, ncclFloat32);
  EXPECT_EQ(f32->second, ncclSum);
  auto u64 = NcclReduction(ReductionKind::kMax, PrimitiveType::U64);
  ASSERT_TRUE(u64.ok());
  EXPECT_EQ(u64->first, ncclUint64);
  EXPECT_EQ(u64->second, ncclMax);
  auto pred_and = NcclReduction(ReductionKind::kAnd, PrimitiveType::PRED);
  ASSERT_TRUE(pred_and.ok());
  EXPECT_EQ(pred_and->first, ncclUint8);
  EXPECT_EQ(pred_and->second, ncclMin);
  auto pred_or = NcclReduction(ReductionKind::kOr, PrimitiveType::PRED);
  ASSERT_TRUE(pred_or.ok());
  EXPECT_EQ(pred_or->second, ncclMax);
  // Bitwise and of integers and 16-bit integers have no NCCL form.
  auto bitwise = NcclReduction(ReductionKind::kAnd, PrimitiveType::S32);
  ASSERT_FALSE(bitwise.ok());
  EXPECT_EQ(bitwise.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(bitwise.status().message(), HasSubstr("and reduction of s32"));
  EXPECT_THAT(bitwise.status().message(), HasSubstr("host target"));
  EXPECT_FALSE(NcclReduction(ReductionKind::kSum, PrimitiveType::S16).ok());
  // 16-bit floats by NCCL's numbers (nccl.h: ncclFloat16 = 6, ncclBfloat16
  // = 9); f8 is never reduced.
  auto bf16 = NcclReduction(ReductionKind::kMax, PrimitiveType::BF16);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(static_cast<int>(bf16->first), 9);
  EXPECT_EQ(bf16->second, ncclMax);
  auto f16 = NcclReduction(ReductionKind::kProd, PrimitiveType::F16);
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(static_cast<int>(f16->first), 6);
  EXPECT_EQ(f16->second, ncclProd);
  EXPECT_FALSE(NcclReduction(ReductionKind::kSum, PrimitiveType::F8E4M3FN).ok());
  EXPECT_FALSE(NcclReduction(ReductionKind::kAnd, PrimitiveType::BF16).ok());
}

TEST(InProcessNcclBootstrapTest, MembersGetRankZerosIdAndOthersPassThrough) {
  InProcessNcclBootstrap bootstrap(absl::Seconds(20));
  const CliqueKey key = Key({1, 3, 5});
  std::atomic<int> made{0};
  auto make = [&]() -> absl::StatusOr<ncclUniqueId> {
    ++made;
    return IdOf('q');
  };
  std::vector<absl::StatusOr<ncclUniqueId>> ids(6, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < 6; ++d) {
    threads.emplace_back([&, d] { ids[d] = bootstrap.ExchangeId(key, d, make); });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(made.load(), 1);
  for (int64_t d : {1, 3, 5}) {
    ASSERT_TRUE(ids[d].ok()) << ids[d].status();
    EXPECT_EQ(std::memcmp(ids[d]->internal, IdOf('q').internal, sizeof(ncclUniqueId)), 0) << d;
  }
  for (int64_t d : {0, 2, 4}) EXPECT_TRUE(ids[d].ok()) << d;
}

TEST(InProcessNcclBootstrapTest, AMissingMemberIsNamedAfterTheTimeout) {
  InProcessNcclBootstrap bootstrap(absl::Milliseconds(200));
  auto make = []() -> absl::StatusOr<ncclUniqueId> { return IdOf('x'); };
  absl::StatusOr<ncclUniqueId> id = bootstrap.ExchangeId(Key({0, 1}), 0, make);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(id.status().message(), HasSubstr("ranks [1] never arrived"));
}

TEST(InProcessNcclBootstrapTest, RankZerosFailureReachesTheOthersAtOnce) {
  InProcessNcclBootstrap bootstrap(absl::Seconds(20));
  auto fail = []() -> absl::StatusOr<ncclUniqueId> {
    return absl::InternalError("ncclGetUniqueId: no network");
  };
  absl::StatusOr<ncclUniqueId> other(absl::UnknownError("not run"));
  std::thread t([&] { other = bootstrap.ExchangeId(Key({0, 1}), 1, fail); });
  absl::StatusOr<ncclUniqueId> root = bootstrap.ExchangeId(Key({0, 1}), 0, fail);
  t.join();
  ASSERT_FALSE(root.ok());
  EXPECT_THAT(root.status().message(), HasSubstr("no network"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(other.status().message(), HasSubstr("its rank 0 failed"));
}

// The MPI form, with the in-process host communicator standing in for
// MPI's world clique (one participant per device).
TEST(HostNcclBootstrapTest, TheCliquesFirstDeviceBroadcastsItsId) {
  InProcessCliques world_cliques(absl::Seconds(20));
  const CliqueKey world = Key({0, 1, 2});
  std::vector<absl::StatusOr<ncclUniqueId>> ids(3, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < 3; ++d) {
    threads.emplace_back([&, d] {
      absl::StatusOr<Communicator*> comm = world_cliques.Get(world, d);
      ASSERT_TRUE(comm.ok()) << comm.status();
      HostNcclBootstrap bootstrap(*comm);
      auto make = [d]() -> absl::StatusOr<ncclUniqueId> { return IdOf('a' + d); };
      ids[d] = bootstrap.ExchangeId(Key({1, 2}), d, make);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int64_t d : {1, 2}) {
    ASSERT_TRUE(ids[d].ok()) << ids[d].status();
    EXPECT_EQ(ids[d]->internal[0], 'b') << "device " << d << " got another device's id";
  }
}

TEST(HostNcclBootstrapTest, ADeviceOtherThanThisProcessIsRefused) {
  InProcessCliques world_cliques(absl::Seconds(1));
  absl::StatusOr<Communicator*> comm = world_cliques.Get(Key({0, 1}), 0);
  ASSERT_TRUE(comm.ok());
  HostNcclBootstrap bootstrap(*comm);
  auto make = []() -> absl::StatusOr<ncclUniqueId> { return IdOf('z'); };
  absl::StatusOr<ncclUniqueId> id = bootstrap.ExchangeId(Key({0, 1}), 1, make);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(id.status().message(), HasSubstr("one process per GPU"));
}

class NcclOnFakeCudaTest : public ::testing::Test {
 protected:
  static se::cuda::FakeCudaDriver::Options DriverOptions() {
    se::cuda::FakeCudaDriver::Options options;
    options.device_count = 3;
    options.memory_size = size_t{4} << 20;
    return options;
  }

  // Acquires `keys` on devices 0..n-1, one thread each.
  void AcquireAll(const std::vector<CliqueKey>& keys, int n) {
    std::vector<absl::Status> acquired(n);
    std::vector<std::thread> threads;
    for (int d = 0; d < n; ++d) {
      threads.emplace_back([&, d] { acquired[d] = cliques_.Acquire(keys, d, *Gpu(d)); });
    }
    for (std::thread& t : threads) t.join();
    for (int d = 0; d < n; ++d) ASSERT_TRUE(acquired[d].ok()) << acquired[d];
  }
  se::cuda::CudaExecutor* Gpu(int d) {
    return dynamic_cast<se::cuda::CudaExecutor*>(*platform_.GetDevice(d));
  }
  se::DeviceMemoryBase Upload(int d, se::Stream& stream, const std::vector<float>& values) {
    se::DeviceMemoryBase m = *Gpu(d)->Allocate(values.size() * sizeof(float));
    EXPECT_TRUE(stream.Memcpy(&m, values.data(), m.size).ok());
    EXPECT_TRUE(stream.BlockHostUntilDone().ok());  // `values` dies on return
    return m;
  }
  std::vector<float> Download(se::Stream& stream, se::DeviceMemoryBase m) {
    std::vector<float> values(m.size / sizeof(float));
    EXPECT_TRUE(stream.Memcpy(values.data(), m, m.size).ok());
    EXPECT_TRUE(stream.BlockHostUntilDone().ok());
    return values;
  }

  se::DeviceMemoryBase UploadBits(int d, se::Stream& stream, const std::vector<uint16_t>& values) {
    se::DeviceMemoryBase m = *Gpu(d)->Allocate(values.size() * sizeof(uint16_t));
    EXPECT_TRUE(stream.Memcpy(&m, values.data(), m.size).ok());
    EXPECT_TRUE(stream.BlockHostUntilDone().ok());
    return m;
  }
  std::vector<uint16_t> DownloadBits(se::Stream& stream, se::DeviceMemoryBase m) {
    std::vector<uint16_t> values(m.size / sizeof(uint16_t));
    EXPECT_TRUE(stream.Memcpy(values.data(), m, m.size).ok());
    EXPECT_TRUE(stream.BlockHostUntilDone().ok());
    return values;
  }

  se::cuda::FakeCudaDriver driver_{DriverOptions()};
  se::cuda::FakeNccl nccl_{driver_.api()};
  se::cuda::CudaPlatform platform_{&driver_.api()};
  InProcessNcclBootstrap bootstrap_{absl::Seconds(20)};
  NcclCliques cliques_{nccl_.api(), &bootstrap_};
};

TEST_F(NcclOnFakeCudaTest, BroadcastFromAMiddleRankAndAPermuteWithAZeroedReceiver) {
  const CliqueKey key = Key({0, 1, 2});
  AcquireAll({key}, 3);
  EXPECT_EQ(cliques_.num_communicators(), 3);
  EXPECT_EQ(nccl_.live_comms(), 3);
  std::vector<std::unique_ptr<se::Stream>> streams;
  std::vector<se::DeviceMemoryBase> send, recv, permuted;
  for (int d = 0; d < 3; ++d) {
    streams.push_back(*Gpu(d)->CreateStream());
    send.push_back(Upload(d, *streams[d], {1.5f * d + 1, -2.0f * d, 7.0f + d, 0.25f, 11.0f * d}));
    recv.push_back(*Gpu(d)->Allocate(5 * sizeof(float)));
    permuted.push_back(Upload(d, *streams[d], {9, 9, 9, 9, 9}));
  }
  // Ring without wrap 0 -> 1 -> 2: rank 0 receives nothing (zeros).
  for (int d = 0; d < 3; ++d) {
    DeviceCommunicator* comm = *cliques_.Get(key, d);
    ASSERT_TRUE(comm->Broadcast(/*run_id=*/1, send[d], recv[d], 5 * sizeof(float), 1, *streams[d]).ok());
    std::optional<int64_t> source;
    if (d > 0) source = d - 1;
    std::vector<int64_t> targets;
    if (d < 2) targets.push_back(d + 1);
    ASSERT_TRUE(comm->CollectivePermute(/*run_id=*/1, send[d], permuted[d], 5 * sizeof(float), source, targets,
                                        *streams[d])
                    .ok());
  }
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(Download(*streams[d], recv[d]), (std::vector<float>{2.5f, -2.0f, 8.0f, 0.25f, 11.0f}))
        << "broadcast on device " << d;
    const std::vector<float> got = Download(*streams[d], permuted[d]);
    if (d == 0) {
      EXPECT_EQ(got, std::vector<float>(5, 0.0f));
    } else {
      const float s = d - 1;
      EXPECT_EQ(got, (std::vector<float>{1.5f * s + 1, -2.0f * s, 7.0f + s, 0.25f, 11.0f * s}))
          << "permute into device " << d;
    }
  }
  EXPECT_TRUE(nccl_.errors().empty());
}

// bf16 and f16 reductions through the dtype mapping into the fake's
// per-step rounding: a wrong mapping (bf16 read as f16 or the reverse)
// gives other bits. Encodings: bf16 1 = 0x3F80, 2^-8 = 0x3B80, 1+2^-7 =
// 0x3F81, -3 = 0xC040, 0.5 = 0x3F00, -1.5 = 0xBFC0; f16 1 = 0x3C00, 2^-11
// = 0x1000, 1+2^-10 = 0x3C01, 1+2^-9 = 0x3C02.
TEST_F(NcclOnFakeCudaTest, SixteenBitFloatReductionsRoundInRankOrder) {
  const CliqueKey key = Key({0, 1, 2});
  AcquireAll({key}, 3);
  // bf16 all-reduce (by rank, 3 elements each). Column 0: 1 + 2^-8 is a
  // tie (to even: 1), twice: 1. Column 1: 2^-8 + 2^-8 = 2^-7 first, then
  // 1 + 2^-7. Column 2: -3 + 1 + 0.5 = -1.5. Max: 1 in every column.
  const std::vector<std::vector<uint16_t>> bf16 = {
      {0x3F80, 0x3B80, 0xC040}, {0x3B80, 0x3B80, 0x3F80}, {0x3B80, 0x3F80, 0x3F00}};
  // f16 reduce-scatter, one element per block; rank d gets block d. Block
  // 0: 1 + 2^-11 is a tie (to 1), twice: 1. Block 1: 2^-11 + 2^-11 = 2^-10,
  // + 1. Block 2: (1+2^-10) + 2^-11 is a tie, up to the even 1+2^-9; + 0.
  const std::vector<std::vector<uint16_t>> f16 = {
      {0x3C00, 0x1000, 0x3C01}, {0x1000, 0x1000, 0x1000}, {0x1000, 0x3C00, 0x0000}};
  std::vector<std::unique_ptr<se::Stream>> streams;
  std::vector<se::DeviceMemoryBase> sum, max, scattered, out;
  for (int d = 0; d < 3; ++d) {
    streams.push_back(*Gpu(d)->CreateStream());
    sum.push_back(UploadBits(d, *streams[d], bf16[d]));
    max.push_back(UploadBits(d, *streams[d], bf16[d]));
    scattered.push_back(UploadBits(d, *streams[d], f16[d]));
    out.push_back(*Gpu(d)->Allocate(sizeof(uint16_t)));
  }
  for (int d = 0; d < 3; ++d) {
    DeviceCommunicator* comm = *cliques_.Get(key, d);
    ASSERT_TRUE(comm->AllReduce(1, ReductionKind::kSum, PrimitiveType::BF16, sum[d], sum[d], 3, *streams[d]).ok());
    ASSERT_TRUE(comm->AllReduce(1, ReductionKind::kMax, PrimitiveType::BF16, max[d], max[d], 3, *streams[d]).ok());
    ASSERT_TRUE(
        comm->ReduceScatter(1, ReductionKind::kSum, PrimitiveType::F16, scattered[d], out[d], 1, *streams[d]).ok());
  }
  const std::vector<uint16_t> want_scattered = {0x3C00, 0x3C01, 0x3C02};
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(DownloadBits(*streams[d], sum[d]), (std::vector<uint16_t>{0x3F80, 0x3F81, 0xBFC0}))
        << "device " << d;
    EXPECT_EQ(DownloadBits(*streams[d], max[d]), (std::vector<uint16_t>{0x3F80, 0x3F80, 0x3F80}))
        << "device " << d;
    EXPECT_EQ(DownloadBits(*streams[d], out[d]), std::vector<uint16_t>{want_scattered[d]}) << "device " << d;
  }
  EXPECT_TRUE(nccl_.errors().empty());
}

TEST_F(NcclOnFakeCudaTest, ScratchGrowsAndKeepsEarlierBuffers) {
  const CliqueKey key = Key({0, 1});
  AcquireAll({key}, 2);
  DeviceCommunicator* comm = *cliques_.Get(key, 0);
  std::unique_ptr<se::Stream> stream = *Gpu(0)->CreateStream();
  se::DeviceMemoryBase small = *comm->Scratch(100, *stream);
  EXPECT_EQ(*comm->Scratch(64, *stream), small);
  se::DeviceMemoryBase big = *comm->Scratch(1000, *stream);
  EXPECT_GE(big.size, 1000u);
  EXPECT_NE(big, small);
  EXPECT_EQ(driver_.live_allocations(), 2);
  absl::StatusOr<se::DeviceMemoryBase> huge = comm->Scratch(int64_t{1} << 40, *stream);
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("scratch memory of 1099511627776 bytes"));
}

// A rank whose peer never comes is stopped by AbortAll instead of waiting
// (the fake's timeout is 20 s); afterwards operations fail clearly.
TEST_F(NcclOnFakeCudaTest, AbortStopsAnOperationWaitingForAMissingPeer) {
  const CliqueKey key = Key({0, 1});
  AcquireAll({key}, 2);
  DeviceCommunicator* comm = *cliques_.Get(key, 0);
  std::unique_ptr<se::Stream> stream = *Gpu(0)->CreateStream();
  se::DeviceMemoryBase m = Upload(0, *stream, {1.0f, 2.0f, 3.0f});
  ASSERT_TRUE(comm->AllReduce(/*run_id=*/1, ReductionKind::kSum, PrimitiveType::F32, m, m, 3, *stream).ok());
  const absl::Time start = absl::Now();
  std::thread aborter([this] {
    absl::SleepFor(absl::Milliseconds(200));
    cliques_.AbortAll();
  });
  (void)stream->BlockHostUntilDone();
  aborter.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_TRUE(cliques_.aborted());
  EXPECT_EQ(nccl_.live_comms(), 0);
  ASSERT_FALSE(nccl_.errors().empty());
  EXPECT_THAT(nccl_.errors()[0], HasSubstr("aborted"));
  absl::Status after = comm->AllGather(/*run_id=*/1, m, m, 4, *stream);
  EXPECT_EQ(after.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(after.message(), HasSubstr("aborted after a participant failed"));
}

TEST_F(NcclOnFakeCudaTest, MisuseIsAClearError) {
  const CliqueKey key = Key({0, 1});
  // Not acquired yet.
  absl::StatusOr<DeviceCommunicator*> missing = cliques_.Get(key, 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(missing.status().message(), HasSubstr("devices [0,1]"));
  AcquireAll({key}, 2);
  DeviceCommunicator* comm = *cliques_.Get(key, 0);
  // A host stream is no CUDA stream.
  se::host::HostExecutor host;
  std::unique_ptr<se::Stream> host_stream = *host.CreateStream();
  se::DeviceMemoryBase m = *Gpu(0)->Allocate(16);
  absl::Status wrong_stream = comm->AllGather(/*run_id=*/1, m, m, 8, *host_stream);
  EXPECT_EQ(wrong_stream.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong_stream.message(), HasSubstr("needs a CUDA stream"));
  std::unique_ptr<se::Stream> stream = *Gpu(0)->CreateStream();
  EXPECT_THAT(comm->Broadcast(/*run_id=*/1, m, m, 16, 2, *stream).message(), HasSubstr("root rank 2"));
  // NCCL's own error (a null send buffer) surfaces at the stream's
  // synchronization, naming the call and the clique.
  ASSERT_TRUE(comm->AllReduce(/*run_id=*/1, ReductionKind::kSum, PrimitiveType::F16, se::DeviceMemoryBase(), m,
                              8, *stream)
                  .ok());
  absl::Status done = stream->BlockHostUntilDone();
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.message(), HasSubstr("ncclAllReduce"));
  EXPECT_THAT(done.message(), HasSubstr("devices [0,1], rank 0 of 2"));
}

}  // namespace
}  // namespace xla::gpu
