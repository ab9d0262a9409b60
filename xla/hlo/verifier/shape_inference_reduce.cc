// Shape rules for ops that apply a computation over elements: reduce,
// reduce-window, select-and-scatter, sort, map, scan.
#include <algorithm>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla::shape_inference_internal {
namespace {

// Splits reduce / reduce-window operands into n inputs (arrays sharing
// dimensions) and n scalar init values. Returns n.
absl::StatusOr<int64_t> CheckInputsAndInits(const InferContext& ctx) {
  const int64_t count = ctx.operand_count();
  if (count < 2 || count % 2 != 0) {
    return ctx.Error(HloOpcodeName(ctx.opcode()),
                     " takes N inputs and N init values (an even count >= 2), got ", count);
  }
  const int64_t n = count / 2;
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ctx.ExpectArray(i));
    RETURN_IF_ERROR(ctx.ExpectScalar(n + i));
    if (ctx.operand_shape(i).dimensions() != ctx.operand_shape(0).dimensions()) {
      return ctx.Error("inputs must share dimensions, got ", ShapeStr(ctx.operand_shape(0)),
                       " and ", ShapeStr(ctx.operand_shape(i)));
    }
    if (!SameTypeIgnoringFpPrecision(ctx.operand_shape(i).element_type(),
                                     ctx.operand_shape(n + i).element_type())) {
      return ctx.Error("init value ", ShapeStr(ctx.operand_shape(n + i)),
                       " does not match input ", ShapeStr(ctx.operand_shape(i)));
    }
  }
  return n;
}

// Element types of operands [first, first + n).
std::vector<PrimitiveType> TypesOf(const InferContext& ctx, int64_t first, int64_t n) {
  std::vector<PrimitiveType> out;
  for (int64_t i = first; i < first + n; ++i) out.push_back(ctx.operand_shape(i).element_type());
  return out;
}

// One result per input with `dims`, typed like the init values; a tuple when
// there are several.
Shape ResultsLikeInits(const InferContext& ctx, int64_t n, const std::vector<int64_t>& dims,
                       const std::vector<bool>& dynamic) {
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    results.push_back(MakeArray(ctx.operand_shape(n + i).element_type(), dims, dynamic));
  }
  return n == 1 ? results[0] : Shape::Tuple(results);
}

// Output dimensions of a window over `input`.
absl::StatusOr<std::vector<int64_t>> WindowedDims(const InferContext& ctx, const Shape& input) {
  RETURN_IF_ERROR(ctx.Require(AttrId::kWindow));
  const Window* window = ctx.Attr<Window>(AttrId::kWindow);
  if (window == nullptr || static_cast<int64_t>(window->dims.size()) != input.rank()) {
    return ctx.Error("window needs one entry per dimension of ", ShapeStr(input));
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < input.rank(); ++i) {
    ASSIGN_OR_RETURN(int64_t size, WindowOutputSize(ctx, input.dimensions(i), window->dims[i], i));
    dims.push_back(size);
  }
  return dims;
}

// Checks a computation of scalar parameters `params` returning one scalar of
// `result` (a one-element tuple counts as its element).
absl::Status CheckScalarFunction(const InferContext& ctx, const HloComputation& comp,
                                 absl::string_view what, const std::vector<PrimitiveType>& params,
                                 PrimitiveType result) {
  std::vector<Shape> param_shapes;
  for (PrimitiveType t : params) param_shapes.push_back(Shape::Scalar(t));
  RETURN_IF_ERROR(CheckParameters(ctx, comp, what, param_shapes));
  ASSIGN_OR_RETURN(Shape root, RootShape(ctx, comp));
  std::vector<Shape> results = FlatResults(comp);
  if (results.size() != 1 || !results[0].IsScalar() || results[0].element_type() != result) {
    return ctx.Error(what, " computation '", comp.name(), "' returns ", ShapeStr(root),
                     ", expected ", PrimitiveTypeName(result), "[]");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferReduce(const InferContext& ctx) {
  ASSIGN_OR_RETURN(int64_t n, CheckInputsAndInits(ctx));
  const Shape& input = ctx.operand_shape(0);
  const std::vector<int64_t>& reduced = ctx.instr().GetIntList(AttrId::kDimensions);
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions, reduced, input.rank()));
  ASSIGN_OR_RETURN(const HloComputation* to_apply, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckReducer(ctx, *to_apply, TypesOf(ctx, n, n), TypesOf(ctx, 0, n)));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) != reduced.end()) continue;
    dims.push_back(input.dimensions(d));
    dynamic.push_back(input.is_dynamic_dimension(d));
  }
  return ResultsLikeInits(ctx, n, dims, dynamic);
}

