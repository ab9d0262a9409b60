// Shape rules for data movement and type conversion: broadcast, reshape,
// dynamic-reshape, transpose, reverse, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, iota, convert, bitcast-convert,
// stochastic-convert, get-dimension-size, set-dimension-size.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla::shape_inference_internal {
namespace {

// The single index of a `dimensions={d}` attribute, checked against `rank`.
absl::StatusOr<int64_t> SingleDimension(const InferContext& ctx, int64_t rank) {
  RETURN_IF_ERROR(ctx.Require(AttrId::kDimensions));
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(AttrId::kDimensions);
  if (dims.size() != 1) {
    return ctx.Error("dimensions={", absl::StrJoin(dims, ","), "} must name one dimension");
  }
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions, dims, rank));
  return dims[0];
}

// Checks the start-index operands of dynamic-slice / dynamic-update-slice
// from operand `first` on: one integer scalar per dimension of `rank`, or
// (older form) a single integer vector of that length.
absl::Status CheckStartIndices(const InferContext& ctx, int64_t first, int64_t rank) {
  const int64_t n = ctx.operand_count() - first;
  if (n == 1 && rank != 1 && ctx.operand_shape(first).rank() == 1) {
    const Shape& v = ctx.operand_shape(first);
    if (!IsInteger(v.element_type()) || v.dimensions(0) != rank) {
      return ctx.Error("start index vector ", ShapeStr(v), " must be an integer vector of ",
                       rank, " elements");
    }
    return absl::OkStatus();
  }
  if (n != rank) {
    return ctx.Error("expected ", rank, " start indices for a rank-", rank, " operand, got ", n);
  }
  for (int64_t i = first; i < ctx.operand_count(); ++i) {
    const Shape& s = ctx.operand_shape(i);
    if (!s.IsScalar() || !IsInteger(s.element_type())) {
      return ctx.Error("start index operand ", i, " must be an integer scalar, got ",
                       ShapeStr(s));
    }
    if (s.element_type() != ctx.operand_shape(first).element_type()) {
      return ctx.Error("start index operands must share one element type, got ",
                       ShapeStr(ctx.operand_shape(first)), " and ", ShapeStr(s));
    }
  }
  return absl::OkStatus();
}

bool HasUnbounded(const Shape& s) {
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (s.is_unbounded_dimension(i)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Shape> InferBroadcast(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsArray()) return ctx.Error("broadcast result must be an array");
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(AttrId::kDimensions);
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return ctx.Error("dimensions={", absl::StrJoin(dims, ","), "} must have one entry per ",
                     "operand dimension of ", ShapeStr(operand));
  }
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions, dims, out.rank()));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!DimsAgree(operand.dimensions(i), out.dimensions(dims[i]))) {
      return ctx.Error("operand dimension ", i, " of ", ShapeStr(operand),
                       " does not match result dimension ", dims[i], " of ", ShapeStr(out));
    }
  }
  out.set_element_type(operand.element_type());
  return out;
}

absl::StatusOr<Shape> InferReshape(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsArray()) return ctx.Error("reshape result must be an array");
  if (!operand.ElementCount().has_value() || !out.ElementCount().has_value()) {
    return ctx.Error("element count of ", ShapeStr(operand), " or ", ShapeStr(out),
                     " overflows int64");
  }
  if (!HasUnbounded(operand) && !HasUnbounded(out) &&
      operand.ElementCount() != out.ElementCount()) {
    return ctx.Error("reshape from ", ShapeStr(operand), " to ", ShapeStr(out),
                     " changes the element count");
  }
  out.set_element_type(operand.element_type());
  return out;
}

absl::StatusOr<Shape> InferDynamicReshape(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsArray()) return ctx.Error("dynamic-reshape result must be an array");
  if (ctx.operand_count() != out.rank() + 1) {
    return ctx.Error("dynamic-reshape to ", ShapeStr(out), " needs ", out.rank(),
                     " size operands, got ", ctx.operand_count() - 1);
  }
  for (int64_t i = 1; i < ctx.operand_count(); ++i) {
    const Shape& s = ctx.operand_shape(i);
    if (!s.IsScalar() || !IsInteger(s.element_type())) {
      return ctx.Error("size operand ", i, " must be an integer scalar, got ", ShapeStr(s));
    }
  }
  out.set_element_type(ctx.operand_shape(0).element_type());
  return out;
}

absl::StatusOr<Shape> InferTranspose(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  const std::vector<int64_t>& perm = ctx.instr().GetIntList(AttrId::kDimensions);
  if (static_cast<int64_t>(perm.size()) != operand.rank()) {
    return ctx.Error("dimensions={", absl::StrJoin(perm, ","),
                     "} is not a permutation of the dimensions of ", ShapeStr(operand));
  }
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions, perm, operand.rank()));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t p : perm) {
    dims.push_back(operand.dimensions(p));
    dynamic.push_back(operand.is_dynamic_dimension(p));
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferReverse(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kDimensions,
                                      ctx.instr().GetIntList(AttrId::kDimensions),
                                      operand.rank()));
  return operand;
}

