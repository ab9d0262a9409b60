#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

constexpr unsigned kGlobal = 1;
constexpr int64_t kPointerBytes = 8;

}  // namespace

int64_t NvptxBufferParamBytes(int64_t num_buffer_args) { return kPointerBytes * num_buffer_args; }

bool NvptxUsesArgumentTable(int64_t num_buffer_args, const NvptxTarget& target) {
  return NvptxBufferParamBytes(num_buffer_args) > target.max_kernel_param_bytes;
}

absl::Status NvptxFusionKernelEmitter::CreateKernel(const std::string& symbol) {
  RETURN_IF_ERROR(CheckSymbolIsNew(symbol));
  const int64_t num_args = NumArgs();
  argument_table_ = NvptxUsesArgumentTable(num_args, target_);
  llvm::PointerType* ptr = llvm::PointerType::get(ctx_, kGlobal);
  std::vector<llvm::Type*> params(argument_table_ ? 1 : num_args, ptr);
  kernel_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                   llvm::Function::ExternalLinkage, symbol, module_);
  kernel_->setCallingConv(llvm::CallingConv::PTX_Kernel);
  kernel_->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel_));
  if (argument_table_) return LoadArgumentTable(num_args);
  for (int64_t i = 0; i < num_args; ++i) {
    AddBufferParamAttrs(kernel_, i, options_.noalias, options_.alignment);
    args_.push_back(kernel_->getArg(i));
  }
  return absl::OkStatus();
}

// The table is read-only, written before the launch and never aliased by a
// buffer (the runtime checks it overlaps none), so each entry is an
// invariant load; the loaded pointer keeps the alignment a parameter would
// have had (`!align`). noalias is not expressible on a loaded pointer.
absl::Status NvptxFusionKernelEmitter::LoadArgumentTable(int64_t num_args) {
  llvm::PointerType* ptr = llvm::PointerType::get(ctx_, kGlobal);
  llvm::Argument* table = kernel_->getArg(0);
  table->setName("argument_table");
  kernel_->addParamAttr(0, llvm::Attribute::NoAlias);
  kernel_->addParamAttr(0, llvm::Attribute::ReadOnly);
  kernel_->addParamAttr(0, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(kPointerBytes)));
  kernel_->addParamAttr(
      0, llvm::Attribute::getWithDereferenceableBytes(ctx_, NvptxBufferParamBytes(num_args)));
  llvm::MDNode* invariant = llvm::MDNode::get(ctx_, {});
  for (int64_t i = 0; i < num_args; ++i) {
    const size_t u = static_cast<size_t>(i);
    const int64_t align =
        std::max<int64_t>(16, u < options_.alignment.size() ? options_.alignment[u] : 16);
    llvm::Value* entry = b_.CreateConstInBoundsGEP1_64(ptr, table, static_cast<uint64_t>(i));
    llvm::LoadInst* load = b_.CreateAlignedLoad(ptr, entry, llvm::Align(kPointerBytes),
                                                absl::StrCat("arg", i));
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    load->setMetadata(llvm::LLVMContext::MD_align,
                      llvm::MDNode::get(ctx_, {llvm::ConstantAsMetadata::get(b_.getInt64(align))}));
    args_.push_back(load);
  }
  return absl::OkStatus();
}

// The kind's code, in the kernel's entry block.
absl::Status NvptxFusionKernelEmitter::EmitKernelBody() {
  switch (kind_) {
    case NvptxKernelKind::kLoop:
    case NvptxKernelKind::kGenericReduction:
      return EmitLoopKernel();
    case NvptxKernelKind::kRowReduction:
    case NvptxKernelKind::kRowNormalization:
    case NvptxKernelKind::kWholeReduction:
      return EmitRowKernel();
    case NvptxKernelKind::kColumnReduction:
      return EmitColumnKernel();
    case NvptxKernelKind::kTranspose:
      return EmitTransposeKernel();
    case NvptxKernelKind::kDusInPlace:
      return EmitDusKernel();
    case NvptxKernelKind::kScatterAtomic:
    case NvptxKernelKind::kScatterSerial:
      return EmitScatterKernel(kind_ == NvptxKernelKind::kScatterAtomic);
    case NvptxKernelKind::kSort:
      return EmitSortKernel();
    case NvptxKernelKind::kSelectAndScatter:
      return EmitSelectAndScatterKernel();
    case NvptxKernelKind::kRngState:
      return EmitRngStateKernel();
  }
  return Unimplemented(computation_->root_instruction(), "unknown NVPTX kernel kind");
}

NvptxKernelInfo NvptxFusionKernelEmitter::Info(const std::string& symbol) const {
  NvptxKernelInfo info;
  info.symbol = symbol;
  info.kind = std::string(NvptxKernelKindName(kind_));
  info.choice = choice_;
  info.launch.grid_x = choice_.blocks;
  info.launch.block_x = choice_.threads_per_block;
  info.static_shared_bytes = static_shared_;
  info.args = KernelArgs();
  info.argument_table = argument_table_;
  return info;
}

absl::StatusOr<NvptxKernelInfo> NvptxFusionKernelEmitter::Run(const std::string& symbol) {
  RETURN_IF_ERROR(Analyze());
  RETURN_IF_ERROR(CreateKernel(symbol));
  RETURN_IF_ERROR(BuildGenerators());
  RETURN_IF_ERROR(Classify());
  problem_.kind = kind_;
  ASSIGN_OR_RETURN(choice_, ChooseLaunchDimensions(problem_, target_));
  if (choice_.blocks > 0) RETURN_IF_ERROR(EmitKernelBody());
  b_.CreateRetVoid();
  llvm::NamedMDNode* annotations = module_->getOrInsertNamedMetadata("nvvm.annotations");
  annotations->addOperand(llvm::MDNode::get(
      ctx_, {llvm::ValueAsMetadata::get(kernel_), llvm::MDString::get(ctx_, "maxntidx"),
             llvm::ValueAsMetadata::get(b_.getInt32(choice_.threads_per_block))}));
  RETURN_IF_ERROR(Verify(*kernel_));
  return Info(symbol);
}

absl::StatusOr<NvptxKernelInfo> EmitNvptxFusionKernel(const HloInstruction& fusion,
                                                      const std::string& symbol,
                                                      const NvptxEmitOptions& options,
                                                      llvm::Module* module) {
  NvptxFusionKernelEmitter emitter(fusion, options, module);
  return emitter.Run(symbol);
}

}  // namespace xla::gpu
