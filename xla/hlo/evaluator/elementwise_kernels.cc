// Scalar kernels of the elementwise family: one table row per opcode.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "xla/hlo/evaluator/elementwise_internal.h"
#include "xla/hlo/evaluator/eval_util.h"
#include "xla/hlo/evaluator/numeric_util.h"
#include "xla/types/float_format.h"

namespace xla::evaluator {
namespace {

using C = std::complex<double>;

// ---- float functions (exact double in, double out) ----

double FAbs(double x) { return std::fabs(x); }
double FNeg(double x) { return -x; }
double FSign(double x) {
  if (std::isnan(x)) return x;
  return std::copysign(x != 0 ? 1.0 : 0.0, x);
}
double FExp(double x) { return std::exp(x); }
double FExpm1(double x) { return std::expm1(x); }
double FLog(double x) { return std::log(x); }
double FLog1p(double x) { return std::log1p(x); }
double FSqrt(double x) { return std::sqrt(x); }
double FRsqrt(double x) { return 1.0 / std::sqrt(x); }
double FCbrt(double x) { return std::cbrt(x); }
double FTanh(double x) { return std::tanh(x); }
double FLogistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double FSin(double x) { return std::sin(x); }
double FCos(double x) { return std::cos(x); }
double FTan(double x) { return std::tan(x); }
double FAtan(double x) { return std::atan(x); }
double FAcos(double x) { return std::acos(x); }
double FAsin(double x) { return std::asin(x); }
double FAcosh(double x) { return std::acosh(x); }
double FAsinh(double x) { return std::asinh(x); }
double FAtanh(double x) { return std::atanh(x); }
double FCosh(double x) { return std::cosh(x); }
double FSinh(double x) { return std::sinh(x); }
double FErf(double x) { return std::erf(x); }
double FFloor(double x) { return std::floor(x); }
double FCeil(double x) { return std::ceil(x); }
double FRoundAfz(double x) { return std::round(x); }
// Round half to even without depending on the FP environment.
double FRoundEven(double x) {
  if (!std::isfinite(x)) return x;
  const double r = std::floor(x);
  const double d = x - r;  // exact, in [0, 1)
  double out = r;
  if (d > 0.5 || (d == 0.5 && std::fmod(r, 2.0) != 0)) out = r + 1;
  return out == 0 ? std::copysign(0.0, x) : out;
}

double FAdd(double a, double b) { return a + b; }
double FSub(double a, double b) { return a - b; }
double FMul(double a, double b) { return a * b; }
double FDiv(double a, double b) { return a / b; }
double FRem(double a, double b) { return std::fmod(a, b); }
double FPow(double a, double b) {
  if (a == 1 || b == 0) return 1;  // also for NaN operands (as std::pow)
  return std::pow(a, b);
}
double FAtan2(double a, double b) { return std::atan2(a, b); }

// ---- complex functions ----

C CNeg(C z) { return -z; }
C CAbs(C z) { return {std::abs(z), 0.0}; }
C CSign(C z) {
  const double r = std::abs(z);
  return r == 0 ? C(0.0, 0.0) : z / r;
}
C CExp(C z) { return std::exp(z); }
C CExpm1(C z) { return std::exp(z) - 1.0; }
C CLog(C z) { return std::log(z); }
C CLog1p(C z) { return std::log(1.0 + z); }
C CSqrt(C z) { return std::sqrt(z); }
C CRsqrt(C z) { return 1.0 / std::sqrt(z); }
C CTanh(C z) { return std::tanh(z); }
C CLogistic(C z) { return 1.0 / (1.0 + std::exp(-z)); }
C CSin(C z) { return std::sin(z); }
C CCos(C z) { return std::cos(z); }
C CTan(C z) { return std::tan(z); }
C CAtan(C z) { return std::atan(z); }
C CAcos(C z) { return std::acos(z); }
C CAsin(C z) { return std::asin(z); }
C CAcosh(C z) { return std::acosh(z); }
C CAsinh(C z) { return std::asinh(z); }
C CAtanh(C z) { return std::atanh(z); }
C CCosh(C z) { return std::cosh(z); }
C CSinh(C z) { return std::sinh(z); }

C CAdd(C a, C b) { return a + b; }
C CSub(C a, C b) { return a - b; }
C CMul(C a, C b) { return a * b; }
C CDiv(C a, C b) { return a / b; }
// XLA: 1^z = z^0 = 1; inf^(r+0i) is inf for r > 0 and 0 for r < 0.
C CPow(C a, C b) {
  if (a == C(1.0, 0.0) || b == C(0.0, 0.0)) return {1.0, 0.0};
  const bool a_pos_inf = a.imag() == 0 && std::isinf(a.real()) && a.real() > 0;
  if (a_pos_inf && b.imag() == 0 && b.real() > 0) return a;
  if (a_pos_inf && b.imag() == 0 && b.real() < 0) return {0.0, 0.0};
  return std::pow(a, b);
}
// atan2(y, x) = -i * log((x + i*y) / sqrt(x^2 + y^2)), as XLA's evaluator.
C CAtan2(C y, C x) {
  const C i(0.0, 1.0);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// ---- integer functions (raw bits out; SetBits wraps to the width) ----

uint64_t INeg(const IntValue& a) { return uint64_t{0} - a.bits; }
uint64_t IAbs(const IntValue& a) { return a.is_signed && a.value < 0 ? uint64_t{0} - a.bits : a.bits; }
uint64_t ISign(const IntValue& a) {
  if (!a.is_signed) return a.bits != 0 ? 1 : 0;
  return static_cast<uint64_t>(static_cast<int64_t>(a.value > 0) - (a.value < 0));
}
uint64_t INot(const IntValue& a) { return a.is_pred ? (a.bits == 0 ? 1 : 0) : ~a.bits; }
uint64_t IPopcnt(const IntValue& a) { return static_cast<uint64_t>(__builtin_popcountll(a.bits)); }
uint64_t IClz(const IntValue& a) {
  if (a.bits == 0) return static_cast<uint64_t>(a.width);
  return static_cast<uint64_t>(a.width - (64 - __builtin_clzll(a.bits)));
}

uint64_t IAdd(const IntValue& a, const IntValue& b) { return a.bits + b.bits; }
uint64_t ISub(const IntValue& a, const IntValue& b) { return a.bits - b.bits; }
uint64_t IMul(const IntValue& a, const IntValue& b) { return a.bits * b.bits; }
// XLA: x / 0 = -1 (all ones); INT_MIN / -1 = INT_MIN.
uint64_t IDiv(const IntValue& a, const IntValue& b) {
  if (b.bits == 0) return ~uint64_t{0};
  if (!a.is_signed) return a.bits / b.bits;
  if (b.value == -1) return uint64_t{0} - a.bits;  // wraps INT_MIN to itself
  return static_cast<uint64_t>(a.value / b.value);
}
// XLA: x % 0 = x; INT_MIN % -1 = 0; otherwise C's truncating remainder.
uint64_t IRem(const IntValue& a, const IntValue& b) {
  if (b.bits == 0) return a.bits;
  if (!a.is_signed) return a.bits % b.bits;
  if (b.value == -1) return 0;
  return static_cast<uint64_t>(a.value % b.value);
}
uint64_t IMax(const IntValue& a, const IntValue& b) {
  if (a.is_signed) return a.value >= b.value ? a.bits : b.bits;
  return a.bits >= b.bits ? a.bits : b.bits;
}
uint64_t IMin(const IntValue& a, const IntValue& b) {
  if (a.is_signed) return a.value <= b.value ? a.bits : b.bits;
  return a.bits <= b.bits ? a.bits : b.bits;
}
// XLA: 1^x = x^0 = 1; a negative exponent gives 0 (unless the base is 1);
// otherwise exponentiation by squaring modulo 2^64. pred: a || !b.
uint64_t IPow(const IntValue& a, const IntValue& b) {
  if (a.is_pred) return (a.bits != 0 || b.bits == 0) ? 1 : 0;
  if (a.value == 1 || b.bits == 0) return 1;
  if (b.is_signed && b.value < 0) return 0;
  uint64_t base = a.bits, exponent = b.bits, result = 1;
  while (exponent != 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}
uint64_t IAnd(const IntValue& a, const IntValue& b) { return a.bits & b.bits; }
uint64_t IOr(const IntValue& a, const IntValue& b) { return a.bits | b.bits; }
uint64_t IXor(const IntValue& a, const IntValue& b) { return a.bits ^ b.bits; }
// Shift amounts are read as unsigned numbers of the element width; amounts
// >= the width give 0 (left, logical) or the sign fill (arithmetic).
bool ShiftOutOfRange(const IntValue& a, const IntValue& b) {
  return b.bits >= static_cast<uint64_t>(a.width);
}
uint64_t IShl(const IntValue& a, const IntValue& b) {
  return ShiftOutOfRange(a, b) ? 0 : a.bits << b.bits;
}
uint64_t IShrLogical(const IntValue& a, const IntValue& b) {
  return ShiftOutOfRange(a, b) ? 0 : a.bits >> b.bits;
}
uint64_t IShrArithmetic(const IntValue& a, const IntValue& b) {
  const int64_t v = SignExtend(a.bits, a.width);  // unsigned types shift as signed
  if (ShiftOutOfRange(a, b)) return v < 0 ? ~uint64_t{0} : 0;
  return static_cast<uint64_t>(v >> b.bits);
}

constexpr UnaryKernel kUnaryKernels[] = {
    {HloOpcode::kAbs, FAbs, CAbs, IAbs, false},
    {HloOpcode::kNegate, FNeg, CNeg, INeg, false},
    {HloOpcode::kSign, FSign, CSign, ISign, false},
    {HloOpcode::kNot, nullptr, nullptr, INot, true},
    {HloOpcode::kPopulationCount, nullptr, nullptr, IPopcnt, false},
    {HloOpcode::kClz, nullptr, nullptr, IClz, false},
    {HloOpcode::kExp, FExp, CExp, nullptr, false},
    {HloOpcode::kExpm1, FExpm1, CExpm1, nullptr, false},
    {HloOpcode::kLog, FLog, CLog, nullptr, false},
    {HloOpcode::kLog1p, FLog1p, CLog1p, nullptr, false},
    {HloOpcode::kSqrt, FSqrt, CSqrt, nullptr, false},
    {HloOpcode::kRsqrt, FRsqrt, CRsqrt, nullptr, false},
    {HloOpcode::kCbrt, FCbrt, nullptr, nullptr, false},
    {HloOpcode::kTanh, FTanh, CTanh, nullptr, false},
    {HloOpcode::kLogistic, FLogistic, CLogistic, nullptr, false},
    {HloOpcode::kSin, FSin, CSin, nullptr, false},
    {HloOpcode::kCos, FCos, CCos, nullptr, false},
    {HloOpcode::kTan, FTan, CTan, nullptr, false},
    {HloOpcode::kAtan, FAtan, CAtan, nullptr, false},
    {HloOpcode::kAcos, FAcos, CAcos, nullptr, false},
    {HloOpcode::kAsin, FAsin, CAsin, nullptr, false},
    {HloOpcode::kAcosh, FAcosh, CAcosh, nullptr, false},
    {HloOpcode::kAsinh, FAsinh, CAsinh, nullptr, false},
    {HloOpcode::kAtanh, FAtanh, CAtanh, nullptr, false},
    {HloOpcode::kCosh, FCosh, CCosh, nullptr, false},
    {HloOpcode::kSinh, FSinh, CSinh, nullptr, false},
    {HloOpcode::kErf, FErf, nullptr, nullptr, false},
    {HloOpcode::kFloor, FFloor, nullptr, nullptr, false},
    {HloOpcode::kCeil, FCeil, nullptr, nullptr, false},
    {HloOpcode::kRoundNearestAfz, FRoundAfz, nullptr, nullptr, false},
    {HloOpcode::kRoundNearestEven, FRoundEven, nullptr, nullptr, false},
};

constexpr BinaryKernel kBinaryKernels[] = {
    {HloOpcode::kAdd, FAdd, nullptr, CAdd, IAdd, true},
    {HloOpcode::kSubtract, FSub, nullptr, CSub, ISub, true},
    {HloOpcode::kMultiply, FMul, nullptr, CMul, IMul, true},
    {HloOpcode::kDivide, FDiv, nullptr, CDiv, IDiv, true},
    {HloOpcode::kRemainder, FRem, nullptr, nullptr, IRem, true},
    {HloOpcode::kPower, FPow, nullptr, CPow, IPow, true},
    {HloOpcode::kAtan2, FAtan2, nullptr, CAtan2, nullptr, false},
    {HloOpcode::kMaximum, nullptr, MaxPicksLhs, nullptr, IMax, true},
    {HloOpcode::kMinimum, nullptr, MinPicksLhs, nullptr, IMin, true},
    {HloOpcode::kAnd, nullptr, nullptr, nullptr, IAnd, true},
    {HloOpcode::kOr, nullptr, nullptr, nullptr, IOr, true},
    {HloOpcode::kXor, nullptr, nullptr, nullptr, IXor, true},
    {HloOpcode::kShiftLeft, nullptr, nullptr, nullptr, IShl, false},
    {HloOpcode::kShiftRightLogical, nullptr, nullptr, nullptr, IShrLogical, false},
    {HloOpcode::kShiftRightArithmetic, nullptr, nullptr, nullptr, IShrArithmetic, false},
};

// Stores an integer kernel result; pred results are normalized to 0/1.
void StoreInt(Literal& out, int64_t io, uint64_t bits) {
  if (IsPred(out.shape().element_type())) bits = bits != 0 ? 1 : 0;
  out.SetBits(io, bits);
}

// Writes a complex kernel result to a complex or (abs) real literal.
void StoreComplex(Literal& out, int64_t io, C z) {
  const PrimitiveType t = out.shape().element_type();
  if (IsComplex(t)) {
    SetComplexResult(out, io, z);
  } else {
    out.SetBits(io, RoundToFloatType(t, z.real()));
  }
}

}  // namespace

IntValue ReadIntValue(const Literal& literal, int64_t i) {
  const PrimitiveType t = literal.shape().element_type();
  IntValue v;
  v.bits = literal.GetBits(i);
  v.width = BitWidth(t);
  v.is_signed = IsSignedInt(t);
  v.is_pred = IsPred(t);
  v.value = v.is_signed ? SignExtend(v.bits, v.width) : static_cast<int64_t>(v.bits);
  return v;
}

const UnaryKernel* FindUnaryKernel(HloOpcode opcode) {
  for (const UnaryKernel& k : kUnaryKernels) {
    if (k.opcode == opcode) return &k;
  }
  return nullptr;
}

const BinaryKernel* FindBinaryKernel(HloOpcode opcode) {
  for (const BinaryKernel& k : kBinaryKernels) {
    if (k.opcode == opcode) return &k;
  }
  return nullptr;
}

bool KernelSupports(const UnaryKernel& kernel, PrimitiveType type) {
  switch (KindOf(type)) {
    case TypeKind::kFloat: return kernel.real != nullptr;
    case TypeKind::kComplex: return kernel.complex != nullptr;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: return kernel.integer != nullptr;
    case TypeKind::kPred: return kernel.integer != nullptr && kernel.pred_ok;
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer: return false;
  }
  return false;
}

bool KernelSupports(const BinaryKernel& kernel, PrimitiveType type) {
  switch (KindOf(type)) {
    case TypeKind::kFloat: return kernel.real != nullptr || kernel.pick_lhs != nullptr;
    case TypeKind::kComplex: return kernel.complex != nullptr;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: return kernel.integer != nullptr;
    case TypeKind::kPred: return kernel.integer != nullptr && kernel.pred_ok;
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer: return false;
  }
  return false;
}

namespace {

// Fast paths for the common native types: the same arithmetic as the generic
// path (f32 results are static_cast<float>(double), as RoundToFloatType
// does; integers wrap), without per-element type dispatch.
template <typename F>
void UnaryFloat(const UnaryKernel& k, const Literal& a, int64_t ia, Literal& out, int64_t io) {
  StoreNative<F>(out, io, static_cast<F>(k.real(static_cast<double>(LoadNative<F>(a, ia)))));
}

template <typename F>
void BinaryFloat(const BinaryKernel& k, const Literal& a, int64_t ia, const Literal& b,
                 int64_t ib, Literal& out, int64_t io) {
  const F x = LoadNative<F>(a, ia);
  const F y = LoadNative<F>(b, ib);
  if (k.pick_lhs != nullptr) {
    StoreNative<F>(out, io, k.pick_lhs(x, y) ? x : y);  // copies the encoding
    return;
  }
  StoreNative<F>(out, io, static_cast<F>(k.real(x, y)));
}

void UnaryBf16(const UnaryKernel& k, const Literal& a, int64_t ia, Literal& out, int64_t io) {
  const double x = Bf16ToF32(LoadNative<uint16_t>(a, ia));
  StoreNative<uint16_t>(out, io, F32ToBf16(static_cast<float>(k.real(x))));
}

void BinaryBf16(const BinaryKernel& k, const Literal& a, int64_t ia, const Literal& b,
                int64_t ib, Literal& out, int64_t io) {
  const uint16_t x = LoadNative<uint16_t>(a, ia);
  const uint16_t y = LoadNative<uint16_t>(b, ib);
  if (k.pick_lhs != nullptr) {
    StoreNative<uint16_t>(out, io, k.pick_lhs(Bf16ToF32(x), Bf16ToF32(y)) ? x : y);
    return;
  }
  const double r = k.real(Bf16ToF32(x), Bf16ToF32(y));
  StoreNative<uint16_t>(out, io, F32ToBf16(static_cast<float>(r)));
}

template <typename I>
IntValue NativeInt(I v) {
  IntValue r;
  r.bits = static_cast<uint64_t>(static_cast<std::make_unsigned_t<I>>(v));
  r.value = static_cast<int64_t>(v);
  r.width = static_cast<int>(sizeof(I) * 8);
  r.is_signed = std::is_signed_v<I>;
  return r;
}

template <typename I>
void UnaryInt(const UnaryKernel& k, const Literal& a, int64_t ia, Literal& out, int64_t io) {
  StoreNative<I>(out, io, static_cast<I>(k.integer(NativeInt<I>(LoadNative<I>(a, ia)))));
}

template <typename I>
void BinaryInt(const BinaryKernel& k, const Literal& a, int64_t ia, const Literal& b,
               int64_t ib, Literal& out, int64_t io) {
  const uint64_t r =
      k.integer(NativeInt<I>(LoadNative<I>(a, ia)), NativeInt<I>(LoadNative<I>(b, ib)));
  StoreNative<I>(out, io, static_cast<I>(r));
}

}  // namespace

void ApplyUnary(const UnaryKernel& kernel, PrimitiveType type, const Literal& a, int64_t ia,
                Literal& out, int64_t io) {
  if (type == PrimitiveType::F32) return UnaryFloat<float>(kernel, a, ia, out, io);
  if (type == PrimitiveType::F64) return UnaryFloat<double>(kernel, a, ia, out, io);
  if (type == PrimitiveType::BF16) return UnaryBf16(kernel, a, ia, out, io);
  if (type == PrimitiveType::S32) return UnaryInt<int32_t>(kernel, a, ia, out, io);
  if (type == PrimitiveType::S64) return UnaryInt<int64_t>(kernel, a, ia, out, io);
  if (type == PrimitiveType::U32) return UnaryInt<uint32_t>(kernel, a, ia, out, io);
  if (type == PrimitiveType::U64) return UnaryInt<uint64_t>(kernel, a, ia, out, io);
  if (IsFloat(type)) {
    out.SetBits(io, RoundToFloatType(type, kernel.real(a.GetDouble(ia))));
  } else if (IsComplex(type)) {
    StoreComplex(out, io, kernel.complex(a.GetComplex(ia)));
  } else {
    StoreInt(out, io, kernel.integer(ReadIntValue(a, ia)));
  }
}

void ApplyBinary(const BinaryKernel& kernel, PrimitiveType type, const Literal& a, int64_t ia,
                 const Literal& b, int64_t ib, Literal& out, int64_t io) {
  if (type == PrimitiveType::F32) return BinaryFloat<float>(kernel, a, ia, b, ib, out, io);
  if (type == PrimitiveType::F64) return BinaryFloat<double>(kernel, a, ia, b, ib, out, io);
  if (type == PrimitiveType::BF16) return BinaryBf16(kernel, a, ia, b, ib, out, io);
  if (type == PrimitiveType::S32) return BinaryInt<int32_t>(kernel, a, ia, b, ib, out, io);
  if (type == PrimitiveType::S64) return BinaryInt<int64_t>(kernel, a, ia, b, ib, out, io);
  if (type == PrimitiveType::U32) return BinaryInt<uint32_t>(kernel, a, ia, b, ib, out, io);
  if (type == PrimitiveType::U64) return BinaryInt<uint64_t>(kernel, a, ia, b, ib, out, io);
  if (IsFloat(type)) {
    if (kernel.pick_lhs != nullptr) {
      const bool lhs = kernel.pick_lhs(a.GetDouble(ia), b.GetDouble(ib));
      out.SetBits(io, lhs ? a.GetBits(ia) : b.GetBits(ib));
      return;
    }
    out.SetBits(io, RoundToFloatType(type, kernel.real(a.GetDouble(ia), b.GetDouble(ib))));
  } else if (IsComplex(type)) {
    StoreComplex(out, io, kernel.complex(a.GetComplex(ia), b.GetComplex(ib)));
  } else {
    StoreInt(out, io, kernel.integer(ReadIntValue(a, ia), ReadIntValue(b, ib)));
  }
}

}  // namespace xla::evaluator
