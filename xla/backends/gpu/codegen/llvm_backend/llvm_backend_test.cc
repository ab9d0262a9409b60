#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetOptions.h"

namespace xla::gpu {
namespace {

constexpr char kTriple[] = "x86_64-unknown-linux-gnu";

// A loop with strided loads and stores (in[5i] + in[5i + 2] -> out[3i]):
// loop strength reduction turns its index arithmetic into pointer
// increments, so its assembly shows whether the pass ran.
constexpr char kStridedLoop[] = R"(
target triple = "x86_64-unknown-linux-gnu"
define void @strided(ptr noalias %in, ptr noalias %out, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %a = mul i64 %i, 5
  %pa = getelementptr float, ptr %in, i64 %a
  %x = load float, ptr %pa
  %b = add i64 %a, 2
  %pb = getelementptr float, ptr %in, i64 %b
  %y = load float, ptr %pb
  %s = fadd float %x, %y
  %o = mul i64 %i, 3
  %po = getelementptr float, ptr %out, i64 %o
  store float %s, ptr %po
  %next = add i64 %i, 1
  %d = icmp slt i64 %next, %n
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
)";

std::unique_ptr<llvm::TargetMachine> X86Machine() {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  EXPECT_NE(target, nullptr) << error;
  if (target == nullptr) return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, "x86-64-v3", "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      CodeGenOptLevel(3)));
}

// The assembly of kStridedLoop under `options`, and the passes it skipped.
std::string StridedLoopAssembly(const MachineCodeOptions& options,
                                std::vector<std::string>* skipped) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(kStridedLoop, diagnostic, context);
  EXPECT_NE(module, nullptr) << diagnostic.getMessage().str();
  std::unique_ptr<llvm::TargetMachine> machine = X86Machine();
  if (module == nullptr || machine == nullptr) return "";
  module->setDataLayout(machine->createDataLayout());
  absl::StatusOr<std::string> text =
      EmitMachineCode(*module, *machine, llvm::CGFT_AssemblyFile, options, skipped);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(LlvmBackend, LoopStrengthReductionRunsByDefault) {
  std::vector<std::string> skipped;
  const std::string text = StridedLoopAssembly(MachineCodeOptions(), &skipped);
  EXPECT_TRUE(skipped.empty());
  // LSR keeps one pointer per stream and steps it by the stride in bytes
  // (20 for in[5i], 12 for out[3i]).
  EXPECT_NE(text.find("$20,"), std::string::npos) << text;
  EXPECT_NE(text.find("$12,"), std::string::npos) << text;
}

TEST(LlvmBackend, LoopStrengthReductionCanBeLeftOut) {
  MachineCodeOptions options;
  options.loop_strength_reduction = false;
  std::vector<std::string> skipped;
  const std::string text = StridedLoopAssembly(options, &skipped);
  EXPECT_EQ(skipped, std::vector<std::string>{"Loop Strength Reduction"});
  // Without LSR the loop indexes from the base pointers (i * 5 and i * 3 by
  // lea) and steps no pointer by a stride.
  EXPECT_EQ(text.find("$20,"), std::string::npos) << text;
  EXPECT_EQ(text.find("$12,"), std::string::npos) << text;
  EXPECT_NE(text.find("(%rdi,%r"), std::string::npos) << text;
  // The same pipeline gives the same code every time.
  EXPECT_EQ(StridedLoopAssembly(options, nullptr), text);
  EXPECT_NE(StridedLoopAssembly(MachineCodeOptions(), nullptr), text);
}

}  // namespace
}  // namespace xla::gpu
