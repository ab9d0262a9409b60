// `xla_aot eval --replicas=N`: stacked inputs in, stacked outputs out.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/types/literal.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = absl::StrCat(TempDir(), "/", name);
  std::ofstream(path) << text;
  return path;
}

// All-reduce (max) over every replica, plus replica-id, for f32[3].
constexpr char kModule[] = R"(HloModule allreduce
maxf {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
ENTRY e {
  p = f32[3] parameter(0)
  ar = f32[3] all-reduce(p), replica_groups={}, to_apply=maxf
  id = u32[] replica-id()
  ROOT t = (f32[3], u32[]) tuple(ar, id)
}
)";

Literal F32(std::vector<int64_t> dims, std::vector<double> values) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
  return l;
}

std::vector<double> Doubles(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

TEST(EvalReplicas, StackedInputsAndOutputs) {
  const std::string module = WriteFile("ar.hlo", kModule);
  const std::string input = absl::StrCat(TempDir(), "/in.npy");
  // Replica r gets row r.
  ASSERT_TRUE(WriteNpyFile(input, F32({3, 3}, {1, -5, 0.5,   //
                                               -2, 4, 0.25,  //
                                               3, -1, -7}))
                  .ok());
  const std::string out_dir = absl::StrCat(TempDir(), "/out3");
  ASSERT_EQ(system(absl::StrCat("mkdir -p ", out_dir).c_str()), 0);
  std::ostringstream out, err;
  ASSERT_EQ(
      RunEval({module, "--replicas=3", "--input=" + input, "--output_dir=" + out_dir}, out, err),
      kExitOk)
      << err.str();
  absl::StatusOr<Literal> maxes = ReadNpyFile(out_dir + "/out0.npy");
  ASSERT_TRUE(maxes.ok()) << maxes.status().message();
  EXPECT_EQ(maxes->shape().dimensions(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(Doubles(*maxes), (std::vector<double>{3, 4, 0.5, 3, 4, 0.5, 3, 4, 0.5}));
  absl::StatusOr<Literal> ids = ReadNpyFile(out_dir + "/out1.npy");
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(ids->shape().dimensions(), (std::vector<int64_t>{3}));
  EXPECT_EQ(Doubles(*ids), (std::vector<double>{0, 1, 2}));
}

TEST(EvalReplicas, WrongLeadingDimensionIsNamed) {
  const std::string module = WriteFile("ar2.hlo", kModule);
  const std::string input = absl::StrCat(TempDir(), "/in2.npy");
  ASSERT_TRUE(WriteNpyFile(input, F32({2, 3}, {1, 2, 3, 4, 5, 6})).ok());
  std::ostringstream out, err;
  EXPECT_EQ(RunEval({module, "--replicas=4", "--input=" + input}, out, err), kExitBadInput);
  EXPECT_NE(err.str().find("leading dimension of 4"), std::string::npos) << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(RunEval({module, "--replicas=0"}, out2, err2), kExitUsage);
}

TEST(EvalReplicas, RandomInputsDifferPerReplicaAndAgreeAfterAllReduce) {
  const std::string module = WriteFile("ar3.hlo", R"(HloModule sum
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[5] parameter(0)
  ar = f32[5] all-reduce(p), replica_groups={}, to_apply=add
  ROOT t = (f32[5], f32[5]) tuple(p, ar)
}
)");
  const std::string out_dir = absl::StrCat(TempDir(), "/out_random");
  ASSERT_EQ(system(absl::StrCat("mkdir -p ", out_dir).c_str()), 0);
  std::ostringstream out, err;
  ASSERT_EQ(
      RunEval({module, "--replicas=2", "--random_inputs", "--seed=3", "--output_dir=" + out_dir},
              out, err),
      kExitOk)
      << err.str();
  absl::StatusOr<Literal> inputs = ReadNpyFile(out_dir + "/out0.npy");
  absl::StatusOr<Literal> sums = ReadNpyFile(out_dir + "/out1.npy");
  ASSERT_TRUE(inputs.ok() && sums.ok());
  const std::vector<double> in = Doubles(*inputs), sum = Doubles(*sums);
  ASSERT_EQ(in.size(), 10u);
  bool differ = false;
  for (int i = 0; i < 5; ++i) {
    differ |= in[i] != in[5 + i];
    // f32 sum of two values, rounded once.
    EXPECT_EQ(sum[i], static_cast<double>(static_cast<float>(in[i] + in[5 + i])));
    EXPECT_EQ(sum[5 + i], sum[i]);
  }
  EXPECT_TRUE(differ) << "both replicas drew the same inputs";
}

}  // namespace
}  // namespace xla::cli
