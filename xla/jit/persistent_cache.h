// The on-disk tier of the JIT cache: one `.xaot` artifact per key in a
// directory, named `<32 hex digits of the key>.xaot`, so a restarted
// process (or another process sharing the directory) loads instead of
// compiling.
//
// * Writes go to a uniquely named temporary file in the same directory and
//   are renamed into place, so a reader never sees a half-written entry.
// * Every load is validated by the runtime (checksum, format version,
//   required runtime features, every table index). An entry that fails is
//   removed and reported through the warning callback and warnings()
//   counter, and Load reports a miss: the caller recompiles. Never a crash.
// * Entries are signed with the cache's own key (artifact_signing.h), kept
//   outside the directory (PersistentCacheOptions::key_name), and an entry
//   is loaded only when that key's signature verifies: whoever can write to
//   a shared or another user's cache directory cannot make this process
//   load code it did not compile. An unsigned or foreign entry is treated
//   as an invalid one (removed where possible, warned about, a miss).
// * A size cap evicts least recently used entries first. "Used" is the
//   file's modification time, refreshed on every load, so the order is
//   shared between processes.
//
// Thread-safety: all methods are thread-safe; several processes may share
// one directory.
#ifndef XLA_JIT_PERSISTENT_CACHE_H_
#define XLA_JIT_PERSISTENT_CACHE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/aot/artifact_signing.h"
#include "xla/aot/executable.h"
#include "xla/jit/cache_key.h"

namespace xla::jit {

struct PersistentCacheOptions {
  // Created (with parents) when missing.
  std::string directory;
  // Total bytes of `.xaot` entries kept; older entries go first. The entry
  // just written is always kept, even when it alone exceeds the cap.
  int64_t max_bytes = int64_t{1} << 30;
  // Called with one line per problem (corrupt entry removed, write failed).
  // May be called from any thread, concurrently. Null: count only.
  std::function<void(absl::string_view)> on_warning;
  // The cache's signing key pair, NAME.secret and NAME.pub, created on
  // first use; empty: DefaultJitCacheKeyName(). Must not be inside
  // `directory`.
  std::string key_name;
};

// $XDG_CONFIG_HOME/xla_aot/jit_cache, else $HOME/.config/xla_aot/jit_cache.
// FailedPrecondition when neither variable is set.
absl::StatusOr<std::string> DefaultJitCacheKeyName();

class PersistentCache {
 public:
  // Errors: the directory cannot be created or is not a directory
  // (naming the path and the system error); the key cannot be read or
  // created (artifact_signing.h's errors), or lies inside the directory
  // (InvalidArgument).
  static absl::StatusOr<std::unique_ptr<PersistentCache>> Open(PersistentCacheOptions options);

  // The loaded and validated executable for `key`, or null on a miss. A
  // present but invalid entry is removed with a warning and is a miss.
  std::unique_ptr<aot::Executable> Load(const CacheKey& key);

  // Signs `artifact` with the cache's key and stores it for `key`
  // (temporary file, then rename), then evicts down to max_bytes. Errors:
  // the bytes are not an artifact (InvalidArgument); the file cannot be
  // written or renamed (naming the path; also reported as a warning);
  // nothing is left behind.
  absl::Status Store(const CacheKey& key, absl::string_view artifact);

  // Path of the entry for `key` (it may not exist).
  std::string PathFor(const CacheKey& key) const;
  // Bytes of all `.xaot` entries now in the directory.
  int64_t TotalBytes() const;

  int64_t warnings() const { return warnings_.load(); }
  int64_t evictions() const { return evictions_.load(); }
  const PersistentCacheOptions& options() const { return options_; }

 private:
  PersistentCache(PersistentCacheOptions options, aot::SigningKey key);
  void Warn(const std::string& message);
  void EvictToCap(const std::string& keep);

  const PersistentCacheOptions options_;
  const aot::SigningKey key_;
  aot::LoadOptions load_;  // trusts key_ only; refuses unsigned entries
  std::atomic<int64_t> warnings_{0};
  std::atomic<int64_t> evictions_{0};
  std::atomic<int64_t> temp_counter_{0};
};

}  // namespace xla::jit

#endif  // XLA_JIT_PERSISTENT_CACHE_H_
