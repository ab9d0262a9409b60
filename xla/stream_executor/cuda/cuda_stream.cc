#include "xla/stream_executor/cuda/cuda_stream.h"

#include <cmath>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/cuda/cuda_event.h"
#include "xla/stream_executor/launch_dimensions.h"
#include "xla/stream_executor/stream_checks.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {
namespace {

// The stream whose worker is the current thread (null elsewhere).
thread_local const CudaStream* current_worker_stream = nullptr;

absl::Status Detached(const absl::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(status.code(), std::string(status.message()));
}

CUdeviceptr DevicePointer(const void* opaque) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(opaque));
}

// Signals the worker that the device reached a host function.
struct HostFunctionSignal {
  std::mutex mu;
  std::condition_variable cv;
  bool reached = false;
};

void SignalReached(void* data) {
  auto* signal = static_cast<HostFunctionSignal*>(data);
  // Notified under the lock: the waiter destroys `signal` as soon as it
  // can take the lock and see `reached`.
  std::lock_guard<std::mutex> lock(signal->mu);
  signal->reached = true;
  signal->cv.notify_all();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaStream>> CudaStream::Create(
    const CudaDriverApi& api, CUcontext context, const DeviceLimits& limits,
    CudaBlas* blas) {
  CU_RETURN_IF_ERROR(api, cuCtxSetCurrent, context);
  CUstream stream = nullptr;
  CU_RETURN_IF_ERROR(api, cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  try {
    return std::unique_ptr<CudaStream>(
        new CudaStream(api, context, limits, blas, stream));
  } catch (const std::system_error& error) {
    (void)CU_STATUS(api, cuStreamDestroy_v2, stream);
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot start the worker thread of a new CUDA stream: ", error.what()));
  }
}

CudaStream::CudaStream(const CudaDriverApi& api, CUcontext context,
                       const DeviceLimits& limits, CudaBlas* blas,
                       CUstream stream)
    : api_(api),
      context_(context),
      limits_(limits),
      blas_(blas),
      stream_(stream),
      worker_([this] { WorkerLoop(); }) {}

CudaStream::~CudaStream() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    WaitIdleLocked(lock);
    shutting_down_ = true;
  }
  work_available_.notify_all();
  worker_.join();
  (void)CU_STATUS(api_, cuCtxSetCurrent, context_);
  (void)CU_STATUS(api_, cuStreamSynchronize, stream_);
  in_flight_modules_.clear();
  DropStampsLocked();
  for (CUevent event : spare_stamp_events_) (void)CU_STATUS(api_, cuEventDestroy_v2, event);
  (void)CU_STATUS(api_, cuStreamDestroy_v2, stream_);
}

absl::Status CudaStream::Memcpy(DeviceMemoryBase* device_dst,
                                const void* host_src, uint64_t size) {
  absl::Status valid = CheckMemcpyHostToDevice(device_dst, host_src, size);
  if (!valid.ok()) return EnqueueError(std::string(kMemcpyHostToDevice), valid);
  const CUdeviceptr dst = DevicePointer(device_dst->opaque);
  return Enqueue(std::string(kMemcpyHostToDevice), [this, dst, host_src, size] {
    if (size == 0) return absl::OkStatus();
    return CU_STATUS(api_, cuMemcpyHtoDAsync_v2, dst, host_src, size, stream_);
  });
}

absl::Status CudaStream::Memcpy(void* host_dst,
                                const DeviceMemoryBase& device_src,
                                uint64_t size) {
  absl::Status valid = CheckMemcpyDeviceToHost(host_dst, device_src, size);
  if (!valid.ok()) return EnqueueError(std::string(kMemcpyDeviceToHost), valid);
  const CUdeviceptr src = DevicePointer(device_src.opaque);
  return Enqueue(std::string(kMemcpyDeviceToHost), [this, host_dst, src, size] {
    if (size == 0) return absl::OkStatus();
    return CU_STATUS(api_, cuMemcpyDtoHAsync_v2, host_dst, src, size, stream_);
  });
}

