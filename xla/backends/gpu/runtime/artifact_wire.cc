#include "xla/backends/gpu/runtime/artifact_wire.h"

#include <pthread.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"
#include "xla/backends/gpu/runtime/artifact_signature.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

using WireFormatLite = google::protobuf::internal::WireFormatLite;
using Payload = GpuExecutablePayloadProto;

// Message depths inside an artifact: the payload is at 1, its thunks and
// constants at 2 (the recursion limit counts from the artifact).
constexpr int kPayloadDepth = 1;
constexpr int kPayloadEntryDepth = 2;

std::string FieldPath(absl::string_view path, absl::string_view field) {
  if (path.empty()) return std::string(field);
  return absl::StrCat(path, ".", field);
}

// `type`'s name for field `number`, or "field <number>" for one it lacks.
std::string FieldName(const google::protobuf::Descriptor& type, int number) {
  const google::protobuf::FieldDescriptor* field = type.FindFieldByNumber(number);
  return field != nullptr ? field->name() : absl::StrCat("field ", number);
}

// A record at byte `at` of the message at `path` that does not scan; `field`
// names it when its tag was read.
absl::Status Unscannable(absl::string_view path, absl::string_view field, int at, absl::string_view what) {
  const absl::string_view message = path.empty() ? absl::string_view("the artifact") : path;
  return absl::InvalidArgumentError(absl::StrCat(field, field.empty() ? "" : ": ", "the record at byte ", at,
                                                 " of ", message, " ", what));
}

// Bytes that protobuf's own parse refused (it says no more than that).
absl::Status Unparsable(absl::string_view path) {
  return absl::InvalidArgumentError(absl::StrCat(path, path.empty() ? "" : ": ",
                                                 "truncated or corrupt bytes, or messages nested deeper than ",
                                                 kMaxProtoRecursion));
}

absl::Status NotAnArtifact(absl::string_view what, const absl::Status& why) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " is not a valid GpuExecutableProto artifact: ", why.message()));
}

