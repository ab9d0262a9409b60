#include "xla/hlo/evaluator/replicated_evaluator.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/ir/collective_groups.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using Group = std::vector<int64_t>;
using Values = std::vector<Literal>;  // one participant's operands

std::string Describe(const HloInstruction& instr) {
  return absl::StrCat(HloOpcodeName(instr.opcode()), " '", instr.name(), "'");
}

template <typename... Args>
absl::Status InstrError(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(absl::StrCat(Describe(instr), ": ", pieces...));
}

// ---- literal helpers (row-major arrays) ----

Literal MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal out(Shape::Tuple(std::move(shapes)));
  *out.mutable_tuple_elements() = std::move(elements);
  return out;
}

// One operand as is, several as a tuple (as the single evaluator does).
Literal AsValue(const Values& values) {
  if (values.size() == 1) return values[0];
  return MakeTuple(values);
}

int64_t ElementBytes(const Literal& a) {
  return a.element_count() == 0 ? 0 : static_cast<int64_t>(a.data().size()) / a.element_count();
}

// Checks that `a` is an array with dimension `dim`.
absl::Status CheckArrayDim(const HloInstruction& instr, const Literal& a, int64_t dim) {
  if (!a.shape().IsArray()) {
    return InstrError(instr, "operands must be arrays, got ", a.shape().ToString(false));
  }
  if (dim < 0 || dim >= a.shape().rank()) {
    return InstrError(instr, "dimension ", dim, " is out of range for ", a.shape().ToString(false));
  }
  return absl::OkStatus();
}

// `parts` (arrays equal except in `dim`) concatenated along `dim`.
absl::StatusOr<Literal> Concat(const HloInstruction& instr,
                               const std::vector<const Literal*>& parts, int64_t dim) {
  const Literal& first = *parts[0];
  std::vector<int64_t> dims = first.shape().dimensions();
  RETURN_IF_ERROR(CheckArrayDim(instr, first, dim));
  int64_t total = 0;
  for (const Literal* p : parts) {
    RETURN_IF_ERROR(CheckArrayDim(instr, *p, dim));
    std::vector<int64_t> pd = p->shape().dimensions();
    pd[dim] = dims[dim];
    if (pd != dims || p->shape().element_type() != first.shape().element_type()) {
      return InstrError(instr, "participants' operands differ: ", first.shape().ToString(false),
                        " and ", p->shape().ToString(false));
    }
    total += p->shape().dimensions(dim);
  }
  dims[dim] = total;
  Literal out(Shape::Array(first.shape().element_type(), dims));
  const int64_t outer = Product(dims, 0, dim);
  const int64_t inner = Product(dims, dim + 1, dims.size()) * ElementBytes(first);
  uint8_t* dst = out.mutable_data().data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Literal* p : parts) {
      const int64_t block = p->shape().dimensions(dim) * inner;
      if (block == 0) continue;
      std::memcpy(dst, p->data().data() + o * block, block);
      dst += block;
    }
  }
  return out;
}

// Chunk `index` of `count` equal chunks of `a` along `dim`.
absl::StatusOr<Literal> Chunk(const HloInstruction& instr, const Literal& a, int64_t dim,
                              int64_t index, int64_t count) {
  RETURN_IF_ERROR(CheckArrayDim(instr, a, dim));
  std::vector<int64_t> dims = a.shape().dimensions();
  if (dims[dim] % count != 0) {
    return InstrError(instr, "dimension ", dim, " of ", a.shape().ToString(false),
                      " does not split into ", count, " equal parts (one per participant)");
  }
  const int64_t full = dims[dim];
  dims[dim] = full / count;
  Literal out(Shape::Array(a.shape().element_type(), dims));
  const int64_t outer = Product(dims, 0, dim);
  const int64_t inner = Product(dims, dim + 1, dims.size()) * ElementBytes(a);
  const int64_t block = dims[dim] * inner;
  for (int64_t o = 0; o < outer && block > 0; ++o) {
    std::memcpy(out.mutable_data().data() + o * block,
                a.data().data() + (o * full + index * dims[dim]) * inner, block);
  }
  return out;
}

