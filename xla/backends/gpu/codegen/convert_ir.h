// Element conversions in LLVM IR: narrow float formats (f16, bf16, every f8
// and f4 variant) decoded to and encoded from f32 by bit manipulation driven
// by the table in xla/types/float_format.h, and XLA's `convert` between any
// two non-complex array types.
//
// Semantics are those of the reference evaluator (numeric_util.h):
//   narrow -> f32        exact; every NaN decodes to the positive quiet NaN
//                        (bf16 keeps its payload, which only a bitcast sees);
//   f32 -> narrow        round to nearest even; overflow gives inf (IEEE
//                        formats), NaN (fn, fnuz, e8m0) or the largest finite
//                        value (f4e2m1fn); NaN gives the format's NaN (0 for
//                        f4e2m1fn); fnuz has no -0; e8m0 maps <= 0 to NaN;
//   f64 -> narrow        through f32 (XLA's double rounding);
//   integer -> narrow    rounded once (round-to-odd to f32, then RNE);
//   float -> integer     truncation, NaN -> 0, saturation (llvm.fpto*i.sat);
//   anything -> pred     != 0 (NaN is true); pred -> anything: 0 or 1.
// Values use the register types of ir_array.h. No libm, no target hooks: the
// IR is plain integer/float arithmetic valid for every target. Functions emit
// at the builder's insertion point; not thread-safe (the builder is not).
#ifndef XLA_BACKENDS_GPU_CODEGEN_CONVERT_IR_H_
#define XLA_BACKENDS_GPU_CODEGEN_CONVERT_IR_H_

#include "llvm/IR/IRBuilder.h"
#include "xla/types/float_format.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

// True for float types that are held as raw integer encodings in registers
// (everything but f32 and f64).
bool IsNarrowFloat(PrimitiveType type);

// Decodes the encoding `bits` (an integer of the storage width) of format `id`
// to an exact f32. `id` must be a narrow format (not kF32/kF64/kNone).
llvm::Value* EmitNarrowToF32(FloatFormatId id, llvm::Value* bits, llvm::IRBuilder<>* b);

// Encodes the f32 `value` in format `id` (rounding as described above); the
// result is an integer of the format's storage width (i8 or i16).
llvm::Value* EmitF32ToNarrow(FloatFormatId id, llvm::Value* value, llvm::IRBuilder<>* b);

// The type arithmetic on float `type` computes in: double for f64, float for
// every other float type.
llvm::Type* FloatComputeType(PrimitiveType type, llvm::LLVMContext& ctx);

// A float element value -> its compute type (exact), and back (rounded).
llvm::Value* EmitToCompute(PrimitiveType type, llvm::Value* value, llvm::IRBuilder<>* b);
llvm::Value* EmitFromCompute(PrimitiveType type, llvm::Value* value, llvm::IRBuilder<>* b);

// XLA `convert` of one element from `from` to `to` (neither complex, both
// array types; a programmer error otherwise).
llvm::Value* EmitConvert(PrimitiveType from, PrimitiveType to, llvm::Value* value,
                         llvm::IRBuilder<>* b);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_CONVERT_IR_H_
