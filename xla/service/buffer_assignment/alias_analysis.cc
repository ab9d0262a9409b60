#include "xla/service/buffer_assignment/alias_analysis.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/service/schedule/hlo_schedule.h"
#include "xla/service/schedule/memory_model.h"

namespace xla {
namespace {

void AppendLeafIndices(const Shape& shape, ShapeIndex* prefix, std::vector<ShapeIndex>* out) {
  if (shape.IsArray()) {
    out->push_back(*prefix);
    return;
  }
  if (!shape.IsTuple()) return;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    prefix->push_back(i);
    AppendLeafIndices(shape.tuple_shapes(i), prefix, out);
    prefix->pop_back();
  }
}

bool IsSimpleForwarder(HloOpcode op) {
  return op == HloOpcode::kGetTupleElement || op == HloOpcode::kTuple ||
         op == HloOpcode::kBitcast || op == HloOpcode::kOptimizationBarrier ||
         op == HloOpcode::kDomain || op == HloOpcode::kAddDependency;
}

class UnionFind {
 public:
  int64_t Add() {
    parent_.push_back(static_cast<int64_t>(parent_.size()));
    return parent_.back();
  }
  int64_t Find(int64_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void Union(int64_t a, int64_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (a > b) std::swap(a, b);
    parent_[b] = a;
  }

 private:
  std::vector<int64_t> parent_;
};

}  // namespace

std::string ShapeIndexToString(const ShapeIndex& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::vector<ShapeIndex> ArrayLeaves(const Shape& shape) {
  std::vector<ShapeIndex> leaves;
  ShapeIndex prefix;
  AppendLeafIndices(shape, &prefix, &leaves);
  return leaves;
}

const Shape* SubshapeAt(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_shapes_size()) return nullptr;
    s = &s->tuple_shapes(i);
  }
  return s;
}

bool IsForwardingInstruction(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  if (IsSimpleForwarder(op)) return true;
  if (op == HloOpcode::kWhile || op == HloOpcode::kConditional || op == HloOpcode::kCall) {
    return true;
  }
  return op == HloOpcode::kParameter && instr.parent() != nullptr && !instr.parent()->is_entry();
}

const std::vector<int64_t>& AliasAnalysis::positions_of(const HloInstruction* instr) const {
  static const std::vector<int64_t>* const kNone = new std::vector<int64_t>();
  auto it = positions_of_.find(instr);
  return it == positions_of_.end() ? *kNone : it->second;
}

std::optional<int64_t> AliasAnalysis::FindPosition(const HloInstruction* instr,
                                                   const ShapeIndex& index) const {
  const int64_t p = PositionAt(instr, index);
  if (p < 0) return std::nullopt;
  return p;
}

int64_t AliasAnalysis::PositionAt(const HloInstruction* instr, const ShapeIndex& index) const {
  const Shape* s = &instr->shape();
  int64_t leaf = 0;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_shapes_size()) return -1;
    for (int64_t j = 0; j < i; ++j) leaf += ArrayLeafCount(s->tuple_shapes(j));
    s = &s->tuple_shapes(i);
  }
  if (!s->IsArray()) return -1;
  const auto& ids = positions_of(instr);
  if (leaf >= static_cast<int64_t>(ids.size())) return -1;
  return ids[leaf];
}

void AliasAnalysis::ComputeReachingDefinitions() {
  reaching_.assign(positions_.size(), {});
  reached_.assign(positions_.size(), false);
  for (size_t p = 0; p < positions_.size(); ++p) Reach(static_cast<int64_t>(p));
  reached_.clear();
}

