#include "xla/backends/gpu/ffi/ffi_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla::gpu::ffi {

void RegisterBuiltinHandlers(FfiRegistry& registry);  // builtin_handlers.cc

FfiRegistry& FfiRegistry::Global() {
  static FfiRegistry* registry = [] {
    auto* r = new FfiRegistry();
    RegisterBuiltinHandlers(*r);
    return r;
  }();
  return *registry;
}

absl::Status FfiRegistry::Register(HandlerEntry entry) {
  if (entry.name.empty() || entry.platform.empty() || entry.handler == nullptr) {
    return absl::InvalidArgumentError("FFI handler needs a name, a platform and a function");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (aliases_.count(entry.name) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("FFI name '", entry.name, "' is an alias"));
  }
  auto key = std::make_pair(entry.name, entry.platform);
  if (handlers_.count(key) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("FFI handler '", entry.name,
                                                 "' is already registered for platform ",
                                                 entry.platform));
  }
  handlers_[key] = std::make_unique<HandlerEntry>(std::move(entry));
  return absl::OkStatus();
}

absl::Status FfiRegistry::RegisterAlias(AliasEntry alias) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, entry] : handlers_) {
    if (key.first == alias.old_name) {
      return absl::AlreadyExistsError(absl::StrCat("'", alias.old_name, "' is a handler"));
    }
  }
  if (!aliases_.emplace(alias.old_name, alias).second) {
    return absl::AlreadyExistsError(absl::StrCat("'", alias.old_name, "' is an alias already"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const HandlerEntry*> FfiRegistry::Lookup(absl::string_view name,
                                                        absl::string_view platform) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string resolved(name);
  if (auto it = aliases_.find(name); it != aliases_.end()) resolved = it->second.new_name;
  auto it = handlers_.find(std::make_pair(resolved, std::string(platform)));
  if (it != handlers_.end()) return it->second.get();
  std::vector<std::string> names;
  for (const auto& [key, entry] : handlers_) names.push_back(key.first + "@" + key.second);
  return absl::NotFoundError(absl::StrCat(
      "no FFI handler '", name, "' for platform ", platform, " (registered: ",
      absl::StrJoin(names, ", "), "); link the library that registers it or recompile"));
}

std::vector<AliasEntry> FfiRegistry::Aliases() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AliasEntry> out;
  for (const auto& [name, alias] : aliases_) out.push_back(alias);
  return out;
}

std::vector<std::string> FfiRegistry::HandlerNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [key, entry] : handlers_) names.push_back(key.first + "@" + key.second);
  return names;
}

absl::Status CheckSignature(const HandlerEntry& entry, int64_t num_operands,
                            int64_t num_results, const Attributes& attributes,
                            absl::string_view path) {
  const Signature& s = entry.signature;
  if (s.num_operands >= 0 && s.num_operands != num_operands) {
    return absl::InvalidArgumentError(absl::StrCat(path, ".operands: handler '", entry.name,
                                                   "' takes ", s.num_operands, " operands, got ",
                                                   num_operands));
  }
  if (s.num_results >= 0 && s.num_results != num_results) {
    return absl::InvalidArgumentError(absl::StrCat(path, ".results: handler '", entry.name,
                                                   "' takes ", s.num_results, " results, got ",
                                                   num_results));
  }
  for (const std::string& name : s.required_attributes) {
    if (attributes.find(name) == attributes.end()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ".attributes: handler '", entry.name,
                                                     "' needs attribute '", name, "'"));
    }
  }
  for (const AttributeSpec& spec : s.typed_attributes) {
    auto it = attributes.find(spec.name);
    if (it == attributes.end()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ".attributes: handler '", entry.name,
                                                     "' needs attribute '", spec.name, "' (",
                                                     AttributeKindName(spec.kind), ")"));
    }
    if (KindOf(it->second) != spec.kind) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".attributes: handler '", entry.name, "' needs attribute '", spec.name, "' as ",
          AttributeKindName(spec.kind), ", the call has ", AttributeKindName(KindOf(it->second))));
    }
  }
  return absl::OkStatus();
}

absl::string_view AttributeKindName(AttributeKind kind) {
  switch (kind) {
    case AttributeKind::kI64:
      return "i64";
    case AttributeKind::kF64:
      return "f64";
    case AttributeKind::kStr:
      return "str";
    case AttributeKind::kBool:
      return "bool";
    case AttributeKind::kI64Array:
      return "array<i64>";
    case AttributeKind::kF64Array:
      return "array<f64>";
  }
  return "?";
}

}  // namespace xla::gpu::ffi
