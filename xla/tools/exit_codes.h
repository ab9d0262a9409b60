// Exit codes shared by every xla_aot subcommand.
#ifndef XLA_TOOLS_EXIT_CODES_H_
#define XLA_TOOLS_EXIT_CODES_H_

namespace xla::cli {

inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitBadInput = 1;  // a file does not parse, verify, compile or run
inline constexpr int kExitUsage = 2;     // unknown subcommand or flag, missing argument
inline constexpr int kExitMismatch = 3;  // results differ from the reference (run --reference)

}  // namespace xla::cli

#endif  // XLA_TOOLS_EXIT_CODES_H_
