// Fuzz target: bytes -> stream_executor::host::CheckHostSharedObject, the
// ELF check that stands between an artifact's host shared object and
// dlopen. It reads hostile bytes, so any input may be refused, but only with
// InvalidArgument, and none may crash, hang, read out of bounds or trip a
// sanitizer. Each input is checked twice: without an export list (as
// HostKernelModule::Load does) and with the compiler's usual kernel names
// (as the artifact load does). Nothing is ever dlopened.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "absl/strings/string_view.h"
#include "xla/stream_executor/host/host_object_check.h"

namespace {

void Expect(const absl::Status& status) {
  if (status.ok() || status.code() == absl::StatusCode::kInvalidArgument) return;
  fprintf(stderr, "host_object_check_fuzzer: %s, expected OK or InvalidArgument\n",
          status.ToString().c_str());
  abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto* const kKernels =
      new std::set<std::string, std::less<>>{"xla_fusion", "xla_fusion_1", "xla_fusion_2"};
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  Expect(stream_executor::host::CheckHostSharedObject(bytes, "fuzz input"));
  stream_executor::host::HostObjectRules rules;
  rules.allowed_exports = kKernels;
  Expect(stream_executor::host::CheckHostSharedObject(bytes, "fuzz input", rules));
  return 0;
}
