// `xla_aot eval`: run an HLO module on the reference evaluator.
//
//   xla_aot eval FILE.hlo --input=a.npy --input=b.npy --output_dir=DIR
//   xla_aot eval FILE.hlo --random_inputs --seed=7 --print
//
// Writes DIR/out0.npy, out1.npy, ...: one file per leaf of the result, tuples
// flattened depth-first in order. Returns kExitOk, kExitBadInput (the module
// or an input is bad, or evaluation fails: the message names the parameter or
// instruction), or kExitUsage. Thread-compatible.
#ifndef XLA_TOOLS_EVAL_COMMAND_H_
#define XLA_TOOLS_EVAL_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"

namespace xla::cli {

extern const char kEvalHelp[];

int RunEval(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Reads one .npy per entry parameter and converts it to the parameter's
// shape. Errors name the parameter, the expected and the given shape.
absl::StatusOr<std::vector<Literal>> LoadInputs(const HloModule& module,
                                                const std::vector<std::string>& paths);

}  // namespace xla::cli

#endif  // XLA_TOOLS_EVAL_COMMAND_H_
