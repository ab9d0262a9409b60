// TextCursor: a position in HLO text with the lexical rules the parser needs.
//
// It skips whitespace, `// line` and `/* block */` comments (including
// `/*index=5*/`), reads integers with int64 overflow checks, floats, quoted
// strings with C escapes, names and words, and builds errors of the form
// `file:line:col: message`. It never reads past the end of the text.
// Not thread-safe; one cursor per parse.
#ifndef XLA_HLO_PARSER_TEXT_CURSOR_H_
#define XLA_HLO_PARSER_TEXT_CURSOR_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla {

struct TextLocation {
  int64_t line = 1;
  int64_t column = 1;
};

class TextCursor {
 public:
  TextCursor(absl::string_view text, absl::string_view filename)
      : text_(text), filename_(filename) {}

  // Skips whitespace and comments. An unterminated block comment is an error.
  absl::Status SkipWhitespace();

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  absl::string_view text() const { return text_; }
  absl::string_view Remaining() const { return text_.substr(pos_); }
  void Advance(size_t n = 1) { pos_ = std::min(text_.size(), pos_ + n); }

  // After skipping whitespace: consumes `c` if it is next.
  bool TryConsume(char c);
  // After skipping whitespace: consumes `s` if it is next.
  bool TryConsume(absl::string_view s);
  // Like TryConsume, but an error naming `what` when `c` is not next.
  absl::Status Expect(char c, absl::string_view what);
  absl::Status Expect(absl::string_view s, absl::string_view what);

  // The next word ([A-Za-z0-9_.$-]+, optionally after '%') without consuming.
  absl::string_view PeekWord() const;
  // Reads a name: optional '%', then a word that starts with a letter, '_'
  // or a digit. Errors when none is present.
  absl::StatusOr<std::string> ParseName(absl::string_view what);
  // Reads a bare word ([A-Za-z0-9_.$-]+).
  absl::StatusOr<std::string> ParseWord(absl::string_view what);
  // Reads a decimal integer with optional sign; errors on int64 overflow.
  absl::StatusOr<int64_t> ParseInt(absl::string_view what);
  // Reads a decimal or hex (0x...) unsigned integer up to 2^64-1.
  absl::StatusOr<uint64_t> ParseUint(absl::string_view what);
  // Reads a float: decimal/exponent forms, inf, nan, optional sign, and
  // `nan(0x<payload>)`. `payload` (if non-null) receives the NaN payload or 0.
  absl::StatusOr<double> ParseFloat(absl::string_view what, uint64_t* payload = nullptr);
  // Reads "..." and returns its unescaped contents.
  absl::StatusOr<std::string> ParseString(absl::string_view what);
  // Reads "..." and returns it verbatim, quotes included.
  absl::StatusOr<std::string> ParseStringVerbatim(absl::string_view what);
  // Reads a balanced {...}, (...) or [...] group verbatim (strings inside may
  // contain brackets). Nesting deeper than kMaxDepth is an error.
  absl::StatusOr<std::string> ParseBalancedVerbatim(absl::string_view what);

  TextLocation Location() const { return LocationOf(pos_); }
  // Line and column of `pos` (clamped to the text). Amortized O(distance
  // from the previous query) when queries move forward, as the parser's do.
  TextLocation LocationOf(size_t pos) const;
  // `file:line:col: message` at the current position / at `pos`.
  absl::Status Error(absl::string_view message) const { return ErrorAt(pos_, message); }
  absl::Status ErrorAt(size_t pos, absl::string_view message) const;

  static constexpr int kMaxDepth = 512;

 private:
  absl::string_view text_;
  std::string filename_;
  size_t pos_ = 0;
  // The last LocationOf answer, where the next forward query starts.
  mutable size_t located_pos_ = 0;
  mutable TextLocation located_;
};

// True for characters that may appear in names and words.
inline bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-' || c == '$';
}

}  // namespace xla

#endif  // XLA_HLO_PARSER_TEXT_CURSOR_H_
