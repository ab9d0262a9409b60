// Test-only helpers shared by the host and NVPTX fusion emitter tests: the
// reducer computations their HLO uses, a module builder around one fused
// computation, and the cases both emitters are tested on (in-place updates,
// loops, reductions, normalizations, transposes), so each case is written
// once.
//
// Thread-safe (pure functions and constants).
#ifndef XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_TEST_UTIL_H_
#define XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "xla/hlo/ir/hlo_module.h"

namespace xla::gpu {

// Reducers: add, max, mul (f32), add_bf16, add_s32, argmax ((f32, s32)).
extern const char kFusionTestReducers[];

// "HloModule m", the reducers, `fused {<fused>}` and `ENTRY e {<entry>}`.
std::string FusionTestModuleText(const std::string& fused, const std::string& entry);

// Parses FusionTestModuleText; on a parse error records a gtest failure
// (with the error and the text) and returns null.
std::unique_ptr<HloModule> ParseFusionTestModule(const std::string& fused,
                                                 const std::string& entry);

// Root dynamic-update-slice of parameter 0 (f32[37,129]) by exp of a
// f32[5,17] update at s32 starts (parameters 2 and 3), and its entry.
extern const char kFusionTestDusFused[];
extern const char kFusionTestDusEntry[];

// Root scatter-add of squared f32[6,7] rows into f32[11,7] at s32[6,1]
// indices, and its entry.
extern const char kFusionTestScatterFused[];
extern const char kFusionTestScatterEntry[];

// A fused computation and the entry that calls it (FusionTestModuleText),
// for the cases both emitters are tested on.
struct FusionTestCase {
  const char* fused;
  const char* entry;
};
// f32[37,129] -> f32[37]: the sum of squares of each row.
extern const FusionTestCase kFusionTestRowSumOfSquares;
// f32[37,129] -> (f32[37], s32[37]): a variadic argmax reduce per row.
extern const FusionTestCase kFusionTestRowArgmax;
// (f32[13,5], s32[13,5]) -> same: a variadic argmax scatter of 9 windows of
// 3 columns (a fused negate on the scores), 2-wide index vectors.
extern const FusionTestCase kFusionTestVariadicScatterArgmax;
// f32[129,37] -> (f32[37], f32[37]): the sum and the max of each column.
extern const FusionTestCase kFusionTestColumnSumAndMax;
// f32[5,6,7] -> f32[6]: a sum over the outer and the inner dim.
extern const FusionTestCase kFusionTestGenericReduce;
// f32[37,129]: a softmax along the rows.
extern const FusionTestCase kFusionTestSoftmax;
// f32[37,129] -> f32[129,37]: the negated transpose.
extern const FusionTestCase kFusionTestTranspose;
// s32[37,3,129] -> s32[129,37,3]: a rank-3 transpose.
extern const FusionTestCase kFusionTestTranspose3d;
// f32[37,129] a, f32[129] b -> (a + broadcast(b)) * a.
extern const FusionTestCase kFusionTestLoopBroadcast;

// A whole module for a max-pool gradient: computations `ge` (f32 select)
// and `add`, `fused {<fused>}` over x = f32[2,9,7,3] and g = f32[2,5,4,3],
// and the entry that calls it.
std::string FusionTestMaxPoolGradModule(const std::string& fused);

// A case whose sizes the test chooses: the fused computation and its entry.
struct FusionTestCaseText {
  std::string fused;
  std::string entry;
};

// f32[13,cols] layer norm of the rows (times f32[cols] g), with the row
// means as a second output.
FusionTestCaseText FusionTestLayerNorm(int64_t cols);

// f32[3,11,cols] -> (f32[3,11], f32[3,11]): the sum and the max along the
// minor dim.
FusionTestCaseText FusionTestRowSumAndMax(int64_t cols);

// f32[1001] -> f32[]: reduce with init constant `init` and the reducer
// named `reducer` (kFusionTestReducers).
FusionTestCaseText FusionTestWholeReduction(const std::string& init, const std::string& reducer);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_TEST_UTIL_H_
