#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "xla/backends/gpu/codegen/host/lane_reduce_ir.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Element-wise opcodes costly enough per element (a polynomial, a divide
// or a loop) that a second pass should read their value, not recompute it.
constexpr HloOpcode kExpensiveElementwise[] = {
    HloOpcode::kExp,  HloOpcode::kExpm1,    HloOpcode::kLog,   HloOpcode::kLog1p,
    HloOpcode::kTanh, HloOpcode::kLogistic, HloOpcode::kPower, HloOpcode::kErf,
    HloOpcode::kSin,  HloOpcode::kCos,      HloOpcode::kTan,   HloOpcode::kAtan2,
    HloOpcode::kCbrt,
};

// Whether some instruction of `root`'s fused expression, not looking
// inside reductions (a reduction itself is visited), satisfies `found`.
// Each instruction is visited once: fused DAGs share subexpressions.
bool AnyOutsideReductions(const HloInstruction* root,
                          const std::function<bool(const HloInstruction*)>& found) {
  absl::flat_hash_set<const HloInstruction*> seen{root};
  std::vector<const HloInstruction*> stack{root};
  while (!stack.empty()) {
    const HloInstruction* instr = stack.back();
    stack.pop_back();
    if (found(instr)) return true;
    if (instr->opcode() == HloOpcode::kReduce) continue;
    for (const HloInstruction* operand : instr->operands()) {
      if (seen.insert(operand).second) stack.push_back(operand);
    }
  }
  return false;
}

bool IsExpensiveElementwise(const HloInstruction* instr) {
  for (HloOpcode op : kExpensiveElementwise) {
    if (instr->opcode() == op) return true;
  }
  return false;
}

// Row kernels: the input of the row's last reduction when the output pass
// (`full_roots`, the leaves written per element) needs it again and it is
// expensive to recompute (softmax's exp(x - max), which the output divides
// by the sum): the reduction then stores each value in a row-sized stack
// buffer and the output pass loads it, one transcendental per element
// instead of two. The values are the same either way (the generator is
// pure). Only single-value reductions over the whole input shape, and rows
// of at most `max_bytes`.
const HloInstruction* RowCacheCandidate(const std::vector<const HloInstruction*>& reduces,
                                        const std::vector<const HloInstruction*>& full_roots,
                                        const std::vector<int64_t>& input_dims, int64_t cols,
                                        int64_t max_bytes) {
  if (reduces.empty() || full_roots.empty() || reduces.back()->operand_count() != 2) {
    return nullptr;
  }
  const HloInstruction* input = reduces.back()->operand(0);
  if (!input->shape().IsArray() || input->shape().dimensions() != input_dims ||
      cols * ByteWidth(input->shape().element_type()) > max_bytes ||
      !AnyOutsideReductions(input, IsExpensiveElementwise)) {
    return nullptr;
  }
  for (const HloInstruction* root : full_roots) {
    if (AnyOutsideReductions(root, [input](const HloInstruction* i) { return i == input; })) {
      return input;
    }
  }
  return nullptr;
}

// How many independent accumulator vectors a row reduction keeps
// (EmitLaneReduce): `cheap_vectors` for a maximum or minimum whose input
// is cheap per element (no transcendental): their NaN and signed-zero rule
// makes a chain of about 13 cycles per step, which bounds such a loop.
// Else 1: an add's 4-cycle chain over 8 lanes keeps up with the loads, a
// polynomial per element bounds the loop by itself, and more copies of the
// body only cost compile time (measured: 1.7x the CPU time of the x86-64-v3
// build of a transformer encoder with 4 vectors for every reduction).
int64_t ReductionVectors(const HloInstruction& reduce, int64_t cheap_vectors) {
  const std::optional<HloOpcode> reducer = ReassociableReducer(reduce);
  if (!reducer.has_value() || (*reducer != HloOpcode::kMaximum && *reducer != HloOpcode::kMinimum)) {
    return 1;
  }
  if (AnyOutsideReductions(reduce.operand(0), IsExpensiveElementwise)) return 1;
  return std::max<int64_t>(1, cheap_vectors);
}

}  // namespace

