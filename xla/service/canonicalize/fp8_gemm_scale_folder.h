// Fp8GemmScaleFolder: per-tensor scales of fp8 matmuls become cuBLASLt's A/B
// scale pointers (sm_90 with --fp8_gemm=cublaslt only; issue 25).
//
// fp8 programs (the Llama 3.1 fp8 steps, XLA's fp8 tests) dequantize around
// their dots with one scalar per tensor, in one of two spellings:
//
//   operand scales: dot(convert(x_f8) * broadcast(sx), convert(w_f8) / broadcast(sw))
//   result scale:   multiply(dot(x_f8, w_f8), broadcast(s))   (the Llama steps:
//                   s = bf16(sx * sw), one bf16 multiply after a bf16 dot)
//
// cuBLASLt computes D = a_scale * b_scale * sum(A * B) in f32 and rounds
// once to D's type, reading each scale from a device pointer. The pass runs
// in two stages (two instances in the middle end):
//
//  * Stage::kHoistOperandScales, before fp8-dot-widener: a dot whose two
//    operands are each convert(v) of an fp8 array v (f8e4m3fn, f8e5m2),
//    optionally multiplied or divided by a per-tensor scale (below), with an
//    f16 / bf16 / f32 result and operands, and whose fp8 form cuBLASLt runs
//    (IsCublasLtFp8Dot on the fp8 arrays and an f32 result: m, n, k
//    multiples of 16, not e5m2 x e5m2) becomes
//      convert(multiply(multiply(dot_f32(x_f8, w_f8), broadcast(sx')), broadcast(sw')))
//    with sx' = f32(sx) (1 / f32(s) for a division); the multiplies and the
//    convert are left out where they change nothing. fp8-dot-widener then
//    keeps the fp8 dot and dot-canonicalizer brings it into TN form.
//  * Stage::kFoldIntoGemm, after dot-canonicalizer: a canonical fp8 dot in
//    cuBLASLt's TN form (IsCublasLtFp8Gemm) whose only use is a chain of
//    single-use reshape / bitcast / transpose / copy ops (which only move
//    elements) followed by one or two multiplies (or divisions) by a
//    per-tensor scale and, after an f32 multiply, optionally one convert to
//    f16 or bf16, becomes
//      chain(custom-call(lhs, rhs, a_scale, b_scale),
//            custom_call_target="__cublas$lt$matmul$f8")
//    (XLA's FP8 GEMM call, xla/hlo/proto/gemm_custom_call.h: alpha 1,
//    beta 0, the dot's dimension numbers; a missing scale is constant 1) of
//    the convert's type, or the dot's. The thunk emitter turns such a call
//    (IsScaledFp8GemmCall) into a GemmThunk with lhs_scale / rhs_scale
//    slices; as an ordinary instruction with four operands, the scales are
//    live until the GEMM ran (buffer assignment), and nothing fuses into it.
//
// A per-tensor scale is a rank-0 value, or broadcast of one
// (dimensions={}), of a float type that converts exactly to f32 (f32, bf16,
// f16, fp8); it is converted to f32 (exact). Per-row or per-column scales
// (a broadcast along a dimension), f64 scales, other fp8 users and dots
// with control edges stay as they are.
//
// Tolerance. The rewrite keeps every value up to rounding, and rounds less:
//  * operand scales: the original rounds each convert(v) * s to the operand
//    type (bf16: relative 2^-9) before the dot; the folded GEMM multiplies
//    exact fp8 products and applies sx * sw to the f32 sum. The results
//    differ by about the operand type's epsilon relative to the output's
//    scale, as between two summation orders, which is what XLA's own fp8
//    GEMM rewriting accepts. Intermediate overflow of convert(v) * s in f16
//    is not reproduced (the folded product is finite where it is).
//  * result scale: round(round(sum) * s) becomes round(sum * s): one
//    rounding of the result type instead of two (at most 1 ulp apart).
//  * a division by s becomes a multiplication by f32(1 / s): one more f32
//    rounding (2^-24 relative), below the output type's rounding for f16
//    and bf16 outputs and within 1 ulp for f32.
// Idempotent per stage. Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_CANONICALIZE_FP8_GEMM_SCALE_FOLDER_H_
#define XLA_SERVICE_CANONICALIZE_FP8_GEMM_SCALE_FOLDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class Fp8GemmScaleFolder : public HloPass {
 public:
  enum class Stage { kHoistOperandScales, kFoldIntoGemm };

  explicit Fp8GemmScaleFolder(Stage stage) : stage_(stage) {}
  absl::string_view name() const override {
    return stage_ == Stage::kHoistOperandScales ? "fp8-operand-scale-hoister"
                                                : "fp8-gemm-scale-folder";
  }
  // Returns whether a dot was rewritten; fails only on an internal
  // inconsistency (a replacement whose shape does not match).
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  Stage stage_;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_FP8_GEMM_SCALE_FOLDER_H_
