#include "xla/types/literal.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla/util/logging.h"

namespace xla {

absl::Status CheckLiteralFitsInMemory(const Shape& shape, absl::string_view what) {
  const std::optional<int64_t> bytes = shape.ByteSize();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (!bytes.has_value() || pages <= 0 || page_size <= 0) return absl::OkStatus();
  const int64_t memory = static_cast<int64_t>(pages) * page_size;
  if (*bytes <= memory) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(what, " (", shape.ToString(false), ") needs ", *bytes,
                                                   " bytes, more than this machine's ", memory,
                                                   " bytes of memory; use smaller shapes or a bigger machine"));
}
namespace {

uint64_t WidthMask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// Sign-extends the low `bits` of `v`.
int64_t SignExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t sign = 1ull << (bits - 1);
  v &= WidthMask(bits);
  return static_cast<int64_t>((v ^ sign) - sign);
}

}  // namespace

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) elements_.emplace_back(e);
    return;
  }
  if (!shape.IsArray()) return;
  element_count_ = shape.ElementCount().value_or(0);
  data_.assign(static_cast<size_t>(element_count_) * ByteWidth(shape.element_type()), 0);
}

Literal Literal::Elided(const Shape& shape) {
  Literal l;
  l.shape_ = shape;
  l.elided_ = true;
  return l;
}

uint64_t Literal::GetBits(int64_t i) const {
  const int width = ByteWidth(shape_.element_type());
  uint64_t v = 0;
  std::memcpy(&v, data_.data() + i * width, std::min(width, 8));
  return v & WidthMask(BitWidth(shape_.element_type()));
}

void Literal::SetBits(int64_t i, uint64_t bits) {
  const PrimitiveType t = shape_.element_type();
  const int width = ByteWidth(t);
  const int nbits = BitWidth(t);
  if (nbits < 8 && IsSignedInt(t)) {
    bits = static_cast<uint64_t>(SignExtend(bits, nbits)) & 0xff;
  } else {
    bits &= WidthMask(nbits);
  }
  std::memcpy(data_.data() + i * width, &bits, std::min(width, 8));
}

double Literal::GetDouble(int64_t i) const {
  const PrimitiveType t = shape_.element_type();
  switch (KindOf(t)) {
    case TypeKind::kFloat:
      return DecodeFloat(FloatFormatOf(t), GetBits(i));
    case TypeKind::kComplex:
      return GetComplex(i).real();
    case TypeKind::kUnsigned:
      return static_cast<double>(GetBits(i));
    case TypeKind::kSigned:
    case TypeKind::kPred:
      return static_cast<double>(GetInt(i));
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  XLA_CHECK(false) << "GetDouble on " << PrimitiveTypeName(t);
  return 0;
}

void Literal::SetDouble(int64_t i, double v) {
  const PrimitiveType t = shape_.element_type();
  switch (KindOf(t)) {
    case TypeKind::kFloat:
      SetBits(i, EncodeFloat(FloatFormatOf(t), v));
      return;
    case TypeKind::kComplex:
      SetComplex(i, {v, 0.0});
      return;
    case TypeKind::kPred:
      SetBits(i, v != 0 ? 1 : 0);
      return;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      if (std::isnan(v)) {
        SetBits(i, 0);
        return;
      }
      double tv = std::trunc(v);
      // Out-of-range values wrap modulo 2^64 before truncation to the width.
      uint64_t bits;
      if (tv >= 18446744073709551616.0 || tv <= -9223372036854775808.0) {
        bits = tv > 0 ? ~0ull : (1ull << 63);
      } else if (tv >= 9223372036854775808.0) {
        bits = static_cast<uint64_t>(tv);
      } else {
        bits = static_cast<uint64_t>(static_cast<int64_t>(tv));
      }
      SetBits(i, bits);
      return;
    }
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  XLA_CHECK(false) << "SetDouble on " << PrimitiveTypeName(t);
}

int64_t Literal::GetInt(int64_t i) const {
  const PrimitiveType t = shape_.element_type();
  if (IsSignedInt(t)) return SignExtend(GetBits(i), BitWidth(t));
  if (IsUnsignedInt(t) || IsPred(t)) return static_cast<int64_t>(GetBits(i));
  return static_cast<int64_t>(GetDouble(i));
}

void Literal::SetInt(int64_t i, int64_t v) {
  const PrimitiveType t = shape_.element_type();
  if (IsInteger(t)) {
    SetBits(i, static_cast<uint64_t>(v));
  } else if (IsPred(t)) {
    SetBits(i, v != 0 ? 1 : 0);
  } else {
    SetDouble(i, static_cast<double>(v));
  }
}

std::complex<double> Literal::GetComplex(int64_t i) const {
  const PrimitiveType t = shape_.element_type();
  if (!IsComplex(t)) return {GetDouble(i), 0.0};
  if (t == PrimitiveType::C64) {
    float parts[2];
    std::memcpy(parts, data_.data() + i * 8, 8);
    return {parts[0], parts[1]};
  }
  double parts[2];
  std::memcpy(parts, data_.data() + i * 16, 16);
  return {parts[0], parts[1]};
}

void Literal::SetComplex(int64_t i, std::complex<double> v) {
  const PrimitiveType t = shape_.element_type();
  if (!IsComplex(t)) {
    SetDouble(i, v.real());
    return;
  }
  if (t == PrimitiveType::C64) {
    float parts[2] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
    std::memcpy(data_.data() + i * 8, parts, 8);
    return;
  }
  double parts[2] = {v.real(), v.imag()};
  std::memcpy(data_.data() + i * 16, parts, 16);
}

int64_t Literal::LinearIndex(absl::Span<const int64_t> index) const {
  int64_t linear = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    linear = linear * shape_.dimensions(d) + index[d];
  }
  return linear;
}

