#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include <algorithm>

#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status NvptxFusionKernelEmitter::EmitRowKernel() {
  const std::vector<int64_t> input_dims = reduces_[0]->operand(0)->shape().dimensions();
  const std::vector<int64_t> row_dims(input_dims.begin(), input_dims.begin() + kept_);
  const std::vector<int64_t> col_dims(input_dims.begin() + kept_, input_dims.end());
  const int64_t rows = Product(row_dims);
  const int64_t cols = Product(col_dims);
  std::vector<int64_t> row_leaves, full_leaves;
  for (size_t k = 0; k < leaves_.size(); ++k) {
    (leaves_[k].shape.dimensions() == row_dims ? row_leaves : full_leaves).push_back(k);
  }
  const int64_t warp = target_.warp_size;
  const int64_t threads = choice_.threads_per_block;
  const int64_t nwarps = threads / warp;
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* lane = b_.CreateURem(tid, b_.getInt64(warp), "lane");
  llvm::Value* warp_id = b_.CreateUDiv(tid, b_.getInt64(warp), "warp");
  llvm::Value* row = choice_.warp_per_row
                         ? b_.CreateAdd(b_.CreateMul(block, b_.getInt64(choice_.rows_per_block)),
                                        warp_id, "row")
                         : block;
  llvm::Value* pos = choice_.warp_per_row ? lane : tid;
  llvm::Value* step = b_.getInt64(choice_.warp_per_row ? warp : threads);

  auto cols_index = [&](const IrIndex& r, llvm::Value* c) {
    Values index = r.multidim();
    const IrIndex col = IrIndex::FromLinear(c, col_dims, &b_);
    index.insert(index.end(), col.multidim().begin(), col.multidim().end());
    return IrIndex(index, input_dims);
  };
  // Positions 0 .. positions-1 fold a row; those at or past `cols` hold no
  // partial (FoldStrided), and warps at or past `live_warps` publish none.
  const int64_t positions = choice_.warp_per_row ? warp : threads;
  const int64_t live_warps = std::max<int64_t>(1, std::min(nwarps, CeilDiv(cols, warp)));
  auto body = [&]() -> absl::Status {
    const IrIndex r = IrIndex::FromLinear(row, row_dims, &b_);
    for (const HloInstruction* reduce : reduces_) {
      ASSIGN_OR_RETURN(Values inits, Inits(reduce));
      const size_t n = inits.size();
      std::vector<llvm::AllocaInst*> acc;
      for (size_t k = 0; k < n; ++k) {
        acc.push_back(EntryAlloca(inits[k]->getType(), "acc"));
        b_.CreateStore(inits[k], acc[k]);
      }
      RETURN_IF_ERROR(FoldStrided({reduce}, {acc}, pos, cols, positions, "col",
                                  [&](size_t, llvm::Value* c) {
                                    return ReducedElements(reduce, cols_index(r, c));
                                  }));
      Values v;
      for (size_t k = 0; k < n; ++k) v.push_back(b_.CreateLoad(inits[k]->getType(), acc[k]));
      llvm::Value* valid = cols >= positions
                               ? nullptr
                               : b_.CreateOr(b_.CreateICmpEQ(pos, b_.getInt64(0)),
                                             b_.CreateICmpULT(pos, b_.getInt64(cols)));
      ASSIGN_OR_RETURN(v, WarpAllReduce(reduce, v, valid));
      if (!choice_.warp_per_row && nwarps > 1) {
        // Across warps: lane 0 of each warp publishes, then every warp
        // reduces the published partials, so every thread has the result.
        std::vector<llvm::GlobalVariable*> shared;
        for (size_t k = 0; k < n; ++k) {
          shared.push_back(SharedArray(v[k]->getType(), nwarps, "partials"));
        }
        RETURN_IF_ERROR(EmitIf(b_.CreateICmpEQ(lane, b_.getInt64(0)), [&]() {
          for (size_t k = 0; k < n; ++k) {
            b_.CreateStore(v[k], b_.CreateInBoundsGEP(shared[k]->getValueType(), shared[k],
                                                      {b_.getInt64(0), warp_id}));
          }
          return absl::OkStatus();
        }));
        Barrier();
        llvm::Value* published = b_.CreateICmpULT(lane, b_.getInt64(live_warps));
        llvm::Value* slot = b_.CreateSelect(published, lane, b_.getInt64(0));
        for (size_t k = 0; k < n; ++k) {
          v[k] = b_.CreateLoad(
              v[k]->getType(),
              b_.CreateInBoundsGEP(shared[k]->getValueType(), shared[k], {b_.getInt64(0), slot}));
        }
        ASSIGN_OR_RETURN(v, WarpAllReduce(reduce, v, live_warps >= warp ? nullptr : published));
      }
      CacheReduceValues(reduce, r, v);
    }
    if (!row_leaves.empty()) {
      RETURN_IF_ERROR(EmitIf(b_.CreateICmpEQ(pos, b_.getInt64(0)),
                             [&]() { return WriteLeaves(row_leaves, r); }));
    }
    if (!full_leaves.empty()) {
      RETURN_IF_ERROR(EmitLoop(pos, b_.getInt64(cols), step, "out", [&](llvm::Value* c) {
        return WriteLeaves(full_leaves, cols_index(r, c));
      }));
    }
    ClearReduceCache();
    return absl::OkStatus();
  };
  if (!choice_.warp_per_row) return body();
  // Warp-uniform: whole warps skip rows past the end.
  return EmitIf(b_.CreateICmpULT(row, b_.getInt64(rows)), body);
}

