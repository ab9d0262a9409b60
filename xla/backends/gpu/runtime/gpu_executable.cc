#include "xla/backends/gpu/runtime/gpu_executable.h"

#include <atomic>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/host_object_variants.h"
#include "xla/backends/gpu/runtime/thunk_trace.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

namespace se = ::stream_executor;

struct GpuExecutable::DeviceState {
  se::StreamExecutor* executor = nullptr;
  std::unique_ptr<DeviceKernels> kernels;
  // Device copies of the constant allocations, by allocation index.
  std::vector<se::OwningDeviceMemory> constants;
  // A run borrows resources from `cached` without a lock when it holds some
  // (the common case: one run at a time), else from `pool` under pool_mu.
  std::atomic<RunResources*> cached{nullptr};  // owned
  std::mutex pool_mu;
  std::vector<std::unique_ptr<RunResources>> pool;  // guarded by pool_mu
  // Whether this device builds CUDA graphs, and why not (set at Initialize).
  bool graphs_supported = false;
  std::string graphs_note;  // guarded by pool_mu after Initialize
  std::atomic<int64_t> graphs_built{0};
  std::atomic<int64_t> graph_nodes_built{0};
  std::atomic<int64_t> graph_node_updates{0};

  ~DeviceState();
};

// Streams and events of one run; reused by later runs when the run ended
// without error (a failed stream keeps its sticky error and is dropped).
// Also holds the run's scratch tables, so a warm run allocates no host
// memory but its result vector.
struct GpuExecutable::RunResources {
  std::vector<std::unique_ptr<se::Stream>> streams;
  std::vector<se::Stream*> stream_ptrs;
  std::map<int64_t, AsyncEvents> events;
  // Bytes of the packed temp allocations. The temp buffer itself is
  // allocated per run: resources may outlive the executor (they are freed
  // with the executable), so they own no device memory.
  uint64_t temp_bytes = 0;
  // The same for the temporaries in host memory (offloaded buffers).
  uint64_t host_temp_bytes = 0;
  // Per allocation: its memory for this run, and what the run owns.
  std::vector<se::DeviceMemoryBase> buffers;
  std::vector<se::OwningDeviceMemory> owned;
  // This resource set's CUDA graphs; null when the device builds none.
  std::unique_ptr<GraphRunner> graphs;
};

GpuExecutable::DeviceState::~DeviceState() { delete cached.load(); }

namespace {

constexpr int64_t kAlignment = se::StreamExecutor::kAllocationAlignment;

// "9.0" -> 90; -1 when not a CUDA capability.
int CapabilityNumber(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, '.');
  int major = 0, minor = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &major) || !absl::SimpleAtoi(parts[1], &minor)) {
    return -1;
  }
  return major * 10 + minor;
}

absl::Status CheckDevice(const Program& p, se::StreamExecutor* executor) {
  if (executor->platform_name() != p.target.platform) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the artifact targets ", p.target.name, " (platform ", p.target.platform,
        ") but the device is on platform ", executor->platform_name()));
  }
  const std::string& have = executor->limits().compute_capability;
  if (p.target.platform == "cuda" &&
      CapabilityNumber(have) < CapabilityNumber(p.target.compute_capability)) {
    return absl::FailedPreconditionError(absl::StrCat("the artifact targets ", p.target.name,
                                                      " but the device has compute capability ", have));
  }
  // Each requirement is checked against what the device reports (the CUDA
  // driver version on cuda; nothing on host, where no artifact needs one).
  RETURN_IF_ERROR(CheckToolchain(p.artifact->header(), executor->toolchain_versions()));
  // A host device is this machine's CPU: host kernels built for extensions
  // it lacks would die of SIGILL at their first launch.
  if (p.target.platform != "host") return absl::OkStatus();
  return CheckHostCpuFeatures(p.artifact->header(), se::host::MachineCpuFeatures());
}

// The host kernels' shared object a device runs: for the host target
// (whose devices are this machine's CPU) the widest build the CPU has
// (host_object_variants.h), else the baseline.
absl::string_view HostObjectFor(const Program& p) {
  if (p.target.platform != "host") return p.views.host_shared_object;
  const int v = ChooseHostObjectVariant(p.payload_tables(), se::host::MachineCpuFeatures());
  if (v < 0) return p.views.host_shared_object;
  return p.payload_tables().host_object_variants(v).shared_object();
}

