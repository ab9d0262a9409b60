#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include "llvm/IR/Constants.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Longer lines are insertion-sorted in runs of this length, which are then
// merged.
constexpr int64_t kSortRun = 16;

// Lines up to this long are insertion-sorted whole: as fast as the merge
// sort there or faster (top-k's chunks of 128: 100-128 ms with insertion,
// 157-162 ms with runs and merges, on one loaded 2-core machine), and
// less code to compile.
constexpr int64_t kInsertionOnly = 128;

// Each operand's scratch line starts at a multiple of this many bytes.
constexpr int64_t kScratchAlign = 64;

// One line of every sort operand in memory: the output line (strided along
// the sort dimension) or a scratch line (contiguous).
struct SortLine {
  std::vector<IrArray> arrays;  // one per operand
  std::function<IrIndex(llvm::Value*)> at;

  std::vector<llvm::Value*> Read(llvm::Value* j, llvm::IRBuilder<>* b) const {
    std::vector<llvm::Value*> values;
    for (const IrArray& a : arrays) values.push_back(a.EmitReadElement(at(j), b));
    return values;
  }
  void Write(llvm::Value* j, const std::vector<llvm::Value*>& values, llvm::IRBuilder<>* b) const {
    for (size_t k = 0; k < arrays.size(); ++k) arrays[k].EmitWriteElement(at(j), values[k], b);
  }
};

// Whether the elements of a line along `dim` are adjacent in memory under
// `shape`'s layout (row-major without one): every dimension more minor than
// `dim` has size 1.
bool LineIsContiguous(const Shape& shape, int64_t dim) {
  std::vector<int64_t> minor_to_major;
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    minor_to_major = shape.layout().minor_to_major;
  } else {
    for (int64_t d = shape.rank() - 1; d >= 0; --d) minor_to_major.push_back(d);
  }
  for (int64_t d : minor_to_major) {
    if (d == dim) return true;
    if (shape.dimensions(d) != 1) return false;
  }
  return false;
}

}  // namespace

