#include "xla/service/buffer_assignment/scan_offload.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/while_loop_trip_count.h"

namespace xla {
namespace {

using Wide = __int128;

// Deepest fusion-in-fusion or arithmetic nesting the index analysis follows.
constexpr int kMaxAffineDepth = 32;

absl::Status Miss(int condition, const HloInstruction& at, absl::string_view what) {
  return absl::NotFoundError(
      absl::StrCat("not a scan stack (condition ", condition, ", at ", at.name(), "): ", what));
}

bool IsCustomCallTo(const HloInstruction& instr, absl::string_view target) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.GetString(AttrId::kCustomCallTarget) == target;
}

bool IsLoopFusion(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kFusion && instr.GetString(AttrId::kFusionKind) == "kLoop";
}

bool IsReshapeLike(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kBitcast || instr.opcode() == HloOpcode::kReshape;
}

// Whether `shape` is an array in the row-major layout (or without one).
bool HasDefaultLayout(const Shape& shape) {
  if (!shape.IsArray()) return false;
  if (!shape.has_layout()) return true;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != shape.rank() || !shape.layout().suffix.empty()) {
    return false;
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (m2m[i] != shape.rank() - 1 - i) return false;
  }
  return true;
}

// The operand of fusion `fusion` that fused parameter `param` stands for;
// `param` itself outside fusions.
const HloInstruction* Outer(const HloInstruction* param, const HloInstruction* fusion) {
  if (fusion == nullptr || param->opcode() != HloOpcode::kParameter) return param;
  if (param->parent() != fusion->GetComputation(AttrId::kCalls)) return param;
  const int64_t n = param->parameter_number();
  return n >= 0 && n < fusion->operand_count() ? fusion->operand(n) : nullptr;
}

// a + b * gte(body parameter, var); var -1 for a constant.
struct Affine {
  Wide a = 0;
  Wide b = 0;
  int64_t var = -1;
};

std::optional<Affine> Combine(const Affine& x, const Affine& y, Wide sign) {
  if (x.var >= 0 && y.var >= 0 && x.var != y.var) return std::nullopt;
  return Affine{x.a + sign * y.a, x.b + sign * y.b, x.var >= 0 ? x.var : y.var};
}

bool Fits(Wide v) { return v >= INT64_MIN && v <= INT64_MAX; }

// `x` (a scalar integer) as an affine function of one induction leaf of
// `body`'s parameter; nullopt when it is anything else. `fusion` is the
// fusion whose fused computation holds `x` (nullptr outside fusions);
// `body` may be null (then no variable matches: the loop's init).
std::optional<Affine> AffineOf(const HloInstruction* x, const HloComputation* body,
                               const HloInstruction* fusion, int depth) {
  if (x == nullptr || depth > kMaxAffineDepth || !x->shape().IsScalar() ||
      !IsInteger(x->shape().element_type())) {
    return std::nullopt;
  }
  const HloOpcode op = x->opcode();
  if (op == HloOpcode::kParameter && fusion != nullptr) {
    const HloInstruction* outer = Outer(x, fusion);
    if (outer == x) return std::nullopt;
    return AffineOf(outer, body, nullptr, depth + 1);
  }
  if (op == HloOpcode::kConstant) {
    if (!x->has_literal() || x->literal().elided()) return std::nullopt;
    return Affine{x->literal().GetInt(0), 0, -1};
  }
  if (op == HloOpcode::kGetTupleElement) {
    if (body == nullptr || x->operand(0) != body->parameter_instruction(0)) return std::nullopt;
    return Affine{0, 1, x->tuple_index()};
  }
  if (op == HloOpcode::kCopy || op == HloOpcode::kBitcast || op == HloOpcode::kConvert) {
    return AffineOf(x->operand(0), body, fusion, depth + 1);
  }
  if (op == HloOpcode::kFusion && IsLoopFusion(*x) && fusion == nullptr) {
    const HloComputation* fused = x->GetComputation(AttrId::kCalls);
    if (fused == nullptr) return std::nullopt;
    return AffineOf(fused->root_instruction(), body, x, depth + 1);
  }
  if (op == HloOpcode::kNegate) {
    std::optional<Affine> v = AffineOf(x->operand(0), body, fusion, depth + 1);
    if (!v) return std::nullopt;
    return Affine{-v->a, -v->b, v->var};
  }
  if (op != HloOpcode::kAdd && op != HloOpcode::kSubtract && op != HloOpcode::kMultiply) {
    return std::nullopt;
  }
  std::optional<Affine> l = AffineOf(x->operand(0), body, fusion, depth + 1);
  std::optional<Affine> r = AffineOf(x->operand(1), body, fusion, depth + 1);
  if (!l || !r) return std::nullopt;
  std::optional<Affine> out;
  if (op == HloOpcode::kAdd) out = Combine(*l, *r, 1);
  if (op == HloOpcode::kSubtract) out = Combine(*l, *r, -1);
  if (op == HloOpcode::kMultiply) {
    if (l->b != 0 && r->b != 0) return std::nullopt;
    const Affine& c = l->b == 0 ? *l : *r;
    const Affine& v = l->b == 0 ? *r : *l;
    out = Affine{v.a * c.a, v.b * c.a, v.var};
  }
  if (!out || !Fits(out->a) || !Fits(out->b)) return std::nullopt;
  return out;
}

