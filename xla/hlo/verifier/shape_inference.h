// Shape inference: the result shape of one HLO instruction from its opcode,
// its operands' shapes, its typed attributes and its called computations.
//
// Three kinds of opcodes:
//
// * Fully inferred: the result follows from the operands alone (add, slice,
//   reduce, gather, while, ...). The declared shape is ignored.
// * Declared element type (see ResultTypeIsDeclared): the dimensions are
//   inferred, the element type is taken from the declared shape when there is
//   one: convert, bitcast-convert, stochastic-convert, dot, convolution,
//   ragged-dot, scaled-dot. Without a declared shape, dot, convolution and
//   ragged-dot fall back to the lhs element type; the others fail.
// * Declared shape (see ResultShapeIsDeclared): the result cannot be derived
//   from the operands (broadcast, reshape, iota, custom-call, infeed, recv,
//   rng, ...). InferShape checks what it can against the operands and returns
//   the declared shape, or an error when there is none.
//
// Some collectives need the group size (all-gather, reduce-scatter); when
// `replica_groups={}` or the attribute is absent the size is unknown and the
// declared shape is accepted after checking the dimensions that are known.
//
// Layouts are never inferred: every result carries the default row-major
// layout (Shape::SetDefaultLayout). Compare results with ShapesCompatible.
#ifndef XLA_HLO_VERIFIER_SHAPE_INFERENCE_H_
#define XLA_HLO_VERIFIER_SHAPE_INFERENCE_H_

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/types/shape.h"

namespace xla {

// Computes the result shape of `instr`. `shape_declared` says whether
// instr.shape() was written by the producer (the parser passes false for an
// instruction whose shape was omitted in the text; instr.shape() is then not
// read at all).
//
// Fails with InvalidArgumentError, whose message starts with the instruction
// name (`add.3: operand shapes f32[4] and f32[5] differ`), when the operand
// count, an operand shape, an attribute or a called computation is invalid
// for the opcode, or when the result needs a declared shape and there is
// none. Reads only `instr`, its operands and its called computations; safe to
// call concurrently on a module that nobody mutates.
absl::StatusOr<Shape> InferShape(const HloInstruction& instr, bool shape_declared = true);

// True for opcodes whose result element type comes from the declared shape
// while the dimensions are inferred (convert, dot, convolution, ...). Pure.
bool ResultTypeIsDeclared(HloOpcode opcode);

// True for opcodes whose whole result shape comes from the declared shape
// (parameter, constant, broadcast, reshape, iota, custom-call, infeed, recv,
// rng, rng-bit-generator, bitcast, dynamic-reshape, ...). Pure.
bool ResultShapeIsDeclared(HloOpcode opcode);

}  // namespace xla

#endif  // XLA_HLO_VERIFIER_SHAPE_INFERENCE_H_
