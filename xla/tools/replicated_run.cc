#include "xla/tools/replicated_run.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "xla/aot/replicated_execution.h"
#include "xla/util/status_macros.h"

namespace xla::tools {

absl::StatusOr<std::vector<Literal>> UnstackLeading(const Literal& stacked, int64_t n,
                                                    absl::string_view what) {
  const Shape& shape = stacked.shape();
  if (!shape.IsArray() || shape.dimensions().empty() || shape.dimensions()[0] != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has shape ", shape.ToString(false), " but --replicas=", n,
        " needs a leading dimension of ", n, " (one slice per replica)"));
  }
  const std::vector<int64_t> dims(shape.dimensions().begin() + 1, shape.dimensions().end());
  const Shape slice_shape = Shape::Array(shape.element_type(), dims);
  const size_t bytes = stacked.data().size() / static_cast<size_t>(n);
  std::vector<Literal> out;
  for (int64_t i = 0; i < n; ++i) {
    Literal slice(slice_shape);
    if (bytes > 0) std::memcpy(slice.mutable_data().data(), stacked.data().data() + i * bytes, bytes);
    out.push_back(std::move(slice));
  }
  return out;
}

absl::StatusOr<Literal> StackLeading(absl::Span<const Literal> parts, absl::string_view what) {
  if (parts.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": nothing to stack"));
  const Shape& first = parts[0].shape();
  std::vector<int64_t> dims = {static_cast<int64_t>(parts.size())};
  dims.insert(dims.end(), first.dimensions().begin(), first.dimensions().end());
  Literal out(Shape::Array(first.element_type(), dims));
  const size_t bytes = parts[0].data().size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].shape().IsArray() || parts[i].shape().element_type() != first.element_type() ||
        parts[i].shape().dimensions() != first.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": replica ", i, " has shape ", parts[i].shape().ToString(false),
          " but replica 0 has ", first.ToString(false)));
    }
    if (bytes > 0) std::memcpy(out.mutable_data().data() + i * bytes, parts[i].data().data(), bytes);
  }
  return out;
}

absl::StatusOr<std::vector<Literal>> RunReplicated(aot::Executable& executable,
                                                   int64_t num_replicas,
                                                   absl::Span<const Literal> stacked_inputs,
                                                   absl::Duration collective_timeout) {
  aot::ReplicatedExecutionOptions options;
  options.num_replicas = num_replicas;
  options.collective_timeout = collective_timeout;
  ASSIGN_OR_RETURN(std::unique_ptr<aot::ReplicatedExecutor> exec,
                   aot::ReplicatedExecutor::Create(executable, options));
  std::vector<std::vector<Literal>> args(num_replicas);
  for (size_t p = 0; p < stacked_inputs.size(); ++p) {
    ASSIGN_OR_RETURN(std::vector<Literal> slices,
                     UnstackLeading(stacked_inputs[p], num_replicas, absl::StrCat("input ", p)));
    for (int64_t r = 0; r < num_replicas; ++r) args[r].push_back(std::move(slices[r]));
  }
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> results, exec->RunOnLiterals(args));
  std::vector<Literal> stacked;
  const size_t leaves = results.empty() ? 0 : results[0].size();
  for (size_t k = 0; k < leaves; ++k) {
    std::vector<Literal> parts;
    for (int64_t r = 0; r < num_replicas; ++r) parts.push_back(std::move(results[r][k]));
    ASSIGN_OR_RETURN(Literal s, StackLeading(parts, absl::StrCat("output ", k)));
    stacked.push_back(std::move(s));
  }
  return stacked;
}

}  // namespace xla::tools
