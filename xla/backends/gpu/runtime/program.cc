#include "xla/backends/gpu/runtime/program.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <cstring>
#include <numeric>
#include <set>
#include <string>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/host_object_variants.h"
#include "xla/backends/gpu/runtime/thunk_deserializer.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/logging.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::Status NotAnArtifact(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      what, " is not a valid GpuExecutableProto artifact: truncated or corrupt bytes, or "
            "messages nested deeper than ", kMaxProtoRecursion));
}

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseFrom(
    google::protobuf::io::ZeroCopyInputStream* input, absl::string_view what) {
  auto artifact = std::make_unique<GpuExecutableProto>();
  google::protobuf::io::CodedInputStream coded(input);
  coded.SetRecursionLimit(kMaxProtoRecursion);
  coded.SetTotalBytesLimit(static_cast<int>(kMaxArtifactBytes));
  if (!artifact->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return NotAnArtifact(what);
  }
  return artifact;
}

using WireFormatLite = google::protobuf::internal::WireFormatLite;

// GpuExecutableProto.payload; GpuExecutablePayloadProto's host_shared_object,
// constants, thunks and optimized_hlo_text; ConstantProto.content.
constexpr uint32_t kPayloadField = 2;
constexpr uint32_t kHostSharedObjectField = 4;
constexpr uint32_t kConstantsField = 6;
constexpr uint32_t kThunksField = 10;
constexpr uint32_t kOptimizedHloTextField = 11;
constexpr uint32_t kConstantContentField = 1;

// One top-level record (tag and value) of a serialized message.
struct Record {
  uint32_t field = 0;
  bool length_delimited = false;
  absl::string_view whole;     // tag included
  absl::string_view contents;  // the value of a length-delimited record
};

// Calls fn on each top-level record of `bytes`, in order, and stops at the
// first error fn returns. False when the bytes do not scan as records.
bool ForEachRecord(absl::string_view bytes, const std::function<bool(const Record&)>& fn) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  while (true) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    Record r;
    r.field = WireFormatLite::GetTagFieldNumber(tag);
    r.length_delimited =
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (r.length_delimited) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return false;
      const int at = in.CurrentPosition();
      if (!in.Skip(static_cast<int>(length))) return false;
      r.contents = bytes.substr(static_cast<size_t>(at), length);
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
    r.whole = bytes.substr(static_cast<size_t>(start), static_cast<size_t>(in.CurrentPosition() - start));
    if (!fn(r)) return false;
  }
  return in.ConsumedEntireMessage();
}

