// Program: a loaded, fully validated artifact, ready to be initialized and
// executed by GpuExecutable. Everything in it was checked once at load
// (DESIGN.md: "verify once at load, then trust").
//
// Loading (LoadProgram):
//   1. ParseArtifactAndHash / ParseArtifactFileAndHash: the bytes reach
//      memory (artifact_file.h: a file under 1 MiB is read into one buffer,
//      a larger one memory-mapped, one that cannot be mapped streamed) and
//      are parsed in place (artifact_wire.h) with a recursion limit
//      (kMaxProtoRecursion) and a size limit (kMaxArtifactBytes). A small
//      file's large byte fields (PayloadViews: the host shared object,
//      constants, HLO text) stay in its buffer (the Program keeps it;
//      protobuf would copy them). The *AndHash variants also hash the
//      payload's bytes as stored, on a second thread while the parse runs,
//      so that step 2 does not re-serialize the payload.
//   2. the header (artifact_header.h), the trust policy (signature or
//      unsigned rule, artifact_signature.h), then the payload checksum: the
//      stored bytes' hash when it matches, else the hash of the payload's
//      deterministic serialization (what the format defines);
//   3. program shape, constants (each stored once), allocations, kernels,
//      the host shared objects (CheckHostObjects in host_object_variants.h:
//      nothing that runs code at dlopen, exports beyond the kernel table),
//      outputs and aliases;
//   4. the thunk tree, through the one deserializer switch.
// Every failure is InvalidArgument naming the field path and the values.
// The payload is kept once (inside `artifact`, and for a small file its
// large fields in the file's buffer); kernels and constants are views into
// it.
//
// Load memory (docs/reliability.md, "Peak heap during load"): the
// payload's top-level thunk list is never held as a protobuf tree next to
// the runtime thunks. When a file or the caller's bytes are parsed in
// place and the list takes kDeferThunkBytes or more, the *AndHash parsers
// check each top-level ThunkProto record with one scratch message and leave
// the list out of `artifact`; LoadProgram then reads the records again from
// the stored bytes, one ThunkProto at a time, converting and discarding
// each. Otherwise (a shorter list, a streamed file, LoadProgram from a
// proto, or stored bytes that are not the sealed serialization) the list is
// parsed whole and released once the runtime thunks are built. Either way the
// loaded Program's `artifact` has no top-level thunks; Program::payload()
// puts them back, rebuilt from the runtime thunks, on first use.
//
// Thread-safety: immutable after LoadProgram returns, except for the
// once-only rebuild in payload(), which is thread-safe.
#ifndef XLA_BACKENDS_GPU_RUNTIME_PROGRAM_H_
#define XLA_BACKENDS_GPU_RUNTIME_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/artifact_wire.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/kernel_table.h"
#include "xla/backends/gpu/runtime/sequential_thunk.h"
#include "xla/backends/gpu/runtime/target.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// kMaxArtifactBytes, kMaxProtoRecursion, kDeferThunkBytes, PayloadViews and
// ParsedArtifact are declared in artifact_wire.h, which this header
// includes.

struct OutputInfo {
  std::vector<int64_t> shape_index;
  Shape shape;
  int64_t allocation = 0;
};

struct AliasInfo {
  int64_t parameter_number = 0;
  int64_t output = 0;  // index into Program::outputs
  AliasKindProto kind = ALIAS_KIND_MAY_ALIAS;
};

struct Program {
  Program();
  ~Program();

  // The artifact as loaded, without the payload's top-level thunks (see the
  // file comment), and without the fields of `views` when `storage` holds
  // them: what payload_tables() returns.
  std::unique_ptr<GpuExecutableProto> artifact;
  // The payload's shared object, HLO text and constants' contents: views
  // into `storage` or into `artifact`. Read these, not the message's fields.
  PayloadViews views;
  // The artifact file's bytes when `views` point into them (a file under
  // 1 MiB, read whole), else null.
  std::shared_ptr<const void> storage;
  Target target;
  ProgramShape program_shape;
  std::vector<BufferAllocation> allocations;
  std::vector<KernelSpec> kernels;
  std::vector<OutputInfo> outputs;
  std::vector<AliasInfo> aliases;
  int64_t num_streams = 1;
  // Whether the artifact was signed, by which key, and whether it verified
  // (a signed artifact that loaded always did).
  SignatureStatus signature;
  std::unique_ptr<SequentialThunk> root;
  ResourceRequests resources;

