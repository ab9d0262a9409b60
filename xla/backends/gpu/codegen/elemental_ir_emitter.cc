#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"
#include "xla/backends/gpu/codegen/convert_ir.h"
#include "xla/types/float_format.h"
#include "xla/types/physical_layout.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

llvm::Value* Intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args, Builder* b) {
  llvm::Function* fn = llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(), id,
                                                       {args[0]->getType()});
  return b->CreateCall(fn, args);
}

llvm::Value* C(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }
llvm::Value* I(llvm::Value* like, uint64_t v) { return llvm::ConstantInt::get(like->getType(), v); }

absl::Status Unimplemented(const HloInstruction* hlo, absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat("elemental emitter: ", hlo->name(), " (",
                                               HloOpcodeName(hlo->opcode()), "): ", what));
}
absl::Status Invalid(const HloInstruction* hlo, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("elemental emitter: ", hlo->name(), " (",
                                                 HloOpcodeName(hlo->opcode()), "): ", what));
}

// ---- unary kernels: floats get compute-type values, integers iN values ----

using FloatUnary = llvm::Value* (*)(const MathEmitter&, llvm::Value*, Builder*);
using IntUnary = llvm::Value* (*)(llvm::Value*, bool is_signed, Builder*);

llvm::Value* FAbs(const MathEmitter&, llvm::Value* x, Builder* b) { return Intrinsic(llvm::Intrinsic::fabs, {x}, b); }
llvm::Value* FNeg(const MathEmitter&, llvm::Value* x, Builder* b) { return b->CreateFNeg(x); }
llvm::Value* FSign(const MathEmitter&, llvm::Value* x, Builder* b) {
  llvm::Value* mag = b->CreateSelect(b->CreateFCmpONE(x, C(x, 0.0)), C(x, 1.0), C(x, 0.0));
  llvm::Value* s = Intrinsic(llvm::Intrinsic::copysign, {mag, x}, b);
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, s);
}
llvm::Value* FExp(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Exp(x, b); }
llvm::Value* FExpm1(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Expm1(x, b); }
llvm::Value* FLog(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Log(x, b); }
llvm::Value* FLog1p(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Log1p(x, b); }
llvm::Value* FSqrt(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Sqrt(x, b); }
llvm::Value* FRsqrt(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Rsqrt(x, b); }
llvm::Value* FCbrt(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Cbrt(x, b); }
llvm::Value* FTanh(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Tanh(x, b); }
llvm::Value* FLogistic(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Logistic(x, b); }
llvm::Value* FSin(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Sin(x, b); }
llvm::Value* FCos(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Cos(x, b); }
llvm::Value* FTan(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Tan(x, b); }
llvm::Value* FAtan(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Atan(x, b); }
llvm::Value* FAsin(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Asin(x, b); }
llvm::Value* FAcos(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Acos(x, b); }
llvm::Value* FAsinh(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Asinh(x, b); }
llvm::Value* FAcosh(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Acosh(x, b); }
llvm::Value* FAtanh(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Atanh(x, b); }
llvm::Value* FSinh(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Sinh(x, b); }
llvm::Value* FCosh(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Cosh(x, b); }
llvm::Value* FErf(const MathEmitter& m, llvm::Value* x, Builder* b) { return m.Erf(x, b); }
llvm::Value* FFloor(const MathEmitter&, llvm::Value* x, Builder* b) { return Intrinsic(llvm::Intrinsic::floor, {x}, b); }
llvm::Value* FCeil(const MathEmitter&, llvm::Value* x, Builder* b) { return Intrinsic(llvm::Intrinsic::ceil, {x}, b); }
llvm::Value* FRoundAfz(const MathEmitter&, llvm::Value* x, Builder* b) { return Intrinsic(llvm::Intrinsic::round, {x}, b); }
llvm::Value* FRoundEven(const MathEmitter&, llvm::Value* x, Builder* b) { return Intrinsic(llvm::Intrinsic::roundeven, {x}, b); }

llvm::Value* INeg(llvm::Value* x, bool, Builder* b) { return b->CreateNeg(x); }
llvm::Value* IAbs(llvm::Value* x, bool is_signed, Builder* b) {
  if (!is_signed) return x;
  return b->CreateSelect(b->CreateICmpSLT(x, I(x, 0)), b->CreateNeg(x), x);
}
llvm::Value* ISign(llvm::Value* x, bool is_signed, Builder* b) {
  if (!is_signed) return b->CreateZExt(b->CreateICmpNE(x, I(x, 0)), x->getType());
  return b->CreateSub(b->CreateZExt(b->CreateICmpSGT(x, I(x, 0)), x->getType()),
                      b->CreateZExt(b->CreateICmpSLT(x, I(x, 0)), x->getType()));
}
llvm::Value* INot(llvm::Value* x, bool, Builder* b) { return b->CreateNot(x); }
llvm::Value* IPopcnt(llvm::Value* x, bool, Builder* b) { return Intrinsic(llvm::Intrinsic::ctpop, {x}, b); }
llvm::Value* IClz(llvm::Value* x, bool, Builder* b) {
  return Intrinsic(llvm::Intrinsic::ctlz, {x, b->getFalse()}, b);
}

struct UnaryEntry {
  HloOpcode opcode;
  FloatUnary real;
  IntUnary integer;
  bool pred_ok;
};

