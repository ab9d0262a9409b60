// Small helpers shared by the HLO passes: side-effect queries, unique naming,
// constant inspection and instruction replacement.
//
// These are free functions over the IR (xla/hlo/ir) so that the IR stays
// small; a helper that proves generally useful can move into the IR later.
// Pure queries are thread-safe on a module nobody mutates; the mutating
// helpers follow the IR's rules (one mutator at a time).
#ifndef XLA_HLO_TRANSFORMS_HLO_UTIL_H_
#define XLA_HLO_TRANSFORMS_HLO_UTIL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"

namespace xla {

// True when an opcode has an effect beyond its result (I/O, collectives,
// tokens, non-deterministic random numbers, async pairs), so passes must not
// remove, merge, fold or move it. A custom call is side-effecting only with
// custom_call_has_side_effect=true; see HasSideEffect.
bool IsSideEffectingOpcode(HloOpcode opcode);

// True for the random-number opcodes (rng, rng-bit-generator,
// rng-get-and-update-state): never constant-folded or merged.
bool IsRngOpcode(HloOpcode opcode);

// True when `instr` itself has a side effect (IsSideEffectingOpcode, or a
// custom call with custom_call_has_side_effect=true), or when a computation
// it calls (transitively) contains such an instruction.
bool HasSideEffect(const HloInstruction& instr);

// True when `instr` is some instruction's control predecessor or has control
// predecessors itself: such instructions are left alone by merging passes.
bool HasControlEdges(const HloInstruction& instr);

// Every instruction of `computation` that is some instruction's control
// predecessor (to answer HasControlEdges for many instructions at once).
absl::flat_hash_set<const HloInstruction*> ControlPredecessorSet(const HloComputation& computation);

// Hands out instruction names that are unique within one computation. Reads
// the existing names once (UniqueInstructionName rereads them per call).
// Names handed out are remembered. Not thread-safe.
class NameUniquer {
 public:
  explicit NameUniquer(const HloComputation& computation);
  // `base` if unused, otherwise `base.N` for the smallest free N.
  std::string Unique(const std::string& base);

 private:
  absl::flat_hash_set<std::string> used_;
};

// Makes every use of `old` use `replacement`, then removes `old` when
// nothing else keeps it (control edges). Fails, changing nothing, when the
// shapes are incompatible (the message names both instructions).
absl::Status ReplaceInstruction(HloInstruction* old, HloInstruction* replacement);

// The literal behind a constant whose elements all have the same bits, or
// behind broadcast(constant) of such a literal; nullptr otherwise (also for
// elided and tuple constants). The literal's element 0 is the value.
const Literal* UniformConstant(const HloInstruction& instr);

// True when `instr` is a uniform constant (see UniformConstant) of an
// integer or float type whose value equals `value`. For floats, `value`
// zero matches only the zero of the same sign (-0.0 vs +0.0).
bool IsUniformConstantEqualTo(const HloInstruction& instr, double value);

// A scalar constant of `type` holding `value` (rounded/wrapped to the type).
std::unique_ptr<HloInstruction> MakeScalarConstant(PrimitiveType type, double value,
                                                   std::string name);

// Adds `broadcast(scalar)` of `shape` to `computation` (or returns `scalar`
// when `shape` is a scalar shape). `scalar` must be a scalar of `shape`'s
// element type in `computation`.
HloInstruction* AddBroadcastOfScalar(HloComputation* computation, NameUniquer* names,
                                     HloInstruction* scalar, const Shape& shape);

// Number of elements of an array shape; 0 for non-arrays and on overflow.
int64_t ElementCountOrZero(const Shape& shape);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_HLO_UTIL_H_
