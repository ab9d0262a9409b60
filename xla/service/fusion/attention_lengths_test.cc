// BuildAttentionLengths: the visible counts and TE's cu_seqlens it adds,
// evaluated for lengths below 0, inside, and past the axis, exclusive and
// inclusive, for [B, H] scores, for grouped [G, B, K] scores (the call's
// batch in the middle) and for batch dims flattened into one.
#include "xla/service/fusion/attention_lengths.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"

namespace xla {
namespace {

using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;

// Builds the lengths of an axis of `size` from a parameter s32[`n`] that
// runs along score batch dim `len_dim`, and evaluates cu_seqlens (or, with
// `counts`, the counts per TE batch) for `lengths`.
std::vector<int64_t> Evaluate(std::vector<int64_t> lengths, bool inclusive, int64_t size,
                              std::vector<int64_t> batch_dims, int64_t len_dim, int64_t te_dim,
                              bool counts) {
  const int64_t n = static_cast<int64_t>(lengths.size());
  const std::string text = "HloModule lengths\nENTRY main {\n  len = s32[" + std::to_string(n) +
                           "] parameter(0)\n  ROOT out = s32[" + std::to_string(n) +
                           "] copy(len)\n}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  HloComputation* entry = (*module)->entry_computation();
  OpBuilder b(entry);
  ScalarReducers reducers(module->get(), "test");
  AttentionLength len;
  len.value = entry->parameter_instructions()[0];
  len.dims = {len_dim};
  len.inclusive = inclusive;
  AttentionAxisLengths out = BuildAttentionLengths(b, reducers, len, size, batch_dims, te_dim);
  entry->set_root_instruction(counts ? out.counts : out.cu_seqlens);
  absl::StatusOr<Literal> result = evaluator_test::EvalText(
      PrintModule(**module), {MakeIntLiteral(PrimitiveType::S32, {n}, lengths)});
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? IntValues(*result) : std::vector<int64_t>{};
}

TEST(AttentionLengths, CountsAreClampedAndSummed) {
  // [B = 4, H = 3] scores, an axis of 40: -2 -> 0, 0, 17, 99 -> 40.
  EXPECT_EQ(Evaluate({-2, 0, 17, 99}, false, 40, {4, 3}, 0, 0, false),
            (std::vector<int64_t>{0, 0, 0, 17, 57}));
  EXPECT_EQ(Evaluate({-2, 0, 17, 99}, false, 40, {4, 3}, 0, 0, true),
            (std::vector<int64_t>{0, 0, 17, 40}));
  // Inclusive (index <= len): one more, still clamped.
  EXPECT_EQ(Evaluate({-2, 0, 17, 99}, true, 40, {4, 3}, 0, 0, false),
            (std::vector<int64_t>{0, 0, 1, 19, 59}));
  // Grouped scores [G = 2, B = 3, K = 5]: one count per B.
  EXPECT_EQ(Evaluate({7, 0, 33}, false, 33, {2, 3, 5}, 1, 1, false),
            (std::vector<int64_t>{0, 7, 7, 40}));
  EXPECT_EQ(Evaluate({7, 0, 32}, true, 33, {2, 3, 5}, 1, 1, true),
            (std::vector<int64_t>{8, 1, 33}));
  // Batch dims [3, 2] flattened into one TE batch of 6: the counts spread
  // over the second dim.
  EXPECT_EQ(Evaluate({-2, 5, 39}, false, 33, {3, 2}, 0, -1, true),
            (std::vector<int64_t>{0, 0, 5, 5, 33, 33}));
}

TEST(AttentionLengths, WithoutALengthEveryBatchSeesTheWholeAxis) {
  const std::string text = "HloModule full\nENTRY main {\n  ROOT z = s32[] constant(0)\n}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  OpBuilder b(entry);
  ScalarReducers reducers(module->get(), "test");
  AttentionAxisLengths out = BuildAttentionLengths(b, reducers, std::nullopt, 33, {5}, -1);
  EXPECT_EQ(out.counts, nullptr);
  entry->set_root_instruction(out.cu_seqlens);
  absl::StatusOr<Literal> result = evaluator_test::EvalText(PrintModule(**module), {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(IntValues(*result), (std::vector<int64_t>{0, 33, 66, 99, 132, 165}));
}

}  // namespace
}  // namespace xla
