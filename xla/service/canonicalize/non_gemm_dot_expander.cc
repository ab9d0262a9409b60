#include "xla/service/canonicalize/non_gemm_dot_expander.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/service/canonicalize/fp8_dot_widener.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using canonicalize::AddOp;
using canonicalize::AddTranspose;

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v) {
    if (e == x) return true;
  }
  return false;
}

// Checks the dimension attributes of `dot` (an unverified module may break
// them); the error names the dot and the rule.
absl::Status CheckDims(const HloInstruction& dot, const std::vector<int64_t>& lb,
                       const std::vector<int64_t>& lc, const std::vector<int64_t>& rb,
                       const std::vector<int64_t>& rc) {
  const Shape& l = dot.operand(0)->shape();
  const Shape& r = dot.operand(1)->shape();
  auto error = [&dot](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("non-gemm-dot-expander: dot '", dot.name(),
                                                   "': ", what,
                                                   " (run the verifier on the input module)"));
  };
  if (lb.size() != rb.size() || lc.size() != rc.size()) {
    return error("lhs and rhs batch/contracting dimension lists differ in length");
  }
  std::vector<int64_t> lu(lb), ru(rb);
  lu.insert(lu.end(), lc.begin(), lc.end());
  ru.insert(ru.end(), rc.begin(), rc.end());
  for (size_t i = 0; i < lu.size(); ++i) {
    if (lu[i] < 0 || lu[i] >= l.rank() || ru[i] < 0 || ru[i] >= r.rank()) {
      return error("a batch or contracting dimension is out of range");
    }
    for (size_t j = 0; j < i; ++j) {
      if (lu[j] == lu[i] || ru[j] == ru[i]) return error("a dimension is listed twice");
    }
    if (l.dimensions()[lu[i]] != r.dimensions()[ru[i]]) {
      return error(absl::StrCat("lhs dimension ", lu[i], " and rhs dimension ", ru[i],
                                " have different sizes"));
    }
  }
  return absl::OkStatus();
}

HloInstruction* Convert(HloComputation* comp, NameUniquer* names, HloInstruction* op,
                        PrimitiveType to) {
  if (op->shape().element_type() == to) return op;
  Shape shape = op->shape();
  shape.set_element_type(to);
  return AddOp(comp, names, HloOpcode::kConvert, shape, {op}, "convert");
}

// Builds the elementwise-and-reduce form of `dot` (see the header), computing
// in `compute`.
absl::StatusOr<HloInstruction*> Expand(HloInstruction* dot, PrimitiveType compute,
                                       ScalarReducers* reducers, NameUniquer* names) {
  HloComputation* comp = dot->parent();
  const std::vector<int64_t>& lb = dot->GetIntList(AttrId::kLhsBatchDims);
  const std::vector<int64_t>& lc = dot->GetIntList(AttrId::kLhsContractingDims);
  const std::vector<int64_t>& rb = dot->GetIntList(AttrId::kRhsBatchDims);
  const std::vector<int64_t>& rc = dot->GetIntList(AttrId::kRhsContractingDims);
  RETURN_IF_ERROR(CheckDims(*dot, lb, lc, rb, rc));
  HloInstruction* lhs = dot->operand(0);
  HloInstruction* rhs = dot->operand(1);
  // Operand permutations to [batch..., free..., contracting...].
  auto permutation = [](const Shape& s, const std::vector<int64_t>& batch,
                        const std::vector<int64_t>& contracting, int64_t* free_count) {
    std::vector<int64_t> perm(batch);
    *free_count = 0;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (Contains(batch, d) || Contains(contracting, d)) continue;
      perm.push_back(d);
      ++*free_count;
    }
    perm.insert(perm.end(), contracting.begin(), contracting.end());
    return perm;
  };
  int64_t lf = 0, rf = 0;
  const std::vector<int64_t> lperm = permutation(lhs->shape(), lb, lc, &lf);
  const std::vector<int64_t> rperm = permutation(rhs->shape(), rb, rc, &rf);
  const int64_t nb = static_cast<int64_t>(lb.size());
  const int64_t nk = static_cast<int64_t>(lc.size());
  // Product dims [batch..., lhs free..., rhs free..., contracting...] and
  // where each transposed operand dim goes (increasing, so plain broadcasts).
  std::vector<int64_t> dims, lmap, rmap;
  for (int64_t i = 0; i < nb; ++i) dims.push_back(lhs->shape().dimensions()[lb[i]]);
  for (int64_t i = 0; i < lf; ++i) dims.push_back(lhs->shape().dimensions()[lperm[nb + i]]);
  for (int64_t i = 0; i < rf; ++i) dims.push_back(rhs->shape().dimensions()[rperm[nb + i]]);
  for (int64_t i = 0; i < nk; ++i) dims.push_back(lhs->shape().dimensions()[lc[i]]);
  for (int64_t i = 0; i < nb + lf; ++i) lmap.push_back(i);
  for (int64_t i = 0; i < nb; ++i) rmap.push_back(i);
  for (int64_t i = 0; i < rf; ++i) rmap.push_back(nb + lf + i);
  for (int64_t i = 0; i < nk; ++i) {
    lmap.push_back(nb + lf + rf + i);
    rmap.push_back(nb + lf + rf + i);
  }
  const Shape product_shape = Shape::Array(compute, dims);
  // The convert comes after the broadcast, so that fusion puts it into the
  // reduction kernel too (a convert of the whole operand feeding a broadcast
  // would stay a kernel of its own and store a widened copy).
  auto widen = [&](HloInstruction* op, const std::vector<int64_t>& perm,
                   const std::vector<int64_t>& map) {
    HloInstruction* t = AddTranspose(comp, names, op, perm);
    HloInstruction* b = AddOp(comp, names, HloOpcode::kBroadcast,
                              Shape::Array(op->shape().element_type(), dims), {t}, "broadcast");
    b->SetAttr(AttrId::kDimensions, map);
    return Convert(comp, names, b, compute);
  };
  HloInstruction* products =
      AddOp(comp, names, IsPred(compute) ? HloOpcode::kAnd : HloOpcode::kMultiply, product_shape,
            {widen(lhs, lperm, lmap), widen(rhs, rperm, rmap)}, "products");
  Shape sum_shape = dot->shape();
  sum_shape.set_element_type(compute);
  HloInstruction* sum = products;
  if (nk > 0) {
    HloInstruction* zero = comp->AddInstruction(MakeScalarConstant(compute, 0.0, names->Unique("zero")));
    std::vector<int64_t> reduce_dims;
    for (int64_t i = 0; i < nk; ++i) reduce_dims.push_back(nb + lf + rf + i);
    sum = AddOp(comp, names, HloOpcode::kReduce, sum_shape, {products, zero}, "dot_sum");
    sum->SetAttr(AttrId::kDimensions, reduce_dims);
    sum->SetAttr(AttrId::kToApply, reducers->Get(IsPred(compute) ? HloOpcode::kOr : HloOpcode::kAdd, compute));
  }
  if (compute == dot->shape().element_type()) return sum;
  if (!IsPred(dot->shape().element_type())) {
    return AddOp(comp, names, HloOpcode::kConvert, dot->shape(), {sum}, "convert");
  }
  // A pred result of a wider sum is "the sum is not zero".
  HloInstruction* zero = AddBroadcastOfScalar(
      comp, names, comp->AddInstruction(MakeScalarConstant(compute, 0.0, names->Unique("zero"))),
      sum->shape());
  HloInstruction* nonzero =
      AddOp(comp, names, HloOpcode::kCompare, dot->shape(), {sum, zero}, "nonzero");
  nonzero->SetAttr(AttrId::kDirection, std::string("NE"));
  return nonzero;
}

}  // namespace

