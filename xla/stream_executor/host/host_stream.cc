#include "xla/stream_executor/host/host_stream.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/host/deep_copy_status.h"
#include "xla/stream_executor/host/host_fft.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/stream_executor/host/host_event.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/stream_executor/host/host_launch.h"
#include "xla/stream_executor/stream_checks.h"

namespace stream_executor::host {

HostStream::HostStream(const DeviceLimits& limits, HostThreadPool& pool)
    : limits_(limits), pool_(pool), worker_([this] { WorkerLoop(); }) {}

HostStream::~HostStream() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    WaitIdleLocked(lock);
    shutting_down_ = true;
  }
  work_available_.notify_all();
  worker_.join();
}

absl::Status HostStream::Memcpy(DeviceMemoryBase* device_dst,
                                const void* host_src, uint64_t size) {
  absl::Status valid = CheckMemcpyHostToDevice(device_dst, host_src, size);
  if (!valid.ok()) return EnqueueError(kMemcpyHostToDevice, valid);
  Operation op;
  op.kind = Operation::Kind::kCopy;
  op.name = kMemcpyHostToDevice;
  op.may_run_inline = true;
  op.dst = device_dst->opaque;
  op.src = host_src;
  op.size = size;
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memcpy(void* host_dst,
                                const DeviceMemoryBase& device_src,
                                uint64_t size) {
  absl::Status valid = CheckMemcpyDeviceToHost(host_dst, device_src, size);
  if (!valid.ok()) return EnqueueError(kMemcpyDeviceToHost, valid);
  Operation op;
  op.kind = Operation::Kind::kCopy;
  op.name = kMemcpyDeviceToHost;
  op.may_run_inline = true;
  op.dst = host_dst;
  op.src = device_src.opaque;
  op.size = size;
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memcpy(DeviceMemoryBase* device_dst,
                                const DeviceMemoryBase& device_src,
                                uint64_t size) {
  absl::Status valid = CheckMemcpyDeviceToDevice(device_dst, device_src, size);
  if (!valid.ok()) return EnqueueError(kMemcpyDeviceToDevice, valid);
  Operation op;
  op.kind = Operation::Kind::kCopy;
  op.name = kMemcpyDeviceToDevice;
  op.may_run_inline = true;
  op.dst = device_dst->opaque;
  op.src = device_src.opaque;
  op.size = size;
  return Enqueue(std::move(op));
}

absl::Status HostStream::Memset32(DeviceMemoryBase* location, uint32_t pattern,
                                  uint64_t size) {
  absl::Status valid = CheckMemset32(location, size);
  if (!valid.ok()) return EnqueueError("memset32", valid);
  Operation op;
  op.kind = Operation::Kind::kFill32;
  op.name = "memset32";
  op.may_run_inline = true;
  op.dst = location->opaque;
  op.pattern = pattern;
  op.size = size;
  return Enqueue(std::move(op));
}

absl::Status HostStream::MemZero(DeviceMemoryBase* location, uint64_t size) {
  absl::Status valid = CheckDeviceBuffer("destination", location, size);
  if (!valid.ok()) return EnqueueError("memzero", valid);
  Operation op;
  op.kind = Operation::Kind::kZero;
  op.name = "memzero";
  op.may_run_inline = true;
  op.dst = location->opaque;
  op.size = size;
  return Enqueue(std::move(op));
}

absl::Status HostStream::Launch(const Kernel& kernel,
                                const LaunchDimensions& dims,
                                absl::Span<const DeviceMemoryBase> args) {
  const auto* host_kernel = dynamic_cast<const HostKernel*>(&kernel);
  if (host_kernel == nullptr) {
    return EnqueueError(absl::StrCat("kernel launch '", kernel.name(), "'"),
                        absl::InvalidArgumentError(absl::StrCat(
                            "kernel of module '", kernel.module_name(),
                            "' was not loaded by the host platform")));
  }
  absl::Status valid = ValidateLaunchDimensions(dims, limits_);
  if (!valid.ok()) {
    return EnqueueError(absl::StrCat("kernel launch '", kernel.name(), "'"),
                        valid);
  }
  XlaHostKernelFn function = host_kernel->function();
  const int64_t blocks = dims.num_blocks();
  auto queued = [&] {
    Operation op;
    op.kind = Operation::Kind::kLaunch;
    op.name = "kernel launch";  // a host launch itself cannot fail
    op.function = function;
    op.blocks = blocks;
    op.num_buffers = static_cast<int64_t>(args.size());
    if (args.size() <= Operation::kInlineArgs) {
      for (size_t i = 0; i < args.size(); ++i) op.inline_buffers[i] = args[i].opaque;
    } else {
      op.more_buffers.reserve(args.size());
      for (const DeviceMemoryBase& arg : args) op.more_buffers.push_back(arg.opaque);
    }
    op.library = host_kernel->library();
    return op;
  };
  if (args.size() > Operation::kInlineArgs) {  // rare: the record holds the list
    Operation op = queued();
    op.may_run_inline = true;
    return Enqueue(std::move(op));
  }
  std::array<void*, Operation::kInlineArgs> buffers;
  for (size_t i = 0; i < args.size(); ++i) buffers[i] = args[i].opaque;
  std::unique_lock<std::mutex> lock(mu_);
  if (!status_.ok() || !queued_error_.ok()) return KnownErrorLocked();
  std::optional<absl::Status> ran = RunInlineLocked(lock, "kernel launch", [&] {
    RunHostKernel(function, absl::MakeConstSpan(buffers.data(), args.size()), blocks, pool_);
    return absl::OkStatus();
  });
  if (ran.has_value()) return *std::move(ran);
  PushLocked(queued());
  return absl::OkStatus();
}

absl::Status HostStream::Gemm(const BlasGemmConfig& config, const DeviceMemoryBase& lhs,
                              const DeviceMemoryBase& rhs, const DeviceMemoryBase& out) {
  absl::Status valid = CheckBlasGemmOperands(config, lhs, rhs, out);
  if (valid.ok() && IsBlasFp8Gemm(config)) {
    valid = absl::UnimplementedError(
        "the host platform runs no fp8 GEMMs (compile for host with --fp8_gemm=widen, the "
        "default)");
  }
  if (!valid.ok()) return EnqueueError("gemm", valid);
  BlasGemmConfig c = config;
  c.batch_size = std::max<int64_t>(c.batch_size, 1);
  HostGemmThreading threading;
  threading.pool = &pool_;
  std::unique_lock<std::mutex> lock(mu_);
  if (!status_.ok() || !queued_error_.ok()) return KnownErrorLocked();
  std::optional<absl::Status> ran = RunInlineLocked(
      lock, "gemm", [&] { return HostGemm(c, lhs.opaque, rhs.opaque, out.opaque, threading); });
  if (ran.has_value()) return *std::move(ran);
  Operation op;
  op.kind = Operation::Kind::kCallback;
  op.name = "gemm";
  op.work = [c, l = lhs.opaque, r = rhs.opaque, o = out.opaque, threading]() {
    return HostGemm(c, l, r, o, threading);
  };
  PushLocked(std::move(op));
  return absl::OkStatus();
}

absl::Status HostStream::Fft(const FftPlan& plan, const DeviceMemoryBase& input,
                             const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) {
  const auto* host_plan = dynamic_cast<const HostFftPlan*>(&plan);
  absl::Status valid =
      host_plan == nullptr
          ? absl::InvalidArgumentError("the plan was not made by the host platform's PrepareFft")
          : CheckFftBuffers(plan.config(), input, output, workspace);
  if (!valid.ok()) return EnqueueError("fft", valid);
  Operation op;
  op.kind = Operation::Kind::kCallback;
  op.name = "fft";
  op.may_run_inline = true;
  op.work = [host_plan, in = input.opaque, out = output.opaque, ws = workspace.opaque,
             pool = &pool_]() {
    host_plan->Execute(in, out, ws, pool);
    return absl::OkStatus();
  };
  return Enqueue(std::move(op));
}

absl::Status HostStream::RecordEvent(Event* event) {
  auto* host_event = dynamic_cast<HostEvent*>(event);
  if (host_event == nullptr) {
    return EnqueueError("record event", absl::InvalidArgumentError(
                                            "the event is null or was not "
                                            "created by the host platform"));
  }
  Operation op;
  op.kind = Operation::Kind::kRecordEvent;
  op.name = "record event";
  op.event = host_event;
  op.generation = host_event->BeginRecord();
  std::lock_guard<std::mutex> lock(mu_);
  // Queued even on a failed stream, so that waiters wake up and see the error.
  PushLocked(std::move(op));
  return KnownErrorLocked();
}

absl::Status HostStream::WaitFor(Event* event) {
  auto* host_event = dynamic_cast<HostEvent*>(event);
  if (host_event == nullptr) {
    return EnqueueError("wait for event", absl::InvalidArgumentError(
                                              "the event is null or was not "
                                              "created by the host platform"));
  }
  const int64_t generation = host_event->LatestGeneration();
  if (generation == 0) {  // never recorded: nothing to wait for
    std::lock_guard<std::mutex> lock(mu_);
    return KnownErrorLocked();
  }
  Operation op;
  op.kind = Operation::Kind::kWaitEvent;
  op.name = "wait for event";
  op.event = host_event;
  op.generation = generation;
  return Enqueue(std::move(op));
}

absl::Status HostStream::DoHostCallback(
    absl::AnyInvocable<absl::Status() &&> callback) {
  if (!callback) {
    return EnqueueError("host callback",
                        absl::InvalidArgumentError("the callback is empty"));
  }
  Operation op;
  op.kind = Operation::Kind::kCallback;
  op.name = "host callback";
  op.work = std::move(callback);
  return Enqueue(std::move(op));
}

absl::Status HostStream::BlockHostUntilDone() {
  if (std::this_thread::get_id() == worker_.get_id()) {
    return absl::FailedPreconditionError(
        "BlockHostUntilDone called from a host callback of the same stream "
        "would deadlock");
  }
  std::unique_lock<std::mutex> lock(mu_);
  WaitIdleLocked(lock);
  return DeepCopyStatus(status_);
}

absl::Status HostStream::Enqueue(Operation operation) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!status_.ok() || !queued_error_.ok()) return KnownErrorLocked();
  if (operation.may_run_inline) {
    std::optional<absl::Status> ran = RunInlineLocked(lock, operation.name, [&] {
      absl::Status status = Run(operation, absl::OkStatus());
      // Release captures before reporting completion, as the worker does.
      operation.work = nullptr;
      operation.library.reset();
      return status;
    });
    if (ran.has_value()) return *std::move(ran);
  }
  PushLocked(std::move(operation));
  return absl::OkStatus();
}

