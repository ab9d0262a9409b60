// CustomCallThunk: calls an FFI handler (ffi/ffi_registry.h) with operand
// and result slices (their shapes, with layouts, when the artifact has
// them), opaque bytes and typed attributes.
//
// Two steps, both before anything runs:
//   FromProto (load)  validates the slices and the attributes (a known
//                     kind, a non-empty unique name, arrays of at most
//                     ffi::kMaxAttributeArrayElements); when the registry already has the handler for the
//                     target's platform, checks the call against its
//                     signature too. InvalidArgument naming the field.
//   Initialize        looks the handler up in the registry the artifact was
//                     loaded with (so one registered after the load is
//                     found) and checks the signature. NotFound naming the
//                     target, the platform and the registered handlers when
//                     it is missing; the executable is then not initialized
//                     for the device, so nothing of it runs.
//
// Thread-safety: see thunk.h. Initialize may run for one device while
// ExecuteOnStream runs for another (the resolved handler is atomic).
#ifndef XLA_BACKENDS_GPU_RUNTIME_CUSTOM_CALL_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_CUSTOM_CALL_THUNK_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class CustomCallThunk : public Thunk {
 public:
  // Everything FromProto reads and validates.
  struct Call {
    std::string target_name;
    CustomCallApiVersionProto api_version = CUSTOM_CALL_API_VERSION_UNSPECIFIED;
    std::vector<BufferSlice> operands;
    std::vector<BufferSlice> results;
    std::string opaque;
    ffi::Attributes attributes;
  };

  // `registry` must outlive the thunk; `handler` is the handler found at
  // load, or null when the registry has none yet. `path` prefixes errors.
  CustomCallThunk(ThunkInfo info, Call call, const ffi::FfiRegistry* registry,
                  std::string platform, std::string path, const ffi::HandlerEntry* handler);

  static absl::StatusOr<std::unique_ptr<CustomCallThunk>> FromProto(
      ThunkInfo info, const CustomCallThunkProto& proto, const ThunkContext& ctx);

  // Resolves the handler (see above); idempotent.
  absl::Status Initialize(const InitializeParams& params) override;
  // FailedPrecondition when Initialize has not resolved the handler.
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  // The name as written in the artifact (possibly an alias).
  const std::string& target_name() const { return call_.target_name; }
  const ffi::Attributes& attributes() const { return call_.attributes; }
  // Whether the handler is resolved (at load or Initialize).
  bool resolved() const { return handler_.load(std::memory_order_acquire) != nullptr; }

 private:
  Call call_;
  const ffi::FfiRegistry* registry_;
  std::string platform_;
  std::string path_;
  std::atomic<const ffi::HandlerEntry*> handler_;
  // The slices' shapes as the CallFrame hands them over, made once here
  // instead of on every Execute (they point into call_).
  std::vector<const Shape*> operand_shapes_;
  std::vector<const Shape*> result_shapes_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_CUSTOM_CALL_THUNK_H_
