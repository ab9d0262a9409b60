// FakeNccl on the fake CUDA driver: one thread and one stream per rank, each
// thread with its device's primary context current. Results are read after
// cuStreamSynchronize and checked against hand-computed values and
// sequential rank-order folds (bit for bit where the order matters).
#include "xla/stream_executor/cuda/fake_nccl.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/nccl_api.h"

namespace stream_executor::cuda {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

constexpr int kMaxRanks = 4;

// A non-trivial value for element `i` of rank `rank` (never all zeros).
float Value(int rank, size_t i) {
  return static_cast<float>((i * 7 + rank * 13) % 23) * 0.37f - 3.3f +
         1.0f / static_cast<float>(rank + i + 1);
}

std::vector<uint32_t> Bits(const std::vector<float>& values) {
  std::vector<uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

class FakeNcclTest : public ::testing::Test {
 protected:
  explicit FakeNcclTest(FakeNccl::Options options = FakeNccl::Options())
      : driver_(DriverOptions()), nccl_(driver_.api(), options) {}

  static FakeCudaDriver::Options DriverOptions() {
    FakeCudaDriver::Options options;
    options.device_count = kMaxRanks;
    return options;
  }

  const CudaDriverApi& cu() const { return driver_.api(); }
  const NcclApi& nccl() const { return nccl_.api(); }
  cudaStream_t stream(int rank) const {
    return reinterpret_cast<cudaStream_t>(streams_[rank]);
  }

  void SetUp() override {
    ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
    for (int r = 0; r < kMaxRanks; ++r) {
      CUdevice device;
      ASSERT_EQ(cu().cuDeviceGet(&device, r), CUDA_SUCCESS);
      ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&contexts_[r], device),
                CUDA_SUCCESS);
      ASSERT_EQ(cu().cuCtxSetCurrent(contexts_[r]), CUDA_SUCCESS);
      ASSERT_EQ(cu().cuStreamCreate(&streams_[r], CU_STREAM_NON_BLOCKING),
                CUDA_SUCCESS);
    }
  }

  void TearDown() override {
    for (int r = 0; r < kMaxRanks; ++r) {
      if (streams_[r] != nullptr) {
        EXPECT_EQ(cu().cuStreamDestroy_v2(streams_[r]), CUDA_SUCCESS);
      }
      if (comms_[r] != nullptr) {
        EXPECT_EQ(nccl().ncclCommDestroy(comms_[r]), ncclSuccess);
      }
    }
    EXPECT_EQ(nccl_.live_comms(), 0);
    if (contexts_[0] != nullptr) {
      EXPECT_EQ(cu().cuCtxSetCurrent(contexts_[0]), CUDA_SUCCESS);
    }
    for (CUdeviceptr pointer : allocations_) {
      EXPECT_EQ(cu().cuMemFree_v2(pointer), CUDA_SUCCESS);
    }
    for (int r = 0; r < kMaxRanks; ++r) {
      if (contexts_[r] != nullptr) {
        EXPECT_EQ(cu().cuDevicePrimaryCtxRelease_v2(r), CUDA_SUCCESS);
      }
    }
  }

  // Runs body(rank) on one thread per rank, with that rank's context current.
  void OnRanks(int n, const std::function<void(int)>& body) {
    std::vector<std::thread> threads;
    for (int r = 0; r < n; ++r) {
      threads.emplace_back([this, &body, r] {
        EXPECT_EQ(cu().cuCtxSetCurrent(contexts_[r]), CUDA_SUCCESS);
        body(r);
      });
    }
    for (std::thread& thread : threads) thread.join();
  }

  // Creates comms_[0..n) from one unique id, one thread per rank.
  void InitComms(int n) {
    ncclUniqueId id;
    ASSERT_EQ(nccl().ncclGetUniqueId(&id), ncclSuccess);
    OnRanks(n, [&](int r) {
      EXPECT_EQ(nccl().ncclCommInitRank(&comms_[r], n, id, r), ncclSuccess);
    });
    ASSERT_EQ(nccl_.live_comms(), n);
  }