absl::StatusOr<Shape> InferSlice(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  RETURN_IF_ERROR(ctx.Require(AttrId::kSlice));
  const auto* slice = ctx.Attr<std::vector<SliceDim>>(AttrId::kSlice);
  if (slice == nullptr || static_cast<int64_t>(slice->size()) != operand.rank()) {
    return ctx.Error("slice needs one [start:limit:stride] per dimension of ",
                     ShapeStr(operand));
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const SliceDim& s = (*slice)[i];
    const int64_t size = operand.dimensions(i);
    const bool size_known = size != kUnboundedSize;
    if (s.stride <= 0 || s.start < 0 || s.start > s.limit || (size_known && s.limit > size)) {
      return ctx.Error("slice [", s.start, ":", s.limit, ":", s.stride, "] is invalid for ",
                       "dimension ", i, " of ", ShapeStr(operand));
    }
    const int64_t extent = s.limit - s.start;  // 0 <= start <= limit
    dims.push_back(extent / s.stride + (extent % s.stride != 0 ? 1 : 0));
    dynamic.push_back(operand.is_dynamic_dimension(i) && size_known &&
                      s.start == 0 && s.limit == size && s.stride == 1);
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferDynamicSlice(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(2));
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  RETURN_IF_ERROR(CheckStartIndices(ctx, 1, operand.rank()));
  RETURN_IF_ERROR(ctx.Require(AttrId::kDynamicSliceSizes));
  const std::vector<int64_t>& sizes = ctx.instr().GetIntList(AttrId::kDynamicSliceSizes);
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return ctx.Error("dynamic_slice_sizes={", absl::StrJoin(sizes, ","),
                     "} must have one entry per dimension of ", ShapeStr(operand));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const bool too_big = !operand.is_unbounded_dimension(i) && sizes[i] > operand.dimensions(i);
    if (sizes[i] < 0 || too_big) {
      return ctx.Error("dynamic_slice_sizes[", i, "]=", sizes[i], " does not fit ",
                       ShapeStr(operand));
    }
  }
  return MakeArray(operand.element_type(), sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(3));
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectArray(1));
  const Shape& operand = ctx.operand_shape(0);
  const Shape& update = ctx.operand_shape(1);
  RETURN_IF_ERROR(ctx.ExpectSameType(0, 1));
  if (update.rank() != operand.rank()) {
    return ctx.Error("update ", ShapeStr(update), " must have the rank of ", ShapeStr(operand));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!operand.is_unbounded_dimension(i) && !update.is_unbounded_dimension(i) &&
        update.dimensions(i) > operand.dimensions(i)) {
      return ctx.Error("update ", ShapeStr(update), " is larger than ", ShapeStr(operand),
                       " in dimension ", i);
    }
  }
  RETURN_IF_ERROR(CheckStartIndices(ctx, 2, operand.rank()));
  return operand;
}

