// Thunk emission (the host target by default; any target through
// EmitThunksWithBackend and a KernelBackend): turns a module that went through the
// middle end (xla/service/middle_end.h: fused, canonical, row-major,
// scheduled, buffers assigned) into the payload of a GpuExecutableProto
// (xla/backends/gpu/runtime/executable.proto) plus one LLVM module holding
// every host kernel.
//
// Per instruction, in schedule order (entry; while conditions and bodies;
// conditional branches, recursively):
//   fusion                    kernel thunk (EmitHostFusionKernel; args are
//                             the operands' slices then the output leaves'
//                             slices; grid_x = total_blocks, block 1; no
//                             thunk when the kernel has 0 blocks)
//   lone kernel-needing op    wrapped into a one-op fusion in a scratch
//                             module (single_op_fusion.h), then as fusion
//   dot                       gemm thunk (GetGemmConfig; alpha 1, beta 0)
//   fft                       fft thunk (fft_emitter.h; an IRFFT's workspace
//                             at the end of the temp allocation) when
//                             ThunkEmitterOptions::emit_fft; else
//                             Unimplemented naming --emit_fft
//   copy                      copy thunk when operand and result layouts
//                             match, else a kernel
//   parameter, constant       nothing: their allocations hold the data
//   tuple, get-tuple-element, nothing when the buffers alias; a copy thunk
//   bitcast                   per leaf whose slices differ
//   while                     while thunk (condition, predicate, body;
//                             known_trip_count from the backend_config
//                             written by WhileLoopTripCountAnnotator)
//   conditional               conditional thunk (PRED or S32 index)
//   all-reduce, all-gather,   collective thunk (one per operand leaf) when
//   reduce-scatter,           ThunkEmitterOptions::emit_collectives; else
//   all-to-all, collective-   Unimplemented naming the op and the flag
//   permute, replica-id,
//   partition-id
//   all-reduce-start,         an async_start thunk (its own async id) whose
//   all-gather-start,         nested sequence holds the collective thunks on
//   collective-permute-start  the communication stream (kCollectiveStream,
//                             the artifact then has 2 streams); they write
//                             the start's output (element 1 of a tuple
//                             start; element 0 first gets a copy of the
//                             operand on the compute stream and is what the
//                             collective reads). The thunks scheduled before
//                             the -done run on the compute stream meanwhile.
//                             The pair is joined at once (async_done right
//                             after the start: synchronous) when something
//                             scheduled in between (nested computations
//                             included) writes the bytes the collective
//                             reads or writes, reads its result, or is a
//                             collective that runs on the compute stream
//                             (communicators match ops in arrival order)
//   *-done                    async_done joining the start's stream when the
//                             pair is asynchronous; then nothing when its
//                             buffer is the start's output, else a copy
//                             thunk; Unimplemented when its operand is not
//                             the matching -start
//   custom-call MoveToHost,   async_start on the offload stream
//   MoveToDevice              (kOffloadStream) holding a copy thunk from the
//                             operand's slice to the result's (a host-memory
//                             allocation for MoveToHost), and an async_done
//                             before the first later instruction that races
//                             with the copy, or at the computation's end
//                             (offload_emitter.h); nothing when the slices
//                             are the same
//   custom-call               custom-call thunk when the target is an FFI
//                             handler for the backend's platform (checked
//                             against its signature) or is listed in
//                             ThunkEmitterOptions::allowed_custom_calls;
//                             else Unimplemented naming it and
//                             --allow_custom_calls. Operands and results are
//                             the array leaves' slices with shapes and
//                             layouts; api_version is recorded; a typed-FFI
//                             backend_config is parsed into attributes
//                             (ffi_attribute_parser.h), any other is the
//                             opaque bytes (a quoted string unescaped)
// Anything else is Unimplemented naming
// the instruction and its opcode: no thunk is ever silently dropped.
//
// The collective rows are lowered by CollectiveEmitter
// (collective_emitter.h), the offload row by OffloadEmitter
// (offload_emitter.h); EmitThunks' kernels come from HostKernelBackend
// (host_kernel_backend.h).
//
// Kernel symbols come from KernelSymbolName over the instruction names, in
// emission order, so the same module gives the same names and bytes.
//
// Thread-safety: not thread-safe for one `kernels` module; reads `module`
// and `assignment` only.
#ifndef XLA_BACKENDS_GPU_COMPILER_THUNK_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_THUNK_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"
#include "xla/backends/gpu/compiler/collective_emitter.h"  // kCollectiveStream
#include "xla/backends/gpu/compiler/kernel_backend.h"
#include "xla/backends/gpu/compiler/kernel_timings.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/canonicalize/dot_precision.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla::gpu {

