// The host sort kernel (host_sort_kernel.cc: insertion-sorted runs, then
// merge passes through a stack or malloc'ed scratch line) against the
// reference evaluator's std::stable_sort, bit for bit, through the real
// shared object: line lengths around the insertion-only limit and the
// powers of two of the passes (1, 2, 3, 17, 128, 129, 1000, 4099; 262145
// against std::stable_sort), keys with many ties,
// NaNs of both signs and -0.0 under a total-order comparator, ascending and
// descending comparators, several operands (keys and values, argsort with
// a fused iota), stable and unstable sorts, sort dims that are not minor,
// unit dimensions below the sort dimension (contiguous lines), and both
// scratch places.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

// Runs `text` with random inputs (seed 11) changed by `edit`, and expects
// the sort kind and the evaluator's bits.
void CheckSort(const std::string& text, const std::function<void(std::vector<Literal>&)>& edit,
               int64_t stack_scratch_bytes = 64 * 1024) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  absl::StatusOr<std::vector<Literal>> inputs = MakeRandomInputs(**m, 11);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  if (edit) edit(*inputs);
  FusionRunOptions options;
  options.emit.sort_stack_scratch_bytes = stack_scratch_bytes;
  options.inputs = std::move(*inputs);
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, "sort");
  if (run->expected == run->actual) return;
  ADD_FAILURE() << "kernel differs from the evaluator";
  const Literal& e = run->expected.shape().IsTuple() ? run->expected.tuple_elements()[0]
                                                     : run->expected;
  const Literal& a =
      run->actual.shape().IsTuple() ? run->actual.tuple_elements()[0] : run->actual;
  int shown = 0;
  for (int64_t i = 0; i < e.element_count() && shown < 10; ++i) {
    if (e.ElementToString(i) == a.ElementToString(i)) continue;
    ADD_FAILURE() << "element " << i << ": expected " << e.ElementToString(i) << ", got "
                  << a.ElementToString(i);
    ++shown;
  }
}

// Keys drawn from few values, with NaN, -NaN, -0.0, 0.0 and infinities
// mixed in: a total-order sort must place each exactly.
void SpecialFloats(Literal& keys) {
  const double specials[] = {NAN, -NAN, -0.0, 0.0, INFINITY, -INFINITY};
  for (int64_t i = 0; i < keys.element_count(); ++i) {
    if (i % 7 == 3) {
      keys.SetDouble(i, specials[(i / 7) % 6]);
    } else {
      keys.SetDouble(i, std::round(keys.GetDouble(i) * 8) / 4);  // ties
    }
  }
}

// Integers in [0, 5): long runs of equal keys, so stability shows.
void FewInts(Literal& keys) {
  for (int64_t i = 0; i < keys.element_count(); ++i) keys.SetInt(i, (i * 7919 + i / 3) % 5);
}

// One f32 operand of [n] sorted by `direction` (LT or GT) in total order.
std::string F32Sort(int64_t n, const std::string& direction) {
  return absl::StrReplaceAll(R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=$DIR, type=TOTALORDER
}
fused {
  k = f32[$N] parameter(0)
  ROOT s = f32[$N] sort(k), dimensions={0}, to_apply=cmp
}
ENTRY e {
  k = f32[$N] parameter(0)
  ROOT f = f32[$N] fusion(k), kind=kLoop, calls=fused
}
)",
                             {{"$N", absl::StrCat(n)}, {"$DIR", direction}});
}

TEST(HostSortKernel, F32TotalOrderAscendingEverySize) {
  for (int64_t n : {1, 2, 3, 17, 128, 129, 1000, 4099}) {
    SCOPED_TRACE(absl::StrCat("n=", n));
    CheckSort(F32Sort(n, "LT"), [](std::vector<Literal>& in) { SpecialFloats(in[0]); });
  }
}

