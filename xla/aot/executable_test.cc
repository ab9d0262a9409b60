// Hand-written artifacts (text protos) that run every thunk kind on the host
// platform, checked against values computed here.
#include "xla/aot/executable.h"

#include <cmath>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;
using ::xla::gpu::testing::HostExecutor;
using ::xla::gpu::testing::MakeArtifact;
using ::xla::gpu::testing::SerializeArtifact;

absl::StatusOr<std::unique_ptr<Executable>> Load(absl::string_view text) {
  return Executable::LoadFromBytes(SerializeArtifact(MakeArtifact(text)));
}

std::vector<Literal> RunArtifact(absl::string_view text, std::vector<Literal> args) {
  auto exe = Load(text);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return {};
  auto out = ExecuteOnLiterals(**exe, HostExecutor(), args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? std::move(*out) : std::vector<Literal>{};
}

Literal F32(std::vector<int64_t> dims, std::vector<float> values) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(i, values[i]);
  return l;
}

Literal RandomF32(std::vector<int64_t> dims, std::mt19937& rng) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, dist(rng));
  return l;
}

constexpr char kOneDim[] = "launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 }";

// x + y with a host kernel; also fills, adds and copies through custom
// calls, a copy thunk and a memset, into a 4-tuple result.
const char kMixed[] = R"pb(
payload {
  module_name: "mixed"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
    result {
      element_type: PRIMITIVE_TYPE_TUPLE
      tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
      tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
      tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
      tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
    }
  }
  kernels { name: "add" host_symbol: "add_f32" }
  allocations { index: 0 size: 64 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 64 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 64 is_output: true }
  allocations { index: 3 size: 64 is_output: true }
  allocations { index: 4 size: 64 is_output: true }
  allocations { index: 5 size: 64 is_output: true }
  allocations { index: 6 size: 64 is_temp: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 64 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 64 } }
  outputs { shape_index: 2 slice { allocation: 4 size: 64 } }
  outputs { shape_index: 3 slice { allocation: 5 size: 64 } }
  thunks { profile_annotation: "add" kernel { args { allocation: 0 size: 64 } args { allocation: 1 size: 64 } args { allocation: 2 size: 64 }
           launch_dimensions { grid_x: 16 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { profile_annotation: "fill" custom_call { target_name: "xla.host.fill_f32" results { allocation: 6 size: 64 } attributes { name: "value" f64: 1.5 } } }
  thunks { profile_annotation: "add2" custom_call { target_name: "xla.host.add_f32" operands { allocation: 6 size: 64 } operands { allocation: 1 size: 64 } results { allocation: 3 size: 64 } } }
  thunks { profile_annotation: "copy" copy { source { allocation: 0 size: 64 } destination { allocation: 4 size: 64 } } }
  thunks { profile_annotation: "ones" memset { destination { allocation: 5 size: 64 } pattern: 1065353216 } }
}
)pb";

TEST(Executable, RunsKernelCustomCallCopyAndMemset) {
  std::mt19937 rng(1);
  Literal x = RandomF32({16}, rng), y = RandomF32({16}, rng);
  std::vector<Literal> out = RunArtifact(kMixed, {x, y});
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 16; ++i) {
    EXPECT_FLOAT_EQ(out[0].GetDouble(i), float(x.GetDouble(i)) + float(y.GetDouble(i)));
    EXPECT_FLOAT_EQ(out[1].GetDouble(i), 1.5f + float(y.GetDouble(i)));
    EXPECT_EQ(out[2].GetDouble(i), x.GetDouble(i));
    EXPECT_EQ(out[3].GetDouble(i), 1.0);
  }
}

