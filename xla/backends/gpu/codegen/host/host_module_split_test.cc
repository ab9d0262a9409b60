#include "xla/backends/gpu/codegen/host/host_module_split.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"

namespace xla::gpu {
namespace {

// A function `name` (linkage `linkage`) of type float(float) returning
// x + 1 repeated `adds` times, plus `callee(x)` when given, plus a load of
// `global` when given.
llvm::Function* AddFunction(llvm::Module& m, const std::string& name,
                            llvm::GlobalValue::LinkageTypes linkage, int adds,
                            llvm::Function* callee, llvm::GlobalVariable* global) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false), linkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value* x = fn->getArg(0);
  for (int i = 0; i < adds; ++i) x = b.CreateFAdd(x, llvm::ConstantFP::get(f32, 1.0 + i));
  if (callee != nullptr) x = b.CreateFAdd(x, b.CreateCall(callee, {x}));
  if (global != nullptr) {
    llvm::Value* element = b.CreateConstGEP2_64(global->getValueType(), global, 0, 1);
    x = b.CreateFAdd(x, b.CreateLoad(f32, element));
  }
  b.CreateRet(x);
  return fn;
}

llvm::GlobalVariable* AddTable(llvm::Module& m, const std::string& name,
                               llvm::GlobalValue::LinkageTypes linkage) {
  llvm::Type* f32 = llvm::Type::getFloatTy(m.getContext());
  auto* type = llvm::ArrayType::get(f32, 3);
  llvm::Constant* init = llvm::ConstantArray::get(
      type, {llvm::ConstantFP::get(f32, 0.5), llvm::ConstantFP::get(f32, 1.5),
             llvm::ConstantFP::get(f32, 2.5)});
  return new llvm::GlobalVariable(m, type, /*isConstant=*/true, linkage, init, name);
}

// Kernels: big (60 adds), a and b share the internal `helper`; b reads the
// private `constant.c`; c reads the external table `table`.
std::unique_ptr<llvm::Module> MakeModule(llvm::LLVMContext& ctx) {
  auto m = std::make_unique<llvm::Module>("split_me", ctx);
  llvm::Function* helper =
      AddFunction(*m, "helper", llvm::GlobalValue::InternalLinkage, 5, nullptr, nullptr);
  llvm::GlobalVariable* constant = AddTable(*m, "constant.c", llvm::GlobalValue::PrivateLinkage);
  llvm::GlobalVariable* table = AddTable(*m, "table", llvm::GlobalValue::ExternalLinkage);
  AddFunction(*m, "kernel_a", llvm::GlobalValue::ExternalLinkage, 3, helper, nullptr);
  AddFunction(*m, "kernel_big", llvm::GlobalValue::ExternalLinkage, 60, nullptr, nullptr);
  AddFunction(*m, "kernel_b", llvm::GlobalValue::ExternalLinkage, 4, helper, constant);
  AddFunction(*m, "kernel_c", llvm::GlobalValue::ExternalLinkage, 2, nullptr, table);
  return m;
}

// What a part defines and declares after parsing it into a fresh context.
struct PartContents {
  std::set<std::string> defined;
  std::set<std::string> declared;
};

PartContents Parse(const HostModulePart& part) {
  llvm::LLVMContext ctx;
  llvm::Expected<std::unique_ptr<llvm::Module>> m = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(part.bitcode), "part"), ctx);
  EXPECT_TRUE(static_cast<bool>(m));
  PartContents out;
  if (!m) {
    llvm::consumeError(m.takeError());
    return out;
  }
  EXPECT_FALSE(llvm::verifyModule(**m, &llvm::errs()));
  for (const llvm::GlobalValue& gv : (*m)->global_values()) {
    (gv.isDeclaration() ? out.declared : out.defined).insert(gv.getName().str());
  }
  return out;
}

