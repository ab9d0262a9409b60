// AnalyzeAttentionMask on the masks JAX builds for scores [B=2, H=3,
// Sq=5, Skv=7]: what each accepted spelling hides (causal, which lengths,
// along which batch dims) and the spellings that must be refused; and a
// decode step's mask over [B, H, Skv] without a query axis. The
// numeric check of the rewrite built from these results is
// attention_rewriter_test (against the evaluator).
#include "xla/service/fusion/attention_mask.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// A module whose root is the mask `body` builds (its last line defines
// `mask`), with parameters len (s32[2]), qlen (s32[2]), hl (s32[2,3]) and
// bm (pred[2,7]), and the iotas ik (keys) and iq (queries) over [5,7].
struct Parsed {
  std::unique_ptr<HloModule> module;
  const HloInstruction* mask = nullptr;
};

Parsed Parse(const std::string& body) {
  const std::string text = absl::StrCat(R"(
HloModule mask
ENTRY main {
  len = s32[2] parameter(0)
  qlen = s32[2] parameter(1)
  hl = s32[2,3] parameter(2)
  bm = pred[2,7] parameter(3)
  ik = s32[5,7] iota(), iota_dimension=1
  iq = s32[5,7] iota(), iota_dimension=0
  k7 = s32[7] iota(), iota_dimension=0
  q5 = s32[5] iota(), iota_dimension=0
)", body, "  ROOT r = pred[2,3,5,7] copy(mask)\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << text;
  Parsed p;
  if (!module.ok()) return p;
  p.module = *std::move(module);
  p.mask = p.module->entry_computation()->root_instruction()->operand(0);
  return p;
}

// Key padding from lengths, as jnp.arange(S)[None, :] < lengths[:, None]
// broadcast over heads and queries.
constexpr char kKeyPrefix[] = R"(
  kb = s32[2,7] broadcast(k7), dimensions={1}
  lb = s32[2,7] broadcast(len), dimensions={0}
  kp = pred[2,7] compare(kb, lb), direction=LT
  mask = pred[2,3,5,7] broadcast(kp), dimensions={0,3}
)";

TEST(AttentionMask, KeyPaddingFromLengths) {
  Parsed p = Parse(kKeyPrefix);
  std::optional<AttentionMask> m = AnalyzeAttentionMask(p.mask, true);
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->causal);
  EXPECT_FALSE(m->q_len.has_value());
  ASSERT_TRUE(m->kv_len.has_value());
  EXPECT_EQ(m->kv_len->value->name(), "len");
  EXPECT_EQ(m->kv_len->dims, std::vector<int64_t>{0});
  EXPECT_FALSE(m->kv_len->inclusive);
  // As the hidden part (select(mask, fill, s)), the same mask shows the
  // keys past the length only: a suffix, refused.
  EXPECT_FALSE(AnalyzeAttentionMask(p.mask, false).has_value());
}

TEST(AttentionMask, FoldedIotaAndLengthFirst) {
  // The index folded into a constant, the length on the left (len > k).
  Parsed p = Parse(R"(
  kc = s32[7] constant({0, 1, 2, 3, 4, 5, 6})
  kb = s32[2,1,1,7] broadcast(kc), dimensions={3}
  lr = s32[2,1] reshape(len)
  lb = s32[2,1,1,7] broadcast(lr), dimensions={0,1}
  kp = pred[2,1,1,7] compare(lb, kb), direction=GT
  kr = pred[2,7] reshape(kp)
  mask = pred[2,3,5,7] broadcast(kr), dimensions={0,3}
)");
  std::optional<AttentionMask> m = AnalyzeAttentionMask(p.mask, true);
  ASSERT_TRUE(m.has_value());
  ASSERT_TRUE(m->kv_len.has_value());
  EXPECT_EQ(m->kv_len->dims, std::vector<int64_t>{0});  // through the reshape
  EXPECT_FALSE(m->kv_len->inclusive);
}

TEST(AttentionMask, CausalAndQueryAndKeyPaddingAsHiddenPart) {
  // hidden = k > q | k >= len | q >= qlen (an inverted select), and
  // k <= len - 1 spelled inclusively.
  Parsed p = Parse(R"(
  up = pred[5,7] compare(ik, iq), direction=GT
  upb = pred[2,3,5,7] broadcast(up), dimensions={2,3}
  kb = s32[2,3,5,7] broadcast(k7), dimensions={3}
  lb = s32[2,3,5,7] broadcast(len), dimensions={0}
  kpad = pred[2,3,5,7] compare(kb, lb), direction=GT
  qb = s32[2,3,5,7] broadcast(q5), dimensions={2}
  qlb = s32[2,3,5,7] broadcast(qlen), dimensions={0}
  qpad = pred[2,3,5,7] compare(qlb, qb), direction=LE
  h1 = pred[2,3,5,7] or(upb, kpad)
  mask = pred[2,3,5,7] or(h1, qpad)
)");
  std::optional<AttentionMask> m = AnalyzeAttentionMask(p.mask, false);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->causal);
  ASSERT_TRUE(m->kv_len.has_value());
  EXPECT_TRUE(m->kv_len->inclusive);
  ASSERT_TRUE(m->q_len.has_value());
  EXPECT_EQ(m->q_len->value->name(), "qlen");
  EXPECT_FALSE(m->q_len->inclusive);
  // The same under `not` reads as the visible part.
  EXPECT_FALSE(AnalyzeAttentionMask(p.mask, true).has_value());
}