// A while's induction variable in terms of the iteration number i that a
// WhileThunk publishes: v = init + step * i, for `trips` iterations.
struct Counter {
  Wide init = 0;
  Wide step = 0;
  int64_t trips = 0;
};

std::optional<Counter> CounterOf(const HloInstruction& loop, int64_t var) {
  const HloComputation* body = loop.GetComputation(AttrId::kBody);
  const HloInstruction* operand = loop.operand(0);
  if (body == nullptr || body->root_instruction()->opcode() != HloOpcode::kTuple ||
      operand->opcode() != HloOpcode::kTuple || var < 0 || var >= operand->operand_count()) {
    return std::nullopt;
  }
  std::optional<Affine> next =
      AffineOf(body->root_instruction()->operand(var), body, nullptr, 0);
  std::optional<Affine> init = AffineOf(operand->operand(var), nullptr, nullptr, 0);
  if (!next || next->var != var || next->b != 1 || !init || init->var >= 0) return std::nullopt;
  std::optional<int64_t> trips = RecordedTripCount(loop);
  if (!trips) trips = ComputeWhileTripCount(loop);
  if (!trips || *trips < 0) return std::nullopt;
  return Counter{init->a, next->a, *trips};
}

// A row index at iteration i of a loop of `trips` iterations:
// base + stride * i.
struct Row {
  int64_t base = 0;
  int64_t stride = 0;
  int64_t trips = 0;
};

// Row index `index` (affine in a leaf of `loop`'s body parameter) as
// base + stride * i; checks it stays in [0, rows) for every iteration.
absl::StatusOr<Row> RowOf(const HloInstruction* index,
                                                  const HloInstruction& loop,
                                                  const HloInstruction* fusion, int64_t rows,
                                                  const HloInstruction& at, int condition) {
  const HloComputation* body = loop.GetComputation(AttrId::kBody);
  std::optional<Affine> row = AffineOf(index, body, fusion, 0);
  if (!row || row->var < 0) {
    return Miss(condition, at,
                absl::StrCat("the row index is not affine in a tuple leaf of ", loop.name()));
  }
  std::optional<Counter> counter = CounterOf(loop, row->var);
  if (!counter) {
    return Miss(condition, at,
                absl::StrCat("leaf ", row->var, " of ", loop.name(),
                             " is not an induction variable of a loop with a known trip count"));
  }
  const Wide base = row->a + row->b * counter->init;
  const Wide stride = row->b * counter->step;
  const Wide last = base + stride * (counter->trips > 0 ? counter->trips - 1 : 0);
  if (counter->trips > 0 && (base < 0 || base >= rows || last < 0 || last >= rows)) {
    return Miss(condition, at, absl::StrCat("the row leaves [0, ", rows, ") within ",
                                            counter->trips, " iterations of ", loop.name()));
  }
  if (!Fits(base) || !Fits(stride)) return Miss(condition, at, "the row index overflows");
  return Row{static_cast<int64_t>(base), static_cast<int64_t>(stride), counter->trips};
}

// The dynamic-update-slice or dynamic-slice at the root of `instr` (bare,
// or the root of a kLoop fusion), or nullptr.
const HloInstruction* RootOp(const HloInstruction& instr, HloOpcode op) {
  if (instr.opcode() == op) return &instr;
  if (!IsLoopFusion(instr)) return nullptr;
  const HloComputation* fused = instr.GetComputation(AttrId::kCalls);
  const HloInstruction* root = fused == nullptr ? nullptr : fused->root_instruction();
  return root != nullptr && root->opcode() == op ? root : nullptr;
}

