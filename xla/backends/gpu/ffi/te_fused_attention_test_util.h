// Test-only: HLO modules that call Transformer Engine's fused attention
// (te_fused_attention.h) the way TE's JAX bindings do, for a small case,
// and inputs for them. Shared by the evaluator, handler and end-to-end
// tests so that they all exercise the same calls.
//
// Thread-safety: pure functions.
#ifndef XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_TEST_UTIL_H_
#define XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla::gpu::ffi::testing {

struct TeAttentionCase {
  int64_t batch = 1;
  int64_t q_seqlen = 4;
  int64_t kv_seqlen = 4;
  int64_t heads = 1;
  int64_t kv_heads = 1;
  int64_t head_dim = 8;
  int64_t qkv_layout = 9;  // NVTE_QKV_Layout
  int64_t mask_type = 0;   // NVTE_Mask_Type
  double scale = 1.0;
  std::string type = "bf16";  // of Q, K, V and the output

  std::string Name() const;  // for test names and messages
};

// A case with the given sizes, layout (NVTE_QKV_Layout), mask
// (NVTE_Mask_Type) and element type, scaled by 1/sqrt(head_dim) as TE's
// callers scale.
TeAttentionCase MakeTeAttentionCase(int64_t batch, int64_t q_seqlen, int64_t kv_seqlen,
                                    int64_t heads, int64_t kv_heads, int64_t head_dim,
                                    int64_t layout, int64_t mask, const char* type = "bf16");

// The backend_config dictionary TE prints for `c`.
std::string TeAttentionBackendConfig(const TeAttentionCase& c);

// A module whose parameters are the non-empty ones of q, k, v (operands 0..2
// in the layout's packing), then q_cu_seqlens and kv_cu_seqlens (s32[B+1]),
// then, with `backward`, doutput. It runs the forward call and returns
// (output, softmax_aux); with `backward` it also feeds those to the
// backward call and returns (output, softmax_aux, the non-empty ones of dq,
// dk, dv). Bias, seed and offsets are empty constants, as TE passes them.
// Dies (CHECK) when `c` is not a supported case.
std::string TeAttentionHlo(const TeAttentionCase& c, bool backward);

// The parameter shapes of TeAttentionHlo(c, backward), in order.
std::vector<Shape> TeAttentionParameterShapes(const TeAttentionCase& c, bool backward);

// Arguments for TeAttentionHlo(c, /*backward=*/true): deterministic values
// in [-1, 1) (parameter i drawn from seed `seed + i`), and cu_seqlens from
// the per-batch lengths (empty: the maximum lengths).
std::vector<Literal> TeAttentionArguments(const TeAttentionCase& c,
                                          const std::vector<int64_t>& q_lens,
                                          const std::vector<int64_t>& kv_lens, uint64_t seed);

}  // namespace xla::gpu::ffi::testing

#endif  // XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_TEST_UTIL_H_
