#include "xla/types/primitive_type.h"

#include <array>
#include <cmath>

namespace xla {
namespace {

struct TypeInfo {
  absl::string_view name;
  int bits;
  TypeKind kind;
  FloatFormatId format;
};

constexpr std::array<TypeInfo, kPrimitiveTypeCount> kTypes = {{
#define XLA_PT_INFO_(e, name, bits, kind, fmt) \
  {name, bits, TypeKind::kind, FloatFormatId::fmt},
    XLA_PRIMITIVE_TYPES(XLA_PT_INFO_)
#undef XLA_PT_INFO_
}};

const TypeInfo& Info(PrimitiveType t) { return kTypes[static_cast<int>(t)]; }

}  // namespace

absl::string_view PrimitiveTypeName(PrimitiveType type) { return Info(type).name; }

std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name) {
  for (int i = 0; i < kPrimitiveTypeCount; ++i) {
    if (kTypes[i].name == name) return static_cast<PrimitiveType>(i);
  }
  return std::nullopt;
}

TypeKind KindOf(PrimitiveType type) { return Info(type).kind; }
int BitWidth(PrimitiveType type) { return Info(type).bits; }
int ByteWidth(PrimitiveType type) { return (Info(type).bits + 7) / 8; }
FloatFormatId FloatFormatOf(PrimitiveType type) { return Info(type).format; }

bool ConvertsExactly(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  if (!IsFloat(to)) return false;
  const FloatFormatId to_format = FloatFormatOf(to);
  const int precision = GetFloatFormat(to_format).mantissa_bits + 1;
  if (IsInteger(from)) return BitWidth(from) - (IsSignedInt(from) ? 1 : 0) <= precision;
  if (!IsFloat(from)) return false;
  if (BitWidth(from) > 16) return from == PrimitiveType::F32 && to == PrimitiveType::F64;
  const FloatFormatId from_format = FloatFormatOf(from);
  for (uint64_t bits = 0; bits < (uint64_t{1} << BitWidth(from)); ++bits) {
    const double v = DecodeFloat(from_format, bits);
    if (std::isnan(v)) continue;
    const double back = RoundToFormat(to_format, v);
    if (back != v || std::signbit(back) != std::signbit(v)) return false;
  }
  return true;
}

PrimitiveType ComplexComponentType(PrimitiveType t) {
  if (t == PrimitiveType::C64) return PrimitiveType::F32;
  if (t == PrimitiveType::C128) return PrimitiveType::F64;
  return t;
}

}  // namespace xla
