#include "xla/stream_executor/host/host_stream.h"

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/host/deep_copy_status.h"
#include "xla/stream_executor/host/host_event.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/stream_executor/host/host_launch.h"

namespace stream_executor::host {
namespace {

constexpr absl::string_view kH2D = "memcpy host-to-device";
constexpr absl::string_view kD2H = "memcpy device-to-host";
constexpr absl::string_view kD2D = "memcpy device-to-device";

// The error a failed operation leaves on the stream: its name first.
absl::Status Annotate(absl::string_view name, const absl::Status& error) {
  return absl::Status(error.code(),
                      absl::StrCat(name, " failed: ", error.message()));
}

// `size` bytes must fit in the `what` buffer of `capacity` bytes at `pointer`.
absl::Status CheckBuffer(absl::string_view what, const void* pointer,
                         uint64_t capacity, uint64_t size) {
  if (size > capacity) {
    return absl::InvalidArgumentError(absl::StrCat(
        size, " bytes do not fit in the ", what, " buffer of ", capacity,
        " bytes"));
  }
  if (size > 0 && pointer == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " pointer is null"));
  }
  return absl::OkStatus();
}

absl::Status CheckHostPointer(absl::string_view what, const void* pointer,
                              uint64_t size) {
  return CheckBuffer(what, pointer, size, size);
}

absl::Status CheckDeviceTarget(absl::string_view what,
                               const DeviceMemoryBase* memory, uint64_t size) {
  if (memory == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " buffer is null"));
  }
  return CheckBuffer(what, memory->opaque, memory->size, size);
}

}  // namespace

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
  absl::Status valid = CheckDeviceTarget("destination", device_dst, size);
  if (valid.ok()) valid = CheckHostPointer("host source", host_src, size);
  if (!valid.ok()) return EnqueueError(std::string(kH2D), valid);
  void* dst = device_dst->opaque;
  return Enqueue(std::string(kH2D), [dst, host_src, size] {
    if (size > 0) std::memcpy(dst, host_src, size);
    return absl::OkStatus();
  });
}

absl::Status HostStream::Memcpy(void* host_dst,
                                const DeviceMemoryBase& device_src,
                                uint64_t size) {
  absl::Status valid = CheckDeviceTarget("source", &device_src, size);
  if (valid.ok()) valid = CheckHostPointer("host destination", host_dst, size);
  if (!valid.ok()) return EnqueueError(std::string(kD2H), valid);
  const void* src = device_src.opaque;
  return Enqueue(std::string(kD2H), [host_dst, src, size] {
    if (size > 0) std::memcpy(host_dst, src, size);
    return absl::OkStatus();
  });
}

absl::Status HostStream::Memcpy(DeviceMemoryBase* device_dst,
                                const DeviceMemoryBase& device_src,
                                uint64_t size) {
  absl::Status valid = CheckDeviceTarget("destination", device_dst, size);
  if (valid.ok()) valid = CheckDeviceTarget("source", &device_src, size);
  if (!valid.ok()) return EnqueueError(std::string(kD2D), valid);
  void* dst = device_dst->opaque;
  const void* src = device_src.opaque;
  return Enqueue(std::string(kD2D), [dst, src, size] {
    if (size > 0) std::memmove(dst, src, size);
    return absl::OkStatus();
  });
}

absl::Status HostStream::Memset32(DeviceMemoryBase* location, uint32_t pattern,
                                  uint64_t size) {
  absl::Status valid = CheckDeviceTarget("destination", location, size);
  if (valid.ok() && size % 4 != 0) {
    valid = absl::InvalidArgumentError(
        absl::StrCat("size ", size, " is not a multiple of 4"));
  }
  if (!valid.ok()) return EnqueueError("memset32", valid);
  auto* words = static_cast<uint32_t*>(location->opaque);
  return Enqueue("memset32", [words, pattern, size] {
    for (uint64_t i = 0; i < size / 4; ++i) words[i] = pattern;
    return absl::OkStatus();
  });
}

absl::Status HostStream::MemZero(DeviceMemoryBase* location, uint64_t size) {
  absl::Status valid = CheckDeviceTarget("destination", location, size);
  if (!valid.ok()) return EnqueueError("memzero", valid);
  void* dst = location->opaque;
  return Enqueue("memzero", [dst, size] {
    if (size > 0) std::memset(dst, 0, size);
    return absl::OkStatus();
  });
}

