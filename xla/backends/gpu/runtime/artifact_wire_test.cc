// The wire room: the record scanner (bounds, named fields), and the
// in-place parse against protobuf's own parse (the oracle) on good,
// truncated and corrupted artifacts, with every option.
#include "xla/backends/gpu/runtime/artifact_wire.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/checksum.h"

namespace xla::gpu {
namespace {

using Payload = GpuExecutablePayloadProto;

std::string Serialize(const google::protobuf::MessageLite& m) {
  std::string out;
  EXPECT_TRUE(m.SerializeToString(&out));
  return out;
}

std::string Varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
  out.push_back(static_cast<char>(v));
  return out;
}

// A length-delimited record of field `field`.
std::string Delimited(int field, const std::string& contents) {
  return Varint(static_cast<uint64_t>(field) << 3 | 2) + Varint(contents.size()) + contents;
}

// A sealed artifact with constants, a shared object, HLO text and `thunks`
// memset thunks (about 20 wire bytes each).
GpuExecutableProto Artifact(int thunks) {
  GpuExecutableProto a;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    header { format_version: 1 checksum_algorithm: CHECKSUM_ALGORITHM_FNV1A_64 }
    payload {
      module_name: "wire"
      host_shared_object: "\177ELF shared object bytes"
      constants { content: "first constant" shape { element_type: PRIMITIVE_TYPE_U8 dimensions: 14 } }
      constants { content: "second" }
      optimized_hlo_text: "HloModule wire"
      num_streams: 2
    }
  )pb", &a));
  for (int i = 0; i < thunks; ++i) {
    ThunkProto* t = a.mutable_payload()->add_thunks();
    t->set_profile_annotation(absl::StrCat("t", i));
    t->mutable_memset()->mutable_destination()->set_size(4 * (i % 5));
  }
  SealArtifact(&a);
  return a;
}

// Protobuf's own parse of `bytes`, the oracle.
absl::StatusOr<std::unique_ptr<GpuExecutableProto>> Oracle(const std::string& bytes) {
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  return ParseArtifactStream(&input, "the input");
}

std::vector<InPlaceOptions> AllOptions() {
  std::vector<InPlaceOptions> all(3);
  all[1].copy_thunk_records = true;
  all[2].view_large_fields = true;
  return all;
}

// `parsed` with its parts put back, as one message.
GpuExecutableProto Whole(ParsedArtifact parsed) {
  EXPECT_TRUE(PutPartsBackInMessage(parsed).ok());
  EXPECT_EQ(parsed.thunks, PayloadPart::kInMessage);
  EXPECT_EQ(parsed.large_fields, PayloadPart::kInMessage);
  EXPECT_EQ(parsed.storage, nullptr);
  return *parsed.artifact;
}

TEST(ScanRecords, VisitsEachRecordInOrderWithItsBytes) {
  const std::string bytes = Serialize(Artifact(2).payload());
  std::vector<int> fields;
  std::string rejoined;
  ASSERT_TRUE(ScanRecords(bytes, *Payload::descriptor(), "payload", [&](const WireRecord& r) {
                fields.push_back(r.field);
                rejoined += std::string(r.whole);
                if (r.field == Payload::kModuleNameFieldNumber) {
                  EXPECT_EQ(r.contents, "wire");
                }
                EXPECT_EQ(r.length_delimited, r.field != Payload::kNumStreamsFieldNumber);
                return absl::OkStatus();
              }).ok());
  EXPECT_EQ(rejoined, bytes);
  const std::vector<int> expected = {Payload::kModuleNameFieldNumber, Payload::kHostSharedObjectFieldNumber,
                                     Payload::kConstantsFieldNumber,  Payload::kConstantsFieldNumber,
                                     Payload::kNumStreamsFieldNumber, Payload::kThunksFieldNumber,
                                     Payload::kThunksFieldNumber,     Payload::kOptimizedHloTextFieldNumber};
  EXPECT_EQ(fields, expected);
}

TEST(ScanRecords, StopsAtTheFirstErrorOfTheCallback) {
  const std::string bytes = Serialize(Artifact(3).payload());
  int seen = 0;
  const absl::Status status = ScanRecords(bytes, *Payload::descriptor(), "payload", [&](const WireRecord&) {
    return ++seen == 2 ? absl::UnavailableError("stop here") : absl::OkStatus();
  });
  EXPECT_EQ(status, absl::UnavailableError("stop here"));
  EXPECT_EQ(seen, 2);
}

