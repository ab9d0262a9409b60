#include "xla/backends/gpu/runtime/memory_report.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"

namespace xla::gpu {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// The runtime packs temporaries at this alignment (StreamExecutor's).
constexpr int64_t kTempAlignment = 256;

void Add(int64_t* sum, int64_t bytes) {
  if (bytes <= 0) return;
  *sum = bytes > kMax - *sum ? kMax : *sum + bytes;
}

int64_t AlignUp(int64_t bytes) {
  if (bytes <= 0) return 0;
  if (bytes > kMax - (kTempAlignment - 1)) return kMax;
  return (bytes + kTempAlignment - 1) / kTempAlignment * kTempAlignment;
}

struct Unit {
  const char* name;
  double bytes;
};
// Longest suffix first, so "GiB" is not read as "B".
constexpr Unit kUnits[] = {
    {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
    {"B", 1.0},
};

}  // namespace

MemoryReport ComputeMemoryReport(const GpuExecutablePayloadProto& payload) {
  MemoryReport r;
  for (const BufferAllocationProto& a : payload.allocations()) {
    if (a.is_parameter()) {
      Add(&r.parameter_bytes, a.size());
      if (a.is_output()) Add(&r.aliased_bytes, a.size());
    } else if (a.is_constant()) {
      Add(&r.constant_bytes, a.size());
    } else if (a.is_output()) {
      Add(&r.output_bytes, a.size());
    } else if (a.is_temp() && a.memory_space() == kHostMemorySpace) {
      Add(&r.host_offloaded_bytes, AlignUp(a.size()));
    } else if (a.is_temp()) {
      Add(&r.temp_bytes, AlignUp(a.size()));
    }
  }
  for (int64_t part : {r.parameter_bytes, r.output_bytes, r.temp_bytes, r.constant_bytes}) {
    Add(&r.peak_bytes, part);
  }
  return r;
}

std::string FormatBytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " bytes");
  const char* unit = "KiB";
  double value = bytes / 1024.0;
  for (const char* next : {"MiB", "GiB", "TiB"}) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return absl::StrFormat("%.1f %s (%d bytes)", value, unit, bytes);
}

namespace {
std::string Parts(const MemoryReport& r) {
  return absl::StrCat("parameters ", FormatBytes(r.parameter_bytes), ", outputs ",
                      FormatBytes(r.output_bytes), ", temporaries ", FormatBytes(r.temp_bytes),
                      ", constants ", FormatBytes(r.constant_bytes));
}
}  // namespace

std::string FormatMemoryReport(const MemoryReport& r, absl::string_view indent) {
  std::string out = absl::StrCat(indent, "device memory per device: peak ", FormatBytes(r.peak_bytes),
                                 "\n", indent, "  ", Parts(r), "\n");
  if (r.aliased_bytes > 0) {
    absl::StrAppend(&out, indent, "  aliased parameters ", FormatBytes(r.aliased_bytes),
                    " (copied once more when not donated)\n");
  }
  if (r.host_offloaded_bytes > 0) {
    absl::StrAppend(&out, indent, "host memory (offloaded): ", FormatBytes(r.host_offloaded_bytes),
                    "\n");
  }
  return out;
}

absl::Status CheckFitsDeviceMemory(const MemoryReport& r, int64_t limit_bytes,
                                   absl::string_view what) {
  if (limit_bytes <= 0 || r.peak_bytes <= limit_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      what, ": needs ", FormatBytes(r.peak_bytes), " of device memory per device (", Parts(r),
      r.host_offloaded_bytes > 0
          ? absl::StrCat("; host-offloaded ", FormatBytes(r.host_offloaded_bytes),
                         " in host memory, not counted")
          : "",
      ") but the device has ", FormatBytes(limit_bytes),
      " (--device_memory); offload activations, shard the program over more devices or use a "
      "device with more memory"));
}

absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  const std::string original(text);
  absl::string_view number = absl::StripAsciiWhitespace(text);
  double scale = 1.0;
  for (const Unit& unit : kUnits) {
    if (absl::EndsWithIgnoreCase(number, unit.name)) {
      number.remove_suffix(strlen(unit.name));
      number = absl::StripTrailingAsciiWhitespace(number);
      scale = unit.bytes;
      break;
    }
  }
  int64_t whole = 0;
  if (scale == 1.0) {
    if (!absl::SimpleAtoi(number, &whole) || whole <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad memory size '", original,
          "' (use a positive whole number of bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, "
          "GB or TB: 80GiB, 512MiB)"));
    }
    return whole;
  }
  double value = 0;
  if (number.empty() || !absl::SimpleAtod(number, &value) || !std::isfinite(value) || value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad memory size '", original,
        "' (use bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB: 80GiB, 512MiB)"));
  }
  const double bytes = value * scale;
  if (bytes >= 9.2e18) {
    return absl::InvalidArgumentError(absl::StrCat("bad memory size '", original, "': too large"));
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace xla::gpu
