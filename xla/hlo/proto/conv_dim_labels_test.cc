#include "xla/hlo/ir/conv_dim_labels.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseConvDimLabels, Typical2d) {
  absl::StatusOr<ConvDimLabels> l = ParseConvDimLabels("b01f_01io->b01f");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->text, "b01f_01io->b01f");
  EXPECT_EQ(l->input_batch, 0);
  EXPECT_EQ(l->input_feature, 3);
  EXPECT_THAT(l->input_spatial, ElementsAre(1, 2));
  EXPECT_EQ(l->kernel_input_feature, 2);
  EXPECT_EQ(l->kernel_output_feature, 3);
  EXPECT_THAT(l->kernel_spatial, ElementsAre(0, 1));
  EXPECT_EQ(l->output_batch, 0);
  EXPECT_EQ(l->output_feature, 3);
  EXPECT_THAT(l->output_spatial, ElementsAre(1, 2));
}

TEST(ParseConvDimLabels, PermutedParts) {
  absl::StatusOr<ConvDimLabels> l = ParseConvDimLabels("fb10_oi10->10bf");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->input_batch, 1);
  EXPECT_EQ(l->input_feature, 0);
  EXPECT_THAT(l->input_spatial, ElementsAre(3, 2));  // '0' at 3, '1' at 2
  EXPECT_EQ(l->kernel_input_feature, 1);
  EXPECT_EQ(l->kernel_output_feature, 0);
  EXPECT_THAT(l->kernel_spatial, ElementsAre(3, 2));
  EXPECT_EQ(l->output_batch, 2);
  EXPECT_EQ(l->output_feature, 3);
  EXPECT_THAT(l->output_spatial, ElementsAre(1, 0));
}

TEST(ParseConvDimLabels, NoSpatialAnd1d) {
  absl::StatusOr<ConvDimLabels> l = ParseConvDimLabels("bf_io->bf");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(l->input_spatial.empty());
  l = ParseConvDimLabels("b0f_0io->b0f");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_THAT(l->kernel_spatial, ElementsAre(0));
}

TEST(ParseConvDimLabels, Rejects) {
  // The proto reader forwards these messages; they must quote the text.
  const std::vector<std::string> cases = {
      "b01f01io->b01f",  "b01f_01io-b01f",  "",
      "b01f_01i->b01f",  "b02f_01io->b01f", "bb1f_01io->b01f",
      "b00f_01io->b01f", "b01f_01bo->b01f", "b01f_01io->b01i",
      "b01f_0io->b0f",   "b01x_01io->b01f", "b01f__01io->b01f",
  };
  for (const std::string& text : cases) {
    absl::StatusOr<ConvDimLabels> l = ParseConvDimLabels(text);
    ASSERT_FALSE(l.ok()) << text;
    EXPECT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(l.status().message()), HasSubstr(text)) << text;
  }
}

}  // namespace
}  // namespace xla