// Element `i` of array `a` as a scalar literal.
Literal ScalarAt(const Literal& a, int64_t i) {
  Literal s(Shape::Scalar(a.shape().element_type()));
  const int64_t w = ElementBytes(a);
  std::memcpy(s.mutable_data().data(), a.data().data() + i * w, w);
  return s;
}

// to_apply folded left over `parts` (same shape, in group order; `group`
// their members' ids), element by element, taking the members in ascending
// id order whatever order the group lists them in: the order the runtime's
// communicators combine ranks in (a clique's ranks are its sorted device
// ids), so that floating-point sums agree bit for bit.
absl::StatusOr<Literal> Reduce(const HloInstruction& instr,
                               const std::vector<const Literal*>& group_parts, const Group& group,
                               const EvaluatorOptions& options) {
  std::vector<size_t> order(group_parts.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return group[a] < group[b]; });
  std::vector<const Literal*> parts;
  for (size_t k : order) parts.push_back(group_parts[k]);
  const HloComputation* reducer = instr.GetComputation(AttrId::kToApply);
  if (reducer == nullptr) return InstrError(instr, "needs a to_apply computation");
  const Literal& first = *parts[0];
  for (const Literal* p : parts) {
    if (!p->shape().IsArray() || !ShapesCompatible(p->shape(), first.shape(), true)) {
      return InstrError(instr, "participants' operands differ or are not arrays: ",
                        first.shape().ToString(false), " and ", p->shape().ToString(false));
    }
  }
  Literal out = first;
  HloEvaluator evaluator(options);
  const int64_t w = ElementBytes(first);
  for (int64_t i = 0; i < first.element_count(); ++i) {
    Literal acc = ScalarAt(first, i);
    for (size_t k = 1; k < parts.size(); ++k) {
      Literal next = ScalarAt(*parts[k], i);
      const Literal* args[] = {&acc, &next};
      ASSIGN_OR_RETURN(acc, evaluator.EvaluateComputation(*reducer, args));
      if (acc.shape().element_type() != first.shape().element_type() || !acc.shape().IsScalar()) {
        return InstrError(instr, "to_apply '", reducer->name(), "' returned ",
                          acc.shape().ToString(false), " for ", first.shape().ToString(false),
                          " operands");
      }
    }
    std::memcpy(out.mutable_data().data() + i * w, acc.data().data(), w);
  }
  return out;
}

// The operand `o` of every member.
std::vector<const Literal*> Column(const std::vector<Values>& inputs, size_t o) {
  std::vector<const Literal*> out;
  for (const Values& v : inputs) out.push_back(&v[o]);
  return out;
}

// The split/concat dimension of an op (`dimensions={d}`), or an error.
absl::StatusOr<int64_t> OneDimension(const HloInstruction& instr) {
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1) return InstrError(instr, "needs dimensions={d}");
  return dims[0];
}

// ---- per-op group semantics: every member's result from every member's operands ----

using GroupResults = std::vector<Literal>;

absl::StatusOr<GroupResults> AllReduce(const HloInstruction& instr,
                                       const std::vector<Values>& inputs,
                                       const Group& group, const EvaluatorOptions& options) {
  Values reduced;
  for (size_t o = 0; o < inputs[0].size(); ++o) {
    ASSIGN_OR_RETURN(Literal r, Reduce(instr, Column(inputs, o), group, options));
    reduced.push_back(std::move(r));
  }
  return GroupResults(inputs.size(), AsValue(reduced));
}

