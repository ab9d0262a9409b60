#include "xla/service/fusion/attention_test_util.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla::attention_test {
namespace {

std::string Dims(const std::vector<int64_t>& d) { return absl::StrJoin(d, ","); }

}  // namespace

double ContractBound::Of(double fused, double unfused) const {
  const double delta = (score_roundings + (softmax_16bit ? 2 : 0)) * u * smax;
  return std::exp(2 * delta) * std::pow(1 + u, prob_roundings) * (1 + f32_steps) - 1 +
         u * (std::fabs(fused) + std::fabs(unfused)) + static_cast<double>(skv) * tiny;
}

ContractBound MakeContractBound(bool f16, double smax, int64_t skv, int64_t d,
                                int score_roundings, bool softmax_16bit) {
  ContractBound b;
  b.u = std::ldexp(1.0, f16 ? -11 : -8);
  b.tiny = f16 ? std::ldexp(1.0, -25) : 0;
  b.smax = smax;
  b.f32_steps = static_cast<double>(skv + d + 8) * std::ldexp(1.0, -24);
  b.score_roundings = score_roundings;
  b.softmax_16bit = softmax_16bit;
  b.prob_roundings = softmax_16bit ? 3 : 1;
  b.skv = skv;
  return b;
}

ContractBound ContractBoundFor(const Spelling& s) {
  const double scale = s.scale.empty() ? 1.0 : 0.25;  // AttentionHlo's 0.25 and 1/4
  // An f32 score dot never rounds a score to 16 bits.
  return MakeContractBound(s.type == "f16", scale * static_cast<double>(s.d), s.skv, s.d,
                           /*score_roundings=*/s.softmax == "f32_dot" ? 0 : 1,
                           s.softmax == "f32_sum" || s.softmax == "same");
}

absl::Status WithinContract(const ContractBound& bound, const Literal& unfused,
                            const Literal& fused) {
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < unfused.element_count(); ++i) {
    const double want = unfused.GetDouble(i), got = fused.GetDouble(i);
    bool ok;
    if (std::isnan(want) || std::isnan(got)) {
      ok = std::isnan(want) && std::isnan(got);
    } else {
      const double ratio = std::fabs(got - want) / bound.Of(got, want);
      worst = std::max(worst, ratio);
      ok = ratio <= 1;
    }
    if (ok) continue;
    if (first < 0) first = i;
    ++bad;
  }
  if (bad == 0) return absl::OkStatus();
  const double want = unfused.GetDouble(first), got = fused.GetDouble(first);
  return absl::InvalidArgumentError(absl::StrCat(
      bad, " of ", unfused.element_count(), " elements outside the 16-bit attention contract; first at ",
      first, ": unfused ", want, ", fused ", got, ", bound ", bound.Of(got, want),
      " (worst error/bound ", worst, ")"));
}

std::string ModuleHeader(const std::string& name, const std::string& max_type,
                         const std::string& sum_type) {
  return absl::StrCat("\nHloModule ", name, "\nmax_r {\n  a = ", max_type, "[] parameter(0)\n  b = ",
                      max_type, "[] parameter(1)\n  ROOT m = ", max_type,
                      "[] maximum(a, b)\n}\nadd_r {\n  a = ", sum_type, "[] parameter(0)\n  b = ",
                      sum_type, "[] parameter(1)\n  ROOT s = ", sum_type,
                      "[] add(a, b)\n}\nENTRY main {\n");
}

