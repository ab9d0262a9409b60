// AsyncCopyConverter: turns each `copy-done(copy-start(x))` pair into a
// plain `copy(x)`.
//
// XLA emits copy-start/copy-done for prefetches between memory spaces
// (cross-program prefetch, memory-space assignment). This compiler has one
// memory space per device, so the pair is an ordinary copy; the runtime's
// copy thunk (or an alias, when buffer assignment shares the slices) runs
// it. A copy-done whose copy-start has other users, or either half with
// control edges, is left alone. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_ASYNC_COPY_CONVERTER_H_
#define XLA_HLO_TRANSFORMS_ASYNC_COPY_CONVERTER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class AsyncCopyConverter : public HloPass {
 public:
  absl::string_view name() const override { return "async-copy-converter"; }
  // Fails only when a replacement's shape does not match (malformed IR),
  // naming the instructions.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_ASYNC_COPY_CONVERTER_H_
