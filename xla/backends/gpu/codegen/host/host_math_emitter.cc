#include "xla/backends/gpu/codegen/host/host_math_emitter.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Intrinsics.h"

namespace xla::gpu {
namespace {

llvm::Value* F(llvm::Type* type, double v) { return llvm::ConstantFP::get(type, v); }

// 2^k for integers k in [-126, 127] given as f32 values: the exponent field.
llvm::Value* PowerOfTwo(llvm::Value* k, llvm::Type* int_type, llvm::IRBuilder<>* b) {
  llvm::Value* biased = b->CreateAdd(b->CreateFPToSI(k, int_type),
                                     llvm::ConstantInt::get(int_type, 127), "", true, true);
  return b->CreateBitCast(b->CreateShl(biased, llvm::ConstantInt::get(int_type, 23)),
                          k->getType());
}

}  // namespace

llvm::Value* HostMathEmitter::Exp(llvm::Value* x, llvm::IRBuilder<>* b) const {
  llvm::Type* type = x->getType();
  if (!type->getScalarType()->isFloatTy()) return MathEmitter::Exp(x, b);
  llvm::Type* int_type = b->getInt32Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(type)) {
    int_type = llvm::VectorType::get(int_type, vector->getElementCount());
  }
  // Clamp (NaN passes through both selects and is restored at the end).
  llvm::Value* v = b->CreateSelect(b->CreateFCmpOGT(x, F(type, 89.0)), F(type, 89.0), x);
  v = b->CreateSelect(b->CreateFCmpOLT(v, F(type, -104.0)), F(type, -104.0), v);
  llvm::Function* floor =
      llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(), llvm::Intrinsic::floor,
                                      {type});
  llvm::Value* n = b->CreateCall(
      floor, {b->CreateFAdd(b->CreateFMul(v, F(type, 1.4426950408889634)), F(type, 0.5))});
  // ln2 = kLn2Hi + kLn2Lo; kLn2Hi has 9 significant bits, so n * kLn2Hi is
  // exact for |n| <= 2^15.
  constexpr double kLn2Hi = 0.693359375;
  constexpr double kLn2Lo = -2.12194440054690582e-4;
  llvm::Value* r = b->CreateFSub(v, b->CreateFMul(n, F(type, kLn2Hi)));
  r = b->CreateFSub(r, b->CreateFMul(n, F(type, kLn2Lo)));
  // Horner for 2 exp(r): 2 + r(2 + r(1 + r(2/6 + r(2/24 + r(2/120 +
  // r(2/720 + r 2/5040)))))). Doubling every coefficient doubles every
  // intermediate exactly, so this is bit for bit twice the polynomial.
  constexpr double kCoefficients[] = {2.0 / 5040, 2.0 / 720, 2.0 / 120, 2.0 / 24,
                                      2.0 / 6,    1.0,       2.0,       2.0};
  llvm::Value* p2 = F(type, kCoefficients[0]);
  for (size_t i = 1; i < sizeof(kCoefficients) / sizeof(kCoefficients[0]); ++i) {
    p2 = b->CreateFAdd(b->CreateFMul(p2, r), F(type, kCoefficients[i]));
  }
  // The scaling by 2^n (n in [-150, 128]) never computes a subnormal
  // value: an instruction with a subnormal result costs a microcode assist
  // (it made the softmax exp loop 3x slower, docs/perf.md), and softmax
  // rows meet one for every element far below the row's maximum.
  //   n >= -125: q = 2p * 2^(n-1), one normal factor (2^128, for n = 128,
  //     is not a float, 2^127 is); q is normal (p >= 0.7) and rounds once,
  //     to infinity above FLT_MAX.
  //   n <= -126: q = 2p * 2^(n+148) = p * 2^(n+149) is a normal float below
  //     2^24, and the result's bit pattern is the integer rint(q) (m bits
  //     read as a float are m * 2^-149 for m < 2^24, across the boundary to
  //     the normal range too): one rounding, no subnormal arithmetic.
  llvm::Value* tiny = b->CreateFCmpOLT(n, F(type, -125.0));
  llvm::Value* e =
      b->CreateSelect(tiny, b->CreateFAdd(n, F(type, 148.0)), b->CreateFSub(n, F(type, 1.0)));
  llvm::Value* q = b->CreateFMul(p2, PowerOfTwo(e, int_type, b));
  llvm::Function* rint =
      llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(), llvm::Intrinsic::rint,
                                      {type});
  llvm::Value* bits = b->CreateBitCast(b->CreateFPToSI(b->CreateCall(rint, {q}), int_type), type);
  llvm::Value* result = b->CreateSelect(tiny, bits, q);
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, result);
}

llvm::Value* HostMathEmitter::Tanh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  llvm::Type* type = x->getType();
  if (!type->getScalarType()->isFloatTy()) return MathEmitter::Tanh(x, b);
  llvm::Function* fabs = llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(),
                                                         llvm::Intrinsic::fabs, {type});
  llvm::Value* a = b->CreateCall(fabs, {x});
  // |x| < 0.5: the odd Taylor series to x^17 (the next term is below 1e-9
  // of x there), no cancellation.
  constexpr double kSeries[] = {-929569.0 / 638512875,  21844.0 / 6081075, -1382.0 / 155925,
                                62.0 / 2835,           -17.0 / 315,        2.0 / 15,
                                -1.0 / 3,              1.0};
  llvm::Value* x2 = b->CreateFMul(x, x);
  llvm::Value* p = F(type, kSeries[0]);
  for (size_t i = 1; i < sizeof(kSeries) / sizeof(kSeries[0]); ++i) {
    p = b->CreateFAdd(b->CreateFMul(p, x2), F(type, kSeries[i]));
  }
  llvm::Value* small = b->CreateFMul(p, x);
  // Otherwise 1 - 2 / (exp(2|x|) + 1) with the sign of x (exp saturates to
  // infinity above 44, giving exactly 1).
  llvm::Value* e = Exp(b->CreateFMul(a, F(type, 2.0)), b);
  llvm::Value* large =
      b->CreateFSub(F(type, 1.0), b->CreateFDiv(F(type, 2.0), b->CreateFAdd(e, F(type, 1.0))));
  llvm::Function* copysign = llvm::Intrinsic::getDeclaration(
      b->GetInsertBlock()->getModule(), llvm::Intrinsic::copysign, {type});
  large = b->CreateCall(copysign, {large, x});
  llvm::Value* result = b->CreateSelect(b->CreateFCmpOLT(a, F(type, 0.5)), small, large);
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, result);
}

const HostMathEmitter& GetHostMathEmitter() {
  static const HostMathEmitter* const kEmitter = new HostMathEmitter();
  return *kEmitter;
}

}  // namespace xla::gpu
