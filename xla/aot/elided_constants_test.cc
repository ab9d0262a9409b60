// CompileOptions::elided_constants through the public API: a module whose
// weights, bias, embedding table, indices and a tuple constant are elided
// compiles for the host with invented values, records them in the artifact,
// and runs to the evaluator's results on the same module filled the same way.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/invented_constants.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/elided_constant_filler.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/types/random_literal.h"

namespace xla::aot {
namespace {

constexpr char kModel[] = R"(HloModule elided_model

ENTRY e {
  x = f32[9,33] parameter(0)
  w = f32[33,17] constant({...})
  bias = f32[17] constant({...})
  table = f32[11,17] constant({...})
  ids = s32[5,1] constant({...})
  pair = (f32[3], s32[2]) constant({...})
  d = f32[9,17] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[9,17] broadcast(bias), dimensions={1}
  y = f32[9,17] add(d, bb)
  t = f32[9,17] tanh(y)
  g = f32[5,17] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,17}
  first = f32[3] get-tuple-element(pair), index=0
  n = f32[3] negate(first)
  ROOT out = (f32[9,17], f32[5,17], f32[3]) tuple(t, g, n)
}
)";

CompileOptions HostOptions(ElidedConstantsMode mode, uint64_t seed) {
  CompileOptions options;
  options.host_cpu_variants = {};
  options.source_name = "model.hlo";
  options.elided_constants = mode;
  options.elided_constants_seed = seed;
  return options;
}

TEST(ElidedConstantsCompileTest, ErrorModeIsTheDefaultAndNamesTheConstant) {
  CompileOptions options;
  options.source_name = "model.hlo";
  absl::StatusOr<CompiledArtifact> compiled = Compile(kModel, options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(compiled.status().message(),
                                "model.hlo:5: constant %w (f32[33,17]) has an elided value"))
      << compiled.status();
  EXPECT_TRUE(absl::StrContains(compiled.status().message(), "--elided_constants=random"))
      << compiled.status();
}

TEST(ElidedConstantsCompileTest, RandomRunsToTheEvaluatorOnTheSameFilledModule) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kModel, HostOptions(ElidedConstantsMode::kRandom, 5));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->statistics.invented_constants,
            (std::vector<std::string>{"w", "bias", "table", "ids", "pair"}));
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const gpu::InventedConstantsProto& record = (*exe)->program().payload_tables().invented_constants();
  EXPECT_EQ(record.mode(), gpu::INVENTED_CONSTANTS_MODE_RANDOM);
  EXPECT_EQ(record.seed(), 5u);
  EXPECT_EQ(record.count(), 5);
  ASSERT_EQ(record.names_size(), 5);
  EXPECT_EQ(record.names(2), "table");

  absl::StatusOr<Literal> x = MakeRandomLiteral(Shape::Array(PrimitiveType::F32, {9, 33}), 17);
  ASSERT_TRUE(x.ok());
  absl::StatusOr<std::vector<Literal>> got = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), {*x});
  ASSERT_TRUE(got.ok()) << got.status();

  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModel, "model.hlo");
  ASSERT_TRUE(module.ok());
  ElidedConstantsOptions fill;
  fill.mode = ElidedConstantsMode::kRandom;
  fill.seed = 5;
  ASSERT_TRUE(FillElidedConstants(module->get(), fill).ok());
  std::vector<Literal> args;
  args.push_back(*x);
  absl::StatusOr<Literal> want = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ(want->tuple_elements().size(), 3u);
  ASSERT_EQ(got->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Literal& w = want->tuple_elements()[i];
    EXPECT_TRUE(CompareOutputLeaf(w, (*got)[i], 1.0).ok()) << i;
    double largest = 0;
    for (int64_t k = 0; k < w.element_count(); ++k) largest = std::max(largest, std::abs(w.GetDouble(k)));
    EXPECT_GT(largest, 0.05) << "output " << i << " is (nearly) zero: a weak check";
  }
  // Another seed invents other values, so the results differ.
  absl::StatusOr<CompiledArtifact> other = Compile(kModel, HostOptions(ElidedConstantsMode::kRandom, 6));
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<std::unique_ptr<Executable>> other_exe = Executable::LoadFromBytes(other->bytes);
  ASSERT_TRUE(other_exe.ok());
  absl::StatusOr<std::vector<Literal>> other_got =
      ExecuteOnLiterals(**other_exe, gpu::testing::HostExecutor(), {*x});
  ASSERT_TRUE(other_got.ok());
  EXPECT_FALSE(CompareOutputLeaf(want->tuple_elements()[0], (*other_got)[0], 1.0).ok());
}