// A stable merge sort per line (sort->is_stable or not: a stable order is
// one of the orders an unstable sort may produce, and the evaluator's):
//   1. the line is computed into the outputs;
//   2. runs of kSortRun elements are insertion-sorted there (the whole line
//      when it has at most kInsertionOnly elements: then that is all);
//   3. bottom-up merge passes alternate between the outputs and a scratch
//      line, ending in the outputs (a final copy when the pass count is
//      odd). A merge takes the right element only when the comparator says
//      right < left, so ties keep their input order. When every output's
//      lines are contiguous (LineIsContiguous) the IR holds one merge pass
//      whose source and destination swap by a select each pass; otherwise
//      one pass each way (a strided line and a scratch line differ in
//      addressing). Fewer copies of the comparator and the merge loops:
//      less for LLVM to compile (docs/perf.md, branch sort27).
// The scratch line is a stack array when it fits in
// options_.sort_stack_scratch_bytes, else malloc'ed per line, before the
// runs, and freed after the passes; when malloc fails the run length is the
// whole line (one insertion sort, O(n^2), same result, no passes), so the
// fallback reuses the runs' code.
absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanSort() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& sort_dims = sort->dimensions();
  if (sort->operand_count() < 1 || sort_dims.size() != 1 || sort->to_apply() == nullptr ||
      static_cast<int64_t>(leaves_.size()) != sort->operand_count()) {
    return Unimplemented(sort, "malformed sort");
  }
  const std::vector<int64_t> dims = sort->operand(0)->shape().dimensions();
  const int64_t dim = sort_dims[0];
  if (dim < 0 || dim >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(sort, "sort dimension out of range");
  }
  for (const HloInstruction* op : sort->operands()) {
    if (op->shape().dimensions() != dims) return Unimplemented(sort, "operands of different dims");
  }
  std::vector<int64_t> line_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != dim) line_dims.push_back(dims[d]);
  }
  const int64_t len = dims[dim];
  const int64_t n = sort->operand_count();
  // Byte offsets of each operand's scratch line, and their total.
  std::vector<int64_t> scratch_offsets;
  int64_t scratch_bytes = 0;
  for (int64_t k = 0; k < n; ++k) {
    scratch_offsets.push_back(scratch_bytes);
    const int64_t bytes = len * ByteWidth(leaves_[k].shape.element_type());
    scratch_bytes += (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
  }
  const bool on_stack = scratch_bytes <= options_.sort_stack_scratch_bytes;
  bool contiguous = true;
  for (int64_t k = 0; k < n; ++k) contiguous = contiguous && LineIsContiguous(leaves_[k].shape, dim);
  Segment s;
  s.blocks = len == 0 ? 0 : Product(line_dims);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    const std::vector<llvm::Value*> line = IrIndex::FromLinear(block, line_dims, &b_).multidim();
    SortLine out;
    out.at = [line, dims, dim](llvm::Value* j) {
      std::vector<llvm::Value*> index = line;
      index.insert(index.begin() + dim, j);
      return IrIndex(index, dims);
    };
    std::vector<llvm::Type*> types;
    std::vector<llvm::AllocaInst*> keys;
    for (int64_t k = 0; k < n; ++k) {
      out.arrays.push_back(OutputArray(k));
      types.push_back(ElementIrType(leaves_[k].shape.element_type(), ctx_));
      keys.push_back(EntryAlloca(types.back(), 1, "sort_key"));
    }
    llvm::AllocaInst* slot = EntryAlloca(b_.getInt64Ty(), 1, "sort_slot");
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto new_block = [&](const char* name) { return llvm::BasicBlock::Create(ctx_, name, f); };
    // comparator(lhs, rhs) as an i1: operands' lhs and rhs values interleaved.
    auto less = [&](const std::vector<llvm::Value*>& lhs,
                    const std::vector<llvm::Value*>& rhs) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < n; ++k) {
        args.push_back(lhs[k]);
        args.push_back(rhs[k]);
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> result, EmitComputation(sort->to_apply(), args));
      if (result.size() != 1) return Unimplemented(sort, "comparator must return one pred");
      return b_.CreateICmpNE(result[0], llvm::ConstantInt::get(result[0]->getType(), 0));
    };
    // Stable insertion sort of out[lo, hi).
    auto insertion_sort = [&](llvm::Value* lo, llvm::Value* hi) -> absl::Status {
      return EmitLoop(b_.CreateAdd(lo, b_.getInt64(1)), hi, "sort_i",
                      [&](llvm::Value* i) -> absl::Status {
        std::vector<llvm::Value*> key = out.Read(i, &b_);
        for (int64_t k = 0; k < n; ++k) b_.CreateStore(key[k], keys[k]);
        b_.CreateStore(i, slot);
        llvm::BasicBlock* header = new_block("sort_header");
        llvm::BasicBlock* check = new_block("sort_check");
        llvm::BasicBlock* shift = new_block("sort_shift");
        llvm::BasicBlock* done = new_block("sort_done");
        b_.CreateBr(header);
        b_.SetInsertPoint(header);
        llvm::Value* j = b_.CreateLoad(b_.getInt64Ty(), slot);
        b_.CreateCondBr(b_.CreateICmpSGT(j, lo), check, done);
        b_.SetInsertPoint(check);
        llvm::Value* prev = b_.CreateSub(j, b_.getInt64(1));
        std::vector<llvm::Value*> held;
        for (int64_t k = 0; k < n; ++k) held.push_back(b_.CreateLoad(types[k], keys[k]));
        const std::vector<llvm::Value*> before = out.Read(prev, &b_);
        ASSIGN_OR_RETURN(llvm::Value * lt, less(held, before));
        b_.CreateCondBr(lt, shift, done);
        b_.SetInsertPoint(shift);
        out.Write(j, out.Read(prev, &b_), &b_);
        b_.CreateStore(prev, slot);
        b_.CreateBr(header);
        b_.SetInsertPoint(done);
        std::vector<llvm::Value*> final_key;
        for (int64_t k = 0; k < n; ++k) final_key.push_back(b_.CreateLoad(types[k], keys[k]));
        out.Write(b_.CreateLoad(b_.getInt64Ty(), slot), final_key, &b_);
        return absl::OkStatus();
      });
    };

    // 1. The line into the outputs.
    RETURN_IF_ERROR(EmitLoop(0, len, "sort_copy", [&](llvm::Value* j) -> absl::Status {
      std::vector<llvm::Value*> values;
      for (int64_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(sort->operand(k))(out.at(j)));
        values.push_back(v);
      }
      out.Write(j, values, &b_);
      return absl::OkStatus();
    }));
    if (len <= kInsertionOnly) return insertion_sort(b_.getInt64(0), b_.getInt64(len));

    // 2. The scratch line, before the runs: when malloc fails, the run
    // length becomes the whole line (one insertion sort, no merges), so the
    // kernel holds one insertion sort, not a second one for the fallback.
    llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
    llvm::Value* base = nullptr;
    llvm::Value* got = nullptr;  // i1: malloc succeeded; null on the stack
    if (on_stack) {
      base = EntryAlloca(b_.getInt8Ty(), scratch_bytes, "sort_scratch");
      llvm::cast<llvm::AllocaInst>(base)->setAlignment(llvm::Align(kScratchAlign));
    } else {
      llvm::FunctionCallee malloc_fn = module_->getOrInsertFunction(
          "malloc", llvm::FunctionType::get(ptr, {b_.getInt64Ty()}, false));
      base = b_.CreateCall(malloc_fn, {b_.getInt64(scratch_bytes)}, "sort_scratch");
      got = b_.CreateICmpNE(base, llvm::ConstantPointerNull::get(
                                      llvm::cast<llvm::PointerType>(ptr)));
    }
    SortLine scratch;
    scratch.at = [len](llvm::Value* j) { return IrIndex({j}, {len}); };
    for (int64_t k = 0; k < n; ++k) {
      scratch.arrays.emplace_back(
          b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), base, scratch_offsets[k]),
          Shape::Array(leaves_[k].shape.element_type(), {len}));
    }

    // 3. Sorted runs.
    llvm::Value* end = b_.getInt64(len);
    llvm::Value* run = b_.getInt64(kSortRun);
    if (got != nullptr) run = b_.CreateSelect(got, run, end);
    RETURN_IF_ERROR(EmitLoop(b_.getInt64(0), end, run, "sort_run", [&](llvm::Value* r) {
      return insertion_sort(r, Min(b_.CreateAdd(r, run), end));
    }));

    // One pass: merges pairs of sorted runs of `width` from `src` to `dst`.
    llvm::AllocaInst* i_slot = EntryAlloca(b_.getInt64Ty(), 1, "merge_i");
    llvm::AllocaInst* j_slot = EntryAlloca(b_.getInt64Ty(), 1, "merge_j");
    llvm::AllocaInst* k_slot = EntryAlloca(b_.getInt64Ty(), 1, "merge_k");
    auto merge_pass = [&](const SortLine& src, const SortLine& dst,
                          llvm::Value* width) -> absl::Status {
      llvm::Value* pair = b_.CreateMul(width, b_.getInt64(2));
      return EmitLoop(b_.getInt64(0), end, pair, "merge_pair", [&](llvm::Value* lo) {
        llvm::Value* mid = Min(b_.CreateAdd(lo, width), end);
        llvm::Value* hi = Min(b_.CreateAdd(lo, pair), end);
        b_.CreateStore(lo, i_slot);
        b_.CreateStore(mid, j_slot);
        b_.CreateStore(lo, k_slot);
        llvm::BasicBlock* head = new_block("merge_head");
        llvm::BasicBlock* body = new_block("merge_body");
        llvm::BasicBlock* tail = new_block("merge_tail");
        b_.CreateBr(head);
        b_.SetInsertPoint(head);
        llvm::Value* i = b_.CreateLoad(b_.getInt64Ty(), i_slot);
        llvm::Value* j = b_.CreateLoad(b_.getInt64Ty(), j_slot);
        b_.CreateCondBr(b_.CreateAnd(b_.CreateICmpSLT(i, mid), b_.CreateICmpSLT(j, hi)), body,
                        tail);
        b_.SetInsertPoint(body);
        const std::vector<llvm::Value*> left = src.Read(i, &b_);
        const std::vector<llvm::Value*> right = src.Read(j, &b_);
        ASSIGN_OR_RETURN(llvm::Value * take_right, less(right, left));
        std::vector<llvm::Value*> taken;
        for (int64_t k = 0; k < n; ++k) {
          taken.push_back(b_.CreateSelect(take_right, right[k], left[k]));
        }
        llvm::Value* k = b_.CreateLoad(b_.getInt64Ty(), k_slot);
        dst.Write(k, taken, &b_);
        llvm::Value* step_right = b_.CreateZExt(take_right, b_.getInt64Ty());
        b_.CreateStore(b_.CreateAdd(j, step_right), j_slot);
        b_.CreateStore(b_.CreateAdd(i, b_.CreateSub(b_.getInt64(1), step_right)), i_slot);
        b_.CreateStore(b_.CreateAdd(k, b_.getInt64(1)), k_slot);
        b_.CreateBr(head);
        b_.SetInsertPoint(tail);
        // One run is used up; the other's rest goes to the end of [lo, hi).
        llvm::Value* i_rest = b_.CreateLoad(b_.getInt64Ty(), i_slot);
        llvm::Value* j_rest = b_.CreateLoad(b_.getInt64Ty(), j_slot);
        llvm::Value* shift = b_.CreateSub(hi, mid);
        RETURN_IF_ERROR(EmitLoop(i_rest, mid, "merge_left", [&](llvm::Value* x) {
          dst.Write(b_.CreateAdd(x, shift), src.Read(x, &b_), &b_);
          return absl::OkStatus();
        }));
        return EmitLoop(j_rest, hi, "merge_right", [&](llvm::Value* x) {
          dst.Write(x, src.Read(x, &b_), &b_);
          return absl::OkStatus();
        });
      });
    };

    // 4. Passes of widths kSortRun, 2 kSortRun, ... alternating between the
    // outputs and the scratch line, ending in the outputs (a final copy when
    // the pass count is odd); none when the run is the whole line.
    auto passes = [&]() -> absl::Status {
      llvm::AllocaInst* width_slot = EntryAlloca(b_.getInt64Ty(), 1, "merge_width");
      b_.CreateStore(run, width_slot);
      if (contiguous) {
        // One merge pass in the IR, run in both directions: each pass reads
        // the line it last wrote (`flipped`: the scratch line).
        SortLine line;
        line.at = scratch.at;
        for (int64_t k = 0; k < n; ++k) {
          line.arrays.emplace_back(out.arrays[k].EmitElementAddress(out.at(b_.getInt64(0)), &b_),
                                   Shape::Array(leaves_[k].shape.element_type(), {len}));
        }
        llvm::AllocaInst* flipped_slot = EntryAlloca(b_.getInt1Ty(), 1, "merge_flipped");
        b_.CreateStore(b_.getFalse(), flipped_slot);
        llvm::BasicBlock* head = new_block("pass_head");
        llvm::BasicBlock* pass = new_block("pass");
        llvm::BasicBlock* copy_back = new_block("pass_copy_back");
        llvm::BasicBlock* done = new_block("pass_done");
        b_.CreateBr(head);
        b_.SetInsertPoint(head);
        llvm::Value* width = b_.CreateLoad(b_.getInt64Ty(), width_slot);
        b_.CreateCondBr(b_.CreateICmpSLT(width, end), pass, copy_back);
        b_.SetInsertPoint(pass);
        llvm::Value* flipped = b_.CreateLoad(b_.getInt1Ty(), flipped_slot);
        SortLine src = scratch, dst = line;
        for (int64_t k = 0; k < n; ++k) {
          llvm::Value* a = scratch.arrays[k].base();
          llvm::Value* o = line.arrays[k].base();
          src.arrays[k] = IrArray(b_.CreateSelect(flipped, a, o), line.arrays[k].shape());
          dst.arrays[k] = IrArray(b_.CreateSelect(flipped, o, a), line.arrays[k].shape());
        }
        RETURN_IF_ERROR(merge_pass(src, dst, width));
        b_.CreateStore(b_.CreateMul(width, b_.getInt64(2)), width_slot);
        b_.CreateStore(b_.CreateNot(flipped), flipped_slot);
        b_.CreateBr(head);
        b_.SetInsertPoint(copy_back);
        llvm::BasicBlock* copy = new_block("pass_copy_line");
        b_.CreateCondBr(b_.CreateLoad(b_.getInt1Ty(), flipped_slot), copy, done);
        b_.SetInsertPoint(copy);
        RETURN_IF_ERROR(EmitLoop(0, len, "pass_copy", [&](llvm::Value* x) {
          line.Write(x, scratch.Read(x, &b_), &b_);
          return absl::OkStatus();
        }));
        b_.CreateBr(done);
        b_.SetInsertPoint(done);
        return absl::OkStatus();
      }
      // Strided output lines: the pass out -> scratch and the pass
      // scratch -> out are emitted separately.
      llvm::BasicBlock* head = new_block("pass_head");
      llvm::BasicBlock* to_scratch = new_block("pass_to_scratch");
      llvm::BasicBlock* to_out = new_block("pass_to_out");
      llvm::BasicBlock* copy_back = new_block("pass_copy_back");
      llvm::BasicBlock* done = new_block("pass_done");
      b_.CreateBr(head);
      b_.SetInsertPoint(head);
      b_.CreateCondBr(b_.CreateICmpSLT(b_.CreateLoad(b_.getInt64Ty(), width_slot), end),
                      to_scratch, done);
      b_.SetInsertPoint(to_scratch);
      RETURN_IF_ERROR(merge_pass(out, scratch, b_.CreateLoad(b_.getInt64Ty(), width_slot)));
      llvm::Value* doubled = b_.CreateMul(b_.CreateLoad(b_.getInt64Ty(), width_slot),
                                          b_.getInt64(2));
      b_.CreateStore(doubled, width_slot);
      b_.CreateCondBr(b_.CreateICmpSLT(doubled, end), to_out, copy_back);
      b_.SetInsertPoint(to_out);
      RETURN_IF_ERROR(merge_pass(scratch, out, b_.CreateLoad(b_.getInt64Ty(), width_slot)));
      b_.CreateStore(b_.CreateMul(b_.CreateLoad(b_.getInt64Ty(), width_slot), b_.getInt64(2)),
                     width_slot);
      b_.CreateBr(head);
      b_.SetInsertPoint(copy_back);
      RETURN_IF_ERROR(EmitLoop(0, len, "pass_copy", [&](llvm::Value* x) {
        out.Write(x, scratch.Read(x, &b_), &b_);
        return absl::OkStatus();
      }));
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return absl::OkStatus();
    };
    RETURN_IF_ERROR(passes());
    if (got == nullptr) return absl::OkStatus();
    // free(NULL) does nothing: no branch needed after a failed malloc.
    llvm::FunctionCallee free_fn = module_->getOrInsertFunction(
        "free", llvm::FunctionType::get(b_.getVoidTy(), {ptr}, false));
    b_.CreateCall(free_fn, {base});
    return absl::OkStatus();
  };
  return s;
}

}  // namespace xla::gpu