  // Device memory of `rank` holding `values` (fake device memory is host
  // memory, so it is written directly).
  template <typename T>
  T* Upload(int rank, const std::vector<T>& values) {
    EXPECT_EQ(cu().cuCtxSetCurrent(contexts_[rank]), CUDA_SUCCESS);
    CUdeviceptr pointer = 0;
    EXPECT_EQ(cu().cuMemAlloc_v2(&pointer, values.size() * sizeof(T) + 1),
              CUDA_SUCCESS);
    allocations_.push_back(pointer);
    T* data = reinterpret_cast<T*>(pointer);
    std::copy(values.begin(), values.end(), data);
    return data;
  }

  template <typename T>
  static std::vector<T> Read(const T* data, size_t count) {
    return std::vector<T>(data, data + count);
  }

  void SyncRanks(int n) {
    for (int r = 0; r < n; ++r) {
      ASSERT_EQ(cu().cuStreamSynchronize(streams_[r]), CUDA_SUCCESS);
    }
  }

  FakeCudaDriver driver_;  // declared first: destroyed last
  FakeNccl nccl_;
  CUcontext contexts_[kMaxRanks] = {};
  CUstream streams_[kMaxRanks] = {};
  ncclComm_t comms_[kMaxRanks] = {};
  std::vector<CUdeviceptr> allocations_;
};

TEST_F(FakeNcclTest, VersionUniqueIdsAndErrorStrings) {
  int version = 0;
  EXPECT_EQ(nccl().ncclGetVersion(&version), ncclSuccess);
  EXPECT_EQ(version, 22304);
  ncclUniqueId a, b;
  ASSERT_EQ(nccl().ncclGetUniqueId(&a), ncclSuccess);
  ASSERT_EQ(nccl().ncclGetUniqueId(&b), ncclSuccess);
  EXPECT_NE(std::memcmp(a.internal, b.internal, sizeof(a.internal)), 0);
  EXPECT_STREQ(nccl().ncclGetErrorString(ncclSuccess), "no error");
  EXPECT_STREQ(nccl().ncclGetErrorString(ncclInvalidArgument),
               "invalid argument");
  EXPECT_STREQ(nccl().ncclGetErrorString(static_cast<ncclResult_t>(99)),
               "unknown ncclResult_t");
  EXPECT_EQ(nccl_.calls("ncclGetUniqueId"), 2);
  EXPECT_EQ(nccl_.calls("ncclGetVersion"), 1);

  // The table plugs into the loader and its error mapping.
  SetNcclApiForTesting(&nccl());
  absl::StatusOr<const NcclApi*> loaded = LoadNcclApi();
  SetNcclApiForTesting(nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, &nccl());
  absl::Status status = NcclStatus(nccl(), "ncclAllReduce", ncclInvalidUsage);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("invalid usage"));
}

TEST_F(FakeNcclTest, AllReduceSumF32FoldsInRankOrder) {
  constexpr int n = 3;
  constexpr size_t count = 257;
  InitComms(n);
  std::vector<std::vector<float>> inputs(n, std::vector<float>(count));
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) inputs[r][i] = Value(r, i);
  }
  // Where the order matters: (1e8 + 1) - 1e8 == 0 in f32, (1e8 - 1e8) + 1
  // == 1.
  const float triples[3][n] = {
      {1e8f, 1.0f, -1e8f}, {1.0f, 1e8f, -1e8f}, {1e8f, -1e8f, 1.0f}};
  for (size_t i = 0; i < 3; ++i) {
    for (int r = 0; r < n; ++r) inputs[r][i] = triples[i][r];
  }
  std::vector<float*> send(n), recv(n);
  for (int r = 0; r < n; ++r) {
    send[r] = Upload(r, inputs[r]);
    recv[r] = Upload(r, std::vector<float>(count, -7.0f));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclAllReduce(send[r], recv[r], count, ncclFloat32,
                                   ncclSum, comms_[r], stream(r)),
              ncclSuccess);
  });
  SyncRanks(n);

  std::vector<float> expected(count);
  for (size_t i = 0; i < count; ++i) {
    float acc = inputs[0][i];
    acc += inputs[1][i];
    acc += inputs[2][i];
    expected[i] = acc;
  }
  EXPECT_EQ(expected[0], 0.0f);
  EXPECT_EQ(expected[1], 0.0f);
  EXPECT_EQ(expected[2], 1.0f);
  for (int r = 0; r < n; ++r) {
    const std::vector<float> got = Read(recv[r], count);
    EXPECT_EQ(got[0], 0.0f) << "rank " << r;
    EXPECT_EQ(got[1], 0.0f) << "rank " << r;
    EXPECT_EQ(got[2], 1.0f) << "rank " << r;
    EXPECT_EQ(Bits(got), Bits(expected)) << "rank " << r;
    EXPECT_EQ(Bits(Read(send[r], count)), Bits(inputs[r])) << "input changed";
  }
  EXPECT_EQ(nccl_.calls("ncclAllReduce"), n);
  EXPECT_TRUE(nccl_.errors().empty());
}

