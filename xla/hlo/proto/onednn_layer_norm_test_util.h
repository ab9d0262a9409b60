// Test-only: HLO text of a module whose root is one `__onednn$layernorm`
// custom call, for the reader's, the evaluator's and the rewrite's tests.
#ifndef XLA_HLO_PROTO_ONEDNN_LAYER_NORM_TEST_UTIL_H_
#define XLA_HLO_PROTO_ONEDNN_LAYER_NORM_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace xla::onednn {

// The bits of the f32 `epsilon`, as XLA:CPU stores it in epsilon_typecast.
inline int32_t EpsilonBits(float epsilon) {
  int32_t bits;
  std::memcpy(&bits, &epsilon, sizeof(bits));
  return bits;
}

// The JSON config (escaped for an HLO string) with `fields` inside
// onednn_layer_norm_config, e.g. R"(\"rescale\":\"SCALE_AND_SHIFT\")".
inline std::string NormConfig(const std::string& fields) {
  return absl::StrCat("\"{\\\"onednn_layer_norm_config\\\":{", fields, "}}\"");
}

// The usual config: SCALE_AND_SHIFT with `epsilon`.
inline std::string ScaleAndShift(float epsilon) {
  return NormConfig(absl::StrCat("\\\"rescale\\\":\\\"SCALE_AND_SHIFT\\\",\\\"epsilon_typecast\\\":",
                                 EpsilonBits(epsilon)));
}

// `ROOT ln = <x> custom-call(x, scale, shift)` with x of shape `x`, scale
// and shift of shape `vector`, and backend_config `config`. Never fails;
// thread-safe.
inline std::string LayerNormModule(const std::string& x, const std::string& vector,
                                   const std::string& config) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", x, " parameter(0)\n  scale = ", vector,
                      " parameter(1)\n  shift = ", vector, " parameter(2)\n  ROOT ln = ", x,
                      " custom-call(x, scale, shift), custom_call_target=\"__onednn$layernorm\", "
                      "backend_config=",
                      config, "\n}\n");
}

}  // namespace xla::onednn

#endif  // XLA_HLO_PROTO_ONEDNN_LAYER_NORM_TEST_UTIL_H_
