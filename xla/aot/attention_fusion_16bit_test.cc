// bf16/f16 attention in plain HLO (JAX's mixed-precision spelling and its
// 16-bit softmax) with --fuse_attention=on, end to end:
//  * sm_80 and sm_90: the attention becomes the NVPTX FlashAttention
//    kernel (kernel thunks, no GEMM thunk, no custom call), every kernel
//    assembles with ptxas (when it is installed) and the artifact needs no
//    runtime feature the unfused one does not;
//  * host: the artifact calls the built-in kernel, runs, and stays within
//    the 16-bit contract (attention_test_util.h) of the evaluator's result
//    of the unfused module; off, the unfused program runs.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
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


CompileOptions Options(const std::string& target, bool fuse) {
  CompileOptions options;
  options.target = target;
  options.fuse_attention = fuse;
  if (target == "host") {
    options.host_cpu_variants = {};
  } else {
    options.emit_cubin_with_ptx = true;
  }
  return options;
}

struct Thunks {
  int kernels = 0, gemms = 0, custom_calls = 0;
};

Thunks Count(const gpu::GpuExecutableProto& proto) {
  Thunks t;
  for (const gpu::ThunkProto& thunk : proto.payload().thunks()) {
    t.kernels += thunk.has_kernel();
    t.gemms += thunk.has_gemm();
    t.custom_calls += thunk.has_custom_call();
  }
  return t;
}

std::vector<std::string> Features(const gpu::GpuExecutableProto& proto) {
  const auto& f = proto.header().required_runtime_features();
  std::vector<std::string> out(f.begin(), f.end());
  std::sort(out.begin(), out.end());
  return out;
}

struct Case {
  std::string name;
  Spelling s;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, auto set) {
    Spelling s;
    s.type = "bf16";
    s.softmax = "f32";
    set(s);
    cases.push_back({std::move(name), s});
  };
  add("mixed_s257_d64", [](Spelling& s) {
    s.batch = {1, 2};
    s.sq = s.skv = 257;
    s.d = s.dv = 64;
  });
  add("mixed_causal_finfo_min_s40_d128", [](Spelling& s) {
    s.mask = "causal_select";
    s.fill = "-3.38953139e+38";
    s.sq = s.skv = 40;
    s.d = s.dv = 128;
  });
  add("softmax16_keypad_causal_s33_d16", [](Spelling& s) {
    s.softmax = "f32_sum";
    s.padding = "key";
    s.mask = "causal_select";
    s.batch = {3, 2};
  });
  add("f16_mixed_causal_q33_kv40_d32_dv8", [](Spelling& s) {
    s.type = "f16";
    s.mask = "causal_select";
    s.skv = 40;
    s.d = 32;
    s.dv = 8;
  });
  add("mixed_early_convert_one_batch_dim", [](Spelling& s) {
    s.softmax = "f32_early";
    s.batch = {5};
  });
  return cases;
}

// Compiles `hlo` for sm_80 and sm_90 with the rewriter on and off: on,
// no GEMM and no custom call is left, one kernel is the FlashAttention
// kernel, every kernel has a cubin when ptxas is installed (where the
// compiler looks for it too, nvptx_compiler.h), and the artifact needs no
// runtime feature the unfused one does not.
void ExpectTheFlashKernelAssembles(const std::string& hlo) {
  const bool have_ptxas =
      std::system("(ptxas --version || /usr/local/cuda/bin/ptxas --version) > /dev/null 2>&1") == 0;
  for (const char* target : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<gpu::GpuExecutableProto> on = CompileToProto(hlo, Options(target, true));
    ASSERT_TRUE(on.ok()) << on.status();
    absl::StatusOr<gpu::GpuExecutableProto> off = CompileToProto(hlo, Options(target, false));
    ASSERT_TRUE(off.ok()) << off.status();
    const Thunks fused = Count(*on), unfused = Count(*off);
    EXPECT_GE(unfused.gemms, 2);  // Q.K^T and P.V (and a model's projections)
    EXPECT_EQ(fused.gemms, unfused.gemms - 2);
    EXPECT_EQ(fused.custom_calls, 0);
    // One FlashAttention kernel; the others are the layout transposes to
    // and from BSHD, which a model's own head transposes absorb.
    int flash = 0, cubins = 0;
    for (const gpu::KernelProto& kernel : on->payload().kernels()) {
      ASSERT_TRUE(kernel.has_cubin_with_ptx()) << kernel.name();
      flash += absl::StrContains(kernel.cubin_with_ptx().ptx(), "mma.sync.aligned.m16n8k16");
      if (have_ptxas) {
        EXPECT_FALSE(kernel.cubin_with_ptx().cubin().empty()) << kernel.name();
      }
      cubins += !kernel.cubin_with_ptx().cubin().empty();
    }
    EXPECT_EQ(flash, 1);
    std::cout << target << ": " << cubins << " of " << on->payload().kernels_size()
              << " kernels assembled by ptxas\n";
    // Kernel thunks need nothing new from the runtime.
    EXPECT_EQ(Features(*on), Features(*off));
  }
}

