#include "xla/hlo/ir/backend_config_text.h"

#include <variant>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"

namespace xla {

std::string BackendConfigText(const HloInstruction& instr) {
  const AttrValue* value = instr.FindAttr(AttrId::kBackendConfig);
  if (value == nullptr || !std::holds_alternative<std::string>(*value)) return "";
  const std::string& raw = std::get<std::string>(*value);
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
    std::string unescaped;
    if (absl::CUnescape(absl::string_view(raw).substr(1, raw.size() - 2), &unescaped)) {
      return unescaped;
    }
  }
  return raw;
}

}  // namespace xla
