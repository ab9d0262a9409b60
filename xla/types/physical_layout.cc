#include "xla/types/physical_layout.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace {

// Tiles (`T(...)` in the suffix) change the byte order; element sizes
// (`E(n)`: the runtime keeps one element per ByteWidth bytes) and memory
// spaces (`S(n)`) do not.
bool HasTiling(const Layout& layout) {
  return layout.suffix.find("T(") != std::string::npos;
}

// Physical stride (in elements) of each logical dimension, or an error.
absl::StatusOr<std::vector<int64_t>> PhysicalStrides(const Shape& shape) {
  const std::vector<int64_t>& dims = shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> m2m;
  if (shape.has_layout()) {
    if (HasTiling(shape.layout())) {
      return absl::UnimplementedError(absl::StrCat("layout suffix '", shape.layout().suffix, "' of ",
                                                   shape.ToString(), " is not supported here"));
    }
    m2m = shape.layout().minor_to_major;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d) m2m.push_back(d);
  }
  std::vector<int64_t> sorted = m2m;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t d = 0; d < rank; ++d) {
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[d] != d) {
      return absl::InvalidArgumentError(absl::StrCat("layout {", absl::StrJoin(m2m, ","),
                                                     "} is not a permutation of the dimensions of ",
                                                     shape.ToString()));
    }
  }
  std::vector<int64_t> strides(rank, 1);
  int64_t stride = 1;
  for (int64_t d : m2m) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

// Copies element by element; `to_physical` picks the direction.
absl::Status Permute(const Shape& shape, absl::Span<const uint8_t> from, absl::Span<uint8_t> to,
                     bool to_physical) {
  if (shape.IsTuple()) {
    return absl::InvalidArgumentError(absl::StrCat("expected an array, got ", shape.ToString()));
  }
  const int64_t width = ByteWidth(shape.element_type());
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) count *= d;
  if (static_cast<int64_t>(from.size()) != count * width ||
      static_cast<int64_t>(to.size()) != count * width) {
    return absl::InvalidArgumentError(absl::StrCat("buffers of ", from.size(), " and ", to.size(),
                                                   " bytes for ", shape.ToString(), " (",
                                                   count * width, " bytes)"));
  }
  absl::StatusOr<std::vector<int64_t>> strides = PhysicalStrides(shape);
  if (!strides.ok()) return strides.status();
  const std::vector<int64_t>& dims = shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> index(rank, 0);
  int64_t physical = 0;
  for (int64_t logical = 0; logical < count; ++logical) {
    const int64_t src = to_physical ? logical : physical;
    const int64_t dst = to_physical ? physical : logical;
    std::memcpy(to.data() + dst * width, from.data() + src * width, width);
    // Advance the row-major index and its physical offset.
    for (int64_t d = rank - 1; d >= 0; --d) {
      physical += (*strides)[d];
      if (++index[d] < dims[d]) break;
      physical -= (*strides)[d] * dims[d];
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool PhysicalOrderIsLogical(const Shape& shape) {
  if (shape.IsTuple()) return false;
  if (!shape.has_layout()) return true;
  if (HasTiling(shape.layout())) return false;
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) count *= d;
  if (count <= 1) return true;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  const int64_t rank = static_cast<int64_t>(shape.dimensions().size());
  if (static_cast<int64_t>(m2m.size()) != rank) return false;
  for (int64_t i = 0; i < rank; ++i) {
    if (m2m[i] != rank - 1 - i) return false;
  }
  return true;
}

absl::Status LogicalToPhysical(const Shape& shape, absl::Span<const uint8_t> logical,
                               absl::Span<uint8_t> physical) {
  return Permute(shape, logical, physical, /*to_physical=*/true);
}

absl::Status PhysicalToLogical(const Shape& shape, absl::Span<const uint8_t> physical,
                               absl::Span<uint8_t> logical) {
  return Permute(shape, physical, logical, /*to_physical=*/false);
}

}  // namespace xla
