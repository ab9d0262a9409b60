#include "xla/service/buffer_assignment/buffer_assignment.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/service/buffer_assignment/in_place.h"
#include "xla/util/math_util.h"

namespace xla {
namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// `x` rounded up to a multiple of `alignment`; unchanged for no alignment.
int64_t AlignUp(int64_t x, int64_t alignment) { return alignment <= 1 ? x : RoundUp(x, alignment); }

std::string PositionName(const Position& p) {
  return absl::StrCat(p.instruction->name(), ShapeIndexToString(p.index));
}

// Execution order flattened over nested computations: a while, conditional
// or call occupies [span_start, time] and its callees run inside the span.
struct Timeline {
  absl::flat_hash_map<const HloInstruction*, int64_t> time;
  absl::flat_hash_map<const HloInstruction*, int64_t> span_start;
  std::vector<const HloInstruction*> by_time;  // instructions in time order

  void Visit(const HloComputation* c, const HloSchedule& schedule) {
    for (const HloInstruction* instr : schedule.sequence(c)) {
      std::vector<const HloComputation*> callees = ScheduledCallees(*instr);
      if (!callees.empty()) {
        span_start[instr] = Next(nullptr);
        for (const HloComputation* callee : callees) Visit(callee, schedule);
      }
      time[instr] = Next(instr);
    }
  }
  int64_t Next(const HloInstruction* instr) {
    by_time.push_back(instr);
    return static_cast<int64_t>(by_time.size()) - 1;
  }
};

struct BufferInfo {
  int64_t start = kForever;
  int64_t end = -1;
  int64_t size = 0;
  int64_t writers = 0;  // non-forwarding, non-parameter, non-constant positions
  int64_t move_to_host = 0;  // of the writers, custom-call MoveToHost results
  bool host_stack = false;   // a scan stack placed in host memory (scan_offload.h)
  std::vector<int64_t> params;     // positions of entry parameter leaves
  std::vector<int64_t> constants;  // positions of constant leaves
  std::vector<int64_t> outputs;    // positions of entry root leaves
};

// A best-fit free list over one growing region.
class BestFitHeap {
 public:
  int64_t Allocate(int64_t size) {
    auto fit = by_size_.lower_bound({size, std::numeric_limits<int64_t>::min()});
    if (fit != by_size_.end()) {
      const auto [chunk, offset] = *fit;
      Remove(offset, chunk);
      if (chunk > size) Insert(offset + size, chunk - size);
      return offset;
    }
    if (!by_offset_.empty()) {
      auto last = std::prev(by_offset_.end());
      if (last->first + last->second == top_) {
        const int64_t offset = last->first;
        Remove(offset, last->second);
        top_ = offset + size;
        return offset;
      }
    }
    const int64_t offset = top_;
    top_ += size;
    return offset;
  }

  void Free(int64_t offset, int64_t size) {
    auto next = by_offset_.lower_bound(offset);
    if (next != by_offset_.end() && offset + size == next->first) {
      size += next->second;
      Remove(next->first, next->second);
    }
    next = by_offset_.lower_bound(offset);
    if (next != by_offset_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        Remove(prev->first, prev->second);
      }
    }
    Insert(offset, size);
  }

  int64_t size() const { return top_; }

 private:
  void Insert(int64_t offset, int64_t size) {
    by_offset_[offset] = size;
    by_size_.insert({size, offset});
  }
  void Remove(int64_t offset, int64_t size) {
    by_offset_.erase(offset);
    by_size_.erase({size, offset});
  }

  std::map<int64_t, int64_t> by_offset_;
  std::set<std::pair<int64_t, int64_t>> by_size_;
  int64_t top_ = 0;
};

}  // namespace

class BufferAssigner {
 public:
  BufferAssigner(const HloModule& module, const HloSchedule& schedule,
                 const BufferAssignmentOptions& options, const AliasAnalysis& aa)
      : module_(module), schedule_(schedule), options_(options), aa_(aa) {}

