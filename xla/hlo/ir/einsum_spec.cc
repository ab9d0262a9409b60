#include "xla/hlo/ir/einsum_spec.h"

#include <algorithm>
#include <cctype>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xla/hlo/ir/backend_config_text.h"

namespace xla {
namespace {

bool AllLetters(const std::string& s) {
  for (char c : s) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<EinsumSpec> ReadEinsumSpec(const HloInstruction& instr) {
  std::string eq = BackendConfigText(instr);
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  auto error = [&](const auto&... pieces) {
    return absl::InvalidArgumentError(absl::StrCat("custom-call '", instr.name(), "' (einsum \"",
                                                   eq, "\"): ", pieces...));
  };
  if (eq.find("...") != std::string::npos) {
    return absl::UnimplementedError(absl::StrCat("custom-call '", instr.name(), "' (einsum \"", eq,
                                                 "\"): ellipses are not supported; spell the "
                                                 "dimensions out"));
  }
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos) return error("needs '->' and the output's labels");
  EinsumSpec spec;
  spec.operands = absl::StrSplit(eq.substr(0, arrow), ',');
  spec.output = eq.substr(arrow + 2);
  if (static_cast<int64_t>(spec.operands.size()) != instr.operand_count() ||
      spec.operands.size() > 2) {
    return error("names ", spec.operands.size(), " operands, the call has ",
                 instr.operand_count(), " (one or two are supported)");
  }
  if (!AllLetters(spec.output)) return error("labels must be letters");
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    const std::string& labels = spec.operands[i];
    const Shape& s = instr.operand(i)->shape();
    if (!AllLetters(labels)) return error("labels must be letters");
    if (!s.IsArray() || static_cast<int64_t>(labels.size()) != s.rank()) {
      return error("operand ", i, " ", s.ToString(false), " needs one label per dimension");
    }
    for (size_t d = 0; d < labels.size(); ++d) {
      auto [it, added] = spec.sizes.emplace(labels[d], s.dimensions(d));
      if (!added && it->second != s.dimensions(d)) {
        return error("label '", std::string(1, labels[d]), "' has sizes ", it->second, " and ",
                     s.dimensions(d));
      }
    }
  }
  const Shape& out = instr.shape();
  if (!out.IsArray() || static_cast<int64_t>(spec.output.size()) != out.rank()) {
    return error("result ", out.ToString(false), " needs one label per dimension");
  }
  for (size_t d = 0; d < spec.output.size(); ++d) {
    auto it = spec.sizes.find(spec.output[d]);
    if (it == spec.sizes.end()) {
      return error("output label '", std::string(1, spec.output[d]), "' is in no operand");
    }
    if (it->second != out.dimensions(d)) {
      return error("result dimension ", d, " is ", out.dimensions(d), ", label '",
                   std::string(1, spec.output[d]), "' has size ", it->second);
    }
  }
  return spec;
}

}  // namespace xla
