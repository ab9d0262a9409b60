#include "xla/hlo/ir/hlo_instruction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/util/logging.h"

namespace xla {

HloInstruction::HloInstruction(HloOpcode opcode, std::string name, Shape shape)
    : opcode_(opcode), name_(std::move(name)), shape_(std::move(shape)) {}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(int64_t number, Shape shape,
                                                                std::string name) {
  auto instr = std::make_unique<HloInstruction>(HloOpcode::kParameter, std::move(name),
                                                std::move(shape));
  instr->parameter_number_ = number;
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(Literal literal,
                                                               std::string name) {
  Shape shape = literal.shape();
  auto instr =
      std::make_unique<HloInstruction>(HloOpcode::kConstant, std::move(name), std::move(shape));
  instr->literal_ = std::make_unique<Literal>(std::move(literal));
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::Create(HloOpcode opcode, Shape shape,
                                                       std::vector<HloInstruction*> operands,
                                                       std::string name) {
  auto instr = std::make_unique<HloInstruction>(opcode, std::move(name), std::move(shape));
  for (HloInstruction* op : operands) instr->AppendOperand(op);
  return instr;
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

void HloInstruction::ReplaceOperandWith(int64_t i, HloInstruction* operand) {
  HloInstruction* old = operands_[i];
  operands_[i] = operand;
  operand->AddUser(this);
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) {
    old->RemoveUser(this);
  }
}

void HloInstruction::AddControlPredecessor(HloInstruction* pred) {
  control_preds_.push_back(pred);
  pred->control_succs_.push_back(this);
}

void HloInstruction::DropControlEdges() {
  auto erase_from = [this](std::vector<HloInstruction*>& list) {
    list.erase(std::remove(list.begin(), list.end(), this), list.end());
  };
  for (HloInstruction* pred : control_preds_) erase_from(pred->control_succs_);
  for (HloInstruction* succ : control_succs_) erase_from(succ->control_preds_);
  control_preds_.clear();
  control_succs_.clear();
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* op : operands_) op->RemoveUser(this);
  operands_.clear();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  if (replacement == this) return absl::OkStatus();
  if (replacement->parent() != parent_) {
    return absl::InvalidArgumentError(absl::StrCat("cannot replace '", name_, "' with '",
                                                   replacement->name(),
                                                   "' from another computation"));
  }
  if (!ShapesCompatible(shape_, replacement->shape(), /*ignore_dynamic=*/true)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace '", name_, "' (", shape_.ToString(false), ") with '", replacement->name(),
        "' (", replacement->shape().ToString(false), "): shapes differ"));
  }
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) user->ReplaceOperand(this, replacement);
  if (parent_ != nullptr && parent_->root_instruction() == this) {
    parent_->set_root_instruction(replacement);
  }
  return absl::OkStatus();
}

void HloInstruction::ReplaceOperand(HloInstruction* old_operand, HloInstruction* new_operand) {
  bool replaced = false;
  for (HloInstruction*& op : operands_) {
    if (op == old_operand) {
      op = new_operand;
      replaced = true;
    }
  }
  if (!replaced) return;
  new_operand->AddUser(this);
  old_operand->RemoveUser(this);
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, const std::vector<HloInstruction*>& operands, std::string name) const {
  auto clone = std::make_unique<HloInstruction>(opcode_, std::move(name), shape);
  for (HloInstruction* op : operands) clone->AppendOperand(op);
  clone->parameter_number_ = parameter_number_;
  if (literal_ != nullptr) clone->literal_ = std::make_unique<Literal>(*literal_);
  clone->attrs_ = attrs_;
  clone->source_location_ = source_location_;
  return clone;
}

void HloInstruction::AddUser(HloInstruction* user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end()) users_.push_back(user);
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  users_.erase(std::remove(users_.begin(), users_.end(), user), users_.end());
}

void HloInstruction::set_literal(Literal literal) {
  literal_ = std::make_unique<Literal>(std::move(literal));
}

const AttrValue* HloInstruction::FindAttr(AttrId id) const {
  auto it = std::lower_bound(attrs_.begin(), attrs_.end(), id,
                             [](const auto& a, AttrId key) { return a.first < key; });
  if (it == attrs_.end() || it->first != id) return nullptr;
  return &it->second;
}

