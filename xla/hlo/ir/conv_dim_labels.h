// Parsing of convolution dimension labels such as `b01f_01io->b01f`.
//
// Input and output use `b` (batch), `f` (feature) and digits (spatial
// dimension number); the kernel uses `i` (input feature), `o` (output
// feature) and digits. Each spatial number 0..n-1 appears exactly once per
// part, and all parts have the same rank. Pure and thread-safe.
#ifndef XLA_HLO_IR_CONV_DIM_LABELS_H_
#define XLA_HLO_IR_CONV_DIM_LABELS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_attribute.h"

namespace xla {

// Parses `text`; InvalidArgumentError (naming the problem) when malformed.
absl::StatusOr<ConvDimLabels> ParseConvDimLabels(absl::string_view text);

}  // namespace xla

#endif  // XLA_HLO_IR_CONV_DIM_LABELS_H_
