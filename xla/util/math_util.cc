#include "xla/util/math_util.h"

namespace xla {

int64_t Product(absl::Span<const int64_t> dims) { return Product(dims, 0, dims.size()); }

int64_t Product(absl::Span<const int64_t> dims, size_t from, size_t to) {
  int64_t product = 1;
  for (size_t i = from; i < to; ++i) product *= dims[i];
  return product;
}

std::optional<int64_t> CheckedProduct(absl::Span<const int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(product, d, &product)) return std::nullopt;
  }
  return product;
}

int64_t CeilDiv(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  return a / b + (a % b != 0 ? 1 : 0);
}

int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

}  // namespace xla
