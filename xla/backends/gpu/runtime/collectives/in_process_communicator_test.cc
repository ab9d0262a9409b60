#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"

#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

// Runs `body(rank, communicator)` on `n` threads, one per device of the
// clique of devices {100, ..., 100 + n - 1}, and returns their statuses.
std::vector<absl::Status> RunOnAll(InProcessCliques& cliques, int n,
                                   const std::function<absl::Status(int, Communicator*)>& body) {
  std::vector<int64_t> devices;
  for (int i = 0; i < n; ++i) devices.push_back(100 + i);
  const CliqueKey key = *CliqueKey::Create(devices);
  std::vector<absl::Status> status(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      absl::StatusOr<Communicator*> comm = cliques.Get(key, 100 + r);
      if (!comm.ok()) {
        status[r] = comm.status();
        return;
      }
      status[r] = body(r, *comm);
    });
  }
  for (auto& t : threads) t.join();
  return status;
}

float InputF32(int rank, int i) { return 0.37f * (rank + 1) - 1.13f * i + 0.01f * i * i; }

class InProcessCommunicatorTest : public ::testing::TestWithParam<int> {};

TEST_P(InProcessCommunicatorTest, AllReduceSumF32IsDeterministic) {
  const int n = GetParam();
  constexpr int kCount = 37;
  InProcessCliques cliques;
  std::vector<std::vector<float>> out(n, std::vector<float>(kCount));
  for (int run = 0; run < 3; ++run) {
    auto status = RunOnAll(cliques, n, [&](int r, Communicator* c) {
      std::vector<float> in(kCount);
      for (int i = 0; i < kCount; ++i) in[i] = InputF32(r, i);
      std::vector<float> result(kCount);
      absl::Status s = c->AllReduce(run, ReductionKind::kSum, PrimitiveType::F32, in.data(),
                                    result.data(), kCount);
      if (run > 0 && std::memcmp(result.data(), out[r].data(), sizeof(float) * kCount) != 0) {
        return absl::InternalError("not bit-identical to the previous run");
      }
      out[r] = result;
      return s;
    });
    for (const absl::Status& s : status) ASSERT_TRUE(s.ok()) << s;
  }
  for (int i = 0; i < kCount; ++i) {
    float want = InputF32(0, i);  // rank order, as documented
    for (int r = 1; r < n; ++r) want += InputF32(r, i);
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(std::memcmp(&out[r][i], &want, sizeof(float)), 0) << "rank " << r << " i " << i;
    }
  }
  EXPECT_EQ(cliques.num_cliques(), 1);  // created once, reused by every run
}

TEST_P(InProcessCommunicatorTest, AllReduceMaxS32InPlace) {
  const int n = GetParam();
  constexpr int kCount = 13;
  InProcessCliques cliques;
  std::vector<std::vector<int32_t>> out(n);
  auto status = RunOnAll(cliques, n, [&](int r, Communicator* c) {
    std::vector<int32_t> buf(kCount);
    for (int i = 0; i < kCount; ++i) buf[i] = (i % 2 == 0 ? 1 : -1) * (r * 7 + i) - 50;
    absl::Status s = c->AllReduce(0, ReductionKind::kMax, PrimitiveType::S32, buf.data(),
                                  buf.data(), kCount);
    out[r] = buf;
    return s;
  });
  for (const absl::Status& s : status) ASSERT_TRUE(s.ok()) << s;
  for (int i = 0; i < kCount; ++i) {
    // Even i: grows with the rank, so the last rank wins; odd i: rank 0.
    const int32_t want = i % 2 == 0 ? ((n - 1) * 7 + i) - 50 : -(i)-50;
    for (int r = 0; r < n; ++r) EXPECT_EQ(out[r][i], want) << "rank " << r << " i " << i;
  }
}

