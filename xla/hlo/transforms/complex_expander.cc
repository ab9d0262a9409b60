#include "xla/hlo/transforms/complex_expander.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/complex_math.h"
#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/hlo/transforms/select_and_scatter_expander.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool IsComplexArray(const Shape& s) { return s.IsArray() && IsComplex(s.element_type()); }

bool TouchesComplex(const HloInstruction& instr) {
  if (HasComplexLeaf(instr.shape())) return true;
  for (const HloInstruction* operand : instr.operands()) {
    if (HasComplexLeaf(operand->shape())) return true;
  }
  return false;
}

std::vector<int64_t> Append(std::vector<int64_t> v, int64_t x) {
  v.push_back(x);
  return v;
}

// True when `computation` is `(x, y) -> add(x, y)` over scalars.
bool IsAddReducer(const HloComputation* computation) {
  if (computation == nullptr || computation->num_parameters() != 2) return false;
  const HloInstruction* root = computation->root_instruction();
  return root->opcode() == HloOpcode::kAdd && root->operand(0)->opcode() == HloOpcode::kParameter &&
         root->operand(1)->opcode() == HloOpcode::kParameter && root->operand(0) != root->operand(1);
}

// Computations whose signature follows their callers' values: while bodies
// and conditions, conditional branches.
absl::flat_hash_set<const HloComputation*> ControlFlowComputations(const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> out;
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kWhile && instr->opcode() != HloOpcode::kConditional) continue;
      for (HloComputation* called : instr->called_computations()) out.insert(called);
    }
  }
  return out;
}

// How an op that applies a scalar computation to runs of N arrays (sort:
// its operands; reduce and reduce-window: inputs, then initial values;
// scatter: operands, then updates) maps onto the real parts: each complex
// array of a run becomes two arrays (re, im), each slot of the scalar
// computation's parameters two parameters.
class PartSlots {
 public:
  // How the scalar computation's 2N parameters are ordered: sort's
  // comparator takes (lhs, rhs) per operand; the others take the N
  // accumulated values, then the N new values.
  enum class Order { kPairPerOperand, kOperandsPerRole };

  PartSlots(std::vector<bool> complex, Order order) : complex_(std::move(complex)), order_(order) {
    for (bool c : complex_) {
      first_.push_back(new_count_);
      new_count_ += c ? 2 : 1;
    }
  }

  int64_t count() const { return static_cast<int64_t>(complex_.size()); }
  int64_t new_count() const { return new_count_; }
  bool complex(int64_t k) const { return complex_[k]; }
  // The first of the new slots that slot `k` becomes (its real part).
  int64_t first(int64_t k) const { return first_[k]; }
  // The scalar computation's parameter for slot `k`, role `role` (0 or 1),
  // before the split and (for new slot `k`) after it.
  int64_t OldParameter(int64_t k, int64_t role) const { return Index(k, role, count()); }
  int64_t NewParameter(int64_t k, int64_t role) const { return Index(k, role, new_count_); }

 private:
  int64_t Index(int64_t k, int64_t role, int64_t n) const {
    return order_ == Order::kPairPerOperand ? 2 * k + role : role * n + k;
  }

  std::vector<bool> complex_;
  Order order_;
  std::vector<int64_t> first_;
  int64_t new_count_ = 0;
};

// The run slot of operand `i` of `instr` (sort, reduce, reduce-window,
// scatter), or -1 for scatter's indices.
int64_t SlotOfOperand(const HloInstruction& instr, int64_t i) {
  const int64_t n = instr.operand_count();
  switch (instr.opcode()) {
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow: return i % (n / 2);
    case HloOpcode::kScatter: {
      const int64_t runs = (n - 1) / 2;
      return i < runs ? i : (i == runs ? -1 : i - runs - 1);
    }
    default: return i;
  }
}

// True for the ops LowerSplit handles: a scalar computation over runs of
// arrays, with results one per array of the first run.
bool AppliesScalarComputation(HloOpcode op) {
  return op == HloOpcode::kSort || op == HloOpcode::kReduce || op == HloOpcode::kReduceWindow ||
         op == HloOpcode::kScatter;
}

// Rewrites one computation (see the header). `entry` keeps the signature.
class ComputationLowering {
 public:
  // `split_results`: the computation is a scalar computation whose
  // signature the caller has split already (SplitComputation); a complex
  // result becomes its (re, im) parts in the root tuple.
  ComputationLowering(HloComputation* computation, bool entry, ScalarReducers* reducers,
                      bool split_results = false)
      : computation_(computation),
        entry_(entry),
        split_results_(split_results),
        reducers_(reducers),
        o_(computation) {}

