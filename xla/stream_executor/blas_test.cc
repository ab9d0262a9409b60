#include "xla/stream_executor/blas.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor {
namespace {

using ::testing::HasSubstr;

// A batched bf16 x bf16 -> f32 GEMM: 3 batches of [5 x 7] x [7 x 9], with
// gaps between batches, and the exact bytes each operand needs.
struct Case {
  BlasGemmConfig config;
  uint64_t lhs_bytes, rhs_bytes, out_bytes;
};

Case ExactCase() {
  Case c;
  c.config.element_type = BlasElementType::kF32;
  c.config.lhs_type = BlasElementType::kBF16;
  c.config.rhs_type = BlasElementType::kBF16;
  c.config.m = 5;
  c.config.n = 9;
  c.config.k = 7;
  c.config.batch_size = 3;
  c.config.lhs_batch_stride = 40;  // 35 + 5
  c.config.rhs_batch_stride = 63;
  c.config.output_batch_stride = 50;
  c.lhs_bytes = (2 * 40 + 35) * 2;
  c.rhs_bytes = (2 * 63 + 63) * 2;
  c.out_bytes = (2 * 50 + 45) * 4;
  return c;
}

absl::Status Check(const Case& c) {
  // Only the sizes are read; the addresses are never dereferenced.
  static char storage[1];
  return CheckBlasGemmOperands(c.config, DeviceMemoryBase(storage, c.lhs_bytes),
                               DeviceMemoryBase(storage, c.rhs_bytes),
                               DeviceMemoryBase(storage, c.out_bytes));
}

TEST(CheckBlasGemmOperandsTest, AcceptsOperandsOfExactlyTheNeededSize) {
  EXPECT_TRUE(Check(ExactCase()).ok());
  Case unbatched = ExactCase();
  unbatched.config.batch_size = 0;  // read as 1: one matrix each
  unbatched.lhs_bytes = 35 * 2;
  unbatched.rhs_bytes = 63 * 2;
  unbatched.out_bytes = 45 * 4;
  EXPECT_TRUE(Check(unbatched).ok());
}

// Each rule broken on its own is refused, with the rule named.
TEST(CheckBlasGemmOperandsTest, RefusesEachBrokenRuleByName) {
  struct Broken {
    std::function<void(Case&)> edit;
    const char* message;
  };
  const std::vector<Broken> cases = {
      {[](Case& c) { c.lhs_bytes -= 1; }, "the lhs buffer has 229 bytes but the GEMM reads 230"},
      {[](Case& c) { c.rhs_bytes -= 1; }, "the rhs buffer has 377 bytes but the GEMM reads 378"},
      {[](Case& c) { c.out_bytes -= 1; }, "the output buffer has 579 bytes"},
      {[](Case& c) { c.config.m = 0; }, "m is 0, below 1"},
      {[](Case& c) { c.config.n = -2; }, "n is -2, below 1"},
      {[](Case& c) { c.config.k = 0; }, "k is 0, below 1"},
      {[](Case& c) { c.config.batch_size = -1; }, "batch_size is -1, below 0"},
      {[](Case& c) { c.config.lhs_batch_stride = -1; }, "lhs_batch_stride is -1"},
      {[](Case& c) { c.config.rhs_batch_stride = -1; }, "rhs_batch_stride is -1"},
      {[](Case& c) { c.config.output_batch_stride = -1; }, "output_batch_stride is -1"},
      {[](Case& c) { c.config.rhs_batch_stride = 64; }, "the rhs buffer"},
      {[](Case& c) { c.config.lhs_type = BlasElementType::kF8E4M3FN; }, "fp8 gemm"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    Case c = ExactCase();
    cases[i].edit(c);
    const absl::Status status = Check(c);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << "case " << i;
    EXPECT_THAT(std::string(status.message()), HasSubstr(cases[i].message)) << "case " << i;
  }
}

}  // namespace
}  // namespace stream_executor
