#include "xla/backends/gpu/codegen/host/host_object_compiler.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "xla/backends/gpu/codegen/host/host_module_split.h"
#include "xla/backends/gpu/codegen/host/lld_link.h"
#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/stream_executor/host/host_object_check.h"
#include "xla/util/parallel_for.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

constexpr char kTriple[] = "x86_64-unknown-linux-gnu";

// The code generator's level: options.machine_code_level, or opt_level.
int MachineCodeLevel(const HostCompileOptions& options) {
  return options.machine_code_level >= 0 ? options.machine_code_level : options.opt_level;
}

// The host pipeline: LLVM's default with the SLP vectorizer (the lane
// reductions of lane_reduce_ir.h become vector instructions through it).
void OptimizeHostModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  OptimizeLlvmModule(module, machine, opt_level, /*slp_vectorize=*/true);
}

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
      CodeGenOptLevel(MachineCodeLevel(options))));
  if (machine == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create an x86-64 target machine for ", cpu));
  }
  return machine;
}

// The external linker requested by options.linker or $XLA_HOST_LINKER;
// empty when neither is set (lld links in this process).
std::string RequestedLinker(const HostCompileOptions& options) {
  if (!options.linker.empty()) return options.linker;
  const char* env = std::getenv("XLA_HOST_LINKER");
  return env == nullptr ? std::string() : std::string(env);
}

// The path of the requested external linker, found on PATH when it is a
// bare name.
absl::StatusOr<std::string> FindLinker(const std::string& requested) {
  absl::StatusOr<std::string> found = FindTool({requested}, {});
  if (found.ok()) return found;
  return absl::NotFoundError(absl::StrCat(
      "no linker for host kernels (", found.status().message(),
      "); install it, or unset XLA_HOST_LINKER to link with lld inside the compiler"));
}

}  // namespace

MachineCodeOptions HostMachineCodeOptions(int opt_level) {
  MachineCodeOptions options;
  options.loop_strength_reduction = opt_level <= 1;
  return options;
}

absl::StatusOr<std::vector<std::string>> HostCpuFeaturesOf(const HostCompileOptions& options) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = MakeTargetMachine(options);
  if (!machine.ok()) return machine.status();
  const llvm::MCSubtargetInfo* info = (*machine)->getMCSubtargetInfo();
  std::vector<std::string> used;
  for (const std::string& name : stream_executor::host::KnownCpuFeatures()) {
    if (info->checkFeatures("+" + name)) used.push_back(name);
  }
  return used;
}

const std::vector<std::string>& AllowedHostRuntimeSymbols() {
  static const auto* const kSymbols = new std::vector<std::string>{
      "_GLOBAL_OFFSET_TABLE_",
      "memcpy", "memmove", "memset",
      "malloc", "free",  // sort kernels' scratch lines too long for the stack
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

// The steps every compile starts with: checks the options, makes the
// target machine, sets the module's triple and data layout, verifies the
// module (timed as "llvm_verify") and shows it to the IR observer.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> PrepareModule(
    llvm::Module& module, const HostCompileOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("host opt_level must be 0..3, got ", options.opt_level));
  }
  if (options.machine_code_level > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host machine_code_level must be 0..3 (or negative: opt_level), got ",
        options.machine_code_level));
  }
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = MakeTargetMachine(options);
  if (!machine.ok()) return machine.status();
  module.setTargetTriple(kTriple);
  module.setDataLayout((*machine)->createDataLayout());
  PhaseClock clock(options);
  if (absl::Status v = VerifyLlvmModule(module); !v.ok()) return v;
  clock.Finish("llvm_verify");
  if (options.ir_observer) options.ir_observer("before_optimizations", module);
  return machine;
}

}  // namespace

namespace {

// `module` as bitcode, use-list order kept (a copy compiles exactly like
// the original).
std::string ModuleBitcode(const llvm::Module& module) {
  std::string bitcode;
  llvm::raw_string_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(module, stream, /*ShouldPreserveUseListOrder=*/true);
  stream.flush();
  return bitcode;
}

// Machine code for `cpu` from `bitcode` (an optimized module), parsed into
// a context of its own.
absl::StatusOr<std::string> EmitCopyForCpu(const std::string& bitcode, const std::string& name,
                                           HostCompileOptions options, const std::string& cpu) {
  options.cpu = cpu;
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), name), context);
  if (!module) return absl::InternalError(llvm::toString(module.takeError()));
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = MakeTargetMachine(options);
  if (!machine.ok()) return machine.status();
  return EmitMachineCode(**module, **machine, llvm::CGFT_ObjectFile,
                         HostMachineCodeOptions(MachineCodeLevel(options)));
}