  // The payload without its top-level thunks and possibly without the fields
  // of `views` (read those instead): every table the executable reads
  // (kernels' code, allocations, module name). Never allocates.
  const GpuExecutablePayloadProto& payload_tables() const { return artifact->payload(); }
  // The whole payload, for tools (inspect, thunk graphs). The first call
  // rebuilds the top-level `thunks` from the runtime thunks (ToProto, as
  // much memory as a parsed list) and copies the fields of `views` back
  // into the message, later calls return the same message.
  // Thread-safe. Before `root` is built (inside LoadProgram) it returns the
  // payload as it stands and rebuilds nothing.
  const GpuExecutablePayloadProto& payload() const;
  // The payload's module name (what tools and error messages print);
  // unlike payload(), never rebuilds the thunk list.
  const std::string& module_name() const { return artifact->payload().module_name(); }

 private:
  struct Rebuild;
  std::unique_ptr<Rebuild> rebuild_;
};

// Parses artifact bytes. InvalidArgument "artifact is not a valid
// GpuExecutableProto ..." for truncated, corrupt or too deeply nested input.
absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifact(absl::string_view bytes);

// ParseArtifact, and the same from a file (read when under 1 MiB, else
// memory-mapped, or streamed when mapping fails; NotFound when the file
// cannot be opened, DataLoss when it reads short), that also hash
// the stored payload bytes (concurrently with the parse for payloads of
// 1 MiB or more). Same errors. When the payload is stored once (see
// ParsedArtifact), ParseArtifactAndHash and a mapped file defer the
// payload's top-level thunks (the file variant keeps the mapping,
// ParseArtifactAndHash copies the thunk records, about their wire size, so
// the result never refers to `bytes`); a file read whole (under 1 MiB)
// keeps its buffer, which also holds the PayloadViews fields. Thunk lists
// under kDeferThunkBytes are parsed into the message instead.
// Thread-safe (no shared state).
absl::StatusOr<ParsedArtifact> ParseArtifactAndHash(absl::string_view bytes);
absl::StatusOr<ParsedArtifact> ParseArtifactFileAndHash(const std::string& path);

// Validates `artifact` and builds the program (see the file comment).
// `ffi` must outlive the program: custom calls resolve their handlers from
// it when the executable is initialized (custom_call_thunk.h).
// `trust` is checked right after the header (step 2 of the file comment,
// before the checksum): PermissionDenied "header.signature: ..." for an
// unsigned artifact the policy refuses, and for a signature that names an
// untrusted key or does not verify (artifact_signature.h).
absl::StatusOr<std::unique_ptr<Program>> LoadProgram(std::unique_ptr<GpuExecutableProto> artifact,
                                                     const ffi::FfiRegistry& ffi,
                                                     const TrustPolicy& trust = {});
// Same; when parsed.stored_payload_checksum equals the header's checksum the
// payload is not re-serialized to check it, nor when parsed.stored_digests
// verify the signature.
absl::StatusOr<std::unique_ptr<Program>> LoadProgram(ParsedArtifact parsed, const ffi::FfiRegistry& ffi,
                                                     const TrustPolicy& trust = {});

// ParseArtifactAndHash and LoadProgram in one call, reading the deferred
// thunks from `bytes` itself (only used during the call) instead of a copy
// of their records: the load's peak heap is then the tables, the runtime
// objects and one ThunkProto, with no copy of the thunk list's wire bytes.
// Same errors.
absl::StatusOr<std::unique_ptr<Program>> LoadProgramFromBytes(absl::string_view bytes,
                                                              const ffi::FfiRegistry& ffi,
                                                              const TrustPolicy& trust = {});

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_PROGRAM_H_
