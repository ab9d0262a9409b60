// Multidimensional indices and arrays in LLVM IR, shared by every kernel
// emitter (host loops, NVPTX) and the elemental emitter.
//
// Element values in registers ("value types", ElementIrType):
//   pred                    i8 holding 0 or 1
//   sN / uN                 iN (i1, i2, i4, i8, ..., i64)
//   f32 / f64               float / double
//   f16, bf16, f8*, f4*     the raw encoding as an integer of the storage
//                           width (i16, i8; f4e2m1fn as i8 with the code in
//                           the low 4 bits)
// In memory ("storage types", StorageIrType) every element takes
// ByteWidth(type) bytes in little-endian order; sub-byte integers take one
// byte, sign-extended (signed) or zero-extended (unsigned), as Literal does.
//
// Indices are i64 values, one per logical dimension (dimension 0 slowest in
// logical row-major order). IrArray maps them to memory through the shape's
// layout (minor_to_major; row-major when the shape has none).
//
// Nothing here knows about threads or loops. These classes only emit IR at
// the builder's insertion point; they are cheap values, not thread-safe
// (IRBuilder and LLVMContext are not).
#ifndef XLA_BACKENDS_GPU_CODEGEN_IR_ARRAY_H_
#define XLA_BACKENDS_GPU_CODEGEN_IR_ARRAY_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Value.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// The LLVM type of one element value of `type` in registers (see above).
// `type` must be an array type other than complex (programmer error).
llvm::Type* ElementIrType(PrimitiveType type, llvm::LLVMContext& ctx);

// The LLVM type of one element in memory (i8 for sub-byte types).
llvm::Type* StorageIrType(PrimitiveType type, llvm::LLVMContext& ctx);

// A multidimensional index into an array of `dims`: one i64 per dimension.
class IrIndex {
 public:
  IrIndex(std::vector<llvm::Value*> multidim, std::vector<int64_t> dims);
  // The index of a scalar (no dimensions).
  IrIndex() = default;

  // Splits the logical row-major linear index `linear` (i64, in range) with
  // udiv/urem by the dimension sizes.
  static IrIndex FromLinear(llvm::Value* linear, absl::Span<const int64_t> dims,
                            llvm::IRBuilder<>* b);
  // The logical row-major linear index (multiplications and adds).
  llvm::Value* Linearize(llvm::IRBuilder<>* b) const;

  const std::vector<llvm::Value*>& multidim() const { return multidim_; }
  llvm::Value* operator[](size_t i) const { return multidim_[i]; }
  int64_t rank() const { return static_cast<int64_t>(multidim_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }

  // Source-index transforms: given this index into the result of the op,
  // the index into its operand (of dimensions `operand_dims`).
  // reshape: same logical row-major linear index.
  IrIndex SourceIndexOfReshape(absl::Span<const int64_t> operand_dims,
                               llvm::IRBuilder<>* b) const;
  // transpose: operand[dimensions[i]] = result[i].
  IrIndex SourceIndexOfTranspose(absl::Span<const int64_t> operand_dims,
                                 absl::Span<const int64_t> dimensions) const;
  // broadcast: operand[i] = result[dimensions[i]].
  IrIndex SourceIndexOfBroadcast(absl::Span<const int64_t> operand_dims,
                                 absl::Span<const int64_t> dimensions) const;
  // slice: operand[i] = result[i] * strides[i] + starts[i].
  IrIndex SourceIndexOfSlice(absl::Span<const int64_t> operand_dims,
                             absl::Span<const int64_t> starts,
                             absl::Span<const int64_t> strides, llvm::IRBuilder<>* b) const;
  // reverse: operand[d] = dims[d] - 1 - result[d] for d in `dimensions`.
  IrIndex SourceIndexOfReverse(absl::Span<const int64_t> dimensions, llvm::IRBuilder<>* b) const;

 private:
  std::vector<llvm::Value*> multidim_;
  std::vector<int64_t> dims_;
};

// An array in memory: a base pointer (any address space) and an array shape.
class IrArray {
 public:
  // `shape` must be an array shape of a non-complex type (programmer error).
  IrArray(llvm::Value* base, Shape shape);

  const Shape& shape() const { return shape_; }
  llvm::Value* base() const { return base_; }

  // The physical linear element offset (i64) of `index` under the layout.
  llvm::Value* EmitPhysicalOffset(const IrIndex& index, llvm::IRBuilder<>* b) const;
  // Address of the element at `index` (a GEP on the storage type).
  llvm::Value* EmitElementAddress(const IrIndex& index, llvm::IRBuilder<>* b) const;
  // Loads the element at `index` as a value of ElementIrType.
  llvm::Value* EmitReadElement(const IrIndex& index, llvm::IRBuilder<>* b) const;
  // Stores `value` (of ElementIrType) at `index`.
  void EmitWriteElement(const IrIndex& index, llvm::Value* value, llvm::IRBuilder<>* b) const;

 private:
  llvm::Value* base_;
  Shape shape_;
  std::vector<int64_t> minor_to_major_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_IR_ARRAY_H_