  absl::StatusOr<bool> Run() {
    bool changed = false;
    for (HloInstruction* instr : computation_->MakePostOrder()) {
      if (!TouchesComplex(*instr)) continue;
      if (instr->opcode() == HloOpcode::kParameter) {
        if (entry_) continue;
        original_shapes_[instr] = instr->shape();
        *instr->mutable_shape() = RealPairShape(instr->shape());
        lowered_[instr] = instr;
        changed = true;
        continue;
      }
      ASSIGN_OR_RETURN(HloInstruction* replacement, Lower(instr));
      changed = true;
      if (replacement == nullptr) {
        KeepComplex(instr);
        continue;
      }
      replaced_.push_back(instr);
      if (HasComplexLeaf(instr->shape())) {
        lowered_[instr] = replacement;
        continue;
      }
      if (absl::Status s = instr->ReplaceAllUsesWith(replacement); !s.ok()) {
        return absl::InternalError(absl::StrCat("complex-expander: ", s.message()));
      }
    }
    RETURN_IF_ERROR(FixRoot());
    std::vector<HloInstruction*> dead(replaced_.rbegin(), replaced_.rend());
    computation_->RemoveInstructions(dead);
    return changed;
  }

 private:
  std::string Name(const HloInstruction* instr, const char* what) const {
    return absl::StrCat(instr->name(), ".", what);
  }

  const Shape& OriginalShape(HloInstruction* old) const {
    auto it = original_shapes_.find(old);
    return it == original_shapes_.end() ? old->shape() : it->second;
  }

  // The real form of the complex-carrying value `old`.
  HloInstruction* Pair(HloInstruction* old) {
    if (auto it = lowered_.find(old); it != lowered_.end()) return it->second;
    if (auto it = views_.find(old); it != views_.end()) return it->second;
    HloInstruction* view = ToPair(old);
    views_[old] = view;
    return view;
  }

