// AsyncWrapperInliner: turns XLA's generic asynchronous wrapper
//
//   s = ((operands...), result, context...) async-start(operands...), calls=c
//   u = async-update(s)           // zero or more
//   d = result async-done(u)
//
// into the synchronous `d = result call(operands...), to_apply=c`, which
// CallInliner (run after this pass) then inlines. The wrapper only says the
// computation may run on another stream; its value is c applied to the
// operands, so the rewrite keeps every result. This compiler schedules the
// wrapped ops itself (collectives that should overlap use their own
// -start/-done forms).
//
// A chain is rewritten only when the start, every update and the done form
// a single line (each used only by the next; no control edges) and the
// computation runs on the main thread (no execution_thread); others are
// left for the targets to refuse by name.
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_ASYNC_WRAPPER_INLINER_H_
#define XLA_HLO_TRANSFORMS_ASYNC_WRAPPER_INLINER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class AsyncWrapperInliner : public HloPass {
 public:
  absl::string_view name() const override { return "async-wrapper-inliner"; }
  // Returns whether an async-start/done chain became a call.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_ASYNC_WRAPPER_INLINER_H_
