#include "xla/backends/gpu/runtime/program.h"

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
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

absl::Status CheckChecksum(const GpuExecutableProto& artifact) {
  const uint64_t actual = PayloadChecksum(artifact.payload());
  if (actual == artifact.header().payload_checksum()) return absl::OkStatus();
  return Invalid("header.payload_checksum",
                 absl::StrCat("0x", absl::Hex(artifact.header().payload_checksum()),
                              " does not match the payload's 0x", absl::Hex(actual),
                              ": the artifact is corrupt or was edited"));
}

absl::Status CheckConstants(const GpuExecutablePayloadProto& payload) {
  std::map<uint64_t, int> by_hash;
  for (int i = 0; i < payload.constants_size(); ++i) {
    Fnv1a64 hash;
    hash.Update(payload.constants(i).content());
    auto [it, inserted] = by_hash.emplace(hash.digest(), i);
    if (!inserted && payload.constants(it->second).content() == payload.constants(i).content()) {
      return Invalid(absl::StrCat("constants[", i, "]"),
                     absl::StrCat("same content as constants[", it->second, "]; each constant is stored once"));
    }
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

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifact(absl::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(kMaxArtifactBytes)) {
    return absl::InvalidArgumentError(absl::StrCat("artifact of ", bytes.size(),
                                                   " bytes exceeds the limit ", kMaxArtifactBytes));
  }
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  return ParseFrom(&input, "the input");
}

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifactFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open artifact ", path));
  google::protobuf::io::FileInputStream input(fd);
  input.SetCloseOnDelete(true);
  return ParseFrom(&input, path);
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgram(std::unique_ptr<GpuExecutableProto> artifact,
                                                     const ffi::FfiRegistry& ffi) {
  auto p = std::make_unique<Program>();
  p->artifact = std::move(artifact);
  ASSIGN_OR_RETURN(p->target, ValidateHeader(p->artifact->header()));
  RETURN_IF_ERROR(CheckChecksum(*p->artifact));
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
