#include "xla/types/npy.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xla {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

// NumPy dtype code (without byte order) for each travel type.
struct DtypeEntry {
  PrimitiveType type;
  const char* code;
};
constexpr DtypeEntry kDtypes[] = {
    {PrimitiveType::PRED, "b1"}, {PrimitiveType::S8, "i1"},   {PrimitiveType::S16, "i2"},
    {PrimitiveType::S32, "i4"},  {PrimitiveType::S64, "i8"},  {PrimitiveType::U8, "u1"},
    {PrimitiveType::U16, "u2"},  {PrimitiveType::U32, "u4"},  {PrimitiveType::U64, "u8"},
    {PrimitiveType::F16, "f2"},  {PrimitiveType::F32, "f4"},  {PrimitiveType::F64, "f8"},
    {PrimitiveType::C64, "c8"},  {PrimitiveType::C128, "c16"},
};

absl::Status Error(absl::string_view what, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", message));
}

std::string DtypeString(PrimitiveType t) {
  for (const DtypeEntry& e : kDtypes) {
    if (e.type == t) return absl::StrCat(ByteWidth(t) == 1 ? "|" : "<", e.code);
  }
  return "?";
}

std::string ShapeTuple(const std::vector<int64_t>& dims) {
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

// Finds `'key':` in the header dict and returns the text of its value.
absl::StatusOr<absl::string_view> DictValue(absl::string_view header, absl::string_view key,
                                            absl::string_view what) {
  for (const char* quote : {"'", "\""}) {
    std::string pattern = absl::StrCat(quote, key, quote);
    size_t pos = header.find(pattern);
    if (pos == absl::string_view::npos) continue;
    size_t colon = header.find(':', pos + pattern.size());
    if (colon == absl::string_view::npos) break;
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(colon + 1));
    size_t end;
    if (!rest.empty() && rest[0] == '(') {
      end = rest.find(')');
      if (end == absl::string_view::npos) break;
      ++end;
    } else {
      end = rest.find_first_of(",}");
      if (end == absl::string_view::npos) end = rest.size();
    }
    return absl::StripAsciiWhitespace(rest.substr(0, end));
  }
  return Error(what, absl::StrCat(".npy header has no '", key, "' entry"));
}

absl::StatusOr<std::vector<int64_t>> ParseShapeTuple(absl::string_view text, absl::string_view what) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    return Error(what, absl::StrCat("malformed shape ", text, " in .npy header"));
  }
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(text.substr(1, text.size() - 2), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d) || d < 0) {
      return Error(what, absl::StrCat("bad dimension '", part, "' in .npy shape ", text));
    }
    dims.push_back(d);
  }
  return dims;
}

// Reorders column-major data (Fortran order) to row-major.
void FortranToRowMajor(const std::vector<int64_t>& dims, int width, std::vector<uint8_t>* data) {
  std::vector<uint8_t> out(data->size());
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> index(rank, 0);
  const int64_t n = static_cast<int64_t>(data->size()) / std::max(width, 1);
  for (int64_t row_major = 0; row_major < n; ++row_major) {
    int64_t col_major = 0;
    for (int64_t d = rank - 1; d >= 0; --d) col_major = col_major * dims[d] + index[d];
    std::memcpy(out.data() + row_major * width, data->data() + col_major * width, width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  *data = std::move(out);
}

}  // namespace

absl::StatusOr<PrimitiveType> NpyTravelType(PrimitiveType type) {
  switch (KindOf(type)) {
    case TypeKind::kPred:
    case TypeKind::kComplex:
      return type;
    case TypeKind::kSigned:
      return BitWidth(type) < 8 ? PrimitiveType::S8 : type;
    case TypeKind::kUnsigned:
      return BitWidth(type) < 8 ? PrimitiveType::U8 : type;
    case TypeKind::kFloat:
      return type == PrimitiveType::F16 || type == PrimitiveType::F64 ? type : PrimitiveType::F32;
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("values of type ", PrimitiveTypeName(type), " cannot be stored in .npy files"));
}

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes, absl::string_view what) {
  if (bytes.size() < kMagicSize + 4 || bytes.substr(0, kMagicSize) != absl::string_view(kMagic, kMagicSize)) {
    return Error(what, "not a .npy file (bad magic)");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Error(what, "truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= size_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
    header_start = 12;
  } else {
    return Error(what, absl::StrCat("unsupported .npy format version ", int{major}));
  }
  if (header_len > bytes.size() - header_start) return Error(what, "truncated .npy header");
  absl::string_view header = bytes.substr(header_start, header_len);
  absl::string_view payload = bytes.substr(header_start + header_len);

  absl::StatusOr<absl::string_view> descr = DictValue(header, "descr", what);
  if (!descr.ok()) return descr.status();
  absl::string_view d = *descr;
  if (d.size() < 4 || (d.front() != '\'' && d.front() != '"')) {
    return Error(what, absl::StrCat("unsupported dtype ", d, " (structured dtypes are not supported)"));
  }
  d = d.substr(1, d.size() - 2);
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return Error(what, absl::StrCat("unsupported dtype '", d, "'"));
  }
  absl::string_view code = d.substr(1);
  std::optional<PrimitiveType> type;
  for (const DtypeEntry& e : kDtypes) {
    if (code == e.code) type = e.type;
  }
  if (!type) {
    return Error(what, absl::StrCat("unsupported dtype '", d,
                                    "' (supported: bool, int8..int64, uint8..uint64, float16/32/64, "
                                    "complex64/128)"));
  }
  absl::StatusOr<absl::string_view> fortran = DictValue(header, "fortran_order", what);
  if (!fortran.ok()) return fortran.status();
  absl::StatusOr<absl::string_view> shape_text = DictValue(header, "shape", what);
  if (!shape_text.ok()) return shape_text.status();
  absl::StatusOr<std::vector<int64_t>> dims = ParseShapeTuple(*shape_text, what);
  if (!dims.ok()) return dims.status();

  Shape shape = Shape::Array(*type, *dims);
  std::optional<int64_t> bytes_needed = shape.ByteSize();
  if (!bytes_needed || static_cast<uint64_t>(*bytes_needed) > payload.size()) {
    return Error(what, absl::StrCat("truncated data: shape ", ShapeTuple(*dims), " of ", d, " needs ",
                                    bytes_needed.value_or(-1), " bytes, the file has ", payload.size()));
  }
  std::vector<uint8_t> data(payload.begin(), payload.begin() + *bytes_needed);
  const int width = ByteWidth(*type);
  if (order == '>' && width > 1) {
    const int part = IsComplex(*type) ? width / 2 : width;
    for (size_t i = 0; i < data.size(); i += part) std::reverse(data.begin() + i, data.begin() + i + part);
  }
  if (*fortran == "True" && dims->size() > 1) FortranToRowMajor(*dims, width, &data);
  Literal lit(shape);
  if (!data.empty()) std::memcpy(lit.mutable_data().data(), data.data(), data.size());
  if (*type == PrimitiveType::PRED) {
    for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetBits(i, lit.GetBits(i) != 0);
  }
  return lit;
}

