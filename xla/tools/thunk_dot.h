// Graphviz (dot) view of a loaded program: the thunk tree and the buffers
// each thunk touches.
//
//   * one node per thunk ("t<N>", N in depth-first order), labelled with
//     its kind, profile annotation and stream; a thunk holding nested thunks
//     (sequential, while, conditional, async start) becomes a cluster around
//     itself and its children, and each nested list (condition, body,
//     branches[i], ...) a sub-cluster labelled by its field;
//   * one node per allocation ("a<I>", box), labelled with index, size and
//     kind (parameter N / constant N / output / temp);
//   * edges between thunks and the allocations of the slices they hold,
//     found generically by walking the thunk's proto: allocation -> thunk
//     for fields a thunk reads (lhs, rhs, source, operands, predicate,
//     branch_index), thunk -> allocation for fields it writes (output,
//     destination, results), and a dashed two-way edge labelled with the
//     field for others (kernel args, whose direction the artifact does not
//     record).
//
// Thread-safety: pure function (thread-safe).
#ifndef XLA_TOOLS_THUNK_DOT_H_
#define XLA_TOOLS_THUNK_DOT_H_

#include <string>

#include "xla/backends/gpu/runtime/program.h"

namespace xla::cli {

// The dot text of `program` (a digraph named after the module).
std::string ThunkDot(const gpu::Program& program);

}  // namespace xla::cli

#endif  // XLA_TOOLS_THUNK_DOT_H_