// Merges serialized records into `message`, which sits `depth` messages deep
// in the artifact, as the whole parse would (so the same recursion limit
// holds).
bool MergeRecords(absl::string_view bytes, int depth, google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(kMaxProtoRecursion - depth);
  return message->MergePartialFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool ParseThunk(absl::string_view contents, ThunkProto* thunk) {
  thunk->Clear();
  return MergeRecords(contents, kPayloadEntryDepth, thunk);
}

bool IsThunks(const WireRecord& r) {
  return r.length_delimited && r.field == Payload::kThunksFieldNumber;
}

// The payload fields that PayloadViews can hold.
bool IsViewable(const WireRecord& r) {
  return r.length_delimited &&
         (r.field == Payload::kHostSharedObjectFieldNumber || r.field == Payload::kConstantsFieldNumber ||
          r.field == Payload::kOptimizedHloTextFieldNumber);
}

// Adjacent records of one message, merged by one call (most of a payload's
// records stay in the message, and one merge of a long run costs what the
// whole parse costs).
class RecordRun {
 public:
  // `path` names the message in errors (a literal: it is not copied).
  RecordRun(google::protobuf::MessageLite* message, int depth, absl::string_view path)
      : message_(message), depth_(depth), path_(path) {}

  void Add(const WireRecord& r) {
    const char* end = r.whole.data() + r.whole.size();
    run_ = run_.empty() ? r.whole : absl::string_view(run_.data(), static_cast<size_t>(end - run_.data()));
  }
  absl::Status Flush() {
    const bool ok = run_.empty() || MergeRecords(run_, depth_, message_);
    run_ = {};
    return ok ? absl::OkStatus() : Unparsable(path_);
  }

 private:
  google::protobuf::MessageLite* message_;
  int depth_;
  absl::string_view path_;
  absl::string_view run_;
};

// The payload's checksum over its stored bytes, on a second thread from
// kConcurrentHashBytes on. pthread_create reports a thread it cannot start
// as a value (std::thread would throw): the digest is then computed on the
// calling thread, in Finish.
class PayloadHash {
 public:
  // `signed_payload`: also the signature's payload digest
  // (artifact_signature.h), after the checksum.
  PayloadHash(absl::string_view stored, ChecksumAlgorithmProto algorithm, bool signed_payload)
      : stored_(stored), algorithm_(algorithm), signed_payload_(signed_payload) {
    if (stored_.size() >= kConcurrentHashBytes) started_ = pthread_create(&thread_, nullptr, &Run, this) == 0;
  }
  PayloadHash(const PayloadHash&) = delete;
  PayloadHash& operator=(const PayloadHash&) = delete;
  ~PayloadHash() { Join(); }

  // The digest; nullopt for an algorithm this runtime lacks (the header
  // check rejects it).
  std::optional<uint64_t> Finish() {
    if (!Join()) Compute();
    return digest_;
  }
  // The signature's payload digest, when asked for; after Finish.
  const std::optional<Digest>& signature_digest() const { return signature_digest_; }

 private:
  static void* Run(void* self) {
    static_cast<PayloadHash*>(self)->Compute();
    return nullptr;
  }
  void Compute() {
    if (signed_payload_) {
      signature_digest_ = PayloadDigest(stored_, 0, [this] { ComputeChecksum(); });
    } else {
      ComputeChecksum();
    }
  }
  void ComputeChecksum() {
    if (!IsSupportedChecksum(algorithm_)) return;
    PayloadHasher hash(algorithm_);
    hash.Update(stored_.data(), stored_.size());
    digest_ = hash.digest();
  }
  // Waits for the second thread; false when none ran.
  bool Join() {
    if (!started_) return joined_;
    pthread_join(thread_, nullptr);
    started_ = false;
    joined_ = true;
    return true;
  }

  absl::string_view stored_;
  ChecksumAlgorithmProto algorithm_;
  bool signed_payload_;
  std::optional<uint64_t> digest_;
  std::optional<Digest> signature_digest_;
  pthread_t thread_{};
  bool started_ = false;
  bool joined_ = false;
};

// One walk over an artifact's top-level records: everything but the
// payload merged into `artifact`; the payload's stored bytes found when it
// is stored once, else merged too (protobuf merges repeated copies).
class TopLevelWalk {
 public:
  explicit TopLevelWalk(GpuExecutableProto* artifact) : artifact_(artifact), others_(artifact, 0, "") {}

  absl::Status Walk(absl::string_view bytes) {
    RETURN_IF_ERROR(ScanRecords(bytes, *GpuExecutableProto::descriptor(), "",
                                [this](const WireRecord& r) { return OnRecord(r); }));
    return others_.Flush();
  }
  // The stored payload, when there is exactly one length-delimited record.
  const std::optional<absl::string_view>& payload() const { return payload_; }
  // The contents of every length-delimited header record, in order.
  const std::vector<absl::string_view>& header_records() const { return header_records_; }

 private:
  absl::Status OnRecord(const WireRecord& r) {
    if (r.field != GpuExecutableProto::kPayloadFieldNumber) {
      if (r.field == GpuExecutableProto::kHeaderFieldNumber && r.length_delimited) {
        header_records_.push_back(r.contents);
      }
      others_.Add(r);
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(others_.Flush());
    if (!stored_once_) return MergePayloadRecord(r.whole);
    if (r.length_delimited && !payload_.has_value()) {
      payload_ = r.contents;
      first_ = r.whole;
      return absl::OkStatus();
    }
    // Stored again, or not length-delimited: merged as protobuf would.
    stored_once_ = false;
    if (payload_.has_value()) RETURN_IF_ERROR(MergePayloadRecord(first_));
    payload_.reset();
    return MergePayloadRecord(r.whole);
  }
  absl::Status MergePayloadRecord(absl::string_view whole) {
    return MergeRecords(whole, 0, artifact_) ? absl::OkStatus() : Unparsable("payload");
  }

  GpuExecutableProto* artifact_;
  RecordRun others_;
  bool stored_once_ = true;
  std::optional<absl::string_view> payload_;
  absl::string_view first_;
  std::vector<absl::string_view> header_records_;
};

// Merges a stored ConstantProto into a new entry of `payload->constants`,
// except its content, which `content` is pointed at.
absl::Status ParseConstantLeavingContent(absl::string_view stored, Payload* payload, absl::string_view* content) {
  RecordRun rest(payload->add_constants(), kPayloadEntryDepth, "payload.constants");
  *content = {};
  RETURN_IF_ERROR(ScanRecords(stored, *ConstantProto::descriptor(), "payload.constants",
                              [&](const WireRecord& c) {
                                if (c.field == ConstantProto::kContentFieldNumber && c.length_delimited) {
                                  RETURN_IF_ERROR(rest.Flush());
                                  *content = c.contents;
                                  return absl::OkStatus();
                                }
                                rest.Add(c);
                                return absl::OkStatus();
                              }));
  return rest.Flush();
}

// One walk over the stored payload's records into `out->artifact`'s
// payload, leaving out what the options say (see the header).
class PayloadWalk {
 public:
  PayloadWalk(const InPlaceOptions& options, ParsedArtifact* out)
      : options_(options),
        out_(out),
        payload_(out->artifact->mutable_payload()),
        run_(payload_, kPayloadDepth, "payload") {}

  absl::Status Walk(absl::string_view stored) {
    RETURN_IF_ERROR(ScanRecords(stored, *Payload::descriptor(), "payload",
                                [this](const WireRecord& r) { return OnRecord(r); }));
    RETURN_IF_ERROR(run_.Flush());
    if (options_.view_large_fields) {
      out_->large_fields = PayloadPart::kInStoredBytes;
      out_->views = std::move(views_);
      out_->storage = options_.input_owner;
    }
    if (deferring_) {
      out_->thunks = PayloadPart::kInStoredBytes;
      return KeepThunkRecords(stored);
    }
    return absl::OkStatus();
  }

 private:
  absl::Status OnRecord(const WireRecord& r) {
    if (IsThunks(r)) return OnThunk(r);
    if (options_.view_large_fields && IsViewable(r)) {
      RETURN_IF_ERROR(run_.Flush());
      return View(r);
    }
    run_.Add(r);
    return absl::OkStatus();
  }

  // Thunks go into the message until their records reach kDeferThunkBytes;
  // from there on the list is deferred: the ones parsed so far are dropped
  // and the rest only checked, one scratch message at a time.
  absl::Status OnThunk(const WireRecord& r) {
    if (thunks_begin_ == nullptr) thunks_begin_ = r.whole.data();
    thunks_end_ = r.whole.data() + r.whole.size();
    thunk_bytes_ += r.whole.size();
    if (!deferring_) {
      run_.Add(r);
      if (thunk_bytes_ < kDeferThunkBytes) return absl::OkStatus();
      RETURN_IF_ERROR(run_.Flush());
      google::protobuf::RepeatedPtrField<ThunkProto>().Swap(payload_->mutable_thunks());  // frees them
      deferring_ = true;
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(run_.Flush());
    return ParseThunk(r.contents, &scratch_) ? absl::OkStatus() : Unparsable("payload.thunks");
  }

  absl::Status View(const WireRecord& r) {
    if (r.field == Payload::kHostSharedObjectFieldNumber) {
      views_.host_shared_object = r.contents;
      return absl::OkStatus();
    }
    if (r.field == Payload::kOptimizedHloTextFieldNumber) {
      // A string: refused when not UTF-8, as the parse refuses it.
      views_.optimized_hlo_text = r.contents;
      if (google::protobuf::internal::IsStructurallyValidUTF8(r.contents.data(),
                                                               static_cast<int>(r.contents.size()))) {
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError("payload.optimized_hlo_text: is not valid UTF-8");
    }
    return ParseConstantLeavingContent(r.contents, payload_, &views_.constants.emplace_back());
  }

  // Where the deferred records stay: the input (kept by its owner or the
  // caller), or a copy of just the thunk records.
  absl::Status KeepThunkRecords(absl::string_view stored) {
    if (!options_.copy_thunk_records || options_.view_large_fields) {
      out_->stored_payload = stored;
      out_->storage = options_.input_owner;
      return absl::OkStatus();
    }
    auto records = std::make_shared<std::string>();
    const absl::string_view extent(thunks_begin_, static_cast<size_t>(thunks_end_ - thunks_begin_));
    if (extent.size() == thunk_bytes_) {
      records->assign(extent.data(), extent.size());  // adjacent, as a serialization writes them
    } else {
      records->reserve(thunk_bytes_);
      RETURN_IF_ERROR(ScanRecords(extent, *Payload::descriptor(), "payload", [&](const WireRecord& r) {
        if (IsThunks(r)) records->append(r.whole.data(), r.whole.size());
        return absl::OkStatus();
      }));
    }
    out_->stored_payload = *records;
    out_->storage = std::move(records);
    return absl::OkStatus();
  }

  const InPlaceOptions& options_;
  ParsedArtifact* out_;
  Payload* payload_;
  RecordRun run_;
  PayloadViews views_;
  ThunkProto scratch_;
  bool deferring_ = false;
  size_t thunk_bytes_ = 0;
  const char* thunks_begin_ = nullptr;
  const char* thunks_end_ = nullptr;
};

absl::Status TooLarge(absl::string_view what, size_t size) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " of ", size, " bytes exceeds the limit ", kMaxArtifactBytes));
}

// ParseArtifactInPlace's steps, with errors that the caller prefixes.
absl::StatusOr<ParsedArtifact> ParseInPlace(absl::string_view bytes, const InPlaceOptions& options) {
  ParsedArtifact parsed;
  parsed.artifact = std::make_unique<GpuExecutableProto>();
  TopLevelWalk top(parsed.artifact.get());
  RETURN_IF_ERROR(top.Walk(bytes));
  if (!top.payload().has_value()) return parsed;  // absent or merged already
  const bool is_signed = parsed.artifact->header().has_signature();
  PayloadHash hash(*top.payload(), parsed.artifact->header().checksum_algorithm(), is_signed);
  RETURN_IF_ERROR(PayloadWalk(options, &parsed).Walk(*top.payload()));
  parsed.stored_payload_checksum = hash.Finish();
  if (is_signed) {
    ASSIGN_OR_RETURN(Digest header, StoredHeaderDigest(top.header_records()));
    parsed.stored_digests = ArtifactDigests{header, *hash.signature_digest()};
  }
  return parsed;
}

}  // namespace

