#include "xla/tools/replicated_run.h"

#include "absl/strings/str_cat.h"
#include "xla/aot/replicated_execution.h"
#include "xla/util/status_macros.h"

namespace xla::tools {

absl::StatusOr<std::vector<Literal>> RunReplicated(aot::Executable& executable,
                                                   int64_t num_replicas,
                                                   absl::Span<const Literal> stacked_inputs,
                                                   absl::Duration collective_timeout) {
  aot::ReplicatedExecutionOptions options;
  options.num_replicas = num_replicas;
  options.collective_timeout = collective_timeout;
  ASSIGN_OR_RETURN(std::unique_ptr<aot::ReplicatedExecutor> exec,
                   aot::ReplicatedExecutor::Create(executable, options));
  std::vector<std::vector<Literal>> args(num_replicas);
  for (size_t p = 0; p < stacked_inputs.size(); ++p) {
    ASSIGN_OR_RETURN(std::vector<Literal> slices,
                     UnstackLeading(stacked_inputs[p], num_replicas, absl::StrCat("input ", p)));
    for (int64_t r = 0; r < num_replicas; ++r) args[r].push_back(std::move(slices[r]));
  }
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> results, exec->RunOnLiterals(args));
  std::vector<Literal> stacked;
  const size_t leaves = results.empty() ? 0 : results[0].size();
  for (size_t k = 0; k < leaves; ++k) {
    std::vector<Literal> parts;
    for (int64_t r = 0; r < num_replicas; ++r) parts.push_back(std::move(results[r][k]));
    ASSIGN_OR_RETURN(Literal s, StackLeading(parts, absl::StrCat("output ", k)));
    stacked.push_back(std::move(s));
  }
  return stacked;
}

}  // namespace xla::tools