  // Real form of a value that is still complex-typed.
  HloInstruction* ToPair(HloInstruction* value) {
    const Shape& s = value->shape();
    if (s.IsArray()) {
      if (!IsComplex(s.element_type())) return value;
      return o_.Op(HloOpcode::kBitcast, RealPairShape(s), {value}, Name(value, "re_im"));
    }
    if (!HasComplexLeaf(s)) return value;
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
      elements.push_back(ToPair(o_.GetTupleElement(value, i, Name(value, "element"))));
    }
    return o_.Tuple(elements, Name(value, "re_im"));
  }

  // The complex-typed value of `old` (for ops that stay complex).
  HloInstruction* ComplexValue(HloInstruction* old) {
    auto it = lowered_.find(old);
    if (it == lowered_.end()) return old;
    return ToComplex(it->second, OriginalShape(old));
  }

  HloInstruction* ToComplex(HloInstruction* pair, const Shape& shape) {
    if (shape.IsArray()) {
      if (!IsComplex(shape.element_type())) return pair;
      return o_.Op(HloOpcode::kBitcast, shape, {pair}, Name(pair, "complex"));
    }
    if (!HasComplexLeaf(shape)) return pair;
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      elements.push_back(
          ToComplex(o_.GetTupleElement(pair, i, Name(pair, "element")), shape.tuple_shapes(i)));
    }
    return o_.Tuple(elements, Name(pair, "complex"));
  }

  // The parts of the complex array operand `old`, in `type`.
  ComplexParts Parts(HloInstruction* old, PrimitiveType type) {
    ComplexParts& cached = parts_[old];
    if (auto it = joined_.find(Pair(old)); cached.re == nullptr && it != joined_.end()) {
      // The parts that made the pair: no slice of the concatenate.
      cached = it->second;
    }
    if (cached.re == nullptr) {
      HloInstruction* pair = Pair(old);
      const std::vector<int64_t> dims = OriginalShape(old).dimensions();
      std::vector<SliceDim> slice;
      for (int64_t d : dims) slice.push_back({0, d, 1});
      const Shape part_shape = Shape::Array(pair->shape().element_type(), Append(dims, 1));
      HloInstruction* parts[2];
      for (int64_t k = 0; k < 2; ++k) {
        std::vector<SliceDim> s = slice;
        s.push_back({k, k + 1, 1});
        HloInstruction* sliced = o_.Op(HloOpcode::kSlice, part_shape, {pair}, Name(old, k ? "im1" : "re1"));
        sliced->SetAttr(AttrId::kSlice, s);
        parts[k] = o_.Reshape(sliced, dims, Name(old, k ? "im" : "re"));
      }
      cached = {parts[0], parts[1]};
    }
    return {o_.Convert(cached.re, type, Name(old, "re_t")), o_.Convert(cached.im, type, Name(old, "im_t"))};
  }

  // The pair array of `parts` (arrays of `dims`).
  HloInstruction* Join(ComplexParts parts, const HloInstruction* instr) {
    const std::vector<int64_t>& dims = parts.re->shape().dimensions();
    const int64_t rank = static_cast<int64_t>(dims.size());
    HloInstruction* re = o_.Reshape(parts.re, Append(dims, 1), Name(instr, "re1"));
    HloInstruction* im = o_.Reshape(parts.im, Append(dims, 1), Name(instr, "im1"));
    HloInstruction* pair = o_.Op(HloOpcode::kConcatenate,
                                 Shape::Array(parts.re->shape().element_type(), Append(dims, 2)),
                                 {re, im}, Name(instr, "re_im"));
    pair->SetAttr(AttrId::kDimensions, std::vector<int64_t>{rank});
    joined_[pair] = parts;
    return pair;
  }

  HloInstruction* Zeros(PrimitiveType type, const std::vector<int64_t>& dims, const HloInstruction* instr) {
    HloInstruction* zero = o_.Scalar(type, 0, Name(instr, "zero"));
    return dims.empty() ? zero : o_.Broadcast(zero, dims, {}, Name(instr, "zeros"));
  }

  // Operands mapped to their real forms (other operands as they are).
  std::vector<HloInstruction*> PairOperands(HloInstruction* instr) {
    std::vector<HloInstruction*> out;
    for (HloInstruction* operand : instr->operands()) {
      out.push_back(HasComplexLeaf(operand->shape()) ? Pair(operand) : operand);
    }
    return out;
  }

  HloInstruction* Clone(HloInstruction* instr, const Shape& shape, std::vector<HloInstruction*> operands) {
    return computation_->AddInstruction(
        instr->CloneWithNewOperands(shape, operands, computation_->UniqueInstructionName(instr->name())));
  }

  // Same op over the real forms, with `shape` and attribute `attr` widened.
  HloInstruction* CloneWithAttr(HloInstruction* instr, AttrId attr, AttrValue value) {
    HloInstruction* out = Clone(instr, RealPairShape(instr->shape()), PairOperands(instr));
    out->SetAttr(attr, std::move(value));
    return out;
  }

  absl::StatusOr<HloInstruction*> Lower(HloInstruction* instr);
  HloInstruction* LowerElementwise(HloInstruction* instr);
  HloInstruction* LowerDataMovement(HloInstruction* instr);
  HloInstruction* LowerConstant(HloInstruction* instr);
  HloInstruction* LowerConvert(HloInstruction* instr);
  HloInstruction* LowerPad(HloInstruction* instr);
  HloInstruction* LowerDot(HloInstruction* instr);
  HloInstruction* LowerReduce(HloInstruction* instr);
  HloInstruction* LowerScatterAdd(HloInstruction* instr);
  HloInstruction* LowerSelectAndScatterAdd(HloInstruction* instr);
  absl::StatusOr<HloInstruction*> LowerSplit(HloInstruction* instr);
  std::vector<HloInstruction*> SplitOperands(HloInstruction* instr, const PartSlots& slots);
  HloInstruction* JoinResults(HloInstruction* op, HloInstruction* instr, const PartSlots& slots);
  absl::StatusOr<HloComputation*> SplitComputation(const HloComputation& fn, const PartSlots& slots,
                                                   bool returns_values);
  HloInstruction* PartsTuple(HloInstruction* root);

  // An op left complex: its operands become complex-typed values again.
  void KeepComplex(HloInstruction* instr) {
    for (int64_t i = 0; i < instr->operand_count(); ++i) {
      HloInstruction* operand = instr->operand(i);
      if (!HasComplexLeaf(OriginalShape(operand))) continue;
      HloInstruction* value = ComplexValue(operand);
      if (value != operand) instr->ReplaceOperandWith(i, value);
    }
  }

  absl::Status FixRoot() {
    HloInstruction* root = computation_->root_instruction();
    if (!HasComplexLeaf(OriginalShape(root))) return absl::OkStatus();
    if (split_results_) {
      HloInstruction* parts = PartsTuple(root);
      if (parts == nullptr) {
        return absl::InternalError(absl::StrCat("complex-expander: the root of ", computation_->name(),
                                                " has complex values but is no tuple"));
      }
      computation_->set_root_instruction(parts);
      return absl::OkStatus();
    }
    HloInstruction* new_root = entry_ ? ComplexValue(root) : Pair(root);
    computation_->set_root_instruction(new_root);
    return absl::OkStatus();
  }

  HloComputation* computation_;
  bool entry_;
  bool split_results_;
  ScalarReducers* reducers_;
  OpBuilder o_;
  absl::flat_hash_map<HloInstruction*, HloInstruction*> lowered_;
  absl::flat_hash_map<HloInstruction*, HloInstruction*> views_;
  absl::flat_hash_map<HloInstruction*, ComplexParts> parts_;
  // Pairs made by Join, with the parts they were made of.
  absl::flat_hash_map<HloInstruction*, ComplexParts> joined_;
  absl::flat_hash_map<HloInstruction*, Shape> original_shapes_;
  std::vector<HloInstruction*> replaced_;
};

