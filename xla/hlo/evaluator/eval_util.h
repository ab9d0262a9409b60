// Internal to the evaluator: helpers shared by the op families (errors that
// name the instruction, typed attribute access, element copies and scalar
// literals). Pure functions on their arguments; thread-compatible.
#ifndef XLA_HLO_EVALUATOR_EVAL_UTIL_H_
#define XLA_HLO_EVALUATOR_EVAL_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla::evaluator {

// "<opcode> '<name>'", the prefix of every error about one instruction.
std::string Describe(const HloInstruction& instr);

// InvalidArgumentError "<opcode> '<name>': <pieces...>" (bad operands or
// attributes: the verifier should have caught them).
template <typename... Args>
absl::Status InstrError(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(absl::StrCat(Describe(instr), ": ", pieces...));
}

// UnimplementedError "<opcode> '<name>': <pieces...>" (valid HLO that the
// evaluator does not handle).
template <typename... Args>
absl::Status InstrUnimplemented(const HloInstruction& instr, const Args&... pieces) {
  return absl::UnimplementedError(absl::StrCat(Describe(instr), ": ", pieces...));
}

// The attribute `id` of `instr` when present and of type T, else nullptr.
template <typename T>
const T* AttrAs(const HloInstruction& instr, AttrId id) {
  const AttrValue* v = instr.FindAttr(id);
  return v == nullptr ? nullptr : std::get_if<T>(v);
}

// Row-major array shape with the default layout.
Shape ArrayShape(PrimitiveType type, absl::Span<const int64_t> dims);

// Copies element `from_index` of `from` to element `to_index` of `to`; both
// must be arrays of the same element type and the indices in range.
void CopyElement(const Literal& from, int64_t from_index, Literal& to, int64_t to_index);

// Element `i` of an array literal whose element type is stored as the native
// type T (f32 as float, s32 as int32_t, ...): the caller guarantees the
// match. Same results as the generic Literal accessors, without their
// per-element type dispatch (used by hot loops).
template <typename T>
T LoadNative(const Literal& l, int64_t i) {
  T v;
  std::memcpy(&v, l.data().data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// Stores `v` as element `i` (see LoadNative).
template <typename T>
void StoreNative(Literal& l, int64_t i, T v) {
  std::memcpy(l.mutable_data().data() + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// A scalar literal holding element `index` of the array `array`.
Literal ScalarOf(const Literal& array, int64_t index);

// A tuple literal owning `elements`.
Literal MakeTuple(std::vector<Literal> elements);

// OK when operand `i` of `instr` is an array literal (not a tuple or token);
// an error naming the instruction and the operand otherwise.
absl::Status ExpectArrayOperand(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, int64_t i);

// Checks that `instr` has at least `n` operands.
absl::Status ExpectOperandCount(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, int64_t n);

// The integer value of element `index` of an integer (or pred) literal:
// sign-extended for signed types; unsigned values above INT64_MAX clamp to
// INT64_MAX (used for indices, which are clamped anyway).
int64_t IndexValue(const Literal& literal, int64_t index);

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_EVAL_UTIL_H_
