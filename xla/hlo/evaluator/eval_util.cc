#include "xla/hlo/evaluator/eval_util.h"

#include <cstring>
#include <limits>

#include "xla/util/logging.h"

namespace xla::evaluator {

std::string Describe(const HloInstruction& instr) {
  return absl::StrCat(HloOpcodeName(instr.opcode()), " '", instr.name(), "'");
}

Shape ArrayShape(PrimitiveType type, absl::Span<const int64_t> dims) {
  Shape s = Shape::Array(type, dims);
  s.SetDefaultLayout();
  return s;
}

void CopyElement(const Literal& from, int64_t from_index, Literal& to, int64_t to_index) {
  const int width = ByteWidth(from.shape().element_type());
  XLA_CHECK(width == ByteWidth(to.shape().element_type())) << "CopyElement across widths";
  std::memcpy(to.mutable_data().data() + to_index * width, from.data().data() + from_index * width,
              static_cast<size_t>(width));
}

Literal ScalarOf(const Literal& array, int64_t index) {
  Literal out(Shape::Scalar(array.shape().element_type()));
  CopyElement(array, index, out, 0);
  return out;
}

Literal MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal t(Shape::Tuple(std::move(shapes)));
  *t.mutable_tuple_elements() = std::move(elements);
  return t;
}

absl::Status ExpectArrayOperand(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, int64_t i) {
  if (i >= static_cast<int64_t>(operands.size())) {
    return InstrError(instr, "missing operand ", i);
  }
  const Shape& s = operands[i]->shape();
  if (!s.IsArray()) {
    return InstrError(instr, "operand ", i, " must be an array, got ", s.ToString(false));
  }
  return absl::OkStatus();
}

absl::Status ExpectOperandCount(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, int64_t n) {
  if (static_cast<int64_t>(operands.size()) >= n) return absl::OkStatus();
  return InstrError(instr, "needs at least ", n, " operands, got ", operands.size());
}

int64_t IndexValue(const Literal& literal, int64_t index) {
  const PrimitiveType t = literal.shape().element_type();
  if (IsUnsignedInt(t)) {
    const uint64_t v = literal.GetBits(index);
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(v > kMax ? kMax : v);
  }
  return literal.GetInt(index);
}

}  // namespace xla::evaluator