  absl::StatusOr<BufferAssignment> Run() {
    timeline_.Visit(module_.entry_computation(), schedule_);
    if (options_.offload_scan_stacks) {
      stacks_ = FindScanStacks(module_, aa_);
      for (const ScanStack& stack : stacks_) stack_moves_.insert(stack.move_to_host);
    }
    absl::Status s = ComputeBufferInfo();
    if (!s.ok()) return s;
    for (int64_t b = 0; b < aa_.buffer_count(); ++b) {
      s = Validate(b);
      if (!s.ok()) return s;
    }
    s = HonourAliases();
    if (!s.ok()) return s;
    PlaceScanStacks();
    if (options_.allow_in_place) MergeInPlace();
    return Allocate();
  }

 private:
  const BufferInfo& info(int64_t b) { return info_[Find(b)]; }
  int64_t Find(int64_t b) {
    while (parent_[b] != b) {
      parent_[b] = parent_[parent_[b]];
      b = parent_[b];
    }
    return b;
  }
  void Merge(int64_t a, int64_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (a > b) std::swap(a, b);
    parent_[b] = a;
    BufferInfo& x = info_[a];
    BufferInfo& y = info_[b];
    x.start = std::min(x.start, y.start);
    x.end = std::max(x.end, y.end);
    x.size = std::max(x.size, y.size);
    x.writers += y.writers;
    x.move_to_host += y.move_to_host;
    x.host_stack = x.host_stack || y.host_stack;
    x.params.insert(x.params.end(), y.params.begin(), y.params.end());
    x.constants.insert(x.constants.end(), y.constants.begin(), y.constants.end());
    x.outputs.insert(x.outputs.end(), y.outputs.begin(), y.outputs.end());
  }

  bool IsDonated(const Position& p) const {
    const int64_t n = p.instruction->parameter_number();
    for (const InputOutputAlias& a : module_.config().input_output_alias) {
      if (a.parameter_number == n && a.parameter_index == p.index) return true;
    }
    for (const BufferDonor& d : module_.config().buffer_donor) {
      if (d.parameter_number == n && d.parameter_index == p.index) return true;
    }
    return false;
  }

  bool AliasedTo(const Position& param, const Position& output) const {
    for (const InputOutputAlias& a : module_.config().input_output_alias) {
      if (a.parameter_number == param.instruction->parameter_number() &&
          a.parameter_index == param.index && a.output_index == output.index) {
        return true;
      }
    }
    for (const BufferDonor& d : module_.config().buffer_donor) {
      if (d.parameter_number == param.instruction->parameter_number() &&
          d.parameter_index == param.index) {
        return true;
      }
    }
    return false;
  }

