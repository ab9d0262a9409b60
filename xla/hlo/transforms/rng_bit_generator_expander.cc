#include "xla/hlo/transforms/rng_bit_generator_expander.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

enum class Algorithm { kThreeFry, kPhilox };

// Constants of the generators (Random123; prng.cc in the evaluator).
constexpr uint32_t kThreeFryParity = 0x1BD11BDAu;
constexpr int kThreeFryRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
constexpr uint64_t kPhiloxMultA = 0xD2511F53u, kPhiloxMultB = 0xCD9E8D57u;
constexpr uint32_t kPhiloxBumpA = 0x9E3779B9u, kPhiloxBumpB = 0xBB67AE85u;

// The unsigned integer type of each width a bits type can have.
constexpr std::pair<int, PrimitiveType> kUnsignedOfWidth[] = {
    {1, PrimitiveType::U1},   {2, PrimitiveType::U2},   {4, PrimitiveType::U4},
    {8, PrimitiveType::U8},   {16, PrimitiveType::U16}, {32, PrimitiveType::U32},
    {64, PrimitiveType::U64},
};

std::optional<PrimitiveType> UnsignedOfWidth(int width) {
  for (const auto& [w, t] : kUnsignedOfWidth) {
    if (w == width) return t;
  }
  return std::nullopt;
}

absl::Status Invalid(const HloInstruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator-expander: ", instr.name(),
                                                 " (", instr.ToString(), "): ", what));
}

// What one rng-bit-generator needs, checked before anything is changed.
struct RngSpec {
  Algorithm algorithm = Algorithm::kPhilox;
  Shape state;  // u64/s64 [2] or [3]
  Shape bits;   // the bits output, layout included
  PrimitiveType unsigned_bits = PrimitiveType::U32;
  int width = 32;
};

absl::StatusOr<RngSpec> CheckRng(const HloInstruction& instr) {
  RngSpec spec;
  const std::string& a = instr.GetString(AttrId::kAlgorithm);
  if (a == "rng_three_fry") {
    spec.algorithm = Algorithm::kThreeFry;
  } else if (!a.empty() && a != "rng_philox" && a != "rng_default") {
    return absl::UnimplementedError(absl::StrCat(
        "rng-bit-generator-expander: ", instr.name(), " has algorithm=", a,
        "; supported are rng_default, rng_three_fry and rng_philox"));
  }
  const Shape& out = instr.shape();
  if (instr.operand_count() != 1 || !out.IsTuple() || out.tuple_shapes_size() != 2) {
    return Invalid(instr, "expected one state operand and a (state, bits) tuple result");
  }
  spec.state = instr.operand(0)->shape();
  const PrimitiveType st = spec.state.element_type();
  const int64_t words = spec.state.IsArray() && spec.state.rank() == 1 ? spec.state.dimensions(0) : 0;
  const bool state_ok = spec.state.IsArray() && spec.state.is_static() &&
                        (st == PrimitiveType::U64 || st == PrimitiveType::S64) &&
                        (words == 2 || (words == 3 && spec.algorithm == Algorithm::kPhilox) ||
                         (words > 2 && spec.algorithm == Algorithm::kThreeFry));
  if (!state_ok || !ShapesCompatible(out.tuple_shapes(0), spec.state, /*ignore_dynamic=*/true)) {
    return Invalid(instr, absl::StrCat("the state must be u64[2] or s64[2]",
                                       spec.algorithm == Algorithm::kPhilox ? " (or [3])" : " (or longer)",
                                       " for this algorithm, and the result's first element the "
                                       "same shape"));
  }
  spec.bits = out.tuple_shapes(1);
  const PrimitiveType bt = spec.bits.IsArray() ? spec.bits.element_type() : PrimitiveType::TUPLE;
  const bool bits_type_ok = spec.bits.IsArray() && (IsInteger(bt) || IsFloat(bt));
  std::optional<PrimitiveType> u = bits_type_ok ? UnsignedOfWidth(BitWidth(bt)) : std::nullopt;
  if (!u.has_value() || !spec.bits.is_static()) {
    return Invalid(instr, "the bits must be a static array of an integer or float type of 1 to "
                          "64 bits");
  }
  spec.unsigned_bits = *u;
  spec.width = BitWidth(bt);
  return spec;
}

