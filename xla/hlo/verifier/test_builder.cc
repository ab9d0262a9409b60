#include "xla/hlo/verifier/test_builder.h"

#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/literal.h"
#include "xla/util/logging.h"

namespace xla::hlo_test {
namespace {

Shape ParseShape(absl::string_view* text) {
  if (!text->empty() && text->front() == '(') {
    text->remove_prefix(1);
    std::vector<Shape> elements;
    while (!text->empty() && text->front() != ')') {
      elements.push_back(ParseShape(text));
      if (!text->empty() && text->front() == ',') text->remove_prefix(1);
      while (!text->empty() && text->front() == ' ') text->remove_prefix(1);
    }
    XLA_CHECK(!text->empty()) << "unterminated tuple shape";
    text->remove_prefix(1);
    return Shape::Tuple(elements);
  }
  size_t bracket = text->find('[');
  XLA_CHECK(bracket != absl::string_view::npos) << "no '[' in shape " << *text;
  absl::string_view type_name = text->substr(0, bracket);
  text->remove_prefix(bracket + 1);
  size_t close = text->find(']');
  XLA_CHECK(close != absl::string_view::npos) << "no ']' in shape";
  absl::string_view dims = text->substr(0, close);
  text->remove_prefix(close + 1);
  if (type_name == "token") return Shape::Token();
  std::optional<PrimitiveType> type = PrimitiveTypeFromName(type_name);
  XLA_CHECK(type.has_value()) << "unknown type " << type_name;
  Shape s = Shape::Array(*type, {});
  while (!dims.empty()) {
    size_t comma = dims.find(',');
    absl::string_view d = dims.substr(0, comma);
    dims = comma == absl::string_view::npos ? absl::string_view() : dims.substr(comma + 1);
    if (d == "?") {
      s.add_dimension(kUnboundedSize);
      continue;
    }
    const bool bounded = d.size() > 2 && d.substr(0, 2) == "<=";
    if (bounded) d.remove_prefix(2);
    int64_t size = 0;
    XLA_CHECK(absl::SimpleAtoi(d, &size)) << "bad dimension " << d;
    s.add_dimension(size, bounded);
  }
  s.SetDefaultLayout();
  return s;
}

}  // namespace

Shape S(absl::string_view text) {
  absl::string_view rest = text;
  Shape s = ParseShape(&rest);
  XLA_CHECK(rest.empty()) << "trailing text in shape " << text;
  return s;
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
