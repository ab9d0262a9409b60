// ConditionalThunk: reads a branch index (PRED or S32) from device memory
// and runs one branch: PRED true runs branch 0, false branch 1; an S32 index
// outside [0, branches) runs the last branch (XLA's semantics).
//
// FromProto checks the index type and slice size (1 or 4 bytes), the branch
// count (exactly 2 for PRED, 1..kMaxThunkRepeatedField for S32), and the
// branches (on the conditional's own stream).
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_CONDITIONAL_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_CONDITIONAL_THUNK_H_

#include <memory>
#include <vector>

#include "xla/backends/gpu/runtime/sequential_thunk.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

class ConditionalThunk : public Thunk {
 public:
  ConditionalThunk(ThunkInfo info, BufferSlice branch_index, PrimitiveType index_type,
                   std::vector<std::unique_ptr<SequentialThunk>> branches)
      : Thunk(Kind::kConditional, std::move(info)),
        branch_index_(std::move(branch_index)),
        index_type_(index_type),
        branches_(std::move(branches)) {}

  static absl::StatusOr<std::unique_ptr<ConditionalThunk>> FromProto(
      ThunkInfo info, const ConditionalThunkProto& proto, const ThunkContext& ctx);

  absl::Status Prepare(ResourceRequests& requests) const override;
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  std::vector<const Thunk*> children() const override;

 private:
  BufferSlice branch_index_;
  PrimitiveType index_type_;
  std::vector<std::unique_ptr<SequentialThunk>> branches_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_CONDITIONAL_THUNK_H_