absl::StatusOr<Shape> InferConcatenate(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  for (int64_t i = 0; i < ctx.operand_count(); ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& first = ctx.operand_shape(0);
  ASSIGN_OR_RETURN(int64_t dim, SingleDimension(ctx, first.rank()));
  std::vector<int64_t> dims = first.dimensions();
  std::vector<bool> dynamic = first.dynamic_dimensions();
  for (int64_t i = 1; i < ctx.operand_count(); ++i) {
    const Shape& s = ctx.operand_shape(i);
    RETURN_IF_ERROR(ctx.ExpectSameType(0, i));
    bool ok = s.rank() == first.rank();
    for (int64_t d = 0; ok && d < first.rank(); ++d) {
      ok = d == dim || DimsAgree(s.dimensions(d), first.dimensions(d));
    }
    if (!ok) {
      return ctx.Error("operand ", i, " ", ShapeStr(s), " does not match ", ShapeStr(first),
                       " outside the concatenated dimension ", dim);
    }
    if (dims[dim] == kUnboundedSize || s.dimensions(dim) == kUnboundedSize) {
      dims[dim] = kUnboundedSize;
    } else {
      std::optional<int64_t> sum = CheckedAdd(dims[dim], s.dimensions(dim));
      if (!sum.has_value()) return ctx.Error("concatenated size overflows int64");
      dims[dim] = *sum;
    }
    dynamic[dim] = dynamic[dim] || s.is_dynamic_dimension(dim);
  }
  return MakeArray(first.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferPad(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectScalar(1));
  RETURN_IF_ERROR(ctx.ExpectSameType(0, 1));
  const Shape& operand = ctx.operand_shape(0);
  RETURN_IF_ERROR(ctx.Require(AttrId::kPadding));
  const auto* padding = ctx.Attr<std::vector<PaddingDim>>(AttrId::kPadding);
  if (padding == nullptr || static_cast<int64_t>(padding->size()) != operand.rank()) {
    return ctx.Error("padding needs one low_high[_interior] entry per dimension of ",
                     ShapeStr(operand));
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDim& p = (*padding)[i];
    const int64_t size = operand.dimensions(i);
    if (p.interior < 0) {
      return ctx.Error("padding of dimension ", i, " has negative interior padding ",
                       p.interior);
    }
    if (size == kUnboundedSize) {
      dims.push_back(kUnboundedSize);
      continue;
    }
    std::optional<int64_t> out = CheckedMul(std::max<int64_t>(size - 1, 0), p.interior);
    for (int64_t term : {p.low, p.high, size}) {
      if (out.has_value()) out = CheckedAdd(*out, term);
    }
    if (!out.has_value()) {
      return ctx.Error("padding of dimension ", i, " of ", ShapeStr(operand), " overflows int64");
    }
    if (*out < 0) {
      return ctx.Error("padding ", p.low, "_", p.high, "_", p.interior, " of dimension ", i,
                       " of ", ShapeStr(operand), " gives a negative size ", *out);
    }
    dims.push_back(*out);
  }
  return MakeArray(operand.element_type(), dims, operand.dynamic_dimensions());
}

absl::StatusOr<Shape> InferIota(const InferContext& ctx) {
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsArray() || out.rank() == 0) {
    return ctx.Error("iota result must be an array of rank >= 1, got ", ShapeStr(out));
  }
  const int64_t dim = ctx.instr().GetInt(AttrId::kIotaDimension);
  if (dim < 0 || dim >= out.rank()) {
    return ctx.Error("iota_dimension=", dim, " is out of range for ", ShapeStr(out));
  }
  return out;
}

absl::StatusOr<Shape> InferConvert(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  return ctx.WithDeclaredType(ctx.operand_shape(0), std::nullopt);
}

absl::StatusOr<Shape> InferBitcastConvert(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  if (ctx.declared() == nullptr || !ctx.declared()->IsArray()) {
    return ctx.Error("bitcast-convert needs a declared array result type");
  }
  const PrimitiveType to = ctx.declared()->element_type();
  const int from_bits = BitWidth(operand.element_type());
  const int to_bits = BitWidth(to);
  std::vector<int64_t> dims = operand.dimensions();
  std::vector<bool> dynamic = operand.dynamic_dimensions();
  if (from_bits > to_bits) {
    // Narrower elements: a new minor dimension holds the pieces.
    if (to_bits == 0 || from_bits % to_bits != 0) {
      return ctx.Error("cannot bitcast-convert ", ShapeStr(operand), " to ",
                       PrimitiveTypeName(to));
    }
    dims.push_back(from_bits / to_bits);
    dynamic.push_back(false);
  } else if (from_bits < to_bits) {
    // Wider elements: the minor dimension must hold exactly one of them.
    if (from_bits == 0 || to_bits % from_bits != 0 || dims.empty() ||
        dims.back() != to_bits / from_bits) {
      return ctx.Error("bitcast-convert from ", ShapeStr(operand), " to ",
                       PrimitiveTypeName(to), " needs a minor dimension of size ",
                       from_bits == 0 ? 0 : to_bits / from_bits);
    }
    dims.pop_back();
    dynamic.pop_back();
  }
  return MakeArray(to, dims, dynamic);
}

absl::StatusOr<Shape> InferStochasticConvert(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectArray(1));
  const Shape& operand = ctx.operand_shape(0);
  const Shape& random = ctx.operand_shape(1);
  if (random.dimensions() != operand.dimensions() || !IsUnsignedInt(random.element_type()) ||
      BitWidth(random.element_type()) != BitWidth(operand.element_type())) {
    return ctx.Error("random bits ", ShapeStr(random), " must be unsigned integers of the ",
                     "width and dimensions of ", ShapeStr(operand));
  }
  return ctx.WithDeclaredType(operand, std::nullopt);
}

absl::StatusOr<Shape> InferGetDimensionSize(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(SingleDimension(ctx, ctx.operand_shape(0).rank()).status());
  return Shape::Scalar(PrimitiveType::S32);
}

absl::StatusOr<Shape> InferSetDimensionSize(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& size = ctx.operand_shape(1);
  if (!size.IsScalar() || !IsInteger(size.element_type())) {
    return ctx.Error("size operand must be an integer scalar, got ", ShapeStr(size));
  }
  Shape out = ctx.operand_shape(0);
  ASSIGN_OR_RETURN(int64_t dim, SingleDimension(ctx, out.rank()));
  out.set_dynamic_dimension(dim, true);
  return out;
}

}  // namespace xla::shape_inference_internal
