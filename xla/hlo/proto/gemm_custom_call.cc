#include "xla/hlo/proto/gemm_custom_call.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "xla/hlo/ir/backend_config_text.h"
#include "xla/hlo/proto/gemm_backend_config.pb.h"
#include "xla/util/status_macros.h"

namespace xla::gemm {
namespace {

template <typename... Args>
absl::Status Refuse(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(absl::StrCat("custom-call '", instr.name(), "' (",
                                                 instr.GetString(AttrId::kCustomCallTarget),
                                                 "): ", pieces...));
}

// The epilogues this reader knows: bias added or not, then the activation.
struct EpilogueRow {
  const char* name;
  bool bias;
  GemmActivation activation;
};
constexpr EpilogueRow kEpilogues[] = {
    {"", false, GemmActivation::kNone},          {"DEFAULT", false, GemmActivation::kNone},
    {"BIAS", true, GemmActivation::kNone},       {"RELU", false, GemmActivation::kRelu},
    {"BIAS_RELU", true, GemmActivation::kRelu},  {"GELU", false, GemmActivation::kGelu},
    {"BIAS_GELU", true, GemmActivation::kGelu},
};

absl::StatusOr<GemmBackendConfig> ParseConfig(const HloInstruction& instr) {
  const std::string text = BackendConfigText(instr);
  if (text.empty()) return Refuse(instr, "needs a backend_config holding a GemmBackendConfig");
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  GemmCustomCallBackendConfig wrapped;
  auto status = google::protobuf::util::JsonStringToMessage(text, &wrapped, options);
  if (!status.ok()) {
    return Refuse(instr, "backend_config is not a GemmBackendConfig in JSON (",
                  std::string(status.message()), "): ", text.substr(0, 200));
  }
  if (wrapped.has_gemm_backend_config()) return wrapped.gemm_backend_config();
  GemmBackendConfig config;
  status = google::protobuf::util::JsonStringToMessage(text, &config, options);
  if (!status.ok()) {
    return Refuse(instr, "backend_config is not a GemmBackendConfig in JSON (",
                  std::string(status.message()), ")");
  }
  return config;
}

bool IsF32Scalar(const Shape& s) {
  return s.IsArray() && s.element_type() == PrimitiveType::F32 && s.rank() == 0;
}

// The FP8 call's scales are f32 scalars and its result is not fp8 (an fp8
// result also takes c and d scales, which this reader does not know).
absl::Status CheckFp8Call(const HloInstruction& instr, const GemmCall& call) {
  for (int64_t i : {call.a_scale_operand, call.b_scale_operand}) {
    if (!IsF32Scalar(instr.operand(i)->shape())) {
      return Refuse(instr, "operand ", i, " (a scale) must be an f32 scalar, got ",
                    instr.operand(i)->shape().ToString(false));
    }
  }
  const Shape& shape = instr.shape();
  const Shape& result = shape.IsTuple() && shape.tuple_shapes_size() > 0 ? shape.tuple_shapes(0)
                                                                         : shape;
  const PrimitiveType t = result.IsArray() ? result.element_type() : PrimitiveType::TUPLE;
  if (t != PrimitiveType::F16 && t != PrimitiveType::BF16 && t != PrimitiveType::F32) {
    return Refuse(instr, "an FP8 GEMM's result must be f16, bf16 or f32 (fp8 results, with c and "
                         "d scales, are not supported), got ",
                  result.ToString(false));
  }
  return absl::OkStatus();
}

std::vector<int64_t> ToVector(const google::protobuf::RepeatedField<int64_t>& f) {
  return std::vector<int64_t>(f.begin(), f.end());
}

}  // namespace

bool IsGemmCustomCallTarget(absl::string_view target) {
  return target == "__cublas$gemm" || target == "__cublas$lt$matmul" || target == kFp8GemmTarget;
}

absl::StatusOr<GemmCall> ReadGemmCustomCall(const HloInstruction& instr) {
  absl::StatusOr<GemmBackendConfig> parsed = ParseConfig(instr);
  if (!parsed.ok()) return parsed.status();
  const GemmBackendConfig& config = *parsed;
  const EpilogueRow* row = nullptr;
  for (const EpilogueRow& r : kEpilogues) {
    if (config.epilogue() == r.name) row = &r;
  }
  if (row == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "custom-call '", instr.name(), "': GEMM epilogue '", config.epilogue(),
        "' is not supported (DEFAULT, BIAS, RELU, BIAS_RELU, GELU and BIAS_GELU are); "
        "dump the program before XLA's GEMM rewriting to compile it"));
  }
  if (config.alpha_imag() != 0) {
    return Refuse(instr, "alpha with an imaginary part (", config.alpha_imag(),
                  ") is not supported");
  }
  GemmCall call;
  call.alpha = config.alpha_real();
  call.beta = config.beta();
  const GemmDotDimensionNumbers& dims = config.dot_dimension_numbers();
  call.lhs_batch = ToVector(dims.lhs_batch_dimensions());
  call.lhs_contracting = ToVector(dims.lhs_contracting_dimensions());
  call.rhs_batch = ToVector(dims.rhs_batch_dimensions());
  call.rhs_contracting = ToVector(dims.rhs_contracting_dimensions());
  for (const std::string& p : config.precision_config().operand_precision()) {
    call.operand_precision.push_back(p);
  }
  call.has_bias = row->bias;
  call.activation = row->activation;
  const bool fp8 = instr.GetString(AttrId::kCustomCallTarget) == kFp8GemmTarget;
  int64_t next = 2;
  if (call.beta != 0) call.c_operand = next++;
  if (fp8) {
    call.a_scale_operand = next++;
    call.b_scale_operand = next++;
  }
  if (call.has_bias) call.bias_operand = next++;
  if (instr.operand_count() != next) {
    return Refuse(instr, "expects ", next, " operands (a, b", call.beta != 0 ? ", c" : "",
                  fp8 ? ", a_scale, b_scale" : "", call.has_bias ? ", bias" : "", ") for beta=",
                  call.beta, " and epilogue '", config.epilogue(), "', got ",
                  instr.operand_count());
  }
  if (fp8) RETURN_IF_ERROR(CheckFp8Call(instr, call));
  const Shape& a = instr.operand(0)->shape();
  const Shape& b = instr.operand(1)->shape();
  if (!a.IsArray() || !b.IsArray() || call.lhs_batch.size() != call.rhs_batch.size() ||
      call.lhs_contracting.size() != call.rhs_contracting.size()) {
    return Refuse(instr, "dot_dimension_numbers do not fit operands ", a.ToString(false), " and ",
                  b.ToString(false));
  }
  auto fits = [](const std::vector<int64_t>& dims, const Shape& s) {
    for (int64_t d : dims) {
      if (d < 0 || d >= s.rank()) return false;
    }
    return true;
  };
  bool ok = fits(call.lhs_batch, a) && fits(call.lhs_contracting, a) && fits(call.rhs_batch, b) &&
            fits(call.rhs_contracting, b);
  for (size_t i = 0; ok && i < call.lhs_batch.size(); ++i) {
    ok = a.dimensions(call.lhs_batch[i]) == b.dimensions(call.rhs_batch[i]);
  }
  for (size_t i = 0; ok && i < call.lhs_contracting.size(); ++i) {
    ok = a.dimensions(call.lhs_contracting[i]) == b.dimensions(call.rhs_contracting[i]);
  }
  if (!ok) {
    return Refuse(instr, "dot_dimension_numbers do not fit operands ", a.ToString(false), " and ",
                  b.ToString(false));
  }
  return call;
}

}  // namespace xla::gemm
