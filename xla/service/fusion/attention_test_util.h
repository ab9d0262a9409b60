// Test-only: attention written out in plain HLO the ways JAX writes it
// (and near misses of it), for the attention-rewriter pass test and the
// end-to-end host test. One function, so both tests exercise the same
// modules.
//
// Thread-safety: pure functions.
#ifndef XLA_SERVICE_FUSION_ATTENTION_TEST_UTIL_H_
#define XLA_SERVICE_FUSION_ATTENTION_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla/types/literal.h"

namespace xla::attention_test {

// One attention module; the fields say how it is spelled.
struct Spelling {
  std::vector<int64_t> batch = {2, 3};
  int64_t sq = 33, skv = 33, d = 16, dv = 16;
  std::string type = "f32";  // of q, k, v, both dots and the output
  // Where a 16-bit `type`'s softmax computes: "same" (every step in
  // `type`, the row sum too), "f32" (mixed precision, JAX's
  // softmax(s.astype(f32)).astype(t): convert after the mask, the softmax
  // in f32, convert back before the P.V dot), "f32_early" (the convert
  // right after the score dot: scale and mask in f32 too), "f32_dot"
  // (no score convert: the score dot takes 16-bit operands and gives f32
  // scores, JAX's preferred_element_type=f32 and
  // jax.nn.dot_product_attention's; scale and mask in f32), "f32_sum"
  // (JAX's jax.nn.softmax of 16-bit scores: every step in `type` but the
  // row sum, which jnp.sum takes in f32 between converts).
  std::string softmax = "same";
  // "" (none), "mul", "mul_left", "div"; applied to the scores.
  std::string scale = "mul";
  // "", "causal_select", "causal_select_inverted", "causal_add",
  // "param_select" (a mask parameter), "bottom_right_select".
  std::string mask;
  std::string fill = "-inf";  // the select fill / additive mask value
  // Padding from a lengths parameter s32[batch[0]] (JAX's
  // `arange(S)[None, :] < lengths[:, None]`, broadcast over the other
  // dims), combined with the causal mask (`mask` "", "causal_select", or
  // "causal_select_inverted" with padding_hidden) by `and`:
  // "key" (k < len), "key_inclusive" (k <= len), "query_key" (q < len and
  // k < len), and the near misses "query" (q < len only), "key_bool" (a
  // pred[batch[0], skv] parameter), "key_per_head" (s32[batch[0],
  // batch[1]] lengths), "key_additive" (s + where(k < len, 0, fill)).
  std::string padding;
  // Build the hidden part instead (k >= len | q >= len | k > q) and
  // select(hidden, fill, s).
  bool padding_hidden = false;
  bool clamp_max = true;       // maximum(reduce-max, -inf) like jax.nn.softmax
  bool reciprocal = false;     // e * (1 / sum) instead of e / sum
  bool keepdims_chains = true;  // JAX's reshape/broadcast chains for the rows
  // Near misses.
  bool no_max_subtraction = false;
  bool softmax_over_queries = false;  // reduce over the query axis
  bool max_of_unmasked = false;        // max of the scores before the mask
  bool mask_after_softmax = false;     // select(mask, p, 0) before the dot
  bool scale_after_softmax = false;    // p * c before the dot
  bool scale_v = false;                // dot(p, v * c): still attention
  bool extra_output = false;           // the probabilities are also returned
};

// The numeric contract of fusing 16-bit attention (docs/attention_fusion.md,
// "16-bit attention"): a bound on |o_fused - o_unfused| per output
// element for a module spelled as `Spelling` says, on inputs uniform in
// [-1, 1) (so |v| <= 1 and every score |s| <= smax = scale * d). With u the
// unit roundoff of the 16-bit type (2^-8 bf16, 2^-11 f16):
//
//   bound = e^(2 delta) (1 + u)^m (1 + f) - 1 + u (|o_fused| + |o_unfused|) + Skv tiny
//
// delta bounds the error of one exponent s_i - max in the unfused module:
// it rounds each score to 16 bits k times (the dot; k = 1 here: the
// scales are powers of two; k = 0 for an f32 score dot), each an absolute
// error of at most u smax,
// and a softmax in 16 bits also rounds s - max (|s - max| <= 2 smax):
// delta = (k + 2 [16-bit softmax]) u smax. A relative error of at most
// delta' in every exp(s_i - max) moves each probability by a factor
// within e^(+-2 delta'); m counts the probability's own 16-bit roundings
// (1: the convert; 3 for a 16-bit softmax: exp, the rounded sum, the
// quotient); f = (Skv + d + 8) 2^-24 covers the f32 steps of either side
// (the f32 softmax, the host kernel's f32 sums and exp). So
// sum_i |p'_i - p_i| |v_i| is at most the product minus 1; each side's
// output is rounded to 16 bits once more (u |o|). tiny is f16's largest
// subnormal rounding error (2^-25, once per key; 0 for bf16).
struct ContractBound {
  double u = 0, tiny = 0, smax = 0, f32_steps = 0;
  int score_roundings = 1;  // k
  int prob_roundings = 1;   // m
  bool softmax_16bit = false;
  int64_t skv = 0;

  // The bound for one element whose fused and unfused values are given.
  double Of(double fused, double unfused) const;
};

// The bound for attention of `f16` (else bf16) with |scaled score| <=
// `smax`, `skv` keys, head dim `d`, each score rounded
// `score_roundings` times, and a 16-bit softmax (else an f32 one).
ContractBound MakeContractBound(bool f16, double smax, int64_t skv, int64_t d,
                                int score_roundings, bool softmax_16bit);

// The bound for a 16-bit `s` ("bf16" or "f16"; `scale` "" or the
// power-of-two constants of AttentionHlo).
ContractBound ContractBoundFor(const Spelling& s);

// OK when every element of `fused` is within `bound` of `unfused`'s (NaN
// exactly where `unfused` has NaN); otherwise InvalidArgument naming how
// many differ, the first one with its bound, and the worst error/bound.
absl::Status WithinContract(const ContractBound& bound, const Literal& unfused,
                            const Literal& fused);

// The module: parameters q [batch..., sq, d], k [batch..., skv, d],
// v [batch..., skv, dv] (then a pred mask for "param_select", then the
// padding's lengths or boolean mask); the result
// is the attention output (plus the probabilities with extra_output).
std::string AttentionHlo(const Spelling& s);

// The start of an attention module's text: `HloModule name`, the
// softmax's reducers `max_r` (over `max_type`) and `add_r` (over
// `sum_type`: "f32", "bf16", ...) and `ENTRY main {`.
std::string ModuleHeader(const std::string& name, const std::string& max_type = "f32",
                         const std::string& sum_type = "f32");

}  // namespace xla::attention_test

#endif  // XLA_SERVICE_FUSION_ATTENTION_TEST_UTIL_H_
