// Artifact wire: reading a serialized GpuExecutableProto, in place, without
// checking what it means (program.h checks that).
//
// ScanRecords walks the records (tag and value) of one serialized message,
// bounds-checking every length against the buffer, and names the field of
// a record that does not scan. Field numbers come from the generated
// classes (GpuExecutablePayloadProto::kThunksFieldNumber, ...).
//
// ParseArtifactInPlace parses an artifact from bytes that the caller keeps
// while it runs, in one walk over the top-level records and one over the
// payload's:
//   * the payload's bytes as stored are hashed with the header's checksum
//     algorithm, on a second thread while the payload parses when it takes
//     kConcurrentHashBytes or more (on the calling thread when no thread
//     can be started); for a signed artifact the same thread also computes
//     the signature's digests (artifact_signature.h);
//   * a top-level thunk list of kDeferThunkBytes or more is checked one
//     ThunkProto at a time and left out of the message (thunks
//     PayloadPart::kStoredBytes): LoadProgram reads it again, one thunk at a
//     time, so that no protobuf tree of the list is alive next to the
//     runtime thunks (docs/reliability.md, "Peak heap during load");
//   * on request, the large byte fields (PayloadViews) stay in the bytes
//     instead of being copied into the message.
// Parts are left out only when the payload is stored once (one length-
// delimited `payload` record); otherwise the artifact is parsed whole.
// Whatever is left out, the parse accepts and rejects exactly the inputs
// that protobuf's own parse of the whole message does.
//
// Thread-safety: pure functions of their arguments; a ParsedArtifact is a
// value (thread-compatible).
#ifndef XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_WIRE_H_
#define XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "xla/backends/gpu/runtime/artifact_signature.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Largest artifact accepted (protobuf's own limit is 2 GiB).
inline constexpr int64_t kMaxArtifactBytes = (int64_t{1} << 31) - 1;
// Deepest message nesting the parser accepts; more is a parse error, so a
// recursion bomb never reaches the deserializer.
inline constexpr int kMaxProtoRecursion = 100;
// Top-level thunk lists whose records take at least this many bytes are
// deferred when parsing in place (see the file comment); smaller ones are
// parsed once, into the message: deferring costs two more parses (the async
// check and the build), and a protobuf tree of this size is at most a few
// hundred KiB.
inline constexpr size_t kDeferThunkBytes = size_t{16} << 10;
// Stored payloads at least this large are hashed on a second thread while
// the payload parses.
inline constexpr size_t kConcurrentHashBytes = size_t{1} << 20;

// The payload's large byte fields as views, so that a file read whole need
// not copy them into the message (protobuf 3.21 copies every bytes field).
// Where a view points is said by its holder (Program, ParsedArtifact).
struct PayloadViews {
  absl::string_view host_shared_object;
  absl::string_view optimized_hlo_text;
  std::vector<absl::string_view> constants;  // constants[i].content, for each i
};

// Where a parse left a part of the payload that it may leave out.
enum class PayloadPart {
  kInMessage,      // in artifact->payload(), as protobuf's parse puts it
  kInStoredBytes,  // not in the message: in stored bytes (see ParsedArtifact)
};

// A parsed artifact and the checksum (the header's algorithm) of its
// payload's bytes exactly as stored (absent when the payload field is
// missing or repeated, the algorithm unknown, or the input was streamed),
// with what the parse left out of the message.
struct ParsedArtifact {
  std::unique_ptr<GpuExecutableProto> artifact;
  std::optional<uint64_t> stored_payload_checksum;
  // For a signed artifact (header.signature set) parsed in place: the
  // signature's digests (artifact_signature.h) of the header's and the
  // payload's stored bytes, with the same conditions as the checksum.
  std::optional<ArtifactDigests> stored_digests;
  // kInStoredBytes: artifact->payload() has no top-level thunks; they are
  // the `thunks` records of `stored_payload` (a serialized payload, or the
  // stored payload's thunk records alone), each already checked to parse.
  PayloadPart thunks = PayloadPart::kInMessage;
  absl::string_view stored_payload{};
  // kInStoredBytes: artifact->payload()'s fields named in PayloadViews are
  // empty, and `views` are their bytes as stored.
  PayloadPart large_fields = PayloadPart::kInMessage;
  PayloadViews views{};
  // Owns the bytes that `stored_payload` and `views` point into, when they
  // are not the caller's own (a file's buffer or mapping, or a copy of the
  // thunk records); null otherwise.
  std::shared_ptr<const void> storage{};