absl::Status CudaStream::Memcpy(DeviceMemoryBase* device_dst,
                                const DeviceMemoryBase& device_src,
                                uint64_t size) {
  absl::Status valid = CheckMemcpyDeviceToDevice(device_dst, device_src, size);
  if (valid.ok() && size > 0 && device_dst->opaque != device_src.opaque) {
    const uintptr_t dst = reinterpret_cast<uintptr_t>(device_dst->opaque);
    const uintptr_t src = reinterpret_cast<uintptr_t>(device_src.opaque);
    if (dst < src + size && src < dst + size) {
      valid = absl::InvalidArgumentError(
          "the source and destination ranges overlap partially");
    }
  }
  if (!valid.ok()) return EnqueueError(std::string(kMemcpyDeviceToDevice), valid);
  const CUdeviceptr dst = DevicePointer(device_dst->opaque);
  const CUdeviceptr src = DevicePointer(device_src.opaque);
  return Enqueue(std::string(kMemcpyDeviceToDevice), [this, dst, src, size] {
    if (size == 0 || dst == src) return absl::OkStatus();
    return CU_STATUS(api_, cuMemcpyDtoDAsync_v2, dst, src, size, stream_);
  });
}

absl::Status CudaStream::Memset32(DeviceMemoryBase* location, uint32_t pattern,
                                  uint64_t size) {
  absl::Status valid = CheckMemset32(location, size);
  if (!valid.ok()) return EnqueueError("memset32", valid);
  const CUdeviceptr dst = DevicePointer(location->opaque);
  return Enqueue("memset32", [this, dst, pattern, size] {
    if (size == 0) return absl::OkStatus();
    return CU_STATUS(api_, cuMemsetD32Async, dst, pattern, size / 4, stream_);
  });
}

absl::Status CudaStream::MemZero(DeviceMemoryBase* location, uint64_t size) {
  absl::Status valid = CheckDeviceBuffer("destination", location, size);
  if (!valid.ok()) return EnqueueError("memzero", valid);
  const CUdeviceptr dst = DevicePointer(location->opaque);
  return Enqueue("memzero", [this, dst, size] {
    if (size == 0) return absl::OkStatus();
    return CU_STATUS(api_, cuMemsetD8Async, dst, 0, size, stream_);
  });
}

absl::Status CudaStream::Launch(const Kernel& kernel,
                                const LaunchDimensions& dims,
                                absl::Span<const DeviceMemoryBase> args) {
  std::string name = absl::StrCat("kernel launch '", kernel.name(), "'");
  const auto* cuda_kernel = dynamic_cast<const CudaKernel*>(&kernel);
  if (cuda_kernel == nullptr) {
    return EnqueueError(name, absl::InvalidArgumentError(absl::StrCat(
                                  "kernel of module '", kernel.module_name(),
                                  "' was not loaded by the CUDA platform")));
  }
  absl::Status valid = ValidateLaunchDimensions(dims, limits_);
  if (!valid.ok()) return EnqueueError(name, valid);
  std::vector<CUdeviceptr> pointers;
  pointers.reserve(args.size());
  for (const DeviceMemoryBase& arg : args) {
    pointers.push_back(DevicePointer(arg.opaque));
  }
  return Enqueue(name, [this, module = cuda_kernel->module(),
                        function = cuda_kernel->function(),
                        pointers = std::move(pointers), dims]() mutable {
    // cuLaunchKernel reads each parameter through its pointer before it
    // returns, so `pointers` only has to live until then.
    std::vector<void*> params;
    params.reserve(pointers.size());
    for (CUdeviceptr& pointer : pointers) params.push_back(&pointer);
    absl::Status status = CU_STATUS(
        api_, cuLaunchKernel, function, static_cast<unsigned>(dims.grid.x),
        static_cast<unsigned>(dims.grid.y), static_cast<unsigned>(dims.grid.z),
        static_cast<unsigned>(dims.block.x),
        static_cast<unsigned>(dims.block.y),
        static_cast<unsigned>(dims.block.z),
        static_cast<unsigned>(dims.shared_memory_bytes), stream_,
        params.empty() ? nullptr : params.data(), nullptr);
    if (status.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_modules_.push_back(std::move(module));
    }
    return status;
  });
}