constexpr UnaryEntry kUnary[] = {
    {HloOpcode::kAbs, FAbs, IAbs, false},
    {HloOpcode::kNegate, FNeg, INeg, false},
    {HloOpcode::kSign, FSign, ISign, false},
    {HloOpcode::kNot, nullptr, INot, true},
    {HloOpcode::kPopulationCount, nullptr, IPopcnt, false},
    {HloOpcode::kClz, nullptr, IClz, false},
    {HloOpcode::kExp, FExp, nullptr, false},
    {HloOpcode::kExpm1, FExpm1, nullptr, false},
    {HloOpcode::kLog, FLog, nullptr, false},
    {HloOpcode::kLog1p, FLog1p, nullptr, false},
    {HloOpcode::kSqrt, FSqrt, nullptr, false},
    {HloOpcode::kRsqrt, FRsqrt, nullptr, false},
    {HloOpcode::kCbrt, FCbrt, nullptr, false},
    {HloOpcode::kTanh, FTanh, nullptr, false},
    {HloOpcode::kLogistic, FLogistic, nullptr, false},
    {HloOpcode::kSin, FSin, nullptr, false},
    {HloOpcode::kCos, FCos, nullptr, false},
    {HloOpcode::kTan, FTan, nullptr, false},
    {HloOpcode::kAtan, FAtan, nullptr, false},
    {HloOpcode::kAcos, FAcos, nullptr, false},
    {HloOpcode::kAsin, FAsin, nullptr, false},
    {HloOpcode::kAcosh, FAcosh, nullptr, false},
    {HloOpcode::kAsinh, FAsinh, nullptr, false},
    {HloOpcode::kAtanh, FAtanh, nullptr, false},
    {HloOpcode::kCosh, FCosh, nullptr, false},
    {HloOpcode::kSinh, FSinh, nullptr, false},
    {HloOpcode::kErf, FErf, nullptr, false},
    {HloOpcode::kFloor, FFloor, nullptr, false},
    {HloOpcode::kCeil, FCeil, nullptr, false},
    {HloOpcode::kRoundNearestAfz, FRoundAfz, nullptr, false},
    {HloOpcode::kRoundNearestEven, FRoundEven, nullptr, false},
};

// ---- binary kernels ----

using FloatBinary = llvm::Value* (*)(const MathEmitter&, llvm::Value*, llvm::Value*, Builder*);
using IntBinary = llvm::Value* (*)(llvm::Value*, llvm::Value*, bool is_signed, Builder*);
// Float maximum/minimum: true when the result is the lhs (the caller keeps
// the chosen operand's encoding, NaN payloads included).
using PickLhs = llvm::Value* (*)(llvm::Value*, llvm::Value*, Builder*);

llvm::Value* FAdd(const MathEmitter&, llvm::Value* x, llvm::Value* y, Builder* b) { return b->CreateFAdd(x, y); }
llvm::Value* FSub(const MathEmitter&, llvm::Value* x, llvm::Value* y, Builder* b) { return b->CreateFSub(x, y); }
llvm::Value* FMul(const MathEmitter&, llvm::Value* x, llvm::Value* y, Builder* b) { return b->CreateFMul(x, y); }
llvm::Value* FDiv(const MathEmitter&, llvm::Value* x, llvm::Value* y, Builder* b) { return b->CreateFDiv(x, y); }
llvm::Value* FRem(const MathEmitter&, llvm::Value* x, llvm::Value* y, Builder* b) { return b->CreateFRem(x, y); }
llvm::Value* FPow(const MathEmitter& m, llvm::Value* x, llvm::Value* y, Builder* b) { return m.Pow(x, y, b); }
llvm::Value* FAtan2(const MathEmitter& m, llvm::Value* x, llvm::Value* y, Builder* b) { return m.Atan2(x, y, b); }

llvm::Value* SignBitSet(llvm::Value* x, Builder* b) {
  const unsigned bits = x->getType()->getPrimitiveSizeInBits();
  return b->CreateICmpSLT(b->CreateBitCast(x, b->getIntNTy(bits)), b->getIntN(bits, 0));
}
// XLA: a NaN operand wins (lhs first); max(-0, +0) = +0, min(-0, +0) = -0.
llvm::Value* MaxPicksLhs(llvm::Value* x, llvm::Value* y, Builder* b) {
  llvm::Value* tie = b->CreateAnd(b->CreateFCmpOEQ(x, y),
                                  b->CreateOr(b->CreateNot(SignBitSet(x, b)), SignBitSet(y, b)));
  llvm::Value* wins = b->CreateOr(b->CreateFCmpOGT(x, y), tie);
  return b->CreateOr(b->CreateFCmpUNO(x, x), b->CreateAnd(b->CreateFCmpORD(y, y), wins));
}
llvm::Value* MinPicksLhs(llvm::Value* x, llvm::Value* y, Builder* b) {
  llvm::Value* tie = b->CreateAnd(b->CreateFCmpOEQ(x, y),
                                  b->CreateOr(SignBitSet(x, b), b->CreateNot(SignBitSet(y, b))));
  llvm::Value* wins = b->CreateOr(b->CreateFCmpOLT(x, y), tie);
  return b->CreateOr(b->CreateFCmpUNO(x, x), b->CreateAnd(b->CreateFCmpORD(y, y), wins));
}