  bool thunks_deferred() const { return thunks == PayloadPart::kInStoredBytes; }
  bool views_hold_large_fields() const { return large_fields == PayloadPart::kInStoredBytes; }
};

// One record (tag and value) of a serialized message.
struct WireRecord {
  int field = 0;
  bool length_delimited = false;
  absl::string_view whole;     // tag included
  absl::string_view contents;  // the value of a length-delimited record, else empty
};

// Calls fn on each record of `bytes`, the serialization of a message of type
// `type` found at field path `path` ("" for a whole artifact, "payload",
// "payload.constants", ...), in order, and returns fn's first error. A
// record that does not scan is InvalidArgument naming the field and the
// byte offset in `bytes`: a tag or length that is not a varint, a length
// past the end of `bytes`, a wire type that cannot be skipped. Never reads
// outside `bytes` (at most kMaxArtifactBytes).
absl::Status ScanRecords(absl::string_view bytes, const google::protobuf::Descriptor& type,
                         absl::string_view path, absl::FunctionRef<absl::Status(const WireRecord&)> fn);

// The signature's header digest (artifact_signature.h) over the contents of
// the artifact's top-level header records, in order: every record but those
// of field 10 (`signature`). InvalidArgument when a record does not scan.
absl::StatusOr<Digest> StoredHeaderDigest(const std::vector<absl::string_view>& records);

// What ParseArtifactInPlace may leave out of the message.
struct InPlaceOptions {
  // A deferred thunk list: its records copied out of the input (about their
  // wire size; the result never refers to the input), or left in the input.
  bool copy_thunk_records = false;
  // The PayloadViews fields stay in the input instead of the message.
  bool view_large_fields = false;
  // The owner of the input, stored as ParsedArtifact::storage when the result
  // points into the input; may be null when the caller keeps the input alive
  // as long as the result.
  std::shared_ptr<const void> input_owner;
};

// Parses `bytes` (see the file comment). InvalidArgument "<what> is not a
// valid GpuExecutableProto artifact: ..." for input that does not parse
// (truncated, corrupt, nested deeper than kMaxProtoRecursion, a string that
// is not UTF-8), naming the field where the scan knows it, and "<what> of
// N bytes exceeds the limit" above kMaxArtifactBytes.
absl::StatusOr<ParsedArtifact> ParseArtifactInPlace(absl::string_view bytes, absl::string_view what,
                                                    const InPlaceOptions& options);

// Protobuf's parse of a whole artifact from a stream, with the recursion
// and size limits; the same InvalidArgument as above, without a field.
absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifactStream(
    google::protobuf::io::ZeroCopyInputStream* input, absl::string_view what);

// Calls fn on each top-level ThunkProto of `stored_payload` (as in
// ParsedArtifact), in order, each parsed into one reused message. The
// "<what> is not a valid GpuExecutableProto artifact" error for a record that
// does not parse, else fn's first error, unchanged.
absl::Status ForEachStoredThunk(absl::string_view stored_payload, absl::string_view what,
                                absl::FunctionRef<absl::Status(const ThunkProto&)> fn);

// Copies the bytes `views` holds into `payload`, whose constants are the
// ones the views were parsed beside.
void CopyViewsInto(const PayloadViews& views, GpuExecutablePayloadProto* payload);

// Puts every part `parsed` left out back into its message (the large
// fields, then the thunks, in their stored order): afterwards both parts
// are kInMessage and `storage` is released. The parse error of
// ForEachStoredThunk for a thunk that does not parse.
absl::Status PutPartsBackInMessage(ParsedArtifact& parsed);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_WIRE_H_