// 262145 elements (2^18 + 1: 15 merge passes, the last one merging a run of
// 2^18 with one element; the scratch is malloc'ed): too slow for the
// evaluator in a debug build, so the oracle is std::stable_sort on the
// total-order integer key of each f32's bits.
TEST(HostSortKernel, F32Of262145AgainstStdStableSort) {
  const int64_t n = 262145;
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(F32Sort(n, "LT"));
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::vector<Literal>> inputs = MakeRandomInputs(**m, 11);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  SpecialFloats((*inputs)[0]);
  std::vector<uint32_t> bits(n);
  std::memcpy(bits.data(), (*inputs)[0].data().data(), n * sizeof(uint32_t));
  // Negative floats (sign bit set) order reversed below the positive ones.
  auto key = [](uint32_t b) -> int64_t {
    return (b >> 31) != 0 ? -static_cast<int64_t>(b & 0x7fffffffu) - 1 : static_cast<int64_t>(b);
  };
  std::stable_sort(bits.begin(), bits.end(),
                   [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  FusionRunOptions options;
  options.evaluate = false;
  options.inputs = std::move(*inputs);
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, "sort");
  std::vector<uint32_t> actual(n);
  std::memcpy(actual.data(), run->actual.data().data(), n * sizeof(uint32_t));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (actual[i] == bits[i]) continue;
    if (++wrong <= 10) {
      ADD_FAILURE() << "element " << i << ": expected bits " << bits[i] << ", got " << actual[i];
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(HostSortKernel, F32TotalOrderDescending) {
  for (int64_t n : {2, 17, 1000}) {
    SCOPED_TRACE(absl::StrCat("n=", n));
    CheckSort(F32Sort(n, "GT"), [](std::vector<Literal>& in) { SpecialFloats(in[0]); });
  }
}

// Keys with many ties and a payload of other values: only a stable sort
// keeps tied payloads in input order. Along dim 1 of [3,n] (contiguous
// lines) and dim 0 of [n,3] (strided lines).
std::string KeyValueSort(int64_t n, bool minor, const std::string& direction, bool stable) {
  const std::string shape = minor ? absl::StrCat("[3,", n, "]") : absl::StrCat("[", n, ",3]");
  return absl::StrReplaceAll(R"(HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=$DIR
}
fused {
  k = s32$SHAPE parameter(0)
  v = f32$SHAPE parameter(1)
  ROOT s = (s32$SHAPE, f32$SHAPE) sort(k, v), dimensions={$DIM}, $STABLEto_apply=cmp
}
ENTRY e {
  k = s32$SHAPE parameter(0)
  v = f32$SHAPE parameter(1)
  ROOT f = (s32$SHAPE, f32$SHAPE) fusion(k, v), kind=kLoop, calls=fused
}
)",
                             {{"$SHAPE", shape},
                              {"$DIM", minor ? "1" : "0"},
                              {"$DIR", direction},
                              {"$STABLE", stable ? "is_stable=true, " : ""}});
}

TEST(HostSortKernel, KeysAndValuesStableWithTies) {
  for (int64_t n : {1, 17, 129, 1000}) {
    for (bool minor : {true, false}) {
      for (const char* dir : {"LT", "GT"}) {
        SCOPED_TRACE(absl::StrCat("n=", n, " minor=", minor, " ", dir));
        CheckSort(KeyValueSort(n, minor, dir, /*stable=*/true),
                  [](std::vector<Literal>& in) { FewInts(in[0]); });
      }
    }
  }
  CheckSort(KeyValueSort(4099, /*minor=*/false, "LT", /*stable=*/true),
            [](std::vector<Literal>& in) { FewInts(in[0]); });
}

// An unstable sort may pick any order of ties; the kernel's (stable) order
// is the evaluator's.
TEST(HostSortKernel, UnstableSortGivesTheStableOrder) {
  CheckSort(KeyValueSort(1000, true, "GT", /*stable=*/false),
            [](std::vector<Literal>& in) { FewInts(in[0]); });
}

// argsort as JAX lowers it: keys and a fused iota, the comparator ordering
// keys in total order and leaving the index as a payload.
TEST(HostSortKernel, ArgsortWithFusedIota) {
  for (int64_t n : {2, 17, 1000}) {
    SCOPED_TRACE(absl::StrCat("n=", n));
    const std::string text = absl::StrReplaceAll(R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
fused {
  k = f32[5,$N] parameter(0)
  i = s32[5,$N] iota(), iota_dimension=1
  ROOT s = (f32[5,$N], s32[5,$N]) sort(k, i), dimensions={1}, to_apply=cmp
}
ENTRY e {
  k = f32[5,$N] parameter(0)
  ROOT f = (f32[5,$N], s32[5,$N]) fusion(k), kind=kLoop, calls=fused
}
)",
                                                 {{"$N", absl::StrCat(n)}});
    CheckSort(text, [](std::vector<Literal>& in) { SpecialFloats(in[0]); });
  }
}

