#include "xla/service/canonicalize/convolution_canonicalizer.h"

#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using canonicalize::AddTranspose;
using canonicalize::InversePermutation;
using canonicalize::IsStaticShape;

const ConvDimLabels* LabelsOf(const HloInstruction& conv) {
  const AttrValue* v = conv.FindAttr(AttrId::kDimLabels);
  return v == nullptr ? nullptr : std::get_if<ConvDimLabels>(v);
}

// Position list [first, spatial..., last].
std::vector<int64_t> Order(int64_t first, const std::vector<int64_t>& spatial, int64_t last) {
  std::vector<int64_t> out = {first};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(last);
  return out;
}

// Position list [spatial..., a, b].
std::vector<int64_t> KernelOrder(const ConvDimLabels& l) {
  std::vector<int64_t> out = l.kernel_spatial;
  out.push_back(l.kernel_input_feature);
  out.push_back(l.kernel_output_feature);
  return out;
}

absl::StatusOr<HloInstruction*> RewriteConvolution(HloInstruction* conv, HloComputation* comp,
                                                   NameUniquer* names) {
  if (IsCanonicalConvolution(*conv)) return nullptr;
  const ConvDimLabels* labels = LabelsOf(*conv);
  const int64_t rank = conv->shape().IsArray() ? conv->shape().rank() : -1;
  if (labels == nullptr || conv->operand_count() != 2 ||
      static_cast<int64_t>(labels->input_spatial.size()) + 2 != rank ||
      conv->operand(0)->shape().rank() != rank || conv->operand(1)->shape().rank() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("convolution-canonicalizer: convolution '", conv->name(),
                     "' has missing or mismatched dim_labels; run the verifier"));
  }
  if (!IsStaticShape(conv->shape()) || !IsStaticShape(conv->operand(0)->shape()) ||
      !IsStaticShape(conv->operand(1)->shape())) {
    return nullptr;
  }
  const ConvDimLabels l = *labels;
  const int64_t spatial = rank - 2;
  HloInstruction* input = AddTranspose(comp, names, conv->operand(0),
                                       Order(l.input_batch, l.input_spatial, l.input_feature));
  HloInstruction* kernel = AddTranspose(comp, names, conv->operand(1), KernelOrder(l));
  // Canonical result dim c holds original result dim out_order[c].
  const std::vector<int64_t> out_order = Order(l.output_batch, l.output_spatial, l.output_feature);
  std::vector<int64_t> out_dims;
  for (int64_t d : out_order) out_dims.push_back(conv->shape().dimensions(d));
  std::unique_ptr<HloInstruction> clone =
      conv->CloneWithNewOperands(Shape::Array(conv->shape().element_type(), out_dims),
                                 {input, kernel}, names->Unique(conv->name()));
  ASSIGN_OR_RETURN(ConvDimLabels canonical, ParseConvDimLabels(CanonicalConvDimLabels(spatial)));
  clone->SetAttr(AttrId::kDimLabels, canonical);
  HloInstruction* new_conv = comp->AddInstruction(std::move(clone));
  HloInstruction* back = AddTranspose(comp, names, new_conv, InversePermutation(out_order));
  *back->mutable_shape() = conv->shape();  // keep the original layout
  return back;
}

}  // namespace

absl::StatusOr<bool> ConvolutionCanonicalizer::Run(HloModule* module) {
  return canonicalize::RewriteEach(module, HloOpcode::kConvolution, RewriteConvolution);
}

std::string CanonicalConvDimLabels(int64_t spatial_dims) {
  std::string digits;
  for (int64_t i = 0; i < spatial_dims; ++i) absl::StrAppend(&digits, i);
  return absl::StrCat("b", digits, "f_", digits, "io->b", digits, "f");
}

bool IsCanonicalConvolution(const HloInstruction& conv) {
  const ConvDimLabels* l = LabelsOf(conv);
  if (conv.opcode() != HloOpcode::kConvolution || l == nullptr) return false;
  const int64_t n = static_cast<int64_t>(l->input_spatial.size());
  for (int64_t i = 0; i < n; ++i) {
    if (l->input_spatial[i] != i + 1 || l->output_spatial[i] != i + 1 || l->kernel_spatial[i] != i) {
      return false;
    }
  }
  return l->input_batch == 0 && l->input_feature == n + 1 && l->output_batch == 0 &&
         l->output_feature == n + 1 && l->kernel_input_feature == n &&
         l->kernel_output_feature == n + 1;
}

}  // namespace xla
