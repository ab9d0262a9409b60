#include "xla/hlo/parser/text_cursor.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace xla {

absl::Status TextCursor::SkipWhitespace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && Peek(1) == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && Peek(1) == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      if (end == absl::string_view::npos) return Error("unterminated /* comment");
      pos_ = end + 2;
    } else {
      break;
    }
  }
  return absl::OkStatus();
}

bool TextCursor::TryConsume(char c) {
  if (!SkipWhitespace().ok()) return false;
  if (Peek() != c) return false;
  ++pos_;
  return true;
}

bool TextCursor::TryConsume(absl::string_view s) {
  if (!SkipWhitespace().ok()) return false;
  if (Remaining().substr(0, s.size()) != s) return false;
  pos_ += s.size();
  return true;
}

absl::Status TextCursor::Expect(char c, absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  if (Peek() == c) {
    ++pos_;
    return absl::OkStatus();
  }
  if (AtEnd()) return Error(absl::StrCat("expected '", std::string(1, c), "' ", what, ", found end of file"));
  return Error(absl::StrCat("expected '", std::string(1, c), "' ", what, ", found '",
                            std::string(1, Peek()), "'"));
}

absl::Status TextCursor::Expect(absl::string_view s, absl::string_view what) {
  if (TryConsume(s)) return absl::OkStatus();
  if (AtEnd()) return Error(absl::StrCat("expected '", s, "' ", what, ", found end of file"));
  return Error(absl::StrCat("expected '", s, "' ", what));
}

absl::string_view TextCursor::PeekWord() const {
  size_t p = pos_;
  if (p < text_.size() && text_[p] == '%') ++p;
  size_t start = p;
  while (p < text_.size() && IsWordChar(text_[p])) ++p;
  return text_.substr(start, p - start);
}

absl::StatusOr<std::string> TextCursor::ParseName(absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  size_t start = pos_;
  if (Peek() == '%') ++pos_;
  size_t name_start = pos_;
  while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
  if (pos_ == name_start) {
    pos_ = start;
    return Error(absl::StrCat("expected ", what));
  }
  return std::string(text_.substr(name_start, pos_ - name_start));
}

absl::StatusOr<std::string> TextCursor::ParseWord(absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  size_t start = pos_;
  while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
  if (pos_ == start) return Error(absl::StrCat("expected ", what));
  return std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<int64_t> TextCursor::ParseInt(absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  size_t start = pos_;
  bool negative = false;
  if (Peek() == '-' || Peek() == '+') {
    negative = Peek() == '-';
    ++pos_;
  }
  if (!absl::ascii_isdigit(Peek())) {
    pos_ = start;
    return Error(absl::StrCat("expected an integer ", what));
  }
  // Accumulate as a negative number so INT64_MIN is representable.
  int64_t value = 0;
  while (absl::ascii_isdigit(Peek())) {
    int digit = Peek() - '0';
    if (value < (std::numeric_limits<int64_t>::min() + digit) / 10) {
      return ErrorAt(start, absl::StrCat("integer ", what, " overflows int64"));
    }
    value = value * 10 - digit;
    ++pos_;
  }
  if (!negative) {
    if (value == std::numeric_limits<int64_t>::min()) {
      return ErrorAt(start, absl::StrCat("integer ", what, " overflows int64"));
    }
    value = -value;
  }
  return value;
}

absl::StatusOr<uint64_t> TextCursor::ParseUint(absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  size_t start = pos_;
  int base = 10;
  if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
    base = 16;
    pos_ += 2;
  }
  uint64_t value = 0;
  size_t digits_start = pos_;
  while (true) {
    char c = Peek();
    int digit;
    if (absl::ascii_isdigit(c)) {
      digit = c - '0';
    } else if (base == 16 && absl::ascii_isxdigit(c)) {
      digit = absl::ascii_tolower(c) - 'a' + 10;
    } else {
      break;
    }
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / base) {
      return ErrorAt(start, absl::StrCat("integer ", what, " overflows uint64"));
    }
    value = value * base + digit;
    ++pos_;
  }
  if (pos_ == digits_start) {
    pos_ = start;
    return Error(absl::StrCat("expected an unsigned integer ", what));
  }
  return value;
}