absl::Status UploadConstants(const Program& p, se::StreamExecutor* executor,
                             std::vector<se::OwningDeviceMemory>* constants) {
  constants->resize(p.allocations.size());
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, executor->CreateStream());
  for (const BufferAllocation& a : p.allocations) {
    if (!a.is_constant || a.size == 0) continue;
    const absl::string_view content = p.views.constants[a.constant_index];
    absl::StatusOr<se::OwningDeviceMemory> memory = se::OwningDeviceMemory::Allocate(executor, a.size);
    if (!memory.ok()) {
      return absl::Status(memory.status().code(),
                          absl::StrCat("executable '", p.module_name(), "': cannot allocate allocation ",
                                       a.index, " (", a.Role(), ", ", a.size,
                                       " bytes): ", memory.status().message()));
    }
    (*constants)[a.index] = *std::move(memory);
    RETURN_IF_ERROR(stream->Memcpy((*constants)[a.index].ptr(), content.data(), content.size()));
  }
  return stream->BlockHostUntilDone();
}

absl::Status CheckArguments(const Program& p, const std::vector<ExecutionArgument>& args) {
  if (args.size() != p.program_shape.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", p.program_shape.parameters.size(),
                                                   " arguments, got ", args.size()));
  }
  for (const BufferAllocation& a : p.allocations) {
    if (!a.is_parameter) continue;
    const uint64_t size = args[a.parameter_number].memory().size;
    if (size != static_cast<uint64_t>(a.size) || (a.size > 0 && args[a.parameter_number].memory().is_null())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", a.parameter_number, " has ", size, " bytes but parameter ", a.parameter_number,
          " (", p.program_shape.parameters[a.parameter_number].ToString(), ") needs ", a.size));
    }
  }
  return absl::OkStatus();
}

// `status` (an allocation failure) with what could not be had: the
// allocations, their roles and sizes, and the module.
absl::Status AllocationError(const Program& p, absl::string_view what, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("executable '", p.module_name(), "': cannot allocate ", what,
                                   ": ", status.message()));
}

// "allocation 3 (temp, 4096 bytes)" for one allocation.
std::string DescribeAllocation(const BufferAllocation& a) {
  return absl::StrCat("allocation ", a.index, " (", a.Role(), ", ", a.size, " bytes)");
}

// The temporaries of one memory space packed into one block of `bytes`,
// for messages: "allocation 3 (temp, 4096 bytes), 5 (temp, 64 bytes): 4352
// bytes in all".
std::string DescribeTemps(const Program& p, bool host, uint64_t bytes) {
  std::string out;
  int listed = 0;
  for (const BufferAllocation& a : p.allocations) {
    if (!a.is_temp || a.in_host_memory() != host) continue;
    if (++listed > 8) {
      absl::StrAppend(&out, ", ...");
      break;
    }
    absl::StrAppend(&out, out.empty() ? "" : ", ", DescribeAllocation(a));
  }
  return absl::StrCat(out, " (", bytes, " bytes in all", host ? ", in host memory" : "", ")");
}

// Host memory of one run (AllocateHost), freed when destroyed.
class HostBlock {
 public:
  HostBlock(se::StreamExecutor* executor, void* memory) : executor_(executor), memory_(memory) {}
  ~HostBlock() { (void)executor_->DeallocateHost(memory_); }
  HostBlock(const HostBlock&) = delete;
  HostBlock& operator=(const HostBlock&) = delete;
  void* get() const { return memory_; }

 private:
  se::StreamExecutor* executor_;
  void* memory_;
};

// Blocks on every stream; the first error wins.
absl::Status WaitAll(absl::Span<se::Stream* const> streams, absl::Status status) {
  for (se::Stream* s : streams) {
    absl::Status done = s->BlockHostUntilDone();
    if (status.ok()) status = done;
  }
  return status;
}

}  // namespace

GpuExecutable::GpuExecutable(std::unique_ptr<Program> program) : program_(std::move(program)) {}

GpuExecutable::~GpuExecutable() = default;

