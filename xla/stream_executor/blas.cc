#include "xla/stream_executor/blas.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/util/status_macros.h"

namespace stream_executor {
namespace {

absl::Status CheckAtLeast(absl::string_view field, int64_t value, int64_t min) {
  if (value >= min) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, " is ", value, ", below ", min));
}

// The `what` buffer must hold (batch - 1) * stride + elements elements.
absl::Status CheckOperand(absl::string_view what, const DeviceMemoryBase& buffer, int64_t batch,
                          int64_t stride, int64_t elements, int64_t width) {
  const __int128 needed =
      ((static_cast<__int128>(batch) - 1) * stride + elements) * static_cast<__int128>(width);
  if (needed <= static_cast<__int128>(buffer.size)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the ", what, " buffer has ", buffer.size,
                                                 " bytes but the GEMM reads ",
                                                 static_cast<int64_t>(needed)));
}

}  // namespace

int64_t BlasElementBytes(BlasElementType type) {
  switch (type) {
    case BlasElementType::kF16:
    case BlasElementType::kBF16:
      return 2;
    case BlasElementType::kF32:
      return 4;
    case BlasElementType::kF64:
      return 8;
  }
  return 0;
}

absl::Status CheckBlasGemmOperands(const BlasGemmConfig& c, const DeviceMemoryBase& lhs,
                                   const DeviceMemoryBase& rhs, const DeviceMemoryBase& out) {
  const int64_t width = BlasElementBytes(c.element_type);
  if (width == 0) {
    return absl::InvalidArgumentError(absl::StrCat("unknown element type ",
                                                   static_cast<int>(c.element_type)));
  }
  RETURN_IF_ERROR(CheckAtLeast("m", c.m, 1));
  RETURN_IF_ERROR(CheckAtLeast("n", c.n, 1));
  RETURN_IF_ERROR(CheckAtLeast("k", c.k, 1));
  RETURN_IF_ERROR(CheckAtLeast("batch_size", c.batch_size, 0));
  RETURN_IF_ERROR(CheckAtLeast("lhs_batch_stride", c.lhs_batch_stride, 0));
  RETURN_IF_ERROR(CheckAtLeast("rhs_batch_stride", c.rhs_batch_stride, 0));
  RETURN_IF_ERROR(CheckAtLeast("output_batch_stride", c.output_batch_stride, 0));
  const int64_t batch = std::max<int64_t>(c.batch_size, 1);
  RETURN_IF_ERROR(CheckOperand("lhs", lhs, batch, c.lhs_batch_stride, c.m * c.k, width));
  RETURN_IF_ERROR(CheckOperand("rhs", rhs, batch, c.rhs_batch_stride, c.k * c.n, width));
  return CheckOperand("output", out, batch, c.output_batch_stride, c.m * c.n, width);
}

}  // namespace stream_executor
