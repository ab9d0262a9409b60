// Alias analysis: which array leaves of which instructions must share one
// buffer.
//
// A *position* is one array leaf (instruction, ShapeIndex) of an instruction
// in a computation that owns buffers (ComputationsNeedingSchedule: the entry,
// while bodies and conditions, conditional branches, call targets). Tokens
// and tuples themselves have no position: only array leaves hold bytes.
// Instructions that only forward buffers join their positions with their
// operands' (the forwarding rules):
//   get-tuple-element, tuple, bitcast, optimization-barrier, domain,
//   add-dependency (operand 0): the result leaf is the operand leaf;
//   while: init, body parameter, body root, condition parameter and result
//     share one buffer per leaf (the loop-carried buffer);
//   conditional: every branch root and the result share one buffer per leaf;
//     branch k's parameter is operand k+1;
//   call: the callee's parameters are the operands, its root is the result.
// A *buffer* is one class of positions joined this way. In-place reuse
// (in_place.h) is decided later, by buffer assignment, and not shown here.
//
// Immutable after Run; const methods are thread-safe. Holds pointers into
// the module, which must outlive it and not change while it is used.
#ifndef XLA_SERVICE_BUFFER_ASSIGNMENT_ALIAS_ANALYSIS_H_
#define XLA_SERVICE_BUFFER_ASSIGNMENT_ALIAS_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

// A path into a (possibly nested) tuple shape; empty for an array.
using ShapeIndex = std::vector<int64_t>;

// "{}" or "{1,0}".
std::string ShapeIndexToString(const ShapeIndex& index);

// The subshape of `shape` at `index`, or nullptr when the path is invalid.
const Shape* SubshapeAt(const Shape& shape, const ShapeIndex& index);

// The paths of `shape`'s array leaves, depth first (the order of output
// leaves); a token or an empty tuple has none. Never fails.
std::vector<ShapeIndex> ArrayLeaves(const Shape& shape);

struct Position {
  const HloInstruction* instruction = nullptr;
  ShapeIndex index;
  const Shape& shape() const { return *SubshapeAt(instruction->shape(), index); }
};

// Whether `instr` writes no bytes of its own and only passes on buffers of
// its operands or callees (the forwarding rules above, plus parameters of
// non-entry computations, which are their caller's operands).
bool IsForwardingInstruction(const HloInstruction& instr);

class AliasAnalysis {
 public:
  // Builds positions and buffers for `module`. Fails when a computation
  // that owns buffers is called from more than one instruction (or twice by
  // one, e.g. the same computation as two branches): its positions would
  // belong to several call sites. Linear in the number of leaves (times the
  // inverse Ackermann function).
  static absl::StatusOr<AliasAnalysis> Run(const HloModule& module);

  int64_t position_count() const { return static_cast<int64_t>(positions_.size()); }
  const Position& position(int64_t id) const { return positions_[id]; }
  // Position ids of the array leaves of `instr`, in leaf order (depth first);
  // empty when `instr` is not in a computation that owns buffers.
  const std::vector<int64_t>& positions_of(const HloInstruction* instr) const;
  // The position of (instr, index), or nullopt when there is none.
  std::optional<int64_t> FindPosition(const HloInstruction* instr, const ShapeIndex& index) const;

  int64_t buffer_count() const { return static_cast<int64_t>(buffer_positions_.size()); }
  // Dense buffer id of a position. Buffers are numbered by their first
  // position, so the numbering is deterministic.
  int64_t buffer_of(int64_t position) const { return buffer_of_[position]; }
  const std::vector<int64_t>& buffer_positions(int64_t buffer) const {
    return buffer_positions_[buffer];
  }

  // The instructions whose write a read of `position` must observe: follows
  // the forwarding rules back to writing instructions (a while result to its
  // init and its body root; a body or condition parameter to the init only,
  // which is what a reader sees within one iteration; a conditional result
  // to every branch root; a callee parameter to the call operand). Sorted by
  // unique id, no duplicates.
  const std::vector<const HloInstruction*>& ReachingDefinitions(int64_t position) const {
    return reaching_[position];
  }

  // The instruction calling a computation that owns buffers (while,
  // conditional or call); nullptr for the entry.
  const HloInstruction* caller_of(const HloComputation* computation) const;

 private:
  AliasAnalysis() = default;
  void ComputeReachingDefinitions();
  // The writers a read of `position` observes (memoized in reaching_).
  const std::vector<const HloInstruction*>& Reach(int64_t position);
  // The position of (instr, index) or -1.
  int64_t PositionAt(const HloInstruction* instr, const ShapeIndex& index) const;

  std::vector<Position> positions_;
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> positions_of_;
  std::vector<int64_t> buffer_of_;
  std::vector<std::vector<int64_t>> buffer_positions_;
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> caller_;
  std::vector<std::vector<const HloInstruction*>> reaching_;
  std::vector<bool> reached_;
};

}  // namespace xla

#endif  // XLA_SERVICE_BUFFER_ASSIGNMENT_ALIAS_ANALYSIS_H_
