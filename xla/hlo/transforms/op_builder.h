// OpBuilder: adds array instructions to one computation with their result
// shapes worked out, for expander passes that rewrite one op into many
// (CholeskyExpander, ...). Every instruction gets a name unique in the
// computation, from the given base. Operands must belong to the same
// computation and be arrays of the shapes each method documents; the
// builder does not verify (run the verifier after the pass, as the
// pipeline does in tests).
//
// Not thread-safe; the computation must outlive the builder.
#ifndef XLA_HLO_TRANSFORMS_OP_BUILDER_H_
#define XLA_HLO_TRANSFORMS_OP_BUILDER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {

class OpBuilder {
 public:
  // Builds into `computation` (names are made unique against its current
  // instructions and every one this builder adds).
  explicit OpBuilder(HloComputation* computation);

  HloComputation* computation() const { return computation_; }

  // Any instruction, with the given shape and no attributes.
  HloInstruction* Op(HloOpcode opcode, Shape shape, std::vector<HloInstruction*> operands,
                     const std::string& name);
  // Parameter `number` of the computation.
  HloInstruction* Parameter(int64_t number, Shape shape, const std::string& name);
  // A scalar constant of `type` (value rounded to the type; the real part
  // for a complex type).
  HloInstruction* Scalar(PrimitiveType type, double value, const std::string& name);
  // Elementwise op whose result has `a`'s shape (add, multiply, sqrt, ...).
  HloInstruction* Unary(HloOpcode opcode, HloInstruction* a, const std::string& name);
  HloInstruction* Binary(HloOpcode opcode, HloInstruction* a, HloInstruction* b,
                         const std::string& name);
  // compare(a, b), direction EQ/NE/LT/LE/GT/GE: pred of `a`'s dimensions.
  HloInstruction* Compare(HloInstruction* a, HloInstruction* b, const std::string& direction,
                          const std::string& name);
  // select(pred, on_true, on_false): `on_true`'s shape.
  HloInstruction* Select(HloInstruction* pred, HloInstruction* on_true, HloInstruction* on_false,
                         const std::string& name);
  // real(a) for a complex array `a` (its component type); `a` itself for
  // a real one.
  HloInstruction* RealPart(HloInstruction* a, const std::string& name);
  // The complex conjugate of `a`, complex(real(a), -imag(a)); `a` itself
  // for a real array.
  HloInstruction* Conjugate(HloInstruction* a, const std::string& name);
  // convert to `type` (returns `a` when it has that type already).
  HloInstruction* Convert(HloInstruction* a, PrimitiveType type, const std::string& name);
  HloInstruction* Reshape(HloInstruction* a, std::vector<int64_t> dims, const std::string& name);
  // transpose: result dimension i is operand dimension perm[i].
  HloInstruction* Transpose(HloInstruction* a, std::vector<int64_t> perm, const std::string& name);
  // broadcast of `a` to `dims`; operand dimension i becomes result
  // dimension `mapping[i]`.
  HloInstruction* Broadcast(HloInstruction* a, std::vector<int64_t> dims,
                            std::vector<int64_t> mapping, const std::string& name);
  // s32 iota of `dims` counting along `dimension`.
  HloInstruction* Iota(std::vector<int64_t> dims, int64_t dimension, const std::string& name);
  // dynamic-slice of `sizes` at scalar s32 `starts`, one per dimension.
  HloInstruction* DynamicSlice(HloInstruction* a, std::vector<HloInstruction*> starts,
                               std::vector<int64_t> sizes, const std::string& name);
  // dynamic-update-slice of `update` into `a` at scalar s32 `starts`.
  HloInstruction* DynamicUpdateSlice(HloInstruction* a, HloInstruction* update,
                                     std::vector<HloInstruction*> starts, const std::string& name);
  // dot of `[b, m, k]` and `[b, k]` over k, batched over b: `[b, m]`.
  HloInstruction* BatchMatVec(HloInstruction* m, HloInstruction* v, const std::string& name);
  // dot of `[b, k]` and `[b, k, n]` over k, batched over b: `[b, n]`.
  HloInstruction* BatchVecMat(HloInstruction* v, HloInstruction* m, const std::string& name);
  // reverse of `a` along `dims`.
  HloInstruction* Reverse(HloInstruction* a, std::vector<int64_t> dims, const std::string& name);
  HloInstruction* Tuple(std::vector<HloInstruction*> elements, const std::string& name);
  HloInstruction* GetTupleElement(HloInstruction* tuple, int64_t index, const std::string& name);

 private:
  HloComputation* computation_;
  NameUniquer names_;
};

// The scalar reducer computations of one module (`(x, y) -> op(x, y)` over
// scalars of one element type, as `reduce` and `reduce-window` take them),
// added to the module on first use and shared afterwards. Named
// "<prefix>_<op>_<type>" (made unique in the module).
// Not thread-safe; the module must outlive this object.
class ScalarReducers {
 public:
  ScalarReducers(HloModule* module, std::string prefix)
      : module_(module), prefix_(std::move(prefix)) {}

  // The computation applying the binary `opcode` (add, or, maximum, ...)
  // to two `type` scalars. Never fails.
  HloComputation* Get(HloOpcode opcode, PrimitiveType type);

 private:
  HloModule* module_;
  std::string prefix_;
  absl::flat_hash_map<std::pair<HloOpcode, PrimitiveType>, HloComputation*> cache_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_OP_BUILDER_H_
