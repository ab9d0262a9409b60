#include "xla/backends/gpu/compiler/nvptx_kernel_backend.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/codegen/nvptx/flash_attention_emitter.h"
#include "xla/util/parallel_for.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

NvptxKernelBackend::NvptxKernelBackend(const NvptxEmitOptions& emit) : emit_(emit) {}

std::string NvptxKernelBackend::TargetName() const { return emit_.target.name; }

absl::StatusOr<EmittedKernel> NvptxKernelBackend::EmitFusionKernel(
    const HloInstruction& fusion, const std::string& symbol, const KernelArgAliasing& aliasing) {
  NvptxEmitOptions options = emit_;
  options.noalias.clear();
  options.alignment.clear();
  options.output_aliases_operand = aliasing.output_aliases_operand;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>(symbol, *context);
  absl::StatusOr<NvptxKernelInfo> emitted =
      EmitNvptxFusionKernel(fusion, symbol, options, module.get());
  if (!emitted.ok()) {
    return absl::Status(emitted.status().code(),
                        absl::StrCat(emit_.target.name, " kernel emission: ",
                                     emitted.status().message()));
  }
  return Emitted(*emitted, std::move(context), std::move(module));
}

EmittedKernel NvptxKernelBackend::Emitted(const NvptxKernelInfo& info,
                                          std::unique_ptr<llvm::LLVMContext> context,
                                          std::unique_ptr<llvm::Module> module) {
  EmittedKernel kernel;
  kernel.symbol = info.symbol;
  for (const NvptxKernelArg& arg : info.args) kernel.args.push_back({arg.is_output, arg.index});
  kernel.launch.set_grid_x(info.launch.grid_x);
  kernel.launch.set_grid_y(info.launch.grid_y);
  kernel.launch.set_grid_z(info.launch.grid_z);
  kernel.launch.set_block_x(info.launch.block_x);
  kernel.launch.set_block_y(info.launch.block_y);
  kernel.launch.set_block_z(info.launch.block_z);
  kernel.launch.set_shared_memory_bytes(info.launch.shared_memory_bytes);
  kernel.argument_table = info.argument_table;
  kernel.kind = info.kind;
  last_ = Pending{info.symbol, info.kind, std::move(context), std::move(module)};
  return kernel;
}

absl::StatusOr<EmittedKernel> NvptxKernelBackend::EmitFusedAttentionKernel(
    const ffi::TeAttentionConfig& config, PrimitiveType type, bool backward, int part,
    const std::string& symbol, absl::string_view target) {
  const FlashKernel kernel = !backward ? FlashKernel::kForward
                             : part == 0 ? FlashKernel::kBackwardDq
                                         : FlashKernel::kBackwardDkDv;
  ASSIGN_OR_RETURN(FlashAttentionPlan plan, PlanFlashAttention(kernel, config, type, target));
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>(symbol, *context);
  absl::StatusOr<NvptxKernelInfo> emitted = EmitFlashAttentionKernel(plan, symbol, module.get());
  if (!emitted.ok()) {
    return absl::Status(emitted.status().code(),
                        absl::StrCat(emit_.target.name, " fused-attention kernel emission: ",
                                     emitted.status().message()));
  }
  return Emitted(*emitted, std::move(context), std::move(module));
}

absl::Status NvptxKernelBackend::DescribeKernel(const EmittedKernel& kernel, KernelProto* proto) {
  if (last_.module == nullptr || last_.symbol != kernel.symbol || proto->name() != kernel.symbol) {
    return absl::InternalError(absl::StrCat("nvptx backend: kernel '", kernel.symbol,
                                            "' described but not the last one emitted"));
  }
  kernels_.push_back(std::move(last_));
  last_ = Pending{};
  return absl::OkStatus();
}

absl::StatusOr<NvptxFinalizeResult> NvptxKernelBackend::Finalize(
    const NvptxCompileOptions& compile, NvptxSpecChoice choice,
    GpuExecutablePayloadProto* payload) {
  NvptxFinalizeResult result;
  // The payload's kernels by name (the last of a name, as before).
  absl::flat_hash_map<std::string, KernelProto*> by_name;
  for (KernelProto& k : *payload->mutable_kernels()) by_name[k.name()] = &k;
  std::vector<KernelProto*> protos;
  for (const Pending& pending : kernels_) {
    auto it = by_name.find(pending.symbol);
    KernelProto* proto = it == by_name.end() ? nullptr : it->second;
    if (proto == nullptr) {
      return absl::InternalError(
          absl::StrCat("nvptx backend: kernel '", pending.symbol, "' is not in the payload"));
    }
    protos.push_back(proto);
  }
  // Each kernel in its own context, so they compile independently; the
  // results are used in kernel order below.
  std::vector<absl::StatusOr<NvptxBinary>> binaries(
      kernels_.size(), absl::StatusOr<NvptxBinary>(absl::UnknownError("not compiled")));
  ParallelForEach(static_cast<int64_t>(kernels_.size()),
                  ThreadCount(compile.threads, kMaxNvptxCompileThreads), [&](int64_t i) {
                    binaries[i] = CompileNvptx(*kernels_[i].module, emit_.target, compile);
                    kernels_[i].module.reset();
                    kernels_[i].context.reset();
                  });
  for (size_t i = 0; i < kernels_.size(); ++i) {
    const Pending& pending = kernels_[i];
    KernelProto* proto = protos[i];
    absl::StatusOr<NvptxBinary>& binary = binaries[i];
    if (!binary.ok()) {
      return absl::Status(binary.status().code(),
                          absl::StrCat("compiling kernel '", pending.symbol, "' for ",
                                       emit_.target.name, ": ", binary.status().message()));
    }
    NvptxKernelBuild build;
    build.name = pending.symbol;
    build.kind = pending.kind;
    build.ptx = binary->ptx;
    build.has_cubin = binary->cubin.has_value();
    build.times = binary->times;
    if (build.has_cubin) {
      build.cubin_bytes = static_cast<int64_t>(binary->cubin->size());
      result.ptxas_version = binary->ptxas_version;
    } else {
      result.cubin_skipped_reason = binary->cubin_skipped_reason;
    }
    if (build.has_cubin && choice == NvptxSpecChoice::kCubinWithPtx) {
      CubinWithPtxKernelSpecProto* spec = proto->mutable_cubin_with_ptx();
      spec->set_cubin(std::move(*binary->cubin));
      spec->set_ptx(binary->ptx);
      spec->set_entry(pending.symbol);
    } else if (build.has_cubin && choice == NvptxSpecChoice::kCubinWhenAvailable) {
      CubinKernelSpecProto* spec = proto->mutable_cubin();
      spec->set_cubin(std::move(*binary->cubin));
      spec->set_entry(pending.symbol);
    } else {
      PtxKernelSpecProto* spec = proto->mutable_ptx();
      spec->set_ptx(binary->ptx);
      spec->set_entry(pending.symbol);
    }
    result.kernels.push_back(std::move(build));
  }
  kernels_.clear();
  return result;
}

}  // namespace xla::gpu