struct ThunkEmitterOptions {
  // Passed to every EmitHostFusionKernel call (noalias, alignment and
  // output_aliases_operand are filled per kernel and ignored here).
  HostEmitOptions kernel;
  // Stage 1 of the collectives rollout (feature "collectives",
  // feature_registry.cc): lower all-reduce, all-gather,
  // reduce-scatter, all-to-all (array form), collective-permute, replica-id,
  // partition-id and the -start/-done forms of all-reduce, all-gather and
  // collective-permute to CollectiveThunkProto. Off: those opcodes fail with
  // Unimplemented naming the op and `--emit_collectives`. Groups and pairs
  // are written as participant ids: replica ids with one partition, global
  // device ids (replica * num_partitions + partition) in SPMD modules.
  bool emit_collectives = false;
  // Stage 1 of the fft rollout (feature "fft", feature_registry.cc): lower
  // fft to FftThunkProto. Off: fft fails with Unimplemented naming
  // `--emit_fft`.
  bool emit_fft = false;
  // Stage 1 of the host-transfer rollout (feature "host_transfers"): lower
  // send/recv with is_host_transfer=true to host send/recv thunks
  // (send_recv_emitter.h). Off: they fail with Unimplemented naming
  // `--emit_host_transfers`.
  bool emit_host_transfers = false;
  // Custom-call targets to compile although the compiler's FFI registry
  // has no handler for them (for the platform): the runtime that loads the
  // artifact must register one (it is resolved at Initialize). Targets the
  // registry has are compiled without being listed.
  std::vector<std::string> allowed_custom_calls;
  // Fusions that would emit the same kernel share one kernel-table entry
  // (kernel_reuse.h): the kernel is emitted and compiled once and each
  // fusion keeps its own thunk. Off: one kernel per fusion, as before.
  bool reuse_kernels = true;
  // GPU targets (sm_80 and later have TF32 tensor cores): F32 dots whose
  // precision allows it (dot_precision.h, DEFAULT read as
  // f32_dot_default_precision) become GEMM thunks with allow_tf32. Off (the
  // host target): every f32 dot computes in f32.
  bool tf32_gemms = false;
  DotPrecision f32_dot_default_precision = DotPrecision::kDefault;
  // When set, called once per kernel the backend emits (a reused kernel is
  // not emitted again) with the wall time of its emission, on the emitting
  // thread (kernel_timings.h). Unset, the clock is not read.
  std::function<void(const KernelEmissionTiming& kernel)> kernel_observer;
};

// Fills `payload` (module_name, program_shape, kernels, allocations,
// constants, outputs, input_output_aliases, num_streams, thunks; not
// host_shared_object or optimized_hlo_text) and adds the kernels to
// `kernels`. `module` must be the module `schedule` and `assignment` were
// made for. Errors: Unimplemented naming the instruction and opcode for an
// instruction with no emission (sort, gather, unknown custom-call targets, ...), a dot with
// an element type the host GEMM lacks, or a tuple-shaped parameter/alias;
// errors of GetSlice/GetGemmConfig/EmitHostFusionKernel, prefixed with the
// instruction's name. On error `payload` and `kernels` are unspecified.
// Uses the host KernelBackend (kernel specs are `host_symbol`).
absl::Status EmitThunks(const HloModule& module, const HloSchedule& schedule,
                        const BufferAssignment& assignment, const ThunkEmitterOptions& options,
                        llvm::Module* kernels, GpuExecutablePayloadProto* payload);

// The same for any target: kernels come from `backend` (kernel_backend.h),
// custom calls are looked up on backend->FfiPlatform(); collectives and
// custom calls as `options` says (options.kernel is ignored). Errors as
// EmitThunks, with the backend's target named in Unimplemented messages.
absl::Status EmitThunksWithBackend(const HloModule& module, const HloSchedule& schedule,
                                   const BufferAssignment& assignment, KernelBackend* backend,
                                   GpuExecutablePayloadProto* payload,
                                   const ThunkEmitterOptions& options);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_THUNK_EMITTER_H_
