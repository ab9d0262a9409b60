// Dispatch over every opcode, the shared helpers, and the elementwise rules.
#include "xla/hlo/verifier/shape_inference.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace shape_inference_internal {

Shape MakeArray(PrimitiveType type, const std::vector<int64_t>& dims,
                const std::vector<bool>& dynamic) {
  Shape s = Shape::Array(type, {});
  for (size_t i = 0; i < dims.size(); ++i) {
    s.add_dimension(dims[i], i < dynamic.size() && dynamic[i]);
  }
  s.SetDefaultLayout();
  return s;
}

absl::StatusOr<Shape> InferContext::DeclaredOrError() const {
  if (declared() == nullptr) {
    return Error("the result shape of ", HloOpcodeName(opcode()),
                 " cannot be inferred; write it in the text");
  }
  return *declared();
}

absl::StatusOr<Shape> InferContext::WithDeclaredType(
    Shape inferred, std::optional<PrimitiveType> fallback) const {
  if (declared() != nullptr) {
    if (!declared()->IsArray()) {
      return Error("declared shape ", ShapeStr(*declared()), " of ", HloOpcodeName(opcode()),
                   " must be an array");
    }
    inferred.set_element_type(declared()->element_type());
    return inferred;
  }
  if (!fallback.has_value()) {
    return Error("the result element type of ", HloOpcodeName(opcode()),
                 " cannot be inferred; write the shape in the text");
  }
  inferred.set_element_type(*fallback);
  return inferred;
}

absl::Status InferContext::ExpectOperandCountAtLeast(int64_t n) const {
  if (operand_count() >= n) return absl::OkStatus();
  return Error(HloOpcodeName(opcode()), " needs at least ", n, " operands, got ",
               operand_count());
}

absl::Status InferContext::ExpectArray(int64_t i) const {
  if (operand_shape(i).IsArray()) return absl::OkStatus();
  return Error("operand ", i, " must be an array, got ", ShapeStr(operand_shape(i)));
}

absl::Status InferContext::ExpectScalar(int64_t i) const {
  if (operand_shape(i).IsScalar()) return absl::OkStatus();
  return Error("operand ", i, " must be a scalar, got ", ShapeStr(operand_shape(i)));
}

absl::Status InferContext::ExpectToken(int64_t i) const {
  if (operand_shape(i).IsToken()) return absl::OkStatus();
  return Error("operand ", i, " must be a token, got ", ShapeStr(operand_shape(i)));
}

absl::Status InferContext::ExpectRank(int64_t i, int64_t rank) const {
  RETURN_IF_ERROR(ExpectArray(i));
  if (operand_shape(i).rank() == rank) return absl::OkStatus();
  return Error("operand ", i, " must have rank ", rank, ", got ", ShapeStr(operand_shape(i)));
}

absl::Status InferContext::ExpectSameType(int64_t i, int64_t j) const {
  if (operand_shape(i).element_type() == operand_shape(j).element_type()) {
    return absl::OkStatus();
  }
  return Error("operands ", i, " and ", j, " must have the same element type, got ",
               ShapeStr(operand_shape(i)), " and ", ShapeStr(operand_shape(j)));
}

absl::Status InferContext::Require(AttrId id) const {
  if (instr_.has_attr(id)) return absl::OkStatus();
  return Error(HloOpcodeName(opcode()), " needs attribute '", AttrName(id), "'");
}

absl::StatusOr<const HloComputation*> InferContext::Called(AttrId id) const {
  const HloComputation* c = instr_.GetComputation(id);
  if (c == nullptr) {
    return Error(HloOpcodeName(opcode()), " needs attribute '", AttrName(id),
                 "' naming one computation");
  }
  return c;
}