// Machine code for options.cpu from the optimized `module` (with
// `machine`), then for each of `extra_cpus` from a bitcode copy of the same
// optimized module; the copies are taken before code generation changes
// `module` and compile on helper threads unless options.threads is 1 (the
// bytes are the same either way). Objects in order: options.cpu's, then
// extra_cpus'. Errors: the first failing CPU's, prefixed with its name when
// it is an extra one.
absl::StatusOr<std::vector<std::string>> EmitObjectsForCpus(
    llvm::Module& module, llvm::TargetMachine& machine, const HostCompileOptions& options,
    const std::vector<std::string>& extra_cpus) {
  std::vector<absl::StatusOr<std::string>> objects(1 + extra_cpus.size(),
                                                   absl::UnknownError("not compiled"));
  const std::string bitcode = extra_cpus.empty() ? std::string() : ModuleBitcode(module);
  const std::string name = module.getModuleIdentifier();
  auto emit_copy = [&](size_t i) {
    objects[i + 1] = EmitCopyForCpu(bitcode, name, options, extra_cpus[i]);
  };
  std::vector<std::thread> helpers;
  for (size_t i = 0; options.threads != 1 && i < extra_cpus.size(); ++i) {
    try {
      helpers.emplace_back(emit_copy, i);
    } catch (const std::system_error&) {
      break;  // the rest compile on this thread
    }
  }
  objects[0] = EmitMachineCode(module, machine, llvm::CGFT_ObjectFile,
                               HostMachineCodeOptions(MachineCodeLevel(options)));
  for (std::thread& helper : helpers) helper.join();
  for (size_t i = helpers.size(); i < extra_cpus.size(); ++i) emit_copy(i);
  std::vector<std::string> result;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (!objects[i].ok()) {
      if (i == 0) return objects[i].status();
      return absl::Status(objects[i].status().code(),
                          absl::StrCat("code generation for host CPU ", extra_cpus[i - 1],
                                       " from the IR optimized for ", options.cpu, ": ",
                                       objects[i].status().message()));
    }
    result.push_back(*std::move(objects[i]));
  }
  return result;
}

// CompileHostObject for options.cpu and each of `extra_cpus` (see
// EmitObjectsForCpus), also writing the optimize and machine-code times
// (all CPUs' code generation together) into `timing` when it is not null.
absl::StatusOr<std::vector<std::string>> CompileWholeModule(
    llvm::Module& module, const HostCompileOptions& options, HostPartTiming* timing,
    const std::vector<std::string>& extra_cpus) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = PrepareModule(module, options);
  if (!machine.ok()) return machine.status();
  absl::Time start = absl::Now();
  OptimizeHostModule(module, **machine, options.opt_level);
  const double optimize = absl::ToDoubleSeconds(absl::Now() - start);
  if (options.phase_observer) options.phase_observer("llvm_optimize", optimize);
  if (options.ir_observer) options.ir_observer("after_optimizations", module);
  start = absl::Now();
  absl::StatusOr<std::vector<std::string>> object =
      EmitObjectsForCpus(module, **machine, options, extra_cpus);
  const double machine_code = absl::ToDoubleSeconds(absl::Now() - start);
  if (options.phase_observer) options.phase_observer("machine_code", machine_code);
  if (timing != nullptr) {
    timing->optimize_seconds = optimize;
    timing->machine_code_seconds = machine_code;
  }
  return object;
}

// The whole module as part 0: every root with its instructions (counted
// before LLVM optimizes the module in place).
HostPartTiming WholeModulePart(const llvm::Module& module) {
  HostPartTiming part;
  for (auto& [root, instructions] : HostModuleRoots(module)) {
    part.roots.push_back(std::move(root));
    part.root_instructions.push_back(instructions);
  }
  return part;
}

}  // namespace

absl::StatusOr<std::string> CompileHostObject(llvm::Module& module,
                                              const HostCompileOptions& options) {
  absl::StatusOr<std::vector<std::string>> objects =
      CompileWholeModule(module, options, nullptr, {});
  if (!objects.ok()) return objects.status();
  return std::move(objects->front());
}

