#include "xla/backends/gpu/compiler/rng_state_emitter.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/types/shape.h"
#include "xla/types/xla_data_convert.h"

namespace xla::gpu {
namespace {

constexpr int64_t kStateBytes = 16;

Shape StateShape() { return Shape::Array(PrimitiveType::U64, {2}); }

}  // namespace

BufferSlice AddRngStateAllocation(GpuExecutablePayloadProto* payload) {
  std::string content(kStateBytes, '\0');
  for (int byte = 0; byte < 8; ++byte) {  // little-endian low word; high word 0
    content[byte] = static_cast<char>((kRngStateInitialValue >> (8 * byte)) & 0xff);
  }
  ConstantProto* constant = payload->add_constants();
  constant->set_content(std::move(content));
  *constant->mutable_shape() = ShapeToProto(StateShape());
  BufferAllocationProto* allocation = payload->add_allocations();
  allocation->set_index(payload->allocations_size() - 1);
  allocation->set_size(kStateBytes);
  allocation->set_is_constant(true);
  allocation->set_constant_index(payload->constants_size() - 1);
  BufferSlice slice;
  slice.allocation = allocation->index();
  slice.size = kStateBytes;
  return slice;
}

absl::StatusOr<RngStateFusion> MakeRngStateFusion(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kRngGetAndUpdateState) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MakeRngStateFusion: '", instr.name(), "' is not a rng-get-and-update-state"));
  }
  RngStateFusion out;
  out.module = std::make_unique<HloModule>(absl::StrCat("scratch_", instr.name()));
  auto fused = std::make_unique<HloComputation>(absl::StrCat("fused_", instr.name()));
  fused->AddInstruction(HloInstruction::CreateParameter(0, StateShape(), "state"));
  HloInstruction* root =
      fused->AddInstruction(instr.CloneWithNewOperands(instr.shape(), {}, instr.name()));
  fused->set_root_instruction(root);
  HloComputation* callee = out.module->AddComputation(std::move(fused));

  auto entry = std::make_unique<HloComputation>(absl::StrCat("scratch_", instr.name()));
  HloInstruction* state =
      entry->AddInstruction(HloInstruction::CreateParameter(0, StateShape(), "state"));
  out.fusion = entry->AddInstruction(HloInstruction::Create(
      HloOpcode::kFusion, instr.shape(), std::vector<HloInstruction*>{state}, instr.name()));
  out.fusion->SetAttr(AttrId::kFusionKind, std::string("kLoop"));
  out.fusion->SetAttr(AttrId::kCalls, std::vector<HloComputation*>{callee});
  entry->set_root_instruction(out.fusion);
  out.module->set_entry_computation(out.module->AddComputation(std::move(entry)));
  return out;
}

}  // namespace xla::gpu
