#include "xla/backends/gpu/runtime/program.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/wire_format_lite.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/thunk_deserializer.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseFrom(
    google::protobuf::io::ZeroCopyInputStream* input, absl::string_view what) {
  auto artifact = std::make_unique<GpuExecutableProto>();
  google::protobuf::io::CodedInputStream coded(input);
  coded.SetRecursionLimit(kMaxProtoRecursion);
  coded.SetTotalBytesLimit(static_cast<int>(kMaxArtifactBytes));
  if (!artifact->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is not a valid GpuExecutableProto artifact: truncated or corrupt bytes, or "
              "messages nested deeper than ", kMaxProtoRecursion));
  }
  return artifact;
}

// Payloads at least this large are hashed on a second thread during the parse.
constexpr size_t kConcurrentHashBytes = size_t{1} << 20;

// The bytes of GpuExecutableProto.payload (field 2) as stored in `bytes`, or
// nullopt when the field is absent, repeated (protobuf would merge the
// copies) or the top level does not scan.
std::optional<absl::string_view> StoredPayload(absl::string_view bytes) {
  constexpr uint32_t kPayloadField = 2;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::optional<absl::string_view> payload;
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    const uint32_t field = google::protobuf::internal::WireFormatLite::GetTagFieldNumber(tag);
    if (field == kPayloadField) {
      uint32_t length = 0;
      if (payload.has_value() ||
          google::protobuf::internal::WireFormatLite::GetTagWireType(tag) !=
              google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED ||
          !in.ReadVarint32(&length)) {
        return std::nullopt;
      }
      const int start = in.CurrentPosition();
      if (!in.Skip(static_cast<int>(length))) return std::nullopt;
      payload = bytes.substr(static_cast<size_t>(start), length);
      continue;
    }
    if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) return std::nullopt;
  }
  return in.ConsumedEntireMessage() ? payload : std::nullopt;
}

uint64_t HashBytes(absl::string_view bytes) {
  Fnv1a64 hash;
  hash.Update(bytes);
  return hash.digest();
}

// Parses `bytes` in place (strings are copied out of it) while hashing the
// stored payload.
absl::StatusOr<ParsedArtifact> ParseInPlace(absl::string_view bytes, absl::string_view what) {
  if (bytes.size() > static_cast<size_t>(kMaxArtifactBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " of ", bytes.size(),
                                                   " bytes exceeds the limit ", kMaxArtifactBytes));
  }
  const std::optional<absl::string_view> payload = StoredPayload(bytes);
  std::optional<uint64_t> checksum;
  std::thread hasher;
  if (payload.has_value() && payload->size() >= kConcurrentHashBytes) {
    try {
      hasher = std::thread([&checksum, payload] { checksum = HashBytes(*payload); });
    } catch (const std::system_error&) {
      // No thread: hash below, after the parse.
    }
  }
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  absl::StatusOr<std::unique_ptr<GpuExecutableProto>> artifact = ParseFrom(&input, what);
  if (hasher.joinable()) hasher.join();
  if (!artifact.ok()) return artifact.status();
  if (payload.has_value() && !checksum.has_value()) checksum = HashBytes(*payload);
  return ParsedArtifact{*std::move(artifact), checksum};
}

absl::Status CheckChecksum(const GpuExecutableProto& artifact,
                           std::optional<uint64_t> stored_payload_checksum) {
  // The stored bytes are what the payload was parsed from: when they hash to
  // the sealed value, re-serializing would hash the same bytes again.
  if (stored_payload_checksum == artifact.header().payload_checksum()) return absl::OkStatus();
  const uint64_t actual = PayloadChecksum(artifact.payload());
  if (actual == artifact.header().payload_checksum()) return absl::OkStatus();
  return Invalid("header.payload_checksum",
                 absl::StrCat("0x", absl::Hex(artifact.header().payload_checksum()),
                              " does not match the payload's 0x", absl::Hex(actual),
                              ": the artifact is corrupt or was edited"));
}

