#include "xla/backends/gpu/runtime/collectives/collective_ops.h"

#include <utility>

#include "absl/functional/function_ref.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

// The block moves that reorder a buffer viewed as [outer][n blocks][block_bytes]
// into one viewed as [n][outer][block_bytes], block p going to rank
// to_rank[p] (packing), or, with `unpack`, back: move(from, to) gets the
// byte offsets of each block; stops at the first error.
absl::Status ForEachBlockMove(int64_t outer, absl::Span<const int64_t> to_rank, int64_t block_bytes,
                              bool unpack,
                              absl::FunctionRef<absl::Status(int64_t from, int64_t to)> move) {
  const int64_t n = static_cast<int64_t>(to_rank.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t p = 0; p < n; ++p) {
      int64_t from = (o * n + p) * block_bytes;
      int64_t to = (to_rank[p] * outer + o) * block_bytes;
      if (unpack) std::swap(from, to);
      RETURN_IF_ERROR(move(from, to));
    }
  }
  return absl::OkStatus();
}

// Packs (or unpacks) blocks of `block_bytes` from `src` into `dst`: one
// device-to-device copy per block, enqueued on the exchange's stream.
absl::Status PackBlocks(const CollectiveExchange& x, se::DeviceMemoryBase src,
                        se::DeviceMemoryBase dst, int64_t block_bytes, bool unpack) {
  return ForEachBlockMove(x.split.outer, x.who.to_rank, block_bytes, unpack,
                          [&](int64_t from, int64_t to) {
                            ASSIGN_OR_RETURN(se::DeviceMemoryBase in, src.GetSlice(from, block_bytes));
                            ASSIGN_OR_RETURN(se::DeviceMemoryBase out, dst.GetSlice(to, block_bytes));
                            return x.stream.Memcpy(&out, in, block_bytes);
                          });
}

// The bytes of one group member's block of a split dimension.
int64_t SplitBlockBytes(const CollectiveExchange& x) {
  return x.split.dim / x.n() * x.split.inner * x.width();
}

absl::Status AllReduce(const CollectiveExchange& x) {
  return x.comm.AllReduce(x.run_id, x.reduction, x.element_type, x.src, x.dst, x.elements(),
                          x.stream);
}

// Gathers whole operands in rank order, then interleaves them along the
// dimension in group order.
absl::Status AllGather(const CollectiveExchange& x) {
  if (x.direct()) return x.comm.AllGather(x.run_id, x.src, x.dst, x.bytes, x.stream);
  ASSIGN_OR_RETURN(se::DeviceMemoryBase gathered, x.comm.Scratch(x.bytes * x.n(), x.stream));
  RETURN_IF_ERROR(x.comm.AllGather(x.run_id, x.src, gathered, x.bytes, x.stream));
  return PackBlocks(x, gathered, x.dst, x.split.dim * x.split.inner * x.width(), /*unpack=*/true);
}

absl::Status ReduceScatter(const CollectiveExchange& x) {
  const int64_t count = x.elements() / x.n();
  if (x.direct()) {
    return x.comm.ReduceScatter(x.run_id, x.reduction, x.element_type, x.src, x.dst, count,
                                x.stream);
  }
  ASSIGN_OR_RETURN(se::DeviceMemoryBase packed, x.comm.Scratch(x.bytes, x.stream));
  RETURN_IF_ERROR(PackBlocks(x, x.src, packed, SplitBlockBytes(x), /*unpack=*/false));
  return x.comm.ReduceScatter(x.run_id, x.reduction, x.element_type, packed, x.dst, count,
                              x.stream);
}

absl::Status AllToAll(const CollectiveExchange& x) {
  if (x.direct()) return x.comm.AllToAll(x.run_id, x.src, x.dst, x.bytes / x.n(), x.stream);
  ASSIGN_OR_RETURN(se::DeviceMemoryBase scratch, x.comm.Scratch(2 * x.bytes, x.stream));
  ASSIGN_OR_RETURN(se::DeviceMemoryBase packed, scratch.GetSlice(0, x.bytes));
  ASSIGN_OR_RETURN(se::DeviceMemoryBase received, scratch.GetSlice(x.bytes, x.bytes));
  RETURN_IF_ERROR(PackBlocks(x, x.src, packed, SplitBlockBytes(x), /*unpack=*/false));
  RETURN_IF_ERROR(x.comm.AllToAll(x.run_id, packed, received, x.bytes / x.n(), x.stream));
  return PackBlocks(x, received, x.dst, SplitBlockBytes(x), /*unpack=*/true);
}

absl::Status CollectivePermute(const CollectiveExchange& x) {
  return x.comm.CollectivePermute(x.run_id, x.src, x.dst, x.bytes, x.who.source_rank,
                                  x.who.target_ranks, x.stream);
}

// The root is the group's first listed replica, wherever its device sorts
// in the clique.
absl::Status Broadcast(const CollectiveExchange& x) {
  return x.comm.Broadcast(x.run_id, x.src, x.dst, x.bytes, x.who.to_rank[0], x.stream);
}

using R = CollectiveResult;
constexpr CollectiveOpRow kOps[] = {
    // op, name, operand, reduces, splits, gathers, groups, result, enqueue
    {COLLECTIVE_OP_ALL_REDUCE, "all-reduce", true, true, false, false, true, R::kSameAsOperand,
     &AllReduce},
    {COLLECTIVE_OP_ALL_GATHER, "all-gather", true, false, false, true, true, R::kTimesGroup,
     &AllGather},
    {COLLECTIVE_OP_REDUCE_SCATTER, "reduce-scatter", true, true, true, false, true, R::kOverGroup,
     &ReduceScatter},
    {COLLECTIVE_OP_ALL_TO_ALL, "all-to-all", true, false, true, false, true, R::kSameAsOperand,
     &AllToAll},
    {COLLECTIVE_OP_COLLECTIVE_PERMUTE, "collective-permute", true, false, false, false, false,
     R::kSameAsOperand, &CollectivePermute},
    {COLLECTIVE_OP_REPLICA_ID, "replica-id", false, false, false, false, false, R::kDeviceId,
     nullptr},
    {COLLECTIVE_OP_PARTITION_ID, "partition-id", false, false, false, false, false, R::kDeviceId,
     nullptr},
    {COLLECTIVE_OP_COLLECTIVE_BROADCAST, "collective-broadcast", true, false, false, false, true,
     R::kSameAsOperand, &Broadcast},
};

}  // namespace

CollectiveSplit SplitAt(const std::vector<int64_t>& dims, int64_t d) {
  CollectiveSplit s;
  if (dims.empty()) return s;
  for (int64_t i = 0; i < d; ++i) s.outer *= dims[i];
  s.dim = dims[d];
  for (size_t i = d + 1; i < dims.size(); ++i) s.inner *= dims[i];
  return s;
}

int64_t CollectiveOpRow::ResultBytes(int64_t operand_bytes, int64_t group_size) const {
  switch (result) {
    case R::kDeviceId:
      return 4;
    case R::kSameAsOperand:
      return operand_bytes;
    case R::kTimesGroup:
      return operand_bytes * group_size;
    case R::kOverGroup:
      return operand_bytes / group_size;
  }
  return operand_bytes;
}

const CollectiveOpRow* FindCollectiveOp(int op) {
  for (const CollectiveOpRow& r : kOps) {
    if (static_cast<int>(r.op) == op) return &r;
  }
  return nullptr;
}

}  // namespace xla::gpu
