// Value ranges for --random_inputs from a benchmark's MODULE.inputs.json
// (benchmarks/models/gen/gen_broad.py writes them; benchmarks/
// xla_cpu_baseline.py draws XLA:CPU's inputs from them):
//
//   {"params": [null, {"low": -0.125, "high": 0.125}, {"low": 0, "high": 64}]}
//
// one entry per entry parameter: null keeps the default draw, a range draws
// floats uniform in [low, high) and integers in [low, high)
// (MakeRandomLiteralInRange). `xla_aot eval` and `xla_aot run` take
// --input_ranges=FILE.json, or find MODULE.inputs.json beside the module
// (eval: FILE.hlo; run: the --reference module, else the artifact), and
// --input_ranges=none turns that off.
//
// Thread-safety: pure functions (they read files).
#ifndef XLA_TOOLS_INPUT_RANGES_H_
#define XLA_TOOLS_INPUT_RANGES_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/types/literal.h"

namespace xla::cli {

#define XLA_AOT_INPUT_RANGES_FLAG_HELP                                               \
  "  --input_ranges=FILE.json  per-parameter ranges for --random_inputs\n"           \
  "                        ({\"params\": [null, {\"low\": L, \"high\": H}, ...]}, as\n" \
  "                        benchmarks/models/gen/gen_broad.py writes them); by\n"    \
  "                        default MODULE.inputs.json beside the module is used\n"   \
  "                        when it exists; `none` draws every parameter the\n"       \
  "                        default way\n"

// [low, high) for one parameter.
struct InputRange {
  double low = 0;
  double high = 0;
};

// One entry per entry parameter; nullopt: the default draw.
using InputRanges = std::vector<std::optional<InputRange>>;

// When `arg` is --input_ranges=VALUE, stores VALUE ("none" or a path) in
// `*value` and returns true (`*error` set for an empty value); false for any
// other argument.
bool ParseInputRangesFlag(const std::string& arg, std::string* value, std::string* error);

// Parses `path`. Errors name the file and what is wrong: unreadable, not
// JSON, no "params" list, an entry that is neither null nor an object with
// numeric "low" < "high".
absl::StatusOr<InputRanges> ReadInputRanges(const std::string& path);

// Which ranges file applies: "" for `flag` == "none"; `flag` when given;
// else the first of `modules` (paths of .hlo or .xaot files, "" skipped)
// whose STEM.inputs.json exists; else "".
std::string FindInputRangesFile(const std::string& flag, const std::vector<std::string>& modules);

// Redraws every input whose parameter has a range, from the seed the
// default draw uses (seed * 1000003 + i). `inputs` holds one literal per
// parameter; a file with another count fails naming `path` and both counts,
// as does a range that does not suit the parameter (e.g. no integer in it).
// Token parameters must have a null entry.
absl::Status ApplyInputRanges(const InputRanges& ranges, const std::string& path, uint64_t seed,
                              std::vector<Literal>* inputs);

// For the subcommands: when --random_inputs drew `inputs`, applies the ranges
// file FindInputRangesFile picks (if any) and notes it on `log`.
absl::Status ApplyInputRangesFor(const std::string& flag, const std::vector<std::string>& modules,
                                 uint64_t seed, std::vector<Literal>* inputs, std::ostream& log);

}  // namespace xla::cli

#endif  // XLA_TOOLS_INPUT_RANGES_H_
