// Chrome trace-event JSON of a ThunkTracer's events, loadable in
// chrome://tracing and Perfetto (ui.perfetto.dev).
//
// One process ("pid" 0, named `process_name`), one track per stream ("tid"
// = stream id, named "stream N" by a thread_name metadata event), and one
// complete ("ph":"X") event per measured thunk: name = profile annotation,
// or the kind name when empty; "ts"/"dur" in microseconds from the earliest
// start; "cat" "thunk"; "args" {"kind", "depth"}. Events not measured
// (ThunkTraceEvent start/end of -1) are left out.
//
// Thread-safety: pure functions (thread-safe).
#ifndef XLA_TOOLS_CHROME_TRACE_H_
#define XLA_TOOLS_CHROME_TRACE_H_

#include <deque>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/thunk_trace.h"

namespace xla::cli {

// The JSON document for `events` (see above).
std::string ChromeTraceJson(const std::deque<gpu::ThunkTraceEvent>& events,
                            absl::string_view process_name);

// Writes ChromeTraceJson to `path`; InvalidArgument naming the path when it
// cannot be written.
absl::Status WriteChromeTrace(const std::string& path, const std::deque<gpu::ThunkTraceEvent>& events,
                              absl::string_view process_name);

}  // namespace xla::cli

#endif  // XLA_TOOLS_CHROME_TRACE_H_
