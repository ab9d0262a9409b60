// Helpers shared by the fft end-to-end tests (fft_test on the host,
// fft_cuda_test on the fake CUDA driver): the one-fft module text and the
// error measure against the evaluator.
//
// Thread-safety: pure functions.
#ifndef XLA_AOT_FFT_TEST_UTIL_H_
#define XLA_AOT_FFT_TEST_UTIL_H_

#include <string>

#include "xla/types/literal.h"

namespace xla::aot::testing {

// One fft module: operand and result shapes, fft_type and fft_length.
struct FftCase {
  const char* in;
  const char* out;
  const char* type;
  const char* lengths;
};

// HLO text of a module whose parameter of `c.in` goes through one fft of
// `c.type` over `c.lengths` to a root of `c.out`.
std::string FftModule(const FftCase& c);

// Largest |got - want| over the largest |want| (complex parts together;
// the absolute error when `want` is all zero). Fails the current test when
// the element counts differ.
double WorstRelativeError(const Literal& got, const Literal& want);

// Whether the case runs in single precision (f32 or c64 operand).
bool IsSinglePrecision(const FftCase& c);

}  // namespace xla::aot::testing

#endif  // XLA_AOT_FFT_TEST_UTIL_H_
