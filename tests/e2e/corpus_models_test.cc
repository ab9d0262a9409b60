// Every model of the HLO corpus (../shared/hlo_corpus/models/) that fits the
// test budget compiles for sm_90, with every kernel accepted by ptxas (each
// NVPTX kernel carries a cubin), and for the host, with the flags a user
// passes for such dumps: the device count the file name gives (the dumps
// keep none), collectives, Transformer Engine's attention calls allowed
// (they resolve at Initialize), and elided constants invented. The host
// artifact then loads: its collectives, offloaded buffers and custom calls
// pass the loader's checks.
//
// Gemma 2B and MobileNet v2's training step are here too since kernel
// reuse (gpu/compiler/kernel_reuse.h) cut them to 321 and 593 compiled
// kernels (from 2,841 and 1,205); benchmarks/corpus_compile.sh times every
// model (docs/perf.md). The six models with elided constants also run
// against the evaluator in elided_corpus_test. One test per model, so
// Bazel's shards split them.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/testing/corpus.h"

namespace xla {
namespace {

struct CorpusModel {
  const char* file;        // under models/
  int64_t partitions;      // from the file name (`_16x8`: 128)
};

constexpr CorpusModel kModels[] = {
    {"backends__cpu__benchmarks__hlo__bench_mass_matrix_35.hlo", 1},
    {"backends__cpu__benchmarks__hlo__bench_scan_N2000_M3.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.frag_0100.module_0005.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.frag_0100.module_0009.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.frag_0100.module_0019.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.frag_0428.module_0002.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.frag_0428.module_0004.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.frag_0428.module_0009.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.slow_0100.module_0007.hlo", 1},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.slow_0428.module_0003.hlo", 1},
    {"backends__cpu__benchmarks__hlo__resnet50_keras_jax_f32.hlo", 1},
    {"tools__benchmarks__hlo__nv_maxtext_1n1g_jit_train_step_before_optimization.hlo", 1},
    {"tools__benchmarks__hlo__hlo_llama31_405b_bf16_64x8.hlo", 512},
    {"tools__benchmarks__hlo__hlo_llama31_405b_fp8_16x8.hlo", 128},
    {"tools__benchmarks__hlo__hlo_llama31_405b_bf16_16x8.hlo", 128},
    {"tools__benchmarks__hlo__hlo_llama31_405b_fp8_64x8.hlo", 512},
    {"tools__benchmarks__hlo__hlo_llama31_70b_bf16_16x8.hlo", 128},
    {"tools__benchmarks__hlo__hlo_llama31_70b_bf16_32x8.hlo", 256},
    {"tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo", 128},
    {"tools__benchmarks__hlo__hlo_llama31_70b_fp8_32x8.hlo", 256},
    {"tools__benchmarks__hlo__hlo_llama3_8b_bf16_activation_offloading_1x8.hlo", 8},
    {"tools__benchmarks__hlo__hlo_llama3_8b_cp_bf16_1x4.hlo", 4},
    {"tools__benchmarks__hlo__hlo_gemma4_2b_bf16.hlo", 1},
    {"tools__data__benchmarking__mobilenet_v2.hlo", 1},
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

aot::CompileOptions Options(const std::string& target, const std::string& path,
                            int64_t partitions) {
  aot::CompileOptions options;
  options.target = target;
  options.source_name = path;
  options.host_cpu_variants = {};
  options.include_optimized_hlo = false;
  options.emit_collectives = true;
  options.allowed_custom_calls = {"te_fused_attn_forward_ffi", "te_fused_attn_backward_ffi"};
  options.elided_constants = ElidedConstantsMode::kRandom;
  if (partitions > 1) options.num_partitions = partitions;
  return options;
}

class CorpusModels : public ::testing::TestWithParam<CorpusModel> {};

TEST_P(CorpusModels, CompileForSm90AndHost) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string path = absl::StrCat(*dir, "/models/", GetParam().file);
  const std::string text = ReadText(path);
  ASSERT_FALSE(text.empty()) << path;

  absl::StatusOr<gpu::GpuExecutableProto> gpu =
      aot::CompileToProto(text, Options("sm_90", path, GetParam().partitions));
  ASSERT_TRUE(gpu.ok()) << path << ": sm_90: " << gpu.status();
  EXPECT_GT(gpu->payload().kernels_size(), 0);
  std::printf("%s: sm_90: %d kernels\n", GetParam().file, gpu->payload().kernels_size());
  for (const gpu::KernelProto& k : gpu->payload().kernels()) {
    EXPECT_TRUE(k.has_cubin() || k.has_cubin_with_ptx())
        << path << ": kernel " << k.name() << " has no cubin (ptxas did not accept it)";
  }

  absl::StatusOr<aot::CompiledArtifact> host =
      aot::Compile(text, Options("host", path, GetParam().partitions));
  ASSERT_TRUE(host.ok()) << path << ": host: " << host.status();
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(host->bytes);
  EXPECT_TRUE(exe.ok()) << path << ": host artifact does not load: " << exe.status();
}

INSTANTIATE_TEST_SUITE_P(Models, CorpusModels, ::testing::ValuesIn(kModels));

}  // namespace
}  // namespace xla