TEST_F(FakeNcclTest, AllReduceInt32MinMaxProdOnFourRanks) {
  constexpr int n = 4;
  constexpr size_t count = 33;
  InitComms(n);
  std::vector<std::vector<int32_t>> inputs(n, std::vector<int32_t>(count));
  std::vector<int32_t*> send(n), min(n), max(n), prod(n);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) {
      inputs[r][i] = static_cast<int32_t>((i * 5 + r * 11) % 9) - 4;
    }
    send[r] = Upload(r, inputs[r]);
    min[r] = Upload(r, std::vector<int32_t>(count, 99));
    max[r] = Upload(r, std::vector<int32_t>(count, 99));
    prod[r] = Upload(r, std::vector<int32_t>(count, 99));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclAllReduce(send[r], min[r], count, ncclInt32, ncclMin,
                                   comms_[r], stream(r)),
              ncclSuccess);
    EXPECT_EQ(nccl().ncclAllReduce(send[r], max[r], count, ncclInt32, ncclMax,
                                   comms_[r], stream(r)),
              ncclSuccess);
    EXPECT_EQ(nccl().ncclAllReduce(send[r], prod[r], count, ncclInt32, ncclProd,
                                   comms_[r], stream(r)),
              ncclSuccess);
  });
  SyncRanks(n);
  std::vector<int32_t> want_min(count), want_max(count), want_prod(count);
  for (size_t i = 0; i < count; ++i) {
    want_min[i] = want_max[i] = want_prod[i] = inputs[0][i];
    for (int r = 1; r < n; ++r) {
      want_min[i] = std::min(want_min[i], inputs[r][i]);
      want_max[i] = std::max(want_max[i], inputs[r][i]);
      want_prod[i] *= inputs[r][i];
    }
  }
  // Spot checks by hand: element 0 is {-4, -2, 0, 2}, element 1
  // {1, 3, -4, -2}.
  EXPECT_EQ(want_min[0], -4);
  EXPECT_EQ(want_max[0], 2);
  EXPECT_EQ(want_prod[0], 0);
  EXPECT_EQ(want_min[1], -4);
  EXPECT_EQ(want_max[1], 3);
  EXPECT_EQ(want_prod[1], 24);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(Read(min[r], count), want_min) << "rank " << r;
    EXPECT_EQ(Read(max[r], count), want_max) << "rank " << r;
    EXPECT_EQ(Read(prod[r], count), want_prod) << "rank " << r;
  }
}

TEST_F(FakeNcclTest, InPlaceAllReduceRepeatedNeverReadsAPartialResult) {
  constexpr int n = 3;
  constexpr size_t count = 101;
  constexpr int kRounds = 5;
  InitComms(n);
  std::vector<std::vector<double>> values(n, std::vector<double>(count));
  std::vector<double*> buffers(n);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) values[r][i] = 0.1 * i + r / 3.0 - 2.0;
    buffers[r] = Upload(r, values[r]);
  }
  OnRanks(n, [&](int r) {
    for (int k = 0; k < kRounds; ++k) {
      EXPECT_EQ(nccl().ncclAllReduce(buffers[r], buffers[r], count, ncclFloat64,
                                     ncclSum, comms_[r], stream(r)),
                ncclSuccess);
    }
  });
  SyncRanks(n);
  // Round 1 sums the ranks; every later round triples (the three ranks hold
  // the same values), folded in rank order.
  for (int k = 0; k < kRounds; ++k) {
    std::vector<double> sum(count);
    for (size_t i = 0; i < count; ++i) {
      double acc = values[0][i];
      for (int r = 1; r < n; ++r) acc += values[r][i];
      sum[i] = acc;
    }
    for (int r = 0; r < n; ++r) values[r] = sum;
  }
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(Read(buffers[r], count), values[0]) << "rank " << r;
  }
}

