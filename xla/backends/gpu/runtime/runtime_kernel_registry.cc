#include "xla/backends/gpu/runtime/runtime_kernel_registry.h"

#include <cstdint>

namespace xla::gpu {
namespace {

absl::Status IotaS32(absl::Span<const stream_executor::DeviceMemoryBase> args,
                     const stream_executor::LaunchDimensions& dims) {
  int32_t* out = static_cast<int32_t*>(args[0].opaque);
  for (uint64_t i = 0; i < args[0].size / sizeof(int32_t); ++i) out[i] = static_cast<int32_t>(i);
  return absl::OkStatus();
}

constexpr RegisteredKernel kRegisteredKernels[] = {
    {"xla.runtime.iota_s32", "host", 1, &IotaS32},
};

constexpr RegisteredKernelAlias kRegisteredKernelAliases[] = {
    // Backward-compatibility fallback for the pre-rename name xla_runtime_iota_s32. Can be removed in May 2027 (6 months backward compatibility window).
    RegisteredKernelAlias{"xla_runtime_iota_s32", "xla.runtime.iota_s32", "2027-05-01"},
};

const RegisteredKernel* FindByCurrentName(absl::string_view name) {
  for (const RegisteredKernel& k : kRegisteredKernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace

const RegisteredKernel* FindRegisteredKernel(absl::string_view name) {
  if (const RegisteredKernel* kernel = FindByCurrentName(name)) return kernel;
  for (const RegisteredKernelAlias& alias : kRegisteredKernelAliases) {
    if (alias.old_name == name) return FindByCurrentName(alias.new_name);
  }
  return nullptr;
}

absl::Span<const RegisteredKernelAlias> RegisteredKernelAliases() { return kRegisteredKernelAliases; }

}  // namespace xla::gpu
