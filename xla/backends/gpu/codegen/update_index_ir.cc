#include "xla/backends/gpu/codegen/update_index_ir.h"

#include <algorithm>

#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/types/primitive_type.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

llvm::Value* ToInt64(llvm::IRBuilder<>* b, llvm::Value* raw, bool is_signed) {
  return is_signed ? b->CreateSExt(raw, b->getInt64Ty()) : b->CreateZExt(raw, b->getInt64Ty());
}

}  // namespace

absl::StatusOr<ScatterIndexing> AnalyzeScatterIndexing(absl::string_view emitter,
                                                       const HloInstruction& scatter) {
  auto fail = [&](absl::string_view why) {
    return FusionEmitterUnimplemented(emitter, scatter, why);
  };
  const int64_t operands = scatter.operand_count();
  if (operands < 3 || operands % 2 == 0 || scatter.to_apply() == nullptr) {
    return fail("a scatter takes N operands, the indices and N updates (N >= 1), and to_apply");
  }
  ScatterIndexing s;
  s.scatter = &scatter;
  s.count = (operands - 1) / 2;
  s.operand_dims = scatter.operand(0)->shape().dimensions();
  s.update_dims = s.updates(0)->shape().dimensions();
  s.index_dims = s.indices()->shape().dimensions();
  for (int64_t k = 1; k < s.count; ++k) {
    if (scatter.operand(k)->shape().dimensions() != s.operand_dims ||
        s.updates(k)->shape().dimensions() != s.update_dims) {
      return fail("the operands (or the updates) of a variadic scatter differ in dims");
    }
  }
  s.index_vector_dim = scatter.GetInt(AttrId::kIndexVectorDim);
  s.update_window_dims = scatter.GetIntList(AttrId::kUpdateWindowDims);
  s.scatter_dims_to_operand_dims = scatter.GetIntList(AttrId::kScatterDimsToOperandDims);
  const std::vector<int64_t> inserted = scatter.GetIntList(AttrId::kInsertedWindowDims);
  s.operand_batching_dims = scatter.GetIntList(AttrId::kInputBatchingDims);
  const std::vector<int64_t> index_batching =
      scatter.GetIntList(AttrId::kScatterIndicesBatchingDims);
  const int64_t rank = static_cast<int64_t>(s.operand_dims.size());
  const int64_t index_rank = static_cast<int64_t>(s.index_dims.size());
  const int64_t ivd = s.index_vector_dim;
  if (ivd < 0 || ivd > index_rank) return fail("index_vector_dim out of range");
  s.index_vector_size = ivd < index_rank ? s.index_dims[ivd] : 1;
  if (static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()) != s.index_vector_size) {
    return fail("scatter_dims_to_operand_dims does not match the indices");
  }
  if (index_batching.size() != s.operand_batching_dims.size()) {
    return fail("input_batching_dims and scatter_indices_batching_dims differ in length");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(inserted, d) && !Contains(s.operand_batching_dims, d)) s.window_dims.push_back(d);
  }
  if (s.window_dims.size() != s.update_window_dims.size()) {
    return fail("update_window_dims does not match the operand");
  }
  s.window_size.assign(rank, 1);
  for (size_t k = 0; k < s.update_window_dims.size(); ++k) {
    s.window_size[s.window_dims[k]] = s.update_dims[s.update_window_dims[k]];
  }
  for (int64_t d = 0; d < static_cast<int64_t>(s.update_dims.size()); ++d) {
    if (!Contains(s.update_window_dims, d)) s.update_scatter_dims.push_back(d);
  }
  for (int64_t d = 0; d < index_rank; ++d) {
    if (d != ivd) s.index_batch_dims.push_back(d);
  }
  if (s.update_scatter_dims.size() != s.index_batch_dims.size()) {
    return fail("updates' scatter dims do not match the indices' batch dims");
  }
  // Operand batching dim k takes the update's coordinate along the scatter
  // dim that pairs with index dim index_batching[k] (as the evaluator does).
  for (size_t k = 0; k < index_batching.size(); ++k) {
    const auto it =
        std::find(s.index_batch_dims.begin(), s.index_batch_dims.end(), index_batching[k]);
    const int64_t od = s.operand_batching_dims[k];
    if (it == s.index_batch_dims.end() || od < 0 || od >= rank) {
      return fail("a batching dim is out of range or is the index vector dim");
    }
    const int64_t ud = s.update_scatter_dims[it - s.index_batch_dims.begin()];
    if (s.update_dims[ud] != s.operand_dims[od]) {
      return fail("a batching dim's size differs between the operand and the updates");
    }
    s.operand_batching_update_dims.push_back(ud);
  }
  return s;
}

