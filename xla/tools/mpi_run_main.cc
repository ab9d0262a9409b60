// xla_aot_mpi_run: runs an artifact as one participant per MPI process.
//
//   mpirun -np N xla_aot_mpi_run F.xaot [--input=stacked.npy ...]
//       [--output_dir=DIR] [--print] [--timeout_s=S]
//
// Every process loads the artifact, takes slice <world rank> of every
// stacked input (leading dimension N, as `xla_aot run --replicas=N`), runs
// with global device id = world rank, and process 0 gathers every result
// leaf and writes it stacked (DIR/out0.npy, ...: the layout of
// `xla_aot run --replicas=N`). Devices and collectives by platform:
//   host  a host device; collectives through MpiCommunicator
//         (mpi_communicator.h).
//   cuda  GPU <local rank> of the machine ($OMPI_COMM_WORLD_LOCAL_RANK, else
//         the world rank: one process per GPU); collectives through NCCL
//         (nccl_communicator.h), each clique's unique id broadcast over
//         MPI's world clique (HostNcclBootstrap).
//
// A process that fails prints "rank <r>: <error>" to stderr and aborts the
// whole job (MPI_Abort, exit code 1): its peers may be blocked in a
// collective. A peer that never arrives at a collective gives a
// DeadlineExceeded error after --timeout_s (default 60). Exit codes: 0 ok,
// 1 a run error (no GPU for this process, no NCCL included), 2 usage, 3 no
// MPI library.
//
// Optional tool: the runtime library never links it or libmpi.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/aot/replicated_execution.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/mpi_api.h"
#include "xla/backends/gpu/runtime/collectives/mpi_communicator.h"
#include "xla/backends/gpu/runtime/collectives/nccl_communicator.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/nccl_api.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/replicated_run.h"
#include "xla/tools/tensor_io.h"
#include "xla/tools/trust_flags.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::tools {
namespace {

constexpr char kUsage[] =
    "usage: mpirun -np N xla_aot_mpi_run F.xaot [--input=stacked.npy ...] [--output_dir=DIR]\n"
    "           [--print] [--timeout_s=S] [--trusted_key=K.pub ...] [--unsigned=POLICY]\n"
    XLA_AOT_TRUST_FLAGS_HELP;

struct Flags {
  std::string artifact;
  cli::TensorIoFlags io;
  cli::TrustFlags trust;
  int64_t timeout_s = 60;
};

// A usage error, or "".
std::string ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string error;
    if (cli::ParseTensorIoFlag(arg, &flags->io, &error) || cli::ParseTrustFlag(arg, &flags->trust, &error)) {
      if (!error.empty()) return error;
    } else if (absl::StartsWith(arg, "--timeout_s=")) {
      const std::string v = arg.substr(std::string("--timeout_s=").size());
      if (!absl::SimpleAtoi(v, &flags->timeout_s) || flags->timeout_s <= 0) {
        return absl::StrCat("bad --timeout_s value '", v, "' (a positive integer)");
      }
    } else if (absl::StartsWith(arg, "--")) {
      return absl::StrCat("unknown flag ", arg);
    } else if (flags->artifact.empty()) {
      flags->artifact = arg;
    } else {
      return absl::StrCat("a second artifact '", arg, "'");
    }
  }
  if (flags->artifact.empty()) return "no artifact given";
  if (flags->io.random_inputs) return "--random_inputs is not supported: pass stacked --input";
  return cli::CheckTensorIoFlags(flags->io);
}

// This process' device and, on CUDA, its NCCL communicators.
struct ProcessDevice {
  std::unique_ptr<stream_executor::host::HostExecutor> host;
  stream_executor::StreamExecutor* executor = nullptr;
  std::unique_ptr<gpu::HostNcclBootstrap> bootstrap;
  std::unique_ptr<gpu::NcclCliques> nccl;
};

// The GPU ordinal of this process on its machine.
int64_t LocalRank(int64_t world_rank) {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  int64_t value = 0;
  if (local != nullptr && absl::SimpleAtoi(local, &value)) return value;
  return world_rank;
}

// Opens this process' device for `exe` and creates the communicators of
// `keys` (every process calls it, with the same keys in the same order).
absl::StatusOr<ProcessDevice> OpenDevice(const aot::Executable& exe, gpu::MpiCliques& cliques,
                                         absl::Span<const gpu::CliqueKey> keys) {
  ProcessDevice device;
  const std::string& platform_name = exe.program().target.platform;
  if (platform_name == "host") {
    RETURN_IF_ERROR(cliques.Acquire(keys));
    stream_executor::host::HostExecutorOptions options;
    options.num_threads = 1;  // processes share the machine's cores
    device.host = std::make_unique<stream_executor::host::HostExecutor>(options);
    device.executor = device.host.get();
    return device;
  }
  if (platform_name != "cuda") {
    return absl::FailedPreconditionError(absl::StrCat(
        "xla_aot_mpi_run runs host and CUDA artifacts, not platform '", platform_name, "'"));
  }
  ASSIGN_OR_RETURN(stream_executor::Platform * platform,
                   stream_executor::PlatformRegistry::GetPlatform("cuda"));
  const int64_t ordinal = LocalRank(cliques.world_rank());
  if (ordinal >= platform->device_count()) {
    absl::StatusOr<stream_executor::StreamExecutor*> why = platform->GetDevice(0);
    return absl::FailedPreconditionError(absl::StrCat(
        "this process (local rank ", ordinal, ") needs GPU ", ordinal, " but the machine has ",
        platform->device_count(), why.ok() ? "" : absl::StrCat(" (", why.status().message(), ")"),
        "; start at most one process per GPU on each machine"));
  }
  ASSIGN_OR_RETURN(device.executor, platform->GetDevice(static_cast<int>(ordinal)));
  auto* gpu = dynamic_cast<stream_executor::cuda::CudaExecutor*>(device.executor);
  if (gpu == nullptr) return absl::InternalError("the cuda platform gave a non-CUDA executor");
  if (keys.empty()) return device;
  ASSIGN_OR_RETURN(const stream_executor::cuda::NcclApi* nccl,
                   stream_executor::cuda::LoadNcclApi());
  device.bootstrap = std::make_unique<gpu::HostNcclBootstrap>(cliques.world());
  device.nccl = std::make_unique<gpu::NcclCliques>(*nccl, device.bootstrap.get());
  RETURN_IF_ERROR(device.nccl->Acquire(keys, cliques.world_rank(), *gpu));
  return device;
}

