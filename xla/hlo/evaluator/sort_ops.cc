// sort and topk for the evaluator.
//
// sort: N operands of the same dimensions are sorted together along
// `dimensions={d}`; the comparator to_apply is called through
// EvalContext::Call with 2N scalars (lhs_0, rhs_0, lhs_1, rhs_1, ...) and
// returns pred "lhs before rhs". The sort is a stable merge sort whether or
// not is_stable is set (elements the comparator does not order keep their
// order), and it never misbehaves on an inconsistent comparator. The result
// is a tuple when N > 1.
//
// topk(x), k=K, largest=L: along the last dimension, the K largest (L=true,
// the default) or smallest elements, in that order, and their s32 indices,
// as a tuple (values, indices). Floats compare in total order (-NaN < -inf <
// ... < -0 < +0 < ... < inf < NaN); ties keep the lower index first.
#include <algorithm>
#include <numeric>
#include <vector>

#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/indexing_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::indexing {
namespace {

using op_helpers::OpError;

// Stable bottom-up merge sort of `v` with a comparator that may fail:
// less(a, b) -> StatusOr<bool>. On ties the left run goes first.
template <typename Less>
absl::Status StableMergeSort(std::vector<int64_t>& v, Less less) {
  const size_t n = v.size();
  std::vector<int64_t> tmp(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        ASSIGN_OR_RETURN(bool right_first, less(v[j], v[i]));
        tmp[k++] = right_first ? v[j++] : v[i++];
      }
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    v.swap(tmp);
  }
  return absl::OkStatus();
}

absl::Status CheckSortOperands(const HloInstruction& instr,
                               absl::Span<const Literal* const> ops) {
  if (ops.empty()) return OpError(instr, "needs at least one operand");
  std::vector<Shape> results;
  for (const Literal* op : ops) {
    RETURN_IF_ERROR(op_helpers::ExpectArray(instr, *op, "every operand"));
    if (op->shape().dimensions() != ops[0]->shape().dimensions()) {
      return OpError(instr, "operands must share dimensions, got ",
                     ops[0]->shape().ToString(false), " and ", op->shape().ToString(false));
    }
    results.push_back(Shape::Array(op->shape().element_type(), op->shape().dimensions()));
  }
  const Shape want = results.size() == 1 ? results[0] : Shape::Tuple(results);
  if (!ShapesCompatible(instr.shape(), want, /*ignore_dynamic=*/true)) {
    return OpError(instr, "result shape ", instr.shape().ToString(false), " should be ",
                   want.ToString(false));
  }
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= ops[0]->shape().rank()) {
    return OpError(instr, "needs dimensions={d} with one dimension of the operands");
  }
  if (instr.to_apply() == nullptr) return OpError(instr, "to_apply is missing");
  return absl::OkStatus();
}

// Sorts one line (element offsets `pos` in every operand) into `results`.
absl::Status SortLine(const HloInstruction& instr, absl::Span<const Literal* const> ops,
                      const std::vector<int64_t>& pos, op_helpers::ScalarCaller& cmp,
                      EvalContext& ctx, std::vector<Literal>& results) {
  std::vector<int64_t> perm(pos.size());
  std::iota(perm.begin(), perm.end(), 0);
  const PrimitiveType pred = PrimitiveType::PRED;
  auto less = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
    for (size_t i = 0; i < ops.size(); ++i) {
      cmp.SetArg(2 * i, *ops[i], pos[a]);
      cmp.SetArg(2 * i + 1, *ops[i], pos[b]);
    }
    ASSIGN_OR_RETURN(Literal r, cmp.Call(ctx));
    RETURN_IF_ERROR(op_helpers::CheckScalarResults(instr, r, {&pred, 1}));
    return op_helpers::ScalarResult(r, 0).GetBits(0) != 0;
  };
  RETURN_IF_ERROR(StableMergeSort(perm, less));
  for (size_t i = 0; i < ops.size(); ++i) {
    for (size_t j = 0; j < pos.size(); ++j) {
      op_helpers::CopyElement(*ops[i], pos[perm[j]], results[i], pos[j]);
    }
  }
  return absl::OkStatus();
}

