#include "xla/stream_executor/event.h"

namespace stream_executor {

absl::string_view EventStatusName(Event::Status status) {
  switch (status) {
    case Event::Status::kPending:
      return "pending";
    case Event::Status::kComplete:
      return "complete";
    case Event::Status::kError:
      return "error";
  }
  return "unknown";
}

}  // namespace stream_executor
