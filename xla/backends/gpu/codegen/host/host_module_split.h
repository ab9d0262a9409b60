// Splits a host kernel module into parts that LLVM can optimize and compile
// independently (each in its own LLVMContext, on its own thread), so that
// the parts' objects, linked together, equal the whole module's behaviour.
//
// A part holds the definitions of its "roots" (the module's definitions
// with non-local linkage: the kernel entry points, and any non-local global
// variable) and of every local (internal/private) function or global
// variable they reach, transitively: such helpers (a kernel's `_impl`
// function, `constant.*` arrays) are duplicated into every part that uses
// them, which is correct because local symbols are never shared between
// objects. Every other global value is left as a declaration (an external
// symbol the linker resolves from the part that defines it).
//
// Roots are balanced by instruction count (their own plus the local values
// they reach): largest first, each to the lightest part so far, ties to
// the lowest part index. Within a part, definitions keep the module's
// order. The result depends only on the module and `parts`, never on
// threads or timing, so compiling the parts gives the same bytes every run.
//
// Thread-safety: SplitHostModule reads `module` (and creates constants in
// its LLVMContext while cloning): no other thread may use that context
// during the call.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_MODULE_SPLIT_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_MODULE_SPLIT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"

namespace xla::gpu {

// One part of a split module.
struct HostModulePart {
  // The part as LLVM bitcode: parse it into the compiling thread's own
  // LLVMContext (llvm::parseBitcodeFile).
  std::string bitcode;
  // The non-local definitions (kernels) this part defines, in module order.
  std::vector<std::string> roots;
  // Per root (parallel to `roots`): the instructions of the root and of the
  // local definitions it reaches (what the split balances on).
  std::vector<int64_t> root_instructions;
  // Instructions in the part's definitions (duplicated helpers included).
  int64_t instructions = 0;
};

// The module's roots (non-local definitions: the kernels) in module order,
// each with the instructions of the root and the local definitions it
// reaches, as SplitHostModule counts them.
std::vector<std::pair<std::string, int64_t>> HostModuleRoots(const llvm::Module& module);

// Instructions in the module's function definitions.
int64_t CountLlvmInstructions(const llvm::Module& module);

// The part count used when the caller does not choose one: one part per
// `instructions_per_part` instructions (rounded up), between 1 and
// `max_parts`, and never more than the module's root definitions.
int AutomaticHostPartCount(const llvm::Module& module, int64_t instructions_per_part,
                           int max_parts);

// Splits `module` into min(`parts`, number of roots) parts (at least one),
// in part order. Errors: InvalidArgument when `parts` < 1.
absl::StatusOr<std::vector<HostModulePart>> SplitHostModule(const llvm::Module& module,
                                                            int parts);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_MODULE_SPLIT_H_
