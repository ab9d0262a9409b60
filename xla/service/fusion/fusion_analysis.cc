#include "xla/service/fusion/fusion_analysis.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/service/fusion/fusion_util.h"
#include "xla/util/math_util.h"

namespace xla {
namespace {

struct KindName {
  FusionKind kind;
  absl::string_view name;
};

constexpr KindName kKindNames[] = {
    {FusionKind::kLoop, "loop"},
    {FusionKind::kTranspose, "transpose"},
    {FusionKind::kDynamicUpdateSliceInPlace, "dynamic_update_slice_in_place"},
    {FusionKind::kScatter, "scatter"},
    {FusionKind::kRowReduction, "row_reduction"},
    {FusionKind::kColumnReduction, "column_reduction"},
    {FusionKind::kWholeReduction, "whole_reduction"},
    {FusionKind::kRowNormalization, "row_normalization"},
    {FusionKind::kGenericReduction, "generic_reduction"},
};

bool IsRowMajor(const Shape& s) {
  if (!s.has_layout() || s.layout().minor_to_major.empty()) return true;
  const int64_t rank = s.rank();
  for (int64_t i = 0; i < rank; ++i) {
    if (s.layout().minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

// Skips unary elementwise-like ops above the hero.
const HloInstruction* SkipUnaryElementwise(const HloInstruction* instr) {
  while (instr->operand_count() == 1 && IsElementwiseLike(*instr)) instr = instr->operand(0);
  return instr;
}

FusionKindAnalysis LoopLike(const std::vector<const HloInstruction*>& roots) {
  FusionKindAnalysis a;
  const HloInstruction* root = roots.front();
  a.hero = root;
  a.iteration_dims = root->shape().IsArray() ? root->shape().dimensions() : std::vector<int64_t>{};
  if (roots.size() != 1) return a;
  if (root->opcode() == HloOpcode::kScatter && root->operand_count() % 2 == 1) {
    a.kind = FusionKind::kScatter;
    a.iteration_dims = root->operand(root->operand_count() / 2 + 1)->shape().dimensions();
    return a;
  }
  if (root->opcode() == HloOpcode::kDynamicUpdateSlice &&
      root->operand(0)->opcode() == HloOpcode::kParameter) {
    a.kind = FusionKind::kDynamicUpdateSliceInPlace;
    a.iteration_dims = root->operand(1)->shape().dimensions();
    return a;
  }
  const HloInstruction* hero = SkipUnaryElementwise(root);
  if (hero->opcode() == HloOpcode::kTranspose && hero->shape().rank() >= 2) {
    const HloInstruction* source = hero->operand(0);
    if (source->opcode() == HloOpcode::kCopy) source = source->operand(0);
    const std::vector<int64_t>& perm = hero->dimensions();
    if (source->opcode() == HloOpcode::kParameter &&
        perm.back() != static_cast<int64_t>(perm.size()) - 1) {
      a.kind = FusionKind::kTranspose;
      a.hero = hero;
    }
  }
  return a;
}

}  // namespace

absl::string_view FusionKindName(FusionKind kind) {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::string FusionKindAnalysis::ToString() const {
  std::string s(FusionKindName(kind));
  if (rows != 0 || cols != 0) absl::StrAppend(&s, " rows=", rows, " cols=", cols);
  if (hero != nullptr) absl::StrAppend(&s, " hero=", hero->name());
  return s;
}

absl::StatusOr<FusionKindAnalysis> ClassifyFusion(const HloInstruction& fusion) {
  const HloComputation* body = FusedComputation(fusion);
  if (body == nullptr || body->root_instruction() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ClassifyFusion: '", fusion.name(), "' is not a fusion with a called computation"));
  }
  const HloInstruction* root = body->root_instruction();
  std::vector<const HloInstruction*> roots;
  if (root->opcode() == HloOpcode::kTuple) {
    roots.assign(root->operands().begin(), root->operands().end());
  } else {
    roots.push_back(root);
  }
  if (roots.empty()) roots.push_back(root);
  std::vector<const HloInstruction*> reduces;
  bool generic = false;
  for (const HloInstruction* i : body->MakePostOrder()) {
    if (i->opcode() == HloOpcode::kReduce) reduces.push_back(i);
    generic |= i->opcode() == HloOpcode::kReduceWindow;
  }
  if (reduces.empty() && !generic) return LoopLike(roots);

  FusionKindAnalysis a;
  a.kind = FusionKind::kGenericReduction;
  if (reduces.empty()) {
    a.hero = roots.front();
    a.iteration_dims = roots.front()->shape().IsArray() ? roots.front()->shape().dimensions()
                                                          : std::vector<int64_t>{};
    return a;
  }
  const HloInstruction* hero = reduces.front();
  a.hero = hero;
  a.iteration_dims = hero->operand(0)->shape().dimensions();
  if (generic) return a;
  const std::vector<int64_t>& in = a.iteration_dims;
  bool all_roots = true, all_row = true, same = true;
  int64_t row_rank = 0;
  IsRowReduction(*hero, &row_rank);
  for (const HloInstruction* r : reduces) {
    all_roots &= std::find(roots.begin(), roots.end(), r) != roots.end();
    int64_t rr = 0;
    all_row &= IsRowReduction(*r, &rr) && rr == row_rank;
    same &= r->operand_count() == 2 && r->operand(0)->shape().dimensions() == in &&
            r->dimensions() == hero->dimensions();
  }
  if (all_row && same) {
    a.rows = Product(in, 0, row_rank);
    a.cols = Product(in, row_rank, in.size());
    if (!all_roots) {
      a.kind = FusionKind::kRowNormalization;
    } else {
      a.kind = row_rank == 0 ? FusionKind::kWholeReduction : FusionKind::kRowReduction;
    }
    return a;
  }
  if (!all_roots || !same || !IsRowMajor(hero->operand(0)->shape())) return a;
  std::vector<int64_t> dims = hero->dimensions();
  std::sort(dims.begin(), dims.end());
  const int64_t rank = static_cast<int64_t>(in.size());
  if (dims.empty() || dims.back() >= rank - 1) return a;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] != dims[i - 1] + 1) return a;
  }
  a.kind = FusionKind::kColumnReduction;
  a.rows = Product(in, dims.front(), dims.back() + 1);
  a.cols = Product(in, 0, dims.front()) * Product(in, dims.back() + 1, in.size());
  return a;
}

}  // namespace xla