std::optional<absl::Status> HostStream::RunInlineLocked(std::unique_lock<std::mutex>& lock,
                                                        absl::string_view name,
                                                        absl::FunctionRef<absl::Status()> run) {
  if (pending_ != 0 || std::this_thread::get_id() == worker_.get_id()) return std::nullopt;
  // Idle: nothing is queued or running, so this operation may run here and
  // now, saving the worker's wake-up and the waiter's (a while loop reads
  // its predicate every iteration). Operations other threads queue
  // meanwhile wait for it: the worker does not take the queue while
  // running_inline_.
  ++pending_;
  running_inline_ = true;
  lock.unlock();
  absl::Status status = run();
  lock.lock();
  running_inline_ = false;
  --pending_;
  if (!status.ok()) status_ = AnnotateStreamError(name, status);
  if (!queue_.empty() && worker_waiting_) {
    worker_waiting_ = false;
    work_available_.notify_one();
  }
  if (pending_ == 0) idle_.notify_all();
  return DeepCopyStatus(status_);
}

absl::Status HostStream::EnqueueError(absl::string_view name,
                                      absl::Status error) {
  absl::Status annotated = AnnotateStreamError(name, error);
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status known = KnownErrorLocked();
  if (!known.ok()) return known;
  // Fails in stream order, so an earlier operation's error still comes first;
  // until the worker gets there, later enqueues report this one.
  Operation op;
  op.kind = Operation::Kind::kFail;
  op.error = DeepCopyStatus(annotated);
  PushLocked(std::move(op));
  queued_error_ = DeepCopyStatus(annotated);
  return annotated;
}

