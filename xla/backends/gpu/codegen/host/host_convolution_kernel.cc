#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include <algorithm>
#include <variant>

#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/window_gather_ir.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Convolution kernels: most output features per block (f64 accumulators on
// the stack, the vectorized inner loop).
constexpr int64_t kConvFeatureChunk = 128;

}  // namespace

absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanConvolution() {
  const HloInstruction* conv = computation_->root_instruction();
  const AttrValue* v = conv->FindAttr(AttrId::kDimLabels);
  const ConvDimLabels* labels = v == nullptr ? nullptr : std::get_if<ConvDimLabels>(v);
  if (labels == nullptr) return Unimplemented(conv, "convolution without dim_labels");
  const std::vector<int64_t> dims = leaves_[0].shape.dimensions();
  const int64_t fdim = labels->output_feature;
  if (fdim < 0 || fdim >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(conv, "output feature dimension out of range");
  }
  std::vector<int64_t> pixel_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != fdim) pixel_dims.push_back(dims[d]);
  }
  const int64_t features = dims[fdim];
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(features, kConvFeatureChunk));
  const int64_t chunks = CeilDiv(features, chunk);
  Segment s;
  s.blocks = Product(pixel_dims) * chunks;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* pixel = b_.CreateUDiv(block, b_.getInt64(chunks));
    llvm::Value* o0 =
        b_.CreateMul(b_.CreateURem(block, b_.getInt64(chunks)), b_.getInt64(chunk));
    llvm::Value* o1 = Min(b_.CreateAdd(o0, b_.getInt64(chunk)), b_.getInt64(features));
    std::vector<llvm::Value*> index = IrIndex::FromLinear(pixel, pixel_dims, &b_).multidim();
    index.insert(index.begin() + fdim, o0);
    const IrArray out = OutputArray(0);
    return EmitConvolutionFeatureBlock(
        emitter_, *conv, IrIndex(index, dims), o0, o1, chunk, gens_, &b_,
        [&](llvm::Value* o, llvm::Value* value) {
          std::vector<llvm::Value*> at = index;
          at[fdim] = o;
          out.EmitWriteElement(IrIndex(at, dims), value, &b_);
          return absl::OkStatus();
        });
  };
  return s;
}

}  // namespace xla::gpu
