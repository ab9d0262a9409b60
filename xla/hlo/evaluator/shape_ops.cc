// Evaluator ops of the shape family (see op_table.h): broadcast, reshape,
// dynamic-reshape, transpose, slice, dynamic-slice, dynamic-update-slice,
// concatenate, pad, reverse, iota, bitcast, get-dimension-size,
// set-dimension-size.
//
// Data moves element by element as raw encodings (no rounding). Literals are
// row-major whatever the layout, so reshape and bitcast reinterpret the
// row-major order. Dynamic dimension sizes are not tracked by Literal: a
// bounded dynamic dimension holds its bound's worth of elements.
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/evaluator/eval_util.h"
#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/numeric_util.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using Operands = absl::Span<const Literal* const>;

// The declared result as an array shape, or an error.
absl::StatusOr<Shape> ArrayResult(const HloInstruction& instr) {
  if (!instr.shape().IsArray()) {
    return InstrError(instr, "result must be an array, got ", instr.shape().ToString(false));
  }
  for (int64_t d = 0; d < instr.shape().rank(); ++d) {
    if (instr.shape().is_unbounded_dimension(d)) {
      return InstrUnimplemented(instr, "unbounded dynamic result ", instr.shape().ToString(false));
    }
  }
  return ArrayShape(instr.shape().element_type(), instr.shape().dimensions());
}

// Fills `out` by mapping each output index to an operand linear index
// (`map` returns false for positions that keep their current value).
template <typename F>
void Gather(const Literal& in, Literal& out, F map) {
  const std::vector<int64_t>& dims = out.shape().dimensions();
  if (out.element_count() == 0) return;
  const size_t width = static_cast<size_t>(ByteWidth(in.shape().element_type()));
  const uint8_t* src_data = in.data().data();
  uint8_t* dst_data = out.mutable_data().data();
  std::vector<int64_t> index(dims.size(), 0);
  int64_t linear = 0;
  do {
    int64_t src;
    if (map(index, &src)) std::memcpy(dst_data + linear * width, src_data + src * width, width);
    ++linear;
  } while (NextIndex(index, dims));
}

