#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"
#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

constexpr char kTriple[] = "nvptx64-nvidia-cuda";

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point begin) {
  return std::chrono::duration<double>(Clock::now() - begin).count();
}

int64_t InstructionCount(const llvm::Module& module) {
  int64_t n = 0;
  for (const llvm::Function& f : module) n += static_cast<int64_t>(f.getInstructionCount());
  return n;
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const NvptxTarget& target,
                                                                       int opt_level) {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (llvm_target == nullptr) {
    return absl::InternalError(absl::StrCat("this LLVM has no NVPTX back end: ", error));
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvm_target->createTargetMachine(
      kTriple, target.name, target.ptx_feature, options, llvm::Reloc::PIC_, std::nullopt,
      CodeGenOptLevel(opt_level)));
  if (machine == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create an NVPTX target machine for ",
                                            target.name));
  }
  return machine;
}

}  // namespace

int64_t KernelParamBytes(const llvm::Function& kernel, const llvm::DataLayout& layout) {
  uint64_t bytes = 0;
  for (const llvm::Argument& arg : kernel.args()) {
    llvm::Type* type = arg.getType();
    bytes = llvm::alignTo(bytes, layout.getABITypeAlign(type)) + layout.getTypeAllocSize(type);
  }
  return static_cast<int64_t>(bytes);
}

absl::Status CheckKernelParamSpace(const llvm::Module& module, const NvptxTarget& target) {
  for (const llvm::Function& f : module) {
    if (f.isDeclaration() || f.getCallingConv() != llvm::CallingConv::PTX_Kernel) continue;
    const int64_t bytes = KernelParamBytes(f, module.getDataLayout());
    if (bytes <= target.max_kernel_param_bytes) continue;
    return absl::InternalError(absl::StrCat(
        "kernel '", f.getName().str(), "' declares ", bytes, " bytes of parameters (", f.arg_size(),
        " parameters), past ", target.name, "'s limit of ", target.max_kernel_param_bytes,
        " bytes for PTX ISA ", target.ptx_version,
        ": ptxas would refuse it; the emitter should have passed its buffers through an argument "
        "table (a compiler bug)"));
  }
  return absl::OkStatus();
}

std::string RenumberCallSequences(absl::string_view ptx) {
  constexpr absl::string_view kMarker = "// callseq ";
  std::string out;
  out.reserve(ptx.size());
  std::map<absl::string_view, int> numbers;  // LLVM's number -> ours
  size_t pos = 0;
  while (true) {
    const size_t at = ptx.find(kMarker, pos);
    if (at == absl::string_view::npos) break;
    size_t end = at + kMarker.size();
    while (end < ptx.size() && std::isdigit(static_cast<unsigned char>(ptx[end]))) ++end;
    const absl::string_view digits = ptx.substr(at + kMarker.size(), end - at - kMarker.size());
    absl::StrAppend(&out, ptx.substr(pos, at + kMarker.size() - pos));
    if (!digits.empty()) {
      const int next = static_cast<int>(numbers.size());
      absl::StrAppend(&out, numbers.emplace(digits, next).first->second);
    }
    pos = end;
  }
  absl::StrAppend(&out, ptx.substr(pos));
  return out;
}

absl::StatusOr<std::string> CompileToPtx(llvm::Module& module, const NvptxTarget& target,
                                         int opt_level, NvptxCompileTimes* times) {
  const Clock::time_point begin = Clock::now();
  const int64_t instructions = times != nullptr ? InstructionCount(module) : 0;
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      MakeTargetMachine(target, opt_level);
  if (!machine.ok()) return machine.status();
  module.setTargetTriple(kTriple);
  module.setDataLayout((*machine)->createDataLayout());
  if (absl::Status space = CheckKernelParamSpace(module, target); !space.ok()) return space;
  // Math from libdevice (__nv_* calls); a no-op when the module uses none.
  if (absl::Status linked = LinkLibdevice(module); !linked.ok()) return linked;
  if (absl::Status v = VerifyLlvmModule(module); !v.ok()) return v;
  OptimizeLlvmModule(module, **machine, opt_level);
  const Clock::time_point optimized = Clock::now();
  absl::StatusOr<std::string> ptx = EmitMachineCode(module, **machine, llvm::CGFT_AssemblyFile);
  if (ptx.ok()) *ptx = RenumberCallSequences(*ptx);
  if (ptx.ok() && times != nullptr) {
    times->llvm_instructions = instructions;
    times->optimize_seconds = std::chrono::duration<double>(optimized - begin).count();
    times->ptx_seconds = SecondsSince(optimized);
  }
  return ptx;
}

