#include "xla/stream_executor/cuda/cuda_compatibility.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace stream_executor::cuda {

std::string CudaComputeCapability::ToSmString() const {
  return absl::StrCat("sm_", major, minor, arch_specific ? "a" : "");
}

std::string CudaComputeCapability::ToDotString() const {
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<CudaComputeCapability> ParseCudaComputeCapability(
    absl::string_view text) {
  const auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot parse CUDA compute capability '", text,
        "': expected sm_<major><minor>[a] (e.g. sm_90), or <major>.<minor>"));
  };
  CudaComputeCapability cc;
  absl::string_view rest = text;
  if (absl::ConsumePrefix(&rest, "sm_") ||
      absl::ConsumePrefix(&rest, "compute_")) {
    cc.arch_specific = absl::ConsumeSuffix(&rest, "a");
  }
  if (absl::StrContains(rest, '.')) {
    std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(rest, absl::MaxSplits('.', 1));
    if (!absl::SimpleAtoi(parts.first, &cc.major) ||
        !absl::SimpleAtoi(parts.second, &cc.minor)) {
      return invalid();
    }
  } else {
    int number = 0;
    // The minor version is the last digit: sm_90 -> 9.0, sm_100 -> 10.0.
    if (rest.size() < 2 || !absl::SimpleAtoi(rest, &number)) return invalid();
    cc.major = number / 10;
    cc.minor = number % 10;
  }
  if (cc.major <= 0 || cc.minor < 0) return invalid();
  return cc;
}

std::string CudaVersionToString(int version) {
  return absl::StrCat(version / 1000, ".", version % 1000 / 10, " (", version,
                      ")");
}

absl::Status CheckCudaCompatibility(const CudaComputeCapability& device_cc,
                                    int driver_version,
                                    absl::string_view required_cc,
                                    int required_driver_version, bool has_ptx) {
  absl::StatusOr<CudaComputeCapability> required =
      ParseCudaComputeCapability(required_cc);
  if (!required.ok()) return required.status();
  const std::string both = absl::StrCat(
      "the artifact was compiled for ", required->ToSmString(),
      " and the device is ", device_cc.ToSmString(), " (compute capability ",
      device_cc.ToDotString(), ")");
  const bool same_major = device_cc.major == required->major;
  const bool at_least =
      device_cc.major > required->major ||
      (same_major && device_cc.minor >= required->minor);
  bool runs = false;
  if (required->arch_specific) {
    runs = same_major && device_cc.minor == required->minor;
  } else if (has_ptx) {
    runs = at_least;
  } else {
    runs = same_major && device_cc.minor >= required->minor;
  }
  if (!runs) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CUDA compute capability mismatch: ", both,
        has_ptx ? "" : " (the artifact has a cubin and no PTX)",
        "; recompile for ", device_cc.ToSmString(),
        " or run on a matching GPU"));
  }
  if (required_driver_version > 0 && driver_version < required_driver_version) {
    return absl::FailedPreconditionError(absl::StrCat(
        "NVIDIA driver too old: the artifact needs CUDA ",
        CudaVersionToString(required_driver_version),
        " and the driver supports CUDA ", CudaVersionToString(driver_version),
        "; update the NVIDIA driver"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor::cuda