absl::StatusOr<std::unique_ptr<GpuExecutable::DeviceState>> GpuExecutable::CreateDeviceState(
    se::StreamExecutor* executor) {
  RETURN_IF_ERROR(CheckDevice(*program_, executor));
  auto state = std::make_unique<DeviceState>();
  state->executor = executor;
  state->kernels = std::make_unique<DeviceKernels>(executor, program_->kernels,
                                                   HostObjectFor(*program_),
                                                   program_->module_name());
  RETURN_IF_ERROR(UploadConstants(*program_, executor, &state->constants));
  InitializeParams params{executor, state->kernels.get()};
  RETURN_IF_ERROR(program_->root->Initialize(params));
  if (!graph_plan_->runs().empty()) {
    // Whether the device can build graphs at all: an empty one is made and
    // dropped (host: Unimplemented; cuda without the graph API: why).
    absl::StatusOr<std::unique_ptr<se::CommandBuffer>> probe = executor->CreateCommandBuffer();
    state->graphs_supported = probe.ok();
    if (!probe.ok()) state->graphs_note = std::string(probe.status().message());
  }
  return state;
}

absl::Status GpuExecutable::Initialize(se::StreamExecutor* executor) {
  std::lock_guard<std::mutex> lock(mu_);
  if (devices_.count(executor) > 0) return absl::OkStatus();
  // The plan of CUDA graphs, once per executable, at its first Initialize
  // (not at load: a loaded artifact that never runs pays nothing for it).
  // GEMMs and convolutions join the graphs when the (first) device
  // captures library calls.
  if (graph_plan_ == nullptr) {
    graph_plan_ = std::make_unique<const GraphPlan>(
        GraphPlan::Build(*program_->root, executor->CommandBuffersCaptureLibraryCalls()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<DeviceState> state, CreateDeviceState(executor));
  last_device_.store(state.get(), std::memory_order_release);
  devices_[executor] = std::move(state);
  return absl::OkStatus();
}

void GpuExecutable::ReleaseDevice(se::StreamExecutor* executor) {
  std::unique_ptr<DeviceState> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = devices_.find(executor);
    if (it == devices_.end()) return;
    DeviceState* state = it->second.get();
    last_device_.compare_exchange_strong(state, nullptr, std::memory_order_acq_rel);
    released = std::move(it->second);
    devices_.erase(it);
  }
  // Destroyed outside mu_: it frees device memory and joins streams.
}

absl::StatusOr<GpuExecutable::DeviceState*> GpuExecutable::FindDevice(se::StreamExecutor* executor) {
  // Lock-free for the device initialized last (device states live as long
  // as the executable).
  DeviceState* last = last_device_.load(std::memory_order_acquire);
  if (last != nullptr && last->executor == executor) return last;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = devices_.find(executor);
  if (it == devices_.end()) {
    return absl::FailedPreconditionError(absl::StrCat("executable '", program_->module_name(),
                                                      "' was not initialized for device ",
                                                      executor->device_ordinal(), " of platform ",
                                                      executor->platform_name(), ": call Initialize first"));
  }
  return it->second.get();
}

void GpuExecutable::RecordGraphStats(DeviceState& device, const GraphRunner& graphs,
                                     const GraphRunner::Counts& before) {
  const GraphRunner::Counts& now = graphs.counts();
  if (now.graphs_built != before.graphs_built) {
    device.graphs_built.fetch_add(now.graphs_built - before.graphs_built, std::memory_order_relaxed);
    device.graph_nodes_built.fetch_add(now.nodes_built - before.nodes_built, std::memory_order_relaxed);
  }
  if (now.nodes_updated != before.nodes_updated) {
    device.graph_node_updates.fetch_add(now.nodes_updated - before.nodes_updated, std::memory_order_relaxed);
  }
  if (graphs.note().empty()) return;
  std::lock_guard<std::mutex> lock(device.pool_mu);
  if (device.graphs_note.empty()) device.graphs_note = graphs.note();
}

absl::StatusOr<CudaGraphStats> GpuExecutable::graph_stats(se::StreamExecutor* executor) {
  ASSIGN_OR_RETURN(DeviceState * device, FindDevice(executor));
  CudaGraphStats stats;
  stats.supported = device->graphs_supported;
  stats.graphs = static_cast<int64_t>(graph_plan_->runs().size());
  stats.nodes = graph_plan_->num_nodes();
  stats.instantiated = device->graphs_built.load(std::memory_order_relaxed);
  stats.instantiated_nodes = device->graph_nodes_built.load(std::memory_order_relaxed);
  stats.node_updates = device->graph_node_updates.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(device->pool_mu);
  stats.note = device->graphs_note;
  return stats;
}

absl::StatusOr<std::unique_ptr<GpuExecutable::RunResources>> GpuExecutable::BorrowResources(
    DeviceState& device) {
  if (RunResources* cached = device.cached.exchange(nullptr, std::memory_order_acquire)) {
    return std::unique_ptr<RunResources>(cached);
  }
  {
    std::lock_guard<std::mutex> lock(device.pool_mu);
    if (!device.pool.empty()) {
      std::unique_ptr<RunResources> r = std::move(device.pool.back());
      device.pool.pop_back();
      return r;
    }
  }
  auto r = std::make_unique<RunResources>();
  for (int64_t i = 0; i < program_->num_streams; ++i) {
    ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, device.executor->CreateStream());
    r->stream_ptrs.push_back(stream.get());
    r->streams.push_back(std::move(stream));
  }
  for (int64_t id : program_->resources.async_ids) {
    AsyncEvents& events = r->events[id];
    ASSIGN_OR_RETURN(events.started, device.executor->CreateEvent());
    ASSIGN_OR_RETURN(events.done, device.executor->CreateEvent());
  }
  for (const BufferAllocation& a : program_->allocations) {
    if (!a.is_temp) continue;
    uint64_t& bytes = a.in_host_memory() ? r->host_temp_bytes : r->temp_bytes;
    bytes += static_cast<uint64_t>(xla::RoundUp(a.size, kAlignment));
  }
  r->buffers.resize(program_->allocations.size());
  r->owned.resize(program_->allocations.size());
  if (device.graphs_supported) r->graphs = std::make_unique<GraphRunner>(graph_plan_.get(), device.executor);
  return r;
}

