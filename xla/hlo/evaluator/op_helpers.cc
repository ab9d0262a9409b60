#include "xla/hlo/evaluator/op_helpers.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/strings/str_join.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/util/logging.h"

namespace xla::evaluator::op_helpers {

void CopyElement(const Literal& src, int64_t si, Literal& dst, int64_t di) {
  const PrimitiveType type = src.shape().element_type();
  XLA_CHECK(type == dst.shape().element_type()) << "CopyElement between different types";
  const int64_t width = ByteWidth(type);
  std::memcpy(dst.mutable_data().data() + di * width, src.data().data() + si * width, width);
}

int64_t IndexValue(const Literal& l, int64_t i) {
  const PrimitiveType type = l.shape().element_type();
  if (IsUnsignedInt(type)) {
    const uint64_t bits = l.GetBits(i);
    const uint64_t max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(std::min(bits, max));
  }
  return l.GetInt(i);
}

absl::Status CheckDimList(const HloInstruction& instr, const char* what,
                          absl::Span<const int64_t> dims, int64_t rank) {
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool repeated = std::find(dims.begin(), dims.begin() + i, dims[i]) != dims.begin() + i;
    if (dims[i] < 0 || dims[i] >= rank || repeated) {
      return OpError(instr, what, "={", absl::StrJoin(dims, ","),
                     "} must list distinct dimensions in [0, ", rank, ")");
    }
  }
  return absl::OkStatus();
}

absl::Status ExpectArray(const HloInstruction& instr, const Literal& l, const char* what) {
  if (!l.shape().IsArray()) {
    return OpError(instr, what, " must be an array, got ", l.shape().ToString(false));
  }
  return absl::OkStatus();
}

absl::Status CheckArrayResult(const HloInstruction& instr, absl::Span<const int64_t> dims,
                              PrimitiveType type) {
  const Shape& shape = instr.shape();
  const bool same_dims = shape.IsArray() && shape.dimensions().size() == dims.size() &&
                         std::equal(dims.begin(), dims.end(), shape.dimensions().begin());
  if (!same_dims || shape.element_type() != type) {
    return OpError(instr, "result shape ", shape.ToString(false), " should be ",
                   Shape::Array(type, dims).ToString(false));
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

ScalarCaller::ScalarCaller(const HloComputation& computation,
                           absl::Span<const PrimitiveType> types)
    : computation_(computation) {
  args_.reserve(types.size());
  for (PrimitiveType t : types) args_.emplace_back(Shape::Scalar(t));
  for (const Literal& a : args_) ptrs_.push_back(&a);
}

absl::StatusOr<Literal> ScalarCaller::Call(EvalContext& ctx) {
  return ctx.Call(computation_, ptrs_);
}

absl::Status CheckScalarResults(const HloInstruction& instr, const Literal& result,
                                absl::Span<const PrimitiveType> types) {
  const Shape& shape = result.shape();
  const int64_t n = static_cast<int64_t>(types.size());
  bool ok;
  if (shape.IsTuple()) {
    ok = shape.tuple_shapes_size() == n;
    for (int64_t k = 0; ok && k < n; ++k) {
      ok = shape.tuple_shapes(k).IsScalar() && shape.tuple_shapes(k).element_type() == types[k];
    }
  } else {
    ok = n == 1 && shape.IsScalar() && shape.element_type() == types[0];
  }
  if (!ok) {
    std::vector<std::string> names;
    for (PrimitiveType t : types) names.emplace_back(PrimitiveTypeName(t));
    const HloComputation* callee = instr.to_apply();
    return OpError(instr, "the called computation '", callee ? callee->name() : "?",
                   "' returned ", shape.ToString(false), ", expected scalar(s) of type ",
                   absl::StrJoin(names, ", "));
  }
  return absl::OkStatus();
}

}  // namespace xla::evaluator::op_helpers
