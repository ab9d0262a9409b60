#include "xla/backends/gpu/compiler/compile_progress.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace xla::gpu {

std::string CompileProgressEvent::ToString() const {
  const std::string head = absl::StrCat("[", phase, "]");
  switch (kind) {
    case Kind::kPhase:
      return head;
    case Kind::kPass:
      return absl::StrCat(head, " pass ", pass);
    case Kind::kKernels:
      return absl::StrCat(head, " kernels ", done, "/", total, " (",
                          total > 0 ? done * 100 / total : 100, "%)");
  }
  return head;
}

CompileProgress::CompileProgress(CompileProgressCallback callback, absl::Duration min_interval,
                                 double min_fraction)
    : callback_(std::move(callback)), min_interval_(min_interval), min_fraction_(min_fraction) {}

void CompileProgress::Report(const CompileProgressEvent& event, absl::Time now) {
  last_report_ = now;
  callback_(event);
}

void CompileProgress::EnterPhase(absl::string_view phase) {
  if (!callback_) return;
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = std::string(phase);
  last_done_ = -1;
  CompileProgressEvent event;
  event.kind = CompileProgressEvent::Kind::kPhase;
  event.phase = phase_;
  Report(event, absl::Now());
}

void CompileProgress::Pass(absl::string_view pipeline, absl::string_view pass) {
  if (!callback_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  if (now - last_report_ < min_interval_) return;
  CompileProgressEvent event;
  event.kind = CompileProgressEvent::Kind::kPass;
  event.phase = phase_;
  event.pass = absl::StrCat(pipeline, "/", pass);
  Report(event, now);
}

void CompileProgress::Kernels(int64_t done, int64_t total) {
  if (!callback_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (done <= last_done_) return;
  const absl::Time now = absl::Now();
  const bool finished = done >= total;
  const bool far_enough =
      last_done_ < 0 ||
      static_cast<double>(done - last_done_) >= min_fraction_ * static_cast<double>(total);
  if (!finished && !far_enough && now - last_report_ < min_interval_) return;
  last_done_ = done;
  CompileProgressEvent event;
  event.kind = CompileProgressEvent::Kind::kKernels;
  event.phase = phase_;
  event.done = done;
  event.total = total;
  Report(event, now);
}

}  // namespace xla::gpu
