#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"

#include <algorithm>
#include <cstdint>
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

// ---- bf16 and f16: per-step rounding in rank order ----

// Independent references for one step of a 16-bit float sum or product:
// bf16 by bit manipulation of the f32 result (round to nearest even, NaN
// to 0x7FC0), f16 through the compiler's _Float16 (IEEE, nearest even).
float Bf16Value(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
uint16_t Bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
float F16Value(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof(h));
  return static_cast<float>(h);
}
uint16_t F16Bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

// Nonzero inputs of rank r, element i, as bf16/f16 encodings.
uint16_t InputBits(bool bf16, int rank, int i) {
  const float v = 0.37f * (rank + 1) - 1.13f * i + 0.013f * i * i * (rank % 2 == 0 ? 1 : -1);
  return bf16 ? Bf16Bits(v) : F16Bits(v);
}

// Runs an all-reduce (scatter = false: `count` elements) or reduce-scatter
// (`count` elements per rank) of `type` over n ranks with inputs
// `input(rank, i)`; returns each rank's result.
std::vector<std::vector<uint16_t>> Run16(int n, bool scatter, ReductionKind kind, PrimitiveType type,
                                         int count, const std::function<uint16_t(int, int)>& input) {
  InProcessCliques cliques;
  std::vector<std::vector<uint16_t>> out(n, std::vector<uint16_t>(count));
  auto status = RunOnAll(cliques, n, [&](int r, Communicator* c) {
    std::vector<uint16_t> in(scatter ? count * n : count);
    for (size_t i = 0; i < in.size(); ++i) in[i] = input(r, static_cast<int>(i));
    return scatter ? c->ReduceScatter(0, kind, type, in.data(), out[r].data(), count)
                   : c->AllReduce(0, kind, type, in.data(), out[r].data(), count);
  });
  for (const absl::Status& s : status) EXPECT_TRUE(s.ok()) << s;
  return out;
}

class SixteenBitReductionTest : public ::testing::TestWithParam<int> {};

// bf16 encodings: 1 = 0x3F80, 2^-9 = 0x3B00, 1+2^-7 = 0x3F81.
TEST_P(SixteenBitReductionTest, Bf16SumRoundsAfterEachRankInRankOrder) {
  const int n = GetParam();
  constexpr int kCount = 7;
  // Column 0: rank 0 holds 1, every other rank 2^-9 (a quarter ulp of 1):
  // each step rounds back to 1, although with 5 ranks the exact sum 1+2^-7
  // is representable. Column 1: the tiny values come first (rank n-1 holds
  // 1): they add up exactly, to 2^-8 (3 ranks: then 1 + 2^-8 is a tie, to
  // even: 1) or 2^-7 (5 ranks: 1 + 2^-7). The other columns are ordinary
  // values, checked against the reference fold.
  auto input = [n](int r, int i) -> uint16_t {
    if (i == 0) return r == 0 ? 0x3F80 : 0x3B00;
    if (i == 1) return r == n - 1 ? 0x3F80 : 0x3B00;
    return InputBits(true, r, i);
  };
  const auto out = Run16(n, false, ReductionKind::kSum, PrimitiveType::BF16, kCount, input);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(out[r][0], 0x3F80) << "rank " << r;
    EXPECT_EQ(out[r][1], n == 5 ? 0x3F81 : 0x3F80) << "rank " << r;
    for (int i = 2; i < kCount; ++i) {
      uint16_t want = input(0, i);
      for (int k = 1; k < n; ++k) want = Bf16Bits(Bf16Value(want) + Bf16Value(input(k, i)));
      EXPECT_EQ(out[r][i], want) << "rank " << r << " element " << i;
    }
  }
}

TEST_P(SixteenBitReductionTest, F16AndBf16ReduceScatterSumAndProd) {
  const int n = GetParam();
  constexpr int kCount = 5;  // per rank
  for (bool bf16 : {true, false}) {
    const PrimitiveType type = bf16 ? PrimitiveType::BF16 : PrimitiveType::F16;
    auto value = [bf16](uint16_t b) { return bf16 ? Bf16Value(b) : F16Value(b); };
    auto bits = [bf16](float f) { return bf16 ? Bf16Bits(f) : F16Bits(f); };
    auto input = [bf16](int r, int i) { return InputBits(bf16, r, i); };
    for (ReductionKind kind : {ReductionKind::kSum, ReductionKind::kProd}) {
      const auto out = Run16(n, true, kind, type, kCount, input);
      for (int r = 0; r < n; ++r) {
        for (int i = 0; i < kCount; ++i) {
          const int at = r * kCount + i;  // block r of every rank
          uint16_t want = input(0, at);
          for (int k = 1; k < n; ++k) {
            const float a = value(want), b = value(input(k, at));
            want = bits(kind == ReductionKind::kSum ? a + b : a * b);
          }
          EXPECT_EQ(out[r][i], want) << PrimitiveTypeName(type) << " " << ReductionKindName(kind)
                                     << " rank " << r << " element " << i;
        }
      }
    }
  }
}

