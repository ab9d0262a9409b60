// Evaluator ops of the reduce family (see op_table.h): reduce (variadic),
// reduce-window (variadic; padding, strides, base and window dilation) and
// select-and-scatter.
//
// Order of evaluation (part of the oracle's contract, since float reductions
// are not associative): each output element starts from the init values and
// folds the inputs in one at a time, acc = f(acc, x), visiting
//   reduce:        the reduced index in row-major order of the reduced
//                  dimensions (taken in increasing dimension order);
//   reduce-window: the window positions in row-major order of the window,
//                  skipping positions that fall on padding or on the holes of
//                  base dilation (they contribute nothing, as in XLA);
//   select-and-scatter: source elements in row-major order; within a window
//                  the first valid element is selected and replaced by a later
//                  one e whenever select(selected, e) is false; then
//                  out[selected] = scatter(source, out[selected]) (XLA's
//                  argument order).
// Reducers whose root is add/multiply/maximum/minimum/and/or of the two
// parameters, and select computations whose root is a compare of the two
// parameters, run through the same scalar kernels the elementwise ops use, so
// they give exactly what calling the computation would.
#include <optional>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/evaluator/elementwise_internal.h"
#include "xla/hlo/evaluator/eval_util.h"
#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/numeric_util.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using Operands = absl::Span<const Literal* const>;

// Calls a computation on scalar arguments held in reusable literals; inputs
// are converted to the parameter types (reducers may accumulate in another
// float precision than their inputs).
class ScalarCall {
 public:
  static absl::StatusOr<ScalarCall> Create(const HloInstruction& instr,
                                           const HloComputation* comp, int64_t arity) {
    if (comp == nullptr) return InstrError(instr, "needs a called computation");
    if (comp->num_parameters() != arity) {
      return InstrError(instr, "computation '", comp->name(), "' takes ", comp->num_parameters(),
                        " parameters, expected ", arity);
    }
    ScalarCall call(instr, *comp);
    for (int64_t i = 0; i < arity; ++i) {
      const HloInstruction* p = comp->parameter_instruction(i);
      if (p == nullptr || !p->shape().IsScalar()) {
        return InstrError(instr, "parameter ", i, " of computation '", comp->name(),
                          "' must be a scalar");
      }
      call.args_.emplace_back(p->shape());
    }
    for (const Literal& a : call.args_) call.ptrs_.push_back(&a);
    return call;
  }

  // Sets argument `k` to element `i` of `src`, converted to the parameter type.
  void SetArg(int64_t k, const Literal& src, int64_t i) { ConvertElement(src, i, args_[k], 0); }

  // Calls the computation; the result must hold `n` scalars (a scalar, or a
  // tuple of n scalars). ResultElement(k) reads them afterwards.
  absl::Status Call(EvalContext& ctx, int64_t n) {
    ASSIGN_OR_RETURN(result_, ctx.Call(comp_, ptrs_));
    const Shape& s = result_.shape();
    bool ok = s.IsTuple() ? s.tuple_shapes_size() == n : (n == 1 && s.IsScalar());
    for (int64_t k = 0; ok && s.IsTuple() && k < n; ++k) ok = s.tuple_shapes(k).IsScalar();
    if (!ok) {
      return InstrError(*instr_, "computation '", comp_.name(), "' returned ",
                        s.ToString(false), ", expected ", n, " scalar(s)");
    }
    return absl::OkStatus();
  }

  const Literal& ResultElement(int64_t k) const {
    return result_.shape().IsTuple() ? result_.tuple_elements()[k] : result_;
  }

 private:
  ScalarCall(const HloInstruction& instr, const HloComputation& comp)
      : instr_(&instr), comp_(comp) {}

  const HloInstruction* instr_;
  const HloComputation& comp_;
  std::vector<Literal> args_;
  std::vector<const Literal*> ptrs_;
  Literal result_;
};

// A reducer root that is one binary op applied to the two parameters.
struct TrivialCombiner {
  const BinaryKernel* kernel;
  PrimitiveType type;
  bool swapped;  // root is op(param1, param0)
};

