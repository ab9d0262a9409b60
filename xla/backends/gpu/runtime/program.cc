#include "xla/backends/gpu/runtime/program.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "xla/backends/gpu/runtime/artifact_file.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/host_object_variants.h"
#include "xla/backends/gpu/runtime/invented_constants.h"
#include "xla/backends/gpu/runtime/thunk_deserializer.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/logging.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The most replicas or partitions an artifact may declare.
constexpr int64_t kMaxDeviceCount = int64_t{1} << 20;

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::Status CheckChecksum(const GpuExecutableProto& artifact,
                           std::optional<uint64_t> stored_payload_checksum) {
  // The stored bytes are what the payload was parsed from: when they hash to
  // the sealed value, re-serializing would hash the same bytes again.
  if (stored_payload_checksum == artifact.header().payload_checksum()) return absl::OkStatus();
  const uint64_t actual =
      PayloadChecksum(artifact.payload(), artifact.header().checksum_algorithm());
  if (actual == artifact.header().payload_checksum()) return absl::OkStatus();
  return Invalid("header.payload_checksum",
                 absl::StrCat("0x", absl::Hex(artifact.header().payload_checksum()),
                              " does not match the payload's 0x", absl::Hex(actual),
                              ": the artifact is corrupt or was edited"));
}

bool HasHostCode(const ParsedArtifact& parsed) {
  const GpuExecutablePayloadProto& payload = parsed.artifact->payload();
  const bool in_views = parsed.large_fields == PayloadPart::kInStoredBytes;
  return payload.host_object_variants_size() > 0 ||
         !(in_views ? parsed.views.host_shared_object : payload.host_shared_object()).empty();
}

// The trust policy (artifact_signature.h), before the payload is looked
// at: an unsigned artifact against its rule; a signed one against its key,
// over the stored bytes' digests, else (stored bytes that are not the
// signed serialization, or none) over the message's serialization.
absl::StatusOr<SignatureStatus> CheckTrust(ParsedArtifact& parsed, const TrustPolicy& trust) {
  const ArtifactHeaderProto& header = parsed.artifact->header();
  SignatureStatus status;
  if (!header.has_signature()) {
    RETURN_IF_ERROR(CheckUnsignedAllowed(trust, HasHostCode(parsed)));
    return status;
  }
  status.is_signed = true;
  status.key_id = header.signature().key_id();
  ASSIGN_OR_RETURN(const PublicKey* key, FindSigningKey(header, trust));
  status.verified = parsed.stored_digests.has_value() && SignatureVerifies(header, *parsed.stored_digests, *key);
  if (!status.verified) {
    RETURN_IF_ERROR(PutPartsBackInMessage(parsed));
    status.verified = SignatureVerifies(header, DigestsOf(*parsed.artifact), *key);
  }
  if (status.verified) return status;
  return absl::PermissionDeniedError(absl::StrCat(
      "header.signature: does not verify with trusted key ", key->id,
      ": the header or the payload changed after signing, or the signature was edited; do not run "
      "this artifact, get it again from whoever signed it"));
}

// Each constant is stored once: constants sorted by (size, bytes), then
// neighbours compared. memcmp stops at the first differing byte, so distinct
// weights cost a few bytes each instead of a hash pass over the payload.
absl::Status CheckConstants(const Program& p) {
  const std::vector<absl::string_view>& contents = p.views.constants;
  std::vector<int> order(contents.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const absl::string_view x = contents[a];
    const absl::string_view y = contents[b];
    if (x.size() != y.size()) return x.size() < y.size();
    const int c = x.empty() ? 0 : std::memcmp(x.data(), y.data(), x.size());
    return c != 0 ? c < 0 : a < b;
  });
  for (size_t i = 1; i < order.size(); ++i) {
    if (contents[order[i - 1]] == contents[order[i]]) {
      return Invalid(absl::StrCat("constants[", order[i], "]"),
                     absl::StrCat("same content as constants[", order[i - 1],
                                  "]; each constant is stored once"));
    }
  }
  const GpuExecutablePayloadProto& payload = p.payload_tables();
  for (int i = 0; i < payload.constants_size(); ++i) {
    if (payload.constants(i).has_shape()) {
      RETURN_IF_ERROR(ShapeFromProto(payload.constants(i).shape(),
                                     absl::StrCat("constants[", i, "].shape")).status());
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAllocationSizes(const Program& p) {
  for (const BufferAllocation& a : p.allocations) {
    const std::string path = absl::StrCat("allocations[", a.index, "].size");
    if (a.is_constant) {
      const int64_t bytes = static_cast<int64_t>(p.views.constants[a.constant_index].size());
      if (bytes != a.size) {
        return Invalid(path, absl::StrCat(a.size, " differs from constants[", a.constant_index,
                                          "] of ", bytes, " bytes"));
      }
    }
    if (a.is_parameter) {
      const Shape& shape = p.program_shape.parameters[a.parameter_number];
      // A token (or empty tuple) parameter holds nothing: a zero-byte
      // allocation, an empty argument (host transfers' programs take one).
      const bool empty = shape.IsToken() || (shape.IsTuple() && shape.tuple_shapes_size() == 0);
      std::optional<int64_t> bytes =
          shape.IsArray() ? shape.ByteSize() : empty ? std::optional<int64_t>(0) : std::nullopt;
      if (!bytes.has_value() || *bytes != a.size) {
        return Invalid(path, absl::StrCat(a.size, " does not hold parameter ", a.parameter_number,
                                          " of shape ", shape.ToString()));
      }
    }
  }
  return absl::OkStatus();
}

// The leaf of `shape` at `index`, or nullptr.
const Shape* LeafAt(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_shapes_size()) return nullptr;
    s = &s->tuple_shapes(i);
  }
  return s->IsArray() ? s : nullptr;
}

