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

TEST(FakeNcclReductions, UnsupportedTypesAndOps) {
  EXPECT_EQ(FindFakeNcclType(ncclFloat16), nullptr);
  EXPECT_NE(FindFakeNcclType(ncclUint64), nullptr);
  EXPECT_TRUE(IsSupportedFakeNcclOp(ncclMin));
  EXPECT_FALSE(IsSupportedFakeNcclOp(ncclAvg));
  EXPECT_STREQ(FakeNcclOpName(ncclProd), "prod");
  EXPECT_STREQ(FakeNcclOpName(ncclAvg), "?");
}

}  // namespace
}  // namespace stream_executor::cuda
