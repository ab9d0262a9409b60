#include "xla/hlo/transforms/scatter_batching_normalizer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

absl::Status Normalize(HloInstruction* scatter) {
  const std::vector<int64_t> operand_batching = scatter->GetIntList(AttrId::kInputBatchingDims);
  const std::vector<int64_t> indices_batching =
      scatter->GetIntList(AttrId::kScatterIndicesBatchingDims);
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("scatter '", scatter->name(), "': ", why));
  };
  if (scatter->operand_count() < 3 || scatter->operand_count() % 2 == 0) {
    return error(absl::StrCat("has ", scatter->operand_count(),
                              " operands; a scatter has N operands, the indices and N updates"));
  }
  if (operand_batching.size() != indices_batching.size()) {
    return error("input_batching_dims and scatter_indices_batching_dims differ in length");
  }
  const int64_t indices_operand = scatter->operand_count() / 2;
  HloInstruction* indices = scatter->operand(indices_operand);
  if (!indices->shape().IsArray() || !IsInteger(indices->shape().element_type())) {
    return error("the indices must be an integer array");
  }
  OpBuilder o(scatter->parent());
  const std::string base = scatter->name();
  int64_t ivd = scatter->GetInt(AttrId::kIndexVectorDim);
  const int64_t rank = indices->shape().rank();
  for (int64_t s : indices_batching) {
    if (s < 0 || s >= rank || s == ivd) {
      return error(absl::StrCat("scatter_indices_batching_dims names dimension ", s,
                                " of indices ", indices->shape().ToString(false),
                                " (index_vector_dim=", ivd, ")"));
    }
  }
  if (ivd < 0 || ivd > rank) return error("index_vector_dim is out of range");
  PrimitiveType type = indices->shape().element_type();
  if (type != PrimitiveType::S32 && type != PrimitiveType::S64) {
    type = PrimitiveType::S64;
    indices = o.Convert(indices, type, base + ".indices_s64");
  }
  std::vector<int64_t> dims = indices->shape().dimensions();
  if (ivd == rank) {  // the implicit trailing index vector dimension, made explicit
    dims.push_back(1);
    indices = o.Reshape(indices, dims, base + ".indices_vector");
  }
  std::vector<int64_t> one_entry = dims;
  one_entry[ivd] = 1;
  std::vector<HloInstruction*> parts = {indices};
  for (int64_t s : indices_batching) {
    parts.push_back(o.Convert(o.Iota(one_entry, s, base + ".batch_index"), type, base + ".batch_index_convert"));
  }
  std::vector<int64_t> concat_dims = dims;
  concat_dims[ivd] += static_cast<int64_t>(indices_batching.size());
  HloInstruction* new_indices =
      o.Op(HloOpcode::kConcatenate, Shape::Array(type, concat_dims), parts, base + ".indices");
  new_indices->SetAttr(AttrId::kDimensions, std::vector<int64_t>{ivd});

  std::vector<int64_t> to_operand = scatter->GetIntList(AttrId::kScatterDimsToOperandDims);
  to_operand.insert(to_operand.end(), operand_batching.begin(), operand_batching.end());
  std::vector<int64_t> inserted = scatter->GetIntList(AttrId::kInsertedWindowDims);
  inserted.insert(inserted.end(), operand_batching.begin(), operand_batching.end());
  std::sort(inserted.begin(), inserted.end());
  scatter->ReplaceOperandWith(indices_operand, new_indices);
  scatter->SetAttr(AttrId::kIndexVectorDim, ivd);
  scatter->SetAttr(AttrId::kScatterDimsToOperandDims, to_operand);
  scatter->SetAttr(AttrId::kInsertedWindowDims, inserted);
  scatter->ClearAttr(AttrId::kInputBatchingDims);
  scatter->ClearAttr(AttrId::kScatterIndicesBatchingDims);
  scatter->ClearAttr(AttrId::kIndicesAreSorted);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> ScatterBatchingNormalizer::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kScatter &&
          !instr->GetIntList(AttrId::kInputBatchingDims).empty()) {
        todo.push_back(instr.get());
      }
    }
  }
  for (HloInstruction* scatter : todo) RETURN_IF_ERROR(Normalize(scatter));
  return !todo.empty();
}

}  // namespace xla