int64_t CountLeaves(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray() ? 1 : 0;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += CountLeaves(s);
  return n;
}

absl::Status BuildOutputs(Program& p) {
  const GpuExecutablePayloadProto& payload = p.payload_tables();
  std::set<std::vector<int64_t>> seen_index;
  std::set<int64_t> seen_allocation;
  for (int i = 0; i < payload.outputs_size(); ++i) {
    const std::string path = absl::StrCat("outputs[", i, "]");
    const OutputProto& o = payload.outputs(i);
    std::vector<int64_t> index(o.shape_index().begin(), o.shape_index().end());
    const Shape* leaf = LeafAt(p.program_shape.result, index);
    if (leaf == nullptr) {
      return Invalid(path + ".shape_index", absl::StrCat("{", absl::StrJoin(index, ","),
                                                         "} is not an array leaf of the result ",
                                                         p.program_shape.result.ToString()));
    }
    if (!seen_index.insert(index).second) return Invalid(path + ".shape_index", "appears twice");
    ASSIGN_OR_RETURN(BufferSlice slice, SliceFromProto(o.slice(), p.allocations, path + ".slice"));
    const BufferAllocation& a = p.allocations[slice.allocation];
    if (!a.is_output || slice.offset != 0 || slice.size != a.size) {
      return Invalid(path + ".slice", absl::StrCat("must be the whole of an allocation marked is_output, got ",
                                                   slice.ToString()));
    }
    if (leaf->ByteSize() != slice.size) {
      return Invalid(path + ".slice", absl::StrCat(slice.size, " bytes do not hold ", leaf->ToString()));
    }
    if (!seen_allocation.insert(slice.allocation).second) {
      return Invalid(path + ".slice", absl::StrCat("allocation ", slice.allocation, " backs two outputs"));
    }
    p.outputs.push_back({index, *leaf, slice.allocation});
  }
  if (static_cast<int64_t>(p.outputs.size()) != CountLeaves(p.program_shape.result)) {
    return Invalid("outputs", absl::StrCat(p.outputs.size(), " entries for a result with ",
                                           CountLeaves(p.program_shape.result), " leaves"));
  }
  return absl::OkStatus();
}

absl::Status BuildAliases(Program& p) {
  const GpuExecutablePayloadProto& payload = p.payload_tables();
  std::set<int64_t> aliased_allocations;
  for (int i = 0; i < payload.input_output_aliases_size(); ++i) {
    const std::string path = absl::StrCat("input_output_aliases[", i, "]");
    const InputOutputAliasProto& a = payload.input_output_aliases(i);
    if (a.kind() != ALIAS_KIND_MAY_ALIAS && a.kind() != ALIAS_KIND_MUST_ALIAS) {
      return Invalid(path + ".kind", absl::StrCat("unknown alias kind ", static_cast<int>(a.kind())));
    }
    std::vector<int64_t> index(a.output_shape_index().begin(), a.output_shape_index().end());
    int64_t output = -1;
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      if (p.outputs[o].shape_index == index) output = static_cast<int64_t>(o);
    }
    if (output < 0) return Invalid(path + ".output_shape_index", "names no output");
    const BufferAllocation& alloc = p.allocations[p.outputs[output].allocation];
    if (!alloc.is_parameter || alloc.parameter_number != a.parameter_number() ||
        a.parameter_shape_index_size() != 0) {
      return Invalid(path, absl::StrCat("output lives in allocation ", alloc.index,
                                        ", which is not parameter ", a.parameter_number(), "'s"));
    }
    if (!aliased_allocations.insert(alloc.index).second) return Invalid(path, "aliases an output twice");
    p.aliases.push_back({a.parameter_number(), output, a.kind()});
  }
  for (const OutputInfo& o : p.outputs) {
    if (p.allocations[o.allocation].is_parameter && aliased_allocations.count(o.allocation) == 0) {
      return Invalid("input_output_aliases", absl::StrCat("output in parameter allocation ", o.allocation,
                                                          " has no alias entry"));
    }
  }
  return absl::OkStatus();
}

