// The built-in FFI handlers documented in ffi_registry.h. They run on the
// host platform, where device memory is host memory, as stream callbacks.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/ffi/te_fused_attention_host.h"
#include "xla/util/logging.h"

namespace xla::gpu::ffi {
namespace {

absl::Status CheckF32(const stream_executor::DeviceMemoryBase& m, absl::string_view what) {
  if (m.size % sizeof(float) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", m.size,
                                                   " bytes is not a whole number of f32"));
  }
  return absl::OkStatus();
}

absl::Status FillF32(const CallFrame& frame) {
  const stream_executor::DeviceMemoryBase out = frame.results[0];
  if (absl::Status s = CheckF32(out, "xla.host.fill_f32 result"); !s.ok()) return s;
  const AttributeValue& v = frame.attributes->find("value")->second;
  float value = 0;
  if (const double* d = std::get_if<double>(&v)) value = static_cast<float>(*d);
  if (const int64_t* i = std::get_if<int64_t>(&v)) value = static_cast<float>(*i);
  return frame.stream->DoHostCallback([out, value]() -> absl::Status {
    float* data = static_cast<float*>(out.opaque);
    for (uint64_t i = 0; i < out.size / sizeof(float); ++i) data[i] = value;
    return absl::OkStatus();
  });
}

absl::Status AddF32(const CallFrame& frame) {
  const stream_executor::DeviceMemoryBase a = frame.operands[0], b = frame.operands[1];
  const stream_executor::DeviceMemoryBase out = frame.results[0];
  if (a.size != b.size || a.size != out.size) {
    return absl::InvalidArgumentError(absl::StrCat("xla.host.add_f32: sizes ", a.size, ", ",
                                                   b.size, " and ", out.size, " differ"));
  }
  if (absl::Status s = CheckF32(out, "xla.host.add_f32 result"); !s.ok()) return s;
  return frame.stream->DoHostCallback([a, b, out]() -> absl::Status {
    const float* x = static_cast<const float*>(a.opaque);
    const float* y = static_cast<const float*>(b.opaque);
    float* z = static_cast<float*>(out.opaque);
    for (uint64_t i = 0; i < out.size / sizeof(float); ++i) z[i] = x[i] + y[i];
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterBuiltinHandlers(FfiRegistry& registry) {
  absl::Status s = registry.Register({"xla.host.fill_f32", "host", &FillF32, {0, 1, {"value"}, {}}});
  XLA_CHECK(s.ok()) << s;
  s = registry.Register({"xla.host.add_f32", "host", &AddF32, {2, 1, {}, {}}});
  XLA_CHECK(s.ok()) << s;
  s = RegisterTeFusedAttentionHostHandlers(registry);
  XLA_CHECK(s.ok()) << s;
  // Backward-compatibility fallback for the pre-rename name xla_host_fill_f32. Can be removed in May 2027 (6 months backward compatibility window).
  s = registry.RegisterAlias({"xla_host_fill_f32", "xla.host.fill_f32", "2027-05-01"});
  XLA_CHECK(s.ok()) << s;
}

}  // namespace xla::gpu::ffi
