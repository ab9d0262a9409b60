#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

// Calls __nv_<name>f or __nv_<name> (by the type of args[0]).
llvm::Value* Call(const char* name, std::vector<llvm::Value*> args, llvm::IRBuilder<>* b) {
  llvm::Type* type = args[0]->getType();
  const std::string symbol = absl::StrCat("__nv_", name, type->isFloatTy() ? "f" : "");
  std::vector<llvm::Type*> params(args.size(), type);
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::FunctionCallee fn =
      module->getOrInsertFunction(symbol, llvm::FunctionType::get(type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
  }
  return b->CreateCall(fn, args);
}

// Collects the error diagnostics of a link instead of LLVM's default
// handler, which prints them and exits the process (a lazily read
// libdevice reports a corrupt function body while the linker reads it).
class CollectErrors : public llvm::DiagnosticHandler {
 public:
  explicit CollectErrors(std::string* errors) : errors_(errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() != llvm::DS_Error) return true;
    llvm::raw_string_ostream os(*errors_);
    llvm::DiagnosticPrinterRawOStream printer(os);
    if (!errors_->empty()) os << "; ";
    info.print(printer);
    return true;
  }

 private:
  std::string* errors_;
};

}  // namespace

llvm::Value* NvptxMathEmitter::Exp(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("exp", {x}, b);
}
llvm::Value* NvptxMathEmitter::Log(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("log", {x}, b);
}
llvm::Value* NvptxMathEmitter::Sin(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("sin", {x}, b);
}
llvm::Value* NvptxMathEmitter::Cos(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("cos", {x}, b);
}
llvm::Value* NvptxMathEmitter::Pow(llvm::Value* x, llvm::Value* y, llvm::IRBuilder<>* b) const {
  llvm::Value* one_x = b->CreateFCmpOEQ(x, llvm::ConstantFP::get(x->getType(), 1.0));
  llvm::Value* zero_y = b->CreateFCmpOEQ(y, llvm::ConstantFP::get(y->getType(), 0.0));
  return b->CreateSelect(b->CreateOr(one_x, zero_y), llvm::ConstantFP::get(x->getType(), 1.0),
                         Call("pow", {x, y}, b));
}
llvm::Value* NvptxMathEmitter::Expm1(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("expm1", {x}, b);
}
llvm::Value* NvptxMathEmitter::Log1p(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("log1p", {x}, b);
}
llvm::Value* NvptxMathEmitter::Tanh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("tanh", {x}, b);
}
llvm::Value* NvptxMathEmitter::Erf(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("erf", {x}, b);
}
llvm::Value* NvptxMathEmitter::Tan(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("tan", {x}, b);
}
llvm::Value* NvptxMathEmitter::Cbrt(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("cbrt", {x}, b);
}
llvm::Value* NvptxMathEmitter::Atan2(llvm::Value* y, llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("atan2", {y, x}, b);
}
llvm::Value* NvptxMathEmitter::Atan(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("atan", {x}, b);
}
llvm::Value* NvptxMathEmitter::Asin(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("asin", {x}, b);
}
llvm::Value* NvptxMathEmitter::Acos(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("acos", {x}, b);
}
llvm::Value* NvptxMathEmitter::Asinh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("asinh", {x}, b);
}
llvm::Value* NvptxMathEmitter::Acosh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("acosh", {x}, b);
}
llvm::Value* NvptxMathEmitter::Atanh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("atanh", {x}, b);
}
llvm::Value* NvptxMathEmitter::Sinh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("sinh", {x}, b);
}
llvm::Value* NvptxMathEmitter::Cosh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Call("cosh", {x}, b);
}

absl::StatusOr<std::string> FindLibdevice() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("XLA_LIBDEVICE"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  }
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda != nullptr && *cuda != '\0') {
    candidates.push_back(absl::StrCat(cuda, "/nvvm/libdevice/libdevice.10.bc"));
  }
  candidates.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  for (const std::string& c : candidates) {
    if (ReadFileBytes(c).ok()) return c;
  }
  return absl::NotFoundError(absl::StrCat("libdevice.10.bc not found (looked at ",
                                          absl::StrJoin(candidates, ", "),
                                          "); install the CUDA toolkit or set XLA_LIBDEVICE"));
}

absl::StatusOr<std::shared_ptr<const std::string>> LibdeviceBytes(const std::string& file) {
  static std::mutex* const mu = new std::mutex;
  static auto* const cache = new std::map<std::string, std::shared_ptr<const std::string>>;
  std::lock_guard<std::mutex> lock(*mu);
  auto it = cache->find(file);
  if (it != cache->end()) return it->second;
  absl::StatusOr<std::string> bytes = ReadFileBytes(file);
  if (!bytes.ok()) {
    return absl::NotFoundError(
        absl::StrCat("cannot read libdevice ", file, ": ", bytes.status().message()));
  }
  auto shared = std::make_shared<const std::string>(std::move(*bytes));
  cache->emplace(file, shared);
  return shared;
}

absl::Status LinkLibdevice(llvm::Module& module, const std::string& path) {
  bool needed = false;
  for (const llvm::Function& f : module) {
    needed = needed || (f.isDeclaration() && f.getName().startswith("__nv_"));
  }
  if (!needed) return absl::OkStatus();
  std::string file = path;
  if (file.empty()) {
    absl::StatusOr<std::string> found = FindLibdevice();
    if (!found.ok()) return found.status();
    file = *found;
  }
  absl::StatusOr<std::shared_ptr<const std::string>> bytes = LibdeviceBytes(file);
  if (!bytes.ok()) return bytes.status();
  // Lazily: only the module-level records are read here; the linker
  // materializes the bodies of the functions the module needs. The bytes
  // stay in the cache, so they outlive `lib`.
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(**bytes, file), module.getContext());
  if (!lib) {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse libdevice ", file, ": ",
                                                   llvm::toString(lib.takeError())));
  }
  if (module.getTargetTriple().empty()) module.setTargetTriple("nvptx64-nvidia-cuda");
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  if (module.getModuleFlag("nvvm-reflect-ftz") == nullptr) {
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
  }
  llvm::LLVMContext& context = module.getContext();
  std::unique_ptr<llvm::DiagnosticHandler> previous = context.getDiagnosticHandler();
  std::string errors;
  context.setDiagnosticHandler(std::make_unique<CollectErrors>(&errors));
  const bool failed = llvm::Linker::linkModules(
      module, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module& m, const llvm::StringSet<>& linked) {
        // Keep the module's own symbols; make everything from libdevice
        // internal so that unused functions are dropped.
        llvm::internalizeModule(m, [&linked](const llvm::GlobalValue& gv) {
          return !gv.hasName() || linked.count(gv.getName()) == 0;
        });
      });
  context.setDiagnosticHandler(std::move(previous));
  if (failed || !errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "linking libdevice ", file, " into ", module.getModuleIdentifier(), " failed: ", errors,
        "; reinstall the CUDA toolkit or point XLA_LIBDEVICE at a good libdevice.10.bc"));
  }
  return absl::OkStatus();
}

}  // namespace xla::gpu
