#include "xla/service/schedule/rematerialization.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "xla/service/schedule/memory_model.h"
#include "xla/service/schedule/peak_memory.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool IsElementwiseLike(HloOpcode op) {
  return IsElementwise(op) || op == HloOpcode::kSelect || op == HloOpcode::kClamp ||
         op == HloOpcode::kConvert;
}

// Ops a cheap loop fusion may contain besides the cheap roots themselves.
bool IsFreeInFusion(HloOpcode op) {
  static constexpr HloOpcode kFree[] = {HloOpcode::kParameter, HloOpcode::kConstant,
                                        HloOpcode::kReshape,   HloOpcode::kBitcast,
                                        HloOpcode::kTranspose};
  return std::find(std::begin(kFree), std::end(kFree), op) != std::end(kFree);
}

bool IsCheapOp(HloOpcode op) {
  return op == HloOpcode::kBroadcast || op == HloOpcode::kIota || IsElementwiseLike(op);
}

// Elements computed to make `instr` once: its result's elements, times the
// fused instruction count for a fusion.
int64_t RecomputeCost(const HloInstruction& instr) {
  const int64_t elements = std::max<int64_t>(1, instr.shape().ElementCount().value_or(1));
  const HloComputation* fused = instr.GetComputation(AttrId::kCalls);
  const int64_t ops = fused == nullptr ? 1 : std::max<int64_t>(1, fused->instruction_count());
  return elements * ops;
}

// Position of every instruction of the sequence, and each owned leaf's live
// range [start, end] in positions, as peak_memory.cc computes them.
struct Liveness {
  std::vector<int64_t> position;  // by model index
  std::vector<int64_t> start, end;
  std::vector<int64_t> live;       // bytes live at each position, callees included
};

Liveness ComputeLiveness(const ComputationMemoryModel& model,
                         const std::vector<const HloInstruction*>& seq,
                         const std::vector<int64_t>& callee_peak) {
  Liveness l;
  const int64_t n = static_cast<int64_t>(seq.size());
  l.position.assign(model.instructions().size(), -1);
  for (int64_t p = 0; p < n; ++p) l.position[model.index(seq[p])] = p;
  l.start.assign(model.leaf_count(), -1);
  l.end.assign(model.leaf_count(), -1);
  for (int64_t i = 0; i < static_cast<int64_t>(model.instructions().size()); ++i) {
    for (int64_t leaf : model.defined_by(i)) l.start[leaf] = l.position[i];
    for (int64_t leaf : model.reads_of(i)) l.end[leaf] = std::max(l.end[leaf], l.position[i]);
  }
  std::vector<int64_t> delta(n + 1, 0);
  for (int64_t leaf = 0; leaf < model.leaf_count(); ++leaf) {
    if (l.start[leaf] < 0 || model.bytes(leaf) == 0) continue;
    if (model.live_out(leaf)) l.end[leaf] = n - 1;
    l.end[leaf] = std::max(l.end[leaf], l.start[leaf]);
    // A result has an allocation of its own for the whole run.
    delta[model.live_out(leaf) ? 0 : l.start[leaf]] += model.bytes(leaf);
    delta[l.end[leaf] + 1] -= model.bytes(leaf);
  }
  l.live.assign(n, 0);
  int64_t running = 0;
  for (int64_t p = 0; p < n; ++p) {
    running += delta[p];
    l.live[p] = running + callee_peak[p];
  }
  return l;
}

struct Choice {
  HloInstruction* instr = nullptr;
  int64_t insert_at = 0;  // position of its first use after the peak
  double gain = 0;        // bytes saved per element computed
};

// Whether `instr` (bitcasts looked through) is an entry parameter that the
// module donates: a result may be written over it in place, so reading it
// later could cost that reuse.
bool IsDonatedParameter(const HloInstruction* instr) {
  while (instr->opcode() == HloOpcode::kBitcast) instr = instr->operand(0);
  if (instr->opcode() != HloOpcode::kParameter || instr->parent() == nullptr ||
      !instr->parent()->is_entry() || instr->parent()->parent() == nullptr) {
    return false;
  }
  const HloModuleConfig& config = instr->parent()->parent()->config();
  const int64_t n = instr->parameter_number();
  for (const InputOutputAlias& a : config.input_output_alias) {
    if (a.parameter_number == n) return true;
  }
  for (const BufferDonor& d : config.buffer_donor) {
    if (d.parameter_number == n) return true;
  }
  return false;
}

// Whether the value `i` (one owned leaf) can be recomputed at position `at`
// without keeping any operand's buffer alive longer (constants and
// parameters that are not donated are there all along).
bool OperandsLiveAt(const ComputationMemoryModel& model, const Liveness& l, int64_t i,
                    int64_t at) {
  const HloInstruction& instr = *model.instructions()[i];
  for (const HloInstruction* operand : instr.operands()) {
    const bool always_there = !IsDonatedParameter(operand);
    for (int64_t leaf : model.owners_of(model.index(operand))) {
      if (model.bytes(leaf) == 0 && always_there) continue;
      if (l.end[leaf] < at) return false;
    }
  }
  return true;
}

