// The FftThunkProto of an HLO fft (stage 1 of feature "fft": emitted only
// with --emit_fft, ThunkEmitterOptions::emit_fft): everything but the
// buffer slices, from the instruction's fft_type and fft_length and its
// operand's shape.
//
//   fft_type     FFT, IFFT, RFFT, IRFFT as the attribute says
//   precision    F32 for c64 / f32 arrays, F64 for c128 / f64
//   fft_length   the attribute (1 to 3 entries)
//   input_dims   the operand's dimensions
//
// Operand and result must be row-major (layout assignment makes every
// array inside the module so); anything else, an fft_length the runtime
// refuses (an entry below 1 or above 2^30) or a 16-bit type is
// Unimplemented naming the instruction and what is wrong.
//
// FftWorkspaceBound: the bytes of scratch the thunk needs (an IRFFT's
// operand size, xla/stream_executor/fft.h), 0 for the other types.
//
// Thread-safety: pure functions.
#ifndef XLA_BACKENDS_GPU_COMPILER_FFT_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_FFT_EMITTER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

absl::StatusOr<FftThunkProto> FftThunkConfig(const HloInstruction& fft);

// `config` as FftThunkConfig made it.
int64_t FftWorkspaceBound(const FftThunkProto& config);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_FFT_EMITTER_H_