// The dimension the ThreeFry layout splits in halves (dims non-empty): the
// first even one, else the first largest (XLA's SplitShapeIntoHalves).
size_t SplitDim(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] % 2 == 0) return i;
  }
  size_t best = 0;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] > dims[best]) best = i;
  }
  return best;
}

// Emits instructions into one computation, with small helpers per opcode.
// Broadcast constants are cached per (type, value, dimensions).
class Emitter {
 public:
  explicit Emitter(HloComputation* comp) : comp_(comp), names_(*comp) {}

  HloInstruction* Op(HloOpcode op, const Shape& shape, std::vector<HloInstruction*> operands,
                     const std::string& name) {
    return comp_->AddInstruction(
        HloInstruction::Create(op, shape, std::move(operands), names_.Unique("rbg_" + name)));
  }
  HloInstruction* Bin(HloOpcode op, HloInstruction* a, HloInstruction* b, const std::string& name) {
    return Op(op, a->shape(), {a, b}, name);
  }
  HloInstruction* Scalar(PrimitiveType type, uint64_t bits) {
    Literal lit(Shape::Scalar(type));
    lit.SetBits(0, bits);
    return comp_->AddInstruction(HloInstruction::CreateConstant(std::move(lit), names_.Unique("rbg_c")));
  }
  // broadcast(scalar) to `dims` (the scalar itself for rank 0).
  HloInstruction* Broadcast(HloInstruction* scalar, const std::vector<int64_t>& dims) {
    if (dims.empty()) return scalar;
    HloInstruction* b = Op(HloOpcode::kBroadcast, Shape::Array(scalar->shape().element_type(), dims),
                           {scalar}, "broadcast");
    b->SetAttr(AttrId::kDimensions, std::vector<int64_t>{});
    return b;
  }
  HloInstruction* Splat(PrimitiveType type, uint64_t bits, const std::vector<int64_t>& dims) {
    auto key = std::make_tuple(static_cast<int>(type), bits, dims);
    auto it = splats_.find(key);
    if (it != splats_.end()) return it->second;
    HloInstruction* b = Broadcast(Scalar(type, bits), dims);
    splats_[key] = b;
    return b;
  }
  // `array` op broadcast(`scalar`), elementwise.
  HloInstruction* WithScalar(HloOpcode op, HloInstruction* array, HloInstruction* scalar,
                             const std::string& name) {
    return Bin(op, array, Broadcast(scalar, array->shape().dimensions()), name);
  }
  HloInstruction* WithConst(HloOpcode op, HloInstruction* v, uint64_t bits, const std::string& name) {
    return Bin(op, v, Splat(v->shape().element_type(), bits, v->shape().dimensions()), name);
  }
  HloInstruction* Convert(HloInstruction* v, PrimitiveType to) {
    return Op(HloOpcode::kConvert, Shape::Array(to, v->shape().dimensions()), {v}, "convert");
  }
  HloInstruction* Reshape(HloInstruction* v, const std::vector<int64_t>& dims) {
    return Op(HloOpcode::kReshape, Shape::Array(v->shape().element_type(), dims), {v}, "reshape");
  }
  HloInstruction* Slice(HloInstruction* v, std::vector<SliceDim> slice) {
    std::vector<int64_t> dims;
    for (const SliceDim& s : slice) dims.push_back(s.limit - s.start);
    HloInstruction* r =
        Op(HloOpcode::kSlice, Shape::Array(v->shape().element_type(), dims), {v}, "slice");
    r->SetAttr(AttrId::kSlice, std::move(slice));
    return r;
  }
  // Element `i` of a rank-1 array, as a scalar.
  HloInstruction* Element(HloInstruction* v, int64_t i) {
    return Reshape(Slice(v, {{i, i + 1, 1}}), {});
  }
  HloInstruction* Concat(std::vector<HloInstruction*> parts, int64_t dim) {
    std::vector<int64_t> dims = parts[0]->shape().dimensions();
    dims[dim] = 0;
    for (HloInstruction* p : parts) dims[dim] += p->shape().dimensions(dim);
    const Shape shape = Shape::Array(parts[0]->shape().element_type(), dims);
    HloInstruction* c = Op(HloOpcode::kConcatenate, shape, std::move(parts), "concatenate");
    c->SetAttr(AttrId::kDimensions, std::vector<int64_t>{dim});
    return c;
  }
  HloInstruction* Iota(PrimitiveType type, int64_t n) {
    HloInstruction* i = Op(HloOpcode::kIota, Shape::Array(type, {n}), {}, "iota");
    i->SetAttr(AttrId::kIotaDimension, int64_t{0});
    return i;
  }
  // a < b as unsigned integers, elementwise.
  HloInstruction* LessUnsigned(HloInstruction* a, HloInstruction* b) {
    HloInstruction* c = Op(HloOpcode::kCompare, Shape::Array(PrimitiveType::PRED, a->shape().dimensions()),
                           {a, b}, "compare");
    c->SetAttr(AttrId::kDirection, std::string("LT"));
    c->SetAttr(AttrId::kCompareType, std::string("UNSIGNED"));
    return c;
  }
  HloInstruction* Select(HloInstruction* p, HloInstruction* t, HloInstruction* f) {
    return Op(HloOpcode::kSelect, t->shape(), {p, t, f}, "select");
  }
  // Low and high 32-bit words of u64 values.
  HloInstruction* Lo(HloInstruction* v) { return Convert(v, PrimitiveType::U32); }
  HloInstruction* Hi(HloInstruction* v) {
    return Convert(WithConst(HloOpcode::kShiftRightLogical, v, 32, "shift_right"), PrimitiveType::U32);
  }
  // lo | hi << 32 as u64, from u32 words.
  HloInstruction* Join(HloInstruction* lo, HloInstruction* hi) {
    HloInstruction* h = WithConst(HloOpcode::kShiftLeft, Convert(hi, PrimitiveType::U64), 32, "shift_left");
    return Bin(HloOpcode::kOr, Convert(lo, PrimitiveType::U64), h, "join");
  }
  // Interleaves equal rank-1 arrays: result[k * parts + j] = parts[j][k].
  HloInstruction* Interleave(const std::vector<HloInstruction*>& parts) {
    const int64_t n = parts[0]->shape().dimensions(0);
    std::vector<HloInstruction*> columns;
    for (HloInstruction* p : parts) columns.push_back(Reshape(p, {n, 1}));
    HloInstruction* c = Concat(columns, 1);
    return Reshape(c, {n * static_cast<int64_t>(parts.size())});
  }
  // The first `n` elements of a rank-1 array.
  HloInstruction* Prefix(HloInstruction* v, int64_t n) {
    if (v->shape().dimensions(0) == n) return v;
    return Slice(v, {{0, n, 1}});
  }

