// --cuda_graphs=on|off, shared by `xla_aot run` and `xla_aot bench`: whether
// Execute submits runs of kernel, memset and copy thunks as CUDA graphs
// (ExecuteOptions::cuda_graphs; graph_runner.h). On by default; devices
// without graphs (host, an old driver) launch plainly either way.
//
// Thread-safety: plain functions over their arguments.
#ifndef XLA_TOOLS_CUDA_GRAPHS_FLAG_H_
#define XLA_TOOLS_CUDA_GRAPHS_FLAG_H_

#include <string>

#include "xla/aot/executable.h"

namespace xla::cli {

#define XLA_AOT_CUDA_GRAPHS_FLAG_HELP                                              \
  "  --cuda_graphs=on|off  submit runs of kernel, memset and copy thunks as CUDA\n" \
  "                        graphs built at the first run (default on; host and\n"   \
  "                        drivers without the graph API launch plainly)\n"

// When `arg` is --cuda_graphs=..., sets `*on` and returns true (`*error`
// says what is wrong with the value, else stays empty); false for any
// other argument.
bool ParseCudaGraphsFlag(const std::string& arg, bool* on, std::string* error);

// One line for bench: "cuda graphs: on, 3 graphs of 41 nodes per run (3
// instantiated, 12 node updates)", or "cuda graphs: off (--cuda_graphs=off)",
// or "cuda graphs: off (<why>)".
std::string DescribeCudaGraphs(const aot::CudaGraphStats& stats, bool requested);

}  // namespace xla::cli

#endif  // XLA_TOOLS_CUDA_GRAPHS_FLAG_H_
