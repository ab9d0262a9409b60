// Loading: parse in place (bytes and memory-mapped files), the stored
// payload hash standing in for re-serialization, its fallback, and the
// once-stored constants check.
#include "xla/backends/gpu/runtime/program.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/backends/gpu/runtime/sequential_thunk.h"

namespace xla::gpu {
namespace {

// A result of 4 floats plus one constant of `bytes` bytes per seed, filled
// with a pattern that starts at the seed (equal seeds give equal constants).
GpuExecutableProto Artifact(const std::vector<int>& seeds, int64_t bytes) {
  GpuExecutableProto a = testing::MakeArtifact(R"pb(
payload {
  module_name: "weights"
  program_shape { result { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 } }
  allocations { index: 0 size: 16 is_output: true }
  outputs { slice { allocation: 0 size: 16 } }
  thunks { memset { destination { allocation: 0 size: 16 } } }
}
)pb");
  GpuExecutablePayloadProto* p = a.mutable_payload();
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::string content(bytes, '\0');
    for (int64_t b = 0; b < bytes; ++b) content[b] = static_cast<char>((seeds[i] + b * 7) % 251);
    p->add_constants()->set_content(content);
    BufferAllocationProto* alloc = p->add_allocations();
    alloc->set_index(p->allocations_size() - 1);
    alloc->set_size(bytes);
    alloc->set_is_constant(true);
    alloc->set_constant_index(static_cast<int>(i));
  }
  SealArtifact(&a);
  return a;
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  EXPECT_TRUE(out.good());
  return path;
}

TEST(Program, StoredPayloadHashIsTheSealedChecksum) {
  const GpuExecutableProto a = Artifact({1, 2, 3}, 1000);
  absl::StatusOr<ParsedArtifact> parsed = ParseArtifactAndHash(testing::SerializeArtifact(a));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->stored_payload_checksum.has_value());
  EXPECT_EQ(*parsed->stored_payload_checksum, a.header().payload_checksum());
  EXPECT_EQ(*parsed->stored_payload_checksum, PayloadChecksum(a.payload()));
  absl::StatusOr<std::unique_ptr<Program>> p =
      LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->allocations.size(), 4u);
}

// Large payloads are hashed on a second thread; the file is mapped.
TEST(Program, MappedFileWithLargePayloadLoads) {
  const GpuExecutableProto a = Artifact({5, 6}, int64_t{3} << 19);  // 2 x 1.5 MiB
  const std::string path = WriteTemp("large.xaot", testing::SerializeArtifact(a));
  absl::StatusOr<ParsedArtifact> parsed = ParseArtifactFileAndHash(path);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->stored_payload_checksum, a.header().payload_checksum());
  EXPECT_EQ(parsed->artifact->payload().constants(1).content(), a.payload().constants(1).content());
  EXPECT_TRUE(LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global()).ok());
}

// Stored bytes that are not the deterministic serialization (here: a field
// of the payload written twice, which protobuf merges) fall back to hashing
// the re-serialized payload, which matches.
TEST(Program, NonCanonicalPayloadBytesFallBackToReserialization) {
  GpuExecutableProto a = Artifact({1}, 64);
  GpuExecutableProto extra;
  extra.mutable_payload()->set_module_name("weights");  // same value, stored again
  const std::string bytes = testing::SerializeArtifact(a) + testing::SerializeArtifact(extra);
  absl::StatusOr<ParsedArtifact> parsed = ParseArtifactAndHash(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->stored_payload_checksum.has_value());  // payload field twice
  EXPECT_TRUE(LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global()).ok());

  // A stored hash that disagrees (what non-canonical bytes give) is not an error by itself.
  absl::StatusOr<ParsedArtifact> again = ParseArtifactAndHash(testing::SerializeArtifact(a));
  ASSERT_TRUE(again.ok());
  again->stored_payload_checksum = *again->stored_payload_checksum + 1;
  EXPECT_TRUE(LoadProgram(*std::move(again), ffi::FfiRegistry::Global()).ok());
}