absl::StatusOr<Shape> InferReduceWindow(const InferContext& ctx) {
  ASSIGN_OR_RETURN(int64_t n, CheckInputsAndInits(ctx));
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, WindowedDims(ctx, ctx.operand_shape(0)));
  ASSIGN_OR_RETURN(const HloComputation* to_apply, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckReducer(ctx, *to_apply, TypesOf(ctx, n, n), TypesOf(ctx, 0, n)));
  return ResultsLikeInits(ctx, n, dims, {});
}

absl::StatusOr<Shape> InferSelectAndScatter(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectArray(1));
  RETURN_IF_ERROR(ctx.ExpectScalar(2));
  RETURN_IF_ERROR(ctx.ExpectSameType(1, 2));
  const Shape& operand = ctx.operand_shape(0);
  const Shape& source = ctx.operand_shape(1);
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, WindowedDims(ctx, operand));
  if (source.dimensions() != dims) {
    return ctx.Error("source ", ShapeStr(source), " must have the windowed dimensions [",
                     absl::StrJoin(dims, ","), "] of ", ShapeStr(operand));
  }
  const PrimitiveType t = operand.element_type();
  const PrimitiveType s = source.element_type();
  ASSIGN_OR_RETURN(const HloComputation* select, ctx.Called(AttrId::kSelect));
  RETURN_IF_ERROR(CheckScalarFunction(ctx, *select, "select", {t, t}, PrimitiveType::PRED));
  ASSIGN_OR_RETURN(const HloComputation* scatter, ctx.Called(AttrId::kScatter));
  RETURN_IF_ERROR(CheckScalarFunction(ctx, *scatter, "scatter", {s, s}, s));
  return operand;
}

absl::StatusOr<Shape> InferSort(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  const Shape& first = ctx.operand_shape(0);
  std::vector<PrimitiveType> params;
  std::vector<Shape> results;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ctx.ExpectArray(i));
    const Shape& s = ctx.operand_shape(i);
    if (s.dimensions() != first.dimensions()) {
      return ctx.Error("sort operands must share dimensions, got ", ShapeStr(first), " and ",
                       ShapeStr(s));
    }
    params.push_back(s.element_type());
    params.push_back(s.element_type());
    results.push_back(s);
  }
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(AttrId::kDimensions);
  if (dims.size() != 1) return ctx.Error("sort needs dimensions={d} with one dimension");
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions, dims, first.rank()));
  ASSIGN_OR_RETURN(const HloComputation* cmp, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckScalarFunction(ctx, *cmp, "comparator", params, PrimitiveType::PRED));
  return results.size() == 1 ? results[0] : Shape::Tuple(results);
}

