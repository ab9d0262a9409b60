// Progress reports of a long compilation (`xla_aot compile -v`): which phase
// runs, which pass of the middle end, and how many kernels are done out of
// the total.
//
// The compilers (host_compiler.h, gpu_compiler.h) own one CompileProgress
// per compilation and feed it; the user gives a CompileProgressCallback.
// Phase changes are always reported; passes and kernel counts are
// throttled: a pass is reported when `min_interval` passed since the last
// report, a kernel count when it advanced by `min_fraction` of the total or
// `min_interval` passed, and always when it reaches the total. A zero
// interval and fraction report everything.
//
// Thread-safety: every method is thread-safe (kernel parts compile on
// worker threads); the callback is called under a lock, so calls never
// overlap, and it must not call back into the same CompileProgress.
#ifndef XLA_BACKENDS_GPU_COMPILER_COMPILE_PROGRESS_H_
#define XLA_BACKENDS_GPU_COMPILER_COMPILE_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace xla::gpu {

// One progress report.
struct CompileProgressEvent {
  enum class Kind { kPhase, kPass, kKernels };
  Kind kind = Kind::kPhase;
  // The running phase: "middle_end", "thunk_emission", "kernel_compilation",
  // "finalize" (host), or "middle_end", "kernel_emission",
  // "kernel_compilation", "finalize" (NVPTX).
  std::string phase;
  // kPass: "<pipeline>/<pass>" of the pass about to run.
  std::string pass;
  // kKernels: kernels done so far and in total (done <= total).
  int64_t done = 0;
  int64_t total = 0;

  // One human line: "[middle_end] pass simplify.1/cse",
  // "[kernel_compilation] kernels 17/208 (8%)", "[finalize]".
  std::string ToString() const;
};

using CompileProgressCallback = std::function<void(const CompileProgressEvent&)>;

class CompileProgress {
 public:
  // A null `callback` makes every method a no-op.
  explicit CompileProgress(CompileProgressCallback callback,
                           absl::Duration min_interval = absl::Seconds(1),
                           double min_fraction = 0.05);

  // Whether reports go anywhere (a callback was given).
  bool enabled() const { return static_cast<bool>(callback_); }

  // Starts `phase`; always reported.
  void EnterPhase(absl::string_view phase);
  // The pass `pipeline`/`pass` of the current phase is about to run.
  void Pass(absl::string_view pipeline, absl::string_view pass);
  // `done` of `total` kernels are finished in the current phase. Counts
  // that go backwards are ignored.
  void Kernels(int64_t done, int64_t total);

 private:
  void Report(const CompileProgressEvent& event, absl::Time now);

  CompileProgressCallback callback_;
  absl::Duration min_interval_;
  double min_fraction_;
  std::mutex mu_;
  std::string phase_;
  absl::Time last_report_ = absl::InfinitePast();
  int64_t last_done_ = -1;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_COMPILE_PROGRESS_H_