std::optional<TrivialCombiner> DetectTrivialCombiner(const HloComputation& comp) {
  static constexpr HloOpcode kTrivialOps[] = {HloOpcode::kAdd,     HloOpcode::kMultiply,
                                              HloOpcode::kMaximum, HloOpcode::kMinimum,
                                              HloOpcode::kAnd,     HloOpcode::kOr};
  const HloInstruction* root = comp.root_instruction();
  if (comp.num_parameters() != 2 || root == nullptr || root->operand_count() != 2) {
    return std::nullopt;
  }
  bool listed = false;
  for (HloOpcode op : kTrivialOps) listed |= root->opcode() == op;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (!listed || a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number() || !root->shape().IsScalar()) {
    return std::nullopt;
  }
  const PrimitiveType t = root->shape().element_type();
  if (!ShapesCompatible(a->shape(), root->shape()) ||
      !ShapesCompatible(b->shape(), root->shape())) {
    return std::nullopt;
  }
  const BinaryKernel* kernel = FindBinaryKernel(root->opcode());
  if (kernel == nullptr || !KernelSupports(*kernel, t)) return std::nullopt;
  return TrivialCombiner{kernel, t, a->parameter_number() == 1};
}

// Folds inputs into accumulators with a reducer of n accumulators and n
// inputs: (acc_0..acc_{n-1}, x_0..x_{n-1}) -> (acc'_0..acc'_{n-1}).
class Reducer {
 public:
  static absl::StatusOr<Reducer> Create(const HloInstruction& instr, const HloComputation* comp,
                                        int64_t n, absl::Span<const PrimitiveType> acc_types,
                                        absl::Span<const PrimitiveType> input_types) {
    ASSIGN_OR_RETURN(ScalarCall call, ScalarCall::Create(instr, comp, 2 * n));
    Reducer r(std::move(call), n);
    if (n == 1) {
      std::optional<TrivialCombiner> t = DetectTrivialCombiner(*comp);
      if (t.has_value() && t->type == acc_types[0] && t->type == input_types[0]) r.trivial_ = t;
    }
    return r;
  }

  // acc = f(acc, inputs[k][index] for each k). `acc` holds n scalars.
  absl::Status Combine(EvalContext& ctx, std::vector<Literal>& acc, Operands inputs,
                       int64_t index) {
    if (trivial_.has_value()) {
      Literal& a = acc[0];
      if (trivial_->swapped) {
        ApplyBinary(*trivial_->kernel, trivial_->type, *inputs[0], index, a, 0, a, 0);
      } else {
        ApplyBinary(*trivial_->kernel, trivial_->type, a, 0, *inputs[0], index, a, 0);
      }
      return absl::OkStatus();
    }
    for (int64_t k = 0; k < n_; ++k) {
      call_.SetArg(k, acc[k], 0);
      call_.SetArg(n_ + k, *inputs[k], index);
    }
    RETURN_IF_ERROR(call_.Call(ctx, n_));
    for (int64_t k = 0; k < n_; ++k) ConvertElement(call_.ResultElement(k), 0, acc[k], 0);
    return absl::OkStatus();
  }

 private:
  Reducer(ScalarCall call, int64_t n) : call_(std::move(call)), n_(n) {}

  ScalarCall call_;
  int64_t n_;
  std::optional<TrivialCombiner> trivial_;
};

// Splits reduce / reduce-window operands into n arrays and n scalar inits.
absl::StatusOr<int64_t> SplitInputsAndInits(const HloInstruction& instr, Operands operands) {
  const int64_t count = static_cast<int64_t>(operands.size());
  if (count < 2 || count % 2 != 0) {
    return InstrError(instr, "takes N inputs and N init values, got ", count, " operands");
  }
  const int64_t n = count / 2;
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, i));
    if (operands[i]->shape().dimensions() != operands[0]->shape().dimensions() ||
        !operands[n + i]->shape().IsScalar()) {
      return InstrError(instr, "inputs must share dimensions and inits must be scalars, got ",
                        operands[i]->shape().ToString(false), " and ",
                        operands[n + i]->shape().ToString(false));
    }
  }
  return n;
}

