// Transformer Engine's fused attention end to end on the host: a module
// that runs te_fused_attn_forward_ffi and feeds its output and stats to
// te_fused_attn_backward_ffi is compiled for the host without
// --allow_custom_calls (the built-in handlers, te_fused_attention_host.h),
// loaded, run, and every result (output, softmax stats, dq, dk/dkv, dv) is
// checked against the evaluator's f64 reference at odd sizes: sequence
// lengths 33, 40 and 257, head dims 8, 16 and 64, GQA ratios 1 and 4, every
// mask (with unequal and empty padded lengths), the BSHD_BSHD_BSHD and
// BSHD_BS2HD layouts (plus SBHD and BS3HD), bf16 and f16. Also: a call
// whose cu_seqlens are out of range fails the run naming the operand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/ffi/te_fused_attention_test_util.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

using gpu::ffi::testing::MakeTeAttentionCase;
using gpu::ffi::testing::TeAttentionCase;
using gpu::ffi::testing::TeAttentionHlo;

struct HostCase {
  TeAttentionCase c;
  // Per-batch lengths for padding masks (empty: full).
  std::vector<int64_t> q_lens, kv_lens;
};


const HostCase kCases[] = {
    {MakeTeAttentionCase(2, 33, 33, 4, 4, 8, 9, 0), {}, {}},
    {MakeTeAttentionCase(2, 33, 33, 4, 1, 8, 7, 1), {33, 20}, {27, 33}},
    {MakeTeAttentionCase(2, 40, 40, 4, 1, 16, 9, 2), {}, {}},
    {MakeTeAttentionCase(2, 40, 40, 4, 4, 16, 7, 3), {40, 9}, {31, 40}},
    {MakeTeAttentionCase(2, 40, 40, 4, 1, 16, 9, 1), {0, 40}, {40, 0}},  // empty sequences
    {MakeTeAttentionCase(1, 257, 257, 4, 1, 64, 9, 3), {250}, {257}},
    {MakeTeAttentionCase(1, 257, 257, 4, 4, 64, 7, 0), {}, {}},
    {MakeTeAttentionCase(1, 257, 257, 4, 1, 16, 7, 2), {}, {}},
    {MakeTeAttentionCase(2, 33, 40, 4, 1, 16, 9, 2), {}, {}},  // unequal q and kv lengths
    {MakeTeAttentionCase(2, 40, 33, 4, 4, 8, 7, 3), {40, 17}, {33, 5}},
    {MakeTeAttentionCase(2, 33, 33, 4, 1, 8, 9, 3, "f16"), {33, 1}, {33, 2}},
    {MakeTeAttentionCase(2, 33, 33, 4, 4, 16, 4, 2), {}, {}},             // SBHD_SBHD_SBHD
    {MakeTeAttentionCase(2, 40, 40, 4, 4, 8, 5, 1), {40, 12}, {40, 12}},  // BS3HD
    {MakeTeAttentionCase(2, 33, 33, 4, 1, 8, 2, 0), {}, {}},              // SBHD_SB2HD
};

std::vector<Literal> Arguments(const HostCase& h) {
  return gpu::ffi::testing::TeAttentionArguments(h.c, h.q_lens, h.kv_lens, 100);
}

CompileOptions HostOptions() {
  CompileOptions options;
  options.target = "host";
  options.host_cpu_variants = {};
  return options;  // no allowed_custom_calls: the built-ins must be known
}

class TeFusedAttentionHost : public ::testing::TestWithParam<HostCase> {};

