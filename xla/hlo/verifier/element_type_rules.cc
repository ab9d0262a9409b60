#include "xla/hlo/verifier/element_type_rules.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla {
namespace {

enum class TypeRule : uint8_t {
  kPredOrInteger,
  kInteger,
  kFloat,
  kFloatOrComplex,
  kSignedOrFloatOrComplex,  // signed integers, floats, complex
  kNumeric,                 // anything but pred
};

bool Allows(TypeRule rule, PrimitiveType t) {
  switch (rule) {
    case TypeRule::kPredOrInteger: return IsPred(t) || IsInteger(t);
    case TypeRule::kInteger: return IsInteger(t);
    case TypeRule::kFloat: return IsFloat(t);
    case TypeRule::kFloatOrComplex: return IsFloat(t) || IsComplex(t);
    case TypeRule::kSignedOrFloatOrComplex:
      return IsSignedInt(t) || IsFloat(t) || IsComplex(t);
    case TypeRule::kNumeric: return IsInteger(t) || IsFloat(t) || IsComplex(t);
  }
  return false;
}

const char* Describe(TypeRule rule) {
  switch (rule) {
    case TypeRule::kPredOrInteger: return "pred or integer";
    case TypeRule::kInteger: return "integer";
    case TypeRule::kFloat: return "floating-point";
    case TypeRule::kFloatOrComplex: return "floating-point or complex";
    case TypeRule::kSignedOrFloatOrComplex: return "signed integer, floating-point or complex";
    case TypeRule::kNumeric: return "numeric (not pred)";
  }
  return "?";
}

struct OpRule {
  HloOpcode opcode;
  TypeRule rule;
  int operands;  // how many leading operands the rule covers; -1 = all
};

constexpr OpRule kRules[] = {
    {HloOpcode::kAnd, TypeRule::kPredOrInteger, -1},
    {HloOpcode::kOr, TypeRule::kPredOrInteger, -1},
    {HloOpcode::kXor, TypeRule::kPredOrInteger, -1},
    {HloOpcode::kNot, TypeRule::kPredOrInteger, -1},
    {HloOpcode::kShiftLeft, TypeRule::kInteger, -1},
    {HloOpcode::kShiftRightArithmetic, TypeRule::kInteger, -1},
    {HloOpcode::kShiftRightLogical, TypeRule::kInteger, -1},
    {HloOpcode::kPopulationCount, TypeRule::kInteger, -1},
    {HloOpcode::kClz, TypeRule::kInteger, -1},
    {HloOpcode::kCeil, TypeRule::kFloat, -1},
    {HloOpcode::kFloor, TypeRule::kFloat, -1},
    {HloOpcode::kRoundNearestAfz, TypeRule::kFloat, -1},
    {HloOpcode::kRoundNearestEven, TypeRule::kFloat, -1},
    {HloOpcode::kErf, TypeRule::kFloat, -1},
    {HloOpcode::kReducePrecision, TypeRule::kFloat, -1},
    {HloOpcode::kIsFinite, TypeRule::kFloat, -1},
    {HloOpcode::kExp, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kExpm1, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kLog, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kLog1p, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kLogistic, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kSqrt, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kRsqrt, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kCbrt, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kSin, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kCos, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kTan, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kTanh, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kSinh, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kCosh, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAcos, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAsin, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAtan, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAcosh, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAsinh, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAtanh, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kAtan2, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kCholesky, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kTriangularSolve, TypeRule::kFloatOrComplex, -1},
    {HloOpcode::kBatchNormGrad, TypeRule::kFloat, -1},
    {HloOpcode::kBatchNormInference, TypeRule::kFloat, -1},
    {HloOpcode::kBatchNormTraining, TypeRule::kFloat, -1},
    {HloOpcode::kStochasticConvert, TypeRule::kFloat, 1},
    {HloOpcode::kSign, TypeRule::kSignedOrFloatOrComplex, -1},
    {HloOpcode::kNegate, TypeRule::kNumeric, -1},
    {HloOpcode::kAbs, TypeRule::kNumeric, -1},
};

const OpRule* FindRule(HloOpcode op) {
  for (const OpRule& r : kRules) {
    if (r.opcode == op) return &r;
  }
  return nullptr;
}

}  // namespace

absl::Status CheckElementTypes(const HloInstruction& instr) {
  const OpRule* rule = FindRule(instr.opcode());
  if (rule == nullptr) return absl::OkStatus();
  const int64_t n = rule->operands < 0 ? instr.operand_count()
                                       : std::min<int64_t>(rule->operands, instr.operand_count());
  for (int64_t i = 0; i < n; ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray() || Allows(rule->rule, s.element_type())) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "instruction '", instr.name(), "' (", HloOpcodeName(instr.opcode()), "): operand ", i,
        " has type ", PrimitiveTypeName(s.element_type()), "; ", HloOpcodeName(instr.opcode()),
        " needs ", Describe(rule->rule), " types"));
  }
  return absl::OkStatus();
}

}  // namespace xla
