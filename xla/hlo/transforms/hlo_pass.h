// HloPass: one module-to-module transformation.
//
// A pass rewrites the module in place and reports whether it changed
// anything. It must keep the module's meaning (the evaluator checks this in
// tests) and leave it verifiable. Passes are not thread-safe: one pass runs on
// one module at a time.
#ifndef XLA_HLO_TRANSFORMS_HLO_PASS_H_
#define XLA_HLO_TRANSFORMS_HLO_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

class HloPass {
 public:
  virtual ~HloPass() = default;

  // A short stable name, used in dumps, timings and error messages.
  virtual absl::string_view name() const = 0;

  // Runs the pass. Returns true when the module changed. An error leaves the
  // module in an unspecified but destructible state.
  virtual absl::StatusOr<bool> Run(HloModule* module) = 0;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_HLO_PASS_H_
