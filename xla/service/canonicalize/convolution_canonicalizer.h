// ConvolutionCanonicalizer ("convolution-canonicalizer"): one dimension
// order for every convolution.
//
// After the pass every convolution with static shapes has dim_labels
// `b0..f_0..io->b0..f`: `bf_io->bf`, `b0f_0io->b0f`, `b01f_01io->b01f`
// (NHWC input, HWIO kernel, NHWC output), `b012f_012io->b012f`, ... The
// operands are transposed into that order (a reshape when only unit dims
// move) and the result is transposed back to the original order. Window,
// feature_group_count and batch_group_count are kept: they refer to the
// labelled dims, not to positions. Idempotent. Not thread-safe.
#ifndef XLA_SERVICE_CANONICALIZE_CONVOLUTION_CANONICALIZER_H_
#define XLA_SERVICE_CANONICALIZE_CONVOLUTION_CANONICALIZER_H_

#include <cstdint>
#include <string>

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class ConvolutionCanonicalizer : public HloPass {
 public:
  absl::string_view name() const override { return "convolution-canonicalizer"; }
  // Fails only on a convolution without dim_labels or with labels that do
  // not match its rank (an unverified module); the error names it.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// The canonical labels for `spatial_dims` spatial dimensions, e.g.
// "b01f_01io->b01f" for 2. Pure.
std::string CanonicalConvDimLabels(int64_t spatial_dims);

// True when `conv` is a convolution whose dim_labels are canonical. Pure.
bool IsCanonicalConvolution(const HloInstruction& conv);

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_CONVOLUTION_CANONICALIZER_H_
