// The host builds `xla_aot compile` stores by default (x86-64-v4 generated
// from x86-64-v3's optimized IR, x86-64-v3, and the x86-64-v2 baseline),
// end to end: each build alone in an artifact, loaded by the runtime, run
// on this machine and compared with the evaluator, at sizes that divide by
// no vector width; a v4 build this runtime cannot judge is passed over for
// v3 (what a runtime that does not know AVX-512 does); and a v4 build that
// is not a shared object, or mis-declares its extensions, is refused at
// load naming the field (one that lacks kernels, at Initialize naming the
// kernel).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/host_vs_evaluator.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/host_object_variants.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/host/cpu_features.h"

namespace xla::aot {
namespace {

using ::xla::gpu::GpuExecutableProto;

// Log-softmax over rows of 257 (row max, exp, sum, log: the lane
// reductions) and a column sum over 37 rows.
constexpr char kHlo[] = R"(
HloModule variants

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[37,257] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[37] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[37,257] broadcast(m), dimensions={0}
  d = f32[37,257] subtract(x, mb)
  e = f32[37,257] exponential(d)
  s = f32[37] reduce(e, zero), dimensions={1}, to_apply=add_f32
  l = f32[37] log(s)
  lb = f32[37,257] broadcast(l), dimensions={0}
  ls = f32[37,257] subtract(d, lb)
  cols = f32[257] reduce(ls, zero), dimensions={0}, to_apply=add_f32
  ROOT t = (f32[37,257], f32[257]) tuple(ls, cols)
}
)";

CompileOptions DefaultBuilds() {
  CompileOptions options = HostTestCompileOptions();
  options.host_cpu_variants = CompileOptions().host_cpu_variants;  // v3 and v4
  return options;
}

const GpuExecutableProto& Compiled() {
  static const GpuExecutableProto* artifact = [] {
    absl::StatusOr<GpuExecutableProto> proto = CompileToProto(kHlo, DefaultBuilds());
    EXPECT_TRUE(proto.ok()) << proto.status();
    return new GpuExecutableProto(proto.ok() ? *std::move(proto) : GpuExecutableProto());
  }();
  return *artifact;
}

bool Declares(const gpu::HostObjectVariantProto& build, const std::string& feature) {
  for (const std::string& f : build.cpu_features()) {
    if (f == feature) return true;
  }
  return false;
}

// The artifact with `edit` applied to its payload and the checksum resealed.
std::string Edited(const std::function<void(gpu::GpuExecutablePayloadProto&)>& edit) {
  GpuExecutableProto a = Compiled();
  edit(*a.mutable_payload());
  gpu::SealArtifact(&a);
  return gpu::testing::SerializeArtifact(a);
}

// Loads `bytes`, runs them on fresh inputs and compares with the evaluator.
void ExpectMatchesEvaluator(const std::string& bytes, const std::string& what) {
  absl::StatusOr<HostProgram> program = PrepareHostProgram(kHlo, {}, 11);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::unique_ptr<Executable>> loaded = Executable::LoadFromBytes(bytes);
  ASSERT_TRUE(loaded.ok()) << what << ": " << loaded.status();
  program->executable = *std::move(loaded);
  absl::StatusOr<std::vector<Literal>> outputs = RunHostProgram(*program);
  ASSERT_TRUE(outputs.ok()) << what << ": " << outputs.status();
  absl::Status same = CompareWithEvaluator(*program, *outputs);
  EXPECT_TRUE(same.ok()) << what << ": " << same;
}

bool MachineHasAvx512() {
  return stream_executor::host::MachineCpuFeatures().count("avx512vl") == 1 &&
         stream_executor::host::MachineCpuFeatures().count("avx512bw") == 1;
}