// Runs the forward + backward module of `h` on the host and on the
// evaluator with `args` and compares every result.
void ExpectMatchesTheEvaluator(const HostCase& h, const std::vector<Literal>& args) {
  const std::string hlo = TeAttentionHlo(h.c, /*backward=*/true);

  absl::StatusOr<Literal> expected = evaluator_test::EvalText(hlo, args);
  ASSERT_TRUE(expected.ok()) << expected.status();

  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, HostOptions());
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << hlo;
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::vector<Literal>> out =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<Literal>& want = expected->tuple_elements();
  ASSERT_EQ(out->size(), want.size());

  // bf16/f16 results carry 8/11 significant bits; the handler accumulates
  // in f32 and its backward takes rowsum(dO * O) from the rounded output.
  const double tolerance = h.c.type == "bf16" ? 8e-3 : 1e-3;  // observed: 2.5e-3, 2e-4
  static constexpr const char* kNames[] = {"output", "softmax_aux", "dq", "dk (or dkv)", "dv"};
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ((*out)[r].element_count(), want[r].element_count()) << kNames[r];
    double worst = 0, scale = 0;
    int64_t worst_at = -1;
    for (int64_t i = 0; i < want[r].element_count(); ++i) {
      const double a = (*out)[r].GetDouble(i), b = want[r].GetDouble(i);
      scale = std::max(scale, std::abs(b));
      const double err = std::abs(a - b) / (1 + std::abs(b));
      // A NaN (on either side) is the worst and stays so.
      if (!std::isnan(worst) && !(err <= worst)) {
        worst = err;
        worst_at = i;
      }
    }
    EXPECT_LE(worst, r == 1 ? 1e-5 : tolerance)
        << h.c.Name() << " " << kNames[r] << " element " << worst_at << ": host "
        << (*out)[r].GetDouble(worst_at) << ", evaluator " << want[r].GetDouble(worst_at)
        << " (largest magnitude " << scale << ")";
  }
}

TEST_P(TeFusedAttentionHost, MatchesTheEvaluator) {
  ExpectMatchesTheEvaluator(GetParam(), Arguments(GetParam()));
}

// Padding positions may hold anything: NaN in Q, K, V and dO past each
// sequence's length must not reach any result (a hidden key weighs 0, and
// 0 * NaN is NaN), including a sequence with no keys.
TEST(TeFusedAttentionHostPadding, NaNInThePaddingStaysOut) {
  const HostCase h = {MakeTeAttentionCase(2, 40, 40, 4, 2, 16, 9, 3), {33, 9}, {31, 0}};
  std::vector<Literal> args = Arguments(h);
  const int64_t seq = 40, heads[] = {4, 2, 2, 0, 0, 4}, dim = 16;
  for (int a : {0, 1, 2, 5}) {  // q, k, v, dout ([B, S, heads, D])
    const std::vector<int64_t>& lens = a == 1 || a == 2 ? h.kv_lens : h.q_lens;
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t i = lens[b] * heads[a] * dim; i < seq * heads[a] * dim; ++i) {
        args[a].SetDouble(b * seq * heads[a] * dim + i, std::nan(""));
      }
    }
  }
  ASSERT_TRUE(std::isnan(args[2].GetDouble(args[2].element_count() - 1)));
  ExpectMatchesTheEvaluator(h, args);
}

INSTANTIATE_TEST_SUITE_P(Cases, TeFusedAttentionHost, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<HostCase>& info) {
                           return info.param.c.Name();
                         });

// The artifact names the built-in handlers as a required runtime feature,
// so a runtime from before them refuses it at load, by name; a compile for
// such a runtime fails.
TEST(TeFusedAttentionHostErrors, ArtifactRequiresTheBuiltInHandlers) {
  const std::string hlo = TeAttentionHlo(MakeTeAttentionCase(1, 33, 33, 4, 1, 8, 9, 2), /*backward=*/true);
  absl::StatusOr<gpu::GpuExecutableProto> a = CompileToProto(hlo, HostOptions());
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& features = a->header().required_runtime_features();
  EXPECT_NE(std::find(features.begin(), features.end(), "ffi_handlers.te_fused_attention_host"),
            features.end());
  CompileOptions old = HostOptions();
  old.target_runtime = "2026-12-01";
  absl::Status refused = Compile(hlo, old).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
}

// A padding length past q_max_seqlen is only seen when the handler reads
// cu_seqlens on the stream: the run fails naming the operand.
TEST(TeFusedAttentionHostErrors, OutOfRangeSequenceLengthFailsTheRun) {
  HostCase h{MakeTeAttentionCase(2, 33, 33, 4, 1, 8, 9, 1), {33, 34}, {33, 33}};
  const std::string hlo = TeAttentionHlo(h.c, /*backward=*/true);
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, HostOptions());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::vector<Literal>> out =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), Arguments(h));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::StrContains(
      out.status().message(),
      "operand 5 (q_cu_seqlens): sequence 1 has length 34 (67 - 33), outside [0, 33]"))
      << out.status();
}

}  // namespace
}  // namespace xla::aot
