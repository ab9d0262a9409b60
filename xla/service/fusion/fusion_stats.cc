#include "xla/service/fusion/fusion_stats.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "xla/service/fusion/fusion_util.h"

namespace xla {
namespace {

// Instructions that launch nothing by themselves.
constexpr HloOpcode kNoKernel[] = {
    HloOpcode::kParameter,     HloOpcode::kConstant,          HloOpcode::kTuple,
    HloOpcode::kGetTupleElement, HloOpcode::kBitcast,         HloOpcode::kWhile,
    HloOpcode::kConditional,   HloOpcode::kCall,              HloOpcode::kAfterAll,
    HloOpcode::kAddDependency, HloOpcode::kDomain,            HloOpcode::kOptimizationBarrier,
    HloOpcode::kPartitionId,   HloOpcode::kReplicaId,         HloOpcode::kGetDimensionSize,
};

bool LaunchesNothing(HloOpcode op) {
  return std::find(std::begin(kNoKernel), std::end(kNoKernel), op) != std::end(kNoKernel);
}

}  // namespace

std::string FusionStats::ToString() const {
  std::string s = absl::StrCat("kernels=", kernels, " fusions=", fusions);
  if (!fusions_by_kind.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [kind, n] : fusions_by_kind) {
      absl::StrAppend(&s, first ? "" : " ", FusionKindName(kind), "=", n);
      first = false;
    }
    s += ")";
  }
  absl::StrAppend(&s, " thunks=", own_thunks);
  if (!own_thunks_by_opcode.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [name, n] : own_thunks_by_opcode) {
      absl::StrAppend(&s, first ? "" : " ", name, "=", n);
      first = false;
    }
    s += ")";
  }
  if (unclassified > 0) absl::StrAppend(&s, " unclassified=", unclassified);
  return s;
}

FusionStats CountKernels(const HloModule& module) {
  FusionStats stats;
  for (const HloComputation* c : ComputationsToFuse(module)) {
    for (const auto& instr : c->instructions()) {
      const HloOpcode op = instr->opcode();
      if (op == HloOpcode::kFusion) {
        ++stats.fusions;
        absl::StatusOr<FusionKindAnalysis> a = ClassifyFusion(*instr);
        if (a.ok()) {
          ++stats.fusions_by_kind[a->kind];
        } else {
          ++stats.unclassified;
        }
        continue;
      }
      if (LaunchesNothing(op)) continue;
      ++stats.own_thunks;
      ++stats.own_thunks_by_opcode[std::string(HloOpcodeName(op))];
    }
  }
  stats.kernels = stats.fusions + stats.own_thunks;
  return stats;
}

}  // namespace xla
