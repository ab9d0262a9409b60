// Transformer Engine's fused attention on the host for short query blocks
// (q_max_seqlen 1 to 8: KV-cache decode steps and speculative blocks),
// which run the decode path (te_fused_attention_host_decode.h) instead of
// the tiled forward: a module that runs te_fused_attn_forward_ffi and
// feeds its output and stats to te_fused_attn_backward_ffi is compiled for
// the host, run, and every result is checked against the evaluator's f64
// reference. Odd sizes: key lengths 1, 33 and 257, head dims 8, 64 and
// 128 (and 136, past the decode path's limit: the tiled forward), GQA
// ratios 1, 2 and 4, a group of 32 query rows (two passes over K and V),
// every mask with unequal and empty padded lengths, the BSHD_BSHD_BSHD,
// BSHD_BS2HD and SBHD_SBHD_SBHD layouts, f32, bf16 and f16; NaN in padded
// keys and values stays out; a pool-sized call (batch 4, 1024 keys); calls
// of one or two sequences with few kv heads and 777 to 1501 keys, whose
// keys split into chunks combined afterwards.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

struct DecodeCase {
  TeAttentionCase c;
  // Per-batch lengths for padding masks (empty: full).
  std::vector<int64_t> q_lens, kv_lens;
};


const DecodeCase kCases[] = {
    // One query row per head: GQA 1, 2, 4; key lengths 1, 33, 257.
    {MakeTeAttentionCase(2, 1, 33, 4, 4, 8, 9, 0, "f32"), {}, {}},
    {MakeTeAttentionCase(2, 1, 33, 4, 2, 64, 9, 1, "f32"), {1, 1}, {33, 17}},
    {MakeTeAttentionCase(1, 1, 257, 8, 2, 128, 9, 1, "f32"), {1}, {250}},
    {MakeTeAttentionCase(3, 1, 1, 4, 1, 64, 9, 0, "f32"), {}, {}},
    {MakeTeAttentionCase(2, 1, 257, 4, 1, 128, 7, 1, "bf16"), {1, 1}, {257, 0}},  // a cache of no key
    {MakeTeAttentionCase(2, 1, 33, 4, 2, 8, 9, 2, "bf16"), {}, {}},               // causal: key 0 only
    {MakeTeAttentionCase(2, 1, 257, 4, 4, 64, 4, 0, "f16"), {}, {}},
    // Speculative blocks (2 to 8 queries), causal top-left, padded.
    {MakeTeAttentionCase(2, 4, 33, 4, 1, 64, 9, 3, "f32"), {4, 2}, {33, 3}},
    {MakeTeAttentionCase(1, 8, 257, 8, 2, 128, 7, 2, "f32"), {}, {}},
    {MakeTeAttentionCase(2, 2, 257, 4, 2, 8, 9, 1, "bf16"), {0, 2}, {100, 257}},  // a sequence of no query
    {MakeTeAttentionCase(2, 5, 1, 4, 4, 128, 9, 3, "bf16"), {5, 3}, {1, 1}},
    {MakeTeAttentionCase(1, 8, 33, 32, 1, 8, 9, 2, "f32"), {}, {}},    // 256 rows per kv head: 16 passes
    {MakeTeAttentionCase(1, 1, 33, 4, 1, 136, 9, 0, "f32"), {}, {}},   // head dim 136: the tiled forward
    {MakeTeAttentionCase(4, 1, 1024, 8, 2, 128, 9, 1, "f32"), {1, 1, 1, 1}, {1024, 1000, 517, 3}},  // the pool
    // Fewer units than the launch shares out (one sequence, few kv heads)
    // and >= 512 keys: the keys split into chunks whose partial states are
    // combined (kTeDecodeMinChunkKeys). GQA 4, 1 and 8, 2; odd key counts;
    // chunks that see no key (causal, short or empty sequences).
    {MakeTeAttentionCase(1, 1, 1024, 8, 2, 128, 9, 1, "f32"), {1}, {1000}},
    {MakeTeAttentionCase(1, 1, 777, 4, 4, 64, 9, 0, "bf16"), {}, {}},
    {MakeTeAttentionCase(1, 1, 1031, 8, 1, 128, 9, 2, "f16"), {}, {}},  // causal: key 0 only
    {MakeTeAttentionCase(1, 4, 1024, 8, 2, 64, 9, 3, "f32"), {3}, {600}},
    {MakeTeAttentionCase(1, 1, 1024, 4, 2, 16, 7, 1, "f32"), {1}, {0}},  // no key at all
    {MakeTeAttentionCase(1, 2, 1501, 4, 2, 8, 9, 1, "bf16"), {2}, {1499}},
    {MakeTeAttentionCase(2, 1, 1023, 2, 1, 64, 9, 1, "f32"), {1, 1}, {700, 1023}},
    {MakeTeAttentionCase(1, 1, 1024, 8, 2, 128, 9, 0, "f32"), {}, {}},  // the GQA4 b1 benchmark's call
};

