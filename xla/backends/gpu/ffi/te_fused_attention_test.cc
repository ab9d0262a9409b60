// Tests of te_fused_attention.h: the corpus's attribute dictionaries parse,
// each layout family's views and operand dimensions, the masks, and the
// errors for unsupported or malformed attributes, shapes and lengths.
#include "xla/backends/gpu/ffi/te_fused_attention.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla::gpu::ffi {
namespace {

// The forward attributes of the Llama 3 8B context-parallel step (layout
// BSHD_BS2HD, GQA 32:8), as the parser gives them.
Attributes Llama() {
  Attributes a;
  a["attn_heads"] = int64_t{32};
  a["bias_batch"] = int64_t{0};
  a["bias_heads"] = int64_t{0};
  a["bias_type"] = int64_t{0};
  a["deterministic"] = false;
  a["dropout_probability"] = 0.0;
  a["input_batch"] = int64_t{2};
  a["is_training"] = true;
  a["kv_max_seqlen"] = int64_t{2048};
  a["mask_type"] = int64_t{2};
  a["max_segments_per_seq"] = int64_t{1};
  a["num_gqa_groups"] = int64_t{8};
  a["q_max_seqlen"] = int64_t{2048};
  a["qk_head_dim"] = int64_t{128};
  a["qkv_layout"] = int64_t{7};
  a["scaling_factor"] = 1.0;
  a["v_head_dim"] = int64_t{128};
  a["window_size_left"] = int64_t{-1};
  a["window_size_right"] = int64_t{-1};
  return a;
}

TEST(TeFusedAttention, TargetNames) {
  EXPECT_TRUE(IsTeFusedAttentionTarget("te_fused_attn_forward_ffi"));
  EXPECT_TRUE(IsTeFusedAttentionTarget("te_fused_attn_backward_ffi"));
  EXPECT_FALSE(IsTeFusedAttentionTarget("te_fused_attn_forward"));
}

TEST(TeFusedAttention, CorpusAttributesParse) {
  absl::StatusOr<TeAttentionConfig> c = ParseTeAttentionConfig("t", Llama());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->batch, 2);
  EXPECT_EQ(c->heads, 32);
  EXPECT_EQ(c->kv_heads, 8);
  EXPECT_TRUE(c->causal);
  EXPECT_FALSE(c->padding);
  EXPECT_EQ(c->KvHead(0), 0);
  EXPECT_EQ(c->KvHead(3), 0);
  EXPECT_EQ(c->KvHead(4), 1);
  EXPECT_EQ(c->KvHead(31), 7);
  EXPECT_EQ(c->operand_dims[0], (TeDims{2, 2048, 32, 128}));
  EXPECT_EQ(c->operand_dims[1], (TeDims{2, 2048, 2, 8, 128}));
  EXPECT_EQ(c->operand_dims[2], (TeDims{0}));
  // K and V share operand 1: V is the second half of each token.
  EXPECT_EQ(c->k.operand, 1);
  EXPECT_EQ(c->v.operand, 1);
  EXPECT_EQ(c->k.At(0, 0, 0), 0);
  EXPECT_EQ(c->v.At(0, 0, 0), 8 * 128);
  EXPECT_EQ(c->k.At(0, 1, 0), 2 * 8 * 128);
  EXPECT_EQ(c->k.At(1, 0, 3), 2048 * 2 * 8 * 128 + 3 * 128);
}