// Offsets of each line along `dim`: calls fn(std::vector<int64_t> positions).
template <typename Fn>
absl::Status ForEachLine(const std::vector<int64_t>& dims, int64_t dim, Fn fn) {
  std::vector<int64_t> lines = dims;
  lines[dim] = 1;
  if (ElementCount(lines) == 0) return absl::OkStatus();
  const int64_t stride = RowMajorStrides(dims)[dim];
  std::vector<int64_t> index(dims.size(), 0), pos(dims[dim]);
  do {
    const int64_t base = LinearIndex(index, dims);
    for (int64_t j = 0; j < dims[dim]; ++j) pos[j] = base + j * stride;
    RETURN_IF_ERROR(fn(pos));
  } while (NextIndex(index, lines));
  return absl::OkStatus();
}

// A key whose int64 order is the total order of element `i`.
int64_t TotalOrderKey(const Literal& l, int64_t i) {
  const PrimitiveType t = l.shape().element_type();
  if (IsSignedInt(t)) return l.GetInt(i);
  const uint64_t bits = l.GetBits(i);
  if (IsUnsignedInt(t)) return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
  if (!IsFloat(t)) return static_cast<int64_t>(bits);  // pred
  const FloatFormat& f = GetFloatFormat(FloatFormatOf(t));
  if (f.specials == SpecialValues::kExponentOnly) return static_cast<int64_t>(bits);
  const int sign_bit = f.total_bits() - 1;
  const int64_t magnitude = static_cast<int64_t>(bits & ((uint64_t{1} << sign_bit) - 1));
  return ((bits >> sign_bit) & 1) ? -magnitude - 1 : magnitude;
}

absl::Status CheckTopK(const HloInstruction& instr, const Literal& x, int64_t k) {
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, x, "operand"));
  const Shape& s = x.shape();
  if (s.rank() < 1 || IsComplex(s.element_type()) || k < 0 ||
      k > s.dimensions(s.rank() - 1)) {
    return OpError(instr, "k=", k, " does not fit ", s.ToString(false),
                   " (needs a non-complex operand of rank >= 1)");
  }
  std::vector<int64_t> dims = s.dimensions();
  dims.back() = k;
  const Shape want = Shape::Tuple(
      {Shape::Array(s.element_type(), dims), Shape::Array(PrimitiveType::S32, dims)});
  if (!ShapesCompatible(instr.shape(), want, /*ignore_dynamic=*/true)) {
    return OpError(instr, "result shape ", instr.shape().ToString(false), " should be ",
                   want.ToString(false));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalSort(const HloInstruction& instr,
                                 absl::Span<const Literal* const> operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckSortOperands(instr, operands));
  std::vector<PrimitiveType> types;
  std::vector<Literal> results;
  for (const Literal* op : operands) {
    types.insert(types.end(), 2, op->shape().element_type());
    results.push_back(*op);
  }
  op_helpers::ScalarCaller cmp(*instr.to_apply(), types);
  RETURN_IF_ERROR(ForEachLine(
      operands[0]->shape().dimensions(), instr.dimensions()[0],
      [&](const std::vector<int64_t>& pos) {
        return SortLine(instr, operands, pos, cmp, ctx, results);
      }));
  if (results.size() == 1) return std::move(results[0]);
  Literal out(instr.shape());
  *out.mutable_tuple_elements() = std::move(results);
  return out;
}

