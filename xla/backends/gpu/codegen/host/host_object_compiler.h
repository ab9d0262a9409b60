// Host object code: an LLVM module of host kernels -> optimized x86-64 object
// code -> an ELF shared object, returned as bytes for the artifact.
//
// The shared object follows xla/stream_executor/host/host_kernel_abi.h: the
// runtime loads it from memory, so it must not need any library other than
// the C runtime. CompileHostSharedObject checks this: every undefined symbol
// of the object must be on a short allow-list of libc/libm functions that
// LLVM may call (memcpy, memset, expf, ...); anything else is an error that
// names the symbol.
//
// Large modules are compiled in parallel: CompileHostObjects splits the
// module into parts (host_module_split.h), optimizes and compiles each part
// in its own LLVMContext on a worker thread, and the linker joins the parts'
// objects. The number of parts depends only on the module (or on
// HostCompileOptions::parts), never on the thread count, so the shared
// object's bytes are the same for any HostCompileOptions::threads.
//
// Linking runs lld's ELF linker inside this process (lld_link.h: the same
// bytes as `ld.lld-16` with the same arguments, without a second process
// that loads libLLVM-16 again); links are serialized process-wide, since
// lld is not re-entrant. HostCompileOptions::linker or XLA_HOST_LINKER
// names an external linker to run instead (ld.lld-16, binutils ld, ...).
// The objects and the linked output live in a private temporary directory
// that is removed before the call returns, whether it succeeds or fails.
//
// Thread-safety: the functions are thread-safe; each call uses its own
// TargetMachine and temporary directory. The llvm::Module passed in must not
// be used by another thread during the call.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_OBJECT_COMPILER_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_OBJECT_COMPILER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"

