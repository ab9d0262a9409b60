#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include <algorithm>
#include <limits>

#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/rng_state_ir.h"
#include "xla/backends/gpu/codegen/update_index_ir.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The launch kind of each analyzed kind but scatter (atomic or serial).
struct KindPair {
  FusionKernelKind analyzed;
  NvptxKernelKind launch;
};
constexpr KindPair kLaunchKinds[] = {
    {FusionKernelKind::kLoop, NvptxKernelKind::kLoop},
    {FusionKernelKind::kTranspose, NvptxKernelKind::kTranspose},
    {FusionKernelKind::kRowReduction, NvptxKernelKind::kRowReduction},
    {FusionKernelKind::kRowNormalization, NvptxKernelKind::kRowNormalization},
    {FusionKernelKind::kWholeReduction, NvptxKernelKind::kWholeReduction},
    {FusionKernelKind::kColumnReduction, NvptxKernelKind::kColumnReduction},
    {FusionKernelKind::kGenericReduction, NvptxKernelKind::kGenericReduction},
    {FusionKernelKind::kDusInPlace, NvptxKernelKind::kDusInPlace},
    {FusionKernelKind::kScatter, NvptxKernelKind::kScatterSerial},
};

NvptxKernelKind LaunchKind(FusionKernelKind kind) {
  for (const KindPair& k : kLaunchKinds) {
    if (k.analyzed == kind) return k.launch;
  }
  return NvptxKernelKind::kLoop;
}

// Row-major (descending minor_to_major, or no layout).
bool IsRowMajor(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

}  // namespace

// Every array is a same-dims row-major f32 array (or a scalar parameter)
// and every instruction elementwise, so element i of each output depends
// only on element i of each input.
bool NvptxFusionKernelEmitter::Vectorizable() const {
  if (!options_.vectorize || !reduces_.empty()) return false;
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  auto same_f32 = [&](const Shape& s) {
    return s.IsArray() && s.element_type() == PrimitiveType::F32 && s.dimensions() == dims &&
           IsRowMajor(s);
  };
  for (const OutputLeaf& leaf : leaves_) {
    if (!same_f32(leaf.shape)) return false;
  }
  for (const HloInstruction* op : fusion_.operands()) {
    if (!same_f32(op->shape()) && !op->shape().dimensions().empty()) return false;
  }
  for (const HloInstruction* instr : computation_->MakePostOrder()) {
    const HloOpcode opcode = instr->opcode();
    if (opcode == HloOpcode::kParameter || opcode == HloOpcode::kTuple) continue;
    if (instr->shape().dimensions().empty() && opcode == HloOpcode::kConstant) continue;
    if (opcode == HloOpcode::kBroadcast && instr->operand(0)->shape().dimensions().empty()) continue;
    if (!IsElementwise(opcode) || instr->shape().dimensions() != dims) return false;
  }
  return true;
}

absl::Status NvptxFusionKernelEmitter::Classify() {
  const HloInstruction* root = computation_->root_instruction();
  if (root->opcode() == HloOpcode::kSort) return ClassifySort();
  if (IsRngStateRoot(*root)) {
    RETURN_IF_ERROR(CheckRngStateFusion(emitter_, fusion_, *root));
    kind_ = NvptxKernelKind::kRngState;
    return absl::OkStatus();
  }
  if (root->opcode() == HloOpcode::kSelectAndScatter) {
    if (root->operand_count() != 3 || root->GetComputation(AttrId::kScatter) == nullptr ||
        leaves_.size() != 1) {
      return Unimplemented(root, "malformed select-and-scatter");
    }
    kind_ = NvptxKernelKind::kSelectAndScatter;
    problem_.elements = Product(leaves_[0].shape.dimensions());
    return absl::OkStatus();
  }
  const FusionKernelAnalysis a =
      AnalyzeFusionKernel(*computation_, leaves_, reduces_, options_.output_aliases_operand);
  kind_ = LaunchKind(a.kind);
  const std::vector<int64_t>& input_dims = a.reduce_input_dims;
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t tile_bytes = 0;
  switch (a.kind) {
    case FusionKernelKind::kScatter:
      return ClassifyScatter(a.in_place);
    case FusionKernelKind::kDusInPlace:
      problem_.elements = Product(root->operand(1)->shape().dimensions());
      return absl::OkStatus();
    case FusionKernelKind::kRowReduction:
    case FusionKernelKind::kRowNormalization:
    case FusionKernelKind::kWholeReduction:
      kept_ = a.kept_dims;
      problem_.rows = Product(input_dims, 0, kept_);
      problem_.row_length = Product(input_dims, kept_, input_dims.size());
      return absl::OkStatus();
    case FusionKernelKind::kColumnReduction: {
      const int64_t in_rank = static_cast<int64_t>(input_dims.size());
      problem_.batch = in_rank == 3 ? input_dims[0] : 1;
      problem_.row_length = input_dims[in_rank - 2];
      problem_.columns = input_dims[in_rank - 1];
      return absl::OkStatus();
    }
    case FusionKernelKind::kTranspose: {
      for (const OutputLeaf& leaf : leaves_) {
        tile_bytes += 32 * 33 * ByteWidth(leaf.shape.element_type());
      }
      if (tile_bytes > target_.max_shared_memory_per_block / 2) {
        kind_ = NvptxKernelKind::kLoop;  // the tiles do not fit: a plain loop
        problem_.vectorizable = Vectorizable();
        break;
      }
      const int64_t j = a.transpose_dim;
      transpose_dim_ = j;
      problem_.rows = dims[j];
      problem_.columns = dims[rank - 1];
      problem_.batch = Product(dims) / std::max<int64_t>(1, dims[j] * dims[rank - 1]);
      if (dims[j] * dims[rank - 1] == 0) problem_.batch = 0;
      return absl::OkStatus();
    }
    case FusionKernelKind::kLoop:
      problem_.vectorizable = a.same_output_dims && Vectorizable();
      break;
    case FusionKernelKind::kGenericReduction:
      break;
  }
  int64_t n = 0;
  for (const OutputLeaf& leaf : leaves_) n = std::max(n, Product(leaf.shape.dimensions()));
  problem_.elements = n;
  return absl::OkStatus();
}

