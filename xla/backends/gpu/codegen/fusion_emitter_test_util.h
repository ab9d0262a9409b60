// Test-only helpers shared by the host and NVPTX fusion emitter tests: the
// reducer computations their HLO uses, a module builder around one fused
// computation, and the in-place update cases both emitters are tested on.
//
// Thread-safe (pure functions and constants).
#ifndef XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_TEST_UTIL_H_
#define XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_TEST_UTIL_H_

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

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_FUSION_EMITTER_TEST_UTIL_H_
