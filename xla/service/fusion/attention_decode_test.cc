// KV-cache decode steps that write the one query without its axis
// (benchmarks/models/gen/gen_broad.py's kv_decode: "bhd,bthd->bht", a mask
// `arange(T) <= pos` from a scalar position, "bht,bthd->bhd"), through the
// attention-rewriter: rewritten as attention with Sq = 1 and a key length
// pos + 1, and the evaluator gives the same results before and after for
// positions before the cache (-3: no key visible, the mean of V), 0,
// inside, T - 1 and past it, at odd sizes. Near misses stay unfused: a
// position mask that is a suffix, a mask per head, an additive mask, a
// fill that leaves hidden keys a weight, the softmax over heads; and every
// decode step when AttentionRewriterOptions::fuse_decode_steps is off.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/fusion/attention_rewriter.h"
#include "xla/service/fusion/attention_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::RunPassAndCheck;

struct Decode {
  int64_t b = 2, h = 3, t = 33, d = 16;
  std::string compare = "LE";   // arange(T) `compare` pos (LE, LT; GE: a suffix)
  bool per_head = false;        // pos s32[H] along the heads
  bool no_mask = false;
  std::string fill = "-1e9";
  bool heads_softmax = false;   // the softmax over the heads, not the keys
  bool k_first = false;         // dot(k, q) and dot(v, p)
};

std::string F32(std::vector<int64_t> dims) { return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]"); }

// f32: q [B, H, D], k and v [B, T, H, D], pos (parameter 3); the output
// [B, H, D].
std::string DecodeHlo(const Decode& x) {
  const int64_t b = x.b, h = x.h, t = x.t, d = x.d;
  const std::string st = F32({b, h, t}), row = F32({b, h});
  const std::string score_dot =
      x.k_first ? "dot(k, q), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
                  "rhs_contracting_dims={2}"
                : "dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,2}, "
                  "rhs_contracting_dims={3}";
  const std::string out_dot =
      x.k_first ? "dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, "
                  "rhs_contracting_dims={2}"
                : "dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,2}, "
                  "rhs_contracting_dims={1}";
  std::string mask;
  std::string masked = "s1";
  if (!x.no_mask) {
    const std::string pos_shape = x.per_head ? absl::StrCat("s32[", h, "]") : "s32[]";
    absl::StrAppend(&mask, "  pos = ", pos_shape, " parameter(3)\n", "  posb = s32[", b, ",", h, ",", t,
                    "] broadcast(pos), dimensions={", x.per_head ? "1" : "", "}\n",
                    "  ar = s32[", t, "] iota(), iota_dimension=0\n", "  arb = s32[", b, ",", h, ",",
                    t, "] broadcast(ar), dimensions={2}\n", "  keep = pred[", b, ",", h, ",", t,
                    "] compare(arb, posb), direction=", x.compare, "\n", "  fill = f32[] constant(",
                    x.fill, ")\n", "  fb = ", st, " broadcast(fill), dimensions={}\n", "  s2 = ", st,
                    " select(keep, s1, fb)\n");
    masked = "s2";
  }
  const int64_t reduce_dim = x.heads_softmax ? 1 : 2;
  const std::string red = x.heads_softmax ? F32({b, t}) : row;
  const std::string bdims = x.heads_softmax ? "{0,2}" : "{0,1}";
  return absl::StrCat(attention_test::ModuleHeader("decode"), "  q = ", F32({b, h, d}), R"( parameter(0)
  k = )", F32({b, t, h, d}), R"( parameter(1)
  v = )", F32({b, t, h, d}), R"( parameter(2)
  s0 = )", st, " ", score_dot, R"(
  c = f32[] constant(0.25)
  cb = )", st, R"( broadcast(c), dimensions={}
  s1 = )", st, R"( multiply(s0, cb)
)", mask, "  ninf = f32[] constant(-inf)\n", "  mx = ", red, " reduce(", masked, ", ninf), dimensions={",
                      reduce_dim, "}, to_apply=max_r\n", "  mxb = ", st, " broadcast(mx), dimensions=",
                      bdims, "\n", "  e0 = ", st, " subtract(", masked, ", mxb)\n", "  e = ", st,
                      " exponential(e0)\n", "  zero = f32[] constant(0)\n", "  sm = ", red,
                      " reduce(e, zero), dimensions={", reduce_dim, "}, to_apply=add_r\n", "  smb = ", st,
                      " broadcast(sm), dimensions=", bdims, "\n", "  p = ", st, " divide(e, smb)\n",
                      "  ROOT o = ", F32({b, h, d}), " ", out_dot, "\n}\n");
}