 private:
  HloComputation* comp_;
  NameUniquer names_;
  std::map<std::tuple<int, uint64_t, std::vector<int64_t>>, HloInstruction*> splats_;
};

// Words are u32 arrays of one element per block; keys are u32 scalars.
using Words2 = std::array<HloInstruction*, 2>;
using Words4 = std::array<HloInstruction*, 4>;

HloInstruction* RotateLeft(Emitter& e, HloInstruction* v, int distance) {
  HloInstruction* l = e.WithConst(HloOpcode::kShiftLeft, v, distance, "rotl_hi");
  HloInstruction* r = e.WithConst(HloOpcode::kShiftRightLogical, v, 32 - distance, "rotl_lo");
  return e.Bin(HloOpcode::kOr, l, r, "rotl");
}

Words2 ThreeFry(Emitter& e, Words2 x, HloInstruction* k0, HloInstruction* k1) {
  HloInstruction* k01 = e.Bin(HloOpcode::kXor, k0, k1, "ks");
  HloInstruction* k2 = e.Bin(HloOpcode::kXor, k01, e.Scalar(PrimitiveType::U32, kThreeFryParity), "ks");
  const std::array<HloInstruction*, 3> ks = {k0, k1, k2};
  x[0] = e.WithScalar(HloOpcode::kAdd, x[0], ks[0], "tf_x0");
  x[1] = e.WithScalar(HloOpcode::kAdd, x[1], ks[1], "tf_x1");
  for (int round = 0; round < 20; ++round) {
    x[0] = e.Bin(HloOpcode::kAdd, x[0], x[1], "tf_x0");
    x[1] = e.Bin(HloOpcode::kXor, RotateLeft(e, x[1], kThreeFryRotations[round % 8]), x[0], "tf_x1");
    if (round % 4 != 3) continue;
    const int s = round / 4 + 1;  // key injection after every 4 rounds
    HloInstruction* k1s =
        e.Bin(HloOpcode::kAdd, ks[(s + 1) % 3], e.Scalar(PrimitiveType::U32, s), "ks_inject");
    x[0] = e.WithScalar(HloOpcode::kAdd, x[0], ks[s % 3], "tf_x0");
    x[1] = e.WithScalar(HloOpcode::kAdd, x[1], k1s, "tf_x1");
  }
  return x;
}

