#include "xla/service/schedule/list_scheduler.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/service/schedule/memory_model.h"

namespace xla {
namespace {

// Latency hiding for async collectives: a -start is picked as soon as it is
// ready and a -done only when nothing else is, so independent work lands
// between them and runs while the collective is in flight (the thunk
// emitter puts the collective on the communication stream).
constexpr HloOpcode kAsyncCollectiveStarts[] = {
    HloOpcode::kAllReduceStart, HloOpcode::kAllGatherStart, HloOpcode::kCollectivePermuteStart};
constexpr HloOpcode kAsyncCollectiveDones[] = {
    HloOpcode::kAllReduceDone, HloOpcode::kAllGatherDone, HloOpcode::kCollectivePermuteDone};

// 0 for an async collective start, 2 for its done, 1 for everything else.
int LatencyClass(const HloInstruction& instr) {
  for (HloOpcode op : kAsyncCollectiveStarts) {
    if (instr.opcode() == op) return 0;
  }
  for (HloOpcode op : kAsyncCollectiveDones) {
    if (instr.opcode() == op) return 2;
  }
  return 1;
}

// The greedy scheduler over one computation. Indices are positions in the
// memory model's post order, which is also the tie-break order.
class ListScheduler {
 public:
  explicit ListScheduler(const HloComputation& computation)
      : computation_(computation), model_(computation) {}

  absl::StatusOr<std::vector<const HloInstruction*>> Run() {
    const auto& instrs = model_.instructions();
    const int64_t n = static_cast<int64_t>(instrs.size());
    pending_inputs_.assign(n, 0);
    scheduled_.assign(n, false);
    priority_.assign(n, 0);
    remaining_readers_.assign(model_.leaf_count(), 0);
    for (int64_t leaf = 0; leaf < model_.leaf_count(); ++leaf) {
      remaining_readers_[leaf] = static_cast<int64_t>(model_.readers_of(leaf).size()) +
                                 (model_.live_out(leaf) ? 1 : 0);
    }
    for (int64_t i = 0; i < n; ++i) pending_inputs_[i] = static_cast<int64_t>(Inputs(i).size());
    for (int64_t i = 0; i < n; ++i) {
      if (pending_inputs_[i] == 0) MakeReady(i);
    }
    std::vector<const HloInstruction*> sequence;
    sequence.reserve(n);
    while (!ready_.empty()) {
      const int64_t i = std::get<2>(*ready_.begin());
      ready_.erase(ready_.begin());
      scheduled_[i] = true;
      sequence.push_back(instrs[i]);
      for (int64_t leaf : model_.reads_of(i)) {
        if (--remaining_readers_[leaf] == 1) UpdateLastReader(leaf);
      }
      for (int64_t s : Successors(i)) {
        if (--pending_inputs_[s] == 0) MakeReady(s);
      }
    }
    if (static_cast<int64_t>(sequence.size()) != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot schedule computation ", computation_.name(),
                       ": its operands or control edges form a cycle"));
    }
    return sequence;
  }

 private:
  // Distinct operands and control predecessors of instruction i.
  std::vector<int64_t> Inputs(int64_t i) const {
    const HloInstruction* instr = model_.instructions()[i];
    absl::flat_hash_set<int64_t> seen;
    std::vector<int64_t> out;
    for (const HloInstruction* op : instr->operands()) {
      if (seen.insert(model_.index(op)).second) out.push_back(model_.index(op));
    }
    for (const HloInstruction* pred : instr->control_predecessors()) {
      if (seen.insert(model_.index(pred)).second) out.push_back(model_.index(pred));
    }
    return out;
  }

  // Distinct users and control successors of instruction i.
  std::vector<int64_t> Successors(int64_t i) const {
    const HloInstruction* instr = model_.instructions()[i];
    absl::flat_hash_set<int64_t> seen;
    std::vector<int64_t> out;
    for (const HloInstruction* user : instr->users()) {
      if (seen.insert(model_.index(user)).second) out.push_back(model_.index(user));
    }
    for (const HloInstruction* succ : instr->control_successors()) {
      if (seen.insert(model_.index(succ)).second) out.push_back(model_.index(succ));
    }
    return out;
  }

  // Bytes freed minus bytes allocated if instruction i ran now.
  int64_t Priority(int64_t i) const {
    int64_t p = 0;
    for (int64_t leaf : model_.reads_of(i)) {
      if (remaining_readers_[leaf] == 1) p += model_.bytes(leaf);
    }
    for (int64_t leaf : model_.defined_by(i)) p -= model_.bytes(leaf);
    return p;
  }

  // Only instructions that shrink memory jump ahead; all others keep the
  // post order, so the result never strays far from it.
  void MakeReady(int64_t i) {
    priority_[i] = std::max<int64_t>(Priority(i), 0);
    ready_.insert({LatencyClass(*model_.instructions()[i]), -priority_[i], i});
  }

  // `leaf` has one reader left: if it is ready, its priority just grew.
  void UpdateLastReader(int64_t leaf) {
    for (int64_t r : model_.readers_of(leaf)) {
      if (scheduled_[r]) continue;
      auto it = ready_.find({LatencyClass(*model_.instructions()[r]), -priority_[r], r});
      if (it == ready_.end()) return;
      ready_.erase(it);
      MakeReady(r);
      return;
    }
  }

  const HloComputation& computation_;
  const ComputationMemoryModel model_;
  std::vector<int64_t> pending_inputs_;
  std::vector<bool> scheduled_;
  std::vector<int64_t> priority_;
  std::vector<int64_t> remaining_readers_;
  // (LatencyClass, -priority, post-order index): begin() is the next pick.
  std::set<std::tuple<int, int64_t, int64_t>> ready_;
};

}  // namespace

absl::StatusOr<HloSchedule> ScheduleModule(const HloModule& module,
                                           const SchedulerOptions& options) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot schedule module ", module.name(), ": it has no entry computation"));
  }
  HloSchedule schedule;
  for (const HloComputation* c : ComputationsNeedingSchedule(module)) {
    if (options.algorithm == SchedulerOptions::Algorithm::kPostOrder) {
      std::vector<HloInstruction*> order = c->MakePostOrder();
      schedule.set_sequence(c, std::vector<const HloInstruction*>(order.begin(), order.end()));
      continue;
    }
    absl::StatusOr<std::vector<const HloInstruction*>> seq = ListScheduler(*c).Run();
    if (!seq.ok()) return seq.status();
    schedule.set_sequence(c, *std::move(seq));
  }
  return schedule;
}

}  // namespace xla
