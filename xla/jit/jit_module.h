// A module as the JIT cache sees it: parsed, verified, with debug metadata
// stripped, printed canonically and fingerprinted once.
//
// Serving code builds one JitModule per distinct HLO program (not per
// request) and passes it to every CompilationCache call, so a cache hit
// never parses, prints or hashes the module again.
//
// What is stripped: every instruction's `metadata={...}` attribute and the
// module's debug sections (file names, stack frames). What is kept: all
// else, including the module name and instruction names (they reach the
// artifact's payload), so two modules that differ only there get two keys.
//
// Thread-safety: immutable after creation; share it freely (it is handed
// out as shared_ptr<const JitModule>, and background compilations hold a
// reference).
#ifndef XLA_JIT_JIT_MODULE_H_
#define XLA_JIT_JIT_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/jit/fingerprint.h"
#include "xla/types/shape.h"

namespace xla::jit {

class JitModule {
 public:
  // Parses and verifies `hlo_text`. Errors: the parser's (with line and
  // column) or the verifier's (naming the instruction).
  static absl::StatusOr<std::shared_ptr<const JitModule>> FromText(absl::string_view hlo_text);
  // Takes over an already parsed module and verifies it. Errors: the
  // verifier's.
  static absl::StatusOr<std::shared_ptr<const JitModule>> FromModule(
      std::unique_ptr<HloModule> module);

  const HloModule& module() const { return *module_; }
  const std::string& name() const { return module_->name(); }
  // The printed module without debug metadata; what compilers receive.
  const std::string& canonical_text() const { return canonical_text_; }
  // Fingerprint of canonical_text().
  const Fingerprint128& fingerprint() const { return fingerprint_; }
  const ProgramShape& program_shape() const { return program_shape_; }
  // Instructions over all computations (the evaluator fallback's size test).
  int64_t instruction_count() const { return instruction_count_; }

 private:
  JitModule() = default;

  std::unique_ptr<HloModule> module_;
  std::string canonical_text_;
  Fingerprint128 fingerprint_;
  ProgramShape program_shape_;
  int64_t instruction_count_ = 0;
};

}  // namespace xla::jit

#endif  // XLA_JIT_JIT_MODULE_H_
