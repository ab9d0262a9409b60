#include "xla/service/canonicalize/gemm_config.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/proto/gemm_custom_call.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

absl::Status NotCanonical(const HloInstruction& dot, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("GetGemmConfig: dot '", dot.name(), "' is not canonical: ", why,
                   " (run dot-canonicalizer and layout-assignment first)"));
}

std::string ListText(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

// Checks one operand or the result: an array of rank `rank`, static, row-major.
absl::Status CheckArray(const HloInstruction& dot, const Shape& s, int64_t rank,
                        const char* what, bool require_row_major) {
  if (!s.IsArray() || s.rank() != rank) {
    return NotCanonical(dot, absl::StrCat(what, " ", s.ToString(), " must have rank ", rank));
  }
  if (!s.is_static()) return NotCanonical(dot, absl::StrCat(what, " has dynamic dimensions"));
  if (require_row_major && !canonicalize::IsRowMajorOrUnset(s)) {
    return NotCanonical(dot, absl::StrCat(what, " ", s.ToString(), " is not row-major"));
  }
  return absl::OkStatus();
}

// The dimension numbers of a GEMM instruction.
struct GemmDims {
  std::vector<int64_t> lb, rb, lc, rc;
};

// `instr`'s dimension numbers: a two-operand dot's, or an FP8 GEMM call's
// that computes a plain scaled product (IsScaledFp8GemmCall).
absl::StatusOr<GemmDims> GetGemmDims(const HloInstruction& instr) {
  if (instr.opcode() == HloOpcode::kDot && instr.operand_count() == 2) {
    return GemmDims{instr.GetIntList(AttrId::kLhsBatchDims), instr.GetIntList(AttrId::kRhsBatchDims),
                    instr.GetIntList(AttrId::kLhsContractingDims),
                    instr.GetIntList(AttrId::kRhsContractingDims)};
  }
  if (!IsScaledFp8GemmCall(instr)) {
    return NotCanonical(instr, absl::StrCat("not a two-operand dot or a plain ", gemm::kFp8GemmTarget,
                                            " call (alpha 1, beta 0, no epilogue)"));
  }
  absl::StatusOr<gemm::GemmCall> call = gemm::ReadGemmCustomCall(instr);
  if (!call.ok()) return call.status();
  return GemmDims{call->lhs_batch, call->rhs_batch, call->lhs_contracting, call->rhs_contracting};
}

}  // namespace

bool IsScaledFp8GemmCall(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kCustomCall || instr.operand_count() != 4 ||
      instr.GetString(AttrId::kCustomCallTarget) != gemm::kFp8GemmTarget) {
    return false;
  }
  absl::StatusOr<gemm::GemmCall> call = gemm::ReadGemmCustomCall(instr);
  return call.ok() && call->alpha == 1 && call->c_operand < 0 && call->bias_operand < 0 &&
         call->activation == gemm::GemmActivation::kNone && call->a_scale_operand == 2 &&
         call->b_scale_operand == 3;
}

