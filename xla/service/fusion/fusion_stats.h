// CountKernels: how many kernels and library calls a fused module will
// launch, for reports and for tests that bound fusion quality.
//
// Counted over the computations the fusion passes rewrite
// (ComputationsToFuse: entry, while bodies/conditions, conditional
// branches, call targets), each once however often it runs:
//   * fusions, per FusionKind (ClassifyFusion);
//   * own thunks: every other instruction except parameter, constant,
//     tuple, get-tuple-element, bitcast, the control-flow ops themselves
//     (while, conditional, call: their bodies are counted instead) and the
//     other no-kernel ops (after-all, add-dependency, domain, opt-barrier,
//     partition-id, replica-id, get-dimension-size): dot, convolution,
//     sort, custom-call, copy, collectives, and any unfused op;
//   * kernels = fusions + own thunks.
// Instructions inside fused computations, reducers and comparators are
// never counted. Thread-safe (reads the IR only).
#ifndef XLA_SERVICE_FUSION_FUSION_STATS_H_
#define XLA_SERVICE_FUSION_FUSION_STATS_H_

#include <cstdint>
#include <map>
#include <string>

#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/fusion/fusion_analysis.h"

namespace xla {

struct FusionStats {
  int64_t fusions = 0;
  // Fusions per ClassifyFusion kind (kinds with no fusion are absent).
  std::map<FusionKind, int64_t> fusions_by_kind;
  // Unfused instructions that become their own thunk, in total and per
  // opcode name.
  int64_t own_thunks = 0;
  std::map<std::string, int64_t> own_thunks_by_opcode;
  // fusions + own_thunks.
  int64_t kernels = 0;
  // Fusions that ClassifyFusion rejected (no called computation).
  int64_t unclassified = 0;

  // One line: "kernels=3 fusions=2 (loop=1 row_normalization=1) thunks=1
  // (dot=1)".
  std::string ToString() const;
};

// Counts the kernels of `module` as described above.
FusionStats CountKernels(const HloModule& module);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_FUSION_STATS_H_