TEST(TeFusedAttention, LayoutFamilies) {
  struct Case {
    int64_t layout;
    TeDims q_dims, k_dims;
    int64_t k_offset, k_head_stride, q_batch_stride, q_seq_stride;
  };
  // B = 2, S = 3, H = G = 4, D = 5.
  for (const Case& k : {
           Case{0, {3, 2, 3, 4, 5}, {0}, 20, 5, 60, 120},          // SB3HD
           Case{1, {3, 2, 4, 3, 5}, {0}, 5, 15, 60, 120},          // SBH3D
           Case{2, {3, 2, 4, 5}, {3, 2, 2, 4, 5}, 0, 5, 20, 40},   // SBHD_SB2HD
           Case{3, {3, 2, 4, 5}, {3, 2, 4, 2, 5}, 0, 10, 20, 40},  // SBHD_SBH2D
           Case{4, {3, 2, 4, 5}, {3, 2, 4, 5}, 0, 5, 20, 40},      // SBHD_SBHD_SBHD
           Case{5, {2, 3, 3, 4, 5}, {0}, 20, 5, 180, 60},          // BS3HD
           Case{6, {2, 3, 4, 3, 5}, {0}, 5, 15, 180, 60},          // BSH3D
           Case{8, {2, 3, 4, 5}, {2, 3, 4, 2, 5}, 0, 10, 60, 20},  // BSHD_BSH2D
           Case{9, {2, 3, 4, 5}, {2, 3, 4, 5}, 0, 5, 60, 20},      // BSHD_BSHD_BSHD
       }) {
    Attributes a = Llama();
    a["qkv_layout"] = k.layout;
    a["input_batch"] = int64_t{2};
    a["q_max_seqlen"] = a["kv_max_seqlen"] = int64_t{3};
    a["attn_heads"] = a["num_gqa_groups"] = int64_t{4};
    a["qk_head_dim"] = a["v_head_dim"] = int64_t{5};
    absl::StatusOr<TeAttentionConfig> c = ParseTeAttentionConfig("t", a);
    ASSERT_TRUE(c.ok()) << k.layout << ": " << c.status();
    EXPECT_EQ(c->operand_dims[0], k.q_dims) << k.layout;
    EXPECT_EQ(c->operand_dims[1], k.k_dims) << k.layout;
    EXPECT_EQ(c->k.offset, k.k_offset) << k.layout;
    EXPECT_EQ(c->k.head_stride, k.k_head_stride) << k.layout;
    EXPECT_EQ(c->q.batch_stride, k.q_batch_stride) << k.layout;
    EXPECT_EQ(c->q.seq_stride, k.q_seq_stride) << k.layout;
  }
}

TEST(TeFusedAttention, Masks) {
  Attributes a = Llama();
  for (int64_t mask : {0, 1, 2, 3}) {
    a["mask_type"] = mask;
    absl::StatusOr<TeAttentionConfig> c = ParseTeAttentionConfig("t", a);
    ASSERT_TRUE(c.ok()) << c.status();
    // Query 2 of a sequence of 3 queries and 2 keys.
    EXPECT_TRUE(c->Visible(2, 1, 3, 2)) << mask;
    EXPECT_EQ(c->Visible(1, 2, 3, 5), mask == 0 || mask == 1) << mask;  // above the diagonal
    EXPECT_EQ(c->Visible(1, 2, 3, 2), mask == 0) << mask;               // padded key, causal
    EXPECT_EQ(c->Visible(3, 0, 3, 2), mask == 0 || mask == 2) << mask;  // padded query
  }
}

TEST(TeFusedAttention, HeadDimFallbackAndCausalRightWindow) {
  Attributes a = Llama();
  a.erase("qk_head_dim");
  a.erase("v_head_dim");
  a["head_dim"] = int64_t{64};
  a["window_size_right"] = int64_t{0};  // how some TE versions spell causal
  absl::StatusOr<TeAttentionConfig> c = ParseTeAttentionConfig("t", a);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->qk_head_dim, 64);
  EXPECT_EQ(c->v_head_dim, 64);
}

void ExpectError(const Attributes& a, const std::string& message) {
  absl::StatusOr<TeAttentionConfig> c = ParseTeAttentionConfig("te_fused_attn_forward_ffi", a);
  ASSERT_FALSE(c.ok()) << message;
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << c.status();
  EXPECT_TRUE(absl::StrContains(c.status().message(), "te_fused_attn_forward_ffi: " + message))
      << c.status();
}

