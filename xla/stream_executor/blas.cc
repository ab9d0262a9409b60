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

// The bytes (batch - 1) * stride + elements elements of `width` bytes take.
__int128 Needed(int64_t batch, int64_t stride, int64_t elements, int64_t width) {
  return ((static_cast<__int128>(batch) - 1) * stride + elements) * static_cast<__int128>(width);
}

// The `what` buffer must hold (batch - 1) * stride + elements elements.
absl::Status CheckOperand(absl::string_view what, const DeviceMemoryBase& buffer, int64_t batch,
                          int64_t stride, int64_t elements, int64_t width) {
  const __int128 needed = Needed(batch, stride, elements, width);
  if (needed <= static_cast<__int128>(buffer.size)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the ", what, " buffer has ", buffer.size,
                                                 " bytes but the GEMM reads ",
                                                 static_cast<int64_t>(needed)));
}

}  // namespace

int64_t BlasElementBytes(BlasElementType type) {
  switch (type) {
    case BlasElementType::kF8E4M3FN:
    case BlasElementType::kF8E5M2:
      return 1;
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
  const int64_t lhs_width = BlasElementBytes(BlasLhsType(c));
  const int64_t rhs_width = BlasElementBytes(BlasRhsType(c));
  if (width == 0 || lhs_width == 0 || rhs_width == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown element type ", static_cast<int>(c.element_type), " (lhs ",
        static_cast<int>(BlasLhsType(c)), ", rhs ", static_cast<int>(BlasRhsType(c)), ")"));
  }
  const int64_t batch = std::max<int64_t>(c.batch_size, 1);
  // A GEMM thunk checks its operands on every run (each iteration of a host
  // while loop): accept the common valid case in a few comparisons, and
  // find the first broken rule below only otherwise.
  if (!IsBlasFp8Gemm(c) && c.m >= 1 && c.n >= 1 && c.k >= 1 && c.batch_size >= 0 &&
      c.lhs_batch_stride >= 0 && c.rhs_batch_stride >= 0 && c.output_batch_stride >= 0 &&
      Needed(batch, c.lhs_batch_stride, c.m * c.k, lhs_width) <= lhs.size &&
      Needed(batch, c.rhs_batch_stride, c.k * c.n, rhs_width) <= rhs.size &&
      Needed(batch, c.output_batch_stride, c.m * c.n, width) <= out.size) {
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(CheckBlasFp8Gemm(c));
  RETURN_IF_ERROR(CheckAtLeast("m", c.m, 1));
  RETURN_IF_ERROR(CheckAtLeast("n", c.n, 1));
  RETURN_IF_ERROR(CheckAtLeast("k", c.k, 1));
  RETURN_IF_ERROR(CheckAtLeast("batch_size", c.batch_size, 0));
  RETURN_IF_ERROR(CheckAtLeast("lhs_batch_stride", c.lhs_batch_stride, 0));
  RETURN_IF_ERROR(CheckAtLeast("rhs_batch_stride", c.rhs_batch_stride, 0));
  RETURN_IF_ERROR(CheckAtLeast("output_batch_stride", c.output_batch_stride, 0));
  RETURN_IF_ERROR(CheckOperand("lhs", lhs, batch, c.lhs_batch_stride, c.m * c.k, lhs_width));
  RETURN_IF_ERROR(CheckOperand("rhs", rhs, batch, c.rhs_batch_stride, c.k * c.n, rhs_width));
  return CheckOperand("output", out, batch, c.output_batch_stride, c.m * c.n, width);
}

bool IsBlasFp8Type(BlasElementType type) {
  return type == BlasElementType::kF8E4M3FN || type == BlasElementType::kF8E5M2;
}

bool IsBlasFp8Gemm(const BlasGemmConfig& c) {
  return IsBlasFp8Type(BlasLhsType(c)) || IsBlasFp8Type(BlasRhsType(c)) ||
         c.lhs_scale.opaque != nullptr || c.rhs_scale.opaque != nullptr;
}

absl::Status CheckBlasFp8Gemm(const BlasGemmConfig& c) {
  if (!IsBlasFp8Gemm(c)) return absl::OkStatus();
  auto bad = [](absl::string_view rule) {
    return absl::InvalidArgumentError(absl::StrCat("fp8 gemm: ", rule));
  };
  const BlasElementType lhs = BlasLhsType(c), rhs = BlasRhsType(c);
  if (!IsBlasFp8Type(lhs) || !IsBlasFp8Type(rhs)) {
    return bad("both operands must be f8e4m3fn or f8e5m2 (scales need fp8 operands)");
  }
  if (lhs == BlasElementType::kF8E5M2 && rhs == BlasElementType::kF8E5M2) {
    return bad("f8e5m2 x f8e5m2 is not supported by cuBLASLt; make one operand f8e4m3fn");
  }
  if (c.element_type != BlasElementType::kF16 && c.element_type != BlasElementType::kBF16 &&
      c.element_type != BlasElementType::kF32) {
    return bad("the output must be f16, bf16 or f32");
  }
  if (c.transpose_lhs || !c.transpose_rhs) {
    return bad("needs lhs [m,k] and rhs [n,k] (transpose_lhs false, transpose_rhs true: "
               "cuBLASLt's TN form)");
  }
  if (c.m % 16 != 0 || c.n % 16 != 0 || c.k % 16 != 0) {
    return bad(absl::StrCat("m, n and k must be multiples of 16, got ", c.m, ", ", c.n, ", ",
                            c.k));
  }
  for (const DeviceMemoryBase* scale : {&c.lhs_scale, &c.rhs_scale}) {
    if (scale->opaque != nullptr && scale->size < 4) {
      return bad(absl::StrCat("a scale buffer has ", scale->size, " bytes, needs 4 (one f32)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace stream_executor