absl::StatusOr<GemmConfig> GetGemmConfig(const HloInstruction& dot, bool require_row_major) {
  ASSIGN_OR_RETURN(GemmDims dims, GetGemmDims(dot));
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const int64_t rank = lhs.rank();
  if (rank != 2 && rank != 3) return NotCanonical(dot, "operands must have rank 2 or 3");
  const int64_t b = rank - 2;  // number of batch dims: 0 or 1
  if (absl::Status s = CheckArray(dot, lhs, rank, "lhs", require_row_major); !s.ok()) return s;
  if (absl::Status s = CheckArray(dot, rhs, rank, "rhs", require_row_major); !s.ok()) return s;
  if (absl::Status s = CheckArray(dot, dot.shape(), rank, "result", require_row_major); !s.ok()) return s;
  const std::vector<int64_t> want_batch = b == 1 ? std::vector<int64_t>{0} : std::vector<int64_t>{};
  const std::vector<int64_t>& lb = dims.lb;
  const std::vector<int64_t>& rb = dims.rb;
  if (lb != want_batch || rb != want_batch) {
    return NotCanonical(dot, absl::StrCat("batch dims must be ", ListText(want_batch), ", got lhs ",
                                          ListText(lb), " rhs ", ListText(rb)));
  }
  const std::vector<int64_t>& lc = dims.lc;
  const std::vector<int64_t>& rc = dims.rc;
  if (lc.size() != 1 || rc.size() != 1 || lc[0] < b || lc[0] >= rank || rc[0] < b ||
      rc[0] >= rank) {
    return NotCanonical(dot, absl::StrCat("needs one non-batch contracting dim per side, got lhs ",
                                          ListText(lc), " rhs ", ListText(rc)));
  }
  GemmConfig c;
  c.transpose_lhs = lc[0] == b;
  c.transpose_rhs = rc[0] == rank - 1;
  c.batch = b == 1 ? lhs.dimensions(0) : 1;
  c.k = lhs.dimensions(lc[0]);
  c.m = lhs.dimensions(c.transpose_lhs ? rank - 1 : b);
  c.n = rhs.dimensions(c.transpose_rhs ? b : rank - 1);
  const std::vector<int64_t> want = b == 1 ? std::vector<int64_t>{c.batch, c.m, c.n}
                                           : std::vector<int64_t>{c.m, c.n};
  if (rhs.dimensions(rc[0]) != c.k || (b == 1 && rhs.dimensions(0) != c.batch) ||
      dot.shape().dimensions() != want) {
    return NotCanonical(dot, absl::StrCat("operand and result sizes disagree: ", lhs.ToString(),
                                          " x ", rhs.ToString(), " -> ", dot.shape().ToString()));
  }
  c.lhs_type = lhs.element_type();
  c.rhs_type = rhs.element_type();
  c.output_type = dot.shape().element_type();
  c.lhs_batch_stride = c.m * c.k;
  c.rhs_batch_stride = c.k * c.n;
  c.output_batch_stride = c.m * c.n;
  return c;
}

namespace {

bool IsFp8Operand(PrimitiveType t) {
  return t == PrimitiveType::F8E4M3FN || t == PrimitiveType::F8E5M2;
}

bool IsFp8TypeTriple(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType out) {
  return IsFp8Operand(lhs) && IsFp8Operand(rhs) &&
         !(lhs == PrimitiveType::F8E5M2 && rhs == PrimitiveType::F8E5M2) &&
         (out == PrimitiveType::F16 || out == PrimitiveType::BF16 || out == PrimitiveType::F32);
}

// The product of the dims of `s` that are not in `a` or `b`.
int64_t FreeSize(const Shape& s, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  int64_t size = 1;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      size *= s.dimensions(d);
    }
  }
  return size;
}

}  // namespace

bool IsCublasLtFp8Gemm(const GemmConfig& c) {
  return IsFp8TypeTriple(c.lhs_type, c.rhs_type, c.output_type) && !c.transpose_lhs &&
         c.transpose_rhs && c.m % 16 == 0 && c.n % 16 == 0 && c.k % 16 == 0;
}

bool IsCublasLtFp8Dot(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2) return false;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  if (!lhs.IsArray() || !rhs.IsArray() || !dot.shape().IsArray() || !lhs.is_static() ||
      !rhs.is_static() || !dot.shape().is_static()) {
    return false;
  }
  if (!IsFp8TypeTriple(lhs.element_type(), rhs.element_type(), dot.shape().element_type())) {
    return false;
  }
  const std::vector<int64_t>& lb = dot.GetIntList(AttrId::kLhsBatchDims);
  const std::vector<int64_t>& rb = dot.GetIntList(AttrId::kRhsBatchDims);
  const std::vector<int64_t>& lc = dot.GetIntList(AttrId::kLhsContractingDims);
  const std::vector<int64_t>& rc = dot.GetIntList(AttrId::kRhsContractingDims);
  int64_t k = 1;
  for (int64_t d : lc) {
    if (d < 0 || d >= lhs.rank()) return false;
    k *= lhs.dimensions(d);
  }
  const int64_t m = FreeSize(lhs, lb, lc), n = FreeSize(rhs, rb, rc);
  return m % 16 == 0 && n % 16 == 0 && k % 16 == 0;
}

bool IsGemmElementType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32 ||
         t == PrimitiveType::F64;
}

}  // namespace xla