absl::StatusOr<Shape> InferMap(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  const Shape& first = ctx.operand_shape(0);
  std::vector<Shape> params;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ctx.ExpectArray(i));
    if (ctx.operand_shape(i).dimensions() != first.dimensions()) {
      return ctx.Error("map operands must share dimensions, got ", ShapeStr(first), " and ",
                       ShapeStr(ctx.operand_shape(i)));
    }
    params.push_back(Shape::Scalar(ctx.operand_shape(i).element_type()));
  }
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(AttrId::kDimensions);
  bool dims_ok = dims.empty() || static_cast<int64_t>(dims.size()) == first.rank();
  for (size_t i = 0; dims_ok && i < dims.size(); ++i) dims_ok = dims[i] == static_cast<int64_t>(i);
  if (!dims_ok) {
    return ctx.Error("map dimensions={", absl::StrJoin(dims, ","), "} must list every ",
                     "dimension of ", ShapeStr(first), " in order");
  }
  ASSIGN_OR_RETURN(const HloComputation* to_apply, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckParameters(ctx, *to_apply, "to_apply", params));
  ASSIGN_OR_RETURN(Shape root, RootShape(ctx, *to_apply));
  if (!root.IsScalar()) {
    return ctx.Error("map computation '", to_apply->name(), "' must return a scalar, got ",
                     ShapeStr(root));
  }
  Shape out = first;
  out.set_element_type(root.element_type());
  return out;
}

// scan(inputs..., carries...), dimensions={d}, num_carries=c: to_apply maps
// (one slice of each input along d, carries...) to (outputs..., carries...);
// the result is (outputs stacked along d, final carries...).
absl::StatusOr<Shape> InferScan(const InferContext& ctx) {
  const int64_t carries = ctx.instr().GetInt(AttrId::kNumCarries);
  const int64_t inputs = ctx.operand_count() - carries;
  if (carries < 0 || inputs < 1) {
    return ctx.Error("num_carries=", carries, " leaves no scanned input among ",
                     ctx.operand_count(), " operands");
  }
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(AttrId::kDimensions);
  if (dims.size() != 1) return ctx.Error("scan needs dimensions={d} with one dimension");
  const int64_t d = dims[0];
  std::vector<Shape> params;
  int64_t length = -1;
  for (int64_t i = 0; i < inputs; ++i) {
    RETURN_IF_ERROR(ctx.ExpectArray(i));
    const Shape& s = ctx.operand_shape(i);
    RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions, dims, s.rank()));
    if (length >= 0 && s.dimensions(d) != length) {
      return ctx.Error("scanned inputs must share the length of dimension ", d);
    }
    length = s.dimensions(d);
    std::vector<int64_t> slice = s.dimensions();
    slice.erase(slice.begin() + d);
    params.push_back(MakeArray(s.element_type(), slice));
  }
  for (int64_t i = inputs; i < ctx.operand_count(); ++i) params.push_back(ctx.operand_shape(i));
  ASSIGN_OR_RETURN(const HloComputation* body, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckParameters(ctx, *body, "to_apply", params));
  ASSIGN_OR_RETURN(Shape root, RootShape(ctx, *body));
  std::vector<Shape> results = FlatResults(*body);
  const int64_t outputs = static_cast<int64_t>(results.size()) - carries;
  if (outputs < 0) {
    return ctx.Error("scan computation '", body->name(), "' returns ", ShapeStr(root),
                     ", fewer values than num_carries=", carries);
  }
  std::vector<Shape> out;
  for (int64_t i = 0; i < outputs; ++i) {
    const Shape& r = results[i];
    if (!r.IsArray() || d > r.rank()) {
      return ctx.Error("scan output ", i, " ", ShapeStr(r), " cannot be stacked along ", d);
    }
    std::vector<int64_t> stacked = r.dimensions();
    stacked.insert(stacked.begin() + d, length);
    out.push_back(MakeArray(r.element_type(), stacked));
  }
  for (int64_t i = 0; i < carries; ++i) {
    const Shape& carry = ctx.operand_shape(inputs + i);
    if (!ShapesCompatible(results[outputs + i], carry, /*ignore_dynamic=*/true)) {
      return ctx.Error("scan carry ", i, " is ", ShapeStr(carry), " but the computation returns ",
                       ShapeStr(results[outputs + i]));
    }
    out.push_back(carry);
  }
  return Shape::Tuple(out);
}

}  // namespace xla::shape_inference_internal
