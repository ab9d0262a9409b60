// The fusion emitters' shared IR helpers (ir_loops.h, reduction_ir.h,
// update_index_ir.h), JIT-compiled on the host and checked against values
// computed by hand in C++ in the same order (so float sums compare exactly).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/backends/gpu/codegen/jit_test_util.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/backends/gpu/codegen/update_index_ir.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

// Parses `text`, JITs `void f(ptr in0, ptr in1, ptr out)`: generators for
// the entry's parameters read in0/in1 (as their shapes), every other entry
// instruction gets an elemental generator; `body` emits the rest.
using Body = std::function<absl::Status(const HloComputation&, FusedGenerators&,
                                        ElementalIrEmitter&, llvm::IRBuilder<>&, llvm::Value* out)>;

void* Build(std::unique_ptr<JitRunner>& jit, std::unique_ptr<HloModule>& module,
            const std::string& text, const Body& body) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return nullptr;
  module = std::move(*m);
  auto created = JitRunner::Create();
  EXPECT_TRUE(created.ok()) << created.status();
  if (!created.ok()) return nullptr;
  jit = std::move(*created);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>("t", *ctx);
  llvm_module->setDataLayout(jit->data_layout());
  llvm::IRBuilder<> b(*ctx);
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy()}, false),
      llvm::Function::ExternalLinkage, "f", llvm_module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", fn));
  ElementalIrEmitter elemental(llvm_module.get(), &b);
  FusedGenerators gens;
  const HloComputation& entry = *module->entry_computation();
  for (const HloInstruction* instr : entry.MakePostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      const IrArray array(fn->getArg(instr->parameter_number()), instr->shape());
      gens[instr] = [array, &b](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        return array.EmitReadElement(i, &b);
      };
      continue;
    }
    if (instr->opcode() == HloOpcode::kReduce || instr->opcode() == HloOpcode::kScatter ||
        instr->opcode() == HloOpcode::kDynamicUpdateSlice ||
        (instr->opcode() == HloOpcode::kConstant && !instr->shape().dimensions().empty())) {
      continue;  // emitted by the body, or array constants without values ({...})
    }
    std::vector<ElementalIrEmitter::ElementGenerator> ops;
    for (const HloInstruction* op : instr->operands()) ops.push_back(gens.at(op));
    absl::StatusOr<ElementalIrEmitter::ElementGenerator> g =
        elemental.MakeElementGenerator(instr, ops);
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok()) return nullptr;
    gens[instr] = *g;
  }
  const absl::Status st = body(entry, gens, elemental, b, fn->getArg(2));
  EXPECT_TRUE(st.ok()) << st;
  if (!st.ok()) return nullptr;
  b.CreateRetVoid();
  auto address = jit->Compile(std::move(llvm_module), std::move(ctx), "f");
  EXPECT_TRUE(address.ok()) << address.status();
  return address.ok() ? *address : nullptr;
}

using Fn = void (*)(const void*, const void*, void*);

TEST(FusionIrHelpers, SequentialReduceOverStridedDimsMatchesHandSums) {
  std::unique_ptr<JitRunner> jit;
  std::unique_ptr<HloModule> m;
  Fn f = reinterpret_cast<Fn>(Build(jit, m, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[3,5,7] parameter(0)
  c = f32[] constant(1.5)
  ROOT r = f32[5] reduce(a, c), dimensions={2,0}, to_apply=add
}
)", [](const HloComputation& entry, FusedGenerators& gens, ElementalIrEmitter& elemental,
       llvm::IRBuilder<>& b, llvm::Value* out) {
    const HloInstruction& reduce = *entry.root_instruction();
    const IrArray out_array(out, reduce.shape());
    return EmitForLoop(&b, b.getInt64(0), b.getInt64(5), b.getInt64(1), "o",
                       [&](llvm::Value* i) -> absl::Status {
                         const IrIndex index({i}, {5});
                         absl::StatusOr<std::vector<llvm::Value*>> v =
                             EmitSequentialReduce("test", reduce, index, gens, elemental, &b);
                         if (!v.ok()) return v.status();
                         out_array.EmitWriteElement(index, (*v)[0], &b);
                         return absl::OkStatus();
                       });
  }));
  ASSERT_NE(f, nullptr);
  std::vector<float> in(105);
  for (size_t k = 0; k < in.size(); ++k) in[k] = 0.25f * static_cast<float>((k * 37) % 23) - 2.f;
  std::vector<float> out(5, -99.f);
  f(in.data(), nullptr, out.data());
  for (int j = 0; j < 5; ++j) {
    float acc = 1.5f;  // dims ascending: 0 outer, 2 inner
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < 7; ++k) acc += in[(i * 5 + j) * 7 + k];
    }
    EXPECT_EQ(out[j], acc) << j;
  }
}