absl::Status Run(const Flags& flags, gpu::MpiCliques& cliques) {
  const int64_t rank = cliques.world_rank();
  const int64_t n = cliques.world_size();
  ASSIGN_OR_RETURN(const aot::LoadOptions load, cli::LoadOptionsFromFlags(flags.trust));
  ASSIGN_OR_RETURN(std::unique_ptr<aot::Executable> exe, aot::Executable::LoadFromFile(flags.artifact, load));
  // Every process creates the program's cliques together, in the same
  // (sorted) order.
  ASSIGN_OR_RETURN(const std::vector<gpu::CliqueKey> keys, aot::ProgramCliqueKeys(exe->program()));
  ASSIGN_OR_RETURN(ProcessDevice device, OpenDevice(*exe, cliques, keys));
  std::vector<Literal> args;
  for (size_t p = 0; p < flags.io.inputs.size(); ++p) {
    ASSIGN_OR_RETURN(Literal stacked, ReadNpyFile(flags.io.inputs[p]));
    ASSIGN_OR_RETURN(std::vector<Literal> slices,
                     UnstackLeading(stacked, n, absl::StrCat("input ", p, " (",
                                                             flags.io.inputs[p], ")")));
    args.push_back(std::move(slices[rank]));
  }
  // Process `rank` is participant `rank`: replica rank / P, partition
  // rank % P for an artifact compiled for P partitions.
  ASSIGN_OR_RETURN(const int64_t partitions, aot::ProgramNumPartitions(*exe->program().root));
  if (n % partitions != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the artifact was compiled for ", partitions, " partitions but ", n,
        " processes run; start a multiple of ", partitions, " (replicas x partitions)"));
  }
  gpu::CollectiveContext context;
  context.replica_id = rank / partitions;
  context.partition_id = rank % partitions;
  context.num_partitions = partitions;
  context.run_id = 1;
  for (int64_t r = 0; r < n; ++r) context.replica_devices.push_back(r);
  // Decided once: NCCL's cliques on CUDA devices, MPI's on the host.
  if (device.nccl != nullptr) {
    context.communicator = [&device](const gpu::CliqueKey& key, int64_t id) {
      return device.nccl->Get(key, id);
    };
  } else {
    context.communicator = [&cliques](const gpu::CliqueKey& key, int64_t device) {
      return cliques.GetForStream(key, device);
    };
  }
  gpu::ExecuteOptions options;
  options.collectives = &context;
  ASSIGN_OR_RETURN(std::vector<Literal> leaves,
                   aot::ExecuteOnLiterals(*exe, device.executor, args, options));
  // Process 0 stacks every process' leaves (same shapes on every replica).
  std::vector<Literal> stacked;
  for (size_t k = 0; k < leaves.size(); ++k) {
    const int64_t bytes = static_cast<int64_t>(leaves[k].data().size());
    std::vector<uint8_t> all(static_cast<size_t>(bytes * n));
    RETURN_IF_ERROR(cliques.world()->AllGather(2, leaves[k].data().data(), all.data(), bytes));
    std::vector<Literal> parts;
    for (int64_t r = 0; r < n; ++r) {
      Literal part(leaves[k].shape());
      if (bytes > 0) std::memcpy(part.mutable_data().data(), all.data() + r * bytes, bytes);
      parts.push_back(std::move(part));
    }
    ASSIGN_OR_RETURN(Literal s, StackLeading(parts, absl::StrCat("output ", k)));
    stacked.push_back(std::move(s));
  }
  if (rank != 0) return absl::OkStatus();
  std::vector<const Literal*> pointers;
  for (const Literal& l : stacked) pointers.push_back(&l);
  return cli::EmitResults(flags.io, pointers, std::cout);
}

int Main(int argc, char** argv) {
  Flags flags;
  const std::string usage_error = ParseFlags(argc, argv, &flags);
  if (!usage_error.empty()) {
    std::cerr << "xla_aot_mpi_run: " << usage_error << "\n" << kUsage;
    return 2;
  }
  absl::StatusOr<const gpu::MpiApi*> api = gpu::LoadMpiApi();
  if (!api.ok()) {
    std::cerr << "xla_aot_mpi_run: " << api.status().message() << "\n";
    return 3;
  }
  absl::StatusOr<std::unique_ptr<gpu::MpiCliques>> cliques =
      gpu::MpiCliques::Create(**api, absl::Seconds(flags.timeout_s));
  if (!cliques.ok()) {
    std::cerr << "xla_aot_mpi_run: " << cliques.status().message() << "\n";
    return 1;
  }
  absl::Status s = Run(flags, **cliques);
  if (!s.ok()) {
    std::cerr << "rank " << (*cliques)->world_rank() << ": " << s << std::endl;
    (*cliques)->Abort(1);
  }
  return 0;
}

}  // namespace
}  // namespace xla::tools

int main(int argc, char** argv) { return xla::tools::Main(argc, argv); }
