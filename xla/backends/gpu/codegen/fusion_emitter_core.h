// What the host and NVPTX fusion emitters share: the checks and the
// per-fusion analysis that come before any loop (the called computation,
// its output leaves and reduces), the kernel's buffer parameters, one
// element generator per fused instruction, the values of the output leaves
// and their writes, and the verification and argument list at the end.
//
// A target's emitter derives from FusionEmitterCore and adds only what
// differs between targets: the kernel function's signature (a PTX kernel on
// the GPU; an ABI entry point and an implementation taking a block range on
// the host) and the loop structure of each kind (a thread grid, warps and
// shared memory on the GPU; row blocks and accumulator lanes on the host).
// Each kind lives in its own file per target, `<target>_<kind>_kernel.cc`,
// and reads every fused value through this class, so the element math and
// the order in which it folds values are the same on both targets.
//
// Adding a kind (fused attention, say):
//   1. classify it once, in AnalyzeFusionKernel (../fusion_kernel_analysis.h:
//      a FusionKernelKind and its name), with the dimensions both targets
//      need in FusionKernelAnalysis;
//   2. write what computes its values once, against this class or as a
//      shared IR helper beside reduction_ir.h / window_gather_ir.h, taking
//      generators and an IRBuilder (the per-element or per-row math, e.g.
//      the row softmax of scores and the weighted sum of values);
//   3. per target, one `<target>_<kind>_kernel.cc` that only maps that math
//      onto the target's loops (which thread or block owns which rows), and
//      one case in the target's dispatch (the NVPTX emitter's Run and its
//      launch problem; the host emitter's Plan).
// No step copies code between the targets.
//
// Thread-safety: an instance emits one kernel into one module and is not
// thread-safe; nor is the module while it emits. The fusion, the module and
// the math emitter must outlive the instance.
#ifndef XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_CORE_H_
#define XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_CORE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/math_emitter.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// Square tiles of a transpose over output dims `dims`: tiles of `tile` x
// `tile` along dim `tiled` (a, the input's minor dim) and the output's minor
// dim (c); the other dims number the tiles' batch. Pure; the IR helpers
// emit at `b`'s insertion point.
struct TransposeTiles {
  TransposeTiles(std::vector<int64_t> dims, int64_t tiled, int64_t tile);
  // The first element (a0, c0) of block `block`'s tile and its batch
  // index over other_sizes.
  struct Origin {
    std::vector<llvm::Value*> batch;
    llvm::Value* a0;
    llvm::Value* c0;
  };
  // Block numbers run over batch, then a's tiles, then c's tiles. The batch
  // index is emitted after `between` (may be null), which may emit more.
  Origin BlockOrigin(llvm::Value* block, llvm::IRBuilder<>* b,
                     const std::function<void(llvm::Value* a0, llvm::Value* c0)>& between) const;
  // The output index at (a, c) in batch `batch`.
  IrIndex At(const std::vector<llvm::Value*>& batch, llvm::Value* a, llvm::Value* c) const;

  std::vector<int64_t> dims;
  int64_t tiled;
  int64_t tile;
  std::vector<int64_t> other_dims, other_sizes;
  int64_t tiles_a, tiles_c;
};

class FusionEmitterCore {
 public:
  using Values = std::vector<llvm::Value*>;
  using LoopBody = std::function<absl::Status(llvm::Value*)>;

  // `emitter` names the target in every message ("host", "nvptx"); `math`
  // maps the transcendental functions for the elemental emitter.
  FusionEmitterCore(const HloInstruction& fusion, absl::string_view emitter,
                    llvm::Module* module, const MathEmitter* math);

 protected:
  // Checks that `fusion_` is a fusion with one called computation and array
  // operands, then collects its output leaves (one per value of a
  // tuple-shaped sort or reduce-window root too) and its reduces. Errors:
  // InvalidArgument for a non-fusion, a missing computation or a non-array
  // operand; Unimplemented for outputs no emitter handles.
  absl::Status Analyze();
  // InvalidArgument when `symbol` already names a function in the module.
  absl::Status CheckSymbolIsNew(const std::string& symbol) const;

  // The kernel's buffer arguments: operands, then output leaves (after
  // Analyze).
  int64_t NumArgs() const;
  const Shape& ArgShape(int64_t i) const;
  // Marks parameter `i` of `kernel` (buffer argument i) noalias when
  // noalias[i] says so, aligned to alignment[i] (at least 16 bytes, the
  // default) and dereferenceable for its shape's bytes.
  void AddBufferParamAttrs(llvm::Function* kernel, int64_t i, const std::vector<bool>& noalias,
                           const std::vector<int64_t>& alignment) const;

