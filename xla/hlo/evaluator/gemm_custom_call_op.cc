// XLA:GPU's GEMM custom calls (`__cublas$gemm`, `__cublas$lt$matmul`,
// `__cublas$lt$matmul$f8`) for the evaluator: a direct loop from their
// definition in xla/hlo/proto/gemm_custom_call.h,
//   result = act(alpha * a_scale * b_scale * dot(a, b) + beta * c + bias),
// every element computed in f64 from the exactly decoded operands and
// rounded once to the result type. Real floating-point results only (cuBLAS
// GEMMs of other types are refused as unimplemented). A tuple-shaped call
// yields the result and zero-filled workspace elements.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/hlo/proto/gemm_custom_call.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {
namespace {

using op_helpers::Contains;

double Activate(gemm::GemmActivation act, double x) {
  constexpr double kSqrt2OverPi = 0.79788456080286535588;
  switch (act) {
    case gemm::GemmActivation::kNone: return x;
    case gemm::GemmActivation::kRelu: return x > 0 ? x : 0;
    case gemm::GemmActivation::kGelu:
      return 0.5 * x * (1 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  }
  return x;
}

}  // namespace

absl::StatusOr<Literal> EvalGemmCustomCall(const HloInstruction& instr,
                                           absl::Span<const Literal* const> operands) {
  ASSIGN_OR_RETURN(gemm::GemmCall call, gemm::ReadGemmCustomCall(instr));
  const Shape& shape = instr.shape();
  const Shape& result = shape.IsTuple() && shape.tuple_shapes_size() > 0 ? shape.tuple_shapes(0)
                                                                         : shape;
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  if (!result.IsArray() || !IsFloat(result.element_type()) || !IsFloat(a.shape().element_type()) ||
      !IsFloat(b.shape().element_type())) {
    return op_helpers::OpUnimplemented(instr, "GEMM custom calls are evaluated for real "
                                              "floating-point operands and results only");
  }
  const std::vector<int64_t>& ad = a.shape().dimensions();
  const std::vector<int64_t>& bd = b.shape().dimensions();
  std::vector<int64_t> dims, a_free, b_free, csizes;
  for (int64_t d : call.lhs_batch) dims.push_back(ad[d]);
  for (int64_t d = 0; d < a.shape().rank(); ++d) {
    if (!Contains(call.lhs_batch, d) && !Contains(call.lhs_contracting, d)) {
      a_free.push_back(d);
      dims.push_back(ad[d]);
    }
  }
  for (int64_t d = 0; d < b.shape().rank(); ++d) {
    if (!Contains(call.rhs_batch, d) && !Contains(call.rhs_contracting, d)) {
      b_free.push_back(d);
      dims.push_back(bd[d]);
    }
  }
  if (result.dimensions() != dims) {
    return op_helpers::OpError(instr, "result ", shape.ToString(false), " is not the GEMM's [",
                               absl::StrJoin(dims, ","), "] (or a tuple starting with it)");
  }
  const Literal* c = call.c_operand >= 0 ? operands[call.c_operand] : nullptr;
  const Literal* bias = call.bias_operand >= 0 ? operands[call.bias_operand] : nullptr;
  if (c != nullptr && (!c->shape().IsArray() || c->shape().dimensions() != dims)) {
    return op_helpers::OpError(instr, "c must have the result's dimensions");
  }
  if (bias != nullptr && (!bias->shape().IsArray() || bias->shape().rank() != 1 || dims.empty() ||
                          bias->shape().dimensions(0) != dims.back())) {
    return op_helpers::OpError(instr, "bias must be a vector over the result's minor dimension");
  }
  for (int64_t d : call.lhs_contracting) csizes.push_back(ad[d]);
  double alpha = call.alpha;
  for (int64_t i : {call.a_scale_operand, call.b_scale_operand}) {
    if (i >= 0) alpha *= operands[i]->GetDouble(0);
  }
  const DecodedArray da = Decode(a, AccumKind::kFloat);
  const DecodedArray db = Decode(b, AccumKind::kFloat);
  Literal out(result);
  std::vector<int64_t> index(dims.size(), 0), ai(ad.size(), 0), bi(bd.size(), 0);
  int64_t linear = 0;
  if (out.element_count() > 0) {
    do {
      size_t pos = 0;
      for (size_t k = 0; k < call.lhs_batch.size(); ++k, ++pos) {
        ai[call.lhs_batch[k]] = bi[call.rhs_batch[k]] = index[pos];
      }
      for (int64_t d : a_free) ai[d] = index[pos++];
      for (int64_t d : b_free) bi[d] = index[pos++];
      double sum = 0;
      if (ElementCount(csizes) > 0) {
        std::vector<int64_t> k(csizes.size(), 0);
        do {
          for (size_t j = 0; j < k.size(); ++j) {
            ai[call.lhs_contracting[j]] = bi[call.rhs_contracting[j]] = k[j];
          }
          sum += da.reals[LinearIndex(ai, ad)] * db.reals[LinearIndex(bi, bd)];
        } while (NextIndex(k, csizes));
      }
      double v = alpha * sum;
      if (c != nullptr) v += call.beta * c->GetDouble(linear);
      if (bias != nullptr) v += bias->GetDouble(index.back());
      out.SetDouble(linear++, Activate(call.activation, v));
    } while (NextIndex(index, dims));
  }
  if (!shape.IsTuple()) return out;
  Literal tuple(shape);  // zero-filled workspace elements
  (*tuple.mutable_tuple_elements())[0] = std::move(out);
  return tuple;
}

}  // namespace xla::evaluator::linalg
