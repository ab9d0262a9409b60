// The chain between attention's two dots in plain HLO, as JAX writes it:
// from the output dot's probabilities operand down to the score dot,
// through the softmax (normalization, exp, max subtraction), the mask, the
// scale, and the converts of 16-bit attention (attention_rewriter.h lists
// the accepted spellings). The attention matchers (attention_rewriter.cc)
// call it once per candidate output dot and check the dots themselves.
//
// Thread-safety: reads the module only; safe while nothing mutates it.
#ifndef XLA_SERVICE_FUSION_ATTENTION_SCORE_CHAIN_H_
#define XLA_SERVICE_FUSION_ATTENTION_SCORE_CHAIN_H_

#include <optional>

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/service/fusion/attention_mask.h"

namespace xla {

// The most negative finite fill that still counts as "masked out":
// exp(fill - rowmax) underflows to exactly 0 in f32 (attention_rewriter.h).
inline constexpr double kAttentionLargestFill = -1e9;

// The masked scores without their mask, what the mask hides, and the
// fill of a select.
struct AttentionUnmasked {
  HloInstruction* scores;
  AttentionMask mask;
  double fill;
};

// The score side of a match, from the output dot's probabilities down to
// the score dot.
struct AttentionScoreSide {
  HloInstruction* dot;     // the score dot (its dims are the caller's)
  HloInstruction* layout;  // grouped: the transpose/reshape, or null
  HloInstruction* p;       // the probabilities in the softmax's type
  double scale;            // the scores' scale (1 without one)
  AttentionUnmasked masked;
};

// Peels the softmax, mask, scale and converts off `p_dot` (the output
// dot `out`'s probabilities operand) down to the score dot; with
// `grouped`, also one layout op (transpose or reshape) below the mask. The
// dots' type is `type` (16-bit: the mixed-precision or 16-bit softmax
// spellings). Without `query_axis` the scores are [batch..., Skv] (one
// query, a decode step). nullopt when any step is not an accepted
// spelling, when an intermediate has users outside the chain, or when the
// mask is not one the kernel computes exactly. Never fails otherwise.
std::optional<AttentionScoreSide> PeelAttentionScores(HloInstruction* out, HloInstruction* p_dot,
                                                      PrimitiveType type, bool grouped,
                                                      bool query_axis = true);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_ATTENTION_SCORE_CHAIN_H_
