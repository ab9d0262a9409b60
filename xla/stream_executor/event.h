// Event: a marker recorded into a stream's queue that other streams and the
// host can wait for.
//
// Stream::RecordEvent(e) enqueues a record; the event completes when the
// stream reaches it, that is when all work enqueued on that stream before the
// record has finished. Stream::WaitFor(e) on another stream makes that
// stream's later work wait for the most recent record of `e` made before the
// WaitFor call (like cudaStreamWaitEvent). An event that was never recorded
// counts as complete.
//
// Errors: a record still completes the event when its stream holds a sticky
// error, but the event then carries that error: Synchronize returns it,
// PollForStatus says kError, and a stream waiting on the event takes the error
// as its own sticky error (its later work is skipped), because the data it
// waited for was never produced.
//
// An event should be recorded on one stream at a time; it may be recorded
// again after it completed.
//
// Ownership: created by StreamExecutor::CreateEvent; the caller owns it. It
// must outlive every stream operation that records or waits for it (call
// BlockHostUntilDone on those streams or Synchronize on the event first).
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_EVENT_H_
#define XLA_STREAM_EXECUTOR_EVENT_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace stream_executor {

class Event {
 public:
  enum class Status {
    kPending,   // the latest record has not been reached yet
    kComplete,  // reached (or never recorded)
    kError,     // reached on a stream that holds an error
  };

  virtual ~Event() = default;

  // Non-blocking query of the latest record.
  virtual Status PollForStatus() = 0;

  // Blocks the calling thread until the latest record made before this call
  // has completed. Returns OK, or the error of the stream that recorded it.
  virtual absl::Status Synchronize() = 0;
};

// "pending", "complete" or "error".
absl::string_view EventStatusName(Event::Status status);

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_EVENT_H_
