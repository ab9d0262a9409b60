#include "xla/hlo/parser/hlo_printer.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace {

std::string IndexString(const std::vector<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string EntryLayoutString(const ProgramShape& ps) {
  std::vector<std::string> params;
  for (const Shape& p : ps.parameters) params.push_back(p.ToString());
  return absl::StrCat("{(", absl::StrJoin(params, ", "), ")->", ps.result.ToString(), "}");
}

std::string HeaderString(const HloModule& module) {
  const HloModuleConfig& config = module.config();
  std::string out = absl::StrCat("HloModule ", module.name());
  if (config.is_scheduled) absl::StrAppend(&out, ", is_scheduled=", *config.is_scheduled ? "true" : "false");
  if (config.entry_computation_layout) {
    absl::StrAppend(&out, ", entry_computation_layout=",
                    EntryLayoutString(*config.entry_computation_layout));
  }
  if (config.has_input_output_alias) {
    std::vector<std::string> entries;
    for (const InputOutputAlias& a : config.input_output_alias) {
      std::string e = absl::StrCat(IndexString(a.output_index), ": (", a.parameter_number, ", ",
                                   IndexString(a.parameter_index));
      if (!a.kind.empty()) absl::StrAppend(&e, ", ", a.kind);
      entries.push_back(e + ")");
    }
    absl::StrAppend(&out, ", input_output_alias={ ", absl::StrJoin(entries, ", "), " }");
  }
  if (config.has_buffer_donor) {
    std::vector<std::string> entries;
    for (const BufferDonor& d : config.buffer_donor) {
      entries.push_back(absl::StrCat("(", d.parameter_number, ", ", IndexString(d.parameter_index), ")"));
    }
    absl::StrAppend(&out, ", buffer_donor={ ", absl::StrJoin(entries, ", "), " }");
  }
  if (config.replica_count) absl::StrAppend(&out, ", replica_count=", *config.replica_count);
  if (config.num_partitions) absl::StrAppend(&out, ", num_partitions=", *config.num_partitions);
  for (const auto& [name, value] : config.other_attributes) {
    absl::StrAppend(&out, ", ", name, "=", value);
  }
  return out;
}

}  // namespace

std::string PrintComputation(const HloComputation& computation) {
  std::string out;
  if (computation.is_entry()) out += "ENTRY ";
  absl::StrAppend(&out, computation.name(), " ", computation.ComputeProgramShape().ToString(),
                  " {\n");
  for (const auto& instr : computation.instructions()) {
    out += "  ";
    if (instr.get() == computation.root_instruction()) out += "ROOT ";
    absl::StrAppend(&out, instr->ToString(), "\n");
  }
  out += "}";
  if (!computation.execution_thread().empty()) {
    absl::StrAppend(&out, ", execution_thread=\"", absl::CEscape(computation.execution_thread()), "\"");
  }
  out += "\n";
  return out;
}

std::string PrintModule(const HloModule& module) {
  std::string out = HeaderString(module) + "\n";
  for (const DebugSection& section : module.debug_sections()) {
    absl::StrAppend(&out, "\n", section.name, "\n");
    for (const DebugSectionEntry& e : section.entries) absl::StrAppend(&out, e.id, " ", e.value, "\n");
  }
  for (const auto& computation : module.computations()) {
    absl::StrAppend(&out, "\n", PrintComputation(*computation));
  }
  return out;
}

}  // namespace xla