llvm::Value* IAdd(llvm::Value* x, llvm::Value* y, bool, Builder* b) { return b->CreateAdd(x, y); }
llvm::Value* ISub(llvm::Value* x, llvm::Value* y, bool, Builder* b) { return b->CreateSub(x, y); }
llvm::Value* IMul(llvm::Value* x, llvm::Value* y, bool, Builder* b) { return b->CreateMul(x, y); }
llvm::Value* IDiv(llvm::Value* x, llvm::Value* y, bool is_signed, Builder* b) {
  llvm::Value* zero = b->CreateICmpEQ(y, I(y, 0));
  llvm::Value* all_ones = llvm::Constant::getAllOnesValue(x->getType());
  if (!is_signed) {
    return b->CreateSelect(zero, all_ones, b->CreateUDiv(x, b->CreateSelect(zero, I(y, 1), y)));
  }
  llvm::Value* minus_one = b->CreateICmpEQ(y, all_ones);
  llvm::Value* safe = b->CreateSelect(b->CreateOr(zero, minus_one), I(y, 1), y);
  llvm::Value* q = b->CreateSelect(minus_one, b->CreateNeg(x), b->CreateSDiv(x, safe));
  return b->CreateSelect(zero, all_ones, q);
}
llvm::Value* IRem(llvm::Value* x, llvm::Value* y, bool is_signed, Builder* b) {
  llvm::Value* zero = b->CreateICmpEQ(y, I(y, 0));
  if (!is_signed) {
    return b->CreateSelect(zero, x, b->CreateURem(x, b->CreateSelect(zero, I(y, 1), y)));
  }
  llvm::Value* minus_one = b->CreateICmpEQ(y, llvm::Constant::getAllOnesValue(y->getType()));
  llvm::Value* safe = b->CreateSelect(b->CreateOr(zero, minus_one), I(y, 1), y);
  llvm::Value* r = b->CreateSelect(minus_one, I(x, 0), b->CreateSRem(x, safe));
  return b->CreateSelect(zero, x, r);
}
llvm::Value* IMax(llvm::Value* x, llvm::Value* y, bool is_signed, Builder* b) {
  return b->CreateSelect(is_signed ? b->CreateICmpSGE(x, y) : b->CreateICmpUGE(x, y), x, y);
}
llvm::Value* IMin(llvm::Value* x, llvm::Value* y, bool is_signed, Builder* b) {
  return b->CreateSelect(is_signed ? b->CreateICmpSLE(x, y) : b->CreateICmpULE(x, y), x, y);
}
// XLA: 1^y = x^0 = 1; a negative exponent gives 0; otherwise square and
// multiply over every bit of y (unrolled, wrapping).
llvm::Value* IPow(llvm::Value* x, llvm::Value* y, bool is_signed, Builder* b) {
  const unsigned width = x->getType()->getIntegerBitWidth();
  llvm::Value* result = I(x, 1);
  llvm::Value* base = x;
  for (unsigned k = 0; k < width; ++k) {
    llvm::Value* bit = b->CreateICmpNE(b->CreateAnd(y, I(y, uint64_t{1} << k)), I(y, 0));
    result = b->CreateSelect(bit, b->CreateMul(result, base), result);
    base = b->CreateMul(base, base);
  }
  if (is_signed) result = b->CreateSelect(b->CreateICmpSLT(y, I(y, 0)), I(x, 0), result);
  llvm::Value* one = b->CreateOr(b->CreateICmpEQ(x, I(x, 1)), b->CreateICmpEQ(y, I(y, 0)));
  return b->CreateSelect(one, I(x, 1), result);
}
llvm::Value* IAnd(llvm::Value* x, llvm::Value* y, bool, Builder* b) { return b->CreateAnd(x, y); }
llvm::Value* IOr(llvm::Value* x, llvm::Value* y, bool, Builder* b) { return b->CreateOr(x, y); }
llvm::Value* IXor(llvm::Value* x, llvm::Value* y, bool, Builder* b) { return b->CreateXor(x, y); }
llvm::Value* OutOfRange(llvm::Value* x, llvm::Value* y, Builder* b) {
  return b->CreateICmpUGE(y, I(y, x->getType()->getIntegerBitWidth()));
}
llvm::Value* SafeAmount(llvm::Value* x, llvm::Value* y, Builder* b) {
  return b->CreateSelect(OutOfRange(x, y, b), I(y, 0), y);
}
llvm::Value* IShl(llvm::Value* x, llvm::Value* y, bool, Builder* b) {
  return b->CreateSelect(OutOfRange(x, y, b), I(x, 0), b->CreateShl(x, SafeAmount(x, y, b)));
}
llvm::Value* IShrL(llvm::Value* x, llvm::Value* y, bool, Builder* b) {
  return b->CreateSelect(OutOfRange(x, y, b), I(x, 0), b->CreateLShr(x, SafeAmount(x, y, b)));
}
llvm::Value* IShrA(llvm::Value* x, llvm::Value* y, bool, Builder* b) {
  const unsigned width = x->getType()->getIntegerBitWidth();
  llvm::Value* fill = b->CreateAShr(x, I(x, width - 1));
  return b->CreateSelect(OutOfRange(x, y, b), fill, b->CreateAShr(x, SafeAmount(x, y, b)));
}

struct BinaryEntry {
  HloOpcode opcode;
  FloatBinary real;
  PickLhs pick_lhs;
  IntBinary integer;
  bool pred_ok;
};

constexpr BinaryEntry kBinary[] = {
    {HloOpcode::kAdd, FAdd, nullptr, IAdd, true},
    {HloOpcode::kSubtract, FSub, nullptr, ISub, true},
    {HloOpcode::kMultiply, FMul, nullptr, IMul, true},
    {HloOpcode::kDivide, FDiv, nullptr, IDiv, true},
    {HloOpcode::kRemainder, FRem, nullptr, IRem, true},
    {HloOpcode::kPower, FPow, nullptr, IPow, true},
    {HloOpcode::kAtan2, FAtan2, nullptr, nullptr, false},
    {HloOpcode::kMaximum, nullptr, MaxPicksLhs, IMax, true},
    {HloOpcode::kMinimum, nullptr, MinPicksLhs, IMin, true},
    {HloOpcode::kAnd, nullptr, nullptr, IAnd, true},
    {HloOpcode::kOr, nullptr, nullptr, IOr, true},
    {HloOpcode::kXor, nullptr, nullptr, IXor, true},
    {HloOpcode::kShiftLeft, nullptr, nullptr, IShl, false},
    {HloOpcode::kShiftRightLogical, nullptr, nullptr, IShrL, false},
    {HloOpcode::kShiftRightArithmetic, nullptr, nullptr, IShrA, false},
};

const UnaryEntry* FindUnary(HloOpcode op) {
  for (const UnaryEntry& e : kUnary) {
    if (e.opcode == op) return &e;
  }
  return nullptr;
}
const BinaryEntry* FindBinary(HloOpcode op) {
  for (const BinaryEntry& e : kBinary) {
    if (e.opcode == op) return &e;
  }
  return nullptr;
}

// Pred results of integer kernels are normalized to 0/1.
llvm::Value* NormalizePred(PrimitiveType type, llvm::Value* v, Builder* b) {
  if (!IsPred(type)) return v;
  return b->CreateZExt(b->CreateICmpNE(v, I(v, 0)), v->getType());
}

// Raw encoding of an element value as an integer of BitWidth(type) bits.
llvm::Value* ToBits(PrimitiveType type, llvm::Value* v, Builder* b) {
  llvm::Type* t = b->getIntNTy(BitWidth(type));
  if (v->getType()->isFloatingPointTy()) return b->CreateBitCast(v, t);
  return b->CreateZExtOrTrunc(v, t);
}
llvm::Value* FromBits(PrimitiveType type, llvm::Value* bits, Builder* b) {
  llvm::Type* t = ElementIrType(type, b->getContext());
  if (t->isFloatingPointTy()) return b->CreateBitCast(bits, t);
  return b->CreateZExtOrTrunc(bits, t);
}