std::string AttentionHlo(const Spelling& s) {
  const int64_t n = static_cast<int64_t>(s.batch.size());
  auto with = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> d = s.batch;
    d.insert(d.end(), tail.begin(), tail.end());
    return d;
  };
  const std::string t = s.type;
  // The types of the scale and mask (ts), of the softmax (st) and of its
  // row sum (sum_t).
  const bool f32_scores = s.softmax == "f32_early" || s.softmax == "f32_dot";
  const bool mixed = s.softmax == "f32" || f32_scores;
  const std::string ts = f32_scores ? "f32" : t;
  const std::string st = mixed ? "f32" : t;
  const std::string sum_t = s.softmax == "f32_sum" ? "f32" : st;
  const std::string full_s = absl::StrCat(ts, "[", Dims(with({s.sq, s.skv})), "]");
  const std::string full = absl::StrCat(st, "[", Dims(with({s.sq, s.skv})), "]");
  std::vector<int64_t> batch_iota;
  for (int64_t i = 0; i < n; ++i) batch_iota.push_back(i);
  const std::string bdims = Dims(batch_iota);
  const int64_t axis = s.softmax_over_queries ? n : n + 1;
  std::vector<int64_t> kept;  // the broadcast dims of a row value
  for (int64_t i = 0; i < n + 2; ++i) {
    if (i != axis) kept.push_back(i);
  }
  std::vector<int64_t> row_dims = with({s.softmax_over_queries ? s.skv : s.sq});
  const std::string row_shape = absl::StrCat(st, "[", Dims(row_dims), "]");
  std::string out = absl::StrCat(ModuleHeader("attention", st, sum_t), R"(  q = )", t, "[", Dims(with({s.sq, s.d})), R"(] parameter(0)
  k = )", t, "[", Dims(with({s.skv, s.d})), R"(] parameter(1)
  v0 = )", t, "[", Dims(with({s.skv, s.dv})), R"(] parameter(2)
  s0 = )", s.softmax == "f32_dot" ? "f32" : t, "[", Dims(with({s.sq, s.skv})), "] dot(q, k), lhs_batch_dims={", bdims, "}, lhs_contracting_dims={", n + 1,
                                 "}, rhs_batch_dims={", bdims, "}, rhs_contracting_dims={", n + 1,
                                 "}\n");
  std::string scores = "s0";
  if (s.softmax == "f32_early") {
    absl::StrAppend(&out, "  s0c = ", full_s, " convert(s0)\n");
    scores = "s0c";
  }
  if (!s.scale.empty()) {
    absl::StrAppend(&out, "  c = ", ts, "[] constant(", s.scale == "div" ? "4" : "0.25", ")\n",
                    "  cb = ", full_s, " broadcast(c), dimensions={}\n");
    const std::string op = s.scale == "div"        ? absl::StrCat("divide(", scores, ", cb)")
                           : s.scale == "mul_left" ? absl::StrCat("multiply(cb, ", scores, ")")
                                                   : absl::StrCat("multiply(", scores, ", cb)");
    absl::StrAppend(&out, "  s1 = ", full_s, " ", op, "\n");
    scores = "s1";
  }
  std::string masked = scores;
  int param = 3;
  const std::string pred = absl::StrCat("pred[", Dims(with({s.sq, s.skv})), "]");
  if (!s.mask.empty()) {
    const std::string mat = absl::StrCat("[", s.sq, ",", s.skv, "]");
    if (s.mask == "param_select") {
      absl::StrAppend(&out, "  mb = ", pred, " parameter(", param++, ")\n");
    } else {
      absl::StrAppend(&out, "  i0 = s32", mat, " iota(), iota_dimension=0\n",
                      "  i1 = s32", mat, " iota(), iota_dimension=1\n");
      if (s.mask == "bottom_right_select") {
        absl::StrAppend(&out, "  off = s32[] constant(", s.skv - s.sq, ")\n",
                        "  offb = s32", mat, " broadcast(off), dimensions={}\n",
                        "  i0s = s32", mat, " add(i0, offb)\n",
                        "  ge = pred", mat, " compare(i0s, i1), direction=GE\n");
      } else if (s.mask == "causal_select_inverted") {
        absl::StrAppend(&out, "  ge = pred", mat, " compare(i1, i0), direction=GT\n");
      } else {
        absl::StrAppend(&out, "  ge = pred", mat, " compare(i0, i1), direction=GE\n");
      }
      absl::StrAppend(&out, "  mb = ", pred, " broadcast(ge), dimensions={", n, ",", n + 1, "}\n");
    }
  }
  if (!s.padding.empty()) {
    // Visible (or, with padding_hidden, hidden) parts at [batch0, S],
    // broadcast like JAX's mask[:, None, None, :].
    const int64_t b0 = s.batch[0];
    const bool per_head = s.padding == "key_per_head";
    const std::string len_shape = per_head ? absl::StrCat("s32[", b0, ",", s.batch[1], "]")
                                           : absl::StrCat("s32[", b0, "]");
    if (s.padding == "key_bool") {
      absl::StrAppend(&out, "  kpart = pred[", b0, ",", s.skv, "] parameter(", param++, ")\n");
    } else {
      absl::StrAppend(&out, "  len = ", len_shape, " parameter(", param++, ")\n");
    }
    std::vector<std::string> parts;
    auto axis_part = [&](const std::string& name, int64_t size, int64_t dim, const std::string& dir) {
      const std::string small = per_head ? absl::StrCat(b0, ",", s.batch[1], ",", size)
                                         : absl::StrCat(b0, ",", size);
      absl::StrAppend(&out, "  ", name, "_i = s32[", size, "] iota(), iota_dimension=0\n", "  ",
                      name, "_ib = s32[", small, "] broadcast(", name, "_i), dimensions={",
                      per_head ? 2 : 1, "}\n", "  ", name, "_lb = s32[", small,
                      "] broadcast(len), dimensions={", per_head ? "0,1" : "0", "}\n", "  ",
                      name, " = pred[", small, "] compare(", name, "_ib, ", name,
                      "_lb), direction=", dir, "\n");
      absl::StrAppend(&out, "  ", name, "_f = ", pred, " broadcast(", name, "), dimensions={",
                      per_head ? "0,1," : "0,", dim, "}\n");
      parts.push_back(name + "_f");
    };
    const bool hidden = s.padding_hidden;
    if (s.padding == "key_bool") {
      absl::StrAppend(&out, "  kpart_f = ", pred, " broadcast(kpart), dimensions={0,", n + 1, "}\n");
      parts.push_back("kpart_f");
    }
    if (s.padding == "key" || s.padding == "query_key" || s.padding == "key_per_head" ||
        s.padding == "key_additive") {
      axis_part("kpart", s.skv, n + 1, hidden ? "GE" : "LT");
    }
    if (s.padding == "key_inclusive") axis_part("kpart", s.skv, n + 1, hidden ? "GT" : "LE");
    if (s.padding == "query_key" || s.padding == "query") {
      axis_part("qpart", s.sq, n, hidden ? "GE" : "LT");
    }
    if (!s.mask.empty()) parts.push_back("mb");
    std::string combined = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string next = absl::StrCat("pm", i);
      absl::StrAppend(&out, "  ", next, " = ", pred, " ", hidden ? "or" : "and", "(", combined,
                      ", ", parts[i], ")\n");
      combined = next;
    }
    absl::StrAppend(&out, "  mbp = ", pred, " copy(", combined, ")\n");
  }
  const std::string mask_name = s.padding.empty() ? "mb" : "mbp";
  if (!s.mask.empty() || !s.padding.empty()) {
    absl::StrAppend(&out, "  fill = ", ts, "[] constant(", s.fill, ")\n", "  fb = ", full_s,
                    " broadcast(fill), dimensions={}\n");
    if (s.mask == "causal_add" || s.padding == "key_additive") {
      absl::StrAppend(&out, "  zero_m = ", ts, "[] constant(0)\n  zb = ", full_s,
                      " broadcast(zero_m), dimensions={}\n  am = ", full_s, " select(", mask_name,
                      ", zb, fb)\n  s2 = ", full_s, " add(", scores, ", am)\n");
    } else if (s.mask == "causal_select_inverted" || s.padding_hidden) {
      absl::StrAppend(&out, "  s2 = ", full_s, " select(", mask_name, ", fb, ", scores, ")\n");
    } else {
      absl::StrAppend(&out, "  s2 = ", full_s, " select(", mask_name, ", ", scores, ", fb)\n");
    }
    masked = "s2";
  }
  if (s.softmax == "f32") {
    absl::StrAppend(&out, "  sc = ", full, " convert(", masked, ")\n");
    masked = "sc";
  }
  // Row max and the subtraction.
  const std::string kept_dims = Dims(kept);
  absl::StrAppend(&out, "  ninf = ", st, "[] constant(-inf)\n", "  mx = ", row_shape, " reduce(",
                  s.max_of_unmasked ? scores : masked, ", ninf), dimensions={", axis,
                  "}, to_apply=max_r\n");
  std::string mx = "mx";
  if (s.clamp_max) {
    absl::StrAppend(&out, "  ninfb = ", row_shape, " broadcast(ninf), dimensions={}\n",
                    "  mxc = ", row_shape, " maximum(mx, ninfb)\n");
    mx = "mxc";
  }
  auto row_broadcast = [&](const std::string& name, const std::string& value) {
    if (!s.keepdims_chains || s.softmax_over_queries) {
      absl::StrAppend(&out, "  ", name, " = ", full, " broadcast(", value, "), dimensions={",
                      kept_dims, "}\n");
      return;
    }
    std::vector<int64_t> k1 = row_dims;
    k1.push_back(1);
    const std::string k1s = absl::StrCat(st, "[", Dims(k1), "]");
    std::vector<int64_t> all;
    for (int64_t i = 0; i < n + 2; ++i) all.push_back(i);
    absl::StrAppend(&out, "  ", name, "_r = ", k1s, " reshape(", value, ")\n", "  ", name, "_b = ",
                    k1s, " broadcast(", name, "_r), dimensions={", Dims(all), "}\n", "  ", name,
                    "_r2 = ", row_shape, " reshape(", name, "_b)\n", "  ", name, " = ", full,
                    " broadcast(", name, "_r2), dimensions={", kept_dims, "}\n");
  };
  std::string exp_input = masked;
  if (!s.no_max_subtraction) {
    row_broadcast("mxb", mx);
    absl::StrAppend(&out, "  d = ", full, " subtract(", masked, ", mxb)\n");
    exp_input = "d";
  }
  absl::StrAppend(&out, "  e = ", full, " exponential(", exp_input, ")\n");
  if (sum_t != st) {
    // jnp.sum's upcast of a 16-bit softmax: the row sum in f32, rounded back.
    const std::string row32 = absl::StrCat(sum_t, "[", Dims(row_dims), "]");
    absl::StrAppend(&out, "  ec = ", sum_t, "[", Dims(with({s.sq, s.skv})), "] convert(e)\n",
                    "  zero = ", sum_t, "[] constant(0)\n", "  sm32 = ", row32,
                    " reduce(ec, zero), dimensions={", axis, "}, to_apply=add_r\n", "  sm = ",
                    row_shape, " convert(sm32)\n");
  } else {
    absl::StrAppend(&out, "  zero = ", st, "[] constant(0)\n", "  sm = ", row_shape,
                    " reduce(e, zero), dimensions={", axis, "}, to_apply=add_r\n");
  }
  if (s.reciprocal) {
    absl::StrAppend(&out, "  one = ", st, "[] constant(1)\n  oneb = ", row_shape,
                    " broadcast(one), dimensions={}\n  rs = ", row_shape, " divide(oneb, sm)\n");
    row_broadcast("smb", "rs");
    absl::StrAppend(&out, "  p = ", full, " multiply(e, smb)\n");
  } else {
    row_broadcast("smb", "sm");
    absl::StrAppend(&out, "  p = ", full, " divide(e, smb)\n");
  }
  std::string probs = "p";
  if (s.mask_after_softmax) {
    absl::StrAppend(&out, "  pz = ", st, "[] constant(0)\n  pzb = ", full,
                    " broadcast(pz), dimensions={}\n  p2 = ", full, " select(", mask_name, ", p, pzb)\n");
    probs = "p2";
  }
  if (s.scale_after_softmax) {
    absl::StrAppend(&out, "  pc = ", st, "[] constant(1.5)\n  pcb = ", full,
                    " broadcast(pc), dimensions={}\n  p2 = ", full, " multiply(p, pcb)\n");
    probs = "p2";
  }
  if (st != t) {
    absl::StrAppend(&out, "  pt = ", t, "[", Dims(with({s.sq, s.skv})), "] convert(", probs, ")\n");
    probs = "pt";
  }
  std::string v = "v0";
  const std::string vshape = absl::StrCat(t, "[", Dims(with({s.skv, s.dv})), "]");
  if (s.scale_v) {
    absl::StrAppend(&out, "  vc = ", t, "[] constant(0.5)\n  vcb = ", vshape,
                    " broadcast(vc), dimensions={}\n  v = ", vshape, " multiply(v0, vcb)\n");
    v = "v";
  }
  const std::string oshape = absl::StrCat(t, "[", Dims(with({s.sq, s.dv})), "]");
  absl::StrAppend(&out, "  o = ", oshape, " dot(", probs, ", ", v, "), lhs_batch_dims={", bdims,
                  "}, lhs_contracting_dims={", n + 1, "}, rhs_batch_dims={", bdims,
                  "}, rhs_contracting_dims={", n, "}\n");
  if (s.extra_output) {
    absl::StrAppend(&out, "  ROOT r = (", oshape, ", ", full, ") tuple(o, p)\n}\n");
  } else {
    absl::StrAppend(&out, "  ROOT r = ", oshape, " copy(o)\n}\n");
  }
  return out;
}


}  // namespace xla::attention_test
