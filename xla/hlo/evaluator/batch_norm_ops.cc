// Evaluator ops of the batch-norm family (see op_table.h), following XLA's
// operation semantics. With F the size of dimension feature_index of the
// operand x, N the number of elements per feature (elements of x / F) and
// every per-feature value broadcast along feature_index:
//   batch-norm-training(x, scale, offset) -> (out, mean, var):
//     mean = sum(x) / N, var = sum((x - mean)^2) / N (biased, two-pass)
//     out  = (x - mean) / sqrt(var + epsilon) * scale + offset
//   batch-norm-inference(x, scale, offset, mean, var) -> out, as above with
//     the given mean and var
//   batch-norm-grad(x, scale, mean, var, grad_out)
//       -> (grad_operand, grad_scale, grad_offset):
//     inv = 1 / sqrt(var + epsilon), c = x - mean
//     grad_offset  = sum(grad_out)
//     grad_scale   = sum(grad_out * c) * inv
//     grad_operand = scale * inv * (grad_out - grad_offset / N
//                                   - c * sum(grad_out * c) / (N * (var + epsilon)))
// Everything is computed in double and rounded once to the element type
// (f16, bf16, f32 or f64; all operands and results share it). With N = 0
// the per-feature results are the NaNs that 0 / 0 gives.
#include <cmath>
#include <cstdint>
#include <vector>

#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using op_helpers::OpError;
using Operands = absl::Span<const Literal* const>;

bool IsBatchNormType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32 ||
         t == PrimitiveType::F64;
}

// The layout of one batch-norm: which feature each element of x belongs to.
struct Geometry {
  int64_t features = 0;
  int64_t per_feature = 0;  // N
  int64_t stride = 1;       // elements per step of feature_index
  PrimitiveType type = PrimitiveType::F32;
  int64_t FeatureOf(int64_t i) const { return (i / stride) % features; }
};

// Checks the operands (x first, per-feature vectors at `vector_operands`,
// x-shaped ones at `full_operands`) and returns the geometry.
absl::StatusOr<Geometry> CheckOperands(const HloInstruction& instr, Operands operands,
                                       int64_t want, absl::Span<const int64_t> vector_operands,
                                       absl::Span<const int64_t> full_operands) {
  if (static_cast<int64_t>(operands.size()) != want) {
    return OpError(instr, "expected ", want, " operands, got ", operands.size());
  }
  const Shape& x = operands[0]->shape();
  const int64_t fi = instr.GetInt(AttrId::kFeatureIndex, -1);
  if (!x.IsArray() || !IsBatchNormType(x.element_type()) || fi < 0 || fi >= x.rank()) {
    return OpError(instr, "the operand must be an f16, bf16, f32 or f64 array with feature_index "
                          "in [0, rank); got ", x.ToString(false), " and feature_index=", fi);
  }
  Geometry g;
  g.type = x.element_type();
  g.features = x.dimensions(fi);
  for (int64_t d = fi + 1; d < x.rank(); ++d) g.stride *= x.dimensions(d);
  g.per_feature = g.features == 0 ? 0 : operands[0]->element_count() / g.features;
  const Shape vec = Shape::Array(g.type, {g.features});
  for (int64_t k : vector_operands) {
    if (!ShapesCompatible(operands[k]->shape(), vec, /*ignore_dynamic=*/true)) {
      return OpError(instr, "operand ", k, " must be ", vec.ToString(false), " (one value per "
                     "feature), got ", operands[k]->shape().ToString(false));
    }
  }
  for (int64_t k : full_operands) {
    if (!ShapesCompatible(operands[k]->shape(), x, /*ignore_dynamic=*/true)) {
      return OpError(instr, "operand ", k, " must have the operand's shape ", x.ToString(false),
                     ", got ", operands[k]->shape().ToString(false));
    }
  }
  return g;
}

std::vector<double> Doubles(const Literal& l) {
  std::vector<double> v(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) v[i] = l.GetDouble(i);
  return v;
}

Literal ToLiteral(const std::vector<double>& v, const Shape& shape) {
  Literal l(shape);
  for (size_t i = 0; i < v.size(); ++i) l.SetDouble(static_cast<int64_t>(i), v[i]);
  return l;
}

// Per-feature sums of f(i) over the elements of x.
template <typename F>
std::vector<double> FeatureSums(const Geometry& g, int64_t count, F f) {
  std::vector<double> s(g.features, 0.0);
  for (int64_t i = 0; i < count; ++i) s[g.FeatureOf(i)] += f(i);
  return s;
}

// (x - mean) / sqrt(var + epsilon) * scale + offset, elementwise.
std::vector<double> Normalize(const Geometry& g, const std::vector<double>& x,
                              const std::vector<double>& scale, const std::vector<double>& offset,
                              const std::vector<double>& mean, const std::vector<double>& var,
                              double epsilon) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t f = g.FeatureOf(static_cast<int64_t>(i));
    out[i] = (x[i] - mean[f]) / std::sqrt(var[f] + epsilon) * scale[f] + offset[f];
  }
  return out;
}