absl::Status CudaStream::Gemm(const BlasGemmConfig& config,
                              const DeviceMemoryBase& lhs,
                              const DeviceMemoryBase& rhs,
                              const DeviceMemoryBase& out) {
  if (blas_ == nullptr) {
    return RejectAtEnqueue(
        "gemm", absl::FailedPreconditionError(
                    "this CUDA stream has no BLAS: create it through "
                    "CudaExecutor::CreateStream"));
  }
  return blas_->Gemm(*this, config, lhs, rhs, out);
}

absl::Status CudaBlas::Convolution(CudaStream& stream, const DnnConvolutionPlan& /*plan*/,
                                   const DeviceMemoryBase& /*x*/, const DeviceMemoryBase& /*w*/,
                                   const DeviceMemoryBase& /*y*/,
                                   const DeviceMemoryBase& /*workspace*/,
                                   const DeviceMemoryBase& /*bias*/) {
  return stream.RejectAtEnqueue(
      "convolution", absl::FailedPreconditionError("this CUDA stream's libraries have no DNN"));
}

absl::Status CudaStream::Convolution(const DnnConvolutionPlan& plan, const DeviceMemoryBase& x,
                                     const DeviceMemoryBase& w, const DeviceMemoryBase& y,
                                     const DeviceMemoryBase& workspace,
                                     const DeviceMemoryBase& bias) {
  if (blas_ == nullptr) {
    return RejectAtEnqueue("convolution",
                           absl::FailedPreconditionError(
                               "this CUDA stream has no DNN library: create it through "
                               "CudaExecutor::CreateStream"));
  }
  return blas_->Convolution(*this, plan, x, w, y, workspace, bias);
}

absl::Status CudaBlas::Fft(CudaStream& stream, const FftPlan& /*plan*/,
                           const DeviceMemoryBase& /*input*/, const DeviceMemoryBase& /*output*/,
                           const DeviceMemoryBase& /*workspace*/) {
  return stream.RejectAtEnqueue(
      "fft", absl::FailedPreconditionError("this CUDA stream's libraries have no FFT"));
}

absl::Status CudaStream::Fft(const FftPlan& plan, const DeviceMemoryBase& input,
                             const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) {
  if (blas_ == nullptr) {
    return RejectAtEnqueue("fft", absl::FailedPreconditionError(
                                      "this CUDA stream has no FFT library: create it through "
                                      "CudaExecutor::CreateStream"));
  }
  return blas_->Fft(*this, plan, input, output, workspace);
}

absl::Status CudaStream::RecordEvent(Event* event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(event);
  if (cuda_event == nullptr) {
    return EnqueueError("record event", absl::InvalidArgumentError(
                                            "the event is null or was not "
                                            "created by the CUDA platform"));
  }
  const int64_t generation = cuda_event->BeginRecord();
  std::lock_guard<std::mutex> lock(mu_);
  // Queued even on a failed stream, so that waiters wake up and see the error.
  PushLocked(Operation{
      "record event",
      [this, cuda_event, generation] {
        absl::Status status = CurrentStatus();
        if (status.ok()) {
          status = CU_STATUS(api_, cuEventRecord, cuda_event->handle(), stream_);
        }
        cuda_event->MarkIssued(generation, status);
        return status;
      },
      /*runs_after_error=*/true});
  return KnownErrorLocked();
}

absl::Status CudaStream::WaitFor(Event* event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(event);
  if (cuda_event == nullptr) {
    return EnqueueError("wait for event", absl::InvalidArgumentError(
                                              "the event is null or was not "
                                              "created by the CUDA platform"));
  }
  const int64_t generation = cuda_event->LatestGeneration();
  if (generation == 0) {  // never recorded: nothing to wait for
    std::lock_guard<std::mutex> lock(mu_);
    return KnownErrorLocked();
  }
  return Enqueue("wait for event", [this, cuda_event, generation] {
    absl::Status issued = cuda_event->WaitIssued(generation);
    if (!issued.ok()) {
      return absl::Status(issued.code(),
                          absl::StrCat("the event was recorded on a stream "
                                       "that had failed: ",
                                       issued.message()));
    }
    return CU_STATUS(api_, cuStreamWaitEvent, stream_, cuda_event->handle(),
                     CU_EVENT_WAIT_DEFAULT);
  });
}

