#include "xla/hlo/verifier/test_builder.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "xla/types/literal.h"
#include "xla/hlo/parser/shape_text.h"
#include "xla/util/logging.h"

namespace xla::hlo_test {
Shape S(absl::string_view text) {
  absl::StatusOr<Shape> s = ParseShapeText(text);
  XLA_CHECK(s.ok()) << s.status().message();
  Shape shape = *s;
  shape.SetDefaultLayout();
  return shape;
}

CompBuilder::CompBuilder(HloModule* module, std::string name) : module_(module) {
  comp_ = module->AddComputation(std::make_unique<HloComputation>(std::move(name)));
}

std::string CompBuilder::NextName(absl::string_view base) {
  // Module-wide numbering keeps names unique across computations.
  return absl::StrCat(base, ".", module_->NextUniqueId());
}

HloInstruction* CompBuilder::Param(absl::string_view shape, std::string name) {
  if (name.empty()) name = NextName("p");
  return comp_->AddInstruction(HloInstruction::CreateParameter(params_++, S(shape), name));
}

HloInstruction* CompBuilder::Op(HloOpcode op, absl::string_view shape,
                                std::vector<HloInstruction*> operands, std::string name) {
  if (name.empty()) name = NextName(HloOpcodeName(op));
  Shape s = shape.empty() ? Shape() : S(shape);
  return comp_->AddInstruction(HloInstruction::Create(op, s, std::move(operands), name));
}

HloInstruction* CompBuilder::Constant(absl::string_view shape, std::string name) {
  if (name.empty()) name = NextName("constant");
  return comp_->AddInstruction(HloInstruction::CreateConstant(Literal(S(shape)), name));
}

HloComputation* CompBuilder::Finish(HloInstruction* root, bool entry) {
  comp_->set_root_instruction(root);
  if (entry) module_->set_entry_computation(comp_);
  return comp_;
}

HloComputation* ScalarBinary(HloModule* module, absl::string_view type, HloOpcode op,
                             std::string name) {
  CompBuilder b(module, std::move(name));
  std::string scalar = absl::StrCat(type, "[]");
  HloInstruction* x = b.Param(scalar);
  HloInstruction* y = b.Param(scalar);
  return b.Finish(b.Op(op, scalar, {x, y}));
}

HloComputation* ScalarLess(HloModule* module, absl::string_view type, std::string name) {
  CompBuilder b(module, std::move(name));
  std::string scalar = absl::StrCat(type, "[]");
  HloInstruction* x = b.Param(scalar);
  HloInstruction* y = b.Param(scalar);
  HloInstruction* lt = b.Op(HloOpcode::kCompare, "pred[]", {x, y});
  lt->SetAttr(AttrId::kDirection, std::string("LT"));
  return b.Finish(lt);
}

}  // namespace xla::hlo_test
