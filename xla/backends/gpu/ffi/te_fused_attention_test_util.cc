#include "xla/backends/gpu/ffi/te_fused_attention_test_util.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/types/primitive_type.h"
#include "xla/util/logging.h"

namespace xla::gpu::ffi::testing {

TeAttentionCase MakeTeAttentionCase(int64_t batch, int64_t q_seqlen, int64_t kv_seqlen,
                                    int64_t heads, int64_t kv_heads, int64_t head_dim,
                                    int64_t layout, int64_t mask, const char* type) {
  TeAttentionCase c;
  c.batch = batch;
  c.q_seqlen = q_seqlen;
  c.kv_seqlen = kv_seqlen;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.head_dim = head_dim;
  c.qkv_layout = layout;
  c.mask_type = mask;
  c.scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  c.type = type;
  return c;
}
namespace {

TeAttentionConfig ConfigOf(const TeAttentionCase& c) {
  Attributes a;
  a["input_batch"] = c.batch;
  a["q_max_seqlen"] = c.q_seqlen;
  a["kv_max_seqlen"] = c.kv_seqlen;
  a["attn_heads"] = c.heads;
  a["num_gqa_groups"] = c.kv_heads;
  a["qk_head_dim"] = c.head_dim;
  a["v_head_dim"] = c.head_dim;
  a["qkv_layout"] = c.qkv_layout;
  a["mask_type"] = c.mask_type;
  a["scaling_factor"] = c.scale;
  absl::StatusOr<TeAttentionConfig> config = ParseTeAttentionConfig("test", a);
  XLA_CHECK(config.ok()) << config.status();
  return *config;
}

std::string ArrayText(absl::string_view type, absl::Span<const int64_t> dims) {
  std::vector<int64_t> layout;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) layout.push_back(d);
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]{", absl::StrJoin(layout, ","), "}");
}

bool Empty(absl::Span<const int64_t> dims) { return dims.size() == 1 && dims[0] == 0; }

}  // namespace

std::string TeAttentionCase::Name() const {
  return absl::StrCat("b", batch, "_sq", q_seqlen, "_skv", kv_seqlen, "_h", heads, "_g", kv_heads,
                      "_d", head_dim, "_layout", qkv_layout, "_mask", mask_type, "_", type);
}

std::string TeAttentionBackendConfig(const TeAttentionCase& c) {
  return absl::StrCat(
      "{attn_heads = ", c.heads,
      " : i64, bias_batch = 0 : i64, bias_heads = 0 : i64, "
      "bias_type = 0 : i64, deterministic = false, dropout_probability = 0.000000e+00 : f64, "
      "input_batch = ",
      c.batch, " : i64, is_training = true, kv_max_seqlen = ", c.kv_seqlen,
      " : i64, mask_type = ", c.mask_type,
      " : i64, max_segments_per_seq = 1 : i64, "
      "num_gqa_groups = ",
      c.kv_heads, " : i64, q_max_seqlen = ", c.q_seqlen, " : i64, qk_head_dim = ", c.head_dim,
      " : i64, qkv_layout = ", c.qkv_layout,
      " : i64, scaling_factor = ", absl::StrFormat("%.17g", c.scale),
      " : f64, v_head_dim = ", c.head_dim,
      " : i64, window_size_left = -1 : i64, window_size_right = -1 : i64}");
}

std::vector<Shape> TeAttentionParameterShapes(const TeAttentionCase& c, bool backward) {
  const TeAttentionConfig config = ConfigOf(c);
  const PrimitiveType type = *PrimitiveTypeFromName(c.type);
  std::vector<Shape> shapes;
  for (int i = 0; i < 3; ++i) {
    if (Empty(config.operand_dims[i])) continue;
    shapes.push_back(Shape::Array(
        type, std::vector<int64_t>(config.operand_dims[i].begin(), config.operand_dims[i].end())));
  }
  shapes.push_back(Shape::Array(PrimitiveType::S32, {c.batch + 1}));
  shapes.push_back(Shape::Array(PrimitiveType::S32, {c.batch + 1}));
  if (backward) {
    shapes.push_back(Shape::Array(
        type, std::vector<int64_t>(config.output_dims.begin(), config.output_dims.end())));
  }
  for (Shape& s : shapes) s.SetDefaultLayout();
  return shapes;
}

