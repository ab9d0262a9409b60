// WhileThunk: runs `condition`, reads the PRED slice it wrote, and runs
// `body` while it is true. With a known trip count the condition is not run
// and the body runs exactly that many times. Each iteration waits on the
// host for the predicate (the stream is synchronized). The loop publishes
// its iteration number (0, 1, ...) to the thunks of its condition and body
// through ExecuteParams::loop (LoopIteration, thunk.h), which copies with a
// dynamic offset read.
//
// FromProto checks the predicate slice (1 byte), a trip count >= 0, and the
// nested sequences (on the while's own stream), read inside an
// EnclosingLoop that names this loop and its trip count.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_WHILE_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_WHILE_THUNK_H_

#include <memory>
#include <optional>

#include "xla/backends/gpu/runtime/sequential_thunk.h"

namespace xla::gpu {

class WhileThunk : public Thunk {
 public:
  WhileThunk(ThunkInfo info, std::unique_ptr<SequentialThunk> condition, BufferSlice predicate,
             std::unique_ptr<SequentialThunk> body, std::optional<int64_t> known_trip_count)
      : Thunk(Kind::kWhile, std::move(info)),
        condition_(std::move(condition)),
        predicate_(std::move(predicate)),
        body_(std::move(body)),
        known_trip_count_(known_trip_count) {}

  static absl::StatusOr<std::unique_ptr<WhileThunk>> FromProto(ThunkInfo info,
                                                               const WhileThunkProto& proto,
                                                               const ThunkContext& ctx);

  absl::Status Prepare(ResourceRequests& requests) const override;
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  std::vector<const Thunk*> children() const override { return {condition_.get(), body_.get()}; }

 private:
  std::unique_ptr<SequentialThunk> condition_;
  BufferSlice predicate_;
  std::unique_ptr<SequentialThunk> body_;
  std::optional<int64_t> known_trip_count_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_WHILE_THUNK_H_
