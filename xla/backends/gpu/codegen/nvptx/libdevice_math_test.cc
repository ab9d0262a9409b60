#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"

#include <memory>

#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"

namespace xla::gpu {
namespace {

// A kernel y[tid] = f(x[tid]) for each f32 and f64 function of the emitter.
std::unique_ptr<llvm::Module> MakeKernel(llvm::LLVMContext& ctx, bool f64) {
  auto module = std::make_unique<llvm::Module>("m", ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 1);
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false),
      llvm::Function::ExternalLinkage, "math", *module);
  fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Type* t = f64 ? b.getDoubleTy() : b.getFloatTy();
  llvm::Value* i = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  llvm::Value* x = b.CreateLoad(t, b.CreateGEP(t, fn->getArg(0), i));
  NvptxMathEmitter m;
  llvm::Value* acc = m.Exp(x, &b);
  acc = b.CreateFAdd(acc, m.Log(x, &b));
  acc = b.CreateFAdd(acc, m.Sin(x, &b));
  acc = b.CreateFAdd(acc, m.Cos(x, &b));
  acc = b.CreateFAdd(acc, m.Pow(x, acc, &b));
  acc = b.CreateFAdd(acc, m.Tanh(x, &b));
  acc = b.CreateFAdd(acc, m.Expm1(x, &b));
  acc = b.CreateFAdd(acc, m.Log1p(x, &b));
  acc = b.CreateFAdd(acc, m.Erf(x, &b));
  acc = b.CreateFAdd(acc, m.Atan2(x, acc, &b));
  acc = b.CreateFAdd(acc, m.Cbrt(x, &b));
  acc = b.CreateFAdd(acc, m.Logistic(x, &b));  // shared implementation
  acc = b.CreateFAdd(acc, m.Rsqrt(x, &b));     // shared implementation
  b.CreateStore(acc, b.CreateGEP(t, fn->getArg(1), i));
  b.CreateRetVoid();
  return module;
}

TEST(LibdeviceMath, LinksOnlyWhatIsUsedAndPtxasAcceptsIt) {
  absl::StatusOr<std::string> path = FindLibdevice();
  ASSERT_TRUE(path.ok()) << path.status();
  for (bool f64 : {false, true}) {
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> module = MakeKernel(ctx, f64);
    ASSERT_NE(module->getFunction(f64 ? "__nv_exp" : "__nv_expf"), nullptr);
    absl::Status linked = LinkLibdevice(*module);
    ASSERT_TRUE(linked.ok()) << linked;
    llvm::Function* exp = module->getFunction(f64 ? "__nv_exp" : "__nv_expf");
    ASSERT_NE(exp, nullptr);
    EXPECT_FALSE(exp->isDeclaration());
    EXPECT_TRUE(exp->hasInternalLinkage());
    EXPECT_EQ(module->getFunction("__nv_j0f"), nullptr);  // not used: not linked
    absl::StatusOr<NvptxBinary> binary =
        CompileNvptx(*module, *FindNvptxTarget("sm_80"), NvptxCompileOptions());
    ASSERT_TRUE(binary.ok()) << binary.status();
    EXPECT_TRUE(binary->cubin.has_value()) << binary->cubin_skipped_reason;
    // Self-contained: no calls to external math functions remain.
    EXPECT_EQ(binary->ptx.find(".extern"), std::string::npos);
    EXPECT_EQ(binary->ptx.find("__nvvm_reflect"), std::string::npos);
    EXPECT_NE(binary->ptx.find(".entry math"), std::string::npos);
  }
}

TEST(LibdeviceMath, NoDeclarationsNoLinkAndBadPath) {
  llvm::LLVMContext ctx;
  llvm::Module empty("e", ctx);
  EXPECT_TRUE(LinkLibdevice(empty, "/nonexistent/libdevice.bc").ok());
  std::unique_ptr<llvm::Module> module = MakeKernel(ctx, false);
  absl::Status s = LinkLibdevice(*module, "/nonexistent/libdevice.bc");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/libdevice.bc"), std::string::npos) << s;
}

}  // namespace
}  // namespace xla::gpu