absl::StatusOr<Literal> Gathered(const HloInstruction& instr, const std::vector<Values>& inputs) {
  ASSIGN_OR_RETURN(int64_t dim, OneDimension(instr));
  Values gathered;
  for (size_t o = 0; o < inputs[0].size(); ++o) {
    ASSIGN_OR_RETURN(Literal g, Concat(instr, Column(inputs, o), dim));
    gathered.push_back(std::move(g));
  }
  return AsValue(gathered);
}

absl::StatusOr<GroupResults> AllGather(const HloInstruction& instr,
                                       const std::vector<Values>& inputs, const Group& group, const EvaluatorOptions&) {
  ASSIGN_OR_RETURN(Literal gathered, Gathered(instr, inputs));
  return GroupResults(inputs.size(), gathered);
}

// all-gather-start: (operands, gathered) when the declared shape is that pair
// (as XLA prints it), the gathered value otherwise.
absl::StatusOr<GroupResults> AllGatherStart(const HloInstruction& instr,
                                            const std::vector<Values>& inputs,
                                            const Group& group, const EvaluatorOptions&) {
  ASSIGN_OR_RETURN(Literal gathered, Gathered(instr, inputs));
  const Shape& declared = instr.shape();
  const bool pair = declared.IsTuple() && declared.tuple_shapes_size() == 2 &&
                    (inputs[0].size() == 1 || declared.tuple_shapes(0).IsTuple());
  GroupResults out;
  for (const Values& mine : inputs) {
    if (!pair) {
      out.push_back(gathered);
      continue;
    }
    std::vector<Literal> elements;
    elements.push_back(AsValue(mine));
    elements.push_back(gathered);
    out.push_back(MakeTuple(std::move(elements)));
  }
  return out;
}

absl::StatusOr<GroupResults> ReduceScatter(const HloInstruction& instr,
                                           const std::vector<Values>& inputs,
                                           const Group& group, const EvaluatorOptions& options) {
  ASSIGN_OR_RETURN(int64_t dim, OneDimension(instr));
  const int64_t n = static_cast<int64_t>(inputs.size());
  std::vector<Values> per_member(n);
  for (size_t o = 0; o < inputs[0].size(); ++o) {
    ASSIGN_OR_RETURN(Literal reduced, Reduce(instr, Column(inputs, o), group, options));
    for (int64_t j = 0; j < n; ++j) {
      ASSIGN_OR_RETURN(Literal chunk, Chunk(instr, reduced, dim, j, n));
      per_member[j].push_back(std::move(chunk));
    }
  }
  GroupResults out;
  for (const Values& v : per_member) out.push_back(AsValue(v));
  return out;
}

absl::StatusOr<GroupResults> AllToAll(const HloInstruction& instr,
                                      const std::vector<Values>& inputs, const Group& group, const EvaluatorOptions&) {
  const int64_t n = static_cast<int64_t>(inputs.size());
  GroupResults out;
  if (instr.dimensions().empty() && !instr.has_attr(AttrId::kSplitDimension)) {
    // Tuple form: n operands, operand j of member i goes to member j as
    // element i.
    if (static_cast<int64_t>(inputs[0].size()) != n) {
      return InstrError(instr, "without dimensions, needs one operand per participant (", n,
                        "), got ", inputs[0].size());
    }
    for (int64_t j = 0; j < n; ++j) {
      std::vector<Literal> elements;
      for (int64_t i = 0; i < n; ++i) elements.push_back(inputs[i][j]);
      out.push_back(n == 1 && !instr.shape().IsTuple() ? std::move(elements[0])
                                                       : MakeTuple(std::move(elements)));
    }
    return out;
  }
  const int64_t dim =
      instr.dimensions().empty() ? instr.GetInt(AttrId::kSplitDimension) : instr.dimensions()[0];
  for (int64_t j = 0; j < n; ++j) {
    Values mine;
    for (size_t o = 0; o < inputs[0].size(); ++o) {
      std::vector<Literal> chunks;
      for (int64_t i = 0; i < n; ++i) {
        ASSIGN_OR_RETURN(Literal c, Chunk(instr, inputs[i][o], dim, j, n));
        chunks.push_back(std::move(c));
      }
      std::vector<const Literal*> ptrs;
      for (const Literal& c : chunks) ptrs.push_back(&c);
      ASSIGN_OR_RETURN(Literal joined, Concat(instr, ptrs, dim));
      mine.push_back(std::move(joined));
    }
    out.push_back(AsValue(mine));
  }
  return out;
}