// A comparator reading both operands (lexicographic: key descending, then
// value ascending), over bf16 values (2-byte scratch lines).
TEST(HostSortKernel, LexicographicComparatorBf16Payload) {
  const std::string text = R"(HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = bf16[] parameter(2)
  d = bf16[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(c, d), direction=LT, type=TOTALORDER
  tie = pred[] and(eq, lt)
  ROOT r = pred[] or(gt, tie)
}
fused {
  k = s32[2,1001] parameter(0)
  v = bf16[2,1001] parameter(1)
  ROOT s = (s32[2,1001], bf16[2,1001]) sort(k, v), dimensions={1}, is_stable=true, to_apply=cmp
}
ENTRY e {
  k = s32[2,1001] parameter(0)
  v = bf16[2,1001] parameter(1)
  ROOT f = (s32[2,1001], bf16[2,1001]) fusion(k, v), kind=kLoop, calls=fused
}
)";
  CheckSort(text, [](std::vector<Literal>& in) { FewInts(in[0]); });
}

// Which merge the kernel uses follows the lines' strides: lines along a
// dimension with only unit dimensions below it are contiguous (one merge
// pass in the IR, run both ways); a dimension of 2 below makes them strided
// (one pass each way). Each case against the evaluator, descending with
// ties and NaNs, values carrying the input position, both scratch places.
// (Row-major only: the compiler copies other layouts to row-major before
// the kernels, and this harness passes literals' bytes as they are.)
TEST(HostSortKernel, UnitDimensionsKeepLinesContiguous) {
  struct Case {
    const char* keys;
    const char* values;
    int dim;
  };
  const Case cases[] = {
      {"f32[1,1001,1]", "s32[1,1001,1]", 1},  // contiguous
      {"f32[1001,1,1]", "s32[1001,1,1]", 0},  // contiguous
      {"f32[1001,1,2]", "s32[1001,1,2]", 0},  // strided
  };
  for (const Case& c : cases) {
    for (int64_t stack : {int64_t{0}, int64_t{64} * 1024}) {
      SCOPED_TRACE(absl::StrCat(c.keys, " ", c.values, " stack=", stack));
      const std::string text = absl::StrReplaceAll(R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
fused {
  k = $K parameter(0)
  v = $V parameter(1)
  ROOT s = ($K, $V) sort(k, v), dimensions={$D}, is_stable=true, to_apply=cmp
}
ENTRY e {
  k = $K parameter(0)
  v = $V parameter(1)
  ROOT f = ($K, $V) fusion(k, v), kind=kLoop, calls=fused
}
)",
                                                   {{"$K", c.keys},
                                                    {"$V", c.values},
                                                    {"$D", absl::StrCat(c.dim)}});
      CheckSort(text, [](std::vector<Literal>& in) {
        SpecialFloats(in[0]);
        for (int64_t i = 0; i < in[1].element_count(); ++i) in[1].SetInt(i, i);
      }, stack);
    }
  }
}

// The malloc'ed scratch line (stack limit 0) gives the same bits as the
// stack one.
TEST(HostSortKernel, MallocScratchMatches) {
  for (int64_t n : {129, 1000}) {
    SCOPED_TRACE(absl::StrCat("n=", n));
    CheckSort(KeyValueSort(n, false, "LT", true), [](std::vector<Literal>& in) { FewInts(in[0]); },
              /*stack_scratch_bytes=*/0);
    CheckSort(F32Sort(n, "LT"), [](std::vector<Literal>& in) { SpecialFloats(in[0]); },
              /*stack_scratch_bytes=*/0);
  }
}

}  // namespace
}  // namespace xla::gpu
