// Thunk emission of `rng-get-and-update-state` (issue 28) with constructs
// every runtime already runs: a constant allocation and a kernel.
//
// XLA keeps one 128-bit RNG state per executable and device, starting at
// 0x7012395; each rng-get-and-update-state returns it as u64[2] (low word
// first) and adds its `delta`. Here the state is a 16-byte constant
// allocation that thunk emission adds to the artifact (one per program,
// shared by every such instruction, in any computation), and each
// instruction becomes a one-thread kernel that reads it into the result and
// advances it in place (codegen/rng_state_ir.h). The runtime uploads a
// constant once per device when it initializes the executable and binds the
// same device copy to every run, so the state lives exactly as long as XLA's
// and is per device; a freshly loaded artifact starts again at 0x7012395.
// Why this is a SAFE change under docs/aot_compatibility.md and what it
// relies on: docs/architecture.md, "rng-get-and-update-state".
//
// Thread-safety: none (used by one thunk emitter).
#ifndef XLA_BACKENDS_GPU_COMPILER_RNG_STATE_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_RNG_STATE_EMITTER_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"

namespace xla::gpu {

// XLA's initial RNG state (the low word; the high word is 0).
inline constexpr uint64_t kRngStateInitialValue = 0x7012395;

// Appends the state's constant allocation (u64[2] {kRngStateInitialValue,
// 0}) and its constant to `payload` and returns its slice. Call once per
// program, after the buffer assignment's allocations were written.
BufferSlice AddRngStateAllocation(GpuExecutablePayloadProto* payload);

// A scratch module holding one kLoop fusion whose single operand is the
// u64[2] state and whose fused root is a copy of `instr` (the form the
// fusion emitters give a rng_state kernel). Errors: InvalidArgument when
// `instr` is not a rng-get-and-update-state.
struct RngStateFusion {
  std::unique_ptr<HloModule> module;
  HloInstruction* fusion = nullptr;  // owned by `module`
};
absl::StatusOr<RngStateFusion> MakeRngStateFusion(const HloInstruction& instr);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_RNG_STATE_EMITTER_H_
