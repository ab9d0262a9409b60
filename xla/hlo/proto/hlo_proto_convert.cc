#include "xla/hlo/proto/hlo_proto_convert.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "xla/hlo/proto/hlo_attribute_convert.h"
#include "xla/util/logging.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using InstructionIdMap = absl::flat_hash_map<const HloInstruction*, int64_t>;

int64_t InstructionId(const HloInstruction* instr, const InstructionIdMap& ids,
                      absl::string_view role) {
  auto it = ids.find(instr);
  XLA_CHECK(it != ids.end()) << role << " of an instruction is not in the module";
  return it->second;
}

HloInstructionProto InstructionToProto(const HloInstruction& instr, const ComputationIdMap& cids,
                                       const InstructionIdMap& ids) {
  HloInstructionProto proto;
  proto.set_name(instr.name());
  proto.set_id(InstructionId(&instr, ids, "instruction"));
  proto.set_opcode(std::string(HloOpcodeName(instr.opcode())));
  *proto.mutable_shape() = ShapeToProto(instr.shape());
  for (const HloInstruction* op : instr.operands()) {
    proto.add_operand_ids(InstructionId(op, ids, "an operand"));
  }
  for (const HloInstruction* pred : instr.control_predecessors()) {
    proto.add_control_predecessor_ids(InstructionId(pred, ids, "a control predecessor"));
  }
  if (instr.opcode() == HloOpcode::kParameter) proto.set_parameter_number(instr.parameter_number());
  if (instr.has_literal()) *proto.mutable_literal() = LiteralToProto(instr.literal());
  for (const auto& [id, value] : instr.attrs()) {
    *proto.add_attributes() = AttributeToProto(id, value, cids);
  }
  return proto;
}

void ConfigToProto(const HloModuleConfig& config, HloModuleConfigProto* proto) {
  if (config.entry_computation_layout) {
    *proto->mutable_entry_computation_layout() =
        ProgramShapeToProto(*config.entry_computation_layout);
  }
  for (const InputOutputAlias& a : config.input_output_alias) {
    InputOutputAliasProto* p = proto->add_input_output_alias();
    for (int64_t i : a.output_index) p->add_output_index(i);
    p->set_parameter_number(a.parameter_number);
    for (int64_t i : a.parameter_index) p->add_parameter_index(i);
    p->set_kind(a.kind);
  }
  proto->set_has_input_output_alias(config.has_input_output_alias);
  for (const BufferDonor& d : config.buffer_donor) {
    BufferDonorProto* p = proto->add_buffer_donor();
    p->set_parameter_number(d.parameter_number);
    for (int64_t i : d.parameter_index) p->add_parameter_index(i);
  }
  proto->set_has_buffer_donor(config.has_buffer_donor);
  if (config.replica_count) proto->set_replica_count(*config.replica_count);
  if (config.num_partitions) proto->set_num_partitions(*config.num_partitions);
  if (config.is_scheduled) proto->set_is_scheduled(*config.is_scheduled);
  for (const auto& [name, value] : config.other_attributes) {
    NameValueProto* p = proto->add_other_attributes();
    p->set_name(name);
    p->set_value(value);
  }
}

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// Nodes on a cycle of the directed graph `edges` (the first node repeated at
// the end), or empty when the graph is acyclic. Iterative: deep graphs do not
// exhaust the stack.
std::vector<int> FindCycle(const std::vector<std::vector<int>>& edges) {
  enum State : uint8_t { kNew, kActive, kDone };
  std::vector<State> state(edges.size(), kNew);
  std::vector<std::pair<int, size_t>> stack;
  for (size_t start = 0; start < edges.size(); ++start) {
    if (state[start] != kNew) continue;
    state[start] = kActive;
    stack.push_back({static_cast<int>(start), 0});
    while (!stack.empty()) {
      const int node = stack.back().first;
      const size_t next = stack.back().second++;
      if (next == edges[node].size()) {
        state[node] = kDone;
        stack.pop_back();
        continue;
      }
      const int succ = edges[node][next];
      if (state[succ] == kActive) {
        std::vector<int> cycle;
        bool on_cycle = false;
        for (const auto& frame : stack) {
          on_cycle = on_cycle || frame.first == succ;
          if (on_cycle) cycle.push_back(frame.first);
        }
        cycle.push_back(succ);
        return cycle;
      }
      if (state[succ] == kNew) {
        state[succ] = kActive;
        stack.push_back({succ, 0});
      }
    }
  }
  return {};
}