// out[index] = in[base + sum_d index[d] * strides[d]] for every index of
// `out` in row-major order (strides may be 0 or negative).
void StridedGather(const Literal& in, int64_t base, const std::vector<int64_t>& strides,
                   Literal& out) {
  const std::vector<int64_t>& dims = out.shape().dimensions();
  const int64_t n = out.element_count();
  if (n == 0) return;
  const size_t width = static_cast<size_t>(ByteWidth(in.shape().element_type()));
  const uint8_t* src_data = in.data().data();
  uint8_t* dst_data = out.mutable_data().data();
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> index(rank, 0);
  int64_t src = base;
  for (int64_t linear = 0; linear < n; ++linear) {
    std::memcpy(dst_data + linear * width, src_data + src * width, width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) {
        src += strides[d];
        break;
      }
      src -= (dims[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

absl::StatusOr<Literal> EvalBroadcast(const HloInstruction& instr, Operands operands,
                                      EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  ASSIGN_OR_RETURN(Shape shape, ArrayResult(instr));
  const Literal& in = *operands[0];
  const std::vector<int64_t>& map = instr.dimensions();
  const Shape& s = in.shape();
  bool ok = static_cast<int64_t>(map.size()) == s.rank();
  for (int64_t i = 0; ok && i < s.rank(); ++i) {
    ok = map[i] >= 0 && map[i] < shape.rank() && shape.dimensions(map[i]) == s.dimensions(i);
  }
  if (!ok) {
    return InstrError(instr, "dimensions={", absl::StrJoin(map, ","), "} do not map ",
                      s.ToString(false), " into ", shape.ToString(false));
  }
  Literal out(shape);
  const std::vector<int64_t> in_strides = RowMajorStrides(s.dimensions());
  std::vector<int64_t> strides(shape.rank(), 0);
  for (int64_t i = 0; i < s.rank(); ++i) strides[map[i]] = in_strides[i];
  StridedGather(in, 0, strides, out);
  return out;
}

// Reinterprets the row-major data of `in` as `shape` (same element count and
// element width).
absl::StatusOr<Literal> Reinterpret(const HloInstruction& instr, const Literal& in,
                                    const Shape& shape) {
  Literal out(shape);
  if (out.data().size() != in.data().size()) {
    return InstrError(instr, "cannot reinterpret ", in.shape().ToString(false), " as ",
                      shape.ToString(false), ": sizes differ");
  }
  if (!in.data().empty()) {
    std::memcpy(out.mutable_data().data(), in.data().data(), in.data().size());
  }
  return out;
}

absl::StatusOr<Literal> EvalReshape(const HloInstruction& instr, Operands operands,
                                    EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  ASSIGN_OR_RETURN(Shape shape, ArrayResult(instr));
  shape.set_element_type(operands[0]->shape().element_type());
  return Reinterpret(instr, *operands[0], shape);
}

// bitcast: the same bytes in row-major order under the result shape (XLA
// bitcasts reinterpret the physical layout; with the default layouts this
// evaluator assumes, that is the row-major order).
absl::StatusOr<Literal> EvalBitcast(const HloInstruction& instr, Operands operands,
                                    EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  ASSIGN_OR_RETURN(Shape shape, ArrayResult(instr));
  return Reinterpret(instr, *operands[0], shape);
}

// dynamic-reshape: supported when the runtime sizes equal the result's
// static dimensions (a plain reshape).
absl::StatusOr<Literal> EvalDynamicReshape(const HloInstruction& instr, Operands operands,
                                           EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  ASSIGN_OR_RETURN(Shape shape, ArrayResult(instr));
  if (static_cast<int64_t>(operands.size()) != shape.rank() + 1) {
    return InstrError(instr, "needs ", shape.rank(), " size operands, got ", operands.size() - 1);
  }
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const int64_t size = IndexValue(*operands[d + 1], 0);
    if (size != shape.dimensions(d)) {
      return InstrUnimplemented(instr, "runtime size ", size, " of dimension ", d,
                                " differs from its bound ", shape.dimensions(d));
    }
  }
  shape.set_element_type(operands[0]->shape().element_type());
  return Reinterpret(instr, *operands[0], shape);
}

absl::StatusOr<Literal> EvalTranspose(const HloInstruction& instr, Operands operands,
                                      EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& in = *operands[0];
  const std::vector<int64_t>& perm = instr.dimensions();
  const std::vector<int64_t>& in_dims = in.shape().dimensions();
  std::vector<int64_t> out_dims;
  std::vector<bool> seen(in_dims.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in_dims.size()) || seen[p]) break;
    seen[p] = true;
    out_dims.push_back(in_dims[p]);
  }
  if (out_dims.size() != in_dims.size()) {
    return InstrError(instr, "dimensions={", absl::StrJoin(perm, ","),
                      "} is not a permutation of the dimensions of ",
                      in.shape().ToString(false));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  std::vector<int64_t> strides;
  for (int64_t p : perm) strides.push_back(in_strides[p]);
  Literal out(ArrayShape(in.shape().element_type(), out_dims));
  StridedGather(in, 0, strides, out);
  return out;
}

absl::StatusOr<Literal> EvalSlice(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& in = *operands[0];
  const auto* slice = AttrAs<std::vector<SliceDim>>(instr, AttrId::kSlice);
  const Shape& s = in.shape();
  if (slice == nullptr || static_cast<int64_t>(slice->size()) != s.rank()) {
    return InstrError(instr, "needs one [start:limit:stride] per dimension of ", s.ToString(false));
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < s.rank(); ++i) {
    const SliceDim& d = (*slice)[i];
    if (d.stride <= 0 || d.start < 0 || d.start > d.limit || d.limit > s.dimensions(i)) {
      return InstrError(instr, "slice [", d.start, ":", d.limit, ":", d.stride,
                        "] is invalid for dimension ", i, " of ", s.ToString(false));
    }
    dims.push_back((d.limit - d.start + d.stride - 1) / d.stride);
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(s.dimensions());
  std::vector<int64_t> strides;
  int64_t base = 0;
  for (int64_t i = 0; i < s.rank(); ++i) {
    base += (*slice)[i].start * in_strides[i];
    strides.push_back((*slice)[i].stride * in_strides[i]);
  }
  Literal out(ArrayShape(s.element_type(), dims));
  StridedGather(in, base, strides, out);
  return out;
}

// Start indices of dynamic-(update-)slice from operand `first` on (one
// integer scalar per dimension, or the older single-vector form), each
// clamped to [0, dim - size] as XLA defines.
absl::StatusOr<std::vector<int64_t>> ClampedStarts(const HloInstruction& instr,
                                                   Operands operands, int64_t first,
                                                   const Shape& operand,
                                                   absl::Span<const int64_t> sizes) {
  const int64_t rank = operand.rank();
  std::vector<int64_t> starts;
  const int64_t n = static_cast<int64_t>(operands.size()) - first;
  if (n == 1 && operands[first]->shape().rank() == 1) {
    const Literal& v = *operands[first];
    for (int64_t i = 0; i < v.element_count(); ++i) starts.push_back(IndexValue(v, i));
  } else {
    for (int64_t i = first; i < static_cast<int64_t>(operands.size()); ++i) {
      const Shape& s = operands[i]->shape();
      if (!s.IsScalar() || !(IsInteger(s.element_type()))) {
        return InstrError(instr, "start index operand ", i, " must be an integer scalar, got ",
                          s.ToString(false));
      }
      starts.push_back(IndexValue(*operands[i], 0));
    }
  }
  if (static_cast<int64_t>(starts.size()) != rank) {
    return InstrError(instr, "expected ", rank, " start indices, got ", starts.size());
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || sizes[d] > operand.dimensions(d)) {
      return InstrError(instr, "size ", sizes[d], " does not fit dimension ", d, " of ",
                        operand.ToString(false));
    }
    starts[d] = std::clamp<int64_t>(starts[d], 0, operand.dimensions(d) - sizes[d]);
  }
  return starts;
}

absl::StatusOr<Literal> EvalDynamicSlice(const HloInstruction& instr, Operands operands,
                                         EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& in = *operands[0];
  const Shape& s = in.shape();
  const std::vector<int64_t>& sizes = instr.GetIntList(AttrId::kDynamicSliceSizes);
  if (static_cast<int64_t>(sizes.size()) != s.rank()) {
    return InstrError(instr, "dynamic_slice_sizes={", absl::StrJoin(sizes, ","),
                      "} must have one entry per dimension of ", s.ToString(false));
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> starts, ClampedStarts(instr, operands, 1, s, sizes));
  const std::vector<int64_t> strides = RowMajorStrides(s.dimensions());
  int64_t base = 0;
  for (int64_t i = 0; i < s.rank(); ++i) base += starts[i] * strides[i];
  Literal out(ArrayShape(s.element_type(), sizes));
  StridedGather(in, base, strides, out);
  return out;
}

absl::StatusOr<Literal> EvalDynamicUpdateSlice(const HloInstruction& instr, Operands operands,
                                               EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 1));
  const Literal& in = *operands[0];
  const Literal& update = *operands[1];
  const Shape& s = in.shape();
  if (update.shape().rank() != s.rank() ||
      update.shape().element_type() != s.element_type()) {
    return InstrError(instr, "update ", update.shape().ToString(false), " does not fit ",
                      s.ToString(false));
  }
  const std::vector<int64_t>& sizes = update.shape().dimensions();
  ASSIGN_OR_RETURN(std::vector<int64_t> starts, ClampedStarts(instr, operands, 2, s, sizes));
  Literal out = in;
  if (update.element_count() == 0) return out;
  std::vector<int64_t> index(sizes.size(), 0);
  int64_t linear = 0;
  do {
    int64_t dst = 0;
    for (int64_t i = 0; i < s.rank(); ++i) dst = dst * s.dimensions(i) + starts[i] + index[i];
    CopyElement(update, linear++, out, dst);
  } while (NextIndex(index, sizes));
  return out;
}

