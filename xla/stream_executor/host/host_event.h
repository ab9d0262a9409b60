// HostEvent: the host platform's Event (see event.h for the semantics).
//
// Each RecordEvent takes a new generation number at enqueue time; the
// recording stream marks that generation complete (with its sticky status)
// when it reaches the record. Waiters capture the latest generation at the
// time they start waiting and block until it is complete.
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_EVENT_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_EVENT_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "absl/status/status.h"
#include "xla/stream_executor/event.h"

namespace stream_executor::host {

class HostEvent : public Event {
 public:
  HostEvent() = default;

  Event::Status PollForStatus() override;
  absl::Status Synchronize() override;

  // Called by a stream when it enqueues a record; returns the generation
  // that the stream must later pass to Complete.
  int64_t BeginRecord();
  // Called by the recording stream when it reaches generation `generation`;
  // `status` is the stream's sticky status at that point.
  void Complete(int64_t generation, const absl::Status& status);
  // The latest generation recorded so far (0: never recorded).
  int64_t LatestGeneration();
  // Blocks until `generation` is complete; returns the status it completed
  // with (OK for generation 0).
  absl::Status WaitForGeneration(int64_t generation);

 private:
  std::mutex mu_;
  std::condition_variable completed_cv_;
  int64_t recorded_ = 0;   // guarded by mu_
  int64_t completed_ = 0;  // guarded by mu_
  // The status of the most recently completed generation; guarded by mu_.
  absl::Status status_;
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_EVENT_H_
