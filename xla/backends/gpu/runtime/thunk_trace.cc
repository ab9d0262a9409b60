#include "xla/backends/gpu/runtime/thunk_trace.h"

#include <algorithm>

#include "xla/stream_executor/stream.h"

namespace xla::gpu {

int64_t TraceClockNs() { return stream_executor::SteadyClockNs(); }

namespace {

// Stamps the clock into `*slot` when `stream` gets here
// (Stream::RecordTimestamp reads SteadyClockNs, as TraceClockNs does);
// leaves -1 when the stream refuses work (its sticky error is the thunk's
// to report).
void EnqueueStamp(stream_executor::Stream* stream, int64_t* slot) {
  if (stream == nullptr) return;
  stream->RecordTimestamp(slot).IgnoreError();
}

stream_executor::Stream* StreamOf(const Thunk& thunk, const ExecuteParams& params) {
  const int64_t id = thunk.execution_stream_id();
  if (id < 0 || id >= static_cast<int64_t>(params.streams.size())) return nullptr;
  return params.streams[id];
}

}  // namespace

int64_t ThunkTracer::Begin(const Thunk& thunk, const ExecuteParams& params) {
  const int64_t index = static_cast<int64_t>(events_.size());
  ThunkTraceEvent& e = events_.emplace_back();
  e.thunk = &thunk;
  e.kind = thunk.kind();
  e.annotation = thunk.info().profile_annotation;
  e.stream_id = thunk.execution_stream_id();
  e.depth = static_cast<int>(open_.size());
  e.parent = open_.empty() ? -1 : open_.back();
  open_.push_back(index);
  EnqueueStamp(StreamOf(thunk, params), &e.start_ns);
  return index;
}

void ThunkTracer::End(int64_t index, const ExecuteParams& params) {
  if (!open_.empty() && open_.back() == index) open_.pop_back();
  if (index < 0 || index >= static_cast<int64_t>(events_.size())) return;
  ThunkTraceEvent& e = events_[index];
  EnqueueStamp(StreamOf(*e.thunk, params), &e.end_ns);
}

void ThunkTracer::Finish() {
  // Children come after their parents: walking backwards propagates every
  // interval up the whole chain.
  for (int64_t i = static_cast<int64_t>(events_.size()) - 1; i >= 0; --i) {
    const ThunkTraceEvent& child = events_[i];
    if (child.parent < 0 || child.start_ns < 0 || child.end_ns < 0) continue;
    ThunkTraceEvent& parent = events_[child.parent];
    if (parent.start_ns < 0 || parent.end_ns < 0) continue;
    parent.start_ns = std::min(parent.start_ns, child.start_ns);
    parent.end_ns = std::max(parent.end_ns, child.end_ns);
  }
}

void ThunkTracer::Clear() {
  events_.clear();
  open_.clear();
}

}  // namespace xla::gpu
