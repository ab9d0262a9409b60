// JAX programs on complex numbers (testdata/complex, written by
// gen_complex.py with jax 0.10.2): jnp.sort, argsort and lax.sort with
// several operands (JAX's complex order: real part, then imaginary part),
// cumsum and cumprod (reduce-window), lax.reduce_window, .at[].add/.set/
// .mul (scatter), segment_sum, gather of rows, sums and products over axes,
// max, min and cummax (reduces whose reducers select on both parts),
// abs/angle/conj inside reductions, tan, sinh, cosh, expm1 and log1p,
// select and compare; and, written by hand (JAX has no complex atan2 or
// select-and-scatter), logistic and atan2, and a select-and-scatter of a
// complex source onto a real operand. Each compiles for
// the host and matches the evaluator, and compiles for sm_80 and sm_90
// with ptxas accepting every kernel; c64 and c128, odd sizes.
#include <cstdint>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/host_vs_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

struct ComplexCase {
  const char* name;
  // Values of the s32 parameters (indices, segment ids, sort keys), cycled.
  std::vector<int64_t> ints;
};

void PrintTo(const ComplexCase& c, std::ostream* os) { *os << c.name; }

// Indices repeat for the combiners that accumulate, stay distinct for
// .set (whose result with duplicates is unspecified), and reach outside
// the operand where JAX's modes define the result (negative indices wrap,
// segment ids past the end are dropped, gather clamps).
const ComplexCase kCases[] = {
    {"sort_1d", {}},
    {"sort_axis0", {}},
    {"argsort", {}},
    {"lax_sort_multi", {2, 0, 1, 2, 2, 0, 1}},
    {"cumsum", {}},
    {"cumprod", {}},
    {"reduce_window_add", {}},
    {"scatter_add", {3, -2, 3, 0, 9, -2}},
    {"scatter_set", {4, -1, 0, 7, 2, 5}},
    {"scatter_mul", {3, -2, 3, 0, 9, -2}},
    {"segment_sum", {0, 6, 2, 2, -1, 7, 4, 0, 1, 3, 3, 5, 6}},
    {"gather_rows", {10, -3, 0, 4, 12, 4, -1}},
    {"sum_prod", {}},
    {"abs_angle_conj", {}},
    {"max_min_cummax", {}},
    {"elementwise", {}},
    {"select_compare", {}},
    {"logistic_atan2", {}},
    {"select_and_scatter", {}},
    {"select_and_scatter_operand", {}},  // a complex operand, select by (re, im)
};

std::string ReadProgram(const std::string& name) {
  const std::string path = absl::StrCat("tests/e2e/testdata/complex/", name, ".hlo");
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Complex inputs with both parts non-zero and tied real parts (5 values;
// the imaginary part takes 7, so whole elements repeat too); the same
// pattern shifted for each parameter.
Literal ComplexInput(const Shape& shape, int64_t parameter) {
  Literal l(shape);
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int64_t k = 3 * i + 5 * parameter;
    l.SetComplex(i, {0.375 * ((k * 7) % 5) - 0.625, 0.25 * ((k * 11) % 7) - 0.875});
  }
  return l;
}

std::vector<Literal> Inputs(const std::string& hlo, const ComplexCase& c) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  if (!module.ok()) return args;
  const HloComputation* entry = (*module)->entry_computation();
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    const Shape& shape = entry->parameter_instruction(p)->shape();
    if (IsComplex(shape.element_type())) {
      args.push_back(ComplexInput(shape, p));
      continue;
    }
    if (IsFloat(shape.element_type())) {  // distinct values: no ties for a select
      Literal l(shape);
      for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, 0.125 * ((i * 37) % 127) - 6);
      args.push_back(std::move(l));
      continue;
    }
    EXPECT_EQ(shape.element_type(), PrimitiveType::S32) << c.name << " parameter " << p;
    EXPECT_FALSE(c.ints.empty()) << c.name;
    Literal l(shape);
    for (int64_t i = 0; i < l.element_count() && !c.ints.empty(); ++i) l.SetInt(i, c.ints[i % c.ints.size()]);
    args.push_back(std::move(l));
  }
  return args;
}

class ComplexOps : public ::testing::TestWithParam<ComplexCase> {};

TEST_P(ComplexOps, HostMatchesEvaluator) {
  for (const char* type : {"c64", "c128"}) {
    SCOPED_TRACE(type);
    const std::string hlo = ReadProgram(absl::StrCat(GetParam().name, "_", type));
    aot::ExpectHostMatchesEvaluator(hlo, Inputs(hlo, GetParam()));
  }
}

TEST_P(ComplexOps, CompilesForSm80AndSm90) {
  for (const char* type : {"c64", "c128"}) {
    const std::string hlo = ReadProgram(absl::StrCat(GetParam().name, "_", type));
    for (const char* target : {"sm_80", "sm_90"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", target));
      aot::ExpectCompilesWithCubins(hlo, target);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Jax, ComplexOps, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ComplexCase>& info) { return info.param.name; });

}  // namespace
}  // namespace xla
