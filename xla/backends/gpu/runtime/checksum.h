// The artifact's payload checksum: 64-bit FNV-1a over the deterministic
// serialization of GpuExecutablePayloadProto, computed while serializing
// into a fixed buffer (the payload is never serialized into one big
// string, so checking a checksum does not copy the payload).
//
// Thread-safety: pure functions; Fnv1a64 objects are thread-compatible.
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

// FNV-1a of the deterministic serialization of `payload`.
uint64_t PayloadChecksum(const GpuExecutablePayloadProto& payload);

// Sets the header's checksum algorithm and checksum for the current
// payload (what a producer does last, and what tests do after editing an
// artifact).
void SealArtifact(GpuExecutableProto* artifact);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_CHECKSUM_H_
