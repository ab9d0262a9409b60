// Internal to the evaluator: multi-dimensional index helpers over row-major
// literals. Pure functions; thread-safe.
#ifndef XLA_HLO_EVALUATOR_INDEX_UTIL_H_
#define XLA_HLO_EVALUATOR_INDEX_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "xla/util/math_util.h"

namespace xla::evaluator {

// Row-major strides of `dims` (the last dimension has stride 1).
inline std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

// Advances `index` to the next row-major position within `dims`. Returns false
// (leaving `index` all zeros) after the last position.
inline bool NextIndex(std::vector<int64_t>& index, absl::Span<const int64_t> dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

// Row-major linear position of `index` in `dims`.
inline int64_t LinearIndex(absl::Span<const int64_t> index, absl::Span<const int64_t> dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

// Element count of `dims` (1 for a scalar).
inline int64_t ElementCount(absl::Span<const int64_t> dims) { return Product(dims); }

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_INDEX_UTIL_H_
