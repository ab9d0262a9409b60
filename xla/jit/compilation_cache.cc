#include "xla/jit/compilation_cache.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/aot/literal_execution.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/util/logging.h"
#include "xla/util/status_macros.h"

namespace xla::jit {

// One key's entry. Guarded by CacheCore::mu.
struct CacheEntry {
  EntryState state = EntryState::kCounting;
  std::shared_ptr<aot::Executable> executable;
  absl::Status error;
  // Requests since the entry was created or last failed: the lazy count
  // and the retry backoff.
  int64_t pending_requests = 0;
  int attempts = 0;
  bool disk_checked = false;
  KeyStats stats;
};

// Everything the cache and its background compilations share.
struct CacheCore {
  std::shared_ptr<JitCompiler> compiler;
  CompilationCacheOptions options;
  Fingerprint128 compiler_fingerprint;

  mutable std::mutex mu;
  mutable std::condition_variable cv;
  std::unordered_map<CacheKey, std::shared_ptr<CacheEntry>, CacheKeyHash> entries;
  CacheStats stats;
  // Compilations and disk loads scheduled or running (entries in kCompiling
  // plus error callbacks not yet returned).
  int64_t busy = 0;
};

namespace {

constexpr absl::string_view kModeNames[] = {"strict", "lazy", "async"};
constexpr absl::string_view kReasonNames[] = {"none",      "below_threshold", "scheduled",
                                              "compiling", "in_flight_cap",   "compile_error"};
constexpr absl::string_view kStateNames[] = {"counting", "compiling", "ready", "failed"};

using Clock = std::chrono::steady_clock;

// The result of one compilation, produced with no lock held.
struct CompileOutcome {
  std::shared_ptr<aot::Executable> executable;
  absl::Status status;
  double seconds = 0;
  bool disk_written = false;
  bool disk_write_failed = false;
};

CompileOutcome CompileAndLoad(const CacheCore& core, const JitModule& module, const CacheKey& key) {
  CompileOutcome out;
  Clock::time_point start = Clock::now();
  absl::StatusOr<std::string> bytes = core.compiler->Compile(module);
  if (!bytes.ok()) {
    out.status = bytes.status();
  } else {
    absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
    if (exe.ok()) {
      out.executable = std::move(*exe);
    } else {
      out.status = absl::InternalError(absl::StrCat("the artifact compiled for module ", module.name(),
                                                    " (key ", key.ToString(),
                                                    ") does not load: ", exe.status().ToString()));
    }
  }
  if (out.status.ok() && core.options.persistent != nullptr) {
    absl::Status stored = core.options.persistent->Store(key, *bytes);
    out.disk_written = stored.ok();
    out.disk_write_failed = !stored.ok();
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

// Stores `outcome` in `entry`, wakes waiters, then reports a failure.
// Takes core.mu itself; the caller must not hold it.
void FinishCompile(CacheCore& core, CacheEntry& entry, const CacheKey& key, CompileOutcome outcome) {
  absl::Status failure;
  {
    std::lock_guard<std::mutex> lock(core.mu);
    entry.stats.compile_seconds += outcome.seconds;
    core.stats.compile_seconds += outcome.seconds;
    core.stats.disk_writes += outcome.disk_written ? 1 : 0;
    core.stats.disk_write_failures += outcome.disk_write_failed ? 1 : 0;
    if (outcome.status.ok()) {
      entry.state = EntryState::kReady;
      entry.executable = std::move(outcome.executable);
    } else {
      entry.state = EntryState::kFailed;
      entry.error = outcome.status;
      entry.stats.last_error = outcome.status;
      entry.pending_requests = 0;
      ++entry.stats.compile_failures;
      ++core.stats.compile_failures;
      failure = outcome.status;
    }
    entry.stats.state = entry.state;
  }
  core.cv.notify_all();
  if (!failure.ok() && core.options.on_error) core.options.on_error(key, failure);
  {
    std::lock_guard<std::mutex> lock(core.mu);
    --core.busy;
  }
  core.cv.notify_all();
}

// A background compilation. Every piece of state it uses is a field here,
// held by value or shared ownership; nothing refers to the CompilationCache
// object, which may be gone by the time the job runs.
struct CompileJob {
  std::shared_ptr<CacheCore> core;
  std::shared_ptr<CacheEntry> entry;
  std::shared_ptr<const JitModule> module;
  CacheKey key;

  void operator()(bool cancelled) const {
    if (cancelled) {
      {
        std::lock_guard<std::mutex> lock(core->mu);
        entry->state = EntryState::kFailed;
        entry->error = absl::CancelledError(absl::StrCat("compilation of module ", module->name(), " (key ",
                                                         key.ToString(),
                                                         ") was cancelled: the JIT cache was destroyed"));
        entry->stats.state = entry->state;
        ++core->stats.cancelled;
        --core->busy;
      }
      core->cv.notify_all();
      return;
    }
    FinishCompile(*core, *entry, key, CompileAndLoad(*core, *module, key));
  }
};

}  // namespace

absl::string_view CompileModeName(CompileMode mode) { return kModeNames[static_cast<int>(mode)]; }
absl::string_view FallbackReasonName(FallbackReason reason) {
  return kReasonNames[static_cast<int>(reason)];
}
absl::string_view EntryStateName(EntryState state) { return kStateNames[static_cast<int>(state)]; }

CompilationCache::CompilationCache(std::shared_ptr<JitCompiler> compiler, CompilationCacheOptions options)
    : core_(std::make_shared<CacheCore>()) {
  XLA_CHECK(compiler != nullptr) << "CompilationCache needs a compiler";
  core_->compiler_fingerprint = FingerprintCompiler(compiler->identity());
  core_->compiler = std::move(compiler);
  options.lazy_threshold = std::max<int64_t>(1, options.lazy_threshold);
  options.max_attempts = std::max(1, options.max_attempts);
  core_->options = std::move(options);
  pool_ = std::make_unique<CompilerPool>(core_->options.pool);
}

CompilationCache::~CompilationCache() {
  // Cancels queued jobs and joins the running ones; they hold core_ alive.
  pool_.reset();
}

CacheKey CompilationCache::KeyFor(const JitModule& module, absl::Span<const Shape> argument_shapes) const {
  return MakeCacheKey(module, argument_shapes, core_->compiler_fingerprint);
}

absl::StatusOr<Lookup> CompilationCache::Get(const std::shared_ptr<const JitModule>& module,
                                             absl::Span<const Shape> argument_shapes,
                                             std::optional<CompileMode> mode_override) {
  RETURN_IF_ERROR(CheckArgumentShapes(*module, argument_shapes));
  const CacheKey key = KeyFor(*module, argument_shapes);
  const CompileMode mode = mode_override.value_or(core_->options.mode);
  CacheCore& core = *core_;

  std::unique_lock<std::mutex> lock(core.mu);
  std::shared_ptr<CacheEntry>& slot = core.entries[key];
  if (slot == nullptr) {
    slot = std::make_shared<CacheEntry>();
    slot->stats.key = key;
    slot->stats.module_name = module->name();
    ++core.stats.entries;
  }
  std::shared_ptr<CacheEntry> entry = slot;
  ++entry->stats.requests;
  ++core.stats.requests;
  ++entry->pending_requests;

  auto fallback = [&entry, &core, &key](FallbackReason reason) {
    ++entry->stats.fallbacks;
    ++core.stats.fallbacks;
    return Lookup{key, nullptr, reason, absl::OkStatus()};
  };
  auto compile_here = [&entry, &core, &key, &module, &lock]() {
    entry->state = EntryState::kCompiling;
    entry->stats.state = entry->state;
    ++entry->attempts;
    ++entry->stats.compiles;
    ++core.stats.compiles;
    ++core.busy;
    lock.unlock();
    FinishCompile(core, *entry, key, CompileAndLoad(core, *module, key));
    lock.lock();
  };

  for (;;) {
    switch (entry->state) {
      case EntryState::kReady:
        ++entry->stats.hits;
        ++core.stats.hits;
        return Lookup{key, entry->executable, FallbackReason::kNone, absl::OkStatus()};
      case EntryState::kCompiling:
        if (mode == CompileMode::kStrict) {
          core.cv.wait(lock);
          continue;
        }
        return fallback(FallbackReason::kCompiling);
      case EntryState::kFailed: {
        int64_t backoff = core.options.retry_after_requests << std::min(entry->attempts - 1, 30);
        if (entry->attempts < core.options.max_attempts && entry->pending_requests > backoff) {
          entry->state = EntryState::kCounting;
          continue;
        }
        if (core.options.error_policy == ErrorPolicy::kReturnError) {
          ++entry->stats.errors_returned;
          ++core.stats.errors_returned;
          return entry->error;
        }
        ++core.stats.fallbacks_after_error;
        Lookup lookup = fallback(FallbackReason::kCompileError);
        lookup.error = entry->error;
        return lookup;
      }
      case EntryState::kCounting:
        break;
    }
    // kCounting: try the disk once, then follow the mode.
    if (!entry->disk_checked && core.options.persistent != nullptr) {
      entry->disk_checked = true;
      entry->state = EntryState::kCompiling;
      ++core.busy;
      lock.unlock();
      std::unique_ptr<aot::Executable> loaded = core.options.persistent->Load(key);
      lock.lock();
      --core.busy;
      if (loaded != nullptr) {
        entry->executable = std::move(loaded);
        entry->state = EntryState::kReady;
        entry->stats.loaded_from_disk = true;
        ++core.stats.disk_loads;
      } else {
        entry->state = EntryState::kCounting;
      }
      entry->stats.state = entry->state;
      core.cv.notify_all();
      continue;
    }
    switch (mode) {
      case CompileMode::kStrict:
        compile_here();
        continue;
      case CompileMode::kLazy:
        if (entry->pending_requests < core.options.lazy_threshold) {
          return fallback(FallbackReason::kBelowThreshold);
        }
        compile_here();
        continue;
      case CompileMode::kAsync: {
        CompileJob job{core_, entry, module, key};
        if (!pool_->TrySchedule(CompilerPool::Task(std::move(job)))) {
          ++core.stats.in_flight_rejections;
          return fallback(FallbackReason::kInFlightCap);
        }
        entry->state = EntryState::kCompiling;
        entry->stats.state = entry->state;
        ++entry->attempts;
        ++entry->stats.compiles;
        ++core.stats.compiles;
        ++core.busy;
        return fallback(FallbackReason::kScheduled);
      }
    }
  }
}

absl::StatusOr<RunResult> CompilationCache::Run(const std::shared_ptr<const JitModule>& module,
                                                absl::Span<const Literal> arguments,
                                                std::optional<CompileMode> mode) {
  std::vector<Shape> shapes;
  shapes.reserve(arguments.size());
  for (const Literal& a : arguments) shapes.push_back(a.shape());
  ASSIGN_OR_RETURN(Lookup lookup, Get(module, shapes, mode));
  RunResult result;
  result.key = lookup.key;
  result.reason = lookup.reason;
  if (lookup.executable != nullptr) {
    stream_executor::StreamExecutor* executor = core_->options.executor;
    if (executor == nullptr) {
      ASSIGN_OR_RETURN(stream_executor::Platform * platform,
                       stream_executor::PlatformRegistry::GetPlatform(
                           lookup.executable->program().target.platform));
      ASSIGN_OR_RETURN(executor, platform->GetDevice(0));
    }
    ASSIGN_OR_RETURN(result.outputs, aot::ExecuteOnLiterals(*lookup.executable, executor, arguments));
    return result;
  }
  const std::shared_ptr<JitFallback>& fallback = core_->options.fallback;
  if (fallback == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("JIT cache: module ", module->name(), " (key ", lookup.key.ToString(),
                     ") is not compiled yet (", FallbackReasonName(lookup.reason),
                     ") and no fallback is configured; set CompilationCacheOptions::fallback or use "
                     "strict mode"));
  }
  result.used_fallback = true;
  ASSIGN_OR_RETURN(result.outputs, fallback->Run(module, lookup.key, arguments));
  return result;
}

CacheStats CompilationCache::stats() const {
  std::lock_guard<std::mutex> lock(core_->mu);
  return core_->stats;
}

std::optional<KeyStats> CompilationCache::key_stats(const CacheKey& key) const {
  std::lock_guard<std::mutex> lock(core_->mu);
  auto it = core_->entries.find(key);
  if (it == core_->entries.end()) return std::nullopt;
  return it->second->stats;
}

std::vector<KeyStats> CompilationCache::all_key_stats() const {
  std::vector<KeyStats> out;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    out.reserve(core_->entries.size());
    for (const auto& [key, entry] : core_->entries) out.push_back(entry->stats);
  }
  std::sort(out.begin(), out.end(), [](const KeyStats& a, const KeyStats& b) { return a.key < b.key; });
  return out;
}

bool CompilationCache::WaitUntilIdle(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(core_->mu);
  const CacheCore* core = core_.get();
  return core_->cv.wait_for(lock, timeout, [core] { return core->busy == 0; });
}

}  // namespace xla::jit