// Appends memset thunks to `p` until its top-level thunk list serializes to
// at least `bytes` bytes, so that parsing in place defers it.
void PadThunks(GpuExecutablePayloadProto* p, size_t bytes) {
  size_t size = 0;
  for (const ThunkProto& t : p->thunks()) size += t.ByteSizeLong() + 3;
  for (int i = 0; size < bytes; ++i) {
    ThunkProto* t = p->add_thunks();
    t->set_profile_annotation("pad." + std::to_string(i));
    BufferSliceProto* d = t->mutable_memset()->mutable_destination();
    d->set_offset(4 * (i % 4));
    d->set_size(4);
    t->mutable_memset()->set_pattern(static_cast<uint32_t>(i));
    size += t->ByteSizeLong() + 2;
  }
}

// The payload's top-level thunks are read one at a time from the stored
// bytes (a list of kDeferThunkBytes or more), or parsed whole and released:
// every load path builds the same tree, keeps no protobuf copy of the list,
// and payload() gives back the list the artifact stored (the oracle: the
// artifact's own proto).
TEST(Program, ThunkListIsReleasedAndRebuiltOnDemand) {
  for (const bool long_list : {false, true}) {
    GpuExecutableProto a = Artifact({3}, 40);
    GpuExecutablePayloadProto* payload = a.mutable_payload();
    for (int i = 0; i < 5; ++i) {
      ThunkProto* t = payload->add_thunks();
      t->set_profile_annotation("fill." + std::to_string(i));
      BufferSliceProto* d = t->mutable_memset()->mutable_destination();
      d->set_offset(4 * (i % 3));
      d->set_size(4);
      t->mutable_memset()->set_pattern(static_cast<uint32_t>(7 * i + 1));
    }
    ThunkProto* seq = payload->add_thunks();
    seq->set_profile_annotation("nested");
    *seq->mutable_sequential()->add_thunks() = payload->thunks(1);
    *seq->mutable_sequential()->add_thunks() = payload->thunks(0);
    if (long_list) PadThunks(payload, kDeferThunkBytes);
    SealArtifact(&a);
    const int n = a.payload().thunks_size();
    const std::string bytes = testing::SerializeArtifact(a);
    const std::string path = WriteTemp("thunks.xaot", bytes);
    const std::string expected = testing::SerializeArtifact(GpuExecutableProto(a));
    EXPECT_EQ(ParseArtifactAndHash(bytes)->thunks_deferred(), long_list);
    EXPECT_EQ(ParseArtifactFileAndHash(path)->thunks_deferred(), long_list);

    for (int how = 0; how < 4; ++how) {
      SCOPED_TRACE(absl::StrCat("load path ", how, ", long list ", long_list));
      absl::StatusOr<std::unique_ptr<Program>> p;
      if (how == 0) p = LoadProgram(std::make_unique<GpuExecutableProto>(a), ffi::FfiRegistry::Global());
      if (how == 1) p = LoadProgram(*ParseArtifactAndHash(std::string(bytes)), ffi::FfiRegistry::Global());
      if (how == 2) p = LoadProgram(*ParseArtifactFileAndHash(path), ffi::FfiRegistry::Global());
      if (how == 3) p = LoadProgramFromBytes(bytes, ffi::FfiRegistry::Global());
      ASSERT_TRUE(p.ok()) << p.status();
      const Program& program = **p;
      EXPECT_EQ(program.payload_tables().thunks_size(), 0);
      ASSERT_EQ(program.root->thunks().size(), static_cast<size_t>(n));  // 1 from Artifact, 5, 1 nested, pads
      EXPECT_EQ(program.root->thunks()[6]->children().size(), 2u);
      EXPECT_EQ(program.module_name(), "weights");
      // Rebuilt from the runtime thunks: the whole artifact serializes as stored.
      const GpuExecutablePayloadProto& full = program.payload();
      EXPECT_EQ(full.thunks_size(), n);
      GpuExecutableProto rebuilt = *program.artifact;
      EXPECT_EQ(testing::SerializeArtifact(rebuilt), expected);
      EXPECT_EQ(&program.payload(), &full);  // rebuilt once
    }
  }
}