TEST_F(FakeNcclTest, AllGatherInt8OddByteCountsInAndOutOfPlace) {
  constexpr int n = 3;
  constexpr size_t count = 13;
  InitComms(n);
  std::vector<std::vector<int8_t>> inputs(n, std::vector<int8_t>(count));
  std::vector<int8_t> want;
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) {
      inputs[r][i] = static_cast<int8_t>(r * 40 + i * 3 - 50);
    }
    want.insert(want.end(), inputs[r].begin(), inputs[r].end());
  }
  std::vector<int8_t*> send(n), recv(n), in_place(n);
  for (int r = 0; r < n; ++r) {
    send[r] = Upload(r, inputs[r]);
    recv[r] = Upload(r, std::vector<int8_t>(n * count, 1));
    // In place: rank r's input already sits at block r of its output.
    std::vector<int8_t> staged(n * count, 2);
    std::copy(inputs[r].begin(), inputs[r].end(), staged.begin() + r * count);
    in_place[r] = Upload(r, staged);
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclAllGather(send[r], recv[r], count, ncclInt8, comms_[r],
                                   stream(r)),
              ncclSuccess);
    EXPECT_EQ(nccl().ncclAllGather(in_place[r] + r * count, in_place[r], count,
                                   ncclInt8, comms_[r], stream(r)),
              ncclSuccess);
  });
  SyncRanks(n);
  EXPECT_EQ(want[count], -10);  // rank 1, element 0: 40 - 50
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(Read(recv[r], n * count), want) << "rank " << r;
    EXPECT_EQ(Read(in_place[r], n * count), want) << "in place, rank " << r;
  }
}

TEST_F(FakeNcclTest, ReduceScatterGivesRankItsBlock) {
  constexpr int n = 3;
  constexpr size_t count = 7;  // per rank
  InitComms(n);
  std::vector<std::vector<float>> inputs(n, std::vector<float>(n * count));
  std::vector<float*> send(n), recv(n);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < n * count; ++i) inputs[r][i] = Value(r, i);
    send[r] = Upload(r, inputs[r]);
    recv[r] = Upload(r, std::vector<float>(count, -1.0f));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclReduceScatter(send[r], recv[r], count, ncclFloat32,
                                       ncclSum, comms_[r], stream(r)),
              ncclSuccess);
  });
  SyncRanks(n);
  for (int r = 0; r < n; ++r) {
    std::vector<float> want(count);
    for (size_t i = 0; i < count; ++i) {
      float acc = inputs[0][r * count + i];
      for (int q = 1; q < n; ++q) acc += inputs[q][r * count + i];
      want[i] = acc;
    }
    EXPECT_EQ(Bits(Read(recv[r], count)), Bits(want)) << "rank " << r;
  }
}

TEST_F(FakeNcclTest, BroadcastFromNonZeroRoot) {
  constexpr int n = 4;
  constexpr int root = 2;
  constexpr size_t count = 19;
  InitComms(n);
  std::vector<std::vector<double>> inputs(n, std::vector<double>(count));
  std::vector<double*> send(n), recv(n);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) inputs[r][i] = 1000.0 * r + 0.5 * i - 3;
    send[r] = Upload(r, inputs[r]);
    // The root broadcasts in place.
    recv[r] = r == root ? send[r] : Upload(r, std::vector<double>(count, -9.0));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclBroadcast(send[r], recv[r], count, ncclFloat64, root,
                                   comms_[r], stream(r)),
              ncclSuccess);
  });
  SyncRanks(n);
  EXPECT_EQ(inputs[root][1], 1997.5);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(Read(recv[r], count), inputs[root]) << "rank " << r;
    EXPECT_EQ(Read(send[r], count), inputs[r]) << "input changed";
  }
}

