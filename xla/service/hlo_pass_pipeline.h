// HloPassPipeline: runs passes in order, optionally verifying and dumping the
// module after each, and records each pass's time and whether it changed the
// module.
//
// Errors: a failing pass's status, prefixed with the pass name; or, with
// verify_after_each, "verifier failed after pass 'NAME': ..." naming the
// instruction. The verifier runs after each pass that reports a change (a
// pass that changes the module must say so). Dump failures (unwritable directory) are errors too.
// Not thread-safe: one pipeline runs one module at a time.
//
// Progress: before each pass a pipeline calls PipelineOptions::before_pass
// and the observer of the innermost ScopedPassObserver of the running
// thread (so that a caller can watch pipelines built deep inside other code,
// e.g. OptimizeModule, without threading a callback through).
#ifndef XLA_SERVICE_HLO_PASS_PIPELINE_H_
#define XLA_SERVICE_HLO_PASS_PIPELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

// Called before a pass runs with the pipeline's and the pass's names.
using PassObserver = std::function<void(absl::string_view pipeline, absl::string_view pass)>;

// Installs `observer` for every HloPassPipeline::Run on the constructing
// thread until destruction; scopes nest (the innermost observes, the outer
// ones are restored). Construct and destroy on the same thread. The
// observer runs on that thread.
class ScopedPassObserver {
 public:
  explicit ScopedPassObserver(PassObserver observer);
  ~ScopedPassObserver();
  ScopedPassObserver(const ScopedPassObserver&) = delete;
  ScopedPassObserver& operator=(const ScopedPassObserver&) = delete;

  // The innermost observer of the calling thread, or null.
  static const PassObserver* Current();

 private:
  PassObserver observer_;
  const ScopedPassObserver* previous_;
};

struct PipelineOptions {
  // Run the verifier after every pass that changed the module (on in tests
  // and debug builds).
  bool verify_after_each =
#ifdef NDEBUG
      false;
#else
      true;
#endif
  // When non-empty, write the module after each pass to
  // DIR/NN.<pipeline>.<pass>.hlo (NN counts passes from 00).
  std::string dump_dir;
  // After a pass that changed the module, reorder every computation's
  // instruction list into post order (operands before users), so dumps read
  // top to bottom. Skipped once the module is scheduled (is_scheduled=true),
  // where the list order is the schedule.
  bool keep_post_order = true;
  // When set, called before each pass (in addition to the thread's
  // ScopedPassObserver).
  PassObserver before_pass;
};

struct PassTiming {
  std::string pass;
  double seconds = 0;
  bool changed = false;
};

class HloPassPipeline : public HloPass {
 public:
  explicit HloPassPipeline(std::string name, PipelineOptions options = {})
      : name_(std::move(name)), options_(std::move(options)) {}

  // Appends a pass, constructed in place; returns it.
  template <typename T, typename... Args>
  T& AddPass(Args&&... args) {
    auto pass = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *pass;
    passes_.push_back(std::move(pass));
    return ref;
  }

  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  // One entry per pass run by the last Run (nested pipelines report their
  // own passes, prefixed "pipeline/").
  const std::vector<PassTiming>& timings() const { return timings_; }
  // The timings as a table, one line per pass.
  std::string TimingsReport() const;

 private:
  std::string name_;
  PipelineOptions options_;
  std::vector<std::unique_ptr<HloPass>> passes_;
  std::vector<PassTiming> timings_;
};

}  // namespace xla

#endif  // XLA_SERVICE_HLO_PASS_PIPELINE_H_