namespace {

int64_t KernelCount(const llvm::Module& module) {
  int64_t n = 0;
  for (const llvm::Function& f : module) n += !f.isDeclaration() && !f.hasLocalLinkage();
  return n;
}

// The result of compiling one part on a worker thread: its object per CPU
// (options.cpu's, then the extra CPUs').
struct PartResult {
  absl::StatusOr<std::vector<std::string>> object = absl::UnknownError("part was not compiled");
  double optimize_seconds = 0;
  double machine_code_seconds = 0;
};

// Parses, optimizes and compiles one part in its own LLVMContext, for
// options.cpu and each of `extra_cpus` (EmitObjectsForCpus).
PartResult CompilePart(const HostModulePart& part, int index, const HostCompileOptions& options,
                       const std::vector<std::string>& extra_cpus, std::mutex* observer_mu) {
  PartResult result;
  auto fail = [&](const absl::Status& s) {
    result.object = absl::Status(
        s.code(), absl::StrCat("host kernel part ", index, " (",
                               part.roots.empty() ? std::string("no kernels") : part.roots.front(),
                               ", ...): ", s.message()));
    return result;
  };
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(part.bitcode.data(), part.bitcode.size()),
                            absl::StrCat("part_", index)),
      context);
  if (!module) return fail(absl::InternalError(llvm::toString(module.takeError())));
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = MakeTargetMachine(options);
  if (!machine.ok()) return fail(machine.status());
  absl::Time start = absl::Now();
  OptimizeHostModule(**module, **machine, options.opt_level);
  result.optimize_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (options.ir_observer) {
    std::lock_guard<std::mutex> lock(*observer_mu);
    options.ir_observer("after_optimizations", **module);
  }
  start = absl::Now();
  absl::StatusOr<std::vector<std::string>> object =
      EmitObjectsForCpus(**module, **machine, options, extra_cpus);
  result.machine_code_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (!object.ok()) return fail(object.status());
  result.object = std::move(*object);
  return result;
}

}  // namespace

namespace {

// CompileHostObjects for options.cpu and each of `extra_cpus` (code
// generation only, from the same optimized parts): objects[cpu][part].
absl::StatusOr<std::vector<std::vector<std::string>>> CompileObjectsForCpus(
    llvm::Module& module, const HostCompileOptions& options,
    const std::vector<std::string>& extra_cpus) {
  if (options.parts < 0 || options.threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat("host parts and threads must be >= 0, got ",
                                                   options.parts, " and ", options.threads));
  }
  const int parts = options.parts > 0
                        ? options.parts
                        : AutomaticHostPartCount(module, kHostInstructionsPerPart, kMaxHostParts);
  const int64_t kernels = KernelCount(module);
  if (parts <= 1 || kernels <= 1) {
    std::optional<HostPartTiming> timing;
    if (options.part_observer) timing = WholeModulePart(module);
    absl::StatusOr<std::vector<std::string>> object =
        CompileWholeModule(module, options, timing ? &*timing : nullptr, extra_cpus);
    if (!object.ok()) return object.status();
    if (options.kernel_progress) options.kernel_progress(kernels, kernels);
    if (timing) options.part_observer(*timing);
    std::vector<std::vector<std::string>> per_cpu;
    for (std::string& o : *object) per_cpu.push_back({std::move(o)});
    return per_cpu;
  }
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine = PrepareModule(module, options);
  if (!machine.ok()) return machine.status();
  PhaseClock clock(options);
  clock.Restart();
  absl::StatusOr<std::vector<HostModulePart>> split = SplitHostModule(module, parts);
  if (!split.ok()) return split.status();
  clock.Finish("llvm_split");