std::string TeAttentionHlo(const TeAttentionCase& c, bool backward) {
  const TeAttentionConfig config = ConfigOf(c);
  const std::string& t = c.type;
  const std::string config_text = TeAttentionBackendConfig(c);
  std::string body;
  int param = 0;
  static constexpr const char* kQkv[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    if (Empty(config.operand_dims[i])) {
      absl::StrAppend(&body, "  ", kQkv[i], " = ", t, "[0]{0} constant({})\n");
    } else {
      absl::StrAppend(&body, "  ", kQkv[i], " = ", ArrayText(t, config.operand_dims[i]),
                      " parameter(", param++, ")\n");
    }
  }
  const std::string cu = ArrayText("s32", {c.batch + 1});
  absl::StrAppend(&body, "  q_cu = ", cu, " parameter(", param++, ")\n");
  absl::StrAppend(&body, "  kv_cu = ", cu, " parameter(", param++, ")\n");
  const std::string out = ArrayText(t, config.output_dims);
  if (backward) absl::StrAppend(&body, "  dout = ", out, " parameter(", param++, ")\n");
  const std::string stats = ArrayText("f32", {c.batch, c.heads, c.q_seqlen, 1});
  absl::StrAppend(&body, "  bias = ", t, "[0]{0} constant({})\n",
                  "  seed = u32[2]{0} constant({0, 0})\n", "  offsets = f32[0]{0} constant({})\n");
  absl::StrAppend(
      &body, "  fwd = (", out, ", ", stats,
      ", u32[2,4]{1,0}, u8[16]{0}) custom-call(q, k, v, bias, seed, q_cu, kv_cu, offsets, offsets, "
      "offsets, offsets, offsets, offsets), custom_call_target=\"te_fused_attn_forward_ffi\", "
      "api_version=API_VERSION_TYPED_FFI, backend_config=",
      config_text, "\n");
  absl::StrAppend(&body, "  o = ", out, " get-tuple-element(fwd), index=0\n");
  absl::StrAppend(&body, "  stats = ", stats, " get-tuple-element(fwd), index=1\n");
  std::vector<std::string> root = {"o", "stats"};
  std::vector<std::string> root_shapes = {out, stats};
  if (backward) {
    std::string grads;
    for (int i = 0; i < 3; ++i) {
      absl::StrAppend(&grads,
                      Empty(config.operand_dims[i]) ? absl::StrCat(t, "[0]{0}")
                                                    : ArrayText(t, config.operand_dims[i]),
                      ", ");
    }
    absl::StrAppend(&body, "  rng = u32[2,4]{1,0} get-tuple-element(fwd), index=2\n");
    absl::StrAppend(&body, "  bwd = (", grads, t,
                    "[0]{0}, u8[16]{0}) custom-call(q, k, v, bias, stats, rng, o, dout, q_cu, "
                    "kv_cu, offsets, offsets, offsets, offsets, offsets, offsets), "
                    "custom_call_target=\"te_fused_attn_backward_ffi\", "
                    "api_version=API_VERSION_TYPED_FFI, backend_config=",
                    config_text, "\n");
    static constexpr const char* kGrad[] = {"dq", "dk", "dv"};
    for (int i = 0; i < 3; ++i) {
      if (Empty(config.operand_dims[i])) continue;
      absl::StrAppend(&body, "  ", kGrad[i], " = ", ArrayText(t, config.operand_dims[i]),
                      " get-tuple-element(bwd), index=", i, "\n");
      root.push_back(kGrad[i]);
      root_shapes.push_back(ArrayText(t, config.operand_dims[i]));
    }
  }
  return absl::StrCat("HloModule te_attention\n\nENTRY main {\n", body, "  ROOT result = (",
                      absl::StrJoin(root_shapes, ", "), ") tuple(", absl::StrJoin(root, ", "),
                      ")\n}\n");
}

namespace {

Literal Filled(const Shape& shape, uint64_t seed) {
  Literal l(shape);
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    l.SetDouble(i, static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53) * 2 - 1);
  }
  return l;
}

Literal CuSeqlens(const std::vector<int64_t>& lens) {
  Literal l(Shape::Array(PrimitiveType::S32, {static_cast<int64_t>(lens.size()) + 1}));
  int64_t sum = 0;
  l.SetInt(0, 0);
  for (size_t b = 0; b < lens.size(); ++b) l.SetInt(b + 1, sum += lens[b]);
  return l;
}

}  // namespace

std::vector<Literal> TeAttentionArguments(const TeAttentionCase& c,
                                          const std::vector<int64_t>& q_lens,
                                          const std::vector<int64_t>& kv_lens, uint64_t seed) {
  std::vector<Shape> shapes = TeAttentionParameterShapes(c, /*backward=*/true);
  std::vector<Literal> args;
  for (size_t i = 0; i < shapes.size(); ++i) {
    shapes[i].clear_layout();
    if (i + 3 == shapes.size()) {
      args.push_back(CuSeqlens(q_lens.empty() ? std::vector<int64_t>(c.batch, c.q_seqlen) : q_lens));
    } else if (i + 2 == shapes.size()) {
      args.push_back(
          CuSeqlens(kv_lens.empty() ? std::vector<int64_t>(c.batch, c.kv_seqlen) : kv_lens));
    } else {
      args.push_back(Filled(shapes[i], seed + i));
    }
  }
  return args;
}

}  // namespace xla::gpu::ffi::testing
