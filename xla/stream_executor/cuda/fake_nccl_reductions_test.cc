// The fake NCCL's reduction table against hand-computed folds.
#include "xla/stream_executor/cuda/fake_nccl_reductions.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

template <typename T>
std::vector<T> FoldOf(ncclDataType_t type, ncclRedOp_t op, const std::vector<std::vector<T>>& ranks) {
  const FakeNcclType* info = FindFakeNcclType(type);
  EXPECT_NE(info, nullptr);
  if (info == nullptr) return {};
  EXPECT_EQ(info->size, sizeof(T));
  std::vector<const char*> inputs;
  for (const std::vector<T>& r : ranks) inputs.push_back(reinterpret_cast<const char*>(r.data()));
  std::vector<T> out(ranks[0].size());
  info->fold[op](inputs, out.size(), reinterpret_cast<char*>(out.data()));
  return out;
}

TEST(FakeNcclReductions, FoldsInRankOrder) {
  // (1e8 + 1) - 1e8 = 0 in f32 rank order; the reverse order would give 1.
  EXPECT_EQ(FoldOf<float>(ncclFloat32, ncclSum, {{1e8f, 2.5f}, {1.0f, -0.5f}, {-1e8f, 3.0f}}),
            (std::vector<float>{0.0f, 5.0f}));
  EXPECT_EQ(FoldOf<int32_t>(ncclInt32, ncclMax, {{3, -7, 9}, {-2, 11, 9}, {5, 0, -1}}),
            (std::vector<int32_t>{5, 11, 9}));
  EXPECT_EQ(FoldOf<int64_t>(ncclInt64, ncclMin, {{3, -7}, {-2, 11}}), (std::vector<int64_t>{-2, -7}));
  EXPECT_EQ(FoldOf<double>(ncclFloat64, ncclProd, {{1.5, -2.0}, {4.0, 0.25}, {-1.0, 8.0}}),
            (std::vector<double>{-6.0, -4.0}));
  // Integer sums wrap.
  EXPECT_EQ(FoldOf<uint8_t>(ncclUint8, ncclSum, {{250, 7}, {10, 1}}), (std::vector<uint8_t>{4, 8}));
}

// 16-bit floats as encodings. bf16: 1.0 = 0x3F80, 1+2^-7 = 0x3F81,
// 1+2^-6 = 0x3F82, 2^-8 = 0x3B80, 2^-9 = 0x3B00. f16: 1.0 = 0x3C00,
// 1+2^-10 = 0x3C01, 2^-12 = 0x0C00.
TEST(FakeNcclReductions, SixteenBitFloatsRoundAfterEveryStep) {
  // Five ranks. Column 0: 1 + 2^-9 four times; each step is a quarter ulp
  // and rounds back to 1 (the exact sum 1 + 2^-7 is representable).
  // Column 1: the tiny values first add up exactly to 2^-7, then 1 + 2^-7.
  // Column 2: (1+2^-7) + 2^-8 is a tie, rounded up to the even 1+2^-6;
  // (1+2^-6) + 2^-8 is a tie that stays at the even 1+2^-6.
  const std::vector<std::vector<uint16_t>> bf16 = {
      {0x3F80, 0x3B00, 0x3F81}, {0x3B00, 0x3B00, 0x3B80}, {0x3B00, 0x3B00, 0x0000},
      {0x3B00, 0x3B00, 0x3B80}, {0x3B00, 0x3F80, 0x0000}};
  EXPECT_EQ(FoldOf<uint16_t>(ncclBfloat16, ncclSum, bf16),
            (std::vector<uint16_t>{0x3F80, 0x3F81, 0x3F82}));
  // Read as f16 the same bits mean other values (0x3F80 = 1.875).
  EXPECT_NE(FoldOf<uint16_t>(ncclFloat16, ncclSum, bf16), FoldOf<uint16_t>(ncclBfloat16, ncclSum, bf16));
  // (1+2^-7)^2 = 1 + 2^-6 + 2^-14 rounds to 1+2^-6; 2^-8 * 2^-8 = 2^-16
  // (0x3780); -1 * (1+2^-7) = 0xBF81.
  EXPECT_EQ(FoldOf<uint16_t>(ncclBfloat16, ncclProd,
                             {{0x3F81, 0x3B80, 0xBF80}, {0x3F81, 0x3B80, 0x3F81}}),
            (std::vector<uint16_t>{0x3F82, 0x3780, 0xBF81}));
  // max/min keep an operand: -2 (0xC000), 3 (0x4040), 0.5 (0x3F00).
  EXPECT_EQ(FoldOf<uint16_t>(ncclBfloat16, ncclMax, {{0xC000, 0x3F00}, {0x4040, 0xC000}, {0x3F00, 0x3F00}}),
            (std::vector<uint16_t>{0x4040, 0x3F00}));
  EXPECT_EQ(FoldOf<uint16_t>(ncclBfloat16, ncclMin, {{0xC000, 0x3F00}, {0x4040, 0xC000}, {0x3F00, 0x3F00}}),
            (std::vector<uint16_t>{0xC000, 0xC000}));
  // f16, five ranks.
  EXPECT_EQ(FoldOf<uint16_t>(ncclFloat16, ncclSum,
                             {{0x3C00, 0x0C00, 0x0C00}, {0x0C00, 0x0C00, 0x0C00},
                              {0x0C00, 0x3C00, 0x0C00}, {0x0C00, 0x3C00, 0x0C00},
                              {0x0C00, 0x3C00, 0x3C00}}),
            // col 0: 1 + four quarter ulps stays 1; col 1: 2^-12 + 2^-12 =
            // 2^-11, + 1 is a tie (to even: 1), + 1 + 1 = 3 (0x4200); col 2:
            // four times 2^-12 = 2^-10, + 1 = 1 + 2^-10.
            (std::vector<uint16_t>{0x3C00, 0x4200, 0x3C01}));
}

TEST(FakeNcclReductions, UnsupportedTypesAndOps) {
  EXPECT_EQ(FindFakeNcclType(ncclFloat8e4m3), nullptr);
  EXPECT_NE(FindFakeNcclType(ncclFloat16), nullptr);
  EXPECT_NE(FindFakeNcclType(ncclBfloat16), nullptr);
  EXPECT_NE(FindFakeNcclType(ncclUint64), nullptr);
  EXPECT_TRUE(IsSupportedFakeNcclOp(ncclMin));
  EXPECT_FALSE(IsSupportedFakeNcclOp(ncclAvg));
  EXPECT_STREQ(FakeNcclOpName(ncclProd), "prod");
  EXPECT_STREQ(FakeNcclOpName(ncclAvg), "?");
}

}  // namespace
}  // namespace stream_executor::cuda
