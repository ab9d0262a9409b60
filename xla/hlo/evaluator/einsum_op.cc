// XLA's `xla_builder.matrix.Einsum` custom call for the evaluator: a direct
// loop over every assignment of the equation's labels (xla/hlo/ir/
// einsum_spec.h), adding the product of the operands' elements into the
// output element the output labels name; output elements off a repeated
// output label's diagonal stay zero. Floats accumulate in f64, complex
// numbers in complex<double>, rounded once to the result type; other types
// are refused as unimplemented.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/hlo/ir/einsum_spec.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {

absl::StatusOr<Literal> EvalEinsumCustomCall(const HloInstruction& instr,
                                             absl::Span<const Literal* const> operands) {
  ASSIGN_OR_RETURN(EinsumSpec spec, ReadEinsumSpec(instr));
  const PrimitiveType out_type = instr.shape().element_type();
  const bool complex = IsComplex(out_type);
  if (!IsFloat(out_type) && !complex) {
    return op_helpers::OpUnimplemented(instr, "einsum is evaluated for float and complex results");
  }
  for (const Literal* op : operands) {
    const PrimitiveType t = op->shape().element_type();
    if (!IsFloat(t) && !IsComplex(t)) {
      return op_helpers::OpUnimplemented(instr, "einsum operands must be float or complex");
    }
  }
  const AccumKind kind = complex ? AccumKind::kComplex : AccumKind::kFloat;
  std::vector<DecodedArray> decoded;
  for (const Literal* op : operands) decoded.push_back(Decode(*op, kind));
  // Every label, with its position in the assignment vector.
  std::vector<char> labels;
  std::vector<int64_t> sizes;
  for (const auto& [label, size] : spec.sizes) {
    labels.push_back(label);
    sizes.push_back(size);
  }
  auto slot = [&labels](char c) {
    return static_cast<size_t>(std::find(labels.begin(), labels.end(), c) - labels.begin());
  };
  auto positions = [&slot](const std::string& s) {
    std::vector<size_t> p;
    for (char c : s) p.push_back(slot(c));
    return p;
  };
  std::vector<std::vector<size_t>> operand_slots;
  for (const std::string& s : spec.operands) operand_slots.push_back(positions(s));
  const std::vector<size_t> out_slots = positions(spec.output);
  const std::vector<int64_t>& out_dims = instr.shape().dimensions();
  std::vector<std::complex<double>> sums(ElementCount(out_dims), 0);
  if (ElementCount(sizes) > 0) {
    std::vector<int64_t> assignment(sizes.size(), 0);
    std::vector<int64_t> index;
    do {
      std::complex<double> product = 1;
      for (size_t i = 0; i < operands.size(); ++i) {
        index.clear();
        for (size_t s : operand_slots[i]) index.push_back(assignment[s]);
        const int64_t at = LinearIndex(index, operands[i]->shape().dimensions());
        product *= complex ? decoded[i].complexes[at] : decoded[i].reals[at];
      }
      index.clear();
      for (size_t s : out_slots) index.push_back(assignment[s]);
      sums[LinearIndex(index, out_dims)] += product;
    } while (NextIndex(assignment, sizes));
  }
  Literal out(instr.shape());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (complex) {
      out.SetComplex(i, sums[i]);
    } else {
      out.SetDouble(i, sums[i].real());
    }
  }
  return out;
}

}  // namespace xla::evaluator::linalg