namespace xla::gpu {

// The LLVM work of one part of a module (host_module_split.h): which kernels
// it compiled and how long its optimization and its code generation took.
struct HostPartTiming {
  int index = 0;  // the part's number (0 when the module is compiled whole)
  // The part's roots (kernel symbols, and any non-local variable), and per
  // root the LLVM instructions of the root and the helpers it reaches.
  std::vector<std::string> roots;
  std::vector<int64_t> root_instructions;
  double optimize_seconds = 0;      // LLVM's optimization pipeline
  double machine_code_seconds = 0;  // code generation to an object
};

struct HostCompileOptions {
  // LLVM optimization level, 0 to 3: LLVM's default module pipeline, with
  // the SLP vectorizer enabled from 2 on (as clang does).
  int opt_level = 3;
  // The code generator's level, 0 to 3 (0: LLVM's fast instruction
  // selector and register allocator, several times faster than 1, for code
  // with more spills); negative: opt_level.
  int machine_code_level = -1;
  // The CPU the code may assume. The default is the x86-64-v2 baseline, so an
  // artifact runs on any x86-64 server of the last decade; "native" means
  // the compiling machine's CPU (features included).
  std::string cpu = "x86-64-v2";
  // External linker to run (a path, or a name found on PATH); empty means
  // $XLA_HOST_LINKER, and when that is unset or empty too, lld's library
  // inside this process.
  std::string linker;
  // Parts the module is split into for parallel compilation; 0: automatic
  // (one part per kHostInstructionsPerPart LLVM instructions, at most
  // kMaxHostParts, at most one per kernel). The bytes depend on this value.
  int parts = 0;
  // Worker threads compiling parts at once; 0: the hardware threads (at most
  // kMaxHostCompileThreads). The bytes do not depend on this value.
  int threads = 0;
  // When set, called with (kernels compiled, kernels in the module) each
  // time a part finishes (the last call has done == total). Calls are
  // serialized but may come from worker threads.
  std::function<void(int64_t done, int64_t total)> kernel_progress;
  // When set, called with the module before LLVM's optimizations
  // ("before_optimizations") and after them ("after_optimizations"), e.g. to
  // dump the IR. With several parts, "after_optimizations" is called once
  // per part (in no fixed order) on worker threads; calls are serialized.
  std::function<void(const std::string& stage, const llvm::Module& module)> ir_observer;
  // When set, called once per finished phase with its wall time:
  // "llvm_verify", "llvm_optimize", "machine_code" (CompileHostObject),
  // "undefined_symbols" and "link" (CompileHostSharedObject). With several
  // parts (CompileHostObjects) the phases are "llvm_verify", "llvm_split",
  // then "llvm_optimize" and "machine_code" as the sum of the workers'
  // times, then "llvm_parallel_wall", the wall time of the parallel section.
  // Called on the compiling thread.
  std::function<void(const std::string& phase, double seconds)> phase_observer;
  // When set, called once per compiled part, in part order, after the
  // parts are compiled (CompileHostObjects; a module compiled whole is part
  // 0 with every root). The parts' optimize and machine-code times add up
  // to the "llvm_optimize" and "machine_code" phases. Called on the
  // compiling thread. Unset, nothing is counted for it.
  std::function<void(const HostPartTiming& part)> part_observer;
};

// The code generator's optional passes for a host build at `opt_level`
// (HostCompileOptions::opt_level): loop strength reduction runs at levels 0
// and 1 only. At 2 and 3 the loop and SLP vectorizers leave loops with many
// address uses, on which LSR's search took about 40 % of the code
// generator's time (MobileNet v2's kernels) for code 4 % smaller; at 1,
// without the vectorizers, it costs under 10 % and leaving it out made the
// code 23 % larger (docs/perf.md, branch ctime5). Pure; thread-safe.
MachineCodeOptions HostMachineCodeOptions(int opt_level);

// The optimized object file (ELF relocatable) for `module`. Sets the module's
// target triple and data layout. Errors: an invalid module (the verifier's
// message), an unknown CPU, or an LLVM target that cannot emit objects.
absl::StatusOr<std::string> CompileHostObject(llvm::Module& module,
                                              const HostCompileOptions& options);

// Automatic partitioning: the target size of a part, and the caps. LLVM
// spends about 1 ms of one core per IR instruction of emitted kernels at O3
// (bench_mass_matrix_35: 9.4k instructions, 208 kernels), so 1000
// instructions make parts of about a second: large enough that per-part
// setup (a context, a TargetMachine, the pass pipeline) stays under 1%.
inline constexpr int64_t kHostInstructionsPerPart = 1000;
inline constexpr int kMaxHostParts = 32;
inline constexpr int kMaxHostCompileThreads = 16;

// The module's objects, one per part (see HostCompileOptions::parts), in
// part order; one object (CompileHostObject's) when the module makes one
// part. Sets the module's target triple and data layout. Errors: those of
// CompileHostObject, and a part's error prefixed with its number and first
// kernel.
absl::StatusOr<std::vector<std::string>> CompileHostObjects(llvm::Module& module,
                                                            const HostCompileOptions& options);

// The undefined symbols of an ELF relocatable object, sorted. Errors: bytes
// that are not an object file LLVM can read.
absl::StatusOr<std::vector<std::string>> UndefinedSymbols(absl::string_view object);

// Links `object` into a shared object and returns its bytes. Errors: the
// requested external linker is not found (the message says what to do),
// the linker failed (lld's or the external linker's output is included),
// or the temporary directory could not be created.
absl::StatusOr<std::string> LinkHostSharedObject(absl::string_view object,
                                                 const HostCompileOptions& options);

// LinkHostSharedObject for several objects, linked in the given order.
absl::StatusOr<std::string> LinkHostSharedObjects(const std::vector<std::string>& objects,
                                                  const HostCompileOptions& options);

// CompileHostObjects, the undefined-symbol check (a symbol one part leaves
// undefined may be defined by another), then LinkHostSharedObjects.
absl::StatusOr<std::string> CompileHostSharedObject(llvm::Module& module,
                                                    const HostCompileOptions& options);

// CompileHostSharedObject for options.cpu, plus one shared object per CPU
// of `codegen_cpus` whose code is generated from the same IR, optimized
// once for options.cpu (LLVM's optimization is about a third of a build;
// only the code generator runs again per CPU). Each CPU must have every
// extension of options.cpu, so the optimized IR is legal for it; it then
// gets its own instruction selection, registers and encodings (AVX-512's
// 32 vector registers and mask compares for x86-64-v4), not its own
// vectorization choices. Each extra CPU's code generation runs on a helper
// thread beside options.cpu's unless options.threads is 1; the bytes are
// the same either way. Returns [options.cpu's, codegen_cpus'...]. Errors:
// InvalidArgument for an unknown CPU or one lacking an extension of
// options.cpu (named); else CompileHostSharedObject's, prefixed with the
// CPU for an extra one. Thread-safety: as CompileHostSharedObject.
absl::StatusOr<std::vector<std::string>> CompileHostSharedObjectsSharingIr(
    llvm::Module& module, const HostCompileOptions& options,
    const std::vector<std::string>& codegen_cpus);

// The extensions of stream_executor::host::KnownCpuFeatures() that code
// compiled for options.cpu may use (what the CPU name, or "native"'s
// detected features, enables), in table order; what an artifact records in
// ArtifactHeaderProto.host_cpu_features. Errors: those of creating the
// target machine (an unknown CPU name).
absl::StatusOr<std::vector<std::string>> HostCpuFeaturesOf(const HostCompileOptions& options);

// The libc/libm functions a host kernel object may leave undefined.
const std::vector<std::string>& AllowedHostRuntimeSymbols();

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_OBJECT_COMPILER_H_