void GpuExecutable::ReturnResources(DeviceState& device, std::unique_ptr<RunResources> resources) {
  RunResources* expected = nullptr;
  if (device.cached.compare_exchange_strong(expected, resources.get(), std::memory_order_acq_rel)) {
    resources.release();  // now owned by `cached`
    return;
  }
  std::lock_guard<std::mutex> lock(device.pool_mu);
  device.pool.push_back(std::move(resources));
}

absl::StatusOr<std::vector<se::OwningDeviceMemory>> GpuExecutable::Execute(
    se::StreamExecutor* executor, std::vector<ExecutionArgument> arguments) {
  return Execute(executor, std::move(arguments), ExecuteOptions());
}

absl::StatusOr<std::vector<se::OwningDeviceMemory>> GpuExecutable::Execute(
    se::StreamExecutor* executor, std::vector<ExecutionArgument> arguments,
    const ExecuteOptions& options) {
  ASSIGN_OR_RETURN(DeviceState * device, FindDevice(executor));
  const Program& p = *program_;
  RETURN_IF_ERROR(CheckArguments(p, arguments));
  ASSIGN_OR_RETURN(std::unique_ptr<RunResources> resources, BorrowResources(*device));
  se::Stream* main = resources->stream_ptrs[0];

  std::vector<se::DeviceMemoryBase>& buffers = resources->buffers;
  std::vector<se::OwningDeviceMemory>& owned = resources->owned;
  absl::StatusOr<se::OwningDeviceMemory> temp_or =
      se::OwningDeviceMemory::Allocate(executor, resources->temp_bytes);
  if (!temp_or.ok()) {
    return AllocationError(p, DescribeTemps(p, /*host=*/false, resources->temp_bytes),
                           temp_or.status());
  }
  se::OwningDeviceMemory temp_memory = *std::move(temp_or);
  const se::DeviceMemoryBase temp = temp_memory.get();
  uint64_t temp_offset = 0;
  absl::StatusOr<void*> host_temp_or = executor->AllocateHost(resources->host_temp_bytes);
  if (!host_temp_or.ok()) {
    return AllocationError(p, DescribeTemps(p, /*host=*/true, resources->host_temp_bytes),
                           host_temp_or.status());
  }
  // Declared after the streams' users below and freed only once WaitAll
  // has drained every stream (the destructor runs at return).
  const HostBlock host_temp(executor, *host_temp_or);
  uint64_t host_temp_offset = 0;
  // Allocates `a` in device memory into owned[a.index], naming it on failure.
  auto allocate_owned = [&](const BufferAllocation& a) -> absl::Status {
    absl::StatusOr<se::OwningDeviceMemory> memory = se::OwningDeviceMemory::Allocate(executor, a.size);
    if (!memory.ok()) return AllocationError(p, DescribeAllocation(a), memory.status());
    owned[a.index] = *std::move(memory);
    return absl::OkStatus();
  };
  // Binds every allocation; stops at the first error (work already queued
  // is waited for below before any buffer is freed).
  auto bind = [&]() -> absl::Status {
    for (const BufferAllocation& a : p.allocations) {
      if (a.is_parameter) {
        ExecutionArgument& arg = arguments[a.parameter_number];
        if (!a.is_output) {
          buffers[a.index] = arg.memory();
        } else if (arg.donated()) {
          owned[a.index] = arg.TakeOwned();
        } else {
          // Not donated: copy, so the caller's buffer is never clobbered.
          RETURN_IF_ERROR(allocate_owned(a));
          if (a.size > 0) RETURN_IF_ERROR(main->Memcpy(owned[a.index].ptr(), arg.memory(), a.size));
        }
      } else if (a.is_constant) {
        buffers[a.index] = device->constants[a.index].get();
      } else if (a.is_output) {
        RETURN_IF_ERROR(allocate_owned(a));
      } else if (a.in_host_memory()) {
        buffers[a.index] = se::DeviceMemoryBase(
            static_cast<char*>(host_temp.get()) + host_temp_offset, static_cast<uint64_t>(a.size));
        host_temp_offset += static_cast<uint64_t>(xla::RoundUp(a.size, kAlignment));
      } else {
        buffers[a.index] = se::DeviceMemoryBase(static_cast<char*>(temp.opaque) + temp_offset,
                                                static_cast<uint64_t>(a.size));
        temp_offset += static_cast<uint64_t>(xla::RoundUp(a.size, kAlignment));
      }
      if (!owned[a.index].is_null()) buffers[a.index] = owned[a.index].get();
    }
    return absl::OkStatus();
  };
  absl::Status status = bind();
  const BufferAllocations allocations = BufferAllocations::View(buffers);
  ExecuteParams params;
  params.executor = executor;
  params.buffers = &allocations;
  params.streams = resources->stream_ptrs;
  params.async_events = &resources->events;
  params.kernels = device->kernels.get();
  params.tracer = options.tracer;
  params.collectives = options.collectives;
  params.host_transfers = options.host_transfers;
  // CUDA graphs unless turned off or traced (a graph has no per-thunk stamps).
  params.graphs = options.cuda_graphs && options.tracer == nullptr ? resources->graphs.get() : nullptr;
  const GraphRunner::Counts before = params.graphs != nullptr ? params.graphs->counts() : GraphRunner::Counts();
  if (params.graphs != nullptr) params.graphs->BeginRun(buffers);
  if (status.ok()) status = p.root->ExecuteOnStream(params);
  status = WaitAll(resources->stream_ptrs, status);
  if (params.graphs != nullptr) RecordGraphStats(*device, *params.graphs, before);
  if (options.tracer != nullptr) options.tracer->Finish();
  if (!status.ok()) return status;  // resources dropped: their streams hold the error
  std::vector<se::OwningDeviceMemory> outputs;
  outputs.reserve(p.outputs.size());
  for (const OutputInfo& o : p.outputs) outputs.push_back(std::move(owned[o.allocation]));
  // Whatever no output took is freed now, as before the tables were reused.
  for (se::OwningDeviceMemory& memory : owned) {
    if (!memory.is_null()) memory = se::OwningDeviceMemory();
  }
  ReturnResources(*device, std::move(resources));
  return outputs;
}

}  // namespace xla::gpu
