#include "xla/aot/replicated_execution.h"

#include <algorithm>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/collective_thunk.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/util/status_macros.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

// Run ids are unique in the process.
std::atomic<int64_t> next_run_id{1};

// Checks one collective against `n` participants (replicas x partitions).
absl::Status CheckCollective(const gpu::CollectiveThunk& thunk, int64_t n) {
  const gpu::CollectiveThunk::Config& c = thunk.config();
  const std::string what = absl::StrCat(gpu::CollectiveOpName(c.op), " '",
                                        thunk.info().profile_annotation, "'");
  // Replica ids with one partition, global device ids with several.
  const bool spmd = c.num_partitions > 1;
  const std::string unit = spmd ? "participant" : "replica";
  const std::string count =
      spmd ? absl::StrCat(n, " participants (replicas x ", c.num_partitions, " partitions)")
           : absl::StrCat(n, " replicas");
  auto check_id = [&](int64_t id) -> absl::Status {
    if (id < n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        what, " names ", unit, " ", id, " but only ", count, " run; the program was compiled "
        "for more replicas (run with --replicas matching the module's replica_count)"));
  };
  for (const auto& [s, t] : c.source_target_pairs) {
    RETURN_IF_ERROR(check_id(s));
    RETURN_IF_ERROR(check_id(t));
  }
  if (c.replica_groups.empty()) return absl::OkStatus();
  std::set<int64_t> covered;
  for (const std::vector<int64_t>& g : c.replica_groups) {
    for (int64_t id : g) {
      RETURN_IF_ERROR(check_id(id));
      covered.insert(id);
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    if (covered.count(r) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": ", unit, " ", r, " of ", n, " is in no replica group; the program was "
          "compiled for fewer ", unit, "s (", covered.size(), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTree(const gpu::Thunk& thunk, int64_t n) {
  if (thunk.kind() == gpu::Thunk::Kind::kCollective) {
    RETURN_IF_ERROR(CheckCollective(static_cast<const gpu::CollectiveThunk&>(thunk), n));
  }
  for (const gpu::Thunk* child : thunk.children()) RETURN_IF_ERROR(CheckTree(*child, n));
  return absl::OkStatus();
}

// Collects the num_partitions of every collective under `thunk`.
void CollectPartitions(const gpu::Thunk& thunk, std::set<int64_t>* seen) {
  if (thunk.kind() == gpu::Thunk::Kind::kCollective) {
    seen->insert(static_cast<const gpu::CollectiveThunk&>(thunk).config().num_partitions);
  }
  for (const gpu::Thunk* child : thunk.children()) CollectPartitions(*child, seen);
}

}  // namespace

absl::StatusOr<int64_t> ProgramNumPartitions(const gpu::Thunk& root) {
  std::set<int64_t> seen;
  CollectPartitions(root, &seen);
  if (seen.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program's collectives were compiled for different partition counts (",
        absl::StrJoin(seen, ", "), "); recompile the module"));
  }
  return seen.empty() ? 1 : *seen.begin();
}

absl::StatusOr<std::vector<gpu::CliqueKey>> ProgramCliqueKeys(const gpu::Program& program) {
  // Groups listing the same members in different orders (e.g. {0,1,2} and
  // {2,1,0}) share one clique: each key once, or NCCL's bootstrap would
  // meet the same clique twice.
  std::vector<gpu::CliqueKey> keys;
  for (const std::vector<int64_t>& group : program.resources.collective_groups) {
    ASSIGN_OR_RETURN(gpu::CliqueKey key, gpu::CliqueKey::Create(group));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  return keys;
}

ReplicatedExecutor::ReplicatedExecutor(Executable& executable,
                                       const ReplicatedExecutionOptions& options)
    : executable_(executable), cliques_(options.collective_timeout) {}

ReplicatedExecutor::~ReplicatedExecutor() {
  for (const auto& device : host_devices_) executable_.ReleaseDevice(device.get());
}

absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> ReplicatedExecutor::Create(
    Executable& executable, const ReplicatedExecutionOptions& options) {
  const int64_t n = options.num_replicas;
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("replicated execution needs at least 1 "
                                                   "replica, got ", n));
  }
  const std::string& platform = executable.program().target.platform;
  if (platform != "host" && platform != "cuda") {
    return absl::FailedPreconditionError(absl::StrCat(
        "replicated execution runs host and CUDA artifacts; this one is for platform '",
        platform, "' (target ", executable.program().target.name, ")"));
  }
  ASSIGN_OR_RETURN(const int64_t partitions, ProgramNumPartitions(*executable.program().root));
  RETURN_IF_ERROR(CheckTree(*executable.program().root, n * partitions));
  std::unique_ptr<ReplicatedExecutor> exec(new ReplicatedExecutor(executable, options));
  exec->num_partitions_ = partitions;
  if (platform == "host") {
    RETURN_IF_ERROR(exec->CreateHostDevices(n * partitions, options));
  } else {
    RETURN_IF_ERROR(exec->OpenCudaDevices(n * partitions, options));
  }
  return exec;
}