Words4 Philox(Emitter& e, Words4 x, HloInstruction* k0, HloInstruction* k1) {
  for (int round = 0; round < 10; ++round) {
    HloInstruction* p0 =
        e.WithConst(HloOpcode::kMultiply, e.Convert(x[0], PrimitiveType::U64), kPhiloxMultA, "ph_p0");
    HloInstruction* p1 =
        e.WithConst(HloOpcode::kMultiply, e.Convert(x[2], PrimitiveType::U64), kPhiloxMultB, "ph_p1");
    HloInstruction* y0 = e.WithScalar(HloOpcode::kXor, e.Bin(HloOpcode::kXor, e.Hi(p1), x[1], "ph_x0"), k0, "ph_x0");
    HloInstruction* y2 = e.WithScalar(HloOpcode::kXor, e.Bin(HloOpcode::kXor, e.Hi(p0), x[3], "ph_x2"), k1, "ph_x2");
    x = {y0, e.Lo(p1), y2, e.Lo(p0)};
    if (round == 9) break;
    k0 = e.Bin(HloOpcode::kAdd, k0, e.Scalar(PrimitiveType::U32, kPhiloxBumpA), "ph_k0");
    k1 = e.Bin(HloOpcode::kAdd, k1, e.Scalar(PrimitiveType::U32, kPhiloxBumpB), "ph_k1");
  }
  return x;
}

// Emits the expansion of one rng-bit-generator and returns its replacement.
class Expansion {
 public:
  Expansion(HloInstruction* rng, RngSpec spec)
      : rng_(rng), spec_(std::move(spec)), e_(rng->parent()), dims_(spec_.bits.dimensions()) {}

  HloInstruction* Emit() {
    HloInstruction* state = rng_->operand(0);
    if (Product(dims_) == 0) {  // no blocks used: same state, empty bits
      HloInstruction* zero = e_.Scalar(spec_.bits.element_type(), 0);
      HloInstruction* bits = e_.Op(HloOpcode::kBroadcast, spec_.bits, {zero}, "broadcast");
      bits->SetAttr(AttrId::kDimensions, std::vector<int64_t>{});
      return Tuple(state, bits);
    }
    if (spec_.state.element_type() != PrimitiveType::U64) {
      state = e_.Op(HloOpcode::kBitcastConvert, Shape::Array(PrimitiveType::U64, {spec_.state.dimensions(0)}),
                    {state}, "state");
    }
    std::vector<HloInstruction*> words;
    for (int64_t i = 0; i < spec_.state.dimensions(0); ++i) words.push_back(e_.Element(state, i));
    key_ = {e_.Lo(words[0]), e_.Hi(words[0])};
    std::vector<HloInstruction*> new_state = spec_.algorithm == Algorithm::kThreeFry
                                                 ? ThreeFryOutput(words)
                                                 : PhiloxOutput(words);
    std::vector<HloInstruction*> parts;
    for (HloInstruction* w : new_state) parts.push_back(e_.Reshape(w, {1}));
    HloInstruction* joined = e_.Concat(parts, 0);
    HloInstruction* final_state =
        e_.Op(spec_.state.element_type() == PrimitiveType::U64 ? HloOpcode::kReshape
                                                               : HloOpcode::kBitcastConvert,
              rng_->shape().tuple_shapes(0), {joined}, "new_state");
    return Tuple(final_state, bits_);
  }

