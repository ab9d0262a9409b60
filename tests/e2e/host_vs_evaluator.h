// Test helpers for end-to-end checks of one HLO program: compiled for the
// host target and run against the reference evaluator, or compiled for an
// sm_XX target with ptxas accepting every kernel. Test-only: failures are
// reported through gtest (ADD_FAILURE / fatal assertions in the helper),
// nothing is returned. Thread-compatible (each call compiles its own
// artifact; the host executor is the shared test device).
#ifndef TESTS_E2E_HOST_VS_EVALUATOR_H_
#define TESTS_E2E_HOST_VS_EVALUATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla/types/literal.h"

namespace xla::e2e {

// Compiles `hlo` for the host (opt level 1, the portable CPU build only),
// runs it on `args` (random inputs from `seed` when empty) and compares
// every result leaf with the evaluator's (CompareOutputLeaf, as `xla_aot
// run --reference`).
void ExpectHostMatchesEvaluator(const std::string& hlo, std::vector<Literal> args = {},
                                uint64_t seed = 7);

// Compiles `hlo` for `target` ("sm_80", "sm_90", ...) and requires a
// cubin for every kernel (ptxas accepted each one).
void ExpectCompilesWithCubins(const std::string& hlo, const std::string& target);

}  // namespace xla::e2e

#endif  // TESTS_E2E_HOST_VS_EVALUATOR_H_
