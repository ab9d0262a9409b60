#include "xla/jit/fingerprint.h"

#include <cstdio>

namespace xla::jit {
namespace {

constexpr unsigned __int128 MakeU128(uint64_t high, uint64_t low) {
  return (static_cast<unsigned __int128>(high) << 64) | low;
}

constexpr unsigned __int128 kOffsetBasis = MakeU128(0x6c62272e07bb0142ULL, 0x62b821756295c58dULL);
constexpr unsigned __int128 kPrime = MakeU128(0x0000000001000000ULL, 0x000000000000013bULL);

}  // namespace

std::string Fingerprint128::ToHex() const {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return std::string(buf, 32);
}

Fingerprinter::Fingerprinter() : state_(kOffsetBasis) {}

void Fingerprinter::Mix(const void* data, size_t size) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    state_ ^= p[i];
    state_ *= kPrime;
  }
}

Fingerprinter& Fingerprinter::Add(absl::string_view field) {
  AddInt(static_cast<int64_t>(field.size()));
  Mix(field.data(), field.size());
  return *this;
}

Fingerprinter& Fingerprinter::Add(const Fingerprint128& f) {
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(f.high >> (56 - 8 * i));
    bytes[8 + i] = static_cast<unsigned char>(f.low >> (56 - 8 * i));
  }
  Mix(bytes, sizeof(bytes));
  return *this;
}

Fingerprinter& Fingerprinter::AddInt(int64_t v) {
  // Little-endian regardless of the host, so fingerprints are portable.
  unsigned char bytes[8];
  uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(u >> (8 * i));
  Mix(bytes, sizeof(bytes));
  return *this;
}

Fingerprint128 Fingerprinter::Finish() const {
  return Fingerprint128{static_cast<uint64_t>(state_ >> 64), static_cast<uint64_t>(state_)};
}

Fingerprint128 Fnv1a128(absl::string_view bytes) {
  Fingerprinter f;
  f.Mix(bytes.data(), bytes.size());
  return f.Finish();
}

Fingerprint128 FingerprintOf(absl::string_view bytes) { return Fingerprinter().Add(bytes).Finish(); }

}  // namespace xla::jit