std::string ScanError(const std::string& bytes) {
  return std::string(ScanRecords(bytes, *Payload::descriptor(), "payload", [](const WireRecord&) {
                       return absl::OkStatus();
                     }).message());
}

// Hostile records: each error names the field, the offset and the bound.
TEST(ScanRecords, HostileRecordsNameTheFieldAndTheBound) {
  const std::string name = Delimited(Payload::kModuleNameFieldNumber, "ok");
  // A thunk record that claims more bytes than are left.
  EXPECT_EQ(ScanError(name + "\x52\x64" + "abc"),
            "payload.thunks: the record at byte 4 of payload claims 100 bytes, past its end (3 left)");
  // A length of 2^63: never an overflow.
  EXPECT_EQ(ScanError("\x52" + Varint(uint64_t{1} << 63)),
            "payload.thunks: the record at byte 0 of payload claims 9223372036854775808 bytes, past its end (0 "
            "left)");
  EXPECT_EQ(ScanError(name + "\x52\xff\xff"),
            "payload.thunks: the record at byte 4 of payload has a length that is not a varint");
  EXPECT_EQ(ScanError(name + std::string(1, '\0')), "the record at byte 4 of payload has no valid tag");
  EXPECT_EQ(ScanError(std::string("\x02\x00", 2)), "the record at byte 0 of payload has no valid tag");
  EXPECT_EQ(ScanError("\x0f"),
            "payload.module_name: the record at byte 0 of payload of wire type 7 is truncated or cannot be skipped");
  EXPECT_EQ(ScanError("\xfa\x07\x01"),  // field 127 (unknown), one byte claimed, none there
            "payload.field 127: the record at byte 0 of payload claims 1 bytes, past its end (0 left)");
  EXPECT_EQ(ScanError("\xf9\x07\x01"),
            "payload.field 127: the record at byte 0 of payload of wire type 1 is truncated or cannot be skipped");
  // Unknown groups are skipped as protobuf skips them; a stray end is not.
  EXPECT_EQ(ScanError("\xfb\x07\x08\x01\xfc\x07" + name), "");
  EXPECT_EQ(ScanError("\xfc\x07"),
            "payload.field 127: the record at byte 0 of payload of wire type 4 is truncated or cannot be skipped");
}

// Every option gives protobuf's message once the parts are back, for short
// and deferred thunk lists; the parts are left out only where asked.
TEST(ParseArtifactInPlace, AgreesWithProtobufForEveryOption) {
  for (const int thunks : {0, 3, 2000}) {
    const GpuExecutableProto a = Artifact(thunks);
    const std::string bytes = Serialize(a);
    size_t thunk_bytes = 0;
    for (const ThunkProto& t : a.payload().thunks()) {
      thunk_bytes += Delimited(Payload::kThunksFieldNumber, Serialize(t)).size();
    }
    const bool long_list = thunk_bytes >= kDeferThunkBytes;
    EXPECT_EQ(long_list, thunks == 2000);
    for (const InPlaceOptions& options : AllOptions()) {
      SCOPED_TRACE(absl::StrCat(thunks, " thunks, copy ", options.copy_thunk_records, ", view ",
                                options.view_large_fields));
      absl::StatusOr<ParsedArtifact> parsed = ParseArtifactInPlace(bytes, "the input", options);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      EXPECT_EQ(parsed->stored_payload_checksum, a.header().payload_checksum());
      EXPECT_EQ(parsed->thunks_deferred(), long_list);
      EXPECT_EQ(parsed->views_hold_large_fields(), options.view_large_fields);
      const Payload& message = parsed->artifact->payload();
      EXPECT_EQ(message.thunks_size(), long_list ? 0 : thunks);
      EXPECT_EQ(message.host_shared_object().empty(), options.view_large_fields);
      EXPECT_EQ(message.constants_size(), 2);
      EXPECT_EQ(message.constants(0).shape().dimensions(0), 14);  // parsed beside its viewed content
      if (options.view_large_fields) {
        EXPECT_EQ(parsed->views.host_shared_object, a.payload().host_shared_object());
        EXPECT_EQ(parsed->views.optimized_hlo_text, a.payload().optimized_hlo_text());
        ASSERT_EQ(parsed->views.constants.size(), 2u);
        EXPECT_EQ(parsed->views.constants[1], "second");
      }
      if (long_list) {
        const bool in_input = parsed->stored_payload.data() >= bytes.data() &&
                              parsed->stored_payload.data() < bytes.data() + bytes.size();
        EXPECT_EQ(in_input, !options.copy_thunk_records || options.view_large_fields);
        EXPECT_EQ(parsed->storage != nullptr, options.copy_thunk_records && !options.view_large_fields);
      }
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Whole(*std::move(parsed)), a));
    }
  }
}

