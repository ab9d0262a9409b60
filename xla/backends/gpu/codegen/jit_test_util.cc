#include "xla/backends/gpu/codegen/jit_test_util.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

std::string ToText(llvm::Error error) {
  std::string text;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase& e) { text = e.message(); });
  return text;
}

}  // namespace

absl::StatusOr<std::unique_ptr<JitRunner>> JitRunner::Create() {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return absl::InternalError("LLJIT: " + ToText(jit.takeError()));
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) return absl::InternalError("process symbols: " + ToText(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  return std::unique_ptr<JitRunner>(new JitRunner(std::move(*jit)));
}

absl::StatusOr<void*> JitRunner::Compile(std::unique_ptr<llvm::Module> module,
                                         std::unique_ptr<llvm::LLVMContext> context,
                                         absl::string_view name) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(*module, &os)) {
    return absl::InternalError("invalid IR: " + os.str());
  }
  if (llvm::Error e = jit_->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    return absl::InternalError("addIRModule: " + ToText(std::move(e)));
  }
  auto address = jit_->lookup(llvm::StringRef(name.data(), name.size()));
  if (!address) return absl::InternalError("lookup: " + ToText(address.takeError()));
  return address->toPtr<void*>();
}

absl::StatusOr<Literal> RunElemental(const HloModule& module, absl::Span<const Literal> args,
                                     std::string* ir) {
  ASSIGN_OR_RETURN(std::unique_ptr<JitRunner> jit, JitRunner::Create());
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>("elemental_test", *context);
  llvm_module->setDataLayout(jit->data_layout());
  llvm_module->setTargetTriple(jit->triple().str());
  llvm::IRBuilder<> b(*context);
  llvm::Type* ptr = b.getPtrTy();
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr}, false), llvm::Function::ExternalLinkage,
      "kernel", llvm_module.get());
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(*context, "entry", fn);
  b.SetInsertPoint(entry);
  llvm::Value* buffers = fn->getArg(0);

  const HloComputation* comp = module.entry_computation();
  const HloInstruction* root = comp->root_instruction();
  if (!root->shape().IsArray()) return absl::UnimplementedError("tuple results");
  std::vector<llvm::Value*> bases;
  for (int64_t i = 0; i <= comp->num_parameters(); ++i) {
    bases.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, buffers, i)));
  }

  ElementalIrEmitter emitter(llvm_module.get(), &b);
  absl::flat_hash_map<const HloInstruction*, ElementalIrEmitter::ElementGenerator> generators;
  std::function<absl::StatusOr<ElementalIrEmitter::ElementGenerator>(const HloInstruction*)> make =
      [&](const HloInstruction* hlo) -> absl::StatusOr<ElementalIrEmitter::ElementGenerator> {
    auto it = generators.find(hlo);
    if (it != generators.end()) return it->second;
    ElementalIrEmitter::ElementGenerator g;
    if (hlo->opcode() == HloOpcode::kParameter && IsComplex(hlo->shape().element_type())) {
      // IrArray has no complex elements; the emitter rejects the user.
      g = [](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return absl::UnimplementedError("complex parameter");
      };
    } else if (hlo->opcode() == HloOpcode::kParameter) {
      Shape shape = hlo->shape();
      shape.clear_layout();
      IrArray array(bases[hlo->parameter_number()], shape);
      g = [array, &b](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        return array.EmitReadElement(i, &b);
      };
    } else {
      std::vector<ElementalIrEmitter::ElementGenerator> ops;
      for (const HloInstruction* operand : hlo->operands()) {
        ASSIGN_OR_RETURN(auto og, make(operand));
        ops.push_back(std::move(og));
      }
      ASSIGN_OR_RETURN(g, emitter.MakeElementGenerator(hlo, ops));
    }
    generators[hlo] = g;
    return g;
  };
  ASSIGN_OR_RETURN(ElementalIrEmitter::ElementGenerator root_gen, make(root));

  Shape out_shape = root->shape();
  out_shape.clear_layout();
  Literal out(out_shape);
  const int64_t n = out.element_count();
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(*context, "exit", fn);
  if (n > 0) {
    llvm::BasicBlock* header = llvm::BasicBlock::Create(*context, "loop", fn);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
    i->addIncoming(b.getInt64(0), entry);
    IrIndex index = IrIndex::FromLinear(i, out_shape.dimensions(), &b);
    ASSIGN_OR_RETURN(llvm::Value* value, root_gen(index));
    IrArray(bases.back(), out_shape).EmitWriteElement(index, value, &b);
    llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
    i->addIncoming(next, b.GetInsertBlock());
    b.CreateCondBr(b.CreateICmpULT(next, b.getInt64(n)), header, exit);
  } else {
    b.CreateBr(exit);
  }
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  if (ir != nullptr) {
    ir->clear();
    llvm::raw_string_ostream os(*ir);
    llvm_module->print(os, nullptr);
  }
  ASSIGN_OR_RETURN(void* address, jit->Compile(std::move(llvm_module), std::move(context), "kernel"));
  std::vector<void*> pointers;
  for (const Literal& arg : args) pointers.push_back(const_cast<uint8_t*>(arg.data().data()));
  pointers.push_back(out.mutable_data().data());
  reinterpret_cast<void (*)(void**)>(address)(pointers.data());
  return out;
}

}  // namespace xla::gpu
