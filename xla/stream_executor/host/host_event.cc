#include "xla/stream_executor/host/host_event.h"

#include "xla/stream_executor/host/deep_copy_status.h"

namespace stream_executor::host {

Event::Status HostEvent::PollForStatus() {
  std::lock_guard<std::mutex> lock(mu_);
  if (completed_ < recorded_) return Event::Status::kPending;
  return status_.ok() ? Event::Status::kComplete : Event::Status::kError;
}

absl::Status HostEvent::Synchronize() {
  return WaitForGeneration(LatestGeneration());
}

int64_t HostEvent::BeginRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++recorded_;
}

void HostEvent::Complete(int64_t generation, const absl::Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Records of one stream complete in order; across streams the newest wins.
    if (generation < completed_) return;
    completed_ = generation;
    status_ = DeepCopyStatus(status);
  }
  completed_cv_.notify_all();
}

int64_t HostEvent::LatestGeneration() {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

absl::Status HostEvent::WaitForGeneration(int64_t generation) {
  if (generation == 0) return absl::OkStatus();
  std::unique_lock<std::mutex> lock(mu_);
  completed_cv_.wait(lock, [&] { return completed_ >= generation; });
  return DeepCopyStatus(status_);
}

}  // namespace stream_executor::host
