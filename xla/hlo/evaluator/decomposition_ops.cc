// cholesky and triangular-solve for the evaluator. Both work on the two minor
// dimensions and batch over the others, compute every element in f64 (real
// types) or complex<double> (complex types), and round once to the element
// type.
//
// cholesky(a), lower=L: factors a = L L^H (lower=true) or a = U^H U (lower=
// false, the default) reading only that triangle of a (the diagonal's
// imaginary part is ignored). The other triangle of the result is zero (XLA
// leaves it implementation-defined). A matrix that is not positive definite
// gives NaNs from the first failing column on, as the square root of a
// negative number does.
//
// triangular-solve(a, b): solves op(a) x = b (left_side=true) or x op(a) = b
// (left_side=false) where op is given by transpose_a (NO_TRANSPOSE, TRANSPOSE,
// ADJOINT); only the `lower` (or upper) triangle of a is read, and its
// diagonal is taken as ones when unit_diagonal=true. A zero on the diagonal
// gives infinities and NaNs as IEEE division does.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {
namespace {

using op_helpers::OpError;

inline double Conj(double x) { return x; }
inline std::complex<double> Conj(std::complex<double> z) { return std::conj(z); }
inline double Real(double x) { return x; }
inline double Real(std::complex<double> z) { return z.real(); }
inline double AbsSquared(double x) { return x * x; }
inline double AbsSquared(std::complex<double> z) { return std::norm(z); }

template <typename T>
T Load(const Literal& l, int64_t i);
template <>
double Load<double>(const Literal& l, int64_t i) {
  return l.GetDouble(i);
}
template <>
std::complex<double> Load<std::complex<double>>(const Literal& l, int64_t i) {
  return l.GetComplex(i);
}
inline void StoreValue(Literal& l, int64_t i, double v) { l.SetDouble(i, v); }
inline void StoreValue(Literal& l, int64_t i, std::complex<double> v) { l.SetComplex(i, v); }

// A dense m x m (or rows x cols) matrix, row-major.
template <typename T>
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<T> v;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), v(r * c, T(0)) {}
  T& at(int64_t i, int64_t j) { return v[i * cols + j]; }
  T at(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

absl::Status CheckSquare(const HloInstruction& instr, const Literal& a) {
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, a, "a"));
  const Shape& s = a.shape();
  const PrimitiveType t = s.element_type();
  if (s.rank() < 2 || s.dimensions(s.rank() - 1) != s.dimensions(s.rank() - 2) ||
      !(IsFloat(t) || IsComplex(t))) {
    return OpError(instr, "needs a float or complex operand with square minor dimensions, got ",
                   s.ToString(false));
  }
  return absl::OkStatus();
}

// The lower factor L of the matrix whose lower triangle is `m` (m = L L^H).
template <typename T>
Matrix<T> CholeskyLower(const Matrix<T>& m) {
  const int64_t n = m.rows;
  Matrix<T> l(n, n);
  for (int64_t j = 0; j < n; ++j) {
    double d = Real(m.at(j, j));
    for (int64_t k = 0; k < j; ++k) d -= AbsSquared(l.at(j, k));
    const double diag = std::sqrt(d);
    l.at(j, j) = T(diag);
    for (int64_t i = j + 1; i < n; ++i) {
      T s = m.at(i, j);
      for (int64_t k = 0; k < j; ++k) s -= l.at(i, k) * Conj(l.at(j, k));
      l.at(i, j) = s / T(diag);
    }
  }
  return l;
}

template <typename T>
void CholeskyBatches(const Literal& a, bool lower, Literal& out) {
  const Shape& s = a.shape();
  const int64_t n = s.dimensions(s.rank() - 1);
  const int64_t batches = n == 0 ? 0 : a.element_count() / (n * n);
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t base = b * n * n;
    Matrix<T> m(n, n);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        m.at(i, j) = lower ? Load<T>(a, base + i * n + j) : Conj(Load<T>(a, base + j * n + i));
      }
    }
    const Matrix<T> l = CholeskyLower(m);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        if (lower) {
          StoreValue(out, base + i * n + j, l.at(i, j));
        } else {
          StoreValue(out, base + j * n + i, Conj(l.at(i, j)));
        }
      }
    }
  }
}

enum class Transpose { kNo, kTranspose, kAdjoint };

struct SolveSpec {
  bool left = false, lower = false, unit = false;
  Transpose transpose = Transpose::kNo;
};

absl::StatusOr<SolveSpec> GetSolveSpec(const HloInstruction& instr) {
  SolveSpec spec;
  spec.left = instr.GetBool(AttrId::kLeftSide);
  spec.lower = instr.GetBool(AttrId::kLower);
  spec.unit = instr.GetBool(AttrId::kUnitDiagonal);
  const std::string& t = instr.GetString(AttrId::kTransposeA);
  if (t == "TRANSPOSE") {
    spec.transpose = Transpose::kTranspose;
  } else if (t == "ADJOINT") {
    spec.transpose = Transpose::kAdjoint;
  } else if (!t.empty() && t != "NO_TRANSPOSE") {
    return OpError(instr, "transpose_a=", t, " is not NO_TRANSPOSE, TRANSPOSE or ADJOINT");
  }
  return spec;
}

