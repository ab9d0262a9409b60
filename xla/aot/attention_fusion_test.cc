// Attention in plain HLO end to end on the host, with the attention
// rewriter on (the default: the fused-attention kernel runs) and off (the
// unfused GEMMs and softmax kernels): every variant the rewriter accepts,
// at odd sizes, against the evaluator's f64 result of the unfused module.
// Also: the rewrite really happens (the artifact calls the kernel and needs
// its runtime feature), and neither sm_90 nor a target_runtime before the
// kernel gets it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/fusion/attention_test_util.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

using attention_test::AttentionHlo;
using attention_test::Spelling;

constexpr char kTarget[] = "te_fused_attn_forward_ffi";

CompileOptions Host(bool fuse) {
  CompileOptions options;
  options.target = "host";
  options.host_cpu_variants = {};
  options.fuse_attention = fuse;
  return options;
}

// Whether any thunk of the artifact is a custom call to `target`.
bool CallsTarget(const gpu::GpuExecutableProto& artifact, const std::string& target) {
  return absl::StrContains(artifact.payload().DebugString(),
                           absl::StrCat("target_name: \"", target, "\""));
}

struct Case {
  std::string name;
  Spelling s;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, auto set) {
    Spelling s;
    set(s);
    cases.push_back({std::move(name), s});
  };
  for (int64_t seq : {33, 40, 257}) {
    for (int64_t d : {8, 16, 64}) {
      add(absl::StrCat("plain_s", seq, "_d", d), [&](Spelling& s) {
        s.batch = {2, 3};
        s.sq = s.skv = seq;
        s.d = s.dv = d;
      });
    }
  }
  add("causal_inf_s40", [](Spelling& s) {
    s.mask = "causal_select";
    s.sq = s.skv = 40;
  });
  add("causal_1e9_s257_d64", [](Spelling& s) {
    s.mask = "causal_select";
    s.fill = "-1e+09";
    s.sq = s.skv = 257;
    s.d = s.dv = 64;
    s.batch = {1, 3};
  });
  add("causal_add_inverted_div", [](Spelling& s) {
    s.mask = "causal_add";
    s.scale = "div";
  });
  add("causal_inverted_s33_kv40", [](Spelling& s) {
    s.mask = "causal_select_inverted";
    s.skv = 40;
  });
  add("one_batch_dim_reciprocal", [](Spelling& s) {
    s.batch = {6};
    s.reciprocal = true;
    s.clamp_max = false;
  });
  add("three_batch_dims_dv8", [](Spelling& s) {
    s.batch = {2, 2, 2};
    s.dv = 8;
    s.keepdims_chains = false;
  });
  add("keypad_causal_1e9_s40", [](Spelling& s) {
    s.batch = {4, 3};
    s.padding = "key";
    s.mask = "causal_select";
    s.fill = "-1e+09";
    s.sq = s.skv = 40;
  });
  add("querykeypad_inf_s33_kv257_d64", [](Spelling& s) {
    s.batch = {4, 2};
    s.padding = "query_key";
    s.skv = 257;
    s.d = s.dv = 64;
  });
  add("keypad_hidden_three_batch_dims", [](Spelling& s) {
    s.batch = {4, 2, 2};
    s.padding = "key_inclusive";
    s.padding_hidden = true;
    s.sq = s.skv = 17;
  });
  return cases;
}

// Largest |a - b| / (1 + |b|); infinity where exactly one is NaN (rows
// that see no key are NaN with a -inf fill).
double WorstError(const Literal& a, const Literal& b) {
  double worst = 0;
  for (int64_t i = 0; i < b.element_count(); ++i) {
    const double x = a.GetDouble(i), y = b.GetDouble(i);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::abs(x - y) / (1 + std::abs(y)));
  }
  return worst;
}

// Padding lengths instead of the random integers: every s32 parameter
// gets 0 (rows that see no key), a length inside the sequence, one past
// any sequence here and a short one, rotated by parameter number.
void SetLengths(std::vector<Literal>* args) {
  const int64_t table[] = {0, 17, 99, 5};
  for (size_t p = 0; p < args->size(); ++p) {
    Literal& a = (*args)[p];
    if (a.shape().element_type() != PrimitiveType::S32) continue;
    for (int64_t i = 0; i < a.element_count(); ++i) a.SetInt(i, table[(i + p) % 4]);
  }
}

// Compiles `hlo` for the host with the rewriter on and off, checks that the
// artifact calls the kernel exactly when on and `fusable`, runs it on
// `args` and compares with the evaluator's result of the unfused module.
void CheckOnAndOff(const std::string& hlo, const std::vector<Literal>& args, bool fusable) {
  absl::StatusOr<Literal> expected = evaluator_test::EvalText(hlo, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (bool fuse : {true, false}) {
    SCOPED_TRACE(fuse ? "rewriter on" : "rewriter off");
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Host(fuse));
    ASSERT_TRUE(proto.ok()) << proto.status();
    EXPECT_EQ(CallsTarget(*proto, kTarget), fuse && fusable);
    absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, Host(fuse));
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::vector<Literal>> out =
        ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    // f32 throughout; the kernel sums in another order than the GEMMs.
    EXPECT_LE(WorstError((*out)[0], *expected), 2e-5);
  }
}

