// The memory model the scheduler and the peak-memory estimate share.
//
// Every array leaf an instruction writes is one "owned" buffer; instructions
// that only pass buffers along (get-tuple-element, tuple, bitcast,
// optimization-barrier, add-dependency, while, parameter, constant) own
// nothing new and point at the buffers of their operands. Parameters and
// constants exist before the computation runs, so their leaves count 0
// bytes. Immutable after construction; thread-safe for reading.
#ifndef XLA_SERVICE_SCHEDULE_MEMORY_MODEL_H_
#define XLA_SERVICE_SCHEDULE_MEMORY_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xla/hlo/ir/hlo_computation.h"

namespace xla {

// Number of array leaves of `shape` (tokens and empty tuples have none).
int64_t ArrayLeafCount(const Shape& shape);
// Bytes of one array leaf (0 when the size overflows or is unknown).
int64_t ArrayBytes(const Shape& shape);
// Whether `instr` only forwards the buffers of its operands (see above).
bool ForwardsBuffers(const HloInstruction& instr);

class ComputationMemoryModel {
 public:
  // Builds the model of `computation`; linear in the total number of leaves.
  explicit ComputationMemoryModel(const HloComputation& computation);

  // Dense index of each instruction (its position in instructions()).
  int64_t index(const HloInstruction* instr) const { return index_.at(instr); }
  const std::vector<const HloInstruction*>& instructions() const { return instructions_; }
  // The owned leaves an instruction's result consists of (one id per array
  // leaf, leaf order).
  const std::vector<int64_t>& owners_of(int64_t instr) const { return owners_[instr]; }
  // Owned leaves an instruction defines itself (empty for forwarders).
  const std::vector<int64_t>& defined_by(int64_t instr) const { return defined_[instr]; }
  // Distinct owned leaves a non-forwarding instruction reads (empty for
  // forwarders).
  const std::vector<int64_t>& reads_of(int64_t instr) const { return reads_[instr]; }
  // Non-forwarding instructions that read an owned leaf.
  const std::vector<int64_t>& readers_of(int64_t leaf) const { return readers_[leaf]; }
  int64_t bytes(int64_t leaf) const { return bytes_[leaf]; }
  bool live_out(int64_t leaf) const { return live_out_[leaf]; }
  int64_t leaf_count() const { return static_cast<int64_t>(bytes_.size()); }

 private:
  absl::flat_hash_map<const HloInstruction*, int64_t> index_;
  std::vector<const HloInstruction*> instructions_;
  std::vector<std::vector<int64_t>> owners_;
  std::vector<std::vector<int64_t>> defined_;
  std::vector<std::vector<int64_t>> reads_;
  std::vector<std::vector<int64_t>> readers_;
  std::vector<int64_t> bytes_;
  std::vector<bool> live_out_;
};

}  // namespace xla

#endif  // XLA_SERVICE_SCHEDULE_MEMORY_MODEL_H_
