// The artifact's payload checksum over the deterministic serialization of
// GpuExecutablePayloadProto, computed while serializing into a fixed
// buffer (the payload is never serialized into one big string, so checking
// a checksum does not copy the payload). Two algorithms
// (ChecksumAlgorithmProto): 64-bit FNV-1a (every artifact until stage 2 of
// `payload_checksum.crc32c`; a byte at a time, about 1.5 ns per byte) and
// CRC-32C (from 256 bytes on, 64-byte rounds folded with PCLMUL carry-less
// products where the CPU has it, about 10 GB/s; the SSE4.2 crc32
// instruction, 8 bytes at a time, for the rest and where PCLMUL is missing;
// a table without SSE4.2; the same value every way).
//
// Thread-safety: pure functions; hasher objects are thread-compatible.
#ifndef XLA_BACKENDS_GPU_RUNTIME_CHECKSUM_H_
#define XLA_BACKENDS_GPU_RUNTIME_CHECKSUM_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Incremental 64-bit FNV-1a.
class Fnv1a64 {
 public:
  static constexpr uint64_t kOffsetBasis = 14695981039346656037ull;
  static constexpr uint64_t kPrime = 1099511628211ull;

  void Update(const void* data, size_t size);
  void Update(absl::string_view bytes) { Update(bytes.data(), bytes.size()); }
  uint64_t digest() const { return state_; }

 private:
  uint64_t state_ = kOffsetBasis;
};

// Incremental CRC-32C (Castagnoli polynomial, reflected, initial value and
// final xor 0xFFFFFFFF: CRC-32C("123456789") = 0xE3069283).
class Crc32c {
 public:
  void Update(const void* data, size_t size);
  void Update(absl::string_view bytes) { Update(bytes.data(), bytes.size()); }
  uint32_t digest() const { return ~state_; }

 private:
  uint32_t state_ = 0xFFFFFFFFu;
};

// CRC-32C with the byte table only (what CPUs without SSE4.2 run), for
// tests of the two implementations against each other.
uint32_t Crc32cTableForTesting(absl::string_view bytes);

// Whether this runtime computes `algorithm` (FNV1A_64 or CRC32C).
bool IsSupportedChecksum(ChecksumAlgorithmProto algorithm);

// The checksum of `algorithm` over bytes fed incrementally, as stored in
// header.payload_checksum (CRC-32C in the low 32 bits). An unsupported
// algorithm digests to 0 (callers check IsSupportedChecksum first).
class PayloadHasher {
 public:
  explicit PayloadHasher(ChecksumAlgorithmProto algorithm) : algorithm_(algorithm) {}
  void Update(const void* data, size_t size);
  uint64_t digest() const;

 private:
  ChecksumAlgorithmProto algorithm_;
  Fnv1a64 fnv_;
  Crc32c crc_;
};

// The `algorithm` checksum of the deterministic serialization of `payload`.
uint64_t PayloadChecksum(const GpuExecutablePayloadProto& payload,
                         ChecksumAlgorithmProto algorithm = CHECKSUM_ALGORITHM_FNV1A_64);

// Seals the artifact for its current payload: keeps the header's checksum
// algorithm when it is CRC32C (a producer that chose it), else sets
// FNV1A_64, then sets the checksum (what a producer does last, and what
// tests do after editing an artifact).
void SealArtifact(GpuExecutableProto* artifact);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_CHECKSUM_H_