TEST(HostCpuVariants, TheDefaultBuildsAreV4ThenV3) {
  const gpu::GpuExecutablePayloadProto& p = Compiled().payload();
  ASSERT_EQ(p.host_object_variants_size(), 2);
  for (const char* f : {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx2", "fma"}) {
    EXPECT_TRUE(Declares(p.host_object_variants(0), f)) << f;
  }
  EXPECT_TRUE(Declares(p.host_object_variants(1), "avx2"));
  EXPECT_FALSE(Declares(p.host_object_variants(1), "avx512f"));
  EXPECT_NE(p.host_object_variants(0).shared_object(), p.host_object_variants(1).shared_object());
  // This machine runs the widest build it has.
  const int chosen = gpu::ChooseHostObjectVariant(p, stream_executor::host::MachineCpuFeatures());
  EXPECT_EQ(chosen, MachineHasAvx512() ? 0 : (Declares(p.host_object_variants(1), "avx2") &&
                                                      stream_executor::host::MachineCpuFeatures().count("avx2")
                                                  ? 1
                                                  : -1));
}

TEST(HostCpuVariants, EachBuildAloneMatchesTheEvaluator) {
  ExpectMatchesEvaluator(gpu::testing::SerializeArtifact(Compiled()), "as compiled");
  ExpectMatchesEvaluator(Edited([](gpu::GpuExecutablePayloadProto& p) { p.clear_host_object_variants(); }),
                         "baseline only");
  ExpectMatchesEvaluator(Edited([](gpu::GpuExecutablePayloadProto& p) {
                           p.mutable_host_object_variants()->DeleteSubrange(0, 1);
                         }),
                         "x86-64-v3 only");
  if (!MachineHasAvx512()) GTEST_SKIP() << "this CPU cannot run the x86-64-v4 build";
  ExpectMatchesEvaluator(Edited([](gpu::GpuExecutablePayloadProto& p) {
                           p.mutable_host_object_variants()->DeleteSubrange(1, 1);
                         }),
                         "x86-64-v4 only");
}

// A runtime whose feature table lacks a build's extension never runs that
// build: here the v4 build names extensions no runtime knows, so this one
// runs v3, as a runtime that does not know the AVX-512 names would.
TEST(HostCpuVariants, AV4BuildTheRuntimeCannotJudgeFallsBackToV3) {
  const std::string bytes = Edited([](gpu::GpuExecutablePayloadProto& p) {
    for (std::string& f : *p.mutable_host_object_variants(0)->mutable_cpu_features()) {
      if (absl::StartsWith(f, "avx512")) f = "future" + f;
    }
  });
  GpuExecutableProto edited;
  ASSERT_TRUE(edited.ParseFromString(bytes));
  const int chosen =
      gpu::ChooseHostObjectVariant(edited.payload(), stream_executor::host::MachineCpuFeatures());
  EXPECT_NE(chosen, 0);
  ExpectMatchesEvaluator(bytes, "v4 build with unknown extensions");
}

void ExpectRefused(const std::string& bytes, const std::string& field, const std::string& finding) {
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(bytes);
  ASSERT_FALSE(exe.ok()) << field << ": loaded";
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument) << exe.status();
  EXPECT_TRUE(absl::StrContains(exe.status().message(), field)) << exe.status();
  EXPECT_TRUE(absl::StrContains(exe.status().message(), finding)) << exe.status();
}

TEST(HostCpuVariants, AHostileOrMisdeclaredV4BuildIsRefusedAtLoad) {
  // Not an ELF shared object (a truncated copy of the real build).
  ExpectRefused(Edited([](gpu::GpuExecutablePayloadProto& p) {
                  std::string* so = p.mutable_host_object_variants(0)->mutable_shared_object();
                  so->resize(so->size() / 3);
                }),
                "payload.host_object_variants[0].shared_object", "");
  // An extension list that is not a list of names.
  ExpectRefused(Edited([](gpu::GpuExecutablePayloadProto& p) {
                  p.mutable_host_object_variants(0)->set_cpu_features(2, "avx512f;rm -rf");
                }),
                "host_object_variants[0].cpu_features[2]", "is not a CPU feature name");
  // No bytes at all.
  ExpectRefused(Edited([](gpu::GpuExecutablePayloadProto& p) {
                  p.mutable_host_object_variants(0)->clear_shared_object();
                }),
                "host_object_variants[0].shared_object", "is empty");
  // Another module's kernels in the v4 build's place: the load checks that
  // a build exports nothing but kernels of the table, not that it exports
  // all of them, so this loads; running it on a CPU that picks the v4 build
  // fails at Initialize, naming the missing kernel.
  const GpuExecutableProto other = [] {
    absl::StatusOr<GpuExecutableProto> proto = CompileToProto(R"(
HloModule other
ENTRY main {
  x = f32[33] parameter(0)
  ROOT y = f32[33] sine(x)
})",
                                                               HostTestCompileOptions());
    EXPECT_TRUE(proto.ok()) << proto.status();
    return proto.ok() ? *proto : GpuExecutableProto();
  }();
  const std::string swapped = Edited([&](gpu::GpuExecutablePayloadProto& p) {
    p.mutable_host_object_variants(0)->set_shared_object(other.payload().host_shared_object());
  });
  absl::StatusOr<HostProgram> program = PrepareHostProgram(kHlo, {}, 11);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::unique_ptr<Executable>> loaded = Executable::LoadFromBytes(swapped);
  if (!loaded.ok()) {
    EXPECT_TRUE(absl::StrContains(loaded.status().message(), "host_object_variants[0]")) << loaded.status();
    return;
  }
  if (!MachineHasAvx512()) GTEST_SKIP() << "this CPU does not pick the x86-64-v4 build";
  program->executable = *std::move(loaded);
  absl::StatusOr<std::vector<Literal>> outputs = RunHostProgram(*program);
  ASSERT_FALSE(outputs.ok()) << "a v4 build without the kernels ran";
  EXPECT_TRUE(absl::StrContains(outputs.status().message(), "not found in module 'variants'"))
      << outputs.status();
}

}  // namespace
}  // namespace xla::aot
