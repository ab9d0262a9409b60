// CopyDynamicOffset: the loop-following offsets of a copy thunk
// (CopyThunkProto.dynamic_offset, runtime feature "copy_thunk.dynamic_offset").
//
// At iteration `i` of the while thunk `loop_depth` levels out from the copy
// (0: the innermost), the copy moves `source.size` bytes from
// `source.offset + source_base + source_stride * i` of the source's
// allocation to `destination.offset + destination_base +
// destination_stride * i` of the destination's. A scan stack in host
// memory is written one row per iteration of one loop and read back, in
// any affine order, by another (docs/architecture.md, "Scan stacks in host
// memory").
//
// The artifact is untrusted: FromProto checks loop_depth against the
// while thunks around the copy and, when that loop has a known trip count,
// every iteration's windows against their allocations, naming the first
// iteration that leaves one. Loops without a trip count are checked at run
// time, window by window (WindowsAt), so a bad iteration is an error,
// never an out-of-bounds copy.
//
// Thread-safety: immutable after FromProto; every function is pure.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COPY_DYNAMIC_OFFSET_H_
#define XLA_BACKENDS_GPU_RUNTIME_COPY_DYNAMIC_OFFSET_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

struct CopyDynamicOffset {
  int64_t loop_depth = 0;
  int64_t source_base = 0;
  int64_t source_stride = 0;
  int64_t destination_base = 0;
  int64_t destination_stride = 0;
  // The sizes of the source's and destination's allocations, copied from
  // the allocation table at FromProto for the run-time check.
  int64_t source_allocation_size = 0;
  int64_t destination_allocation_size = 0;

  // Validates `proto` for a copy of `source` to `destination` (slices
  // already checked against the allocation table, equal sizes) read in
  // `ctx`: loop_depth in [0, number of while thunks around the copy);
  // with a known trip count n of that loop, both windows of every
  // iteration in [0, n) inside their allocations, and the windows of
  // iteration 0 not overlapping partially. InvalidArgument naming
  // ctx.path(), the field, the iteration and the bounds.
  static absl::StatusOr<CopyDynamicOffset> FromProto(const CopyDynamicOffsetProto& proto,
                                                     const BufferSlice& source,
                                                     const BufferSlice& destination,
                                                     const ThunkContext& ctx);
  CopyDynamicOffsetProto ToProto() const;

  // The source and destination slices at `iteration`. OutOfRange when a
  // window leaves its allocation (or its offset overflows), or the two
  // windows overlap partially; the message names the iteration.
  struct Windows {
    BufferSlice source;
    BufferSlice destination;
  };
  absl::StatusOr<Windows> WindowsAt(const BufferSlice& source, const BufferSlice& destination,
                                    int64_t iteration) const;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COPY_DYNAMIC_OFFSET_H_