// Key ordering encodings of a float type in XLA's total order (as signed
// i64), mirroring the evaluator's TotalOrderKey.
llvm::Value* TotalOrderKey(PrimitiveType type, llvm::Value* v, Builder* b) {
  const FloatFormat& f = GetFloatFormat(FloatFormatOf(type));
  const int total = f.total_bits();
  llvm::Value* bits = b->CreateZExt(ToBits(type, v, b), b->getInt64Ty());
  if (f.specials == SpecialValues::kExponentOnly) return bits;
  const uint64_t sign = uint64_t{1} << (total - 1);
  llvm::Value* negative = b->CreateICmpNE(b->CreateAnd(bits, sign), b->getInt64(0));
  llvm::Value* mag = b->CreateAnd(bits, sign - 1);
  llvm::Value* key_neg = nullptr;
  if (f.specials == SpecialValues::kUnsignedZeroNan) {
    llvm::Value* nan = b->CreateICmpEQ(mag, b->getInt64(0));
    key_neg = b->CreateSelect(nan, b->getInt64(std::numeric_limits<int64_t>::min()),
                              b->CreateNot(b->CreateSub(mag, b->getInt64(1))));
  } else {
    key_neg = b->CreateNot(mag);
  }
  return b->CreateSelect(negative, key_neg, mag);
}

struct DirectionEntry {
  absl::string_view name;
  llvm::CmpInst::Predicate fp, sint, uint;
};
constexpr DirectionEntry kDirections[] = {
    {"EQ", llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::ICMP_EQ, llvm::CmpInst::ICMP_EQ},
    {"NE", llvm::CmpInst::FCMP_UNE, llvm::CmpInst::ICMP_NE, llvm::CmpInst::ICMP_NE},
    {"LT", llvm::CmpInst::FCMP_OLT, llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_ULT},
    {"LE", llvm::CmpInst::FCMP_OLE, llvm::CmpInst::ICMP_SLE, llvm::CmpInst::ICMP_ULE},
    {"GT", llvm::CmpInst::FCMP_OGT, llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_UGT},
    {"GE", llvm::CmpInst::FCMP_OGE, llvm::CmpInst::ICMP_SGE, llvm::CmpInst::ICMP_UGE},
};