absl::Status InferContext::CheckDimIndices(AttrId id, const std::vector<int64_t>& dims,
                                           int64_t rank) const {
  absl::flat_hash_set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return Error(AttrName(id), "={", absl::StrJoin(dims, ","), "} has index ", d,
                   " out of range for rank ", rank);
    }
    if (!seen.insert(d).second) {
      return Error(AttrName(id), "={", absl::StrJoin(dims, ","), "} repeats index ", d);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> WindowOutputSize(const InferContext& ctx, int64_t in, const WindowDim& w,
                                         int64_t dim) {
  if (w.size <= 0 || w.stride <= 0 || w.lhs_dilate <= 0 || w.rhs_dilate <= 0) {
    return ctx.Error("window dimension ", dim,
                     " needs a positive size, stride and dilations, got size=", w.size,
                     " stride=", w.stride, " lhs_dilate=", w.lhs_dilate,
                     " rhs_dilate=", w.rhs_dilate);
  }
  if (in == kUnboundedSize) return kUnboundedSize;
  // padded = dilated base + padding; the window spans (size-1)*rhs_dilate+1.
  std::optional<int64_t> padded = CheckedAdd(w.pad_low, w.pad_high);
  if (in > 0) {
    std::optional<int64_t> dilated = CheckedMul(in - 1, w.lhs_dilate);
    if (dilated && padded) padded = CheckedAdd(*dilated, *padded);
    padded = dilated && padded ? CheckedAdd(*padded, 1) : std::nullopt;
  }
  std::optional<int64_t> span = CheckedMul(w.size - 1, w.rhs_dilate);  // window extent - 1
  if (!padded.has_value() || !span.has_value()) {
    return ctx.Error("window dimension ", dim, " overflows int64 for input size ", in);
  }
  if (*padded <= *span) return 0;
  return (*padded - *span - 1) / w.stride + 1;
}

std::vector<Shape> FlatResults(const HloComputation& comp) {
  const HloInstruction* root = comp.root_instruction();
  if (root == nullptr) return {};
  if (root->shape().IsTuple()) return root->shape().tuple_shapes();
  return {root->shape()};
}

absl::Status CheckParameters(const InferContext& ctx, const HloComputation& comp,
                             absl::string_view what, const std::vector<Shape>& params) {
  if (comp.num_parameters() != static_cast<int64_t>(params.size())) {
    return ctx.Error(what, " computation '", comp.name(), "' takes ", comp.num_parameters(),
                     " parameters, expected ", params.size());
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const HloInstruction* p = comp.parameter_instruction(static_cast<int64_t>(i));
    if (p == nullptr) {
      return ctx.Error(what, " computation '", comp.name(), "' lacks parameter ", i);
    }
    if (!ShapesCompatible(p->shape(), params[i], /*ignore_dynamic=*/true)) {
      return ctx.Error(what, " computation '", comp.name(), "' parameter ", i, " has shape ",
                       ShapeStr(p->shape()), ", expected ", ShapeStr(params[i]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> RootShape(const InferContext& ctx, const HloComputation& comp) {
  if (comp.root_instruction() == nullptr) {
    return ctx.Error("called computation '", comp.name(), "' has no root");
  }
  return comp.root_instruction()->shape();
}

bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b) {
  return a == b || (IsFloat(a) && IsFloat(b));
}

absl::Status CheckReducer(const InferContext& ctx, const HloComputation& comp,
                          const std::vector<PrimitiveType>& acc_types,
                          const std::vector<PrimitiveType>& input_types) {
  const size_t n = acc_types.size();
  RETURN_IF_ERROR(RootShape(ctx, comp).status());
  auto describe = [&] {
    return absl::StrCat(" of reducer computation '", comp.name(), "' (",
                        comp.ComputeProgramShape().ToString(), ")");
  };
  if (comp.num_parameters() != static_cast<int64_t>(2 * n)) {
    return ctx.Error("expected ", 2 * n, " parameters", describe());
  }
  for (size_t i = 0; i < 2 * n; ++i) {
    const HloInstruction* p = comp.parameter_instruction(static_cast<int64_t>(i));
    const PrimitiveType want = i < n ? acc_types[i] : input_types[i - n];
    if (p == nullptr || !p->shape().IsScalar() ||
        !SameTypeIgnoringFpPrecision(p->shape().element_type(), want)) {
      return ctx.Error("parameter ", i, describe(), " must be a scalar ",
                       PrimitiveTypeName(want));
    }
  }
  std::vector<Shape> results = FlatResults(comp);
  bool ok = results.size() == n;
  for (size_t i = 0; ok && i < n; ++i) {
    ok = results[i].IsScalar() &&
         SameTypeIgnoringFpPrecision(results[i].element_type(), acc_types[i]);
  }
  if (!ok) {
    return ctx.Error("the result", describe(), " must be ", n,
                     " scalar(s) of the init value type(s)");
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferElementwise(const InferContext& ctx) {
  const HloOpcode op = ctx.opcode();
  if (op == HloOpcode::kCopy) return ctx.operand_shape(0);  // tuples allowed
  for (int64_t i = 0; i < ctx.operand_count(); ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& a = ctx.operand_shape(0);
  if (op == HloOpcode::kReducePrecision) {
    const int64_t e = ctx.instr().GetInt(AttrId::kExponentBits, 1);
    const int64_t m = ctx.instr().GetInt(AttrId::kMantissaBits, 0);
    if (e < 1 || m < 0) {
      return ctx.Error("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got ",
                       e, " and ", m);
    }
  }
  if (HloOpcodeCategory(op) == OpCategory::kElementwiseUnary) {
    Shape out = a;
    if (op == HloOpcode::kAbs && IsComplex(a.element_type())) {
      out.set_element_type(ComplexComponentType(a.element_type()));
    }
    return out;
  }
  const Shape& b = ctx.operand_shape(1);
  if (a.element_type() != b.element_type()) {
    return ctx.Error("operand shapes ", ShapeStr(a), " and ", ShapeStr(b),
                     " differ in element type");
  }
  if (a.rank() != b.rank()) {
    return ctx.Error("operand shapes ", ShapeStr(a), " and ", ShapeStr(b), " differ");
  }
  std::vector<int64_t> dims(a.rank());
  std::vector<bool> dynamic(a.rank());
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (!DimsAgree(a.dimensions(i), b.dimensions(i))) {
      return ctx.Error("operand shapes ", ShapeStr(a), " and ", ShapeStr(b), " differ");
    }
    const bool a_unbounded = a.is_unbounded_dimension(i);
    dims[i] = a_unbounded ? b.dimensions(i) : a.dimensions(i);
    dynamic[i] = a_unbounded ? b.is_dynamic_dimension(i)
                             : a.is_dynamic_dimension(i) ||
                                   (b.is_dynamic_dimension(i) && !b.is_unbounded_dimension(i));
  }
  PrimitiveType type = HloOpcodeCategory(op) == OpCategory::kCompare ? PrimitiveType::PRED
                                                                     : a.element_type();
  return MakeArray(type, dims, dynamic);
}

}  // namespace shape_inference_internal

namespace {

using shape_inference_internal::InferContext;
using shape_inference_internal::MakeArray;
using shape_inference_internal::ShapeStr;
namespace internal = shape_inference_internal;

absl::StatusOr<Shape> InferIdentity(const InferContext& ctx) { return ctx.operand_shape(0); }

absl::StatusOr<Shape> InferAddDependency(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectToken(1));
  return ctx.operand_shape(0);
}

absl::StatusOr<Shape> InferComplex(const InferContext& ctx) {
  RETURN_IF_ERROR(internal::InferElementwise(ctx).status());  // same dims and type
  const Shape& a = ctx.operand_shape(0);
  PrimitiveType type = a.element_type();
  if (type != PrimitiveType::F32 && type != PrimitiveType::F64) {
    return ctx.Error("complex needs f32 or f64 operands, got ", ShapeStr(a));
  }
  Shape out = a;
  out.set_element_type(type == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128);
  return out;
}

// real, imag: complex -> component type; floats pass through.
absl::StatusOr<Shape> InferRealImag(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  Shape out = ctx.operand_shape(0);
  if (IsComplex(out.element_type())) {
    out.set_element_type(ComplexComponentType(out.element_type()));
  } else if (!IsFloat(out.element_type())) {
    return ctx.Error(HloOpcodeName(ctx.opcode()), " needs a float or complex operand, got ",
                     ShapeStr(out));
  }
  return out;
}

absl::StatusOr<Shape> InferIsFinite(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  Shape out = ctx.operand_shape(0);
  out.set_element_type(PrimitiveType::PRED);
  return out;
}

absl::StatusOr<Shape> InferSelect(const InferContext& ctx) {
  for (int64_t i = 0; i < 3; ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& pred = ctx.operand_shape(0);
  const Shape& on_true = ctx.operand_shape(1);
  const Shape& on_false = ctx.operand_shape(2);
  if (!ShapesCompatible(on_true, on_false, /*ignore_dynamic=*/true)) {
    return ctx.Error("select branches have different shapes ", ShapeStr(on_true), " and ",
                     ShapeStr(on_false));
  }
  if (pred.element_type() != PrimitiveType::PRED) {
    return ctx.Error("select predicate must be pred, got ", ShapeStr(pred));
  }
  if (!pred.IsScalar() && pred.dimensions() != on_true.dimensions()) {
    return ctx.Error("select predicate ", ShapeStr(pred), " must be a scalar or match ",
                     ShapeStr(on_true));
  }
  return on_true;
}

absl::StatusOr<Shape> InferClamp(const InferContext& ctx) {
  for (int64_t i = 0; i < 3; ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& operand = ctx.operand_shape(1);
  for (int64_t i : {0, 2}) {
    const Shape& bound = ctx.operand_shape(i);
    RETURN_IF_ERROR(ctx.ExpectSameType(i, 1));
    if (!bound.IsScalar() && bound.dimensions() != operand.dimensions()) {
      return ctx.Error("clamp bound ", ShapeStr(bound), " must be a scalar or match ",
                       ShapeStr(operand));
    }
  }
  return operand;
}

absl::StatusOr<Shape> InferConstantOrParameter(const InferContext& ctx) {
  return ctx.DeclaredOrError();
}

absl::StatusOr<Shape> InferRngGetAndUpdateState(const InferContext& ctx) {
  if (ctx.declared() != nullptr) return *ctx.declared();
  return MakeArray(PrimitiveType::U64, {2});
}

absl::StatusOr<Shape> InferReplicaOrPartitionId(const InferContext&) {
  return Shape::Scalar(PrimitiveType::U32);
}

// One rule per opcode; the only switch over all opcodes.
absl::StatusOr<Shape> Dispatch(const InferContext& ctx) {
  switch (ctx.opcode()) {
    // Elementwise unary, binary and compare ops: generated from the category
    // column of the opcode table.
#define XLA_EW_CASE_kElementwiseUnary(e) case HloOpcode::e:
#define XLA_EW_CASE_kElementwiseBinary(e) case HloOpcode::e:
#define XLA_EW_CASE_kCompare(e) case HloOpcode::e:
#define XLA_EW_CASE_kOther(e)
#define XLA_EW_CASE_(e, name, arity, cat) XLA_EW_CASE_##cat(e)
    XLA_HLO_OPCODES(XLA_EW_CASE_)
#undef XLA_EW_CASE_
#undef XLA_EW_CASE_kOther
#undef XLA_EW_CASE_kCompare
#undef XLA_EW_CASE_kElementwiseBinary
#undef XLA_EW_CASE_kElementwiseUnary
      return internal::InferElementwise(ctx);
    case HloOpcode::kComplex: return InferComplex(ctx);
    case HloOpcode::kReal: case HloOpcode::kImag: return InferRealImag(ctx);
    case HloOpcode::kIsFinite: return InferIsFinite(ctx);
    case HloOpcode::kSelect: return InferSelect(ctx);
    case HloOpcode::kClamp: return InferClamp(ctx);
    case HloOpcode::kConvert: return internal::InferConvert(ctx);
    case HloOpcode::kBitcastConvert: return internal::InferBitcastConvert(ctx);
    case HloOpcode::kStochasticConvert: return internal::InferStochasticConvert(ctx);
    // Shape manipulation.
    case HloOpcode::kBroadcast: return internal::InferBroadcast(ctx);
    case HloOpcode::kReshape: return internal::InferReshape(ctx);
    case HloOpcode::kDynamicReshape: return internal::InferDynamicReshape(ctx);
    case HloOpcode::kTranspose: return internal::InferTranspose(ctx);
    case HloOpcode::kReverse: return internal::InferReverse(ctx);
    case HloOpcode::kSlice: return internal::InferSlice(ctx);
    case HloOpcode::kDynamicSlice: return internal::InferDynamicSlice(ctx);
    case HloOpcode::kDynamicUpdateSlice: return internal::InferDynamicUpdateSlice(ctx);
    case HloOpcode::kConcatenate: return internal::InferConcatenate(ctx);
    case HloOpcode::kPad: return internal::InferPad(ctx);
    case HloOpcode::kIota: return internal::InferIota(ctx);
    case HloOpcode::kGather: return internal::InferGather(ctx);
    case HloOpcode::kScatter: return internal::InferScatter(ctx);
    case HloOpcode::kGetDimensionSize: return internal::InferGetDimensionSize(ctx);
    case HloOpcode::kSetDimensionSize: return internal::InferSetDimensionSize(ctx);
    // Computation-heavy ops.
    case HloOpcode::kDot: return internal::InferDot(ctx);
    case HloOpcode::kRaggedDot: return internal::InferRaggedDot(ctx);
    case HloOpcode::kScaledDot: return internal::InferScaledDot(ctx);
    case HloOpcode::kConvolution: return internal::InferConvolution(ctx);
    case HloOpcode::kFft: return internal::InferFft(ctx);
    case HloOpcode::kCholesky: return internal::InferCholesky(ctx);
    case HloOpcode::kTriangularSolve: return internal::InferTriangularSolve(ctx);
    case HloOpcode::kBatchNormGrad: case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
      return internal::InferBatchNorm(ctx);
    case HloOpcode::kTopK: return internal::InferTopK(ctx);
    // Ops with a called computation over elements.
    case HloOpcode::kReduce: return internal::InferReduce(ctx);
    case HloOpcode::kReduceWindow: return internal::InferReduceWindow(ctx);
    case HloOpcode::kSelectAndScatter: return internal::InferSelectAndScatter(ctx);
    case HloOpcode::kSort: return internal::InferSort(ctx);
    case HloOpcode::kMap: return internal::InferMap(ctx);
    case HloOpcode::kScan: return internal::InferScan(ctx);
    // Tuples, control flow, calls, async wrappers.
    case HloOpcode::kTuple: return internal::InferTuple(ctx);
    case HloOpcode::kGetTupleElement: return internal::InferGetTupleElement(ctx);
    case HloOpcode::kWhile: return internal::InferWhile(ctx);
    case HloOpcode::kConditional: return internal::InferConditional(ctx);
    case HloOpcode::kCall: return internal::InferCallLike(ctx, AttrId::kToApply);
    case HloOpcode::kFusion: return internal::InferCallLike(ctx, AttrId::kCalls);
    case HloOpcode::kAsyncStart: return internal::InferAsyncStart(ctx);
    case HloOpcode::kAsyncUpdate: return InferIdentity(ctx);
    case HloOpcode::kAsyncDone: return internal::InferAsyncDone(ctx);
    case HloOpcode::kCopyStart: return internal::InferCopyStart(ctx);
    case HloOpcode::kCopyDone: return internal::InferCopyDone(ctx);
    case HloOpcode::kDomain: return InferIdentity(ctx);
    case HloOpcode::kOptimizationBarrier: return InferIdentity(ctx);
    case HloOpcode::kAddDependency: return InferAddDependency(ctx);
    case HloOpcode::kAfterAll: return internal::InferAfterAll(ctx);
    // Host and device transfers.
    case HloOpcode::kSend: return internal::InferSend(ctx);
    case HloOpcode::kSendDone: return internal::InferSendDone(ctx);
    case HloOpcode::kRecv: return internal::InferRecv(ctx);
    case HloOpcode::kRecvDone: return internal::InferRecvDone(ctx);
    case HloOpcode::kInfeed: return internal::InferInfeed(ctx);
    case HloOpcode::kOutfeed: return internal::InferOutfeed(ctx);
    // Collectives.
    case HloOpcode::kAllGather: return internal::InferAllGather(ctx);
    case HloOpcode::kAllGatherStart: return internal::InferAllGatherStart(ctx);
    case HloOpcode::kAllGatherDone: return internal::InferCollectiveDone(ctx);
    case HloOpcode::kAllReduce: case HloOpcode::kAllReduceStart:
      return internal::InferAllReduce(ctx);
    case HloOpcode::kAllReduceDone: return InferIdentity(ctx);
    case HloOpcode::kReduceScatter: return internal::InferReduceScatter(ctx);
    case HloOpcode::kAllToAll: return internal::InferAllToAll(ctx);
    case HloOpcode::kRaggedAllToAll: return internal::InferRaggedAllToAll(ctx);
    case HloOpcode::kCollectiveBroadcast: return internal::InferCollectiveBroadcast(ctx);
    case HloOpcode::kCollectivePermute: return internal::InferCollectivePermute(ctx);
    case HloOpcode::kCollectivePermuteStart:
      return internal::InferCollectivePermuteStart(ctx);
    case HloOpcode::kCollectivePermuteDone: return internal::InferCollectiveDone(ctx);
    case HloOpcode::kReplicaId: case HloOpcode::kPartitionId:
      return InferReplicaOrPartitionId(ctx);
    // Results that only the declared shape knows.
    case HloOpcode::kParameter: case HloOpcode::kConstant:
      return InferConstantOrParameter(ctx);
    case HloOpcode::kCustomCall: case HloOpcode::kBitcast:
      return ctx.DeclaredOrError();
    case HloOpcode::kRng: return internal::InferRng(ctx);
    case HloOpcode::kRngBitGenerator: return internal::InferRngBitGenerator(ctx);
    case HloOpcode::kRngGetAndUpdateState: return InferRngGetAndUpdateState(ctx);
  }
  return ctx.Error("unknown opcode ", static_cast<int>(ctx.opcode()));
}

}  // namespace

absl::StatusOr<Shape> InferShape(const HloInstruction& instr, bool shape_declared) {
  InferContext ctx(instr, shape_declared);
  const int arity = HloOpcodeArity(instr.opcode());
  if (arity != kVariadic && instr.operand_count() != arity) {
    return ctx.Error(HloOpcodeName(instr.opcode()), " takes ", arity, " operand",
                     arity == 1 ? "" : "s", ", got ", instr.operand_count());
  }
  ASSIGN_OR_RETURN(Shape result, Dispatch(ctx));
  result.SetDefaultLayout();
  return result;
}

bool ResultTypeIsDeclared(HloOpcode opcode) {
  static constexpr HloOpcode kOps[] = {
      HloOpcode::kConvert, HloOpcode::kBitcastConvert, HloOpcode::kStochasticConvert,
      HloOpcode::kDot,     HloOpcode::kConvolution,    HloOpcode::kRaggedDot,
      HloOpcode::kScaledDot,
  };
  return std::find(std::begin(kOps), std::end(kOps), opcode) != std::end(kOps);
}

bool ResultShapeIsDeclared(HloOpcode opcode) {
  static constexpr HloOpcode kOps[] = {
      HloOpcode::kParameter,       HloOpcode::kConstant,   HloOpcode::kBroadcast,
      HloOpcode::kReshape,         HloOpcode::kDynamicReshape, HloOpcode::kIota,
      HloOpcode::kCustomCall,      HloOpcode::kInfeed,     HloOpcode::kRecv,
      HloOpcode::kRng,             HloOpcode::kRngBitGenerator,
      HloOpcode::kRngGetAndUpdateState, HloOpcode::kBitcast,
  };
  return std::find(std::begin(kOps), std::end(kOps), opcode) != std::end(kOps);
}

}  // namespace xla
