// Evaluator ops of the linalg family (see op_table.h): dot and scaled-dot
// (the dot of block-scaled operands) here; convolution,
// cholesky, triangular-solve, fft and ragged-dot in their own files
// (linalg_util.h).
//
// dot: result dimensions are the batch dimensions (in lhs_batch_dims order),
// then the lhs free dimensions, then the rhs free dimensions, each in
// increasing order. Any number of batch and contracting dimensions. The
// result element type may differ from the operand types (s8 x s8 -> s32,
// bf16 x bf16 -> f32, ...); accumulation follows linalg_util.h: exact
// wrap-around for integers, f64 (complex<double>) with one final rounding for
// floats. Contracting positions are summed in row-major order of the
// contracting dimensions as lhs_contracting_dims lists them.
// operand_precision and algorithm attributes are ignored (the evaluator is
// always at least as precise as HIGHEST).
#include <utility>
#include <vector>

#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using linalg::AccumKind;
using linalg::CheckDotDims;
using op_helpers::Contains;
using op_helpers::OpError;

// How each result dimension and each contracting position maps to element
// offsets in the (row-major) operands.
struct DotPlan {
  std::vector<int64_t> result_dims;
  std::vector<int64_t> lhs_stride;  // per result dimension (0: not from lhs)
  std::vector<int64_t> rhs_stride;  // per result dimension (0: not from rhs)
  std::vector<std::pair<int64_t, int64_t>> contracting;  // (lhs, rhs) offsets
};

// Offsets of every contracting position, in row-major order of the
// contracting dimensions.
std::vector<std::pair<int64_t, int64_t>> ContractingOffsets(const HloInstruction& instr,
                                                            const Shape& lhs,
                                                            const Shape& rhs) {
  const auto& lc = instr.GetIntList(AttrId::kLhsContractingDims);
  const auto& rc = instr.GetIntList(AttrId::kRhsContractingDims);
  const std::vector<int64_t> ls = RowMajorStrides(lhs.dimensions());
  const std::vector<int64_t> rs = RowMajorStrides(rhs.dimensions());
  std::vector<int64_t> sizes;
  for (int64_t d : lc) sizes.push_back(lhs.dimensions(d));
  std::vector<std::pair<int64_t, int64_t>> out;
  if (ElementCount(sizes) == 0) return out;
  std::vector<int64_t> index(sizes.size(), 0);
  do {
    int64_t lo = 0, ro = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      lo += index[k] * ls[lc[k]];
      ro += index[k] * rs[rc[k]];
    }
    out.emplace_back(lo, ro);
  } while (NextIndex(index, sizes));
  return out;
}

absl::StatusOr<DotPlan> PlanDot(const HloInstruction& instr, const Shape& lhs, const Shape& rhs) {
  RETURN_IF_ERROR(CheckDotDims(instr, lhs, rhs));
  const auto& lb = instr.GetIntList(AttrId::kLhsBatchDims);
  const auto& rb = instr.GetIntList(AttrId::kRhsBatchDims);
  const auto& lc = instr.GetIntList(AttrId::kLhsContractingDims);
  const auto& rc = instr.GetIntList(AttrId::kRhsContractingDims);
  const std::vector<int64_t> ls = RowMajorStrides(lhs.dimensions());
  const std::vector<int64_t> rs = RowMajorStrides(rhs.dimensions());
  DotPlan plan;
  auto add = [&plan](int64_t size, int64_t l, int64_t r) {
    plan.result_dims.push_back(size);
    plan.lhs_stride.push_back(l);
    plan.rhs_stride.push_back(r);
  };
  for (size_t k = 0; k < lb.size(); ++k) add(lhs.dimensions(lb[k]), ls[lb[k]], rs[rb[k]]);
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(lb, d) && !Contains(lc, d)) add(lhs.dimensions(d), ls[d], 0);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(rb, d) && !Contains(rc, d)) add(rhs.dimensions(d), 0, rs[d]);
  }
  plan.contracting = ContractingOffsets(instr, lhs, rhs);
  return plan;
}

absl::StatusOr<Literal> EvalDot(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, EvalContext& ctx) {
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, lhs, "lhs"));
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, rhs, "rhs"));
  ASSIGN_OR_RETURN(DotPlan plan, PlanDot(instr, lhs.shape(), rhs.shape()));
  const PrimitiveType out_type = instr.shape().element_type();
  RETURN_IF_ERROR(op_helpers::CheckArrayResult(instr, plan.result_dims, out_type));
  const AccumKind kind =
      linalg::AccumKindFor(lhs.shape().element_type(), rhs.shape().element_type(), out_type);
  const linalg::DecodedArray a = linalg::Decode(lhs, kind);
  const linalg::DecodedArray b = linalg::Decode(rhs, kind);
  Literal out(instr.shape());
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(plan.result_dims.size(), 0);
  int64_t linear = 0;
  do {
    int64_t lbase = 0, rbase = 0;
    for (size_t r = 0; r < index.size(); ++r) {
      lbase += index[r] * plan.lhs_stride[r];
      rbase += index[r] * plan.rhs_stride[r];
    }
    linalg::Accumulator acc(kind);
    for (const auto& [lo, ro] : plan.contracting) acc.AddProduct(a, lbase + lo, b, rbase + ro);
    acc.Store(out, linear++);
  } while (NextIndex(index, plan.result_dims));
  return out;
}

