#include "tests/aot_compatibility/gpu/golden_io.h"

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "xla/types/npy.h"

namespace xla::golden {
namespace {

TEST(VersionsToCheckTest, OldestAndSecondNewestByDefault) {
  EXPECT_EQ(VersionsToCheck({}, false), std::vector<int>{});
  EXPECT_EQ(VersionsToCheck({1}, false), std::vector<int>{1});
  EXPECT_EQ(VersionsToCheck({1, 2}, false), std::vector<int>{1});
  EXPECT_EQ(VersionsToCheck({1, 2, 3}, false), (std::vector<int>{1, 2}));
  EXPECT_EQ(VersionsToCheck({1, 3, 4, 7}, false), (std::vector<int>{1, 4}));
  EXPECT_EQ(VersionsToCheck({1, 3, 4, 7}, true), (std::vector<int>{1, 3, 4, 7}));
}

TEST(ListVersionsTest, NumericOrderIgnoringOtherEntries) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/versions";
  for (const char* d : {"v10", "v2", "v1", "vx", "notes", "v0"}) {
    std::filesystem::create_directories(dir + "/" + d);
  }
  std::ofstream(dir + "/v3") << "a file, not a version";
  absl::StatusOr<std::vector<int>> v = ListVersions(dir);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<int>{1, 2, 10}));
  EXPECT_FALSE(ListVersions(dir + "/missing").ok());
}