// Thunk records interleaved with other fields (not a serialization's order)
// are copied alone, in order.
TEST(ParseArtifactInPlace, CopiesInterleavedThunkRecordsInOrder) {
  const GpuExecutableProto a = Artifact(2000);
  std::string payload;
  for (int i = 0; i < a.payload().thunks_size(); ++i) {
    payload += Delimited(Payload::kThunksFieldNumber, Serialize(a.payload().thunks(i)));
    if (i % 500 == 0) payload += Delimited(Payload::kModuleNameFieldNumber, "wire");
  }
  const std::string bytes = Delimited(GpuExecutableProto::kPayloadFieldNumber, payload);
  InPlaceOptions options;
  options.copy_thunk_records = true;
  absl::StatusOr<ParsedArtifact> parsed = ParseArtifactInPlace(bytes, "the input", options);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->thunks_deferred());
  EXPECT_EQ(parsed->artifact->payload().module_name(), "wire");
  int n = 0;
  ASSERT_TRUE(ForEachStoredThunk(parsed->stored_payload, "the artifact", [&](const ThunkProto& t) {
                EXPECT_EQ(t.profile_annotation(), absl::StrCat("t", n++));
                return absl::OkStatus();
              }).ok());
  EXPECT_EQ(n, a.payload().thunks_size());
  size_t thunk_bytes = 0;
  for (const ThunkProto& t : a.payload().thunks()) thunk_bytes += Delimited(Payload::kThunksFieldNumber, Serialize(t)).size();
  EXPECT_EQ(parsed->stored_payload.size(), thunk_bytes);
}

// Every truncation and a sweep of flipped bytes: the in-place parse accepts
// exactly what protobuf accepts, gives the same message, and names the input.
TEST(ParseArtifactInPlace, HostileBytesAreRejectedExactlyAsProtobufRejectsThem) {
  google::protobuf::LogSilencer quiet;  // protobuf logs each string that is not UTF-8
  for (const int thunks : {4, 1500}) {
    const std::string good = Serialize(Artifact(thunks));
    const size_t step = std::max<size_t>(1, good.size() / (thunks < 10 ? 300 : 120));
    std::vector<std::string> inputs;
    for (size_t n = 0; n < good.size(); n += step) inputs.push_back(good.substr(0, n));
    for (size_t at = 0; at < good.size(); at += step) {
      for (const char mask : {'\x01', '\xff'}) {
        inputs.push_back(good);
        inputs.back()[at] ^= mask;
      }
    }
    int rejected = 0;
    for (const std::string& bytes : inputs) {
      absl::StatusOr<std::unique_ptr<GpuExecutableProto>> oracle = Oracle(bytes);
      for (const InPlaceOptions& options : AllOptions()) {
        absl::StatusOr<ParsedArtifact> parsed = ParseArtifactInPlace(bytes, "the input", options);
        ASSERT_EQ(parsed.ok(), oracle.ok()) << bytes.size() << " bytes: " << parsed.status();
        if (!parsed.ok()) {
          EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
          EXPECT_EQ(parsed.status().message().rfind("the input is not a valid GpuExecutableProto artifact: ", 0), 0u)
              << parsed.status();
          ++rejected;
          continue;
        }
        if (parsed->thunks_deferred() &&
            !ForEachStoredThunk(parsed->stored_payload, "x", [](const ThunkProto&) { return absl::OkStatus(); })
                 .ok()) {
          ADD_FAILURE() << "a deferred thunk that was checked does not parse";
        }
        google::protobuf::util::MessageDifferencer diff;
        std::string report;
        diff.ReportDifferencesToString(&report);
        EXPECT_TRUE(diff.Compare(Whole(*std::move(parsed)), **oracle)) << report;
      }
    }
    EXPECT_GT(rejected, 0);
  }
}

TEST(ParseArtifactInPlace, TruncatedPayloadNamesTheField) {
  const std::string good = Serialize(Artifact(1));
  const absl::Status status = ParseArtifactInPlace(good.substr(0, good.size() - 5), "a.xaot", {}).status();
  EXPECT_NE(status.message().find("a.xaot is not a valid GpuExecutableProto artifact: payload: the record at "
                                  "byte "),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("past its end"), std::string::npos) << status;
}

