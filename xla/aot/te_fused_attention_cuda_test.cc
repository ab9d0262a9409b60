// Transformer Engine's fused attention compiled for sm_90 and sm_80: the
// forward call becomes one kernel thunk of the compiler's FlashAttention
// kernel (plus a memset of rng_state), the backward call two (dq, then
// dk/dv), with no custom-call thunk and no --allow_custom_calls. Checked
// here without a GPU:
//  * the artifact: kernel names, launch grid, block, dynamic shared
//    memory, and every argument slice against the buffers it must be;
//  * on the fake CUDA driver, end to end: each kernel name gets a host
//    stand-in that implements the kernel's contract (what its parameters
//    are and what it writes, flash_attention_emitter.h) in f64, so the
//    numbers flow through the real thunks, buffers and copies and are
//    compared with the evaluator. The kernel bodies themselves are checked
//    by flash_attention_plan_test (index math) and ptxas.
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
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/backends/gpu/ffi/te_fused_attention_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/types/float_format.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;
using gpu::ffi::TeAttentionConfig;
using gpu::ffi::testing::TeAttentionCase;
using gpu::ffi::testing::TeAttentionHlo;

TeAttentionCase Make(int64_t batch, int64_t seq, int64_t heads, int64_t kv_heads, int64_t dim,
                     int64_t layout, int64_t mask) {
  return gpu::ffi::testing::MakeTeAttentionCase(batch, seq, seq, heads, kv_heads, dim, layout, mask);
}

TeAttentionConfig ConfigOf(const TeAttentionCase& c) {
  gpu::ffi::Attributes a;
  a["input_batch"] = c.batch;
  a["q_max_seqlen"] = c.q_seqlen;
  a["kv_max_seqlen"] = c.kv_seqlen;
  a["attn_heads"] = c.heads;
  a["num_gqa_groups"] = c.kv_heads;
  a["head_dim"] = c.head_dim;
  a["qkv_layout"] = c.qkv_layout;
  a["mask_type"] = c.mask_type;
  a["scaling_factor"] = c.scale;
  return *gpu::ffi::ParseTeAttentionConfig("te_fused_attn_forward_ffi", a);
}

CompileOptions Options(const std::string& target) {
  CompileOptions options;
  options.target = target;
  options.emit_cubin_with_ptx = true;  // the fake driver loads the PTX
  options.production_date = "2026-12-03T00:00:00Z";
  return options;
}

float Bf16At(const se::cuda::FakeLaunch& l, int arg, int64_t i) {
  return static_cast<float>(DecodeFloat(FloatFormatId::kBF16, l.arg<uint16_t>(arg)[i]));
}
void SetBf16(const se::cuda::FakeLaunch& l, int arg, int64_t i, double v) {
  l.arg<uint16_t>(arg)[i] = static_cast<uint16_t>(EncodeFloat(FloatFormatId::kBF16, v));
}

// The attention of one (batch, head, query) row in f64 from the kernel's
// parameters (flash_attention_emitter.h: q, k, v, ..., cu_seqlens at
// `q_cu`/`kv_cu`): P over the keys (0 where hidden), and its log-sum-exp.
struct Row {
  std::vector<double> p;
  double lse = 0;
};
Row AttentionRow(const TeAttentionConfig& c, const se::cuda::FakeLaunch& l, int q_cu, int kv_cu,
                 int64_t b, int64_t h, int64_t i) {
  int64_t q_len = c.q_seqlen, kv_len = c.kv_seqlen;
  if (c.padding) {
    q_len = l.arg<int32_t>(q_cu)[b + 1] - l.arg<int32_t>(q_cu)[b];
    kv_len = l.arg<int32_t>(kv_cu)[b + 1] - l.arg<int32_t>(kv_cu)[b];
  }
  Row row;
  row.p.assign(c.kv_seqlen, 0.0);
  double mx = -INFINITY;
  for (int64_t j = 0; j < c.kv_seqlen; ++j) {
    if (!c.Visible(i, j, q_len, kv_len)) continue;
    double dot = 0;
    for (int64_t d = 0; d < c.qk_head_dim; ++d) {
      dot += double{Bf16At(l, c.q.operand, c.q.At(b, i, h) + d)} *
             Bf16At(l, c.k.operand, c.k.At(b, j, c.KvHead(h)) + d);
    }
    row.p[j] = dot * c.scale;
    mx = std::max(mx, row.p[j]);
  }
  if (mx == -INFINITY) return row;
  double sum = 0;
  for (int64_t j = 0; j < c.kv_seqlen; ++j) {
    if (c.Visible(i, j, q_len, kv_len)) sum += std::exp(row.p[j] - mx);
  }
  for (int64_t j = 0; j < c.kv_seqlen; ++j) {
    row.p[j] = c.Visible(i, j, q_len, kv_len) ? std::exp(row.p[j] - mx) / sum : 0.0;
  }
  row.lse = mx + std::log(sum);
  return row;
}