 private:
  HloInstruction* Tuple(HloInstruction* state, HloInstruction* bits) {
    return e_.Op(HloOpcode::kTuple, rng_->shape(), {state, bits}, "tuple");
  }

  // u64 counters counter + iota(n) split into (low, high) u32 words.
  Words2 CounterWords(HloInstruction* counter, int64_t n) {
    HloInstruction* blocks = e_.WithScalar(HloOpcode::kAdd, e_.Iota(PrimitiveType::U64, n), counter, "block");
    return {e_.Lo(blocks), e_.Hi(blocks)};
  }

  // `words` of u32 (64-bit bits: u64) in row-major order, `count` or more,
  // into the bits output (shape and layout of the instruction).
  HloInstruction* ToBits(HloInstruction* words) {
    const PrimitiveType base = spec_.width == 64 ? PrimitiveType::U64 : PrimitiveType::U32;
    const PrimitiveType type = spec_.bits.element_type();
    HloInstruction* v = words;
    if (v->shape().dimensions() != dims_) v = e_.Reshape(v, dims_);
    if (spec_.unsigned_bits != base) v = e_.Convert(v, spec_.unsigned_bits);  // keeps the low bits
    return e_.Op(type == spec_.unsigned_bits ? HloOpcode::kReshape : HloOpcode::kBitcastConvert,
                 spec_.bits, {v}, "bits");
  }

  std::vector<HloInstruction*> ThreeFryOutput(const std::vector<HloInstruction*>& words) {
    HloInstruction* counter = words[1];
    int64_t blocks = Product(dims_);
    if (spec_.width == 64) {
      const Words2 x = ThreeFry(e_, CounterWords(counter, blocks), key_[0], key_[1]);
      bits_ = ToBits(e_.Join(x[0], x[1]));
    } else if (dims_.empty()) {
      blocks = 1;
      bits_ = ToBits(ThreeFry(e_, CounterWords(counter, 1), key_[0], key_[1])[0]);
    } else {
      // Element (.., 2h+c, ..) of the split dimension is word c of the block
      // of the half index (.., h, ..).
      const size_t split = SplitDim(dims_);
      std::vector<int64_t> half = dims_;
      half[split] = (dims_[split] + 1) / 2;
      blocks = Product(half);
      const Words2 x = ThreeFry(e_, CounterWords(counter, blocks), key_[0], key_[1]);
      std::vector<int64_t> column = half;
      column.insert(column.begin() + split + 1, 1);
      HloInstruction* pairs = e_.Concat({e_.Reshape(x[0], column), e_.Reshape(x[1], column)}, split + 1);
      std::vector<int64_t> doubled = half;
      doubled[split] *= 2;
      HloInstruction* v = e_.Reshape(pairs, doubled);
      if (doubled[split] != dims_[split]) {
        std::vector<SliceDim> slice;
        for (int64_t d : dims_) slice.push_back({0, d, 1});
        v = e_.Slice(v, slice);
      }
      bits_ = ToBits(v);
    }
    HloInstruction* next = e_.Bin(HloOpcode::kAdd, counter,
                                  e_.Scalar(PrimitiveType::U64, static_cast<uint64_t>(blocks)), "counter");
    // Words after the counter (a state longer than two words) pass through.
    std::vector<HloInstruction*> new_state = {words[0], next};
    new_state.insert(new_state.end(), words.begin() + 2, words.end());
    return new_state;
  }

