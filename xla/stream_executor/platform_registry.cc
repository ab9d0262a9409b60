#include "xla/stream_executor/platform_registry.h"

#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/util/status_macros.h"

namespace stream_executor {
namespace {

struct Entry {
  PlatformRegistry::Factory factory;
  std::unique_ptr<Platform> platform;  // created on first GetPlatform
};

// std::mutex rather than absl::Mutex: Debian's abseil is not built for
// ThreadSanitizer, which then cannot see absl::Mutex.
struct Registry {
  std::mutex mu;
  // Sorted, so listings are deterministic. Guarded by mu.
  std::map<std::string, Entry, std::less<>> entries;
};

// Never destroyed: platforms own threads that must not be torn down by
// static destructors while other code may still use them.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// Needs registry.mu held.
std::vector<std::string> NamesLocked(const Registry& registry) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : registry.entries) names.push_back(name);
  return names;
}

}  // namespace

absl::Status PlatformRegistry::RegisterFactory(absl::string_view name,
                                               Factory factory) {
  if (name.empty() || !factory) {
    return absl::InvalidArgumentError(
        "platform registration needs a non-empty name and factory");
  }
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto [it, inserted] = registry.entries.try_emplace(std::string(name));
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("platform '", name, "' is already registered"));
  }
  it->second.factory = std::move(factory);
  return absl::OkStatus();
}

absl::StatusOr<Platform*> PlatformRegistry::GetPlatform(
    absl::string_view name) {
  Registry& registry = GetRegistry();
  // Held across the factory call so each platform is created once.
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.entries.find(name);
  if (it == registry.entries.end()) {
    return absl::NotFoundError(absl::StrCat(
        "platform '", name, "' is not linked into this binary (linked: [",
        absl::StrJoin(NamesLocked(registry), ", "),
        "]); link the platform's library to use it"));
  }
  Entry& entry = it->second;
  if (entry.platform == nullptr) {
    ASSIGN_OR_RETURN(entry.platform, entry.factory());
    if (entry.platform == nullptr) {
      return absl::InternalError(absl::StrCat(
          "the factory of platform '", name, "' returned no platform"));
    }
  }
  return entry.platform.get();
}

std::vector<std::string> PlatformRegistry::RegisteredNames() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return NamesLocked(registry);
}

}  // namespace stream_executor