absl::Status HostStream::KnownErrorLocked() const {
  return DeepCopyStatus(status_.ok() ? queued_error_ : status_);
}

void HostStream::PushLocked(Operation operation) {
  queue_.push_back(std::move(operation));
  ++pending_;
  if (worker_waiting_) {  // the only waiter is this stream's worker
    worker_waiting_ = false;
    work_available_.notify_one();
  }
}

void HostStream::WaitIdleLocked(std::unique_lock<std::mutex>& lock) {
  idle_.wait(lock, [this] { return pending_ == 0; });
}

absl::Status HostStream::Run(Operation& op, const absl::Status& status) {
  switch (op.kind) {
    case Operation::Kind::kCopy:
      if (op.size > 0) std::memmove(op.dst, op.src, op.size);
      return absl::OkStatus();
    case Operation::Kind::kZero:
      if (op.size > 0) std::memset(op.dst, 0, op.size);
      return absl::OkStatus();
    case Operation::Kind::kFill32: {
      auto* words = static_cast<uint32_t*>(op.dst);
      for (uint64_t i = 0; i < op.size / 4; ++i) words[i] = op.pattern;
      return absl::OkStatus();
    }
    case Operation::Kind::kLaunch:
      RunHostKernel(op.function,
                    absl::MakeConstSpan(op.num_buffers <= Operation::kInlineArgs
                                            ? op.inline_buffers.data()
                                            : op.more_buffers.data(),
                                        op.num_buffers),
                    op.blocks, pool_);
      return absl::OkStatus();
    case Operation::Kind::kRecordEvent:
      op.event->Complete(op.generation, DeepCopyStatus(status));
      return absl::OkStatus();
    case Operation::Kind::kWaitEvent: {
      absl::Status waited = op.event->WaitForGeneration(op.generation);
      if (waited.ok()) return waited;
      return absl::Status(waited.code(),
                          absl::StrCat("the event was recorded on a stream "
                                       "that had failed: ",
                                       waited.message()));
    }
    case Operation::Kind::kCallback:
      return std::move(op.work)();
    case Operation::Kind::kFail:
      return std::move(op.error);
  }
  return absl::InternalError("unknown host stream operation");
}

