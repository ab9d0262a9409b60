// `xla_aot eval`: run an HLO module on the reference evaluator.
//
//   xla_aot eval FILE.hlo --input=a.npy --input=b.npy --output_dir=DIR
//   xla_aot eval FILE.hlo --random_inputs --seed=7 --print
//   xla_aot eval FILE.hlo --replicas=4 --input=a.npy --output_dir=DIR
//
// With --replicas=N the module runs on N replicas (times its num_partitions)
// in lockstep on the replicated evaluator (the oracle for collectives): each
// --input file has a leading dimension of the participant count (slice d for
// participant d), --random_inputs draws each participant's inputs from its
// own seed (participant 0 uses --seed itself), and each output file gets the
// participants' results stacked along a new leading dimension.
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

// Reads one .npy per entry parameter (token parameters take none and get a
// token) and converts it to the parameter's
// shape. Errors name the parameter, the expected and the given shape.
absl::StatusOr<std::vector<Literal>> LoadInputs(const HloModule& module,
                                                const std::vector<std::string>& paths);

}  // namespace xla::cli

#endif  // XLA_TOOLS_EVAL_COMMAND_H_