// Scatter: atomic when single-operand and in place, with an add combiner of
// an atomic type; serial otherwise (variadic scatter always).
absl::Status NvptxFusionKernelEmitter::ClassifyScatter(bool in_place) {
  const HloInstruction* root = computation_->root_instruction();
  ASSIGN_OR_RETURN(const ScatterIndexing indexing, AnalyzeScatterIndexing(emitter_, *root));
  const HloInstruction* combiner = root->to_apply()->root_instruction();
  const PrimitiveType t = root->operand(0)->shape().element_type();
  const bool add = indexing.count == 1 && combiner->opcode() == HloOpcode::kAdd &&
                   combiner->operand(0)->opcode() == HloOpcode::kParameter &&
                   combiner->operand(1)->opcode() == HloOpcode::kParameter &&
                   combiner->operand(0) != combiner->operand(1);
  const bool atomic_type = t == PrimitiveType::F32 || t == PrimitiveType::F64 ||
                           t == PrimitiveType::S32 || t == PrimitiveType::U32 ||
                           t == PrimitiveType::S64 || t == PrimitiveType::U64;
  if (add && atomic_type && in_place) kind_ = NvptxKernelKind::kScatterAtomic;
  problem_.elements = Product(indexing.update_dims);
  scatter_in_place_ = in_place;
  return absl::OkStatus();
}

// Sort: one block per line along sort_dim_ (see EmitSortKernel). The
// shared-memory path needs each operand's line plus the i32 original
// positions, each array 8-byte aligned as SharedArray places them.
absl::Status NvptxFusionKernelEmitter::ClassifySort() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& sort_dims = sort->dimensions();
  if (sort->operand_count() < 1 || sort_dims.size() != 1 || sort->to_apply() == nullptr ||
      static_cast<int64_t>(leaves_.size()) != sort->operand_count()) {
    return Unimplemented(sort, "malformed sort: expected one sort dimension, a comparator "
                               "and one output per operand");
  }
  const std::vector<int64_t>& dims = sort->operand(0)->shape().dimensions();
  sort_dim_ = sort_dims[0];
  if (sort_dim_ < 0 || sort_dim_ >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(sort, "sort dimension out of range");
  }
  for (int64_t k = 0; k < sort->operand_count(); ++k) {
    if (sort->operand(k)->shape().dimensions() != dims || leaves_[k].shape.dimensions() != dims) {
      return Unimplemented(sort, "sort operands and outputs of different dimensions");
    }
  }
  kind_ = NvptxKernelKind::kSort;
  const int64_t len = dims[sort_dim_];
  problem_.row_length = len;
  problem_.rows = len == 0 ? 0 : Product(dims) / len;
  const llvm::DataLayout& layout = module_->getDataLayout();
  int64_t bytes = 0;
  auto add = [&](llvm::Type* type) {
    bytes = (bytes + 7) / 8 * 8 + len * static_cast<int64_t>(layout.getTypeAllocSize(type));
  };
  for (const OutputLeaf& leaf : leaves_) add(ElementIrType(leaf.shape.element_type(), ctx_));
  add(b_.getInt32Ty());
  // Longer lines could not index positions in i32: force the global path.
  problem_.sort_shared_bytes =
      len > std::numeric_limits<int32_t>::max() ? std::numeric_limits<int64_t>::max() : bytes;
  return absl::OkStatus();
}

}  // namespace xla::gpu
