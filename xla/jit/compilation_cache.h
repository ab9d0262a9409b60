// The JIT compilation cache: HLO that arrives at run time is compiled once
// per key (cache_key.h) and reused; requests that arrive before the
// executable exists take a pluggable fallback path (fallback.h).
//
// Modes (CompilationCacheOptions::mode, overridable per call):
//   kStrict  compile on the first request and wait for it.
//   kLazy    count the requests per key; the request that brings the count
//            to lazy_threshold compiles (and waits); earlier ones fall back.
//   kAsync   the first request schedules the compilation on the cache's
//            CompilerPool and falls back; later requests use the executable
//            once ready. Above max_in_flight the request falls back and
//            schedules nothing (a later request tries again).
//
// Deduplication: one key compiles at most once at a time. A strict request
// for a key that is compiling (in any mode) waits for that compilation; a
// lazy or async one falls back.
//
// Persistent tier: with a PersistentCache, the first request for a key first
// tries the disk (synchronously, in every mode, since loading is much
// cheaper than compiling); a compiled executable is written back.
//
// Errors: a failed compilation stores its status in the entry, bumps
// compile_failures and calls on_error once (from the thread that ran it).
// Later requests for the key, by error_policy, either return that status
// (kReturnError) or take the fallback (kFallbackAndReport; counted in
// fallbacks_after_error). The key is not recompiled on every request: only
// while attempts < max_attempts, and then only after
// retry_after_requests * 2^(attempts-1) further requests.
//
// Lifetime: background compilations hold the state they use through a
// shared CompileJob (explicit fields, shared ownership), never the cache
// object itself. Destroying the cache cancels queued compilations (their
// entries fail with Cancelled) and waits for the running ones; executables
// already handed out stay valid (shared ownership).
//
// Thread-safety: every method is thread-safe. The destructor must not race
// with calls on the same object.
#ifndef XLA_JIT_COMPILATION_CACHE_H_
#define XLA_JIT_COMPILATION_CACHE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/aot/executable.h"
#include "xla/jit/cache_key.h"
#include "xla/jit/compiler_pool.h"
#include "xla/jit/fallback.h"
#include "xla/jit/jit_compiler.h"
#include "xla/jit/jit_module.h"
#include "xla/jit/persistent_cache.h"
#include "xla/stream_executor/stream_executor.h"
#include "xla/types/literal.h"

