// The compile flags of `xla_aot compile` (kCompileHelp) as one mapping onto
// aot::CompileOptions, shared by the command line and the Python package
// (python/xla_aot_module.cc), so that both spell and check every option the
// same way.
//
//   aot::CompileOptions options;
//   std::optional<std::string> error = ApplyCompileFlag("--opt_level=2", &options);
//   absl::Status s = ApplyCompileOption("no_fusion", "true", &options);
//
// Thread-safety: pure functions of their arguments.
#ifndef XLA_TOOLS_COMPILE_FLAGS_H_
#define XLA_TOOLS_COMPILE_FLAGS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/aot/compile.h"

namespace xla::cli {

// Applies one command-line flag ("--no_fusion", "--opt_level=2", ...) that
// sets a CompileOptions field. Returns nullopt when `arg` is not such a flag
// (the caller's own flags: -o, -v, the module file), otherwise an error
// message for a bad value, or "" when it applied.
std::optional<std::string> ApplyCompileFlag(const std::string& arg, aot::CompileOptions* options);

// Applies one option named as a flag without its dashes, as keyword
// arguments do (`xla_aot.compile(hlo, opt_level=2, no_fusion=True)`).
// Switches (flags without a value: "no_fusion", "emit_collectives", ...)
// take "true" (the flag given) or "false" (the default); every other option
// takes its flag's value text ("2", "x86-64-v3,none", "2026-11-30").
// InvalidArgument naming the option for an unknown name ("unknown compile
// option 'x'") or a bad value (the command line's message).
absl::Status ApplyCompileOption(absl::string_view name, absl::string_view value,
                                aot::CompileOptions* options);

}  // namespace xla::cli

#endif  // XLA_TOOLS_COMPILE_FLAGS_H_
