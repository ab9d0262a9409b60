#include "xla/hlo/evaluator/random_inputs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xla/types/random_literal.h"

namespace xla {
namespace {

// Ops that pass values through unchanged enough for index bounds to carry.
bool IsIndexPassThrough(HloOpcode op) {
  return op == HloOpcode::kReshape || op == HloOpcode::kConvert || op == HloOpcode::kBitcast ||
         op == HloOpcode::kBroadcast || op == HloOpcode::kCopy || op == HloOpcode::kSlice;
}

// Smallest extent an index used as operand `i` of `user` must stay below
// (inclusive bound), or -1 when operand `i` is not an index.
int64_t IndexBound(const HloInstruction& user, int64_t i) {
  const HloOpcode op = user.opcode();
  if (op == HloOpcode::kDynamicSlice && i >= 1) {
    const Shape& operand = user.operand(0)->shape();
    const int64_t d = i - 1;
    if (d >= operand.rank()) return -1;
    const std::vector<int64_t>& sizes = user.GetIntList(AttrId::kDynamicSliceSizes);
    const int64_t size = d < static_cast<int64_t>(sizes.size()) ? sizes[d] : 1;
    return std::max<int64_t>(0, operand.dimensions(d) - size);
  }
  if (op == HloOpcode::kDynamicUpdateSlice && i >= 2) {
    const Shape& operand = user.operand(0)->shape();
    const Shape& update = user.operand(1)->shape();
    const int64_t d = i - 2;
    if (d >= operand.rank() || d >= update.rank()) return -1;
    return std::max<int64_t>(0, operand.dimensions(d) - update.dimensions(d));
  }
  if ((op == HloOpcode::kGather && i == 1) || (op == HloOpcode::kScatter && i == user.operand_count() / 2)) {
    const Shape& operand = user.operand(0)->shape();
    int64_t bound = -1;
    for (int64_t d : operand.dimensions()) bound = bound < 0 ? d - 1 : std::min(bound, d - 1);
    return std::max<int64_t>(bound, 0);
  }
  if (op == HloOpcode::kConditional && i == 0 && user.has_attr(AttrId::kBranchComputations)) {
    return std::max<int64_t>(0, static_cast<int64_t>(user.called_computations().size()) - 1);
  }
  return -1;
}

// The tightest index bound over every use of `instr` (through pass-through
// ops), or -1 when it is not used as an index.
int64_t BoundForUses(const HloInstruction& instr, int depth = 0) {
  if (depth > 16) return -1;
  int64_t bound = -1;
  auto merge = [&bound](int64_t b) {
    if (b >= 0) bound = bound < 0 ? b : std::min(bound, b);
  };
  for (const HloInstruction* user : instr.users()) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) == &instr) merge(IndexBound(*user, i));
    }
    if (IsIndexPassThrough(user->opcode())) merge(BoundForUses(*user, depth + 1));
  }
  return bound;
}

}  // namespace

absl::StatusOr<std::vector<Literal>> MakeRandomInputs(const HloModule& module, uint64_t seed) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* p = entry->parameter_instruction(i);
    if (p->shape().IsToken()) {  // host transfers' programs: a token holds nothing
      args.emplace_back(p->shape());
      continue;
    }
    absl::StatusOr<Literal> lit =
        MakeRandomLiteral(p->shape(), seed * 1000003 + static_cast<uint64_t>(i), BoundForUses(*p));
    if (!lit.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", i, " ('", p->name(), "'): ", lit.status().message()));
    }
    args.push_back(std::move(*lit));
  }
  return args;
}

}  // namespace xla
