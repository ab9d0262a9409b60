// getPollyPluginInfo() for links against LLVM's static libraries.
//
// Debian builds LLVM 16 with Polly linked into its tools, so libLLVMLTO.a's
// LTO pipeline (reached only when lld is given LLVM bitcode, which the host
// object compiler never does: it links ELF objects) registers Polly's passes
// through this function. Debian ships Polly only inside libLLVM-16.so and as
// a plugin, not as a static library, so a static link needs the definition
// from elsewhere. This one says what is true of such a binary: Polly is not
// in it, and it adds no passes.
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked in)", "none",
          [](llvm::PassBuilder&) {}};
}