TEST(FusionIrHelpers, ForLoopUnrollDisabledMarksOnlyItsLatch) {
  llvm::LLVMContext ctx;
  llvm::Module module("t", ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false),
      llvm::Function::ExternalLinkage, "f", &module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  // outer (disabled) { inner (auto) { p[i * 7 + j] = i + j } }
  const absl::Status st = EmitForLoop(
      &b, b.getInt64(0), b.getInt64(3), b.getInt64(1), "outer",
      [&](llvm::Value* i) {
        return EmitForLoop(&b, b.getInt64(0), b.getInt64(7), b.getInt64(1), "inner",
                           [&](llvm::Value* j) {
                             llvm::Value* at = b.CreateAdd(b.CreateMul(i, b.getInt64(7)), j);
                             b.CreateStore(b.CreateAdd(i, j),
                                           b.CreateGEP(b.getInt64Ty(), fn->getArg(0), at));
                             return absl::OkStatus();
                           });
      },
      LoopUnroll::kDisabled);
  ASSERT_TRUE(st.ok()) << st;
  b.CreateRetVoid();
  std::string ir;
  llvm::raw_string_ostream os(ir);
  ASSERT_FALSE(llvm::verifyModule(module, &os)) << os.str();
  module.print(os, nullptr);
  os.flush();
  const llvm::BasicBlock* inner_latch = nullptr;
  const llvm::BasicBlock* outer_latch = nullptr;
  for (const llvm::BasicBlock& bb : *fn) {
    const auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
    if (br == nullptr || !br->isConditional()) continue;
    const llvm::StringRef target = br->getSuccessor(0)->getName();
    if (target == "inner.body" && br->getSuccessor(1)->getName() == "inner.exit") inner_latch = &bb;
    if (target == "outer.body" && br->getSuccessor(1)->getName() == "outer.exit") outer_latch = &bb;
  }
  ASSERT_NE(inner_latch, nullptr) << ir;
  ASSERT_NE(outer_latch, nullptr) << ir;
  EXPECT_EQ(inner_latch->getTerminator()->getMetadata(llvm::LLVMContext::MD_loop), nullptr) << ir;
  const llvm::MDNode* loop =
      outer_latch->getTerminator()->getMetadata(llvm::LLVMContext::MD_loop);
  ASSERT_NE(loop, nullptr) << ir;
  ASSERT_EQ(loop->getNumOperands(), 2u) << ir;
  EXPECT_EQ(loop->getOperand(0).get(), loop) << ir;  // distinct, self-referencing
  const auto* property = llvm::dyn_cast<llvm::MDNode>(loop->getOperand(1).get());
  ASSERT_NE(property, nullptr) << ir;
  const auto* name = llvm::dyn_cast<llvm::MDString>(property->getOperand(0).get());
  ASSERT_NE(name, nullptr) << ir;
  EXPECT_EQ(name->getString(), "llvm.loop.unroll.disable") << ir;
  EXPECT_TRUE(ir.find("!{!\"llvm.loop.unroll.disable\"}") != std::string::npos) << ir;
}