// acc = 0; counter = 0; while (counter < limit) { acc += x; ++counter }.
std::string WhileArtifact(absl::string_view trip_count) {
  return absl::StrCat(R"pb(
payload {
  module_name: "loop"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 }
  }
  kernels { name: "lt" host_symbol: "lt_s32" }
  kernels { name: "inc" host_symbol: "inc_s32" }
  kernels { name: "acc" host_symbol: "acc_f32" }
  constants { content: "\007\000\000\000" }
  allocations { index: 0 size: 16 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 16 is_output: true }
  allocations { index: 2 size: 4 is_temp: true }
  allocations { index: 3 size: 4 is_constant: true constant_index: 0 }
  allocations { index: 4 size: 1 is_temp: true }
  outputs { slice { allocation: 1 size: 16 } }
  thunks { memset { destination { allocation: 1 size: 16 } } }
  thunks { memset { destination { allocation: 2 size: 4 } } }
  thunks { profile_annotation: "loop" while {
    condition { thunks { kernel { kernel_index: 0 args { allocation: 2 size: 4 } args { allocation: 3 size: 4 } args { allocation: 4 size: 1 } )pb",
                      kOneDim, R"pb( } } }
    predicate { allocation: 4 size: 1 }
    body {
      thunks { kernel { kernel_index: 2 args { allocation: 1 size: 16 } args { allocation: 0 size: 16 } launch_dimensions { grid_x: 4 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
      thunks { kernel { kernel_index: 1 args { allocation: 2 size: 4 } )pb",
                      kOneDim, R"pb( } }
    }
    )pb", trip_count, R"pb(
  } }
}
)pb");
}

TEST(Executable, WhileLoopRunsUntilThePredicateIsFalse) {
  std::vector<Literal> out = RunArtifact(WhileArtifact(""), {F32({4}, {1, -2, 0.5, 3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], F32({4}, {7, -14, 3.5, 21}));
}

TEST(Executable, WhileLoopWithKnownTripCountSkipsTheCondition) {
  std::vector<Literal> out = RunArtifact(WhileArtifact("known_trip_count: 3"), {F32({4}, {1, -2, 0.5, 3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], F32({4}, {3, -6, 1.5, 9}));
}

const char kConditional[] = R"pb(
payload {
  module_name: "cond"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_S32 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 }
  }
  allocations { index: 0 size: 4 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 8 is_output: true }
  outputs { slice { allocation: 1 size: 8 } }
  thunks { conditional {
    branch_index { allocation: 0 size: 4 }
    branch_index_type: PRIMITIVE_TYPE_S32
    branches { thunks { memset { destination { allocation: 1 size: 8 } pattern: 1065353216 } } }
    branches { thunks { memset { destination { allocation: 1 size: 8 } pattern: 1073741824 } } }
    branches { thunks { memset { destination { allocation: 1 size: 8 } pattern: 1077936128 } } }
  } }
}
)pb";

TEST(Executable, ConditionalRunsTheIndexedBranchAndClampsToTheLast) {
  for (auto [index, expected] : std::vector<std::pair<int, float>>{{0, 1}, {1, 2}, {2, 3}, {7, 3}, {-1, 3}}) {
    Literal i(Shape::Scalar(PrimitiveType::S32));
    i.SetInt(0, index);
    std::vector<Literal> out = RunArtifact(kConditional, {i});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], F32({2}, {expected, expected})) << index;
  }
}

const char kGemm[] = R"pb(
payload {
  module_name: "dot"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 3 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 2 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 3 dimensions: 2 }
  }
  allocations { index: 0 size: 60 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 40 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 24 is_output: true }
  outputs { slice { allocation: 2 size: 24 } }
  thunks { gemm { lhs { allocation: 0 size: 60 } rhs { allocation: 1 size: 40 } output { allocation: 2 size: 24 }
                  element_type: PRIMITIVE_TYPE_F32 m: 3 n: 2 k: 5 transpose_lhs: true alpha: 1 } }
}
)pb";

TEST(Executable, GemmWithTransposedLhs) {
  std::mt19937 rng(2);
  Literal a = RandomF32({5, 3}, rng), b = RandomF32({5, 2}, rng);
  std::vector<Literal> out = RunArtifact(kGemm, {a, b});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      double sum = 0;
      for (int k = 0; k < 5; ++k) sum += a.GetDouble(k * 3 + i) * b.GetDouble(k * 2 + j);
      EXPECT_NEAR(out[0].GetDouble(i * 2 + j), sum, 1e-5);
    }
  }
}