namespace xla::jit {

enum class CompileMode { kStrict, kLazy, kAsync };
absl::string_view CompileModeName(CompileMode mode);

enum class ErrorPolicy { kReturnError, kFallbackAndReport };

// Why a request did not get an executable.
enum class FallbackReason {
  kNone,             // it got one
  kBelowThreshold,   // lazy, count below the threshold
  kScheduled,        // async, this request scheduled the compilation
  kCompiling,        // the key is compiling (lazy/async)
  kInFlightCap,      // async, the pool is full; nothing scheduled
  kCompileError,     // the key failed; kFallbackAndReport
};
absl::string_view FallbackReasonName(FallbackReason reason);

enum class EntryState { kCounting, kCompiling, kReady, kFailed };
absl::string_view EntryStateName(EntryState state);

struct CompilationCacheOptions {
  CompileMode mode = CompileMode::kStrict;
  // kLazy: the request count that triggers compilation (>= 1).
  int64_t lazy_threshold = 2;
  // kAsync: the compiler pool.
  CompilerPoolOptions pool;
  ErrorPolicy error_policy = ErrorPolicy::kReturnError;
  // Compilations of one key before its failure is final (>= 1).
  int max_attempts = 1;
  // Requests after a failure before a retry; doubles after each failure.
  int64_t retry_after_requests = 16;
  // Called once per failed compilation with its key and status, on the
  // thread that compiled, with no cache lock held. Must be thread-safe.
  std::function<void(const CacheKey& key, const absl::Status& error)> on_error;
  // Run when a request falls back (Run). Null: Run fails with
  // FailedPrecondition on a fallback decision; Get still reports it.
  std::shared_ptr<JitFallback> fallback;
  // Optional on-disk tier.
  std::shared_ptr<PersistentCache> persistent;
  // Device for Run. Null: device 0 of the platform the artifact names.
  stream_executor::StreamExecutor* executor = nullptr;
};

// Per-key statistics.
struct KeyStats {
  CacheKey key;
  std::string module_name;
  EntryState state = EntryState::kCounting;
  int64_t requests = 0;
  int64_t hits = 0;                   // requests served by the executable
  int64_t fallbacks = 0;              // requests sent to the fallback
  int64_t errors_returned = 0;        // requests that got the stored error
  int64_t compiles = 0;               // compilations started
  int64_t compile_failures = 0;
  double compile_seconds = 0;         // total over compilations
  bool loaded_from_disk = false;
  absl::Status last_error;
};

// Totals over all keys.
struct CacheStats {
  int64_t entries = 0;
  int64_t requests = 0;
  int64_t hits = 0;
  int64_t fallbacks = 0;
  int64_t fallbacks_after_error = 0;
  int64_t errors_returned = 0;
  int64_t compiles = 0;
  int64_t compile_failures = 0;
  int64_t cancelled = 0;
  int64_t in_flight_rejections = 0;
  int64_t disk_loads = 0;
  int64_t disk_writes = 0;
  int64_t disk_write_failures = 0;
  double compile_seconds = 0;
};

// The decision for one request.
struct Lookup {
  CacheKey key;
  // Set: run it. Null: take the fallback for `reason`.
  std::shared_ptr<aot::Executable> executable;
  FallbackReason reason = FallbackReason::kNone;
  // kCompileError: the stored error.
  absl::Status error;
};

// The outcome of Run.
struct RunResult {
  std::vector<Literal> outputs;  // leaves, depth-first
  bool used_fallback = false;
  FallbackReason reason = FallbackReason::kNone;
  CacheKey key;
};

struct CacheCore;

class CompilationCache {
 public:
  CompilationCache(std::shared_ptr<JitCompiler> compiler, CompilationCacheOptions options);
  ~CompilationCache();
  CompilationCache(const CompilationCache&) = delete;
  CompilationCache& operator=(const CompilationCache&) = delete;

  // Decides one request for `module` called with `argument_shapes`
  // (compiling, scheduling or waiting as the mode says). Errors:
  // InvalidArgument for shapes that do not fit the module; with
  // kReturnError, the key's stored compilation error; a failed load of the
  // compiled artifact counts as a compilation error.
  absl::StatusOr<Lookup> Get(const std::shared_ptr<const JitModule>& module,
                             absl::Span<const Shape> argument_shapes,
                             std::optional<CompileMode> mode = std::nullopt);

  // Get, then runs the executable (xla::aot::ExecuteOnLiterals) or the
  // fallback on `arguments`. Errors: Get's, the execution's or the
  // fallback's, and FailedPrecondition when a fallback is needed and none
  // is configured.
  absl::StatusOr<RunResult> Run(const std::shared_ptr<const JitModule>& module,
                                absl::Span<const Literal> arguments,
                                std::optional<CompileMode> mode = std::nullopt);

  // The key Get would use (no request is counted).
  CacheKey KeyFor(const JitModule& module, absl::Span<const Shape> argument_shapes) const;

  CacheStats stats() const;
  std::optional<KeyStats> key_stats(const CacheKey& key) const;
  // Every key, sorted by key.
  std::vector<KeyStats> all_key_stats() const;

  // Blocks until no compilation is running or queued, or `timeout` passes;
  // returns whether it became idle.
  bool WaitUntilIdle(std::chrono::milliseconds timeout) const;

  const CompilerPool& pool() const { return *pool_; }

 private:
  std::shared_ptr<CacheCore> core_;
  // Owned here, not in the core: a job holding the last reference to the
  // core must not be the one that destroys (and joins) the pool.
  std::unique_ptr<CompilerPool> pool_;
};

}  // namespace xla::jit

#endif  // XLA_JIT_COMPILATION_CACHE_H_
