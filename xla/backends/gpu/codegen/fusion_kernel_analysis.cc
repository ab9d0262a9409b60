#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

struct KindName {
  FusionKernelKind kind;
  absl::string_view name;
};

constexpr KindName kKindNames[] = {
    {FusionKernelKind::kLoop, "loop"},
    {FusionKernelKind::kTranspose, "transpose"},
    {FusionKernelKind::kRowReduction, "row_reduction"},
    {FusionKernelKind::kRowNormalization, "row_normalization"},
    {FusionKernelKind::kWholeReduction, "whole_reduction"},
    {FusionKernelKind::kColumnReduction, "column_reduction"},
    {FusionKernelKind::kGenericReduction, "generic_reduction"},
    {FusionKernelKind::kDusInPlace, "dus_in_place"},
    {FusionKernelKind::kScatter, "scatter"},
};

// The fused parameter feeding operand 0 of `root` is aliased by output 0
// and read by nothing else.
bool RootUpdatesInPlace(const HloInstruction& root, absl::Span<const int64_t> aliases) {
  const HloInstruction* p = root.operand(0);
  if (p->opcode() != HloOpcode::kParameter) return false;
  if (aliases.empty() || aliases[0] != p->parameter_number()) return false;
  if (p->users().size() != 1) return false;
  for (int64_t i = 1; i < root.operand_count(); ++i) {
    if (root.operand(i) == p) return false;
  }
  return true;
}

// A fused transpose with result dims `dims` that moves the minor dimension:
// the output dim the input's minor dim goes to, or -1.
int64_t FindTransposeDim(const HloComputation& computation, const std::vector<int64_t>& dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  for (const HloInstruction* instr : computation.MakePostOrder()) {
    if (instr->opcode() != HloOpcode::kTranspose || instr->shape().dimensions() != dims) continue;
    const std::vector<int64_t>& perm = instr->dimensions();
    const int64_t j = std::find(perm.begin(), perm.end(), rank - 1) - perm.begin();
    if (j < rank - 1) return j;
  }
  return -1;
}

// Row kinds: every reduce reduces the trailing dims of the same input dims
// and every output has the row dims or the full input dims.
bool ClassifyRows(absl::Span<const OutputLeaf> leaves,
                  absl::Span<const HloInstruction* const> reduces, FusionKernelAnalysis* a) {
  const std::vector<int64_t>& input_dims = a->reduce_input_dims;
  const int64_t rank = static_cast<int64_t>(input_dims.size());
  const int64_t kept = rank - static_cast<int64_t>(reduces[0]->dimensions().size());
  if (kept < 0) return false;
  std::vector<int64_t> trailing;
  for (int64_t d = kept; d < rank; ++d) trailing.push_back(d);
  for (const HloInstruction* r : reduces) {
    if (r->operand(0)->shape().dimensions() != input_dims || SortedReduceDims(*r) != trailing) {
      return false;
    }
  }
  const std::vector<int64_t> row_dims(input_dims.begin(), input_dims.begin() + kept);
  bool any_full = false;
  for (const OutputLeaf& leaf : leaves) {
    const bool is_row = leaf.shape.dimensions() == row_dims;
    const bool is_full = leaf.shape.dimensions() == input_dims;
    if (!is_row && !is_full) return false;
    any_full = any_full || !is_row;
  }
  a->kept_dims = kept;
  if (any_full) {
    a->kind = FusionKernelKind::kRowNormalization;
  } else {
    a->kind = kept == 0 ? FusionKernelKind::kWholeReduction : FusionKernelKind::kRowReduction;
  }
  return true;
}

// Column kind: [R,C] dims={0} or [A,R,C] dims={1}, every reduce an output
// and every output a reduce.
bool IsColumnForm(absl::Span<const OutputLeaf> leaves,
                  absl::Span<const HloInstruction* const> reduces,
                  const std::vector<int64_t>& input_dims) {
  const size_t rank = input_dims.size();
  const std::vector<int64_t> dims = SortedReduceDims(*reduces[0]);
  if (!(rank == 2 && dims == std::vector<int64_t>{0}) &&
      !(rank == 3 && dims == std::vector<int64_t>{1})) {
    return false;
  }
  for (const HloInstruction* r : reduces) {
    if (r->operand(0)->shape().dimensions() != input_dims || SortedReduceDims(*r) != dims) {
      return false;
    }
    if (std::none_of(leaves.begin(), leaves.end(),
                     [&](const OutputLeaf& l) { return l.instr == r; })) {
      return false;
    }
  }
  return std::all_of(leaves.begin(), leaves.end(), [](const OutputLeaf& l) {
    return l.instr->opcode() == HloOpcode::kReduce;
  });
}

}  // namespace

