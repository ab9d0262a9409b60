// A 128-bit content fingerprint: FNV-1a with the 128-bit parameters
// (offset basis 0x6c62272e07bb014262b821756295c58d, prime 2^88 + 0x13b, as
// published by Fowler, Noll and Vo). Not cryptographic: it names cache
// entries, where an accidental collision among 2^64 entries is negligible
// and an adversary who controls the HLO already controls the code.
//
// Fields are framed (length, then bytes), so ("ab", "c") and ("a", "bc")
// differ. Stable across processes, builds and machines: the persistent cache
// names files by it.
//
// Thread-safety: Fingerprint128 is a value; a Fingerprinter is used from one
// thread at a time.
#ifndef XLA_JIT_FINGERPRINT_H_
#define XLA_JIT_FINGERPRINT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace xla::jit {

struct Fingerprint128 {
  uint64_t high = 0;
  uint64_t low = 0;

  // 32 lowercase hex digits, high half first.
  std::string ToHex() const;
  bool operator==(const Fingerprint128& o) const { return high == o.high && low == o.low; }
  bool operator!=(const Fingerprint128& o) const { return !(*this == o); }
  bool operator<(const Fingerprint128& o) const {
    return high != o.high ? high < o.high : low < o.low;
  }
};

// Hash functor for unordered containers.
struct Fingerprint128Hash {
  size_t operator()(const Fingerprint128& f) const { return static_cast<size_t>(f.low ^ f.high); }
};

// Accumulates framed fields into one fingerprint.
class Fingerprinter {
 public:
  Fingerprinter();
  // Adds one field: its length (8 bytes) and its bytes.
  Fingerprinter& Add(absl::string_view field);
  Fingerprinter& Add(const Fingerprint128& f);
  Fingerprinter& AddInt(int64_t v);
  Fingerprint128 Finish() const;
  // Adds raw bytes, unframed.
  void Mix(const void* data, size_t size);

 private:
  unsigned __int128 state_;
};

// Plain (unframed) FNV-1a 128 of `bytes`; FNV's published test vectors apply.
Fingerprint128 Fnv1a128(absl::string_view bytes);

// The fingerprint of one field (Fingerprinter().Add(bytes).Finish()).
Fingerprint128 FingerprintOf(absl::string_view bytes);

}  // namespace xla::jit

#endif  // XLA_JIT_FINGERPRINT_H_