absl::StatusOr<Literal> EvalConcatenate(const HloInstruction& instr, Operands operands,
                                        EvalContext&) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, operands, 1));
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, static_cast<int64_t>(i)));
  }
  const Shape& first = operands[0]->shape();
  const std::vector<int64_t>& attr = instr.dimensions();
  if (attr.size() != 1 || attr[0] < 0 || attr[0] >= first.rank()) {
    return InstrError(instr, "dimensions={", absl::StrJoin(attr, ","),
                      "} must name one dimension of ", first.ToString(false));
  }
  const int64_t dim = attr[0];
  std::vector<int64_t> dims = first.dimensions();
  dims[dim] = 0;
  for (const Literal* op : operands) {
    const Shape& s = op->shape();
    bool ok = s.rank() == first.rank() && s.element_type() == first.element_type();
    for (int64_t d = 0; ok && d < s.rank(); ++d) ok = d == dim || s.dimensions(d) == dims[d];
    if (!ok) {
      return InstrError(instr, "operand ", s.ToString(false), " does not match ",
                        first.ToString(false), " outside dimension ", dim);
    }
    dims[dim] += s.dimensions(dim);
  }
  Literal out(ArrayShape(first.element_type(), dims));
  int64_t offset = 0;
  for (const Literal* op : operands) {
    const std::vector<int64_t>& op_dims = op->shape().dimensions();
    if (op->element_count() > 0) {
      std::vector<int64_t> index(op_dims.size(), 0);
      int64_t linear = 0;
      do {
        int64_t dst = 0;
        for (int64_t d = 0; d < first.rank(); ++d) {
          dst = dst * dims[d] + index[d] + (d == dim ? offset : 0);
        }
        CopyElement(*op, linear++, out, dst);
      } while (NextIndex(index, op_dims));
    }
    offset += op_dims[dim];
  }
  return out;
}