class AttentionFusion16Bit : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionFusion16Bit, Sm80AndSm90GetTheFlashKernelAndItAssembles) {
  ExpectTheFlashKernelAssembles(AttentionHlo(GetParam().s));
}

// Keys per batch for a padding mask: 0 (rows that see no key), 1, inside
// and full, by batch.
void SetLengths(const Spelling& s, std::vector<Literal>* args) {
  if (s.padding.empty()) return;
  const int64_t table[] = {0, 1, s.skv / 2, s.skv};
  Literal& len = (*args)[3];
  for (int64_t i = 0; i < len.element_count(); ++i) len.SetInt(i, table[i % 4]);
}

// Compiles `hlo` for the host, loads and runs it on `args`: its one output.
absl::StatusOr<Literal> RunOnHost(const std::string& hlo, bool fuse,
                                  const std::vector<Literal>& args) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, Options("host", fuse));
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<std::vector<Literal>> out =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
  if (!out.ok()) return out.status();
  if (out->size() != 1) return absl::InternalError("expected one output");
  return std::move((*out)[0]);
}

TEST_P(AttentionFusion16Bit, HostRunsWithinTheContract) {
  const Spelling& s = GetParam().s;
  const std::string hlo = AttentionHlo(s);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 13);
  ASSERT_TRUE(args.ok()) << args.status();
  SetLengths(s, &*args);
  absl::StatusOr<Literal> expected = evaluator_test::EvalText(hlo, *args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (bool fuse : {true, false}) {
    SCOPED_TRACE(fuse ? "rewriter on" : "rewriter off");
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options("host", fuse));
    ASSERT_TRUE(proto.ok()) << proto.status();
    EXPECT_EQ(Count(*proto).custom_calls > 0, fuse);
    absl::StatusOr<Literal> out = RunOnHost(hlo, fuse, *args);
    ASSERT_TRUE(out.ok()) << out.status();
    if (fuse) {
      absl::Status within =
          attention_test::WithinContract(attention_test::ContractBoundFor(s), *expected, *out);
      EXPECT_TRUE(within.ok()) << within;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionFusion16Bit, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// JAX's own spellings (testdata/attention/gen_attention.py): bf16 and f16
// [B, S, H, D] einsums with jnp.finfo(t).min causal fills and
// softmax(s.astype(f32)).astype(t), grouped heads through jnp.repeat, and
// jax.nn.softmax of bf16 scores (its sum in f32) with key padding. Fused for sm_90 (no GEMM left) and on the
// host, where the result stays within the contract of the unfused one.
struct JaxCase {
  const char* name;
  attention_test::ContractBound bound;
};

class AttentionFusion16BitJax : public ::testing::TestWithParam<JaxCase> {};

TEST_P(AttentionFusion16BitJax, FusedForSm80AndSm90AndWithinTheContractOnTheHost) {
  const std::string path = absl::StrCat("xla/aot/testdata/attention/", GetParam().name, ".hlo");
  std::ifstream file(path);
  ASSERT_TRUE(file.good()) << path;
  std::stringstream text;
  text << file.rdbuf();
  const std::string hlo = text.str();
  ExpectTheFlashKernelAssembles(hlo);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 17);
  ASSERT_TRUE(args.ok()) << args.status();
  if (args->size() > 3) {  // key lengths: 0, 1, inside
    const int64_t table[] = {0, 1, 20};
    for (int64_t i = 0; i < (*args)[3].element_count(); ++i) (*args)[3].SetInt(i, table[i % 3]);
  }
  absl::StatusOr<Literal> expected = evaluator_test::EvalText(hlo, *args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Literal> out = RunOnHost(hlo, /*fuse=*/true, *args);
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status within = attention_test::WithinContract(GetParam().bound, *expected, *out);
  EXPECT_TRUE(within.ok()) << within;
}

// smax = scale * d (inputs in [-1, 1)); the f16 case's scale 1/sqrt(32)
// is not a power of two: the f16 product rounds the scores a second time.
const JaxCase kJaxCases[] = {
    {"mixed_bf16_causal_b2_s129_h4_d64",
     attention_test::MakeContractBound(false, 0.125 * 64, 129, 64, 1, false)},
    {"mixed_f16_causal_b1_s40_h2_d32",
     attention_test::MakeContractBound(true, 0.177 * 32, 40, 32, 2, false)},
    {"softmax_bf16_keypad_b3_h2_s33_d16",
     attention_test::MakeContractBound(false, 0.25 * 16, 33, 16, 1, true)},
    {"mixed_bf16_gqa2_repeat_b2_s40_h4_d16",
     attention_test::MakeContractBound(false, 0.25 * 16, 40, 16, 1, false)},
    // f32 scores from the 16-bit dots (preferred_element_type=f32,
    // jax.nn.dot_product_attention): no score is rounded to 16 bits.
    {"dpa_bf16_causal_gqa2_b2_s40_h4_d64",
     attention_test::MakeContractBound(false, 0.125 * 64, 40, 64, 0, false)},
    {"dpa_f16_b1_s33_h2_d16", attention_test::MakeContractBound(true, 0.25 * 16, 33, 16, 0, false)},
    // ... with key_value_seq_lengths and is_causal (padding_causal; a key
    // length of 0 gives the mean of V).
    {"dpa_bf16_kvlen_causal_b2_s40_h2_d64",
     attention_test::MakeContractBound(false, 0.125 * 64, 40, 64, 0, false)},
    {"f32_score_dot_bf16_causal_b2_s33_h2_d16",
     attention_test::MakeContractBound(false, 0.25 * 16, 33, 16, 0, false)},
    // jnp.finfo(f16).min applied after the scores' convert to f32.
    {"f16_fill_after_convert_b2_s40_h2_d16",
     attention_test::MakeContractBound(true, 0.25 * 16, 40, 16, 1, false)},
};

INSTANTIATE_TEST_SUITE_P(Jax, AttentionFusion16BitJax, ::testing::ValuesIn(kJaxCases),
                         [](const ::testing::TestParamInfo<JaxCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(AttentionFusion16BitTargets, OldRuntimesAndTargetsWithoutTheKernel) {
  Spelling s;
  s.type = "bf16";
  s.softmax = "f32";
  s.mask = "causal_select";
  const std::string hlo = AttentionHlo(s);
  // Host: a runtime from before the built-in kernel keeps the unfused ops.
  CompileOptions old_host = Options("host", true);
  old_host.target_runtime = "2026-12-01";
  absl::StatusOr<gpu::GpuExecutableProto> legacy = CompileToProto(hlo, old_host);
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_EQ(Count(*legacy).custom_calls, 0);
  // sm_90: the kernel is code in the artifact, so an old runtime runs it.
  CompileOptions old_gpu = Options("sm_90", true);
  old_gpu.target_runtime = "2026-12-01";
  absl::StatusOr<gpu::GpuExecutableProto> gpu = CompileToProto(hlo, old_gpu);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_EQ(Count(*gpu).gemms, 0);
}

}  // namespace
}  // namespace xla::aot