// Stream 1 computes 2x while stream 0 computes x + y; the done joins them.
const char kAsync[] = R"pb(
payload {
  module_name: "async"
  num_streams: 2
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 8 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 8 }
    result { element_type: PRIMITIVE_TYPE_TUPLE
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 8 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 8 } }
  }
  kernels { name: "add" host_symbol: "add_f32" }
  kernels { name: "scale" host_symbol: "scale2_f32" }
  allocations { index: 0 size: 32 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 32 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 32 is_output: true }
  allocations { index: 3 size: 32 is_output: true }
  allocations { index: 4 size: 32 is_temp: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 32 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 32 } }
  thunks { async_start { async_id: 1 stream_id: 1 thunks {
    thunks { execution_stream_id: 1 kernel { kernel_index: 1 args { allocation: 0 size: 32 } args { allocation: 4 size: 32 }
             launch_dimensions { grid_x: 8 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } } } } }
  thunks { kernel { kernel_index: 0 args { allocation: 0 size: 32 } args { allocation: 1 size: 32 } args { allocation: 2 size: 32 }
           launch_dimensions { grid_x: 8 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { async_done { async_id: 1 } }
  thunks { copy { source { allocation: 4 size: 32 } destination { allocation: 3 size: 32 } } }
}
)pb";

TEST(Executable, AsyncStartRunsOnAnotherStreamAndDoneJoins) {
  std::mt19937 rng(3);
  Literal x = RandomF32({8}, rng), y = RandomF32({8}, rng);
  for (int repeat = 0; repeat < 3; ++repeat) {
    std::vector<Literal> out = RunArtifact(kAsync, {x, y});
    ASSERT_EQ(out.size(), 2u);
    for (int i = 0; i < 8; ++i) {
      EXPECT_FLOAT_EQ(out[0].GetDouble(i), float(x.GetDouble(i)) + float(y.GetDouble(i)));
      EXPECT_FLOAT_EQ(out[1].GetDouble(i), 2 * float(x.GetDouble(i)));
    }
  }
}

const char kRegistered[] = R"pb(
payload {
  module_name: "iota"
  program_shape { result { element_type: PRIMITIVE_TYPE_S32 dimensions: 5 } }
  kernels { name: "iota" registered_kernel: "xla.runtime.iota_s32" }
  allocations { index: 0 size: 20 is_output: true }
  outputs { slice { allocation: 0 size: 20 } }
  thunks { kernel { kernel_index: 0 args { allocation: 0 size: 20 }
           launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
}
)pb";

TEST(Executable, RegisteredKernel) {
  std::vector<Literal> out = RunArtifact(kRegistered, {});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[0].GetInt(i), i);
}

// out = x + 1, in place: the output aliases parameter 0.
const char kAliased[] = R"pb(
payload {
  module_name: "inplace"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 }
  }
  kernels { name: "acc" host_symbol: "acc_f32" }
  constants { content: "\000\000\200?\000\000\200?\000\000\200?\000\000\200?" }
  allocations { index: 0 size: 16 is_parameter: true parameter_number: 0 is_output: true }
  allocations { index: 1 size: 16 is_constant: true constant_index: 0 }
  outputs { slice { allocation: 0 size: 16 } }
  input_output_aliases { parameter_number: 0 kind: ALIAS_KIND_MAY_ALIAS }
  thunks { kernel { kernel_index: 0 args { allocation: 0 size: 16 } args { allocation: 1 size: 16 }
           launch_dimensions { grid_x: 4 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
}
)pb";

TEST(Executable, AliasedOutputCopiesABorrowedArgumentAndReusesADonatedOne) {
  se::StreamExecutor* executor = HostExecutor();
  auto exe = Load(kAliased);
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_TRUE((*exe)->Initialize(executor).ok());
  auto stream = executor->CreateStream();
  ASSERT_TRUE(stream.ok());
  const std::vector<float> input = {1, 2, 3, 4};
  auto arg = se::OwningDeviceMemory::Allocate(executor, 16);
  ASSERT_TRUE(arg.ok());
  ASSERT_TRUE((*stream)->Memcpy(arg->ptr(), input.data(), 16).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());

  std::vector<ExecutionArgument> borrowed;
  borrowed.push_back(ExecutionArgument::Borrow(arg->get()));
  auto out = (*exe)->Execute(executor, std::move(borrowed));
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> result(4), unchanged(4);
  ASSERT_TRUE((*stream)->Memcpy(result.data(), (*out)[0].get(), 16).ok());
  ASSERT_TRUE((*stream)->Memcpy(unchanged.data(), arg->get(), 16).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_EQ(result, (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(unchanged, input) << "a borrowed aliased argument was clobbered";
  EXPECT_NE((*out)[0].get().opaque, arg->get().opaque);

  void* donated_address = arg->get().opaque;
  std::vector<ExecutionArgument> donated;
  donated.push_back(ExecutionArgument::Donate(std::move(*arg)));
  auto out2 = (*exe)->Execute(executor, std::move(donated));
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ((*out2)[0].get().opaque, donated_address);
  ASSERT_TRUE((*stream)->Memcpy(result.data(), (*out2)[0].get(), 16).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_EQ(result, (std::vector<float>{2, 3, 4, 5}));
}

TEST(Executable, ExecuteBeforeInitializeAndWrongArgumentsFail) {
  auto exe = Load(kGemm);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = (*exe)->Execute(HostExecutor(), {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition) << out.status();
  ASSERT_TRUE((*exe)->Initialize(HostExecutor()).ok());
  out = (*exe)->Execute(HostExecutor(), {});
  EXPECT_TRUE(absl::StrContains(out.status().message(), "takes 2 arguments, got 0")) << out.status();
}

TEST(Executable, LoadFromFileStreamsTheArtifact) {
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/gemm.xaot";
  {
    std::ofstream file(path, std::ios::binary);
    file << SerializeArtifact(MakeArtifact(kGemm));
  }
  auto exe = Executable::LoadFromFile(path);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->program_shape().ToString(), "(f32[5,3], f32[5,2]) -> f32[3,2]");
  EXPECT_EQ(Executable::LoadFromFile(path + ".missing").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace xla::aot
