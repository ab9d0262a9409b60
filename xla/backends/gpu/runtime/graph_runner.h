// CUDA graphs built when an executable is loaded (command buffers, see
// xla/stream_executor/command_buffer.h): GraphPlan says which runs of
// thunks become one graph; GraphRunner holds one execution's graphs,
// builds them on first use, updates what changed and submits them.
//
// The plan (per program, made at Initialize): in every sequence of the
// thunk tree (the top level, loop bodies and conditions, conditional
// branches, async bodies), each maximal run of at least kMinGraphRun
// consecutive command thunks (Thunk::IsCommand: PTX/cubin kernel launches,
// memsets, device-to-device copies; and, when the plan is built for a
// device whose command buffers capture library calls, GEMMs and cuDNN
// convolutions: Thunk::IsCapturedCommand, each a child graph captured
// from the library, see cuda_command_buffer.h) on one stream. Everything
// else ends a run: GEMMs and convolutions on a device without the
// stream-capture API, FFTs, while and conditional thunks (their loops and branches are decided on
// the host; the driver's conditional nodes are not used), async start and
// done, custom calls, collectives, host-memory copies. A run of one thunk
// stays a plain launch: a graph launch of one node saves nothing. Nothing
// of this is serialized: the artifact is the same with graphs on or off.
//
// The runner (one per set of run resources, so one per concurrent
// execution; never shared): BeginRun(buffers) at the start of each
// execution compares the buffer table with the previous execution's; when
// an address changed every graph is marked stale. TryLaunch(thunk, params)
// at a sequence's position: when a run starts at `thunk`, builds its graph
// the first time (one node per thunk, chained, then instantiated), or for
// a stale graph recomputes each node's command and updates only the nodes
// whose command differs (cuGraphExec*NodeSetParams); then submits it on
// the run's stream (cuGraphLaunch). When addresses did not change, a
// launch is one driver call for the whole run. Graphs are built at the
// first execution, not at Initialize, because memset and copy nodes take
// device addresses the driver checks when the node is added, and the
// buffers exist only per execution (XLA:GPU records its command buffers at
// the first execution too). A graph that cannot be built (a driver error)
// is dropped for this runner with a note, and its thunks run plainly.
//
// Thread-safety: GraphPlan is immutable after Build. A GraphRunner is used
// by one execution at a time.
#ifndef XLA_BACKENDS_GPU_RUNTIME_GRAPH_RUNNER_H_
#define XLA_BACKENDS_GPU_RUNTIME_GRAPH_RUNNER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/command_buffer.h"
#include "xla/stream_executor/stream_executor.h"

namespace xla::gpu {

// Runs shorter than this stay plain launches.
inline constexpr int kMinGraphRun = 2;

// One run of command thunks that becomes one graph: a stretch of one
// sequence's thunks (a view into the sequence; all IsCommand, one stream).
struct GraphRun {
  absl::Span<const std::unique_ptr<Thunk>> thunks;
  int64_t stream_id = 0;
};

// Memory: one GraphRun and one map entry per run, nothing per thunk (the
// executable builds it at its first Initialize, not at load).
class GraphPlan {
 public:
  // The runs of `root`'s tree (see above); `root` must outlive the plan.
  // `capture_library_calls`: GEMMs and convolutions join runs
  // (StreamExecutor::CommandBuffersCaptureLibraryCalls of the device).
  // Never fails.
  static GraphPlan Build(const Thunk& root, bool capture_library_calls = false);

  const std::vector<GraphRun>& runs() const { return runs_; }
  // Index of the run whose first thunk is `thunk`, or -1.
  int RunStartingAt(const Thunk* thunk) const {
    auto it = by_first_.find(thunk);
    return it == by_first_.end() ? -1 : it->second;
  }
  // Nodes of all graphs together (thunks in runs).
  int64_t num_nodes() const;

 private:
  void Walk(const Thunk& thunk);
  // Whether `thunk` can be a node of this plan's graphs.
  bool IsNode(const Thunk& thunk) const {
    return thunk.IsCommand() || (capture_library_calls_ && thunk.IsCapturedCommand());
  }

  bool capture_library_calls_ = false;
  std::vector<GraphRun> runs_;
  absl::flat_hash_map<const Thunk*, int> by_first_;
};

class GraphRunner {
 public:
  // `plan` must outlive the runner; `executor` is the device the graphs
  // are built for.
  GraphRunner(const GraphPlan* plan, stream_executor::StreamExecutor* executor);

  // Marks every built graph stale when `buffers` (the execution's
  // allocation table) differs from the previous call's.
  void BeginRun(absl::Span<const stream_executor::DeviceMemoryBase> buffers);

  // When a run starts at `thunk`: builds, updates and submits its graph
  // (see above) and returns the number of thunks it covers; 0 when no run
  // starts there or its graph could not be built (run them plainly). The
  // thunk's error (ToCommand) or the stream's enqueue error otherwise.
  absl::StatusOr<size_t> TryLaunch(const Thunk& thunk, const ExecuteParams& params);

  // Graphs built by this runner, their nodes, and node updates issued (for
  // tests and figures).
  struct Counts {
    int64_t graphs_built = 0;
    int64_t nodes_built = 0;
    int64_t nodes_updated = 0;
  };
  const Counts& counts() const { return counts_; }
  // Why a graph was dropped (the first one), or "".
  const std::string& note() const { return note_; }

  // For tests only: when set, stale graphs are submitted without their
  // updates (so a test can show that a missing update gives a wrong
  // result). Process-wide.
  static void SkipUpdatesForTesting(bool skip);

 private:
  struct Instance {
    std::unique_ptr<stream_executor::CommandBuffer> buffer;  // null: not built
    std::vector<stream_executor::DeviceCommand> commands;    // what each node does now
    bool stale = false;
    bool failed = false;  // could not be built: plain launches
  };

  // Builds run `index`'s graph from the thunks' commands for `params`.
  absl::Status Build(int index, const ExecuteParams& params);
  // Updates the nodes of run `index` whose command changed.
  absl::Status Refresh(int index, const ExecuteParams& params);

  const GraphPlan* plan_;
  stream_executor::StreamExecutor* executor_;
  std::vector<Instance> instances_;
  std::vector<stream_executor::DeviceMemoryBase> last_buffers_;
  stream_executor::DeviceCommand scratch_;
  Counts counts_;
  std::string note_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_GRAPH_RUNNER_H_