// pad: position p = o - low along each dimension of the output; the operand
// element p / (interior + 1) sits there when p >= 0, p is a multiple of
// interior + 1 and the quotient is in range; padding elsewhere (negative low
// or high padding crops).
absl::StatusOr<Literal> EvalPad(const HloInstruction& instr, Operands operands, EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 1));
  const Literal& in = *operands[0];
  const Literal& value = *operands[1];
  const Shape& s = in.shape();
  const auto* padding = AttrAs<std::vector<PaddingDim>>(instr, AttrId::kPadding);
  if (padding == nullptr || static_cast<int64_t>(padding->size()) != s.rank() ||
      !value.shape().IsScalar() || value.shape().element_type() != s.element_type()) {
    return InstrError(instr, "needs a scalar pad value of the operand type and one padding ",
                      "entry per dimension of ", s.ToString(false));
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < s.rank(); ++d) {
    const PaddingDim& p = (*padding)[d];
    const int64_t size =
        p.low + p.high + s.dimensions(d) + std::max<int64_t>(s.dimensions(d) - 1, 0) * p.interior;
    if (p.interior < 0 || size < 0) {
      return InstrError(instr, "padding ", p.low, "_", p.high, "_", p.interior,
                        " is invalid for dimension ", d, " of ", s.ToString(false));
    }
    dims.push_back(size);
  }
  Literal out(ArrayShape(s.element_type(), dims));
  for (int64_t i = 0; i < out.element_count(); ++i) CopyElement(value, 0, out, i);
  Gather(in, out, [&](const std::vector<int64_t>& index, int64_t* src) {
    int64_t linear = 0;
    for (int64_t d = 0; d < s.rank(); ++d) {
      const PaddingDim& p = (*padding)[d];
      const int64_t pos = index[d] - p.low;
      if (pos < 0 || pos % (p.interior + 1) != 0) return false;
      const int64_t k = pos / (p.interior + 1);
      if (k >= s.dimensions(d)) return false;
      linear = linear * s.dimensions(d) + k;
    }
    *src = linear;
    return true;
  });
  return out;
}