void HostStream::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    while (!shutting_down_ && (queue_.empty() || running_inline_)) {
      worker_waiting_ = true;
      work_available_.wait(lock);
    }
    worker_waiting_ = false;
    if (queue_.empty()) return;  // shutting down with nothing left
    batch_.swap(queue_);
    // Both vectors keep the largest capacity either needed, so a burst as
    // long as an earlier one never grows the queue.
    if (queue_.capacity() < batch_.capacity()) queue_.reserve(batch_.capacity());
    lock.unlock();
    for (Operation& op : batch_) {
      // A failed stream skips everything but event records.
      const bool skip =
          !status_.ok() && op.kind != Operation::Kind::kRecordEvent;
      absl::Status status = skip ? absl::OkStatus() : Run(op, status_);
      // Release captures (the callback, the kernel's library) before
      // reporting completion.
      op.work = nullptr;
      op.library.reset();
      if (status.ok() || !status_.ok()) continue;
      absl::Status failed = op.kind == Operation::Kind::kFail
                                ? std::move(status)
                                : AnnotateStreamError(op.name, status);
      std::lock_guard<std::mutex> failed_lock(mu_);
      status_ = std::move(failed);
    }
    const int64_t done = static_cast<int64_t>(batch_.size());
    batch_.clear();  // keeps the capacity
    lock.lock();
    pending_ -= done;
    if (pending_ == 0) idle_.notify_all();
  }
}

}  // namespace stream_executor::host
