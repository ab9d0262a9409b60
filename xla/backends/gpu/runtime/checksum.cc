#include "xla/backends/gpu/runtime/checksum.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"

namespace xla::gpu {
namespace {

// Hashes what is written to it through a fixed 64 KiB buffer.
class HashingOutputStream : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  bool Next(void** data, int* size) override {
    Flush();
    *data = buffer_;
    *size = kBufferSize;
    pending_ = kBufferSize;
    return true;
  }
  void BackUp(int count) override { pending_ -= count; }
  int64_t ByteCount() const override { return total_ + pending_; }

  uint64_t Finish() {
    Flush();
    return hash_.digest();
  }

 private:
  static constexpr int kBufferSize = 64 * 1024;

  void Flush() {
    hash_.Update(buffer_, pending_);
    total_ += pending_;
    pending_ = 0;
  }

  char buffer_[kBufferSize];
  int pending_ = 0;
  int64_t total_ = 0;
  Fnv1a64 hash_;
};

}  // namespace

void Fnv1a64::Update(const void* data, size_t size) {
  const unsigned char* bytes = static_cast<const unsigned char*>(data);
  uint64_t h = state_;
  for (size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= kPrime;
  }
  state_ = h;
}

uint64_t PayloadChecksum(const GpuExecutablePayloadProto& payload) {
  auto stream = std::make_unique<HashingOutputStream>();
  {
    google::protobuf::io::CodedOutputStream coded(stream.get());
    coded.SetSerializationDeterministic(true);
    payload.SerializeToCodedStream(&coded);
  }
  return stream->Finish();
}

void SealArtifact(GpuExecutableProto* artifact) {
  ArtifactHeaderProto* header = artifact->mutable_header();
  header->set_checksum_algorithm(CHECKSUM_ALGORITHM_FNV1A_64);
  header->set_payload_checksum(PayloadChecksum(artifact->payload()));
}

}  // namespace xla::gpu
