// Evaluator ops of the elementwise family (see op_table.h): the unary and
// binary ops of elementwise_kernels.cc, compare, select, clamp, complex,
// real, imag, is-finite, copy, and the conversions of convert_ops.cc.
//
// Binary ops need operands of one element type and equal dimensions (HLO has
// no implicit broadcasting); select and clamp accept scalar predicates and
// bounds. Float semantics are those of numeric_util.h.
#include <cmath>
#include <utility>

#include "absl/strings/string_view.h"
#include "xla/hlo/evaluator/elementwise_internal.h"
#include "xla/hlo/evaluator/eval_util.h"
#include "xla/hlo/evaluator/numeric_util.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using Operands = absl::Span<const Literal* const>;

absl::Status UnsupportedType(const HloInstruction& instr, PrimitiveType type) {
  return InstrError(instr, HloOpcodeName(instr.opcode()), " does not support element type ",
                    PrimitiveTypeName(type));
}

// Checks that operands `i` and `j` are arrays of one element type and equal
// dimensions.
absl::Status ExpectSameArrays(const HloInstruction& instr, Operands operands, int64_t i,
                              int64_t j) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, i));
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, j));
  const Shape& a = operands[i]->shape();
  const Shape& b = operands[j]->shape();
  if (a.element_type() != b.element_type() || a.dimensions() != b.dimensions()) {
    return InstrError(instr, "operands ", i, " and ", j, " have shapes ", a.ToString(false),
                      " and ", b.ToString(false), "; they must match");
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvalUnary(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const UnaryKernel* kernel = FindUnaryKernel(instr.opcode());
  const Literal& a = *operands[0];
  const PrimitiveType type = a.shape().element_type();
  if (kernel == nullptr || !KernelSupports(*kernel, type)) return UnsupportedType(instr, type);
  const bool to_real = instr.opcode() == HloOpcode::kAbs && IsComplex(type);
  Literal out(ArrayShape(to_real ? ComplexComponentType(type) : type, a.shape().dimensions()));
  for (int64_t i = 0; i < a.element_count(); ++i) ApplyUnary(*kernel, type, a, i, out, i);
  return out;
}

absl::StatusOr<Literal> EvalBinary(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectSameArrays(instr, operands, 0, 1));
  const BinaryKernel* kernel = FindBinaryKernel(instr.opcode());
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  const PrimitiveType type = a.shape().element_type();
  if (kernel == nullptr || !KernelSupports(*kernel, type)) return UnsupportedType(instr, type);
  Literal out(ArrayShape(type, a.shape().dimensions()));
  for (int64_t i = 0; i < a.element_count(); ++i) ApplyBinary(*kernel, type, a, i, b, i, out, i);
  return out;
}

// ---- compare ----

using Direction = CompareSpec::Direction;

struct DirectionName {
  absl::string_view name;
  Direction direction;
};

constexpr DirectionName kDirections[] = {
    {"EQ", Direction::kEq}, {"NE", Direction::kNe}, {"LT", Direction::kLt},
    {"LE", Direction::kLe}, {"GT", Direction::kGt}, {"GE", Direction::kGe},
};

// Applies `d` to two values of an ordered type.
template <typename T>
bool Holds(Direction d, T a, T b) {
  switch (d) {
    case Direction::kEq: return a == b;
    case Direction::kNe: return a != b;
    case Direction::kLt: return a < b;
    case Direction::kLe: return a <= b;
    case Direction::kGt: return a > b;
    case Direction::kGe: return a >= b;
  }
  return false;
}

absl::StatusOr<Literal> EvalCompare(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectSameArrays(instr, operands, 0, 1));
  ASSIGN_OR_RETURN(CompareSpec spec, GetCompareSpec(instr));
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  const PrimitiveType type = a.shape().element_type();
  if (IsComplex(type) && spec.direction != Direction::kEq &&
      spec.direction != Direction::kNe) {
    return InstrError(instr, "complex values support only EQ and NE, got ",
                      instr.GetString(AttrId::kDirection));
  }
  Literal out(ArrayShape(PrimitiveType::PRED, a.shape().dimensions()));
  for (int64_t i = 0; i < a.element_count(); ++i) {
    out.SetBits(i, CompareElements(spec, a, i, b, i) ? 1 : 0);
  }
  return out;
}

// ---- select, clamp ----

