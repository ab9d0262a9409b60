// CustomCallThunk: calls an FFI handler (ffi/ffi_registry.h) with operand
// and result slices, opaque bytes and typed attributes.
//
// The handler is resolved in FromProto, for the target's platform: an
// unknown name (or one whose alias is gone) fails the load with
// InvalidArgument naming the target and the registered handlers, as does a
// call that does not match the handler's signature or has duplicate or
// valueless attributes.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_CUSTOM_CALL_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_CUSTOM_CALL_THUNK_H_

#include <memory>
#include <string>
#include <vector>

#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class CustomCallThunk : public Thunk {
 public:
  CustomCallThunk(ThunkInfo info, std::string target_name, const ffi::HandlerEntry* handler,
                  std::vector<BufferSlice> operands, std::vector<BufferSlice> results,
                  std::string opaque, ffi::Attributes attributes)
      : Thunk(Kind::kCustomCall, std::move(info)),
        target_name_(std::move(target_name)),
        handler_(handler),
        operands_(std::move(operands)),
        results_(std::move(results)),
        opaque_(std::move(opaque)),
        attributes_(std::move(attributes)) {}

  static absl::StatusOr<std::unique_ptr<CustomCallThunk>> FromProto(
      ThunkInfo info, const CustomCallThunkProto& proto, const ThunkContext& ctx);

  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  // The name as written in the artifact (possibly an alias).
  const std::string& target_name() const { return target_name_; }

 private:
  std::string target_name_;
  const ffi::HandlerEntry* handler_;
  std::vector<BufferSlice> operands_;
  std::vector<BufferSlice> results_;
  std::string opaque_;
  ffi::Attributes attributes_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_CUSTOM_CALL_THUNK_H_
