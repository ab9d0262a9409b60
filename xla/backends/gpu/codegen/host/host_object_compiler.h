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
// Linking uses the system linker (ld.lld-16, ld.lld or binutils ld, found on
// PATH or through XLA_HOST_LINKER). The object and the linked output live in
// a private temporary directory that is removed before the call returns,
// whether it succeeds or fails.
//
// Thread-safety: the functions are thread-safe; each call uses its own
// TargetMachine and temporary directory. The llvm::Module passed in must not
// be used by another thread during the call.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_OBJECT_COMPILER_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_OBJECT_COMPILER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/Module.h"

namespace xla::gpu {

struct HostCompileOptions {
  // LLVM optimization level, 0 to 3.
  int opt_level = 3;
  // The CPU the code may assume. The default is the x86-64-v2 baseline, so an
  // artifact runs on any x86-64 server of the last decade; "native" means
  // the compiling machine's CPU (features included).
  std::string cpu = "x86-64-v2";
  // Linker to run; empty means: $XLA_HOST_LINKER, else the first of
  // ld.lld-16, ld.lld, ld found on PATH.
  std::string linker;
  // When set, called with the module before LLVM's optimizations
  // ("before_optimizations") and after them ("after_optimizations"), e.g. to
  // dump the IR. Called on the compiling thread.
  std::function<void(const std::string& stage, const llvm::Module& module)> ir_observer;
  // When set, called once per finished phase with its wall time:
  // "llvm_verify", "llvm_optimize", "machine_code" (CompileHostObject),
  // "undefined_symbols" and "link" (CompileHostSharedObject). Called on the
  // compiling thread.
  std::function<void(const std::string& phase, double seconds)> phase_observer;
};

// The optimized object file (ELF relocatable) for `module`. Sets the module's
// target triple and data layout. Errors: an invalid module (the verifier's
// message), an unknown CPU, or an LLVM target that cannot emit objects.
absl::StatusOr<std::string> CompileHostObject(llvm::Module& module,
                                              const HostCompileOptions& options);

// The undefined symbols of an ELF relocatable object, sorted. Errors: bytes
// that are not an object file LLVM can read.
absl::StatusOr<std::vector<std::string>> UndefinedSymbols(absl::string_view object);

// Links `object` into a shared object and returns its bytes. Errors: no
// linker found (the message says how to install one or set
// XLA_HOST_LINKER), the linker failed (its output is included), or the
// temporary directory could not be created.
absl::StatusOr<std::string> LinkHostSharedObject(absl::string_view object,
                                                 const HostCompileOptions& options);

// CompileHostObject, the undefined-symbol check, then LinkHostSharedObject.
absl::StatusOr<std::string> CompileHostSharedObject(llvm::Module& module,
                                                    const HostCompileOptions& options);

// The libc/libm functions a host kernel object may leave undefined.
const std::vector<std::string>& AllowedHostRuntimeSymbols();

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_OBJECT_COMPILER_H_
