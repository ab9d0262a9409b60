// MemoryReport: what one device needs to run an artifact, computed from the
// artifact's allocation table alone, so that `xla_aot compile` (which
// checks it against --device_memory) and `xla_aot inspect` agree.
//
// Per device (every device of a multi-device run runs the same program and
// holds the same allocations):
//   * parameters: the parameter allocations (the caller's buffers);
//   * outputs: result allocations that are not parameters;
//   * temporaries: the device temp allocations, each rounded up to the
//     allocation alignment as the runtime packs them into one block;
//   * constants: the constant allocations (uploaded once per device);
//   * host_offloaded: the host-memory temp allocations (offloaded
//     activations, BufferAllocationProto.memory_space 5), in host memory,
//     not device memory;
//   * peak: parameters + outputs + temporaries + constants, everything a run
//     holds at once in device memory when aliased parameters are donated;
//   * aliased: parameter allocations that are also outputs; a run that does
//     not donate them copies each, needing up to this much more.
//
// Thread-safety: plain values and pure functions.
#ifndef XLA_BACKENDS_GPU_RUNTIME_MEMORY_REPORT_H_
#define XLA_BACKENDS_GPU_RUNTIME_MEMORY_REPORT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

struct MemoryReport {
  int64_t parameter_bytes = 0;
  int64_t output_bytes = 0;
  int64_t temp_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t host_offloaded_bytes = 0;
  int64_t aliased_bytes = 0;
  int64_t peak_bytes = 0;
};

// The figures of `payload`'s allocation table. Sizes are taken as stored
// (negative ones count as 0, so an unvalidated artifact cannot make the sums
// overflow; sums saturate at INT64_MAX).
MemoryReport ComputeMemoryReport(const GpuExecutablePayloadProto& payload);

// "12.5 MiB (13107200 bytes)", "512 bytes".
std::string FormatBytes(int64_t bytes);

// The report as lines, each starting with `indent`:
//   <indent>device memory per device: peak 1.2 GiB (...)
//   <indent>  parameters 1 KiB (...), outputs ..., temporaries ..., constants ...
//   <indent>host memory (offloaded): 64 MiB (...)   [only when nonzero]
std::string FormatMemoryReport(const MemoryReport& report, absl::string_view indent);

// OK when report.peak_bytes <= limit_bytes (or limit_bytes is 0: no limit);
// else ResourceExhausted "<what>: needs <peak> of device memory per device
// (parameters ..., outputs ..., temporaries ..., constants ...; host-offloaded
// ... in host memory) but the device has <limit>". 
absl::Status CheckFitsDeviceMemory(const MemoryReport& report, int64_t limit_bytes,
                                   absl::string_view what);

// Parses a byte size: plain bytes ("1048576") or a number with a unit,
// binary (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB), e.g. "80GiB",
// "141GiB", "512MiB", "1.5GiB". InvalidArgument naming the text when it is
// not one, is not positive or overflows int64.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_MEMORY_REPORT_H_
