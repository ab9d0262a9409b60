#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/Internalize.h"
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

// The oracle for the lazy link: libdevice parsed whole from the file (as
// LinkLibdevice did before it read lazily), then linked the same way.
void LinkWholeLibdevice(llvm::Module& module, const std::string& file) {
  std::unique_ptr<llvm::MemoryBuffer> buffer = std::move(*llvm::MemoryBuffer::getFile(file));
  std::unique_ptr<llvm::Module> lib =
      std::move(*llvm::parseBitcodeFile(buffer->getMemBufferRef(), module.getContext()));
  module.setTargetTriple("nvptx64-nvidia-cuda");
  lib->setTargetTriple(module.getTargetTriple());
  lib->setDataLayout(module.getDataLayout());
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
  ASSERT_FALSE(llvm::Linker::linkModules(
      module, std::move(lib), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module& m, const llvm::StringSet<>& linked) {
        llvm::internalizeModule(m, [&linked](const llvm::GlobalValue& gv) {
          return !gv.hasName() || linked.count(gv.getName()) == 0;
        });
      }));
}

std::string Ptx(llvm::Module& module) {
  absl::StatusOr<std::string> ptx = CompileToPtx(module, *FindNvptxTarget("sm_90"), 3);
  EXPECT_TRUE(ptx.ok()) << ptx.status();
  return ptx.ok() ? *ptx : "";
}

TEST(LibdeviceMath, LazyLinkGivesThePtxOfAWholeParse) {
  absl::StatusOr<std::string> path = FindLibdevice();
  ASSERT_TRUE(path.ok()) << path.status();
  for (bool f64 : {false, true}) {
    llvm::LLVMContext lazy_ctx, whole_ctx;
    std::unique_ptr<llvm::Module> lazy = MakeKernel(lazy_ctx, f64);
    std::unique_ptr<llvm::Module> whole = MakeKernel(whole_ctx, f64);
    ASSERT_TRUE(LinkLibdevice(*lazy, *path).ok());
    LinkWholeLibdevice(*whole, *path);
    // The same functions, with bodies, in the same order.
    std::vector<std::string> lazy_defs, whole_defs;
    for (const llvm::Function& f : *lazy) {
      if (!f.isDeclaration()) lazy_defs.push_back(f.getName().str());
    }
    for (const llvm::Function& f : *whole) {
      if (!f.isDeclaration()) whole_defs.push_back(f.getName().str());
    }
    EXPECT_GT(lazy_defs.size(), 10u);
    EXPECT_EQ(lazy_defs, whole_defs);
    const std::string lazy_ptx = Ptx(*lazy);
    EXPECT_NE(lazy_ptx.find(".entry math"), std::string::npos);
    EXPECT_EQ(lazy_ptx, Ptx(*whole)) << (f64 ? "f64" : "f32");
  }
}

TEST(LibdeviceMath, ThreadsShareTheBytesAndGetTheSamePtx) {
  absl::StatusOr<std::string> path = FindLibdevice();
  ASSERT_TRUE(path.ok()) << path.status();
  absl::StatusOr<std::shared_ptr<const std::string>> a = LibdeviceBytes(*path);
  absl::StatusOr<std::shared_ptr<const std::string>> b = LibdeviceBytes(*path);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());  // read once
  EXPECT_GT((*a)->size(), 100000u);
  std::vector<std::string> ptx(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&ptx, i] {
      llvm::LLVMContext ctx;
      std::unique_ptr<llvm::Module> module = MakeKernel(ctx, i % 2 == 1);
      ptx[i] = Ptx(*module);  // CompileToPtx links libdevice
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_NE(ptx[0], ptx[1]);  // f32 and f64
  EXPECT_EQ(ptx[0], ptx[2]);
  EXPECT_EQ(ptx[1], ptx[3]);
  EXPECT_FALSE(LibdeviceBytes("/nonexistent/libdevice.bc").ok());
}

// A damaged libdevice is an error naming the file, never an exit of the
// process: cut short (the lazy reader sees it at once), or with 64 bytes
// flipped in one of 40 places over the function bodies. Some of those the
// kernel's functions never touch (the link succeeds); some are found only
// while the linker reads a body, where LLVM's default diagnostic handler
// would print and exit.
TEST(LibdeviceMath, DamagedLibdeviceIsAnError) {
  absl::StatusOr<std::string> path = FindLibdevice();
  ASSERT_TRUE(path.ok()) << path.status();
  std::ifstream in(*path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(good.size(), 100000u);
  auto link = [](const std::string& name, const std::string& bytes) {
    const std::string file = ::testing::TempDir() + "/" + name;  // a new path: not cached
    std::ofstream(file, std::ios::binary) << bytes;
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> module = MakeKernel(ctx, false);
    absl::Status s = LinkLibdevice(*module, file);
    if (!s.ok()) {
      EXPECT_NE(s.message().find(file), std::string::npos) << s;
    }
    return s;
  };
  EXPECT_FALSE(link("cut.bc", good.substr(0, good.size() / 2)).ok());
  int failed_while_linking = 0;
  for (int k = 0; k < 40; ++k) {
    std::string bytes = good;
    const size_t at = good.size() / 20 + k * (good.size() * 9 / 10 / 200);
    for (size_t i = at; i < at + 64; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    absl::Status s = link(absl::StrCat("flipped_", k, ".bc"), bytes);
    failed_while_linking += !s.ok() && absl::StartsWith(s.message(), "linking libdevice");
  }
  // This libdevice.10.bc (CUDA 13.0) has 7 such places among the 40.
  EXPECT_GT(failed_while_linking, 0) << "no damage reached the linker: move the windows";
}

}  // namespace
}  // namespace xla::gpu