absl::Status HostStream::Launch(const Kernel& kernel,
                                const LaunchDimensions& dims,
                                absl::Span<const DeviceMemoryBase> args) {
  std::string name = absl::StrCat("kernel launch '", kernel.name(), "'");
  const auto* host_kernel = dynamic_cast<const HostKernel*>(&kernel);
  if (host_kernel == nullptr) {
    return EnqueueError(name, absl::InvalidArgumentError(absl::StrCat(
                                  "kernel of module '", kernel.module_name(),
                                  "' was not loaded by the host platform")));
  }
  absl::Status valid = ValidateLaunchDimensions(dims, limits_);
  if (!valid.ok()) return EnqueueError(name, valid);
  std::vector<void*> buffers;
  buffers.reserve(args.size());
  for (const DeviceMemoryBase& arg : args) buffers.push_back(arg.opaque);
  // The captured library keeps the code loaded until the launch has run.
  return Enqueue(name, [library = host_kernel->library(),
                        function = host_kernel->function(),
                        buffers = std::move(buffers),
                        blocks = dims.num_blocks(), &pool = pool_]() mutable {
    RunHostKernel(function, std::move(buffers), blocks, pool);
    return absl::OkStatus();
  });
}

absl::Status HostStream::RecordEvent(Event* event) {
  auto* host_event = dynamic_cast<HostEvent*>(event);
  if (host_event == nullptr) {
    return EnqueueError("record event", absl::InvalidArgumentError(
                                            "the event is null or was not "
                                            "created by the host platform"));
  }
  const int64_t generation = host_event->BeginRecord();
  std::lock_guard<std::mutex> lock(mu_);
  // Queued even on a failed stream, so that waiters wake up and see the error.
  PushLocked(Operation{"record event",
                       [this, host_event, generation] {
                         host_event->Complete(generation, CurrentStatus());
                         return absl::OkStatus();
                       },
                       /*runs_after_error=*/true});
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
  return Enqueue("wait for event", [host_event, generation] {
    absl::Status status = host_event->WaitForGeneration(generation);
    if (status.ok()) return status;
    return absl::Status(status.code(),
                        absl::StrCat("the event was recorded on a stream that "
                                     "had failed: ",
                                     status.message()));
  });
}

absl::Status HostStream::DoHostCallback(
    absl::AnyInvocable<absl::Status() &&> callback) {
  if (!callback) {
    return EnqueueError("host callback",
                        absl::InvalidArgumentError("the callback is empty"));
  }
  return Enqueue("host callback", std::move(callback));
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

absl::Status HostStream::Enqueue(std::string name, Work work) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status known = KnownErrorLocked();
  if (!known.ok()) return known;
  PushLocked(Operation{std::move(name), std::move(work)});
  return absl::OkStatus();
}

absl::Status HostStream::EnqueueError(std::string name, absl::Status error) {
  absl::Status annotated = Annotate(name, error);
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status known = KnownErrorLocked();
  if (!known.ok()) return known;
  // Fails in stream order, so an earlier operation's error still comes first;
  // until the worker gets there, later enqueues report this one.
  PushLocked(Operation{std::move(name),
                       [code = error.code(), message = std::string(error.message())] {
                         return absl::Status(code, message);
                       }});
  queued_error_ = DeepCopyStatus(annotated);
  return annotated;
}

absl::Status HostStream::KnownErrorLocked() const {
  return DeepCopyStatus(status_.ok() ? queued_error_ : status_);
}

void HostStream::PushLocked(Operation operation) {
  queue_.push_back(std::move(operation));
  ++pending_;
  work_available_.notify_one();  // the only waiter is this stream's worker
}

void HostStream::WaitIdleLocked(std::unique_lock<std::mutex>& lock) {
  idle_.wait(lock, [this] { return pending_ == 0; });
}

absl::Status HostStream::CurrentStatus() {
  std::lock_guard<std::mutex> lock(mu_);
  return DeepCopyStatus(status_);
}

void HostStream::WorkerLoop() {
  while (true) {
    Operation operation;
    bool skip = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_available_.wait(
          lock, [this] { return shutting_down_ || !queue_.empty(); });
      if (queue_.empty()) return;  // shutting down with nothing left
      operation = std::move(queue_.front());
      queue_.pop_front();
      skip = !status_.ok() && !operation.runs_after_error;
    }
    absl::Status status =
        skip ? absl::OkStatus() : std::move(operation.work)();
    operation.work = nullptr;  // release captures before reporting completion
    std::lock_guard<std::mutex> lock(mu_);
    if (!status.ok() && status_.ok()) status_ = Annotate(operation.name, status);
    if (--pending_ == 0) idle_.notify_all();
  }
}

}  // namespace stream_executor::host
