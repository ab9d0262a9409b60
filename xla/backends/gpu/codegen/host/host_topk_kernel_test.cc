// The host top-k kernel (host_topk_kernel.cc: one pass per row, the best k
// kept sorted in the outputs) against the reference evaluator's topk (a
// stable sort of total-order keys), bit for bit in values and indices,
// through the real shared object: k = 1, k = n, odd row lengths and row
// counts, rank 1 and 3, largest and smallest, f32 / bf16 / f16 / f64 and
// integer operands, NaNs of both signs, -0.0 and infinities, many ties
// (the lower index first), an element-wise producer fused into the kernel,
// and the worst case (every element an insertion).
#include <cmath>
#include <cstdint>
#include <functional>
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

// A module whose root fusion is topk(x) of `type`[`dims`], with `last` the
// row length and k, largest as given.
std::string TopKModule(const std::string& type, const std::string& dims,
                       const std::string& out_dims, int64_t k, bool largest) {
  return absl::StrReplaceAll(R"(HloModule m
fused {
  x = $T[$D] parameter(0)
  ROOT t = ($T[$O], s32[$O]) topk(x), k=$K, largest=$L
}
ENTRY e {
  x = $T[$D] parameter(0)
  ROOT f = ($T[$O], s32[$O]) fusion(x), kind=kLoop, calls=fused
}
)",
                             {{"$T", type},
                              {"$D", dims},
                              {"$O", out_dims},
                              {"$K", absl::StrCat(k)},
                              {"$L", largest ? "true" : "false"}});
}

// Runs `text` on random inputs (seed 5) changed by `edit` and expects the
// topk kind and the evaluator's bits.
void CheckTopK(const std::string& text, const std::function<void(Literal&)>& edit) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  absl::StatusOr<std::vector<Literal>> inputs = MakeRandomInputs(**m, 5);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  if (edit) edit((*inputs)[0]);
  FusionRunOptions options;
  options.inputs = std::move(*inputs);
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, "topk");
  for (int64_t leaf = 0; leaf < 2; ++leaf) {
    const Literal& e = run->expected.tuple_elements()[leaf];
    const Literal& a = run->actual.tuple_elements()[leaf];
    int shown = 0;
    for (int64_t i = 0; i < e.element_count() && shown < 10; ++i) {
      // Bits, so NaN payloads and -0.0 count.
      if (e.ElementToString(i) == a.ElementToString(i) && e.GetBits(i) == a.GetBits(i)) continue;
      ADD_FAILURE() << (leaf == 0 ? "value " : "index ") << i << ": expected "
                    << e.ElementToString(i) << ", got " << a.ElementToString(i);
      ++shown;
    }
  }
}

// Few distinct values (ties), with NaN, -NaN, -0.0, 0.0 and infinities.
void SpecialFloats(Literal& x) {
  const double specials[] = {NAN, -NAN, -0.0, 0.0, INFINITY, -INFINITY};
  for (int64_t i = 0; i < x.element_count(); ++i) {
    if (i % 5 == 2) {
      x.SetDouble(i, specials[(i / 5) % 6]);
    } else {
      x.SetDouble(i, std::round(x.GetDouble(i) * 6) / 4);
    }
  }
}

// Integers in [0, 4): long runs of equal keys.
void FewInts(Literal& x) {
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetInt(i, (i * 7919 + i / 3) % 4);
}

TEST(HostTopKKernel, F32SpecialsAndTiesLargestAndSmallest) {
  for (bool largest : {true, false}) {
    for (int64_t k : {1, 5, 16}) {
      SCOPED_TRACE(absl::StrCat("largest=", largest, " k=", k));
      CheckTopK(TopKModule("f32", "3,257", absl::StrCat("3,", k), k, largest), SpecialFloats);
    }
  }
}

TEST(HostTopKKernel, KEqualsNOnOddRows) {
  for (int64_t n : {1, 7, 33}) {
    SCOPED_TRACE(absl::StrCat("n=", n));
    CheckTopK(TopKModule("f32", absl::StrCat("5,", n), absl::StrCat("5,", n), n, true),
              SpecialFloats);
    CheckTopK(TopKModule("f32", absl::StrCat(n), absl::StrCat(n), n, false), SpecialFloats);
  }
}

TEST(HostTopKKernel, HalfPrecisionRank3) {
  CheckTopK(TopKModule("bf16", "2,3,101", "2,3,9", 9, true), SpecialFloats);
  CheckTopK(TopKModule("f16", "2,3,101", "2,3,9", 9, false), SpecialFloats);
  CheckTopK(TopKModule("f64", "4,65", "4,3", 3, true), SpecialFloats);
}

TEST(HostTopKKernel, IntegersKeepTheLowerIndexFirst) {
  CheckTopK(TopKModule("s32", "3,100", "3,11", 11, true), FewInts);
  CheckTopK(TopKModule("s8", "3,100", "3,11", 11, false), [](Literal& x) {
    for (int64_t i = 0; i < x.element_count(); ++i) x.SetInt(i, (i * 37) % 11 - 5);
  });
  CheckTopK(TopKModule("u32", "2,50", "2,6", 6, true), [](Literal& x) {
    // Values with the top bit set must rank above small ones (unsigned).
    for (int64_t i = 0; i < x.element_count(); ++i) {
      x.SetInt(i, (i % 3 == 0) ? int64_t{0x80000000} + i : i);
    }
  });
}

// Every element better than the ones before it: each one is inserted at
// the front, shifting all k kept ones (the O(n k) case).
TEST(HostTopKKernel, AscendingInputForLargestShiftsEveryTime) {
  CheckTopK(TopKModule("f32", "2,300", "2,128", 128, true), [](Literal& x) {
    for (int64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, static_cast<double>(i % 300));
  });
}

// An element-wise producer computed inside the kernel.
TEST(HostTopKKernel, FusedNegate) {
  const std::string text = R"(HloModule m
fused {
  x = f32[4,1000] parameter(0)
  n = f32[4,1000] negate(x)
  ROOT t = (f32[4,5], s32[4,5]) topk(n), k=5, largest=true
}
ENTRY e {
  x = f32[4,1000] parameter(0)
  ROOT f = (f32[4,5], s32[4,5]) fusion(x), kind=kLoop, calls=fused
}
)";
  CheckTopK(text, SpecialFloats);
}

}  // namespace
}  // namespace xla::gpu