// Merges serialized records into `message` as the full parse would, with
// messages nested `depth` deep in the artifact (so the same recursion limit
// holds).
bool MergeRecords(absl::string_view bytes, int depth, google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(kMaxProtoRecursion - depth);
  return message->MergePartialFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// Payload records are at depth 1 of the artifact, thunks at depth 2.
bool ParseThunk(absl::string_view contents, ThunkProto* thunk) {
  thunk->Clear();
  return MergeRecords(contents, 2, thunk);
}

// Calls fn on each top-level ThunkProto stored in `payload`, parsed into
// one reused message. InvalidArgument (the parse error) for a record that
// does not parse, else the first error of fn.
absl::Status ForEachStoredThunk(absl::string_view payload, absl::string_view what,
                                const std::function<absl::Status(const ThunkProto&)>& fn) {
  ThunkProto thunk;
  absl::Status status;
  const bool scanned = ForEachRecord(payload, [&](const Record& r) {
    if (r.field != kThunksField || !r.length_delimited) return true;
    if (!ParseThunk(r.contents, &thunk)) {
      status = NotAnArtifact(what);
      return false;
    }
    status = fn(thunk);
    return status.ok();
  });
  if (!status.ok()) return status;
  if (!scanned) return NotAnArtifact(what);
  return absl::OkStatus();
}

// The bytes of the top-level thunk records (tags included) in a payload.
size_t StoredThunkBytes(absl::string_view payload) {
  size_t size = 0;
  ForEachRecord(payload, [&](const Record& p) {
    if (p.field == kThunksField && p.length_delimited) size += p.whole.size();
    return true;
  });
  return size;
}

// What ParseByRecords leaves out of the payload message.
struct LeftOut {
  // Check each top-level thunk to parse, one at a time, and leave the list
  // out (an error exactly when the full parse's would be).
  bool thunks = false;
  // With `thunks`, also copy their records (tags included) here, in order:
  // a serialized payload with only its thunks (the caller reserves it).
  std::string* thunk_records = nullptr;
  // Leave the large byte fields out of the message and record where they
  // are inside `bytes` (the last record of a field wins, as in a parse).
  PayloadViews* views = nullptr;
};

// Merges a stored ConstantProto into a new constants entry of `tables`,
// except its content, which `content` is pointed at.
bool ParseConstantLeavingContent(absl::string_view stored, GpuExecutablePayloadProto* tables,
                                 absl::string_view* content) {
  ConstantProto* constant = tables->add_constants();
  *content = {};
  return ForEachRecord(stored, [&](const Record& c) {
    if (c.field != kConstantContentField || !c.length_delimited) return MergeRecords(c.whole, 2, constant);
    *content = c.contents;
    return true;
  });
}

// Parses `bytes`, whose payload record is `payload`, record by record,
// leaving out what `left_out` says. Runs of records that stay in are merged
// by one call each.
absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseByRecords(absl::string_view bytes,
                                                                   absl::string_view payload,
                                                                   absl::string_view what,
                                                                   const LeftOut& left_out) {
  auto artifact = std::make_unique<GpuExecutableProto>();
  GpuExecutablePayloadProto* tables = artifact->mutable_payload();
  ThunkProto scratch;
  absl::string_view run;  // adjacent payload records not yet merged
  auto flush = [&] {
    const bool ok = run.empty() || MergeRecords(run, 1, tables);
    run = {};
    return ok;
  };
  const bool ok = ForEachRecord(bytes, [&](const Record& r) {
    if (r.field != kPayloadField || !r.length_delimited) return MergeRecords(r.whole, 0, artifact.get());
    return ForEachRecord(payload, [&](const Record& p) {
      const bool thunk = left_out.thunks && p.field == kThunksField && p.length_delimited;
      const bool viewed = left_out.views != nullptr && p.length_delimited &&
                          (p.field == kHostSharedObjectField || p.field == kConstantsField ||
                           p.field == kOptimizedHloTextField);
      if (!thunk && !viewed) {
        run = run.empty() ? p.whole
                          : absl::string_view(run.data(), static_cast<size_t>(p.whole.data() + p.whole.size() -
                                                                             run.data()));
        return true;
      }
      if (!flush()) return false;
      if (thunk) {
        if (left_out.thunk_records != nullptr) left_out.thunk_records->append(p.whole.data(), p.whole.size());
        return ParseThunk(p.contents, &scratch);
      }
      PayloadViews* views = left_out.views;
      if (p.field == kHostSharedObjectField) {
        views->host_shared_object = p.contents;
        return true;
      }
      if (p.field == kOptimizedHloTextField) {
        // A string: refused when not UTF-8, as the parse refuses it.
        views->optimized_hlo_text = p.contents;
        return google::protobuf::internal::IsStructurallyValidUTF8(p.contents.data(),
                                                                    static_cast<int>(p.contents.size()));
      }
      return ParseConstantLeavingContent(p.contents, tables, &views->constants.emplace_back());
    }) && flush();
  });
  if (!ok) return NotAnArtifact(what);
  return artifact;
}

// Payloads at least this large are hashed on a second thread during the parse.
constexpr size_t kConcurrentHashBytes = size_t{1} << 20;

// Artifact files at least this large are memory-mapped; smaller ones are read.
constexpr size_t kMapFileBytes = size_t{1} << 20;

// The stored payload and the checksum algorithm its header names.
struct StoredParts {
  absl::string_view payload;
  ChecksumAlgorithmProto algorithm = CHECKSUM_ALGORITHM_UNSPECIFIED;
};

// The bytes of GpuExecutableProto.payload (field 2) as stored in `bytes`,
// with the header's (field 1) checksum algorithm, or nullopt when the
// payload is absent or repeated (protobuf would merge the copies), or the
// top level does not scan.
std::optional<StoredParts> StoredPayload(absl::string_view bytes) {
  constexpr uint32_t kHeaderField = 1;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::optional<absl::string_view> payload;
  ArtifactHeaderProto header;  // merged like protobuf merges repeated copies
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    const uint32_t field = google::protobuf::internal::WireFormatLite::GetTagFieldNumber(tag);
    const bool delimited = google::protobuf::internal::WireFormatLite::GetTagWireType(tag) ==
                           google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (field == kHeaderField && delimited) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return std::nullopt;
      const int start = in.CurrentPosition();
      if (!in.Skip(static_cast<int>(length))) return std::nullopt;
      if (!header.MergeFromString(std::string(bytes.substr(static_cast<size_t>(start), length)))) {
        return std::nullopt;
      }
      continue;
    }
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
  if (!in.ConsumedEntireMessage() || !payload.has_value()) return std::nullopt;
  return StoredParts{*payload, header.checksum_algorithm()};
}

