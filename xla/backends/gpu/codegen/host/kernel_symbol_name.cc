#include "xla/backends/gpu/codegen/host/kernel_symbol_name.h"

#include "absl/strings/str_cat.h"

namespace xla::gpu {

std::string KernelSymbolName(absl::string_view hlo_name, absl::flat_hash_set<std::string>* used) {
  std::string base = "xla_";
  for (char c : hlo_name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    base.push_back(ok ? c : '_');
  }
  std::string name = base;
  for (int64_t suffix = 1; used->contains(name); ++suffix) name = absl::StrCat(base, "_", suffix);
  used->insert(name);
  return name;
}

}  // namespace xla::gpu
