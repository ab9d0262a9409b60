#include "xla/tools/cuda_graphs_flag.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace xla::cli {

bool ParseCudaGraphsFlag(const std::string& arg, bool* on, std::string* error) {
  constexpr absl::string_view kFlag = "--cuda_graphs=";
  if (!absl::StartsWith(arg, kFlag)) return false;
  const std::string value = arg.substr(kFlag.size());
  if (value == "on") {
    *on = true;
  } else if (value == "off") {
    *on = false;
  } else {
    *error = absl::StrCat("bad --cuda_graphs value '", value, "' (on or off)");
  }
  return true;
}

std::string DescribeCudaGraphs(const aot::CudaGraphStats& stats, bool requested) {
  if (!requested) return "cuda graphs: off (--cuda_graphs=off)";
  if (!stats.supported) {
    return absl::StrCat("cuda graphs: off (", stats.note.empty() ? "no runs of kernels to graph" : stats.note,
                        ")");
  }
  std::string line = absl::StrCat("cuda graphs: on, ", stats.graphs, " graphs of ", stats.nodes,
                                  " nodes per run (", stats.instantiated, " instantiated, ",
                                  stats.node_updates, " node updates)");
  if (!stats.note.empty()) absl::StrAppend(&line, "; note: ", stats.note);
  return line;
}

}  // namespace xla::cli