TEST(HostModuleSplit, EveryRootOnceWithTheLocalsItNeeds) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = MakeModule(ctx);
  absl::StatusOr<std::vector<HostModulePart>> parts = SplitHostModule(*m, 2);
  ASSERT_TRUE(parts.ok()) << parts.status();
  ASSERT_EQ(parts->size(), 2u);
  // kernel_big (61 instructions) outweighs the rest: it is alone in part 0.
  EXPECT_EQ((*parts)[0].roots, (std::vector<std::string>{"kernel_big"}));
  EXPECT_EQ((*parts)[1].roots,
            (std::vector<std::string>{"kernel_a", "kernel_b", "kernel_c", "table"}));
  // Each root's own instructions plus the locals it reaches: helper has 6,
  // kernel_a 6 (3 adds, call, add, ret), kernel_b 9 (4 adds, call, add,
  // load, add, ret), kernel_c 5; variables have none.
  EXPECT_EQ((*parts)[0].root_instructions, (std::vector<int64_t>{61}));
  EXPECT_EQ((*parts)[1].root_instructions, (std::vector<int64_t>{12, 15, 5, 0}));
  EXPECT_EQ(HostModuleRoots(*m),
            (std::vector<std::pair<std::string, int64_t>>{
                {"kernel_a", 12}, {"kernel_big", 61}, {"kernel_b", 15}, {"kernel_c", 5}, {"table", 0}}));
  PartContents big = Parse((*parts)[0]);
  PartContents rest = Parse((*parts)[1]);
  EXPECT_EQ(big.defined, (std::set<std::string>{"kernel_big"}));
  EXPECT_TRUE(big.declared.empty());
  EXPECT_EQ(rest.defined, (std::set<std::string>{"helper", "constant.c", "table", "kernel_a",
                                                  "kernel_b", "kernel_c"}));
  EXPECT_GT((*parts)[0].instructions, 60);
}

TEST(HostModuleSplit, SharedLocalsAreDuplicatedAndExternalsDeclared) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = MakeModule(ctx);
  absl::StatusOr<std::vector<HostModulePart>> parts = SplitHostModule(*m, 5);
  ASSERT_TRUE(parts.ok()) << parts.status();
  ASSERT_EQ(parts->size(), 5u);  // 5 roots: four kernels and `table`
  std::map<std::string, int> root_count;
  for (const HostModulePart& part : *parts) {
    ASSERT_EQ(part.roots.size(), 1u);
    ++root_count[part.roots[0]];
    PartContents c = Parse(part);
    const std::string& root = part.roots[0];
    EXPECT_TRUE(c.defined.count(root)) << root;
    if (root == "kernel_a") {
      EXPECT_EQ(c.defined, (std::set<std::string>{"kernel_a", "helper"}));
    } else if (root == "kernel_b") {
      EXPECT_EQ(c.defined, (std::set<std::string>{"kernel_b", "helper", "constant.c"}));
    } else if (root == "kernel_c") {
      EXPECT_EQ(c.defined, (std::set<std::string>{"kernel_c"}));
      EXPECT_EQ(c.declared, (std::set<std::string>{"table"}));  // defined by its own part
    } else if (root == "table") {
      EXPECT_EQ(c.defined, (std::set<std::string>{"table"}));
    }
  }
  EXPECT_EQ(root_count.size(), 5u);
}

TEST(HostModuleSplit, DeterministicAndClamped) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = MakeModule(ctx);
  absl::StatusOr<std::vector<HostModulePart>> a = SplitHostModule(*m, 3);
  absl::StatusOr<std::vector<HostModulePart>> b = SplitHostModule(*m, 3);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 3u);
  ASSERT_EQ(b->size(), 3u);
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_TRUE((*a)[i].bitcode == (*b)[i].bitcode) << "part " << i;
    EXPECT_EQ((*a)[i].roots, (*b)[i].roots);
  }
  absl::StatusOr<std::vector<HostModulePart>> many = SplitHostModule(*m, 40);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->size(), 5u);
  absl::StatusOr<std::vector<HostModulePart>> bad = SplitHostModule(*m, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("got 0"), std::string::npos);

  const int64_t total = CountLlvmInstructions(*m);
  EXPECT_GT(total, 70);
  EXPECT_EQ(AutomaticHostPartCount(*m, 1000000, 32), 1);
  EXPECT_EQ(AutomaticHostPartCount(*m, 1, 32), 5);          // capped by the roots
  EXPECT_EQ(AutomaticHostPartCount(*m, 1, 3), 3);           // capped by max_parts
  EXPECT_EQ(AutomaticHostPartCount(*m, total / 2 + 1, 32), 2);
}

}  // namespace
}  // namespace xla::gpu