bool IsAllNonNegative(const google::protobuf::RepeatedField<int64_t>& values) {
  for (int64_t v : values) {
    if (v < 0) return false;
  }
  return true;
}

absl::StatusOr<InputOutputAlias> AliasFromProto(const InputOutputAliasProto& a,
                                                absl::string_view field) {
  if (a.parameter_number() < 0 || !IsAllNonNegative(a.output_index()) ||
      !IsAllNonNegative(a.parameter_index())) {
    return Invalid(
        field, absl::StrCat("parameter number ", a.parameter_number(), " or an index is negative"));
  }
  if (a.kind() != "" && a.kind() != "may-alias" && a.kind() != "must-alias") {
    return Invalid(
        absl::StrCat(field, ".kind"),
        absl::StrCat("alias kind \"", a.kind(), "\" is not \"\", may-alias or must-alias"));
  }
  return InputOutputAlias{{a.output_index().begin(), a.output_index().end()},
                          a.parameter_number(),
                          {a.parameter_index().begin(), a.parameter_index().end()},
                          a.kind()};
}

absl::StatusOr<BufferDonor> DonorFromProto(const BufferDonorProto& d, absl::string_view field) {
  if (d.parameter_number() < 0 || !IsAllNonNegative(d.parameter_index())) {
    return Invalid(
        field, absl::StrCat("parameter number ", d.parameter_number(), " or an index is negative"));
  }
  return BufferDonor{d.parameter_number(),
                     {d.parameter_index().begin(), d.parameter_index().end()}};
}

// Rebuilds an HloModule from a proto, validating as it goes.
class ModuleReader {
 public:
  explicit ModuleReader(const HloModuleProto& proto) : proto_(proto) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Read() {
    module_ = std::make_unique<HloModule>(proto_.name());
    RETURN_IF_ERROR(IndexIds());
    for (int ci = 0; ci < proto_.computations_size(); ++ci) RETURN_IF_ERROR(BuildComputation(ci));
    for (int ci = 0; ci < proto_.computations_size(); ++ci) RETURN_IF_ERROR(WireComputation(ci));
    RETURN_IF_ERROR(CheckCallCycles());
    RETURN_IF_ERROR(ReadEntry());
    RETURN_IF_ERROR(ReadConfig());
    RETURN_IF_ERROR(ReadDebugSections());
    return std::move(module_);
  }

 private:
  // Where an instruction id points: computation and instruction index.
  struct Location {
    int computation;
    int instruction;
  };

  static std::string CompPath(int ci) {
    return absl::StrCat("HloModuleProto.computations[", ci, "]");
  }
  static std::string InstrPath(int ci, int ii) {
    return absl::StrCat(CompPath(ci), ".instructions[", ii, "]");
  }
  // ` (instruction "x" of computation "c")`, for messages.
  std::string Context(int ci, int ii) const {
    const HloComputationProto& c = proto_.computations(ci);
    return absl::StrCat(" (instruction \"", c.instructions(ii).name(), "\" of computation \"",
                        c.name(), "\")");
  }

  absl::Status IndexIds();
  absl::Status BuildComputation(int ci);
  absl::StatusOr<std::unique_ptr<HloInstruction>> BuildInstruction(
      int ci, int ii, absl::flat_hash_set<int64_t>* parameter_numbers);
  // Resolves an instruction id used inside computation `ci`.
  absl::StatusOr<Location> Resolve(int64_t id, int ci, absl::string_view field,
                                   absl::string_view context) const;
  absl::Status WireComputation(int ci);
  absl::Status WireInstruction(int ci, int ii, std::vector<int>* edges);
  absl::Status CheckCallCycles();
  absl::Status ReadEntry();
  absl::Status ReadConfig();
  absl::Status ReadDebugSections();

