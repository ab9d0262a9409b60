#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar.h"

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

namespace {

// The pass identity of LLVM's loop strength reduction (the legacy pass the
// code generator adds; its ID is not exported, so one instance is asked).
const void* LoopStrengthReduceId() {
  static const void* const id = [] {
    std::unique_ptr<llvm::Pass> pass(llvm::createLoopStrengthReducePass());
    return static_cast<const void*>(pass->getPassID());
  }();
  return id;
}

// The code generator's pass manager, less the passes MachineCodeOptions
// turns off: TargetPassConfig adds every pass through add(), so a pass
// dropped here is never scheduled (nor the analyses only it requires).
class SelectingPassManager : public llvm::legacy::PassManager {
 public:
  SelectingPassManager(const MachineCodeOptions& options, std::vector<std::string>* skipped)
      : options_(options), skipped_(skipped) {}

  void add(llvm::Pass* pass) override {
    if (!options_.loop_strength_reduction && pass->getPassID() == LoopStrengthReduceId()) {
      if (skipped_ != nullptr) skipped_->push_back(pass->getPassName().str());
      delete pass;
      return;
    }
    llvm::legacy::PassManager::add(pass);
  }

 private:
  const MachineCodeOptions& options_;
  std::vector<std::string>* skipped_;
};

}  // namespace

absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType file_type,
                                            const MachineCodeOptions& options,
                                            std::vector<std::string>* skipped) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  SelectingPassManager codegen(options, skipped);
  if (machine.addPassesToEmitFile(codegen, stream, nullptr, file_type)) {
    return absl::InternalError(absl::StrCat("target ", machine.getTargetTriple().str(),
                                            " cannot emit this kind of file"));
  }
  codegen.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace xla::gpu
