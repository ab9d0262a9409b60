#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"

#include <utility>

#include "llvm/IR/Attributes.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status HostFusionKernelEmitter::CreateFunctions(const std::string& symbol) {
  RETURN_IF_ERROR(CheckSymbolIsNew(symbol));
  llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
  llvm::Type* i64 = b_.getInt64Ty();
  const int64_t num_args = NumArgs();
  std::vector<llvm::Type*> impl_params(num_args, ptr);
  impl_params.push_back(i64);
  impl_params.push_back(i64);
  impl_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), impl_params, false),
                                 llvm::Function::InternalLinkage, symbol + "_impl", module_);
  impl_->addFnAttr(llvm::Attribute::NoInline);
  impl_->addFnAttr(llvm::Attribute::NoUnwind);
  for (int64_t i = 0; i < num_args; ++i) {
    AddBufferParamAttrs(impl_, i, options_.noalias, options_.alignment);
    impl_->addParamAttr(i, llvm::Attribute::NoCapture);
    args_.push_back(impl_->getArg(i));
  }
  // An output leaf that is exactly an operand's buffer is written through
  // the operand's pointer: then LLVM sees each element read and written at
  // one address in one iteration and vectorizes without a runtime overlap
  // check (which fails, sending the loop to its scalar version, when the
  // two pointers are equal).
  for (size_t leaf = 0; leaf < leaves_.size(); ++leaf) {
    const std::vector<int64_t>& alias = options_.output_aliases_operand;
    if (leaf < alias.size() && alias[leaf] >= 0 && alias[leaf] < fusion_.operand_count()) {
      args_[fusion_.operand_count() + leaf] = impl_->getArg(alias[leaf]);
    }
  }
  block_begin_ = impl_->getArg(num_args);
  block_end_ = impl_->getArg(num_args + 1);

  // The exported entry point of the ABI: loads the buffer pointers and calls
  // the implementation, whose arguments carry the alias/alignment facts.
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, i64, i64, i64}, false),
      llvm::Function::ExternalLinkage, symbol, module_);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
  std::vector<llvm::Value*> call_args;
  for (int64_t i = 0; i < num_args; ++i) {
    call_args.push_back(
        b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
  }
  call_args.push_back(entry->getArg(2));
  call_args.push_back(entry->getArg(3));
  b_.CreateCall(impl_, call_args);
  b_.CreateRetVoid();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", impl_));
  return absl::OkStatus();
}

// The kinds chosen by the fused root alone (sort, topk, select-and-scatter,
// rng-get-and-update-state, convolution); an empty list when the root is none of them.
absl::StatusOr<std::vector<HostKernelSegment>> HostFusionKernelEmitter::PlanRoot() {
  const HloOpcode opcode = computation_->root_instruction()->opcode();
  Segment s;
  if (opcode == HloOpcode::kSort) {
    kind_ = "sort";
    ASSIGN_OR_RETURN(s, PlanSort());
  } else if (opcode == HloOpcode::kTopK) {
    kind_ = "topk";
    ASSIGN_OR_RETURN(s, PlanTopK());
  } else if (opcode == HloOpcode::kSelectAndScatter) {
    kind_ = "select_and_scatter";
    ASSIGN_OR_RETURN(s, PlanSelectAndScatter());
  } else if (opcode == HloOpcode::kRngGetAndUpdateState) {
    kind_ = "rng_state";
    ASSIGN_OR_RETURN(s, PlanRngState());
  } else if (opcode == HloOpcode::kConvolution && leaves_.size() == 1) {
    kind_ = "convolution";
    ASSIGN_OR_RETURN(s, PlanConvolution());
  }
  if (s.blocks == 0) return std::vector<Segment>{};
  return std::vector<Segment>{s};
}

absl::StatusOr<std::vector<HostKernelSegment>> HostFusionKernelEmitter::Plan() {
  ASSIGN_OR_RETURN(std::vector<Segment> by_root, PlanRoot());
  if (!kind_.empty()) return by_root;
  const FusionKernelAnalysis a =
      AnalyzeFusionKernel(*computation_, leaves_, reduces_, options_.output_aliases_operand);
  kind_ = std::string(FusionKernelKindName(a.kind));
  auto nonempty = [](Segment s) {
    return s.blocks == 0 ? std::vector<Segment>{} : std::vector<Segment>{std::move(s)};
  };
  switch (a.kind) {
    case FusionKernelKind::kScatter: {
      ASSIGN_OR_RETURN(Segment s, PlanScatter(a.in_place));
      return std::vector<Segment>{s};
    }
    case FusionKernelKind::kDusInPlace:
      return nonempty(PlanDusInPlace());
    case FusionKernelKind::kRowReduction:
    case FusionKernelKind::kRowNormalization:
    case FusionKernelKind::kWholeReduction:
      return nonempty(PlanRows(a.kept_dims, a.reduce_input_dims));
    case FusionKernelKind::kColumnReduction:
      return nonempty(PlanColumns(a.reduce_input_dims));
    case FusionKernelKind::kTranspose:
      return std::vector<Segment>{
          PlanTiled(leaves_[0].shape.dimensions(), a.transpose_dim, AllLeavesBody())};
    case FusionKernelKind::kLoop:
    case FusionKernelKind::kGenericReduction:
      break;
  }
  return PlanLoop(a.same_output_dims);  // generic: per element, loops over the reduced dims
}

// The loop over the kernel's block range, each block running its segment.
absl::Status HostFusionKernelEmitter::EmitBlocks(const std::vector<Segment>& segments) {
  return EmitLoop(block_begin_, block_end_, "block", [&](llvm::Value* block) {
    if (segments.size() == 1) return segments[0].emit(block);
    int64_t start = 0;
    for (const Segment& s : segments) {
      llvm::Value* local = b_.CreateSub(block, b_.getInt64(start));
      RETURN_IF_ERROR(EmitIf(b_.CreateICmpULT(local, b_.getInt64(s.blocks)),
                             [&]() { return s.emit(local); }));
      start += s.blocks;
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<HostKernelInfo> HostFusionKernelEmitter::Run(const std::string& symbol) {
  RETURN_IF_ERROR(Analyze());
  RETURN_IF_ERROR(CreateFunctions(symbol));
  RETURN_IF_ERROR(BuildGenerators());
  ASSIGN_OR_RETURN(std::vector<Segment> segments, Plan());
  int64_t total = 0;
  for (const Segment& s : segments) total += s.blocks;
  if (total > 0) RETURN_IF_ERROR(EmitBlocks(segments));
  b_.CreateRetVoid();
  RETURN_IF_ERROR(Verify(*impl_));
  HostKernelInfo info;
  info.symbol = symbol;
  info.total_blocks = total;
  info.kind = kind_;
  info.args = KernelArgs();
  return info;
}

absl::StatusOr<HostKernelInfo> EmitHostFusionKernel(
    const HloInstruction& fusion, const std::string& symbol, const HostEmitOptions& options,
    llvm::Module* module) {
  return HostFusionKernelEmitter(fusion, options, module).Run(symbol);
}

}  // namespace xla::gpu
