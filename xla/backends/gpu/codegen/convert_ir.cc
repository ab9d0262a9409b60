#include "xla/backends/gpu/codegen/convert_ir.h"

#include <cmath>
#include <cstdint>

#include "llvm/IR/Intrinsics.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/util/logging.h"

namespace xla::gpu {
namespace {

uint32_t Mask(int bits) { return bits >= 32 ? ~0u : (1u << bits) - 1; }

// Encoding of the format's quiet NaN (as float_format.cc defines it).
uint32_t NanBits(const FloatFormat& f) {
  switch (f.specials) {
    case SpecialValues::kIeee:
      return (Mask(f.exponent_bits) << f.mantissa_bits) | (1u << (f.mantissa_bits - 1));
    case SpecialValues::kFiniteNan: return Mask(f.exponent_bits + f.mantissa_bits);
    case SpecialValues::kUnsignedZeroNan: return 1u << (f.exponent_bits + f.mantissa_bits);
    case SpecialValues::kFiniteNoNan: return 0;
    case SpecialValues::kExponentOnly: return Mask(f.exponent_bits);
  }
  return 0;
}

// Magnitude encoding of the largest finite value.
uint32_t MaxFiniteBits(const FloatFormat& f) {
  const uint32_t all = Mask(f.exponent_bits + f.mantissa_bits);
  switch (f.specials) {
    case SpecialValues::kIeee: return all - (1u << f.mantissa_bits);
    case SpecialValues::kFiniteNan: return all - 1;
    case SpecialValues::kUnsignedZeroNan:
    case SpecialValues::kFiniteNoNan: return all;
    case SpecialValues::kExponentOnly: return Mask(f.exponent_bits) - 1;
  }
  return all;
}

int StorageBits(const FloatFormat& f) { return f.total_bits() <= 8 ? 8 : 16; }

llvm::Value* AsFloat(llvm::Value* bits32, llvm::IRBuilder<>* b) {
  return b->CreateBitCast(bits32, b->getFloatTy());
}

// e8m0fnu: 2^(field - 127); field 0 is the f32 subnormal 2^-127.
llvm::Value* DecodeExponentOnly(llvm::Value* x, llvm::IRBuilder<>* b) {
  llvm::Value* bits = b->CreateSelect(b->CreateICmpEQ(x, b->getInt32(0)),
                                      b->getInt32(0x00400000), b->CreateShl(x, 23));
  bits = b->CreateSelect(b->CreateICmpEQ(x, b->getInt32(0xFF)), b->getInt32(0x7FC00000), bits);
  return AsFloat(bits, b);
}

llvm::Value* EncodeExponentOnly(llvm::Value* u, llvm::IRBuilder<>* b) {
  llvm::Value* a = b->CreateAnd(u, 0x7FFFFFFF);
  llvm::Value* e = b->CreateLShr(a, 23);
  // Normal f32: round the exponent field to nearest, ties to the even field.
  llvm::Value* rounded =
      b->CreateLShr(b->CreateAdd(a, b->CreateAdd(b->getInt32(0x3FFFFF), b->CreateAnd(e, 1))), 23);
  // f32 subnormals: only values above 1.5 * 2^-127 reach field 1.
  llvm::Value* sub = b->CreateZExt(b->CreateICmpUGT(a, b->getInt32(0x00600000)), b->getInt32Ty());
  llvm::Value* mag = b->CreateSelect(b->CreateICmpEQ(e, b->getInt32(0)), sub, rounded);
  llvm::Value* is_nan = b->CreateOr(b->CreateICmpUGT(a, b->getInt32(0x7F800000)),
                                    b->CreateICmpNE(b->CreateLShr(u, 31), b->getInt32(0)));
  is_nan = b->CreateOr(is_nan, b->CreateICmpEQ(a, b->getInt32(0)));
  is_nan = b->CreateOr(is_nan, b->CreateICmpUGT(mag, b->getInt32(254)));
  return b->CreateTrunc(b->CreateSelect(is_nan, b->getInt32(0xFF), mag), b->getInt8Ty());
}

}  // namespace

bool IsNarrowFloat(PrimitiveType type) {
  return IsFloat(type) && type != PrimitiveType::F32 && type != PrimitiveType::F64;
}

llvm::Value* EmitNarrowToF32(FloatFormatId id, llvm::Value* bits, llvm::IRBuilder<>* b) {
  const FloatFormat& f = GetFloatFormat(id);
  XLA_CHECK(id != FloatFormatId::kF32 && id != FloatFormatId::kF64) << "not a narrow format";
  llvm::Value* x = b->CreateAnd(b->CreateZExt(bits, b->getInt32Ty()), Mask(f.total_bits()));
  if (id == FloatFormatId::kBF16) return AsFloat(b->CreateShl(x, 16), b);  // top half of f32
  if (f.specials == SpecialValues::kExponentOnly) return DecodeExponentOnly(x, b);
  const int e = f.exponent_bits, m = f.mantissa_bits;
  llvm::Value* sign = b->CreateLShr(x, e + m);
  llvm::Value* mag = b->CreateAnd(x, Mask(e + m));
  llvm::Value* field = b->CreateLShr(mag, m);
  llvm::Value* mant = b->CreateAnd(mag, Mask(m));
  llvm::Value* normal = b->CreateOr(b->CreateShl(b->CreateAdd(field, b->getInt32(127 - f.bias)), 23),
                                    b->CreateShl(mant, 23 - m));
  // Subnormal: mant * 2^(1 - bias - m), exact in f32 for every table format.
  const float quantum = std::ldexp(1.0f, 1 - f.bias - m);
  llvm::Value* sub = b->CreateBitCast(
      b->CreateFMul(b->CreateUIToFP(mant, b->getFloatTy()), llvm::ConstantFP::get(b->getFloatTy(), quantum)),
      b->getInt32Ty());
  llvm::Value* v = b->CreateSelect(b->CreateICmpEQ(field, b->getInt32(0)), sub, normal);
  llvm::Value* is_nan = b->getFalse();
  switch (f.specials) {
    case SpecialValues::kIeee: {
      llvm::Value* top = b->CreateICmpEQ(field, b->getInt32(Mask(e)));
      v = b->CreateSelect(top, b->getInt32(0x7F800000), v);
      is_nan = b->CreateAnd(top, b->CreateICmpNE(mant, b->getInt32(0)));
      break;
    }
    case SpecialValues::kFiniteNan:
      is_nan = b->CreateICmpEQ(mag, b->getInt32(Mask(e + m)));
      break;
    case SpecialValues::kUnsignedZeroNan:
      is_nan = b->CreateAnd(b->CreateICmpNE(sign, b->getInt32(0)),
                            b->CreateICmpEQ(mag, b->getInt32(0)));
      break;
    case SpecialValues::kFiniteNoNan:
    case SpecialValues::kExponentOnly:
      break;
  }
  v = b->CreateOr(v, b->CreateShl(sign, 31));
  v = b->CreateSelect(is_nan, b->getInt32(0x7FC00000), v);
  return AsFloat(v, b);
}

llvm::Value* EmitF32ToNarrow(FloatFormatId id, llvm::Value* value, llvm::IRBuilder<>* b) {
  const FloatFormat& f = GetFloatFormat(id);
  XLA_CHECK(id != FloatFormatId::kF32 && id != FloatFormatId::kF64) << "not a narrow format";
  llvm::Value* u = b->CreateBitCast(value, b->getInt32Ty());
  if (f.specials == SpecialValues::kExponentOnly) return EncodeExponentOnly(u, b);
  const int e = f.exponent_bits, m = f.mantissa_bits, s = 23 - m;
  llvm::Value* sign = b->CreateLShr(u, 31);
  llvm::Value* a = b->CreateAnd(u, 0x7FFFFFFF);
  llvm::Value* is_nan = b->CreateICmpUGT(a, b->getInt32(0x7F800000));
  llvm::Value* is_inf = b->CreateICmpEQ(a, b->getInt32(0x7F800000));
  // Target-normal range: round the f32 mantissa to m bits (ties to even); a
  // carry moves into the exponent, then rebias.
  llvm::Value* lsb = b->CreateAnd(b->CreateLShr(a, s), 1);
  llvm::Value* rounded =
      b->CreateLShr(b->CreateAdd(a, b->CreateAdd(b->getInt32((1u << (s - 1)) - 1), lsb)), s);
  llvm::Value* mag_normal = b->CreateSub(rounded, b->getInt32(uint32_t(127 - f.bias) << m));
  // Target-subnormal range: quantum 2^(1 - bias - m); shift the full f32
  // significand right by the distance to it, ties to even.
  llvm::Value* exp32 = b->CreateLShr(a, 23);
  llvm::Value* is_f32_normal = b->CreateICmpNE(exp32, b->getInt32(0));
  llvm::Value* sig = b->CreateOr(b->CreateAnd(a, 0x7FFFFF),
                                 b->CreateSelect(is_f32_normal, b->getInt32(0x800000), b->getInt32(0)));
  llvm::Value* e_eff = b->CreateSelect(is_f32_normal, exp32, b->getInt32(1));
  llvm::Value* shift = b->CreateSub(b->getInt32(1 - f.bias - m + 150), e_eff);
  shift = b->CreateSelect(b->CreateICmpSLT(shift, b->getInt32(1)), b->getInt32(1), shift);
  shift = b->CreateSelect(b->CreateICmpSGT(shift, b->getInt32(31)), b->getInt32(31), shift);
  llvm::Value* half_minus_one = b->CreateSub(b->CreateShl(b->getInt32(1), b->CreateSub(shift, b->getInt32(1))), b->getInt32(1));
  llvm::Value* sub_lsb = b->CreateAnd(b->CreateLShr(sig, shift), 1);
  llvm::Value* mag_sub = b->CreateLShr(b->CreateAdd(sig, b->CreateAdd(half_minus_one, sub_lsb)), shift);
  const uint32_t min_normal_bits = uint32_t(127 + 1 - f.bias) << 23;
  llvm::Value* mag = b->CreateSelect(b->CreateICmpULT(a, b->getInt32(min_normal_bits)), mag_sub, mag_normal);
  llvm::Value* overflow = b->CreateOr(is_inf, b->CreateICmpUGT(mag, b->getInt32(MaxFiniteBits(f))));
  llvm::Value* sign_bit = b->CreateShl(sign, e + m);
  uint32_t overflow_bits = 0;
  llvm::Value* overflow_value = nullptr;
  switch (f.specials) {
    case SpecialValues::kIeee:
      overflow_value = b->CreateOr(sign_bit, b->getInt32(Mask(e) << m));
      break;
    case SpecialValues::kFiniteNoNan:
      overflow_value = b->CreateOr(sign_bit, b->getInt32(MaxFiniteBits(f)));
      break;
    case SpecialValues::kFiniteNan:
      overflow_value = b->CreateOr(sign_bit, b->getInt32(NanBits(f)));
      break;
    case SpecialValues::kUnsignedZeroNan:
    case SpecialValues::kExponentOnly:
      overflow_bits = NanBits(f);
      overflow_value = b->getInt32(overflow_bits);
      break;
  }
  llvm::Value* result = b->CreateOr(sign_bit, mag);
  if (f.specials == SpecialValues::kUnsignedZeroNan) {
    result = b->CreateSelect(b->CreateICmpEQ(mag, b->getInt32(0)), b->getInt32(0), result);
  }
  result = b->CreateSelect(overflow, overflow_value, result);
  result = b->CreateSelect(is_nan, b->getInt32(NanBits(f)), result);
  return b->CreateTrunc(result, b->getIntNTy(StorageBits(f)));
}

llvm::Type* FloatComputeType(PrimitiveType type, llvm::LLVMContext& ctx) {
  return type == PrimitiveType::F64 ? llvm::Type::getDoubleTy(ctx) : llvm::Type::getFloatTy(ctx);
}

llvm::Value* EmitToCompute(PrimitiveType type, llvm::Value* value, llvm::IRBuilder<>* b) {
  if (!IsNarrowFloat(type)) return value;
  return EmitNarrowToF32(FloatFormatOf(type), value, b);
}

llvm::Value* EmitFromCompute(PrimitiveType type, llvm::Value* value, llvm::IRBuilder<>* b) {
  if (!IsNarrowFloat(type)) return value;
  return EmitF32ToNarrow(FloatFormatOf(type), value, b);
}

namespace {

// Float (any width, already in compute type) -> float type `to`.
llvm::Value* FloatToFloat(llvm::Value* x, PrimitiveType to, llvm::IRBuilder<>* b) {
  if (to == PrimitiveType::F64) return b->CreateFPExt(x, b->getDoubleTy());
  if (x->getType()->isDoubleTy()) x = b->CreateFPTrunc(x, b->getFloatTy());
  return EmitFromCompute(to, x, b);
}

// Integer magnitude -> f32 rounded to odd at 24 bits, so that one more RNE
// rounding to a format of at most 22 significand bits is the correct one.
llvm::Value* IntegerToF32RoundOdd(llvm::Value* v64, bool is_signed, llvm::IRBuilder<>* b) {
  llvm::Value* negative = is_signed ? b->CreateICmpSLT(v64, b->getInt64(0)) : b->getFalse();
  llvm::Value* mag = b->CreateSelect(negative, b->CreateNeg(v64), v64);
  llvm::Function* ctlz = llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(),
                                                         llvm::Intrinsic::ctlz, {b->getInt64Ty()});
  llvm::Value* len = b->CreateSub(b->getInt64(64), b->CreateCall(ctlz, {mag, b->getFalse()}));
  llvm::Value* shift = b->CreateSub(len, b->getInt64(24));
  shift = b->CreateSelect(b->CreateICmpSLT(shift, b->getInt64(0)), b->getInt64(0), shift);
  llvm::Value* dropped = b->CreateAnd(mag, b->CreateSub(b->CreateShl(b->getInt64(1), shift), b->getInt64(1)));
  llvm::Value* q = b->CreateOr(b->CreateLShr(mag, shift),
                               b->CreateZExt(b->CreateICmpNE(dropped, b->getInt64(0)), b->getInt64Ty()));
  llvm::Value* f = b->CreateUIToFP(q, b->getFloatTy());  // q < 2^24: exact
  llvm::Value* scale = b->CreateBitCast(
      b->CreateShl(b->CreateAdd(b->CreateTrunc(shift, b->getInt32Ty()), b->getInt32(127)), 23),
      b->getFloatTy());
  f = b->CreateFMul(f, scale);  // power of two, exact
  return b->CreateSelect(negative, b->CreateFNeg(f), f);
}

llvm::Value* IntegerToFloat(llvm::Value* v, bool is_signed, PrimitiveType to, llvm::IRBuilder<>* b) {
  llvm::LLVMContext& ctx = b->getContext();
  if (to == PrimitiveType::F32 || to == PrimitiveType::F64) {
    return is_signed ? b->CreateSIToFP(v, ElementIrType(to, ctx))
                     : b->CreateUIToFP(v, ElementIrType(to, ctx));
  }
  llvm::Value* v64 = is_signed ? b->CreateSExt(v, b->getInt64Ty()) : b->CreateZExt(v, b->getInt64Ty());
  return EmitF32ToNarrow(FloatFormatOf(to), IntegerToF32RoundOdd(v64, is_signed, b), b);
}

llvm::Value* FloatToInteger(llvm::Value* x, PrimitiveType to, llvm::IRBuilder<>* b) {
  llvm::Type* int_type = ElementIrType(to, b->getContext());
  const llvm::Intrinsic::ID id =
      IsSignedInt(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
  llvm::Function* fn = llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(), id,
                                                       {int_type, x->getType()});
  return b->CreateCall(fn, {x});
}

}  // namespace

llvm::Value* EmitConvert(PrimitiveType from, PrimitiveType to, llvm::Value* value,
                         llvm::IRBuilder<>* b) {
  XLA_CHECK(!IsComplex(from) && !IsComplex(to) && IsArrayType(from) && IsArrayType(to))
      << "convert " << PrimitiveTypeName(from) << " -> " << PrimitiveTypeName(to);
  if (from == to) return value;
  llvm::Type* to_type = ElementIrType(to, b->getContext());
  if (IsFloat(from)) {
    llvm::Value* x = EmitToCompute(from, value, b);
    if (IsFloat(to)) return FloatToFloat(x, to, b);
    if (IsPred(to)) {
      return b->CreateZExt(b->CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0)), to_type);
    }
    return FloatToInteger(x, to, b);
  }
  const bool is_signed = IsSignedInt(from);
  if (IsFloat(to)) return IntegerToFloat(value, is_signed, to, b);
  if (IsPred(to)) {
    return b->CreateZExt(b->CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0)), to_type);
  }
  return is_signed ? b->CreateSExtOrTrunc(value, to_type) : b->CreateZExtOrTrunc(value, to_type);
}

}  // namespace xla::gpu