TEST_P(InProcessCommunicatorTest, AllGatherReduceScatterAllToAllPermute) {
  const int n = GetParam();
  constexpr int kBlock = 3;  // s32 elements per rank block
  InProcessCliques cliques;
  std::vector<std::vector<int32_t>> gathered(n), scattered(n), exchanged(n), permuted(n);
  auto status = RunOnAll(cliques, n, [&](int r, Communicator* c) {
    std::vector<int32_t> mine(kBlock), full(kBlock * n);
    for (int i = 0; i < kBlock; ++i) mine[i] = 100 * r + i;
    for (int i = 0; i < kBlock * n; ++i) full[i] = 1000 * r + i;
    gathered[r].resize(kBlock * n);
    scattered[r].resize(kBlock);
    exchanged[r].resize(kBlock * n);
    permuted[r].resize(kBlock);
    absl::Status s = c->AllGather(1, mine.data(), gathered[r].data(), sizeof(int32_t) * kBlock);
    if (s.ok()) {
      s = c->ReduceScatter(1, ReductionKind::kSum, PrimitiveType::S32, full.data(),
                           scattered[r].data(), kBlock);
    }
    if (s.ok()) s = c->AllToAll(1, full.data(), exchanged[r].data(), sizeof(int32_t) * kBlock);
    // A ring: rank r receives from r - 1; rank 0 receives nothing.
    if (s.ok()) {
      s = c->CollectivePermute(1, mine.data(), permuted[r].data(), sizeof(int32_t) * kBlock,
                               r == 0 ? std::nullopt : std::optional<int64_t>(r - 1));
    }
    return s;
  });
  for (const absl::Status& s : status) ASSERT_TRUE(s.ok()) << s;
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < n; ++k) {
      for (int i = 0; i < kBlock; ++i) {
        EXPECT_EQ(gathered[r][k * kBlock + i], 100 * k + i);
        // Block k of all-to-all on rank r: rank k's block r.
        EXPECT_EQ(exchanged[r][k * kBlock + i], 1000 * k + r * kBlock + i);
      }
    }
    for (int i = 0; i < kBlock; ++i) {
      // sum over k of 1000 k + r * kBlock + i.
      EXPECT_EQ(scattered[r][i], 1000 * n * (n - 1) / 2 + n * (r * kBlock + i));
      EXPECT_EQ(permuted[r][i], r == 0 ? 0 : 100 * (r - 1) + i);
    }
  }
}

// Every rank gets the root's 11 bytes; each root in turn, the last in place.
TEST_P(InProcessCommunicatorTest, BroadcastFromEveryRoot) {
  const int n = GetParam();
  constexpr int kBytes = 11;  // odd
  InProcessCliques cliques;
  for (int root = 0; root < n; ++root) {
    std::vector<std::vector<char>> out(n);
    const bool in_place = root == n - 1;
    auto status = RunOnAll(cliques, n, [&](int r, Communicator* c) {
      std::vector<char> in(kBytes), result(kBytes, 0);
      for (int i = 0; i < kBytes; ++i) in[i] = static_cast<char>(17 * r + 3 * i + 1);
      char* recv = in_place ? in.data() : result.data();
      absl::Status s = c->Broadcast(root, in.data(), recv, kBytes, root);
      out[r].assign(recv, recv + kBytes);
      return s;
    });
    for (const absl::Status& s : status) ASSERT_TRUE(s.ok()) << s;
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < kBytes; ++i) {
        EXPECT_EQ(out[r][i], static_cast<char>(17 * root + 3 * i + 1))
            << "root " << root << " rank " << r << " byte " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, InProcessCommunicatorTest, ::testing::Values(2, 4, 8));

TEST(InProcessCommunicatorTest, MissingParticipantTimesOutNamingIt) {
  InProcessCliques cliques(absl::Milliseconds(300));
  const CliqueKey key = *CliqueKey::Create({0, 1, 2});
  std::vector<absl::Status> status(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {  // rank 2 never comes
    threads.emplace_back([&, r] {
      Communicator* c = *cliques.Get(key, r);
      float v = 1.5f;
      status[r] = c->AllReduce(9, ReductionKind::kSum, PrimitiveType::F32, &v, &v, 1);
    });
  }
  for (auto& t : threads) t.join();
  for (const absl::Status& s : status) {
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_NE(s.message().find("all-reduce #0 of run 9 on devices [0,1,2]: ranks [2] never arrived"),
              std::string::npos)
        << s;
  }
}

TEST(InProcessCommunicatorTest, SizeMismatchAndBadInputs) {
  InProcessCliques cliques;
  auto status = RunOnAll(cliques, 2, [&](int r, Communicator* c) {
    std::vector<char> buf(8 * (r + 1));
    std::vector<char> out(64);
    return c->AllGather(0, buf.data(), out.data(), buf.size());
  });
  for (const absl::Status& s : status) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("contributed"), std::string::npos) << s;
  }
  Communicator* c = *cliques.Get(*CliqueKey::Create({100, 101}), 100);
  float v = 0;
  absl::Status bad = c->AllReduce(5, ReductionKind::kAnd, PrimitiveType::F32, &v, &v, 1);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("and is not supported for f32"), std::string::npos) << bad;
  EXPECT_FALSE(cliques.Get(*CliqueKey::Create({100, 101}), 7).ok());
}