TEST(TeFusedAttention, UnsupportedAndMalformedAttributes) {
  Attributes a = Llama();
  a["dropout_probability"] = 0.25;
  ExpectError(a, "attribute 'dropout_probability' = 0.25 is not supported (only 0)");
  a = Llama();
  a["bias_type"] = int64_t{3};
  ExpectError(a, "attribute 'bias_type' = 3 (alibi) is not supported (only 0, no_bias)");
  a = Llama();
  a["qkv_layout"] = int64_t{10};
  ExpectError(a, "attribute 'qkv_layout' = 10 (T3HD) is not supported");
  a["qkv_layout"] = int64_t{99};
  ExpectError(a, "attribute 'qkv_layout' = 99 (unknown) is not supported");
  a = Llama();
  a["mask_type"] = int64_t{5};
  ExpectError(a, "attribute 'mask_type' = 5 (padding_causal_bottom_right) is not supported");
  a = Llama();
  a["window_size_left"] = int64_t{256};
  ExpectError(a, "attribute 'window_size_left' = 256 is not supported");
  a = Llama();
  a["mask_type"] = int64_t{0};
  a["window_size_right"] = int64_t{0};
  ExpectError(a, "attribute 'window_size_right' = 0 is not supported");
  a = Llama();
  a.erase("attn_heads");
  ExpectError(a, "missing attribute 'attn_heads' (i64)");
  a = Llama();
  a["attn_heads"] = 32.0;
  ExpectError(a, "attribute 'attn_heads' must be i64, is f64");
  a = Llama();
  a["num_gqa_groups"] = int64_t{0};
  ExpectError(a, "attribute 'num_gqa_groups' = 0 is out of range [1, 16777216]");
  a = Llama();
  a["num_gqa_groups"] = int64_t{5};
  ExpectError(a, "attribute 'attn_heads' = 32 is not a multiple of 'num_gqa_groups' = 5");
  a = Llama();
  a["v_head_dim"] = int64_t{64};
  ExpectError(
      a,
      "qkv_layout 7 (BSHD_BS2HD) packs K and V, so qk_head_dim (128) must equal v_head_dim (64)");
  a = Llama();
  a["qkv_layout"] = int64_t{5};
  ExpectError(
      a, "qkv_layout 5 (BS3HD) packs Q, K and V, so attn_heads (32) must equal num_gqa_groups (8)");
  a = Llama();
  a["scaling_factor"] = std::string("one");
  ExpectError(a, "attribute 'scaling_factor' must be f64, is str");
}

std::vector<Shape> Shapes(std::vector<Shape> shapes) {
  for (Shape& s : shapes) s.SetDefaultLayout();
  return shapes;
}

std::vector<const Shape*> Pointers(const std::vector<Shape>& shapes) {
  std::vector<const Shape*> out;
  for (const Shape& s : shapes) out.push_back(&s);
  return out;
}

