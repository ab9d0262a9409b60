#include "xla/backends/gpu/runtime/checksum.h"

#include <cstring>
#include <memory>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"

namespace xla::gpu {
namespace {

// The reflected Castagnoli polynomial.
constexpr uint32_t kCrc32cPolynomial = 0x82F63B78u;

struct Crc32cTable {
  uint32_t entry[256];
};

constexpr Crc32cTable MakeCrc32cTable() {
  Crc32cTable t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kCrc32cPolynomial : c >> 1;
    t.entry[i] = c;
  }
  return t;
}

constexpr Crc32cTable kCrc32cTable = MakeCrc32cTable();

uint32_t Crc32cSoftware(uint32_t state, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) state = kCrc32cTable.entry[(state ^ p[i]) & 0xFF] ^ (state >> 8);
  return state;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(uint32_t state, const unsigned char* p,
                                                        size_t n) {
  uint64_t s = state;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    s = __builtin_ia32_crc32di(s, word);
  }
  uint32_t s32 = static_cast<uint32_t>(s);
  for (; n > 0; --n, ++p) s32 = __builtin_ia32_crc32qi(s32, *p);
  return s32;
}

bool HasSse42() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return has;
}
#endif

// Hashes what is written to it through a fixed 64 KiB buffer.
class HashingOutputStream : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  explicit HashingOutputStream(ChecksumAlgorithmProto algorithm) : hash_(algorithm) {}
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
  PayloadHasher hash_;
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

void Crc32c::Update(const void* data, size_t size) {
  const unsigned char* bytes = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (HasSse42()) {
    state_ = Crc32cSse42(state_, bytes, size);
    return;
  }
#endif
  state_ = Crc32cSoftware(state_, bytes, size);
}

uint32_t Crc32cTableForTesting(absl::string_view bytes) {
  return ~Crc32cSoftware(0xFFFFFFFFu, reinterpret_cast<const unsigned char*>(bytes.data()),
                         bytes.size());
}

bool IsSupportedChecksum(ChecksumAlgorithmProto algorithm) {
  return algorithm == CHECKSUM_ALGORITHM_FNV1A_64 || algorithm == CHECKSUM_ALGORITHM_CRC32C;
}

void PayloadHasher::Update(const void* data, size_t size) {
  if (algorithm_ == CHECKSUM_ALGORITHM_CRC32C) {
    crc_.Update(data, size);
  } else if (algorithm_ == CHECKSUM_ALGORITHM_FNV1A_64) {
    fnv_.Update(data, size);
  }
}

uint64_t PayloadHasher::digest() const {
  if (algorithm_ == CHECKSUM_ALGORITHM_CRC32C) return crc_.digest();
  if (algorithm_ == CHECKSUM_ALGORITHM_FNV1A_64) return fnv_.digest();
  return 0;
}

uint64_t PayloadChecksum(const GpuExecutablePayloadProto& payload,
                         ChecksumAlgorithmProto algorithm) {
  auto stream = std::make_unique<HashingOutputStream>(algorithm);
  {
    google::protobuf::io::CodedOutputStream coded(stream.get());
    coded.SetSerializationDeterministic(true);
    payload.SerializeToCodedStream(&coded);
  }
  return stream->Finish();
}

void SealArtifact(GpuExecutableProto* artifact) {
  ArtifactHeaderProto* header = artifact->mutable_header();
  if (header->checksum_algorithm() != CHECKSUM_ALGORITHM_CRC32C) {
    header->set_checksum_algorithm(CHECKSUM_ALGORITHM_FNV1A_64);
  }
  header->set_payload_checksum(PayloadChecksum(artifact->payload(), header->checksum_algorithm()));
}

}  // namespace xla::gpu