void HloInstruction::SetAttr(AttrId id, AttrValue value) {
  XLA_CHECK(AttrValueMatchesKind(id, value))
      << "attribute " << AttrName(id) << " set with a value of the wrong type";
  auto it = std::lower_bound(attrs_.begin(), attrs_.end(), id,
                             [](const auto& a, AttrId key) { return a.first < key; });
  if (it != attrs_.end() && it->first == id) {
    it->second = std::move(value);
    return;
  }
  attrs_.insert(it, {id, std::move(value)});
}

void HloInstruction::ClearAttr(AttrId id) {
  attrs_.erase(std::remove_if(attrs_.begin(), attrs_.end(),
                              [id](const auto& a) { return a.first == id; }),
               attrs_.end());
}

namespace {

template <typename T>
const T* GetAs(const AttrValue* v, AttrId id) {
  if (v == nullptr) return nullptr;
  const T* typed = std::get_if<T>(v);
  XLA_CHECK(typed != nullptr) << "attribute " << AttrName(id) << " read with the wrong type";
  return typed;
}

}  // namespace

int64_t HloInstruction::GetInt(AttrId id, int64_t default_value) const {
  const int64_t* v = GetAs<int64_t>(FindAttr(id), id);
  return v ? *v : default_value;
}

bool HloInstruction::GetBool(AttrId id, bool default_value) const {
  const bool* v = GetAs<bool>(FindAttr(id), id);
  return v ? *v : default_value;
}

double HloInstruction::GetFloat(AttrId id, double default_value) const {
  const double* v = GetAs<double>(FindAttr(id), id);
  return v ? *v : default_value;
}

const std::vector<int64_t>& HloInstruction::GetIntList(AttrId id) const {
  static const std::vector<int64_t>* empty = new std::vector<int64_t>();
  const auto* v = GetAs<std::vector<int64_t>>(FindAttr(id), id);
  return v ? *v : *empty;
}

const std::string& HloInstruction::GetString(AttrId id) const {
  static const std::string* empty = new std::string();
  const auto* v = GetAs<std::string>(FindAttr(id), id);
  return v ? *v : *empty;
}

HloComputation* HloInstruction::GetComputation(AttrId id) const {
  const AttrValue* v = FindAttr(id);
  if (v == nullptr) return nullptr;
  if (auto* c = std::get_if<HloComputation*>(v)) return *c;
  if (auto* list = std::get_if<std::vector<HloComputation*>>(v)) {
    return list->size() == 1 ? (*list)[0] : nullptr;
  }
  return nullptr;
}

std::vector<HloComputation*> HloInstruction::called_computations() const {
  std::vector<HloComputation*> out;
  for (const auto& [id, value] : attrs_) {
    if (auto* c = std::get_if<HloComputation*>(&value)) {
      out.push_back(*c);
    } else if (auto* list = std::get_if<std::vector<HloComputation*>>(&value)) {
      out.insert(out.end(), list->begin(), list->end());
    }
  }
  return out;
}

std::string HloInstruction::ToString() const {
  std::string out = absl::StrCat(name_, " = ", shape_.ToString(), " ", HloOpcodeName(opcode_), "(");
  if (opcode_ == HloOpcode::kParameter) {
    absl::StrAppend(&out, parameter_number_);
  } else if (opcode_ == HloOpcode::kConstant && literal_ != nullptr) {
    absl::StrAppend(&out, literal_->ToString());
  } else {
    std::vector<std::string> names;
    for (const HloInstruction* op : operands_) names.push_back(op->name());
    absl::StrAppend(&out, absl::StrJoin(names, ", "));
  }
  out += ")";
  bool control_printed = control_preds_.empty();
  auto print_control = [&] {
    std::vector<std::string> names;
    for (const HloInstruction* p : control_preds_) names.push_back(p->name());
    absl::StrAppend(&out, ", control-predecessors={", absl::StrJoin(names, ","), "}");
    control_printed = true;
  };
  for (const auto& [id, value] : attrs_) {
    if (!control_printed && id > AttrId::kControlPredecessors) print_control();
    absl::StrAppend(&out, ", ", AttrName(id), "=", AttrValueToString(id, value));
  }
  if (!control_printed) print_control();
  return out;
}

}  // namespace xla
