#include "xla/hlo/verifier/hlo_verifier.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/verifier/element_type_rules.h"
#include "xla/hlo/verifier/shape_inference.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

constexpr size_t kMaxErrors = 100;

// Collects error messages, keeping the first kMaxErrors.
class ErrorList {
 public:
  template <typename... Args>
  void Add(const Args&... pieces) {
    if (errors_.size() < kMaxErrors) {
      errors_.push_back(absl::StrCat(pieces...));
    } else {
      ++dropped_;
    }
  }
  void AddStatus(const absl::Status& s) {
    if (!s.ok()) Add(s.message());
  }
  size_t size() const { return errors_.size() + dropped_; }
  // `file`, when not empty, starts every line that does not name a source
  // location already.
  absl::Status ToStatus(absl::string_view file = "") const {
    if (errors_.empty()) return absl::OkStatus();
    std::string text;
    for (const std::string& e : errors_) {
      if (!text.empty()) text += "\n";
      if (!file.empty() && !absl::StartsWith(e, absl::StrCat(file, ":"))) {
        absl::StrAppend(&text, file, ": ");
      }
      text += e;
    }
    if (dropped_ > 0) absl::StrAppend(&text, "\n... and ", dropped_, " more errors");
    return absl::InvalidArgumentError(text);
  }

 private:
  std::vector<std::string> errors_;
  size_t dropped_ = 0;
};

// `file:line:col: ` where the instruction was written, when known.
std::string SourcePrefix(const HloInstruction& instr) {
  const HloInstruction::SourceLocation& loc = instr.source_location();
  if (!loc.known()) return "";
  const HloComputation* comp = instr.parent();
  const HloModule* module = comp == nullptr ? nullptr : comp->parent();
  const std::string file =
      module == nullptr || module->source_file().empty() ? "<text>" : module->source_file();
  return absl::StrCat(file, ":", loc.line, ":", loc.column, ": ");
}

std::string Describe(const HloInstruction& instr) {
  return absl::StrCat(SourcePrefix(instr), "instruction '", instr.name(), "' (",
                      HloOpcodeName(instr.opcode()), ")");
}

std::string Describe(const HloComputation& comp) {
  return absl::StrCat("computation '", comp.name(), "'");
}

// Checks root, parameters, parents and operand membership. Returns false
// when instruction-level checks would read operands that are not sound.
bool CheckStructure(const HloComputation& comp, ErrorList* errors) {
  const size_t before = errors->size();
  absl::flat_hash_set<const HloInstruction*> members;
  for (const auto& instr : comp.instructions()) members.insert(instr.get());
  const HloInstruction* root = comp.root_instruction();
  if (root == nullptr) {
    errors->Add(Describe(comp), " has no root instruction");
  } else if (!members.contains(root)) {
    errors->Add(Describe(comp), ": root '", root->name(), "' is not one of its instructions");
  }
  absl::flat_hash_map<int64_t, const HloInstruction*> params;
  for (const auto& instr : comp.instructions()) {
    if (instr->opcode() != HloOpcode::kParameter) continue;
    const int64_t n = instr->parameter_number();
    if (n < 0) {
      errors->Add(Describe(*instr), ": negative parameter number ", n);
    } else if (auto [it, inserted] = params.emplace(n, instr.get()); !inserted) {
      errors->Add(Describe(comp), ": parameter number ", n, " is used by both '",
                  it->second->name(), "' and '", instr->name(), "'");
    }
  }
  for (int64_t i = 0; i < static_cast<int64_t>(params.size()); ++i) {
    if (!params.contains(i)) {
      errors->Add(Describe(comp), ": parameter numbers must be 0..", params.size() - 1,
                  " without gaps, but ", i, " is missing");
      break;
    }
  }
  absl::flat_hash_set<absl::string_view> names;
  for (const auto& instr : comp.instructions()) {
    if (!names.insert(instr->name()).second) {
      errors->Add(Describe(comp), ": instruction name '", instr->name(), "' is used twice");
    }
    if (instr->parent() != &comp) {
      errors->Add(Describe(*instr), " does not have ", Describe(comp), " as its parent");
    }
    for (int64_t i = 0; i < instr->operand_count(); ++i) {
      const HloInstruction* op = instr->operand(i);
      if (op == nullptr || !members.contains(op)) {
        errors->Add(Describe(*instr), ": operand ", i, " '", op == nullptr ? "null" : op->name(),
                    "' is not in ", Describe(comp));
      }
    }
    for (const HloInstruction* pred : instr->control_predecessors()) {
      if (pred == nullptr || !members.contains(pred)) {
        errors->Add(Describe(*instr), ": control predecessor '",
                    pred == nullptr ? "null" : pred->name(), "' is not in ", Describe(comp));
      }
    }
  }
  return errors->size() == before;
}

// Reports the first instruction that depends on itself.
void CheckAcyclic(const HloComputation& comp, ErrorList* errors) {
  std::vector<HloInstruction*> order = comp.MakePostOrder();
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  for (const HloInstruction* instr : order) {
    std::vector<const HloInstruction*> inputs(instr->operands().begin(),
                                              instr->operands().end());
    inputs.insert(inputs.end(), instr->control_predecessors().begin(),
                  instr->control_predecessors().end());
    for (const HloInstruction* input : inputs) {
      if (position[input] >= position[instr]) {
        errors->Add(Describe(*instr), ": depends on '", input->name(),
                    "', which depends on it in turn (cycle in ", Describe(comp), ")");
        return;
      }
    }
  }
}

