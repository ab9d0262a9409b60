#include "xla/stream_executor/cuda/cuda_event.h"

#include <string>

namespace stream_executor::cuda {
namespace {

// A copy that shares no reference-counted buffer with `status` (see
// host/deep_copy_status.h for why statuses crossing threads are copied).
absl::Status Detached(const absl::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(status.code(), std::string(status.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaEvent>> CudaEvent::Create(
    const CudaDriverApi& api, CUcontext context) {
  CU_RETURN_IF_ERROR(api, cuCtxSetCurrent, context);
  CUevent event = nullptr;
  CU_RETURN_IF_ERROR(api, cuEventCreate, &event, CU_EVENT_DISABLE_TIMING);
  return std::unique_ptr<CudaEvent>(new CudaEvent(api, context, event));
}

CudaEvent::~CudaEvent() {
  (void)CU_STATUS(api_, cuCtxSetCurrent, context_);
  (void)CU_STATUS(api_, cuEventDestroy_v2, event_);
}

int64_t CudaEvent::BeginRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++recorded_;
}

void CudaEvent::MarkIssued(int64_t generation, const absl::Status& status) {
  // Notified under the lock: a waiter may destroy the event once it sees
  // the generation issued.
  std::lock_guard<std::mutex> lock(mu_);
  if (generation > issued_) {
    issued_ = generation;
    issued_status_ = Detached(status);
  }
  issued_cv_.notify_all();
}

int64_t CudaEvent::LatestGeneration() {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

absl::Status CudaEvent::WaitIssued(int64_t generation) {
  std::unique_lock<std::mutex> lock(mu_);
  issued_cv_.wait(lock, [&] { return issued_ >= generation; });
  if (generation == 0) return absl::OkStatus();
  return Detached(issued_status_);
}

Event::Status CudaEvent::PollForStatus() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (recorded_ == 0) return Event::Status::kComplete;
    if (issued_ < recorded_) return Event::Status::kPending;
    if (!issued_status_.ok()) return Event::Status::kError;
  }
  (void)CU_STATUS(api_, cuCtxSetCurrent, context_);
  const CUresult result = api_.cuEventQuery(event_);
  if (result == CUDA_SUCCESS) return Event::Status::kComplete;
  if (result == CUDA_ERROR_NOT_READY) return Event::Status::kPending;
  return Event::Status::kError;
}

absl::Status CudaEvent::Synchronize() {
  const int64_t generation = LatestGeneration();
  if (generation == 0) return absl::OkStatus();
  absl::Status issued = WaitIssued(generation);
  if (!issued.ok()) return issued;
  absl::Status status = CU_STATUS(api_, cuCtxSetCurrent, context_);
  if (!status.ok()) return status;
  return CU_STATUS(api_, cuEventSynchronize, event_);
}

}  // namespace stream_executor::cuda
