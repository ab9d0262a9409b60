// The elemental emitter: turns one HLO instruction into scalar LLVM IR that
// computes the element of its result at a given index, from generators of
// its operands' elements. Shared by the host and NVPTX targets: it knows
// nothing about threads, loops or buffers (parameters and other sources of
// data are generators the caller provides, usually IrArray reads).
//
// Contract of an ElementGenerator `g` for an instruction of shape S:
//   * `g(index)` emits IR at the builder's current insertion point and returns
//     the element at `index` as a value of ElementIrType(S.element_type())
//     (see ir_array.h: pred is i8 0/1, narrow floats are raw encodings);
//   * `index` has S's rank, i64 components, each in [0, dim); the generator
//     may assume that, and never reads out of bounds when it holds;
//   * a generator may create basic blocks (pad, concatenate,
//     dynamic-update-slice branch), so the caller must be inside a function
//     and must continue at the insertion point the generator leaves;
//   * generators hold pointers to this emitter and to `hlo`: both must
//     outlive them. A generator may be called any number of times (each call
//     emits new IR); results are not cached.
// Numerics are XLA's, as the reference evaluator implements them: f16, bf16,
// f8 and f4 compute in f32 and round to nearest even; integer division by
// zero gives -1 (all ones), INT_MIN / -1 gives INT_MIN, x % 0 gives x; shift
// amounts >= the width give 0 or the sign fill; maximum/minimum propagate NaN;
// transcendental functions come from a MathEmitter (see math_emitter.h).
//
// Supported: every elementwise unary/binary opcode of the evaluator on
// float, integer and pred types (per the evaluator's type rules), compare
// (all directions, float partial and total order, signed, unsigned), select,
// clamp, is-finite, convert, bitcast-convert, reduce-precision, copy, iota,
// constant, broadcast, reshape, transpose, slice, pad, concatenate, reverse,
// dynamic-slice, dynamic-update-slice. Complex types, map, parameter and
// get-tuple-element are not (UnimplementedError naming the instruction).
//
// Thread-safety: one emitter per llvm::Module and IRBuilder; not thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_ELEMENTAL_IR_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_ELEMENTAL_IR_EMITTER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/math_emitter.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

class ElementalIrEmitter {
 public:
  using ElementGenerator = std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>;

  // `module` receives constants' globals and intrinsic declarations; `b`
  // must stay positioned inside a function of `module` whenever a generator
  // runs. `math` (not owned, may be null for the default MathEmitter) maps
  // transcendental functions for the target.
  ElementalIrEmitter(llvm::Module* module, llvm::IRBuilder<>* b,
                     const MathEmitter* math = nullptr);

  // The generator of `hlo`'s elements, given one generator per operand (in
  // operand order). Errors: UnimplementedError for an opcode/type pair listed
  // as unsupported above; InvalidArgumentError for a malformed instruction
  // (wrong operand count, missing attribute). Both name the instruction.
  absl::StatusOr<ElementGenerator> MakeElementGenerator(
      const HloInstruction* hlo, const std::vector<ElementGenerator>& operand_generators);

  // Scalar building blocks (also for reduction and scatter emitters): apply
  // an elementwise unary/binary opcode to values of element type `type`.
  absl::StatusOr<llvm::Value*> EmitUnaryOp(HloOpcode opcode, PrimitiveType type,
                                           llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitBinaryOp(HloOpcode opcode, PrimitiveType type,
                                            llvm::Value* x, llvm::Value* y);

 private:
  using Operands = std::vector<ElementGenerator>;
  absl::StatusOr<ElementGenerator> MakeShapeOpGenerator(const HloInstruction* hlo,
                                                        const Operands& ops);
  absl::StatusOr<ElementGenerator> MakePad(const HloInstruction* hlo, const Operands& ops);
  absl::StatusOr<ElementGenerator> MakeConcatenate(const HloInstruction* hlo, const Operands& ops);
  absl::StatusOr<ElementGenerator> MakeDynamicSlice(const HloInstruction* hlo, const Operands& ops);
  absl::StatusOr<ElementGenerator> MakeDynamicUpdateSlice(const HloInstruction* hlo,
                                                          const Operands& ops);
  absl::StatusOr<ElementGenerator> MakeBitcastConvert(const HloInstruction* hlo,
                                                      const Operands& ops);
  absl::StatusOr<ElementGenerator> MakeConstant(const HloInstruction* hlo);
  absl::StatusOr<llvm::Value*> EmitCompare(const HloInstruction* hlo, PrimitiveType type,
                                           llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitClamp(PrimitiveType type, llvm::Value* lo, llvm::Value* x, llvm::Value* hi);
  llvm::Value* EmitReducePrecision(PrimitiveType type, llvm::Value* x, int64_t exponent_bits,
                                   int64_t mantissa_bits);
  // Emits `cond ? on_true() : on_false()` with branches (only the taken side
  // runs) and a phi.
  absl::StatusOr<llvm::Value*> EmitIf(llvm::Value* cond,
                                      const std::function<absl::StatusOr<llvm::Value*>()>& on_true,
                                      const std::function<absl::StatusOr<llvm::Value*>()>& on_false);
  // Emits `on_case(selector)` for a run-time `selector` in [0, cases) with
  // one switch (only the selected case runs) and a phi. `cases` >= 1.
  absl::StatusOr<llvm::Value*> EmitSwitch(
      llvm::Value* selector, int64_t cases,
      const std::function<absl::StatusOr<llvm::Value*>(int64_t)>& on_case);

  llvm::Module* module_;
  llvm::IRBuilder<>* b_;
  MathEmitter default_math_;
  const MathEmitter* math_;
  absl::flat_hash_map<const HloInstruction*, llvm::GlobalVariable*> constants_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_ELEMENTAL_IR_EMITTER_H_
