#include "xla/hlo/transforms/literal_compare.h"

#include <algorithm>
#include <cmath>
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

absl::Status CompareOutputLeaf(const Literal& want, const Literal& got, double tolerance_scale) {
  const PrimitiveType type = want.shape().element_type();
  if (!want.shape().IsArray() || !IsFloat(type) || !got.shape().IsArray() ||
      got.element_count() != want.element_count() || got.shape().element_type() != type) {
    return CompareLiterals(want, got, tolerance_scale);
  }
  const double tol = DefaultRelativeTolerance(type) * tolerance_scale;
  double max_want = 0;
  for (int64_t k = 0; k < want.element_count(); ++k) {
    if (std::isfinite(want.GetDouble(k))) max_want = std::max(max_want, std::abs(want.GetDouble(k)));
  }
  int64_t bad = 0, first = -1;
  for (int64_t k = 0; k < want.element_count(); ++k) {
    const double w = want.GetDouble(k), g = got.GetDouble(k);
    const bool ok = (std::isnan(w) && std::isnan(g)) || w == g ||
                    std::abs(g - w) <= tol * (std::abs(w) + max_want);
    if (ok) continue;
    if (first < 0) first = k;
    ++bad;
  }
  if (bad == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%d of %d elements differ; first at index %d: expected %.9g but got %.9g", bad,
      want.element_count(), first, want.GetDouble(first), got.GetDouble(first)));
}

}  // namespace xla