absl::Status ReplicatedExecutor::CreateHostDevices(int64_t n,
                                                   const ReplicatedExecutionOptions& options) {
  se::host::HostExecutorOptions device_options;
  device_options.num_threads = std::max(1, options.threads_per_device);
  for (int64_t d = 0; d < n; ++d) {
    host_devices_.push_back(std::make_unique<se::host::HostExecutor>(device_options));
    devices_.push_back(host_devices_.back().get());
  }
  ASSIGN_OR_RETURN(const std::vector<gpu::CliqueKey> keys, ProgramCliqueKeys(executable_.program()));
  for (const gpu::CliqueKey& key : keys) {
    RETURN_IF_ERROR(cliques_.Get(key, key.devices()[0]).status());
  }
  return absl::OkStatus();
}

absl::Status ReplicatedExecutor::OpenCudaDevices(int64_t n,
                                                 const ReplicatedExecutionOptions& options) {
  se::Platform* platform = options.cuda_platform;
  if (platform == nullptr) {
    ASSIGN_OR_RETURN(platform, se::PlatformRegistry::GetPlatform("cuda"));
  }
  if (platform->device_count() < n) {
    // The platform's reason when it has no device at all (no driver).
    const absl::StatusOr<se::StreamExecutor*> first = platform->GetDevice(0);
    return absl::FailedPreconditionError(absl::StrCat(
        "the run needs ", n, " GPUs (one per replica and partition) but this machine has ",
        platform->device_count(), first.ok() ? "" : absl::StrCat(" (", first.status().message(), ")"),
        "; run fewer replicas or on a machine with more GPUs"));
  }
  ASSIGN_OR_RETURN(const std::vector<gpu::CliqueKey> keys, ProgramCliqueKeys(executable_.program()));
  std::vector<se::cuda::CudaExecutor*> gpus;
  for (int64_t d = 0; d < n; ++d) {
    ASSIGN_OR_RETURN(se::StreamExecutor * device, platform->GetDevice(static_cast<int>(d)));
    auto* gpu = dynamic_cast<se::cuda::CudaExecutor*>(device);
    if (gpu == nullptr) {
      return absl::InternalError(absl::StrCat("device ", d, " of platform cuda is not a CUDA "
                                              "executor"));
    }
    gpus.push_back(gpu);
    devices_.push_back(device);
  }
  if (keys.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(const se::cuda::NcclApi* nccl, se::cuda::LoadNcclApi());
  nccl_bootstrap_ = std::make_unique<gpu::InProcessNcclBootstrap>(options.collective_timeout);
  nccl_cliques_ = std::make_unique<gpu::NcclCliques>(*nccl, nccl_bootstrap_.get());
  // ncclCommInitRank returns only when every member calls it: one thread
  // per device.
  std::vector<absl::Status> acquired(n);
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d) {
    threads.emplace_back([&, d] { acquired[d] = nccl_cliques_->Acquire(keys, d, *gpus[d]); });
  }
  for (std::thread& t : threads) t.join();
  for (int64_t d = 0; d < n; ++d) {
    if (!acquired[d].ok()) {
      return absl::Status(acquired[d].code(),
                          absl::StrCat(ParticipantName(d), ": ", acquired[d].message()));
    }
  }
  return absl::OkStatus();
}

