#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include <functional>

#include "llvm/IR/Constants.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

// One block per sort line (block b: line b of the dims without sort_dim_).
//   Shared (choice_.sort_in_shared): the line's values and original
//   positions are loaded into shared memory, sorted by a bitonic network
//   and written out. The network is the variant with a mirrored first step
//   per merge, where every compare-exchange puts the earlier element at the
//   lower position; positions >= len then behave as +infinity padding, so
//   the line needs no padding and compares reaching past it are skipped.
//   Ties (neither element before the other under the comparator) are
//   ordered by original position, which makes the order total: the result
//   is the unique stable sort, the host's and the evaluator's, whatever
//   is_stable says (cost: a second comparator call per compare-exchange).
//   Global (longer lines): the line is copied to the outputs and sorted
//   there by odd-even transposition (len phases of adjacent
//   compare-exchanges, bar.sync between phases). It swaps only strictly
//   out-of-order neighbours, so it is stable too, but takes O(len) phases:
//   correct, slow for very long lines.
// The comparator is the sort's to_apply through the elemental emitter on
// (lhs_0, rhs_0, lhs_1, rhs_1, ...); it must be a strict weak order.
absl::Status NvptxFusionKernelEmitter::EmitSortKernel() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& dims = sort->operand(0)->shape().dimensions();
  const int64_t len = problem_.row_length;
  const int64_t n = sort->operand_count();
  const bool shared = choice_.sort_in_shared;
  std::vector<int64_t> line_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != sort_dim_) line_dims.push_back(dims[d]);
  }
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = b_.getInt64(choice_.threads_per_block);
  const Values line =
      IrIndex::FromLinear(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), line_dims, &b_)
          .multidim();
  auto at = [&](llvm::Value* j) {
    Values index = line;
    index.insert(index.begin() + sort_dim_, j);
    return IrIndex(index, dims);
  };
  std::vector<llvm::Type*> types;
  std::vector<llvm::GlobalVariable*> arrays;
  llvm::GlobalVariable* positions = nullptr;
  for (int64_t k = 0; k < n; ++k) {
    types.push_back(ElementIrType(leaves_[k].shape.element_type(), ctx_));
    if (shared) arrays.push_back(SharedArray(types[k], len, "sort_values"));
  }
  if (shared) positions = SharedArray(b_.getInt32Ty(), len, "sort_positions");
  auto slot = [&](llvm::GlobalVariable* array, llvm::Value* j) {
    return b_.CreateInBoundsGEP(array->getValueType(), array, {b_.getInt64(0), j});
  };
  auto load = [&](int64_t k, llvm::Value* j) -> llvm::Value* {
    if (shared) return b_.CreateLoad(types[k], slot(arrays[k], j));
    return OutputArray(k).EmitReadElement(at(j), &b_);
  };
  auto store = [&](int64_t k, llvm::Value* j, llvm::Value* v) {
    if (shared) {
      b_.CreateStore(v, slot(arrays[k], j));
    } else {
      OutputArray(k).EmitWriteElement(at(j), v, &b_);
    }
  };
  auto strided = [&](int64_t end, const std::string& name,
                     const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitLoop(tid, b_.getInt64(end), threads, name, body);
  };
  // The line, read through the fused operands' generators (all operands
  // before any store, in case an output shares an operand's buffer).
  RETURN_IF_ERROR(strided(len, "sort_load", [&](llvm::Value* j) -> absl::Status {
    Values values;
    for (int64_t k = 0; k < n; ++k) {
      ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(sort->operand(k))(at(j)));
      values.push_back(v);
    }
    for (int64_t k = 0; k < n; ++k) store(k, j, values[k]);
    if (shared) b_.CreateStore(b_.CreateTrunc(j, b_.getInt32Ty()), slot(positions, j));
    return absl::OkStatus();
  }));
  Barrier();
  // True when the element `a` comes strictly before `b` under the comparator.
  auto before = [&](const Values& a, const Values& b) -> absl::StatusOr<llvm::Value*> {
    Values args;
    for (int64_t k = 0; k < n; ++k) {
      args.push_back(a[k]);
      args.push_back(b[k]);
    }
    ASSIGN_OR_RETURN(Values result,
                     EmitComputation(sort->to_apply(), args));
    if (result.size() != 1) return Unimplemented(sort, "the comparator must return one pred");
    return b_.CreateICmpNE(result[0], llvm::ConstantInt::get(result[0]->getType(), 0));
  };
  // Positions i < l: afterwards the element at l does not come before i's.
  auto exchange = [&](llvm::Value* i, llvm::Value* l) -> absl::Status {
    Values x, y;
    for (int64_t k = 0; k < n; ++k) {
      x.push_back(load(k, i));
      y.push_back(load(k, l));
    }
    ASSIGN_OR_RETURN(llvm::Value * swap, before(y, x));
    llvm::Value* pi = nullptr;
    llvm::Value* pl = nullptr;
    if (shared) {
      pi = b_.CreateLoad(b_.getInt32Ty(), slot(positions, i));
      pl = b_.CreateLoad(b_.getInt32Ty(), slot(positions, l));
      ASSIGN_OR_RETURN(llvm::Value * x_first, before(x, y));
      swap = b_.CreateOr(swap, b_.CreateAnd(b_.CreateNot(x_first), b_.CreateICmpUGT(pi, pl)));
    }
    return EmitIf(swap, [&]() {
      for (int64_t k = 0; k < n; ++k) {
        store(k, i, y[k]);
        store(k, l, x[k]);
      }
      if (shared) {
        b_.CreateStore(pl, slot(positions, i));
        b_.CreateStore(pi, slot(positions, l));
      }
      return absl::OkStatus();
    });
  };
  if (!shared) {
    // Phase q compares (2p + q % 2, 2p + q % 2 + 1).
    return EmitLoop(0, len, "sort_phase", [&](llvm::Value* q) -> absl::Status {
      llvm::Value* odd = b_.CreateAnd(q, b_.getInt64(1));
      RETURN_IF_ERROR(strided(len / 2, "sort_pair", [&](llvm::Value* p) {
        llvm::Value* i = b_.CreateAdd(b_.CreateShl(p, 1), odd);
        llvm::Value* l = b_.CreateAdd(i, b_.getInt64(1));
        return EmitIf(b_.CreateICmpULT(l, b_.getInt64(len)), [&]() { return exchange(i, l); });
      }));
      Barrier();
      return absl::OkStatus();
    });
  }
  int64_t log_p = 0;
  while ((int64_t{1} << log_p) < len) ++log_p;
  const int64_t pairs = (int64_t{1} << log_p) / 2;
  // Stage s merges sorted runs of 2^(s-1) into runs of 2^s: step 0 compares
  // mirrored positions of each 2^s block, step u > 0 positions 2^(s-1-u)
  // apart. bar.sync after every step (the loop bounds are block-uniform).
  RETURN_IF_ERROR(EmitLoop(1, log_p + 1, "sort_stage", [&](llvm::Value* s) {
    return EmitLoop(b_.getInt64(0), s, b_.getInt64(1), "sort_step",
                    [&](llvm::Value* u) -> absl::Status {
      llvm::Value* shift = b_.CreateSub(b_.CreateSub(s, b_.getInt64(1)), u);
      llvm::Value* dist = b_.CreateShl(b_.getInt64(1), shift);
      llvm::Value* mirrored = b_.CreateICmpEQ(u, b_.getInt64(0));
      RETURN_IF_ERROR(strided(pairs, "sort_pair", [&](llvm::Value* p) {
        // Pair p: offset r in its group of `dist` pairs, group base g * 2dist.
        llvm::Value* base =
            b_.CreateShl(b_.CreateLShr(p, shift), b_.CreateAdd(shift, b_.getInt64(1)));
        llvm::Value* r = b_.CreateAnd(p, b_.CreateSub(dist, b_.getInt64(1)));
        llvm::Value* i = b_.CreateAdd(base, r);
        llvm::Value* mirror = b_.CreateSub(
            b_.CreateAdd(base, b_.CreateSub(b_.CreateShl(dist, 1), b_.getInt64(1))), r);
        llvm::Value* l = b_.CreateSelect(mirrored, mirror, b_.CreateAdd(i, dist));
        return EmitIf(b_.CreateICmpULT(l, b_.getInt64(len)), [&]() { return exchange(i, l); });
      }));
      Barrier();
      return absl::OkStatus();
    });
  }));
  return strided(len, "sort_store", [&](llvm::Value* j) -> absl::Status {
    for (int64_t k = 0; k < n; ++k) OutputArray(k).EmitWriteElement(at(j), load(k, j), &b_);
    return absl::OkStatus();
  });
}

}  // namespace xla::gpu
