#include "xla/backends/gpu/ffi/te_fused_attention.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla::gpu::ffi {
namespace {

// The largest value any one dimension attribute may have; keeps every
// product below (2^63) for the element counts computed here.
constexpr int64_t kMaxDim = int64_t{1} << 24;

absl::Status Invalid(absl::string_view target, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(target, ": ", what));
}

absl::StatusOr<int64_t> GetInt(absl::string_view target, const Attributes& attributes,
                               absl::string_view name) {
  auto it = attributes.find(name);
  if (it == attributes.end()) {
    return Invalid(target, absl::StrCat("missing attribute '", name, "' (i64)"));
  }
  if (const int64_t* v = std::get_if<int64_t>(&it->second)) return *v;
  return Invalid(target, absl::StrCat("attribute '", name, "' must be i64, is ",
                                      AttributeKindName(KindOf(it->second))));
}

absl::StatusOr<int64_t> GetIntOr(absl::string_view target, const Attributes& attributes,
                                 absl::string_view name, int64_t fallback) {
  if (attributes.find(name) == attributes.end()) return fallback;
  return GetInt(target, attributes, name);
}

// A float attribute; an integer is accepted too (MLIR prints `0 : i64` for
// some integral floats in hand-written configs).
absl::StatusOr<double> GetFloatOr(absl::string_view target, const Attributes& attributes,
                                  absl::string_view name, std::optional<double> fallback) {
  auto it = attributes.find(name);
  if (it == attributes.end()) {
    if (fallback.has_value()) return *fallback;
    return Invalid(target, absl::StrCat("missing attribute '", name, "' (f64)"));
  }
  if (const double* v = std::get_if<double>(&it->second)) return *v;
  if (const int64_t* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  return Invalid(target, absl::StrCat("attribute '", name, "' must be f64, is ",
                                      AttributeKindName(KindOf(it->second))));
}

absl::StatusOr<bool> GetBoolOr(absl::string_view target, const Attributes& attributes,
                               absl::string_view name, bool fallback) {
  auto it = attributes.find(name);
  if (it == attributes.end()) return fallback;
  if (const bool* v = std::get_if<bool>(&it->second)) return *v;
  if (const int64_t* v = std::get_if<int64_t>(&it->second)) return *v != 0;
  return Invalid(target, absl::StrCat("attribute '", name, "' must be bool, is ",
                                      AttributeKindName(KindOf(it->second))));
}

absl::Status Unsupported(absl::string_view target, absl::string_view name, absl::string_view value,
                         absl::string_view why) {
  return Invalid(target,
                 absl::StrCat("attribute '", name, "' = ", value, " is not supported (", why, ")"));
}

// A dimension attribute: positive (or non-negative where `allow_zero`) and
// at most kMaxDim.
absl::StatusOr<int64_t> GetDim(absl::string_view target, const Attributes& attributes,
                               absl::string_view name, bool allow_zero) {
  absl::StatusOr<int64_t> v = GetInt(target, attributes, name);
  if (!v.ok()) return v.status();
  if (*v < (allow_zero ? 0 : 1) || *v > kMaxDim) {
    return Invalid(target, absl::StrCat("attribute '", name, "' = ", *v, " is out of range [",
                                        allow_zero ? 0 : 1, ", ", kMaxDim, "]"));
  }
  return *v;
}

const char* LayoutName(int64_t layout) {
  static constexpr const char* kNames[] = {
      "SB3HD", "SBH3D", "SBHD_SB2HD", "SBHD_SBH2D", "SBHD_SBHD_SBHD",
      "BS3HD", "BSH3D", "BSHD_BS2HD", "BSHD_BSH2D", "BSHD_BSHD_BSHD",
      "T3HD",  "TH3D",  "THD_T2HD",   "THD_TH2D",   "THD_THD_THD"};
  if (layout >= 0 && layout < 15) return kNames[layout];
  return "unknown";
}

// A view of an operand whose tokens (one per batch and sequence position)
// hold `token_elems` elements each, in SBHD (`sbhd`) or BSHD order.
TeTensorView TokenView(int operand, bool sbhd, int64_t batch, int64_t seq, int64_t token_elems,
                       int64_t offset, int64_t head_stride) {
  TeTensorView view;
  view.operand = operand;
  view.offset = offset;
  view.head_stride = head_stride;
  view.batch_stride = sbhd ? token_elems : seq * token_elems;
  view.seq_stride = sbhd ? batch * token_elems : token_elems;
  return view;
}

// [S, B, rest...] or [B, S, rest...].
TeDims TokenDims(bool sbhd, int64_t batch, int64_t seq, std::initializer_list<int64_t> rest) {
  TeDims dims = {sbhd ? seq : batch, sbhd ? batch : seq};
  for (int64_t d : rest) dims.push_back(d);
  return dims;
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

bool IsFloatInput(PrimitiveType t) {
  return t == PrimitiveType::BF16 || t == PrimitiveType::F16 || t == PrimitiveType::F32;
}

// Checks that `shape` (may be null: unknown, not checked) is an array of
// `type` (or any of bf16/f16/f32 when `type` is nullopt) with
// `dims` and, if it has a layout, the descending one.
absl::Status CheckArray(absl::string_view target, absl::string_view what, const Shape* shape,
                        std::optional<PrimitiveType> type, absl::Span<const int64_t> dims) {
  if (shape == nullptr) return absl::OkStatus();
  if (!shape->IsArray()) {
    return Invalid(target, absl::StrCat(what, " must be an array, is ", shape->ToString()));
  }
  if (!type.has_value() ? !IsFloatInput(shape->element_type()) : shape->element_type() != *type) {
    return Invalid(target, absl::StrCat(what, " has element type ",
                                        PrimitiveTypeName(shape->element_type()), ", expected ",
                                        !type.has_value() ? std::string("bf16, f16 or f32")
                                                          : std::string(PrimitiveTypeName(*type))));
  }
  if (absl::MakeConstSpan(shape->dimensions()) != dims) {  // compared in place: no copy
    return Invalid(target, absl::StrCat(what, " has shape ", shape->ToString(),
                                        ", expected dimensions ", DimsString(dims)));
  }
  if (shape->has_layout()) {
    const std::vector<int64_t>& m2m = shape->layout().minor_to_major;
    for (size_t i = 0; i < m2m.size(); ++i) {
      if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) {
        return Invalid(target, absl::StrCat(what, " has layout ", shape->ToString(),
                                            "; only the default descending layout is supported"));
      }
    }
  }
  return absl::OkStatus();
}

// The attributes that select features: dropout, bias, layout, mask and
// window. Checked first, so that an error names an unsupported feature
// even when other attributes are also off.
absl::Status ParseFeatures(absl::string_view target, const Attributes& attributes,
                           TeAttentionConfig& c) {
  absl::StatusOr<double> dropout = GetFloatOr(target, attributes, "dropout_probability", 0.0);
  if (!dropout.ok()) return dropout.status();
  if (*dropout != 0.0) {
    return Unsupported(target, "dropout_probability", absl::StrCat(*dropout), "only 0");
  }
  absl::StatusOr<int64_t> bias_type = GetIntOr(target, attributes, "bias_type", 0);
  if (!bias_type.ok()) return bias_type.status();
  if (*bias_type != 0) {
    static constexpr const char* kBias[] = {"no_bias", "pre_scale_bias", "post_scale_bias",
                                            "alibi"};
    return Unsupported(
        target, "bias_type",
        absl::StrCat(*bias_type, " (",
                     *bias_type > 0 && *bias_type < 4 ? kBias[*bias_type] : "unknown", ")"),
        "only 0, no_bias");
  }
  absl::StatusOr<int64_t> layout = GetInt(target, attributes, "qkv_layout");
  if (!layout.ok()) return layout.status();
  if (*layout < 0 || *layout > 9) {
    return Unsupported(target, "qkv_layout", absl::StrCat(*layout, " (", LayoutName(*layout), ")"),
                       "only the SBHD and BSHD layouts 0..9");
  }
  absl::StatusOr<int64_t> mask = GetInt(target, attributes, "mask_type");
  if (!mask.ok()) return mask.status();
  if (*mask < 0 || *mask > 3) {
    static constexpr const char* kMasks[] = {"causal_bottom_right", "padding_causal_bottom_right"};
    return Unsupported(
        target, "mask_type",
        absl::StrCat(*mask, " (", *mask == 4 || *mask == 5 ? kMasks[*mask - 4] : "unknown", ")"),
        "only 0 no_mask, 1 padding, 2 causal, 3 padding_causal");
  }
  c.qkv_layout = *layout;
  c.mask_type = *mask;
  c.padding = *mask == 1 || *mask == 3;
  c.causal = *mask == 2 || *mask == 3;
  absl::StatusOr<int64_t> left = GetIntOr(target, attributes, "window_size_left", -1);
  if (!left.ok()) return left.status();
  absl::StatusOr<int64_t> right = GetIntOr(target, attributes, "window_size_right", -1);
  if (!right.ok()) return right.status();
  if (*left != -1) {
    return Unsupported(target, "window_size_left", absl::StrCat(*left),
                       "no sliding window: only -1");
  }
  if (*right != -1 && !(c.causal && *right == 0)) {
    return Unsupported(target, "window_size_right", absl::StrCat(*right),
                       "no sliding window: only -1, or 0 with a causal mask");
  }
  return absl::OkStatus();
}

// The dimensions, the scale and is_training.
absl::Status ParseSizes(absl::string_view target, const Attributes& attributes,
                        TeAttentionConfig& c) {
  struct DimAttr {
    const char* name;
    int64_t* field;
    bool allow_zero;
  };
  for (const DimAttr& d :
       {DimAttr{"input_batch", &c.batch, true}, DimAttr{"q_max_seqlen", &c.q_seqlen, true},
        DimAttr{"kv_max_seqlen", &c.kv_seqlen, true}, DimAttr{"attn_heads", &c.heads, false},
        DimAttr{"num_gqa_groups", &c.kv_heads, false}}) {
    absl::StatusOr<int64_t> v = GetDim(target, attributes, d.name, d.allow_zero);
    if (!v.ok()) return v.status();
    *d.field = *v;
  }
  const bool split_dims =
      attributes.count("qk_head_dim") != 0 || attributes.count("v_head_dim") != 0;
  absl::StatusOr<int64_t> qk =
      GetDim(target, attributes, split_dims ? "qk_head_dim" : "head_dim", false);
  if (!qk.ok()) return qk.status();
  absl::StatusOr<int64_t> vd =
      GetDim(target, attributes, split_dims ? "v_head_dim" : "head_dim", false);
  if (!vd.ok()) return vd.status();
  c.qk_head_dim = *qk;
  c.v_head_dim = *vd;
  if (c.heads % c.kv_heads != 0) {
    return Invalid(target, absl::StrCat("attribute 'attn_heads' = ", c.heads,
                                        " is not a multiple of 'num_gqa_groups' = ", c.kv_heads));
  }
  absl::StatusOr<double> scale = GetFloatOr(target, attributes, "scaling_factor", std::nullopt);
  if (!scale.ok()) return scale.status();
  if (!std::isfinite(*scale)) {
    return Unsupported(target, "scaling_factor", absl::StrCat(*scale), "must be finite");
  }
  c.scale = *scale;
  absl::StatusOr<bool> training = GetBoolOr(target, attributes, "is_training", true);
  if (!training.ok()) return training.status();
  c.is_training = *training;
  // Every operand's element count must fit comfortably in int64 (real
  // shapes are far smaller; this only keeps the arithmetic below defined).
  const double largest = static_cast<double>(c.batch) * std::max(c.q_seqlen, c.kv_seqlen) * 3 *
                         std::max(c.heads, c.kv_heads) * std::max(c.qk_head_dim, c.v_head_dim);
  if (largest > 0x1p60) {
    return Invalid(target, absl::StrCat("the attributes describe operands of about ", largest,
                                        " elements, more than 2^60"));
  }
  return absl::OkStatus();
}

// Where Q, K, V and the output live for c.qkv_layout, and the operands'
// dimensions.
absl::Status SetViews(absl::string_view target, TeAttentionConfig& c) {
  const bool sbhd = c.qkv_layout <= 4;
  const int64_t group = c.qkv_layout % 5;  // NVTE_QKV_Layout_Group
  const int64_t B = c.batch, Sq = c.q_seqlen, Skv = c.kv_seqlen, H = c.heads, G = c.kv_heads;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  if (group != 4 && Dqk != Dv) {
    return Invalid(target, absl::StrCat("qkv_layout ", c.qkv_layout, " (", LayoutName(c.qkv_layout),
                                        ") packs K and V, so qk_head_dim (", Dqk,
                                        ") must equal v_head_dim (", Dv, ")"));
  }
  if (group <= 1 && (H != G || Sq != Skv)) {
    return Invalid(target, absl::StrCat("qkv_layout ", c.qkv_layout, " (", LayoutName(c.qkv_layout),
                                        ") packs Q, K and V, so attn_heads (", H,
                                        ") must equal num_gqa_groups (", G, ") and q_max_seqlen (",
                                        Sq, ") kv_max_seqlen (", Skv, ")"));
  }
  const int64_t D = Dqk;
  c.operand_dims[1] = {0};
  c.operand_dims[2] = {0};
  switch (group) {
    case 0:  // 3HD: Q, K, V interleaved per token in operand 0.
      c.q = TokenView(0, sbhd, B, Sq, 3 * H * D, 0, D);
      c.k = TokenView(0, sbhd, B, Sq, 3 * H * D, H * D, D);
      c.v = TokenView(0, sbhd, B, Sq, 3 * H * D, 2 * H * D, D);
      c.operand_dims[0] = TokenDims(sbhd, B, Sq, {3, H, D});
      break;
    case 1:  // H3D
      c.q = TokenView(0, sbhd, B, Sq, 3 * H * D, 0, 3 * D);
      c.k = TokenView(0, sbhd, B, Sq, 3 * H * D, D, 3 * D);
      c.v = TokenView(0, sbhd, B, Sq, 3 * H * D, 2 * D, 3 * D);
      c.operand_dims[0] = TokenDims(sbhd, B, Sq, {H, 3, D});
      break;
    case 2:  // HD_2HD: K and V in operand 1.
      c.q = TokenView(0, sbhd, B, Sq, H * D, 0, D);
      c.k = TokenView(1, sbhd, B, Skv, 2 * G * D, 0, D);
      c.v = TokenView(1, sbhd, B, Skv, 2 * G * D, G * D, D);
      c.operand_dims[0] = TokenDims(sbhd, B, Sq, {H, D});
      c.operand_dims[1] = TokenDims(sbhd, B, Skv, {2, G, D});
      break;
    case 3:  // HD_H2D
      c.q = TokenView(0, sbhd, B, Sq, H * D, 0, D);
      c.k = TokenView(1, sbhd, B, Skv, 2 * G * D, 0, 2 * D);
      c.v = TokenView(1, sbhd, B, Skv, 2 * G * D, D, 2 * D);
      c.operand_dims[0] = TokenDims(sbhd, B, Sq, {H, D});
      c.operand_dims[1] = TokenDims(sbhd, B, Skv, {G, 2, D});
      break;
    default:  // HD_HD_HD
      c.q = TokenView(0, sbhd, B, Sq, H * Dqk, 0, Dqk);
      c.k = TokenView(1, sbhd, B, Skv, G * Dqk, 0, Dqk);
      c.v = TokenView(2, sbhd, B, Skv, G * Dv, 0, Dv);
      c.operand_dims[0] = TokenDims(sbhd, B, Sq, {H, Dqk});
      c.operand_dims[1] = TokenDims(sbhd, B, Skv, {G, Dqk});
      c.operand_dims[2] = TokenDims(sbhd, B, Skv, {G, Dv});
      break;
  }
  c.o = TokenView(0, sbhd, B, Sq, H * Dv, 0, Dv);
  c.output_dims = TokenDims(sbhd, B, Sq, {H, Dv});
  return absl::OkStatus();
}

}  // namespace

