#include "xla/backends/gpu/runtime/checksum.h"

#include <cstring>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// Folding with carry-less multiplication. The crc32 instruction is a chain
// (each step needs the last), so it runs at its latency: about 5.5 GB/s
// here. Folding keeps four independent 128-bit blocks instead: a block V
// of the reflected message, with LO its first 8 bytes and HI its last 8,
// stands for LO * x^64 + HI, and moving it D bits further along the
// message multiplies it by x^D, which modulo the polynomial P is
// LO * (x^(64+D) mod P) + HI * (x^D mod P): two 64x32-bit carry-less
// products, XORed into the block found D bits on. The CRC register from 0
// only depends on the message modulo P, so the last block, fed to the
// crc32 instruction, gives the register of the whole folded prefix.
//
// In the reflected layout a carry-less product lands one bit too low, so
// each constant is x^(D-1) mod P rather than x^D, stored bit-reversed in a
// 64-bit lane's upper half (degree d at bit 63 - d).

// x^n mod P in the normal layout (degree d at bit d); P = 0x1EDC6F41 plus
// x^32, the Castagnoli polynomial.
constexpr uint32_t XPowModP(int n) {
  uint64_t r = 1;
  for (int i = 0; i < n; ++i) {
    r <<= 1;
    if (r & (uint64_t{1} << 32)) r ^= 0x11EDC6F41u;
  }
  return static_cast<uint32_t>(r);
}

constexpr uint64_t FoldConstant(int n) {
  const uint32_t r = XPowModP(n);
  uint64_t reversed = 0;
  for (int d = 0; d < 32; ++d) {
    if ((r >> d) & 1) reversed |= uint64_t{1} << (63 - d);
  }
  return reversed;
}

// {for LO, for HI}: folding forward by 512 bits (4 blocks) and by 128.
constexpr uint64_t kFold512[2] = {FoldConstant(64 + 512 - 1), FoldConstant(512 - 1)};
constexpr uint64_t kFold128[2] = {FoldConstant(64 + 128 - 1), FoldConstant(128 - 1)};

__attribute__((target("sse4.2,pclmul"))) __m128i Fold(__m128i v, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(v, k, 0x00), _mm_clmulepi64_si128(v, k, 0x11));
}

// Needs n >= 64: folds the largest multiple of 64 bytes, then finishes
// with Crc32cSse42.
__attribute__((target("sse4.2,pclmul"))) uint32_t Crc32cClmul(uint32_t state,
                                                               const unsigned char* p,
                                                               size_t n) {
  auto load = [](const unsigned char* at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  };
  // The register's start state is the same as XORing it into the first 4
  // bytes of the message and starting from 0.
  __m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
  p += 64;
  n -= 64;
  const __m128i k512 = _mm_set_epi64x(static_cast<long long>(kFold512[1]),
                                      static_cast<long long>(kFold512[0]));
  for (; n >= 64; n -= 64, p += 64) {
    x0 = _mm_xor_si128(Fold(x0, k512), load(p));
    x1 = _mm_xor_si128(Fold(x1, k512), load(p + 16));
    x2 = _mm_xor_si128(Fold(x2, k512), load(p + 32));
    x3 = _mm_xor_si128(Fold(x3, k512), load(p + 48));
  }
  const __m128i k128 = _mm_set_epi64x(static_cast<long long>(kFold128[1]),
                                      static_cast<long long>(kFold128[0]));
  __m128i v = _mm_xor_si128(Fold(x0, k128), x1);
  v = _mm_xor_si128(Fold(v, k128), x2);
  v = _mm_xor_si128(Fold(v, k128), x3);
  unsigned char last[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(last), v);
  return Crc32cSse42(Crc32cSse42(0, last, sizeof(last)), p, n);
}

// What the CPU offers the CRC-32C paths, asked once.
struct CrcCpu {
  bool sse42;
  bool clmul;
};

const CrcCpu& GetCrcCpu() {
  static const CrcCpu cpu = [] {
    __builtin_cpu_init();
    return CrcCpu{__builtin_cpu_supports("sse4.2") != 0, __builtin_cpu_supports("pclmul") != 0};
  }();
  return cpu;
}

// Inputs shorter than this go through the crc32 chain alone.
constexpr size_t kClmulMinBytes = 256;
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
  const CrcCpu& cpu = GetCrcCpu();
  if (cpu.sse42) {
    state_ = size >= kClmulMinBytes && cpu.clmul ? Crc32cClmul(state_, bytes, size)
                                                 : Crc32cSse42(state_, bytes, size);
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
