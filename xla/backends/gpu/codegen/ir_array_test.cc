// IrIndex and IrArray: linear <-> multidimensional conversion, the source
// index transforms, layouts and sub-byte storage, checked by JIT-compiling
// small functions and comparing with index arithmetic done in C++.
#include "xla/backends/gpu/codegen/ir_array.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/jit_test_util.h"

namespace xla::gpu {
namespace {

// JITs `int64_t f(const void* in, void* out, int64_t linear)` whose body is
// built by `body` and returns its address.
template <typename Body>
void* Build(std::unique_ptr<JitRunner>& jit, Body body) {
  auto created = JitRunner::Create();
  EXPECT_TRUE(created.ok()) << created.status();
  jit = std::move(*created);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("t", *ctx);
  m->setDataLayout(jit->data_layout());
  llvm::IRBuilder<> b(*ctx);
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getInt64Ty(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false),
      llvm::Function::ExternalLinkage, "f", m.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", fn));
  b.CreateRet(body(b, fn->getArg(0), fn->getArg(1), fn->getArg(2)));
  auto address = jit->Compile(std::move(m), std::move(ctx), "f");
  EXPECT_TRUE(address.ok()) << address.status();
  return address.ok() ? *address : nullptr;
}

using Fn = int64_t (*)(const void*, void*, int64_t);

TEST(IrArrayTest, TransposeOfReshapeMatchesHostArithmetic) {
  // result f32[7,3,5] = transpose(reshape(f32[105] -> [3,5,7]), {2,0,1});
  // f returns the operand's linear index for a result linear index.
  std::unique_ptr<JitRunner> jit;
  Fn f = reinterpret_cast<Fn>(Build(jit, [](llvm::IRBuilder<>& b, llvm::Value*, llvm::Value*,
                                            llvm::Value* linear) {
    IrIndex out = IrIndex::FromLinear(linear, {7, 3, 5}, &b);
    IrIndex mid = out.SourceIndexOfTranspose({3, 5, 7}, {2, 0, 1});
    IrIndex src = mid.SourceIndexOfReshape({105}, &b);
    return src[0];
  }));
  ASSERT_NE(f, nullptr);
  for (int64_t l = 0; l < 105; ++l) {
    const int64_t i = l / 15, j = (l / 5) % 3, k = l % 5;  // result [i,j,k] = operand [j,k,i]
    EXPECT_EQ(f(nullptr, nullptr, l), (j * 5 + k) * 7 + i) << l;
  }
}

// Reshapes that share leading or trailing dimensions keep those index
// values and map only the middle; the operand's linear index must be the
// result's, for every element, in each of these forms.
TEST(IrArrayTest, ReshapeWithSharedEndsKeepsTheLinearIndex) {
  struct Case {
    std::vector<int64_t> result, operand;
  };
  const std::vector<Case> cases = {
      {{4, 3, 5, 7}, {12, 5, 7}},     // shared suffix
      {{3, 5, 14}, {3, 5, 2, 7}},     // shared prefix
      {{3, 2, 10, 7}, {3, 4, 5, 7}},  // both ends shared, middle remapped
      {{3, 1, 5}, {3, 5}},            // a unit dimension dropped
      {{3, 5}, {3, 1, 5}},            // and added
      {{105}, {3, 5, 7}},             // nothing shared
  };
  for (const Case& c : cases) {
    std::unique_ptr<JitRunner> jit;
    const std::vector<int64_t> result = c.result, operand = c.operand;
    Fn f = reinterpret_cast<Fn>(Build(jit, [&](llvm::IRBuilder<>& b, llvm::Value*, llvm::Value*,
                                               llvm::Value* linear) {
      IrIndex out = IrIndex::FromLinear(linear, result, &b);
      return out.SourceIndexOfReshape(operand, &b).Linearize(&b);
    }));
    ASSERT_NE(f, nullptr);
    int64_t n = 1;
    for (int64_t d : result) n *= d;
    for (int64_t l = 0; l < n; ++l) ASSERT_EQ(f(nullptr, nullptr, l), l) << l;
  }
}

TEST(IrArrayTest, SliceBroadcastReverse) {
  std::unique_ptr<JitRunner> jit;
  Fn f = reinterpret_cast<Fn>(Build(jit, [](llvm::IRBuilder<>& b, llvm::Value*, llvm::Value*,
                                            llvm::Value* linear) {
    IrIndex out = IrIndex::FromLinear(linear, {4, 6}, &b);
    IrIndex rev = out.SourceIndexOfReverse({1}, &b);
    IrIndex bc = rev.SourceIndexOfBroadcast({6}, {1});           // keeps dim 1
    IrIndex sl = bc.SourceIndexOfSlice({20}, {3}, {2}, &b);      // 3 + 2 * j
    return sl[0];
  }));
  ASSERT_NE(f, nullptr);
  for (int64_t l = 0; l < 24; ++l) EXPECT_EQ(f(nullptr, nullptr, l), 3 + 2 * (5 - l % 6)) << l;
}

TEST(IrArrayTest, ColumnMajorLayoutAndSubByteStorage) {
  // s32[3,5]{0,1}: element (i, j) lives at j * 3 + i. Copies it, as s4, into
  // a row-major s4[3,5] (one byte per element, sign-extended).
  Shape in_shape = Shape::Array(PrimitiveType::S32, {3, 5});
  in_shape.set_layout(Layout{{0, 1}, ""});
  std::unique_ptr<JitRunner> jit;
  Fn f = reinterpret_cast<Fn>(Build(jit, [&](llvm::IRBuilder<>& b, llvm::Value* in, llvm::Value* out,
                                             llvm::Value* linear) {
    IrIndex index = IrIndex::FromLinear(linear, {3, 5}, &b);
    llvm::Value* v = IrArray(in, in_shape).EmitReadElement(index, &b);
    IrArray(out, Shape::Array(PrimitiveType::S4, {3, 5}))
        .EmitWriteElement(index, b.CreateTrunc(v, b.getIntNTy(4)), &b);
    return b.CreateSExt(v, b.getInt64Ty());
  }));
  ASSERT_NE(f, nullptr);
  std::vector<int32_t> in(15);
  for (int k = 0; k < 15; ++k) in[k] = k - 7;  // column-major storage
  std::vector<int8_t> out(15, 99);
  for (int64_t l = 0; l < 15; ++l) {
    const int64_t i = l / 5, j = l % 5;
    EXPECT_EQ(f(in.data(), out.data(), l), in[j * 3 + i]) << l;
    EXPECT_EQ(out[l], static_cast<int8_t>(in[j * 3 + i])) << l;  // in [-8, 7]: sign-extended
  }
}

}  // namespace
}  // namespace xla::gpu
