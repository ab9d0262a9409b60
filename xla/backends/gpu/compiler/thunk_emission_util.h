// Small pieces that both halves of thunk emission use: thunk_emitter.cc
// (computations, kernels, GEMMs, control flow) and collective_emitter.cc
// (collectives and their async pairs). Internal to the compiler back end.
//
// Thread-safety: the functions are thread-compatible; they only read the
// module and the buffer assignment and write the given thunk list.
#ifndef XLA_BACKENDS_GPU_COMPILER_THUNK_EMISSION_UTIL_H_
#define XLA_BACKENDS_GPU_COMPILER_THUNK_EMISSION_UTIL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"

namespace xla::gpu {

using Thunks = google::protobuf::RepeatedPtrField<ThunkProto>;

// `a` followed by `b`.
ShapeIndex Concat(const ShapeIndex& a, const ShapeIndex& b);

// Unimplemented "thunk emission: instruction '<name>' (opcode <op>): <why>".
absl::Status Unimplemented(const HloInstruction& instr, absl::string_view why);

// The artifact's form of a buffer slice.
BufferSliceProto SliceToProto(const xla::BufferSlice& slice);

// Appends a thunk annotated with `instr`'s name to `out`.
ThunkProto* AddThunk(const HloInstruction& instr, Thunks* out);

// Makes leaf `dst_index` of `dst` hold leaf `src_index` of `src` (every
// array leaf below them): nothing where the slices are the same, else a
// copy thunk annotated with `annotate`. Errors: a shape index outside
// `dst`'s shape, slices of different sizes, and GetSlice's errors.
absl::Status AliasOrCopy(const BufferAssignment& assignment, const HloInstruction& annotate,
                         const HloInstruction* src, const ShapeIndex& src_index,
                         const HloInstruction* dst, const ShapeIndex& dst_index, Thunks* out);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_THUNK_EMISSION_UTIL_H_
