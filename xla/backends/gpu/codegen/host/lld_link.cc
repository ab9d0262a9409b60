#include "xla/backends/gpu/codegen/host/lld_link.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

namespace xla::gpu {
namespace {

// lld's globals, and whether a crash inside lld left them unusable.
struct LldState {
  std::mutex mu;
  bool crashed = false;  // guarded by mu
};

LldState& GlobalLldState() {
  static LldState* const state = new LldState();
  return *state;
}

// lld's diagnostics, with the stdout part (rarely used for errors) after
// the stderr part; "(no message)" when lld printed nothing.
std::string Diagnostics(absl::string_view err, absl::string_view out) {
  std::string text = absl::StrCat(err, out);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? std::string("(no message)") : text;
}

}  // namespace

absl::Status LinkElfInProcess(const std::vector<std::string>& args) {
  LldState& state = GlobalLldState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.crashed) {
    return absl::FailedPreconditionError(
        "lld crashed in an earlier link in this process and cannot be used again; restart the "
        "process, or set XLA_HOST_LINKER=ld.lld-16 to link with an external linker");
  }
  std::vector<const char*> argv = {"ld.lld"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  std::string out_text, err_text;
  llvm::raw_string_ostream out(out_text), err(err_text);
  bool linked = false;
  // lld's fatal errors end in llvm::sys::Process::Exit, which returns to
  // the innermost crash recovery context instead of exiting the process
  // when crash recovery is enabled.
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  const bool returned = recovery.RunSafely([&] {
    linked = lld::elf::link(argv, out, err, /*exitEarly=*/false, /*disableOutput=*/false);
  });
  const int exit_code = recovery.RetCode;
  llvm::CrashRecoveryContext::Disable();
  // A link that ran to its end, or that stopped on a fatal error, leaves
  // lld's state to be cleared; a crash leaves it untrusted.
  const bool crashed = !returned && llvm::CrashRecoveryContext::isCrash(exit_code);
  if (crashed) {
    state.crashed = true;
  } else {
    lld::CommonLinkerContext::destroy();
  }
  out.flush();
  err.flush();
  if (crashed) {
    return absl::InternalError(absl::StrCat(
        "lld crashed while linking (code ", exit_code, "): ", Diagnostics(err_text, out_text),
        "; set XLA_HOST_LINKER=ld.lld-16 to link with an external linker"));
  }
  if (!returned || !linked) {
    return absl::InternalError(
        absl::StrCat("lld (in process) failed: ", Diagnostics(err_text, out_text)));
  }
  return absl::OkStatus();
}

}  // namespace xla::gpu