HostKernelSegment HostFusionKernelEmitter::PlanRows(int64_t kept,
                                                    std::vector<int64_t> input_dims) {
  const std::vector<int64_t> row_dims(input_dims.begin(), input_dims.begin() + kept);
  const std::vector<int64_t> col_dims(input_dims.begin() + kept, input_dims.end());
  const int64_t rows = Product(row_dims);
  const int64_t cols = Product(col_dims);
  const int64_t in_bytes = ByteWidth(reduces_[0]->operand(0)->shape().element_type());
  const int64_t rows_per_block = std::max<int64_t>(
      1, options_.target_block_bytes / std::max<int64_t>(1, cols * in_bytes));
  std::vector<int64_t> row_leaves, full_leaves;
  for (size_t k = 0; k < leaves_.size(); ++k) {
    (leaves_[k].shape.dimensions() == row_dims ? row_leaves : full_leaves).push_back(k);
  }
  std::vector<const HloInstruction*> full_roots;
  for (int64_t k : full_leaves) full_roots.push_back(leaves_[k].instr);
  const HloInstruction* row_cached =
      RowCacheCandidate(reduces_, full_roots, input_dims, cols, options_.row_cache_bytes);
  Segment s;
  s.blocks = CeilDiv(rows, rows_per_block);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* r0 = b_.CreateMul(block, b_.getInt64(rows_per_block));
    llvm::Value* r1 = Min(b_.CreateAdd(r0, b_.getInt64(rows_per_block)), b_.getInt64(rows));
    // The row's values of `row_cached` (see RowCacheCandidate): written by
    // the last reduction as it computes them, read by the output pass.
    llvm::Type* cached_type = nullptr;
    llvm::AllocaInst* row_cache = nullptr;
    if (row_cached != nullptr) {
      cached_type = ElementIrType(row_cached->shape().element_type(), ctx_);
      row_cache = EntryAlloca(cached_type, cols, "row_cache");
    }
    // The column of an index into the row (its trailing dimensions).
    auto column = [this, kept, col_dims](const IrIndex& index) {
      std::vector<llvm::Value*> trailing(index.multidim().begin() + kept, index.multidim().end());
      return IrIndex(std::move(trailing), col_dims).Linearize(&b_);
    };
    return EmitLoop(r0, r1, "row", [&](llvm::Value* r) -> absl::Status {
      const IrIndex row = IrIndex::FromLinear(r, row_dims, &b_);
      // The row's reductions once, in dependency order; later generators
      // asked for the same row find them in the cache.
      ElementalIrEmitter::ElementGenerator computed;
      for (const HloInstruction* reduce : reduces_) {
        if (row_cache != nullptr && reduce == reduces_.back()) {
          computed = gens_.at(row_cached);
          gens_[row_cached] = [&, computed](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
            ASSIGN_OR_RETURN(llvm::Value * v, computed(index));
            b_.CreateStore(v, b_.CreateInBoundsGEP(cached_type, row_cache, column(index)));
            return v;
          };
        }
        ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> values,
            EmitLaneReduce(emitter_, *reduce, row, gens_, elemental_, &b_,
                           ReductionLanes(*reduce, options_.reduction_vector_bytes),
                           ReductionVectors(*reduce, options_.reduction_vectors)));
        CacheReduceValues(reduce, row, std::move(values));
      }
      if (row_cache != nullptr) {
        gens_[row_cached] = [&](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          return b_.CreateLoad(cached_type,
                               b_.CreateInBoundsGEP(cached_type, row_cache, column(index)));
        };
      }
      RETURN_IF_ERROR(WriteLeaves(row_leaves, row));
      if (!full_leaves.empty()) {
        RETURN_IF_ERROR(EmitLoop(0, cols, "col", [&](llvm::Value* c) {
          std::vector<llvm::Value*> index = row.multidim();
          const IrIndex col = IrIndex::FromLinear(c, col_dims, &b_);
          index.insert(index.end(), col.multidim().begin(), col.multidim().end());
          return WriteLeaves(full_leaves, IrIndex(index, input_dims));
        }));
      }
      if (row_cache != nullptr) gens_[row_cached] = computed;
      ClearReduceCache();
      return absl::OkStatus();
    });
  };
  return s;
}