bool IsTeFusedAttentionTarget(absl::string_view target) {
  return target == kTeFusedAttnForwardTarget || target == kTeFusedAttnBackwardTarget;
}

absl::StatusOr<TeAttentionConfig> ParseTeAttentionConfig(absl::string_view target,
                                                         const Attributes& attributes) {
  TeAttentionConfig c;
  if (absl::Status s = ParseFeatures(target, attributes, c); !s.ok()) return s;
  if (absl::Status s = ParseSizes(target, attributes, c); !s.ok()) return s;
  if (absl::Status s = SetViews(target, c); !s.ok()) return s;
  return c;
}

absl::Status CheckTeAttentionShapes(absl::string_view target, const TeAttentionConfig& config,
                                    bool backward, absl::Span<const Shape* const> operands,
                                    absl::Span<const Shape* const> results) {
  const int min_operands = backward ? kTeBwdNumOperands : kTeFwdNumOperands;
  const int num_results = backward ? kTeBwdNumResults : kTeFwdNumResults;
  if (static_cast<int64_t>(operands.size()) < min_operands) {
    return Invalid(
        target, absl::StrCat("has ", operands.size(), " operands, needs at least ", min_operands));
  }
  if (static_cast<int64_t>(results.size()) != num_results) {
    return Invalid(target, absl::StrCat("has ", results.size(), " results, needs ", num_results));
  }
  static constexpr const char* kQkvNames[] = {"q", "k", "v"};
  std::optional<PrimitiveType> type;  // the first of q/k/v's type
  for (int i = 0; i < 3; ++i) {
    const std::string what = absl::StrCat("operand ", i, " (", kQkvNames[i], ")");
    absl::Status s = CheckArray(target, what, operands[i], type, config.operand_dims[i]);
    if (!s.ok()) return s;
    if (operands[i] != nullptr && !type.has_value()) {
      type = operands[i]->element_type();
    }
  }
  if (const Shape* bias = operands[kFwdBias]; bias != nullptr) {
    if (!bias->IsArray() || bias->ElementCount().value_or(1) != 0) {
      return Invalid(target, absl::StrCat("operand 3 (bias) must be empty without a bias, is ",
                                          bias->ToString()));
    }
  }
  const int64_t stats_dims[] = {config.batch, config.heads, config.q_seqlen, 1};
  const int64_t cu_dims[] = {config.batch + 1};
  const int q_cu = backward ? kBwdQCuSeqlens : kFwdQCuSeqlens;
  const int kv_cu = backward ? kBwdKvCuSeqlens : kFwdKvCuSeqlens;
  if (config.padding) {
    for (int i : {q_cu, kv_cu}) {
      // Constant names: a call that passes allocates no message.
      static_assert(kFwdQCuSeqlens == 5 && kFwdKvCuSeqlens == 6 && kBwdQCuSeqlens == 8 &&
                    kBwdKvCuSeqlens == 9);
      const char* what = i == kFwdQCuSeqlens    ? "operand 5 (q_cu_seqlens)"
                         : i == kFwdKvCuSeqlens ? "operand 6 (kv_cu_seqlens)"
                         : i == kBwdQCuSeqlens  ? "operand 8 (q_cu_seqlens)"
                                                : "operand 9 (kv_cu_seqlens)";
      absl::Status s = CheckArray(target, what, operands[i], PrimitiveType::S32, cu_dims);
      if (!s.ok()) return s;
    }
  }
  if (!backward) {
    absl::Status s =
        CheckArray(target, "result 0 (output)", results[kFwdOutput], type, config.output_dims);
    if (!s.ok()) return s;
    return CheckArray(target, "result 1 (softmax_aux)", results[kFwdSoftmaxAux], PrimitiveType::F32,
                      stats_dims);
  }
  absl::Status s = CheckArray(target, "operand 4 (softmax_aux)", operands[kBwdSoftmaxAux],
                              PrimitiveType::F32, stats_dims);
  if (!s.ok()) return s;
  for (int i : {kBwdOutput, kBwdDOutput}) {
    s = CheckArray(target,
                   absl::StrCat("operand ", i, i == kBwdOutput ? " (output)" : " (doutput)"),
                   operands[i], type, config.output_dims);
    if (!s.ok()) return s;
  }
  static constexpr const char* kGradNames[] = {"dq", "dk", "dv"};
  for (int i = 0; i < 3; ++i) {
    s = CheckArray(target, absl::StrCat("result ", i, " (", kGradNames[i], ")"), results[i], type,
                   config.operand_dims[i]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status TeSequenceLengthsInto(absl::Span<const int32_t> cu_seqlens, int64_t batch,
                                   int64_t max_len, absl::string_view what,
                                   absl::Span<int64_t> lengths) {
  if (static_cast<int64_t>(cu_seqlens.size()) != batch + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has ", cu_seqlens.size(), " values, needs ", batch + 1));
  }
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = int64_t{cu_seqlens[b + 1]} - int64_t{cu_seqlens[b]};
    if (len < 0 || len > max_len) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": sequence ", b, " has length ", len,
                                                     " (", cu_seqlens[b + 1], " - ", cu_seqlens[b],
                                                     "), outside [0, ", max_len, "]"));
    }
    lengths[b] = len;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> TeSequenceLengths(absl::Span<const int32_t> cu_seqlens,
                                                       int64_t batch, int64_t max_len,
                                                       absl::string_view what) {
  std::vector<int64_t> lengths(std::max<int64_t>(batch, 0));
  absl::Status s = TeSequenceLengthsInto(cu_seqlens, batch, max_len, what, absl::MakeSpan(lengths));
  if (!s.ok()) return s;
  return lengths;
}

}  // namespace xla::gpu::ffi
