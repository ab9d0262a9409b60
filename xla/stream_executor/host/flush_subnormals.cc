#include "xla/stream_executor/host/flush_subnormals.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define XLA_HOST_HAS_MXCSR 1
#endif

namespace stream_executor::host {
namespace {

#if defined(XLA_HOST_HAS_MXCSR)
// MXCSR bit 6: denormals (subnormal inputs) are zero; bit 15: flush to zero.
constexpr uint32_t kDenormalsAreZero = 1u << 6;
constexpr uint32_t kFlushToZero = 1u << 15;
constexpr uint32_t kBoth = kDenormalsAreZero | kFlushToZero;
#endif

}  // namespace

ScopedFlushSubnormals::ScopedFlushSubnormals() {
#if defined(XLA_HOST_HAS_MXCSR)
  saved_ = _mm_getcsr();
  if ((saved_ & kBoth) == kBoth) return;
  _mm_setcsr(saved_ | kBoth);
  changed_ = true;
#endif
}

ScopedFlushSubnormals::~ScopedFlushSubnormals() {
#if defined(XLA_HOST_HAS_MXCSR)
  if (changed_) _mm_setcsr(saved_);
#endif
}

bool SubnormalsFlushed() {
#if defined(XLA_HOST_HAS_MXCSR)
  return (_mm_getcsr() & kBoth) == kBoth;
#else
  return false;
#endif
}

}  // namespace stream_executor::host
