// End to end: a small artifact (text proto -> binary .xaot) is inspected and
// run through the CLI functions with .npy inputs, and the outputs checked.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

// out0 = x + y (host kernel), out1 = x . y^T-ish GEMM: (2x3) x (3x2).
const char kArtifact[] = R"pb(
header { compiler_version: "test 1.0" production_date: "2026-11-29T00:00:00Z" }
payload {
  module_name: "cli_e2e"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 }
    result { element_type: PRIMITIVE_TYPE_TUPLE
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 2 } }
  }
  kernels { name: "add" host_symbol: "add_f32" }
  allocations { index: 0 size: 24 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 24 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 24 is_output: true }
  allocations { index: 3 size: 16 is_output: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 24 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 16 } }
  thunks { profile_annotation: "add.1" kernel { args { allocation: 0 size: 24 } args { allocation: 1 size: 24 } args { allocation: 2 size: 24 }
           launch_dimensions { grid_x: 6 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { profile_annotation: "dot.2" gemm { lhs { allocation: 0 size: 24 } rhs { allocation: 1 size: 24 } output { allocation: 3 size: 16 }
           element_type: PRIMITIVE_TYPE_F32 m: 2 n: 2 k: 3 transpose_rhs: true alpha: 1 } }
}
)pb";

struct Result {
  int code;
  std::string out, err;
};

template <typename F>
Result Call(F f, std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = f(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Tmp(const std::string& name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

std::string WriteArtifact() {
  const std::string path = Tmp("e2e.xaot");
  std::ofstream(path, std::ios::binary) << gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(kArtifact));
  return path;
}

TEST(RunInspect, InspectPrintsHeaderTablesAndThunks) {
  Result r = Call(RunInspect, {WriteArtifact(), "--dump_kernels=" + Tmp("dump")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* want : {"format_version: 1", "target: host", "compiler: test 1.0", "kernels (1):",
                           "[0] add: host_symbol add_f32", "[2] 24 bytes output", "thunks:",
                           "kernel [stream 0] \"add.1\" kernel 0 'add' grid={6,1,1}",
                           "gemm [stream 0] \"dot.2\" m=2 n=2 k=3", "wrote "}) {
    EXPECT_TRUE(absl::StrContains(r.out, want)) << want << "\n" << r.out;
  }
  std::ifstream so(Tmp("dump") + "/cli_e2e.so", std::ios::binary);
  std::string magic(4, '\0');
  so.read(magic.data(), 4);
  EXPECT_EQ(magic, "\x7f" "ELF");
}

// An sm_90 artifact whose one kernel keeps its cubin and the PTX it came
// from (--emit_cubin_with_ptx): inspect needs no GPU, and --dump_kernels
// writes both.
const char kCubinWithPtxArtifact[] = R"pb(
header { compiler_version: "test 1.0" production_date: "2026-11-30T00:00:00Z" target: "sm_90"
         required_runtime_features: "kernel_spec.cubin_with_ptx" }
payload {
  module_name: "both"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 3 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 3 }
  }
  kernels { name: "neg" cubin_with_ptx { cubin: "\x7f" "ELF cubin bytes" ptx: ".version 7.8 // neg" entry: "neg" } }
  allocations { index: 0 size: 12 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 12 is_output: true }
  outputs { slice { allocation: 1 size: 12 } }
  thunks { profile_annotation: "neg.1" kernel { args { allocation: 0 size: 12 } args { allocation: 1 size: 12 }
           launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 3 block_y: 1 block_z: 1 } } }
}
)pb";

TEST(RunInspect, DumpKernelsWritesTheCubinAndItsPtxFallback) {
  const std::string path = Tmp("both.xaot");
  std::ofstream(path, std::ios::binary)
      << gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(kCubinWithPtxArtifact));
  Result r = Call(RunInspect, {path, "--dump_kernels=" + Tmp("both_dump")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto read = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(Tmp("both_dump") + "/neg.cubin"), "\x7f" "ELF cubin bytes");
  EXPECT_EQ(read(Tmp("both_dump") + "/neg.ptx"), ".version 7.8 // neg");
}

TEST(RunInspect, RunWithNpyInputsWritesOutputs) {
  const std::string artifact = WriteArtifact();
  Literal x(Shape::Array(PrimitiveType::F32, {2, 3})), y(Shape::Array(PrimitiveType::F32, {2, 3}));
  for (int i = 0; i < 6; ++i) {
    x.SetDouble(i, i * 0.5 - 1);
    y.SetDouble(i, 3 - i);
  }
  ASSERT_TRUE(WriteNpyFile(Tmp("x.npy"), x).ok());
  ASSERT_TRUE(WriteNpyFile(Tmp("y.npy"), y).ok());
  Result r = Call(RunRun, {artifact, "--input=" + Tmp("x.npy"), "--input=" + Tmp("y.npy"),
                           "--output_dir=" + Tmp("out")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  absl::StatusOr<Literal> sum = ReadNpyFile(Tmp("out") + "/out0.npy");
  absl::StatusOr<Literal> dot = ReadNpyFile(Tmp("out") + "/out1.npy");
  ASSERT_TRUE(sum.ok() && dot.ok());
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(sum->GetDouble(i), x.GetDouble(i) + y.GetDouble(i));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double e = 0;
      for (int k = 0; k < 3; ++k) e += x.GetDouble(i * 3 + k) * y.GetDouble(j * 3 + k);
      EXPECT_FLOAT_EQ(dot->GetDouble(i * 2 + j), e);
    }
  }
}

