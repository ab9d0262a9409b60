#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"

#include <algorithm>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace xla::gpu {

void InitializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

llvm::CodeGenOpt::Level CodeGenOptLevel(int opt_level) {
  static const llvm::CodeGenOpt::Level kLevels[] = {
      llvm::CodeGenOpt::None, llvm::CodeGenOpt::Less, llvm::CodeGenOpt::Default,
      llvm::CodeGenOpt::Aggressive};
  return kLevels[std::clamp(opt_level, 0, 3)];
}

absl::Status VerifyLlvmModule(const llvm::Module& module) {
  std::string message;
  llvm::raw_string_ostream stream(message);
  if (!llvm::verifyModule(module, &stream)) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("kernel module '", module.getName().str(),
                                          "' is invalid LLVM IR: ", stream.str()));
}

void OptimizeLlvmModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level,
                        bool slp_vectorize) {
  static const llvm::OptimizationLevel* const kLevels[] = {
      &llvm::OptimizationLevel::O0, &llvm::OptimizationLevel::O1,
      &llvm::OptimizationLevel::O2, &llvm::OptimizationLevel::O3};
  const llvm::OptimizationLevel& level = *kLevels[std::clamp(opt_level, 0, 3)];
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.SLPVectorization = slp_vectorize && opt_level >= 2;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
}

absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType file_type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, stream, nullptr, file_type)) {
    return absl::InternalError(absl::StrCat("target ", machine.getTargetTriple().str(),
                                            " cannot emit this kind of file"));
  }
  codegen.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace xla::gpu