TEST_F(FakeNcclTest, GroupedAllToAllWithSendRecvIncludingSelf) {
  constexpr int n = 4;
  constexpr size_t block = 5;
  InitComms(n);
  // Rank r's block p holds 100 * r + 10 * p + i.
  std::vector<float*> send(n), recv(n);
  for (int r = 0; r < n; ++r) {
    std::vector<float> values(n * block);
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < block; ++i)
        values[p * block + i] = 100 * r + 10 * p + i;
    }
    send[r] = Upload(r, values);
    recv[r] = Upload(r, std::vector<float>(n * block, -1.0f));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclGroupStart(), ncclSuccess);
    for (int p = 0; p < n; ++p) {
      EXPECT_EQ(nccl().ncclSend(send[r] + p * block, block, ncclFloat32, p,
                                comms_[r], stream(r)),
                ncclSuccess);
      EXPECT_EQ(nccl().ncclRecv(recv[r] + p * block, block, ncclFloat32, p,
                                comms_[r], stream(r)),
                ncclSuccess);
    }
    EXPECT_EQ(nccl().ncclGroupEnd(), ncclSuccess);
  });
  SyncRanks(n);
  for (int r = 0; r < n; ++r) {
    // Block p of rank r's output is block r of rank p's input.
    std::vector<float> want(n * block);
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < block; ++i)
        want[p * block + i] = 100 * p + 10 * r + i;
    }
    EXPECT_EQ(Read(recv[r], n * block), want) << "rank " << r;
  }
  EXPECT_EQ(nccl_.calls("ncclSend"), n * n);
  EXPECT_EQ(nccl_.calls("ncclRecv"), n * n);
}

TEST_F(FakeNcclTest, RingPermuteAndUngroupedSendRecv) {
  constexpr int n = 3;
  constexpr size_t count = 11;
  InitComms(n);
  std::vector<std::vector<int64_t>> inputs(n, std::vector<int64_t>(count));
  std::vector<int64_t*> send(n), recv(n), lone(n);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) inputs[r][i] = (r + 1) * 1000003LL - i;
    send[r] = Upload(r, inputs[r]);
    recv[r] = Upload(r, std::vector<int64_t>(count, 0));
    lone[r] = Upload(r, std::vector<int64_t>(count, 0));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclGroupStart(), ncclSuccess);
    EXPECT_EQ(nccl().ncclSend(send[r], count, ncclInt64, (r + 1) % n, comms_[r],
                              stream(r)),
              ncclSuccess);
    EXPECT_EQ(nccl().ncclRecv(recv[r], count, ncclInt64, (r + n - 1) % n,
                              comms_[r], stream(r)),
              ncclSuccess);
    EXPECT_EQ(nccl().ncclGroupEnd(), ncclSuccess);
    // Outside a group: rank 2 sends its last count - 1 elements to rank 0,
    // after the ring's message on the same (2 -> 0) FIFO.
    if (r == 2) {
      EXPECT_EQ(nccl().ncclSend(send[r] + 1, count - 1, ncclInt64, 0, comms_[r],
                                stream(r)),
                ncclSuccess);
    }
    if (r == 0) {
      EXPECT_EQ(nccl().ncclRecv(lone[r], count - 1, ncclInt64, 2, comms_[r],
                                stream(r)),
                ncclSuccess);
    }
  });
  SyncRanks(n);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(Read(recv[r], count), inputs[(r + n - 1) % n]) << "rank " << r;
  }
  std::vector<int64_t> want_lone(inputs[2].begin() + 1, inputs[2].end());
  want_lone.push_back(0);
  EXPECT_EQ(Read(lone[0], count), want_lone);
  EXPECT_TRUE(nccl_.errors().empty());
  EXPECT_EQ(Read(lone[1], count), std::vector<int64_t>(count, 0));
}

