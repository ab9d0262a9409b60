#include "xla/backends/gpu/codegen/ir_array.h"

#include <utility>

#include "xla/util/logging.h"

namespace xla::gpu {

llvm::Type* ElementIrType(PrimitiveType type, llvm::LLVMContext& ctx) {
  XLA_CHECK(IsArrayType(type) && !IsComplex(type))
      << "no element IR type for " << PrimitiveTypeName(type);
  if (type == PrimitiveType::F32) return llvm::Type::getFloatTy(ctx);
  if (type == PrimitiveType::F64) return llvm::Type::getDoubleTy(ctx);
  if (IsPred(type)) return llvm::Type::getInt8Ty(ctx);
  if (IsFloat(type)) return llvm::Type::getIntNTy(ctx, ByteWidth(type) * 8);
  return llvm::Type::getIntNTy(ctx, BitWidth(type));
}

llvm::Type* StorageIrType(PrimitiveType type, llvm::LLVMContext& ctx) {
  if (type == PrimitiveType::F32 || type == PrimitiveType::F64) return ElementIrType(type, ctx);
  return llvm::Type::getIntNTy(ctx, ByteWidth(type) * 8);
}

IrIndex::IrIndex(std::vector<llvm::Value*> multidim, std::vector<int64_t> dims)
    : multidim_(std::move(multidim)), dims_(std::move(dims)) {
  XLA_CHECK(multidim_.size() == dims_.size()) << "index rank differs from shape rank";
}

IrIndex IrIndex::FromLinear(llvm::Value* linear, absl::Span<const int64_t> dims,
                            llvm::IRBuilder<>* b) {
  std::vector<llvm::Value*> multidim(dims.size());
  llvm::Value* rest = linear;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      multidim[d] = rest;  // the slowest dimension takes what is left
      break;
    }
    llvm::Value* size = b->getInt64(dims[d]);
    multidim[d] = b->CreateURem(rest, size);
    rest = b->CreateUDiv(rest, size);
  }
  return IrIndex(std::move(multidim), std::vector<int64_t>(dims.begin(), dims.end()));
}

llvm::Value* IrIndex::Linearize(llvm::IRBuilder<>* b) const {
  llvm::Value* linear = b->getInt64(0);
  for (size_t d = 0; d < multidim_.size(); ++d) {
    linear = b->CreateAdd(b->CreateMul(linear, b->getInt64(dims_[d])), multidim_[d]);
  }
  return linear;
}

IrIndex IrIndex::SourceIndexOfReshape(absl::Span<const int64_t> operand_dims,
                                      llvm::IRBuilder<>* b) const {
  // Dimensions equal at both ends (e.g. [4,8,256,256] <- [32,256,256]) keep
  // their index values; only the middle goes through the linear index, so
  // the innermost index stays a plain loop variable (no div/mod per
  // element, and loops over it vectorize).
  const int64_t rank = static_cast<int64_t>(dims_.size());
  const int64_t operand_rank = static_cast<int64_t>(operand_dims.size());
  int64_t front = 0;
  while (front < rank && front < operand_rank && dims_[front] == operand_dims[front]) ++front;
  int64_t back = 0;
  while (back < rank - front && back < operand_rank - front &&
         dims_[rank - 1 - back] == operand_dims[operand_rank - 1 - back]) {
    ++back;
  }
  std::vector<llvm::Value*> src(operand_rank);
  for (int64_t d = 0; d < front; ++d) src[d] = multidim_[d];
  for (int64_t d = 0; d < back; ++d) src[operand_rank - 1 - d] = multidim_[rank - 1 - d];
  const int64_t middle = operand_rank - front - back;
  if (middle > 0) {
    IrIndex inner(std::vector<llvm::Value*>(multidim_.begin() + front, multidim_.end() - back),
                  std::vector<int64_t>(dims_.begin() + front, dims_.end() - back));
    IrIndex mapped = FromLinear(inner.Linearize(b),
                                operand_dims.subspan(front, static_cast<size_t>(middle)), b);
    for (int64_t d = 0; d < middle; ++d) src[front + d] = mapped[d];
  }
  return IrIndex(std::move(src), std::vector<int64_t>(operand_dims.begin(), operand_dims.end()));
}