// The fusion around `op` (RootOp of `instr`), or nullptr when bare.
const HloInstruction* FusionOf(const HloInstruction& instr, const HloInstruction* op) {
  return op == &instr ? nullptr : &instr;
}

// Whether operand `k` of the root op is read only there: the fusion's
// parameter feeds the op alone and is one operand of the fusion, which no
// other fusion operand repeats.
absl::Status ReadOnlyBy(const HloInstruction& instr, const HloInstruction* op, int64_t k,
                        int condition) {
  const HloInstruction* fusion = FusionOf(instr, op);
  const HloInstruction* operand = op->operand(k);
  if (fusion == nullptr) return absl::OkStatus();
  if (operand->opcode() != HloOpcode::kParameter || operand->users().size() != 1) {
    return Miss(condition, instr, "the fusion reads the stack other than through its root");
  }
  const HloInstruction* outer = Outer(operand, fusion);
  for (int64_t j = 0; j < fusion->operand_count(); ++j) {
    if (j != operand->parameter_number() && fusion->operand(j) == outer) {
      return Miss(condition, instr, "the fusion takes the stack twice");
    }
  }
  return absl::OkStatus();
}

// Checks the start indices of `op` from `first` on: the others constant 0
// (else condition `zero_condition` fails), the first affine in `loop`'s
// induction variable (else `row_condition`). Returns the row.
absl::StatusOr<Row> RowIndices(const HloInstruction& instr,
                                                       const HloInstruction* op, int64_t first,
                                                       const HloInstruction& loop, int64_t rows,
                                                       int zero_condition, int row_condition) {
  const HloInstruction* fusion = FusionOf(instr, op);
  for (int64_t j = first + 1; j < op->operand_count(); ++j) {
    std::optional<Affine> zero = AffineOf(op->operand(j), nullptr, fusion, 0);
    if (!zero || zero->a != 0 || zero->b != 0) {
      return Miss(zero_condition, instr, "a start index past the first is not the constant 0");
    }
  }
  return RowOf(op->operand(first), loop, fusion, rows, instr, row_condition);
}

// Whether `row` ([1, d1, ...], row-major) is one whole row of `stack`
// ([rows, d1, ...], row-major, same element type).
bool IsWholeRow(const Shape& row, const Shape& stack) {
  if (!HasDefaultLayout(row) || !HasDefaultLayout(stack) || stack.rank() < 1 ||
      row.rank() != stack.rank() || row.element_type() != stack.element_type()) {
    return false;
  }
  if (row.dimensions(0) != 1) return false;
  for (int64_t d = 1; d < stack.rank(); ++d) {
    if (row.dimensions(d) != stack.dimensions(d)) return false;
  }
  return true;
}

