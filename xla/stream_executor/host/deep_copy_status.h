// DeepCopyStatus: a copy of an absl::Status that shares no heap state with
// the original.
//
// absl::Status copies share one reference-counted message buffer. Debian's
// abseil is not built for ThreadSanitizer, so the count's atomics are
// invisible to it, and a status copied across threads is reported as a race
// when the last copy frees the buffer. The host platform hands statuses from
// worker threads to callers only through this copy. Payloads are not kept
// (the platform attaches none).
//
// Thread-safety: a pure function.
#ifndef XLA_STREAM_EXECUTOR_HOST_DEEP_COPY_STATUS_H_
#define XLA_STREAM_EXECUTOR_HOST_DEEP_COPY_STATUS_H_

#include <string>

#include "absl/status/status.h"

namespace stream_executor::host {

inline absl::Status DeepCopyStatus(const absl::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(status.code(), std::string(status.message()));
}

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_DEEP_COPY_STATUS_H_
