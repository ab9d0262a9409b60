// The fast compiled tier as a fallback: the same compiler with fusion and
// LLVM optimizations off (HostJitCompiler with FastTierOptions), compiled
// synchronously on the requesting thread and cached in its own strict
// CompilationCache, so each key pays the fast compile once.
//
// Thread-safety: Run is thread-safe (the inner cache deduplicates
// concurrent compiles of one key).
#ifndef XLA_JIT_FAST_TIER_FALLBACK_H_
#define XLA_JIT_FAST_TIER_FALLBACK_H_

#include <memory>
#include <string>
#include <vector>

#include "xla/jit/compilation_cache.h"
#include "xla/jit/fallback.h"
#include "xla/jit/jit_compiler.h"

namespace xla::jit {

class FastTierFallback : public JitFallback {
 public:
  // `fast_compiler` should be the cheap tier (e.g. HostJitCompiler with
  // FastTierOptions()); `executor` as CompilationCacheOptions::executor.
  explicit FastTierFallback(std::shared_ptr<JitCompiler> fast_compiler,
                            stream_executor::StreamExecutor* executor = nullptr);

  std::string name() const override { return "fast_tier"; }
  // Errors: the fast compilation's (stored and returned on later calls for
  // the key) and the execution's.
  absl::StatusOr<std::vector<Literal>> Run(const std::shared_ptr<const JitModule>& module,
                                          const CacheKey& key,
                                          absl::Span<const Literal> arguments) override;

  // The inner strict cache (statistics of the fast tier).
  const CompilationCache& cache() const { return cache_; }

 private:
  CompilationCache cache_;
};

}  // namespace xla::jit

#endif  // XLA_JIT_FAST_TIER_FALLBACK_H_