// Deferring the thunks must reject exactly what the whole-message parse
// rejects: nesting at the recursion limit and strings that are not UTF-8.
TEST(Program, DeferredThunkParseAgreesWithFullParse) {
  for (const bool long_list : {false, true}) {
    SCOPED_TRACE(absl::StrCat("long list ", long_list));
    int accepted = 0, rejected = 0;
    for (int depth = 44; depth <= 52; ++depth) {
      GpuExecutableProto a = Artifact({2}, 8);
      ThunkProto inner = a.payload().thunks(0);
      for (int d = 0; d < depth; ++d) {
        ThunkProto outer;
        *outer.mutable_sequential()->add_thunks() = inner;
        inner = outer;
      }
      *a.mutable_payload()->add_thunks() = inner;
      if (long_list) PadThunks(a.mutable_payload(), kDeferThunkBytes);
      SealArtifact(&a);
      const std::string bytes = testing::SerializeArtifact(a);
      const bool full = ParseArtifact(bytes).ok();
      absl::StatusOr<ParsedArtifact> deferred = ParseArtifactAndHash(bytes);
      EXPECT_EQ(deferred.ok(), full) << "depth " << depth;
      if (deferred.ok()) {
        EXPECT_EQ(deferred->thunks_deferred(), long_list);
      }
      EXPECT_EQ(ParseArtifactFileAndHash(WriteTemp("deep.xaot", bytes)).ok(), full) << "depth " << depth;
      if (!deferred.ok()) {
        EXPECT_NE(deferred.status().message().find("not a valid GpuExecutableProto"), std::string::npos);
      }
      (full ? accepted : rejected)++;
    }
    EXPECT_GT(accepted, 0);
    EXPECT_GT(rejected, 0);

    GpuExecutableProto a = Artifact({2}, 8);
    a.mutable_payload()->mutable_thunks(0)->set_profile_annotation("bad \xff utf-8");
    if (long_list) PadThunks(a.mutable_payload(), kDeferThunkBytes);
    SealArtifact(&a);
    const std::string bytes = testing::SerializeArtifact(a);
    EXPECT_FALSE(ParseArtifact(bytes).ok());
    EXPECT_FALSE(ParseArtifactAndHash(bytes).ok());
    EXPECT_FALSE(ParseArtifactFileAndHash(WriteTemp("utf8.xaot", bytes)).ok());
    EXPECT_FALSE(LoadProgramFromBytes(bytes, ffi::FfiRegistry::Global()).ok());
  }
}

// Writes `bytes` to a file and loads it from there (read whole or mapped):
// the parse's or the load's status.
absl::Status LoadFile(const std::string& name, const std::string& bytes) {
  absl::StatusOr<ParsedArtifact> parsed = ParseArtifactFileAndHash(WriteTemp(name, bytes));
  if (!parsed.ok()) return parsed.status();
  return LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global()).status();
}

