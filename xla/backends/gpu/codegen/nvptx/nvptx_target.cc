#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla::gpu {

const std::vector<NvptxTarget>& NvptxTargets() {
  // LLVM 16's NVPTX back end knows PTX ISA versions up to 7.8 (ptx78), which
  // every target below accepts (sm_89 and sm_90 need 7.8 at least).
  static const auto* const kTargets = new std::vector<NvptxTarget>{
      // name    cc  feature   ptx   threads  shared     warp  SMs  param bytes (PTX < 8.1)
      {"sm_80", 80, "+ptx78", "7.8", 1024, 48 * 1024, 32, 108, 4352},
      {"sm_86", 86, "+ptx78", "7.8", 1024, 48 * 1024, 32, 84, 4352},
      {"sm_89", 89, "+ptx78", "7.8", 1024, 48 * 1024, 32, 128, 4352},
      {"sm_90", 90, "+ptx78", "7.8", 1024, 48 * 1024, 32, 132, 4352},
  };
  return *kTargets;
}

absl::StatusOr<NvptxTarget> FindNvptxTarget(absl::string_view name) {
  std::vector<std::string> names;
  for (const NvptxTarget& t : NvptxTargets()) {
    if (name == t.name) return t;
    names.push_back(t.name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown GPU target '", name,
                                                 "'; supported: ", absl::StrJoin(names, ", ")));
}

}  // namespace xla::gpu
