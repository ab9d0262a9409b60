#include "xla/jit/jit_module.h"

#include <utility>

#include "xla/hlo/ir/hlo_attribute.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/util/status_macros.h"

namespace xla::jit {
namespace {

// Removes what only debuggers read; returns the number of instructions.
int64_t StripDebugMetadata(HloModule& module) {
  int64_t count = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      instruction->ClearAttr(AttrId::kMetadata);
      ++count;
    }
  }
  module.mutable_debug_sections()->clear();
  return count;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const JitModule>> JitModule::FromText(absl::string_view hlo_text) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo_text));
  return FromModule(std::move(module));
}

absl::StatusOr<std::shared_ptr<const JitModule>> JitModule::FromModule(
    std::unique_ptr<HloModule> module) {
  if (module == nullptr || module->entry_computation() == nullptr) {
    return absl::InvalidArgumentError("JitModule::FromModule: the module has no entry computation");
  }
  RETURN_IF_ERROR(VerifyModule(*module));
  std::shared_ptr<JitModule> jit(new JitModule());
  jit->instruction_count_ = StripDebugMetadata(*module);
  jit->canonical_text_ = PrintModule(*module);
  jit->fingerprint_ = FingerprintOf(jit->canonical_text_);
  jit->program_shape_ = module->entry_computation()->ComputeProgramShape();
  jit->module_ = std::move(module);
  return std::shared_ptr<const JitModule>(std::move(jit));
}

}  // namespace xla::jit