// A file under 1 MiB is read whole and its large fields (host shared
// object, constants, HLO text) stay in that buffer, which the Program keeps;
// a mapped file copies them into the message. Either way the checksum
// covers them, the load's checks see them, and payload() puts them back for
// tools.
TEST(Program, SmallFileKeepsItsLargeFieldsInTheReadBuffer) {
  // The test kernels (the load checks them), padded with a pattern to 70001
  // bytes; the bytes past its end are nothing to the ELF check.
  std::string so = testing::TestKernelsExporting({"add_f32"});
  for (size_t i = so.size(); i < 70001; ++i) so.push_back(static_cast<char>((i * 131 + 17) % 253));
  const std::string hlo = "HloModule m, \xcf\x80 = 3.14159\n";  // valid UTF-8
  for (const int64_t constant_bytes : {int64_t{1001}, int64_t{3} << 19}) {  // read, mapped
    const bool read_whole = constant_bytes < (int64_t{1} << 19);
    SCOPED_TRACE(absl::StrCat("read whole ", read_whole));
    GpuExecutableProto a = Artifact({7, 8}, constant_bytes);
    a.mutable_payload()->set_host_shared_object(so);
    a.mutable_payload()->set_optimized_hlo_text(hlo);
    KernelProto* k = a.mutable_payload()->add_kernels();
    k->set_name("k");
    k->set_host_symbol("add_f32");
    SealArtifact(&a);
    const std::string bytes = testing::SerializeArtifact(a);
    const std::string path = WriteTemp("large_fields.xaot", bytes);

    absl::StatusOr<ParsedArtifact> parsed = ParseArtifactFileAndHash(path);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->views_hold_large_fields(), read_whole);
    const GpuExecutablePayloadProto& message = parsed->artifact->payload();
    EXPECT_EQ(message.host_shared_object().empty(), read_whole);
    EXPECT_EQ(message.optimized_hlo_text().empty(), read_whole);
    ASSERT_EQ(message.constants_size(), 2);
    EXPECT_EQ(message.constants(1).content().empty(), read_whole);
    absl::StatusOr<std::unique_ptr<Program>> p = LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global());
    ASSERT_TRUE(p.ok()) << p.status();
    const Program& program = **p;
    EXPECT_EQ(program.views.host_shared_object, so);
    EXPECT_EQ(program.views.optimized_hlo_text, hlo);
    ASSERT_EQ(program.views.constants.size(), 2u);
    EXPECT_EQ(program.views.constants[0], a.payload().constants(0).content());
    EXPECT_EQ(program.views.constants[1], a.payload().constants(1).content());
    EXPECT_EQ(program.storage != nullptr, read_whole);
    EXPECT_EQ(program.payload_tables().host_shared_object().empty(), read_whole);
    ASSERT_EQ(program.kernels.size(), 1u);
    EXPECT_EQ(program.payload().host_shared_object(), so);
    EXPECT_EQ(testing::SerializeArtifact(*program.artifact), bytes);
    EXPECT_EQ(program.views.host_shared_object, so);

    // A flipped bit inside the shared object, or inside a constant, fails
    // the checksum.
    for (const size_t at : {bytes.find(so.substr(0, 64)) + 30001,
                            bytes.find(a.payload().constants(1).content()) + 999}) {
      std::string corrupt = bytes;
      corrupt[at] ^= 0x10;
      const absl::Status rejected = LoadFile("bad.xaot", corrupt);
      EXPECT_NE(rejected.message().find("header.payload_checksum"), std::string::npos)
          << "byte " << at << ": " << rejected;
    }

    // When the stored hash disagrees, the fields go back into the message,
    // the re-serialized payload is checked, and the Program copies.
    absl::StatusOr<ParsedArtifact> odd = ParseArtifactFileAndHash(path);
    ASSERT_TRUE(odd.ok());
    odd->stored_payload_checksum = *odd->stored_payload_checksum + 1;
    absl::StatusOr<std::unique_ptr<Program>> fallback = LoadProgram(*std::move(odd), ffi::FfiRegistry::Global());
    ASSERT_TRUE(fallback.ok()) << fallback.status();
    EXPECT_EQ((*fallback)->storage, nullptr);
    EXPECT_EQ((*fallback)->views.host_shared_object, so);
    EXPECT_EQ((*fallback)->payload_tables().host_shared_object(), so);
    EXPECT_EQ((*fallback)->views.constants[1], a.payload().constants(1).content());

    // HLO text that is not UTF-8 is refused as the whole-message parse
    // refuses it.
    GpuExecutableProto not_utf8 = a;
    not_utf8.mutable_payload()->set_optimized_hlo_text("bad \xff text");
    SealArtifact(&not_utf8);
    const std::string not_utf8_bytes = testing::SerializeArtifact(not_utf8);
    EXPECT_FALSE(ParseArtifact(not_utf8_bytes).ok());
    absl::Status status = ParseArtifactFileAndHash(WriteTemp("not_utf8.xaot", not_utf8_bytes)).status();
    EXPECT_NE(status.message().find("not a valid GpuExecutableProto"), std::string::npos) << status;

    // Two equal constants are refused from the views too.
    status = LoadFile("dup.xaot", testing::SerializeArtifact(Artifact({7, 7}, constant_bytes)));
    EXPECT_NE(status.message().find("constants[1]: same content as constants[0]"), std::string::npos)
        << status;
  }
  // A host kernel with no shared object anywhere is still refused.
  GpuExecutableProto none = Artifact({7}, 100);
  KernelProto* k = none.mutable_payload()->add_kernels();
  k->set_name("k");
  k->set_host_symbol("k_entry");
  SealArtifact(&none);
  const absl::Status status = LoadFile("no_so.xaot", testing::SerializeArtifact(none));
  EXPECT_NE(status.message().find("kernels[0].host_symbol: the artifact has no host_shared_object"),
            std::string::npos)
      << status;
}

TEST(Program, CorruptPayloadIsRejectedFromBytesAndFile) {
  const GpuExecutableProto a = Artifact({1, 2}, int64_t{3} << 19);
  std::string bytes = testing::SerializeArtifact(a);
  // Flip a byte inside constants[1] (the last big block of the file).
  bytes[bytes.size() - 1000] ^= 0x5a;
  const std::string path = WriteTemp("corrupt.xaot", bytes);
  for (int from_file = 0; from_file < 2; ++from_file) {
    absl::StatusOr<ParsedArtifact> parsed =
        from_file ? ParseArtifactFileAndHash(path) : ParseArtifactAndHash(bytes);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<std::unique_ptr<Program>> p =
        LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global());
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(p.status().message().find("header.payload_checksum"), std::string::npos)
        << p.status();
  }
}