decltype(gpu::CollectiveContext::communicator) ReplicatedExecutor::Communicators() {
  if (nccl_cliques_ != nullptr) {
    return [this](const gpu::CliqueKey& key, int64_t device) {
      return nccl_cliques_->Get(key, device);
    };
  }
  return [this](const gpu::CliqueKey& key, int64_t device) {
    return cliques_.GetForStream(key, device);
  };
}

std::string ReplicatedExecutor::ParticipantName(int64_t d) const {
  if (num_partitions_ == 1) return absl::StrCat("replica ", d);
  return absl::StrCat("replica ", d / num_partitions_, " partition ", d % num_partitions_);
}

absl::StatusOr<std::vector<std::vector<Literal>>> ReplicatedExecutor::RunOnLiterals(
    absl::Span<const std::vector<Literal>> arguments,
    absl::Span<const gpu::HostTransferCallbacks* const> host_transfers) {
  const int64_t n = num_participants();
  if (nccl_cliques_ != nullptr && nccl_cliques_->aborted()) {
    return absl::FailedPreconditionError(
        "this replicated executor's NCCL communicators were aborted when a participant of an "
        "earlier run failed; create a new executor");
  }
  if (static_cast<int64_t>(arguments.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replicated execution on ", n, " devices got arguments for ", arguments.size(),
        num_partitions_ == 1 ? " replicas; pass one argument list per replica"
                             : " participants; pass one argument list per replica and partition"));
  }
  if (!host_transfers.empty() && static_cast<int64_t>(host_transfers.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("replicated execution on ", n,
                                                   " devices got host-transfer callbacks for ",
                                                   host_transfers.size(),
                                                   " participants; pass one per participant"));
  }
  const int64_t run_id = next_run_id.fetch_add(1);
  std::vector<gpu::CollectiveContext> contexts(n);
  std::vector<int64_t> devices(n);
  for (int64_t r = 0; r < n; ++r) devices[r] = r;
  for (int64_t r = 0; r < n; ++r) {
    contexts[r].replica_id = r / num_partitions_;
    contexts[r].partition_id = r % num_partitions_;
    contexts[r].num_partitions = num_partitions_;
    contexts[r].run_id = run_id;
    contexts[r].replica_devices = devices;
    contexts[r].communicator = Communicators();
  }
  std::vector<absl::StatusOr<std::vector<Literal>>> results(
      n, absl::StatusOr<std::vector<Literal>>(absl::UnknownError("not run")));
  // The participant whose failure aborted the NCCL communicators (its
  // peers' errors are consequences).
  std::atomic<int64_t> aborted_by{-1};
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      gpu::ExecuteOptions options;
      options.collectives = &contexts[r];
      if (!host_transfers.empty()) options.host_transfers = host_transfers[r];
      results[r] = ExecuteOnLiterals(executable_, devices_[r], arguments[r], options);
      // NCCL waits for a missing peer forever: a failed participant aborts
      // the communicators so the others stop waiting for it.
      if (!results[r].ok() && nccl_cliques_ != nullptr) {
        int64_t none = -1;
        aborted_by.compare_exchange_strong(none, r);
        nccl_cliques_->AbortAll();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  // The first replica's own failure, ahead of peers that timed out waiting
  // or were stopped by the abort.
  int64_t failed = aborted_by.load();
  if (failed < 0) {
    for (int64_t r = 0; r < n; ++r) {
      if (results[r].ok()) continue;
      if (failed < 0 || (results[failed].status().code() == absl::StatusCode::kDeadlineExceeded &&
                         results[r].status().code() != absl::StatusCode::kDeadlineExceeded)) {
        failed = r;
      }
    }
  }
  if (failed >= 0) {
    const absl::Status& s = results[failed].status();
    std::string peers;
    for (int64_t r = 0; r < n && s.code() != absl::StatusCode::kDeadlineExceeded; ++r) {
      if (r == failed || results[r].ok()) continue;
      peers = absl::StrCat("; meanwhile ", ParticipantName(r), ": ", results[r].status().message());
      break;
    }
    const char* aborted = nccl_cliques_ != nullptr && nccl_cliques_->aborted()
                              ? "; the NCCL communicators were aborted so that the other "
                                "participants stopped waiting (create a new executor)"
                              : "";
    return absl::Status(s.code(),
                        absl::StrCat(ParticipantName(failed), ": ", s.message(), peers, aborted));
  }
  std::vector<std::vector<Literal>> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace xla::aot
