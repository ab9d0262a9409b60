// `xla_aot inspect`: print what a compiled artifact holds.
//
//   xla_aot inspect FILE.xaot [--dump_kernels=DIR] [--dot=GRAPH.dot]
//
// Prints the header, the program shape, the kernel table, the allocations,
// the constants, the outputs and aliases, and the thunk tree with each
// thunk's stream and annotation. The artifact is fully validated first (an
// invalid one is reported, not printed). --dump_kernels writes every kernel
// payload to DIR: <kernel>.ptx, <kernel>.cubin, and the host shared object
// as <module>.so; --dot writes the thunk tree and buffer usage as Graphviz
// (thunk_dot.h). Returns kExitOk, kExitBadInput or kExitUsage.
// Thread-compatible.
#ifndef XLA_TOOLS_INSPECT_COMMAND_H_
#define XLA_TOOLS_INSPECT_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "xla/aot/executable.h"

namespace xla::cli {

extern const char kInspectHelp[];

// Prints what `xla_aot inspect FILE` prints for an artifact already loaded
// (under `load`, the policy the signature line describes): the signature,
// the header, the tables, the custom calls and the thunk tree. Never fails.
void PrintArtifact(const aot::Executable& exe, const aot::LoadOptions& load, std::ostream& out);

int RunInspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_INSPECT_COMMAND_H_