const std::vector<const HloInstruction*>& AliasAnalysis::Reach(int64_t position) {
  if (reached_[position]) return reaching_[position];
  reached_[position] = true;  // a malformed cycle ends here with no writers
  const Position pos = positions_[position];
  const HloInstruction* instr = pos.instruction;
  std::vector<int64_t> sources;
  auto add = [&](const HloInstruction* at, const ShapeIndex& index) {
    const int64_t p = PositionAt(at, index);
    if (p >= 0) sources.push_back(p);
  };
  const HloOpcode op = instr->opcode();
  if (op == HloOpcode::kGetTupleElement) {
    ShapeIndex index = {instr->tuple_index()};
    index.insert(index.end(), pos.index.begin(), pos.index.end());
    add(instr->operand(0), index);
  } else if (op == HloOpcode::kTuple) {
    if (!pos.index.empty() && pos.index[0] < instr->operand_count()) {
      add(instr->operand(pos.index[0]), ShapeIndex(pos.index.begin() + 1, pos.index.end()));
    }
  } else if (IsSimpleForwarder(op)) {
    add(instr->operand(0), pos.index);
  } else if (op == HloOpcode::kWhile) {
    add(instr->operand(0), pos.index);
    const HloComputation* body = instr->GetComputation(AttrId::kBody);
    if (body != nullptr) add(body->root_instruction(), pos.index);
  } else if (op == HloOpcode::kConditional || op == HloOpcode::kCall) {
    for (const HloComputation* callee : instr->called_computations()) {
      add(callee->root_instruction(), pos.index);
    }
  } else if (IsForwardingInstruction(*instr)) {  // a callee's parameter
    const HloInstruction* caller = caller_of(instr->parent());
    if (caller != nullptr && caller->opcode() == HloOpcode::kWhile) {
      add(caller->operand(0), pos.index);
    } else if (caller != nullptr && caller->opcode() == HloOpcode::kConditional) {
      const std::vector<HloComputation*> branches = caller->called_computations();
      for (size_t b = 0; b < branches.size(); ++b) {
        if (branches[b] == instr->parent() && static_cast<int64_t>(b) + 1 < caller->operand_count()) {
          add(caller->operand(b + 1), pos.index);
        }
      }
    } else if (caller != nullptr && instr->parameter_number() < caller->operand_count()) {
      add(caller->operand(instr->parameter_number()), pos.index);
    }
  } else {
    reaching_[position] = {instr};
    return reaching_[position];
  }
  std::vector<const HloInstruction*> out;
  for (int64_t s : sources) {
    const auto& from = Reach(s);
    out.insert(out.end(), from.begin(), from.end());
  }
  std::sort(out.begin(), out.end(), [](const HloInstruction* a, const HloInstruction* b) {
    return a->unique_id() < b->unique_id();
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  reaching_[position] = std::move(out);
  return reaching_[position];
}

const HloInstruction* AliasAnalysis::caller_of(const HloComputation* computation) const {
  auto it = caller_.find(computation);
  return it == caller_.end() ? nullptr : it->second;
}

absl::StatusOr<AliasAnalysis> AliasAnalysis::Run(const HloModule& module) {
  AliasAnalysis aa;
  const std::vector<const HloComputation*> computations = ComputationsNeedingSchedule(module);
  for (const HloComputation* c : computations) {
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : ScheduledCallees(*instr)) {
        auto [it, inserted] = aa.caller_.insert({callee, instr.get()});
        if (inserted) continue;
        return absl::UnimplementedError(absl::StrCat(
            "buffer assignment needs one call site per while body, condition, branch and call "
            "target, but computation ",
            callee->name(), " is called by ", it->second->name(), " and by ", instr->name(),
            ": clone the computation for each caller"));
      }
    }
  }
  // Positions, computation by computation, instruction list order.
  for (const HloComputation* c : computations) {
    for (const auto& instr : c->instructions()) {
      std::vector<ShapeIndex> leaves = ArrayLeaves(instr->shape());
      std::vector<int64_t>& ids = aa.positions_of_[instr.get()];
      for (ShapeIndex& leaf : leaves) {
        ids.push_back(static_cast<int64_t>(aa.positions_.size()));
        aa.positions_.push_back({instr.get(), std::move(leaf)});
      }
    }
  }
  UnionFind uf;
  for (size_t i = 0; i < aa.positions_.size(); ++i) uf.Add();
  auto join = [&](const HloInstruction* a, const HloInstruction* b) {
    const auto& pa = aa.positions_of(a);
    const auto& pb = aa.positions_of(b);
    if (pa.size() != pb.size()) return;  // the verifier reports shape mismatches
    for (size_t i = 0; i < pa.size(); ++i) uf.Union(pa[i], pb[i]);
  };
  for (const HloComputation* c : computations) {
    for (const auto& owned : c->instructions()) {
      const HloInstruction* instr = owned.get();
      const auto& out = aa.positions_of(instr);
      const HloOpcode op = instr->opcode();
      if (op == HloOpcode::kGetTupleElement) {
        const Shape& tuple = instr->operand(0)->shape();
        const int64_t k = instr->tuple_index();
        if (!tuple.IsTuple() || k < 0 || k >= tuple.tuple_shapes_size()) continue;
        int64_t start = 0;
        for (int64_t j = 0; j < k; ++j) start += ArrayLeafCount(tuple.tuple_shapes(j));
        const auto& from = aa.positions_of(instr->operand(0));
        if (start + static_cast<int64_t>(out.size()) > static_cast<int64_t>(from.size())) continue;
        for (size_t i = 0; i < out.size(); ++i) uf.Union(out[i], from[start + i]);
      } else if (op == HloOpcode::kTuple) {
        size_t next = 0;
        for (const HloInstruction* operand : instr->operands()) {
          for (int64_t id : aa.positions_of(operand)) {
            if (next < out.size()) uf.Union(out[next++], id);
          }
        }
      } else if (IsSimpleForwarder(op)) {
        join(instr, instr->operand(0));
      } else if (op == HloOpcode::kWhile) {
        const HloComputation* body = instr->GetComputation(AttrId::kBody);
        const HloComputation* cond = instr->GetComputation(AttrId::kCondition);
        join(instr, instr->operand(0));
        if (body != nullptr) {
          join(instr, body->parameter_instruction(0));
          join(instr, body->root_instruction());
        }
        if (cond != nullptr) join(instr, cond->parameter_instruction(0));
      } else if (op == HloOpcode::kConditional) {
        const std::vector<HloComputation*> branches = instr->called_computations();
        for (size_t b = 0; b < branches.size(); ++b) {
          join(instr, branches[b]->root_instruction());
          if (b + 1 < static_cast<size_t>(instr->operand_count()) &&
              branches[b]->num_parameters() > 0) {
            join(branches[b]->parameter_instruction(0), instr->operand(b + 1));
          }
        }
      } else if (op == HloOpcode::kCall && instr->to_apply() != nullptr) {
        const HloComputation* callee = instr->to_apply();
        join(instr, callee->root_instruction());
        for (int64_t j = 0; j < instr->operand_count() && j < callee->num_parameters(); ++j) {
          join(callee->parameter_instruction(j), instr->operand(j));
        }
      }
    }
  }
  // Dense buffer ids in order of first position.
  aa.buffer_of_.assign(aa.positions_.size(), -1);
  absl::flat_hash_map<int64_t, int64_t> root_to_buffer;
  for (size_t p = 0; p < aa.positions_.size(); ++p) {
    auto [it, inserted] = root_to_buffer.insert(
        {uf.Find(static_cast<int64_t>(p)), static_cast<int64_t>(aa.buffer_positions_.size())});
    if (inserted) aa.buffer_positions_.emplace_back();
    aa.buffer_of_[p] = it->second;
    aa.buffer_positions_[it->second].push_back(static_cast<int64_t>(p));
  }
  aa.ComputeReachingDefinitions();
  return aa;
}

}  // namespace xla