absl::StatusOr<IrIndex> EmitScatterTarget(const ScatterIndexing& s, const IrIndex& u,
                                          const FusedGenerators& gens, llvm::IRBuilder<>* b,
                                          llvm::Value** inside) {
  const HloInstruction* indices = s.indices();
  const bool is_signed = IsSignedInt(indices->shape().element_type());
  const int64_t rank = static_cast<int64_t>(s.operand_dims.size());
  const int64_t index_rank = static_cast<int64_t>(s.index_dims.size());
  std::vector<llvm::Value*> start(rank, b->getInt64(0));
  for (int64_t k = 0; k < s.index_vector_size; ++k) {
    std::vector<llvm::Value*> at(index_rank, nullptr);
    for (size_t q = 0; q < s.index_batch_dims.size(); ++q) {
      at[s.index_batch_dims[q]] = u[s.update_scatter_dims[q]];
    }
    if (s.index_vector_dim < index_rank) at[s.index_vector_dim] = b->getInt64(k);
    ASSIGN_OR_RETURN(llvm::Value * raw, gens.at(indices)(IrIndex(at, s.index_dims)));
    start[s.scatter_dims_to_operand_dims[k]] = ToInt64(b, raw, is_signed);
  }
  for (size_t k = 0; k < s.operand_batching_dims.size(); ++k) {
    start[s.operand_batching_dims[k]] = u[s.operand_batching_update_dims[k]];
  }
  *inside = b->getTrue();
  for (int64_t d = 0; d < rank; ++d) {
    *inside = b->CreateAnd(*inside, b->CreateICmpSGE(start[d], b->getInt64(0)));
    *inside = b->CreateAnd(
        *inside, b->CreateICmpSLE(start[d], b->getInt64(s.operand_dims[d] - s.window_size[d])));
  }
  for (size_t k = 0; k < s.update_window_dims.size(); ++k) {
    start[s.window_dims[k]] = b->CreateAdd(start[s.window_dims[k]], u[s.update_window_dims[k]]);
  }
  return IrIndex(start, s.operand_dims);
}

absl::StatusOr<std::vector<llvm::Value*>> EmitDusStarts(const HloInstruction& dus,
                                                        const FusedGenerators& gens,
                                                        llvm::IRBuilder<>* b) {
  const std::vector<int64_t>& dims = dus.shape().dimensions();
  const std::vector<int64_t>& update_dims = dus.operand(1)->shape().dimensions();
  std::vector<llvm::Value*> starts;
  for (size_t d = 0; d < dims.size(); ++d) {
    const HloInstruction* op = dus.operand(2 + d);
    ASSIGN_OR_RETURN(llvm::Value * raw, gens.at(op)(IrIndex()));
    const bool is_signed = IsSignedInt(op->shape().element_type());
    llvm::Value* s = ToInt64(b, raw, is_signed);
    const int64_t limit = dims[d] - update_dims[d];
    s = b->CreateSelect(b->CreateICmpSLT(s, b->getInt64(0)), b->getInt64(is_signed ? 0 : limit), s);
    s = b->CreateSelect(b->CreateICmpSGT(s, b->getInt64(limit)), b->getInt64(limit), s);
    starts.push_back(s);
  }
  return starts;
}

}  // namespace xla::gpu
