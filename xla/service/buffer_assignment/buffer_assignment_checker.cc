#include "xla/service/buffer_assignment/buffer_assignment_checker.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/service/buffer_assignment/alias_analysis.h"
#include "xla/service/buffer_assignment/in_place.h"

namespace xla {
namespace {

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

absl::Status Fail(absl::string_view what) {
  return absl::FailedPreconditionError(absl::StrCat("buffer assignment check: ", what));
}

std::string Name(const Position& p) {
  return absl::StrCat(p.instruction->name(), ShapeIndexToString(p.index));
}

std::string Bytes(const BufferSlice& s) {
  return absl::StrCat("allocation ", s.allocation, " bytes [", s.offset, ", ", s.offset + s.size,
                      ")");
}

class Checker {
 public:
  Checker(const HloModule& module, const HloSchedule& schedule, const BufferAssignment& ba,
          int64_t alignment, const AliasAnalysis& aa)
      : module_(module), schedule_(schedule), ba_(ba), alignment_(alignment), aa_(aa) {}

  absl::Status Run() {
    Flatten(module_.entry_computation());
    std::vector<absl::Status (Checker::*)()> steps = {
        &Checker::CheckSlices, &Checker::CheckKinds, &Checker::BuildSets,
        &Checker::ComputeLiveness, &Checker::CheckOverlaps, &Checker::CheckReads};
    for (auto step : steps) {
      absl::Status s = (this->*step)();
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

 private:
  void Flatten(const HloComputation* c) {
    for (const HloInstruction* instr : schedule_.sequence(c)) {
      std::vector<const HloComputation*> callees = ScheduledCallees(*instr);
      if (!callees.empty()) {
        span_start_[instr] = now_++;
        for (const HloComputation* callee : callees) Flatten(callee);
      }
      time_[instr] = now_++;
      order_.push_back(instr);
    }
  }

  // (c)
  absl::Status CheckSlices() {
    slices_.resize(aa_.position_count());
    for (int64_t p = 0; p < aa_.position_count(); ++p) {
      const Position& pos = aa_.position(p);
      absl::StatusOr<BufferSlice> s = ba_.GetSlice(pos.instruction, pos.index);
      if (!s.ok()) return Fail(absl::StrCat(Name(pos), " has no slice: ", s.status().message()));
      const BufferSlice& slice = *s;
      slices_[p] = slice;
      const int64_t n = static_cast<int64_t>(ba_.allocations().size());
      if (slice.allocation < 0 || slice.allocation >= n) {
        return Fail(absl::StrCat(Name(pos), " names allocation ", slice.allocation, " of ", n));
      }
      const BufferAllocation& a = ba_.allocations()[slice.allocation];
      if (slice.offset < 0 || slice.offset + slice.size > a.size) {
        return Fail(absl::StrCat(Name(pos), " at ", Bytes(slice), " is outside the allocation (size ",
                                 a.size, ")"));
      }
      if (alignment_ > 1 && slice.offset % alignment_ != 0) {
        return Fail(absl::StrCat(Name(pos), " at ", Bytes(slice), " is not ", alignment_,
                                 "-byte aligned"));
      }
      if (slice.size != pos.shape().ByteSize().value_or(-1)) {
        return Fail(absl::StrCat(Name(pos), " has a ", slice.size, "-byte slice but its shape ",
                                 pos.shape().ToString(), " needs ",
                                 pos.shape().ByteSize().value_or(-1)));
      }
    }
    return absl::OkStatus();
  }

  bool Donated(const HloInstruction* param, const ShapeIndex& index) const {
    for (const InputOutputAlias& a : module_.config().input_output_alias) {
      if (a.parameter_number == param->parameter_number() && a.parameter_index == index) return true;
    }
    for (const BufferDonor& d : module_.config().buffer_donor) {
      if (d.parameter_number == param->parameter_number() && d.parameter_index == index) return true;
    }
    return false;
  }

  // (d)
  absl::Status CheckKinds() {
    const HloComputation* entry = module_.entry_computation();
    for (int64_t p = 0; p < aa_.position_count(); ++p) {
      const Position& pos = aa_.position(p);
      const BufferAllocation& a = ba_.allocations()[slices_[p].allocation];
      const HloInstruction* instr = pos.instruction;
      if (instr->opcode() == HloOpcode::kParameter && instr->parent() == entry) {
        if (!a.is_parameter || a.parameter_number != instr->parameter_number() ||
            a.parameter_shape_index != pos.index) {
          return Fail(absl::StrCat("entry parameter leaf ", Name(pos), " is in allocation ", a.index,
                                   ", which is not that parameter's allocation"));
        }
      } else if (instr->opcode() == HloOpcode::kConstant) {
        if (!a.is_constant || a.constant != instr || a.constant_shape_index != pos.index) {
          return Fail(absl::StrCat("constant ", Name(pos), " is in allocation ", a.index,
                                   ", which is not its constant allocation"));
        }
      } else if (!IsForwardingInstruction(*instr)) {
        if (a.is_constant) {
          return Fail(absl::StrCat(Name(pos), " writes into constant allocation ", a.index));
        }
        if (a.is_parameter) {
          const HloInstruction* param = entry->parameter_instruction(a.parameter_number);
          if (!Donated(param, a.parameter_shape_index)) {
            return Fail(absl::StrCat(Name(pos), " writes into allocation ", a.index,
                                     " of parameter ", a.parameter_number,
                                     ", which is neither donated nor aliased"));
          }
        }
      }
      if (instr == entry->root_instruction() && !a.is_output) {
        return Fail(absl::StrCat("result leaf ", Name(pos), " is in allocation ", a.index,
                                 ", which is not marked as an output"));
      }
      if (a.is_temp && (a.is_parameter || a.is_constant || a.is_output)) {
        return Fail(absl::StrCat("allocation ", a.index, " is temp and also of another kind"));
      }
    }
    return absl::OkStatus();
  }

  int64_t Find(int64_t x) {
    while (set_[x] != x) {
      set_[x] = set_[set_[x]];
      x = set_[x];
    }
    return x;
  }

  // Sets of positions that are one buffer: forwarding classes, joined by
  // legal in-place writes.
  absl::Status BuildSets() {
    set_.resize(aa_.position_count());
    for (int64_t p = 0; p < aa_.position_count(); ++p) set_[p] = p;
    for (int64_t b = 0; b < aa_.buffer_count(); ++b) {
      const auto& ps = aa_.buffer_positions(b);
      for (int64_t p : ps) {
        if (slices_[p] != slices_[ps[0]]) {
          return Fail(absl::StrCat(Name(aa_.position(p)), " at ", Bytes(slices_[p]), " and ",
                                   Name(aa_.position(ps[0])), " at ", Bytes(slices_[ps[0]]),
                                   " must share one buffer (forwarding) but have different slices"));
        }
        set_[Find(p)] = Find(ps[0]);
      }
    }
    for (const HloInstruction* y : order_) {
      if (IsForwardingInstruction(*y)) continue;
      const std::vector<int64_t>& outs = aa_.positions_of(y);
      for (size_t leaf = 0; leaf < outs.size(); ++leaf) {
        const int64_t out = outs[leaf];
        for (int64_t k = 0; k < y->operand_count(); ++k) {
          for (int64_t in : aa_.positions_of(y->operand(k))) {
            if (!slices_[out].Overlaps(slices_[in])) continue;
            // A MoveToHost / MoveToDevice onto its operand's own bytes is
            // a copy of equal values (scan stacks, buffer_assignment.h).
            const bool legal = slices_[out] == slices_[in] &&
                               (CanShareOperandBufferAt(*y, k, static_cast<int64_t>(leaf)) ||
                                IsMoveToHost(*y) || IsMoveToDevice(*y));
            if (!legal) {
              return Fail(absl::StrCat(y->name(), " writes ", Name(aa_.position(out)), " at ",
                                       Bytes(slices_[out]), " over its operand ",
                                       Name(aa_.position(in)), " at ", Bytes(slices_[in]),
                                       ", which it cannot do in place"));
            }
            set_[Find(out)] = Find(in);
          }
        }
      }
    }
    return absl::OkStatus();
  }

  bool IsWriter(const HloInstruction& instr) const { return !IsForwardingInstruction(instr); }

  // Whether `instr` is a MoveToHost / MoveToDevice whose result has its
  // operand's slice (scan stacks, buffer_assignment.h): it writes the
  // value that is already there.
  bool IsCopyOntoOperand(const HloInstruction& instr) const {
    if (!IsMoveToHost(instr) && !IsMoveToDevice(instr)) return false;
    const std::vector<int64_t>& out = aa_.positions_of(&instr);
    const std::vector<int64_t>& in = aa_.positions_of(instr.operand(0));
    return out.size() == 1 && in.size() == 1 && slices_[out[0]] == slices_[in[0]];
  }

  template <typename F>
  void ForEachRead(F f) {
    for (const HloInstruction* y : order_) {
      const bool all = !IsForwardingInstruction(*y);
      if (!all && y->opcode() != HloOpcode::kConditional) continue;
      const int64_t n = all ? y->operand_count() : 1;
      for (int64_t k = 0; k < n; ++k) {
        for (int64_t p : aa_.positions_of(y->operand(k))) f(y, p);
      }
    }
  }

  absl::Status ComputeLiveness() {
    const int64_t n = aa_.position_count();
    start_.assign(n, kEnd);
    end_.assign(n, -1);
    writes_.assign(n, {});
    for (int64_t p = 0; p < n; ++p) {
      const int64_t s = Find(p);
      const int64_t t = time_.at(aa_.position(p).instruction);
      start_[s] = std::min(start_[s], t);
      end_[s] = std::max(end_[s], t);
      if (IsWriter(*aa_.position(p).instruction)) writes_[s].push_back({t, aa_.position(p).instruction});
      if (aa_.position(p).instruction == module_.entry_computation()->root_instruction()) end_[s] = kEnd;
    }
    ForEachRead([&](const HloInstruction* y, int64_t p) {
      const int64_t s = Find(p);
      end_[s] = std::max(end_[s], time_.at(y));
      for (const HloInstruction* w = aa_.caller_of(y->parent()); w != nullptr;
           w = aa_.caller_of(w->parent())) {
        if (w->opcode() == HloOpcode::kWhile && start_[s] < span_start_.at(w)) {
          end_[s] = std::max(end_[s], time_.at(w));
        }
      }
    });
    for (auto& w : writes_) std::sort(w.begin(), w.end());
    return absl::OkStatus();
  }

  // (a): per allocation, a sweep over time keeping the live sets ordered by
  // offset; live sets never overlap, so a new one is checked against its
  // neighbours only.
  absl::Status CheckOverlaps() {
    std::vector<int64_t> roots;
    for (int64_t p = 0; p < aa_.position_count(); ++p) {
      if (Find(p) == p && slices_[p].size > 0) roots.push_back(p);
    }
    std::sort(roots.begin(), roots.end(), [&](int64_t a, int64_t b) {
      return std::make_tuple(slices_[a].allocation, start_[a], a) <
             std::make_tuple(slices_[b].allocation, start_[b], b);
    });
    std::map<int64_t, int64_t> live;  // offset -> set root
    using Ending = std::pair<int64_t, int64_t>;  // (end, root)
    std::priority_queue<Ending, std::vector<Ending>, std::greater<Ending>> ending;
    int64_t allocation = -1;
    for (int64_t r : roots) {
      const BufferSlice& s = slices_[r];
      if (s.allocation != allocation) {
        allocation = s.allocation;
        live.clear();
        ending = {};
      }
      while (!ending.empty() && ending.top().first < start_[r]) {
        live.erase(slices_[ending.top().second].offset);
        ending.pop();
      }
      auto next = live.lower_bound(s.offset);
      std::vector<int64_t> neighbours;
      if (next != live.end()) neighbours.push_back(next->second);
      if (next != live.begin()) neighbours.push_back(std::prev(next)->second);
      for (int64_t other : neighbours) {
        if (!s.Overlaps(slices_[other])) continue;
        return Fail(absl::StrCat(
            Name(aa_.position(other)), " (live at times [", start_[other], ", ", end_[other], "], ",
            Bytes(slices_[other]), ") and ", Name(aa_.position(r)), " (live at times [", start_[r],
            ", ", end_[r], "], ", Bytes(s), ") are live at the same time in overlapping bytes"));
      }
      live[s.offset] = r;
      ending.push({end_[r], r});
    }
    return absl::OkStatus();
  }

  // (b)
  absl::Status CheckReads() {
    absl::Status status = absl::OkStatus();
    ForEachRead([&](const HloInstruction* y, int64_t p) {
      if (!status.ok()) return;
      const int64_t s = Find(p);
      const int64_t t = time_.at(y);
      const auto& w = writes_[s];
      // Latest write strictly before t (a write at t is y's own, in place).
      auto after = std::lower_bound(w.begin(), w.end(), std::make_pair(t, static_cast<const HloInstruction*>(nullptr)));
      if (after == w.begin()) {
        status = Fail(absl::StrCat(y->name(), " at time ", t, " reads ", Name(aa_.position(p)),
                                   " at ", Bytes(slices_[p]), " before anything writes it"));
        return;
      }
      auto latest_it = std::prev(after);
      const auto& expected = aa_.ReachingDefinitions(p);
      auto reaches = [&](const HloInstruction* w) {
        return std::find(expected.begin(), expected.end(), w) != expected.end();
      };
      // A MoveToHost / MoveToDevice onto its operand's own bytes rewrites
      // the value that was there: look through it to the write before.
      while (!reaches(latest_it->second) && IsCopyOntoOperand(*latest_it->second) &&
             latest_it != w.begin()) {
        --latest_it;
      }
      const auto& latest = *latest_it;
      if (!reaches(latest.second)) {
        status = Fail(absl::StrCat(y->name(), " at time ", t, " reads ", Name(aa_.position(p)), " at ",
                                   Bytes(slices_[p]), " but ", latest.second->name(), " at time ",
                                   latest.first, " overwrote it first"));
        return;
      }
      // A read inside a loop of a value written before the loop: nothing in
      // the loop may write it (the next iteration reads it again).
      for (const HloInstruction* loop = aa_.caller_of(y->parent()); loop != nullptr;
           loop = aa_.caller_of(loop->parent())) {
        if (loop->opcode() != HloOpcode::kWhile || latest.first >= span_start_.at(loop)) continue;
        const auto& loop_positions = aa_.positions_of(loop);
        bool carried = false;
        for (int64_t lp : loop_positions) carried = carried || Find(lp) == s;
        if (carried) continue;
        auto next = std::upper_bound(w.begin(), w.end(),
                                     std::make_pair(t, static_cast<const HloInstruction*>(nullptr)));
        while (next != w.end() && next->first == t) ++next;
        if (next != w.end() && next->first <= time_.at(loop)) {
          status = Fail(absl::StrCat(next->second->name(), " at time ", next->first, " overwrites ",
                                     Name(aa_.position(p)), " at ", Bytes(slices_[p]),
                                     " inside loop ", loop->name(), ", which reads it again at ",
                                     y->name()));
          return;
        }
      }
    });
    return status;
  }

  const HloModule& module_;
  const HloSchedule& schedule_;
  const BufferAssignment& ba_;
  const int64_t alignment_;
  const AliasAnalysis& aa_;
  absl::flat_hash_map<const HloInstruction*, int64_t> time_, span_start_;
  std::vector<const HloInstruction*> order_;
  int64_t now_ = 0;
  std::vector<BufferSlice> slices_;
  std::vector<int64_t> set_, start_, end_;
  std::vector<std::vector<std::pair<int64_t, const HloInstruction*>>> writes_;
};

}  // namespace

absl::Status CheckBufferAssignment(const HloModule& module, const HloSchedule& schedule,
                                   const BufferAssignment& assignment, int64_t alignment) {
  absl::Status valid = schedule.Verify(module);
  if (!valid.ok()) return valid;
  absl::StatusOr<AliasAnalysis> aa = AliasAnalysis::Run(module);
  if (!aa.ok()) return aa.status();
  return Checker(module, schedule, assignment, alignment, *aa).Run();
}

}  // namespace xla
