// fft for the evaluator: a direct DFT (O(n^2) per line, for exactness, not
// speed) in complex<double>, rounded once to the result type.
//
// The transform runs over the last len(fft_length) (1 to 3) dimensions.
//   FFT    complex -> complex, X[k] = sum_j x[j] exp(-2 pi i jk/N).
//   IFFT   complex -> complex, x[j] = (1/N) sum_k X[k] exp(+2 pi i jk/N).
//   RFFT   real -> complex; the last dimension keeps N/2+1 coefficients.
//   IRFFT  complex -> real; the last dimension holds N/2+1 coefficients and
//          is extended Hermitian-symmetrically (the imaginary parts of the DC
//          and, for even N, Nyquist terms are ignored), like numpy's irfftn.
// Twiddle factors use the exact angle 2 pi ((j k) mod N) / N.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {
namespace {

using op_helpers::OpError;
using Complex = std::complex<double>;

constexpr double kPi = 3.14159265358979323846;

enum class FftType { kFft, kIfft, kRfft, kIrfft };

// A complex buffer with row-major dimensions.
struct Buffer {
  std::vector<int64_t> dims;
  std::vector<Complex> v;
};

absl::StatusOr<FftType> GetFftType(const HloInstruction& instr) {
  const std::string& t = instr.GetString(AttrId::kFftType);
  if (t == "FFT") return FftType::kFft;
  if (t == "IFFT") return FftType::kIfft;
  if (t == "RFFT") return FftType::kRfft;
  if (t == "IRFFT") return FftType::kIrfft;
  return OpError(instr, "fft_type must be FFT, IFFT, RFFT or IRFFT, got '", t, "'");
}

// The result dimensions, after checking the operand against type and lengths.
absl::StatusOr<std::vector<int64_t>> FftResultDims(const HloInstruction& instr, FftType type,
                                                   const Shape& in,
                                                   const std::vector<int64_t>& length) {
  const int64_t n = static_cast<int64_t>(length.size());
  const bool complex_in = type != FftType::kRfft;
  bool ok = n >= 1 && n <= 3 && n <= in.rank() && IsComplex(in.element_type()) == complex_in;
  if (!complex_in) ok = ok && IsFloat(in.element_type());
  std::vector<int64_t> out = in.dimensions();
  for (int64_t i = 0; ok && i < n; ++i) {
    const int64_t d = in.rank() - n + i;
    int64_t want = length[i];
    if (d == in.rank() - 1 && type == FftType::kIrfft) want = length[i] / 2 + 1;
    ok = length[i] >= 0 && in.dimensions(d) == want;
  }
  if (!ok) {
    return OpError(instr, "operand ", in.ToString(false), " does not fit fft_length={",
                   absl::StrJoin(length, ","), "}");
  }
  if (type == FftType::kRfft) out.back() = length.back() / 2 + 1;
  if (type == FftType::kIrfft) out.back() = length.back();
  return out;
}

// exp(sign * 2 pi i t / n) for t in [0, n).
std::vector<Complex> Twiddles(int64_t n, int sign) {
  std::vector<Complex> w(n);
  for (int64_t t = 0; t < n; ++t) {
    const double angle = sign * 2.0 * kPi * static_cast<double>(t) / static_cast<double>(n);
    w[t] = Complex(std::cos(angle), std::sin(angle));
  }
  return w;
}

// Transforms every line along `dim` of `in` into `out_len` outputs from the
// (Hermitian-extended, when `hermitian`) length-`n` input line. `inverse`
// flips the sign and scales by 1/n; `real_part` keeps only real parts.
struct LineTransform {
  int64_t dim, n, out_len;
  bool inverse, hermitian, real_part;
};

Complex InputAt(const std::vector<Complex>& line, int64_t j, const LineTransform& t) {
  if (!t.hermitian || j < static_cast<int64_t>(line.size())) return line[j];
  return std::conj(line[t.n - j]);
}

Buffer TransformLines(const Buffer& in, const LineTransform& t) {
  Buffer out{in.dims, {}};
  out.dims[t.dim] = t.out_len;
  out.v.assign(ElementCount(out.dims), Complex(0));
  if (out.v.empty()) return out;
  const std::vector<Complex> w = Twiddles(t.n, t.inverse ? 1 : -1);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dims);
  const std::vector<int64_t> out_strides = RowMajorStrides(out.dims);
  std::vector<int64_t> lines = in.dims;
  lines[t.dim] = 1;
  std::vector<int64_t> index(lines.size(), 0);
  std::vector<Complex> line(in.dims[t.dim]);
  do {
    const int64_t in_base = LinearIndex(index, in.dims);
    const int64_t out_base = LinearIndex(index, out.dims);
    for (size_t j = 0; j < line.size(); ++j) line[j] = in.v[in_base + j * in_strides[t.dim]];
    for (int64_t k = 0; k < t.out_len; ++k) {
      Complex s(0);
      for (int64_t j = 0; j < t.n; ++j) s += InputAt(line, j, t) * w[(j * k) % t.n];
      if (t.inverse) s /= static_cast<double>(t.n);
      if (t.real_part) s = Complex(s.real(), 0);
      out.v[out_base + k * out_strides[t.dim]] = s;
    }
  } while (NextIndex(index, lines));
  return out;
}

Buffer Transform(Buffer buf, FftType type, const std::vector<int64_t>& length) {
  const int64_t rank = static_cast<int64_t>(buf.dims.size());
  const int64_t n = static_cast<int64_t>(length.size());
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  if (type == FftType::kRfft) {  // real-to-complex along the last dimension first
    buf = TransformLines(buf, {rank - 1, length.back(), length.back() / 2 + 1, false, false,
                               false});
  }
  const int64_t complex_dims = type == FftType::kFft || type == FftType::kIfft ? n : n - 1;
  for (int64_t i = 0; i < complex_dims; ++i) {
    const int64_t d = rank - n + i;
    buf = TransformLines(buf, {d, length[i], length[i], inverse, false, false});
  }
  if (type == FftType::kIrfft) {  // complex-to-real along the last dimension last
    buf = TransformLines(buf, {rank - 1, length.back(), length.back(), true, true, true});
  }
  return buf;
}

}  // namespace

absl::StatusOr<Literal> EvalFft(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, EvalContext& ctx) {
  const Literal& in = *operands[0];
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, in, "operand"));
  ASSIGN_OR_RETURN(FftType type, GetFftType(instr));
  const std::vector<int64_t>& length = instr.GetIntList(AttrId::kFftLength);
  ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, FftResultDims(instr, type, in.shape(), length));
  const PrimitiveType in_type = in.shape().element_type();
  PrimitiveType out_type = in_type;
  if (type == FftType::kRfft) {
    out_type = in_type == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128;
  }
  if (type == FftType::kIrfft) out_type = ComplexComponentType(in_type);
  RETURN_IF_ERROR(op_helpers::CheckArrayResult(instr, out_dims, out_type));
  Buffer buf{in.shape().dimensions(), std::vector<Complex>(in.element_count())};
  for (int64_t i = 0; i < in.element_count(); ++i) buf.v[i] = in.GetComplex(i);
  buf = Transform(std::move(buf), type, length);
  Literal out(instr.shape());
  for (int64_t i = 0; i < out.element_count(); ++i) out.SetComplex(i, buf.v[i]);
  return out;
}

}  // namespace xla::evaluator::linalg