absl::Status CudaStream::DoHostCallback(
    absl::AnyInvocable<absl::Status() &&> callback) {
  if (!callback) {
    return EnqueueError("host callback",
                        absl::InvalidArgumentError("the callback is empty"));
  }
  return Enqueue("host callback", [this, callback = std::move(callback)]() mutable {
    RETURN_IF_ERROR(WaitUntilDeviceReachesHere());
    return std::move(callback)();
  });
}

absl::Status CudaStream::WaitUntilDeviceReachesHere() {
  HostFunctionSignal signal;
  RETURN_IF_ERROR(
      CU_STATUS(api_, cuLaunchHostFunc, stream_, &SignalReached, &signal));
  std::unique_lock<std::mutex> lock(signal.mu);
  signal.cv.wait(lock, [&signal] { return signal.reached; });
  return absl::OkStatus();
}

absl::StatusOr<CUevent> CudaStream::TakeStampEventLocked() {
  if (!spare_stamp_events_.empty()) {
    const CUevent event = spare_stamp_events_.back();
    spare_stamp_events_.pop_back();
    return event;
  }
  CU_RETURN_IF_ERROR(api_, cuCtxSetCurrent, context_);
  CUevent event = nullptr;
  CU_RETURN_IF_ERROR(api_, cuEventCreate, &event, CU_EVENT_DEFAULT);  // timing on
  return event;
}

absl::Status CudaStream::RecordTimestamp(int64_t* ns) {
  if (ns == nullptr) return absl::InvalidArgumentError("timestamp: the slot is null");
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status known = KnownErrorLocked();
  if (!known.ok()) return known;
  absl::StatusOr<CUevent> event = TakeStampEventLocked();
  if (!event.ok()) return AnnotateStreamError("timestamp", event.status());
  const CUevent recorded = *event;
  if (stamp_anchor_ != nullptr) {
    const int64_t sequence = ++enqueued_stamps_;
    stamps_.push_back(PendingStamp{recorded, ns, sequence});
    PushLocked(Operation{"timestamp", [this, recorded, sequence] {
      RETURN_IF_ERROR(CU_STATUS(api_, cuEventRecord, recorded, stream_));
      std::lock_guard<std::mutex> issued_lock(mu_);
      issued_stamps_ = sequence;
      return absl::OkStatus();
    }});
    return absl::OkStatus();
  }
  stamp_anchor_ = recorded;
  stamp_anchor_ns_ = -1;
  PushLocked(Operation{"timestamp", [this, recorded, ns] {
    RETURN_IF_ERROR(CU_STATUS(api_, cuEventRecord, recorded, stream_));
    RETURN_IF_ERROR(WaitUntilDeviceReachesHere());
    const int64_t now = SteadyClockNs();
    *ns = now;
    std::lock_guard<std::mutex> anchor_lock(mu_);
    stamp_anchor_ns_ = now;
    return absl::OkStatus();
  }});
  return absl::OkStatus();
}

void CudaStream::DropStampsLocked() {
  for (const PendingStamp& stamp : stamps_) spare_stamp_events_.push_back(stamp.event);
  stamps_.clear();
  if (stamp_anchor_ != nullptr) spare_stamp_events_.push_back(stamp_anchor_);
  stamp_anchor_ = nullptr;
  stamp_anchor_ns_ = -1;
}

void CudaStream::ReadStampsLocked() {
  if (stamp_anchor_ == nullptr) return;
  if (!status_.ok()) return DropStampsLocked();  // a failed stream takes no stamp
  if (stamp_anchor_ns_ < 0) return;               // the anchor is still queued
  std::vector<PendingStamp> unread;
  for (const PendingStamp& stamp : stamps_) {
    if (stamp.sequence > issued_stamps_) {
      unread.push_back(stamp);  // enqueued while the synchronize ran
      continue;
    }
    float ms = 0;
    const absl::Status elapsed =
        CU_STATUS(api_, cuEventElapsedTime, &ms, stamp_anchor_, stamp.event);
    if (elapsed.code() == absl::StatusCode::kUnavailable) {  // CUDA_ERROR_NOT_READY
      unread.push_back(stamp);  // issued after the synchronize began
      continue;
    }
    if (elapsed.ok()) *stamp.slot = stamp_anchor_ns_ + std::llround(static_cast<double>(ms) * 1e6);
    spare_stamp_events_.push_back(stamp.event);
  }
  stamps_.swap(unread);
  if (stamps_.empty()) DropStampsLocked();
}

