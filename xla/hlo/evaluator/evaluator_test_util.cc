#include "xla/hlo/evaluator/evaluator_test_util.h"

#include "xla/hlo/parser/hlo_parser.h"
#include "xla/util/logging.h"

namespace xla::evaluator_test {

Literal MakeLiteral(PrimitiveType type, std::vector<int64_t> dims, std::vector<double> values) {
  Literal l(Shape::Array(type, dims));
  XLA_CHECK(static_cast<int64_t>(values.size()) == l.element_count()) << "value count";
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
  return l;
}

Literal MakeIntLiteral(PrimitiveType type, std::vector<int64_t> dims, std::vector<int64_t> values) {
  Literal l(Shape::Array(type, dims));
  XLA_CHECK(static_cast<int64_t>(values.size()) == l.element_count()) << "value count";
  for (size_t i = 0; i < values.size(); ++i) l.SetInt(static_cast<int64_t>(i), values[i]);
  return l;
}

Literal Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal t(Shape::Tuple(shapes));
  *t.mutable_tuple_elements() = std::move(elements);
  return t;
}

absl::StatusOr<Literal> EvalText(absl::string_view hlo, const std::vector<Literal>& args,
                                 EvaluatorOptions options) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(hlo, "test.hlo");
  if (!m.ok()) return m.status();
  return HloEvaluator(options).Evaluate(**m, args);
}

std::vector<double> Values(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

std::vector<int64_t> IntValues(const Literal& l) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetInt(i));
  return out;
}

std::vector<double> ComplexValues(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    out.push_back(l.GetComplex(i).real());
    out.push_back(l.GetComplex(i).imag());
  }
  return out;
}

}  // namespace xla::evaluator_test