// XLA's reduce-precision on the raw bits of an IEEE-layout format.
llvm::Value* ReducePrecisionBits(llvm::Value* bits, int src_e, int src_m, int64_t exponent_bits,
                                 int64_t mantissa_bits, Builder* b) {
  if (mantissa_bits < src_m) {
    const int dropped = src_m - static_cast<int>(mantissa_bits);
    const uint64_t last_bit = uint64_t{1} << dropped;
    llvm::Value* x_last = b->CreateLShr(b->CreateAnd(bits, I(bits, last_bit)), dropped);
    bits = b->CreateAdd(bits, b->CreateAdd(x_last, I(bits, (last_bit >> 1) - 1)));
    bits = b->CreateAnd(bits, I(bits, ~(last_bit - 1)));
  }
  if (exponent_bits < src_e) {
    const int total = 1 + src_e + src_m;
    const uint64_t sign_mask = uint64_t{1} << (total - 1);
    const uint64_t exp_mask = ((uint64_t{1} << src_e) - 1) << src_m;
    const uint64_t bias = (uint64_t{1} << (src_e - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    llvm::Value* x_exp = b->CreateAnd(bits, I(bits, exp_mask));
    llvm::Value* sign = b->CreateAnd(bits, I(bits, sign_mask));
    llvm::Value* over = b->CreateICmpUGT(x_exp, I(bits, (bias + reduced_bias) << src_m));
    llvm::Value* under = b->CreateICmpULE(x_exp, I(bits, (bias - reduced_bias) << src_m));
    bits = b->CreateSelect(over, b->CreateOr(sign, I(bits, exp_mask)),
                           b->CreateSelect(under, sign, bits));
  }
  return bits;
}

}  // namespace

ElementalIrEmitter::ElementalIrEmitter(llvm::Module* module, llvm::IRBuilder<>* b,
                                       const MathEmitter* math)
    : module_(module), b_(b), math_(math != nullptr ? math : &default_math_) {}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitUnaryOp(HloOpcode opcode, PrimitiveType type,
                                                             llvm::Value* x) {
  const UnaryEntry* e = FindUnary(opcode);
  if (e == nullptr) return absl::UnimplementedError(absl::StrCat("not a unary op: ", HloOpcodeName(opcode)));
  if (IsFloat(type) && e->real != nullptr) {
    return EmitFromCompute(type, e->real(*math_, EmitToCompute(type, x, b_), b_), b_);
  }
  const bool int_ok = IsInteger(type) || (IsPred(type) && e->pred_ok);
  if (!int_ok || e->integer == nullptr) {
    return absl::UnimplementedError(absl::StrCat(HloOpcodeName(opcode), " does not support ",
                                                 PrimitiveTypeName(type)));
  }
  if (IsPred(type) && opcode == HloOpcode::kNot) {
    return b_->CreateZExt(b_->CreateICmpEQ(x, I(x, 0)), x->getType());
  }
  return NormalizePred(type, e->integer(x, IsSignedInt(type), b_), b_);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBinaryOp(HloOpcode opcode, PrimitiveType type,
                                                              llvm::Value* x, llvm::Value* y) {
  const BinaryEntry* e = FindBinary(opcode);
  if (e == nullptr) return absl::UnimplementedError(absl::StrCat("not a binary op: ", HloOpcodeName(opcode)));
  if (IsFloat(type) && e->pick_lhs != nullptr) {
    llvm::Value* lhs = e->pick_lhs(EmitToCompute(type, x, b_), EmitToCompute(type, y, b_), b_);
    return b_->CreateSelect(lhs, x, y);
  }
  if (IsFloat(type) && e->real != nullptr) {
    return EmitFromCompute(
        type, e->real(*math_, EmitToCompute(type, x, b_), EmitToCompute(type, y, b_), b_), b_);
  }
  const bool int_ok = IsInteger(type) || (IsPred(type) && e->pred_ok);
  if (!int_ok || e->integer == nullptr) {
    return absl::UnimplementedError(absl::StrCat(HloOpcodeName(opcode), " does not support ",
                                                 PrimitiveTypeName(type)));
  }
  return NormalizePred(type, e->integer(x, y, IsSignedInt(type), b_), b_);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitCompare(const HloInstruction* hlo,
                                                             PrimitiveType type, llvm::Value* x,
                                                             llvm::Value* y) {
  const std::string& dir = hlo->GetString(AttrId::kDirection);
  const DirectionEntry* d = nullptr;
  for (const DirectionEntry& e : kDirections) {
    if (e.name == dir) d = &e;
  }
  if (d == nullptr) return Invalid(hlo, absl::StrCat("unknown direction '", dir, "'"));
  llvm::Value* r = nullptr;
  if (IsFloat(type) && hlo->GetString(AttrId::kCompareType) == "TOTALORDER") {
    r = b_->CreateICmp(d->sint, TotalOrderKey(type, x, b_), TotalOrderKey(type, y, b_));
  } else if (IsFloat(type)) {
    r = b_->CreateFCmp(d->fp, EmitToCompute(type, x, b_), EmitToCompute(type, y, b_));
  } else {
    r = b_->CreateICmp(IsSignedInt(type) ? d->sint : d->uint, x, y);
  }
  return b_->CreateZExt(r, b_->getInt8Ty());
}

llvm::Value* ElementalIrEmitter::EmitClamp(PrimitiveType type, llvm::Value* lo, llvm::Value* x,
                                           llvm::Value* hi) {
  if (!IsFloat(type)) {
    const bool s = IsSignedInt(type);
    llvm::Value* m = b_->CreateSelect(s ? b_->CreateICmpSGE(x, lo) : b_->CreateICmpUGE(x, lo), x, lo);
    return b_->CreateSelect(s ? b_->CreateICmpSLE(hi, m) : b_->CreateICmpULE(hi, m), hi, m);
  }
  llvm::Value* l = EmitToCompute(type, lo, b_);
  llvm::Value* v = EmitToCompute(type, x, b_);
  llvm::Value* h = EmitToCompute(type, hi, b_);
  llvm::Value* v_wins = MaxPicksLhs(v, l, b_);
  llvm::Value* m = b_->CreateSelect(v_wins, v, l);
  llvm::Value* r = b_->CreateSelect(MinPicksLhs(h, m, b_), hi, b_->CreateSelect(v_wins, x, lo));
  r = b_->CreateSelect(b_->CreateFCmpUNO(h, h), hi, r);
  r = b_->CreateSelect(b_->CreateFCmpUNO(v, v), x, r);
  return b_->CreateSelect(b_->CreateFCmpUNO(l, l), lo, r);
}

llvm::Value* ElementalIrEmitter::EmitReducePrecision(PrimitiveType type, llvm::Value* x,
                                                     int64_t exponent_bits, int64_t mantissa_bits) {
  const FloatFormatId fmt = FloatFormatOf(type);
  const bool ieee_layout = fmt == FloatFormatId::kF16 || fmt == FloatFormatId::kBF16 ||
                           fmt == FloatFormatId::kF32 || fmt == FloatFormatId::kF64;
  llvm::Value* c = EmitToCompute(type, x, b_);
  llvm::Value* is_nan = b_->CreateFCmpUNO(c, c);
  llvm::Value* nan_result =
      mantissa_bits > 0 ? x
                        : FromBits(type, b_->getIntN(BitWidth(type), EncodeFloat(fmt, INFINITY)), b_);
  llvm::Value* r = nullptr;
  if (ieee_layout) {
    const FloatFormat& f = GetFloatFormat(fmt);
    r = FromBits(type, ReducePrecisionBits(ToBits(type, x, b_), f.exponent_bits, f.mantissa_bits,
                                           exponent_bits, mantissa_bits, b_), b_);
  } else {
    llvm::Value* bits = b_->CreateBitCast(c, b_->getInt32Ty());
    llvm::Value* reduced = b_->CreateBitCast(
        ReducePrecisionBits(bits, 8, 23, exponent_bits, mantissa_bits, b_), b_->getFloatTy());
    r = EmitFromCompute(type, reduced, b_);
  }
  return b_->CreateSelect(is_nan, nan_result, r);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitIf(
    llvm::Value* cond, const std::function<absl::StatusOr<llvm::Value*>()>& on_true,
    const std::function<absl::StatusOr<llvm::Value*>()>& on_false) {
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx, "if.then", fn);
  llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx, "if.else", fn);
  llvm::BasicBlock* merge_bb = llvm::BasicBlock::Create(ctx, "if.merge", fn);
  b_->CreateCondBr(cond, then_bb, else_bb);
  b_->SetInsertPoint(then_bb);
  ASSIGN_OR_RETURN(llvm::Value* tv, on_true());
  llvm::BasicBlock* then_end = b_->GetInsertBlock();
  b_->CreateBr(merge_bb);
  b_->SetInsertPoint(else_bb);
  ASSIGN_OR_RETURN(llvm::Value* fv, on_false());
  llvm::BasicBlock* else_end = b_->GetInsertBlock();
  b_->CreateBr(merge_bb);
  b_->SetInsertPoint(merge_bb);
  llvm::PHINode* phi = b_->CreatePHI(tv->getType(), 2);
  phi->addIncoming(tv, then_end);
  phi->addIncoming(fv, else_end);
  return phi;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitSwitch(
    llvm::Value* selector, int64_t cases,
    const std::function<absl::StatusOr<llvm::Value*>(int64_t)>& on_case) {
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  std::vector<llvm::BasicBlock*> blocks;
  for (int64_t k = 0; k < cases; ++k) blocks.push_back(llvm::BasicBlock::Create(ctx, "case", fn));
  llvm::BasicBlock* merge_bb = llvm::BasicBlock::Create(ctx, "switch.merge", fn);
  // The last case is the default: `selector` is in range by contract.
  llvm::SwitchInst* sw =
      b_->CreateSwitch(selector, blocks.back(), static_cast<unsigned>(cases - 1));
  llvm::IntegerType* type = llvm::cast<llvm::IntegerType>(selector->getType());
  for (int64_t k = 0; k + 1 < cases; ++k) sw->addCase(llvm::ConstantInt::get(type, k), blocks[k]);
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  for (int64_t k = 0; k < cases; ++k) {
    b_->SetInsertPoint(blocks[k]);
    ASSIGN_OR_RETURN(llvm::Value* v, on_case(k));
    incoming.emplace_back(v, b_->GetInsertBlock());
    b_->CreateBr(merge_bb);
  }
  b_->SetInsertPoint(merge_bb);
  llvm::PHINode* phi =
      b_->CreatePHI(incoming.front().first->getType(), static_cast<unsigned>(cases));
  for (const auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return phi;
}

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeElementGenerator(
    const HloInstruction* hlo, const std::vector<ElementGenerator>& ops) {
  const HloOpcode op = hlo->opcode();
  if (!hlo->shape().IsArray()) return Unimplemented(hlo, "result is not an array");
  if (static_cast<int64_t>(ops.size()) != hlo->operand_count()) {
    return Invalid(hlo, absl::StrCat("got ", ops.size(), " operand generators for ",
                                     hlo->operand_count(), " operands"));
  }
  for (const HloInstruction* operand : hlo->operands()) {
    if (!operand->shape().IsArray() || IsComplex(operand->shape().element_type())) {
      return Unimplemented(hlo, absl::StrCat("operand shape ", operand->shape().ToString(false)));
    }
  }
  if (IsComplex(hlo->shape().element_type())) return Unimplemented(hlo, "complex types");
  if (FindUnary(op) != nullptr) {
    const PrimitiveType type = hlo->operand(0)->shape().element_type();
    // Check support once, at construction, on a throwaway answer.
    const UnaryEntry* e = FindUnary(op);
    const bool ok = IsFloat(type) ? e->real != nullptr
                                  : (e->integer != nullptr && (IsInteger(type) || e->pred_ok));
    if (!ok) return Unimplemented(hlo, absl::StrCat("type ", PrimitiveTypeName(type)));
    return ElementGenerator([this, op, type, ops](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(llvm::Value* x, ops[0](index));
      return EmitUnaryOp(op, type, x);
    });
  }
  if (FindBinary(op) != nullptr) {
    const PrimitiveType type = hlo->operand(0)->shape().element_type();
    const BinaryEntry* e = FindBinary(op);
    const bool ok = IsFloat(type) ? (e->real != nullptr || e->pick_lhs != nullptr)
                                  : (e->integer != nullptr && (IsInteger(type) || e->pred_ok));
    if (!ok) return Unimplemented(hlo, absl::StrCat("type ", PrimitiveTypeName(type)));
    return ElementGenerator([this, op, type, ops](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(llvm::Value* x, ops[0](index));
      ASSIGN_OR_RETURN(llvm::Value* y, ops[1](index));
      return EmitBinaryOp(op, type, x, y);
    });
  }
  return MakeShapeOpGenerator(hlo, ops);
}

namespace {

// An operand that may be a scalar standing for every element (select's
// predicate, clamp's bounds).
IrIndex MaybeScalarIndex(const HloInstruction* operand, const IrIndex& index) {
  return operand->shape().rank() == 0 ? IrIndex() : index;
}

}  // namespace

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeShapeOpGenerator(
    const HloInstruction* hlo, const Operands& ops) {
  const Shape& shape = hlo->shape();
  const PrimitiveType type = shape.element_type();
  switch (hlo->opcode()) {
    case HloOpcode::kCopy:
      return ops[0];
    case HloOpcode::kCompare: {
      const PrimitiveType in = hlo->operand(0)->shape().element_type();
      return ElementGenerator([this, hlo, in, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* x, ops[0](i));
        ASSIGN_OR_RETURN(llvm::Value* y, ops[1](i));
        return EmitCompare(hlo, in, x, y);
      });
    }
    case HloOpcode::kSelect:
      return ElementGenerator([this, hlo, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* p, ops[0](MaybeScalarIndex(hlo->operand(0), i)));
        ASSIGN_OR_RETURN(llvm::Value* t, ops[1](i));
        ASSIGN_OR_RETURN(llvm::Value* f, ops[2](i));
        return b_->CreateSelect(b_->CreateICmpNE(p, I(p, 0)), t, f);
      });
    case HloOpcode::kClamp:
      return ElementGenerator([this, hlo, type, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* lo, ops[0](MaybeScalarIndex(hlo->operand(0), i)));
        ASSIGN_OR_RETURN(llvm::Value* x, ops[1](i));
        ASSIGN_OR_RETURN(llvm::Value* hi, ops[2](MaybeScalarIndex(hlo->operand(2), i)));
        return EmitClamp(type, lo, x, hi);
      });
    case HloOpcode::kIsFinite: {
      const PrimitiveType in = hlo->operand(0)->shape().element_type();
      if (!IsFloat(in)) return Unimplemented(hlo, "is-finite needs a float operand");
      return ElementGenerator([this, in, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* x, ops[0](i));
        llvm::Value* c = EmitToCompute(in, x, b_);
        llvm::Value* a = Intrinsic(llvm::Intrinsic::fabs, {c}, b_);
        return b_->CreateZExt(b_->CreateFCmpOLT(a, C(a, INFINITY)), b_->getInt8Ty());
      });
    }
    case HloOpcode::kConvert: {
      const PrimitiveType in = hlo->operand(0)->shape().element_type();
      return ElementGenerator([this, in, type, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* x, ops[0](i));
        return EmitConvert(in, type, x, b_);
      });
    }
    case HloOpcode::kReducePrecision: {
      const int64_t e = hlo->GetInt(AttrId::kExponentBits, -1);
      const int64_t m = hlo->GetInt(AttrId::kMantissaBits, -1);
      if (!IsFloat(type) || e < 1 || m < 0) {
        return Invalid(hlo, "needs a float operand, exponent_bits >= 1 and mantissa_bits >= 0");
      }
      return ElementGenerator([this, type, e, m, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* x, ops[0](i));
        return EmitReducePrecision(type, x, e, m);
      });
    }
    case HloOpcode::kBitcastConvert:
      return MakeBitcastConvert(hlo, ops);
    case HloOpcode::kIota: {
      const int64_t dim = hlo->GetInt(AttrId::kIotaDimension);
      if (dim < 0 || dim >= shape.rank()) return Invalid(hlo, "iota_dimension out of range");
      return ElementGenerator([this, dim, type](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        return EmitConvert(PrimitiveType::S64, type, i[dim], b_);
      });
    }
    case HloOpcode::kConstant:
      return MakeConstant(hlo);
    case HloOpcode::kBitcast:
      // Inside a module every array is row-major after layout assignment, so
      // a bitcast that keeps the element type is a reshape of the logical
      // order; anything else would need the physical layouts.
      if (!PhysicalOrderIsLogical(shape) || !PhysicalOrderIsLogical(hlo->operand(0)->shape()) ||
          hlo->operand(0)->shape().element_type() != shape.element_type()) {
        return Unimplemented(hlo, "bitcast between non-row-major layouts or element types");
      }
      [[fallthrough]];
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse: {
      const HloInstruction* operand = hlo->operand(0);
      const std::vector<int64_t> dims = operand->shape().dimensions();
      const HloOpcode op =
          hlo->opcode() == HloOpcode::kBitcast ? HloOpcode::kReshape : hlo->opcode();
      std::vector<int64_t> starts, strides;
      if (op == HloOpcode::kSlice) {
        const AttrValue* attr = hlo->FindAttr(AttrId::kSlice);
        if (attr == nullptr) return Invalid(hlo, "missing slice=");
        for (const SliceDim& s : std::get<std::vector<SliceDim>>(*attr)) {
          starts.push_back(s.start);
          strides.push_back(s.stride);
        }
        if (static_cast<int64_t>(starts.size()) != shape.rank()) return Invalid(hlo, "slice rank");
      }
      const std::vector<int64_t> attr_dims = hlo->dimensions();
      return ElementGenerator([this, op, dims, attr_dims, starts, strides, ops](
                                  const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        switch (op) {
          case HloOpcode::kBroadcast: return ops[0](i.SourceIndexOfBroadcast(dims, attr_dims));
          case HloOpcode::kReshape: return ops[0](i.SourceIndexOfReshape(dims, b_));
          case HloOpcode::kTranspose: return ops[0](i.SourceIndexOfTranspose(dims, attr_dims));
          case HloOpcode::kSlice: return ops[0](i.SourceIndexOfSlice(dims, starts, strides, b_));
          case HloOpcode::kReverse: return ops[0](i.SourceIndexOfReverse(attr_dims, b_));
          default: break;  // only the five opcodes above reach this generator
        }
        return absl::InternalError("shape-op generator called for another opcode");
      });
    }
    case HloOpcode::kPad:
      return MakePad(hlo, ops);
    case HloOpcode::kConcatenate:
      return MakeConcatenate(hlo, ops);
    case HloOpcode::kDynamicSlice:
      return MakeDynamicSlice(hlo, ops);
    case HloOpcode::kDynamicUpdateSlice:
      return MakeDynamicUpdateSlice(hlo, ops);
    default:
      return Unimplemented(hlo, "opcode not supported by the elemental emitter");
  }
}

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeBitcastConvert(
    const HloInstruction* hlo, const Operands& ops) {
  const PrimitiveType from = hlo->operand(0)->shape().element_type();
  const PrimitiveType to = hlo->shape().element_type();
  const int from_bits = BitWidth(from), to_bits = BitWidth(to);
  const std::vector<int64_t> operand_dims = hlo->operand(0)->shape().dimensions();
  if (from_bits == to_bits) {
    return ElementGenerator([this, from, to, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(llvm::Value* x, ops[0](i));
      return FromBits(to, ToBits(from, x, b_), b_);
    });
  }
  if (from_bits > to_bits) {  // a new minor dimension of pieces, low piece first
    return ElementGenerator([this, from, to, to_bits, operand_dims, ops](
                                const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> src(i.multidim().begin(), i.multidim().end() - 1);
      ASSIGN_OR_RETURN(llvm::Value* x, ops[0](IrIndex(src, operand_dims)));
      llvm::Value* bits = ToBits(from, x, b_);
      llvm::Value* shift = b_->CreateMul(b_->CreateZExtOrTrunc(i.multidim().back(), bits->getType()),
                                         I(bits, to_bits));
      return FromBits(to, b_->CreateTrunc(b_->CreateLShr(bits, shift), b_->getIntNTy(to_bits)), b_);
    });
  }
  const int pieces = to_bits / from_bits;
  return ElementGenerator([this, from, to, from_bits, to_bits, pieces, operand_dims, ops](
                              const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* acc = b_->getIntN(to_bits, 0);
    for (int k = 0; k < pieces; ++k) {
      std::vector<llvm::Value*> src = i.multidim();
      src.push_back(b_->getInt64(k));
      ASSIGN_OR_RETURN(llvm::Value* x, ops[0](IrIndex(src, operand_dims)));
      llvm::Value* piece = b_->CreateZExt(ToBits(from, x, b_), acc->getType());
      acc = b_->CreateOr(acc, b_->CreateShl(piece, I(acc, k * from_bits)));
    }
    return FromBits(to, acc, b_);
  });
}

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeConstant(
    const HloInstruction* hlo) {
  if (!hlo->has_literal() || hlo->literal().elided()) return Invalid(hlo, "constant has no value");
  llvm::GlobalVariable*& global = constants_[hlo];
  if (global == nullptr) {
    absl::Span<const uint8_t> data = hlo->literal().data();
    llvm::Constant* init = llvm::ConstantDataArray::get(
        module_->getContext(), llvm::ArrayRef<uint8_t>(data.data(), data.size()));
    // The symbol keeps letters, digits, '_', '.' and '$' of the name: NVPTX
    // aborts (LLVM ERROR) on others, such as the '-' of "custom-call.2.x".
    std::string symbol = absl::StrCat("constant.", hlo->name());
    for (char& c : symbol) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$') c = '_';
    }
    global = new llvm::GlobalVariable(*module_, init->getType(), /*isConstant=*/true,
                                      llvm::GlobalValue::PrivateLinkage, init, symbol);
    global->setAlignment(llvm::Align(64));
  }
  Shape shape = hlo->shape();
  shape.clear_layout();  // literals are stored row-major
  IrArray array(global, shape);
  return ElementGenerator([this, array](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    return array.EmitReadElement(i, b_);
  });
}

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakePad(
    const HloInstruction* hlo, const Operands& ops) {
  const AttrValue* attr = hlo->FindAttr(AttrId::kPadding);
  if (attr == nullptr) return Invalid(hlo, "missing padding=");
  const std::vector<PaddingDim> padding = std::get<std::vector<PaddingDim>>(*attr);
  const std::vector<int64_t> dims = hlo->operand(0)->shape().dimensions();
  if (padding.size() != dims.size()) return Invalid(hlo, "padding rank");
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return ElementGenerator([this, padding, dims, count, ops](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    if (count == 0) return ops[1](IrIndex());
    llvm::Value* in_bounds = b_->getTrue();
    std::vector<llvm::Value*> src(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      llvm::Value* t = b_->CreateSub(i[d], b_->getInt64(padding[d].low));
      llvm::Value* step = b_->getInt64(padding[d].interior + 1);
      llvm::Value* nonneg = b_->CreateICmpSGE(t, b_->getInt64(0));
      llvm::Value* safe_t = b_->CreateSelect(nonneg, t, b_->getInt64(0));
      llvm::Value* on_grid = b_->CreateICmpEQ(b_->CreateURem(safe_t, step), b_->getInt64(0));
      llvm::Value* s = b_->CreateUDiv(safe_t, step);
      llvm::Value* inside = b_->CreateICmpULT(s, b_->getInt64(dims[d]));
      in_bounds = b_->CreateAnd(in_bounds, b_->CreateAnd(nonneg, b_->CreateAnd(on_grid, inside)));
      src[d] = s;
    }
    IrIndex src_index(src, dims);
    return EmitIf(in_bounds, [&] { return ops[0](src_index); }, [&] { return ops[1](IrIndex()); });
  });
}

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeConcatenate(
    const HloInstruction* hlo, const Operands& ops) {
  if (hlo->dimensions().size() != 1) return Invalid(hlo, "needs one dimension");
  const int64_t dim = hlo->dimensions()[0];
  std::vector<int64_t> offsets;  // start of each operand along `dim`
  std::vector<std::vector<int64_t>> operand_dims;
  int64_t offset = 0;
  for (const HloInstruction* operand : hlo->operands()) {
    offsets.push_back(offset);
    offset += operand->shape().dimensions(dim);
    operand_dims.push_back(operand->shape().dimensions());
  }
  // Equal extents along `dim` (e.g. the im2col of a convolution): the
  // operand is i[dim] / extent, one switch. Otherwise a binary search over
  // the offsets: log2(operands) compares instead of one per operand.
  const int64_t extent = operand_dims[0][dim];
  bool equal = extent > 0;
  for (const std::vector<int64_t>& d : operand_dims) equal &= d[dim] == extent;
  return ElementGenerator([this, dim, offsets, operand_dims, ops, equal, extent](
                              const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    auto emit_operand = [&](size_t k) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> src = i.multidim();
      src[dim] = b_->CreateSub(i[dim], b_->getInt64(offsets[k]));
      return ops[k](IrIndex(src, operand_dims[k]));
    };
    if (equal && ops.size() > 2) {
      return EmitSwitch(b_->CreateUDiv(i[dim], b_->getInt64(extent)),
                        static_cast<int64_t>(ops.size()),
                        [&](int64_t k) { return emit_operand(static_cast<size_t>(k)); });
    }
    // Operands [lo, hi) hold i[dim].
    std::function<absl::StatusOr<llvm::Value*>(size_t, size_t)> search =
        [&](size_t lo, size_t hi) -> absl::StatusOr<llvm::Value*> {
      if (hi - lo == 1) return emit_operand(lo);
      const size_t mid = lo + (hi - lo) / 2;
      return EmitIf(b_->CreateICmpUGE(i[dim], b_->getInt64(offsets[mid])),
                    [&] { return search(mid, hi); }, [&] { return search(lo, mid); });
    };
    return search(0, ops.size());
  });
}