HloInstruction* ComputationLowering::LowerConstant(HloInstruction* instr) {
  if (!IsComplexArray(instr->shape()) || !instr->has_literal() || instr->literal().elided()) {
    return nullptr;
  }
  Literal real(RealPairShape(instr->shape()));
  const absl::Span<const uint8_t> bytes = instr->literal().data();
  if (!bytes.empty()) std::memcpy(real.mutable_data().data(), bytes.data(), bytes.size());
  return computation_->AddInstruction(HloInstruction::CreateConstant(
      std::move(real), computation_->UniqueInstructionName(instr->name())));
}

HloInstruction* ComputationLowering::LowerDataMovement(HloInstruction* instr) {
  const Shape& s = instr->shape();
  const int64_t rank = s.IsArray() ? s.rank() : 0;
  switch (instr->opcode()) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kReshape:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      return Clone(instr, RealPairShape(s), PairOperands(instr));
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
      return CloneWithAttr(instr, AttrId::kDimensions,
                           Append(instr->dimensions(), instr->opcode() == HloOpcode::kBroadcast
                                                           ? rank
                                                           : instr->operand(0)->shape().rank()));
    case HloOpcode::kSlice: {
      auto slice = std::get<std::vector<SliceDim>>(*instr->FindAttr(AttrId::kSlice));
      slice.push_back({0, 2, 1});
      return CloneWithAttr(instr, AttrId::kSlice, slice);
    }
    case HloOpcode::kGather: {
      // The pair dimension is one more window dimension, the operand's last
      // and so the output's last offset dimension.
      if (IsComplexArray(instr->operand(1)->shape())) return nullptr;
      HloInstruction* out = CloneWithAttr(instr, AttrId::kSliceSizes,
                                          Append(instr->GetIntList(AttrId::kSliceSizes), 2));
      out->SetAttr(AttrId::kOffsetDims, Append(instr->GetIntList(AttrId::kOffsetDims), rank));
      return out;
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      std::vector<HloInstruction*> operands = PairOperands(instr);
      if (operands.back()->shape().rank() != 0) return nullptr;  // one index vector
      operands.push_back(o_.Scalar(operands.back()->shape().element_type(), 0, Name(instr, "zero_index")));
      HloInstruction* out = Clone(instr, RealPairShape(s), operands);
      if (instr->opcode() == HloOpcode::kDynamicSlice) {
        out->SetAttr(AttrId::kDynamicSliceSizes, Append(instr->GetIntList(AttrId::kDynamicSliceSizes), 2));
      }
      return out;
    }
    default:
      return nullptr;
  }
}

// Ops whose parts are computed exactly as the evaluator's double
// arithmetic rounds them (one rounding per part), so c64 keeps f32.
bool ExactInComponentType(HloOpcode op) {
  return op == HloOpcode::kReal || op == HloOpcode::kImag || op == HloOpcode::kNegate ||
         op == HloOpcode::kAdd || op == HloOpcode::kSubtract || op == HloOpcode::kCompare;
}

