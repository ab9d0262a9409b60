// SequentialThunk: runs its thunks in order (each on its own stream id).
//
// It is also the program's root: the payload's top-level `thunks` list is
// read with FromThunkList. Within one list every async_start must be
// followed by exactly one async_done of the same id on the same stream.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_SEQUENTIAL_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_SEQUENTIAL_THUNK_H_

#include <memory>
#include <vector>

#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class SequentialThunk : public Thunk {
 public:
  SequentialThunk(ThunkInfo info, std::vector<std::unique_ptr<Thunk>> thunks)
      : Thunk(Kind::kSequential, std::move(info)), thunks_(std::move(thunks)) {}

  // Reads `proto.thunks` (path "<ctx.path>.thunks[i]").
  static absl::StatusOr<std::unique_ptr<SequentialThunk>> FromProto(
      ThunkInfo info, const SequentialThunkProto& proto, const ThunkContext& ctx);
  // Reads a list of thunks found at `field` of ctx's message.
  static absl::StatusOr<std::unique_ptr<SequentialThunk>> FromThunkList(
      ThunkInfo info, const google::protobuf::RepeatedPtrField<ThunkProto>& list,
      const ThunkContext& ctx, absl::string_view field);

  absl::Status Prepare(ResourceRequests& requests) const override;
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  std::vector<const Thunk*> children() const override;

  // The list as a SequentialThunkProto (for nesting in other thunks).
  absl::StatusOr<SequentialThunkProto> ToSequenceProto() const;
  const std::vector<std::unique_ptr<Thunk>>& thunks() const { return thunks_; }

 private:
  std::vector<std::unique_ptr<Thunk>> thunks_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_SEQUENTIAL_THUNK_H_
