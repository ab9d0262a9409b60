// Schema compatibility checker: compares two versions of the artifact schema
// (binary `FileDescriptorSet`s, as `protoc --include_imports
// --descriptor_set_out` writes them) and classifies every difference in the
// messages and enums reachable from the root message (by default
// `xla.gpu.GpuExecutableProto`).
//
// Verdicts, from worst to best:
//   FORBIDDEN          a field renumbered or retyped (scalar type, label,
//                      message or enum type name, oneof membership), a field
//                      or enum number or name reused for something else, a
//                      `reserved` number or name used or un-reserved again.
//   BREAKING_BACKWARD  a field, oneof case or enum value removed without
//                      reserving both its number and its name.
//   STAGED_ROLLOUT     a new oneof case (any new field inside a oneof), a new
//                      enum value, a new `required` field: an older runtime
//                      would misread artifacts using it, so emission must be
//                      gated by the feature registry.
//   SAFE               a new optional (singular or repeated) field outside a
//                      oneof; a removal whose number and name are reserved.
//
// A difference is reported once, at the first path (breadth-first, fields in
// number order) that reaches its message from the root, e.g.
// `GpuExecutableProto.payload.kernels.cubin`; enum values append the value
// name to the path of the field that uses the enum
// (`GpuExecutableProto.payload.input_output_aliases.kind.ALIAS_KIND_MAY_ALIAS`).
// Messages not reachable from the root are ignored. A field whose type
// changed is reported and not descended into.
#ifndef XLA_TOOLS_COMPAT_SCHEMA_DIFF_H_
#define XLA_TOOLS_COMPAT_SCHEMA_DIFF_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.pb.h"

namespace xla::compat {

// How bad one schema difference is; see the file comment.
enum class Verdict {
  kSafe,
  kStagedRollout,
  kBreakingBackward,
  kForbidden,
};

// "SAFE", "STAGED_ROLLOUT", "BREAKING_BACKWARD" or "FORBIDDEN": the first word
// of every reported line. Never fails. Thread-safe.
absl::string_view VerdictName(Verdict verdict);

// One difference between the baseline and the current schema.
struct SchemaDifference {
  Verdict verdict;
  // Field path from the root message (see the file comment).
  std::string path;
  // What changed and what to do about it, for humans.
  std::string message;
  // The construct that changed, named as the feature registry names it: the
  // package-relative message or enum name and the field or value name
  // ("ThunkProto.host_send", "ChecksumAlgorithmProto.CHECKSUM_ALGORITHM_CRC32C",
  // "GemmThunkProto.Epilogue.RELU" for nested types); for a message's or
  // enum's own reservations, just its name. Unlike `path`, it does not depend
  // on where the root reaches the message.
  std::string construct;

  // "<VERDICT> <path>: <message>", one line, no newline. Never fails.
  // Thread-compatible.
  std::string ToString() const;
};

// Says whether `construct` (a SchemaDifference::construct) is gated:
// its emission is controlled by the feature registry so that artifacts
// using it are only produced once every supported runtime reads it (emission
// off, or enabled at least two weeks after runtime support landed). The
// registry supplies this predicate; an empty std::function means "nothing is
// gated". It must be callable from the thread running the check.
using GatePredicate = std::function<bool(const std::string& construct)>;

// The full name of the artifact schema's root message.
inline constexpr absl::string_view kGpuExecutableRoot = "xla.gpu.GpuExecutableProto";

// Compares `baseline` (the released schema) with `current` (the schema being
// built) starting at `root_message` (a fully qualified name) in both, and
// returns every difference in a deterministic order (breadth-first from the
// root; fields by number). Identical schemas give an empty list.
// Fails with InvalidArgumentError when a set does not form a valid descriptor
// pool (a missing import, a duplicate file, an unresolved type: the error
// names the set and the file) or lacks `root_message`. Thread-safe: reads
// only its arguments.
absl::StatusOr<std::vector<SchemaDifference>> DiffSchemas(
    const google::protobuf::FileDescriptorSet& baseline, const google::protobuf::FileDescriptorSet& current,
    absl::string_view root_message = kGpuExecutableRoot);

// True when `difference` blocks a release: always for FORBIDDEN and
// BREAKING_BACKWARD, for STAGED_ROLLOUT unless `is_gated(construct)` is true,
// never for SAFE. Never fails. Thread-safe if `is_gated` is.
bool IsViolation(const SchemaDifference& difference, const GatePredicate& is_gated);

// The differences for which IsViolation is true, in their original order.
// Never fails. Thread-safe if `is_gated` is.
std::vector<SchemaDifference> Violations(const std::vector<SchemaDifference>& differences,
                                         const GatePredicate& is_gated);

// Parses a binary FileDescriptorSet. `what` names the input (a file path) in
// the error. Fails with InvalidArgumentError when the bytes do not parse or
// the set holds no file. Thread-safe.
absl::StatusOr<google::protobuf::FileDescriptorSet> ParseDescriptorSet(absl::string_view bytes,
                                                                        absl::string_view what);

}  // namespace xla::compat

#endif  // XLA_TOOLS_COMPAT_SCHEMA_DIFF_H_
