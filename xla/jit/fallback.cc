#include "xla/jit/fallback.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::jit {
namespace {

void FlattenInto(Literal literal, std::vector<Literal>* out) {
  if (!literal.shape().IsTuple()) {
    out->push_back(std::move(literal));
    return;
  }
  for (Literal& element : *literal.mutable_tuple_elements()) FlattenInto(std::move(element), out);
}

}  // namespace

std::vector<Literal> FlattenLeaves(Literal literal) {
  std::vector<Literal> leaves;
  FlattenInto(std::move(literal), &leaves);
  return leaves;
}

absl::StatusOr<std::vector<Literal>> FunctionFallback::Run(const std::shared_ptr<const JitModule>& module,
                                                          const CacheKey& key,
                                                          absl::Span<const Literal> arguments) {
  return function_(*module, arguments);
}

absl::StatusOr<std::vector<Literal>> EvaluatorFallback::Run(const std::shared_ptr<const JitModule>& module,
                                                           const CacheKey& key,
                                                           absl::Span<const Literal> arguments) {
  if (module->instruction_count() > max_instructions_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "evaluator fallback: module ", module->name(), " has ", module->instruction_count(),
        " instructions, more than the limit of ", max_instructions_,
        "; use the fast tier or a strict cache for it"));
  }
  ASSIGN_OR_RETURN(Literal result, HloEvaluator(options_).Evaluate(module->module(), arguments));
  return FlattenLeaves(std::move(result));
}

}  // namespace xla::jit