absl::StatusOr<GroupResults> CollectiveBroadcast(const HloInstruction&,
                                                 const std::vector<Values>& inputs,
                                                 const Group& group, const EvaluatorOptions&) {
  return GroupResults(inputs.size(), AsValue(inputs[0]));
}

// Member j's permuted value: the operands of the source paired with j, or
// zeros.
absl::StatusOr<GroupResults> Permuted(const HloInstruction& instr,
                                      const std::vector<Values>& inputs) {
  const int64_t n = static_cast<int64_t>(inputs.size());
  using Pairs = std::vector<std::vector<int64_t>>;
  const AttrValue* attr = instr.FindAttr(AttrId::kSourceTargetPairs);
  const Pairs* pairs = attr == nullptr ? nullptr : std::get_if<Pairs>(attr);
  std::vector<int64_t> source(n, -1);
  for (size_t k = 0; pairs != nullptr && k < pairs->size(); ++k) {
    const std::vector<int64_t>& p = (*pairs)[k];
    if (p.size() != 2 || p[0] < 0 || p[0] >= n || p[1] < 0 || p[1] >= n) {
      return InstrError(instr, "source_target_pairs entry ", k, " is not a pair of ids in [0, ", n,
                        ")");
    }
    if (source[p[1]] >= 0) return InstrError(instr, "target ", p[1], " appears twice");
    source[p[1]] = p[0];
  }
  GroupResults out;
  for (int64_t j = 0; j < n; ++j) {
    Literal own = AsValue(inputs[j]);
    out.push_back(source[j] >= 0 ? AsValue(inputs[source[j]]) : Literal(own.shape()));
  }
  return out;
}

absl::StatusOr<GroupResults> CollectivePermute(const HloInstruction& instr,
                                               const std::vector<Values>& inputs,
                                               const Group& group, const EvaluatorOptions&) {
  return Permuted(instr, inputs);
}

// collective-permute-start: (input, permuted[, zeroed context...]) or the
// permuted value alone.
absl::StatusOr<GroupResults> CollectivePermuteStart(const HloInstruction& instr,
                                                    const std::vector<Values>& inputs,
                                                    const Group& group, const EvaluatorOptions&) {
  ASSIGN_OR_RETURN(GroupResults permuted, Permuted(instr, inputs));
  const Shape& declared = instr.shape();
  if (!declared.IsTuple() || inputs[0].size() != 1) return permuted;
  GroupResults out;
  for (size_t j = 0; j < inputs.size(); ++j) {
    std::vector<Literal> elements;
    elements.push_back(inputs[j][0]);
    elements.push_back(std::move(permuted[j]));
    for (int64_t i = 2; i < declared.tuple_shapes_size(); ++i) {
      elements.emplace_back(declared.tuple_shapes(i));
    }
    out.push_back(MakeTuple(std::move(elements)));
  }
  return out;
}

// An op's results for every member from every member's operands, both in
// group order; `group` holds the members' ids.
using GroupOp = absl::StatusOr<GroupResults> (*)(const HloInstruction&, const std::vector<Values>&,
                                                 const Group&, const EvaluatorOptions&);

struct GroupOpEntry {
  HloOpcode opcode;
  GroupOp run;
};

