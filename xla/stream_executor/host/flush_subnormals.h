// ScopedFlushSubnormals: while alive, the calling thread's SSE/AVX floating
// point unit treats subnormal f32 / f64 inputs as zero (MXCSR DAZ) and
// writes zero instead of a subnormal result (MXCSR FTZ); the destructor puts
// the thread's previous MXCSR back. XLA:CPU runs its programs this way
// (TensorFlow's convention); the host GEMM uses it around each block, since
// on Intel cores every multiply-add that meets a subnormal takes a microcode
// assist of about 100 cycles: a softmax's probabilities, 15% of them
// subnormal, made an attention's P x V product 40x slower (docs/perf.md,
// issue 27, "Subnormals in the host GEMM").
//
// x87 arithmetic (long double) is not affected. On other architectures it
// does nothing (SubnormalsFlushed() then stays false).
//
// Thread-safety: changes only the calling thread's MXCSR; objects must be
// destroyed on the thread, and in the reverse order, of their construction.
// A thread started inside the scope inherits the setting for good (Linux
// copies MXCSR into new threads): start none there. Never fails.
#ifndef XLA_STREAM_EXECUTOR_HOST_FLUSH_SUBNORMALS_H_
#define XLA_STREAM_EXECUTOR_HOST_FLUSH_SUBNORMALS_H_

#include <cstdint>

namespace stream_executor::host {

class ScopedFlushSubnormals {
 public:
  // Sets DAZ and FTZ on the calling thread (a no-op when both are set).
  ScopedFlushSubnormals();
  // Restores the MXCSR found by the constructor.
  ~ScopedFlushSubnormals();

  ScopedFlushSubnormals(const ScopedFlushSubnormals&) = delete;
  ScopedFlushSubnormals& operator=(const ScopedFlushSubnormals&) = delete;

 private:
  uint32_t saved_ = 0;
  bool changed_ = false;
};

// Whether the calling thread now flushes subnormal inputs and results to
// zero (both DAZ and FTZ set). Thread-safe; never fails.
bool SubnormalsFlushed();

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_FLUSH_SUBNORMALS_H_