IrIndex IrIndex::SourceIndexOfTranspose(absl::Span<const int64_t> operand_dims,
                                        absl::Span<const int64_t> dimensions) const {
  std::vector<llvm::Value*> src(operand_dims.size());
  for (size_t i = 0; i < dimensions.size(); ++i) src[dimensions[i]] = multidim_[i];
  return IrIndex(std::move(src), std::vector<int64_t>(operand_dims.begin(), operand_dims.end()));
}

IrIndex IrIndex::SourceIndexOfBroadcast(absl::Span<const int64_t> operand_dims,
                                        absl::Span<const int64_t> dimensions) const {
  std::vector<llvm::Value*> src(operand_dims.size());
  for (size_t i = 0; i < dimensions.size(); ++i) src[i] = multidim_[dimensions[i]];
  return IrIndex(std::move(src), std::vector<int64_t>(operand_dims.begin(), operand_dims.end()));
}

IrIndex IrIndex::SourceIndexOfSlice(absl::Span<const int64_t> operand_dims,
                                    absl::Span<const int64_t> starts,
                                    absl::Span<const int64_t> strides,
                                    llvm::IRBuilder<>* b) const {
  std::vector<llvm::Value*> src(multidim_.size());
  for (size_t i = 0; i < multidim_.size(); ++i) {
    llvm::Value* v = multidim_[i];
    if (strides[i] != 1) v = b->CreateMul(v, b->getInt64(strides[i]));
    if (starts[i] != 0) v = b->CreateAdd(v, b->getInt64(starts[i]));
    src[i] = v;
  }
  return IrIndex(std::move(src), std::vector<int64_t>(operand_dims.begin(), operand_dims.end()));
}

IrIndex IrIndex::SourceIndexOfReverse(absl::Span<const int64_t> dimensions,
                                      llvm::IRBuilder<>* b) const {
  std::vector<llvm::Value*> src = multidim_;
  for (int64_t d : dimensions) src[d] = b->CreateSub(b->getInt64(dims_[d] - 1), multidim_[d]);
  return IrIndex(std::move(src), dims_);
}

IrArray::IrArray(llvm::Value* base, Shape shape) : base_(base), shape_(std::move(shape)) {
  XLA_CHECK(shape_.IsArray() && !IsComplex(shape_.element_type()))
      << "IrArray needs a non-complex array shape, got " << shape_.ToString();
  if (shape_.has_layout() &&
      static_cast<int64_t>(shape_.layout().minor_to_major.size()) == shape_.rank()) {
    minor_to_major_ = shape_.layout().minor_to_major;
  } else {
    for (int64_t d = shape_.rank() - 1; d >= 0; --d) minor_to_major_.push_back(d);
  }
}

llvm::Value* IrArray::EmitPhysicalOffset(const IrIndex& index, llvm::IRBuilder<>* b) const {
  XLA_CHECK(index.rank() == shape_.rank()) << "index rank " << index.rank() << " for array "
                                           << shape_.ToString();
  llvm::Value* offset = b->getInt64(0);
  int64_t stride = 1;
  for (int64_t d : minor_to_major_) {
    llvm::Value* term = stride == 1 ? index[d] : b->CreateMul(index[d], b->getInt64(stride));
    offset = b->CreateAdd(offset, term);
    stride *= shape_.dimensions(d);
  }
  return offset;
}

llvm::Value* IrArray::EmitElementAddress(const IrIndex& index, llvm::IRBuilder<>* b) const {
  llvm::Type* storage = StorageIrType(shape_.element_type(), b->getContext());
  return b->CreateInBoundsGEP(storage, base_, {EmitPhysicalOffset(index, b)});
}

llvm::Value* IrArray::EmitReadElement(const IrIndex& index, llvm::IRBuilder<>* b) const {
  const PrimitiveType type = shape_.element_type();
  llvm::LLVMContext& ctx = b->getContext();
  llvm::Value* v = b->CreateLoad(StorageIrType(type, ctx), EmitElementAddress(index, b));
  llvm::Type* value_type = ElementIrType(type, ctx);
  if (v->getType() != value_type) v = b->CreateTrunc(v, value_type);
  return v;
}

void IrArray::EmitWriteElement(const IrIndex& index, llvm::Value* value,
                               llvm::IRBuilder<>* b) const {
  const PrimitiveType type = shape_.element_type();
  llvm::Type* storage = StorageIrType(type, b->getContext());
  if (value->getType() != storage) {
    value = IsSignedInt(type) ? b->CreateSExt(value, storage) : b->CreateZExt(value, storage);
  }
  b->CreateStore(value, EmitElementAddress(index, b));
}

}  // namespace xla::gpu