std::vector<Literal> Arguments(const DecodeCase& h) {
  return gpu::ffi::testing::TeAttentionArguments(h.c, h.q_lens, h.kv_lens, 200);
}

CompileOptions HostOptions() {
  CompileOptions options;
  options.target = "host";
  options.host_cpu_variants = {};
  return options;
}

// Runs the forward + backward module of `h` on the host and on the
// evaluator with `args` and compares every result.
void ExpectMatchesTheEvaluator(const DecodeCase& h, const std::vector<Literal>& args) {
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
  // f32: rounding order only; bf16/f16 results carry 8/11 significant bits.
  const double tolerance = h.c.type == "bf16" ? 8e-3 : h.c.type == "f16" ? 1e-3 : 2e-5;
  static constexpr const char* kNames[] = {"output", "softmax_aux", "dq", "dk (or dkv)", "dv"};
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ((*out)[r].element_count(), want[r].element_count()) << kNames[r];
    double worst = 0;
    int64_t worst_at = -1;
    for (int64_t i = 0; i < want[r].element_count(); ++i) {
      const double a = (*out)[r].GetDouble(i), b = want[r].GetDouble(i);
      const double err = std::abs(a - b) / (1 + std::abs(b));
      if (!std::isnan(worst) && !(err <= worst)) {  // NaN on either side stays the worst
        worst = err;
        worst_at = i;
      }
    }
    EXPECT_LE(worst, r == 1 ? 1e-5 : tolerance)
        << h.c.Name() << " " << kNames[r] << " element " << worst_at << ": host "
        << (*out)[r].GetDouble(worst_at) << ", evaluator " << want[r].GetDouble(worst_at);
  }
}

class TeFusedAttentionDecode : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(TeFusedAttentionDecode, MatchesTheEvaluator) {
  ExpectMatchesTheEvaluator(GetParam(), Arguments(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, TeFusedAttentionDecode, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<DecodeCase>& info) {
                           return absl::StrCat(info.param.c.Name(), "_", info.index);
                         });

// Keys and values past each sequence's length (an unfilled cache) may hold
// anything: NaN there must not reach any result, nor NaN in padded query
// rows, including a sequence with no keys.
TEST(TeFusedAttentionDecodePadding, NaNPastTheCacheStaysOut) {
  const DecodeCase h = {MakeTeAttentionCase(3, 2, 40, 4, 2, 16, 9, 1, "f32"), {2, 1, 2}, {31, 7, 0}};
  std::vector<Literal> args = Arguments(h);
  const int64_t dim = 16;
  // q [B, 2, 4, D], k and v [B, 40, 2, D], dout [B, 2, 4, D]: arguments 0,
  // 1, 2 and 5 (after the two cu_seqlens).
  struct Tensor {
    int arg;
    int64_t seq, heads;
    const std::vector<int64_t>* lens;
  };
  for (const Tensor& t : {Tensor{0, 2, 4, &h.q_lens}, Tensor{1, 40, 2, &h.kv_lens},
                          Tensor{2, 40, 2, &h.kv_lens}, Tensor{5, 2, 4, &h.q_lens}}) {
    for (int64_t b = 0; b < 3; ++b) {
      const int64_t row = t.heads * dim, base = b * t.seq * row;
      for (int64_t i = (*t.lens)[b] * row; i < t.seq * row; ++i) {
        args[t.arg].SetDouble(base + i, std::nan(""));
      }
    }
  }
  ASSERT_TRUE(std::isnan(args[1].GetDouble(args[1].element_count() - 1)));
  ExpectMatchesTheEvaluator(h, args);
}

}  // namespace
}  // namespace xla::aot