HloInstruction* ComputationLowering::LowerElementwise(HloInstruction* instr) {
  if (!IsComplexArray(instr->operand(0)->shape())) return nullptr;
  const PrimitiveType part = ComplexComponentType(instr->operand(0)->shape().element_type());
  // c64 math that can overflow, cancel or lose range in f32 runs in f64,
  // as the evaluator's does, and rounds once (see the header).
  const PrimitiveType t = ExactInComponentType(instr->opcode()) ? part : PrimitiveType::F64;
  ComplexMath m(&o_, instr->name());
  const ComplexParts a = Parts(instr->operand(0), t);
  auto b = [&] { return Parts(instr->operand(1), t); };
  auto join = [&](ComplexParts p) {
    return Join({o_.Convert(p.re, part, Name(instr, "re_out")), o_.Convert(p.im, part, Name(instr, "im_out"))},
                instr);
  };
  switch (instr->opcode()) {
    case HloOpcode::kReal: return a.re;
    case HloOpcode::kImag: return a.im;
    case HloOpcode::kAbs: return o_.Convert(m.Abs(a), part, Name(instr, "abs_out"));
    case HloOpcode::kNegate: return join(m.Negate(a));
    case HloOpcode::kSign: return join(m.Sign(a));
    case HloOpcode::kExp: return join(m.Exp(a));
    case HloOpcode::kLog: return join(m.Log(a));
    case HloOpcode::kSqrt: return join(m.Sqrt(a));
    case HloOpcode::kRsqrt: return join(m.Rsqrt(a));
    case HloOpcode::kAcos: return join(m.Acos(a));
    case HloOpcode::kSin: return join(m.Sin(a));
    case HloOpcode::kCos: return join(m.Cos(a));
    case HloOpcode::kTanh: return join(m.Tanh(a));
    case HloOpcode::kSinh: return join(m.Sinh(a));
    case HloOpcode::kCosh: return join(m.Cosh(a));
    case HloOpcode::kTan: return join(m.Tan(a));
    case HloOpcode::kExpm1: return join(m.Expm1(a));
    case HloOpcode::kLog1p: return join(m.Log1p(a));
    case HloOpcode::kPower: return join(m.Power(a, b()));
    case HloOpcode::kLogistic: return join(m.Logistic(a));
    case HloOpcode::kAtan2: return join(m.Atan2(a, b()));
    case HloOpcode::kAdd: return join(m.Add(a, b()));
    case HloOpcode::kSubtract: return join(m.Subtract(a, b()));
    case HloOpcode::kMultiply: return join(m.Multiply(a, b()));
    case HloOpcode::kDivide: return join(m.Divide(a, b()));
    case HloOpcode::kCompare: {
      const std::string& direction = instr->GetString(AttrId::kDirection);
      if (direction != "EQ" && direction != "NE") return nullptr;
      return m.Equal(a, b(), direction == "NE");
    }
    default: return nullptr;
  }
}

HloInstruction* ComputationLowering::LowerConvert(HloInstruction* instr) {
  HloInstruction* x = instr->operand(0);
  const PrimitiveType from = x->shape().element_type();
  const PrimitiveType to = instr->shape().element_type();
  if (IsComplex(from) && IsComplex(to)) {
    return o_.Convert(Pair(x), ComplexComponentType(to), Name(instr, "re_im"));
  }
  if (IsComplex(from)) {
    return o_.Convert(Parts(x, ComplexComponentType(from)).re, to, Name(instr, "real"));
  }
  const PrimitiveType part = ComplexComponentType(to);
  return Join({o_.Convert(x, part, Name(instr, "re")), Zeros(part, x->shape().dimensions(), instr)}, instr);
}

HloInstruction* ComputationLowering::LowerPad(HloInstruction* instr) {
  const PrimitiveType part = ComplexComponentType(instr->shape().element_type());
  const ComplexParts x = Parts(instr->operand(0), part);
  const ComplexParts value = Parts(instr->operand(1), part);
  const Shape shape = Shape::Array(part, instr->shape().dimensions());
  return Join({Clone(instr, shape, {x.re, value.re}), Clone(instr, shape, {x.im, value.im})}, instr);
}