// Forward parameters: q, k, v, q_cu, kv_cu, output, softmax_aux.
void ForwardStandIn(const TeAttentionConfig& c, const se::cuda::FakeLaunch& l) {
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      for (int64_t i = 0; i < c.q_seqlen; ++i) {
        const Row row = AttentionRow(c, l, 3, 4, b, h, i);
        for (int64_t d = 0; d < c.v_head_dim; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < c.kv_seqlen; ++j) {
            acc += row.p[j] * Bf16At(l, c.v.operand, c.v.At(b, j, c.KvHead(h)) + d);
          }
          SetBf16(l, 5, c.o.At(b, i, h) + d, acc);
        }
        l.arg<float>(6)[(b * c.heads + h) * c.q_seqlen + i] = static_cast<float>(row.lse);
      }
    }
  }
}

// Backward parameters: q, k, v, stats, output, doutput, q_cu, kv_cu, then
// results 0..2 (dq, dk, dv; packed like the operands). `dq` selects the
// dq kernel's outputs, otherwise dk and dv.
void BackwardStandIn(const TeAttentionConfig& c, const se::cuda::FakeLaunch& l, bool dq) {
  const int64_t dqk = c.qk_head_dim, dv = c.v_head_dim;
  std::vector<double> gq(c.batch * c.heads * c.q_seqlen * dqk, 0.0);
  std::vector<double> gk(c.batch * c.kv_heads * c.kv_seqlen * dqk, 0.0);
  std::vector<double> gv(c.batch * c.kv_heads * c.kv_seqlen * dv, 0.0);
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t hk = c.KvHead(h);
      for (int64_t i = 0; i < c.q_seqlen; ++i) {
        const Row row = AttentionRow(c, l, 6, 7, b, h, i);
        double D = 0;
        for (int64_t d = 0; d < dv; ++d) {
          D += double{Bf16At(l, 5, c.o.At(b, i, h) + d)} * Bf16At(l, 4, c.o.At(b, i, h) + d);
        }
        for (int64_t j = 0; j < c.kv_seqlen; ++j) {
          if (row.p[j] == 0) continue;
          double dp = 0;
          for (int64_t d = 0; d < dv; ++d) {
            const double g = Bf16At(l, 5, c.o.At(b, i, h) + d);
            dp += g * Bf16At(l, c.v.operand, c.v.At(b, j, hk) + d);
            gv[((b * c.kv_heads + hk) * c.kv_seqlen + j) * dv + d] += row.p[j] * g;
          }
          const double ds = row.p[j] * (dp - D) * c.scale;
          for (int64_t d = 0; d < dqk; ++d) {
            gq[((b * c.heads + h) * c.q_seqlen + i) * dqk + d] +=
                ds * Bf16At(l, c.k.operand, c.k.At(b, j, hk) + d);
            gk[((b * c.kv_heads + hk) * c.kv_seqlen + j) * dqk + d] +=
                ds * Bf16At(l, c.q.operand, c.q.At(b, i, h) + d);
          }
        }
      }
    }
  }
  for (int64_t b = 0; b < c.batch; ++b) {
    if (dq) {
      for (int64_t h = 0; h < c.heads; ++h) {
        for (int64_t i = 0; i < c.q_seqlen; ++i) {
          for (int64_t d = 0; d < dqk; ++d) {
            SetBf16(l, 8 + c.q.operand, c.q.At(b, i, h) + d,
                    gq[((b * c.heads + h) * c.q_seqlen + i) * dqk + d]);
          }
        }
      }
      continue;
    }
    for (int64_t hk = 0; hk < c.kv_heads; ++hk) {
      for (int64_t j = 0; j < c.kv_seqlen; ++j) {
        for (int64_t d = 0; d < dqk; ++d) {
          SetBf16(l, 8 + c.k.operand, c.k.At(b, j, hk) + d,
                  gk[((b * c.kv_heads + hk) * c.kv_seqlen + j) * dqk + d]);
        }
        for (int64_t d = 0; d < dv; ++d) {
          SetBf16(l, 8 + c.v.operand, c.v.At(b, j, hk) + d,
                  gv[((b * c.kv_heads + hk) * c.kv_seqlen + j) * dv + d]);
        }
      }
    }
  }
}