  // One generator per fused instruction into gens_, reading fused
  // parameters from args_ (set args_ first). Roots that only a kind emits
  // (sort, select-and-scatter, scatter, rng-get-and-update-state, tuple)
  // get none. Errors:
  // Unimplemented naming the instruction (sort or scatter not at the root,
  // get-tuple-element of anything but a variadic reduce or reduce-window,
  // ops the elemental emitter rejects).
  absl::Status BuildGenerators();
  // While set (not null), the generator of fused parameter `n` returns `v`
  // instead of reading its buffer (vectorized loops: the current lane).
  void SetParameterValue(int64_t n, llvm::Value* v) { parameter_values_[n] = v; }

  // The values of `reduce` at `index` of its output: the ones cached for
  // that index by CacheReduceValues, else a sequential reduction.
  absl::StatusOr<Values> ReduceValues(const HloInstruction* reduce, const IrIndex& index);
  // Makes ReduceValues(reduce, index) return `values` until
  // ClearReduceCache (a kind that computed them already, for one row).
  void CacheReduceValues(const HloInstruction* reduce, const IrIndex& index, Values values);
  void ClearReduceCache() { cache_.clear(); }
  // The init values of `reduce`, one per value.
  absl::StatusOr<Values> Inits(const HloInstruction* reduce);
  // The reduced operands' elements at `index` (one per value of `reduce`).
  absl::StatusOr<Values> ReducedElements(const HloInstruction* reduce, const IrIndex& index);
  // reduce's to_apply on accumulators `a` and elements `b`.
  absl::StatusOr<Values> Combine(const HloInstruction* reduce, const Values& a, const Values& b);
  // `computation` (scalar) on `args` through the elemental emitter.
  absl::StatusOr<Values> EmitComputation(const HloComputation* computation, const Values& args);

  // The value of output leaf `leaf` at `index`, and the writes of the
  // listed leaves (numbers into leaves_) at `index`: every value is computed
  // before the first store, so a leaf may overwrite an operand in place.
  absl::StatusOr<llvm::Value*> LeafValue(const OutputLeaf& leaf, const IrIndex& index);
  absl::Status WriteLeaves(const std::vector<int64_t>& leaves, const IrIndex& index);
  // 0, 1, ..., leaves_.size() - 1.
  std::vector<int64_t> AllLeaves() const;
  // Output leaf `leaf` as an array over its kernel argument.
  IrArray OutputArray(int64_t leaf) const;
  // Select-and-scatter `sas`, source element `source`: selects its window's
  // element and folds the source into `out` there, in the evaluator's order.
  absl::Status ScatterSourceElement(const HloInstruction& sas, const IrArray& out,
                                    const IrIndex& source);

  // Loops over [lo, hi) with `step`, and a conditional block, at the
  // builder's insertion point (ir_loops.h).
  absl::Status EmitLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* step,
                        const std::string& name, const LoopBody& body);
  absl::Status EmitLoop(int64_t lo, int64_t hi, const std::string& name, const LoopBody& body);
  absl::Status EmitIf(llvm::Value* cond, const std::function<absl::Status()>& then);

  // Internal error with LLVM's message when `kernel` is not valid IR.
  absl::Status Verify(const llvm::Function& kernel) const;
  // The buffer arguments in kernel order, for the kernel info.
  std::vector<FusionKernelArg> KernelArgs() const;
  // Unimplemented naming `hlo`, this emitter and `why`.
  absl::Status Unimplemented(const HloInstruction* hlo, absl::string_view why) const;

  const HloInstruction& fusion_;
  const absl::string_view emitter_;
  llvm::Module* module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  ElementalIrEmitter elemental_;

  // After Analyze.
  const HloComputation* computation_ = nullptr;
  std::vector<OutputLeaf> leaves_;
  std::vector<const HloInstruction*> reduces_;  // post order
  // The kernel's buffer pointers, in argument order (set by the target).
  std::vector<llvm::Value*> args_;
  // After BuildGenerators.
  FusedGenerators gens_;
  ElementCache element_cache_{&b_};

 private:
  absl::Status AddGenerator(const HloInstruction* instr);
  absl::StatusOr<std::vector<OutputLeaf>> CollectLeaves() const;

  // Reductions already computed (one row): valid only while emitting that
  // row, for exactly these index values.
  struct Cached {
    Values index;
    Values values;
  };
  absl::flat_hash_map<const HloInstruction*, Cached> cache_;
  Values parameter_values_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_CORE_H_