constexpr GroupOpEntry kGroupOps[] = {
    {HloOpcode::kAllReduce, AllReduce},
    {HloOpcode::kAllReduceStart, AllReduce},
    {HloOpcode::kAllGather, AllGather},
    {HloOpcode::kAllGatherStart, AllGatherStart},
    {HloOpcode::kReduceScatter, ReduceScatter},
    {HloOpcode::kAllToAll, AllToAll},
    {HloOpcode::kCollectiveBroadcast, CollectiveBroadcast},
    {HloOpcode::kCollectivePermute, CollectivePermute},
    {HloOpcode::kCollectivePermuteStart, CollectivePermuteStart},
};

GroupOp FindGroupOp(HloOpcode opcode) {
  for (const GroupOpEntry& e : kGroupOps) {
    if (e.opcode == opcode) return e.run;
  }
  return nullptr;
}

// ---- the rendezvous ----

struct RunConfig {
  int64_t replicas = 1;
  int64_t partitions = 1;
  std::chrono::duration<double> timeout{60.0};
  EvaluatorOptions evaluator;  // collectives == nullptr

  std::string Name(int64_t device) const {
    return absl::StrCat("replica ", device / partitions, ", partition ", device % partitions);
  }
};

// One meeting of a group at one collective.
struct Slot {
  std::vector<Values> inputs;
  std::vector<bool> arrived;
  int64_t num_arrived = 0;
  bool done = false;
  absl::Status status;
  GroupResults results;
  int64_t num_taken = 0;
};

// State shared by the participants of one run; guarded by `mu`.
struct Shared {
  explicit Shared(int64_t n) : exited(n, false), failed(n, false) {}
  std::mutex mu;
  std::condition_variable cv;
  // Key: instruction, first device of the group, occurrence.
  std::map<std::tuple<const HloInstruction*, int64_t, int64_t>, Slot> slots;
  std::vector<bool> exited;
  std::vector<bool> failed;
};

// Message marker of errors caused by another participant's failure.
constexpr absl::string_view kAbandoned = "abandoned: participant ";

class Participant : public CollectiveHook {
 public:
  Participant(const RunConfig& config, Shared& shared, int64_t device)
      : config_(config), shared_(shared), device_(device) {}

  absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& instr,
                                             absl::Span<const Literal* const> operands) override {
    if (instr.opcode() == HloOpcode::kReplicaId || instr.opcode() == HloOpcode::kPartitionId) {
      Literal id(Shape::Scalar(PrimitiveType::U32));
      id.SetInt(0, instr.opcode() == HloOpcode::kReplicaId ? device_ / config_.partitions
                                                           : device_ % config_.partitions);
      return id;
    }
    GroupOp run = FindGroupOp(instr.opcode());
    if (run == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(Describe(instr), ": not supported by the replicated evaluator"));
    }
    if (instr.opcode() == HloOpcode::kCollectivePermute && operands.size() == 4) {
      return absl::UnimplementedError(
          absl::StrCat(Describe(instr), ": the in-place form (input, output, offsets, offsets)"));
    }
    ASSIGN_OR_RETURN(const Group* group, GroupOf(instr));
    Values mine;
    for (const Literal* op : operands) mine.push_back(*op);
    ASSIGN_OR_RETURN(Literal result, Meet(instr, *group, std::move(mine), run));
    if (!ShapesCompatible(result.shape(), instr.shape(), /*ignore_dynamic=*/true)) {
      return InstrError(instr, "result is ", result.shape().ToString(false), " with ",
                        group->size(), " participants, but the instruction declares ",
                        instr.shape().ToString(false));
    }
    return result;
  }

 private:
  // The group of this device for `instr` (computed once per instruction).
  absl::StatusOr<const Group*> GroupOf(const HloInstruction& instr) {
    auto it = groups_.find(&instr);
    if (it == groups_.end()) {
      ASSIGN_OR_RETURN(std::vector<Group> all,
                       GetParticipantGroups(instr, config_.replicas, config_.partitions));
      Group found;
      for (Group& g : all) {
        for (int64_t d : g) {
          if (d == device_) found = g;
        }
      }
      it = groups_.emplace(&instr, std::move(found)).first;
    }
    if (it->second.empty()) {
      return InstrError(instr, "device ", device_, " (", config_.Name(device_),
                        ") is in none of its replica groups");
    }
    return &it->second;
  }

  std::string Names(const Group& group, const std::vector<bool>& pick, bool want) const {
    std::vector<std::string> names;
    for (size_t k = 0; k < group.size(); ++k) {
      if (pick[k] == want)
        names.push_back(absl::StrCat(config_.Name(group[k]), " (device ", group[k], ")"));
    }
    return names.empty() ? "none" : absl::StrJoin(names, "; ");
  }

  absl::StatusOr<Literal> Meet(const HloInstruction& instr, const Group& group, Values mine,
                               GroupOp run) {
    const int64_t n = static_cast<int64_t>(group.size());
    int64_t pos = 0;
    while (group[pos] != device_) ++pos;
    const int64_t occurrence = occurrences_[&instr]++;
    const auto key = std::make_tuple(&instr, group[0], occurrence);
    const std::string where = absl::StrCat(Describe(instr), " (occurrence ", occurrence, ")");

    std::unique_lock<std::mutex> lock(shared_.mu);
    Slot& slot = shared_.slots[key];
    if (slot.inputs.empty()) {
      slot.inputs.resize(n);
      slot.arrived.assign(n, false);
    }
    slot.inputs[pos] = std::move(mine);
    slot.arrived[pos] = true;
    if (++slot.num_arrived == n) {
      absl::StatusOr<GroupResults> results = run(instr, slot.inputs, group, config_.evaluator);
      if (results.ok()) {
        slot.results = std::move(*results);
      } else {
        slot.status = results.status();
      }
      slot.done = true;
      shared_.cv.notify_all();
    }
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(config_.timeout);
    while (!slot.done) {
      // A missing member that has finished will never come.
      for (int64_t k = 0; k < n; ++k) {
        if (slot.arrived[k] || !shared_.exited[group[k]]) continue;
        const std::string who = absl::StrCat(config_.Name(group[k]), " (device ", group[k], ")");
        if (shared_.failed[group[k]]) {
          return absl::AbortedError(
              absl::StrCat(kAbandoned, who, " failed before reaching ", where));
        }
        return absl::FailedPreconditionError(
            absl::StrCat(where, ": ", who,
                         " finished without reaching it (participants diverged, e.g. "
                         "a collective in a branch only some participants take)"));
      }
      if (shared_.cv.wait_until(lock, deadline) == std::cv_status::timeout && !slot.done) {
        return absl::DeadlineExceededError(absl::StrCat(
            where, ": timed out after ", config_.timeout.count(),
            " s waiting for participants that never arrived: ", Names(group, slot.arrived, false),
            " (arrived: ", Names(group, slot.arrived, true),
            "); a deadlock, or raise ReplicatedEvaluatorOptions::timeout_seconds"));
      }
    }
    absl::StatusOr<Literal> out = slot.status.ok()
                                      ? absl::StatusOr<Literal>(std::move(slot.results[pos]))
                                      : absl::StatusOr<Literal>(slot.status);
    if (++slot.num_taken == n) shared_.slots.erase(key);
    return out;
  }

  const RunConfig& config_;
  Shared& shared_;
  const int64_t device_;
  absl::flat_hash_map<const HloInstruction*, Group> groups_;
  absl::flat_hash_map<const HloInstruction*, int64_t> occurrences_;
};

