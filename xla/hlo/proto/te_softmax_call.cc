#include "xla/hlo/proto/te_softmax_call.h"

#include <cstdint>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/ffi/ffi_attribute_parser.h"
#include "xla/hlo/ir/backend_config_text.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::te_softmax {
namespace {

namespace ffi = ::xla::gpu::ffi;

// The targets of TE's JAX bindings (transformer_engine/jax/csrc/extensions/
// pybind.cpp) and what each computes.
struct TargetRow {
  const char* name;
  bool backward;
  TeSoftmaxMask mask;
};
constexpr TargetRow kTargets[] = {
    {"te_scaled_softmax_forward_ffi", false, TeSoftmaxMask::kNone},
    {"te_scaled_softmax_backward_ffi", true, TeSoftmaxMask::kNone},
    {"te_scaled_masked_softmax_forward_ffi", false, TeSoftmaxMask::kOperand},
    // TE binds the masked backward to the plain one: the mask is in y.
    {"te_scaled_masked_softmax_backward_ffi", true, TeSoftmaxMask::kNone},
    {"te_scaled_upper_triang_masked_softmax_forward_ffi", false, TeSoftmaxMask::kCausal},
    {"te_scaled_upper_triang_masked_softmax_backward_ffi", true, TeSoftmaxMask::kCausal},
};

const TargetRow* FindTarget(absl::string_view target) {
  for (const TargetRow& row : kTargets) {
    if (target == row.name) return &row;
  }
  return nullptr;
}

template <typename... Args>
absl::Status Refuse(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(absl::StrCat("custom-call '", instr.name(), "' (",
                                                 instr.GetString(AttrId::kCustomCallTarget),
                                                 "): ", pieces...));
}

bool IsSoftmaxType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32;
}

bool IsMaskType(PrimitiveType t) {
  return t == PrimitiveType::U8 || t == PrimitiveType::S8 || t == PrimitiveType::PRED;
}

absl::StatusOr<double> ReadScale(const HloInstruction& instr) {
  const std::string text = BackendConfigText(instr);
  ffi::Attributes attributes;
  if (!text.empty()) {
    ASSIGN_OR_RETURN(attributes, gpu::ParseFfiAttributes(text, instr.name()));
  }
  auto it = attributes.find("scale_factor");
  if (it == attributes.end()) {
    return Refuse(instr, "missing attribute 'scale_factor' (f64); TE's calls carry "
                         "backend_config={scale_factor = ... : f64}");
  }
  const double* scale = std::get_if<double>(&it->second);
  if (scale == nullptr) {
    return Refuse(instr, "attribute 'scale_factor' must be a float (f64), is ",
                  ffi::AttributeKindName(ffi::KindOf(it->second)));
  }
  return static_cast<double>(static_cast<float>(*scale));
}

// Operands 0 .. n-1 (but a forward mask) and the result: one float shape.
absl::Status CheckValues(const HloInstruction& instr, int64_t values) {
  const Shape& result = instr.shape();
  if (!result.IsArray() || !IsSoftmaxType(result.element_type()) || result.rank() == 0) {
    return Refuse(instr, "the result must be an f16, bf16 or f32 array of rank >= 1, is ",
                  result.ToString(false));
  }
  for (int64_t i = 0; i < values; ++i) {
    if (!ShapesCompatible(instr.operand(i)->shape(), result)) {
      return Refuse(instr, "operand ", i, " has shape ", instr.operand(i)->shape().ToString(false),
                    ", expected the result's ", result.ToString(false));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckMask(const HloInstruction& instr) {
  const Shape& x = instr.operand(0)->shape();
  const Shape& mask = instr.operand(1)->shape();
  if (x.rank() < 3) {
    return Refuse(instr, "x must be [..., heads, q_seqlen, k_seqlen] (rank >= 3), is ",
                  x.ToString(false));
  }
  if (!mask.IsArray() || !IsMaskType(mask.element_type())) {
    return Refuse(instr, "the mask (operand 1) must be u8, is ", mask.ToString(false));
  }
  const int64_t r = x.rank(), m = mask.rank();
  const int64_t pad = m >= 3 ? Product(mask.dimensions(), 0, m - 3) : -1;
  if (m < 3 || mask.dimensions(m - 3) != 1 || mask.dimensions(m - 2) != x.dimensions(r - 2) ||
      mask.dimensions(m - 1) != x.dimensions(r - 1) ||
      (pad != 1 && pad != Product(x.dimensions(), 0, r - 3))) {
    return Refuse(instr, "the mask (operand 1) has shape ", mask.ToString(false),
                  "; for x ", x.ToString(false), " it must be [..., 1, ", x.dimensions(r - 2),
                  ", ", x.dimensions(r - 1), "] with leading dimensions of product 1 or ",
                  Product(x.dimensions(), 0, r - 3));
  }
  return absl::OkStatus();
}

absl::Status CheckCausal(const HloInstruction& instr) {
  const Shape& x = instr.shape();
  if (x.rank() < 2 || x.dimensions(x.rank() - 2) != x.dimensions(x.rank() - 1)) {
    return Refuse(instr, "an upper-triangular softmax needs [..., S, S] (square in the last two "
                         "dimensions), got ",
                  x.ToString(false));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsTeSoftmaxTarget(absl::string_view target) { return FindTarget(target) != nullptr; }

absl::StatusOr<TeSoftmaxCall> ReadTeSoftmaxCall(const HloInstruction& instr) {
  const TargetRow* row = FindTarget(instr.GetString(AttrId::kCustomCallTarget));
  if (row == nullptr) return Refuse(instr, "not a Transformer Engine softmax target");
  TeSoftmaxCall call;
  call.backward = row->backward;
  call.mask = row->mask;
  const bool has_mask = call.mask == TeSoftmaxMask::kOperand;
  const int64_t values = call.backward ? 2 : 1;
  const int64_t operands = values + (has_mask ? 1 : 0);
  if (instr.operand_count() != operands) {
    return Refuse(instr, "takes ", operands, " operands (",
                  call.backward ? "dy, y" : (has_mask ? "x, mask" : "x"), "), got ",
                  instr.operand_count());
  }
  ASSIGN_OR_RETURN(call.scale, ReadScale(instr));
  RETURN_IF_ERROR(CheckValues(instr, values));
  if (has_mask) RETURN_IF_ERROR(CheckMask(instr));
  if (call.mask == TeSoftmaxMask::kCausal) RETURN_IF_ERROR(CheckCausal(instr));
  return call;
}

}  // namespace xla::te_softmax
