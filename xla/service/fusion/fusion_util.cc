#include "xla/service/fusion/fusion_util.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace xla {

HloComputation* FusedComputation(const HloInstruction& fusion) {
  if (fusion.opcode() != HloOpcode::kFusion) return nullptr;
  const std::vector<HloComputation*> called = fusion.called_computations();
  return called.empty() ? nullptr : called.front();
}

bool IsMergeableFusion(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kFusion || FusedComputation(instr) == nullptr) return false;
  const std::string& kind = instr.GetString(AttrId::kFusionKind);
  return kind == "kLoop" || kind == "kInput";
}

bool IsRowReduction(const HloInstruction& reduce, int64_t* row_rank) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2) return false;
  if (!reduce.shape().IsArray()) return false;
  const Shape& in = reduce.operand(0)->shape();
  if (!in.IsArray()) return false;
  const int64_t rank = in.rank();
  std::vector<int64_t> dims = reduce.dimensions();
  std::sort(dims.begin(), dims.end());
  const int64_t k = static_cast<int64_t>(dims.size());
  if (k == 0 || k > rank) return false;
  for (int64_t i = 0; i < k; ++i) {
    if (dims[i] != rank - k + i) return false;
  }
  if (in.has_layout() && !in.layout().minor_to_major.empty()) {
    for (int64_t i = 0; i < rank; ++i) {
      if (in.layout().minor_to_major[i] != rank - 1 - i) return false;
    }
  }
  if (row_rank != nullptr) *row_rank = rank - k;
  return true;
}

namespace {

// Non-elementwise-category opcodes that still map element i to element i.
constexpr HloOpcode kElementwiseLikeOthers[] = {
    HloOpcode::kConvert, HloOpcode::kSelect, HloOpcode::kClamp,   HloOpcode::kIsFinite,
    HloOpcode::kReal,    HloOpcode::kImag,   HloOpcode::kComplex,
};

}  // namespace

bool IsElementwiseLike(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  const bool listed = std::find(std::begin(kElementwiseLikeOthers), std::end(kElementwiseLikeOthers),
                                op) != std::end(kElementwiseLikeOthers);
  if (!IsElementwise(op) && !listed) return false;
  if (!instr.shape().IsArray()) return false;
  for (const HloInstruction* o : instr.operands()) {
    if (!o->shape().IsArray()) return false;
    if (!o->shape().IsScalar() && o->shape().dimensions() != instr.shape().dimensions()) return false;
  }
  return true;
}

std::vector<HloComputation*> ComputationsToFuse(const HloModule& module) {
  std::vector<HloComputation*> result;
  if (module.entry_computation() == nullptr) return result;
  absl::flat_hash_set<const HloComputation*> seen = {module.entry_computation()};
  std::vector<HloComputation*> stack = {module.entry_computation()};
  while (!stack.empty()) {
    HloComputation* c = stack.back();
    stack.pop_back();
    result.push_back(c);
    for (const auto& instr : c->instructions()) {
      const HloOpcode op = instr->opcode();
      if (op != HloOpcode::kWhile && op != HloOpcode::kConditional && op != HloOpcode::kCall) continue;
      for (HloComputation* callee : instr->called_computations()) {
        if (seen.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  return result;
}

ComputationNamer::ComputationNamer(const HloModule& module) {
  for (const auto& c : module.computations()) used_.insert(c->name());
}

std::string ComputationNamer::Unique(const std::string& base) {
  if (used_.insert(base).second) return base;
  for (int64_t n = 1;; ++n) {
    std::string candidate = absl::StrCat(base, ".", n);
    if (used_.insert(candidate).second) return candidate;
  }
}

}  // namespace xla