HloInstruction* ComputationLowering::LowerDot(HloInstruction* instr) {
  if (!IsComplexArray(instr->shape())) return nullptr;
  const PrimitiveType part = ComplexComponentType(instr->shape().element_type());
  const Shape shape = Shape::Array(part, instr->shape().dimensions());
  auto parts = [&](HloInstruction* operand) -> ComplexParts {
    if (IsComplexArray(operand->shape())) return Parts(operand, part);
    return {o_.Convert(operand, part, Name(operand, "as_part")), nullptr};
  };
  const ComplexParts a = parts(instr->operand(0));
  const ComplexParts b = parts(instr->operand(1));
  auto dot = [&](HloInstruction* x, HloInstruction* y) { return Clone(instr, shape, {x, y}); };
  HloInstruction* re = dot(a.re, b.re);
  HloInstruction* im = nullptr;
  if (a.im != nullptr && b.im != nullptr) {
    re = o_.Binary(HloOpcode::kSubtract, re, dot(a.im, b.im), Name(instr, "re"));
  }
  if (b.im != nullptr) im = dot(a.re, b.im);
  if (a.im != nullptr) {
    HloInstruction* ib = dot(a.im, b.re);
    im = im == nullptr ? ib : o_.Binary(HloOpcode::kAdd, im, ib, Name(instr, "im"));
  }
  return Join({re, im}, instr);
}

HloInstruction* ComputationLowering::LowerReduce(HloInstruction* instr) {
  if (instr->operand_count() != 2 || !IsComplexArray(instr->shape()) ||
      !IsAddReducer(instr->to_apply())) {
    return nullptr;
  }
  const PrimitiveType part = ComplexComponentType(instr->shape().element_type());
  const ComplexParts x = Parts(instr->operand(0), part);
  const ComplexParts init = Parts(instr->operand(1), part);
  const Shape shape = Shape::Array(part, instr->shape().dimensions());
  HloComputation* add = reducers_->Get(HloOpcode::kAdd, part);
  HloInstruction* re = Clone(instr, shape, {x.re, init.re});
  HloInstruction* im = Clone(instr, shape, {x.im, init.im});
  re->SetAttr(AttrId::kToApply, add);
  im->SetAttr(AttrId::kToApply, add);
  return Join({re, im}, instr);
}

// A scatter-add of one complex array: the same scatter over the pairs,
// with the pair as one more update window dimension (the operand's last),
// adding parts to parts. One real scatter, so atomic where the target has
// atomic adds.
HloInstruction* ComputationLowering::LowerScatterAdd(HloInstruction* instr) {
  if (instr->operand_count() != 3 || !IsComplexArray(instr->shape()) || !IsAddReducer(instr->to_apply())) {
    return nullptr;
  }
  const int64_t updates_rank = OriginalShape(instr->operand(2)).rank();
  HloInstruction* out = CloneWithAttr(instr, AttrId::kUpdateWindowDims,
                                      Append(instr->GetIntList(AttrId::kUpdateWindowDims), updates_rank));
  out->SetAttr(AttrId::kToApply, reducers_->Get(HloOpcode::kAdd, ComplexComponentType(instr->shape().element_type())));
  return out;
}

// A select-and-scatter of a complex source onto a real operand, adding:
// the result has the operand's real type, and the evaluator adds complex
// values and keeps their real part, so it is the same op on the real parts
// of the source and the initial value. (A complex operand's
// select-and-scatter never gets here: Run expands it into a reduce-window
// and a scatter first, SelectAndScatterExpander.)
HloInstruction* ComputationLowering::LowerSelectAndScatterAdd(HloInstruction* instr) {
  if (HasComplexLeaf(instr->operand(0)->shape()) || !IsComplexArray(instr->operand(1)->shape()) ||
      !IsAddReducer(instr->GetComputation(AttrId::kScatter))) {
    return nullptr;
  }
  const PrimitiveType part = ComplexComponentType(instr->operand(1)->shape().element_type());
  HloInstruction* out = Clone(instr, instr->shape(),
                              {instr->operand(0), Parts(instr->operand(1), part).re,
                               Parts(instr->operand(2), part).re});
  out->SetAttr(AttrId::kScatter, reducers_->Get(HloOpcode::kAdd, part));
  return out;
}

// The root's values with every complex one as its two parts, as one
// tuple; nullptr for a tuple-shaped root that is not a tuple instruction.
HloInstruction* ComputationLowering::PartsTuple(HloInstruction* root) {
  std::vector<HloInstruction*> leaves = {root};
  if (root->opcode() == HloOpcode::kTuple) leaves = root->operands();
  std::vector<HloInstruction*> out;
  for (HloInstruction* leaf : leaves) {
    const Shape& shape = OriginalShape(leaf);
    if (!shape.IsArray()) return nullptr;
    if (!IsComplex(shape.element_type())) {
      out.push_back(leaf);
      continue;
    }
    const ComplexParts parts = Parts(leaf, ComplexComponentType(shape.element_type()));
    out.push_back(parts.re);
    out.push_back(parts.im);
  }
  return o_.Tuple(out, Name(root, "parts"));
}