// Each constant is stored once: constants sorted by (size, bytes), then
// neighbours compared. memcmp stops at the first differing byte, so distinct
// weights cost a few bytes each instead of a hash pass over the payload.
absl::Status CheckConstants(const GpuExecutablePayloadProto& payload) {
  std::vector<int> order(payload.constants_size());
  std::iota(order.begin(), order.end(), 0);
  auto content = [&](int i) -> const std::string& { return payload.constants(i).content(); };
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const std::string& x = content(a);
    const std::string& y = content(b);
    if (x.size() != y.size()) return x.size() < y.size();
    const int c = std::memcmp(x.data(), y.data(), x.size());
    return c != 0 ? c < 0 : a < b;
  });
  for (size_t i = 1; i < order.size(); ++i) {
    if (content(order[i - 1]) == content(order[i])) {
      return Invalid(absl::StrCat("constants[", order[i], "]"),
                     absl::StrCat("same content as constants[", order[i - 1],
                                  "]; each constant is stored once"));
    }
  }
  for (int i = 0; i < payload.constants_size(); ++i) {
    if (payload.constants(i).has_shape()) {
      RETURN_IF_ERROR(ShapeFromProto(payload.constants(i).shape(),
                                     absl::StrCat("constants[", i, "].shape")).status());
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAllocationSizes(const Program& p) {
  const GpuExecutablePayloadProto& payload = p.payload();
  for (const BufferAllocation& a : p.allocations) {
    const std::string path = absl::StrCat("allocations[", a.index, "].size");
    if (a.is_constant) {
      const int64_t bytes = static_cast<int64_t>(payload.constants(a.constant_index).content().size());
      if (bytes != a.size) {
        return Invalid(path, absl::StrCat(a.size, " differs from constants[", a.constant_index,
                                          "] of ", bytes, " bytes"));
      }
    }
    if (a.is_parameter) {
      const Shape& shape = p.program_shape.parameters[a.parameter_number];
      std::optional<int64_t> bytes = shape.IsArray() ? shape.ByteSize() : std::nullopt;
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
  const GpuExecutablePayloadProto& payload = p.payload();
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
  const GpuExecutablePayloadProto& payload = p.payload();
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

absl::Status BuildThunks(Program& p, const ffi::FfiRegistry& ffi) {
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
  ASSIGN_OR_RETURN(p.root, SequentialThunk::FromThunkList({0, p.payload().module_name()},
                                                          p.payload().thunks(), ctx, "thunks"));
  return p.root->Prepare(p.resources);
}

}  // namespace

absl::StatusOr<ParsedArtifact> ParseArtifactAndHash(absl::string_view bytes) {
  return ParseInPlace(bytes, "the input");
}

absl::StatusOr<ParsedArtifact> ParseArtifactFileAndHash(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open artifact ", path));
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    if (st.st_size > kMaxArtifactBytes) {
      close(fd);
      return absl::InvalidArgumentError(absl::StrCat("artifact ", path, " of ", st.st_size,
                                                     " bytes exceeds the limit ", kMaxArtifactBytes));
    }
    const size_t size = static_cast<size_t>(st.st_size);
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (mapped != MAP_FAILED) {
      close(fd);
      absl::StatusOr<ParsedArtifact> parsed =
          ParseInPlace(absl::string_view(static_cast<const char*>(mapped), size), path);
      munmap(mapped, size);
      return parsed;
    }
    // Not mappable (some file systems): stream it below.
  }
  google::protobuf::io::FileInputStream input(fd);
  input.SetCloseOnDelete(true);
  ASSIGN_OR_RETURN(std::unique_ptr<GpuExecutableProto> artifact, ParseFrom(&input, path));
  return ParsedArtifact{std::move(artifact), std::nullopt};
}

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifact(absl::string_view bytes) {
  ASSIGN_OR_RETURN(ParsedArtifact parsed, ParseArtifactAndHash(bytes));
  return std::move(parsed.artifact);
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgram(std::unique_ptr<GpuExecutableProto> artifact,
                                                     const ffi::FfiRegistry& ffi) {
  return LoadProgram(ParsedArtifact{std::move(artifact), std::nullopt}, ffi);
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgram(ParsedArtifact parsed,
                                                     const ffi::FfiRegistry& ffi) {
  auto p = std::make_unique<Program>();
  p->artifact = std::move(parsed.artifact);
  ASSIGN_OR_RETURN(p->target, ValidateHeader(p->artifact->header()));
  RETURN_IF_ERROR(CheckChecksum(*p->artifact, parsed.stored_payload_checksum));
  const GpuExecutablePayloadProto& payload = p->payload();
  ASSIGN_OR_RETURN(p->program_shape, ProgramShapeFromProto(payload.program_shape(), "program_shape"));
  p->num_streams = payload.num_streams() == 0 ? 1 : payload.num_streams();
  if (p->num_streams < 1 || p->num_streams > kMaxStreams) {
    return Invalid("num_streams", absl::StrCat(payload.num_streams(), " is outside [1, ", kMaxStreams, "]"));
  }
  RETURN_IF_ERROR(CheckConstants(payload));
  ASSIGN_OR_RETURN(p->allocations,
                   AllocationsFromProto(payload.allocations(),
                                        static_cast<int64_t>(p->program_shape.parameters.size()),
                                        payload.constants_size()));
  RETURN_IF_ERROR(CheckAllocationSizes(*p));
  ASSIGN_OR_RETURN(p->kernels, KernelsFromProto(payload, p->target));
  RETURN_IF_ERROR(BuildOutputs(*p));
  RETURN_IF_ERROR(BuildAliases(*p));
  RETURN_IF_ERROR(BuildThunks(*p, ffi));
  return p;
}

}  // namespace xla::gpu
