// The serving_example binary end to end: its flags (usage errors exit 2),
// the random-request summary, the directory mode with a malformed request
// (exit 1, the file named, the good request's results written) and a model
// that does not load (exit 1).
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/types/npy.h"
#include "xla/types/random_literal.h"
#include "xla/util/subprocess.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

const char kModel[] = R"(
HloModule affine

ENTRY main {
  x = f32[7,3]{1,0} parameter(0)
  w = f32[3,9]{1,0} parameter(1)
  d = f32[7,9]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[7,9]{1,0} tanh(d)
}
)";

class ServingExampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = absl::StrCat(std::getenv("TEST_SRCDIR"), "/xla_aot/examples/serving/serving_example");
    absl::StatusOr<std::unique_ptr<ScopedTempDir>> tmp = ScopedTempDir::Create("serving_example_test");
    ASSERT_TRUE(tmp.ok()) << tmp.status();
    tmp_ = std::move(*tmp);
    aot::CompileOptions options;
    options.host_cpu_variants = {};
    absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(kModel, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    model_ = tmp_->path() + "/affine.xaot";
    ASSERT_TRUE(WriteFileBytes(model_, compiled->bytes).ok());
  }

  ProcessResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), binary_);
    absl::StatusOr<ProcessResult> result = RunProcess(args);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : ProcessResult{-1, ""};
  }

  void WriteInput(const std::string& path, const Shape& shape, uint64_t seed) {
    fs::create_directories(fs::path(path).parent_path());
    absl::StatusOr<Literal> v = MakeRandomLiteral(shape, seed);
    ASSERT_TRUE(v.ok()) << v.status();
    ASSERT_TRUE(WriteNpyFile(path, *v).ok());
  }

  std::string binary_, model_;
  std::unique_ptr<ScopedTempDir> tmp_;
};

TEST_F(ServingExampleTest, BadFlagsAreUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {model_, "--threads=0"},
      {model_, "--requests=-3"},
      {model_, "--threads=two"},
      {model_, "--bogus"},
      {model_, "--execute=gpu"},
      {model_, "--requests_dir=" + tmp_->path()},
      {model_, "--requests_dir=" + tmp_->path(), "--output_dir=o", "--requests=5"},
      {model_, model_},
  };
  for (const std::vector<std::string>& args : bad) {
    const ProcessResult r = Run(args);
    EXPECT_EQ(r.exit_code, 2) << args.size() << " args: " << r.output;
    EXPECT_NE(r.output.find("usage: serving_example"), std::string::npos) << r.output;
  }
  EXPECT_EQ(Run({"--help"}).exit_code, 0);
}

TEST_F(ServingExampleTest, RandomRequestsPrintTheSummary) {
  for (const std::string execute : {"device", "literals"}) {
    const ProcessResult r = Run({model_, "--threads=3", "--requests=17", "--seed=5", "--execute=" + execute});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const std::string line : {"requests:    17\n", "threads:     3\n", "wall time:", "throughput:",
                                    "requests/s\n", "latency p50:", "latency p90:", "latency p99:",
                                    "latency max:", "device:      host 0\n"}) {
      EXPECT_NE(r.output.find(line), std::string::npos) << execute << ": " << line << " in\n" << r.output;
    }
  }
}

TEST_F(ServingExampleTest, DirectoryModeFailsTheMalformedRequestOnly) {
  const std::string in = tmp_->path() + "/requests", out = tmp_->path() + "/results";
  const Shape x = Shape::Array(PrimitiveType::F32, {7, 3}), w = Shape::Array(PrimitiveType::F32, {3, 9});
  WriteInput(in + "/good/input_0.npy", x, 1);
  WriteInput(in + "/good/input_1.npy", w, 2);
  WriteInput(in + "/short/input_0.npy", x, 3);
  const ProcessResult r = Run({model_, "--requests_dir=" + in, "--output_dir=" + out, "--threads=2"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("request short failed: " + in + "/short/input_1.npy: missing input"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 ok, 1 failed"), std::string::npos) << r.output;
  absl::StatusOr<Literal> result = ReadNpyFile(out + "/good/out0.npy");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->shape().ToString(false), "f32[7,9]");
  EXPECT_FALSE(fs::exists(out + "/short"));
  // With the bad request fixed, everything succeeds.
  WriteInput(in + "/short/input_1.npy", w, 4);
  const ProcessResult fixed = Run({model_, "--requests_dir=" + in, "--output_dir=" + out, "--threads=2"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_TRUE(fs::exists(out + "/short/out0.npy"));
}

TEST_F(ServingExampleTest, AModelThatDoesNotLoadExitsOne) {
  const ProcessResult missing = Run({tmp_->path() + "/none.xaot", "--requests=3"});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("none.xaot"), std::string::npos) << missing.output;
  ASSERT_TRUE(WriteFileBytes(tmp_->path() + "/junk.xaot", "junk").ok());
  EXPECT_EQ(Run({tmp_->path() + "/junk.xaot"}).exit_code, 1);
}

}  // namespace
}  // namespace xla
