#include "xla/hlo/proto/onednn_layer_norm_call.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "xla/hlo/ir/backend_config_text.h"
#include "xla/hlo/proto/onednn_norm_config.pb.h"
#include "xla/util/status_macros.h"

namespace xla::onednn {
namespace {

template <typename... Args>
absl::Status Refuse(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(
      absl::StrCat("custom-call '", instr.name(), "' (", kLayerNormTarget, "): ", pieces...));
}

bool IsNormType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32;
}

absl::StatusOr<OneDnnNormConfig> ParseConfig(const HloInstruction& instr) {
  const std::string text = BackendConfigText(instr);
  if (text.empty()) {
    return Refuse(instr, "needs a backend_config holding {\"onednn_layer_norm_config\": ...}");
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  OneDnnLayerNormBackendConfig wrapped;
  auto status = google::protobuf::util::JsonStringToMessage(text, &wrapped, options);
  if (!status.ok() || !wrapped.has_onednn_layer_norm_config()) {
    return Refuse(instr, "backend_config is not {\"onednn_layer_norm_config\": OneDnnNormConfig} "
                         "in JSON (",
                  status.ok() ? "no onednn_layer_norm_config" : std::string(status.message()),
                  "): ", text.substr(0, 200));
  }
  return wrapped.onednn_layer_norm_config();
}

absl::Status CheckConfig(const HloInstruction& instr, const OneDnnNormConfig& config) {
  if (config.rescale() != "SCALE_AND_SHIFT") {
    return absl::UnimplementedError(absl::StrCat(
        "custom-call '", instr.name(), "' (", kLayerNormTarget, "): rescale '", config.rescale(),
        "' is not supported (SCALE_AND_SHIFT is, the one XLA:CPU emits); dump the program "
        "before XLA:CPU's oneDNN rewriting to compile it"));
  }
  if (config.fusions().ops_size() > 0) {
    return absl::UnimplementedError(absl::StrCat(
        "custom-call '", instr.name(), "' (", kLayerNormTarget, "): fused operations [",
        absl::StrJoin(config.fusions().ops(), ", "),
        "] after the layer norm are not supported; dump the program before XLA:CPU's oneDNN "
        "rewriting to compile it"));
  }
  return absl::OkStatus();
}

absl::Status CheckOperands(const HloInstruction& instr) {
  if (instr.operand_count() != 3) {
    return Refuse(instr, "takes 3 operands (x, scale, shift), got ", instr.operand_count());
  }
  const Shape& x = instr.operand(0)->shape();
  const Shape& result = instr.shape();
  if (!result.IsArray() || !IsNormType(result.element_type()) || result.rank() == 0 ||
      !ShapesCompatible(x, result)) {
    return Refuse(instr, "x (operand 0) and the result must be one f16, bf16 or f32 shape of "
                         "rank >= 1, got ",
                  x.ToString(false), " and ", result.ToString(false));
  }
  const int64_t c = result.dimensions(result.rank() - 1);
  for (int64_t i : {1, 2}) {
    const Shape& v = instr.operand(i)->shape();
    if (!v.IsArray() || !IsNormType(v.element_type()) || v.rank() != 1 || v.dimensions(0) != c) {
      return Refuse(instr, i == 1 ? "scale" : "shift", " (operand ", i, ") must be a float [", c,
                    "] (x's last dimension), got ", v.ToString(false));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LayerNormCall> ReadLayerNormCall(const HloInstruction& instr) {
  ASSIGN_OR_RETURN(OneDnnNormConfig config, ParseConfig(instr));
  RETURN_IF_ERROR(CheckConfig(instr, config));
  RETURN_IF_ERROR(CheckOperands(instr));
  LayerNormCall call;
  call.epsilon = absl::bit_cast<float>(config.epsilon_typecast());
  if (!std::isfinite(call.epsilon) || call.epsilon < 0) {
    return Refuse(instr, "epsilon (epsilon_typecast ", config.epsilon_typecast(), ", the f32 ",
                  call.epsilon, ") must be finite and >= 0");
  }
  return call;
}

}  // namespace xla::onednn
