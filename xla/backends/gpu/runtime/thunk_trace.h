// ThunkTracer: records, for one execution, when every thunk ran on its
// stream.
//
// SequentialThunk calls Begin/End around each thunk it runs when
// ExecuteParams::tracer is set (nested sequences -- while bodies, conditional
// branches, async bodies -- do the same, one level deeper). Begin and End each
// record a timestamp on the thunk's stream (Stream::RecordTimestamp: a host
// callback reading the steady clock on the host, timing events on CUDA), so
// an event's [start_ns, end_ns] spans the thunk's work as the stream ran it,
// not the time it took to enqueue it. Nesting is tracked at enqueue time:
// every event knows its depth and its enclosing event.
//
// A container thunk (while, conditional, sequential, async start) may put
// work on other streams than its own; Finish() widens each container's
// interval to cover its children's, so a child always lies inside its parent.
//
// An event whose stamp could not be taken (the stream already failed)
// keeps start_ns or end_ns at -1 ("not measured"); tracing never changes the
// status of the execution.
//
// Thread-safety: Begin/End must be called from the one thread that enqueues
// the execution (ExecuteOnStream recursion is single-threaded); the stamps
// they take write only their own event. Read events() only after every
// stream of the execution has been waited for with BlockHostUntilDone
// (GpuExecutable::Execute returns then; CUDA writes its stamps there) and
// Finish() has been called. One tracer serves one execution at a time.
#ifndef XLA_BACKENDS_GPU_RUNTIME_THUNK_TRACE_H_
#define XLA_BACKENDS_GPU_RUNTIME_THUNK_TRACE_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

// One executed thunk.
struct ThunkTraceEvent {
  // The thunk (owned by the executable; valid while it lives).
  const Thunk* thunk = nullptr;
  Thunk::Kind kind = Thunk::Kind::kSequential;
  std::string annotation;
  int64_t stream_id = 0;
  // 0 for thunks of the root sequence, +1 per level of nesting.
  int depth = 0;
  // Index (in events()) of the enclosing event; -1 at depth 0.
  int64_t parent = -1;
  // Steady-clock nanoseconds; -1 when not measured.
  int64_t start_ns = -1;
  int64_t end_ns = -1;
};

class ThunkTracer {
 public:
  ThunkTracer() = default;
  ThunkTracer(const ThunkTracer&) = delete;
  ThunkTracer& operator=(const ThunkTracer&) = delete;

  // Opens an event for `thunk` (about to be executed with `params`) and
  // enqueues its start stamp on the thunk's stream. Returns the event's index
  // for End.
  int64_t Begin(const Thunk& thunk, const ExecuteParams& params);
  // Closes event `index` (the latest open one): enqueues its end stamp on
  // the same stream. Call it whether or not the thunk succeeded.
  void End(int64_t index, const ExecuteParams& params);

  // After the execution is done: widens container events to cover their
  // children (see above). Idempotent.
  void Finish();
  // Every event in the order the thunks were enqueued (parents before their
  // children).
  const std::deque<ThunkTraceEvent>& events() const { return events_; }
  // Forgets all events (to reuse the tracer for another execution).
  void Clear();

 private:
  std::deque<ThunkTraceEvent> events_;  // deque: pending stamps hold pointers
  std::vector<int64_t> open_;           // enclosing events at enqueue time
};

// Steady-clock time in nanoseconds (the clock of ThunkTraceEvent).
int64_t TraceClockNs();

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_THUNK_TRACE_H_
