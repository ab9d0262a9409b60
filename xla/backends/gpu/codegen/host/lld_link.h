// Linking ELF files inside the compiler's process with lld's library
// (liblldELF from liblld-16-dev), instead of starting an `ld.lld-16`
// process that loads libLLVM-16 all over again.
//
// The library is the same code as the ld.lld-16 binary of the same LLVM
// release, so the same arguments give the same output bytes (the host
// object compiler's test links the same objects both ways and compares).
//
// lld is not re-entrant: it keeps its state in globals. LinkElfInProcess
// therefore runs one link at a time on a process-wide mutex, and clears
// lld's state (lld::CommonLinkerContext::destroy) after every link, failed
// or not. It never exits the process: lld's errors, including its fatal
// ones, come back as a Status that carries lld's own diagnostics.
//
// Compiler-side only: the runtime never links anything.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_LLD_LINK_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_LLD_LINK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace xla::gpu {

// Runs lld's ELF driver in this process as `ld.lld ARGS...` would run
// (`args` exclude the program name): input files are read from, and the
// output written to, the paths the arguments name.
//
// Errors: InternalError when lld reports an error, with lld's messages
// (what it printed on stderr and stdout) in the status message; the
// output file is then not written. A fatal lld error (a malformed input
// object) also comes back as an error, and later calls still work. If lld
// crashes (a signal on the calling thread), the call fails and every later
// call fails at once with FailedPrecondition, since lld's state can no
// longer be trusted: the message says to set XLA_HOST_LINKER to an
// external linker.
//
// Thread-safety: thread-safe; calls from several threads run one after
// the other (a process-wide mutex), each using lld's own worker threads.
// While a link runs, LLVM's crash recovery is enabled process-wide (LLVM's
// signal handlers are installed, and removed again afterwards).
absl::Status LinkElfInProcess(const std::vector<std::string>& args);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_LLD_LINK_H_
