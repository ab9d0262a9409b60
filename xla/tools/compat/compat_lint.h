// The lint for compatibility fallbacks and aliases (DESIGN.md section 6,
// docs/aot_compatibility.md "Lint for fallbacks and aliases").
//
// Every backward-compatibility fallback in the runtime, and every FFI handler
// or registered-kernel alias, must carry on one line:
//
//   // Backward-compatibility fallback for <what>. Can be removed in <Month YYYY> (6 months backward compatibility window).
//
// LintCompatMarkers scans source texts and reports:
//   * a line that mentions the fallback marker but is not in that form, or
//     names an unknown month ("malformed fallback comment ...");
//   * a fallback whose removal month is before `today`'s month ("past due");
//   * an alias registration (a line naming an alias, e.g. `RegisterAlias(` or
//     a `KernelAlias` table entry, with three string literals: old name, new
//     name, expiry date "YYYY-MM-DD") that
//       - has no fallback comment on one of the kAliasCommentWindow lines
//         above it,
//       - has a malformed or impossible expiry date,
//       - expired before `today`,
//       - expires in another month than its comment says.
// Lines in comments are not alias registrations.
//
// Thread-safety: pure functions.
#ifndef XLA_TOOLS_COMPAT_COMPAT_LINT_H_
#define XLA_TOOLS_COMPAT_COMPAT_LINT_H_

#include <string>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/types/span.h"

namespace xla::compat {

// How many lines above an alias registration its comment may sit.
inline constexpr int kAliasCommentWindow = 3;

struct SourceText {
  std::string path;
  std::string text;
};

struct LintFinding {
  std::string path;
  int line = 0;  // 1-based
  std::string problem;
  std::string text;  // the offending line, trimmed
};

// "<path>:<line>: <problem>: <text>".
std::string FormatFinding(const LintFinding& finding);

// The findings over `sources`, in input order; empty when everything is
// well formed and current on `today`.
std::vector<LintFinding> LintCompatMarkers(absl::Span<const SourceText> sources,
                                           absl::CivilDay today);

}  // namespace xla::compat

#endif  // XLA_TOOLS_COMPAT_COMPAT_LINT_H_