class AttentionFusionHost : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionFusionHost, MatchesTheEvaluatorWithAndWithoutTheRewriter) {
  const std::string hlo = AttentionHlo(GetParam().s);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 7);
  ASSERT_TRUE(args.ok()) << args.status();
  SetLengths(&*args);
  CheckOnAndOff(hlo, *args, /*fusable=*/true);
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionFusionHost, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// JAX's own spellings (testdata/attention/gen_attention.py): [B, S, H, D]
// einsums with the -1e9 fill, grouped heads through jnp.repeat (K and V
// broadcast to every query head), padding masks from lengths parameters
// (key padding; flax's make_attention_mask and combine_masks with a causal
// mask; separate query and key lengths), jax.nn.dot_product_attention's
// grouped 5-D dots (also with lengths), and the ones the rewriter does not take: boolean mask
// parameters, a query-only mask, a bias, dropout.
struct JaxCase {
  const char* name;
  bool fused;
};

class AttentionFusionJax : public ::testing::TestWithParam<JaxCase> {};

TEST_P(AttentionFusionJax, MatchesTheEvaluator) {
  const std::string path = absl::StrCat("xla/aot/testdata/attention/", GetParam().name, ".hlo");
  std::ifstream file(path);
  ASSERT_TRUE(file.good()) << path;
  std::stringstream text;
  text << file.rdbuf();
  const std::string hlo = text.str();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 11);
  ASSERT_TRUE(args.ok()) << args.status();
  SetLengths(&*args);
  CheckOnAndOff(hlo, *args, GetParam().fused);
}

const JaxCase kJaxCases[] = {
    {"mha_bshd_causal_b2_s40_h3_d16", true},
    {"gqa2_repeat_b2_s33_h4_d8", true},
    {"gqa4_repeat_b1_s257_h8_d16", true},
    {"dpa_gqa2_b2_s33_h4_d16", true},
    {"keypad_b3_s40_h2_d16", true},
    {"padcausal_gqa2_b3_s33_h4_d8", true},
    {"crosspad_b3_h2_q33_kv40_d16", true},
    {"boolmask_b2_s33_h2_d16", false},
    {"querypad_b2_s33_h2_d16", false},
    // jax.nn.dot_product_attention (5-D grouped dots), a grouped einsum
    // and flax's MultiHeadDotProductAttention math; a boolean mask or a
    // bias parameter, and dropout, stay unfused.
    {"dpa_b3_s40_h2_d8", true},
    {"dpa_causal_gqa4_b1_s33_h4_d64", true},
    {"dpa_decode_gqa4_b2_q1_kv40_h8_d64", true},
    // query_seq_lengths / key_value_seq_lengths on the grouped dots, with
    // and without is_causal (lengths 0, 17, 99, 5: rows that see no key).
    {"dpa_lengths_gqa2_b3_s33_h4_d16", true},
    {"dpa_causal_kvlen_gqa4_b2_s40_h4_d64", true},
    // A KV-cache decode loop without the query axis ("bhd,bthd->bht",
    // arange(T) <= pos): a key length pos + 1 (pos 17, 18, 19).
    {"kv_decode_b2_t33_h2_d16", true},
    {"gqa_einsum_b2_s40_h4_d16", true},
    {"flax_mha_causal_b2_s33_h3_d16", true},
    {"dpa_mask_b2_s33_h2_d16", false},
    {"dpa_bias_b2_s33_h2_d16", false},
    {"dropout_b2_s33_h2_d16", false},
};

INSTANTIATE_TEST_SUITE_P(Jax, AttentionFusionJax, ::testing::ValuesIn(kJaxCases),
                         [](const ::testing::TestParamInfo<JaxCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(AttentionFusion, OnlyForHostAndRuntimesThatHaveTheKernel) {
  Spelling s;
  s.mask = "causal_select";
  const std::string hlo = AttentionHlo(s);
  absl::StatusOr<gpu::GpuExecutableProto> host = CompileToProto(hlo, Host(true));
  ASSERT_TRUE(host.ok()) << host.status();
  const auto& features = host->header().required_runtime_features();
  EXPECT_NE(std::find(features.begin(), features.end(), "ffi_handlers.te_fused_attention_host"),
            features.end());
  // A runtime from before the kernel gets the unfused ops instead of a
  // compile error.
  CompileOptions old = Host(true);
  old.target_runtime = "2026-12-01";
  absl::StatusOr<gpu::GpuExecutableProto> legacy = CompileToProto(hlo, old);
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_FALSE(CallsTarget(*legacy, kTarget));
  // sm_90: the rewriter runs for the host only (it matches f32 attention;
  // the NVPTX fused-attention kernels take bf16/f16): the ops stay.
  CompileOptions gpu = Host(true);
  gpu.target = "sm_90";
  absl::StatusOr<gpu::GpuExecutableProto> sm90 = CompileToProto(hlo, gpu);
  ASSERT_TRUE(sm90.ok()) << sm90.status();
  EXPECT_FALSE(CallsTarget(*sm90, kTarget));
}

}  // namespace
}  // namespace xla::aot