// The stored payload's checksum, or nullopt for an algorithm this runtime
// lacks (the header check rejects it).
std::optional<uint64_t> HashBytes(const StoredParts& stored) {
  if (!IsSupportedChecksum(stored.algorithm)) return std::nullopt;
  PayloadHasher hash(stored.algorithm);
  hash.Update(stored.payload.data(), stored.payload.size());
  return hash.digest();
}

// How ParseInPlace treats the payload's top-level thunks.
enum class Thunks {
  kParse,      // into the message
  kInBytes,    // deferred, read later from `bytes` (which the caller keeps)
  kCopyBytes,  // deferred, their records copied out of `bytes`
};

// How ParseInPlace treats the payload's large byte fields (PayloadViews).
enum class LargeFields {
  kCopy,  // into the message
  kView,  // views into `bytes`, which the caller keeps while the result lives
};

// Parses `bytes` in place (strings are copied out of it) while hashing the
// stored payload. The thunks (a list of kDeferThunkBytes or more) and the
// large fields are left out of the message, as `thunks` and `large_fields`
// say, only when the payload is stored once.
absl::StatusOr<ParsedArtifact> ParseInPlace(absl::string_view bytes, absl::string_view what,
                                            Thunks thunks, LargeFields large_fields) {
  if (bytes.size() > static_cast<size_t>(kMaxArtifactBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " of ", bytes.size(),
                                                   " bytes exceeds the limit ", kMaxArtifactBytes));
  }
  const std::optional<StoredParts> stored = StoredPayload(bytes);
  std::optional<uint64_t> checksum;
  std::thread hasher;
  if (stored.has_value() && stored->payload.size() >= kConcurrentHashBytes) {
    try {
      hasher = std::thread([&checksum, &stored] { checksum = HashBytes(*stored); });
    } catch (const std::system_error&) {
      // No thread: hash below, after the parse.
    }
  }
  const bool hashed_beside = hasher.joinable();
  LeftOut left_out;
  const size_t thunk_bytes =
      thunks != Thunks::kParse && stored.has_value() ? StoredThunkBytes(stored->payload) : 0;
  left_out.thunks = thunk_bytes >= kDeferThunkBytes;
  std::shared_ptr<std::string> records;
  if (left_out.thunks && thunks == Thunks::kCopyBytes) {
    records = std::make_shared<std::string>();
    records->reserve(thunk_bytes);
    left_out.thunk_records = records.get();
  }
  PayloadViews views;
  if (large_fields == LargeFields::kView && stored.has_value()) left_out.views = &views;
  absl::StatusOr<std::unique_ptr<GpuExecutableProto>> artifact;
  if (left_out.thunks || left_out.views != nullptr) {
    artifact = ParseByRecords(bytes, stored->payload, what, left_out);
  } else {
    google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
    artifact = ParseFrom(&input, what);
  }
  if (hasher.joinable()) hasher.join();
  if (!artifact.ok()) return artifact.status();
  if (stored.has_value() && !hashed_beside) checksum = HashBytes(*stored);
  ParsedArtifact parsed{*std::move(artifact), checksum};
  if (left_out.views != nullptr) {
    parsed.views_hold_large_fields = true;
    parsed.views = std::move(views);
  }
  if (left_out.thunks) {
    parsed.thunks_deferred = true;
    parsed.stored_payload = records != nullptr ? absl::string_view(*records) : stored->payload;
    parsed.storage = std::move(records);
  }
  return parsed;
}

// Copies the fields that `views` holds into `payload`, whose constants
// are the ones the views were parsed beside.
void CopyViewsInto(const PayloadViews& views, GpuExecutablePayloadProto* payload) {
  payload->set_host_shared_object(views.host_shared_object.data(), views.host_shared_object.size());
  payload->set_optimized_hlo_text(views.optimized_hlo_text.data(), views.optimized_hlo_text.size());
  for (size_t i = 0; i < views.constants.size(); ++i) {
    payload->mutable_constants(static_cast<int>(i))->set_content(views.constants[i].data(), views.constants[i].size());
  }
}

