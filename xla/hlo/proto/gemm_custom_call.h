// XLA:GPU's own GEMM custom calls, `__cublas$gemm`, `__cublas$lt$matmul` and
// the FP8 `__cublas$lt$matmul$f8` (they appear in programs dumped after
// XLA's optimizations; the compiler also emits the FP8 one for sm_90, see
// xla/service/canonicalize/fp8_gemm_scale_folder.h): what one computes, read
// from its backend_config (a GemmBackendConfig in JSON, optionally wrapped in
// {"gemm_backend_config": ...}).
//
// Such a call computes, with d = dot(a, b) over the config's dimension
// numbers (result dimensions batch, lhs free, rhs free, as a dot), summed
// in f32 or wider:
//   result = act(alpha * a_scale * b_scale * d + beta * c + bias)
// Operands: a, b, then c when beta != 0 (the result's shape), then, for
// `__cublas$lt$matmul$f8` only, a_scale and b_scale (f32 scalars; 1 for the
// other targets), then bias when the epilogue adds one (a vector over the
// result's minor dimension). An FP8 call with an fp8 result (which also
// takes c and d scales in XLA) is refused. The
// result is the call's shape, or element 0 of its tuple shape (the other
// elements are a cuBLAS workspace). act is the identity (DEFAULT), relu
// (max(x, 0)) or gelu (XLA's tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x +
// 0.044715 x^3)))). Epilogues with an auxiliary output (GELU_AUX, ...) and
// others are refused by name.
//
// Pure functions; thread-safe. No compiler code (the evaluator may use it).
#ifndef XLA_HLO_PROTO_GEMM_CUSTOM_CALL_H_
#define XLA_HLO_PROTO_GEMM_CUSTOM_CALL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gemm {

enum class GemmActivation { kNone, kRelu, kGelu };

// One GEMM custom call's meaning.
struct GemmCall {
  double alpha = 1;
  double beta = 0;
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
  std::vector<std::string> operand_precision;  // as written; empty: default
  bool has_bias = false;
  GemmActivation activation = GemmActivation::kNone;
  int64_t c_operand = -1;     // operand index of c, or -1
  int64_t bias_operand = -1;  // operand index of bias, or -1
  // Operand indices of the FP8 call's a_scale and b_scale (f32 scalars), or
  // -1 (other targets).
  int64_t a_scale_operand = -1;
  int64_t b_scale_operand = -1;
};

// The FP8 GEMM target, "__cublas$lt$matmul$f8".
inline constexpr absl::string_view kFp8GemmTarget = "__cublas$lt$matmul$f8";

// True for "__cublas$gemm", "__cublas$lt$matmul" and "__cublas$lt$matmul$f8".
bool IsGemmCustomCallTarget(absl::string_view target);

// Reads `instr` (a custom call of such a target). InvalidArgument naming the
// instruction when the backend_config is missing or is not such JSON, the
// operand count does not match beta, the epilogue and the target, alpha has
// an imaginary part, the dimension lists do not fit the operands, or an FP8
// call's scale is not an f32 scalar or its result is not f16, bf16 or f32;
// Unimplemented naming the value for an epilogue other than DEFAULT, BIAS,
// RELU, BIAS_RELU, GELU and BIAS_GELU.
absl::StatusOr<GemmCall> ReadGemmCustomCall(const HloInstruction& instr);

}  // namespace xla::gemm

#endif  // XLA_HLO_PROTO_GEMM_CUSTOM_CALL_H_