  absl::Status ComputeBufferInfo() {
    info_.assign(aa_.buffer_count(), BufferInfo());
    parent_.resize(aa_.buffer_count());
    for (int64_t b = 0; b < aa_.buffer_count(); ++b) parent_[b] = b;
    const HloInstruction* root = module_.entry_computation()->root_instruction();
    for (int64_t p = 0; p < aa_.position_count(); ++p) {
      const Position& pos = aa_.position(p);
      BufferInfo& bi = info_[aa_.buffer_of(p)];
      auto t = timeline_.time.find(pos.instruction);
      if (t == timeline_.time.end()) continue;  // unreachable: not in the schedule
      bi.start = std::min(bi.start, t->second);
      bi.end = std::max(bi.end, t->second);
      std::optional<int64_t> bytes = pos.shape().ByteSize();
      if (!bytes.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("buffer assignment: the size of ", PositionName(pos), " (",
                         pos.shape().ToString(), ") overflows int64"));
      }
      bi.size = std::max(bi.size, *bytes);
      const HloInstruction* instr = pos.instruction;
      if (instr->opcode() == HloOpcode::kParameter && instr->parent()->is_entry()) {
        bi.params.push_back(p);
      } else if (instr->opcode() == HloOpcode::kConstant) {
        bi.constants.push_back(p);
      } else if (!IsForwardingInstruction(*instr)) {
        ++bi.writers;
        // A scan stack's MoveToHost shares its operand's device buffer.
        if (IsMoveToHost(*instr) && !stack_moves_.contains(instr)) ++bi.move_to_host;
      }
      if (instr == root) {
        bi.outputs.push_back(p);
        bi.end = kForever;
      }
    }
    // Reads: each non-forwarding instruction reads its operands at its time;
    // a read inside a loop keeps a buffer from outside alive to the loop's end.
    for (const HloInstruction* y : timeline_.by_time) {
      if (y == nullptr) continue;
      const bool reads_all = !IsForwardingInstruction(*y);
      const bool reads_predicate = y->opcode() == HloOpcode::kConditional;
      if (!reads_all && !reads_predicate) continue;
      const int64_t t = timeline_.time.at(y);
      const int64_t n = reads_all ? y->operand_count() : 1;
      for (int64_t k = 0; k < n; ++k) {
        for (int64_t p : aa_.positions_of(y->operand(k))) {
          BufferInfo& bi = info_[aa_.buffer_of(p)];
          bi.end = std::max(bi.end, t);
          for (const HloInstruction* w = aa_.caller_of(y->parent()); w != nullptr;
               w = aa_.caller_of(w->parent())) {
            if (w->opcode() != HloOpcode::kWhile) continue;
            if (bi.start < timeline_.span_start.at(w)) bi.end = std::max(bi.end, timeline_.time.at(w));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status NeedsCopy(int64_t b, absl::string_view why) {
    std::string where;
    for (int64_t p : aa_.buffer_positions(b)) {
      if (!where.empty()) absl::StrAppend(&where, ", ");
      if (where.size() > 300) {
        absl::StrAppend(&where, "...");
        break;
      }
      absl::StrAppend(&where, PositionName(aa_.position(p)));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("buffer assignment: the buffer shared by ", where, " ", why,
                     "; run AddCopiesForWhileAndConditional before scheduling"));
  }

  absl::Status Validate(int64_t b) {
    const BufferInfo& bi = info_[b];
    if (bi.params.size() + bi.constants.size() > 1) {
      return NeedsCopy(b, "would hold more than one parameter or constant");
    }
    if (!bi.constants.empty() && (bi.writers > 0 || !bi.outputs.empty())) {
      return NeedsCopy(b, "would be written over a constant or returned");
    }
    if (bi.outputs.size() > 1) return NeedsCopy(b, "is returned at more than one result index");
    if (!bi.params.empty()) {
      const Position& param = aa_.position(bi.params[0]);
      if (bi.writers > 0 && !IsDonated(param)) {
        return NeedsCopy(b, "would be written over a parameter that is not donated");
      }
      if (!bi.outputs.empty() && !AliasedTo(param, aa_.position(bi.outputs[0]))) {
        return NeedsCopy(b, "returns a parameter that may not alias the result");
      }
    }
    return absl::OkStatus();
  }

  // Whether one buffer may hold both a's and b's positions (fixed kinds).
  bool CompatibleKinds(const BufferInfo& a, const BufferInfo& b) {
    if (!a.constants.empty() || !b.constants.empty()) return false;
    // An offloaded buffer never shares bytes with a device one.
    if (InHostSpace(a) != InHostSpace(b)) return false;
    if (a.params.size() + b.params.size() > 1) return false;
    if (a.outputs.size() + b.outputs.size() > 1) return false;
    const std::vector<int64_t>& params = a.params.empty() ? b.params : a.params;
    const std::vector<int64_t>& outputs = a.outputs.empty() ? b.outputs : a.outputs;
    if (params.empty()) return true;
    if (!IsDonated(aa_.position(params[0]))) return false;
    return outputs.empty() || AliasedTo(aa_.position(params[0]), aa_.position(outputs[0]));
  }

  // Whether every operand of `y` other than `k` that reads buffer `b` may
  // also share it with y's result: y(p, bitcast(p)) written over p is only
  // correct when both operands allow it (a dynamic-update-slice fusion
  // reading the updated array through a second operand does not).
  bool OtherOperandsAllowSharing(const HloInstruction& y, int64_t k, int64_t leaf, int64_t b) {
    for (int64_t j = 0; j < y.operand_count(); ++j) {
      if (j == k) continue;
      for (int64_t p : aa_.positions_of(y.operand(j))) {
        if (Find(aa_.buffer_of(p)) == b && !CanShareOperandBufferAt(y, j, leaf)) return false;
      }
    }
    return true;
  }

  // Each result leaf of each instruction (one for an array result; each
  // leaf of a multi-output loop fusion, in_place.h) takes over the buffer of
  // the first operand that dies at the instruction and may share it.
  void MergeInPlace() {
    for (const HloInstruction* y : timeline_.by_time) {
      if (y == nullptr || IsForwardingInstruction(*y)) continue;
      if (y->opcode() == HloOpcode::kParameter || y->opcode() == HloOpcode::kConstant) continue;
      const auto& out = aa_.positions_of(y);
      if (y->shape().IsArray() ? out.size() != 1 : out.size() != y->shape().tuple_shapes().size()) {
        continue;
      }
      for (size_t leaf = 0; leaf < out.size(); ++leaf) {
        MergeLeafInPlace(*y, static_cast<int64_t>(leaf), out[leaf]);
      }
    }
  }

  void MergeLeafInPlace(const HloInstruction& y, int64_t leaf, int64_t position) {
    const int64_t t = timeline_.time.at(&y);
    for (int64_t k = 0; k < y.operand_count(); ++k) {
      const auto& in = aa_.positions_of(y.operand(k));
      if (in.size() != 1 || !CanShareOperandBufferAt(y, k, leaf)) continue;
      const int64_t bo = Find(aa_.buffer_of(in[0]));
      const int64_t by = Find(aa_.buffer_of(position));
      if (bo == by) return;  // already the same buffer (for example a loop buffer)
      const BufferInfo& o = info_[bo];
      const BufferInfo& r = info_[by];
      if (o.end != t || r.start != t || !CompatibleKinds(o, r)) continue;
      if (!OtherOperandsAllowSharing(y, k, leaf, bo)) continue;
      Merge(bo, by);
      ++in_place_count_;
      return;
    }
  }

  // Whether buffer `later` can reuse the bytes of buffer `earlier`: same
  // size, and `earlier` is dead when `later` is first written, or read last
  // by that very write in place.
  bool CanFollow(int64_t earlier, int64_t later) {
    const BufferInfo& e = info_[Find(earlier)];
    const BufferInfo& l = info_[Find(later)];
    if (e.size != l.size) return false;
    if (e.end < l.start) return true;
    if (e.end != l.start) return false;
    const HloInstruction* y = timeline_.by_time[l.start];
    if (y == nullptr || IsForwardingInstruction(*y)) return false;
    const std::optional<int64_t> leaf = LeafWritingBuffer(*y, Find(later));
    if (!leaf.has_value()) return false;
    for (int64_t k = 0; k < y->operand_count(); ++k) {
      for (int64_t p : aa_.positions_of(y->operand(k))) {
        if (Find(aa_.buffer_of(p)) == Find(earlier) && !CanShareOperandBufferAt(*y, k, *leaf)) {
          return false;
        }
      }
    }
    return true;
  }

  // The array leaf of `y`'s result that is buffer root `b`, or nullopt.
  std::optional<int64_t> LeafWritingBuffer(const HloInstruction& y, int64_t b) {
    const std::vector<int64_t>& out = aa_.positions_of(&y);
    for (size_t j = 0; j < out.size(); ++j) {
      if (Find(aa_.buffer_of(out[j])) == b) return static_cast<int64_t>(j);
    }
    return std::nullopt;
  }

  absl::Status HonourAliases() {
    const HloComputation* entry = module_.entry_computation();
    for (const InputOutputAlias& alias : module_.config().input_output_alias) {
      std::optional<int64_t> out = aa_.FindPosition(entry->root_instruction(), alias.output_index);
      const HloInstruction* param = alias.parameter_number < entry->num_parameters()
                                        ? entry->parameter_instruction(alias.parameter_number)
                                        : nullptr;
      std::optional<int64_t> in =
          param == nullptr ? std::nullopt : aa_.FindPosition(param, alias.parameter_index);
      if (!out.has_value() || !in.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_output_alias names output ", ShapeIndexToString(alias.output_index),
            " and parameter ", alias.parameter_number, " ",
            ShapeIndexToString(alias.parameter_index), ", which are not both array leaves"));
      }
      const int64_t bo = Find(aa_.buffer_of(*out));
      const int64_t bp = Find(aa_.buffer_of(*in));
      if (bo == bp) continue;
      const BufferInfo& o = info_[bo];
      const BufferInfo& p = info_[bp];
      if (CanFollow(bp, bo) && CompatibleKinds(o, p)) {
        Merge(bo, bp);
        continue;
      }
      if (alias.kind == "must-alias") {
        return absl::FailedPreconditionError(absl::StrCat(
            "buffer assignment cannot honour must-alias of output ",
            ShapeIndexToString(alias.output_index), " with parameter ", alias.parameter_number,
            " ", ShapeIndexToString(alias.parameter_index),
            ": the parameter is still read after the output is written"));
      }
    }
    // Donated parameters without a declared alias: give each to the first
    // result of the same size that starts after the parameter's last read.
    for (const BufferDonor& donor : module_.config().buffer_donor) {
      const HloInstruction* param = donor.parameter_number < entry->num_parameters()
                                        ? entry->parameter_instruction(donor.parameter_number)
                                        : nullptr;
      std::optional<int64_t> in =
          param == nullptr ? std::nullopt : aa_.FindPosition(param, donor.parameter_index);
      if (!in.has_value()) continue;
      const int64_t bp = Find(aa_.buffer_of(*in));
      if (!info_[bp].outputs.empty()) continue;
      for (int64_t out : aa_.positions_of(entry->root_instruction())) {
        const int64_t bo = Find(aa_.buffer_of(out));
        const BufferInfo& o = info_[bo];
        const BufferInfo& p = info_[bp];
        if (bo == bp || !o.params.empty() || !CanFollow(bp, bo) || !CompatibleKinds(o, p)) {
          continue;
        }
        Merge(bo, bp);
        break;
      }
    }
    return absl::OkStatus();
  }

  int64_t NewAllocation(int64_t size) {
    BufferAllocation a;
    a.index = static_cast<int64_t>(result_.allocations_.size());
    a.size = size;
    result_.allocations_.push_back(std::move(a));
    return result_.allocations_.back().index;
  }

  absl::StatusOr<BufferAssignment> Allocate() {
    const HloComputation* entry = module_.entry_computation();
    // (allocation, offset) per merged buffer root.
    absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>> placed;
    for (const HloInstruction* param : entry->parameter_instructions()) {
      if (param == nullptr) continue;
      for (int64_t p : aa_.positions_of(param)) {
        const int64_t b = Find(aa_.buffer_of(p));
        const int64_t a = NewAllocation(info_[b].size);
        BufferAllocation& alloc = result_.allocations_[a];
        alloc.is_parameter = true;
        alloc.parameter_number = param->parameter_number();
        alloc.parameter_shape_index = aa_.position(p).index;
        placed[b] = {a, 0};
      }
    }
    int64_t constant_index = 0;
    for (const HloInstruction* instr : timeline_.by_time) {
      if (instr == nullptr || instr->opcode() != HloOpcode::kConstant) continue;
      for (int64_t p : aa_.positions_of(instr)) {
        const int64_t b = Find(aa_.buffer_of(p));
        const int64_t a = NewAllocation(info_[b].size);
        BufferAllocation& alloc = result_.allocations_[a];
        alloc.is_constant = true;
        alloc.constant_index = constant_index++;
        alloc.constant = instr;
        alloc.constant_shape_index = aa_.position(p).index;
        placed[b] = {a, 0};
      }
    }
    for (int64_t p : aa_.positions_of(entry->root_instruction())) {
      const int64_t b = Find(aa_.buffer_of(p));
      auto it = placed.find(b);
      if (it == placed.end()) it = placed.insert({b, {NewAllocation(info_[b].size), 0}}).first;
      result_.allocations_[it->second.first].is_output = true;
    }
    AllocateTemps(&placed);
    for (int64_t p = 0; p < aa_.position_count(); ++p) {
      const Position& pos = aa_.position(p);
      auto it = placed.find(Find(aa_.buffer_of(p)));
      if (it == placed.end()) continue;  // not scheduled (unreachable)
      BufferSlice slice{it->second.first, it->second.second, pos.shape().ByteSize().value_or(0)};
      result_.slices_[pos.instruction].push_back({pos.index, slice});
    }
    for (int64_t p : aa_.positions_of(entry->root_instruction())) {
      const Position& pos = aa_.position(p);
      result_.output_slices_.push_back({pos.index, *result_.GetSlice(pos.instruction, pos.index)});
    }
    for (const HloComputation* c : schedule_.computations()) {
      result_.order_.push_back({c, schedule_.sequence(c)});
    }
    result_.in_place_count_ = in_place_count_;
    for (const ScanStack& stack : stacks_) {
      const BufferSlice& s = result_.slices_.at(stack.update)[0].second;
      if (result_.allocations_[s.allocation].memory_space == kHostMemorySpace) {
        result_.scan_stacks_.push_back(stack);
      }
    }
    return std::move(result_);
  }

  // Whether merged buffer `b` lives in host memory: a scan stack, or
  // written only by MoveToHost, and neither a parameter, a constant nor a
  // result.
  bool InHostMemory(int64_t b) {
    const BufferInfo& bi = info(b);
    if (bi.host_stack) return true;
    return bi.move_to_host > 0 && bi.move_to_host == bi.writers && bi.params.empty() &&
           bi.constants.empty() && bi.outputs.empty();
  }

  // Whether a buffer is (or joins) host-memory data, for CompatibleKinds.
  static bool InHostSpace(const BufferInfo& bi) { return bi.move_to_host > 0 || bi.host_stack; }

  // The merged buffer of `instr`'s one array leaf.
  int64_t BufferOf(const HloInstruction* instr) { return Find(aa_.buffer_of(aa_.positions_of(instr)[0])); }

  // Scan stacks (scan_offload.h): each MoveToHost that feeds a stack shares
  // its operand's device buffer, and each read (its dynamic-slice) shares
  // its MoveToDevice's buffer, when the kinds allow; both stay correct
  // even where the stack stays on the device (the copy between equal
  // slices is then nothing). Then the stack's buffer is marked for the
  // host temp allocation. Before MergeInPlace, so that no in-place write
  // reuses these bytes while the shared value is still read.
  void PlaceScanStacks() {
    for (const ScanStack& stack : stacks_) {
      MergeIfCompatible(stack.move_to_host, stack.move_to_host->operand(0));
      for (const ScanStackRead& read : stack.reads) MergeIfCompatible(read.slice, read.move_to_device);
      BufferInfo& bi = info_[BufferOf(stack.update)];
      if (!bi.params.empty() || !bi.constants.empty() || !bi.outputs.empty()) continue;
      bi.host_stack = true;
    }
  }

  void MergeIfCompatible(const HloInstruction* a, const HloInstruction* b) {
    if (aa_.positions_of(a).size() != 1 || aa_.positions_of(b).size() != 1) return;
    const int64_t x = BufferOf(a), y = BufferOf(b);
    if (x != y && CompatibleKinds(info_[x], info_[y])) Merge(x, y);
  }

  void AllocateTemps(absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>>* placed) {
    AllocateTemps(kDeviceMemorySpace, placed);
    AllocateTemps(kHostMemorySpace, placed);
  }

  // Packs the unplaced buffers of `memory_space` into one new temp
  // allocation (none when there are none).
  void AllocateTemps(int64_t memory_space,
                     absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>>* placed) {
    struct Item {
      int64_t start, end, size, buffer;
    };
    const bool host = memory_space == kHostMemorySpace;
    std::vector<Item> items;
    for (int64_t b = 0; b < aa_.buffer_count(); ++b) {
      if (Find(b) != b || placed->contains(b) || info_[b].end < 0) continue;
      if (InHostMemory(b) != host) continue;
      items.push_back({info_[b].start, info_[b].end, AlignUp(info_[b].size, options_.alignment), b});
    }
    if (items.empty()) return;
    std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
      return std::make_pair(x.start, x.buffer) < std::make_pair(y.start, y.buffer);
    });
    const int64_t temp = NewAllocation(0);
    result_.allocations_[temp].is_temp = true;
    result_.allocations_[temp].memory_space = memory_space;
    int64_t naive = 0, peak = 0;
    BestFitHeap heap;
    // (end, offset, size) of live items, earliest end on top.
    using Live = std::tuple<int64_t, int64_t, int64_t>;
    std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
    int64_t live_bytes = 0;
    for (const Item& item : items) {
      while (!live.empty() && std::get<0>(live.top()) < item.start) {
        const auto [end, offset, size] = live.top();
        live.pop();
        heap.Free(offset, size);
        live_bytes -= size;
      }
      naive += item.size;
      int64_t offset = 0;
      if (item.size > 0) {
        offset = heap.Allocate(item.size);
        live.push({item.end, offset, item.size});
        live_bytes += item.size;
        peak = std::max(peak, live_bytes);
      }
      (*placed)[item.buffer] = {temp, offset};
    }
    result_.allocations_[temp].size = heap.size();
    if (host) {
      result_.host_temp_bytes_ = heap.size();
      return;
    }
    result_.naive_temp_bytes_ = naive;
    result_.peak_live_temp_bytes_ = peak;
    result_.total_temp_bytes_ = heap.size();
  }

