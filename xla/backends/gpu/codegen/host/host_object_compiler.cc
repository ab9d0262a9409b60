#include "xla/backends/gpu/codegen/host/host_object_compiler.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "llvm/ADT/StringMap.h"
#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

constexpr char kTriple[] = "x86_64-unknown-linux-gnu";

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(
    const HostCompileOptions& options) {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) {
    return absl::InternalError(absl::StrCat("LLVM has no x86-64 target: ", error));
  }
  std::string cpu = options.cpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> host_features;
    if (llvm::sys::getHostCPUFeatures(host_features)) {
      std::vector<std::string> list;
      for (const auto& f : host_features) {
        list.push_back(absl::StrCat(f.second ? "+" : "-", f.first().str()));
      }
      std::sort(list.begin(), list.end());
      features = absl::StrJoin(list, ",");
    }
  }
  std::unique_ptr<const llvm::MCSubtargetInfo> probe(
      target->createMCSubtargetInfo(kTriple, cpu, ""));
  const bool known = probe != nullptr && probe->isCPUStringValid(cpu);
  if (!known) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown host CPU '", cpu,
                     "': use an LLVM x86 CPU name (x86-64, x86-64-v2, x86-64-v3, "
                     "skylake-avx512, ...) or \"native\""));
  }
  llvm::TargetOptions target_options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      kTriple, cpu, features, target_options, llvm::Reloc::PIC_, std::nullopt,
      CodeGenOptLevel(options.opt_level)));
  if (machine == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create an x86-64 target machine for ", cpu));
  }
  return machine;
}

absl::StatusOr<std::string> FindLinker(const HostCompileOptions& options) {
  std::string requested = options.linker;
  if (requested.empty()) {
    if (const char* env = std::getenv("XLA_HOST_LINKER"); env != nullptr) requested = env;
  }
  const std::vector<std::string> names =
      requested.empty() ? std::vector<std::string>{"ld.lld-16", "ld.lld", "ld"}
                        : std::vector<std::string>{requested};
  absl::StatusOr<std::string> found = FindTool(names, {});
  if (found.ok()) return found;
  return absl::NotFoundError(absl::StrCat(
      "no linker for host kernels (", found.status().message(),
      "); install lld-16 or binutils, or set XLA_HOST_LINKER to a linker's path"));
}

}  // namespace

const std::vector<std::string>& AllowedHostRuntimeSymbols() {
  static const auto* const kSymbols = new std::vector<std::string>{
      "_GLOBAL_OFFSET_TABLE_",
      "memcpy", "memmove", "memset",
      "acos", "acosf", "asin", "asinf", "atan", "atan2", "atan2f", "atanf", "cbrt", "cbrtf",
      "ceil", "ceilf", "cos", "cosf", "cosh", "coshf", "erf", "erff", "exp", "exp2",
      "exp2f", "expf", "expm1", "expm1f", "floor", "floorf", "fma", "fmaf", "fmax",
      "fmaxf", "fmin", "fminf", "fmod", "fmodf", "ldexp", "ldexpf", "log", "log10",
      "log10f", "log1p", "log1pf", "log2", "log2f", "logf", "nearbyint", "nearbyintf",
      "pow", "powf", "rint", "rintf", "round", "roundeven", "roundevenf", "roundf", "sin",
      "sincos", "sincosf", "sinf", "sinh", "sinhf", "sqrt", "sqrtf", "tan", "tanf", "tanh",
      "tanhf", "trunc", "truncf"};
  return *kSymbols;
}

namespace {

// Reports phase wall times to options.phase_observer, when set.
class PhaseClock {
 public:
  explicit PhaseClock(const HostCompileOptions& options)
      : observer_(options.phase_observer), start_(absl::Now()) {}
  void Restart() { start_ = absl::Now(); }
  // Reports the time since construction or the last Restart/Finish.
  void Finish(const std::string& phase) {
    const absl::Time now = absl::Now();
    if (observer_) observer_(phase, absl::ToDoubleSeconds(now - start_));
    start_ = now;
  }