// Checks that instr.shape() is the tuple (x shape, [F], [F]).
absl::Status CheckTupleResult(const HloInstruction& instr, const Shape& x, const Geometry& g) {
  const Shape want = Shape::Tuple({x, Shape::Array(g.type, {g.features}),
                                   Shape::Array(g.type, {g.features})});
  if (!ShapesCompatible(instr.shape(), want, /*ignore_dynamic=*/true)) {
    return OpError(instr, "result must be ", want.ToString(false), ", got ",
                   instr.shape().ToString(false));
  }
  return absl::OkStatus();
}

Literal MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal t(Shape::Tuple(shapes));
  *t.mutable_tuple_elements() = std::move(elements);
  return t;
}

absl::StatusOr<Literal> EvalTraining(const HloInstruction& instr, Operands operands,
                                     EvalContext&) {
  ASSIGN_OR_RETURN(Geometry g, CheckOperands(instr, operands, 3, {1, 2}, {}));
  const Shape& xs = operands[0]->shape();
  RETURN_IF_ERROR(CheckTupleResult(instr, xs, g));
  const std::vector<double> x = Doubles(*operands[0]);
  const double n = static_cast<double>(g.per_feature);
  const int64_t count = static_cast<int64_t>(x.size());
  std::vector<double> mean = FeatureSums(g, count, [&](int64_t i) { return x[i]; });
  for (double& m : mean) m /= n;
  std::vector<double> var = FeatureSums(g, count, [&](int64_t i) {
    const double c = x[i] - mean[g.FeatureOf(i)];
    return c * c;
  });
  for (double& v : var) v /= n;
  const std::vector<double> out = Normalize(g, x, Doubles(*operands[1]), Doubles(*operands[2]),
                                            mean, var, instr.GetFloat(AttrId::kEpsilon));
  const Shape& rs = instr.shape();
  std::vector<Literal> parts;
  parts.push_back(ToLiteral(out, rs.tuple_shapes(0)));
  parts.push_back(ToLiteral(mean, rs.tuple_shapes(1)));
  parts.push_back(ToLiteral(var, rs.tuple_shapes(2)));
  return MakeTuple(std::move(parts));
}

absl::StatusOr<Literal> EvalInference(const HloInstruction& instr, Operands operands,
                                      EvalContext&) {
  ASSIGN_OR_RETURN(Geometry g, CheckOperands(instr, operands, 5, {1, 2, 3, 4}, {}));
  const Shape& xs = operands[0]->shape();
  if (!ShapesCompatible(instr.shape(), xs, /*ignore_dynamic=*/true)) {
    return OpError(instr, "result must be ", xs.ToString(false), ", got ",
                   instr.shape().ToString(false));
  }
  const std::vector<double> out =
      Normalize(g, Doubles(*operands[0]), Doubles(*operands[1]), Doubles(*operands[2]),
                Doubles(*operands[3]), Doubles(*operands[4]), instr.GetFloat(AttrId::kEpsilon));
  return ToLiteral(out, instr.shape());
}

absl::StatusOr<Literal> EvalGrad(const HloInstruction& instr, Operands operands, EvalContext&) {
  ASSIGN_OR_RETURN(Geometry g, CheckOperands(instr, operands, 5, {1, 2, 3}, {4}));
  const Shape& xs = operands[0]->shape();
  RETURN_IF_ERROR(CheckTupleResult(instr, xs, g));
  const std::vector<double> x = Doubles(*operands[0]);
  const std::vector<double> scale = Doubles(*operands[1]);
  const std::vector<double> mean = Doubles(*operands[2]);
  const std::vector<double> var = Doubles(*operands[3]);
  const std::vector<double> grad = Doubles(*operands[4]);
  const double epsilon = instr.GetFloat(AttrId::kEpsilon);
  const double n = static_cast<double>(g.per_feature);
  const int64_t count = static_cast<int64_t>(x.size());
  const std::vector<double> grad_offset = FeatureSums(g, count, [&](int64_t i) { return grad[i]; });
  const std::vector<double> sum_gc = FeatureSums(
      g, count, [&](int64_t i) { return grad[i] * (x[i] - mean[g.FeatureOf(i)]); });
  std::vector<double> grad_scale(g.features);
  for (int64_t f = 0; f < g.features; ++f) grad_scale[f] = sum_gc[f] / std::sqrt(var[f] + epsilon);
  std::vector<double> grad_operand(x.size());
  for (int64_t i = 0; i < count; ++i) {
    const int64_t f = g.FeatureOf(i);
    const double var_eps = var[f] + epsilon;
    const double inner =
        grad[i] - grad_offset[f] / n - (x[i] - mean[f]) * sum_gc[f] / (n * var_eps);
    grad_operand[i] = scale[f] / std::sqrt(var_eps) * inner;
  }
  const Shape& rs = instr.shape();
  std::vector<Literal> parts;
  parts.push_back(ToLiteral(grad_operand, rs.tuple_shapes(0)));
  parts.push_back(ToLiteral(grad_scale, rs.tuple_shapes(1)));
  parts.push_back(ToLiteral(grad_offset, rs.tuple_shapes(2)));
  return MakeTuple(std::move(parts));
}

}  // namespace

void RegisterBatchNormOps(OpTable& table) {
  table[static_cast<int>(HloOpcode::kBatchNormTraining)] = EvalTraining;
  table[static_cast<int>(HloOpcode::kBatchNormInference)] = EvalInference;
  table[static_cast<int>(HloOpcode::kBatchNormGrad)] = EvalGrad;
}

}  // namespace xla::evaluator