Literal Floats(std::vector<double> values) {
  Literal l(Shape::Array(PrimitiveType::F32, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(i, values[i]);
  return l;
}

TEST(CompareOutputTest, RelativeToTheLargestExpectedValue) {
  // tol 1e-5 for f32: the bound at element 0 is 1e-5 * (0.001 + 100).
  EXPECT_TRUE(CompareOutput(Floats({0.001, 100, -3}), Floats({0.0015, 100.0005, -3})).ok());
  absl::Status s = CompareOutput(Floats({0.001, 100, -3}), Floats({0.001, 100, -2.9}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("first at index 2"), std::string::npos) << s;
  EXPECT_FALSE(CompareOutput(Floats({1, 2}), Floats({1, 2, 3})).ok());
}

TEST(LineDiffTest, MarksChangesWithContext) {
  EXPECT_EQ(LineDiff("a\nb\n", "a\nb\n"), "");
  EXPECT_EQ(LineDiff("a\nb\nc", "a\nx\nc"), "  a\n- b\n+ x\n  c\n");
  const std::string diff = LineDiff("1\n2\n3\n4\n5\n6\n7\n8\n9", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
  EXPECT_EQ(diff, "  ...\n  7\n  8\n  9\n+ 10\n");
}

TEST(WriteInputsAndExpectedTest, WritesEvaluatorResults) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/io";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/m.hlo") << "HloModule m\n"
                                   "ENTRY e {\n"
                                   "  a = f32[5] parameter(0)\n"
                                   "  b = f32[5] parameter(1)\n"
                                   "  s = f32[5] add(a, b)\n"
                                   "  m = f32[5] multiply(a, b)\n"
                                   "  ROOT t = (f32[5], f32[5]) tuple(s, m)\n"
                                   "}\n";
  ASSERT_TRUE(WriteInputsAndExpected(dir + "/m.hlo", 7, dir).ok());
  absl::StatusOr<std::vector<Literal>> in = ReadNumberedNpy(dir, "input_");
  absl::StatusOr<std::vector<Literal>> out = ReadNumberedNpy(dir, "expected_");
  ASSERT_TRUE(in.ok() && out.ok());
  ASSERT_EQ(in->size(), 2u);
  ASSERT_EQ(out->size(), 2u);
  bool nonzero = false;
  for (int64_t k = 0; k < 5; ++k) {
    const double a = (*in)[0].GetDouble(k), b = (*in)[1].GetDouble(k);
    nonzero |= a != 0;
    EXPECT_FLOAT_EQ((*out)[0].GetDouble(k), static_cast<float>(a + b));
    EXPECT_FLOAT_EQ((*out)[1].GetDouble(k), static_cast<float>(a * b));
  }
  EXPECT_TRUE(nonzero);
  EXPECT_FALSE(WriteInputsAndExpected(dir + "/missing.hlo", 7, dir).ok());
}

TEST(ReplicaCountOfTargetTest, OnlyHostNDevTargets) {
  EXPECT_EQ(ReplicaCountOfTarget("host_2dev"), 2);
  EXPECT_EQ(ReplicaCountOfTarget("host_13dev"), 13);
  for (const char* t : {"host", "sm_90", "sm_90_2gpu", "host_dev", "host_0dev", "host_2", "host_x2dev",
                        "host_-2dev", "xhost_2dev", "host_2devs"}) {
    EXPECT_EQ(ReplicaCountOfTarget(t), 0) << t;
  }
}

TEST(GpuTargetTest, ArchAndGpuCount) {
  EXPECT_EQ(GpuArchOfTarget("sm_90"), "sm_90");
  EXPECT_EQ(GpuCountOfTarget("sm_90"), 0);
  EXPECT_EQ(GpuArchOfTarget("sm_90_2gpu"), "sm_90");
  EXPECT_EQ(GpuCountOfTarget("sm_90_2gpu"), 2);
  EXPECT_EQ(GpuArchOfTarget("sm_80_16gpu"), "sm_80");
  EXPECT_EQ(GpuCountOfTarget("sm_80_16gpu"), 16);
  for (const char* t : {"host", "host_2dev", "sm_", "sm_90_", "sm_90_gpu", "sm_90_0gpu",
                        "sm_90_2gpus", "sm_90x", "xsm_90", "sm_90_2"}) {
    EXPECT_EQ(GpuArchOfTarget(t), "") << t;
    EXPECT_EQ(GpuCountOfTarget(t), 0) << t;
  }
}

TEST(WriteReplicatedInputsAndExpectedTest, StacksPerReplicaInputsAndLockstepResults) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/replicated";
  std::filesystem::create_directories(dir);
  // Replica r: (all-reduce sum of x over {0,1,2}, x + replica id).
  std::ofstream(dir + "/m.hlo") << "HloModule m, replica_count=3\n"
                                   "sum {\n"
                                   "  a = f32[] parameter(0)\n"
                                   "  b = f32[] parameter(1)\n"
                                   "  ROOT s = f32[] add(a, b)\n"
                                   "}\n"
                                   "ENTRY e {\n"
                                   "  x = f32[5] parameter(0)\n"
                                   "  ar = f32[5] all-reduce(x), replica_groups={{0,1,2}}, to_apply=sum\n"
                                   "  id = u32[] replica-id()\n"
                                   "  f = f32[] convert(id)\n"
                                   "  b = f32[5] broadcast(f), dimensions={}\n"
                                   "  y = f32[5] add(x, b)\n"
                                   "  ROOT t = (f32[5], f32[5]) tuple(ar, y)\n"
                                   "}\n";
  ASSERT_TRUE(WriteReplicatedInputsAndExpected(dir + "/m.hlo", 7, 3, dir).ok());
  absl::StatusOr<std::vector<Literal>> in = ReadNumberedNpy(dir, "input_");
  absl::StatusOr<std::vector<Literal>> out = ReadNumberedNpy(dir, "expected_");
  ASSERT_TRUE(in.ok() && out.ok());
  ASSERT_EQ(in->size(), 1u);
  ASSERT_EQ(out->size(), 2u);
  const std::vector<int64_t> dims = {3, 5};
  ASSERT_EQ((*in)[0].shape().dimensions(), dims);
  ASSERT_EQ((*out)[0].shape().dimensions(), dims);
  ASSERT_EQ((*out)[1].shape().dimensions(), dims);
  const Literal& x = (*in)[0];
  bool replicas_differ = false;
  for (int64_t k = 0; k < 5; ++k) {
    replicas_differ |= x.GetDouble(k) != x.GetDouble(5 + k);
    const float sum = static_cast<float>(static_cast<float>(x.GetDouble(k) + x.GetDouble(5 + k)) +
                                         static_cast<float>(x.GetDouble(10 + k)));
    for (int64_t r = 0; r < 3; ++r) {
      EXPECT_FLOAT_EQ((*out)[0].GetDouble(r * 5 + k), sum) << "replica " << r << " element " << k;
      EXPECT_FLOAT_EQ((*out)[1].GetDouble(r * 5 + k), static_cast<float>(x.GetDouble(r * 5 + k) + r));
    }
  }
  EXPECT_TRUE(replicas_differ) << "replicas drew the same inputs";
  EXPECT_FALSE(WriteReplicatedInputsAndExpected(dir + "/m.hlo", 7, 0, dir).ok());
  EXPECT_FALSE(WriteReplicatedInputsAndExpected(dir + "/missing.hlo", 7, 3, dir).ok());
}

}  // namespace
}  // namespace xla::golden
