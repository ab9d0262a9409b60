// Compatibility checks between a CUDA artifact and the machine: the device's
// compute capability and the driver's CUDA version.
//
// Rules (CUDA's own): a cubin for sm_XY runs on devices of the same major
// version with minor >= Y; PTX for sm_XY is JIT-compiled for any device with
// capability >= X.Y; arch-specific targets (sm_90a) run only on exactly that
// capability. The driver must support at least the CUDA version the artifact
// was built for (versions are 1000 * major + 10 * minor, as
// cuDriverGetVersion reports them).
//
// Thread-safety: pure functions.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_COMPATIBILITY_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_COMPATIBILITY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

struct CudaComputeCapability {
  int major = 0;
  int minor = 0;
  bool arch_specific = false;  // the "a" suffix (sm_90a)

  // "sm_90", "sm_90a".
  std::string ToSmString() const;
  // "9.0" (as DeviceLimits::compute_capability).
  std::string ToDotString() const;
};

// Parses "sm_90", "sm_90a", "compute_90", "9.0" or "90". InvalidArgument
// naming the text otherwise.
absl::StatusOr<CudaComputeCapability> ParseCudaComputeCapability(
    absl::string_view text);

// "12.4 (12040)".
std::string CudaVersionToString(int version);

// OK when code compiled for `required_cc` (`has_ptx`: PTX is available, not
// only a cubin) runs on a device of capability `device_cc`, and the driver
// version `driver_version` is at least `required_driver_version` (0: no
// requirement). Otherwise FailedPrecondition naming both values of the
// failed check and what to do. InvalidArgument for an unparsable
// `required_cc`.
absl::Status CheckCudaCompatibility(const CudaComputeCapability& device_cc,
                                    int driver_version,
                                    absl::string_view required_cc,
                                    int required_driver_version, bool has_ptx);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_COMPATIBILITY_H_
