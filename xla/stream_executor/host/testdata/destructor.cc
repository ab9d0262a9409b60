// A host kernel module with a destructor (DT_FINI_ARRAY): code that runs at
// dlclose or exit.
#include <cstdint>

static volatile int unloaded = 0;

__attribute__((destructor)) static void Unload() { unloaded = 1; }

extern "C" void xla_fusion(void* const* buffers, int64_t num_buffers, int64_t begin, int64_t end) {}
