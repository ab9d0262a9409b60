#include "xla/backends/gpu/ffi/ffi_attribute_parser.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The element types a number may carry, once.
struct NumericType {
  absl::string_view name;
  bool is_float;
  int bits;
  bool is_unsigned;
};

constexpr NumericType kNumericTypes[] = {
    {"i8", false, 8, false},    {"i16", false, 16, false},  {"i32", false, 32, false},
    {"i64", false, 64, false},  {"si8", false, 8, false},   {"si16", false, 16, false},
    {"si32", false, 32, false}, {"si64", false, 64, false}, {"ui8", false, 8, true},
    {"ui16", false, 16, true},  {"ui32", false, 32, true},  {"ui64", false, 64, true},
    {"f16", true, 16, false},   {"bf16", true, 16, false},  {"f32", true, 32, false},
    {"f64", true, 64, false},
};

const NumericType* FindNumericType(absl::string_view name) {
  for (const NumericType& t : kNumericTypes) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

constexpr NumericType kDefaultInt = {"i64", false, 64, false};
constexpr NumericType kDefaultFloat = {"f64", true, 64, false};

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view instruction)
      : text_(text), instruction_(instruction) {}

  absl::StatusOr<ffi::Attributes> Run() {
    ffi::Attributes out;
    SkipWs();
    RETURN_IF_ERROR(Expect('{', "'{' to open the attribute dictionary"));
    SkipWs();
    if (Consume('}')) return Finish(std::move(out));
    while (true) {
      SkipWs();
      attribute_.clear();
      const size_t name_at = pos_;
      ASSIGN_OR_RETURN(std::string name, ParseName());
      attribute_ = name;
      SkipWs();
      RETURN_IF_ERROR(Expect('=', "'=' after the attribute name"));
      SkipWs();
      ASSIGN_OR_RETURN(ffi::AttributeValue value, ParseValue());
      if (!out.emplace(name, std::move(value)).second) {
        return ErrorAt(name_at, "the attribute appears twice");
      }
      SkipWs();
      if (Consume(',')) continue;
      attribute_.clear();
      RETURN_IF_ERROR(Expect('}', "',' or '}' after an attribute"));
      return Finish(std::move(out));
    }
  }

 private:
  absl::StatusOr<ffi::Attributes> Finish(ffi::Attributes out) {
    SkipWs();
    if (pos_ != text_.size()) return Error("unexpected text after the closing '}'");
    return out;
  }

  absl::Status ErrorAt(size_t at, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call '", instruction_, "': backend_config offset ", at,
        attribute_.empty() ? "" : absl::StrCat(" (attribute '", attribute_, "')"), ": ", what));
  }
  absl::Status Error(absl::string_view what) const { return ErrorAt(pos_, what); }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void SkipWs() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  absl::Status Expect(char c, absl::string_view what) {
    if (Consume(c)) return absl::OkStatus();
    return Error(absl::StrCat("expected ", what, ", got ", Describe()));
  }
  std::string Describe() const {
    if (AtEnd()) return "the end of the text";
    return absl::StrCat("'", text_.substr(pos_, 1), "'");
  }
  absl::string_view Word() {
    const size_t start = pos_;
    while (!AtEnd() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  absl::StatusOr<std::string> ParseName() {
    if (Peek() == '"') return ParseString();
    if (!IsNameStart(Peek())) {
      return Error(absl::StrCat("expected an attribute name, got ", Describe()));
    }
    const size_t start = pos_;
    while (!AtEnd() && IsNameChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  absl::StatusOr<std::string> ParseString() {
    const size_t start = pos_;
    RETURN_IF_ERROR(Expect('"', "'\"'"));
    std::string out;
    while (true) {
      if (AtEnd()) return ErrorAt(start, "unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (AtEnd()) return ErrorAt(start, "unterminated string");
      const char e = text_[pos_++];
      if (e == '\\' || e == '"') {
        out.push_back(e);
      } else if (e == 'n') {
        out.push_back('\n');
      } else if (e == 't') {
        out.push_back('\t');
      } else if (std::isxdigit(static_cast<unsigned char>(e)) && std::isxdigit(static_cast<unsigned char>(Peek()))) {
        out.push_back(static_cast<char>(std::stoi(std::string{e, text_[pos_++]}, nullptr, 16)));
      } else {
        return ErrorAt(pos_ - 2, absl::StrCat("unknown escape '\\", std::string(1, e), "' in a string"));
      }
    }
  }

  // A number as written: sign, digits, '.', exponent, hex digits, "inf"/"nan".
  absl::string_view NumberToken() {
    const size_t start = pos_;
    if (Peek() == '-' || Peek() == '+') ++pos_;
    const bool hex = text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X";
    while (!AtEnd()) {
      const char c = text_[pos_];
      const char prev = pos_ > start ? text_[pos_ - 1] : '\0';
      const bool exponent_sign = !hex && (c == '+' || c == '-') && (prev == 'e' || prev == 'E');
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && !exponent_sign) break;
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  // An optional `: type` after a scalar.
  absl::StatusOr<std::optional<NumericType>> ParseTypeSuffix() {
    SkipWs();
    if (!Consume(':')) return std::optional<NumericType>();
    SkipWs();
    const size_t at = pos_;
    return ParseTypeName(at);
  }

  absl::StatusOr<std::optional<NumericType>> ParseTypeName(size_t at) {
    const absl::string_view word = Word();
    const NumericType* t = FindNumericType(word);
    if (t == nullptr) {
      return ErrorAt(at, absl::StrCat("unsupported element type '", word,
                                      "' (expected i8..i64, si8..si64, ui8..ui64, f16, bf16, f32 "
                                      "or f64)"));
    }
    return std::optional<NumericType>(*t);
  }

  // An integer token's value as the signed/unsigned integer `type` allows.
  absl::StatusOr<int64_t> ToInteger(absl::string_view token, size_t at, const NumericType& type) {
    bool negative = false;
    absl::string_view digits = token;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    int base = 10;
    if (digits.size() > 2 && (digits.substr(0, 2) == "0x" || digits.substr(0, 2) == "0X")) {
      base = 16;
      digits.remove_prefix(2);
    }
    uint64_t magnitude = 0;
    if (digits.empty()) return ErrorAt(at, absl::StrCat("expected an integer, got '", token, "'"));
    for (char c : digits) {
      const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                    : (base == 16 && std::isxdigit(static_cast<unsigned char>(c)))
                        ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                        : -1;
      if (d < 0) return ErrorAt(at, absl::StrCat("expected an integer, got '", token, "'"));
      if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / base) {
        return ErrorAt(at, absl::StrCat("value ", token, " does not fit ", type.name));
      }
      magnitude = magnitude * base + d;
    }
    // The type's range, as [-lo_magnitude, hi].
    const uint64_t hi = type.is_unsigned ? (type.bits == 64 ? uint64_t{INT64_MAX} : (uint64_t{1} << type.bits) - 1)
                                         : (uint64_t{1} << (type.bits - 1)) - 1;
    const uint64_t lo_magnitude = type.is_unsigned ? 0 : uint64_t{1} << (type.bits - 1);
    if (negative ? magnitude > lo_magnitude : magnitude > hi) {
      return ErrorAt(at, absl::StrCat("value ", token, " does not fit ", type.name,
                                      type.is_unsigned && type.bits == 64 && !negative
                                          ? " (stored as i64)"
                                          : ""));
    }
    if (!negative) return static_cast<int64_t>(magnitude);
    return magnitude == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                            : -static_cast<int64_t>(magnitude);
  }

  absl::StatusOr<double> ToFloat(absl::string_view token, size_t at, const NumericType& type) {
    const bool hex = token.size() > 2 && (token.substr(0, 2) == "0x" || token.substr(0, 2) == "0X");
    if (hex) {
      // A bit pattern, as MLIR prints NaNs and infinities.
      uint64_t bits = 0;
      for (char c : token.substr(2)) {
        if (!std::isxdigit(static_cast<unsigned char>(c)) || bits >> 60 != 0) {
          return ErrorAt(at, absl::StrCat("bad hexadecimal bit pattern '", token, "'"));
        }
        bits = bits * 16 + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
      }
      if (type.bits == 64) {
        double d;
        std::memcpy(&d, &bits, sizeof(d));
        return d;
      }
      if (type.bits == 32 && bits <= 0xFFFFFFFFu) {
        const uint32_t b32 = static_cast<uint32_t>(bits);
        float f;
        std::memcpy(&f, &b32, sizeof(f));
        return static_cast<double>(f);
      }
      if (type.name == "bf16" && bits <= 0xFFFFu) {
        const uint32_t b32 = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &b32, sizeof(f));
        return static_cast<double>(f);
      }
      return ErrorAt(at, absl::StrCat("hexadecimal bit pattern '", token, "' is not a ", type.name));
    }
    double d = 0;
    if (!absl::SimpleAtod(token, &d)) {
      return ErrorAt(at, absl::StrCat("expected a number, got '", token, "'"));
    }
    return d;
  }

  static bool LooksFloat(absl::string_view token) {
    if (token.size() > 2 && (token.substr(0, 2) == "0x" || token.substr(0, 2) == "0X")) return false;
    for (char c : token) {
      if (c == '.' || c == 'e' || c == 'E' || c == 'i' || c == 'n') return true;  // inf, nan
    }
    return false;
  }

  absl::StatusOr<ffi::AttributeValue> ParseScalar() {
    const size_t at = pos_;
    const absl::string_view token = NumberToken();
    if (token.empty() || token == "-" || token == "+") {
      return ErrorAt(at, absl::StrCat("expected a value (true, false, a number, a string or "
                                      "array<...>), got ",
                                      Describe()));
    }
    ASSIGN_OR_RETURN(std::optional<NumericType> type, ParseTypeSuffix());
    if (!type.has_value()) type = LooksFloat(token) ? kDefaultFloat : kDefaultInt;
    if (type->is_float) {
      ASSIGN_OR_RETURN(double d, ToFloat(token, at, *type));
      return ffi::AttributeValue(d);
    }
    if (LooksFloat(token)) {
      return ErrorAt(at, absl::StrCat("value ", token, " is not an integer but has type ", type->name));
    }
    ASSIGN_OR_RETURN(int64_t i, ToInteger(token, at, *type));
    return ffi::AttributeValue(i);
  }

  absl::StatusOr<ffi::AttributeValue> ParseArray() {
    RETURN_IF_ERROR(Expect('<', "'<' after 'array'"));
    SkipWs();
    ASSIGN_OR_RETURN(std::optional<NumericType> type, ParseTypeName(pos_));
    std::vector<int64_t> ints;
    std::vector<double> floats;
    SkipWs();
    if (Consume(':')) {
      while (true) {
        SkipWs();
        const size_t at = pos_;
        const absl::string_view token = NumberToken();
        if (token.empty()) return Error(absl::StrCat("expected an array element, got ", Describe()));
        if (static_cast<int64_t>(ints.size() + floats.size()) >= ffi::kMaxAttributeArrayElements) {
          return ErrorAt(at, absl::StrCat("array has more than ", ffi::kMaxAttributeArrayElements,
                                          " elements"));
        }
        if (type->is_float) {
          ASSIGN_OR_RETURN(double d, ToFloat(token, at, *type));
          floats.push_back(d);
        } else {
          if (LooksFloat(token)) {
            return ErrorAt(at, absl::StrCat("element ", token, " is not an integer but the array is ",
                                            type->name));
          }
          ASSIGN_OR_RETURN(int64_t i, ToInteger(token, at, *type));
          ints.push_back(i);
        }
        SkipWs();
        if (!Consume(',')) break;
      }
    }
    SkipWs();
    RETURN_IF_ERROR(Expect('>', "',' or '>' in the array"));
    if (type->is_float) return ffi::AttributeValue(std::move(floats));
    return ffi::AttributeValue(std::move(ints));
  }

  absl::StatusOr<ffi::AttributeValue> ParseValue() {
    if (Peek() == '"') {
      ASSIGN_OR_RETURN(std::string s, ParseString());
      return ffi::AttributeValue(std::move(s));
    }
    if (IsNameStart(Peek())) {
      const size_t at = pos_;
      const absl::string_view word = Word();
      if (word == "true" || word == "false") return ffi::AttributeValue(word == "true");
      if (word == "array") return ParseArray();
      if (word == "inf" || word == "nan") {
        pos_ = at;
        return ParseScalar();
      }
      return ErrorAt(at, absl::StrCat("unsupported attribute value '", word,
                                      "' (expected true, false, a number, a string or array<...>)"));
    }
    if (Peek() == '{' || Peek() == '[') {
      return Error("nested dictionaries and lists are not supported FFI attributes");
    }
    return ParseScalar();
  }

  absl::string_view text_;
  absl::string_view instruction_;
  size_t pos_ = 0;
  std::string attribute_;  // the attribute being read, for errors
};

}  // namespace

absl::StatusOr<ffi::Attributes> ParseFfiAttributes(absl::string_view text,
                                                   absl::string_view instruction) {
  return Parser(text, instruction).Run();
}

}  // namespace xla::gpu