TEST(TeFusedAttention, Shapes) {
  Attributes a = Llama();
  a["mask_type"] = int64_t{3};
  a["q_max_seqlen"] = a["kv_max_seqlen"] = int64_t{16};
  absl::StatusOr<TeAttentionConfig> c = ParseTeAttentionConfig("t", a);
  ASSERT_TRUE(c.ok()) << c.status();
  const PrimitiveType bf16 = PrimitiveType::BF16;
  const Shape empty_f32 = Shape::Array(PrimitiveType::F32, {0});
  std::vector<Shape> operands =
      Shapes({Shape::Array(bf16, {2, 16, 32, 128}), Shape::Array(bf16, {2, 16, 2, 8, 128}),
              Shape::Array(bf16, {0}), Shape::Array(bf16, {0}),
              Shape::Array(PrimitiveType::U32, {2}), Shape::Array(PrimitiveType::S32, {3}),
              Shape::Array(PrimitiveType::S32, {3}), empty_f32, empty_f32, empty_f32});
  std::vector<Shape> results = Shapes(
      {Shape::Array(bf16, {2, 16, 32, 128}), Shape::Array(PrimitiveType::F32, {2, 32, 16, 1}),
       Shape::Array(PrimitiveType::U32, {2, 4}), Shape::Array(PrimitiveType::U8, {1})});
  EXPECT_TRUE(CheckTeAttentionShapes("t", *c, false, Pointers(operands), Pointers(results)).ok());

  // Each of these breaks one thing.
  std::vector<Shape> bad = operands;
  bad[1] = Shape::Array(PrimitiveType::F16, {2, 16, 2, 8, 128});
  absl::Status s = CheckTeAttentionShapes("t", *c, false, Pointers(bad), Pointers(results));
  EXPECT_TRUE(
      absl::StrContains(s.message(), "t: operand 1 (k) has element type f16, expected bf16"))
      << s;
  bad = operands;
  Layout ascending;
  ascending.minor_to_major = {0, 1, 2, 3};
  bad[0].set_layout(ascending);
  s = CheckTeAttentionShapes("t", *c, false, Pointers(bad), Pointers(results));
  EXPECT_TRUE(absl::StrContains(s.message(), "only the default descending layout is supported"))
      << s;
  bad = operands;
  bad[5] = Shape::Array(PrimitiveType::S32, {2});
  s = CheckTeAttentionShapes("t", *c, false, Pointers(bad), Pointers(results));
  EXPECT_TRUE(absl::StrContains(s.message(), "operand 5 (q_cu_seqlens) has shape s32[2]")) << s;
  bad = operands;
  bad[3] = Shape::Array(bf16, {1, 32, 16, 16});
  s = CheckTeAttentionShapes("t", *c, false, Pointers(bad), Pointers(results));
  EXPECT_TRUE(absl::StrContains(s.message(), "operand 3 (bias) must be empty without a bias")) << s;
  bad = results;
  bad[1] = Shape::Array(PrimitiveType::F32, {2, 32, 16, 16});
  s = CheckTeAttentionShapes("t", *c, false, Pointers(operands), Pointers(bad));
  EXPECT_TRUE(absl::StrContains(s.message(), "result 1 (softmax_aux) has shape f32[2,32,16,16]"))
      << s;
  bad.pop_back();
  s = CheckTeAttentionShapes("t", *c, false, Pointers(operands), Pointers(bad));
  EXPECT_TRUE(absl::StrContains(s.message(), "t: has 3 results, needs 4")) << s;
  std::vector<Shape> few(operands.begin(), operands.begin() + 8);
  s = CheckTeAttentionShapes("t", *c, false, Pointers(few), Pointers(results));
  EXPECT_TRUE(absl::StrContains(s.message(), "t: has 8 operands, needs at least 9")) << s;
  // The backward needs 12 operands; with 10 it is refused before anything else.
  s = CheckTeAttentionShapes("t", *c, true, Pointers(operands), Pointers(results));
  EXPECT_TRUE(absl::StrContains(s.message(), "t: has 10 operands, needs at least 12")) << s;
}

TEST(TeFusedAttention, SequenceLengths) {
  const std::vector<int32_t> cu = {0, 5, 5, 12};
  absl::StatusOr<std::vector<int64_t>> lens = TeSequenceLengths(cu, 3, 7, "cu");
  ASSERT_TRUE(lens.ok()) << lens.status();
  EXPECT_EQ(*lens, (std::vector<int64_t>{5, 0, 7}));
  lens = TeSequenceLengths(cu, 3, 6, "cu");
  EXPECT_TRUE(absl::StrContains(lens.status().message(),
                                "cu: sequence 2 has length 7 (12 - 5), outside [0, 6]"))
      << lens.status();
  const std::vector<int32_t> down = {0, 5, 3};
  lens = TeSequenceLengths(down, 2, 8, "cu");
  EXPECT_TRUE(absl::StrContains(lens.status().message(), "sequence 1 has length -2"))
      << lens.status();
  lens = TeSequenceLengths(down, 3, 8, "cu");
  EXPECT_TRUE(absl::StrContains(lens.status().message(), "cu has 3 values, needs 4"))
      << lens.status();
}

}  // namespace
}  // namespace xla::gpu::ffi
