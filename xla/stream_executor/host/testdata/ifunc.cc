// A host kernel module whose kernel is an IFUNC (STT_GNU_IFUNC): ld.so runs
// the resolver while relocating, before any kernel is asked for.
#include <cstdint>

extern "C" {
using Kernel = void (*)(void* const*, int64_t, int64_t, int64_t);
static void Real(void* const*, int64_t, int64_t, int64_t) {}
static Kernel Resolve() { return Real; }
void xla_fusion(void* const*, int64_t, int64_t, int64_t) __attribute__((ifunc("Resolve")));
}
