#include "xla/hlo/transforms/literal_compare.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace {

bool FloatsMatch(double e, double a, double tol) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (e == a) return true;  // also equal infinities and +0 == -0
  if (std::isinf(e) || std::isinf(a)) return false;
  const double scale = std::max(std::fabs(e), std::fabs(a));
  return std::fabs(e - a) <= tol * scale;
}

bool ElementsMatch(const Literal& e, const Literal& a, int64_t i, double tol) {
  const PrimitiveType type = e.shape().element_type();
  if (IsFloat(type)) return FloatsMatch(e.GetDouble(i), a.GetDouble(i), tol);
  if (IsComplex(type)) {
    const std::complex<double> ce = e.GetComplex(i), ca = a.GetComplex(i);
    return FloatsMatch(ce.real(), ca.real(), tol) && FloatsMatch(ce.imag(), ca.imag(), tol);
  }
  return e.GetBits(i) == a.GetBits(i);
}

absl::Status CompareAt(const Literal& e, const Literal& a, double scale, std::vector<int64_t>* path) {
  const std::string where = path->empty() ? std::string("result")
                                          : absl::StrCat("result {", absl::StrJoin(*path, ","), "}");
  if (e.shape().IsTuple() != a.shape().IsTuple() ||
      !ShapesCompatible(e.shape(), a.shape(), /*ignore_dynamic=*/true)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected shape ",
                                                   e.shape().ToString(false), " but got ",
                                                   a.shape().ToString(false)));
  }
  if (e.shape().IsTuple()) {
    for (size_t k = 0; k < e.tuple_elements().size(); ++k) {
      path->push_back(static_cast<int64_t>(k));
      absl::Status s = CompareAt(e.tuple_elements()[k], a.tuple_elements()[k], scale, path);
      path->pop_back();
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (!e.shape().IsArray()) return absl::OkStatus();  // tokens carry no data
  const double tol = DefaultRelativeTolerance(e.shape().element_type()) * scale;
  int64_t first = -1, count = 0;
  for (int64_t i = 0; i < e.element_count(); ++i) {
    if (ElementsMatch(e, a, i, tol)) continue;
    if (first < 0) first = i;
    ++count;
  }
  if (count == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      where, ": ", count, " of ", e.element_count(), " elements differ; first at index ", first,
      ": expected ", e.ElementToString(first), " but got ", a.ElementToString(first)));
}

}  // namespace

double DefaultRelativeTolerance(PrimitiveType type) {
  if (IsComplex(type)) type = ComplexComponentType(type);
  if (!IsFloat(type)) return 0;
  switch (BitWidth(type)) {
    case 64: return 1e-12;
    case 32: return 1e-5;
    case 16: return 2e-2;
  }
  return 0.25;  // 8- and 4-bit floats: a couple of ulps
}

absl::Status CompareLiterals(const Literal& expected, const Literal& actual, double tolerance_scale) {
  std::vector<int64_t> path;
  return CompareAt(expected, actual, tolerance_scale, &path);
}

namespace {

// Element `k` as a complex number (a float's imaginary part is 0).
std::complex<double> OutputElement(const Literal& l, int64_t k) {
  if (IsComplex(l.shape().element_type())) return l.GetComplex(k);
  return {l.GetDouble(k), 0.0};
}

// One part of an output element: NaN where NaN is expected, the same
// infinity, or finite values within `bound`.
bool OutputPartMatches(double w, double g, double bound) {
  if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
  return w == g || std::abs(g - w) <= bound;
}

bool OutputElementMatches(std::complex<double> w, std::complex<double> g, double bound) {
  const bool finite = std::isfinite(w.real()) && std::isfinite(w.imag()) &&
                      std::isfinite(g.real()) && std::isfinite(g.imag());
  if (finite) return std::abs(g - w) <= bound;
  return OutputPartMatches(w.real(), g.real(), bound) && OutputPartMatches(w.imag(), g.imag(), bound);
}

}  // namespace

absl::Status CompareOutputLeaf(const Literal& want, const Literal& got, double tolerance_scale) {
  const PrimitiveType type = want.shape().element_type();
  if (!want.shape().IsArray() || !(IsFloat(type) || IsComplex(type)) || !got.shape().IsArray() ||
      got.element_count() != want.element_count() || got.shape().element_type() != type) {
    return CompareLiterals(want, got, tolerance_scale);
  }
  const double tol = DefaultRelativeTolerance(type) * tolerance_scale;
  double max_want = 0;
  for (int64_t k = 0; k < want.element_count(); ++k) {
    const double m = std::abs(OutputElement(want, k));
    if (std::isfinite(m)) max_want = std::max(max_want, m);
  }
  int64_t bad = 0, first = -1;
  for (int64_t k = 0; k < want.element_count(); ++k) {
    const std::complex<double> w = OutputElement(want, k);
    if (OutputElementMatches(w, OutputElement(got, k), tol * (std::abs(w) + max_want))) continue;
    if (first < 0) first = k;
    ++bad;
  }
  if (bad == 0) return absl::OkStatus();
  auto text = [&](const Literal& l) {
    return IsComplex(type) ? l.ElementToString(first) : absl::StrFormat("%.9g", l.GetDouble(first));
  };
  return absl::InvalidArgumentError(
      absl::StrFormat("%d of %d elements differ; first at index %d: expected %s but got %s", bad,
                      want.element_count(), first, text(want), text(got)));
}

}  // namespace xla