absl::StatusOr<std::string> FindPtxas(const NvptxCompileOptions& options) {
  std::vector<std::string> names;
  if (!options.ptxas.empty()) {
    names.push_back(options.ptxas);
  } else if (const char* env = std::getenv("XLA_PTXAS"); env != nullptr && *env != '\0') {
    names.push_back(env);
  } else {
    names.push_back("ptxas");
  }
  std::vector<std::string> dirs;
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda != nullptr && *cuda != '\0') {
    dirs.push_back(absl::StrCat(cuda, "/bin"));
  }
  dirs.push_back("/usr/local/cuda/bin");
  absl::StatusOr<std::string> found = FindTool(names, dirs);
  if (found.ok()) return found;
  return absl::NotFoundError(absl::StrCat(
      "no ptxas (", found.status().message(),
      "); install the CUDA toolkit, or set XLA_PTXAS or CUDA_HOME; the artifact keeps PTX only"));
}

absl::StatusOr<std::string> PtxasVersion(const std::string& ptxas) {
  absl::StatusOr<ProcessResult> run = RunProcess({ptxas, "--version"});
  if (!run.ok()) return run.status();
  // "... Cuda compilation tools, release 13.0, V13.0.88"
  const size_t v = run->output.rfind(", V");
  if (run->exit_code != 0 || v == std::string::npos) {
    return absl::InternalError(absl::StrCat("cannot read the version of ", ptxas, ": ",
                                            run->output));
  }
  size_t end = v + 3;
  while (end < run->output.size() &&
         (std::isdigit(static_cast<unsigned char>(run->output[end])) || run->output[end] == '.')) {
    ++end;
  }
  return run->output.substr(v + 3, end - v - 3);
}

absl::StatusOr<std::string> AssemblePtx(absl::string_view ptx, const NvptxTarget& target,
                                        const std::string& ptxas) {
  absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("xla_ptxas_");
  if (!dir.ok()) return dir.status();
  const std::string input = (*dir)->path() + "/kernels.ptx";
  const std::string output = (*dir)->path() + "/kernels.cubin";
  if (absl::Status s = WriteFileBytes(input, ptx); !s.ok()) return s;
  absl::StatusOr<ProcessResult> run =
      RunProcess({ptxas, absl::StrCat("-arch=", target.name), "-O3", input, "-o", output});
  if (!run.ok()) return run.status();
  if (run->exit_code != 0) {
    return absl::InternalError(absl::StrCat(ptxas, " rejected the PTX for ", target.name,
                                            " (exit ", run->exit_code, "): ", run->output));
  }
  return ReadFileBytes(output);
}

namespace {

// PtxasVersion, run once per ptxas path in this process (CompileNvptx runs
// once per kernel). Thread-safe.
absl::StatusOr<std::string> CachedPtxasVersion(const std::string& ptxas) {
  static std::mutex* const mu = new std::mutex;
  static auto* const versions = new std::map<std::string, absl::StatusOr<std::string>>;
  std::lock_guard<std::mutex> lock(*mu);
  auto it = versions->find(ptxas);
  if (it == versions->end()) it = versions->emplace(ptxas, PtxasVersion(ptxas)).first;
  return it->second;
}

}  // namespace

absl::StatusOr<NvptxBinary> CompileNvptx(llvm::Module& module, const NvptxTarget& target,
                                         const NvptxCompileOptions& options) {
  NvptxBinary binary;
  absl::StatusOr<std::string> ptx = CompileToPtx(module, target, options.opt_level, &binary.times);
  if (!ptx.ok()) return ptx.status();
  binary.ptx = std::move(*ptx);
  if (!options.make_cubin) {
    binary.cubin_skipped_reason = "cubin not requested";
    return binary;
  }
  absl::StatusOr<std::string> ptxas = FindPtxas(options);
  if (!ptxas.ok()) {
    binary.cubin_skipped_reason = std::string(ptxas.status().message());
    return binary;
  }
  absl::StatusOr<std::string> version = CachedPtxasVersion(*ptxas);
  if (!version.ok()) return version.status();
  binary.ptxas_version = *version;
  const Clock::time_point assemble = Clock::now();
  absl::StatusOr<std::string> cubin = AssemblePtx(binary.ptx, target, *ptxas);
  if (!cubin.ok()) return cubin.status();
  binary.times.ptxas_seconds = SecondsSince(assemble);
  binary.cubin = std::move(*cubin);
  return binary;
}

}  // namespace xla::gpu
