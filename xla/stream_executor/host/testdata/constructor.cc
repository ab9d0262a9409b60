// A host kernel module with a constructor: what an attacker who can write an
// artifact would use to run code in the serving process at dlopen. The
// constructor writes the file $XLA_HOSTILE_MARKER (when set), so a test can
// tell whether it ran.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

__attribute__((constructor)) static void WriteMarker() {
  const char* path = std::getenv("XLA_HOSTILE_MARKER");
  if (path == nullptr) return;
  if (FILE* f = std::fopen(path, "w")) {
    std::fputs("the constructor ran\n", f);
    std::fclose(f);
  }
}

extern "C" void xla_fusion(void* const* buffers, int64_t num_buffers, int64_t begin, int64_t end) {}