// Positions -3 (no key: the mean of V), 0, 1, inside, T - 1, T + 2.
void SetPosition(const Decode& x, std::vector<Literal>* inputs) {
  if (inputs->size() < 4) return;
  const int64_t table[] = {-3, 0, 1, x.t / 2, x.t - 1, x.t + 2};
  Literal& pos = (*inputs)[3];
  for (int64_t i = 0; i < pos.element_count(); ++i) {
    pos.SetInt(i, table[(2 * i + std::abs(pos.GetInt(i))) % 6]);
  }
}

void ExpectFused(const Decode& x, const std::string& mask_type) {
  AttentionRewriter pass;
  const std::string hlo = DecodeHlo(x);
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  options.adjust_inputs = [&](std::vector<Literal>* inputs) { SetPosition(x, inputs); };
  pass_test::PassResult r = RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed) << hlo;
  EXPECT_TRUE(Contains(r.text, absl::StrCat("mask_type = ", mask_type, " : i64")));
  EXPECT_TRUE(Contains(r.text, "q_max_seqlen = 1 : i64"));
  EXPECT_TRUE(Contains(r.text, absl::StrCat("kv_max_seqlen = ", x.t, " : i64")));
}

void ExpectUnfused(const Decode& x, AttentionRewriterOptions rewriter_options = {}) {
  AttentionRewriter pass(rewriter_options);
  const std::string hlo = DecodeHlo(x);
  pass_test::PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_FALSE(r.changed) << hlo;
}

TEST(AttentionDecode, KeyLengthFromThePosition) {
  Decode le;  // arange(T) <= pos: pos + 1 keys, B 2, H 3, T 33, d 16
  ExpectFused(le, "1");
  Decode lt;  // arange(T) < pos, T 40, d 64, one batch
  lt.compare = "LT";
  lt.t = 40;
  lt.d = 64;
  lt.b = 1;
  ExpectFused(lt, "1");
  Decode short_rows;  // fewer keys than a tile, head dim 8, -inf fill (NaN rows)
  short_rows.t = 7;
  short_rows.d = 8;
  short_rows.fill = "-inf";
  short_rows.k_first = true;
  ExpectFused(short_rows, "1");
  Decode unmasked;
  unmasked.no_mask = true;
  ExpectFused(unmasked, "0");
}

TEST(AttentionDecode, LeftUnfusedWhenDecodeStepsAreOff) {
  Decode le;  // the case KeyLengthFromThePosition fuses
  AttentionRewriterOptions options;
  options.fuse_decode_steps = false;
  ExpectUnfused(le, options);
}

TEST(AttentionDecode, NearMisses) {
  Decode suffix;  // arange(T) >= pos: the keys from pos on
  suffix.compare = "GE";
  ExpectUnfused(suffix);
  Decode per_head;  // a position per head
  per_head.per_head = true;
  ExpectUnfused(per_head);
  Decode weak_fill;
  weak_fill.fill = "-100";
  ExpectUnfused(weak_fill);
  Decode heads;  // the softmax over the heads
  heads.heads_softmax = true;
  heads.no_mask = true;
  ExpectUnfused(heads);
}

}  // namespace
}  // namespace xla
