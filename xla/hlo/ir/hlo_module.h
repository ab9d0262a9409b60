// HloModule: computations, the entry computation, and module attributes.
//
// The module owns its computations. Header attributes are typed where the
// compiler uses them (entry layout, aliasing, donors, replica and partition
// counts, is_scheduled) and kept verbatim otherwise. The debug-info sections
// (FileNames, FunctionNames, FileLocations, StackFrames) are kept as parsed.
// Not thread-safe for mutation.
#ifndef XLA_HLO_IR_HLO_MODULE_H_
#define XLA_HLO_IR_HLO_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xla/hlo/ir/hlo_computation.h"
#include "xla/types/shape.h"

namespace xla {

// `{output_index}: (parameter_number, {parameter_index}, kind)`.
struct InputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  std::string kind;  // "", "may-alias" or "must-alias"
  bool operator==(const InputOutputAlias& o) const {
    return output_index == o.output_index && parameter_number == o.parameter_number &&
           parameter_index == o.parameter_index && kind == o.kind;
  }
};

// `(parameter_number, {parameter_index})`.
struct BufferDonor {
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool operator==(const BufferDonor& o) const {
    return parameter_number == o.parameter_number && parameter_index == o.parameter_index;
  }
};

// One line of a debug-info section: `N "text"` or `N {fields}`.
struct DebugSectionEntry {
  int64_t id = 0;
  std::string value;  // verbatim: the quoted string or the braced fields
  bool operator==(const DebugSectionEntry& o) const { return id == o.id && value == o.value; }
};

struct DebugSection {
  std::string name;  // FileNames, FunctionNames, FileLocations or StackFrames
  std::vector<DebugSectionEntry> entries;
  bool operator==(const DebugSection& o) const {
    return name == o.name && entries == o.entries;
  }
};

struct HloModuleConfig {
  std::optional<ProgramShape> entry_computation_layout;
  std::vector<InputOutputAlias> input_output_alias;
  std::vector<BufferDonor> buffer_donor;
  bool has_input_output_alias = false;
  bool has_buffer_donor = false;
  std::optional<int64_t> replica_count;
  std::optional<int64_t> num_partitions;
  std::optional<bool> is_scheduled;
  // Other header attributes, verbatim, in text order: (name, value text).
  std::vector<std::pair<std::string, std::string>> other_attributes;
};

class HloModule {
 public:
  explicit HloModule(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // The file (or "<text>") the module was parsed from, as given to the
  // parser; empty for modules built in code. With an instruction's
  // source_location() it makes `file:line:col` in diagnostics.
  const std::string& source_file() const { return source_file_; }
  void set_source_file(std::string file) { source_file_ = std::move(file); }

  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation);
  // Removes a computation that no instruction calls and that is not the
  // entry. Returns false otherwise.
  bool RemoveComputation(HloComputation* computation);
  // Removes every computation of `dead` that is not the entry and that no
  // instruction outside `dead` calls, in one scan of the module (removing
  // one at a time rescans it per call). Returns the number removed.
  int64_t RemoveComputations(const std::vector<HloComputation*>& dead);
  // `base` if no computation has that name, otherwise `base.N` (smallest N).
  std::string UniqueComputationName(const std::string& base) const;
  const std::vector<std::unique_ptr<HloComputation>>& computations() const {
    return computations_;
  }
  // nullptr when absent.
  HloComputation* GetComputation(const std::string& name) const;

  HloComputation* entry_computation() const { return entry_; }
  void set_entry_computation(HloComputation* entry);

  // Callees before callers; the entry last. Assumes no call cycles.
  std::vector<HloComputation*> MakeComputationPostOrder() const;

  const HloModuleConfig& config() const { return config_; }
  HloModuleConfig* mutable_config() { return &config_; }

  const std::vector<DebugSection>& debug_sections() const { return debug_sections_; }
  std::vector<DebugSection>* mutable_debug_sections() { return &debug_sections_; }

  // Hands out ids for HloInstruction::unique_id.
  int64_t NextUniqueId() { return next_id_++; }

 private:
  std::string name_;
  std::string source_file_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  HloModuleConfig config_;
  std::vector<DebugSection> debug_sections_;
  int64_t next_id_ = 0;
};

}  // namespace xla

#endif  // XLA_HLO_IR_HLO_MODULE_H_
