// HostFftPlan: the host platform's FFT (fft.h semantics), on Eigen's FFT
// module (unsupported/Eigen/FFT with its default kissfft back end: mixed
// radix 2, 3, 4, 5 and a generic butterfly for other prime factors, so any
// length works, at O(n * p) per prime factor p; inverse transforms scaled
// by 1/n). Chosen over FFTW, which is GPL (a serving binary linking the
// runtime would have to be GPL too), and over pocketfft, which Debian 12
// does not package; Eigen is MPL-2.0 and already a dependency.
//
// Complex passes of a length with no prime factor above 5 (384, 1000,
// 3072, 4096: every complex axis except a real transform's last) skip
// Eigen: up to kLaneFftMaxLength they run LaneFft (host_fft_kernels.h),
// which transforms blocks of 8 (c64) or 4 (c128) lines at once with SIMD
// across the lines (mixed radix 4, 2, 3, 5 Stockham passes); longer ones
// run FourStepFft (host_fft_four_step.h: n = n1 n2 as two rounds of
// LaneFft blocks with a twiddle multiply between, so the working set stays
// in cache). An RFFT whose length n is even with a half of that kind runs
// its last pass on the same transforms: each real line read as n/2 complex
// points (even and odd samples), transformed at length n/2, and split into
// the n/2 + 1 coefficients in place while the block is in cache. An IRFFT
// of such a length runs its last pass the other way round: the n/2 + 1
// coefficients merged into n/2 complex points in the output row
// (MergeHalfSpectrum), then the inverse half-length transform in place
// there. Complex passes whose length has a prime factor above 5 (a prime
// such as 1009) run on BluesteinFft (host_fft_bluestein.h: a chirp
// convolution over LaneFft or FourStepFft) instead of kissfft's O(n p)
// generic butterfly. Eigen runs what is left: a real transform's last pass
// of odd length or of an even length whose half has a prime factor above
// 5, and lengths past kFourStepMaxLength (2^28 points, or a Bluestein
// padding past it).
//
// A multi-dimensional transform runs one pass per dimension: the last
// (contiguous) one straight from the input lines, the others line by line
// through a scratch line, in place on the output (an IRFFT: on a copy of its
// input in the workspace, then the complex-to-real pass into the output).
// Each pass cuts its lines into ranges run on the caller and the launch
// pool (ParallelFor) once the pass has at least kHostFftParallelElements
// elements. A FourStepFft pass with fewer blocks of lines than threads (a
// batch of one long line) instead splits each line's two rounds (its
// column transforms, then its row transforms) into ranges over the pool.
//
// Plans: Create makes one LaneFft, FourStepFft or BluesteinFft (twiddle
// tables) per axis that takes one, shared read-only, and `engines` Eigen
// FFT objects with every twiddle table the config needs (an Eigen FFT
// object caches its tables and is not thread-safe), plus line and block
// scratch. A range borrows an
// idle engine and returns it, so concurrent Executes of one plan never share one; when
// more ranges run at once than engines exist, a new engine is made then
// (allocation, once).
//
// Thread-safety: Execute may be called concurrently from any threads.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_FFT_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_FFT_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "xla/stream_executor/fft.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {

// Passes with fewer elements stay on the calling thread.
inline constexpr int64_t kHostFftParallelElements = int64_t{1} << 15;

class HostFftPlan : public FftPlan {
 public:
  // A plan for `config` with `engines` (at least 1) engines made up front.
  // InvalidArgument when the config fails CheckFftConfig.
  static absl::StatusOr<std::unique_ptr<HostFftPlan>> Create(const FftConfig& config,
                                                             int engines);

  // Computes the FFT from `input` into `output` with `workspace` as
  // scratch (FftWorkspaceBytes). The caller has checked the buffers
  // (CheckFftBuffers). Null `pool`: everything on the caller.
  virtual void Execute(const void* input, void* output, void* workspace,
                       HostThreadPool* pool) const = 0;
  // Engines made so far (for tests).
  virtual int64_t num_engines() const = 0;
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_FFT_H_
