// --host_recv / --host_send_dir: parsing, and the callbacks they make (a
// recv filled from its file, a missing file naming the channel, sends
// written per channel and counted).
#include "xla/tools/host_transfer_flags.h"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir == nullptr ? "/tmp" : dir;
}

TEST(HostTransferFlagsTest, ParsesAndRefusesBadValues) {
  HostTransferFlags f;
  std::string error;
  EXPECT_TRUE(ParseHostTransferFlag("--host_recv=5=y.npy", &f, &error));
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.recv_files.at(5), "y.npy");
  EXPECT_TRUE(ParseHostTransferFlag("--host_send_dir=out", &f, &error));
  EXPECT_EQ(f.send_dir, "out");
  EXPECT_FALSE(ParseHostTransferFlag("--input=a.npy", &f, &error));
  const std::pair<const char*, const char*> bad[] = {
      {"--host_recv=x=y.npy", "bad --host_recv value 'x=y.npy'"},
      {"--host_recv=-1=y.npy", "CHANNEL >= 0"},
      {"--host_recv=7", "bad --host_recv value '7'"},
      {"--host_recv=7=", "needs a .npy file"},
      {"--host_recv=5=z.npy", "channel 5 twice"},
      {"--host_send_dir=", "needs a directory"},
  };
  for (const auto& [arg, message] : bad) {
    error.clear();
    EXPECT_TRUE(ParseHostTransferFlag(arg, &f, &error)) << arg;
    EXPECT_TRUE(absl::StrContains(error, message)) << arg << " -> " << error;
  }
}

TEST(HostTransferFlagsTest, RecvReadsItsFileAndSendsAreWrittenPerChannel) {
  const Shape shape = Shape::Array(PrimitiveType::F32, {3, 5});
  Literal y(shape);
  float* ys = reinterpret_cast<float*>(y.mutable_data().data());
  for (int i = 0; i < 15; ++i) ys[i] = 1.5f * i - 4;
  const std::string y_path = TempDir() + "/y.npy";
  ASSERT_TRUE(WriteNpyFile(y_path, y).ok());
  HostTransferFlags f;
  f.recv_files[2] = y_path;
  f.send_dir = TempDir();
  std::ostringstream log;
  HostTransferServer server(f, &log);
  std::vector<uint8_t> got(60);
  ASSERT_TRUE(server.callbacks().recv(2, "y_htod", shape, absl::MakeSpan(got)).ok());
  EXPECT_EQ(std::memcmp(got.data(), y.data().data(), 60), 0);

  // Two sends on channel 4: send_4_0.npy and send_4_1.npy.
  for (int n = 0; n < 2; ++n) {
    std::vector<float> x(15);
    for (int i = 0; i < 15; ++i) x[i] = 10 * n + i + 0.5f;
    ASSERT_TRUE(server.callbacks()
                    .send(4, "x_dtoh", shape,
                          absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(x.data()), 60))
                    .ok());
    absl::StatusOr<Literal> file = ReadNpyFile(absl::StrCat(TempDir(), "/send_4_", n, ".npy"));
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_EQ(std::memcmp(file->data().data(), x.data(), 60), 0);
  }
  EXPECT_EQ(log.str(), "host send: channel 4 rendezvous \"x_dtoh\" f32[3,5]\n"
                       "host send: channel 4 rendezvous \"x_dtoh\" f32[3,5]\n");
}

TEST(HostTransferFlagsTest, ARecvWithoutAFileOrOfTheWrongShapeNamesTheChannel) {
  const std::string path = TempDir() + "/small.npy";
  ASSERT_TRUE(WriteNpyFile(path, Literal(Shape::Array(PrimitiveType::F32, {4}))).ok());
  HostTransferFlags f;
  f.recv_files[1] = path;
  std::ostringstream log;
  HostTransferServer server(f, &log);
  std::vector<uint8_t> data(20);
  const Shape shape = Shape::Array(PrimitiveType::F32, {5});
  const absl::Status missing = server.callbacks().recv(3, "_foo_htod_0", shape, absl::MakeSpan(data));
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(missing.message(),
                                "channel 3 rendezvous \"_foo_htod_0\" f32[5]: pass "
                                "--host_recv=3=FILE.npy"))
      << missing;
  const absl::Status wrong = server.callbacks().recv(1, "", shape, absl::MakeSpan(data));
  EXPECT_FALSE(wrong.ok());
  EXPECT_TRUE(absl::StrContains(wrong.message(), "the host recv on channel 1")) << wrong;
}

}  // namespace
}  // namespace xla::cli