struct CudaCase {
  TeAttentionCase c;
  std::vector<int64_t> q_lens, kv_lens;
};

const CudaCase kCases[] = {
    {Make(2, 33, 4, 4, 64, 9, 0), {}, {}},
    {Make(1, 257, 4, 2, 128, 7, 2), {}, {}},
    {Make(2, 40, 4, 1, 64, 9, 3), {40, 17}, {33, 40}},
};

class TeFusedAttentionCuda : public ::testing::TestWithParam<CudaCase> {};

// The slice of the program's result `i` (a tuple element).
gpu::BufferSliceProto OutputSlice(const gpu::GpuExecutablePayloadProto& p, int64_t i) {
  for (const gpu::OutputProto& o : p.outputs()) {
    if (o.shape_index_size() == 1 && o.shape_index(0) == i) return o.slice();
  }
  ADD_FAILURE() << "no output " << i;
  return {};
}

// The kernel thunks, in order, with their kernels.
std::vector<const gpu::ThunkProto*> KernelThunks(const gpu::GpuExecutableProto& p) {
  std::vector<const gpu::ThunkProto*> out;
  for (const gpu::ThunkProto& t : p.payload().thunks()) {
    if (t.has_kernel()) out.push_back(&t);
  }
  return out;
}

// The artifact for sm_80 and sm_90: three kernel thunks (forward, dq,
// dkdv) and a memset of rng_state, no custom call; launches and slices as
// the kernels' ABI says.
TEST_P(TeFusedAttentionCuda, ArtifactLaunchesTheFlashKernels) {
  const CudaCase& k = GetParam();
  const TeAttentionConfig c = ConfigOf(k.c);
  const std::string hlo = TeAttentionHlo(k.c, /*backward=*/true);
  for (const char* target : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options(target));
    ASSERT_TRUE(proto.ok()) << proto.status();
    const gpu::GpuExecutablePayloadProto& p = proto->payload();
    for (const gpu::ThunkProto& t : p.thunks()) EXPECT_FALSE(t.has_custom_call());
    for (const std::string& f : proto->header().required_runtime_features()) {
      EXPECT_FALSE(absl::StrContains(f, "te_fused_attention")) << f;
    }
    const std::vector<const gpu::ThunkProto*> kernels = KernelThunks(*proto);
    ASSERT_EQ(kernels.size(), 3u);
    const int64_t widest = std::max(c.qk_head_dim, c.v_head_dim);
    // Forward: Q tile 64 x (D+8), K tile C x (D+8), V^T (D x (C+8)), 2
    // bytes each, C = 64 up to D = 64, else 32.
    const int64_t C = widest <= 64 ? 64 : 32;
    const int64_t fwd_smem = 2 * (64 * (widest + 8) + C * (widest + 8) + widest * (C + 8));
    const int64_t rows[3] = {c.q_seqlen, c.q_seqlen, c.kv_seqlen};
    const int64_t heads[3] = {c.heads, c.heads, c.kv_heads};
    for (int i = 0; i < 3; ++i) {
      const gpu::KernelThunkProto& kt = kernels[i]->kernel();
      const gpu::LaunchDimensionsProto& d = kt.launch_dimensions();
      EXPECT_EQ(d.grid_x(), (rows[i] + 63) / 64) << i;
      EXPECT_EQ(d.grid_y(), heads[i]) << i;
      EXPECT_EQ(d.grid_z(), c.batch) << i;
      EXPECT_EQ(d.block_x(), 128) << i;
      EXPECT_GT(d.shared_memory_bytes(), 0) << i;
      EXPECT_LE(d.shared_memory_bytes(), 48 * 1024) << i;
      const gpu::KernelProto& kernel = p.kernels(kt.kernel_index());
      EXPECT_TRUE(kernel.has_cubin_with_ptx()) << kernel.name();
      EXPECT_TRUE(absl::StrContains(kernel.cubin_with_ptx().ptx(), "mma.sync.aligned.m16n8k16"));
    }
    EXPECT_EQ(kernels[0]->kernel().launch_dimensions().shared_memory_bytes(), fwd_smem);
    EXPECT_TRUE(absl::StrContains(p.kernels(kernels[0]->kernel().kernel_index()).name(), "fwd"));
    // Forward args: q, k, v (parameters 0.. in order, the empty operand of
    // a packed layout a zero-size slice), q_cu, kv_cu, output, stats: the
    // outputs are the program's results 0 and 1.
    const gpu::KernelThunkProto& fwd = kernels[0]->kernel();
    ASSERT_EQ(fwd.args_size(), 7);
    int param = 0;
    auto parameter_of = [&](const gpu::BufferSliceProto& s) {
      const gpu::BufferAllocationProto& a = p.allocations(s.allocation());
      return a.is_parameter() ? a.parameter_number() : -1;
    };
    for (int i = 0; i < 3; ++i) {
      if (c.operand_dims[i].size() == 1) {
        EXPECT_EQ(fwd.args(i).size(), 0) << i;
        continue;
      }
      EXPECT_EQ(parameter_of(fwd.args(i)), param++) << i;
    }
    EXPECT_EQ(parameter_of(fwd.args(3)), param);      // q_cu_seqlens
    EXPECT_EQ(parameter_of(fwd.args(4)), param + 1);  // kv_cu_seqlens
    for (int r = 0; r < 2; ++r) {
      const gpu::BufferSliceProto out = OutputSlice(p, r);
      EXPECT_EQ(fwd.args(5 + r).allocation(), out.allocation()) << r;
      EXPECT_EQ(fwd.args(5 + r).offset(), out.offset()) << r;
      EXPECT_EQ(fwd.args(5 + r).size(), out.size()) << r;
    }
    // The memset zeroes rng_state (u32[2,4]) right after the forward.
    bool memset = false;
    for (const gpu::ThunkProto& t : p.thunks()) {
      if (t.has_memset()) {
        memset = true;
        EXPECT_EQ(t.memset().destination().size(), 32);
      }
    }
    EXPECT_TRUE(memset);
    // Backward args: q, k, v, stats (the forward's), output, doutput,
    // q_cu, kv_cu, dq, dk, dv; the gradients are the program's results.
    for (int i = 1; i < 3; ++i) {
      const gpu::KernelThunkProto& bwd = kernels[i]->kernel();
      ASSERT_EQ(bwd.args_size(), 11);
      EXPECT_EQ(bwd.args(3).allocation(), fwd.args(6).allocation());
      EXPECT_EQ(bwd.args(3).offset(), fwd.args(6).offset());
      EXPECT_EQ(bwd.args(4).offset(), fwd.args(5).offset());
      EXPECT_EQ(bwd.args(4).allocation(), fwd.args(5).allocation());
      EXPECT_EQ(parameter_of(bwd.args(5)), param + 2);  // doutput
      int result = 2;
      for (int g = 0; g < 3; ++g) {
        if (c.operand_dims[g].size() == 1) continue;
        const gpu::BufferSliceProto out = OutputSlice(p, result++);
        EXPECT_EQ(bwd.args(8 + g).allocation(), out.allocation()) << g;
        EXPECT_EQ(bwd.args(8 + g).offset(), out.offset()) << g;
      }
    }
  }
}

