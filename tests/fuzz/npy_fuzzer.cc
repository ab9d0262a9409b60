// Fuzz target: bytes -> xla::ParseNpy (the `.npy` reader `xla_aot run` and
// `xla_aot eval` use for --input). Any input may be rejected; none may
// crash or read out of bounds. A file that parses must serialize again and
// that serialization must parse to an equal literal (round-trip oracle).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "xla/types/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto literal = xla::ParseNpy(bytes, "fuzz.npy");
  if (!literal.ok()) return 0;
  auto serialized = xla::SerializeNpy(*literal);
  if (!serialized.ok()) return 0;  // e.g. a type without a .npy travel form
  auto again = xla::ParseNpy(*serialized, "fuzz.npy (re-serialized)");
  if (!again.ok() || !(*again == *literal)) {
    fprintf(stderr, "npy_fuzzer: round trip failed: %s\n",
            again.ok() ? "literal differs" : std::string(again.status().message()).c_str());
    abort();
  }
  return 0;
}
