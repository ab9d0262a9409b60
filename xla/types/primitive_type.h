// Primitive (element) types of HLO shapes: one table, read everywhere.
//
// XLA_PRIMITIVE_TYPES(X) lists every type once as
//   X(Enum, "text name", bit width, kind, float format)
// The text name is what HLO text uses (`f32`, `bf16`, `f8e4m3fn`, ...). The bit
// width is the storage width of one element (sub-byte types are stored one per
// byte in literals; see literal.h). All functions here are pure and
// thread-safe.
#ifndef XLA_TYPES_PRIMITIVE_TYPE_H_
#define XLA_TYPES_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

#include "xla/types/float_format.h"

namespace xla {

enum class TypeKind {
  kPred,
  kSigned,
  kUnsigned,
  kFloat,
  kComplex,
  kToken,
  kTuple,
  kOpaque,
  kBuffer,  // b(shape): a mutable buffer wrapping one array shape
};

// Columns: enum, name, bits, kind, float format (kNone unless kFloat/kComplex).
#define XLA_PRIMITIVE_TYPES(X)                                        \
  X(PRED, "pred", 8, kPred, kNone)                                    \
  X(S1, "s1", 1, kSigned, kNone)                                      \
  X(S2, "s2", 2, kSigned, kNone)                                      \
  X(S4, "s4", 4, kSigned, kNone)                                      \
  X(S8, "s8", 8, kSigned, kNone)                                      \
  X(S16, "s16", 16, kSigned, kNone)                                   \
  X(S32, "s32", 32, kSigned, kNone)                                   \
  X(S64, "s64", 64, kSigned, kNone)                                   \
  X(U1, "u1", 1, kUnsigned, kNone)                                    \
  X(U2, "u2", 2, kUnsigned, kNone)                                    \
  X(U4, "u4", 4, kUnsigned, kNone)                                    \
  X(U8, "u8", 8, kUnsigned, kNone)                                    \
  X(U16, "u16", 16, kUnsigned, kNone)                                 \
  X(U32, "u32", 32, kUnsigned, kNone)                                 \
  X(U64, "u64", 64, kUnsigned, kNone)                                 \
  X(F16, "f16", 16, kFloat, kF16)                                     \
  X(BF16, "bf16", 16, kFloat, kBF16)                                  \
  X(F32, "f32", 32, kFloat, kF32)                                     \
  X(F64, "f64", 64, kFloat, kF64)                                     \
  X(F8E5M2, "f8e5m2", 8, kFloat, kF8E5M2)                             \
  X(F8E4M3, "f8e4m3", 8, kFloat, kF8E4M3)                             \
  X(F8E4M3FN, "f8e4m3fn", 8, kFloat, kF8E4M3FN)                       \
  X(F8E4M3FNUZ, "f8e4m3fnuz", 8, kFloat, kF8E4M3FNUZ)                 \
  X(F8E5M2FNUZ, "f8e5m2fnuz", 8, kFloat, kF8E5M2FNUZ)                 \
  X(F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, kFloat, kF8E4M3B11FNUZ)        \
  X(F8E3M4, "f8e3m4", 8, kFloat, kF8E3M4)                             \
  X(F8E8M0FNU, "f8e8m0fnu", 8, kFloat, kF8E8M0FNU)                    \
  X(F4E2M1FN, "f4e2m1fn", 4, kFloat, kF4E2M1FN)                       \
  X(C64, "c64", 64, kComplex, kF32)                                   \
  X(C128, "c128", 128, kComplex, kF64)                                \
  X(TOKEN, "token", 0, kToken, kNone)                                 \
  X(TUPLE, "tuple", 0, kTuple, kNone)                                 \
  X(OPAQUE_TYPE, "opaque", 0, kOpaque, kNone)                         \
  X(BUFFER, "b", 0, kBuffer, kNone)

enum class PrimitiveType : uint8_t {
#define XLA_PT_ENUM_(e, name, bits, kind, fmt) e,
  XLA_PRIMITIVE_TYPES(XLA_PT_ENUM_)
#undef XLA_PT_ENUM_
};

inline constexpr int kPrimitiveTypeCount = 0
#define XLA_PT_COUNT_(e, name, bits, kind, fmt) +1
    XLA_PRIMITIVE_TYPES(XLA_PT_COUNT_)
#undef XLA_PT_COUNT_
    ;

// The HLO text name, e.g. "bf16".
absl::string_view PrimitiveTypeName(PrimitiveType type);
// Inverse of PrimitiveTypeName; nullopt for unknown names.
std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name);

TypeKind KindOf(PrimitiveType type);
// Storage width of one element in bits (0 for token, tuple, opaque).
int BitWidth(PrimitiveType type);
// Bytes one element takes in a dense buffer: ceil(bits/8), sub-byte types take
// one byte each (0 for token, tuple, opaque).
int ByteWidth(PrimitiveType type);
// The float format of a float type, or of each component of a complex type.
FloatFormatId FloatFormatOf(PrimitiveType type);

inline bool IsFloat(PrimitiveType t) { return KindOf(t) == TypeKind::kFloat; }
inline bool IsComplex(PrimitiveType t) { return KindOf(t) == TypeKind::kComplex; }
inline bool IsSignedInt(PrimitiveType t) { return KindOf(t) == TypeKind::kSigned; }
inline bool IsUnsignedInt(PrimitiveType t) { return KindOf(t) == TypeKind::kUnsigned; }
inline bool IsInteger(PrimitiveType t) { return IsSignedInt(t) || IsUnsignedInt(t); }
inline bool IsPred(PrimitiveType t) { return KindOf(t) == TypeKind::kPred; }

// Whether converting any value of `from` to the float type `to` gives that
// value back exactly (NaNs stay NaN): integers whose magnitude bits fit
// `to`'s significand, and floats that `to` holds at full precision and
// range (every encoding of a float of 16 bits or fewer is checked). False
// when `to` is not a float type. Pure.
bool ConvertsExactly(PrimitiveType from, PrimitiveType to);
// True for types that hold numbers or booleans in dense arrays.
inline bool IsArrayType(PrimitiveType t) {
  TypeKind k = KindOf(t);
  return k != TypeKind::kToken && k != TypeKind::kTuple && k != TypeKind::kOpaque &&
         k != TypeKind::kBuffer;
}
// For complex types, the component type (C64 -> F32); otherwise `t`.
PrimitiveType ComplexComponentType(PrimitiveType t);

}  // namespace xla

#endif  // XLA_TYPES_PRIMITIVE_TYPE_H_