absl::Status FusionEmitterUnimplemented(absl::string_view emitter, const HloInstruction& hlo,
                                        absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(emitter, " fusion emitter: ", hlo.name(), " (",
                                               HloOpcodeName(hlo.opcode()), "): ", why));
}

absl::StatusOr<std::vector<OutputLeaf>> CollectOutputLeaves(absl::string_view emitter,
                                                            const HloInstruction& fusion,
                                                            const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  std::vector<Shape> shapes;
  if (fusion.shape().IsTuple()) {
    shapes = fusion.shape().tuple_shapes();
  } else {
    shapes.push_back(fusion.shape());
  }
  std::vector<OutputLeaf> leaves;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* op : root->operands()) leaves.push_back({op, 0, Shape()});
  } else if (root->shape().IsTuple() &&
             (root->opcode() == HloOpcode::kReduce || root->opcode() == HloOpcode::kScatter)) {
    for (int64_t k = 0; k < root->shape().tuple_shapes_size(); ++k) {
      leaves.push_back({root, k, Shape()});
    }
  } else if (root->shape().IsTuple()) {
    return FusionEmitterUnimplemented(
        emitter, *root, "tuple-shaped root other than tuple, variadic reduce or variadic scatter");
  } else {
    leaves.push_back({root, 0, Shape()});
  }
  if (leaves.size() != shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(emitter, " fusion emitter: ", fusion.name(), " has ", shapes.size(),
                     " output leaves but its fused root yields ", leaves.size()));
  }
  for (size_t k = 0; k < leaves.size(); ++k) {
    if (!shapes[k].IsArray()) {
      return FusionEmitterUnimplemented(emitter, fusion,
                                        absl::StrCat("output ", k, " is not an array (nested tuple)"));
    }
    leaves[k].shape = shapes[k];
  }
  return leaves;
}

std::vector<int64_t> SortedReduceDims(const HloInstruction& reduce) {
  std::vector<int64_t> dims = reduce.dimensions();
  std::sort(dims.begin(), dims.end());
  return dims;
}

std::vector<const HloInstruction*> CollectReduces(const HloComputation& computation) {
  std::vector<const HloInstruction*> reduces;
  for (const HloInstruction* instr : computation.MakePostOrder()) {
    if (instr->opcode() == HloOpcode::kReduce) reduces.push_back(instr);
  }
  return reduces;
}

absl::string_view FusionKernelKindName(FusionKernelKind kind) {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

FusionKernelAnalysis AnalyzeFusionKernel(const HloComputation& computation,
                                         absl::Span<const OutputLeaf> leaves,
                                         absl::Span<const HloInstruction* const> reduces,
                                         absl::Span<const int64_t> output_aliases_operand) {
  FusionKernelAnalysis a;
  const HloInstruction& root = *computation.root_instruction();
  if (root.opcode() == HloOpcode::kScatter) {
    a.kind = FusionKernelKind::kScatter;
    // A variadic scatter always copies its operands first (only output 0's
    // alias is known here).
    a.in_place = root.operand_count() == 3 && RootUpdatesInPlace(root, output_aliases_operand);
    return a;
  }
  if (root.opcode() == HloOpcode::kDynamicUpdateSlice && leaves.size() == 1 &&
      RootUpdatesInPlace(root, output_aliases_operand)) {
    a.kind = FusionKernelKind::kDusInPlace;
    a.in_place = true;
    return a;
  }
  const std::vector<int64_t>& dims = leaves[0].shape.dimensions();
  for (const OutputLeaf& leaf : leaves) {
    a.same_output_dims = a.same_output_dims && leaf.shape.dimensions() == dims;
  }
  if (reduces.empty()) {
    if (a.same_output_dims && dims.size() >= 2) {
      a.transpose_dim = FindTransposeDim(computation, dims);
      if (a.transpose_dim >= 0) a.kind = FusionKernelKind::kTranspose;
    }
    return a;
  }
  a.reduce_input_dims = reduces[0]->operand(0)->shape().dimensions();
  if (ClassifyRows(leaves, reduces, &a)) return a;
  a.kind = IsColumnForm(leaves, reduces, a.reduce_input_dims) ? FusionKernelKind::kColumnReduction
                                                               : FusionKernelKind::kGenericReduction;
  return a;
}

}  // namespace xla::gpu
