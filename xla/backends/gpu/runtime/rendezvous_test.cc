#include "xla/backends/gpu/runtime/rendezvous.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(RendezvousTest, EveryRankSeesEveryContribution) {
  constexpr int kSize = 4;
  Rendezvous r(kSize, "devices [0,1,2,3]", absl::Seconds(30));
  std::vector<std::vector<std::vector<char>>> seen(kSize);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kSize; ++rank) {
    threads.emplace_back([&, rank] {
      for (int op = 0; op < 3; ++op) {  // three ops in a row on the same run
        const int value = rank * 10 + op;
        auto all = r.Arrive(/*run_id=*/7, op, "all-gather", rank, &value, sizeof(value));
        ASSERT_TRUE(all.ok()) << all.status();
        for (int k = 0; k < kSize; ++k) {
          int got = 0;
          ASSERT_EQ((*all)->data[k].size(), sizeof(int));
          std::memcpy(&got, (*all)->data[k].data(), sizeof(int));
          EXPECT_EQ(got, k * 10 + op);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
}

TEST(RendezvousTest, TimeoutNamesMissingRanksAndOp) {
  Rendezvous r(3, "devices [0,1,2]", absl::Milliseconds(200));
  const int v = 1;
  absl::Status status;
  std::thread t([&] { status = r.Arrive(4, 0, "all-reduce", 1, &v, sizeof(v)).status(); });
  absl::Status mine = r.Arrive(4, 0, "all-reduce", 2, &v, sizeof(v)).status();
  t.join();
  ASSERT_EQ(mine.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(mine.message().find("all-reduce #0 of run 4 on devices [0,1,2]: ranks [0] never arrived"),
            std::string::npos)
      << mine;
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  // A late arrival is refused rather than run alone.
  absl::Status late = r.Arrive(4, 0, "all-reduce", 0, &v, sizeof(v)).status();
  EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(late.message().find("after another participant timed out"), std::string::npos);
}

TEST(RendezvousTest, DifferentOpsAtOneKeyAreAnError) {
  Rendezvous r(2, "devices [0,1]", absl::Milliseconds(300));
  const int v = 1;
  std::thread t([&] { (void)r.Arrive(1, 0, "all-reduce", 0, &v, sizeof(v)); });
  t.join();  // rank 0 timed out already; its slot stays with op all-reduce
  absl::Status s = r.Arrive(1, 0, "all-gather", 1, &v, sizeof(v)).status();
  ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("rank 1 arrived for all-gather but rank 0 for all-reduce"),
            std::string::npos)
      << s;
}

TEST(RendezvousTest, RankOutOfRange) {
  Rendezvous r(2, "devices [0,1]", absl::Seconds(1));
  const int v = 1;
  EXPECT_EQ(r.Arrive(0, 0, "all-reduce", 2, &v, sizeof(v)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xla::gpu