absl::StatusOr<Literal> EvalTopK(const HloInstruction& instr,
                                 absl::Span<const Literal* const> operands, EvalContext& ctx) {
  const Literal& x = *operands[0];
  const int64_t k = instr.GetInt(AttrId::kK);
  const bool largest = instr.GetBool(AttrId::kLargest, true);
  RETURN_IF_ERROR(CheckTopK(instr, x, k));
  Literal out(instr.shape());
  Literal& values = (*out.mutable_tuple_elements())[0];
  Literal& indices = (*out.mutable_tuple_elements())[1];
  const std::vector<int64_t>& dims = x.shape().dimensions();
  int64_t row = 0;
  RETURN_IF_ERROR(ForEachLine(dims, x.shape().rank() - 1, [&](const std::vector<int64_t>& pos) {
    std::vector<int64_t> keys(pos.size()), perm(pos.size());
    for (size_t j = 0; j < pos.size(); ++j) keys[j] = TotalOrderKey(x, pos[j]);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return largest ? keys[a] > keys[b] : keys[a] < keys[b];
    });
    for (int64_t j = 0; j < k; ++j) {
      op_helpers::CopyElement(x, pos[perm[j]], values, row * k + j);
      indices.SetInt(row * k + j, perm[j]);
    }
    ++row;
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<Literal> EvalTopKCustomCall(const HloInstruction& instr,
                                           absl::Span<const Literal* const> operands,
                                           EvalContext& ctx) {
  const std::vector<HloComputation*> called = instr.called_computations();
  const Shape& out = instr.shape();
  if (operands.size() != 1 || called.size() != 1 || !out.IsTuple() || out.tuple_shapes_size() != 2 ||
      !out.tuple_shapes(0).IsArray() || out.tuple_shapes(0).rank() < 1) {
    return OpError(instr, "custom-call TopK needs one operand, one comparator in "
                          "called_computations and a (values, indices) result");
  }
  const Literal& x = *operands[0];
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, x, "operand"));
  const int64_t k = out.tuple_shapes(0).dimensions(out.tuple_shapes(0).rank() - 1);
  RETURN_IF_ERROR(CheckTopK(instr, x, k));
  const PrimitiveType t = x.shape().element_type();
  const HloComputation& cmp_comp = *called[0];
  if (cmp_comp.num_parameters() != 4) {
    return OpError(instr, "the TopK comparator '", cmp_comp.name(), "' must take 4 parameters ",
                   "(value a, value b, index a, index b), it takes ", cmp_comp.num_parameters());
  }
  const std::vector<PrimitiveType> types = {t, t, PrimitiveType::S32, PrimitiveType::S32};
  op_helpers::ScalarCaller cmp(cmp_comp, types);
  const int64_t n = x.shape().dimensions(x.shape().rank() - 1);
  Literal iota(Shape::Array(PrimitiveType::S32, {n}));
  for (int64_t j = 0; j < n; ++j) iota.SetInt(j, j);
  Literal result(out);
  Literal& values = (*result.mutable_tuple_elements())[0];
  Literal& indices = (*result.mutable_tuple_elements())[1];
  const PrimitiveType pred = PrimitiveType::PRED;
  int64_t row = 0;
  RETURN_IF_ERROR(ForEachLine(x.shape().dimensions(), x.shape().rank() - 1,
                              [&](const std::vector<int64_t>& pos) -> absl::Status {
    std::vector<int64_t> perm(pos.size());
    std::iota(perm.begin(), perm.end(), 0);
    auto less = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
      cmp.SetArg(0, x, pos[a]);
      cmp.SetArg(1, x, pos[b]);
      cmp.SetArg(2, iota, a);
      cmp.SetArg(3, iota, b);
      ASSIGN_OR_RETURN(Literal r, cmp.Call(ctx));
      RETURN_IF_ERROR(op_helpers::CheckScalarResults(instr, r, {&pred, 1}));
      return op_helpers::ScalarResult(r, 0).GetBits(0) != 0;
    };
    RETURN_IF_ERROR(StableMergeSort(perm, less));
    for (int64_t j = 0; j < k; ++j) {
      op_helpers::CopyElement(x, pos[perm[j]], values, row * k + j);
      indices.SetInt(row * k + j, perm[j]);
    }
    ++row;
    return absl::OkStatus();
  }));
  return result;
}

}  // namespace xla::evaluator::indexing
