// The fallback path: what a request runs while its key is not compiled yet
// (lazy below the threshold, async while compiling or above the in-flight
// cap) or after its compilation failed (ErrorPolicy::kFallbackAndReport).
//
// Implementations here: a caller-supplied function and the reference
// evaluator for small modules. The fast compiled tier is in
// fast_tier_fallback.h.
//
// Results are the output leaves in depth-first order, as
// xla::aot::ExecuteOnLiterals returns them, so callers see one format
// whichever path ran.
#ifndef XLA_JIT_FALLBACK_H_
#define XLA_JIT_FALLBACK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/jit/cache_key.h"
#include "xla/jit/jit_module.h"
#include "xla/types/literal.h"

namespace xla::jit {

class JitFallback {
 public:
  virtual ~JitFallback() = default;
  // For statistics and messages ("evaluator", "fast_tier", ...).
  virtual std::string name() const = 0;
  // Runs `module` (whose cache key is `key`) on `arguments`. Thread-safe:
  // called from every requesting thread at once.
  virtual absl::StatusOr<std::vector<Literal>> Run(const std::shared_ptr<const JitModule>& module,
                                                  const CacheKey& key,
                                                  absl::Span<const Literal> arguments) = 0;
};

// The leaves of `literal` (itself when it is not a tuple), depth-first.
std::vector<Literal> FlattenLeaves(Literal literal);

// Calls a caller-supplied function (which must be thread-safe).
class FunctionFallback : public JitFallback {
 public:
  using Function = std::function<absl::StatusOr<std::vector<Literal>>(
      const JitModule& module, absl::Span<const Literal> arguments)>;
  explicit FunctionFallback(Function function, std::string name = "function")
      : function_(std::move(function)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  absl::StatusOr<std::vector<Literal>> Run(const std::shared_ptr<const JitModule>& module,
                                          const CacheKey& key,
                                          absl::Span<const Literal> arguments) override;

 private:
  Function function_;
  std::string name_;
};

// Runs the reference evaluator, for modules of at most `max_instructions`
// instructions (the evaluator is exact but slow). Errors: FailedPrecondition
// for a larger module (naming its size and the limit), and the evaluator's
// own errors (unsupported op, time limit).
class EvaluatorFallback : public JitFallback {
 public:
  explicit EvaluatorFallback(int64_t max_instructions = 1000, EvaluatorOptions options = {})
      : max_instructions_(max_instructions), options_(options) {}
  std::string name() const override { return "evaluator"; }
  absl::StatusOr<std::vector<Literal>> Run(const std::shared_ptr<const JitModule>& module,
                                          const CacheKey& key,
                                          absl::Span<const Literal> arguments) override;

 private:
  int64_t max_instructions_;
  EvaluatorOptions options_;
};

}  // namespace xla::jit

#endif  // XLA_JIT_FALLBACK_H_