HostKernelSegment HostFusionKernelEmitter::PlanColumns(std::vector<int64_t> input_dims) {
  const bool batched = input_dims.size() == 3;
  const int64_t a_size = batched ? input_dims[0] : 1;
  const int64_t r_size = input_dims[batched ? 1 : 0];
  const int64_t c_size = input_dims.back();
  const int64_t chunk = std::max<int64_t>(1, std::min(c_size, options_.column_chunk));
  const int64_t c_blocks = CeilDiv(c_size, chunk);
  Segment s;
  s.blocks = a_size * c_blocks;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* a = b_.CreateUDiv(block, b_.getInt64(c_blocks));
    llvm::Value* c0 = b_.CreateMul(b_.CreateURem(block, b_.getInt64(c_blocks)), b_.getInt64(chunk));
    llvm::Value* c1 = Min(b_.CreateAdd(c0, b_.getInt64(chunk)), b_.getInt64(c_size));
    // acc[reduce][value] is an array of `chunk` accumulators along C.
    std::vector<std::vector<llvm::AllocaInst*>> acc(reduces_.size());
    std::vector<std::vector<llvm::Type*>> types(reduces_.size());
    for (size_t q = 0; q < reduces_.size(); ++q) {
      const HloInstruction* reduce = reduces_[q];
      const int64_t n = reduce->operand_count() / 2;
      for (int64_t k = 0; k < n; ++k) {
        types[q].push_back(ElementIrType(reduce->operand(n + k)->shape().element_type(), ctx_));
        acc[q].push_back(EntryAlloca(types[q].back(), chunk, "col_acc"));
        ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(reduce->operand(n + k))(IrIndex()));
        llvm::AllocaInst* slot = acc[q].back();
        RETURN_IF_ERROR(EmitLoop(c0, c1, "init", [&](llvm::Value* c) -> absl::Status {
          b_.CreateStore(init, b_.CreateInBoundsGEP(types[q][k], slot, b_.CreateSub(c, c0)));
          return absl::OkStatus();
        }));
      }
    }
    RETURN_IF_ERROR(EmitLoop(0, r_size, "red", [&](llvm::Value* r) {
      return EmitLoop(c0, c1, "col", [&](llvm::Value* c) -> absl::Status {
        std::vector<llvm::Value*> in = batched ? std::vector<llvm::Value*>{a, r, c}
                                               : std::vector<llvm::Value*>{r, c};
        for (size_t q = 0; q < reduces_.size(); ++q) {
          const HloInstruction* reduce = reduces_[q];
          const int64_t n = reduce->operand_count() / 2;
          std::vector<llvm::Value*> args, slots;
          for (int64_t k = 0; k < n; ++k) {
            slots.push_back(b_.CreateInBoundsGEP(types[q][k], acc[q][k], b_.CreateSub(c, c0)));
            args.push_back(b_.CreateLoad(types[q][k], slots.back()));
          }
          for (int64_t k = 0; k < n; ++k) {
            ASSIGN_OR_RETURN(llvm::Value * x, gens_.at(reduce->operand(k))(IrIndex(in, input_dims)));
            args.push_back(x);
          }
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                           EmitComputation(reduce->to_apply(), args));
          for (int64_t k = 0; k < n; ++k) b_.CreateStore(next[k], slots[k]);
        }
        return absl::OkStatus();
      });
    }));
    return EmitLoop(c0, c1, "out", [&](llvm::Value* c) -> absl::Status {
      std::vector<llvm::Value*> out =
          batched ? std::vector<llvm::Value*>{a, c} : std::vector<llvm::Value*>{c};
      for (size_t k = 0; k < leaves_.size(); ++k) {
        const size_t q = std::find(reduces_.begin(), reduces_.end(), leaves_[k].instr) -
                         reduces_.begin();
        const int64_t v = leaves_[k].value;
        llvm::Value* value = b_.CreateLoad(
            types[q][v], b_.CreateInBoundsGEP(types[q][v], acc[q][v], b_.CreateSub(c, c0)));
        OutputArray(k).EmitWriteElement(IrIndex(out, leaves_[k].shape.dimensions()), value, &b_);
      }
      return absl::OkStatus();
    });
  };
  return s;
}

}  // namespace xla::gpu
