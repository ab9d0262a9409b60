#include "xla/tools/replicated_run.h"

#include "absl/strings/str_cat.h"
#include "xla/aot/replicated_execution.h"
#include "xla/util/status_macros.h"

namespace xla::tools {

absl::StatusOr<std::vector<Literal>> RunReplicated(aot::Executable& executable,
                                                   int64_t num_replicas,
                                                   absl::Span<const Literal> stacked_inputs,
                                                   absl::Duration collective_timeout,
                                                   absl::Span<const gpu::HostTransferCallbacks* const> host_transfers) {
  aot::ReplicatedExecutionOptions options;
  options.num_replicas = num_replicas;
  options.collective_timeout = collective_timeout;
  ASSIGN_OR_RETURN(std::unique_ptr<aot::ReplicatedExecutor> exec,
                   aot::ReplicatedExecutor::Create(executable, options));
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> args,
                   UnstackArguments(stacked_inputs, exec->num_participants()));
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> results, exec->RunOnLiterals(args, host_transfers));
  std::vector<std::vector<const Literal*>> leaves;
  for (const std::vector<Literal>& replica : results) {
    leaves.emplace_back();
    for (const Literal& leaf : replica) leaves.back().push_back(&leaf);
  }
  return StackParticipantLeaves(leaves, "output");
}

}  // namespace xla::tools