// Follows `x` up through bitcasts and reshapes (in a fusion: to its
// parameter, then out of it) to a MoveToHost; nullptr otherwise. Every
// array on the way is row-major with `bytes` bytes.
const HloInstruction* MoveToHostBehind(const HloInstruction* x, const HloInstruction* fusion,
                                       int64_t bytes) {
  for (int depth = 0; x != nullptr && depth < kMaxAffineDepth; ++depth) {
    if (!HasDefaultLayout(x->shape()) || x->shape().ByteSize() != bytes) return nullptr;
    if (IsCustomCallTo(*x, "MoveToHost")) return x;
    if (IsReshapeLike(*x)) {
      x = x->operand(0);
    } else if (x->opcode() == HloOpcode::kParameter && fusion != nullptr) {
      const HloInstruction* outer = Outer(x, fusion);
      fusion = nullptr;
      x = outer == x ? nullptr : outer;
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

// Condition 1 (and 2 for the update's row).
absl::Status MatchUpdate(const HloInstruction& loop, int64_t leaf, ScanStack* out) {
  const HloComputation* body = loop.GetComputation(AttrId::kBody);
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || leaf >= root->operand_count()) {
    return Miss(1, loop, "the body root is not a tuple");
  }
  const HloInstruction* update = root->operand(leaf);
  const HloInstruction* dus = RootOp(*update, HloOpcode::kDynamicUpdateSlice);
  if (dus == nullptr) {
    return Miss(1, *update, "the body root leaf is not a dynamic-update-slice (or its fusion)");
  }
  const HloInstruction* fusion = FusionOf(*update, dus);
  const HloInstruction* stack = Outer(dus->operand(0), fusion);
  if (stack == nullptr || stack->opcode() != HloOpcode::kGetTupleElement ||
      stack->operand(0) != body->parameter_instruction(0) || stack->tuple_index() != leaf) {
    return Miss(1, *update, "the update is not of the body parameter's own leaf");
  }
  if (absl::Status s = ReadOnlyBy(*update, dus, 0, 1); !s.ok()) return s;
  const Shape& shape = dus->shape();
  if (!IsWholeRow(dus->operand(1)->shape(), shape)) {
    return Miss(1, *update, "the update is not one whole row of a row-major stack");
  }
  out->rows = shape.dimensions(0);
  out->row_bytes = shape.dimensions(0) == 0 ? 0 : *shape.ByteSize() / shape.dimensions(0);
  out->move_to_host = MoveToHostBehind(dus->operand(1), fusion, out->row_bytes);
  if (out->move_to_host == nullptr) {
    return Miss(1, *update, "the update is not a MoveToHost result (through bitcasts)");
  }
  absl::StatusOr<Row> row = RowIndices(*update, dus, 2, loop, out->rows, 1, 2);
  if (!row.ok()) return row.status();
  out->update = update;
  out->base = row->base;
  out->stride = row->stride;
  out->trips = row->trips;
  return absl::OkStatus();
}

// The one MoveToDevice `slice` feeds, through bitcasts and reshapes
// (row-major) that feed nothing else; nullptr otherwise.
const HloInstruction* OnlyMoveToDevice(const HloInstruction& slice) {
  const HloInstruction* found = nullptr;
  std::vector<const HloInstruction*> pending = {&slice};
  for (size_t k = 0; k < pending.size(); ++k) {
    for (const HloInstruction* user : pending[k]->users()) {
      if (IsCustomCallTo(*user, "MoveToDevice") && found == nullptr) {
        found = user;
      } else if (IsReshapeLike(*user) && HasDefaultLayout(user->shape())) {
        pending.push_back(user);
      } else {
        return nullptr;
      }
    }
  }
  return found;
}

// Condition 3 for one reader `y` of the stack `x` (a position's instruction).
absl::Status MatchRead(const AliasAnalysis& aa, const HloInstruction& y, const Shape& stack,
                       int64_t row_bytes, ScanStack* out) {
  const HloInstruction* ds = RootOp(y, HloOpcode::kDynamicSlice);
  if (ds == nullptr) {
    return Miss(3, y, "a reader of the stack is not a dynamic-slice (or its fusion)");
  }
  if (absl::Status s = ReadOnlyBy(y, ds, 0, 3); !s.ok()) return s;
  if (!IsWholeRow(ds->shape(), stack)) return Miss(3, y, "the read is not one whole row");
  const HloInstruction* loop = aa.caller_of(y.parent());
  if (loop == nullptr || loop->opcode() != HloOpcode::kWhile ||
      loop->GetComputation(AttrId::kBody) != y.parent()) {
    return Miss(3, y, "the read is not in a while body");
  }
  ScanStackRead read;
  read.slice = &y;
  read.loop = loop;
  read.move_to_device = OnlyMoveToDevice(y);
  if (read.move_to_device == nullptr ||
      read.move_to_device->shape().ByteSize() != row_bytes ||
      !HasDefaultLayout(read.move_to_device->shape())) {
    return Miss(3, y, "the read's only use is not one MoveToDevice (through bitcasts)");
  }
  absl::StatusOr<Row> row = RowIndices(y, ds, 1, *loop, stack.dimensions(0), 3, 3);
  if (!row.ok()) return row.status();
  read.base = row->base;
  read.stride = row->stride;
  out->reads.push_back(read);
  return absl::OkStatus();
}

// Whether `init` is a broadcast of a constant (bare or fused).
bool IsConstantBroadcast(const HloInstruction& init) {
  const HloInstruction* b = RootOp(init, HloOpcode::kBroadcast);
  if (b == nullptr) return false;
  const HloInstruction* value = Outer(b->operand(0), FusionOf(init, b));
  return value != nullptr && value->opcode() == HloOpcode::kConstant && value->shape().IsScalar();
}

// Conditions 3 and 4 over every position of the stack's buffer.
absl::Status MatchUses(const AliasAnalysis& aa, const HloInstruction& loop, int64_t position,
                       ScanStack* out) {
  const HloInstruction* root = loop.parent()->parent()->entry_computation()->root_instruction();
  const Shape& stack = *SubshapeAt(loop.shape(), {out->leaf});
  for (int64_t p : aa.buffer_positions(aa.buffer_of(position))) {
    const HloInstruction* x = aa.position(p).instruction;
    if (x == root) return Miss(4, *x, "the stack is a result of the entry computation");
    if (x->opcode() == HloOpcode::kConstant) return Miss(4, *x, "the stack is a constant");
    if (x->opcode() == HloOpcode::kParameter && x->parent()->is_entry()) {
      return Miss(4, *x, "the stack is an entry parameter");
    }
    if (!IsForwardingInstruction(*x) && x != out->update) {
      if (out->init != nullptr) return Miss(4, *x, "the stack has a second writer besides its init");
      if (!IsConstantBroadcast(*x)) return Miss(4, *x, "the init is not a broadcast of a constant");
      out->init = x;
    }
    for (const HloInstruction* y : x->users()) {
      if (IsForwardingInstruction(*y) || y == out->update) continue;
      if (absl::Status s = MatchRead(aa, *y, stack, out->row_bytes, out); !s.ok()) return s;
    }
  }
  if (out->init == nullptr) return Miss(4, loop, "the stack has no init");
  return absl::OkStatus();
}

// Whether leaf `leaf` of `loop`'s operand is leaf `from_leaf` of `from`'s
// result, through tuples and get-tuple-elements only.
bool TakenFrom(const HloInstruction& loop, int64_t leaf, const HloInstruction& from,
               int64_t from_leaf) {
  const HloInstruction* x = loop.operand(0);
  std::vector<int64_t> index = {leaf};  // the leaf of x, outermost first
  for (int depth = 0; x != nullptr && depth < kMaxAffineDepth; ++depth) {
    if (x == &from) return index.size() == 1 && index[0] == from_leaf;
    if (x->opcode() == HloOpcode::kGetTupleElement) {
      index.insert(index.begin(), x->tuple_index());
      x = x->operand(0);
    } else if (x->opcode() == HloOpcode::kTuple && !index.empty() &&
               index[0] < x->operand_count()) {
      x = x->operand(index[0]);
      index.erase(index.begin());
    } else {
      return false;
    }
  }
  return false;
}

// ScanStack::init_dead for a matched `stack`.
bool InitIsDead(const ScanStack& stack) {
  if (stack.trips != stack.rows || (stack.stride != 1 && stack.stride != -1)) return false;
  for (const ScanStackRead& read : stack.reads) {
    if (read.loop == stack.loop) return false;
    const HloInstruction* ds = RootOp(*read.slice, HloOpcode::kDynamicSlice);
    const HloInstruction* in_body = Outer(ds->operand(0), FusionOf(*read.slice, ds));
    const HloComputation* body = read.loop->GetComputation(AttrId::kBody);
    if (in_body == nullptr || in_body->opcode() != HloOpcode::kGetTupleElement ||
        in_body->operand(0) != body->parameter_instruction(0) ||
        !TakenFrom(*read.loop, in_body->tuple_index(), *stack.loop, stack.leaf)) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<ScanStack> MatchScanStack(const AliasAnalysis& aa, const HloInstruction& loop,
                                         int64_t leaf) {
  if (loop.opcode() != HloOpcode::kWhile || !loop.shape().IsTuple() || leaf < 0 ||
      leaf >= loop.shape().tuple_shapes_size() || !loop.shape().tuple_shapes(leaf).IsArray()) {
    return Miss(1, loop, absl::StrCat("leaf ", leaf, " is not an array leaf of a while"));
  }
  std::optional<int64_t> position = aa.FindPosition(&loop, {leaf});
  if (!position) return Miss(1, loop, "the loop has no buffers (not scheduled)");
  ScanStack out;
  out.loop = &loop;
  out.leaf = leaf;
  if (absl::Status s = MatchUpdate(loop, leaf, &out); !s.ok()) return s;
  if (absl::Status s = MatchUses(aa, loop, *position, &out); !s.ok()) return s;
  out.init_dead = InitIsDead(out);
  return out;
}

std::vector<ScanStack> FindScanStacks(const HloModule& module, const AliasAnalysis& aa) {
  std::vector<ScanStack> out;
  for (const auto& computation : module.computations()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kWhile || !instr->shape().IsTuple()) continue;
      for (int64_t k = 0; k < instr->shape().tuple_shapes_size(); ++k) {
        if (!instr->shape().tuple_shapes(k).IsArray()) continue;
        absl::StatusOr<ScanStack> stack = MatchScanStack(aa, *instr, k);
        if (stack.ok()) out.push_back(*std::move(stack));
      }
    }
  }
  return out;
}

}  // namespace xla
