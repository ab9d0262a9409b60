// Dot precision: whether an f32 dot may run on TF32 tensor cores.
//
// XLA:GPU runs f32 dots through cuBLAS(Lt) with TF32 allowed when the dot's
// precision_config permits it, and this compiler follows the same rule for
// its GEMM thunks on sm_80 and later (docs/architecture.md, "Dot
// precision"):
//   * `algorithm=` set: TF32 only for dot_tf32_tf32_f32 (one TF32 pass).
//     Every other algorithm runs in exact f32, which is at least as precise
//     as what it asks for (dot_tf32_tf32_f32_x3, the bf16 forms,
//     dot_f32_f32_f32).
//   * otherwise: each operand's precision (`operand_precision={...}`;
//     missing means DEFAULT) is taken, with DEFAULT read as
//     `default_precision` (JAX's jax_default_matmul_precision, the
//     `--gpu_f32_dot_precision` flag). TF32 when the highest of them is
//     DEFAULT or HIGH; exact f32 when any is HIGHEST. An operand precision
//     this code does not know counts as HIGHEST.
// The host target always computes f32 dots in f32, as XLA:CPU does.
//
// Thread-safety: pure functions.
#ifndef XLA_SERVICE_CANONICALIZE_DOT_PRECISION_H_
#define XLA_SERVICE_CANONICALIZE_DOT_PRECISION_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// XLA's PrecisionConfig::Precision values that dots use.
enum class DotPrecision { kDefault, kHigh, kHighest };

// "default", "high" or "highest" (any case); nullopt otherwise.
std::optional<DotPrecision> ParseDotPrecision(absl::string_view text);

// Whether `dot` (a kDot, or a convolution that becomes one) may run with
// TF32 operands under the rule above, DEFAULT meaning `default_precision`.
// Says nothing about element types: callers ask only for f32 dots.
bool DotAllowsTf32(const HloInstruction& dot, DotPrecision default_precision);

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_DOT_PRECISION_H_
