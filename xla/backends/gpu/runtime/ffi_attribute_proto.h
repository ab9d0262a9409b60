// Typed FFI attributes (ffi::Attributes) to and from their artifact form
// (repeated FfiAttributeProto in CustomCallThunkProto). The compiler writes
// with AttributesToProto; the runtime reads with AttributesFromProto at
// load. One table of kinds: ffi::AttributeKind.
//
// Thread-safety: pure functions.
#ifndef XLA_BACKENDS_GPU_RUNTIME_FFI_ATTRIBUTE_PROTO_H_
#define XLA_BACKENDS_GPU_RUNTIME_FFI_ATTRIBUTE_PROTO_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Reads and validates `protos`: every attribute has a value of a kind this
// runtime knows, a non-empty name not used before, and arrays of at most
// ffi::kMaxAttributeArrayElements elements. InvalidArgument
// "<path>.attributes[<i>]: <what>" otherwise, e.g. "attribute 'x' has no
// value of a known type (artifact newer than runtime?)". The caller bounds
// the number of attributes.
absl::StatusOr<ffi::Attributes> AttributesFromProto(
    const google::protobuf::RepeatedPtrField<FfiAttributeProto>& protos, absl::string_view path);

// Appends one FfiAttributeProto per attribute, in name order. Never fails.
void AttributesToProto(const ffi::Attributes& attributes,
                       google::protobuf::RepeatedPtrField<FfiAttributeProto>* out);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_FFI_ATTRIBUTE_PROTO_H_