absl::Status CudaStream::EnqueueDriverWork(
    std::string name, absl::AnyInvocable<absl::Status(CUstream) &&> work) {
  if (!work) {
    return EnqueueError(std::move(name),
                        absl::InvalidArgumentError("the work is empty"));
  }
  return Enqueue(std::move(name), [this, work = std::move(work)]() mutable {
    return std::move(work)(stream_);
  });
}

absl::Status CudaStream::RejectAtEnqueue(std::string name, absl::Status error) {
  if (error.ok()) {
    error = absl::InternalError("RejectAtEnqueue called with an OK status");
  }
  return EnqueueError(std::move(name), std::move(error));
}

absl::Status CudaStream::BlockHostUntilDone() {
  if (current_worker_stream == this) {
    return absl::FailedPreconditionError(
        "BlockHostUntilDone called from a host callback of the same stream "
        "would deadlock");
  }
  std::vector<std::shared_ptr<const CudaModuleHandle>> finished_modules;
  std::unique_lock<std::mutex> lock(mu_);
  WaitIdleLocked(lock);
  finished_modules.swap(in_flight_modules_);
  // The device wait runs unlocked: other threads (host callbacks of other
  // streams included) may keep enqueueing meanwhile.
  lock.unlock();
  absl::Status synced = CU_STATUS(api_, cuCtxSetCurrent, context_);
  if (synced.ok()) synced = CU_STATUS(api_, cuStreamSynchronize, stream_);
  lock.lock();
  if (!synced.ok() && status_.ok()) {
    status_ = AnnotateStreamError("stream synchronize", synced);
  }
  ReadStampsLocked();
  absl::Status result = Detached(status_);
  lock.unlock();
  return result;  // `finished_modules` unloads after the lock is released
}

absl::Status CudaStream::Enqueue(std::string name, Work work) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status known = KnownErrorLocked();
  if (!known.ok()) return known;
  PushLocked(Operation{std::move(name), std::move(work)});
  return absl::OkStatus();
}

absl::Status CudaStream::EnqueueError(std::string name, absl::Status error) {
  absl::Status annotated = AnnotateStreamError(name, error);
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status known = KnownErrorLocked();
  if (!known.ok()) return known;
  // Fails in stream order: earlier work still runs and an earlier error
  // still comes first; until the worker gets here, enqueues report this one.
  PushLocked(Operation{std::move(name),
                       [code = error.code(),
                        message = std::string(error.message())] {
                         return absl::Status(code, message);
                       }});
  queued_error_ = Detached(annotated);
  return annotated;
}

absl::Status CudaStream::KnownErrorLocked() const {
  return Detached(status_.ok() ? queued_error_ : status_);
}

void CudaStream::PushLocked(Operation operation) {
  queue_.push_back(std::move(operation));
  ++pending_;
  work_available_.notify_one();  // the only waiter is this stream's worker
}

void CudaStream::WaitIdleLocked(std::unique_lock<std::mutex>& lock) {
  idle_.wait(lock, [this] { return pending_ == 0; });
}

absl::Status CudaStream::CurrentStatus() {
  std::lock_guard<std::mutex> lock(mu_);
  return Detached(status_);
}

void CudaStream::WorkerLoop() {
  current_worker_stream = this;
  // Every driver call of this thread runs in the stream's context.
  {
    absl::Status context_status = CU_STATUS(api_, cuCtxSetCurrent, context_);
    std::lock_guard<std::mutex> lock(mu_);
    // Nothing can be issued then; event records still complete with it.
    if (!context_status.ok()) status_ = AnnotateStreamError("stream worker", context_status);
  }
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
    if (!status.ok() && status_.ok()) status_ = AnnotateStreamError(operation.name, status);
    if (--pending_ == 0) idle_.notify_all();
  }
}

}  // namespace stream_executor::cuda
