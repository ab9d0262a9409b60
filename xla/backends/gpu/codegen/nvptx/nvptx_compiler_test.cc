#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

namespace xla::gpu {
namespace {

// y[i] = a * x[i] + y[i] for i = blockIdx.x * 128 + threadIdx.x < n, with
// global-address-space pointers and a maxntid annotation.
std::unique_ptr<llvm::Module> MakeSaxpy(llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>("saxpy_module", ctx);
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* global_ptr = llvm::PointerType::get(ctx, 1);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                       {f32, global_ptr, global_ptr, i32}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "saxpy", *module);
  fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::NamedMDNode* annotations = module->getOrInsertNamedMetadata("nvvm.annotations");
  annotations->addOperand(llvm::MDNode::get(
      ctx, {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, "maxntidx"),
            llvm::ValueAsMetadata::get(llvm::ConstantInt::get(i32, 128))}));
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* body = llvm::BasicBlock::Create(ctx, "body", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  llvm::IRBuilder<> b(entry);
  llvm::Value* tid = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  llvm::Value* bid = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {});
  llvm::Value* i = b.CreateAdd(b.CreateMul(bid, b.getInt32(128)), tid);
  b.CreateCondBr(b.CreateICmpSLT(i, fn->getArg(3)), body, exit);
  b.SetInsertPoint(body);
  llvm::Value* xp = b.CreateGEP(f32, fn->getArg(1), i);
  llvm::Value* yp = b.CreateGEP(f32, fn->getArg(2), i);
  llvm::Value* r = b.CreateFAdd(b.CreateFMul(fn->getArg(0), b.CreateLoad(f32, xp)),
                                b.CreateLoad(f32, yp));
  b.CreateStore(r, yp);
  b.CreateBr(exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  return module;
}

TEST(NvptxTarget, TableAndLookup) {
  ASSERT_EQ(NvptxTargets().size(), 4u);
  absl::StatusOr<NvptxTarget> t = FindNvptxTarget("sm_89");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->compute_capability, 89);
  absl::StatusOr<NvptxTarget> bad = FindNvptxTarget("sm_75");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sm_80, sm_86, sm_89, sm_90"), std::string::npos);
}

// CI must have ptxas (/usr/local/cuda/bin): its absence fails the test, with
// the places searched, rather than skipping the assembler check.
TEST(NvptxCompiler, EmitsPtxForEveryTargetAndPtxasAcceptsIt) {
  absl::StatusOr<std::string> ptxas = FindPtxas(NvptxCompileOptions());
  ASSERT_TRUE(ptxas.ok()) << ptxas.status();
  for (const NvptxTarget& target : NvptxTargets()) {
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> module = MakeSaxpy(ctx);
    absl::StatusOr<NvptxBinary> binary = CompileNvptx(*module, target, NvptxCompileOptions());
    ASSERT_TRUE(binary.ok()) << target.name << ": " << binary.status();
    const std::string& ptx = binary->ptx;
    EXPECT_NE(ptx.find(".version 7.8"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(absl::StrCat(".target ", target.name)), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".entry saxpy"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".maxntid 128, 1, 1"), std::string::npos) << ptx;
    // Explicit address spaces: loads and stores hit global memory directly.
    EXPECT_NE(ptx.find("ld.global"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("st.global"), std::string::npos) << ptx;
    ASSERT_TRUE(binary->cubin.has_value()) << binary->cubin_skipped_reason;
    EXPECT_EQ(binary->cubin->substr(0, 4), "\x7f" "ELF");
    EXPECT_FALSE(binary->ptxas_version.empty());
  }
}

TEST(NvptxCompiler, PtxasErrorsAreReportedWithTheLog) {
  absl::StatusOr<std::string> ptxas = FindPtxas(NvptxCompileOptions());
  ASSERT_TRUE(ptxas.ok()) << ptxas.status();
  absl::StatusOr<std::string> cubin =
      AssemblePtx(".version 7.8\n.target sm_90\n.address_size 64\nthis is not ptx\n",
                  *FindNvptxTarget("sm_90"), *ptxas);
  ASSERT_FALSE(cubin.ok());
  EXPECT_NE(cubin.status().message().find("rejected the PTX for sm_90"), std::string::npos)
      << cubin.status();
  EXPECT_NE(cubin.status().message().find("kernels.ptx"), std::string::npos) << cubin.status();
}

TEST(NvptxCompiler, MissingPtxasIsNotAnError) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = MakeSaxpy(ctx);
  NvptxCompileOptions options;
  options.ptxas = "/nonexistent/ptxas";
  absl::StatusOr<NvptxBinary> binary = CompileNvptx(*module, *FindNvptxTarget("sm_80"), options);
  ASSERT_TRUE(binary.ok()) << binary.status();
  EXPECT_FALSE(binary->cubin.has_value());
  EXPECT_NE(binary->cubin_skipped_reason.find("/nonexistent/ptxas"), std::string::npos);
  EXPECT_NE(binary->ptx.find(".entry saxpy"), std::string::npos);
}

TEST(NvptxCompiler, RenumbersCallSequencesFromZero) {
  const std::string ptx =
      "{ // callseq 17, 0\ncall f;\n} // callseq 17\n{ // callseq 9, 0\n} // callseq 9\n"
      "{ // callseq 17, 0\n// callseq x\n";
  EXPECT_EQ(RenumberCallSequences(ptx),
            "{ // callseq 0, 0\ncall f;\n} // callseq 0\n{ // callseq 1, 0\n} // callseq 1\n"
            "{ // callseq 0, 0\n// callseq x\n");
  EXPECT_EQ(RenumberCallSequences("no calls\n"), "no calls\n");
  EXPECT_EQ(RenumberCallSequences("// callseq 4"), "// callseq 0");
}

}  // namespace
}  // namespace xla::gpu
