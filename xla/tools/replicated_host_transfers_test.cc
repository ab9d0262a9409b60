// ReplicatedHostTransfers: each participant reads its own slice of a recv
// file and draws from its own seed, the sends carry the participant, and
// WriteSends stacks them (refusing sends only some participants made).
#include "xla/tools/replicated_host_transfers.h"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/types/npy.h"
#include "xla/types/random_literal.h"

namespace xla::cli {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir == nullptr ? "/tmp" : dir;
}

const Shape kRow = Shape::Array(PrimitiveType::F32, {5});

Literal Row(float base) {
  Literal l(kRow);
  float* v = reinterpret_cast<float*>(l.mutable_data().data());
  for (int i = 0; i < 5; ++i) v[i] = base + 0.5f * i;
  return l;
}

std::vector<float> Floats(const Literal& l) {
  const float* v = reinterpret_cast<const float*>(l.data().data());
  return std::vector<float>(v, v + l.element_count());
}

TEST(ReplicatedHostTransfersTest, EachParticipantReadsItsSliceAndSendsAreStacked) {
  Literal y(Shape::Array(PrimitiveType::F32, {3, 5}));
  float* ys = reinterpret_cast<float*>(y.mutable_data().data());
  for (int i = 0; i < 15; ++i) ys[i] = 2.5f * i - 7;
  const std::string y_path = TempDir() + "/ry.npy";
  ASSERT_TRUE(WriteNpyFile(y_path, y).ok());
  HostTransferFlags f;
  f.recv_files[1] = y_path;
  f.send_dir = TempDir();
  std::ostringstream log;
  ReplicatedHostTransfers host(f, 3, &log);
  ASSERT_EQ(host.evaluator_hooks().size(), 3u);
  ASSERT_EQ(host.callbacks().size(), 3u);
  for (int d = 2; d >= 0; --d) {  // out of order: each counts its own
    absl::StatusOr<Literal> got = host.evaluator_hooks()[d]->recv(1, "r", kRow);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Floats(*got), std::vector<float>(ys + 5 * d, ys + 5 * d + 5)) << d;
    ASSERT_TRUE(host.evaluator_hooks()[d]->send(4, "s", Row(10.0f * d)).ok());
  }
  EXPECT_TRUE(absl::StrContains(log.str(), "host send: participant 1 channel 4 rendezvous \"s\""))
      << log.str();
  const std::vector<HostSend> sends = host.sends();
  ASSERT_EQ(sends.size(), 3u);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(sends[d].participant, d);
    EXPECT_EQ(sends[d].index, 0);
  }
  ASSERT_TRUE(host.WriteSends().ok());
  absl::StatusOr<Literal> file = ReadNpyFile(TempDir() + "/send_4_0.npy");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->shape().ToString(false), "f32[3,5]");
  for (int d = 0; d < 3; ++d) {
    const std::vector<float> all = Floats(*file);
    EXPECT_EQ(std::vector<float>(all.begin() + 5 * d, all.begin() + 5 * d + 5),
              Floats(Row(10.0f * d)))
        << d;
  }
  // A second send from participant 0 only: no stack for send #1.
  ASSERT_TRUE(host.evaluator_hooks()[0]->send(4, "s", Row(1)).ok());
  const absl::Status partial = host.WriteSends();
  EXPECT_EQ(partial.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(partial.message(), "participant 1 made no send #1 on channel 4"))
      << partial;
}

TEST(ReplicatedHostTransfersTest, AFileWithoutTheLeadingDimensionIsNamed) {
  const std::string path = TempDir() + "/flat.npy";
  ASSERT_TRUE(WriteNpyFile(path, Row(0)).ok());
  HostTransferFlags f;
  f.recv_files[6] = path;
  ReplicatedHostTransfers host(f, 3, nullptr);
  std::vector<uint8_t> data(20);
  const absl::Status s = host.callbacks()[2]->recv(6, "in", kRow, absl::MakeSpan(data));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), path + " has shape f32[5], but with 3 participants "
                                                    "the host recv on channel 6"))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "needs a leading dimension of 3")) << s;
}

TEST(ReplicatedHostTransfersTest, DrawsUseEachParticipantsSeed) {
  HostTransferFlags f;
  f.random_seed = 11;
  ReplicatedHostTransfers host(f, 3, nullptr);
  for (int d = 0; d < 3; ++d) {
    for (int n = 0; n < 2; ++n) {
      absl::StatusOr<Literal> got = host.evaluator_hooks()[d]->recv(2, "", kRow);
      ASSERT_TRUE(got.ok()) << got.status();
      absl::StatusOr<Literal> want =
          MakeRandomLiteral(kRow, HostRecvSeed(ParticipantSeed(11, d), 2, n));
      ASSERT_TRUE(want.ok());
      EXPECT_EQ(got->data(), want->data()) << d << " #" << n;
    }
  }
  absl::StatusOr<Literal> p0 = MakeRandomLiteral(kRow, HostRecvSeed(ParticipantSeed(11, 0), 2, 0));
  absl::StatusOr<Literal> p1 = MakeRandomLiteral(kRow, HostRecvSeed(ParticipantSeed(11, 1), 2, 0));
  ASSERT_TRUE(p0.ok() && p1.ok());
  EXPECT_NE(p0->data(), p1->data());
}

}  // namespace
}  // namespace xla::cli