void VerifyComputationInto(const HloComputation& comp, ErrorList* errors) {
  if (!CheckStructure(comp, errors)) return;
  CheckAcyclic(comp, errors);
  for (const auto& instr : comp.instructions()) errors->AddStatus(VerifyInstruction(*instr));
}

// Module-level checks on computations: names, parents, called computations.
void CheckCallGraph(const HloModule& module, ErrorList* errors) {
  absl::flat_hash_set<const HloComputation*> members;
  absl::flat_hash_set<std::string> names;
  for (const auto& comp : module.computations()) {
    members.insert(comp.get());
    if (!names.insert(comp->name()).second) {
      errors->Add("module '", module.name(), "' has two computations named '", comp->name(),
                  "'");
    }
    if (comp->parent() != &module) errors->Add(Describe(*comp), " has another parent module");
  }
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    errors->Add("module '", module.name(), "' has no entry computation");
  } else if (!members.contains(entry)) {
    errors->Add("entry ", Describe(*entry), " is not in module '", module.name(), "'");
  }
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        if (callee == nullptr || !members.contains(callee)) {
          errors->Add(Describe(*instr), " calls a computation that is not in module '",
                      module.name(), "'");
        } else if (callee == entry) {
          errors->Add(Describe(*instr), " calls the entry ", Describe(*callee));
        }
      }
    }
  }
}

// Reports one call cycle, if any (depth-first search with three colors).
void CheckNoCallCycle(const HloModule& module, ErrorList* errors) {
  enum class Color { kWhite, kGray, kBlack };
  absl::flat_hash_map<const HloComputation*, Color> color;
  for (const auto& comp : module.computations()) color[comp.get()] = Color::kWhite;
  // (computation, callees not yet visited)
  std::vector<std::pair<const HloComputation*, std::vector<const HloComputation*>>> stack;
  auto callees = [&](const HloComputation* c) {
    std::vector<const HloComputation*> out;
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        if (color.contains(callee)) out.push_back(callee);
      }
    }
    return out;
  };
  for (const auto& root : module.computations()) {
    if (color[root.get()] != Color::kWhite) continue;
    color[root.get()] = Color::kGray;
    stack.push_back({root.get(), callees(root.get())});
    while (!stack.empty()) {
      auto& [comp, pending] = stack.back();
      if (pending.empty()) {
        color[comp] = Color::kBlack;
        stack.pop_back();
        continue;
      }
      const HloComputation* next = pending.back();
      pending.pop_back();
      if (color[next] == Color::kGray) {
        errors->Add(Describe(*next), " calls itself (call graph cycle)");
        return;
      }
      if (color[next] == Color::kWhite) {
        color[next] = Color::kGray;
        stack.push_back({next, callees(next)});
      }
    }
  }
}

void CheckEntryLayout(const HloModule& module, ErrorList* errors) {
  const auto& layout = module.config().entry_computation_layout;
  const HloComputation* entry = module.entry_computation();
  if (!layout.has_value() || entry == nullptr) return;
  const int64_t n = static_cast<int64_t>(layout->parameters.size());
  if (n != entry->num_parameters()) {
    errors->Add("entry_computation_layout has ", n, " parameters but entry ", Describe(*entry),
                " has ", entry->num_parameters());
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* p = entry->parameter_instruction(i);
    if (p != nullptr && !ShapesCompatible(layout->parameters[i], p->shape(), true)) {
      errors->Add("entry_computation_layout parameter ", i, " is ",
                  layout->parameters[i].ToString(false), " but parameter '", p->name(), "' is ",
                  p->shape().ToString(false));
    }
  }
  const HloInstruction* root = entry->root_instruction();
  if (root != nullptr && !ShapesCompatible(layout->result, root->shape(), true)) {
    errors->Add("entry_computation_layout result is ", layout->result.ToString(false),
                " but the entry root '", root->name(), "' is ", root->shape().ToString(false));
  }
}

}  // namespace

absl::Status VerifyInstruction(const HloInstruction& instr) {
  const int arity = HloOpcodeArity(instr.opcode());
  if (arity != kVariadic && instr.operand_count() != arity) {
    return absl::InvalidArgumentError(absl::StrCat(Describe(instr), ": takes ", arity,
                                                   " operands, got ", instr.operand_count()));
  }
  RETURN_IF_ERROR(CheckElementTypes(instr));
  absl::StatusOr<Shape> inferred = InferShape(instr, /*shape_declared=*/true);
  if (!inferred.ok()) {
    // Shape inference names the instruction first; say which opcode it is.
    absl::string_view message = inferred.status().message();
    const std::string prefix = absl::StrCat(instr.name(), ": ");
    if (absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
    return absl::InvalidArgumentError(absl::StrCat(Describe(instr), ": ", message));
  }
  if (!ShapesCompatible(*inferred, instr.shape(), /*ignore_dynamic=*/true)) {
    return absl::InvalidArgumentError(absl::StrCat(Describe(instr), ": inferred shape ",
                                                   inferred->ToString(false), " but declared ",
                                                   instr.shape().ToString(false)));
  }
  return absl::OkStatus();
}

absl::Status VerifyComputation(const HloComputation& computation) {
  ErrorList errors;
  VerifyComputationInto(computation, &errors);
  return errors.ToStatus();
}

absl::Status VerifyModule(const HloModule& module) {
  ErrorList errors;
  CheckCallGraph(module, &errors);
  CheckNoCallCycle(module, &errors);
  CheckEntryLayout(module, &errors);
  for (const auto& comp : module.computations()) VerifyComputationInto(*comp, &errors);
  return errors.ToStatus(module.source_file());
}

}  // namespace xla
