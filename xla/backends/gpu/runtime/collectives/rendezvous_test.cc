#include "xla/backends/gpu/runtime/collectives/rendezvous.h"

#include <cstring>
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
  t.join();  // rank 0 timed out already; its key is remembered with op all-reduce
  absl::Status s = r.Arrive(1, 0, "all-gather", 1, &v, sizeof(v)).status();
  ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("rank 1 arrived for all-gather but rank 0 for all-reduce"),
            std::string::npos)
      << s;
}

// Issue 12: a timed-out operation's slot used to stay in the map forever.
TEST(RendezvousTest, TimedOutSlotIsFreedAndLaterRunsWork) {
  Rendezvous r(3, "devices [0,1,2]", absl::Milliseconds(100));
  for (int run = 0; run < 5; ++run) {
    // Ranks 0 and 1 arrive, rank 2 never does: both fail and leave.
    const int v = run;
    absl::Status first;
    std::thread t([&] { first = r.Arrive(run, 0, "all-gather", 0, &v, sizeof(v)).status(); });
    absl::Status second = r.Arrive(run, 0, "all-gather", 1, &v, sizeof(v)).status();
    t.join();
    EXPECT_EQ(first.code(), absl::StatusCode::kDeadlineExceeded) << first;
    EXPECT_EQ(second.code(), absl::StatusCode::kDeadlineExceeded) << second;
    EXPECT_NE(second.message().find("ranks [2] never arrived"), std::string::npos) << second;
    EXPECT_EQ(r.num_slots(), 0) << "run " << run;
    // The straggler arrives late: refused at once, and no slot is left.
    absl::Status late = r.Arrive(run, 0, "all-gather", 2, &v, sizeof(v)).status();
    EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded) << late;
    EXPECT_NE(late.message().find("after another participant timed out"), std::string::npos)
        << late;
    EXPECT_EQ(r.num_slots(), 0) << "run " << run;
  }
  // A later run with every participant completes, with the right data.
  std::vector<std::thread> threads;
  std::vector<int> sums(3, 0);
  for (int rank = 0; rank < 3; ++rank) {
    threads.emplace_back([&, rank] {
      const int value = 7 * rank + 3;
      auto all = r.Arrive(/*run_id=*/100, 0, "all-gather", rank, &value, sizeof(value));
      ASSERT_TRUE(all.ok()) << all.status();
      for (int k = 0; k < 3; ++k) {
        int got = 0;
        std::memcpy(&got, (*all)->data[k].data(), sizeof(int));
        sums[rank] += got;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int rank = 0; rank < 3; ++rank) EXPECT_EQ(sums[rank], 3 + 10 + 17) << rank;
  EXPECT_EQ(r.num_slots(), 0);
}

TEST(RendezvousTest, SlotIsHeldOnlyWhileParticipantsWait) {
  Rendezvous r(2, "devices [0,1]", absl::Seconds(30));
  const int v = 5;
  std::thread t([&] { ASSERT_TRUE(r.Arrive(9, 0, "all-reduce", 0, &v, sizeof(v)).ok()); });
  while (r.num_slots() == 0) std::this_thread::yield();  // rank 0 is waiting
  EXPECT_EQ(r.num_slots(), 1);
  ASSERT_TRUE(r.Arrive(9, 0, "all-reduce", 1, &v, sizeof(v)).ok());
  t.join();
  EXPECT_EQ(r.num_slots(), 0);
}

TEST(RendezvousTest, RankOutOfRange) {
  Rendezvous r(2, "devices [0,1]", absl::Seconds(1));
  const int v = 1;
  EXPECT_EQ(r.Arrive(0, 0, "all-reduce", 2, &v, sizeof(v)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xla::gpu