// The best value to recompute across `peak`, or nullopt.
std::optional<Choice> BestCandidate(const ComputationMemoryModel& model, const Liveness& l,
                                    int64_t peak) {
  std::optional<Choice> best;
  for (int64_t i = 0; i < static_cast<int64_t>(model.instructions().size()); ++i) {
    const HloInstruction& instr = *model.instructions()[i];
    const std::vector<int64_t>& defined = model.defined_by(i);
    if (defined.size() != 1 || !IsCheapToRecompute(instr)) continue;
    const int64_t leaf = defined[0];
    if (model.bytes(leaf) == 0 || model.live_out(leaf) || l.start[leaf] >= peak) continue;
    if (l.end[leaf] <= peak) continue;  // not live across the peak
    if (!instr.control_predecessors().empty() || !instr.control_successors().empty()) continue;
    int64_t next_use = -1;
    bool direct = true, read_at_peak = false;
    for (const HloInstruction* user : instr.users()) {
      if (ForwardsBuffers(*user)) direct = false;
      const int64_t p = l.position[model.index(user)];
      if (p == peak) read_at_peak = true;
      if (p > peak && (next_use < 0 || p < next_use)) next_use = p;
    }
    if (!direct || read_at_peak || next_use < 0 || !OperandsLiveAt(model, l, i, next_use)) continue;
    const double gain =
        static_cast<double>(model.bytes(leaf)) / static_cast<double>(RecomputeCost(instr));
    if (!best.has_value() || gain > best->gain) {
      best = Choice{const_cast<HloInstruction*>(&instr), next_use, gain};
    }
  }
  return best;
}

// Clones `choice.instr` before position `choice.insert_at` of `seq` and
// points its users at or after that position at the clone.
void Apply(const Choice& choice, const Liveness& l, const ComputationMemoryModel& model,
           HloComputation* computation, std::vector<const HloInstruction*>* seq) {
  HloInstruction* original = choice.instr;
  HloInstruction* clone = computation->AddInstruction(original->CloneWithNewOperands(
      original->shape(), original->operands(),
      computation->UniqueInstructionName(original->name() + ".remat")));
  const std::vector<HloInstruction*> users = original->users();
  for (HloInstruction* user : users) {
    if (l.position[model.index(user)] >= choice.insert_at) user->ReplaceOperand(original, clone);
  }
  seq->insert(seq->begin() + choice.insert_at, clone);
  if (!original->users().empty()) return;
  // Every use was after the peak: the value moved rather than doubled.
  seq->erase(std::find(seq->begin(), seq->end(), original));
  computation->RemoveInstruction(original);
}

// Per position of `seq`, the largest peak among the computations it calls
// (`peaks`: each callee's peak, which rematerializing the entry leaves as is).
std::vector<int64_t> CalleePeaks(
    const std::vector<const HloInstruction*>& seq,
    const absl::flat_hash_map<const HloComputation*, int64_t>& peaks) {
  std::vector<int64_t> out(seq.size(), 0);
  for (size_t p = 0; p < seq.size(); ++p) {
    for (const HloComputation* callee : ScheduledCallees(*seq[p])) {
      auto it = peaks.find(callee);
      if (it != peaks.end()) out[p] = std::max(out[p], it->second);
    }
  }
  return out;
}

}  // namespace

bool IsCheapToRecompute(const HloInstruction& instr) {
  if (!instr.shape().IsArray()) return false;
  if (IsCheapOp(instr.opcode())) return true;
  if (instr.opcode() != HloOpcode::kFusion || instr.GetString(AttrId::kFusionKind) != "kLoop") {
    return false;
  }
  const HloComputation* fused = instr.GetComputation(AttrId::kCalls);
  if (fused == nullptr) return false;
  for (const auto& f : fused->instructions()) {
    if (!IsCheapOp(f->opcode()) && !IsFreeInFusion(f->opcode())) return false;
  }
  return true;
}

absl::StatusOr<RematerializationResult> Rematerialize(HloModule* module, HloSchedule* schedule,
                                                      const RematerializationOptions& options) {
  RETURN_IF_ERROR(schedule->Verify(*module));
  RematerializationResult result;
  HloComputation* entry = module->entry_computation();
  std::vector<const HloInstruction*> seq = schedule->sequence(entry);
  absl::flat_hash_map<const HloComputation*, int64_t> callee_peaks;
  for (const HloComputation* c : schedule->computations()) {
    if (c != entry) callee_peaks[c] = ComputeComputationPeak(*c, *schedule);
  }
  for (bool first = true;; first = false) {
    const ComputationMemoryModel model(*entry);
    const Liveness l = ComputeLiveness(model, seq, CalleePeaks(seq, callee_peaks));
    if (l.live.empty()) break;
    const int64_t peak = std::max_element(l.live.begin(), l.live.end()) - l.live.begin();
    if (first) result.peak_before = l.live[peak];
    result.peak_after = l.live[peak];
    if (options.peak_limit_bytes <= 0 || l.live[peak] <= options.peak_limit_bytes ||
        result.rematerialized >= options.max_rematerializations) {
      break;
    }
    const std::optional<Choice> choice = BestCandidate(model, l, peak);
    if (!choice.has_value()) break;
    Apply(*choice, l, model, entry, &seq);
    ++result.rematerialized;
  }
  schedule->set_sequence(entry, std::move(seq));
  return result;
}

}  // namespace xla