// A CRC-32C artifact (runtime feature payload_checksum.crc32c) loads from
// bytes and from a mapped file, small and large (hashed on a second
// thread), and a flipped byte is caught; an algorithm this runtime lacks is
// refused by name.
TEST(Program, Crc32cChecksumLoadsAndCatchesCorruption) {
  for (int64_t size : {int64_t{1000}, int64_t{3} << 19}) {
    GpuExecutableProto a = Artifact({1, 2}, size);
    a.mutable_header()->set_checksum_algorithm(CHECKSUM_ALGORITHM_CRC32C);
    a.mutable_header()->add_required_runtime_features("payload_checksum.crc32c");
    SealArtifact(&a);
    std::string bytes = testing::SerializeArtifact(a);
    absl::StatusOr<ParsedArtifact> parsed = ParseArtifactAndHash(bytes);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->stored_payload_checksum, a.header().payload_checksum());
    EXPECT_TRUE(LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global()).ok());
    absl::StatusOr<ParsedArtifact> mapped =
        ParseArtifactFileAndHash(WriteTemp("crc.xaot", bytes));
    ASSERT_TRUE(mapped.ok()) << mapped.status();
    EXPECT_TRUE(LoadProgram(*std::move(mapped), ffi::FfiRegistry::Global()).ok());

    bytes[bytes.size() - 100] ^= 0x01;
    absl::StatusOr<ParsedArtifact> corrupt = ParseArtifactAndHash(bytes);
    ASSERT_TRUE(corrupt.ok());
    absl::StatusOr<std::unique_ptr<Program>> p =
        LoadProgram(*std::move(corrupt), ffi::FfiRegistry::Global());
    ASSERT_FALSE(p.ok()) << "size " << size;
    EXPECT_NE(p.status().message().find("header.payload_checksum"), std::string::npos)
        << p.status();
  }
  GpuExecutableProto future = Artifact({1}, 64);
  future.mutable_header()->set_checksum_algorithm(static_cast<ChecksumAlgorithmProto>(3));
  absl::StatusOr<ParsedArtifact> parsed =
      ParseArtifactAndHash(testing::SerializeArtifact(future));
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->stored_payload_checksum.has_value());
  absl::StatusOr<std::unique_ptr<Program>> p =
      LoadProgram(*std::move(parsed), ffi::FfiRegistry::Global());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("FNV1A_64 = 1 and CRC32C = 2"), std::string::npos)
      << p.status();
}

TEST(Program, DuplicateConstantIsRejected) {
  const GpuExecutableProto a = Artifact({4, 9, 4}, 333);
  absl::StatusOr<std::unique_ptr<Program>> p =
      LoadProgram(std::make_unique<GpuExecutableProto>(a), ffi::FfiRegistry::Global());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("constants[2]: same content as constants[0]"),
            std::string::npos)
      << p.status();
  // Same size, one byte apart: distinct.
  GpuExecutableProto b = Artifact({4, 9}, 333);
  std::string content = b.payload().constants(0).content();
  content.back() = static_cast<char>(content.back() + 1);
  b.mutable_payload()->add_constants()->set_content(content);
  BufferAllocationProto* alloc = b.mutable_payload()->add_allocations();
  alloc->set_index(3);
  alloc->set_size(333);
  alloc->set_is_constant(true);
  alloc->set_constant_index(2);
  SealArtifact(&b);
  EXPECT_TRUE(
      LoadProgram(std::make_unique<GpuExecutableProto>(b), ffi::FfiRegistry::Global()).ok());
}

TEST(Program, MissingFileIsNotFoundAndTruncatedFileIsInvalid) {
  EXPECT_EQ(ParseArtifactFileAndHash("/nonexistent/a.xaot").status().code(),
            absl::StatusCode::kNotFound);
  std::string bytes = testing::SerializeArtifact(Artifact({1}, 5000));
  bytes.resize(bytes.size() / 2);
  const std::string path = WriteTemp("truncated.xaot", bytes);
  absl::Status status = ParseArtifactFileAndHash(path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("truncated.xaot is not a valid GpuExecutableProto"),
            std::string::npos)
      << status;
}

}  // namespace
}  // namespace xla::gpu