// A copy of the scalar computation `fn` over the parts `slots` describes:
// each complex parameter is two real ones, recombined with `complex` and
// lowered like any other computation; with `returns_values`, the complex
// results become their parts too. Added to the module.
absl::StatusOr<HloComputation*> ComputationLowering::SplitComputation(const HloComputation& fn,
                                                                      const PartSlots& slots,
                                                                      bool returns_values) {
  HloModule* module = computation_->parent();
  auto owned = std::make_unique<HloComputation>(module->UniqueComputationName(absl::StrCat(fn.name(), "_parts")));
  OpBuilder b(owned.get());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  for (int64_t k = 0; k < slots.count(); ++k) {
    for (int64_t role = 0; role < 2; ++role) {
      const HloInstruction* old = fn.parameter_instruction(slots.OldParameter(k, role));
      const int64_t j = slots.first(k);
      if (!slots.complex(k)) {
        mapped[old] = b.Parameter(slots.NewParameter(j, role), old->shape(), old->name());
        continue;
      }
      const Shape part = Shape::Scalar(ComplexComponentType(old->shape().element_type()));
      HloInstruction* re = b.Parameter(slots.NewParameter(j, role), part, Name(old, "re"));
      HloInstruction* im = b.Parameter(slots.NewParameter(j + 1, role), part, Name(old, "im"));
      mapped[old] = b.Op(HloOpcode::kComplex, old->shape(), {re, im}, old->name());
    }
  }
  for (HloInstruction* old : fn.MakePostOrder()) {
    if (old->opcode() == HloOpcode::kParameter) continue;
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : old->operands()) operands.push_back(mapped.at(operand));
    mapped[old] = owned->AddInstruction(
        old->CloneWithNewOperands(old->shape(), operands, owned->UniqueInstructionName(old->name())));
  }
  owned->set_root_instruction(mapped.at(fn.root_instruction()));
  HloComputation* out = module->AddComputation(std::move(owned));
  RETURN_IF_ERROR(ComputationLowering(out, /*entry=*/true, reducers_, returns_values).Run().status());
  RemoveDeadInstructions(out);
  return out;
}

// `instr`'s operands with each complex array of a run replaced by its
// parts (re, im).
std::vector<HloInstruction*> ComputationLowering::SplitOperands(HloInstruction* instr, const PartSlots& slots) {
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    HloInstruction* operand = instr->operand(i);
    const int64_t k = SlotOfOperand(*instr, i);
    if (k < 0 || !slots.complex(k)) {
      operands.push_back(operand);
      continue;
    }
    const ComplexParts parts = Parts(operand, ComplexComponentType(OriginalShape(operand).element_type()));
    operands.push_back(parts.re);
    operands.push_back(parts.im);
  }
  return operands;
}

// The results of `op` (`instr` over the parts, a tuple with a leaf per
// new slot) joined back into `instr`'s real form.
HloInstruction* ComputationLowering::JoinResults(HloInstruction* op, HloInstruction* instr,
                                                 const PartSlots& slots) {
  std::vector<HloInstruction*> results;
  for (int64_t k = 0; k < slots.count(); ++k) {
    const int64_t j = slots.first(k);
    HloInstruction* re = o_.GetTupleElement(op, j, Name(instr, "part"));
    if (!slots.complex(k)) {
      results.push_back(re);
      continue;
    }
    results.push_back(Join({re, o_.GetTupleElement(op, j + 1, Name(instr, "im"))}, instr));
  }
  return instr->shape().IsTuple() ? o_.Tuple(results, Name(instr, "results")) : results[0];
}