absl::StatusOr<Digest> StoredHeaderDigest(const std::vector<absl::string_view>& records) {
  Blake2b256 hash;
  for (absl::string_view record : records) {
    RETURN_IF_ERROR(ScanRecords(record, *ArtifactHeaderProto::descriptor(), "header", [&](const WireRecord& r) {
      if (r.field != ArtifactHeaderProto::kSignatureFieldNumber) hash.Update(r.whole);
      return absl::OkStatus();
    }));
  }
  return hash.Finish();
}

absl::Status ScanRecords(absl::string_view bytes, const google::protobuf::Descriptor& type,
                         absl::string_view path, absl::FunctionRef<absl::Status(const WireRecord&)> fn) {
  if (bytes.size() > static_cast<size_t>(kMaxArtifactBytes)) {
    return TooLarge(path.empty() ? absl::string_view("the artifact") : path, bytes.size());
  }
  const int size = static_cast<int>(bytes.size());
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), size);
  in.SetRecursionLimit(kMaxProtoRecursion);  // groups of unknown fields nest
  while (in.CurrentPosition() < size) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    WireRecord r;
    r.field = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
    if (r.field == 0) return Unscannable(path, "", start, "has no valid tag");
    // Named only for an error: most loads scan without one.
    auto field = [&] { return FieldPath(path, FieldName(type, r.field)); };
    r.length_delimited = WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (r.length_delimited) {
      uint64_t length = 0;
      if (!in.ReadVarint64(&length)) return Unscannable(path, field(), start, "has a length that is not a varint");
      const size_t at = static_cast<size_t>(in.CurrentPosition());
      if (length > bytes.size() - at) {
        return Unscannable(path, field(), start,
                           absl::StrCat("claims ", length, " bytes, past its end (", bytes.size() - at, " left)"));
      }
      in.Skip(static_cast<int>(length));
      r.contents = bytes.substr(at, static_cast<size_t>(length));
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return Unscannable(path, field(), start,
                         absl::StrCat("of wire type ", WireFormatLite::GetTagWireType(tag),
                                      " is truncated or cannot be skipped"));
    }
    r.whole = bytes.substr(static_cast<size_t>(start), static_cast<size_t>(in.CurrentPosition() - start));
    RETURN_IF_ERROR(fn(r));
  }
  return absl::OkStatus();
}