TEST(ElidedConstantsCompileTest, ZerosAreRecordedWithoutSeed) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kModel, HostOptions(ElidedConstantsMode::kZeros, 9));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const gpu::InventedConstantsProto& record = (*exe)->program().payload_tables().invented_constants();
  EXPECT_EQ(record.mode(), gpu::INVENTED_CONSTANTS_MODE_ZEROS);
  EXPECT_EQ(record.seed(), 0u);
  Literal x(Shape::Array(PrimitiveType::F32, {9, 33}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, 0.01 * i - 1);
  absl::StatusOr<std::vector<Literal>> got = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), {x});
  ASSERT_TRUE(got.ok()) << got.status();
  // tanh(x . 0 + 0) = 0, rows of a zero table, -0.
  for (const Literal& leaf : *got) {
    for (int64_t k = 0; k < leaf.element_count(); ++k) EXPECT_EQ(leaf.GetDouble(k), 0.0);
  }
}

// The loader refuses a record with an unknown mode or oversize names, naming
// the field, even in an otherwise sound (resealed) artifact.
TEST(ElidedConstantsCompileTest, MalformedRecordIsRefusedAtLoad) {
  absl::StatusOr<gpu::GpuExecutableProto> artifact =
      CompileToProto(kModel, HostOptions(ElidedConstantsMode::kRandom, 5));
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  auto load = [](gpu::GpuExecutableProto a) {
    gpu::SealArtifact(&a);
    std::string bytes;
    a.SerializeToString(&bytes);
    return Executable::LoadFromBytes(bytes).status();
  };
  ASSERT_TRUE(load(*artifact).ok());
  gpu::GpuExecutableProto unknown_mode = *artifact;
  unknown_mode.mutable_payload()->mutable_invented_constants()->set_mode(
      static_cast<gpu::InventedConstantsModeProto>(3));
  absl::Status s = load(unknown_mode);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "invented_constants.mode: unknown mode 3")) << s;
  gpu::GpuExecutableProto long_name = *artifact;
  long_name.mutable_payload()->mutable_invented_constants()->set_names(
      0, std::string(gpu::kMaxInventedConstantNameBytes + 1, 'w'));
  s = load(long_name);
  EXPECT_TRUE(absl::StrContains(s.message(), "invented_constants.names[0]: 257 bytes")) << s;
  gpu::GpuExecutableProto many = *artifact;
  for (int i = 0; i < gpu::kMaxInventedConstantNames; ++i) {
    many.mutable_payload()->mutable_invented_constants()->add_names("c");
  }
  many.mutable_payload()->mutable_invented_constants()->set_count(1000);
  s = load(many);
  EXPECT_TRUE(absl::StrContains(s.message(), "invented_constants.names: 69 names")) << s;
}

// A module with nothing elided carries no record, whatever the mode.
TEST(ElidedConstantsCompileTest, NoRecordWithoutElidedConstants) {
  const char text[] = "HloModule plain\nENTRY e {\n  p = f32[7] parameter(0)\n  ROOT n = f32[7] negate(p)\n}\n";
  absl::StatusOr<CompiledArtifact> compiled = Compile(text, HostOptions(ElidedConstantsMode::kRandom, 1));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok());
  EXPECT_FALSE((*exe)->program().payload_tables().has_invented_constants());
}

}  // namespace
}  // namespace xla::aot