// sort, reduce, reduce-window or scatter over complex arrays: the same op
// over the arrays' parts (two arrays for each complex one, so variadic),
// with its scalar computation split to match (SplitComputation).
absl::StatusOr<HloInstruction*> ComputationLowering::LowerSplit(HloInstruction* instr) {
  const HloComputation* fn = instr->to_apply();
  if (fn == nullptr) return nullptr;
  const bool values = instr->opcode() != HloOpcode::kSort;
  const HloInstruction* fn_root = fn->root_instruction();
  if (values && fn_root->shape().IsTuple() && fn_root->opcode() != HloOpcode::kTuple) return nullptr;
  std::vector<bool> complex;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const int64_t k = SlotOfOperand(*instr, i);
    if (k >= static_cast<int64_t>(complex.size())) complex.push_back(IsComplexArray(OriginalShape(instr->operand(i))));
  }
  const PartSlots slots(complex, values ? PartSlots::Order::kOperandsPerRole : PartSlots::Order::kPairPerOperand);
  if (fn->num_parameters() != 2 * slots.count()) return nullptr;

  const Shape& shape = instr->shape();
  std::vector<Shape> leaves;
  for (int64_t k = 0; k < slots.count(); ++k) {
    const Shape& leaf = shape.IsTuple() ? shape.tuple_shapes(k) : shape;
    if (!slots.complex(k)) {
      leaves.push_back(leaf);
      continue;
    }
    const Shape part = Shape::Array(ComplexComponentType(leaf.element_type()), leaf.dimensions());
    leaves.push_back(part);
    leaves.push_back(part);
  }
  ASSIGN_OR_RETURN(HloComputation* parts_fn, SplitComputation(*fn, slots, values));
  HloInstruction* op = Clone(instr, Shape::Tuple(leaves), SplitOperands(instr, slots));
  op->SetAttr(AttrId::kToApply, parts_fn);
  return JoinResults(op, instr, slots);
}

absl::StatusOr<HloInstruction*> ComputationLowering::Lower(HloInstruction* instr) {
  if (!instr->control_predecessors().empty() || !instr->control_successors().empty()) return nullptr;
  switch (instr->opcode()) {
    case HloOpcode::kConstant: return LowerConstant(instr);
    case HloOpcode::kComplex: {
      const PrimitiveType part = ComplexComponentType(instr->shape().element_type());
      return Join({o_.Convert(instr->operand(0), part, Name(instr, "re")),
                   o_.Convert(instr->operand(1), part, Name(instr, "im"))},
                  instr);
    }
    case HloOpcode::kSelect: {
      if (!IsComplexArray(instr->shape())) return nullptr;
      HloInstruction* pred = instr->operand(0);
      const Shape pair = RealPairShape(instr->shape());
      std::vector<int64_t> mapping;
      for (int64_t d = 0; d < pred->shape().rank(); ++d) mapping.push_back(d);
      HloInstruction* wide = o_.Broadcast(pred, pair.dimensions(), mapping, Name(instr, "pred"));
      return o_.Select(wide, Pair(instr->operand(1)), Pair(instr->operand(2)),
                       Name(instr, "select"));
    }
    case HloOpcode::kConvert: return LowerConvert(instr);
    case HloOpcode::kPad: return LowerPad(instr);
    case HloOpcode::kDot: return LowerDot(instr);
    default: break;
  }
  if (instr->opcode() == HloOpcode::kReduce) {
    if (HloInstruction* per_part = LowerReduce(instr)) return per_part;
  }
  if (instr->opcode() == HloOpcode::kScatter) {
    if (HloInstruction* pairs = LowerScatterAdd(instr)) return pairs;
  }
  if (instr->opcode() == HloOpcode::kSelectAndScatter) return LowerSelectAndScatterAdd(instr);
  if (AppliesScalarComputation(instr->opcode())) return LowerSplit(instr);
  if (HloInstruction* moved = LowerDataMovement(instr)) return moved;
  return LowerElementwise(instr);
}

}  // namespace

bool HasComplexLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      if (HasComplexLeaf(e)) return true;
    }
    return false;
  }
  return IsComplexArray(shape);
}

Shape RealPairShape(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& e : shape.tuple_shapes()) elements.push_back(RealPairShape(e));
    return Shape::Tuple(std::move(elements));
  }
  if (!IsComplexArray(shape)) return shape;
  Shape out = Shape::Array(ComplexComponentType(shape.element_type()), Append(shape.dimensions(), 2));
  if (shape.has_layout()) out.SetDefaultLayout();
  return out;
}

absl::StatusOr<bool> ComplexExpander::Run(HloModule* module) {
  // A complex operand's select-and-scatter becomes a reduce-window and a
  // scatter first, which the lowering below splits into parts.
  ASSIGN_OR_RETURN(bool changed, SelectAndScatterExpander(/*complex_operands_only=*/true).Run(module));
  const absl::flat_hash_set<const HloComputation*> control_flow = ControlFlowComputations(*module);
  ScalarReducers reducers(module, "complex");
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const bool entry = computation == module->entry_computation();
    if (!entry && !control_flow.contains(computation)) continue;
    ASSIGN_OR_RETURN(const bool c, ComputationLowering(computation, entry, &reducers).Run());
    changed |= c;
  }
  return changed;
}

}  // namespace xla
