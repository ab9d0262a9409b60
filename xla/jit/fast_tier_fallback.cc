#include "xla/jit/fast_tier_fallback.h"

#include <utility>

#include "xla/util/status_macros.h"

namespace xla::jit {
namespace {

CompilationCacheOptions InnerOptions(stream_executor::StreamExecutor* executor) {
  CompilationCacheOptions options;
  options.mode = CompileMode::kStrict;
  options.error_policy = ErrorPolicy::kReturnError;
  options.executor = executor;
  options.pool.num_threads = 1;  // unused in strict mode; keep it small
  options.pool.max_in_flight = 1;
  return options;
}

}  // namespace

FastTierFallback::FastTierFallback(std::shared_ptr<JitCompiler> fast_compiler,
                                   stream_executor::StreamExecutor* executor)
    : cache_(std::move(fast_compiler), InnerOptions(executor)) {}

absl::StatusOr<std::vector<Literal>> FastTierFallback::Run(const std::shared_ptr<const JitModule>& module,
                                                          const CacheKey& key,
                                                          absl::Span<const Literal> arguments) {
  ASSIGN_OR_RETURN(RunResult result, cache_.Run(module, arguments, CompileMode::kStrict));
  return std::move(result.outputs);
}

}  // namespace xla::jit
