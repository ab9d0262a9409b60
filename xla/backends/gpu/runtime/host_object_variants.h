// The builds of an artifact's host kernels for wider CPUs
// (GpuExecutablePayloadProto.host_object_variants): their validation at
// load, and which one a CPU runs; and the check at load of every host
// shared object the artifact carries (CheckHostObjects).
//
// An artifact compiled for the portable x86-64-v2 baseline can carry the
// same kernels compiled again, say for x86-64-v3 (AVX2, FMA): a runtime on
// a CPU with those extensions runs that build, any other runtime (an older
// one too, which ignores the field) the baseline. The builds compute the
// same bits (see HostObjectVariantProto), so the choice changes speed only.
//
// Thread-safety: pure functions.
#ifndef XLA_BACKENDS_GPU_RUNTIME_HOST_OBJECT_VARIANTS_H_
#define XLA_BACKENDS_GPU_RUNTIME_HOST_OBJECT_VARIANTS_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/target.h"

namespace xla::gpu {

// InvalidArgument naming "host_object_variants[i]..." when the payload has
// builds but the target is not host or host_shared_object (the baseline,
// passed as a view) is empty, or a build's shared_object is empty or one of
// its cpu_features is not shaped like a feature name (CheckCpuFeatureNames).
absl::Status ValidateHostObjectVariants(const GpuExecutablePayloadProto& payload,
                                        const Target& target,
                                        absl::string_view host_shared_object);

// The index of the build a CPU with `machine_features` runs: the first of
// payload.host_object_variants whose every feature this runtime knows
// (stream_executor::host::IsKnownCpuFeature) and the CPU has; -1 for
// host_shared_object. A build naming an extension this runtime cannot
// detect is never picked.
// The host shared objects of an artifact, each with the field it came from
// ("payload.host_shared_object", "payload.host_object_variants[1].shared_object"),
// the baseline (a view, possibly empty) first. Views into `payload` and
// `host_shared_object`.
struct HostObjectField {
  std::string field;
  absl::string_view bytes;
};
std::vector<HostObjectField> HostObjectsOf(const GpuExecutablePayloadProto& payload,
                                           absl::string_view host_shared_object);

// The kernels' host symbols (KernelProto.host_symbol): what a host shared
// object of the artifact may export.
std::set<std::string, std::less<>> HostKernelSymbols(const GpuExecutablePayloadProto& payload);

// Runs stream_executor::host::CheckHostSharedObject over every non-empty
// object of HostObjectsOf, exports limited to HostKernelSymbols: before
// anything dlopens them, an object that would run code, load a library or
// write outside itself while loading, or exports more than the kernels,
// fails the load. InvalidArgument naming the field and the first refused
// feature.
absl::Status CheckHostObjects(const GpuExecutablePayloadProto& payload,
                              absl::string_view host_shared_object);

int ChooseHostObjectVariant(const GpuExecutablePayloadProto& payload,
                            const std::set<std::string>& machine_features);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_HOST_OBJECT_VARIANTS_H_