absl::StatusOr<Literal> ConvertNpyLiteral(const Literal& file_value, const Shape& expected,
                                          absl::string_view what) {
  if (!expected.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has shape ", expected.ToString(false), ", which .npy files cannot hold"));
  }
  absl::StatusOr<PrimitiveType> travel = NpyTravelType(expected.element_type());
  if (!travel.ok()) return travel.status();
  const Shape& got = file_value.shape();
  if (got.element_type() != *travel || got.dimensions() != expected.dimensions()) {
    Shape want = Shape::Array(*travel, expected.dimensions());
    return absl::InvalidArgumentError(absl::StrCat(
        what, " expects ", expected.ToString(false), " (a .npy of dtype ", DtypeString(*travel),
        " and shape ", ShapeTuple(expected.dimensions()), ") but the file has dtype ",
        DtypeString(got.element_type()), " and shape ", ShapeTuple(got.dimensions())));
  }
  if (*travel == expected.element_type()) return file_value;
  Literal out(Shape::Array(expected.element_type(), expected.dimensions()));
  const PrimitiveType t = expected.element_type();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (IsFloat(t)) {
      out.SetDouble(i, file_value.GetDouble(i));
      continue;
    }
    const int64_t v = file_value.GetInt(i);
    const int bits = BitWidth(t);
    const int64_t lo = IsSignedInt(t) ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t hi = IsSignedInt(t) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    if (v < lo || v > hi) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": element ", i, " is ", v,
                                                     ", outside the range of ", PrimitiveTypeName(t)));
    }
    out.SetInt(i, v);
  }
  return out;
}

absl::StatusOr<std::string> SerializeNpy(const Literal& value) {
  const Shape& shape = value.shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write a value of shape ", shape.ToString(false), " as .npy"));
  }
  absl::StatusOr<PrimitiveType> travel = NpyTravelType(shape.element_type());
  if (!travel.ok()) return travel.status();
  const Literal* source = &value;
  Literal converted;
  if (*travel != shape.element_type()) {
    converted = Literal(Shape::Array(*travel, shape.dimensions()));
    for (int64_t i = 0; i < value.element_count(); ++i) {
      if (IsFloat(*travel)) {
        converted.SetDouble(i, value.GetDouble(i));
      } else {
        converted.SetInt(i, value.GetInt(i));
      }
    }
    source = &converted;
  }
  std::string header = absl::StrCat("{'descr': '", DtypeString(*travel),
                                    "', 'fortran_order': False, 'shape': ",
                                    ShapeTuple(shape.dimensions()), ", }");
  // Pad so that magic + version + length + header is a multiple of 64.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(source->data().data()), source->data().size());
  return out;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return ParseNpy(buffer.str(), path);
}

absl::Status WriteNpyFile(const std::string& path, const Literal& value) {
  absl::StatusOr<std::string> bytes = SerializeNpy(value);
  if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", bytes.status().message()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write file"));
  return absl::OkStatus();
}

}  // namespace xla
