#include "xla/service/canonicalize/dot_canonicalizer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using canonicalize::AddReshape;
using canonicalize::AddTranspose;
using canonicalize::IsStaticShape;
using canonicalize::PermutationIsReshape;

// One operand of the dot, split into its dimension roles.
struct OperandDims {
  std::vector<int64_t> batch;        // in attribute order
  std::vector<int64_t> contracting;  // in attribute order
  std::vector<int64_t> free;         // increasing
};

absl::StatusOr<OperandDims> SplitDims(const HloInstruction& dot, const Shape& shape,
                                      const std::vector<int64_t>& batch,
                                      const std::vector<int64_t>& contracting) {
  std::vector<bool> used(shape.rank(), false);
  for (const std::vector<int64_t>* list : {&batch, &contracting}) {
    for (int64_t d : *list) {
      if (d < 0 || d >= shape.rank() || used[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dot-canonicalizer: dot '", dot.name(), "' has an invalid or repeated dimension ", d,
            " for operand shape ", shape.ToString(), "; run the verifier"));
      }
      used[d] = true;
    }
  }
  OperandDims out{batch, contracting, {}};
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!used[d]) out.free.push_back(d);
  }
  return out;
}

std::vector<int64_t> Concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

int64_t SizeOf(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= s.dimensions(d);
  return p;
}

// Brings `operand` into [batch?, free, contracting] or [batch?, contracting,
// free] form, whichever needs no data movement. When both do, the one
// that keeps the operand's minor (last, the module being row-major) dim
// last: that transpose moves whole rows (a KV cache [b, t, h, d] read as
// [b, h] batches of [t, d] keys: [b, h, t, d] copies runs of d floats,
// [b, h, d, t] would scatter every element; issue 27). `natural_free_first`
// breaks the remaining ties. Returns the rewritten operand and stores the
// position of its contracting dim.
// `force_free_first` always picks [batch?, free, contracting] (cuBLASLt's
// fp8 TN form).
HloInstruction* CanonicalizeOperand(HloComputation* comp, NameUniquer* names, HloInstruction* op,
                                    const OperandDims& dims, bool natural_free_first,
                                    bool force_free_first, int64_t* contracting_pos) {
  const Shape& s = op->shape();
  const std::vector<int64_t> free_first = Concat({&dims.batch, &dims.free, &dims.contracting});
  const std::vector<int64_t> contracting_first =
      Concat({&dims.batch, &dims.contracting, &dims.free});
  const bool ff_ok = PermutationIsReshape(s.dimensions(), free_first);
  const bool cf_ok = PermutationIsReshape(s.dimensions(), contracting_first);
  bool tie = natural_free_first;
  if (!ff_ok && !cf_ok) {
    const int64_t minor = s.rank() - 1;
    const bool ff_keeps_minor = free_first.back() == minor;
    const bool cf_keeps_minor = contracting_first.back() == minor;
    if (ff_keeps_minor != cf_keeps_minor) tie = ff_keeps_minor;
  }
  const bool free_first_chosen = force_free_first || (ff_ok == cf_ok ? tie : ff_ok);
  const std::vector<int64_t>& perm = free_first_chosen ? free_first : contracting_first;
  HloInstruction* transposed = AddTranspose(comp, names, op, perm);
  const bool has_batch = !dims.batch.empty();
  std::vector<int64_t> new_dims;
  if (has_batch) new_dims.push_back(SizeOf(s, dims.batch));
  const int64_t f = SizeOf(s, dims.free), c = SizeOf(s, dims.contracting);
  new_dims.push_back(free_first_chosen ? f : c);
  new_dims.push_back(free_first_chosen ? c : f);
  *contracting_pos = (has_batch ? 1 : 0) + (free_first_chosen ? 1 : 0);
  return AddReshape(comp, names, transposed, new_dims);
}

// The dot's operands, each of another type than the result converted to the
// result's type (s4/s8 weights, f8 inputs): the GEMM takes equal types only.
// Operands stay as they are when the result is not a GEMM type or one of
// them does not convert exactly (the dot is then left to the emitter, which
// refuses it by name). Sets *widened when it added a convert.
std::vector<HloInstruction*> GemmOperands(HloInstruction* dot, HloComputation* comp,
                                          NameUniquer* names, bool* widened) {
  *widened = false;
  const PrimitiveType out = dot->shape().element_type();
  std::vector<HloInstruction*> operands = dot->operands();
  if (!IsGemmElementType(out)) return operands;
  for (const HloInstruction* op : operands) {
    if (!op->shape().IsArray() || !ConvertsExactly(op->shape().element_type(), out)) {
      return operands;
    }
  }
  for (HloInstruction*& op : operands) {
    if (op->shape().element_type() == out) continue;
    Shape shape = op->shape();
    shape.set_element_type(out);
    op = comp->AddInstruction(
        HloInstruction::Create(HloOpcode::kConvert, shape, {op}, names->Unique("convert")));
    *widened = true;
  }
  return operands;
}