absl::Status NvptxFusionKernelEmitter::EmitColumnKernel() {
  const std::vector<int64_t> input_dims = reduces_[0]->operand(0)->shape().dimensions();
  const bool batched = input_dims.size() == 3;
  const int64_t r_size = problem_.row_length;
  const int64_t c_size = problem_.columns;
  const int64_t tile = choice_.tile;
  const int64_t trows = choice_.tile_rows;
  const int64_t c_blocks = CeilDiv(c_size, tile);
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* tx = b_.CreateURem(tid, b_.getInt64(tile), "tx");
  llvm::Value* ty = b_.CreateUDiv(tid, b_.getInt64(tile), "ty");
  llvm::Value* a = b_.CreateUDiv(block, b_.getInt64(c_blocks));
  llvm::Value* c = b_.CreateAdd(
      b_.CreateMul(b_.CreateURem(block, b_.getInt64(c_blocks)), b_.getInt64(tile)), tx, "c");
  llvm::Value* c_ok = b_.CreateICmpULT(c, b_.getInt64(c_size));
  std::vector<Values> inits(reduces_.size());
  std::vector<std::vector<llvm::AllocaInst*>> acc(reduces_.size());
  for (size_t q = 0; q < reduces_.size(); ++q) {
    ASSIGN_OR_RETURN(inits[q], Inits(reduces_[q]));
    for (llvm::Value* init : inits[q]) {
      acc[q].push_back(EntryAlloca(init->getType(), "acc"));
      b_.CreateStore(init, acc[q].back());
    }
  }
  // Thread (tx, ty) folds rows ty, ty + 8, ... of column c: a warp reads 32
  // consecutive columns of one row (coalesced).
  // Rows ty >= r_size fold nothing, so only the first min(trows, r_size)
  // partials (at least row 0's, which holds the init) are combined below.
  RETURN_IF_ERROR(EmitIf(c_ok, [&]() {
    return FoldStrided(reduces_, acc, ty, r_size, trows, "red", [&](size_t q, llvm::Value* r) {
      return ReducedElements(reduces_[q],
                             IrIndex(batched ? Values{a, r, c} : Values{r, c}, input_dims));
    });
  }));
  // Partials through a [8][33] shared tile per value; row 0 folds them.
  const int64_t pitch = tile + 1;
  llvm::Value* mine = b_.CreateAdd(b_.CreateMul(ty, b_.getInt64(pitch)), tx);
  std::vector<std::vector<llvm::GlobalVariable*>> shared(reduces_.size());
  for (size_t q = 0; q < reduces_.size(); ++q) {
    for (size_t k = 0; k < inits[q].size(); ++k) {
      llvm::Type* t = inits[q][k]->getType();
      shared[q].push_back(SharedArray(t, trows * pitch, "column_tile"));
      b_.CreateStore(b_.CreateLoad(t, acc[q][k]),
                     b_.CreateInBoundsGEP(shared[q][k]->getValueType(), shared[q][k],
                                          {b_.getInt64(0), mine}));
    }
  }
  Barrier();
  return EmitIf(b_.CreateAnd(c_ok, b_.CreateICmpEQ(ty, b_.getInt64(0))), [&]() -> absl::Status {
    std::vector<Values> final_values(reduces_.size());
    for (size_t q = 0; q < reduces_.size(); ++q) {
      auto load_row = [&](int64_t j) {
        Values v;
        for (size_t k = 0; k < inits[q].size(); ++k) {
          llvm::Value* at = b_.CreateAdd(b_.getInt64(j * pitch), tx);
          v.push_back(b_.CreateLoad(inits[q][k]->getType(),
                                    b_.CreateInBoundsGEP(shared[q][k]->getValueType(),
                                                         shared[q][k], {b_.getInt64(0), at})));
        }
        return v;
      };
      Values v = load_row(0);
      for (int64_t j = 1; j < std::min(trows, r_size); ++j) {
        ASSIGN_OR_RETURN(v, Combine(reduces_[q], v, load_row(j)));
      }
      final_values[q] = v;
    }
    for (size_t k = 0; k < leaves_.size(); ++k) {
      const size_t q = std::find(reduces_.begin(), reduces_.end(), leaves_[k].instr) -
                       reduces_.begin();
      const IrIndex out(batched ? Values{a, c} : Values{c}, leaves_[k].shape.dimensions());
      OutputArray(k).EmitWriteElement(out, final_values[q][leaves_[k].value], &b_);
    }
    return absl::OkStatus();
  });
}

}  // namespace xla::gpu
