#include "xla/tools/lint/function_length.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xla::lint {
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Blanks [begin, end) of `text`, keeping newlines.
void Blank(std::string& text, size_t begin, size_t end) {
  for (size_t i = begin; i < end && i < text.size(); ++i) {
    if (text[i] != '\n') text[i] = ' ';
  }
}

// The end (one past) of the preprocessor line starting at `i`, following
// backslash continuations.
size_t PreprocessorEnd(const std::string& text, size_t i) {
  while (i < text.size() && text[i] != '\n') {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    ++i;
  }
  return i;
}

// The end (one past the closing quote) of the quoted literal opened at `i`.
size_t QuotedEnd(const std::string& text, size_t i) {
  const char quote = text[i];
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == quote || text[i] == '\n') {
      return i + 1;
    }
  }
  return text.size();
}

// The end of the raw string whose `R"` starts at `i`.
size_t RawStringEnd(const std::string& text, size_t i) {
  const size_t open = text.find('(', i + 2);
  if (open == std::string::npos) return text.size();
  const std::string closing = absl::StrCat(")", text.substr(i + 2, open - (i + 2)), "\"");
  const size_t close = text.find(closing, open);
  return close == std::string::npos ? text.size() : close + closing.size();
}

bool StartsRawString(const std::string& text, size_t i) {
  if (text[i] != 'R' || i + 1 >= text.size() || text[i + 1] != '"') return false;
  // R, u8R, uR, UR, LR: the prefix must not continue an identifier.
  size_t start = i;
  while (start > 0 && (text[start - 1] == 'u' || text[start - 1] == 'U' || text[start - 1] == 'L' ||
                       text[start - 1] == '8')) {
    --start;
  }
  return start == 0 || !IsIdentChar(text[start - 1]);
}

bool AtLineStart(const std::string& text, size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  return i == 0 || text[i - 1] == '\n';
}

enum class Scope { kNamespace, kClass, kFunction, kBlock };

// Drops a leading `template <...>` (repeated), access specifiers and
// attributes' neighbours from a header, so its first token says what it is.
absl::string_view StripHeaderPrefix(absl::string_view header) {
  for (bool changed = true; changed;) {
    changed = false;
    header = absl::StripLeadingAsciiWhitespace(header);
    for (absl::string_view label : {"public:", "private:", "protected:"}) {
      if (absl::ConsumePrefix(&header, label)) changed = true;
    }
    if (absl::StartsWith(header, "template") && header.size() > 8 && !IsIdentChar(header[8])) {
      size_t i = header.find('<');
      if (i == absl::string_view::npos) break;
      int depth = 0;
      for (; i < header.size(); ++i) {
        if (header[i] == '<') ++depth;
        if (header[i] == '>' && --depth == 0) break;
      }
      header.remove_prefix(i < header.size() ? i + 1 : header.size());
      changed = true;
    }
  }
  return header;
}

bool HasToken(absl::string_view text, absl::string_view token) {
  for (size_t at = text.find(token); at != absl::string_view::npos; at = text.find(token, at + 1)) {
    const bool left = at == 0 || !IsIdentChar(text[at - 1]);
    const size_t after = at + token.size();
    const bool right = after >= text.size() || !IsIdentChar(text[after]);
    if (left && right) return true;
  }
  return false;
}

// What a `{` at namespace or class scope opens, from the text before it.
Scope ClassifyHeader(absl::string_view header) {
  header = absl::StripAsciiWhitespace(StripHeaderPrefix(header));
  if (header.empty()) return Scope::kBlock;
  const size_t paren = header.find('(');
  const absl::string_view before_paren = header.substr(0, paren);
  if (HasToken(before_paren, "namespace")) return Scope::kNamespace;
  if (paren == absl::string_view::npos && absl::StartsWith(header, "extern")) return Scope::kNamespace;
  for (absl::string_view key : {"class", "struct", "union", "enum"}) {
    if (HasToken(before_paren, key)) return Scope::kClass;
  }
  if (paren == absl::string_view::npos) return Scope::kBlock;
  const char last = header.back();
  if (last == '=' || last == ',' || last == '(' || last == '[') return Scope::kBlock;
  if (HasToken(header.substr(0, 6), "return")) return Scope::kBlock;
  return Scope::kFunction;
}

std::string FunctionName(absl::string_view header) {
  header = StripHeaderPrefix(header);
  size_t end = header.find('(');
  if (end == absl::string_view::npos) return "";
  while (end > 0 && header[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && (IsIdentChar(header[begin - 1]) || header[begin - 1] == ':' ||
                       header[begin - 1] == '~')) {
    --begin;
  }
  return std::string(header.substr(begin, end - begin));
}

}  // namespace

std::string BlankNonCode(absl::string_view source) {
  std::string text(source);
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    size_t end = i;
    if (c == '/' && next == '/') {
      end = text.find('\n', i);
      if (end == std::string::npos) end = text.size();
    } else if (c == '/' && next == '*') {
      end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
    } else if (c == '#' && AtLineStart(text, i)) {
      end = PreprocessorEnd(text, i);
    } else if (StartsRawString(text, i)) {
      end = RawStringEnd(text, i);
    } else if (c == '"' || (c == '\'' && (i == 0 || !IsIdentChar(text[i - 1])))) {
      // A quote after a digit or letter is a digit separator (1'000).
      end = QuotedEnd(text, i);
    }
    if (end == i) {
      ++i;
      continue;
    }
    Blank(text, i, end);
    i = end;
  }
  return text;
}

std::vector<FunctionSpan> FindFunctions(absl::string_view source) {
  const std::string text = BlankNonCode(source);
  std::vector<FunctionSpan> functions;
  struct Open {
    Scope scope;
    FunctionSpan span;
  };
  std::vector<Open> stack;
  size_t header_start = 0;
  int line = 1;
  int header_line = 1;
  bool header_seen = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c != '{' && c != '}' && c != ';') {
      if (!header_seen && c != ' ' && c != '\t' && c != '\r') {
        header_seen = true;
        header_start = i;
        header_line = line;
      }
      continue;
    }
    if (c == '{') {
      const bool in_code = !stack.empty() &&
                           (stack.back().scope == Scope::kFunction || stack.back().scope == Scope::kBlock);
      const absl::string_view header =
          header_seen ? absl::string_view(text).substr(header_start, i - header_start) : absl::string_view();
      Open open{in_code ? Scope::kBlock : ClassifyHeader(header), {}};
      if (open.scope == Scope::kFunction) {
        // The signature starts after any template head or access label.
        const absl::string_view signature = StripHeaderPrefix(header);
        const absl::string_view prefix = header.substr(0, header.size() - signature.size());
        const int first_line = header_line + static_cast<int>(std::count(prefix.begin(), prefix.end(), '\n'));
        open.span = {FunctionName(header), first_line, line};
      }
      stack.push_back(std::move(open));
    } else if (c == '}') {
      if (stack.empty()) break;
      if (stack.back().scope == Scope::kFunction) {
        stack.back().span.last_line = line;
        functions.push_back(stack.back().span);
      }
      stack.pop_back();
    }
    header_seen = false;
  }
  return functions;
}

std::string FormatLongFunction(absl::string_view path, const FunctionSpan& span, int limit) {
  return absl::StrCat(path, ":", span.first_line, ": function ", span.name, " is ", span.lines(),
                      " lines (limit ", limit, "): split it into helpers");
}

}  // namespace xla::lint
