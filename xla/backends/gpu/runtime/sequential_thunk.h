// SequentialThunk: runs its thunks in order (each on its own stream id).
//
// It is also the program's root: the payload's top-level `thunks` list is
// read with FromThunkList. Within one list every async_start must be
// followed by exactly one async_done of the same id on the same stream.
//
// With ExecuteParams::graphs set, a run of command thunks that has a CUDA
// graph is submitted as one graph launch (graph_runner.h); with a tracer
// set (and no graphs), each thunk's interval is recorded.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_SEQUENTIAL_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_SEQUENTIAL_THUNK_H_

#include <map>
#include <memory>
#include <string>
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

  // Builds a list one thunk at a time, so that a caller reading the protos
  // from stored bytes keeps only one ThunkProto alive (program.cc loads the
  // payload's top-level list this way). Checks exactly what FromThunkList
  // checks, in the same order: first CheckAsync for every proto of the list
  // then FinishChecks, then Add for every proto in the same order, then
  // Finish. Errors name "<ctx.path>.<field>[i]". Not thread-safe.
  class ListBuilder {
   public:
    ListBuilder(const ThunkContext& ctx, absl::string_view field) : ctx_(ctx), field_(field) {}

    // Pass 1: async_start/async_done pairing of the i-th proto.
    absl::Status CheckAsync(const ThunkProto& proto);
    // Fails when an async_start of the list has no async_done.
    absl::Status FinishChecks();
    // Pass 2: validates and converts the next proto; the proto may be freed
    // afterwards (nothing refers to it).
    absl::Status Add(const ThunkProto& proto);
    // The sequence of the thunks added so far.
    std::unique_ptr<SequentialThunk> Finish(ThunkInfo info) &&;

   private:
    const ThunkContext& ctx_;
    std::string field_;
    int64_t checked_ = 0;
    std::map<int64_t, int64_t> open_;  // async id -> stream id of its start
    std::vector<std::unique_ptr<Thunk>> thunks_;
  };

  absl::Status Prepare(ResourceRequests& requests) const override;
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  std::vector<const Thunk*> children() const override;

  // The list as a SequentialThunkProto (for nesting in other thunks).
  absl::StatusOr<SequentialThunkProto> ToSequenceProto() const;
  const std::vector<std::unique_ptr<Thunk>>& thunks() const { return thunks_; }
  absl::Span<const std::unique_ptr<Thunk>> sequence() const override { return thunks_; }

 private:
  std::vector<std::unique_ptr<Thunk>> thunks_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_SEQUENTIAL_THUNK_H_