  const HloModuleProto& proto_;
  std::unique_ptr<HloModule> module_;
  std::vector<HloComputation*> computations_;               // by proto index
  std::vector<std::vector<HloInstruction*>> instructions_;  // by proto indices
  ComputationByIdMap computations_by_id_;
  absl::flat_hash_map<int64_t, Location> instructions_by_id_;
};

absl::Status ModuleReader::IndexIds() {
  absl::flat_hash_map<absl::string_view, int> names;
  for (int ci = 0; ci < proto_.computations_size(); ++ci) {
    const HloComputationProto& c = proto_.computations(ci);
    if (c.name().empty()) return Invalid(CompPath(ci) + ".name", "computation name is empty");
    if (!names.emplace(c.name(), ci).second) {
      return Invalid(CompPath(ci) + ".name",
                     absl::StrCat("computation name \"", c.name(), "\" is already used by ",
                                  CompPath(names[c.name()])));
    }
    if (c.id() < 0) {
      return Invalid(CompPath(ci) + ".id", absl::StrCat("computation id ", c.id(), " is negative"));
    }
    if (!computations_by_id_.emplace(c.id(), nullptr).second) {
      return Invalid(CompPath(ci) + ".id",
                     absl::StrCat("computation id ", c.id(), " is used twice"));
    }
    for (int ii = 0; ii < c.instructions_size(); ++ii) {
      const int64_t id = c.instructions(ii).id();
      const std::string field = InstrPath(ci, ii) + ".id";
      if (id < 0) {
        return Invalid(field, absl::StrCat("instruction id ", id, " is negative", Context(ci, ii)));
      }
      auto [it, inserted] = instructions_by_id_.emplace(id, Location{ci, ii});
      if (!inserted) {
        return Invalid(field,
                       absl::StrCat("instruction id ", id, " is already used by ",
                                    InstrPath(it->second.computation, it->second.instruction),
                                    Context(ci, ii)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ModuleReader::BuildComputation(int ci) {
  const HloComputationProto& c = proto_.computations(ci);
  HloComputation* computation = module_->AddComputation(std::make_unique<HloComputation>(c.name()));
  computations_.push_back(computation);
  computations_by_id_[c.id()] = computation;
  instructions_.emplace_back();
  absl::flat_hash_set<absl::string_view> names;
  absl::flat_hash_set<int64_t> parameter_numbers;
  for (int ii = 0; ii < c.instructions_size(); ++ii) {
    const std::string& name = c.instructions(ii).name();
    if (name.empty()) {
      return Invalid(InstrPath(ci, ii) + ".name",
                     absl::StrCat("instruction name is empty (computation \"", c.name(), "\")"));
    }
    if (!names.insert(name).second) {
      return Invalid(InstrPath(ci, ii) + ".name",
                     absl::StrCat("instruction name \"", name, "\" is used twice in computation \"",
                                  c.name(), "\""));
    }
    ASSIGN_OR_RETURN(std::unique_ptr<HloInstruction> instr,
                     BuildInstruction(ci, ii, &parameter_numbers));
    instructions_.back().push_back(computation->AddInstruction(std::move(instr)));
  }
  computation->set_has_printed_signature(c.has_printed_signature());
  computation->set_execution_thread(c.execution_thread());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloInstruction>> ModuleReader::BuildInstruction(
    int ci, int ii, absl::flat_hash_set<int64_t>* parameter_numbers) {
  const HloComputationProto& c = proto_.computations(ci);
  const HloInstructionProto& p = c.instructions(ii);
  const std::string path = InstrPath(ci, ii);
  const std::optional<HloOpcode> opcode = HloOpcodeFromName(p.opcode());
  if (!opcode) {
    return Invalid(path + ".opcode",
                   absl::StrCat("unknown opcode \"", p.opcode(), "\"", Context(ci, ii)));
  }
  ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(p.shape(), path + ".shape"));
  if (*opcode != HloOpcode::kParameter && p.parameter_number() != 0) {
    return Invalid(path + ".parameter_number",
                   absl::StrCat("parameter_number ", p.parameter_number(), " on a ", p.opcode(),
                                " instruction", Context(ci, ii)));
  }
  if (*opcode != HloOpcode::kConstant && p.has_literal()) {
    return Invalid(path + ".literal",
                   absl::StrCat("literal on a ", p.opcode(), " instruction", Context(ci, ii)));
  }
  if (*opcode == HloOpcode::kParameter) {
    const int64_t n = p.parameter_number();
    if (n < 0 || n >= c.instructions_size() || !parameter_numbers->insert(n).second) {
      return Invalid(path + ".parameter_number",
                     absl::StrCat("parameter number ", n,
                                  " is negative, repeated, or not below the computation's ",
                                  c.instructions_size(), " instructions", Context(ci, ii)));
    }
    return HloInstruction::CreateParameter(n, std::move(shape), p.name());
  }
  if (*opcode == HloOpcode::kConstant) {
    if (!p.has_literal()) {
      return Invalid(path + ".literal", absl::StrCat("constant has no literal", Context(ci, ii)));
    }
    ASSIGN_OR_RETURN(Literal literal, LiteralFromProto(p.literal(), path + ".literal"));
    if (!ShapesCompatible(literal.shape(), shape, /*ignore_dynamic=*/true)) {
      return Invalid(path + ".literal.shape",
                     absl::StrCat("literal shape ", literal.shape().ToString(),
                                  " does not match the instruction shape ", shape.ToString(),
                                  Context(ci, ii)));
    }
    auto instr = HloInstruction::CreateConstant(std::move(literal), p.name());
    *instr->mutable_shape() = std::move(shape);
    return instr;
  }
  return std::make_unique<HloInstruction>(*opcode, p.name(), std::move(shape));
}

absl::StatusOr<ModuleReader::Location> ModuleReader::Resolve(int64_t id, int ci,
                                                             absl::string_view field,
                                                             absl::string_view context) const {
  auto it = instructions_by_id_.find(id);
  if (it == instructions_by_id_.end()) {
    return Invalid(field, absl::StrCat("id ", id, " names no instruction", context));
  }
  if (it->second.computation != ci) {
    const int other = it->second.computation;
    return Invalid(
        field, absl::StrCat("id ", id, " names instruction \"",
                            proto_.computations(other).instructions(it->second.instruction).name(),
                            "\" of computation \"", proto_.computations(other).name(),
                            "\", not of this computation", context));
  }
  return it->second;
}

absl::Status ModuleReader::WireComputation(int ci) {
  const HloComputationProto& c = proto_.computations(ci);
  // Operand and control edges by instruction index, for the cycle check.
  std::vector<std::vector<int>> edges(c.instructions_size());
  for (int ii = 0; ii < c.instructions_size(); ++ii) {
    RETURN_IF_ERROR(WireInstruction(ci, ii, &edges[ii]));
  }
  const std::vector<int> cycle = FindCycle(edges);
  if (!cycle.empty()) {
    std::vector<std::string> names;
    for (int ii : cycle) names.push_back(c.instructions(ii).name());
    return Invalid(CompPath(ci), absl::StrCat("computation \"", c.name(),
                                              "\" has a cycle through operands or control "
                                              "predecessors: ",
                                              absl::StrJoin(names, " -> ")));
  }
  if (c.has_root_id()) {
    ASSIGN_OR_RETURN(Location root,
                     Resolve(c.root_id(), ci, CompPath(ci) + ".root_id",
                             absl::StrCat(" (root of computation \"", c.name(), "\")")));
    computations_[ci]->set_root_instruction(instructions_[ci][root.instruction]);
  }
  return absl::OkStatus();
}

absl::Status ModuleReader::WireInstruction(int ci, int ii, std::vector<int>* edges) {
  const HloInstructionProto& p = proto_.computations(ci).instructions(ii);
  HloInstruction* instr = instructions_[ci][ii];
  const std::string path = InstrPath(ci, ii);
  const std::string context = Context(ci, ii);
  for (int k = 0; k < p.operand_ids_size(); ++k) {
    ASSIGN_OR_RETURN(Location op, Resolve(p.operand_ids(k), ci,
                                          absl::StrCat(path, ".operand_ids[", k, "]"), context));
    instr->AppendOperand(instructions_[ci][op.instruction]);
    edges->push_back(op.instruction);
  }
  for (int k = 0; k < p.control_predecessor_ids_size(); ++k) {
    ASSIGN_OR_RETURN(Location pred,
                     Resolve(p.control_predecessor_ids(k), ci,
                             absl::StrCat(path, ".control_predecessor_ids[", k, "]"), context));
    instr->AddControlPredecessor(instructions_[ci][pred.instruction]);
    edges->push_back(pred.instruction);
  }
  for (int k = 0; k < p.attributes_size(); ++k) {
    const std::string field = absl::StrCat(path, ".attributes[", k, "]");
    absl::StatusOr<std::pair<AttrId, AttrValue>> attr =
        AttributeFromProto(p.attributes(k), computations_by_id_, field);
    if (!attr.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(attr.status().message(), context));
    }
    if (instr->has_attr(attr->first)) {
      return Invalid(
          field, absl::StrCat("attribute ", p.attributes(k).name(), " is given twice", context));
    }
    instr->SetAttr(attr->first, std::move(attr->second));
  }
  return absl::OkStatus();
}

absl::Status ModuleReader::CheckCallCycles() {
  absl::flat_hash_map<const HloComputation*, int> index;
  for (size_t ci = 0; ci < computations_.size(); ++ci) index[computations_[ci]] = ci;
  std::vector<std::vector<int>> edges(computations_.size());
  for (size_t ci = 0; ci < computations_.size(); ++ci) {
    for (const auto& instr : computations_[ci]->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        edges[ci].push_back(index.at(callee));
      }
    }
  }
  const std::vector<int> cycle = FindCycle(edges);
  if (cycle.empty()) return absl::OkStatus();
  std::vector<std::string> names;
  for (int ci : cycle) names.push_back(computations_[ci]->name());
  return Invalid(CompPath(cycle[0]), absl::StrCat("computations call each other in a cycle: ",
                                                  absl::StrJoin(names, " -> ")));
}

absl::Status ModuleReader::ReadEntry() {
  if (!proto_.has_entry_computation_id()) {
    if (!proto_.entry_computation_name().empty()) {
      return Invalid("HloModuleProto.entry_computation_name",
                     absl::StrCat("entry computation name \"", proto_.entry_computation_name(),
                                  "\" is given without entry_computation_id"));
    }
    return absl::OkStatus();
  }
  auto it = computations_by_id_.find(proto_.entry_computation_id());
  if (it == computations_by_id_.end()) {
    return Invalid("HloModuleProto.entry_computation_id",
                   absl::StrCat("id ", proto_.entry_computation_id(), " names no computation"));
  }
  if (!proto_.entry_computation_name().empty() &&
      proto_.entry_computation_name() != it->second->name()) {
    return Invalid("HloModuleProto.entry_computation_name",
                   absl::StrCat("\"", proto_.entry_computation_name(),
                                "\" differs from the name of entry computation id ",
                                proto_.entry_computation_id(), ", \"", it->second->name(), "\""));
  }
  module_->set_entry_computation(it->second);
  return absl::OkStatus();
}

absl::Status ModuleReader::ReadConfig() {
  const HloModuleConfigProto& p = proto_.config();
  HloModuleConfig* config = module_->mutable_config();
  const std::string path = "HloModuleProto.config";
  if (p.has_entry_computation_layout()) {
    ASSIGN_OR_RETURN(
        config->entry_computation_layout,
        ProgramShapeFromProto(p.entry_computation_layout(), path + ".entry_computation_layout"));
  }
  for (int i = 0; i < p.input_output_alias_size(); ++i) {
    ASSIGN_OR_RETURN(InputOutputAlias alias,
                     AliasFromProto(p.input_output_alias(i),
                                    absl::StrCat(path, ".input_output_alias[", i, "]")));
    config->input_output_alias.push_back(std::move(alias));
  }
  config->has_input_output_alias = p.has_input_output_alias();
  for (int i = 0; i < p.buffer_donor_size(); ++i) {
    ASSIGN_OR_RETURN(
        BufferDonor donor,
        DonorFromProto(p.buffer_donor(i), absl::StrCat(path, ".buffer_donor[", i, "]")));
    config->buffer_donor.push_back(std::move(donor));
  }
  config->has_buffer_donor = p.has_buffer_donor();
  if (p.has_replica_count()) {
    if (p.replica_count() < 0) {
      return Invalid(path + ".replica_count", absl::StrCat(p.replica_count(), " is negative"));
    }
    config->replica_count = p.replica_count();
  }
  if (p.has_num_partitions()) {
    if (p.num_partitions() < 0) {
      return Invalid(path + ".num_partitions", absl::StrCat(p.num_partitions(), " is negative"));
    }
    config->num_partitions = p.num_partitions();
  }
  if (p.has_is_scheduled()) config->is_scheduled = p.is_scheduled();
  for (int i = 0; i < p.other_attributes_size(); ++i) {
    const NameValueProto& a = p.other_attributes(i);
    if (a.name().empty()) {
      return Invalid(absl::StrCat(path, ".other_attributes[", i, "].name"),
                     "header attribute name is empty");
    }
    config->other_attributes.emplace_back(a.name(), a.value());
  }
  return absl::OkStatus();
}

absl::Status ModuleReader::ReadDebugSections() {
  for (int i = 0; i < proto_.debug_sections_size(); ++i) {
    const DebugSectionProto& p = proto_.debug_sections(i);
    if (p.name() != "FileNames" && p.name() != "FunctionNames" && p.name() != "FileLocations" &&
        p.name() != "StackFrames") {
      return Invalid(absl::StrCat("HloModuleProto.debug_sections[", i, "].name"),
                     absl::StrCat("unknown debug section \"", p.name(),
                                  "\" (expected FileNames, FunctionNames, FileLocations or "
                                  "StackFrames)"));
    }
    DebugSection section;
    section.name = p.name();
    for (const DebugSectionEntryProto& e : p.entries()) {
      section.entries.push_back(DebugSectionEntry{e.id(), e.value()});
    }
    module_->mutable_debug_sections()->push_back(std::move(section));
  }
  return absl::OkStatus();
}

}  // namespace

HloModuleProto ModuleToProto(const HloModule& module) {
  HloModuleProto proto;
  proto.set_name(module.name());
  ComputationIdMap computation_ids;
  InstructionIdMap instruction_ids;
  int64_t next_instruction_id = 0;
  for (size_t ci = 0; ci < module.computations().size(); ++ci) {
    const HloComputation* c = module.computations()[ci].get();
    computation_ids[c] = static_cast<int64_t>(ci);
    for (const auto& instr : c->instructions())
      instruction_ids[instr.get()] = next_instruction_id++;
  }
  for (const auto& c : module.computations()) {
    HloComputationProto* cp = proto.add_computations();
    cp->set_name(c->name());
    cp->set_id(computation_ids.at(c.get()));
    for (const auto& instr : c->instructions()) {
      *cp->add_instructions() = InstructionToProto(*instr, computation_ids, instruction_ids);
    }
    if (c->root_instruction() != nullptr) {
      cp->set_root_id(InstructionId(c->root_instruction(), instruction_ids, "the root"));
    }
    cp->set_has_printed_signature(c->has_printed_signature());
    cp->set_execution_thread(c->execution_thread());
  }
  if (module.entry_computation() != nullptr) {
    auto it = computation_ids.find(module.entry_computation());
    XLA_CHECK(it != computation_ids.end()) << "the entry computation is not in the module";
    proto.set_entry_computation_id(it->second);
    proto.set_entry_computation_name(module.entry_computation()->name());
  }
  ConfigToProto(module.config(), proto.mutable_config());
  for (const DebugSection& section : module.debug_sections()) {
    DebugSectionProto* p = proto.add_debug_sections();
    p->set_name(section.name);
    for (const DebugSectionEntry& e : section.entries) {
      DebugSectionEntryProto* ep = p->add_entries();
      ep->set_id(e.id);
      ep->set_value(e.value);
    }
  }
  return proto;
}

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(const HloModuleProto& proto) {
  return ModuleReader(proto).Read();
}

}  // namespace xla