// On the fake driver with host stand-ins for the three kernels: every
// result matches the evaluator.
TEST_P(TeFusedAttentionCuda, FakeDriverRunMatchesTheEvaluator) {
  const CudaCase& k = GetParam();
  const TeAttentionConfig c = ConfigOf(k.c);
  const std::string hlo = TeAttentionHlo(k.c, /*backward=*/true);
  const std::vector<Literal> args =
      gpu::ffi::testing::TeAttentionArguments(k.c, k.q_lens, k.kv_lens, 200);
  absl::StatusOr<Literal> expected = evaluator_test::EvalText(hlo, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // The fake device is an sm_80.
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options("sm_80"));
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, Options("sm_80"));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::vector<const gpu::ThunkProto*> kernels = KernelThunks(*proto);
  ASSERT_EQ(kernels.size(), 3u);
  se::cuda::FakeCudaDriver driver;
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i) {
    names.push_back(proto->payload().kernels(kernels[i]->kernel().kernel_index()).name());
  }
  driver.RegisterKernel(names[0], [&](const se::cuda::FakeLaunch& l) { ForwardStandIn(c, l); });
  driver.RegisterKernel(names[1],
                        [&](const se::cuda::FakeLaunch& l) { BackwardStandIn(c, l, true); });
  driver.RegisterKernel(names[2],
                        [&](const se::cuda::FakeLaunch& l) { BackwardStandIn(c, l, false); });
  se::cuda::CudaPlatform platform(&driver.api());
  absl::StatusOr<se::StreamExecutor*> gpu = platform.GetDevice(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, *gpu, args);
  ASSERT_TRUE(out.ok()) << out.status();
  // The launches, in order, with the thunks' dimensions.
  std::vector<se::cuda::FakeLaunch> launches = driver.launches();
  ASSERT_EQ(launches.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const gpu::LaunchDimensionsProto& d = kernels[i]->kernel().launch_dimensions();
    EXPECT_EQ(launches[i].kernel, names[i]);
    EXPECT_EQ(launches[i].grid[0], d.grid_x());
    EXPECT_EQ(launches[i].grid[1], d.grid_y());
    EXPECT_EQ(launches[i].block[0], 128u);
    EXPECT_EQ(launches[i].shared_memory_bytes, d.shared_memory_bytes());
  }
  const std::vector<Literal>& want = expected->tuple_elements();
  ASSERT_EQ(out->size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    double worst = 0, largest = 0;
    for (int64_t i = 0; i < want[r].element_count(); ++i) {
      const double a = (*out)[r].GetDouble(i), b = want[r].GetDouble(i);
      largest = std::max(largest, std::abs(b));
      worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
    }
    EXPECT_GT(largest, 0.01) << "result " << r;  // not a test on zeros
    EXPECT_LE(worst, r == 1 ? 1e-5 : 8e-3) << "result " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, TeFusedAttentionCuda, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<CudaCase>& info) {
                           return info.param.c.Name();
                         });

// A call the kernels do not support is refused at compile time naming the
// attribute, unless --allow_custom_calls says the runtime has a handler.
TEST(TeFusedAttentionCudaErrors, UnsupportedHeadDimIsRefusedNamingTheAttribute) {
  const std::string hlo = TeAttentionHlo(Make(1, 33, 2, 2, 36, 9, 0), /*backward=*/false);
  absl::Status refused = CompileToProto(hlo, Options("sm_90")).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnimplemented) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "attribute 'qk_head_dim' = 36 is not supported"))
      << refused;
  CompileOptions allowed = Options("sm_90");
  allowed.allowed_custom_calls = {"te_fused_attn_forward_ffi"};
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, allowed);
  ASSERT_TRUE(proto.ok()) << proto.status();
  int custom_calls = 0;
  for (const gpu::ThunkProto& t : proto->payload().thunks()) custom_calls += t.has_custom_call();
  EXPECT_EQ(custom_calls, 1);
}

}  // namespace
}  // namespace xla::aot