TEST(AttentionMask, PerHeadLengthsAreReportedWithTheirDims) {
  Parsed p = Parse(R"(
  kb = s32[2,3,5,7] broadcast(k7), dimensions={3}
  lb = s32[2,3,5,7] broadcast(hl), dimensions={0,1}
  mask = pred[2,3,5,7] compare(kb, lb), direction=LT
)");
  std::optional<AttentionMask> m = AnalyzeAttentionMask(p.mask, true);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->kv_len->dims, (std::vector<int64_t>{0, 1}));
}

TEST(AttentionMask, Refusals) {
  const std::pair<const char*, const char*> refused[] = {
      {"a boolean mask parameter (not provably a prefix)",
       "  mask = pred[2,3,5,7] broadcast(bm), dimensions={0,3}\n"},
      {"a length that depends on the query position",
       R"(  kb = s32[2,3,5,7] broadcast(k7), dimensions={3}
  qb = s32[2,3,5,7] broadcast(q5), dimensions={2}
  lb = s32[2,3,5,7] broadcast(len), dimensions={0}
  window = s32[2,3,5,7] add(qb, lb)
  mask = pred[2,3,5,7] compare(kb, window), direction=LT
)"},
      {"two lengths on the key axis",
       R"(  kb = s32[2,3,5,7] broadcast(k7), dimensions={3}
  lb = s32[2,3,5,7] broadcast(len), dimensions={0}
  qlb = s32[2,3,5,7] broadcast(qlen), dimensions={0}
  a = pred[2,3,5,7] compare(kb, lb), direction=LT
  b = pred[2,3,5,7] compare(kb, qlb), direction=LT
  mask = pred[2,3,5,7] and(a, b)
)"},
      {"the length compared with the key index plus one",
       R"(  one = s32[] constant(1)
  ones = s32[7] broadcast(one), dimensions={}
  k1 = s32[7] add(k7, ones)
  kb = s32[2,3,5,7] broadcast(k1), dimensions={3}
  lb = s32[2,3,5,7] broadcast(len), dimensions={0}
  mask = pred[2,3,5,7] compare(kb, lb), direction=LT
)"},
      {"equality with the length",
       R"(  kb = s32[2,3,5,7] broadcast(k7), dimensions={3}
  lb = s32[2,3,5,7] broadcast(len), dimensions={0}
  mask = pred[2,3,5,7] compare(kb, lb), direction=NE
)"},
      {"visible = a | b",
       R"(  kb = s32[2,3,5,7] broadcast(k7), dimensions={3}
  lb = s32[2,3,5,7] broadcast(len), dimensions={0}
  a = pred[2,3,5,7] compare(kb, lb), direction=LT
  up = pred[5,7] compare(ik, iq), direction=LE
  upb = pred[2,3,5,7] broadcast(up), dimensions={2,3}
  mask = pred[2,3,5,7] or(a, upb)
)"},
  };
  for (const auto& [what, body] : refused) {
    SCOPED_TRACE(what);
    Parsed p = Parse(body);
    ASSERT_NE(p.mask, nullptr);
    EXPECT_FALSE(AnalyzeAttentionMask(p.mask, true).has_value());
  }
}

}  // namespace
}  // namespace xla

namespace xla {
namespace {

// A decode step's mask over scores [B=2, H=3, Skv=7] without a query
// axis: `direction` compares `index` (an iota along dim `axis`, 7 keys or
// 3 heads) with the scalar position pos.
std::unique_ptr<HloModule> DecodeMask(int axis, const std::string& direction) {
  const int64_t size = axis == 2 ? 7 : 3;
  const std::string text = absl::StrCat(
      "HloModule decode\nENTRY main {\n  pos = s32[] parameter(0)\n  i = s32[", size,
      "] iota(), iota_dimension=0\n  ib = s32[2,3,7] broadcast(i), dimensions={", axis,
      "}\n  pb = s32[2,3,7] broadcast(pos), dimensions={}\n  ROOT mask = pred[2,3,7] compare(ib, pb), "
      "direction=",
      direction, "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << text;
  return module.ok() ? *std::move(module) : nullptr;
}

TEST(AttentionMask, DecodeStepWithoutAQueryAxis) {
  // arange(7) <= pos: a key length pos + 1, the same for every batch.
  std::unique_ptr<HloModule> le = DecodeMask(2, "LE");
  ASSERT_NE(le, nullptr);
  const HloInstruction* mask = le->entry_computation()->root_instruction();
  std::optional<AttentionMask> m = AnalyzeAttentionMask(mask, true, /*query_axis=*/false);
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->causal);
  EXPECT_FALSE(m->q_len.has_value());
  ASSERT_TRUE(m->kv_len.has_value());
  EXPECT_TRUE(m->kv_len->inclusive);
  EXPECT_TRUE(m->kv_len->dims.empty());
  EXPECT_EQ(m->kv_len->value, le->entry_computation()->parameter_instructions()[0]);
  // A suffix (arange(7) >= pos) is refused.
  std::unique_ptr<HloModule> ge = DecodeMask(2, "GE");
  ASSERT_NE(ge, nullptr);
  EXPECT_FALSE(AnalyzeAttentionMask(ge->entry_computation()->root_instruction(), true, false));
  // Along the heads: without a query axis dim 1 is a batch dim (refused);
  // read with one, it would be the query axis.
  std::unique_ptr<HloModule> heads = DecodeMask(1, "LT");
  ASSERT_NE(heads, nullptr);
  const HloInstruction* hm = heads->entry_computation()->root_instruction();
  EXPECT_FALSE(AnalyzeAttentionMask(hm, true, /*query_axis=*/false));
  std::optional<AttentionMask> as_query = AnalyzeAttentionMask(hm, true, /*query_axis=*/true);
  ASSERT_TRUE(as_query.has_value());
  EXPECT_TRUE(as_query->q_len.has_value());
}

}  // namespace
}  // namespace xla
