// Internal to the evaluator: exact multiply-accumulate for dot and
// convolution, and the entry points of the linalg ops that live in their own
// files (see linalg_ops.cc for the registration).
//
// Accumulation (AccumKind):
//   kInt      all of lhs, rhs and result are integers or pred: products and
//             sums wrap modulo 2^64, then the result wraps to its width, which
//             is exact modular arithmetic in the result type.
//   kFloat    some type is a float (none complex): operands decoded exactly to
//             f64, products and sums in f64, rounded once to the result type.
//   kComplex  some type is complex: the same in complex<double>.
// Pure functions; thread-safe.
#ifndef XLA_HLO_EVALUATOR_LINALG_UTIL_H_
#define XLA_HLO_EVALUATOR_LINALG_UTIL_H_

#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/types/literal.h"

namespace xla::evaluator::linalg {

enum class AccumKind { kInt, kFloat, kComplex };

// Checks a dot-like instruction's dimension numbers against its operand
// shapes `lhs` and `rhs`: batch and contracting lists of equal lengths, no
// dimension out of range or named twice (on the rhs counting
// `rhs_other_dims` too, e.g. ragged-dot's group dimensions), and equal
// sizes for each batch and contracting pair. InvalidArgument naming the
// instruction otherwise.
absl::Status CheckDotDims(const HloInstruction& instr, const Shape& lhs, const Shape& rhs,
                          absl::Span<const int64_t> rhs_other_dims = {});

// The accumulation kind for operands of types `a`, `b` and a result of type
// `out` (see the file comment).
AccumKind AccumKindFor(PrimitiveType a, PrimitiveType b, PrimitiveType out);

// An operand's elements decoded once, in the representation `kind` uses.
struct DecodedArray {
  AccumKind kind = AccumKind::kInt;
  std::vector<uint64_t> ints;  // kInt: sign- or zero-extended bits
  std::vector<double> reals;   // kFloat
  std::vector<std::complex<double>> complexes;  // kComplex
};

// Decodes every element of the array literal `l` for `kind`.
DecodedArray Decode(const Literal& l, AccumKind kind);

// A running sum of products of one kind.
class Accumulator {
 public:
  // A zero sum of kind `kind`.
  explicit Accumulator(AccumKind kind) : kind_(kind) {}

  // Adds a[ia] * b[ib].
  void AddProduct(const DecodedArray& a, int64_t ia, const DecodedArray& b, int64_t ib) {
    switch (kind_) {
      case AccumKind::kInt:
        int_sum_ += a.ints[ia] * b.ints[ib];
        return;
      case AccumKind::kFloat:
        real_sum_ += a.reals[ia] * b.reals[ib];
        return;
      case AccumKind::kComplex:
        complex_sum_ += a.complexes[ia] * b.complexes[ib];
        return;
    }
  }

  // Rounds (floats) or wraps (integers) the sum into element `i` of `out`.
  void Store(Literal& out, int64_t i) const;

 private:
  AccumKind kind_;
  uint64_t int_sum_ = 0;
  double real_sum_ = 0;
  std::complex<double> complex_sum_ = 0;
};

// Entry points of linalg ops implemented in other files; each follows the
// OpEvaluator contract (op_table.h).
absl::StatusOr<Literal> EvalConvolution(const HloInstruction& instr,
                                        absl::Span<const Literal* const> operands,
                                        EvalContext& ctx);
absl::StatusOr<Literal> EvalCholesky(const HloInstruction& instr,
                                     absl::Span<const Literal* const> operands, EvalContext& ctx);
absl::StatusOr<Literal> EvalTriangularSolve(const HloInstruction& instr,
                                            absl::Span<const Literal* const> operands,
                                            EvalContext& ctx);
absl::StatusOr<Literal> EvalFft(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, EvalContext& ctx);
// XLA:GPU's __cublas$gemm / __cublas$lt$matmul custom calls
// (gemm_custom_call_op.cc); errors name the instruction.
absl::StatusOr<Literal> EvalGemmCustomCall(const HloInstruction& instr,
                                           absl::Span<const Literal* const> operands);
// XLA's xla_builder.matrix.Einsum custom call (einsum_op.cc); errors name
// the instruction.
absl::StatusOr<Literal> EvalEinsumCustomCall(const HloInstruction& instr,
                                             absl::Span<const Literal* const> operands);
absl::StatusOr<Literal> EvalRaggedDot(const HloInstruction& instr,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx);

}  // namespace xla::evaluator::linalg

#endif  // XLA_HLO_EVALUATOR_LINALG_UTIL_H_