absl::StatusOr<ParsedArtifact> ParseArtifactInPlace(absl::string_view bytes, absl::string_view what,
                                                    const InPlaceOptions& options) {
  if (bytes.size() > static_cast<size_t>(kMaxArtifactBytes)) return TooLarge(what, bytes.size());
  absl::StatusOr<ParsedArtifact> parsed = ParseInPlace(bytes, options);
  if (!parsed.ok()) return NotAnArtifact(what, parsed.status());
  return parsed;
}

absl::StatusOr<std::unique_ptr<GpuExecutableProto>> ParseArtifactStream(
    google::protobuf::io::ZeroCopyInputStream* input, absl::string_view what) {
  auto artifact = std::make_unique<GpuExecutableProto>();
  google::protobuf::io::CodedInputStream coded(input);
  coded.SetRecursionLimit(kMaxProtoRecursion);
  coded.SetTotalBytesLimit(static_cast<int>(kMaxArtifactBytes));
  if (!artifact->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return NotAnArtifact(what, Unparsable(""));
  }
  return artifact;
}

absl::Status ForEachStoredThunk(absl::string_view stored_payload, absl::string_view what,
                                absl::FunctionRef<absl::Status(const ThunkProto&)> fn) {
  ThunkProto thunk;
  absl::Status from_fn;
  const absl::Status scanned =
      ScanRecords(stored_payload, *Payload::descriptor(), "payload", [&](const WireRecord& r) {
        if (!IsThunks(r)) return absl::OkStatus();
        if (!ParseThunk(r.contents, &thunk)) return Unparsable("payload.thunks");
        from_fn = fn(thunk);
        return from_fn.ok() ? absl::OkStatus() : absl::CancelledError();
      });
  if (!from_fn.ok()) return from_fn;
  if (!scanned.ok()) return NotAnArtifact(what, scanned);
  return absl::OkStatus();
}

