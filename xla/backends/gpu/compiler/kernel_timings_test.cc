// KernelTimings against hand-computed shares: emission records joined with
// the parts that compiled them, a part's time split by LLVM instructions,
// a variable root that takes no share, a kernel no part reported, the
// slowest-first order and the totals.
#include "xla/backends/gpu/compiler/kernel_timings.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

KernelTimings Example() {
  KernelTimings timings;
  timings.AddKernel({"fusion_1", "fusion.1", "loop", 4, 0.010});
  timings.AddKernel({"fusion_2", "fusion.2", "row_reduction", 7, 0.020});
  timings.AddKernel({"fusion_3", "fusion.3", "transpose", 3, 0.005});
  timings.AddKernel({"fusion_4", "fusion.4", "", 2, 0.300});  // in no part
  // Part 0: fusion_1 has 3/4 of the kernels' instructions; `table` is a
  // variable and takes nothing. 0.4 + 0.2 seconds.
  timings.AddPart({0, {"fusion_1", "table", "fusion_3"}, {300, 0, 100}, 0.4, 0.2});
  timings.AddPart({1, {"fusion_2"}, {50}, 0.1, 0.05});
  return timings;
}

TEST(KernelTimingsTest, PartTimeIsSharedByInstructionsAndRowsGoSlowestFirst) {
  const std::vector<KernelTimingRow> rows = Example().Rows();
  ASSERT_EQ(rows.size(), 4u);
  // 0.010 + 0.75 * 0.6, then 0.300 alone, 0.020 + 0.15, 0.005 + 0.25 * 0.6.
  EXPECT_EQ(rows[0].kernel.fusion, "fusion.1");
  EXPECT_NEAR(rows[0].estimated_seconds, 0.46, 1e-12);
  EXPECT_EQ(rows[0].part, 0);
  EXPECT_EQ(rows[0].part_kernels, 2);
  EXPECT_EQ(rows[0].llvm_instructions, 300);
  EXPECT_DOUBLE_EQ(rows[0].part_optimize_seconds, 0.4);
  EXPECT_DOUBLE_EQ(rows[0].part_machine_code_seconds, 0.2);
  EXPECT_EQ(rows[1].kernel.fusion, "fusion.4");
  EXPECT_EQ(rows[1].part, -1);
  EXPECT_NEAR(rows[1].estimated_seconds, 0.3, 1e-12);
  EXPECT_EQ(rows[2].kernel.fusion, "fusion.2");
  EXPECT_EQ(rows[2].kernel.kind, "row_reduction");
  EXPECT_EQ(rows[2].part, 1);
  EXPECT_EQ(rows[2].part_kernels, 1);
  EXPECT_NEAR(rows[2].estimated_seconds, 0.17, 1e-12);
  EXPECT_EQ(rows[3].kernel.fusion, "fusion.3");
  EXPECT_NEAR(rows[3].estimated_seconds, 0.155, 1e-12);
}

TEST(KernelTimingsTest, KernelsWithoutInstructionsShareTheirPartEqually) {
  KernelTimings timings;
  timings.AddKernel({"a", "fusion.a", "loop", 1, 0.0});
  timings.AddKernel({"b", "fusion.b", "loop", 1, 0.0});
  timings.AddKernel({"c", "fusion.c", "loop", 1, 0.0});
  timings.AddPart({0, {"a", "b", "c"}, {0, 0, 0}, 0.9, 0.3});
  for (const KernelTimingRow& row : timings.Rows()) {
    EXPECT_NEAR(row.estimated_seconds, 0.4, 1e-12) << row.kernel.fusion;
  }
  // Equal times: by fusion name.
  EXPECT_EQ(timings.Rows().front().kernel.fusion, "fusion.a");
}