// Builds the thunk tree from the payload's list, or from the stored records
// one ThunkProto at a time when deferred, and releases the list: no
// protobuf copy of the top-level thunks outlives the load.
absl::Status BuildThunks(Program& p, const ParsedArtifact& parsed, const ffi::FfiRegistry& ffi) {
  std::set<int64_t> async_ids;
  ThunkContext::Tables tables;
  tables.allocations = p.allocations;
  tables.kernels = p.kernels;
  tables.num_streams = p.num_streams;
  tables.target = &p.target;
  tables.ffi = &ffi;
  tables.deserializer = &DeserializeThunk;
  tables.async_ids = &async_ids;
  ThunkContext ctx(&tables, "", 0);
  ThunkInfo info{0, p.payload_tables().module_name()};
  if (parsed.thunks == PayloadPart::kInMessage) {
    ASSIGN_OR_RETURN(p.root, SequentialThunk::FromThunkList(std::move(info), p.payload_tables().thunks(),
                                                            ctx, "thunks"));
    p.artifact->mutable_payload()->clear_thunks();
  } else {
    SequentialThunk::ListBuilder builder(ctx, "thunks");
    RETURN_IF_ERROR(ForEachStoredThunk(parsed.stored_payload, "the artifact",
                                       [&](const ThunkProto& t) { return builder.CheckAsync(t); }));
    RETURN_IF_ERROR(builder.FinishChecks());
    RETURN_IF_ERROR(ForEachStoredThunk(parsed.stored_payload, "the artifact",
                                       [&](const ThunkProto& t) { return builder.Add(t); }));
    p.root = std::move(builder).Finish(std::move(info));
  }
  return p.root->Prepare(p.resources);
}

// Takes the payload's large byte fields as views: from `parsed` when the
// parse left them in stored bytes (the Program then shares their owner),
// else into the message.
void TakeViews(ParsedArtifact& parsed, Program& p) {
  if (parsed.large_fields == PayloadPart::kInStoredBytes) {
    p.views = std::move(parsed.views);
    p.storage = parsed.storage;
    return;
  }
  const GpuExecutablePayloadProto& payload = p.artifact->payload();
  p.views.host_shared_object = payload.host_shared_object();
  p.views.optimized_hlo_text = payload.optimized_hlo_text();
  p.views.constants.reserve(payload.constants_size());
  for (const ConstantProto& c : payload.constants()) p.views.constants.push_back(c.content());
}

// Step 3 of the file comment in program.h: every table but the thunks.
absl::Status BuildTables(Program& p) {
  const GpuExecutablePayloadProto& payload = p.payload_tables();
  ASSIGN_OR_RETURN(p.program_shape, ProgramShapeFromProto(payload.program_shape(), "program_shape"));
  for (const auto& [count, field] : {std::pair{payload.num_replicas(), "num_replicas"},
                                     std::pair{payload.num_partitions(), "num_partitions"}}) {
    if (count < 0 || count > kMaxDeviceCount) {
      return Invalid(field, absl::StrCat(count, " is outside [0, ", kMaxDeviceCount, "]"));
    }
  }
  RETURN_IF_ERROR(ValidateInventedConstants(payload));
  p.num_streams = payload.num_streams() == 0 ? 1 : payload.num_streams();
  if (p.num_streams < 1 || p.num_streams > kMaxStreams) {
    return Invalid("num_streams", absl::StrCat(payload.num_streams(), " is outside [1, ", kMaxStreams, "]"));
  }
  RETURN_IF_ERROR(CheckConstants(p));
  ASSIGN_OR_RETURN(p.allocations, AllocationsFromProto(payload.allocations(),
                                                       static_cast<int64_t>(p.program_shape.parameters.size()),
                                                       payload.constants_size()));
  RETURN_IF_ERROR(CheckAllocationSizes(p));
  ASSIGN_OR_RETURN(p.kernels, KernelsFromProto(payload, p.views.host_shared_object, p.target));
  RETURN_IF_ERROR(ValidateHostObjectVariants(payload, p.target, p.views.host_shared_object));
  RETURN_IF_ERROR(CheckHostObjects(payload, p.views.host_shared_object));
  RETURN_IF_ERROR(BuildOutputs(p));
  return BuildAliases(p);
}

}  // namespace

