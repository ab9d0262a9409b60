// Test-only: HLO text of a module whose root is one Transformer Engine
// softmax custom call, for the reader's, the evaluator's and the rewrite's
// tests.
#ifndef XLA_HLO_PROTO_TE_SOFTMAX_TEST_UTIL_H_
#define XLA_HLO_PROTO_TE_SOFTMAX_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla::te_softmax {

// `ROOT sm = <result> custom-call(p0, p1, ...)` to `target`, the
// parameters declared with the given shapes in order, and `config` as the
// typed-FFI backend_config. Never fails; thread-safe.
inline std::string SoftmaxModule(const std::string& target, const std::vector<std::string>& params,
                                 const std::string& result, const std::string& config) {
  std::string body, args;
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&body, "  p", i, " = ", params[i], " parameter(", i, ")\n");
    absl::StrAppend(&args, i == 0 ? "" : ", ", "p", i);
  }
  return absl::StrCat("HloModule m\nENTRY e {\n", body, "  ROOT sm = ", result, " custom-call(",
                      args, "), custom_call_target=\"", target,
                      "\", api_version=API_VERSION_TYPED_FFI, backend_config=", config, "\n}\n");
}

}  // namespace xla::te_softmax

#endif  // XLA_HLO_PROTO_TE_SOFTMAX_TEST_UTIL_H_
