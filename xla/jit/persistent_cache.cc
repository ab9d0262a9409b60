#include "xla/jit/persistent_cache.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace xla::jit {
namespace fs = std::filesystem;
namespace {

constexpr char kSuffix[] = ".xaot";

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

struct DiskEntry {
  std::string path;
  int64_t size = 0;
  fs::file_time_type used;
};

// Whether `inner` is `outer` or lies below it (both exist).
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(inner, ec);
  const fs::path b = fs::weakly_canonical(outer, ec);
  auto it = a.begin();
  for (const fs::path& part : b) {
    if (it == a.end() || *it != part) return part.empty();
    ++it;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> DefaultJitCacheKeyName() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  if (config != nullptr && *config != '\0') return absl::StrCat(config, "/xla_aot/jit_cache");
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return absl::StrCat(home, "/.config/xla_aot/jit_cache");
  return absl::FailedPreconditionError(
      "persistent JIT cache: neither XDG_CONFIG_HOME nor HOME is set, so the cache has no place for "
      "its signing key; set PersistentCacheOptions::key_name");
}

PersistentCache::PersistentCache(PersistentCacheOptions options, aot::SigningKey key)
    : options_(std::move(options)), key_(std::move(key)) {
  load_.trust.trusted_keys.push_back(key_.public_key);
  load_.trust.unsigned_artifacts = aot::UnsignedPolicy::kRefuse;
}

absl::StatusOr<std::unique_ptr<PersistentCache>> PersistentCache::Open(
    PersistentCacheOptions options) {
  if (options.directory.empty()) {
    return absl::InvalidArgumentError("persistent JIT cache: no directory given");
  }
  std::error_code ec;
  fs::create_directories(options.directory, ec);
  if (!fs::is_directory(options.directory)) {
    return absl::FailedPreconditionError(absl::StrCat("persistent JIT cache: cannot use directory ",
                                                      options.directory, ": ", ec.message()));
  }
  if (options.key_name.empty()) {
    absl::StatusOr<std::string> name = DefaultJitCacheKeyName();
    if (!name.ok()) return name.status();
    options.key_name = *name;
  }
  if (IsWithin(fs::path(options.key_name).parent_path(), options.directory)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "persistent JIT cache: the signing key ", options.key_name, " lies inside the cache directory ",
        options.directory, ", where whoever can write entries could replace it; keep it elsewhere"));
  }
  absl::StatusOr<aot::SigningKey> key = aot::LoadOrCreateSigningKey(options.key_name);
  if (!key.ok()) {
    return absl::Status(key.status().code(),
                        absl::StrCat("persistent JIT cache: signing key: ", key.status().message()));
  }
  return std::unique_ptr<PersistentCache>(new PersistentCache(std::move(options), *std::move(key)));
}

std::string PersistentCache::PathFor(const CacheKey& key) const {
  return (fs::path(options_.directory) / absl::StrCat(key.ToString(), kSuffix)).string();
}

void PersistentCache::Warn(const std::string& message) {
  warnings_.fetch_add(1);
  if (options_.on_warning) options_.on_warning(message);
}

std::unique_ptr<aot::Executable> PersistentCache::Load(const CacheKey& key) {
  std::string path = PathFor(key);
  std::string bytes;
  if (!ReadFile(path, &bytes)) return nullptr;  // a miss (or removed meanwhile)
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(bytes, load_);
  std::error_code ec;
  if (!exe.ok()) {
    fs::remove(path, ec);
    Warn(absl::StrCat("persistent JIT cache: removed invalid entry ", path, " (", exe.status().ToString(),
                      "); it will be recompiled"));
    return nullptr;
  }
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // LRU: mark as used
  return std::move(*exe);
}

absl::Status PersistentCache::Store(const CacheKey& key, absl::string_view unsigned_artifact) {
  std::string path = PathFor(key);
  absl::StatusOr<std::string> signed_artifact = aot::SignArtifactBytes(key_, unsigned_artifact, "the artifact");
  if (!signed_artifact.ok()) {
    Warn(absl::StrCat("persistent JIT cache: not storing ", path, ": ", signed_artifact.status().message()));
    return signed_artifact.status();
  }
  const absl::string_view artifact = *signed_artifact;
  std::string temp = (fs::path(options_.directory) /
                      absl::StrCat(".tmp-", key.ToString(), "-", getpid(), "-", temp_counter_.fetch_add(1)))
                         .string();
  std::error_code ec;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(artifact.data(), static_cast<std::streamsize>(artifact.size()));
    out.close();
    if (!out) {
      fs::remove(temp, ec);
      std::string message = absl::StrCat("persistent JIT cache: cannot write ", temp,
                                         " (disk full or directory not writable?)");
      Warn(message);
      return absl::InternalError(message);
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::string message =
        absl::StrCat("persistent JIT cache: cannot rename ", temp, " to ", path, ": ", ec.message());
    fs::remove(temp, ec);
    Warn(message);
    return absl::InternalError(message);
  }
  EvictToCap(path);
  return absl::OkStatus();
}

int64_t PersistentCache::TotalBytes() const {
  int64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(options_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (!absl::EndsWith(it->path().filename().string(), kSuffix)) continue;
    std::error_code size_ec;
    uintmax_t size = fs::file_size(it->path(), size_ec);
    if (!size_ec) total += static_cast<int64_t>(size);
  }
  return total;
}

void PersistentCache::EvictToCap(const std::string& keep) {
  std::vector<DiskEntry> entries;
  int64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(options_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!absl::EndsWith(name, kSuffix) || absl::StartsWith(name, ".")) continue;
    std::error_code entry_ec;
    DiskEntry e;
    e.path = it->path().string();
    e.size = static_cast<int64_t>(fs::file_size(it->path(), entry_ec));
    if (entry_ec) continue;  // removed by another process meanwhile
    e.used = fs::last_write_time(it->path(), entry_ec);
    if (entry_ec) continue;
    total += e.size;
    entries.push_back(std::move(e));
  }
  if (total <= options_.max_bytes) return;
  std::sort(entries.begin(), entries.end(), [](const DiskEntry& a, const DiskEntry& b) {
    return a.used != b.used ? a.used < b.used : a.path < b.path;
  });
  for (const DiskEntry& e : entries) {
    if (total <= options_.max_bytes) break;
    if (e.path == keep) continue;
    std::error_code remove_ec;
    if (fs::remove(e.path, remove_ec)) evictions_.fetch_add(1);
    total -= e.size;  // gone, whether we or another process removed it
  }
}

}  // namespace xla::jit