TEST(ParseArtifactInPlace, HloTextThatIsNotUtf8IsRefusedWhenViewed) {
  GpuExecutableProto a = Artifact(1);
  a.mutable_payload()->set_optimized_hlo_text("bad \xff text");
  InPlaceOptions view;
  view.view_large_fields = true;
  const std::string bytes = Serialize(a);
  EXPECT_FALSE(Oracle(bytes).ok());
  EXPECT_EQ(ParseArtifactInPlace(bytes, "x", view).status().message(),
            "x is not a valid GpuExecutableProto artifact: payload.optimized_hlo_text: is not valid UTF-8");
}

// A payload stored twice (protobuf merges the copies) or not at all: parsed
// whole, no stored hash, nothing left out.
TEST(ParseArtifactInPlace, PayloadNotStoredOnceIsParsedWhole) {
  const GpuExecutableProto a = Artifact(1000);
  GpuExecutableProto again;
  again.mutable_payload()->set_module_name("renamed");
  const std::string twice = Serialize(a) + Serialize(again);
  InPlaceOptions view;
  view.view_large_fields = true;
  for (const std::string& bytes : {twice, Serialize(a.header())}) {
    absl::StatusOr<ParsedArtifact> parsed = ParseArtifactInPlace(bytes, "x", view);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_FALSE(parsed->stored_payload_checksum.has_value());
    EXPECT_FALSE(parsed->thunks_deferred());
    EXPECT_FALSE(parsed->views_hold_large_fields());
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*parsed->artifact, **Oracle(bytes)));
  }
}

// From kConcurrentHashBytes on the stored payload is hashed on a second
// thread: the same digest, for both algorithms; none for an unknown one.
TEST(ParseArtifactInPlace, StoredPayloadHashMatchesTheSealedChecksum) {
  for (const ChecksumAlgorithmProto algorithm : {CHECKSUM_ALGORITHM_FNV1A_64, CHECKSUM_ALGORITHM_CRC32C}) {
    for (const size_t size : {size_t{100}, kConcurrentHashBytes + 7}) {
      GpuExecutableProto a = Artifact(1);
      a.mutable_header()->set_checksum_algorithm(algorithm);
      a.mutable_payload()->mutable_constants(1)->set_content(std::string(size, 'w'));
      SealArtifact(&a);
      absl::StatusOr<ParsedArtifact> parsed = ParseArtifactInPlace(Serialize(a), "x", {});
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      EXPECT_EQ(parsed->stored_payload_checksum, a.header().payload_checksum()) << size;
    }
  }
  GpuExecutableProto future = Artifact(1);
  future.mutable_header()->set_checksum_algorithm(static_cast<ChecksumAlgorithmProto>(3));
  EXPECT_FALSE(ParseArtifactInPlace(Serialize(future), "x", {})->stored_payload_checksum.has_value());
}

TEST(ParseArtifactInPlace, InputOverTheLimitNamesTheBound) {
  // A view past the limit, never read.
  const absl::string_view huge("", static_cast<size_t>(kMaxArtifactBytes) + 1);
  EXPECT_EQ(ParseArtifactInPlace(huge, "x", {}).status().message(),
            absl::StrCat("x of ", kMaxArtifactBytes + 1, " bytes exceeds the limit ", kMaxArtifactBytes));
}

// ForEachStoredThunk passes the callback's error through unchanged, and
// names the artifact for a thunk that does not parse.
TEST(ForEachStoredThunk, CallbackErrorsPassThroughAndBadThunksAreNamed) {
  const std::string payload = Serialize(Artifact(3).payload());
  const absl::Status stop = ForEachStoredThunk(payload, "the artifact", [](const ThunkProto& t) {
    return t.profile_annotation() == "t1" ? absl::FailedPreconditionError("thunks[1]: no") : absl::OkStatus();
  });
  EXPECT_EQ(stop, absl::FailedPreconditionError("thunks[1]: no"));
  const std::string bad = Delimited(Payload::kThunksFieldNumber, "\xff");
  EXPECT_EQ(ForEachStoredThunk(bad, "the artifact", [](const ThunkProto&) { return absl::OkStatus(); }).message(),
            absl::StrCat("the artifact is not a valid GpuExecutableProto artifact: payload.thunks: truncated or "
                         "corrupt bytes, or messages nested deeper than ",
                         kMaxProtoRecursion));
}

}  // namespace
}  // namespace xla::gpu