TEST(FusionIrHelpers, ScatterTargetsSkipWindowsThatDoNotFit) {
  std::unique_ptr<JitRunner> jit;
  std::unique_ptr<HloModule> m;
  // out[l] = linear target of update element l, or -1 when skipped.
  Fn f = reinterpret_cast<Fn>(Build(jit, m, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  idx = s32[6,1] parameter(0)
  upd = f32[6,3] parameter(1)
  op = f32[11,7] constant({...})
  ROOT s = f32[11,7] scatter(op, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)", [](const HloComputation& entry, FusedGenerators& gens, ElementalIrEmitter&,
       llvm::IRBuilder<>& b, llvm::Value* out) -> absl::Status {
    absl::StatusOr<ScatterIndexing> s = AnalyzeScatterIndexing("test", *entry.root_instruction());
    if (!s.ok()) return s.status();
    const IrArray out_array(out, Shape::Array(PrimitiveType::S64, {18}));
    return EmitForLoop(&b, b.getInt64(0), b.getInt64(18), b.getInt64(1), "u",
                       [&](llvm::Value* l) -> absl::Status {
                         const IrIndex u = IrIndex::FromLinear(l, {6, 3}, &b);
                         llvm::Value* inside = nullptr;
                         absl::StatusOr<IrIndex> t = EmitScatterTarget(*s, u, gens, &b, &inside);
                         if (!t.ok()) return t.status();
                         llvm::Value* linear =
                             b.CreateAdd(b.CreateMul((*t)[0], b.getInt64(7)), (*t)[1]);
                         out_array.EmitWriteElement(IrIndex({l}, {18}),
                                                    b.CreateSelect(inside, linear, b.getInt64(-1)),
                                                    &b);
                         return absl::OkStatus();
                       });
  }));
  ASSERT_NE(f, nullptr);
  const int32_t idx[6] = {3, 10, -1, 11, 0, 3};
  std::vector<int64_t> out(18, 7777);
  f(idx, nullptr, out.data());
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 3; ++j) {
      const bool fits = idx[i] >= 0 && idx[i] <= 10;  // window [1,3] of [11,7]
      EXPECT_EQ(out[i * 3 + j], fits ? idx[i] * 7 + j : -1) << i << "," << j;
    }
  }
}

TEST(FusionIrHelpers, DusStartsAreClamped) {
  for (auto [i, j] : {std::pair{20, 40}, std::pair{36, 125}, std::pair{-4, 0}}) {
    std::unique_ptr<JitRunner> jit;
    std::unique_ptr<HloModule> m;
    Fn f = reinterpret_cast<Fn>(Build(jit, m, R"(
HloModule m
ENTRY e {
  i = s32[] parameter(0)
  j = s32[] parameter(1)
  op = f32[37,129] constant({...})
  u = f32[5,17] constant({...})
  ROOT d = f32[37,129] dynamic-update-slice(op, u, i, j)
}
)", [](const HloComputation& entry, FusedGenerators& gens, ElementalIrEmitter&,
       llvm::IRBuilder<>& b, llvm::Value* out) -> absl::Status {
      absl::StatusOr<std::vector<llvm::Value*>> starts =
          EmitDusStarts(*entry.root_instruction(), gens, &b);
      if (!starts.ok()) return starts.status();
      const IrArray out_array(out, Shape::Array(PrimitiveType::S64, {2}));
      for (int64_t d = 0; d < 2; ++d) {
        out_array.EmitWriteElement(IrIndex({b.getInt64(d)}, {2}), (*starts)[d], &b);
      }
      return absl::OkStatus();
    }));
    ASSERT_NE(f, nullptr);
    std::vector<int64_t> out(2, 7777);
    f(&i, &j, out.data());
    EXPECT_EQ(out[0], std::min(std::max(i, 0), 37 - 5)) << i;
    EXPECT_EQ(out[1], std::min(std::max(j, 0), 129 - 17)) << j;
  }
}

}  // namespace
}  // namespace xla::gpu
