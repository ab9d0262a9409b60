// MemsetThunk: fills a slice with a repeated 32-bit pattern, or with zero
// bytes when the pattern is 0 (then any size is allowed; otherwise the size
// must be a multiple of 4, checked by FromProto).
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_MEMSET_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_MEMSET_THUNK_H_

#include <cstdint>
#include <memory>

#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class MemsetThunk : public Thunk {
 public:
  MemsetThunk(ThunkInfo info, BufferSlice destination, uint32_t pattern)
      : Thunk(Kind::kMemset, std::move(info)), destination_(std::move(destination)), pattern_(pattern) {}

  static absl::StatusOr<std::unique_ptr<MemsetThunk>> FromProto(ThunkInfo info,
                                                                const MemsetThunkProto& proto,
                                                                const ThunkContext& ctx);

  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  // A command unless the destination is empty (then nothing is enqueued).
  bool IsCommand() const override { return destination_.size > 0; }
  absl::Status ToCommand(const ExecuteParams& params,
                         stream_executor::DeviceCommand* command) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

 private:
  BufferSlice destination_;
  uint32_t pattern_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_MEMSET_THUNK_H_
