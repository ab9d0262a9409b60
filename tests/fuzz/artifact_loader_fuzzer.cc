// Fuzz target: bytes -> xla::aot::Executable::LoadFromBytes, the whole load
// path (protobuf parse with limits, header, checksum, validation, thunk
// deserialization). Nothing is initialized or executed. Any input may be
// rejected, but only with InvalidArgument; none may crash, hang or trip a
// sanitizer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "xla/aot/executable.h"

namespace {

// Protobuf logs each invalid UTF-8 string it parses; at thousands of
// inputs a second that is only noise (and slows the fuzzer down).
void QuietProtobufLog(google::protobuf::LogLevel, const char*, int, const std::string&) {}
[[maybe_unused]] const bool kQuiet = (google::protobuf::SetLogHandler(&QuietProtobufLog), true);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto exe = xla::aot::Executable::LoadFromBytes(bytes);
  // A malformed artifact is InvalidArgument; one the trust policy refuses
  // (a signature by a key nobody trusts) is PermissionDenied.
  if (!exe.ok() && exe.status().code() != absl::StatusCode::kInvalidArgument &&
      exe.status().code() != absl::StatusCode::kPermissionDenied) {
    fprintf(stderr, "artifact_loader_fuzzer: load failed with %s, expected InvalidArgument or PermissionDenied\n",
            exe.status().ToString().c_str());
    abort();
  }
  return 0;
}
