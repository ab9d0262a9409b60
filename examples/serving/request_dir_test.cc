// The directory mode: good request folders are served and their results
// written; malformed ones (a missing, an extra, a misnamed, a wrong-shape
// and a corrupt input) fail alone, each with a message naming its file.
#include "examples/serving/request_dir.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/types/npy.h"
#include "xla/types/random_literal.h"
#include "xla/util/subprocess.h"

namespace xla::serving {
namespace {

namespace fs = std::filesystem;

// Two parameters, two results (out0 and out1).
const char kModel[] = R"(
HloModule scale_rows

ENTRY main {
  x = f32[3,5]{1,0} parameter(0)
  y = f32[5]{0} parameter(1)
  yb = f32[3,5]{1,0} broadcast(y), dimensions={1}
  m = f32[3,5]{1,0} multiply(x, yb)
  s = f32[3,5]{1,0} add(m, x)
  n = f32[5]{0} negate(y)
  ROOT out = (f32[3,5]{1,0}, f32[5]{0}) tuple(s, n)
}
)";

Literal Random(const Shape& shape, uint64_t seed) {
  absl::StatusOr<Literal> v = MakeRandomLiteral(shape, seed);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? std::move(*v) : Literal();
}

void Write(const std::string& path, const Literal& value) {
  const absl::Status s = WriteNpyFile(path, value);
  ASSERT_TRUE(s.ok()) << s;
}

class RequestDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    aot::CompileOptions options;
    options.host_cpu_variants = {};
    absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(kModel, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(compiled->bytes);
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::unique_ptr<ModelServer>> server = ModelServer::Create(std::move(*exe));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    absl::StatusOr<std::unique_ptr<ScopedTempDir>> tmp = ScopedTempDir::Create("request_dir_test");
    ASSERT_TRUE(tmp.ok()) << tmp.status();
    tmp_ = std::move(*tmp);
    in_ = tmp_->path() + "/requests";
    out_ = tmp_->path() + "/results";
  }

  // A request folder with input_<i>.npy for each (index, value).
  std::string MakeRequest(const std::string& name, const std::map<std::string, Literal>& files) {
    const std::string dir = in_ + "/" + name;
    fs::create_directories(dir);
    for (const auto& [file, value] : files) Write(dir + "/" + file, value);
    return dir;
  }

  const Shape x_ = Shape::Array(PrimitiveType::F32, {3, 5});
  const Shape y_ = Shape::Array(PrimitiveType::F32, {5});
  std::unique_ptr<ModelServer> server_;
  std::unique_ptr<ScopedTempDir> tmp_;
  std::string in_, out_;
};

TEST_F(RequestDirTest, GoodRequestsServedMalformedOnesFailAlone) {
  std::map<std::string, std::vector<Literal>> good;
  for (const std::string name : {"a_good", "b_good", "h_good"}) {
    const uint64_t seed = 100 * (name[0] - 'a' + 1);
    good[name].push_back(Random(x_, seed));
    good[name].push_back(Random(y_, seed + 1));
    std::map<std::string, Literal> files;
    files["input_0.npy"] = Random(x_, seed);
    files["input_1.npy"] = Random(y_, seed + 1);
    MakeRequest(name, files);
  }
  ASSERT_TRUE(WriteFileBytes(in_ + "/a_good/notes.txt", "ignored").ok());
  MakeRequest("c_missing", {{"input_0.npy", Random(x_, 1)}});
  MakeRequest("d_extra", {{"input_0.npy", Random(x_, 2)}, {"input_1.npy", Random(y_, 3)}, {"input_2.npy", Random(y_, 4)}});
  MakeRequest("e_wrong_shape", {{"input_0.npy", Random(x_, 5)}, {"input_1.npy", Random(Shape::Array(PrimitiveType::F32, {7}), 6)}});
  MakeRequest("f_bad_name", {{"input_0.npy", Random(x_, 7)}, {"input_one.npy", Random(y_, 8)}});
  MakeRequest("g_corrupt", {{"input_0.npy", Random(x_, 9)}});
  ASSERT_TRUE(WriteFileBytes(in_ + "/g_corrupt/input_1.npy", "not numpy").ok());

  absl::StatusOr<DirectoryReport> report = ServeDirectory(*server_, in_, out_, 3);
  ASSERT_TRUE(report.ok()) << report.status();
  const std::vector<std::string> names = {"a_good",      "b_good",        "c_missing", "d_extra",
                                          "e_wrong_shape", "f_bad_name", "g_corrupt", "h_good"};
  ASSERT_EQ(report->names, names);
  EXPECT_EQ(report->failed, 5);
  const std::map<std::string, std::vector<std::string>> want_errors = {
      {"c_missing", {"c_missing/input_1.npy: missing input; the model takes 2 inputs (input_0.npy to input_1.npy)"}},
      {"d_extra", {"d_extra/input_2.npy: extra input"}},
      {"e_wrong_shape", {"e_wrong_shape/input_1.npy (parameter 1", "shape (7,)"}},
      {"f_bad_name", {"f_bad_name/input_one.npy: not an input name"}},
      {"g_corrupt", {"g_corrupt/input_1.npy: not a .npy file"}},
  };
  for (size_t r = 0; r < names.size(); ++r) {
    const absl::Status& status = report->statuses[r];
    auto want = want_errors.find(names[r]);
    if (want == want_errors.end()) {
      EXPECT_TRUE(status.ok()) << names[r] << ": " << status;
      continue;
    }
    ASSERT_FALSE(status.ok()) << names[r];
    for (const std::string& part : want->second) {
      EXPECT_NE(status.message().find(part), std::string::npos) << names[r] << ": " << status;
    }
    EXPECT_FALSE(fs::exists(out_ + "/" + names[r])) << names[r];
  }
  // Each good request's files hold what a session computes for its inputs.
  absl::StatusOr<std::unique_ptr<ModelServer::Session>> session = server_->NewSession();
  ASSERT_TRUE(session.ok()) << session.status();
  for (const auto& [name, inputs] : good) {
    absl::StatusOr<std::vector<Literal>> want = (*session)->Run(inputs);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(want->size(), 2u);
    for (size_t i = 0; i < want->size(); ++i) {
      absl::StatusOr<Literal> got = ReadNpyFile(absl::StrCat(out_, "/", name, "/out", i, ".npy"));
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(ShapesCompatible(got->shape(), (*want)[i].shape())) << name << " out" << i;
      EXPECT_TRUE(std::equal(got->data().begin(), got->data().end(), (*want)[i].data().begin(),
                             (*want)[i].data().end()))
          << name << " out" << i;
    }
    EXPECT_FALSE(fs::exists(absl::StrCat(out_, "/", name, "/out2.npy")));
  }
}

TEST_F(RequestDirTest, RefusesAFolderWithoutRequests) {
  absl::StatusOr<DirectoryReport> report = ServeDirectory(*server_, tmp_->path() + "/none", out_, 2);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound) << report.status();
  fs::create_directories(in_);
  ASSERT_TRUE(WriteFileBytes(in_ + "/input_0.npy", "a file, not a folder").ok());
  report = ServeDirectory(*server_, in_, out_, 2);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
  EXPECT_NE(report.status().message().find("no request folders"), std::string::npos) << report.status();
}

}  // namespace
}  // namespace xla::serving