TEST(RunInspect, RandomInputsPrintAndErrors) {
  const std::string artifact = WriteArtifact();
  Result r = Call(RunRun, {artifact, "--random_inputs", "--seed=3", "--print"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.out, "out0: f32[2,3] {")) << r.out;
  EXPECT_EQ(Call(RunRun, {artifact, "--random_inputs", "--seed=3"}).out, r.out);
  EXPECT_EQ(Call(RunRun, {}).code, kExitUsage);
  EXPECT_EQ(Call(RunRun, {artifact, "--bogus"}).code, kExitUsage);
  EXPECT_EQ(Call(RunInspect, {}).code, kExitUsage);
  Result missing = Call(RunRun, {artifact, "--input=" + Tmp("nope.npy"), "--input=" + Tmp("nope.npy")});
  EXPECT_EQ(missing.code, kExitBadInput);
  std::ofstream(Tmp("bad.xaot")) << "garbage";
  Result bad = Call(RunInspect, {Tmp("bad.xaot")});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(bad.err, "not a valid GpuExecutableProto")) << bad.err;
}

}  // namespace
}  // namespace xla::cli

namespace xla::cli {
namespace {

// A host artifact with a send of parameter 0 (f32[5], channel 1) and a
// recv into its output (channel 2); parameter 1 is a token.
const char kHostTransferArtifact[] = R"pb(
header { compiler_version: "test 1.0" production_date: "2026-12-03T00:00:00Z"
         required_runtime_features: "host_transfers" }
payload {
  module_name: "cli_host_transfers"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 }
    parameters { element_type: PRIMITIVE_TYPE_TOKEN }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 }
  }
  allocations { index: 0 size: 20 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 0 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 20 is_output: true }
  outputs { slice { allocation: 2 size: 20 } }
  thunks { profile_annotation: "send.1" host_send { channel_id: 1 rendezvous: "x_dtoh"
           shape { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 } slice { allocation: 0 size: 20 } } }
  thunks { profile_annotation: "recv.2" host_recv { channel_id: 2 rendezvous: "y_htod"
           shape { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 } slice { allocation: 2 size: 20 } } }
}
)pb";

TEST(RunCommand, HostTransfersFromTheCommandLine) {
  const std::string artifact = Tmp("host_transfers.xaot");
  std::ofstream(artifact, std::ios::binary)
      << gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(kHostTransferArtifact));
  Literal x(Shape::Array(PrimitiveType::F32, {5}));
  Literal y(Shape::Array(PrimitiveType::F32, {5}));
  for (int i = 0; i < 5; ++i) {
    reinterpret_cast<float*>(x.mutable_data().data())[i] = 0.25f * i + 1;
    reinterpret_cast<float*>(y.mutable_data().data())[i] = -3.5f * i - 2;
  }
  ASSERT_TRUE(WriteNpyFile(Tmp("hx_x.npy"), x).ok());
  ASSERT_TRUE(WriteNpyFile(Tmp("hx_y.npy"), y).ok());
  // One --input: the token parameter takes none.
  const Result r = Call(RunRun, {artifact, "--input=" + Tmp("hx_x.npy"),
                                 "--host_recv=2=" + Tmp("hx_y.npy"),
                                 "--host_send_dir=" + Tmp(""), "--output_dir=" + Tmp("hx_out")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "host send: channel 1 rendezvous \"x_dtoh\" f32[5]")) << r.err;
  absl::StatusOr<Literal> sent = ReadNpyFile(Tmp("send_1_0.npy"));
  ASSERT_TRUE(sent.ok()) << sent.status();
  EXPECT_TRUE(std::equal(sent->data().begin(), sent->data().end(), x.data().begin()));
  absl::StatusOr<Literal> out = ReadNpyFile(Tmp("hx_out/out0.npy"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(std::equal(out->data().begin(), out->data().end(), y.data().begin()));

  const Result inspect = Call(RunInspect, {artifact});
  ASSERT_EQ(inspect.code, kExitOk) << inspect.err;
  EXPECT_TRUE(absl::StrContains(
      inspect.out, "host_send [stream 0] \"send.1\" channel=1 rendezvous=\"x_dtoh\" f32[5] data: alloc0[0:20)"))
      << inspect.out;
  EXPECT_TRUE(absl::StrContains(inspect.out, "host_recv [stream 0] \"recv.2\" channel=2")) << inspect.out;

  const Result missing = Call(RunRun, {artifact, "--input=" + Tmp("hx_x.npy")});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(missing.err, "host_recv thunk 'recv.2'")) << missing.err;
  EXPECT_TRUE(absl::StrContains(missing.err, "pass --host_recv=2=FILE.npy")) << missing.err;
}

}  // namespace
}  // namespace xla::cli
