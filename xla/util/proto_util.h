// Protobuf helpers shared by the compiler and the runtime.
#ifndef XLA_UTIL_PROTO_UTIL_H_
#define XLA_UTIL_PROTO_UTIL_H_

#include <string>

#include "google/protobuf/message_lite.h"

namespace xla {

// Serializes `message` with deterministic serialization, so equal messages
// give equal bytes (what round-trip tests, checksums and fingerprints
// compare). Thread-safe for concurrent calls on distinct or const messages.
std::string SerializeDeterministically(const google::protobuf::MessageLite& message);

}  // namespace xla

#endif  // XLA_UTIL_PROTO_UTIL_H_
