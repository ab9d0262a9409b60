#include "xla/hlo/ir/host_transfer_attributes.h"

#include <variant>

namespace xla {

std::string HostTransferRendezvous(const HloInstruction& instr) {
  const AttrValue* attrs = instr.FindAttr(AttrId::kFrontendAttributes);
  const std::string* text = attrs == nullptr ? nullptr : std::get_if<std::string>(attrs);
  if (text == nullptr) return "";
  constexpr char kKey[] = "_xla_host_transfer_rendezvous=\"";
  const size_t at = text->find(kKey);
  if (at == std::string::npos) return "";
  const size_t begin = at + sizeof(kKey) - 1;
  const size_t end = text->find('"', begin);
  return end == std::string::npos ? "" : text->substr(begin, end - begin);
}

}  // namespace xla