  // (low, high) + delta on 128-bit counters (`delta` of the counters' shape).
  std::pair<HloInstruction*, HloInstruction*> Add128(HloInstruction* c0, HloInstruction* c1,
                                                     HloInstruction* delta) {
    const std::vector<int64_t>& dims = delta->shape().dimensions();
    HloInstruction* low0 = e_.Broadcast(c0, dims);
    HloInstruction* low = e_.Bin(HloOpcode::kAdd, low0, delta, "counter_low");
    HloInstruction* carry = e_.LessUnsigned(low, low0);
    HloInstruction* high0 = e_.Broadcast(c1, dims);
    HloInstruction* high1 = e_.WithConst(HloOpcode::kAdd, high0, 1, "counter_high");
    return {low, e_.Select(carry, high1, high0)};
  }

  std::vector<HloInstruction*> PhiloxOutput(const std::vector<HloInstruction*>& words) {
    const bool wide = words.size() == 3;
    HloInstruction* c0 = words[1];
    HloInstruction* c1 = wide ? words[2] : words[0];
    const int64_t count = Product(dims_);
    const int64_t per_block = spec_.width <= 32 ? 4 : 2;
    const int64_t blocks = (count + per_block - 1) / per_block;
    auto [low, high] = Add128(c0, c1, e_.Iota(PrimitiveType::U64, blocks));
    const Words4 x = Philox(e_, {e_.Lo(low), e_.Hi(low), e_.Lo(high), e_.Hi(high)}, key_[0], key_[1]);
    HloInstruction* flat = per_block == 4
                               ? e_.Interleave({x[0], x[1], x[2], x[3]})
                               : e_.Interleave({e_.Join(x[0], x[1]), e_.Join(x[2], x[3])});
    bits_ = ToBits(e_.Prefix(flat, count));
    auto [next_low, next_high] =
        Add128(c0, c1, e_.Scalar(PrimitiveType::U64, static_cast<uint64_t>(blocks)));
    if (!wide) return {words[0], next_low};
    return {words[0], next_low, next_high};
  }

  HloInstruction* rng_;
  RngSpec spec_;
  Emitter e_;
  std::vector<int64_t> dims_;
  Words2 key_ = {nullptr, nullptr};
  HloInstruction* bits_ = nullptr;
};

// Moves `old`'s control edges to `replacement`.
void MoveControlEdges(HloInstruction* old, HloInstruction* replacement) {
  const std::vector<HloInstruction*> preds = old->control_predecessors();
  const std::vector<HloInstruction*> succs = old->control_successors();
  old->DropControlEdges();
  for (HloInstruction* p : preds) replacement->AddControlPredecessor(p);
  for (HloInstruction* s : succs) s->AddControlPredecessor(replacement);
}

}  // namespace

absl::StatusOr<bool> RngBitGeneratorExpander::Run(HloModule* module) {
  std::vector<std::pair<HloInstruction*, RngSpec>> todo;
  for (const auto& comp : module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kRngBitGenerator) continue;
      absl::StatusOr<RngSpec> spec = CheckRng(*instr);
      if (!spec.ok() && leave_unsupported_) continue;
      if (!spec.ok()) return spec.status();
      todo.emplace_back(instr.get(), std::move(*spec));
    }
  }
  if (todo.empty()) return false;
  std::vector<HloComputation*> touched;
  for (auto& [rng, spec] : todo) {
    HloComputation* comp = rng->parent();
    HloInstruction* replacement = Expansion(rng, std::move(spec)).Emit();
    MoveControlEdges(rng, replacement);
    RETURN_IF_ERROR(ReplaceInstruction(rng, replacement));
    if (touched.empty() || touched.back() != comp) touched.push_back(comp);
  }
  for (HloComputation* comp : touched) comp->SortInstructionsInPostOrder();
  return true;
}

}  // namespace xla
