// A host kernel module with data relocations, as a kernel table in data
// would have: R_X86_64_RELATIVE for the module's own hidden function and
// R_X86_64_64 for its exported kernels (DT_RELA, DT_RELACOUNT). Accepted.
#include <cstdint>

using Kernel = void (*)(void* const*, int64_t, int64_t, int64_t);

static void Helper(void* const*, int64_t, int64_t, int64_t) {}

extern "C" void xla_fusion(void* const*, int64_t, int64_t, int64_t) {}
extern "C" void xla_fusion_1(void* const*, int64_t, int64_t, int64_t) {}

// Kept (used) but not exported (static).
__attribute__((used)) static Kernel const kTable[] = {Helper, Helper, xla_fusion, xla_fusion_1};
