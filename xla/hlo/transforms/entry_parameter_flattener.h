// EntryParameterFlattener: gives the entry computation one array parameter
// per leaf of each tuple-shaped parameter, so that every program this
// compiler emits takes arrays only (the runtime passes one buffer per
// parameter).
//
// Leaves are numbered depth-first, in parameter order: for
// `(f32[2], (s32[], f32[3]))` as parameter 1 of three, the leaves become
// parameters 1, 2 and 3 and the old parameter 2 becomes parameter 4. Each
// tuple parameter's uses read a tuple rebuilt from its leaves, which the
// tuple simplifier then folds away. The header's entry_computation_layout,
// when present, is flattened the same way. Callers pass a tuple argument as
// its leaves, in that order, as XLA's PJRT clients do
// (xla::aot::ExecuteOnLiterals accepts either form).
//
// The pass changes the program's signature, so it runs where the compiler
// fixes the artifact's signature (RunMiddleEnd), not among the passes that
// must keep a module's results for the same arguments. A token or opaque
// leaf stays a leaf parameter like any other.
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_ENTRY_PARAMETER_FLATTENER_H_
#define XLA_HLO_TRANSFORMS_ENTRY_PARAMETER_FLATTENER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class EntryParameterFlattener : public HloPass {
 public:
  absl::string_view name() const override { return "entry-parameter-flattener"; }
  // Returns whether a tuple parameter was flattened. FailedPrecondition
  // when the entry has a missing parameter number (the verifier reports it)
  // or an alias names a parameter it lacks; Unimplemented, naming the
  // parameter, when an alias or buffer donor names a whole tuple inside a
  // parameter rather than one leaf. Nothing changes on an error.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_ENTRY_PARAMETER_FLATTENER_H_