bool GemmPathRunsDot(const HloInstruction& dot, bool keep_cublaslt_fp8) {
  if (dot.operand_count() != 2 || !dot.shape().IsArray() || !dot.operand(0)->shape().IsArray() ||
      !dot.operand(1)->shape().IsArray()) {
    return false;
  }
  if (keep_cublaslt_fp8 && IsCublasLtFp8Dot(dot)) return true;
  const PrimitiveType l = dot.operand(0)->shape().element_type();
  const PrimitiveType r = dot.operand(1)->shape().element_type();
  const PrimitiveType out = dot.shape().element_type();
  if (Fp8DotComputeType(l, r, out) != PrimitiveType::TUPLE) return true;
  return IsGemmElementType(out) && ConvertsExactly(l, out) && ConvertsExactly(r, out);
}

PrimitiveType NonGemmDotComputeType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result) {
  if (IsComplex(lhs) || IsComplex(rhs) || IsComplex(result)) return PrimitiveType::TUPLE;
  const bool int_operands = (IsInteger(lhs) || IsPred(lhs)) && (IsInteger(rhs) || IsPred(rhs));
  if (IsInteger(result)) return int_operands ? result : PrimitiveType::TUPLE;
  if (IsPred(result)) {
    // The evaluator's sum is modulo 2^64: s64 wraps the same way.
    if (IsPred(lhs) && IsPred(rhs)) return PrimitiveType::PRED;
    return int_operands ? PrimitiveType::S64 : PrimitiveType::TUPLE;
  }
  // The evaluator reads every operand as a double (rounding s64 / u64 to
  // nearest, as convert does) and sums in f64.
  return IsFloat(result) ? PrimitiveType::F64 : PrimitiveType::TUPLE;
}

absl::StatusOr<bool> NonGemmDotExpander::Run(HloModule* module) {
  std::vector<std::pair<HloInstruction*, PrimitiveType>> todo;
  for (const auto& comp : module->computations()) {
    for (const auto& instr : comp->instructions()) {
      const HloInstruction& dot = *instr;
      if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2) continue;
      if (!dot.shape().IsArray() || !dot.operand(0)->shape().IsArray() ||
          !dot.operand(1)->shape().IsArray()) {
        continue;
      }
      if (HasControlEdges(dot) || GemmPathRunsDot(dot, keep_cublaslt_fp8_)) continue;
      if (!canonicalize::IsStaticShape(dot.shape()) ||
          !canonicalize::IsStaticShape(dot.operand(0)->shape()) ||
          !canonicalize::IsStaticShape(dot.operand(1)->shape())) {
        continue;
      }
      const PrimitiveType compute = NonGemmDotComputeType(
          dot.operand(0)->shape().element_type(), dot.operand(1)->shape().element_type(),
          dot.shape().element_type());
      if (compute != PrimitiveType::TUPLE) todo.emplace_back(instr.get(), compute);
    }
  }
  if (todo.empty()) return false;
  ScalarReducers reducers(module, "dot");
  std::vector<HloComputation*> touched;
  for (const auto& [dot, compute] : todo) {
    HloComputation* comp = dot->parent();
    NameUniquer names(*comp);
    ASSIGN_OR_RETURN(HloInstruction * replacement, Expand(dot, compute, &reducers, &names));
    RETURN_IF_ERROR(ReplaceInstruction(dot, replacement));
    if (touched.empty() || touched.back() != comp) touched.push_back(comp);
  }
  for (HloComputation* comp : touched) comp->SortInstructionsInPostOrder();
  return true;
}

}  // namespace xla
