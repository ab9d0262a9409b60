// `xla_aot bench`: time a compiled artifact.
//
//   xla_aot bench FILE.xaot [--iterations=N] [--warmup=N]
//                           [--input=A.npy ...|--random_inputs [--seed=N]]
//
// Loads the artifact once, uploads the inputs once (borrowed by every run),
// runs --warmup untimed runs, then --iterations timed runs (wall time of
// Execute, no tracing), then --iterations traced runs (ThunkTracer) for the
// per-thunk breakdown. Prints the median, min, p10, p90 and max of the
// timed runs; the own time per thunk kind (sum and share); and, for each
// kernel, GEMM and copy thunk, its median time per run and achieved bytes/s (the
// sizes of the slices it reads and writes) and, for GEMMs, FLOP/s
// (2*M*N*K*batch). Returns kExitOk, kExitBadInput (artifact, inputs or a
// run failed) or kExitUsage. Thread-compatible.
//
// Also the shared device-run helpers `xla_aot run --trace` uses.
#ifndef XLA_TOOLS_BENCH_COMMAND_H_
#define XLA_TOOLS_BENCH_COMMAND_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/thunk_trace.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/tools/tensor_io.h"
#include "xla/types/literal.h"

namespace xla::cli {

extern const char kBenchHelp[];

int RunBench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The inputs --input / --random_inputs describe for `shape`: random leaves
// seeded by seed*1000003+i, or each .npy converted to its parameter's
// type. InvalidArgument when the count or a file does not match.
absl::StatusOr<std::vector<Literal>> MakeInputs(const TensorIoFlags& flags, const ProgramShape& shape);

// An executable initialized on device 0 of its target's platform, with its
// inputs uploaded once (in the parameters' layouts) for repeated runs.
// Thread-compatible: one Run at a time.
struct DeviceRunner {
  std::unique_ptr<aot::Executable> exe;                      // initialized on `device`
  stream_executor::StreamExecutor* device = nullptr;         // not owned
  std::vector<stream_executor::OwningDeviceMemory> inputs;  // one per parameter
  // ExecuteOptions::cuda_graphs for every Run (traced runs launch plainly).
  bool cuda_graphs = true;

  // Loads and validates `artifact`, initializes it and uploads `inputs`.
  // Fails as Executable::LoadFromFile / Initialize, or InvalidArgument for
  // inputs of the wrong count or shape.
  static absl::StatusOr<DeviceRunner> Create(const std::string& artifact,
                                             const std::vector<Literal>& inputs,
                                             const aot::LoadOptions& load = {});
  // Runs once with the uploaded inputs (borrowed), recording into `tracer`
  // when given; the outputs are freed. Fails as Executable::Execute.
  absl::Status Run(gpu::ThunkTracer* tracer = nullptr);
};

}  // namespace xla::cli

#endif  // XLA_TOOLS_BENCH_COMMAND_H_