TEST(KernelTimingsTest, TextHasOneLinePerKernelAndTotalsThatAddUp) {
  const std::string text = Example().ToText();
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line.front() == '#') continue;
    rows.push_back(absl::StrSplit(line, ' ', absl::SkipEmpty()));
  }
  ASSERT_EQ(rows.size(), 6u);  // header, 4 kernels, total
  EXPECT_EQ(rows[0].front(), "fusion");
  EXPECT_EQ(rows[1], (std::vector<std::string>{"fusion.1", "loop", "4", "300", "0.0100", "0",
                                               "2", "0.4000", "0.2000", "0.4600"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"fusion.4", "-", "2", "0", "0.3000", "-", "0",
                                               "0.0000", "0.0000", "0.3000"}));
  // Emission 0.335; parts 0.5 + 0.25; the estimates add up to all three.
  EXPECT_EQ(rows[5], (std::vector<std::string>{"total", "-", "16", "450", "0.3350", "2", "4",
                                               "0.5000", "0.2500", "1.0850"}));
}

TEST(KernelTimingsTest, RootsWithoutAnInstructionCountAreLeftOut) {
  KernelTimings timings;
  timings.AddKernel({"a", "fusion.a", "loop", 1, 0.5});
  timings.AddKernel({"b", "fusion.b", "loop", 1, 0.25});
  timings.AddPart({7, {"a", "b"}, {5}, 1.0, 1.0});
  const std::vector<KernelTimingRow> rows = timings.Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel.fusion, "fusion.a");
  EXPECT_EQ(rows[0].part, 7);
  EXPECT_NEAR(rows[0].estimated_seconds, 2.5, 1e-12);
  EXPECT_EQ(rows[1].part, -1);
  EXPECT_NEAR(rows[1].estimated_seconds, 0.25, 1e-12);
}

TEST(KernelTimingsTest, EmptyWithoutKernels) {
  KernelTimings timings;
  EXPECT_TRUE(timings.empty());
  timings.AddPart({0, {"x"}, {1}, 0.1, 0.1});
  EXPECT_TRUE(timings.empty());
  EXPECT_TRUE(timings.Rows().empty());
}

// NVPTX kernels are parts of their own; est_s adds ptxas, and the table has
// a ptxas_s column (hand-computed: a = 0.01 + 0.2 + 0.1 + 0.3 = 0.61,
// b = 0.02 + 0.05 + 0.03 + 0.7 = 0.80).
TEST(KernelTimingsTest, NvptxKernelsAreMeasuredWithPtxas) {
  KernelTimings timings;
  timings.AddKernel({"a", "fusion.a", "loop", 2, 0.01});
  timings.AddKernel({"b", "fusion.b", "row_reduction", 5, 0.02});
  timings.AddNvptxKernel(0, "a", 40, 0.2, 0.1, 0.3);
  timings.AddNvptxKernel(1, "b", 90, 0.05, 0.03, 0.7);
  const std::vector<KernelTimingRow> rows = timings.Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel.fusion, "fusion.b");
  EXPECT_NEAR(rows[0].estimated_seconds, 0.80, 1e-12);
  EXPECT_EQ(rows[0].part, 1);
  EXPECT_EQ(rows[0].part_kernels, 1);
  EXPECT_EQ(rows[0].llvm_instructions, 90);
  EXPECT_DOUBLE_EQ(rows[0].part_ptxas_seconds, 0.7);
  EXPECT_EQ(rows[1].kernel.fusion, "fusion.a");
  EXPECT_NEAR(rows[1].estimated_seconds, 0.61, 1e-12);
  EXPECT_DOUBLE_EQ(rows[1].part_machine_code_seconds, 0.1);

  std::vector<std::vector<std::string>> lines;
  for (absl::string_view line : absl::StrSplit(timings.ToText(), '\n', absl::SkipEmpty())) {
    if (line.front() != '#') lines.push_back(absl::StrSplit(line, ' ', absl::SkipEmpty()));
  }
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0][9], "ptxas_s");
  EXPECT_EQ(lines[3], (std::vector<std::string>{"total", "-", "7", "130", "0.0300", "2", "2",
                                                "0.2500", "0.1300", "1.0000", "1.4100"}));
}

}  // namespace
}  // namespace xla::gpu