absl::StatusOr<double> TextCursor::ParseFloat(absl::string_view what, uint64_t* payload) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  if (payload != nullptr) *payload = 0;
  size_t start = pos_;
  double sign = 1;
  if (Peek() == '-' || Peek() == '+') {
    if (Peek() == '-') sign = -1;
    ++pos_;
  }
  absl::string_view rest = Remaining();
  if (rest.substr(0, 3) == "inf") {
    pos_ += 3;
    return sign * std::numeric_limits<double>::infinity();
  }
  if (rest.substr(0, 3) == "nan") {
    pos_ += 3;
    if (Peek() == '(') {
      ++pos_;
      absl::StatusOr<uint64_t> p = ParseUint("NaN payload");
      if (!p.ok()) return p.status();
      if (Peek() != ')') return Error("expected ')' after NaN payload");
      ++pos_;
      if (payload != nullptr) *payload = *p;
    }
    return std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
  }
  size_t num_start = pos_;
  while (absl::ascii_isdigit(Peek()) || Peek() == '.') ++pos_;
  if (pos_ == num_start) {
    pos_ = start;
    return Error(absl::StrCat("expected a number ", what));
  }
  if (Peek() == 'e' || Peek() == 'E') {
    size_t save = pos_;
    ++pos_;
    if (Peek() == '+' || Peek() == '-') ++pos_;
    if (!absl::ascii_isdigit(Peek())) {
      pos_ = save;
    } else {
      while (absl::ascii_isdigit(Peek())) ++pos_;
    }
  }
  std::string number(text_.substr(num_start, pos_ - num_start));
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) {
    return ErrorAt(start, absl::StrCat("malformed number '", number, "' ", what));
  }
  return sign * v;
}

absl::StatusOr<std::string> TextCursor::ParseStringVerbatim(absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  if (Peek() != '"') return Error(absl::StrCat("expected a quoted string ", what));
  size_t start = pos_;
  ++pos_;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\\') ++pos_;
    ++pos_;
  }
  if (pos_ >= text_.size()) return ErrorAt(start, absl::StrCat("unterminated string ", what));
  ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<std::string> TextCursor::ParseString(absl::string_view what) {
  size_t start = pos_;
  absl::StatusOr<std::string> verbatim = ParseStringVerbatim(what);
  if (!verbatim.ok()) return verbatim.status();
  std::string out;
  std::string error;
  absl::string_view body(*verbatim);
  body = body.substr(1, body.size() - 2);
  if (!absl::CUnescape(body, &out, &error)) {
    return ErrorAt(start, absl::StrCat("bad escape in string ", what, ": ", error));
  }
  return out;
}

absl::StatusOr<std::string> TextCursor::ParseBalancedVerbatim(absl::string_view what) {
  absl::Status ws = SkipWhitespace();
  if (!ws.ok()) return ws;
  const size_t start = pos_;
  std::string stack;
  auto closer = [](char c) { return c == '{' ? '}' : c == '(' ? ')' : ']'; };
  if (Peek() != '{' && Peek() != '(' && Peek() != '[') {
    return Error(absl::StrCat("expected '{' ", what));
  }
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      absl::StatusOr<std::string> s = ParseStringVerbatim(what);
      if (!s.ok()) return s.status();
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (stack.size() >= kMaxDepth) return Error(absl::StrCat("nesting too deep in ", what));
      stack.push_back(closer(c));
    } else if (c == '}' || c == ')' || c == ']') {
      if (stack.empty() || stack.back() != c) {
        return Error(absl::StrCat("unbalanced '", std::string(1, c), "' in ", what));
      }
      stack.pop_back();
      if (stack.empty()) {
        ++pos_;
        return std::string(text_.substr(start, pos_ - start));
      }
    }
    ++pos_;
  }
  return ErrorAt(start, absl::StrCat("unterminated '", std::string(1, text_[start]), "' in ", what));
}

TextLocation TextCursor::LocationOf(size_t pos) const {
  pos = std::min(pos, text_.size());
  if (pos < located_pos_) {
    located_pos_ = 0;
    located_ = TextLocation();
  }
  TextLocation& loc = located_;
  for (size_t i = located_pos_; i < pos; ++i) {
    if (text_[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  located_pos_ = pos;
  return loc;
}

absl::Status TextCursor::ErrorAt(size_t pos, absl::string_view message) const {
  TextLocation loc = LocationOf(pos);
  return absl::InvalidArgumentError(
      absl::StrCat(filename_, ":", loc.line, ":", loc.column, ": ", message));
}

}  // namespace xla