 private:
  const std::function<void(const std::string&, double)>& observer_;
  absl::Time start_;
};

}  // namespace

absl::StatusOr<std::string> CompileHostObject(llvm::Module& module,
                                              const HostCompileOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("host opt_level must be 0..3, got ", options.opt_level));
  }
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = MakeTargetMachine(options);
  if (!machine.ok()) return machine.status();
  module.setTargetTriple(kTriple);
  module.setDataLayout((*machine)->createDataLayout());
  PhaseClock clock(options);
  if (absl::Status v = VerifyLlvmModule(module); !v.ok()) return v;
  clock.Finish("llvm_verify");
  if (options.ir_observer) options.ir_observer("before_optimizations", module);
  clock.Restart();
  OptimizeLlvmModule(module, **machine, options.opt_level);
  clock.Finish("llvm_optimize");
  if (options.ir_observer) options.ir_observer("after_optimizations", module);
  clock.Restart();
  absl::StatusOr<std::string> object = EmitMachineCode(module, **machine, llvm::CGFT_ObjectFile);
  clock.Finish("machine_code");
  return object;
}

absl::StatusOr<std::vector<std::string>> UndefinedSymbols(absl::string_view object) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(object.data(), object.size()), "host_kernels.o");
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(buffer);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("not an object file: ", llvm::toString(file.takeError())));
  }
  std::vector<std::string> undefined;
  for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags) return absl::InvalidArgumentError(llvm::toString(flags.takeError()));
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined)) continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name) return absl::InvalidArgumentError(llvm::toString(name.takeError()));
    if (!name->empty()) undefined.push_back(name->str());
  }
  std::sort(undefined.begin(), undefined.end());
  undefined.erase(std::unique(undefined.begin(), undefined.end()), undefined.end());
  return undefined;
}

absl::StatusOr<std::string> LinkHostSharedObject(absl::string_view object,
                                                 const HostCompileOptions& options) {
  absl::StatusOr<std::string> linker = FindLinker(options);
  if (!linker.ok()) return linker.status();
  absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("xla_host_");
  if (!dir.ok()) return dir.status();
  const std::string input = (*dir)->path() + "/kernels.o";
  const std::string output = (*dir)->path() + "/kernels.so";
  if (absl::Status s = WriteFileBytes(input, object); !s.ok()) return s;
  // No build id and no timestamps: the same object links to the same bytes.
  absl::StatusOr<ProcessResult> run =
      RunProcess({*linker, "-shared", "--build-id=none", "-z", "noexecstack", "-z", "now",
                  "--hash-style=both", "-o", output, input});
  if (!run.ok()) return run.status();
  if (run->exit_code != 0) {
    return absl::InternalError(absl::StrCat("linking host kernels with ", *linker,
                                            " failed (exit ", run->exit_code, "): ", run->output));
  }
  return ReadFileBytes(output);
}

absl::StatusOr<std::string> CompileHostSharedObject(llvm::Module& module,
                                                    const HostCompileOptions& options) {
  absl::StatusOr<std::string> object = CompileHostObject(module, options);
  if (!object.ok()) return object.status();
  PhaseClock clock(options);
  absl::StatusOr<std::vector<std::string>> undefined = UndefinedSymbols(*object);
  clock.Finish("undefined_symbols");
  if (!undefined.ok()) return undefined.status();
  const std::vector<std::string>& allowed = AllowedHostRuntimeSymbols();
  std::vector<std::string> foreign;
  for (const std::string& name : *undefined) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) foreign.push_back(name);
  }
  if (!foreign.empty()) {
    return absl::InternalError(absl::StrCat(
        "host kernel module '", module.getName().str(), "' needs symbols outside the C runtime: ",
        absl::StrJoin(foreign, ", "),
        " (the emitter produced a call the runtime cannot resolve; this is a compiler bug)"));
  }
  absl::StatusOr<std::string> so = LinkHostSharedObject(*object, options);
  clock.Finish("link");
  return so;
}

}  // namespace xla::gpu