  const HloModule& module_;
  const HloSchedule& schedule_;
  const BufferAssignmentOptions& options_;
  const AliasAnalysis& aa_;
  Timeline timeline_;
  std::vector<BufferInfo> info_;
  std::vector<int64_t> parent_;
  int64_t in_place_count_ = 0;
  BufferAssignment result_;
  std::vector<ScanStack> stacks_;
  absl::flat_hash_set<const HloInstruction*> stack_moves_;
};

absl::StatusOr<BufferSlice> BufferAssignment::GetSlice(const HloInstruction* instr,
                                                       const ShapeIndex& index) const {
  auto it = slices_.find(instr);
  if (it != slices_.end()) {
    for (const auto& [leaf, slice] : it->second) {
      if (leaf == index) return slice;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "no buffer slice for ", instr->name(), ShapeIndexToString(index),
      ": it is not an array leaf of an instruction in a computation that owns buffers"));
}

std::string BufferAssignment::ToString() const {
  std::string out = "allocations:\n";
  for (const BufferAllocation& a : allocations_) {
    absl::StrAppend(&out, "  allocation ", a.index, ": size=", a.size);
    if (a.is_parameter) {
      absl::StrAppend(&out, " parameter=", a.parameter_number,
                      ShapeIndexToString(a.parameter_shape_index));
    }
    if (a.is_constant) {
      absl::StrAppend(&out, " constant=", a.constant_index, " (", a.constant->name(),
                      ShapeIndexToString(a.constant_shape_index), ")");
    }
    if (a.is_output) absl::StrAppend(&out, " output");
    if (a.is_temp) absl::StrAppend(&out, " temp");
    if (a.memory_space != kDeviceMemorySpace) absl::StrAppend(&out, " memory_space=", a.memory_space);
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "slices:\n");
  for (const auto& [c, seq] : order_) {
    absl::StrAppend(&out, "  computation ", c->name(), "\n");
    for (const HloInstruction* instr : seq) {
      auto it = slices_.find(instr);
      if (it == slices_.end()) continue;
      for (const auto& [index, s] : it->second) {
        absl::StrAppend(&out, "    ", instr->name(), ShapeIndexToString(index), " -> allocation ",
                        s.allocation, " [", s.offset, ", ", s.offset + s.size, ")\n");
      }
    }
  }
  absl::StrAppend(&out, "outputs:\n");
  for (const auto& [index, s] : output_slices_) {
    absl::StrAppend(&out, "  ", ShapeIndexToString(index), " -> allocation ", s.allocation, " [",
                    s.offset, ", ", s.offset + s.size, ")\n");
  }
  absl::StrAppend(&out, "stats: temp_bytes=", total_temp_bytes_,
                  host_temp_bytes_ > 0 ? absl::StrCat(" host_temp_bytes=", host_temp_bytes_) : "",
                  " naive_temp_bytes=", naive_temp_bytes_,
                  " peak_live_temp_bytes=", peak_live_temp_bytes_,
                  " in_place=", in_place_count_, "\n");
  for (const ScanStack& s : scan_stacks_) {
    absl::StrAppend(&out, "scan stack in host memory: ", s.loop->name(), "{", s.leaf, "} ", s.rows,
                    " rows of ", s.row_bytes, " bytes, written by ", s.update->name(), " at row ",
                    s.base, " + ", s.stride, " * i, read by ", s.reads.size(), "; init ",
                    s.init->name(), s.init_dead ? " dropped (never read)" : " kept", "\n");
  }
  return out;
}

bool IsMoveToHost(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.GetString(AttrId::kCustomCallTarget) == "MoveToHost";
}

bool IsMoveToDevice(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.GetString(AttrId::kCustomCallTarget) == "MoveToDevice";
}

absl::StatusOr<BufferAssignment> AssignBuffers(const HloModule& module,
                                               const HloSchedule& schedule,
                                               const BufferAssignmentOptions& options) {
  absl::Status valid = schedule.Verify(module);
  if (!valid.ok()) return valid;
  absl::StatusOr<AliasAnalysis> aa = AliasAnalysis::Run(module);
  if (!aa.ok()) return aa.status();
  return BufferAssigner(module, schedule, options, *aa).Run();
}

}  // namespace xla