// The evaluator's maximum/minimum: a NaN wins (the first one, its payload
// kept), +0 beats -0 in max and -0 beats +0 in min, infinities order.
TEST_P(SixteenBitReductionTest, MinMaxNanInfAndSignedZeros) {
  const int n = GetParam();
  // bf16. Column 0: 1, NaN 0x7FC1, NaN 0xFFC2, 1, ...: the first NaN.
  // Column 1: -0 on rank 0, +0 elsewhere. Column 2: +0 on rank 0, -0
  // elsewhere. Column 3: -inf on the last rank, +inf on rank 0, finite
  // values between.
  auto input = [n](int r, int i) -> uint16_t {
    switch (i) {
      case 0: return r == 1 ? 0x7FC1 : r == 2 ? 0xFFC2 : 0x3F80;
      case 1: return r == 0 ? 0x8000 : 0x0000;
      case 2: return r == 0 ? 0x0000 : 0x8000;
      case 3: return r == 0 ? 0x7F80 : r == n - 1 ? 0xFF80 : InputBits(true, r, 3);
      default: return InputBits(true, r, i);
    }
  };
  const auto max = Run16(n, false, ReductionKind::kMax, PrimitiveType::BF16, 5, input);
  const auto min = Run16(n, false, ReductionKind::kMin, PrimitiveType::BF16, 5, input);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(max[r][0], 0x7FC1);
    EXPECT_EQ(min[r][0], 0x7FC1);
    EXPECT_EQ(max[r][1], 0x0000);
    EXPECT_EQ(min[r][1], 0x8000);
    EXPECT_EQ(max[r][2], 0x0000);
    EXPECT_EQ(min[r][2], 0x8000);
    EXPECT_EQ(max[r][3], 0x7F80);
    EXPECT_EQ(min[r][3], 0xFF80);
    float hi = Bf16Value(input(0, 4)), lo = hi;
    for (int k = 1; k < n; ++k) {
      hi = std::max(hi, Bf16Value(input(k, 4)));
      lo = std::min(lo, Bf16Value(input(k, 4)));
    }
    EXPECT_EQ(max[r][4], Bf16Bits(hi));
    EXPECT_EQ(min[r][4], Bf16Bits(lo));
  }
  // Sums: inf + -inf is the canonical NaN; inf + finite stays inf.
  auto inf = [n](int r, int i) -> uint16_t {
    if (i == 0) return r == 0 ? 0x7F80 : r == n - 1 ? 0xFF80 : 0x3F80;
    return r == 1 ? 0xFF80 : 0x4040;
  };
  const auto sum = Run16(n, false, ReductionKind::kSum, PrimitiveType::BF16, 2, inf);
  EXPECT_EQ(sum[0][0], 0x7FC0);
  EXPECT_EQ(sum[0][1], 0xFF80);
}

INSTANTIATE_TEST_SUITE_P(Participants, SixteenBitReductionTest, ::testing::Values(3, 5));

TEST(ReduceIntoTest, F8AndLogicalFloatReductionsAreRefusedNamingTheFix) {
  uint8_t a[3] = {0x38, 0x40, 0x44};
  const uint8_t b[3] = {0x38, 0x38, 0x38};
  absl::Status f8 = ReduceInto(ReductionKind::kSum, PrimitiveType::F8E4M3FN, a, b, 3);
  EXPECT_EQ(f8.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(f8.message().find("sum is not supported for f8e4m3fn"), std::string::npos) << f8;
  EXPECT_NE(f8.message().find("convert f8e4m3fn operands to f16, bf16 or f32"), std::string::npos) << f8;
  EXPECT_EQ(a[0], 0x38);  // untouched
  EXPECT_FALSE(IsSupportedReduction(ReductionKind::kMax, PrimitiveType::F8E5M2));
  EXPECT_FALSE(IsSupportedReduction(ReductionKind::kAnd, PrimitiveType::BF16));
  EXPECT_TRUE(IsSupportedReduction(ReductionKind::kProd, PrimitiveType::F16));
  EXPECT_TRUE(IsSupportedReduction(ReductionKind::kMin, PrimitiveType::BF16));
}

// f8 moves through the byte collectives unchanged: all-gather of
// f8e4m3fn encodings (including its NaN 0x7F and -0 0x80) over 3 ranks.
TEST(InProcessCommunicatorTest, F8AllGatherMovesEncodings) {
  InProcessCliques cliques;
  constexpr int kN = 3, kBytes = 5;
  std::vector<std::vector<uint8_t>> out(kN, std::vector<uint8_t>(kN * kBytes));
  auto status = RunOnAll(cliques, kN, [&](int r, Communicator* c) {
    const uint8_t in[kBytes] = {0x7F, 0x80, static_cast<uint8_t>(0x30 + r), 0x01,
                                static_cast<uint8_t>(0xC0 | r)};
    return c->AllGather(0, in, out[r].data(), kBytes);
  });
  for (const absl::Status& s : status) ASSERT_TRUE(s.ok()) << s;
  for (int r = 0; r < kN; ++r) {
    for (int k = 0; k < kN; ++k) {
      EXPECT_EQ(out[r][k * kBytes + 0], 0x7F);
      EXPECT_EQ(out[r][k * kBytes + 1], 0x80);
      EXPECT_EQ(out[r][k * kBytes + 2], 0x30 + k);
      EXPECT_EQ(out[r][k * kBytes + 4], 0xC0 | k);
    }
  }
}

}  // namespace
}  // namespace xla::gpu
