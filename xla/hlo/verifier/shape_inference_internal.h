// Internal to shape inference: the per-call context, shared helpers, and one
// entry point per opcode family. Not part of the public API; include
// shape_inference.h instead.
#ifndef XLA_HLO_VERIFIER_SHAPE_INFERENCE_INTERNAL_H_
#define XLA_HLO_VERIFIER_SHAPE_INFERENCE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/shape.h"

namespace xla::shape_inference_internal {

// Text of a shape without its layout, as error messages print it.
inline std::string ShapeStr(const Shape& s) { return s.ToString(/*print_layout=*/false); }

// Array shape with per-dimension dynamic flags (`dynamic` may be empty).
Shape MakeArray(PrimitiveType type, const std::vector<int64_t>& dims,
                const std::vector<bool>& dynamic = {});

// a + b and a * b, or nullopt on int64 overflow (sizes come from text).
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// True when two dimension sizes agree: equal, or one of them unbounded (`?`).
inline bool DimsAgree(int64_t a, int64_t b) {
  return a == b || a == kUnboundedSize || b == kUnboundedSize;
}

// Everything a shape rule reads about one instruction.
class InferContext {
 public:
  InferContext(const HloInstruction& instr, bool shape_declared)
      : instr_(instr), declared_(shape_declared) {}

  const HloInstruction& instr() const { return instr_; }
  HloOpcode opcode() const { return instr_.opcode(); }
  int64_t operand_count() const { return instr_.operand_count(); }
  const Shape& operand_shape(int64_t i) const { return instr_.operand(i)->shape(); }
  // The declared result shape, or nullptr when the shape was omitted.
  const Shape* declared() const { return declared_ ? &instr_.shape() : nullptr; }

  // InvalidArgumentError "<name>: <pieces...>".
  template <typename... Args>
  absl::Status Error(const Args&... pieces) const {
    return absl::InvalidArgumentError(absl::StrCat(instr_.name(), ": ", pieces...));
  }

  // The declared shape, or an error saying the opcode needs one.
  absl::StatusOr<Shape> DeclaredOrError() const;
  // `inferred` with the declared element type when a declared array shape
  // exists; otherwise `fallback` (a type) or an error when there is none.
  absl::StatusOr<Shape> WithDeclaredType(Shape inferred,
                                         std::optional<PrimitiveType> fallback) const;

  // Operand checks; each error names the operand index and its shape.
  absl::Status ExpectOperandCountAtLeast(int64_t n) const;
  absl::Status ExpectArray(int64_t i) const;
  absl::Status ExpectScalar(int64_t i) const;
  absl::Status ExpectToken(int64_t i) const;
  // Operand `i` is an array of rank `rank`.
  absl::Status ExpectRank(int64_t i, int64_t rank) const;
  // Operands `i` and `j` have the same element type.
  absl::Status ExpectSameType(int64_t i, int64_t j) const;

  // A typed attribute, or nullptr when absent or of another kind.
  template <typename T>
  const T* Attr(AttrId id) const {
    const AttrValue* v = instr_.FindAttr(id);
    return v == nullptr ? nullptr : std::get_if<T>(v);
  }
  // Error "missing attribute 'x'" unless present.
  absl::Status Require(AttrId id) const;
  // The single computation of attribute `id`, or an error when absent.
  absl::StatusOr<const HloComputation*> Called(AttrId id) const;
  // Checks that every index in `dims` (attribute `id`) is in [0, rank) and
  // appears once.
  absl::Status CheckDimIndices(AttrId id, const std::vector<int64_t>& dims, int64_t rank) const;

 private:
  const HloInstruction& instr_;
  bool declared_;
};

// The output size of a windowed dimension of size `in` (reduce-window,
// convolution, select-and-scatter). Fails on a non-positive size, stride or
// dilation. Unbounded inputs give unbounded outputs.
absl::StatusOr<int64_t> WindowOutputSize(const InferContext& ctx, int64_t in,
                                         const WindowDim& w, int64_t dim);

// The result shapes of a reduction-like computation (reduce, scatter, sort
// comparator, ...): the root's tuple elements, or the root alone. A root that
// is a one-element tuple counts as that element.
std::vector<Shape> FlatResults(const HloComputation& comp);

// Checks that `comp` takes parameters compatible with `params` (layouts
// ignored) and names `what` ("to_apply", "body", ...) in the error.
absl::Status CheckParameters(const InferContext& ctx, const HloComputation& comp,
                             absl::string_view what, const std::vector<Shape>& params);

// The root shape of `comp`, or an error when it has no root.
absl::StatusOr<Shape> RootShape(const InferContext& ctx, const HloComputation& comp);

// True when two element types are equal or both floating point (reducers
// may accumulate in a different float precision than their inputs).
bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b);

// Checks a reducer of n values (reduce, reduce-window, scatter, all-reduce):
// 2n scalar parameters (n accumulators of `acc_types`, then n inputs of
// `input_types`), returning n scalars of `acc_types`. Float precisions may
// differ, as in XLA.
absl::Status CheckReducer(const InferContext& ctx, const HloComputation& comp,
                          const std::vector<PrimitiveType>& acc_types,
                          const std::vector<PrimitiveType>& input_types);

