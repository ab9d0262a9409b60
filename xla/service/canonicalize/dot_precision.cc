#include "xla/service/canonicalize/dot_precision.h"

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"

namespace xla {

std::optional<DotPrecision> ParseDotPrecision(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "default") return DotPrecision::kDefault;
  if (lower == "high") return DotPrecision::kHigh;
  if (lower == "highest") return DotPrecision::kHighest;
  return std::nullopt;
}

bool DotAllowsTf32(const HloInstruction& dot, DotPrecision default_precision) {
  if (const AttrValue* algorithm = dot.FindAttr(AttrId::kAlgorithm)) {
    const std::string* name = std::get_if<std::string>(algorithm);
    return name != nullptr && absl::AsciiStrToLower(*name) == "dot_tf32_tf32_f32";
  }
  DotPrecision highest = default_precision;  // two operands, DEFAULT when unsaid
  if (const AttrValue* value = dot.FindAttr(AttrId::kOperandPrecision)) {
    const auto* list = std::get_if<std::vector<std::string>>(value);
    if (list == nullptr) return false;
    highest = list->size() < 2 ? default_precision : DotPrecision::kDefault;
    for (const std::string& text : *list) {
      std::optional<DotPrecision> p = ParseDotPrecision(text);
      if (!p.has_value()) return false;  // unknown: exact f32
      if (*p == DotPrecision::kDefault) p = default_precision;
      highest = std::max(highest, *p);
    }
  }
  return highest != DotPrecision::kHighest;
}

}  // namespace xla