absl::StatusOr<RunConfig> MakeConfig(const HloModule& module,
                                     const ReplicatedEvaluatorOptions& options) {
  RunConfig config;
  config.replicas =
      options.num_replicas != 0 ? options.num_replicas : module.config().replica_count.value_or(1);
  config.partitions = options.num_partitions != 0 ? options.num_partitions
                                                  : module.config().num_partitions.value_or(1);
  if (config.replicas <= 0 || config.partitions <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("EvaluateReplicated: replicas (",
                                                   config.replicas, ") and partitions (",
                                                   config.partitions, ") must be positive"));
  }
  if (!(options.timeout_seconds > 0)) {
    return absl::InvalidArgumentError("EvaluateReplicated: timeout_seconds must be positive");
  }
  config.timeout = std::chrono::duration<double>(options.timeout_seconds);
  config.evaluator = options.evaluator;
  config.evaluator.collectives = nullptr;
  return config;
}

}  // namespace

absl::StatusOr<int64_t> ReplicatedParticipantCount(const HloModule& module,
                                                   const ReplicatedEvaluatorOptions& options) {
  ASSIGN_OR_RETURN(RunConfig config, MakeConfig(module, options));
  return config.replicas * config.partitions;
}

absl::StatusOr<std::vector<Literal>> EvaluateReplicated(const HloModule& module,
                                                        absl::Span<const std::vector<Literal>> args,
                                                        const ReplicatedEvaluatorOptions& options) {
  ASSIGN_OR_RETURN(RunConfig config, MakeConfig(module, options));
  const int64_t n = config.replicas * config.partitions;
  if (static_cast<int64_t>(args.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "EvaluateReplicated: ", n, " participants (", config.replicas, " replicas x ",
        config.partitions, " partitions) need ", n, " argument lists, got ", args.size()));
  }
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError("EvaluateReplicated: the module has no entry computation");
  }
  const int64_t params = module.entry_computation()->num_parameters();
  for (int64_t d = 0; d < n; ++d) {
    if (static_cast<int64_t>(args[d].size()) != params) {
      return absl::InvalidArgumentError(absl::StrCat("EvaluateReplicated: ", config.Name(d),
                                                     ": the entry computation takes ", params,
                                                     " arguments, got ", args[d].size()));
    }
  }
  const std::vector<const HostTransferHook*>& hosts = options.host_transfers;
  if (!hosts.empty() && static_cast<int64_t>(hosts.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "EvaluateReplicated: ", n, " participants need one host-transfer hook each, got ",
        hosts.size()));
  }
  // Participant d's evaluator options: its own host side when given.
  auto options_of = [&](int64_t d) {
    EvaluatorOptions opts = config.evaluator;
    if (!hosts.empty()) opts.host_transfers = hosts[d];
    return opts;
  };
  if (n == 1) {
    ASSIGN_OR_RETURN(Literal only, HloEvaluator(options_of(0)).Evaluate(module, args[0]));
    std::vector<Literal> out;
    out.push_back(std::move(only));
    return out;
  }

  Shared shared(n);
  std::vector<absl::StatusOr<Literal>> results(n, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d) {
    threads.emplace_back([&, d] {
      Participant participant(config, shared, d);
      EvaluatorOptions opts = options_of(d);
      opts.collectives = &participant;
      absl::StatusOr<Literal> r = HloEvaluator(opts).Evaluate(module, args[d]);
      std::lock_guard<std::mutex> lock(shared.mu);
      shared.exited[d] = true;
      shared.failed[d] = !r.ok();
      results[d] = std::move(r);
      shared.cv.notify_all();
    });
  }
  for (std::thread& t : threads) t.join();

  // The first root-cause error, else the first error.
  int64_t first_error = -1;
  for (int64_t d = 0; d < n; ++d) {
    if (results[d].ok()) continue;
    const bool abandoned = absl::StartsWith(results[d].status().message(), kAbandoned);
    if (first_error < 0 ||
        (!abandoned && absl::StartsWith(results[first_error].status().message(), kAbandoned))) {
      first_error = d;
    }
  }
  if (first_error >= 0) {
    const absl::Status& s = results[first_error].status();
    return absl::Status(s.code(), absl::StrCat(config.Name(first_error), ": ", s.message()));
  }
  std::vector<Literal> out;
  for (absl::StatusOr<Literal>& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace xla