absl::StatusOr<Literal> EvalSelect(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& pred = *operands[0];
  const Literal& on_true = *operands[1];
  const Literal& on_false = *operands[2];
  if (pred.shape().element_type() != PrimitiveType::PRED) {
    return InstrError(instr, "predicate must be pred, got ", pred.shape().ToString(false));
  }
  if (!ShapesCompatible(on_true.shape(), on_false.shape(), /*ignore_dynamic=*/true)) {
    return InstrError(instr, "branches have different shapes ", on_true.shape().ToString(false),
                      " and ", on_false.shape().ToString(false));
  }
  if (pred.shape().IsScalar()) return pred.GetBits(0) != 0 ? on_true : on_false;
  if (!on_true.shape().IsArray() || pred.shape().dimensions() != on_true.shape().dimensions()) {
    return InstrError(instr, "predicate ", pred.shape().ToString(false),
                      " must be a scalar or match ", on_true.shape().ToString(false));
  }
  Literal out(ArrayShape(on_true.shape().element_type(), on_true.shape().dimensions()));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    CopyElement(pred.GetBits(i) != 0 ? on_true : on_false, i, out, i);
  }
  return out;
}

// Three-way comparison of two non-NaN elements of one type (-1, 0, 1):
// floats by value, integers by their signedness.
int CompareForClamp(const Literal& a, int64_t ia, const Literal& b, int64_t ib) {
  const PrimitiveType t = a.shape().element_type();
  if (IsFloat(t)) {
    const double x = a.GetDouble(ia), y = b.GetDouble(ib);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (IsSignedInt(t)) {
    const int64_t x = a.GetInt(ia), y = b.GetInt(ib);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const uint64_t x = a.GetBits(ia), y = b.GetBits(ib);
  return x < y ? -1 : (x > y ? 1 : 0);
}

// clamp(lo, x, hi) = min(hi, max(x, lo)) with XLA's NaN rule: the first NaN
// among lo, x, hi is the result. Signed zeros follow maximum/minimum.
absl::StatusOr<Literal> EvalClamp(const HloInstruction& instr, Operands operands, EvalContext&) {
  for (int64_t i = 0; i < 3; ++i) RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, i));
  const Literal& lo = *operands[0];
  const Literal& x = *operands[1];
  const Literal& hi = *operands[2];
  const PrimitiveType type = x.shape().element_type();
  if (IsComplex(type)) return UnsupportedType(instr, type);
  for (const Literal* bound : {&lo, &hi}) {
    if (bound->shape().element_type() != type ||
        (!bound->shape().IsScalar() && bound->shape().dimensions() != x.shape().dimensions())) {
      return InstrError(instr, "bound ", bound->shape().ToString(false),
                        " must be a scalar or match ", x.shape().ToString(false));
    }
  }
  const bool lo_scalar = lo.shape().IsScalar() && !x.shape().IsScalar();
  const bool hi_scalar = hi.shape().IsScalar() && !x.shape().IsScalar();
  Literal out(ArrayShape(type, x.shape().dimensions()));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const int64_t il = lo_scalar ? 0 : i, ih = hi_scalar ? 0 : i;
    if (IsFloat(type)) {
      const double l = lo.GetDouble(il), v = x.GetDouble(i), h = hi.GetDouble(ih);
      if (std::isnan(l)) { CopyElement(lo, il, out, i); continue; }
      if (std::isnan(v)) { CopyElement(x, i, out, i); continue; }
      if (std::isnan(h)) { CopyElement(hi, ih, out, i); continue; }
      const bool v_wins = MaxPicksLhs(v, l);
      const double m = v_wins ? v : l;
      if (MinPicksLhs(h, m)) {
        CopyElement(hi, ih, out, i);
      } else {
        CopyElement(v_wins ? x : lo, v_wins ? i : il, out, i);
      }
      continue;
    }
    const bool v_wins = CompareForClamp(x, i, lo, il) >= 0;
    const Literal& m = v_wins ? x : lo;
    const int64_t im = v_wins ? i : il;
    if (CompareForClamp(hi, ih, m, im) <= 0) {
      CopyElement(hi, ih, out, i);
    } else {
      CopyElement(m, im, out, i);
    }
  }
  return out;
}

// ---- complex, real, imag, is-finite, copy ----

absl::StatusOr<Literal> EvalComplex(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectSameArrays(instr, operands, 0, 1));
  const PrimitiveType type = operands[0]->shape().element_type();
  if (type != PrimitiveType::F32 && type != PrimitiveType::F64) {
    return UnsupportedType(instr, type);
  }
  const PrimitiveType out_type = type == PrimitiveType::F32 ? PrimitiveType::C64
                                                            : PrimitiveType::C128;
  Literal out(ArrayShape(out_type, operands[0]->shape().dimensions()));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    out.SetComplex(i, {operands[0]->GetDouble(i), operands[1]->GetDouble(i)});
  }
  return out;
}