// Multiplies every element of `x` (decoded as kFloat) by its block's scale:
// scale dimension d covers x.dims[d] / scale.dims[d] elements; a scalar
// scale covers everything.
absl::Status ApplyBlockScale(const HloInstruction& instr, const Shape& x, const Literal& scale,
                             linalg::DecodedArray& decoded) {
  const Shape& s = scale.shape();
  if (s.IsArray() && s.rank() == 0) {
    const double v = scale.GetDouble(0);
    for (double& e : decoded.reals) e *= v;
    return absl::OkStatus();
  }
  bool ok = s.IsArray() && s.rank() == x.rank();
  for (int64_t d = 0; ok && d < x.rank(); ++d) {
    ok = s.dimensions(d) > 0 && x.dimensions(d) % s.dimensions(d) == 0;
  }
  if (!ok) {
    return OpError(instr, "scale ", s.ToString(false), " must be a scalar or divide ",
                   x.ToString(false), " dimension by dimension");
  }
  if (decoded.reals.empty()) return absl::OkStatus();
  std::vector<int64_t> index(x.rank(), 0), block(x.rank(), 0);
  int64_t linear = 0;
  do {
    for (int64_t d = 0; d < x.rank(); ++d) {
      block[d] = index[d] / (x.dimensions(d) / s.dimensions(d));
    }
    decoded.reals[linear++] *= scale.GetDouble(LinearIndex(block, s.dimensions()));
  } while (NextIndex(index, x.dimensions()));
  return absl::OkStatus();
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): dot(lhs * broadcast(lhs_scale),
// rhs * broadcast(rhs_scale)) with the dot's dimension numbers, each scale
// element covering a block of its operand (or all of it when scalar); real
// floats only, in f64 with one rounding to the result type.
absl::StatusOr<Literal> EvalScaledDot(const HloInstruction& instr,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  (void)ctx;
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  for (int i = 0; i < 4; ++i) {
    RETURN_IF_ERROR(op_helpers::ExpectArray(instr, *operands[i], "operand"));
    if (!IsFloat(operands[i]->shape().element_type())) {
      return op_helpers::OpUnimplemented(instr, "scaled-dot is evaluated for float operands and "
                                                "scales only");
    }
  }
  ASSIGN_OR_RETURN(DotPlan plan, PlanDot(instr, lhs.shape(), rhs.shape()));
  const PrimitiveType out_type = instr.shape().element_type();
  RETURN_IF_ERROR(op_helpers::CheckArrayResult(instr, plan.result_dims, out_type));
  if (!IsFloat(out_type)) return op_helpers::OpUnimplemented(instr, "the result must be a float");
  linalg::DecodedArray a = linalg::Decode(lhs, AccumKind::kFloat);
  linalg::DecodedArray b = linalg::Decode(rhs, AccumKind::kFloat);
  RETURN_IF_ERROR(ApplyBlockScale(instr, lhs.shape(), *operands[2], a));
  RETURN_IF_ERROR(ApplyBlockScale(instr, rhs.shape(), *operands[3], b));
  Literal out(instr.shape());
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(plan.result_dims.size(), 0);
  int64_t linear = 0;
  do {
    int64_t lbase = 0, rbase = 0;
    for (size_t r = 0; r < index.size(); ++r) {
      lbase += index[r] * plan.lhs_stride[r];
      rbase += index[r] * plan.rhs_stride[r];
    }
    linalg::Accumulator acc(AccumKind::kFloat);
    for (const auto& [lo, ro] : plan.contracting) acc.AddProduct(a, lbase + lo, b, rbase + ro);
    acc.Store(out, linear++);
  } while (NextIndex(index, plan.result_dims));
  return out;
}

}  // namespace

void RegisterLinalgOps(OpTable& table) {
  table[static_cast<int>(HloOpcode::kScaledDot)] = EvalScaledDot;
  table[static_cast<int>(HloOpcode::kDot)] = EvalDot;
  table[static_cast<int>(HloOpcode::kConvolution)] = linalg::EvalConvolution;
  table[static_cast<int>(HloOpcode::kCholesky)] = linalg::EvalCholesky;
  table[static_cast<int>(HloOpcode::kTriangularSolve)] = linalg::EvalTriangularSolve;
  table[static_cast<int>(HloOpcode::kFft)] = linalg::EvalFft;
  table[static_cast<int>(HloOpcode::kRaggedDot)] = linalg::EvalRaggedDot;
}

}  // namespace xla::evaluator