struct Program::Rebuild {
  std::once_flag once;
};

Program::Program() : rebuild_(std::make_unique<Rebuild>()) {}
Program::~Program() = default;

const GpuExecutablePayloadProto& Program::payload() const {
  if (root == nullptr) return artifact->payload();
  std::call_once(rebuild_->once, [this] {
    absl::StatusOr<SequentialThunkProto> list = root->ToSequenceProto();
    // Every loaded thunk came from a proto of the same format.
    XLA_CHECK(list.ok()) << "a loaded thunk does not serialize: " << list.status();
    GpuExecutablePayloadProto* payload = artifact->mutable_payload();
    payload->mutable_thunks()->Swap(list->mutable_thunks());
    if (storage != nullptr) CopyViewsInto(views, payload);
  });
  return artifact->payload();
}

absl::StatusOr<ParsedArtifact> ParseArtifactAndHash(absl::string_view bytes) {
  // The caller may drop `bytes` before LoadProgram: copy the thunk records
  // (about one copy of the list's wire bytes, not of the payload).
  InPlaceOptions options;
  options.copy_thunk_records = true;
  return ParseArtifactInPlace(bytes, "the input", options);
}

absl::StatusOr<ParsedArtifact> ParseArtifactFileAndHash(const std::string& path) {
  ASSIGN_OR_RETURN(ArtifactFile file, ArtifactFile::Open(path, kMaxArtifactBytes));
  InPlaceOptions options;
  switch (file.storage_kind()) {
    case ArtifactFile::Storage::kHeap:
      // The large fields and deferred thunks stay in the buffer, which the
      // Program then keeps.
      options.view_large_fields = true;
      options.input_owner = file.storage();
      return ParseArtifactInPlace(file.bytes(), path, options);
    case ArtifactFile::Storage::kMapping:
      // The mapping is kept only while it holds deferred thunks.
      options.input_owner = file.storage();
      return ParseArtifactInPlace(file.bytes(), path, options);
    case ArtifactFile::Storage::kStream: {
      google::protobuf::io::FileInputStream input(file.ReleaseDescriptor());
      input.SetCloseOnDelete(true);
      ASSIGN_OR_RETURN(std::unique_ptr<GpuExecutableProto> artifact, ParseArtifactStream(&input, path));
      return ParsedArtifact{std::move(artifact), std::nullopt, std::nullopt};
    }
  }
  return absl::InternalError("unknown ArtifactFile::Storage");
}

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifact(absl::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(kMaxArtifactBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input of ", bytes.size(), " bytes exceeds the limit ", kMaxArtifactBytes));
  }
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  return ParseArtifactStream(&input, "the input");
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgram(std::unique_ptr<GpuExecutableProto> artifact,
                                                     const ffi::FfiRegistry& ffi, const TrustPolicy& trust) {
  return LoadProgram(ParsedArtifact{std::move(artifact), std::nullopt, std::nullopt}, ffi, trust);
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgram(ParsedArtifact parsed, const ffi::FfiRegistry& ffi,
                                                     const TrustPolicy& trust) {
  auto p = std::make_unique<Program>();
  ASSIGN_OR_RETURN(p->target, ValidateHeader(parsed.artifact->header()));
  ASSIGN_OR_RETURN(p->signature, CheckTrust(parsed, trust));
  // Stored bytes that do not hash to the sealed value are checked by the
  // message's serialization, which needs every part in the message.
  const bool stored_bytes_match = parsed.stored_payload_checksum == parsed.artifact->header().payload_checksum();
  if (!stored_bytes_match) RETURN_IF_ERROR(PutPartsBackInMessage(parsed));
  p->artifact = std::move(parsed.artifact);
  TakeViews(parsed, *p);
  RETURN_IF_ERROR(CheckChecksum(*p->artifact, parsed.stored_payload_checksum));
  RETURN_IF_ERROR(BuildTables(*p));
  RETURN_IF_ERROR(BuildThunks(*p, parsed, ffi));
  return p;
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgramFromBytes(absl::string_view bytes,
                                                              const ffi::FfiRegistry& ffi,
                                                              const TrustPolicy& trust) {
  // `bytes` outlive the call: the deferred thunks are read from them.
  ASSIGN_OR_RETURN(ParsedArtifact parsed, ParseArtifactInPlace(bytes, "the input", InPlaceOptions{}));
  return LoadProgram(std::move(parsed), ffi, trust);
}

}  // namespace xla::gpu
