#include "xla/tools/stacked_literals.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace xla::tools {

Literal LeadingSlice(const Literal& stacked, int64_t index) {
  const Shape& shape = stacked.shape();
  const std::vector<int64_t> dims(shape.dimensions().begin() + 1, shape.dimensions().end());
  Literal slice(Shape::Array(shape.element_type(), dims));
  const size_t bytes = slice.data().size();
  if (bytes > 0) {
    std::memcpy(slice.mutable_data().data(), stacked.data().data() + index * bytes, bytes);
  }
  return slice;
}

absl::StatusOr<std::vector<Literal>> UnstackLeading(const Literal& stacked, int64_t n,
                                                    absl::string_view what) {
  const Shape& shape = stacked.shape();
  if (!shape.IsArray() || shape.dimensions().empty() || shape.dimensions()[0] != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has shape ", shape.ToString(false), " but --replicas=", n,
        " needs a leading dimension of ", n, " (one slice per replica)"));
  }
  std::vector<Literal> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) out.push_back(LeadingSlice(stacked, i));
  return out;
}

absl::StatusOr<Literal> StackLeading(absl::Span<const Literal* const> parts,
                                     absl::string_view what) {
  if (parts.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": nothing to stack"));
  const Shape& first = parts[0]->shape();
  std::vector<int64_t> dims = {static_cast<int64_t>(parts.size())};
  dims.insert(dims.end(), first.dimensions().begin(), first.dimensions().end());
  Literal out(Shape::Array(first.element_type(), dims));
  const size_t bytes = parts[0]->data().size();
  for (size_t i = 0; i < parts.size(); ++i) {
    const Shape& shape = parts[i]->shape();
    if (!shape.IsArray() || shape.element_type() != first.element_type() ||
        shape.dimensions() != first.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": participant ", i, " has shape ", shape.ToString(false),
          " but participant 0 has ", first.ToString(false),
          "; outputs of different shapes cannot be stacked"));
    }
    if (bytes > 0) std::memcpy(out.mutable_data().data() + i * bytes, parts[i]->data().data(), bytes);
  }
  return out;
}

absl::StatusOr<Literal> StackLeading(absl::Span<const Literal> parts, absl::string_view what) {
  std::vector<const Literal*> pointers;
  pointers.reserve(parts.size());
  for (const Literal& part : parts) pointers.push_back(&part);
  return StackLeading(absl::MakeConstSpan(pointers), what);
}

absl::StatusOr<std::vector<std::vector<Literal>>> UnstackArguments(
    absl::Span<const Literal> stacked, int64_t n) {
  std::vector<std::vector<Literal>> args(n);
  for (size_t p = 0; p < stacked.size(); ++p) {
    if (stacked[p].shape().IsToken()) {  // holds nothing: a token for everyone
      for (int64_t r = 0; r < n; ++r) args[r].emplace_back(stacked[p].shape());
      continue;
    }
    absl::StatusOr<std::vector<Literal>> slices =
        UnstackLeading(stacked[p], n, absl::StrCat("input ", p));
    if (!slices.ok()) return slices.status();
    for (int64_t r = 0; r < n; ++r) args[r].push_back(std::move((*slices)[r]));
  }
  return args;
}

absl::StatusOr<std::vector<Literal>> StackParticipantLeaves(
    const std::vector<std::vector<const Literal*>>& leaves, absl::string_view what) {
  std::vector<Literal> stacked;
  const size_t count = leaves.empty() ? 0 : leaves[0].size();
  for (size_t r = 0; r < leaves.size(); ++r) {
    if (leaves[r].size() != count) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": participant ", r, " has ",
                                                     leaves[r].size(), " result leaves but participant 0 has ",
                                                     count));
    }
  }
  for (size_t k = 0; k < count; ++k) {
    std::vector<const Literal*> parts;
    for (const auto& participant : leaves) parts.push_back(participant[k]);
    absl::StatusOr<Literal> s = StackLeading(absl::MakeConstSpan(parts), absl::StrCat(what, " ", k));
    if (!s.ok()) return s.status();
    stacked.push_back(std::move(*s));
  }
  return stacked;
}

}  // namespace xla::tools