namespace {

// Start `k` of a dynamic-(update-)slice as i64, clamped to [0, limit].
llvm::Value* ClampedStart(llvm::Value* start, PrimitiveType type, int64_t limit, Builder* b) {
  llvm::Value* s = IsSignedInt(type) ? b->CreateSExt(start, b->getInt64Ty())
                                     : b->CreateZExt(start, b->getInt64Ty());
  // Negative: 0 for signed types; an unsigned value above INT64_MAX is huge.
  s = b->CreateSelect(b->CreateICmpSLT(s, b->getInt64(0)),
                      b->getInt64(IsSignedInt(type) ? 0 : limit), s);
  return b->CreateSelect(b->CreateICmpSGT(s, b->getInt64(limit)), b->getInt64(limit), s);
}

}  // namespace

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeDynamicSlice(
    const HloInstruction* hlo, const Operands& ops) {
  const std::vector<int64_t> dims = hlo->operand(0)->shape().dimensions();
  const std::vector<int64_t> sizes = hlo->shape().dimensions();
  if (static_cast<int64_t>(ops.size()) != 1 + hlo->shape().rank()) {
    return Invalid(hlo, "needs one scalar start index per dimension");
  }
  std::vector<PrimitiveType> start_types;
  for (int64_t k = 1; k < hlo->operand_count(); ++k) {
    start_types.push_back(hlo->operand(k)->shape().element_type());
  }
  return ElementGenerator([this, dims, sizes, start_types, ops](
                              const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> src(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      ASSIGN_OR_RETURN(llvm::Value* start, ops[d + 1](IrIndex()));
      src[d] = b_->CreateAdd(i[d], ClampedStart(start, start_types[d], dims[d] - sizes[d], b_));
    }
    return ops[0](IrIndex(src, dims));
  });
}