  const int threads = ThreadCount(options.threads, kMaxHostCompileThreads);
  // Largest parts first, so that the last part to start is a small one.
  std::vector<size_t> order(split->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return (*split)[a].instructions > (*split)[b].instructions;
  });
  std::vector<PartResult> results(split->size());
  std::mutex mu;  // serializes the observers and guards `done`
  int64_t done = 0;
  clock.Restart();
  ParallelForEach(static_cast<int64_t>(order.size()), threads, [&](int64_t k) {
    const size_t i = order[k];
    results[i] = CompilePart((*split)[i], static_cast<int>(i), options, extra_cpus, &mu);
    std::lock_guard<std::mutex> lock(mu);
    done += static_cast<int64_t>((*split)[i].roots.size());
    if (options.kernel_progress) options.kernel_progress(std::min(done, kernels), kernels);
  });
  double optimize = 0, machine_code = 0;
  std::vector<std::vector<std::string>> objects(1 + extra_cpus.size());
  for (PartResult& r : results) {
    if (!r.object.ok()) return r.object.status();
    optimize += r.optimize_seconds;
    machine_code += r.machine_code_seconds;
    for (size_t c = 0; c < objects.size(); ++c) objects[c].push_back(std::move((*r.object)[c]));
  }
  for (size_t i = 0; options.part_observer && i < results.size(); ++i) {
    const HostModulePart& part = (*split)[i];
    options.part_observer(HostPartTiming{static_cast<int>(i), part.roots,
                                         part.root_instructions, results[i].optimize_seconds,
                                         results[i].machine_code_seconds});
  }
  if (options.phase_observer) {
    options.phase_observer("llvm_optimize", optimize);
    options.phase_observer("machine_code", machine_code);
  }
  clock.Finish("llvm_parallel_wall");
  return objects;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> CompileHostObjects(llvm::Module& module,
                                                            const HostCompileOptions& options) {
  absl::StatusOr<std::vector<std::vector<std::string>>> objects =
      CompileObjectsForCpus(module, options, {});
  if (!objects.ok()) return objects.status();
  return std::move(objects->front());
}

namespace {

// The undefined (`undefined` true) or defined global symbols of an object.
absl::StatusOr<std::vector<std::string>> ObjectSymbols(absl::string_view object, bool undefined) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(object.data(), object.size()), "host_kernels.o");
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(buffer);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("not an object file: ", llvm::toString(file.takeError())));
  }
  std::vector<std::string> names;
  for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags) return absl::InvalidArgumentError(llvm::toString(flags.takeError()));
    const bool is_undefined = (*flags & llvm::object::SymbolRef::SF_Undefined) != 0;
    if (is_undefined != undefined) continue;
    if (!undefined && !(*flags & llvm::object::SymbolRef::SF_Global)) continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name) return absl::InvalidArgumentError(llvm::toString(name.takeError()));
    if (!name->empty()) names.push_back(name->str());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> UndefinedSymbols(absl::string_view object) {
  return ObjectSymbols(object, /*undefined=*/true);
}

absl::StatusOr<std::string> LinkHostSharedObject(absl::string_view object,
                                                 const HostCompileOptions& options) {
  return LinkHostSharedObjects({std::string(object)}, options);
}

namespace {

// Runs the external `linker` (a path, or a name looked up on PATH) with
// `arguments`.
absl::Status LinkExternally(const std::string& linker, const std::vector<std::string>& arguments) {
  absl::StatusOr<std::string> path = FindLinker(linker);
  if (!path.ok()) return path.status();
  std::vector<std::string> command = {*path};
  command.insert(command.end(), arguments.begin(), arguments.end());
  absl::StatusOr<ProcessResult> run = RunProcess(command);
  if (!run.ok()) return run.status();
  if (run->exit_code == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("linking host kernels with ", *path, " failed (exit ",
                                          run->exit_code, "): ", run->output));
}

}  // namespace

absl::StatusOr<std::string> LinkHostSharedObjects(const std::vector<std::string>& objects,
                                                  const HostCompileOptions& options) {
  absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("xla_host_");
  if (!dir.ok()) return dir.status();
  const std::string output = (*dir)->path() + "/kernels.so";
  // No build id and no timestamps: the same objects link to the same bytes.
  // The same arguments in process and for an external linker.
  std::vector<std::string> arguments = {"-shared", "--build-id=none", "-z", "noexecstack",
                                        "-z", "now", "--hash-style=both", "-o", output};
  for (size_t i = 0; i < objects.size(); ++i) {
    // One name for a single object keeps the historical bytes.
    const std::string input = objects.size() == 1
                                  ? (*dir)->path() + "/kernels.o"
                                  : absl::StrCat((*dir)->path(), "/kernels_", i, ".o");
    if (absl::Status s = WriteFileBytes(input, objects[i]); !s.ok()) return s;
    arguments.push_back(input);
  }
  const std::string linker = RequestedLinker(options);
  if (!linker.empty()) {
    if (absl::Status s = LinkExternally(linker, arguments); !s.ok()) return s;
    return ReadFileBytes(output);
  }
  if (absl::Status s = LinkElfInProcess(arguments); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("linking host kernels: ", s.message()));
  }
  return ReadFileBytes(output);
}

