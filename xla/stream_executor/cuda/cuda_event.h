// CudaEvent: the CUDA platform's Event (see event.h for the semantics) on a
// driver CUevent created with CU_EVENT_DISABLE_TIMING.
//
// A CudaStream issues driver calls from its own worker thread (see
// cuda_stream.h), so a record has two steps: RecordEvent takes a generation
// number at enqueue time (BeginRecord), and the stream's worker later either
// calls cuEventRecord (OK) or, when the stream holds a sticky error, records
// the error instead (MarkIssued). A generation is complete when it was issued
// OK and cuEventQuery says the device reached it, or when it was issued with
// an error (then the event carries that error).
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_EVENT_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_EVENT_H_

#include <cuda.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/event.h"

namespace stream_executor::cuda {

class CudaEvent : public Event {
 public:
  // Creates the driver event in `context` (which must outlive the event).
  // The driver's error (cuEventCreate) when that fails.
  static absl::StatusOr<std::unique_ptr<CudaEvent>> Create(
      const CudaDriverApi& api, CUcontext context);
  // Destroys the driver event (errors are ignored: nothing to report to).
  ~CudaEvent() override;

  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  Event::Status PollForStatus() override;
  absl::Status Synchronize() override;

  // The driver handle, for cuEventRecord / cuStreamWaitEvent.
  CUevent handle() const { return event_; }

  // Called by a stream when it enqueues a record; returns the generation it
  // must later pass to MarkIssued.
  int64_t BeginRecord();
  // Called by the recording stream's worker once it issued cuEventRecord for
  // `generation` (status OK), or instead of issuing it (the stream's sticky
  // error).
  void MarkIssued(int64_t generation, const absl::Status& status);
  // The latest generation recorded so far (0: never recorded).
  int64_t LatestGeneration();
  // Blocks until `generation` was issued; returns the status it was issued
  // with (OK for generation 0).
  absl::Status WaitIssued(int64_t generation);

 private:
  CudaEvent(const CudaDriverApi& api, CUcontext context, CUevent event)
      : api_(api), context_(context), event_(event) {}

  const CudaDriverApi& api_;
  const CUcontext context_;
  const CUevent event_;

  std::mutex mu_;
  std::condition_variable issued_cv_;
  int64_t recorded_ = 0;  // guarded by mu_
  int64_t issued_ = 0;    // guarded by mu_
  // The status of the most recently issued generation; guarded by mu_.
  absl::Status issued_status_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_EVENT_H_
