#include "xla/service/schedule/memory_model.h"

#include <algorithm>
#include <iterator>

namespace xla {
namespace {

void AppendArrayLeaves(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsArray()) {
    out->push_back(&shape);
    return;
  }
  if (!shape.IsTuple()) return;
  for (const Shape& element : shape.tuple_shapes()) AppendArrayLeaves(element, out);
}

}  // namespace

int64_t ArrayLeafCount(const Shape& shape) {
  if (shape.IsArray()) return 1;
  if (!shape.IsTuple()) return 0;
  int64_t n = 0;
  for (const Shape& element : shape.tuple_shapes()) n += ArrayLeafCount(element);
  return n;
}

int64_t ArrayBytes(const Shape& shape) { return shape.ByteSize().value_or(0); }

bool ForwardsBuffers(const HloInstruction& instr) {
  static constexpr HloOpcode kForwarders[] = {
      HloOpcode::kGetTupleElement, HloOpcode::kTuple,         HloOpcode::kBitcast,
      HloOpcode::kOptimizationBarrier, HloOpcode::kAddDependency, HloOpcode::kWhile,
      HloOpcode::kParameter,       HloOpcode::kConstant};
  return std::find(std::begin(kForwarders), std::end(kForwarders), instr.opcode()) !=
         std::end(kForwarders);
}

ComputationMemoryModel::ComputationMemoryModel(const HloComputation& computation) {
  std::vector<HloInstruction*> order = computation.MakePostOrder();
  instructions_.assign(order.begin(), order.end());
  const size_t n = instructions_.size();
  index_.reserve(n);
  for (size_t i = 0; i < n; ++i) index_[instructions_[i]] = static_cast<int64_t>(i);
  owners_.resize(n);
  defined_.resize(n);
  reads_.resize(n);
  auto define_new = [&](int64_t i, bool zero_bytes) {
    std::vector<const Shape*> leaves;
    AppendArrayLeaves(instructions_[i]->shape(), &leaves);
    for (const Shape* leaf : leaves) {
      const int64_t id = static_cast<int64_t>(bytes_.size());
      bytes_.push_back(zero_bytes ? 0 : ArrayBytes(*leaf));
      owners_[i].push_back(id);
      defined_[i].push_back(id);
    }
  };
  for (size_t idx = 0; idx < n; ++idx) {
    const int64_t i = static_cast<int64_t>(idx);
    const HloInstruction& instr = *instructions_[i];
    auto operand_owners = [&](int64_t k) -> const std::vector<int64_t>& {
      return owners_[index_.at(instr.operand(k))];
    };
    const HloOpcode op = instr.opcode();
    if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) {
      define_new(i, /*zero_bytes=*/true);
      continue;
    }
    if (op == HloOpcode::kGetTupleElement) {
      const Shape& tuple = instr.operand(0)->shape();
      const int64_t k = instr.tuple_index();
      if (!tuple.IsTuple() || k < 0 || k >= tuple.tuple_shapes_size()) continue;
      int64_t start = 0;
      for (int64_t j = 0; j < k; ++j) start += ArrayLeafCount(tuple.tuple_shapes(j));
      const int64_t count = ArrayLeafCount(tuple.tuple_shapes(k));
      const auto& from = operand_owners(0);
      if (start + count > static_cast<int64_t>(from.size())) continue;
      owners_[i].assign(from.begin() + start, from.begin() + start + count);
      continue;
    }
    if (op == HloOpcode::kTuple) {
      for (int64_t k = 0; k < instr.operand_count(); ++k) {
        const auto& from = operand_owners(k);
        owners_[i].insert(owners_[i].end(), from.begin(), from.end());
      }
      continue;
    }
    if (ForwardsBuffers(instr)) {  // bitcast, optimization-barrier, add-dependency, while
      if (instr.operand_count() > 0) owners_[i] = operand_owners(0);
      continue;
    }
    for (int64_t k = 0; k < instr.operand_count(); ++k) {
      const auto& from = operand_owners(k);
      reads_[i].insert(reads_[i].end(), from.begin(), from.end());
    }
    std::sort(reads_[i].begin(), reads_[i].end());
    reads_[i].erase(std::unique(reads_[i].begin(), reads_[i].end()), reads_[i].end());
    define_new(i, /*zero_bytes=*/false);
  }
  readers_.resize(bytes_.size());
  live_out_.assign(bytes_.size(), false);
  for (size_t i = 0; i < n; ++i) {
    for (int64_t leaf : reads_[i]) readers_[leaf].push_back(static_cast<int64_t>(i));
  }
  if (computation.root_instruction() != nullptr) {
    for (int64_t leaf : owners_[index_.at(computation.root_instruction())]) live_out_[leaf] = true;
  }
}

}  // namespace xla