std::vector<PrimitiveType> TypesOf(Operands operands, int64_t first, int64_t n) {
  std::vector<PrimitiveType> out;
  for (int64_t i = first; i < first + n; ++i) out.push_back(operands[i]->shape().element_type());
  return out;
}

// Fresh accumulators holding the init values.
std::vector<Literal> InitialAcc(Operands operands, int64_t n) {
  std::vector<Literal> acc;
  for (int64_t k = 0; k < n; ++k) acc.push_back(*operands[n + k]);
  return acc;
}

Literal Results(std::vector<Literal> outputs) {
  if (outputs.size() == 1) return std::move(outputs[0]);
  return MakeTuple(std::move(outputs));
}

absl::StatusOr<Literal> EvalReduce(const HloInstruction& instr, Operands operands,
                                   EvalContext& ctx) {
  ASSIGN_OR_RETURN(int64_t n, SplitInputsAndInits(instr, operands));
  const std::vector<int64_t>& in_dims = operands[0]->shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= rank || reduced[d]) {
      return InstrError(instr, "dimensions={", absl::StrJoin(instr.dimensions(), ","),
                        "} is invalid for rank ", rank);
    }
    reduced[d] = true;
  }
  const std::vector<int64_t> strides = RowMajorStrides(in_dims);
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  for (int64_t d = 0; d < rank; ++d) {
    (reduced[d] ? red_dims : kept_dims).push_back(in_dims[d]);
    (reduced[d] ? red_strides : kept_strides).push_back(strides[d]);
  }
  // Offsets of the reduced positions, in row-major order of the reduced dims.
  std::vector<int64_t> red_offsets;
  if (ElementCount(red_dims) > 0) {
    std::vector<int64_t> idx(red_dims.size(), 0);
    do {
      int64_t off = 0;
      for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * red_strides[i];
      red_offsets.push_back(off);
    } while (NextIndex(idx, red_dims));
  }
  ASSIGN_OR_RETURN(Reducer reducer, Reducer::Create(instr, instr.to_apply(), n,
                                                    TypesOf(operands, n, n),
                                                    TypesOf(operands, 0, n)));
  std::vector<Literal> outputs;
  for (int64_t k = 0; k < n; ++k) {
    outputs.emplace_back(ArrayShape(operands[n + k]->shape().element_type(), kept_dims));
  }
  if (ElementCount(kept_dims) == 0) return Results(std::move(outputs));
  std::vector<int64_t> idx(kept_dims.size(), 0);
  int64_t out_linear = 0;
  do {
    int64_t base = 0;
    for (size_t i = 0; i < idx.size(); ++i) base += idx[i] * kept_strides[i];
    std::vector<Literal> acc = InitialAcc(operands, n);
    for (int64_t off : red_offsets) {
      RETURN_IF_ERROR(reducer.Combine(ctx, acc, operands.subspan(0, n), base + off));
    }
    for (int64_t k = 0; k < n; ++k) CopyElement(acc[k], 0, outputs[k], out_linear);
    ++out_linear;
  } while (NextIndex(idx, kept_dims));
  return Results(std::move(outputs));
}

// The window attribute, checked against `rank`.
absl::StatusOr<const Window*> GetWindow(const HloInstruction& instr, int64_t rank) {
  const Window* w = AttrAs<Window>(instr, AttrId::kWindow);
  if (w == nullptr || static_cast<int64_t>(w->dims.size()) != rank) {
    return InstrError(instr, "needs a window with one entry per dimension (rank ", rank, ")");
  }
  for (const WindowDim& d : w->dims) {
    if (d.size <= 0 || d.stride <= 0 || d.lhs_dilate <= 0 || d.rhs_dilate <= 0) {
      return InstrError(instr, "window sizes, strides and dilations must be positive");
    }
  }
  return w;
}

