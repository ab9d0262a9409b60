#include "xla/hlo/transforms/entry_parameter_flattener.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

void AppendLeaves(const Shape& shape, std::vector<Shape>* out) {
  if (!shape.IsTuple()) {
    out->push_back(shape);
    return;
  }
  for (const Shape& e : shape.tuple_shapes()) AppendLeaves(e, out);
}

// Adds parameters for the leaves of `shape` (numbers from *next), and the
// tuples that rebuild it; returns the value of `shape`.
HloInstruction* AddLeafParameters(HloComputation* entry, const Shape& shape, const std::string& name,
                                  int64_t* next) {
  if (!shape.IsTuple()) {
    return entry->AddInstruction(
        HloInstruction::CreateParameter((*next)++, shape, entry->UniqueInstructionName(name)));
  }
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    elements.push_back(AddLeafParameters(entry, shape.tuple_shapes(i), absl::StrCat(name, ".", i), next));
  }
  return entry->AddInstruction(HloInstruction::Create(HloOpcode::kTuple, shape, std::move(elements),
                                                      entry->UniqueInstructionName(name + ".tuple")));
}

// The depth-first position of the leaf at `index` among the leaves of
// `shape`, or -1 when `index` names no leaf (an index into a tuple that is
// itself a tuple is not a single buffer).
int64_t LeafOffset(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* s = &shape;
  int64_t offset = 0;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_shapes_size()) return -1;
    for (int64_t k = 0; k < i; ++k) {
      std::vector<Shape> before;
      AppendLeaves(s->tuple_shapes(k), &before);
      offset += static_cast<int64_t>(before.size());
    }
    s = &s->tuple_shapes(i);
  }
  return s->IsTuple() ? -1 : offset;
}

// Rewrites (parameter_number, parameter_index) of an alias or donor to the
// leaf parameter it names; `first[p]` is old parameter p's first leaf.
absl::Status RemapParameter(const std::vector<HloInstruction*>& old_params,
                            const std::vector<int64_t>& first, int64_t* number,
                            std::vector<int64_t>* index) {
  if (*number < 0 || *number >= static_cast<int64_t>(old_params.size())) {
    return absl::FailedPreconditionError(
        absl::StrCat("entry-parameter-flattener: an alias names parameter ", *number,
                     ", which the entry does not have"));
  }
  const int64_t offset = LeafOffset(old_params[*number]->shape(), *index);
  if (offset < 0) {
    return absl::UnimplementedError(absl::StrCat(
        "entry-parameter-flattener: an alias or buffer donor names parameter ", *number, " at {",
        absl::StrJoin(*index, ","), "}, which is a tuple of ",
        old_params[*number]->shape().ToString(false), ", not one of its leaves"));
  }
  *number = first[*number] + offset;
  index->clear();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> EntryParameterFlattener::Run(HloModule* module) {
  HloComputation* entry = module->entry_computation();
  if (entry == nullptr) return false;
  const std::vector<HloInstruction*> old_params = entry->parameter_instructions();
  bool any_tuple = false;
  for (size_t i = 0; i < old_params.size(); ++i) {
    if (old_params[i] == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("entry-parameter-flattener: the entry has no parameter ", i));
    }
    any_tuple |= old_params[i]->shape().IsTuple();
  }
  if (!any_tuple) return false;

  // Aliases and donors name (parameter, leaf index): remapped first, so that
  // a refusal changes nothing.
  std::vector<int64_t> first;
  int64_t leaves = 0;
  for (HloInstruction* old : old_params) {
    first.push_back(leaves);
    std::vector<Shape> l;
    AppendLeaves(old->shape(), &l);
    leaves += static_cast<int64_t>(l.size());
  }
  HloModuleConfig config = module->config();
  for (InputOutputAlias& a : config.input_output_alias) {
    RETURN_IF_ERROR(RemapParameter(old_params, first, &a.parameter_number, &a.parameter_index));
  }
  for (BufferDonor& d : config.buffer_donor) {
    RETURN_IF_ERROR(RemapParameter(old_params, first, &d.parameter_number, &d.parameter_index));
  }
  if (config.entry_computation_layout.has_value()) {
    std::vector<Shape> flat;
    for (const Shape& p : config.entry_computation_layout->parameters) AppendLeaves(p, &flat);
    config.entry_computation_layout->parameters = std::move(flat);
    config.entry_computation_layout->parameter_names.clear();
  }

  // Every parameter is replaced (array ones too: their numbers move), so
  // the new ones are added first, then the old ones removed, then the new
  // array parameters take back their old names.
  int64_t next = 0;
  std::vector<std::pair<HloInstruction*, std::string>> renames;
  for (HloInstruction* old : old_params) {
    const std::string name = old->name();
    HloInstruction* value = AddLeafParameters(entry, old->shape(), name, &next);
    RETURN_IF_ERROR(ReplaceInstruction(old, value));
    if (!old->shape().IsTuple()) renames.emplace_back(value, name);
  }
  for (auto& [param, name] : renames) param->set_name(name);
  *module->mutable_config() = std::move(config);
  return true;
}

}  // namespace xla