std::string FloatToShortestString(PrimitiveType type, uint64_t bits) {
  const FloatFormatId fmt = FloatFormatOf(type);
  const double value = DecodeFloat(fmt, bits);
  if (std::isnan(value)) {
    const bool negative = std::signbit(value) ||
                          (GetFloatFormat(fmt).specials == SpecialValues::kIeee &&
                           (bits >> (GetFloatFormat(fmt).total_bits() - 1)) != 0);
    std::string out = negative ? "-nan" : "nan";
    uint64_t canonical = EncodeFloat(fmt, std::nan(""));
    uint64_t sign_mask = 1ull << (GetFloatFormat(fmt).total_bits() - 1);
    if ((bits & ~sign_mask) != (canonical & ~sign_mask)) {
      absl::StrAppend(&out, "(0x", absl::Hex(bits & ~sign_mask), ")");
    }
    return out;
  }
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  for (int precision = 1; precision <= 17; ++precision) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (EncodeFloat(fmt, std::strtod(buf, nullptr)) == bits) return buf;
  }
  return absl::StrFormat("%.17g", value);
}

std::string Literal::ElementToString(int64_t i) const {
  const PrimitiveType t = shape_.element_type();
  switch (KindOf(t)) {
    case TypeKind::kPred:
      return GetBits(i) ? "true" : "false";
    case TypeKind::kSigned:
      return absl::StrCat(GetInt(i));
    case TypeKind::kUnsigned:
      return absl::StrCat(GetBits(i));
    case TypeKind::kFloat:
      return FloatToShortestString(t, GetBits(i));
    case TypeKind::kComplex: {
      PrimitiveType part = ComplexComponentType(t);
      std::complex<double> c = GetComplex(i);
      return absl::StrCat("(", FloatToShortestString(part, EncodeFloat(FloatFormatOf(part), c.real())),
                          ", ",
                          FloatToShortestString(part, EncodeFloat(FloatFormatOf(part), c.imag())),
                          ")");
    }
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return "";
}

namespace {

void AppendArray(const Literal& lit, int64_t dim, int64_t* next, std::string* out) {
  const Shape& s = lit.shape();
  if (dim == s.rank()) {
    *out += lit.ElementToString((*next)++);
    return;
  }
  const bool innermost = dim + 1 == s.rank();
  *out += innermost ? "{" : "{ ";
  for (int64_t i = 0; i < s.dimensions(dim); ++i) {
    if (i > 0) *out += ", ";
    AppendArray(lit, dim + 1, next, out);
  }
  *out += innermost ? "}" : " }";
}

}  // namespace

std::string Literal::ToString() const {
  if (elided_) return "{...}";
  if (shape_.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i > 0) out += ", ";
      out += elements_[i].ToString();
    }
    return out + ")";
  }
  if (!shape_.IsArray()) return "";
  if (shape_.rank() == 0) return ElementToString(0);
  if (!shape_.is_static()) return "{...}";
  int64_t next = 0;
  std::string out;
  AppendArray(*this, 0, &next, &out);
  return out;
}

bool Literal::operator==(const Literal& o) const {
  return ShapesCompatible(shape_, o.shape_) && elided_ == o.elided_ && data_ == o.data_ &&
         elements_ == o.elements_;
}

}  // namespace xla
