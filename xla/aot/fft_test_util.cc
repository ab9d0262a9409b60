#include "xla/aot/fft_test_util.h"

#include <algorithm>
#include <complex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xla::aot::testing {

std::string FftModule(const FftCase& c) {
  return absl::StrCat("HloModule fft\n\nENTRY main {\n  p = ", c.in,
                      " parameter(0)\n  ROOT f = ", c.out, " fft(p), fft_type=", c.type,
                      ", fft_length={", c.lengths, "}\n}\n");
}

double WorstRelativeError(const Literal& got, const Literal& want) {
  EXPECT_EQ(got.element_count(), want.element_count());
  if (got.element_count() != want.element_count()) return INFINITY;
  double scale = 0, worst = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const std::complex<double> w = want.GetComplex(i), g = got.GetComplex(i);
    scale = std::max(scale, std::abs(w));
    worst = std::max(worst, std::abs(g - w));
  }
  return scale == 0 ? worst : worst / scale;
}

bool IsSinglePrecision(const FftCase& c) {
  return absl::StrContains(c.in, "f32") || absl::StrContains(c.in, "c64");
}

}  // namespace xla::aot::testing