void CopyViewsInto(const PayloadViews& views, GpuExecutablePayloadProto* payload) {
  payload->set_host_shared_object(views.host_shared_object.data(), views.host_shared_object.size());
  payload->set_optimized_hlo_text(views.optimized_hlo_text.data(), views.optimized_hlo_text.size());
  for (size_t i = 0; i < views.constants.size(); ++i) {
    payload->mutable_constants(static_cast<int>(i))->set_content(views.constants[i].data(), views.constants[i].size());
  }
}

absl::Status PutPartsBackInMessage(ParsedArtifact& parsed) {
  if (parsed.large_fields == PayloadPart::kInStoredBytes) {
    CopyViewsInto(parsed.views, parsed.artifact->mutable_payload());
    parsed.views = {};
    parsed.large_fields = PayloadPart::kInMessage;
  }
  if (parsed.thunks == PayloadPart::kInStoredBytes) {
    GpuExecutablePayloadProto* payload = parsed.artifact->mutable_payload();
    RETURN_IF_ERROR(ForEachStoredThunk(parsed.stored_payload, "the artifact", [&](const ThunkProto& t) {
      *payload->add_thunks() = t;
      return absl::OkStatus();
    }));
    parsed.stored_payload = {};
    parsed.thunks = PayloadPart::kInMessage;
  }
  parsed.storage.reset();
  return absl::OkStatus();
}

}  // namespace xla::gpu
