// CallInliner: replaces each `call` instruction with a copy of its callee's
// body.
//
// Parameters of the callee become the call's operands; the copied root
// replaces the call. Copied instructions keep their names where free in the
// caller (`name.N` otherwise) and their control edges among themselves.
// Calls with control edges, and calls to computations on another execution
// thread, are left alone. The callee itself is left for HloDCE to remove once
// unreachable. Callees are inlined before callers, so nested calls disappear
// in one run.
//
// With `inline_fusions`, fusion instructions (`fusion(...), calls=f`) are
// inlined the same way: a module that arrives already fused (XLA's own
// optimized dumps, Triton GEMM fusions) is unfused so this compiler's
// fusion passes decide afresh. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_CALL_INLINER_H_
#define XLA_HLO_TRANSFORMS_CALL_INLINER_H_

#include "absl/status/status.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {

class CallInliner : public HloPass {
 public:
  explicit CallInliner(bool inline_fusions = false) : inline_fusions_(inline_fusions) {}
  absl::string_view name() const override { return "call-inliner"; }
  // Fails only on malformed IR (a call whose operand count does not match
  // its callee's parameters), naming the call.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool inline_fusions_;
};

// Inlines one `call` (or `fusion`) instruction. Fails as Run does.
absl::Status InlineCall(HloInstruction* call);
// Same, taking new names from `names` (which must cover the caller), so
// that inlining many calls into one computation reads its names once.
absl::Status InlineCall(HloInstruction* call, NameUniquer* names);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_CALL_INLINER_H_
