// Function lengths in C++ source text, for the house rule that no function
// in the runtime, the stream executor or xla/aot is longer than
// kMaxFunctionLines lines (issue 23; tests and fakes aside).
//
// The scan is lexical, not a C++ parser. It blanks comments, string and
// character literals (raw strings included) and preprocessor lines, then
// follows braces. A brace opened at namespace or class scope whose header
// (the text since the previous `;`, `{` or `}`) contains a `(` and does not
// end like an initializer (`=`, `,`, `(`) opens a function; its length runs
// from the first line of the header to the line of its closing brace, so a
// signature split over lines counts. Everything inside a function, lambdas
// and local classes included, belongs to it. Namespaces, `extern "C"`
// blocks, classes, structs, unions and enums are scopes, not functions.
// Brace-initialized tables at namespace scope are not functions.
//
// Known limits: a constructor whose member initializer list uses braces
// (`: a_{1}, b_(2) {`) is measured from the last of them; macros that
// expand to braces are seen as written.
//
// Thread-safety: pure functions.
#ifndef XLA_TOOLS_LINT_FUNCTION_LENGTH_H_
#define XLA_TOOLS_LINT_FUNCTION_LENGTH_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace xla::lint {

// The house limit on a function's length, in lines.
inline constexpr int kMaxFunctionLines = 100;

struct FunctionSpan {
  std::string name;  // the qualified name before the parameter list, e.g. "Foo::Bar"
  int first_line;    // 1-based line of the first character of the signature
  int last_line;     // 1-based line of the closing brace
  int lines() const { return last_line - first_line + 1; }
};

// Every function definition in `source`, in order of their closing braces.
// Unbalanced braces (a truncated file) end the scan without error: the
// functions closed so far are returned.
std::vector<FunctionSpan> FindFunctions(absl::string_view source);

// `source` with comments, string and character literals and preprocessor
// lines replaced by spaces; newlines are kept, so line numbers hold.
std::string BlankNonCode(absl::string_view source);

// "PATH:LINE: function NAME is N lines (limit L): split it into helpers".
std::string FormatLongFunction(absl::string_view path, const FunctionSpan& span, int limit);

}  // namespace xla::lint

#endif  // XLA_TOOLS_LINT_FUNCTION_LENGTH_H_