TEST(InProcessCommunicatorTest, BroadcastRejectsBadRootAndSizeMismatch) {
  InProcessCliques cliques(absl::Seconds(5));
  auto bad_root = RunOnAll(cliques, 2, [](int, Communicator* c) {
    char b[3] = {1, 2, 3};
    return c->Broadcast(0, b, b, 3, 2);
  });
  for (const absl::Status& s : bad_root) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("root rank 2 is outside [0, 2)"), std::string::npos) << s;
  }
  auto mismatch = RunOnAll(cliques, 2, [](int r, Communicator* c) {
    char b[5] = {1, 2, 3, 4, 5};
    return c->Broadcast(1, b, b, r == 0 ? 5 : 3, 0);
  });
  EXPECT_TRUE(mismatch[0].ok()) << mismatch[0];
  EXPECT_EQ(mismatch[1].code(), absl::StatusCode::kInvalidArgument) << mismatch[1];
  EXPECT_NE(mismatch[1].message().find("root rank 0 contributed 5 bytes but rank 1 expects 3"),
            std::string::npos)
      << mismatch[1];
}

TEST(ReduceIntoTest, KindsAndTypes) {
  int32_t a[3] = {5, -7, 2147483647};
  const int32_t b[3] = {-2, 9, 1};
  ASSERT_TRUE(ReduceInto(ReductionKind::kSum, PrimitiveType::S32, a, b, 3).ok());
  EXPECT_EQ(a[0], 3);
  EXPECT_EQ(a[1], 2);
  EXPECT_EQ(a[2], -2147483647 - 1);  // wraps
  uint8_t p[4] = {1, 1, 0, 0};
  const uint8_t q[4] = {1, 0, 1, 0};
  ASSERT_TRUE(ReduceInto(ReductionKind::kAnd, PrimitiveType::PRED, p, q, 4).ok());
  EXPECT_EQ(std::vector<int>(p, p + 4), (std::vector<int>{1, 0, 0, 0}));
  double x[2] = {1.5, -2.0};
  const double y[2] = {-3.0, 4.0};
  ASSERT_TRUE(ReduceInto(ReductionKind::kProd, PrimitiveType::F64, x, y, 2).ok());
  EXPECT_EQ(x[0], -4.5);
  EXPECT_EQ(x[1], -8.0);
  uint32_t u[2] = {0xF0, 3};
  const uint32_t w[2] = {0x0F, 10};
  ASSERT_TRUE(ReduceInto(ReductionKind::kOr, PrimitiveType::U32, u, w, 2).ok());
  EXPECT_EQ(u[0], 0xFFu);
  ASSERT_TRUE(ReduceInto(ReductionKind::kMin, PrimitiveType::U32, u, w, 2).ok());
  EXPECT_EQ(u[0], 0x0Fu);
  EXPECT_EQ(u[1], 10u);
}

}  // namespace
}  // namespace xla::gpu
