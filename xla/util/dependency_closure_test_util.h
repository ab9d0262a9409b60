// Test-only: checks a dependency closure that a Bazel genquery wrote (one
// label per line), the way the runtime-separation tests prove that no
// compiler code reaches a runtime binary.
//
//   ExpectClosure("xla/aot/runtime_deps", kCompilerPrefixes,
//                 {"//xla/aot:executable"}, "the runtime");
//
// Thread-compatible (gtest assertions).
#ifndef XLA_UTIL_DEPENDENCY_CLOSURE_TEST_UTIL_H_
#define XLA_UTIL_DEPENDENCY_CLOSURE_TEST_UTIL_H_

#include <string>
#include <vector>

namespace xla::testing {

// Labels of compiler code: HLO IR, passes, code generation, the compiler
// backends and LLVM.
std::vector<std::string> CompilerLabelPrefixes();

// Reads $TEST_SRCDIR/xla_aot/<genquery_path> and adds a gtest failure for
// every label that starts with one of `forbidden` (naming the label and
// `what`), for every label of `required` that is missing, and when the file
// is missing or names 5 labels or fewer (a query that matched nothing).
void ExpectClosure(const std::string& genquery_path, const std::vector<std::string>& forbidden,
                   const std::vector<std::string>& required, const std::string& what);

}  // namespace xla::testing

#endif  // XLA_UTIL_DEPENDENCY_CLOSURE_TEST_UTIL_H_
