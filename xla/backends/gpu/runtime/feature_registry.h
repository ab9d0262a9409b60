// The feature registry: one table of the artifact constructs that need a
// runtime to know them, with the dates and flags of their rollout.
//
// Every entry is a serialization construct: a thunk kind or other oneof
// case, a field needed for correctness, an enum value, a kernel symbol or FFI
// handler name. For each the table records
//   * runtime_support: the date this runtime learned to read it;
//   * compiler_flag and flag_default: the flag that gates emission (empty:
//     emitted whenever the module needs it, which is only allowed for
//     constructs that were in the first artifact format; a note in
//     parentheses instead of a flag, with flag_default false: emitted only
//     where compiling failed before the construct existed, so no artifact
//     an older compiler could make changes, e.g. kernel_argument_table);
//   * emission_on: the date emission was turned on by default (empty: still
//     off; must be at least kForwardWindowDays after runtime_support);
//   * emission_stopped: for a construct the compiler no longer emits, the
//     date it stopped (its runtime fallback may go 6 months later).
//
// The compiler lists the features an artifact actually uses in
// header.required_runtime_features (RequiredFeaturesOf); a runtime refuses an
// artifact naming a feature it lacks (artifact_header.h), and a compiler
// asked for an older runtime (--target_runtime) emits only features that
// runtime supports (FeaturesSupportedOn). See docs/aot_compatibility.md.
//
// Thread-safety: the table is immutable; every function is pure.
#ifndef XLA_BACKENDS_GPU_RUNTIME_FEATURE_REGISTRY_H_
#define XLA_BACKENDS_GPU_RUNTIME_FEATURE_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Days a runtime may lag behind the compiler (the forward window).
inline constexpr int kForwardWindowDays = 14;
// Months a runtime keeps loading old artifacts (the backward window).
inline constexpr int kBackwardWindowMonths = 6;

enum class FeatureKind { kOneofCase, kField, kEnumValue, kKernelSymbol, kFfiHandler };

struct RuntimeFeature {
  const char* name;              // the string in required_runtime_features
  FeatureKind kind;
  const char* construct;         // schema path: "KernelProto.cubin_with_ptx", or several
                                 // joined by ", " (one feature, two oneof cases)
  const char* runtime_support;   // "YYYY-MM-DD"
  const char* compiler_flag;     // "" when ungated (first-format constructs)
  bool flag_default;
  const char* emission_on;       // "YYYY-MM-DD" or "" (not on by default)
  const char* emission_stopped;  // "YYYY-MM-DD" or "" (still emitted)
};

// The whole table, in the order features were added.
absl::Span<const RuntimeFeature> RuntimeFeatureRegistry();

// The entry named `name`; nullptr when there is none.
const RuntimeFeature* FindRuntimeFeature(absl::string_view name);

// The entry whose construct is `construct` (a schema path); nullptr if none.
const RuntimeFeature* FindRuntimeFeatureByConstruct(absl::string_view construct);

// Checks the table's own rules: unique names and constructs, valid dates,
// emission_on at least kForwardWindowDays after runtime_support, a flag for
// every construct added after the first format, emission_stopped after
// emission_on. InvalidArgument naming the entry and the rule.
absl::Status CheckFeatureRegistry(absl::Span<const RuntimeFeature> table);

// The removal policy on day `today` ("YYYY-MM-DD"): an entry whose
// emission_stopped date is more than kBackwardWindowMonths before `today`
// has outlived the backward window. FailedPrecondition listing each such
// entry and what to do: delete the runtime's fallback for it, delete the
// entry, and mark the field number and name `reserved` in the proto.
// InvalidArgument for a malformed date. Tests drive it with a fixed day.
absl::Status CheckRemovalsDue(absl::Span<const RuntimeFeature> table, absl::string_view today);

// Days since 1970-01-01 of a "YYYY-MM-DD" date. InvalidArgument otherwise.
absl::StatusOr<int64_t> ParseIsoDate(absl::string_view date);

// The names of the features a runtime built on `date` ("YYYY-MM-DD")
// supports: runtime_support <= date. Errors: a malformed date.
absl::StatusOr<std::vector<std::string>> FeaturesSupportedOn(absl::string_view date);

// The features `payload` uses, sorted: what the compiler must write into
// header.required_runtime_features. Pure; reads the whole thunk tree.
std::vector<std::string> RequiredFeaturesOf(const GpuExecutablePayloadProto& payload);

// The same for a whole artifact: its payload's features and its header's
// (a CRC32C checksum: `payload_checksum.crc32c`), sorted. Pure.
std::vector<std::string> RequiredFeaturesOf(const GpuExecutableProto& artifact);

// Rollouts of defaults that are not constructs: nothing in the artifact
// needs a runtime to know it (the signature is a SAFE optional field), but
// changing a loader's or compiler's default still breaks a window when it
// comes too soon. Each rollout is a row per stage:
//   * stage 2 no sooner than kForwardWindowDays after stage 1 (the
//     compiler's new default must not reach runtimes that predate stage 1);
//   * stage 3 no sooner than kBackwardWindowMonths after stage 2 (a loader
//     default that refuses what was compiled before stage 2 must wait until
//     those artifacts have left the backward window).
// A stage's date is `landed` once it has, else `earliest`.
struct PolicyStage {
  const char* rollout;   // "artifact_signing"
  int stage;             // 1, 2, 3, in order
  const char* earliest;  // "YYYY-MM-DD": the first day it may land
  const char* landed;    // "YYYY-MM-DD", or "" while it has not
  const char* what;      // what changes, for humans
};

// The rollouts, stages in order.
absl::Span<const PolicyStage> PolicyRollouts();

// Checks the rules above, and that stages count 1, 2, 3 within a rollout,
// dates are real, and no stage landed before its earliest day or before
// the previous stage. InvalidArgument naming the rollout, the stage and
// the rule.
absl::Status CheckPolicyRollouts(absl::Span<const PolicyStage> table);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_FEATURE_REGISTRY_H_
