// CumulativeScanRewriter: rewrites cumulative reductions (what jax emits for
// cumsum, cumprod, cummax, cummin and logcumsumexp) into a blocked parallel
// prefix scan made of ops every target already runs well.
//
// A cumulative reduction is a single-operand `reduce-window(x, init)` whose
// window spans one whole dimension d of length n (size=n, stride 1, pad
// n-1 on one side and 0 on the other, no dilation) and is 1 everywhere
// else. Each output element then reduces up to n inputs: O(n^2) work, which
// the kernels emitted per output element pay in full (a cummax of 512x1024
// took 1.6 s on the host where XLA:CPU takes 4.5 ms).
//
// For n > max_direct_length, with b = block and m = ceil(n / b):
//
//   xp     = pad(x, init) to m*b elements along d (high side)
//   xr     = reshape(xp): d split into [m, b]
//   inner  = reduce-window(xr, init): the same cumulative window over b
//            (a scan within each block: b steps per element)
//   totals = reshape(slice(inner)): each block's last element (first, for
//            a reverse scan), [.., m, ..]
//   prefix = reduce-window(totals, init): the cumulative window over m,
//            rewritten again by this pass while m > max_direct_length
//   excl   = slice(pad(prefix, init)): shifted by one block (exclusive)
//   out    = slice(reshape(f(broadcast(excl), inner))) back to [.., n, ..]
//
// where f is the reduction computation applied element-wise (its scalar
// body lifted to arrays, as MapInliner does). Work is O(n * b) instead of
// O(n^2), in about 5 kernels per level after fusion.
//
// Like XLA's own rewrite, this relies on what reduce-window's semantics
// already require of the reduction: it is associative and `init` is its
// identity (the window's padding is init, combined any number of times).
// The order of the operands of f is kept (earlier elements first), so a
// non-commutative but associative reduction is still correct.
//
// Left alone: variadic reduce-windows, windows that are not cumulative,
// reductions whose body is not scalar element-wise code (lifting needs it),
// n <= max_direct_length, and instructions with control edges. Target
// independent: the result is plain HLO, correct for host and NVPTX alike.
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_CUMULATIVE_SCAN_REWRITER_H_
#define XLA_HLO_TRANSFORMS_CUMULATIVE_SCAN_REWRITER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

struct CumulativeScanOptions {
  // Elements per block. 8 measured best on the host (docs/perf.md, issue
  // 27): the 8-wide window kernels are cheap, 16-wide ones were 10-25x
  // slower per element.
  int64_t block = 8;
  // Scans this long or shorter stay one reduce-window.
  int64_t max_direct_length = 16;
};

class CumulativeScanRewriter : public HloPass {
 public:
  explicit CumulativeScanRewriter(CumulativeScanOptions options = {}) : options_(options) {}
  absl::string_view name() const override { return "cumulative-scan-rewriter"; }
  // Fails only when options.block < 2.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  CumulativeScanOptions options_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_CUMULATIVE_SCAN_REWRITER_H_
