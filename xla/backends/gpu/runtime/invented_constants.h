// payload.invented_constants: the record an artifact carries when the
// compiler invented the values of constants the HLO text elided
// (`constant({...})`, xla_aot compile --elided_constants=zeros|random).
// Runtime side: checked at load, and printed by `xla_aot inspect` and as
// `xla_aot run`'s warning. The record is informational (the invented values
// are ordinary constants); it tells people that results are not the real
// model's, and tells `run --reference` how to invent the same values.
//
// Thread-safe: pure functions.
#ifndef XLA_BACKENDS_GPU_RUNTIME_INVENTED_CONSTANTS_H_
#define XLA_BACKENDS_GPU_RUNTIME_INVENTED_CONSTANTS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Bounds of the record, enforced by the compiler and checked at load.
inline constexpr int kMaxInventedConstantNames = 64;
inline constexpr size_t kMaxInventedConstantNameBytes = 256;
inline constexpr int64_t kMaxInventedConstantCount = int64_t{1} << 24;

// "zeros" or "random"; "unknown" for any other value.
absl::string_view InventedConstantsModeName(InventedConstantsModeProto mode);

// Checks the payload's record when present (`payload.has_invented_constants()`):
// a known mode (ZEROS or RANDOM), count in [1, kMaxInventedConstantCount]
// and not below the number of names, at most kMaxInventedConstantNames
// names, each non-empty and at most kMaxInventedConstantNameBytes.
// InvalidArgument "invented_constants.<field>: ..." naming the bound
// otherwise; OK when the record is absent.
absl::Status ValidateInventedConstants(const GpuExecutablePayloadProto& payload);

// One line for a validated record, without a newline:
// "3 invented (random, seed 0): %constant.12, %constant.40, %c" with
// ", ... (N more)" when the record lists fewer names than its count.
std::string InventedConstantsSummary(const InventedConstantsProto& record);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_INVENTED_CONSTANTS_H_
