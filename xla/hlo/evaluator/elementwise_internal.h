// Internal to the evaluator: the scalar kernels of the elementwise family and
// the op evaluators that live outside elementwise_ops.cc. The kernels are
// shared with reduce_ops.cc, so that a reduction whose combiner is a single
// `add` (etc.) rounds exactly like evaluating that computation.
//
// Types: a kernel has one function per kind of element (float, complex,
// integer/pred); a missing function means the op does not support that kind.
// Floats follow numeric_util.h (computed in f64, rounded by
// RoundToFloatType); integers wrap. Pure functions; thread-safe.
#ifndef XLA_HLO_EVALUATOR_ELEMENTWISE_INTERNAL_H_
#define XLA_HLO_EVALUATOR_ELEMENTWISE_INTERNAL_H_

#include <complex>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/types/literal.h"

namespace xla::evaluator {

// One integer (or pred) element: raw bits (zero-extended), value
// (sign-extended for signed types, equal to bits otherwise) and type facts.
struct IntValue {
  uint64_t bits = 0;
  int64_t value = 0;
  int width = 0;
  bool is_signed = false;
  bool is_pred = false;
};

// Element `i` of an integer or pred literal.
IntValue ReadIntValue(const Literal& literal, int64_t i);

// A unary elementwise op.
struct UnaryKernel {
  HloOpcode opcode;
  double (*real)(double);                                    // floats
  std::complex<double> (*complex)(std::complex<double>);     // complex
  uint64_t (*integer)(const IntValue&);                      // ints and pred; raw bits
  bool pred_ok;                                              // integer() accepts pred
};

// A binary elementwise op. `pick_lhs`, when set, replaces `real`: the result
// is the encoding of the operand it picks (maximum, minimum).
struct BinaryKernel {
  HloOpcode opcode;
  double (*real)(double, double);
  bool (*pick_lhs)(double, double);
  std::complex<double> (*complex)(std::complex<double>, std::complex<double>);
  uint64_t (*integer)(const IntValue&, const IntValue&);
  bool pred_ok;
};

// The kernel of `opcode`, or nullptr when it is not a table-driven op.
const UnaryKernel* FindUnaryKernel(HloOpcode opcode);
const BinaryKernel* FindBinaryKernel(HloOpcode opcode);

// True when the kernel handles elements of `type`.
bool KernelSupports(const UnaryKernel& kernel, PrimitiveType type);
bool KernelSupports(const BinaryKernel& kernel, PrimitiveType type);

// out[io] = kernel(a[ia]) / kernel(a[ia], b[ib]). All literals have element
// type `type` (for unary abs of a complex, `out` has the component type), and
// KernelSupports(kernel, type) holds. `out` may alias `a` or `b`.
void ApplyUnary(const UnaryKernel& kernel, PrimitiveType type, const Literal& a, int64_t ia,
                Literal& out, int64_t io);
void ApplyBinary(const BinaryKernel& kernel, PrimitiveType type, const Literal& a, int64_t ia,
                 const Literal& b, int64_t ib, Literal& out, int64_t io);

// The comparison of a `compare` instruction: direction and whether floats
// use the total order (type=TOTALORDER).
struct CompareSpec {
  enum class Direction { kEq, kNe, kLt, kLe, kGt, kGe };
  Direction direction = Direction::kEq;
  bool total_order = false;
};

// Reads direction= and type= of a compare instruction; an error naming it for
// an unknown direction.
absl::StatusOr<CompareSpec> GetCompareSpec(const HloInstruction& instr);

// a[ia] <direction> b[ib] for two literals of one element type. Floats
// compare as IEEE values (NaN unordered; -0 == +0) or, with total_order, by
// TotalOrderKey; integers by their signedness; complex supports EQ/NE only
// (the caller checks).
bool CompareElements(const CompareSpec& spec, const Literal& a, int64_t ia, const Literal& b,
                     int64_t ib);

// Op evaluators of convert_ops.cc (registered by RegisterElementwiseOps).
absl::StatusOr<Literal> EvalConvert(const HloInstruction& instr,
                                    absl::Span<const Literal* const> operands, EvalContext& ctx);
absl::StatusOr<Literal> EvalBitcastConvert(const HloInstruction& instr,
                                           absl::Span<const Literal* const> operands,
                                           EvalContext& ctx);
absl::StatusOr<Literal> EvalStochasticConvert(const HloInstruction& instr,
                                              absl::Span<const Literal* const> operands,
                                              EvalContext& ctx);
absl::StatusOr<Literal> EvalReducePrecision(const HloInstruction& instr,
                                            absl::Span<const Literal* const> operands,
                                            EvalContext& ctx);

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_ELEMENTWISE_INTERNAL_H_
