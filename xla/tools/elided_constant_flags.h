// --elided_constants=error|zeros|random and --elided_constants_seed=N, the
// flags `xla_aot compile`, `xla_aot eval` and `xla_aot run --reference`
// share: what to do with constants whose values the HLO text elided
// (`constant({...})`; xla/hlo/transforms/elided_constant_filler.h).
//
// Thread-safety: pure functions, except that the parse helper reads a file.
#ifndef XLA_TOOLS_ELIDED_CONSTANT_FLAGS_H_
#define XLA_TOOLS_ELIDED_CONSTANT_FLAGS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/elided_constant_filler.h"

namespace xla::cli {

#define XLA_AOT_ELIDED_CONSTANT_FLAGS_HELP                                          \
  "  --elided_constants=M  constants the text elided (`constant({...})`, as\n"     \
  "                        dumped benchmark programs print large ones): error\n"   \
  "                        (default) refuses the module naming the first one;\n"   \
  "                        zeros or random invent their values (random: floats\n"  \
  "                        in [-1,1), integers in [0,8), pred a coin, drawn per\n" \
  "                        constant from its name, shape and the seed, so\n"       \
  "                        compile, eval and run --reference agree bit for bit).\n" \
  "                        Results are then not the real model's\n"                \
  "  --elided_constants_seed=N  the seed of --elided_constants=random (default 0)\n"

// The two flags as given; unset: the command's default (error and 0, or
// for `run --reference` what the artifact recorded).
struct ElidedConstantFlags {
  std::optional<ElidedConstantsMode> mode;
  std::optional<uint64_t> seed;
};

// Whether `arg` is one of the two flags; when it is and its value is bad,
// `*error` gets the message (else stays empty).
bool ParseElidedConstantFlag(const std::string& arg, ElidedConstantFlags* flags,
                             std::string* error);

// Reads and parses the HLO file `path`, then fills its elided constants as
// `mode` and `seed` say (FillElidedConstants, its errors naming path:line).
// `invented` (may be null) receives the names of the constants filled.
// Errors: unreadable file, parse errors, the filler's errors.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloFileFillingElided(
    const std::string& path, ElidedConstantsMode mode, uint64_t seed,
    std::vector<std::string>* invented);

}  // namespace xla::cli

#endif  // XLA_TOOLS_ELIDED_CONSTANT_FLAGS_H_