absl::StatusOr<Literal> EvalReverse(const HloInstruction& instr, Operands operands,
                                    EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& in = *operands[0];
  const Shape& s = in.shape();
  std::vector<bool> reversed(s.rank(), false);
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= s.rank()) {
      return InstrError(instr, "dimension ", d, " is out of range for ", s.ToString(false));
    }
    reversed[d] = true;
  }
  std::vector<int64_t> strides = RowMajorStrides(s.dimensions());
  int64_t base = 0;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (!reversed[d]) continue;
    base += (s.dimensions(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  Literal out(ArrayShape(s.element_type(), s.dimensions()));
  StridedGather(in, base, strides, out);
  return out;
}

// iota: the index along iota_dimension, converted to the element type like
// an s64 `convert` (floats round to nearest even).
absl::StatusOr<Literal> EvalIota(const HloInstruction& instr, Operands, EvalContext&) {
  ASSIGN_OR_RETURN(Shape shape, ArrayResult(instr));
  const int64_t dim = instr.GetInt(AttrId::kIotaDimension);
  if (shape.rank() == 0 || dim < 0 || dim >= shape.rank()) {
    return InstrError(instr, "iota_dimension=", dim, " is out of range for ",
                      shape.ToString(false));
  }
  Literal out(shape);
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(shape.rank(), 0);
  int64_t linear = 0;
  do {
    SetFromInteger(out, linear++, index[dim]);
  } while (NextIndex(index, shape.dimensions()));
  return out;
}

absl::StatusOr<Literal> EvalGetDimensionSize(const HloInstruction& instr, Operands operands,
                                             EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Shape& s = operands[0]->shape();
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= s.rank()) {
    return InstrError(instr, "dimensions={", absl::StrJoin(dims, ","),
                      "} must name one dimension of ", s.ToString(false));
  }
  Literal out(Shape::Scalar(instr.shape().IsArray() ? instr.shape().element_type()
                                                    : PrimitiveType::S32));
  SetFromInteger(out, 0, s.dimensions(dims[0]));
  return out;
}

// set-dimension-size: the data is unchanged (Literal does not track dynamic
// sizes); the result carries the declared (dynamic) shape.
absl::StatusOr<Literal> EvalSetDimensionSize(const HloInstruction& instr, Operands operands,
                                             EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  return *operands[0];
}

struct OpEntry {
  HloOpcode opcode;
  OpEvaluator evaluate;
};

constexpr OpEntry kOps[] = {
    {HloOpcode::kBroadcast, EvalBroadcast},
    {HloOpcode::kReshape, EvalReshape},
    {HloOpcode::kDynamicReshape, EvalDynamicReshape},
    {HloOpcode::kBitcast, EvalBitcast},
    {HloOpcode::kTranspose, EvalTranspose},
    {HloOpcode::kSlice, EvalSlice},
    {HloOpcode::kDynamicSlice, EvalDynamicSlice},
    {HloOpcode::kDynamicUpdateSlice, EvalDynamicUpdateSlice},
    {HloOpcode::kConcatenate, EvalConcatenate},
    {HloOpcode::kPad, EvalPad},
    {HloOpcode::kReverse, EvalReverse},
    {HloOpcode::kIota, EvalIota},
    {HloOpcode::kGetDimensionSize, EvalGetDimensionSize},
    {HloOpcode::kSetDimensionSize, EvalSetDimensionSize},
};

}  // namespace

void RegisterShapeOps(OpTable& table) {
  for (const OpEntry& e : kOps) table[static_cast<int>(e.opcode)] = e.evaluate;
}

}  // namespace xla::evaluator
