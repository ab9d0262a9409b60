// A host kernel module with thread-local storage (PT_TLS).
#include <cstdint>

thread_local int64_t calls = 0;

extern "C" void xla_fusion(void* const* buffers, int64_t num_buffers, int64_t begin, int64_t end) {
  calls += end - begin;
}
