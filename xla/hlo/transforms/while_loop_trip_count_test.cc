#include "xla/hlo/transforms/while_loop_trip_count.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::Lacks;

// A loop over s32 i from INIT, i = i OP STEP, while (i DIR BOUND), summing
// x into an accumulator. LHS/RHS put the compare operands in order.
std::string Loop(int init, const char* op, int step, const char* dir, int bound,
                 bool bound_on_left = false) {
  std::string cmp = bound_on_left ? "compare(k, i)" : "compare(i, k)";
  return absl::StrReplaceAll(R"(
HloModule m
cond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(BOUND)
  ROOT c = pred[] CMP, direction=DIR
}
body {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[5] get-tuple-element(s), index=1
  step = s32[] constant(STEP)
  i2 = s32[] OP(i, step)
  e = f32[5] exponential(x)
  ROOT t = (s32[], f32[5]) tuple(i2, e)
}
ENTRY e {
  p = f32[5] parameter(0)
  z = s32[] constant(INIT)
  t = (s32[], f32[5]) tuple(z, p)
  ROOT w = (s32[], f32[5]) while(t), condition=cond, body=body
})",
                             {{"BOUND", absl::StrCat(bound)},
                              {"CMP", cmp},
                              {"DIR", dir},
                              {"STEP", absl::StrCat(step)},
                              {"OP", op},
                              {"INIT", absl::StrCat(init)}});
}

std::optional<int64_t> TripCount(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(hlo);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return std::nullopt;
  return ComputeWhileTripCount(*(*m)->entry_computation()->root_instruction());
}

TEST(WhileLoopTripCount, CountsEveryDirection) {
  EXPECT_EQ(TripCount(Loop(0, "add", 1, "LT", 10)), 10);
  EXPECT_EQ(TripCount(Loop(0, "add", 3, "LT", 10)), 4);
  EXPECT_EQ(TripCount(Loop(0, "add", 3, "LE", 9)), 4);
  EXPECT_EQ(TripCount(Loop(10, "subtract", 2, "GT", 0)), 5);
  EXPECT_EQ(TripCount(Loop(10, "add", -2, "GE", 0)), 6);
  EXPECT_EQ(TripCount(Loop(0, "add", 2, "NE", 8)), 4);
  EXPECT_EQ(TripCount(Loop(5, "add", 1, "LT", 3)), 0);
  EXPECT_EQ(TripCount(Loop(0, "add", 1, "GT", 10, /*bound_on_left=*/true)), 10);
}

TEST(WhileLoopTripCount, UnknownWhenEndlessOrWrapping) {
  EXPECT_EQ(TripCount(Loop(0, "add", 3, "NE", 8)), std::nullopt);   // skips 8
  EXPECT_EQ(TripCount(Loop(0, "add", -1, "LT", 8)), std::nullopt);  // never ends
  EXPECT_EQ(TripCount(Loop(0, "add", 1 << 30, "LT", 2147483647)), std::nullopt);  // wraps
}

TEST(WhileLoopTripCountAnnotator, AnnotatesKnownLoops) {
  WhileLoopTripCountAnnotator pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, Loop(0, "add", 1, "LT", 7));
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, R"(backend_config={"known_trip_count":{"n":"7"}})"));
}

TEST(WhileLoopTripCountAnnotator, KeepsAnExistingBackendConfig) {
  WhileLoopTripCountAnnotator pass;
  std::string hlo = absl::StrReplaceAll(Loop(0, "add", 1, "LT", 7),
                                        {{"body=body", R"(body=body, backend_config={"x":1})"}});
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, hlo);
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(Lacks(r.text, "known_trip_count"));
}

}  // namespace
}  // namespace xla