TEST_F(FakeNcclTest, OnlyTheOutermostGroupEndEnqueuesOneHostFunction) {
  InitComms(1);
  int32_t* send = Upload(0, std::vector<int32_t>{5, -6, 7});
  int32_t* recv = Upload(0, std::vector<int32_t>{0, 0, 0});
  const int launches = driver_.calls("cuLaunchHostFunc");
  ASSERT_EQ(nccl().ncclGroupStart(), ncclSuccess);
  ASSERT_EQ(nccl().ncclGroupStart(), ncclSuccess);
  EXPECT_EQ(nccl().ncclSend(send, 3, ncclInt32, 0, comms_[0], stream(0)),
            ncclSuccess);
  EXPECT_EQ(nccl().ncclRecv(recv, 3, ncclInt32, 0, comms_[0], stream(0)),
            ncclSuccess);
  ASSERT_EQ(nccl().ncclGroupEnd(), ncclSuccess);
  EXPECT_EQ(driver_.calls("cuLaunchHostFunc"), launches);
  ASSERT_EQ(nccl().ncclGroupEnd(), ncclSuccess);
  EXPECT_EQ(driver_.calls("cuLaunchHostFunc"), launches + 1);
  SyncRanks(1);
  EXPECT_EQ(Read(recv, 3), (std::vector<int32_t>{5, -6, 7}));
  EXPECT_EQ(nccl().ncclGroupEnd(), ncclInvalidUsage);  // no group open
}

TEST_F(FakeNcclTest, CommInitRankRejectsInvalidArguments) {
  ncclUniqueId id;
  ASSERT_EQ(nccl().ncclGetUniqueId(&id), ncclSuccess);
  ncclComm_t comm = nullptr;
  EXPECT_EQ(nccl().ncclCommInitRank(&comm, 3, id, 3), ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclCommInitRank(&comm, 3, id, -1), ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclCommInitRank(&comm, 0, id, 0), ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclCommInitRank(nullptr, 1, id, 0), ncclInvalidArgument);
  EXPECT_EQ(comm, nullptr);

  // Rank 0 twice: the second caller gets ncclInvalidUsage at once while the
  // first waits for rank 1.
  auto init = [&](ncclComm_t* out, int rank) {
    return std::async(std::launch::async, [this, &id, out, rank] {
      return nccl().ncclCommInitRank(out, 2, id, rank);
    });
  };
  ncclComm_t first = nullptr, second = nullptr;
  std::future<ncclResult_t> a = init(&first, 0);
  std::future<ncclResult_t> b = init(&second, 0);
  std::future<ncclResult_t>* done = nullptr;
  for (int i = 0; i < 10000 && done == nullptr; ++i) {
    if (a.wait_for(std::chrono::milliseconds(1)) == std::future_status::ready) {
      done = &a;
    } else if (b.wait_for(std::chrono::milliseconds(0)) ==
               std::future_status::ready) {
      done = &b;
    }
  }
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(done->get(), ncclInvalidUsage);
  std::future<ncclResult_t>& waiting = done == &a ? b : a;
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)),
            std::future_status::timeout);  // still waiting for rank 1
  std::future<ncclResult_t> one = init(&comms_[1], 1);
  EXPECT_EQ(waiting.get(), ncclSuccess);
  EXPECT_EQ(one.get(), ncclSuccess);
  comms_[0] = done == &a ? second : first;
  EXPECT_EQ(nccl_.live_comms(), 2);
  EXPECT_THAT(nccl_.errors(), Contains(HasSubstr("already taken")));
}

