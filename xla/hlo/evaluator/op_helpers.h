// Internal to the evaluator: small helpers shared by the linalg, indexing and
// rng op families (errors that name the instruction, raw element copies,
// exact index reads, attribute checks, calls of scalar computations).
// Pure functions unless noted; thread-safe.
#ifndef XLA_HLO_EVALUATOR_OP_HELPERS_H_
#define XLA_HLO_EVALUATOR_OP_HELPERS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"

namespace xla::evaluator::op_helpers {

// InvalidArgumentError "<opcode> '<name>': <pieces...>".
template <typename... Args>
absl::Status OpError(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(
      absl::StrCat(HloOpcodeName(instr.opcode()), " '", instr.name(), "': ", pieces...));
}

// UnimplementedError with the same prefix as OpError.
template <typename... Args>
absl::Status OpUnimplemented(const HloInstruction& instr, const Args&... pieces) {
  return absl::UnimplementedError(absl::StrCat("the evaluator does not support ",
                                               HloOpcodeName(instr.opcode()), " '",
                                               instr.name(), "': ", pieces...));
}

// Copies element `si` of `src` to element `di` of `dst` byte for byte. Both
// must be arrays of the same element type (a programmer error otherwise).
void CopyElement(const Literal& src, int64_t si, Literal& dst, int64_t di);

// Element `i` of an integer literal as an index: signed values as they are,
// unsigned values above INT64_MAX saturate to INT64_MAX (so clamping and
// bounds checks treat them as "very large", never as negative).
int64_t IndexValue(const Literal& l, int64_t i);

// Checks that every entry of the `what` list is in [0, rank) and appears once.
absl::Status CheckDimList(const HloInstruction& instr, const char* what,
                          absl::Span<const int64_t> dims, int64_t rank);

// Checks that `l` is an array literal.
absl::Status ExpectArray(const HloInstruction& instr, const Literal& l, const char* what);

// Checks that instr.shape() is an array with dimensions `dims` and element
// type `type`.
absl::Status CheckArrayResult(const HloInstruction& instr, absl::Span<const int64_t> dims,
                              PrimitiveType type);

// True when `v` contains `x`.
bool Contains(absl::Span<const int64_t> v, int64_t x);

// Calls a computation on scalars again and again without rebuilding the
// argument literals. Not thread-safe (holds scratch literals).
class ScalarCaller {
 public:
  // `types` are the parameter element types, in order.
  ScalarCaller(const HloComputation& computation, absl::Span<const PrimitiveType> types);

  // Sets argument `arg` to element `i` of `src` (same element type).
  void SetArg(int64_t arg, const Literal& src, int64_t i) {
    CopyElement(src, i, args_[arg], 0);
  }

  // Calls the computation with the current arguments.
  absl::StatusOr<Literal> Call(EvalContext& ctx);

 private:
  const HloComputation& computation_;
  std::vector<Literal> args_;
  std::vector<const Literal*> ptrs_;
};

// Checks that `result` (returned by a called computation) is a scalar of
// `type` (when `arity` is 1) or a tuple of `arity` such scalars of `types`.
absl::Status CheckScalarResults(const HloInstruction& instr, const Literal& result,
                                absl::Span<const PrimitiveType> types);

// Element `k` of a result checked by CheckScalarResults.
inline const Literal& ScalarResult(const Literal& result, int64_t k) {
  return result.shape().IsTuple() ? result.tuple_elements()[k] : result;
}

}  // namespace xla::evaluator::op_helpers

#endif  // XLA_HLO_EVALUATOR_OP_HELPERS_H_