absl::Status CheckSolveShapes(const HloInstruction& instr, const Literal& a, const Literal& b,
                              const SolveSpec& spec) {
  RETURN_IF_ERROR(CheckSquare(instr, a));
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, b, "b"));
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  const int64_t r = as.rank();
  bool ok = bs.rank() == r && bs.element_type() == as.element_type();
  for (int64_t d = 0; ok && d < r - 2; ++d) ok = as.dimensions(d) == bs.dimensions(d);
  if (ok) ok = bs.dimensions(spec.left ? r - 2 : r - 1) == as.dimensions(r - 1);
  if (!ok) {
    return OpError(instr, "b ", bs.ToString(false), " does not fit a ", as.ToString(false),
                   " with left_side=", spec.left ? "true" : "false");
  }
  return op_helpers::CheckArrayResult(instr, bs.dimensions(), bs.element_type());
}

// op(triangle of a) for batch `base`, as a dense matrix.
template <typename T>
Matrix<T> EffectiveMatrix(const Literal& a, int64_t base, int64_t m, const SolveSpec& spec) {
  Matrix<T> t(m, m);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      const bool in_triangle = spec.lower ? j <= i : j >= i;
      if (!in_triangle) continue;
      T v = (spec.unit && i == j) ? T(1) : Load<T>(a, base + i * m + j);
      if (spec.transpose == Transpose::kNo) {
        t.at(i, j) = v;
      } else {
        t.at(j, i) = spec.transpose == Transpose::kAdjoint ? Conj(v) : v;
      }
    }
  }
  return t;
}

// Solves t x = rhs in place for triangular t (lower or upper).
template <typename T>
void SolveVector(const Matrix<T>& t, bool lower, std::vector<T>& x) {
  const int64_t m = t.rows;
  for (int64_t step = 0; step < m; ++step) {
    const int64_t i = lower ? step : m - 1 - step;
    T s = x[i];
    if (lower) {
      for (int64_t k = 0; k < i; ++k) s -= t.at(i, k) * x[k];
    } else {
      for (int64_t k = i + 1; k < m; ++k) s -= t.at(i, k) * x[k];
    }
    x[i] = s / t.at(i, i);
  }
}

template <typename T>
void SolveBatches(const Literal& a, const Literal& b, const SolveSpec& spec, Literal& out) {
  const Shape& bs = b.shape();
  const int64_t r = bs.rank();
  const int64_t m = a.shape().dimensions(r - 1);
  const int64_t rows = bs.dimensions(r - 2), cols = bs.dimensions(r - 1);
  const int64_t per_batch = rows * cols;
  const int64_t batches = per_batch == 0 || m == 0 ? 0 : b.element_count() / per_batch;
  const bool t_lower = spec.lower == (spec.transpose == Transpose::kNo);
  for (int64_t batch = 0; batch < batches; ++batch) {
    Matrix<T> t = EffectiveMatrix<T>(a, batch * m * m, m, spec);
    if (!spec.left) {  // x t = b  <=>  t^T x^T = b^T
      Matrix<T> tt(m, m);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) tt.at(j, i) = t.at(i, j);
      }
      t = tt;
    }
    const bool lower = spec.left ? t_lower : !t_lower;
    const int64_t vectors = spec.left ? cols : rows;
    const int64_t stride = spec.left ? cols : 1;
    for (int64_t v = 0; v < vectors; ++v) {
      const int64_t start = batch * per_batch + (spec.left ? v : v * cols);
      std::vector<T> x(m);
      for (int64_t i = 0; i < m; ++i) x[i] = Load<T>(b, start + i * stride);
      SolveVector(t, lower, x);
      for (int64_t i = 0; i < m; ++i) StoreValue(out, start + i * stride, x[i]);
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvalCholesky(const HloInstruction& instr,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  const Literal& a = *operands[0];
  RETURN_IF_ERROR(CheckSquare(instr, a));
  RETURN_IF_ERROR(
      op_helpers::CheckArrayResult(instr, a.shape().dimensions(), a.shape().element_type()));
  Literal out(instr.shape());
  const bool lower = instr.GetBool(AttrId::kLower);
  if (IsComplex(a.shape().element_type())) {
    CholeskyBatches<std::complex<double>>(a, lower, out);
  } else {
    CholeskyBatches<double>(a, lower, out);
  }
  return out;
}

absl::StatusOr<Literal> EvalTriangularSolve(const HloInstruction& instr,
                                            absl::Span<const Literal* const> operands,
                                            EvalContext& ctx) {
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  ASSIGN_OR_RETURN(SolveSpec spec, GetSolveSpec(instr));
  RETURN_IF_ERROR(CheckSolveShapes(instr, a, b, spec));
  Literal out(instr.shape());
  if (IsComplex(a.shape().element_type())) {
    SolveBatches<std::complex<double>>(a, b, spec, out);
  } else {
    SolveBatches<double>(a, b, spec, out);
  }
  return out;
}

}  // namespace xla::evaluator::linalg