TEST_F(FakeNcclTest, UnsupportedTypesOpsAndArgumentsFailAtCallTime) {
  constexpr int n = 2;
  InitComms(n);
  float* buffer = Upload(0, std::vector<float>(8, 1.0f));
  const int launches = driver_.calls("cuLaunchHostFunc");
  EXPECT_EQ(nccl().ncclAllReduce(buffer, buffer, 4, ncclFloat8e4m3, ncclSum,
                                 comms_[0], stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclAllReduce(buffer, buffer, 4, ncclFloat8e5m2, ncclSum,
                                 comms_[0], stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclAvg,
                                 comms_[0], stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclAllGather(buffer, buffer, 4, ncclFloat8e4m3, comms_[0],
                                 stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclBroadcast(buffer, buffer, 4, ncclFloat32, n, comms_[0],
                                 stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclSend(buffer, 4, ncclFloat32, n, comms_[0], stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclRecv(buffer, 4, ncclFloat8e5m2, 1, comms_[0], stream(0)),
            ncclInvalidArgument);
  int not_a_comm = 0;
  EXPECT_EQ(nccl().ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum,
                                 reinterpret_cast<ncclComm_t>(&not_a_comm),
                                 stream(0)),
            ncclInvalidArgument);
  EXPECT_EQ(nccl().ncclCommDestroy(reinterpret_cast<ncclComm_t>(&not_a_comm)),
            ncclInvalidArgument);
  EXPECT_EQ(driver_.calls("cuLaunchHostFunc"), launches);  // nothing enqueued
}

class FakeNcclShortTimeoutTest : public FakeNcclTest {
 protected:
  static constexpr std::chrono::milliseconds kTimeout{200};
  FakeNcclShortTimeoutTest() : FakeNcclTest(ShortTimeout()) {}
  static FakeNccl::Options ShortTimeout() {
    FakeNccl::Options options;
    options.timeout = kTimeout;
    return options;
  }
};

TEST_F(FakeNcclShortTimeoutTest, RankThatNeverArrivesTimesOutInit) {
  ncclUniqueId id;
  ASSERT_EQ(nccl().ncclGetUniqueId(&id), ncclSuccess);
  const auto start = std::chrono::steady_clock::now();
  OnRanks(2, [&](int r) {  // rank 2 of 3 never calls
    ncclComm_t comm = nullptr;
    EXPECT_EQ(nccl().ncclCommInitRank(&comm, 3, id, r), ncclSystemError);
    EXPECT_EQ(comm, nullptr);
  });
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, kTimeout);
  EXPECT_LT(elapsed, std::chrono::seconds(10));
  EXPECT_EQ(nccl_.live_comms(), 0);
  EXPECT_THAT(nccl_.errors(), Contains(HasSubstr("ranks [2] never arrived")));
}

TEST_F(FakeNcclShortTimeoutTest, MismatchedCountsMakeTheErrorSticky) {
  constexpr int n = 2;
  InitComms(n);
  std::vector<float*> send(n), recv(n);
  for (int r = 0; r < n; ++r) {
    send[r] = Upload(r, std::vector<float>(6, 2.5f));
    recv[r] = Upload(r, std::vector<float>(6, -4.0f));
  }
  OnRanks(n, [&](int r) {
    EXPECT_EQ(nccl().ncclAllReduce(send[r], recv[r], 5 + r, ncclFloat32,
                                   ncclSum, comms_[r], stream(r)),
              ncclSuccess);  // the disagreement shows on the device
  });
  SyncRanks(n);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(Read(recv[r], 6), std::vector<float>(6, -4.0f)) << "rank " << r;
    EXPECT_EQ(nccl().ncclAllReduce(send[r], recv[r], 5, ncclFloat32, ncclSum,
                                   comms_[r], stream(r)),
              ncclInvalidUsage)
        << "rank " << r;
  }
  EXPECT_THAT(nccl_.errors(),
              Contains(HasSubstr("rank 0 has count 5 but rank 1 has count 6")));
}

TEST_F(FakeNcclShortTimeoutTest, ReceiveOfTheWrongSizeAndMissingPeer) {
  constexpr int n = 2;
  InitComms(n);
  float* send = Upload(0, std::vector<float>{1, 2, 3, 4});
  float* recv = Upload(1, std::vector<float>(5, 0.0f));
  OnRanks(n, [&](int r) {
    if (r == 0) {
      EXPECT_EQ(nccl().ncclSend(send, 4, ncclFloat32, 1, comms_[0], stream(0)),
                ncclSuccess);
    } else {
      EXPECT_EQ(nccl().ncclRecv(recv, 5, ncclFloat32, 0, comms_[1], stream(1)),
                ncclSuccess);
    }
  });
  SyncRanks(n);
  EXPECT_EQ(Read(recv, 5), std::vector<float>(5, 0.0f));
  EXPECT_EQ(nccl().ncclSend(recv, 1, ncclFloat32, 0, comms_[1], stream(1)),
            ncclInvalidUsage);
  EXPECT_THAT(nccl_.errors(), Contains(HasSubstr("expects 20 bytes")));

  // Rank 0 alone in an all-reduce: it gives up after the timeout.
  EXPECT_EQ(nccl().ncclAllReduce(send, send, 4, ncclFloat32, ncclSum, comms_[0],
                                 stream(0)),
            ncclSuccess);
  SyncRanks(1);
  EXPECT_EQ(nccl().ncclAllReduce(send, send, 4, ncclFloat32, ncclSum, comms_[0],
                                 stream(0)),
            ncclSystemError);
  EXPECT_EQ(Read(send, 4), (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace stream_executor::cuda