namespace {

// The undefined-symbol check over `objects` (one CPU's parts of the module
// named `module_name`), the link, and the loadability check.
absl::StatusOr<std::string> LinkCheckedSharedObject(const std::vector<std::string>* objects,
                                                    const std::string& module_name,
                                                    const HostCompileOptions& options) {
  PhaseClock clock(options);
  std::vector<std::string> undefined;
  std::vector<std::string> defined;
  for (const std::string& object : *objects) {
    absl::StatusOr<std::vector<std::string>> u = ObjectSymbols(object, /*undefined=*/true);
    if (!u.ok()) return u.status();
    undefined.insert(undefined.end(), u->begin(), u->end());
    if (objects->size() == 1) continue;
    absl::StatusOr<std::vector<std::string>> d = ObjectSymbols(object, /*undefined=*/false);
    if (!d.ok()) return d.status();
    defined.insert(defined.end(), d->begin(), d->end());
  }
  clock.Finish("undefined_symbols");
  std::sort(defined.begin(), defined.end());
  std::sort(undefined.begin(), undefined.end());
  undefined.erase(std::unique(undefined.begin(), undefined.end()), undefined.end());
  const std::vector<std::string>& allowed = AllowedHostRuntimeSymbols();
  std::vector<std::string> foreign;
  for (const std::string& name : undefined) {
    if (std::binary_search(defined.begin(), defined.end(), name)) continue;
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) foreign.push_back(name);
  }
  if (!foreign.empty()) {
    return absl::InternalError(absl::StrCat(
        "host kernel module '", module_name, "' needs symbols outside the C runtime: ",
        absl::StrJoin(foreign, ", "),
        " (the emitter produced a call the runtime cannot resolve; this is a compiler bug)"));
  }
  absl::StatusOr<std::string> so = LinkHostSharedObjects(*objects, options);
  clock.Finish("link");
  if (!so.ok()) return so;
  // What the runtime refuses at load is refused here, where the linker can
  // still be changed (a linker other than lld or binutils ld may add crt
  // files, version tables or libraries).
  if (absl::Status loadable = stream_executor::host::CheckHostSharedObject(
          *so, absl::StrCat("host kernel module '", module_name, "'"));
      !loadable.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the linker produced a shared object the runtime would refuse to load: ", loadable.message(),
        " (unset XLA_HOST_LINKER, or set it to ld.lld-16 or binutils ld)"));
  }
  return so;
}

}  // namespace

absl::StatusOr<std::string> CompileHostSharedObject(llvm::Module& module,
                                                    const HostCompileOptions& options) {
  absl::StatusOr<std::vector<std::string>> objects = CompileHostObjects(module, options);
  if (!objects.ok()) return objects.status();
  return LinkCheckedSharedObject(&*objects, module.getName().str(), options);
}

absl::StatusOr<std::vector<std::string>> CompileHostSharedObjectsSharingIr(
    llvm::Module& module, const HostCompileOptions& options,
    const std::vector<std::string>& codegen_cpus) {
  absl::StatusOr<std::vector<std::string>> base = HostCpuFeaturesOf(options);
  if (!base.ok()) return base.status();
  for (const std::string& cpu : codegen_cpus) {
    HostCompileOptions other = options;
    other.cpu = cpu;
    absl::StatusOr<std::vector<std::string>> features = HostCpuFeaturesOf(other);
    if (!features.ok()) return features.status();
    for (const std::string& f : *base) {
      if (std::find(features->begin(), features->end(), f) != features->end()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "host CPU ", cpu, " cannot run code optimized for ", options.cpu, ": it lacks ", f,
          " (list only CPUs with every extension of ", options.cpu, ")"));
    }
  }
  const std::string name = module.getName().str();
  absl::StatusOr<std::vector<std::vector<std::string>>> objects =
      CompileObjectsForCpus(module, options, codegen_cpus);
  if (!objects.ok()) return objects.status();
  std::vector<std::string> result;
  for (size_t c = 0; c < objects->size(); ++c) {
    HostCompileOptions quiet = options;
    if (c > 0) quiet.phase_observer = nullptr;
    absl::StatusOr<std::string> so = LinkCheckedSharedObject(&(*objects)[c], name, quiet);
    if (!so.ok()) return so.status();
    result.push_back(*std::move(so));
  }
  return result;
}

}  // namespace xla::gpu
