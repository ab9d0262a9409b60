// Hostile host code at load: a real host artifact (the golden suite's
// softmax, f32[7,129], compiled here through xla/aot/compile.h) whose shared
// object is swapped for one that runs code when dlopened, or loads another
// library, or exports more than the kernels, and then re-sealed, as anyone
// who can write an artifact can. The checksum does not stop that; the host object
// check at load (xla/stream_executor/host/host_object_check.h) must: the
// load fails with InvalidArgument naming the field and the finding, before
// Initialize, and the constructor never runs (the marker file it would
// write stays absent).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/stream_executor/host/test_kernel_files.h"

namespace xla::aot {
namespace {

using ::xla::gpu::GpuExecutableProto;

// The golden suite's softmax (JAX's HLO, f32[7,129]).
constexpr char kSoftmaxPath[] = "tests/aot_compatibility/gpu/executables/host/v4/softmax/module.hlo";

std::string SoftmaxHlo() {
  std::ifstream file(absl::StrCat(std::getenv("TEST_SRCDIR"), "/xla_aot/", kSoftmaxPath));
  std::ostringstream text;
  text << file.rdbuf();
  EXPECT_FALSE(text.str().empty()) << "cannot read " << kSoftmaxPath;
  return text.str();
}

// The compiled artifact (with its x86-64-v3 build, as `xla_aot compile`
// writes by default).
const GpuExecutableProto& Softmax() {
  static const GpuExecutableProto* artifact = [] {
    CompileOptions options;
    options.production_date = "2026-12-01T00:00:00Z";
    absl::StatusOr<GpuExecutableProto> compiled = CompileToProto(SoftmaxHlo(), options);
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    return new GpuExecutableProto(compiled.ok() ? *compiled : GpuExecutableProto());
  }();
  return *artifact;
}

std::string Fixture(const std::string& file) {
  absl::StatusOr<std::string> bytes = stream_executor::host::ReadTestKernelFile("testdata/" + file);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

std::string FixturePath(const std::string& file) {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/xla_aot/xla/stream_executor/host/testdata/", file);
}

std::string TempPath(absl::string_view name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The artifact with `edit` applied and the checksum recomputed.
std::string Resealed(const std::function<void(gpu::GpuExecutablePayloadProto&)>& edit) {
  GpuExecutableProto a = Softmax();
  edit(*a.mutable_payload());
  gpu::SealArtifact(&a);
  return gpu::testing::SerializeArtifact(a);
}

// Loads `bytes` from memory and from a file, with XLA_HOSTILE_MARKER set
// to a fresh path; both loads must fail with InvalidArgument containing
// `prefix` and `finding`, and the marker must stay absent.
void ExpectRefusedAtLoad(const std::string& bytes, absl::string_view prefix, absl::string_view finding,
                         absl::string_view what) {
  static int loads = 0;
  const std::string marker = TempPath(absl::StrCat("marker_", getpid(), "_", ++loads));
  std::remove(marker.c_str());
  setenv("XLA_HOSTILE_MARKER", marker.c_str(), 1);
  const std::string file = TempPath("hostile.xaot");
  std::ofstream(file, std::ios::binary) << bytes;
  for (const bool from_file : {false, true}) {
    absl::StatusOr<std::unique_ptr<Executable>> exe =
        from_file ? Executable::LoadFromFile(file) : Executable::LoadFromBytes(bytes);
    if (exe.ok()) {
      // What a runtime without the check does next: Initialize dlopens the
      // object, and its constructor writes the marker.
      (void)(*exe)->Initialize(gpu::testing::HostExecutor());
      ADD_FAILURE() << what << ": the hostile artifact loaded";
      continue;
    }
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument) << what << ": " << exe.status();
    EXPECT_TRUE(absl::StartsWith(exe.status().message(), prefix)) << what << ": " << exe.status();
    EXPECT_TRUE(absl::StrContains(exe.status().message(), finding)) << what << ": " << exe.status();
    EXPECT_TRUE(absl::StrContains(exe.status().message(), "recompile the artifact with xla_aot compile"))
        << what << ": " << exe.status();
  }
  unsetenv("XLA_HOSTILE_MARKER");
  EXPECT_FALSE(Exists(marker)) << what << ": the constructor ran";
}

TEST(HostileHostCode, TheOriginalLoadsAndRuns) {
  const GpuExecutableProto& a = Softmax();
  ASSERT_FALSE(a.payload().host_shared_object().empty());
  ASSERT_GT(a.payload().host_object_variants_size(), 0);
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      Executable::LoadFromBytes(gpu::testing::SerializeArtifact(a));
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(SoftmaxHlo());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 7);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<std::vector<Literal>> outputs =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), *args);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(outputs->size(), 1u);
}

// Without the check the attack works: dlopen runs the constructor.
TEST(HostileHostCode, TheConstructorRunsUnderAPlainDlopen) {
  const std::string marker = TempPath(absl::StrCat("control_", getpid()));
  setenv("XLA_HOSTILE_MARKER", marker.c_str(), 1);
  void* handle = dlopen(FixturePath("constructor.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  unsetenv("XLA_HOSTILE_MARKER");
  ASSERT_NE(handle, nullptr) << dlerror();
  dlclose(handle);
  EXPECT_TRUE(Exists(marker)) << "the fixture's constructor did not run: the tests below would prove nothing";
}

TEST(HostileHostCode, AConstructorInTheBaselineObjectFailsTheLoad) {
  const std::string hostile = Fixture("constructor.so");
  ExpectRefusedAtLoad(Resealed([&](gpu::GpuExecutablePayloadProto& p) { p.set_host_shared_object(hostile); }),
                      "payload.host_shared_object: ", "has an initializer (DT_INIT_ARRAY, 1 entry)",
                      "baseline constructor");
}

TEST(HostileHostCode, AConstructorInAVariantFailsTheLoad) {
  const std::string hostile = Fixture("constructor.so");
  ExpectRefusedAtLoad(Resealed([&](gpu::GpuExecutablePayloadProto& p) {
                        p.mutable_host_object_variants(0)->set_shared_object(hostile);
                      }),
                      "payload.host_object_variants[0].shared_object: ",
                      "has an initializer (DT_INIT_ARRAY, 1 entry)", "variant constructor");
}

TEST(HostileHostCode, AnExtraExportFailsTheLoad) {
  const std::string extra = Fixture("extra_export.so");
  ExpectRefusedAtLoad(Resealed([&](gpu::GpuExecutablePayloadProto& p) { p.set_host_shared_object(extra); }),
                      "payload.host_shared_object: exports '", "which is not a kernel of its artifact",
                      "extra export");
}

TEST(HostileHostCode, ALibraryDependencyFailsTheLoad) {
  const std::string libz = Fixture("needs_libz.so");
  ExpectRefusedAtLoad(
      Resealed([&](gpu::GpuExecutablePayloadProto& p) {
        p.mutable_host_object_variants(0)->set_shared_object(libz);
      }),
      "payload.host_object_variants[0].shared_object: ", "needs the library libz.so.1 (DT_NEEDED)", "libz");
}

}  // namespace
}  // namespace xla::aot