// Output dimensions of `window` over `dims`.
std::vector<int64_t> WindowedDims(const Window& window, absl::Span<const int64_t> dims) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    const WindowDim& w = window.dims[d];
    const int64_t dilated = dims[d] == 0 ? 0 : (dims[d] - 1) * w.lhs_dilate + 1;
    const int64_t padded = dilated + w.pad_low + w.pad_high;
    const int64_t span = (w.size - 1) * w.rhs_dilate + 1;
    out.push_back(padded < span ? 0 : (padded - span) / w.stride + 1);
  }
  return out;
}

// Calls f(linear operand index) for each position of the window placed at
// `out_index` that lands on an operand element, in row-major window order.
template <typename F>
absl::Status ForEachWindowElement(const Window& window, absl::Span<const int64_t> dims,
                                  absl::Span<const int64_t> out_index, F f) {
  std::vector<int64_t> sizes;
  for (const WindowDim& w : window.dims) sizes.push_back(w.size);
  std::vector<int64_t> widx(sizes.size(), 0);
  do {
    int64_t linear = 0;
    bool inside = true;
    for (size_t d = 0; inside && d < dims.size(); ++d) {
      const WindowDim& w = window.dims[d];
      const int64_t c = out_index[d] * w.stride + widx[d] * w.rhs_dilate - w.pad_low;
      inside = c >= 0 && c % w.lhs_dilate == 0 && c / w.lhs_dilate < dims[d];
      linear = linear * dims[d] + (inside ? c / w.lhs_dilate : 0);
    }
    if (inside) RETURN_IF_ERROR(f(linear));
  } while (NextIndex(widx, sizes));
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvalReduceWindow(const HloInstruction& instr, Operands operands,
                                         EvalContext& ctx) {
  ASSIGN_OR_RETURN(int64_t n, SplitInputsAndInits(instr, operands));
  const std::vector<int64_t>& in_dims = operands[0]->shape().dimensions();
  ASSIGN_OR_RETURN(const Window* window,
                   GetWindow(instr, static_cast<int64_t>(in_dims.size())));
  const std::vector<int64_t> out_dims = WindowedDims(*window, in_dims);
  ASSIGN_OR_RETURN(Reducer reducer, Reducer::Create(instr, instr.to_apply(), n,
                                                    TypesOf(operands, n, n),
                                                    TypesOf(operands, 0, n)));
  std::vector<Literal> outputs;
  for (int64_t k = 0; k < n; ++k) {
    outputs.emplace_back(ArrayShape(operands[n + k]->shape().element_type(), out_dims));
  }
  if (ElementCount(out_dims) == 0) return Results(std::move(outputs));
  std::vector<int64_t> idx(out_dims.size(), 0);
  int64_t out_linear = 0;
  do {
    std::vector<Literal> acc = InitialAcc(operands, n);
    RETURN_IF_ERROR(ForEachWindowElement(*window, in_dims, idx, [&](int64_t linear) {
      return reducer.Combine(ctx, acc, operands.subspan(0, n), linear);
    }));
    for (int64_t k = 0; k < n; ++k) CopyElement(acc[k], 0, outputs[k], out_linear);
    ++out_linear;
  } while (NextIndex(idx, out_dims));
  return Results(std::move(outputs));
}

// A select computation whose root is compare(param0, param1) (or swapped).
struct TrivialSelect {
  CompareSpec spec;
  PrimitiveType type;
  bool swapped;  // root is compare(param1, param0)
};

std::optional<TrivialSelect> DetectTrivialSelect(const HloComputation& comp) {
  const HloInstruction* root = comp.root_instruction();
  if (comp.num_parameters() != 2 || root == nullptr || root->opcode() != HloOpcode::kCompare ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number() || !a->shape().IsScalar() ||
      !ShapesCompatible(a->shape(), b->shape())) {
    return std::nullopt;
  }
  absl::StatusOr<CompareSpec> spec = GetCompareSpec(*root);
  const PrimitiveType t = a->shape().element_type();
  if (!spec.ok() || IsComplex(t)) return std::nullopt;
  return TrivialSelect{*spec, t, a->parameter_number() == 1};
}

absl::StatusOr<Literal> EvalSelectAndScatter(const HloInstruction& instr, Operands operands,
                                             EvalContext& ctx) {
  for (int64_t i = 0; i < 3; ++i) RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, i));
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  const PrimitiveType type = operand.shape().element_type();
  const std::vector<int64_t>& dims = operand.shape().dimensions();
  ASSIGN_OR_RETURN(const Window* window, GetWindow(instr, static_cast<int64_t>(dims.size())));
  const std::vector<int64_t> windowed = WindowedDims(*window, dims);
  if (source.shape().dimensions() != windowed || !init.shape().IsScalar()) {
    return InstrError(instr, "source ", source.shape().ToString(false),
                      " must have the windowed dimensions [", absl::StrJoin(windowed, ","),
                      "] and init must be a scalar");
  }
  const HloComputation* select_comp = instr.GetComputation(AttrId::kSelect);
  ASSIGN_OR_RETURN(ScalarCall select, ScalarCall::Create(instr, select_comp, 2));
  std::optional<TrivialSelect> fast_select = DetectTrivialSelect(*select_comp);
  if (fast_select.has_value() && fast_select->type != type) fast_select.reset();
  // scatter(source, current) folds like a reducer whose accumulator starts
  // at the source value.
  const PrimitiveType source_type = source.shape().element_type();
  ASSIGN_OR_RETURN(Reducer scatter, Reducer::Create(instr, instr.GetComputation(AttrId::kScatter),
                                                    1, {source_type}, {type}));
  // True when the element at `selected` stays selected over the one at `e`.
  auto keeps = [&](int64_t selected, int64_t e) -> absl::StatusOr<bool> {
    if (fast_select.has_value()) {
      return fast_select->swapped
                 ? CompareElements(fast_select->spec, operand, e, operand, selected)
                 : CompareElements(fast_select->spec, operand, selected, operand, e);
    }
    select.SetArg(0, operand, selected);
    select.SetArg(1, operand, e);
    RETURN_IF_ERROR(select.Call(ctx, 1));
    const Literal& keep = select.ResultElement(0);
    if (keep.shape().element_type() != PrimitiveType::PRED) {
      return InstrError(instr, "select computation must return pred");
    }
    return keep.GetBits(0) != 0;
  };
  Literal out(ArrayShape(type, dims));
  for (int64_t i = 0; i < out.element_count(); ++i) ConvertElement(init, 0, out, i);
  if (source.element_count() == 0) return out;
  std::vector<int64_t> sidx(windowed.size(), 0);
  std::vector<Literal> acc;
  acc.emplace_back(Shape::Scalar(source_type));
  const Literal* out_ptr = &out;
  int64_t source_linear = 0;
  do {
    int64_t selected = -1;
    RETURN_IF_ERROR(ForEachWindowElement(*window, dims, sidx, [&](int64_t linear) {
      if (selected < 0) {
        selected = linear;
        return absl::OkStatus();
      }
      ASSIGN_OR_RETURN(bool keep, keeps(selected, linear));
      if (!keep) selected = linear;
      return absl::OkStatus();
    }));
    if (selected >= 0) {
      CopyElement(source, source_linear, acc[0], 0);
      RETURN_IF_ERROR(scatter.Combine(ctx, acc, absl::MakeConstSpan(&out_ptr, 1), selected));
      ConvertElement(acc[0], 0, out, selected);
    }
    ++source_linear;
  } while (NextIndex(sidx, windowed));
  return out;
}

}  // namespace

void RegisterReduceOps(OpTable& table) {
  table[static_cast<int>(HloOpcode::kReduce)] = EvalReduce;
  table[static_cast<int>(HloOpcode::kReduceWindow)] = EvalReduceWindow;
  table[static_cast<int>(HloOpcode::kSelectAndScatter)] = EvalSelectAndScatter;
}

}  // namespace xla::evaluator