// real/imag: complex -> component type; floats pass through (imag gives 0).
absl::StatusOr<Literal> EvalRealImag(const HloInstruction& instr, Operands operands,
                                     EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& a = *operands[0];
  const PrimitiveType type = a.shape().element_type();
  const bool imag = instr.opcode() == HloOpcode::kImag;
  if (IsFloat(type)) return imag ? Literal(a.shape()) : a;
  if (!IsComplex(type)) return UnsupportedType(instr, type);
  const PrimitiveType part = ComplexComponentType(type);
  Literal out(ArrayShape(part, a.shape().dimensions()));
  for (int64_t i = 0; i < a.element_count(); ++i) {
    const std::complex<double> z = a.GetComplex(i);
    out.SetBits(i, RoundToFloatType(part, imag ? z.imag() : z.real()));
  }
  return out;
}

absl::StatusOr<Literal> EvalIsFinite(const HloInstruction& instr, Operands operands,
                                     EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& a = *operands[0];
  if (!IsFloat(a.shape().element_type())) return UnsupportedType(instr, a.shape().element_type());
  Literal out(ArrayShape(PrimitiveType::PRED, a.shape().dimensions()));
  for (int64_t i = 0; i < a.element_count(); ++i) {
    out.SetBits(i, std::isfinite(a.GetDouble(i)) ? 1 : 0);
  }
  return out;
}

// copy: the operand itself (arrays and tuples), bit for bit.
absl::StatusOr<Literal> EvalCopy(const HloInstruction&, Operands operands, EvalContext&) {
  return *operands[0];
}

struct OpEntry {
  HloOpcode opcode;
  OpEvaluator evaluate;
};

constexpr OpEntry kOps[] = {
    {HloOpcode::kCompare, EvalCompare},
    {HloOpcode::kSelect, EvalSelect},
    {HloOpcode::kClamp, EvalClamp},
    {HloOpcode::kComplex, EvalComplex},
    {HloOpcode::kReal, EvalRealImag},
    {HloOpcode::kImag, EvalRealImag},
    {HloOpcode::kIsFinite, EvalIsFinite},
    {HloOpcode::kCopy, EvalCopy},
    {HloOpcode::kConvert, EvalConvert},
    {HloOpcode::kBitcastConvert, EvalBitcastConvert},
    {HloOpcode::kStochasticConvert, EvalStochasticConvert},
    {HloOpcode::kReducePrecision, EvalReducePrecision},
};

}  // namespace

absl::StatusOr<CompareSpec> GetCompareSpec(const HloInstruction& instr) {
  const absl::string_view name = instr.GetString(AttrId::kDirection);
  CompareSpec spec;
  bool found = false;
  for (const DirectionName& d : kDirections) {
    if (d.name == name) {
      spec.direction = d.direction;
      found = true;
    }
  }
  if (!found) {
    return InstrError(instr, "direction must be EQ, NE, LT, LE, GT or GE, got '", name, "'");
  }
  spec.total_order = instr.GetString(AttrId::kCompareType) == "TOTALORDER";
  return spec;
}

bool CompareElements(const CompareSpec& spec, const Literal& a, int64_t ia, const Literal& b,
                     int64_t ib) {
  const PrimitiveType type = a.shape().element_type();
  const Direction dir = spec.direction;
  if (type == PrimitiveType::F32 && !spec.total_order) {
    return Holds(dir, LoadNative<float>(a, ia), LoadNative<float>(b, ib));
  }
  if (type == PrimitiveType::S32) {
    return Holds(dir, LoadNative<int32_t>(a, ia), LoadNative<int32_t>(b, ib));
  }
  if (IsFloat(type) && spec.total_order) {
    return Holds(dir, TotalOrderKey(type, a.GetBits(ia)), TotalOrderKey(type, b.GetBits(ib)));
  }
  if (IsFloat(type)) return Holds(dir, a.GetDouble(ia), b.GetDouble(ib));
  if (IsComplex(type)) return (a.GetComplex(ia) == b.GetComplex(ib)) == (dir == Direction::kEq);
  if (IsSignedInt(type)) return Holds(dir, a.GetInt(ia), b.GetInt(ib));
  return Holds(dir, a.GetBits(ia), b.GetBits(ib));
}

void RegisterElementwiseOps(OpTable& table) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    if (FindUnaryKernel(op) != nullptr) table[i] = EvalUnary;
    if (FindBinaryKernel(op) != nullptr) table[i] = EvalBinary;
  }
  for (const OpEntry& e : kOps) table[static_cast<int>(e.opcode)] = e.evaluate;
}

}  // namespace xla::evaluator
