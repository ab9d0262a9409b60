// A host kernel module that exports a function besides its kernel.
#include <cstdint>

extern "C" int xla_hostile_helper(int x) { return x + 1; }

extern "C" void xla_fusion(void* const* buffers, int64_t num_buffers, int64_t begin, int64_t end) {}