// Per-family entry points. Each handles the opcodes its file lists; the
// operand count of fixed-arity opcodes is already checked.
// shape_inference.cc
absl::StatusOr<Shape> InferElementwise(const InferContext& ctx);
// shape_inference_data.cc
absl::StatusOr<Shape> InferBroadcast(const InferContext& ctx);
absl::StatusOr<Shape> InferReshape(const InferContext& ctx);
absl::StatusOr<Shape> InferDynamicReshape(const InferContext& ctx);
absl::StatusOr<Shape> InferTranspose(const InferContext& ctx);
absl::StatusOr<Shape> InferReverse(const InferContext& ctx);
absl::StatusOr<Shape> InferSlice(const InferContext& ctx);
absl::StatusOr<Shape> InferDynamicSlice(const InferContext& ctx);
absl::StatusOr<Shape> InferDynamicUpdateSlice(const InferContext& ctx);
absl::StatusOr<Shape> InferConcatenate(const InferContext& ctx);
absl::StatusOr<Shape> InferPad(const InferContext& ctx);
absl::StatusOr<Shape> InferIota(const InferContext& ctx);
absl::StatusOr<Shape> InferConvert(const InferContext& ctx);
absl::StatusOr<Shape> InferBitcastConvert(const InferContext& ctx);
absl::StatusOr<Shape> InferStochasticConvert(const InferContext& ctx);
absl::StatusOr<Shape> InferGetDimensionSize(const InferContext& ctx);
absl::StatusOr<Shape> InferSetDimensionSize(const InferContext& ctx);
// shape_inference_indexing.cc
absl::StatusOr<Shape> InferGather(const InferContext& ctx);
absl::StatusOr<Shape> InferScatter(const InferContext& ctx);
// shape_inference_compute.cc
absl::StatusOr<Shape> InferDot(const InferContext& ctx);
absl::StatusOr<Shape> InferRaggedDot(const InferContext& ctx);
absl::StatusOr<Shape> InferScaledDot(const InferContext& ctx);
absl::StatusOr<Shape> InferConvolution(const InferContext& ctx);
absl::StatusOr<Shape> InferFft(const InferContext& ctx);
absl::StatusOr<Shape> InferCholesky(const InferContext& ctx);
absl::StatusOr<Shape> InferTriangularSolve(const InferContext& ctx);
absl::StatusOr<Shape> InferBatchNorm(const InferContext& ctx);
absl::StatusOr<Shape> InferTopK(const InferContext& ctx);
// shape_inference_reduce.cc
absl::StatusOr<Shape> InferReduce(const InferContext& ctx);
absl::StatusOr<Shape> InferReduceWindow(const InferContext& ctx);
absl::StatusOr<Shape> InferSelectAndScatter(const InferContext& ctx);
absl::StatusOr<Shape> InferSort(const InferContext& ctx);
absl::StatusOr<Shape> InferMap(const InferContext& ctx);
absl::StatusOr<Shape> InferScan(const InferContext& ctx);
// shape_inference_control.cc
absl::StatusOr<Shape> InferTuple(const InferContext& ctx);
absl::StatusOr<Shape> InferGetTupleElement(const InferContext& ctx);
absl::StatusOr<Shape> InferWhile(const InferContext& ctx);
absl::StatusOr<Shape> InferConditional(const InferContext& ctx);
absl::StatusOr<Shape> InferCallLike(const InferContext& ctx, AttrId computation_attr);
absl::StatusOr<Shape> InferAsyncStart(const InferContext& ctx);
absl::StatusOr<Shape> InferAsyncDone(const InferContext& ctx);
absl::StatusOr<Shape> InferCopyStart(const InferContext& ctx);
absl::StatusOr<Shape> InferCopyDone(const InferContext& ctx);
absl::StatusOr<Shape> InferSend(const InferContext& ctx);
absl::StatusOr<Shape> InferSendDone(const InferContext& ctx);
absl::StatusOr<Shape> InferRecv(const InferContext& ctx);
absl::StatusOr<Shape> InferRecvDone(const InferContext& ctx);
absl::StatusOr<Shape> InferInfeed(const InferContext& ctx);
absl::StatusOr<Shape> InferOutfeed(const InferContext& ctx);
absl::StatusOr<Shape> InferAfterAll(const InferContext& ctx);
absl::StatusOr<Shape> InferRng(const InferContext& ctx);
absl::StatusOr<Shape> InferRngBitGenerator(const InferContext& ctx);
// shape_inference_collectives.cc
absl::StatusOr<Shape> InferAllGather(const InferContext& ctx);
absl::StatusOr<Shape> InferAllGatherStart(const InferContext& ctx);
absl::StatusOr<Shape> InferAllReduce(const InferContext& ctx);
absl::StatusOr<Shape> InferReduceScatter(const InferContext& ctx);
absl::StatusOr<Shape> InferAllToAll(const InferContext& ctx);
absl::StatusOr<Shape> InferRaggedAllToAll(const InferContext& ctx);
absl::StatusOr<Shape> InferCollectivePermute(const InferContext& ctx);
absl::StatusOr<Shape> InferCollectivePermuteStart(const InferContext& ctx);
absl::StatusOr<Shape> InferCollectiveBroadcast(const InferContext& ctx);
// The `-done` half of all-gather / collective-permute: element 1 of a
// (input, output) tuple operand, or the operand itself when it is an array.
absl::StatusOr<Shape> InferCollectiveDone(const InferContext& ctx);

}  // namespace xla::shape_inference_internal

#endif  // XLA_HLO_VERIFIER_SHAPE_INFERENCE_INTERNAL_H_
