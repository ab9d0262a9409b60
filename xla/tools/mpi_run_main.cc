// xla_aot_mpi_run: runs a host artifact as one replica per MPI process.
//
//   mpirun -np N xla_aot_mpi_run F.xaot [--input=stacked.npy ...]
//       [--output_dir=DIR] [--print] [--timeout_s=S]
//
// Every process loads the artifact, takes slice <world rank> of every
// stacked input (leading dimension N, as `xla_aot run --replicas=N`), runs
// with an MpiCommunicator (mpi_communicator.h) as its collective context
// (replica id = device id = world rank), and process 0 gathers every result
// leaf and writes it stacked (DIR/out0.npy, ...: the layout of
// `xla_aot run --replicas=N`).
//
// A process that fails prints "rank <r>: <error>" to stderr and aborts the
// whole job (MPI_Abort, exit code 1): its peers may be blocked in a
// collective. A peer that never arrives at a collective gives a
// DeadlineExceeded error after --timeout_s (default 60). Exit codes: 0 ok,
// 1 a run error, 2 usage, 3 no MPI library.
//
// Optional tool: the runtime library never links it or libmpi.
#include <cstdint>
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
#include "xla/backends/gpu/runtime/collective_context.h"
#include "xla/backends/gpu/runtime/mpi_api.h"
#include "xla/backends/gpu/runtime/mpi_communicator.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/tools/replicated_run.h"
#include "xla/tools/tensor_io.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::tools {
namespace {

constexpr char kUsage[] =
    "usage: mpirun -np N xla_aot_mpi_run F.xaot [--input=stacked.npy ...] [--output_dir=DIR]\n"
    "           [--print] [--timeout_s=S]\n";

struct Flags {
  std::string artifact;
  cli::TensorIoFlags io;
  int64_t timeout_s = 60;
};

// A usage error, or "".
std::string ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string error;
    if (cli::ParseTensorIoFlag(arg, &flags->io, &error)) {
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

absl::Status Run(const Flags& flags, gpu::MpiCliques& cliques) {
  const int64_t rank = cliques.world_rank();
  const int64_t n = cliques.world_size();
  ASSIGN_OR_RETURN(std::unique_ptr<aot::Executable> exe,
                   aot::Executable::LoadFromFile(flags.artifact));
  if (exe->program().target.name != "host") {
    return absl::FailedPreconditionError(absl::StrCat(
        flags.artifact, " is for target ", exe->program().target.name,
        "; xla_aot_mpi_run runs host artifacts only"));
  }
  // Every process creates the program's cliques together, in the same
  // (sorted) order.
  std::vector<gpu::CliqueKey> keys;
  for (const std::vector<int64_t>& group : exe->program().resources.collective_groups) {
    ASSIGN_OR_RETURN(gpu::CliqueKey key, gpu::CliqueKey::Create(group));
    keys.push_back(std::move(key));
  }
  RETURN_IF_ERROR(cliques.Acquire(keys));
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
  context.communicator = [&cliques](const gpu::CliqueKey& key, int64_t device) {
    return cliques.Get(key, device);
  };
  stream_executor::host::HostExecutorOptions device_options;
  device_options.num_threads = 1;  // processes share the machine's cores
  stream_executor::host::HostExecutor device(device_options);
  std::vector<Literal> leaves;
  {
    gpu::ScopedCollectiveContext scope(&context);
    ASSIGN_OR_RETURN(leaves, aot::ExecuteOnLiterals(*exe, &device, args));
  }
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