// Puts deferred thunks back into the payload message (the stored bytes are
// not the sealed serialization, so the checksum needs the whole message).
absl::Status RestoreDeferredThunks(ParsedArtifact& parsed, GpuExecutablePayloadProto* payload) {
  if (!parsed.thunks_deferred) return absl::OkStatus();
  auto* thunks = payload->mutable_thunks();
  RETURN_IF_ERROR(ForEachStoredThunk(parsed.stored_payload, "the artifact",
                                     [&](const ThunkProto& t) -> absl::Status {
                                       *thunks->Add() = t;
                                       return absl::OkStatus();
                                     }));
  parsed.thunks_deferred = false;
  parsed.stored_payload = {};
  parsed.storage.reset();
  return absl::OkStatus();
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
  if (!parsed.thunks_deferred) {
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
  return ParseInPlace(bytes, "the input", Thunks::kCopyBytes, LargeFields::kCopy);
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
    if (size < kMapFileBytes) {
      // Small: one read into the heap costs less than mapping, populating
      // and unmapping (which shoots down other threads' TLB entries).
      std::shared_ptr<char[]> buffer(new char[size]);  // not zero-filled
      size_t done = 0;
      while (done < size) {
        const ssize_t got = pread(fd, buffer.get() + done, size - done, static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += static_cast<size_t>(got);
      }
      close(fd);
      if (done != size) {
        return absl::DataLossError(absl::StrCat("cannot read artifact ", path, ": got ", done,
                                                " of its ", size, " bytes"));
      }
      // The large fields stay in the buffer, which the Program then keeps.
      absl::StatusOr<ParsedArtifact> parsed = ParseInPlace(absl::string_view(buffer.get(), size), path,
                                                           Thunks::kInBytes, LargeFields::kView);
      if (parsed.ok() && (parsed->thunks_deferred || parsed->views_hold_large_fields)) {
        parsed->storage = std::move(buffer);
      }
      return parsed;
    }
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (mapped != MAP_FAILED) {
      close(fd);
      std::shared_ptr<const void> mapping(mapped, [size](const void* m) {
        munmap(const_cast<void*>(m), size);
      });
      absl::StatusOr<ParsedArtifact> parsed =
          ParseInPlace(absl::string_view(static_cast<const char*>(mapped), size), path, Thunks::kInBytes,
                       LargeFields::kCopy);
      // Keep the mapping only while it holds deferred thunks.
      if (parsed.ok() && parsed->thunks_deferred) parsed->storage = std::move(mapping);
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
  ASSIGN_OR_RETURN(ParsedArtifact parsed, ParseInPlace(bytes, "the input", Thunks::kParse, LargeFields::kCopy));
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
  if (parsed.stored_payload_checksum != p->artifact->header().payload_checksum()) {
    // The checksum is then of the whole payload message.
    if (parsed.views_hold_large_fields) CopyViewsInto(parsed.views, p->artifact->mutable_payload());
    parsed.views_hold_large_fields = false;
    RETURN_IF_ERROR(RestoreDeferredThunks(parsed, p->artifact->mutable_payload()));
  }
  if (parsed.views_hold_large_fields) {
    p->views = std::move(parsed.views);
    p->storage = parsed.storage;
  } else {
    const GpuExecutablePayloadProto& payload = p->artifact->payload();
    p->views.host_shared_object = payload.host_shared_object();
    p->views.optimized_hlo_text = payload.optimized_hlo_text();
    p->views.constants.reserve(payload.constants_size());
    for (const ConstantProto& c : payload.constants()) p->views.constants.push_back(c.content());
  }
  RETURN_IF_ERROR(CheckChecksum(*p->artifact, parsed.stored_payload_checksum));
  const GpuExecutablePayloadProto& payload = p->payload_tables();
  ASSIGN_OR_RETURN(p->program_shape, ProgramShapeFromProto(payload.program_shape(), "program_shape"));
  p->num_streams = payload.num_streams() == 0 ? 1 : payload.num_streams();
  if (p->num_streams < 1 || p->num_streams > kMaxStreams) {
    return Invalid("num_streams", absl::StrCat(payload.num_streams(), " is outside [1, ", kMaxStreams, "]"));
  }
  RETURN_IF_ERROR(CheckConstants(*p));
  ASSIGN_OR_RETURN(p->allocations,
                   AllocationsFromProto(payload.allocations(),
                                        static_cast<int64_t>(p->program_shape.parameters.size()),
                                        payload.constants_size()));
  RETURN_IF_ERROR(CheckAllocationSizes(*p));
  ASSIGN_OR_RETURN(p->kernels, KernelsFromProto(payload, p->views.host_shared_object, p->target));
  RETURN_IF_ERROR(ValidateHostObjectVariants(payload, p->target, p->views.host_shared_object));
  RETURN_IF_ERROR(BuildOutputs(*p));
  RETURN_IF_ERROR(BuildAliases(*p));
  RETURN_IF_ERROR(BuildThunks(*p, parsed, ffi));
  return p;
}

absl::StatusOr<std::unique_ptr<Program>> LoadProgramFromBytes(absl::string_view bytes,
                                                              const ffi::FfiRegistry& ffi) {
  ASSIGN_OR_RETURN(ParsedArtifact parsed,
                   ParseInPlace(bytes, "the input", Thunks::kInBytes, LargeFields::kCopy));
  return LoadProgram(std::move(parsed), ffi);
}

}  // namespace xla::gpu