absl::StatusOr<HloInstruction*> RewriteDot(HloInstruction* dot, HloComputation* comp,
                                           NameUniquer* names, bool keep_cublaslt_fp8) {
  if (dot->operand_count() != 2) return nullptr;
  const bool fp8_tn = keep_cublaslt_fp8 && IsCublasLtFp8Dot(*dot);
  absl::StatusOr<GemmConfig> ready = GetGemmConfig(*dot, /*require_row_major=*/false);
  // An fp8 dot is ready only in the TN form.
  const bool gemm_ready = ready.ok() && (!fp8_tn || IsCublasLtFp8Gemm(*ready));
  auto static_array = [](const Shape& s) { return s.IsArray() && s.is_static(); };
  if (!gemm_ready && (!IsStaticShape(dot->shape()) || !dot->shape().IsArray() ||
                      !static_array(dot->operand(0)->shape()) ||
                      !static_array(dot->operand(1)->shape()))) {
    return nullptr;
  }
  bool widened = false;
  const std::vector<HloInstruction*> operands =
      fp8_tn ? dot->operands() : GemmOperands(dot, comp, names, &widened);
  if (gemm_ready) {
    if (!widened) return nullptr;
    return comp->AddInstruction(
        dot->CloneWithNewOperands(dot->shape(), operands, names->Unique(dot->name())));
  }
  HloInstruction* lhs = operands[0];
  HloInstruction* rhs = operands[1];
  ASSIGN_OR_RETURN(OperandDims ld, SplitDims(*dot, lhs->shape(), dot->GetIntList(AttrId::kLhsBatchDims),
                                             dot->GetIntList(AttrId::kLhsContractingDims)));
  ASSIGN_OR_RETURN(OperandDims rd, SplitDims(*dot, rhs->shape(), dot->GetIntList(AttrId::kRhsBatchDims),
                                             dot->GetIntList(AttrId::kRhsContractingDims)));
  if (ld.batch.size() != rd.batch.size() || ld.contracting.size() != rd.contracting.size()) {
    return absl::InvalidArgumentError(absl::StrCat("dot-canonicalizer: dot '", dot->name(),
                                                   "' has unpaired batch or contracting dims"));
  }
  const int64_t m = SizeOf(lhs->shape(), ld.free), n = SizeOf(rhs->shape(), rd.free);
  int64_t lc = 0, rc = 0;
  HloInstruction* new_lhs =
      CanonicalizeOperand(comp, names, lhs, ld, /*natural_free_first=*/true, fp8_tn, &lc);
  HloInstruction* new_rhs =
      CanonicalizeOperand(comp, names, rhs, rd, /*natural_free_first=*/false, fp8_tn, &rc);
  const bool has_batch = !ld.batch.empty();
  std::vector<int64_t> out_dims;
  if (has_batch) out_dims.push_back(SizeOf(lhs->shape(), ld.batch));
  out_dims.push_back(m);
  out_dims.push_back(n);
  std::unique_ptr<HloInstruction> clone = dot->CloneWithNewOperands(
      Shape::Array(dot->shape().element_type(), out_dims), {new_lhs, new_rhs},
      names->Unique(dot->name()));
  if (has_batch) {
    clone->SetAttr(AttrId::kLhsBatchDims, std::vector<int64_t>{0});
    clone->SetAttr(AttrId::kRhsBatchDims, std::vector<int64_t>{0});
  } else {
    clone->ClearAttr(AttrId::kLhsBatchDims);
    clone->ClearAttr(AttrId::kRhsBatchDims);
  }
  clone->SetAttr(AttrId::kLhsContractingDims, std::vector<int64_t>{lc});
  clone->SetAttr(AttrId::kRhsContractingDims, std::vector<int64_t>{rc});
  HloInstruction* new_dot = comp->AddInstruction(std::move(clone));
  if (new_dot->shape().dimensions() == dot->shape().dimensions()) {
    // Keep the original result layout.
    *new_dot->mutable_shape() = dot->shape();
    return new_dot;
  }
  return comp->AddInstruction(HloInstruction::Create(HloOpcode::kReshape, dot->shape(), {new_dot},
                                                     names->Unique("reshape")));
}

}  // namespace

absl::StatusOr<bool> DotCanonicalizer::Run(HloModule* module) {
  const bool keep = keep_cublaslt_fp8_;
  return canonicalize::RewriteEach(
      module, HloOpcode::kDot,
      [keep](HloInstruction* dot, HloComputation* comp, NameUniquer* names) {
        return RewriteDot(dot, comp, names, keep);
      });
}

}  // namespace xla