absl::StatusOr<ElementalIrEmitter::ElementGenerator> ElementalIrEmitter::MakeDynamicUpdateSlice(
    const HloInstruction* hlo, const Operands& ops) {
  const std::vector<int64_t> dims = hlo->shape().dimensions();
  const std::vector<int64_t> sizes = hlo->operand(1)->shape().dimensions();
  if (static_cast<int64_t>(ops.size()) != 2 + hlo->shape().rank()) {
    return Invalid(hlo, "needs one scalar start index per dimension");
  }
  std::vector<PrimitiveType> start_types;
  for (int64_t k = 2; k < hlo->operand_count(); ++k) {
    start_types.push_back(hlo->operand(k)->shape().element_type());
  }
  int64_t update_count = 1;
  for (int64_t s : sizes) update_count *= s;
  return ElementGenerator([this, dims, sizes, start_types, update_count, ops](
                              const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    if (update_count == 0) return ops[0](i);
    llvm::Value* inside = b_->getTrue();
    std::vector<llvm::Value*> src(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      ASSIGN_OR_RETURN(llvm::Value* start, ops[d + 2](IrIndex()));
      llvm::Value* s = ClampedStart(start, start_types[d], dims[d] - sizes[d], b_);
      src[d] = b_->CreateSub(i[d], s);  // wraps when below: the unsigned test fails
      inside = b_->CreateAnd(inside, b_->CreateICmpULT(src[d], b_->getInt64(sizes[d])));
    }
    IrIndex update_index(src, sizes);
    return EmitIf(inside, [&] { return ops[1](update_index); }, [&] { return ops[0](i); });
  });
}

}  // namespace xla::gpu
