#include "examples/serving/model_server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/types/physical_layout.h"
#include "xla/util/status_macros.h"

namespace xla::serving {

namespace se = ::stream_executor;

absl::StatusOr<std::unique_ptr<ModelServer>> ModelServer::LoadFromFile(const std::string& path,
                                                                       const aot::LoadOptions& options,
                                                                       int device_ordinal) {
  ASSIGN_OR_RETURN(std::unique_ptr<aot::Executable> executable,
                   aot::Executable::LoadFromFile(path, options));
  return Create(std::move(executable), device_ordinal);
}

absl::StatusOr<std::unique_ptr<ModelServer>> ModelServer::Create(std::unique_ptr<aot::Executable> executable,
                                                                 int device_ordinal) {
  if (executable == nullptr) return absl::InvalidArgumentError("no executable");
  ASSIGN_OR_RETURN(se::Platform * platform,
                   se::PlatformRegistry::GetPlatform(executable->program().target.platform));
  ASSIGN_OR_RETURN(se::StreamExecutor * device, platform->GetDevice(device_ordinal));
  // Once per device, before any request: loads kernels, uploads constants,
  // resolves custom-call handlers. Execute never does this work.
  RETURN_IF_ERROR(executable->Initialize(device));
  return std::unique_ptr<ModelServer>(new ModelServer(std::move(executable), device));
}

ModelServer::ModelServer(std::unique_ptr<aot::Executable> executable, se::StreamExecutor* device)
    : executable_(std::move(executable)), device_(device) {}

absl::Status ModelServer::CheckInputs(absl::Span<const Literal> inputs) const {
  const ProgramShape& shape = program_shape();
  if (inputs.size() != shape.parameters.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model takes ", shape.parameters.size(), " inputs, got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (ShapesCompatible(inputs[i].shape(), shape.parameters[i])) continue;
    const std::string name =
        i < shape.parameter_names.size() ? absl::StrCat(" ('", shape.parameter_names[i], "')") : "";
    return absl::InvalidArgumentError(absl::StrCat("input ", i, " has shape ", inputs[i].shape().ToString(false),
                                                   " but parameter ", i, name, " is ",
                                                   shape.parameters[i].ToString(false)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ModelServer::Session>> ModelServer::NewSession() const {
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, device_->CreateStream());
  return std::unique_ptr<Session>(new Session(this, std::move(stream)));
}

ModelServer::Session::Session(const ModelServer* server, std::unique_ptr<se::Stream> stream)
    : server_(server), stream_(std::move(stream)) {}

absl::StatusOr<std::vector<Literal>> ModelServer::Session::Run(absl::Span<const Literal> inputs) {
  RETURN_IF_ERROR(server_->CheckInputs(inputs));
  const ProgramShape& shape = server_->program_shape();
  se::StreamExecutor* device = server_->device();
  // Host bytes the stream reads must live until BlockHostUntilDone: the
  // relaid-out copies are declared before anything that can return early.
  std::vector<std::vector<uint8_t>> physical_copies;
  std::vector<aot::ExecutionArgument> args;
  args.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::Span<const uint8_t> data = inputs[i].data();
    if (!PhysicalOrderIsLogical(shape.parameters[i])) {
      std::vector<uint8_t>& physical = physical_copies.emplace_back(data.size());
      RETURN_IF_ERROR(LogicalToPhysical(shape.parameters[i], data, absl::MakeSpan(physical)));
      data = physical;
    }
    ASSIGN_OR_RETURN(se::OwningDeviceMemory memory, se::OwningDeviceMemory::Allocate(device, data.size()));
    if (!data.empty()) RETURN_IF_ERROR(stream_->Memcpy(memory.ptr(), data.data(), data.size()));
    // Donated: the request's buffers are the executable's to reuse (an
    // aliased output takes its input's buffer) and are freed after the run.
    args.push_back(aot::ExecutionArgument::Donate(std::move(memory)));
  }
  // Execute runs on its own streams: the inputs must be on the device first.
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  ASSIGN_OR_RETURN(std::vector<se::OwningDeviceMemory> outputs,
                   server_->executable().Execute(device, std::move(args)));
  // Execute returns leaves in outputs() order; callers get them by shape index.
  const std::vector<aot::OutputInfo>& infos = server_->executable().outputs();
  std::vector<size_t> order(infos.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return infos[a].shape_index < infos[b].shape_index; });
  std::vector<Literal> results;
  results.reserve(order.size());
  for (size_t i : order) {
    RETURN_IF_ERROR(CheckLiteralFitsInMemory(infos[i].shape, absl::StrCat("output ", i)));
    results.emplace_back(infos[i].shape);
    absl::Span<uint8_t> data = results.back().mutable_data();
    if (!data.empty()) RETURN_IF_ERROR(stream_->Memcpy(data.data(), outputs[i].get(), data.size()));
  }
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  for (size_t k = 0; k < order.size(); ++k) {
    const Shape& out_shape = infos[order[k]].shape;
    if (PhysicalOrderIsLogical(out_shape)) continue;
    std::vector<uint8_t> physical(results[k].data().begin(), results[k].data().end());
    RETURN_IF_ERROR(PhysicalToLogical(out_shape, physical, results[k].mutable_data()));
  }
  return results;
}

PoolTiming RunOnThreads(int threads, int64_t requests,
                        const std::function<void(int worker, int64_t request)>& job) {
  PoolTiming timing;
  timing.latency_seconds.assign(static_cast<size_t>(std::max<int64_t>(requests, 0)), 0.0);
  const int workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, requests)));
  std::atomic<int64_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  using Clock = std::chrono::steady_clock;
  auto work = [&](int worker) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return go; });
    }
    for (int64_t r = next.fetch_add(1); r < requests; r = next.fetch_add(1)) {
      const Clock::time_point start = Clock::now();
      job(worker, r);
      // Each request's slot is written by the one worker that served it.
      timing.latency_seconds[static_cast<size_t>(r)] =
          std::chrono::duration<double>(Clock::now() - start).count();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) pool.emplace_back(work, w);
  const Clock::time_point start = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu);
    go = true;
  }
  cv.notify_all();
  for (std::thread& t : pool) t.join();
  timing.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return timing;
}

}  // namespace xla::serving
